use super::*;

fn origin(o: &str) -> Result<String, &'static str> {
    canonical_origin(o).map_err(Error::code)
}

fn url(u: &str) -> Option<&'static str> {
    validate_webhook_url(u).err().map(Error::code)
}

#[test]
fn origins() {
    assert_eq!(
        origin("https://Shop.Example"),
        Ok("https://shop.example".into())
    );
    assert_eq!(
        origin("https://shop.example:8443"),
        Ok("https://shop.example:8443".into())
    );
    assert_eq!(origin("https://[::1]:443"), Ok("https://[::1]".into()));
    assert_eq!(origin("https://10.0.0.1"), Ok("https://10.0.0.1".into()));
    assert_eq!(origin("http://shop.example"), Err("origin_not_https"));
    assert_eq!(origin("javascript:alert(1)"), Err("origin_not_https"));
    // An http:// origin (a local sandbox's checkout) is told where the sandbox's address is.
    let http = canonical_origin("HTTP://127.0.0.1:4010").map_err(|e| e.to_string());
    assert!(http.is_err_and(|m| m.contains("checkout_url")));
    let other = canonical_origin("ftp://shop.example").map_err(|e| e.to_string());
    assert!(other.is_err_and(|m| !m.contains("checkout_url")));
    for bad in [
        "https://shop.example/",
        "https://u@shop.example",
        "https://shop.example:0",
        "https://shop.example:",
        "https://shop.example:65536",
        "https:shop.example",
        "https://shöp.example",
        "https://sh%6fp.example",
        "https://-a.example",
        "null",
        "https://2130706433",
        "https://a..b",
        "",
    ] {
        assert_eq!(origin(bad), Err("origin_invalid"), "{bad}");
    }
}

#[test]
fn hosts_ports_and_schemes_at_their_edges() {
    // 253 characters: four 63-character labels and one of 1, with dots.
    let long = format!("{0}.{0}.{0}.{1}.a", "a".repeat(63), "b".repeat(59));
    assert_eq!(long.len(), 253);
    assert!(origin(&format!("https://{long}")).is_ok());
    assert_eq!(origin(&format!("https://{long}a")), Err("origin_invalid"));
    for bad in [
        "https://256.0.0.1",
        "https://1.2.3",
        "https://1.2.3.4.5",
        "https://01.0.0.1",
        "https://1234.0.0.1",
        "https://1..2.3",
        "https://[1.2.3.4]",
        "https://[::g]",
        "https://x.example:000443",
        "https://x.example:+443",
        "https://x.example:65536",
        "1https://x.example",
        "ht!tp://x.example",
    ] {
        assert_eq!(origin(bad), Err("origin_invalid"), "{bad}");
    }
    assert_eq!(
        origin("https://[::1]:8443"),
        Ok("https://[::1]:8443".into())
    );
    assert_eq!(origin("https://0.0.0.0"), Ok("https://0.0.0.0".into()));
    assert_eq!(url("https://[zz]/"), Some("webhook_url_ip_literal"));
    assert_eq!(url("h+t.t-p://x.example/"), Some("webhook_url_not_https"));
}

#[test]
fn webhook_urls() {
    assert_eq!(
        url("https://hooks.example.com/x?"),
        Some("webhook_url_query")
    );
    assert_eq!(
        url("https://hooks.example.com/x#"),
        Some("webhook_url_fragment")
    );
    assert_eq!(
        url("https://hooks.example.com/x#a?b"),
        Some("webhook_url_fragment")
    );
    assert_eq!(url("https://hooks.example.com:443/x"), None);
    assert_eq!(url("https://hooks.example.com./x"), None);
    assert_eq!(url("https://0x7f.1/"), Some("webhook_url_ip_literal"));
    assert_eq!(url("https://[::1]/"), Some("webhook_url_ip_literal"));
    assert_eq!(
        url("https://localhost./"),
        Some("webhook_url_not_registered_domain")
    );
    assert_eq!(
        url("https://api.localhost/"),
        Some("webhook_url_not_registered_domain")
    );
    assert_eq!(
        url("https://intranet/"),
        Some("webhook_url_not_registered_domain")
    );
    assert_eq!(
        url("https://a:b@x.example/"),
        Some("webhook_url_credentials")
    );
    assert_eq!(
        url("https://x.example\\@y.example/"),
        Some("webhook_url_malformed")
    );
    assert_eq!(url("https://x_y.example/"), Some("webhook_url_malformed"));
    assert_eq!(url("ftp://x.example/"), Some("webhook_url_not_https"));
    assert_eq!(
        url(&format!("https://x.example/{}", "a".repeat(2048))),
        Some("webhook_url_malformed")
    );
}

