//! `git aahp commit`: phase two of a session — lint, decay trust, rotate the log, regenerate
//! the manifest, stage the handoff directory with what the user staged, make **one** commit
//! through `git commit`, release the lock and tag the clean handoff (SPEC §3.7, §4).
//!
//! # Crash safety
//! Before it changes a file, `commit` writes a journal (`<git_dir>/aahp/journals/<key>.json`) holding
//! a commit with the session's files as they were. Every file is replaced by rename. A crash
//! at any step leaves the lock and journal behind; `git aahp recover` then finishes the session
//! (the commit exists) or rolls it back (it does not), saving the session's files first. A
//! step that fails without a crash (a hook rejects the commit, a file is bad input) puts the
//! files and the index back as they were, removes the journal and releases a lock that
//! `commit` took itself, so nothing changed and a retry works.

use std::io::{self, Write};

use serde::Serialize;

use super::Context;
use super::verify::{self, Layer, LayerStatus};
use crate::clock;
use crate::error::{Error, ExitStatus, Result};
use crate::failpoint;
use crate::git::{KeptIndex, Repo};
use crate::handoff::checksum_cache::BlobCache;
use crate::handoff::manifest::{Manifest, SessionInfo};
use crate::handoff::provenance::Provenance;
use crate::handoff::{
    Baseline, HandoffDir, LOCK, MANIFEST, Snapshot, checksum, log, write_atomic_batched,
};
use crate::lint::Diagnostic;
use crate::output::{Report, Style, boundary, escape_untrusted};
use crate::transaction::journal::{Journal, SessionRecord, Step};
use crate::transaction::lease;
use crate::transaction::lock::{self, LockState};
use crate::transaction::writer::WriteLock;
use crate::transaction::{self, SessionClaim};

/// Every fail point of `commit`, in the order the steps reach them. The crash test kills the
/// process at each one and proves that `recover` restores a complete state.
pub const COMMIT_FAILPOINTS: &[&str] = &[
    "commit:lint",
    "lock:linked",
    "commit:lock",
    "commit:journal",
    "commit:decay",
    "commit:provenance",
    "commit:rotate:archive",
    "commit:rotate:index",
    "commit:rotate",
    "commit:manifest",
    "commit:stage",
    "commit:spawned",
    "commit:commit",
    "commit:committed",
    "commit:release",
    "commit:tag",
];

/// Default number of LOG.md entries kept when neither `--keep` nor `aahp.keep` is set.
pub const DEFAULT_KEEP: usize = 10;

/// End the session: lint, decay trust, rotate the log, regenerate the manifest, and record
/// the handoff directory together with what you staged as one commit, then tag it.
///
/// Without `begin`, the lock is taken and released around the commit. A lock held by another
/// session exits 3. Hooks, signing and identity apply as for `git commit`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CommitArgs {
    /// The commit message.
    #[arg(short, long)]
    pub message: String,
    /// The agent ending the session (recorded in the manifest).
    #[arg(long, env = "AAHP_AGENT")]
    pub agent: Option<String>,
    /// The session phase (recorded in the manifest).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(crate::handoff::manifest::PHASES))]
    pub phase: Option<String>,
    /// Set `quick_context`, the orientation for the next agent (≤ 500 characters).
    #[arg(long)]
    pub context: Option<String>,
    /// The session id `begin` printed.
    #[arg(long, env = "AAHP_SESSION_ID")]
    pub session_id: Option<String>,
    /// The session's LOG.md entry, when you did not write one: the first line is its title,
    /// the rest its body. Without it, LOG.md must hold an entry the session wrote.
    #[arg(long, value_name = "TEXT")]
    pub log: Option<String>,
    /// Commit although another handoff landed on the branch since `begin`: you have read
    /// it and carried what it says into your STATUS.md and LOG.md.
    #[arg(long)]
    pub accept_landed: bool,
    /// Do not create the `aahp/session-N` tag.
    #[arg(long)]
    pub no_tag: bool,
    /// LOG.md entries to keep; older ones move to LOG-ARCHIVE.md (default: git config
    /// aahp.keep, else 10).
    #[arg(long, value_name = "N")]
    pub keep: Option<usize>,
}

/// The result of `git aahp commit`.
#[derive(Debug, Default, Serialize)]
pub struct CommitReport {
    /// The new commit (absent when lint blocked it).
    pub commit: Option<String>,
    /// The session tag created.
    pub tag: Option<String>,
    /// The branch committed on.
    pub branch: Option<String>,
    /// The session.
    pub session_id: Option<String>,
    /// Repository-relative paths the commit changed.
    pub files: Vec<String>,
    /// The manifest's token budget.
    pub budget: serde_json::Value,
    /// Trust claims decayed from verified to assumed.
    pub decayed: Vec<String>,
    /// Log entries moved to the archive.
    pub archived: usize,
    /// Blocking lint findings (the commit was not made).
    pub findings: Vec<Diagnostic>,
    /// The layers of the pre-commit gate that rejected what would have been committed (the
    /// commit was not made and nothing changed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<Layer>,
    /// True when a refused commit left the session's lock held (it was held before).
    #[serde(skip)]
    pub kept_lock: bool,
    /// Problems that did not stop the commit.
    pub warnings: Vec<String>,
}

impl Report for CommitReport {
    fn command(&self) -> &'static str {
        "commit"
    }

    fn write_human(&self, w: &mut dyn Write, style: &Style) -> io::Result<()> {
        let Some(commit) = &self.commit else {
            if !self.rejected.is_empty() {
                return self.write_rejected(w, *style);
            }
            for d in &self.findings {
                writeln!(
                    w,
                    "{}:{}:{}: {}[{} {}]: {}",
                    d.path,
                    d.line,
                    d.column,
                    style.error("error"),
                    d.rule,
                    d.name,
                    escape_untrusted(&d.message)
                )?;
            }
            return writeln!(
                w,
                "{}: {} blocking finding(s); nothing was changed or committed",
                style.error("aborted"),
                self.findings.len()
            );
        };
        writeln!(w, "{commit}")?;
        let branch = self.branch.as_deref().map_or(String::new(), |b| {
            format!(" on {}", b.trim_start_matches("refs/heads/"))
        });
        writeln!(
            w,
            "{} {} file(s) as {}{branch}{}",
            style.ok("committed"),
            self.files.len(),
            &commit[..commit.len().min(7)],
            self.tag
                .as_deref()
                .map_or(String::new(), |t| format!("; tagged {t}"))
        )?;
        if !self.decayed.is_empty() {
            let names: Vec<String> = self.decayed.iter().map(|d| escape_untrusted(d)).collect();
            writeln!(w, "  trust: decayed to assumed: {}", names.join(", "))?;
        }
        if self.archived > 0 {
            writeln!(
                w,
                "  log: {} entries moved to LOG-ARCHIVE.md",
                self.archived
            )?;
        }
        crate::output::write_warnings(w, style, &self.warnings)?;
        Ok(())
    }

    fn status(&self) -> ExitStatus {
        if self.commit.is_none() {
            ExitStatus::Findings
        } else {
            ExitStatus::Success
        }
    }
}

