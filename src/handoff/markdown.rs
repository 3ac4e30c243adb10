//! Line-level Markdown helpers shared by the LOG and TRUST models: lines with their byte
//! offsets, fenced code blocks, and pipe-table cells. Not a Markdown parser; only what entry
//! boundaries and table rows need.

use std::ops::Range;

/// One line of a text: its byte range without the terminator, and where the next line starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset just after the terminator (`\n`, `\r\n` or a lone `\r`).
    pub next: usize,
    /// The line without its terminator.
    pub text: &'a str,
}

/// Splits text into lines. `\n`, `\r\n` and a lone `\r` all end a line, as the reference's
/// newline normalisation treats them; a final line without terminator is included.
pub(crate) fn lines(text: &str) -> Vec<Line<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 40 + 1);
    let mut start = 0;
    while let Some(at) = memchr::memchr2(b'\n', b'\r', &bytes[start..]) {
        let i = start + at;
        let next = if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            i + 2
        } else {
            i + 1
        };
        out.push(Line {
            start,
            next,
            text: &text[start..i],
        });
        start = next;
    }
    if start < bytes.len() {
        out.push(Line {
            start,
            next: bytes.len(),
            text: &text[start..],
        });
    }
    out
}

/// The line terminator a file mostly uses: `"\r\n"` when its first terminator is CRLF.
pub(crate) fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// Converts every terminator in `text` to `\n`.
pub(crate) fn normalize_newlines(text: &str) -> String {
    if memchr::memchr(b'\r', text.as_bytes()).is_none() {
        return text.to_string();
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// A code fence opening: its character, its length.
pub(crate) fn fence_open(line: &str) -> Option<(u8, usize)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = *rest.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let run = rest.bytes().take_while(|b| *b == ch).count();
    // An info string after a backtick fence may not contain a backtick (CommonMark).
    if run < 3 || (ch == b'`' && rest[run..].contains('`')) {
        return None;
    }
    Some((ch, run))
}

/// Whether `line` closes the fence opened with (`ch`, `len`): a closing run of the same
/// character at least as long.
pub(crate) fn fence_closes(line: &str, (ch, len): (u8, usize)) -> bool {
    closing_run(line).is_some_and(|(c, run)| c == ch && run >= len)
}

/// Which of two per-character slots a fence character takes (backtick 0, tilde 1).
pub(crate) fn fence_slot(ch: u8) -> usize {
    usize::from(ch == b'~')
}

/// Marks the lines that belong to a fenced code block (fence lines included). A fence that
/// never closes is not treated as one: otherwise a stray ```` ``` ```` in one log entry would
/// swallow every entry after it.
pub(crate) fn code_mask(lines: &[Line<'_>]) -> Vec<bool> {
    code_mask_counting(lines, &mut 0)
}

/// [`code_mask`], counting the lines its searches for a closer read (`steps`): linear in the
/// lines whatever they hold.
fn code_mask_counting(lines: &[Line<'_>], steps: &mut usize) -> Vec<bool> {
    let mut mask = vec![false; lines.len()];
    // Per fence character, the longest closing fence at or after each line: an opening
    // fence searches for its closer only when one that long is ahead, so each search ends
    // at a closer and the lines it read are then skipped. Without this, fences of falling
    // length that never close would each search to the end of the file.
    let mut longest_ahead = [vec![0; lines.len() + 1], vec![0; lines.len() + 1]];
    for (j, line) in lines.iter().enumerate().rev() {
        for ahead in &mut longest_ahead {
            ahead[j] = ahead[j + 1];
        }
        if let Some((ch, len)) = closing_run(line.text) {
            let s = fence_slot(ch);
            longest_ahead[s][j] = longest_ahead[s][j].max(len);
        }
    }
    let mut i = 0;
    while i < lines.len() {
        if let Some(open) = fence_open(lines[i].text)
            && longest_ahead[fence_slot(open.0)][i + 1] >= open.1
        {
            let close = (i + 1..lines.len())
                .find(|&j| {
                    *steps += 1;
                    fence_closes(lines[j].text, open)
                })
                .expect("a closing fence at least as long lies ahead");
            mask[i..=close].iter_mut().for_each(|m| *m = true);
            i = close + 1;
            continue;
        }
        i += 1;
    }
    mask
}

/// The fence a line could close with: its character and run, when the line is up to three
/// spaces, a run of ``` ` ``` or `~`, and blanks.
pub(crate) fn closing_run(line: &str) -> Option<(u8, usize)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    let ch = *rest.as_bytes().first()?;
    if indent > 3 || (ch != b'`' && ch != b'~') {
        return None;
    }
    let run = rest.bytes().take_while(|b| *b == ch).count();
    rest[run..].trim().is_empty().then_some((ch, run))
}

/// The first line (0-based) that opens a code fence no later line closes, outside the
/// fenced blocks [`code_mask`] finds: text appended after it would be read as code up to
/// a fence of its own.
pub(crate) fn unclosed_fence(lines: &[Line<'_>]) -> Option<usize> {
    let mask = code_mask(lines);
    (0..lines.len()).find(|&i| !mask[i] && fence_open(lines[i].text).is_some())
}

/// What a LOG entry leaves open at its end, read as a Markdown renderer reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LeftOpen {
    /// Its raw HTML opens a comment (`<!--`) that nothing after it in raw HTML closes
    /// (`-->`): a browser hides everything after it.
    Comment,
    /// A block that runs on until its end marker (an HTML block opened by `<pre>`,
    /// `<script>`, `<style>`, `<textarea>`, `<?`, `<!X` or `<![CDATA[`): what follows in the
    /// file, the next entry's heading included, is read as part of it.
    Block,
}

/// Where `entry` leaves something open that would take in what follows it in the archive
/// (the byte offset of its start, and what it is). Found by parsing the entry followed by
/// the separator and a heading, as the archive joins entries: the heading must come out as
/// one. Raw HTML is what `CommonMark` passes through (HTML blocks, inline HTML); text, code
/// spans and code blocks are escaped when rendered, so a marker there neither opens nor
/// closes a comment, and an inline `<!--` nothing closes is literal text.
pub(crate) fn left_open(entry: &str) -> Option<(usize, LeftOpen)> {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    const JOIN: &str = "\n\n---\n\n";
    let body = entry.trim_end_matches(|c: char| c.is_ascii_whitespace());
    let text = format!("{body}{JOIN}## [2000-01-01] probe\n");
    let probe = body.len() + JOIN.len();
    let (mut raw, mut taken_in, mut heading) = (RawOpen::Nothing, None, false);
    for (event, range) in Parser::new_ext(&text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) if range.start == probe => heading = true,
            Event::Start(_) if range.start < body.len() && range.end > probe => {
                taken_in.get_or_insert(range.start);
            }
            Event::Html(html) | Event::InlineHtml(html) if range.start < body.len() => {
                raw = raw_state(&html, range.start, raw);
            }
            _ => {}
        }
    }
    match raw {
        RawOpen::Comment(at) => return Some((at, LeftOpen::Comment)),
        RawOpen::Element(at, _) => return Some((at, LeftOpen::Block)),
        RawOpen::Nothing => {}
    }
    (!heading).then(|| (taken_in.unwrap_or(body.len()), LeftOpen::Block))
}

