//! The rotation journal, `<git_dir>/aahp/rotation.json`: how `git aahp archive` replaces
//! LOG.md, LOG-ARCHIVE.md and the index as one change. It does not compute the rotation
//! (that is [`crate::handoff::log::rotate`]) and does not refresh the manifest.
//!
//! # Crash safety
//! The new content is first written beside its target as `.aahp-tmp-rotation-*`
//! (fsync'd): a whole new file, or for LOG-ARCHIVE.md and its index (append-only, issue
//! #14) only the text spliced in after their kept bytes. Nothing the user sees has changed
//! yet, and a failure here deletes them. Then the journal is written: from that moment the
//! rotation is decided. It records, for a spliced file, how many bytes stay, the old bytes
//! after them (the index's closing `]` and `}`), a digest of the bytes just before them and
//! the new length. The files are then changed one by one (a whole file by rename, a spliced
//! one by writing in place and fsync) and the journal is removed last. A failure during
//! that is rolled back (renamed files from the old content still in memory, spliced ones by
//! writing back their old end and truncating); when even that fails, or the process dies,
//! [`complete`] (run by `archive` and by `recover`) finishes what is left: it renames the
//! staged whole files and writes the staged splices again.
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
    /// SHA-256 (hex) of its bytes after the rotation (of the spliced text for a splice).
    pub after: String,
    /// Set when the file is extended in place rather than replaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub splice: Option<SplicedFile>,
}

/// How a file is extended in place: what stays, what it ended with, and how long it gets.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SplicedFile {
    /// Bytes at the start of the file that stay as they are.
    pub keep: u64,
    /// The old bytes after them, written back to roll the splice back.
    pub old_tail: String,
    /// SHA-256 (hex) of the (at most [`ANCHOR`]) bytes just before `keep`: a file that no
    /// longer has them was changed by hand and is not touched.
    pub anchor: String,
    /// The file's length once spliced.
    pub new_len: u64,
}

/// The fail point that slows each write step down (see [`failpoint::pause`]).
pub const SLOW: &str = "archive:slow";
/// How many bytes before a splice its anchor covers.
const ANCHOR: u64 = 4096;

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

/// A file to change: its name, its current content and its new content; or, for a splice,
/// the bytes that replace everything after its first `keep`.
pub struct Change<'a> {
    /// Name in the handoff directory.
    pub name: &'a str,
    /// Current content (unused for a splice).
    pub before: Before<'a>,
    /// New content, or the spliced text (a splice's is held).
    pub after: After<'a>,
    /// Set to extend the file in place.
    pub splice: Option<SpliceAt<'a>>,
}

/// A file's content before a rotation replaces it.
#[derive(Clone, Copy)]
pub enum Before<'a> {
    /// Its bytes as they were read (`None`: it does not exist).
    Held(Option<&'a [u8]>),
    /// Left on disk, never held (issue #12 item 2): hashed in pieces for the journal, and
    /// kept under a second name (a hard link, else a copy) while the new content is renamed
    /// over it, so a failure can put it back.
    OnDisk,
}

/// A file's new content.
#[derive(Clone, Copy)]
pub enum After<'a> {
    /// Its bytes.
    Held(&'a [u8]),
    /// Already written in pieces at [`staged_path`] and synced by the caller, never held
    /// (issue #12 item 2). Until the journal is written, nothing is decided: a crash leaves
    /// a staged file the next run removes.
    Staged,
}

impl After<'_> {
    /// The bytes, when held.
    fn held(&self) -> Option<&[u8]> {
        match self {
            After::Held(b) => Some(b),
            After::Staged => None,
        }
    }
}

/// Where a splice goes.
pub struct SpliceAt<'a> {
    /// Bytes at the start of the file that stay.
    pub keep: u64,
    /// The current bytes after them (the whole rest of the file).
    pub old_tail: &'a [u8],
}

/// Returns the journal's path.
pub fn journal_path(repo: &Repo) -> PathBuf {
    state_dir(repo).join("rotation.json")
}

/// Where a rotation stages the new content of `name` before the journal decides it.
pub fn staged_path(dir: &HandoffDir, name: &str) -> PathBuf {
    dir.abs.join(format!("{STAGED_PREFIX}{name}"))
}

/// Where a rotation keeps the old content of `name` (left on disk, [`Before::OnDisk`])
/// while its new content is renamed into place.
fn kept_path(dir: &HandoffDir, name: &str) -> PathBuf {
    dir.abs.join(format!("{STAGED_PREFIX}old-{name}"))
}

