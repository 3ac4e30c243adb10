//! Three-way merges of handoff files for `git aahp merge-driver` (SPEC §6, issue #17): each
//! takes the common ancestor, ours and theirs and returns the merged text plus the number of
//! conflicts left marked in it. Pure text logic: no git, no printing.
//!
//! - Journals (LOG.md, LOG-ARCHIVE.md) and the archive index are unioned by entry. An entry's
//!   identity is its content hash plus its position class: an entry already in the ancestor
//!   is one entry (removed once when either side rotated or removed it), and every entry a
//!   side added is its own, so two identical additions stay two (never silently
//!   deduplicated). The result is newest first.
//! - TRUST.md rows are unioned by property; where both sides changed a row, the newer
//!   `Last Verified` wins (noted). Text outside the tables is the changed side's; changed
//!   on both, a conflict.
//! - A journal's preamble is the changed side's; changed on both sides to different lines,
//!   both merge, to the same lines, a conflict.
//! - STATUS.md / `NEXT_ACTIONS.md` merge by `<!-- SECTION: name -->` section; a section both
//!   sides rewrote differently keeps both inside conflict markers. Without section markers
//!   (`NEXT_ACTIONS.md`'s items) they merge by heading block, items and rows both sides added
//!   kept both.
//! - MANIFEST.json's tasks are unioned, an id clash renumbered on the incoming side with a
//!   note (and the incoming side's `depends_on` renamed with it), `next_task_id` the
//!   maximum; a task both sides changed is merged field by field, its status by progress,
//!   a field both changed differently a conflict. The caller regenerates the rest.
#![allow(
    clippy::many_single_char_names,
    reason = "b, o, t: ancestor, ours and theirs, as in every three-way merge"
)]

use std::collections::{BTreeMap, HashMap};

use jiff::civil::Date;
use serde_json::{Map, Value};

use super::log::{LogEntry, LogFile};
use super::trust::property_key;

/// Marker lines of a conflict kept in a merged file (git's shape).
pub const OURS_MARK: &str = "<<<<<<< ours";
/// Separates the two sides of a conflict.
pub const SPLIT_MARK: &str = "=======";
/// Closes a conflict.
pub const THEIRS_MARK: &str = ">>>>>>> theirs";

/// A merged file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The merged content.
    pub text: String,
    /// How many conflicts are marked in it (0: clean).
    pub conflicts: usize,
    /// What the merge did that a person should know (renumbered tasks, both sides' copies
    /// of an entry kept).
    pub notes: Vec<String>,
}

impl Merged {
    fn clean(text: String) -> Merged {
        Merged {
            text,
            conflicts: 0,
            notes: Vec::new(),
        }
    }
}

/// Picks the side that changed: both equal, or one equal to the ancestor.
fn trivial<'a>(base: &str, ours: &'a str, theirs: &'a str) -> Option<&'a str> {
    if ours == theirs || theirs == base {
        Some(ours)
    } else if ours == base {
        Some(theirs)
    } else {
        None
    }
}

/// Unions three sequences by `key`: items of the ancestor stay once unless a side removed
/// them; every item a side added is kept, once when both sides added it. Ours' order is kept; theirs' additions are placed
/// newest first by `date` (before the first item that is older, or that is an ancestor item
/// of the same date).
fn union_by_key<T: Clone>(
    base: &[T],
    ours: &[T],
    theirs: &[T],
    key: impl Fn(&T) -> String,
    date: impl Fn(&T) -> Option<Date>,
) -> Vec<T> {
    let count = |items: &[T]| {
        let mut m: HashMap<String, usize> = HashMap::new();
        for i in items {
            *m.entry(key(i)).or_default() += 1;
        }
        m
    };
    let (b, o, t) = (count(base), count(ours), count(theirs));
    let get = |m: &HashMap<String, usize>, k: &str| m.get(k).copied().unwrap_or(0);
    // Ours: of each key, the first `added` occurrences are additions (a journal grows at
    // the top), the rest ancestor items; theirs' removals beyond ours' are dropped from the
    // end (the oldest, which rotation removes).
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<(T, bool)> = Vec::new();
    for item in ours {
        let k = key(item);
        let (bk, ok, tk) = (get(&b, &k), get(&o, &k), get(&t, &k));
        let added = ok.saturating_sub(bk);
        let kept_base = bk.saturating_sub((bk.saturating_sub(ok)).max(bk.saturating_sub(tk)));
        let n = seen.entry(k).or_default();
        *n += 1;
        if *n <= added {
            out.push((item.clone(), false));
        } else if *n - added <= kept_base {
            out.push((item.clone(), true));
        }
    }
    // Where each of theirs' additions goes: before the first item that is older, or that is
    // an ancestor item of the same date. As a key, `(date, true)` for an addition and
    // `(date, !from_base)` for ours' items: an item stops an addition exactly when its key is
    // smaller. The first such item of ours is found by binary search over the running
    // minimum of ours' keys; an earlier addition never stands before it unless it was placed
    // in the same gap, and there the additions stand newest first, in theirs' order among
    // equal dates (what inserting them one by one gives). One date per item, O(n log n):
    // inserting each into a list found by a scan was quadratic (review rob35 #4).
    let mut running: Option<(Option<Date>, bool)> = None;
    let minima: Vec<(Option<Date>, bool)> = out
        .iter()
        .map(|(e, from_base)| {
            let k = (date(e), !*from_base);
            let m = running.map_or(k, |m| m.min(k));
            running = Some(m);
            m
        })
        .collect();
    let mut gaps: BTreeMap<usize, Vec<(Option<Date>, T)>> = BTreeMap::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for item in theirs {
        let k = key(item);
        // An item both sides added is one addition (git's rule for the same change made on
        // both sides): only theirs' copies beyond ours' are added. Both sides rotating the
        // same entries into the archive gave each of them twice, for good (review rob36 #1).
        let added = get(&t, &k)
            .saturating_sub(get(&b, &k))
            .saturating_sub(get(&o, &k).saturating_sub(get(&b, &k)));
        let n = seen.entry(k).or_default();
        *n += 1;
        if *n > added {
            continue;
        }
        let d = date(item);
        let at = minima.partition_point(|m| *m >= (d, true));
        gaps.entry(at).or_default().push((d, item.clone()));
    }
    let mut merged = Vec::with_capacity(out.len() + gaps.values().map(Vec::len).sum::<usize>());
    let mut gaps = gaps.into_iter().peekable();
    let place = |merged: &mut Vec<T>, mut list: Vec<(Option<Date>, T)>| {
        list.sort_by_key(|x| std::cmp::Reverse(x.0));
        merged.extend(list.into_iter().map(|(_, e)| e));
    };
    for (i, (e, _)) in out.into_iter().enumerate() {
        if let Some((_, list)) = gaps.next_if(|(g, _)| *g == i) {
            place(&mut merged, list);
        }
        merged.push(e);
    }
    if let Some((_, list)) = gaps.next() {
        place(&mut merged, list);
    }
    merged
}

/// Three-way merge of text no rule merges by entry (a journal's preamble, TRUST.md's text
/// outside the tables), by line: a side that alone changed it gives it; changes of both
/// sides to disjoint lines both apply; otherwise the stretch where ours and theirs differ is
/// kept from both inside conflict markers. Returns the text and the conflicts marked (0 or 1).
fn merge_prose(base: &str, ours: &str, theirs: &str) -> (String, usize) {
    if let Some(t) = trivial(base, ours, theirs) {
        return (t.to_string(), 0);
    }
    let lines = |s: &str| -> Vec<String> { s.split_inclusive('\n').map(String::from).collect() };
    let (b, o, t) = (lines(base), lines(ours), lines(theirs));
    if let Some(m) = merge_pieces(&b, &o, &t, false) {
        return (m.concat(), 0);
    }
    (marked(&o, &t), 1)
}

/// Ours and theirs with the stretch of lines where they differ inside conflict markers.
pub(crate) fn marked_texts(ours: &str, theirs: &str) -> String {
    let lines = |s: &str| -> Vec<String> { s.split_inclusive('\n').map(String::from).collect() };
    marked(&lines(ours), &lines(theirs))
}

