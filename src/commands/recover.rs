//! `git aahp recover`: after a crashed session, decide from the journal, the lock, HEAD and the
//! working tree which step was reached, then finish the session (its commit exists) or roll
//! the handoff directory back to the last clean handoff, HEAD's — saving the session's files first
//! under `refs/aahp/recovered/<session>` (SPEC §3.8, §4).
//!
//! # Crash safety
//! Before it changes a file, a rollback records the saved commit in the journal, so an
//! interrupted `recover` run again saves nothing twice and finishes the same plan. The lock is
//! removed after the files are consistent and the journal last. Nothing is decided while the
//! `git commit` of a killed `git aahp commit` still runs (it holds the directory's write lock
//! until it ends): it may still create the session's commit.

use std::fmt::Write as _;
use std::io::{self, Write};

use gix::ObjectId;
use serde::Serialize;

use super::Context;
use crate::clock;
use crate::error::{Error, Result};
use crate::failpoint;
use crate::git::{IndexLock, Repo};
use crate::handoff::checksum_cache::BlobCache;
use crate::handoff::manifest::{FileState, Manifest, SessionInfo};
use crate::handoff::{HandoffDir, LOCK, MANIFEST, Source};
use crate::output::{Report, Style, boundary, escape_untrusted};
use crate::transaction::journal::{Journal, SessionRecord, Step};
use crate::transaction::lock::{self, LockState};
use crate::transaction::writer::{HandoffWrite, WriteLock};
use crate::transaction::{self, SessionClaim};

/// Finish or roll back a crashed session, losing nothing.
///
/// When the session's commit exists, the lock is released and the commit tagged. Otherwise
/// the session's files are saved as a commit under refs/aahp/recovered/SESSION, the handoff
/// directory is restored to the last clean handoff, the session's changed claims are marked
/// untested and a recovery entry is added to LOG.md.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RecoverArgs {
    /// Print the plan and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Recover even when the lock belongs to another session that has not expired (its
    /// files are saved first, as always).
    #[arg(long)]
    pub force: bool,
    /// The session id, to recognise the lock as yours.
    #[arg(long, env = "AAHP_SESSION_ID")]
    pub session_id: Option<String>,
    /// Also clear this handoff directory's lease on the git remote NAME when it is past its
    /// expiry (a live one only with --force).
    #[arg(long, value_name = "NAME")]
    pub remote: Option<String>,
}

/// What `recover` decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// No lock, no journal: nothing was interrupted.
    Nothing,
    /// A lock without changes (a killed `begin`): removed.
    ReleaseLock,
    /// The session's commit exists: lock released, commit tagged.
    Finish,
    /// The session's commit does not exist: files saved, directory rolled back.
    RollBack,
}

/// The result of `git aahp recover`.
#[derive(Debug, Serialize)]
pub struct RecoverReport {
    /// What was (or, with `--dry-run`, would be) done.
    pub action: Action,
    /// True when nothing was written.
    pub dry_run: bool,
    /// The interrupted session.
    pub session_id: Option<String>,
    /// Its agent.
    pub agent: Option<String>,
    /// The journal step the session had reached.
    pub step: Option<Step>,
    /// The session's commit (finish).
    pub commit: Option<String>,
    /// The tag created (finish).
    pub tag: Option<String>,
    /// The ref holding the session's saved files (roll back).
    pub saved_ref: Option<String>,
    /// The saved commit.
    pub saved_commit: Option<String>,
    /// The clean handoff the directory was restored to.
    pub restored_to: Option<String>,
    /// Handoff files rewritten or removed by the restore.
    pub restored_files: Vec<String>,
    /// Claims marked untested.
    pub marked_unknown: Vec<String>,
    /// Whether a recovery entry was added to LOG.md.
    pub log_entry: bool,
    /// Temporary files left by the crash and deleted.
    pub removed_temp_files: Vec<String>,
    /// Files an interrupted `git aahp archive` had left staged, put in place (or, with
    /// `--dry-run`, the rotation that would be completed).
    pub completed_rotation: Vec<String>,
    /// The steps, in words.
    pub plan: Vec<String>,
    /// Where MANIFEST.json holds merge conflict markers (`path:line`): not an interrupted
    /// session, and `git aahp manifest` rebuilds it.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "boundary::opt_line"
    )]
    pub conflicted_manifest: Option<String>,
}

impl RecoverReport {
    /// Names the interrupted session, its fields vetted: they come from `HANDOFF.lock` or
    /// the journal, which anyone can edit, and whoever runs `recover` reads them (review
    /// atk45 #1).
    fn name_session(&mut self, dir: &HandoffDir, session_id: &str, agent: &str) -> Result<()> {
        self.session_id = Some(boundary::vetted_line(dir, session_id, "a session id")?);
        self.agent = Some(boundary::vetted_line(dir, agent, "an agent name")?);
        Ok(())
    }
}

