//! Linking a verified event to the merchant's own order (spec: receiver rule 7): the
//! integration whose secret verified it, `payment_id`, `order_ref` and the original source
//! amount, compared exactly with the authoritative view.

use core::fmt;

use super::PaymentView;
use crate::pricing::SourceAmount;

/// The merchant's own record of a payment, stored when it created it: the order the
/// payment must pay for.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{Order, SourceAmount};
/// // Stored with the order when POST /v1/payments answered.
/// let order = Order::new("pay_1", SourceAmount::fiat("USD", "12800"))
///     .with_order_ref("order-42")
///     .with_integration("shop-eu");
/// assert_eq!(order.integration.as_deref(), Some("shop-eu"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Order {
    /// The `payment_id` the service answered with.
    pub payment_id: String,
    /// The `order_ref` sent at creation, if any.
    pub order_ref: Option<String>,
    /// The `source_amount` sent at creation.
    pub source_amount: SourceAmount,
    /// The integration the payment was created under (your name for it: the store, API key
    /// and webhook signing secret it belongs to), or `None` for a receiver with one
    /// integration only.
    pub integration: Option<String>,
}

impl Order {
    /// An order from its payment and source amount, with no `order_ref` and no integration.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Order, SourceAmount};
    /// let order = Order::new("pay_1", SourceAmount::crypto("usdc-eth", "1500000"));
    /// assert_eq!((order.order_ref, order.integration), (None, None));
    /// ```
    #[must_use]
    pub fn new(payment_id: impl Into<String>, source_amount: SourceAmount) -> Self {
        Order {
            payment_id: payment_id.into(),
            order_ref: None,
            source_amount,
            integration: None,
        }
    }

    /// The same order with an `order_ref`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Order, SourceAmount};
    /// let order = Order::new("pay_1", SourceAmount::fiat("USD", "1")).with_order_ref("order-7");
    /// assert_eq!(order.order_ref.as_deref(), Some("order-7"));
    /// ```
    #[must_use]
    pub fn with_order_ref(mut self, order_ref: impl Into<String>) -> Self {
        self.order_ref = Some(order_ref.into());
        self
    }

    /// The same order with the integration it was created under.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Order, SourceAmount};
    /// let order = Order::new("pay_1", SourceAmount::fiat("USD", "1")).with_integration("shop-us");
    /// assert_eq!(order.integration.as_deref(), Some("shop-us"));
    /// ```
    #[must_use]
    pub fn with_integration(mut self, integration: impl Into<String>) -> Self {
        self.integration = Some(integration.into());
        self
    }
}

/// Why a verified event cannot be linked to the merchant's order. Any mismatch means
/// review by a person, never fulfilment.
///
/// Each variant's documentation starts with its code. New checks may be added, hence
/// `#[non_exhaustive]`.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{link_event, LinkMismatch, PaymentView, SourceAmount, StatusVersion};
/// let view = PaymentView::new("pay_1", SourceAmount::fiat("USD", "12800"), "paid", StatusVersion::from(3_u64));
/// let mismatch = link_event(None, &view, None).unwrap_err(); // no order for pay_1
/// assert_eq!(mismatch, LinkMismatch::PaymentUnknown);
/// assert_eq!(mismatch.code(), "payment_unknown");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LinkMismatch {
    /// `payment_unknown`: no order for this payment; the merchant never created it here.
    PaymentUnknown,
    /// `payment_id_mismatch`: the view is of another payment than the order's.
    PaymentIdMismatch,
    /// `order_ref_mismatch`: the view's `order_ref` differs from the order's (or one of
    /// them has none).
    OrderRefMismatch,
    /// `source_amount_mismatch`: the view's `source_amount` differs from the order's in
    /// `kind`, `currency`, `pricing_ref` or `amount_raw`.
    SourceAmountMismatch,
    /// `integration_mismatch`: the event was verified with another integration's secret
    /// than the one the order was created under.
    IntegrationMismatch,
}

