//! Native benchmark: `Verifier::verify_signature` against raw `hmac` + `sha2` over the same
//! bytes (the payment.updated event padded to 256 B, 1 KiB, 16 KiB and 1 MiB, built exactly
//! as bench/lib/inputs.mjs builds it), plus `verify_webhook` and `parse_event` to show what
//! the envelope parse costs natively.
//!
//! Run with `cargo bench --bench native` (see bench/README.md for the Cargo.toml stanza);
//! `BENCH_QUICK=1` for a short run. Cases alternate run by run; each is warmed up and timed
//! in batches of about 10 ms, and the medians of per-operation times and of per-round ratios
//! are printed, then one `BENCH_JSON {...}` line that bench/run.mjs reads. No assertions on
//! timings: a case only stops the run if it gives the wrong answer.

use std::hint::black_box;
use std::time::{Duration, Instant};

use cryptopay_verify::{
    Delivery, Secret, SecretSet, SignatureEncoding, Verifier, VerifyOptions, parse_event,
    sign_webhook,
};
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

const SECRET: &str = "whsec_bench_0123456789abcdefghijklmnopqrstuv";
const TIMESTAMP: &str = "1700000000";
const NOW: u64 = 1_700_000_000;
const SIZES: [usize; 4] = [256, 1024, 16 * 1024, 1024 * 1024];

const HEAD: &str = concat!(
    r#"{"schema_version":"1","event_id":"evt_01JBENCH0000000000000000","event_type":"payment.updated","#,
    r#""occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_01JBENCH000000000000000","#,
    r#""status_version":7,"status":"paid","history":["#
);
const TAIL_OPEN: &str = r#"],"pad":""#;
const TAIL_CLOSE: &str = r#""}}"#;

type BoxError = Box<dyn std::error::Error>;

fn item(i: usize) -> String {
    format!(r#"{{"at":"2026-11-22T10:00:00Z","status":"pending","status_version":{i}}}"#)
}

/// The event padded to exactly `size` bytes: status items in `data.history` while they fit,
/// then 'x' in `data.pad`.
fn event_body(size: usize) -> Result<Vec<u8>, BoxError> {
    let fixed = HEAD
        .len()
        .checked_add(TAIL_OPEN.len())
        .and_then(|n| n.checked_add(TAIL_CLOSE.len()))
        .ok_or("overflow")?;
    let mut used = fixed;
    let mut items: Vec<String> = Vec::new();
    for i in 1.. {
        let next = item(i);
        let cost = next.len().saturating_add(usize::from(!items.is_empty()));
        if used.saturating_add(cost) > size {
            break;
        }
        used = used.saturating_add(cost);
        items.push(next);
    }
    let pad = size
        .checked_sub(used)
        .ok_or("the envelope is larger than the size")?;
    let text = format!(
        "{HEAD}{}{TAIL_OPEN}{}{TAIL_CLOSE}",
        items.join(","),
        "x".repeat(pad)
    );
    if text.len() != size {
        return Err(format!("built {} bytes, wanted {size}", text.len()).into());
    }
    Ok(text.into_bytes())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

struct Case<'a> {
    id: &'static str,
    run: Box<dyn Fn() -> bool + 'a>,
    batch: u64,
    samples: Vec<f64>,
}

fn time_batch(case: &Case<'_>, n: u64) -> Result<Duration, BoxError> {
    let start = Instant::now();
    for _ in 0..n {
        if !black_box((case.run)()) {
            return Err(wrong(&format!("{}: rejected a valid delivery", case.id)));
        }
    }
    Ok(start.elapsed())
}

fn nanos(d: Duration) -> f64 {
    d.as_secs_f64() * 1e9
}

fn median(values: &[f64]) -> f64 {
    let mut xs = values.to_vec();
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len().checked_div(2).unwrap_or(0))
        .copied()
        .unwrap_or(f64::NAN)
}

