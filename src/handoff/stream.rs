//! Files read as streams rather than held in memory (issue #12 item 2): LOG-ARCHIVE.md and
//! its index on `archive`'s proportional path. One pass in fixed-size pieces gives what the
//! manifest records of a file (its AAHP checksum and line count) and what its summary needs
//! (its first bytes; whether the summary section's marker occurs at all; the index's entry
//! count), so their size is bounded by the disk, not by memory.

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::log::{IndexEnd, IndexScanner};
use super::{hex, open_regular};
use crate::error::{Error, Result};

/// Bytes read at a time.
const PIECE: usize = 64 * 1024;
/// How many of a file's first bytes a pass keeps (for its summary).
pub const HEAD_BYTES: usize = 256 * 1024;
/// The marker that opens a file's summary section.
pub const SUMMARY_OPEN: &str = "<!-- SECTION: summary -->";

/// A file left on disk rather than read into a [`super::Snapshot`]: its first `keep` bytes,
/// followed by `tail` (text a command is about to append, empty otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Streamed {
    /// Where it is.
    pub path: PathBuf,
    /// How many of its bytes belong to the content.
    pub keep: u64,
    /// What follows them.
    pub tail: Vec<u8>,
    /// A [`Pass`]'s state after the file's first bytes, when they are known to be the
    /// bytes it was computed from (issue #14: `archive` resumes from HEAD's archive, see
    /// [`PassState`]); a [`Streamed::pass`] then reads the file from there.
    pub resume: Option<PassState>,
}

/// What tells a file's versions apart without reading it: device, inode, length, and the
/// modification and change times to the nanosecond. A write changes the change time, which
/// no caller can set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp([i64; 7]);

impl Stamp {
    /// The stamp of the file at `path` (not following a symbolic link); `None` when it
    /// cannot be read.
    pub fn of(path: &std::path::Path) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::symlink_metadata(path).ok()?;
        #[allow(clippy::cast_possible_wrap)]
        Some(Stamp([
            m.dev() as i64,
            m.ino() as i64,
            m.size() as i64,
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        ]))
    }
}

impl Streamed {
    /// The whole file at `path`, `len` bytes long.
    pub fn whole(path: PathBuf, len: u64) -> Streamed {
        Streamed {
            path,
            keep: len,
            tail: Vec::new(),
            resume: None,
        }
    }

    /// The content's length in bytes.
    pub fn len(&self) -> u64 {
        self.keep + self.tail.len() as u64
    }

    /// True when the content is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Feeds the content to `sink` in pieces of at most [`PIECE`] bytes. `shown` names the
    /// file in errors; a file shorter than `keep`, or no longer a regular file, is an error.
    fn each_piece(&self, shown: &str, sink: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        self.each_piece_from(0, shown, sink)
    }

    /// [`Streamed::each_piece`] from byte `from` of the content (at most `keep`) on.
    fn each_piece_from(
        &self,
        from: u64,
        shown: &str,
        mut sink: impl FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        use std::io::{Seek, SeekFrom};
        let read_err = |source| Error::Read {
            path: shown.to_string(),
            source,
        };
        if self.keep > from {
            let (mut file, _) = open_regular(&self.path, shown)?;
            if from > 0 {
                file.seek(SeekFrom::Start(from)).map_err(read_err)?;
            }
            let mut left = self.keep - from;
            let mut reader = file.take(left);
            let mut buf = vec![0u8; PIECE];
            while left > 0 {
                let n = match reader.read(&mut buf) {
                    Ok(0) => {
                        return Err(Error::invalid(
                            shown,
                            None,
                            "changed while it was read (it got shorter); rerun the command",
                        ));
                    }
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(source) => return Err(read_err(source)),
                };
                sink(&buf[..n])?;
                left -= n as u64;
            }
        }
        for piece in self.tail.chunks(PIECE) {
            sink(piece)?;
        }
        Ok(())
    }

