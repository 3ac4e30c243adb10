//! The index as the pre-commit check needs it: the handoff directory's entries and the
//! entries of directories the commit changes, never all of them.
//!
//! Decoding a whole index costs as much as the repository is large (100,000 entries are
//! about 12 MB of memory to fault in and fill). The check only needs two things from it:
//! the staged handoff files, and what is staged against HEAD. The second comes from the
//! cache-tree extension: a directory whose cached tree id equals HEAD's has nothing staged.
//! So the file is read twice as a stream through a small buffer — once to find the
//! extensions after the entries, once to keep only the entries outside unchanged
//! directories — and the result is an ordinary [`gix::index::State`] holding just those.
//!
//! Anything this reader does not handle exactly (split or sparse indexes, unknown required
//! extensions, other hash kinds, symbolic links in the handoff directory, a malformed file)
//! falls back to the full decode by gix, which also reports a damaged index properly.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::index::entry::{Flags, Mode, Stat, stat};
use gix::index::extension::Tree;

use super::{GitError, Repo};

/// An index read for the pre-commit check.
pub enum PrecommitIndex {
    /// Every entry, decoded by gix.
    Full(gix::index::File),
    /// Only the entries the check needs, and the cache tree that says which were left out.
    Partial {
        /// The kept entries, in index order.
        state: gix::index::State,
        /// The cache-tree extension, if the index has one.
        tree: Option<Tree>,
    },
}

impl PrecommitIndex {
    /// The (possibly partial) entries.
    pub fn state(&self) -> &gix::index::State {
        match self {
            PrecommitIndex::Full(f) => f,
            PrecommitIndex::Partial { state, .. } => state,
        }
    }

    /// The cache tree.
    pub fn tree(&self) -> Option<&Tree> {
        match self {
            PrecommitIndex::Full(f) => f.tree(),
            PrecommitIndex::Partial { tree, .. } => tree.as_ref(),
        }
    }

    /// True when only part of the entries were decoded.
    pub fn is_partial(&self) -> bool {
        matches!(self, PrecommitIndex::Partial { .. })
    }
}

/// The staged content as the pre-commit check sees it: a [`PrecommitIndex`] (possibly
/// partial) completed by HEAD's tree. An entry the partial read left out lies in a directory
/// whose staged tree equals HEAD's, so for any path that is not a staged change the index
/// and HEAD agree: a file below a directory is the index's entry when it was read, else
/// HEAD's unless the commit deletes it.
pub struct StagedView<'a> {
    repo: &'a Repo,
    index: &'a PrecommitIndex,
    head: Option<ObjectId>,
    /// Paths the commit deletes (sorted).
    deleted: Vec<&'a str>,
}

