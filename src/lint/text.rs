//! Text views and positions: a [`View`] is a derived text (decoded JSON strings, the
//! Unicode-normalised form) with a map back to the bytes it came from, so every finding is
//! reported at the right line and column of the file. Also line indexing and small word helpers.

use std::borrow::Cow;

/// A text derived from a source text, with each byte mapped back to a source byte range.
#[derive(Debug)]
pub(crate) struct View<'a> {
    /// The derived text.
    pub text: Cow<'a, str>,
    /// Segments of the derived text in order; `None` means the view is the source itself.
    segs: Option<Vec<Seg>>,
}

/// A piece of a derived text: `norm_len` bytes at `norm` that came from `src_len` source bytes
/// at `src`; `identity` pieces are copied byte for byte.
#[derive(Debug, Clone, Copy)]
struct Seg {
    norm: u32,
    src: u32,
    norm_len: u32,
    src_len: u32,
    identity: bool,
}

/// Builds a [`View`] piece by piece.
#[derive(Debug, Default)]
pub(crate) struct ViewBuilder {
    text: String,
    segs: Vec<Seg>,
}

#[allow(clippy::cast_possible_truncation, reason = "files are capped at 8 MiB")]
impl ViewBuilder {
    /// A builder with room for `n` bytes.
    pub(super) fn with_capacity(n: usize) -> ViewBuilder {
        ViewBuilder {
            text: String::with_capacity(n),
            segs: Vec::with_capacity(n / 128 + 4),
        }
    }

    /// Appends `s`, copied verbatim from source offset `src`.
    pub(super) fn copy(&mut self, s: &str, src: usize) {
        if s.is_empty() {
            return;
        }
        let norm = self.text.len() as u32;
        self.text.push_str(s);
        if let Some(last) = self.segs.last_mut()
            && last.identity
            && last.norm + last.norm_len == norm
            && last.src + last.src_len == src as u32
        {
            last.norm_len += s.len() as u32;
            last.src_len += s.len() as u32;
            return;
        }
        self.segs.push(Seg {
            norm,
            src: src as u32,
            norm_len: s.len() as u32,
            src_len: s.len() as u32,
            identity: true,
        });
    }

    /// Appends `s`, which replaces the source bytes `src..src_end`.
    pub(super) fn replace(&mut self, s: &str, src: usize, src_end: usize) {
        if s.is_empty() {
            return;
        }
        let norm = self.text.len() as u32;
        self.text.push_str(s);
        self.segs.push(Seg {
            norm,
            src: src as u32,
            norm_len: s.len() as u32,
            src_len: (src_end - src) as u32,
            identity: false,
        });
    }

    /// Bytes written so far.
    pub(super) fn len(&self) -> usize {
        self.text.len()
    }

    /// The text written so far.
    pub(super) fn text(&self) -> &str {
        &self.text
    }

    /// Finishes the view.
    pub(super) fn build(self) -> View<'static> {
        View {
            text: Cow::Owned(self.text),
            segs: Some(self.segs),
        }
    }
}

