//! Every command that rewrites the handoff directory goes through [`HandoffWrite`]: it
//! serialises the processes writing one handoff directory of a worktree on a short-lived OS
//! lock (`flock` on `<git_dir>/aahp/locks/<key>`, one per handoff directory, so sessions in
//! two packages never wait for each other; issue #17), then requires
//! `HANDOFF.lock` to be the calling session's (or takes it for this one write). So two
//! processes of one session never interleave a read-modify-write, and no command writes
//! while another session holds the handoff (SPEC §3.3; issue #12).

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use jiff::Timestamp;

use super::SessionClaim;
use super::journal::{Journal, dir_key, state_dir};
use super::lock::{self, HandoffLock, LockState};
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::handoff::HandoffDir;

/// How long a writer waits for another process of its session before giving up (exit 3).
/// Generous: `commit` holds the lock while the user's hooks run.
pub const WRITE_WAIT: Duration = Duration::from_mins(5);

/// An exclusive OS-level lock (`flock`) on one handoff directory of the worktree (a file under
/// `<git_dir>/aahp/locks/`), held while one process reads and rewrites it; commands that also
/// change the index, HEAD or the worktree's rotation journal (`commit`, `recover`, `init`,
/// `archive`) take the worktree's lock too (`flock` on its git directory), always after the
/// directory's, so two processes never wait for each other in a cycle. The kernel releases
/// both when the process ends, however it ends, so they can never be left stale; and they
/// create no file in the work tree, so a command that fails leaves nothing behind.
#[must_use = "the lock is released when this value is dropped"]
#[derive(Debug)]
pub struct WriteLock {
    files: Vec<File>,
}

impl WriteLock {
    /// Waits (up to [`WRITE_WAIT`]) for the write lock of the handoff directory `dir`.
    /// Refuses (exit 2) a handoff directory part of which a sparse checkout leaves out: see
    /// [`refuse_sparse_holes`].
    pub fn acquire(repo: &Repo, dir: &HandoffDir, command: &str) -> Result<WriteLock> {
        let file = Self::take(&dir_lock_path(repo, dir)?, dir, command, WRITE_WAIT)?;
        refuse_sparse_holes(repo, dir)?;
        Ok(WriteLock { files: vec![file] })
    }

    /// Waits for the write lock of `dir`, then for the worktree's: for commands that also
    /// change the index, HEAD or the rotation journal.
    pub fn acquire_with_index(repo: &Repo, dir: &HandoffDir, command: &str) -> Result<WriteLock> {
        let mut lock = Self::acquire(repo, dir, command)?;
        lock.add_worktree(repo, dir, command)?;
        Ok(lock)
    }

    /// Adds the worktree's lock to a held directory lock (see [`WriteLock::acquire_with_index`]).
    pub fn add_worktree(&mut self, repo: &Repo, dir: &HandoffDir, command: &str) -> Result<()> {
        let file = Self::take(repo.git_dir(), dir, command, WRITE_WAIT)?;
        self.files.push(file);
        Ok(())
    }