impl<'a> StagedView<'a> {
    /// Builds the view from the index and the staged changes computed from it.
    pub fn new(
        repo: &'a Repo,
        index: &'a PrecommitIndex,
        changes: &'a [super::Change],
    ) -> Result<StagedView<'a>, GitError> {
        let mut deleted: Vec<&str> = changes
            .iter()
            .filter(|c| c.kind == super::ChangeKind::Deleted)
            .map(|c| c.path.as_str())
            .collect();
        deleted.sort_unstable();
        Ok(StagedView {
            repo,
            index,
            head: repo.head_commit()?,
            deleted,
        })
    }

    /// The repository.
    pub fn repo(&self) -> &'a Repo {
        self.repo
    }

    /// The (possibly partial) index entries.
    pub fn state(&self) -> &'a gix::index::State {
        self.index.state()
    }

    fn is_deleted(&self, path: &str) -> bool {
        self.deleted.binary_search(&path).is_ok()
    }

    /// Every staged file below `dir` (repository-relative), by path relative to it.
    pub fn files_below(&self, dir: &str) -> Result<Vec<super::TreeFile>, GitError> {
        let mut files = Repo::index_files_below(self.state(), dir);
        if let (true, Some(head)) = (self.index.is_partial(), self.head) {
            let have: std::collections::HashSet<Vec<u8>> =
                files.iter().map(|f| f.path.clone()).collect();
            let prefix = if dir.is_empty() {
                String::new()
            } else {
                format!("{dir}/")
            };
            for f in self.repo.tree_files_below(head, dir)? {
                let full = format!("{prefix}{}", String::from_utf8_lossy(&f.path));
                if !have.contains(&f.path) && !self.is_deleted(&full) {
                    files.push(f);
                }
            }
            files.sort_by(|a, b| a.path.cmp(&b.path));
        }
        Ok(files)
    }

    /// The first staged submodule (gitlink) below `dir`, by repository-relative path.
    pub fn gitlink_below(&self, dir: &str) -> Result<Option<String>, GitError> {
        if let Some(path) = Repo::index_gitlink_below(self.state(), dir) {
            return Ok(Some(path));
        }
        match (self.index.is_partial(), self.head) {
            (true, Some(head)) => Ok(self
                .repo
                .tree_gitlink_below(head, dir)?
                .filter(|p| !self.is_deleted(p))),
            _ => Ok(None),
        }
    }

    /// The staged file at a repository-relative path.
    pub fn file_at(&self, path: &str) -> Result<Option<super::TreeFile>, GitError> {
        if let Some(f) = Repo::index_file_at(self.state(), path) {
            return Ok(Some(f));
        }
        match (self.index.is_partial(), self.head) {
            (true, Some(head)) if !self.is_deleted(path) => self.repo.tree_file_at(head, path),
            _ => Ok(None),
        }
    }

    /// What is staged at `path` (`None`: nothing, or a directory), HEAD's completing a
    /// partial index.
    pub fn kind_at(&self, path: &str) -> Result<Option<super::EntryKind>, GitError> {
        if let Some(kind) = Repo::index_kind_at(self.state(), path) {
            return Ok(Some(kind));
        }
        match (self.index.is_partial(), self.head) {
            (true, Some(head)) if !self.is_deleted(path) => self.repo.tree_kind_at(head, path),
            _ => Ok(None),
        }
    }

    /// The staged files directly in `dir` whose name is `name` in any ASCII letter case
    /// (see [`Repo::index_names_like`]), HEAD's completing a partial index.
    pub fn names_like(&self, dir: &str, name: &str) -> Result<Vec<String>, GitError> {
        let mut out = Repo::index_names_like(self.state(), dir, name);
        if let (true, Some(head)) = (self.index.is_partial(), self.head) {
            out.extend(
                self.repo
                    .tree_names_like(head, dir, name)?
                    .into_iter()
                    .filter(|p| !self.is_deleted(p)),
            );
            out.sort();
            out.dedup();
        }
        Ok(out)
    }

    /// The staged directories directly in `dir` whose name is `name` in any ASCII letter
    /// case (see [`Repo::index_dirs_like`]), HEAD's completing a partial index.
    pub fn dirs_like(&self, dir: &str, name: &str) -> Result<Vec<String>, GitError> {
        let mut out = Repo::index_dirs_like(self.state(), dir, name);
        if let (true, Some(head)) = (self.index.is_partial(), self.head) {
            for d in self.repo.tree_dirs_like(head, dir, name)? {
                if !out.contains(&d) && self.has_dir(&d)? {
                    out.push(d);
                }
            }
            out.sort();
        }
        Ok(out)
    }

    /// True when anything is staged below `dir`.
    pub fn has_dir(&self, dir: &str) -> Result<bool, GitError> {
        if Repo::index_has_dir(self.state(), dir) {
            return Ok(true);
        }
        match (self.index.is_partial(), self.head) {
            // Read from HEAD only when the commit does not delete everything below it.
            (true, Some(head)) if self.repo.tree_has_dir(head, dir)? => {
                Ok(!self.files_below(dir)?.is_empty())
            }
            _ => Ok(false),
        }
    }
}

impl Repo {
    /// Reads the index for the pre-commit check: every entry below each of `keep` (handoff
    /// directories, repository-relative), plus every entry outside the directories whose
    /// cache tree matches HEAD. Staged changes computed from it (see
    /// [`Repo::staged_changes_in`]) are exactly those of the full index.
    pub fn index_for_precommit(&self, keep: &[&str]) -> Result<PrecommitIndex, GitError> {
        let path = self.repo.index_path();
        if self.repo.object_hash() == gix::hash::Kind::Sha1
            && let Some(partial) = self.partial_index(&path, keep)
        {
            return Ok(partial);
        }
        self.index().map(PrecommitIndex::Full)
    }