    /// The whole content in memory, refused (exit 2) above `limit` bytes with a message
    /// naming the file, its size and the limit, then `why` (why this step needs it whole,
    /// and what to do): for the few steps a stream cannot do.
    pub fn read_all(&self, shown: &str, limit: usize, why: &str) -> Result<Vec<u8>> {
        // Tests arm `read-whole:NAME` to prove a command never holds that file in memory.
        read_failpoint("read-whole", shown)?;
        if self.len() > limit as u64 {
            return Err(Error::invalid(
                shown,
                None,
                format!(
                    "file is {} bytes, more than the {limit} bytes git-aahp holds in memory; {why}",
                    self.len()
                ),
            ));
        }
        let mut out = Vec::with_capacity(usize::try_from(self.len()).unwrap_or(0));
        self.each_piece(shown, |p| {
            out.extend_from_slice(p);
            Ok(())
        })?;
        Ok(out)
    }

    /// The AAHP checksum of the content (`sha256:` over its bytes without CRs), read once
    /// in pieces; like [`super::checksum`], it does not ask for UTF-8.
    pub fn checksum(&self, shown: &str) -> Result<String> {
        let mut hasher = Sha256::new();
        self.each_piece(shown, |piece| {
            let mut start = 0;
            for cr in memchr::memchr_iter(b'\r', piece) {
                hasher.update(&piece[start..cr]);
                start = cr + 1;
            }
            hasher.update(&piece[start..]);
            Ok(())
        })?;
        Ok(format!("sha256:{}", hex(&hasher.finalize())))
    }

    /// Reads the content once. Invalid UTF-8 is exit 2 naming the file and line, as for a
    /// file read whole. With a [`Streamed::resume`] state that fits (taken after at least
    /// the first [`HEAD_BYTES`] and at most `keep` bytes, with the index scan when one is
    /// asked for), only the first [`HEAD_BYTES`] and the bytes after the state are read.
    pub fn pass(&self, shown: &str, scan_index: bool) -> Result<Pass> {
        let resumed = self
            .resume
            .as_ref()
            .filter(|st| {
                st.at >= HEAD_BYTES as u64
                    && st.at <= self.keep
                    && (!scan_index || st.scanner.is_some())
            })
            .map(|st| -> Result<Option<Run>> {
                let mut head = Vec::with_capacity(HEAD_BYTES);
                Streamed {
                    path: self.path.clone(),
                    keep: HEAD_BYTES as u64,
                    tail: Vec::new(),
                    resume: None,
                }
                .each_piece(shown, |p| {
                    head.extend_from_slice(p);
                    Ok(())
                })?;
                Ok(Run::resume(st, head, scan_index))
            })
            .transpose()?
            .flatten();
        let from = resumed.as_ref().map_or(0, |r| r.at);
        if from == 0 && self.keep > HEAD_BYTES as u64 {
            from_start(shown)?;
        }
        let mut run = resumed.unwrap_or_else(|| Run::new(scan_index));
        self.each_piece_from(from, shown, |piece| run.feed(shown, piece))?;
        run.finish(shown, self.len())
    }

    /// The state of a [`Streamed::pass`] after the content's first `upto` bytes (at most
    /// `keep`), for a later pass over content that starts with the same bytes to resume
    /// from (see [`PassState`]). Reads those bytes once.
    pub fn prefix_state(&self, shown: &str, upto: u64, scan_index: bool) -> Result<PassState> {
        from_start(shown)?;
        let prefix = Streamed {
            path: self.path.clone(),
            keep: upto.min(self.keep),
            tail: Vec::new(),
            resume: None,
        };
        let mut run = Run::new(scan_index);
        prefix.each_piece(shown, |piece| run.feed(shown, piece))?;
        Ok(run.state())
    }
}

/// A read of a file's bytes from its start, past its first [`HEAD_BYTES`]. Tests arm
/// `pass-from-start:NAME` to prove a run reads no committed prefix of that file.
fn from_start(shown: &str) -> Result<()> {
    read_failpoint("pass-from-start", shown)
}

