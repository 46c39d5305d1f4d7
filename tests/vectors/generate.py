#!/usr/bin/env python3
"""Rebuild the shared test vectors of cryptopay-verify.

Run from the repository root:  python3 tests/vectors/generate.py

Standard library only (json, hmac, hashlib, base64). The service's rules (service.json)
and fulfilment (fulfilment.json) come from the reference models in service_vectors.py and
fulfilment_vectors.py, beside this file. Every MAC is computed here with
Python's `hmac`, independently of the crate; the RFC 4231 tags, the four cross-checked
anchor vectors (stripe-node) and stripe's known answers are typed in as literals and
asserted against Python's results before anything is written. The expectations follow
DESIGN.md and docs/decisions.md (order of checks included). The output is deterministic.
"""

import base64
import hashlib
import hmac
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the vectors
import fulfilment_vectors  # noqa: E402 (after the line above)
import service_vectors  # noqa: E402

SCHEMA = "cryptopay-verify-vectors/1"
OUT_DIR = os.path.join("tests", "vectors")
MAX_SAFE = 2**53 - 1

# DESIGN.md's table of the stable error codes, in its order, with its groups. Group `event`:
# the signature and the timestamp held, so the delivery is authentic but not a readable event
# (a receiver keeps it in quarantine and acknowledges it). Written to error_codes.json.
CODE_GROUPS = [
    ("arguments", ["invalid_argument"]),
    ("body", ["body_not_raw", "body_too_large"]),
    ("headers", ["header_duplicated", "timestamp_missing", "signature_missing"]),
    ("timestamp", ["timestamp_malformed", "timestamp_too_old", "timestamp_in_future"]),
    ("signature", ["signature_malformed", "signature_mismatch"]),
    ("secrets", ["no_secrets", "secret_empty"]),
    ("event", ["event_not_json", "event_malformed", "event_duplicate_key", "event_type_unknown",
               "status_version_invalid"]),
    ("amounts", ["amount_raw_invalid", "amount_decimal_invalid", "amount_too_precise",
                 "decimals_invalid"]),
    ("pricing", ["store_source_invalid", "source_amount_invalid", "source_kind_mismatch",
                 "source_currency_missing", "source_currency_mismatch",
                 "source_pricing_ref_missing", "source_pricing_ref_mismatch",
                 "pricing_ref_is_address", "pricing_ref_is_network_id",
                 "create_payment_invalid"]),
    ("origins and URLs", ["origin_invalid", "origin_not_https", "origin_not_permitted",
                          "webhook_url_malformed", "webhook_url_not_https",
                          "webhook_url_ip_literal", "webhook_url_not_registered_domain",
                          "webhook_url_port", "webhook_url_credentials", "webhook_url_query",
                          "webhook_url_fragment"]),
    ("idempotency", ["idempotency_key_invalid"]),
]

# Every code except `body_not_raw` (only reachable from JS): each has a row in the files below.
ALL_CODES = [code for _, codes in CODE_GROUPS for code in codes if code != "body_not_raw"]


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------

class VectorFile:
    """One output file: rows get ids 1..n in the order they are added."""

    def __init__(self, name, function, notes, per_row_function=False):
        self.name = name
        self.function = function
        self.notes = notes
        self.per_row_function = per_row_function
        self.tests = []
        # Codes of the service's own answers a row may expect besides the crate's.
        self.service_codes = []

    def add(self, comment, flags, expected, function=None, **inputs):
        row = {"id": len(self.tests) + 1}
        fn = function or self.function
        if self.per_row_function or fn != self.function:
            row["function"] = fn
        row["comment"] = comment
        row["flags"] = list(flags)
        for key, value in inputs.items():
            if value is not OMIT:
                row[key] = value
        row["expected"] = expected
        self.tests.append(row)
        return row

    def document(self):
        return {
            "schema": SCHEMA,
            "function": self.function,
            "notes": self.notes,
            "tests": self.tests,
        }


class _Omit:
    def __repr__(self):
        return "OMIT"


OMIT = _Omit()  # an input (or JSON member) left out


def ok(**result):
    out = {"ok": True}
    out.update(result)
    return out


def err(code, receiver_fault=None):
    """An expected refusal; `receiver_fault` (when given) is whether it is the receiver's own
    (Rust `Error::is_receiver_fault`, JavaScript `err.receiverFault`): answered 5xx."""
    assert code in ALL_CODES or code == "body_not_raw", code
    if receiver_fault is None:
        return {"error": code}
    return {"error": code, "receiverFault": receiver_fault}


def to_bytes(x):
    return x.encode("utf-8") if isinstance(x, str) else x


def hexs(b):
    return to_bytes(b).hex()


def mac(secret, timestamp, body):
    """HMAC-SHA256(key = secret bytes, msg = timestamp bytes + b"." + body bytes)."""
    return hmac.new(to_bytes(secret), to_bytes(timestamp) + b"." + to_bytes(body),
                    hashlib.sha256).digest()


def b64(raw):
    return base64.b64encode(raw).decode("ascii")


def b64u(raw):
    return base64.urlsafe_b64encode(raw).decode("ascii")


