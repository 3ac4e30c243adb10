//! LOG-ARCHIVE.md and its index read as streams (issue #12 item 2): their entries one at a
//! time, in pieces of [`Limits::chunk`] bytes, so what a reader holds is one entry and one
//! piece, never the file. The archive is parsed as [`LogFile::parse`] parses it (a unit test
//! holds the two equal at every split point); the index is read element by element and
//! checked against the archive as they go ([`check_pair`]).
//!
//! One bound remains, and it is a property of the content, not of the file's size: an
//! archived entry (and any line) may hold at most [`Limits::max_entry`] bytes. Every entry
//! comes from LOG.md, which holds at most [`super::MAX_FILE_BYTES`], so no entry the tool
//! wrote exceeds it; a larger one was put there by hand and is refused (exit 2, its line).

use std::collections::HashMap;
use std::collections::hash_map::Entry as Slot;
use std::io::{self, Read};

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::log::{
    ARCHIVE_FILE, ArchiveEnd, ArchiveProblem, Heading, INDEX_FILE, IndexEnd, IndexEntry,
    IndexScanner, LOG_FILE, LogEntry, LogError, LogFile, Onto, Redaction, Rotation, Trusted,
    TrustedEnds, heading_date, is_py_space,
};
use super::markdown::{closing_run, fence_closes, fence_open, fence_slot};
use super::stream::Streamed;

/// Bytes read at a time.
pub const CHUNK: usize = 64 * 1024;

/// How a stream is read: the piece size and the largest entry (or line) it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes read at a time.
    pub chunk: usize,
    /// The largest entry, preamble or line, in bytes.
    pub max_entry: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            chunk: CHUNK,
            max_entry: super::MAX_FILE_BYTES,
        }
    }
}

/// Content that can be read from any offset more than once: a file on disk (a
/// [`Streamed`]) or bytes in memory.
pub trait Content {
    /// Its length in bytes.
    fn content_len(&self) -> u64;
    /// A reader of its bytes from offset `at` to its end.
    fn open_at(&self, at: u64) -> io::Result<Box<dyn Read + '_>>;
    /// All its bytes, when they are in memory: a parser reads a slice many times faster
    /// than a reader, a byte at a time.
    fn in_memory(&self) -> Option<&[u8]> {
        None
    }
}

/// Bytes in memory as a [`Content`].
#[derive(Debug, Clone, Copy)]
pub struct Bytes<'a>(pub &'a [u8]);

impl Content for Bytes<'_> {
    fn content_len(&self) -> u64 {
        self.0.len() as u64
    }

    fn open_at(&self, at: u64) -> io::Result<Box<dyn Read + '_>> {
        let at = usize::try_from(at).unwrap_or(usize::MAX).min(self.0.len());
        Ok(Box::new(&self.0[at..]))
    }

    fn in_memory(&self) -> Option<&[u8]> {
        Some(self.0)
    }
}

impl Content for crate::git::LooseBlob {
    fn content_len(&self) -> u64 {
        self.len()
    }

    fn open_at(&self, at: u64) -> io::Result<Box<dyn Read + '_>> {
        crate::git::LooseBlob::open_at(self, at)
    }
}

impl Content for Streamed {
    fn content_len(&self) -> u64 {
        self.len()
    }

    fn open_at(&self, at: u64) -> io::Result<Box<dyn Read + '_>> {
        use std::io::{Seek, SeekFrom};
        if at >= self.keep {
            let from = usize::try_from(at - self.keep).unwrap_or(usize::MAX);
            return Ok(Box::new(self.tail.get(from..).unwrap_or_default()));
        }
        let mut file = std::fs::File::open(&self.path)?;
        file.seek(SeekFrom::Start(at))?;
        let exact = Exact {
            inner: file.take(self.keep - at),
            left: self.keep - at,
        };
        Ok(Box::new(exact.chain(self.tail.as_slice())))
    }
}

/// A reader of exactly `left` bytes: a file that got shorter while it was read is an error,
/// never a shorter archive.
struct Exact<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Exact<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && self.left > 0 && !buf.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "changed while it was read (it got shorter); rerun the command",
            ));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// Turns an I/O error while reading `file` into a [`LogError`].
fn io_error(file: &str, e: &io::Error) -> LogError {
    LogError::Malformed {
        file: file.into(),
        line: None,
        message: format!("could not be read: {e}"),
    }
}

/// One line as [`Lines::next_line`] gives it.
struct RawLine<'a> {
    /// Offset of its first byte in the content.
    start: u64,
    /// Its text without the terminator.
    text: &'a str,
    /// Its terminator (`\n`, `\r\n`, `\r`, or empty at the end).
    term: &'static str,
}

/// Lines of a content read in pieces. `\n`, `\r\n` and a lone `\r` end a line, as in
/// [`super::markdown::lines`].
struct Lines<'a> {
    reader: Box<dyn Read + 'a>,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// Offset of `buf[pos]` in the content.
    at: u64,
    limits: Limits,
    /// Lines given so far.
    number: usize,
    /// `\n` bytes before `buf[pos]` (for the line of invalid UTF-8, as `decode_text` counts).
    newlines: usize,
    file: &'static str,
}

impl<'a> Lines<'a> {
    fn new(
        content: &'a dyn Content,
        at: u64,
        limits: Limits,
        file: &'static str,
    ) -> Result<Lines<'a>, LogError> {
        Ok(Lines {
            reader: content.open_at(at).map_err(|e| io_error(file, &e))?,
            buf: Vec::new(),
            pos: 0,
            end: 0,
            eof: false,
            at,
            limits,
            number: 0,
            newlines: 0,
            file,
        })
    }

    fn fill(&mut self) -> Result<(), LogError> {
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        let chunk = self.limits.chunk.max(1);
        if self.buf.len() < self.end + chunk {
            self.buf.resize(self.end + chunk, 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.end..self.end + chunk]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_error(self.file, &e)),
            }
        }
    }

    /// Among the lines read into the buffer and not yet taken, the first (1-based) that
    /// closes the fence `open`; `None` when none does (or a line there is not UTF-8, or the
    /// buffer ends before telling where a line ends): the caller reads ahead then.
    fn buffered_closer(&self, open: (u8, usize)) -> Option<usize> {
        let mut hay = &self.buf[self.pos..self.end];
        let mut k = 0;
        loop {
            let (line, rest) = match memchr::memchr2(b'\n', b'\r', hay) {
                Some(i) => {
                    let crlf = hay[i] == b'\r' && hay.get(i + 1) == Some(&b'\n');
                    let rest = &hay[i + 1 + usize::from(crlf)..];
                    // A CR ending the buffer may be the first half of a CRLF.
                    let undecided = hay[i] == b'\r' && i + 1 == hay.len() && !self.eof;
                    (&hay[..i], (!undecided).then_some(rest))
                }
                None if self.eof && !hay.is_empty() => (hay, Some(&hay[hay.len()..])),
                None => return None,
            };
            k += 1;
            if fence_closes(std::str::from_utf8(line).ok()?, open) {
                return Some(k);
            }
            hay = rest?;
            if hay.is_empty() {
                return None;
            }
        }
    }

    fn too_long(&self) -> LogError {
        LogError::Malformed {
            file: self.file.into(),
            line: Some(self.newlines + 1),
            message: format!(
                "line is longer than {} bytes; an archived entry comes from LOG.md, which holds at most that much",
                self.limits.max_entry
            ),
        }
    }

    /// The next line, or `None` at the end.
    fn next_line(&mut self) -> Result<Option<RawLine<'_>>, LogError> {
        loop {
            let hay = &self.buf[self.pos..self.end];
            if let Some(i) = memchr::memchr2(b'\n', b'\r', hay) {
                let cr = hay[i] == b'\r';
                if cr && i + 1 == hay.len() && !self.eof {
                    // A CR at the end of the piece: the next byte tells CRLF from CR.
                    self.fill()?;
                    continue;
                }
                let term = match (cr, hay.get(i + 1)) {
                    (true, Some(b'\n')) => "\r\n",
                    (true, _) => "\r",
                    (false, _) => "\n",
                };
                return self.take(i, term);
            }
            if self.eof {
                if hay.is_empty() {
                    return Ok(None);
                }
                let n = hay.len();
                return self.take(n, "");
            }
            if hay.len() > self.limits.max_entry {
                return Err(self.too_long());
            }
            self.fill()?;
        }
    }

    fn take(&mut self, n: usize, term: &'static str) -> Result<Option<RawLine<'_>>, LogError> {
        if n > self.limits.max_entry {
            return Err(self.too_long());
        }
        let from = self.pos;
        let start = self.at;
        let Ok(_) = std::str::from_utf8(&self.buf[from..from + n]) else {
            return Err(LogError::Malformed {
                file: self.file.into(),
                line: Some(self.newlines + 1),
                message: "invalid UTF-8".into(),
            });
        };
        let used = n + term.len();
        self.pos += used;
        self.at += used as u64;
        self.number += 1;
        if term.contains('\n') {
            self.newlines += 1;
        }
        let text = std::str::from_utf8(&self.buf[from..from + n]).unwrap_or_default();
        Ok(Some(RawLine { start, text, term }))
    }
}

/// The entries of a journal (LOG-ARCHIVE.md) read as a stream, one at a time, each as
/// [`LogFile::parse`](super::log::LogFile::parse) gives it. Fenced code blocks are found
/// as that parse finds them: a fence opening is paired with its closer by reading ahead
/// from it (a second reader), so nothing but the current entry is held.
pub struct Entries<'a> {
    content: &'a dyn Content,
    lines: Lines<'a>,
    file: &'static str,
    /// Set by the first search for a closer that reads to the end (so `Some` means some
    /// fence never closes): per fence character, the longest closing fence at or after each
    /// line, as its steps (line, run), runs falling. Later openings look up whether a closer
    /// lies ahead instead of reading to the end again, so fences of falling length that
    /// never close cost one read ahead in all.
    closers_ahead: Option<[Vec<(usize, usize)>; 2]>,
    /// Lines up to this number (1-based, inclusive) are inside a code block.
    masked_through: usize,
    /// The entry being read: its heading line, date, line number and raw text.
    current: Option<(String, Option<jiff::civil::Date>, usize, String)>,
    preamble: String,
    stray_headings: Vec<(usize, String)>,
    /// Whether the content starts with a BOM.
    pub bom: bool,
    present: bool,
    line_ending: Option<&'static str>,
    last_content: Option<u64>,
    before_last_content: u64,
    prev_start: u64,
    count: usize,
    done: bool,
    /// The first archived entry that leaves an HTML comment or block open.
    left_open: Option<ArchiveProblem>,
}

impl<'a> Entries<'a> {
    /// Starts reading `content` (the file named `file` in messages).
    pub fn new(
        content: &'a dyn Content,
        limits: Limits,
        file: &'static str,
    ) -> Result<Entries<'a>, LogError> {
        let at = bom_len(content, file)?;
        let bom = at == 3;
        Ok(Entries {
            content,
            lines: Lines::new(content, at, limits, file)?,
            file,
            closers_ahead: None,
            masked_through: 0,
            current: None,
            preamble: String::new(),
            stray_headings: Vec::new(),
            bom,
            present: bom,
            line_ending: None,
            last_content: None,
            before_last_content: 0,
            prev_start: 0,
            count: 0,
            done: false,
            left_open: None,
        })
    }

    fn too_large(&self, line: usize) -> LogError {
        LogError::Malformed {
            file: self.file.into(),
            line: Some(line),
            message: format!(
                "entry is larger than {} bytes; an archived entry comes from LOG.md, which holds at most that much",
                self.lines.limits.max_entry
            ),
        }
    }

    /// The next entry, or `None` after the last.
    pub fn next_entry(&mut self) -> Result<Option<LogEntry>, LogError> {
        let entry = self.read_entry()?;
        if self.file == ARCHIVE_FILE
            && self.left_open.is_none()
            && let Some(e) = &entry
            && let Some((line, what)) = super::log::entry_left_open(e)
        {
            self.left_open = Some(super::log::left_open_in_archive(e, line, what));
        }
        Ok(entry)
    }

    /// The problem of the first entry read so far that leaves an HTML comment or block
    /// open, hiding what follows it in a rendered archive (LOG-ARCHIVE.md only).
    pub fn left_open(&self) -> Option<&ArchiveProblem> {
        self.left_open.as_ref()
    }

    fn read_entry(&mut self) -> Result<Option<LogEntry>, LogError> {
        if self.done {
            return Ok(None);
        }
        loop {
            let max = self.lines.limits.max_entry;
            let Some(line) = self.lines.next_line()? else {
                self.done = true;
                return Ok(self.current.take().map(|(h, d, n, raw)| {
                    self.count += 1;
                    LogEntry::from_raw(&h, d, n, raw)
                }));
            };
            let (start, term) = (line.start, line.term);
            let text = line.text.to_string();
            let number = self.lines.number;
            if self.line_ending.is_none() && term.contains('\n') {
                self.line_ending = Some(term);
            }
            if !text.trim().is_empty() {
                self.present = true;
            }
            if !text.trim_matches(is_py_space).is_empty() {
                self.last_content = Some(start);
                self.before_last_content = self.prev_start;
            }
            self.prev_start = start;
            let next = start + (text.len() + term.len()) as u64;
            let mut masked = number <= self.masked_through;
            if !masked && let Some(open) = fence_open(&text) {
                let closes = match &self.closers_ahead {
                    Some(steps) => longest_from(&steps[fence_slot(open.0)], number + 1) >= open.1,
                    None => true,
                };
                let close = if closes {
                    self.closer(next, number, open)?
                } else {
                    None
                };
                if let Some(close) = close {
                    self.masked_through = close;
                    masked = true;
                }
            }
            let heading = if masked {
                Heading::None
            } else {
                heading_date(&text)
            };
            if let Heading::Entry(date) = heading {
                let mut raw = String::with_capacity(text.len() + term.len());
                raw.push_str(&text);
                raw.push_str(term);
                let done = self.current.replace((text, date, number, raw));
                if let Some((h, d, n, raw)) = done {
                    self.count += 1;
                    return Ok(Some(LogEntry::from_raw(&h, d, n, raw)));
                }
                continue;
            }
            if let Some((_, _, n, raw)) = self.current.as_mut() {
                if raw.len() + text.len() + term.len() > max {
                    let n = *n;
                    return Err(self.too_large(n));
                }
                raw.push_str(&text);
                raw.push_str(term);
                continue;
            }
            if self.preamble.len() + text.len() + term.len() > max {
                return Err(self.too_large(1));
            }
            if !masked && text.starts_with("## ") && !text.contains("YYYY-MM-DD") {
                self.stray_headings.push((number, text.trim().to_string()));
            }
            self.preamble.push_str(&text);
            self.preamble.push_str(term);
        }
    }

    /// The line number of the closer of the fence `open` opened on line `number`, reading
    /// ahead from offset `from`; `None` when it never closes. A read that reaches the end
    /// records the closing fences it passed ([`Entries::closers_ahead`]).
    fn closer(
        &mut self,
        from: u64,
        number: usize,
        open: (u8, usize),
    ) -> Result<Option<usize>, LogError> {
        // Most fences close within the lines already read: no reader is opened for them.
        if let Some(k) = self.lines.buffered_closer(open) {
            return Ok(Some(number + k));
        }
        let mut ahead = Lines::new(self.content, from, self.lines.limits, self.file)?;
        // Its errors name lines of the file, not of the read ahead.
        ahead.newlines = self.lines.newlines;
        let mut steps: [Vec<(usize, usize)>; 2] = [Vec::new(), Vec::new()];
        while let Some(line) = ahead.next_line()? {
            if fence_closes(line.text, open) {
                return Ok(Some(number + ahead.number));
            }
            if let Some((ch, run)) = closing_run(line.text) {
                let falling = &mut steps[fence_slot(ch)];
                while falling.last().is_some_and(|&(_, r)| r <= run) {
                    falling.pop();
                }
                falling.push((number + ahead.number, run));
            }
        }
        if self.closers_ahead.is_none() {
            self.closers_ahead = Some(steps);
        }
        Ok(None)
    }

    /// Everything before the first entry (once the first entry was read).
    pub fn preamble(&self) -> &str {
        &self.preamble
    }

    /// The line terminator the content uses, as [`LogFile::parse`] finds it (`\r\n` when
    /// the first line ending in `\n` ends in `\r\n`); known once that line was read.
    pub fn line_ending(&self) -> &'static str {
        self.line_ending.unwrap_or("\n")
    }

    /// Level-2 headings of the preamble that are not entry templates (line, heading).
    pub fn stray_headings(&self) -> &[(usize, String)] {
        &self.stray_headings
    }

    /// After the last entry: what the whole read found.
    pub fn summary(&self) -> ArchiveSummary {
        ArchiveSummary {
            entries: self.count,
            present: self.present,
            unclosed_fence: self.closers_ahead.is_some(),
            tail_from: if self.last_content.is_some() {
                self.before_last_content
            } else {
                0
            },
        }
    }
}

