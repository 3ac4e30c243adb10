//! `TRUST.md`: claims in Markdown tables, their expiry, decay and re-verification. Pure text
//! in, text out; running a verification command is the caller's job (`commands::trust`).
//!
//! Tables are read as real files look: a header is recognised by its column names (a
//! `Status` column makes a claims table), separator rows are skipped, `**verified**`,
//! `verified ✅` and `Verified` all mean verified, `\|` is a pipe inside a cell, a file may
//! hold several tables, a table split by blank lines keeps its header, and CRLF files stay
//! CRLF. Every rewrite replaces only the cells that change.

use std::fmt::Write as _;
use std::ops::Range;

use jiff::civil::Date;

use super::markdown::{self, Cell};
use crate::error::{Error, Result};

/// The status a claim gets when a verification anchors it.
pub const VERIFIED: &str = "verified";
/// The status an expired `verified` claim decays to.
pub const ASSUMED: &str = "assumed";
/// The status of a claim nobody has checked (also what recovery sets).
pub const UNTESTED: &str = "untested";
/// The TTL a new claim gets when none is given.
pub const DEFAULT_TTL_DAYS: i64 = 7;
/// Columns of a table this tool creates, as in the reference's template.
pub const TEMPLATE_COLUMNS: &[&str] = &[
    "Property",
    "Status",
    "Provenance",
    "Last Verified",
    "Agent",
    "TTL",
    "Expires",
    "Notes",
];

/// What a column of a claims table holds, recognised by its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Property,
    Status,
    Provenance,
    LastVerified,
    Agent,
    Ttl,
    Expires,
    Notes,
    Evidence,
    /// The name of a check that re-proves the claim (the reference's 4.0 `Check` column).
    Check,
}

fn role_of(header: &str) -> Option<Role> {
    let key = header_key(header);
    Some(match key.as_str() {
        "property" | "claim" | "component" | "name" | "item" | "capability" => Role::Property,
        "check" => Role::Check,
        "status" => Role::Status,
        "provenance" => Role::Provenance,
        "last verified" | "verified" | "verified on" | "last checked" | "checked" | "date" => {
            Role::LastVerified
        }
        "agent" | "verified by" | "by" => Role::Agent,
        "ttl" => Role::Ttl,
        "expires" | "expiry" | "expires on" | "valid until" => Role::Expires,
        "notes" | "note" | "comment" | "comments" => Role::Notes,
        "evidence" => Role::Evidence,
        _ => return None,
    })
}

/// Lowercase letters and digits of a header, other characters as single spaces.
fn header_key(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                ' '
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Which column holds what in one claims table.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Columns {
    count: usize,
    property: usize,
    status: usize,
    provenance: Option<usize>,
    last_verified: Option<usize>,
    agent: Option<usize>,
    ttl: Option<usize>,
    expires: Option<usize>,
    notes: Option<usize>,
    evidence: Option<usize>,
    check: Option<usize>,
    /// Character widths of the separator row's cells, to keep aligned tables aligned.
    widths: Vec<usize>,
}

impl Columns {
    fn from_header(names: &[String]) -> Option<Columns> {
        let roles: Vec<Option<Role>> = names.iter().map(|n| role_of(n)).collect();
        let find = |r: Role| roles.iter().position(|x| *x == Some(r));
        let status = find(Role::Status)?;
        // A table with no other property column names its claims in a `Check` column (an
        // older layout); beside a property column, `Check` names the check (4.0's layout).
        let property = find(Role::Property)
            .or_else(|| find(Role::Check))
            .unwrap_or(usize::from(status == 0));
        if property >= names.len() {
            return None;
        }
        Some(Columns {
            count: names.len(),
            property,
            status,
            provenance: find(Role::Provenance),
            last_verified: find(Role::LastVerified),
            agent: find(Role::Agent),
            ttl: find(Role::Ttl),
            expires: find(Role::Expires),
            notes: find(Role::Notes),
            evidence: find(Role::Evidence),
            check: find(Role::Check).filter(|&c| c != property),
            widths: Vec::new(),
        })
    }

    /// The column a short evidence note goes into.
    fn evidence_column(&self) -> Option<usize> {
        self.evidence.or(self.notes)
    }
}

/// One claims table of TRUST.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustTable {
    /// The nearest Markdown heading above the table.
    pub heading: Option<String>,
    /// 1-based line of the header row.
    pub line: usize,
    /// The column names as written.
    pub columns: Vec<String>,
    cols: Columns,
    /// Every row of the table with its byte range: header, separators and data (0-based
    /// line indices), so columns can be added.
    rows: Vec<usize>,
    /// Index of the line after the last data row (where a new row goes).
    insert_after: usize,
}

/// One claim: a data row of a claims table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustClaim {
    /// The property claimed (`\|` unescaped).
    pub property: String,
    /// The status word, lowercase (`verified`, `assumed`, `untested`, …); markup and emoji
    /// around it removed.
    pub status: String,
    /// How it was checked (`test_verified`, …); `None` when empty or `-`.
    pub provenance: Option<String>,
    /// When it was last verified.
    pub last_verified: Option<Date>,
    /// How long a verification holds, in days.
    pub ttl_days: Option<i64>,
    /// The explicit expiry date.
    pub expires: Option<Date>,
    /// The agent that verified it.
    pub agent: Option<String>,
    /// The notes or evidence cell.
    pub notes: Option<String>,
    /// The check named in the `Check` column (`` ` `` markup removed); `None` for a
    /// judgment row.
    pub check: Option<String>,
    /// 1-based line of the row.
    pub line: usize,
    /// The table it is in (index into [`TrustLedger::tables`]).
    pub table: usize,
    cells: Vec<Cell>,
    line_start: usize,
}

