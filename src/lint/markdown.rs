//! The parts of Markdown the linter needs: fenced code blocks, code spans, HTML comments, link
//! and image destinations and link reference definitions, each as a byte range of the raw file.
//! Everything else is text. This is a tolerant scanner, not a renderer: unclosed constructs end
//! at the end of the file (fences) or the line (code spans).

/// Where in a Markdown document a byte sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Context {
    /// Ordinary text.
    Text,
    /// Inside `<!-- … -->`.
    HtmlComment,
    /// Inside `` `…` ``.
    CodeSpan,
    /// Inside a fenced code block.
    CodeFence,
    /// A link or image destination, or a link reference definition.
    LinkDest,
    /// A JSON string value.
    JsonString,
    /// Text decoded from an encoded run.
    Decoded,
}

/// An HTML comment: the whole range and the inner text range.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Comment {
    pub start: usize,
    pub end: usize,
    pub inner: (usize, usize),
}

/// A link or image.
#[derive(Debug, Clone)]
pub(crate) struct Link {
    /// Whole construct range (`![alt](dest)` or `![alt][label]`).
    pub start: usize,
    pub end: usize,
    /// Destination range (for reference-style links: resolved from the definition).
    pub dest: (usize, usize),
    pub image: bool,
}

/// A link reference definition `[label]: dest`.
#[derive(Debug, Clone)]
pub(crate) struct RefDef {
    pub start: usize,
    pub end: usize,
    pub label: String,
    pub dest: (usize, usize),
    /// `[//]: # (…)`-style comment text.
    pub comment: Option<(usize, usize)>,
}

/// The Markdown structure of one file.
#[derive(Debug, Default)]
pub(crate) struct MdIndex {
    /// (start, end, context) sorted by start, non-overlapping.
    ranges: Vec<(usize, usize, Context)>,
    pub comments: Vec<Comment>,
    pub links: Vec<Link>,
    pub refdefs: Vec<RefDef>,
    /// Fence ranges (whole block).
    pub fences: Vec<(usize, usize)>,
}

impl MdIndex {
    /// Scans `text`.
    pub(super) fn parse(text: &str) -> MdIndex {
        let mut idx = MdIndex::default();
        let b = text.as_bytes();
        let mut pos = 0;
        let mut fence: Option<(usize, u8, usize)> = None; // (start, char, len)
        let mut pending_images: Vec<(usize, usize, String)> = Vec::new(); // ![alt][label]
        while pos < b.len() {
            let line_end = memchr::memchr(b'\n', &b[pos..]).map_or(b.len(), |i| pos + i);
            let line = &text[pos..line_end];
            let trimmed = line.trim_start_matches(' ');
            let indent = line.len() - trimmed.len();
            if let Some((fstart, fch, flen)) = fence {
                let run = trimmed.bytes().take_while(|c| *c == fch).count();
                if indent < 4 && run >= flen && trimmed[run..].trim().is_empty() {
                    idx.fences.push((fstart, line_end));
                    idx.ranges.push((fstart, line_end, Context::CodeFence));
                    fence = None;
                }
                pos = line_end + 1;
                continue;
            }
            if indent < 4 {
                let tb = trimmed.as_bytes();
                if let Some(&fc @ (b'`' | b'~')) = tb.first() {
                    let run = tb.iter().take_while(|c| **c == fc).count();
                    if run >= 3 && !(fc == b'`' && trimmed[run..].contains('`')) {
                        fence = Some((pos, fc, run));
                        pos = line_end + 1;
                        continue;
                    }
                }
                if let Some(def) = parse_refdef(text, pos, line_end, indent) {
                    idx.ranges.push((def.start, def.end, Context::LinkDest));
                    idx.refdefs.push(def);
                    pos = line_end + 1;
                    continue;
                }
            }
            pos = idx.scan_inline(text, pos, line_end, &mut pending_images);
        }
        if let Some((fstart, _, _)) = fence {
            idx.fences.push((fstart, b.len()));
            idx.ranges.push((fstart, b.len(), Context::CodeFence));
        }
        // The first definition of a label wins.
        let mut defs: std::collections::HashMap<&str, (usize, usize)> =
            std::collections::HashMap::with_capacity(idx.refdefs.len());
        for d in &idx.refdefs {
            defs.entry(d.label.as_str()).or_insert(d.dest);
        }
        let mut resolved = Vec::new();
        for (start, end, label) in pending_images {
            if let Some(&dest) = defs.get(label.as_str()) {
                resolved.push((start, end, dest));
            }
        }
        for (start, end, dest) in resolved {
            {
                idx.links.push(Link {
                    start,
                    end,
                    dest,
                    image: true,
                });
            }
        }
        idx.ranges.sort_by_key(|r| r.0);
        idx
    }

