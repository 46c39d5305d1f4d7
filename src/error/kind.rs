//! [`ErrorKind`]: every stable code, with its message and its remedy, in one table.

macro_rules! error_kinds {
    ($(
        $(#[$doc:meta])*
        $variant:ident => $code:literal, $message:literal, $help:literal;
    )*) => {
        /// What went wrong, as a stable code.
        ///
        /// Each variant's documentation starts with its code. Codes are never renamed; new
        /// ones may be added, hence `#[non_exhaustive]`.
        ///
        /// # Examples
        ///
        /// ```
        /// use cryptopay_verify::{parse_event, Error, ErrorKind, StatusVersion};
        /// // A receiver's answer for each failure (a new kind falls in the last arm).
        /// fn http_status(e: Error) -> u16 {
        ///     match e.kind() {
        ///         _ if e.is_event_error() => 200, // authentic: keep it and acknowledge
        ///         ErrorKind::BodyTooLarge => 413,
        ///         _ if e.is_receiver_fault() => 500, // the receiver's: retried once fixed
        ///         _ => 400,                           // the delivery's: final
        ///     }
        /// }
        /// assert_eq!(http_status(parse_event(b"[]").unwrap_err()), 200);
        /// assert_eq!(http_status(ErrorKind::SignatureMismatch.into()), 400);
        /// assert_eq!(http_status(ErrorKind::InvalidArgument.into()), 500);
        /// // A version your own store gave back unreadable: retried once the column is fixed.
        /// assert_eq!(http_status(StatusVersion::parse_stored("7.00").unwrap_err()), 500);
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorKind {
            $( $(#[$doc])* $variant, )*
        }

        impl ErrorKind {
            /// Every kind, in the order of the contract's table of codes.
            ///
            /// # Examples
            ///
            /// ```
            /// use cryptopay_verify::ErrorKind;
            /// // E.g. the codes a dashboard or log filter may offer, each with its message.
            /// for kind in ErrorKind::ALL {
            ///     assert_eq!(ErrorKind::from_code(kind.code()), Some(*kind));
            /// }
            /// assert_eq!(ErrorKind::ALL.first(), Some(&ErrorKind::InvalidArgument));
            /// ```
            pub const ALL: &'static [ErrorKind] = &[ $( ErrorKind::$variant, )* ];

            /// The stable code (also the JavaScript package's `err.code`).
            ///
            /// # Examples
            ///
            /// ```
            /// use cryptopay_verify::ErrorKind;
            /// assert_eq!(ErrorKind::SignatureMismatch.code(), "signature_mismatch");
            /// ```
            #[must_use]
            pub const fn code(self) -> &'static str {
                match self { $( ErrorKind::$variant => $code, )* }
            }

            /// The kind with this code, if there is one.
            ///
            /// # Examples
            ///
            /// ```
            /// use cryptopay_verify::ErrorKind;
            /// assert_eq!(ErrorKind::from_code("body_too_large"), Some(ErrorKind::BodyTooLarge));
            /// assert_eq!(ErrorKind::from_code("no_such_code"), None);
            /// ```
            #[must_use]
            pub fn from_code(code: &str) -> Option<Self> {
                match code { $( $code => Some(ErrorKind::$variant), )* _ => None }
            }

            /// A short lowercase description of the problem, for a table or a metric label
            /// ([`Error`](super::Error)'s `Display` writes the code, the detail and [`help`](Self::help)).
            ///
            /// # Examples
            ///
            /// ```
            /// use cryptopay_verify::ErrorKind;
            /// assert_eq!(ErrorKind::TimestampTooOld.message(), "timestamp older than max_skew_secs");
            /// ```
            #[must_use]
            pub const fn message(self) -> &'static str {
                match self { $( ErrorKind::$variant => $message, )* }
            }

            /// What the problem means and how to fix it, in a sentence or two (for a log line
            /// or an operator; [`message`](Self::message) is the short form).
            ///
            /// # Examples
            ///
            /// ```
            /// use cryptopay_verify::ErrorKind;
            /// // The remedy names what to check: here the host clock passed as now_secs.
            /// assert!(ErrorKind::TimestampTooOld.help().contains("now_secs"));
            /// ```
            #[must_use]
            pub const fn help(self) -> &'static str {
                match self { $( ErrorKind::$variant => $help, )* }
            }
        }
    };
}

