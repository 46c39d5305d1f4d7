"""The payment service's rules as vectors: service.json (the payment state machine, the
creation-idempotency check, the delivery schedule, the service's API errors).

Imported by generate.py, which writes and checks the files. The expectations come from a
small reference model written here, in Python, from the service's spec, independently of
the crate: its sums and comparisons are Python's exact integers, never the crate's digit
strings.
"""

import hashlib
import re

U256_MAX = 2**256 - 1
MAX_RETRY_DELAYS = 20
MAX_RETRY_DELAY_MS = 86_400_000

STATUSES = ["open", "confirming", "paid", "partially_paid", "overpaid", "review_required",
            "expired", "cancelled"]
ACTIONS = ["pay", "pay_held", "settle", "review", "expire", "cancel", "disable_consumer_access",
           "open_checkout"]

# The service's own answers: code -> HTTP status, in the order of its table.
API_ERRORS = [
    ("unauthorized", 401), ("insufficient_scope", 403), ("idempotency_key_missing", 400),
    ("idempotency_key_reused", 409), ("payment_not_found", 404),
    ("payment_not_payable", 409), ("payment_not_confirming", 409), ("payment_not_cancellable", 409),
    ("payment_not_reviewable", 409), ("payment_not_expirable", 409),
    ("consumer_access_disabled", 403), ("webhook_exists", 409), ("webhook_not_found", 404),
    ("secret_mismatch", 400), ("request_invalid", 400), ("not_found", 404),
    ("method_not_allowed", 405),
]
API_CODES = [code for code, _ in API_ERRORS]


def ok(**result):
    out = {"ok": True}
    out.update(result)
    return out


def err(code):
    return {"error": code}


def is_amount_raw(value):
    return (isinstance(value, str) and re.fullmatch(r"[1-9][0-9]*", value) is not None
            and int(value) <= U256_MAX)


# --------------------------------------------------------------------------------------
# The reference model
# --------------------------------------------------------------------------------------

def state(status, version, amount, received, access=True):
    """A state as the vectors spell it: big numbers as decimal strings."""
    return {"status": status, "statusVersion": str(version), "amountRaw": str(amount),
            "amountReceivedRaw": str(received), "consumerAccess": access}


def model_apply(st, action):
    """(events, final state) or an error code, by the spec's rules."""
    status, access = st["status"], st["consumerAccess"]
    version, amount = int(st["statusVersion"]), int(st["amountRaw"])
    received = int(st["amountReceivedRaw"])

    def at(new_status, n, total=received):
        return state(new_status, version + n, amount, total, access)

    def settled(total):
        return "paid" if total == amount else "partially_paid" if total < amount else "overpaid"

    name = action["action"]
    if name in ("pay", "pay_held"):
        if not access:
            return "consumer_access_disabled"
        if not is_amount_raw(action["amountRaw"]):
            return "amount_raw_invalid"
        if status not in ("open", "partially_paid"):
            return "payment_not_payable"
        total = received + int(action["amountRaw"])
        events = [at("confirming", 1, total)]
        if name == "pay":
            events.append(at(settled(total), 2, total))
        return events, events[-1]
    if name == "settle":
        if status != "confirming":
            return "payment_not_confirming"
        return [at(settled(received), 1)], at(settled(received), 1)
    if name == "review":
        if status not in ("open", "paid", "partially_paid", "overpaid"):
            return "payment_not_reviewable"
        return [at("review_required", 1)], at("review_required", 1)
    if name == "expire":
        if status not in ("open", "partially_paid"):
            return "payment_not_expirable"
        return [at("expired", 1)], at("expired", 1)
    if name == "cancel":
        if status == "cancelled":
            return [], dict(st)
        if status != "open" or received != 0:
            return "payment_not_cancellable"
        return [at("cancelled", 1)], at("cancelled", 1)
    if name == "disable_consumer_access":
        return [], dict(st, consumerAccess=False)
    if name == "open_checkout":
        if not access:
            return "consumer_access_disabled"
        return [], dict(st)
    raise AssertionError(name)


def model_step(attempt, answer, delays):
    """The delivery schedule's next step, by the spec's rules."""
    if answer == "network_failure" or not 100 <= answer <= 599:
        kind = "retry"
    elif 200 <= answer <= 299:
        kind = "acknowledged"
    elif answer in (408, 425, 429) or 500 <= answer <= 599:
        kind = "retry"
    else:
        kind = "failed_permanently"
    if kind != "retry":
        return ok(step=kind)
    if attempt <= len(delays):
        return ok(step="retrying", delayMs=delays[attempt - 1])
    return ok(step="exhausted")


