//! Provenance of a handoff (issue #15, proposal §provenance): who wrote a session's LOG entry
//! and STATUS update, in which session, when, and on top of which commit. `git aahp commit`
//! stamps one line into the session's LOG entry and the STATUS summary; `verify` warns on a
//! session entry without it. Pure text logic: no git, no printing.

use super::log::{LogEntry, LogFile};
use super::manifest::{PROVENANCE_PREFIX, is_provenance_line};

/// The facts a provenance line records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The agent that ran the session.
    pub agent: String,
    /// The session id.
    pub session_id: String,
    /// When the session was committed (RFC 3339 UTC).
    pub timestamp: String,
    /// The commit the session was committed on top of (short id).
    pub commit_before: String,
}

impl Provenance {
    /// The line, e.g. ``Provenance: agent `claude`, session `s-1`, 2026-11-22T10:00:00Z,
    /// commit before `abc1234`.`` Agent and session id are untrusted text: they cross the
    /// output boundary here (backticks cannot end their code span).
    pub fn line(&self) -> String {
        let field = |s: &str| crate::output::boundary::clean_line(s).replace('`', "'");
        format!(
            "{PROVENANCE_PREFIX}agent `{}`, session `{}`, {}, commit before `{}`.",
            field(&self.agent),
            field(&self.session_id),
            field(&self.timestamp),
            field(&self.commit_before),
        )
    }
}

/// Returns the entries of `now` that `before` does not hold (by their normalised text): the
/// entries this session wrote or changed, newest first as in the file.
pub fn new_entries(before: Option<&str>, now: &str) -> Vec<usize> {
    new_entries_of(before, &LogFile::parse(now).entries)
}

/// [`new_entries`] of entries already parsed. An entry whose text `before` holds as it is
/// is old without normalising either (issue #14: a commit compares every entry of a long
/// LOG.md with HEAD's, and nearly all are unchanged); the others are compared normalised.
fn new_entries_of(before: Option<&str>, now: &[LogEntry]) -> Vec<usize> {
    let old = before
        .map(|b| LogFile::parse(b).entries)
        .unwrap_or_default();
    let same: std::collections::HashSet<&str> = old.iter().map(|e| e.text.as_str()).collect();
    let mut normalised: Option<std::collections::HashSet<String>> = None;
    now.iter()
        .enumerate()
        .filter(|(_, e)| {
            if same.contains(e.text.as_str()) {
                return false;
            }
            let old = normalised
                .get_or_insert_with(|| old.iter().map(|e| strip_provenance(&e.text)).collect());
            !old.contains(&strip_provenance(&e.text))
        })
        .map(|(i, _)| i)
        .collect()
}

/// The new entries (see [`new_entries`]) an agent wrote: entries `git-aahp` wrote itself
/// (a recovery note) are not the session's.
pub fn session_entries(before: Option<&str>, now: &str) -> Vec<usize> {
    let entries = LogFile::parse(now).entries;
    new_entries_of(before, &entries)
        .into_iter()
        .filter(|&i| !is_tool_entry(&entries[i].header))
        .collect()
}

/// True for an entry heading written by the tool (`## [date] git-aahp: …`).
fn is_tool_entry(header: &str) -> bool {
    header
        .split_once("] ")
        .is_some_and(|(_, rest)| rest.starts_with("git-aahp:"))
}

