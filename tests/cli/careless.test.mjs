// One careless receiver per defect class, written the way real merchants get it wrong, each
// caught by the rule that names its defect and by no other: the exact sets of failed and of
// not_judged rules are asserted, with the rotation rules checked too. The careless receivers
// are one correct plain node:http receiver (helpers.mjs plainReceiver) with one defect each;
// the correct one passes every rule.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ROTATION_ARGS, SECRET_ENV, SIG_HEADER, TS_HEADER, against, gotOf, plainReceiver, runCli, shown, startServer,
} from './helpers.mjs';

const ALL = ['valid_delivery', 'retry_same_event', 'older_version', 'non_ascii_body', 'formatted_body', 'unknown_fields', 'large_body',
  'old_event', 'bad_signature', 'other_secret',
  'stale_timestamp', 'future_timestamp', 'tampered_body', 'reserialized_body', 'missing_headers', 'header_case',
  'no_redirect', 'response_time', 'pending_secret', 'retired_secret'];
// What a broken valid_delivery leaves unjudged: every rule but it, no_redirect and response_time.
const AFTER_VALID = ALL.filter((r) => !['valid_delivery', 'no_redirect', 'response_time'].includes(r));

const check = (defect, options) => against(plainReceiver({ defect, ...options }), ROTATION_ARGS);

describe('the correct plain receiver (node:http and node:crypto, no package)', () => {
  test('passes every rule, rotation included: exit 0', async () => {
    const run = await check(undefined);
    assert.equal(run.code, 0, shown(run));
    assert.deepEqual(run.results.map((r) => r.rule), ALL);
    assert.deepEqual(run.results.map((r) => r.verdict), ALL.map(() => 'pass'));
    assert.match(gotOf(run, 'retired_secret'), /^401 permanent_failure$/);
    assert.match(gotOf(run, 'older_version'), /^higher: 200 acknowledged; older: 200 acknowledged; equal version: 200 acknowledged; digit string: 200 acknowledged; digit string, older: 200 acknowledged$/);
  });
});