/// What the raw HTML read so far leaves open, as a browser's tokenizer reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RawOpen {
    Nothing,
    /// A comment, from this offset.
    Comment(usize),
    /// A raw-text element (`<script>`, `<style>`, …), from this offset: everything up to its
    /// end tag is its text, `<!--` included.
    Element(usize, &'static str),
}

/// The elements whose content a browser reads as text up to their end tag, whatever it
/// holds: left open, they take in the rest of the page.
const RAW_TEXT: [&str; 10] = [
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "noscript",
    "plaintext",
];

/// What is left open after the raw HTML `html` (which starts at offset `start`), given what
/// was open before it (review 21: a `<style>` in a list item is an HTML block that ends with
/// the item, but the browser's element does not).
fn raw_state(html: &str, start: usize, mut open: RawOpen) -> RawOpen {
    let lower = html.to_ascii_lowercase();
    let mut at = 0;
    loop {
        match open {
            RawOpen::Nothing => {
                let Some(k) = lower[at..].find('<') else {
                    break;
                };
                let i = at + k;
                let rest = &lower[i + 1..];
                if let Some(after) = rest.strip_prefix("!--") {
                    // `<!-->` and `<!--->` are whole (empty) comments in HTML.
                    if after.starts_with('>') || after.starts_with("->") {
                        at = i + 4;
                    } else {
                        open = RawOpen::Comment(start + i);
                        at = i + 4;
                    }
                    continue;
                }
                let tag = RAW_TEXT.iter().find(|t| {
                    rest.strip_prefix(**t).is_some_and(|r| {
                        r.starts_with(|c: char| c == '>' || c == '/' || c.is_ascii_whitespace())
                    })
                });
                if let Some(tag) = tag {
                    open = RawOpen::Element(start + i, tag);
                    at = i + 1 + tag.len();
                } else {
                    at = i + 1;
                }
            }
            RawOpen::Comment(_) => {
                let Some(k) = lower[at..].find("-->") else {
                    break;
                };
                at += k + 3;
                open = RawOpen::Nothing;
            }
            // `<plaintext>` has no end tag: everything after it is its text.
            RawOpen::Element(_, "plaintext") => break,
            RawOpen::Element(_, tag) => {
                // Its end tag: the name, then a blank, `/` or `>` (`</titlex>` is text).
                let close = format!("</{tag}");
                let mut end = None;
                let mut from = at;
                while let Some(k) = lower[from..].find(&close) {
                    let after = from + k + close.len();
                    if lower[after..]
                        .starts_with(|c: char| c == '>' || c == '/' || c.is_ascii_whitespace())
                    {
                        end = Some(after);
                        break;
                    }
                    from = after;
                }
                let Some(after) = end else { break };
                at = after;
                open = RawOpen::Nothing;
            }
        }
    }
    open
}