# --------------------------------------------------------------------------------------
# service.json
# --------------------------------------------------------------------------------------

def build_service(VectorFile):
    f = VectorFile(
        "service.json", "applyPaymentAction",
        "The payment service's rules as a sandbox applies them, computed by a reference model "
        "in tests/vectors/service_vectors.py (Python integers: sums and comparisons exact at "
        "any size). applyPaymentAction: a stored state and one action give the final state "
        "and the state after each change (one payment.updated each; every change adds 1 to "
        "statusVersion), or the service's error code. pay: from open and partially_paid, "
        "checks in the order consumer_access_disabled, amount_raw_invalid, "
        "payment_not_payable; two changes, confirming then paid / partially_paid / overpaid "
        "by comparing the total received with amountRaw exactly. pay_held: pay's first change "
        "only (confirming). settle: from confirming, pay's second change (else "
        "payment_not_confirming). review: open, paid, "
        "partially_paid, overpaid. expire: open, partially_paid. cancel: open with nothing "
        "received; a cancelled payment is answered with no change and no event. "
        "disable_consumer_access: no event, no new version, idempotent. open_checkout: no "
        "change, consumer_access_disabled when access is off. A stored state is read first "
        "(status one of the 8 names, else invalid_argument; statusVersion a digit string "
        "from 1, else status_version_invalid; amountRaw an amount_raw and amountReceivedRaw "
        "digits without a leading zero, else amount_raw_invalid), then the action (an "
        "unknown name, pay or pay_held without amountRaw or another action with one: "
        "invalid_argument). "
        "checkIdempotency: no stored fingerprint new, equal replay, different reused (409 "
        "idempotency_key_reused). nextDeliveryStep: 2xx acknowledged; network_failure, a "
        "status outside 100-599, 408, 425, 429, 5xx retrying after retryDelaysMs[attempt-1] "
        "while attempt <= its length, else exhausted; other statuses failed_permanently. "
        "validateRetryDelays: 0 to 20 integers from 0 to 86400000. apiErrorStatus: the "
        "service's codes and HTTP statuses.",
        per_row_function=True)

    def new(comment, flags, amount):
        expected = (ok(state=state("open", 1, amount, 0)) if is_amount_raw(amount)
                    else err("amount_raw_invalid"))
        f.add(comment, flags, expected, function="newPaymentState", amountRaw=amount)

    new("a new payment: open, version 1, nothing received, checkout enabled", ["Valid"],
        "12800")
    new("the largest amount_raw, 2^256 - 1", ["Valid", "BigNumber"], str(U256_MAX))
    new("zero is not an amount", ["AmountRaw"], "0")
    new("a leading zero", ["AmountRaw"], "012800")
    new("a decimal, not amount_raw", ["AmountRaw"], "128.00")
    new("2^256: one over the largest", ["AmountRaw", "BigNumber"], str(U256_MAX + 1))
    new("a number, not a string", ["AmountRaw"], 12800)

    def ap(comment, flags, st, action, expected=None):
        if expected is None:
            got = model_apply(st, action)
            expected = (err(got) if isinstance(got, str)
                        else ok(state=got[1], events=got[0]))
        f.add(comment, flags, expected, state=st, action=action)
        return expected

    # Every status with every action. A realistic total received for each status.
    received = {"open": 0, "confirming": 1000, "paid": 1000, "partially_paid": 400,
                "overpaid": 1500, "review_required": 400, "expired": 400, "cancelled": 0}
    for status in STATUSES:
        for name in ACTIONS:
            action = {"action": name}
            if name in ("pay", "pay_held"):
                action["amountRaw"] = "600"
            st = state(status, 7, 1000, received[status])
            exp = model_apply(st, action)
            if isinstance(exp, str):
                flags, what = ["Refused"], "refused: " + exp
            elif exp[0]:
                flags = ["Valid", "Transition"]
                what = " then ".join(e["status"] for e in exp[0])
            else:
                flags, what = ["Valid", "NoEvent"], "no change announced, no event"
            ap("%s, %s: %s" % (status, name, what), flags, st, action)

    # Exact sums.
    m = U256_MAX
    for comment, st, amount in [
        ("pays exactly the amount: paid", state("open", 1, 12800, 0), 12800),
        ("one unit short: partially_paid", state("open", 1, 12800, 0), 12799),
        ("one unit over: overpaid", state("open", 1, 12800, 0), 12801),
        ("the rest of a partial payment: paid", state("partially_paid", 3, 12800, 12000), 800),
        ("a partial payment one unit short of the rest: still partially_paid",
         state("partially_paid", 3, 12800, 12000), 799),
        ("a partial payment one unit over the rest: overpaid",
         state("partially_paid", 3, 12800, 12000), 801),
        ("2^256 - 1 paid in one go: paid", state("open", 1, m, 0), m),
        ("2^256 - 2 of 2^256 - 1: partially_paid", state("open", 1, m, 0), m - 1),
        ("1 more after 2^256 - 2 of 2^256 - 1: paid", state("partially_paid", 3, m, m - 1), 1),
        ("2 more after 2^256 - 2 of 2^256 - 1: overpaid, total 2^256 (past 256 bits)",
         state("partially_paid", 3, m, m - 1), 2),
        ("2^256 - 1 more after 2^256 - 2: overpaid, total 2^257 - 3 (78 digits)",
         state("partially_paid", 3, m, m - 1), m),
        ("78 nines stored plus 2^256 - 1: a 79-digit total, exact (a stored state the "
         "machine never reaches, handled by the same rule)",
         state("partially_paid", 3, m, 10**78 - 1), m),
        ("2^53 + 1 received after 2^53: one unit short of 2^53 + 2 (a double would say paid)",
         state("partially_paid", 3, 2**53 + 2, 2**53), 1),
    ]:
        big = max(amount, int(st["amountRaw"]), int(st["amountReceivedRaw"])) > 2**53 - 1
        exp = ap(comment, ["Valid", "ExactSum"] + (["BigNumber"] if big else []), st,
                 {"action": "pay", "amountRaw": str(amount)})
        assert "state" in exp, comment
    assert len(f.tests[-2]["expected"]["state"]["amountReceivedRaw"]) == 79

    # Versions of any size.
    for version in [2**53, 2**64 - 1, 10**40 - 1]:
        ap("version %s: each change adds exactly 1, exact" % version,
           ["Valid", "BigNumber", "StatusVersion"], state("open", version, 500, 0),
           {"action": "pay", "amountRaw": "500"})
    ap("version 2^53 - 1 then review: 2^53", ["Valid", "BigNumber", "StatusVersion"],
       state("paid", 2**53 - 1, 500, 500), {"action": "review"})

    # Consumer access, cancel twice, stored states.
    off = lambda status, rec=0: state(status, 4, 1000, rec, access=False)
    ap("pay with the checkout disabled", ["Refused", "ConsumerAccess"], off("open"),
       {"action": "pay", "amountRaw": "1000"})
    ap("pay with the checkout disabled and an invalid amount: access is checked first",
       ["Refused", "ConsumerAccess", "Order"], off("open"), {"action": "pay", "amountRaw": "0"})
    ap("pay with the checkout disabled on an expired payment: access is checked first",
       ["Refused", "ConsumerAccess", "Order"], off("expired", 400),
       {"action": "pay", "amountRaw": "600"})
    ap("pay an invalid amount to an expired payment: the amount is checked before the "
       "status", ["Refused", "AmountRaw", "Order"], state("expired", 4, 1000, 400),
       {"action": "pay", "amountRaw": "01"})
    ap("open_checkout with the checkout disabled", ["Refused", "ConsumerAccess"],
       off("partially_paid", 400), {"action": "open_checkout"})
    ap("disable_consumer_access twice: no change, no event", ["Valid", "NoEvent"],
       off("partially_paid", 400), {"action": "disable_consumer_access"})
    ap("expire with the checkout disabled: merchant actions do not need it", ["Valid"],
       off("partially_paid", 400), {"action": "expire"})
    ap("review with the checkout disabled", ["Valid"], off("overpaid", 1200),
       {"action": "review"})
    ap("cancel with the checkout disabled", ["Valid"], off("open"), {"action": "cancel"})
    ap("cancel an open payment that received something: refused", ["Refused"],
       state("open", 2, 1000, 1), {"action": "cancel"})
    held = model_apply(state("partially_paid", 3, 1000, 400), {"action": "pay_held", "amountRaw": "600"})[1]
    ap("settle a payment held confirming by pay_held: paid, one event", ["Valid", "Transition", "Held"],
       held, {"action": "settle"})
    ap("pay_held with the checkout disabled", ["Refused", "ConsumerAccess"], off("open"),
       {"action": "pay_held", "amountRaw": "1000"})
    ap("settle with the checkout disabled: the network's confirmations do not need it",
       ["Valid", "Held"], off("confirming", 1000), {"action": "settle"})
    first = model_apply(state("open", 1, 1000, 0), {"action": "cancel"})[1]
    ap("cancel a payment cancelled by the previous call: answered as it is, no event",
       ["Valid", "NoEvent", "CancelTwice"], first, {"action": "cancel"})
    for amount in ["0", "", "1.5", "-1", "1e3", " 1", str(U256_MAX + 1)]:
        ap("pay %r: not an amount_raw" % amount, ["Refused", "AmountRaw"],
           state("open", 1, 1000, 0), {"action": "pay", "amountRaw": amount})
    ap("pay a number, not a string", ["Refused", "AmountRaw"], state("open", 1, 1000, 0),
       {"action": "pay", "amountRaw": 600}, err("amount_raw_invalid"))

    good = state("open", 1, 1000, 0)
    for comment, st, code in [
        ("stored status Open (statuses are lowercase)", dict(good, status="Open"),
         "invalid_argument"),
        ("stored status refunded (not a sandbox status)", dict(good, status="refunded"),
         "invalid_argument"),
        ("stored version 0: a payment starts at 1", dict(good, statusVersion="0"),
         "status_version_invalid"),
        ("stored version with a leading zero", dict(good, statusVersion="01"),
         "status_version_invalid"),
        ("stored version as a number: big numbers are strings", dict(good, statusVersion=1),
         "status_version_invalid"),
        ("stored amountRaw 0", dict(good, amountRaw="0"), "amount_raw_invalid"),
        ("stored amountReceivedRaw with a leading zero", dict(good, amountReceivedRaw="00"),
         "amount_raw_invalid"),
        ("stored amountReceivedRaw empty", dict(good, amountReceivedRaw=""),
         "amount_raw_invalid"),
        ("stored consumerAccess not a boolean", dict(good, consumerAccess="yes"),
         "invalid_argument"),
    ]:
        ap(comment, ["InvalidState"], st, {"action": "review"}, err(code))
    for comment, action in [
        ("an unknown action", {"action": "refund"}),
        ("pay without amountRaw", {"action": "pay"}),
        ("pay_held without amountRaw", {"action": "pay_held"}),
        ("settle with an amountRaw", {"action": "settle", "amountRaw": "5"}),
        ("review with an amountRaw", {"action": "review", "amountRaw": "5"}),
        ("an action name in another case", {"action": "Pay", "amountRaw": "5"}),
    ]:
        ap(comment, ["InvalidAction"], good, action, err("invalid_argument"))

    # Idempotency of creation.
    body = b'{"source_amount":{"kind":"fiat","currency":"USD","amount_raw":"12800"}}'
    same = hashlib.sha256(body).hexdigest()
    spaced = hashlib.sha256(body.replace(b":{", b": {")).hexdigest()

    def idem(comment, flags, stored, fingerprint, check):
        f.add(comment, flags, ok(check=check), function="checkIdempotency",
              **({"storedFingerprint": stored} if stored is not None else {}),
              fingerprint=fingerprint)

    idem("nothing stored under the key: create", ["Valid"], None, same, "new")
    idem("the same body again: answer with the same payment", ["Valid", "Replay"], same, same,
         "replay")
    idem("another body under a used key: 409 idempotency_key_reused", ["Valid", "Reused"],
         same, hashlib.sha256(body.replace(b"12800", b"12900")).hexdigest(), "reused")
    idem("the same JSON with a space: other bytes, reused", ["Valid", "Reused"], same, spaced,
         "reused")
    idem("the same fingerprint in uppercase: compared exactly, reused", ["Valid", "Reused"],
         same.upper(), same, "reused")

    # The delivery schedule.
    delays = [1000, 60000, 3600000]

    def step(comment, flags, attempt, answer, retry, expected=None):
        f.add(comment, flags, expected or model_step(attempt, answer, retry),
              function="nextDeliveryStep", attempt=attempt, answer=answer, retryDelaysMs=retry)

    for status in [200, 201, 204, 299]:
        step("HTTP %d: acknowledged" % status, ["Valid", "Acknowledged"], 1, status, delays)
    for status in [300, 301, 302, 304, 307, 308]:
        step("HTTP %d: a redirect is never followed, never retried" % status,
             ["Valid", "Redirect"], 1, status, delays)
    for status in [100, 101, 199, 400, 401, 403, 404, 409, 410, 413, 422, 499]:
        step("HTTP %d: failed permanently" % status, ["Valid", "Permanent"], 1, status, delays)
    for status in [408, 425, 429, 500, 502, 503, 504, 599]:
        step("HTTP %d: retried after the first delay" % status, ["Valid", "Retry"], 1, status,
             delays)
    step("a network failure: retried", ["Valid", "Retry"], 1, "network_failure", delays)
    for status in [0, 99, 600, 999, 70000, -1]:
        step("status %d is no HTTP status: a protocol failure, retried" % status,
             ["Valid", "Retry", "ProtocolError"], 1, status, delays)
    step("attempt 2: the second delay", ["Valid", "Retry"], 2, 503, delays)
    step("attempt 3 (the last delay)", ["Valid", "Retry", "Boundary"], 3, 503, delays)
    step("attempt 4 after 3 delays: exhausted", ["Valid", "Exhausted", "Boundary"], 4, 503,
         delays)
    step("a network failure after the last delay: exhausted", ["Valid", "Exhausted"], 4,
         "network_failure", delays)
    step("a 2xx after the last delay: acknowledged", ["Valid", "Acknowledged"], 4, 200, delays)
    step("attempt 2^32 - 1: exhausted", ["Valid", "Exhausted", "Boundary"], 2**32 - 1, 503,
         delays)
    step("no delays: one attempt, exhausted at once", ["Valid", "Exhausted"], 1, 500, [])
    step("no delays, a 2xx", ["Valid", "Acknowledged"], 1, 204, [])
    step("a delay of 0 ms", ["Valid", "Retry"], 1, 429, [0])
    step("20 delays of one day, attempt 20", ["Valid", "Retry", "Boundary"], 20, 503,
         [MAX_RETRY_DELAY_MS] * 20)
    step("20 delays, attempt 21: exhausted", ["Valid", "Exhausted", "Boundary"], 21, 503,
         [MAX_RETRY_DELAY_MS] * 20)
    for comment, attempt, answer, retry in [
        ("attempt 0: attempts count from 1", 0, 200, delays),
        ("attempt 2^32: past the largest attempt", 2**32, 503, delays),
        ("21 delays", 1, 200, [1000] * 21),
        ("a delay over one day", 1, 200, [MAX_RETRY_DELAY_MS + 1]),
        ("a negative delay", 1, 200, [-1]),
        ("an answer that is neither a status nor network_failure", 1, "timeout", delays),
    ]:
        step(comment, ["InvalidArgument"], attempt, answer, retry, err("invalid_argument"))

    def rd(comment, flags, retry, expected):
        f.add(comment, flags, expected, function="validateRetryDelays", retryDelaysMs=retry)

    rd("no delays", ["Valid", "Boundary"], [], ok())
    rd("a usual schedule", ["Valid"], delays, ok())
    rd("20 delays from 0 to one day", ["Valid", "Boundary"],
       [0] + [MAX_RETRY_DELAY_MS] * 19, ok())
    rd("21 delays", ["InvalidArgument", "Boundary"], [1] * 21, err("invalid_argument"))
    rd("86400001 ms", ["InvalidArgument", "Boundary"], [MAX_RETRY_DELAY_MS + 1],
       err("invalid_argument"))
    rd("a negative delay", ["InvalidArgument"], [5, -5], err("invalid_argument"))
    rd("not a list", ["InvalidArgument"], 1000, err("invalid_argument"))

    for code, status in API_ERRORS:
        f.add("%s answers HTTP %d" % (code, status), ["Valid", "ApiError"], ok(status=status),
              function="apiErrorStatus", code=code)
    for code in ["amount_raw_invalid", "Payment_not_found", "conflict"]:
        f.add("%s is not one of the service's own codes" % code, ["InvalidArgument"],
              err("invalid_argument"), function="apiErrorStatus", code=code)
    return f