describe('each careless receiver is caught by its own rule, and only by it', () => {
  const cases = [
    // Its signature header read as hex from the start: a t= item reads as nothing, which
    // every tag begins with, so the replayed delivery of stale_timestamp passes too.
    ['prefix compare of the signature', 'prefixCompare', ['bad_signature', 'stale_timestamp'],
      (run) => {
        // Buffer.from(hex) drops the odd nibble: the cut and the appended values all pass.
        assert.match(gotOf(run, 'bad_signature'), /wrong signature of the right shape: 401 permanent_failure; its last character changed: 401 permanent_failure; empty value: 400/);
        assert.match(gotOf(run, 'bad_signature'), /cut to 1 character: 200 acknowledged; cut to 63 characters: 200 acknowledged; one character appended: 200 acknowledged/);
        assert.match(run.stderr, /2 rules failed: bad_signature, stale_timestamp$/m);
      }],
    ['any-mismatch candidate logic (no candidate passes)', 'anyMismatch', ['bad_signature'],
      (run) => {
        assert.match(gotOf(run, 'bad_signature'), /empty value: 200 acknowledged; separators only \(", ,"\): 200 acknowledged; cut to 1 character: 401/);
      }],
    ['a body read as latin1 and hashed as UTF-8', 'latin1Body', ['non_ascii_body'],
      (run) => assert.equal(gotOf(run, 'non_ascii_body'), '401 permanent_failure')],
    ['409 on an older status_version', 'conflictOnOlder', ['older_version'],
      (run) => {
        assert.equal(gotOf(run, 'older_version'), 'higher: 200 acknowledged; older: 409 permanent_failure (stale_version); equal version: 409 permanent_failure (stale_version); '
          + 'digit string: 200 acknowledged; digit string, older: 409 permanent_failure (stale_version)');
        // Its digit strings are read: the fix named is the stale answer, not the parse.
        assert.match(run.stderr, /older_version: an authentic event with an older status_version is stale, not an error/);
        assert.doesNotMatch(run.stderr, /beyond 2\^53/);
      }],
    ['the retired secret still accepted', 'acceptRetired', ['retired_secret'],
      (run) => assert.equal(gotOf(run, 'retired_secret'), '200 acknowledged')],
    ['the pending secret refused', 'refusePending', ['pending_secret'],
      (run) => assert.equal(gotOf(run, 'pending_secret'), '401 permanent_failure')],
    // Blind spots of the kit's first rules, each caught since by a delivery of its own.
    ['the first 32 hex characters compared (lengths checked)', 'halfCompare', ['bad_signature'],
      (run) => assert.match(gotOf(run, 'bad_signature'), /its last character changed: 200 acknowledged; empty value: 400/)],
    // A newline or an invalid byte survives no re-serialization either: tampered_body sees it too.
    // reserialized_body's body signed over its JSON.stringify form verifies here, and only
    // here: the form of json.dumps is another text.
    ['the JSON re-serialized (compactly) before hashing', 'reserialize', ['formatted_body', 'tampered_body', 'reserialized_body'],
      async (run) => {
        assert.match(gotOf(run, 'formatted_body'), /^401 permanent_failure$/);
        assert.match(gotOf(run, 'reserialized_body'), /^reserialized: 401 permanent_failure; indented, signed over JSON\.stringify of it: 200 acknowledged; indented, signed over json\.dumps of it: 401 permanent_failure$/);
        const table = (await runTable('reserialize')).stdout.replace(/\n {4}/g, ' ');
        assert.match(table, /reserialized_body: an indented body signed over its JSON written again .* was accepted: the receiver hashes the parsed JSON re-serialized/);
        // One cause, one fix: tampered_body's hint names it too, not decoded or trimmed text.
        assert.match(table, /tampered_body: the same cause as reserialized_body: the receiver \(or a proxy in front of it\) hashes the parsed JSON written again/);
      }],
    // Every refusal rule whose deliveries are forged fails with it, and says so rather than
    // point at a t= item, a secret taken from the body or a framework's parser.
    ['forged deliveries acknowledged, the skew still checked', 'ackForged',
      ['bad_signature', 'other_secret', 'stale_timestamp', 'tampered_body', 'reserialized_body', 'retired_secret'],
      async (run) => {
        assert.match(gotOf(run, 'stale_timestamp'), /^stale: 400 .*replayed: a fresh timestamp header, the stale t= and signature: 200 acknowledged/);
        const table = (await runTable('ackForged')).stdout.replace(/\n {4}/g, ' ');
        for (const rule of ['other_secret', 'stale_timestamp', 'tampered_body', 'reserialized_body', 'retired_secret']) {
          assert.match(table, new RegExp(`^  ${rule}: the same cause as bad_signature: a delivery whose signature does not verify is acknowledged`, 'm'));
        }
        assert.doesNotMatch(table, /t= item|never pick a secret|framework must not parse/);
      }],
    ['the body trimmed before hashing', 'trimBody', ['formatted_body', 'tampered_body'],
      (run) => assert.match(gotOf(run, 'tampered_body'), /a newline appended: 200 acknowledged/)],
    ['the body hashed as decoded text (request.text())', 'textBody', ['tampered_body'],
      (run) => {
        assert.match(gotOf(run, 'tampered_body'), /a byte order mark prepended: 200 acknowledged/);
        assert.match(gotOf(run, 'tampered_body'), /U\+FFFD sent as the invalid byte 0xFF: 200 acknowledged/);
      }],
    ['the body decoded as UTF-8 text, its byte order mark kept (a front door passing text)', 'utf8Text', ['tampered_body'],
      async (run) => {
        assert.match(gotOf(run, 'tampered_body'), /a byte order mark prepended: 401 .*U\+FFFD sent as the invalid byte 0xFF: 200 acknowledged/);
        const table = (await runTable('utf8Text')).stdout.replace(/\n {4}/g, ' ');
        assert.match(table, /only the invalid byte verified: the body was decoded as UTF-8 text before it was hashed/);
        assert.match(table, /AWS API Gateway, Function URLs/);
      }],
    ['de-duplicated by event_id before verifying', 'dedupeFirst', ['bad_signature', 'tampered_body', 'missing_headers'],
      (run) => assert.match(gotOf(run, 'tampered_body'), /valid_delivery's event changed, its signature: 200 acknowledged/)],
    // A changed body is a new hash: only the same bytes, forged, find it.
    ['de-duplicated by a hash of the body before verifying', 'dedupeBytesFirst', ['bad_signature', 'missing_headers'],
      async (run) => {
        assert.match(gotOf(run, 'bad_signature'), /valid_delivery's bytes again, a wrong signature: 200 acknowledged/);
        assert.match(gotOf(run, 'missing_headers'), /valid_delivery's bytes again, neither header: 200 acknowledged/);
        const table = (await runTable('dedupeBytesFirst')).stdout.replace(/\n {4}/g, ' ');
        assert.match(table, /missing_headers: the bytes of an event already acknowledged, sent again with a forged signature or none, were acknowledged: the receiver answers a duplicate \(by event_id or a hash of the body\) before verifying/);
      }],
    // valid_delivery's event sent again changed holds no newer version either: refused too late.
    ['an older version answered before verifying', 'staleShortcut', ['bad_signature', 'tampered_body', 'missing_headers'],
      (run) => assert.match(gotOf(run, 'bad_signature'), /forged: an older version of a known payment: 200 acknowledged/)],
    ['occurred_at checked against the clock', 'occurredAtSkew', ['old_event'],
      (run) => assert.match(gotOf(run, 'old_event'), /^400/)],
    ['a body parser in front refusing over 100 KB (express.json()\'s default limit)', 'parserLimit', ['large_body'],
      async (run) => {
        assert.equal(gotOf(run, 'large_body'), '413 permanent_failure');
        const table = (await runTable('parserLimit')).stdout.replace(/\n {4}/g, ' ');
        assert.match(table, /large_body: an authentic event of 256 KiB was refused \(413\): a body size limit in front of the receiver .*express\.json\(\) and NestJS's parsers take 100kb by default, also when a verify callback keeps req\.rawBody/);
      }],
    ['fields the spec does not show refused', 'strictSchema', ['unknown_fields'],
      (run) => assert.match(gotOf(run, 'unknown_fields'), /^fields not in the spec: 422 .*; event_type payment\.refunded, authentic: 200 acknowledged$/)],
    ['an authentic event of a type the receiver does not handle refused', 'refuseOtherType', ['unknown_fields'],
      async (run) => {
        assert.match(gotOf(run, 'unknown_fields'), /^fields not in the spec: 200 acknowledged; event_type payment\.refunded, authentic: 400 permanent_failure \(event_type_unknown\)$/);
        const table = (await runTable('refuseOtherType')).stdout.replace(/\n {4}/g, ' ');
        assert.match(table, /unknown_fields: an authentic event of a type the spec does not show \(payment\.refunded\) was refused: acknowledge it/);
      }],
    ['a rotation whose other secret variable is unset (an empty key)', 'emptyKey', ['other_secret'],
      (run) => assert.match(gotOf(run, 'other_secret'), /signed with an empty secret: 200 acknowledged/)],
    ['a status_version taken only as a JSON number (the digits of one beyond 2^53 refused)', 'numberOnly', ['older_version'],
      async (run) => {
        assert.match(gotOf(run, 'older_version'), /digit string: 400 permanent_failure/);
        const table = (await runTable('numberOnly')).stdout.replace(/\n {4}/g, ' ');
        assert.match(table, /compare exactly \(BigInt or the digits\), never as a double/);
        assert.doesNotMatch(table, /older status_version is stale/, 'its older numbers were acknowledged');
      }],
    // The service counts versions from 1: a 32-bit column holds them for years, and only
    // older_version's digit strings past 2^53 find it out (every other rule is judged).
    ['a status_version column of 32 bits', 'int32Version', ['older_version'],
      (run) => assert.match(gotOf(run, 'older_version'), /^higher: 200 acknowledged; .*digit string: 500 retry \(numeric_value_out_of_range\)/)],
    ['the skew checked on a t= item, the HMAC on the header', 'skewOnT', ['stale_timestamp'],
      (run) => assert.match(gotOf(run, 'stale_timestamp'), /stale, with t=<now> in the signature header: 200 acknowledged/)],
    // A timestamp header sent twice: one value hashed, the other checked against the clock.
    ['the HMAC over the first of two timestamp headers, the skew on the last', 'hmacFirstSkewLast', ['stale_timestamp'],
      async (run) => {
        assert.match(gotOf(run, 'stale_timestamp'), /after a second timestamp header holding now: 40\d .*before a second timestamp header holding now: 200 acknowledged$/);
        const table = (await runTable('hmacFirstSkewLast')).stdout.replace(/\n {4}/g, ' ');
        assert.match(table, /a second, fresh timestamp header \(sent last\) was accepted/);
      }],
    ['the HMAC over the last of two timestamp headers, the skew on the first', 'hmacLastSkewFirst', ['stale_timestamp'],
      (run) => assert.match(gotOf(run, 'stale_timestamp'), /after a second timestamp header holding now: 200 acknowledged; .*before a second timestamp header holding now: 40\d/)],
    ['the HMAC over a t= item, the skew on the header (a captured delivery replays)', 'hmacOnT', ['stale_timestamp'],
      async (run) => {
        assert.match(gotOf(run, 'stale_timestamp'), /replayed: a fresh timestamp header, the stale t= and signature: 200 acknowledged/);
        const table = (await runTable('hmacOnT')).stdout.replace(/\n {4}/g, ' ');
        assert.match(table, /any old delivery can be replayed/);
      }],
  ];
  for (const [name, defect, failed, more] of cases) {
    test(`${name}: ${failed.join(', ')}`, async () => {
      const run = await check(defect);
      assert.equal(run.code, 1, shown(run));
      assert.deepEqual(run.failed, failed, shown(run));
      assert.deepEqual(run.notJudged, [], shown(run));
      await more(run);
    });
  }
});

// The known event_id is sent signed now: a run that outlasts the receiver's skew (60 ms a
// delivery, a 2 s skew) still finds the lookup before the signature.
test('de-duplicated by event_id before verifying, the skew checked first, on a run longer than the skew: tampered_body', async () => {
  const run = await check('slowDedupeFirst', { maxSkewSecs: 2 });
  assert.equal(run.code, 1, shown(run));
  assert.deepEqual(run.failed, ['bad_signature', 'tampered_body'], shown(run));
  assert.match(gotOf(run, 'tampered_body'), /valid_delivery's event changed, its signature: 200 acknowledged/);
  assert.match(gotOf(run, 'bad_signature'), /valid_delivery's bytes again, a wrong signature: 200 acknowledged/);
});

describe('a receiver that refuses the valid delivery: valid_delivery fails, the rest is not judged', () => {
  const cases = [
    ['one that refuses everything (401 from a layer in front)', 'refuseAll', AFTER_VALID,
      /every delivery, authentic or forged, was answered 401/],
    // Its pending secret is right, and a delivery signed with it is acknowledged: not judged
    // all the same, as every variation of a valid delivery while valid_delivery fails.
    ['one that holds the secret with a trailing newline', 'wrongSecret', AFTER_VALID,
      /refused the authentic delivery as it refuses forged ones \(401\): check that it holds the same signing Secret/],
    // Anyone can sign: said first, though other_secret is not judged while valid_delivery fails.
    ['one whose secret variable is unset (it verifies with the text "undefined")', 'unsetSecret', AFTER_VALID,
      /refused the authentic delivery and acknowledged one signed with the text "undefined" as its secret: its secret comes from a variable that is not set, so anyone can sign/],
    ['one that answers 404 to a payment it does not know', 'notFoundUnknown', AFTER_VALID,
      /refused an authentic delivery with 404 \(unknown_payment\) \(forged ones got 401\): it verified the signature/],
    // Down behind its proxy: told to look at its log, not at its secret.
    ['one that answers 503 to everything', 'failAll', AFTER_VALID,
      /every delivery, authentic or forged, was answered 503: the receiver, or what stands in front of it .* is failing before it looks at a delivery/],
    ['one that reads the signature in another encoding', 'malformedAll', AFTER_VALID,
      /could not read the kit's signature header \(signature_malformed\): the kit sent the tag in hex \(--encoding hex\).* run the kit with --encoding base64/],
    // Refused with no code, as the stale delivery was: the clock, not the secret.
    ['one that checks the skew against the time in milliseconds (plain-text 400s)', 'millisClock', AFTER_VALID,
      /refused the authentic delivery with 400, as it refused a stale one \(forged ones got 401\): its skew check refuses a fresh timestamp\. Check the receiver's clock \(NTP\) .* not milliseconds/],
    // 400 alike for a forged delivery (no code) and for an event it refused: either cause.
    // The commonest Python mistake: the kit's json.dumps-signed body verifies, so that is named
    // first, not the secret or the header names.
    ['the JSON re-serialized as Python\'s json.dumps writes it, before hashing', 'pyReserialize', AFTER_VALID,
      /refused the authentic delivery and acknowledged a body signed over its JSON written again \(json\.dumps\): it hashes the parsed body re-serialized/],
    ['one that answers 400 with no code to a bad signature, and 400 to a payment it does not know', 'plain400', AFTER_VALID,
      /does not tell a forged delivery from a refused event\. If it could not verify the signature: check that it holds the same signing Secret .* If it verified it and refused the event: Acknowledge every authentic event/],
  ];
  for (const [name, defect, notJudged, hint] of cases) {
    test(name, async () => {
      const run = await check(defect);
      assert.equal(run.code, 1, shown(run));
      assert.deepEqual(run.failed, ['valid_delivery'], shown(run));
      assert.deepEqual(run.notJudged, notJudged, shown(run));
      assert.equal(run.results.find((r) => r.rule === 'no_redirect').verdict, 'pass');
      assert.match(run.stderr, new RegExp(`valid_delivery failed: fix it first \\(${notJudged.length} rules not judged until it holds\\)`));
      // With --json, the fix goes to stderr (the rows keep their shape).
      assert.match(run.stderr.replace(/\n\s+/g, ' '), new RegExp(`valid_delivery: .*${hint.source}`));
      // The table's hint points at the cause, and no refusal rule earned a pass.
      const table = await runTable(defect);
      const unwrapped = table.stdout.replace(/\n {4}/g, ' ');
      assert.match(unwrapped, hint);
      assert.match(table.stdout, /^bad_signature\s+non-2xx, each\s+each refused: .*not_judged$/m);
      assert.match(unwrapped, /not judged until valid_delivery holds: retry_same_event, older_version, .*retired_secret\. /);
    });
  }
});

test('a 400 for a timestamp ahead of the clock passes every rule, and the table says what it costs', async () => {
  const careless = await runTable('future400');
  assert.equal(careless.code, 0, careless.stdout + careless.stderr);
  assert.match(careless.stdout.replace(/\n {4}/g, ' '), /note: future_timestamp was refused with a 4xx, which the service never retries: while this receiver's clock is behind the service's, every delivery is refused so/);
  const correct = await runTable(undefined);
  assert.equal(correct.code, 0, correct.stdout + correct.stderr);
  assert.doesNotMatch(correct.stdout, /future_timestamp was refused with a 4xx/);
});

async function runTable(defect) {
  const server = await startServer(plainReceiver({ defect }));
  try {
    return await runCli(['conformance', '--url', server.url, '--secret-env', SECRET_ENV, '--timestamp-header', TS_HEADER,
      '--signature-header', SIG_HEADER, ...ROTATION_ARGS]);
  } finally {
    await server.close();
  }
}
