//! The JSON text the exports answer with, written by hand: a few flat objects of strings,
//! numbers and booleans do not need a serializer in the module.

use core::fmt::Write;

/// `text` as a JSON string literal.
pub(crate) fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len().saturating_add(2));
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON object written member by member.
pub(crate) struct Json {
    text: String,
    first: bool,
}

impl Json {
    pub(crate) fn object() -> Self {
        Json {
            text: String::from("{"),
            first: true,
        }
    }

    /// Adds a member whose value is already JSON text.
    pub(crate) fn raw(&mut self, name: &str, value: &str) {
        if !self.first {
            self.text.push(',');
        }
        self.first = false;
        self.text.push_str(&string(name));
        self.text.push(':');
        self.text.push_str(value);
    }

    pub(crate) fn string(&mut self, name: &str, value: &str) {
        self.raw(name, &string(value));
    }

    pub(crate) fn boolean(&mut self, name: &str, value: bool) {
        self.raw(name, if value { "true" } else { "false" });
    }

    pub(crate) fn finish(mut self) -> String {
        self.text.push('}');
        self.text
    }
}

/// `{"ok":true, ...members}`, each member's value JSON text already.
pub(crate) fn ok_json(members: &[(&str, String)]) -> String {
    let mut out = Json::object();
    out.raw("ok", "true");
    for (name, value) in members {
        out.raw(name, value);
    }
    out.finish()
}

/// `{"error":{"code","message"[,"status"]}}`.
pub(crate) fn error_json(code: &str, message: &str, status: Option<u16>) -> String {
    let mut error = Json::object();
    error.string("code", code);
    error.string("message", message);
    if let Some(status) = status {
        error.raw("status", &status.to_string());
    }
    let mut out = Json::object();
    out.raw("error", &error.finish());
    out.finish()
}