/// The fail point `KIND:NAME` of a read of the file `shown` (only with the `failpoints`
/// feature): an error reading it.
#[cfg_attr(not(feature = "failpoints"), allow(clippy::unnecessary_wraps))]
fn read_failpoint(kind: &str, shown: &str) -> Result<()> {
    #[cfg(feature = "failpoints")]
    crate::failpoint::error(&format!("{kind}:{}", super::file_name(shown))).map_err(|source| {
        Error::Read {
            path: shown.to_string(),
            source,
        }
    })?;
    #[cfg(not(feature = "failpoints"))]
    let _ = (kind, shown);
    Ok(())
}

/// The running state of a [`Streamed::pass`].
struct Run {
    hasher: Sha256,
    /// Bytes fed so far.
    at: u64,
    lines: usize,
    head: Vec<u8>,
    utf8: Utf8Check,
    marker: MarkerSearch,
    scanner: Option<BomGate>,
}

impl Run {
    fn new(scan_index: bool) -> Run {
        Run {
            hasher: Sha256::new(),
            at: 0,
            lines: 0,
            head: Vec::new(),
            utf8: Utf8Check::default(),
            marker: MarkerSearch::new(SUMMARY_OPEN.as_bytes()),
            scanner: scan_index.then(BomGate::default),
        }
    }

    fn feed(&mut self, shown: &str, piece: &[u8]) -> Result<()> {
        if let Err(valid) = self.utf8.feed(piece) {
            let line = self.lines + super::line_count(&piece[..valid]) + 1;
            return Err(Error::invalid(shown, Some(line), "invalid UTF-8"));
        }
        let mut start = 0;
        for cr in memchr::memchr_iter(b'\r', piece) {
            self.hasher.update(&piece[start..cr]);
            start = cr + 1;
        }
        self.hasher.update(&piece[start..]);
        self.lines += super::line_count(piece);
        if self.head.len() < HEAD_BYTES {
            let room = HEAD_BYTES - self.head.len();
            self.head.extend_from_slice(&piece[..piece.len().min(room)]);
        }
        self.marker.feed(piece);
        if let Some(s) = self.scanner.as_mut() {
            s.feed(piece);
        }
        self.at += piece.len() as u64;
        Ok(())
    }

    fn finish(self, shown: &str, len: u64) -> Result<Pass> {
        if !self.utf8.finish() {
            return Err(Error::invalid(shown, Some(self.lines + 1), "invalid UTF-8"));
        }
        Ok(Pass {
            checksum: format!("sha256:{}", hex(&self.hasher.finalize())),
            lines: self.lines,
            whole: self.head.len() as u64 == len,
            head: self.head,
            marker_seen: self.marker.seen,
            index_end: self.scanner.and_then(BomGate::finish),
        })
    }

    fn state(&self) -> PassState {
        use sha2::digest::common::hazmat::SerializableState;
        PassState {
            at: self.at,
            sha: self.hasher.serialize().to_vec(),
            lines: self.lines,
            carry: self.utf8.carry.clone(),
            marker_seen: self.marker.seen,
            window: self.marker.window.clone(),
            // A scan whose BOM gate is still closed (a content of under three bytes) is
            // not kept: such a state is never resumed from.
            scanner: self
                .scanner
                .as_ref()
                .filter(|g| g.open)
                .map(|g| g.scanner.clone()),
        }
    }

