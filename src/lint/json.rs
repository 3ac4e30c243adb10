//! JSON handoff files (MANIFEST.json, LOG-ARCHIVE.index.json, …): validated with `serde_json`,
//! then every string literal is decoded (so `\u200b` escapes are seen as the characters they
//! are) into one text, one string per line, mapped back to the raw literal. The agent
//! configurations in JSON with comments (JSONC) are read the same way, each comment's text
//! a line of its own (review s27 #4).

use super::text::{View, ViewBuilder};
use crate::error::{Error, Result};

/// A string value and the key it belongs to.
#[derive(Debug)]
pub(crate) struct Field {
    pub key: String,
    /// Range of the decoded value in the view.
    pub value: (usize, usize),
}

/// The decoded strings of a JSON document.
#[derive(Debug)]
pub(crate) struct JsonStrings {
    pub view: View<'static>,
    pub fields: Vec<Field>,
}

/// Validates `raw` as JSON (naming the line of the first error) and decodes its strings.
pub(crate) fn extract(path: &str, raw: &str) -> Result<JsonStrings> {
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(raw) {
        let manifest = path.rsplit('/').next() == Some(crate::handoff::MANIFEST);
        if let Some(conflict) = manifest
            .then(|| crate::handoff::manifest::conflict_error(path, raw))
            .flatten()
        {
            return Err(conflict);
        }
        return Err(Error::invalid(
            path,
            Some(e.line()),
            format!("invalid JSON: {e}"),
        ));
    }
    Ok(strings(raw))
}

/// Validates `raw` as JSON with comments and trailing commas (the form opencode, VS Code and
/// Gemini CLI read), naming the line of the first error, and decodes its strings and the
/// text of its comments.
pub(crate) fn extract_jsonc(path: &str, raw: &str) -> Result<JsonStrings> {
    if let Err(e) =
        serde_json::from_str::<serde::de::IgnoredAny>(&super::agent_config::strip_jsonc(raw))
    {
        return Err(Error::invalid(
            path,
            Some(e.line()),
            format!("invalid JSON with comments: {e}"),
        ));
    }
    Ok(strings(raw))
}

/// Decodes the strings of `raw`, a JSON document already validated or a run of whole lines
/// of one (no string literal spans a line in valid JSON, so a line starts outside them).
/// The text of a comment (JSON with comments) is a line of its own.
pub(crate) fn strings(raw: &str) -> JsonStrings {
    let b = raw.as_bytes();
    let mut out = ViewBuilder::default();
    let mut fields = Vec::new();
    let mut last_key: Option<String> = None;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && matches!(b.get(i + 1), Some(b'/' | b'*')) {
            let body = i + 2;
            let (end, next) = if b[i + 1] == b'*' {
                raw[body..]
                    .find("*/")
                    .map_or((b.len(), b.len()), |e| (body + e, body + e + 2))
            } else {
                let e = memchr::memchr(b'\n', &b[body..]).map_or(b.len(), |e| body + e);
                (e, e)
            };
            out.copy(&raw[body..end], body);
            out.replace("\n", end, next);
            i = next;
            continue;
        }
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let value_start = out.len();
        let mut j = i + 1;
        while j < b.len() && b[j] != b'"' {
            if b[j] == b'\\' {
                let (c, len) = decode_escape(raw, j);
                let mut buf = [0u8; 4];
                out.replace(c.encode_utf8(&mut buf), j, j + len);
                j += len;
            } else {
                let run = b[j..]
                    .iter()
                    .position(|c| *c == b'"' || *c == b'\\')
                    .map_or(b.len(), |p| j + p);
                out.copy(&raw[j..run], j);
                j = run;
            }
        }
        let value_end = out.len();
        out.replace("\n", j, (j + 1).min(b.len()));
        let mut k = j + 1;
        while k < b.len() && b[k].is_ascii_whitespace() {
            k += 1;
        }
        if b.get(k) == Some(&b':') {
            last_key = Some(out.text()[value_start..value_end].to_string());
        } else if let Some(key) = last_key.take() {
            fields.push(Field {
                key,
                value: (value_start, value_end),
            });
        }
        i = j + 1;
    }
    JsonStrings {
        view: out.build(),
        fields,
    }
}

/// Decodes the escapes of a piece of a JSON string literal (a secret's span in the file).
pub(crate) fn decode_literal(piece: &str) -> String {
    let mut out = String::with_capacity(piece.len());
    let mut rest = piece;
    while let Some(k) = rest.find('\\') {
        out.push_str(&rest[..k]);
        let (c, len) = decode_escape(rest, k);
        out.push(c);
        rest = &rest[(k + len).min(rest.len())..];
    }
    out.push_str(rest);
    out
}

/// Decodes the escape at `raw[j]` (a backslash): (character, source length).
pub(super) fn decode_escape(raw: &str, j: usize) -> (char, usize) {
    let b = raw.as_bytes();
    match b.get(j + 1) {
        Some(b'n') => ('\n', 2),
        Some(b't') => ('\t', 2),
        Some(b'r') => ('\r', 2),
        Some(b'b') => ('\u{8}', 2),
        Some(b'f') => ('\u{C}', 2),
        Some(b'u') => {
            let hi = raw
                .get(j + 2..j + 6)
                .and_then(|h| u32::from_str_radix(h, 16).ok());
            match hi {
                Some(h @ 0xD800..=0xDBFF) => {
                    let lo = raw
                        .get(j + 6..j + 12)
                        .filter(|s| s.starts_with("\\u"))
                        .and_then(|s| u32::from_str_radix(&s[2..], 16).ok())
                        .filter(|l| (0xDC00..=0xDFFF).contains(l));
                    match lo {
                        Some(l) => {
                            let cp = 0x10000 + ((h - 0xD800) << 10) + (l - 0xDC00);
                            (char::from_u32(cp).unwrap_or('\u{FFFD}'), 12)
                        }
                        None => ('\u{FFFD}', 6),
                    }
                }
                Some(h) => (char::from_u32(h).unwrap_or('\u{FFFD}'), 6),
                None => ('\u{FFFD}', 2),
            }
        }
        Some(c) => (*c as char, 2),
        None => ('\\', 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_decoded_and_mapped() {
        let raw = r#"{"summary": "ig\u200bnore", "n": 1, "_comment": "x\"y"}"#;
        let j = extract("M.json", raw).unwrap();
        assert_eq!(j.view.text, "summary\nig\u{200B}nore\nn\n_comment\nx\"y\n");
        assert_eq!(j.fields.len(), 2);
        assert_eq!(j.fields[1].key, "_comment");
        let pos = j.view.text.find('\u{200B}').unwrap();
        let (s, e) = j.view.to_source(pos, pos + 3);
        assert_eq!(&raw[s..e], "\\u200b");
    }

    #[test]
    fn a_literal_piece_is_decoded() {
        assert_eq!(decode_literal(r"a\nb\u0041\\"), "a\nbA\\");
        assert_eq!(decode_literal("plain"), "plain");
    }

    #[test]
    fn invalid_json_names_the_line() {
        let err = extract("M.json", "{\n \"a\": ,\n}").unwrap_err();
        assert!(
            err.to_string().starts_with("M.json:2: invalid JSON"),
            "{err}"
        );
    }
}