impl CommitReport {
    /// The human form of a commit the pre-commit gate refused.
    fn write_rejected(&self, w: &mut dyn Write, style: Style) -> io::Result<()> {
        for layer in &self.rejected {
            for f in layer.findings.iter().filter(|f| f.blocking) {
                let at = f
                    .path
                    .as_deref()
                    .map_or(String::new(), |p| format!("{p}: "));
                writeln!(
                    w,
                    "{}  {}: {at}{}",
                    style.error("FAIL"),
                    layer.layer,
                    escape_untrusted(&f.message)
                )?;
            }
        }
        writeln!(
            w,
            "{}: the pre-commit gate would reject this commit; nothing was changed or \
             committed{}",
            style.error("refused"),
            if self.kept_lock {
                " and the session keeps its lock"
            } else {
                ""
            }
        )?;
        if self.rejected.iter().any(|l| l.layer == "drift") {
            writeln!(
                w,
                "hint: say in STATUS.md what this change does, then run `git aahp commit` again"
            )
        } else {
            writeln!(
                w,
                "hint: fix the problems above, then run `git aahp commit` again"
            )
        }
    }
}

/// Runs `git aahp commit`.
pub fn run(ctx: &Context, args: &CommitArgs) -> Result<CommitReport> {
    let repo = ctx.repo()?;
    let dir = ctx.existing_handoff()?;
    if args.message.trim().is_empty() {
        return Err(Error::Usage(
            "the commit message (-m) must not be empty".into(),
        ));
    }
    boundary::admit(&dir, "the commit message (-m)", Some(&args.message))?;
    boundary::admit(&dir, "--context", args.context.as_deref())?;
    boundary::admit(&dir, "--agent", args.agent.as_deref())?;
    boundary::admit(&dir, "--phase", args.phase.as_deref())?;
    boundary::admit(&dir, "--log", args.log.as_deref())?;
    if let Some(log) = &args.log {
        crate::handoff::provenance::check_one_entry(log).map_err(Error::Usage)?;
    }
    let info = SessionInfo {
        agent: args.agent.clone(),
        phase: args.phase.clone(),
        context: args.context.clone(),
        ..SessionInfo::default()
    };
    info.validate()?;
    let base = transaction::require_branch_head(repo, "`git aahp commit`")?;
    let keep = keep_setting(repo, args.keep)?;
    // Held until the end: what is linted is what is committed, and no other process of the
    // session rewrites a file in between.
    let serial = WriteLock::acquire_with_index(repo, &dir, "git aahp commit")?;
    // Temporary files of a writer killed mid-write are debris now that no writer of this
    // worktree runs: swept as every other writer sweeps them, or a commit killed mid-write
    // left one that its successful rerun kept, untracked, for `git add -A` (review rob36
    // #11).
    transaction::remove_temp_files(repo, &dir);
    // The journal of an interrupted commit, read once: the write lock keeps it as it is.
    // A rerun after a crash inside the log rotation first puts back the half-rotated
    // archive pair, before anything reads it.
    let pending = Journal::load(repo, &dir.rel)?;
    if let Some(j) = &pending
        && j.step == Step::Prepared
    {
        undo_partial_rotation(repo, &dir, j)?;
    }

    // 1. Lint: abort with nothing changed.
    let findings = blocking_findings(repo, &dir, clock::utc_date(ctx.now))?;
    if !findings.is_empty() {
        return Ok(CommitReport {
            findings,
            ..CommitReport::default()
        });
    }
    // Bad TRUST.md rows or a damaged archive stop the commit before anything changes, and so
    // does a half-done `git aahp archive` (rotating its files again would archive twice).
    if let Some(j) = transaction::rotation::pending_in(repo, &dir)? {
        return Err(transaction::rotation::pending_error(&j));
    }
    let mut prechecked = transaction::steps::precheck(repo, &dir, keep)?;
    refuse_special_files(&dir)?;
    // The files every session commit rewrites, and TRUST.md when claims will decay (the
    // archive pair is checked when the rotation is planned).
    let linked_trust = std::fs::symlink_metadata(dir.abs.join(transaction::steps::TRUST_FILE))
        .is_ok_and(|m| m.file_type().is_symlink())
        && transaction::steps::read_text(&dir, transaction::steps::TRUST_FILE)?.is_some_and(|t| {
            !crate::handoff::trust::decay(&t, clock::utc_date(ctx.now))
                .decayed
                .is_empty()
        });
    let rewritten = [
        MANIFEST,
        "STATUS.md",
        log::LOG_FILE,
        transaction::steps::TRUST_FILE,
    ];
    transaction::steps::refuse_linked(
        &dir,
        &rewritten[..if linked_trust { 4 } else { 3 }],
        "the commit would replace it by a copy",
    )?;
    // A manifest that cannot be read stops the commit before it takes a lock or a journal.
    Manifest::from_snapshot(&dir, &worktree_snapshot(&dir)?)?;
    // The index as the user left it, byte for byte: a commit that fails or is refused puts
    // this copy back, not merely equal entries (cached stat data and extensions included).
    let kept_index = repo.keep_index()?;
    failpoint::hit("commit:lint");

    // 2. The lock: ours, or taken now.
    let (session_id, agent, started) = take_lock(ctx, repo, &dir, args, base, pending.as_ref())?;
    // A session the handoff would misdescribe, or one another handoff landed under, is
    // declined with nothing changed; a lock taken just now is not left behind.
    // The staged changes, read once for both checks below.
    let staged = repo
        .index()
        .map_err(Error::from)
        .and_then(|index| Ok((repo.staged_changes(&index)?, index)));
    let checked = staged
        .and_then(|(changes, index)| {
            session_precheck(repo, &dir, base, args, &changes)?;
            refuse_other_sessions_code(ctx, repo, &dir, &session_id, &index, &changes)
        })
        .and_then(|()| {
            if started.is_some() && !args.accept_landed {
                check_receipt(repo, &dir, base)
            } else {
                Ok(())
            }
        })
        // The tag's number, from this clone's tags and the lease's remote's, before
        // anything changes: a commit that could not be tagged is refused, not made and
        // left untagged with a warning.
        .and_then(|()| tag_number_left(repo, &dir, args.no_tag));
    // Nothing was changed yet: a lock taken above is not left behind (issue #12).
    let give_back = |e: Error| {
        if started.is_none() {
            let _ = lock::release(&dir);
            let _ = SessionRecord::remove(repo, &dir.rel);
        }
        e
    };
    let (floor, floor_warnings) = checked.map_err(give_back)?;
    failpoint::hit("commit:lock");

    // 3. The journal.
    let mut journal = match open_journal(
        ctx,
        repo,
        &dir,
        args,
        base,
        pending,
        &session_id,
        &agent,
        started.is_none(),
    ) {
        Ok(j) => j,
        Err(e) => return Err(give_back(e)),
    };
    failpoint::hit("commit:journal");

    let duration = started
        .and_then(|s| s.parse::<jiff::Timestamp>().ok())
        .map(|s| u64::try_from((ctx.now.as_second() - s.as_second()) / 60).unwrap_or(0));
    let info = SessionInfo {
        agent: Some(agent.clone()),
        session_id: Some(session_id.clone()),
        duration_minutes: duration,
        ..info
    };
    let prepared = match prepare(
        ctx,
        repo,
        &dir,
        &info,
        args.log.as_deref(),
        keep,
        base,
        &mut journal,
        &mut prechecked,
    ) {
        Ok(p) => p,
        Err(e) => return Err(abort(repo, &dir, &journal, &kept_index, e)),
    };

    // 8. The pre-commit gate on exactly what will be committed, drift included: a session
    // the hook or CI would reject is neither committed nor tagged, and nothing changes.
    let gate = match verify::gate_staged(ctx) {
        Ok(gate) => gate,
        Err(e) => return Err(abort(repo, &dir, &journal, &kept_index, e)),
    };
    if !gate.ok {
        if let Err(e) = undo(repo, &dir, &journal, &kept_index) {
            return Err(undo_failed(
                &journal,
                &Error::other("the pre-commit gate failed"),
                &e,
            ));
        }
        return Ok(CommitReport {
            rejected: gate
                .layers
                .into_iter()
                .filter(|l| l.status == LayerStatus::Fail)
                .collect(),
            kept_lock: !journal.took_lock,
            ..CommitReport::default()
        });
    }

    // What the gate passed with a warning a reviewer should see: a command of an agent
    // configuration it cannot follow (acknowledged), a suppression the change adds. Said
    // as the pre-commit hook says them (review atk39 #4).
    let mut gate_warnings = gate.unfollowed_warnings();
    gate_warnings.extend(gate.suppression_warnings());

    // 9. The one commit, through `git commit`.
    // The message is command-line text: through the boundary like every other output
    // (what `admit` let through may still hold a workflow command or a placeholder secret).
    // `git commit` inherits the write lock and holds it until it ends: killed now, this
    // process leaves a `git commit` that may still create the commit, and no `recover` may
    // act before it has (issue #12 item 5). Its pid goes into the journal, so `recover` and
    // `status` can name it.
    let committed = serial
        .inheritable()
        .map_err(|source| Error::Read {
            path: "the handoff directory's write lock".into(),
            source,
        })
        .and_then(|hold| {
            repo.commit_staged(&boundary::clean(&args.message), hold, |pid| {
                journal.git_pid = Some(pid);
                // Only a name for the user: the lock, not this record, keeps `recover` off
                // a running `git commit`, so a failed write costs nothing but the name.
                let _ = journal.save_name(repo);
                failpoint::hit("commit:spawned");
            })
            .map_err(Error::from)
        });
    if let Err(e) = committed {
        let e = Error::Other {
            context: "`git commit` did not create the commit (a hook may have rejected it)".into(),
            source: Some(Box::new(e)),
        };
        return Err(abort(repo, &dir, &journal, &kept_index, e));
    }
    let commit = repo
        .head_commit()?
        .ok_or_else(|| Error::other("HEAD has no commit after `git commit`"))?;
    failpoint::hit("commit:commit");
    journal.step = Step::Committed;
    journal.commit = Some(commit.to_string());
    journal.save(repo)?;
    failpoint::hit("commit:committed");

    // 10. Release the lock (and the remote lease, only while it is still this session's).
    let remote_lease = match LockState::read(&dir)? {
        LockState::Held(l) => l.remote,
        _ => None,
    };
    lock::release(&dir)?;
    // Not synced: the lock's removal is; a record that came back after a power cut would
    // name a session no lock holds, which counts for nothing.
    SessionRecord::remove_unsynced(repo, &dir.rel)?;
    failpoint::hit("commit:release");

    // 11. The session tag, numbered above the floor read before the commit.
    let mut warnings = gate_warnings;
    warnings.extend(floor_warnings);
    let (tag, tag_warnings) = tag_step(repo, &dir, commit, &session_id, &agent, args.no_tag, floor);
    warnings.extend(tag_warnings);
    if let Some(l) = &remote_lease {
        match lease::release(repo, l) {
            Ok(true) => {}
            Ok(false) => warnings.push(format!(
                "the lease {} on `{}` no longer held this session's value: someone released or took it over; it was left as it is",
                l.refname, l.remote
            )),
            Err(e) => warnings.push(format!(
                "the lease {} on `{}` could not be released ({e}); this session is committed, so `git aahp recover --remote {}` releases it",
                l.refname, l.remote, l.remote
            )),
        }
    }
    failpoint::hit("commit:tag");
    // Not synced: a journal a power cut brought back is one `recover` finishes.
    Journal::remove_unsynced(repo, &dir.rel)?;
    Ok(CommitReport {
        commit: Some(commit.to_string()),
        tag,
        branch: repo.head_branch()?,
        session_id: Some(session_id),
        files: repo
            .commit_changes(Some(base), commit)?
            .into_iter()
            .map(|c| c.path)
            .collect(),
        budget: prepared
            .manifest
            .doc
            .get("token_budget")
            .cloned()
            .unwrap_or_default(),
        decayed: prepared.decayed,
        archived: prepared.archived,
        findings: Vec::new(),
        rejected: Vec::new(),
        kept_lock: false,
        warnings,
    })
}

