//! Values computed from a blob, cached by blob id in the git directory (issue #14): AAHP
//! checksums (a file whose staged blob git already knows is not inflated and hashed again)
//! and `o200k` token counts (a file that did not change is not counted again). It owns the
//! cache files only; which values are looked up is its callers' business.
//!
//! A blob id names its content, so no content change can reuse a stale entry. The files are
//! safe to delete: a missing, unreadable or damaged cache only costs the work it saved, and
//! lines that do not have the exact shape are ignored.

use std::collections::HashMap;
use std::path::PathBuf;

use gix::ObjectId;

use super::stream::PassState;
use crate::git::Repo;
use crate::lint::LintCut;

/// The checksum cache file's name inside `<git dir>/aahp/`.
pub const FILE: &str = "checksums";
/// The token count cache file's name inside `<git dir>/aahp/`.
pub const TOKENS_FILE: &str = "token-counts";
/// The pass state cache file's name inside `<git dir>/aahp/`.
pub const PASS_STATES_FILE: &str = "pass-states";
/// The lint cut cache file's name inside `<git dir>/aahp/`.
pub const LINT_CUTS_FILE: &str = "lint-cuts";
/// Entries kept; the oldest go first. Each is about 115 bytes.
const MAX_ENTRIES: usize = 2048;

/// What a cache holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `sha256:` and 64 hex digits.
    Checksums,
    /// A decimal count and a check of the line: see [`count_check`].
    TokenCounts,
    /// A [`PassState`] after a blob's committed bytes and a check of the line: see
    /// [`state_check`].
    PassStates,
    /// A [`LintCut`] near a blob's end and a check of the line (as [`Kind::PassStates`]).
    LintCuts,
}

impl Kind {
    fn file(self) -> &'static str {
        match self {
            Kind::Checksums => FILE,
            Kind::TokenCounts => TOKENS_FILE,
            Kind::PassStates => PASS_STATES_FILE,
            Kind::LintCuts => LINT_CUTS_FILE,
        }
    }

    /// First line of the file; another version is ignored as a whole.
    fn header(self) -> &'static str {
        match self {
            Kind::Checksums => "aahp checksum cache v1",
            Kind::TokenCounts => "aahp o200k token count cache v1",
            Kind::PassStates => "aahp pass state cache v1",
            // A cut is one where the lint of this version leaves nothing open: another
            // version's cuts are not taken. v2: no link reference definition lies before a
            // cut (a v1 cut could lie past one, review atk47 #1).
            Kind::LintCuts => concat!("aahp lint cut cache v2 ", env!("CARGO_PKG_VERSION")),
        }
    }

    fn is_value(self, v: &str) -> bool {
        match self {
            Kind::Checksums => v.strip_prefix("sha256:").is_some_and(|h| is_hex(h, &[64])),
            Kind::TokenCounts => v.split_once(' ').is_some_and(|(n, check)| {
                (1..=20).contains(&n.len())
                    && n.bytes().all(|b| b.is_ascii_digit())
                    && n.parse::<usize>().is_ok()
                    && is_hex(check, &[16])
            }),
            Kind::PassStates | Kind::LintCuts => v
                .rsplit_once(' ')
                .is_some_and(|(state, check)| is_hex(check, &[16]) && !state.is_empty()),
        }
    }
}

/// One cache of one repository.
#[derive(Debug)]
pub struct BlobCache {
    kind: Kind,
    /// Where it is saved; `None` keeps it in memory.
    path: Option<PathBuf>,
    /// Entries in file order (oldest first), new ones appended.
    order: Vec<String>,
    sums: HashMap<String, String>,
    dirty: bool,
}

/// The checksum cache.
pub type ChecksumCache = BlobCache;

impl BlobCache {
    /// Opens the checksum cache of `repo` (empty when absent or unreadable).
    pub fn open(repo: &Repo) -> BlobCache {
        BlobCache::open_kind(repo, Kind::Checksums)
    }

    /// Opens the token count cache of `repo` (empty when absent or unreadable).
    pub fn token_counts(repo: &Repo) -> BlobCache {
        BlobCache::open_kind(repo, Kind::TokenCounts)
    }

