//! The model of a handoff directory (`.ai/handoff/`): which files it holds, their content read
//! from the working tree, the index or a commit, and the checksum rule shared with the AAHP
//! reference. No printing, no clap; git is reached only through [`crate::git::Repo`] reads.

pub mod checksum_cache;
pub mod criteria;
pub mod importers;
pub mod json;
pub mod location;
pub mod log;
pub mod log_stream;
pub mod manifest;
mod markdown;
pub mod merge;
pub mod merge_stream;
pub mod migrate;
pub mod provenance;
pub mod stream;
pub mod templates;
pub mod tokens;
pub mod trust;
pub mod trust_checks;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use gix::ObjectId;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::git::{Repo, StagedView, TreeFile};
use crate::output;

/// The default handoff directory, relative to the repository root.
pub const DEFAULT_DIR: &str = ".ai/handoff";
/// The manifest's file name.
pub const MANIFEST: &str = "MANIFEST.json";
/// The lock file's name; it exists only while a session writes.
pub const LOCK: &str = "HANDOFF.lock";
/// Prefix of the temporary files [`write_atomic`] and the lock's creation make; they are
/// never handoff content (another process may create or remove one at any moment).
pub const TEMP_PREFIX: &str = ".aahp-tmp-";

/// Whether `name` is a temporary file the tool creates beside a file it writes: the prefix,
/// then tempfile's six random letters and digits (after `lock-` for the lock's), or a
/// rotation's staged copy (`.aahp-tmp-rotation-…`). Any other name, `.aahp-tmp-draft.md`
/// included, is the user's: read, linted and never deleted.
pub fn is_temp_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix(TEMP_PREFIX) else {
        return false;
    };
    if rest.starts_with("rotation-") {
        return true;
    }
    let rest = rest.strip_prefix("lock-").unwrap_or(rest);
    rest.len() == 6 && rest.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The `.aiignore` firewall file's name.
pub const AIIGNORE: &str = ".aiignore";
/// Files the reference indexes, in its canonical order (`AAHP_HANDOFF_FILES`). Other
/// top-level `*.md` files are indexed after these, sorted by name.
pub const CANONICAL_FILES: &[&str] = &[
    "STATUS.md",
    "NEXT_ACTIONS.md",
    "LOG.md",
    "LOG-ARCHIVE.md",
    "LOG-ARCHIVE.index.json",
    "DASHBOARD.md",
    "TRUST.md",
    "CONVENTIONS.md",
    "WORKFLOW.md",
    "GROUNDING.md",
    "pii-allowlist.json",
];
/// Largest handoff file the tool reads; anything bigger is refused as bad input.
pub const MAX_FILE_BYTES: usize = 8 * 1024 * 1024;
/// LOG-ARCHIVE.md or its index above this many bytes is not held whole by the commands that
/// judge it: the lint reads it in pieces when that gives what a whole lint gives
/// (`lint::pieces`), and the pre-commit gate, `commit`'s gate and `verify --level ci` read
/// its blob from the working tree as a stream when the file there is the blob. A whole lint
/// builds views of several times the text (the JSON index's strings and their offsets, the
/// lowered values of its fields, the line table), so a 20,000-entry archive (4.6 MB, its
/// index 3.2 MB) linted whole took `verify` to 47 MiB and `commit` to 55 MiB (issue #14,
/// goal 30 MiB). Below it, the few hundred kilobytes a project's archive holds for its first
/// thousands of entries are linted whole, as cheaply as before (pieces lint each seam twice).
pub const HELD_WHOLE_UP_TO: usize = 1024 * 1024;
/// Largest LOG-ARCHIVE.md or LOG-ARCHIVE.index.json the tool reads whole. They only grow,
/// by at most one LOG.md per rotation, and the index is larger than the archive it lists
/// (about 150 bytes an entry), so they get more room than the files agents edit; `archive`
/// refuses to write anything larger, so what it writes it can always read back (issue #12,
/// M4).
///
/// Read as streams, with no such limit (issue #12 item 2): every snapshot of the working
/// tree ([`HandoffDir::snapshot`] leaves them on disk, [`ARCHIVE_PAIR`]), so `status`,
/// `task`, `trust`, `context`, `init`, `lint`, `commit` (its first lint, its rotation, its
/// saved copy) and `archive` hash, summarise and check them in pieces; a rotation (by
/// `archive` or `commit`) checks them entry by entry and appends to their ends, and when
/// there is no index in the current layout to extend (none, a legacy one, or one whose end
/// a scan cannot find) it writes the new index as a stream, adopting the archive's entries
/// (`log_stream::Rebuilt`), and so does `init --migrate` splitting LOG.md onto them;
/// `recover` compares them with HEAD's blobs in pieces and
/// `review` never reads them ([`HandoffDir::snapshot_commit_leaving`]); the lint reads them
/// in pieces above [`HELD_WHOLE_UP_TO`] (1 MiB) when that gives what a whole lint gives
/// (`lint::pieces`); the merge driver merges them as streams above 8 MiB when a side is taken whole or each side
/// only added entries ([`merge_stream`]); `verify` (the hook, `commit`'s gate,
/// `verify --level ci`) reads their blobs from the working tree as streams when the file
/// there is the blob; `verify` and `archive --verify` check a legacy index as a stream;
/// `archive --reindex` pairs the archive's entries with the index's lines (a legacy list
/// too) as streams and writes the new index as one (`log_stream::pair_for_reindex`),
/// holding HEAD's archive blob (gix loads a blob whole) but only the texts of the index
/// lines it replaces.
///
/// Still read whole, within this limit ([`Snapshot::hold_streamed`]): a rotation (by
/// `archive`, `commit` or `init --migrate`) onto an archive holding a code fence that never
/// closes when the moved entries hold fence lines, or onto a symbolic link
/// (`log_stream::StreamedRotation::Whole`), the merge driver's other merges (an
/// index both sides changed, an archive a side rewrote), blobs the working tree does not
/// hold (gix loads a blob whole: `verify --level ci` over other commits, `recover`
/// restoring HEAD's, `--reindex`'s comparison texts), and the lint when its pieces cannot
/// be shown equal to the whole lint. (An archive moved aside into a subdirectory is linted
/// as a stream like the top-level one.) Above the limit those judge nothing: exit 2 naming
/// the file, the limit and what to do, never a pass (fail closed). Because of these, `archive` and `archive --reindex`
/// still refuse to write past the limit.
pub const MAX_ARCHIVE_BYTES: usize = 256 * 1024 * 1024;

/// [`MAX_ARCHIVE_BYTES`], the limit every reader and writer of the archive pair applies.
/// Builds with the test fail points read `AAHP_TEST_MAX_ARCHIVE_BYTES` instead when it is
/// set, so tests reach the paths beyond the limit with files of kilobytes, not 256 MiB.
pub fn max_archive_bytes() -> usize {
    #[cfg(feature = "failpoints")]
    {
        static TEST_LIMIT: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
        if let Some(limit) = *TEST_LIMIT.get_or_init(|| {
            std::env::var("AAHP_TEST_MAX_ARCHIVE_BYTES")
                .ok()
                .and_then(|v| v.parse().ok())
        }) {
            return limit;
        }
    }
    MAX_ARCHIVE_BYTES
}

/// LOG-ARCHIVE.md and its index: the files that only grow, which a snapshot of the working
/// tree leaves on disk and every reader takes as a stream (issue #12 item 2).
pub const ARCHIVE_PAIR: [&str; 2] = [log::ARCHIVE_FILE, log::INDEX_FILE];

/// True for LOG-ARCHIVE.md and its index, at the top level or (moved aside) in a
/// subdirectory: `inner` is a path relative to the handoff directory.
fn is_archive_pair(inner: &str) -> bool {
    ARCHIVE_PAIR.contains(&inner.rsplit('/').next().unwrap_or(inner))
}

/// The most of the archive pair [`Snapshot::hold_streamed`] (and `commit`'s rotation) hold
/// whole: that rotation parses and checks the pair several times over, about eight times
/// the file in memory (review of issue #12), so it stops well below the pair's limit.
pub fn held_whole_limit() -> usize {
    max_archive_bytes().min(32 * 1024 * 1024)
}

/// Why [`Snapshot::hold_streamed`] needs a file whole, and what to do when it is too large.
pub(crate) const HELD_WHOLE: &str = "this step (a rotation onto an archive with a code fence that never \
     closes) reads it whole, and nothing was changed: \
     move LOG-ARCHIVE.md and LOG-ARCHIVE.index.json into a dated subdirectory to start a new \
     archive, then rerun";

