// lazyReceiver: a receiver created at the first request, for platforms where configuration is
// there only then (Workers' env) or where a build must not need it (Next.js, Nitro), and for
// functions that must not fail to start (AWS Lambda, Cloud Run functions, Supabase). Created
// once however many requests arrive together; a failure is forgotten, so the next request
// tries again, and meanwhile each is answered 500 not_configured or 503 store_unavailable (the
// service retries both). Nothing here imports a Node module: the same file runs everywhere.

import { CryptoPayError } from 'cryptopay-verify';
import { answers } from './answers.mjs';
import { sharedAttempt } from './attempt.mjs';
import { isNodeRequest, letGo, sendOrDestroy, toResponse } from './http.mjs';
import { logLines } from './observe.mjs';
import { checkName } from './routes.mjs';
import { lineThrottle } from './throttle.mjs';
import { checkKeys, describeError, invalid, shownError, stuckFix } from './stores/common.mjs';

const PREFIX = 'cryptopay-verify/receiver: ';
const OPTIONS = ['log'];
const FACES = ['ready', 'fetch', 'node', 'handle'];

function checkOptions(options) {
  if (options === undefined) return console;
  checkKeys(options, OPTIONS, 'lazyReceiver', 'lazyReceiver takes an options object: { log }');
  const { log } = options;
  if (log === undefined) return console;
  if (log === false || log === null) return null;
  if (typeof log !== 'object' || typeof log.error !== 'function') {
    throw invalid('lazyReceiver: log is an object with error(line) (console is the default), or false');
  }
  return log;
}

/** Why the receiver could not be had: the answer's code, and what failed. */
class Unavailable {
  constructor(code, failure, line) {
    this.code = code;
    this.failure = failure;
    this.line = line;
  }

  get answer() {
    return this.code === 'not_configured' ? answers.misconfigured('not_configured') : answers.storeUnavailable();
  }
}

// A configuration error: what receiverOptionsFromEnv, createReceiver and the stores throw for a
// missing or wrong setting. Their messages name settings, never a value.
function notConfigured(failure) {
  return new Unavailable('not_configured', failure,
    `not_configured (answered 500, the service retries; the next delivery tries again): ${failure.message}`);
}

// Deno refusing what the function that creates the receiver asked (NotCapable from Deno 2,
// PermissionDenied before): its run's flags are configuration, not a store outage.
const DENIED = new Set(['NotCapable', 'PermissionDenied']);
const denied = (failure) => `Deno refused what creating the receiver asked (${describeError(failure)}): run it with ` +
  'the permission named; a scoped --allow-env must name every variable read, and Deno.env.toObject() needs ' +
  '--allow-env unscoped (receiverOptionsFromEnv(process.env) reads only the names it takes)';

function storeUnavailable(failure, what) {
  const fix = stuckFix(failure);
  return new Unavailable('store_unavailable', failure,
    `store_unavailable (answered 503, the service retries; the next delivery tries again): could not ${what} (${describeError(failure)})${fix ? `; every retry will fail the same way until: ${fix}` : ''}`);
}

const isReceiver = (value) => value !== null && typeof value === 'object' && FACES.every((face) => typeof value[face] === 'function');

/**
 * A receiver whose faces create the real one at their first call: see the typings
 * (receiver.d.ts).
 */
