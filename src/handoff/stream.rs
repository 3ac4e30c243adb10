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
}

impl Streamed {
    /// The whole file at `path`, `len` bytes long.
    pub fn whole(path: PathBuf, len: u64) -> Streamed {
        Streamed {
            path,
            keep: len,
            tail: Vec::new(),
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
    fn each_piece(&self, shown: &str, mut sink: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        let read_err = |source| Error::Read {
            path: shown.to_string(),
            source,
        };
        if self.keep > 0 {
            let (file, _) = open_regular(&self.path, shown)?;
            let mut left = self.keep;
            let mut reader = file.take(self.keep);
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
        #[cfg(feature = "failpoints")]
        crate::failpoint::error(&format!("read-whole:{}", super::file_name(shown))).map_err(
            |source| Error::Read {
                path: shown.to_string(),
                source,
            },
        )?;
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
    /// file read whole.
    pub fn pass(&self, shown: &str, scan_index: bool) -> Result<Pass> {
        let mut hasher = Sha256::new();
        let mut lines = 0usize;
        let mut head = Vec::new();
        let mut utf8 = Utf8Check::default();
        let mut marker = MarkerSearch::new(SUMMARY_OPEN.as_bytes());
        let mut scanner = scan_index.then(BomGate::default);
        self.each_piece(shown, |piece| {
            if let Err(valid) = utf8.feed(piece) {
                let line = lines + super::line_count(&piece[..valid]) + 1;
                return Err(Error::invalid(shown, Some(line), "invalid UTF-8"));
            }
            let mut start = 0;
            for cr in memchr::memchr_iter(b'\r', piece) {
                hasher.update(&piece[start..cr]);
                start = cr + 1;
            }
            hasher.update(&piece[start..]);
            lines += super::line_count(piece);
            if head.len() < HEAD_BYTES {
                let room = HEAD_BYTES - head.len();
                head.extend_from_slice(&piece[..piece.len().min(room)]);
            }
            marker.feed(piece);
            if let Some(s) = scanner.as_mut() {
                s.feed(piece);
            }
            Ok(())
        })?;
        if !utf8.finish() {
            return Err(Error::invalid(shown, Some(lines + 1), "invalid UTF-8"));
        }
        Ok(Pass {
            checksum: format!("sha256:{}", hex(&hasher.finalize())),
            lines,
            whole: head.len() as u64 == self.len(),
            head,
            marker_seen: marker.seen,
            index_end: scanner.and_then(BomGate::finish),
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

    fn streamed(dir: &Path, on_disk: &[u8], keep: u64, tail: &[u8]) -> Streamed {
        let path = dir.join("f");
        std::fs::write(&path, on_disk).unwrap();
        Streamed {
            path,
            keep,
            tail: tail.to_vec(),
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
        let doc = format!(
            "\u{feff}{{\n  \"version\": 1,\n  \"entries\": [\n{}\n  ]\n}}\n",
            vec![entry; 3000].join(",\n")
        );
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