/// Returns the largest size read for a handoff file of this name (or repository-relative
/// path).
pub fn max_bytes(name: &str) -> usize {
    match name.rsplit('/').next() {
        Some(log::ARCHIVE_FILE | log::INDEX_FILE) => max_archive_bytes(),
        _ => MAX_FILE_BYTES,
    }
}

/// Where file content is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The files on disk.
    Worktree,
    /// The staged blobs: what the next commit will contain.
    Index,
    /// The tree of a commit.
    Commit(ObjectId),
}

impl Source {
    /// Describes the source for messages (`working tree`, `index`, `commit abc1234`).
    pub fn describe(&self) -> String {
        match self {
            Source::Worktree => "working tree".into(),
            Source::Index => "index".into(),
            Source::Commit(id) => format!("commit {}", Repo::short(*id)),
        }
    }
}

/// A handoff directory inside a repository.
#[derive(Debug, Clone)]
pub struct HandoffDir {
    /// Repository-relative path with `/` and no trailing slash (`.ai/handoff`).
    pub rel: String,
    /// Absolute path in the working tree.
    pub abs: PathBuf,
    /// The repository's working-tree root.
    pub root: PathBuf,
}

/// The content of a handoff directory as seen from one [`Source`]: file name → bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Top-level files by name: what the manifest indexes.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Files in subdirectories, by path relative to the handoff directory (`notes/x.md`).
    /// Agents read them too, so they are linted; the manifest does not index them.
    pub nested: BTreeMap<String, Vec<u8>>,
    /// Files present but not read, by path relative to the handoff directory, with their
    /// blob id: at pre-commit, files whose staged blob equals HEAD's (issue #14). HEAD's
    /// content was the last one judged, so they are neither hashed nor linted again; a
    /// layer that needs one reads it through [`Snapshot::read_unread`].
    pub unread: BTreeMap<String, ObjectId>,
    /// Top-level files left on disk and read as streams (LOG-ARCHIVE.md and its index on
    /// `archive`'s proportional path, issue #12): only the manifest's checksums and
    /// summaries read them, in pieces.
    pub streamed: BTreeMap<String, stream::Streamed>,
    /// Files in subdirectories named as LOG-ARCHIVE.md or its index (an archive moved aside
    /// to start a new one), by inner path, left on disk like [`Snapshot::streamed`]: only
    /// the lint reads them, in pieces (issue #12 item 2).
    pub nested_streamed: BTreeMap<String, stream::Streamed>,
    /// Configuration files read (as always) whose blob equals the baseline's (HEAD's at
    /// pre-commit): their own lint was HEAD's, and is not run again.
    pub config_as_base: std::collections::BTreeSet<String>,
    /// Files read whole whose blob is HEAD's under HEAD's lint configuration, at pre-commit
    /// (the manifest, TRUST.md: read for the layers that parse them): judged with HEAD, so
    /// not linted again (issue #14).
    pub judged_at_base: std::collections::BTreeSet<String>,
    /// The blob ids of LOG-ARCHIVE.md and its index where they were read whole from a blob
    /// (into [`Snapshot::files`]), by name: their pass state can be recorded by blob id
    /// (issue #14, see `commands::archive`).
    pub blob_ids: BTreeMap<String, ObjectId>,
    /// At pre-commit, the part of a changed file that is linted, as a byte range of its
    /// content, by inner path: the window around what changed from HEAD's blob, under HEAD's
    /// lint configuration (issue #14: cost follows the change; see
    /// `lint::pieces::changed_window`). A file not named here is linted whole.
    pub windows: BTreeMap<String, (usize, usize)>,
    /// The blob ids of LOG-ARCHIVE.md and its index where they were left on disk as the
    /// blob ([`Snapshot::streamed`], above [`HELD_WHOLE_UP_TO`]), by name, with the file's
    /// stamp taken before it was shown to be that blob: their pass state, computed from the
    /// file, is recorded by blob id only while the file still has that stamp.
    pub streamed_blob_ids: BTreeMap<String, (ObjectId, stream::Stamp)>,
    /// The commit whose blobs the files left [`Snapshot::unread`] equal: HEAD, or HEAD's
    /// parent for an amend (review atk34 #1); its manifest holds their judged state.
    pub unread_since: Option<ObjectId>,
    /// At pre-commit, the cut recorded for the baseline's blob of LOG-ARCHIVE.md or its
    /// index where the staged file, left on disk ([`Snapshot::streamed`]), changed from it,
    /// by name: its lint resumes there when the file starts as that blob did (issue #14: a
    /// rotation appends to a file of megabytes; see [`crate::lint::LintCut`]).
    pub lint_cuts: BTreeMap<String, crate::lint::LintCut>,
    /// The cache the lint records the cuts of the files left on disk as their blobs
    /// ([`Snapshot::streamed_blob_ids`]) in; `None` when none is to be recorded.
    pub lint_cut_cache: Option<PathBuf>,
}

/// Whether the pre-commit check may lint the file `inner` (a path relative to the handoff
/// directory) in the window around its change: a Markdown file other than the lint
/// configuration, the files always read, and `LOG.md` and `NEXT_ACTIONS.md`, whose structure
/// rules count entries and tasks over the whole file. LOG-ARCHIVE.md is one (read whole up
/// to [`HELD_WHOLE_UP_TO`]; beyond, it is left on disk and linted in pieces of its own): a
/// rotation appends to it, and its lint was most of a commit's (issue #14).
fn windowed(inner: &str) -> bool {
    let name = inner.rsplit('/').next().unwrap_or(inner);
    std::path::Path::new(name)
        .extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("md"))
        && !ALWAYS_READ.contains(&name)
        && !crate::lint::is_config_file(name)
        && !matches!(name, log::LOG_FILE | "NEXT_ACTIONS.md")
}

/// Files of the handoff directory whose content is always read, changed or not: the
/// manifest and the ledger other layers parse, and the lint configuration, whose change
/// makes every file judged again.
const ALWAYS_READ: &[&str] = &[
    MANIFEST,
    "TRUST.md",
    AIIGNORE,
    crate::lint::allow::ALLOWLIST,
    crate::lint::allow::PII_ALLOWLIST,
    LOCK,
];

/// A handoff directory's files in HEAD's tree, by path relative to it: what the pre-commit
/// check compares the staged blobs with to judge only what changed.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    /// The commit whose files these are.
    commit: Option<ObjectId>,
    files: HashMap<Vec<u8>, ObjectId>,
}

impl Baseline {
    /// HEAD's files below `dir` (symbolic links left out: they are always resolved and
    /// read); empty when there is no HEAD.
    pub fn at_head(repo: &Repo, dir: &HandoffDir) -> Result<Baseline> {
        Baseline::at(repo, repo.head_commit()?, dir)
    }

    /// `commit`'s files below `dir`, as [`Baseline::at_head`]; empty for no commit (the
    /// first commit, or one `git commit --amend` makes of a root commit). The pre-commit
    /// check of an amend compares with HEAD's parent: HEAD is the commit replaced, never
    /// judged as such (review atk34 #1).
    pub fn at(repo: &Repo, commit: Option<ObjectId>, dir: &HandoffDir) -> Result<Baseline> {
        let Some(commit) = commit else {
            return Ok(Baseline::default());
        };
        let files = repo
            .tree_files_below(commit, &dir.rel)?
            .into_iter()
            .filter(|f| !f.is_link)
            .map(|f| (f.path, f.id))
            .collect();
        Ok(Baseline {
            commit: Some(commit),
            files,
        })
    }

    /// HEAD's blob of the staged file `f` when it differs from it under HEAD's lint
    /// configuration (`staged` holds every staged file): the pre-commit check lints such a
    /// file in the window around its change (`lint::pieces::changed_window`).
    fn changed_from(&self, f: &TreeFile, staged: &[TreeFile]) -> Option<ObjectId> {
        let id = *self.files.get(&f.path)?;
        (id != f.id && self.config_unchanged(staged)).then_some(id)
    }

    /// Whether the lint configuration (`.aiignore` and the allowlists) is staged as HEAD
    /// holds it.
    fn config_unchanged(&self, staged: &[TreeFile]) -> bool {
        [
            AIIGNORE,
            crate::lint::allow::ALLOWLIST,
            crate::lint::allow::PII_ALLOWLIST,
        ]
        .iter()
        .all(|name| self.staged_as_held(name, staged))
    }

    /// Whether the file `name` is staged (among `staged`) as HEAD holds it: the same blob,
    /// not a link, or absent from both.
    fn staged_as_held(&self, name: &str, staged: &[TreeFile]) -> bool {
        match staged.iter().find(|f| f.path == name.as_bytes()) {
            Some(f) => !f.is_link && self.files.get(&f.path) == Some(&f.id),
            None => !self.files.contains_key(name.as_bytes()),
        }
    }