impl TrustClaim {
    /// Returns the date after which the claim no longer holds: `Last Verified` + `TTL`, or
    /// `Expires`, the earlier of the two when both are there (an `Expires` nobody moved on
    /// re-verification, or a TTL shortened by hand, both err on the side of re-checking).
    pub fn expiry(&self) -> Option<Date> {
        let computed = match (self.last_verified, self.ttl_days) {
            (Some(d), Some(n)) => add_days(d, n),
            _ => None,
        };
        match (self.expires, computed) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// True when the claim's expiry is before `today` (a claim expiring today still holds,
    /// as in the reference).
    pub fn is_expired(&self, today: Date) -> bool {
        self.expiry().is_some_and(|e| e < today)
    }

    /// True when the claim says it was verified after `today`, past a day of clock skew
    /// between machines: a date nobody can have checked on, which vouches for nothing, and
    /// would keep the claim current for as long as it likes (review s28 #10).
    pub fn is_dated_ahead(&self, today: Date) -> bool {
        self.last_verified
            .is_some_and(|d| add_days(today, 1).is_none_or(|limit| d > limit))
    }

    /// Why the claim's date no longer vouches for it at `today`, as `review` and `status`
    /// word it: verified on a date still to come, or expired on its expiry; `None` while it
    /// holds.
    pub fn out_of_date_reason(&self, today: Date) -> Option<String> {
        if let Some(d) = self.last_verified.filter(|_| self.is_dated_ahead(today)) {
            return Some(format!("verified on a date still to come: {d}"));
        }
        self.is_expired(today).then(|| match self.expiry() {
            Some(d) => format!("expired on {d}"),
            None => "expired".into(),
        })
    }

    /// True when the claim's date no longer vouches for it at `today`: expired, or dated
    /// ahead of it ([`TrustClaim::is_dated_ahead`]).
    pub fn is_out_of_date(&self, today: Date) -> bool {
        self.is_expired(today) || self.is_dated_ahead(today)
    }

    /// The built-in check that judges this claim in place of its date (the reference's 4.0
    /// rule): the one its `Check` cell names, when the property states what that check
    /// establishes ([`Builtin::proves`](super::trust_checks::Builtin::proves)). A row
    /// naming a built-in check for another claim ("tests pass") keeps its date.
    pub fn builtin_check(&self) -> Option<super::trust_checks::Builtin> {
        self.check
            .as_deref()
            .and_then(super::trust_checks::Builtin::named)
            .filter(|b| b.proves(&self.property))
    }

    /// The built-in check this claim names but that does not establish its property.
    pub fn mismatched_builtin_check(&self) -> Option<super::trust_checks::Builtin> {
        self.check
            .as_deref()
            .and_then(super::trust_checks::Builtin::named)
            .filter(|b| !b.proves(&self.property))
    }

    /// True when a built-in check judges the claim (see [`TrustClaim::builtin_check`]).
    pub fn has_builtin_check(&self) -> bool {
        self.builtin_check().is_some()
    }

    /// True when the claim says `verified`.
    pub fn is_verified(&self) -> bool {
        self.status == VERIFIED
    }

    fn matches(&self, key: &str) -> bool {
        property_key(&self.property) == key
    }
}

/// Normalises a property name for lookups: case, markup (`` ` ``, `*`) and spacing ignored.
pub fn property_key(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '`' | '*'))
        .collect::<String>()
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// TRUST.md, parsed: its claims tables and claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustLedger {
    /// The claims tables in file order.
    pub tables: Vec<TrustTable>,
    /// Every claim in file order.
    pub claims: Vec<TrustClaim>,
    /// The line terminator the file uses.
    pub line_ending: &'static str,
}

/// The outcome of [`decay`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decay {
    /// The new text (equal to the input when nothing expired).
    pub text: String,
    /// The properties that went from `verified` to `assumed`.
    pub decayed: Vec<String>,
}

/// What [`record_verification`] records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// The property verified.
    pub property: String,
    /// Whether the check succeeded.
    pub passed: bool,
    /// The provenance token (`test_verified`, `tool_verified`).
    pub provenance: String,
    /// The day of the check.
    pub date: Date,
    /// How long the verification holds.
    pub ttl_days: i64,
    /// The agent, when known.
    pub agent: Option<String>,
    /// A short note: the command and its exit status.
    pub evidence: String,
}

/// The outcome of [`record_verification`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The new text.
    pub text: String,
    /// True when the property was not in the file and a row was added.
    pub added: bool,
    /// The status before (for an existing claim).
    pub previous_status: Option<String>,
    /// The status now.
    pub status: String,
    /// The expiry now.
    pub expires: Option<Date>,
}

/// Parsing mode: strict reports bad rows, lenient skips them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Strict,
    Lenient,
}

/// State of the table scanner.
enum Active {
    None,
    /// Rows of a table that is not a claims table.
    Other,
    /// Rows of claims table `t`; `gap` after blank lines.
    Claims {
        t: usize,
        gap: bool,
    },
}

impl TrustLedger {
    /// Parses TRUST.md. A row that cannot be read (wrong number of cells, a date or TTL that
    /// is not one) is an [`Error::Invalid`] naming `path` and the line.
    pub fn parse(path: &str, text: &str) -> Result<TrustLedger> {
        parse(path, text, Mode::Strict)
    }

    /// Returns the claims whose property matches `property` (case and markup ignored).
    pub fn find(&self, property: &str) -> Vec<&TrustClaim> {
        let key = property_key(property);
        self.claims.iter().filter(|c| c.matches(&key)).collect()
    }

