//! Markdown inline formatting that hides a finding (issue #13, encodings): the text read with
//! emphasis, code-span backticks, backslash escapes and inline tags removed inside and around
//! words ([`super::super::inline`]), as a rendered page and a model read it, is judged by the
//! injection and exfiltration rules (Markdown files) and the secret rules (every text). A
//! finding there that the text as written does not give is reported at its place in the
//! file, and the formatting that hid it as ENC001 (as an invisible character that splits a
//! word is reported beside what it hid); a credential so found is redacted like any other.

use super::super::Severity;
use super::super::engine::{Finding, Scan};
use super::super::inline::{Unformatted, unformatted};
use super::super::registry::{ENC001, Family};
use super::super::text::Spans;
use super::excerpt;

/// Bytes either side of a finding searched for the formatting that hid it when none lies
/// inside it (a verb's emphasis before the words a rule reports), on the finding's line.
const NEAR: usize = 256;

/// The findings of `scan`'s text read without its inline formatting that `existing` (the
/// findings of the text as written, normalised offsets) does not hold: the injection and
/// exfiltration rules' when `injection`, the secret rules' always.
pub(crate) fn hidden_by_formatting(
    scan: &Scan<'_>,
    injection: bool,
    existing: &[Finding],
) -> Vec<Finding> {
    let mut out = Vec::new();
    if scan.depth > 0 {
        return out;
    }
    let text = scan.text();
    let Some(plain) = unformatted(text) else {
        return out;
    };
    let found = super::super::scan_unformatted(&plain.view.text, injection);
    let mut known: Vec<(Family, Spans)> = Vec::new();
    for f in found.iter().filter(|f| judged(f, injection)) {
        let (s, e) = plain.view.to_source(f.start, f.end);
        let Some(hid) = markup_near(&plain, text, s, e) else {
            continue;
        };
        // The errors of the finding's family in the text as written, indexed once.
        let family = f.rule.family;
        let slot = known.iter().position(|k| k.0 == family).unwrap_or_else(|| {
            let spans = existing
                .iter()
                .filter(|x| !x.raw_span && x.rule.family == family && x.severity == Severity::Error)
                .map(|x| (x.start, x.end))
                .collect();
            known.push((family, Spans::new(spans)));
            known.len() - 1
        });
        // An injection found there is known; a credential only when all of it was found
        // (a piece of a token may look like one of its own).
        let secret = f.secret || family == Family::Sec;
        let spans = &known[slot].1;
        if secret && (spans.covers(s, e) || found_with_markup(spans, &plain, s, e))
            || !secret && spans.overlaps(s, e)
        {
            continue;
        }
        let shown = if secret {
            f.message.clone()
        } else {
            // The finding's text to the end of its line.
            let v = &plain.view.text;
            let at = f.start.min(v.len());
            let to = f.end.clamp(at, v.len());
            let end = memchr::memchr(b'\n', &v.as_bytes()[to..]).map_or(v.len(), |i| to + i);
            excerpt(&v[at..end])
        };
        let (ms, me) = (hid[0].0, hid[hid.len() - 1].1);
        let evasion = Finding::new(
            &ENC001,
            ms,
            me,
            format!(
                "Markdown formatting inside or around words ({}) hides content that triggers {} {}: {shown}",
                marks(text, hid),
                f.rule.id,
                f.rule.name
            ),
        );
        out.push(if f.secret {
            evasion.secret("encoded-secret")
        } else {
            evasion
        });
        let mut f = f.clone();
        f.start = s;
        f.end = e;
        f.raw_span = false;
        out.push(f);
    }
    out
}

/// Whether a finding of the unformatted text is judged here: an error of the injection or
/// exfiltration rules (when `injection`), or a credential.
fn judged(f: &Finding, injection: bool) -> bool {
    f.severity == Severity::Error
        && f.signal == 0
        && (injection && matches!(f.rule.family, Family::Pi | Family::Exf)
            || f.secret
            || f.rule.family == Family::Sec)
}

/// The removed markup that hid the finding at `s..e` (offsets of `text`): the pieces inside
/// it, else those within [`NEAR`] bytes of it on its line; `None` when there is none.
fn markup_near<'u>(
    u: &'u Unformatted,
    text: &str,
    s: usize,
    e: usize,
) -> Option<&'u [(usize, usize)]> {
    let inside = pieces(u, s, e);
    if !inside.is_empty() {
        return Some(inside);
    }
    let b = text.as_bytes();
    let from = s.saturating_sub(NEAR);
    let from = memchr::memrchr(b'\n', &b[from..s]).map_or(from, |i| from + i + 1);
    let to = (e + NEAR).min(b.len());
    let to = memchr::memchr(b'\n', &b[e..to]).map_or(to, |i| e + i);
    let near = pieces(u, from, to);
    (!near.is_empty()).then_some(near)
}

/// True when the markup inside the credential at `s..e` lies within credentials the text as
/// written gives (the value found with its markup, the view's finding only wider: a name
/// before it): the formatting hid nothing.
fn found_with_markup(spans: &Spans, u: &Unformatted, s: usize, e: usize) -> bool {
    let inside = pieces(u, s, e);
    !inside.is_empty() && inside.iter().all(|&(ps, pe)| spans.covers(ps, pe))
}

/// The removed pieces that overlap `s..e`.
fn pieces(u: &Unformatted, s: usize, e: usize) -> &[(usize, usize)] {
    let from = u.removed.partition_point(|p| p.1 <= s);
    let to = u.removed.partition_point(|p| p.0 < e).max(from);
    &u.removed[from..to]
}

/// The kinds of markup among `hid` (offsets of `text`), named by what they are written with.
fn marks(text: &str, hid: &[(usize, usize)]) -> String {
    let mut names: Vec<&str> = Vec::new();
    // A few pieces name every kind there is to name.
    for &(ps, _) in hid.iter().take(64) {
        let name = match text.as_bytes()[ps] {
            b'<' => "HTML",
            b'\\' => "backslash",
            b'`' => "backticks",
            _ => "emphasis",
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names.join(", ")
}
