//! `LOG.md`, `LOG-ARCHIVE.md` and `LOG-ARCHIVE.index.json`: entries, digests, rotation and
//! the archive integrity check. Pure text in, text out; reading and writing the files is the
//! caller's job (`commands::archive`, `commit`, `recover`).
//!
//! Compatible with the reference (research notes §3.3–3.4): the same entry digest, index
//! layout and default archive preamble. Better than it where it is wrong: rotation keeps the
//! *newest* entries by date, code fences are not entry boundaries, forged archive entries
//! are detected, and kept entries are left byte for byte as they were.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use jiff::civil::Date;
use serde::Serialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::hex;
use super::markdown::{self, Line};
use crate::error::Error;

/// The journal's file name.
pub const LOG_FILE: &str = "LOG.md";
/// The archive's file name.
pub const ARCHIVE_FILE: &str = "LOG-ARCHIVE.md";
/// The archive index's file name.
pub const INDEX_FILE: &str = "LOG-ARCHIVE.index.json";
/// How many entries LOG.md keeps when nothing else is configured (SPEC §2).
pub const DEFAULT_KEEP: usize = 10;
/// The preamble of a new archive (the reference writes the same).
pub const DEFAULT_ARCHIVE_PREAMBLE: &str = "# AAHP: Archived Agent Journal\n\n> Older entries rotated from LOG.md. Append-only.\n\n---\n\n";
/// What separates entries written by this tool.
const SEPARATOR: &str = "\n\n---\n\n";

/// One journal entry: from a dated `## ` heading to the next one.
#[derive(Debug, Clone)]
pub struct LogEntry {
    /// The heading line, trimmed (the index's `title`).
    pub header: String,
    /// The date in the heading; `None` when the heading's date is not a calendar date.
    pub date: Option<Date>,
    /// The entry with newlines normalised, trailing blanks and `---` separators removed:
    /// the text its digest covers and the form written into the archive.
    pub text: String,
    /// 1-based line of the heading in the file.
    pub line: usize,
    /// The entry exactly as it appears in the file (separators and line endings included).
    pub raw: String,
    /// The digest of `text`, computed when first asked for (issue #14: `commit` parses
    /// LOG.md several times and most parses never look at a digest).
    digest: std::sync::OnceLock<String>,
}

/// The digest is a function of `text`, so it takes no part in equality.
impl PartialEq for LogEntry {
    fn eq(&self, other: &Self) -> bool {
        self.header == other.header
            && self.date == other.date
            && self.text == other.text
            && self.line == other.line
            && self.raw == other.raw
    }
}

impl Eq for LogEntry {}

/// A parsed journal (LOG.md or LOG-ARCHIVE.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFile {
    /// Everything before the first entry, exactly as in the file (without a BOM).
    pub preamble: String,
    /// The entries in file order.
    pub entries: Vec<LogEntry>,
    /// Whether the file started with a UTF-8 byte order mark.
    pub bom: bool,
    /// The line terminator the file uses (`"\n"` or `"\r\n"`); new text is written with it.
    pub line_ending: &'static str,
    /// Level-2 headings in the preamble that are not entry templates: with no dated entry,
    /// they mean the journal's entries are undated (line, heading).
    stray_headings: Vec<(usize, String)>,
}

/// The outcome of a rotation: the new content of the three files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rotation {
    /// New LOG.md.
    pub log: String,
    /// New LOG-ARCHIVE.md (empty after [`rotate_onto_trusted`], which changes it by
    /// [`Rotation::archive_splice`] alone).
    pub archive: String,
    /// New LOG-ARCHIVE.index.json (empty after [`rotate_onto_trusted`], like `archive`).
    pub index: String,
    /// Length of the new LOG-ARCHIVE.md in bytes.
    pub archive_len: usize,
    /// Length of the new index in bytes.
    pub index_len: usize,
    /// How many entries left LOG.md.
    pub moved: usize,
    /// The entries that left LOG.md, newest first.
    pub moved_entries: Vec<MovedEntry>,
    /// How many entries LOG.md keeps.
    pub kept: usize,
    /// Archive entries that were not indexed and now are (an index built for an existing
    /// archive, or the residue of an interrupted rotation).
    pub adopted: usize,
    /// Whether LOG.md changed (write it when true).
    pub log_changed: bool,
    /// Whether LOG-ARCHIVE.md changed.
    pub archive_changed: bool,
    /// Whether LOG-ARCHIVE.index.json changed.
    pub index_changed: bool,
    /// How `archive` extends the old LOG-ARCHIVE.md in place (`None`: written whole, as
    /// when it is new).
    pub archive_splice: Option<Splice>,
    /// How `index` extends the old index in place (`None`: written whole, as when it is
    /// new, in the legacy layout or adopts entries).
    pub index_splice: Option<Splice>,
    /// Entries in the archive afterwards, when known without parsing it.
    pub archived: Option<usize>,
}

/// An in-place extension of a file: its first `keep` bytes stay as they are and `text`
/// replaces whatever followed them. The archive and its index only ever grow this way, so
/// a rotation costs what it moves, not what was archived before (issue #14).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice {
    /// Bytes of the old file kept unchanged.
    pub keep: usize,
    /// What follows them in the new file.
    pub text: String,
    /// What followed them in the old file (the index's closing `]` and `}`): written back
    /// to roll the splice back.
    pub old_tail: String,
}

/// An entry moved into the archive, as reported to the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MovedEntry {
    /// Its digest (lowercase hex).
    pub sha256: String,
    /// Its heading.
    pub title: String,
    /// Its date.
    pub date: Option<String>,
    /// Its line in LOG.md before the rotation.
    pub line: usize,
}

/// Something wrong with the journal and its archive, found by [`verify_archive`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ArchiveProblem {
    /// A file cannot be interpreted (bad JSON, wrong index layout, undated entries).
    Malformed {
        /// File name within the handoff directory.
        file: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// An archive entry the index does not list (or an extra copy of one: the index lists
    /// it fewer times than the archive holds it): added by hand or altered after archiving.
    Forged {
        /// The entry's digest.
        sha256: String,
        /// Its heading.
        title: String,
        /// Its line in LOG-ARCHIVE.md.
        line: usize,
    },
    /// An index entry with no archive entry of that digest (or one listed more times than
    /// the archive holds it): deleted or altered.
    Missing {
        /// The indexed digest.
        sha256: String,
        /// The indexed title.
        title: String,
    },
    /// LOG-ARCHIVE.md holds entries but there is no index for them.
    Unindexed {
        /// How many archive entries have no index.
        entries: usize,
    },
    /// `git aahp archive` was interrupted between renaming its files into place: LOG.md,
    /// the archive and the index do not belong together until it is completed.
    Interrupted,
    /// `archive --reindex`: an archive entry changed in a way that is not a deliberate
    /// redaction, so the index must keep calling it forged.
    NotRedaction {
        /// Its heading.
        title: String,
        /// Its line in LOG-ARCHIVE.md.
        line: usize,
        /// Why it is not a redaction.
        why: String,
    },
    /// An archived entry leaves an HTML comment or block open: a rendered archive hides (or
    /// reads as part of it) every entry after it, those a rotation would append included.
    LeftOpen {
        /// Its heading.
        title: String,
        /// The line in LOG-ARCHIVE.md where what it leaves open starts.
        line: usize,
        /// What it leaves open.
        what: markdown::LeftOpen,
    },
    /// LOG.md holds more entries than it may keep.
    OverLimit {
        /// Entries in LOG.md.
        entries: usize,
        /// The limit.
        keep: usize,
    },
}

impl ArchiveProblem {
    /// The file the problem is in.
    pub fn file(&self) -> &str {
        match self {
            ArchiveProblem::Malformed { file, .. } => file,
            ArchiveProblem::Forged { .. }
            | ArchiveProblem::NotRedaction { .. }
            | ArchiveProblem::LeftOpen { .. }
            | ArchiveProblem::Unindexed { .. } => ARCHIVE_FILE,
            ArchiveProblem::Missing { .. } => INDEX_FILE,
            ArchiveProblem::Interrupted | ArchiveProblem::OverLimit { .. } => LOG_FILE,
        }
    }