    /// Returns the claims that are `verified` but out of date at `today` (expired, or dated
    /// ahead of it). A claim backed by a built-in check is not judged by its date and never
    /// expires here.
    pub fn expired(&self, today: Date) -> Vec<&TrustClaim> {
        self.claims
            .iter()
            .filter(|c| c.is_verified() && !c.has_builtin_check() && c.is_out_of_date(today))
            .collect()
    }
}

fn parse(path: &str, text: &str, mode: Mode) -> Result<TrustLedger> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let offset = text.len() - body.len();
    let lines = markdown::lines(body);
    let mask = markdown::code_mask(&lines);
    let mut tables: Vec<TrustTable> = Vec::new();
    let mut claims = Vec::new();
    let mut heading: Option<String> = None;
    let mut active = Active::None;
    // Each line split into cells once: a row's header test reads the lines around it.
    let mut rows: Vec<Option<Vec<markdown::Cell>>> = lines
        .iter()
        .map(|l| markdown::table_cells(l.text))
        .collect();
    let shape: Vec<TableLine> = lines
        .iter()
        .zip(&rows)
        .map(|(l, cells)| match cells {
            None => TableLine::Text,
            Some(c) if markdown::is_separator_row(l.text, c) => TableLine::Delimiter,
            Some(_) => TableLine::Cells,
        })
        .collect();
    for (i, line) in lines.iter().enumerate() {
        let l = line.text;
        let cells = if mask[i] { None } else { rows[i].take() };
        let Some(cells) = cells else {
            if l.trim().is_empty() && !mask[i] {
                if let Active::Claims { gap, .. } = &mut active {
                    *gap = true;
                }
            } else {
                active = Active::None;
                if !mask[i] && l.starts_with('#') {
                    heading = Some(l.trim_start_matches('#').trim().to_string());
                }
            }
            continue;
        };
        if shape[i] == TableLine::Delimiter {
            if let Active::Claims { t, .. } = active {
                tables[t].add_separator(i, l, &cells);
            }
            continue;
        }
        let texts: Vec<String> = cells
            .iter()
            .map(|c| markdown::unescape_cell(&l[c.content.clone()]))
            .collect();
        if is_header(&shape, i, &texts, &active) {
            active = match Columns::from_header(&texts) {
                Some(cols) => {
                    tables.push(TrustTable {
                        heading: heading.clone(),
                        line: i + 1,
                        columns: texts,
                        cols,
                        rows: vec![i],
                        insert_after: i + 1,
                    });
                    Active::Claims {
                        t: tables.len() - 1,
                        gap: false,
                    }
                }
                None => Active::Other,
            };
            continue;
        }
        let Active::Claims { t, gap } = active else {
            continue;
        };
        let cols = tables[t].cols.clone();
        if cells.len() != cols.count {
            if gap {
                // After blank lines, rows of another shape belong to something else.
                active = Active::Other;
                continue;
            }
            if mode == Mode::Strict {
                return Err(cell_count_error(path, i + 1, cells.len(), &tables[t]));
            }
            continue;
        }
        active = Active::Claims { t, gap: false };
        tables[t].rows.push(i);
        tables[t].insert_after = i + 1;
        match claim_from_row(&texts, &cols, t, i + 1) {
            Ok(Some(mut claim)) => {
                claim.cells = cells;
                claim.line_start = offset + line.start;
                claims.push(claim);
            }
            Err(message) if mode == Mode::Strict => {
                return Err(Error::invalid(path, Some(i + 1), message));
            }
            Ok(None) | Err(_) => {}
        }
    }
    Ok(TrustLedger {
        tables,
        claims,
        line_ending: markdown::line_ending(body),
    })
}

fn cell_count_error(path: &str, line: usize, found: usize, table: &TrustTable) -> Error {
    Error::invalid(
        path,
        Some(line),
        format!(
            "table row has {found} cells but its header (line {}) has {}; write a `|` inside a cell as `\\|`",
            table.line, table.cols.count
        ),
    )
}

/// A header row is followed by a separator row; without one, a row opening a block with a
/// `Status` column is taken as a header too (the reference recognises headers by name).
fn is_header(shape: &[TableLine], i: usize, texts: &[String], active: &Active) -> bool {
    let next_is_separator = shape.get(i + 1) == Some(&TableLine::Delimiter);
    let starts_block = i == 0 || shape[i - 1] == TableLine::Text;
    let continues = matches!(active, Active::Claims { gap: false, .. });
    next_is_separator
        || (starts_block && !continues && texts.iter().any(|t| role_of(t) == Some(Role::Status)))
}

/// What a line of TRUST.md is as a table line, read without the code mask (as a header's
/// neighbours are judged).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TableLine {
    Text,
    Delimiter,
    Cells,
}

impl TrustTable {
    fn add_separator(&mut self, i: usize, line: &str, cells: &[Cell]) {
        self.rows.push(i);
        if self.cols.widths.is_empty() {
            self.cols.widths = cells
                .iter()
                .map(|c| line[c.whole.clone()].chars().count())
                .collect();
        }
    }
}

fn optional(texts: &[String], col: Option<usize>) -> Option<&str> {
    let s = texts.get(col?)?.trim();
    if s.is_empty() || matches!(s, "-" | "—" | "–" | "n/a" | "N/A") {
        None
    } else {
        Some(s)
    }
}