    fn partial_index(&self, path: &Path, keep: &[&str]) -> Option<PrecommitIndex> {
        let file_len = std::fs::metadata(path).ok()?.len();
        let mut r = EntryReader::open(path)?;
        // Pass 1: walk past the entries to the extensions, noting where each directory's
        // run of entries starts; read the cache tree.
        let mut runs: Vec<Run> = Vec::new();
        let mut last: Vec<u8> = Vec::new();
        let count = r.count;
        if r.version < 4 {
            // Fixed-layout entries: only lengths and paths are looked at, in whole buffers.
            let end = scan_runs(path, count, &mut runs)?;
            r.seek_to(end)?;
        } else {
            runs_v4(&mut r, &mut runs, &mut last)?;
        }
        let tree = r.extensions(file_len)?.tree;
        let mut skip: Vec<Vec<u8>> = Vec::new();
        if let Some(t) = &tree {
            let head = self.head_tree().ok()?;
            self.unchanged_dirs(t, head, Vec::new(), &mut skip).ok()?;
        }
        skip.sort();
        // `""` (the root) keeps everything.
        let keep: Vec<Vec<u8>> = keep
            .iter()
            .map(|k| {
                if k.is_empty() {
                    Vec::new()
                } else {
                    format!("{}/", k.trim_end_matches('/')).into_bytes()
                }
            })
            .collect();
        // Pass 2: keep what is needed; runs under an unchanged directory are not read again.
        let mut r = EntryReader::open(path)?;
        let mut state = gix::index::State::new(gix::hash::Kind::Sha1);
        let mut link_in_keep = false;
        // Entries and `skip` are both in byte order: one cursor walks `skip` along.
        let mut next_skip = 0;
        for run in &runs {
            let whole_run_skipped = run.top.ends_with(b"/")
                && !keep
                    .iter()
                    .any(|k| k.starts_with(&run.top) || run.top.starts_with(k))
                && under_any(&skip, &run.top);
            if whole_run_skipped {
                continue;
            }
            r.seek_to(run.start)?;
            r.entries(run.count, run.prev_path.clone(), |e, _| {
                let in_keep = keep.iter().any(|k| e.path.starts_with(k));
                while next_skip < skip.len()
                    && skip[next_skip].as_slice() < e.path
                    && !e.path.starts_with(&skip[next_skip])
                {
                    next_skip += 1;
                }
                let skipped = skip.get(next_skip).is_some_and(|d| e.path.starts_with(d));
                if in_keep || !skipped {
                    if in_keep && e.mode == Mode::SYMLINK {
                        link_in_keep = true;
                    }
                    state.dangerously_push_entry(e.stat, e.id, e.flags, e.mode, e.path.as_bstr());
                }
                Some(())
            })?;
        }
        // A symbolic link in the handoff directory is resolved through the index: read it all.
        (!link_in_keep).then_some(PrecommitIndex::Partial { state, tree })
    }

    /// Collects the directories (`prefix/`, or empty for the root) whose cache tree is valid
    /// and equals HEAD's tree at the same path: nothing below them is staged.
    fn unchanged_dirs(
        &self,
        cache: &Tree,
        head: Option<ObjectId>,
        prefix: Vec<u8>,
        out: &mut Vec<Vec<u8>>,
    ) -> Result<(), GitError> {
        if cache.num_entries.is_some() && Some(cache.id) == head {
            out.push(prefix);
            return Ok(());
        }
        let Some(head) = head else {
            return Ok(());
        };
        let entries = self.tree_entries(head)?;
        for child in &cache.children {
            let sub_head = entries
                .get(child.name.as_slice())
                .filter(|(_, mode)| mode.is_tree())
                .map(|(id, _)| *id);
            if sub_head.is_none() {
                continue;
            }
            let mut sub = prefix.clone();
            sub.extend_from_slice(&child.name);
            sub.push(b'/');
            self.unchanged_dirs(child, sub_head, sub, out)?;
        }
        Ok(())
    }
}

