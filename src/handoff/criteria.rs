//! Acceptance criteria of tasks, read for an advisory report (issue #15 item 6; the
//! reference's §8.7 lifecycle): each task keeps one `Acceptance criteria` section of task
//! boxes, `- [ ]` until evidence exists, and before the task is `done` every box is checked,
//! `(waived: …)` or `(follow-up: T-NNN)`.
//!
//! Criteria are hand-written Markdown, so reading them is a heuristic. What this module
//! finds is reported by `review` and never gates anything; what it cannot read (a section
//! with no list, a section no task owns) it reports as such instead of falling silent.

use super::markdown;

/// What is wrong with a criteria section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Defect {
    /// The task is `done` while a criterion is neither checked, waived nor moved.
    UnresolvedOnDone,
    /// Criteria written as plain list items: nobody can tell resolved from open.
    PlainBullets,
    /// Titled "Completion criteria" or "Definition of done" instead of "Acceptance criteria".
    LegacyHeading,
    /// A criteria heading with no list item under it (prose, a table, an empty section).
    Unparsed,
    /// A criteria section no task id owns, or one whose task the registry does not hold:
    /// whether its task is done cannot be judged.
    Unbound,
}

/// One finding of [`findings`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What is wrong.
    pub defect: Defect,
    /// The task the section belongs to, when one does.
    pub task: Option<String>,
    /// 1-based line: the criterion for [`Defect::UnresolvedOnDone`], else the heading.
    pub line: usize,
    /// The criterion's text, or the section's heading.
    pub text: String,
}

/// A criteria section as read.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Section {
    line: usize,
    heading: String,
    legacy: bool,
    task: Option<String>,
    items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Item {
    line: usize,
    boxed: bool,
    checked: bool,
    text: String,
}

/// A bold label deeper than any heading, so that any heading closes the task it opened.
const LABEL_DEPTH: usize = 7;

/// Reads `text` (a `NEXT_ACTIONS.md`) and reports its criteria defects. `done` answers for a
/// task id: `Some(true)` when the task registry says `done`, `Some(false)` for another
/// status, `None` when the registry does not hold it.
pub fn findings(text: &str, done: &dyn Fn(&str) -> Option<bool>) -> Vec<Finding> {
    let mut out = Vec::new();
    for s in sections(text) {
        let at = |defect| Finding {
            defect,
            task: s.task.clone(),
            line: s.line,
            text: s.heading.clone(),
        };
        if s.legacy {
            out.push(at(Defect::LegacyHeading));
        }
        if s.items.is_empty() {
            out.push(at(Defect::Unparsed));
            continue;
        }
        if s.items.iter().any(|i| !i.boxed) {
            out.push(at(Defect::PlainBullets));
        }
        match s.task.as_deref().map(|t| (t, done(t))) {
            None | Some((_, None)) => out.push(at(Defect::Unbound)),
            Some((_, Some(false))) => {}
            Some((task, Some(true))) => {
                out.extend(s.items.iter().filter(|i| !resolved(i)).map(|i| Finding {
                    defect: Defect::UnresolvedOnDone,
                    task: Some(task.to_string()),
                    line: i.line,
                    text: i.text.clone(),
                }));
            }
        }
    }
    out
}

/// True when a criterion is checked, waived or moved to a follow-up.
fn resolved(item: &Item) -> bool {
    item.checked
        || marker(&item.text, &["waived", "waiver"])
        || marker(&item.text, &["follow-up", "followup", "moved"])
}

