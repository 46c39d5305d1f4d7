"""Fulfilment as vectors: fulfilment.json (linking a verified event to the merchant's order
by the authoritative view of its payment, and the default fulfilment policy).

Imported by generate.py, which writes and checks the file. The expectations of the valid
views come from the small reference model below, written from the spec apart from the crate;
those of the views the crate refuses are written out with the reason in each comment.
"""

import json

from service_vectors import U256_MAX, err, ok

LINK_CODES = ["payment_unknown", "payment_id_mismatch", "order_ref_mismatch",
              "source_amount_mismatch", "integration_mismatch"]

POLICY = {"open": "wait", "confirming": "wait", "paid": "fulfil", "partially_paid": "review",
          "overpaid": "review", "review_required": "review", "expired": "closed",
          "cancelled": "closed"}

USD = {"kind": "fiat", "currency": "USD", "amount_raw": "12800"}


def J(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def view(status="paid", version=3, payment_id="pay_1", order_ref="order-42",
         source_amount=None, received="12800", extra=None):
    """A view as the service answers it (None leaves a field out)."""
    v = {"payment_id": payment_id, "order_ref": order_ref,
         "source_amount": USD if source_amount is None else source_amount,
         "status": status, "status_version": version, "amount_received_raw": received}
    v = {k: x for k, x in v.items() if x is not None}
    v.update(extra or {})
    return v


def view_json(v, version_text=None):
    """The exact text of a view; `version_text` writes status_version as given (a number
    past 2^53, which neither JSON.parse nor a double holds)."""
    if version_text is None:
        return J(v)
    marker = "__VERSION__"
    return J(dict(v, status_version=marker)).replace('"%s"' % marker, version_text)


def order(payment_id="pay_1", order_ref="order-42", source_amount=None, integration=None):
    o = {"paymentId": payment_id, "orderRef": order_ref,
         "sourceAmount": USD if source_amount is None else source_amount,
         "integration": integration}
    return {k: x for k, x in o.items() if x is not None}


def model_policy(v):
    action = POLICY.get(v["status"], "review")
    received = v.get("amount_received_raw")
    if action == "fulfil" and received is not None:
        if received != v["source_amount"]["amount_raw"]:
            action = "review"
    # Money received before (or after) the payment ended is never silently closed.
    if action == "closed" and received not in (None, "0"):
        action = "review"
    return action


def model_link(o, v, integration):
    if o is None:
        return "payment_unknown"
    if o["paymentId"] != v["payment_id"]:
        return "payment_id_mismatch"
    if o.get("orderRef") != v.get("order_ref"):
        return "order_ref_mismatch"
    fields = ("kind", "currency", "pricing_ref", "amount_raw")
    if any(o["sourceAmount"].get(f) != v["source_amount"].get(f) for f in fields):
        return "source_amount_mismatch"
    if o.get("integration") != integration:
        return "integration_mismatch"
    return None


def build_fulfilment(VectorFile):
    f = VectorFile(
        "fulfilment.json", "defaultPolicy",
        "Fulfilment, after the spec: only the authoritative status (GET "
        "/v1/payments/{payment_id}, given as viewJson, the exact text of the answer) justifies "
        "fulfilling an order. defaultPolicy: paid is fulfil only when amount_received_raw is "
        "absent or exactly source_amount.amount_raw (else review); partially_paid, overpaid "
        "and review_required review; open and confirming wait; expired and cancelled closed "
        "when nothing was received (amount_received_raw absent or 0), else review; "
        "any other status (case included) review. linkEvent: the view is read first, then the "
        "order; then payment_unknown (no order), payment_id_mismatch, order_ref_mismatch "
        "(both absent is equal), source_amount_mismatch (kind, currency, pricing_ref, "
        "amount_raw, exact), integration_mismatch (the integration whose secret verified the "
        "event against the order's; absent matches only absent). A view tolerates unknown "
        "keys (in source_amount too); status_version is a JSON integer or a digit string of "
        "any size, never a float.",
        per_row_function=True)

    def pol(comment, flags, v, expected=None, version_text=None):
        expected = expected or ok(action=model_policy(v))
        f.add(comment, flags, expected, function="defaultPolicy",
              viewJson=view_json(v, version_text))

    for status, action in POLICY.items():
        received = None if action == "closed" else "12800"
        pol("%s: %s" % (status, action), ["Valid", "Status"], view(status, received=received))
    for status in ["expired", "cancelled"]:
        pol("%s with nothing received: closed" % status, ["Valid", "Amount"],
            view(status, received="0"))
        pol("%s after 100 of 12800 came in: review (the customer's money)" % status,
            ["Valid", "Amount"], view(status, received="100"))
        pol("%s after the whole amount came in: review" % status, ["Valid", "Amount"],
            view(status, received="12800"))
    pol("paid with no amount_received_raw: fulfil", ["Valid"], view(received=None))
    pol("paid with amount_received_raw null (read as absent): fulfil", ["Valid", "Null"],
        view(received=None, extra={"amount_received_raw": None}))
    pol("partially_paid with order_ref null: review", ["Valid", "Null"],
        view(status="partially_paid", received="100", extra={"order_ref": None}))
    pol("paid, one unit short: review", ["Valid", "Amount"], view(received="12799"))
    pol("paid, one unit over: review", ["Valid", "Amount"], view(received="12801"))
    pol("paid, nothing received: review", ["Valid", "Amount"], view(received="0"))
    pol("paid 2^256 - 1 of 2^256 - 1: fulfil", ["Valid", "Amount", "BigNumber"],
        view(source_amount=dict(USD, amount_raw=str(U256_MAX)), received=str(U256_MAX)))
    pol("paid 2^256 - 2 of 2^256 - 1: review", ["Valid", "Amount", "BigNumber"],
        view(source_amount=dict(USD, amount_raw=str(U256_MAX)), received=str(U256_MAX - 1)))
    pol("paid 2^256 of 2^256 - 1 (a total past 256 bits): review",
        ["Valid", "Amount", "BigNumber"],
        view(source_amount=dict(USD, amount_raw=str(U256_MAX)), received=str(U256_MAX + 1)))
    pol("source_amount currency null (read as absent; linking then compares it)",
        ["Valid", "Null"], view(source_amount=dict(USD, currency=None)))
    pol("partially_paid that received the whole amount: the status decides, review",
        ["Valid", "Status"], view("partially_paid"))
    for status in ["PAID", "Paid", "paid ", "", "refunded", "settled", "fulfil", "succeeded"]:
        pol("unknown status %r: review, never fulfil" % status, ["Valid", "UnknownStatus"],
            view(status))
    for text in ["18446744073709551617", "340282366920938463463374607431768211457",
                 "9" * 60]:
        pol("status_version %s... as a JSON number: exact, decided" % text[:20],
            ["Valid", "BigNumber", "StatusVersion"], view(), version_text=text)
    pol("status_version as a digit string past 2^64", ["Valid", "BigNumber", "StatusVersion"],
        view(version="18446744073709551617"))
    pol("status_version 0", ["Valid", "StatusVersion"], view(version=0))
    pol("unknown keys, at the top and in source_amount, are tolerated", ["Valid", "Unknown"],
        view(source_amount=dict(USD, decimals=2),
             extra={"checkout_url": "https://pay.example/c/1", "metadata": {"a": [1, None]}}))
    pol("a crypto source amount", ["Valid"],
        view(source_amount={"kind": "crypto", "pricing_ref": "usdc-eth",
                            "amount_raw": "1500000"}, received="1500000"))
    for comment, v, text, code in [
        ("status_version 3.0: a float", view(), "3.0", "status_version_invalid"),
        ("status_version 3e0: an exponent", view(), "3e0", "status_version_invalid"),
        ("status_version -3", view(), "-3", "status_version_invalid"),
        ("status_version \"03\"", view(version="03"), None, "status_version_invalid"),
        ("status_version null", view(), "null", "status_version_invalid"),
        ("status_version missing", view(version=None), None, "invalid_argument"),
        ("status missing", view(status=None), None, "invalid_argument"),
        ("status not a string", view(status=1), None, "invalid_argument"),
        ("payment_id missing", view(payment_id=None), None, "invalid_argument"),
        ("payment_id empty", view(payment_id=""), None, "invalid_argument"),
        ("order_ref not a string", view(order_ref=42), None, "invalid_argument"),
        ("source_amount missing", dict((k, x) for k, x in view().items()
                                       if k != "source_amount"), None, "invalid_argument"),
        ("source_amount kind gold", view(source_amount=dict(USD, kind="gold")), None,
         "source_amount_invalid"),
        ("source_amount amount_raw as a number", view(source_amount=dict(USD, amount_raw=12800)),
         None, "amount_raw_invalid"),
        ("source_amount amount_raw 0", view(source_amount=dict(USD, amount_raw="0")), None,
         "amount_raw_invalid"),
        ("amount_received_raw as a number", view(received=12800), None, "amount_raw_invalid"),
        ("amount_received_raw with a leading zero", view(received="012800"), None,
         "amount_raw_invalid"),
    ]:
        pol("invalid view: %s" % comment, ["InvalidView"], v, err(code), text)
    f.add("invalid view: not an object", ["InvalidView"], err("invalid_argument"),
          function="defaultPolicy", viewJson="[]")
    f.add("invalid view: a repeated key", ["InvalidView"], err("invalid_argument"),
          function="defaultPolicy",
          viewJson=view_json(view()).replace('{"payment_id"', '{"status":"paid","payment_id"'))
    f.add("invalid view: not JSON", ["InvalidView"], err("invalid_argument"),
          function="defaultPolicy", viewJson='{"payment_id":"pay_1"')

    def link(comment, flags, o, v, integration=None, expected=None, version_text=None):
        if expected is None:
            code = model_link(o, v, integration)
            expected = ok() if code is None else err(code)
        row = {"order": o} if o is not None else {}
        if integration is not None:
            row["eventIntegration"] = integration
        f.add(comment, flags, expected, function="linkEvent",
              viewJson=view_json(v, version_text), **row)

    link("everything equal, a single-integration receiver", ["Valid"], order(), view())
    link("everything equal, the order's integration", ["Valid", "Integration"],
         order(integration="shop-eu"), view(), "shop-eu")
    link("no order for the payment", ["Mismatch"], None, view())
    link("no order, with an integration", ["Mismatch"], None, view(), "shop-eu")
    link("another payment_id", ["Mismatch"], order(payment_id="pay_2"), view())
    link("payment_id in another case", ["Mismatch"], order(payment_id="PAY_1"), view())
    link("order_ref absent on both sides", ["Valid", "OrderRef"], order(order_ref=None),
         view(order_ref=None))
    link("order_ref on the order only", ["Mismatch", "OrderRef"], order(), view(order_ref=None))
    link("order_ref on the view only", ["Mismatch", "OrderRef"], order(order_ref=None), view())
    link("order_ref empty against absent", ["Mismatch", "OrderRef"], order(order_ref=""),
         view(order_ref=None))
    link("order_ref in another case", ["Mismatch", "OrderRef"], order(order_ref="ORDER-42"),
         view())
    link("order_ref null in the view reads as absent", ["Valid", "OrderRef", "Null"],
         order(order_ref=None), view(order_ref=None, extra={"order_ref": None}))
    link("order_ref null in the view against an order's", ["Mismatch", "OrderRef", "Null"],
         order(), view(order_ref=None, extra={"order_ref": None}), expected=err("order_ref_mismatch"))
    for comment, sa in [
        ("one unit more", dict(USD, amount_raw="12801")),
        ("one unit less", dict(USD, amount_raw="12799")),
        ("the currency in lowercase", dict(USD, currency="usd")),
        ("another currency", dict(USD, currency="EUR")),
        ("crypto with the same ref", {"kind": "crypto", "pricing_ref": "USD",
                                      "amount_raw": "12800"}),
        ("a pricing_ref besides the currency", dict(USD, pricing_ref="USD")),
    ]:
        link("source_amount with %s" % comment, ["Mismatch", "SourceAmount"],
             order(source_amount=sa), view())
    link("a fiat view writing pricing_ref null: read as absent, linked", ["Valid", "Null"],
         order(), view(source_amount=dict(USD, pricing_ref=None)), expected=ok())
    link("a view's currency null against the order's USD", ["Mismatch", "Null"],
         order(), view(source_amount=dict(USD, currency=None)),
         expected=err("source_amount_mismatch"))
    crypto = {"kind": "crypto", "pricing_ref": "usdc-eth", "amount_raw": str(U256_MAX)}
    link("a crypto view writing currency null: read as absent, linked", ["Valid", "Null"],
         order(source_amount=crypto),
         view(source_amount=dict(crypto, currency=None), received=None), expected=ok())
    link("crypto source amounts of 2^256 - 1, equal", ["Valid", "BigNumber"],
         order(source_amount=crypto), view(source_amount=crypto, received=str(U256_MAX)))
    link("crypto source amounts of another pricing_ref", ["Mismatch", "SourceAmount"],
         order(source_amount=dict(crypto, pricing_ref="usdc-sol")),
         view(source_amount=crypto, received=None))
    link("crypto source amounts 2^256 - 1 against 2^256 - 2", ["Mismatch", "BigNumber"],
         order(source_amount=crypto),
         view(source_amount=dict(crypto, amount_raw=str(U256_MAX - 1)), received=None))
    link("an unknown key in the view's source_amount: compared by its fields",
         ["Valid", "Unknown"], order(), view(source_amount=dict(USD, decimals=2)))
    for comment, o, integration in [
        ("event of another integration", order(integration="shop-eu"), "shop-us"),
        ("event of an integration in another case", order(integration="shop-eu"), "Shop-eu"),
        ("order under an integration, event of a receiver naming none",
         order(integration="shop-eu"), None),
        ("order of a single-integration receiver, event naming an integration", order(),
         "shop-eu"),
    ]:
        link(comment, ["Mismatch", "Integration"], o, view(), integration)
    link("several mismatches: payment_id first", ["Mismatch", "Order"],
         order(payment_id="pay_2", order_ref="x", source_amount=dict(USD, amount_raw="1"),
               integration="y"), view())
    link("order_ref before source_amount and integration", ["Mismatch", "Order"],
         order(order_ref="x", source_amount=dict(USD, amount_raw="1"), integration="y"),
         view())
    link("source_amount before integration", ["Mismatch", "Order"],
         order(source_amount=dict(USD, amount_raw="1"), integration="y"), view())
    link("linking does not read the status: an unknown one links", ["Valid"], order(),
         view(status="refunded"))
    link("a version past 2^64 links", ["Valid", "BigNumber"], order(), view(),
         version_text="18446744073709551617")
    link("an invalid view is refused before the order is looked at",
         ["InvalidView", "Order"], None, view(), expected=err("status_version_invalid"),
         version_text="3.5")
    link("an order whose sourceAmount has an unknown key: the merchant's record is strict",
         ["InvalidOrder"], order(source_amount=dict(USD, memo="x")), view(),
         expected=err("source_amount_invalid"))
    return f
