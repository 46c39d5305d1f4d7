#!/usr/bin/env python3
"""Writes the committed seed corpus, fuzz/corpus/<target>/, from tests/vectors/*.json.

A handful of rows per target, one per distinct expected outcome first (ok, then each
error code), in the input format each target documents at its top (fields separated by
newlines). The fuzzers grow their working corpus under fuzz/target/corpus/ (not committed);
these seeds only start it. Files named regression-* (minimized inputs of past findings)
are kept. Run after the vectors change: python3 fuzz/seeds.py (`make lint` and `make check` run
it with --check, which fails when the committed seeds are not what it writes).
"""

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent
VECTORS = ROOT.parent / "tests" / "vectors"
CORPUS = ROOT / "corpus"
PER_TARGET = 8
# Targets that read several functions' inputs (or two formats) keep more.
PER_TARGET_OVERRIDE = {"service": 14, "payment_view": 16}


def rows(name, functions=None):
    data = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    for row in data["tests"]:
        function = row.get("function", data["function"])
        if functions is None or function in functions:
            yield name.removesuffix(".json"), row


def outcome(row):
    expected = row["expected"]
    return "ok" if expected.get("ok") else expected.get("error", "?")


def pick(candidates, limit=PER_TARGET):
    """Up to `limit` (name, bytes): one per distinct outcome first, taking the
    functions of a file in turn (a key is an outcome or a (function, outcome) pair), then
    the rest in order; never the same bytes twice."""
    firsts, seen_keys, rank = [], set(), {}
    for name, key, data in candidates:
        if key not in seen_keys:
            seen_keys.add(key)
            group = key[0] if isinstance(key, tuple) else None
            rank[group] = rank.get(group, -1) + 1
            firsts.append((rank[group], len(firsts), name, data))
    ordered = [(n, d) for _, _, n, d in sorted(firsts)]
    ordered += [(n, d) for n, _, d in candidates]
    chosen, seen_bytes = [], set()
    for name, data in ordered:
        if len(chosen) >= limit:
            break
        if data not in seen_bytes:
            chosen.append((name, data))
            seen_bytes.add(data)
    return chosen


def lines(*fields):
    return b"\n".join(f if isinstance(f, bytes) else str(f).encode() for f in fields)


def one_line(*texts):
    return all("\n" not in t for t in texts)


def secret_lines(secrets):
    if not isinstance(secrets, (str, list)) or not all(
        isinstance(s, dict) and isinstance(s.get("secret"), str) for s in secrets
        if not isinstance(secrets, str)
    ):
        return None
    if isinstance(secrets, str):
        return [("a" + secrets)] if one_line(secrets) else None
    out = []
    for s in secrets:
        if not one_line(s["secret"]):
            return None
        kind = s.get("kind", "active")
        until = s.get("acceptUntilSecs")
        letter = {"active": "a", "pending": "p", "retiring": "r"}.get(kind, "a")
        if until is not None:
            out.append(f"{letter.upper()}{until}:{s['secret']}")
        else:
            out.append(letter + s["secret"])
    return out


def verify_seeds():
    for name, row in rows("verify.json"):
        if not all(isinstance(row.get(k), str) for k in ("timestamp", "signature", "bodyHex")):
            continue
        secrets = secret_lines(row["secrets"])
        if secrets is None or not one_line(row["timestamp"], row["signature"]):
            continue
        if not all(isinstance(row.get(k), (int, str)) for k in ("nowSecs", "maxSkewSecs")):
            continue
        data = lines(
            row["nowSecs"],
            row["maxSkewSecs"],
            row.get("maxBodyBytes") or 0,
            row["id"] * 7919,  # the mutation selector: varies which byte is changed
            len(secrets),
            *secrets,
            row["timestamp"],
            row["signature"],
            bytes.fromhex(row["bodyHex"]),
        )
        yield f"{name}-{row['id']}", outcome(row), data