/// The longest closing fence on line `line` or after, from the falling steps of
/// [`Entries::closers_ahead`] (0 when none).
fn longest_from(steps: &[(usize, usize)], line: usize) -> usize {
    let i = steps.partition_point(|&(at, _)| at < line);
    steps.get(i).map_or(0, |&(_, run)| run)
}

/// What reading a whole archive found beside its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchiveSummary {
    /// How many entries it holds.
    pub entries: usize,
    /// Whether it holds anything but blanks (a BOM counts, as for a text read whole).
    pub present: bool,
    /// Whether some fence opening never closes: text appended after it could close it and
    /// change how the old entries read.
    pub unclosed_fence: bool,
    /// Offset of the line before its last line that is not blank: from there on, its end
    /// shows how to append to it.
    pub tail_from: u64,
}

/// Pairs archive entries with index entries by digest as they are read: the k-th copy of a
/// digest in the archive with its k-th copy in the index, the rule of whole-file reading
/// (`Journal::problems`). What is not paired yet waits; in an archive and index written in
/// the same order, nothing waits for long.
#[derive(Default)]
struct Matcher {
    waiting: HashMap<String, Waiting>,
}

struct Waiting {
    /// True when the waiting copies are index entries, false for archive entries.
    index_side: bool,
    copies: std::collections::VecDeque<(usize, ArchiveProblem)>,
}

impl Matcher {
    fn add(&mut self, digest: String, index_side: bool, pos: usize, problem: ArchiveProblem) {
        match self.waiting.entry(digest) {
            Slot::Occupied(mut o) => {
                let w = o.get_mut();
                if w.index_side == index_side {
                    w.copies.push_back((pos, problem));
                } else {
                    w.copies.pop_front();
                    if w.copies.is_empty() {
                        o.remove();
                    }
                }
            }
            Slot::Vacant(v) => {
                v.insert(Waiting {
                    index_side,
                    copies: std::iter::once((pos, problem)).collect(),
                });
            }
        }
    }

    fn index(&mut self, pos: usize, e: IndexEntry) {
        let problem = ArchiveProblem::Missing {
            sha256: e.sha256.clone(),
            title: e.title,
        };
        self.add(e.sha256, true, pos, problem);
    }

    fn archive(&mut self, pos: usize, e: &LogEntry) {
        let problem = ArchiveProblem::Forged {
            sha256: e.digest(),
            title: e.header.clone(),
            line: e.line,
        };
        self.add(e.digest(), false, pos, problem);
    }

    /// What was never paired: index entries (missing from the archive) in index order,
    /// then archive entries (not indexed) in archive order.
    fn problems(self) -> Vec<ArchiveProblem> {
        let (missing, forged) = self.unpaired();
        missing.into_iter().chain(forged).map(|(_, p)| p).collect()
    }

    /// What was never paired, with positions: index entries in index order, and archive
    /// entries in archive order.
    #[expect(clippy::type_complexity, reason = "two lists of the same shape")]
    fn unpaired(self) -> (Vec<(usize, ArchiveProblem)>, Vec<(usize, ArchiveProblem)>) {
        let (mut missing, mut forged): (Vec<_>, Vec<_>) = (Vec::new(), Vec::new());
        for w in self.waiting.into_values() {
            if w.index_side {
                missing.extend(w.copies);
            } else {
                forged.extend(w.copies);
            }
        }
        missing.sort_by_key(|(pos, _)| *pos);
        forged.sort_by_key(|(pos, _)| *pos);
        (missing, forged)
    }
}

/// What [`check_pair`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairCheck {
    /// The archive's problems against its index (`Journal::problems` of a whole read).
    pub problems: Vec<ArchiveProblem>,
    /// The archive as a whole.
    pub archive: ArchiveSummary,
    /// Entries the index lists; `None` when there is no index (absent or blank).
    pub indexed: Option<usize>,
    /// Whether the index lists them in the legacy layout (`{"archived": [...]}`).
    pub legacy: bool,
}

/// What a streamed read cannot judge and leaves to a whole read: an index in the layout
/// that predates the reference's (`{"archived": [...]}`), rewritten whole when extended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unstreamed {
    /// The index has no `entries` list but a legacy `archived` one.
    LegacyIndex,
}

/// Checks LOG-ARCHIVE.md against its index as streams: every archive entry's digest
/// paired with an index entry, as a whole read pairs them. Malformed input is an error
/// naming the file and line, as [`super::log::ArchiveIndex::parse`] names it.
pub fn check_pair(
    archive: Option<&dyn Content>,
    index: Option<&dyn Content>,
    limits: Limits,
) -> Result<Result<PairCheck, Unstreamed>, LogError> {
    check_pair_as(archive, index, limits, false)
}

/// [`check_pair`], a legacy index (`{"archived": [...]}`) included when `legacy`: its
/// list is paired with the archive as an `entries` list is, and an empty one accounts for
/// no entry, as a whole read ([`super::log::verify_archive`]) takes it.
fn check_pair_as(
    archive: Option<&dyn Content>,
    index: Option<&dyn Content>,
    limits: Limits,
    legacy: bool,
) -> Result<Result<PairCheck, Unstreamed>, LogError> {
    let empty = Bytes(&[]);
    let mut entries = Entries::new(archive.unwrap_or(&empty), limits, ARCHIVE_FILE)?;
    let index = match index {
        Some(i) if !is_blank(i)? => Some(i),
        _ => None,
    };
    let Some(index) = index else {
        return Ok(Ok(unindexed(&mut entries)?));
    };
    let (read, matcher) = pair_streams(&mut entries, index, limits, None, legacy)?;
    let (indexed, legacy) = match read {
        IndexRead::LegacyEntries(0) => return Ok(Ok(unindexed(&mut entries)?)),
        IndexRead::Entries(n) => (n, false),
        IndexRead::LegacyEntries(n) => (n, true),
        IndexRead::Legacy => return Ok(Err(Unstreamed::LegacyIndex)),
    };
    let mut problems = matcher.problems();
    problems.extend(entries.left_open().cloned());
    Ok(Ok(PairCheck {
        problems,
        archive: entries.summary(),
        indexed: Some(indexed),
        legacy,
    }))
}

/// The check of an archive no index accounts for (none, or an empty legacy one): read to
/// its end, every entry of it unindexed.
fn unindexed(entries: &mut Entries<'_>) -> Result<PairCheck, LogError> {
    while entries.next_entry()?.is_some() {}
    let summary = entries.summary();
    let mut problems = if summary.entries > 0 {
        vec![ArchiveProblem::Unindexed {
            entries: summary.entries,
        }]
    } else {
        Vec::new()
    };
    problems.extend(entries.left_open().cloned());
    Ok(PairCheck {
        problems,
        archive: summary,
        indexed: None,
        legacy: false,
    })
}

/// Reads the index element by element and, beside it, the archive's entries (`entries`,
/// to its end), pairing them by digest. The archive is read one entry per index element,
/// so in a pair written in the same order nothing waits in the matcher for long. With
/// `others`, the index's other top-level keys are kept there.
fn pair_streams(
    entries: &mut Entries<'_>,
    index: &dyn Content,
    limits: Limits,
    others: Option<&mut Map<String, Value>>,
    legacy: bool,
) -> Result<(IndexRead, Matcher), LogError> {
    let mut matcher = Matcher::default();
    let mut archived = 0;
    let mut on_entry = |pos: usize, e: IndexEntry, entries: &mut Entries<'_>| {
        matcher.index(pos, e);
        if let Some(a) = entries.next_entry()? {
            matcher.archive(archived, &a);
            archived += 1;
        }
        Ok(())
    };
    let mut each = |pos, e| on_entry(pos, e, entries);
    let mut read = read_index_keeping(index, limits, &mut each, others, false)?;
    // No `entries` list: the legacy one is read on a second pass (nothing was paired yet).
    if legacy && matches!(read, IndexRead::Legacy) {
        read = read_index_keeping(index, limits, &mut each, None, true)?;
    }
    if let IndexRead::Entries(_) | IndexRead::LegacyEntries(_) = read {
        while let Some(a) = entries.next_entry()? {
            matcher.archive(archived, &a);
            archived += 1;
        }
    }
    Ok((read, matcher))
}

/// True when the content holds only whitespace (as `str::trim` sees it).
fn is_blank(content: &dyn Content) -> Result<bool, LogError> {
    let mut r = content.open_at(0).map_err(|e| io_error(INDEX_FILE, &e))?;
    let mut buf = [0u8; 4096];
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => return Ok(carry.is_empty()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_error(INDEX_FILE, &e)),
        };
        carry.extend_from_slice(&buf[..n]);
        let valid = match std::str::from_utf8(&carry) {
            Ok(s) => s.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            // Not UTF-8: not blank (its reader reports it).
            Err(_) => return Ok(false),
        };
        let text = std::str::from_utf8(&carry[..valid]).unwrap_or_default();
        if !text.chars().all(char::is_whitespace) {
            return Ok(false);
        }
        carry.drain(..valid);
    }
}

/// How a streamed index read ended.
enum IndexRead {
    /// The `entries` list was read; it held this many entries.
    Entries(usize),
    /// There is no `entries` list but a legacy `archived` one.
    Legacy,
    /// The legacy `archived` list was read (asked for); it held this many entries.
    LegacyEntries(usize),
}

/// Why the deserializer was stopped, when it was not a JSON syntax error.
enum Stop {
    /// An error to give as it is.
    Given(LogError),
    /// An error whose line is that of the `n`-th occurrence of `needle`.
    At {
        needle: &'static str,
        n: usize,
        or_needle: Option<&'static str>,
        message: String,
    },
}

