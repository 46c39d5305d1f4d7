// What a receiver that fails a rule should change, printed under the table. Where the
// answers tell more (which bad signatures were accepted, how the valid delivery was refused
// compared with forged ones), the hint says so, so that it points at the fix rather than at
// the rule's name.

import { BODY_PARSED_FIRST, underscoreHint } from '../api/hints.mjs';
import { acknowledged, answered, brief } from './answers.mjs';
import { EXPECTS, LARGE_BODY_BYTES, PROBE_LABEL } from './verdicts.mjs';

const STATIC = {
  formatted_body: 'an authentic delivery whose JSON is indented and ends in a newline was refused: the receiver ' +
    'hashes something other than the raw bytes (JSON parsed and re-serialized, a trimmed or decoded body), or a proxy, ' +
    'gateway or middleware in front of it rewrites the body (then valid_delivery, compact, may pass while the ' +
    'service\'s bodies fail). Hash the bytes exactly as received, whatever their layout, and let them through unchanged',
  old_event: 'an authentic event that occurred two days ago, delivered now, was refused: occurred_at is when the ' +
    'payment changed, not when the delivery was sent. Check only the delivery timestamp against the clock; a ' +
    'retry after an outage carries an old occurred_at',
  reserialized_body: 'verify the raw request bytes, never parsed and re-serialized JSON (the framework must not parse first)',
  reserialized_signed: 'an indented body signed over its JSON written again (as JSON.stringify or json.dumps ' +
    'writes it) was accepted: the receiver hashes the parsed JSON re-serialized, not the bytes received, so a body ' +
    'changed in any way its parser forgets verifies. Hash the raw bytes exactly as received',
  missing_headers: 'a delivery without the timestamp or the signature header is refused (4xx), never acknowledged',
  header_case: 'header names are case-insensitive: read them through the framework (req.headers, Headers.get, ' +
    'Flask\'s request.headers), not as exact strings',
  no_redirect: 'answer at the webhook URL itself: the service never follows a redirect, and a 3xx is not an acknowledgment',
  pending_secret: 'during a rotation, accept a delivery signed with the pending secret beside the active one (the ' +
    'HMAC of either matches) before activating it in the dashboard; with cryptopay-verify, give both: secrets: ' +
    "[{ secret, kind: 'active' }, { secret: pending, kind: 'pending' }]",
  retired_secret: 'a secret whose overlap has ended was accepted: keep the old secret only as retiring with ' +
    'acceptUntilSecs (the end of the overlap), then remove it. If its overlap has not ended for this receiver yet, ' +
    'this rule fails until it has',
};