def signature_seeds():
    anchor = bytes.fromhex(next(rows("verify.json"))[1]["bodyHex"])
    for name, row in rows("verify.json"):
        same = (
            isinstance(row.get("signature"), str)
            and row["secrets"] == "whsec_test_secret"
            and row["timestamp"] == "1700000000"
            and bytes.fromhex(row["bodyHex"]) == anchor
        )
        if same:
            yield f"{name}-{row['id']}", outcome(row), row["signature"].encode()


def timestamp_seeds():
    for name, row in rows("verify.json"):
        if not isinstance(row.get("timestamp"), str):
            continue
        code = outcome(row)
        key = code if code.startswith("timestamp") else "other"
        yield f"{name}-{row['id']}", key, row["timestamp"].encode()


def event_seeds():
    for name, row in rows("event.json"):
        yield f"{name}-{row['id']}", outcome(row), bytes.fromhex(row["bodyHex"])


def event_block_seeds():
    """Events at the edges of the scanner's sixteen-byte blocks (json/scan/block, json/scan/utf8):
    strings ending exactly at a block's end, a stop byte at each index of a block, characters
    outside ASCII across the blocks' edges (whole, cut short), long text outside ASCII,
    whitespace runs around a block's length, bodies whose length is not a multiple of 16.
    Kept whatever the pick (`blocks-*`)."""
    def event(data_fields, top_extra="", tail=""):
        data = ",".join(['"payment_id":"pay_0123456789abcdef"', '"status_version":7', *data_fields])
        text = ('{"schema_version":"1","event_id":"evt_0123456789ab","event_type":"payment.updated",'
                f'"occurred_at":"2026-11-22T10:00:00Z"{top_extra},"data":{{{data}}}}}{tail}')
        return text.encode()

    def escaped_at(i, escape):
        return "x" * i + escape + "y" * (15 - i)

    yield "blocks-exact-ends", event(['"k16":"0123456789abcdef"', '"k32":"' + "z" * 32 + '"',
                                      '"0123456789abcde":""'])
    yield "blocks-escape-at-each-index", event(
        ['"n":[' + ",".join(f'"{escaped_at(i, chr(92) + "n")}"' for i in range(16)) + "]",
         '"q":[' + ",".join(f'"{escaped_at(i, chr(92) + chr(34))}"' for i in range(16)) + "]"])
    yield "blocks-control-byte", event(['"c":"' + "x" * 7 + "\x1f" + "y" * 12 + '"'])
    wide = ["\u00e9", "\u20ac", "\U0001f600"]
    edges = ["a" * n + c + "b" * 4 for n in (13, 14, 15, 29, 30, 31) for c in wide]
    yield "blocks-non-ascii-edges", event(['"u":[' + ",".join(f'"{s}"' for s in edges) + "]"])
    broken = ("a" * 30).encode() + "\u20ac".encode()[:2] + b"bbbb"
    yield "blocks-non-ascii-cut", event(['"u":"' + "X" * 8 + '"']).replace(b"X" * 8, broken)
    note = ("Z\u00fcrich caf\u00e9 na\u00efve \u2014 \u652f\u6255\u3044 \U0001f680 " * 20)
    yield "blocks-long-non-ascii", event([f'"note":"{note}"'])
    compact = json.loads(event(['"status":"paid"', '"history":[{"at":"2026-11-22T10:00:00Z",'
                                '"status":"pending","status_version":1}]']))
    yield "blocks-indent-2", json.dumps(compact, indent=2).encode()
    yield "blocks-indent-4", (json.dumps(compact, indent=4) + "\n").encode()
    runs = [" " * n for n in (15, 16, 17, 31, 32, 33)]
    yield "blocks-whitespace-runs", event(
        [f'"w{i}":{run}{i}{run}' for i, run in enumerate(runs)], tail="\r\n" + " " * 11)
    body = event(['"pad":"' + "x" * 40 + '"'])
    yield "blocks-tail", event(['"pad":"' + "x" * (40 + (7 - len(body)) % 16) + '"'])