error_kinds! {
    /// `invalid_argument`: an option or argument with no code of its own is missing, of the
    /// wrong type, out of range, or unknown.
    InvalidArgument => "invalid_argument", "invalid argument or option",
        "an argument or option is invalid: check the call against the documented options";
    /// `body_not_raw`: the body is not raw bytes (or a string); it was parsed or re-serialized.
    /// Only the JavaScript package answers it (a body given as a parsed object): a Rust body
    /// is `&[u8]`, and no function of this crate returns it.
    BodyNotRaw => "body_not_raw", "body is not the raw request bytes",
        "the body is not the raw request bytes: a parsed or re-serialized JSON body can never verify; pass the request body bytes exactly as received";
    /// `body_too_large`: the body is longer than `max_body_bytes`.
    BodyTooLarge => "body_too_large", "body is larger than max_body_bytes",
        "the body is larger than max_body_bytes: reject the delivery, or raise max_body_bytes if such bodies are expected";
    /// `header_duplicated`: a delivery header was sent more than once.
    HeaderDuplicated => "header_duplicated", "delivery header sent more than once",
        "a delivery header appears more than once: reject the delivery; a legitimate sender sends each header once";
    /// `timestamp_missing`: the timestamp header is absent or empty.
    TimestampMissing => "timestamp_missing", "timestamp header missing or empty",
        "the timestamp header is missing or empty: check the header name configured for the timestamp";
    /// `signature_missing`: the signature header is absent, empty or only whitespace.
    SignatureMissing => "signature_missing", "signature header missing or empty",
        "the signature header is missing or empty: check the header name configured for the signature";
    /// `timestamp_malformed`: the timestamp is not 1 to 12 ASCII digits.
    TimestampMalformed => "timestamp_malformed", "timestamp is not 1 to 12 ASCII digits",
        "the timestamp header is not Unix seconds as 1 to 12 ASCII digits: pass the timestamp header's value exactly as received (not milliseconds, not a re-formatted number, not the signature header's value)";
    /// `timestamp_too_old`: an authentic delivery older than `max_skew_secs`.
    TimestampTooOld => "timestamp_too_old", "timestamp older than max_skew_secs",
        "the signature matches but the timestamp is older than max_skew_secs: refused as a possible replay; check the host clock passed as now_secs (Unix seconds, not milliseconds)";
    /// `timestamp_in_future`: an authentic delivery more than `max_skew_secs` ahead.
    TimestampInFuture => "timestamp_in_future", "timestamp more than max_skew_secs in the future",
        "the signature matches but the timestamp is more than max_skew_secs in the future: no replay is ahead of the clock, so the clock now_secs comes from is behind (or the sender's ahead): synchronize it (NTP) and pass the current Unix time in seconds";
    /// `signature_malformed`: the signature header cannot be read as signature candidates.
    SignatureMalformed => "signature_malformed", "signature header malformed",
        "the signature header is malformed: expected up to 8 HMAC-SHA256 values as 64 hex digits or 32-byte base64, optionally marked v1=, sha256= or v1,";
    /// `signature_mismatch`: no candidate matches the HMAC of any usable secret.
    SignatureMismatch => "signature_mismatch", "no signature matches",
        "no signature matches: check that the secret is the signing Secret exactly as saved (the whole value, a prefix such as whsec_ included) and that the body is the raw request bytes (not parsed and re-serialized)";
    /// `no_secrets`: the list of secrets is empty.
    NoSecrets => "no_secrets", "no secrets given",
        "no secrets were given: pass the webhook signing Secret saved from the dashboard or setup";
    /// `secret_empty`: a secret is the empty string.
    SecretEmpty => "secret_empty", "secret is empty",
        "a secret is empty: pass the webhook signing Secret exactly as saved; an unset environment variable is a common cause";
    /// `event_not_json`: the verified body is not JSON.
    EventNotJson => "event_not_json", "verified body is not JSON",
        "the signature is valid but the body is not JSON (UTF-8, no BOM, no lone surrogate escape such as \\uD800, nesting at most 127 levels): keep its bytes for review and acknowledge it with 2xx; read the payment with GET /v1/payments/{payment_id} (its id from the order when the bytes do not show it)";
    /// `event_malformed`: the verified JSON is not a `payment.updated` envelope.
    EventMalformed => "event_malformed", "verified event is not a payment.updated envelope",
        "the signature is valid but the event envelope does not have the documented shape: keep its bytes for review and acknowledge it with 2xx; read the payment with GET /v1/payments/{payment_id}";
    /// `event_duplicate_key`: a JSON object in the verified event repeats a key.
    EventDuplicateKey => "event_duplicate_key", "verified event repeats a JSON key",
        "the signature is valid but the event repeats a JSON key, which parsers read differently: do not apply it; keep its bytes for review, acknowledge it with 2xx and read the payment with GET /v1/payments/{payment_id} (its id from the order)";
    /// `event_type_unknown`: the verified event has another `event_type`.
    EventTypeUnknown => "event_type_unknown", "event_type is not payment.updated",
        "the signature is valid but the event_type is not payment.updated: acknowledge it with 2xx (keeping its bytes for review if you like); it changes no payment";
    /// `status_version_invalid`: `status_version` is not a non-negative integer.
    StatusVersionInvalid => "status_version_invalid", "status_version is not a non-negative integer",
        "status_version is not a non-negative integer (a JSON integer or a string of digits without leading zeros): an event's is not applied (keep its bytes for review, acknowledge it with 2xx and read the payment with GET /v1/payments/{payment_id}); a value read back from your store is answered 5xx";
    /// `amount_raw_invalid`: not a positive integer string without leading zeros, at most 2^256 - 1.
    AmountRawInvalid => "amount_raw_invalid", "amount_raw is not a positive integer without leading zeros",
        "amount_raw must be a positive integer in the smallest unit as a string of digits without leading zeros (at most 2^256 - 1): use to_amount_raw to convert a decimal";
    /// `amount_decimal_invalid`: the decimal amount is not `digits[.digits]`.
    AmountDecimalInvalid => "amount_decimal_invalid", "decimal amount is not digits with an optional fraction",
        "the decimal amount must be a string of ASCII digits with an optional fractional part, such as \"128.00\": no sign, spaces, exponent or thousands separator";
    /// `amount_too_precise`: the decimal has non-zero digits past `decimals`.
    AmountTooPrecise => "amount_too_precise", "decimal amount has more fractional digits than decimals",
        "the decimal amount has more fractional digits than the pricing source's decimals allow: round it in your own pricing logic first; it is never rounded here";
    /// `decimals_invalid`: `decimals` is not an integer from 0 to 77.
    DecimalsInvalid => "decimals_invalid", "decimals is not an integer from 0 to 77",
        "decimals must be an integer from 0 to 77: take it from primary_source.decimals of GET /v1/store";
    /// `store_source_invalid`: the store's `primary_source` is malformed.
    StoreSourceInvalid => "store_source_invalid", "primary_source is malformed",
        "primary_source must be the primary_source object of the GET /v1/store answer, with kind (fiat or crypto), ref (a non-empty string) and decimals (0 to 77)";
    /// `source_amount_invalid`: the SourceAmount object has the wrong shape.
    SourceAmountInvalid => "source_amount_invalid", "source_amount has the wrong shape",
        "source_amount must be an object with kind and amount_raw, plus currency for fiat or pricing_ref for crypto, and no other keys: build it with build_source_amount";
    /// `source_kind_mismatch`: `kind` differs from the store's primary source.
    SourceKindMismatch => "source_kind_mismatch", "source_amount.kind differs from the store's",
        "source_amount.kind differs from the kind of the store's primary_source: build source_amount from GET /v1/store";
    /// `source_currency_missing`: a fiat SourceAmount lacks `currency`.
    SourceCurrencyMissing => "source_currency_missing", "fiat source_amount lacks currency",
        "a fiat source_amount needs currency, equal to primary_source.ref of GET /v1/store";
    /// `source_currency_mismatch`: `currency` differs from the store's `ref`.
    SourceCurrencyMismatch => "source_currency_mismatch", "source_amount.currency differs from the store's ref",
        "source_amount.currency differs from primary_source.ref of GET /v1/store (the comparison is exact, case included); display currency never changes pricing";
    /// `source_pricing_ref_missing`: a crypto SourceAmount lacks `pricing_ref`.
    SourcePricingRefMissing => "source_pricing_ref_missing", "crypto source_amount lacks pricing_ref",
        "a crypto source_amount needs pricing_ref, equal to primary_source.ref of GET /v1/store";
    /// `source_pricing_ref_mismatch`: `pricing_ref` differs from the store's `ref`.
    SourcePricingRefMismatch => "source_pricing_ref_mismatch", "source_amount.pricing_ref differs from the store's ref",
        "source_amount.pricing_ref differs from primary_source.ref of GET /v1/store: use the configured pricing reference as it is";
    /// `pricing_ref_is_address`: `pricing_ref` looks like a token contract or wallet address.
    PricingRefIsAddress => "pricing_ref_is_address", "pricing_ref looks like an address",
        "source_amount.pricing_ref looks like a token contract or wallet address: use primary_source.ref of GET /v1/store, never an address";
    /// `pricing_ref_is_network_id`: `pricing_ref` looks like a network id.
    PricingRefIsNetworkId => "pricing_ref_is_network_id", "pricing_ref looks like a network id",
        "source_amount.pricing_ref looks like a network id: use primary_source.ref of GET /v1/store, never a chain or network id";
    /// `create_payment_invalid`: the CreatePayment body has the wrong shape.
    CreatePaymentInvalid => "create_payment_invalid", "CreatePayment body has the wrong shape",
        "the CreatePayment body must be an object with source_amount (required), order_ref (a string) and checkout_origin (an HTTPS origin), and no other keys";
    /// `origin_invalid`: not an origin of the form `https://host[:port]`.
    OriginInvalid => "origin_invalid", "checkout_origin is not an origin",
        "checkout_origin must be an origin: https://host or https://host:port, with no path (not even /), query, fragment or credentials";
    /// `origin_not_https`: the origin's scheme is not `https`.
    OriginNotHttps => "origin_not_https", "checkout_origin is not https",
        "checkout_origin must use https: give the https:// origin the checkout page is served from";
    /// `origin_not_permitted`: the origin differs from the store's website origin.
    OriginNotPermitted => "origin_not_permitted", "checkout_origin differs from the website origin",
        "checkout_origin differs from the website origin configured under Checkout > Website: use that origin or omit checkout_origin";
    /// `webhook_url_malformed`: the webhook URL cannot be read as an absolute URL.
    WebhookUrlMalformed => "webhook_url_malformed", "webhook URL is malformed",
        "the webhook URL is malformed: give an absolute https:// URL of at most 2048 ASCII characters, with an ASCII (xn--) host name";
    /// `webhook_url_not_https`: the webhook URL's scheme is not `https`.
    WebhookUrlNotHttps => "webhook_url_not_https", "webhook URL is not https",
        "the webhook URL must use https: serve the receiver over TLS and register its https:// URL";
    /// `webhook_url_ip_literal`: the webhook URL's host is an IP address.
    WebhookUrlIpLiteral => "webhook_url_ip_literal", "webhook URL host is an IP address",
        "the webhook URL's host is an IP address: use a registered domain name";
    /// `webhook_url_not_registered_domain`: the host is a single label, or `localhost`,
    /// `.local`, `.internal`, `.test` or another special-use name no registrar delegates.
    WebhookUrlNotRegisteredDomain => "webhook_url_not_registered_domain", "webhook URL host is not a registered domain name",
        "the webhook URL's host is not a registered domain name (a single label, or localhost, .local, .internal, .test or another special-use name): use a public domain name the service can reach";
    /// `webhook_url_port`: the webhook URL names a port other than 443.
    WebhookUrlPort => "webhook_url_port", "webhook URL port is not 443",
        "the webhook URL must use port 443: remove the port or put the receiver behind 443";
    /// `webhook_url_credentials`: the webhook URL carries a user name or password.
    WebhookUrlCredentials => "webhook_url_credentials", "webhook URL carries credentials",
        "the webhook URL must not carry credentials (user:password@): the signature authenticates deliveries";
    /// `webhook_url_query`: the webhook URL has a query string.
    WebhookUrlQuery => "webhook_url_query", "webhook URL has a query string",
        "the webhook URL must not have a query string (not even a bare ?): put routing in the path";
    /// `webhook_url_fragment`: the webhook URL has a fragment.
    WebhookUrlFragment => "webhook_url_fragment", "webhook URL has a fragment",
        "the webhook URL must not have a fragment (#): remove it; the service never sends one";
    /// `idempotency_key_invalid`: not 1 to 255 visible ASCII characters.
    IdempotencyKeyInvalid => "idempotency_key_invalid", "Idempotency-Key is not 1 to 255 visible ASCII characters",
        "the Idempotency-Key must be 1 to 255 visible ASCII characters: use one random key (a UUID) per creation intent";
}