/// The handoff directory on disk with LOG-ARCHIVE.md and its index left there, hashed and
/// summarised in pieces when the manifest needs them (issue #12 item 2): nothing else of
/// a commit reads their text but the lint.
fn worktree_snapshot(dir: &HandoffDir) -> Result<Snapshot> {
    dir.snapshot_worktree_streaming(&[log::ARCHIVE_FILE, log::INDEX_FILE])
}

/// Step 1: the blocking lint findings in the handoff files on disk, judged as the
/// pre-commit gate judges the index (issue #14): a file whose bytes are HEAD's blob is not
/// linted again (HEAD's state was the last one judged, and CI judges the whole range), unless
/// the lint configuration changed; the manifest, TRUST.md and the configuration are always
/// read. Judging unchanged files again took about a third of a commit's instructions, most
/// of them compiling the secret patterns an unchanged `.aiignore`'s globs (`*_KEY=*`,
/// `Bearer *`) wake. Whatever the session changed, and whatever the commit's own rewrites
/// change (the rotation moving old entries into the archive included), is judged here or by
/// the gate on exactly what is committed (step 8).
fn blocking_findings(
    repo: &Repo,
    dir: &HandoffDir,
    today: jiff::civil::Date,
) -> Result<Vec<Diagnostic>> {
    let snap = dir.snapshot_worktree_since(repo, &Baseline::at_head(repo, dir)?)?;
    Ok(crate::lint::check_snapshot(dir, &snap, today)?
        .into_iter()
        .filter(Diagnostic::is_blocking)
        .collect())
}

