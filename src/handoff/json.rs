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

/// Parses `text` as one JSON document whose objects hold each key once. The error says
/// which key appears twice and, as every `serde_json` error, where.
pub fn from_str(text: &str) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_str(text);
    let Unique(value) = Unique::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Parses `bytes` as [`from_str`] does (invalid UTF-8 is an error of `serde_json`'s).
pub fn from_slice(bytes: &[u8]) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let Unique(value) = Unique::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
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
    fn a_key_given_twice_is_refused_at_any_depth_with_its_line() {
        let e =
            from_str("{\n  \"tasks\": {\n    \"T-001\": 1,\n    \"T-001\": 2\n  }\n}").unwrap_err();
        assert_eq!(e.line(), 4, "{e}");
        assert!(e.to_string().contains("\"T-001\" appears twice"), "{e}");
        assert!(from_str("[{\"a\": 1}, {\"a\": 2, \"b\": {\"a\": 3, \"a\": 4}}]").is_err());
        assert!(from_slice(b"{\"x\": 1, \"x\": 1}").is_err());
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
        assert!(from_str("{\"a\": 1").is_err());
        assert!(from_slice(b"{\"a\": \"\xff\"}").is_err());
    }
}
