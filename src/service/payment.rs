//! One payment's state and the actions that change it, as the service applies them: each
//! change increments `status_version` by exactly one and emits one `payment.updated`.

use core::cmp::Ordering;

use super::{ApiError, PaymentAction, PaymentStatus};
use crate::amount::{add_digits, cmp_digits, is_unsigned_digits, validate_amount_raw};
use crate::error::{Error, ErrorKind, err};
use crate::status::StatusVersion;

/// One payment as the service keeps it: status, `status_version`, the source amount, the
/// amount received so far and whether the customer's checkout is enabled.
///
/// Always valid: `amount_raw` is a valid `amount_raw`, `amount_received_raw` a
/// non-negative integer of any size (`"0"`, or digits without a leading zero) and
/// `status_version` at least 1. The status and the amounts are not checked against each
/// other, so a stored state the machine itself never reaches (such as `partially_paid` with
/// more than the amount received) can be restored and is handled by the same rules.
/// Change a state only with [`apply`](Self::apply).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{PaymentAction, PaymentState, PaymentStatus};
/// let created = PaymentState::new("12800")?; // open, version 1, nothing received; no event
/// assert_eq!((created.status(), created.status_version().as_str()), (PaymentStatus::Open, "1"));
/// let paid = created.apply(PaymentAction::Pay { amount_raw: "12800" }).unwrap();
/// assert_eq!(paid.state.status(), PaymentStatus::Paid);
/// assert_eq!(paid.state.status_version().as_str(), "3"); // confirming (2), then paid (3)
/// assert_eq!(PaymentState::new("0").unwrap_err().code(), "amount_raw_invalid");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PaymentState {
    status: PaymentStatus,
    status_version: StatusVersion,
    amount_raw: String,
    amount_received_raw: String,
    consumer_access: bool,
}

/// What an accepted action did: the final state, and the state after each change, in
/// order, one `payment.updated` event each.
///
/// `events` is empty when nothing changed that the service announces (a cancel of a
/// cancelled payment, an opened checkout, a disabled checkout); `state` then differs from
/// the state the action was applied to at most in its consumer access. Otherwise `state`
/// is the last event's state.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{PaymentAction, PaymentState, PaymentStatus};
/// let applied = PaymentState::new("12800")?.apply(PaymentAction::Pay { amount_raw: "500" }).unwrap();
/// let statuses: Vec<_> = applied.events.iter().map(|e| e.status().as_str()).collect();
/// assert_eq!(statuses, ["confirming", "partially_paid"]); // two payment.updated events
/// assert_eq!(applied.events.last(), Some(&applied.state));
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Applied {
    /// The payment's state after the action.
    pub state: PaymentState,
    /// The state after each change, in order: the service sends one `payment.updated` per
    /// entry, with that state's `status_version`.
    pub events: Vec<PaymentState>,
}

impl Applied {
    /// No change announced: the state (perhaps with its access turned off), no event.
    fn quiet(state: PaymentState) -> Self {
        Applied {
            state,
            events: Vec::new(),
        }
    }

    /// Announced changes; the last is the final state.
    fn changes(events: Vec<PaymentState>, last: PaymentState) -> Self {
        Applied {
            state: last,
            events,
        }
    }
}

