//! The rotation journal, `<git_dir>/aahp/rotation.json`: how `git aahp archive` replaces
//! LOG.md, LOG-ARCHIVE.md and the index as one change. It does not compute the rotation
//! (that is [`crate::handoff::log::rotate`]) and does not refresh the manifest.
//!
//! # Crash safety
//! The three new files are first written beside their targets as `.aahp-tmp-rotation-*`
//! (fsync'd); nothing the user sees has changed yet, and a failure here deletes them. Then
//! the journal is written: from that moment the rotation is decided. The staged files are
//! renamed into place one by one and the journal is removed last. A failure during the
//! renames is rolled back from the old content still in memory; when even that fails, or
//! the process dies, [`complete`] (run by `archive` and by `recover`) renames what is left.
//! Because the three files only ever change together, an entry can never be both in LOG.md
//! and, from the same rotation, in the archive — which is what lets identical entries be
//! archived as often as they occur (issue #12, H6).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::failpoint;
use crate::git::Repo;
use crate::handoff::log::{ARCHIVE_FILE, INDEX_FILE, LOG_FILE};
use crate::handoff::{HandoffDir, hex, write_atomic};
use crate::transaction::journal::state_dir;

/// Prefix of the staged files; [`crate::transaction::remove_temp_files`] leaves them alone
/// while a rotation journal may need them.
pub const STAGED_PREFIX: &str = ".aahp-tmp-rotation-";
/// The files a rotation may replace, in the order they are renamed into place.
const FILES: [&str; 3] = [ARCHIVE_FILE, INDEX_FILE, LOG_FILE];
/// The fail point hit after each file of [`FILES`] is in place.
const POINTS: [&str; 3] = [
    "archive:after-archive",
    "archive:after-index",
    "archive:after-log",
];

/// One file of a rotation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RotatedFile {
    /// Its name in the handoff directory (one of LOG.md, LOG-ARCHIVE.md, the index).
    pub name: String,
    /// SHA-256 (hex) of its bytes before the rotation; `None` when it did not exist.
    pub before: Option<String>,
    /// SHA-256 (hex) of its bytes after the rotation.
    pub after: String,
}

/// What an interrupted rotation must still do.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RotationJournal {
    /// Format version.
    pub version: u32,
    /// The handoff directory, repository-relative.
    pub dir: String,
    /// The files being replaced.
    pub files: Vec<RotatedFile>,
}

/// A file to replace: its name, its current bytes (`None` when absent) and its new bytes.
pub struct Change<'a> {
    /// Name in the handoff directory.
    pub name: &'a str,
    /// Current content.
    pub before: Option<&'a [u8]>,
    /// New content.
    pub after: &'a [u8],
}

/// Returns the journal's path.
pub fn journal_path(repo: &Repo) -> PathBuf {
    state_dir(repo).join("rotation.json")
}

fn staged_path(dir: &HandoffDir, name: &str) -> PathBuf {
    dir.abs.join(format!("{STAGED_PREFIX}{name}"))
}

/// Reads the journal of an interrupted rotation, if there is one.
pub fn pending(repo: &Repo) -> Result<Option<RotationJournal>> {
    let path = journal_path(repo);
    let shown = path.display().to_string();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(Error::Read {
                path: shown,
                source,
            });
        }
    };
    let journal: RotationJournal = serde_json::from_slice(&bytes).map_err(|e| {
        Error::invalid(
            &shown,
            Some(e.line()),
            format!("the rotation journal is unreadable ({e}); move it away, restore LOG.md, LOG-ARCHIVE.md and its index from git, and rerun `git aahp archive`"),
        )
    })?;
    if let Some(f) = journal
        .files
        .iter()
        .find(|f| !FILES.contains(&f.name.as_str()))
    {
        return Err(Error::invalid(
            shown,
            None,
            format!(
                "the rotation journal names `{}`, which a rotation never writes; move it away",
                crate::output::escape_untrusted(&f.name)
            ),
        ));
    }
    Ok(Some(journal))
}

/// The error to give when a rotation is pending and a command would work on half-rotated
/// files.
pub fn pending_error(journal: &RotationJournal) -> Error {
    Error::other(format!(
        "an interrupted `git aahp archive` left {}/{LOG_FILE}, {ARCHIVE_FILE} and {INDEX_FILE} half rotated; run `git aahp archive` (or `git aahp recover`) to complete it",
        journal.dir
    ))
}