fn strip_provenance(text: &str) -> String {
    text.lines()
        .filter(|l| !is_provenance_line(l))
        .collect::<Vec<_>>()
        .join("\n")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// True when the entry carries a provenance line.
pub fn has_provenance(entry_text: &str) -> bool {
    entry_text.lines().any(is_provenance_line)
}

/// Stamps `line` into entry `index` of the journal `text` (see [`stamp_entries`]).
pub fn stamp_entry(text: &str, index: usize, line: &str) -> String {
    stamp_entries(text, &[index], line)
}

/// Stamps `line` into each entry of the journal `text` whose index is in `indices`: right
/// under its heading, replacing a provenance line already there. The rest of the file is kept
/// byte for byte. One pass over the file, however many entries are stamped.
pub fn stamp_entries(text: &str, indices: &[usize], line: &str) -> String {
    let log = LogFile::parse(text);
    let wanted: std::collections::HashSet<usize> = indices.iter().copied().collect();
    if !(0..log.entries.len()).any(|i| wanted.contains(&i)) {
        return text.to_string();
    }
    let nl = log.line_ending;
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let offset = text.len() - body.len();
    // The entries follow the preamble back to back, to the end of the file.
    let mut at = offset + body.len() - body[log.preamble.len()..].len();
    let mut out = String::with_capacity(text.len() + indices.len() * (line.len() + 4));
    out.push_str(&text[..at]);
    for (i, entry) in log.entries.iter().enumerate() {
        let raw = &entry.raw;
        at += raw.len();
        if !wanted.contains(&i) {
            out.push_str(raw);
            continue;
        }
        let heading_end = raw.find('\n').map_or(raw.len(), |i| i + 1);
        let (heading, rest) = raw.split_at(heading_end);
        let kept: String = rest
            .split_inclusive('\n')
            .filter(|l| !is_provenance_line(l))
            .collect();
        out.push_str(heading);
        if !heading.ends_with('\n') {
            out.push_str(nl);
        }
        out.push_str(nl);
        out.push_str(line);
        out.push_str(nl);
        out.push_str(nl);
        out.push_str(kept.trim_start_matches(['\r', '\n']));
    }
    out.push_str(&text[at..]);
    out
}

/// Writes a new entry for the session at the top of the journal, under the preamble:
/// `## [date] agent: title`, the provenance line, and the rest of `log` as its body.
/// Checks that `--log TEXT` makes one LOG.md entry: a line of its body that LOG.md reads
/// as an entry's heading would start another entry, dated and signed as the text says and
/// stamped with this session's provenance all the same (review rob35 #7).
pub fn check_one_entry(log: &str) -> Result<(), String> {
    let entry = prepend_entry("", "2000-01-01", "agent", log, "");
    let parsed = LogFile::parse(&entry);
    match parsed.entries.get(1) {
        None => Ok(()),
        Some(e) => Err(format!(
            "--log: the text holds a line LOG.md reads as the heading of another entry (`{}`): \
             one --log is one entry; use `###` for a heading inside it",
            crate::output::escape_untrusted(&e.header)
        )),
    }
}

pub fn prepend_entry(text: &str, date: &str, agent: &str, log: &str, line: &str) -> String {
    let parsed = LogFile::parse(text);
    let nl = parsed.line_ending;
    let clean = |s: &str| crate::output::boundary::clean(s).into_owned();
    let log = log.trim();
    let (title, body) = match log.split_once('\n') {
        Some((t, b)) => (t.trim(), b.trim()),
        None => (log, ""),
    };
    let title = crate::handoff::manifest::truncate_chars(&clean(title).replace('\n', " "), 120);
    let agent = crate::output::boundary::clean_line(agent);
    let mut entry = format!("## [{date}] {agent}: {title}{nl}{nl}{line}{nl}");
    if !body.is_empty() {
        entry.push_str(nl);
        entry.push_str(&clean(body).replace('\n', nl));
        entry.push_str(nl);
    }
    entry.push_str(nl);
    entry.push_str("---");
    entry.push_str(nl);
    entry.push_str(nl);
    let body_text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let offset = text.len() - body_text.len();
    let mut preamble = parsed.preamble.clone();
    if !preamble.is_empty() && !preamble.ends_with('\n') {
        preamble.push_str(nl);
    }
    if !preamble.is_empty() && !preamble.ends_with(&format!("{nl}{nl}")) {
        preamble.push_str(nl);
    }
    format!(
        "{}{preamble}{entry}{}",
        &text[..offset],
        &body_text[parsed.preamble.len()..]
    )
}

/// Stamps `line` into the STATUS `summary` section, replacing a provenance line already
/// there; `None` when the file has no summary section.
pub fn stamp_status(text: &str, line: &str) -> Option<String> {
    let open = "<!-- SECTION: summary -->";
    let close = "<!-- /SECTION: summary -->";
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let kept: Vec<&str> = text[start..end]
        .split_inclusive('\n')
        .filter(|l| !is_provenance_line(l))
        .collect();
    let mut body: String = kept.concat();
    let trimmed = body.trim_end_matches(['\r', '\n', ' ', '\t']).len();
    body.truncate(trimmed);
    if !body.starts_with(['\r', '\n']) {
        body.insert_str(0, nl);
    }
    Some(format!(
        "{}{body}{nl}{nl}{line}{nl}{}",
        &text[..start],
        &text[end..]
    ))
}

/// The STATUS text without provenance lines: what the session itself wrote.
pub fn without_provenance(text: &str) -> String {
    text.split_inclusive('\n')
        .filter(|l| !is_provenance_line(l))
        .collect()
}

/// A journal entry of a base that a later journal no longer holds (review s29 #5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostEntry {
    /// Its heading line (date, agent, title).
    pub header: String,
    /// Its digest: an entry that left the journal through a rotation is listed by it in the
    /// archive's index.
    pub sha256: String,
    /// True when the later journal holds an entry under the same heading with other text.
    pub rewritten: bool,
    /// The heading the entry now has, when the later journal holds its text word for word
    /// under a heading the base does not have: only its heading changed.
    pub heading_now: Option<String>,
}