/// Returns how many log entries to keep: `--keep`, else git config `aahp.keep`, else 10.
fn keep_setting(repo: &Repo, arg: Option<usize>) -> Result<usize> {
    let keep = match arg {
        Some(k) => k,
        None => match repo.config_string("aahp.keep") {
            Some(v) => v.trim().parse().map_err(|_| {
                Error::invalid(
                    "git config aahp.keep",
                    None,
                    format!("`{v}` is not a number"),
                )
            })?,
            None => DEFAULT_KEEP,
        },
    };
    if keep == 0 {
        return Err(Error::Usage("--keep must be at least 1".into()));
    }
    Ok(keep)
}

/// Step 2: the session's lock, or a new one when no session holds it. Returns the session
/// id, the agent, and when the session began (`None` when the lock was taken here).
fn take_lock(
    ctx: &Context,
    repo: &Repo,
    dir: &HandoffDir,
    args: &CommitArgs,
    base: gix::ObjectId,
    pending: Option<&Journal>,
) -> Result<(String, String, Option<String>)> {
    let claim = SessionClaim {
        session_id: args.session_id.clone(),
        agent: args.agent.clone(),
    };
    match LockState::read(dir)? {
        LockState::Held(held) if claim.owns(&held, repo, dir) => {
            // The lock is a file anyone can edit; its agent goes into the manifest and the
            // tag, so it is admitted like `--agent` is.
            if args.agent.is_none() {
                boundary::admit(dir, "the agent in HANDOFF.lock", Some(&held.agent))?;
            }
            // A session that holds a remote lease commits only while the remote still
            // holds it: released or taken over by someone else, it is exit 3 (issue #17).
            if let Some(l) = &held.remote
                && !lease::still_held(repo, l)?
            {
                return Err(lease_lost(repo, dir, l));
            }
            let agent = args.agent.clone().unwrap_or_else(|| held.agent.clone());
            Ok((held.session_id, agent, Some(held.started)))
        }
        // Under the write lock, a lock taken for one write proves its taker crashed
        // mid-write (see `transaction::writer`): it belongs to no session.
        LockState::Held(held) if held.write.is_some() => {
            lock::release(dir)?;
            take_lock(ctx, repo, dir, args, base, pending)
        }
        state @ (LockState::Held(_) | LockState::Unreadable(_)) => {
            Err(state.locked_error(dir, ctx.now))
        }
        LockState::Absent => {
            if let Some(j) = pending {
                return Err(interrupted(j));
            }
            let agent = args.agent.clone().unwrap_or_else(|| "unknown".into());
            let session_id = args
                .session_id
                .clone()
                .unwrap_or_else(|| lock::new_session_id(ctx.now));
            let ttl = lock::parse_ttl(super::begin::DEFAULT_TTL).map_err(Error::Usage)?;
            let new = lock::new_lock(
                &agent,
                &session_id,
                ctx.now,
                ttl,
                Some(base.to_string()),
                Vec::new(),
                args.phase.clone(),
            )?;
            // The session lives and ends inside this process (see `acquire_in_process`).
            if !lock::acquire_in_process(dir, &new)? {
                return Err(LockState::read(dir)?.locked_error(dir, ctx.now));
            }
            // The session ends inside this process: its record only has to outlive a kill
            // (for a retry), not a power cut (see `save_unsynced`).
            let record = SessionRecord {
                dir: dir.rel.clone(),
                session_id: session_id.clone(),
            };
            if let Err(e) = record.save_unsynced(repo) {
                // Nothing was changed yet: the lock taken just now is not left behind
                // (review rob35 #3).
                let _ = lock::release(dir);
                return Err(e);
            }
            Ok((session_id, agent, None))
        }
    }
}

/// Step 3: the journal, with the session's files saved before anything changes. A journal
/// of this session that never reached `git commit` is a retry and keeps the first copy.
#[expect(
    clippy::too_many_arguments,
    reason = "the step needs the whole session context"
)]
fn open_journal(
    ctx: &Context,
    repo: &Repo,
    dir: &HandoffDir,
    args: &CommitArgs,
    base: gix::ObjectId,
    pending: Option<Journal>,
    session_id: &str,
    agent: &str,
    took_lock: bool,
) -> Result<Journal> {
    match pending {
        Some(j) if j.session_id == session_id && j.step == Step::Prepared => Ok(j),
        Some(j) => Err(interrupted(&j)),
        None => {
            let saved = transaction::save_worktree(
                repo,
                dir,
                Some(base),
                &format!("aahp: files of session {session_id} before `git aahp commit`"),
            )?;
            let journal = Journal {
                version: 1,
                session_id: session_id.to_string(),
                agent: agent.to_string(),
                dir: dir.rel.clone(),
                started: clock::format_rfc3339(ctx.now),
                base_commit: Some(base.to_string()),
                saved_commit: saved.to_string(),
                index_before: repo
                    .index_modes(&dir.rel)?
                    .into_iter()
                    .filter(|(_, _, p)| *p != dir.path_of(LOCK))
                    .collect(),
                took_lock,
                message: args.message.clone(),
                no_tag: args.no_tag,
                step: Step::Prepared,
                planned_tree: None,
                commit: None,
                git_pid: None,
            };
            journal.save(repo)?;
            Ok(journal)
        }
    }
}