fn claim_from_row(
    texts: &[String],
    cols: &Columns,
    table: usize,
    line: usize,
) -> std::result::Result<Option<TrustClaim>, String> {
    let property = texts[cols.property].trim().to_string();
    if property.is_empty() {
        return Ok(None);
    }
    let date = |col: Option<usize>, name: &str| -> std::result::Result<Option<Date>, String> {
        optional(texts, col)
            .map(|s| parse_date(s).map_err(|m| format!("{name}: {m}")))
            .transpose()
            .map(Option::flatten)
    };
    let last_verified = date(cols.last_verified, "Last Verified")?;
    let ttl_days = optional(texts, cols.ttl)
        .map(|s| parse_ttl(s).map_err(|m| format!("TTL: {m}")))
        .transpose()?
        .flatten();
    // An expiry past the last day the calendar holds would read as "never expires": a
    // typo or a planted date must not make a claim permanent (issue #12, H8).
    if let (Some(d), Some(n)) = (last_verified, ttl_days)
        && add_days(d, n).is_none()
    {
        return Err(format!(
            "Last Verified {d} + TTL {n}d is past the year 9999 (write `never` in TTL for a claim that does not expire)"
        ));
    }
    Ok(Some(TrustClaim {
        status: status_word(&texts[cols.status]),
        provenance: optional(texts, cols.provenance).map(str::to_string),
        last_verified,
        ttl_days,
        expires: date(cols.expires, "Expires")?,
        agent: optional(texts, cols.agent).map(str::to_string),
        notes: optional(texts, cols.evidence_column()).map(str::to_string),
        check: optional(texts, cols.check)
            .map(|s| s.trim_matches('`').trim().to_string())
            .filter(|s| !s.is_empty()),
        property,
        line,
        table,
        cells: Vec::new(),
        line_start: 0,
    }))
}

/// The status word of a cell: the first run of letters, lowercase (`**Verified** ✅` →
/// `verified`).
fn status_word(cell: &str) -> String {
    word_range(cell).map_or_else(String::new, |r| cell[r].to_lowercase())
}

fn word_range(cell: &str) -> Option<Range<usize>> {
    let start = cell.char_indices().find(|(_, c)| c.is_alphabetic())?.0;
    let len = cell[start..]
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '-'))
        .map_or(cell.len() - start, |(i, _)| i);
    Some(start..start + len)
}

/// A date cell: `YYYY-MM-DD`, possibly followed by more (`2026-01-08 ⚠️ EXPIRED`); a cell
/// without digits (`never`, `unknown`) holds no date.
fn parse_date(s: &str) -> std::result::Result<Option<Date>, String> {
    let t = s.trim_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '`' | '_'));
    if !t.bytes().any(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    t.get(..10)
        .and_then(|d| d.parse::<Date>().ok())
        .filter(|_| !t.as_bytes().get(10).is_some_and(u8::is_ascii_digit))
        .map(Some)
        .ok_or_else(|| format!("`{s}` is not a date (YYYY-MM-DD)"))
}

/// Longest TTL accepted, in days (about 10,000 years): anything longer is a typo or an
/// attempt to overflow the date arithmetic; `never` says "no expiry".
pub const TTL_MAX_DAYS: i64 = 3_650_000;

/// `date` + `days`, or `None` past the last representable date (year 9999); parsing refuses
/// such a row. Never panics.
fn add_days(date: Date, days: i64) -> Option<Date> {
    jiff::Span::new()
        .try_days(days)
        .ok()
        .and_then(|span| date.checked_add(span).ok())
}

/// A TTL cell: `7d`, `7 days`, `2w`, `48h` (whole days, rounded down) or a bare number of
/// days, at most [`TTL_MAX_DAYS`]; `never`/`none` means no TTL.
pub fn parse_ttl(s: &str) -> std::result::Result<Option<i64>, String> {
    let t = s.trim().to_lowercase();
    if matches!(t.as_str(), "" | "-" | "never" | "none" | "∞" | "n/a") {
        return Ok(None);
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let n: Option<i64> = t[..digits].parse().ok();
    let unit = t[digits..].trim();
    let days = n.and_then(|n| match unit {
        "" | "d" | "day" | "days" => Some(n),
        "w" | "wk" | "week" | "weeks" => n.checked_mul(7),
        "h" | "hr" | "hours" | "hour" => Some(n / 24),
        _ => None,
    });
    let days = days.ok_or_else(|| format!("`{s}` is not a TTL (write e.g. `7d`, `2w`, `48h`)"))?;
    if days > TTL_MAX_DAYS {
        return Err(format!(
            "`{s}` is longer than {TTL_MAX_DAYS} days (write `never` for a claim that does not expire)"
        ));
    }
    Ok(Some(days))
}

/// Formats a TTL the way the template writes it.
pub fn format_ttl(days: i64) -> String {
    format!("{days}d")
}

/// One cell replacement: byte range of the whole cell in the text, new cell text.
struct Edit {
    range: Range<usize>,
    text: String,
}

fn apply(text: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|e| e.range.start);
    let mut out = String::with_capacity(text.len() + 64);
    let mut pos = 0;
    for e in edits {
        out.push_str(&text[pos..e.range.start]);
        out.push_str(&e.text);
        pos = e.range.end;
    }
    out.push_str(&text[pos..]);
    out
}