/// One cell of a pipe-table row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cell {
    /// Byte range of the trimmed content within the line.
    pub content: Range<usize>,
    /// Byte range of the whole cell between its pipes (content plus padding).
    pub whole: Range<usize>,
}

/// Splits a table row (a line whose first non-blank character is `|`) into cells, or `None`
/// when the line is not a row. A pipe preceded by a backslash (`\|`) belongs to the cell; a
/// trailing pipe is optional.
pub(crate) fn table_cells(line: &str) -> Option<Vec<Cell>> {
    let lead = line.len() - line.trim_start().len();
    if !line[lead..].starts_with('|') {
        return None;
    }
    let bytes = line.as_bytes();
    let mut pipes = Vec::with_capacity(16);
    pipes.push(lead);
    for i in memchr::memchr_iter(b'|', &bytes[lead + 1..]).map(|i| i + lead + 1) {
        if bytes[i - 1] != b'\\' {
            pipes.push(i);
        }
    }
    let mut cells = Vec::with_capacity(pipes.len());
    for w in pipes.windows(2) {
        cells.push(cell(line, w[0] + 1..w[1]));
    }
    let last = *pipes.last().expect("the leading pipe is always there");
    if !line[last + 1..].trim().is_empty() {
        cells.push(cell(line, last + 1..line.len()));
    }
    Some(cells)
}

fn cell(line: &str, whole: Range<usize>) -> Cell {
    let s = &line[whole.clone()];
    let start = whole.start + (s.len() - s.trim_start().len());
    let end = whole.start + s.trim_end().len();
    Cell {
        content: start..end.max(start),
        whole,
    }
}