/** The hint for a rule that failed. ctx: { observed, all, timeoutMs, skewSecs, headerNames }. */
export function hintFor(rule, ctx) {
  const ds = ctx.observed.get(rule) ?? [];
  // bad_signature's plain wrong signature acknowledged: the receiver verifies nothing, and the
  // refusal rules it also fails say no more than that (their own hints would point elsewhere).
  if (UNVERIFIED_TOO.has(rule) && acceptedShorts(ctx.observed.get('bad_signature') ?? []).has('wrong')
    && !(rule === 'stale_timestamp' && acceptedShorts(ds).has('stale'))) {
    return UNVERIFIED;
  }
  switch (rule) {
    case 'valid_delivery':
      return validDelivery(ds[0], ctx);
    case 'retry_same_event':
      return firstRefused(ds) ?? 'a retry (the same event_id and body, a new timestamp and signature) is recorded as a ' +
        'duplicate and answered 2xx, never 409 or 5xx';
    case 'older_version':
      return firstRefused(ds) ?? olderVersion(ds);
    case 'non_ascii_body':
      return 'an authentic body holding non-ASCII UTF-8 (an order_ref with ü, – and €) was refused: the ' +
        'receiver hashes something other than the raw bytes (a body read as a latin1 or binary string, or decoded and ' +
        're-encoded). Hash the bytes exactly as received (a Buffer / ArrayBuffer), then parse them as UTF-8';
    case 'unknown_fields':
      if (acceptedShorts(ds).has('fields')) {
        return 'an authentic event of a type the spec does not show (payment.refunded) was refused: acknowledge it ' +
          '(2xx) and ignore it or set it aside; a 4xx makes the service give up on it for good, a 5xx retry it for nothing';
      }
      return 'an authentic event holding fields the spec does not show was refused: keep or ignore such fields, ' +
        'never refuse them (the service may add fields to events)';
    case 'large_body':
      return largeBody(ds[0]);
    case 'bad_signature':
      return badSignature(ds);
    case 'other_secret':
      return otherSecret(ds);
    case 'tampered_body':
      return tamperedBody(ds, ctx.observed.get('reserialized_body') ?? []);
    case 'missing_headers':
      return acceptedShorts(ds).size === 1 && acceptedShorts(ds).has('known, neither') ? KNOWN_BYTES : STATIC[rule];
    case 'reserialized_body':
      return [...acceptedShorts(ds)].some((short) => short.startsWith('signed as ')) ? STATIC.reserialized_signed : STATIC[rule];
    case 'stale_timestamp':
      return staleTimestamp(ds) ?? skewHint(rule, ctx);
    case 'future_timestamp':
      return skewHint(rule, ctx);
    case 'response_time':
      return responseTime(ctx.all, ctx.plainHttp);
    default:
      return STATIC[rule];
  }
}

const UNVERIFIED_TOO = new Set(['other_secret', 'stale_timestamp', 'tampered_body', 'reserialized_body', 'retired_secret']);
const UNVERIFIED = 'the same cause as bad_signature: a delivery whose signature does not verify is acknowledged. ' +
  'Verify the signature over the raw body before anything else and answer 4xx when it fails';

// A size limit in front of the verification, below what an event can be: the most common ones
// first (a parser whose verify callback keeps req.rawBody still refuses past its own limit).
function largeBody(d) {
  const status = answered(d) ? ` (${brief(d)})` : '';
  return `an authentic event of ${LARGE_BODY_BYTES / 1024} KiB was refused${status}: a body size limit in front of the ` +
    'receiver is smaller than an event can be, and the service never retries a 413 (every larger event is lost). ' +
    'express.json() and NestJS\'s parsers take 100kb by default, also when a verify callback keeps req.rawBody: ' +
    "mount express.raw({ type: () => true, limit: '4mb' }) on the webhook path ahead of them, or give them limit: '4mb'; " +
    'Flask: MAX_CONTENT_LENGTH; Django: DATA_UPLOAD_MAX_MEMORY_SIZE; behind nginx, client_max_body_size 4m ' +
    '(cryptopay-verify\'s own receiver takes 4 MiB, its maxBodyBytes)';
}

function skewHint(rule, ctx) {
  return `an authentic delivery ${ctx.skewSecs} s ${rule === 'stale_timestamp' ? 'old (it may be a replay)' : 'in the ' +
        'future'} was accepted: check the timestamp against the current Unix time in seconds, in both directions, ` +
        'with a max skew (usually 300 s). If the receiver\'s max skew is that wide on purpose, give it with --max-skew ' +
        'so that the kit sends these beyond it';
}

// The labels of a rule's deliveries that were acknowledged.
const acceptedShorts = (ds) => new Set(ds.filter(acknowledged).map((d) => d.short));

// A variation's own hint only when the plain forged delivery was refused: accepted with it,
// the receiver does not verify at all, and the plain hint says so.
function otherSecret(ds) {
  const accepted = acceptedShorts(ds);
  if (!accepted.has('other secret') && (accepted.has('empty secret') || accepted.has('secret "undefined"'))) {
    return 'a delivery signed with an empty secret or with the text "undefined" was accepted: the receiver\'s ' +
      'secret comes from a variable that is not set, so anyone can sign. Refuse to start without the signing Secret';
  }
  return 'verify with the configured signing Secret only; never pick a secret from the unverified body';
}