    /// The staged files that need not be read: their blob equals HEAD's. Nothing is left
    /// unread when the lint configuration changed (every file is judged again under it),
    /// and LOG-ARCHIVE.md and its index are left unread only together, since one is
    /// judged against the other.
    ///
    /// And the files that are read all the same ([`ALWAYS_READ`]:
    /// the manifest, TRUST.md) whose blob equals HEAD's under an unchanged lint
    /// configuration: HEAD's state, judged with HEAD, so read for the layers that parse them
    /// (the ledger's decay is a matter of the clock) but not linted again (issue #14).
    fn as_judged<'a>(
        &self,
        staged: &'a [TreeFile],
    ) -> (
        std::collections::HashSet<&'a [u8]>,
        std::collections::HashSet<&'a [u8]>,
    ) {
        let same = |f: &TreeFile| !f.is_link && self.files.get(&f.path) == Some(&f.id);
        let mut out = std::collections::HashSet::new();
        let mut judged = std::collections::HashSet::new();
        if self.files.is_empty() || !self.config_unchanged(staged) {
            return (out, judged);
        }
        let archive_pair = self.staged_as_held(log::ARCHIVE_FILE, staged)
            && self.staged_as_held(log::INDEX_FILE, staged);
        for f in staged {
            let name = f.path.as_slice();
            let always = ALWAYS_READ.iter().any(|n| n.as_bytes() == name);
            let paired = name == log::ARCHIVE_FILE.as_bytes() || name == log::INDEX_FILE.as_bytes();
            if same(f) && !always && (!paired || archive_pair) {
                out.insert(name);
            } else if same(f) && always {
                judged.insert(name);
            }
        }
        (out, judged)
    }
}

impl Snapshot {
    /// Adds a file by its path relative to the handoff directory.
    fn insert(&mut self, inner: String, bytes: Vec<u8>) {
        if inner.contains('/') {
            self.nested.insert(inner, bytes);
        } else {
            self.files.insert(inner, bytes);
        }
    }

    /// Leaves a file on disk, read as a stream: a top-level one in [`Snapshot::streamed`], one
    /// in a subdirectory in [`Snapshot::nested_streamed`].
    fn insert_streamed(&mut self, inner: String, streamed: stream::Streamed) {
        if inner.contains('/') {
            self.nested_streamed.insert(inner, streamed);
        } else {
            self.streamed.insert(inner, streamed);
        }
    }

    /// Returns a file's bytes (`None` when absent or left unread).
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.files.get(name).map(Vec::as_slice)
    }

    /// True when the top-level file is present, read or not.
    pub fn contains(&self, name: &str) -> bool {
        self.files.contains_key(name)
            || self.unread.contains_key(name)
            || self.streamed.contains_key(name)
    }

    /// The AAHP checksums of the files left on disk ([`Snapshot::streamed`]), by name, each
    /// read once in pieces.
    pub fn streamed_checksums(&self, dir: &HandoffDir) -> Result<HashMap<String, String>> {
        self.streamed
            .iter()
            .map(|(name, s)| Ok((name.clone(), s.checksum(&dir.path_of(name))?)))
            .collect()
    }

    /// Reads the files left on disk ([`Snapshot::streamed`]) into memory, within their size
    /// limit: for what a stream cannot do (a rotation onto an archive holding a code fence
    /// that never closes, when the moved entries hold fence lines).
    pub fn hold_streamed(&mut self, dir: &HandoffDir) -> Result<()> {
        for (name, streamed) in std::mem::take(&mut self.streamed) {
            let limit = if is_archive_pair(&name) {
                held_whole_limit()
            } else {
                max_bytes(&name)
            };
            let bytes = streamed.read_all(&dir.path_of(&name), limit, HELD_WHOLE)?;
            self.files.insert(name, bytes);
        }
        Ok(())
    }

    /// Records the window of the file `inner` (read, as `f` among the `staged` files) that
    /// the pre-commit check lints, when it changed from `base`'s blob
    /// ([`Snapshot::windows`]). A base blob that cannot be read leaves the file whole.
    fn window_change(
        &mut self,
        repo: &Repo,
        base: &Baseline,
        f: &TreeFile,
        staged: &[TreeFile],
        inner: String,
    ) {
        if !f.is_link && inner == log::INDEX_FILE {
            // The index is JSON: linted from a cut between its entries (see
            // `lint::index_window_cut`).
            if let Some(old_id) = base.changed_from(f, staged)
                && let Some(new) = self.files.get(&inner)
                && new.len() >= crate::lint::WINDOW_FROM
                && let Ok(Ok(old)) = repo.blob_within(old_id, max_bytes(&inner))
                && let Some(cut) = crate::lint::index_window_cut(&old, new)
            {
                self.lint_cuts.insert(inner, cut);
            }
            return;
        }
        if f.is_link || !windowed(&inner) {
            return;
        }
        let Some(old_id) = base.changed_from(f, staged) else {
            return;
        };
        let new = self.files.get(&inner).or_else(|| self.nested.get(&inner));
        if let Some(new) = new
            && new.len() >= crate::lint::WINDOW_FROM
            && let Ok(Ok(old)) = repo.blob_within(old_id, max_bytes(&inner))
            && let Some(window) = crate::lint::changed_window(&old, new)
        {
            self.windows.insert(inner, window);
        }
    }

    /// Notes, for LOG-ARCHIVE.md or its index left on disk as its staged blob (`f` among
    /// the `staged` files), the cache its lint records its cut in, and the cut recorded for
    /// `base`'s blob when it changed from it ([`Snapshot::lint_cuts`]). `cuts` is the cache,
    /// opened at the first use.
    fn resume_change(
        &mut self,
        repo: &Repo,
        base: &Baseline,
        f: &TreeFile,
        staged: &[TreeFile],
        inner: &str,
        cuts: &mut Option<checksum_cache::BlobCache>,
    ) {
        if !git_dir_caches_trusted() {
            return;
        }
        let cache = cuts.get_or_insert_with(|| checksum_cache::BlobCache::lint_cuts(repo));
        self.lint_cut_cache = cache.location();
        if f.is_link {
            return;
        }
        if let Some(old_id) = base.changed_from(f, staged)
            && let Some(cut) = cache.lint_cut(old_id)
        {
            self.lint_cuts.insert(inner.to_string(), cut);
        }
    }

    /// True when some files were left unread (a pre-commit snapshot of what changed).
    pub fn is_partial(&self) -> bool {
        !self.unread.is_empty()
    }

    /// Reads every file left unread, so the snapshot holds the whole directory (LOG-ARCHIVE.md
    /// and its index above [`HELD_WHOLE_UP_TO`] on disk when the working tree holds them unchanged, see
    /// [`HandoffDir::snapshot_commit`]: `verify` alone calls this).
    pub fn read_unread(&mut self, repo: &Repo, dir: &HandoffDir) -> Result<()> {
        for (inner, id) in std::mem::take(&mut self.unread) {
            dir.read_blob(repo, self, inner, id, true)?;
        }
        Ok(())
    }

    /// Returns a file as text, refusing invalid UTF-8 with the file and line.
    pub fn text(&self, dir: &HandoffDir, name: &str) -> Result<Option<&str>> {
        match self.files.get(name) {
            Some(bytes) => Ok(Some(decode_text(&dir.path_of(name), bytes)?)),
            None => Ok(None),
        }
    }

    /// Names of the files the manifest indexes, in manifest order: canonical files first,
    /// then other `*.md` files by name.
    pub fn indexed_names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = CANONICAL_FILES
            .iter()
            .copied()
            .filter(|n| self.contains(n))
            .collect();
        let mut others: Vec<&str> = self
            .files
            .keys()
            .chain(self.unread.keys())
            .chain(self.streamed.keys())
            .map(String::as_str)
            .filter(|n| !n.contains('/') && is_indexed_name(n) && !CANONICAL_FILES.contains(n))
            .collect();
        others.sort_unstable();
        out.extend(others);
        out
    }
}

/// Returns true for names the manifest indexes: `*.md`, `pii-allowlist.json`,
/// `LOG-ARCHIVE.index.json` (the reference schema's `files` keys).
#[expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "AAHP file keys are case-sensitive (`^.+\\.md$`)"
)]
pub fn is_indexed_name(name: &str) -> bool {
    CANONICAL_FILES.contains(&name)
        || (name.ends_with(".md") && name.len() > 3 && !name.starts_with('.'))
}

impl HandoffDir {
    /// Returns the repository-relative path of a file in this directory.
    pub fn path_of(&self, name: &str) -> String {
        if self.rel.is_empty() {
            name.to_string()
        } else {
            format!("{}/{name}", self.rel)
        }
    }