impl LinkMismatch {
    /// Every mismatch, in the order [`link_event`] checks them.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::LinkMismatch;
    /// for mismatch in LinkMismatch::ALL {
    ///     assert_eq!(LinkMismatch::from_code(mismatch.code()), Some(*mismatch));
    /// }
    /// ```
    pub const ALL: &'static [LinkMismatch] = &[
        LinkMismatch::PaymentUnknown,
        LinkMismatch::PaymentIdMismatch,
        LinkMismatch::OrderRefMismatch,
        LinkMismatch::SourceAmountMismatch,
        LinkMismatch::IntegrationMismatch,
    ];

    /// The stable code, such as `source_amount_mismatch`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(cryptopay_verify::LinkMismatch::OrderRefMismatch.code(), "order_ref_mismatch");
    /// ```
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            LinkMismatch::PaymentUnknown => "payment_unknown",
            LinkMismatch::PaymentIdMismatch => "payment_id_mismatch",
            LinkMismatch::OrderRefMismatch => "order_ref_mismatch",
            LinkMismatch::SourceAmountMismatch => "source_amount_mismatch",
            LinkMismatch::IntegrationMismatch => "integration_mismatch",
        }
    }

    /// The mismatch with this code, if there is one.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::LinkMismatch;
    /// assert_eq!(LinkMismatch::from_code("payment_unknown"), Some(LinkMismatch::PaymentUnknown));
    /// assert_eq!(LinkMismatch::from_code("signature_mismatch"), None);
    /// ```
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        LinkMismatch::ALL.iter().copied().find(|m| m.code() == code)
    }

    /// What it means and what to do: each is a case for review, never for fulfilment.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(cryptopay_verify::LinkMismatch::SourceAmountMismatch.message().contains("review"));
    /// ```
    #[must_use]
    pub const fn message(self) -> &'static str {
        match self {
            LinkMismatch::PaymentUnknown => {
                "no order holds this payment_id: the payment was not created by this integration; record it for review and fulfil nothing"
            }
            LinkMismatch::PaymentIdMismatch => {
                "the payment view is of another payment than the order: fetch GET /v1/payments/{payment_id} with the order's payment_id; hold the order for review"
            }
            LinkMismatch::OrderRefMismatch => {
                "the payment's order_ref differs from the order's: the payment may be for another order; hold the order for review"
            }
            LinkMismatch::SourceAmountMismatch => {
                "the payment's source_amount differs from the one the order was created with: never fulfil it; hold the order for review"
            }
            LinkMismatch::IntegrationMismatch => {
                "the event was verified with another integration's secret than the order's: hold the order for review and check which secret each receiver uses"
            }
        }
    }
}

impl fmt::Display for LinkMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl std::error::Error for LinkMismatch {}

/// Links a verified event's payment to the merchant's order, by the authoritative view.
///
/// `order` is the order stored under the event's `payment_id` (`None` when there is none);
/// `view` is `GET /v1/payments/{payment_id}`'s answer; `event_integration` names the
/// integration whose signing secret verified the event (the [`Verifier`](crate::Verifier)
/// it was verified with), or `None` for a receiver with one integration.
///
/// Every comparison is exact (bytes, case included): `payment_id`; `order_ref` (both absent
/// is equal, absent against present differs); `source_amount` (`kind`, `currency`,
/// `pricing_ref` and `amount_raw`); the integration, where `None` matches only `None`: an
/// order created under a named integration is linked only by an event verified with that
/// integration's secret, and an order of a single-integration receiver only by an event of
/// a receiver that names none, so that a change of configuration is reviewed rather than
/// trusted.
///
/// On success, decide with the view's status ([`default_policy`](crate::default_policy)
/// or your own policy). Check too that `view.status_version` is not older than the
/// event's: an older view is a stale read, to fetch again.
///
/// # Errors
///
/// The first mismatch, in this order: [`LinkMismatch::PaymentUnknown`],
/// [`LinkMismatch::PaymentIdMismatch`], [`LinkMismatch::OrderRefMismatch`],
/// [`LinkMismatch::SourceAmountMismatch`], [`LinkMismatch::IntegrationMismatch`].
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{default_policy, link_event, FulfilmentAction, Order, PaymentView, SourceAmount, StatusVersion};
/// let order = Order::new("pay_1", SourceAmount::fiat("USD", "12800")).with_integration("shop-eu");
/// let view = PaymentView::new("pay_1", SourceAmount::fiat("USD", "12800"), "paid", StatusVersion::from(3_u64));
/// let action = match link_event(Some(&order), &view, Some("shop-eu")) {
///     Ok(()) => default_policy(&view),
///     Err(_) => FulfilmentAction::Review,
/// };
/// assert_eq!(action, FulfilmentAction::Fulfil);
/// let other = link_event(Some(&order), &view, Some("shop-us")).unwrap_err();
/// assert_eq!(other.code(), "integration_mismatch");
/// ```
pub fn link_event(
    order: Option<&Order>,
    view: &PaymentView,
    event_integration: Option<&str>,
) -> Result<(), LinkMismatch> {
    let order = order.ok_or(LinkMismatch::PaymentUnknown)?;
    if order.payment_id != view.payment_id {
        return Err(LinkMismatch::PaymentIdMismatch);
    }
    if order.order_ref != view.order_ref {
        return Err(LinkMismatch::OrderRefMismatch);
    }
    if order.source_amount != view.source_amount {
        return Err(LinkMismatch::SourceAmountMismatch);
    }
    if order.integration.as_deref() != event_integration {
        return Err(LinkMismatch::IntegrationMismatch);
    }
    Ok(())
}