    /// Takes the write lock of `dir` only if it is free right now (`None` when another
    /// process of this worktree holds it).
    pub fn try_acquire(repo: &Repo, dir: &HandoffDir, command: &str) -> Result<Option<WriteLock>> {
        match Self::take(&dir_lock_path(repo, dir)?, dir, command, Duration::ZERO) {
            Ok(file) => Ok(Some(WriteLock { files: vec![file] })),
            Err(Error::Busy { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// True when another process holds the write lock of `dir` right now (a probe: the lock
    /// is taken and at once let go when free; a directory no writer ever locked is free).
    /// Opened without waiting for a writer: a FIFO planted in the lock's place must not hang
    /// `status` (writers open it read-write, which never waits).
    pub fn is_held(repo: &Repo, dir: &HandoffDir) -> Result<bool> {
        let path = state_dir(repo).join("locks").join(dir_key(&dir.rel));
        let file = match crate::handoff::open_nonblocking(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(source) => {
                return Err(Error::Read {
                    path: path.display().to_string(),
                    source,
                });
            }
        };
        match file.try_lock() {
            Ok(()) => Ok(false),
            Err(TryLockError::WouldBlock) => Ok(true),
            Err(TryLockError::Error(source)) => Err(Error::Read {
                path: path.display().to_string(),
                source,
            }),
        }
    }

    /// A second handle on the directory's lock, for a child process to inherit: `commit`
    /// makes it `git commit`'s standard input, so the lock stays held while that `git commit`
    /// runs, even when `git aahp commit` itself is killed (`flock` belongs to the open file,
    /// which the child shares, and ends only when its last holder closes it). Until then no
    /// `recover` and no writer can act on a commit that may still land (issue #12 item 5).
    pub fn inheritable(&self) -> std::io::Result<File> {
        self.files
            .first()
            .ok_or_else(|| std::io::Error::other("the write lock holds no file"))?
            .try_clone()
    }

    fn take(path: &Path, dir: &HandoffDir, command: &str, wait: Duration) -> Result<File> {
        let io_err = |source| Error::Read {
            path: path.display().to_string(),
            source,
        };
        let file = if path.is_dir() {
            File::open(path)
        } else {
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(path)
        }
        .map_err(io_err)?;
        let start = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(file),
                Err(TryLockError::WouldBlock) if start.elapsed() < wait => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(Error::Busy {
                        dir: dir.rel.clone(),
                        holder: format!(
                            "`{command}` waited for another git-aahp command of this worktree"
                        ),
                        waited_secs: start.elapsed().as_secs(),
                    });
                }
                Err(TryLockError::Error(source)) => return Err(io_err(source)),
            }
        }
    }
}

/// The file whose `flock` serialises the writers of one handoff directory of this worktree.
fn dir_lock_path(repo: &Repo, dir: &HandoffDir) -> Result<PathBuf> {
    let locks = state_dir(repo).join("locks");
    std::fs::create_dir_all(&locks).map_err(|source| Error::Write {
        path: locks.display().to_string(),
        source,
    })?;
    Ok(locks.join(dir_key(&dir.rel)))
}

/// Refuses a write over what a crashed writer of `dir` left: a `commit`'s journal (which
/// `recover` completes or rolls back) or, unless the caller completes it itself
/// (`archive`), a half-done rotation of LOG.md (issue #12 N8). Called where no writer of
/// `dir` runs, so every journal found is a crashed one.
fn refuse_interrupted(repo: &Repo, dir: &HandoffDir, completes_rotation: bool) -> Result<()> {
    if let Some(j) = Journal::load(repo, &dir.rel)? {
        return Err(j.interrupted_error());
    }
    if !completes_rotation && let Some(j) = super::rotation::pending_in(repo, dir)? {
        return Err(super::rotation::pending_error(&j));
    }
    Ok(())
}

/// A command's right to rewrite the handoff directory: the worktree's [`WriteLock`], and
/// `HANDOFF.lock` held by the calling session or taken for this one write.
///
/// # Crash safety
/// A `HANDOFF.lock` taken here is released by [`HandoffWrite::finish`], or on drop when the
/// command fails; a crash in between leaves it for `git aahp recover`, like any lock.
#[must_use = "the handoff stays locked until this value is finished or dropped"]
#[derive(Debug)]
pub struct HandoffWrite<'d> {
    dir: &'d HandoffDir,
    holder: Option<HandoffLock>,
    took: bool,
    taken_over: Option<String>,
    serial: WriteLock,
}