/// Ours and theirs (as lines) with the stretch where they differ inside conflict markers.
fn marked(o: &[String], t: &[String]) -> String {
    let p = o.iter().zip(t).take_while(|(x, y)| x == y).count();
    let q = o[p..]
        .iter()
        .rev()
        .zip(t[p..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let ended = |part: &[String]| {
        let mut s = part.concat();
        if !s.is_empty() && !s.ends_with('\n') {
            s.push('\n');
        }
        s
    };
    let mut out = o[..p].concat();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(OURS_MARK);
    out.push('\n');
    out.push_str(&ended(&o[p..o.len() - q]));
    out.push_str(SPLIT_MARK);
    out.push('\n');
    out.push_str(&ended(&t[p..t.len() - q]));
    out.push_str(THEIRS_MARK);
    out.push('\n');
    out.push_str(&o[o.len() - q..].concat());
    out
}

/// Merges a journal (LOG.md or LOG-ARCHIVE.md) by entry, newest first. The preamble is the
/// side's that changed it; changed on both sides, their line changes merge when they touch
/// different lines and are left in conflict markers when not ([`merge_prose`]).
pub fn merge_journal(base: &str, ours: &str, theirs: &str) -> Merged {
    merge_journal_with(base, ours, theirs, None)
}

/// [`merge_journal`], with `top` (an entry's text, heading first, no separator) placed as
/// the newest entry when both sides changed the journal: the merge's own entry.
pub fn merge_journal_with(base: &str, ours: &str, theirs: &str, top: Option<&str>) -> Merged {
    if let Some(t) = trivial(base, ours, theirs) {
        return Merged::clean(t.to_string());
    }
    let (b, o, t) = (
        LogFile::parse(base),
        LogFile::parse(ours),
        LogFile::parse(theirs),
    );
    let entries = union_by_key(
        &b.entries,
        &o.entries,
        &t.entries,
        LogEntry::digest,
        |e: &LogEntry| e.date,
    );
    let (preamble, conflicts) = merge_prose(&b.preamble, &o.preamble, &t.preamble);
    let preamble = &preamble;
    let nl = o.line_ending;
    let mut text = String::new();
    if o.bom {
        text.push('\u{feff}');
    }
    let body = top
        .into_iter()
        .chain(entries.iter().map(|e| e.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n\n---\n\n");
    if entries.is_empty() && top.is_none() {
        text.push_str(preamble);
    } else {
        let pre = preamble.replace("\r\n", "\n");
        let pre = pre.trim_end();
        if !pre.is_empty() {
            text.push_str(pre);
            text.push_str("\n\n");
        }
        text.push_str(&body);
        text.push('\n');
    }
    let text = if nl == "\n" {
        text
    } else {
        text.replace("\r\n", "\n").replace('\n', nl)
    };
    let doubled = entries.len() - {
        let mut d: Vec<String> = entries.iter().map(LogEntry::digest).collect();
        d.sort_unstable();
        d.dedup();
        d.len()
    };
    let mut merged = Merged::clean(text);
    if doubled > 0 {
        merged.notes.push(doubled_note(doubled));
    }
    if conflicts > 0 {
        merged.conflicts = conflicts;
        merged.notes.push(
            "the text above the entries changed on both branches: both are kept in conflict markers"
                .into(),
        );
    }
    merged
}

/// The note of a merged journal that holds `doubled` entries more than once.
pub(crate) fn doubled_note(doubled: usize) -> String {
    format!(
        "{doubled} entr{} occur more than once (kept: a branch holds them so; an entry both branches added is kept once)",
        if doubled == 1 { "y" } else { "ies" }
    )
}

/// Merges `LOG-ARCHIVE.index.json` by entry like the archive itself, newest first. Returns
/// `None` when a side is not a JSON object with an `entries` list (the caller then marks a
/// conflict).
pub fn merge_index(base: &str, ours: &str, theirs: &str) -> Option<Merged> {
    if let Some(t) = trivial(base, ours, theirs) {
        return Some(Merged::clean(t.to_string()));
    }
    let parse = |s: &str| -> Option<Map<String, Value>> {
        if s.trim().is_empty() {
            return Some(Map::new());
        }
        match super::json::from_str(s.trim_start_matches('\u{feff}')).ok()? {
            Value::Object(m) => Some(m),
            _ => None,
        }
    };
    let (b, o, t) = (parse(base)?, parse(ours)?, parse(theirs)?);
    let list = |m: &Map<String, Value>| -> Option<Vec<Value>> {
        match m.get("entries") {
            None => Some(Vec::new()),
            Some(Value::Array(a)) => Some(a.clone()),
            Some(_) => None,
        }
    };
    let key = |v: &Value| {
        format!(
            "{}\u{0}{}",
            v.get("sha256").and_then(Value::as_str).unwrap_or_default(),
            v.get("title").and_then(Value::as_str).unwrap_or_default()
        )
    };
    let date = |v: &Value| {
        let title = v.get("title").and_then(Value::as_str).unwrap_or_default();
        LogFile::parse(&format!("{title}\n")).entries.first()?.date
    };
    let entries = union_by_key(&list(&b)?, &list(&o)?, &list(&t)?, key, date);
    let mut doc = o;
    // The redactions either branch recorded stay recorded, and a key only theirs holds is
    // kept (a field we do not own is never lost): ours' keys alone were kept, so a
    // redaction theirs recorded (`archive --reindex`) vanished from the merged index, and
    // the merge then failed the gate as a deleted archive entry (review atk42 #7).
    let theirs_redactions = match t.get("redactions") {
        Some(Value::Array(r)) => r.clone(),
        _ => Vec::new(),
    };
    for (k, v) in t {
        if k != "entries" && !doc.contains_key(&k) {
            doc.insert(k, v);
        }
    }
    if let Some(Value::Array(ours)) = doc.get_mut("redactions") {
        let held: std::collections::HashSet<String> = ours.iter().map(Value::to_string).collect();
        ours.extend(
            theirs_redactions
                .into_iter()
                .filter(|r| !held.contains(&r.to_string())),
        );
    }
    doc.insert("entries".into(), Value::Array(entries));
    let mut text = serde_json::to_string_pretty(&Value::Object(doc)).ok()?;
    text.push('\n');
    Some(Merged::clean(text))
}

/// One table row of TRUST.md: its line, the heading of the section it sits in, its property
/// key and its `Last Verified` cell.
#[derive(Debug, Clone)]
struct TrustRow {
    line: String,
    section: String,
    key: String,
    verified: String,
}

/// The table rows of a TRUST.md (header and separator rows excluded), by line index.
fn trust_rows(text: &str) -> Vec<(usize, TrustRow)> {
    let cells = |l: &str| -> Vec<String> {
        l.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let mut out = Vec::new();
    let mut section = String::new();
    let mut verified_col: Option<usize> = None;
    let mut in_table = false;
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.starts_with('#') {
            section = l.to_string();
            in_table = false;
            continue;
        }
        if !l.starts_with('|') {
            in_table = false;
            continue;
        }
        let c = cells(l);
        if !in_table {
            // The header row.
            in_table = true;
            verified_col = c
                .iter()
                .position(|h| h.eq_ignore_ascii_case("last verified"));
            continue;
        }
        if c.iter()
            .all(|x| x.chars().all(|ch| matches!(ch, '-' | ':')))
        {
            continue;
        }
        out.push((
            i,
            TrustRow {
                line: line.to_string(),
                section: section.clone(),
                key: property_key(c.first().map_or("", String::as_str)),
                verified: verified_col
                    .and_then(|k| c.get(k).cloned())
                    .unwrap_or_default(),
            },
        ));
    }
    out
}

/// Merges TRUST.md: rows unioned by property; a row both sides changed keeps the newer
/// verification (ours on a tie, noted); a row one side removed and the other left alone is
/// removed. Text outside the tables (prose, headings, table heads) is the side's that
/// changed it, the other side's rows placed in it by section; changed on both sides to
/// different text, the stretch where the two merges differ is left in conflict markers.
pub fn merge_trust(base: &str, ours: &str, theirs: &str) -> Merged {
    if let Some(t) = trivial(base, ours, theirs) {
        return Merged::clean(t.to_string());
    }
    let prose = |text: &str| -> Vec<String> {
        let rows: std::collections::HashSet<usize> =
            trust_rows(text).into_iter().map(|(i, _)| i).collect();
        text.lines()
            .enumerate()
            .filter(|(i, _)| !rows.contains(i))
            .map(|(_, l)| l.to_string())
            .collect()
    };
    let (bp, op, tp) = (prose(base), prose(ours), prose(theirs));
    if tp == bp || tp == op {
        return frame_trust(base, ours, theirs, true);
    }
    if op == bp {
        return frame_trust(base, theirs, ours, false);
    }
    let by_ours = frame_trust(base, ours, theirs, true);
    let by_theirs = frame_trust(base, theirs, ours, false);
    if by_ours.text == by_theirs.text {
        return by_ours;
    }
    let lines = |s: &str| -> Vec<String> { s.split_inclusive('\n').map(String::from).collect() };
    let mut notes = by_ours.notes;
    notes.push(
        "TRUST.md: the text outside the tables changed on both branches: both are kept in conflict markers"
            .into(),
    );
    Merged {
        text: marked(&lines(&by_ours.text), &lines(&by_theirs.text)),
        conflicts: 1,
        notes,
    }
}

/// [`merge_trust`] in the frame of one side: `frame`'s lines, its rows replaced where the
/// `other` side's change wins, and the other side's new rows placed after the last row of the
/// same section in the frame (else after its last row). `frame_is_ours` breaks a tie between
/// two changes of a row (ours wins) and names the sides in the notes.
fn frame_trust(base: &str, frame: &str, other: &str, frame_is_ours: bool) -> Merged {
    let (ours, theirs) = (frame, other);
    let (frame_name, other_name) = if frame_is_ours {
        ("this branch's", "the merged branch's")
    } else {
        ("the merged branch's", "this branch's")
    };
    let by_key = |text: &str| -> BTreeMap<String, TrustRow> {
        trust_rows(text)
            .into_iter()
            .map(|(_, r)| (r.key.clone(), r))
            .collect()
    };
    let (b, t) = (by_key(base), by_key(theirs));
    let o_rows = trust_rows(ours);
    let o: BTreeMap<String, TrustRow> = o_rows
        .iter()
        .map(|(_, r)| (r.key.clone(), r.clone()))
        .collect();
    let mut notes = Vec::new();
    let lines: Vec<&str> = ours.lines().collect();
    let mut replaced: HashMap<usize, Option<String>> = HashMap::new();
    for (i, row) in &o_rows {
        let choice = match (b.get(&row.key), t.get(&row.key)) {
            // Theirs removed a row ours left alone: removed.
            (Some(br), None) if br.line == row.line => None,
            (_, None) => Some(row.line.clone()),
            (_, Some(tr)) if tr.line == row.line => Some(row.line.clone()),
            // Only theirs changed it.
            (Some(br), Some(tr)) if br.line == row.line => Some(tr.line.clone()),
            // Only ours changed it.
            (Some(br), Some(tr)) if br.line == tr.line => Some(row.line.clone()),
            // Both changed (or both added) it: the newer verification wins, ours on a tie.
            (_, Some(tr)) => {
                let other_wins = if frame_is_ours {
                    newer(&tr.verified, &row.verified)
                } else {
                    !newer(&row.verified, &tr.verified)
                };
                let (won, lost) = if other_wins {
                    (other_name, frame_name)
                } else {
                    (frame_name, other_name)
                };
                notes.push(format!(
                    "TRUST.md: `{}` changed on both branches; {won} row was kept (verified later, or this branch's on the same date), {lost} was not",
                    row.key
                ));
                Some(if other_wins {
                    tr.line.clone()
                } else {
                    row.line.clone()
                })
            }
        };
        if choice.as_deref() != Some(row.line.as_str()) {
            replaced.insert(*i, choice);
        }
    }
    // Theirs' new rows (and rows ours removed but theirs changed) go after the last row of
    // the same section in ours, else after ours' last row.
    let mut additions: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let last_row = o_rows
        .last()
        .map_or(lines.len().saturating_sub(1), |(i, _)| *i);
    // The last row of each section in the frame, found once (a search per new row made a
    // merge quadratic, review rob35 #4).
    let mut last_of_section: HashMap<&str, usize> = HashMap::new();
    for (i, r) in &o_rows {
        last_of_section.insert(r.section.as_str(), *i);
    }
    for (_, tr) in trust_rows(theirs) {
        if o.contains_key(&tr.key) {
            continue;
        }
        let keep = match b.get(&tr.key) {
            None => true,
            Some(br) => br.line != tr.line,
        };
        if !keep {
            continue;
        }
        let at = last_of_section
            .get(tr.section.as_str())
            .copied()
            .unwrap_or(last_row);
        additions.entry(at).or_default().push(tr.line.clone());
    }
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        match replaced.get(&i) {
            Some(None) => {}
            Some(Some(l)) => {
                out.push_str(l);
                out.push('\n');
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
        if let Some(add) = additions.get(&i) {
            for l in add {
                out.push_str(l);
                out.push('\n');
            }
        }
    }
    if lines.is_empty()
        && let Some(add) = additions.values().next()
    {
        for l in add {
            out.push_str(l);
            out.push('\n');
        }
    }
    if !ours.ends_with('\n') && out.ends_with('\n') && !ours.is_empty() {
        out.pop();
    }
    Merged {
        text: out,
        conflicts: 0,
        notes,
    }
}

/// True when verification date `a` is later than `b` (`YYYY-MM-DD`; anything else is older
/// than any date).
fn newer(a: &str, b: &str) -> bool {
    let d = |s: &str| s.get(..10).and_then(|p| p.parse::<Date>().ok());
    match (d(a), d(b)) {
        (Some(x), Some(y)) => x > y,
        (Some(_), None) => true,
        _ => false,
    }
}

/// A Markdown file cut at its sections: the text outside sections with a placeholder line
/// per section, and each section's body by name, in order.
struct Sectioned {
    skeleton: Vec<String>,
    sections: Vec<(String, String)>,
}

const PLACEHOLDER: &str = "\u{0}section:";

fn sectioned(text: &str) -> Sectioned {
    let mut skeleton = Vec::new();
    let mut sections = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if let Some((name, body)) = &mut open {
            if t.strip_prefix("<!-- /SECTION:")
                .and_then(|r| r.strip_suffix("-->"))
                .is_some_and(|n| n.trim() == name)
            {
                let (name, body) = open.take().expect("a section is open");
                skeleton.push(format!("{PLACEHOLDER}{name}"));
                sections.push((name, body));
                continue;
            }
            body.push_str(line);
            continue;
        }
        if let Some(name) = t
            .strip_prefix("<!-- SECTION:")
            .and_then(|r| r.strip_suffix("-->"))
            .map(str::trim)
            && !name.is_empty()
        {
            open = Some((name.to_string(), String::new()));
            continue;
        }
        skeleton.push(line.to_string());
    }
    if let Some((name, body)) = open {
        // An unclosed section stays text: nothing is dropped.
        skeleton.push(format!("<!-- SECTION: {name} -->\n"));
        skeleton.push(body);
    }
    Sectioned { skeleton, sections }
}

/// Three-way merge of two edits of a sequence: each side's change is the span between its
/// common prefix and suffix with the ancestor; changes to disjoint spans both apply, two
/// insertions at one point go ours first when `stack` (else they conflict). `None` when the
/// spans overlap.
fn merge_pieces<S: Clone + PartialEq>(b: &[S], o: &[S], t: &[S], stack: bool) -> Option<Vec<S>> {
    if o == b {
        return Some(t.to_vec());
    }
    if t == b || t == o {
        return Some(o.to_vec());
    }
    let change = |s: &[S]| {
        let p = b.iter().zip(s).take_while(|(x, y)| x == y).count();
        let q = b[p..]
            .iter()
            .rev()
            .zip(s[p..].iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        (p, b.len() - q, s[p..s.len() - q].to_vec())
    };
    let (op, oe, oi) = change(o);
    let (tp, te, ti) = change(t);
    let mut out = Vec::new();
    if op == oe && tp == te && op == tp {
        if !stack {
            return None;
        }
        out.extend_from_slice(&b[..op]);
        // The same insertion on both sides is one insertion.
        let same = oi == ti;
        out.extend(oi);
        if !same {
            out.extend(ti);
        }
        out.extend_from_slice(&b[op..]);
    } else if oe <= tp {
        out.extend_from_slice(&b[..op]);
        out.extend(oi);
        out.extend_from_slice(&b[oe..tp]);
        out.extend(ti);
        out.extend_from_slice(&b[te..]);
    } else if te <= op {
        out.extend_from_slice(&b[..tp]);
        out.extend(ti);
        out.extend_from_slice(&b[te..op]);
        out.extend(oi);
        out.extend_from_slice(&b[oe..]);
    } else {
        return None;
    }
    Some(out)
}

/// Merges STATUS.md or `NEXT_ACTIONS.md` by section. Returns `None` when no version has
/// sections, or when both sides changed the same stretch of text outside them (a line merge
/// is then the better tool).
pub fn merge_sections(base: &str, ours: &str, theirs: &str) -> Option<Merged> {
    if let Some(t) = trivial(base, ours, theirs) {
        return Some(Merged::clean(t.to_string()));
    }
    let (b, o, t) = (sectioned(base), sectioned(ours), sectioned(theirs));
    if o.sections.is_empty() && t.sections.is_empty() {
        return None;
    }
    let skeleton = &merge_pieces(&b.skeleton, &o.skeleton, &t.skeleton, true)?;
    let find = |s: &Sectioned, name: &str| {
        s.sections
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, body)| body.clone())
    };
    let mut conflicts = 0;
    let mut out = String::new();
    let mut placed: Vec<String> = Vec::new();
    let emit = |name: &str, out: &mut String, conflicts: &mut usize| {
        let (bb, ob, tb) = (find(&b, name), find(&o, name), find(&t, name));
        let body = match (ob, tb) {
            (Some(x), None) | (None, Some(x)) => {
                // Present on one side only: kept unless the other side removed it unchanged.
                if bb.as_deref() == Some(x.as_str()) {
                    return;
                }
                x
            }
            (None, None) => return,
            (Some(x), Some(y)) => match trivial(bb.as_deref().unwrap_or(""), &x, &y) {
                Some(z) if bb.is_some() || x == y => z.to_string(),
                _ => {
                    *conflicts += 1;
                    let end = |s: &str| {
                        if s.ends_with('\n') || s.is_empty() {
                            String::new()
                        } else {
                            "\n".into()
                        }
                    };
                    format!(
                        "{OURS_MARK}\n{x}{}{SPLIT_MARK}\n{y}{}{THEIRS_MARK}\n",
                        end(&x),
                        end(&y)
                    )
                }
            },
        };
        out.push_str("<!-- SECTION: ");
        out.push_str(name);
        out.push_str(" -->\n");
        out.push_str(&body);
        if !body.ends_with('\n') && !body.is_empty() {
            out.push('\n');
        }
        out.push_str("<!-- /SECTION: ");
        out.push_str(name);
        out.push_str(" -->\n");
    };
    for piece in skeleton {
        if let Some(name) = piece.strip_prefix(PLACEHOLDER) {
            emit(name, &mut out, &mut conflicts);
            placed.push(name.to_string());
        } else {
            out.push_str(piece);
        }
    }
    // Sections the chosen skeleton does not place (added by the other side) go at the end.
    for (name, _) in o.sections.iter().chain(&t.sections) {
        if !placed.contains(name) {
            if !out.ends_with("\n\n") && !out.is_empty() {
                out.push('\n');
            }
            emit(name, &mut out, &mut conflicts);
            placed.push(name.clone());
        }
    }
    Some(Merged {
        text: out,
        conflicts,
        notes: Vec::new(),
    })
}

/// A Markdown text cut at its headings: the text before the first heading, then each
/// heading line with the lines up to the next heading (fenced code is never cut). `None`
/// when a heading occurs twice: blocks are matched by their heading.
fn heading_blocks(text: &str) -> Option<(String, Vec<(String, String)>)> {
    let mut preamble = String::new();
    let mut blocks: Vec<(String, String)> = Vec::new();
    let mut fence: Option<&str> = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| t.starts_with(m));
        let heading = fence.is_none()
            && marker.is_none()
            && t.starts_with('#')
            && t.trim_start_matches('#').starts_with([' ', '\t'])
            && line.len() - t.len() < 4;
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m => fence = None,
            _ => {}
        }
        if heading {
            let key = line.trim().to_string();
            if blocks.iter().any(|(k, _)| *k == key) {
                return None;
            }
            blocks.push((key, line.to_string()));
        } else if let Some((_, body)) = blocks.last_mut() {
            body.push_str(line);
        } else {
            preamble.push_str(line);
        }
    }
    Some((preamble, blocks))
}

