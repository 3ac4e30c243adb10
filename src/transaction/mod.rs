//! The session transaction (SPEC §3.3, §3.7, §3.8, §4): [`lock`] guards the session,
//! [`journal`] records what `commit` is doing, and the helpers here save, restore and tag the
//! handoff directory. `commands::{begin, commit, recover}` drive them.
//!
//! # Which lock is "ours"
//! A session spans many short processes, so no process id can prove ownership. A command
//! treats the lock as its own session's when:
//! 1. a session id is given (`--session-id`, else `AAHP_SESSION_ID`) and equals the lock's; or
//! 2. no id is given, `--agent` (when given) equals the lock's agent, and the lock's session
//!    is the one `begin` recorded in this worktree's git directory (`<git_dir>/aahp/session.json`).
//!
//! Any other lock belongs to another session: exit 3.

pub mod chain;
pub mod journal;
pub mod lease;
pub mod lock;
pub mod rotation;
pub mod session;
pub mod steps;
pub mod writer;

use std::collections::BTreeSet;

use gix::ObjectId;

use crate::error::{Error, Result};
use crate::git::Repo;
use crate::handoff::{HandoffDir, LOCK, write_atomic};
use journal::SessionRecord;
use lock::HandoffLock;

/// Prefix of the temporary files `write_atomic` and [`lock::acquire`] create; a crash can
/// leave them behind, and they are never handoff content.
pub const TEMP_PREFIX: &str = crate::handoff::TEMP_PREFIX;
/// Prefix of the session tags.
pub const TAG_PREFIX: &str = "refs/tags/aahp/session-";
/// Prefix of the refs holding interrupted sessions' files.
pub const RECOVERED_PREFIX: &str = "refs/aahp/recovered/";

/// Who the caller says it is.
#[derive(Debug, Clone, Default)]
pub struct SessionClaim {
    /// `--session-id` or `AAHP_SESSION_ID`.
    pub session_id: Option<String>,
    /// `--agent`.
    pub agent: Option<String>,
}

impl SessionClaim {
    /// Applies the ownership rule of this module's documentation to `lock`.
    pub fn owns(&self, lock: &HandoffLock, repo: &Repo, dir: &HandoffDir) -> bool {
        if let Some(id) = &self.session_id {
            return lock.is_session(id);
        }
        if let Some(agent) = &self.agent
            && lock.agent != *agent
        {
            return false;
        }
        SessionRecord::load(repo, &dir.rel).is_some_and(|r| lock.is_session(&r.session_id))
    }
}

/// Returns HEAD's commit, refusing a detached HEAD and a branch without commits with a
/// message that says what to do (exit 2).
pub fn require_branch_head(repo: &Repo, action: &str) -> Result<ObjectId> {
    let branch = repo.head_branch()?;
    let head = repo.head_commit()?;
    match (branch, head) {
        (None, _) => Err(Error::other(format!(
            "HEAD is detached; {action} needs a branch to record the session on \
             (create one with `git switch -c NAME`)"
        ))),
        (Some(b), None) => Err(Error::other(format!(
            "the branch `{}` has no commits yet; {action} records a session on top of an \
             existing commit (make a first commit with `git commit`)",
            b.trim_start_matches("refs/heads/")
        ))),
        (Some(_), Some(id)) => Ok(id),
    }
}

/// Returns true for names in the handoff directory that are never handoff content: the lock
/// and temporary files.
pub fn is_transient(name: &str) -> bool {
    name == LOCK || crate::handoff::is_temp_name(name)
}

/// Lists the top-level files of the handoff directory in the working tree, without the lock
/// and temporary files.
pub fn worktree_files(dir: &HandoffDir) -> Result<BTreeSet<String>> {
    let mut out = BTreeSet::new();
    let entries = match std::fs::read_dir(&dir.abs) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(source) => {
            return Err(Error::Read {
                path: dir.rel.clone(),
                source,
            });
        }
    };
    for entry in entries {
        let entry = entry.map_err(|source| Error::Read {
            path: dir.rel.clone(),
            source,
        })?;
        // A name that is not UTF-8 cannot be passed to git or restored by name: such a file
        // is left where it is, never saved, staged or deleted (commands that read the
        // handoff refuse it with exit 2), so it cannot wedge a commit's undo or `recover`.
        let Some(name) = entry.file_name().to_str().map(String::from) else {
            continue;
        };
        let is_file = entry
            .file_type()
            .is_ok_and(|t| t.is_file() || t.is_symlink());
        if is_file && !is_transient(&name) {
            out.insert(name);
        }
    }
    Ok(out)
}

