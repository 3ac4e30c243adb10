//! `git aahp begin`: phase one of a session — take `HANDOFF.lock` atomically and print the
//! session id. It never takes over an existing lock, stale or not (SPEC §3.3).

use std::io::{self, Write};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::Context;
use crate::error::{Error, Result};
use crate::handoff::LOCK;
use crate::output::{Report, Style, boundary, escape_untrusted};
use crate::transaction::journal::{Journal, SessionRecord};
use crate::transaction::lease;
use crate::transaction::lock::{self, LockState};
use crate::transaction::require_branch_head;
use crate::transaction::writer::WriteLock;

/// The longest `--wait`: a year, in seconds. Longer waits overflowed the clock (review s23
/// item 17) and mean "forever" anyway.
pub const MAX_WAIT_SECONDS: u64 = 366 * 86_400;

fn wait_too_long() -> Error {
    Error::Usage(format!(
        "`--wait` is too long: at most {MAX_WAIT_SECONDS} seconds (a year)"
    ))
}

/// Default lock lifetime when neither `--ttl` nor git config `aahp.lockTtl` is set.
pub const DEFAULT_TTL: &str = lock::DEFAULT_TTL;

/// Start a session: take HANDOFF.lock (exclusive) and print the session id.
///
/// Pass the id to `git aahp commit --session-id` (or export it as `AAHP_SESSION_ID`) at the end
/// of the session. A held lock exits 3 naming its holder; a lock past its expiry is reported
/// as stale, and only `git aahp recover` clears it.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BeginArgs {
    /// The agent starting the session.
    #[arg(long, env = "AAHP_AGENT")]
    pub agent: Option<String>,
    /// Use this session id instead of a generated one.
    #[arg(long, env = "AAHP_SESSION_ID")]
    pub session_id: Option<String>,
    /// The session phase.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(crate::handoff::manifest::PHASES))]
    pub phase: Option<String>,
    /// Handoff files the session intends to update (recorded in the lock).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub updating: Vec<String>,
    /// How long the lock protects the session: 90s, 30m, 4h, 1d (default: git config
    /// aahp.lockTtl, else 4h).
    #[arg(long, value_name = "DURATION")]
    pub ttl: Option<String>,
    /// When the lock is held, retry for up to SECONDS before giving up.
    #[arg(long, value_name = "SECONDS")]
    pub wait: Option<u64>,
    /// Also take a lease on this git remote (one ref under refs/aahp/lock/ per handoff
    /// directory), so agents on other clones and machines are excluded too.
    #[arg(long, value_name = "NAME")]
    pub remote: Option<String>,
    /// With --remote: take over a lease that is past its expiry (reported, never silent).
    #[arg(long, requires = "remote")]
    pub steal: bool,
}

/// The result of `git aahp begin`.
#[derive(Debug, Serialize)]
pub struct BeginReport {
    /// The session id to pass to `commit`.
    pub session_id: String,
    /// The agent.
    pub agent: String,
    /// Repository-relative path of the lock.
    pub lock: String,
    /// When the session started.
    pub started: String,
    /// When the lock expires.
    pub expires: String,
    /// HEAD when the session began.
    pub base_commit: Option<String>,
    /// The checksum of the committed MANIFEST.json the session starts from.
    pub base_manifest: Option<String>,
    /// The files the session announced.
    pub updating: Vec<String>,
    /// Seconds spent waiting for another session's lock.
    pub waited_seconds: u64,
    /// The lease ref taken on the remote (`--remote`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote_lease: Option<String>,
    /// The holder of the stale remote lease taken over (`--steal`): agent, session, host,
    /// expiry.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "boundary::opt_line"
    )]
    pub took_over: Option<String>,
    /// What the session should know before it works (with `--remote`: the remote's branch
    /// holds handoff commits this branch lacks).
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "boundary::list"
    )]
    pub warnings: Vec<String>,
}

impl Report for BeginReport {
    fn command(&self) -> &'static str {
        "begin"
    }

    fn write_human(&self, w: &mut dyn Write, style: &Style) -> io::Result<()> {
        writeln!(w, "{}", self.session_id)?;
        writeln!(
            w,
            "{} {} held by {} until {}",
            style.ok("locked"),
            self.lock,
            escape_untrusted(&self.agent),
            self.expires
        )?;
        if let Some(r) = &self.remote_lease {
            writeln!(w, "{} {r}", style.ok("leased"))?;
        }
        crate::output::write_warnings(w, style, &self.warnings)?;
        if let Some(t) = &self.took_over {
            writeln!(
                w,
                "{}: took over the stale remote lease of {}",
                style.warn("warning"),
                escape_untrusted(t)
            )?;
        }
        writeln!(
            w,
            "hint: end the session with `git aahp commit -m MESSAGE --session-id {}`",
            self.session_id
        )
    }
}

