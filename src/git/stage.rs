//! Staging the handoff directory and writing the tree `git commit` will record, in process
//! (issue #14): the index entries `git add -f` writes and the tree `git write-tree` prints,
//! without spawning either. Where the index or the configuration holds something this writer
//! does not reproduce (content filters, a split, sparse or version-4 index, flags only git
//! keeps…), the work is left to `git add` and `git write-tree` as before.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::index::entry::{Flags, Mode, Stage, Stat};

use super::{GitError, Repo, UNCACHED_BLOB_BYTES, read_err};

/// Attributes that make `git add` change a file's bytes on their way into the index.
const CONVERTING_ATTRIBUTES: &[&str] = &[
    "text",
    "eol",
    "crlf",
    "filter",
    "ident",
    "working-tree-encoding",
];

/// Entry flags that only `git add` itself knows how to carry over or refuse.
const SPECIAL_FLAGS: Flags = Flags::ASSUME_VALID
    .union(Flags::SKIP_WORKTREE)
    .union(Flags::INTENT_TO_ADD);

/// How an index written in process compares stat data: as git does, with whole seconds only
/// when telling a racy entry (more entries count as racy, so more are checked, never fewer).
fn stat_options() -> gix::index::entry::stat::Options {
    gix::index::entry::stat::Options {
        trust_ctime: true,
        check_stat: true,
        use_nsec: false,
        use_stdev: false,
    }
}

impl Repo {
    /// Stages `add` from the working tree (even when a `.gitignore` matches them) and removes
    /// `remove` from the index, leaving every other staged change as the user staged it.
    /// Returns the index as written.
    ///
    /// Done in process (issue #14) when nothing would make `git add` write anything else:
    /// each path is hashed and written as a blob (a file whose cached stat data still matches
    /// and is not racy is kept unread, as `git add` keeps it), the cache tree is invalidated
    /// along each changed path, and entries another writer could have changed unseen (racily
    /// clean: modified in the second the old index was written) are smudged, so git checks
    /// their content again. Otherwise `git add -f` and `git rm --cached` run.
    pub fn stage(&self, add: &[String], remove: &[String]) -> Result<gix::index::File, GitError> {
        let mut index = self.index()?;
        if self.can_stage_in_process(&index, add) {
            self.stage_in_process(&mut index, add, remove)?;
            return Ok(index);
        }
        self.stage_with_git(&index, add, remove)?;
        self.index()
    }

    /// True when [`Repo::stage`] would stage `add` in process rather than through `git add`.
    pub fn stages_in_process(&self, add: &[String]) -> Result<bool, GitError> {
        Ok(self.can_stage_in_process(&self.index()?, add))
    }

    /// `git add -f` of `add`, `git rm --cached` of the paths of `remove` the index holds.
    fn stage_with_git(
        &self,
        index: &gix::index::File,
        add: &[String],
        remove: &[String],
    ) -> Result<(), GitError> {
        // `git rm --cached --ignore-unmatch` of paths the index does not hold changes
        // nothing: it is run only for those it holds (usually none: no spawn).
        let remove: Vec<&str> = remove
            .iter()
            .map(String::as_str)
            .filter(|p| {
                index
                    .entries()
                    .iter()
                    .any(|e| e.path(index) == p.as_bytes())
            })
            .collect();
        if !add.is_empty() {
            let mut args = vec!["add", "-f", "--"];
            args.extend(add.iter().map(String::as_str));
            self.run(&args, &[])?;
        }
        if !remove.is_empty() {
            let mut args = vec!["rm", "-q", "--cached", "--ignore-unmatch", "--"];
            args.extend(remove);
            self.run(&args, &[])?;
        }
        Ok(())
    }