def amount_seeds():
    for name, row in rows("amount.json"):
        text = row.get("value", row.get("decimal", row.get("amountRaw")))
        if not isinstance(text, str):
            continue
        decimals = row.get("decimals", 0)
        if not isinstance(decimals, int) or decimals < 0:
            continue
        yield f"{name}-{row['id']}", (row["function"], outcome(row)), lines(decimals, text)


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def source_amount_seeds():
    for name, row in rows("pricing.json"):
        body = row.get("sourceAmount", row.get("body"))
        amount = row.get("amount", "")
        website = row.get("websiteOrigin") or ""
        if not (isinstance(amount, str) and isinstance(website, str)):
            continue
        if not one_line(amount, website):
            continue
        data = lines(
            compact(row["primarySource"]),
            amount,
            website,
            compact(body) if body is not None else "",
        )
        yield f"{name}-{row['id']}", (row["function"], outcome(row)), data


def origin_seeds():
    for name, row in rows("urls.json"):
        origin = row.get("origin", row.get("checkoutOrigin", ""))
        website = row.get("websiteOrigin") or ""
        url = row.get("url", "")
        payment_id = row.get("paymentId", "pay_1")
        texts = (origin, website, url, payment_id)
        if not all(isinstance(t, str) for t in texts) or not one_line(*texts[:3]):
            continue
        yield f"{name}-{row['id']}", (row["function"], outcome(row)), lines(*texts)


def status_seeds():
    for name, row in rows("status.json"):
        if row.get("function") == "compareStatusVersions" or "a" in row:
            a, b = row.get("a"), row.get("b")
        else:
            a = row["incoming"]["statusVersion"]
            b = row["stored"].get("statusVersion") or "0"
        if isinstance(a, str) and isinstance(b, str) and one_line(a):
            yield f"{name}-{row['id']}", outcome(row), lines(a, b)


def headers_seeds():
    for name, row in rows("read_headers.json"):
        names = (row["timestampHeader"], row["signatureHeader"])
        flat = [x for pair in row["headers"] for x in pair]
        if all(isinstance(x, str) for x in flat) and one_line(*names, *flat):
            yield f"{name}-{row['id']}", outcome(row), lines(*names, *flat)


def service_seeds():
    """Rows of service.json in the `service` target's format, then a few long ones: a huge
    stored total and version, the largest amount paid twice, a whole payment's life."""
    for name, row in rows("service.json"):
        key = (row["function"], outcome(row))
        if row["function"] == "newPaymentState":
            if isinstance(row["amountRaw"], str):
                yield f"{name}-{row['id']}", key, lines("new", row["amountRaw"])
        elif row["function"] == "applyPaymentAction":
            state, action = row["state"], row["action"]
            parts = [state.get(k) for k in ("status", "statusVersion", "amountRaw", "amountReceivedRaw")]
            if not all(isinstance(p, str) and one_line(p) for p in parts):
                continue
            if not isinstance(action.get("action"), str):
                continue
            amount = action.get("amountRaw")
            act = action["action"] if amount is None else f"{action['action']} {amount}"
            if not one_line(act):
                continue
            access = "1" if state.get("consumerAccess", True) else "0"
            yield f"{name}-{row['id']}", key, lines(*parts, access, act)
        elif row["function"] == "nextDeliveryStep":
            answer = row["answer"]
            delays = row["retryDelaysMs"]
            if not (isinstance(answer, int) and 0 <= answer < 65536 or answer == "network_failure"):
                continue
            if not all(isinstance(d, int) and d >= 0 for d in delays):
                continue
            answer = "net" if answer == "network_failure" else answer
            data = lines("new", "12800", "review", "--", row["attempt"], answer, *delays)
            yield f"{name}-{row['id']}", key, data
    yield "long-huge-total", "long-1", lines(
        "partially_paid", "*300:9", "*78:9", "*500:9", "1", "pay *77:9", "pay 1", "review")
    yield "long-max-paid-twice", "long-2", lines(
        "new", "1", f"pay {MAX_AMOUNT_RAW}", "disable_consumer_access", "open_checkout")
    yield "long-life", "long-3", lines(
        "new", "12800", "open_checkout", "pay 500", "pay 12300", "review", "expire", "cancel",
        "--", 1, "503,net,429,200", 1000, 60000, 3600000)


