//! The default fulfilment policy: only the authoritative status, read exactly, justifies
//! fulfilling an order.

use super::PaymentView;
use crate::service::PaymentStatus;

/// What to do with an order, given the authoritative view of its payment.
///
/// Exhaustive: a fulfilment loop's `match` needs no catch-all arm, so that no outcome can
/// fall into a fulfilling one by default.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{default_policy, FulfilmentAction, PaymentView, SourceAmount, StatusVersion};
/// let view = PaymentView::new("pay_1", SourceAmount::fiat("USD", "12800"), "overpaid", StatusVersion::from(3_u64));
/// let todo = match default_policy(&view) {
///     FulfilmentAction::Fulfil => "ship the order",
///     FulfilmentAction::Review => "hold the order for a person (refund the difference?)",
///     FulfilmentAction::Wait => "do nothing yet: a later event will come",
///     FulfilmentAction::Closed => "release the stock: the payment ended unpaid",
/// };
/// assert_eq!(todo, "hold the order for a person (refund the difference?)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FulfilmentAction {
    /// `fulfil`: paid exactly; fulfil the order (once).
    Fulfil,
    /// `review`: a case for a person (partial or over payment, review, an unknown status,
    /// a payment that does not link to its order).
    Review,
    /// `wait`: not settled yet; wait for the next event.
    Wait,
    /// `closed`: the payment ended without being paid (expired or cancelled).
    Closed,
}

impl FulfilmentAction {
    /// The action's name: `fulfil`, `review`, `wait` or `closed`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(cryptopay_verify::FulfilmentAction::Closed.as_str(), "closed");
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            FulfilmentAction::Fulfil => "fulfil",
            FulfilmentAction::Review => "review",
            FulfilmentAction::Wait => "wait",
            FulfilmentAction::Closed => "closed",
        }
    }

    /// The action with this name, compared exactly.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::FulfilmentAction;
    /// assert_eq!(FulfilmentAction::parse("wait"), Some(FulfilmentAction::Wait));
    /// assert_eq!(FulfilmentAction::parse("fulfill"), None);
    /// ```
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        [
            FulfilmentAction::Fulfil,
            FulfilmentAction::Review,
            FulfilmentAction::Wait,
            FulfilmentAction::Closed,
        ]
        .into_iter()
        .find(|action| action.as_str() == name)
    }
}

/// The default policy: what the authoritative view of a payment justifies.
///
/// `paid` is `Fulfil` only when `amount_received_raw` is absent or exactly the source
/// amount's `amount_raw` (else `Review`); `partially_paid`, `overpaid` and
/// `review_required` are `Review`; `open` and `confirming` are `Wait`; `expired` and
/// `cancelled` are `Closed` when nothing was received (`amount_received_raw` absent or `0`),
/// else `Review`: money that came in before (or after) the payment ended is the customer's,
/// to refund or to honour, never silently closed; any other status is `Review`: a status this crate does not
/// know is never fulfilled. Statuses are compared exactly (`Paid` is not `paid`).
///
/// Call it only after [`link_event`](crate::link_event) linked the payment to its order;
/// a merchant with its own exception policy (accepting a small underpayment, say) decides
/// the `Review` cases itself.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{default_policy, FulfilmentAction, PaymentView, SourceAmount, StatusVersion};
/// let view = |status: &str| PaymentView::new("pay_1", SourceAmount::fiat("USD", "12800"), status, StatusVersion::from(3_u64));
/// assert_eq!(default_policy(&view("paid")), FulfilmentAction::Fulfil);
/// assert_eq!(default_policy(&view("partially_paid")), FulfilmentAction::Review);
/// assert_eq!(default_policy(&view("confirming")), FulfilmentAction::Wait);
/// assert_eq!(default_policy(&view("PAID")), FulfilmentAction::Review); // not a known status
/// assert_eq!(default_policy(&view("expired")), FulfilmentAction::Closed);
/// let paid_in_part = view("expired").with_amount_received_raw("100");
/// assert_eq!(default_policy(&paid_in_part), FulfilmentAction::Review);
/// ```
#[must_use]
pub fn default_policy(view: &PaymentView) -> FulfilmentAction {
    let Some(status) = PaymentStatus::parse(&view.status) else {
        return FulfilmentAction::Review;
    };
    match status {
        PaymentStatus::Paid => match view.amount_received_raw.as_deref() {
            None => FulfilmentAction::Fulfil,
            Some(received) if received == view.source_amount.amount_raw => FulfilmentAction::Fulfil,
            Some(_) => FulfilmentAction::Review,
        },
        PaymentStatus::Open | PaymentStatus::Confirming => FulfilmentAction::Wait,
        PaymentStatus::Expired | PaymentStatus::Cancelled => {
            match view.amount_received_raw.as_deref() {
                None | Some("0") => FulfilmentAction::Closed,
                Some(_) => FulfilmentAction::Review,
            }
        }
        PaymentStatus::PartiallyPaid | PaymentStatus::Overpaid | PaymentStatus::ReviewRequired => {
            FulfilmentAction::Review
        }
    }
}