/// Three-way line merge in which two insertions at one point are both kept (ours first, an
/// identical one once): a list, a table or a queue both sides added to. `None` when both
/// changed the same lines.
fn merge_lines_stacked(base: &str, ours: &str, theirs: &str) -> Option<String> {
    if let Some(t) = trivial(base, ours, theirs) {
        return Some(t.to_string());
    }
    let lines = |s: &str| -> Vec<String> { s.split_inclusive('\n').map(String::from).collect() };
    let (b, o, t) = (lines(base), lines(ours), lines(theirs));
    merge_pieces(&b, &o, &t, true).map(|m| m.concat())
}

/// Merges `NEXT_ACTIONS.md` (or a STATUS.md without section markers) by heading block: an
/// item (`## T-001: …`) or a section one side added is kept, both sides' added to one place
/// both (ours first); a block both sides changed merges by line, lines both added at one
/// point (a table's new rows, a list's new items) kept both, and is otherwise left in
/// conflict markers. `None` when a side repeats a heading or the sides moved blocks
/// across each other (git's line merge then decides).
pub fn merge_blocks(base: &str, ours: &str, theirs: &str) -> Option<Merged> {
    if let Some(t) = trivial(base, ours, theirs) {
        return Some(Merged::clean(t.to_string()));
    }
    let (bp, b) = heading_blocks(base)?;
    let (op, o) = heading_blocks(ours)?;
    let (tp, t) = heading_blocks(theirs)?;
    let keys =
        |v: &[(String, String)]| -> Vec<String> { v.iter().map(|(k, _)| k.clone()).collect() };
    let order = merge_pieces(&keys(&b), &keys(&o), &keys(&t), true)?;
    let find = |v: &[(String, String)], k: &str| {
        v.iter().find(|(x, _)| x == k).map(|(_, body)| body.clone())
    };
    let mut conflicts = 0;
    let mut out = String::new();
    let mut part =
        |bb: Option<String>, ob: Option<String>, tb: Option<String>, out: &mut String| {
            let text = match (ob, tb) {
                (Some(x), None) | (None, Some(x)) => {
                    // On one side only: kept unless the other side removed it unchanged.
                    if bb.as_deref() == Some(x.as_str()) {
                        return;
                    }
                    x
                }
                (None, None) => return,
                (Some(x), Some(y)) => {
                    let base = bb.unwrap_or_default();
                    merge_lines_stacked(&base, &x, &y).unwrap_or_else(|| {
                        conflicts += 1;
                        marked_texts(&x, &y)
                    })
                }
            };
            out.push_str(&text);
        };
    part(Some(bp), Some(op), Some(tp), &mut out);
    for k in &order {
        part(find(&b, k), find(&o, k), find(&t, k), &mut out);
    }
    Some(Merged {
        text: out,
        conflicts,
        notes: Vec::new(),
    })
}