    /// The 1-based line the problem is on, when there is one.
    pub fn line(&self) -> Option<usize> {
        match self {
            ArchiveProblem::Malformed { line, .. } => *line,
            ArchiveProblem::Forged { line, .. }
            | ArchiveProblem::NotRedaction { line, .. }
            | ArchiveProblem::LeftOpen { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// True when the input cannot be interpreted at all (exit 2 rather than 1).
    pub fn is_malformed(&self) -> bool {
        matches!(self, ArchiveProblem::Malformed { .. })
    }

    /// One sentence describing the problem (handoff text in it is not escaped).
    pub fn message(&self) -> String {
        match self {
            ArchiveProblem::Malformed { message, .. } => message.clone(),
            ArchiveProblem::Forged { title, .. } => {
                format!("archived entry is not in {INDEX_FILE} (forged or edited): {title}")
            }
            ArchiveProblem::Missing { sha256, title } => format!(
                "indexed entry {} is missing from {ARCHIVE_FILE} (deleted or edited): {title}",
                &sha256[..sha256.len().min(12)]
            ),
            ArchiveProblem::NotRedaction { title, why, .. } => {
                format!("archived entry changed, and not by a redaction ({why}): {title}")
            }
            ArchiveProblem::LeftOpen { title, what, .. } => {
                let (opens, effect, fix) = match what {
                    markdown::LeftOpen::Comment => (
                        "an HTML comment here (`<!--`) that it never closes",
                        "hides every entry after it, and would hide every entry archived after it",
                        "Close it (a line `-->` at the end of the entry)",
                    ),
                    markdown::LeftOpen::Block => (
                        "an HTML block here (`<pre>`, `<script>`, `<style>`, `<textarea>`, `<?`, \
                         `<!…`) that it never ends",
                        "reads every entry after it as part of it, every entry archived after it too",
                        "End it (its closing tag or marker at the end of the entry)",
                    ),
                };
                format!(
                    "the archived entry `{title}` opens {opens}: the rendered archive {effect}. \
                     {fix}, then run `git aahp archive --reindex`"
                )
            }
            ArchiveProblem::Unindexed { entries } => format!(
                "{entries} archived entries and no {INDEX_FILE}; `git aahp archive` builds it"
            ),
            ArchiveProblem::Interrupted => format!(
                "an interrupted `git aahp archive` left {LOG_FILE}, {ARCHIVE_FILE} and {INDEX_FILE} half rotated; rerun `git aahp archive` (or `git aahp recover`) to complete it"
            ),
            ArchiveProblem::OverLimit { entries, keep } => format!(
                "{LOG_FILE} has {entries} entries, more than the {keep} it keeps; run `git aahp archive`"
            ),
        }
    }
}

/// Why a rotation did not happen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    /// A file cannot be interpreted.
    #[error("{file}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Malformed {
        /// File name within the handoff directory.
        file: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// The archive and its index disagree; rotating would bury the damage.
    #[error("the log archive is inconsistent ({} problem(s)); nothing was changed", .0.len())]
    Integrity(Vec<ArchiveProblem>),
    /// `keep` must be at least 1.
    #[error("the number of entries to keep must be at least 1")]
    ZeroKeep,
    /// The rotated files fail the hash check (a bug; nothing must be written).
    #[error("archive postcondition failed: {0}")]
    Postcondition(String),
}

impl LogError {
    /// Converts to the crate error, naming files with `path_of` (repository-relative paths).
    pub fn into_error(self, path_of: impl Fn(&str) -> String) -> Error {
        match self {
            LogError::Malformed {
                file,
                line,
                message,
            } => Error::invalid(path_of(&file), line, message),
            LogError::ZeroKeep => Error::Usage(LogError::ZeroKeep.to_string()),
            // Each problem named where it is, as `archive --verify` names it: a count alone
            // left the user to find out what stopped `commit`.
            LogError::Integrity(problems) => {
                let listed: Vec<String> = problems
                    .iter()
                    .map(|p| match p.line() {
                        Some(l) => format!("\n  {}:{l}: {}", path_of(p.file()), p.message()),
                        None => format!("\n  {}: {}", path_of(p.file()), p.message()),
                    })
                    .collect();
                Error::other(format!(
                    "the log archive is inconsistent; nothing was changed:{}\n`git aahp archive \
                     --verify` checks the archive again once it is repaired",
                    listed.concat()
                ))
            }
            other @ LogError::Postcondition(_) => Error::other(other.to_string()),
        }
    }
}

impl From<LogError> for Error {
    fn from(e: LogError) -> Self {
        e.into_error(str::to_string)
    }
}

/// Python's `str.isspace` for the characters it adds to Unicode `White_Space`, so trimming
/// matches the reference's `strip()` and digests agree.
pub(crate) fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// What [`heading_date`] found on a line.
pub(crate) enum Heading {
    /// No entry heading.
    None,
    /// An entry heading; its date, `None` when the date is not a calendar date.
    Entry(Option<Date>),
}

/// The date an entry heading starts with: `## [YYYY-MM-DD]…` (the reference's form) or
/// `## YYYY-MM-DD…` (seen in real journals).
pub(crate) fn heading_date(line: &str) -> Heading {
    let Some(rest) = line.strip_prefix("## ") else {
        return Heading::None;
    };
    let (digits, bracketed) = match rest.strip_prefix('[') {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let b = digits.as_bytes();
    let shape = b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit);
    let closed = if bracketed {
        b.get(10) == Some(&b']')
    } else {
        !b.get(10).is_some_and(u8::is_ascii_digit)
    };
    if !shape || !closed {
        return Heading::None;
    }
    Heading::Entry(digits[..10].parse::<Date>().ok())
}

/// Normalises an entry: newlines to `\n`, trailing blanks and `---` separators removed.
pub(crate) fn entry_text(raw: &str) -> String {
    let text = markdown::normalize_newlines(raw);
    let mut t = text.trim_end_matches(is_py_space);
    while let Some(s) = t.strip_suffix("---") {
        t = s.trim_end_matches(is_py_space);
    }
    t.to_string()
}

/// The reference's entry digest: SHA-256 of the normalised, trimmed text plus one `\n`.
fn digest_of(text: &str) -> String {
    let mut h = Sha256::new();
    h.update(text.trim_matches(is_py_space).as_bytes());
    h.update(b"\n");
    hex(&h.finalize())
}

impl LogEntry {
    /// The entry whose heading line is `heading` (dated `date`, at 1-based `line`) and whose
    /// text in the file is `raw`, as [`LogFile::parse`] builds it.
    pub(crate) fn from_raw(
        heading: &str,
        date: Option<Date>,
        line: usize,
        raw: String,
    ) -> LogEntry {
        LogEntry {
            header: heading.trim_matches(is_py_space).to_string(),
            date,
            text: entry_text(&raw),
            line,
            raw,
            digest: std::sync::OnceLock::new(),
        }
    }

    /// Returns the entry's digest as the reference computes it (lowercase hex SHA-256 of the
    /// normalised text, trimmed, plus `\n`).
    pub fn digest(&self) -> String {
        self.digest_str().to_string()
    }

    /// The digest, borrowed (see [`LogEntry::digest`]).
    pub(crate) fn digest_ref(&self) -> &str {
        self.digest_str()
    }

    fn digest_str(&self) -> &str {
        self.digest.get_or_init(|| digest_of(&self.text))
    }

    fn moved(&self) -> MovedEntry {
        MovedEntry {
            sha256: self.digest(),
            title: self.header.clone(),
            date: self.date.map(|d| d.to_string()),
            line: self.line,
        }
    }
}

impl LogFile {
    /// Parses a journal. Never fails: text before the first dated `## ` heading is the
    /// preamble; headings inside fenced code blocks do not start entries.
    pub fn parse(text: &str) -> LogFile {
        let (bom, text) = match text.strip_prefix('\u{feff}') {
            Some(t) => (true, t),
            None => (false, text),
        };
        let lines = markdown::lines(text);
        let mask = markdown::code_mask(&lines);
        let starts: Vec<(usize, Option<Date>)> = lines
            .iter()
            .enumerate()
            .filter(|(i, _)| !mask[*i])
            .filter_map(|(i, l)| match heading_date(l.text) {
                Heading::Entry(d) => Some((i, d)),
                Heading::None => None,
            })
            .collect();
        let first = starts.first().map_or(text.len(), |(i, _)| lines[*i].start);
        let preamble = text[..first].to_string();
        let entries = starts
            .iter()
            .enumerate()
            .map(|(k, &(i, date))| {
                let end = starts
                    .get(k + 1)
                    .map_or(text.len(), |(j, _)| lines[*j].start);
                let raw = &text[lines[i].start..end];
                let text = entry_text(raw);
                LogEntry {
                    header: lines[i].text.trim_matches(is_py_space).to_string(),
                    date,
                    digest: std::sync::OnceLock::new(),
                    text,
                    line: i + 1,
                    raw: raw.to_string(),
                }
            })
            .collect();
        let stray_headings = preamble_headings(&lines, &mask, first);
        LogFile {
            preamble,
            entries,
            bom,
            line_ending: markdown::line_ending(text),
            stray_headings,
        }
    }

    /// Checks that every entry is dated, naming the file and line of the first that is not;
    /// a journal whose headings carry no dates at all is refused too (rotation by date would
    /// be guesswork).
    pub fn check_dated(&self, file: &str) -> Result<(), LogError> {
        if let Some(e) = self.entries.iter().find(|e| e.date.is_none()) {
            return Err(undated(file, e));
        }
        if self.entries.is_empty()
            && let Some((line, heading)) = self.stray_headings.first()
        {
            return Err(no_dated_entries(file, *line, heading));
        }
        Ok(())
    }

    /// Renders the file from its preamble and the given entries (raw, in the given order).
    fn render_with<'a>(&self, entries: impl Iterator<Item = &'a LogEntry>) -> String {
        let mut out = String::new();
        if self.bom {
            out.push('\u{feff}');
        }
        out.push_str(&self.preamble);
        for e in entries {
            out.push_str(&e.raw);
        }
        out
    }

    /// Returns the entries' digests in file order.
    pub fn digests(&self) -> Vec<String> {
        self.entries.iter().map(LogEntry::digest).collect()
    }
}

/// The error of [`LogFile::check_dated`] for an entry whose heading has no valid date.
pub(crate) fn undated(file: &str, e: &LogEntry) -> LogError {
    LogError::Malformed {
        file: file.into(),
        line: Some(e.line),
        message: format!(
            "entry heading `{}` does not start with a valid date (YYYY-MM-DD)",
            e.header
        ),
    }
}

/// The error of [`LogFile::check_dated`] for a journal with no entries but a level-2
/// heading that is not one.
pub(crate) fn no_dated_entries(file: &str, line: usize, heading: &str) -> LogError {
    LogError::Malformed {
        file: file.into(),
        line: Some(line),
        message: format!(
            "no dated entries: `{heading}` is not an entry heading; entries start with `## [YYYY-MM-DD] agent: title`"
        ),
    }
}

/// Level-2 headings of the preamble, skipping code and the template's `YYYY-MM-DD` examples.
fn preamble_headings(lines: &[Line<'_>], mask: &[bool], end: usize) -> Vec<(usize, String)> {
    lines
        .iter()
        .enumerate()
        .take_while(|(_, l)| l.start < end)
        .filter(|(i, l)| !mask[*i] && l.text.starts_with("## ") && !l.text.contains("YYYY-MM-DD"))
        .map(|(i, l)| (i + 1, l.text.trim().to_string()))
        .collect()
}

/// One line of the archive index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexEntry {
    /// Lowercase hex SHA-256 of the entry.
    pub sha256: String,
    /// The entry's heading.
    pub title: String,
}

/// `LOG-ARCHIVE.index.json`: `{"version": 1, "entries": [{"sha256", "title"}]}`, newest
/// first. Other top-level keys are kept in place when it is rewritten.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchiveIndex {
    /// The entries in file order.
    pub entries: Vec<IndexEntry>,
    /// True for a layout that predates the reference's (`{"archived": [...]}`): its
    /// entries are taken as given and it is rewritten in the current layout.
    pub legacy: bool,
    doc: Map<String, Value>,
}

impl ArchiveIndex {
    /// Parses the index, naming the line of a syntax error or of the first bad entry.
    pub fn parse(text: &str) -> Result<ArchiveIndex, LogError> {
        let malformed = |line: Option<usize>, message: String| LogError::Malformed {
            file: INDEX_FILE.into(),
            line,
            message,
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut twice = None;
        let mut de = serde_json::Deserializer::from_str(text);
        let top = TopLevel { twice: &mut twice }
            .deserialize(&mut de)
            .and_then(|top| de.end().map(|()| top));
        let top = match (top, twice) {
            (_, Some(key)) => {
                return Err(malformed(
                    line_of(text, &format!("\"{key}\""), 1),
                    format!("`{key}` appears twice"),
                ));
            }
            (Err(e), None) => {
                return Err(malformed(
                    Some(e.line().max(1)),
                    format!("invalid JSON: {e}"),
                ));
            }
            (Ok(top), None) => top,
        };
        let Some(doc) = top else {
            return Err(malformed(
                Some(1),
                "expected an object {\"version\": 1, \"entries\": [...]}".into(),
            ));
        };
        // Its other keys are written back when it is rewritten.
        super::json::refuse_inexact_numbers(text.as_bytes())
            .map_err(|e| malformed(Some(e.line()), e.to_string()))?;
        let (list, legacy) = match (doc.get("entries"), doc.get("archived")) {
            (Some(list), _) => {
                if doc.get("version").and_then(Value::as_f64) != Some(1.0) {
                    return Err(malformed(
                        line_of(text, "\"version\"", 0),
                        format!(
                            "unsupported version {}; expected 1",
                            doc.get("version").unwrap_or(&Value::Null)
                        ),
                    ));
                }
                (list, false)
            }
            (None, Some(list)) => (list, true),
            (None, None) => {
                return Err(malformed(
                    Some(1),
                    "no `entries` list; expected {\"version\": 1, \"entries\": [...]}".into(),
                ));
            }
        };
        let key = if legacy {
            "\"archived\""
        } else {
            "\"entries\""
        };
        let Value::Array(list) = list else {
            return Err(malformed(
                line_of(text, key, 0),
                format!("`{}` is not a list", key.trim_matches('"')),
            ));
        };
        let mut entries = Vec::with_capacity(list.len());
        for (n, item) in list.iter().enumerate() {
            let sha = item.get("sha256").and_then(Value::as_str);
            let sha = match sha {
                Some(s) if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) => {
                    s.to_ascii_lowercase()
                }
                _ => {
                    return Err(malformed(
                        line_of(text, "\"sha256\"", n).or_else(|| line_of(text, key, 0)),
                        format!("entry {} has no valid `sha256` (64 hex digits)", n + 1),
                    ));
                }
            };
            let title = item
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            entries.push(IndexEntry { sha256: sha, title });
        }
        Ok(ArchiveIndex {
            entries,
            legacy,
            doc,
        })
    }

    /// An index with no entries.
    pub fn empty() -> ArchiveIndex {
        ArchiveIndex {
            entries: Vec::new(),
            legacy: false,
            doc: Map::new(),
        }
    }

    /// Renders the index as the reference does: `json.dumps(indent=2)` (ASCII only) plus a
    /// newline, `version` and `entries` first, other keys kept after them.
    pub fn render(&self) -> String {
        let mut doc = Map::new();
        doc.insert("version".into(), Value::from(1));
        let entries = self
            .entries
            .iter()
            .map(|e| {
                let mut m = Map::new();
                m.insert("sha256".into(), Value::from(e.sha256.clone()));
                m.insert("title".into(), Value::from(e.title.clone()));
                Value::Object(m)
            })
            .collect();
        doc.insert("entries".into(), Value::Array(entries));
        for (k, v) in &self.doc {
            if !matches!(k.as_str(), "version" | "entries" | "archived") {
                doc.insert(k.clone(), v.clone());
            }
        }
        let pretty = serde_json::to_string_pretty(&Value::Object(doc))
            .expect("a JSON value always serialises");
        // Non-ASCII can only occur inside strings, so escaping it keeps the JSON valid.
        let mut out = ascii_only(&pretty);
        out.push('\n');
        out
    }
}

/// The index's top level, parsed as a `Value` is, but refusing a key of the layout
/// (`version`, `entries`, `archived`) given twice, as the streamed read refuses it
/// (`log_stream`): a JSON parser keeps the last, and the two reads must agree. `None` when
/// the document is not an object.
struct TopLevel<'a> {
    /// The key given twice, when that stopped the parse.
    twice: &'a mut Option<&'static str>,
}

impl<'de> DeserializeSeed<'de> for TopLevel<'_> {
    type Value = Option<Map<String, Value>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopLevel<'_> {
    type Value = Option<Map<String, Value>>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON document")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut doc = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let known = ["version", "entries", "archived"]
                .into_iter()
                .find(|k| *k == key);
            if let Some(k) = known.filter(|k| doc.contains_key(*k)) {
                *self.twice = Some(k);
                return Err(de::Error::custom("a key appears twice"));
            }
            doc.insert(key, map.next_value()?);
        }
        Ok(Some(doc))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// The line of the `n`-th occurrence of `needle`, for messages about JSON values.
fn line_of(text: &str, needle: &str, n: usize) -> Option<usize> {
    let (pos, _) = text.match_indices(needle).nth(n)?;
    Some(text[..pos].matches('\n').count() + 1)
}

/// Everything known about the three files, parsed once.
struct Journal {
    log: LogFile,
    archive: LogFile,
    archive_present: bool,
    index: Option<ArchiveIndex>,
}

impl Journal {
    fn parse(log: &str, archive: Option<&str>, index: Option<&str>) -> Result<Journal, LogError> {
        let log = LogFile::parse(log);
        log.check_dated(LOG_FILE)?;
        let archive_present = archive.is_some_and(|a| !a.trim().is_empty());
        let archive = LogFile::parse(archive.unwrap_or_default());
        let index = match index {
            Some(t) if !t.trim().is_empty() => Some(ArchiveIndex::parse(t)?),
            _ => None,
        };
        Ok(Journal {
            log,
            archive,
            archive_present,
            index,
        })
    }

    /// Integrity problems of the archive against its index. Entries are counted, not
    /// collected into sets: two identical entries are two entries (issue #12, H6), so the
    /// index must list a digest exactly as many times as the archive holds it.
    fn problems(&self) -> Vec<ArchiveProblem> {
        let mut out = Vec::new();
        match &self.index {
            Some(index) if !index.legacy || !index.entries.is_empty() => {
                // The k-th archive copy of a digest matches its k-th index line; what is
                // left over on either side is a problem.
                let mut indexed = counts(index.entries.iter().map(|e| e.sha256.as_str()));
                let mut archived = counts(self.archive.entries.iter().map(LogEntry::digest_str));
                for e in &index.entries {
                    match archived.get_mut(e.sha256.as_str()) {
                        Some(n) if *n > 0 => *n -= 1,
                        _ => out.push(ArchiveProblem::Missing {
                            sha256: e.sha256.clone(),
                            title: e.title.clone(),
                        }),
                    }
                }
                for e in &self.archive.entries {
                    match indexed.get_mut(e.digest_str()) {
                        Some(n) if *n > 0 => *n -= 1,
                        _ => out.push(ArchiveProblem::Forged {
                            sha256: e.digest(),
                            title: e.header.clone(),
                            line: e.line,
                        }),
                    }
                }
            }
            _ if !self.archive.entries.is_empty() => out.push(ArchiveProblem::Unindexed {
                entries: self.archive.entries.len(),
            }),
            _ => {}
        }
        if let Some((e, (line, what))) = self
            .archive
            .entries
            .iter()
            .find_map(|e| entry_left_open(e).map(|found| (e, found)))
        {
            out.push(left_open_in_archive(e, line, what));
        }
        out
    }
}

