//! Upgrades of AAHP v1 files to the v2 layout (`git aahp init --migrate`). Every transform
//! only inserts text: the original bytes stay in place and in order, which
//! [`strip_inserted_lines`] lets a caller prove before anything is written.

/// Heading of the note appended to a TRUST.md whose tables lack the TTL column.
pub const TRUST_NOTE_HEADING: &str = "## TTL and provenance columns";

/// Returns true when the text carries at least one `<!-- SECTION: name -->` marker.
pub fn has_section_markers(text: &str) -> bool {
    text.contains("<!-- SECTION:")
}

/// The line ending a file uses: CRLF when its first line ends so, else LF.
pub fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// The result of wrapping a STATUS.md in section markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wrapped {
    /// The new text.
    pub text: String,
    /// The marker lines inserted (without line endings), in order.
    pub inserted: Vec<String>,
    /// Sections created (`summary`, `body`).
    pub sections: Vec<&'static str>,
}

/// Wraps a STATUS.md that has no section markers: its first prose paragraph becomes the
/// `summary` section and everything after it the `body` section; the title and anything
/// before the paragraph stay outside. Returns `None` when the file already has markers or
/// holds nothing to wrap. Only whole marker lines are inserted (plus a final line ending
/// when the file lacks one), using the file's own line ending.
pub fn wrap_status_sections(text: &str) -> Option<Wrapped> {
    if has_section_markers(text) || text.trim().is_empty() {
        return None;
    }
    let eol = line_ending(text);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let kinds = classify(&lines);

    let summary = kinds
        .iter()
        .position(|k| *k == LineKind::Prose)
        .map(|start| {
            let end = kinds[start..]
                .iter()
                .position(|k| *k != LineKind::Prose)
                .map_or(lines.len(), |n| start + n);
            (start, end)
        });
    // The body starts after the summary, else after the title (first H1), else at the top.
    let body_start = match summary {
        Some((_, end)) => end,
        None => kinds
            .iter()
            .position(|k| *k == LineKind::Title)
            .map_or(0, |i| i + 1),
    };
    let body_has_content = kinds[body_start..].iter().any(|k| *k != LineKind::Blank);

    let mut out = String::with_capacity(text.len() + 128);
    let mut inserted = Vec::new();
    let mut sections = Vec::new();
    let mut push_marker = |out: &mut String, marker: String| {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(eol);
        }
        out.push_str(&marker);
        out.push_str(eol);
        inserted.push(marker);
    };
    for (i, line) in lines.iter().enumerate() {
        if summary.is_some_and(|(s, _)| s == i) {
            push_marker(&mut out, "<!-- SECTION: summary -->".into());
            sections.push("summary");
        }
        if summary.is_some_and(|(_, e)| e == i) {
            push_marker(&mut out, "<!-- /SECTION: summary -->".into());
        }
        if body_has_content && i == body_start {
            push_marker(&mut out, "<!-- SECTION: body -->".into());
            sections.push("body");
        }
        out.push_str(line);
    }
    if summary.is_some_and(|(_, e)| e == lines.len()) {
        push_marker(&mut out, "<!-- /SECTION: summary -->".into());
    }
    if body_has_content {
        push_marker(&mut out, "<!-- /SECTION: body -->".into());
    }
    if sections.is_empty() {
        return None;
    }
    Some(Wrapped {
        text: out,
        inserted,
        sections,
    })
}

/// Removes the given marker lines (each once, in order) from `text`: the inverse of
/// [`wrap_status_sections`], up to a final line ending it may have added.
pub fn strip_inserted_lines(text: &str, inserted: &[String]) -> String {
    let mut pending = inserted.iter().peekable();
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if pending.peek().is_some_and(|m| m.as_str() == bare) {
            pending.next();
            continue;
        }
        out.push_str(line);
    }
    out
}

/// Returns true when `migrated` holds exactly `original` plus the inserted marker lines.
pub fn preserves(original: &str, migrated: &str, inserted: &[String]) -> bool {
    let stripped = strip_inserted_lines(migrated, inserted);
    stripped == original
        || (!original.ends_with('\n')
            && stripped
                .strip_suffix(line_ending(original))
                .is_some_and(|s| s == original))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Blank,
    /// The first `# ` heading.
    Title,
    /// A paragraph line that can summarise the file.
    Prose,
    /// Headings, tables, quotes, rules, comments, fenced code.
    Other,
}

fn classify(lines: &[&str]) -> Vec<LineKind> {
    let mut out = Vec::with_capacity(lines.len());
    let mut fence: Option<&str> = None;
    let mut comment = false;
    let mut title_seen = false;
    // A paragraph continues while its lines are not blank; it only counts as prose when its
    // first line could start one (after a blank line, a heading or the top of the file).
    let mut in_prose = false;
    let mut can_start = true;
    for (i, raw) in lines.iter().enumerate() {
        let line = raw.trim_end_matches(['\n', '\r']);
        let line = if i == 0 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        let t = line.trim();
        let mut starts_next = false;
        let kind = if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
                starts_next = true;
            }
            LineKind::Other
        } else if comment {
            if t.contains("-->") {
                comment = false;
                starts_next = true;
            }
            LineKind::Other
        } else if t.is_empty() {
            starts_next = true;
            LineKind::Blank
        } else if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(&t[..3]);
            LineKind::Other
        } else if t.starts_with("<!--") {
            comment = !t.contains("-->");
            starts_next = !comment;
            LineKind::Other
        } else if line.starts_with("# ") && !title_seen {
            title_seen = true;
            starts_next = true;
            LineKind::Title
        } else if t.starts_with('#') {
            starts_next = true;
            LineKind::Other
        } else if t.starts_with('|')
            || t.starts_with('>')
            || t.starts_with("---")
            || t.starts_with("***")
            || t.starts_with("===")
        {
            LineKind::Other
        } else if in_prose || can_start {
            LineKind::Prose
        } else {
            LineKind::Other
        };
        in_prose = kind == LineKind::Prose;
        can_start = starts_next;
        out.push(kind);
    }
    out
}