/// Runs `git aahp begin`.
pub fn run(ctx: &Context, args: &BeginArgs) -> Result<BeginReport> {
    let repo = ctx.repo()?;
    let dir = ctx.existing_handoff()?;
    boundary::admit(&dir, "--agent", args.agent.as_deref())?;
    boundary::admit(&dir, "--phase", args.phase.as_deref())?;
    if args.wait.is_some_and(|w| w > MAX_WAIT_SECONDS) {
        return Err(wait_too_long());
    }
    // An id that cannot name a ref is bad input (exit 2) whatever else it holds: checked
    // before the linter, which would call a control character in it a finding (exit 1).
    if let Some(id) = args.session_id.as_deref().filter(|s| !s.trim().is_empty()) {
        lock::check_session_id(id).map_err(Error::Usage)?;
    }
    boundary::admit(&dir, "--session-id", args.session_id.as_deref())?;
    let head = require_branch_head(repo, "`git aahp begin`")?;
    let ttl_text = args
        .ttl
        .clone()
        .or_else(|| repo.config_string("aahp.lockTtl"))
        .unwrap_or_else(|| DEFAULT_TTL.into());
    let ttl = lock::parse_ttl(&ttl_text).map_err(Error::Usage)?;
    for f in &args.updating {
        // A handoff file's name: one plain name (no path, no `..`), no longer than a file
        // name can be, and nothing the output boundary would have to change to show it (a
        // line break, a control character, a workflow command, a secret): the name is
        // recorded in the lock and echoed (review s23 item 18).
        if !crate::handoff::manifest::is_safe_file_key(f)
            || f.len() > 255
            || f.starts_with('-')
            || boundary::clean_line(f) != *f
        {
            return Err(Error::Usage(format!(
                "--updating takes the name of a file in the handoff directory (STATUS.md, \
                 not a path), got `{}`",
                boundary::clean_line(f)
            )));
        }
    }
    let agent = args
        .agent
        .clone()
        .filter(|a| !a.trim().is_empty())
        .unwrap_or_else(|| "unknown".into());
    let session_id = match &args.session_id {
        Some(s) if s.trim().is_empty() => {
            return Err(Error::Usage("--session-id must not be empty".into()));
        }
        Some(s) => s.clone(),
        None => lock::new_session_id(ctx.now),
    };
    boundary::admit(&dir, "--remote", args.remote.as_deref())?;
    let mut new = lock::new_lock(
        &agent,
        &session_id,
        ctx.now,
        ttl,
        Some(head.to_string()),
        args.updating.clone(),
        args.phase.clone(),
    )?;
    // The ticket: the handoff this session starts from. `commit` compares it with what the
    // branch holds then, so a handoff that landed meanwhile is not silently overwritten.
    new.base_manifest = repo
        .blob_at(head, &dir.path_of(crate::handoff::MANIFEST))?
        .map(|b| crate::handoff::checksum(&b));

    let start = Instant::now();
    // Checked before anything is taken; `checked_add` as well, since what an `Instant` can
    // reach depends on the platform.
    let deadline = args
        .wait
        .map(|s| {
            start
                .checked_add(Duration::from_secs(s))
                .ok_or_else(wait_too_long)
        })
        .transpose()?;
    let mut backoff = Duration::from_millis(50);
    let stolen;
    loop {
        // An interrupted commit must be recovered before anyone starts over it.
        if let Some(j) = Journal::load(repo, &dir.rel)? {
            return Err(j.interrupted_error());
        }
        // The remote lease first (only while no local lock is seen), then the local lock,
        // which records the lease; a local lock that cannot be taken gives the lease back.
        let mut attempt = new.clone();
        let mut taken = None;
        if let Some(remote) = &args.remote
            && !LockState::read(&dir)?.is_present()
        {
            match lease::take(repo, &dir, &new, remote, args.steal, ctx.now) {
                Ok(mut t) => {
                    // The holder taken over is recorded vetted: `commit` writes it into
                    // LOG.md (review s23 #8).
                    if let Some(h) = &t.stolen_from {
                        match lease::describe_holder_vetted(&dir, h) {
                            Ok(d) => t.lease.took_over = Some(d),
                            Err(e) => {
                                let _ = lease::release(repo, &t.lease);
                                return Err(e);
                            }
                        }
                    }
                    attempt.remote = Some(t.lease.clone());
                    taken = Some(t);
                }
                Err(e @ Error::Locked(_)) => match deadline {
                    Some(d) if Instant::now() < d => {
                        std::thread::sleep(
                            backoff.min(d.saturating_duration_since(Instant::now())),
                        );
                        backoff = (backoff * 2).min(Duration::from_secs(1));
                        continue;
                    }
                    _ => return Err(e),
                },
                Err(e) => return Err(e),
            }
        }
        if lock::acquire(&dir, &attempt)? {
            new = attempt;
            stolen = taken.and_then(|t| t.stolen_from);
            break;
        }
        if let Some(t) = &taken {
            let _ = lease::release(repo, &t.lease);
        }
        let current = LockState::read(&dir)?;
        // A lock taken for one write whose taker no longer holds the directory's write lock
        // was left by a crash mid-write: it belongs to no session, so it is cleared.
        if let LockState::Held(held) = &current
            && held.write.is_some()
            && let Some(_serial) = WriteLock::try_acquire(repo, &dir, "git aahp begin")?
            && matches!(LockState::read(&dir)?, LockState::Held(h) if h.write.is_some())
        {
            lock::release(&dir)?;
            continue;
        }
        match deadline {
            Some(d) if Instant::now() < d => {
                std::thread::sleep(backoff.min(d.saturating_duration_since(Instant::now())));
                backoff = (backoff * 2).min(Duration::from_secs(1));
            }
            _ => return Err(current.locked_error(&dir, ctx.now)),
        }
    }
    let record = SessionRecord {
        dir: dir.rel.clone(),
        session_id: session_id.clone(),
    };
    if let Err(e) = record.save(repo) {
        // The lock was published a moment ago and nothing names its session yet (the id is
        // never printed): a `begin` that fails here takes back what it took instead of
        // leaving a lock that blocks its rerun and `recover` (review rob35 #3).
        let _ = lock::release(&dir);
        if let Some(l) = &new.remote {
            let _ = lease::release(repo, l);
        }
        return Err(e);
    }
    let remote_lease = new.remote.as_ref().map(|l| l.refname.clone());
    let warnings = args
        .remote
        .as_deref()
        .and_then(|remote| remote_holds_more(repo, &dir, remote, head))
        .into_iter()
        .collect();
    Ok(BeginReport {
        session_id,
        agent,
        lock: dir.path_of(LOCK),
        started: new.started,
        expires: new.expires,
        base_commit: new.base_commit,
        base_manifest: new.base_manifest,
        updating: new.updating,
        waited_seconds: start.elapsed().as_secs(),
        remote_lease,
        took_over: stolen.and(new.remote.as_ref().and_then(|l| l.took_over.clone())),
        warnings,
    })
}