MAX_AMOUNT_RAW = str(2**256 - 1)


def payment_view_seeds():
    """viewJson of fulfilment.json as it is, then views in the target's field format."""
    for name, row in rows("fulfilment.json"):
        yield f"{name}-{row['id']}", (row["function"], outcome(row)), row["viewJson"].encode()
    fields = ["pay_1", "order-42", "fiat", "USD", "", "12800", "paid", "3", "12800"]
    # Plan bytes (payment_view.rs, `structured`): one per field in the order of `keys` below
    # (mod 8: 0 left out, 1 a string, 2 the text as it is, 3 escaped, 5 twice, 7 beside an
    # unknown key), the 10th the source_amount (1 an object), the 11th the whitespace (odd:
    # spaced). status_version is written as a number (2) unless a seed is about its form.
    for tag, plan, changes in (
        ("fields-plain", "11110112110", {}),
        ("fields-escaped", "33330332311", {"order_ref": "ordr-\u00e9\U0001f600"}),
        ("fields-unknown-keys", "77770772711", {}),
        ("fields-huge-version", "11110112111", {"status_version": "*400:9"}),
        ("fields-string-version", "11110111110", {"status_version": "18446744073709551617"}),
        ("fields-float-version", "11110112111", {"status_version": "3.0"}),
        ("fields-repeated-key", "11110152110", {}),
        ("fields-crypto", "11101112110", {"kind": "crypto", "currency": "", "pricing_ref": "usdc-eth"}),
    ):
        keys = ["payment_id", "order_ref", "kind", "currency", "pricing_ref", "amount_raw",
                "status", "status_version", "amount_received_raw"]
        values = [changes.get(k, v) for k, v in zip(keys, fields)]
        yield tag, tag, lines(plan, *values)


# Seeds written whatever the pick, per target.
EXTRA = {"event": event_block_seeds}

TARGETS = {
    "signature_header": signature_seeds,
    "timestamp": timestamp_seeds,
    "verify": verify_seeds,
    "event": event_seeds,
    "amount": amount_seeds,
    "source_amount": source_amount_seeds,
    "origin": origin_seeds,
    "status": status_seeds,
    "headers": headers_seeds,
    "service": service_seeds,
    "payment_view": payment_view_seeds,
}


def main():
    # --check: write nothing, fail when the committed seeds are not what this script writes
    # (the vectors changed since, or a seed was edited by hand).
    check = "--check" in sys.argv[1:]
    stale = []
    for target, seeds in TARGETS.items():
        directory = CORPUS / target
        chosen = pick(list(seeds()), PER_TARGET_OVERRIDE.get(target, PER_TARGET))
        chosen += list(EXTRA.get(target, list)())
        if check:
            have = {p.name: p.read_bytes() for p in directory.iterdir()
                    if not p.name.startswith("regression-")} if directory.is_dir() else {}
            if have != dict(chosen):
                stale.append(target)
            continue
        directory.mkdir(parents=True, exist_ok=True)
        for old in directory.iterdir():
            if not old.name.startswith("regression-"):
                old.unlink()
        for name, data in chosen:
            (directory / name).write_bytes(data)
        print(f"{target}: {len(chosen)} seeds")
    if check:
        if stale:
            sys.exit(f"fuzz/corpus: the seeds of {', '.join(stale)} are not what seeds.py writes: "
                     "run python3 fuzz/seeds.py and commit the result")
        print(f"fuzz/corpus: the seeds of {len(TARGETS)} targets as seeds.py writes them")


if __name__ == "__main__":
    main()