function tamperedBody(ds, reserialized) {
  const accepted = acceptedShorts(ds);
  const plain = 'verify the exact bytes received; a changed body must not verify';
  if (accepted.has('tampered')) return plain;
  // A body signed over its JSON written again verified: white space added, or a byte its
  // parser turns into U+FFFD, is forgotten the same way (one cause, one fix).
  if ([...acceptedShorts(reserialized)].some((short) => short.startsWith('signed as '))
    && (accepted.has('newline') || accepted.has('byte 0xFF') || accepted.has('BOM'))) {
    return 'the same cause as reserialized_body: the receiver (or a proxy in front of it) hashes the parsed JSON written ' +
      'again, so bytes its parser forgets (added white space, an invalid byte) verify. Hash the raw bytes exactly as received';
  }
  if (accepted.has('known id')) {
    return 'valid_delivery\'s event_id, sent again with its body changed, was acknowledged: the receiver ' +
      'de-duplicates (or answers) before verifying. Verify first, then look the event_id up';
  }
  if (accepted.has('byte 0xFF') && !accepted.has('BOM') && !accepted.has('newline')) {
    return 'only the invalid byte verified: the body was decoded as UTF-8 text before it was hashed, by the ' +
      'receiver (buffer.toString(), a text body parser; in Python, .decode(errors=\'replace\'), Flask\'s ' +
      'get_data(as_text=True)) or by a front door that passes bodies as text (AWS API ' +
      'Gateway, Function URLs; what the receiver records is then still the signed text). Hash the raw bytes, or have ' +
      'the front door pass the body as base64 (a REST API\'s binaryMediaTypes)';
  }
  if (accepted.has('BOM') || accepted.has('newline') || accepted.has('byte 0xFF')) {
    return 'a body with bytes added or changed verified: the receiver hashes decoded or trimmed text (request.text() ' +
      'drops a byte order mark and turns invalid bytes into U+FFFD; trim() and Python\'s .strip() drop the newline). ' +
      'Hash the raw bytes';
  }
  return plain;
}

// Only when the plain stale delivery was refused do its variants point at their own defect
// (accepted with it, they say no more than a wide skew does).
function staleTimestamp(ds) {
  const accepted = acceptedShorts(ds);
  if (accepted.has('stale')) return undefined;
  if (accepted.has('t=now')) {
    return 'a stale delivery with a fresh t= item in its signature header was accepted: the skew was checked on ' +
      'one timestamp and the signature on another. Use the timestamp header for both, and refuse a t= that differs';
  }
  if (accepted.has('t=stale')) {
    return 'a captured delivery replayed with a fresh timestamp header, its stale t= item and signature kept, was ' +
      'accepted: the signature was checked on the t= item and the skew on the header, so any old delivery can be ' +
      'replayed. Use the timestamp header for both, and refuse a t= that differs';
  }
  if (accepted.has('two headers') || accepted.has('two headers, stale first')) {
    const order = accepted.has('two headers') ? 'sent first' : 'sent last';
    return `a stale delivery with a second, fresh timestamp header (${order}) was accepted: the signature was checked ` +
      'on one value and the skew on the other. Refuse a timestamp header sent twice (header_duplicated)';
  }
  return undefined;
}

