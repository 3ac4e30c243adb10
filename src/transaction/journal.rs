//! The commit journal, `<git_dir>/aahp/journals/<key>.json` (one per handoff directory, the key
//! derived from its path): what `git aahp commit` is doing, written atomically before it changes
//! any file, so `recover` can finish or undo it. It lives in the worktree's private git
//! directory, never in the handoff directory, so it is never committed. Keyed by directory,
//! a crashed commit in one package never blocks a session in another (issue #17).

use std::path::{Path, PathBuf};

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::git::Repo;
use crate::handoff::HandoffDir;
use crate::handoff::write_atomic;

/// How far a commit got, as recorded before each irreversible step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// The pre-session files are saved; handoff files may be rewritten from here on.
    Prepared,
    /// Everything is staged; `git commit` is about to run with `planned_tree`.
    Committing,
    /// The commit exists (`commit`); the lock and tag remain.
    Committed,
    /// `recover` is rolling the session back.
    RollingBack,
}

/// One index entry of the handoff directory before staging: mode, blob id, path.
pub type IndexEntry = (String, String, String);

/// The journal of one session's commit.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Journal {
    /// Format version.
    pub version: u32,
    /// The session being committed.
    pub session_id: String,
    /// Its agent.
    pub agent: String,
    /// The handoff directory, repository-relative.
    pub dir: String,
    /// When `commit` started (RFC 3339).
    pub started: String,
    /// HEAD before the commit.
    pub base_commit: Option<String>,
    /// A commit (parent: `base_commit`) holding the handoff files exactly as the session left
    /// them before `commit` changed anything: the content `recover` saves and an aborted
    /// commit restores.
    pub saved_commit: String,
    /// The handoff directory's index entries before staging, to undo the staging.
    pub index_before: Vec<IndexEntry>,
    /// Whether `commit` took the lock itself (no `begin`).
    pub took_lock: bool,
    /// The commit message.
    pub message: String,
    /// Skip the session tag.
    pub no_tag: bool,
    /// The step reached.
    pub step: Step,
    /// The tree `git commit` is expected to record (set at [`Step::Committing`]).
    pub planned_tree: Option<String>,
    /// The new commit (set at [`Step::Committed`]).
    pub commit: Option<String>,
    /// The process id of the `git commit` started at [`Step::Committing`], recorded as soon
    /// as it is spawned: named when `recover` or `status` finds it still running. Only a
    /// name for the user: whether it still runs is the write lock's to say (see
    /// [`Journal::commit_running`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_pid: Option<u32>,
}

impl Journal {
    /// The exit-3 error for a session whose `git aahp commit` was interrupted: nobody may
    /// start over it before `git aahp recover`.
    pub fn interrupted_error(&self) -> Error {
        Error::Locked(Box::new(crate::error::LockHolder {
            agent: self.agent.clone(),
            session_id: self.session_id.clone(),
            host: None,
            started: Some(self.started.clone()),
            expires: None,
            stale: true,
            since: format!("{} (its `git aahp commit` was interrupted)", self.started),
        }))
    }

    /// Returns the session's commit when it exists: recorded in the journal, or `head` when
    /// its first parent is the journal's base and its tree the planned one (a crash between
    /// `git commit` and the journal update). `None` while rolling back or before the commit.
    pub fn session_commit(&self, repo: &Repo, head: Option<ObjectId>) -> Result<Option<ObjectId>> {
        if self.step == Step::RollingBack {
            return Ok(None);
        }
        if let Some(c) = &self.commit {
            return Ok(ObjectId::from_hex(c.as_bytes()).ok());
        }
        let (Some(head), Some(planned)) = (head, &self.planned_tree) else {
            return Ok(None);
        };
        if Some(head.to_string()) == self.base_commit {
            return Ok(None);
        }
        let parent = repo.commit_parents(head)?.first().map(ToString::to_string);
        if parent == self.base_commit
            && ObjectId::from_hex(planned.as_bytes()).ok() == Some(repo.commit_tree(head)?)
        {
            return Ok(Some(head));
        }
        Ok(None)
    }

