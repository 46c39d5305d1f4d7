// The verdicts: each rule judged on its own deliveries, pass | fail | not_judged, with what
// was seen (`got`: full in --json, summarised in the table) and what to fix.
//
// - A rule that expects 2xx passes when each of its deliveries was acknowledged. Its
//   variations of a valid delivery (a retry, an older version, a non-ASCII or indented body,
//   fields the spec does not show, a large body, an old event, header case, the pending secret) are
//   not_judged when valid_delivery itself failed: the cause is the same, and their own hints
//   would point at the wrong fix.
// - A rule that expects a refusal fails as soon as one of its deliveries was acknowledged
//   (a forged delivery accepted is wrong whatever else holds). Otherwise it passes only when
//   valid_delivery held: a receiver that refuses everything earns no pass.
// - A rule whose delivery got no answer (timeout, connection closed) is not_judged:
//   response_time fails and names it; an accept rule whose other delivery was refused fails.
//   valid_delivery unanswered fails.
// - A rule whose deliveries were not sent (the run stopped: the receiver answered none of
//   three deliveries in a row within --timeout) is not_judged.
// - no_redirect fails only on a 3xx, whichever delivery got it.
// What a status means to the service comes from classifyDeliveryResponse.

import { acknowledged, answered, brief, describe, redirected, refused, secondsText } from './answers.mjs';
import { hintFor } from './hints.mjs';

// What each rule expects: 'accept' (2xx), 'refuse' (non-2xx) or its own judgement.
export const EXPECTS = {
  valid_delivery: ['accept', '2xx'],
  retry_same_event: ['accept', '2xx, each'],
  older_version: ['accept', '2xx, each'],
  non_ascii_body: ['accept', '2xx'],
  formatted_body: ['accept', '2xx'],
  unknown_fields: ['accept', '2xx, each'],
  large_body: ['accept', '2xx'],
  old_event: ['accept', '2xx'],
  bad_signature: ['refuse', 'non-2xx, each'],
  other_secret: ['refuse', 'non-2xx, each'],
  stale_timestamp: ['refuse', 'non-2xx, each'],
  future_timestamp: ['refuse', 'non-2xx'],
  tampered_body: ['refuse', 'non-2xx, each'],
  reserialized_body: ['refuse', 'non-2xx, each'],
  missing_headers: ['refuse', 'non-2xx, each'],
  header_case: ['accept', '2xx'],
  no_redirect: ['redirect', 'never 3xx'],
  response_time: ['time', 'each within --timeout'],
  pending_secret: ['accept', '2xx'],
  retired_secret: ['refuse', 'non-2xx'],
};

/**
 * large_body: the size of its body, above the 100 KB that express.json() and NestJS's parsers
 * take by default (a limit such a parser keeps when a verify callback saves req.rawBody), and
 * below nginx's default client_max_body_size (1 MiB): the service's events can be that large.
 */
export const LARGE_BODY_BYTES = 256 * 1024;

/** What the valid delivery sent after SILENT forged ones went unanswered is called (under response_time). */
export const PROBE_LABEL = 'a valid delivery, after forged ones went unanswered: does the receiver still answer?';

const unique = (items) => [...new Set(items)];

/**
 * observed: Map rule -> [{ label, short, status?, code?, location?, error?, timedOut, millis }]
 * in the order sent; skewSecs: how far from now the stale and future deliveries were;
 * headerNames: the timestamp and signature header names the deliveries used.
 * `stopped`: how many deliveries in a row went unanswered before the run stopped sending (0: it did
 * not). Returns [{ rule, expected, got, verdict, summary, hint?, reason? }]: `reason` says why
 * a rule is not_judged ('valid_delivery', 'unanswered' or 'stopped').
 */
export function judge(observed, { timeoutMs, skewSecs, headerNames = [], stopped = 0, plainHttp = false, encoding = 'hex' }) {
  const valid = observed.get('valid_delivery');
  const validHeld = valid.length > 0 && valid.every(acknowledged);
  const all = [...observed].flatMap(([rule, ds]) => ds.map((d) => ({ rule, ...d })));
  const results = [];
  for (const [rule, ds] of observed) {
    const [kind, expected] = EXPECTS[rule];
    const r = { rule, expected: kind === 'time' ? `each within ${secondsText(timeoutMs)}` : expected };
    if ((kind === 'accept' || kind === 'refuse') && ds.length === 0) {
      const got = `not sent: the receiver answered none of ${stopped} deliveries in a row within ${secondsText(timeoutMs)}`;
      Object.assign(r, { got, verdict: 'not_judged', summary: 'not sent', reason: 'stopped' });
    } else if (kind === 'accept') Object.assign(r, judgeAccept(rule, ds, validHeld, timeoutMs));
    else if (kind === 'refuse') Object.assign(r, judgeRefuse(ds, validHeld, timeoutMs));
    else if (kind === 'redirect') Object.assign(r, judgeRedirects(all));
    else Object.assign(r, judgeTime(all, timeoutMs));
    results.push(r);
  }
  for (const r of results) {
    if (r.verdict === 'fail') r.hint = hintFor(r.rule, { observed, all, timeoutMs, skewSecs, headerNames, plainHttp, encoding });
  }
  return results;
}