#[test]
fn ip_hosts() {
    for (given, canonical) in [
        ("https://[::]", "https://[::]"),
        ("https://[1::]", "https://[1::]"),
        ("https://[2001:DB8::A]", "https://[2001:db8::a]"),
        (
            "https://[1:2:3:4:5:6:7:8]:8443",
            "https://[1:2:3:4:5:6:7:8]:8443",
        ),
        ("https://[1:2:3:4:5:6::8]", "https://[1:2:3:4:5:6::8]"),
        ("https://[::ffff:1.2.3.4]", "https://[::ffff:1.2.3.4]"),
        (
            "https://[1:2:3:4:5:6:1.2.3.4]",
            "https://[1:2:3:4:5:6:1.2.3.4]",
        ),
        // A browser drops an IPv4 address's trailing dot: the same origin.
        ("https://1.2.3.4.", "https://1.2.3.4"),
        ("https://1.2.3.4.:8443", "https://1.2.3.4:8443"),
    ] {
        assert_eq!(origin(given), Ok(canonical.into()), "{given}");
    }
    for bad in [
        "https://[:]",
        "https://[:::]",
        "https://[1::2::3]",
        "https://[::::::::::]",
        "https://[1:2:3:4:5:6:7]",
        "https://[1:2:3:4:5:6:7:8:9]",
        "https://[1:2:3:4:5:6:7::8]",
        "https://[12345::]",
        "https://[:1::]",
        "https://[::1:]",
        "https://[::1%25eth0]",
        "https://[1.2.3.4::]",
        "https://[::1.2.3.4:1]",
        "https://[::1.2.3]",
        "https://[]",
        "https://1.2.3.4..",
    ] {
        assert_eq!(origin(bad), Err("origin_invalid"), "{bad}");
    }
    assert!(validate_checkout_origin("https://10.0.0.1.", Some("https://10.0.0.1")).is_ok());
    assert_eq!(url("https://[1::2::3]/"), Some("webhook_url_ip_literal"));
}

/// The IPv6 shape check agrees with the standard library's parser on 200,000 strings of up
/// to twelve pieces drawn at random (a fixed seed), and on every address form named here.
#[test]
fn ipv6_shape_agrees_with_std() {
    const PIECES: [&str; 10] = [
        "1:", "ab:", "ffff:", "1", "0", "1.2.3.4", ":", "::", "12345", "1.2.3",
    ];
    let agree = |text: &str| {
        assert_eq!(
            is_ipv6(text),
            text.parse::<std::net::Ipv6Addr>().is_ok(),
            "{text}"
        );
    };
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut random = |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % below as u64).unwrap()
    };
    let mut valid = 0;
    for _ in 0..200_000 {
        let text: String = (0..=random(12))
            .map(|_| PIECES[random(PIECES.len())])
            .collect();
        agree(&text);
        valid += usize::from(is_ipv6(&text));
    }
    assert!(valid > 1_000, "only {valid} valid addresses drawn");
    for text in [
        "::",
        "::1",
        "1::",
        "1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:1.2.3.4",
        "::ffff:1.2.3.4",
    ] {
        agree(text);
    }
}