impl Report for RecoverReport {
    fn command(&self) -> &'static str {
        "recover"
    }

    fn write_human(&self, w: &mut dyn Write, style: &Style) -> io::Result<()> {
        let head = match (self.action, self.dry_run) {
            (Action::Nothing, _) | (Action::ReleaseLock, false)
                if !self.completed_rotation.is_empty() =>
            {
                "completed an interrupted `git aahp archive`:"
            }
            (Action::Nothing, _) => "nothing to recover: no lock and no interrupted commit",
            (_, true) => "recover would:",
            (Action::ReleaseLock, false) => "released a lock left behind:",
            (Action::Finish, false) => "finished the interrupted session:",
            (Action::RollBack, false) => "rolled back the interrupted session:",
        };
        writeln!(w, "{}", style.bold(head))?;
        for step in &self.plan {
            writeln!(w, "  - {}", escape_untrusted(step))?;
        }
        if let Some(at) = &self.conflicted_manifest {
            writeln!(
                w,
                "{}: {} holds merge conflict markers (left by a merge, rebase or `git checkout -m`)",
                style.warn("warning"),
                escape_untrusted(at)
            )?;
            writeln!(
                w,
                "hint: run `git aahp manifest` to rebuild it from both sides, then `git add` it"
            )?;
        }
        if let Some(r) = &self.saved_ref {
            writeln!(
                w,
                "saved: {r}{}",
                if self.dry_run { " (would be)" } else { "" }
            )?;
        }
        Ok(())
    }
}

/// What the journal and the lock say about the interrupted session.
struct Interrupted {
    session_id: String,
    agent: String,
    started: String,
}

/// Runs `git aahp recover`: the local recovery, then the remote lease — the one the lock
/// recorded is released while it still holds the session's value, and with `--remote` a
/// stale lease of the directory is cleared (issue #17).
pub fn run(ctx: &Context, args: &RecoverArgs) -> Result<RecoverReport> {
    let repo = ctx.repo()?;
    let dir = target_dir(ctx, repo)?;
    boundary::admit(&dir, "--remote", args.remote.as_deref())?;
    let recorded = match LockState::read(&dir) {
        Ok(LockState::Held(l)) => l.remote,
        _ => None,
    };
    let mut report = run_local(ctx, args)?;
    if report.action == Action::RollBack && !report.dry_run {
        rotate_after_roll_back(ctx, &dir, &mut report);
    }
    if let Ok(bytes) = crate::handoff::read_limited(&dir.abs.join(MANIFEST), &dir.path_of(MANIFEST))
        && let Err(Error::Conflicted { path, line }) =
            Manifest::parse(&dir.path_of(MANIFEST), &bytes)
    {
        report.conflicted_manifest = Some(format!("{path}:{line}"));
    }
    if let Some(l) = recorded
        && report.action != Action::Nothing
    {
        if args.dry_run {
            report
                .plan
                .push(format!("release the lease {} on `{}`", l.refname, l.remote));
        } else if !LockState::read(&dir)?.is_present() {
            let done = crate::transaction::lease::release(repo, &l)?;
            report.plan.push(if done {
                format!("released the lease {} on `{}`", l.refname, l.remote)
            } else {
                format!(
                    "left the lease {} on `{}`: it no longer held this session's value",
                    l.refname, l.remote
                )
            });
        }
    }
    if let Some(remote) = &args.remote {
        if args.dry_run {
            report.plan.push(format!(
                "clear the lease of {} on `{remote}` if it is past its expiry, and record it in LOG.md",
                dir.rel
            ));
        } else {
            clear_remote_lease(ctx, args, &dir, remote, &mut report)?;
        }
    }
    Ok(report)
}

