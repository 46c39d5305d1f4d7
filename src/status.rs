//! Ordering and de-duplication (spec: Events, receiver rules 3 and 4): exact
//! `status_version` values and the pure decision between applying, ignoring a duplicate
//! and ignoring stale facts.

use core::cmp::Ordering;
use core::fmt;

use crate::amount::{add_digits, cmp_digits, is_unsigned_digits};
use crate::error::{Error, ErrorKind};

/// The detail of a version read back from the receiver's own store that is not one
/// ([`StatusVersion::parse_stored`]): the receiver's fault, never the event's.
pub(crate) const STORED_VERSION: &str = "a status_version read back from your store is not decimal digits (a float, REAL or scaled numeric column?): answer the delivery 5xx, not 2xx, and store the exact digits (TEXT, or numeric with no scale)";

/// A `status_version`: a non-negative integer of any size, kept as its decimal digits.
///
/// It is compared exactly, never through a float: `9007199254740993` is greater than
/// `9007199254740992`. Read one from text with [`parse`](Self::parse) (or `str::parse`);
/// `From<u64>` and `From<u128>` give an integer's canonical digits and cannot fail.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::StatusVersion;
/// let a = StatusVersion::parse("9007199254740993")?;
/// let b = StatusVersion::parse("9007199254740992")?;
/// assert!(a > b);
/// assert_eq!(StatusVersion::parse("007").unwrap_err().code(), "status_version_invalid");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct StatusVersion(String);

impl StatusVersion {
    /// Reads a version from decimal digits without a sign or leading zeros (`"0"` is fine).
    ///
    /// # Errors
    ///
    /// `status_version_invalid` for anything else: an event error
    /// ([`Error::is_event_error`]: acknowledged, as an authentic event's own fault). Read a
    /// version back from your own store with [`parse_stored`](Self::parse_stored) instead,
    /// whose refusal is your receiver's fault.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::StatusVersion;
    /// assert_eq!(StatusVersion::parse("0")?.as_str(), "0");
    /// assert_eq!(StatusVersion::parse("1.0").unwrap_err().code(), "status_version_invalid");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    pub fn parse(digits: &str) -> Result<Self, Error> {
        if Self::is_valid(digits) {
            Ok(StatusVersion(digits.to_owned()))
        } else {
            Err(Error::new(ErrorKind::StatusVersionInvalid))
        }
    }

    /// Reads a version back from your own store: the same digits as [`parse`](Self::parse),
    /// refused as your receiver's fault.
    ///
    /// # Errors
    ///
    /// `status_version_invalid` for anything but decimal digits without a sign or leading
    /// zeros, with [`Error::is_receiver_fault`] true and [`Error::is_event_error`] false: the
    /// store, not the delivery, holds a wrong value (a float or `REAL` column gives
    /// `"1.8446744073709552e19"`, a scaled `numeric` `"7.00"`). Answer the delivery 5xx, which
    /// the service retries once the column is fixed; a 2xx would acknowledge it unapplied.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::StatusVersion;
    /// assert_eq!(StatusVersion::parse_stored("18446744073709551617")?.as_str(), "18446744073709551617");
    /// // What SQLite gives for those digits stored in a NUMERIC or INTEGER column.
    /// let e = StatusVersion::parse_stored("1.8446744073709552e19").unwrap_err();
    /// assert_eq!(e.code(), "status_version_invalid");
    /// assert!(e.is_receiver_fault() && !e.is_event_error());
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    pub fn parse_stored(digits: &str) -> Result<Self, Error> {
        if Self::is_valid(digits) {
            Ok(StatusVersion(digits.to_owned()))
        } else {
            Err(Error::with_detail(
                ErrorKind::StatusVersionInvalid,
                STORED_VERSION,
            ))
        }
    }

    /// Whether `digits` is a status version as [`parse`](Self::parse) reads one, without
    /// keeping it.
    pub(crate) fn is_valid(digits: &str) -> bool {
        is_unsigned_digits(digits)
    }

    /// The next version: this one plus one, exact at any size (the service increments
    /// `status_version` by exactly one per change).
    pub(crate) fn successor(&self) -> StatusVersion {
        StatusVersion(add_digits(&self.0, "1"))
    }

    /// The decimal digits.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::StatusVersion;
    /// let version = StatusVersion::parse("18446744073709551617")?;
    /// // Past u64, still exact. Store the digits as NUMERIC, or as text compared by length
    /// // then text: text compared as text puts "10" before "9", and a stale event wins.
    /// assert_eq!(version.as_str(), "18446744073709551617");
    /// assert!(version.as_str().parse::<u64>().is_err());
    /// assert!(StatusVersion::parse("10")? > StatusVersion::parse("9")?);
    /// assert!("10" < "9");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Ord for StatusVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        // Without leading zeros, a longer number is larger; equal lengths compare digit-wise.
        cmp_digits(&self.0, &other.0)
    }
}

impl PartialOrd for StatusVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for StatusVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StatusVersion({})", self.0)
    }
}