/// Reads the index's `entries` list (with `legacy`, its legacy `archived` list) element by
/// element, giving each (with its position) to `each`; only the current element is held.
/// The document is otherwise validated as [`super::log::ArchiveIndex::parse`] validates it,
/// with the same messages and lines. With `others`, its other top-level keys (all but
/// `version`, `entries` and `archived`) are collected there, in order, as a whole parse
/// keeps them.
fn read_index_keeping(
    index: &dyn Content,
    limits: Limits,
    each: &mut dyn FnMut(usize, IndexEntry) -> Result<(), LogError>,
    others: Option<&mut Map<String, Value>>,
    legacy: bool,
) -> Result<IndexRead, LogError> {
    let from = bom_len(index, INDEX_FILE)?;
    let mut state = IndexState {
        each,
        stop: None,
        entries: None,
        archived: false,
        version: None,
        others,
        list_key: if legacy { LEGACY_KEY } else { "\"entries\"" },
    };
    // In memory and valid UTF-8 (what the reader would pass through): parsed from the
    // slice, with the same messages and positions. An index on disk of at most
    // [`SLICE_PARSE_UP_TO`] is read into memory for that (issue #14: the reader path costs
    // about 230 instructions a byte, the slice path a tenth of it); a larger one is parsed
    // through the reader, holding one element at a time.
    let read = match index.in_memory() {
        Some(_) => None,
        None => small_index_bytes(index, from),
    };
    let text = index
        .in_memory()
        .and_then(|all| all.get(usize::try_from(from).ok()?..))
        .or(read.as_deref())
        .and_then(|rest| std::str::from_utf8(rest).ok());
    let parsed = if let Some(text) = text {
        let mut de = serde_json::Deserializer::from_str(text);
        Top(&mut state).deserialize(&mut de).and_then(|()| de.end())
    } else {
        let reader = index.open_at(from).map_err(|e| io_error(INDEX_FILE, &e))?;
        let reader = io::BufReader::with_capacity(limits.chunk.max(1), Utf8Lines::new(reader));
        let mut de = serde_json::Deserializer::from_reader(reader);
        Top(&mut state).deserialize(&mut de).and_then(|()| de.end())
    };
    if let Some(stop) = state.stop.take() {
        return Err(stopped(index, from, stop));
    }
    if let Err(e) = parsed {
        return Err(json_error(&e));
    }
    if let (true, Some(n)) = (legacy, state.entries) {
        // A legacy index has no version to check, as a whole parse reads it.
        return Ok(IndexRead::LegacyEntries(n));
    }
    let Some(n) = state.entries else {
        if state.archived {
            return Ok(IndexRead::Legacy);
        }
        return Err(LogError::Malformed {
            file: INDEX_FILE.into(),
            line: Some(1),
            message: "no `entries` list; expected {\"version\": 1, \"entries\": [...]}".into(),
        });
    };
    let version = state.version.unwrap_or(Value::Null);
    if version.as_f64() != Some(1.0) {
        return Err(stopped(
            index,
            from,
            Stop::At {
                needle: "\"version\"",
                n: 0,
                or_needle: None,
                message: format!("unsupported version {version}; expected 1"),
            },
        ));
    }
    Ok(IndexRead::Entries(n))
}

/// The largest index on disk (past its BOM) that [`read_index_keeping`] reads into memory
/// to parse from the slice: peak memory stays within the goals at any archive size.
const SLICE_PARSE_UP_TO: u64 = super::HELD_WHOLE_UP_TO as u64;

/// The bytes of `index` from `from` on, when there are at most [`SLICE_PARSE_UP_TO`] of
/// them and they can be read; `None` leaves the parse to the reader, which then reports
/// what went wrong where a whole read reports it.
fn small_index_bytes(index: &dyn Content, from: u64) -> Option<Vec<u8>> {
    let len = index.content_len().checked_sub(from)?;
    if len > SLICE_PARSE_UP_TO {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).ok()?);
    // One byte past the limit tells a file that grew since its length was taken.
    index
        .open_at(from)
        .ok()?
        .take(SLICE_PARSE_UP_TO + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= SLICE_PARSE_UP_TO).then_some(bytes)
}

/// A JSON syntax error (or an I/O error) as the whole-file parse words it.
fn json_error(e: &serde_json::Error) -> LogError {
    if e.is_io() {
        let text = e.to_string();
        if let Some(line) = text
            .strip_prefix(UTF8_PREFIX)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<usize>().ok())
        {
            return LogError::Malformed {
                file: INDEX_FILE.into(),
                line: Some(line),
                message: "invalid UTF-8".into(),
            };
        }
        return io_error(INDEX_FILE, &io::Error::other(text));
    }
    LogError::Malformed {
        file: INDEX_FILE.into(),
        line: Some(e.line().max(1)),
        message: format!("invalid JSON: {e}"),
    }
}

/// The error a [`Stop`] stands for, its line found by a second pass when needed.
fn stopped(index: &dyn Content, from: u64, stop: Stop) -> LogError {
    match stop {
        Stop::Given(e) => e,
        Stop::At {
            needle,
            n,
            or_needle,
            message,
        } => {
            let line = line_of(index, from, needle, n)
                .or_else(|| or_needle.and_then(|o| line_of(index, from, o, 0)));
            LogError::Malformed {
                file: INDEX_FILE.into(),
                line,
                message,
            }
        }
    }
}

/// The line of the `n`-th occurrence of `needle` in the content from `from`, read in
/// pieces (`None` when it does not occur that often or cannot be read).
fn line_of(content: &dyn Content, from: u64, needle: &str, n: usize) -> Option<usize> {
    let mut r = content.open_at(from).ok()?;
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let keep = needle.len() - 1;
    let mut window: Vec<u8> = Vec::new();
    let mut newlines = 0usize;
    let mut seen = 0usize;
    let mut buf = vec![0u8; CHUNK];
    loop {
        let got = match r.read(&mut buf) {
            Ok(0) => return None,
            Ok(g) => g,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        // `window` holds the previous piece's last `keep` bytes (their newlines counted).
        let held = window.len();
        window.extend_from_slice(&buf[..got]);
        let mut counted = held;
        for at in finder.find_iter(&window) {
            if seen == n {
                newlines += memchr::memchr_iter(b'\n', &window[counted..at.max(counted)]).count();
                return Some(newlines + 1);
            }
            seen += 1;
        }
        newlines += memchr::memchr_iter(b'\n', &window[counted..]).count();
        counted = window.len();
        let cut = counted.saturating_sub(keep);
        window.drain(..cut);
    }
}

const UTF8_PREFIX: &str = "invalid UTF-8 at line ";

/// Passes bytes through, refusing invalid UTF-8 with its line (counted in `\n`, as
/// `decode_text` counts).
struct Utf8Lines<R> {
    inner: R,
    carry: Vec<u8>,
    newlines: usize,
}

impl<R: Read> Utf8Lines<R> {
    fn new(inner: R) -> Utf8Lines<R> {
        Utf8Lines {
            inner,
            carry: Vec::new(),
            newlines: 0,
        }
    }
}

impl<R: Read> Read for Utf8Lines<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let bad = |newlines: usize| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{UTF8_PREFIX}{} of the index", newlines + 1),
            )
        };
        if n == 0 {
            if !self.carry.is_empty() {
                return Err(bad(self.newlines));
            }
            return Ok(0);
        }
        let piece = &buf[..n];
        let mut joined = std::mem::take(&mut self.carry);
        joined.extend_from_slice(piece);
        match std::str::from_utf8(&joined) {
            Ok(_) => {}
            Err(e) if e.error_len().is_none() => {
                self.carry = joined[e.valid_up_to()..].to_vec();
            }
            Err(e) => {
                let line =
                    self.newlines + memchr::memchr_iter(b'\n', &joined[..e.valid_up_to()]).count();
                return Err(bad(line));
            }
        }
        let done = joined.len() - self.carry.len();
        self.newlines += memchr::memchr_iter(b'\n', &joined[..done]).count();
        Ok(n)
    }
}

/// What the index's deserializer keeps between elements.
struct IndexState<'f> {
    each: &'f mut dyn FnMut(usize, IndexEntry) -> Result<(), LogError>,
    stop: Option<Stop>,
    /// Entries of the `entries` list, once it was read.
    entries: Option<usize>,
    archived: bool,
    version: Option<Value>,
    others: Option<&'f mut Map<String, Value>>,
    /// The key of the list read element by element, quoted: `"entries"`, or
    /// [`LEGACY_KEY`] for a legacy index.
    list_key: &'static str,
}

impl IndexState<'_> {
    /// Stops the read at a key of the layout given twice (`needle`, the key quoted): a JSON
    /// parser would keep the last, and which one counts must not depend on the reader
    /// (`log::ArchiveIndex::parse` refuses it too).
    fn twice<E: de::Error>(&mut self, needle: &'static str) -> E {
        self.stop = Some(Stop::At {
            needle,
            n: 1,
            or_needle: None,
            message: format!("`{}` appears twice", needle.trim_matches('"')),
        });
        de::Error::custom("stopped")
    }
}

/// The list of a legacy index (`{"archived": [...]}`), quoted as messages look it up.
const LEGACY_KEY: &str = "\"archived\"";

/// The top-level object.
struct Top<'s, 'f>(&'s mut IndexState<'f>);

impl<'de> DeserializeSeed<'de> for Top<'_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "entries" => {
                    if self.0.entries.is_some() {
                        return Err(self.0.twice("\"entries\""));
                    }
                    let n = map.next_value_seed(List(self.0))?;
                    self.0.entries = Some(n);
                }
                "version" => {
                    if self.0.version.is_some() {
                        return Err(self.0.twice("\"version\""));
                    }
                    self.0.version = Some(map.next_value()?);
                }
                // Read as the list only when there is no `entries` list (a second pass).
                "archived" if self.0.list_key == LEGACY_KEY => {
                    if self.0.entries.is_some() {
                        return Err(self.0.twice(LEGACY_KEY));
                    }
                    self.0.archived = true;
                    let n = map.next_value_seed(List(self.0))?;
                    self.0.entries = Some(n);
                }
                "archived" => {
                    if self.0.archived {
                        return Err(self.0.twice(LEGACY_KEY));
                    }
                    self.0.archived = true;
                    map.next_value::<IgnoredAny>()?;
                }
                _ => match self.0.others.as_mut() {
                    Some(others) => {
                        // Kept to be written back: a number it cannot keep is refused, as
                        // in every JSON document the tool rewrites.
                        let raw = map.next_value::<Box<serde_json::value::RawValue>>()?;
                        super::json::refuse_inexact_numbers(raw.get().as_bytes())
                            .map_err(|e| de::Error::custom(format!("`{key}`: {e}")))?;
                        let value = serde_json::from_str(raw.get()).map_err(de::Error::custom)?;
                        others.insert(key, value);
                    }
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                },
            }
        }
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(not_object(self.0))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Err(not_object(self.0))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Err(not_object(self.0))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Err(not_object(self.0))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(not_object(self.0))
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(not_object(self.0))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(not_object(self.0))
    }
}

fn not_object<E: de::Error>(state: &mut IndexState<'_>) -> E {
    state.stop = Some(Stop::Given(LogError::Malformed {
        file: INDEX_FILE.into(),
        line: Some(1),
        message: "expected an object {\"version\": 1, \"entries\": [...]}".into(),
    }));
    E::custom("stopped")
}

/// One element of the `entries` list as [`List`] reads it: its `sha256` and `title` when
/// they are strings (the last of a key given twice, as a whole parse keeps it), nothing for
/// an element that is not an object. Every other value is still parsed as a whole read
/// parses it (the same errors), but no map of the element is built: that map was most of
/// the cost of reading an index (issue #14).
#[derive(Default)]
struct Element {
    sha256: Option<String>,
    title: Option<String>,
}

impl<'de> de::Deserialize<'de> for Element {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Element, D::Error> {
        d.deserialize_any(ElementVisitor)
    }
}

/// A key of an index element, read without copying it.
enum Field {
    Sha256,
    Title,
    Other,
}

impl<'de> de::Deserialize<'de> for Field {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Field, D::Error> {
        struct Key;
        impl Visitor<'_> for Key {
            type Value = Field;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Field, E> {
                Ok(match key {
                    "sha256" => Field::Sha256,
                    "title" => Field::Title,
                    _ => Field::Other,
                })
            }
        }
        d.deserialize_str(Key)
    }
}

struct ElementVisitor;