impl<'a> View<'a> {
    /// The identity view of `text`.
    pub(super) fn identity(text: &'a str) -> View<'a> {
        View {
            text: Cow::Borrowed(text),
            segs: None,
        }
    }

    /// Returns true when the view is the source itself.
    pub(super) fn is_identity(&self) -> bool {
        self.segs.is_none()
    }

    /// The segment holding `pos`: the last one starting at or before it. The search starts
    /// from segment `hint`, which is left at the answer, so lookups in increasing order cost
    /// a step or two each instead of a binary search.
    fn seg_at<'s>(segs: &'s [Seg], hint: &mut usize, pos: usize) -> Option<&'s Seg> {
        let starts_by = |s: &Seg| (s.norm as usize) <= pos;
        let from = *hint;
        let i = if segs.get(from).is_some_and(starts_by) {
            let mut i = from;
            while segs.get(i + 1).is_some_and(starts_by) {
                i += 1;
                if i - from == 8 {
                    i += segs[i..].partition_point(starts_by) - 1;
                    break;
                }
            }
            i
        } else {
            segs.partition_point(starts_by).checked_sub(1)?
        };
        *hint = i;
        Some(&segs[i])
    }

    /// Maps a byte range of the view to the source range it came from.
    pub(super) fn to_source(&self, start: usize, end: usize) -> (usize, usize) {
        // No hint: a binary search.
        let mut hint = usize::MAX;
        self.to_source_from(&mut hint, start, end)
    }

    /// Maps many ranges of the view, best in increasing order of start (each lookup starts
    /// where the last one ended).
    pub(super) fn source_mapper(&self) -> impl FnMut(usize, usize) -> (usize, usize) + '_ {
        let mut hint = 0;
        move |start, end| self.to_source_from(&mut hint, start, end)
    }

    fn to_source_from(&self, hint: &mut usize, start: usize, end: usize) -> (usize, usize) {
        let Some(segs) = &self.segs else {
            return (start, end);
        };
        let Some(last) = segs.last() else {
            return (0, 0);
        };
        let total_norm = (last.norm + last.norm_len) as usize;
        let total_src = (last.src + last.src_len) as usize;
        if start >= total_norm {
            return (total_src, total_src);
        }
        let first = Self::seg_at(segs, hint, start);
        let s = first.map_or(0, |g| {
            if g.identity {
                g.src as usize + (start - g.norm as usize)
            } else {
                g.src as usize
            }
        });
        if end <= start {
            return (s, s);
        }
        let e_pos = (end - 1).min(total_norm - 1);
        // Most ranges are short and end in the segment they start in. The end is looked up
        // from the start's segment without moving the hint: the next range may start before
        // this one ends.
        let last = match first {
            Some(g) if e_pos < (g.norm + g.norm_len) as usize => Some(g),
            _ => Self::seg_at(segs, &mut { *hint }, e_pos),
        };
        let e = last.map_or(total_src, |g| {
            if g.identity {
                g.src as usize + (e_pos - g.norm as usize) + 1
            } else {
                (g.src + g.src_len) as usize
            }
        });
        (s, e.max(s))
    }
}

/// Byte offsets of line starts, for 1-based line and column numbers.
#[derive(Debug)]
pub(crate) struct LineIndex {
    starts: Vec<usize>,
    /// The text's length.
    len: usize,
    /// Characters before every [`CHECKPOINT`]-th byte, built on the first column asked for
    /// far into a long line, so that columns on a long line cost no more than on a short one.
    checkpoints: std::cell::OnceCell<Vec<usize>>,
}

/// Byte ranges sorted by start, for overlap questions in logarithmic time.
#[derive(Debug, Default)]
pub(crate) struct Spans {
    spans: Vec<(usize, usize)>,
    /// The largest end among `spans[..=k]`.
    max_end: Vec<usize>,
}

impl Spans {
    /// Indexes `spans`.
    pub(crate) fn new(mut spans: Vec<(usize, usize)>) -> Spans {
        spans.sort_unstable();
        let mut m = 0;
        let max_end = spans
            .iter()
            .map(|s| {
                m = m.max(s.1);
                m
            })
            .collect();
        Spans { spans, max_end }
    }

    /// True when some span overlaps `start..end` (`s < end && start < e`).
    pub(crate) fn overlaps(&self, start: usize, end: usize) -> bool {
        let k = self.spans.partition_point(|s| s.0 < end);
        k > 0 && self.max_end[k - 1] > start
    }

    /// True when one span holds all of `start..end`.
    pub(crate) fn covers(&self, start: usize, end: usize) -> bool {
        let k = self.spans.partition_point(|s| s.0 <= start);
        k > 0 && self.max_end[k - 1] >= end
    }

    /// The spans starting in `start..end`, in order.
    pub(crate) fn starting_in(&self, start: usize, end: usize) -> &[(usize, usize)] {
        let a = self.spans.partition_point(|s| s.0 < start);
        let b = self.spans.partition_point(|s| s.0 < end);
        &self.spans[a..b.max(a)]
    }
}

/// Bytes between two character-count checkpoints of a [`LineIndex`].
const CHECKPOINT: usize = 1024;