/// Counts how often each digest occurs.
fn counts<'a>(digests: impl Iterator<Item = &'a str>) -> HashMap<&'a str, usize> {
    let mut out = HashMap::new();
    for d in digests {
        *out.entry(d).or_insert(0) += 1;
    }
    out
}

/// Returns the indices of the entries to keep: the newest `keep` by date, ties broken by
/// file order (earlier is newer in a newest-first journal).
fn newest(entries: &[LogEntry], keep: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by(|&a, &b| entries[b].date.cmp(&entries[a].date).then(a.cmp(&b)));
    order.truncate(keep);
    order
}

/// Rotates LOG.md so that its newest `keep` entries remain (by date, then file order) and
/// the rest move into the archive and the index. Returns `None` when there is nothing to do.
///
/// The archive is append-only: the moved entries (oldest first) go after everything it
/// already holds, and their index entries at the end of the index's `entries` list, so the
/// old bytes of both files stay as they are ([`Rotation::archive_splice`],
/// [`Rotation::index_splice`]). Archives written newest first (the reference's layout) are
/// extended the same way; every reader takes the entries in either order.
///
/// Every entry that leaves LOG.md is archived, even when an identical entry is kept or was
/// archived before: entries are told apart by position, and the index lists a digest as
/// many times as the archive holds it (issue #12, H6). Kept entries stay byte for byte as
/// they were, and so do archived ones; new text uses each file's line endings.
///
/// # Crash safety
/// The three results belong together: applying only some of them and rotating again would
/// archive entries twice. `commands::archive` stages them and applies them under a
/// rotation journal; `commit` rotates under its own journal, which `recover` rolls back.
pub fn rotate(
    log: &str,
    archive: Option<&str>,
    index: Option<&str>,
    keep: usize,
) -> Result<Option<Rotation>, LogError> {
    rotate_checked(log, archive, index, keep, true)
}

/// [`rotate`], with its postcondition (the rotation compared entry by entry with its
/// input, which hashes every entry again) only when `check`: `commit` plans the rotation
/// once before anything changes, to refuse bad input (a damaged archive, an entry it cannot
/// read) the way [`rotate`] does, and needs the check only on the rotation it writes, which
/// it makes with `check` set, under its journal (issue #14).
pub fn rotate_checked(
    log: &str,
    archive: Option<&str>,
    index: Option<&str>,
    keep: usize,
    check: bool,
) -> Result<Option<Rotation>, LogError> {
    if keep == 0 {
        return Err(LogError::ZeroKeep);
    }
    let j = Journal::parse(log, archive, index)?;
    let (kept_set, moved) = split(&j.log, keep);
    refuse_unclosed_blocks(&moved)?;

    // Refuse to build on a damaged archive; an archive without an index is not damage (the
    // index is built for it).
    let blocking: Vec<ArchiveProblem> = j
        .problems()
        .into_iter()
        .filter(|p| !matches!(p, ArchiveProblem::Unindexed { .. }))
        .collect();
    if !blocking.is_empty() {
        return Err(LogError::Integrity(blocking));
    }

    let adopted = adopted_entries(&j);
    if moved.is_empty() && adopted.is_empty() {
        return Ok(None);
    }
    let appended: Vec<&LogEntry> = moved.iter().rev().copied().collect();
    let changed = !moved.is_empty();
    let (archive_text, archive_splice) = if !changed {
        (archive.unwrap_or_default().to_string(), None)
    } else if j.archive_present {
        let old = archive.unwrap_or_default();
        let text = archive_suffix(old, &appended);
        (
            format!("{old}{text}"),
            Some(Splice {
                keep: old.len(),
                text,
                old_tail: String::new(),
            }),
        )
    } else {
        (new_archive(&appended), None)
    };
    let new_index: Vec<IndexEntry> = appended.iter().map(|e| as_index(e)).collect();
    let splice = match (&j.index, index) {
        (Some(old), Some(src)) if !old.legacy && adopted.is_empty() => index_end(src.as_bytes())
            .map(|end| Splice {
                keep: end.cut,
                text: format!(
                    "{}{}",
                    index_insertion(end.empty, &new_index),
                    &src[end.cut..]
                ),
                old_tail: src[end.cut..].to_string(),
            }),
        _ => None,
    };
    let (index_text, index_splice) = if let Some(s) = splice {
        let src = index.unwrap_or_default();
        (format!("{}{}", &src[..s.keep], s.text), Some(s))
    } else {
        let mut full = j.index.clone().unwrap_or_else(ArchiveIndex::empty);
        full.entries.extend(adopted.iter().map(|e| as_index(e)));
        full.entries.extend(new_index);
        full.legacy = false;
        (full.render(), None)
    };
    let rotation = Rotation {
        log: if changed {
            j.log.render_with(
                j.log
                    .entries
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| kept_set.contains(i))
                    .map(|(_, e)| e),
            )
        } else {
            log.to_string()
        },
        archive_len: archive_text.len(),
        index_len: index_text.len(),
        archive: archive_text,
        index: index_text,
        moved: moved.len(),
        moved_entries: moved.iter().map(|e| e.moved()).collect(),
        kept: kept_set.len(),
        adopted: adopted.len(),
        log_changed: changed,
        archive_changed: changed,
        index_changed: true,
        archive_splice,
        index_splice,
        archived: None,
    };
    if check {
        check_rotation(
            log,
            archive,
            &rotation.log,
            &rotation.archive,
            &rotation.index,
            keep,
        )
        .map_err(|e| explain_failed_check(archive, e))?;
    }
    Ok(Some(rotation))
}

/// Refuses to archive an entry that opens a code fence it never closes: in the archive,
/// appended before others, it would pair with their fences and change how they read (and
/// as the archive's last entry, with every entry appended after it). So with an HTML
/// comment its raw HTML never closes (a heading inside a comment splits it, as the
/// reference splits entries) or an HTML block that runs to its end tag ([`markdown::left_open`]):
/// a rendered archive would hide or swallow every entry after it. Named with LOG.md's line
/// and the fix (exit 2), while the entry can still be edited.
fn refuse_unclosed_blocks(moved: &[&LogEntry]) -> Result<(), LogError> {
    for entry in moved {
        let lines = markdown::lines(&entry.raw);
        let refuse = |i: usize, what: &str| LogError::Malformed {
            file: LOG_FILE.to_string(),
            line: Some(entry.line + i),
            message: format!(
                "the entry `{}` {what}",
                crate::output::escape_untrusted(&entry.header)
            ),
        };
        if let Some(i) = markdown::unclosed_fence(&lines) {
            return Err(refuse(
                i,
                "opens a code fence here that it never closes; archived beside other \
                 entries it would pair with their fences and change how they read: close it \
                 (a line of ``` after the code) and rerun",
            ));
        }
        if let Some((line, what)) = entry_left_open(entry) {
            return Err(refuse(
                line - entry.line,
                match what {
                    markdown::LeftOpen::Comment => {
                        "opens an HTML comment here (`<!--`) that it never closes (a log \
                         heading inside a comment still starts an entry, as the reference \
                         splits them); archived, it would hide every entry after it when the \
                         archive is rendered: close it (`-->`) before the next `## [` heading \
                         and rerun"
                    }
                    markdown::LeftOpen::Block => {
                        "opens an HTML block here (`<pre>`, `<script>`, `<style>`, \
                         `<textarea>`, `<?`, `<!…`) that it never ends; archived, every entry \
                         after it would be read as part of it when the archive is rendered: end \
                         it (its closing tag or marker) and rerun"
                    }
                },
            ));
        }
    }
    Ok(())
}

/// Where `entry` leaves an HTML comment or an HTML block open ([`markdown::left_open`]):
/// the line in its file, and what it is. Only an entry holding `<!`, `<?` or `<` before
/// the first letter of `pre`, `script`, `style` or `textarea` can, so only those are parsed:
/// every whole read of an archive asks this of each of its entries.
pub(crate) fn entry_left_open(entry: &LogEntry) -> Option<(usize, markdown::LeftOpen)> {
    let b = entry.raw.as_bytes();
    let may_open = entry.raw.match_indices('<').any(|(i, _)| {
        b.get(i + 1)
            .is_some_and(|c| matches!(c.to_ascii_lowercase(), b'!' | b'?' | b'p' | b's' | b't'))
    });
    if !may_open {
        return None;
    }
    let (at, what) = markdown::left_open(&entry.raw)?;
    let lines = markdown::lines(&entry.raw);
    Some((entry.line + lines.partition_point(|l| l.next <= at), what))
}

/// Whether the last entry of an archive's `tail` leaves an HTML comment or block open, so
/// that what a rotation appends would be hidden: the rotation is then left to the whole
/// read, which names the entry ([`left_open_in_archive`]). An archive that HEAD holds was
/// judged when it was committed, but one written by the reference or by hand before this
/// check may end so.
fn last_entry_left_open(tail: &str) -> bool {
    LogFile::parse(tail)
        .entries
        .last()
        .is_some_and(|e| entry_left_open(e).is_some())
}

/// The problem of an archived entry that leaves an HTML comment or block open (`line`, in
/// LOG-ARCHIVE.md). Its message names the repair `archive --reindex` accepts (closing lines
/// added to an indexed entry).
pub(crate) fn left_open_in_archive(
    entry: &LogEntry,
    line: usize,
    what: markdown::LeftOpen,
) -> ArchiveProblem {
    ArchiveProblem::LeftOpen {
        title: entry.header.clone(),
        line,
        what,
    }
}

/// A failed postcondition is a bug unless the cause is in the input: an archive that ends
/// inside a code fence it never closes (an entry archived before that was refused) reads
/// the entries appended after it as code. That is named with the archive's line and how to
/// repair it (exit 2); anything else stays the postcondition's error.
fn explain_failed_check(archive: Option<&str>, e: LogError) -> LogError {
    if !matches!(e, LogError::Postcondition(_)) {
        return e;
    }
    let Some(archive) = archive else { return e };
    let lines = markdown::lines(archive.strip_prefix('\u{feff}').unwrap_or(archive));
    match markdown::unclosed_fence(&lines) {
        Some(i) => LogError::Malformed {
            file: ARCHIVE_FILE.to_string(),
            line: Some(i + 1),
            message: "opens a code fence that never closes, so entries appended after it \
                      would read as code: close the fence in that entry (a line of ```), then \
                      run `git aahp archive --reindex` and rerun"
                .to_string(),
        },
        None => e,
    }
}

/// The ends of LOG-ARCHIVE.md and of its index, read without the rest of either: all that
/// [`rotate_onto_trusted`] needs, so a rotation reads what it appends to, not the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedEnds {
    /// The archive's length in bytes.
    pub archive_len: usize,
    /// Its last bytes, from a character boundary on.
    pub archive_tail: String,
    /// Whether `archive_tail` is the whole archive.
    pub archive_whole: bool,
    /// Where the index's `entries` list ends (found by [`IndexScanner`]).
    pub index_end: IndexEnd,
    /// The index's bytes from [`IndexEnd::cut`] to its end (its closing `]` and `}`).
    pub index_old_tail: String,
}

impl TrustedEnds {
    /// The ends of texts held in memory, the archive's tail cut to at most `tail` bytes
    /// (tests and callers that have the texts anyway); `None` when the index has no
    /// `entries` list to extend.
    pub fn of(archive: &str, index: &str, tail: usize) -> Option<TrustedEnds> {
        let end = index_end(index.as_bytes())?;
        let mut from = archive.len().saturating_sub(tail);
        while !archive.is_char_boundary(from) {
            from += 1;
        }
        Some(TrustedEnds {
            archive_len: archive.len(),
            archive_tail: archive[from..].to_string(),
            archive_whole: from == 0,
            index_end: end,
            index_old_tail: index[end.cut..].to_string(),
        })
    }

    /// The archive's end as [`rotate_onto_end`] takes it.
    pub(crate) fn archive_end(&self) -> ArchiveEnd<'_> {
        ArchiveEnd {
            len: self.archive_len,
            tail: &self.archive_tail,
            whole: self.archive_whole,
        }
    }
}

/// The end of a LOG-ARCHIVE.md that holds something: all [`archive_suffix`] needs of it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ArchiveEnd<'a> {
    /// The archive's length in bytes.
    pub len: usize,
    /// Its last bytes, from a character boundary on.
    pub tail: &'a str,
    /// Whether `tail` is the whole archive.
    pub whole: bool,
}

impl ArchiveEnd<'_> {
    /// True when [`archive_suffix`] gives for the tail what it gives for the whole archive:
    /// the tail holds the last line that is not blank and the line break before it.
    fn determines_suffix(&self) -> bool {
        if self.whole {
            return true;
        }
        let body = self.tail.trim_end_matches(is_py_space);
        body.contains(['\n', '\r']) && self.tail.rfind('\n').is_some_and(|i| i > 0)
    }
}

/// Rotates onto an archive and index that are trusted as they are (both equal to what
/// HEAD holds, which was judged when it was committed): only their ends are read and only
/// the appended part is checked, so the cost follows what moves (issue #14) and memory does
/// not grow with the archive (issue #12).
///
/// Returns [`Trusted::Declined`] when this cannot be done proportionally and the caller
/// must use [`rotate`] (which reads and checks everything): an empty archive, an archive
/// whose tail does not show how it ends (a tail of blank lines), or moved entries holding
/// code fences (which could pair with an unclosed fence in the old archive and change how
/// it reads).
///
/// The rotation's [`Rotation::archive`] and [`Rotation::index`] are left empty: the files
/// change by their splices alone.
pub fn rotate_onto_trusted(
    log: &str,
    ends: &TrustedEnds,
    keep: usize,
) -> Result<Trusted, LogError> {
    rotate_onto_ends(log, ends, keep, false)
}