    /// The run `st` describes, with the content's first bytes `head`; `None` when the
    /// state does not decode.
    fn resume(st: &PassState, mut head: Vec<u8>, scan_index: bool) -> Option<Run> {
        use sha2::digest::common::hazmat::{SerializableState, SerializedState};
        let serialized = SerializedState::<Sha256>::try_from(st.sha.as_slice()).ok()?;
        let hasher = Sha256::deserialize(&serialized).ok()?;
        head.truncate(HEAD_BYTES);
        let mut marker = MarkerSearch::new(SUMMARY_OPEN.as_bytes());
        marker.seen = st.marker_seen;
        marker.window.clone_from(&st.window);
        let scanner = if scan_index {
            Some(BomGate {
                held: Vec::new(),
                open: true,
                scanner: st.scanner.clone()?,
            })
        } else {
            None
        };
        Some(Run {
            hasher,
            at: st.at,
            lines: st.lines,
            head,
            utf8: Utf8Check {
                carry: st.carry.clone(),
            },
            marker,
            scanner,
        })
    }
}

/// Bytes before the end of a committed file at which its pass state is kept: a splice (an
/// index's closing bytes are replaced) keeps more of the file than this.
const RESUME_SLACK: u64 = 64 * 1024;

/// Where the [`PassState`] of a committed file `len` bytes long is kept: a multiple of 4 KiB
/// within [`RESUME_SLACK`] of its end, after its first [`HEAD_BYTES`] (which a resumed
/// pass reads anyway); `None` for a file too small to gain from one.
pub fn resume_point(len: u64) -> Option<u64> {
    let at = len.saturating_sub(RESUME_SLACK) / 4096 * 4096;
    (at >= HEAD_BYTES as u64).then_some(at)
}

/// The state of a [`Streamed::pass`] after the first `at` bytes of `bytes` (a blob read
/// whole), as [`Streamed::prefix_state`] gives it from a file holding them; `None` when
/// they are not UTF-8 up to there (a pass then refuses the file) or are fewer than `at`.
pub fn state_of(bytes: &[u8], at: u64, scan_index: bool) -> Option<PassState> {
    let prefix = bytes.get(..usize::try_from(at).ok()?)?;
    let mut run = Run::new(scan_index);
    for piece in prefix.chunks(PIECE) {
        run.feed("", piece).ok()?;
    }
    Some(run.state())
}

/// The state of a [`Streamed::pass`] after a content's first `at` bytes: a later pass over
/// content that starts with those same bytes (an archive that only grew) resumes from it
/// and reads only what follows (issue #14: `archive` costs what it appends). Whoever
/// resumes must know the bytes are the same: `archive` keeps these by the blob id of
/// HEAD's file, and uses one only for a file the git index shows equal to that blob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassState {
    /// Bytes of the content read.
    pub at: u64,
    /// The SHA-256 state, serialized.
    sha: Vec<u8>,
    lines: usize,
    /// The bytes of a character cut at `at`.
    carry: Vec<u8>,
    marker_seen: bool,
    /// The last bytes before `at`, where the marker may start.
    window: Vec<u8>,
    /// The index scan after the BOM gate opened (when one was asked for).
    scanner: Option<IndexScanner>,
}

impl PassState {
    /// Whether it holds an index scan.
    pub fn has_scan(&self) -> bool {
        self.scanner.is_some()
    }

    /// Its offset and index scan, when that scan read every byte before the offset (no BOM
    /// was skipped): what a scan of the raw bytes from the start would be there.
    pub fn raw_scan(&self) -> Option<(u64, IndexScanner)> {
        let s = self.scanner.as_ref()?;
        (s.offset() as u64 == self.at).then(|| (self.at, s.clone()))
    }

    /// One line of text without spaces at its ends (see [`PassState::decode`]).
    pub fn encode(&self) -> String {
        let bytes = |b: &[u8]| {
            if b.is_empty() {
                "-".to_string()
            } else {
                hex(b)
            }
        };
        let scanner = self.scanner.as_ref().map_or_else(
            || "-".to_string(),
            |s| {
                s.to_fields()
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            },
        );
        format!(
            "{} {} {} {} {} {} {scanner}",
            self.at,
            self.lines,
            u8::from(self.marker_seen),
            bytes(&self.carry),
            bytes(&self.window),
            hex(&self.sha),
        )
    }