def J(value):
    """Compact JSON text of a Python value (non-ASCII kept as UTF-8)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def jobj(*pairs):
    """A JSON object from (key, raw JSON text) pairs, so duplicates and exact number
    spellings can be written."""
    return "{" + ",".join(J(k) + ":" + v for k, v in pairs) + "}"


# --------------------------------------------------------------------------------------
# 1. RFC 4231 (HMAC-SHA256 primitive)
# --------------------------------------------------------------------------------------

def build_hmac():
    f = VectorFile(
        "hmac_sha256_rfc4231.json", "hmacSha256",
        "RFC 4231 test cases 1-7 for HMAC-SHA-256. The tags are the RFC's published values, "
        "typed in and checked against Python's hmac. Case 5 is truncated to 128 bits: "
        "tagHex is the 16-byte prefix of the full tag.")
    cases = [
        (1, "0b" * 20, b"Hi There".hex(),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", None,
         "20-byte key of 0x0b, short data"),
        (2, b"Jefe".hex(), b"what do ya want for nothing?".hex(),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", None,
         "key shorter than the output length"),
        (3, "aa" * 20, "dd" * 50,
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe", None,
         "combined length of key and data larger than 64 bytes"),
        (4, "0102030405060708090a0b0c0d0e0f10111213141516171819", "cd" * 50,
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b", None,
         "25-byte key 0x01..0x19, 50 bytes of 0xcd"),
        (5, "0c" * 20, b"Test With Truncation".hex(),
         "a3b6167473100ee06e0c796c2955552b", 128,
         "truncation of the output to 128 bits"),
        (6, "aa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First".hex(),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54", None,
         "131-byte key, larger than the block size: the key is hashed first"),
        (7, "aa" * 131,
         b"This is a test using a larger than block-size key and a larger than block-size "
         b"data. The key needs to be hashed before being used by the HMAC algorithm.".hex(),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2", None,
         "larger than block-size key and data"),
    ]
    for num, key_hex, data_hex, tag_hex, trunc, why in cases:
        full = hmac.new(bytes.fromhex(key_hex), bytes.fromhex(data_hex), hashlib.sha256).hexdigest()
        if trunc:
            assert full[: trunc // 4] == tag_hex, num
        else:
            assert full == tag_hex, num
        kw = dict(keyHex=key_hex, dataHex=data_hex, tagHex=tag_hex)
        if trunc:
            kw["truncatedBits"] = trunc
        f.add("RFC 4231 test case %d: %s" % (num, why), ["Valid", "RFC4231"], ok(), **kw)
    return f


# --------------------------------------------------------------------------------------
# Anchor and known-answer values (literals, asserted)
# --------------------------------------------------------------------------------------

ANCHOR_TS = "1700000000"
ANCHOR_SECRET = "whsec_test_secret"
ANCHOR_BODY_1 = b'{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated"}'
ANCHOR_BODY_3 = '{"a":"€"}'.encode("utf-8")
ANCHOR_BODY_4 = b'{"a":"\xff"}'
ANCHORS = [
    # (secret, body, hex, base64, description)
    (ANCHOR_SECRET, ANCHOR_BODY_1,
     "0900a08773f24e66b315e3d5c951f0b713a3559f282fd89bdc9ae5216a2b13b6",
     "CQCgh3PyTmazFePVyVHwtxOjVZ8oL9ib3JrlIWorE7Y=", "JSON body"),
    (ANCHOR_SECRET, b"",
     "316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727",
     "MWuauYwVv6A50kPzGWrO5hnPKXSakaY05qgVTi97Zyc=", "empty body"),
    ("s3crét", ANCHOR_BODY_3,
     "2eb13931c48f7107321e09452cc4878b481d5fff682ae295b53f6ee314383ca4",
     "LrE5McSPcQcyHglFLMSHi0gdX/9oKuKVtT9u4xQ4PKQ=", "non-ASCII secret and body"),
    (ANCHOR_SECRET, ANCHOR_BODY_4,
     "a8fa712692f798c84838948f52973d20ec9f1201606a00ed6ca885099b72d17b",
     "qPpxJpL3mMhIOJSPUpc9IOyfEgFgagDtbKiFCZty0Xs=", "invalid UTF-8 body (raw 0xFF byte)"),
]
for _s, _b, _h, _b64, _d in ANCHORS:
    assert mac(_s, ANCHOR_TS, _b).hex() == _h, _d
    assert b64(mac(_s, ANCHOR_TS, _b)) == _b64, _d

STRIPE_KEY = "test_secret"
STRIPE_KATS = [
    # stripe-node test/crypto/helpers.ts: HMAC-SHA256(key "test_secret", data), hex
    (b"", "f7f9bd47fb987337b5796fdc1fdb9ba221d0d5396814bfcaf9521f43fd8927fd", "empty data"),
    (b'{"obj1":"hello","obj2":"world"}',
     "bebb1a643997f419b315ddba19e6f5411e1ce7f810ba6d3617ce72823092f363", "JSON data"),
    ("😀".encode("utf-8"),
     "837da296d05c4fe31f61d5d7ead035099d9585a5bcde87de952012a78f0b0c43", "emoji (4-byte UTF-8)"),
]
for _d, _h, _w in STRIPE_KATS:
    assert hmac.new(STRIPE_KEY.encode(), _d, hashlib.sha256).hexdigest() == _h, _w


# --------------------------------------------------------------------------------------
# Shared event bodies
# --------------------------------------------------------------------------------------

def data_obj(payment_id='"pay_1"', status_version='"42"', extra=()):
    pairs = []
    if payment_id is not OMIT:
        pairs.append(("payment_id", payment_id))
    if status_version is not OMIT:
        pairs.append(("status_version", status_version))
    pairs.extend(extra)
    return jobj(*pairs)


def envelope(schema_version="1", event_id='"evt_1"', event_type='"payment.updated"',
             occurred_at='"2023-11-14T22:13:20Z"', data=None, extra=()):
    """Raw JSON text of an event envelope; members given as raw JSON text, OMIT drops one."""
    if data is None:
        data = data_obj()
    pairs = []
    for k, v in (("schema_version", schema_version), ("event_id", event_id),
                 ("event_type", event_type), ("occurred_at", occurred_at), ("data", data)):
        if v is not OMIT:
            pairs.append((k, v))
    pairs.extend(extra)
    return jobj(*pairs)


def event(schema_version="1", event_id="evt_1", occurred_at="2023-11-14T22:13:20Z",
          payment_id="pay_1", status_version="42", event_type="payment.updated"):
    return {
        "schemaVersion": schema_version,
        "eventId": event_id,
        "eventType": event_type,
        "occurredAt": occurred_at,
        "paymentId": payment_id,
        "statusVersion": status_version,
    }


VALID_EVENT = envelope().encode("utf-8")
VALID_EVENT_EXPECTED = event()


# --------------------------------------------------------------------------------------
# 2. verify.json
# --------------------------------------------------------------------------------------

def build_verify():
    f = VectorFile(
        "verify.json", "verifySignature",
        "Signature verification (verifySignature; a few verifyWebhook rows). Every valid "
        "signature is HMAC-SHA256 computed by Python over timestamp bytes + '.' + body bytes "
        "with key = the UTF-8 bytes of the secret. Rows 1-8 are the four anchor vectors "
        "(hex and base64), cross-checked with stripe-node. Malformed timestamps are signed "
        "over their exact bytes, so only the grammar can reject them. Expectations follow "
        "docs/decisions.md, including the order of checks (options -> body size -> "
        "timestamp -> signature -> secrets -> HMAC -> skew -> envelope). `secrets` is a "
        "string (one active secret) or an array of {secret, kind, acceptUntilSecs?}.",
        per_row_function=True)

    S, T, NOW, SKEW = ANCHOR_SECRET, ANCHOR_TS, 1700000000, 300
    B = ANCHOR_BODY_1
    M = mac(S, T, B)
    H = M.hex()
    wrong = [mac("whsec_wrong_%d" % i, T, B) for i in range(10)]
    OK = ok(matchedSecret="active", timestamp=NOW)

    def v(comment, flags, expected, secrets=S, timestamp=T, signature=H, body=B,
          now=NOW, skew=SKEW, max_body=OMIT, function="verifySignature"):
        return f.add(comment, flags, expected, function=function, secrets=secrets,
                     timestamp=timestamp, signature=signature, bodyHex=hexs(body),
                     nowSecs=now, maxSkewSecs=skew, maxBodyBytes=max_body)

    # --- anchors -------------------------------------------------------------------
    for secret, body, h, b, desc in ANCHORS:
        v("anchor vector (%s), lowercase hex, cross-checked with stripe-node" % desc,
          ["Valid", "Anchor"], OK, secrets=secret, signature=h, body=body)
        v("anchor vector (%s), padded standard base64" % desc,
          ["Valid", "Anchor", "Base64"], OK, secrets=secret, signature=b, body=body)

    # --- stripe known answers, re-signed with a timestamp -----------------------------
    for data, _h, desc in STRIPE_KATS:
        v("stripe-node known-answer data (%s) with key 'test_secret', signed as "
          "'1700000000.' + data by Python" % desc, ["Valid", "StripeKAT"], OK,
          secrets=STRIPE_KEY, signature=mac(STRIPE_KEY, T, data).hex(), body=data)
    v("stripe-node known answer used without the timestamp prefix: the raw HMAC of the "
      "data alone is not our MAC", ["StripeKAT", "Mismatch"], err("signature_mismatch"),
      secrets=STRIPE_KEY, signature=STRIPE_KATS[1][1], body=STRIPE_KATS[1][0])

    # --- invalid UTF-8 body ----------------------------------------------------------
    body_fe = b'{"a":"\xfe"}'
    v("body 0xFF replaced by 0xFE: both decode to U+FFFD in lossy decoders, but the MAC "
      "covers raw bytes", ["Mismatch", "InvalidUtf8"], err("signature_mismatch"),
      signature=ANCHORS[3][2], body=body_fe)
    v("MAC computed over the U+FFFD-replaced text of the 0xFF body does not verify the raw "
      "body", ["Mismatch", "InvalidUtf8"], err("signature_mismatch"),
      signature=mac(S, T, '{"a":"\ufffd"}'.encode("utf-8")).hex(), body=ANCHOR_BODY_4)

    # --- signature shapes ------------------------------------------------------------
    v("UPPERCASE hex is accepted", ["Valid", "Encoding"], OK, signature=H.upper())
    mixed = "".join(c.upper() if i % 2 else c for i, c in enumerate(H))
    assert mixed != H and mixed != H.upper()
    v("mixed-case hex is accepted", ["Valid", "Encoding"], OK, signature=mixed)
    v("unpadded standard base64 (43 chars)", ["Valid", "Encoding", "Base64"], OK,
      signature=b64(M).rstrip("="))

    # a body whose MAC's base64 holds both '+' and '/', so the URL-safe form differs
    n = 0
    while True:
        ub = ('{"n":%d}' % n).encode()
        um = mac(S, T, ub)
        if "+" in b64(um) and "/" in b64(um):
            break
        n += 1
    assert b64u(um) != b64(um) and "-" in b64u(um) and "_" in b64u(um)
    v("padded standard base64 with '+' and '/' characters", ["Valid", "Encoding", "Base64"],
      OK, signature=b64(um), body=ub)
    v("padded URL-safe base64 ('-' and '_' in place of '+' and '/')",
      ["Valid", "Encoding", "Base64Url"], OK, signature=b64u(um), body=ub)
    v("unpadded URL-safe base64", ["Valid", "Encoding", "Base64Url"], OK,
      signature=b64u(um).rstrip("="), body=ub)
    v("v1=<URL-safe base64>", ["Valid", "Encoding", "Base64Url", "Prefix"], OK,
      signature="v1=" + b64u(um).rstrip("="), body=ub)
    v("v1=<hex>", ["Valid", "Prefix"], OK, signature="v1=" + H)
    v("sha256=<hex> (GitHub style)", ["Valid", "Prefix"], OK, signature="sha256=" + H)
    v("v1=<padded base64>: the item splits at the first '=' only", ["Valid", "Prefix", "Base64"],
      OK, signature="v1=" + b64(M))
    v("v1,<base64> (Standard Webhooks style)", ["Valid", "Prefix", "Base64"], OK,
      signature="v1," + b64(M))
    v("v1,<hex>: the v1, marker binds to the rest of the token, whatever its encoding",
      ["Valid", "Prefix"], OK, signature="v1," + H)
    v("t=<ts>,v1=<hex> (Stripe style), t equal to the timestamp header", ["Valid", "Stripe"],
      OK, signature="t=%s,v1=%s" % (T, H))
    v("Stripe style with t after v1", ["Valid", "Stripe"], OK,
      signature="v1=%s,t=%s" % (H, T))
    v("two t= items, both equal to the timestamp", ["Valid", "Stripe"], OK,
      signature="t=%s,v1=%s,t=%s" % (T, H, T))

    # --- several candidates ----------------------------------------------------------
    v("space-separated candidates, the right one last", ["Valid", "MultipleCandidates"], OK,
      signature="v1=%s v1=%s" % (wrong[0].hex(), H))
    v("comma-separated candidates, the right one first", ["Valid", "MultipleCandidates"], OK,
      signature="v1=%s,v1=%s" % (H, wrong[0].hex()))
    v("bare comma-separated candidates", ["Valid", "MultipleCandidates"], OK,
      signature="%s,%s" % (wrong[0].hex(), H))
    v("Stripe style with two v1 values (old and new secret), right one second",
      ["Valid", "MultipleCandidates", "Stripe"], OK,
      signature="t=%s,v1=%s,v1=%s" % (T, wrong[1].hex(), H))
    v("Standard Webhooks style, two space-separated v1, tokens", ["Valid", "MultipleCandidates"],
      OK, signature="v1,%s v1,%s" % (b64(wrong[0]), b64(M)))
    v("two v1,<base64> values merged by a Fetch Headers or Node (a, b): each verified", ["Valid", "MultipleCandidates", "Prefix"],
      OK, signature="v1,%s, v1,%s" % (b64(wrong[0]), b64(M)))
    v("v1,<base64>, with the merge's trailing comma alone", ["Valid", "Prefix"],
      OK, signature="v1,%s," % b64(M))
    v("mixed shapes in one header: hex, base64 and Stripe items", ["Valid", "MultipleCandidates"],
      OK, signature="t=%s,v1=%s v1,%s sha256=%s" % (T, wrong[0].hex(), b64(wrong[1]), H))
    v("several candidates, all wrong", ["MultipleCandidates", "Mismatch"],
      err("signature_mismatch"),
      signature="v1=%s v1=%s,v1=%s" % (wrong[0].hex(), wrong[1].hex(), b64(wrong[2])))
    eight = ["v1=" + w.hex() for w in wrong[:7]] + ["v1=" + H]
    v("exactly 8 candidates (7 wrong, the right one last): the limit", ["Valid", "CandidateLimit"],
      OK, signature=" ".join(eight))
    v("t= item plus 8 candidates: t= is not a candidate", ["Valid", "CandidateLimit", "Stripe"],
      OK, signature="t=%s," % T + ",".join(eight))
    nine = ["v1=" + w.hex() for w in wrong[:8]] + ["v1=" + H]
    v("9 candidates (8 wrong + the right one): malformed before any HMAC",
      ["Malformed", "CandidateLimit"], err("signature_malformed"), signature=" ".join(nine))
    v("9 copies of the right value: still over the limit", ["Malformed", "CandidateLimit"],
      err("signature_malformed"), signature=",".join([H] * 9))
    v("the right value twice counts as 2 candidates (ok)", ["Valid", "MultipleCandidates"], OK,
      signature="%s %s" % (H, H))

    # --- separators ------------------------------------------------------------------
    v("trailing comma is skipped", ["Valid", "Separators"], OK, signature="v1=%s," % H)
    v("leading comma and doubled commas are skipped", ["Valid", "Separators"], OK,
      signature=",v1=%s,,v1=%s" % (wrong[0].hex(), H))
    v("repeated spaces and tabs between tokens, leading and trailing blanks",
      ["Valid", "Separators"], OK,
      signature=" \t v1=%s  \t\tv1=%s \t" % (wrong[0].hex(), H))
    v("tab as the only separator", ["Valid", "Separators"], OK,
      signature="v1=%s\tv1=%s" % (wrong[0].hex(), H))

    # --- header length ---------------------------------------------------------------
    exact = "v1=" + H
    exact = exact + " " * (1024 - len(exact))
    assert len(exact.encode()) == 1024
    v("signature header of exactly 1024 bytes (right value + trailing spaces): ok",
      ["Valid", "HeaderLength"], OK, signature=exact)
    v("signature header of 1025 bytes: malformed before decoding, even with the right value",
      ["Malformed", "HeaderLength"], err("signature_malformed"), signature=exact + " ")
    v("signature header far over 1024 bytes (100 wrong candidates)",
      ["Malformed", "HeaderLength"], err("signature_malformed"),
      signature=" ".join(["v1=" + wrong[0].hex()] * 100))

    # --- missing / malformed signatures ---------------------------------------------
    v("empty signature header", ["Missing"], err("signature_missing"), signature="")
    v("signature header of spaces only", ["Missing"], err("signature_missing"), signature="   ")
    v("signature header of tabs and spaces only", ["Missing"], err("signature_missing"),
      signature="\t \t")
    v("hex of 63 chars (last digit dropped)", ["Malformed", "Length"], err("signature_malformed"),
      signature=H[:63])
    v("hex of 65 chars (one digit added)", ["Malformed", "Length"], err("signature_malformed"),
      signature=H + "0")
    v("hex of 1 char", ["Malformed", "Length"], err("signature_malformed"), signature=H[:1])
    v("62-char prefix of the right MAC: never compared as a prefix (CVE-2024-21491 class)",
      ["Malformed", "Length"], err("signature_malformed"), signature=H[:62])
    v("v1= prefix with 62-char prefix of the right MAC", ["Malformed", "Length"],
      err("signature_malformed"), signature="v1=" + H[:62])
    v("v1= with an empty value (hex of 0 chars)", ["Malformed", "Length"],
      err("signature_malformed"), signature="v1=")
    v("v1, with an empty rest", ["Malformed"], err("signature_malformed"), signature="v1,")
    v("bare 'v1' without value", ["Malformed"], err("signature_malformed"), signature="v1")
    v("64 chars with a non-hex letter 'g'", ["Malformed", "BadChars"], err("signature_malformed"),
      signature=H[:10] + "g" + H[11:])
    v("0x-prefixed hex (66 chars)", ["Malformed", "BadChars"], err("signature_malformed"),
      signature="0x" + H)
    v("non-ASCII character (é) in a 64-char value", ["Malformed", "NonAscii"],
      err("signature_malformed"), signature="v1=" + H[:63] + "é")
    v("right value followed by a newline: only visible ASCII, space and tab are allowed",
      ["Malformed", "BadChars"], err("signature_malformed"), signature="v1=%s\n" % H)
    v("NUL byte after the right value", ["Malformed", "BadChars"], err("signature_malformed"),
      signature="v1=%s\u0000" % H)
    v("v0= marker (right value)", ["Malformed", "UnknownMarker"], err("signature_malformed"),
      signature="v0=" + H)
    v("v2= marker (right value)", ["Malformed", "UnknownMarker"], err("signature_malformed"),
      signature="v2=" + H)
    v("V1= marker: markers are lowercase only", ["Malformed", "UnknownMarker"],
      err("signature_malformed"), signature="V1=" + H)
    v("SHA256= marker: markers are lowercase only", ["Malformed", "UnknownMarker"],
      err("signature_malformed"), signature="SHA256=" + H)
    v("sig= marker", ["Malformed", "UnknownMarker"], err("signature_malformed"),
      signature="sig=" + H)
    v("unknown v0= item beside the right v1= item: never silently skipped",
      ["Malformed", "UnknownMarker"], err("signature_malformed"),
      signature="v1=%s,v0=%s" % (H, wrong[0].hex()))
    v("v1,<base64>,junk: a comma in the rest of a v1, token (but one trailing) is malformed",
      ["Malformed", "Prefix"], err("signature_malformed"), signature="v1,%s,junk" % b64(M))
    v("v1,<base64>,,: two trailing commas are malformed", ["Malformed", "Prefix"],
      err("signature_malformed"), signature="v1,%s,," % b64(M))
    v("t= differing from the timestamp header", ["Malformed", "Stripe"],
      err("signature_malformed"), signature="t=1700000001,v1=" + H)
    v("t= with a leading zero: compared as text, so it differs", ["Malformed", "Stripe"],
      err("signature_malformed"), signature="t=01700000000,v1=" + H)
    v("two t= items, the second one differs", ["Malformed", "Stripe"],
      err("signature_malformed"), signature="t=%s,t=1699999999,v1=%s" % (T, H))
    v("t= alone (no signature value)", ["Malformed", "Stripe"], err("signature_malformed"),
      signature="t=" + T)
    v("t= with an empty value", ["Malformed", "Stripe"], err("signature_malformed"),
      signature="t=,v1=" + H)
    v("commas only: items but no signature value", ["Malformed", "Separators"],
      err("signature_malformed"), signature=", ,")
    last = b64(M).rstrip("=")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    idx = alphabet.index(last[-1])
    assert idx & 3 == 0
    noncanon = last[:-1] + alphabet[idx | 1]
    assert base64.b64decode(noncanon + "=") == M  # a lenient decoder gets the right bytes
    v("base64 with non-zero trailing bits (non-canonical, decodes leniently to the right MAC)",
      ["Malformed", "Base64", "NonCanonical"], err("signature_malformed"), signature=noncanon)
    v("padded base64 with non-zero trailing bits", ["Malformed", "Base64", "NonCanonical"],
      err("signature_malformed"), signature=noncanon + "=")
    v("base64 with two '=' paddings (45 chars)", ["Malformed", "Base64"],
      err("signature_malformed"), signature=b64(M) + "=")
    v("base64 of 31 bytes (44 chars with '=='): wrong length", ["Malformed", "Base64", "Length"],
      err("signature_malformed"), signature=b64(M[:31]))
    v("base64 of 33 bytes (44 chars, no padding): wrong length",
      ["Malformed", "Base64", "Length"], err("signature_malformed"), signature=b64(M + b"\x00"))
    v("truncated base64 (first 40 chars)", ["Malformed", "Base64", "Length"],
      err("signature_malformed"), signature=b64(M)[:40])

    # --- timestamps ------------------------------------------------------------------
    v("empty timestamp", ["Missing", "Timestamp"], err("timestamp_missing"), timestamp="",
      signature=mac(S, "", B).hex())
    bad_ts = [
        ("+1700000000", "leading plus sign"),
        ("-1700000000", "minus sign"),
        (" 1700000000", "leading space (no trimming)"),
        ("1700000000 ", "trailing space"),
        ("\t1700000000", "leading tab"),
        ("1700000000\n", "trailing newline"),
        ("1700000000.0", "decimal point"),
        ("1.7e9", "exponent"),
        ("0x6553f100", "0x hex"),
        ("1_700_000_000", "underscores"),
        ("１７００００００００", "full-width digits"),
        ("١٧٠٠٠٠٠٠٠٠", "Arabic-Indic digits"),
        ("1700000000\u0000", "NUL suffix"),
        ("1700000000abc", "junk suffix"),
        ("1700000000, 1700000001", "two headers merged by a Fetch/Node container"),
        ("1700000000000", "13 digits (milliseconds)"),
        ("17000000000000000000", "20 digits"),
        ("9223372036854775808", "i64::MAX + 1 (19 digits)"),
    ]
    for ts, why in bad_ts:
        v("timestamp with %s, signed over its exact bytes: grammar rejects it" % why,
          ["Malformed", "Timestamp"], err("timestamp_malformed"), timestamp=ts,
          signature=mac(S, ts, B).hex())
    v("timestamp 01700000000 (leading zero) signed as those bytes: ok, value 1700000000",
      ["Valid", "Timestamp", "LeadingZero"], OK, timestamp="01700000000",
      signature=mac(S, "01700000000", B).hex())
    v("12-digit timestamp with leading zeros (the maximum length) signed as those bytes",
      ["Valid", "Timestamp", "LeadingZero"], OK, timestamp="001700000000",
      signature=mac(S, "001700000000", B).hex())
    v("timestamp 01700000000 with a MAC over 1700000000: the MAC covers the header bytes",
      ["Mismatch", "Timestamp", "LeadingZero"], err("signature_mismatch"),
      timestamp="01700000000", signature=H)
    v("t=01700000000 matches a 01700000000 timestamp header as text",
      ["Valid", "Stripe", "LeadingZero"], OK, timestamp="01700000000",
      signature="t=01700000000,v1=" + mac(S, "01700000000", B).hex())
    v("t=1700000000 against a 01700000000 timestamp header: text differs",
      ["Malformed", "Stripe", "LeadingZero"], err("signature_malformed"),
      timestamp="01700000000", signature="t=1700000000,v1=" + mac(S, "01700000000", B).hex())
    m0 = mac(S, "0", B).hex()
    v("timestamp '0' signed, now 0: ok", ["Valid", "Timestamp", "Zero"],
      ok(matchedSecret="active", timestamp=0), timestamp="0", signature=m0, now=0)
    v("timestamp '0' signed, now 300 = skew: ok at the boundary",
      ["Valid", "Timestamp", "Zero", "SkewBoundary"], ok(matchedSecret="active", timestamp=0),
      timestamp="0", signature=m0, now=300)
    v("timestamp '0' signed, now 301: too old", ["Timestamp", "Zero", "SkewBoundary"],
      err("timestamp_too_old"), timestamp="0", signature=m0, now=301)
    v("timestamp '0' signed, realistic now: too old (never treated as 'no timestamp')",
      ["Timestamp", "Zero"], err("timestamp_too_old"), timestamp="0", signature=m0)
    v("timestamp 999999999999 (largest 12 digits), now equal: ok",
      ["Valid", "Timestamp", "Overflow"], ok(matchedSecret="active", timestamp=999999999999),
      timestamp="999999999999", signature=mac(S, "999999999999", B).hex(), now=999999999999)
    v("timestamp 999999999999 with now 0: in the future (no overflow)",
      ["Timestamp", "Overflow"], err("timestamp_in_future"), timestamp="999999999999",
      signature=mac(S, "999999999999", B).hex(), now=0)
    v("timestamp 0 with now 2^53-1: too old (no overflow)", ["Timestamp", "Overflow"],
      err("timestamp_too_old"), timestamp="0", signature=m0, now=MAX_SAFE)
    v("timestamp 0, now 2^53-1, maxSkewSecs 2^53-1: difference equals the skew, ok",
      ["Valid", "Overflow", "SkewBoundary"], ok(matchedSecret="active", timestamp=0),
      timestamp="0", signature=m0, now=MAX_SAFE, skew=MAX_SAFE)

    # --- skew boundaries -------------------------------------------------------------
    v("now = timestamp + maxSkew: ok (inclusive)", ["Valid", "SkewBoundary"], OK,
      now=NOW + SKEW)
    v("now = timestamp + maxSkew + 1: too old", ["SkewBoundary"], err("timestamp_too_old"),
      now=NOW + SKEW + 1)
    v("now = timestamp - maxSkew: ok (inclusive)", ["Valid", "SkewBoundary"], OK,
      now=NOW - SKEW)
    v("now = timestamp - maxSkew - 1: in the future", ["SkewBoundary"],
      err("timestamp_in_future"), now=NOW - SKEW - 1)
    v("maxSkewSecs 0 and now equal to the timestamp: ok", ["Valid", "SkewBoundary"], OK, skew=0)
    v("maxSkewSecs 0, now one second later: too old (0 never disables the check)",
      ["SkewBoundary"], err("timestamp_too_old"), skew=0, now=NOW + 1)
    v("maxSkewSecs 0, now one second earlier: in the future", ["SkewBoundary"],
      err("timestamp_in_future"), skew=0, now=NOW - 1)
    v("timestamp 10 years in the future (stripe accepts it)", ["SkewBoundary"],
      err("timestamp_in_future"), timestamp="2015360000",
      signature=mac(S, "2015360000", B).hex())
    v("wrong signature with a stale timestamp: the HMAC is checked before skew",
      ["OrderOfChecks", "Mismatch"], err("signature_mismatch"), signature=wrong[0].hex(),
      now=NOW + 10000)
    v("wrong signature with a future timestamp: signature_mismatch, not a skew code",
      ["OrderOfChecks", "Mismatch"], err("signature_mismatch"), signature=wrong[0].hex(),
      now=NOW - 10000)

    # --- tampering -------------------------------------------------------------------
    tampered = bytes([B[0] ^ 0x01]) + B[1:]
    v("body with one bit flipped (first byte)", ["Mismatch", "Tamper"],
      err("signature_mismatch"), body=tampered)
    tampered_end = B[:-1] + bytes([B[-1] ^ 0x80])
    v("body with the top bit of the last byte flipped", ["Mismatch", "Tamper"],
      err("signature_mismatch"), body=tampered_end)
    v("body with a trailing newline added", ["Mismatch", "Tamper"], err("signature_mismatch"),
      body=B + b"\n")
    v("re-serialized JSON body (spaces after ':' and ',')", ["Mismatch", "Tamper"],
      err("signature_mismatch"),
      body=json.dumps(json.loads(B)).encode())
    v("timestamp header changed by one second (within skew)", ["Mismatch", "Tamper"],
      err("signature_mismatch"), timestamp="1700000001")
    v("right MAC with its last hex digit changed", ["Mismatch", "Tamper"],
      err("signature_mismatch"), signature=H[:63] + ("0" if H[63] != "0" else "1"))
    v("signed with another secret", ["Mismatch", "Secret"], err("signature_mismatch"),
      signature=mac("whsec_other_secret", T, B).hex())
    sw_style = hmac.new(S.encode(), b"msg_1." + T.encode() + b"." + B, hashlib.sha256).digest()
    v("Standard Webhooks style MAC (id.timestamp.body) is not our scheme",
      ["Mismatch"], err("signature_mismatch"), signature="v1," + b64(sw_style))
    v("MAC over body + '.' + timestamp (wrong order)", ["Mismatch"], err("signature_mismatch"),
      signature=hmac.new(S.encode(), B + b"." + T.encode(), hashlib.sha256).hexdigest())

    # --- secrets ---------------------------------------------------------------------
    v("verifying secret has a trailing newline, signer's has not", ["Mismatch", "Secret",
      "WhitespaceSecret"], err("signature_mismatch"), secrets=S + "\n")
    v("verifying secret has a leading space (message hints at whitespace; code unchanged)",
      ["Mismatch", "Secret", "WhitespaceSecret"], err("signature_mismatch"), secrets=" " + S)
    v("secret with a trailing newline, used exactly as saved by both sides: ok",
      ["Valid", "Secret", "WhitespaceSecret"], OK, secrets=S + "\n",
      signature=mac(S + "\n", T, B).hex())
    v("secret without the whsec_ prefix: no prefix stripping", ["Mismatch", "Secret"],
      err("signature_mismatch"), secrets="test_secret")
    v("non-ASCII secret 's3crét' (NFC) over a plain body", ["Valid", "Secret", "Unicode"], OK,
      secrets="s3crét", signature=mac("s3crét", T, B).hex())
    v("NFD spelling of 's3crét' verifying a MAC made with the NFC spelling: no normalisation",
      ["Mismatch", "Secret", "Unicode"], err("signature_mismatch"), secrets="s3cre\u0301t",
      signature=mac("s3crét", T, B).hex())
    v("secrets that differ only in trailing zero bytes are one HMAC key (RFC 2104 pads a key "
      "with zero bytes): each verifies the other's signatures (docs/decisions.md, Equivalent keys)",
      ["Valid", "Secret"], OK, secrets=S + "\u0000", signature=mac(S, T, B).hex())
    v("secret longer than the SHA-256 block (100 bytes)", ["Valid", "Secret"], OK,
      secrets="k" * 100, signature=mac("k" * 100, T, B).hex())
    v("secret looking like base64 is used as text, not decoded", ["Valid", "Secret"], OK,
      secrets="whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      signature=mac("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", T, B).hex())
    v("empty secret string, well-formed signature", ["Secret", "Empty"], err("secret_empty", True),
      secrets="")
    v("array with one active entry whose secret is empty", ["Secret", "Empty"],
      err("secret_empty", True), secrets=[{"secret": "", "kind": "active"}])
    v("empty secret list", ["Secret", "Empty"], err("no_secrets", True), secrets=[])
    v("a pending entry with an empty secret beside a good active one",
      ["Secret", "Empty", "Rotation"], err("secret_empty", True),
      secrets=[{"secret": S, "kind": "active"}, {"secret": "", "kind": "pending"}])

    # --- order of checks ---------------------------------------------------------------
    v("empty timestamp and empty signature: timestamp checked first", ["OrderOfChecks"],
      err("timestamp_missing"), timestamp="", signature="")
    v("malformed timestamp and empty signature", ["OrderOfChecks"],
      err("timestamp_malformed"), timestamp="abc", signature="")
    v("empty signature and empty secret: signature checked before secrets",
      ["OrderOfChecks"], err("signature_missing"), signature="", secrets="")
    v("malformed signature and empty secret: signature_malformed", ["OrderOfChecks"],
      err("signature_malformed"), signature="v1=" + H[:62], secrets="")
    v("t= mismatch and no secrets: signature_malformed", ["OrderOfChecks"],
      err("signature_malformed"), signature="t=1,v1=" + H, secrets=[])
    v("9 candidates and no secrets: signature_malformed", ["OrderOfChecks", "CandidateLimit"],
      err("signature_malformed"), signature=" ".join(nine), secrets=[])
    v("empty secret list and empty timestamp: timestamp_missing (no_secrets comes later)",
      ["OrderOfChecks"], err("timestamp_missing"), secrets=[], timestamp="")
    v("two active entries (shape error) and an empty timestamp: invalid_argument first",
      ["OrderOfChecks", "InvalidArgument", "Rotation"], err("invalid_argument"),
      secrets=[{"secret": S, "kind": "active"}, {"secret": "x", "kind": "active"}],
      timestamp="")
    v("body over maxBodyBytes and an empty timestamp: body size first",
      ["OrderOfChecks", "BodySize"], err("body_too_large"), timestamp="",
      max_body=len(B) - 1)
    v("5 secret entries and a body over maxBodyBytes: invalid_argument first",
      ["OrderOfChecks", "InvalidArgument", "Rotation"], err("invalid_argument"),
      secrets=[{"secret": S, "kind": "active"}] + [{"secret": "p%d" % i, "kind": "pending"}
                                                    for i in range(4)],
      max_body=len(B) - 1)
    v("nowSecs negative and an empty timestamp: invalid_argument", ["OrderOfChecks",
      "InvalidArgument"], err("invalid_argument"), now=-1, timestamp="")

    # --- arguments ---------------------------------------------------------------------
    v("maxSkewSecs negative", ["InvalidArgument"], err("invalid_argument"), skew=-1)
    v("nowSecs negative", ["InvalidArgument"], err("invalid_argument"), now=-1)
    v("secret given as a number (not a string)", ["InvalidArgument", "WrongType"],
      err("invalid_argument"), secrets=[{"secret": 12345, "kind": "active"}])
    v("timestamp given as a number: the specific code beats invalid_argument",
      ["Malformed", "WrongType"], err("timestamp_malformed"), timestamp=1700000000)

    # --- body size ---------------------------------------------------------------------
    v("maxBodyBytes equal to the body length: ok", ["Valid", "BodySize"], OK,
      max_body=len(B))
    v("maxBodyBytes one less than the body length: too large", ["BodySize"],
      err("body_too_large"), max_body=len(B) - 1)
    v("body too large even with a bad signature: size is checked first", ["BodySize"],
      err("body_too_large"), max_body=1, signature="junk")
    v("maxBodyBytes 0: not a positive integer", ["BodySize", "InvalidArgument"],
      err("invalid_argument"), max_body=0)
    v("maxBodyBytes 0 with an empty body: still invalid_argument", ["BodySize",
      "InvalidArgument"], err("invalid_argument"), max_body=0, body=b"",
      signature=ANCHORS[1][2])
    v("maxBodyBytes 67108865 (64 MiB + 1): over the cap", ["BodySize", "InvalidArgument"],
      err("invalid_argument"), max_body=67108865)
    v("maxBodyBytes 67108864 (64 MiB): the cap itself is allowed", ["Valid", "BodySize"], OK,
      max_body=67108864)
    v("empty body with maxBodyBytes 1: ok", ["Valid", "BodySize", "EmptyBody"], OK,
      body=b"", signature=ANCHORS[1][2], max_body=1)
    v("empty body, MAC of a non-empty body: mismatch", ["Mismatch", "EmptyBody"],
      err("signature_mismatch"), body=b"")

    # --- rotation ----------------------------------------------------------------------
    other = "whsec_other_secret"
    old = "whsec_old_secret"
    new = "whsec_new_secret"
    mo = mac(old, T, B).hex()
    mn = mac(new, T, B).hex()
    v("array form with a single active entry", ["Valid", "Rotation"], OK,
      secrets=[{"secret": S, "kind": "active"}])
    v("signature by the pending secret: matchedSecret pending", ["Valid", "Rotation"],
      ok(matchedSecret="pending", timestamp=NOW), signature=mn,
      secrets=[{"secret": old, "kind": "active"}, {"secret": new, "kind": "pending"}])
    v("signature by the active secret while a pending one exists", ["Valid", "Rotation"],
      ok(matchedSecret="active", timestamp=NOW), signature=mo,
      secrets=[{"secret": old, "kind": "active"}, {"secret": new, "kind": "pending"}])
    v("signature by the retiring secret within its overlap", ["Valid", "Rotation"],
      ok(matchedSecret="retiring", timestamp=NOW), signature=mo,
      secrets=[{"secret": new, "kind": "active"},
               {"secret": old, "kind": "retiring", "acceptUntilSecs": NOW + 3600}])
    v("retiring secret with acceptUntilSecs equal to now: ok (inclusive)",
      ["Valid", "Rotation", "RotationBoundary"], ok(matchedSecret="retiring", timestamp=NOW),
      signature=mo, secrets=[{"secret": new, "kind": "active"},
                             {"secret": old, "kind": "retiring", "acceptUntilSecs": NOW}])
    v("retiring secret one second past acceptUntilSecs: overlap ended",
      ["Rotation", "RotationBoundary"], err("signature_mismatch"), signature=mo,
      secrets=[{"secret": new, "kind": "active"},
               {"secret": old, "kind": "retiring", "acceptUntilSecs": NOW - 1}])
    v("expired retiring secret with a stale timestamp: mismatch, never a skew code",
      ["Rotation", "OrderOfChecks"], err("signature_mismatch"), signature=mo, now=NOW + 1000,
      secrets=[{"secret": new, "kind": "active"},
               {"secret": old, "kind": "retiring", "acceptUntilSecs": NOW}])
    v("retiring secret within the overlap but a stale timestamp: too old",
      ["Rotation", "SkewBoundary"], err("timestamp_too_old"), signature=mo, now=NOW + 301,
      secrets=[{"secret": new, "kind": "active"},
               {"secret": old, "kind": "retiring", "acceptUntilSecs": NOW + 3600}])
    v("the same secret as active and pending: reports active", ["Valid", "Rotation"],
      ok(matchedSecret="active", timestamp=NOW),
      secrets=[{"secret": S, "kind": "pending"}, {"secret": S, "kind": "active"}])
    v("the same secret as pending and retiring: reports pending", ["Valid", "Rotation"],
      ok(matchedSecret="pending", timestamp=NOW),
      secrets=[{"secret": other, "kind": "active"},
               {"secret": S, "kind": "retiring", "acceptUntilSecs": NOW + 10},
               {"secret": S, "kind": "pending"}])
    v("two candidates, one by the pending and one by the active secret: reports active",
      ["Valid", "Rotation", "MultipleCandidates"], ok(matchedSecret="active", timestamp=NOW),
      signature="v1=%s v1=%s" % (mn, mo),
      secrets=[{"secret": old, "kind": "active"}, {"secret": new, "kind": "pending"}])
    v("4 entries (the maximum), signature by the second pending secret",
      ["Valid", "Rotation"], ok(matchedSecret="pending", timestamp=NOW), signature=mn,
      secrets=[{"secret": other, "kind": "active"}, {"secret": "whsec_p1", "kind": "pending"},
               {"secret": new, "kind": "pending"},
               {"secret": old, "kind": "retiring", "acceptUntilSecs": NOW + 60}])
    v("no entry matches", ["Rotation", "Mismatch"], err("signature_mismatch"),
      secrets=[{"secret": old, "kind": "active"}, {"secret": new, "kind": "pending"}])
    v("5 entries", ["Rotation", "InvalidArgument"], err("invalid_argument"),
      secrets=[{"secret": S, "kind": "active"}] + [{"secret": "p%d" % i, "kind": "pending"}
                                                    for i in range(4)])
    v("two active entries", ["Rotation", "InvalidArgument"], err("invalid_argument"),
      secrets=[{"secret": S, "kind": "active"}, {"secret": other, "kind": "active"}])
    v("no active entry (pending only)", ["Rotation", "InvalidArgument"],
      err("invalid_argument"), secrets=[{"secret": S, "kind": "pending"}])
    v("retiring entry without acceptUntilSecs", ["Rotation", "InvalidArgument"],
      err("invalid_argument"),
      secrets=[{"secret": other, "kind": "active"}, {"secret": S, "kind": "retiring"}])
    v("acceptUntilSecs on the active entry", ["Rotation", "InvalidArgument"],
      err("invalid_argument"),
      secrets=[{"secret": S, "kind": "active", "acceptUntilSecs": NOW + 60}])
    v("acceptUntilSecs on a pending entry", ["Rotation", "InvalidArgument"],
      err("invalid_argument"),
      secrets=[{"secret": other, "kind": "active"},
               {"secret": S, "kind": "pending", "acceptUntilSecs": NOW + 60}])
    v("negative acceptUntilSecs on a retiring entry", ["Rotation", "InvalidArgument"],
      err("invalid_argument"),
      secrets=[{"secret": other, "kind": "active"},
               {"secret": S, "kind": "retiring", "acceptUntilSecs": -1}])
    v("unknown kind 'expired'", ["Rotation", "InvalidArgument"], err("invalid_argument"),
      secrets=[{"secret": S, "kind": "active"}, {"secret": other, "kind": "expired"}])
    v("kind 'Active' (case matters)", ["Rotation", "InvalidArgument"], err("invalid_argument"),
      secrets=[{"secret": S, "kind": "Active"}])
    v("entry without a secret member", ["Rotation", "InvalidArgument"],
      err("invalid_argument"), secrets=[{"kind": "active"}])

    # --- verifyWebhook -----------------------------------------------------------------
    def w(comment, flags, expected, body, **kw):
        if "signature" not in kw:
            kw["signature"] = mac(kw.get("secrets", S), kw.get("timestamp", T), body).hex()
        return v(comment, flags, expected, body=body, function="verifyWebhook", **kw)

    w("valid payment.updated event", ["Valid", "Webhook"],
      ok(matchedSecret="active", timestamp=NOW, event=VALID_EVENT_EXPECTED), VALID_EVENT)
    w("valid event signed by the pending secret, base64 signature", ["Valid", "Webhook",
      "Rotation"], ok(matchedSecret="pending", timestamp=NOW, event=VALID_EVENT_EXPECTED),
      VALID_EVENT, signature="v1," + b64(mac(new, T, VALID_EVENT)),
      secrets=[{"secret": old, "kind": "active"}, {"secret": new, "kind": "pending"}])
    big_version = data_obj(status_version="9007199254740993")
    w("valid event with status_version 2^53+1 as a number: exact decimal string",
      ["Valid", "Webhook", "StatusVersion"],
      ok(matchedSecret="active", timestamp=NOW,
         event=event(status_version="9007199254740993")),
      envelope(data=big_version).encode())
    w("valid signature over a non-JSON body", ["Webhook", "Envelope"], err("event_not_json"),
      b"payment updated")
    w("valid signature over an empty body (anchor vector 2)", ["Webhook", "Envelope",
      "EmptyBody"], err("event_not_json"), b"")
    w("valid signature over invalid UTF-8 (anchor vector 4)", ["Webhook", "Envelope",
      "InvalidUtf8"], err("event_not_json"), ANCHOR_BODY_4)
    w("valid signature over anchor body 1 (no occurred_at, no data)", ["Webhook", "Envelope"],
      err("event_malformed"), ANCHOR_BODY_1)
    w("valid signature over an event with event_type payment.created", ["Webhook",
      "Envelope"], err("event_type_unknown"),
      envelope(event_type='"payment.created"').encode())
    w("valid signature over an event with a duplicate key", ["Webhook", "Envelope"],
      err("event_duplicate_key"),
      envelope(extra=(("event_id", '"evt_2"'),)).encode())
    w("valid signature over an event with status_version '01'", ["Webhook", "Envelope",
      "StatusVersion"], err("status_version_invalid"),
      envelope(data=data_obj(status_version='"01"')).encode())
    w("bad signature over a valid event", ["Webhook", "Mismatch"], err("signature_mismatch"),
      VALID_EVENT, signature=mac(other, T, VALID_EVENT).hex())
    w("authentic valid event with a stale timestamp: too old before parsing",
      ["Webhook", "SkewBoundary"], err("timestamp_too_old"), VALID_EVENT, now=NOW + 301)
    w("authentic non-JSON body with a future timestamp: skew is checked before the envelope",
      ["Webhook", "OrderOfChecks"], err("timestamp_in_future"), b"not json", now=NOW - 301)

    # --- whose fault: the receiver's own refusals (answered 5xx, retried) ---------------
    until_now = [{"secret": new, "kind": "active"},
                 {"secret": old, "kind": "retiring", "acceptUntilSecs": NOW}]
    v("retiring secret: signed inside its overlap (at acceptUntilSecs), arrived 10 s after it "
      "ended: in flight at the switch, the receiver's (the service's retry is signed with the "
      "active secret)", ["Rotation", "ReceiverFault"], err("signature_mismatch", True),
      signature=mo, now=NOW + 10, secrets=until_now)
    v("retiring secret: signed 1 s after its overlap ended: the old secret used after it, the "
      "sender's", ["Rotation", "ReceiverFault"], err("signature_mismatch", False),
      signature=mo, secrets=[{"secret": new, "kind": "active"},
                             {"secret": old, "kind": "retiring", "acceptUntilSecs": NOW - 1}])
    v("retiring secret: signed inside its overlap but stale (301 s): the sender's",
      ["Rotation", "ReceiverFault"], err("signature_mismatch", False), signature=mo,
      now=NOW + 301, secrets=until_now)
    v("a secret saved with a trailing newline: no delivery verifies, the receiver's",
      ["Mismatch", "ReceiverFault"], err("signature_mismatch", True), secrets=S + "\n")
    v("a secret saved in quotes (an env file kept them): the receiver's",
      ["Mismatch", "ReceiverFault"], err("signature_mismatch", True), secrets='"%s"' % S)
    v("nowSecs in milliseconds: every delivery looks old, the receiver's",
      ["SkewBoundary", "ReceiverFault"], err("timestamp_too_old", True), now=NOW * 1000)
    v("nowSecs 0 (a clock that failed or was never set): every delivery looks to come from the "
      "future, the receiver's", ["SkewBoundary", "ReceiverFault"],
      err("timestamp_in_future", True), now=0)
    v("nowSecs 999999999, the last second before September 2001: still the receiver's clock",
      ["SkewBoundary", "ReceiverFault"], err("timestamp_in_future", True), now=999999999)
    v("an authentic delivery from the future (301 s): no replay is ahead of the clock, so this "
      "host's clock is behind or the service's ahead: the receiver's (retried once they agree)",
      ["SkewBoundary", "ReceiverFault"], err("timestamp_in_future", True), now=NOW - 301)
    v("the two header values swapped (the timestamp holds the signature): the receiver's",
      ["Timestamp", "ReceiverFault"], err("timestamp_malformed", True),
      timestamp="v1=" + H, signature=T)
    v("a forged signature: the sender's", ["Mismatch", "ReceiverFault"],
      err("signature_mismatch", False), signature=wrong[0].hex())
    v("a stale delivery (301 s): the sender's", ["SkewBoundary", "ReceiverFault"],
      err("timestamp_too_old", False), now=NOW + 301)
    v("a timestamp in milliseconds from the sender: the sender's",
      ["Timestamp", "ReceiverFault"], err("timestamp_malformed", False),
      timestamp=T + "000")
    v("a timestamp that only reads as a signature (a made-up tag, not the delivery's): the "
      "sender's, so that no sender makes a refusal 5xx without the secret",
      ["Timestamp", "ReceiverFault"], err("timestamp_malformed", False),
      timestamp="v1=" + "0" * 64, signature=T)
    v("the two header values swapped, the tag of another secret: the sender's",
      ["Timestamp", "ReceiverFault"], err("timestamp_malformed", False),
      timestamp="v1=" + wrong[0].hex(), signature=T)
    v("nowSecs in milliseconds during a rotation, a delivery the retiring secret signed inside "
      "its overlap: the receiver's clock (past the bound only in milliseconds), never the final "
      "refusal of an ended overlap", ["Rotation", "SkewBoundary", "ReceiverFault"],
      err("timestamp_too_old", True), signature=mo, now=NOW * 1000,
      secrets=[{"secret": new, "kind": "active"},
               {"secret": old, "kind": "retiring", "acceptUntilSecs": NOW + 3600}])
    return f


# --------------------------------------------------------------------------------------
# 3. sign.json
# --------------------------------------------------------------------------------------

def build_sign():
    f = VectorFile(
        "sign.json", "signWebhook",
        "signWebhook: HMAC-SHA256 over timestamp + '.' + body, key = UTF-8 bytes of the secret; "
        "lowercase hex by default, padded standard base64 with encoding 'base64'. Values "
        "computed by Python; the anchor rows are cross-checked with stripe-node.")
    for secret, body, h, b, desc in ANCHORS:
        f.add("anchor vector (%s), default encoding: lowercase hex" % desc, ["Valid", "Anchor"],
              ok(signature=h), secret=secret, timestamp=ANCHOR_TS, bodyHex=hexs(body))
    secret, body, h, b, desc = ANCHORS[0]
    f.add("anchor vector 1 with encoding 'hex' given explicitly", ["Valid", "Anchor"],
          ok(signature=h), secret=secret, timestamp=ANCHOR_TS, bodyHex=hexs(body),
          encoding="hex")
    for secret, body, h, b, desc in (ANCHORS[2], ANCHORS[3]):
        f.add("anchor vector (%s), encoding 'base64': padded standard base64" % desc,
              ["Valid", "Anchor", "Base64"], ok(signature=b), secret=secret,
              timestamp=ANCHOR_TS, bodyHex=hexs(body), encoding="base64")
    data, _h, _d = STRIPE_KATS[2]
    f.add("stripe known-answer data (emoji) with key 'test_secret', timestamp 1700000000",
          ["Valid", "StripeKAT"], ok(signature=mac(STRIPE_KEY, ANCHOR_TS, data).hex()),
          secret=STRIPE_KEY, timestamp=ANCHOR_TS, bodyHex=hexs(data))
    f.add("timestamp with a leading zero is signed as given, not re-formatted",
          ["Valid", "LeadingZero"], ok(signature=mac(ANCHOR_SECRET, "01700000000", VALID_EVENT).hex()),
          secret=ANCHOR_SECRET, timestamp="01700000000", bodyHex=hexs(VALID_EVENT))
    return f


# --------------------------------------------------------------------------------------
# 4. read_headers.json
# --------------------------------------------------------------------------------------

def build_read_headers():
    f = VectorFile(
        "read_headers.json", "readDeliveryHeaders",
        "readDeliveryHeaders with headers given as an ordered array of [name, value] pairs "
        "(a container that keeps duplicates apart). Names match case-insensitively; a name "
        "present twice in any case mix is header_duplicated; absent is timestamp_missing / "
        "signature_missing, the timestamp header checked first. Values are returned as given.")
    TH, SH = "X-CryptoPay-Timestamp", "X-CryptoPay-Signature"
    sig = "v1=" + ANCHORS[0][2]

    def r(comment, flags, expected, headers, th=TH, sh=SH):
        f.add(comment, flags, expected, headers=headers, timestampHeader=th, signatureHeader=sh)

    r("both headers with the configured spelling", ["Valid"],
      ok(timestamp=ANCHOR_TS, signature=sig), [[TH, ANCHOR_TS], [SH, sig]])
    r("names in lowercase, as Node and Fetch deliver them", ["Valid", "HeaderCase"],
      ok(timestamp=ANCHOR_TS, signature=sig),
      [["x-cryptopay-timestamp", ANCHOR_TS], ["x-cryptopay-signature", sig]])
    r("names in uppercase, configured names in mixed case", ["Valid", "HeaderCase"],
      ok(timestamp=ANCHOR_TS, signature=sig),
      [["X-CRYPTOPAY-SIGNATURE", sig], ["X-CRYPTOPAY-TIMESTAMP", ANCHOR_TS]])
    r("configured names given in lowercase, headers in mixed case", ["Valid", "HeaderCase"],
      ok(timestamp=ANCHOR_TS, signature=sig), [[TH, ANCHOR_TS], [SH, sig]],
      th=TH.lower(), sh=SH.lower())
    r("other headers (one of them repeated) are ignored", ["Valid"],
      ok(timestamp=ANCHOR_TS, signature=sig),
      [["Content-Type", "application/json"], ["Accept", "*/*"], ["accept", "text/plain"],
       [TH, ANCHOR_TS], ["User-Agent", "x"], [SH, sig]])
    r("a merged value is returned unchanged (verification decides later)", ["Valid"],
      ok(timestamp=ANCHOR_TS, signature=sig + ", v1=" + "0" * 64),
      [[TH, ANCHOR_TS], [SH, sig + ", v1=" + "0" * 64]])
    r("timestamp header absent", ["Missing"], err("timestamp_missing"), [[SH, sig]])
    r("signature header absent", ["Missing"], err("signature_missing"), [[TH, ANCHOR_TS]])
    r("no headers at all: timestamp checked first", ["Missing", "OrderOfChecks"],
      err("timestamp_missing"), [])
    r("a header whose name only resembles the timestamp name", ["Missing"],
      err("timestamp_missing"), [["X-CryptoPay-Timestamps", ANCHOR_TS], [SH, sig]])
    r("timestamp header twice with the same spelling", ["Duplicate"], err("header_duplicated"),
      [[TH, ANCHOR_TS], [SH, sig], [TH, ANCHOR_TS]])
    r("timestamp header twice, names differing in case", ["Duplicate", "HeaderCase"],
      err("header_duplicated"), [[TH, ANCHOR_TS], ["x-cryptopay-timestamp", "1700000001"],
                                 [SH, sig]])
    r("signature header twice, names differing in case", ["Duplicate", "HeaderCase"],
      err("header_duplicated"), [[TH, ANCHOR_TS], [SH, sig], [SH.upper(), sig]])
    r("timestamp duplicated and signature absent: the timestamp header is checked first",
      ["Duplicate", "OrderOfChecks"], err("header_duplicated"),
      [[TH, ANCHOR_TS], [TH, ANCHOR_TS]])
    r("timestamp absent and signature duplicated: timestamp_missing first",
      ["Missing", "OrderOfChecks"], err("timestamp_missing"), [[SH, sig], [SH, sig]])
    return f


# --------------------------------------------------------------------------------------
# 5. event.json
# --------------------------------------------------------------------------------------

def build_event():
    f = VectorFile(
        "event.json", "parseEvent",
        "parseEvent over candidate envelopes (bodyHex, UTF-8 JSON). Order: event_not_json "
        "(syntax, invalid UTF-8, BOM, nesting over 128) -> event_duplicate_key (any depth; "
        "below the top level, event_type_unknown first when event_type is another string) -> "
        "top level not an object -> event_type missing/not a string -> event_type_unknown -> "
        "schema_version, event_id, occurred_at, data, data.payment_id (event_malformed) -> "
        "data.status_version missing (event_malformed) or invalid (status_version_invalid). "
        "The expected event lists schemaVersion, eventId, eventType, occurredAt, paymentId, "
        "statusVersion; runners compare these fields (the event also carries data/envelope).")

    def e(comment, flags, expected, body):
        f.add(comment, flags, expected, bodyHex=hexs(body))

    e("valid minimal event", ["Valid"], ok(event=event()), envelope())
    e("unknown top-level and data fields are kept, never an error", ["Valid", "UnknownFields"],
      ok(event=event()),
      envelope(data=data_obj(extra=(("status", '"open"'), ("amount", '{"raw":"12800"}'))),
               extra=(("delivery_attempt", "2"), ("x_future", "[1,2,3]"))))
    e("members in another order, whitespace between tokens", ["Valid"], ok(event=event()),
      '{\n  "data": {"status_version": "42", "payment_id": "pay_1"},\n  "occurred_at": '
      '"2023-11-14T22:13:20Z",\n  "event_type": "payment.updated",\n  "event_id": "evt_1",\n'
      '  "schema_version": 1\n}\n')
    e("schema_version as a string", ["Valid", "SchemaVersion"],
      ok(event=event(schema_version="2024-01")), envelope(schema_version='"2024-01"'))
    e("schema_version as integer 0", ["Valid", "SchemaVersion"],
      ok(event=event(schema_version="0")), envelope(schema_version="0"))
    e("schema_version as a huge integer: exposed as its exact decimal text",
      ["Valid", "SchemaVersion", "BigNumber"],
      ok(event=event(schema_version="123456789012345678901234567890")),
      envelope(schema_version="123456789012345678901234567890"))
    e("schema_version negative", ["Malformed", "SchemaVersion"], err("event_malformed"),
      envelope(schema_version="-1"))
    e("schema_version fractional", ["Malformed", "SchemaVersion"], err("event_malformed"),
      envelope(schema_version="1.5"))
    e("schema_version with an exponent", ["Malformed", "SchemaVersion"],
      err("event_malformed"), envelope(schema_version="1e0"))
    e("schema_version missing", ["Malformed", "SchemaVersion"], err("event_malformed"),
      envelope(schema_version=OMIT))
    e("status_version as a JSON number", ["Valid", "StatusVersion"],
      ok(event=event(status_version="42")), envelope(data=data_obj(status_version="42")))
    e("status_version 0 as a string", ["Valid", "StatusVersion"],
      ok(event=event(status_version="0")), envelope(data=data_obj(status_version='"0"')))
    e("status_version 2^64+1 as a number: exact decimal text, never a float",
      ["Valid", "StatusVersion", "BigNumber"],
      ok(event=event(status_version="18446744073709551617")),
      envelope(data=data_obj(status_version="18446744073709551617")))
    e("status_version 2^53+1 as a number: exact (a float would give ...992)",
      ["Valid", "StatusVersion", "BigNumber"],
      ok(event=event(status_version="9007199254740993")),
      envelope(data=data_obj(status_version="9007199254740993")))
    e("status_version 2^64+1 as a string", ["Valid", "StatusVersion", "BigNumber"],
      ok(event=event(status_version="18446744073709551617")),
      envelope(data=data_obj(status_version='"18446744073709551617"')))
    for raw, why in [('"007"', "a string with leading zeros"), ("-1", "negative"),
                     ("1.5", "fractional"), ("1.0", "a number with a zero fraction"),
                     ("1e3", "an exponent"), ('""', "an empty string"),
                     ('"1.0"', "the string 1.0"), ('"-1"', "a signed string"),
                     ('" 1"', "a string with a space"), ("true", "a boolean"),
                     ("null", "null"), ('{"v":1}', "an object")]:
        e("status_version %s" % why, ["StatusVersion"], err("status_version_invalid"),
          envelope(data=data_obj(status_version=raw)))
    e("status_version missing", ["Malformed", "StatusVersion"], err("event_malformed"),
      envelope(data=data_obj(status_version=OMIT)))
    e("status_version as a JSON number with a leading zero: not JSON at all",
      ["NotJson", "StatusVersion"], err("event_not_json"),
      envelope(data=data_obj(status_version="042")))
    e("payment_id missing", ["Malformed"], err("event_malformed"),
      envelope(data=data_obj(payment_id=OMIT)))
    e("payment_id empty", ["Malformed"], err("event_malformed"),
      envelope(data=data_obj(payment_id='""')))
    e("payment_id a number", ["Malformed"], err("event_malformed"),
      envelope(data=data_obj(payment_id="1")))
    e("payment_id missing and status_version invalid: payment_id is checked first",
      ["Malformed", "OrderOfChecks"], err("event_malformed"),
      envelope(data=data_obj(payment_id=OMIT, status_version='"01"')))
    e("event_id missing", ["Malformed"], err("event_malformed"), envelope(event_id=OMIT))
    e("event_id empty", ["Malformed"], err("event_malformed"), envelope(event_id='""'))
    e("event_id a number", ["Malformed"], err("event_malformed"), envelope(event_id="1"))
    e("event_type missing", ["Malformed"], err("event_malformed"), envelope(event_type=OMIT))
    e("event_type a number", ["Malformed"], err("event_malformed"), envelope(event_type="1"))
    e("event_type payment.created", ["EventType"], err("event_type_unknown"),
      envelope(event_type='"payment.created"'))
    e("event_type payment.created with data missing: event_type_unknown before data checks",
      ["EventType", "OrderOfChecks"], err("event_type_unknown"),
      envelope(event_type='"payment.created"', data=OMIT))
    e("unknown event_type with an invalid schema_version: event_type_unknown first",
      ["EventType", "OrderOfChecks"], err("event_type_unknown"),
      envelope(event_type='"payment.created"', schema_version="-1"))
    e("event_type in another case", ["EventType"], err("event_type_unknown"),
      envelope(event_type='"PAYMENT.UPDATED"'))
    e("occurred_at as a string in another format: exposed as given, never interpreted",
      ["Valid", "OccurredAt"], ok(event=event(occurred_at="2023-11-15 07:13:20.123+09:00")),
      envelope(occurred_at='"2023-11-15 07:13:20.123+09:00"'))
    e("occurred_at as a number", ["Valid", "OccurredAt"], ok(event=event(occurred_at=1700000000)),
      envelope(occurred_at="1700000000"))
    e("occurred_at a number JS cannot hold exactly: its decimal text",
      ["Valid", "OccurredAt", "BigNumber"],
      ok(event=event(occurred_at="18446744073709551617")),
      envelope(occurred_at="18446744073709551617"))
    e("occurred_at missing", ["Malformed", "OccurredAt"], err("event_malformed"),
      envelope(occurred_at=OMIT))
    e("occurred_at a boolean", ["Malformed", "OccurredAt"], err("event_malformed"),
      envelope(occurred_at="true"))
    e("data missing", ["Malformed"], err("event_malformed"), envelope(data=OMIT))
    e("data an array", ["Malformed"], err("event_malformed"), envelope(data="[]"))
    e("data a string", ["Malformed"], err("event_malformed"), envelope(data='"pay_1"'))
    e("data null", ["Malformed"], err("event_malformed"), envelope(data="null"))
    e("top level an array", ["Malformed"], err("event_malformed"), "[" + envelope() + "]")
    e("top level a string", ["Malformed"], err("event_malformed"), '"payment.updated"')
    e("top level null", ["Malformed"], err("event_malformed"), "null")
    e("not JSON", ["NotJson"], err("event_not_json"), "payment.updated pay_1")
    e("empty body", ["NotJson", "EmptyBody"], err("event_not_json"), b"")
    e("whitespace only", ["NotJson"], err("event_not_json"), " \n")
    e("truncated JSON", ["NotJson"], err("event_not_json"), envelope()[:-1])
    e("trailing garbage after the object", ["NotJson"], err("event_not_json"),
      envelope() + "x")
    e("trailing newline after the object is fine", ["Valid"], ok(event=event()),
      envelope() + "\n")
    e("invalid UTF-8 inside a string", ["NotJson", "InvalidUtf8"], err("event_not_json"),
      envelope(event_id='"evt_1"').encode().replace(b"evt_1", b"evt_\xff"))
    e("UTF-8 BOM before a valid object", ["NotJson", "Bom"], err("event_not_json"),
      b"\xef\xbb\xbf" + envelope().encode())
    e("nesting depth 202 inside data", ["NotJson", "Depth"], err("event_not_json"),
      envelope(data=data_obj(extra=(("deep", "[" * 200 + "]" * 200),))))
    e("nesting depth 62 inside data is fine", ["Valid", "Depth"], ok(event=event()),
      envelope(data=data_obj(extra=(("deep", "[" * 60 + "]" * 60),))))
    e("duplicate key at the top level", ["DuplicateKey"], err("event_duplicate_key"),
      envelope(extra=(("event_id", '"evt_2"'),)))
    e("duplicate key in data", ["DuplicateKey"], err("event_duplicate_key"),
      envelope(data=data_obj(extra=(("payment_id", '"pay_2"'),))))
    e("duplicate key deep inside data", ["DuplicateKey"], err("event_duplicate_key"),
      envelope(data=data_obj(extra=(("meta", '{"a":{"b":[{"k":1,"k":1}]}}'),))))
    e("duplicate key spelled with a \\u escape (same key after unescaping)", ["DuplicateKey"],
      err("event_duplicate_key"),
      envelope(extra=(("x", "1"),)).replace('"x":1', '"event\\u005fid":"evt_1"'))
    e("duplicate key with an unknown event_type: duplicates are found first",
      ["DuplicateKey", "OrderOfChecks"], err("event_duplicate_key"),
      envelope(event_type='"payment.created"', extra=(("event_type", '"payment.created"'),)))
    e("duplicate key inside data of an event of an unknown type: event_type_unknown, since "
      "nothing inside data is looked at for it",
      ["DuplicateKey", "OrderOfChecks"], err("event_type_unknown"),
      envelope(event_type='"payment.created"', data=data_obj(extra=(("payment_id", '"pay_2"'),))))
    e("duplicate key and a top-level array: duplicates are found first",
      ["DuplicateKey", "OrderOfChecks"], err("event_duplicate_key"), '[{"a":1,"a":2}]')
    e("non-ASCII text inside data is fine", ["Valid", "Unicode"], ok(event=event()),
      envelope(data=data_obj(extra=(("note", J("€ 😀")),))))
    return f


# --------------------------------------------------------------------------------------
# 6. status.json
# --------------------------------------------------------------------------------------

def build_status():
    f = VectorFile(
        "status.json", "compareStatusVersions",
        "compareStatusVersions (exact comparison of non-negative decimal integers of any size, "
        "by length then digits) and decideEvent (duplicate when eventSeen; apply when no "
        "version is stored or the incoming one is greater; otherwise stale).",
        per_row_function=True)

    def c(comment, flags, expected, a, b):
        f.add(comment, flags, expected, function="compareStatusVersions", a=a, b=b)

    c("lower", ["Valid"], ok(result=-1), "1", "2")
    c("greater", ["Valid"], ok(result=1), "2", "1")
    c("equal", ["Valid"], ok(result=0), "42", "42")
    c("zero equal", ["Valid"], ok(result=0), "0", "0")
    c("0 lower than 1", ["Valid"], ok(result=-1), "0", "1")
    c("10 greater than 9 (numeric, not lexicographic)", ["Valid"], ok(result=1), "10", "9")
    c("9 lower than 10", ["Valid"], ok(result=-1), "9", "10")
    c("2^53+1 greater than 2^53 (a float would say equal)", ["Valid", "BigNumber"],
      ok(result=1), "9007199254740993", "9007199254740992")
    c("2^64 greater than 2^64-1", ["Valid", "BigNumber"], ok(result=1),
      "18446744073709551616", "18446744073709551615")
    big = "9" * 100
    c("100-digit values, equal", ["Valid", "BigNumber"], ok(result=0), big, big)
    c("100-digit values differing in the last digit", ["Valid", "BigNumber"], ok(result=-1),
      big[:-1] + "8", big)
    for a, b, why in [("01", "1", "leading zero"), ("-1", "1", "negative"),
                      ("1.5", "1", "fraction"), ("", "1", "empty"),
                      ("1", "", "empty b"), (" 1", "1", "leading space"),
                      ("1e3", "1000", "exponent"), ("+1", "1", "plus sign"),
                      ("１", "1", "full-width digit"), ("1", "00", "b with leading zeros")]:
        c("invalid version (%s)" % why, ["StatusVersion"], err("status_version_invalid"), a, b)

    def d(comment, flags, expected, incoming, stored):
        f.add(comment, flags, expected, function="decideEvent", incoming=incoming, stored=stored)

    def inc(v, eid="evt_2"):
        return {"eventId": eid, "paymentId": "pay_1", "statusVersion": v}

    d("first event for the payment: nothing stored", ["Valid"], ok(decision="apply"),
      inc("1"), {"eventSeen": False})
    d("greater version", ["Valid"], ok(decision="apply"), inc("43"),
      {"eventSeen": False, "statusVersion": "42"})
    d("equal version (a different event with the same facts)", ["Valid"],
      ok(decision="stale"), inc("42"), {"eventSeen": False, "statusVersion": "42"})
    d("lower version", ["Valid"], ok(decision="stale"), inc("41"),
      {"eventSeen": False, "statusVersion": "42"})
    d("event already seen, even with a greater version", ["Valid"], ok(decision="duplicate"),
      inc("99"), {"eventSeen": True, "statusVersion": "42"})
    d("event already seen, no version stored", ["Valid"], ok(decision="duplicate"),
      inc("1"), {"eventSeen": True})
    d("10 after 9: numeric comparison", ["Valid"], ok(decision="apply"), inc("10"),
      {"eventSeen": False, "statusVersion": "9"})
    d("2^53+1 after 2^53: exact", ["Valid", "BigNumber"], ok(decision="apply"),
      inc("9007199254740993"), {"eventSeen": False, "statusVersion": "9007199254740992"})
    d("2^53 after 2^53+1: stale", ["Valid", "BigNumber"], ok(decision="stale"),
      inc("9007199254740992"), {"eventSeen": False, "statusVersion": "9007199254740993"})
    d("version 0 with nothing stored", ["Valid"], ok(decision="apply"), inc("0"),
      {"eventSeen": False})
    d("invalid incoming version (leading zero)", ["StatusVersion"],
      err("status_version_invalid"), inc("043"), {"eventSeen": False, "statusVersion": "42"})
    d("invalid incoming version (empty)", ["StatusVersion"], err("status_version_invalid"),
      inc(""), {"eventSeen": False})
    d("invalid stored version", ["StatusVersion"], err("status_version_invalid"), inc("43"),
      {"eventSeen": False, "statusVersion": "4.2"})
    return f


# --------------------------------------------------------------------------------------
# 7. amount.json
# --------------------------------------------------------------------------------------

U256_MAX = str(2**256 - 1)
assert U256_MAX == ("115792089237316195423570985008687907853269984665640564039457584007913129639935")
assert len(U256_MAX) == 78


def build_amount():
    f = VectorFile(
        "amount.json", "validateAmountRaw",
        "amount_raw is ^[1-9][0-9]*$ and at most 2^256-1 (78 digits). toAmountRaw converts a "
        "decimal (digits or digits.digits) with exact string arithmetic: extra fractional "
        "digits must be zeros (else amount_too_precise), a zero result is amount_raw_invalid. "
        "fromAmountRaw writes exactly `decimals` fractional digits. decimals is 0 to 77.",
        per_row_function=True)

    def va(comment, flags, expected, value):
        f.add(comment, flags, expected, function="validateAmountRaw", value=value)

    def to(comment, flags, expected, decimal, decimals):
        f.add(comment, flags, expected, function="toAmountRaw", decimal=decimal,
              decimals=decimals)

    def fr(comment, flags, expected, raw, decimals):
        f.add(comment, flags, expected, function="fromAmountRaw", amountRaw=raw,
              decimals=decimals)

    va("1: the smallest valid amount", ["Valid"], ok(), "1")
    va("12800", ["Valid"], ok(), "12800")
    va("2^256-1 (78 digits): the largest", ["Valid", "Boundary"], ok(), U256_MAX)
    va("2^256: one over the maximum", ["Boundary"], err("amount_raw_invalid"), str(2**256))
    va("79 digits", ["Boundary"], err("amount_raw_invalid"), "1" + "0" * 78)
    for value, why in [("", "empty"), ("0", "zero"), ("00", "double zero"),
                       ("01", "leading zero"), ("+1", "plus sign"), ("-1", "negative"),
                       ("1.0", "decimal point"), ("1e3", "exponent"), (" 1", "leading space"),
                       ("1 ", "trailing space"), ("1_000", "underscore"),
                       ("１２", "full-width digits"), ("٣", "Arabic-Indic digit"),
                       ("0x10", "hex"), ("1\u0000", "NUL suffix"), ("1,000", "comma")]:
        va("%s is not an amount_raw" % why, ["Invalid"], err("amount_raw_invalid"), value)
    va("amount given as a number: amount_raw_invalid, not invalid_argument",
       ["Invalid", "WrongType"], err("amount_raw_invalid"), 12800)

    to("DESIGN example: 128.00 with 2 decimals", ["Valid", "DesignExample"],
       ok(amountRaw="12800"), "128.00", 2)
    to("DESIGN example: 128 with 2 decimals", ["Valid", "DesignExample"],
       ok(amountRaw="12800"), "128", 2)
    to("DESIGN example: 1.000 with 2 decimals (extra zeros are fine)",
       ["Valid", "DesignExample"], ok(amountRaw="100"), "1.000", 2)
    to("DESIGN example: 1.005 with 2 decimals is never rounded",
       ["DesignExample", "Precision"], err("amount_too_precise"), "1.005", 2)
    to("0.05 with 2 decimals", ["Valid"], ok(amountRaw="5"), "0.05", 2)
    to("leading zeros in the decimal are fine", ["Valid"], ok(amountRaw="12800"), "00128.00", 2)
    to("0.50 with 2 decimals", ["Valid"], ok(amountRaw="50"), "0.50", 2)
    to("1.5 with 6 decimals (USDC)", ["Valid"], ok(amountRaw="1500000"), "1.5", 6)
    to("1 with 18 decimals", ["Valid"], ok(amountRaw="1" + "0" * 18), "1", 18)
    to("0.001 with 2 decimals: non-zero digit beyond the precision", ["Precision"],
       err("amount_too_precise"), "0.001", 2)
    to("decimals 0: integer stays as is", ["Valid", "Boundary"], ok(amountRaw="5"), "5", 0)
    to("decimals 0 with a zero fraction", ["Valid", "Boundary"], ok(amountRaw="5"), "5.00", 0)
    to("decimals 0 with a non-zero fraction", ["Precision", "Boundary"],
       err("amount_too_precise"), "5.5", 0)
    to("decimals 77: 1 becomes 1e77 (78 digits, below 2^256)", ["Valid", "Boundary"],
       ok(amountRaw="1" + "0" * 77), "1", 77)
    to("decimals 77: 2 becomes 2e77, above 2^256-1", ["Boundary"], err("amount_raw_invalid"),
       "2", 77)
    to("decimals 78", ["Boundary"], err("decimals_invalid"), "1", 78)
    to("decimals -1", ["Boundary"], err("decimals_invalid"), "1", -1)
    to("zero result", ["Zero"], err("amount_raw_invalid"), "0", 2)
    to("zero with a fraction: 0.00", ["Zero"], err("amount_raw_invalid"), "0.00", 2)
    for dec, why in [("", "empty"), (".5", "no integer digits"), ("5.", "no fraction digits"),
                     ("1,5", "comma as decimal separator"), ("1.2.3", "two points"),
                     ("-1", "negative"), ("+1", "plus sign"), ("1e3", "exponent"),
                     (" 1", "leading space"), ("1_000", "underscore"),
                     ("１２８", "full-width digits"), (".", "a lone point")]:
        to("decimal %s" % why, ["Invalid"], err("amount_decimal_invalid"), dec, 2)
    to("decimal given as a number: amount_decimal_invalid", ["Invalid", "WrongType"],
       err("amount_decimal_invalid"), 128, 2)

    fr("DESIGN example: 12800 with 2 decimals", ["Valid", "DesignExample"],
       ok(decimal="128.00"), "12800", 2)
    fr("5 with 2 decimals: zero padded", ["Valid"], ok(decimal="0.05"), "5", 2)
    fr("5 with 0 decimals: no point", ["Valid", "Boundary"], ok(decimal="5"), "5", 0)
    fr("100 with 2 decimals keeps the trailing zeros", ["Valid"], ok(decimal="1.00"), "100", 2)
    fr("1500000 with 6 decimals", ["Valid"], ok(decimal="1.500000"), "1500000", 6)
    fr("2^256-1 with 77 decimals", ["Valid", "Boundary"],
       ok(decimal=U256_MAX[0] + "." + U256_MAX[1:]), U256_MAX, 77)
    fr("1 with 77 decimals", ["Valid", "Boundary"], ok(decimal="0." + "0" * 76 + "1"), "1", 77)
    fr("raw 0", ["Zero"], err("amount_raw_invalid"), "0", 2)
    fr("raw with a leading zero", ["Invalid"], err("amount_raw_invalid"), "0128", 2)
    fr("raw over 2^256-1", ["Boundary"], err("amount_raw_invalid"), str(2**256), 2)
    fr("decimals 78", ["Boundary"], err("decimals_invalid"), "1", 78)
    # Signs, white space and separators a form or a locale may leave: refused, never read.
    for dec, why in [("-0", "negative zero"), ("-0.00", "negative zero with a fraction"),
                     ("1 ", "trailing space"), ("1\n", "trailing newline"),
                     ("1\u00a0000", "no-break space as thousands separator"),
                     ("1\u2009000", "thin space as thousands separator"),
                     ("1'000", "apostrophe as thousands separator"), ("\u0661", "Arabic-Indic digit")]:
        to("decimal %s" % why, ["Invalid"], err("amount_decimal_invalid"), dec, 2)
    # decimals that are not a whole number from 0 to 77: never truncated or wrapped.
    for decimals, why in [("2", "a string"), (2**32 + 2, "2^32 + 2 (wraps to 2 in 32 bits)")]:
        to("decimals %s" % why, ["Boundary", "WrongType"], err("decimals_invalid"), "1", decimals)
    return f


# --------------------------------------------------------------------------------------
# 8. pricing.json
# --------------------------------------------------------------------------------------

FIAT = {"kind": "fiat", "ref": "USD", "decimals": 2}
CRYPTO = {"kind": "crypto", "ref": "usdc-eth", "decimals": 6}
BASE58 = set("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")


def build_pricing():
    f = VectorFile(
        "pricing.json", "validateSourceAmount",
        "SourceAmount checked against the store's primary_source, in the order of "
        "docs/decisions.md: store -> SourceAmount shape (amount_raw present but not a string: "
        "amount_raw_invalid) -> unknown keys -> kind -> fiat "
        "(pricing_ref present, currency missing/mismatch) or crypto (currency present, "
        "pricing_ref missing/mismatch explained as address or network id) -> amount_raw. "
        "buildSourceAmount and validateCreatePayment as documented there.",
        per_row_function=True)

    def vs(comment, flags, expected, sa, ps):
        f.add(comment, flags, expected, function="validateSourceAmount", sourceAmount=sa,
              primarySource=ps)

    fiat_ok = {"kind": "fiat", "currency": "USD", "amount_raw": "12800"}
    crypto_ok = {"kind": "crypto", "pricing_ref": "usdc-eth", "amount_raw": "1500000"}
    vs("valid fiat SourceAmount", ["Valid"], ok(), fiat_ok, FIAT)
    vs("valid crypto SourceAmount", ["Valid"], ok(), crypto_ok, CRYPTO)
    vs("primary_source with an unknown extra field is tolerated", ["Valid", "Store"], ok(),
       fiat_ok, dict(FIAT, display_name="US Dollar"))
    vs("primary_source decimals 77", ["Valid", "Store"], ok(), fiat_ok, dict(FIAT, decimals=77))
    vs("pricing_ref equal to ref passes even when ref looks like an address", ["Valid"], ok(),
       {"kind": "crypto", "pricing_ref": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
        "amount_raw": "1"},
       {"kind": "crypto", "ref": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "decimals": 6})
    for ps, why in [({"ref": "USD", "decimals": 2}, "kind missing"),
                    ({"kind": "token", "ref": "USD", "decimals": 2}, "unknown kind"),
                    ({"kind": "fiat", "ref": "", "decimals": 2}, "empty ref"),
                    ({"kind": "fiat", "decimals": 2}, "ref missing"),
                    ({"kind": "fiat", "ref": "USD", "decimals": 78}, "decimals 78"),
                    ({"kind": "fiat", "ref": "USD", "decimals": -1}, "decimals -1"),
                    ({"kind": "fiat", "ref": "USD", "decimals": "2"}, "decimals a string"),
                    ({"kind": "fiat", "ref": "USD"}, "decimals missing"),
                    ("USD", "not an object"),
                    ({"primary_source": FIAT, "website_origin": None},
                     "the whole GET /v1/store answer in its place")]:
        vs("primary_source with %s" % why, ["Store"], err("store_source_invalid"), fiat_ok, ps)
    vs("bad primary_source and a bad SourceAmount: the store is checked first",
       ["Store", "OrderOfChecks"], err("store_source_invalid"), "12800",
       {"kind": "fiat", "ref": "USD", "decimals": 78})
    for sa, why in [("12800", "a string, not an object"), (["fiat", "12800"], "an array"),
                    (None, "null"), ({"currency": "USD", "amount_raw": "12800"}, "kind missing"),
                    ({"kind": "fiat", "currency": "USD"}, "amount_raw missing"),
                    ({"kind": "FIAT", "currency": "USD", "amount_raw": "12800"},
                     "kind not fiat/crypto"),
                    ({"kind": "fiat", "currency": "USD", "amount_raw": "12800", "memo": "x"},
                     "an unknown key"),
                    ({"kind": "crypto", "pricingRef": "usdc-eth", "amount_raw": "1"},
                     "a camelCase typo pricingRef")]:
        vs("SourceAmount %s" % why, ["SourceAmount"], err("source_amount_invalid"), sa,
           CRYPTO if "pricingRef" in str(sa) else FIAT)
    vs("SourceAmount amount_raw a number: amount_raw_invalid (it must be a string of digits)",
       ["SourceAmount", "Amount", "WrongType"], err("amount_raw_invalid"),
       {"kind": "fiat", "currency": "USD", "amount_raw": 12800}, FIAT)
    vs("amount_raw a number and an unknown key: amount_raw is read first",
       ["SourceAmount", "Amount", "OrderOfChecks"], err("amount_raw_invalid"),
       {"kind": "fiat", "currency": "USD", "amount_raw": 12800, "memo": "x"}, FIAT)
    vs("amount_raw null: present but not a string, amount_raw_invalid",
       ["SourceAmount", "Amount", "WrongType"], err("amount_raw_invalid"),
       {"kind": "fiat", "currency": "USD", "amount_raw": None}, FIAT)
    vs("unknown key and a kind mismatch: unknown keys are checked first",
       ["SourceAmount", "OrderOfChecks"], err("source_amount_invalid"),
       {"kind": "crypto", "pricing_ref": "usdc-eth", "amount_raw": "1", "extra": 1}, FIAT)
    vs("fiat SourceAmount with a pricing_ref", ["SourceAmount"], err("source_amount_invalid"),
       {"kind": "fiat", "currency": "USD", "pricing_ref": "USD", "amount_raw": "12800"}, FIAT)
    vs("fiat with a pricing_ref and no currency: pricing_ref is checked first",
       ["SourceAmount", "OrderOfChecks"], err("source_amount_invalid"),
       {"kind": "fiat", "pricing_ref": "USD", "amount_raw": "12800"}, FIAT)
    vs("crypto SourceAmount with a currency", ["SourceAmount"], err("source_amount_invalid"),
       {"kind": "crypto", "currency": "USDC", "pricing_ref": "usdc-eth", "amount_raw": "1"},
       CRYPTO)
    vs("crypto with a currency and no pricing_ref: currency is checked first",
       ["SourceAmount", "OrderOfChecks"], err("source_amount_invalid"),
       {"kind": "crypto", "currency": "USDC", "amount_raw": "1"}, CRYPTO)
    vs("crypto SourceAmount for a fiat store", ["Kind"], err("source_kind_mismatch"),
       crypto_ok, FIAT)
    vs("fiat SourceAmount for a crypto store", ["Kind"], err("source_kind_mismatch"),
       fiat_ok, CRYPTO)
    vs("fiat without currency", ["Currency"], err("source_currency_missing"),
       {"kind": "fiat", "amount_raw": "12800"}, FIAT)
    vs("currency 'usd' against ref 'USD': exact, case-sensitive", ["Currency"],
       err("source_currency_mismatch"), dict(fiat_ok, currency="usd"), FIAT)
    vs("currency EUR against ref USD", ["Currency"], err("source_currency_mismatch"),
       dict(fiat_ok, currency="EUR"), FIAT)
    vs("currency mismatch and amount_raw 0: the currency is checked first",
       ["Currency", "OrderOfChecks"], err("source_currency_mismatch"),
       {"kind": "fiat", "currency": "EUR", "amount_raw": "0"}, FIAT)
    vs("crypto without pricing_ref", ["PricingRef"], err("source_pricing_ref_missing"),
       {"kind": "crypto", "amount_raw": "1"}, CRYPTO)
    for ref, why in [("usdt-eth", "another pricing reference"),
                     ("USDC-ETH", "the ref in another case"), ("usdc", "a bare symbol"),
                     ("tetherusdtonethereummainnet",
                      "a long word of base58 letters (no digit, one case: no address)")]:
        vs("pricing_ref %s" % why, ["PricingRef"], err("source_pricing_ref_mismatch"),
           dict(crypto_ok, pricing_ref=ref), CRYPTO)
    addresses = [
        ("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "an EVM token contract (0x + 40 hex)"),
        ("0xdac17f958d2ee523a2206206994597c13d831ec7", "a lowercase EVM address"),
        ("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "a Solana mint address (base58, 44)"),
        ("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "a Tron address (T..., base58, 34)"),
        ("1A1zP1eP5QGefi2DMPTfTL5sLmv7DivfNa", "a Bitcoin legacy address (1...)"),
        ("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", "a Bitcoin bech32 address (bc1q...)"),
    ]
    for ref, why in addresses:
        if not ref.startswith(("0x", "bc1")):
            assert set(ref) <= BASE58 and 25 <= len(ref) <= 44, ref
        vs("pricing_ref is %s" % why, ["PricingRef", "Address"], err("pricing_ref_is_address"),
           dict(crypto_ok, pricing_ref=ref), CRYPTO)
    vs("pricing_ref an address and amount_raw 0: the explanation comes first",
       ["PricingRef", "OrderOfChecks"], err("pricing_ref_is_address"),
       {"kind": "crypto", "pricing_ref": addresses[0][0], "amount_raw": "0"}, CRYPTO)
    for ref, why in [("1", "an EVM chain id"), ("137", "the Polygon chain id"),
                     ("eip155:1", "a CAIP-2 id"),
                     ("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "a Solana CAIP-2 id"),
                     ("ethereum", "a chain name"), ("Polygon", "a chain name in mixed case")]:
        vs("pricing_ref is %s" % why, ["PricingRef", "NetworkId"],
           err("pricing_ref_is_network_id"), dict(crypto_ok, pricing_ref=ref), CRYPTO)
    vs("amount_raw 0", ["Amount"], err("amount_raw_invalid"), dict(fiat_ok, amount_raw="0"), FIAT)
    vs("amount_raw with a leading zero", ["Amount"], err("amount_raw_invalid"),
       dict(crypto_ok, amount_raw="01"), CRYPTO)
    vs("amount_raw a decimal string", ["Amount"], err("amount_raw_invalid"),
       dict(fiat_ok, amount_raw="128.00"), FIAT)

    def bs(comment, flags, expected, ps, amount):
        f.add(comment, flags, expected, function="buildSourceAmount", primarySource=ps,
              amount=amount)

    bs("fiat store, 128.00", ["Valid"],
       ok(sourceAmount={"kind": "fiat", "currency": "USD", "amount_raw": "12800"}), FIAT, "128.00")
    bs("crypto store, 1.5 with 6 decimals", ["Valid"],
       ok(sourceAmount={"kind": "crypto", "pricing_ref": "usdc-eth", "amount_raw": "1500000"}),
       CRYPTO, "1.5")
    bs("too precise for the store's decimals", ["Precision"], err("amount_too_precise"),
       FIAT, "1.005")
    bs("not a decimal", ["Invalid"], err("amount_decimal_invalid"), FIAT, "1,50")
    bs("zero amount", ["Zero"], err("amount_raw_invalid"), CRYPTO, "0.000000")
    bs("malformed primary_source", ["Store"], err("store_source_invalid"),
       {"kind": "fiat", "ref": "USD"}, "128.00")

    def cp(comment, flags, expected, body, ps=FIAT, website=OMIT):
        f.add(comment, flags, expected, function="validateCreatePayment", body=body,
              primarySource=ps, websiteOrigin=website)

    cp("minimal CreatePayment", ["Valid"], ok(), {"source_amount": fiat_ok})
    cp("with order_ref and checkout_origin equal to the website origin", ["Valid"], ok(),
       {"order_ref": "order-1001", "source_amount": fiat_ok,
        "checkout_origin": "https://shop.example.com"}, website="https://shop.example.com")
    cp("checkout_origin without a website origin", ["Valid"], ok(),
       {"source_amount": crypto_ok, "checkout_origin": "https://shop.example.com"}, ps=CRYPTO)
    cp("body an array", ["CreatePayment"], err("create_payment_invalid"), [fiat_ok])
    cp("body a string", ["CreatePayment"], err("create_payment_invalid"), "{}")
    cp("body null", ["CreatePayment"], err("create_payment_invalid"), None)
    cp("source_amount missing", ["CreatePayment"], err("create_payment_invalid"),
       {"order_ref": "order-1001"})
    cp("order_ref a number", ["CreatePayment"], err("create_payment_invalid"),
       {"order_ref": 1001, "source_amount": fiat_ok})
    cp("unknown key 'amount'", ["CreatePayment"], err("create_payment_invalid"),
       {"source_amount": fiat_ok, "amount": "128.00"})
    cp("unknown key and a bad source_amount: body keys are checked first",
       ["CreatePayment", "OrderOfChecks"], err("create_payment_invalid"),
       {"source_amount": "12800", "orderRef": "x"})
    cp("source_amount not an object reports its own code", ["CreatePayment", "SourceAmount"],
       err("source_amount_invalid"), {"source_amount": "12800"})
    cp("source_amount with a numeric amount_raw reports amount_raw_invalid",
       ["CreatePayment", "SourceAmount", "Amount"], err("amount_raw_invalid"),
       {"source_amount": {"kind": "fiat", "currency": "USD", "amount_raw": 12800}})
    cp("bad source_amount and a numeric order_ref: source_amount first",
       ["CreatePayment", "OrderOfChecks"], err("source_currency_mismatch"),
       {"source_amount": dict(fiat_ok, currency="usd"), "order_ref": 1})
    cp("numeric order_ref and an http checkout_origin: order_ref first",
       ["CreatePayment", "OrderOfChecks"], err("create_payment_invalid"),
       {"source_amount": fiat_ok, "order_ref": 1, "checkout_origin": "http://shop.example.com"})
    cp("checkout_origin over http", ["CreatePayment", "Origin"], err("origin_not_https"),
       {"source_amount": fiat_ok, "checkout_origin": "http://shop.example.com"})
    cp("checkout_origin with a path", ["CreatePayment", "Origin"], err("origin_invalid"),
       {"source_amount": fiat_ok, "checkout_origin": "https://shop.example.com/checkout"})
    cp("checkout_origin not the website origin", ["CreatePayment", "Origin"],
       err("origin_not_permitted"),
       {"source_amount": fiat_ok, "checkout_origin": "https://evil.example.net"},
       website="https://shop.example.com")
    return f


# --------------------------------------------------------------------------------------
# 9. urls.json
# --------------------------------------------------------------------------------------

def build_urls():
    f = VectorFile(
        "urls.json", "validateCheckoutOrigin",
        "checkout origins (https://host[:port], nothing after the authority, compared as "
        "browsers compare origins), webhook URLs (HTTPS, registered domain, port 443, no "
        "credentials/query/fragment, at most 2048 bytes; codes in the order of "
        "docs/decisions.md) and hosted checkout URLs ({origin}/#payment_id=<percent-encoded id>).",
        per_row_function=True)

    def co(comment, flags, expected, origin, website=OMIT):
        f.add(comment, flags, expected, function="validateCheckoutOrigin", origin=origin,
              websiteOrigin=website)

    W = "https://shop.example.com"
    co("plain https origin", ["Valid"], ok(), W)
    co("origin with a non-default port", ["Valid"], ok(), "https://shop.example.com:8443")
    co("IPv4 host", ["Valid"], ok(), "https://127.0.0.1")
    co("bracketed IPv6 host", ["Valid"], ok(), "https://[::1]")
    co("single-label host (localhost) is a valid origin (no registered-domain rule)",
       ["Valid"], ok(), "https://localhost:8443")
    co("IDN host in its xn-- form", ["Valid", "Idn"], ok(), "https://xn--shp-tna.example.com")
    co("uppercase scheme and host, explicit :443, equal to the website origin",
       ["Valid", "Website"], ok(), "HTTPS://Shop.Example.COM:443", website=W)
    co("website origin given with :443 and mixed case", ["Valid", "Website"], ok(), W,
       website="https://SHOP.example.com:443")
    co("different port from the website origin", ["Website"], err("origin_not_permitted"),
       "https://shop.example.com:8443", website=W)
    co("different host from the website origin", ["Website"], err("origin_not_permitted"),
       "https://evil.example.net", website=W)
    co("subdomain of the website origin", ["Website"], err("origin_not_permitted"),
       "https://pay.shop.example.com", website=W)
    co("an IPv4 host's trailing dot is dropped, as browsers drop it", ["Valid", "Website"],
       ok(), "https://10.0.0.1.", website="https://10.0.0.1")
    co("trailing dot is significant when comparing origins", ["Website"],
       err("origin_not_permitted"), "https://shop.example.com.", website=W)
    co("website origin itself invalid (has a path)", ["Website", "InvalidArgument"],
       err("invalid_argument"), W, website=W + "/shop")
    co("http scheme", ["Scheme"], err("origin_not_https"), "http://shop.example.com")
    co("ftp scheme", ["Scheme"], err("origin_not_https"), "ftp://shop.example.com")
    for origin, why in [(W + "/", "a trailing slash (an origin has no path)"),
                        (W + "/checkout", "a path"), (W + "?", "an empty query"),
                        (W + "?a=1", "a query"), (W + "#", "an empty fragment"),
                        ("https://user:pw@shop.example.com", "userinfo"),
                        ("https://user@shop.example.com", "a user name"),
                        (W + ":0", "port 0"), (W + ":65536", "port 65536"),
                        (W + ":", "an empty port"), (W + ":44a", "a non-numeric port"),
                        ("https://", "no host"), ("", "an empty string"),
                        ("https://[:]", "an IPv6 host of colons only"),
                        ("https://[1::2::3]", "an IPv6 host with two ::"),
                        ("https://[1:2:3:4:5:6:7:8:9]", "an IPv6 host of nine pieces"),
                        ("https://[::1%25eth0]", "an IPv6 zone id"),
                        ("null", "the opaque origin 'null'"),
                        ("shop.example.com", "no scheme"),
                        ("https://shöp.example.com", "a non-ASCII (IDN) host"),
                        ("https://shop%2eexample.com", "a percent-encoded host"),
                        ("https://shop.example.com\\", "a backslash"),
                        ("https://shop.exa\tmple.com", "a tab"),
                        ("https://shop .example.com", "a space"),
                        ("https://-shop.example.com", "a label starting with a hyphen"),
                        ("https://shop..example.com", "an empty label"),
                        ("https://" + "a" * 64 + ".example.com", "a 64-character label")]:
        co("origin with %s" % why, ["Malformed"], err("origin_invalid"), origin)

    def wu(comment, flags, expected, url):
        f.add(comment, flags, expected, function="validateWebhookUrl", url=url)

    H = "https://hooks.example.com"
    wu("plain https URL with a path", ["Valid"], ok(), H + "/webhooks/cryptopay")
    wu("no path", ["Valid"], ok(), H)
    wu("explicit :443", ["Valid", "Port"], ok(), "https://hooks.example.com:443/wh")
    wu("xn-- host", ["Valid", "Idn"], ok(), "https://xn--hks-snaa.example.com/wh")
    long_ok = H + "/" + "a" * (2048 - len(H) - 1)
    assert len(long_ok.encode()) == 2048
    wu("URL of exactly 2048 bytes", ["Valid", "Length"], ok(), long_ok)
    wu("URL of 2049 bytes", ["Malformed", "Length"], err("webhook_url_malformed"), long_ok + "a")
    wu("javascript: URL", ["Malformed"], err("webhook_url_malformed"), "javascript:alert(1)")
    wu("no scheme", ["Malformed"], err("webhook_url_malformed"), "hooks.example.com/wh")
    wu("empty string", ["Malformed"], err("webhook_url_malformed"), "")
    wu("http scheme", ["Scheme"], err("webhook_url_not_https"), "http://hooks.example.com/wh")
    wu("ftp scheme", ["Scheme"], err("webhook_url_not_https"), "ftp://hooks.example.com/wh")
    wu("http with credentials, IP, port and query: the scheme is reported first",
       ["Scheme", "OrderOfChecks"], err("webhook_url_not_https"),
       "http://user@127.0.0.1:8080/?a#b")
    wu("user and password", ["Credentials"], err("webhook_url_credentials"),
       "https://user:pass@hooks.example.com/wh")
    wu("user name only", ["Credentials"], err("webhook_url_credentials"),
       "https://user@hooks.example.com/wh")
    wu("credentials on an IP literal: credentials first", ["Credentials", "OrderOfChecks"],
       err("webhook_url_credentials"), "https://user@127.0.0.1/wh")
    for host, why in [("[::1]", "IPv6 loopback"), ("127.0.0.1", "IPv4 loopback"),
                      ("93.184.216.34", "public IPv4"), ("2130706433", "decimal IPv4"),
                      ("0x7f.1", "hex/short IPv4"), ("10.0.0.1", "private IPv4")]:
        wu("IP literal host: %s" % why, ["IpLiteral"], err("webhook_url_ip_literal"),
           "https://%s/wh" % host)
    wu("IP literal with a non-443 port: ip_literal first", ["IpLiteral", "OrderOfChecks"],
       err("webhook_url_ip_literal"), "https://127.0.0.1:8443/wh")
    for host, why in [("localhost", "localhost"), ("localhost.", "localhost with a dot"),
                      ("api.localhost", "a *.localhost name"), ("intranet", "a single label"),
                      ("LOCALHOST", "localhost in uppercase"), ("shop.local", "an mDNS .local name"),
                      ("hooks.internal", "ICANN's private-use .internal"),
                      ("hooks.shop.test", "a .test name"), ("hooks.invalid", "an .invalid name"),
                      ("router.home.arpa", "a home network's home.arpa name"),
                      ("hooks.SHOP.LOCAL.", "a .local name in uppercase with a dot"),
                      ("x.onion", "an .onion name"), ("hooks.alt", "an .alt name")]:
        wu("host %s" % why, ["NotRegisteredDomain"], err("webhook_url_not_registered_domain"),
           "https://%s/wh" % host)
    for host, why in [("hooks.localhosts.com", "localhosts.com: a name that only ends in the letters"),
                      ("mylocal.com", "a label ending in local"), ("internal.shop.com", "internal as a first label"),
                      ("hooks.example", "an RFC 2606 .example name (documents' placeholder)")]:
        wu("host %s: a registered domain" % why, ["Valid"], ok(), "https://%s/wh" % host)
    wu("localhost with a port: not_registered_domain first",
       ["NotRegisteredDomain", "OrderOfChecks"], err("webhook_url_not_registered_domain"),
       "https://localhost:8443/wh")
    for url, why in [("https://hooks.exämple.com/wh", "a non-ASCII (IDN) host"),
                     ("https://hooks%2eexample.com/wh", "a percent-encoded host"),
                     ("https://hooks.example.com\\wh", "a backslash"),
                     ("https://hooks.exa\tmple.com/wh", "a tab in the host"),
                     ("https://hooks.example.com/w h", "a space"),
                     ("https://-hooks.example.com/wh", "a label starting with a hyphen"),
                     ("https://hooks-.example.com/wh", "a label ending with a hyphen"),
                     ("https://hooks..example.com/wh", "an empty label"),
                     ("https://hooks_x.example.com/wh", "an underscore in a label")]:
        wu("URL with %s" % why, ["Malformed"], err("webhook_url_malformed"), url)
    wu("port 8443", ["Port"], err("webhook_url_port"), "https://hooks.example.com:8443/wh")
    wu("port 80", ["Port"], err("webhook_url_port"), "https://hooks.example.com:80/wh")
    wu("non-443 port and a query: port first", ["Port", "OrderOfChecks"],
       err("webhook_url_port"), "https://hooks.example.com:8443/wh?a=1")
    wu("empty query", ["Query"], err("webhook_url_query"), H + "/wh?")
    wu("query string", ["Query"], err("webhook_url_query"), H + "/wh?token=abc")
    wu("empty query and empty fragment: query first", ["Query", "OrderOfChecks"],
       err("webhook_url_query"), H + "/wh?#")
    wu("empty fragment", ["Fragment"], err("webhook_url_fragment"), H + "/wh#")
    wu("fragment", ["Fragment"], err("webhook_url_fragment"), H + "/wh#section")

    def hc(comment, flags, expected, origin, pid):
        f.add(comment, flags, expected, function="hostedCheckoutUrl", checkoutOrigin=origin,
              paymentId=pid)

    P = "https://pay.example.com"
    hc("plain id", ["Valid"], ok(url=P + "/#payment_id=pay_123"), P, "pay_123")
    hc(":443 is normalised away", ["Valid"], ok(url=P + "/#payment_id=pay_123"),
       "https://pay.example.com:443", "pay_123")
    hc("scheme and host lowercased", ["Valid"], ok(url=P + "/#payment_id=pay_123"),
       "HTTPS://Pay.Example.COM", "pay_123")
    hc("non-default port kept", ["Valid"],
       ok(url="https://pay.example.com:8443/#payment_id=pay_123"),
       "https://pay.example.com:8443", "pay_123")
    hc("id needing percent-encoding (space, slash, hash)", ["Valid", "Encoding"],
       ok(url=P + "/#payment_id=pay%201%2F2%23x"), P, "pay 1/2#x")
    hc("unreserved characters stay as they are", ["Valid", "Encoding"],
       ok(url=P + "/#payment_id=AZaz09-._~"), P, "AZaz09-._~")
    hc("'+', '=', '&' and '%' are encoded", ["Valid", "Encoding"],
       ok(url=P + "/#payment_id=a%2Bb%3Dc%26d%25"), P, "a+b=c&d%")
    hc("non-ASCII id encoded as UTF-8 bytes, uppercase hex", ["Valid", "Encoding", "Unicode"],
       ok(url=P + "/#payment_id=%C3%A9"), P, "é")
    hc("empty payment id", ["InvalidArgument"], err("invalid_argument"), P, "")
    hc("origin over http", ["Scheme"], err("origin_not_https"), "http://pay.example.com",
       "pay_123")
    hc("origin with a trailing slash", ["Malformed"], err("origin_invalid"), P + "/",
       "pay_123")
    return f


# --------------------------------------------------------------------------------------
# 10. idempotency.json
# --------------------------------------------------------------------------------------

def build_idempotency():
    f = VectorFile(
        "idempotency.json", "requestFingerprint",
        "requestFingerprint: lowercase hex SHA-256 of the exact request bytes (computed by "
        "Python's hashlib). validateIdempotencyKey: 1 to 255 characters, each 0x21 to 0x7E.",
        per_row_function=True)

    def fp(comment, flags, body):
        f.add(comment, flags, ok(fingerprint=hashlib.sha256(body).hexdigest()),
              function="requestFingerprint", bodyHex=body.hex())

    assert hashlib.sha256(b"").hexdigest() == (
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    fp("empty body: the SHA-256 of nothing", ["Valid", "EmptyBody"], b"")
    fp("CreatePayment body", ["Valid"],
       b'{"source_amount":{"kind":"fiat","currency":"USD","amount_raw":"12800"}}')
    fp("same body with a space: a different fingerprint", ["Valid"],
       b'{"source_amount": {"kind":"fiat","currency":"USD","amount_raw":"12800"}}')
    fp("bytes that are not UTF-8", ["Valid", "InvalidUtf8"], b"\xff\xfe\x00")

    def ik(comment, flags, expected, key):
        f.add(comment, flags, expected, function="validateIdempotencyKey", key=key)

    ik("one character", ["Valid", "Boundary"], ok(), "a")
    ik("255 characters", ["Valid", "Boundary"], ok(), "k" * 255)
    ik("a UUID", ["Valid"], ok(), "0b8f4e52-3c1a-4c3e-9d4b-6f1f2b7a9c10")
    ik("all visible ASCII punctuation", ["Valid"], ok(), "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
    ik("256 characters", ["Boundary"], err("idempotency_key_invalid"), "k" * 256)
    for key, why in [("", "empty"), ("order 1001", "a space inside"), ("a\tb", "a tab"),
                     ("clé", "a non-ASCII character"), ("a\u007f", "DEL"),
                     ("a\u0000", "NUL"), ("key\n", "a trailing newline"),
                     (" key", "a leading space")]:
        ik("key with %s" % why if why != "empty" else "empty key", ["Invalid"],
           err("idempotency_key_invalid"), key)
    return f


# --------------------------------------------------------------------------------------
# 11. delivery.json
# --------------------------------------------------------------------------------------

def build_delivery():
    f = VectorFile(
        "delivery.json", "classifyDeliveryResponse",
        "classifyDeliveryResponse: 2xx acknowledged; 408, 425, 429 and 500-599 retry; other "
        "statuses from 100 to 599 (1xx, 3xx, other 4xx) permanent_failure; outside 100-599 "
        "invalid_argument. A redirect is never an acknowledgment.")
    table = [
        (200, "acknowledged"), (201, "acknowledged"), (202, "acknowledged"),
        (204, "acknowledged"), (299, "acknowledged"),
        (300, "permanent_failure"), (301, "permanent_failure"), (302, "permanent_failure"),
        (304, "permanent_failure"), (307, "permanent_failure"), (308, "permanent_failure"),
        (400, "permanent_failure"), (401, "permanent_failure"), (403, "permanent_failure"),
        (404, "permanent_failure"), (408, "retry"), (409, "permanent_failure"),
        (410, "permanent_failure"), (425, "retry"), (429, "retry"), (499, "permanent_failure"),
        (500, "retry"), (502, "retry"), (503, "retry"), (599, "retry"),
        (100, "permanent_failure"), (199, "permanent_failure"),
    ]
    why = {"acknowledged": "2xx acknowledges delivery",
           "retry": "listed as retryable (408, 425, 429, 5xx)",
           "permanent_failure": "any other status is a permanent failure"}
    for status, cls in table:
        extra = " (a redirect is not followed and not an acknowledgment)" if 300 <= status < 400 else ""
        f.add("HTTP %d: %s%s" % (status, why[cls], extra),
              ["Valid", "Redirect" if extra else cls.title().replace("_", "")],
              ok(classification=cls), status=status)
    for status in (99, 600, 0, -1):
        f.add("status %d is outside 100-599" % status, ["InvalidArgument"],
              err("invalid_argument"), status=status)
    return f


# --------------------------------------------------------------------------------------
# 12. service.json (tests/vectors/service_vectors.py)
# --------------------------------------------------------------------------------------

def build_service():
    f = service_vectors.build_service(VectorFile)
    f.service_codes = service_vectors.API_CODES
    return f


# --------------------------------------------------------------------------------------
# 13. fulfilment.json (tests/vectors/fulfilment_vectors.py)
# --------------------------------------------------------------------------------------

def build_fulfilment():
    f = fulfilment_vectors.build_fulfilment(VectorFile)
    f.service_codes = fulfilment_vectors.LINK_CODES
    return f


# --------------------------------------------------------------------------------------
# Checks and output
# --------------------------------------------------------------------------------------

def walk(value, path="$"):
    """Yield (path, value) for every leaf."""
    if isinstance(value, dict):
        for k, v in value.items():
            assert isinstance(k, str)
            yield from walk(v, path + "." + k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk(v, "%s[%d]" % (path, i))
    else:
        yield path, value


def build_error_codes():
    vf = VectorFile(
        "error_codes.json", "errorCodes",
        "The stable error codes in the contract's order, each with its group (the contract's "
        "table). `index`: its place in errorCodes() and ErrorKind::ALL. `eventError`: group "
        "`event`, where the signature and the timestamp held, so the delivery is authentic "
        "but not a readable event: a receiver keeps it in quarantine and acknowledges it "
        "(Rust: ErrorKind::is_event_error; JavaScript: the codes cryptopay-verify/receiver "
        "quarantines).")
    index = 0
    for group, codes in CODE_GROUPS:
        for code in codes:
            vf.add("%s: group %s" % (code, group), ["Valid"],
                   ok(index=index, eventError=group == "event"), code=code, group=group)
            index += 1
    return vf


def check_file(vf):
    ids = [t["id"] for t in vf.tests]
    assert ids == list(range(1, len(ids) + 1)), vf.name
    for t in vf.tests:
        where = "%s id %d" % (vf.name, t["id"])
        assert t["comment"] and isinstance(t["flags"], list) and t["flags"], where
        exp = t["expected"]
        assert (exp.get("ok") is True) != ("error" in exp), where
        if "error" in exp:
            assert exp["error"] in ALL_CODES + vf.service_codes, where
            assert set(exp) <= {"error", "receiverFault"}, where
            assert isinstance(exp.get("receiverFault", False), bool), where
        for path, leaf in walk(t):
            if isinstance(leaf, bool) or leaf is None:
                continue
            if isinstance(leaf, int):
                assert -MAX_SAFE <= leaf <= MAX_SAFE, (where, path)
            elif isinstance(leaf, float):
                raise AssertionError("float in %s %s" % (where, path))
            elif isinstance(leaf, str):
                leaf.encode("utf-8")  # raises on lone surrogates
                if path.endswith("Hex"):
                    bytes.fromhex(leaf)
                    assert leaf == leaf.lower(), where


def main():
    files = [build_hmac(), build_verify(), build_sign(), build_read_headers(), build_event(),
             build_status(), build_amount(), build_pricing(), build_urls(), build_idempotency(),
             build_delivery(), build_service(), build_fulfilment()]
    seen_codes = set()
    total = valid = 0
    for vf in files:
        check_file(vf)
        for t in vf.tests:
            if "error" in t["expected"]:
                seen_codes.add(t["expected"]["error"])
            else:
                valid += 1
        total += len(vf.tests)

    verify = files[1]
    assert len(verify.tests) >= 110, len(verify.tests)
    assert sum(1 for t in verify.tests if t["function"] == "verifyWebhook") >= 10
    missing = [c for c in ALL_CODES if c not in seen_codes]
    assert not missing, "codes without a row: %s" % missing
    assert "body_not_raw" not in seen_codes
    assert total >= 300, total
    assert valid * 2 < total, (valid, total)

    codes = build_error_codes()
    check_file(codes)
    # --check: write nothing, fail when a committed file is not what this script writes.
    check = "--check" in sys.argv[1:]
    stale = []
    for vf in files + [codes]:
        path = os.path.join(OUT_DIR, vf.name)
        text = json.dumps(vf.document(), indent=2, ensure_ascii=False) + "\n"
        if check:
            try:
                with open(path, encoding="utf-8", newline="") as fh:
                    if fh.read() != text:
                        stale.append(vf.name)
            except FileNotFoundError:
                stale.append(vf.name)
            continue
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        n_err = sum(1 for t in vf.tests if "error" in t["expected"])
        print("%-28s %4d rows (%d valid, %d invalid)" % (vf.name, len(vf.tests),
                                                         len(vf.tests) - n_err, n_err))
    if check:
        if stale:
            sys.exit("tests/vectors: %s not what generate.py writes: run python3 "
                     "tests/vectors/generate.py and commit the result" % ", ".join(stale))
        print("tests/vectors: %d files as generate.py writes them" % len(files + [codes]))
        return
    print("%-28s %4d rows (%d valid, %d invalid); %d error codes covered"
          % ("total", total, valid, total - valid, len(seen_codes)))


if __name__ == "__main__":
    main()