/// True when `text` holds `(WORD: something)` for one of `words`, case ignored.
fn marker(text: &str, words: &[&str]) -> bool {
    let lower = text.to_lowercase();
    // One pass: each `)` is judged against the `(` nearest before it, and every byte is in
    // at most one such span, so a line of a million `(` costs one scan, not a million.
    let mut open = None;
    for (at, b) in lower.bytes().enumerate() {
        match b {
            b'(' => open = Some(at),
            b')' => {
                if let Some(start) = open.take()
                    && let Some((word, why)) = lower[start + 1..at].split_once(':')
                    && words.contains(&word.trim())
                    && !why.trim().is_empty()
                {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// The kind of a criteria heading: `Some(false)` canonical, `Some(true)` legacy.
fn criteria_heading(label: &str) -> Option<bool> {
    let words = label
        .trim_matches(|c: char| c == '*' || c.is_whitespace())
        .trim_end_matches(':')
        .split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ");
    match words.as_str() {
        "acceptance criteria" => Some(false),
        "completion criteria" | "definition of done" => Some(true),
        _ => None,
    }
}

/// An ATX heading: its depth and text.
fn atx(line: &str) -> Option<(usize, &str)> {
    let t = line
        .strip_prefix("   ")
        .or_else(|| line.strip_prefix("  "))
        .or_else(|| line.strip_prefix(' '))
        .unwrap_or(line);
    let depth = t.bytes().take_while(|&b| b == b'#').count();
    let rest = &t[depth..];
    if !(1..=6).contains(&depth) || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    Some((depth, rest.trim().trim_end_matches('#').trim()))
}

/// A line that is only a bold label (`**T-007: parser**`, `**Acceptance criteria:**`).
fn bold_label(line: &str) -> Option<&str> {
    let t = line.trim();
    let inner = t.strip_prefix("**")?;
    let end = inner.find("**")?;
    let after = inner[end + 2..].trim();
    (end > 0 && (after.is_empty() || after == ":")).then(|| inner[..end].trim())
}

/// A thematic break (`---`, `***`, `___`).
fn is_break(line: &str) -> bool {
    let t: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    t.len() >= 3
        && (t.bytes().all(|b| b == b'-')
            || t.bytes().all(|b| b == b'*')
            || t.bytes().all(|b| b == b'_'))
}

/// The first task id (`T-` and at least three digits) in `s`.
fn task_id(s: &str) -> Option<String> {
    let b = s.as_bytes();
    s.match_indices("T-").find_map(|(at, _)| {
        let before_ok = at == 0 || !b[at - 1].is_ascii_alphanumeric();
        let digits = b[at + 2..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let after_ok = b
            .get(at + 2 + digits)
            .is_none_or(|c| !c.is_ascii_alphanumeric());
        (before_ok && digits >= 3 && after_ok).then(|| s[at..at + 2 + digits].to_string())
    })
}

/// A top-level list item (indent under two): its text after the marker.
fn list_item(line: &str) -> Option<&str> {
    if line.starts_with("  ") || line.starts_with('\t') {
        return None;
    }
    let t = line.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = if digits > 0 && digits <= 9 {
        t[digits..].strip_prefix(['.', ')'])?
    } else {
        t.strip_prefix(['-', '*', '+'])?
    };
    rest.starts_with([' ', '\t']).then(|| rest.trim())
}

/// The criteria sections of `text`, with the task each belongs to.
fn sections(text: &str) -> Vec<Section> {
    let lines = markdown::lines(text);
    let in_code = markdown::code_mask(&lines);
    let mut out: Vec<Section> = Vec::new();
    let mut open = false;
    let mut task: Option<(String, usize)> = None;
    for (i, line) in lines.iter().enumerate() {
        if in_code[i] {
            continue;
        }
        let l = line.text;
        let heading = atx(l);
        let label = if heading.is_none() {
            bold_label(l)
        } else {
            None
        };
        let title = heading.map(|(_, t)| t).or(label);
        if let Some(legacy) = title.and_then(criteria_heading) {
            out.push(Section {
                line: i + 1,
                heading: title.unwrap_or_default().to_string(),
                legacy,
                task: task.as_ref().map(|(t, _)| t.clone()),
                items: Vec::new(),
            });
            open = true;
            continue;
        }
        if let Some(t) = title {
            let depth = heading.map_or(LABEL_DEPTH, |(d, _)| d);
            match task_id(t) {
                // A heading naming a task opens its scope; a bold label only when it does.
                Some(id) => task = Some((id, depth)),
                // Another heading closes the scope when it is the task's sibling or above;
                // a deeper one is a subsection of the task.
                None if heading.is_some() && task.as_ref().is_some_and(|(_, d)| depth <= *d) => {
                    task = None;
                }
                None => {}
            }
            open = false;
            continue;
        }
        if !open {
            continue;
        }
        if l.trim_start().starts_with("**") || is_break(l) {
            open = false;
            continue;
        }
        if let Some(body) = list_item(l) {
            let (boxed, checked, text) = match body.as_bytes() {
                [b'[', mark @ (b' ' | b'x' | b'X'), b']', ..] => {
                    (true, *mark != b' ', body[3..].trim())
                }
                _ => (false, false, body),
            };
            if let Some(s) = out.last_mut() {
                s.items.push(Item {
                    line: i + 1,
                    boxed,
                    checked,
                    text: text.to_string(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEXT: &str = "\
# Next actions

## T-001: parser

Some notes.

### Design

Prose.

### Acceptance criteria

- [x] parses the sample
- [ ] handles CRLF (waived: the files are LF by policy)
- [ ] fuzzed for an hour (follow-up: T-009)
- [ ] errors name the line
  - [ ] a nested detail is not a criterion

## T-002: docs

**Definition of done:**

- README updated
- [X] example added

## T-003: release

### Acceptance criteria

Everything in the checklist document.

## Loose ends

### Acceptance criteria

- [ ] nobody owns this

```markdown
### Acceptance criteria
- [ ] an example in a fence
```
";

    fn kinds(found: &[Finding]) -> Vec<(Defect, Option<&str>, usize)> {
        found
            .iter()
            .map(|f| (f.defect, f.task.as_deref(), f.line))
            .collect()
    }

    #[test]
    fn a_done_task_with_an_open_criterion_is_reported_with_its_line() {
        let done = |t: &str| match t {
            "T-001" | "T-002" => Some(true),
            "T-003" => Some(false),
            _ => None,
        };
        let found = findings(NEXT, &done);
        assert_eq!(
            kinds(&found),
            vec![
                (Defect::UnresolvedOnDone, Some("T-001"), 16),
                (Defect::LegacyHeading, Some("T-002"), 21),
                (Defect::PlainBullets, Some("T-002"), 21),
                (Defect::UnresolvedOnDone, Some("T-002"), 23),
                (Defect::Unparsed, Some("T-003"), 28),
                (Defect::Unbound, None, 34),
            ]
        );
        assert_eq!(found[0].text, "errors name the line");
    }

    #[test]
    fn an_open_task_or_resolved_criteria_give_nothing_to_report() {
        let open = |_: &str| Some(false);
        let found = findings(NEXT, &open);
        assert!(
            found.iter().all(|f| f.defect != Defect::UnresolvedOnDone),
            "{found:?}"
        );
        let all_done = "## T-004: x\n\n### Acceptance criteria\n\n1. [x] one\n2) [ ] two (Waived: not needed)\n";
        assert!(findings(all_done, &|_| Some(true)).is_empty());
        // A marker needs a reason.
        let empty = "## T-004: x\n\n### Acceptance criteria\n\n- [ ] two (waived: )\n";
        assert_eq!(
            kinds(&findings(empty, &|_| Some(true))),
            vec![(Defect::UnresolvedOnDone, Some("T-004"), 5)]
        );
    }

    #[test]
    fn markers_are_found_in_one_pass_whatever_the_parentheses() {
        let many = format!("{}(waived: ok)", "(".repeat(1 << 20));
        assert!(marker(&many, &["waived"]));
        assert!(!marker(&"(".repeat(1 << 20), &["waived"]));
        assert!(marker("x (follow-up: T-009) (y)", &["follow-up"]));
        assert!(!marker("x (follow-up T-009)", &["follow-up"]));
    }

    #[test]
    fn task_ids_need_three_digits_and_word_boundaries() {
        assert_eq!(task_id("### T-012: x").as_deref(), Some("T-012"));
        assert_eq!(task_id("T-12 and T-0123").as_deref(), Some("T-0123"));
        assert_eq!(task_id("AT-123 T-123a"), None);
    }
}