/// True for a UTF-8 continuation byte.
pub(crate) fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

impl LineIndex {
    /// Indexes `text`.
    pub(super) fn new(text: &str) -> LineIndex {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        // Lines are short (tens of bytes): a `memchr` call per line costs more than it saves.
        super::swar::for_each_byte(text.as_bytes(), b'\n', |i| starts.push(i + 1));
        LineIndex {
            starts,
            len: text.len(),
            checkpoints: std::cell::OnceCell::new(),
        }
    }

    /// The byte range of every line, without its `\n`.
    pub(super) fn ranges(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let ends = self.starts[1..].iter().map(|&s| s - 1).chain([self.len]);
        self.starts.iter().copied().zip(ends)
    }

    /// Returns the 0-based line holding byte `offset`.
    pub(super) fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// Returns the byte range of 0-based line `line` without its `\n` (a `\r` stays).
    pub(super) fn range_of(&self, line: usize) -> (usize, usize) {
        let start = self.starts[line];
        (start, self.starts.get(line + 1).map_or(self.len, |n| n - 1))
    }

    /// Returns the byte range of 0-based line `line` without its line ending.
    pub(super) fn line_range(&self, text: &str, line: usize) -> (usize, usize) {
        let start = self.starts[line];
        let mut end = self.starts.get(line + 1).map_or(text.len(), |n| n - 1);
        if end > start && text.as_bytes()[end - 1] == b'\r' {
            end -= 1;
        }
        (start, end.max(start))
    }

    /// Returns the 1-based (line, column) of byte `offset`; columns count Unicode scalar
    /// values.
    pub(super) fn position(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = floor_char(text, offset.min(text.len()));
        let line = self.line_of(offset);
        let start = self.starts[line];
        let col = if offset - start <= 2 * CHECKPOINT {
            super::steps::add((offset - start) as u64);
            text[start..offset].chars().count()
        } else {
            self.chars_before(text, offset) - self.chars_before(text, start)
        };
        (line + 1, col + 1)
    }

    /// The number of characters of `text` in `start..end` (char boundaries): a long span
    /// costs no more than a short one.
    pub(super) fn chars_between(&self, text: &str, start: usize, end: usize) -> usize {
        if end - start <= 2 * CHECKPOINT {
            super::steps::add((end - start) as u64);
            text[start..end].chars().count()
        } else {
            self.chars_before(text, end) - self.chars_before(text, start)
        }
    }

    /// The number of characters of `text` before byte `offset`.
    fn chars_before(&self, text: &str, offset: usize) -> usize {
        let b = text.as_bytes();
        let cps = self.checkpoints.get_or_init(|| {
            let mut n = 0;
            let mut v = Vec::with_capacity(b.len() / CHECKPOINT + 1);
            for chunk in b.chunks(CHECKPOINT) {
                v.push(n);
                n += chunk.iter().filter(|&&c| !is_continuation(c)).count();
            }
            v.push(n);
            v
        });
        let k = offset / CHECKPOINT;
        super::steps::add((offset - k * CHECKPOINT) as u64);
        cps[k]
            + b[k * CHECKPOINT..offset]
                .iter()
                .filter(|&&c| !is_continuation(c))
                .count()
    }
}

