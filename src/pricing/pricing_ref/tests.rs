//! The unit tests of `pricing_ref`.

use super::*;

fn explain(value: &str) -> &'static str {
    explain_pricing_ref(value).code()
}

#[test]
fn explanations() {
    for address in [
        "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
        "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
        "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
        "BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ",
        "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    ] {
        assert_eq!(explain(address), "pricing_ref_is_address", "{address}");
    }
    for network in [
        "137",
        "eip155:1",
        "Polygon",
        "cosmos:cosmoshub-4",
        "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
        "ton",
        "BSC",
    ] {
        assert_eq!(explain(network), "pricing_ref_is_network_id", "{network}");
    }
    for neither in [
        "usdc-sol",
        "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB4", // 39 hex digits
        "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB4g", // not hex
        "bc1QAR0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", // mixed case
        "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdqb", // b is not in bech32's alphabet
        "b2c1qqqqqq",
        "11qqqqqqqqqqqqqqq", // short; no letters before the 1
        "eip155:",
        "ab:1",
        "EIP155:1",
        "eip155:1.5",
        "abcdefghi:1",
        "usdc-ethereum",
        "tokens:usdc/eth",
    ] {
        assert_eq!(explain(neither), "source_pricing_ref_mismatch", "{neither}");
    }
}