/// Rewrites one cell of a claim to `value`. In an aligned table (the cell as wide as its
/// separator) the width is kept where the value fits; otherwise one space pads each side.
fn cell_edit(text: &str, claim: &TrustClaim, cols: &Columns, col: usize, value: &str) -> Edit {
    let cell = &claim.cells[col];
    let base = claim.line_start;
    let whole = base + cell.whole.start..base + cell.whole.end;
    let content = base + cell.content.start..base + cell.content.end;
    let lead = &text[whole.start..content.start];
    let lead = if lead.is_empty() { " " } else { lead };
    let old_width = text[whole.clone()].chars().count();
    let used = lead.chars().count() + value.chars().count();
    let aligned = cols.widths.get(col) == Some(&old_width);
    let trail = if aligned && old_width > used + 1 {
        old_width - used
    } else {
        1
    };
    Edit {
        range: whole,
        text: format!("{lead}{value}{}", " ".repeat(trail)),
    }
}

/// The new content of a status cell: the status word replaced, its case and surrounding
/// emphasis kept (`**Verified**` → `**Assumed**`); emoji that described the old status go.
fn restyle_status(old: &str, new: &str) -> String {
    let Some(r) = word_range(old) else {
        return new.to_string();
    };
    let word = &old[r.clone()];
    let styled = if word.len() > 1 && word.chars().all(|c| !c.is_lowercase()) {
        new.to_uppercase()
    } else if word.chars().next().is_some_and(char::is_uppercase) {
        let mut c = new.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default()
    } else {
        new.to_string()
    };
    let markup =
        |s: &str| -> String { s.chars().filter(|c| matches!(c, '*' | '_' | '`')).collect() };
    format!(
        "{}{styled}{}",
        markup(&old[..r.start]),
        markup(&old[r.end..])
    )
}

fn status_edit(text: &str, claim: &TrustClaim, cols: &Columns, new: &str) -> Edit {
    let cell = &claim.cells[cols.status];
    let old = &text[claim.line_start + cell.content.start..claim.line_start + cell.content.end];
    cell_edit(text, claim, cols, cols.status, &restyle_status(old, new))
}

/// Rewrites every expired `verified` claim to `assumed` (SPEC §3.10), changing only those
/// status cells. Rows that cannot be read are left alone: call [`TrustLedger::parse`] first
/// to reject them.
pub fn decay(text: &str, today: Date) -> Decay {
    let Ok(ledger) = parse("TRUST.md", text, Mode::Lenient) else {
        return Decay {
            text: text.to_string(),
            decayed: Vec::new(),
        };
    };
    let mut edits = Vec::new();
    let mut decayed = Vec::new();
    for claim in ledger.expired(today) {
        let cols = &ledger.tables[claim.table].cols;
        edits.push(status_edit(text, claim, cols, ASSUMED));
        decayed.push(claim.property.clone());
    }
    Decay {
        text: apply(text, edits),
        decayed,
    }
}

/// Marks the claims of an interrupted session as unknown (SPEC §3.8): status `untested`
/// and provenance `-`, changing only those cells. Properties are matched ignoring case
/// and markup; rows that cannot be read are left alone.
pub fn mark_unknown(text: &str, properties: &[String]) -> String {
    let Ok(ledger) = parse("TRUST.md", text, Mode::Lenient) else {
        return text.to_string();
    };
    let keys: std::collections::HashSet<String> =
        properties.iter().map(|p| property_key(p)).collect();
    let mut edits = Vec::new();
    for claim in &ledger.claims {
        if !keys.contains(&property_key(&claim.property)) {
            continue;
        }
        let cols = &ledger.tables[claim.table].cols;
        if claim.status != UNTESTED {
            edits.push(status_edit(text, claim, cols, UNTESTED));
        }
        if let Some(p) = cols.provenance
            && claim.provenance.is_some()
        {
            edits.push(cell_edit(text, claim, cols, p, "-"));
        }
    }
    apply(text, edits)
}

/// Records the result of a verification command on `property` (SPEC §3.10). On success the
/// claim becomes `verified` with provenance, date, TTL, expiry and the evidence note; on
/// failure a `verified` claim drops to `untested`, others keep their status, and the note
/// records the failure. A new property gets a row in the first claims table (a table is
/// appended when there is none). A table without the columns an anchor needs (Provenance,
/// Last Verified, TTL, Notes) gets them, filled with `-` for the other rows.
pub fn record_verification(path: &str, text: &str, v: &Verification) -> Result<Recorded> {
    // What is written must read back: a row whose expiry is past the calendar's end is
    // refused by every reader (issue #12 item 4), so it is never written.
    if v.passed && v.expires().is_none() {
        return Err(crate::error::Error::Usage(format!(
            "--ttl: {}d from {} reaches past the year 9999; give a shorter TTL",
            v.ttl_days, v.date
        )));
    }
    let ledger = TrustLedger::parse(path, text)?;
    let key = property_key(&v.property);
    let targets: Vec<usize> = ledger
        .claims
        .iter()
        .enumerate()
        .filter(|(_, c)| c.matches(&key))
        .map(|(i, _)| i)
        .collect();

    // Tables that lack anchor columns grow them first; then the ledger is parsed again.
    let mut grow: Vec<usize> = targets.iter().map(|&i| ledger.claims[i].table).collect();
    if targets.is_empty() && !ledger.tables.is_empty() {
        grow.push(0);
    }
    grow.sort_unstable();
    grow.dedup();
    if grow
        .iter()
        .any(|&t| !missing_columns(&ledger.tables[t].cols).is_empty())
    {
        let grown = add_columns(text, &ledger, &grow);
        return record_verification(path, &grown, v);
    }
    if targets.is_empty() {
        let status = new_status(v, None);
        return Ok(Recorded {
            text: add_row(text, &ledger, v, &status),
            added: true,
            previous_status: None,
            status,
            expires: if v.passed { v.expires() } else { None },
        });
    }

    let evidence = markdown::escape_cell(&v.evidence);
    let mut edits = Vec::new();
    let mut status = String::new();
    let mut expires = None;
    for &i in &targets {
        let claim = &ledger.claims[i];
        let cols = &ledger.tables[claim.table].cols;
        status = new_status(v, Some(&claim.status));
        if status != claim.status {
            edits.push(status_edit(text, claim, cols, &status));
        }
        let mut set = |c: Option<usize>, val: &str| {
            if let Some(c) = c {
                edits.push(cell_edit(text, claim, cols, c, val));
            }
        };
        if v.passed {
            set(cols.provenance, &v.provenance);
            set(cols.last_verified, &v.date.to_string());
            set(cols.ttl, &format_ttl(v.ttl_days));
            if let Some(e) = v.expires() {
                set(cols.expires, &e.to_string());
            }
            if let Some(a) = &v.agent {
                set(cols.agent, &markdown::escape_cell(a));
            }
            expires = v.expires();
        } else {
            expires = claim.expiry();
        }
        set(cols.evidence_column(), &evidence);
    }
    Ok(Recorded {
        text: apply(text, edits),
        added: false,
        previous_status: Some(ledger.claims[targets[0]].status.clone()),
        status,
        expires,
    })
}