impl<'d> HandoffWrite<'d> {
    /// Takes the write lock, then checks `HANDOFF.lock`: the caller's session's lock is used
    /// as it is; a lock of another session (or one that cannot be read, or an interrupted
    /// `commit`) is exit 3 naming the holder; no lock means one is taken for this write,
    /// marked as taken by `command` for one write, announcing `updating`. A one-write lock
    /// left by a writer that crashed is taken over (see [`HandoffWrite::taken_over`]).
    ///
    /// A rotation of LOG.md an interrupted `archive` left half done is an error too (naming
    /// the command that completes it): a write over it would record the half-rotated files.
    pub fn begin(
        repo: &Repo,
        dir: &'d HandoffDir,
        claim: &SessionClaim,
        now: Timestamp,
        command: &str,
        updating: &[&str],
    ) -> Result<HandoffWrite<'d>> {
        Self::begin_inner(repo, dir, claim, now, command, updating, false)
    }

    /// [`HandoffWrite::begin`] for `archive`, which completes a half-done rotation itself.
    pub fn begin_rotation(
        repo: &Repo,
        dir: &'d HandoffDir,
        claim: &SessionClaim,
        now: Timestamp,
        command: &str,
        updating: &[&str],
    ) -> Result<HandoffWrite<'d>> {
        Self::begin_inner(repo, dir, claim, now, command, updating, true)
    }

    fn begin_inner(
        repo: &Repo,
        dir: &'d HandoffDir,
        claim: &SessionClaim,
        now: Timestamp,
        command: &str,
        updating: &[&str],
        completes_rotation: bool,
    ) -> Result<HandoffWrite<'d>> {
        let serial = WriteLock::acquire(repo, dir, command)?;
        // Under the write lock no `commit` or `archive` of this directory is running, so a
        // journal left for it is a crashed one.
        refuse_interrupted(repo, dir, completes_rotation)?;
        super::steps::refuse_linked(dir, updating, "this write would replace it by a copy")?;
        let write = match LockState::read(dir)? {
            // A lock taken for one write lives only while its taker holds the write lock, so
            // finding one now proves the taker died mid-write. It belongs to no session, and
            // its write is one a rerun completes (every file is replaced whole): this write
            // takes it over and releases it at the end. The crashed writer's files may be
            // written and its manifest not (its last write): the manifest is brought up to
            // date for them first, as `recover` does, or a write with nothing of its own to
            // do (`trust decay`, `archive`) released the lock over a half-written directory
            // (review rob36 #4). Failing, the lock stays for `recover`.
            LockState::Held(held) if held.write.is_some() => {
                complete_dead_write(repo, dir, now, &held.updating)?;
                Ok(HandoffWrite {
                    dir,
                    holder: None,
                    took: true,
                    taken_over: held.write,
                    serial,
                })
            }
            LockState::Held(held) if claim.owns(&held, repo, dir) => Ok(HandoffWrite {
                dir,
                holder: Some(held),
                took: false,
                taken_over: None,
                serial,
            }),
            state @ (LockState::Held(_) | LockState::Unreadable(_)) => {
                Err(state.locked_error(dir, now))
            }
            LockState::Absent => {
                let agent = claim.agent.clone().unwrap_or_else(|| "git-aahp".into());
                let session_id = claim
                    .session_id
                    .clone()
                    .unwrap_or_else(|| lock::new_session_id(now));
                let ttl = lock::parse_ttl(lock::DEFAULT_TTL).map_err(Error::Usage)?;
                let mut new = lock::new_lock(
                    &agent,
                    &session_id,
                    now,
                    ttl,
                    repo.head_commit()?.map(|c| c.to_string()),
                    updating.iter().map(|s| (*s).to_string()).collect(),
                    None,
                )?;
                new.write = Some(command.to_string());
                if !lock::acquire(dir, &new)? {
                    return Err(LockState::read(dir)?.locked_error(dir, now));
                }
                Ok(HandoffWrite {
                    dir,
                    holder: None,
                    took: true,
                    taken_over: None,
                    serial,
                })
            }
        }?;
        // Temporary files of a process killed mid-write (a `.aahp-tmp-*` its rename never
        // consumed): no writer of this worktree is running now, so they are debris, and a
        // rerun clears them as `recover` would. A rotation's staged files stay for its
        // journal; `begin`, which writes its lock without the write lock, survives losing
        // its temporary file (it then creates the lock directly).
        super::remove_temp_files(repo, dir);
        Ok(write)
    }

    /// Checks, taking nothing, that `HANDOFF.lock` would let the caller write now: absent, or
    /// its own session's, with no interrupted `commit` or rotation of the directory left.
    /// Lets a command refuse (exit 3) before slow work such as running a verification
    /// command; [`HandoffWrite::begin`] checks again before the write.
    pub fn precheck(
        repo: &Repo,
        dir: &HandoffDir,
        claim: &SessionClaim,
        now: Timestamp,
    ) -> Result<()> {
        // Journals left while no writer of the directory runs are interrupted ones (a
        // running `commit` or `archive` holds the write lock and has its journal).
        if !WriteLock::is_held(repo, dir)? {
            refuse_interrupted(repo, dir, false)?;
        }
        match LockState::read(dir)? {
            LockState::Absent => Ok(()),
            LockState::Held(held) if claim.owns(&held, repo, dir) => Ok(()),
            // A lock taken for one write: its writer is running (the write waits for it) or
            // died mid-write (the write takes it over, see [`HandoffWrite::begin`]); neither
            // is another session's. Refused here, a rerun of the crashed `trust verify` was
            // exit 3 while every other writer took the lock over (review rob36 #5).
            LockState::Held(held) if held.write.is_some() => Ok(()),
            state => Err(state.locked_error(dir, now)),
        }
    }

    /// Also takes the worktree's write lock (see [`WriteLock::acquire_with_index`]), for a
    /// write that uses the worktree's rotation journal or index.
    pub fn lock_worktree(&mut self, repo: &Repo, command: &str) -> Result<()> {
        self.serial.add_worktree(repo, self.dir, command)
    }

    /// The session's lock when the caller's session holds it (`None` when taken here).
    pub fn holder(&self) -> Option<&HandoffLock> {
        self.holder.as_ref()
    }

    /// True when `HANDOFF.lock` was taken for this write (no session held it).
    pub fn took_lock(&self) -> bool {
        self.took
    }

    /// The command whose crash left the one-write lock this write took over, if it did.
    pub fn taken_over(&self) -> Option<&str> {
        self.taken_over.as_deref()
    }

    /// Ends the write: releases a `HANDOFF.lock` taken for it, then the write lock.
    pub fn finish(mut self) -> Result<()> {
        if self.took {
            self.took = false;
            lock::release(self.dir)?;
        }
        Ok(())
    }
}

