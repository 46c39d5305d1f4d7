// The delivery engine: every payment.updated to the configured webhook URL, and nowhere
// else, as the service delivers it.
//
//   - Each attempt is a POST of the event's bytes, fixed when the event occurred, with a new
//     timestamp (Unix seconds) and a signature over `timestamp.body` by the active secret at
//     that moment (signWebhook, the package's own). No redirect is ever followed (node:http
//     follows none); each attempt has a timeout.
//   - What follows an attempt is the core's schedule (nextDeliveryStep): 2xx acknowledged;
//     a network failure, 408, 425, 429 or 5xx retried after the next of the retry delays,
//     `exhausted` once they are used up; any other status, 3xx included, failed_permanently.
//   - Without shuffle, a payment's deliveries go one at a time, in the order they were queued
//     (its events in the order they occurred): the next starts when the one before is
//     acknowledged, failed or exhausted. Payments do not wait for each other.
//   - duplicateRate: an acknowledged event is queued once more (same event_id, same bytes),
//     behind that payment's later events. shuffle: each delivery is held back for a while
//     drawn from the seed, and a payment's deliveries start in the order their holds end,
//     whatever the order of their events, without waiting for each other: a later event often
//     arrives first, a retry no longer holds back the events after it, and a slow receiver
//     gets two deliveries of one payment at once (a receiver that reads its stored version,
//     compares and writes outside one transaction loses here as it would there). Both choices
//     are drawn from the seed by the event's number (random.mjs).
//   - Each job is in the store, written with its attempt's outcome in one step: a restart
//     on a data file resumes what was pending (an attempt cut by the stop is made again).

import http from 'node:http';
import https from 'node:https';
import { classifyDeliveryResponse, signWebhook } from 'cryptopay-verify';
import { maskCredentials } from '../api/redact.mjs';
import { realClearTimeout, realNow, realQueueMicrotask, realSetTimeout } from './clock.mjs';
import { draw } from './random.mjs';
import { nextDeliveryStep } from './rules.mjs';
import { secretTag } from './webhook.mjs';

// How far the last timestamp of an event may run ahead of the clock before the clock is taken
// to have been set back: attempts within one second run ahead a second each, never this far.
const CLOCK_SET_BACK_SECS = 60;

/** Deliveries in flight at once, across payments. */
const MAX_IN_FLIGHT = 8;
/** With shuffle, each delivery is held back for up to this long, drawn from the seed. */
export const SHUFFLE_WINDOW_MS = 250;
/** The part of a receiver's answer read (the rest is discarded). */
const MAX_ANSWER_BYTES = 4096;
/** After an attempt that failed in the sandbox itself (not the receiver's answer): the wait. */
const FAILED_RETRY_MS = 1000;

/** How much of a receiver's answer the webhook log keeps, as text. */
const ANSWER_SHOWN = 200;

/**
 * The start of a receiver's answer as the log keeps it: text, control characters as spaces,
 * the attempt's signature and the secret that made it never (a receiver that echoes its
 * headers back), nor what may be a credential (a receiver's error page naming its database's
 * URL with its password: masked as the receiver's own log masks it), empty when there is none.
 */
function shownAnswer(bytes, hidden) {
  let text = Buffer.from(bytes).toString('utf8').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  for (const value of hidden) if (value) text = text.replaceAll(value, '***');
  text = maskCredentials(text);
  return text.length > ANSWER_SHOWN ? `${text.slice(0, ANSWER_SHOWN)}...` : text;
}

/**
 * POSTs `body` to `url`: resolves { status, answer } when the receiver answered (answer: the
 * first bytes of its body), or { error } (an error code such as ECONNREFUSED or ECONNRESET,
 * or 'timeout') when it did not.
 */