/// Lists the handoff files in a commit (top level, without the lock).
pub fn commit_files(
    repo: &Repo,
    commit: Option<ObjectId>,
    dir: &HandoffDir,
) -> Result<BTreeSet<String>> {
    let Some(commit) = commit else {
        return Ok(BTreeSet::new());
    };
    Ok(repo
        .tree_dir(commit, &dir.rel)?
        .into_iter()
        .map(|e| e.name)
        .filter(|n| !is_transient(n))
        .collect())
}

/// Deletes temporary files a crash left in the handoff directory; returns their names. The
/// staged files of a rotation are left to [`rotation`], which may still need them.
/// A name of that shape that git tracks or has staged is the user's, never removed.
pub fn remove_temp_files(repo: &Repo, dir: &HandoffDir) -> Vec<String> {
    remove_temp_files_in(repo, &dir.abs, &dir.rel)
}

/// [`remove_temp_files`] in the directory `abs` of the work tree (`rel`, repository-relative,
/// empty for the top).
pub fn remove_temp_files_in(repo: &Repo, abs: &std::path::Path, rel: &str) -> Vec<String> {
    let mut removed = Vec::new();
    // The index is read only when a name of a temporary file's shape is there.
    let mut index: Option<Option<gix::index::File>> = None;
    if let Ok(entries) = std::fs::read_dir(abs) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !crate::handoff::is_temp_name(&name) || name.starts_with(rotation::STAGED_PREFIX) {
                continue;
            }
            let index = index.get_or_insert_with(|| repo.index().ok());
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let tracked = index
                .as_ref()
                .is_none_or(|i| Repo::index_file_at(i, &path).is_some());
            if !tracked && std::fs::remove_file(entry.path()).is_ok() {
                removed.push(name);
            }
        }
    }
    removed.sort();
    removed
}

/// Saves the handoff files of the working tree as a commit whose parent is `parent` (and
/// whose other paths are `parent`'s), without touching the index or any ref.
pub fn save_worktree(
    repo: &Repo,
    dir: &HandoffDir,
    parent: Option<ObjectId>,
    message: &str,
) -> Result<ObjectId> {
    let mut names = worktree_files(dir)?;
    names.extend(commit_files(repo, parent, dir)?);
    let paths: Vec<String> = names.iter().map(|n| dir.path_of(n)).collect();
    Ok(repo.snapshot_commit(parent, &paths, message)?)
}

/// Makes the handoff directory in the working tree hold exactly `commit`'s handoff files
/// (the lock and temporary files aside). Each file is replaced atomically.
///
/// # Crash safety
/// Interrupted, it leaves some files restored and others not; rerunning it finishes.
pub fn restore_dir(repo: &Repo, dir: &HandoffDir, commit: ObjectId) -> Result<Vec<String>> {
    let wanted = repo.tree_dir(commit, &dir.rel)?;
    std::fs::create_dir_all(&dir.abs).map_err(|source| Error::Write {
        path: dir.rel.clone(),
        source,
    })?;
    let mut changed = Vec::new();
    let mut keep = BTreeSet::new();
    for entry in &wanted {
        // Tree names are read lossily: one that was not UTF-8 (shown with U+FFFD) cannot be
        // written by name, and the file on disk, if any, is left as it is.
        if is_transient(&entry.name) || entry.name.contains(char::REPLACEMENT_CHARACTER) {
            continue;
        }
        keep.insert(entry.name.clone());
        if restore_entry(repo, dir, commit, entry)? {
            changed.push(entry.name.clone());
        }
    }
    for name in worktree_files(dir)? {
        if !keep.contains(&name) {
            std::fs::remove_file(dir.abs.join(&name)).map_err(|source| Error::Write {
                path: dir.path_of(&name),
                source,
            })?;
            changed.push(name);
        }
    }
    lock::sync_dir(&dir.abs);
    changed.sort();
    Ok(changed)
}

/// Makes the handoff files `names` (top-level) hold what `commit` holds: written from its
/// blob, or removed when the commit has none. Each file is replaced atomically.
pub fn restore_files(
    repo: &Repo,
    dir: &HandoffDir,
    commit: ObjectId,
    names: &[&str],
) -> Result<Vec<String>> {
    let wanted = repo.tree_dir(commit, &dir.rel)?;
    let mut changed = Vec::new();
    for name in names {
        match wanted.iter().find(|e| e.name == *name) {
            Some(entry) => {
                if restore_entry(repo, dir, commit, entry)? {
                    changed.push((*name).to_string());
                }
            }
            None => match std::fs::remove_file(dir.abs.join(name)) {
                Ok(()) => changed.push((*name).to_string()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(Error::Write {
                        path: dir.path_of(name),
                        source,
                    });
                }
            },
        }
    }
    lock::sync_dir(&dir.abs);
    Ok(changed)
}