impl<'de> Visitor<'de> for ElementVisitor {
    type Value = Element;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an index entry")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Element, A::Error> {
        let mut element = Element::default();
        while let Some(key) = map.next_key::<Field>()? {
            let slot = match key {
                Field::Sha256 => &mut element.sha256,
                Field::Title => &mut element.title,
                Field::Other => {
                    map.next_value::<Value>()?;
                    continue;
                }
            };
            *slot = match map.next_value::<Value>()? {
                Value::String(s) => Some(s),
                _ => None,
            };
        }
        Ok(element)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Element, A::Error> {
        while seq.next_element::<Value>()?.is_some() {}
        Ok(Element::default())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Element, E> {
        Ok(Element::default())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Element, E> {
        Ok(Element::default())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Element, E> {
        Ok(Element::default())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Element, E> {
        Ok(Element::default())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Element, E> {
        Ok(Element::default())
    }
    fn visit_unit<E: de::Error>(self) -> Result<Element, E> {
        Ok(Element::default())
    }
}

/// The `entries` list.
struct List<'s, 'f>(&'s mut IndexState<'f>);

impl<'de> DeserializeSeed<'de> for List<'_, '_> {
    type Value = usize;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_any(self)
    }
}

impl List<'_, '_> {
    fn not_list<E: de::Error>(self) -> E {
        self.0.stop = Some(Stop::At {
            needle: self.0.list_key,
            n: 0,
            or_needle: None,
            message: format!("`{}` is not a list", self.0.list_key.trim_matches('"')),
        });
        E::custom("stopped")
    }
}

impl<'de> Visitor<'de> for List<'_, '_> {
    type Value = usize;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a list")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut n = 0;
        while let Some(item) = seq.next_element::<Element>()? {
            let sha = match item.sha256.as_deref() {
                Some(s) if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) => {
                    s.to_ascii_lowercase()
                }
                _ => {
                    self.0.stop = Some(Stop::At {
                        needle: "\"sha256\"",
                        n,
                        or_needle: Some(self.0.list_key),
                        message: format!("entry {} has no valid `sha256` (64 hex digits)", n + 1),
                    });
                    return Err(de::Error::custom("stopped"));
                }
            };
            let title = item.title.unwrap_or_default();
            if let Err(e) = (self.0.each)(n, IndexEntry { sha256: sha, title }) {
                self.0.stop = Some(Stop::Given(e));
                return Err(de::Error::custom("stopped"));
            }
            n += 1;
        }
        Ok(n)
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<usize, A::Error> {
        Err(self.not_list())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<usize, E> {
        Err(self.not_list())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<usize, E> {
        Err(self.not_list())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<usize, E> {
        Err(self.not_list())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<usize, E> {
        Err(self.not_list())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<usize, E> {
        Err(self.not_list())
    }
    fn visit_unit<E: de::Error>(self) -> Result<usize, E> {
        Err(self.not_list())
    }
}

/// How many bytes of the index may follow its `entries` list, and at least how many of the
/// archive's last bytes a rotation reads.
const TAIL_BYTES: u64 = 64 * 1024;

/// What [`rotate_streamed`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamedRotation {
    /// Entries moved: the archive and index change by their splices alone.
    Rotated(Box<Rotation>),
    /// The archive changes by its splice (or is new) and the index is written anew as a
    /// stream ([`Rebuilt::write_index`]): there is no index in the current layout to extend
    /// (none, or a legacy one), or its end could not be found. The rotation's
    /// [`Rotation::index`] is empty and its [`Rotation::index_len`] unknown.
    Rebuilt(Box<Rotation>, Rebuilt),
    /// Nothing to move; the archive holds this many entries.
    UpToDate {
        /// Entries in the archive.
        archived: usize,
    },
    /// Read them whole ([`super::log::rotate`]): the archive holds a code fence that never
    /// closes and the moved entries hold fence lines (appended, they could close it and
    /// change how the old entries read), or its end does not show how to append to it.
    Whole,
}

/// Rotates LOG.md onto LOG-ARCHIVE.md and its index read as streams: the pair is checked
/// entry by entry as [`super::log::rotate`] checks it whole (the same problems refuse the
/// rotation), then only their ends are read and the moved entries appended, as on the
/// proportional path. An archive without an index, or with one in the legacy layout, gets
/// a new index ([`StreamedRotation::Rebuilt`]), written as a stream. Memory holds LOG.md,
/// one archive entry and one index element at a time, not the archive.
pub fn rotate_streamed(
    log: &str,
    archive: Option<&dyn Content>,
    index: Option<&dyn Content>,
    keep: usize,
    limits: Limits,
) -> Result<StreamedRotation, LogError> {
    rotate_streamed_with(log, archive, index, keep, limits, &mut None)
}

/// [`rotate_streamed`], with the check of the archive against its index that an earlier
/// rotation of the same command made of the very same files (`checked`, when `Some`),
/// instead of reading and hashing them again; when `None`, the check made here is left
/// in it. The caller vouches that the files did not change in between.
pub fn rotate_streamed_with(
    log: &str,
    archive: Option<&dyn Content>,
    index: Option<&dyn Content>,
    keep: usize,
    limits: Limits,
    checked: &mut Option<PairCheck>,
) -> Result<StreamedRotation, LogError> {
    if keep == 0 {
        return Err(LogError::ZeroKeep);
    }
    let parsed = LogFile::parse(log);
    parsed.check_dated(LOG_FILE)?;
    let pair = match checked {
        Some(p) => p.clone(),
        None => match check_pair_as(archive, index, limits, true)? {
            Ok(p) => checked.insert(p).clone(),
            // The first pass found a legacy list the second did not.
            Err(Unstreamed::LegacyIndex) => return Err(changed_while_read()),
        },
    };
    // An archive without an index is not damage: the new index adopts its entries.
    let blocking: Vec<ArchiveProblem> = pair
        .problems
        .into_iter()
        .filter(|p| !matches!(p, ArchiveProblem::Unindexed { .. }))
        .collect();
    if !blocking.is_empty() {
        return Err(LogError::Integrity(blocking));
    }
    let fences_ok = !pair.archive.unclosed_fence;
    let extendable = pair.indexed.is_some() && !pair.legacy && pair.archive.present;
    if let (true, Some(archive), Some(index)) = (extendable, archive, index)
        && let Some(ends) = ends_of(archive, index, pair.archive.tail_from, None)?
    {
        match super::log::rotate_onto_ends(log, &ends, keep, fences_ok)? {
            Trusted::Rotated(r) => return Ok(StreamedRotation::Rotated(r)),
            Trusted::UpToDate { .. } => {
                return Ok(StreamedRotation::UpToDate {
                    archived: pair.archive.entries,
                });
            }
            Trusted::Declined => return Ok(StreamedRotation::Whole),
        }
    }
    // No index in the current layout to extend: one is written anew.
    let listed = match (pair.indexed, pair.legacy) {
        (None, _) => Listed::Adopted,
        (Some(_), false) => Listed::Current,
        (Some(_), true) => Listed::Legacy,
    };
    let before = pair.archive.entries;
    let adopted = if listed == Listed::Adopted { before } else { 0 };
    let tail;
    let end = match archive {
        Some(archive) if pair.archive.present => {
            let Some(end) = archive_end_of(archive, pair.archive.tail_from)? else {
                return Ok(StreamedRotation::Whole);
            };
            tail = end;
            Some(tail.end())
        }
        _ => None,
    };
    let (mut rotation, new) = match super::log::rotate_onto_end(&parsed, end, keep, fences_ok) {
        Onto::Declined => return Ok(StreamedRotation::Whole),
        Onto::Nothing if adopted == 0 => {
            return Ok(StreamedRotation::UpToDate { archived: before });
        }
        // Only the index changes: it adopts the archive's entries.
        Onto::Nothing => (Box::new(adopting(log, before)), Vec::new()),
        Onto::Moved(r, new) => (r, new),
    };
    rotation.adopted = adopted;
    rotation.archived = Some(before + rotation.moved);
    let rebuilt = Rebuilt {
        listed,
        new,
        before,
    };
    Ok(StreamedRotation::Rebuilt(rotation, rebuilt))
}

/// The rotation that moves nothing and only indexes the `archived` entries of an archive
/// without an index.
fn adopting(log: &str, archived: usize) -> Rotation {
    Rotation {
        log: log.to_string(),
        archive: String::new(),
        index: String::new(),
        archive_len: 0,
        index_len: 0,
        moved: 0,
        moved_entries: Vec::new(),
        kept: LogFile::parse(log).entries.len(),
        adopted: archived,
        log_changed: false,
        archive_changed: false,
        index_changed: true,
        archive_splice: None,
        index_splice: None,
        archived: Some(archived),
    }
}

/// Where the lines of a rebuilt index before the moved entries' come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listed {
    /// No index accounts for the archive (none, a blank one, or an empty legacy list):
    /// every archive entry is indexed, in archive order.
    Adopted,
    /// The old index's `entries` list, line for line.
    Current,
    /// The old index's legacy `archived` list, line for line.
    Legacy,
}

/// The index a rotation writes anew, as a stream (issue #12 item 2): the lines the old
/// index held (or, with none, one for each archive entry), then the moved entries', then
/// the old index's other keys, in the layout [`super::log::ArchiveIndex::render`] writes,
/// byte for byte what [`super::log::rotate`] writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rebuilt {
    listed: Listed,
    /// The moved entries' lines, in the order they are appended.
    new: Vec<IndexEntry>,
    /// Entries in the archive before the rotation.
    before: usize,
}

impl Rebuilt {
    /// Writes the new index to `out`, reading the old `archive` (its entries, when they are
    /// adopted) and `index` (its lines and other keys) once more as streams. `archive` must
    /// be the archive before the rotation. The outer error is a failed write, the inner one
    /// a failed read (or the files changed since they were planned).
    pub fn write_index(
        &self,
        archive: Option<&dyn Content>,
        index: Option<&dyn Content>,
        limits: Limits,
        out: &mut dyn io::Write,
    ) -> io::Result<Result<(), LogError>> {
        let mut lines = IndexLines::new(out);
        let mut others = Map::new();
        let read = match (self.listed, index) {
            (Listed::Adopted, None) => Ok(0),
            // A blank index, or a legacy one with an empty list: its other keys are kept.
            (Listed::Adopted, Some(index)) if is_blank(index).unwrap_or(false) => Ok(0),
            (listed, Some(index)) => {
                let legacy = listed != Listed::Current;
                let mut each = |_: usize, e: IndexEntry| lines.line(&e);
                match read_index_keeping(index, limits, &mut each, Some(&mut others), legacy) {
                    Ok(IndexRead::Entries(n)) if listed == Listed::Current => Ok(n),
                    Ok(IndexRead::LegacyEntries(n)) if legacy => Ok(n),
                    Ok(_) => Err(changed_while_read()),
                    Err(e) => Err(e),
                }
            }
            (_, None) => Err(changed_while_read()),
        };
        let listed = match lines.failed.take() {
            Some(e) => return Err(e),
            None => match read {
                Ok(n) => n,
                Err(e) => return Ok(Err(e)),
            },
        };
        if self.listed == Listed::Adopted {
            if listed != 0 {
                return Ok(Err(changed_while_read()));
            }
            let empty = Bytes(&[]);
            let mut entries = match Entries::new(archive.unwrap_or(&empty), limits, ARCHIVE_FILE) {
                Ok(e) => e,
                Err(e) => return Ok(Err(e)),
            };
            loop {
                match entries.next_entry() {
                    Ok(Some(e)) => lines.write(&super::log::as_index(&e))?,
                    Ok(None) => break,
                    Err(e) => return Ok(Err(e)),
                }
            }
            if entries.summary().entries != self.before {
                return Ok(Err(changed_while_read()));
            }
        }
        for e in &self.new {
            lines.write(e)?;
        }
        lines.finish(others)?;
        Ok(Ok(()))
    }

    /// The postcondition of the rotation `rot` this index belongs to, on the archive and
    /// index as they are after it (on disk, or about to be): LOG.md keeps at most `keep` entries of `log_before`, the text
    /// appended to the archive holds exactly the entries that left it, and the new pair,
    /// read as streams, holds the old entries and the moved ones, each indexed once per
    /// copy, nothing lost or duplicated.
    pub fn check(
        &self,
        rot: &Rotation,
        log_before: &str,
        archive: &dyn Content,
        index: &dyn Content,
        keep: usize,
        limits: Limits,
    ) -> Result<(), LogError> {
        if rot.archive_changed {
            let (added, new_archive) = match &rot.archive_splice {
                Some(s) => (s.text.as_str(), false),
                None => (rot.archive.as_str(), true),
            };
            super::log::check_moved(log_before, &rot.log, added, new_archive, keep)?;
        }
        let meant = self.before + rot.moved;
        let pair = match check_pair(Some(archive), Some(index), limits)? {
            Ok(p) => p,
            Err(Unstreamed::LegacyIndex) => return Err(changed_while_read()),
        };
        // The index lists the old entries (as the old archive read) and the moved ones:
        // appended text that changed how an old entry reads (a fence it closed) leaves one
        // unpaired.
        let fail = |m: String| Err(LogError::Postcondition(m));
        if pair.archive.entries != meant {
            return fail(format!(
                "{ARCHIVE_FILE} would hold {} entries, not the {meant} it held and received",
                pair.archive.entries
            ));
        }
        if !pair.problems.is_empty() || pair.indexed != Some(meant) {
            return fail(format!(
                "{INDEX_FILE} does not list exactly the entries of {ARCHIVE_FILE}"
            ));
        }
        Ok(())
    }
}

impl Rebuilt {
    /// [`Rebuilt::write_index`] into `file` from the old archive and index (left on disk,
    /// `None` when absent), in pieces. Not synced: the caller syncs the file (a
    /// [`crate::handoff::StagedFile`] does), once (issue #14: `commit` synced it twice).
    pub fn write_index_to(
        &self,
        file: &mut std::fs::File,
        old: [Option<&Streamed>; 2],
    ) -> io::Result<Result<(), LogError>> {
        let [archive, index] = old.map(|s| s.map(|s| s as &dyn Content));
        let mut out = io::BufWriter::with_capacity(CHUNK, &mut *file);
        let read = self.write_index(archive, index, Limits::default(), &mut out)?;
        io::Write::flush(&mut out)?;
        Ok(read)
    }

    /// [`Rebuilt::check`] of the index written at `staged` with the archive as the rotation
    /// `rot` leaves it: the old one (`old_archive`, on disk) with its splice, unchanged, or
    /// new.
    pub fn check_staged(
        &self,
        rot: &Rotation,
        log_before: &str,
        old_archive: Option<&Streamed>,
        staged: &std::path::Path,
        keep: usize,
    ) -> Result<(), LogError> {
        let len = std::fs::metadata(staged).map_err(|e| io_error(INDEX_FILE, &e))?;
        let new_index = Streamed::whole(staged.to_path_buf(), len.len());
        let spliced;
        let new_archive: &dyn Content = match (old_archive, &rot.archive_splice) {
            (Some(old), Some(s)) => {
                spliced = Streamed {
                    path: old.path.clone(),
                    keep: s.keep as u64,
                    tail: s.text.as_bytes().to_vec(),
                    resume: None,
                };
                &spliced
            }
            (Some(old), None) if !rot.archive_changed => old,
            _ => &Bytes(rot.archive.as_bytes()),
        };
        self.check(
            rot,
            log_before,
            new_archive,
            &new_index,
            keep,
            Limits::default(),
        )
    }
}

/// The `entries` list of an index written as a stream, each line as
/// [`super::log::ArchiveIndex::render`] writes it; the text before the list is written
/// first, the list's end and the other keys by [`IndexLines::finish`].
struct IndexLines<'w> {
    out: &'w mut dyn io::Write,
    written: usize,
    started: bool,
    /// A write that failed while a reader called [`IndexLines::line`].
    failed: Option<io::Error>,
}

impl<'w> IndexLines<'w> {
    fn new(out: &'w mut dyn io::Write) -> IndexLines<'w> {
        IndexLines {
            out,
            written: 0,
            started: false,
            failed: None,
        }
    }

    /// Writes one line.
    fn write(&mut self, e: &IndexEntry) -> io::Result<()> {
        if !self.started {
            let (before, _) = super::log::index_around_entries(Map::new());
            self.out.write_all(before.as_bytes())?;
            self.started = true;
        }
        let sep = if self.written == 0 { "\n" } else { ",\n" };
        self.out.write_all(sep.as_bytes())?;
        self.out
            .write_all(super::log::index_entry_text(e).as_bytes())?;
        self.written += 1;
        Ok(())
    }

    /// [`IndexLines::write`] for a reader's callback: a failed write stops the read, and
    /// is kept to be returned instead of the read's error.
    fn line(&mut self, e: &IndexEntry) -> Result<(), LogError> {
        self.write(e).map_err(|e| {
            self.failed = Some(e);
            changed_while_read()
        })
    }

    /// Ends the list and writes the other keys (`others`, in order) and the document's end.
    fn finish(self, others: Map<String, Value>) -> io::Result<()> {
        let (before, after) = super::log::index_around_entries(others);
        if !self.started {
            self.out.write_all(before.as_bytes())?;
        }
        if self.written > 0 {
            self.out.write_all(b"\n  ")?;
        }
        self.out.write_all(after.as_bytes())
    }
}

/// Reads `content` from `from` to its end (at most what a rotation's ends need).
fn read_from(content: &dyn Content, from: u64, file: &str) -> Result<Vec<u8>, LogError> {
    let mut out = Vec::new();
    content
        .open_at(from)
        .and_then(|mut r| r.read_to_end(&mut out))
        .map_err(|e| io_error(file, &e))?;
    Ok(out)
}

/// The ends of an archive and index: the archive from `tail_from` (the line before its last
/// line that is not blank) or its last 64 KiB, whichever is longer, and the index scanned
/// in pieces for the end of its `entries` list. `None` when they do not serve (see
/// [`super::log::rotate_onto_trusted`]).
///
/// With `index_from` (an offset and the scan of the index's bytes before it, from a cached
/// [`super::stream::PassState`] of the same bytes, issue #14), the scan resumes there.
pub fn ends_of(
    archive: &dyn Content,
    index: &dyn Content,
    tail_from: u64,
    index_from: Option<(u64, IndexScanner)>,
) -> Result<Option<TrustedEnds>, LogError> {
    let Some(ArchiveTail { len, tail, whole }) = archive_end_of(archive, tail_from)? else {
        return Ok(None);
    };
    let (start, mut scanner) = index_from.unwrap_or_default();
    // Tests arm `pass-from-start:NAME` to prove a run reads no committed prefix.
    #[cfg(feature = "failpoints")]
    if start == 0 && index.content_len() > super::stream::HEAD_BYTES as u64 {
        crate::failpoint::error(&format!("pass-from-start:{INDEX_FILE}"))
            .map_err(|e| io_error(INDEX_FILE, &e))?;
    }
    scan_index_from(index, start, &mut scanner)?;
    let Some(end): Option<IndexEnd> = scanner.finish() else {
        return Ok(None);
    };
    if index.content_len() - end.cut as u64 > TAIL_BYTES {
        return Ok(None);
    }
    let Ok(index_old_tail) = String::from_utf8(read_from(index, end.cut as u64, INDEX_FILE)?)
    else {
        return Ok(None);
    };
    Ok(Some(TrustedEnds {
        archive_len: len,
        archive_tail: tail,
        archive_whole: whole,
        index_end: end,
        index_old_tail,
    }))
}

/// Feeds an index's bytes from `start` to its end to `scanner`, in pieces.
fn scan_index_from(
    index: &dyn Content,
    start: u64,
    scanner: &mut IndexScanner,
) -> Result<(), LogError> {
    let mut r = index.open_at(start).map_err(|e| io_error(INDEX_FILE, &e))?;
    let mut buf = vec![0u8; CHUNK];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => scanner.feed(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_error(INDEX_FILE, &e)),
        }
    }
}

/// The end of an archive as [`archive_end_of`] reads it.
struct ArchiveTail {
    len: usize,
    tail: String,
    whole: bool,
}

impl ArchiveTail {
    fn end(&self) -> ArchiveEnd<'_> {
        ArchiveEnd {
            len: self.len,
            tail: &self.tail,
            whole: self.whole,
        }
    }
}

/// The archive from `tail_from` (the line before its last line that is not blank) or its
/// last 64 KiB, whichever is longer. `None` when that is not UTF-8 (it changed since it
/// was checked) or too long to address.
fn archive_end_of(archive: &dyn Content, tail_from: u64) -> Result<Option<ArchiveTail>, LogError> {
    let len = archive.content_len();
    let from = tail_from.min(len.saturating_sub(TAIL_BYTES));
    let tail = read_from(archive, from, ARCHIVE_FILE)?;
    let skip = if from == 0 {
        0
    } else {
        tail.iter()
            .take(3)
            .take_while(|b| (0x80..0xC0).contains(*b))
            .count()
    };
    let (Ok(tail), Ok(len)) = (
        String::from_utf8(tail[skip..].to_vec()),
        usize::try_from(len),
    ) else {
        return Ok(None);
    };
    Ok(Some(ArchiveTail {
        len,
        tail,
        whole: from == 0,
    }))
}

/// `archive --verify` on streams: the problems [`super::log::verify_archive`] finds, with
/// malformed input as an error, and how many entries the archive holds. An index in the
/// legacy layout is read as a stream too (issue #12 item 2).
pub fn verify_streamed(
    log: &str,
    archive: Option<&dyn Content>,
    index: Option<&dyn Content>,
    keep: usize,
    limits: Limits,
) -> Result<(Vec<ArchiveProblem>, usize), LogError> {
    let parsed = LogFile::parse(log);
    parsed.check_dated(LOG_FILE)?;
    let pair = match check_pair_as(archive, index, limits, true)? {
        Ok(p) => p,
        // The first pass found a legacy list the second did not.
        Err(Unstreamed::LegacyIndex) => return Err(changed_while_read()),
    };
    let mut problems = pair.problems;
    if parsed.entries.len() > keep {
        problems.push(ArchiveProblem::OverLimit {
            entries: parsed.entries.len(),
            keep,
        });
    }
    Ok((problems, pair.archive.entries))
}

/// Whether the index `head` extends `base`: it starts with `base`'s bytes up to the end of
/// `base`'s `entries` list, and holds one `entries` list of at least as many elements. Every
/// line the base lists is then the head's, as it was, and [`dropped_from_base`] has nothing
/// to find (issue #14: a rotation appends elements, and both indexes were read as JSON
/// streams on every commit that rotated). Both are read once, in pieces, as bytes.
pub fn extends_entries_of(base: &dyn Content, head: &dyn Content) -> Result<bool, LogError> {
    let mut scan = IndexScanner::default();
    scan_index_from(base, 0, &mut scan)?;
    let Some(end) = scan.finish() else {
        return Ok(false);
    };
    let mut buf = vec![0u8; CHUNK];
    let cut = end.cut as u64;
    if head.content_len() < cut {
        return Ok(false);
    }
    let mut ours = base
        .open_at(0)
        .map_err(|e| io_error(INDEX_FILE, &e))?
        .take(cut);
    let mut theirs = head.open_at(0).map_err(|e| io_error(INDEX_FILE, &e))?;
    let mut head_scan = IndexScanner::default();
    let mut same = vec![0u8; CHUNK];
    let mut compared = 0u64;
    loop {
        let n = match theirs.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_error(INDEX_FILE, &e)),
        };
        head_scan.feed(&buf[..n]);
        // The head's first `cut` bytes against the base's.
        let want = usize::try_from((cut - compared).min(n as u64)).unwrap_or(n);
        if want > 0 {
            ours.read_exact(&mut same[..want])
                .map_err(|e| io_error(INDEX_FILE, &e))?;
            if same[..want] != buf[..want] {
                return Ok(false);
            }
            compared += want as u64;
        }
    }
    Ok(compared == cut && head_scan.finish().is_some_and(|h| h.count >= end.count))
}