/// Moves `i` back to a char boundary of `s`.
pub(crate) fn floor_char(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Moves `i` forward to a char boundary of `s`.
pub(crate) fn ceil_char(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Returns the bounds of the sentence around byte `pos`: back to the previous `.`, `!`, `?` or
/// `;` followed by white space, a blank line or a line that starts a list item, and forward
/// to the next one; at most `limit` bytes each way.
pub(crate) fn sentence_bounds(text: &str, pos: usize, limit: usize) -> (usize, usize) {
    (
        sentence_start(text, pos, limit),
        sentence_end(text, pos, limit),
    )
}

/// The start of the sentence around byte `pos` (see [`sentence_bounds`]), at most `limit`
/// bytes back.
pub(crate) fn sentence_start(text: &str, pos: usize, limit: usize) -> usize {
    let b = text.as_bytes();
    let pos = pos.min(b.len());
    let lo = pos.saturating_sub(limit);
    // The last stop before `pos`: a `.`, `!` or `?` that white space follows, else a line
    // break that ends a paragraph or comes before a block, looked for only after that stop.
    // The bytes are found by `memchr`: rules ask for the sentence of every match, and a
    // text of matches one after another is read a few bytes a match, not `limit`.
    let stop = memchr::memrchr3_iter(b'.', b'!', b'?', &b[lo..pos])
        .map(|k| lo + k + 1)
        .find(|&i| b.get(i).is_some_and(u8::is_ascii_whitespace));
    let from = stop.unwrap_or(lo);
    let line = memchr::memrchr_iter(b'\n', &b[from..pos])
        .map(|k| from + k + 1)
        .find(|&i| i < 2 || b[i - 2] == b'\n' || starts_block(&b[i..]));
    ceil_char(text, line.or(stop).unwrap_or(lo))
}

/// The end of the sentence around byte `pos` (see [`sentence_bounds`]), at most `limit`
/// bytes on.
pub(crate) fn sentence_end(text: &str, pos: usize, limit: usize) -> usize {
    let b = text.as_bytes();
    let pos = pos.min(b.len());
    let hi = (pos + limit).min(b.len());
    // The first stop after `pos` (see [`sentence_start`]): a `.`, `!` or `?` that white space
    // or the end follows, else a line break before a blank line or a block, looked for only
    // before that stop.
    let stop = memchr::memchr3_iter(b'.', b'!', b'?', &b[pos..hi])
        .map(|k| pos + k)
        .find(|&j| b.get(j + 1).is_none_or(u8::is_ascii_whitespace));
    let to = stop.unwrap_or(hi);
    let line = memchr::memchr_iter(b'\n', &b[pos..to])
        .map(|k| pos + k)
        .find(|&j| b.get(j + 1) == Some(&b'\n') || starts_block(&b[j + 1..]));
    floor_char(text, line.or(stop).map_or(hi, |j| j + 1))
}

/// True when a line starts a new Markdown block (list item, heading, quote, table row).
fn starts_block(rest: &[u8]) -> bool {
    let t = rest
        .iter()
        .position(|c| *c != b' ')
        .map_or(&[][..], |i| &rest[i..]);
    match t {
        [b'-' | b'*' | b'+', b' ', ..] | [b'#' | b'>' | b'|', ..] => true,
        [d, ..] if d.is_ascii_digit() => {
            let n = t.iter().take_while(|c| c.is_ascii_digit()).count();
            matches!(t.get(n), Some(b'.' | b')')) && t.get(n + 1) == Some(&b' ')
        }
        _ => false,
    }
}

/// Iterates the ASCII-alphanumeric words of `s` (apostrophes kept inside words), lowercased.
pub(crate) fn words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// `text` with the values of assignments and command-line options blanked to spaces, byte for
/// byte (`approval_policy = "never"`, `"confirm": false`, `auto_approve: no`, `-a never`):
/// a value is data, so its word (`never`, `no`, `off`) neither negates nor instructs the
/// sentence around it, whatever the order of the settings. One pass, linear in `text`.
pub(crate) fn blank_values(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let value = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.');
    let mut key_has_sign = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let prev = i.checked_sub(1).map(|k| bytes[k]);
        // Where the value starts (before blanks and a quote), if `c` opens one.
        let from = match c {
            b'=' => Some(i + 1),
            // A key's colon: after a quoted key, or a setting's name (`auto_approve:`).
            b':' if matches!(prev, Some(b'"' | b'\'')) || key_has_sign => Some(i + 1),
            // An option (`-a`, `--ask-for-approval`) given its value after a blank.
            b'-' if prev.is_none_or(|p| p.is_ascii_whitespace())
                && bytes
                    .get(i + 1)
                    .is_some_and(|d| d.is_ascii_alphabetic() || *d == b'-') =>
            {
                let end = (i + 1..bytes.len())
                    .find(|&k| !value(bytes[k]))
                    .unwrap_or(bytes.len());
                if bytes.get(end) != Some(&b' ') {
                    i = end;
                    continue;
                }
                Some(end)
            }
            _ => None,
        };
        key_has_sign = value(c) && (key_has_sign || c == b'_');
        let Some(mut k) = from else {
            i += 1;
            continue;
        };
        while k < bytes.len() && bytes[k] == b' ' {
            k += 1;
        }
        let quote = bytes.get(k).copied().filter(|q| matches!(q, b'"' | b'\''));
        k += usize::from(quote.is_some());
        let start = k;
        while k < bytes.len() && value(bytes[k]) {
            k += 1;
        }
        if quote.is_some() && k > start && bytes.get(k).copied() == quote {
            k += 1;
        }
        out[start..k].fill(b' ');
        key_has_sign = false;
        i = k.max(i + 1);
    }
    // Only ASCII bytes were replaced, by ASCII blanks: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// Returns true when any word of `s` is in `set`.
pub(crate) fn has_word(s: &str, set: &[&str]) -> bool {
    words(s).any(|w| set.contains(&w.as_str()))
}

/// Shannon entropy of `s` in bits per character.
pub(crate) fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    let mut n = 0u32;
    for b in s.bytes() {
        counts[b as usize] += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    let n = f64::from(n);
    counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = f64::from(*c) / n;
            -p * p.log2()
        })
        .sum()
}