    /// Returns the pid of this session's `git commit` while it is still running: the journal
    /// stands at [`Step::Committing`] with the pid recorded, another process holds the
    /// directory's write lock (which `git commit` inherits from `git aahp commit`), and that
    /// pid is alive.
    ///
    /// That `git commit` outlives a killed `git aahp commit` and may still create the
    /// session's commit: until it has ended, `recover` must neither finish nor roll back
    /// (issue #12 item 5). The write lock is what makes that safe: the kernel holds it until
    /// the last process sharing it ends, and `recover` waits for it like any writer. This
    /// answer only lets `recover` and `status` say so at once and name the process; `None`
    /// (no pid recorded yet, a pid that has gone) leaves the waiting to the lock.
    pub fn commit_running(&self, repo: &Repo, dir: &HandoffDir) -> Result<Option<u32>> {
        let Some(pid) = self.git_pid else {
            return Ok(None);
        };
        if self.step != Step::Committing || !super::writer::WriteLock::is_held(repo, dir)? {
            return Ok(None);
        }
        Ok(process_alive(pid).then_some(pid))
    }

    /// Returns the journal's path for the handoff directory `dir` (repository-relative).
    pub fn path(repo: &Repo, dir: &str) -> PathBuf {
        state_dir(repo)
            .join("journals")
            .join(format!("{}.json", dir_key(dir)))
    }

    /// The one journal earlier versions kept for the whole worktree.
    fn legacy_path(repo: &Repo) -> PathBuf {
        state_dir(repo).join("journal.json")
    }

    fn read(path: &Path) -> Result<Option<Journal>> {
        let shown = path.display().to_string();
        match crate::handoff::read_state_file(path)? {
            Some(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
                Error::invalid(
                    shown,
                    Some(e.line()),
                    format!("the commit journal is unreadable ({e}); move it away and run `git aahp recover`"),
                )
            }),
            None => Ok(None),
        }
    }

    /// Reads the journal of the handoff directory `dir`, if one exists; an unreadable journal
    /// is reported, never ignored (an unreadable legacy journal too: it may be this
    /// directory's).
    pub fn load(repo: &Repo, dir: &str) -> Result<Option<Journal>> {
        if let Some(j) = Journal::read(&Journal::path(repo, dir))? {
            return Ok(Some(j));
        }
        Ok(Journal::read(&Journal::legacy_path(repo))?.filter(|j| j.dir == dir))
    }

    /// Reads every commit journal of this worktree (every handoff directory's), sorted by
    /// directory.
    pub fn load_all(repo: &Repo) -> Result<Vec<Journal>> {
        let mut out: Vec<Journal> = Journal::read(&Journal::legacy_path(repo))?
            .into_iter()
            .collect();
        let dir = state_dir(repo).join("journals");
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "json")
                    && let Some(j) = Journal::read(&path)?
                    && !out.iter().any(|o| o.dir == j.dir)
                {
                    out.push(j);
                }
            }
        }
        out.sort_by(|a, b| a.dir.cmp(&b.dir));
        Ok(out)
    }

    /// Writes the journal of its directory atomically.
    pub fn save(&self, repo: &Repo) -> Result<()> {
        self.save_with(repo, write_atomic)
    }

    /// [`Journal::save`] of a change that only names something (the `git commit` process
    /// id): the new journal is synced before its rename, the directory is not. A power cut
    /// may then keep the previous journal, complete and synced, which lacks only the name
    /// (issue #14: one fsync fewer per commit).
    pub fn save_name(&self, repo: &Repo) -> Result<()> {
        self.save_with(repo, crate::handoff::write_atomic_batched)
    }

    fn save_with(&self, repo: &Repo, write: fn(&Path, &[u8]) -> std::io::Result<()>) -> Result<()> {
        let path = Journal::path(repo, &self.dir);
        let mut bytes = serde_json::to_vec_pretty(self).expect("a journal always serialises");
        bytes.push(b'\n');
        ensure_dir(path.parent().expect("the journal lives in a directory"))?;
        write(&path, &bytes).map_err(|source| Error::Write {
            path: path.display().to_string(),
            source,
        })?;
        // A legacy journal of the same directory would be read as well: this one replaces it.
        let legacy = Journal::legacy_path(repo);
        if Journal::read(&legacy)
            .ok()
            .flatten()
            .is_some_and(|j| j.dir == self.dir)
        {
            remove_file(&legacy)?;
        }
        Ok(())
    }

    /// Deletes the journal of the handoff directory `dir` (absent is fine); other
    /// directories' journals are left alone.
    pub fn remove(repo: &Repo, dir: &str) -> Result<()> {
        Journal::remove_with(repo, dir, true)
    }

    /// [`Journal::remove`] at the end of a commit that finished, without syncing the
    /// directory (issue #14: one fsync fewer per commit). A journal a power cut brings back
    /// says `committed` with the lock released and the tag made or not: the states of a kill
    /// at `commit:release` or `commit:tag`, which `recover` finishes (it tags only an untagged
    /// commit) and `commit` refuses to start over.
    pub fn remove_unsynced(repo: &Repo, dir: &str) -> Result<()> {
        Journal::remove_with(repo, dir, false)
    }

    fn remove_with(repo: &Repo, dir: &str, sync: bool) -> Result<()> {
        let path = Journal::path(repo, dir);
        if sync {
            remove_file(&path)?;
        } else {
            remove_file_unsynced(&path)?;
        }
        // The folder goes with the last journal: a refused commit leaves nothing behind.
        if let Some(parent) = path.parent() {
            let _ = std::fs::remove_dir(parent);
        }
        let legacy = Journal::legacy_path(repo);
        if Journal::read(&legacy)
            .ok()
            .flatten()
            .is_some_and(|j| j.dir == dir)
        {
            remove_file(&legacy)?;
        }
        Ok(())
    }
}