    /// Scans inline constructs from `pos` within the line ending at `line_end`; returns where
    /// scanning continues (past a multi-line comment when one starts here).
    fn scan_inline(
        &mut self,
        text: &str,
        mut pos: usize,
        line_end: usize,
        pending: &mut Vec<(usize, usize, String)>,
    ) -> usize {
        let b = text.as_bytes();
        let mut line = LineScan::new(pos, line_end);
        while pos < line_end {
            // Jump to the next byte that can start a construct.
            let from = pos;
            match memchr::memchr3(b'<', b'`', b'[', &b[pos..line_end]) {
                None => break,
                Some(k) => {
                    pos += k;
                    if b[pos] == b'[' && pos > from && b[pos - 1] == b'!' {
                        pos -= 1;
                    }
                }
            }
            match b[pos] {
                b'<' if text[pos..].starts_with("<!--") => {
                    let close = text[pos + 4..].find("-->").map(|i| pos + 4 + i);
                    let (inner_end, end) = close.map_or((b.len(), b.len()), |c| (c, c + 3));
                    self.comments.push(Comment {
                        start: pos,
                        end,
                        inner: (pos + 4, inner_end),
                    });
                    self.ranges.push((pos, end, Context::HtmlComment));
                    if end > line_end {
                        return end;
                    }
                    pos = end;
                }
                b'`' => {
                    let run = b[pos..line_end].iter().take_while(|c| **c == b'`').count();
                    // The first run of as many backticks later on the line.
                    if let Some(close) = line.backtick_close(b, pos + run, run) {
                        let end = close + run;
                        self.ranges.push((pos, end, Context::CodeSpan));
                        pos = end;
                    } else {
                        pos += run;
                    }
                }
                b'!' | b'[' => {
                    let image = b[pos] == b'!';
                    let open = if image { pos + 1 } else { pos };
                    if b.get(open) != Some(&b'[') {
                        pos += 1;
                        continue;
                    }
                    let Some(close) = line.matching_bracket(b, open) else {
                        pos += 1;
                        continue;
                    };
                    if b.get(close + 1) == Some(&b'(') {
                        if let Some(rp) = line.next_paren.find(b, close + 2, line_end) {
                            let dest_start = close + 2;
                            let dest_end = rp;
                            self.links.push(Link {
                                start: pos,
                                end: dest_end + 1,
                                dest: (dest_start, dest_end),
                                image,
                            });
                            self.ranges.push((dest_start, dest_end, Context::LinkDest));
                            pos = dest_end + 1;
                            continue;
                        }
                    } else if image
                        && b.get(close + 1) == Some(&b'[')
                        && let Some(rb) = line
                            .next_bracket
                            .find(b, close + 2, line_end)
                            .map(|p| p - (close + 2))
                    {
                        let label = text[close + 2..close + 2 + rb].to_lowercase();
                        let label = if label.is_empty() {
                            text[open + 1..close].to_lowercase()
                        } else {
                            label
                        };
                        pending.push((pos, close + 3 + rb, label));
                        pos = close + 3 + rb;
                        continue;
                    }
                    pos = close + 1;
                }
                _ => pos += 1,
            }
        }
        line_end + 1
    }

