// The sandbox's refusals: SandboxError, with the HTTP status and the `{"error":{"code",
// "message"}}` body the service answers with. The codes and statuses of the service's own
// answers come from the core (ApiError, through rules.mjs); the few that only the sandbox's
// dashboard and operator endpoints need are listed here.

import { brand } from '../api/brand.mjs';

/** A refusal of the sandbox, as its HTTP API answers it: `code`, `status` and `message`. */
export class SandboxError extends Error {
  constructor(code, message, status) {
    super(message);
    this.name = 'SandboxError';
    this.code = code;
    this.status = status;
  }

  /** The service's ErrorResponse. */
  toJSON() {
    return { error: { code: this.code, message: this.message } };
  }
}
// instanceof holds across the package's copies (its ES module and CommonJS entries).
brand(SandboxError, 'SandboxError');

/**
 * Answers of the sandbox's own endpoints, and of the service's where the spec names no code
 * (a creation without its Content-Type), by code: [status, message].
 */
export const LOCAL_ERRORS = {
  key_not_found: [404, 'no such API key in this sandbox (revoked already, or never issued): POST /sandbox/keys issues one'],
  event_not_found: [404, 'no event with this id in this sandbox: check the event_id (GET /sandbox/events lists them)'],
  no_pending_secret: [409, 'no rotated secret is waiting: rotate first (POST /sandbox/webhook/rotate), then activate'],
  request_too_large: [413, 'the request body is over 1 MiB: the service\'s requests are small JSON objects'],
  unsupported_media_type: [415, 'send the body with Content-Type: application/json, as the service asks (fetch sends a string body as text/plain unless told)'],
  internal_error: [500, 'the sandbox failed on this request: see its log'],
  forbidden_origin: [403, 'a web page of another origin may not call the sandbox (its actions rotate secrets and issue keys): call it from your server, tests or the command line'],
  forbidden_host: [403, 'a request for a host name the sandbox does not answer to (a DNS-rebinding page, or a name it was not told): open it as localhost or 127.0.0.1, or start it with --public-url (publicUrl) naming the address you open'],
};