/// Warm-up, then `rounds` rounds of one batch per case, the order rotated each round.
fn run_group(
    cases: &mut [Case<'_>],
    rounds: usize,
    batch_ms: u64,
    warmup_ms: u64,
) -> Result<(), BoxError> {
    let target = Duration::from_millis(batch_ms);
    for case in cases.iter_mut() {
        let mut n: u64 = 1;
        let mut spent = Duration::ZERO;
        let mut best = f64::INFINITY;
        while spent < Duration::from_millis(warmup_ms) {
            let d = time_batch(case, n)?;
            spent = spent.saturating_add(d);
            #[allow(clippy::cast_precision_loss)]
            let per_op = nanos(d) / n as f64;
            best = best.min(per_op);
            if d < target {
                n = n.saturating_mul(2);
            }
        }
        let wanted = nanos(target) / best.max(1.0);
        // Bounded to [1, 1e9] before the conversion.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let batch = wanted.clamp(1.0, 1e9).round() as u64;
        case.batch = batch;
    }
    let count = cases.len();
    for round in 0..rounds {
        for k in 0..count {
            let index = round
                .checked_add(k)
                .and_then(|i| i.checked_rem(count))
                .unwrap_or(0);
            let Some(case) = cases.get_mut(index) else {
                continue;
            };
            let d = time_batch(case, case.batch)?;
            #[allow(clippy::cast_precision_loss)]
            case.samples.push(nanos(d) / case.batch as f64);
        }
    }
    Ok(())
}

fn ratio(cases: &[Case<'_>], a: &str, b: &str) -> f64 {
    let find = |id: &str| cases.iter().find(|c| c.id == id);
    match (find(a), find(b)) {
        (Some(x), Some(y)) => {
            let per_round: Vec<f64> = x
                .samples
                .iter()
                .zip(&y.samples)
                .map(|(p, q)| p / q)
                .collect();
            median(&per_round)
        }
        _ => f64::NAN,
    }
}

/// A wrong answer (a valid delivery refused, a forged one accepted): printed as a `BENCH_WRONG`
/// line, which `bench/run.mjs` turns into a failed run (a build that cannot run is a row not
/// measured; a wrong answer is never a row).
fn wrong(what: &str) -> BoxError {
    println!("BENCH_WRONG {what}");
    what.into()
}

fn main() -> Result<(), BoxError> {
    let quick = std::env::var("BENCH_QUICK").is_ok_and(|v| v == "1");
    let (rounds, batch_ms, warmup_ms) = if quick { (9, 3, 30) } else { (31, 10, 150) };
    let secret = Secret::new(SECRET);
    let verifier = Verifier::new(SecretSet::single(secret.clone())?, VerifyOptions::new(300));
    let keyed = Hmac::<Sha256>::new_from_slice(SECRET.as_bytes())?;
    let mut json_groups: Vec<String> = Vec::new();
    println!(
        "native: {rounds} rounds of ~{batch_ms} ms batches per case; median ns/op; ratios per round"
    );
    println!(
        "{:<8} {:<34} {:>12} {:>10} {:>12} {:>12}",
        "size", "case", "ns/op", "MB/s", "x raw-keyed", "x raw-new"
    );
    for size in SIZES {
        let body = event_body(size)?;
        let tag_hex = sign_webhook(&secret, TIMESTAMP.as_bytes(), &body, SignatureEncoding::Hex)?;
        let header = format!("v1={tag_hex}");
        let mut tag = [0u8; 32];
        for (slot, pair) in tag.iter_mut().zip(tag_hex.as_bytes().chunks(2)) {
            *slot = u8::from_str_radix(std::str::from_utf8(pair)?, 16)?;
        }
        let delivery = Delivery {
            body: &body,
            timestamp: TIMESTAMP.as_bytes(),
            signature: header.as_bytes(),
        };
        let raw_update = |mut mac: Hmac<Sha256>| {
            mac.update(black_box(TIMESTAMP.as_bytes()));
            mac.update(b".");
            mac.update(black_box(&body));
            mac.verify_slice(&tag).is_ok()
        };
        let mut cases = vec![
            Case {
                id: "Verifier::verify_signature",
                run: Box::new(|| verifier.verify_signature(black_box(&delivery), NOW).is_ok()),
                batch: 1,
                samples: Vec::new(),
            },
            Case {
                id: "raw hmac+sha2, keyed once (clone)",
                run: Box::new(|| raw_update(keyed.clone())),
                batch: 1,
                samples: Vec::new(),
            },
            Case {
                id: "raw hmac+sha2, keyed per call",
                run: Box::new(|| {
                    Hmac::<Sha256>::new_from_slice(black_box(SECRET.as_bytes()))
                        .is_ok_and(raw_update)
                }),
                batch: 1,
                samples: Vec::new(),
            },
            Case {
                id: "sha2 Sha256::digest(body) only",
                run: Box::new(|| black_box(Sha256::digest(black_box(&body))).len() == 32),
                batch: 1,
                samples: Vec::new(),
            },
            Case {
                id: "Verifier::verify_webhook",
                run: Box::new(|| verifier.verify_webhook(black_box(&delivery), NOW).is_ok()),
                batch: 1,
                samples: Vec::new(),
            },
            Case {
                id: "parse_event only",
                run: Box::new(|| parse_event(black_box(&body)).is_ok()),
                batch: 1,
                samples: Vec::new(),
            },
        ];
        // The wrong tag must be rejected (a correctness check, not a timing one).
        let mut bad = header.clone().into_bytes();
        if let Some(last) = bad.last_mut() {
            *last = if *last == b'0' { b'1' } else { b'0' };
        }
        let tampered = Delivery {
            signature: &bad,
            ..delivery
        };
        if verifier.verify_signature(&tampered, NOW).is_ok() {
            return Err(wrong("Verifier accepted a wrong signature"));
        }
        run_group(&mut cases, rounds, batch_ms, warmup_ms)?;
        let mut json_cases: Vec<String> = Vec::new();
        for case in &cases {
            let ns = median(&case.samples);
            #[allow(clippy::cast_precision_loss)]
            let mbs = size as f64 / ns * 1e3;
            let vs_keyed = ratio(&cases, case.id, "raw hmac+sha2, keyed once (clone)");
            let vs_new = ratio(&cases, case.id, "raw hmac+sha2, keyed per call");
            println!(
                "{size:<8} {:<34} {ns:>12.0} {mbs:>10.1} {vs_keyed:>12.3} {vs_new:>12.3}",
                case.id
            );
            let samples: Vec<String> = case.samples.iter().map(|s| format!("{s:.1}")).collect();
            json_cases.push(format!(
                r#""{}":{{"median":{ns:.1},"vsRawKeyed":{vs_keyed:.4},"vsRawNew":{vs_new:.4},"samples":[{}]}}"#,
                case.id,
                samples.join(",")
            ));
        }
        json_groups.push(format!(
            r#"{{"size":{size},"bodySha256":"{}","cases":{{{}}}}}"#,
            hex(&Sha256::digest(&body)),
            json_cases.join(",")
        ));
    }
    println!(
        r#"BENCH_JSON {{"quick":{quick},"rounds":{rounds},"batchMs":{batch_ms},"groups":[{}]}}"#,
        json_groups.join(",")
    );
    Ok(())
}
