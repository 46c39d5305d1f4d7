//! Log lines anyone can cause (a forged, unsigned, replayed or slow request each gets one) are
//! written at most `LINES_PER_WINDOW` times per kind in a window of `WINDOW_SECS`, as the npm
//! receiver writes them: a flood of requests must not fill the log, or page someone once a
//! request. The others are counted, and the first line of a later window says how many there
//! were. The kinds are a fixed set (error codes, never a value from a request), so the map
//! stays small.

use std::collections::HashMap;
use std::sync::Mutex;

/// Lines written per kind in one window.
pub const LINES_PER_WINDOW: u32 = 5;
/// A window's length, in seconds.
pub const WINDOW_SECS: u64 = 60;

/// The windows of each kind of line.
#[derive(Default)]
pub struct Throttle {
    kinds: Mutex<HashMap<&'static str, Window>>,
}

struct Window {
    from: u64,
    said: u32,
    unsaid: u64,
}

impl Throttle {
    /// Writes the line that `line` makes to stderr, unless `kind` has had its lines in the
    /// window of `now_secs`; then it is counted (and never made).
    pub fn say(&self, kind: &'static str, now_secs: u64, line: impl FnOnce() -> String) {
        if let Some(line) = self.admit(kind, now_secs, line) {
            eprintln!("{line}");
        }
    }

    /// The line to write, with what the window before counted or what this one will count
    /// from now on; `None` when the line is counted instead.
    fn admit(
        &self,
        kind: &'static str,
        now_secs: u64,
        line: impl FnOnce() -> String,
    ) -> Option<String> {
        // A panic elsewhere while the lock was held leaves counts that are still counts.
        let mut kinds = self
            .kinds
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let window = kinds.entry(kind).or_insert(Window {
            from: now_secs,
            said: 0,
            unsaid: 0,
        });
        let mut before = String::new();
        // A clock set back starts a window too.
        if now_secs < window.from || now_secs - window.from >= WINDOW_SECS {
            if window.unsaid > 0 {
                before = format!(
                    " ({} more like it were counted, not said, in an earlier window)",
                    window.unsaid
                );
            }
            *window = Window {
                from: now_secs,
                said: 0,
                unsaid: 0,
            };
        }
        if window.said >= LINES_PER_WINDOW {
            window.unsaid = window.unsaid.saturating_add(1);
            return None;
        }
        window.said += 1;
        let last = if window.said == LINES_PER_WINDOW {
            format!("; more like it in the next {WINDOW_SECS} s are counted, not said")
        } else {
            String::new()
        };
        Some(format!("{}{before}{last}", line()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_lines_a_kind_a_window_then_the_count() {
        let throttle = Throttle::default();
        let said: Vec<Option<String>> = (0..8)
            .map(|i| throttle.admit("signature_mismatch", 1_000 + i, || format!("line {i}")))
            .collect();
        assert_eq!(
            said[..4],
            [
                Some("line 0".into()),
                Some("line 1".into()),
                Some("line 2".into()),
                Some("line 3".into())
            ]
        );
        assert_eq!(
            said[4].as_deref(),
            Some("line 4; more like it in the next 60 s are counted, not said")
        );
        assert_eq!(said[5..], [None, None, None]);
        // Another kind has its own window.
        assert_eq!(
            throttle
                .admit("timestamp_too_old", 1_007, || "other".into())
                .as_deref(),
            Some("other")
        );
        // The next window's first line says what the last one counted; then the count starts over.
        assert_eq!(
            throttle
                .admit("signature_mismatch", 1_060, || "line 8".into())
                .as_deref(),
            Some("line 8 (3 more like it were counted, not said, in an earlier window)")
        );
        assert_eq!(
            throttle
                .admit("signature_mismatch", 1_061, || "line 9".into())
                .as_deref(),
            Some("line 9")
        );
    }

    #[test]
    fn a_counted_line_is_never_made_and_a_clock_set_back_starts_a_window() {
        let throttle = Throttle::default();
        for i in 0..LINES_PER_WINDOW {
            assert!(throttle.admit("k", 500, || format!("{i}")).is_some());
        }
        assert!(
            throttle
                .admit("k", 501, || unreachable!("a counted line is not formatted"))
                .is_none()
        );
        assert_eq!(
            throttle.admit("k", 400, || "back".into()).as_deref(),
            Some("back (1 more like it were counted, not said, in an earlier window)")
        );
    }
}
