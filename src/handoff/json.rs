//! JSON documents the tool reads and may write back (the manifest, the allowlists, harness
//! settings): parsed into a [`Value`] that refuses a key given twice in any object.
//!
//! `serde_json` keeps the last of two equal keys, so a document read, changed and written
//! back loses the first one without a word (a task shadowed by a later one with the same
//! id, an allowlist entry whose reviewer reads one expiry date while the tool honours the
//! other). A key given twice is bad input: exit 2 naming the file and the line.

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Why a document was refused, and on which line (1-based).
#[derive(Debug)]
pub struct JsonError {
    line: usize,
    message: String,
    /// Whether the text is not JSON (or repeats a key), as opposed to JSON the tool cannot
    /// keep as written.
    malformed: bool,
}

impl JsonError {
    /// The line the problem is on.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The message, after `what` (`"malformed JSON"`) when the text is not JSON the tool
    /// accepts.
    pub fn describe(&self, what: &str) -> String {
        if self.malformed {
            format!("{what}: {}", self.message)
        } else {
            self.message.clone()
        }
    }
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for JsonError {}

impl From<serde_json::Error> for JsonError {
    fn from(e: serde_json::Error) -> JsonError {
        JsonError {
            line: e.line(),
            message: e.to_string(),
            malformed: true,
        }
    }
}

/// Parses `text` as one JSON document whose objects hold each key once and whose numbers
/// a [`Value`] holds exactly. The error says what and where.
pub fn from_str(text: &str) -> Result<Value, JsonError> {
    let value = from_str_read_only(text)?;
    refuse_inexact_numbers(text.as_bytes())?;
    Ok(value)
}

/// Parses `text` as [`from_str`] does but takes every number as a [`Value`] holds it: for a
/// document only read, never written back (a base commit's manifest compared with the
/// new one), where refusing a number would skip the comparison.
pub fn from_str_read_only(text: &str) -> Result<Value, JsonError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let Unique(value) = Unique::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// The line (1-based) of the member `key` of the top-level object in `text`, found without
/// parsing the values: for a message about a value that parsed but is not one the tool
/// accepts. `None` when the text has no such member (or is not an object up to it).
pub fn key_line(text: &str, key: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut line = 1;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => line += 1,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                let end = (i + 1).min(b.len());
                let after = text[end..].trim_start_matches([' ', '\t', '\r', '\n']);
                if depth == 1
                    && after.starts_with(':')
                    && serde_json::from_str::<String>(&text[start..end]).is_ok_and(|k| k == key)
                {
                    return Some(line);
                }
                // A string holds no raw line break; an escaped one is two bytes.
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Parses `bytes` as [`from_str`] does (invalid UTF-8 is an error of `serde_json`'s).
pub fn from_slice(bytes: &[u8]) -> Result<Value, JsonError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let Unique(value) = Unique::deserialize(&mut de)?;
    de.end()?;
    refuse_inexact_numbers(bytes)?;
    Ok(value)
}

/// The first number of a well-formed document that a [`Value`] would not write back with
/// the same value, as an error naming its line.
pub(crate) fn refuse_inexact_numbers(doc: &[u8]) -> Result<(), JsonError> {
    let (mut i, mut line) = (0, 1);
    while i < doc.len() {
        match doc[i] {
            b'\n' => line += 1,
            b'"' => {
                // Strings hold no raw newline in valid JSON; skip to the closing quote.
                i += 1;
                while i < doc.len() && doc[i] != b'"' {
                    i += if doc[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'-' | b'0'..=b'9' => {
                let end = i + doc[i..]
                    .iter()
                    .take_while(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .count();
                // Only ASCII was taken, from a document that parsed as UTF-8 or JSON.
                let lexeme = std::str::from_utf8(&doc[i..end]).unwrap_or_default();
                if let Some(back) = written_back(lexeme) {
                    let shown: String = lexeme.chars().take(40).collect();
                    let more = if lexeme.len() > shown.len() {
                        "…"
                    } else {
                        ""
                    };
                    return Err(JsonError {
                        line,
                        malformed: false,
                        message: format!(
                            "the number {shown}{more} would be written back as {back} (this tool \
                             keeps 64-bit integers and double-precision decimals exactly): write \
                             {back} if that is the value meant, or the number as a string to keep \
                             every digit"
                        ),
                    });
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// How the JSON number `lexeme` would be written back from the [`Value`] read from it, when
/// that is not the same decimal value (`None` when it is: an integer within 64 bits, or a
/// decimal whose double, printed shortest, is the same decimal).
fn written_back(lexeme: &str) -> Option<String> {
    if plainly_exact(lexeme) {
        return None;
    }
    let back = serde_json::from_str::<Value>(lexeme).ok()?.to_string();
    (decimal(lexeme) != decimal(&back)).then_some(back)
}

/// A cheap sufficient test, so a document of millions of numbers costs no allocation per
/// number: an integer within 64 bits, or a short decimal of at most 15 significant digits
/// (a double's guaranteed precision) whose exponent keeps it far from a double's limits.
fn plainly_exact(lexeme: &str) -> bool {
    let (mantissa, exponent) = match lexeme.find(['e', 'E']) {
        Some(at) => (&lexeme[..at], Some(&lexeme[at + 1..])),
        None => (lexeme, None),
    };
    if exponent.is_none() && !mantissa.contains('.') {
        return lexeme.parse::<u64>().is_ok() || lexeme.parse::<i64>().is_ok();
    }
    let significant = mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .skip_while(|&c| c == b'0')
        .count();
    let exponent = exponent.map_or(Some(0), |e| e.parse::<i32>().ok());
    lexeme.len() <= 24 && significant <= 15 && exponent.is_some_and(|e| e.abs() <= 280)
}

/// A decimal number's value as (significant digits without leading or trailing zeros,
/// power of ten of the last one); zero is `("", 0)` whatever its sign or exponent.
fn decimal(number: &str) -> (String, i64) {
    let unsigned = number.trim_start_matches(['-', '+']);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], &unsigned[at + 1..]),
        None => (unsigned, "0"),
    };
    // Any exponent beyond this range is out of a double's range both ways.
    let exponent: i64 = exponent.parse().unwrap_or(if exponent.starts_with('-') {
        i64::from(i32::MIN)
    } else {
        i64::from(i32::MAX)
    });
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = format!("{whole}{fraction}");
    let significant = digits.trim_start_matches('0');
    let trimmed = significant.trim_end_matches('0');
    if trimmed.is_empty() {
        return (String::new(), 0);
    }
    let zeros = i64::try_from(significant.len() - trimmed.len()).unwrap_or(i64::MAX);
    let places = i64::try_from(fraction.len()).unwrap_or(i64::MAX);
    (
        trimmed.to_string(),
        exponent.saturating_sub(places).saturating_add(zeros),
    )
}

/// A [`Value`] deserialised with every object's keys checked for repeats.
struct Unique(Value);

impl<'de> Deserialize<'de> for Unique {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Unique, D::Error> {
        d.deserialize_any(UniqueVisitor).map(Unique)
    }
}

struct UniqueVisitor;

impl<'de> Visitor<'de> for UniqueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Value, E> {
        // `serde_json` gives only finite numbers; an out-of-range one is its own error.
        Number::from_f64(n)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Unique(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "the key {key:?} appears twice in one object"
                )));
            }
            let Unique(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_line_finds_the_top_level_member_only() {
        let text = "{\n  \"tasks\": {\"T-1\": {\"next_task_id\": 3, \"title\": \"say \\\"next_task_id\\\": 4\"}},\n\n  \"next_task_id\": -1\n}\n";
        assert_eq!(key_line(text, "next_task_id"), Some(4));
        assert_eq!(key_line(text, "tasks"), Some(2));
        assert_eq!(key_line(text, "title"), None);
        assert_eq!(key_line("[1, {\"a\": 2}]", "a"), None);
        assert_eq!(key_line("{\"a\\u0062\": 1}", "ab"), Some(1));
        assert_eq!(key_line("{\"unterminated", "unterminated"), None);
    }

    #[test]
    fn a_key_given_twice_is_refused_at_any_depth_with_its_line() {
        let e =
            from_str("{\n  \"tasks\": {\n    \"T-001\": 1,\n    \"T-001\": 2\n  }\n}").unwrap_err();
        assert_eq!(e.line(), 4, "{e}");
        assert!(e.to_string().contains("\"T-001\" appears twice"), "{e}");
        assert!(from_str("[{\"a\": 1}, {\"a\": 2, \"b\": {\"a\": 3, \"a\": 4}}]").is_err());
        assert!(from_slice(b"{\"x\": 1, \"x\": 1}").is_err());
    }

    #[test]
    fn a_number_a_value_would_not_write_back_is_refused_with_its_line() {
        for (text, line) in [
            (
                "{\n  \"x\": {\"big\": 123456789012345678901234567890}\n}",
                2,
            ),
            ("[\n1,\n3.14159265358979323846]", 3),
            ("{\"small\": 1e-400}", 1),
            (
                "{\"s\": \"1e-400 in a string is text\",\n\"n\": 18446744073709551616}",
                2,
            ),
            ("[-9223372036854775809]", 1),
        ] {
            let e = from_str(text).unwrap_err();
            assert_eq!(e.line(), line, "{text}: {e}");
            assert!(
                e.to_string().contains("as a string to keep every digit"),
                "{e}"
            );
        }
        // A string that looks like a number, escaped quotes included, is not one.
        assert!(from_str(r#"{"a": "\" 1e-400 \\", "b": 18446744073709551615}"#).is_ok());
        // The message gives what would be written back, to keep if it is the value meant.
        for (lexeme, back) in [
            ("0.30000000000000001", Some("0.3")),
            (
                "123456789012345678901234567890",
                Some("1.2345678901234568e+29"),
            ),
            ("1e-400", Some("0.0")),
            ("9007199254740993.0", Some("9007199254740992.0")),
            ("9007199254740993", None),
            ("0.30000000000000004", None),
            ("1e22", None),
            ("-0", None),
            ("0.000000000000000000001", None),
            ("123.456e-280", None),
        ] {
            assert_eq!(written_back(lexeme).as_deref(), back, "{lexeme}");
        }
    }

    #[test]
    fn any_other_document_reads_as_serde_json_reads_it() {
        for text in [
            "{\"a\": [1, -2, 3.5, 1e300, 18446744073709551615, -9223372036854775808], \"b\": null, \"c\": true, \"d\": \"\\u00e9\\n\", \"e\": {}, \"f\": []}",
            "[]",
            "\"text\"",
            "  {\"a\": {\"a\": {\"a\": 1}}, \"b\": {\"a\": 2}}  ",
        ] {
            let want: Value = serde_json::from_str(text).unwrap();
            assert_eq!(from_str(text).unwrap(), want, "{text}");
            // The order of keys is kept, as the manifest writes them back.
            assert_eq!(
                serde_json::to_string(&from_str(text).unwrap()).unwrap(),
                serde_json::to_string(&want).unwrap()
            );
        }
        assert!(from_str("{} {}").is_err());
        // Numbers of the same value may change spelling; none is refused for it.
        let same_value = "[1E+2, -0, 0.1, 1.50, 5e-324, 1.7976931348623157e308, 123456789e-4]";
        assert!(from_str(same_value).is_ok(), "{same_value}");
        assert!(from_str("{\"a\": 1").is_err());
        assert!(from_slice(b"{\"a\": \"\xff\"}").is_err());
    }
}