    /// Returns the repository-relative directory that contains the handoff directory's
    /// package: `packages/api` for `packages/api/.ai/handoff`, empty for the root. Drift is
    /// judged within it, so monorepo packages gate only their own code.
    pub fn package_root(&self) -> &str {
        match self.rel.strip_suffix(DEFAULT_DIR) {
            Some(p) => p.trim_end_matches('/'),
            None => self.rel.rsplit_once('/').map_or("", |(p, _)| p),
        }
    }

    /// Returns the repository-relative path of a file at the project root (the directory
    /// holding the handoff directory's `.ai/`, see [`HandoffDir::package_root`]).
    pub fn project_path(&self, name: &str) -> String {
        match self.package_root() {
            "" => name.to_string(),
            root => format!("{root}/{name}"),
        }
    }

    /// Reads a file of the project this directory belongs to (`aahp.config.json`,
    /// `package.json`, `LICENSE` at [`HandoffDir::package_root`]) from `source`; `None` when
    /// it is not there. A symbolic link, a special file or an oversized blob is bad input
    /// (exit 2 naming the file), never followed or read without bound.
    pub fn project_file(
        &self,
        repo: &Repo,
        source: &Source,
        name: &str,
    ) -> Result<Option<Vec<u8>>> {
        let rel = self.project_path(name);
        let limit = max_bytes(&rel);
        let from_blob = |file: Option<TreeFile>| -> Result<Option<Vec<u8>>> {
            let Some(f) = file else { return Ok(None) };
            if f.is_link {
                return Err(Error::invalid(
                    &rel,
                    None,
                    "is a symbolic link; it must be a regular file",
                ));
            }
            match repo.blob_within(f.id, limit)? {
                Ok(bytes) => Ok(Some(bytes)),
                Err(size) => Err(too_large_blob(&rel, size)),
            }
        };
        match source {
            Source::Worktree => {
                let path = repo.workdir().join(&rel);
                match std::fs::symlink_metadata(&path) {
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(source) => Err(Error::Read { path: rel, source }),
                    Ok(m) if m.file_type().is_symlink() => Err(Error::invalid(
                        &rel,
                        None,
                        "is a symbolic link; it must be a regular file",
                    )),
                    Ok(_) => read_limited(&path, &rel).map(Some),
                }
            }
            Source::Index => {
                let index = repo.index()?;
                from_blob(Repo::index_file_at(&index, &rel))
            }
            Source::Commit(id) => from_blob(repo.tree_file_at(*id, &rel)?),
        }
    }

    /// Returns true when the directory exists in the working tree.
    pub fn exists(&self) -> bool {
        self.abs.is_dir()
    }

    /// Reads every file of the directory from `source`: top-level files into
    /// [`Snapshot::files`], files in subdirectories into [`Snapshot::nested`]. Names that are
    /// not UTF-8 or hold control characters, and links leading out of the work tree or into
    /// `.git`, are refused (exit 2) before anything else happens.
    ///
    /// From the working tree, LOG-ARCHIVE.md and its index are left on disk
    /// ([`Snapshot::streamed`], see [`ARCHIVE_PAIR`]): they only grow, so every layer reads
    /// them as streams (checksums, summaries, the archive check, the lint in pieces), and a
    /// command that needs them whole says so with [`Snapshot::hold_streamed`] (issue #12
    /// item 2).
    pub fn snapshot(&self, repo: &Repo, source: Source) -> Result<Snapshot> {
        match source {
            Source::Worktree => self.snapshot_worktree(&ARCHIVE_PAIR),
            Source::Index => self.snapshot_index(repo, &*repo.index()?),
            Source::Commit(commit) => self.snapshot_commit(repo, commit, false),
        }
    }

    /// Reads the directory as a commit holds it. With `stream`, LOG-ARCHIVE.md and its
    /// index above [`HELD_WHOLE_UP_TO`] that the working tree holds unchanged are left on disk
    /// ([`Snapshot::streamed`]): for the checks that only read them (`verify`), never for a
    /// command that restores or compares what it read.
    pub fn snapshot_commit(&self, repo: &Repo, commit: ObjectId, stream: bool) -> Result<Snapshot> {
        Self::refuse_gitlink(repo.tree_gitlink_below(commit, &self.rel)?)?;
        let files = repo.tree_files_below(commit, &self.rel)?;
        self.snapshot_commit_files(repo, commit, &files, stream, &[])
    }

    /// Reads the directory as a commit holds it, leaving the top-level files named in
    /// `leave` unread ([`Snapshot::unread`], with their blob ids) when they are not
    /// symbolic links: for a command that never needs their text (`review` and `recover`
    /// with LOG-ARCHIVE.md and its index, issue #12 item 2).
    pub fn snapshot_commit_leaving(
        &self,
        repo: &Repo,
        commit: ObjectId,
        leave: &[&str],
    ) -> Result<Snapshot> {
        Self::refuse_gitlink(repo.tree_gitlink_below(commit, &self.rel)?)?;
        let files = repo.tree_files_below(commit, &self.rel)?;
        self.snapshot_commit_files(repo, commit, &files, false, leave)
    }

    /// Reads only the top-level files `names` of the directory as a commit holds it: for a
    /// step that needs one file of a commit it did not choose (`recover` reads the
    /// interrupted session's TRUST.md from the copy it saved), so a name elsewhere in that
    /// commit that no command can write (not UTF-8, say) cannot wedge it.
    pub fn snapshot_commit_only(
        &self,
        repo: &Repo,
        commit: ObjectId,
        names: &[&str],
    ) -> Result<Snapshot> {
        let files: Vec<TreeFile> = repo
            .tree_files_below(commit, &self.rel)?
            .into_iter()
            .filter(|f| names.iter().any(|n| f.path == n.as_bytes()))
            .collect();
        self.snapshot_commit_files(repo, commit, &files, false, &[])
    }

    /// Reads `files` of `commit`'s directory, its links resolved in that commit's tree.
    fn snapshot_commit_files(
        &self,
        repo: &Repo,
        commit: ObjectId,
        files: &[TreeFile],
        stream: bool,
        leave: &[&str],
    ) -> Result<Snapshot> {
        self.snapshot_files(
            repo,
            files,
            &Baseline::default(),
            stream,
            leave,
            (
                |target: &str| Ok(repo.tree_file_at(commit, target)?),
                |target: &str| Ok(repo.tree_has_dir(commit, target)?),
            ),
        )
    }

    /// Reads the directory's staged content from an already opened, complete index.
    pub fn snapshot_index(&self, repo: &Repo, index: &gix::index::State) -> Result<Snapshot> {
        self.snapshot_index_since(repo, index, &Baseline::default())
    }

    /// Reads the directory's staged content from an index, leaving unread the files whose
    /// blob equals `base`'s (see [`Snapshot::unread`]), and on disk LOG-ARCHIVE.md and its
    /// index above [`HELD_WHOLE_UP_TO`] that the working tree holds as staged (see
    /// [`HandoffDir::snapshot_commit`]): for `verify`, which only reads them.
    pub fn snapshot_index_since(
        &self,
        repo: &Repo,
        index: &gix::index::State,
        base: &Baseline,
    ) -> Result<Snapshot> {
        Self::refuse_gitlink(Repo::index_gitlink_below(index, &self.rel))?;
        let files = Repo::index_files_below(index, &self.rel);
        self.snapshot_files(
            repo,
            &files,
            base,
            true,
            &[],
            (
                |target: &str| Ok(Repo::index_file_at(index, target)),
                |target: &str| Ok(Repo::index_has_dir(index, target)),
            ),
        )
    }

    /// Reads the directory's staged content through a [`StagedView`] (the pre-commit path,
    /// whose index may hold only the entries the commit changes), leaving unread the files
    /// whose blob equals `base`'s, and on disk the large ones the working tree holds as
    /// staged (as [`HandoffDir::snapshot_index_since`]).
    pub fn snapshot_staged(&self, view: &StagedView<'_>, base: &Baseline) -> Result<Snapshot> {
        Self::refuse_gitlink(view.gitlink_below(&self.rel)?)?;
        let files = view.files_below(&self.rel)?;
        self.snapshot_files(
            view.repo(),
            &files,
            base,
            true,
            &[],
            (
                |target: &str| Ok(view.file_at(target)?),
                |target: &str| Ok(view.has_dir(target)?),
            ),
        )
    }