/// `recover --remote`: clears the directory's stale lease on `remote` (a live one with
/// `--force`) and records it in LOG.md (issue #17), as `commit` records a lease `begin
/// --steal` took over: the next agent learns that a session's work may be unfinished. The
/// right to write the handoff is taken before the remote is touched, so a lease is never
/// cleared without its entry for want of it.
fn clear_remote_lease(
    ctx: &Context,
    args: &RecoverArgs,
    dir: &HandoffDir,
    remote: &str,
    report: &mut RecoverReport,
) -> Result<()> {
    let repo = ctx.repo()?;
    let claim = SessionClaim {
        session_id: args.session_id.clone(),
        agent: None,
    };
    let write = if dir.exists() {
        Some(HandoffWrite::begin(
            repo,
            dir,
            &claim,
            ctx.now,
            "git aahp recover --remote",
            &[crate::handoff::log::LOG_FILE, MANIFEST],
        )?)
    } else {
        None
    };
    let old = Manifest::from_snapshot(dir, &dir.snapshot(repo, Source::Worktree)?)
        .ok()
        .flatten();
    // The session HEAD's handoff records as committed: a lease of it is one its `commit`
    // could not release (the remote refused or could not be reached), not a session that
    // never finished.
    let finished = finished_session(repo, dir)?;
    let Some(h) = crate::transaction::lease::clear_stale(
        repo,
        remote,
        dir,
        args.force,
        finished.as_ref(),
        ctx.now,
    )?
    else {
        return write.map_or(Ok(()), HandoffWrite::finish);
    };
    // The agent reading this plan (an MCP client) sees the holder as LOG.md records it.
    report.plan.push(format!(
        "cleared the lease of {} on `{remote}`",
        crate::transaction::lease::describe_holder_vetted(dir, &h)?
    ));
    if finished.as_ref().is_some_and(|f| f.leased(&h)) {
        report.plan.push(
            "its session is committed (HEAD's MANIFEST.json names it): nothing to record".into(),
        );
        return write.map_or(Ok(()), HandoffWrite::finish);
    }
    if let Some(write) = write {
        let stale = h.is_stale(ctx.now);
        // Whoever can push the lease ref wrote its fields: each is vetted before it goes
        // into LOG.md (review s23 #8), as in the plan above.
        let field = |text: &str, what: &str| boundary::vetted_line(dir, text, what);
        let entry = format!(
            "## [{}] git-aahp: Cleared a remote lease\n\n`git aahp recover --remote {}` removed the lease of this handoff directory on `{}`, held by {} (session {}, host {}), which {} {}. That session never released it; its work may be unfinished or lost.\n",
            clock::utc_date(ctx.now),
            boundary::clean_line(remote),
            boundary::clean_line(remote),
            field(&h.agent, "an agent name")?,
            field(&h.session_id, "a session id")?,
            field(&h.host, "a host name")?,
            if stale {
                "expired"
            } else {
                "had not expired (`--force`); it was to expire"
            },
            field(&h.expires, "a time")?,
        );
        crate::transaction::steps::append_log(dir, &entry, &|name, bytes| {
            crate::transaction::steps::write_file(dir, name, bytes)
        })?;
        super::archive::refresh_manifest(
            ctx,
            dir,
            old.as_ref(),
            Some(&[crate::handoff::log::LOG_FILE]),
        )?;
        report.log_entry = true;
        report.plan.push("recorded it in LOG.md".into());
        write.finish()?;
    }
    Ok(())
}

/// The session HEAD's committed MANIFEST.json records as the last one (`last_session`'s
/// id and time), if any.
fn finished_session(
    repo: &crate::git::Repo,
    dir: &HandoffDir,
) -> Result<Option<crate::transaction::lease::Finished>> {
    let Some(head) = repo.head_commit()? else {
        return Ok(None);
    };
    let path = dir.path_of(MANIFEST);
    let Some(bytes) = repo.blob_at(head, &path)? else {
        return Ok(None);
    };
    let Ok(m) = Manifest::parse_read_only(&path, &bytes) else {
        return Ok(None);
    };
    Ok(
        match (m.session_field("session_id"), m.session_field("timestamp")) {
            (Some(id), Some(at)) if !id.is_empty() => Some(crate::transaction::lease::Finished {
                session_id: id.to_string(),
                at: at.to_string(),
            }),
            _ => None,
        },
    )
}