function post(url, body, headers, timeoutMs, track) {
  return new Promise((resolve) => {
    let settled = false;
    let req;
    const finish = (value) => {
      if (settled) return;
      settled = true;
      realClearTimeout(timer);
      track.delete(req);
      resolve(value);
    };
    // The status line is the answer: once it came, the timeout only stops the reading of the
    // body (a receiver that answers 200 and then holds the body open has answered 200).
    let answer = () => ({ error: 'timeout' });
    const timer = realSetTimeout(() => {
      finish(answer());
      req?.destroy();
    }, timeoutMs);
    try {
      const target = new URL(url);
      req = (target.protocol === 'https:' ? https : http).request(target, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(body.length) },
        agent: false, // one connection per attempt, as a sender that owes nothing to the last one
      });
    } catch (error) {
      finish({ error: error?.code ?? 'request_failed' });
      return;
    }
    track.add(req);
    // Once the status came it is the answer, whatever breaks after it (a reset after a 2xx is
    // an acknowledgment, as a close is).
    let responded = false;
    req.on('error', (error) => finish(responded ? answer() : { error: error?.code ?? 'connection_failed' }));
    req.on('response', (res) => {
      responded = true;
      let size = 0;
      const chunks = [];
      res.on('data', (chunk) => {
        if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) res.destroy();
      });
      // The status is the answer, whatever happens to the rest of the body. One outside HTTP's
      // 100-599 is no answer: a network failure, as the core's delivery rules read it.
      const status = res.statusCode;
      const done = () => finish(answer());
      answer = () => (status >= 100 && status <= 599
        ? { status, answer: Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES) }
        : { error: 'invalid_status' });
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    // 101 Switching Protocols is a status too (not a 2xx: never an acknowledgment); node
    // hands it here, not to 'response'.
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      finish({ status: res.statusCode });
    });
    req.end(body);
  });
}

/**
 * What holds the queue up, of `pending` (as pending() answers) and `attempts` (the webhook
 * log): the delivery in flight or retrying that comes first (a payment's later events wait
 * behind it), else the next due; with the log's last attempt of it, if any.
 */
export function firstInLine(pending, attempts) {
  const last = new Map(attempts.map((entry) => [entry.delivery_id, entry]));
  const first = pending.find((job) => job.in_flight || last.has(job.delivery_id))
    ?? pending.reduce((a, b) => (a.due_at <= b.due_at ? a : b));
  return { first, tried: last.get(first.delivery_id) };
}

/** The first attempt of an `overlap` job: the one signed with the old secret. */
const signedBeforeSwitch = (job) => job.kind === 'overlap' && job.attempt === 1;

/**
 * Whether an `overlap` job still stands for a request in flight: signed with the secret that is
 * retiring now (not one a later activation replaced), queued by this run of the engine (a stop
 * and a start in between leave none in flight, however soon the start) and no longer ago than
 * the sender's own timeout.
 */
function stillInFlight(job, webhook, timeoutMs, run) {
  return webhook.secrets.retiring !== undefined && job.retiring === secretTag(webhook.secrets.retiring)
    && job.run === run && Date.now() - job.queued_ms <= timeoutMs + 1000;
}

/**
 * The engine over `store` with the checked options (retryDelaysMs, timeoutMs, duplicateRate,
 * shuffle, seed); log(line, entry) gets every attempt.
 */
