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
    /// The key of the object (or of the array of objects) that holds it
    /// (`{"twilio": {"token": …}}` → `twilio`), if any.
    pub parent: Option<String>,
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
    if let Err(e) = check_json(raw) {
        let manifest = path.rsplit('/').next() == Some(crate::handoff::MANIFEST);
        if let Some(conflict) = manifest
            .then(|| crate::handoff::manifest::conflict_error(path, raw))
            .flatten()
        {
            return Err(conflict);
        }
        return Err(Error::invalid(
            path,
            Some(e.line),
            format!("invalid JSON: {}", e.why),
        ));
    }
    Ok(strings(raw))
}

/// Validates `raw` as JSON with comments and trailing commas (the form opencode, VS Code and
/// Gemini CLI read), naming the line of the first error, and decodes its strings and the
/// text of its comments.
pub(crate) fn extract_jsonc(path: &str, raw: &str) -> Result<JsonStrings> {
    if let Err(e) = check_jsonc(raw) {
        return Err(Error::invalid(
            path,
            Some(e.line),
            format!("invalid JSON with comments: {}", e.why),
        ));
    }
    Ok(strings(raw))
}

/// The deepest nesting of arrays and objects the gate reads in JSON. The harnesses'
/// `JSON.parse` reads any depth and a configuration nests a few levels, so the bound refuses
/// only a file built to be deep, naming its line, rather than passing it unread (`serde_json`'s
/// own limit, 128, would refuse less visibly what a harness reads).
pub(crate) const MAX_JSON_DEPTH: usize = 512;

/// Why a JSON text cannot be read: the line (from 1) and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unreadable {
    pub line: usize,
    pub why: String,
}

/// Checks `raw` as strict JSON nested at most [`MAX_JSON_DEPTH`] levels.
pub(crate) fn check_json(raw: &str) -> std::result::Result<(), Unreadable> {
    deserialize::<serde::de::IgnoredAny>(raw).map(|_| ())
}

/// Checks `text` as JSON with comments and trailing commas, as [`read_jsonc`] reads it.
pub(crate) fn check_jsonc(text: &str) -> std::result::Result<(), Unreadable> {
    deserialize::<serde::de::IgnoredAny>(&as_json(text)).map(|_| ())
}

/// `text`, JSON with comments and trailing commas, read as the harnesses read their
/// configurations (Node's `JSON.parse`, VS Code's `jsonc-parser`) where `serde_json` alone
/// would refuse it: a number past a double's range (`1e999`, Infinity to them) is read as
/// ±1e308, the escape of a lone UTF-16 surrogate (`"\ud800"`, which they keep) as U+FFFD,
/// and arrays and objects nest up to [`MAX_JSON_DEPTH`] levels.
pub(crate) fn read_jsonc(text: &str) -> std::result::Result<serde_json::Value, Unreadable> {
    deserialize(&as_json(text))
}

/// `json` read as a `T`, once its nesting is known to be within [`MAX_JSON_DEPTH`].
fn deserialize<T: serde::de::DeserializeOwned>(json: &str) -> std::result::Result<T, Unreadable> {
    nesting_within_bound(json)?;
    let mut de = serde_json::Deserializer::from_str(json);
    // The nesting was bounded above, so is the recursion.
    de.disable_recursion_limit();
    T::deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| Unreadable {
            line: e.line(),
            why: e.to_string(),
        })
}