/// [`rotate_onto_trusted`]; with `fences_ok`, moved entries holding code fences are
/// appended too: the caller read the whole archive and found no fence in it that never
/// closes, so nothing appended can pair with an old line.
pub(crate) fn rotate_onto_ends(
    log: &str,
    ends: &TrustedEnds,
    keep: usize,
    fences_ok: bool,
) -> Result<Trusted, LogError> {
    if keep == 0 {
        return Err(LogError::ZeroKeep);
    }
    let parsed = LogFile::parse(log);
    parsed.check_dated(LOG_FILE)?;
    if ends.archive_tail.trim_matches(is_py_space).is_empty() {
        return Ok(Trusted::Declined);
    }
    let end = ends.index_end;
    let (mut rotation, new_index) =
        match rotate_onto_end(&parsed, Some(ends.archive_end()), keep, fences_ok) {
            Onto::Nothing => {
                return Ok(Trusted::UpToDate {
                    archived: end.count,
                });
            }
            Onto::Declined => return Ok(Trusted::Declined),
            Onto::Moved(r, new_index) => (r, new_index),
        };
    let old_tail = ends.index_old_tail.clone();
    let index_text = format!("{}{old_tail}", index_insertion(end.empty, &new_index));
    rotation.index_len = end.cut + index_text.len();
    rotation.index_splice = Some(Splice {
        keep: end.cut,
        text: index_text,
        old_tail,
    });
    rotation.archived = Some(end.count + rotation.moved);
    check_appended(log, &rotation.log, &rotation, keep)?;
    Ok(Trusted::Rotated(rotation))
}

/// What [`rotate_onto_end`] gives.
pub(crate) enum Onto {
    /// Nothing leaves LOG.md.
    Nothing,
    /// Not possible from the archive's end alone (see [`rotate_onto_trusted`]).
    Declined,
    /// The rotation with its index left to the caller ([`Rotation::index`] empty, no
    /// splice, [`Rotation::index_len`] 0, [`Rotation::archived`] unknown), and the index
    /// lines of the moved entries in the order they are appended.
    Moved(Box<Rotation>, Vec<IndexEntry>),
}

/// LOG.md (`parsed`) rotated onto the end of an archive, its index left to the caller:
/// LOG.md's new text and the text appended after the archive's last byte ([`ArchiveEnd`]),
/// or with `end` `None` (the archive holds nothing but blanks, or is absent) the text of a
/// new archive ([`Rotation::archive`]). With `fences_ok` (the caller read the whole archive
/// and found no fence in it that never closes), moved entries holding code fences are
/// appended too.
pub(crate) fn rotate_onto_end(
    parsed: &LogFile,
    end: Option<ArchiveEnd<'_>>,
    keep: usize,
    fences_ok: bool,
) -> Onto {
    let (kept_set, moved) = split(parsed, keep);
    if moved.is_empty() {
        return Onto::Nothing;
    }
    // The whole rotation refuses it, naming the line.
    if refuse_unclosed_blocks(&moved).is_err() {
        return Onto::Declined;
    }
    let appended: Vec<&LogEntry> = moved.iter().rev().copied().collect();
    let (archive, archive_splice, archive_len) = if let Some(end) = end {
        if !end.determines_suffix() || last_entry_left_open(end.tail) {
            return Onto::Declined;
        }
        let text = archive_suffix(end.tail, &appended);
        if !fences_ok && has_fence_line(&text) {
            return Onto::Declined;
        }
        let len = end.len + text.len();
        let splice = Splice {
            keep: end.len,
            text,
            old_tail: String::new(),
        };
        (String::new(), Some(splice), len)
    } else {
        let text = new_archive(&appended);
        let len = text.len();
        (text, None, len)
    };
    let rotation = Rotation {
        log: parsed.render_with(
            parsed
                .entries
                .iter()
                .enumerate()
                .filter(|(i, _)| kept_set.contains(i))
                .map(|(_, e)| e),
        ),
        archive,
        index: String::new(),
        archive_len,
        index_len: 0,
        moved: moved.len(),
        moved_entries: moved.iter().map(|e| e.moved()).collect(),
        kept: kept_set.len(),
        adopted: 0,
        log_changed: true,
        archive_changed: true,
        index_changed: true,
        archive_splice,
        index_splice: None,
        archived: None,
    };
    let new_index = appended.iter().map(|e| as_index(e)).collect();
    Onto::Moved(Box::new(rotation), new_index)
}

/// What [`rotate_onto_trusted`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trusted {
    /// Entries moved; only the appended parts were read and checked.
    Rotated(Box<Rotation>),
    /// Nothing to move; the archive holds `archived` entries (as many as its index lists).
    UpToDate {
        /// Entries in the archive.
        archived: usize,
    },
    /// Not possible proportionally: use [`rotate`].
    Declined,
}

/// The proportional postcondition of [`rotate_onto_trusted`] (and of the files written
/// from it): LOG.md keeps at most `keep` entries, a subsequence of the old ones; the text
/// appended to the archive holds exactly the entries that left LOG.md, counted by digest;
/// and the index's new entries list exactly those digests. The old parts of both files are
/// the caller's to compare byte for byte.
pub fn check_appended(
    log_before: &str,
    log_after: &str,
    rot: &Rotation,
    keep: usize,
) -> Result<(), LogError> {
    let fail = |m: String| Err(LogError::Postcondition(m));
    let (Some(arch), Some(idx)) = (&rot.archive_splice, &rot.index_splice) else {
        return fail("an appending rotation without its appended parts".into());
    };
    let gone = check_moved(log_before, log_after, &arch.text, false, keep)?;
    let listed = appended_index_entries(&idx.text)?;
    let mut listed: Vec<&str> = listed.iter().map(|e| e.sha256.as_str()).collect();
    listed.sort_unstable();
    if listed != gone {
        return fail(format!(
            "the entries appended to {INDEX_FILE} are not the entries appended to {ARCHIVE_FILE}"
        ));
    }
    Ok(())
}

/// The part of a rotation's postcondition that LOG.md and the archive's new text decide:
/// LOG.md keeps at most `keep` entries, a subsequence of the old ones, and `added` (the
/// text appended to the archive, or with `new_archive` the text of a new one) holds
/// exactly the entries that left LOG.md, counted by digest. Returns their digests, sorted.
pub(crate) fn check_moved(
    log_before: &str,
    log_after: &str,
    added: &str,
    new_archive: bool,
    keep: usize,
) -> Result<Vec<String>, LogError> {
    let fail = |m: String| Err(LogError::Postcondition(m));
    let before = LogFile::parse(log_before);
    let after = LogFile::parse(log_after);
    check_kept(&before, &after, keep)?;
    // What left LOG.md, as a multiset of digests.
    let mut left = counts(before.entries.iter().map(LogEntry::digest_str));
    for e in &after.entries {
        if let Some(n) = left.get_mut(e.digest_str()) {
            *n -= 1;
        }
    }
    let mut gone: Vec<String> = left
        .iter()
        .flat_map(|(d, n)| std::iter::repeat_n((*d).to_string(), *n))
        .collect();
    gone.sort_unstable();
    let added = LogFile::parse(added);
    if !new_archive
        && !added.preamble.lines().all(|l| {
            let t = l.trim();
            t.is_empty() || t == "---"
        })
    {
        return fail(format!(
            "the text appended to {ARCHIVE_FILE} holds more than the archived entries"
        ));
    }
    let mut appended: Vec<&str> = added.entries.iter().map(LogEntry::digest_str).collect();
    appended.sort_unstable();
    if appended != gone {
        return fail(format!(
            "the entries appended to {ARCHIVE_FILE} are not the entries that left {LOG_FILE}"
        ));
    }
    Ok(gone)
}

/// The index entries an index splice adds: the objects before the closing `]` of the
/// `entries` list.
fn appended_index_entries(text: &str) -> Result<Vec<IndexEntry>, LogError> {
    let bad = |m: &str| LogError::Postcondition(format!("the text appended to {INDEX_FILE} {m}"));
    let close = {
        // The splice is the new entries, then the old end (`]`, then the rest of the
        // document); the new entries hold no `]` outside strings, so the first one is it.
        let mut in_str = false;
        let mut esc = false;
        text.bytes()
            .position(|b| {
                if in_str {
                    match (esc, b) {
                        (true, _) => esc = false,
                        (false, b'\\') => esc = true,
                        (false, b'"') => in_str = false,
                        _ => {}
                    }
                    false
                } else {
                    in_str = b == b'"';
                    b == b']'
                }
            })
            .ok_or_else(|| bad("does not end the `entries` list"))?
    };
    let list = text[..close].trim_start_matches(|c: char| c == ',' || c.is_whitespace());
    let doc = format!("{{\"version\": 1, \"entries\": [{list}]}}");
    ArchiveIndex::parse(&doc)
        .map(|i| i.entries)
        .map_err(|_| bad("is not a list of index entries"))
}

/// Splits LOG.md's entries into the kept ones (by index) and the moved ones, newest first.
fn split(log: &LogFile, keep: usize) -> (HashSet<usize>, Vec<&LogEntry>) {
    let kept_set: HashSet<usize> = newest(&log.entries, keep).into_iter().collect();
    let mut order: Vec<usize> = (0..log.entries.len())
        .filter(|i| !kept_set.contains(i))
        .collect();
    order.sort_by(|&a, &b| {
        log.entries[b]
            .date
            .cmp(&log.entries[a].date)
            .then(a.cmp(&b))
    });
    let moved = order.into_iter().map(|i| &log.entries[i]).collect();
    (kept_set, moved)
}

pub(crate) fn as_index(e: &LogEntry) -> IndexEntry {
    IndexEntry {
        sha256: e.digest(),
        title: e.header.clone(),
    }
}

/// Archive entries a missing or legacy index does not account for: they are indexed after
/// the index's own entries ("adopted").
fn adopted_entries(j: &Journal) -> Vec<&LogEntry> {
    let adopt_all = j.index.as_ref().is_none_or(|i| i.legacy);
    if !adopt_all {
        return Vec::new();
    }
    let mut listed = counts(
        j.index
            .iter()
            .flat_map(|i| &i.entries)
            .map(|e| e.sha256.as_str()),
    );
    let mut out = Vec::new();
    for e in &j.archive.entries {
        match listed.get_mut(e.digest_str()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(e),
        }
    }
    out
}

/// A new archive: the default preamble, then the entries.
fn new_archive(new: &[&LogEntry]) -> String {
    let mut out = DEFAULT_ARCHIVE_PREAMBLE.to_string();
    out.push_str(&entry_block(new, "\n"));
    out.push('\n');
    out
}

fn entry_block(new: &[&LogEntry], nl: &str) -> String {
    new.iter()
        .map(|e| e.text.as_str())
        .collect::<Vec<_>>()
        .join(SEPARATOR)
        .replace('\n', nl)
}

/// What to append to an archive ending in `old` so that `new` follow its last entry: a
/// line break when the last line has none, a `---` separator unless the last line already
/// is one, a blank line, the entries, a final line break; in the archive's line endings
/// (those of its last line). Depends on the end of `old` only.
pub fn archive_suffix(old: &str, new: &[&LogEntry]) -> String {
    let nl = match old.rfind('\n') {
        Some(i) if i > 0 && old.as_bytes()[i - 1] == b'\r' => "\r\n",
        Some(_) => "\n",
        None => markdown::line_ending(old),
    };
    let body = old.trim_end_matches(is_py_space);
    let trailing = &old[body.len()..];
    let breaks = trailing.matches('\n').count() + trailing.matches('\r').count()
        - trailing.matches("\r\n").count();
    let last_line = body.rsplit(['\n', '\r']).next().unwrap_or_default();
    let mut out = String::new();
    for _ in breaks..2 {
        out.push_str(nl);
    }
    if last_line.trim() != "---" {
        out.push_str("---");
        out.push_str(nl);
        out.push_str(nl);
    }
    out.push_str(&entry_block(new, nl));
    out.push_str(nl);
    out
}

/// True when some line of `text` could open or close a code fence.
fn has_fence_line(text: &str) -> bool {
    markdown::lines(text).iter().any(|l| {
        let t = l.text.trim_start_matches(' ');
        l.text.len() - t.len() <= 3 && (t.starts_with("```") || t.starts_with("~~~"))
    })
}

/// The deepest nesting of arrays and objects an archive index may have: `serde_json`'s
/// recursion limit, so what the scan accepts the whole read parses too.
const MAX_INDEX_DEPTH: usize = 127;

/// Where the index's `entries` list ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexEnd {
    /// Byte offset just after the list's last element (after its `[` when empty): new
    /// entries are inserted here.
    pub cut: usize,
    /// Whether the list is empty.
    pub empty: bool,
    /// How many entries it holds.
    pub count: usize,
}

/// Finds the end of the top-level `entries` list of an index by a structural scan (one
/// pass, no values built). `None` when the document has no such list, has it twice, or
/// holds anything but objects in it: the caller then renders the index whole.
pub fn index_end(text: &[u8]) -> Option<IndexEnd> {
    let mut scan = IndexScanner::default();
    scan.feed(text);
    scan.finish()
}

/// [`index_end`] over a document read in pieces: [`IndexScanner::feed`] each piece in
/// order, then [`IndexScanner::finish`]. It holds no text, so an index of any size is
/// scanned in constant memory (issue #12: the archive and its index are read as streams).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexScanner {
    /// Offset of the next byte.
    at: usize,
    phase: Phase,
    string: InString,
    depth: usize,
    /// The current (or last) string's first bytes, and its length.
    key: [u8; 8],
    key_len: usize,
    key_is_entries: bool,
    in_entries: bool,
    found: Option<IndexEnd>,
    last_elem_end: Option<usize>,
    list_start: usize,
    count: usize,
}

/// Where an [`IndexScanner`] is in the document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Phase {
    /// Before the first `{`.
    #[default]
    Before,
    /// Inside the top-level object.
    Open,
    /// After it: only blanks may follow.
    Closed,
    /// The document cannot hold a usable `entries` list.
    Dead,
}

/// Whether an [`IndexScanner`] is inside a string.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum InString {
    #[default]
    No,
    Yes,
    /// Just after a backslash.
    Escaped,
}