/// The task-level result of merging three manifests.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskMerge {
    /// The merged `tasks` map, ids in order.
    pub tasks: Map<String, Value>,
    /// The merged `next_task_id`.
    pub next_task_id: u64,
    /// Incoming tasks renumbered because ours already used their id: (old id, new id).
    pub renamed: Vec<(String, String)>,
    /// A side's change the merge did not take, and why (a status further along won).
    pub notes: Vec<String>,
    /// Fields of a task both sides changed to different values (the task's id and the
    /// field's name): the merge cannot choose, so the caller leaves a conflict.
    pub conflicts: Vec<String>,
    /// With `conflicts`: `tasks` with theirs' value in each of those fields (ours' are in
    /// `tasks`), so the caller can mark just those values and either choice keeps every
    /// task of the union.
    pub theirs_choice: Option<Map<String, Value>>,
}

fn task_number(id: &str) -> Option<u64> {
    id.strip_prefix("T-")?.parse().ok()
}

/// Formats a task id in the reference's `T-NNN` form.
pub fn task_id(n: u64) -> String {
    format!("T-{n:03}")
}

/// How far a task's status has got, for a task both sides moved to different statuses:
/// closed (`done`, `cancelled`) over `blocked` over `in_progress` over `ready`. A finished
/// task stays finished (reopening it would have someone do the work twice); a blocker one
/// side found is news the side that only claimed the task did not have. `None`: a status
/// this tool does not know (never ranked: both changes are a conflict).
fn progress(status: &Value) -> Option<u8> {
    match status.as_str()? {
        "ready" => Some(0),
        "in_progress" => Some(1),
        "blocked" => Some(2),
        "done" | "cancelled" => Some(3),
        _ => None,
    }
}

/// The fields that travel with a task's status: the side whose status wins gives all three.
const STATUS_FIELDS: [&str; 3] = ["status", "completed", "blocked_by"];