/// `Err` naming the line where the arrays and objects of `json` (outside its strings and
/// comments) first nest deeper than [`MAX_JSON_DEPTH`].
fn nesting_within_bound(json: &str) -> std::result::Result<(), Unreadable> {
    let b = json.as_bytes();
    let (mut depth, mut line, mut i) = (0usize, 1usize, 0usize);
    let mut in_string = false;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
        } else if in_string {
            if c == b'\\' {
                i += 1;
            }
            in_string = c != b'"';
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |e| i + e);
            continue;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let end = json[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            line += memchr::memchr_iter(b'\n', &b[i..end]).count();
            i = end;
            continue;
        } else {
            match c {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_JSON_DEPTH {
                        return Err(Unreadable {
                            line,
                            why: format!(
                                "arrays and objects nest deeper than {MAX_JSON_DEPTH} levels, \
                                 the most the gate reads"
                            ),
                        });
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        i += 1;
    }
    Ok(())
}

/// `text` made into the JSON `serde_json` reads, byte for byte in place (so lines and columns
/// stay): its `//` and `/* */` comments and its trailing commas blanked to spaces, a lone
/// surrogate's escape made U+FFFD's, and a number past a double's range made ±1e308
/// ([`read_jsonc`]).
pub(crate) fn as_json(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let mut in_string = false;
    while i < b.len() {
        let c = b[i];
        if in_string {
            if c == b'\\' {
                i += escape_as_json(b, i, &mut out);
                continue;
            }
            in_string = c != b'"';
            i += 1;
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                for o in &mut out[i..end] {
                    if *o != b'\n' {
                        *o = b' ';
                    }
                }
                i = end;
                continue;
            }
            b'-' | b'0'..=b'9' => {
                let end = b[i..]
                    .iter()
                    .position(|c| !matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .map_or(b.len(), |n| i + n);
                let largest: &[u8] = if c == b'-' { b"-1e308" } else { b"1e308" };
                // The shortest numbers past the range (`2e308`, `-2e308`) are as long.
                if text[i..end].parse::<f64>().is_ok_and(f64::is_infinite)
                    && largest.len() <= end - i
                {
                    out[i..end].fill(b' ');
                    out[i..i + largest.len()].copy_from_slice(largest);
                }
                i = end;
                continue;
            }
            b',' => {
                // A comma followed, past blanks and comments already blanked, by a closer.
                let mut j = i + 1;
                while j < b.len() {
                    if b[j].is_ascii_whitespace() {
                        j += 1;
                    } else if b[j] == b'/' && b.get(j + 1) == Some(&b'/') {
                        while j < b.len() && b[j] != b'\n' {
                            j += 1;
                        }
                    } else if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                        j = text[j + 2..].find("*/").map_or(b.len(), |e| j + 2 + e + 2);
                    } else {
                        break;
                    }
                }
                if matches!(b.get(j), Some(b'}' | b']')) {
                    out[i] = b' ';
                }
            }
            _ => {}
        }
        i += 1;
    }
    // Only ASCII bytes were replaced, by ASCII: still UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Rewrites in `out` the escape at `b[i]` (a backslash in a string) when it is a lone
/// surrogate's (`\ud800` not followed by `\udc00`…`\udfff`, or a trailing one alone) to
/// U+FFFD's; gives its length.
fn escape_as_json(b: &[u8], i: usize, out: &mut [u8]) -> usize {
    let unit = |at: usize| {
        b.get(at..at + 6)
            .filter(|e| e.starts_with(b"\\u") && e[2..].iter().all(u8::is_ascii_hexdigit))
            .and_then(|e| std::str::from_utf8(&e[2..]).ok())
            .and_then(|h| u16::from_str_radix(h, 16).ok())
    };
    let Some(u) = unit(i) else {
        return 2;
    };
    let high = (0xD800..=0xDBFF).contains(&u);
    if high && unit(i + 6).is_some_and(|l| (0xDC00..=0xDFFF).contains(&l)) {
        return 12;
    }
    if high || (0xDC00..=0xDFFF).contains(&u) {
        out[i + 2..i + 6].copy_from_slice(b"fffd");
    }
    6
}

/// Decodes the strings of `raw`, a JSON document already validated or a run of whole lines
/// of one (no string literal spans a line in valid JSON, so a line starts outside them).
/// The text of a comment (JSON with comments) is a line of its own.
pub(crate) fn strings(raw: &str) -> JsonStrings {
    let b = raw.as_bytes();
    let mut out = ViewBuilder::default();
    let mut fields = Vec::new();
    let mut last_key: Option<String> = None;
    // The keys of the open objects and arrays (an array's objects inherit its key).
    let mut parents: Vec<Option<String>> = Vec::new();
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
            match b[i] {
                b'{' | b'[' => {
                    let parent = last_key
                        .take()
                        .or_else(|| parents.last().cloned().flatten());
                    parents.push(parent);
                }
                b'}' | b']' => {
                    parents.pop();
                    last_key = None;
                }
                _ => {}
            }
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
                parent: parents.last().cloned().flatten(),
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
    fn what_json_parse_accepts_is_read() {
        let v = read_jsonc(r#"{"a": 1e999, "b": -1e999, "c": 1e-999, "d": 12}"#).unwrap();
        assert_eq!(v["a"].as_f64(), Some(1e308));
        assert_eq!(v["b"].as_f64(), Some(-1e308));
        assert_eq!(v["c"].as_f64(), Some(0.0));
        assert_eq!(v["d"].as_u64(), Some(12));
        let v = read_jsonc(r#"["\ud800", "\udc00x", "\ud83d\ude00", "\\ud800", "\ud800\u0041"]"#)
            .unwrap();
        let strings: Vec<&str> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        assert_eq!(
            strings,
            ["\u{FFFD}", "\u{FFFD}x", "\u{1F600}", "\\ud800", "\u{FFFD}A"]
        );
        // Rewritten in place: a later error keeps its line and column.
        let err = read_jsonc("{\"a\": \"\\ud800\", \"b\": 1e999,\n \"c\": ?}").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.why.ends_with("line 2 column 7"), "{}", err.why);
    }

    #[test]
    fn nesting_is_read_to_its_bound_and_refused_past_it_naming_the_line() {
        let nested = |n: usize| format!("{{\"a\":\n{}{}}}", "[".repeat(n - 1), "]".repeat(n - 1));
        // Read, and dropped, on a test thread's stack.
        let v = read_jsonc(&nested(MAX_JSON_DEPTH)).unwrap();
        assert!(v["a"].is_array());
        check_json(&nested(MAX_JSON_DEPTH)).unwrap();
        for err in [
            read_jsonc(&nested(MAX_JSON_DEPTH + 1)).unwrap_err(),
            check_json(&nested(MAX_JSON_DEPTH + 1)).unwrap_err(),
        ] {
            assert_eq!(err.line, 2);
            assert!(err.why.contains("deeper than 512"), "{}", err.why);
        }
        // Brackets in strings and comments do not nest.
        let quoted = format!("{{\"a\": \"{0}\" /* {0} */}}", "[".repeat(1000));
        read_jsonc(&quoted).unwrap();
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
