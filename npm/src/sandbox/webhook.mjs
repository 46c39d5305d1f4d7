// The webhook, as the service keeps it: one per account, set up through the API
// (POST /v1/webhook-endpoints, Idempotency-Key, the URL checked as the service checks it) or at
// start; its binding check (secret_kind); rotation and activation of its signing secret; and
// replays of its events. The secrets are random, returned once, and compared in constant time.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { CryptoPayError, requestFingerprint } from 'cryptopay-verify';
import { checkWebhookUrl } from './options.mjs';
import { parseJsonObject, randomId, requireIdempotencyKey } from './requests.mjs';
import { checkIdempotency, refusal } from './rules.mjs';

const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;
const digest = (text) => createHash('sha256').update(text, 'utf8').digest();
/** Names a secret in a queued delivery without holding it: the start of its SHA-256. */
export const secretTag = (secret) => digest(secret).subarray(0, 8).toString('hex');
/** Compares two secrets in constant time (their digests, so that lengths leak nothing either). */
const sameSecret = (a, b) => typeof a === 'string' && typeof b === 'string' && timingSafeEqual(digest(a), digest(b));

/** The webhook's operations over `store`; its events go to `delivery`. */
export function createWebhooks({ store, options, delivery, log }) {
  const bindingView = (webhook) => ({ resource_id: webhook.resource_id, url: webhook.url });

  // The two header names a webhook signs with: never one header for both.
  function headerNames(timestamp, signature) {
    if (timestamp.toLowerCase() === signature.toLowerCase()) {
      throw new CryptoPayError('invalid_argument', `invalid_argument: timestampHeader and signatureHeader must differ (both ${timestamp}, ` +
        'one given and the other the one the data file or the default has): give both, two different names');
    }
    return { timestamp_header: timestamp, signature_header: signature };
  }

  function newWebhook(url) {
    return {
      resource_id: randomId('we'),
      url,
      ...headerNames(options.timestampHeader, options.signatureHeader),
      // `given`: the user's own (webhookSecret), never printed; an activation replaces it.
      secrets: options.webhookSecret === undefined ? { active: newSecret() } : { active: options.webhookSecret, given: true },
      created_at: new Date().toISOString(),
    };
  }

  function noteLoopback({ url, local, loopback }) {
    if (local && (!loopback || !url.startsWith('https:'))) {
      log(`webhook ${url}: on this machine, a local development name or a private network, accepted because this is a sandbox ` +
        '(the service itself delivers only to https on port 443, on a registered domain)', { type: 'webhook_loopback', url });
    }
  }

  /**
   * POST /v1/webhook-endpoints: { resource_id, url, secret, secret_kind } the first time; a
   * repeat for the same URL (or a replay of the same request) answers without the secret;
   * another URL is webhook_exists (one webhook per account).
   */
  function createWebhook({ idempotencyKey, body }) {
    requireIdempotencyKey(idempotencyKey);
    const fingerprint = requestFingerprint(body);
    const record = store.idempotency.get(`webhook\n${idempotencyKey}`);
    const check = checkIdempotency(record?.fingerprint, fingerprint);
    if (check === 'reused') throw refusal('idempotency_key_reused');
    if (check === 'replay' && store.webhook !== null) return bindingView(store.webhook);
    const request = parseJsonObject(body, 'a BootstrapWebhook');
    const checked = checkWebhookUrl(request.url); // webhook_url_... (loopback http allowed)
    const existing = store.webhook;
    if (existing !== null && existing.url !== checked.url) {
      // The dashboard's Edit Webhook has no stand-in here: say what does instead.
      throw refusal('webhook_exists', 'this sandbox\'s webhook was set up by --webhook-url (the webhookUrl option) or an earlier '
        + 'call, its secret printed in the start banner; the sandbox cannot edit or delete it: start it again with the other --webhook-url');
    }
    const created = existing ?? newWebhook(checked.url);
    store.atomic(() => {
      if (existing === null) store.setWebhook(created);
      store.put('idempotency', `webhook\n${idempotencyKey}`, { fingerprint, resource_id: created.resource_id });
    });
    if (existing !== null) return bindingView(existing);
    noteLoopback(checked);
    return { ...bindingView(created), secret: created.secrets.active, secret_kind: 'active' };
  }

  /**
   * With webhookSecret, a webhook a data file kept must sign with it: a start that silently
   * kept another secret would have every delivery refused by the receiver given this one.
   */
  function keptSecretAgrees() {
    const kept = store.webhook;
    if (options.webhookSecret === undefined || kept === null || sameSecret(kept.secrets.active, options.webhookSecret)) return;
    throw new CryptoPayError('invalid_argument', `invalid_argument: webhookSecret: the data file's webhook ${kept.resource_id} signs `
      + 'with another secret (its own, or one a rotation made active): give the receiver and the sandbox that active secret '
      + '(printed by a start without webhookSecret), or start on a new data file'); // never echoes either
  }

  /**
   * The webhook of startSandbox's webhookUrl: created the first time; on a data file that
   * has one, kept (its URL changed if another is given, as the dashboard's Edit Webhook
   * does; the header names this start gives replace the file's, the others are kept).
 * currentWebhook() shows it.
   */
  function configureWebhook(checked) {
    let webhook = store.webhook;
    keptSecretAgrees();
    if (webhook === null) {
      webhook = newWebhook(checked.url);
    } else {
      if (webhook.url !== checked.url) log(`webhook ${webhook.resource_id}: URL changed to ${checked.url}`, { type: 'webhook_url_changed' });
      webhook = { ...webhook, url: checked.url, ...givenHeaderNames(webhook) };
    }
    store.atomic(() => store.setWebhook(webhook));
    noteLoopback(checked);
  }

  // A header name this start does not give stays as the data file has it: a restart with
  // --webhook-url alone must not switch the receiver's headers to the defaults.
  function givenHeaderNames(webhook) {
    const timestamp = options.headersGiven?.timestamp === false ? webhook.timestamp_header : options.timestampHeader;
    const signature = options.headersGiven?.signature === false ? webhook.signature_header : options.signatureHeader;
    return headerNames(timestamp, signature);
  }

  /**
   * A start without webhookUrl: the data file's webhook, if any, signs with the secret given
   * (keptSecretAgrees) and takes the header names given, as a start with its URL would.
   */
  function keptWebhook() {
    keptSecretAgrees();
    const webhook = store.webhook;
    if (webhook === null || (options.headersGiven?.timestamp !== true && options.headersGiven?.signature !== true)) return;
    const names = givenHeaderNames(webhook);
    if (names.timestamp_header === webhook.timestamp_header && names.signature_header === webhook.signature_header) return;
    store.atomic(() => store.setWebhook({ ...webhook, ...names }));
    log(`webhook ${webhook.resource_id}: headers now ${names.timestamp_header}, ${names.signature_header}`, { type: 'webhook_headers_changed' });
  }

  /**
   * The webhook as the handle shows it (`--webhook-url`'s, one a data file kept, or one set up
   * through the API), with its active secret as it is now; undefined when there is none.
   */
  function currentWebhook() {
    const webhook = store.webhook;
    return webhook === null ? undefined : {
      resourceId: webhook.resource_id,
      url: webhook.url,
      secret: webhook.secrets.active,
      secretGiven: webhook.secrets.given === true,
      timestampHeader: webhook.timestamp_header,
      signatureHeader: webhook.signature_header,
    };
  }

  function webhookOf(id) {
    const webhook = store.webhook;
    // None at all: no id can help (replay, rotate and activate take none); say how to make one.
    if (webhook === null) {
      throw refusal('webhook_not_found', 'this sandbox has no webhook: start it with webhookUrl (--webhook-url), or create one with POST /v1/webhook-endpoints');
    }
    if (id !== undefined && webhook.resource_id !== id) throw refusal('webhook_not_found');
    return webhook;
  }

  /** POST /v1/webhook-endpoints/{id}/verify: the WebhookBindingView with secret_kind. */
  function verifyBinding(id, body) {
    const webhook = webhookOf(id);
    const request = parseJsonObject(body, 'a VerifyWebhookBinding');
    if (typeof request.secret !== 'string') throw refusal('request_invalid', 'secret must be a string');
    let kind = null;
    if (sameSecret(request.secret, webhook.secrets.active)) kind = 'active';
    else if (webhook.secrets.pending !== undefined && sameSecret(request.secret, webhook.secrets.pending)) kind = 'pending';
    if (kind === null) throw refusal('secret_mismatch');
    return { ...bindingView(webhook), secret_kind: kind };
  }

  /** A new pending secret (returned once); deliveries stay signed with the active one. */
  function rotate() {
    const webhook = webhookOf();
    const pending = newSecret();
    store.atomic(() => store.setWebhook({ ...webhook, secrets: { ...webhook.secrets, pending } }));
    log(`webhook ${webhook.resource_id}: secret rotated; deliveries stay signed with the active secret until activation`, { type: 'rotated' });
    return { resource_id: webhook.resource_id, secret: pending, secret_kind: 'pending' };
  }

  /**
   * The pending secret becomes the active one: from now on only it signs. The request in
   * flight at the switch, which the spec's overlap exists for, is sent too: the event of the
   * last attempt once more (kind `overlap`), signed with the old secret at the second of the
   * activation, so that a receiver which dropped the old secret at once is seen refusing it
   * here. Nothing when nothing was delivered yet.
   */
  function activate() {
    const webhook = webhookOf();
    if (webhook.secrets.pending === undefined) throw refusal('no_pending_secret');
    const secrets = { active: webhook.secrets.pending, retiring: webhook.secrets.active, retiring_since: new Date().toISOString() };
    const lastSent = store.attempts.at(-1)?.event_id;
    const latest = lastSent === undefined ? undefined : store.events.get(lastSent);
    store.atomic(() => {
      store.setWebhook({ ...webhook, secrets });
      if (latest !== undefined) delivery.enqueue([latest], 'overlap', { retiring: secretTag(secrets.retiring) });
    });
    const inFlight = latest === undefined ? '' : `; ${latest.event_id} follows once more signed with the old one, as a request in flight at the switch`;
    log(`webhook ${webhook.resource_id}: the rotated secret is active; deliveries are signed with it only${inFlight}`, { type: 'activated' });
    if (latest !== undefined) delivery.wake();
    return { resource_id: webhook.resource_id, secret_kind: 'active' };
  }

  /** Queues an event again: the same event_id and envelope bytes, a new timestamp and signature. */
  function replay(eventId) {
    const event = typeof eventId === 'string' ? store.events.get(eventId) : undefined;
    if (event === undefined) throw refusal('event_not_found');
    webhookOf();
    store.atomic(() => delivery.enqueue([event], 'replay'));
    delivery.wake();
    log(`event ${eventId}: replay queued`, { type: 'replay', event_id: eventId });
    return { event_id: eventId, replay: 'queued' };
  }

  return { createWebhook, configureWebhook, keptWebhook, currentWebhook, verifyBinding, rotate, activate, replay };
}