impl Drop for HandoffWrite<'_> {
    fn drop(&mut self) {
        if self.took {
            let _ = lock::release(self.dir);
        }
    }
}

/// Regenerates MANIFEST.json when one of `updating` (the files a crashed one-write command
/// named in its lock) is among its stale entries: that command wrote them and died before
/// the manifest. Other stale files are left for the user: they are not the crashed
/// command's. Returns whether the manifest was written.
pub fn complete_dead_write(
    repo: &Repo,
    dir: &HandoffDir,
    now: Timestamp,
    updating: &[String],
) -> Result<bool> {
    use crate::handoff::{MANIFEST, Source, manifest::Manifest};
    let names: Vec<&str> = updating
        .iter()
        .map(String::as_str)
        .filter(|n| *n != MANIFEST)
        .collect();
    if names.is_empty() {
        return Ok(false);
    }
    let old = Manifest::from_snapshot(dir, &dir.snapshot(repo, Source::Worktree)?)?;
    super::steps::refresh_manifest(repo, dir, now, old.as_ref(), Some(&names))
}

/// Every writer reads the handoff directory from the working tree. A file a sparse checkout
/// leaves out (LOG-ARCHIVE.md, say) is tracked but absent there, so a writer would take it
/// for deleted: `archive` started a new archive without the archived entries, `manifest`
/// dropped it from the index of files (review rob35 #2). Refused instead, naming the file,
/// before anything is read. The skip-worktree bit is set by hand or by other tools too
/// (`git update-index --skip-worktree`, virtual file systems) with `core.sparseCheckout`
/// off, and `archive` then started a new archive all the same (review rob36 #8): looked
/// for whenever the index's format can hold the bit, so the writers of an ordinary checkout
/// (a version 2 index) read only its header.
fn refuse_sparse_holes(repo: &Repo, dir: &HandoffDir) -> Result<()> {
    if repo.config_bool("core.sparseCheckout") != Ok(Some(true)) && !repo.index_may_skip_worktree()
    {
        return Ok(());
    }
    let index = repo.index()?;
    let Some(path) = repo.index_skipped_below(&index, &dir.rel) else {
        return Ok(());
    };
    let how = if repo.config_bool("core.sparseCheckout") == Ok(Some(true)) {
        format!(
            "bring the handoff directory into the checkout with `git sparse-checkout add {}`",
            crate::output::shell_word(&dir.rel)
        )
    } else {
        let p = crate::output::shell_word(&path);
        format!(
            "clear its skip-worktree bit and check it out (`git update-index \
             --no-skip-worktree {p} && git checkout -- {p}`)"
        )
    };
    Err(Error::invalid(
        &path,
        None,
        format!(
            "is tracked but outside the sparse checkout (skip-worktree), so the working tree \
             does not hold it and a write would take it for deleted; nothing was changed: \
             {how} and retry"
        ),
    ))
}
