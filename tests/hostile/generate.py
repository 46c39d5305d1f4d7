#!/usr/bin/env python3
"""Builds the hostile-input catalogue: tests/vectors/hostile_*.json.

Standard library only. Every valid signature is HMAC-SHA256 computed here with Python's
`hmac` (key = the UTF-8 bytes of the secret, message = timestamp bytes + b"." + body bytes),
independently of the package; fingerprints with `hashlib`. Each row expects one error code
(or a result) chosen from the design contract (its decisions are in docs/decisions.md);
where the contract is silent the choice is written in the row's comment.

Usage: python3 tests/hostile/generate.py [OUTDIR]   (default tests/vectors)

The runner is tests/hostile/hostile.test.mjs; the JSON conventions for values JSON cannot
carry (undefined, NaN, -0, BigInt, lone surrogates, megabyte strings, typed arrays, cycles...)
are described in NOTES below and implemented in tests/hostile/decode.mjs.
"""

import base64
import hashlib
import hmac
import json
import os
import sys
import unicodedata

SCHEMA = "cryptopay-verify-vectors/1"
SECRET = "whsec_hostile_secret"
OTHER = "whsec_other_secret"
TS = "1700000000"
NOW = 1700000000
SKEW = 300
KIB = 1024
MIB = 1024 * 1024
MAX_SAFE = 2**53 - 1

NOTES_COMMON = (
    "Hostile inputs for the JavaScript API, run by tests/hostile/hostile.test.mjs through the "
    "installed package's ESM and CJS entries. Each row names `function` (an export of the "
    "package; `Verifier` is `new Verifier(...)` (a class: called without `new` it throws "
    "JavaScript's own TypeError, tested in tests/js/surface.test.mjs), `Verifier#<method>` calls a method of a Verifier built from `verifier` on the "
    "receiver named by `receiver`: verifier (default), freed, unbound (this = undefined), "
    "plainObject, prototype) and `args`, the positional arguments. Conventions: a missing "
    "trailing argument is not passed; a key omitted from an object is absent (undefined), which "
    "is how `undefined` is written; anywhere else undefined is {\"$special\":\"undefined\"}. An "
    "object with exactly one key starting with `$` is a special value built by the runner "
    "(tests/hostile/decode.mjs): {\"$special\": \"undefined\"|\"NaN\"|\"Infinity\"|\"-Infinity\"|\"-0\"}, "
    "{\"$bigint\": \"123\"}, {\"$repeat\": [text, count]} (a long string), {\"$concat\": [parts]}, "
    "{\"$loneSurrogate\": text} (text with literal \\\\uXXXX escapes turned into UTF-16 code units, "
    "so lone surrogates survive JSON tools), {\"$bytes\": hex} (a plain Uint8Array), "
    "{\"$repeatBytes\": [hex, count]}, {\"$buffer\": hex} (Node Buffer), {\"$arrayBuffer\": hex}, "
    "{\"$dataView\": hex}, {\"$float64Array\": hex}, {\"$sharedArrayBuffer\": hex}, "
    "{\"$detached\": \"ArrayBuffer\"|\"Uint8Array\"|\"DataView\"} (transferred away), "
    "{\"$outOfBounds\": \"Uint8Array\"|\"DataView\"} (a fixed-length view over a resizable "
    "ArrayBuffer shrunk below it), "
    "{\"$deepArray\": [depth, leaf]}, {\"$deepObject\": [depth, key, leaf]}, "
    "{\"$cyclic\": \"array\"|\"object\"}, {\"$nullProto\": {...}} (Object.create(null)), "
    "{\"$map\": [[k, v]...]}, {\"$headers\": [[k, v]...]} (Fetch Headers), {\"$boxed\": v} "
    "(new String/Number/Boolean), {\"$symbol\": desc}, {\"$function\": name}, "
    "{\"$repeatArray\": [value, count]} (fresh copies), {\"$concatArrays\": [arrays]}, "
    "{\"$literal\": v} (taken as is). Object "
    "keys are defined as own data properties (a `__proto__` key stays an own key). `expected` is "
    "{error: code} or {ok: true, ...}: `result` is compared deeply with the return value (decoded "
    "the same way), `resultIncludes` lists members of a returned array, `matchedSecret`, "
    "`timestamp` and `event` (a subset of event fields) are compared for the verify functions. "
    "`wasmGrowthBelow` bounds the growth of the wasm memories during the call. After every row "
    "the runner checks that no wasm instance was replaced and that the same instance still "
    "verifies a good delivery. Valid signatures are HMAC-SHA256 computed by Python's hmac "
    "(tests/hostile/generate.py). Secret everywhere unless stated: "
    + json.dumps(SECRET) + ", timestamp " + TS + ", nowSecs " + str(NOW) + ", maxSkewSecs "
    + str(SKEW) + "."
)

EVENT = (
    b'{"schema_version":1,"event_id":"evt_h1","event_type":"payment.updated",'
    b'"occurred_at":"2023-11-14T22:13:20Z","data":{"payment_id":"pay_h1","status_version":7}}'
)
EVENT_FIELDS = {"eventId": "evt_h1", "paymentId": "pay_h1", "statusVersion": "7"}


def envelope(data=None, **top):
    """An event body as bytes; `data` and top-level fields given as raw JSON text."""
    fields = {
        "schema_version": "1",
        "event_id": '"evt_h1"',
        "event_type": '"payment.updated"',
        "occurred_at": '"2023-11-14T22:13:20Z"',
        "data": data if data is not None else '{"payment_id":"pay_h1","status_version":7}',
    }
    fields.update(top)
    return ("{" + ",".join(f'"{k}":{v}' for k, v in fields.items()) + "}").encode()


def mac(secret, timestamp, body):
    key = secret if isinstance(secret, bytes) else secret.encode("utf-8")
    return hmac.new(key, timestamp.encode() + b"." + body, hashlib.sha256).digest()


def machex(secret, timestamp, body):
    return mac(secret, timestamp, body).hex()


GOOD_SIG = machex(SECRET, TS, EVENT)


# --------------------------------------------------------------------------------------
# Values the runner builds (see NOTES_COMMON). `data` is the byte string a body stands for.

class V:
    def __init__(self, form, data=None):
        self.form = form
        self.data = data


OMIT = object()  # a key left out of an object (that is: undefined)


def special(name):
    return V({"$special": name})


UNDEF = special("undefined")
NAN = special("NaN")
INF = special("Infinity")
NINF = special("-Infinity")
NEG0 = special("-0")


def bigint(n):
    return V({"$bigint": str(n)})


def rep(text, count):
    return V({"$repeat": [text, count]}, (text * count).encode("utf-8"))


def lone(text):
    """`text` holds literal \\uXXXX escapes (for lone surrogates)."""
    return V({"$loneSurrogate": text})


def raw(data):
    return V({"$bytes": data.hex()}, data)


def rep_bytes(unit, count):
    return V({"$repeatBytes": [unit.hex(), count]}, unit * count)


def typed(kind, data):
    return V({"$" + kind: data.hex()}, data)


def detached(kind):
    return V({"$detached": kind})


def out_of_bounds(kind):
    return V({"$outOfBounds": kind})


def deep_array(depth, leaf):
    return V({"$deepArray": [depth, form(leaf)]})


def deep_object(depth, key, leaf):
    return V({"$deepObject": [depth, key, form(leaf)]})


def cyclic(kind):
    return V({"$cyclic": kind})


def null_proto(obj):
    return V({"$nullProto": form(obj)})


def jsmap(pairs):
    return V({"$map": form(pairs)})


def fetch_headers(pairs):
    return V({"$headers": form(pairs)})


def boxed(value):
    return V({"$boxed": form(value)})


def symbol(desc):
    return V({"$symbol": desc})


def func(name):
    return V({"$function": name})


def rep_array(value, count):
    return V({"$repeatArray": [form(value), count]})


def text(s):
    """A JavaScript string body: its bytes are its UTF-8 encoding."""
    return V(s, s.encode("utf-8"))


def form(value):
    if isinstance(value, V):
        return value.form
    if isinstance(value, dict):
        return {k: form(v) for k, v in value.items() if v is not OMIT}
    if isinstance(value, (list, tuple)):
        return [form(v) for v in value]
    return value


# --------------------------------------------------------------------------------------

class Catalogue:
    def __init__(self, name, function, notes):
        self.name = name
        self.function = function
        self.notes = notes
        self.rows = []

    def add(self, comment, flags, args, expected, function=None, **extra):
        row = {"id": len(self.rows) + 1, "comment": comment, "flags": flags}
        if function is not None and function != self.function:
            row["function"] = function
        row["args"] = form(list(args))
        for key, value in extra.items():
            row[key] = form(value)
        row["expected"] = form(expected)
        self.rows.append(row)

    def write(self, outdir):
        doc = {"schema": SCHEMA, "function": self.function,
               "notes": self.notes + " " + NOTES_COMMON, "tests": self.rows}
        path = os.path.join(outdir, self.name)
        with open(path, "w", encoding="ascii") as f:
            json.dump(doc, f, indent=2, ensure_ascii=True)
            f.write("\n")
        return path


def err(code):
    return {"error": code}


def ok(**fields):
    out = {"ok": True}
    out.update(fields)
    return out


OK_ACTIVE = ok(matchedSecret="active", timestamp=NOW)

AUTO = object()


def delivery(body=AUTO, ts=TS, sig=AUTO, secrets=SECRET, now=NOW, skew=SKEW, max_body=OMIT,
             sign_secret=SECRET, sign_ts=None, **extra):
    """verifySignature/verifyWebhook options; `sig` computed by Python over the body's bytes."""
    if body is AUTO:
        body = raw(EVENT)
    if sig is AUTO:
        data = body.data if isinstance(body, V) else None
        if data is None:
            data = EVENT
        signed_ts = sign_ts if sign_ts is not None else (ts if isinstance(ts, str) else TS)
        sig = machex(sign_secret, signed_ts, data)
    opts = {"body": body, "timestamp": ts, "signature": sig, "secrets": secrets,
            "nowSecs": now, "maxSkewSecs": skew, "maxBodyBytes": max_body}
    opts.update(extra)
    return {k: v for k, v in opts.items() if v is not OMIT}


