// The webhook route. Nest parses JSON bodies, so the signature could never verify against
// `req.body`: the app is created with `rawBody: true` (src/main.ts), which keeps the request's
// exact bytes in `req.rawBody` for this route to hand to the receiver.

import { Controller, Inject, Post, Req, Res } from '@nestjs/common';
import type { RawBodyRequest } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Receiver } from 'cryptopay-verify/receiver';

/** The injection token of the receiver (see src/app.module.ts). */
export const RECEIVER = Symbol('cryptopay-verify receiver');

@Controller()
export class WebhookController {
  constructor(@Inject(RECEIVER) private readonly receiver: Receiver) {}

  @Post('webhook')
  async receive(@Req() req: RawBodyRequest<Request>, @Res() res: Response): Promise<void> {
    // rawBody is undefined when no parser ran (a request that is not JSON): the receiver then
    // answers 500 body_not_raw, never 2xx. rawHeaders keeps a header sent twice apart.
    const { status, headers, body } = await this.receiver.handle({ body: req.rawBody, headers: req.rawHeaders });
    res.status(status).set(headers).send(body);
  }
}
