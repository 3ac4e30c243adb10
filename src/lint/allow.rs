//! Suppression: inline `<!-- aahp:allow RULE reason="…" -->` markers (never for SEC, HID or
//! CFG), the allowlist file `aahp-allowlist.json` (rule + fingerprint, owner, reason, expiry)
//! and the reference's `pii-allowlist.json` (exact emails; never hides a secret). Invalid
//! allowlist files are configuration errors (exit 2); expired entries are CFG001 findings.

use std::sync::LazyLock;

use jiff::civil::Date;
use regex::Regex;
use serde_json::{Map, Value};

use super::registry;
use crate::error::{Error, Result};

/// The allowlist file in the handoff directory.
pub const ALLOWLIST: &str = "aahp-allowlist.json";
/// The reference's reviewed-email allowlist.
pub const PII_ALLOWLIST: &str = "pii-allowlist.json";
/// How far ahead an allowlist entry may expire.
pub const MAX_DAYS_AHEAD: i32 = 180;
/// Rules no allowlist entry may name: an expired entry (CFG001), an invalid allowlist
/// (CFG002) and text a pattern stopped judging (CFG006).
const UNAPPROVABLE: [&str; 3] = ["CFG001", "CFG002", "CFG006"];

static MARKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^aahp:allow\s+(?P<ids>[A-Za-z]+[0-9]+(?:\s*,\s*[A-Za-z]+[0-9]+)*)\s+reason\s*=\s*"(?P<reason>[^"]*)"$"#)
        .expect("static regex")
});

/// True when a comment's inner text is a well-formed allow marker (not hidden content).
pub(crate) fn is_marker(inner: &str) -> bool {
    MARKER.is_match(inner.trim())
}

/// Line numbers of offsets met in ascending order, each found by reading only the text since
/// the previous offset: a file of a hundred thousand markers is read once, not once per marker.
struct LineCursor<'a> {
    raw: &'a [u8],
    /// Offset counted up to, the 0-based line there, and where that line starts.
    at: usize,
    line: usize,
    line_start: usize,
}

impl<'a> LineCursor<'a> {
    fn new(raw: &'a str) -> Self {
        LineCursor {
            raw: raw.as_bytes(),
            at: 0,
            line: 0,
            line_start: 0,
        }
    }

    /// The 0-based line of `offset` and the offset its line starts at.
    fn at(&mut self, offset: usize) -> (usize, usize) {
        if offset < self.at {
            // Out of order (not expected): count again from the start.
            (self.at, self.line, self.line_start) = (0, 0, 0);
        }
        for i in memchr::memchr_iter(b'\n', &self.raw[self.at..offset]) {
            self.line += 1;
            self.line_start = self.at + i + 1;
        }
        self.at = offset;
        (self.line, self.line_start)
    }
}

/// A parsed inline marker.
#[derive(Debug, Clone)]
pub(crate) struct Marker {
    /// 0-based line the marker covers.
    pub line: usize,
    pub rules: Vec<String>,
    pub reason: String,
}

/// A problem with a marker: (raw start, raw end, message).
pub(crate) type MarkerProblem = (usize, usize, String);