/// What steps 4–7 produced.
struct Prepared {
    manifest: Manifest,
    decayed: Vec<String>,
    archived: usize,
}

/// Steps 4–7: decay trust, stamp provenance, rotate the log, regenerate the manifest,
/// stage. Each file is replaced atomically; the journal records the planned tree before
/// `git commit` runs.
#[expect(
    clippy::too_many_arguments,
    reason = "the steps need the whole session context"
)]
fn prepare(
    ctx: &Context,
    repo: &Repo,
    dir: &HandoffDir,
    info: &SessionInfo,
    log: Option<&str>,
    keep: usize,
    base: gix::ObjectId,
    journal: &mut Journal,
    prechecked: &mut transaction::steps::Prechecked,
) -> Result<Prepared> {
    let today = clock::utc_date(ctx.now);
    // Each file is synced before its rename; the directory once, before the journal says
    // everything is staged (below). A power loss in between is rolled back from the
    // journal's saved copy, whichever renames it kept.
    let write = |name: &str, bytes: &[u8]| {
        write_atomic_batched(&dir.abs.join(name), bytes).map_err(|source| Error::Write {
            path: dir.path_of(name),
            source,
        })
    };

    // 4. Trust decay.
    let decayed = transaction::steps::decay_trust(dir, today, &write)?;
    failpoint::hit("commit:decay");

    // 5a. Provenance: the session's LOG entry (written from --log when asked) and the STATUS
    // summary say who, which session, when and on top of which commit.
    let short = Repo::short(base);
    let prov = Provenance {
        agent: info.agent.clone().unwrap_or_else(|| "unknown".into()),
        session_id: info.session_id.clone().unwrap_or_default(),
        timestamp: clock::format_rfc3339(ctx.now),
        commit_before: short.clone(),
    };
    // A stale remote lease this session took over (`begin --steal`) is logged (issue #17):
    // the next agent learns that another session's work may be unfinished.
    let took_over = match LockState::read(dir)? {
        LockState::Held(l) => l.remote.and_then(|r| r.took_over.map(|t| (r.remote, t))),
        _ => None,
    };
    let (stamped_log, status) = stamp_provenance(
        repo,
        dir,
        base,
        (log, took_over.as_ref()),
        &prov,
        &today.to_string(),
        &write,
    )?;
    failpoint::hit("commit:provenance");

    // 5b. Log rotation, of LOG.md as stamped: it is written once, after the archive.
    let archived = transaction::steps::rotate_log(dir, keep, stamped_log, &write, prechecked)?;
    failpoint::hit("commit:rotate");

    // 6. The manifest.
    let snap = worktree_snapshot(dir)?;
    let old = Manifest::from_snapshot(dir, &snap)?;
    let mut info = info.clone();
    // The quick context follows the STATUS summary unless the session set it (`--context`
    // now, or `manifest --context` during the session): init's text must not outlive it.
    if info.context.is_none() {
        let at_base = repo
            .blob_at(base, &dir.path_of(MANIFEST))?
            .and_then(|b| Manifest::parse_read_only(&dir.path_of(MANIFEST), &b).ok());
        let set_in_session = old.as_ref().and_then(|m| m.str_field("quick_context"))
            != at_base.as_ref().and_then(|m| m.str_field("quick_context"));
        if !set_in_session {
            info.context = status
                .as_deref()
                .and_then(|s| crate::handoff::manifest::quick_context_from("STATUS.md", s));
        }
    }
    let mut counts = BlobCache::token_counts(repo);
    let regen = Manifest::regenerate(
        old.as_ref(),
        dir,
        &snap,
        &info,
        Some(&short),
        ctx.now,
        &mut counts,
    )?;
    counts.save();
    // What regeneration keeps from the old manifest (tasks, counters) and the schema still
    // refuses is bad input: stop before anything is staged, so the index stays as it was.
    if let Some(problem) =
        crate::schema::validate_manifest(&serde_json::Value::Object(regen.manifest.doc.clone()))
            .into_iter()
            .next()
    {
        return Err(Error::invalid(dir.path_of(MANIFEST), None, problem));
    }
    if regen.changed {
        write(MANIFEST, &regen.manifest.to_bytes())?;
    }
    failpoint::hit("commit:manifest");

    // 7. Stage the handoff directory (never the lock) beside what the user staged.
    let present = transaction::worktree_files(dir)?;
    let add: Vec<String> = present.iter().map(|n| dir.path_of(n)).collect();
    let mut remove: Vec<String> = transaction::commit_files(repo, Some(base), dir)?
        .into_iter()
        .chain(
            journal
                .index_before
                .iter()
                .filter_map(|(_, _, p)| p.rsplit('/').next().map(String::from)),
        )
        .filter(|n| !present.contains(n))
        .map(|n| dir.path_of(&n))
        .collect();
    // A lock someone staged by hand (`git add -A`) must not enter the commit.
    remove.push(dir.path_of(LOCK));
    remove.sort();
    remove.dedup();
    let index = repo.stage(&add, &remove)?;
    crate::handoff::sync_dir(&dir.abs);
    let tree = repo.write_index_tree(&index)?;
    journal.step = Step::Committing;
    journal.planned_tree = Some(tree.to_string());
    journal.save(repo)?;
    failpoint::hit("commit:stage");
    Ok(Prepared {
        manifest: regen.manifest,
        decayed,
        archived,
    })
}

