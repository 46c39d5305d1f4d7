//! Why a `pricing_ref` that differs from the store's `ref` is wrong: a token contract or
//! wallet address, a network id, or just another reference (docs/decisions.md, "Pricing").

use crate::error::ErrorKind;

/// Why a `pricing_ref` that differs from the store's `ref` is wrong.
pub(crate) fn explain_pricing_ref(value: &str) -> ErrorKind {
    if looks_like_address(value) {
        ErrorKind::PricingRefIsAddress
    } else if looks_like_network_id(value) {
        ErrorKind::PricingRefIsNetworkId
    } else {
        ErrorKind::SourcePricingRefMismatch
    }
}

const BASE58: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const BECH32: &[u8] = b"qpzry9x8gf2tvdw0s3jn54khce6mua7l";

fn looks_like_address(value: &str) -> bool {
    let evm = value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"))
        .is_some_and(|hex| hex.len() == 40 && hex.bytes().all(|b| b.is_ascii_hexdigit()));
    // A base58 address is random over 58 symbols: a digit, a capital and a small letter are
    // all but certain in 25 or more of them, and words (`tetherusdtonethereum`) lack them.
    let base58 = (25..=44).contains(&value.len())
        && value.bytes().all(|b| BASE58.contains(&b))
        && value.bytes().any(|b| b.is_ascii_digit())
        && value.bytes().any(|b| b.is_ascii_uppercase())
        && value.bytes().any(|b| b.is_ascii_lowercase());
    evm || base58 || looks_like_bech32(value)
}

fn looks_like_bech32(value: &str) -> bool {
    if !(14..=90).contains(&value.len()) {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    if value != lower && value != value.to_ascii_uppercase() {
        return false;
    }
    match lower.rsplit_once('1') {
        Some((hrp, data)) => {
            !hrp.is_empty()
                && hrp.bytes().all(|b| b.is_ascii_lowercase())
                && data.len() >= 6
                && data.bytes().all(|b| BECH32.contains(&b))
        }
        None => false,
    }
}

const CHAIN_NAMES: &[&str] = &[
    "algorand",
    "arbitrum",
    "avalanche",
    "avax",
    "base",
    "bitcoin",
    "bnb",
    "bsc",
    "btc",
    "cardano",
    "celo",
    "cosmos",
    "eth",
    "ethereum",
    "fantom",
    "gnosis",
    "linea",
    "litecoin",
    "mainnet",
    "matic",
    "near",
    "optimism",
    "polkadot",
    "polygon",
    "scroll",
    "sepolia",
    "sol",
    "solana",
    "stellar",
    "ton",
    "tron",
    "xrp",
    "zksync",
];

fn looks_like_network_id(value: &str) -> bool {
    let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
    let caip2 = value.split_once(':').is_some_and(|(ns, reference)| {
        (3..=8).contains(&ns.len())
            && ns
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && (1..=32).contains(&reference.len())
            && reference
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    });
    let lower = value.to_ascii_lowercase();
    digits || caip2 || CHAIN_NAMES.contains(&lower.as_str())
}

#[cfg(test)]
mod tests;