/// Finds the inline markers of a Markdown file. `comments` are (start, end, inner start,
/// inner end) raw ranges; `line_of` maps an offset to its 0-based line.
pub(crate) fn inline_markers(
    raw: &str,
    comments: &[(usize, usize, usize, usize)],
) -> (Vec<Marker>, Vec<MarkerProblem>) {
    let mut markers = Vec::new();
    let mut problems = Vec::new();
    let mut lines = LineCursor::new(raw);
    for &(start, end, a, b) in comments {
        let inner = raw[a..b.max(a)].trim();
        if !inner.starts_with("aahp:allow")
            && !inner.starts_with("aahp-allow")
            && !inner.starts_with("aahp:ignore")
        {
            continue;
        }
        let Some(c) = MARKER.captures(inner) else {
            problems.push((start, end, "malformed allow marker; write `<!-- aahp:allow PI001 reason=\"…\" -->` (it suppresses nothing)".into()));
            continue;
        };
        let reason = c["reason"].trim().to_string();
        if reason.chars().count() < 10 {
            problems.push((
                start,
                end,
                "allow marker needs a reason of at least 10 characters (it suppresses nothing)"
                    .into(),
            ));
            continue;
        }
        let mut rules = Vec::new();
        let mut bad = None;
        for id in c["ids"].split(',').map(|s| s.trim().to_ascii_uppercase()) {
            match registry::find(&id) {
                None => bad = Some(format!("allow marker names unknown rule {id}")),
                Some(r) if !r.family.inline_allowable() => {
                    bad = Some(format!(
                        "{} ({}) cannot be allowed inline: remove the content instead",
                        r.id,
                        r.family.title()
                    ));
                }
                Some(r) => rules.push(r.id.to_string()),
            }
        }
        if let Some(msg) = bad {
            problems.push((start, end, msg));
            continue;
        }
        // At the end of a line it covers that line; alone on its line, the next non-blank one.
        let (line_no, line_start) = lines.at(start);
        let before = raw[line_start..start].trim();
        let target = if before.is_empty() {
            let mut n = line_no + 1 + raw[start..end].matches('\n').count();
            let mut rest = raw[end..].split('\n').skip(1);
            loop {
                match rest.next() {
                    Some(l) if l.trim().is_empty() => n += 1,
                    _ => break,
                }
            }
            n
        } else {
            line_no
        };
        markers.push(Marker {
            line: target,
            rules,
            reason,
        });
    }
    (markers, problems)
}

/// One entry of `aahp-allowlist.json`.
#[derive(Debug, Clone)]
pub struct AllowEntry {
    pub rule: String,
    pub fingerprint: String,
    pub path: Option<String>,
    pub reason: String,
    pub owner: String,
    pub expires: Date,
    /// 1-based line of the entry in the file.
    pub line: usize,
    pub expired: bool,
}

impl AllowEntry {
    /// True when the entry is for `rule` and, if it names a path, for `path`.
    pub fn applies(&self, rule: &str, path: &str) -> bool {
        self.rule == rule && self.path.as_deref().is_none_or(|p| p == path)
    }

    /// How a user reads what suppressed a finding: the allowlist (`file`), the entry's
    /// reason, owner and expiry.
    pub fn described(&self, file: &str) -> String {
        format!(
            "{file}: {} ({}, until {})",
            self.reason, self.owner, self.expires
        )
    }
}

/// One entry of `pii-allowlist.json`.
#[derive(Debug, Clone)]
pub struct PiiEntry {
    pub value: String,
    pub reason: String,
    pub owner: String,
    pub expires: Date,
    pub line: usize,
    pub expired: bool,
}

/// The 1-based lines of the occurrences of `needle` in `text`, in order, in one pass: the
/// entry `i` of an allowlist is reported at the `i`-th (a search per entry made 20,000
/// entries quadratic: 40 s before the first message).
fn lines_of(text: &str, needle: &str) -> Vec<usize> {
    let (mut line, mut at) = (1, 0);
    text.match_indices(needle)
        .map(|(i, _)| {
            line += memchr::memchr_iter(b'\n', &text.as_bytes()[at..i]).count();
            at = i;
            line
        })
        .collect()
}

fn parse_date(path: &str, line: usize, v: &Value) -> Result<Date> {
    let s = v
        .as_str()
        .ok_or_else(|| Error::invalid(path, Some(line), "`expires` must be a YYYY-MM-DD string"))?;
    let ok = s.len() == 10 && s.as_bytes()[4] == b'-' && s.as_bytes()[7] == b'-';
    s.parse::<Date>().ok().filter(|_| ok).ok_or_else(|| {
        Error::invalid(
            path,
            Some(line),
            format!("`expires` is not a valid YYYY-MM-DD date: {s:?}"),
        )
    })
}

fn single_line(path: &str, line: usize, obj: &Map<String, Value>, key: &str) -> Result<String> {
    let v = obj.get(key).and_then(Value::as_str).ok_or_else(|| {
        Error::invalid(
            path,
            Some(line),
            format!("`{key}` must be a non-empty string"),
        )
    })?;
    if v.trim().is_empty() || v.contains(['\n', '\r', '\t']) {
        return Err(Error::invalid(
            path,
            Some(line),
            format!("`{key}` must be a non-empty single-line string"),
        ));
    }
    Ok(v.to_string())
}