/// A rerun of a commit that crashed inside its log rotation (LOG-ARCHIVE.md or its index
/// written, LOG.md not yet): the rotation is not idempotent, since moving LOG.md's oldest
/// entries again would archive them twice, and an archive it adopted would now pass for
/// the original. LOG.md is written last, so while it still equals the saved copy nothing of
/// the rotation counts yet: the archive and its index go back to the saved copy's, and the
/// rotation runs anew. (`archive` refuses to run while the journal exists, so nothing else
/// wrote them meanwhile.)
fn undo_partial_rotation(repo: &Repo, dir: &HandoffDir, journal: &Journal) -> Result<()> {
    let saved = gix::ObjectId::from_hex(journal.saved_commit.as_bytes())
        .map_err(|_| Error::other("the journal's saved commit id is malformed"))?;
    let log_rel = dir.path_of(log::LOG_FILE);
    let log_as_saved = match repo.tree_file_at(saved, &log_rel)? {
        Some(f) if !f.is_link => repo.file_is_blob(&log_rel, f.id)?,
        Some(_) => false,
        None => !dir.abs.join(log::LOG_FILE).exists(),
    };
    if log_as_saved {
        transaction::restore_files(repo, dir, saved, &[log::ARCHIVE_FILE, log::INDEX_FILE])?;
        transaction::rotation::remove_stale_staging(dir);
    }
    Ok(())
}

/// A directory, FIFO, socket or device where a handoff file belongs is bad input: refused
/// (exit 2, naming it) before the lock, the journal or the index is touched, so a failed
/// commit never leaves a changed index behind (issue #12).
fn refuse_special_files(dir: &HandoffDir) -> Result<()> {
    let names = crate::handoff::CANONICAL_FILES
        .iter()
        .chain([&MANIFEST, &crate::handoff::AIIGNORE]);
    for name in names {
        let path = dir.abs.join(name);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let kind = meta.file_type();
        if !(kind.is_file() || kind.is_symlink()) {
            return Err(Error::invalid(
                dir.path_of(name),
                None,
                "is not a regular file (a directory, FIFO or device); \
                 put the file back or remove it, then commit again",
            ));
        }
    }
    Ok(())
}

/// The receipt (issue #15): refuses, with the session's lock kept and nothing changed, when
/// another handoff landed on the branch since `begin` — a handoff file the branch holds now
/// differs from the one of the commit the session's ticket recorded (any file, not only the
/// manifest: a hand edit committed without regenerating it counts too) — so no session
/// silently overwrites another's.
fn check_receipt(repo: &Repo, dir: &HandoffDir, head: gix::ObjectId) -> Result<()> {
    let LockState::Held(ticket_lock) = LockState::read(dir)? else {
        return Ok(());
    };
    let Some(begun) = ticket_lock.base_commit.as_deref() else {
        return Ok(());
    };
    if gix::ObjectId::from_hex(begun.as_bytes()).is_ok_and(|b| b == head) {
        return Ok(());
    }
    let path = dir.path_of(MANIFEST);
    let landed = if let Ok(start) = repo.resolve_commit(begun) {
        transaction::chain::changed_files(repo, dir, start, head)?
    } else {
        // The commit the session began from is gone (rewritten history): the ticket's
        // manifest checksum is all there is to compare.
        let now = repo.blob_at(head, &path)?.map(|b| checksum(&b));
        if ticket_lock.base_manifest.is_some() && ticket_lock.base_manifest == now {
            Vec::new()
        } else {
            vec![path.clone()]
        }
    };
    if landed.is_empty() {
        return Ok(());
    }
    let tag = transaction::tag_on(repo, head)?
        .or(transaction::chain::newest_reachable(repo, dir, head, false)?.map(|l| l.tag));
    Err(Error::Declined {
        reason: format!(
            "another handoff landed on this branch since your session began at {}: the branch \
             now holds {}'s {}{}; nothing was changed or committed and your session keeps its \
             lock",
            &begun[..begun.len().min(7)],
            Repo::short(head),
            landed.join(", "),
            tag.map(|t| format!(" ({t})")).unwrap_or_default()
        ),
        hint: "read what landed (`git log -p ORIG..HEAD -- .ai/handoff`, ORIG being the commit \
               named above), carry it into your STATUS.md and LOG.md, then run \
               `git aahp commit --accept-landed`",
    })
}

/// Declines, before anything changes, a session the handoff would misdescribe (issue #15):
/// code staged while the STATUS summary still holds init's placeholder, and a session with
/// no LOG entry of its own and no `--log`. (Code with no STATUS.md update at all is the
/// drift the pre-commit gate refuses later.)
/// Refuses a commit that would sweep in code another live session staged: a staged path
/// owned by another handoff directory (another package of a monorepo) whose lock a live
/// session holds belongs to that session's commit, not this one (field notes, D5). Staged
/// code of packages nobody is working on is this session's to commit, and the gate judges
/// each package's drift.
fn refuse_other_sessions_code(
    ctx: &Context,
    repo: &Repo,
    dir: &HandoffDir,
    session_id: &str,
    index: &gix::index::File,
    changes: &[crate::git::Change],
) -> Result<()> {
    use crate::handoff::location;
    let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    let known = location::configured(repo)?;
    let discover = location::discovery_enabled(repo)?;
    let owners = location::owners(repo, &paths, &known, discover, |pkg| {
        Ok(Repo::index_has_dir(
            index,
            &location::join(pkg, crate::handoff::DEFAULT_DIR),
        ))
    })?;
    for (i, other) in owners.dirs.iter().enumerate() {
        if other.rel == dir.rel {
            continue;
        }
        let LockState::Held(held) = LockState::read(other)? else {
            continue;
        };
        if held.is_session(session_id) || held.is_stale(ctx.now) {
            continue;
        }
        let held = held.shown(other)?;
        let theirs: Vec<&str> = paths
            .iter()
            .zip(&owners.owner)
            .filter(|(_, o)| o.contains(&i) && !o.iter().any(|&j| owners.dirs[j].rel == dir.rel))
            .map(|(p, _)| *p)
            .collect();
        if theirs.is_empty() {
            continue;
        }
        let shown: Vec<String> = theirs
            .iter()
            .take(5)
            .map(|p| boundary::clean_line(p))
            .collect();
        return Err(Error::Declined {
            reason: format!(
                "{} staged in {} belong{} to the live session {} of {} ({}); nothing was changed or committed",
                shown.join(", "),
                other.package_root(),
                if theirs.len() == 1 { "s" } else { "" },
                boundary::clean_line(&held.session_id),
                boundary::clean_line(&held.agent),
                other.rel,
            ),
            hint: "leave that code to its session's `git aahp commit`, or unstage it here \
                   (`git restore --staged PATH`) and run `git aahp commit` again",
        });
    }
    Ok(())
}