export function createDelivery({ store, options, log }) {
  const inFlight = new Map(); // job id -> promise of its attempt
  // This run of the engine, named on the overlap jobs it queues: a restart starts another.
  const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  const requests = new Set();
  let timer = null;
  let closed = false;
  // The last timestamp each event was signed with (seconds): a retry's is always newer. Read
  // from the log at the start, so that a sandbox started again on its data file within the
  // second of an attempt does not sign the next with the same timestamp.
  const lastTimestamp = new Map();
  for (const entry of store.attempts) {
    lastTimestamp.set(entry.event_id, Math.max(lastTimestamp.get(entry.event_id) ?? 0, Number(entry.timestamp)));
  }
  // The deliveries pending at the start: an attempt cut by the stop was never logged, so the
  // next attempt of each is signed past what that one may have been signed with.
  const resumed = new Set(store.jobs.keys());
  const startSecond = Math.floor(Date.now() / 1000);

  const holdMs = (event, purpose) => (options.shuffle ? Math.floor(draw(options.seed, event.number, purpose) * SHUFFLE_WINDOW_MS) : 0);

  /**
   * Queues deliveries of `events` (kind 'event', 'replay', 'duplicate', or 'overlap': the
   * request in flight when a rotated secret was activated, whose first attempt is signed with
   * the old secret at that second; `extra` names that secret by its `secretTag`); call
   * inside the store step that writes them. Nothing is queued while no webhook is configured.
   */
  function enqueue(events, kind = 'event', extra = {}) {
    if (store.webhook === null) return;
    const now = realNow();
    for (const event of events) {
      const number = store.next('deliveries');
      const job = {
        id: `dlv_${number}`,
        number,
        event_id: event.event_id,
        payment_id: event.payment_id,
        kind,
        attempt: 1,
        due_at: kind === 'overlap' ? now : now + holdMs(event, kind === 'event' ? 'hold' : 'again'),
        ...(kind === 'overlap' ? { signed_at: Math.floor(Date.now() / 1000), queued_ms: Date.now(), run, ...extra } : {}),
      };
      store.put('job', job.id, job);
    }
  }

  /**
   * The jobs that may start now or later, soonest first. Without shuffle, a payment's first in
   * line, and none of a payment that has a delivery in flight: one at a time, in order. With
   * shuffle, any job not in flight, in the order of their drawn holds: a payment's deliveries
   * may overlap.
   */
  function candidates() {
    let jobs = [...store.jobs.values()].sort((a, b) => a.number - b.number);
    if (options.shuffle) {
      jobs = jobs.filter((job) => !inFlight.has(job.id));
    } else {
      // The request in flight at an activation was sent already: it waits for no one.
      const overlaps = jobs.filter((job) => signedBeforeSwitch(job) && !inFlight.has(job.id));
      const busy = new Set([...inFlight.keys()].map((id) => store.jobs.get(id)?.payment_id));
      const heads = new Map();
      for (const job of jobs) if (!overlaps.includes(job) && !heads.has(job.payment_id)) heads.set(job.payment_id, job);
      jobs = [...heads.values()].filter((job) => !busy.has(job.payment_id)).concat(overlaps);
    }
    return jobs.sort((a, b) => a.due_at - b.due_at || a.number - b.number);
  }

  /**
   * Starts what is due, up to MAX_IN_FLIGHT (without shuffle one per payment), and sets a timer
   * for the rest.
   */
  function pump() {
    if (closed) return;
    realClearTimeout(timer);
    timer = null;
    const now = realNow();
    const starting = new Set();
    let next = Infinity;
    for (const job of candidates()) {
      if (!options.shuffle && starting.has(job.payment_id)) continue;
      if (job.due_at <= now && inFlight.size < MAX_IN_FLIGHT) {
        starting.add(job.payment_id);
        const attempt = deliver(job).catch((error) => {
          log(`delivery ${job.id}: ${error?.stack ?? error}`, { type: 'delivery_error' });
          // Tried again later, never at once: a failure that repeats must not spin.
          try {
            const current = store.jobs.get(job.id);
            if (!closed && current !== undefined) store.atomic(() => store.put('job', job.id, { ...current, due_at: realNow() + FAILED_RETRY_MS }));
          } catch (again) {
            log(`delivery ${job.id}: could not set it aside: ${again?.message ?? again}`, { type: 'delivery_error' });
          }
        });
        inFlight.set(job.id, attempt);
        attempt.finally(() => {
          inFlight.delete(job.id);
          pump();
        });
      } else if (job.due_at > now) {
        next = Math.min(next, job.due_at);
      }
    }
    if (next !== Infinity) {
      timer = realSetTimeout(pump, Math.min(next - now, 2 ** 31 - 1));
      timer.unref?.();
    }
  }

  async function deliver(job) {
    const event = store.events.get(job.event_id);
    const webhook = store.webhook;
    if (event === undefined || webhook === null) {
      store.atomic(() => store.remove('job', job.id));
      return;
    }
    if (signedBeforeSwitch(job) && !stillInFlight(job, webhook, options.timeoutMs, run)) {
      store.atomic(() => store.remove('job', job.id));
      log(`delivery ${job.id}: the request in flight at an activation was not sent: it was signed with a secret rotated `
        + 'out since, or longer ago than a request stays in flight (a restart in between)', { type: 'overlap_dropped', delivery_id: job.id });
      return;
    }
    const body = Buffer.from(event.body, 'utf8');
    // A new timestamp (so a new signature) for every attempt of an event, as the spec says of a
    // retry: one second past the last when attempts come within the same second (retry delays
    // under a second; the timestamp then runs ahead of the clock by a second per such attempt).
    // A delivery pending at the start: the attempt the stop cut was signed at most one second
    // past the last logged one, or at the latest in the second of the start.
    // The request in flight at an activation: signed before the switch, with the old secret
    // at that second (its retries are signed anew, with the active secret).
    const last = lastTimestamp.get(job.event_id) ?? 0;
    const old = signedBeforeSwitch(job) ? webhook.secrets.retiring : undefined;
    const floor = resumed.delete(job.id) ? Math.max(last + 1, startSecond) : last;
    const now = Math.floor(Date.now() / 1000);
    // A clock set back further than such attempts run ahead (a test's faked Date restored, a
    // host's clock corrected): signed with the clock's time, not hours ahead of it, where
    // every receiver would refuse it.
    const back = old === undefined && floor + 1 - now > CLOCK_SET_BACK_SECS;
    const seconds = back ? now : Math.max(old !== undefined ? job.signed_at : now, floor + 1);
    lastTimestamp.set(job.event_id, seconds);
    const timestamp = String(seconds);
    const signature = signWebhook({ secret: old ?? webhook.secrets.active, timestamp, body });
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'cryptopay-verify-sandbox',
      [webhook.timestamp_header]: timestamp,
      [webhook.signature_header]: signature,
    };
    const got = await post(webhook.url, body, headers, options.timeoutMs, requests);
    if (closed) return; // stopped mid-attempt: the job stays queued, attempted again at the next start
    const { step, delayMs } = nextDeliveryStep(job.attempt, got.status ?? 'network_failure', options.retryDelaysMs);
    const entry = {
      seq: 0,
      delivery_id: job.id,
      kind: job.kind,
      event_id: job.event_id,
      payment_id: job.payment_id,
      status_version: Number.isSafeInteger(Number(event.status_version)) ? Number(event.status_version) : event.status_version,
      attempt: job.attempt,
      at: new Date().toISOString(),
      timestamp,
      ...(got.status !== undefined
        ? { status: got.status, classification: classifyDeliveryResponse(got.status), answer: shownAnswer(got.answer ?? [], [signature, webhook.secrets.active, webhook.secrets.pending, webhook.secrets.retiring, options.webhookSecret]) }
        : { error: got.error }),
      outcome: step,
      ...(delayMs !== undefined ? { next_attempt_in_ms: delayMs } : {}),
    };
    store.atomic(() => {
      entry.seq = store.next('attempts');
      store.appendAttempt(entry);
      if (step === 'retrying') {
        store.put('job', job.id, { ...job, attempt: job.attempt + 1, due_at: realNow() + delayMs });
      } else {
        store.remove('job', job.id);
        if (step === 'acknowledged' && job.kind === 'event' && options.duplicateRate > 0
          && draw(options.seed, event.number, 'duplicate') < options.duplicateRate) {
          enqueue([event], 'duplicate');
        }
      }
    });
    const answer = got.status !== undefined ? `HTTP ${got.status}${entry.answer === '' ? '' : ` ${entry.answer}`}` : got.error;
    const then = delayMs !== undefined ? `, next attempt in ${delayMs} ms` : '';
    const what = job.kind === 'event' ? '' : ` (${job.kind})`;
    log(`deliver ${job.event_id}${what} ${job.payment_id} v${event.status_version} attempt ${job.attempt}: ${answer} -> ${step}${then}`,
      { type: 'attempt', ...entry });
  }

  /** Wakes the engine after a store step queued something. */
  function wake() {
    if (!closed) realQueueMicrotask(pump);
  }

  /** Stops: no new attempt; attempts in flight are cut and left queued. */
  async function close() {
    closed = true;
    realClearTimeout(timer);
    for (const req of requests) req.destroy();
    await Promise.allSettled([...inFlight.values()]);
  }

  /** Every attempt so far, in order (the webhook log). */
  const attempts = () => store.attempts.map((entry) => ({ ...entry }));

  /** Deliveries queued and not finished: [{ delivery_id, event_id, payment_id, kind, attempt, due_at }]. */
  const pending = () => [...store.jobs.values()].sort((a, b) => a.number - b.number)
    .map(({ id, event_id, payment_id, kind, attempt, due_at }) => ({
      delivery_id: id, event_id, payment_id, kind, next_attempt: attempt, due_at: new Date(due_at).toISOString(), in_flight: inFlight.has(id),
    }));

  return { enqueue, wake, start: pump, close, attempts, pending };
}