/// With a lease, whether the remote's branch of HEAD's name holds handoff commits HEAD lacks
/// (one `ls-remote`): a session that begins there starts from an older handoff than the
/// one the lease's other clones committed, and learns it only at its push (review atk39
/// #6: `begin --remote` said nothing). A tip this clone has not fetched is said too: what
/// it holds cannot be known here. Code-only commits, and a remote that cannot be read
/// (the lease was just taken there), say nothing.
fn remote_holds_more(
    repo: &crate::git::Repo,
    dir: &crate::handoff::HandoffDir,
    remote: &str,
    head: gix::ObjectId,
) -> Option<String> {
    let branch = repo.head_branch().ok()??;
    let tip = repo.remote_ref(remote, &branch).ok()??;
    if tip == head {
        return None;
    }
    let name = branch.strip_prefix("refs/heads/").unwrap_or(&branch);
    let short = crate::git::Repo::short(tip);
    let Ok(behind) = repo.is_ancestor(tip, head).map(|held| !held) else {
        return Some(format!(
            "`{remote}`'s {name} is at {short}, which this clone has not fetched: it may hold \
             handoff sessions this one does not start from; fetch and merge it (`git pull \
             {remote} {name}`) before you change the handoff"
        ));
    };
    if !behind {
        return None;
    }
    let base = repo.merge_base(tip, head).ok()?;
    let inside = format!("{}/", dir.rel);
    let touched = repo
        .commit_changes(base, tip)
        .ok()?
        .iter()
        .any(|c| c.path.starts_with(&inside));
    touched.then(|| {
        format!(
            "`{remote}`'s {name} ({short}) holds handoff commits this branch does not: this \
             session starts from an older handoff; merge it (`git pull {remote} {name}`) \
             before you change the handoff"
        )
    })
}