fn session_precheck(
    repo: &Repo,
    dir: &HandoffDir,
    base: gix::ObjectId,
    args: &CommitArgs,
    changes: &[crate::git::Change],
) -> Result<()> {
    use crate::handoff::manifest::{INIT_PLACEHOLDER, section};
    use crate::handoff::provenance::session_entries;
    let status_path = dir.path_of("STATUS.md");
    // Read as lint reads them: a FIFO or device in place of a file is never opened here.
    let snap = worktree_snapshot(dir)?;
    let status = snap.text(dir, "STATUS.md")?;
    let handoff = format!("{}/", dir.rel);
    let package = dir.package_root();
    let code = changes.iter().any(|c| {
        !c.path.starts_with(&handoff)
            && (package.is_empty() || c.path.starts_with(&format!("{package}/")))
    });
    if code
        && status
            .and_then(|s| section(s, "summary"))
            .is_some_and(|s| s.contains(INIT_PLACEHOLDER))
    {
        return Err(Error::Declined {
            reason: format!(
                "{status_path}: the summary section still says \"{INIT_PLACEHOLDER}\" but code \
                     changed; nothing was changed or committed"
            ),
            hint: "write what this session did into the summary section of STATUS.md, then \
                       run `git aahp commit` again",
        });
    }
    if args.log.is_none() {
        let log_path = dir.path_of("LOG.md");
        let now = snap.text(dir, "LOG.md")?.unwrap_or_default();
        let before = repo
            .blob_at(base, &log_path)?
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        if session_entries(before.as_deref(), now).is_empty() {
            return Err(Error::Declined {
                reason: format!(
                    "{log_path} has no entry for this session; nothing was changed or committed"
                ),
                hint: "add an entry `## [YYYY-MM-DD] agent: title` at the top of LOG.md saying \
                       what was done and what is left, or pass `--log TEXT` to have one written",
            });
        }
    }
    Ok(())
}