impl Verification {
    /// The expiry this verification sets.
    pub fn expires(&self) -> Option<Date> {
        add_days(self.date, self.ttl_days)
    }
}

/// The status a claim has after a verification: `verified` only when it passed; a failed
/// check takes `verified` away and leaves other statuses as they are.
fn new_status(v: &Verification, old: Option<&str>) -> String {
    match old {
        _ if v.passed => VERIFIED.to_string(),
        Some(s) if s != VERIFIED && !s.is_empty() => s.to_string(),
        _ => UNTESTED.to_string(),
    }
}

/// The cells of a new claims row for `v`, `-` where there is nothing to say.
fn row_values(cols: &Columns, v: &Verification, status: &str) -> Vec<String> {
    let mut cells = vec!["-".to_string(); cols.count];
    cells[cols.property] = markdown::escape_cell(&v.property);
    cells[cols.status] = status.to_string();
    let mut set = |c: Option<usize>, val: String| {
        if let Some(c) = c {
            cells[c] = val;
        }
    };
    if v.passed {
        set(cols.provenance, v.provenance.clone());
        set(cols.last_verified, v.date.to_string());
        set(
            cols.expires,
            v.expires().map_or("-".into(), |d| d.to_string()),
        );
    }
    set(cols.ttl, format_ttl(v.ttl_days));
    set(
        cols.agent,
        v.agent.as_deref().map_or("-".into(), markdown::escape_cell),
    );
    set(cols.evidence_column(), markdown::escape_cell(&v.evidence));
    cells
}

/// Adds a row for a new property after the last row of the first claims table, or a new
/// table at the end of the file when there is none.
fn add_row(text: &str, ledger: &TrustLedger, v: &Verification, status: &str) -> String {
    let nl = ledger.line_ending;
    let mut out = String::with_capacity(text.len() + 256);
    if let Some(table) = ledger.tables.first() {
        let body_off = text.len() - text.trim_start_matches('\u{feff}').len();
        let lines = markdown::lines(&text[body_off..]);
        let header = lines[table.line - 1].text;
        let indent = &header[..header.len() - header.trim_start().len()];
        let at = body_off + lines[table.insert_after - 1].next;
        out.push_str(&text[..at]);
        if !out.ends_with(['\n', '\r']) {
            out.push_str(nl);
        }
        let _ = write!(
            out,
            "{indent}| {} |{nl}",
            row_values(&table.cols, v, status).join(" | ")
        );
        out.push_str(&text[at..]);
        return out;
    }
    let names: Vec<String> = TEMPLATE_COLUMNS.iter().map(|s| (*s).to_string()).collect();
    let cols = Columns::from_header(&names).expect("the template has a Status column");
    out.push_str(text.trim_end());
    if out.is_empty() {
        out.push_str("# Trust Register");
    }
    let _ = write!(
        out,
        "{nl}{nl}## Claims{nl}{nl}| {} |{nl}|{}{nl}| {} |{nl}",
        TEMPLATE_COLUMNS.join(" | "),
        "---|".repeat(TEMPLATE_COLUMNS.len()),
        row_values(&cols, v, status).join(" | ")
    );
    out
}

fn missing_columns(cols: &Columns) -> Vec<&'static str> {
    let mut out = Vec::new();
    if cols.provenance.is_none() {
        out.push("Provenance");
    }
    if cols.last_verified.is_none() {
        out.push("Last Verified");
    }
    if cols.ttl.is_none() && cols.expires.is_none() {
        out.push("TTL");
    }
    if cols.evidence_column().is_none() {
        out.push("Notes");
    }
    out
}