export function lazyReceiver(create, options) {
  if (typeof create !== 'function') {
    throw invalid('lazyReceiver takes a function that creates the receiver: lazyReceiver(async () => createReceiver({ ... }))');
  }
  const { error } = logLines(checkOptions(options), PREFIX);

  // Any request can cause an attempt while the receiver cannot be had: its lines are said at
  // most five times a minute for each code, as the receiver's refusals are.
  const say = lineThrottle();
  async function make() {
    let receiver;
    try {
      receiver = await create();
    } catch (failure) {
      if (failure instanceof CryptoPayError) throw notConfigured(failure);
      if (DENIED.has(failure?.name)) throw notConfigured(invalid(denied(failure)));
      throw storeUnavailable(failure, 'create the receiver');
    }
    if (!isReceiver(receiver)) {
      throw notConfigured(invalid('the function given to lazyReceiver did not return a receiver (what createReceiver returns)'));
    }
    try {
      await receiver.ready();
    } catch (failure) {
      // The browser build bundled for a server: its WebAssembly, not the store, could not be had.
      if (failure instanceof CryptoPayError && failure.code === 'invalid_argument' && /\binit\(\)/.test(failure.message)) {
        throw notConfigured(failure);
      }
      throw storeUnavailable(failure, 'prepare the store');
    }
    return receiver;
  }
  // Once however many calls arrive together; forgotten on failure, logged once per attempt;
  // one that never settles is not waited on for ever (attempt.mjs).
  const receiving = sharedAttempt(() => make().catch((unavailable) => {
    say(unavailable.code, error, unavailable.line);
    throw unavailable;
  }), (ms) => {
    const unavailable = storeUnavailable(new Error(`creating the receiver and its store's ready() have not settled in ${ms / 1000} s`), 'create the receiver');
    say(unavailable.code, error, unavailable.line);
    return unavailable;
  });
  // { receiver } or { answer }: what to answer while it cannot be had.
  async function obtain() {
    try {
      return { receiver: await receiving.briefly() };
    } catch (unavailable) {
      if (!(unavailable instanceof Unavailable)) throw unavailable;
      return { answer: unavailable.answer };
    }
  }

  // Node's request given to `fetch` or `handle` (mounted in Express by mistake), while the
  // receiver cannot be had: Express ignores what they return, so the answer is written to the
  // response beside it (the receiver, once made, says which face Express takes).
  function misplaced(request, res, answer) {
    if (!isNodeRequest(request) || typeof res?.writeHead !== 'function') return null;
    sendOrDestroy(res, answer);
    return answer;
  }

  // The faces of the receiver `pick` chooses: the receiver itself, or one integration's route
  // (receiver.integration(name); a receiver whose secrets name none throws invalid_argument,
  // answered as a creation's CryptoPayError is).
  function faces(pick) {
    async function target() {
      const { receiver, answer } = await obtain();
      if (!receiver) return { answer };
      try {
        return { receiver: pick(receiver) };
      } catch (failure) {
        if (!(failure instanceof CryptoPayError)) throw failure;
        const unavailable = notConfigured(failure);
        say(unavailable.code, error, unavailable.line);
        return { answer: unavailable.answer };
      }
    }
    return {
      async handle(delivery, res) {
        const { receiver, answer } = await target();
        if (receiver) return receiver.handle(delivery, res);
        return misplaced(delivery, res, answer) ?? answer;
      },
      // A method but POST is answered 405 as the receiver answers it, without creating it: a
      // scanner's GETs try no connection while the store is down.
      async fetch(request, res) {
        if (request?.method !== undefined && request.method !== 'POST') return toResponse(answers.methodNotAllowed());
        const { receiver, answer } = await target();
        if (receiver) return receiver.fetch(request, res);
        return toResponse(misplaced(request, res, answer) ?? answer);
      },
      async node(req, res) {
        if (req?.method !== undefined && req.method !== 'POST') {
          letGo(req);
          return sendOrDestroy(res, answers.methodNotAllowed());
        }
        const { receiver, answer } = await target();
        if (receiver) return receiver.node(req, res);
        letGo(req); // the body is not read: let it go, so the connection can be reused
        return sendOrDestroy(res, answer);
      },
    };
  }

  return {
    async ready() {
      try {
        await receiving.patiently();
      } catch (unavailable) {
        throw shownError(unavailable instanceof Unavailable ? unavailable.failure : unavailable);
      }
    },
    ...faces((receiver) => receiver),
    integration(name) {
      checkName(name);
      return Object.freeze({ name, ...faces((receiver) => receiver.integration(name)) });
    },
  };
}