/// Gives the file at `from` a second name, `to`: a hard link, else (a file system without
/// them) a copy made in pieces.
fn link_or_copy(from: &Path, to: &Path) -> std::io::Result<()> {
    let _ = std::fs::remove_file(to);
    if std::fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    std::fs::copy(from, to).map(|_| ())
}

/// Reads the journal of an interrupted rotation, if there is one, as a handoff file is read
/// ([`crate::handoff::read_limited`]: opened without waiting, so a FIFO there never hangs a
/// command; a regular file only; within a size limit).
pub fn pending(repo: &Repo) -> Result<Option<RotationJournal>> {
    let path = journal_path(repo);
    let shown = path.display().to_string();
    if std::fs::symlink_metadata(&path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        return Ok(None);
    }
    let bytes = crate::handoff::read_limited(&path, &shown)?;
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

/// [`pending`], when the interrupted rotation is `dir`'s: each directory's rotation is its
/// own to complete, and blocks only its own writers.
pub fn pending_in(repo: &Repo, dir: &HandoffDir) -> Result<Option<RotationJournal>> {
    Ok(pending(repo)?.filter(|j| j.dir == dir.rel))
}

/// The error to give when a rotation is pending and a command would work on half-rotated
/// files.
pub fn pending_error(journal: &RotationJournal) -> Error {
    Error::other(format!(
        "an interrupted `git aahp archive` left {}/{LOG_FILE}, {ARCHIVE_FILE} and {INDEX_FILE} half rotated; run `git aahp archive` (or `git aahp recover`) in that directory (`--dir {}`) to complete it",
        journal.dir,
        crate::output::shell_word(&journal.dir)
    ))
}

/// Deletes staged files of a rotation that never got its journal (a crash while staging).
pub fn remove_stale_staging(dir: &HandoffDir) {
    for name in FILES {
        let _ = std::fs::remove_file(staged_path(dir, name));
        let _ = std::fs::remove_file(kept_path(dir, name));
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
    let mut ordered: Vec<&Change<'_>> =
        changes.iter().filter(|c| FILES.contains(&c.name)).collect();
    ordered.sort_by_key(|c| FILES.iter().position(|n| *n == c.name));
    // Phase 1: stage. Nothing the user sees changes.
    let staged = ordered.iter().try_for_each(|c| stage(dir, c));
    let files: Result<Vec<RotatedFile>> = ordered
        .iter()
        .map(|c| {
            let splice = match &c.splice {
                None => None,
                Some(at) => Some(SplicedFile {
                    keep: at.keep,
                    old_tail: String::from_utf8(at.old_tail.to_vec()).map_err(|_| {
                        Error::invalid(
                            dir.path_of(c.name),
                            None,
                            "the end of the file is not UTF-8",
                        )
                    })?,
                    anchor: anchor_of(&dir.abs.join(c.name), at.keep, &dir.path_of(c.name))?,
                    new_len: at.keep + c.after.held().map_or(0, <[u8]>::len) as u64,
                }),
            };
            let before = match (&splice, c.before) {
                (Some(_), _) => None,
                (None, Before::Held(bytes)) => bytes.map(digest),
                (None, Before::OnDisk) => current_checksum(dir, c.name)?,
            };
            let after = match c.after.held() {
                Some(bytes) => digest(bytes),
                None => current_checksum_at(&staged_path(dir, c.name), &dir.path_of(c.name))?
                    .ok_or_else(|| Error::other("a staged file vanished before the journal"))?,
            };
            Ok(RotatedFile {
                name: c.name.to_string(),
                before,
                after,
                splice,
            })
        })
        .collect();
    let saved = staged.and(files).and_then(|files| {
        let journal = RotationJournal {
            version: 2,
            dir: dir.rel.clone(),
            files,
        };
        save(repo, &journal)
    });
    if let Err(e) = saved {
        remove_stale_staging(dir);
        return Err(unchanged(e));
    }
    failpoint::hit("archive:staged");
    failpoint::pause(SLOW);
    // Phase 2: rename or splice into place.
    let mut done: Vec<&Change<'_>> = Vec::new();
    for &c in &ordered {
        let point = POINTS[FILES.iter().position(|n| *n == c.name).unwrap_or(0)];
        let target = dir.abs.join(c.name);
        let outcome = match (&c.splice, &c.after) {
            (None, _) => failpoint::error(&format!("archive:rename-error:{}", c.name))
                .and_then(|()| match c.before {
                    Before::OnDisk => link_or_copy(&target, &kept_path(dir, c.name)),
                    Before::Held(_) => Ok(()),
                })
                .and_then(|()| std::fs::rename(staged_path(dir, c.name), &target)),
            (Some(at), after) => {
                // A splice that fails half way has changed the file: it is rolled back too.
                done.push(c);
                failpoint::error(&format!("archive:append-error:{}", c.name)).and_then(|()| {
                    splice_in_place(
                        &target,
                        at.keep,
                        after.held().unwrap_or_default(),
                        Some(&format!("archive:mid-append:{}", c.name)),
                    )
                })
            }
        };
        if let Err(source) = outcome {
            let cause = Error::Write {
                path: dir.path_of(c.name),
                source,
            };
            return Err(roll_back(repo, dir, &done, cause));
        }
        if c.splice.is_none() {
            done.push(c);
        }
        failpoint::hit(point);
        failpoint::pause(SLOW);
    }
    super::lock::sync_dir(&dir.abs);
    remove_journal(repo)?;
    // A splice's staged text is not consumed by a rename.
    remove_stale_staging(dir);
    Ok(ordered.iter().map(|c| c.name.to_string()).collect())
}

/// Stages a change's new content at [`staged_path`], with the mode of the file it replaces.
fn stage(dir: &HandoffDir, c: &Change<'_>) -> Result<()> {
    stage_as(dir, c, false)
}

/// [`stage`] again, for a roll back that takes a file out of place: a staged file's
/// content is in place then, and linked back.
fn restage(dir: &HandoffDir, c: &Change<'_>) -> Result<()> {
    stage_as(dir, c, true)
}

fn stage_as(dir: &HandoffDir, c: &Change<'_>, again: bool) -> Result<()> {
    let path = staged_path(dir, c.name);
    let target = dir.abs.join(c.name);
    failpoint::error(&format!("archive:stage-error:{}", c.name))
        .and_then(|()| match (c.after, again) {
            (After::Held(bytes), _) => write_atomic(&path, bytes),
            // Written and synced by the caller; its name is made durable here.
            (After::Staged, false) => {
                super::lock::sync_dir(&dir.abs);
                Ok(())
            }
            (After::Staged, true) => link_or_copy(&target, &path),
        })
        .map_err(|source| Error::Write {
            path: dir.path_of(c.name),
            source,
        })?;
    keep_mode(dir, c.name)
}

/// Gives the staged file the mode of the file it replaces by rename.
fn keep_mode(dir: &HandoffDir, name: &str) -> Result<()> {
    let path = staged_path(dir, name);
    if let Ok(meta) = std::fs::metadata(dir.abs.join(name)) {
        std::fs::set_permissions(&path, meta.permissions()).map_err(|source| Error::Write {
            path: dir.path_of(name),
            source,
        })?;
    }
    Ok(())
}

/// Writes `text` over a file from byte `keep` on, sets its length to `keep + text.len()`
/// and fsyncs it. `point` is a fail point hit with half the text written.
fn splice_in_place(
    path: &Path,
    keep: u64,
    text: &[u8],
    point: Option<&str>,
) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
    file.seek(SeekFrom::Start(keep))?;
    let half = text.len() / 2;
    file.write_all(&text[..half])?;
    if let Some(p) = point {
        file.sync_data()?;
        failpoint::hit(p);
        failpoint::pause(SLOW);
    }
    file.write_all(&text[half..])?;
    file.set_len(keep + text.len() as u64)?;
    file.sync_all()
}

/// SHA-256 (hex) of the at most [`ANCHOR`] bytes before `keep`.
fn anchor_of(path: &Path, keep: u64, shown: &str) -> Result<String> {
    use std::io::{Read, Seek, SeekFrom};
    let read_err = |source| Error::Read {
        path: shown.to_string(),
        source,
    };
    let start = keep.saturating_sub(ANCHOR);
    let mut file = std::fs::File::open(path).map_err(read_err)?;
    file.seek(SeekFrom::Start(start)).map_err(read_err)?;
    let mut buf = Vec::new();
    file.take(keep - start)
        .read_to_end(&mut buf)
        .map_err(read_err)?;
    if (buf.len() as u64) < keep - start {
        return Err(Error::invalid(shown, None, "shorter than when it was read"));
    }
    Ok(digest(&buf))
}

/// SHA-256 (hex) of a file's bytes from `from` on, reading at most `max` of them; `None`
/// when there are more.
fn digest_from(path: &Path, from: u64, max: u64, shown: &str) -> Result<Option<String>> {
    use std::io::{Read, Seek, SeekFrom};
    let read_err = |source| Error::Read {
        path: shown.to_string(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(read_err)?;
    file.seek(SeekFrom::Start(from)).map_err(read_err)?;
    let mut buf = Vec::new();
    file.take(max + 1).read_to_end(&mut buf).map_err(read_err)?;
    Ok((buf.len() as u64 <= max).then(|| digest(&buf)))
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
            restage(dir, c)?;
            let path = dir.abs.join(c.name);
            let res = failpoint::error(&format!("archive:restore-error:{}", c.name)).and_then(
                |()| match (&c.splice, c.before) {
                    (Some(at), _) => splice_in_place(&path, at.keep, at.old_tail, None),
                    (None, Before::Held(Some(bytes))) => write_atomic(&path, bytes),
                    (None, Before::Held(None)) => std::fs::remove_file(&path),
                    (None, Before::OnDisk) => {
                        std::fs::rename(kept_path(dir, c.name), &path)?;
                        super::lock::sync_dir(&dir.abs);
                        Ok(())
                    }
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
///
/// Only the rotation of `dir`, whose write lock (and `HANDOFF.lock`) the caller holds: one
/// another directory left is that directory's to complete, under its own locks.
pub fn complete(repo: &Repo, dir: &HandoffDir) -> Result<Option<Vec<String>>> {
    let Some(journal) = pending_in(repo, dir)? else {
        return Ok(None);
    };
    let mut todo = Vec::new();
    let mut splices = Vec::new();
    for f in &journal.files {
        if let Some(sp) = &f.splice {
            let path = dir.abs.join(&f.name);
            let shown = dir.path_of(&f.name);
            let len = std::fs::symlink_metadata(&path)
                .ok()
                .filter(std::fs::Metadata::is_file)
                .map(|m| m.len());
            let done = len == Some(sp.new_len)
                && digest_from(&path, sp.keep, sp.new_len - sp.keep, &shown)?.as_deref()
                    == Some(f.after.as_str());
            if done {
                continue;
            }
            let staged = staged_path(dir, &f.name);
            let staged_ok =
                current_checksum_at(&staged, &shown)?.as_deref() == Some(f.after.as_str());
            let anchored = len.is_some_and(|l| l >= sp.keep)
                && anchor_of(&path, sp.keep, &shown)? == sp.anchor;
            if staged_ok && anchored {
                splices.push((f.name.clone(), sp.keep));
                continue;
            }
            return Err(changed_by_hand(repo, dir, &f.name));
        }
        let on_disk = current_checksum(dir, &f.name)?;
        if on_disk.as_deref() == Some(f.after.as_str()) {
            continue;
        }
        let staged = staged_path(dir, &f.name);
        let staged_ok = current_checksum_at(&staged, &dir.path_of(&f.name))?.as_deref()
            == Some(f.after.as_str());
        if on_disk == f.before && staged_ok {
            todo.push(f.name.clone());
            continue;
        }
        return Err(changed_by_hand(repo, dir, &f.name));
    }
    for (name, keep) in &splices {
        let write_err = |source| Error::Write {
            path: dir.path_of(name),
            source,
        };
        let text = std::fs::read(staged_path(dir, name)).map_err(write_err)?;
        splice_in_place(&dir.abs.join(name), *keep, &text, None).map_err(write_err)?;
        todo.push(name.clone());
    }
    todo.sort_by_key(|n| FILES.iter().position(|f| f == n));
    for name in todo
        .iter()
        .filter(|n| !splices.iter().any(|(s, _)| s == *n))
    {
        std::fs::rename(staged_path(dir, name), dir.abs.join(name)).map_err(|source| {
            Error::Write {
                path: dir.path_of(name),
                source,
            }
        })?;
    }
    super::lock::sync_dir(&dir.abs);
    remove_journal(repo)?;
    remove_stale_staging(dir);
    Ok(Some(todo))
}

fn changed_by_hand(repo: &Repo, dir: &HandoffDir, name: &str) -> Error {
    Error::other(format!(
        "{} changed after `git aahp archive` was interrupted, so the rotation cannot be completed; \
         restore it with `git checkout -- {}` and rerun `git aahp archive`, or move {} away to give the rotation up",
        dir.path_of(name),
        crate::output::shell_word(&dir.path_of(name)),
        journal_path(repo).display()
    ))
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