    /// Maps every range through `f` (from the text the index was parsed on to the raw file).
    pub(crate) fn map(self, mut f: impl FnMut(usize, usize) -> (usize, usize)) -> MdIndex {
        let mut m = |r: (usize, usize)| f(r.0, r.1);
        MdIndex {
            ranges: self
                .ranges
                .into_iter()
                .map(|(a, b, c)| {
                    let (a, b) = m((a, b));
                    (a, b, c)
                })
                .collect(),
            comments: self
                .comments
                .into_iter()
                .map(|c| {
                    let (start, end) = m((c.start, c.end));
                    Comment {
                        start,
                        end,
                        inner: m(c.inner),
                    }
                })
                .collect(),
            links: self
                .links
                .into_iter()
                .map(|l| {
                    let (start, end) = m((l.start, l.end));
                    Link {
                        start,
                        end,
                        dest: m(l.dest),
                        image: l.image,
                    }
                })
                .collect(),
            refdefs: self
                .refdefs
                .into_iter()
                .map(|d| {
                    let (start, end) = m((d.start, d.end));
                    RefDef {
                        start,
                        end,
                        label: d.label,
                        dest: m(d.dest),
                        comment: d.comment.map(&mut m),
                    }
                })
                .collect(),
            fences: self.fences.into_iter().map(&mut m).collect(),
        }
    }

    /// Returns the context of byte `offset`.
    pub(super) fn context_at(&self, offset: usize) -> Context {
        let i = self.ranges.partition_point(|r| r.0 <= offset);
        // Ranges may nest (a code span inside a comment is not recorded), so look back a few.
        for r in self.ranges[..i].iter().rev().take(4) {
            if offset < r.1 {
                return r.2;
            }
        }
        Context::Text
    }
}

/// A line's backtick runs (start, length) and, for each, the longest run from it on.
type Ticks = (Vec<(usize, usize)>, Vec<usize>);

/// What one line's inline scan has learnt about the line, so that no construct makes it
/// scan the rest of the line again: each bracket's match, the backtick runs, and the next
/// `)` and `]`. Built lazily, in one pass each.
struct LineScan {
    from: usize,
    end: usize,
    /// (open, close) of every matched `[`, sorted by open.
    brackets: Option<Vec<(usize, usize)>>,
    /// Backtick runs (start, length) and, for each, the longest run from it on.
    ticks: Option<Ticks>,
    next_paren: NextByte<b')'>,
    next_bracket: NextByte<b']'>,
}

impl LineScan {
    fn new(from: usize, end: usize) -> LineScan {
        LineScan {
            from,
            end,
            brackets: None,
            ticks: None,
            next_paren: NextByte::default(),
            next_bracket: NextByte::default(),
        }
    }

    /// The `]` matching the `[` at `open` on this line.
    fn matching_bracket(&mut self, b: &[u8], open: usize) -> Option<usize> {
        let (from, end) = (self.from, self.end);
        let pairs = self.brackets.get_or_insert_with(|| {
            let mut stack = Vec::new();
            let mut pairs = Vec::new();
            for i in memchr::memchr2_iter(b'[', b']', &b[from..end]).map(|k| from + k) {
                if b[i] == b'[' {
                    stack.push(i);
                } else if let Some(o) = stack.pop() {
                    pairs.push((o, i));
                }
            }
            super::steps::add((end - from) as u64);
            pairs.sort_unstable();
            pairs
        });
        pairs
            .binary_search_by_key(&open, |p| p.0)
            .ok()
            .map(|k| pairs[k].1)
    }

    /// The start of the first run of at least `run` backticks at or after `at` on this line.
    fn backtick_close(&mut self, b: &[u8], at: usize, run: usize) -> Option<usize> {
        let (from, end) = (self.from, self.end);
        let (runs, longest) = self.ticks.get_or_insert_with(|| {
            let mut runs: Vec<(usize, usize)> = Vec::new();
            let mut i = from;
            while let Some(k) = memchr::memchr(b'`', &b[i..end]) {
                let s = i + k;
                let n = b[s..end].iter().take_while(|c| **c == b'`').count();
                runs.push((s, n));
                i = s + n;
            }
            let mut longest = vec![0; runs.len()];
            let mut m = 0;
            for k in (0..runs.len()).rev() {
                m = m.max(runs[k].1);
                longest[k] = m;
            }
            super::steps::add((end - from) as u64);
            (runs, longest)
        });
        let k = runs.partition_point(|r| r.0 < at);
        if longest.get(k).is_none_or(|&m| m < run) {
            return None;
        }
        // Every run passed over here lies before the close, which the scan moves past.
        let found = runs[k..].iter().find(|r| r.1 >= run).map(|r| r.0);
        super::steps::add(1);
        found
    }
}