// older_version, by which of its deliveries were refused: a stale one (older, or another event
// at the version held) is not an error; a version past 2^53 as a string of digits that is new
// for its payment is the only delivery only a parse refuses (the older digit string is stale too).
function olderVersion(ds) {
  const refused = new Set(ds.filter((d) => !acknowledged(d)).map((d) => d.short));
  const said = [];
  // The older digit string refused with the newer one: the digits were, not the stale event.
  if (refused.has('older') || (refused.has('digit string, older') && !refused.has('digit string'))) {
    said.push('an authentic event with an older status_version is stale, not an error: record it, do not apply it, ' +
      'answer 2xx (a 409 or other 4xx makes the service fail the delivery for good, a 5xx retry it)');
  } else if (refused.has('equal version')) {
    said.push('another authentic event at the status_version already held was refused: it is stale, not an error: ' +
      'record it, answer 2xx');
  }
  if (refused.has('digit string')) {
    said.push('a status_version beyond 2^53, sent as a string of decimal digits (the spec does not show its type; ' +
      'this package\'s sandbox sends a version past 2^53 so), was refused: take a number or a string of digits, and ' +
      'compare exactly (BigInt or the digits), never as a double');
  }
  return said.length > 0 ? said.join('; and ') : undefined;
}

// A two-delivery rule whose first (plain, valid) delivery was already refused.
function firstRefused(ds) {
  if (ds.length === 0 || acknowledged(ds[0])) return undefined;
  return `its first delivery, a plain valid one, was answered ${brief(ds[0])} although valid_delivery's was ` +
    'acknowledged: the receiver answers alike deliveries differently (a rate limit? an error in its log?)';
}

// What each accepted bad signature says about the compare, in the order they are told.
// valid_delivery's exact bytes sent again forged (bad_signature, missing_headers).
const KNOWN_BYTES = 'the bytes of an event already acknowledged, sent again with a forged signature or none, were ' +
  'acknowledged: the receiver answers a duplicate (by event_id or a hash of the body) before verifying. Verify ' +
  'first, then look the event up';

const BAD_SIGNATURE = [
  [(a) => a.has('end char'), 'a signature differing from the valid one only near its end was accepted: compare ' +
    'every byte, in constant time (a prefix compare, or hex read as a number with parseInt, loses the end)'],
  [(a) => a.has('forged stale') || a.has('forged type'), 'a forged delivery was acknowledged before its signature ' +
    'was checked (an older version of a known payment, or another event_type): verify first, then decide what the ' +
    'event is'],
  [(a) => a.has('known bytes'), KNOWN_BYTES],
  [(a) => a.has('1 char') || [...a].some((s) => /^\d+ chars$/.test(s)), 'a cut signature was accepted: compare the ' +
    'whole value in constant time, lengths included; a prefix compare (or Buffer.from(hex), which silently drops ' +
    'what it cannot decode) accepts it (CVE-2024-21491)'],
  [(a) => a.has('+1 char'), 'a signature with a character appended was accepted: compare the whole value, and ' +
    'refuse a value of the wrong length before comparing'],
  [(a) => a.has('empty') || a.has('separators'), 'a header with no signature in it was accepted: require at least ' +
    'one candidate that matches ("no candidate mismatched" is not "one candidate matched")'],
];

function badSignature(ds) {
  const accepted = acceptedShorts(ds);
  if (accepted.has('wrong')) {
    return 'a wrong signature of the right shape was accepted: the receiver does not verify signatures. Verify ' +
      'the signature over the raw body before anything else and answer 4xx when it fails';
  }
  return BAD_SIGNATURE.filter(([when]) => when(accepted)).map(([, text]) => text).join('; ');
}

// An answer Node's HTTP parser refused (HPE_HEADER_OVERFLOW, HPE_CR_EXPECTED, two
// Content-Length headers...): the receiver answered, with something no HTTP client reads.
const unreadable = (d) => typeof d.error === 'string' && d.error.startsWith('HPE_');
const UNREADABLE = 'the service cannot read such an answer either: answer a plain, well-formed HTTP response '
  + '(CRLF line ends, one Content-Length, headers under 16 KiB: is a proxy or a hand-written server in the way?)';