fn run_local(ctx: &Context, args: &RecoverArgs) -> Result<RecoverReport> {
    let repo = ctx.repo()?;
    let dir = target_dir(ctx, repo)?;
    let journal = Journal::load(repo, &dir.rel)?;
    // A name no command can stage or restore (not UTF-8, control characters) stops recover
    // before it writes anything, naming the file to move away: never a half-done rollback.
    if dir.exists() {
        dir.check_names()?;
    }
    // The `git commit` of a killed `git aahp commit` may still be running, and may still
    // create the session's commit: finishing or rolling back now could undo committed work
    // (issue #12 item 5). It holds the write lock taken below until it ends, so waiting for
    // that lock is what makes this safe; a `git commit` known by its pid is named at once
    // (exit 3) rather than waited for, since its hooks may run for minutes. `--force` is about
    // the lock of a live session and changes nothing here.
    if let Some(j) = &journal
        && let Some(pid) = j.commit_running(repo, &dir)?
    {
        return Err(Error::CommitRunning {
            session_id: j.session_id.clone(),
            pid,
        });
    }
    // A dry run writes nothing; a recovery waits for any writer of this directory to finish,
    // and then reads the journal again: a `commit` that was running has finished by now.
    let _serial = if args.dry_run {
        None
    } else {
        Some(WriteLock::acquire_with_index(
            repo,
            &dir,
            "git aahp recover",
        )?)
    };
    let journal = if args.dry_run {
        journal
    } else {
        Journal::load(repo, &dir.rel)?
    };
    let lock_state = LockState::read(&dir)?;
    let mut report = RecoverReport {
        action: Action::Nothing,
        dry_run: args.dry_run,
        session_id: None,
        agent: None,
        step: journal.as_ref().map(|j| j.step),
        commit: None,
        tag: None,
        saved_ref: None,
        saved_commit: None,
        restored_to: None,
        restored_files: Vec::new(),
        marked_unknown: Vec::new(),
        log_entry: false,
        removed_temp_files: Vec::new(),
        completed_rotation: Vec::new(),
        plan: Vec::new(),
        conflicted_manifest: None,
    };
    // A live lock is not recover's to undo without --force: another session's is exit 3
    // naming its holder; the caller's own session is not interrupted either (issue #17, D9):
    // it is finished by `commit`, and rolled back only when asked. A journal of the lock's
    // session, found under the write lock, proves its commit crashed: that is recovered.
    // Checked before anything is written, the rotation below included (a one-write lock,
    // whose taker died, is taken over further down).
    if let LockState::Held(held) = &lock_state
        && (held.write.is_none() || journal.is_some())
        && !held.is_stale(ctx.now)
        && !args.force
        && journal
            .as_ref()
            .is_none_or(|j| j.session_id != held.session_id)
    {
        let claim = SessionClaim {
            session_id: args.session_id.clone(),
            agent: None,
        };
        if claim.owns(held, repo, &dir) {
            return Err(Error::LiveSession(Box::new(
                held.shown(&dir)?.holder(ctx.now),
            )));
        }
        return Err(held.shown(&dir)?.locked_error(ctx.now));
    }

    complete_rotation(ctx, repo, &dir, args.dry_run, &mut report)?;

    // A lock taken for one write (no session) outlives its taker only when the taker died:
    // that writer held the write lock recover holds now. It belongs to no session and its
    // write is complete (the rotation just above) or was a single rename, so the lock is
    // removed and nothing is rolled back.
    if journal.is_none()
        && let LockState::Held(held) = &lock_state
        && let Some(command) = &held.write
    {
        report.action = Action::ReleaseLock;
        report.name_session(&dir, &held.session_id, &held.agent)?;
        report.plan.push(format!(
            "remove {} left by a crashed `{command}` (it belongs to no session)",
            dir.path_of(LOCK)
        ));
        if !args.dry_run {
            // The writer died after its files and before the manifest (its last write):
            // the manifest is brought up to date for the files it was writing, as a rerun
            // of the command would.
            refresh_for_dead_writer(ctx, repo, &dir, &held.updating, &mut report)?;
            lock::release(&dir)?;
            report
                .removed_temp_files
                .extend(transaction::remove_temp_files(repo, &dir));
        }
        return Ok(report);
    }

    let who = match (&journal, &lock_state) {
        (Some(j), _) => Some(Interrupted {
            session_id: j.session_id.clone(),
            agent: j.agent.clone(),
            started: j.started.clone(),
        }),
        (None, LockState::Held(l)) => Some(Interrupted {
            session_id: l.session_id.clone(),
            agent: l.agent.clone(),
            started: l.started.clone(),
        }),
        (None, LockState::Unreadable(_)) => Some(Interrupted {
            session_id: "unknown".into(),
            agent: "unknown".into(),
            started: "an unknown time".into(),
        }),
        (None, LockState::Absent) => None,
    };
    let Some(who) = who else {
        if !args.dry_run {
            report
                .removed_temp_files
                .extend(transaction::remove_temp_files(repo, &dir));
        }
        return Ok(report);
    };
    report.name_session(&dir, &who.session_id, &who.agent)?;
    let head = repo.head_commit()?;

    // Which step was reached?
    if let Some(j) = &journal
        && let Some(commit) = j.session_commit(repo, head)?
    {
        clear_index_lock(repo, args.dry_run, &mut report)?;
        report.action = Action::Finish;
        report.commit = Some(commit.to_string());
        return finish(repo, &dir, j, commit, &lock_state, report);
    }
    if journal.is_none() && !has_changes(repo, &dir, head)? {
        report.action = Action::ReleaseLock;
        report.plan.push(format!(
            "remove {} of session {} (no handoff file changed)",
            dir.path_of(LOCK),
            who.session_id
        ));
        if !args.dry_run {
            lock::release(&dir)?;
            forget_session(repo, &dir, &who.session_id)?;
            report
                .removed_temp_files
                .extend(transaction::remove_temp_files(repo, &dir));
        }
        return Ok(report);
    }
    // A rollback restores HEAD's handoff files over the index and the working tree: in the
    // middle of a merge (or rebase, cherry-pick, revert) that drops what the operation
    // brought in, merged or conflicted, and the `git commit` that concludes it then records
    // the other side as merged without its handoff changes (review atk46 #3). Refused
    // before anything is written, naming how to finish first.
    if let Some(op) = repo.operation_in_progress() {
        return Err(Error::invalid(
            dir.rel.clone(),
            None,
            format!(
                "a `git {op}` is in progress: rolling the session back now would restore \
                 HEAD's handoff files over what the {op} brought in, and concluding it would \
                 record them as merged without those changes; nothing was recovered. Finish \
                 the {op} first (resolve the conflicts, `git add` them and `git {finish}`), or \
                 abort it (`git {op} --abort`), then run `git aahp recover` again",
                finish = if op == "merge" {
                    "commit".to_string()
                } else {
                    format!("{op} --continue")
                }
            ),
        ));
    }
    clear_index_lock(repo, args.dry_run, &mut report)?;
    report.action = Action::RollBack;
    roll_back(ctx, repo, &dir, journal, &who, head, report)
}