    /// Reads the directory from the working tree like [`HandoffDir::snapshot`], leaving unread
    /// ([`Snapshot::unread`]) the files whose bytes are `base`'s blob, by the pre-commit
    /// snapshot's rules ([`Baseline::unchanged`]: nothing when the lint configuration changed,
    /// the archive pair only together, the manifest, TRUST.md and the configuration always
    /// read), and marking the configuration files equal to `base`'s
    /// ([`Snapshot::config_as_base`]). For `commit`'s first lint, which then judges what the
    /// session changed as the pre-commit gate does (issue #14). A link is never left unread.
    pub fn snapshot_worktree_since(&self, repo: &Repo, base: &Baseline) -> Result<Snapshot> {
        let mut snap = self.snapshot_worktree(&ARCHIVE_PAIR)?;
        if base.files.is_empty() {
            return Ok(snap);
        }
        snap.unread_since = base.commit;
        let is_link = |inner: &str| {
            std::fs::symlink_metadata(self.abs.join(inner)).map_or(true, |m| !m.is_file())
        };
        let mut files = Vec::new();
        for (inner, bytes) in snap.files.iter().chain(&snap.nested) {
            let id = repo.blob_id_of(bytes)?;
            files.push(TreeFile {
                path: inner.as_bytes().to_vec(),
                id,
                is_link: is_link(inner),
            });
        }
        for inner in snap.streamed.keys() {
            // Hashed only when HEAD holds the file: from the index's stat data when they are
            // clean, else in pieces. A file that differs keeps an id no blob has.
            let same = match base.files.get(inner.as_bytes()) {
                Some(id) if !is_link(inner) && repo.file_is_blob(&self.path_of(inner), *id)? => {
                    Some(*id)
                }
                _ => None,
            };
            files.push(TreeFile {
                path: inner.as_bytes().to_vec(),
                id: same.unwrap_or_else(|| ObjectId::null(repo.object_hash())),
                is_link: same.is_none(),
            });
        }
        let (unchanged, judged) = base.as_judged(&files);
        let unchanged: std::collections::HashSet<Vec<u8>> =
            unchanged.into_iter().map(<[u8]>::to_vec).collect();
        let judged: std::collections::HashSet<Vec<u8>> =
            judged.into_iter().map(<[u8]>::to_vec).collect();
        for f in &files {
            let Ok(inner) = std::str::from_utf8(&f.path) else {
                continue;
            };
            if !f.is_link
                && crate::lint::is_config_file(inner)
                && base.files.get(&f.path) == Some(&f.id)
            {
                snap.config_as_base.insert(inner.to_string());
            }
            if judged.contains(&f.path) {
                snap.judged_at_base.insert(inner.to_string());
            }
            if unchanged.contains(&f.path) {
                snap.files.remove(inner);
                snap.nested.remove(inner);
                snap.streamed.remove(inner);
                snap.unread.insert(inner.to_string(), f.id);
            } else {
                snap.window_change(repo, base, f, &files, inner.to_string());
            }
        }
        Ok(snap)
    }

    /// Reads the directory from the working tree like [`HandoffDir::snapshot`], leaving the
    /// top-level regular files named in `streamed` on disk ([`Snapshot::streamed`]): a
    /// command that only appends to them never holds them in memory.
    pub fn snapshot_worktree_streaming(&self, streamed: &[&str]) -> Result<Snapshot> {
        self.snapshot_worktree(streamed)
    }

    fn snapshot_worktree(&self, streamed: &[&str]) -> Result<Snapshot> {
        let mut snap = Snapshot::default();
        // Directories still to read: (absolute path, path relative to the handoff directory).
        let mut pending = vec![(self.abs.clone(), String::new())];
        while let Some((abs, sub)) = pending.pop() {
            let shown = if sub.is_empty() {
                self.rel.clone()
            } else {
                self.path_of(&sub)
            };
            let read_dir = match std::fs::read_dir(&abs) {
                Ok(r) => r,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && sub.is_empty() => {
                    return Ok(snap);
                }
                Err(source) => {
                    return Err(Error::Read {
                        path: shown,
                        source,
                    });
                }
            };
            for entry in read_dir {
                let entry = entry.map_err(|source| Error::Read {
                    path: shown.clone(),
                    source,
                })?;
                let raw = entry.file_name();
                // The lock and temporary files are never handoff content, and another process
                // may create or remove them at any moment; the lock is read by its own checks.
                if sub.is_empty() && (raw == LOCK || raw.to_str().is_some_and(is_temp_name)) {
                    continue;
                }
                let name = self.checked_name(&sub, raw.as_encoded_bytes())?;
                let inner = location::join(&sub, &name);
                let rel = self.path_of(&inner);
                let meta =
                    std::fs::symlink_metadata(entry.path()).map_err(|source| Error::Read {
                        path: rel.clone(),
                        source,
                    })?;
                if meta.file_type().is_symlink() {
                    let target = match entry.path().canonicalize() {
                        Ok(t) => t,
                        // A link to nothing holds no text (an editor's lock, `.#STATUS.md`,
                        // points at `user@host.pid`): left alone, unless it stands where a
                        // handoff file belongs.
                        Err(e)
                            if e.kind() == std::io::ErrorKind::NotFound
                                && !is_protocol_file(&inner) =>
                        {
                            continue;
                        }
                        Err(source) => {
                            return Err(Error::Read {
                                path: rel.clone(),
                                source,
                            });
                        }
                    };
                    let inside = target.strip_prefix(&self.root).ok();
                    let into_git = inside.is_some_and(|t| {
                        t.components()
                            .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
                    });
                    if inside.is_none() || into_git {
                        return Err(Error::invalid(
                            rel,
                            None,
                            format!(
                                "symbolic link points {} ({}); handoff files must be files of the work tree",
                                if into_git {
                                    "into .git"
                                } else {
                                    "outside the repository"
                                },
                                output::escape_untrusted(&target.to_string_lossy())
                            ),
                        ));
                    }
                    let package = self.package_root();
                    if !package.is_empty() && inside.is_some_and(|t| !t.starts_with(package)) {
                        return Err(Error::invalid(
                            rel,
                            None,
                            format!(
                                "symbolic link points out of its package {} ({}): a change \
                                 there is not judged as this package's, so this handoff file \
                                 would change unjudged; put the file itself in place of the link",
                                output::escape_untrusted(package),
                                output::escape_untrusted(&target.to_string_lossy())
                            ),
                        ));
                    }
                    // A link to a directory: git stores the link, not the files an agent
                    // finds through it, so nothing can judge them (refused, as a committed
                    // one is). A link to a FIFO or a device is refused as one in place would be.
                    if target.is_dir() && !is_protocol_file(&inner) {
                        return Err(link_to_directory(&rel, &target.to_string_lossy()));
                    }
                    if !target.is_file() {
                        return Err(not_regular(&rel, &target));
                    }
                } else if meta.is_dir() {
                    // A directory where a handoff file belongs (review s29 #3) would be read
                    // as a subdirectory, the file silently gone from the index.
                    if sub.is_empty() && is_protocol_file(&inner) {
                        return Err(not_regular(&rel, &entry.path()));
                    }
                    pending.push((entry.path(), inner));
                    continue;
                } else if !meta.is_file() {
                    // A FIFO, socket or device is never handoff content, and skipping it
                    // would let a FIFO in place of `.aiignore` turn the checks it configures
                    // off: refused, named (exit 2).
                    return Err(not_regular(&rel, &entry.path()));
                }
                let left_on_disk = if sub.is_empty() {
                    streamed.contains(&inner.as_str())
                } else {
                    is_archive_pair(&inner)
                };
                if meta.is_file() && left_on_disk {
                    snap.insert_streamed(inner, stream::Streamed::whole(entry.path(), meta.len()));
                    continue;
                }
                let bytes = read_limited(&entry.path(), &rel)?;
                snap.insert(inner, bytes);
            }
        }
        Ok(snap)
    }