/// Puts one file of a commit's handoff directory back in the working tree, unless it is
/// there already; returns whether it wrote.
fn restore_entry(
    repo: &Repo,
    dir: &HandoffDir,
    commit: ObjectId,
    entry: &crate::git::DirEntry,
) -> Result<bool> {
    let wrote = restore_content(repo, dir, commit, entry)?;
    Ok(restore_executable(dir, entry)? || wrote)
}

/// Gives a restored regular file the executable bits git records for it (a session's
/// `chmod` is rolled back with its content): added where the file is readable, removed
/// otherwise. Returns whether the mode changed.
fn restore_executable(dir: &HandoffDir, entry: &crate::git::DirEntry) -> Result<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.abs.join(&entry.name);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            return Ok(false);
        };
        if entry.is_link || !meta.is_file() {
            return Ok(false);
        }
        let mode = meta.permissions().mode() & 0o7777;
        let want = if entry.executable {
            mode | ((mode & 0o444) >> 2)
        } else {
            mode & !0o111
        };
        if want == mode {
            return Ok(false);
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(want)).map_err(
            |source| Error::Write {
                path: dir.path_of(&entry.name),
                source,
            },
        )?;
        Ok(true)
    }
    #[cfg(not(unix))]
    {
        let _ = (dir, entry);
        Ok(false)
    }
}

fn restore_content(
    repo: &Repo,
    dir: &HandoffDir,
    commit: ObjectId,
    entry: &crate::git::DirEntry,
) -> Result<bool> {
    let path = dir.abs.join(&entry.name);
    let read_err = |source| Error::Read {
        path: dir.path_of(&entry.name),
        source,
    };
    let size = repo.blob_size(entry.id)?;
    let limit = if crate::handoff::ARCHIVE_PAIR.contains(&entry.name.as_str()) {
        crate::handoff::max_archive_bytes()
    } else {
        crate::handoff::MAX_ARCHIVE_BYTES
    };
    let too_large = usize::try_from(size).map_or(true, |s| s > limit);
    if !entry.is_link && (size > PREFIX_RESTORE_BYTES || too_large) {
        // LOG-ARCHIVE.md and its index only grow: when the file on disk begins with the
        // blob, cutting it back restores it in pieces, never holding either (issue #12 N4).
        if let Some(len) = std::fs::symlink_metadata(&path)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.len())
            .filter(|&len| len >= size)
            && repo.file_prefix_blob_id(&path, size).map_err(read_err)? == entry.id
        {
            if len == size {
                return Ok(false);
            }
            // The copy is hashed as it is written, and put in place only when it is the
            // blob: a file changed between the check and the copy is never restored wrong.
            crate::handoff::replace_file_batched_with(&path, |tmp| {
                if repo.copy_prefix_as_blob(&path, size, tmp)? == entry.id {
                    Ok(())
                } else {
                    Err(std::io::Error::other(
                        "it changed while it was restored; rerun `git aahp recover`",
                    ))
                }
            })
            .map_err(|source| Error::Write {
                path: dir.path_of(&entry.name),
                source,
            })?;
            return Ok(true);
        }
    }
    // Tests arm `restore-whole:NAME` to prove a large file that only grew is cut back in
    // pieces, never read whole.
    #[cfg(feature = "failpoints")]
    if size > PREFIX_RESTORE_BYTES {
        crate::failpoint::error(&format!("restore-whole:{}", entry.name)).map_err(read_err)?;
    }
    let Ok(bytes) = repo.blob_within(entry.id, limit)? else {
        return Err(Error::Invalid {
            path: dir.path_of(&entry.name),
            line: None,
            message: format!(
                "the version to restore is {size} bytes, more than the {limit} bytes git-aahp holds in memory, and the file here does not begin with it; put it back with `git checkout {} -- {}` and rerun",
                Repo::short(commit),
                crate::output::shell_word(&dir.path_of(&entry.name))
            ),
        });
    };
    // A regular file is compared in pieces: LOG-ARCHIVE.md is not held twice.
    let same = if entry.is_link {
        std::fs::read(&path).ok().as_deref() == Some(bytes.as_slice())
    } else {
        crate::handoff::stream::ends_with_at(&path, 0, &bytes)
    };
    if same {
        return Ok(false);
    }
    if entry.is_link {
        // A link is restored as a link (its blob is the target path).
        let _ = std::fs::remove_file(&path);
        #[cfg(unix)]
        std::os::unix::fs::symlink(String::from_utf8_lossy(&bytes).as_ref(), &path).map_err(
            |source| Error::Write {
                path: dir.path_of(&entry.name),
                source,
            },
        )?;
    } else {
        write_atomic(&path, &bytes).map_err(|source| Error::Write {
            path: dir.path_of(&entry.name),
            source,
        })?;
    }
    Ok(true)
}

