// `cryptopay-verify sandbox pay|settle|review|expire|replay|rotate|activate|deliveries [--url URL]`:
// acts on a running sandbox through its /sandbox endpoints, as its dashboard and customer
// (the sandbox itself is started by sandbox.mjs).

import http from 'node:http';
import https from 'node:https';
import { firstInLine } from '../sandbox/delivery.mjs';
import { UsageError, parse } from './args.mjs';
import { displayUrl, neverPrint, write } from './redact.mjs';
import { DEFAULT_URL, SANDBOX_USAGE } from './sandbox-options.mjs';

const NAME = 'cryptopay-verify';

// --- acting on a running sandbox ---------------------------------------------------------

// What a command reads of an answer, and how long it waits for all of it: whatever listens at
// --url (another server, or a hostile one) must not make the command buffer, or wait, without
// end. A sandbox's answers are far smaller (its whole webhook log included).
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
const ANSWER_DEADLINE_MS = 60_000;

/** A JSON request to the sandbox. Resolves { status, json }, or throws a UsageError (unreachable). */
function call(base, method, path, body, command) {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    let settled = false;
    // Every way the request ends without a whole answer: said once, the request ended.
    const failed = (code) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy();
      reject(new UsageError(`no sandbox answers at ${displayUrl(base)} (${code}): ` +
        `start one with ${NAME} sandbox, or give its --url`, command, { usage: false }));
    };
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = (url.protocol === 'https:' ? https : http).request(url, {
      method,
      agent: false,
      headers: text === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      timeout: 10_000,
    }, (res) => {
      const chunks = [];
      let size = 0;
      res.on('data', (c) => {
        size += c.length;
        if (size > MAX_ANSWER_BYTES) failed('answer over 64 MiB: not a sandbox, or a webhook log to filter with --payment or --event');
        else chunks.push(c);
      });
      // The sandbox stopped in the middle of its answer: said, never taken as an empty answer.
      res.on('close', () => {
        if (!res.complete) failed('answer cut short');
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        let json;
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode, json });
      });
    });
    const deadline = setTimeout(() => failed(`no whole answer within ${ANSWER_DEADLINE_MS / 1000} s`), ANSWER_DEADLINE_MS);
    req.on('timeout', () => failed('timeout'));
    req.on('error', (error) => failed(error.code ?? 'connection failed'));
    req.end(text);
  });
}

function required(opts, name, command) {
  if (opts[name] === undefined || opts[name] === '') throw new UsageError(`--${name} is required`, command);
  return opts[name];
}

const ACTIONS = {
  pay: (opts, c) => ['POST', `/sandbox/payments/${encodeURIComponent(required(opts, 'payment', c))}/pay`,
    { amount_raw: required(opts, 'amount-raw', c), ...(opts.hold ? { hold: true } : {}) }],
  settle: (opts, c) => ['POST', `/sandbox/payments/${encodeURIComponent(required(opts, 'payment', c))}/settle`],
  review: (opts, c) => ['POST', `/sandbox/payments/${encodeURIComponent(required(opts, 'payment', c))}/review`],
  expire: (opts, c) => ['POST', `/sandbox/payments/${encodeURIComponent(required(opts, 'payment', c))}/expire`],
  replay: (opts, c) => ['POST', `/sandbox/events/${encodeURIComponent(required(opts, 'event', c))}/replay`],
  rotate: () => ['POST', '/sandbox/webhook/rotate'],
  activate: () => ['POST', '/sandbox/webhook/activate'],
  deliveries: (opts) => {
    const query = new URLSearchParams();
    if (opts.event !== undefined) query.set('event_id', opts.event);
    if (opts.payment !== undefined) query.set('payment_id', opts.payment);
    return ['GET', `/sandbox/deliveries${String(query) !== '' ? `?${query}` : ''}`];
  },
};

// What the sandbox's answer to each subcommand holds: a server that answers otherwise (a
// redirect, a page, another service on that port) is not the sandbox.
const isText = (v) => typeof v === 'string';
const isPayment = (a) => isText(a?.payment_id) && isText(a?.source_amount?.amount_raw);
const ANSWERS = {
  pay: isPayment,
  settle: isPayment,
  review: isPayment,
  expire: isPayment,
  replay: (a) => isText(a?.event_id),
  rotate: (a) => isText(a?.secret),
  activate: (a) => isText(a?.resource_id),
  deliveries: (a) => Array.isArray(a?.deliveries) && Array.isArray(a?.pending),
};