function responseTime(all, plainHttp) {
  const late = all.filter((d) => !answered(d));
  const rules = (ds) => [...new Set(ds.map((d) => d.rule))].join(', ');
  const garbled = late.filter(unreadable);
  if (garbled.length > 0) {
    return `the answer to ${garbled.length} deliveries (${rules(garbled)}) was not well-formed HTTP (${garbled[0].error}): ${UNREADABLE}`;
  }
  const closed = late.filter((d) => !d.timedOut);
  // Every connection closed at once, none answered: what a TLS server does to plain HTTP.
  if (plainHttp && all.length > 0 && closed.length === all.length) {
    return `every delivery's connection was closed without an answer (${closed[0].error}): a receiver served over ` +
      'TLS closes a plain-HTTP connection so; if yours is, give --url as https://...; else it crashed on each';
  }
  if (closed.length > 0) {
    return `the connection was closed without an answer (${closed[0].error}) on ${closed.length} deliveries ` +
      `(${rules(closed)}): did the receiver crash on them? Answer every delivery, a hostile one with 4xx`;
  }
  // Forged deliveries late first: acknowledging faster is not the fix. The valid delivery sent
  // after them (PROBE_LABEL) late too: the receiver stopped answering at the first.
  const probe = (d) => d.label === PROBE_LABEL;
  const forged = late.filter((d) => !probe(d));
  if (forged.length > 0 && forged.every((d) => EXPECTS[d.rule]?.[0] === 'refuse')) {
    const first = `the first ${forged[0].rule} (${forged[0].label})`;
    if (late.some(probe)) {
      return `no answer within --timeout to ${forged.length} forged deliveries (${rules(forged)}), nor to a valid one sent after ` +
        `them: the receiver stopped answering at ${first}: look for an exception left unhandled or a lock left held where it refuses one`;
    }
    return `no answer within --timeout to ${forged.length} forged deliveries (${rules(forged)}), ${first}: refuse a hostile ` +
      'delivery at once with 4xx';
  }
  return `no answer within --timeout to ${late.length} deliveries (${rules(late)}): acknowledge quickly (record ` +
    'the event, answer 2xx, do the business handling afterwards)';
}

