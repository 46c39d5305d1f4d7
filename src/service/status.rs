//! A payment's status, by the names the sandbox answers with.

use core::fmt;

/// A payment's status (the `status` of the service's payment views and events).
///
/// `#[non_exhaustive]`: the service may add statuses; a status this crate does not know
/// reads as `None` from [`parse`](Self::parse), never as a known one. To decide whether a
/// status read from the service justifies fulfilment, call
/// [`default_policy`](crate::default_policy), which sends any status it does not know to
/// review.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::PaymentStatus;
/// assert_eq!(PaymentStatus::parse("partially_paid"), Some(PaymentStatus::PartiallyPaid));
/// assert_eq!(PaymentStatus::PartiallyPaid.as_str(), "partially_paid");
/// assert_eq!(PaymentStatus::parse("Paid"), None); // exact, case included
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PaymentStatus {
    /// `open`: created and waiting for the customer.
    Open,
    /// `confirming`: a payment arrived and is being confirmed.
    Confirming,
    /// `paid`: the amount received equals the source amount exactly.
    Paid,
    /// `partially_paid`: less than the source amount was received; the customer may pay
    /// the rest.
    PartiallyPaid,
    /// `overpaid`: more than the source amount was received.
    Overpaid,
    /// `review_required`: held for a person to look at.
    ReviewRequired,
    /// `expired`: the payment window closed.
    Expired,
    /// `cancelled`: cancelled before anything was received.
    Cancelled,
}

impl PaymentStatus {
    /// Every status, in the order of the sandbox's list.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::PaymentStatus;
    /// // E.g. the statuses a dashboard filter offers.
    /// for status in PaymentStatus::ALL {
    ///     assert_eq!(PaymentStatus::parse(status.as_str()), Some(*status));
    /// }
    /// assert_eq!(PaymentStatus::ALL.len(), 8);
    /// ```
    pub const ALL: &'static [PaymentStatus] = &[
        PaymentStatus::Open,
        PaymentStatus::Confirming,
        PaymentStatus::Paid,
        PaymentStatus::PartiallyPaid,
        PaymentStatus::Overpaid,
        PaymentStatus::ReviewRequired,
        PaymentStatus::Expired,
        PaymentStatus::Cancelled,
    ];

    /// The wire name, such as `partially_paid`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(cryptopay_verify::PaymentStatus::ReviewRequired.as_str(), "review_required");
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            PaymentStatus::Open => "open",
            PaymentStatus::Confirming => "confirming",
            PaymentStatus::Paid => "paid",
            PaymentStatus::PartiallyPaid => "partially_paid",
            PaymentStatus::Overpaid => "overpaid",
            PaymentStatus::ReviewRequired => "review_required",
            PaymentStatus::Expired => "expired",
            PaymentStatus::Cancelled => "cancelled",
        }
    }

    /// The status with this wire name, compared exactly (case included); `None` for a name
    /// this crate does not know.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::PaymentStatus;
    /// assert_eq!(PaymentStatus::parse("expired"), Some(PaymentStatus::Expired));
    /// assert_eq!(PaymentStatus::parse("refunded"), None);
    /// ```
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        PaymentStatus::ALL
            .iter()
            .copied()
            .find(|status| status.as_str() == name)
    }
}

impl fmt::Display for PaymentStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