/// The line around `s..e`, cut at `reach` bytes either side: a check that looks at a match's
/// line stays linear on a text that is one long line (a line of 20,000 `password=…` pairs
/// took each pair's whole line before).
pub(crate) fn line_near(text: &str, s: usize, e: usize, reach: usize) -> (usize, usize) {
    let lo = floor_char(text, s.saturating_sub(reach));
    let hi = ceil_char(text, e.saturating_add(reach));
    let line_start = text[lo..s].rfind('\n').map_or(lo, |i| lo + i + 1);
    let line_end = text[e..hi].find('\n').map_or(hi, |i| e + i);
    (line_start, line_end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_of_settings_and_options_are_blanked_in_place() {
        for (text, left) in [
            (
                "set approval_policy = \"never\" and sandbox_mode = \"x\"",
                "set approval policy and sandbox mode",
            ),
            ("{\"confirm\": false, \"mode\": \"bypass\"}", "confirm mode"),
            ("auto_approve: no, then run", "auto approve then run"),
            (
                "run codex -a never --sandbox x now",
                "run codex a sandbox now",
            ),
            ("codex --ask-for-approval=never", "codex ask for approval"),
        ] {
            let blanked = blank_values(text);
            assert_eq!(blanked.len(), text.len(), "{text}");
            assert_eq!(
                words(&blanked).collect::<Vec<_>>().join(" "),
                left,
                "{text}"
            );
        }
        // Prose keeps its words: a label's colon, a dash between words, a comparison's side
        // is blanked only as a value.
        for prose in [
            "Note: never run it",
            "Do it now - never later",
            "e-mail the owner, never the list",
        ] {
            assert_eq!(blank_values(prose), prose);
        }
    }

    #[test]
    fn the_source_mapper_agrees_with_to_source_in_any_order() {
        // Many segments: a replaced character every few bytes, some dropped entirely.
        let src: String = (0..300)
            .map(|i| match i % 7 {
                0 => "\u{201c}",
                3 => "\u{200b}",
                _ => "ab",
            })
            .collect();
        let n = super::super::unicode::normalize(&src, true);
        let view = &n.view;
        assert!(!view.is_identity());
        let len = view.text.len();
        let ranges: Vec<(usize, usize)> = (0..len)
            .step_by(3)
            .flat_map(|a| [(a, a), (a, a + 1), (a, (a + 40).min(len)), (a, len)])
            .collect();
        let mut forward = view.source_mapper();
        for &(a, b) in &ranges {
            assert_eq!(forward(a, b), view.to_source(a, b), "{a}..{b}");
        }
        let mut backward = view.source_mapper();
        for &(a, b) in ranges.iter().rev() {
            assert_eq!(backward(a, b), view.to_source(a, b), "{a}..{b}");
        }
        let mut jumping = view.source_mapper();
        for k in 0..ranges.len() {
            let (a, b) = ranges[(k * 7919) % ranges.len()];
            assert_eq!(jumping(a, b), view.to_source(a, b), "{a}..{b}");
        }
    }

    #[test]
    fn positions_count_characters_and_lines() {
        let t = "ab\ncé d\n";
        let idx = LineIndex::new(t);
        assert_eq!(idx.position(t, 0), (1, 1));
        assert_eq!(idx.position(t, 3), (2, 1));
        assert_eq!(idx.position(t, 7), (2, 4));
        assert_eq!(idx.line_range(t, 1), (3, 8));
    }

    #[test]
    fn sentence_bounds_stop_at_punctuation_and_list_items() {
        let t = "First one. Second one here! Third.";
        let (a, b) = sentence_bounds(t, 15, 200);
        assert_eq!(&t[a..b], " Second one here!");
        let t = "- item one\n- item two";
        let (a, b) = sentence_bounds(t, 15, 200);
        assert_eq!(&t[a..b], "- item two");
    }

    #[test]
    fn sentence_bounds_found_by_byte_search_are_those_of_a_byte_by_byte_walk() {
        // The walk the searches replaced (issue #13 item 4), on texts dense with every stop
        // and near-stop: punctuation before a letter or at the end, single and double line
        // breaks, list items, numbered items, indented blocks, non-ASCII characters.
        fn walk_start(b: &[u8], pos: usize, limit: usize) -> usize {
            let lo = pos.saturating_sub(limit);
            let mut i = pos;
            while i > lo {
                let c = b[i - 1];
                if (matches!(c, b'.' | b'!' | b'?')
                    && b.get(i).is_some_and(u8::is_ascii_whitespace))
                    || (c == b'\n' && (i < 2 || b[i - 2] == b'\n' || starts_block(&b[i..])))
                {
                    return i;
                }
                i -= 1;
            }
            lo
        }
        fn walk_end(b: &[u8], pos: usize, limit: usize) -> usize {
            let hi = (pos + limit).min(b.len());
            for j in pos..hi {
                let c = b[j];
                if (matches!(c, b'.' | b'!' | b'?')
                    && b.get(j + 1).is_none_or(u8::is_ascii_whitespace))
                    || (c == b'\n' && (b.get(j + 1) == Some(&b'\n') || starts_block(&b[j + 1..])))
                {
                    return j + 1;
                }
            }
            hi
        }
        let pieces = [
            "a", "word", " ", ".", "!", "?", ".x", "\n", "\n\n", "\n- ", "\n  * ", "\n1. ",
            "\n12) ", "\n# ", "\n> ", "\n|", "é", "\u{2014}", "?\n", ". ", "...",
        ];
        let mut seed = 13u64;
        let mut next = move |m: usize| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            usize::try_from(seed >> 33).expect("small") % m
        };
        for _ in 0..300 {
            let t: String = (0..next(60)).map(|_| pieces[next(pieces.len())]).collect();
            let b = t.as_bytes();
            for pos in (0..=t.len()).filter(|&p| t.is_char_boundary(p)) {
                for limit in [0, 1, 3, 10, 400] {
                    let want = (
                        ceil_char(&t, walk_start(b, pos, limit)),
                        floor_char(&t, walk_end(b, pos, limit)),
                    );
                    assert_eq!(
                        sentence_bounds(&t, pos, limit),
                        want,
                        "{t:?} at {pos}, {limit}"
                    );
                }
            }
        }
    }

    #[test]
    fn mapped_views_return_source_ranges() {
        let mut b = ViewBuilder::default();
        b.replace("a", 0, 3);
        b.copy("bcd", 3);
        let v = b.build();
        assert_eq!(v.to_source(0, 2), (0, 4));
        assert_eq!(v.to_source(1, 2), (3, 4));
        assert_eq!(v.to_source(2, 4), (4, 6));
        assert_eq!(v.to_source(4, 4), (6, 6));
    }
}
