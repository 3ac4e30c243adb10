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
use super::excerpt;

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
    let Some(u) = unformatted(text) else {
        return out;
    };
    let found = super::super::scan_unformatted(&u.view.text, injection);
    for f in found.iter().filter(|f| judged(f, injection)) {
        let (s, e) = u.view.to_source(f.start, f.end);
        let known = existing.iter().any(|x| {
            !x.raw_span
                && x.rule.family == f.rule.family
                && x.severity <= f.severity
                && x.start < e
                && s < x.end
        });
        let Some((ms, me)) = markup_within(&u, text, s, e) else {
            continue;
        };
        if known {
            continue;
        }
        let shown = if f.secret || f.rule.family == Family::Sec {
            f.message.clone()
        } else {
            // The finding's text to the end of its line.
            let v = &u.view.text;
            let at = f.start.min(v.len());
            let end = v[f.end.clamp(at, v.len())..]
                .find('\n')
                .map_or(v.len(), |i| f.end.clamp(at, v.len()) + i);
            excerpt(&v[at..end])
        };
        let evasion = Finding::new(
            &ENC001,
            ms,
            me,
            format!(
                "Markdown formatting inside or around words ({}) hides content that triggers {} {}: {shown}",
                marks(&u, text, s, e),
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

/// The span of the removed markup on the lines of `s..e` (the finding's lines: a verb's
/// formatting may lie outside the words a rule reports), `None` when there is none.
fn markup_within(u: &Unformatted, text: &str, s: usize, e: usize) -> Option<(usize, usize)> {
    let inside: Vec<&(usize, usize)> = pieces(u, s, e).collect();
    if let (Some(first), Some(last)) = (inside.first(), inside.last()) {
        return Some((first.0, last.1));
    }
    let ls = text[..s].rfind('\n').map_or(0, |i| i + 1);
    let le = text[e..].find('\n').map_or(text.len(), |i| e + i);
    pieces(u, ls, le).next().map(|_| (s, e))
}

/// The removed pieces that lie in `s..e`.
fn pieces(u: &Unformatted, s: usize, e: usize) -> impl Iterator<Item = &(usize, usize)> {
    let from = u.removed.partition_point(|p| p.1 <= s);
    u.removed[from..].iter().take_while(move |p| p.0 < e)
}

/// The kinds of markup removed in `s..e` (or, when none is, on its lines), named by what
/// they are written with.
fn marks(u: &Unformatted, text: &str, s: usize, e: usize) -> String {
    let (mut from, mut to) = (s, e);
    if pieces(u, s, e).next().is_none() {
        from = text[..s].rfind('\n').map_or(0, |i| i + 1);
        to = text[e..].find('\n').map_or(text.len(), |i| e + i);
    }
    let mut names: Vec<&str> = Vec::new();
    for &(ps, _) in pieces(u, from, to) {
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