    /// Refuses, before a command reads or writes anything, a name anywhere in the directory
    /// on disk that [`HandoffDir::checked_name`] refuses (exit 2, the name escaped).
    pub fn check_names(&self) -> Result<()> {
        let mut pending = vec![(self.abs.clone(), String::new())];
        while let Some((abs, sub)) = pending.pop() {
            let Ok(read_dir) = std::fs::read_dir(&abs) else {
                // Unreadable directories are reported by whatever reads them.
                continue;
            };
            for entry in read_dir.flatten() {
                let name = self.checked_name(&sub, entry.file_name().as_encoded_bytes())?;
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    pending.push((entry.path(), location::join(&sub, &name)));
                }
            }
        }
        Ok(())
    }

    /// Refuses a file name (in the subdirectory `sub` of the handoff directory) that is not
    /// UTF-8 or holds a control character: such names cannot be staged, shown or restored
    /// reliably, so every command stops before it writes anything (exit 2).
    pub fn checked_name(&self, sub: &str, raw: &[u8]) -> Result<String> {
        let refuse = |why: &str| {
            let shown = format!(
                "{}/{}",
                self.path_of(sub).trim_end_matches('/'),
                escape_bytes(raw)
            );
            Error::invalid(
                shown,
                None,
                format!(
                    "{why}; rename or remove the file (handoff file names must be plain UTF-8 text)"
                ),
            )
        };
        let name =
            std::str::from_utf8(raw).map_err(|_| refuse("the file name is not valid UTF-8"))?;
        if name.chars().any(char::is_control) {
            return Err(refuse("the file name holds control characters"));
        }
        // The manifest indexes files by name; a name it could not hold as a key would be
        // written once and then refused by every reader.
        if !name.split('/').all(manifest::is_safe_file_key) {
            return Err(refuse(
                "the file name holds `\\`, starts with `~` or has `:` as its second character (read as a drive)",
            ));
        }
        Ok(name.to_string())
    }

    /// Refuses a submodule (gitlink) found inside the directory: the files a checkout puts
    /// there belong to another repository, so nothing here can judge them, and an agent
    /// reads them as handoff files all the same (exit 2, fail closed).
    fn refuse_gitlink(found: Option<String>) -> Result<()> {
        match found {
            None => Ok(()),
            Some(path) => Err(Error::invalid(
                path,
                None,
                "is a git submodule inside the handoff directory: the files a checkout puts \
                 there are another repository's, and cannot be judged here. Replace it with \
                 the files themselves (`git rm --cached` it, then add its files), or move it \
                 out of the handoff directory",
            )),
        }
    }

    fn snapshot_files(
        &self,
        repo: &Repo,
        files: &[TreeFile],
        base: &Baseline,
        stream: bool,
        leave: &[&str],
        (mut lookup, mut is_dir): (
            impl FnMut(&str) -> Result<Option<TreeFile>>,
            impl FnMut(&str) -> Result<bool>,
        ),
    ) -> Result<Snapshot> {
        let mut snap = Snapshot {
            unread_since: base.commit,
            ..Snapshot::default()
        };
        let (unchanged, judged) = base.as_judged(files);
        let mut cuts = None;
        for f in files {
            let name = self.checked_name("", &f.path)?;
            if let Some((top, _)) = name.split_once('/')
                && is_protocol_file(top)
            {
                return Err(Error::invalid(
                    self.path_of(top),
                    None,
                    "not a regular file but a directory; a handoff file must be a regular \
                     file: remove it or replace it with one",
                ));
            }
            if !f.is_link
                && crate::lint::is_config_file(&name)
                && base.files.get(&f.path) == Some(&f.id)
            {
                snap.config_as_base.insert(name.clone());
            }
            if judged.contains(f.path.as_slice()) {
                snap.judged_at_base.insert(name.clone());
            }
            if unchanged.contains(f.path.as_slice()) || (!f.is_link && leave.contains(&&*name)) {
                snap.unread.insert(name, f.id);
                continue;
            }
            let rel = self.path_of(&name);
            let id = if f.is_link {
                link_target(
                    repo,
                    &rel,
                    self.package_root(),
                    f.id,
                    &mut lookup,
                    &mut is_dir,
                )?
            } else {
                f.id
            };
            self.read_blob(repo, &mut snap, name.clone(), id, stream)?;
            if snap.streamed_blob_ids.contains_key(&name) {
                snap.resume_change(repo, base, f, files, &name, &mut cuts);
            }
            snap.window_change(repo, base, f, files, name);
        }
        Ok(snap)
    }

    /// Adds the blob `id` to `snap` as the file `inner` (relative to the directory): read
    /// whole within its limit, except LOG-ARCHIVE.md and its index above
    /// [`HELD_WHOLE_UP_TO`] whose file in the working tree is that blob (by the git index's
    /// stat data, else hashed in pieces): they
    /// are left on disk and read from there as streams, like the working tree's
    /// ([`Snapshot::streamed`]), since gix loads a blob whole (issue #12 item 2).
    fn read_blob(
        &self,
        repo: &Repo,
        snap: &mut Snapshot,
        inner: String,
        id: ObjectId,
        stream: bool,
    ) -> Result<()> {
        let rel = self.path_of(&inner);
        let streamable = stream && is_archive_pair(&inner);
        if streamable {
            // Tests arm `blob-in-pieces` to take this path with small files.
            let whole_up_to = if crate::failpoint::armed_flag("blob-in-pieces") {
                0
            } else {
                HELD_WHOLE_UP_TO as u64
            };
            let size = repo.blob_size(id)?;
            let path = self.root.join(&rel);
            // Taken before the comparison: a file written after it has another stamp.
            let stamp = stream::Stamp::of(&path);
            if size > whole_up_to && repo.file_is_blob(&rel, id)? {
                if let Some(stamp) = stamp
                    && !inner.contains('/')
                {
                    snap.streamed_blob_ids.insert(inner.clone(), (id, stamp));
                }
                snap.insert_streamed(inner, stream::Streamed::whole(path, size));
                return Ok(());
            }
        }
        // Tests arm `read-whole:NAME` to prove a command never holds that file in memory.
        #[cfg(feature = "failpoints")]
        crate::failpoint::error(&format!("read-whole:{inner}")).map_err(|source| Error::Read {
            path: rel.clone(),
            source,
        })?;
        let bytes = repo
            .blob_within(id, max_bytes(&rel))?
            .map_err(|size| too_large_blob(&rel, size))?;
        if is_archive_pair(&inner) && !inner.contains('/') {
            snap.blob_ids.insert(inner.clone(), id);
        }
        snap.insert(inner, bytes);
        Ok(())
    }
}

/// Shows bytes of a file name: UTF-8 text with control characters escaped, other bytes as
/// `\xNN`.
pub fn escape_bytes(raw: &[u8]) -> String {
    let mut out = String::new();
    for chunk in raw.utf8_chunks() {
        out.push_str(&output::escape_untrusted(chunk.valid()));
        for b in chunk.invalid() {
            use std::fmt::Write as _;
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

/// The refusal of a symbolic link (`rel`) to a directory (`target`) in a handoff directory:
/// git holds the link, not the files an agent finds through it, so the gate cannot judge
/// them as handoff files (exit 2, fail closed).
fn link_to_directory(rel: &str, target: &str) -> Error {
    Error::invalid(
        rel,
        None,
        format!(
            "symbolic link to a directory ({}): the files an agent finds through it would \
             not be judged as handoff files. Put the directory itself in its place, or move \
             the link out of the handoff directory",
            output::escape_untrusted(target)
        ),
    )
}

/// How many links in a row a committed or staged handoff file may go through.
pub(crate) const MAX_LINK_HOPS: usize = 8;

/// The blob a symbolic link `rel` (blob `link`) of a commit or the index leads to, through
/// further links, within the same source. A link to a directory ([`link_to_directory`]),
/// out of the repository, into `.git`, to something the source does not hold, or through
/// too many links is refused (exit 2): the gate cannot judge what it cannot read, and a
/// link the working tree follows to an untracked file must not pass unread (fail closed).
fn link_target(
    repo: &Repo,
    rel: &str,
    package: &str,
    mut link: ObjectId,
    lookup: &mut impl FnMut(&str) -> Result<Option<TreeFile>>,
    is_dir: &mut impl FnMut(&str) -> Result<bool>,
) -> Result<ObjectId> {
    let refuse = |why: String| Error::invalid(rel, None, why);
    let mut from = rel.to_string();
    for _ in 0..MAX_LINK_HOPS {
        let target = repo.link_target(link, &from)?;
        let shown = output::escape_untrusted(&target);
        let resolved = resolve_link(parent(&from), &target).ok_or_else(|| {
            refuse(format!(
                "symbolic link points outside the repository ({shown})"
            ))
        })?;
        if resolved.split('/').any(|c| c.eq_ignore_ascii_case(".git")) {
            return Err(refuse(format!(
                "symbolic link points into .git ({shown}); handoff files must be files of the work tree"
            )));
        }
        // A change out of the package is judged as no package's (review s25 #5): the handoff
        // file it edits through the link would pass unjudged.
        if !package.is_empty() && !resolved.starts_with(&format!("{package}/")) {
            return Err(refuse(format!(
                "symbolic link points out of its package {} ({shown}): a change there is \
                 not judged as this package's, so this handoff file would change unjudged; \
                 put the file itself in place of the link",
                output::escape_untrusted(package)
            )));
        }
        match lookup(&resolved)? {
            Some(t) if !t.is_link => return Ok(t.id),
            Some(t) => {
                link = t.id;
                from = resolved;
            }
            None if is_dir(&resolved)? => return Err(link_to_directory(rel, &resolved)),
            None => {
                return Err(refuse(format!(
                    "symbolic link points to {}, which what is judged (the commit or the \
                     index) does not hold: its content cannot be checked; commit the file it \
                     points to, or put that file itself in place of the link",
                    output::escape_untrusted(&resolved)
                )));
            }
        }
    }
    Err(refuse(format!(
        "symbolic link leads through more than {MAX_LINK_HOPS} links; put the file itself in \
         its place"
    )))
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(p, _)| p)
}

/// Resolves a symlink target written in `dir` to a repository-relative path, or `None` when it
/// is absolute or climbs out of the repository.
pub fn resolve_link(dir: &str, target: &str) -> Option<String> {
    if target.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for c in target.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            c => parts.push(c),
        }
    }
    Some(parts.join("/"))
}