impl IndexScanner {
    /// The scanner's state as numbers, to resume a scan of a document that starts with the
    /// bytes scanned so far (a cached [`super::stream::PassState`]); see
    /// [`IndexScanner::from_fields`].
    pub(crate) fn to_fields(&self) -> Vec<u64> {
        let n = |v: usize| v as u64;
        let phase = match self.phase {
            Phase::Before => 0,
            Phase::Open => 1,
            Phase::Closed => 2,
            Phase::Dead => 3,
        };
        let string = match self.string {
            InString::No => 0,
            InString::Yes => 1,
            InString::Escaped => 2,
        };
        let found = self.found.map_or([0, 0, 0, 0], |f| {
            [1, n(f.cut), u64::from(f.empty), n(f.count)]
        });
        let mut out = vec![
            n(self.at),
            phase,
            string,
            n(self.depth),
            u64::from_le_bytes(self.key),
            n(self.key_len),
            u64::from(self.key_is_entries),
            u64::from(self.in_entries),
        ];
        out.extend(found);
        out.extend([
            u64::from(self.last_elem_end.is_some()),
            self.last_elem_end.map_or(0, n),
            n(self.list_start),
            n(self.count),
        ]);
        out
    }

    /// The scanner [`IndexScanner::to_fields`] gave these numbers; `None` when they are not
    /// such a list.
    pub(crate) fn from_fields(f: &[u64]) -> Option<IndexScanner> {
        let &[
            at,
            phase,
            string,
            depth,
            key,
            key_len,
            key_is_entries,
            in_entries,
            has_found,
            cut,
            empty,
            count_found,
            has_last,
            last,
            list_start,
            count,
        ] = f
        else {
            return None;
        };
        let u = |v: u64| usize::try_from(v).ok();
        let flag = |v: u64| match v {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        };
        Some(IndexScanner {
            at: u(at)?,
            phase: match phase {
                0 => Phase::Before,
                1 => Phase::Open,
                2 => Phase::Closed,
                3 => Phase::Dead,
                _ => return None,
            },
            string: match string {
                0 => InString::No,
                1 => InString::Yes,
                2 => InString::Escaped,
                _ => return None,
            },
            depth: u(depth).filter(|&d| d <= MAX_INDEX_DEPTH)?,
            key: key.to_le_bytes(),
            key_len: u(key_len)?,
            key_is_entries: flag(key_is_entries)?,
            in_entries: flag(in_entries)?,
            found: if flag(has_found)? {
                Some(IndexEnd {
                    cut: u(cut)?,
                    empty: flag(empty)?,
                    count: u(count_found)?,
                })
            } else {
                None
            },
            last_elem_end: if flag(has_last)? {
                Some(u(last)?)
            } else {
                None
            },
            list_start: u(list_start)?,
            count: u(count)?,
        })
    }

    /// How many bytes it scanned.
    pub(crate) fn offset(&self) -> usize {
        self.at
    }

    /// Scans the next piece of the document.
    pub fn feed(&mut self, piece: &[u8]) {
        let mut i = 0;
        while i < piece.len() && self.phase != Phase::Dead {
            match self.string {
                InString::Escaped => {
                    self.string = InString::Yes;
                    self.note_string_byte(piece[i]);
                    i += 1;
                }
                InString::Yes => {
                    // Skip to the string's end (escapes included) by memchr.
                    let Some(k) = memchr::memchr2(b'"', b'\\', &piece[i..]) else {
                        self.note_string_bytes(&piece[i..]);
                        i = piece.len();
                        continue;
                    };
                    self.note_string_bytes(&piece[i..i + k]);
                    i += k;
                    if piece[i] == b'\\' {
                        self.note_string_byte(b'\\');
                        self.string = InString::Escaped;
                    } else {
                        self.string = InString::No;
                    }
                    i += 1;
                }
                InString::No => {
                    // Blanks between tokens change nothing in any phase: skip the run.
                    let blanks = piece[i..]
                        .iter()
                        .position(|c| !c.is_ascii_whitespace())
                        .unwrap_or(piece.len() - i);
                    i += blanks;
                    if let Some(&b) = piece.get(i) {
                        self.byte(b, self.at + i);
                        i += 1;
                    }
                }
            }
        }
        self.at += piece.len();
    }

    fn note_string_byte(&mut self, b: u8) {
        self.note_string_bytes(&[b]);
    }

    /// A run of a string's bytes: the key keeps its first bytes and counts the rest, so a
    /// long string costs one copy of at most the key's size, not a step per byte.
    fn note_string_bytes(&mut self, run: &[u8]) {
        if let Some(room) = self.key.get_mut(self.key_len..) {
            let n = room.len().min(run.len());
            room[..n].copy_from_slice(&run[..n]);
        }
        self.key_len = self.key_len.saturating_add(run.len());
    }

    /// One byte outside a string, at offset `at`.
    fn byte(&mut self, b: u8, at: usize) {
        match self.phase {
            // The document must be one object: `{` first, nothing but blanks after it.
            Phase::Before if b == b'{' => self.phase = Phase::Open,
            Phase::Before | Phase::Closed => {
                if !b.is_ascii_whitespace() {
                    self.phase = Phase::Dead;
                }
                return;
            }
            Phase::Open | Phase::Dead => {}
        }
        match b {
            b'"' => {
                if self.in_entries && self.depth == 2 {
                    self.phase = Phase::Dead;
                    return;
                }
                self.string = InString::Yes;
                self.key_len = 0;
            }
            b':' if self.depth == 1 => {
                self.key_is_entries = self.key_len == 7 && &self.key[..7] == b"entries";
            }
            b'{' | b'[' => {
                if self.depth == 1 && b == b'[' && self.key_is_entries {
                    if self.found.is_some() || self.in_entries {
                        self.phase = Phase::Dead;
                        return;
                    }
                    self.in_entries = true;
                    self.last_elem_end = None;
                    self.count = 0;
                    self.list_start = at + 1;
                } else if self.in_entries && self.depth == 2 && b != b'{' {
                    self.phase = Phase::Dead;
                    return;
                }
                // Deeper than a JSON parser reads (serde_json's limit, Python's is near):
                // an index the tool's own whole read and the reference cannot parse is
                // not one a scan may accept.
                if self.depth == MAX_INDEX_DEPTH {
                    self.phase = Phase::Dead;
                    return;
                }
                self.depth += 1;
            }
            b'}' | b']' => {
                let Some(depth) = self.depth.checked_sub(1) else {
                    self.phase = Phase::Dead;
                    return;
                };
                self.depth = depth;
                if depth == 0 {
                    self.phase = Phase::Closed;
                }
                if self.in_entries && depth == 2 && b == b'}' {
                    self.last_elem_end = Some(at + 1);
                    self.count += 1;
                } else if self.in_entries && depth == 1 {
                    if b != b']' {
                        self.phase = Phase::Dead;
                        return;
                    }
                    self.in_entries = false;
                    self.found = Some(IndexEnd {
                        cut: self.last_elem_end.unwrap_or(self.list_start),
                        empty: self.last_elem_end.is_none(),
                        count: self.count,
                    });
                }
                if depth == 1 {
                    self.key_is_entries = false;
                }
            }
            b',' if self.depth == 1 => self.key_is_entries = false,
            c if self.in_entries && self.depth == 2 && !c.is_ascii_whitespace() && c != b',' => {
                self.phase = Phase::Dead;
            }
            _ => {}
        }
    }

    /// The end of the `entries` list, once the whole document was fed.
    pub fn finish(self) -> Option<IndexEnd> {
        let done = self.phase == Phase::Closed && self.string == InString::No && self.depth == 0;
        if done { self.found } else { None }
    }
}

/// The text inserted at [`IndexEnd::cut`] to list `new` after the old entries, in the
/// reference's layout (`json.dumps(indent=2)`, ASCII only).
pub fn index_insertion(empty: bool, new: &[IndexEntry]) -> String {
    let objects: Vec<String> = new
        .iter()
        .map(|e| {
            format!(
                "    {{\n      \"sha256\": {},\n      \"title\": {}\n    }}",
                ascii_json_string(&e.sha256),
                ascii_json_string(&e.title)
            )
        })
        .collect();
    if objects.is_empty() {
        String::new()
    } else if empty {
        format!("\n{}\n  ", objects.join(",\n"))
    } else {
        format!(",\n{}", objects.join(",\n"))
    }
}

/// A JSON string literal with every non-ASCII character escaped, as Python's `json.dumps`
/// writes it.
fn ascii_json_string(s: &str) -> String {
    let quoted = serde_json::to_string(s).expect("a string always serialises");
    ascii_only(&quoted)
}

/// Escapes non-ASCII characters as `\uXXXX` (they can only occur inside JSON strings).
fn ascii_only(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
    out
}

/// LOG.md after a rotation keeps at most `keep` entries, a subsequence of the old ones in
/// their order.
fn check_kept(before: &LogFile, after: &LogFile, keep: usize) -> Result<(), LogError> {
    let fail = |m: String| Err(LogError::Postcondition(m));
    if after.entries.len() > keep {
        return fail(format!(
            "{LOG_FILE} still has {} entries (keep {keep})",
            after.entries.len()
        ));
    }
    let mut it = before.entries.iter();
    for d in &after.entries {
        if !it.any(|b| b.digest_str() == d.digest_str()) {
            return fail(format!("{LOG_FILE} entries were reordered or altered"));
        }
    }
    Ok(())
}

/// The digests of two journals' entries together, sorted: a multiset to compare.
fn all_digests<'a>(a: &'a LogFile, b: &'a LogFile) -> Vec<&'a str> {
    let mut v: Vec<&str> = a
        .entries
        .iter()
        .chain(&b.entries)
        .map(LogEntry::digest_str)
        .collect();
    v.sort_unstable();
    v
}

/// Checks by hash that a rotation lost and duplicated nothing, counting copies: LOG.md
/// keeps at most `keep` entries in their old order, the entries of LOG.md and the archive
/// together are the same multiset before and after, and the index lists exactly the
/// archive's entries, each as many times as the archive holds it. Run on the rendered text
/// before writing and on the files after.
pub fn check_rotation(
    log_before: &str,
    archive_before: Option<&str>,
    log_after: &str,
    archive_after: &str,
    index_after: &str,
    keep: usize,
) -> Result<(), LogError> {
    let fail = |m: String| Err(LogError::Postcondition(m));
    let before = LogFile::parse(log_before);
    let old_archive = LogFile::parse(archive_before.unwrap_or_default());
    let after = LogFile::parse(log_after);
    let archive = LogFile::parse(archive_after);
    let index = ArchiveIndex::parse(index_after)?;
    check_kept(&before, &after, keep)?;
    if all_digests(&before, &old_archive) != all_digests(&after, &archive) {
        return fail(format!(
            "the entries of {LOG_FILE} and {ARCHIVE_FILE} differ before and after (an entry was lost or duplicated)"
        ));
    }
    let mut archived: Vec<&str> = archive.entries.iter().map(LogEntry::digest_str).collect();
    let mut indexed: Vec<&str> = index.entries.iter().map(|e| e.sha256.as_str()).collect();
    archived.sort_unstable();
    indexed.sort_unstable();
    if archived != indexed {
        return fail(format!(
            "{INDEX_FILE} does not list exactly the entries of {ARCHIVE_FILE}"
        ));
    }
    Ok(())
}

/// Checks LOG.md, the archive and the index without changing anything: forged, missing and
/// duplicated archive entries, an archive without index, entries both in LOG.md and the
/// archive, and a LOG.md over its limit. Input that cannot be interpreted is reported as
/// one [`ArchiveProblem::Malformed`].
pub fn verify_archive(
    log: &str,
    archive: Option<&str>,
    index: Option<&str>,
    keep: usize,
) -> Vec<ArchiveProblem> {
    let j = match Journal::parse(log, archive, index) {
        Ok(j) => j,
        Err(LogError::Malformed {
            file,
            line,
            message,
        }) => {
            return vec![ArchiveProblem::Malformed {
                file,
                line,
                message,
            }];
        }
        Err(e) => {
            return vec![ArchiveProblem::Malformed {
                file: LOG_FILE.into(),
                line: None,
                message: e.to_string(),
            }];
        }
    };
    let mut out = j.problems();
    if j.log.entries.len() > keep {
        out.push(ArchiveProblem::OverLimit {
            entries: j.log.entries.len(),
            keep,
        });
    }
    out
}

/// The opening of a redaction marker: an archived entry's text replaced by
/// `[redacted: REASON]` (the reference's form).
const REDACTION_OPEN: &str = "[redacted:";

/// The reasons of the `[redacted: REASON]` markers in `text`, in order. A marker needs a
/// reason: `[redacted:]` or one without its `]` on the same line is not a marker.
pub fn redaction_reasons(text: &str) -> Vec<String> {
    redaction_markers(text)
        .into_iter()
        .map(|(_, reason)| reason.to_string())
        .collect()
}

/// The byte ranges and reasons of the redaction markers in `text`.
pub(crate) fn redaction_markers(text: &str) -> Vec<(std::ops::Range<usize>, &str)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(REDACTION_OPEN).map(|i| from + i) {
        let body = at + REDACTION_OPEN.len();
        let close = text[body..]
            .find([']', '\n'])
            .map(|i| body + i)
            .filter(|&i| text.as_bytes()[i] == b']');
        match close {
            Some(end) if !text[body..end].trim().is_empty() => {
                out.push((at..end + 1, text[body..end].trim()));
                from = end + 1;
            }
            _ => from = body,
        }
    }
    out
}

/// The reason recorded for a repair: an archived entry given the closing lines of a block it
/// left open (which hid or swallowed the entries after it).
const CLOSING_REPAIR: &str = "closed a block the entry left open";