/// The index lines of a base that an index no longer lists: LOG-ARCHIVE.md is append-only,
/// so every entry the base's index lists must still be listed by `head` (counted per copy),
/// or have its place taken by an entry the head's `redactions` list records (`archive
/// --reindex`: the same heading first, then any). Both indexes are read as streams; only
/// the head's digests (and the first [`MAX_DROPPED_SHOWN`] dropped lines) are held. Returns
/// the dropped lines shown and how many were dropped (review s23 #6: a pull request that
/// deleted an archived entry with its index line passed, the pair agreeing with itself),
/// and each base line a redaction took the place of with the head entry's digest and
/// heading: the record is the head's own word, so the caller checks that the entry is a
/// redaction of that line's text (review atk42 #6: a record written by hand replaced an
/// archived entry by any text, and the gate passed it without a word).
pub fn dropped_from_base(
    base: &dyn Content,
    head: &dyn Content,
    limits: Limits,
) -> Result<DroppedFromBase, LogError> {
    // Keyed by the digests' bytes: a 20,000-entry index's hex strings took 2.6 MB here,
    // their bytes 1.2 MB (issue #14). A digest that is not lowercase hex keeps its text.
    let mut listed = Counts::default();
    let mut others = Map::new();
    let mut tally = |_: usize, e: IndexEntry| {
        *listed.entry(e.sha256) += 1;
        Ok(())
    };
    let read = read_index_keeping(head, limits, &mut tally, Some(&mut others), false)?;
    if matches!(read, IndexRead::Legacy) {
        read_index_keeping(head, limits, &mut tally, None, true)?;
    }
    let mut missing: Vec<IndexEntry> = Vec::new();
    let mut take = |_: usize, e: IndexEntry| {
        match listed.get_mut(&e.sha256) {
            Some(n) if *n > 0 => *n -= 1,
            _ => missing.push(e),
        }
        Ok(())
    };
    let read = read_index_keeping(base, limits, &mut take, None, false)?;
    if matches!(read, IndexRead::Legacy) {
        read_index_keeping(base, limits, &mut take, None, true)?;
    }
    if missing.is_empty() {
        return Ok((missing, 0, Vec::new()));
    }
    // The redacted entries the base does not list: each stands for one line it dropped.
    let mut redacted: Vec<(String, String)> = Vec::new();
    if let Some(Value::Array(records)) = others.get("redactions") {
        for r in records {
            let Some(sha) = r["sha256"].as_str() else {
                continue;
            };
            if let Some(n) = listed.get_mut(sha)
                && *n > 0
            {
                *n -= 1;
                redacted.push((
                    sha.to_string(),
                    r["title"].as_str().unwrap_or_default().to_string(),
                ));
            }
        }
    }
    let mut replaced: Vec<(IndexEntry, String, String)> = Vec::new();
    missing.retain(|m| match redacted.iter().position(|(_, t)| *t == m.title) {
        Some(i) => {
            let (sha, title) = redacted.swap_remove(i);
            replaced.push((m.clone(), sha, title));
            false
        }
        None => true,
    });
    let n = redacted.len().min(missing.len());
    for (m, (sha, title)) in missing.drain(..n).zip(redacted) {
        replaced.push((m, sha, title));
    }
    let dropped = missing.len();
    missing.truncate(MAX_DROPPED_SHOWN);
    Ok((missing, dropped, replaced))
}

/// What [`dropped_from_base`] finds: the dropped base lines shown, how many were dropped,
/// and (base line, head digest, head heading) for each line a recorded redaction took.
pub type DroppedFromBase = (Vec<IndexEntry>, usize, Vec<(IndexEntry, String, String)>);

/// The entries of an archive whose digests are `wanted`, read as a stream (only those are
/// held): what a redaction the gate checks replaced, and what replaced it.
pub fn entries_with_digests<S: std::hash::BuildHasher>(
    archive: &dyn Content,
    wanted: &std::collections::HashSet<String, S>,
    limits: Limits,
) -> Result<HashMap<String, LogEntry>, LogError> {
    let mut out = HashMap::new();
    let mut entries = Entries::new(archive, limits, ARCHIVE_FILE)?;
    while let Some(e) = entries.next_entry()? {
        if wanted.contains(e.digest_ref()) {
            out.entry(e.digest_ref().to_string()).or_insert(e);
        }
    }
    Ok(out)
}

/// How many times an index lists each digest, by the digest's 32 bytes when it is
/// lowercase hex (as a valid index's are), else by its text.
#[derive(Default)]
struct Counts {
    bytes: HashMap<[u8; 32], usize>,
    text: HashMap<String, usize>,
}

impl Counts {
    fn entry(&mut self, sha: String) -> &mut usize {
        match digest_bytes(&sha) {
            Some(d) => self.bytes.entry(d).or_default(),
            None => self.text.entry(sha).or_default(),
        }
    }

    fn get_mut(&mut self, sha: &str) -> Option<&mut usize> {
        match digest_bytes(sha) {
            Some(d) => self.bytes.get_mut(&d),
            None => self.text.get_mut(sha),
        }
    }
}

/// A SHA-256 written as 64 lowercase hex digits, as its bytes; `None` for any other text.
fn digest_bytes(hex: &str) -> Option<[u8; 32]> {
    let b = hex.as_bytes();
    if b.len() != 64 {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; 32];
    for (o, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
        *o = (digit(pair[0])? << 4) | digit(pair[1])?;
    }
    Some(out)
}

/// The digests of `wanted` that the index lists, the index read as a stream holding only
/// the matches (review s29 #5: entries that left LOG.md must be archived).
pub fn listed_in_index<S: std::hash::BuildHasher>(
    index: &dyn Content,
    wanted: &std::collections::HashSet<&str, S>,
    limits: Limits,
) -> Result<std::collections::HashSet<String>, LogError> {
    let mut found = std::collections::HashSet::new();
    let mut each = |_: usize, e: IndexEntry| {
        if wanted.contains(e.sha256.as_str()) {
            found.insert(e.sha256);
        }
        Ok(())
    };
    if matches!(
        read_index_keeping(index, limits, &mut each, None, false)?,
        IndexRead::Legacy
    ) {
        read_index_keeping(index, limits, &mut each, None, true)?;
    }
    Ok(found)
}