/// The file-name key of a handoff directory's per-directory state (session record, journal,
/// write lock): 16 hex digits of the SHA-256 of its repository-relative path.
pub fn dir_key(dir: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(dir.as_bytes());
    crate::handoff::hex(&digest[..8])
}

/// The record `begin` leaves in the worktree's git directory naming the session it started,
/// so later commands in the same worktree recognise the lock as theirs without an id.
///
/// There is one record per handoff directory (`<git_dir>/aahp/sessions/<key>.json`, the key
/// derived from the directory's path), so sessions in two packages of one worktree never
/// displace each other. The single `<git_dir>/aahp/session.json` earlier versions wrote is
/// still read (and removed) for the directory it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The handoff directory, repository-relative.
    pub dir: String,
    /// The session id `begin` put in the lock.
    pub session_id: String,
}

impl SessionRecord {
    /// The record of the handoff directory `dir` (repository-relative).
    fn path(repo: &Repo, dir: &str) -> PathBuf {
        state_dir(repo)
            .join("sessions")
            .join(format!("{}.json", dir_key(dir)))
    }

    /// The one record earlier versions kept for the whole worktree.
    fn legacy_path(repo: &Repo) -> PathBuf {
        state_dir(repo).join("session.json")
    }

    fn read(path: &Path) -> Option<SessionRecord> {
        let bytes = crate::handoff::read_state_file(path).ok()??;
        serde_json::from_slice(&bytes).ok()
    }

    /// Reads the record of the handoff directory `dir`; anything unreadable, or a record
    /// naming another directory, counts as no record.
    pub fn load(repo: &Repo, dir: &str) -> Option<SessionRecord> {
        [
            SessionRecord::path(repo, dir),
            SessionRecord::legacy_path(repo),
        ]
        .iter()
        .find_map(|p| SessionRecord::read(p).filter(|r| r.dir == dir))
    }