    /// Opens the pass state cache of `repo` (empty when absent or unreadable).
    pub fn pass_states(repo: &Repo) -> BlobCache {
        BlobCache::open_kind(repo, Kind::PassStates)
    }

    /// The [`PassState`] recorded after blob `id`'s first bytes, when its line is whole.
    pub fn pass_state(&self, id: ObjectId) -> Option<PassState> {
        debug_assert_eq!(self.kind, Kind::PassStates);
        PassState::decode(self.checked(id)?)
    }

    /// Records the [`PassState`] after blob `id`'s first bytes.
    pub fn insert_pass_state(&mut self, id: ObjectId, state: &PassState) {
        debug_assert_eq!(self.kind, Kind::PassStates);
        self.insert_checked(id, &state.encode());
    }

    /// The text recorded for blob `id` with a check ([`state_check`]), when the check holds.
    fn checked(&self, id: ObjectId) -> Option<&str> {
        let (text, check) = self.get(id)?.rsplit_once(' ')?;
        (check == state_check(&id.to_string(), text)).then_some(text)
    }

    /// Records `text` for blob `id` with its check ([`state_check`]).
    fn insert_checked(&mut self, id: ObjectId, text: &str) {
        let check = state_check(&id.to_string(), text);
        self.insert(id, &format!("{text} {check}"));
    }

    /// Opens the lint cut cache of `repo` (empty when absent or unreadable).
    pub fn lint_cuts(repo: &Repo) -> BlobCache {
        BlobCache::open_kind(repo, Kind::LintCuts)
    }

    /// Opens the lint cut cache kept at `path` (the [`BlobCache::location`] of one opened
    /// before), from a thread that has no repository.
    pub fn lint_cuts_at(path: &std::path::Path) -> BlobCache {
        BlobCache::open_path(Kind::LintCuts, path.to_path_buf())
    }

    /// Where the cache is saved; `None` when it is kept in memory.
    pub fn location(&self) -> Option<PathBuf> {
        self.path.clone()
    }

    /// The [`LintCut`] recorded for blob `id`, when its line is whole.
    pub fn lint_cut(&self, id: ObjectId) -> Option<LintCut> {
        debug_assert_eq!(self.kind, Kind::LintCuts);
        LintCut::decode(self.checked(id)?)
    }

    /// Records the [`LintCut`] of blob `id`.
    pub fn insert_lint_cut(&mut self, id: ObjectId, cut: &LintCut) {
        debug_assert_eq!(self.kind, Kind::LintCuts);
        self.insert_checked(id, &cut.encode());
    }

    /// A token count cache that is never saved.
    pub fn token_counts_in_memory() -> BlobCache {
        BlobCache::new(Kind::TokenCounts, None)
    }

    fn new(kind: Kind, path: Option<PathBuf>) -> BlobCache {
        BlobCache {
            kind,
            path,
            order: Vec::new(),
            sums: HashMap::new(),
            dirty: false,
        }
    }

    fn open_kind(repo: &Repo, kind: Kind) -> BlobCache {
        if !super::git_dir_caches_trusted() {
            return BlobCache::new(kind, None);
        }
        BlobCache::open_path(
            kind,
            crate::transaction::journal::state_dir(repo).join(kind.file()),
        )
    }

    fn open_path(kind: Kind, path: PathBuf) -> BlobCache {
        if !super::git_dir_caches_trusted() {
            return BlobCache::new(kind, None);
        }
        let mut cache = BlobCache::new(kind, Some(path));
        if let Some(text) = cache
            .path
            .as_ref()
            .and_then(|p| super::read_state_file(p).ok().flatten())
            .and_then(|b| String::from_utf8(b).ok())
        {
            cache.load(&text);
        }
        cache
    }

    fn load(&mut self, text: &str) {
        let mut lines = text.lines();
        if lines.next() != Some(self.kind.header()) {
            return;
        }
        for line in lines {
            let Some((id, value)) = line.split_once(' ') else {
                continue;
            };
            if is_hex(id, &[40, 64])
                && self.kind.is_value(value)
                && self
                    .sums
                    .insert(id.to_string(), value.to_string())
                    .is_none()
            {
                self.order.push(id.to_string());
            }
        }
    }