// Why the valid delivery was refused, told apart by comparing its answer with the others'.
function validDelivery(d, { observed, all, headerNames = [], encoding = 'hex' }) {
  if (d === undefined) return 'no valid delivery was sent';
  if (!answered(d)) {
    if (unreadable(d)) return `the answer was not well-formed HTTP (${d.error}): ${UNREADABLE}`;
    return d.timedOut
      ? 'no answer within --timeout: the receiver must answer quickly (record the event, answer 2xx, handle it afterwards)'
      : `the connection closed without an answer (${d.error}): look at the receiver's log`;
  }
  if (d.status >= 300 && d.status < 400) {
    return `answered ${d.status}: the service never follows a redirect; give --url the final address (https, the ` +
      'exact path: no http-to-https or trailing-slash redirect)';
  }
  const forged = ['bad_signature', 'other_secret', 'tampered_body']
    .flatMap((rule) => (observed.get(rule) ?? []).filter((f) => f.short !== 'empty' && f.short !== 'separators'))
    .filter(answered);
  const answers = all.filter(answered);
  // Every delivery answered alike (the same status and code): nothing told them apart.
  const everyDelivery = answers.length > 1 && answers.every((a) => a.status === d.status && a.code === d.code);
  // Alike: the same status and the same code (none on either side); or only maybe, when one
  // side names a code and the other none.
  const likeForged = forged.some((f) => f.status === d.status && f.code === d.code);
  const maybeLikeForged = forged.some((f) => f.status === d.status && (!f.code || !d.code));
  const secretCheck = 'check that it holds the same signing Secret as the kit was given (--secret-env or --secret-file), exactly as saved ' +
    '(a trailing newline or space from a file or a copy breaks it), that it reads the headers named by ' +
    '--timestamp-header and --signature-header, and that it computes HMAC-SHA256 over the timestamp header\'s value, ' +
    'a period and the raw body bytes (<timestamp>.<body>), keyed with the Secret\'s bytes as saved (a whsec_ secret ' +
    `is not base64-decoded), and reads the tag in ${encoding}, as the kit sent it (the spec does not say which ` +
    `encoding the service uses: for a receiver that reads ${encoding === 'hex' ? 'base64' : 'hex'}, run the kit ` +
    `with --encoding ${encoding === 'hex' ? 'base64' : 'hex'})`;
  // A refusal that names no code says nothing of its cause: a clock off, or read in
  // milliseconds, refuses every delivery alike too.
  const clockCheck = d.code ? '' : '. If all of that holds, check the receiver\'s clock (NTP) and that it compares ' +
    'the timestamp with the current Unix time in seconds, not milliseconds (Date.now() / 1000). A refusal answered ' +
    'as {"error":"<code>"} (verifyWebhook\'s codes) lets the kit name the cause';
  // Refused, while a delivery signed with no secret at all was acknowledged: the receiver's
  // secret variable is unset, and what it verifies with is "" or "undefined".
  const unsetKey = (observed.get('other_secret') ?? [])
    .filter((f) => acknowledged(f) && (f.short === 'empty secret' || f.short === 'secret "undefined"'));
  if (unsetKey.length > 0) {
    return `the receiver refused the authentic delivery and acknowledged one signed with ${unsetKey[0].short === 'empty secret'
      ? 'an empty secret' : 'the text "undefined" as its secret'}: its secret comes from a variable that is not set, so ` +
      'anyone can sign a delivery it accepts. Give it the signing Secret, and refuse to start without it';
  }
  // Refused, while a body signed over its JSON written again was acknowledged: what it hashes
  // is the parsed body re-serialized, whatever else holds (one cause, named first).
  const rewritten = (observed.get('reserialized_body') ?? []).find((f) => acknowledged(f) && f.short.startsWith('signed as '));
  if (rewritten !== undefined) {
    return `the receiver refused the authentic delivery and acknowledged a body signed over its JSON written again ` +
      `(${rewritten.short.slice('signed as '.length)}): it hashes the parsed body re-serialized (JSON.stringify(req.body), ` +
      'json.dumps(json.loads(body)), request.get_json()), not the bytes received. Hash the raw request bytes exactly as ' +
      'they came, before any parsing';
  }
  if (d.code === 'signature_mismatch') return `the receiver cannot verify the kit's signature: ${secretCheck}`;
  if (d.code === 'signature_malformed') {
    return `the receiver could not read the kit's signature header (signature_malformed): the kit sent the tag in ` +
      `${encoding} (--encoding ${encoding}); the spec does not say which encoding the service uses: if your receiver ` +
      `reads the other, run the kit with --encoding ${encoding === 'hex' ? 'base64' : 'hex'}, and check that it reads the ` +
      `header named by --signature-header`;
  }
  if (d.code === 'timestamp_too_old' || d.code === 'timestamp_in_future') {
    return 'a fresh timestamp was refused by the skew check: check the receiver\'s clock (NTP) and that it passes ' +
      'the current Unix time in seconds (not milliseconds)';
  }
  if (d.code === 'body_not_raw') {
    return BODY_PARSED_FIRST;
  }
  if (d.code === 'timestamp_missing' || d.code === 'signature_missing') {
    const [ts, sig] = headerNames;
    return `the receiver did not find a delivery header (${d.code}): the kit sent them as ${ts} and ${sig}. The ` +
      'receiver must read the names the service documents for your account; if those are what it reads, give the ' +
      'kit the same names with --timestamp-header and --signature-header' + underscoreHint(headerNames);
  }
  if (everyDelivery && (d.status === 404 || d.status === 405)) {
    return `every delivery was answered ${d.status}: nothing takes POST at this address; check the path of --url`;
  }
  if (everyDelivery && d.status >= 500) {
    return `every delivery, authentic or forged, was answered ${d.status}: the receiver, or what stands in front of ` +
      'it (a proxy, a tunnel, a load balancer whose backend is down), is failing before it looks at a delivery: look ' +
      'at their logs (a store that cannot be reached, a crash at start)';
  }
  if (everyDelivery) {
    return `every delivery, authentic or forged, was answered ${d.status}: either something in front of the ` +
      'receiver (an authentication layer, a firewall, a proxy) refuses the service\'s POSTs (the signature is what ' +
      `authenticates a delivery: let them through), or the receiver cannot verify the kit's signature: ${secretCheck}${clockCheck}`;
  }
  if ([408, 425, 429].includes(d.status)) {
    return `answered ${d.status}, which the service retries a finite number of times: accept its deliveries ` +
      'without a rate limit or a "too early" refusal, and answer 2xx once the event is recorded';
  }
  if (likeForged) return `the receiver refused the authentic delivery as it refuses forged ones (${brief(d)}): ${secretCheck}${clockCheck}`;
  const theirs = forged.length > 0 ? ` (forged ones got ${[...new Set(forged.map(brief))].join(', ')})` : '';
  // Refused as the stale delivery was, and not as forged ones: the signature verified, then
  // the timestamp was refused (a clock off, or the time taken in milliseconds).
  const stale = (observed.get('stale_timestamp') ?? []).find((s) => s.short === 'stale');
  if (stale !== undefined && answered(stale) && stale.status === d.status && stale.code === d.code) {
    return `the receiver refused the authentic delivery with ${brief(d)}, as it refused a stale one${theirs}: its ` +
      'skew check refuses a fresh timestamp. Check the receiver\'s clock (NTP) and that it compares the timestamp ' +
      'with the current Unix time in seconds, not milliseconds (Date.now() / 1000)';
  }
  if (maybeLikeForged && d.status < 500) {
    return `the receiver refused the authentic delivery with ${brief(d)}${theirs}, an answer that does not tell a ` +
      `forged delivery from a refused event. If it could not verify the signature: ${secretCheck}. If it verified it ` +
      `and refused the event: ${REFUSED_EVENT}`;
  }
  if (d.status >= 500) {
    return `the receiver failed with ${brief(d)} on an authentic delivery${theirs}: look at its log; the service ` +
      'retries a 5xx a finite number of times, then gives up';
  }
  return `the receiver refused an authentic delivery with ${brief(d)}${theirs}: it verified the signature, then ` +
    `refused the event. ${REFUSED_EVENT}`;
}