    /// True when staging `add` in process writes what `git add -f` would: a plain index
    /// (version 2 or 3, no extension gix would drop), no configuration or attribute that
    /// converts content or changes what an entry records, and each path a regular file
    /// whose entry, if any, is an ordinary stage-0 file.
    fn can_stage_in_process(&self, index: &gix::index::File, add: &[String]) -> bool {
        if index.version() == gix::index::Version::V4
            || index.link().is_some()
            || index.resolve_undo().is_some()
            || index.untracked().is_some()
            || index.fs_monitor().is_some()
            || index.is_sparse()
        {
            return false;
        }
        let config = self.repo.config_snapshot();
        let set = |key: &str| config.boolean(key) == Some(true);
        if config
            .string("core.autocrlf")
            .is_some_and(|v| !v.eq_ignore_ascii_case(b"false"))
            || config.boolean("core.symlinks") == Some(false)
            || set("core.ignoreStat")
            || set("core.ignoreCase")
            || set("core.sparseCheckout")
            || set("core.splitIndex")
            || set("index.skipHash")
            || set("index.sparse")
            || config
                .string("core.fsmonitor")
                .is_some_and(|v| !v.eq_ignore_ascii_case(b"false"))
        {
            return false;
        }
        let mut dirs = BTreeSet::new();
        for path in add {
            let bytes = path.as_bytes();
            if let Some(i) =
                index.entry_index_by_path_and_stage(bytes.as_bstr(), Stage::Unconflicted)
            {
                let e = &index.entries()[i];
                if e.flags.intersects(SPECIAL_FLAGS)
                    || !(e.mode == Mode::FILE || e.mode == Mode::FILE_EXECUTABLE)
                {
                    return false;
                }
            }
            // A conflicted path, a directory of entries where the file goes, or a file entry
            // where one of its directories goes: `git add` resolves or replaces them.
            let conflicted = index
                .entry_range(bytes.as_bstr())
                .is_some_and(|r| r.len() != 1 || index.entries()[r.start].stage_raw() != 0);
            let mut below = path.clone();
            below.push('/');
            if conflicted
                || index
                    .prefixed_entries_range(below.as_bytes().as_bstr())
                    .is_some_and(|r| !r.is_empty())
                || parents(path).any(|p| index.entry_range(p.as_bytes().as_bstr()).is_some())
            {
                return false;
            }
            let is_file = std::fs::symlink_metadata(self.workdir.join(path))
                .is_ok_and(|m| m.file_type().is_file());
            if !is_file {
                return false;
            }
            dirs.extend(parents(path).map(String::from));
        }
        !self.attributes_may_convert(index, &dirs)
    }