/// Deletes staged files of a rotation that never got its journal (a crash while staging).
pub fn remove_stale_staging(dir: &HandoffDir) {
    for name in FILES {
        let _ = std::fs::remove_file(staged_path(dir, name));
    }
}

/// Replaces the files as one change, in the order of [`FILES`]. Returns the names written.
///
/// On an error nothing is changed (the error says so), unless rolling back failed too: then
/// the error says that `git aahp archive` or `git aahp recover` completes the rotation.
pub fn apply(repo: &Repo, dir: &HandoffDir, changes: &[Change<'_>]) -> Result<Vec<String>> {
    if let Some(j) = pending(repo)? {
        return Err(pending_error(&j));
    }
    let ordered: Vec<&Change<'_>> = FILES
        .iter()
        .filter_map(|n| changes.iter().find(|c| c.name == *n))
        .collect();
    // Phase 1: stage. Nothing the user sees changes.
    let staged = ordered.iter().try_for_each(|c| stage(dir, c));
    let journal = RotationJournal {
        version: 1,
        dir: dir.rel.clone(),
        files: ordered
            .iter()
            .map(|c| RotatedFile {
                name: c.name.to_string(),
                before: c.before.map(digest),
                after: digest(c.after),
            })
            .collect(),
    };
    if let Err(e) = staged.and_then(|()| save(repo, &journal)) {
        remove_stale_staging(dir);
        return Err(unchanged(e));
    }
    failpoint::hit("archive:staged");
    // Phase 2: rename into place.
    let mut done: Vec<&Change<'_>> = Vec::new();
    for c in &ordered {
        let point = POINTS[FILES.iter().position(|n| *n == c.name).unwrap_or(0)];
        let renamed = failpoint::error(&format!("archive:rename-error:{}", c.name))
            .and_then(|()| std::fs::rename(staged_path(dir, c.name), dir.abs.join(c.name)));
        if let Err(source) = renamed {
            let cause = Error::Write {
                path: dir.path_of(c.name),
                source,
            };
            return Err(roll_back(repo, dir, &done, cause));
        }
        done.push(c);
        failpoint::hit(point);
    }
    super::lock::sync_dir(&dir.abs);
    remove_journal(repo)?;
    Ok(done.iter().map(|c| c.name.to_string()).collect())
}

fn stage(dir: &HandoffDir, c: &Change<'_>) -> Result<()> {
    let path = staged_path(dir, c.name);
    let target = dir.abs.join(c.name);
    let write_err = |source| Error::Write {
        path: dir.path_of(c.name),
        source,
    };
    failpoint::error(&format!("archive:stage-error:{}", c.name))
        .and_then(|()| write_atomic(&path, c.after))
        .map_err(write_err)?;
    // The staged file replaces the target by rename: give it the target's mode now.
    if let Ok(meta) = std::fs::metadata(&target) {
        std::fs::set_permissions(&path, meta.permissions()).map_err(write_err)?;
    }
    Ok(())
}

fn save(repo: &Repo, journal: &RotationJournal) -> Result<()> {
    let path = journal_path(repo);
    let mut bytes = serde_json::to_vec_pretty(journal).expect("a journal always serialises");
    bytes.push(b'\n');
    std::fs::create_dir_all(state_dir(repo))
        .and_then(|()| write_atomic(&path, &bytes))
        .map_err(|source| Error::Write {
            path: path.display().to_string(),
            source,
        })
}

fn remove_journal(repo: &Repo) -> Result<()> {
    let path = journal_path(repo);
    match std::fs::remove_file(&path) {
        Ok(()) => {
            super::lock::sync_dir(&state_dir(repo));
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(Error::Write {
            path: path.display().to_string(),
            source,
        }),
    }
}

fn unchanged(cause: Error) -> Error {
    Error::Other {
        context: "the log was not archived; nothing was changed".into(),
        source: Some(Box::new(cause)),
    }
}

/// Puts back the old content of the files already renamed into place.
///
/// Each file is staged again before its old content goes back, so that whenever this stops
/// every file is either as the rotation leaves it or as it found it with its new content
/// staged: the journal can still complete it.
fn roll_back(repo: &Repo, dir: &HandoffDir, done: &[&Change<'_>], cause: Error) -> Error {
    let undo = || -> Result<()> {
        for c in done.iter().rev() {
            stage(dir, c)?;
            let path = dir.abs.join(c.name);
            let res = failpoint::error(&format!("archive:restore-error:{}", c.name)).and_then(
                |()| match c.before {
                    Some(bytes) => write_atomic(&path, bytes),
                    None => std::fs::remove_file(&path),
                },
            );
            res.map_err(|source| Error::Write {
                path: dir.path_of(c.name),
                source,
            })?;
        }
        remove_journal(repo)
    };
    match undo() {
        Ok(()) => {
            remove_stale_staging(dir);
            Error::Other {
                context: "the log was not archived; the files already replaced were put back, nothing was changed".into(),
                source: Some(Box::new(cause)),
            }
        }
        Err(undo_err) => Error::Other {
            context: format!(
                "the log archive is half rotated and putting it back failed too ({undo_err}); \
                 run `git aahp archive` again (or `git aahp recover`) to complete the rotation"
            ),
            source: Some(Box::new(cause)),
        },
    }
}

/// Completes an interrupted rotation: renames the staged files that are not in place yet
/// and removes the journal. Returns the handoff directory and the files it put in place,
/// or `None` when no rotation was pending.
///
/// A file that is neither as the rotation found it nor as it left it was changed by hand
/// after the crash: nothing is renamed then, and the error names it (exit 2).
pub fn complete(repo: &Repo) -> Result<Option<(HandoffDir, Vec<String>)>> {
    let Some(journal) = pending(repo)? else {
        return Ok(None);
    };
    let dir = HandoffDir::locate(repo, repo.workdir(), Some(Path::new(&journal.dir)))?;
    let mut todo = Vec::new();
    for f in &journal.files {
        let on_disk = current_checksum(&dir, &f.name)?;
        if on_disk.as_deref() == Some(f.after.as_str()) {
            continue;
        }
        let staged = staged_path(&dir, &f.name);
        let staged_ok = current_checksum_at(&staged, &dir.path_of(&f.name))?.as_deref()
            == Some(f.after.as_str());
        if on_disk == f.before && staged_ok {
            todo.push(f.name.clone());
            continue;
        }
        return Err(Error::other(format!(
            "{} changed after `git aahp archive` was interrupted, so the rotation cannot be completed; \
             restore it with `git checkout -- {}` and rerun `git aahp archive`, or move {} away to give the rotation up",
            dir.path_of(&f.name),
            dir.path_of(&f.name),
            journal_path(repo).display()
        )));
    }
    for name in &todo {
        std::fs::rename(staged_path(&dir, name), dir.abs.join(name)).map_err(|source| {
            Error::Write {
                path: dir.path_of(name),
                source,
            }
        })?;
    }
    super::lock::sync_dir(&dir.abs);
    remove_journal(repo)?;
    remove_stale_staging(&dir);
    Ok(Some((dir, todo)))
}

fn current_checksum(dir: &HandoffDir, name: &str) -> Result<Option<String>> {
    current_checksum_at(&dir.abs.join(name), &dir.path_of(name))
}

fn current_checksum_at(path: &Path, shown: &str) -> Result<Option<String>> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(Error::Read {
            path: shown.to_string(),
            source,
        }),
        Ok(m) if !m.is_file() => Err(Error::invalid(
            shown,
            None,
            "not a regular file; a rotation only replaces regular files",
        )),
        Ok(_) => {
            // Read in pieces: the archive's size is bounded by the disk, not by memory.
            use sha2::Digest;
            use std::io::Read;
            let read_err = |source| Error::Read {
                path: shown.to_string(),
                source,
            };
            let mut file = std::fs::File::open(path).map_err(read_err)?;
            let mut hasher = sha2::Sha256::new();
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let n = file.read(&mut buf).map_err(read_err)?;
                if n == 0 {
                    break;
                }
                hasher.update(&buf[..n]);
            }
            Ok(Some(hex(&hasher.finalize())))
        }
    }
}

/// SHA-256 of the exact bytes, in hex (the AAHP checksum ignores CRs; this must not).
fn digest(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(bytes))
}