/// The entries of `base` that `now` does not keep. An entry is kept when `now` holds it as
/// it is (by digest), or with only this to it: a provenance line added where it had none
/// (`git aahp commit` stamps the session's entries, which the session may have committed
/// before), text added at its end (nothing of it lost), or spans replaced by
/// `[redacted: REASON]` markers (the way out for a secret, as in the archive). Every other
/// change, a provenance line it had included, loses what the entry said. Linear in the two
/// journals: only entries whose digest `now` lacks are compared, with the entries under
/// the same heading (any entry holding a marker for a redaction).
pub fn lost_entries(base: &LogFile, now: &LogFile) -> Vec<LostEntry> {
    use std::collections::{HashMap, HashSet};
    let digests: HashSet<&str> = now.entries.iter().map(LogEntry::digest_ref).collect();
    let mut by_heading: HashMap<&str, Vec<&LogEntry>> = HashMap::new();
    for e in &now.entries {
        by_heading.entry(e.header.as_str()).or_default().push(e);
    }
    let marked: Vec<&LogEntry> = now
        .entries
        .iter()
        .filter(|e| !super::log::redaction_reasons(&e.text).is_empty())
        .collect();
    // The new headings' entries by their text below the heading, for an entry whose
    // heading alone changed; built once, when an entry lacks both digest and heading.
    let base_headings: HashSet<&str> = base.entries.iter().map(|e| e.header.as_str()).collect();
    let mut renamed: Option<HashMap<String, &str>> = None;
    let mut lost = Vec::new();
    for old in &base.entries {
        if digests.contains(old.digest_ref()) {
            continue;
        }
        let same_heading = by_heading.get(old.header.as_str());
        let grown = |e: &&LogEntry| {
            let (then, now) = if has_provenance(&old.text) {
                (words(&old.text), words(&e.text))
            } else {
                (strip_provenance(&old.text), strip_provenance(&e.text))
            };
            now == then
                || now
                    .strip_prefix(&then)
                    .is_some_and(|rest| rest.starts_with(' '))
        };
        let redacted = |e: &&LogEntry| super::log::is_redaction_of(&e.text, &old.text);
        let kept = same_heading.is_some_and(|c| c.iter().any(|e| grown(e) || redacted(e)))
            || marked.iter().any(redacted);
        if !kept {
            let heading_now = if same_heading.is_some() {
                None
            } else {
                let bodies = renamed.get_or_insert_with(|| {
                    let mut m = HashMap::new();
                    for e in now.entries.iter().rev() {
                        if !base_headings.contains(e.header.as_str()) {
                            m.insert(words(body(&e.text)), e.header.as_str());
                        }
                    }
                    m
                });
                bodies
                    .get(&words(body(&old.text)))
                    .map(|h| (*h).to_string())
            };
            lost.push(LostEntry {
                header: old.header.clone(),
                sha256: old.digest(),
                rewritten: same_heading.is_some(),
                heading_now,
            });
        }
    }
    lost
}