/// What the reader takes from the extensions.
struct Extensions {
    /// The cache tree (`TREE`), if the index has one.
    tree: Option<Tree>,
}

/// A run of consecutive entries with the same [`run_key`].
struct Run {
    top: Vec<u8>,
    /// File offset of the run's first entry.
    start: u64,
    count: u32,
    /// The path of the entry before the run (index v4 compresses paths against it).
    prev_path: Vec<u8>,
}

/// Pass 1 for index v4, whose paths are compressed against the previous entry's: every
/// entry is decoded, and each run remembers the path before it.
fn runs_v4(r: &mut EntryReader, runs: &mut Vec<Run>, last: &mut Vec<u8>) -> Option<()> {
    let count = r.count;
    r.entries(count, Vec::new(), |e, start| {
        push_run(runs, e.path, start, last);
        last.clear();
        last.extend_from_slice(e.path);
        Some(())
    })
}

/// Counts an entry at `start` with `path` into its run, opening a new run when the
/// entry's run key differs from the previous entry's.
fn push_run(runs: &mut Vec<Run>, path: &[u8], start: u64, prev_path: &[u8]) {
    let top = run_key(path);
    if runs.last().is_none_or(|run| run.top != top) {
        runs.push(Run {
            top: top.to_vec(),
            start,
            count: 0,
            prev_path: prev_path.to_vec(),
        });
    }
    if let Some(run) = runs.last_mut() {
        run.count += 1;
    }
}

/// Pass 1 for index v2/v3: finds the runs and the offset where the entries end, reading
/// the file in 256 KiB blocks and looking only at each entry's flags and path.
fn scan_runs(path: &Path, count: u32, runs: &mut Vec<Run>) -> Option<u64> {
    let mut file = File::open(path).ok()?;
    let mut buf = vec![0u8; 256 * 1024];
    // buf[lo..hi] holds file bytes starting at file offset `base + lo`.
    let (mut lo, mut hi, mut base) = (0usize, 0usize, 0u64);
    // Makes at least `need` bytes available from `lo`; false at the end of the file.
    let mut ensure =
        |lo: &mut usize, hi: &mut usize, base: &mut u64, buf: &mut Vec<u8>, need: usize| {
            while *hi - *lo < need {
                if *lo > 0 {
                    buf.copy_within(*lo..*hi, 0);
                    *base += *lo as u64;
                    *hi -= *lo;
                    *lo = 0;
                }
                if need > buf.len() {
                    buf.resize(need.next_power_of_two(), 0);
                }
                let n = file.read(&mut buf[*hi..]).ok()?;
                if n == 0 {
                    return Some(false);
                }
                *hi += n;
            }
            Some(true)
        };
    if !ensure(&mut lo, &mut hi, &mut base, &mut buf, 12)? {
        return None;
    }
    lo = 12;
    for _ in 0..count {
        if !ensure(&mut lo, &mut hi, &mut base, &mut buf, FIXED + 4)? {
            return None;
        }
        let flags = u16::from_be_bytes([buf[lo + FIXED], buf[lo + FIXED + 1]]);
        let head = FIXED + 2 + if flags & 0x4000 != 0 { 2 } else { 0 };
        let name_len = usize::from(flags & 0x0fff);
        let name_len = if name_len < 0x0fff {
            name_len
        } else {
            // A long name: find its NUL, refilling as needed.
            let mut from = head;
            loop {
                if let Some(i) = memchr::memchr(0, &buf[lo + from..hi]) {
                    break from + i - head;
                }
                from = hi - lo;
                if !ensure(&mut lo, &mut hi, &mut base, &mut buf, from + 4096)? {
                    return None;
                }
            }
        };
        let total = (head + name_len + 8) & !7;
        if !ensure(&mut lo, &mut hi, &mut base, &mut buf, total)? {
            return None;
        }
        let entry_path = &buf[lo + head..lo + head + name_len];
        push_run(runs, entry_path, base + lo as u64, &[]);
        lo += total;
    }
    Some(base + lo as u64)
}