    /// The state [`PassState::encode`] wrote; `None` for anything else.
    pub fn decode(text: &str) -> Option<PassState> {
        let &[at, lines, seen, carry, window, sha, scanner] =
            text.split(' ').collect::<Vec<_>>().as_slice()
        else {
            return None;
        };
        let bytes = |h: &str| -> Option<Vec<u8>> {
            if h == "-" {
                return Some(Vec::new());
            }
            if !h.len().is_multiple_of(2) || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            (0..h.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&h[i..i + 2], 16).ok())
                .collect()
        };
        let number = |n: &str| -> Option<u64> {
            (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                .then(|| n.parse().ok())
                .flatten()
        };
        let carry = bytes(carry)?;
        let window = bytes(window)?;
        let sha = bytes(sha)?;
        if carry.len() > 3 || window.len() >= SUMMARY_OPEN.len() || sha.is_empty() {
            return None;
        }
        Some(PassState {
            at: number(at)?,
            lines: usize::try_from(number(lines)?).ok()?,
            marker_seen: match seen {
                "0" => false,
                "1" => true,
                _ => return None,
            },
            carry,
            window,
            sha,
            scanner: if scanner == "-" {
                None
            } else {
                let fields = scanner.split(',').map(number).collect::<Option<Vec<_>>>()?;
                Some(IndexScanner::from_fields(&fields)?)
            },
        })
    }
}

/// What one pass over a streamed file found.
#[derive(Debug, Clone)]
pub struct Pass {
    /// The AAHP checksum (`sha256:` over the bytes without CRs).
    pub checksum: String,
    /// Line count as `wc -l` gives it.
    pub lines: usize,
    /// The first [`HEAD_BYTES`] bytes (valid UTF-8 but perhaps cut inside a character).
    pub head: Vec<u8>,
    /// Whether `head` is the whole content.
    pub whole: bool,
    /// Whether [`SUMMARY_OPEN`] occurs anywhere in it.
    pub marker_seen: bool,
    /// The index's `entries` list end (its count), when asked for and found.
    pub index_end: Option<IndexEnd>,
}

impl Pass {
    /// The head cut after its last complete line (all of it when it is the whole file).
    pub fn head_lines(&self) -> &str {
        let end = if self.whole {
            self.head.len()
        } else {
            memchr::memrchr(b'\n', &self.head).map_or(0, |i| i + 1)
        };
        std::str::from_utf8(&self.head[..end]).unwrap_or_default()
    }
}

/// Incremental UTF-8 validation: a character cut between two pieces is completed by the
/// next one.
#[derive(Debug, Default)]
struct Utf8Check {
    carry: Vec<u8>,
}

impl Utf8Check {
    /// Checks the next piece; `Err(n)`: the first `n` bytes of the piece are valid, the
    /// next is not.
    fn feed(&mut self, piece: &[u8]) -> std::result::Result<(), usize> {
        let mut rest = piece;
        if !self.carry.is_empty() {
            // Complete the character cut at the end of the previous piece.
            let mut used = 0;
            while let Some(&b) = rest.get(used) {
                self.carry.push(b);
                used += 1;
                match std::str::from_utf8(&self.carry) {
                    Ok(_) => break,
                    Err(e) if e.error_len().is_some() => return Err(0),
                    Err(_) if self.carry.len() >= 4 => return Err(0),
                    Err(_) => {}
                }
            }
            if std::str::from_utf8(&self.carry).is_err() {
                // The piece ended before the character did.
                return Ok(());
            }
            self.carry.clear();
            rest = &rest[used..];
        }
        match std::str::from_utf8(rest) {
            Ok(_) => Ok(()),
            Err(e) if e.error_len().is_none() => {
                self.carry.extend_from_slice(&rest[e.valid_up_to()..]);
                Ok(())
            }
            Err(e) => Err(piece.len() - rest.len() + e.valid_up_to()),
        }
    }