/// Appends the missing anchor columns to the given tables: header names, separator dashes,
/// `-` in every data row.
fn add_columns(text: &str, ledger: &TrustLedger, tables: &[usize]) -> String {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let off = text.len() - body.len();
    let lines = markdown::lines(body);
    let mut edits = Vec::new();
    for &t in tables {
        let table = &ledger.tables[t];
        let missing = missing_columns(&table.cols);
        if missing.is_empty() {
            continue;
        }
        for &row in &table.rows {
            let l = lines[row];
            let cells = markdown::table_cells(l.text).unwrap_or_default();
            let fill: Vec<String> = if row + 1 == table.line {
                missing.iter().map(|s| (*s).to_string()).collect()
            } else if markdown::is_separator_row(l.text, &cells) {
                missing.iter().map(|_| "---".to_string()).collect()
            } else {
                missing.iter().map(|_| "-".to_string()).collect()
            };
            let trimmed = l.text.trim_end();
            let end = off + l.start + trimmed.len();
            let addition = if trimmed.ends_with('|') && !trimmed.ends_with("\\|") {
                format!(" {} |", fill.join(" | "))
            } else {
                format!(" | {} |", fill.join(" | "))
            };
            edits.push(Edit {
                range: end..end,
                text: addition,
            });
        }
    }
    apply(text, edits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_ttl_is_refused_with_its_line_never_a_panic() {
        let text = "| Property | Status | Provenance | Last Verified | TTL |\n|---|---|---|---|---|\n| a | verified | test_verified | 2026-01-01 | 99999999d |\n";
        let err = TrustLedger::parse("TRUST.md", text)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("TRUST.md:3:"), "{err}");
        assert!(err.contains("longer than"), "{err}");
        assert!(parse_ttl("1043498w").is_err());
        // A TTL within the limit whose expiry is past the calendar's last day is refused
        // too: it once read as "never expires" (issue #12).
        let long = text.replace("99999999d", &format!("{TTL_MAX_DAYS}d"));
        let err = TrustLedger::parse("TRUST.md", &long)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(
                "TRUST.md:3: Last Verified 2026-01-01 + TTL 3650000d is past the year 9999"
            ),
            "{err}"
        );
        // Up to the last day still computes.
        let days = jiff::civil::date(9999, 12, 31)
            .since(jiff::civil::date(2026, 1, 1))
            .unwrap()
            .get_days();
        let last = text.replace("99999999d", &format!("{days}d"));
        let ledger = TrustLedger::parse("TRUST.md", &last).unwrap();
        assert_eq!(
            ledger.claims[0].expiry(),
            Some(jiff::civil::date(9999, 12, 31))
        );
        assert!(!ledger.claims[0].is_expired("2026-11-22".parse().unwrap()));
        let over = text.replace("99999999d", &format!("{}d", days + 1));
        assert!(TrustLedger::parse("TRUST.md", &over).is_err());
    }
    use jiff::civil::date;

    const TEMPLATE: &str = "\
# Trust

## Confidence Levels

| Level | Meaning |
|-------|---------|
| **verified** | ran it |

## Build

| Property | Status | Provenance | Last Verified | Agent | TTL | Expires | Notes |
|----------|--------|------------|---------------|-------|-----|---------|-------|
| Build passes | verified | test_verified | 2026-07-18 | a | 7d | 2026-07-25 | ok |
| Lint `a \\| b` | **verified** ✅ | - | 2026-07-18 | a | 3d | - | x |