    /// True when a gitattributes file git would read for the directories `dirs` sets an
    /// attribute that converts content (`text`, `eol`, `filter`…) or defines a macro, or
    /// cannot be read: staging is then left to `git add`, which applies them.
    fn attributes_may_convert(&self, index: &gix::index::File, dirs: &BTreeSet<String>) -> bool {
        let mut files: Vec<PathBuf> = Vec::new();
        for dir in std::iter::once("").chain(dirs.iter().map(String::as_str)) {
            let rel = if dir.is_empty() {
                ".gitattributes".to_string()
            } else {
                format!("{dir}/.gitattributes")
            };
            let abs = self.workdir.join(&rel);
            // Git falls back to the index's copy when the file is not checked out.
            if !abs.exists() && index.entry_range(rel.as_bytes().as_bstr()).is_some() {
                return true;
            }
            files.push(abs);
        }
        files.push(self.repo.common_dir().join("info").join("attributes"));
        let config = self.repo.config_snapshot();
        match config.trusted_path("core.attributesFile") {
            Ok(Some(p)) => files.push(p),
            Err(_) => return true,
            Ok(None) => {}
        }
        if config.string("core.attributesFile").is_none()
            && let Some(base) = std::env::var_os("XDG_CONFIG_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")))
        {
            files.push(base.join("git").join("attributes"));
        }
        if std::env::var_os("GIT_ATTR_NOSYSTEM").is_none() {
            files.extend(system_attributes());
        }
        files.iter().any(|f| match std::fs::read(f) {
            Ok(text) => converts(&text),
            Err(e) => e.kind() != std::io::ErrorKind::NotFound,
        })
    }

    fn stage_in_process(
        &self,
        index: &mut gix::index::File,
        add: &[String],
        remove: &[String],
    ) -> Result<(), GitError> {
        let before = index.timestamp();
        let opts = stat_options();
        let file_mode = self.repo.config_snapshot().boolean("core.fileMode") != Some(false);
        let mut changed: Vec<&str> = Vec::new();
        let mut fresh: Vec<(Stat, ObjectId, Mode, &str)> = Vec::new();
        let ours: BTreeSet<&[u8]> = add.iter().chain(remove).map(String::as_bytes).collect();
        for path in add {
            let abs = self.workdir.join(path);
            // Stat first, then read, as git does: a file that changes in between records the
            // earlier stat data, so it is seen as modified (or racy) afterwards.
            let meta = gix::index::fs::Metadata::from_path_no_follow(&abs)
                .map_err(read_err(format!("stage {path}")))?;
            let stat = Stat::from_fs(&meta).map_err(read_err(format!("stage {path}")))?;
            let at =
                index.entry_index_by_path_and_stage(path.as_bytes().as_bstr(), Stage::Unconflicted);
            let old_mode = at.map(|i| index.entries()[i].mode);
            let mode = if file_mode {
                if meta.is_executable() {
                    Mode::FILE_EXECUTABLE
                } else {
                    Mode::FILE
                }
            } else {
                old_mode.unwrap_or(Mode::FILE)
            };
            if let Some(i) = at {
                let e = &index.entries()[i];
                // "Nothing changed, really": as `git add`, an entry whose stat data still
                // matches a file written before the index is kept without reading the file.
                if e.mode == mode && e.stat == stat && !e.stat.is_racy(before, opts) {
                    continue;
                }
            }
            let id = self
                .write_file_blob(&abs, meta.len(), UNCACHED_BLOB_BYTES)
                .map_err(read_err(format!("stage {path}")))?;
            match at {
                // Replaced, as `git add` replaces an entry whose stat data changed or is
                // racy, even with the same blob: its cache-tree path is invalidated too.
                Some(i) => {
                    let e = &mut index.entries_mut()[i];
                    e.id = id;
                    e.mode = mode;
                    e.stat = stat;
                }
                None => fresh.push((stat, id, mode, path.as_str())),
            }
            changed.push(path.as_str());
        }
        let removed: BTreeSet<&[u8]> = remove.iter().map(String::as_bytes).collect();
        let mut gone: Vec<String> = Vec::new();
        index.remove_entries(|_, path, _| {
            let hit = removed.contains(path.as_bytes());
            if hit {
                gone.push(path.to_str_lossy().into_owned());
            }
            hit
        });
        for (stat, id, mode, path) in fresh {
            index.dangerously_push_entry(stat, id, Flags::empty(), mode, path.as_bytes().as_bstr());
        }
        index.sort_entries();
        if changed.is_empty() && gone.is_empty() {
            return Ok(());
        }
        self.smudge_racily_clean(index, &ours)?;
        if let Some(tree) = index.tree_mut() {
            for path in changed
                .iter()
                .copied()
                .chain(gone.iter().map(String::as_str))
            {
                invalidate(tree, path.as_bytes());
            }
        }
        index
            .write(gix::index::write::Options {
                // As git writes it by default: the cache tree, no end-of-index marker.
                extensions: gix::index::write::Extensions::Given {
                    tree_cache: true,
                    end_of_index_entry: false,
                },
                skip_hash: false,
            })
            .map_err(read_err("write the index"))
    }

    /// Sets the cached size of every entry (other than `ours`) that is racily clean against
    /// the index as it was read (`before`) and whose file no longer holds its blob to 0, as
    /// git does when it writes an index: written later, the index would otherwise make such
    /// an entry look clean for good.
    fn smudge_racily_clean(
        &self,
        index: &mut gix::index::File,
        ours: &BTreeSet<&[u8]>,
    ) -> Result<(), GitError> {
        let opts = stat_options();
        let before = index.timestamp();
        let mut smudge = Vec::new();
        for (i, e) in index.entries().iter().enumerate() {
            let path = e.path(index);
            if e.stage_raw() != 0
                || !(e.mode == Mode::FILE
                    || e.mode == Mode::FILE_EXECUTABLE
                    || e.mode == Mode::SYMLINK)
                || !e.stat.is_racy(before, opts)
                || ours.contains(path.as_bytes())
            {
                continue;
            }
            let Ok(rel) = gix::path::from_bstr(path) else {
                continue;
            };
            let abs = self.workdir.join(rel);
            let Ok(meta) = gix::index::fs::Metadata::from_path_no_follow(&abs) else {
                continue;
            };
            // Stat data that no longer matches already shows the file as changed.
            if Stat::from_fs(&meta).ok() != Some(e.stat) {
                continue;
            }
            let bytes: Vec<u8> = if meta.is_symlink() {
                let target = std::fs::read_link(&abs)
                    .map_err(read_err(format!("read {}", abs.display())))?;
                gix::path::os_str_into_bstr(target.as_os_str())
                    .map_err(read_err(format!("read {}", abs.display())))?
                    .to_vec()
            } else {
                std::fs::read(&abs).map_err(read_err(format!("read {}", abs.display())))?
            };
            let id =
                gix::objs::compute_hash(self.repo.object_hash(), gix::object::Kind::Blob, &bytes)
                    .map_err(read_err("hash a file"))?;
            if id != e.id {
                smudge.push(i);
            }
        }
        for i in smudge {
            index.entries_mut()[i].stat.size = 0;
        }
        Ok(())
    }

    /// Writes `index` as a tree and returns its id: what `git write-tree` prints for it
    /// (valid cache-tree entries are reused, as git reuses them). An index git would need
    /// to handle itself (sparse, intent-to-add entries) is left to `git write-tree`.
    pub fn write_index_tree(&self, index: &gix::index::State) -> Result<ObjectId, GitError> {
        if index.is_sparse()
            || index
                .entries()
                .iter()
                .any(|e| e.flags.intersects(Flags::INTENT_TO_ADD | Flags::REMOVE))
        {
            let args = ["write-tree"];
            let out = self.run(&args, &[])?;
            return Self::parse_id(&args, &out);
        }
        let id = self.build_tree(index, index.entries(), 0, index.tree())?;
        Ok(id.unwrap_or_else(|| ObjectId::empty_tree(self.repo.object_hash())))
    }

    /// The tree of `entries`, all below the directory whose path (with its `/`) is
    /// `prefix_len` bytes long; `None` for a directory without entries.
    fn build_tree(
        &self,
        index: &gix::index::State,
        entries: &[gix::index::Entry],
        prefix_len: usize,
        cache: Option<&gix::index::extension::Tree>,
    ) -> Result<Option<ObjectId>, GitError> {
        if let Some(c) = cache
            && c.num_entries.is_some()
            && self.repo.has_object(c.id)
        {
            return Ok(Some(c.id));
        }
        let mut tree = gix::objs::Tree::empty();
        let mut i = 0;
        while i < entries.len() {
            let e = &entries[i];
            let path = e.path(index);
            let rest = &path[prefix_len..];
            if let Some(slash) = rest.find_byte(b'/') {
                let name = &rest[..slash];
                let sub_prefix = &path[..=(prefix_len + slash)];
                let len = entries[i..].partition_point(|x| x.path(index).starts_with(sub_prefix));
                let sub_cache =
                    cache.and_then(|c| c.children.iter().find(|t| t.name.as_slice() == name));
                if let Some(id) =
                    self.build_tree(index, &entries[i..i + len], sub_prefix.len(), sub_cache)?
                {
                    tree.entries.push(gix::objs::tree::Entry {
                        mode: gix::objs::tree::EntryKind::Tree.into(),
                        filename: name.into(),
                        oid: id,
                    });
                }
                i += len;
                continue;
            }
            if e.stage_raw() != 0 {
                return Err(GitError::Read {
                    action: "write the index as a tree".into(),
                    source: format!("{} is unmerged", path.to_str_lossy()).into(),
                });
            }
            let mode = e.mode.to_tree_entry_mode().ok_or_else(|| GitError::Read {
                action: "write the index as a tree".into(),
                source: format!("{} has an unknown mode", path.to_str_lossy()).into(),
            })?;
            tree.entries.push(gix::objs::tree::Entry {
                mode,
                filename: rest.into(),
                oid: e.id,
            });
            i += 1;
        }
        if tree.entries.is_empty() && prefix_len > 0 {
            return Ok(None);
        }
        tree.entries.sort();
        let id = self
            .repo
            .write_object(&tree)
            .map_err(read_err("write a tree"))?
            .detach();
        Ok(Some(id))
    }
}