/// Step 5a: stamps the provenance line into every LOG entry the session wrote (writing one
/// from `--log` first) and into the STATUS summary. Returns LOG.md as stamped when that
/// changed it (not written: the rotation writes it) and the STATUS text as written.
fn stamp_provenance(
    repo: &Repo,
    dir: &HandoffDir,
    base: gix::ObjectId,
    (log, took_over): (Option<&str>, Option<&(String, String)>),
    prov: &Provenance,
    today: &str,
    write: &transaction::steps::WriteFn<'_>,
) -> Result<(Option<String>, Option<String>)> {
    use crate::handoff::provenance::{
        prepend_entry, session_entries, stamp_entries, stamp_status, without_provenance,
    };
    let line = prov.line();
    let current = transaction::steps::read_text(dir, "LOG.md")?;
    let mut text = current.clone().unwrap_or_default();
    // The takeover happened at `begin`, before the session's own entry: it goes below it.
    // `prepend_entry` puts the text through the output boundary.
    if let Some((remote, holder)) = took_over {
        // The holder's fields came from the remote lease, which anyone who can push
        // `refs/aahp/lock/*` wrote; the lock file holding them is editable too: vetted
        // before they go into LOG.md (review s23 #8).
        let remote = boundary::vetted_line(dir, remote, "a remote name")?;
        let holder = boundary::vetted_line(dir, holder, "the holder's description")?;
        let entry = format!(
            "Took over a stale remote lease\nThis session began with `begin --remote {remote} --steal`: the lease of this handoff directory on `{remote}` was held by {holder}, past its expiry. That session never released it; its work may be unfinished or lost."
        );
        text = prepend_entry(&text, today, "git-aahp", &entry, &line);
    }
    if let Some(log) = log {
        text = prepend_entry(&text, today, &prov.agent, log, &line);
    }
    let before = repo
        .blob_at(base, &dir.path_of("LOG.md"))?
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    // In one pass: a journal of many new entries must not be re-read once per entry.
    text = stamp_entries(&text, &session_entries(before.as_deref(), &text), &line);
    let stamped_log = (current.as_deref() != Some(text.as_str())).then_some(text);
    let status = transaction::steps::read_text(dir, "STATUS.md")?;
    // Only a STATUS.md the session updated gets the line: an untouched one stays untouched,
    // so the gate's drift check still sees code committed without a status update.
    let words = |s: &str| {
        without_provenance(s)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let at_base = repo
        .blob_at(base, &dir.path_of("STATUS.md"))?
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    let updated = match (&status, &at_base) {
        (Some(now), Some(then)) => words(now) != words(then),
        _ => true,
    };
    match status
        .as_deref()
        .filter(|_| updated)
        .and_then(|s| stamp_status(s, &line))
    {
        Some(stamped) => {
            if status.as_deref() != Some(stamped.as_str()) {
                write("STATUS.md", stamped.as_bytes())?;
            }
            Ok((stamped_log, Some(stamped)))
        }
        None => Ok((stamped_log, status)),
    }
}

/// Undoes a commit that failed without crashing: the handoff files and their index entries
/// go back to how the session left them, a lock `commit` took is released, the journal is
/// removed. Returns the error to report, saying what was done.
fn abort(
    repo: &Repo,
    dir: &HandoffDir,
    journal: &Journal,
    kept_index: &KeptIndex,
    cause: Error,
) -> Error {
    match undo(repo, dir, journal, kept_index) {
        Ok(()) => Error::Other {
            context: format!(
                "nothing was committed; the handoff files and the index are as they were before \
                 `git aahp commit`{}",
                if journal.took_lock {
                    ""
                } else {
                    " and the session keeps its lock"
                }
            ),
            source: Some(Box::new(cause)),
        },
        Err(undo_err) => undo_failed(journal, &cause, &undo_err),
    }
}

/// Puts the handoff files and their index entries back as the journal recorded them, then
/// the index file itself as `commit` found it, releases a lock `commit` took and removes
/// the journal.
fn undo(repo: &Repo, dir: &HandoffDir, journal: &Journal, kept_index: &KeptIndex) -> Result<()> {
    let saved = gix::ObjectId::from_hex(journal.saved_commit.as_bytes())
        .map_err(|_| Error::other("the journal's saved commit id is malformed"))?;
    transaction::restore_dir(repo, dir, saved)?;
    let before: Vec<String> = journal
        .index_before
        .iter()
        .map(|(_, _, p)| p.clone())
        .collect();
    let current = repo.index_modes(&dir.rel)?;
    let now_staged: Vec<String> = current
        .iter()
        .map(|(_, _, p)| p.clone())
        .filter(|p| !before.contains(p))
        .collect();
    // Only entries that changed are set back: a commit that failed before staging leaves
    // the index file untouched.
    let changed: Vec<(String, String, String)> = journal
        .index_before
        .iter()
        .filter(|e| !current.contains(e))
        .cloned()
        .collect();
    repo.set_index_entries(&changed, &now_staged)?;
    // The entries are right again; staging and `git update-index` rewrote the file with new
    // cached stat data and a cache tree. Only when no one else staged anything meanwhile
    // (the entries equal the kept ones) does the kept file go back.
    repo.restore_index(kept_index)?;
    if journal.took_lock {
        lock::release(dir)?;
        SessionRecord::remove(repo, &dir.rel)?;
    }
    Journal::remove(repo, &dir.rel)
}

/// The error for a failure whose undo failed too: the saved commit is the way back.
fn undo_failed(journal: &Journal, cause: &Error, undo_err: &Error) -> Error {
    Error::Other {
        context: format!(
            "the commit failed ({cause}) and undoing its changes failed too ({undo_err}); \
             run `git aahp recover`: the session's files are saved in commit {}",
            journal.saved_commit
        ),
        source: None,
    }
}

/// The exit-3 error for a session whose remote lease is gone: who holds it now, if anyone.
fn lease_lost(repo: &Repo, dir: &HandoffDir, l: &lease::RemoteLease) -> Error {
    let now_held = match lease::read(repo, &l.remote, dir) {
        Ok(lease::RemoteHolder::Held(_, Ok(h))) => format!(
            "it is now held by {} (session {}, host {})",
            h.agent, h.session_id, h.host
        ),
        Ok(lease::RemoteHolder::Held(_, Err(why))) => {
            format!("it now holds an unreadable lease ({why})")
        }
        Ok(lease::RemoteHolder::Free) => "it was released".into(),
        Err(e) => format!("it could not be read ({e})"),
    };
    Error::Locked(Box::new(crate::error::LockHolder {
        agent: "another session".into(),
        session_id: "unknown".into(),
        host: None,
        started: None,
        expires: None,
        stale: false,
        since: format!(
            "this session's lease {} on `{}` was lost: {now_held}; nothing was committed, your files are as they were",
            l.refname, l.remote
        ),
    }))
}

fn interrupted(j: &Journal) -> Error {
    j.interrupted_error()
}

/// Step 10: the session tag. The commit is made, so a tag that cannot be created (signing
/// failed, say) is a warning, not a reason to leave the session unfinished.
fn tag_step(
    repo: &Repo,
    dir: &HandoffDir,
    commit: gix::ObjectId,
    session_id: &str,
    agent: &str,
    no_tag: bool,
    floor: u64,
) -> (Option<String>, Vec<String>) {
    if no_tag {
        return (None, Vec::new());
    }
    match tag_commit(repo, dir, commit, session_id, agent, floor) {
        Ok(t) => (Some(t), Vec::new()),
        Err(e) => (
            None,
            vec![format!("the session tag could not be created: {e}")],
        ),
    }
}

/// The floor [`tag_floor`] gives the session's tag (the lease the lock records), checked to
/// leave a number for it (exit 2 naming the session tag that takes the last one); nothing to
/// check with `--no-tag`.
fn tag_number_left(repo: &Repo, dir: &HandoffDir, no_tag: bool) -> Result<(u64, Vec<String>)> {
    if no_tag {
        return Ok((0, Vec::new()));
    }
    let lease = match LockState::read(dir)? {
        LockState::Held(l) => l.remote,
        _ => None,
    };
    let (floor, warnings) = tag_floor(repo, lease.as_ref(), false);
    transaction::check_tag_number_left(repo, floor)?;
    Ok((floor, warnings))
}

/// The number a session under a remote lease tags above: the highest session tag on the
/// lease's remote (0 without a lease, or when the remote cannot be read, said in a warning).
pub(crate) fn tag_floor(
    repo: &Repo,
    lease: Option<&lease::RemoteLease>,
    no_tag: bool,
) -> (u64, Vec<String>) {
    let Some(l) = lease.filter(|_| !no_tag) else {
        return (0, Vec::new());
    };
    match lease::remote_session_floor(repo, &l.remote) {
        Ok(n) => (n, Vec::new()),
        Err(e) => (
            0,
            vec![format!(
                "the session tags on `{}` could not be read ({e}); the tag's number was taken from this clone's tags only",
                l.remote
            )],
        ),
    }
}

/// Creates the next `aahp/session-N` tag on `commit` (above `floor` too), its message
/// carrying the checksum of the committed MANIFEST.json and its quick context (else the
/// commit subject).
pub(crate) fn tag_commit(
    repo: &Repo,
    dir: &HandoffDir,
    commit: gix::ObjectId,
    session_id: &str,
    agent: &str,
    floor: u64,
) -> Result<String> {
    let path = dir.path_of(MANIFEST);
    let bytes = repo.blob_at(commit, &path)?.unwrap_or_default();
    let quick = Manifest::parse_read_only(&path, &bytes)
        .ok()
        .and_then(|m| m.str_field("quick_context").map(String::from))
        .filter(|s| !s.trim().is_empty());
    let summary = match quick {
        Some(q) => q,
        None => repo
            .commit_message(commit)?
            .lines()
            .next()
            .unwrap_or_default()
            .to_string(),
    };
    let previous = transaction::chain::previous_for(repo, dir, commit)?;
    // Refs are shared by every worktree and clone-local sessions run in parallel: another
    // session may take the number between reading the tags and creating this one. `git tag`
    // never overwrites, so a name that exists by then is read again and the next tried.
    let mut attempts = 0;
    loop {
        let name = transaction::next_tag_name_above(repo, floor)?;
        let text = transaction::tag_message(&transaction::TagFields {
            tag: &name,
            manifest_checksum: &checksum(&bytes),
            session_id,
            agent,
            dir: &dir.rel,
            previous: previous.as_ref().map(|(t, c)| (t.as_str(), c.as_str())),
            summary: &summary,
        });
        // Tests meet here to take the number first, as a parallel session would.
        crate::failpoint::rendezvous("tag:named");
        match repo.tag_annotated(&name, commit, &text) {
            Ok(()) => return Ok(name),
            Err(e) => {
                attempts += 1;
                let taken = repo.find_ref(&format!("refs/tags/{name}"))?.is_some();
                if !taken || attempts == MAX_TAG_ATTEMPTS {
                    return Err(e.into());
                }
            }
        }
    }
}

/// How many session numbers a commit tries when other sessions keep taking the next one.
const MAX_TAG_ATTEMPTS: usize = 32;