| Schema valid | assumed | - | 2026-06-20 | a | 30d | 2026-08-17 | stable |
";

    #[test]
    fn parses_tables_as_real_files_look() {
        let ledger = TrustLedger::parse("TRUST.md", TEMPLATE).unwrap();
        assert_eq!(
            ledger.tables.len(),
            1,
            "the Level table has no Status column"
        );
        let props: Vec<_> = ledger.claims.iter().map(|c| c.property.as_str()).collect();
        assert_eq!(props, ["Build passes", "Lint `a | b`", "Schema valid"]);
        let lint = &ledger.claims[1];
        assert_eq!(lint.status, "verified");
        assert_eq!(lint.provenance, None);
        assert_eq!(lint.expiry(), Some(date(2026, 7, 21)));
        assert_eq!(ledger.claims[0].expiry(), Some(date(2026, 7, 25)));
        assert_eq!(ledger.claims[2].line, 16);
        assert_eq!(ledger.tables[0].heading.as_deref(), Some("Build"));
    }

    #[test]
    fn expiry_takes_the_earlier_of_ttl_and_expires() {
        let ledger = TrustLedger::parse(
            "T",
            "| Claim | Status | Verified | TTL | Expires |\n|--|--|--|--|--|\n| a | Verified | 2026-02-20 | 3d | 2026-02-23 ⚠️ EXPIRED |\n| b | verified | 2026-02-20 | 30d | 2026-02-21 |\n| c | verified | 2026-02-20 | never | |\n",
        )
        .unwrap();
        let e: Vec<_> = ledger.claims.iter().map(TrustClaim::expiry).collect();
        assert_eq!(e, [Some(date(2026, 2, 23)), Some(date(2026, 2, 21)), None]);
        assert!(!ledger.claims[0].is_expired(date(2026, 2, 23)));
        assert!(ledger.claims[0].is_expired(date(2026, 2, 24)));
    }

    #[test]
    fn unparseable_rows_name_the_line() {
        let bad = "| Property | Status |\n|---|---|\n| a | verified |\n| b | c | d |\n";
        let err = TrustLedger::parse(".ai/handoff/TRUST.md", bad).unwrap_err();
        assert_eq!(
            err.to_string(),
            ".ai/handoff/TRUST.md:4: table row has 3 cells but its header (line 1) has 2; write a `|` inside a cell as `\\|`"
        );
        let bad = "| Property | Status | Expires |\n|---|---|---|\n| a | verified | 2026-02-30 |\n";
        assert_eq!(
            TrustLedger::parse("T", bad).unwrap_err().to_string(),
            "T:3: Expires: `2026-02-30` is not a date (YYYY-MM-DD)"
        );
        let bad = "| Property | Status | TTL |\n|---|---|---|\n| a | verified | 1 month |\n";
        assert!(
            TrustLedger::parse("T", bad)
                .unwrap_err()
                .to_string()
                .starts_with("T:3: TTL:")
        );
    }

    #[test]
    fn decay_changes_only_the_status_cells_and_keeps_crlf() {
        let text = TEMPLATE.replace('\n', "\r\n");
        let d = decay(&text, date(2026, 7, 26));
        assert_eq!(d.decayed, ["Build passes", "Lint `a | b`"]);
        let expected = text
            .replace("| Build passes | verified |", "| Build passes | assumed |")
            .replace("| **verified** ✅ |", "| **assumed** |");
        assert_eq!(d.text, expected);
        assert_eq!(decay(&d.text, date(2026, 7, 26)).text, d.text, "idempotent");
        assert_eq!(
            decay(&text, date(2026, 7, 21)).text,
            text,
            "nothing expired yet"
        );
    }

    #[test]
    fn decay_keeps_aligned_columns_aligned() {
        let text = "| P | Status   | Expires    |\n|---|----------|------------|\n| a | Verified | 2026-01-01 |\n";
        let d = decay(text, date(2026, 2, 1));
        assert_eq!(
            d.text,
            "| P | Status   | Expires    |\n|---|----------|------------|\n| a | Assumed  | 2026-01-01 |\n"
        );
    }

    #[test]
    fn mark_unknown_resets_status_and_provenance() {
        let out = mark_unknown(TEMPLATE, &["build PASSES".to_string()]);
        assert!(
            out.contains("| Build passes | untested | - | 2026-07-18 |"),
            "{out}"
        );
        assert_eq!(out.lines().count(), TEMPLATE.lines().count());
    }

    fn verification(property: &str, passed: bool) -> Verification {
        Verification {
            property: property.into(),
            passed,
            provenance: "test_verified".into(),
            date: date(2026, 11, 22),
            ttl_days: 7,
            agent: Some("codex".into()),
            evidence: "`cargo test` exit 0".into(),
        }
    }

    #[test]
    fn verification_updates_an_existing_claim() {
        let r = record_verification("T", TEMPLATE, &verification("schema valid", true)).unwrap();
        assert!(!r.added);
        assert_eq!(r.previous_status.as_deref(), Some("assumed"));
        let ledger = TrustLedger::parse("T", &r.text).unwrap();
        let c = &ledger.claims[2];
        assert_eq!(
            (
                c.status.as_str(),
                c.provenance.as_deref(),
                c.last_verified,
                c.ttl_days,
                c.expires
            ),
            (
                "verified",
                Some("test_verified"),
                Some(date(2026, 11, 22)),
                Some(7),
                Some(date(2026, 11, 29))
            )
        );
        assert_eq!(c.notes.as_deref(), Some("`cargo test` exit 0"));
        assert_eq!(r.text.lines().count(), TEMPLATE.lines().count());
    }

    #[test]
    fn failed_verification_never_sets_verified() {
        let r = record_verification("T", TEMPLATE, &verification("Build passes", false)).unwrap();
        let ledger = TrustLedger::parse("T", &r.text).unwrap();
        assert_eq!(ledger.claims[0].status, "untested");
        assert_eq!(ledger.claims[0].last_verified, Some(date(2026, 7, 18)));
        let r = record_verification("T", TEMPLATE, &verification("Schema valid", false)).unwrap();
        assert_eq!(
            TrustLedger::parse("T", &r.text).unwrap().claims[2].status,
            "assumed"
        );
    }

    #[test]
    fn verification_of_a_new_property_adds_a_row_to_the_first_table() {
        let r = record_verification("T", TEMPLATE, &verification("Docs build", true)).unwrap();
        assert!(r.added);
        let ledger = TrustLedger::parse("T", &r.text).unwrap();
        let c = ledger.find("docs build")[0];
        assert_eq!(c.line, 17);
        assert_eq!(c.status, "verified");
        let fresh = record_verification("T", "", &verification("x", true)).unwrap();
        assert_eq!(
            TrustLedger::parse("T", &fresh.text).unwrap().claims.len(),
            1
        );
    }

    #[test]
    fn verification_adds_missing_anchor_columns() {
        let text = "| Claim | Status |\n|---|---|\n| a | assumed |\n";
        let r = record_verification("T", text, &verification("a", true)).unwrap();
        assert_eq!(
            r.text,
            "| Claim | Status | Provenance | Last Verified | TTL | Notes |\n|---|---| --- | --- | --- | --- |\n| a | verified | test_verified | 2026-11-22 | 7d | `cargo test` exit 0 |\n"
        );
    }

    mod props {
        use super::*;
        use jiff::ToSpan;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn a_later_today_never_unexpires_a_claim(
                lv in 0i64..2000, ttl in prop::option::of(0i64..400), exp in prop::option::of(0i64..2000),
                t1 in 0i64..3000, dt in 0i64..3000,
            ) {
                let base = date(2024, 1, 1);
                let day = |n: i64| base.checked_add(n.days()).unwrap();
                let claim = TrustClaim {
                    property: "p".into(), status: VERIFIED.into(), provenance: None,
                    last_verified: Some(day(lv)), ttl_days: ttl, expires: exp.map(day),
                    agent: None, notes: None, check: None, line: 1, table: 0, cells: Vec::new(), line_start: 0,
                };
                if claim.is_expired(day(t1)) {
                    prop_assert!(claim.is_expired(day(t1 + dt)));
                }
            }

            #[test]
            fn parse_never_panics(text in "(\\| [a-zA-Z0-9\\\\*✅ -]{0,10} ){0,5}\\|?\n{0,2}|[#a-z ]{0,10}\n"){
                let _ = TrustLedger::parse("T", &text);
                let _ = decay(&text, date(2026, 1, 1));
            }
        }
    }
}