/// The directory (up to three levels deep, with its `/`) that groups an entry into a run;
/// empty for files at the root. Runs are the unit pass 2 can skip without reading.
fn run_key(path: &[u8]) -> &[u8] {
    let mut end = 0;
    for (depth, (i, _)) in path
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'/')
        .enumerate()
    {
        end = i + 1;
        if depth == 2 {
            break;
        }
    }
    &path[..end]
}

/// True when `path` lies below one of `dirs` (sorted, none inside another; `""` is the root).
fn under_any(dirs: &[Vec<u8>], path: &[u8]) -> bool {
    let i = dirs.partition_point(|d| d.as_slice() <= path);
    i > 0 && path.starts_with(&dirs[i - 1])
}

/// One entry as read from the file.
struct RawEntry<'a> {
    stat: Stat,
    id: ObjectId,
    flags: Flags,
    mode: Mode,
    path: &'a [u8],
}

/// Reads the entries of an index file as a stream.
struct EntryReader {
    r: BufReader<File>,
    version: u32,
    count: u32,
    pos: u64,
}

/// Bytes before an entry's flags: ten 32-bit stat fields and a SHA-1.
const FIXED: usize = 40 + 20;

impl EntryReader {
    fn open(path: &Path) -> Option<EntryReader> {
        let mut r = BufReader::with_capacity(64 * 1024, File::open(path).ok()?);
        let mut head = [0u8; 12];
        r.read_exact(&mut head).ok()?;
        if &head[..4] != b"DIRC" {
            return None;
        }
        let version = be32(&head[4..8]);
        if !(2..=4).contains(&version) {
            return None;
        }
        Some(EntryReader {
            r,
            version,
            count: be32(&head[8..12]),
            pos: 12,
        })
    }

    fn read(&mut self, buf: &mut [u8]) -> Option<()> {
        self.r.read_exact(buf).ok()?;
        self.pos += buf.len() as u64;
        Some(())
    }

    fn seek_to(&mut self, offset: u64) -> Option<()> {
        let delta = i64::try_from(offset).ok()? - i64::try_from(self.pos).ok()?;
        self.r.seek_relative(delta).ok()?;
        self.pos = offset;
        Some(())
    }

    fn skip(&mut self, n: u64) -> Option<()> {
        self.r.seek_relative(i64::try_from(n).ok()?).ok()?;
        self.pos += n;
        Some(())
    }