/// How many dropped index lines [`dropped_from_base`] names.
pub const MAX_DROPPED_SHOWN: usize = 20;

/// What the first two passes of a streamed `archive --reindex` found: the index lines the
/// archive no longer holds and the archive entries the index does not list, paired as a
/// whole read pairs them ([`super::log::reindex`]). Only those are held (a heading and a
/// digest each), with the index's other top-level keys.
#[derive(Debug)]
pub struct Unpaired {
    /// Index lines without an archive entry: (position in the index, the line).
    missing: Vec<(usize, IndexEntry)>,
    /// Positions (in the archive) of its entries without an index line.
    changed: Vec<usize>,
    /// The index's top-level keys but `version`, `entries` and `archived`, in order.
    others: Map<String, Value>,
    /// Entries in the archive.
    archived: usize,
    /// Whether the index is in the legacy layout (`{"archived": [...]}`): it is written in
    /// the current one.
    legacy: bool,
}

impl Unpaired {
    /// How many entries the archive holds.
    pub fn archived(&self) -> usize {
        self.archived
    }

    /// True when the index lists every entry of the archive and nothing else.
    pub fn is_empty(&self) -> bool {
        self.missing.is_empty() && self.changed.is_empty()
    }

    /// The digests of the index lines the archive no longer holds: the only texts a
    /// redaction can be compared with.
    pub fn wanted(&self) -> std::collections::HashSet<String> {
        self.missing.iter().map(|(_, e)| e.sha256.clone()).collect()
    }

    /// Decides, reading the archive once more, which index line each changed entry takes
    /// the place of ([`super::log::redaction_target`], in archive order as a whole read
    /// decides it), and what the index's `redactions` list becomes. Anything that is not a
    /// redaction is [`LogError::Integrity`], with the problems a whole read gives.
    pub fn plan(
        self,
        archive: &dyn Content,
        index: &dyn Content,
        original: &dyn Fn(&str) -> Option<String>,
        today: jiff::civil::Date,
        limits: Limits,
    ) -> Result<ReindexPlan, LogError> {
        let Unpaired {
            missing,
            changed,
            mut others,
            legacy,
            ..
        } = self;
        let lines: Vec<&IndexEntry> = missing.iter().map(|(_, e)| e).collect();
        let mut taken = vec![false; missing.len()];
        let mut problems = Vec::new();
        let mut pairs = Vec::new();
        let mut entries = Entries::new(archive, limits, ARCHIVE_FILE)?;
        let mut pos = 0;
        for &want in &changed {
            // Entries are read one at a time; only the changed ones are looked at.
            let e = loop {
                let Some(e) = entries.next_entry()? else {
                    return Err(changed_while_read());
                };
                pos += 1;
                if pos - 1 == want {
                    break e;
                }
            };
            match super::log::redaction_target(&e, &lines, &taken, original) {
                Ok((k, compared)) => {
                    taken[k] = true;
                    pairs.push((missing[k].0, super::log::redaction_of(&e, compared, today)));
                }
                Err(p) => problems.push(p),
            }
        }
        for (k, (_, line)) in missing.iter().enumerate() {
            if !taken[k] {
                problems.push(super::log::missing_line(line));
            }
        }
        if !problems.is_empty() {
            return Err(LogError::Integrity(problems));
        }
        let from = bom_len(index, INDEX_FILE)?;
        let mut recorded = super::log::recorded_redactions(&mut others).map_err(|()| {
            super::log::redactions_not_a_list(line_of(index, from, "\"redactions\"", 0))
        })?;
        let mut replaced = HashMap::with_capacity(pairs.len());
        let mut redactions = Vec::with_capacity(pairs.len());
        for (at, (line, record, redaction)) in pairs {
            replaced.insert(at, line);
            recorded.push(record);
            redactions.push(redaction);
        }
        others.insert("redactions".into(), Value::Array(recorded));
        Ok(ReindexPlan {
            replaced,
            others,
            redactions,
            legacy,
        })
    }
}

/// The archive or index read differently on a later pass: the command is rerun.
fn changed_while_read() -> LogError {
    LogError::Malformed {
        file: ARCHIVE_FILE.into(),
        line: None,
        message: "changed while it was read; rerun the command".into(),
    }
}

/// 3 when the content (the file named `file` in errors) starts with a BOM, else 0.
fn bom_len(content: &dyn Content, file: &str) -> Result<u64, LogError> {
    let mut head = [0u8; 3];
    let mut r = content.open_at(0).map_err(|e| io_error(file, &e))?;
    let mut got = 0;
    while got < 3 {
        match r.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_error(file, &e)),
        }
    }
    Ok(if got == 3 && head == *b"\xEF\xBB\xBF" {
        3
    } else {
        0
    })
}

/// What a streamed `archive --reindex` writes: the index lines it replaces, and the
/// index's other keys (`redactions` extended).
#[derive(Debug)]
pub struct ReindexPlan {
    /// New index lines by their position in the index.
    replaced: HashMap<usize, IndexEntry>,
    others: Map<String, Value>,
    /// The entries re-indexed, in archive order.
    pub redactions: Vec<Redaction>,
    /// Whether the old index is in the legacy layout.
    legacy: bool,
}

/// The first passes of `archive --reindex` on LOG-ARCHIVE.md and its index as streams
/// (issue #12 item 2): every archive entry dated (as [`LogFile::check_dated`] requires),
/// the index read as [`super::log::ArchiveIndex::parse`] reads it, and archive entries
/// paired with index lines by digest; what is left unpaired is returned. A legacy index
/// (`{"archived": [...]}`) is paired by its list, as a whole read pairs it, and written
/// in the current layout.
pub fn pair_for_reindex(
    archive: &dyn Content,
    index: &dyn Content,
    limits: Limits,
) -> Result<Unpaired, LogError> {
    // A whole read checks the dates before it parses the index: so does this, in a pass
    // of its own, so the same input fails with the same error.
    let mut entries = Entries::new(archive, limits, ARCHIVE_FILE)?;
    while let Some(e) = entries.next_entry()? {
        if e.date.is_none() {
            return Err(super::log::undated(ARCHIVE_FILE, &e));
        }
    }
    if entries.summary().entries == 0
        && let Some((line, heading)) = entries.stray_headings().first()
    {
        return Err(super::log::no_dated_entries(ARCHIVE_FILE, *line, heading));
    }
    let mut entries = Entries::new(archive, limits, ARCHIVE_FILE)?;
    let mut others = Map::new();
    let (read, matcher) = pair_streams(&mut entries, index, limits, Some(&mut others), true)?;
    let legacy = match read {
        IndexRead::Entries(_) => false,
        IndexRead::LegacyEntries(_) => true,
        // The first pass found a legacy list the second did not.
        IndexRead::Legacy => return Err(changed_while_read()),
    };
    let archived = entries.summary().entries;
    let (missing, forged) = matcher.unpaired();
    let missing = missing
        .into_iter()
        .map(|(pos, p)| match p {
            ArchiveProblem::Missing { sha256, title } => (pos, IndexEntry { sha256, title }),
            _ => unreachable!("the index side waits as `Missing`"),
        })
        .collect();
    Ok(Unpaired {
        missing,
        changed: forged.into_iter().map(|(pos, _)| pos).collect(),
        others,
        archived,
        legacy,
    })
}