impl PaymentState {
    /// A new payment as the service creates it: `open`, `status_version` 1, `"0"` received,
    /// consumer access enabled. Creation emits no event.
    ///
    /// # Errors
    ///
    /// `amount_raw_invalid` unless `amount_raw` is a valid `amount_raw` (the source amount's).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::PaymentState;
    /// let state = PaymentState::new("1500000")?;
    /// assert_eq!((state.amount_raw(), state.amount_received_raw()), ("1500000", "0"));
    /// assert!(state.consumer_access());
    /// assert_eq!(PaymentState::new("01500000").unwrap_err().code(), "amount_raw_invalid");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    pub fn new(amount_raw: &str) -> Result<Self, Error> {
        validate_amount_raw(amount_raw)?;
        Ok(PaymentState {
            status: PaymentStatus::Open,
            status_version: StatusVersion::from(1_u64),
            amount_raw: amount_raw.to_owned(),
            amount_received_raw: "0".to_owned(),
            consumer_access: true,
        })
    }

    /// A stored state, restored from its parts (as a sandbox keeps them between requests).
    ///
    /// # Errors
    ///
    /// In this order: `status_version_invalid` for version 0 (a payment starts at 1);
    /// `amount_raw_invalid` unless `amount_raw` is a valid `amount_raw`, or unless
    /// `amount_received_raw` is `"0"` or digits without a leading zero (any size).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{PaymentState, PaymentStatus, StatusVersion};
    /// let version = StatusVersion::parse("3")?;
    /// let state = PaymentState::from_parts(PaymentStatus::PartiallyPaid, version.clone(), "12800", "500", true)?;
    /// assert_eq!(state.status(), PaymentStatus::PartiallyPaid);
    /// let bad = PaymentState::from_parts(PaymentStatus::PartiallyPaid, version, "12800", "05", true);
    /// assert_eq!(bad.unwrap_err().code(), "amount_raw_invalid");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    pub fn from_parts(
        status: PaymentStatus,
        status_version: StatusVersion,
        amount_raw: &str,
        amount_received_raw: &str,
        consumer_access: bool,
    ) -> Result<Self, Error> {
        if status_version.as_str() == "0" {
            return Err(err(
                ErrorKind::StatusVersionInvalid,
                "a payment's status_version starts at 1",
            ));
        }
        validate_amount_raw(amount_raw)?;
        if !is_unsigned_digits(amount_received_raw) {
            return Err(err(
                ErrorKind::AmountRawInvalid,
                "amount_received_raw must be \"0\" or digits without a leading zero",
            ));
        }
        Ok(PaymentState {
            status,
            status_version,
            amount_raw: amount_raw.to_owned(),
            amount_received_raw: amount_received_raw.to_owned(),
            consumer_access,
        })
    }

    /// The status.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{PaymentState, PaymentStatus};
    /// assert_eq!(PaymentState::new("1")?.status(), PaymentStatus::Open);
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn status(&self) -> PaymentStatus {
        self.status
    }

    /// `status_version`: 1 at creation, one more after each change.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{PaymentAction, PaymentState};
    /// let reviewed = PaymentState::new("1")?.apply(PaymentAction::Review).unwrap().state;
    /// assert_eq!(reviewed.status_version().as_str(), "2");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn status_version(&self) -> &StatusVersion {
        &self.status_version
    }

    /// The source amount's `amount_raw`: what the payment asks for.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(cryptopay_verify::PaymentState::new("12800")?.amount_raw(), "12800");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn amount_raw(&self) -> &str {
        &self.amount_raw
    }

    /// The total received so far, exact at any size (`"0"` when nothing was received).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{PaymentAction, PaymentState};
    /// let state = PaymentState::new("12800")?.apply(PaymentAction::Pay { amount_raw: "300" }).unwrap().state;
    /// let state = state.apply(PaymentAction::Pay { amount_raw: "200" }).unwrap().state;
    /// assert_eq!(state.amount_received_raw(), "500");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn amount_received_raw(&self) -> &str {
        &self.amount_received_raw
    }

    /// Whether the customer's checkout is enabled (it pays and opens only while it is).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{PaymentAction, PaymentState};
    /// let state = PaymentState::new("1")?.apply(PaymentAction::DisableConsumerAccess).unwrap().state;
    /// assert!(!state.consumer_access());
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn consumer_access(&self) -> bool {
        self.consumer_access
    }

    /// Applies an action as the service does, purely: the current state is not changed;
    /// the result holds the new state and one entry per `payment.updated` event.
    ///
    /// - `Pay`: from `open` or `partially_paid`, while consumer access is enabled. Two
    ///   changes: `confirming` (the amount now counted in `amount_received_raw`), then
    ///   `paid`, `partially_paid` or `overpaid` as the total received is equal to, less or
    ///   more than `amount_raw`, compared exactly at any size.
    /// - `PayHeld`: as `Pay`, with its first change only: the payment stays `confirming`.
    /// - `Settle`: from `confirming`, `Pay`'s second change: `paid`, `partially_paid` or
    ///   `overpaid` by the total received.
    /// - `Review`: from `open`, `paid`, `partially_paid` or `overpaid` to
    ///   `review_required`.
    /// - `Expire`: from `open` or `partially_paid` to `expired`.
    /// - `Cancel`: an `open` payment with `"0"` received to `cancelled`; a `cancelled` one
    ///   is answered as it is, with no change and no event.
    /// - `DisableConsumerAccess`: turns access off, from any status; no change of status or
    ///   version, no event; idempotent.
    /// - `OpenCheckout`: changes nothing and emits nothing.
    ///
    /// # Errors
    ///
    /// `Pay` and `PayHeld`, in this order: [`ApiError::ConsumerAccessDisabled`] (403);
    /// [`ApiError::Invalid`] with `amount_raw_invalid` (400) for an amount that is not a
    /// valid `amount_raw`; [`ApiError::PaymentNotPayable`] (409) from another status.
    /// `Settle`: [`ApiError::PaymentNotConfirming`] (409).
    /// `Review`: [`ApiError::PaymentNotReviewable`]; `Expire`:
    /// [`ApiError::PaymentNotExpirable`]; `Cancel`: [`ApiError::PaymentNotCancellable`]
    /// (409 each); `OpenCheckout`: [`ApiError::ConsumerAccessDisabled`] (403).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{ApiError, PaymentAction, PaymentState, PaymentStatus};
    /// let state = PaymentState::new("12800")?;
    /// let applied = state.apply(PaymentAction::Pay { amount_raw: "12801" }).unwrap();
    /// assert_eq!(applied.state.status(), PaymentStatus::Overpaid);
    /// assert_eq!(applied.events.len(), 2);
    /// // Refused: the caller keeps its state, and no event is sent.
    /// let refused = applied.state.apply(PaymentAction::Cancel).unwrap_err();
    /// assert_eq!(refused, ApiError::PaymentNotCancellable);
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    pub fn apply(&self, action: PaymentAction<'_>) -> Result<Applied, ApiError> {
        use PaymentStatus::{Cancelled, Open, Overpaid, Paid, PartiallyPaid};
        let status = self.status;
        match action {
            PaymentAction::Pay { amount_raw } => {
                let confirming = self.receive(amount_raw)?;
                let last = confirming.settled();
                Ok(Applied::changes(vec![confirming, last.clone()], last))
            }
            PaymentAction::PayHeld { amount_raw } => {
                let confirming = self.receive(amount_raw)?;
                Ok(Applied::changes(vec![confirming.clone()], confirming))
            }
            PaymentAction::Settle => match status {
                PaymentStatus::Confirming => {
                    let last = self.settled();
                    Ok(Applied::changes(vec![last.clone()], last))
                }
                _ => Err(ApiError::PaymentNotConfirming),
            },
            PaymentAction::Review => match status {
                Open | Paid | PartiallyPaid | Overpaid => {
                    Ok(self.one_change(PaymentStatus::ReviewRequired))
                }
                _ => Err(ApiError::PaymentNotReviewable),
            },
            PaymentAction::Expire => match status {
                Open | PartiallyPaid => Ok(self.one_change(PaymentStatus::Expired)),
                _ => Err(ApiError::PaymentNotExpirable),
            },
            PaymentAction::Cancel => match status {
                Cancelled => Ok(Applied::quiet(self.clone())),
                Open if self.amount_received_raw == "0" => Ok(self.one_change(Cancelled)),
                _ => Err(ApiError::PaymentNotCancellable),
            },
            PaymentAction::DisableConsumerAccess => Ok(Applied::quiet(PaymentState {
                consumer_access: false,
                ..self.clone()
            })),
            PaymentAction::OpenCheckout if self.consumer_access => Ok(Applied::quiet(self.clone())),
            PaymentAction::OpenCheckout => Err(ApiError::ConsumerAccessDisabled),
        }
    }

    /// The customer pays `amount_raw`: the `confirming` state, the amount counted (see
    /// [`apply`](Self::apply) for the order of checks).
    fn receive(&self, amount_raw: &str) -> Result<PaymentState, ApiError> {
        if !self.consumer_access {
            return Err(ApiError::ConsumerAccessDisabled);
        }
        validate_amount_raw(amount_raw)?;
        if !matches!(
            self.status,
            PaymentStatus::Open | PaymentStatus::PartiallyPaid
        ) {
            return Err(ApiError::PaymentNotPayable);
        }
        Ok(PaymentState {
            amount_received_raw: add_digits(&self.amount_received_raw, amount_raw),
            ..self.changed(PaymentStatus::Confirming)
        })
    }

    /// The confirmations complete: `paid`, `partially_paid` or `overpaid` as the total
    /// received is equal to, less or more than `amount_raw`.
    fn settled(&self) -> PaymentState {
        self.changed(
            match cmp_digits(&self.amount_received_raw, &self.amount_raw) {
                Ordering::Less => PaymentStatus::PartiallyPaid,
                Ordering::Equal => PaymentStatus::Paid,
                Ordering::Greater => PaymentStatus::Overpaid,
            },
        )
    }

    /// This state with another status and the next version.
    fn changed(&self, status: PaymentStatus) -> PaymentState {
        PaymentState {
            status,
            status_version: self.status_version.successor(),
            ..self.clone()
        }
    }

    /// One announced change to `status`.
    fn one_change(&self, status: PaymentStatus) -> Applied {
        let next = self.changed(status);
        Applied::changes(vec![next.clone()], next)
    }
}