// got: one delivery as it was answered; several as "label: answer; label: answer".
function gotOf(ds, timeoutMs) {
  if (ds.length === 1) return describe(ds[0], timeoutMs);
  return ds.map((d) => `${d.label}: ${describe(d, timeoutMs)}`).join('; ');
}

function judgeAccept(rule, ds, validHeld, timeoutMs) {
  let got = gotOf(ds, timeoutMs);
  const bad = ds.filter((d) => !acknowledged(d));
  if (rule === 'header_case' && bad.length > 0) got += `, ${ds[0].label}`;
  let summary;
  if (ds.length === 1) summary = describe(ds[0], timeoutMs);
  else if (bad.length === 0) summary = ds.map(brief).join(', ');
  else summary = `${bad[0].short}: ${brief(bad[0])}${ds.indexOf(bad[0]) > 0 ? ` after ${brief(ds[0])}` : ''}`;
  // valid_delivery failed: one cause, one hint; no variation of it is judged, passed or not.
  if (rule !== 'valid_delivery' && !validHeld) return { got, verdict: 'not_judged', summary, reason: 'valid_delivery' };
  if (bad.length === 0) return { got, verdict: 'pass', summary };
  // Unanswered only: response_time names it. One refused, whatever else: a fail with its hint.
  if (rule !== 'valid_delivery' && bad.every((d) => !answered(d))) return { got, verdict: 'not_judged', summary, reason: 'unanswered' };
  return { got, verdict: 'fail', summary };
}

function judgeRefuse(ds, validHeld, timeoutMs) {
  const got = gotOf(ds, timeoutMs);
  const accepted = ds.filter(acknowledged);
  if (accepted.length > 0) {
    const summary = ds.length === 1
      ? describe(ds[0], timeoutMs)
      : `accepted: ${accepted.map((d) => d.short).join(', ')}`;
    // As DESIGN has it, not judged while valid_delivery fails (its summary still says what
    // was accepted, and the run exits 1 naming valid_delivery).
    return { got, verdict: validHeld ? 'fail' : 'not_judged', summary, ...(validHeld ? {} : { reason: 'valid_delivery' }) };
  }
  let summary = ds.length === 1 ? describe(ds[0], timeoutMs) : unique(ds.map(brief)).join(', ');
  if (ds.length > 1 && ds.every(refused)) summary = `each refused: ${summary}`;
  if (!validHeld) return { got, verdict: 'not_judged', summary, reason: 'valid_delivery' };
  if (!ds.every(refused)) return { got, verdict: 'not_judged', summary, reason: 'unanswered' };
  return { got, verdict: 'pass', summary };
}

function judgeRedirects(all) {
  const answers = all.filter(answered);
  const redirects = all.filter(redirected);
  if (answers.length === 0) {
    return { got: 'no delivery was answered', verdict: 'not_judged', summary: 'no delivery was answered', reason: 'unanswered' };
  }
  if (redirects.length === 0) {
    const got = `no 3xx in ${answers.length} answers`;
    return { got, verdict: 'pass', summary: got };
  }
  const where = unique(redirects.map((d) => d.rule));
  const got = `${redirects.length} of ${answers.length} answered 3xx (never followed): ` +
    redirects.map((d) => `${d.rule} (${d.label}): ${d.status}`).join('; ');
  const summary = `${unique(redirects.map((d) => d.status)).join(', ')} to ${redirects.length} of ${answers.length}: ${where.join(', ')}`;
  return { got, verdict: 'fail', summary };
}

function judgeTime(all, timeoutMs) {
  const late = all.filter((d) => !answered(d));
  if (late.length === 0) {
    const got = `slowest ${Math.max(...all.map((d) => d.millis))} ms over ${all.length} deliveries`;
    return { got, verdict: 'pass', summary: got };
  }
  const what = (d) => (d.timedOut ? `no answer within ${secondsText(timeoutMs)}` : d.error);
  const got = `no answer to ${late.length} of ${all.length}: ` + late.map((d) => `${d.rule} (${d.label}): ${what(d)}`).join('; ');
  const summary = `no answer to ${late.length} of ${all.length}: ${unique(late.map((d) => d.rule)).join(', ')}`;
  return { got, verdict: 'fail', summary };
}