    /// True when the content did not end inside a character.
    fn finish(&self) -> bool {
        self.carry.is_empty()
    }
}

/// Whether a byte string occurs in a stream, found across piece boundaries.
struct MarkerSearch {
    finder: memchr::memmem::Finder<'static>,
    keep: usize,
    window: Vec<u8>,
    seen: bool,
}

impl MarkerSearch {
    fn new(needle: &'static [u8]) -> MarkerSearch {
        MarkerSearch {
            finder: memchr::memmem::Finder::new(needle),
            keep: needle.len().saturating_sub(1),
            window: Vec::new(),
            seen: false,
        }
    }

    fn feed(&mut self, piece: &[u8]) {
        if self.seen {
            return;
        }
        // The end of the previous piece, then this one's start: a needle cut in two.
        let joint = piece.len().min(self.keep);
        self.window.extend_from_slice(&piece[..joint]);
        if self.finder.find(&self.window).is_some() || self.finder.find(piece).is_some() {
            self.seen = true;
            return;
        }
        if piece.len() >= self.keep {
            self.window.clear();
            self.window
                .extend_from_slice(&piece[piece.len() - self.keep..]);
        } else {
            let drop = self.window.len().saturating_sub(self.keep);
            self.window.drain(..drop);
        }
    }
}

/// Feeds an [`IndexScanner`] the content without a leading BOM, as the index's summary
/// reads it.
#[derive(Default)]
struct BomGate {
    held: Vec<u8>,
    open: bool,
    scanner: IndexScanner,
}

impl BomGate {
    const BOM: &'static [u8] = b"\xEF\xBB\xBF";

    fn feed(&mut self, piece: &[u8]) {
        if self.open {
            self.scanner.feed(piece);
            return;
        }
        self.held.extend_from_slice(piece);
        if self.held.len() >= Self::BOM.len() {
            self.release();
        }
    }

    fn release(&mut self) {
        self.open = true;
        let held = std::mem::take(&mut self.held);
        self.scanner
            .feed(held.strip_prefix(Self::BOM).unwrap_or(&held));
    }

    fn finish(mut self) -> Option<IndexEnd> {
        if !self.open {
            self.release();
        }
        self.scanner.finish()
    }
}