impl ErrorKind {
    /// Whether the failure is about the event of a delivery whose signature verified
    /// (`event_not_json`, `event_malformed`, `event_duplicate_key`, `event_type_unknown`,
    /// `status_version_invalid`): the delivery is authentic, so a receiver keeps it for
    /// inspection and acknowledges it rather than have the service retry it. It holds for the
    /// errors of the event's own checks ([`parse_event`](crate::parse_event),
    /// [`Verifier::verify_webhook`](crate::Verifier::verify_webhook), the strict scan) only: a
    /// `status_version_invalid` from [`StatusVersion::parse_stored`](crate::StatusVersion::parse_stored)
    /// of a value read back from your store, or from
    /// [`PaymentView::from_json`](crate::PaymentView::from_json) of the service's view, is not
    /// the delivery's fault (answer 5xx, or retry the fulfilment). To choose an answer, ask
    /// [`Error::is_event_error`](crate::Error::is_event_error), which knows the first.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::ErrorKind;
    /// assert!(ErrorKind::EventTypeUnknown.is_event_error());
    /// assert!(!ErrorKind::SignatureMismatch.is_event_error());
    /// ```
    #[must_use]
    pub const fn is_event_error(self) -> bool {
        matches!(
            self,
            ErrorKind::EventNotJson
                | ErrorKind::EventMalformed
                | ErrorKind::EventDuplicateKey
                | ErrorKind::EventTypeUnknown
                | ErrorKind::StatusVersionInvalid
        )
    }
}