/// Writes the re-indexed index to `out` as a stream: the index read again element by
/// element, each line written as [`super::log::ArchiveIndex::render`] writes it (the
/// planned ones replaced), then its other keys. The bytes are those a whole read renders.
/// The outer error is a failed write, the inner one a failed read.
pub fn write_reindexed(
    index: &dyn Content,
    plan: ReindexPlan,
    limits: Limits,
    out: &mut dyn io::Write,
) -> io::Result<Result<(), LogError>> {
    let ReindexPlan {
        mut replaced,
        others,
        legacy,
        ..
    } = plan;
    let mut lines = IndexLines::new(out);
    let mut each = |pos: usize, e: IndexEntry| lines.line(&replaced.remove(&pos).unwrap_or(e));
    let read = read_index_keeping(index, limits, &mut each, None, legacy);
    if let Some(e) = lines.failed.take() {
        return Err(e);
    }
    match read {
        Ok(IndexRead::Entries(_)) if !legacy => {}
        Ok(IndexRead::LegacyEntries(_)) if legacy => {}
        Ok(_) => return Ok(Err(changed_while_read())),
        Err(e) => return Ok(Err(e)),
    }
    if !replaced.is_empty() {
        return Ok(Err(changed_while_read()));
    }
    lines.finish(others)?;
    Ok(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handoff::log::{self, ArchiveIndex, append_entry, rotate, verify_archive};

    /// Small pieces and a small entry bound: every split point of the texts below is met.
    fn tiny(chunk: usize) -> Limits {
        Limits {
            chunk,
            max_entry: 4096,
        }
    }

    fn tiny_with(chunk: usize) -> Limits {
        Limits {
            chunk,
            ..Limits::default()
        }
    }

    fn entry(date: &str, n: usize) -> String {
        format!("## [{date}] agent-{n}: Session é{n}\n\n**Agent:** agent-{n}\n\n- did {n}\n")
    }

    /// An archive and index as `archive` writes them, with `n` entries.
    fn pair(n: usize) -> (String, String) {
        let mut log = String::from("# Journal\n\n---\n\n");
        for i in 1..=n + 1 {
            log = append_entry(&log, &entry(&format!("2026-01-{:02}", i % 28 + 1), i));
        }
        let rot = rotate(&log, None, None, 1).unwrap().unwrap();
        (rot.archive, rot.index)
    }

    fn streamed_entries(text: &str, limits: Limits) -> (Vec<LogEntry>, String, bool) {
        let content = Bytes(text.as_bytes());
        let mut s = Entries::new(&content, limits, ARCHIVE_FILE).unwrap();
        let mut out = Vec::new();
        while let Some(e) = s.next_entry().unwrap() {
            out.push(e);
        }
        (out, s.preamble().to_string(), s.summary().present)
    }

    /// An index extended by a rotation extends its base; one that lost, changed or moved a
    /// base element does not, and [`dropped_from_base`] then judges it.
    #[test]
    fn an_index_extends_its_base_only_with_every_base_element_kept_in_place() {
        let (_, base) = pair(30);
        let (_, head) = pair(35);
        let extends = |b: &str, h: &str| {
            extends_entries_of(&Bytes(b.as_bytes()), &Bytes(h.as_bytes())).unwrap()
        };
        // `pair` sorts by date: extend `base` as a rotation does, after its last element.
        let end = log::index_end(base.as_bytes()).unwrap();
        let grown = format!(
            "{},\n    {{\"sha256\": \"{}\", \"title\": \"new\"}}{}",
            &base[..end.cut],
            "ab".repeat(32),
            &base[end.cut..]
        );
        assert!(extends(&base, &grown));
        assert!(extends(&base, &base));
        let dropped = dropped_from_base(
            &Bytes(base.as_bytes()),
            &Bytes(grown.as_bytes()),
            Limits::default(),
        )
        .unwrap();
        assert_eq!(dropped.1, 0);
        // Anything else is read as JSON: an element changed, one removed, another list.
        let first = base.find("\"sha256\"").unwrap();
        let changed = format!(
            "{}\"sha256\": \"{}\"{}",
            &base[..first],
            "cd".repeat(32),
            &base[first + 76..]
        );
        assert!(!extends(&base, &changed));
        assert!(!extends(&base, &head) || head.starts_with(&base[..end.cut]));
        assert!(!extends(&grown, &base));
        let twice = format!(
            "{}, \"entries\": []}}\n",
            base.trim_end().trim_end_matches('}')
        );
        assert!(!extends(&base, &twice));
    }

    #[test]
    fn entries_read_in_pieces_are_the_entries_of_a_whole_parse() {
        let fenced = "## [2026-01-02] a: fenced\n\n```\n## [2026-01-03] in code\n```\n\n---\n\n";
        let unclosed = "## [2026-01-04] b: stray fence\r\n\r\n~~~~ never closed\r\n## [2026-01-05] c: still an entry\r\n";
        let texts = [
            format!("\u{feff}# Archive\r\n\r\n## not dated\r\n\r\n{fenced}{unclosed}"),
            format!("# A\r## [2026-01-01] x: lone CRs\r- a\r\r---\r{fenced}"),
            format!(
                "{}{}",
                pair(7).0,
                "```\n## [2026-02-01] y: after an open fence\n"
            ),
            "no entries at all\n".to_string(),
            String::new(),
            "  \n\t\n".to_string(),
            "## [2026-13-45] z: not a calendar date\n".to_string(),
        ];
        for text in &texts {
            let whole = log::LogFile::parse(text);
            for chunk in [1, 2, 3, 5, 64, 4096] {
                let (entries, preamble, present) = streamed_entries(text, tiny(chunk));
                assert_eq!(entries, whole.entries, "chunk {chunk} of {text:?}");
                assert_eq!(preamble, whole.preamble, "chunk {chunk}");
                assert_eq!(present, !text.trim().is_empty());
            }
        }
    }

    /// Content that counts the bytes its readers hand out.
    struct Counted<'a>(&'a [u8], std::cell::Cell<u64>);

    impl Content for Counted<'_> {
        fn content_len(&self) -> u64 {
            self.0.len() as u64
        }

        fn open_at(&self, at: u64) -> io::Result<Box<dyn Read + '_>> {
            let at = usize::try_from(at).unwrap().min(self.0.len());
            self.1.set(self.1.get() + (self.0.len() - at) as u64);
            Ok(Box::new(&self.0[at..]))
        }
    }

    #[test]
    fn fences_that_never_close_are_read_ahead_once_and_entries_stay_those_of_a_whole_parse() {
        // Fences of falling length never close (a closer is at least as long): each used to
        // read ahead to the end, n reads of the rest of the file.
        let mut text = String::from("# A\n\n## [2026-01-01] a: fences\n\n");
        for i in 0..300 {
            text.push_str(&"`".repeat(303 - i));
            text.push('\n');
        }
        // Closed pairs and an entry after them are still found, as a whole parse finds them.
        text.push_str("~~~\n## [2026-01-02] in code\n~~~\n\n## [2026-01-03] b: after\n");
        let counted = Counted(text.as_bytes(), std::cell::Cell::new(0));
        let mut s = Entries::new(&counted, Limits::default(), ARCHIVE_FILE).unwrap();
        let mut got = Vec::new();
        while let Some(e) = s.next_entry().unwrap() {
            got.push(e);
        }
        assert_eq!(got, log::LogFile::parse(&text).entries);
        assert_eq!(got.len(), 2);
        assert!(s.summary().unclosed_fence);
        let read = counted.1.get();
        assert!(
            read <= 3 * text.len() as u64,
            "{read} bytes read of {}",
            text.len()
        );
    }

    /// Content that counts the readers opened on it.
    struct Opens<'a>(&'a dyn Content, std::cell::Cell<usize>);

    impl Content for Opens<'_> {
        fn content_len(&self) -> u64 {
            self.0.content_len()
        }

        fn open_at(&self, at: u64) -> io::Result<Box<dyn Read + '_>> {
            self.1.set(self.1.get() + 1);
            self.0.open_at(at)
        }
    }

    #[test]
    fn closed_fences_open_no_reader_and_errors_ahead_name_the_files_line() {
        // Each fence used to open a reader at its line (a file open and a 64 KiB read).
        let mut text = String::from("# A\n\n## [2026-01-01] a: fences\n\n");
        for i in 0..2000 {
            text.push_str(if i % 2 == 0 {
                "```\ncode\n```\n"
            } else {
                "~~~~\r\nx\r\n~~~~\r\n"
            });
        }
        text.push_str("## [2026-01-02] b: after\n");
        for chunk in [7, 4096, CHUNK] {
            let counted = Counted(text.as_bytes(), std::cell::Cell::new(0));
            let opens = Opens(&counted, std::cell::Cell::new(0));
            let mut s = Entries::new(&opens, tiny_with(chunk), ARCHIVE_FILE).unwrap();
            let mut got = Vec::new();
            while let Some(e) = s.next_entry().unwrap() {
                got.push(e);
            }
            assert_eq!(got, log::LogFile::parse(&text).entries, "chunk {chunk}");
            // Only a fence whose closer lies past what was read opens a reader.
            let most = text.len().div_ceil(chunk) + 1;
            assert!(
                opens.1.get() <= most,
                "chunk {chunk}: {} readers",
                opens.1.get()
            );
        }
        // A read ahead that meets bad input names the line in the file.
        let bad = b"# A\n\n## [2026-01-01] a\n\n```\nx\n\xff\n";
        let content = Bytes(bad);
        let mut s = Entries::new(&content, Limits::default(), ARCHIVE_FILE).unwrap();
        let err = loop {
            match s.next_entry() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("no error"),
                Err(e) => break e,
            }
        };
        assert!(
            matches!(err, LogError::Malformed { line: Some(7), .. }),
            "{err:?}"
        );
    }

    #[test]
    fn an_archive_on_disk_is_read_across_the_end_of_what_it_keeps() {
        let (archive, _) = pair(40);
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a");
        let whole = log::LogFile::parse(&archive).entries;
        for cut in [0, 1, 100, archive.len() / 2, archive.len()] {
            std::fs::write(&path, &archive.as_bytes()[..cut]).unwrap();
            let s = Streamed {
                path: path.clone(),
                keep: cut as u64,
                tail: archive.as_bytes()[cut..].to_vec(),
                resume: None,
            };
            let mut e = Entries::new(&s, tiny(7), ARCHIVE_FILE).unwrap();
            let mut got = Vec::new();
            while let Some(x) = e.next_entry().unwrap() {
                got.push(x);
            }
            assert_eq!(got, whole, "cut at {cut}");
        }
    }

    #[test]
    fn an_archive_larger_than_any_buffer_is_read_and_an_oversized_entry_refused() {
        // 300 entries, each far below the bound, together far above it and the piece size.
        let (archive, index) = pair(300);
        let limits = Limits {
            chunk: 512,
            max_entry: 1024,
        };
        assert!(archive.len() > 20 * limits.max_entry && index.len() > 20 * limits.max_entry);
        let a = Bytes(archive.as_bytes());
        let i = Bytes(index.as_bytes());
        let check = check_pair(Some(&a), Some(&i), limits).unwrap().unwrap();
        assert!(check.problems.is_empty());
        assert_eq!((check.archive.entries, check.indexed), (300, Some(300)));
        let big = format!(
            "{archive}## [2026-03-01] big: entry\n{}",
            "xx\n".repeat(500)
        );
        let err = check_pair(Some(&Bytes(big.as_bytes())), Some(&i), limits).unwrap_err();
        assert!(err.to_string().contains("larger than 1024 bytes"), "{err}");
    }

    fn problems_both_ways(archive: &str, index: &str) {
        let whole = verify_archive("", Some(archive), Some(index), 10);
        for chunk in [1, 3, 17, 4096] {
            let got = check_pair(
                Some(&Bytes(archive.as_bytes())),
                Some(&Bytes(index.as_bytes())),
                tiny(chunk),
            )
            .unwrap()
            .unwrap();
            assert_eq!(got.problems, whole, "chunk {chunk}");
        }
    }

    #[test]
    fn the_pair_check_finds_what_a_whole_read_finds() {
        let (archive, index) = pair(6);
        problems_both_ways(&archive, &index);
        // A BOM and CRLF line endings in the index; keys cut anywhere by the pieces.
        let crlf = format!("\u{feff}{}", index.replace('\n', "\r\n"));
        problems_both_ways(&archive, &crlf);
        // Forged (an entry edited), missing (one deleted), duplicated (one copied twice).
        let parsed = log::LogFile::parse(&archive);
        let edited = archive.replacen("- did 3", "- did 33", 1);
        problems_both_ways(&edited, &index);
        let deleted = archive.replacen(&parsed.entries[2].raw, "", 1);
        problems_both_ways(&deleted, &index);
        let copied = format!("{archive}{}", parsed.entries[1].raw);
        problems_both_ways(&copied, &index);
        // The index in the opposite order: everything pairs, late.
        let mut idx = ArchiveIndex::parse(&index).unwrap();
        idx.entries.reverse();
        problems_both_ways(&archive, &idx.render());
        // Two identical entries, one indexed.
        let twice = format!(
            "{archive}{}{}",
            parsed.entries[0].raw, parsed.entries[0].raw
        );
        problems_both_ways(&twice, &index);
        // Elements with keys the tool does not own, nested values included, and a key
        // given twice (the last one counts): each element is read as a whole read reads it.
        let extra = index.replacen(
            "\"sha256\": ",
            "\"note\": {\"by\": [1, 2.5, null, \"x\"]}, \"sha256\": \"0\", \"sha256\": ",
            2,
        );
        problems_both_ways(&archive, &extra);
        let title_twice = index.replacen("\"title\": ", "\"title\": 7, \"title\": ", 1);
        problems_both_ways(&archive, &title_twice);
        // No index: unindexed.
        let got = check_pair(Some(&Bytes(archive.as_bytes())), None, tiny(5))
            .unwrap()
            .unwrap();
        assert_eq!(got.problems, verify_archive("", Some(&archive), None, 10));
    }

    /// `archive --reindex` of `archive` and `index` as streams (pieces of `chunk` bytes):
    /// the new index text and redactions, `None` when nothing is to do.
    fn reindex_streamed(
        archive: &str,
        index: &str,
        original: &dyn Fn(&str) -> Option<String>,
        chunk: usize,
    ) -> Result<Option<(String, Vec<Redaction>)>, LogError> {
        let today: jiff::civil::Date = "2026-02-01".parse().unwrap();
        let (a, i) = (Bytes(archive.as_bytes()), Bytes(index.as_bytes()));
        let unpaired = pair_for_reindex(&a, &i, tiny(chunk))?;
        if unpaired.is_empty() {
            return Ok(None);
        }
        let plan = unpaired.plan(&a, &i, original, today, tiny(chunk))?;
        let redactions = plan.redactions.clone();
        let mut out = Vec::new();
        write_reindexed(&i, plan, tiny(chunk), &mut out).unwrap()?;
        Ok(Some((String::from_utf8(out).unwrap(), redactions)))
    }

    #[test]
    fn a_streamed_reindex_writes_the_bytes_a_whole_reindex_writes() {
        let (archive, index) = pair(6);
        let originals: HashMap<String, String> = LogFile::parse(&archive)
            .entries
            .into_iter()
            .map(|e| (e.digest(), e.text))
            .collect();
        let known = |d: &str| originals.get(d).cloned();
        let unknown = |_: &str| None;
        let redact =
            |a: &str, n: usize| a.replace(&format!("- did {n}\n"), "- did [redacted: ключ]\n");
        let with_keys = |i: &str, front: &str, back: &str| {
            let body = i.trim_start().strip_prefix('{').unwrap();
            let body = body.trim_end().strip_suffix('}').unwrap();
            format!("{{{front}{body},{back}}}\n")
        };
        let cases: Vec<(&str, String, String)> = vec![
            ("unchanged", archive.clone(), index.clone()),
            ("one redaction", redact(&archive, 3), index.clone()),
            (
                "two redactions",
                redact(&redact(&archive, 2), 5),
                index.clone(),
            ),
            (
                "CRLF archive, BOM on the index",
                redact(&archive, 4).replace('\n', "\r\n"),
                format!("\u{feff}{index}"),
            ),
            (
                "other keys and an earlier redaction kept in place",
                redact(&archive, 3),
                with_keys(
                    &index,
                    "\"note\": {\"a\": [1, 2.5, \"é\"]}, ",
                    "\"redactions\": [{\"sha256\": \"x\"}], \"z\": null, \"entries2\": []",
                ),
            ),
            (
                "an index on one line",
                redact(&archive, 2),
                serde_json::to_string(&serde_json::from_str::<Value>(&index).unwrap()).unwrap(),
            ),
            (
                "an edit that is no redaction",
                archive.replace("- did 3\n", "- did three\n"),
                index.clone(),
            ),
            (
                "a deleted entry",
                archive.replace("## [2026-01-04] agent-3", "removed"),
                index.clone(),
            ),
            (
                "redactions that are no list",
                redact(&archive, 3),
                with_keys(&index, "", "\"redactions\": 7"),
            ),
            (
                "an undated entry",
                archive.replace("## [2026-01-04]", "## [2026-13-04]"),
                index.clone(),
            ),
            (
                "malformed JSON",
                archive.clone(),
                index.replace("\"title\"", "title"),
            ),
        ];
        let (mut reindexed, mut refused) = (0, 0);
        for (what, archive, index) in &cases {
            for original in [&known as &dyn Fn(&str) -> Option<String>, &unknown] {
                let today: jiff::civil::Date = "2026-02-01".parse().unwrap();
                let whole = log::reindex(archive, index, original, today)
                    .map(|r| r.map(|r| (r.index, r.redactions)));
                match &whole {
                    Ok(Some(_)) => reindexed += 1,
                    Err(_) => refused += 1,
                    Ok(None) => {}
                }
                for chunk in [1, 7, 64 * 1024] {
                    let streamed = reindex_streamed(archive, index, original, chunk);
                    assert_eq!(streamed, whole, "{what}, pieces of {chunk}");
                }
            }
        }
        // The cases above re-index (with and without the originals) and refuse, both ways.
        assert_eq!((reindexed, refused), (10, 10));
        let re = log::reindex(
            &cases[4].1,
            &cases[4].2,
            &known,
            "2026-02-01".parse().unwrap(),
        );
        assert!(re.unwrap().unwrap().index.contains("\"z\": null"));
    }

    #[test]
    fn a_malformed_index_is_named_at_the_line_a_whole_read_names() {
        let (archive, index) = pair(3);
        let bad_sha = index.replacen("\"sha256\": \"", "\"sha256\": \"zz", 2);
        let cases = [
            bad_sha,
            index.replacen("\"version\": 1", "\"version\": 2", 1),
            index.replacen("},", "}", 1),
            "[1, 2]".to_string(),
            "{\"version\": 1, \"entries\": {}}".to_string(),
            "{\"version\": 1}".to_string(),
            // Elements that are not objects, a digest that is not a string.
            "{\"version\": 1, \"entries\": [\"x\"]}".to_string(),
            "{\"version\": 1, \"entries\": [[{\"sha256\": 1}]]}".to_string(),
            index.replacen("\"sha256\": ", "\"sha256\": 1, \"x\": ", 1),
            // A key of the layout twice: a JSON parser keeps the last, so which list (or
            // version) counts would depend on the reader; both refuse it.
            index.replacen("\"version\": 1", "\"version\": 2, \"version\": 1", 1),
            index.replacen("\"version\": 1", "\"version\": 1,\n\"entries\": []", 1),
            index.replacen(
                "\"version\": 1",
                "\"archived\": 1, \"version\": 1, \"archived\": 2",
                1,
            ),
        ];
        for case in &cases {
            let whole = verify_archive("", Some(&archive), Some(case), 10);
            let got = check_pair(
                Some(&Bytes(archive.as_bytes())),
                Some(&Bytes(case.as_bytes())),
                tiny(4),
            )
            .unwrap_err();
            let [log::ArchiveProblem::Malformed { line, message, .. }] = whole.as_slice() else {
                panic!("{whole:?}")
            };
            let LogError::Malformed {
                line: l,
                message: m,
                ..
            } = got
            else {
                panic!("{got:?}")
            };
            assert_eq!((l, &m), (*line, message), "{case}");
        }
        // A number no reader can hold, in a key of an element the tool does not own, is
        // invalid JSON as in a whole read (whose column counts differently).
        let huge = index.replacen("\"sha256\": ", "\"n\": 1e999, \"sha256\": ", 1);
        let got = check_pair(
            Some(&Bytes(archive.as_bytes())),
            Some(&Bytes(huge.as_bytes())),
            tiny(4),
        )
        .unwrap_err();
        assert!(
            matches!(&got, LogError::Malformed { line: Some(5), message, .. }
                if message.starts_with("invalid JSON: number out of range")),
            "{got:?}"
        );
        let legacy = "{\"archived\": []}";
        assert_eq!(
            check_pair(None, Some(&Bytes(legacy.as_bytes())), tiny(4)).unwrap(),
            Err(Unstreamed::LegacyIndex)
        );
    }

    #[test]
    fn a_legacy_index_is_verified_as_a_stream_as_a_whole_read_verifies_it() {
        let (archive, index) = pair(5);
        let lines = ArchiveIndex::parse(&index).unwrap().entries;
        let legacy_of = |lines: &[IndexEntry]| {
            let list: Vec<Value> = lines
                .iter()
                .map(|e| serde_json::json!({"sha256": e.sha256, "title": e.title, "date": "x"}))
                .collect();
            serde_json::to_string_pretty(&serde_json::json!({"updated": "x", "archived": list}))
                .unwrap()
        };
        let cases = [
            ("listing every entry", archive.clone(), legacy_of(&lines)),
            ("one line dropped", archive.clone(), legacy_of(&lines[1..])),
            (
                "an entry edited",
                archive.replace("- did 3\n", "- did three\n"),
                legacy_of(&lines),
            ),
            ("empty, with entries", archive.clone(), legacy_of(&[])),
            ("empty, no archive", String::new(), legacy_of(&[])),
            (
                "not a list",
                archive.clone(),
                "{\"x\": 1,\n \"archived\": {}}".to_string(),
            ),
            (
                "a bad digest",
                archive.clone(),
                legacy_of(&lines).replacen("\"sha256\": \"", "\"sha256\": \"zz", 2),
            ),
            (
                "an `entries` list beside it",
                archive.clone(),
                index.replacen('{', "{\"archived\": [],", 1),
            ),
        ];
        for (what, archive, index) in &cases {
            let whole = verify_archive("", Some(archive), Some(index), 10);
            for chunk in [3, 64 * 1024] {
                let streamed = match verify_streamed(
                    "",
                    Some(&Bytes(archive.as_bytes())),
                    Some(&Bytes(index.as_bytes())),
                    10,
                    tiny(chunk),
                ) {
                    Ok((problems, _)) => problems,
                    Err(LogError::Malformed {
                        file,
                        line,
                        message,
                    }) => vec![ArchiveProblem::Malformed {
                        file,
                        line,
                        message,
                    }],
                    Err(e) => panic!("{what}: {e}"),
                };
                assert_eq!(streamed, whole, "{what}, pieces of {chunk}");
            }
        }
        // The plain pair check leaves a legacy list to the callers that read one.
        let legacy = legacy_of(&lines);
        assert_eq!(
            check_pair(
                Some(&Bytes(archive.as_bytes())),
                Some(&Bytes(legacy.as_bytes())),
                tiny(4)
            )
            .unwrap(),
            Err(Unstreamed::LegacyIndex)
        );
    }

    /// A LOG.md of four entries newer than [`pair`]'s and one older, holding a code fence.
    fn log_to_rotate() -> String {
        let mut log = String::from("# Journal\n\n---\n\n");
        for i in 1..=4 {
            log = append_entry(&log, &entry(&format!("2026-02-0{i}"), 100 + i));
        }
        append_entry(&log, "## [2026-01-30] f: fenced\n\n```\ncode\n```\n")
    }

    #[test]
    fn a_streamed_rotation_appends_what_a_whole_rotation_appends() {
        let (archive, index) = pair(9);
        // A moved entry with a code fence: appended too, the old archive has no open fence.
        let log = log_to_rotate();
        let whole = rotate(&log, Some(&archive), Some(&index), 2)
            .unwrap()
            .unwrap();
        for chunk in [1, 7, 4096] {
            let got = rotate_streamed(
                &log,
                Some(&Bytes(archive.as_bytes())),
                Some(&Bytes(index.as_bytes())),
                2,
                tiny(chunk),
            )
            .unwrap();
            let StreamedRotation::Rotated(r) = got else {
                panic!("{got:?}")
            };
            assert_eq!(r.log, whole.log);
            assert_eq!(r.archive_splice, whole.archive_splice);
            assert_eq!(r.index_splice, whole.index_splice);
            assert_eq!(r.moved_entries, whole.moved_entries);
            assert_eq!(r.archived, Some(9 + 3));
        }
        // A damaged pair is refused as a whole rotation refuses it.
        let edited = archive.replacen("- did 3", "- did 4", 1);
        let streamed = rotate_streamed(
            &log,
            Some(&Bytes(edited.as_bytes())),
            Some(&Bytes(index.as_bytes())),
            2,
            tiny(64),
        );
        assert_eq!(
            streamed.unwrap_err(),
            rotate(&log, Some(&edited), Some(&index), 2).unwrap_err()
        );
        // An archive holding a fence that never closes: fences are not appended.
        let open = archive.replacen("---", "```", 1);
        let got = rotate_streamed(
            &log,
            Some(&Bytes(open.as_bytes())),
            Some(&Bytes(index.as_bytes())),
            2,
            tiny(64),
        )
        .unwrap();
        assert_eq!(got, StreamedRotation::Whole);
    }

    /// The rotation [`rotate_streamed`] plans for `log` onto `archive` and `index` in pieces
    /// of `chunk` bytes, written out: LOG.md, the archive and the index as they become, and
    /// the entries moved and adopted. `None` when nothing moves.
    #[expect(
        clippy::type_complexity,
        reason = "the three texts and two counts compared"
    )]
    fn rebuilt_streamed(
        log: &str,
        archive: Option<&str>,
        index: Option<&str>,
        chunk: usize,
    ) -> Result<Option<(String, String, String, Vec<log::MovedEntry>, usize)>, LogError> {
        let a = archive.map(|t| Bytes(t.as_bytes()));
        let i = index.map(|t| Bytes(t.as_bytes()));
        let (a, i) = (a.as_ref(), i.as_ref());
        let (a, i) = (a.map(|c| c as &dyn Content), i.map(|c| c as &dyn Content));
        let (rot, plan) = match rotate_streamed(log, a, i, 2, tiny(chunk))? {
            StreamedRotation::Rebuilt(rot, plan) => (rot, plan),
            StreamedRotation::UpToDate { .. } => return Ok(None),
            other => panic!("not rebuilt: {other:?}"),
        };
        let mut out = Vec::new();
        plan.write_index(a, i, tiny(chunk), &mut out).unwrap()?;
        let new_archive = match &rot.archive_splice {
            Some(s) => format!("{}{}", &archive.unwrap_or_default()[..s.keep], s.text),
            None if rot.archive_changed => rot.archive.clone(),
            None => archive.unwrap_or_default().to_string(),
        };
        plan.check(
            &rot,
            log,
            &Bytes(new_archive.as_bytes()),
            &Bytes(&out),
            2,
            tiny(chunk),
        )?;
        let index = String::from_utf8(out).unwrap();
        Ok(Some((
            rot.log,
            new_archive,
            index,
            rot.moved_entries,
            rot.adopted,
        )))
    }

    #[test]
    fn a_rotation_that_builds_a_new_index_writes_as_a_stream_the_bytes_a_whole_rotation_writes() {
        // Issue #12 item 2: an archive without an index, with a legacy one, or with one whose
        // end a scan cannot find gets its new index written as a stream, not read whole.
        let (archive, index) = pair(7);
        let log = log_to_rotate();
        let lines = ArchiveIndex::parse(&index).unwrap().entries;
        let legacy_of = |lines: &[IndexEntry], extra: &str| {
            let list: Vec<Value> = lines
                .iter()
                .map(|e| serde_json::json!({"sha256": e.sha256, "title": e.title, "date": "x"}))
                .collect();
            let doc = serde_json::json!({"updated": "x", "archived": list});
            let text = serde_json::to_string_pretty(&doc).unwrap();
            text.replacen('{', &format!("{{{extra}"), 1)
        };
        // Other keys after `entries`, too long for the end a splice reads (64 KiB).
        let long_end = index.trim_end().strip_suffix('}').unwrap().to_string()
            + &format!(",\n  \"notes\": \"{}\"\n}}\n", "n".repeat(70 * 1024));
        let short_log = append_entry("# Journal\n\n", &entry("2026-03-01", 1));
        let mut plain_log = String::from("# Journal\n\n");
        for i in 1..=4 {
            plain_log = append_entry(&plain_log, &entry(&format!("2026-02-0{i}"), 100 + i));
        }
        let cases: Vec<(&str, &str, Option<String>, Option<String>)> = vec![
            ("no index", &log, Some(archive.clone()), None),
            (
                "a blank index",
                &log,
                Some(archive.clone()),
                Some(" \n".into()),
            ),
            (
                "a CRLF archive and no index",
                &log,
                Some(archive.replace('\n', "\r\n")),
                None,
            ),
            (
                "a legacy index listing every entry",
                &log,
                Some(archive.clone()),
                Some(legacy_of(&lines, "")),
            ),
            (
                "a legacy index with an empty list and another key",
                &log,
                Some(archive.clone()),
                Some(legacy_of(&[], "\"kept\": [1, \"é\"], ")),
            ),
            (
                "an index with a long end",
                &log,
                Some(archive.clone()),
                Some(long_end),
            ),
            (
                "an empty index and no archive",
                &log,
                None,
                Some("{\"version\": 1, \"entries\": []}".into()),
            ),
            ("a blank archive", &log, Some("\n\n".into()), None),
            (
                "a fence that never closes, no fence moved",
                &plain_log,
                Some(archive.replacen("---", "```", 1)),
                None,
            ),
            (
                "nothing to move, an archive to adopt",
                &short_log,
                Some(archive.clone()),
                None,
            ),
        ];
        for (what, log, archive, index) in &cases {
            let whole = rotate(log, archive.as_deref(), index.as_deref(), 2).unwrap();
            let whole = whole.map(|r| (r.log, r.archive, r.index, r.moved_entries, r.adopted));
            for chunk in [1, 7, 4096] {
                let got = rebuilt_streamed(log, archive.as_deref(), index.as_deref(), chunk);
                if what.contains("long end") || what.contains("empty index") {
                    // A whole rotation splices these indexes; rewritten, they hold the same.
                    let (mut got, mut whole) = (got.unwrap().unwrap(), whole.clone().unwrap());
                    let json = |t: &str| serde_json::from_str::<Value>(t).unwrap();
                    assert_eq!(json(&got.2), json(&whole.2), "{what}, pieces of {chunk}");
                    assert_eq!(got.2, ArchiveIndex::parse(&whole.2).unwrap().render());
                    (got.2, whole.2) = (String::new(), String::new());
                    assert_eq!(got, whole, "{what}, pieces of {chunk}");
                    continue;
                }
                assert_eq!(got.as_ref(), Ok(&whole), "{what}, pieces of {chunk}");
            }
        }
        // A legacy index that does not list an entry refuses the rotation as a whole read
        // refuses it, with the same problems.
        let short = legacy_of(&lines[1..], "");
        let a = Bytes(archive.as_bytes());
        let i = Bytes(short.as_bytes());
        assert_eq!(
            rotate_streamed(&log, Some(&a), Some(&i), 2, tiny(5)).unwrap_err(),
            rotate(&log, Some(&archive), Some(&short), 2).unwrap_err()
        );
    }

    #[test]
    fn a_rebuilt_index_is_checked_against_the_archive_it_will_index() {
        // The check before anything is put in place: an index that lost a line, or an
        // archive that changed since the plan, fails it; the files as planned pass.
        let (archive, _) = pair(5);
        let mut log = String::from("# Journal\n\n");
        for i in 1..=3 {
            log = append_entry(&log, &entry(&format!("2026-02-0{i}"), 100 + i));
        }
        let a = Bytes(archive.as_bytes());
        let StreamedRotation::Rebuilt(rot, plan) =
            rotate_streamed(&log, Some(&a), None, 1, tiny(64)).unwrap()
        else {
            panic!("not rebuilt")
        };
        let mut index = Vec::new();
        plan.write_index(Some(&a), None, tiny(64), &mut index)
            .unwrap()
            .unwrap();
        let splice = rot.archive_splice.as_ref().unwrap();
        let after = format!("{archive}{}", splice.text);
        let check = |archive: &str, index: &[u8]| {
            plan.check(
                &rot,
                &log,
                &Bytes(archive.as_bytes()),
                &Bytes(index),
                1,
                tiny(64),
            )
        };
        assert_eq!(check(&after, &index), Ok(()));
        let text = String::from_utf8(index.clone()).unwrap();
        let mut parsed = ArchiveIndex::parse(&text).unwrap();
        parsed.entries.remove(2);
        let err = check(&after, parsed.render().as_bytes()).unwrap_err();
        assert!(matches!(err, LogError::Postcondition(_)), "{err:?}");
        let edited = after.replacen("- did 2\n", "- did two\n", 1);
        let err = check(&edited, &index).unwrap_err();
        assert!(matches!(err, LogError::Postcondition(_)), "{err:?}");
        // An archive that lost an entry since the plan is not adopted from.
        let shorter = archive.replacen(&LogFile::parse(&archive).entries[1].raw, "", 1);
        let got = plan.write_index(
            Some(&Bytes(shorter.as_bytes())),
            None,
            tiny(64),
            &mut Vec::new(),
        );
        assert!(got.unwrap().is_err());
    }
}