    /// Writes the record of its directory atomically and durably (`begin`: the session
    /// outlives the process, and a record lost to a power cut would make its lock look
    /// like another session's).
    pub fn save(&self, repo: &Repo) -> Result<()> {
        self.save_with(repo, write_atomic)
    }

    /// Writes the record of its directory atomically without fsync: the record of a session
    /// that lives and ends inside one `commit` (no `begin`). It only has to survive that
    /// process being killed (for a retry of the same session), which the page cache does; a
    /// record lost or damaged by a power cut reads as no record, and the journal, which is
    /// synced, is what `recover` acts on (issue #14: three fsyncs fewer per commit).
    pub fn save_unsynced(&self, repo: &Repo) -> Result<()> {
        self.save_with(repo, crate::handoff::write_cache_file)
    }

    fn save_with(&self, repo: &Repo, write: fn(&Path, &[u8]) -> std::io::Result<()>) -> Result<()> {
        let path = SessionRecord::path(repo, &self.dir);
        ensure_dir(path.parent().expect("the record lives in a directory"))?;
        let bytes = serde_json::to_vec(self).expect("a record always serialises");
        write(&path, &bytes).map_err(|source| Error::Write {
            path: path.display().to_string(),
            source,
        })?;
        // A legacy record for the same directory would name an older session.
        SessionRecord::remove_legacy(repo, &self.dir)
    }

    /// Deletes the record of the handoff directory `dir` (absent is fine); other
    /// directories' records are left alone.
    pub fn remove(repo: &Repo, dir: &str) -> Result<()> {
        SessionRecord::remove_with(repo, dir, true)
    }

    /// [`SessionRecord::remove`] without the directory's fsync, for a record written by
    /// [`SessionRecord::save_unsynced`]: one that comes back after a power cut names a
    /// session whose lock is gone, which counts for nothing.
    pub fn remove_unsynced(repo: &Repo, dir: &str) -> Result<()> {
        SessionRecord::remove_with(repo, dir, false)
    }

    fn remove_with(repo: &Repo, dir: &str, durable: bool) -> Result<()> {
        let path = SessionRecord::path(repo, dir);
        if durable {
            remove_file(&path)?;
        } else {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(Error::Write {
                        path: path.display().to_string(),
                        source,
                    });
                }
            }
        }
        // The directory of records goes with its last record: a command that took a lock
        // and failed leaves the git directory as it found it.
        if let Some(parent) = path.parent() {
            let _ = std::fs::remove_dir(parent);
        }
        SessionRecord::remove_legacy(repo, dir)
    }

    fn remove_legacy(repo: &Repo, dir: &str) -> Result<()> {
        let legacy = SessionRecord::legacy_path(repo);
        if SessionRecord::read(&legacy).is_some_and(|r| r.dir == dir) {
            remove_file(&legacy)?;
        }
        Ok(())
    }
}

/// True when a process with this id exists (a signal-0 probe: permission denied still means
/// it exists). Where that cannot be asked, every recorded process counts as alive.
fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        use rustix::io::Errno;
        let Some(pid) = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        else {
            return false;
        };
        !matches!(rustix::process::test_kill_process(pid), Err(Errno::SRCH))
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// Returns `<git_dir>/aahp`, where the journal, the session record and temporary indexes live.
pub fn state_dir(repo: &Repo) -> PathBuf {
    repo.git_dir().join("aahp")
}

fn ensure_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Write {
        path: dir.display().to_string(),
        source,
    })
}

fn remove_file(path: &Path) -> Result<()> {
    if remove_file_unsynced(path)?
        && let Some(parent) = path.parent()
    {
        super::lock::sync_dir(parent);
    }
    Ok(())
}

/// [`remove_file`] without the directory's fsync; true when there was a file to remove.
fn remove_file_unsynced(path: &Path) -> Result<bool> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(source) => Err(Error::Write {
            path: path.display().to_string(),
            source,
        }),
    }
}
