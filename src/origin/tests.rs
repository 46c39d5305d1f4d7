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
