// startSandbox(): the state opened (memory or a data file), the webhook configured, the
// delivery engine resumed and the HTTP server listening; its handle has the base URL, the
// test API key, the webhook's id and secret, and the dashboard's and customer's actions as
// methods (the same operations as the /sandbox endpoints).

import { createDelivery, firstInLine } from './delivery.mjs';
import { createServer } from './http.mjs';
import { deliveredOptions, payOptions, sandboxOptions } from './options.mjs';
import { createService } from './service.mjs';
import { openStore } from './store.mjs';
import { SandboxError } from './errors.mjs';
import { monotonic, realClearTimeout, realSetTimeout } from './clock.mjs';

const UNSPECIFIED = new Set(['0.0.0.0', '::', '[::]']);
/** How often delivered() looks at the queue. */
const DELIVERED_POLL_MS = 20;

/** The refusal of a handle's method once close() was called. */
const closedError = (what) => new SandboxError('sandbox_closed', `${what}: the sandbox was closed (close() was called): start another`, 503);

/** What holds the queue up, for delivered()'s refusal, with the receiver's last answer to it. */
function holdingUp(pending, attempts) {
  const { first, tried } = firstInLine(pending, attempts);
  const answered = tried === undefined ? '' : `, last answered ${tried.status === undefined ? tried.error : `HTTP ${tried.status}`}`;
  const when = first.in_flight ? 'in flight now' : `due ${first.due_at}`;
  return `${first.delivery_id} of ${first.event_id} (payment ${first.payment_id}), attempt ${first.next_attempt} ${when}${answered}`;
}

/**
 * Resolves the webhook log once no delivery is queued or in flight (each acknowledged, failed
 * for good or out of retries); rejects after timeoutMs saying what is still queued, or at once
 * when the sandbox is closed.
 */
async function delivered(delivery, options, state) {
  const timeoutMs = deliveredOptions(options);
  const until = monotonic() + timeoutMs;
  for (;;) {
    if (state.closed) throw closedError('delivered');
    const pending = delivery.pending();
    if (pending.length === 0) return delivery.attempts();
    if (monotonic() >= until) {
      const message = `delivered: ${pending.length} ${pending.length === 1 ? 'delivery is' : 'deliveries are'} still queued after `
        + `${timeoutMs} ms (first in line: ${holdingUp(pending, delivery.attempts())}): `
        + 'deliveries() says what the receiver answered; a receiver that is down keeps them queued through retryDelaysMs '
        + `(${state.retryMs / 1000} s in all here): give startSandbox shorter retryDelaysMs, or delivered() a longer timeoutMs (under `
        + 'your test runner\'s own limit: Vitest and Jest stop a test at 5 s by default, before this message could reach you)'
        + (state.seeded === null ? '' : `; this run's duplicates and order follow seed ${state.seeded}: startSandbox({ seed: ${state.seeded} }) repeats them`);
      // A SandboxError (504: the wait, not an endpoint, timed out), with what is still queued.
      const error = new SandboxError('deliveries_pending', message, 504);
      throw Object.assign(error, { pending });
    }
    await new Promise((resolve) => {
      const wake = () => {
        realClearTimeout(timer);
        state.waiters.delete(wake);
        resolve();
      };
      const timer = realSetTimeout(wake, DELIVERED_POLL_MS);
      state.waiters.add(wake);
    });
  }
}

/** A listening address only this machine reaches (any other is exposed: 0.0.0.0, a LAN address). */
const LOOPBACK_ONLY = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/i;

/** The base URL of a server listening on host:port (an unspecified address as loopback). */
function baseUrlOf(host, port) {
  const shown = UNSPECIFIED.has(host) ? '127.0.0.1' : host;
  return `http://${shown.includes(':') && !shown.startsWith('[') ? `[${shown}]` : shown}:${port}`;
}