/// True when `repaired` is `original` with only closing lines added at its end: blank lines,
/// closing code fences, `-->` or a closing tag (`</pre>`). So an archived entry that left a
/// fence, a comment or an HTML block open can be closed and re-indexed (`archive --reindex`)
/// without being mistaken for an edit.
fn is_closing_repair(repaired: &str, original: &str) -> bool {
    let Some(added) = repaired.trim_end().strip_prefix(original.trim_end()) else {
        return false;
    };
    let closing = |line: &str| {
        let t = line.trim();
        t.is_empty()
            || markdown::closing_run(line).is_some()
            || t == "-->"
            || t.strip_prefix("</")
                .and_then(|r| r.strip_suffix('>'))
                .is_some_and(|name| {
                    !name.is_empty() && name.bytes().all(|c| c.is_ascii_alphanumeric())
                })
    };
    !added.trim().is_empty() && added.lines().all(closing)
}

/// True when `redacted` is `original` with one or more spans replaced by redaction markers:
/// every piece of text between the markers is still there, in order, with nothing added.
pub(crate) fn is_redaction_of(redacted: &str, original: &str) -> bool {
    let markers = redaction_markers(redacted);
    if markers.is_empty() {
        return false;
    }
    let mut pieces = Vec::with_capacity(markers.len() + 1);
    let mut at = 0;
    for (range, _) in &markers {
        pieces.push(&redacted[at..range.start]);
        at = range.end;
    }
    pieces.push(&redacted[at..]);
    let (first, rest) = pieces
        .split_first()
        .expect("one piece per marker and one more");
    let (last, middle) = rest.split_last().expect("at least one marker");
    let Some(mut pos) = original.strip_prefix(first).map(|_| first.len()) else {
        return false;
    };
    // Leftmost matches leave the most room for what follows.
    for piece in middle {
        match original[pos..].find(piece) {
            Some(i) => pos += i + piece.len(),
            None => return false,
        }
    }
    original.len() >= pos + last.len() && original.ends_with(last)
}

/// One archived entry `archive --reindex` re-indexed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redaction {
    /// Its line in LOG-ARCHIVE.md.
    pub line: usize,
    /// Its heading now.
    #[serde(serialize_with = "crate::output::boundary::line")]
    pub title: String,
    /// Its digest now (the index line it replaces is dropped with its digest).
    pub sha256: String,
    /// The reasons its markers give.
    #[serde(serialize_with = "crate::output::boundary::list")]
    pub reasons: Vec<String>,
    /// True when the text it replaces was found (in HEAD) and the entry shown to be that
    /// text with spans replaced by markers; false when only its unchanged heading ties it
    /// to the index line it replaces.
    pub compared: bool,
}

/// What `archive --reindex` would write.
#[derive(Debug)]
pub struct Reindexed {
    /// The new index text.
    pub index: String,
    /// The entries it re-indexes, in archive order.
    pub redactions: Vec<Redaction>,
}

/// Re-indexes the archive after a deliberate redaction (`archive --reindex`): each archived
/// entry the index does not list must carry a `[redacted: REASON]` marker and take the
/// place of exactly one index line the archive no longer holds: the line of the text it
/// is a redaction of, when `original` knows that text by its digest, else the line with
/// its unchanged heading. That line gets the entry's new digest, in place, and the index's
/// `redactions` list records the entry's new digest, heading, reasons and `today` (never
/// the old digest: a short secret could be recovered from it). Anything else (an entry
/// added, deleted or edited without a marker) is refused as [`LogError::Integrity`] with
/// nothing re-indexed; `Ok(None)` when the index already matches.
pub fn reindex(
    archive: &str,
    index_text: &str,
    original: &dyn Fn(&str) -> Option<String>,
    today: Date,
) -> Result<Option<Reindexed>, LogError> {
    let archive = LogFile::parse(archive);
    archive.check_dated(ARCHIVE_FILE)?;
    let mut index = ArchiveIndex::parse(index_text)?;
    // Which index lines and which archive entries have no counterpart (counted per copy,
    // as in `Journal::problems`).
    let mut archived = counts(archive.entries.iter().map(LogEntry::digest_str));
    let mut missing: Vec<usize> = Vec::new();
    for (i, e) in index.entries.iter().enumerate() {
        match archived.get_mut(e.sha256.as_str()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => missing.push(i),
        }
    }
    let mut indexed = counts(index.entries.iter().map(|e| e.sha256.as_str()));
    let mut changed: Vec<&LogEntry> = Vec::new();
    for e in &archive.entries {
        match indexed.get_mut(e.digest_str()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => changed.push(e),
        }
    }
    if changed.is_empty() && missing.is_empty() {
        return Ok(None);
    }
    let mut problems = Vec::new();
    let mut taken = vec![false; missing.len()];
    let mut pairs: Vec<(usize, &LogEntry, bool)> = Vec::new();
    {
        let lines: Vec<&IndexEntry> = missing.iter().map(|&i| &index.entries[i]).collect();
        for e in changed {
            match redaction_target(e, &lines, &taken, original) {
                Ok((k, compared)) => {
                    taken[k] = true;
                    pairs.push((missing[k], e, compared));
                }
                Err(p) => problems.push(p),
            }
        }
    }
    for (k, &i) in missing.iter().enumerate() {
        if !taken[k] {
            problems.push(missing_line(&index.entries[i]));
        }
    }
    if !problems.is_empty() {
        return Err(LogError::Integrity(problems));
    }
    pairs.sort_by_key(|(_, e, _)| e.line);
    let mut recorded = recorded_redactions(&mut index.doc)
        .map_err(|()| redactions_not_a_list(line_of(index_text, "\"redactions\"", 0)))?;
    let mut redactions = Vec::with_capacity(pairs.len());
    for (i, e, compared) in pairs {
        let (line, record, redaction) = redaction_of(e, compared, today);
        index.entries[i] = line;
        recorded.push(record);
        redactions.push(redaction);
    }
    index
        .doc
        .insert("redactions".into(), Value::Array(recorded));
    Ok(Some(Reindexed {
        index: index.render(),
        redactions,
    }))
}

/// The index line an archived entry that the index does not list takes the place of, for
/// `archive --reindex`: its position in `missing` (the index lines the archive no longer
/// holds, `taken` those already given to an earlier entry) and whether the text it
/// replaces was known (`original`, by digest) and shown redacted into it. The entry must
/// carry a marker; the line is the first free one whose known text it redacts, else the
/// first free one with its heading whose text is not known.
pub(crate) fn redaction_target(
    e: &LogEntry,
    missing: &[&IndexEntry],
    taken: &[bool],
    original: &dyn Fn(&str) -> Option<String>,
) -> Result<(usize, bool), ArchiveProblem> {
    let not = |why: &str| ArchiveProblem::NotRedaction {
        title: e.header.clone(),
        line: e.line,
        why: why.to_string(),
    };
    if redaction_markers(&e.text).is_empty() {
        // Not redacted: it may still be an indexed entry whose open block was closed.
        for k in (0..missing.len()).filter(|&k| !taken[k]) {
            if original(&missing[k].sha256).is_some_and(|text| is_closing_repair(&e.text, &text)) {
                return Ok((k, true));
            }
        }
        return Err(not(
            "it has no `[redacted: reason]` marker, and is not an indexed entry with only closing lines (a fence, `-->`, `</pre>`) added at its end",
        ));
    }
    let mut heading_only = None;
    for k in (0..missing.len()).filter(|&k| !taken[k]) {
        let line = missing[k];
        match original(&line.sha256) {
            Some(text) if is_redaction_of(&e.text, &text) => return Ok((k, true)),
            None if line.title == e.header && heading_only.is_none() => {
                heading_only = Some(k);
            }
            // A known text this entry does not redact, or another heading: no match.
            _ => {}
        }
    }
    heading_only.map(|k| (k, false)).ok_or_else(|| {
        not(
            "it is no redaction of an entry the index lists: outside its markers its text must be an indexed entry's, unchanged",
        )
    })
}

/// The problem of an index line no archived entry takes the place of.
pub(crate) fn missing_line(line: &IndexEntry) -> ArchiveProblem {
    ArchiveProblem::Missing {
        sha256: line.sha256.clone(),
        title: line.title.clone(),
    }
}

/// Takes the index's `redactions` list out of its other keys (empty when it has none);
/// `Err` when it is not a list.
pub(crate) fn recorded_redactions(doc: &mut Map<String, Value>) -> Result<Vec<Value>, ()> {
    match doc.remove("redactions") {
        Some(Value::Array(list)) => Ok(list),
        Some(_) => Err(()),
        None => Ok(Vec::new()),
    }
}

/// The error for an index whose `redactions` is not a list (at `line`).
pub(crate) fn redactions_not_a_list(line: Option<usize>) -> LogError {
    LogError::Malformed {
        file: INDEX_FILE.into(),
        line,
        message: "`redactions` is not a list".into(),
    }
}

/// What re-indexing the redacted entry `e` writes: its new index line, its record in the
/// index's `redactions` list (never the old digest: a short secret could be recovered
/// from it) and the report of it.
pub(crate) fn redaction_of(
    e: &LogEntry,
    compared: bool,
    today: Date,
) -> (IndexEntry, Value, Redaction) {
    let mut reasons = redaction_reasons(&e.text);
    if reasons.is_empty() {
        reasons.push(CLOSING_REPAIR.to_string());
    }
    let mut m = Map::new();
    m.insert("sha256".into(), Value::from(e.digest()));
    m.insert("title".into(), Value::from(e.header.clone()));
    m.insert("reasons".into(), Value::from(reasons.clone()));
    m.insert("date".into(), Value::from(today.to_string()));
    (
        IndexEntry {
            sha256: e.digest(),
            title: e.header.clone(),
        },
        Value::Object(m),
        Redaction {
            line: e.line,
            title: e.header.clone(),
            sha256: e.digest(),
            reasons,
            compared,
        },
    )
}

/// The index `render` writes for `doc` (its keys but `version`, `entries` and `archived`)
/// around its entries: the text up to the `[` opening the list, and from its `]` on. An
/// index with entries is `before`, each entry's [`index_entry_text`] after `"\n"` (the
/// first) or `",\n"`, then `"\n  "` and `after`; one without is `before` then `after`.
pub(crate) fn index_around_entries(doc: Map<String, Value>) -> (String, String) {
    let skeleton = ArchiveIndex {
        entries: Vec::new(),
        legacy: false,
        doc,
    }
    .render();
    // `version` comes first, then `entries` at the top level's indentation: deeper keys
    // are indented further, and a newline inside a string is escaped.
    let key = "\n  \"entries\": [";
    let at = skeleton
        .find(key)
        .expect("render writes `entries` right after `version`")
        + key.len();
    let after = skeleton[at..].to_string();
    let mut before = skeleton;
    before.truncate(at);
    (before, after)
}

/// One element of the index's `entries` list as `render` writes it (indented, without the
/// separator before it).
pub(crate) fn index_entry_text(e: &IndexEntry) -> String {
    format!(
        "    {{\n      \"sha256\": {},\n      \"title\": {}\n    }}",
        ascii_json_string(&e.sha256),
        ascii_json_string(&e.title)
    )
}