const REFUSED_EVENT = 'Acknowledge every authentic event once recorded, whatever it holds, a payment you do not ' +
  'know yet included (events may come before or without your own record of it): record it, answer 2xx, reconcile ' +
  'with GET /v1/payments/{payment_id}';

/** What to do when the receiver could not be reached at all (`reason`: the connection's error). */
export function unreachableHint(reason) {
  // The TLS handshake met something that is not TLS (a plain-HTTP server).
  if (/wrong version number/i.test(reason)) {
    return 'Nothing at that address speaks TLS: for a receiver served over plain HTTP (a local one), give --url as http://...; else check the port.';
  }
  if (/CERT_HAS_EXPIRED|CERT_NOT_YET_VALID/i.test(reason)) return 'The receiver\'s TLS certificate is out of its dates: renew it (the service refuses it too).';
  if (/ALTNAME|HOSTNAME/i.test(reason)) return 'The receiver\'s TLS certificate is for another host name: give --url the name it was issued for.';
  if (/CERT|SSL|TLS|UNABLE_TO_|SIGNATURE/i.test(reason)) {
    return 'The TLS certificate is not trusted: for a local test CA, set NODE_EXTRA_CA_CERTS=ca.pem (the service trusts public CAs only).';
  }
  if (/ENOTFOUND|EAI_AGAIN/.test(reason)) {
    return 'The host name of --url does not resolve: check its spelling (in Docker Compose, the service\'s name on the same network).';
  }
  return 'Is the receiver running and listening on that address?';
}