/// Merges one task both sides changed since the ancestor, field by field: a field only one
/// side changed takes that side's value (a removal included); a status both moved takes the
/// one further along ([`progress`]) with its `completed` and `blocked_by`, noting the other;
/// any other field both changed to different values is a conflict, named in `conflicts`
/// (ours' value is kept in the returned task, theirs' with `theirs_wins`).
fn merge_task(
    id: &str,
    base: Option<&Value>,
    (ours, theirs): (&Value, &Value),
    theirs_wins: bool,
    notes: &mut Vec<String>,
    conflicts: &mut Vec<String>,
) -> Value {
    let empty = Map::new();
    let (Value::Object(o), Value::Object(t)) = (ours, theirs) else {
        conflicts.push(format!("{id} (a side's task is not an object)"));
        return if theirs_wins { theirs } else { ours }.clone();
    };
    let b = match base {
        Some(Value::Object(b)) => b,
        _ => &empty,
    };
    let (bs, os, ts) = (b.get("status"), o.get("status"), t.get("status"));
    // Both moved the status, to different places: the one further along wins whole.
    let status_from = if os != bs && ts != bs && os != ts {
        let (or, tr) = (os.and_then(progress), ts.and_then(progress));
        let shown = |s: Option<&Value>| s.and_then(Value::as_str).unwrap_or("none").to_string();
        match (or, tr) {
            (Some(x), Some(y)) if x != y => {
                let (won, lost, side) = if x > y {
                    (shown(os), shown(ts), "the merged branch's")
                } else {
                    (shown(ts), shown(os), "this branch's")
                };
                notes.push(format!(
                    "task {id}: both branches changed its status; `{won}` is further along and was kept, {side} `{lost}` was not"
                ));
                Some(if x > y { o } else { t })
            }
            _ => {
                conflicts.push(format!("{id} `status`"));
                Some(if theirs_wins { t } else { o })
            }
        }
    } else {
        None
    };
    let mut out = Map::new();
    let keys = o.keys().chain(t.keys().filter(|k| !o.contains_key(*k)));
    for k in keys {
        let chosen = if let Some(side) = status_from.filter(|_| STATUS_FIELDS.contains(&k.as_str()))
        {
            side.get(k)
        } else {
            let (bv, ov, tv) = (b.get(k), o.get(k), t.get(k));
            if ov == tv || tv == bv {
                ov
            } else if ov == bv {
                tv
            } else {
                conflicts.push(format!("{id} `{k}`"));
                if theirs_wins { tv } else { ov }
            }
        };
        if let Some(v) = chosen {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}

/// A task of theirs with the ids it depends on renamed as the merge renamed them (the task
/// named is theirs' own, now under another id).
fn renamed_refs(task: &Value, renames: &HashMap<String, String>) -> Value {
    let mut t = task.clone();
    if let Some(Value::Array(deps)) = t.get_mut("depends_on") {
        for d in deps {
            if let Some(new) = d.as_str().and_then(|s| renames.get(s)) {
                *d = Value::String(new.clone());
            }
        }
    }
    t
}

/// Merges the tasks of three manifests (each as `(id, task)` pairs plus its
/// `next_task_id`): tasks unioned; a task both sides changed is merged field by field
/// ([`merge_task`]); a task only theirs added under an id ours uses for another task is
/// renumbered to the next free id, with `renumbered_from` and a note on the task, and every
/// `depends_on` of theirs that named it names the new id; `next_task_id` is above every id
/// and at least both sides'.
pub fn merge_tasks(
    base: &[(String, Value)],
    ours: &[(String, Value)],
    theirs: &[(String, Value)],
    next: [Option<u64>; 2],
) -> TaskMerge {
    let index = |list: &[(String, Value)]| -> HashMap<String, Value> {
        list.iter().map(|(i, v)| (i.clone(), v.clone())).collect()
    };
    let (bi, oi) = (index(base), index(ours));
    let highest = |list: &[(String, Value)]| {
        list.iter()
            .filter_map(|(i, _)| task_number(i))
            .max()
            .unwrap_or(0)
    };
    let mut next_free = [
        highest(base).saturating_add(1),
        highest(ours).saturating_add(1),
        highest(theirs).saturating_add(1),
        next[0].unwrap_or(1),
        next[1].unwrap_or(1),
    ]
    .into_iter()
    .max()
    .unwrap_or(1);
    // Theirs added a different task under an id ours already uses: renumbered. Known before
    // any task is merged, so that theirs' references to it can follow.
    let mut new_ids: HashMap<String, String> = HashMap::new();
    let mut renamed = Vec::new();
    for (id, task) in theirs {
        if !bi.contains_key(id) && oi.get(id).is_some_and(|o| o != task) {
            let new_id = task_id(next_free);
            next_free = next_free.saturating_add(1);
            new_ids.insert(id.clone(), new_id.clone());
            renamed.push((id.clone(), new_id));
        }
    }
    // Theirs' tasks as theirs meant them: a reference theirs made (a task it added or
    // changed) to a task now renumbered names the new id.
    let theirs_rw: HashMap<String, Value> = theirs
        .iter()
        .map(|(id, t)| {
            let rw = if bi.get(id) == Some(t) {
                t.clone()
            } else {
                renamed_refs(t, &new_ids)
            };
            (id.clone(), rw)
        })
        .collect();
    let (mut notes, mut conflicts) = (Vec::new(), Vec::new());
    let mut tasks = Map::new();
    // Theirs' values of the fields both sides changed differently, by task id.
    let mut theirs_values: Vec<(String, Value)> = Vec::new();
    for (id, task) in ours {
        let merged = match (bi.get(id), theirs_rw.get(id)) {
            _ if new_ids.contains_key(id) => task.clone(),
            (Some(b), Some(t)) if b == task => t.clone(),
            (b, Some(t)) if b != Some(t) && t != task => {
                let before = conflicts.len();
                let merged = merge_task(id, b, (task, t), false, &mut notes, &mut conflicts);
                if conflicts.len() > before {
                    let theirs =
                        merge_task(id, b, (task, t), true, &mut Vec::new(), &mut Vec::new());
                    theirs_values.push((id.clone(), theirs));
                }
                merged
            }
            _ => task.clone(),
        };
        tasks.insert(id.clone(), merged);
    }
    for (id, task) in theirs {
        let rw = theirs_rw.get(id).unwrap_or(task);
        if let Some(new_id) = new_ids.get(id) {
            let mut t = rw.clone();
            if let Value::Object(m) = &mut t {
                m.insert("renumbered_from".into(), Value::String(id.clone()));
                // A task that names its own id (the reference's form) names the new one.
                if m.get("id").is_some_and(Value::is_string) {
                    m.insert("id".into(), Value::String(new_id.clone()));
                }
                // The note is added to the task's own notes, never in their place.
                let note = format!(
                    "renumbered from {id} when branches were merged: the other branch had added a different {id}"
                );
                let notes = match m.get("notes") {
                    Some(Value::String(old)) if !old.trim().is_empty() => {
                        format!("{old}\n\n{note}")
                    }
                    _ => note,
                };
                if matches!(m.get("notes"), None | Some(Value::String(_) | Value::Null)) {
                    m.insert("notes".into(), Value::String(notes));
                }
            }
            tasks.insert(new_id.clone(), t);
            continue;
        }
        match bi.get(id) {
            // Ours removed a task theirs left alone: removed.
            Some(b) if b == task && !oi.contains_key(id) => {}
            _ if !tasks.contains_key(id) => {
                if bi.contains_key(id) {
                    notes.push(format!(
                        "task {id}: removed on this branch but changed on the merged one: kept as the merged branch left it"
                    ));
                }
                tasks.insert(id.clone(), rw.clone());
            }
            // Both sides have it: merged above.
            _ => {}
        }
    }
    for (id, task) in ours {
        if bi.get(id).is_some_and(|b| b != task)
            && !theirs_rw.contains_key(id)
            && !new_ids.contains_key(id)
        {
            notes.push(format!(
                "task {id}: removed on the merged branch but changed on this one: kept as this branch left it"
            ));
        }
    }
    let mut sorted: Vec<(String, Value)> = tasks.into_iter().collect();
    sorted.sort_by_key(|(id, _)| (task_number(id).unwrap_or(u64::MAX), id.clone()));
    let next_task_id = sorted
        .iter()
        .filter_map(|(i, _)| task_number(i))
        .max()
        .map_or(next_free, |m| m.saturating_add(1).max(next_free));
    let tasks: Map<String, Value> = sorted.into_iter().collect();
    let theirs_choice = (!theirs_values.is_empty()).then(|| {
        let mut choice = tasks.clone();
        choice.extend(theirs_values);
        choice
    });
    TaskMerge {
        tasks,
        next_task_id,
        renamed,
        notes,
        conflicts,
        theirs_choice,
    }
}

/// `text` with every task id (`T-` and at least three digits, not inside a word) that
/// `renames` maps replaced by its new id, all at once (a chain `T-001`→`T-003`,
/// `T-003`→`T-004` renames each id once).
fn rename_ids(text: &str, renames: &HashMap<&str, &str>) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for (at, _) in text.match_indices("T-") {
        if at < from || (at > 0 && b[at - 1].is_ascii_alphanumeric()) {
            continue;
        }
        let digits = b[at + 2..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let end = at + 2 + digits;
        if digits < 3 || b.get(end).is_some_and(u8::is_ascii_alphanumeric) {
            continue;
        }
        if let Some(new) = renames.get(&text[at..end]) {
            out.push_str(&text[from..at]);
            out.push_str(new);
            from = end;
        }
    }
    out.push_str(&text[from..]);
    out
}

/// Theirs' text with the task ids the merge renumbered renamed in the lines theirs added
/// (a line the ancestor does not hold): what theirs wrote about its own task names the id
/// the task has after the merge. Lines the ancestor holds are left as they are.
pub fn rename_added_ids(base: &str, theirs: &str, renamed: &[(String, String)]) -> String {
    if renamed.is_empty() {
        return theirs.to_string();
    }
    let map: HashMap<&str, &str> = renamed
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let old: std::collections::HashSet<&str> = base.split_inclusive('\n').collect();
    theirs
        .split_inclusive('\n')
        .map(|l| {
            if old.contains(l) {
                l.to_string()
            } else {
                rename_ids(l, &map)
            }
        })
        .collect()
}

/// A conflict git left in a text ([`first_conflict`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictBlock {
    /// The byte range of its opening `<<<<<<<` line (without the line end).
    pub opener: std::ops::Range<usize>,
    /// The line (from 1) of its closing `>>>>>>>` marker.
    pub close_line: usize,
}

/// The first conflict a merge, rebase or `git checkout -m` left in `text`: a line opening
/// with `<<<<<<<` (then a space and a label, or nothing) closed by a later line opening with
/// `>>>>>>>` likewise; a diff3 `|||||||` part and the `=======` between may come in between.
/// A `=======` line alone (a Markdown heading's underline) and a marker without its other
/// half are text. Linear in `text`.
pub fn first_conflict(text: &str) -> Option<ConflictBlock> {
    let marker = conflict_marker;
    let mut opener = None;
    let mut at = 0;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        if marker(bare, '<') {
            opener = Some(at..at + bare.len());
        } else if marker(bare, '>')
            && let Some(opener) = opener.take()
        {
            return Some(ConflictBlock {
                opener,
                close_line: n + 1,
            });
        }
        at += line.len();
    }
    None
}

/// Whether `line` (its line break cut off) is a conflict marker of `c`s: seven or more, then
/// a blank or the end of the line, as [`first_conflict`] reads them.
fn conflict_marker(line: &str, c: char) -> bool {
    let rest = line.trim_start_matches(c);
    line.len() - rest.len() >= 7 && (rest.is_empty() || rest.starts_with([' ', '\t']))
}

/// Whether `text` ends inside a conflict: an opening marker no closing marker follows, as
/// [`first_conflict`] pairs them (the text after may close it).
pub fn conflict_left_open(text: &str) -> bool {
    let mut open = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if conflict_marker(bare, '<') {
            open = true;
        } else if conflict_marker(bare, '>') {
            open = false;
        }
    }
    open
}