/// The next occurrence of byte `B` at or after a position on one line, remembering the last
/// answer: asked at increasing positions, the line is searched once.
#[derive(Default)]
struct NextByte<const B: u8> {
    /// (searched from, found at).
    last: Option<(usize, Option<usize>)>,
}

impl<const B: u8> NextByte<B> {
    fn find(&mut self, b: &[u8], at: usize, end: usize) -> Option<usize> {
        if let Some((from, found)) = self.last
            && from <= at
            && found.is_none_or(|f| f >= at)
        {
            return found;
        }
        let found = memchr::memchr(B, &b[at.min(end)..end]).map(|k| at + k);
        super::steps::add(1 + found.map_or(end.saturating_sub(at), |f| f - at) as u64);
        self.last = Some((at, found));
        found
    }
}

/// Parses `[label]: dest "title"` on the line `pos..end`.
fn parse_refdef(text: &str, pos: usize, end: usize, indent: usize) -> Option<RefDef> {
    let line = &text[pos + indent..end];
    let rest = line.strip_prefix('[')?;
    let close = rest.find("]:")?;
    let label = &rest[..close];
    if label.is_empty() || label.contains('[') {
        return None;
    }
    let after = &rest[close + 2..];
    let dest_rel = after.len() - after.trim_start().len();
    let dest_text = after.trim_start();
    let dest_len = dest_text
        .find(char::is_whitespace)
        .unwrap_or(dest_text.len());
    let dest_start = pos + indent + 1 + close + 2 + dest_rel;
    let dest = (dest_start, dest_start + dest_len);
    let tail = dest_text[dest_len..].trim();
    let comment = if (dest_text.starts_with('#') || label.starts_with("//"))
        && tail.len() > 2
        && (tail.starts_with('(') || tail.starts_with('"') || tail.starts_with('\''))
    {
        let t_start = tail.as_ptr() as usize - text.as_ptr() as usize;
        Some((t_start + 1, t_start + tail.len() - 1))
    } else {
        None
    };
    Some(RefDef {
        start: pos,
        end,
        label: label.to_lowercase(),
        dest,
        comment,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts_are_found() {
        let t = "text `code` more\n<!-- hidden\nnote -->\n```\nfenced\n```\n![a](http://x/y.png)\n[//]: # (secret note)\n";
        let idx = MdIndex::parse(t);
        assert_eq!(idx.context_at(t.find("code").unwrap()), Context::CodeSpan);
        assert_eq!(
            idx.context_at(t.find("note -->").unwrap()),
            Context::HtmlComment
        );
        assert_eq!(
            idx.context_at(t.find("fenced").unwrap()),
            Context::CodeFence
        );
        assert_eq!(idx.context_at(t.find("http").unwrap()), Context::LinkDest);
        assert_eq!(idx.context_at(t.find("more").unwrap()), Context::Text);
        assert_eq!(idx.links.len(), 1);
        assert!(idx.links[0].image);
        let c = idx.refdefs[0].comment.unwrap();
        assert_eq!(&t[c.0..c.1], "secret note");
    }

    #[test]
    fn a_code_span_closes_at_the_first_run_as_long_as_its_opening() {
        let t = "a ``b ` c`` d `e`` f\n`g\nh`\n";
        let idx = MdIndex::parse(t);
        assert_eq!(idx.context_at(t.find("b ").unwrap()), Context::CodeSpan);
        assert_eq!(idx.context_at(t.find(" d").unwrap()), Context::Text);
        assert_eq!(idx.context_at(t.find('e').unwrap()), Context::CodeSpan);
        // A span does not cross a line end.
        assert_eq!(idx.context_at(t.find('g').unwrap()), Context::Text);
        assert_eq!(idx.context_at(t.find('h').unwrap()), Context::Text);
    }

    #[test]
    fn reference_images_resolve_to_their_definition() {
        let t = "![s][r]\n\n[r]: https://x.test/l.png?k=1\n";
        let idx = MdIndex::parse(t);
        let img = idx.links.iter().find(|l| l.image).unwrap();
        assert_eq!(&t[img.dest.0..img.dest.1], "https://x.test/l.png?k=1");
    }
}