/// The directories of `path` (repository-relative), outermost first, without the root.
fn parents(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/').map(move |(i, _)| &path[..i])
}

/// Marks the cache-tree entries along `path` invalid, as git does for a path it stages, and
/// drops a subtree of the same name (the path was a directory).
fn invalidate(tree: &mut gix::index::extension::Tree, path: &[u8]) {
    tree.num_entries = None;
    match path.find_byte(b'/') {
        Some(slash) => {
            let (name, rest) = (&path[..slash], &path[slash + 1..]);
            if let Some(child) = tree.children.iter_mut().find(|c| c.name.as_slice() == name) {
                invalidate(child, rest);
            }
        }
        None => tree.children.retain(|c| c.name.as_slice() != path),
    }
}

/// True when a gitattributes file's text sets a converting attribute (set, unset or valued:
/// `-text` and `!eol` are treated as conversions too, conservatively) or defines a macro.
fn converts(text: &[u8]) -> bool {
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with(b"#") {
            continue;
        }
        // A quoted pattern (with spaces or escapes) is not split here: leave it to git.
        if line.starts_with(b"\"") || line.starts_with(b"[attr]") {
            return true;
        }
        for attr in line.fields().skip(1) {
            let attr = attr.trim_start_with(|c| c == '-' || c == '!');
            let name = attr.split_str("=").next().unwrap_or_default();
            if CONVERTING_ATTRIBUTES.iter().any(|a| a.as_bytes() == name) {
                return true;
            }
        }
    }
    false
}

