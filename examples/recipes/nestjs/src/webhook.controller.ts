// The webhook route. Nest parses JSON bodies, so the signature could never verify against a
// parsed `req.body`: src/main.ts reads this route's body as raw bytes (express.raw, any
// Content-Type) before Nest's parsers, and this route hands those bytes to the receiver.

import { Controller, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Receiver } from 'cryptopay-verify/receiver';

/** The injection token of the receiver (see src/app.module.ts). */
export const RECEIVER = Symbol('cryptopay-verify receiver');

@Controller()
export class WebhookController {
  constructor(@Inject(RECEIVER) private readonly receiver: Receiver) {}

  @Post('webhook')
  async receive(@Req() req: Request, @Res() res: Response): Promise<void> {
    // req.body is the Buffer express.raw read (src/main.ts); anything else (that middleware
    // removed) is answered 500 body_not_raw, never 2xx. rawHeaders keeps a header sent twice apart.
    const { status, headers, body } = await this.receiver.handle({ body: req.body, headers: req.rawHeaders });
    res.status(status).set(headers).send(body);
  }
}