/// True for a table's delimiter row (`|---|:--:|`).
pub(crate) fn is_separator_row(line: &str, cells: &[Cell]) -> bool {
    !cells.is_empty()
        && cells.iter().all(|c| {
            let s = &line[c.content.clone()];
            let s = s.strip_prefix(':').unwrap_or(s);
            let s = s.strip_suffix(':').unwrap_or(s);
            !s.is_empty() && s.bytes().all(|b| b == b'-')
        })
}

/// Unescapes a cell's `\|` into `|`.
pub(crate) fn unescape_cell(s: &str) -> String {
    if s.contains('\\') {
        s.replace("\\|", "|")
    } else {
        s.to_string()
    }
}

/// Escapes text for a table cell: `|` becomes `\|` and line breaks become spaces.
pub(crate) fn escape_cell(s: &str) -> String {
    s.replace(['\r', '\n'], " ").replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_accept_every_terminator() {
        let l = lines("a\r\nb\rc\nd");
        let texts: Vec<_> = l.iter().map(|l| l.text).collect();
        assert_eq!(texts, ["a", "b", "c", "d"]);
        assert_eq!(l[0].next, 3);
        assert_eq!(l[3].next, 8);
    }

    #[test]
    fn an_html_comment_left_open_is_found_in_raw_html_only() {
        let open = |text: &str| {
            left_open(text).and_then(|(at, what)| (what == LeftOpen::Comment).then_some(at))
        };
        // An HTML block that opens a comment and never closes it, at its offset.
        assert_eq!(open("a\n\n<!-- draft\n## b\n"), Some(3));
        assert_eq!(open("<!--\n## b\n-->\ntext\n"), None);
        assert_eq!(open("<!--> and <!---> are whole\n"), None);
        // Raw HTML passes a code span's backticks through: the comment is real.
        assert_eq!(open("x\n\n<div>\n`<!--`\n</div>\n"), Some(10));
        assert!(open("<details>\n```\n<!-- x\n```\n</details>\n").is_some());
        // A comment block that runs to the end is open either way.
        assert!(left_open("<!-- x\ny\n").is_some());
        assert!(open("<details>\n\n```\n<!-- x\n```\n\n</details>\n").is_none());
        // Text, code spans (across lines too), indented code and escapes are not raw HTML.
        for text in [
            "the `<!--` marker and ``a ` <!-- b``\n",
            "```html\n<!--\n```\n",
            "Example:\n\n    <!-- indented code block\n",
            "Escaped \\<!-- marker\n",
            "Removed a stray <!-- from the README\n",
            "Span `across\nlines <!-- here`\n",
        ] {
            assert_eq!(open(text), None, "{text:?}");
        }
        // A comment closed by a later raw `-->`, inline or in a block.
        assert_eq!(open("<!-- x `-->` y\n"), None);
        assert_eq!(open("text <!-- a\nb --> c\n"), None);
    }

    #[test]
    fn an_html_block_that_runs_to_its_end_marker_takes_in_what_follows() {
        for (text, at) in [
            ("x\n\n<pre>\nsome output\n", 3),
            ("<script>\nlet a = 1;\n", 0),
            ("<style>\np {}\n", 0),
            ("<textarea>\n", 0),
            ("<?php echo 1;\n", 0),
            ("<![CDATA[ x\n", 0),
            ("<!DOCTYPE html\n", 0),
        ] {
            assert_eq!(left_open(text), Some((at, LeftOpen::Block)), "{text:?}");
        }
        // Ended, or a block the blank line before the separator ends.
        for text in [
            "<pre>\nout\n</pre>\n",
            "<script>x</script>\n",
            "<div>\nunclosed div\n",
            "> quoted\n> more\n",
            "- item\n  - nested\n",
            "    indented code\n",
            "plain text with <pre> inline\n",
        ] {
            assert_eq!(left_open(text), None, "{text:?}");
        }
    }

    #[test]
    fn a_raw_text_element_left_open_anywhere_in_raw_html_takes_in_the_rest() {
        // Review 21: in a list item or a quote, `<style>` is an HTML block that ends with
        // the container, but the browser's element runs on to its end tag; inline, too.
        for (text, at) in [
            ("- <style>\n", 2),
            ("> <script>\n", 2),
            ("> - <textarea>\n", 4),
            ("Fixed the <title> of the page.\n", 10),
            // Review 22: no end tag closes `<plaintext>`, `</titlex>` is no end tag.
            ("<plaintext>a</plaintext>\n", 0),
            ("x <title>a</titlex>\n", 2),
            ("x <noscript>\n", 2),
        ] {
            assert_eq!(left_open(text), Some((at, LeftOpen::Block)), "{text:?}");
        }
        for text in [
            "- <style>p {}</style>\n",
            "Fixed the `<title>` of the page.\n",
            "Added a <scriptish> tag.\n",
            // Inside a raw-text element `<!--` is text, not a comment.
            "<script>\nif (a <!--b) {}\n</script>\n",
        ] {
            assert_eq!(left_open(text), None, "{text:?}");
        }
    }

    #[test]
    fn fences_of_falling_length_that_never_close_are_read_in_linear_steps() {
        let steps = |n: usize| {
            let text: String = (0..n).map(|i| "`".repeat(n - i + 3) + "\n").collect();
            let mut steps = 0;
            let mask = code_mask_counting(&lines(&text), &mut steps);
            // A shorter fence never closes a longer one: nothing is masked, nothing searched.
            assert!(mask.iter().all(|m| !m), "{n}");
            steps
        };
        assert_eq!(steps(200), 0);
        // Closed pairs are still found; their lines are read once.
        let text = "```\na\n```\n~~~~\nb\n~~~~\n".repeat(100);
        let mut steps = 0;
        let mask = code_mask_counting(&lines(&text), &mut steps);
        assert!(mask.iter().all(|m| *m));
        assert_eq!(steps, 400);
    }

    #[test]
    fn code_mask_ignores_unclosed_fences() {
        let text = "x\n```\n## a\n```\n~~~~\n## b\n";
        let l = lines(text);
        assert_eq!(code_mask(&l), [false, true, true, true, false, false]);
    }

    #[test]
    fn many_fences_that_never_close_mask_nothing_and_a_later_longer_pair_still_closes() {
        let mut text = "```a\n".repeat(200_000);
        text.push_str("~~~\ncode\n~~~\n");
        let l = lines(&text);
        let mask = code_mask(&l);
        assert!(mask[..200_000].iter().all(|m| !m));
        assert_eq!(&mask[200_000..], [true, true, true]);
        // A shorter fence than one that found no closer may still close.
        let l = lines("`````\n```\nin\n```\n");
        assert_eq!(code_mask(&l), [false, true, true, true]);
    }

    #[test]
    fn fence_needs_a_matching_closer() {
        let text = "````md\n```\n## in\n````\n";
        let l = lines(text);
        assert_eq!(code_mask(&l), [true, true, true, true]);
    }

    #[test]
    fn table_cells_respect_escaped_pipes_and_optional_trailing_pipe() {
        let line = "| a \\| b | **verified** |  x";
        let cells = table_cells(line).unwrap();
        let texts: Vec<_> = cells.iter().map(|c| &line[c.content.clone()]).collect();
        assert_eq!(texts, ["a \\| b", "**verified**", "x"]);
        assert!(table_cells("not | a row").is_none());
        let sep = "|---|:--:|";
        assert!(is_separator_row(sep, &table_cells(sep).unwrap()));
        let empty = "| | |";
        assert!(!is_separator_row(empty, &table_cells(empty).unwrap()));
    }
}