/// An entry's text below its heading line.
fn body(entry_text: &str) -> &str {
    entry_text.split_once('\n').map_or("", |(_, b)| b)
}

/// The words of a text, one space apart.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_text_is_one_entry_and_a_heading_of_another_is_refused() {
        assert!(check_one_entry("Parser done\n\n### Details\n\n- lexer, then ## inline").is_ok());
        assert!(check_one_entry("Parser done").is_ok());
        let forged = "Parser done\n\n---\n\n## [2030-01-01] mallory: forged\n\nx";
        let err = check_one_entry(forged).unwrap_err();
        assert!(err.contains("## [2030-01-01] mallory: forged"), "{err}");
    }

    fn prov() -> Provenance {
        Provenance {
            agent: "claude".into(),
            session_id: "s-1".into(),
            timestamp: "2026-11-22T10:00:00Z".into(),
            commit_before: "abc1234".into(),
        }
    }

    const LOG: &str = "# Log\n\nNewest first.\n\n---\n\n## [2026-11-22] claude: New work\n\nDid it.\n\n---\n\n## [2026-11-20] old: Before\n\nEarlier.\n";

    /// What keeps an entry of the base (stamped, added to, redacted, moved) and what loses
    /// it (removed, reworded, its stamp changed), named by heading.
    #[test]
    fn lost_entries_are_the_removed_and_the_rewritten() {
        let base = LogFile::parse(LOG);
        let lost = |now: &str| -> Vec<(String, bool)> {
            lost_entries(&base, &LogFile::parse(now))
                .into_iter()
                .map(|l| (l.header, l.rewritten))
                .collect()
        };
        let stamped = stamp_entry(LOG, 1, &prov().line());
        for kept in [
            LOG.to_string(),
            stamped.clone(),
            LOG.replace("Earlier.\n", "Earlier.\n\nAnd later, more.\n"),
            LOG.replace("Did it.", "Did [redacted: a secret]."),
            format!(
                "## [2026-11-23] x: Newer\n\nx\n\n{}",
                LOG.replace("# Log\n\nNewest first.\n\n---\n\n", "")
            ),
        ] {
            assert_eq!(lost(&kept), [], "{kept}");
        }
        let before = "## [2026-11-20] old: Before".to_string();
        assert_eq!(
            lost(&LOG.replace("Earlier.", "Nothing happened.")),
            [(before.clone(), true)]
        );
        let cut = &LOG[..LOG.find("## [2026-11-20]").unwrap()];
        assert_eq!(lost(cut), [(before.clone(), false)]);
        // Its heading alone changed: the new heading is named.
        let renamed = lost_entries(
            &base,
            &LogFile::parse(&LOG.replace("old: Before", "old: Before, renamed")),
        );
        assert_eq!(renamed.len(), 1);
        assert_eq!(renamed[0].header, before);
        assert_eq!(
            renamed[0].heading_now.as_deref(),
            Some("## [2026-11-20] old: Before, renamed")
        );
        assert!(!renamed[0].rewritten);
        // A new heading over other text is no rename.
        let other = LOG.replace("old: Before\n\nEarlier.", "old: Other\n\nLater.");
        assert_eq!(
            lost_entries(&base, &LogFile::parse(&other))[0].heading_now,
            None
        );
        // A stamp the base holds is part of the entry: changing it rewrites it.
        let stamped_base = LogFile::parse(&stamped);
        let restamped = stamped.replace("agent `claude`", "agent `mallory`");
        let lost_stamp = lost_entries(&stamped_base, &LogFile::parse(&restamped));
        assert_eq!(lost_stamp.len(), 1);
        assert!(lost_stamp[0].rewritten);
        assert_eq!(lost_stamp[0].sha256, stamped_base.entries[1].digest());
    }

    #[test]
    fn new_entries_are_those_the_base_lacks() {
        let before = "# Log\n\n## [2026-11-20] old: Before\n\nEarlier.\n";
        assert_eq!(new_entries(Some(before), LOG), [0]);
        assert_eq!(new_entries(Some(LOG), LOG), Vec::<usize>::new());
        let stamped = stamp_entry(LOG, 0, &prov().line());
        assert_eq!(new_entries(Some(LOG), &stamped), Vec::<usize>::new());
    }

    #[test]
    fn stamping_an_entry_is_idempotent_and_keeps_the_rest() {
        let once = stamp_entry(LOG, 0, &prov().line());
        assert!(once.contains("## [2026-11-22] claude: New work\n\nProvenance: agent `claude`, session `s-1`, 2026-11-22T10:00:00Z, commit before `abc1234`.\n\nDid it.\n"), "{once}");
        assert!(once.ends_with("## [2026-11-20] old: Before\n\nEarlier.\n"));
        assert_eq!(stamp_entry(&once, 0, &prov().line()), once);
        assert!(has_provenance(&LogFile::parse(&once).entries[0].text));
        assert!(!has_provenance(&LogFile::parse(&once).entries[1].text));
    }

    #[test]
    fn stamping_several_entries_at_once_is_stamping_each() {
        let before = "# Log\n\n## [2026-11-20] old: Before\n\nEarlier.\n";
        let now = format!(
            "# Log\n\n{}## [2026-11-20] old: Before\n\nEarlier.\n",
            "## [2026-11-22] a: Same\n\nSame.\n\n---\n\n".repeat(3)
        );
        let line = prov().line();
        let mut one_by_one = now.clone();
        for i in [0, 1, 2] {
            one_by_one = stamp_entry(&one_by_one, i, &line);
        }
        let at_once = stamp_entries(&now, &new_entries(Some(before), &now), &line);
        assert_eq!(at_once, one_by_one);
        assert_eq!(LogFile::parse(&at_once).entries.len(), 4);
        assert!(at_once.ends_with("## [2026-11-20] old: Before\n\nEarlier.\n"));
        assert_eq!(stamp_entries(&now, &[], &line), now);
    }

    #[test]
    fn a_new_entry_goes_under_the_preamble() {
        let out = prepend_entry(
            LOG,
            "2026-11-23",
            "codex",
            "Fixed the parser\nTests pass.",
            &prov().line(),
        );
        let log = LogFile::parse(&out);
        assert_eq!(log.entries.len(), 3);
        assert_eq!(
            log.entries[0].header,
            "## [2026-11-23] codex: Fixed the parser"
        );
        assert!(log.entries[0].text.contains("Tests pass."));
        assert!(
            out.starts_with("# Log\n\nNewest first.\n\n---\n\n## [2026-11-23]"),
            "{out}"
        );
        let empty = prepend_entry("# Log\n", "2026-11-23", "a", "One line", &prov().line());
        assert_eq!(LogFile::parse(&empty).entries.len(), 1, "{empty}");
    }

    #[test]
    fn status_summary_gets_one_provenance_line() {
        let text = "# S\n\n<!-- SECTION: summary -->\nBuild green.\n<!-- /SECTION: summary -->\n\n## More\n";
        let once = stamp_status(text, &prov().line()).unwrap();
        assert_eq!(
            once,
            "# S\n\n<!-- SECTION: summary -->\nBuild green.\n\nProvenance: agent `claude`, session `s-1`, 2026-11-22T10:00:00Z, commit before `abc1234`.\n<!-- /SECTION: summary -->\n\n## More\n"
        );
        assert_eq!(stamp_status(&once, &prov().line()).unwrap(), once);
        assert_eq!(
            without_provenance(&once),
            "# S\n\n<!-- SECTION: summary -->\nBuild green.\n\n<!-- /SECTION: summary -->\n\n## More\n"
        );
        assert!(stamp_status("# S\n\nno section\n", "x").is_none());
    }
}