def noncanonical(b64):
    """The same 32 bytes in base64 with the two unused trailing bits set."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = alphabet.index(b64[42])
    assert last & 3 == 0
    return b64[:42] + alphabet[last | 1] + "="


def without(opts, *keys):
    return {k: v for k, v in opts.items() if k not in keys}


# ======================================================================================
# hostile_verify.json: verifySignature and verifyWebhook (one-shot)
# ======================================================================================

def build_verify():
    c = Catalogue(
        "hostile_verify.json", "verifySignature",
        "verifySignature / verifyWebhook with hostile inputs. Order of checks (DESIGN.md, "
        "docs/decisions.md): arguments and options (invalid_argument, the secret set's shape "
        "included) -> body type (body_not_raw) -> body size (body_too_large) -> timestamp present "
        "-> well-formed -> signature present -> well-formed -> secret material (no_secrets, "
        "secret_empty) -> HMAC (signature_mismatch) -> skew -> envelope (verifyWebhook). A "
        "timestamp or signature that is not a string is timestamp_malformed / signature_malformed; "
        "null and undefined header values are absent (Fetch Headers.get returns null for an "
        "absent header); an array of strings is the header's values, one per occurrence (Node's "
        "req.headersDistinct): empty is absent, one value is that value, two or more are "
        "header_duplicated, reported where the value would be found malformed. The runner also builds a Verifier from the same secrets/options when it "
        "constructs and checks that it gives the same answer.")
    add = c.add
    good = delivery()

    # -- the options object itself
    add("no argument at all", ["WrongType", "Undefined"], [], err("invalid_argument"))
    add("options null", ["WrongType", "Null"], [None], err("invalid_argument"))
    add("options explicitly undefined", ["WrongType", "Undefined"], [UNDEF], err("invalid_argument"))
    add("options an array", ["WrongType"], [[]], err("invalid_argument"))
    add("options an array holding a valid options object", ["WrongType"], [[good]], err("invalid_argument"))
    add("options a string", ["WrongType"], ["body"], err("invalid_argument"))
    add("options a number", ["WrongType"], [1], err("invalid_argument"))
    add("options a Map holding the right entries", ["WrongType"],
        [jsmap([[k, v] for k, v in good.items()])], err("invalid_argument"))
    add("unknown option maxSkew (typo of maxSkewSecs) beside a valid delivery", ["UnknownKey"],
        [dict(good, maxSkew=300)], err("invalid_argument"))
    add("unknown option secret (singular) instead of secrets", ["UnknownKey"],
        [dict(without(good, "secrets"), secret=SECRET)], err("invalid_argument"))
    add("an own __proto__ key (as JSON.parse creates it) is an unknown option", ["UnknownKey", "Prototype"],
        [dict(good, __proto__={"maxSkewSecs": 1})], err("invalid_argument"))
    add("unknown option and every other input bad: invalid_argument first", ["UnknownKey", "OrderOfChecks"],
        [{"body": None, "timestamp": "", "signature": "", "secrets": "", "nowSecs": NAN, "extra": 1}],
        err("invalid_argument"))
    add("options object with a null prototype is still an options object", ["Valid", "Prototype"],
        [null_proto(good)], OK_ACTIVE)

    # -- nowSecs
    for label, value in [("NaN", NAN), ("Infinity", INF), ("-Infinity", NINF), ("-1", -1),
                         ("1.5 (fractional)", 1700000000.5), ("2^53 (not a safe integer)", 2**53),
                         ("1e300", 1e300), ("a string of digits", "1700000000"), ("null", None),
                         ("a BigInt", bigint(NOW)), ("a Number object", boxed(NOW)),
                         ("an array", [NOW]), ("true", True)]:
        add(f"nowSecs {label}", ["Options", "NowSecs"], [dict(good, nowSecs=value)], err("invalid_argument"))
    add("nowSecs missing", ["Options", "NowSecs", "Undefined"], [without(good, "nowSecs")], err("invalid_argument"))
    add("nowSecs -0 is the integer 0: the delivery is then far in the future", ["Options", "NegativeZero"],
        [dict(good, nowSecs=NEG0)], err("timestamp_in_future"))
    add("nowSecs in milliseconds is a valid integer: the delivery is then too old", ["Options", "NowSecs"],
        [dict(good, nowSecs=NOW * 1000)], err("timestamp_too_old"))
    add("nowSecs 2^53-1 (the largest safe integer): too old, no overflow", ["Options", "Huge"],
        [dict(good, nowSecs=MAX_SAFE)], err("timestamp_too_old"))

    # -- maxSkewSecs
    for label, value in [("NaN", NAN), ("Infinity", INF), ("-1", -1), ("0.5", 0.5), ("2^53", 2**53),
                         ("a string", "300"), ("null", None), ("a BigInt", bigint(300))]:
        add(f"maxSkewSecs {label}", ["Options", "MaxSkewSecs"], [dict(good, maxSkewSecs=value)],
            err("invalid_argument"))
    add("maxSkewSecs missing (no hidden default)", ["Options", "MaxSkewSecs", "Undefined"],
        [without(good, "maxSkewSecs")], err("invalid_argument"))
    add("maxSkewSecs -0 is 0: exact timestamp accepted", ["Options", "NegativeZero", "Valid"],
        [dict(good, maxSkewSecs=NEG0)], OK_ACTIVE)
    add("maxSkewSecs 0 and one second late: 0 never disables the check", ["Options", "Skew"],
        [dict(good, maxSkewSecs=0, nowSecs=NOW + 1)], err("timestamp_too_old"))
    add("maxSkewSecs 2^53-1 with nowSecs 0: accepted, no overflow", ["Options", "Huge", "Valid"],
        [dict(good, maxSkewSecs=MAX_SAFE, nowSecs=0)], OK_ACTIVE)

    # -- maxBodyBytes
    for label, value in [("0", 0), ("-0 (zero)", NEG0), ("-1", -1), ("1.5", 1.5), ("NaN", NAN),
                         ("Infinity", INF), ("64 MiB + 1", 64 * MIB + 1), ("2^53", 2**53),
                         ("a string", "1024"), ("null", None), ("a BigInt", bigint(1024))]:
        add(f"maxBodyBytes {label}", ["Options", "MaxBodyBytes"], [dict(good, maxBodyBytes=value)],
            err("invalid_argument"))
    add("maxBodyBytes 64 MiB (the largest allowed)", ["Options", "MaxBodyBytes", "Valid"],
        [dict(good, maxBodyBytes=64 * MIB)], OK_ACTIVE)
    add("maxBodyBytes present but undefined: the default applies", ["Options", "Undefined", "Valid"],
        [dict(good, maxBodyBytes=UNDEF)], OK_ACTIVE)

    # -- secrets: shape (invalid_argument, first)
    entry = {"secret": SECRET, "kind": "active"}
    for label, value in [
        ("a number", 42), ("null", None), ("true", True), ("an object instead of an array", entry),
        ("an array of strings", [SECRET]), ("an array holding null", [None]),
        ("an array holding an array", [[SECRET, "active"]]),
        ("an entry without kind", [{"secret": SECRET}]),
        ("an entry with kind ACTIVE (markers are lowercase)", [{"secret": SECRET, "kind": "ACTIVE"}]),
        ("an entry with kind primary", [{"secret": SECRET, "kind": "primary"}]),
        ("an entry with an unknown key", [dict(entry, note="x")]),
        ("an entry whose secret is a number", [{"secret": 1234, "kind": "active"}]),
        ("an entry whose secret is a String object", [{"secret": boxed(SECRET), "kind": "active"}]),
        ("an entry whose secret is missing", [{"kind": "active"}]),
        ("two active entries", [entry, dict(entry)]),
        ("no active entry (only pending)", [{"secret": SECRET, "kind": "pending"}]),
        ("five entries (at most 4)", [entry] + [{"secret": f"p{i}", "kind": "pending"} for i in range(4)]),
        ("100000 entries (before any copy)", rep_array({"secret": "p", "kind": "pending"}, 100000)),
        ("a retiring entry without acceptUntilSecs", [entry, {"secret": OTHER, "kind": "retiring"}]),
        ("an active entry with acceptUntilSecs", [dict(entry, acceptUntilSecs=NOW)]),
        ("acceptUntilSecs NaN", [entry, {"secret": OTHER, "kind": "retiring", "acceptUntilSecs": NAN}]),
        ("acceptUntilSecs -1", [entry, {"secret": OTHER, "kind": "retiring", "acceptUntilSecs": -1}]),
        ("acceptUntilSecs 1.5", [entry, {"secret": OTHER, "kind": "retiring", "acceptUntilSecs": 1.5}]),
        ("acceptUntilSecs Infinity", [entry, {"secret": OTHER, "kind": "retiring", "acceptUntilSecs": INF}]),
        ("acceptUntilSecs a string", [entry, {"secret": OTHER, "kind": "retiring", "acceptUntilSecs": "1700000000"}]),
        ("a String object", boxed(SECRET)),
        ("a 100000-level nested array", deep_array(100000, SECRET)),
        ("a cyclic array", cyclic("array")),
    ]:
        add(f"secrets {label}", ["Secrets", "Shape"], [dict(good, secrets=value)], err("invalid_argument"))
    add("secrets missing", ["Secrets", "Undefined"], [without(good, "secrets")], err("invalid_argument"))
    add("secret string with a lone high surrogate (cannot be UTF-8 as saved)", ["Secrets", "LoneSurrogate"],
        [dict(good, secrets=lone("whsec_\\uD800"))], err("invalid_argument"))
    add("secret entry with a lone low surrogate", ["Secrets", "LoneSurrogate"],
        [dict(good, secrets=[{"secret": lone("\\uDC00whsec"), "kind": "active"}])], err("invalid_argument"))
    add("a shape error and a null body: the shape (an argument) comes first", ["Secrets", "OrderOfChecks"],
        [dict(good, secrets=[entry, dict(entry)], body=None)], err("invalid_argument"))

    # -- secrets: material (after the signature grammar)
    add("secrets an empty array", ["Secrets", "NoSecrets"], [dict(good, secrets=[])], err("no_secrets"))
    add("secrets an empty string", ["Secrets", "EmptySecret"], [dict(good, secrets="")], err("secret_empty"))
    add("an empty active entry", ["Secrets", "EmptySecret"],
        [dict(good, secrets=[{"secret": "", "kind": "active"}])], err("secret_empty"))
    add("an empty pending entry beside a good active one", ["Secrets", "EmptySecret"],
        [dict(good, secrets=[entry, {"secret": "", "kind": "pending"}])], err("secret_empty"))
    add("empty secret list and an empty signature: signature_missing first", ["Secrets", "OrderOfChecks"],
        [dict(good, secrets=[], signature="")], err("signature_missing"))
    add("empty secret and a malformed timestamp: timestamp_malformed first", ["Secrets", "OrderOfChecks"],
        [dict(good, secrets="", timestamp="x")], err("timestamp_malformed"))
    add("empty secret and a malformed signature: signature_malformed first", ["Secrets", "OrderOfChecks"],
        [dict(good, secrets="", signature="v1=zz")], err("signature_malformed"))
    add("whitespace-only secret, delivery signed with another secret", ["Secrets", "Whitespace"],
        [dict(good, secrets="   ")], err("signature_mismatch"))
    add("whitespace-only secret used as saved (not trimmed, not empty)", ["Secrets", "Whitespace", "Valid"],
        [delivery(secrets="   ", sign_secret="   ")], OK_ACTIVE)
    add("secret of a tab and a newline used as saved", ["Secrets", "Whitespace", "Valid"],
        [delivery(secrets="\t\n", sign_secret="\t\n")], OK_ACTIVE)
    add("secret with a trailing newline against a signature by the trimmed secret (no trimming)",
        ["Secrets", "Whitespace"], [delivery(secrets=SECRET + "\n", sign_secret=SECRET)], err("signature_mismatch"))
    add("non-ASCII secret as its UTF-8 bytes", ["Secrets", "NonAscii", "Valid"],
        [delivery(secrets="s\u00e9cret\u20ac\U0001F511", sign_secret="s\u00e9cret\u20ac\U0001F511")], OK_ACTIVE)
    nfc = unicodedata.normalize("NFC", "s\u00e9cret")
    nfd = unicodedata.normalize("NFD", "s\u00e9cret")
    add("NFD secret against a signature by the NFC secret (no normalisation)", ["Secrets", "Unicode"],
        [delivery(secrets=nfd, sign_secret=nfc)], err("signature_mismatch"))
    add("secret holding NUL bytes used as saved", ["Secrets", "Nul", "Valid"],
        [delivery(secrets="a\u0000b\u0000", sign_secret="a\u0000b\u0000")], OK_ACTIVE)
    add("a 1 MiB secret (longer than the HMAC block) used as saved", ["Secrets", "Megabyte", "Valid"],
        [delivery(secrets=rep("k", MIB), sign_secret="k" * MIB)], OK_ACTIVE)
    add("whsec_ secret against a signature by its base64-decoded tail (the string is the key)",
        ["Secrets", "Prefix"], [delivery(secrets="whsec_dGVzdA==", sign_secret=b"test")], err("signature_mismatch"))
    add("the same secret as active and pending: active reported", ["Secrets", "Rotation", "Valid"],
        [dict(good, secrets=[{"secret": SECRET, "kind": "pending"}, entry])], OK_ACTIVE)
    add("retiring secret at its bound (inclusive)", ["Secrets", "Rotation", "Valid"],
        [dict(good, secrets=[{"secret": OTHER, "kind": "active"},
                             {"secret": SECRET, "kind": "retiring", "acceptUntilSecs": NOW}])],
        ok(matchedSecret="retiring", timestamp=NOW))
    add("retiring secret one second after its bound", ["Secrets", "Rotation"],
        [dict(good, nowSecs=NOW + 1, secrets=[{"secret": OTHER, "kind": "active"},
                                                {"secret": SECRET, "kind": "retiring", "acceptUntilSecs": NOW}])],
        err("signature_mismatch"))
    add("acceptUntilSecs -0 is 0 (a bound long past)", ["Secrets", "Rotation", "NegativeZero"],
        [dict(good, secrets=[{"secret": OTHER, "kind": "active"},
                             {"secret": SECRET, "kind": "retiring", "acceptUntilSecs": NEG0}])],
        err("signature_mismatch"))

    # -- body types
    for label, value in [("missing", OMIT), ("null", None), ("the number 0", 0), ("true", True),
                         ("an empty object", {}), ("the parsed event object", json.loads(EVENT)),
                         ("an array of byte values", list(EVENT)), ("a Map", jsmap([])),
                         ("a Symbol", symbol("body")), ("a function", func("body")),
                         ("a String object", boxed(EVENT.decode())), ("a BigInt", bigint(1)),
                         ("a detached ArrayBuffer", detached("ArrayBuffer"))]:
        opts = dict(good)
        if value is OMIT:
            del opts["body"]
        else:
            opts["body"] = value
        add(f"body {label}", ["Body", "WrongType"], [opts], err("body_not_raw"))
    add("body a string with a lone surrogate (not its UTF-8 bytes)", ["Body", "LoneSurrogate"],
        [dict(good, body=lone('{"a":"\\uD800"}'))], err("body_not_raw"))
    add("body a Uint8Array whose buffer was transferred away (its bytes are gone)", ["Body", "Detached"],
        [dict(good, body=detached("Uint8Array"), signature=machex(SECRET, TS, b""))], err("body_not_raw"))
    add("body a DataView whose buffer was transferred away", ["Body", "Detached"],
        [dict(good, body=detached("DataView"), signature=machex(SECRET, TS, b""))], err("body_not_raw"))
    add("body a Uint8Array left out of bounds by shrinking its resizable ArrayBuffer", ["Body", "OutOfBounds"],
        [dict(good, body=out_of_bounds("Uint8Array"), signature=machex(SECRET, TS, b""))], err("body_not_raw"))
    add("body a DataView left out of bounds by shrinking its resizable ArrayBuffer", ["Body", "OutOfBounds"],
        [dict(good, body=out_of_bounds("DataView"), signature=machex(SECRET, TS, b""))], err("body_not_raw"))
    for label, kind in [("a Node Buffer", "buffer"), ("an ArrayBuffer", "arrayBuffer"),
                        ("a DataView", "dataView"), ("a SharedArrayBuffer", "sharedArrayBuffer")]:
        add(f"body {label} of the raw bytes", ["Body", "Valid"], [delivery(body=typed(kind, EVENT))], OK_ACTIVE)
    f64 = EVENT + b" " * ((-len(EVENT)) % 8)
    add("body a Float64Array: its raw bytes are verified", ["Body", "Valid"],
        [delivery(body=typed("float64Array", f64))], OK_ACTIVE)
    add("body a string: its UTF-8 bytes", ["Body", "Valid"], [delivery(body=text(EVENT.decode()))], OK_ACTIVE)
    add("empty string body with a signature over nothing", ["Body", "Empty", "Valid"],
        [delivery(body=text(""))], OK_ACTIVE)
    add("body null and a missing timestamp: body_not_raw first", ["Body", "OrderOfChecks"],
        [dict(without(good, "timestamp"), body=None)], err("body_not_raw"))
    add("body null and nowSecs NaN: invalid_argument first", ["Body", "OrderOfChecks"],
        [dict(good, body=None, nowSecs=NAN)], err("invalid_argument"))

    # -- body size
    add("17 bytes over maxBodyBytes 16", ["Body", "TooLarge"], [delivery(body=raw(b"x" * 17), max_body=16)],
        err("body_too_large"))
    add("exactly maxBodyBytes 16", ["Body", "Limit", "Valid"], [delivery(body=raw(b"x" * 16), max_body=16)], OK_ACTIVE)
    add("8 characters of 2 UTF-8 bytes each against maxBodyBytes 15: bytes are counted",
        ["Body", "TooLarge", "NonAscii"], [delivery(body=text("\u00e9" * 8), max_body=15)], err("body_too_large"))
    add("8 characters of 2 UTF-8 bytes each against maxBodyBytes 16", ["Body", "Limit", "NonAscii", "Valid"],
        [delivery(body=text("\u00e9" * 8), max_body=16)], OK_ACTIVE)
    add("4 MiB + 1 bytes against the default limit", ["Body", "TooLarge", "Megabyte"],
        [delivery(body=rep_bytes(b"a", 4 * MIB + 1))], err("body_too_large"))
    add("a string of 4 MiB + 1 ASCII characters against the default limit", ["Body", "TooLarge", "Megabyte"],
        [delivery(body=rep("a", 4 * MIB + 1))], err("body_too_large"))
    add("2 Mi + 1 two-byte characters (fewer UTF-16 units than the limit, more bytes)",
        ["Body", "TooLarge", "Megabyte", "NonAscii"], [delivery(body=rep("\u00e9", 2 * MIB + 1))],
        err("body_too_large"))
    add("exactly 4 MiB with a valid signature", ["Body", "Limit", "Megabyte", "Valid"],
        [delivery(body=rep_bytes(b"\x00", 4 * MIB))], OK_ACTIVE)
    add("16 MiB + 1 against maxBodyBytes 16 MiB: rejected before any copy into wasm",
        ["Body", "TooLarge", "Megabyte", "NoCopy"],
        [delivery(body=rep_bytes(b"b", 16 * MIB + 1), max_body=16 * MIB, sig="00" * 32)],
        err("body_too_large"), wasmGrowthBelow=MIB)
    add("too large and a malformed signature: body_too_large first", ["Body", "OrderOfChecks"],
        [delivery(body=raw(b"x" * 17), max_body=16, sig="v9=zz")], err("body_too_large"))

    # -- timestamp
    for label, value in [("empty", ""), ("null", None)]:
        add(f"timestamp {label}", ["Timestamp", "Missing"], [dict(good, timestamp=value)], err("timestamp_missing"))
    add("timestamp missing", ["Timestamp", "Missing", "Undefined"], [without(good, "timestamp")],
        err("timestamp_missing"))
    malformed = [
        ("a space", " "), ("a plus sign", "+1700000000"), ("a minus sign", "-1700000000"),
        ("a leading space", " 1700000000"), ("a trailing space", "1700000000 "),
        ("a trailing newline", "1700000000\n"), ("a leading tab", "\t1700000000"),
        ("a decimal point", "1700000000.0"), ("an exponent", "1.7e9"), ("hex", "0x6553f100"),
        ("underscores", "1_700_000_000"),
        ("full-width digits", "\uff11\uff17\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10"),
        ("Arabic-Indic digits", "\u0661\u0667\u0660\u0660\u0660\u0660\u0660\u0660\u0660\u0660"),
        ("Extended Arabic-Indic digits", "\u06f1\u06f7\u06f0\u06f0\u06f0\u06f0\u06f0\u06f0\u06f0\u06f0"),
        ("Devanagari digits", "\u0967\u096d\u0966\u0966\u0966\u0966\u0966\u0966\u0966\u0966"),
        ("mathematical bold digits (astral)", "\U0001D7CF\U0001D7D5" + "\U0001D7CE" * 8),
        ("a NUL suffix", "1700000000\u0000"), ("a junk suffix", "1700000000abc"),
        ("two values joined by a proxy", "1700000000, 1700000001"),
        ("13 digits (milliseconds)", "1700000000000"), ("20 digits", "9" * 20),
        ("2^63", "9223372036854775808"), ("1 MiB of digits", rep("1", MIB)),
        ("a lone surrogate suffix", lone("1700000000\\uD800")),
        ("a number", NOW), ("NaN", NAN), ("a BigInt", bigint(NOW)), ("true", True), ("an object", {}),
        ("an array holding a number", [NOW]), ("a String object", boxed(TS)),
    ]
    for label, value in malformed:
        add(f"timestamp {label}", ["Timestamp", "Malformed"], [dict(good, timestamp=value)], err("timestamp_malformed"))
    # An array is the header's values, one per occurrence (Node's req.headersDistinct).
    add("timestamp as an array of one value (one occurrence)", ["Timestamp", "Array", "Valid"],
        [dict(good, timestamp=[TS])], OK_ACTIVE)
    add("timestamp as an empty array (no occurrence)", ["Timestamp", "Array", "Missing"],
        [dict(good, timestamp=[])], err("timestamp_missing"))
    add("timestamp as an array of two values (sent twice)", ["Timestamp", "Array", "Duplicated"],
        [dict(good, timestamp=[TS, TS])], err("header_duplicated"))
    add("timestamp sent twice and a null body: body_not_raw first", ["Timestamp", "Array", "OrderOfChecks"],
        [dict(good, timestamp=[TS, TS], body=None)], err("body_not_raw"))
    add("timestamp sent twice and the signature missing: header_duplicated first", ["Timestamp", "Array", "OrderOfChecks"],
        [dict(without(good, "signature"), timestamp=[TS, "1700000001"])], err("header_duplicated"))
    add("timestamp with a leading zero, signed over those very bytes", ["Timestamp", "Valid"],
        [delivery(ts="0" + TS)], OK_ACTIVE)
    add("timestamp \"0\" at nowSecs 0", ["Timestamp", "Valid"], [delivery(ts="0", now=0)], ok(matchedSecret="active", timestamp=0))
    add("12-digit timestamp (the largest allowed length)", ["Timestamp", "Valid"],
        [delivery(ts="999999999999", now=999999999999)], ok(matchedSecret="active", timestamp=999999999999))
    add("header timestamp differs from the signed one", ["Timestamp", "Mismatch"],
        [delivery(ts="1700000001", sign_ts=TS, now=NOW)], err("signature_mismatch"))
    add("timestamp missing and signature a number: timestamp_missing first", ["Timestamp", "OrderOfChecks"],
        [dict(without(good, "timestamp"), signature=1234)], err("timestamp_missing"))
    add("signature a number and no secrets: signature_malformed first", ["Signature", "OrderOfChecks"],
        [dict(good, signature=1234, secrets=[])], err("signature_malformed"))
    add("timestamp malformed and signature empty: timestamp first", ["Timestamp", "OrderOfChecks"],
        [dict(good, timestamp="x", signature="")], err("timestamp_malformed"))
    add("exactly maxSkewSecs old", ["Timestamp", "Skew", "Valid"], [dict(good, nowSecs=NOW + SKEW)], OK_ACTIVE)
    add("maxSkewSecs + 1 old", ["Timestamp", "Skew"], [dict(good, nowSecs=NOW + SKEW + 1)], err("timestamp_too_old"))
    add("exactly maxSkewSecs ahead", ["Timestamp", "Skew", "Valid"], [dict(good, nowSecs=NOW - SKEW)], OK_ACTIVE)
    add("maxSkewSecs + 1 ahead", ["Timestamp", "Skew"], [dict(good, nowSecs=NOW - SKEW - 1)], err("timestamp_in_future"))
    add("too old and signed by another secret: signature_mismatch first", ["Timestamp", "OrderOfChecks"],
        [delivery(sign_secret=OTHER, now=NOW + 10 * SKEW)], err("signature_mismatch"))

    # -- signature
    for label, value in [("empty", ""), ("spaces only", "   "), ("a tab only", "\t"), ("null", None)]:
        add(f"signature {label}", ["Signature", "Missing"], [dict(good, signature=value)], err("signature_missing"))
    add("signature missing", ["Signature", "Missing", "Undefined"], [without(good, "signature")], err("signature_missing"))
    b64 = base64.b64encode(bytes.fromhex(GOOD_SIG)).decode()
    sig_malformed = [
        ("v1= with no value", "v1="), ("the bare marker v1", "v1"), ("63 hex digits", GOOD_SIG[:63]),
        ("65 hex digits", GOOD_SIG + "0"), ("one hex digit", GOOD_SIG[:1]),
        ("64 characters with an e-acute", GOOD_SIG[:63] + "\u00e9"),
        ("full-width hex digits", "".join(chr(0xFF10 + int(ch)) if ch.isdigit() else chr(0xFF41 + ord(ch) - 97) for ch in GOOD_SIG)),
        ("a lone surrogate", lone("v1=" + GOOD_SIG[:63] + "\\uD800")),
        ("a newline inside", GOOD_SIG[:32] + "\n" + GOOD_SIG[32:]), ("a NUL after the value", GOOD_SIG + "\u0000"),
        ("uppercase marker V1=", "V1=" + GOOD_SIG), ("unknown marker v2=", "v2=" + GOOD_SIG),
        ("a t= item that differs from the timestamp", "t=1700000001,v1=" + GOOD_SIG),
        ("a t= item with a leading zero", "t=01700000000,v1=" + GOOD_SIG),
        ("the good value then ,junk", GOOD_SIG + ",junk"),
        ("only t= and commas", "t=1700000000,,,"),
        ("nine candidates (at most 8), the good one first", ",".join(["v1=" + GOOD_SIG] * 9)),
        ("1025 bytes (at most 1024)", "v1=" + GOOD_SIG + " " * (1025 - 67)),
        ("1 MiB", rep("a", MIB)), ("100000 v1= items (6.7 MB)", rep("v1=" + GOOD_SIG + ",", 100000)),
        ("base64 with non-zero trailing bits (non-canonical)", noncanonical(b64)),
        ("a number", 1234), ("an array holding an object", [{"v1": GOOD_SIG}]),
        ("a String object", boxed(GOOD_SIG)), ("an object", {"v1": GOOD_SIG}), ("a BigInt", bigint(1)),
    ]
    for label, value in sig_malformed:
        add(f"signature {label}", ["Signature", "Malformed"], [dict(good, signature=value)], err("signature_malformed"))
    add("signature as an array of the good value (one occurrence)", ["Signature", "Array", "Valid"],
        [dict(good, signature=[GOOD_SIG])], OK_ACTIVE)
    add("signature as an empty array (no occurrence)", ["Signature", "Array", "Missing"],
        [dict(good, signature=[])], err("signature_missing"))
    add("signature as an array of two good values (sent twice)", ["Signature", "Array", "Duplicated"],
        [dict(good, signature=[GOOD_SIG, GOOD_SIG])], err("header_duplicated"))
    add("signature sent twice and the timestamp malformed: timestamp first", ["Signature", "Array", "OrderOfChecks"],
        [dict(good, signature=[GOOD_SIG, GOOD_SIG], timestamp="x")], err("timestamp_malformed"))
    add("signature sent twice and no secrets: header_duplicated first", ["Signature", "Array", "OrderOfChecks"],
        [dict(good, signature=[GOOD_SIG, GOOD_SIG], secrets=[])], err("header_duplicated"))
    cands = ["v1=" + "00" * 32] * 7 + ["v1=" + GOOD_SIG]
    add("eight candidates, the last one good", ["Signature", "Candidates", "Valid"],
        [dict(good, signature=",".join(cands))], OK_ACTIVE)
    for label, value in [("sha256= marker", "sha256=" + GOOD_SIG), ("uppercase hex", GOOD_SIG.upper()),
                         ("padded standard base64", b64),
                         ("URL-safe base64 without padding", b64.rstrip("=").replace("+", "-").replace("/", "_")),
                         ("Standard Webhooks style v1,<base64>", "v1," + b64),
                         ("Stripe style t=<ts>,v1=<hex>", "t=" + TS + ",v1=" + GOOD_SIG),
                         ("a trailing comma", GOOD_SIG + ","), ("tabs and spaces around", "\t " + GOOD_SIG + " \t")]:
        add(f"signature with {label}", ["Signature", "Valid"], [dict(good, signature=value)], OK_ACTIVE)
    add("a 64-digit value signed by another secret", ["Signature", "Mismatch"],
        [delivery(sign_secret=OTHER)], err("signature_mismatch"))
    add("signature malformed and secrets empty: signature first", ["Signature", "OrderOfChecks"],
        [dict(good, signature="v1=", secrets=[])], err("signature_malformed"))

    # -- verifyWebhook: the envelope after a valid signature
    W = "verifyWebhook"

    def webhook(comment, flags, body, expected, **kw):
        add(comment, ["Webhook"] + flags, [delivery(body=body, **kw)], expected, function=W)

    webhook("a valid event", ["Valid"], raw(EVENT), ok(matchedSecret="active", timestamp=NOW, event=EVENT_FIELDS))
    webhook("a valid event given as a Node Buffer", ["Valid"], typed("buffer", EVENT),
            ok(matchedSecret="active", timestamp=NOW, event=EVENT_FIELDS))
    webhook("a valid event in a SharedArrayBuffer", ["Valid"], typed("sharedArrayBuffer", EVENT),
            ok(matchedSecret="active", timestamp=NOW, event=EVENT_FIELDS))
    webhook("duplicate key at the top level", ["DuplicateKey"],
            raw(EVENT[:-1] + b',"event_id":"evt_h2"}'), err("event_duplicate_key"))
    webhook("duplicate key inside data", ["DuplicateKey"],
            raw(envelope(data='{"payment_id":"pay_h1","status_version":7,"status_version":8}')),
            err("event_duplicate_key"))
    webhook("duplicate key spelled with an escape (\\u0065vent_id)", ["DuplicateKey"],
            raw(EVENT[:-1] + b',"\\u0065vent_id":"evt_h2"}'), err("event_duplicate_key"))
    webhook("duplicate key in an unknown nested field", ["DuplicateKey"],
            raw(envelope(extra='{"a":{"b":1,"b":2}}')), err("event_duplicate_key"))
    webhook("100000 levels of nested arrays", ["DeepNesting"],
            V({"$concat": [{"$repeat": ["[", 100000]}, {"$repeat": ["]", 100000]}]},
              b"[" * 100000 + b"]" * 100000), err("event_not_json"))
    webhook("100000 levels of nested objects inside data", ["DeepNesting"],
            V({"$concat": ['{"schema_version":1,"event_id":"evt_h1","event_type":"payment.updated",'
                           '"occurred_at":"2023-11-14T22:13:20Z","data":{"payment_id":"pay_h1","status_version":7,"x":',
                           {"$repeat": ['{"a":', 100000]}, "1", {"$repeat": ["}", 100000]}, "}}"]},
              envelope(data='{"payment_id":"pay_h1","status_version":7,"x":' + '{"a":' * 100000 + "1" + "}" * 100000 + "}")),
            err("event_not_json"))
    webhook("a UTF-8 BOM before the object", ["NotJson"], raw(b"\xef\xbb\xbf" + EVENT), err("event_not_json"))
    webhook("an invalid UTF-8 byte inside a string", ["NotJson", "InvalidUtf8"],
            raw(EVENT.replace(b'"2023-11-14T22:13:20Z"', b'"\xff"')), err("event_not_json"))
    webhook("an escaped lone surrogate inside a string", ["NotJson", "LoneSurrogate"],
            raw(envelope(occurred_at='"\\ud800"')), err("event_not_json"))
    webhook("NaN literal (not JSON)", ["NotJson", "NaN"], raw(envelope(occurred_at="NaN")), err("event_not_json"))
    webhook("an empty body", ["NotJson", "Empty"], text(""), err("event_not_json"))
    webhook("a 1 MiB string field is fine", ["Megabyte", "Valid"],
            V({"$concat": ['{"schema_version":1,"event_id":"evt_h1","event_type":"payment.updated",'
                           '"occurred_at":"', {"$repeat": ["x", MIB]},
                           '","data":{"payment_id":"pay_h1","status_version":7}}']},
              envelope(occurred_at='"' + "x" * MIB + '"')),
            ok(matchedSecret="active", timestamp=NOW, event=EVENT_FIELDS))
    webhook("status_version 1e400 (an exponent)", ["StatusVersion", "Huge"],
            raw(envelope(data='{"payment_id":"pay_h1","status_version":1e400}')), err("status_version_invalid"))
    webhook("status_version -0 (a sign)", ["StatusVersion", "NegativeZero"],
            raw(envelope(data='{"payment_id":"pay_h1","status_version":-0}')), err("status_version_invalid"))
    webhook("status_version 7.0 (a fraction)", ["StatusVersion", "Fraction"],
            raw(envelope(data='{"payment_id":"pay_h1","status_version":7.0}')), err("status_version_invalid"))
    webhook("status_version in full-width digits", ["StatusVersion", "NonAsciiDigits"],
            raw(envelope(data='{"payment_id":"pay_h1","status_version":"\\uff17"}')), err("status_version_invalid"))
    webhook("status_version 2^64 kept exact as text", ["StatusVersion", "Huge", "Valid"],
            raw(envelope(data='{"payment_id":"pay_h1","status_version":18446744073709551616}')),
            ok(matchedSecret="active", timestamp=NOW,
               event={"paymentId": "pay_h1", "statusVersion": "18446744073709551616"}))
    webhook("schema_version -1", ["Envelope"], raw(envelope(schema_version="-1")), err("event_malformed"))
    webhook("event_type with a NUL suffix", ["Envelope", "Nul"],
            raw(envelope(event_type='"payment.updated\\u0000"')), err("event_type_unknown"))
    webhook("event_type a number", ["Envelope", "WrongType"], raw(envelope(event_type="1")), err("event_malformed"))
    webhook("top level an array", ["Envelope"], raw(b"[" + EVENT + b"]"), err("event_malformed"))
    add("bad JSON signed by another secret: signature_mismatch first", ["Webhook", "OrderOfChecks"],
        [delivery(body=raw(b"{not json"), sign_secret=OTHER)], err("signature_mismatch"), function=W)
    add("bad JSON and too old: the skew comes before the envelope", ["Webhook", "OrderOfChecks"],
        [delivery(body=raw(b"{not json"), now=NOW + SKEW + 1)], err("timestamp_too_old"), function=W)
    add("verifyWebhook without arguments", ["Webhook", "WrongType"], [], err("invalid_argument"), function=W)
    add("verifyWebhook with a parsed object as body", ["Webhook", "Body", "WrongType"],
        [dict(good, body=json.loads(EVENT))], err("body_not_raw"), function=W)
    add("verifyWebhook with a detached Uint8Array body", ["Webhook", "Body", "Detached"],
        [dict(good, body=detached("Uint8Array"))], err("body_not_raw"), function=W)
    return c


# ======================================================================================
# hostile_verifier.json: the Verifier class
# ======================================================================================

def build_verifier():
    c = Catalogue(
        "hostile_verifier.json", "Verifier",
        "new Verifier(options) and its methods with hostile inputs. The constructor checks the "
        "options and the secret set (shape: invalid_argument; then material: no_secrets, "
        "secret_empty, there being no delivery yet). Methods take only { body, timestamp, "
        "signature, nowSecs }. Any call after free(), or on a receiver that is not a live "
        "Verifier (a detached method, a plain object), is invalid_argument (chosen: the contract "
        "names the freed case; a method torn off its instance is the same mistake). free() twice "
        "is a no-op (chosen). Calling the class without `new` is invalid_argument (chosen: every "
        "failure is a CryptoPayError).")
    add = c.add
    init = {"secrets": SECRET, "maxSkewSecs": SKEW}
    small = {"secrets": SECRET, "maxSkewSecs": SKEW, "maxBodyBytes": 16}
    call = {"body": raw(EVENT), "timestamp": TS, "signature": GOOD_SIG, "nowSecs": NOW}

    # constructor
    add("new Verifier() without options", ["WrongType", "Undefined"], [], err("invalid_argument"))
    for label, value in [("null", None), ("an array", []), ("a string", SECRET), ("a number", 300)]:
        add(f"new Verifier({label})", ["WrongType"], [value], err("invalid_argument"))
    add("maxSkewSecs missing", ["Options", "Undefined"], [{"secrets": SECRET}], err("invalid_argument"))
    add("nowSecs is not a constructor option", ["UnknownKey"], [dict(init, nowSecs=NOW)], err("invalid_argument"))
    add("body is not a constructor option", ["UnknownKey"], [dict(init, body="x")], err("invalid_argument"))
    for label, value in [("NaN", NAN), ("-1", -1), ("Infinity", INF), ("1.5", 1.5), ("a string", "300")]:
        add(f"maxSkewSecs {label}", ["Options"], [dict(init, maxSkewSecs=value)], err("invalid_argument"))
    add("maxSkewSecs -0 is 0", ["Options", "NegativeZero", "Valid"], [dict(init, maxSkewSecs=NEG0)], ok())
    for label, value in [("0", 0), ("64 MiB + 1", 64 * MIB + 1), ("NaN", NAN), ("null", None)]:
        add(f"maxBodyBytes {label}", ["Options"], [dict(init, maxBodyBytes=value)], err("invalid_argument"))
    add("secrets an empty array", ["Secrets", "NoSecrets"], [dict(init, secrets=[])], err("no_secrets"))
    add("secrets an empty string", ["Secrets", "EmptySecret"], [dict(init, secrets="")], err("secret_empty"))
    add("an empty active entry", ["Secrets", "EmptySecret"],
        [dict(init, secrets=[{"secret": "", "kind": "active"}])], err("secret_empty"))
    add("two active entries, both empty: the shape first", ["Secrets", "OrderOfChecks"],
        [dict(init, secrets=[{"secret": "", "kind": "active"}, {"secret": "", "kind": "active"}])],
        err("invalid_argument"))
    add("100000 entries", ["Secrets", "TooMany"], [dict(init, secrets=rep_array({"secret": "p", "kind": "pending"}, 100000))],
        err("invalid_argument"))
    add("five entries", ["Secrets", "TooMany"],
        [dict(init, secrets=[{"secret": "a", "kind": "active"}] + [{"secret": f"p{i}", "kind": "pending"} for i in range(4)])],
        err("invalid_argument"))
    add("a lone surrogate secret", ["Secrets", "LoneSurrogate"], [dict(init, secrets=lone("\\uD800"))],
        err("invalid_argument"))
    add("secrets a number", ["Secrets", "WrongType"], [dict(init, secrets=1)], err("invalid_argument"))
    add("secrets a 100000-level nested array", ["Secrets", "DeepNesting"],
        [dict(init, secrets=deep_array(100000, SECRET))], err("invalid_argument"))
    add("a whitespace-only secret is a secret", ["Secrets", "Whitespace", "Valid"], [dict(init, secrets=" ")], ok())
    add("a 1 MiB secret", ["Secrets", "Megabyte", "Valid"], [dict(init, secrets=rep("k", MIB))], ok())

    # methods
    VS = "Verifier#verifySignature"
    VW = "Verifier#verifyWebhook"

    def method(fn, comment, flags, args, expected, verifier=init, receiver=None):
        extra = {"verifier": verifier}
        if receiver is not None:
            extra["receiver"] = receiver
        add(comment, flags, args, expected, function=fn, **extra)

    method(VS, "a good delivery", ["Valid"], [call], OK_ACTIVE)
    method(VS, "no argument", ["WrongType", "Undefined"], [], err("invalid_argument"))
    method(VS, "null", ["WrongType", "Null"], [None], err("invalid_argument"))
    method(VS, "secrets passed per call (not an option of the method)", ["UnknownKey"],
           [dict(call, secrets=SECRET)], err("invalid_argument"))
    method(VS, "maxSkewSecs passed per call", ["UnknownKey"], [dict(call, maxSkewSecs=1)], err("invalid_argument"))
    method(VS, "nowSecs NaN", ["Options", "NaN"], [dict(call, nowSecs=NAN)], err("invalid_argument"))
    method(VS, "nowSecs missing", ["Options", "Undefined"], [without(call, "nowSecs")], err("invalid_argument"))
    method(VS, "nowSecs -0 is 0: far in the future", ["Options", "NegativeZero"], [dict(call, nowSecs=NEG0)],
           err("timestamp_in_future"))
    method(VS, "body null", ["Body", "WrongType"], [dict(call, body=None)], err("body_not_raw"))
    method(VS, "body a parsed object", ["Body", "WrongType"], [dict(call, body=json.loads(EVENT))], err("body_not_raw"))
    method(VS, "body a detached Uint8Array", ["Body", "Detached"],
           [dict(call, body=detached("Uint8Array"), signature=machex(SECRET, TS, b""))], err("body_not_raw"))
    method(VS, "body over the verifier's maxBodyBytes 16", ["Body", "TooLarge"],
           [dict(call, body=raw(b"y" * 17), signature=machex(SECRET, TS, b"y" * 17))], err("body_too_large"), verifier=small)
    method(VS, "body of 4 MiB + 1 against the default", ["Body", "TooLarge", "Megabyte"],
           [dict(call, body=rep_bytes(b"z", 4 * MIB + 1))], err("body_too_large"))
    method(VS, "timestamp in full-width digits", ["Timestamp", "NonAsciiDigits"],
           [dict(call, timestamp="\uff11\uff17\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10")], err("timestamp_malformed"))
    method(VS, "timestamp a number", ["Timestamp", "WrongType"], [dict(call, timestamp=NOW)], err("timestamp_malformed"))
    method(VS, "timestamp 1 MiB of digits", ["Timestamp", "Megabyte"], [dict(call, timestamp=rep("9", MIB))],
           err("timestamp_malformed"))
    method(VS, "signature null", ["Signature", "Null"], [dict(call, signature=None)], err("signature_missing"))
    method(VS, "nine candidates", ["Signature", "TooMany"], [dict(call, signature=",".join([GOOD_SIG] * 9))],
           err("signature_malformed"))
    method(VS, "signature 1 MiB", ["Signature", "Megabyte"], [dict(call, signature=rep("f", MIB))], err("signature_malformed"))
    method(VS, "signed by another secret", ["Signature", "Mismatch"],
           [dict(call, signature=machex(OTHER, TS, EVENT))], err("signature_mismatch"))
    method(VS, "whitespace-only secret used as saved", ["Secrets", "Whitespace", "Valid"],
           [dict(call, signature=machex(" ", TS, EVENT))], OK_ACTIVE, verifier=dict(init, secrets=" "))
    method(VS, "after free()", ["Freed"], [call], err("invalid_argument"), receiver="freed")
    method(VS, "after free(), with null", ["Freed", "Null"], [None], err("invalid_argument"), receiver="freed")
    method(VS, "method torn off the instance (this undefined)", ["Receiver"], [call], err("invalid_argument"),
           receiver="unbound")
    method(VS, "method called on a plain object", ["Receiver"], [call], err("invalid_argument"), receiver="plainObject")
    method(VS, "method called on Verifier.prototype", ["Receiver"], [call], err("invalid_argument"), receiver="prototype")
    method(VW, "a good event", ["Webhook", "Valid"], [call], ok(matchedSecret="active", timestamp=NOW, event=EVENT_FIELDS))
    method(VW, "100000 levels of nesting", ["Webhook", "DeepNesting"],
           [dict(call, body=rep("[", 100000), signature=machex(SECRET, TS, b"[" * 100000))], err("event_not_json"))
    method(VW, "duplicate key", ["Webhook", "DuplicateKey"],
           [dict(call, body=raw(EVENT[:-1] + b',"data":{}}'), signature=machex(SECRET, TS, EVENT[:-1] + b',"data":{}}'))],
           err("event_duplicate_key"))
    method(VW, "after free()", ["Webhook", "Freed"], [call], err("invalid_argument"), receiver="freed")
    method(VW, "method torn off the instance", ["Webhook", "Receiver"], [call], err("invalid_argument"), receiver="unbound")
    method("Verifier#free", "free() once", ["Free", "Valid"], [], ok(result=UNDEF))
    method("Verifier#free", "free() twice is a no-op", ["Free", "Freed", "Valid"], [], ok(result=UNDEF), receiver="freed")
    method("Verifier#free", "free() torn off the instance", ["Free", "Receiver"], [], err("invalid_argument"),
           receiver="unbound")
    method("Verifier#free", "free() on a plain object", ["Free", "Receiver"], [], err("invalid_argument"),
           receiver="plainObject")
    return c


# ======================================================================================
# hostile_headers.json: readDeliveryHeaders
# ======================================================================================

def build_headers():
    c = Catalogue(
        "hostile_headers.json", "readDeliveryHeaders",
        "readDeliveryHeaders(headers, { timestampHeader, signatureHeader }) with hostile "
        "containers. Names match ASCII case-insensitively (no Unicode case folding). A container "
        "that keeps duplicates apart (arrays, rawHeaders, Map, plain objects with names differing "
        "in case, array values) reports header_duplicated; Fetch Headers merge them. A header value "
        "of null or undefined is absent. Chosen where the contract is silent: a header value that "
        "is neither a string nor an array of strings that can be read without recursion "
        "(a cyclic array, 100000 levels of arrays, an object without a prototype) is "
        "invalid_argument; a value is returned exactly as given (a lone surrogate is not replaced).")
    add = c.add
    names = {"timestampHeader": "X-T", "signatureHeader": "X-S"}
    hdrs = {"x-t": TS, "x-s": "v1=" + GOOD_SIG}
    found = ok(result={"timestamp": TS, "signature": "v1=" + GOOD_SIG})

    add("no arguments", ["WrongType", "Undefined"], [], err("invalid_argument"))
    for label, value in [("null", None), ("undefined", UNDEF), ("a number", 1), ("a string", "x-t: 1"),
                         ("true", True), ("a function", func("headers")), ("a Symbol", symbol("h"))]:
        add(f"headers {label}", ["WrongType"], [value, names], err("invalid_argument"))
    add("names missing", ["Options", "Undefined"], [hdrs], err("invalid_argument"))
    add("names null", ["Options", "Null"], [hdrs, None], err("invalid_argument"))
    add("names a string", ["Options", "WrongType"], [hdrs, "X-T"], err("invalid_argument"))
    add("timestampHeader missing", ["Options", "Undefined"], [hdrs, {"signatureHeader": "X-S"}], err("invalid_argument"))
    add("timestampHeader a number", ["Options", "WrongType"], [hdrs, dict(names, timestampHeader=1)], err("invalid_argument"))
    add("timestampHeader empty", ["Options"], [hdrs, dict(names, timestampHeader="")], err("invalid_argument"))
    add("both names the same header in different case", ["Options"], [hdrs, {"timestampHeader": "X-T", "signatureHeader": "x-t"}],
        err("invalid_argument"))
    add("unknown option key", ["Options", "UnknownKey"], [hdrs, dict(names, bodyHeader="x")], err("invalid_argument"))
    add("rawHeaders of odd length", ["Container"], [["x-t", TS, "x-s"], names], err("invalid_argument"))
    add("an array mixing strings and pairs", ["Container"], [["x-t", ["x-s", "v"]], names], err("invalid_argument"))
    add("pairs of three items", ["Container"], [[["x-t", TS, "x"]], names], err("invalid_argument"))
    add("an array holding null", ["Container", "Null"], [[None, None], names], err("invalid_argument"))
    add("a 100000-level nested array as the container", ["Container", "DeepNesting"],
        [deep_array(100000, "x"), names], err("invalid_argument"))
    add("a Map with names differing in case", ["Duplicate"],
        [jsmap([["X-T", TS], ["x-t", TS], ["x-s", GOOD_SIG]]), names], err("header_duplicated"))
    add("a plain object with names differing in case", ["Duplicate"],
        [{"X-T": TS, "x-t": TS, "x-s": GOOD_SIG}, names], err("header_duplicated"))
    add("a value given as an array of two (Node keeps some duplicates so)", ["Duplicate"],
        [{"x-t": [TS, "1700000001"], "x-s": GOOD_SIG}, names], err("header_duplicated"))
    add("rawHeaders with the timestamp twice", ["Duplicate"],
        [["x-t", TS, "X-S", GOOD_SIG, "X-T", TS], names], err("header_duplicated"))
    add("Fetch Headers merge duplicates into one value", ["Container", "Valid"],
        [fetch_headers([["x-t", TS], ["X-T", "1700000001"], ["x-s", GOOD_SIG]]), names],
        ok(result={"timestamp": TS + ", 1700000001", "signature": GOOD_SIG}))
    add("Fetch Headers", ["Container", "Valid"], [fetch_headers([["x-t", TS], ["x-s", "v1=" + GOOD_SIG]]), names], found)
    add("a plain object without a prototype", ["Container", "Prototype", "Valid"], [null_proto(hdrs), names], found)
    add("a timestamp value of null is absent", ["Null", "Missing"], [{"x-t": None, "x-s": GOOD_SIG}, names],
        err("timestamp_missing"))
    add("a timestamp value present but undefined is absent", ["Undefined", "Missing"],
        [{"x-t": UNDEF, "x-s": GOOD_SIG}, names], err("timestamp_missing"))
    add("a signature value of null is absent", ["Null", "Missing"], [{"x-t": TS, "x-s": None}, names],
        err("signature_missing"))
    add("a full-width X in the header name does not match", ["Unicode", "Missing"],
        [{"\uff38-t": TS, "x-s": GOOD_SIG}, names], err("timestamp_missing"))
    add("the Kelvin sign (U+212A, lowercases to k) does not match k", ["Unicode", "Missing"],
        [{"x-\u212aey": TS, "x-s": GOOD_SIG}, {"timestampHeader": "x-key", "signatureHeader": "x-s"}],
        err("timestamp_missing"))
    add("a dotless i does not match i", ["Unicode", "Missing"],
        [{"x-t\u0131me": TS, "x-s": GOOD_SIG}, {"timestampHeader": "x-time", "signatureHeader": "x-s"}],
        err("timestamp_missing"))
    add("a 1 MiB timestamp value is returned unchanged (verification decides)", ["Megabyte", "Valid"],
        [{"x-t": rep("1", MIB), "x-s": GOOD_SIG}, names], ok(result={"timestamp": rep("1", MIB), "signature": GOOD_SIG}))
    add("100000 other headers in rawHeaders", ["TooMany", "Valid"],
        [V({"$concatArrays": [{"$repeatArray": ["x-other", 100000]}, ["x-t", TS, "x-s", "v1=" + GOOD_SIG]]}), names], found)
    add("a cyclic array as a header value", ["Cyclic"], [{"x-t": cyclic("array"), "x-s": GOOD_SIG}, names],
        err("invalid_argument"))
    add("100000 levels of arrays as a header value", ["DeepNesting"],
        [{"x-t": deep_array(100000, TS), "x-s": GOOD_SIG}, names], err("invalid_argument"))
    add("a detached Uint8Array as a header value", ["WrongType", "Detached"],
        [{"x-t": detached("Uint8Array"), "x-s": GOOD_SIG}, names], err("invalid_argument"))
    add("an object without a prototype as a header value", ["WrongType", "Prototype"],
        [{"x-t": null_proto({}), "x-s": GOOD_SIG}, names], err("invalid_argument"))
    # HTTP headers hold bytes: a lone surrogate can only come from a broken container, and
    # passing it on would mean changing it (to U+FFFD), so it is refused.
    add("a header value holding a lone surrogate is refused, never replaced", ["LoneSurrogate"],
        [{"x-t": lone("1700000000\\uD800"), "x-s": GOOD_SIG}, names], err("invalid_argument"))
    add("a header name holding a lone surrogate is refused", ["LoneSurrogate"],
        [[[lone("x-t\\uD800"), "1"], ["x-s", GOOD_SIG]], names], err("invalid_argument"))
    return c


# ======================================================================================
# hostile_sign_event.json: signWebhook, parseEvent, requestFingerprint
# ======================================================================================

def build_sign_event():
    c = Catalogue(
        "hostile_sign_event.json", "signWebhook",
        "signWebhook, parseEvent and requestFingerprint with hostile inputs. signWebhook order "
        "(chosen, as for verification): options and secret type -> body type -> timestamp -> "
        "empty secret. A numeric timestamp is written in decimal when it is a safe integer >= 0 "
        "(-0 is 0); any other non-string timestamp is timestamp_malformed. parseEvent and "
        "requestFingerprint have no size limit (chosen: the caller already bounded the body).")
    add = c.add
    sign = {"secret": SECRET, "timestamp": TS, "body": raw(EVENT)}
    S = ok(result=GOOD_SIG)

    add("a good call", ["Valid"], [sign], S)
    add("no arguments", ["WrongType", "Undefined"], [], err("invalid_argument"))
    add("null", ["WrongType", "Null"], [None], err("invalid_argument"))
    add("unknown option", ["UnknownKey"], [dict(sign, secrets=SECRET)], err("invalid_argument"))
    for label, value in [("a number", 1), ("null", None), ("a String object", boxed(SECRET)),
                         ("a lone surrogate", lone("whsec_\\uDFFF"))]:
        add(f"secret {label}", ["Secrets", "WrongType"], [dict(sign, secret=value)], err("invalid_argument"))
    add("secret missing", ["Secrets", "Undefined"], [without(sign, "secret")], err("invalid_argument"))
    add("secret empty", ["Secrets", "EmptySecret"], [dict(sign, secret="")], err("secret_empty"))
    add("secret empty and timestamp empty: timestamp first", ["Secrets", "OrderOfChecks"],
        [dict(sign, secret="", timestamp="")], err("timestamp_missing"))
    add("whitespace-only secret used as saved", ["Secrets", "Whitespace", "Valid"], [dict(sign, secret=" ")],
        ok(result=machex(" ", TS, EVENT)))
    add("a 1 MiB secret", ["Secrets", "Megabyte", "Valid"], [dict(sign, secret=rep("k", MIB))],
        ok(result=machex("k" * MIB, TS, EVENT)))
    for label, value in [("HEX", "HEX"), ("base64url", "base64url"), ("a number", 1)]:
        add(f"encoding {label}", ["Options"], [dict(sign, encoding=value)], err("invalid_argument"))
    add("timestamp -0 is written as 0", ["Timestamp", "NegativeZero", "Valid"], [dict(sign, timestamp=NEG0)],
        ok(result=machex(SECRET, "0", EVENT)))
    add("timestamp the number 1700000000", ["Timestamp", "Valid"], [dict(sign, timestamp=NOW)], S)
    for label, value in [("1.5", 1.5), ("NaN", NAN), ("-1", -1), ("Infinity", INF), ("1e12 (13 digits)", 1e12),
                         ("2^53 (not safe)", 2**53), ("full-width digits", "\uff11\uff17"), ("a BigInt", bigint(NOW)),
                         ("an array", [TS])]:
        add(f"timestamp {label}", ["Timestamp", "Malformed"], [dict(sign, timestamp=value)], err("timestamp_malformed"))
    add("timestamp empty", ["Timestamp", "Missing"], [dict(sign, timestamp="")], err("timestamp_missing"))
    add("timestamp missing", ["Timestamp", "Missing", "Undefined"], [without(sign, "timestamp")], err("timestamp_missing"))
    for label, value in [("null", None), ("a parsed object", json.loads(EVENT)), ("a number", 5),
                         ("a lone surrogate string", lone("\\uD83D"))]:
        add(f"body {label}", ["Body", "WrongType"], [dict(sign, body=value)], err("body_not_raw"))
    add("body missing", ["Body", "Undefined"], [without(sign, "body")], err("body_not_raw"))
    add("body a detached Uint8Array", ["Body", "Detached"], [dict(sign, body=detached("Uint8Array"))], err("body_not_raw"))
    add("body null and timestamp empty: body first", ["Body", "OrderOfChecks"], [dict(sign, body=None, timestamp="")],
        err("body_not_raw"))
    add("a 5 MiB body (no limit when signing)", ["Body", "Megabyte", "Valid"], [dict(sign, body=rep_bytes(b"\xff", 5 * MIB))],
        ok(result=machex(SECRET, TS, b"\xff" * 5 * MIB)))

    P = "parseEvent"
    for label, value in [("null", None), ("a parsed object", json.loads(EVENT)), ("a number", 7),
                         ("a lone surrogate string", lone('{"a":"\\uDC00"}')), ("a detached ArrayBuffer", detached("ArrayBuffer")),
                         ("a detached Uint8Array", detached("Uint8Array"))]:
        add(f"parseEvent of {label}", ["Body", "WrongType"], [value], err("body_not_raw"), function=P)
    add("parseEvent without an argument", ["Body", "Undefined"], [], err("body_not_raw"), function=P)
    add("parseEvent of an out-of-bounds view over a shrunk resizable ArrayBuffer", ["Body", "OutOfBounds"],
        [out_of_bounds("Uint8Array")], err("body_not_raw"), function=P)
    add("parseEvent of a SharedArrayBuffer", ["Valid"], [typed("sharedArrayBuffer", EVENT)], ok(event=EVENT_FIELDS), function=P)
    add("parseEvent of 100000 nested arrays", ["DeepNesting"], [rep("[", 100000)], err("event_not_json"), function=P)
    add("parseEvent of 100000 nested objects", ["DeepNesting"],
        [V({"$concat": [{"$repeat": ['{"a":', 100000]}, "1", {"$repeat": ["}", 100000]}]})], err("event_not_json"), function=P)
    add("parseEvent of a duplicate top-level key", ["DuplicateKey"], [raw(EVENT[:-1] + b',"event_type":"x"}')],
        err("event_duplicate_key"), function=P)
    add("parseEvent of a duplicate key deep in data", ["DuplicateKey"],
        [raw(envelope(data='{"payment_id":"pay_h1","status_version":7,"m":[{"k":1,"k":1}]}'))],
        err("event_duplicate_key"), function=P)
    add("parseEvent of a BOM", ["NotJson"], [raw(b"\xef\xbb\xbf" + EVENT)], err("event_not_json"), function=P)
    add("parseEvent of Infinity literal", ["NotJson", "Infinity"], [raw(envelope(occurred_at="Infinity"))],
        err("event_not_json"), function=P)
    add("parseEvent of a 5 MiB event (no size limit)", ["Megabyte", "Valid"],
        [V({"$concat": ['{"schema_version":1,"event_id":"evt_h1","event_type":"payment.updated",'
                        '"occurred_at":"2023-11-14T22:13:20Z","pad":"', {"$repeat": ["p", 5 * MIB]},
                        '","data":{"payment_id":"pay_h1","status_version":7}}']})],
        ok(event=EVENT_FIELDS), function=P)
    add("parseEvent event_id empty", ["Envelope"], [raw(envelope(event_id='""'))], err("event_malformed"), function=P)
    add("parseEvent event_type with a trailing space", ["Envelope"], [raw(envelope(event_type='"payment.updated "'))],
        err("event_type_unknown"), function=P)
    add("parseEvent payment_id a number", ["Envelope", "WrongType"],
        [raw(envelope(data='{"payment_id":1,"status_version":7}'))], err("event_malformed"), function=P)
    add("parseEvent status_version -1", ["StatusVersion"], [raw(envelope(data='{"payment_id":"p","status_version":-1}'))],
        err("status_version_invalid"), function=P)
    add("parseEvent status_version with a leading zero string", ["StatusVersion"],
        [raw(envelope(data='{"payment_id":"p","status_version":"07"}'))], err("status_version_invalid"), function=P)

    F = "requestFingerprint"

    def fp(data):
        return ok(result=hashlib.sha256(data).hexdigest())

    for label, value in [("null", None), ("an object", {"a": 1}), ("a number", 1), ("a lone surrogate string", lone("\\uD800")),
                         ("a detached ArrayBuffer", detached("ArrayBuffer")), ("a detached Uint8Array", detached("Uint8Array")),
                         ("a detached DataView", detached("DataView")),
                         ("an out-of-bounds Uint8Array over a shrunk resizable ArrayBuffer", out_of_bounds("Uint8Array")),
                         ("an out-of-bounds DataView over a shrunk resizable ArrayBuffer", out_of_bounds("DataView"))]:
        add(f"requestFingerprint of {label}", ["Body", "WrongType"], [value], err("body_not_raw"), function=F)
    add("requestFingerprint without an argument", ["Body", "Undefined"], [], err("body_not_raw"), function=F)
    add("requestFingerprint of 5 MiB of zeros", ["Megabyte", "Valid"], [rep_bytes(b"\x00", 5 * MIB)],
        fp(b"\x00" * 5 * MIB), function=F)
    add("requestFingerprint of a non-ASCII string (its UTF-8 bytes)", ["NonAscii", "Valid"], [text("\u00e9\U0001F600")],
        fp("\u00e9\U0001F600".encode()), function=F)
    add("requestFingerprint of a DataView", ["Valid"], [typed("dataView", b"\x01\x02\x03")], fp(b"\x01\x02\x03"), function=F)
    add("requestFingerprint of a Float64Array (raw bytes)", ["Valid"], [typed("float64Array", bytes(range(16)))],
        fp(bytes(range(16))), function=F)
    return c


# ======================================================================================
# hostile_values.json: ordering, amounts, pricing, URLs, idempotency, delivery, misc
# ======================================================================================

def build_values():
    c = Catalogue(
        "hostile_values.json", "decideEvent",
        "The value functions with hostile inputs. Choices where the contract is silent: a JS "
        "number status version must be a safe integer >= 0 (-0 is 0; 2^53 and above cannot be "
        "exact, so they are status_version_invalid; so is a BigInt); decideEvent checks the "
        "incoming version even when eventSeen is true; a value that is not a string gets the "
        "function's own code (amount_raw_invalid, amount_decimal_invalid, origin_invalid, "
        "webhook_url_malformed, idempotency_key_invalid); decimals -0 is 0; a paymentId that is "
        "not a well-formed string is invalid_argument; objects mirroring the service's JSON "
        "that JSON cannot carry (BigInt, cycles, 100000 levels, lone surrogates) get the "
        "object's own code; init() ignores its argument in Node.")
    add = c.add
    inc = {"eventId": "evt_1", "paymentId": "pay_1", "statusVersion": "5"}
    st = {"eventSeen": False, "statusVersion": "4"}
    D = "decideEvent"
    add("no arguments", ["WrongType", "Undefined"], [], err("invalid_argument"), function=D)
    add("incoming null", ["WrongType", "Null"], [None, st], err("invalid_argument"), function=D)
    add("incoming an array", ["WrongType"], [[inc], st], err("invalid_argument"), function=D)
    add("stored missing", ["WrongType", "Undefined"], [inc], err("invalid_argument"), function=D)
    add("eventId empty", ["WrongType"], [dict(inc, eventId=""), st], err("invalid_argument"), function=D)
    add("eventId a number", ["WrongType"], [dict(inc, eventId=1), st], err("invalid_argument"), function=D)
    add("paymentId missing", ["Undefined"], [without(inc, "paymentId"), st], err("invalid_argument"), function=D)
    add("eventSeen the string false", ["WrongType"], [inc, dict(st, eventSeen="false")], err("invalid_argument"), function=D)
    add("eventSeen 0", ["WrongType"], [inc, dict(st, eventSeen=0)], err("invalid_argument"), function=D)
    for label, value in [("NaN", NAN), ("Infinity", INF), ("1.5", 1.5), ("-1", -1), ("2^53", 2**53), ("1e21", 1e21),
                         ("a BigInt", bigint(5)), ("null", None), ("full-width digits", "\uff15"),
                         ("Arabic-Indic digits", "\u0665"), ("a lone surrogate", lone("5\\uD800"))]:
        add(f"incoming statusVersion {label}", ["StatusVersion"], [dict(inc, statusVersion=value), st],
            err("status_version_invalid"), function=D)
    add("incoming statusVersion missing", ["StatusVersion", "Undefined"], [without(inc, "statusVersion"), st],
        err("status_version_invalid"), function=D)
    add("incoming statusVersion invalid even when eventSeen", ["StatusVersion", "OrderOfChecks"],
        [dict(inc, statusVersion="x"), {"eventSeen": True}], err("status_version_invalid"), function=D)
    add("stored statusVersion empty", ["StatusVersion"], [inc, dict(st, statusVersion="")], err("status_version_invalid"), function=D)
    add("stored statusVersion NaN", ["StatusVersion", "NaN"], [inc, dict(st, statusVersion=NAN)], err("status_version_invalid"),
        function=D)
    add("stored statusVersion null is nothing stored", ["Null", "Valid"], [inc, dict(st, statusVersion=None)],
        ok(result="apply"), function=D)
    add("statusVersion -0 is 0 (stale against 0)", ["NegativeZero", "Valid"],
        [dict(inc, statusVersion=NEG0), dict(st, statusVersion="0")], ok(result="stale"), function=D)
    add("1 MiB digit versions compared exactly", ["Megabyte", "Valid"],
        [dict(inc, statusVersion=V({"$concat": [{"$repeat": ["9", MIB - 1]}, "8"]})),
         dict(st, statusVersion=rep("9", MIB))], ok(result="stale"), function=D)
    add("the event from verifyWebhook (extra fields) is accepted as incoming", ["Valid"],
        [dict(inc, eventType="payment.updated", data={}, envelope={}), st], ok(result="apply"), function=D)
    # A stored version under another name would read as none stored and decide 'apply'.
    for label, key in [("a row's status_version", "status_version"), ("statusversion", "statusversion"),
                       ("version", "version")]:
        add(f"stored with {label} instead of statusVersion (a stale event)", ["UnknownKey"],
            [inc, {"eventSeen": False, key: "9"}], err("invalid_argument"), function=D)
    add("stored with an extra key beside statusVersion", ["UnknownKey"],
        [inc, dict(st, paymentId="pay_1")], err("invalid_argument"), function=D)

    C = "compareStatusVersions"
    for label, a, b in [("NaN", NAN, "1"), ("1.5", 1.5, "1"), ("-1", -1, "1"), ("2^53 on both sides", 2**53, 2**53),
                        ("a BigInt", bigint(1), "1"), ("undefined", UNDEF, "1"), ("null", None, "1"),
                        ("an object", {}, "1"), ("a NUL suffix", "1\u0000", "1"), ("full-width", "\uff11", "1"),
                        ("a lone surrogate", lone("\\uD800"), "1"), ("1 MiB with a leading zero", rep("0", MIB), "0")]:
        add(f"compareStatusVersions with {label}", ["StatusVersion"], [a, b], err("status_version_invalid"), function=C)
    add("compareStatusVersions with no arguments", ["StatusVersion", "Undefined"], [], err("status_version_invalid"), function=C)
    add("compareStatusVersions -0 and 0", ["NegativeZero", "Valid"], [NEG0, 0], ok(result=0), function=C)
    add("compareStatusVersions 2^53-1 and \"9007199254740992\"", ["Huge", "Valid"], [MAX_SAFE, "9007199254740992"],
        ok(result=-1), function=C)
    add("compareStatusVersions of two 1 MiB numbers", ["Megabyte", "Valid"], [rep("7", MIB), rep("7", MIB)],
        ok(result=0), function=C)

    A = "validateAmountRaw"
    for label, value in [("a number", 100), ("NaN", NAN), ("a BigInt", bigint(100)), ("null", None), ("an array", ["100"]),
                         ("a String object", boxed("100")), ("full-width digits", "\uff11\uff10\uff10"),
                         ("Arabic-Indic digits", "\u0661\u0660\u0660"), ("an exponent", "1e3"), ("a leading space", " 1"),
                         ("a NUL suffix", "1\u0000"), ("a lone surrogate", lone("1\\uD800")),
                         ("2^256 (one over the maximum)", str(2**256)), ("1 MiB of digits", rep("1", MIB)),
                         ("0", "0")]:
        add(f"validateAmountRaw {label}", ["Amount"], [value], err("amount_raw_invalid"), function=A)
    add("validateAmountRaw without an argument", ["Amount", "Undefined"], [], err("amount_raw_invalid"), function=A)
    add("validateAmountRaw 2^256-1 (the maximum)", ["Amount", "Huge", "Valid"], [str(2**256 - 1)], ok(result=UNDEF), function=A)
    I = "isValidAmountRaw"
    for label, value in [("a number", 100), ("a Symbol", symbol("a")), ("null", None), ("an object", {}),
                         ("1 MiB of digits", rep("1", MIB)), ("a lone surrogate", lone("\\uDBFF"))]:
        add(f"isValidAmountRaw {label} is false, never a throw", ["Amount"], [value], ok(result=False), function=I)
    add("isValidAmountRaw without an argument is false", ["Amount", "Undefined"], [], ok(result=False), function=I)
    add("isValidAmountRaw of 2^256-1 is true", ["Amount", "Valid"], [str(2**256 - 1)], ok(result=True), function=I)

    T = "toAmountRaw"
    for label, value in [("NaN", NAN), ("Infinity", INF), ("-1", -1), ("78", 78), ("2.5", 2.5), ("a string", "2"),
                         ("null", None), ("a BigInt", bigint(2)), ("2^53", 2**53)]:
        add(f"toAmountRaw decimals {label}", ["Decimals"], ["1.5", value], err("decimals_invalid"), function=T)
    add("toAmountRaw decimals missing", ["Decimals", "Undefined"], ["1.5"], err("decimals_invalid"), function=T)
    add("toAmountRaw decimals -0 is 0", ["Decimals", "NegativeZero", "Valid"], ["15", NEG0], ok(result="15"), function=T)
    for label, value in [("a number", 1.5), ("null", None), ("full-width digits", "\uff11.\uff15"), (".5", ".5"), ("5.", "5."),
                         ("a sign", "+1"), ("a comma", "1,5"), ("an exponent", "1e2"), ("a lone surrogate", lone("1.\\uD800"))]:
        add(f"toAmountRaw decimal {label}", ["Amount"], [value, 2], err("amount_decimal_invalid"), function=T)
    add("toAmountRaw of 1 MiB of digits (over 2^256-1)", ["Amount", "Megabyte"], [rep("1", MIB), 0], err("amount_raw_invalid"),
        function=T)
    add("toAmountRaw with 1 MiB of trailing zeros is exact", ["Amount", "Megabyte", "Valid"],
        [V({"$concat": ["1.", {"$repeat": ["0", MIB]}]}), 2], ok(result="100"), function=T)
    add("toAmountRaw with a non-zero digit after 1 MiB of zeros is too precise", ["Amount", "Megabyte"],
        [V({"$concat": ["1.", {"$repeat": ["0", MIB]}, "1"]}), 2], err("amount_too_precise"), function=T)
    FR = "fromAmountRaw"
    add("fromAmountRaw raw a number", ["Amount", "WrongType"], [12800, 2], err("amount_raw_invalid"), function=FR)
    add("fromAmountRaw raw 0", ["Amount"], ["0", 2], err("amount_raw_invalid"), function=FR)
    add("fromAmountRaw raw full-width", ["Amount"], ["\uff11", 2], err("amount_raw_invalid"), function=FR)
    add("fromAmountRaw decimals 1e300", ["Decimals", "Huge"], ["1", 1e300], err("decimals_invalid"), function=FR)
    add("fromAmountRaw decimals NaN", ["Decimals", "NaN"], ["1", NAN], err("decimals_invalid"), function=FR)
    add("fromAmountRaw decimals 77 of 2^256-1", ["Decimals", "Valid"], [str(2**256 - 1), 77],
        ok(result=str(2**256 - 1)[0] + "." + str(2**256 - 1)[1:]), function=FR)

    ps = {"kind": "fiat", "ref": "USD", "decimals": 2}
    sa = {"kind": "fiat", "currency": "USD", "amount_raw": "12800"}
    B = "buildSourceAmount"
    add("buildSourceAmount without an argument", ["WrongType", "Undefined"], [], err("invalid_argument"), function=B)
    add("buildSourceAmount unknown option", ["UnknownKey"], [{"primarySource": ps, "amount": "1", "currency": "USD"}],
        err("invalid_argument"), function=B)
    add("buildSourceAmount amount a number", ["Amount", "WrongType"], [{"primarySource": ps, "amount": 128}],
        err("amount_decimal_invalid"), function=B)
    add("buildSourceAmount decimals a BigInt in primarySource", ["BigInt"],
        [{"primarySource": dict(ps, decimals=bigint(2)), "amount": "1"}], err("store_source_invalid"), function=B)
    add("buildSourceAmount cyclic primarySource", ["Cyclic"], [{"primarySource": cyclic("object"), "amount": "1"}],
        err("store_source_invalid"), function=B)
    add("buildSourceAmount 100000-level primarySource", ["DeepNesting"],
        [{"primarySource": deep_object(100000, "ref", "USD"), "amount": "1"}], err("store_source_invalid"), function=B)
    add("buildSourceAmount ref with a lone surrogate", ["LoneSurrogate"],
        [{"primarySource": dict(ps, ref=lone("US\\uD800")), "amount": "1"}], err("store_source_invalid"), function=B)
    add("buildSourceAmount with a store decimals -0", ["NegativeZero", "Valid"],
        [{"primarySource": dict(ps, decimals=NEG0), "amount": "5"}],
        ok(result={"kind": "fiat", "currency": "USD", "amount_raw": "5"}), function=B)
    VSA = "validateSourceAmount"
    add("validateSourceAmount without arguments", ["Undefined"], [], err("store_source_invalid"), function=VSA)
    add("validateSourceAmount amount_raw a BigInt", ["BigInt"], [dict(sa, amount_raw=bigint(12800)), ps],
        err("source_amount_invalid"), function=VSA)
    add("validateSourceAmount amount_raw a number", ["WrongType"], [dict(sa, amount_raw=12800), ps],
        err("amount_raw_invalid"), function=VSA)
    add("validateSourceAmount amount_raw Infinity (JSON.stringify writes null)", ["Special"],
        [dict(sa, amount_raw=special("Infinity")), ps], err("amount_raw_invalid"), function=VSA)
    add("validateSourceAmount cyclic", ["Cyclic"], [cyclic("object"), ps], err("source_amount_invalid"), function=VSA)
    add("validateSourceAmount 100000 levels", ["DeepNesting"], [deep_object(100000, "kind", "fiat"), ps],
        err("source_amount_invalid"), function=VSA)
    add("validateSourceAmount currency with a lone surrogate", ["LoneSurrogate"], [dict(sa, currency=lone("\\uDC00")), ps],
        err("source_amount_invalid"), function=VSA)
    add("validateSourceAmount a Map", ["WrongType"], [jsmap([["kind", "fiat"]]), ps], err("source_amount_invalid"), function=VSA)
    add("validateSourceAmount amount_raw 1 MiB of digits", ["Megabyte"], [dict(sa, amount_raw=rep("1", MIB)), ps],
        err("amount_raw_invalid"), function=VSA)
    add("validateSourceAmount an own __proto__ key is an unknown key", ["UnknownKey", "Prototype"],
        [dict(sa, __proto__={"kind": "fiat"}), ps], err("source_amount_invalid"), function=VSA)
    CP = "validateCreatePayment"
    body = {"source_amount": sa}
    add("validateCreatePayment without options", ["Options", "Undefined"], [body], err("invalid_argument"), function=CP)
    add("validateCreatePayment options null", ["Options", "Null"], [body, None], err("invalid_argument"), function=CP)
    add("validateCreatePayment unknown option", ["Options", "UnknownKey"], [body, {"primarySource": ps, "website": "x"}],
        err("invalid_argument"), function=CP)
    add("validateCreatePayment primarySource missing", ["Options"], [body, {}], err("store_source_invalid"), function=CP)
    add("validateCreatePayment websiteOrigin a number", ["Options", "WrongType"],
        [body, {"primarySource": ps, "websiteOrigin": 443}], err("invalid_argument"), function=CP)
    add("validateCreatePayment cyclic body", ["Cyclic"], [cyclic("object"), {"primarySource": ps}],
        err("create_payment_invalid"), function=CP)
    add("validateCreatePayment 100000-level body", ["DeepNesting"], [deep_object(100000, "source_amount", sa), {"primarySource": ps}],
        err("create_payment_invalid"), function=CP)
    add("validateCreatePayment order_ref a BigInt", ["BigInt"], [dict(body, order_ref=bigint(1)), {"primarySource": ps}],
        err("create_payment_invalid"), function=CP)
    add("validateCreatePayment checkout_origin a number (origin's own code)", ["WrongType"],
        [dict(body, checkout_origin=443), {"primarySource": ps}], err("origin_invalid"), function=CP)
    add("validateCreatePayment checkout_origin with a full-width host", ["Unicode"],
        [dict(body, checkout_origin="https://\uff53hop.example.com"), {"primarySource": ps}], err("origin_invalid"), function=CP)

    CO = "validateCheckoutOrigin"
    for label, value in [("a number", 443), ("null", None), ("a URL object stand-in", {"origin": "https://shop.example.com"}),
                         ("a lone surrogate host", lone("https://shop\\uD800.example.com")),
                         ("a full-width host", "https://\uff53\uff48\uff4f\uff50.example.com"),
                         ("1 MiB host", V({"$concat": ["https://", {"$repeat": ["a", MIB]}, ".com"]})),
                         ("a zero-width space in the host", "https://sh\u200bop.example.com"),
                         ("a full-width colon before the port", "https://shop.example.com\uff1a443")]:
        add(f"validateCheckoutOrigin {label}", ["Origin"], [value], err("origin_invalid"), function=CO)
    add("validateCheckoutOrigin options null", ["Options", "Null"], ["https://shop.example.com", None], err("invalid_argument"),
        function=CO)
    add("validateCheckoutOrigin options a string", ["Options", "WrongType"],
        ["https://shop.example.com", "https://shop.example.com"], err("invalid_argument"), function=CO)
    add("validateCheckoutOrigin websiteOrigin null", ["Options", "Null"],
        ["https://shop.example.com", {"websiteOrigin": None}], err("invalid_argument"), function=CO)
    add("validateCheckoutOrigin websiteOrigin present but undefined", ["Options", "Undefined", "Valid"],
        ["https://shop.example.com", {"websiteOrigin": UNDEF}], ok(result=UNDEF), function=CO)
    WU = "validateWebhookUrl"
    for label, value in [("a number", 1), ("null", None), ("undefined", UNDEF), ("a lone surrogate in the path", lone("https://hooks.example.com/\\uDFFF")),
                         ("a full-width dot in the host", "https://hooks\uff0eexample.com/wh"),
                         ("1 MiB long", V({"$concat": ["https://hooks.example.com/", {"$repeat": ["a", MIB]}]})),
                         ("a NUL", "https://hooks.example.com/\u0000"), ("a zero-width joiner in the host", "https://hoo\u200dks.example.com/")]:
        add(f"validateWebhookUrl {label}", ["Url"], [value], err("webhook_url_malformed"), function=WU)
    H = "hostedCheckoutUrl"
    add("hostedCheckoutUrl paymentId a number", ["WrongType"], ["https://pay.example.com", 1], err("invalid_argument"), function=H)
    add("hostedCheckoutUrl paymentId missing", ["Undefined"], ["https://pay.example.com"], err("invalid_argument"), function=H)
    add("hostedCheckoutUrl paymentId with a lone surrogate", ["LoneSurrogate"], ["https://pay.example.com", lone("pay\\uD800")],
        err("invalid_argument"), function=H)
    add("hostedCheckoutUrl origin a number", ["WrongType"], [443, "pay_1"], err("origin_invalid"), function=H)
    add("hostedCheckoutUrl with a 1 MiB payment id", ["Megabyte", "Valid"], ["https://pay.example.com", rep("a", MIB)],
        ok(result=V({"$concat": ["https://pay.example.com/#payment_id=", {"$repeat": ["a", MIB]}]})), function=H)
    add("hostedCheckoutUrl astral payment id encoded as UTF-8", ["NonAscii", "Valid"], ["https://pay.example.com", "\U0001F600"],
        ok(result="https://pay.example.com/#payment_id=%F0%9F%98%80"), function=H)

    K = "validateIdempotencyKey"
    for label, value in [("a number", 12345), ("null", None), ("1 MiB", rep("k", MIB)), ("a lone surrogate", lone("k\\uD800")),
                         ("full-width letters", "\uff4b\uff45\uff59"), ("an array", ["key"])]:
        add(f"validateIdempotencyKey {label}", ["Idempotency"], [value], err("idempotency_key_invalid"), function=K)
    add("validateIdempotencyKey without an argument", ["Idempotency", "Undefined"], [], err("idempotency_key_invalid"), function=K)

    R = "classifyDeliveryResponse"
    for label, value in [("the string 200", "200"), ("a BigInt", bigint(200)), ("NaN", NAN), ("Infinity", INF), ("-0", NEG0),
                         ("200.5", 200.5), ("null", None), ("a Number object", boxed(200)), ("1e300", 1e300), ("2^53", 2**53)]:
        add(f"classifyDeliveryResponse {label}", ["Status"], [value], err("invalid_argument"), function=R)
    add("classifyDeliveryResponse without an argument", ["Status", "Undefined"], [], err("invalid_argument"), function=R)
    add("classifyDeliveryResponse 200.0 is 200", ["Status", "Valid"], [200.0], ok(result="acknowledged"), function=R)

    # The merchant's side of rule 7: the view crosses as the exact text of GET /v1/payments/{id}.
    view = ('{"payment_id":"pay_1","order_ref":"o1","source_amount":{"kind":"fiat","currency":"USD",'
            '"amount_raw":"12800"},"status":"paid","status_version":3,"amount_received_raw":"12800"}')
    order = {"paymentId": "pay_1", "orderRef": "o1", "sourceAmount": {"kind": "fiat", "currency": "USD", "amount_raw": "12800"}}
    DP = "defaultPolicy"
    for label, value in [("no argument", OMIT), ("null", None), ("a number", 1), ("a BigInt", bigint(1)),
                         ("the parsed object (re-stringifying could round status_version)", {"payment_id": "pay_1"}),
                         ("an empty string", ""), ("cut JSON", view[:-1]), ("a repeated key", '{"status":"x",' + view[1:]),
                         ("a lone surrogate", lone(view.replace("pay_1", "pay\\uD800"))), ("an array", "[]")]:
        add(f"defaultPolicy {label}", ["View"], [] if value is OMIT else [value], err("invalid_argument"), function=DP)
    head, tail = view.split('"o1"')
    add("defaultPolicy a 1 MiB order_ref, exactly paid", ["View", "Megabyte", "Valid"],
        [V({"$concat": [head + '"', {"$repeat": ["x", MIB]}, '"' + tail]})], ok(result="fulfil"), function=DP)
    add("defaultPolicy a 1000-digit status_version", ["View", "BigNumber", "Valid"],
        [view.replace('"status_version":3', '"status_version":' + "9" * 1000)], ok(result="fulfil"), function=DP)
    LE = "linkEvent"
    add("linkEvent without arguments", ["Link", "Undefined"], [], err("invalid_argument"), function=LE)
    add("linkEvent a number as the order", ["Link", "WrongType"], [1, view], err("invalid_argument"), function=LE)
    add("linkEvent an empty order", ["Link"], [{}, view], err("invalid_argument"), function=LE)
    add("linkEvent the view as a number", ["Link", "WrongType"], [order, 1], err("invalid_argument"), function=LE)
    add("linkEvent integration a number", ["Link", "Options"], [order, view, {"integration": 1}], err("invalid_argument"), function=LE)
    add("linkEvent an unknown option", ["Link", "Options"], [order, view, {"integrations": "a"}], err("invalid_argument"), function=LE)
    add("linkEvent a cyclic order", ["Link", "Cycle"], [cyclic("object"), view], err("invalid_argument"), function=LE)
    add("linkEvent no order: a mismatch is an answer, never a throw", ["Link", "Valid"], [None, view],
        ok(linked=False, code="payment_unknown"), function=LE)
    PV = "parsePaymentView"
    for label, value in [("no argument", OMIT), ("a number", 1), ("a BigInt", bigint(10)), ("an array", "[]"), ("null", None)]:
        add(f"parsePaymentView {label}", ["View"], [] if value is OMIT else [value], err("invalid_argument"), function=PV)

    add("errorCodes ignores arguments", ["Misc", "Valid"], [None, NAN, {}],
        ok(resultIncludes=["invalid_argument", "body_not_raw", "signature_mismatch", "idempotency_key_invalid"]),
        function="errorCodes")
    for label, value in [("no argument", OMIT), ("null", None), ("a bogus URL string", "not a url"), ("a number", 1)]:
        add(f"init with {label} resolves (a no-op in Node)", ["Misc", "Valid"], [] if value is OMIT else [value],
            ok(result=UNDEF), function="init")
    return c


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors")
    os.makedirs(outdir, exist_ok=True)
    total = 0
    for build in (build_verify, build_verifier, build_headers, build_sign_event, build_values):
        cat = build()
        path = cat.write(outdir)
        total += len(cat.rows)
        print(f"{path}: {len(cat.rows)} cases")
    print(f"{total} cases")


if __name__ == "__main__":
    main()
