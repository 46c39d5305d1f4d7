//! `make demo-rust`: sign a sample delivery as the service would, verify it as a receiver
//! would, then show what a receiver sees when the body is tampered with, the timestamp is
//! stale, or the delivery is signed with a secret that was rotated out.

use cryptopay_verify::{
    Delivery, Error, Secret, SecretEntry, SecretSet, SignatureEncoding, Stored, Verifier,
    VerifyOptions, decide_event, sign_webhook,
};

const BODY: &str = r#"{"schema_version":"1","event_id":"evt_01HZY4","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_7Q2","status_version":18446744073709551617,"status":"open"}}"#;

fn show(label: &str, result: Result<String, Error>) {
    match result {
        Ok(text) => println!("  {label:<38} ok     {text}"),
        Err(e) => println!(
            "  {label:<38} {:<22} {}",
            e.code(),
            e.detail().unwrap_or(e.kind().message())
        ),
    }
}

fn main() -> Result<(), Error> {
    let now: u64 = 1_700_000_000;
    let timestamp = now.to_string();
    let current = Secret::new("whsec_demo_current");
    let old = Secret::new("whsec_demo_previous");

    println!("cryptopay-verify demo: one payment.updated delivery, verified and attacked\n");
    let signature = sign_webhook(
        &current,
        timestamp.as_bytes(),
        BODY.as_bytes(),
        SignatureEncoding::Hex,
    )?;
    println!("  sender signs {} body bytes at t={timestamp}", BODY.len());
    println!(
        "  signature header: v1={}...{} (64 hex digits)\n",
        signature.get(..8).unwrap_or_default(),
        signature.get(56..).unwrap_or_default()
    );

    // The receiver keys its verifier once: the current secret, plus the previous one for a
    // one-hour overlap after the rotation was activated.
    let verifier = Verifier::new(
        SecretSet::new(vec![
            SecretEntry::active(current.clone()),
            SecretEntry::retiring(old.clone(), now + 3600),
        ])?,
        VerifyOptions::new(300),
    );
    let header = format!("v1={signature}");
    let delivery = Delivery {
        body: BODY.as_bytes(),
        timestamp: timestamp.as_bytes(),
        signature: header.as_bytes(),
    };

    show(
        "authentic delivery",
        verifier.verify_webhook(&delivery, now + 2).map(|v| {
            format!(
                "event {} payment {} status_version {} ({} secret)",
                v.event.event_id(),
                v.event.payment_id(),
                v.event.status_version(),
                v.matched_secret.as_str()
            )
        }),
    );

    let tampered_body = BODY.replace("open", "paid");
    let tampered = Delivery {
        body: tampered_body.as_bytes(),
        ..delivery
    };
    show(
        "body changed after signing",
        verifier
            .verify_webhook(&tampered, now + 2)
            .map(|_| String::new()),
    );

    show(
        "replayed 10 minutes later",
        verifier
            .verify_webhook(&delivery, now + 600)
            .map(|_| String::new()),
    );

    let old_signature = format!(
        "v1={}",
        sign_webhook(
            &old,
            timestamp.as_bytes(),
            BODY.as_bytes(),
            SignatureEncoding::Hex
        )?
    );
    let by_old = Delivery {
        signature: old_signature.as_bytes(),
        ..delivery
    };
    show(
        "old secret, within the overlap",
        verifier
            .verify_signature(&by_old, now + 60)
            .map(|v| format!("matched the {} secret", v.matched_secret.as_str())),
    );
    let late_verifier = Verifier::new(
        SecretSet::new(vec![
            SecretEntry::active(current),
            SecretEntry::retiring(old, now - 1),
        ])?,
        VerifyOptions::new(300),
    );
    show(
        "old secret, after the overlap ended",
        late_verifier
            .verify_signature(&by_old, now)
            .map(|_| String::new()),
    );

    let event = verifier.verify_webhook(&delivery, now)?.event;
    let stored = Stored {
        event_seen: true,
        status_version: None,
    };
    println!(
        "\n  the same event delivered again: decide_event says {:?}",
        decide_event(event.status_version(), &stored)
    );
    Ok(())
}