/// The last component of a repository-relative path.
pub(crate) fn file_name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, n)| n)
}

/// A blob read from git above its file's limit: gix loads a blob whole, so LOG-ARCHIVE.md
/// and its index are read from the working tree as streams when it holds the same blob, and
/// held within their limit otherwise.
pub(crate) fn too_large_blob(path: &str, len: u64) -> Error {
    let name = file_name(path);
    let how = if matches!(name, log::ARCHIVE_FILE | log::INDEX_FILE) {
        "; it is read as a stream from the working tree when the file there is that blob: \
         make the working tree's file match what is checked (`git checkout` or `git add` it) \
         and rerun"
    } else {
        ""
    };
    Error::invalid(
        path,
        None,
        format!(
            "file is {len} bytes in git; a file read from git is loaded whole, and {name} is limited to {} bytes that way{how}",
            max_bytes(path)
        ),
    )
}

/// A file shown as `path`, holding the handoff file `kind` (see [`read_limited_as`]), above
/// that file's limit.
fn too_large_as(path: &str, kind: &str, len: u64) -> Error {
    Error::invalid(
        path,
        None,
        format!(
            "file is {len} bytes; {} is limited to {} bytes",
            file_name(kind),
            max_bytes(kind)
        ),
    )
}

/// Reads a file, refusing anything larger than [`max_bytes`] for its name. The size in the
/// error is the file's real size (issue #12, L8), taken before reading; a file that grows
/// while it is read is cut at the limit and refused as well.
pub fn read_limited(path: &Path, rel: &str) -> Result<Vec<u8>> {
    read_limited_as(path, rel, rel)
}

/// [`read_limited`] for a file shown as `rel` that holds the handoff file `kind` (a name
/// or repository-relative path), which decides its limit: the merge driver's temporary
/// copies of LOG-ARCHIVE.md get the archive's limit, not that of a file named
/// `LOG-ARCHIVE.md (ours)`.
pub fn read_limited_as(path: &Path, rel: &str, kind: &str) -> Result<Vec<u8>> {
    use std::io::Read;
    let limit = max_bytes(kind);
    let read_err = |source| Error::Read {
        path: rel.to_string(),
        source,
    };
    // Tests arm `read-whole:NAME` to prove a command never holds that file in memory.
    #[cfg(feature = "failpoints")]
    crate::failpoint::error(&format!("read-whole:{}", file_name(kind))).map_err(read_err)?;
    let (file, meta) = open_regular(path, rel)?;
    let len = meta.len();
    if len > limit as u64 {
        return Err(too_large_as(rel, kind, len));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(read_err)?;
    if bytes.len() > limit {
        return Err(Error::invalid(
            rel,
            None,
            format!(
                "file grew past {limit} bytes while it was read; {} is limited to {limit} bytes",
                file_name(kind)
            ),
        ));
    }
    Ok(bytes)
}

/// Whether the caches in the git directory (checksums, token counts, pass states, the
/// importers list) may be read: not by `verify --level ci` and `review`, which judge a
/// checkout whose git directory a pull request may have written (a CI cache restored from
/// one the pull request's own run saved). A forged importers list for the tip's tree hid
/// every agent configuration the range left alone, and with it the scripts they run that
/// the range changed, a blocking finding included (review atk43 #3). A cache only saves
/// work, so not reading one only costs it.
static GIT_DIR_CACHES_DISTRUSTED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Stops this process reading (and writing) the caches in the git directory: see
/// [`git_dir_caches_trusted`].
pub fn distrust_git_dir_caches() {
    GIT_DIR_CACHES_DISTRUSTED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether this process reads the caches in the git directory.
pub fn git_dir_caches_trusted() -> bool {
    !GIT_DIR_CACHES_DISTRUSTED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Reads a file of the tool's own state in the git directory (a cache, a commit journal, a
/// session record) as a handoff file is read ([`read_limited`]): opened without waiting and
/// read only when it is a regular file within the size limit, so a FIFO planted there
/// never hangs a command (review rob35 #5). `Ok(None)` when there is no such file.
pub fn read_state_file(path: &Path) -> Result<Option<Vec<u8>>> {
    match read_limited(path, &path.display().to_string()) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(Error::Read { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Opens a handoff file for reading: without waiting (a FIFO with no writer would block
/// `open` itself), then judged by what was opened, so only a regular file is read and a
/// FIFO or device never is (exit 2 naming `shown`).
pub(crate) fn open_regular(path: &Path, shown: &str) -> Result<(std::fs::File, std::fs::Metadata)> {
    let read_err = |source| Error::Read {
        path: shown.to_string(),
        source,
    };
    let file = open_nonblocking(path).map_err(read_err)?;
    let meta = file.metadata().map_err(read_err)?;
    if !meta.is_file() {
        return Err(Error::invalid(
            shown,
            None,
            format!(
                "not a regular file but {}; a handoff file must be a regular file",
                special_kind(meta.file_type())
            ),
        ));
    }
    Ok((file, meta))
}

/// Whether `inner` (a path in the handoff directory) is one of the files the protocol
/// defines: the manifest, the canonical Markdown and JSON files, the lint configuration.
fn is_protocol_file(inner: &str) -> bool {
    inner == MANIFEST
        || inner == AIIGNORE
        || inner == crate::lint::allow::ALLOWLIST
        || CANONICAL_FILES.contains(&inner)
}

/// The error for a path in the handoff directory that is not a regular file: what `path`
/// (the entry, or a link's target) is, shown as `rel`.
fn not_regular(rel: &str, path: &Path) -> Error {
    let kind = std::fs::metadata(path).map_or("unreadable", |m| special_kind(m.file_type()));
    Error::invalid(
        rel,
        None,
        format!(
            "not a regular file but {kind}; a handoff file must be a regular file: remove it or replace it with one"
        ),
    )
}

/// Opens a file for reading without waiting for a writer (`O_NONBLOCK`, which a regular
/// file ignores).
#[cfg(unix)]
pub(crate) fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
pub(crate) fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// Names the kind of a file that is not a regular one, for error messages.
pub(crate) fn special_kind(t: std::fs::FileType) -> &'static str {
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    "a special file"
}

/// Decodes UTF-8 text (a leading BOM is skipped), naming the file and line of the first
/// invalid byte.
pub fn decode_text<'a>(path: &str, bytes: &'a [u8]) -> Result<&'a str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let line = line_count(&bytes[..e.valid_up_to()]) + 1;
        match encrypted_header(bytes) {
            Some(what) => Error::invalid(
                path,
                Some(line),
                format!(
                    "invalid UTF-8: the file is {what}; a checkout with the key decrypts it into \
                     text nothing can judge here, so keep handoff files out of the encryption \
                     filter's patterns in .gitattributes"
                ),
            ),
            None => Error::invalid(path, Some(line), "invalid UTF-8"),
        }
    })
}

/// What kind of encrypted file `bytes` is, by the header of a binary format an encryption
/// filter stores: git-crypt's, or age's.
fn encrypted_header(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\0GITCRYPT\0") {
        Some("git-crypt-encrypted")
    } else if bytes.starts_with(b"age-encryption.org/v1\n") {
        Some("age-encrypted")
    } else {
        None
    }
}

/// Returns the AAHP checksum: `sha256:` + lowercase hex of SHA-256 over the bytes with every
/// CR (0x0D) removed, exactly as the reference computes it (SPEC §2.1).
pub fn checksum(bytes: &[u8]) -> String {
    let mut hasher = Sha256::new();
    let mut start = 0;
    for cr in memchr::memchr_iter(b'\r', bytes) {
        hasher.update(&bytes[start..cr]);
        start = cr + 1;
    }
    hasher.update(&bytes[start..]);
    format!("sha256:{}", hex(&hasher.finalize()))
}

/// Returns lowercase hex of a byte string.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = Vec::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.extend([DIGITS[usize::from(b >> 4)], DIGITS[usize::from(b & 0xf)]]);
    }
    String::from_utf8(s).expect("hex digits are ASCII")
}