    /// The value recorded for a blob.
    pub fn get(&self, id: ObjectId) -> Option<&str> {
        self.sums.get(&id.to_string()).map(String::as_str)
    }

    /// The `o200k` token count of `text`, whose file holds `bytes`: from the cache when a
    /// blob with these bytes was counted before, else counted and recorded.
    pub fn token_count(&mut self, bytes: &[u8], text: &str) -> usize {
        debug_assert_eq!(self.kind, Kind::TokenCounts);
        let Ok(id) = gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, bytes)
        else {
            return super::tokens::count(text);
        };
        let key = id.to_string();
        let cached = self.get(id).and_then(|v| {
            let (n, check) = v.split_once(' ')?;
            (check == count_check(&key, n)).then(|| n.parse().ok())?
        });
        if let Some(n) = cached {
            return n;
        }
        let n = super::tokens::count(text).to_string();
        let check = count_check(&key, &n);
        self.insert(id, &format!("{n} {check}"));
        n.parse().expect("a count just formatted")
    }

    /// Records a blob's value.
    pub fn insert(&mut self, id: ObjectId, sum: &str) {
        let key = id.to_string();
        if self.sums.insert(key.clone(), sum.to_string()).is_none() {
            self.order.push(key);
        }
        self.dirty = true;
    }

    /// Writes the cache back when it changed (temp file and rename, so a reader never sees
    /// half a file). Failing to write only loses the cache.
    pub fn save(mut self) {
        let Some(path) = self.path.take() else {
            return;
        };
        if !self.dirty {
            return;
        }
        if self.order.len() > MAX_ENTRIES {
            let drop = self.order.len() - MAX_ENTRIES;
            for id in self.order.drain(..drop) {
                self.sums.remove(&id);
            }
        }
        let header = self.kind.header();
        let mut text = String::with_capacity(self.order.len() * 116 + header.len() + 1);
        text.push_str(header);
        text.push('\n');
        for id in &self.order {
            text.push_str(id);
            text.push(' ');
            text.push_str(&self.sums[id]);
            text.push('\n');
        }
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        // Token counts and pass states need no fsync: each line carries a check, so a line
        // a power loss damaged is computed again. Checksum lines have none, so that file is
        // synced.
        let _ = match self.kind {
            Kind::TokenCounts | Kind::PassStates | Kind::LintCuts => {
                super::write_cache_file(&path, text.as_bytes())
            }
            Kind::Checksums => super::write_atomic(&path, text.as_bytes()),
        };
    }
}