    /// Calls `f` with each of the next `count` entries and its file offset; `path` is the
    /// path of the entry before them (index v4).
    fn entries(
        &mut self,
        count: u32,
        mut path: Vec<u8>,
        mut f: impl FnMut(&RawEntry<'_>, u64) -> Option<()>,
    ) -> Option<()> {
        let mut fixed = [0u8; FIXED + 2];
        for _ in 0..count {
            let offset = self.pos;
            self.read(&mut fixed)?;
            let word = |i: usize| be32(&fixed[i * 4..i * 4 + 4]);
            let at_rest = u16::from_be_bytes([fixed[FIXED], fixed[FIXED + 1]]);
            let mut flags = u32::from(at_rest);
            let mut len = FIXED + 2;
            if at_rest & 0x4000 != 0 {
                if self.version < 3 {
                    return None;
                }
                let mut ext = [0u8; 2];
                self.read(&mut ext)?;
                let ext = u32::from(u16::from_be_bytes(ext)) << 16;
                // Only intent-to-add and skip-worktree are defined.
                if ext & !(Flags::INTENT_TO_ADD | Flags::SKIP_WORKTREE).bits() != 0 {
                    return None;
                }
                flags |= ext;
                len += 2;
            }
            if self.version == 4 {
                let strip = self.varint()?;
                path.truncate(path.len().checked_sub(strip)?);
                self.read_until_nul(&mut path)?;
            } else {
                path.clear();
                let name_len = usize::from(at_rest & 0x0fff);
                if name_len < 0x0fff {
                    path.resize(name_len, 0);
                    self.read(&mut path)?;
                    // NUL padding up to a multiple of 8 (at least one NUL).
                    let total = (len + name_len + 8) & !7;
                    self.skip((total - len - name_len) as u64)?;
                } else {
                    self.read_until_nul(&mut path)?;
                    let total = (len + path.len() + 8) & !7;
                    self.skip((total - len - path.len() - 1) as u64)?;
                }
            }
            let stat = Stat {
                ctime: stat::Time {
                    secs: word(0),
                    nsecs: word(1),
                },
                mtime: stat::Time {
                    secs: word(2),
                    nsecs: word(3),
                },
                dev: word(4),
                ino: word(5),
                uid: word(7),
                gid: word(8),
                size: word(9),
            };
            // As gix decodes them: the name length is not kept, unknown mode bits are dropped.
            let entry = RawEntry {
                stat,
                id: ObjectId::from_bytes_or_panic(&fixed[40..FIXED]),
                flags: Flags::from_bits_retain(flags) & !Flags::PATH_LEN,
                mode: Mode::from_bits_truncate(word(6)),
                path: &path,
            };
            f(&entry, offset)?;
        }
        Some(())
    }

    /// git's offset varint (index v4 path prefix length).
    fn varint(&mut self) -> Option<usize> {
        let mut b = [0u8; 1];
        self.read(&mut b)?;
        let mut value = usize::from(b[0] & 0x7f);
        while b[0] & 0x80 != 0 {
            self.read(&mut b)?;
            value = value.checked_add(1)?.checked_mul(128)? | usize::from(b[0] & 0x7f);
        }
        Some(value)
    }

    /// Appends bytes up to a NUL (consumed, not appended).
    fn read_until_nul(&mut self, out: &mut Vec<u8>) -> Option<()> {
        let start = out.len();
        let n = self.r.read_until(0, out).ok()?;
        self.pos += n as u64;
        (out.pop() == Some(0) && out.len() >= start).then_some(())
    }

    /// Reads the extensions after the entries. `None` when the index has an extension this
    /// reader must not ignore (split or sparse index, or any other required one).
    fn extensions(&mut self, file_len: u64) -> Option<Extensions> {
        let end = file_len.checked_sub(20)?;
        let mut tree = None;
        while self.pos + 8 <= end {
            let mut head = [0u8; 8];
            self.read(&mut head)?;
            let size = u64::from(be32(&head[4..8]));
            if self.pos + size > end {
                return None;
            }
            match &head[..4] {
                b"TREE" => {
                    let mut data = vec![0u8; usize::try_from(size).ok()?];
                    self.read(&mut data)?;
                    tree = Some(gix::index::extension::tree::decode(
                        &data,
                        gix::hash::Kind::Sha1,
                        None,
                    )?);
                }
                // Lowercase signatures are required extensions (split index "link", sparse
                // index "sdir", …): leave those to gix.
                sig if sig[0].is_ascii_lowercase() => return None,
                _ => self.skip(size)?,
            }
        }
        (self.pos == end).then_some(Extensions { tree })
    }
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

#[cfg(test)]
mod tests {
    use super::{run_key, under_any};

    #[test]
    fn runs_group_entries_by_their_first_three_directories() {
        assert_eq!(run_key(b"README.md"), b"");
        assert_eq!(run_key(b"src/lib.rs"), b"src/");
        assert_eq!(run_key(b"src/d0/m0.rs"), b"src/d0/");
        assert_eq!(run_key(b"a/b/c/d/e.rs"), b"a/b/c/");
    }

    #[test]
    fn under_any_matches_only_whole_directories() {
        let dirs = vec![b"a/".to_vec(), b"b/c/".to_vec()];
        assert!(under_any(&dirs, b"a/x/"));
        assert!(under_any(&dirs, b"b/c/d/"));
        assert!(!under_any(&dirs, b"ab/"));
        assert!(!under_any(&dirs, b"b/cd/"));
        assert!(!under_any(&dirs, b"b/"));
        assert!(under_any(&[Vec::new()], b"x/"));
        assert!(!under_any(&[], b"a/"));
    }
}
