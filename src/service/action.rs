//! The actions that happen to a payment, by name.

/// Something that happens to a payment: the customer pays or opens the checkout, the
/// network confirms a payment, the merchant or the service reviews, expires, cancels or
/// disables the checkout.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::PaymentAction;
/// // From a request's fields (a sandbox's route, a vector's `action`).
/// assert_eq!(PaymentAction::parse("pay", Some("500")), Some(PaymentAction::Pay { amount_raw: "500" }));
/// assert_eq!(PaymentAction::parse("cancel", None), Some(PaymentAction::Cancel));
/// assert_eq!(PaymentAction::parse("pay", None), None); // pay needs its amount
/// assert_eq!(PaymentAction::parse("settle", None), Some(PaymentAction::Settle));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PaymentAction<'a> {
    /// `pay`: the customer pays `amount_raw` (several payments add up).
    Pay {
        /// The amount paid, an `amount_raw` in the source's smallest unit.
        amount_raw: &'a str,
    },
    /// `pay_held`: the customer pays `amount_raw`, and the payment stays `confirming` until
    /// [`Settle`](Self::Settle): a sandbox holds the confirmations so that a merchant can
    /// test what it does meanwhile (`pay` is `pay_held` then `settle` at once).
    PayHeld {
        /// The amount paid, an `amount_raw` in the source's smallest unit.
        amount_raw: &'a str,
    },
    /// `settle`: the confirmations of a `confirming` payment complete.
    Settle,
    /// `review`: hold the payment for review.
    Review,
    /// `expire`: the payment window closes.
    Expire,
    /// `cancel`: cancel a payment nothing was paid to.
    Cancel,
    /// `disable_consumer_access`: turn the customer's checkout off (idempotent).
    DisableConsumerAccess,
    /// `open_checkout`: the customer opens (activates) the checkout.
    OpenCheckout,
}

impl<'a> PaymentAction<'a> {
    /// The action's name: `pay`, `pay_held`, `settle`, `review`, `expire`, `cancel`,
    /// `disable_consumer_access` or `open_checkout`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::PaymentAction;
    /// assert_eq!(PaymentAction::DisableConsumerAccess.as_str(), "disable_consumer_access");
    /// ```
    #[must_use]
    pub const fn as_str(&self) -> &'static str {
        match self {
            PaymentAction::Pay { .. } => "pay",
            PaymentAction::PayHeld { .. } => "pay_held",
            PaymentAction::Settle => "settle",
            PaymentAction::Review => "review",
            PaymentAction::Expire => "expire",
            PaymentAction::Cancel => "cancel",
            PaymentAction::DisableConsumerAccess => "disable_consumer_access",
            PaymentAction::OpenCheckout => "open_checkout",
        }
    }

    /// The action with this name; `amount_raw` is required for `pay` and `pay_held` and
    /// refused for the others. `None` for an unknown name or a misplaced or missing amount (the amount
    /// itself is checked by [`PaymentState::apply`](crate::PaymentState::apply)).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::PaymentAction;
    /// assert_eq!(PaymentAction::parse("expire", None), Some(PaymentAction::Expire));
    /// assert_eq!(PaymentAction::parse("expire", Some("1")), None);
    /// assert_eq!(PaymentAction::parse("refund", None), None);
    /// ```
    #[must_use]
    pub fn parse(name: &str, amount_raw: Option<&'a str>) -> Option<Self> {
        let action = match (name, amount_raw) {
            ("pay", Some(amount_raw)) => return Some(PaymentAction::Pay { amount_raw }),
            ("pay_held", Some(amount_raw)) => return Some(PaymentAction::PayHeld { amount_raw }),
            (_, Some(_)) => return None,
            ("settle", None) => PaymentAction::Settle,
            ("review", None) => PaymentAction::Review,
            ("expire", None) => PaymentAction::Expire,
            ("cancel", None) => PaymentAction::Cancel,
            ("disable_consumer_access", None) => PaymentAction::DisableConsumerAccess,
            ("open_checkout", None) => PaymentAction::OpenCheckout,
            _ => return None,
        };
        Some(action)
    }
}