/// A check of one token count line (FNV-1a of the blob id and the count), so a line damaged
/// in any of its digits is counted again rather than believed. The cache guards against
/// damage, not against someone who can write the git directory.
fn count_check(id: &str, n: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes().chain([b' ']).chain(n.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A check of one pass state line: the first 16 hex digits of the SHA-256 of the blob id
/// and the state, so a line damaged anywhere is computed again rather than resumed from (a
/// wrong state would give a wrong checksum). Like [`count_check`], it guards against damage,
/// not against someone who can write the git directory.
fn state_check(id: &str, state: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::new()
        .chain_update(id.as_bytes())
        .chain_update(b" ")
        .chain_update(state.as_bytes())
        .finalize();
    super::hex(&digest[..8])
}

fn is_hex(s: &str, lens: &[usize]) -> bool {
    lens.contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache() -> BlobCache {
        BlobCache::new(Kind::Checksums, None)
    }
    const HEADER: &str = "aahp checksum cache v1";

    #[test]
    fn damaged_lines_and_other_versions_are_ignored() {
        let id = "a".repeat(40);
        let sum = format!("sha256:{}", "b".repeat(64));
        let mut c = cache();
        c.load(&format!(
            "{HEADER}\n{id} {sum}\n{} {sum}\n{} sha256:{}\n{id}\n",
            "c".repeat(39),
            "d".repeat(40),
            "e".repeat(63)
        ));
        assert_eq!(c.order, std::slice::from_ref(&id));
        assert_eq!(c.sums[&id], sum);
        let mut other = cache();
        other.load(&format!("aahp checksum cache v0\n{id} {sum}\n"));
        assert!(other.sums.is_empty());
    }

    #[test]
    fn token_counts_are_counted_once_and_damaged_lines_counted_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("aahp").join(TOKENS_FILE);
        let text = "Hello, world! The quick brown fox.\n";
        let n = crate::handoff::tokens::count(text);
        let mut c = BlobCache::new(Kind::TokenCounts, Some(path.clone()));
        assert_eq!(c.token_count(text.as_bytes(), text), n);
        c.save();
        let saved = std::fs::read_to_string(&path).unwrap();
        let id = gix::objs::compute_hash(
            gix::hash::Kind::Sha1,
            gix::objs::Kind::Blob,
            text.as_bytes(),
        )
        .unwrap()
        .to_string();
        assert!(saved.contains(&format!("{id} {n} ")), "{saved}");

        // A well-formed line is believed: the same bytes are not counted again.
        let forged = |count: &str, check: &str| {
            let mut c = BlobCache::new(Kind::TokenCounts, None);
            c.load(&format!(
                "{}\n{id} {count} {check}\n",
                Kind::TokenCounts.header()
            ));
            c.token_count(text.as_bytes(), text)
        };
        assert_eq!(forged("999", &count_check(&id, "999")), 999);
        // A digit changed without its check, a malformed line, another version: counted.
        assert_eq!(forged("998", &count_check(&id, "999")), n);
        assert_eq!(forged("x", &count_check(&id, "x")), n);
        let mut other = BlobCache::new(Kind::TokenCounts, None);
        other.load(&format!(
            "aahp checksum cache v1\n{id} 999 {}\n",
            count_check(&id, "999")
        ));
        assert_eq!(other.token_count(text.as_bytes(), text), n);
    }

    #[test]
    fn a_pass_state_line_damaged_anywhere_is_not_resumed_from() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x\n".repeat(1000)).unwrap();
        let state = crate::handoff::stream::Streamed::whole(file, 2000)
            .prefix_state("f", 1000, false)
            .unwrap();
        let path = dir.path().join("aahp").join(PASS_STATES_FILE);
        let id = ObjectId::from_hex(&[b'a'; 40]).unwrap();
        let mut c = BlobCache::new(Kind::PassStates, Some(path.clone()));
        c.insert_pass_state(id, &state);
        c.save();
        let saved = std::fs::read_to_string(&path).unwrap();
        let load = |text: &str| {
            let mut c = BlobCache::new(Kind::PassStates, None);
            c.load(text);
            c.pass_state(id)
        };
        assert_eq!(load(&saved), Some(state));
        // Any one character of the line changed: not resumed from.
        let line_start = saved.find('\n').unwrap() + 1 + 41;
        for i in line_start..saved.len() - 1 {
            let mut bytes = saved.clone().into_bytes();
            bytes[i] = if bytes[i] == b'1' { b'2' } else { b'1' };
            let damaged = String::from_utf8(bytes).unwrap();
            assert_eq!(load(&damaged), None, "{i}");
        }
        // Another blob's line is not this blob's.
        let other = saved.replace(&"a".repeat(40), &"b".repeat(40));
        assert_eq!(load(&other), None);
    }

    #[test]
    fn saved_entries_read_back_and_the_oldest_go_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = cache();
        c.path = Some(dir.path().join("aahp").join(FILE));
        for i in 0..=MAX_ENTRIES {
            let id = ObjectId::from_hex(format!("{i:040x}").as_bytes()).unwrap();
            c.insert(id, &format!("sha256:{i:064x}"));
        }
        c.save();
        let mut back = cache();
        back.load(&std::fs::read_to_string(dir.path().join("aahp").join(FILE)).unwrap());
        assert_eq!(back.order.len(), MAX_ENTRIES);
        let first = ObjectId::from_hex(format!("{:040x}", 0).as_bytes()).unwrap();
        let last = ObjectId::from_hex(format!("{MAX_ENTRIES:040x}").as_bytes()).unwrap();
        assert_eq!(back.get(first), None);
        assert_eq!(
            back.get(last),
            Some(format!("sha256:{MAX_ENTRIES:064x}").as_str())
        );
    }
}