/// Returns true when TRUST.md has no `TTL` column in any table and no migration note yet.
pub fn trust_needs_ttl_note(text: &str) -> bool {
    if text.contains(TRUST_NOTE_HEADING) {
        return false;
    }
    !text.lines().any(|line| {
        let t = line.trim();
        t.starts_with('|')
            && t.split('|')
                .any(|cell| cell.trim().eq_ignore_ascii_case("ttl"))
    })
}

/// Appends the note explaining the v2 `TTL`, `Expires` and `Provenance` columns to a
/// TRUST.md whose tables predate them. The existing text is kept byte for byte.
pub fn append_trust_ttl_note(text: &str, date: &str) -> String {
    let eol = line_ending(text);
    let note = [
        TRUST_NOTE_HEADING,
        "",
        &format!(
            "Added by `git aahp init --migrate` on {date}. The tables above predate the AAHP v2"
        ),
        "columns. A v2 trust table has the header",
        "`| Property | Status | Provenance | Last Verified | Agent | TTL | Expires | Notes |`:",
        "a `verified` claim expires `TTL` after `Last Verified` (TTL as `1d`, `7d`, `30d`), or on",
        "its `Expires` date, and `git aahp trust decay` then turns it into `assumed`. Rows",
        "without these columns carry no expiry.",
    ];
    let mut out = String::with_capacity(text.len() + 600);
    out.push_str(text);
    if !out.is_empty() {
        if !out.ends_with('\n') {
            out.push_str(eol);
        }
        out.push_str(eol);
    }
    for line in note {
        out.push_str(line);
        out.push_str(eol);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrap(text: &str) -> Wrapped {
        let w = wrap_status_sections(text).expect("wraps");
        assert!(
            preserves(text, &w.text, &w.inserted),
            "lost bytes:\n{}",
            w.text
        );
        w
    }

    #[test]
    fn first_paragraph_becomes_summary_and_the_rest_body() {
        let text = "# Proj\n\nBuild is green.\nAuth is done.\n\n## Details\n\n- a\n- b\n";
        let w = wrap(text);
        assert_eq!(
            w.text,
            "# Proj\n\n<!-- SECTION: summary -->\nBuild is green.\nAuth is done.\n\
             <!-- /SECTION: summary -->\n<!-- SECTION: body -->\n\n## Details\n\n- a\n- b\n\
             <!-- /SECTION: body -->\n"
        );
        assert_eq!(w.sections, ["summary", "body"]);
        assert_eq!(
            crate::handoff::manifest::summarize("STATUS.md", &w.text),
            "Build is green. Auth is done."
        );
    }

    #[test]
    fn crlf_and_missing_final_newline_are_kept() {
        let text = "\u{feff}# P\r\n\r\nAll good.\r\n\r\n| a | b |\r\n|---|---|";
        let w = wrap(text);
        assert!(
            w.text
                .contains("<!-- SECTION: summary -->\r\nAll good.\r\n")
        );
        assert!(w.text.ends_with("|---|---|\r\n<!-- /SECTION: body -->\r\n"));
        assert!(w.text.starts_with('\u{feff}'));
    }

    #[test]
    fn fenced_code_and_comments_are_never_the_summary() {
        let text = "```\nnot prose\n```\n<!--\nhidden\n-->\n> note\n\nReal text.\n";
        let w = wrap(text);
        assert!(
            w.text
                .contains("<!-- SECTION: summary -->\nReal text.\n<!-- /SECTION: summary -->\n")
        );
        assert_eq!(w.sections, ["summary"]);
    }

    #[test]
    fn no_prose_wraps_everything_after_the_title_as_body() {
        let w = wrap("# T\n| a |\n|---|\n");
        assert_eq!(
            w.text,
            "# T\n<!-- SECTION: body -->\n| a |\n|---|\n<!-- /SECTION: body -->\n"
        );
        assert_eq!(
            wrap_status_sections("<!-- SECTION: x -->\n<!-- /SECTION: x -->\n"),
            None
        );
        assert_eq!(wrap_status_sections("\n\n"), None);
        assert_eq!(wrap_status_sections("# Only a title\n"), None);
    }

    #[test]
    fn ttl_note_is_appended_once_and_keeps_the_text() {
        let old = "# Trust\r\n\r\n| Property | Status |\r\n|---|---|\r\n| builds | verified |";
        assert!(trust_needs_ttl_note(old));
        let new = append_trust_ttl_note(old, "2026-11-22");
        assert!(new.starts_with(old));
        assert!(new.contains("\r\n## TTL and provenance columns\r\n"));
        assert!(!trust_needs_ttl_note(&new));
        let v2 = "| Property | Status | TTL |\n";
        assert!(!trust_needs_ttl_note(v2));
    }
}