/// Splits a file holding git conflict markers into ours' and theirs' versions (text outside
/// conflicts goes to both; a diff3 ancestor part is dropped). `None` when it holds no
/// complete conflict.
pub fn split_conflict(text: &str) -> Option<(String, String)> {
    #[derive(PartialEq)]
    enum Part {
        Both,
        Ours,
        Base,
        Theirs,
    }
    let mut part = Part::Both;
    let (mut o, mut t) = (String::new(), String::new());
    let mut seen = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.starts_with("<<<<<<<") && part == Part::Both {
            part = Part::Ours;
            continue;
        }
        if bare.starts_with("|||||||") && part == Part::Ours {
            part = Part::Base;
            continue;
        }
        if bare == "=======" && matches!(part, Part::Ours | Part::Base) {
            part = Part::Theirs;
            continue;
        }
        if bare.starts_with(">>>>>>>") && part == Part::Theirs {
            part = Part::Both;
            seen = true;
            continue;
        }
        match part {
            Part::Both => {
                o.push_str(line);
                t.push_str(line);
            }
            Part::Ours => o.push_str(line),
            Part::Theirs => t.push_str(line),
            Part::Base => {}
        }
    }
    (seen && part == Part::Both).then_some((o, t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const PRE: &str = "# Log\n\n> Newest first.\n\n---\n\n";

    #[test]
    fn a_conflict_is_a_block_from_its_opener_to_its_closer() {
        let text = "# Status\n\nTitle\n=======\n\n<<<<<<< ours\r\nB\n||||||| base\nO\n=======\nA\n>>>>>>> theirs\n";
        let c = first_conflict(text).unwrap();
        assert_eq!(&text[c.opener.clone()], "<<<<<<< ours");
        assert_eq!(c.close_line, 12);
        for text in [
            "Title\n=======\n\nText.\n",
            "<<<<<<< ours\nB\n=======\nA\n",
            "=======\nA\n>>>>>>> theirs\n",
            ">>>>>>> theirs\n<<<<<<< ours\n",
            "see a <<<<<<< ours line\n>>>>>>> theirs\n",
            "<<<<<<<x\n>>>>>>>x\n",
        ] {
            assert_eq!(first_conflict(text), None, "{text:?}");
        }
    }

    fn entry(date: &str, who: &str, n: usize) -> String {
        format!("## [{date}] {who}: session {n}\n\n- did {n}\n")
    }

    fn journal(entries: &[String]) -> String {
        if entries.is_empty() {
            return PRE.to_string();
        }
        format!("{PRE}{}", entries.join("\n---\n\n"))
    }

    fn digests(text: &str) -> Vec<String> {
        let mut d = LogFile::parse(text).digests();
        d.sort();
        d
    }

    #[test]
    fn journals_union_new_entries_of_both_sides_newest_first() {
        let base = journal(&[entry("2026-11-01", "a", 1)]);
        let ours = journal(&[entry("2026-11-03", "a", 2), entry("2026-11-01", "a", 1)]);
        let theirs = journal(&[entry("2026-11-02", "b", 3), entry("2026-11-01", "a", 1)]);
        let m = merge_journal(&base, &ours, &theirs);
        let log = LogFile::parse(&m.text);
        let heads: Vec<&str> = log.entries.iter().map(|e| e.header.as_str()).collect();
        assert_eq!(
            heads,
            [
                "## [2026-11-03] a: session 2",
                "## [2026-11-02] b: session 3",
                "## [2026-11-01] a: session 1"
            ]
        );
        assert!(m.text.starts_with(PRE), "{}", m.text);
        assert_eq!(m.conflicts, 0);
    }

    #[test]
    fn the_merges_own_entry_is_newest_and_only_when_both_sides_changed_the_journal() {
        let base = journal(&[entry("2026-11-01", "a", 1)]);
        let ours = journal(&[entry("2026-11-03", "a", 2), entry("2026-11-01", "a", 1)]);
        let theirs = journal(&[entry("2026-11-02", "b", 3), entry("2026-11-01", "a", 1)]);
        let top = "## [2026-11-03] git-aahp: Merge renumbered task ids\n\n- `T-001` is now `T-002`";
        let m = merge_journal_with(&base, &ours, &theirs, Some(top));
        let log = LogFile::parse(&m.text);
        assert_eq!(log.entries.len(), 4, "{}", m.text);
        assert_eq!(log.entries[0].text, top);
        // A side that did not change the journal is taken as it is: no entry.
        let m = merge_journal_with(&base, &ours, &base, Some(top));
        assert_eq!(m.text, ours);
    }

    #[test]
    fn an_entry_both_sides_added_is_kept_once_and_a_sides_own_copies_stay() {
        // Both branches rotating the same entries into the archive add them on both sides:
        // kept once, as git merges the same change made on both sides (review rob36 #1).
        let base = journal(&[entry("2026-11-01", "a", 1)]);
        let same = entry("2026-11-02", "a", 2);
        let ours = journal(&[same.clone(), entry("2026-11-01", "a", 1)]);
        let theirs = journal(&[
            entry("2026-11-02", "b", 9),
            same.clone(),
            entry("2026-11-01", "a", 1),
        ]);
        let m = merge_journal(&base, &ours, &theirs);
        let entries = LogFile::parse(&m.text).entries;
        assert_eq!(entries.len(), 3, "{}", m.text);
        assert_eq!(m.text.matches("session 2\n").count(), 1, "{}", m.text);
        assert!(m.notes.is_empty(), "{:?}", m.notes);
        // A side that itself holds an entry twice keeps both copies, noted; theirs adds
        // only the copies beyond ours'.
        let twice = journal(&[same.clone(), same.clone(), entry("2026-11-01", "a", 1)]);
        for (o, t) in [(&twice, &theirs), (&ours, &twice)] {
            let m = merge_journal(&base, o, t);
            assert_eq!(m.text.matches("session 2\n").count(), 2, "{}", m.text);
            assert_eq!(m.notes.len(), 1, "{:?}", m.notes);
        }
        // The index merges the same way.
        let el = |d: &str| format!("{{\"sha256\": \"{d}\", \"title\": \"## [2026-11-{d}] a: x\"}}");
        let index = |els: &[&str]| {
            let els: Vec<String> = els.iter().map(|d| el(d)).collect();
            format!("{{\"version\": 1, \"entries\": [{}]}}", els.join(", "))
        };
        let m = merge_index(
            &index(&["01"]),
            &index(&["01", "02"]),
            &index(&["01", "03", "02"]),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&m.text).unwrap();
        assert_eq!(v["entries"].as_array().unwrap().len(), 3, "{}", m.text);
    }

    #[test]
    fn an_entry_rotated_out_on_one_side_leaves_the_log() {
        let one = entry("2026-11-01", "a", 1);
        let base = journal(&[entry("2026-11-02", "a", 2), one.clone()]);
        let ours = journal(&[entry("2026-11-03", "a", 3), entry("2026-11-02", "a", 2)]);
        let theirs = journal(&[
            entry("2026-11-04", "b", 4),
            entry("2026-11-02", "a", 2),
            one,
        ]);
        let m = merge_journal(&base, &ours, &theirs);
        let heads: Vec<String> = LogFile::parse(&m.text)
            .entries
            .iter()
            .map(|e| e.header.clone())
            .collect();
        assert_eq!(heads.len(), 3, "{heads:?}");
        assert!(!heads.iter().any(|h| h.contains("session 1")), "{heads:?}");
    }

    #[test]
    fn trust_rows_union_and_the_newer_verification_wins() {
        let head = "# Trust\n\n## Build\n\n| Property | Status | Provenance | Last Verified | Agent | TTL | Expires | Notes |\n|---|---|---|---|---|---|---|---|\n";
        let row =
            |p: &str, d: &str| format!("| {p} | verified | test_verified | {d} | a | 7d | - | |\n");
        let base = format!("{head}{}", row("Builds", "2026-11-01"));
        let ours = format!(
            "{head}{}{}",
            row("Builds", "2026-11-05"),
            row("Lints", "2026-11-05")
        );
        let theirs = format!(
            "{head}{}{}",
            row("Builds", "2026-11-07"),
            row("Docs", "2026-11-06")
        );
        let m = merge_trust(&base, &ours, &theirs);
        assert!(m.text.contains(&row("Builds", "2026-11-07")), "{}", m.text);
        assert!(m.text.contains(&row("Lints", "2026-11-05")), "{}", m.text);
        assert!(m.text.contains(&row("Docs", "2026-11-06")), "{}", m.text);
        assert_eq!(m.text.matches("| Builds |").count(), 1, "{}", m.text);
    }

    #[test]
    fn work_items_and_rows_both_sides_added_are_all_kept_and_an_item_both_rewrote_is_marked() {
        let queue = |items: &[&str], rows: &[&str]| {
            let mut s = String::from("# Next\n\nThe queue.\n\n## Active\n\n");
            for i in items {
                s.extend(["## ", i, "\n\nGoal: ", i, ".\n\n"]);
            }
            s.push_str("## Recently completed\n\n| Item | Done |\n|---|---|\n| T-000 | x |\n");
            for r in rows {
                s.extend(["| ", r, " | y |\n"]);
            }
            s
        };
        let base = queue(&["T-001: base"], &[]);
        let ours = queue(&["T-001: base", "T-002: ours"], &["T-009"]);
        let theirs = queue(&["T-001: base", "T-003: theirs"], &["T-008"]);
        let m = merge_blocks(&base, &ours, &theirs).unwrap();
        assert_eq!(m.conflicts, 0, "{}", m.text);
        assert_eq!(
            m.text,
            queue(
                &["T-001: base", "T-002: ours", "T-003: theirs"],
                &["T-009", "T-008"]
            )
        );
        // The same addition on both sides is one.
        let m = merge_blocks(&base, &ours, &ours).unwrap();
        assert_eq!(m.text, ours);
        // One side removed an item the other left alone: removed.
        let m = merge_blocks(&base, &queue(&[], &[]), &theirs).unwrap();
        assert_eq!(m.text, queue(&["T-003: theirs"], &["T-008"]));
        // An item both rewrote differently: both kept inside markers, the rest merged.
        let edit = |t: &str, to: &str| t.replace("Goal: T-001: base.", to);
        let m = merge_blocks(
            &base,
            &edit(&ours, "Goal: ours."),
            &edit(&theirs, "Goal: theirs."),
        )
        .unwrap();
        assert_eq!(m.conflicts, 1);
        assert!(
            m.text
                .contains("<<<<<<< ours\nGoal: ours.\n=======\nGoal: theirs.\n>>>>>>> theirs\n"),
            "{}",
            m.text
        );
        assert!(m.text.contains("## T-002: ours") && m.text.contains("## T-003: theirs"));
        // A heading inside a code fence is no block; a heading given twice is left to git.
        let fenced = "# Next\n\n```\n## not a heading\n```\n";
        assert_eq!(heading_blocks(fenced).unwrap().1.len(), 1);
        assert!(merge_blocks(&base, &format!("{ours}## T-002: ours\n"), &theirs).is_none());
    }

    #[test]
    fn sections_merge_and_a_section_both_rewrote_is_marked() {
        let doc = |a: &str, b: &str| {
            format!(
                "# Status\n\n<!-- SECTION: summary -->\n{a}\n<!-- /SECTION: summary -->\n\n<!-- SECTION: done -->\n{b}\n<!-- /SECTION: done -->\n"
            )
        };
        let m = merge_sections(&doc("s", "d"), &doc("s2", "d"), &doc("s", "d2")).unwrap();
        assert_eq!(m.text, doc("s2", "d2"));
        assert_eq!(m.conflicts, 0);
        let m = merge_sections(&doc("s", "d"), &doc("ours", "d"), &doc("theirs", "d")).unwrap();
        assert_eq!(m.conflicts, 1);
        assert!(
            m.text
                .contains("<<<<<<< ours\nours\n=======\ntheirs\n>>>>>>> theirs\n"),
            "{}",
            m.text
        );
        let (o, t) = split_conflict(&m.text).unwrap();
        assert_eq!(o, doc("ours", "d"));
        assert_eq!(t, doc("theirs", "d"));
    }

    #[test]
    fn clashing_task_ids_are_renumbered_on_the_incoming_side() {
        let task = |t: &str| serde_json::json!({"title": t, "status": "ready"});
        let base = vec![("T-001".to_string(), task("old"))];
        let ours = vec![
            ("T-001".to_string(), task("old")),
            ("T-002".to_string(), task("ours")),
        ];
        let theirs = vec![
            ("T-001".to_string(), task("old")),
            ("T-002".to_string(), task("theirs")),
        ];
        let m = merge_tasks(&base, &ours, &theirs, [Some(3), Some(3)]);
        assert_eq!(m.renamed, [("T-002".to_string(), "T-003".to_string())]);
        assert_eq!(m.tasks["T-002"]["title"], "ours");
        assert_eq!(m.tasks["T-003"]["title"], "theirs");
        assert_eq!(m.tasks["T-003"]["renumbered_from"], "T-002");
        assert_eq!(m.next_task_id, 4);
    }

    #[test]
    fn a_renumbered_task_keeps_its_notes_and_names_its_new_id() {
        let ours = vec![(
            "T-001".to_string(),
            serde_json::json!({"id": "T-001", "title": "ours"}),
        )];
        let theirs = vec![(
            "T-001".to_string(),
            serde_json::json!({"id": "T-001", "title": "theirs", "notes": "needs the API key"}),
        )];
        let m = merge_tasks(&[], &ours, &theirs, [None, None]);
        assert_eq!(m.renamed, [("T-001".to_string(), "T-002".to_string())]);
        assert_eq!(m.tasks["T-001"]["id"], "T-001");
        assert_eq!(m.tasks["T-002"]["id"], "T-002");
        let notes = m.tasks["T-002"]["notes"].as_str().unwrap();
        assert!(notes.starts_with("needs the API key\n\n"), "{notes}");
        assert!(notes.contains("renumbered from T-001"), "{notes}");
    }

    #[test]
    fn renumbered_ids_are_renamed_once_and_only_in_lines_theirs_added() {
        let renamed = [
            ("T-001".to_string(), "T-003".to_string()),
            ("T-003".to_string(), "T-004".to_string()),
        ];
        let base = "Heading as `## T-001: Title`\n";
        let theirs =
            "Heading as `## T-001: Title`\n## T-001: Build\nafter T-003, not AT-001 or T-0011\n";
        assert_eq!(
            rename_added_ids(base, theirs, &renamed),
            "Heading as `## T-001: Title`\n## T-003: Build\nafter T-004, not AT-001 or T-0011\n"
        );
    }

    #[test]
    fn prose_both_sides_changed_differently_is_marked_and_disjoint_changes_merge() {
        let base = "a\nb\nc\n";
        assert_eq!(
            merge_prose(base, "A\nb\nc\n", "a\nb\nC\n"),
            ("A\nb\nC\n".into(), 0)
        );
        let (text, conflicts) = merge_prose(base, "a\nb\nc\nours\n", "a\nb\nc\ntheirs\n");
        assert_eq!(conflicts, 1);
        assert_eq!(
            text,
            "a\nb\nc\n<<<<<<< ours\nours\n=======\ntheirs\n>>>>>>> theirs\n"
        );
    }

    proptest! {
        /// A task both sides changed, each field left alone, changed on one side or on
        /// both: every change only one side made is in the merge, a field both changed
        /// differently is a conflict (never a silent choice), and the status is the one
        /// further along.
        #[test]
        fn a_task_both_sides_changed_keeps_every_one_sided_change(
            edits in proptest::collection::vec(0u8..4, 1..6),
            statuses in (0usize..4, 0usize..4),
        ) {
            const STATUS: [&str; 4] = ["ready", "in_progress", "blocked", "done"];
            let mut b = Map::new();
            b.insert("status".into(), Value::from("ready"));
            let (mut o, mut t) = (b.clone(), b.clone());
            o.insert("status".into(), Value::from(STATUS[statuses.0]));
            t.insert("status".into(), Value::from(STATUS[statuses.1]));
            for (i, e) in edits.iter().enumerate() {
                let k = format!("f{i}");
                b.insert(k.clone(), Value::from("base"));
                o.insert(k.clone(), Value::from(if matches!(e, 1 | 3) { "ours" } else { "base" }));
                t.insert(k.clone(), Value::from(match e { 2 => "theirs", 3 => "theirs too", _ => "base" }));
            }
            let (mut notes, mut conflicts) = (Vec::new(), Vec::new());
            let m = merge_task(
                "T-001",
                Some(&Value::Object(b)),
                (&Value::Object(o), &Value::Object(t)),
                false,
                &mut notes,
                &mut conflicts,
            );
            for (i, e) in edits.iter().enumerate() {
                let k = format!("f{i}");
                match e {
                    0 => prop_assert_eq!(&m[&k], "base"),
                    1 => prop_assert_eq!(&m[&k], "ours"),
                    2 => prop_assert_eq!(&m[&k], "theirs"),
                    _ => {
                        let named = format!("T-001 `{k}`");
                        prop_assert!(conflicts.contains(&named));
                    }
                }
            }
            let want = STATUS[statuses.0.max(statuses.1)];
            prop_assert_eq!(&m["status"], want);
            // A status change that lost is always noted.
            let lost = statuses.0 != statuses.1 && statuses.0 != 0 && statuses.1 != 0;
            prop_assert_eq!(notes.iter().any(|n| n.contains("further along")), lost);
            let both = edits.iter().filter(|e| matches!(e, 3)).count();
            prop_assert_eq!(conflicts.len(), both);
        }

        /// Random entries added on two branches over a common log: the merge holds every
        /// entry of the ancestor once and every addition of each side, nothing else, newest
        /// first.
        #[test]
        fn merging_random_interleavings_loses_and_duplicates_nothing(
            base_n in 0usize..4,
            ours_days in proptest::collection::vec(1u8..28, 0..5),
            theirs_days in proptest::collection::vec(1u8..28, 0..5),
            same in any::<bool>(),
        ) {
            let mk = |day: u8, who: &str, n: usize| entry(&format!("2026-10-{day:02}"), who, n);
            let base: Vec<String> = (0..base_n).rev().map(|i| entry("2026-09-01", "base", i)).collect();
            let side = |days: &[u8], who: &str| {
                let mut d = days.to_vec();
                d.sort_unstable_by(|a, b| b.cmp(a));
                let mut v: Vec<String> = d.iter().enumerate().map(|(i, &day)| {
                    mk(day, if same { "x" } else { who }, i)
                }).collect();
                v.extend(base.iter().cloned());
                v
            };
            let ours = side(&ours_days, "o");
            let theirs = side(&theirs_days, "t");
            let m = merge_journal(&journal(&base), &journal(&ours), &journal(&theirs));
            // The ancestor's entries, and of each entry a side added, as many copies as the
            // side that added more of it holds: the same addition on both sides is one (git
            // does not even run the driver when the sides are equal; review rob36 #1).
            let mut want: Vec<String> = digests(&journal(&base));
            let added = |side: &[String]| digests(&journal(&side[..side.len() - base.len()]));
            let (o, t) = (added(&ours), added(&theirs));
            let mut keys = o.clone();
            keys.extend(t.iter().cloned());
            keys.sort();
            keys.dedup();
            for k in keys {
                let n = o.iter().filter(|d| **d == k).count().max(t.iter().filter(|d| **d == k).count());
                want.extend(std::iter::repeat_n(k, n));
            }
            want.sort();
            prop_assert_eq!(digests(&m.text), want);
            let dates: Vec<_> = LogFile::parse(&m.text).entries.iter().map(|e| e.date).collect();
            let mut sorted = dates.clone();
            sorted.sort_by(|a, b| b.cmp(a));
            prop_assert_eq!(dates, sorted);
        }
    }
}

#[cfg(test)]
mod index_keys {
    use super::merge_index;

    #[test]
    fn a_side_giving_a_key_twice_is_a_conflict_not_a_silent_choice() {
        let base = r#"{"version": 1, "entries": []}"#;
        let ours = r#"{"version": 1, "owner": "alice", "owner": "bob", "entries": []}"#;
        let theirs = r#"{"version": 1, "entries": [{"sha256": "ab", "title": "t"}]}"#;
        assert!(merge_index(base, ours, theirs).is_none());
        let ours = r#"{"version": 1, "owner": "bob", "entries": []}"#;
        assert!(merge_index(base, ours, theirs).is_some());
    }

    /// Review atk42 #7: a redaction one branch recorded stays recorded in the merged index
    /// (ours' other keys alone were kept), with both branches' when each recorded one.
    #[test]
    fn the_redactions_either_branch_recorded_are_kept() {
        let e = |sha: &str, t: &str| {
            format!(r#"{{"sha256": "{sha}", "title": "[2026-11-{t}] a: x{t}"}}"#)
        };
        let r = |sha: &str, t: &str| {
            format!(
                r#"{{"sha256": "{sha}", "title": "[2026-11-{t}] a: x{t}", "reasons": ["r"], "date": "2026-11-30"}}"#
            )
        };
        let base = format!(r#"{{"version": 1, "entries": [{}]}}"#, e("aa", "10"));
        let ours = format!(
            r#"{{"version": 1, "entries": [{}, {}]}}"#,
            e("aa", "10"),
            e("cc", "20")
        );
        let theirs = format!(
            r#"{{"version": 1, "entries": [{}], "redactions": [{}]}}"#,
            e("bb", "10"),
            r("bb", "10")
        );
        let merged: serde_json::Value =
            serde_json::from_str(&merge_index(&base, &ours, &theirs).unwrap().text).unwrap();
        assert_eq!(merged["redactions"][0]["sha256"], "bb", "{merged}");
        // Both branches recorded one: both are kept, each once.
        let ours = format!(
            r#"{{"version": 1, "entries": [{}, {}], "redactions": [{}]}}"#,
            e("aa", "10"),
            e("dd", "20"),
            r("dd", "20")
        );
        let theirs = format!(
            r#"{{"version": 1, "entries": [{}, {}], "redactions": [{}, {}]}}"#,
            e("bb", "10"),
            e("dd", "20"),
            r("bb", "10"),
            r("dd", "20")
        );
        let merged: serde_json::Value =
            serde_json::from_str(&merge_index(&base, &ours, &theirs).unwrap().text).unwrap();
        let shas: Vec<&str> = merged["redactions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["sha256"].as_str().unwrap())
            .collect();
        assert_eq!(shas, ["dd", "bb"], "{merged}");
    }
}

#[cfg(test)]
mod placement {
    use super::*;
    use proptest::prelude::*;

    /// `union_by_key` as it was written first: each addition of theirs inserted by a scan for
    /// the first item older than it (or an ancestor item of its date). Quadratic, and the
    /// reference for the placement the merge keeps.
    fn naive(
        base: &[(u8, Option<u8>)],
        ours: &[(u8, Option<u8>)],
        theirs: &[(u8, Option<u8>)],
    ) -> Vec<(u8, Option<u8>)> {
        let count = |items: &[(u8, Option<u8>)]| {
            let mut m: HashMap<u8, usize> = HashMap::new();
            for i in items {
                *m.entry(i.0).or_default() += 1;
            }
            m
        };
        let (b, o, t) = (count(base), count(ours), count(theirs));
        let get = |m: &HashMap<u8, usize>, k: u8| m.get(&k).copied().unwrap_or(0);
        let mut seen: HashMap<u8, usize> = HashMap::new();
        let mut out: Vec<((u8, Option<u8>), bool)> = Vec::new();
        for &item in ours {
            let (bk, ok, tk) = (get(&b, item.0), get(&o, item.0), get(&t, item.0));
            let added = ok.saturating_sub(bk);
            let kept_base = bk.saturating_sub((bk.saturating_sub(ok)).max(bk.saturating_sub(tk)));
            let n = seen.entry(item.0).or_default();
            *n += 1;
            if *n <= added {
                out.push((item, false));
            } else if *n - added <= kept_base {
                out.push((item, true));
            }
        }
        let mut seen: HashMap<u8, usize> = HashMap::new();
        for &item in theirs {
            // Theirs' copies beyond ours' additions (review rob36 #1).
            let added = get(&t, item.0)
                .saturating_sub(get(&b, item.0))
                .saturating_sub(get(&o, item.0).saturating_sub(get(&b, item.0)));
            let n = seen.entry(item.0).or_default();
            *n += 1;
            if *n > added {
                continue;
            }
            let at = out
                .iter()
                .position(|(e, from_base)| e.1 < item.1 || (*from_base && e.1 <= item.1))
                .unwrap_or(out.len());
            out.insert(at, (item, false));
        }
        out.into_iter().map(|(e, _)| e).collect()
    }

    fn items() -> impl Strategy<Value = Vec<(u8, Option<u8>)>> {
        proptest::collection::vec((0u8..12, proptest::option::weighted(0.8, 0u8..6)), 0..14)
    }

    /// Each item's date is read once: placing each addition by a scan of the merged list read
    /// the dates of the items before it again, n·m reads in all (a 16,000-entry merge of
    /// LOG.md took 8 s, and the archive index parses a heading per read; review rob35 #4).
    #[test]
    fn each_date_is_read_once_however_many_items_each_side_added() {
        let n = 300;
        // Newest first, as a journal is: each addition belongs after many items.
        let entry = |side: char, i: usize| (format!("{side}{i}"), 27 - i * 28 / n);
        let base: Vec<(String, usize)> = (0..n).map(|i| entry('b', i)).collect();
        let with = |side: char| -> Vec<(String, usize)> {
            (0..n)
                .map(|i| entry(side, i))
                .chain(base.iter().cloned())
                .collect()
        };
        let reads = std::cell::Cell::new(0usize);
        let merged = union_by_key(
            &base,
            &with('o'),
            &with('t'),
            |e| e.0.clone(),
            |e| {
                reads.set(reads.get() + 1);
                Date::new(2026, 10, i8::try_from(e.1).unwrap() + 1).ok()
            },
        );
        assert_eq!(merged.len(), 3 * n);
        assert!(
            reads.get() <= 3 * n,
            "{} date reads for {} items",
            reads.get(),
            3 * n
        );
    }

    proptest! {
        /// Any order of dates (a hand-edited journal is not sorted), missing dates, repeated
        /// keys: the merge places every addition exactly where inserting them one by one
        /// would (review rob35 #4 made it O(n log n)).
        #[test]
        fn additions_are_placed_as_inserting_them_one_by_one_would(
            base in items(), ours in items(), theirs in items(),
        ) {
            // An item's key names its date: the same key, the same item.
            let fix = |v: Vec<(u8, Option<u8>)>| -> Vec<(u8, Option<u8>)> {
                v.into_iter().map(|(k, _)| (k, (k % 7 != 0).then_some(k / 2))).collect()
            };
            let (base, ours, theirs) = (fix(base), fix(ours), fix(theirs));
            let day = |d: Option<u8>| d.map(|d| Date::new(2026, 10, i8::try_from(d).unwrap() + 1).unwrap());
            let fast = union_by_key(&base, &ours, &theirs, |e| e.0.to_string(), |e| day(e.1));
            prop_assert_eq!(fast, naive(&base, &ours, &theirs));
        }
    }
}