/// Above this size a file to restore is first compared as a prefix of the file on disk.
const PREFIX_RESTORE_BYTES: u64 = 1024 * 1024;

/// The highest session number: far beyond any project's sessions, and far below where
/// adding one could overflow.
pub const MAX_SESSION: u64 = 999_999_999;

/// The number of a session tag's name after `aahp/session-`, written as git-aahp writes it
/// (decimal digits, no sign, no leading zero, 1 to [`MAX_SESSION`]); `None` for anything
/// else, which is not a session tag of ours (a tag `aahp/session-18446744073709551615`
/// fetched from anywhere made the next number overflow).
pub fn session_number(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 9 || s.starts_with('0') || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|n| (1..=MAX_SESSION).contains(n))
}

/// Returns the session tags (`aahp/session-N`) as (N, commit), highest N first. A tag of that
/// name that leads to no commit (a tree, a blob, an object this clone lacks: anyone's tag,
/// fetched with `git fetch --tags`) is no session's: it is left out, and still takes its
/// number ([`next_tag_name`]). It made `status`, `context` and `verify --chain` exit 2 with
/// a merge-base error naming no tag, and `commit` leave its session untagged (review atk41 #3).
pub fn session_tags(repo: &Repo) -> Result<Vec<(u64, ObjectId)>> {
    let mut tags: Vec<(u64, ObjectId)> = repo
        .commit_refs_with_prefix("refs/tags/aahp/")?
        .into_iter()
        .filter_map(|(name, id)| {
            name.strip_prefix(TAG_PREFIX)
                .and_then(session_number)
                .map(|n| (n, id))
        })
        .collect();
    tags.sort_by_key(|t| std::cmp::Reverse(t.0));
    Ok(tags)
}

/// Returns the name of the next session tag (`aahp/session-<highest + 1>`). A number is
/// taken by a tag of that name and by any ref below it (`aahp/session-5/x` keeps git from
/// creating `aahp/session-5`).
pub fn next_tag_name(repo: &Repo) -> Result<String> {
    next_tag_name_above(repo, 0)
}

/// The highest session number among `refs` (full ref names; a number is taken by a tag of
/// that name and by any ref below it).
pub fn highest_session_number<'a>(refs: impl IntoIterator<Item = &'a str>) -> u64 {
    refs.into_iter()
        .filter_map(|name| {
            let rest = name.strip_prefix(TAG_PREFIX)?;
            session_number(rest.split('/').next().unwrap_or(rest))
        })
        .max()
        .unwrap_or(0)
}

/// [`next_tag_name`], above `floor` too: the highest number the lease's remote already holds,
/// so a clone that has not fetched another clone's session never takes its number.
pub fn next_tag_name_above(repo: &Repo, floor: u64) -> Result<String> {
    // Names only: a tag whose object this clone lacks still takes its number.
    let refs = repo.ref_names_with_prefix("refs/tags/aahp/")?;
    let highest = highest_session_number(refs.iter().map(String::as_str)).max(floor);
    if highest >= MAX_SESSION {
        return Err(no_session_number_left(highest));
    }
    Ok(format!("aahp/session-{}", highest + 1))
}

/// Refuses a session that could not be tagged because `aahp/session-{highest}` takes the
/// last number (exit 2, naming the tag): a session tag is the chain's next link, so a commit
/// must not go ahead untagged without being told to (`--no-tag`).
pub fn no_session_number_left(highest: u64) -> Error {
    Error::Invalid {
        path: format!("refs/tags/aahp/session-{highest}"),
        line: None,
        message: format!(
            "this session tag takes the last session number ({MAX_SESSION}), so no session \
             after it can be tagged: delete it if it is not the project's own (`git tag -d \
             aahp/session-{highest}`, and on the remote), or commit with `--no-tag`"
        ),
    }
}

/// Checks, before a session changes anything, that its tag can be numbered: exit 2 naming
/// the session tag that takes the last number (on this clone, or `floor`, the highest on the
/// lease's remote), never a commit that stops at the tag with a warning.
pub fn check_tag_number_left(repo: &Repo, floor: u64) -> Result<()> {
    next_tag_name_above(repo, floor).map(|_| ())
}