/// Counts lines as `wc -l` does (newline bytes), which is what the reference records.
pub fn line_count(bytes: &[u8]) -> usize {
    // The archive may be megabytes: counted with memchr's vectorised search.
    memchr::memchr_iter(b'\n', bytes).count()
}

/// Writes a file atomically: temp file in the same directory, fsync, rename, fsync the
/// directory. A crash leaves either the old or the new content, never a mix.
///
/// A file that exists keeps its permission bits; a new file gets `0666` less the umask, as
/// any other tool's new file would (issue #12: everything used to become `0600`).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace_file(path, bytes, Durability::FileAndDirectory)
}

/// [`write_atomic`] without the directory's fsync, for a batch of writes into one
/// directory that the caller then makes durable at once with [`sync_dir`] (issue #14:
/// `commit` rewrote up to seven files of the handoff directory and synced it seven times).
/// The file's content is synced before the rename, so the name never points at unwritten
/// data.
pub fn write_atomic_batched(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace_file(path, bytes, Durability::File)
}

/// [`write_atomic`] with no fsync at all, for a cache that is safe to lose or find damaged
/// (every reader checks each line): the rename still keeps readers from half a file.
pub fn write_cache_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace_file(path, bytes, Durability::None)
}

/// Makes the renames into `dir` durable (fsync of the directory); best effort, like the
/// directory fsync of [`write_atomic`].
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// What [`replace_file`] syncs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Durability {
    FileAndDirectory,
    File,
    None,
}

/// [`write_atomic_batched`] of a file made of the first `keep` bytes of the file now at
/// `path`, then `text`: the old bytes are copied in pieces (by the kernel where it can),
/// never held in memory, so a rotation in `commit` replaces LOG-ARCHIVE.md whatever its
/// size (issue #12 item 2). A file shorter than `keep` is an error, nothing replaced.
pub fn write_atomic_spliced_batched(path: &Path, keep: u64, text: &[u8]) -> std::io::Result<()> {
    use std::io::{Read, Write};
    replace_file_with(path, Durability::File, |tmp| {
        if keep > 0 {
            let old = open_nonblocking(path)?;
            let copied = std::io::copy(&mut old.take(keep), tmp)?;
            if copied != keep {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "changed while it was read (it got shorter); rerun the command",
                ));
            }
        }
        tmp.write_all(text)
    })
}

/// Replaces the file at `path` with what `fill` writes into a temporary file beside it,
/// synced, then renamed over it (the directory synced by the caller, as for
/// [`write_atomic_batched`]); an error from `fill` leaves the file as it was.
pub fn replace_file_batched_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    replace_file_with(path, Durability::File, fill)
}

fn replace_file(path: &Path, bytes: &[u8], durability: Durability) -> std::io::Result<()> {
    use std::io::Write;
    replace_file_with(path, durability, |tmp| tmp.write_all(bytes))
}

/// [`write_atomic`] of content that `fill` writes in pieces, so it is never held whole (the
/// merge driver's streamed merge of LOG-ARCHIVE.md, issue #12 item 2). When `fill` fails,
/// the temporary file is removed and `path` is left as it was.
pub fn write_atomic_from<T, E: From<std::io::Error>>(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> std::result::Result<T, E>,
) -> std::result::Result<T, E> {
    replace_file_with(path, Durability::FileAndDirectory, fill)
}

fn replace_file_with<T, E: From<std::io::Error>>(
    path: &Path,
    durability: Durability,
    fill: impl FnOnce(&mut std::fs::File) -> std::result::Result<T, E>,
) -> std::result::Result<T, E> {
    let (staged, filled) = StagedFile::fill(path, durability != Durability::None, fill)?;
    staged.persist(durability == Durability::FileAndDirectory)?;
    Ok(filled)
}

/// The next content of a file, written in pieces beside it under a temporary name and
/// synced, but not in place yet: a command plans what depends on it (the manifest's
/// checksum) from the temporary file, then puts it in place with [`StagedFile::commit`]
/// (`archive --reindex` writes the index so, never holding it, issue #12 item 2). Dropped
/// without that, the temporary file is removed and the file left as it was.
#[derive(Debug)]
pub struct StagedFile {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
}

/// Creates a temporary file in `dir` named `prefix` and six random letters and digits (the
/// shape [`is_temp_name`] knows), whose mode follows the umask as a new file's should
/// (tempfile's default is 0600): the mode given to open(2) is reduced by the umask.
pub(crate) fn temp_file_in(dir: &Path, prefix: &str) -> std::io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

impl StagedFile {
    /// Writes the content `fill` gives into a temporary file beside `path` (with `path`'s
    /// mode when it exists, else the umask's) and syncs it. When `fill` fails, nothing is
    /// left behind.
    pub fn write<T, E: From<std::io::Error>>(
        path: &Path,
        fill: impl FnOnce(&mut std::fs::File) -> std::result::Result<T, E>,
    ) -> std::result::Result<(StagedFile, T), E> {
        StagedFile::fill(path, true, fill)
    }

    fn fill<T, E: From<std::io::Error>>(
        path: &Path,
        sync: bool,
        fill: impl FnOnce(&mut std::fs::File) -> std::result::Result<T, E>,
    ) -> std::result::Result<(StagedFile, T), E> {
        let dir = path.parent().unwrap_or_else(|| Path::new("."));
        let existing = std::fs::metadata(path).ok().map(|m| m.permissions());
        let mut tmp = temp_file_in(dir, TEMP_PREFIX)?;
        if let Some(perm) = existing {
            // fchmod is not reduced by the umask: a rewritten file keeps exactly its mode.
            tmp.as_file().set_permissions(perm)?;
        }
        let filled = fill(tmp.as_file_mut())?;
        if sync {
            tmp.as_file().sync_all()?;
        }
        let staged = StagedFile {
            tmp,
            path: path.to_path_buf(),
        };
        Ok((staged, filled))
    }

    /// Where the content is until it is put in place.
    pub fn temp_path(&self) -> &Path {
        self.tmp.path()
    }

    /// The content's length in bytes.
    pub fn content_len(&self) -> std::io::Result<u64> {
        Ok(self.tmp.as_file().metadata()?.len())
    }

    /// Puts the content in place (a rename) and makes the rename durable.
    ///
    /// # Crash safety
    ///
    /// The rename is atomic: readers see the old file or the whole new one.
    pub fn commit(self) -> std::io::Result<()> {
        self.persist(true)
    }

    /// [`StagedFile::commit`] without the directory's fsync, for a batch of writes into one
    /// directory that the caller makes durable at once with [`sync_dir`] (as
    /// [`write_atomic_batched`]).
    pub fn commit_batched(self) -> std::io::Result<()> {
        self.persist(false)
    }

    fn persist(self, sync_directory: bool) -> std::io::Result<()> {
        let dir = self
            .path
            .parent()
            .unwrap_or_else(|| Path::new("."))
            .to_path_buf();
        self.tmp.persist(&self.path).map_err(|e| e.error)?;
        if sync_directory {
            sync_dir(&dir);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_strips_every_carriage_return() {
        assert_eq!(checksum(b"a\r\nb\r\n"), checksum(b"a\nb\n"));
        assert_eq!(checksum(b"a\rb"), checksum(b"ab"));
        assert_eq!(
            checksum(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn line_count_matches_wc_l() {
        assert_eq!(line_count(b"a\nb"), 1);
        assert_eq!(line_count(b"a\nb\n"), 2);
        assert_eq!(line_count(b""), 0);
    }

    #[test]
    fn decode_text_names_the_line_of_invalid_utf8() {
        let err = decode_text("x.md", b"ok\nok\n\xff\n").unwrap_err();
        assert_eq!(err.to_string(), "x.md:3: invalid UTF-8");
        assert_eq!(decode_text("x.md", b"\xEF\xBB\xBFhi").unwrap(), "hi");
    }

    #[test]
    fn resolve_link_refuses_escapes() {
        assert_eq!(
            resolve_link(".ai/handoff", "../notes/S.md").as_deref(),
            Some(".ai/notes/S.md")
        );
        assert_eq!(resolve_link(".ai/handoff", "../../../etc/passwd"), None);
        assert_eq!(resolve_link(".ai/handoff", "/etc/passwd"), None);
    }

    #[test]
    fn indexed_names_follow_the_reference_order() {
        let mut snap = Snapshot::default();
        for n in [
            "BACKLOG.md",
            "LOG.md",
            "STATUS.md",
            ".aiignore",
            "MANIFEST.json",
            "HANDOFF.lock",
            "pii-allowlist.json",
            "notes.txt",
        ] {
            snap.files.insert(n.into(), Vec::new());
        }
        assert_eq!(
            snap.indexed_names(),
            ["STATUS.md", "LOG.md", "pii-allowlist.json", "BACKLOG.md"]
        );
    }
}