export async function startSandbox(input = {}) {
  const options = sandboxOptions(input);
  // A log function that throws must not take the sandbox, or the test process, down with it.
  const log = (...args) => {
    try {
      const done = options.log(...args);
      // An async function that rejects, likewise.
      if (typeof done?.then === 'function') done.then(undefined, () => {});
    } catch {
      // the line is lost; the sandbox goes on
    }
  };
  const store = await openStore(options.data);
  let baseUrl = null;
  // The checkout origin: the address a browser opens (publicUrl), else the listening one.
  const publicUrl = () => options.publicUrl ?? baseUrl;
  const delivery = createDelivery({ store, options, log });
  const service = createService({ store, options, origin: publicUrl, delivery, log });
  let server;
  try {
    const apiKey = service.primaryKey();
    if (options.webhook !== undefined) service.configureWebhook(options.webhook);
    else service.keptWebhook();
    server = createServer({ service, delivery, baseUrl: () => baseUrl, publicUrl, log, loopbackOnly: LOOPBACK_ONLY.test(options.host) });
    server.keepAliveTimeout = 5_000;
    await new Promise((resolve, reject) => {
      const failed = (error) => {
        // Two sandboxes on the default port (test files run in parallel): the fix named.
        if (error?.code === 'EADDRINUSE' && options.port !== 0) {
          error.message = `port ${options.port} is in use on ${options.host} (another sandbox, or a test file running beside this one): `
            + 'give port: 0 to take a free one (sandbox.baseUrl says which), or another port';
        }
        reject(error);
      };
      server.once('error', failed);
      server.listen(options.port, options.host, () => {
        server.off('error', failed);
        resolve();
      });
    });
    baseUrl = baseUrlOf(options.host, server.address().port);
    if (!LOOPBACK_ONLY.test(options.host)) {
      log(`listening on ${options.host}, not only this machine: the /sandbox endpoints (keys, pay, rotate...) take no key, ` +
        'so anyone who reaches this address can use them', { type: 'exposed', host: options.host });
    }
    if (store.durable) logDataFile(store, log);
    // The seed a shuffled or duplicated run follows, first: a test that fails once delivered()
    // resolved can be repeated from its output.
    if (options.shuffle || options.duplicateRate > 0) {
      log(`deliveries ${[options.shuffle ? 'shuffled' : '', options.duplicateRate > 0 ? `duplicated at rate ${options.duplicateRate}` : ''].filter(Boolean).join(' and ')} `
        + `by seed ${options.seed}: startSandbox({ seed: ${options.seed} }) repeats them`, { type: 'seeded', seed: options.seed });
    }
    service.sweep();
    service.scheduleExpiry();
    delivery.start();
    let closing = null;
    // close() wakes delivered()'s waits, which then refuse; the methods that change or wait
    // refuse once it is called.
    const state = {
      closed: false, waiters: new Set(), retryMs: options.retryDelaysMs.reduce((sum, ms) => sum + ms, 0),
      // The seed a run's duplicates and order follow, when any do: a failing test's message names it.
      seeded: options.shuffle || options.duplicateRate > 0 ? options.seed : null,
    };
    const open = (what, run) => async (...args) => {
      if (state.closed) throw closedError(what);
      return run(...args);
    };
    // Printed (console.log, util.inspect, JSON.stringify): its addresses and settings, never
    // the API key or the webhook's secret, which are read by name.
    const shown = () => {
      let hook;
      try {
        hook = service.currentWebhook();
      } catch {
        hook = undefined; // closed
      }
      return {
        baseUrl, publicUrl: publicUrl(), apiKey: '(hidden: read sandbox.apiKey)',
        webhook: hook === undefined ? undefined : { resourceId: hook.resourceId, url: hook.url, secret: '(hidden: read sandbox.webhook.secret)' },
        seed: options.seed, durable: store.durable,
      };
    };
    return {
      [Symbol.for('nodejs.util.inspect.custom')]: shown,
      toJSON: shown,
      baseUrl,
      publicUrl: publicUrl(),
      apiKey,
      // Read when asked: the webhook a data file kept (started again without webhookUrl), one
      // set up through the API, the secret as rotations left it.
      get webhook() {
        return service.currentWebhook();
      },
      seed: options.seed,
      durable: store.durable,
      pay: open('pay', (paymentId, amountRaw, options) => service.pay(paymentId, amountRaw, payOptions(options))),
      settle: open('settle', (paymentId) => service.settle(paymentId)),
      review: open('review', (paymentId) => service.review(paymentId)),
      expire: open('expire', (paymentId) => service.expire(paymentId)),
      replay: open('replay', (eventId) => service.replay(eventId)),
      rotate: open('rotate', () => service.rotate()),
      activate: open('activate', () => service.activate()),
      // What happened stays readable after close(), for a test's assertions in its after().
      deliveries: async () => delivery.attempts(),
      pendingDeliveries: async () => delivery.pending(),
      delivered: open('delivered', (options) => delivered(delivery, options, state)),
      events: async (paymentId) => service.listEvents(paymentId),
      issueKey: open('issueKey', (scopes) => service.issueKey(scopes).api_key),
      revokeKey: open('revokeKey', (key) => { service.revokeKey(key); }),
      close() {
        state.closed = true;
        for (const wake of [...state.waiters]) wake();
        closing ??= (async () => {
          service.close();
          await new Promise((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections?.();
          });
          await delivery.close();
          store.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    service.close();
    await delivery.close();
    if (server?.listening) await new Promise((resolve) => server.close(resolve));
    store.close();
    throw error;
  }
}

const counted = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Says whether the data file was resumed, and with what, or is new: a path mistyped at a
 * restart otherwise starts an empty sandbox without a word. The file's name is not in the
 * line (a path may be a secret pasted in the wrong place); the caller knows it.
 */
function logDataFile(store, log) {
  const entry = {
    type: 'data_file',
    resumed: store.resumed,
    folder_created: store.folderCreated,
    payments: store.payments.size,
    events: store.events.size,
    deliveries_pending: store.jobs.size,
  };
  const line = store.resumed
    ? `data file resumed: ${counted(entry.payments, 'payment')}, ${counted(entry.events, 'event')}, `
      + `${counted(entry.deliveries_pending, 'delivery', 'deliveries')} still to make`
    : `data file new${store.folderCreated ? ' (its folder created too)' : ''}: the state starts empty `
      + '(meant to resume? check the path given)';
  log(line, entry);
}