/// Before a recovery that stages or restores the index: the interrupted command may have
/// died writing the index in process, leaving git's `index.lock` behind, and no git command
/// could stage or commit until it is removed. A stale lock is removed and the plan says so;
/// one a running git may hold stops the recovery before anything is changed, naming that
/// git (exit 2): rolled back halfway, the session would be left neither recovered nor live.
fn clear_index_lock(repo: &Repo, dry_run: bool, report: &mut RecoverReport) -> Result<()> {
    if dry_run {
        return Ok(());
    }
    match repo.remove_stale_index_lock()? {
        IndexLock::Absent => Ok(()),
        IndexLock::Removed(stale) => {
            let stale = stale.display().to_string();
            report.plan.push(format!(
                "removed {stale}, left by the interrupted command (no process had it open)"
            ));
            report.removed_temp_files.push(stale);
            Ok(())
        }
        IndexLock::InUse { path, by } => Err(Error::invalid(
            path.display().to_string(),
            None,
            format!(
                "git's index lock is in use ({by}); nothing was recovered: rerun \
                 `git aahp recover` once that git has ended (remove the lock yourself only \
                 when no git is running)"
            ),
        )),
    }
}

/// The handoff directory to recover: `--dir` (or the one around the current directory) when
/// given; else, when exactly one handoff directory of this worktree has an interrupted
/// commit, that one (its journal names it); else the located one. Interrupted commits in
/// several directories and none chosen is exit 2, listing them.
fn target_dir(ctx: &Context, repo: &Repo) -> Result<HandoffDir> {
    let here = ctx.handoff();
    if ctx.dir_given() {
        return here;
    }
    let journals = Journal::load_all(repo)?;
    if let Ok(d) = &here
        && journals.iter().any(|j| j.dir == d.rel)
    {
        return here;
    }
    match journals.as_slice() {
        [] => here,
        [only] => HandoffDir::locate(repo, repo.workdir(), Some(std::path::Path::new(&only.dir))),
        several => Err(Error::Usage(format!(
            "`git aahp commit` was interrupted in several handoff directories ({}); pass --dir to recover one",
            several
                .iter()
                .map(|j| escape_untrusted(&j.dir))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Completes a rotation an interrupted `git aahp archive` left half done (before anything
/// else: a rollback must not save or restore half-rotated files), then refreshes the manifest
/// for it.
fn complete_rotation(
    ctx: &Context,
    repo: &Repo,
    dir: &HandoffDir,
    dry_run: bool,
    report: &mut RecoverReport,
) -> Result<()> {
    use crate::transaction::rotation;
    if dry_run {
        if let Some(j) = rotation::pending_in(repo, dir)? {
            report.plan.push(format!(
                "complete the interrupted `git aahp archive` in {}",
                j.dir
            ));
            report.completed_rotation = j.files.into_iter().map(|f| f.name).collect();
        }
        return Ok(());
    }
    let Some(files) = rotation::complete(repo, dir)? else {
        // Staged files of a run killed before its journal: nothing of it was decided.
        rotation::remove_stale_staging(dir);
        return Ok(());
    };
    report.plan.push(format!(
        "completed the interrupted `git aahp archive` in {}",
        dir.rel
    ));
    report.completed_rotation = files.iter().map(|n| dir.path_of(n)).collect();
    let names = [
        crate::handoff::log::LOG_FILE,
        crate::handoff::log::ARCHIVE_FILE,
        crate::handoff::log::INDEX_FILE,
    ];
    refresh_manifest_for(ctx, repo, dir, &names, report)
}

/// Brings the manifest up to date for the files a crashed one-write command was writing
/// ([`crate::transaction::writer::complete_dead_write`], which a writer taking the lock over
/// runs too), noting it in the report.
fn refresh_for_dead_writer(
    ctx: &Context,
    repo: &Repo,
    dir: &HandoffDir,
    updating: &[String],
    report: &mut RecoverReport,
) -> Result<()> {
    if crate::transaction::writer::complete_dead_write(repo, dir, ctx.now, updating)? {
        report
            .plan
            .push(format!("refreshed {}", dir.path_of(MANIFEST)));
    }
    Ok(())
}

/// Regenerates MANIFEST.json when one of `names` is among its stale entries, noting it in
/// the report.
fn refresh_manifest_for(
    ctx: &Context,
    repo: &Repo,
    dir: &HandoffDir,
    names: &[&str],
    report: &mut RecoverReport,
) -> Result<()> {
    let snap = dir.snapshot(repo, Source::Worktree)?;
    let old = Manifest::from_snapshot(dir, &snap)?;
    if super::archive::refresh_manifest(ctx, dir, old.as_ref(), Some(names))? {
        report
            .plan
            .push(format!("refreshed {}", dir.path_of(MANIFEST)));
    }
    Ok(())
}

/// Finishes a session whose commit exists: release the lock, tag, drop the journal.
fn finish(
    repo: &Repo,
    dir: &HandoffDir,
    j: &Journal,
    commit: ObjectId,
    lock_state: &LockState,
    mut report: RecoverReport,
) -> Result<RecoverReport> {
    let short = Repo::short(commit);
    if lock_state.is_present() {
        report.plan.push(format!("release {}", dir.path_of(LOCK)));
    }
    let existing = transaction::tag_on(repo, commit)?;
    let verifies = manifest_verifies(repo, dir, commit);
    let want_tag = !j.no_tag && existing.is_none() && verifies;
    // Under a remote lease the number is taken above the remote's tags, as `commit` does.
    let lease = match lock_state {
        LockState::Held(l) => l.remote.clone(),
        _ => None,
    };
    let (floor, floor_warnings) = if want_tag && !report.dry_run {
        super::commit::tag_floor(repo, lease.as_ref(), false)
    } else {
        (0, Vec::new())
    };
    report
        .plan
        .extend(floor_warnings.into_iter().map(|w| format!("warning: {w}")));
    if want_tag {
        report.plan.push(format!(
            "tag {short} as {}",
            transaction::next_tag_name_above(repo, floor)?
        ));
    } else if let Some(t) = &existing {
        report.plan.push(format!("{short} is already tagged {t}"));
    } else if !j.no_tag {
        report.plan.push(format!(
            "leave {short} untagged: its manifest does not verify"
        ));
    }
    report.plan.push("remove the commit journal".into());
    report.tag = existing;
    if report.dry_run {
        return Ok(report);
    }
    lock::release(dir)?;
    forget_session(repo, dir, &j.session_id)?;
    failpoint::hit("recover:released");
    if want_tag {
        match super::commit::tag_commit(repo, dir, commit, &j.session_id, &j.agent, floor) {
            Ok(t) => report.tag = Some(t),
            Err(e) => report.plan.push(format!(
                "warning: the session tag could not be created: {e}"
            )),
        }
    }
    report
        .removed_temp_files
        .extend(transaction::remove_temp_files(repo, dir));
    Journal::remove(repo, &dir.rel)?;
    Ok(report)
}

/// Rolls an interrupted session back to the last clean handoff, saving its files first.
fn roll_back(
    ctx: &Context,
    repo: &Repo,
    dir: &HandoffDir,
    journal: Option<Journal>,
    who: &Interrupted,
    head: Option<ObjectId>,
    mut report: RecoverReport,
) -> Result<RecoverReport> {
    // The last clean handoff is HEAD's: handoff content committed after the last session tag
    // (a log entry committed with plain `git commit`, say) is committed work and is never
    // rolled back (issue #12); the manifest is regenerated after the restore.
    let target = head;
    let target_text = target.map_or_else(
        || "the working tree as it is (the branch has no commit)".to_string(),
        |t| format!("commit {}", Repo::short(t)),
    );
    report.restored_to = target.map(|t| t.to_string());
    let saved_known = journal
        .as_ref()
        .and_then(|j| ObjectId::from_hex(j.saved_commit.as_bytes()).ok());
    report
        .plan
        .extend(rollback_plan(dir, &who.session_id, &target_text));
    if report.dry_run {
        if let Some(s) = saved_known {
            report.saved_ref = Some(transaction::recovered_ref(repo, &who.session_id, s)?.0);
            report.saved_commit = Some(s.to_string());
        }
        return Ok(report);
    }

    // 1. Save the session's files, and note the copy in the journal before changing anything.
    let saved = match saved_known {
        Some(s) => s,
        None => transaction::save_worktree(
            repo,
            dir,
            head,
            &format!(
                "aahp: files of interrupted session {} ({}, started {})",
                // Lock fields may hold anything a hand could plant (a NUL byte git refuses
                // in a message, a control sequence): through the boundary like any output.
                boundary::clean_line(&who.session_id),
                boundary::clean_line(&who.agent),
                boundary::clean_line(&who.started)
            ),
        )?,
    };
    let mut j = journal.unwrap_or_else(|| Journal {
        version: 1,
        session_id: who.session_id.clone(),
        agent: who.agent.clone(),
        dir: dir.rel.clone(),
        started: who.started.clone(),
        base_commit: head.map(|h| h.to_string()),
        saved_commit: saved.to_string(),
        index_before: Vec::new(),
        took_lock: false,
        message: String::new(),
        no_tag: true,
        step: Step::RollingBack,
        planned_tree: None,
        commit: None,
        git_pid: None,
    });
    if j.step != Step::RollingBack {
        j.step = Step::RollingBack;
    }
    j.save(repo)?;
    let (ref_name, exists) = transaction::recovered_ref(repo, &who.session_id, saved)?;
    if !exists {
        repo.create_ref(
            &ref_name,
            saved,
            &format!(
                "git aahp recover: session {}",
                boundary::clean_line(&who.session_id)
            ),
        )?;
    }
    report.saved_ref = Some(ref_name.clone());
    report.saved_commit = Some(saved.to_string());
    failpoint::hit("recover:saved");

    // 2. Restore the directory and its index entries.
    if let Some(t) = target {
        report.restored_files = transaction::restore_dir(repo, dir, t)?;
    }
    let mut paths: Vec<String> = repo
        .index_modes(&dir.rel)?
        .into_iter()
        .map(|(_, _, p)| p)
        .collect();
    paths.extend(
        transaction::commit_files(repo, head, dir)?
            .iter()
            .map(|n| dir.path_of(n)),
    );
    paths.sort();
    paths.dedup();
    repo.unstage(&paths)?;
    failpoint::hit("recover:restored");

    // 3. Claims, log, manifest.
    let entry = RecoveryNote {
        who,
        ref_name: &ref_name,
        saved,
        target: &target_text,
    };
    report.marked_unknown = rewrite_after_restore(ctx, repo, dir, head, &entry)?;
    report.log_entry = true;
    failpoint::hit("recover:written");

    // 4. Done: the lock, then the journal.
    lock::release(dir)?;
    forget_session(repo, dir, &who.session_id)?;
    report
        .removed_temp_files
        .extend(transaction::remove_temp_files(repo, dir));
    Journal::remove(repo, &dir.rel)?;
    Ok(report)
}

/// After a roll-back of `dir` (the journal's directory, not necessarily the one the working
/// directory locates), once the write lock is released (`archive` takes it itself): the
/// recovery entry can take LOG.md past the entries it keeps, so it is rotated as
/// `git aahp archive` rotates it, under that command's own journal. The roll-back is
/// complete whatever happens here; a rotation that cannot run is reported, and the next
/// `archive` or session commit rotates.
fn rotate_after_roll_back(ctx: &Context, dir: &HandoffDir, report: &mut RecoverReport) {
    let not_rotated =
        |why: String| format!("warning: LOG.md was not rotated ({why}); run `git aahp archive`");
    match super::archive::run_in(ctx, dir, &super::archive::ArchiveArgs::default()) {
        Ok(a) if !a.moved.is_empty() => report.plan.push(format!(
            "rotate {} out of LOG.md into {}",
            super::archive::entries(a.moved.len()),
            a.archive
        )),
        Ok(a) if !a.problems.is_empty() => report.plan.push(not_rotated(format!(
            "{} problem(s) in the archive",
            a.problems.len()
        ))),
        Ok(_) => {}
        Err(e) => report
            .plan
            .push(not_rotated(boundary::clean_line(&e.to_string()))),
    }
}

/// What the recovery entry in LOG.md says.
struct RecoveryNote<'a> {
    who: &'a Interrupted,
    ref_name: &'a str,
    saved: ObjectId,
    target: &'a str,
}

/// After the restore: mark the session's changed claims untested, add the recovery entry to
/// LOG.md, regenerate the manifest. Returns the claims marked.
fn rewrite_after_restore(
    ctx: &Context,
    repo: &Repo,
    dir: &HandoffDir,
    head: Option<ObjectId>,
    note: &RecoveryNote<'_>,
) -> Result<Vec<String>> {
    let today = clock::utc_date(ctx.now);
    // Only the session's TRUST.md is read: not the archive pair (never loaded whole, issue
    // #12 item 2), nor a name the saved copy took from HEAD that no command can write.
    let session_snap =
        dir.snapshot_commit_only(repo, note.saved, &[crate::transaction::steps::TRUST_FILE])?;
    let write = |name: &str, bytes: &[u8]| crate::transaction::steps::write_file(dir, name, bytes);
    let marked = crate::transaction::steps::mark_session_claims(dir, &session_snap, &write)?;
    let entry = recovery_entry(dir, today, note, &marked)?;
    crate::transaction::steps::append_log(dir, &entry, &write)?;
    let snap = dir.snapshot(repo, Source::Worktree)?;
    let old = Manifest::from_snapshot(dir, &snap).ok().flatten();
    let short = head.map(Repo::short);
    let mut counts = BlobCache::token_counts(repo);
    let regen = Manifest::regenerate(
        old.as_ref(),
        dir,
        &snap,
        &SessionInfo::default(),
        short.as_deref(),
        ctx.now,
        &mut counts,
    )?;
    counts.save();
    if regen.changed {
        write(MANIFEST, &regen.manifest.to_bytes())?;
    }
    Ok(marked)
}

/// The steps of a rollback, in words.
fn rollback_plan(dir: &HandoffDir, session_id: &str, target_text: &str) -> Vec<String> {
    vec![
        format!(
            "save the session's handoff files as a commit under {}{}",
            transaction::RECOVERED_PREFIX,
            transaction::recovered_ref_part(session_id)
        ),
        format!(
            "restore {} to the last clean handoff, {target_text}",
            dir.rel
        ),
        "mark the claims the session changed in TRUST.md as untested".into(),
        "add a recovery entry to LOG.md".into(),
        "regenerate MANIFEST.json".into(),
        format!("remove {} and the commit journal", dir.path_of(LOCK)),
    ]
}

/// The LOG.md entry that records a recovery.
/// The session's id, agent and start come from `HANDOFF.lock` or the commit journal, which
/// anyone can edit: each is vetted before it goes into LOG.md (review s23 #8).
fn recovery_entry(
    dir: &HandoffDir,
    today: jiff::civil::Date,
    note: &RecoveryNote<'_>,
    marked: &[String],
) -> Result<String> {
    let RecoveryNote {
        who,
        ref_name,
        saved,
        target,
    } = note;
    let session = boundary::vetted_line(dir, &who.session_id, "a session id")?;
    let mut e = format!(
        "## [{today}] git-aahp: Recovered interrupted session {}\n\n\
         **Agent:** git-aahp recover\n\n\
         The session `{}` of {} (started {}) ended before its commit. The handoff directory \
         was rolled back to the last clean handoff, {target}.\n\n\
         Its files are saved in commit `{}` at `{ref_name}` \
         (`git show {ref_name}:<path>` to read one).\n",
        session,
        session,
        boundary::vetted_line(dir, &who.agent, "an agent name")?,
        boundary::vetted_line(dir, &who.started, "a time")?,
        Repo::short(*saved),
    );
    if !marked.is_empty() {
        let _ = write!(
            e,
            "\nClaims the session had changed are marked untested until re-verified: {}.\n",
            marked
                .iter()
                .map(|m| boundary::clean_line(m))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(e)
}

/// True when the handoff files in the working tree differ from HEAD's (lock and temporary
/// files aside).
fn has_changes(repo: &Repo, dir: &HandoffDir, head: Option<ObjectId>) -> Result<bool> {
    use crate::handoff::ARCHIVE_PAIR;
    // LOG-ARCHIVE.md and its index are compared with HEAD's blobs in pieces, never read
    // whole (issue #12 item 2): the working tree's are left on disk, HEAD's unread.
    let mut work = dir.snapshot(repo, Source::Worktree)?;
    let mut committed = match head {
        Some(h) => dir.snapshot_commit_leaving(repo, h, &ARCHIVE_PAIR)?,
        None => crate::handoff::Snapshot::default(),
    };
    for name in ARCHIVE_PAIR {
        let same = match (work.streamed.remove(name), committed.unread.remove(name)) {
            (None, None) => true,
            (Some(_), Some(id)) => repo.file_is_blob(&dir.path_of(name), id)?,
            // A symbolic link in the working tree is read whole, as everywhere.
            (None, Some(id)) => work.files.remove(name).is_some_and(|bytes| {
                repo.blob_within(id, bytes.len())
                    .is_ok_and(|b| b.is_ok_and(|b| b == bytes))
            }),
            (Some(_), None) => false,
        };
        if !same {
            return Ok(true);
        }
    }
    let strip = |s: crate::handoff::Snapshot| {
        s.files
            .into_iter()
            .filter(|(n, _)| !transaction::is_transient(n))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    Ok(strip(work) != strip(committed))
}

/// True when the commit's handoff directory has a manifest that matches every file.
fn manifest_verifies(repo: &Repo, dir: &HandoffDir, commit: ObjectId) -> bool {
    // The archive pair the working tree holds as committed is checked in pieces from there.
    let Ok(snap) = dir.snapshot_commit(repo, commit, true) else {
        return false;
    };
    let Ok(Some(m)) = Manifest::from_snapshot(dir, &snap) else {
        return false;
    };
    m.check_files(dir, &snap)
        .is_ok_and(|checks| checks.iter().all(|c| c.state == FileState::Ok))
}

/// Forgets the handoff directory's session record when it names this session.
fn forget_session(repo: &Repo, dir: &HandoffDir, session_id: &str) -> Result<()> {
    if SessionRecord::load(repo, &dir.rel).is_some_and(|r| r.session_id == session_id) {
        SessionRecord::remove(repo, &dir.rel)?;
    }
    Ok(())
}