/// True when the regular file at `path` is `keep + text.len()` bytes long and ends, from
/// byte `keep` on, with `text`: an in-place append checked without reading what it kept.
pub fn ends_with_at(path: &Path, keep: u64, text: &[u8]) -> bool {
    use std::io::{Seek, SeekFrom};
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.len() != keep + text.len() as u64 {
        return false;
    }
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    if file.seek(SeekFrom::Start(keep)).is_err() {
        return false;
    }
    let mut buf = vec![0u8; PIECE];
    let mut at = 0;
    loop {
        match file.read(&mut buf) {
            Ok(0) => return at == text.len(),
            Ok(n) => {
                if text.get(at..at + n) != Some(&buf[..n]) {
                    return false;
                }
                at += n;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index of `n` copies of `entry`, after a BOM.
    fn index_doc(entry: &str, n: usize) -> String {
        format!(
            "\u{feff}{{\n  \"version\": 1,\n  \"entries\": [\n{}\n  ]\n}}\n",
            vec![entry; n].join(",\n")
        )
    }

    fn streamed(dir: &Path, on_disk: &[u8], keep: u64, tail: &[u8]) -> Streamed {
        let path = dir.join("f");
        std::fs::write(&path, on_disk).unwrap();
        Streamed {
            path,
            keep,
            tail: tail.to_vec(),
            resume: None,
        }
    }

    #[test]
    fn a_pass_gives_what_the_whole_text_gives() {
        let tmp = tempfile::tempdir().unwrap();
        let mut text = String::from("\u{feff}# Archive\r\n\r\n");
        text.extend((0..20_000).map(|i| format!("## [2026-01-01] a: é {i} ✓\r\n\r\n---\r\n")));
        text.push_str(SUMMARY_OPEN);
        let bytes = text.as_bytes();
        // Cut the content between what is on disk and what is appended, mid-character too.
        for cut in [0, 1, 2, 5, PIECE - 1, PIECE, 300_001, bytes.len()] {
            let s = streamed(tmp.path(), &bytes[..cut], cut as u64, &bytes[cut..]);
            let pass = s.pass("f", false).unwrap();
            assert_eq!(pass.checksum, super::super::checksum(bytes));
            assert_eq!(s.checksum("f").unwrap(), pass.checksum);
            assert_eq!(pass.lines, super::super::line_count(bytes));
            assert!(pass.marker_seen);
            assert!(!pass.whole);
            assert_eq!(pass.head, bytes[..HEAD_BYTES]);
            assert!(pass.head_lines().ends_with('\n'));
        }
        let short = streamed(tmp.path(), b"abc", 2, b"");
        let pass = short.pass("f", false).unwrap();
        assert_eq!(pass.checksum, super::super::checksum(b"ab"));
        assert!(pass.whole && !pass.marker_seen);
    }

    #[test]
    fn a_pass_resumed_from_a_saved_state_gives_what_a_whole_pass_gives() {
        let tmp = tempfile::tempdir().unwrap();
        // An index (scanned) and an archive with CRs, characters of several bytes, a BOM,
        // and the summary marker cut by a piece boundary or after the state.
        let entry =
            "    {\r\n      \"sha256\": \"é0\",\r\n      \"title\": \"## ✓ \\\" x\"\r\n    }";
        let index = index_doc(entry, 9000);
        let mut archive = String::from("\u{feff}# Archive\r\n");
        archive.extend((0..12_000).map(|i| format!("## [2026-01-01] a: é {i} ✓\r\n\r\n---\r\n")));
        archive.push_str(SUMMARY_OPEN);
        archive.push_str("\n## tail ✓\n");
        for (text, scan) in [(&index, true), (&archive, false)] {
            let bytes = text.as_bytes();
            let keep = bytes.len() - 20;
            let path = tmp.path().join("f");
            std::fs::write(&path, &bytes[..keep]).unwrap();
            let whole = Streamed {
                path: path.clone(),
                keep: keep as u64,
                tail: bytes[keep..].to_vec(),
                resume: None,
            };
            let expected = whole.pass("f", scan).unwrap();
            assert_eq!(expected.checksum, super::super::checksum(bytes));
            let marker_at = memchr::memmem::find(bytes, SUMMARY_OPEN.as_bytes());
            let mut cuts = vec![HEAD_BYTES, HEAD_BYTES + 1, PIECE * 5 + 3, keep - 1, keep];
            cuts.extend(marker_at.map(|m| m + 5));
            for at in cuts {
                let state = whole.prefix_state("f", at as u64, scan).unwrap();
                assert_eq!(state.at, at as u64);
                // From a blob held in memory, the same state.
                assert_eq!(state_of(bytes, at as u64, scan).as_ref(), Some(&state));
                // What the cache keeps reads back as the same state.
                let state = PassState::decode(&state.encode()).unwrap();
                let resumed = Streamed {
                    resume: Some(state),
                    ..whole.clone()
                };
                let got = resumed.pass("f", scan).unwrap();
                assert_eq!(got.checksum, expected.checksum, "{at}");
                assert_eq!(got.lines, expected.lines, "{at}");
                assert_eq!(got.head, expected.head, "{at}");
                assert_eq!(got.whole, expected.whole, "{at}");
                assert_eq!(got.marker_seen, expected.marker_seen, "{at}");
                assert_eq!(got.index_end, expected.index_end, "{at}");
            }
        }
        // A state before the head, past the kept bytes, or without the scan a pass asks
        // for is not resumed from: the pass reads the content from its start.
        let bytes = index.as_bytes();
        let path = tmp.path().join("g");
        std::fs::write(&path, bytes).unwrap();
        let s = Streamed::whole(path, bytes.len() as u64);
        let expected = s.pass("g", true).unwrap();
        for (at, scan) in [(100, true), (HEAD_BYTES as u64 + 10, false)] {
            let resumed = Streamed {
                resume: Some(s.prefix_state("g", at, scan).unwrap()),
                ..s.clone()
            };
            assert_eq!(
                resumed.pass("g", true).unwrap().index_end,
                expected.index_end
            );
        }
        let mut beyond = s.prefix_state("g", bytes.len() as u64, true).unwrap();
        beyond.at += 1;
        let resumed = Streamed {
            resume: Some(beyond),
            ..s.clone()
        };
        assert_eq!(resumed.pass("g", true).unwrap().checksum, expected.checksum);
    }

    #[test]
    fn a_pass_state_decodes_only_from_what_it_encodes() {
        let tmp = tempfile::tempdir().unwrap();
        let text = "{\"version\": 1, \"entries\": [{\"a\": \"é\"}]}\n".repeat(3);
        let s = streamed(tmp.path(), text.as_bytes(), text.len() as u64, b"");
        let state = s.prefix_state("f", 30, true).unwrap();
        let line = state.encode();
        assert_eq!(PassState::decode(&line), Some(state));
        assert!(!line.contains('\n') && !line.starts_with(' ') && !line.ends_with(' '));
        let fields: Vec<&str> = line.split(' ').collect();
        for i in 0..fields.len() {
            let mut bad = fields.clone();
            bad[i] = "x";
            assert_eq!(PassState::decode(&bad.join(" ")), None, "{i}");
        }
        assert_eq!(PassState::decode(&fields[..6].join(" ")), None);
        assert_eq!(PassState::decode(""), None);
    }

    #[test]
    fn invalid_utf8_is_refused_with_its_line_and_a_short_file_as_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let mut bytes = "ok\n".repeat(30_000).into_bytes();
        bytes.extend_from_slice(b"bad \xC3\n");
        let s = streamed(tmp.path(), &bytes, bytes.len() as u64, b"");
        // A checksum does not ask for UTF-8, as for a file read whole.
        assert_eq!(s.checksum("f").unwrap(), super::super::checksum(&bytes));
        let err = s.pass("f", false).unwrap_err().to_string();
        assert!(
            err.contains("f:30001") && err.contains("invalid UTF-8"),
            "{err}"
        );
        // A character cut at the end of the content.
        let s = streamed(tmp.path(), b"x\xC3", 2, b"");
        assert!(s.pass("f", false).is_err());
        // A character completed by the appended text is fine.
        let s = streamed(tmp.path(), b"x\xC3", 2, b"\xA9\n");
        assert_eq!(s.pass("f", false).unwrap().lines, 1);
        let s = streamed(tmp.path(), b"abc", 10, b"");
        assert!(
            s.pass("f", false)
                .unwrap_err()
                .to_string()
                .contains("changed")
        );
    }

    #[test]
    fn the_index_count_is_found_after_a_bom_and_across_pieces() {
        let tmp = tempfile::tempdir().unwrap();
        let entry = "    {\n      \"sha256\": \"00\",\n      \"title\": \"## x\"\n    }";
        let doc = index_doc(entry, 3000);
        for cut in [0, 1, 3, 4, PIECE + 7] {
            let b = doc.as_bytes();
            let s = streamed(tmp.path(), &b[..cut], cut as u64, &b[cut..]);
            assert_eq!(
                s.pass("f", true).unwrap().index_end.map(|e| e.count),
                Some(3000)
            );
        }
    }

    #[test]
    fn an_append_is_checked_from_where_it_starts() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        std::fs::write(&path, b"old new").unwrap();
        assert!(ends_with_at(&path, 4, b"new"));
        assert!(!ends_with_at(&path, 4, b"nex"));
        assert!(!ends_with_at(&path, 3, b"new"));
    }
}