/// Returns the name of a session tag already on `commit`, if any.
pub fn tag_on(repo: &Repo, commit: ObjectId) -> Result<Option<String>> {
    Ok(session_tags(repo)?
        .into_iter()
        .find(|(_, id)| *id == commit)
        .map(|(n, _)| format!("aahp/session-{n}")))
}

/// What a session tag's message records.
#[derive(Debug, Clone)]
pub struct TagFields<'a> {
    /// The tag name.
    pub tag: &'a str,
    /// Checksum of the committed MANIFEST.json.
    pub manifest_checksum: &'a str,
    /// The session id.
    pub session_id: &'a str,
    /// The agent.
    pub agent: &'a str,
    /// The handoff directory (repository-relative).
    pub dir: &'a str,
    /// The previous session tag of the directory and its manifest checksum (the chain).
    pub previous: Option<(&'a str, &'a str)>,
    /// The handoff summary.
    pub summary: &'a str,
}

/// Builds the message of a session tag: manifest checksum, session, directory, the previous
/// link of the chain, and the handoff summary. Session, agent, directory and summary are
/// untrusted text: they cross the output boundary here.
pub fn tag_message(f: &TagFields<'_>) -> String {
    use crate::output::boundary;
    let (session_id, agent, dir) = (
        boundary::clean_line(f.session_id),
        boundary::clean_line(f.agent),
        boundary::clean_line(f.dir),
    );
    let previous = match f.previous {
        Some((tag, sum)) => format!("{tag} {sum}"),
        None => "none".into(),
    };
    let summary = boundary::clean(f.summary);
    let mut msg = format!(
        "{}\n\nmanifest: {}\nsession: {session_id}\nagent: {agent}\nhandoff: {dir}\nprevious: {previous}\n",
        f.tag, f.manifest_checksum
    );
    let summary = summary.trim();
    if !summary.is_empty() {
        msg.push('\n');
        msg.push_str(summary);
        msg.push('\n');
    }
    msg
}

/// Maps any session id to a ref name part, deterministically: an id [`lock::check_session_id`]
/// accepts is used as it is; any other (a lock planted or written by hand, an older version)
/// keeps its letters, digits, `-` and `_` (at most 64), the rest becoming `-`, followed by 8
/// hex digits of its SHA-256, so two different ids never share a name.
pub fn recovered_ref_part(session_id: &str) -> String {
    use sha2::{Digest, Sha256};
    if lock::check_session_id(session_id).is_ok() {
        return session_id.to_string();
    }
    let clean: String = session_id
        .chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let clean = clean.trim_matches('-');
    let digest = crate::handoff::hex(&Sha256::digest(session_id.as_bytes())[..4]);
    if clean.is_empty() {
        format!("session-{digest}")
    } else {
        format!("{clean}-{digest}")
    }
}

/// Returns a ref name under `refs/aahp/recovered/` for a session that is free, or already
/// holds `commit` (so a rerun of `recover` reuses it); the name is
/// [`recovered_ref_part`]'s, so any lock content gives a valid ref.
pub fn recovered_ref(repo: &Repo, session_id: &str, commit: ObjectId) -> Result<(String, bool)> {
    let clean = recovered_ref_part(session_id);
    for i in 1.. {
        let name = if i == 1 {
            format!("{RECOVERED_PREFIX}{clean}")
        } else {
            format!("{RECOVERED_PREFIX}{clean}-{i}")
        };
        match repo.find_ref(&name)? {
            None => return Ok((name, false)),
            Some(id) if id == commit => return Ok((name, true)),
            Some(_) => {}
        }
    }
    unreachable!("the loop returns once a free name is found")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_session_id_maps_to_a_valid_ref_part_deterministically() {
        assert_eq!(recovered_ref_part("s-1.2_x"), "s-1.2_x");
        for bad in [
            "v1..2",
            "sess.lock",
            "../../../heads/main",
            "a\u{1b}]0;x\u{7}",
            "",
            "...",
            "ü",
            &"x".repeat(500),
        ] {
            let part = recovered_ref_part(bad);
            assert_eq!(part, recovered_ref_part(bad), "deterministic");
            let name = format!("{RECOVERED_PREFIX}{part}");
            assert!(
                gix::refs::FullName::try_from(name.as_str()).is_ok(),
                "{bad:?} → {name}"
            );
            assert!(part.len() <= 64 + 9, "{part}");
        }
        assert_ne!(recovered_ref_part("a..b"), recovered_ref_part("a//b"));
    }
}