fn root_entries<'a>(path: &str, doc: &'a Value, exact: bool) -> Result<&'a Vec<Value>> {
    let obj = doc.as_object().ok_or_else(|| {
        Error::invalid(
            path,
            Some(1),
            "must be a JSON object {\"version\":1,\"entries\":[…]} (CFG002)",
        )
    })?;
    if obj.get("version").and_then(Value::as_u64) != Some(1) {
        return Err(Error::invalid(
            path,
            Some(1),
            "`version` must be 1 (CFG002)",
        ));
    }
    if exact && obj.keys().any(|k| k != "version" && k != "entries") {
        return Err(Error::invalid(
            path,
            Some(1),
            "must contain exactly version and entries (CFG002)",
        ));
    }
    obj.get("entries")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::invalid(path, Some(1), "`entries` must be an array (CFG002)"))
}

fn parse_json(path: &str, bytes: &[u8]) -> Result<(String, Value)> {
    let text = crate::handoff::decode_text(path, bytes)?.to_string();
    let doc: Value = crate::handoff::json::from_str(&text)
        .map_err(|e| Error::invalid(path, Some(e.line()), e.describe("invalid JSON (CFG002)")))?;
    Ok((text, doc))
}

/// Parses `aahp-allowlist.json`, judging expiry against `today`.
pub fn parse_allowlist(path: &str, bytes: &[u8], today: Date) -> Result<Vec<AllowEntry>> {
    let (text, doc) = parse_json(path, bytes)?;
    let mut out = Vec::new();
    let lines = lines_of(&text, "\"rule\"");
    for (i, e) in root_entries(path, &doc, false)?.iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(1);
        let obj = e.as_object().ok_or_else(|| {
            Error::invalid(path, Some(line), "each entry must be an object (CFG002)")
        })?;
        let allowed = ["rule", "fingerprint", "path", "reason", "owner", "expires"];
        if let Some(k) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(Error::invalid(
                path,
                Some(line),
                format!(
                    "unknown key `{k}`; entries hold rule, fingerprint, path, reason, owner and expires (CFG002)"
                ),
            ));
        }
        let rule = single_line(path, line, obj, "rule")?;
        let meta = registry::find(&rule).ok_or_else(|| {
            Error::invalid(path, Some(line), format!("unknown rule `{rule}` (CFG002)"))
        })?;
        // What says the gate did not judge something, or that an approval lapsed, is no
        // finding to approve (review atk42 #4): an entry for CFG006 passed a file whose text
        // past the 1,000th finding of a pattern no rule had read.
        if UNAPPROVABLE.contains(&meta.id) {
            return Err(Error::invalid(
                path,
                Some(line),
                format!(
                    "{} ({}) cannot be approved: it says the gate could not judge part of a file \
                     or that an approval lapsed; remove the entry and fix what the finding names \
                     (CFG002)",
                    meta.id, meta.name
                ),
            ));
        }
        let fingerprint = single_line(path, line, obj, "fingerprint")?;
        if fingerprint.contains('*')
            || !["v1:", "v2:", "v3:"]
                .iter()
                .any(|v| fingerprint.starts_with(v))
            || fingerprint.len() != 35
            || !fingerprint[3..].bytes().all(|c| c.is_ascii_hexdigit())
        {
            return Err(Error::invalid(
                path,
                Some(line),
                "`fingerprint` must be one exact `v2:` or `v3:` fingerprint from `git aahp lint --format json` (no wildcards) (CFG002)",
            ));
        }
        // A `v1:` fingerprint of a secret hashed the secret itself, and a short one can be
        // recovered from it (review s23 item 11): secrets now have `v2:` fingerprints, and
        // the old entry is refused with the way to approve the finding again.
        if meta.family == registry::Family::Sec && fingerprint.starts_with("v1:") {
            return Err(Error::invalid(
                path,
                Some(line),
                format!(
                    "`{fingerprint}` is a `v1:` fingerprint of a {rule} secret, from which a short secret can be recovered; secrets have `v2:` fingerprints now: run `git aahp lint --format json`, put the finding's `v2:` fingerprint in this entry, and rotate the secret if the old entry was pushed (CFG002)"
                ),
            ));
        }
        // A `v1:` fingerprint hashed the finding's text alone: the entry went on approving
        // it whatever the rest of its line came to say (a quoted attack string turned into
        // an order around it). Findings have `v3:` fingerprints now, which hash the lines
        // too; the old entry is refused with the way to approve the finding again. A CFG007
        // acknowledgement's `v1:` names its whole command and stays.
        if fingerprint.starts_with("v1:") && meta.id != registry::CFG007.id {
            return Err(Error::invalid(
                path,
                Some(line),
                format!(
                    "`{fingerprint}` is a `v1:` fingerprint, which approved the {rule} finding's text whatever the rest of its line says; findings have `v3:` fingerprints now, which cover the lines too: run `git aahp lint --format json`, check the finding's line still says what you approved, and put its `v3:` fingerprint in this entry (CFG002)"
                ),
            ));
        }
        let entry_path = match obj.get("path") {
            Some(v) => Some(
                v.as_str()
                    .filter(|s| !s.contains('*'))
                    .ok_or_else(|| {
                        Error::invalid(path, Some(line), "`path` must be one exact path (CFG002)")
                    })?
                    .to_string(),
            ),
            None => None,
        };
        let reason = single_line(path, line, obj, "reason")?;
        let owner = single_line(path, line, obj, "owner")?;
        let expires = parse_date(path, line, obj.get("expires").unwrap_or(&Value::Null))?;
        let horizon = today
            .checked_add(jiff::Span::new().days(i64::from(MAX_DAYS_AHEAD)))
            .unwrap_or(today);
        if expires > horizon {
            return Err(Error::invalid(
                path,
                Some(line),
                format!(
                    "`expires` {expires} is more than {MAX_DAYS_AHEAD} days ahead; review exceptions at least twice a year (CFG002)"
                ),
            ));
        }
        out.push(AllowEntry {
            rule: meta.id.to_string(),
            fingerprint,
            path: entry_path,
            reason,
            owner,
            expires,
            line,
            expired: expires < today,
        });
    }
    Ok(out)
}

