#!/usr/bin/env python3
"""Random cases for the differential test, with HMAC-SHA256 computed by Python's `hmac`.

Usage: python3 tests/differential/generate.py OUTDIR [--cases N] [--stripe-cases M] [--seed S]

Writes, in OUTDIR:
  cases.bin     N cases for part (a): a secret of 1-200 bytes of valid UTF-8 (ASCII, controls
                and NUL, 2-, 3- and 4-byte characters), a timestamp of 1-12 ASCII digits
                (sometimes with leading zeros, signed as written), a body of 0-4096 arbitrary
                bytes (mostly invalid UTF-8), nowSecs and maxSkewSecs such that the timestamp is
                within the skew, and the 32-byte MAC.
                Layout (little-endian): b"CPVDIFF1", u32 count, u64 seed, then per case:
                u8 secret_len, secret, u8 ts_len, ts, u16 body_len, body, u64 now, u32 skew, mac[32].
  stripe.jsonl  M cases for part (b), on the subset where stripe-node's verifyHeader is an oracle:
                valid UTF-8 bodies (never empty: stripe refuses an empty payload), half of them
                payment.updated events as JSON, canonical timestamps, a tolerance >= 1 and nowSecs
                within it; one JSON object per line with secret, ts, now, tol, body, json, mac (hex).

The seed defaults to a random one and is printed (and stored in cases.bin) so a failing run
can be repeated with --seed.
"""

import argparse
import hashlib
import hmac
import json
import os
import random
import struct
import time

MAGIC = b"CPVDIFF1"


def random_char(rng):
    """A random Unicode scalar value (never a surrogate), weighted across UTF-8 lengths."""
    pick = rng.random()
    if pick < 0.45:
        return chr(rng.randint(0x20, 0x7E))
    if pick < 0.52:
        return chr(rng.choice([0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x7F, rng.randint(0, 0x1F)]))
    if pick < 0.72:
        return chr(rng.randint(0x80, 0x7FF))
    if pick < 0.90:
        while True:
            cp = rng.randint(0x800, 0xFFFF)
            if not 0xD800 <= cp <= 0xDFFF:
                return chr(cp)
    return chr(rng.randint(0x10000, 0x10FFFF))


class TextSource:
    """Random valid UTF-8 text, cut from a pool of random characters (fast enough for 1e5
    cases: drawing every character separately is ten times slower)."""

    def __init__(self, rng, size=400_000):
        self.rng = rng
        self.pool = "".join(random_char(rng) for _ in range(size))

    def chars(self, count):
        start = self.rng.randrange(0, len(self.pool) - count)
        return self.pool[start:start + count]

    def utf8_of_length(self, length):
        """A valid UTF-8 string of exactly `length` bytes."""
        data = self.chars(length).encode("utf-8")[:length]
        text = data.decode("utf-8", "ignore")  # drops a character cut in half
        missing = length - len(text.encode("utf-8"))
        return text + "".join(chr(self.rng.randint(0x20, 0x7E)) for _ in range(missing))


def random_timestamp(rng):
    digits = rng.randint(1, 12)
    value = rng.randint(0, 10**digits - 1)
    text = str(value)
    if rng.random() < 0.1 and len(text) < 12:
        text = "0" * rng.randint(1, 12 - len(text)) + text
    return text


def body_bytes(rng, source):
    if rng.random() < 0.3:
        length = rng.randint(0, 130)  # around the SHA-256 block size (64) and twice it
    else:
        length = rng.randint(0, 4096)
    if rng.random() < 0.6:
        return rng.randbytes(length)
    return source.utf8_of_length(length).encode("utf-8")


def mac(key, ts, body):
    return hmac.new(key, ts + b"." + body, hashlib.sha256).digest()


def write_cases(path, count, rng, seed, source):
    with open(path, "wb") as f:
        f.write(MAGIC + struct.pack("<IQ", count, seed))
        for _ in range(count):
            secret = source.utf8_of_length(rng.randint(1, 200)).encode("utf-8")
            ts = random_timestamp(rng).encode("ascii")
            body = body_bytes(rng, source)
            ts_value = int(ts)
            skew = rng.choice([0, 1, 300, rng.randint(0, 10**6)])
            now = ts_value + rng.randint(-min(skew, ts_value), skew)
            f.write(struct.pack("<B", len(secret)) + secret)
            f.write(struct.pack("<B", len(ts)) + ts)
            f.write(struct.pack("<H", len(body)) + body)
            f.write(struct.pack("<QI", now, skew))
            f.write(mac(secret, ts, body))


def random_text(source, max_chars):
    return source.chars(source.rng.randint(0, max_chars))


def event_body(rng, source):
    """A payment.updated envelope with random text, as JSON text (numbers safe integers)."""
    envelope = {
        "schema_version": rng.choice([1, "1", "2026-01"]),
        "event_id": "evt_" + random_text(source, 24) + "x",
        "event_type": "payment.updated",
        "occurred_at": rng.choice(["2026-11-22T10:00:00Z", rng.randint(0, 2**53 - 1)]),
        "data": {
            "payment_id": "pay_" + random_text(source, 24),
            "status_version": rng.choice([rng.randint(0, 2**53 - 1), str(rng.randint(0, 10**30))]),
            "status": rng.choice(["pending", "confirmed", "expired"]),
            "note": random_text(source, 200),
            "amounts": [rng.randint(-(2**53 - 1), 2**53 - 1) for _ in range(rng.randint(0, 4))],
            "nested": {random_text(source, 8) + "k": random_text(source, 40)},
        },
        "extra_" + str(rng.randint(0, 9)): rng.choice([None, True, False, random_text(source, 30)]),
    }
    separators = rng.choice([(",", ":"), (", ", ": ")])
    indent = rng.choice([None, None, 2])
    return json.dumps(envelope, ensure_ascii=rng.random() < 0.3, separators=separators, indent=indent)


def write_stripe(path, count, rng, source):
    with open(path, "w", encoding="utf-8") as f:
        for i in range(count):
            secret = "whsec_" + "".join(
                ch for ch in random_text(source, 40) if not ch.isspace()
            )
            ts = str(rng.randint(10**8, 10**10))
            tol = rng.choice([1, 300, rng.randint(1, 10**6)])
            now = int(ts) + rng.randint(-tol, tol)
            is_json = i % 2 == 0
            body = event_body(rng, source) if is_json else (random_text(source, 2000) or "x")
            digest = mac(secret.encode("utf-8"), ts.encode("ascii"), body.encode("utf-8")).hex()
            f.write(json.dumps({"secret": secret, "ts": ts, "now": now, "tol": tol, "body": body,
                                "json": is_json, "mac": digest}, ensure_ascii=False) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--stripe-cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(6), "big")
    rng = random.Random(seed)
    os.makedirs(args.outdir, exist_ok=True)
    started = time.time()
    source = TextSource(rng)
    write_cases(os.path.join(args.outdir, "cases.bin"), args.cases, rng, seed, source)
    write_stripe(os.path.join(args.outdir, "stripe.jsonl"), args.stripe_cases, rng, source)
    print(f"python: {args.cases} cases and {args.stripe_cases} stripe cases (seed {seed}) "
          f"written to {args.outdir} in {time.time() - started:.1f} s")


if __name__ == "__main__":
    main()