/** What a successful answer prints without --json. */
function summary(sub, answer) {
  if (sub === 'pay' || sub === 'settle' || sub === 'review' || sub === 'expire') {
    return `${answer.payment_id}: ${answer.status} (status_version ${answer.status_version}), received ` +
      `${answer.amount_received_raw} of ${answer.source_amount.amount_raw}\n`;
  }
  if (sub === 'replay') return `${answer.event_id}: replay queued (a queued replay proves nothing: see ${NAME} sandbox deliveries)\n`;
  if (sub === 'rotate') {
    return `pending secret  ${answer.secret}   (returned once: let the receiver accept it as pending; ` +
      `deliveries stay signed with the active secret until ${NAME} sandbox activate)\n`;
  }
  if (sub === 'activate') {
    return `${answer.resource_id}: the rotated secret is active; deliveries are signed with it only, after the request in flight ` +
      'at the switch (the last event delivered, once more, signed with the old secret: kind overlap in the webhook log)\n';
  }
  // What the receiver said, cut to a column's width (the whole start is in --json).
  const said = (d) => (typeof d.answer !== 'string' ? '' : d.answer.length > 60 ? `${d.answer.slice(0, 57)}...` : d.answer);
  const rows = answer.deliveries.map((d) => [String(d.seq), d.event_id, d.kind, String(d.status_version), String(d.attempt),
    d.status !== undefined ? String(d.status) : d.error, d.outcome, d.at, said(d)]);
  const head = ['#', 'event_id', 'kind', 'version', 'attempt', 'answer', 'outcome', 'at', 'said'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  const pending = answer.pending.length === 0 ? '' : `${answer.pending.length} deliver${answer.pending.length === 1 ? 'y' : 'ies'} pending\n`;
  return `${[line(head), ...rows.map(line)].join('\n')}\n${pending}`;
}

export async function actCommand(sub, argv) {
  const command = `sandbox ${sub}`;
  const opts = parse(command, argv);
  if (opts.help) {
    write.out(`usage:\n  ${SANDBOX_USAGE}\n`);
    return 0;
  }
  let base;
  try {
    base = new URL(opts.url ?? DEFAULT_URL);
  } catch {
    throw new UsageError('--url is not an absolute URL (what was given is not shown), e.g. http://127.0.0.1:4010', command);
  }
  neverPrint(base.username);
  neverPrint(base.password);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new UsageError('--url must be http:// or https://', command);
  const [method, path, body] = ACTIONS[sub](opts, command);
  const waitSecs = sub === 'deliveries' ? waitOf(opts, command) : 0;
  const until = Date.now() + waitSecs * 1000;
  let { status, json } = await call(base, method, path, body, command);
  // --wait: the log again every quarter second while something is pending and time is left.
  while (waitSecs > 0 && status === 200 && ANSWERS[sub](json) && json.pending.length > 0 && Date.now() < until) {
    await new Promise((resolve) => { setTimeout(resolve, WAIT_POLL_MS); });
    ({ status, json } = await call(base, method, path, body, command));
  }
  // A refusal is the sandbox's ErrorResponse; any other 4xx or 5xx is another server on that
  // port (a receiver, say), told below as no sandbox.
  const error = json?.error;
  if (status >= 400 && typeof error?.code === 'string') {
    // The sandbox's messages start with their code already: the code is not said twice.
    const said = String(error.message ?? '').startsWith(`${error.code}:`) ? error.message : `${error.code}: ${error.message}`;
    // --json: the refusal's ErrorResponse on stdout as well, for a script that reads its code.
    if (opts.json) write.out(`${JSON.stringify(json, null, 2)}\n`);
    write.err(`${NAME} sandbox ${sub}: ${said}\n`);
    return 1;
  }
  if (status < 200 || status > 299 || !ANSWERS[sub](json)) {
    throw new UsageError(`no sandbox answers at ${displayUrl(base)}: it answered HTTP ${status} without the sandbox's answer to ${sub} ` +
      `(another server on that port, or a redirect): start one with ${NAME} sandbox, or give its --url`, command, { usage: false });
  }
  write.out(opts.json ? `${JSON.stringify(json, null, 2)}\n` : summary(sub, json));
  if (waitSecs > 0 && json.pending.length > 0) {
    // What holds the queue up, as delivered() says it.
    const { first } = firstInLine(json.pending, json.deliveries);
    write.err(`${NAME} sandbox deliveries: ${json.pending.length} still pending after --wait ${waitSecs} s (first in line: ${first.delivery_id} `
      + `of ${first.event_id}, attempt ${first.next_attempt}): the answers above say why; a receiver that is down keeps them queued `
      + 'through the retry delays\n');
    return 1;
  }
  // Nothing pending, but an event whose last attempt ended unacknowledged (its retries used
  // up, or answered a status the service never retries): the receiver lost it, which a CI
  // step must not pass.
  const lost = waitSecs > 0 ? unacknowledged(json.deliveries) : [];
  if (lost.length > 0) {
    // The request in flight at an activation, refused: the receiver dropped the old secret at
    // once, and would lose the service's requests in flight the same way.
    const fix = lost[0].kind === 'overlap'
      ? 'it is the request in flight at the activation, signed with the old secret: keep the old secret as retiring for a bounded '
        + 'overlap after an activation (the receiver: CRYPTOPAY_WEBHOOK_SECRET_RETIRING and CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL)'
      : `once the receiver is fixed, ${NAME} sandbox replay --event ID sends one again`;
    write.err(`${NAME} sandbox deliveries: ${lost.length} event${lost.length === 1 ? '' : 's'} not acknowledged (first: ${lost[0].event_id}, `
      + `its last attempt ${lost[0].outcome}${lost[0].status === undefined ? '' : ` on ${lost[0].status}`}): the answers above say why; ${fix}\n`);
    return 1;
  }
  return 0;
}

/** The last attempt of each event, where it ended exhausted or failed_permanently (log order). */
function unacknowledged(deliveries) {
  const last = new Map();
  for (const d of deliveries) last.set(d.event_id, d);
  return [...last.values()].filter((d) => d.outcome === 'exhausted' || d.outcome === 'failed_permanently');
}

/** How often `deliveries --wait` asks again. */
const WAIT_POLL_MS = 250;

/** --wait SECS of `sandbox deliveries`: 0 when not given. */
function waitOf(opts, command) {
  if (opts.wait === undefined) return 0;
  if (!/^[0-9]{1,4}$/.test(opts.wait) || Number(opts.wait) < 1 || Number(opts.wait) > 3600) {
    throw new UsageError('--wait is how long to wait for pending deliveries: an integer from 1 to 3600 (seconds)', command);
  }
  return Number(opts.wait);
}