/// One exact e-mail address, as the reference validator's
/// `^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$` reads it, told without compiling the
/// regex for every commit that stages an allowlist: one `@`, a local part of those
/// characters, and a domain of letters, digits, dots and hyphens whose part after its last dot
/// is two or more letters and whose part before it is not empty.
fn is_exact_email(value: &str) -> bool {
    let Some((local, domain)) = value.split_once('@') else {
        return false;
    };
    let Some((host, top)) = domain.rsplit_once('.') else {
        return false;
    };
    !local.is_empty()
        && local
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'%' | b'+' | b'-'))
        && !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-'))
        && top.len() >= 2
        && top.bytes().all(|b| b.is_ascii_alphabetic())
}

/// Parses `pii-allowlist.json` with the reference validator's rules.
pub fn parse_pii_allowlist(path: &str, bytes: &[u8], today: Date) -> Result<Vec<PiiEntry>> {
    let (text, doc) = parse_json(path, bytes)?;
    let mut out: Vec<PiiEntry> = Vec::new();
    let lines = lines_of(&text, "\"value\"");
    let mut seen = std::collections::HashSet::new();
    for (i, e) in root_entries(path, &doc, true)?.iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(1);
        let obj = e.as_object().ok_or_else(|| {
            Error::invalid(path, Some(line), "each entry must be an object (CFG002)")
        })?;
        let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        let want = ["value", "kind", "reason", "owner", "expires"];
        if keys.len() != want.len() || !want.iter().all(|k| keys.contains(k)) {
            return Err(Error::invalid(
                path,
                Some(line),
                "each entry must contain exactly value, kind, reason, owner, and expires (CFG002)",
            ));
        }
        let value = single_line(path, line, obj, "value")?;
        if !is_exact_email(&value) {
            return Err(Error::invalid(
                path,
                Some(line),
                format!("`value` must be one exact email address, not {value:?} (CFG002)"),
            ));
        }
        if obj.get("kind").and_then(Value::as_str) != Some("email") {
            return Err(Error::invalid(
                path,
                Some(line),
                "`kind` must be \"email\" (CFG002)",
            ));
        }
        if !seen.insert(value.to_ascii_lowercase()) {
            return Err(Error::invalid(
                path,
                Some(line),
                format!("duplicate entry for {value} (CFG002)"),
            ));
        }
        let reason = single_line(path, line, obj, "reason")?;
        let owner = single_line(path, line, obj, "owner")?;
        let expires = parse_date(path, line, obj.get("expires").unwrap_or(&Value::Null))?;
        out.push(PiiEntry {
            value,
            reason,
            owner,
            expires,
            line,
            expired: expires < today,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written address check accepts and refuses what the reference validator's
    /// regex does: addresses of every shape it takes, and near misses around each of its
    /// parts (a second `@`, an empty part, a digit or one letter after the last dot, a
    /// character outside a part's class, a trailing line break, characters past ASCII).
    #[test]
    fn exact_email_addresses_are_the_reference_regex_s() {
        let re = regex::Regex::new(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$")
            .expect("compiles");
        let locals = [
            "a",
            "ops",
            "first.last",
            "a+b",
            "x_y%z",
            "-",
            ".",
            "",
            "a b",
            "a@b",
            "é",
        ];
        let hosts = [
            "b", "bench", "ex-ample", "a.b.c", "1.2", ".", "-", "", "a_b", "a b", "ü",
        ];
        let tops = [
            "com", "io", "c", "c1", "", "co.uk", "COM", "c-m", "comé", "com\n", "a.", ".b",
        ];
        let mut tried = 0;
        for l in locals {
            for h in hosts {
                for t in tops {
                    for value in [
                        format!("{l}@{h}.{t}"),
                        format!("{l}@{h}{t}"),
                        format!("{l}{h}.{t}"),
                        format!("{l}@@{h}.{t}"),
                        format!("{l}@{h}.{t}@x.io"),
                    ] {
                        assert_eq!(is_exact_email(&value), re.is_match(&value), "{value:?}");
                        tried += 1;
                    }
                }
            }
        }
        assert!(tried > 6000);
        assert!(is_exact_email("ops@bench.test"));
        assert!(!is_exact_email("ops@bench.t"));
    }

    fn today() -> Date {
        "2026-11-22".parse().unwrap()
    }

    #[test]
    fn pii_allowlist_follows_the_reference_validator() {
        let ok = br#"{"version":1,"entries":[{"value":"owner@company.test","kind":"email","reason":"Required operational owner reference","owner":"Platform Operations","expires":"2099-01-01"}]}"#;
        let e = parse_pii_allowlist("p.json", ok, today()).unwrap();
        assert!(!e[0].expired);
        let expired = String::from_utf8_lossy(ok).replace("2099-01-01", "2000-01-01");
        assert!(parse_pii_allowlist("p.json", expired.as_bytes(), today()).unwrap()[0].expired);
        let wildcard = String::from_utf8_lossy(ok).replace("owner@company.test", "*@company.test");
        let err = parse_pii_allowlist("p.json", wildcard.as_bytes(), today()).unwrap_err();
        assert!(err.to_string().contains("one exact email address"), "{err}");
        let missing = br#"{"version":1,"entries":[{"value":"owner@company.test","kind":"email","reason":"Missing owner","expires":"2099-01-01"}]}"#;
        let err = parse_pii_allowlist("p.json", missing, today()).unwrap_err();
        assert!(
            err.to_string()
                .contains("must contain exactly value, kind, reason, owner, and expires"),
            "{err}"
        );
    }

    /// Entry `i` is reported at its own line, however many entries come before it; a value
    /// repeated in another letter case is a duplicate.
    #[test]
    fn entries_are_reported_at_their_lines_and_duplicates_ignore_case() {
        let entry = |v: &str| {
            format!(
                "  {{\n    \"value\": \"{v}\",\n    \"kind\": \"email\",\n    \"reason\": \"On-call contact\",\n    \"owner\": \"Ops\",\n    \"expires\": \"2027-01-01\"\n  }}"
            )
        };
        let mut entries: Vec<String> = (0..300)
            .map(|i| entry(&format!("u{i}@example.com")))
            .collect();
        entries.push(entry("U7@Example.com"));
        let doc = format!(
            "{{\"version\": 1, \"entries\": [\n{}\n]}}\n",
            entries.join(",\n")
        );
        let err = parse_pii_allowlist("p.json", doc.as_bytes(), today()).unwrap_err();
        // Each entry takes 7 lines after the opening one: entry 300 opens on line 2 + 300 * 7,
        // and its value is on the next.
        assert!(err.to_string().starts_with("p.json:2103:"), "{err}");
        assert!(err.to_string().contains("duplicate entry"), "{err}");
        let allow: Vec<String> = (0..300)
            .map(|i| {
                format!(
                    "  {{\"rule\": \"PI001\", \"fingerprint\": \"v3:{i:032x}\", \"reason\": \"quoted attack\", \"owner\": \"Sec\", \"expires\": \"{}\"}}",
                    if i == 250 { "2027-13-01" } else { "2027-01-01" }
                )
            })
            .collect();
        let doc = format!(
            "{{\"version\": 1, \"entries\": [\n{}\n]}}\n",
            allow.join(",\n")
        );
        let err = parse_allowlist("a.json", doc.as_bytes(), today()).unwrap_err();
        assert!(err.to_string().starts_with("a.json:252:"), "{err}");
    }

    /// The (start, end, inner start, inner end) ranges of the HTML comments of `raw`.
    fn comments_of(raw: &str) -> Vec<(usize, usize, usize, usize)> {
        raw.match_indices("<!--")
            .map(|(s, _)| {
                let e = s + raw[s..].find("-->").unwrap() + 3;
                (s, e, s + 4, e - 3)
            })
            .collect()
    }

    #[test]
    fn markers_need_a_reason_and_an_allowable_rule() {
        let raw = "x <!-- aahp:allow PI001 reason=\"quoted in the threat model\" -->\n<!-- aahp:allow SEC020 reason=\"test fixture token\" -->\n<!-- aahp:allow PI001 reason=\"short\" -->\n";
        let comments = comments_of(raw);
        let (m, p) = inline_markers(raw, &comments);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].line, 0);
        assert_eq!(p.len(), 2);
        assert!(p[0].2.contains("cannot be allowed inline"));
    }

    #[test]
    fn each_marker_covers_its_own_line_or_the_next_non_blank_one() {
        let m = "<!-- aahp:allow PI001 reason=\"quoted in the threat model\" -->";
        // Line 0: text then a marker (covers 0); line 1: a marker alone, then a blank line
        // (covers 3); line 3: two markers on one line (both cover 3).
        let raw = format!("a {m}\n{m}\n\nb {m} c {m}\n");
        let comments = comments_of(&raw);
        let (markers, problems) = inline_markers(&raw, &comments);
        assert!(problems.is_empty());
        let lines: Vec<usize> = markers.iter().map(|m| m.line).collect();
        assert_eq!(lines, [0, 3, 3, 3]);
    }

    #[test]
    fn allowlist_entries_are_strict() {
        let good = br#"{"version":1,"entries":[{"rule":"PI001","fingerprint":"v3:0123456789abcdef0123456789abcdef","reason":"documents the incident","owner":"Security","expires":"2027-01-31"}]}"#;
        assert_eq!(parse_allowlist("a.json", good, today()).unwrap().len(), 1);
        let far = String::from_utf8_lossy(good).replace("2027-01-31", "2030-01-01");
        assert!(
            parse_allowlist("a.json", far.as_bytes(), today())
                .unwrap_err()
                .to_string()
                .contains("days ahead")
        );
        let wild =
            String::from_utf8_lossy(good).replace("v3:0123456789abcdef0123456789abcdef", "*");
        assert!(parse_allowlist("a.json", wild.as_bytes(), today()).is_err());
    }

    /// Review atk42 #4: an entry for CFG006 approved text no rule had read (past a pattern's
    /// 1,000th finding), and one for CFG001 an approval that had lapsed.
    #[test]
    fn what_the_gate_did_not_judge_cannot_be_approved() {
        let good = r#"{"version":1,"entries":[{"rule":"PI001","fingerprint":"v3:0123456789abcdef0123456789abcdef","reason":"documents the incident","owner":"Security","expires":"2027-01-31"}]}"#;
        for rule in ["CFG001", "CFG002", "CFG006"] {
            let doc = good.replace("PI001", rule);
            let err = parse_allowlist("a.json", doc.as_bytes(), today())
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("cannot be approved") && err.contains(rule),
                "{err}"
            );
        }
        for rule in ["CFG003", "CFG005", "CFG007"] {
            let doc = good.replace("PI001", rule);
            assert!(
                parse_allowlist("a.json", doc.as_bytes(), today()).is_ok(),
                "{rule}"
            );
        }
    }
}