/// Inserts an entry at the top of the journal (newest first, right after the preamble),
/// leaving everything else as it was. The entry should start with a dated heading
/// (`## [YYYY-MM-DD] agent: title`); it is written with the file's line endings.
pub fn append_entry(log: &str, entry_markdown: &str) -> String {
    let file = LogFile::parse(log);
    let nl = file.line_ending;
    let entry = entry_text(entry_markdown.trim_start_matches(is_py_space)).replace('\n', nl);
    let mut out = String::with_capacity(log.len() + entry.len() + 16);
    if file.bom {
        out.push('\u{feff}');
    }
    if file.entries.is_empty() {
        let pre = file.preamble.trim_end_matches(is_py_space);
        out.push_str(pre);
        if !pre.is_empty() {
            out.push_str(nl);
            out.push_str(nl);
        }
        out.push_str(&entry);
        out.push_str(nl);
        return out;
    }
    out.push_str(&file.preamble);
    if !file.preamble.is_empty() && !file.preamble.ends_with(['\n', '\r']) {
        out.push_str(nl);
    }
    out.push_str(&entry);
    out.push_str(&SEPARATOR.replace('\n', nl));
    for e in &file.entries {
        out.push_str(&e.raw);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(date: &str, n: usize) -> String {
        format!("## [{date}] agent-{n}: Session {n}\n\n**Agent:** agent-{n}\n\n- did {n}\n")
    }

    fn journal(entries: &[String]) -> String {
        let mut s = String::from("# Journal\n\n> Newest first.\n\n---\n\n");
        s.push_str(&entries.join("\n---\n\n"));
        s
    }

    #[test]
    fn a_refused_rotation_names_each_problem_where_it_is() {
        // `commit` reported "inconsistent (1 problem(s))" and left the user to find which.
        let archive = "# Archive\n\n## [2026-01-02] b: open\n\nDone.\n\n<!-- TODO\n\n---\n\n## [2026-01-01] a: hidden\n\nText.\n";
        let log = journal(&[entry("2026-02-02", 2), entry("2026-02-01", 1)]);
        let problems = verify_archive(&log, Some(archive), None, 10);
        assert!(
            problems.contains(&ArchiveProblem::LeftOpen {
                title: "## [2026-01-02] b: open".into(),
                line: 7,
                what: markdown::LeftOpen::Comment,
            }),
            "{problems:?}"
        );
        let e = rotate(&log, Some(archive), None, 1).unwrap_err();
        let text = e.into_error(|f| format!(".ai/handoff/{f}")).to_string();
        assert!(
            text.starts_with("the log archive is inconsistent; nothing was changed:\n")
                && text.contains("\n  .ai/handoff/LOG-ARCHIVE.md:7: the archived entry `## [2026-01-02] b: open` opens an HTML comment"),
            "{text}"
        );
        // A marker in a paragraph is text: nothing is left open.
        let inline = archive.replace("Done.\n\n<!-- TODO", "Done. <!-- TODO");
        assert!(
            !verify_archive(&log, Some(&inline), None, 10)
                .iter()
                .any(|p| matches!(p, ArchiveProblem::LeftOpen { .. }))
        );
    }

    #[test]
    fn a_redaction_keeps_everything_outside_its_markers() {
        let original = "## [2026-01-01] a: x\n\nkey sk-123 for alice at acme\n";
        for (redacted, ok) in [
            (
                "## [2026-01-01] a: x\n\nkey [redacted: key] for alice at acme\n",
                true,
            ),
            (
                "## [2026-01-01] a: x\n\nkey [redacted: key] for [redacted: name] at acme\n",
                true,
            ),
            ("## [2026-01-01] a: x\n\n[redacted: all of it]", true),
            // Text added, text changed, or no marker at all: not a redaction.
            (
                "## [2026-01-01] a: x\n\nkey [redacted: key] for bob at acme\n",
                false,
            ),
            (
                "## [2026-01-01] a: x\n\nkey [redacted: key] for alice at acme, tests pass\n",
                false,
            ),
            (
                "## [2026-01-01] a: x\n\nkey sk-123 for alice at acme\n",
                false,
            ),
            (
                "## [2026-01-01] a: x\n\nkey [redacted:] for alice at acme\n",
                false,
            ),
            (
                "## [2026-01-01] a: x\n\nkey [redacted: k\n] for alice at acme\n",
                false,
            ),
            // The pieces must come in order and not overlap.
            (
                "## [2026-01-01] a: x\n\n[redacted: r]acme[redacted: r]alice[redacted: r]",
                false,
            ),
        ] {
            assert_eq!(is_redaction_of(redacted, original), ok, "{redacted:?}");
        }
        assert_eq!(
            redaction_reasons("a [redacted:  key ] b [redacted:] c [redacted: name]"),
            ["key", "name"]
        );
    }

    #[test]
    fn a_repair_adds_closing_lines_and_nothing_else() {
        let original = "## [2026-01-01] a: t\n\n```\ncode\n";
        for added in ["```\n", "\n````\n", "-->\n", "</pre>\n\n", "```\n-->\n"] {
            assert!(
                is_closing_repair(&format!("{original}{added}"), original),
                "{added:?}"
            );
        }
        for added in [
            "",
            "\n\n",
            "```\nmore\n",
            "</pre> and text\n",
            "<!--\n",
            "</ >\n",
        ] {
            assert!(
                !is_closing_repair(&format!("{original}{added}"), original),
                "{added:?}"
            );
        }
        assert!(!is_closing_repair(
            "## [2026-01-01] a: t\n\nedited\n```\n",
            original
        ));
    }

    #[test]
    fn reindex_gives_a_redacted_entry_its_index_line_and_nothing_else() {
        let log = journal(&[
            entry("2026-01-05", 5),
            entry("2026-01-02", 2),
            entry("2026-01-01", 1),
        ]);
        let rot = rotate(&log, None, None, 1).unwrap().unwrap();
        let today: Date = "2026-02-01".parse().unwrap();
        let none = |_: &str| None;
        assert!(
            reindex(&rot.archive, &rot.index, &none, today)
                .unwrap()
                .is_none()
        );
        let redacted = rot.archive.replace("- did 1\n", "- did [redacted: why]\n");
        let originals: HashMap<String, String> = LogFile::parse(&rot.archive)
            .entries
            .into_iter()
            .map(|e| (e.digest(), e.text))
            .collect();
        let known = |d: &str| originals.get(d).cloned();
        let re = reindex(&redacted, &rot.index, &known, today)
            .unwrap()
            .unwrap();
        assert_eq!(re.redactions.len(), 1);
        assert!(re.redactions[0].compared);
        assert!(
            re.index.contains("\"date\": \"2026-02-01\""),
            "{}",
            re.index
        );
        assert!(verify_archive(&rot.log, Some(&redacted), Some(&re.index), 1).is_empty());
        // An index without the original's text is not fooled by a changed heading.
        let renamed = redacted.replace("Session 1\n", "Session one\n");
        assert!(matches!(
            reindex(&renamed, &rot.index, &none, today),
            Err(LogError::Integrity(p)) if p.len() == 2
        ));
    }

    #[test]
    fn digest_matches_the_reference_algorithm() {
        // Python: hashlib.sha256(("## [2026-01-02] a: t\n\nbody".strip() + "\n").encode())
        let log = LogFile::parse("# P\n\n## [2026-01-02] a: t\r\n\r\nbody\r\n\r\n---\r\n\r\n");
        assert_eq!(log.entries.len(), 1);
        assert_eq!(log.entries[0].text, "## [2026-01-02] a: t\n\nbody");
        let mut h = Sha256::new();
        h.update(b"## [2026-01-02] a: t\n\nbody\n");
        assert_eq!(log.entries[0].digest(), hex(&h.finalize()));
    }

    #[test]
    fn digest_of_reference_archive_entry_matches_its_index() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/corpora/handoff-negatives/homeofe+AAHP/"
        );
        let read = |name: &str| {
            std::fs::read_to_string(format!("{dir}{name}"))
                .unwrap_or_else(|e| panic!("the shared corpora are missing at {dir}: {e}"))
        };
        let (archive, index) = (read("LOG-ARCHIVE.md"), read("LOG-ARCHIVE.index.json"));
        let archive = LogFile::parse(&archive);
        let index = ArchiveIndex::parse(&index).unwrap();
        assert_eq!(
            archive.digests(),
            index
                .entries
                .iter()
                .map(|e| e.sha256.clone())
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn headings_in_code_fences_do_not_start_entries() {
        let text = "# L\n\n## [2026-01-03] a: x\n\n```md\n## [2026-01-01] fake\n```\n\n## [2026-01-02] b: y\n";
        let log = LogFile::parse(text);
        let headers: Vec<_> = log.entries.iter().map(|e| e.header.as_str()).collect();
        assert_eq!(headers, ["## [2026-01-03] a: x", "## [2026-01-02] b: y"]);
        assert!(log.entries[0].text.contains("fake"));
    }

    #[test]
    fn unbracketed_dates_and_times_are_entries() {
        let log = LogFile::parse("# L\n\n## 2026-02-22 00:35 - Pilot\nx\n## 2026-02-21 - Found\n");
        assert_eq!(log.entries.len(), 2);
        assert_eq!(log.entries[0].date, Some(jiff::civil::date(2026, 2, 22)));
        assert!(LogFile::parse("## 20260-01-01 x\n").entries.is_empty());
        assert!(
            LogFile::parse("## [YYYY-MM-DD] agent: title\n")
                .entries
                .is_empty()
        );
    }

    #[test]
    fn undated_journal_is_refused_with_its_line() {
        let log = LogFile::parse("# L\n\n## Session 3\n\nx\n\n## Session 2\n");
        let err = log.check_dated(LOG_FILE).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LOG.md:3: no dated entries: `## Session 3` is not an entry heading; entries start with `## [YYYY-MM-DD] agent: title`"
        );
        let bad = LogFile::parse("# L\n\n## [2026-02-30] a: b\n");
        assert!(
            bad.check_dated(LOG_FILE)
                .unwrap_err()
                .to_string()
                .starts_with("LOG.md:3:")
        );
        let template = LogFile::parse("# L\n\n## [YYYY-MM-DD] <Agent>: <Title>\n");
        assert!(template.check_dated(LOG_FILE).is_ok());
    }

    #[test]
    fn rotation_keeps_the_newest_by_date_not_by_position() {
        // Oldest first: the reference would keep the two oldest.
        let entries: Vec<String> = (1..=4)
            .map(|n| entry(&format!("2026-01-0{n}"), n))
            .collect();
        let log = journal(&entries);
        let rot = rotate(&log, None, None, 2).unwrap().unwrap();
        let kept = LogFile::parse(&rot.log);
        let dates: Vec<_> = kept
            .entries
            .iter()
            .map(|e| e.date.unwrap().to_string())
            .collect();
        assert_eq!(dates, ["2026-01-03", "2026-01-04"]);
        let archive = LogFile::parse(&rot.archive);
        let dates: Vec<_> = archive
            .entries
            .iter()
            .map(|e| e.date.unwrap().to_string())
            .collect();
        // The archive is append-only: oldest first.
        assert_eq!(dates, ["2026-01-01", "2026-01-02"]);
        assert!(rot.archive.starts_with(DEFAULT_ARCHIVE_PREAMBLE));
        assert_eq!(rot.moved, 2);
    }

    #[test]
    fn rotation_appends_to_the_archive_and_its_index_in_place() {
        let first: Vec<String> = (1..=4)
            .rev()
            .map(|n| entry(&format!("2026-01-0{n}"), n))
            .collect();
        let rot = rotate(&journal(&first), None, None, 2).unwrap().unwrap();
        assert!(rot.archive_splice.is_none() && rot.index_splice.is_none());
        let more = append_entry(&rot.log, &entry("2026-01-05", 5));
        let more = append_entry(&more, &entry("2026-01-06", 6));
        let rot2 = rotate(&more, Some(&rot.archive), Some(&rot.index), 2)
            .unwrap()
            .unwrap();
        // Old bytes stay; the splice is exactly what follows them.
        let a = rot2.archive_splice.as_ref().unwrap();
        assert_eq!(a.keep, rot.archive.len());
        assert_eq!(rot2.archive, format!("{}{}", rot.archive, a.text));
        let i = rot2.index_splice.as_ref().unwrap();
        assert_eq!(rot2.index, format!("{}{}", &rot.index[..i.keep], i.text));
        // The whole index is what the reference would render (entries appended at the end).
        let parsed = ArchiveIndex::parse(&rot2.index).unwrap();
        assert_eq!(parsed.render(), rot2.index);
        let dates: Vec<_> = LogFile::parse(&rot2.archive)
            .entries
            .iter()
            .map(|e| e.date.unwrap().to_string())
            .collect();
        assert_eq!(
            dates,
            ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"]
        );
        assert_eq!(
            LogFile::parse(&rot2.archive).digests(),
            parsed
                .entries
                .iter()
                .map(|e| e.sha256.clone())
                .collect::<Vec<_>>()
        );
        assert!(verify_archive(&rot2.log, Some(&rot2.archive), Some(&rot2.index), 2).is_empty());
        // Trusting the old files gives the same result, checking only what was appended.
        let Trusted::Rotated(fast) = trusted(&more, &rot.archive, &rot.index, 2, 64) else {
            panic!("the trusted rotation declined")
        };
        assert_eq!(fast.archived, Some(4));
        assert_eq!(
            Rotation {
                archived: None,
                ..*fast
            },
            rot2
        );
    }

    #[test]
    fn a_newest_first_archive_is_extended_at_its_end() {
        // The reference's layout: newest first, CRLF, no final separator.
        let old_entries = [entry("2026-01-02", 2), entry("2026-01-01", 1)];
        let archive = format!(
            "{DEFAULT_ARCHIVE_PREAMBLE}{}",
            old_entries.join("\n---\n\n")
        )
        .replace('\n', "\r\n");
        let digests = LogFile::parse(&archive).digests();
        let index = ArchiveIndex {
            entries: LogFile::parse(&archive)
                .entries
                .iter()
                .map(as_index)
                .collect(),
            legacy: false,
            doc: Map::new(),
        }
        .render();
        let log = journal(&[entry("2026-01-05", 5), entry("2026-01-03", 3)]);
        for rot in [
            rotate(&log, Some(&archive), Some(&index), 1)
                .unwrap()
                .unwrap(),
            match trusted(&log, &archive, &index, 1, 40) {
                Trusted::Rotated(r) => *r,
                other => panic!("{other:?}"),
            },
        ] {
            assert!(rot.archive.starts_with(&archive));
            assert!(rot.archive[archive.len()..].starts_with("\r\n---\r\n\r\n## [2026-01-03]"));
            assert!(!rot.archive.replace("\r\n", "").contains('\n'));
            let all = LogFile::parse(&rot.archive).digests();
            assert_eq!(all[..2], digests[..]);
            assert_eq!(all.len(), 3);
            assert!(verify_archive(&rot.log, Some(&rot.archive), Some(&rot.index), 1).is_empty());
        }
    }

    #[test]
    fn the_index_scan_accepts_no_nesting_a_json_parser_refuses() {
        for depth in [1, 100, 126, 127, 128, 129, 200, 20_000] {
            let doc = format!(
                "{{\"version\": 1, \"entries\": [], \"x\": {}{}}}",
                "[".repeat(depth),
                "]".repeat(depth)
            );
            let parses = serde_json::from_str::<serde_json::Value>(&doc).is_ok();
            assert_eq!(index_end(doc.as_bytes()).is_some(), parses, "depth {depth}");
        }
        assert!(index_end(b"{\"version\": 1, \"entries\": [], \"x\": [[[1]]]}").is_some());
    }

    #[test]
    fn index_end_finds_the_entries_list_wherever_it_is() {
        fn at(t: &str) -> Option<(&str, bool)> {
            index_end(t.as_bytes()).map(|e| (&t[..e.cut], e.empty))
        }
        assert_eq!(
            at("{\"version\":1,\"entries\":[]}"),
            Some(("{\"version\":1,\"entries\":[", true))
        );
        let t = "{\"entries\": [{\"sha256\": \"a]\\\"}\"}, {}], \"x\": [{}], \"version\": 1}";
        assert_eq!(
            at(t),
            Some(("{\"entries\": [{\"sha256\": \"a]\\\"}\"}, {}", false))
        );
        assert_eq!(at("{\"archived\": []}"), None);
        assert_eq!(at("{\"entries\": [], \"entries\": []}"), None);
        assert_eq!(at("{\"entries\": [\"x\"]}"), None);
        assert_eq!(at("{\"entries\": [1]}"), None);
        assert_eq!(at("{\"x\": {\"entries\": []}}"), None);
        assert_eq!(at("{\"entries\": [{}]"), None);
        assert_eq!(at("{\"entries\": [{}]} x"), None);
        assert_eq!(at("[{\"entries\": [{}]}]"), None);
        assert_eq!(at(" {\"entries\": [{}]}\n").map(|(_, e)| e), Some(false));
    }

    #[test]
    fn index_end_read_in_pieces_finds_what_it_finds_read_whole() {
        let docs = [
            "{\"version\":1,\"entries\":[]}",
            "{\"entries\": [{\"sha256\": \"a]\\\"}\"}, {}], \"x\": [{}], \"version\": 1}",
            "{\"entr\\u0069es\": [{}]}",
            "{\"entries\": [\"x\"]}",
            "{\"entries\": [{}]} x",
            " {\"version\": 1, \"entries\": [\n    {\"title\": \"\\\\\"}\n  ]\n}\n",
            "{\"entries\": [{\"t\": \"unterminated}]}",
            // A key longer than the scanner keeps that starts like `entries`; blanks of every
            // kind between tokens.
            "{\"entries_old\" : [{}],\r\n\t\"entries\" :\t[ {} ,\n {\"t\": \"entries\"} ]\r\n}\n",
        ];
        let last = index_end(docs[docs.len() - 1].as_bytes()).expect("the list is found");
        assert_eq!((last.count, last.empty), (2, false));
        for doc in docs {
            let whole = index_end(doc.as_bytes());
            for cut in 0..=doc.len() {
                let mut scan = IndexScanner::default();
                scan.feed(&doc.as_bytes()[..cut]);
                scan.feed(&doc.as_bytes()[cut..]);
                assert_eq!(scan.finish(), whole, "{doc} cut at {cut}");
            }
            let mut scan = IndexScanner::default();
            for b in doc.as_bytes() {
                scan.feed(std::slice::from_ref(b));
            }
            assert_eq!(scan.finish(), whole, "{doc} byte by byte");
        }
    }

    #[test]
    fn trusted_rotation_declines_what_it_cannot_append_proportionally() {
        let rot = rotate(
            &journal(&[entry("2026-01-02", 2), entry("2026-01-01", 1)]),
            None,
            None,
            1,
        )
        .unwrap()
        .unwrap();
        let fenced = "## [2026-01-03] a: code\n\n```\nx\n```\n";
        let log = append_entry(&append_entry(&rot.log, fenced), &entry("2026-01-04", 4));
        let declined = |log: &str, index: &str| {
            trusted(log, &rot.archive, index, 1, 4096) == Trusted::Declined
        };
        assert!(declined(&log, &rot.index));
        let log = append_entry(&rot.log, &entry("2026-01-04", 4));
        assert!(declined(&log, "{\"archived\": []}"));
        assert_eq!(
            trusted(&rot.log, &rot.archive, &rot.index, 1, 4096),
            Trusted::UpToDate { archived: 1 }
        );
        // A tail of blank lines does not show how the archive ends: read it whole instead.
        let blank_end = format!("{}{}", rot.archive, "\n".repeat(100));
        let log = append_entry(&rot.log, &entry("2026-01-04", 4));
        assert_eq!(
            trusted(&log, &blank_end, &rot.index, 1, 50),
            Trusted::Declined
        );
        assert!(matches!(
            trusted(&log, &blank_end, &rot.index, 1, 200),
            Trusted::Rotated(_)
        ));
    }

    /// [`rotate_onto_trusted`] on the ends of whole texts (the archive's tail cut to `tail`
    /// bytes), with the old texts put back around its splices so that it compares with
    /// [`rotate`].
    fn trusted(log: &str, archive: &str, index: &str, keep: usize, tail: usize) -> Trusted {
        let Some(ends) = TrustedEnds::of(archive, index, tail) else {
            return Trusted::Declined;
        };
        match rotate_onto_trusted(log, &ends, keep).unwrap() {
            Trusted::Rotated(mut r) => {
                let a = r.archive_splice.clone().unwrap();
                let i = r.index_splice.clone().unwrap();
                r.archive = format!("{}{}", &archive[..a.keep], a.text);
                r.index = format!("{}{}", &index[..i.keep], i.text);
                assert_eq!(
                    (r.archive.len(), r.index.len()),
                    (r.archive_len, r.index_len)
                );
                Trusted::Rotated(r)
            }
            other => other,
        }
    }

    #[test]
    fn rotation_leaves_kept_entries_byte_identical_and_is_idempotent() {
        let entries: Vec<String> = (1..=5)
            .rev()
            .map(|n| entry(&format!("2026-01-0{n}"), n))
            .collect();
        let log = journal(&entries).replace('\n', "\r\n");
        let rot = rotate(&log, None, None, 3).unwrap().unwrap();
        assert!(log.starts_with(&rot.log));
        assert!(rot.log.contains("\r\n"));
        assert!(
            rotate(&rot.log, Some(&rot.archive), Some(&rot.index), 3)
                .unwrap()
                .is_none()
        );
        assert!(verify_archive(&rot.log, Some(&rot.archive), Some(&rot.index), 3).is_empty());
    }

    #[test]
    fn index_layout_matches_the_reference() {
        let entries: Vec<String> = vec![
            entry("2026-01-02", 2),
            entry("2026-01-01", 1).replace("Session 1", "Sessión 1"),
        ];
        let rot = rotate(&journal(&entries), None, None, 1).unwrap().unwrap();
        let digest = LogFile::parse(&rot.archive).entries[0].digest();
        assert_eq!(
            rot.index,
            format!(
                "{{\n  \"version\": 1,\n  \"entries\": [\n    {{\n      \"sha256\": \"{digest}\",\n      \"title\": \"## [2026-01-01] agent-1: Sessi\\u00f3n 1\"\n    }}\n  ]\n}}\n"
            )
        );
    }

    #[test]
    fn identical_entries_are_each_archived_and_counted() {
        // H6: an entry identical to a kept one, and two identical entries that both leave.
        let same = entry("2026-01-01", 0);
        let mut entries = vec![same.clone()];
        entries.extend((1..=3).map(|n| entry(&format!("2026-01-0{}", n + 1), n)));
        entries.push(same.clone());
        entries.push(same.clone());
        let log = journal(&entries);
        let rot = rotate(&log, None, None, 3).unwrap().unwrap();
        let kept = LogFile::parse(&rot.log);
        let archive = LogFile::parse(&rot.archive);
        let index = ArchiveIndex::parse(&rot.index).unwrap();
        assert_eq!(rot.moved, 3);
        assert_eq!(kept.entries.len() + archive.entries.len(), 6);
        assert_eq!(archive.entries.len(), 3);
        assert_eq!(index.entries.len(), 3);
        assert!(verify_archive(&rot.log, Some(&rot.archive), Some(&rot.index), 3).is_empty());
        // Rotating again with the same entry kept once more archives it once more.
        let again = append_entry(&rot.log, &same);
        let rot2 = rotate(&again, Some(&rot.archive), Some(&rot.index), 3)
            .unwrap()
            .unwrap();
        assert_eq!(LogFile::parse(&rot2.archive).entries.len(), 4);
        assert!(verify_archive(&rot2.log, Some(&rot2.archive), Some(&rot2.index), 3).is_empty());
        // An index that lists a digest fewer times than the archive holds it is caught.
        let short = rot2
            .index
            .replacen(&archive.entries[1].digest(), &"0".repeat(64), 1);
        let p = verify_archive(&rot2.log, Some(&rot2.archive), Some(&short), 3);
        assert!(
            p.iter().any(|p| matches!(p, ArchiveProblem::Forged { .. }))
                && p.iter()
                    .any(|p| matches!(p, ArchiveProblem::Missing { .. })),
            "{p:?}"
        );
    }

    #[test]
    fn verify_detects_forged_missing_and_duplicate_entries() {
        let entries: Vec<String> = (1..=4)
            .rev()
            .map(|n| entry(&format!("2026-01-0{n}"), n))
            .collect();
        let rot = rotate(&journal(&entries), None, None, 2).unwrap().unwrap();
        let forged = rot.archive.replace(
            "---\n\n## [2026-01-02]",
            "---\n\n## [2026-01-01] evil: x\n\nforged\n\n---\n\n## [2026-01-02]",
        );
        let p = verify_archive(&rot.log, Some(&forged), Some(&rot.index), 2);
        assert!(
            matches!(p.as_slice(), [ArchiveProblem::Forged { title, .. }] if title.contains("evil"))
        );
        let edited = rot.archive.replace("- did 1", "- did something else");
        let p = verify_archive(&rot.log, Some(&edited), Some(&rot.index), 2);
        assert_eq!(p.len(), 2, "{p:?}"); // the edited entry is both forged and missing
        let doubled = format!("{}\n---\n\n{}", rot.archive, entry("2026-01-01", 1));
        let p = verify_archive(&rot.log, Some(&doubled), Some(&rot.index), 2);
        assert!(
            matches!(p.as_slice(), [ArchiveProblem::Forged { line, .. }] if *line > 10),
            "{p:?}"
        );
        // Rotation refuses to build on that damage.
        let more = journal(
            &(1..=5)
                .rev()
                .map(|n| entry(&format!("2026-01-0{n}"), n))
                .collect::<Vec<_>>(),
        );
        assert!(matches!(
            rotate(&more, Some(&forged), Some(&rot.index), 2),
            Err(LogError::Integrity(_))
        ));
    }

    #[test]
    fn a_list_that_is_not_one_is_named_by_its_own_key() {
        for (doc, key) in [
            ("{\"archived\": {\"a\": 1}}", "`archived`"),
            ("{\"archived\": null}", "`archived`"),
            ("{\"version\": 1, \"entries\": {}}", "`entries`"),
        ] {
            let err = ArchiveIndex::parse(doc).unwrap_err().to_string();
            assert!(
                err.contains(&format!("{key} is not a list")),
                "{doc}: {err}"
            );
        }
    }

    #[test]
    fn malformed_index_names_file_and_line() {
        let err = ArchiveIndex::parse(
            "{\n  \"version\": 1,\n  \"entries\": [\n    {\"sha256\": \"zz\"}\n  ]\n}",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "LOG-ARCHIVE.index.json:4: entry 1 has no valid `sha256` (64 hex digits)"
        );
        let err = ArchiveIndex::parse("{\n  \"version\": 1,\n  oops").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("LOG-ARCHIVE.index.json:3: invalid JSON"),
            "{err}"
        );
        let err = ArchiveIndex::parse("{\"version\": 2, \"entries\": []}").unwrap_err();
        assert!(err.to_string().contains("unsupported version 2"), "{err}");
        let legacy = ArchiveIndex::parse("{\"archived\": [], \"updated\": \"x\"}").unwrap();
        assert!(legacy.legacy && legacy.entries.is_empty());
    }

    #[test]
    fn append_entry_goes_first_after_the_preamble() {
        let log = journal(&[entry("2026-01-02", 2)]);
        let out = append_entry(&log, "## [2026-01-03] git-aahp: Recovery\n\nrolled back\n");
        let parsed = LogFile::parse(&out);
        assert_eq!(parsed.entries.len(), 2);
        assert_eq!(
            parsed.entries[0].header,
            "## [2026-01-03] git-aahp: Recovery"
        );
        assert_eq!(parsed.entries[1].raw, LogFile::parse(&log).entries[0].raw);
        let empty = append_entry("# L\n\n---\n", "## [2026-01-03] a: b\n");
        assert_eq!(empty, "# L\n\n---\n\n## [2026-01-03] a: b\n");
        let crlf = append_entry(
            "# L\r\n\r\n## [2026-01-01] a: b\r\n",
            "## [2026-01-03] c: d\n\nx",
        );
        assert_eq!(
            crlf,
            "# L\r\n\r\n## [2026-01-03] c: d\r\n\r\nx\r\n\r\n---\r\n\r\n## [2026-01-01] a: b\r\n"
        );
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        fn arb_log() -> impl Strategy<Value = (Vec<(u8, String)>, usize)> {
            (
                // Few dates and bodies: identical entries are common (H6).
                prop::collection::vec((0u8..4, "[ab ]{0,2}"), 0..25),
                1usize..12,
            )
        }

        fn build(items: &[(u8, String)]) -> String {
            let entries: Vec<String> = items
                .iter()
                .map(|(d, body)| {
                    format!(
                        "## [2026-03-{:02}] agent: entry\n\n{body}\n",
                        u32::from(*d) + 1
                    )
                })
                .collect();
            journal(&entries)
        }

        proptest! {
            #[test]
            fn rotation_never_loses_or_reorders_entries((items, keep) in arb_log()) {
                let log = build(&items);
                let before = LogFile::parse(&log);
                match rotate(&log, None, None, keep).unwrap() {
                    None => prop_assert!(before.entries.len() <= keep),
                    Some(rot) => {
                        let after = LogFile::parse(&rot.log);
                        let archive = LogFile::parse(&rot.archive);
                        prop_assert_eq!(after.entries.len(), keep);
                        // Kept: the newest by date, in their old relative order.
                        let want = newest(&before.entries, keep);
                        let mut want_sorted = want.clone();
                        want_sorted.sort_unstable();
                        let want_d: Vec<_> = want_sorted.iter().map(|&i| before.entries[i].digest()).collect();
                        prop_assert_eq!(after.digests(), want_d);
                        // Nothing lost or duplicated: kept and archived are the old entries,
                        // copies counted.
                        let mut all: Vec<String> = after.digests().into_iter().chain(archive.digests()).collect();
                        let mut old = before.digests();
                        all.sort_unstable();
                        old.sort_unstable();
                        prop_assert_eq!(all, old);
                        prop_assert_eq!(archive.entries.len(), rot.moved);
                        // Archive oldest first (append-only).
                        let dates: Vec<_> = archive.entries.iter().map(|e| e.date).collect();
                        let mut sorted = dates.clone();
                        sorted.sort();
                        prop_assert_eq!(dates, sorted);
                        prop_assert!(verify_archive(&rot.log, Some(&rot.archive), Some(&rot.index), keep).is_empty());
                        prop_assert!(rotate(&rot.log, Some(&rot.archive), Some(&rot.index), keep).unwrap().is_none());
                    }
                }
            }

            #[test]
            fn parse_never_panics_and_keeps_every_byte(text in "(## \\[2026-01-0[1-9]\\] x\n|```\n|---\n|[a-z ]{0,8}\n|\r\n){0,30}") {
                let log = LogFile::parse(&text);
                prop_assert_eq!(log.render_with(log.entries.iter()), text);
            }
        }
    }
}