/// The system-wide gitattributes files git may read: `/etc/gitattributes`, and the one
/// under the `etc` of the prefix the `git` on `PATH` is installed in.
fn system_attributes() -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("/etc/gitattributes")];
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let git = dir.join("git");
            if git.is_file() {
                let real = std::fs::canonicalize(&git).unwrap_or(git);
                if let Some(prefix) = real.parent().and_then(Path::parent) {
                    out.push(prefix.join("etc").join("gitattributes"));
                }
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converting_attributes_are_told_from_others() {
        assert!(!converts(
            b"# text eol\n*.md merge=aahp\n*.json merge=aahp diff\n"
        ));
        assert!(!converts(b"*.png binary\n\n"));
        assert!(converts(b"*.md text\n"));
        assert!(converts(b"* -text\n"));
        assert!(converts(b"*.md eol=crlf\n"));
        assert!(converts(b"*.bin filter=lfs diff=lfs merge=lfs\n"));
        assert!(converts(b"[attr]mine text\n"));
        assert!(converts(b"\"a b\" merge=aahp\n"));
        assert!(converts(b"*.txt working-tree-encoding=UTF-16\n"));
    }

    #[test]
    fn parents_are_listed_outermost_first() {
        assert_eq!(parents("a/b/c.md").collect::<Vec<_>>(), ["a", "a/b"]);
        assert_eq!(parents("c.md").count(), 0);
    }
}