impl fmt::Display for StatusVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A version from an integer: its canonical decimal digits, with no leading zeros.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::StatusVersion;
/// let stored = StatusVersion::from(41_u64); // as a store kept it
/// assert_eq!(stored.as_str(), "41");
/// assert!(StatusVersion::parse("42")? > stored);
/// assert_eq!(StatusVersion::from(0_u64), StatusVersion::parse("0")?);
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
impl From<u64> for StatusVersion {
    fn from(value: u64) -> Self {
        StatusVersion(value.to_string())
    }
}

/// A version from an integer: its canonical decimal digits, with no leading zeros.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::StatusVersion;
/// let past_u64 = StatusVersion::from(u128::from(u64::MAX) + 1);
/// assert_eq!(past_u64.as_str(), "18446744073709551616");
/// assert!(past_u64 > StatusVersion::from(u64::MAX));
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
impl From<u128> for StatusVersion {
    fn from(value: u128) -> Self {
        StatusVersion(value.to_string())
    }
}

impl core::str::FromStr for StatusVersion {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        StatusVersion::parse(s)
    }
}

/// What to do with an incoming event.
///
/// Exhaustive: the contract fixes these three outcomes, so a `match` on a decision needs no
/// catch-all arm, and the compiler checks that each one is handled.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{decide_event, Decision, StatusVersion, Stored};
/// let stored = Stored { event_seen: false, status_version: Some(StatusVersion::parse("4")?) };
/// let answer = match decide_event(&StatusVersion::parse("5")?, &stored) {
///     // Record the event and the payment's new state in one transaction.
///     Decision::Apply => "applied",
///     // Already recorded, or older facts than those stored: acknowledge, change nothing.
///     Decision::Duplicate | Decision::Stale => "acknowledged",
/// };
/// assert_eq!(answer, "applied");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// New facts: record them and update the payment.
    Apply,
    /// This `event_id` was already recorded: acknowledge and do nothing.
    Duplicate,
    /// Facts no newer than those stored: acknowledge and do not overwrite.
    Stale,
}

impl Decision {
    /// The decision's name: `apply`, `duplicate` or `stale`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(cryptopay_verify::Decision::Stale.as_str(), "stale");
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Decision::Apply => "apply",
            Decision::Duplicate => "duplicate",
            Decision::Stale => "stale",
        }
    }
}

/// What the receiver has stored about an incoming event and its payment.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{decide_event, Decision, StatusVersion, Stored};
/// // The first delivery for a payment: nothing stored.
/// assert_eq!(decide_event(&StatusVersion::from(1_u64), &Stored::default()), Decision::Apply);
/// // Your store's answers for this event_id and this payment_id.
/// let stored = Stored { event_seen: true, status_version: Some(StatusVersion::from(9_u64)) };
/// assert_eq!(decide_event(&StatusVersion::from(10_u64), &stored), Decision::Duplicate);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stored {
    /// Whether this `event_id` was already recorded.
    pub event_seen: bool,
    /// The newest `status_version` applied for this payment, if any.
    pub status_version: Option<StatusVersion>,
}

/// Decides, purely, whether an event's facts apply.
///
/// `Duplicate` when the event was seen; `Apply` when no version is stored for the payment
/// or the incoming one is greater; otherwise `Stale`. The caller looks up `stored` by
/// `event_id` and `payment_id` in its own durable store.
///
/// The look-up, this decision and the writes must be one serialized step, or two deliveries
/// for one payment that arrive together both read the old version, both decide `Apply`, and
/// the older may be written last. In SQLite, one `BEGIN IMMEDIATE` transaction (the
/// `axum-receiver` example does this); in PostgreSQL under its default READ COMMITTED, a
/// transaction alone is not enough: lock the payment's row (`SELECT ... FOR UPDATE`, with the
/// row inserted first when it is missing) or make the write conditional (`INSERT ... ON
/// CONFLICT (payment_id) DO UPDATE ... WHERE stored < incoming`, which the npm package's
/// `cryptopay-verify/receiver` uses, and the `axum-receiver` example with `DATABASE_URL` set),
/// and let the `event_id` primary key refuse a second record. `stored < incoming` in SQL needs
/// the version stored as a number (PostgreSQL `numeric`), never as text, where `'10' < '9'`
/// refuses the newer facts and lets older ones overwrite them; SQLite's integers stop at 64
/// bits, so there compare by length, then by text.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{decide_event, Decision, StatusVersion, Stored};
/// let stored = Stored { event_seen: false, status_version: Some(StatusVersion::parse("4")?) };
/// assert_eq!(decide_event(&StatusVersion::parse("5")?, &stored), Decision::Apply);
/// assert_eq!(decide_event(&StatusVersion::parse("4")?, &stored), Decision::Stale);
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[must_use]
pub fn decide_event(incoming: &StatusVersion, stored: &Stored) -> Decision {
    if stored.event_seen {
        return Decision::Duplicate;
    }
    match &stored.status_version {
        Some(current) if incoming <= current => Decision::Stale,
        _ => Decision::Apply,
    }
}

#[cfg(test)]
mod tests;
