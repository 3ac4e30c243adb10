//! STRUCT: the shape of the handoff files the protocol constrains — balanced section markers,
//! at most 10 LOG entries, at most 5 active next actions (warnings: the fix is `archive` or an
//! edit, not a blocked commit) — and, in every text an agent reads, a merge left unresolved
//! (an error: both sides would be read as the state).

use super::super::engine::Finding;
use super::super::markdown::MdIndex;
use super::super::registry::{STRUCT001, STRUCT002, STRUCT003, STRUCT004};

/// Maximum LOG.md entries (SPEC §2).
pub(crate) const MAX_LOG_ENTRIES: usize = 10;
/// Maximum active `NEXT_ACTIONS.md` items (SPEC §2).
pub(crate) const MAX_ACTIVE_ACTIONS: usize = 5;

fn in_fence(md: &MdIndex, pos: usize) -> bool {
    // Fences are in order and do not overlap.
    let k = md.fences.partition_point(|(a, _)| *a <= pos);
    k > 0 && pos < md.fences[k - 1].1
}

/// Lines (start offset, text) outside fenced code.
fn lines<'a>(raw: &'a str, md: &'a MdIndex) -> impl Iterator<Item = (usize, &'a str)> + 'a {
    let mut pos = 0;
    raw.split_inclusive('\n').filter_map(move |l| {
        let start = pos;
        pos += l.len();
        (!in_fence(md, start)).then_some((start, l.trim_end_matches(['\n', '\r'])))
    })
}

/// Runs the structure rules for the handoff file `name`.
pub(crate) fn check(name: &str, raw: &str, md: &MdIndex, out: &mut Vec<Finding>) {
    sections(raw, md, out);
    if name == "LOG.md" {
        let entries: Vec<(usize, &str)> = lines(raw, md).filter(|(_, l)| is_log_entry(l)).collect();
        if entries.len() > MAX_LOG_ENTRIES {
            let (s, l) = entries[MAX_LOG_ENTRIES];
            out.push(Finding::raw(
                &STRUCT002,
                s,
                s + l.len(),
                format!("LOG.md holds {} entries (at most {MAX_LOG_ENTRIES}); `git aahp archive` rotates the older ones", entries.len()),
            ));
        }
    }
    if name == "NEXT_ACTIONS.md" {
        let mut active = Vec::new();
        for (s, l) in lines(raw, md) {
            let t = l.trim_start();
            if t.starts_with('#') {
                let title = t.trim_start_matches('#').trim().to_lowercase();
                if t.starts_with("## ")
                    && (title.contains("recently completed")
                        || title.starts_with("reference")
                        || title.starts_with("done")
                        || title.starts_with("completed")
                        || title.starts_with("archive")
                        || title.starts_with("backlog"))
                {
                    break;
                }
                if is_task_heading(t) && !is_done(&title) {
                    active.push((s, l));
                }
            }
        }
        if active.len() > MAX_ACTIVE_ACTIONS {
            let (s, l) = active[MAX_ACTIVE_ACTIONS];
            out.push(Finding::raw(
                &STRUCT003,
                s,
                s + l.len(),
                format!("NEXT_ACTIONS.md lists {} active items (at most {MAX_ACTIVE_ACTIONS}); move the rest to DASHBOARD.md or BACKLOG.md", active.len()),
            ));
        }
    }
}

/// Flags the first conflict git left in `raw` ([`crate::handoff::merge::first_conflict`]) at
/// its opening marker: one finding says the file is unresolved.
pub(crate) fn conflict(raw: &str, out: &mut Vec<Finding>) {
    if let Some(c) = crate::handoff::merge::first_conflict(raw) {
        out.push(Finding::raw(
            &STRUCT004,
            c.opener.start,
            c.opener.end,
            format!(
                "a merge left this unresolved (conflict markers through line {}): resolve it, \
                 keeping what each side meant and removing the markers; in a handoff directory \
                 then run `git aahp manifest`",
                c.close_line
            ),
        ));
    }
}

/// `## [YYYY-MM-DD] …`, the reference's entry header.
pub(crate) fn is_log_entry(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("## [") else {
        return false;
    };
    let b = rest.as_bytes();
    b.len() >= 11
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
        && b[10] == b']'
}

fn is_task_heading(t: &str) -> bool {
    let h = t.trim_start_matches('#');
    let hashes = t.len() - h.len();
    if !(2..=3).contains(&hashes) {
        return false;
    }
    let h = h.trim_start().trim_start_matches(['[', '~', '*']);
    h.starts_with("T-") && h[2..].starts_with(|c: char| c.is_ascii_digit())
}

fn is_done(title: &str) -> bool {
    title.contains('✅')
        || title.contains("~~")
        || title.contains("(done")
        || title.contains("[done")
        || title.contains("done)")
        || title.ends_with(" done")
        || title.contains("completed")
        || title.contains("[x]")
}

pub(crate) fn sections(raw: &str, md: &MdIndex, out: &mut Vec<Finding>) {
    let mut stack: Vec<(&str, usize, usize)> = Vec::new();
    // How many open sections of each name the stack holds: a closing marker whose name is
    // not open is judged without searching the stack.
    let mut open: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    for c in &md.comments {
        let inner = raw[c.inner.0..c.inner.1.max(c.inner.0)].trim();
        let (closing, name) = if let Some(n) = inner.strip_prefix("/SECTION:") {
            (true, n.trim())
        } else if let Some(n) = inner.strip_prefix("SECTION:") {
            (false, n.trim())
        } else {
            continue;
        };
        if !closing {
            *open.entry(name).or_insert(0) += 1;
            stack.push((name, c.start, c.end));
            continue;
        }
        let found = if open.get(name).is_some_and(|&n| n > 0) {
            let i = stack.iter().rposition(|(n, _, _)| *n == name);
            super::super::steps::add((stack.len() - i.unwrap_or(0)) as u64);
            i
        } else {
            None
        };
        // Everything from the found section up leaves the stack.
        if let Some(i) = found {
            for (n, _, _) in &stack[i..] {
                *open.get_mut(n).expect("counted when pushed") -= 1;
            }
        }
        match found {
            Some(i) if i == stack.len() - 1 => {
                stack.pop();
            }
            Some(i) => {
                let (inner_name, s, e) = stack.remove(i + 1);
                out.push(Finding::raw(
                    &STRUCT001,
                    s,
                    e,
                    format!("section {inner_name:?} is not closed before section {name:?} closes"),
                ));
                stack.truncate(i);
            }
            None => out.push(Finding::raw(
                &STRUCT001,
                c.start,
                c.end,
                format!("closing marker for section {name:?}, which was never opened"),
            )),
        }
    }
    for (name, s, e) in stack {
        out.push(Finding::raw(
            &STRUCT001,
            s,
            e,
            format!("section {name:?} is never closed"),
        ));
    }
}
