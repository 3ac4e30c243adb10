//! `git aahp task`: the v3 task list in MANIFEST.json (`tasks`, `next_task_id`) — add, claim,
//! finish, block and list tasks under `HANDOFF.lock`, never reusing an id (SPEC §3.13). Every
//! other manifest field is kept as it is; only the token budget, which counts the manifest's
//! own size, is refreshed.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::Context;
pub use super::SessionOpts;
use crate::clock;
use crate::error::{Error, ExitStatus, Result};
use crate::failpoint;
use crate::git::Repo;
use crate::handoff::checksum_cache::BlobCache;
use crate::handoff::manifest::Manifest;
use crate::handoff::{HandoffDir, MANIFEST, Source, write_atomic};
use crate::output::{Report, Style, boundary, escape_untrusted};
use crate::transaction::SessionClaim;
use crate::transaction::lease::RemoteLease;
use crate::transaction::writer::HandoffWrite;

/// Task statuses the schema allows.
pub const STATUSES: &[&str] = &["ready", "in_progress", "blocked", "done", "cancelled"];
/// Task priorities the schema allows.
pub const PRIORITIES: &[&str] = &["critical", "high", "medium", "low"];
/// Longest `title` and `blocked_by` the schema allows, in characters.
pub const TEXT_MAX: usize = 200;

/// Add, claim, finish, block or list the tasks in MANIFEST.json (AAHP v3).
///
/// Changes are made under HANDOFF.lock: the lock of this session (see `begin`), or a lock
/// taken and released around the write when none is held. A lock held by another session
/// exits 3. Ids are `T-NNN` and are never reused.
#[derive(Debug, Clone, clap::Args)]
pub struct TaskArgs {
    #[command(subcommand)]
    pub action: TaskAction,
}

/// What `git aahp task` does.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum TaskAction {
    /// Add a task (status `ready`) with the next free id.
    Add(TaskAddArgs),
    /// Mark a task `in_progress` and assign it to an agent.
    Claim(TaskClaimArgs),
    /// Mark a task `done`, recording when.
    Done(TaskDoneArgs),
    /// Mark a task `blocked`, recording why.
    Block(TaskBlockArgs),
    /// List the open tasks (ready, in progress, blocked).
    List(TaskListArgs),
}

/// Arguments of `git aahp task add`.
#[derive(Debug, Clone, clap::Args)]
pub struct TaskAddArgs {
    /// The task's title (at most 200 characters, one line).
    pub title: String,
    /// The task's priority.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(PRIORITIES))]
    pub priority: Option<String>,
    /// Tasks that must be done first (existing ids; repeat or separate with commas).
    #[arg(long = "depends-on", value_name = "ID", num_args = 1.., value_delimiter = ',')]
    pub depends_on: Vec<String>,
    /// The agent making the change.
    #[arg(long, env = "AAHP_AGENT")]
    pub agent: Option<String>,
    #[command(flatten)]
    pub session: SessionOpts,
}

/// Arguments of `git aahp task claim`.
#[derive(Debug, Clone, clap::Args)]
pub struct TaskClaimArgs {
    /// The task id (`T-001`).
    pub id: String,
    /// The agent taking the task [default: the agent holding this session's lock].
    #[arg(long, env = "AAHP_AGENT")]
    pub agent: Option<String>,
    /// Take the task from another agent that has it in progress (reported, never silent);
    /// without it such a claim is refused (exit 1).
    #[arg(long)]
    pub steal: bool,
    #[command(flatten)]
    pub session: SessionOpts,
}

/// Arguments of `git aahp task done`.
#[derive(Debug, Clone, clap::Args)]
pub struct TaskDoneArgs {
    /// The task id (`T-001`).
    pub id: String,
    /// The agent making the change.
    #[arg(long, env = "AAHP_AGENT")]
    pub agent: Option<String>,
    #[command(flatten)]
    pub session: SessionOpts,
}

/// Arguments of `git aahp task block`.
#[derive(Debug, Clone, clap::Args)]
pub struct TaskBlockArgs {
    /// The task id (`T-001`).
    pub id: String,
    /// What blocks it (at most 200 characters, one line).
    #[arg(long)]
    pub reason: String,
    /// The agent making the change.
    #[arg(long, env = "AAHP_AGENT")]
    pub agent: Option<String>,
    #[command(flatten)]
    pub session: SessionOpts,
}

/// Arguments of `git aahp task list`.
#[derive(Debug, Clone, clap::Args)]
pub struct TaskListArgs {
    /// Also list done and cancelled tasks.
    #[arg(long)]
    pub all: bool,
}

/// One task as reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskView {
    /// `T-NNN` (a manifest key: anyone's text).
    #[serde(serialize_with = "boundary::line")]
    pub id: String,
    /// The title.
    #[serde(serialize_with = "boundary::line")]
    pub title: String,
    /// `ready`, `in_progress`, `blocked`, `done` or `cancelled` (as written).
    #[serde(serialize_with = "boundary::line")]
    pub status: String,
    /// The priority, if set.
    #[serde(serialize_with = "boundary::opt_line")]
    pub priority: Option<String>,
    /// The agent it is assigned to.
    #[serde(serialize_with = "boundary::opt_line")]
    pub assigned_to: Option<String>,
    /// Ids it depends on.
    #[serde(serialize_with = "boundary::list")]
    pub depends_on: Vec<String>,
    /// What blocks it.
    #[serde(serialize_with = "boundary::opt_line")]
    pub blocked_by: Option<String>,
    /// When it was created (RFC 3339, as written).
    #[serde(serialize_with = "boundary::opt_line")]
    pub created: Option<String>,
    /// When it was completed (RFC 3339, as written).
    #[serde(serialize_with = "boundary::opt_line")]
    pub completed: Option<String>,
}

impl TaskView {
    pub(crate) fn from_value(id: &str, t: &Value) -> TaskView {
        let s = |k: &str| t.get(k).and_then(Value::as_str).map(String::from);
        TaskView {
            id: id.to_string(),
            title: s("title").unwrap_or_default(),
            status: s("status").unwrap_or_else(|| "unknown".into()),
            priority: s("priority"),
            assigned_to: s("assigned_to"),
            depends_on: depends_of(t),
            blocked_by: s("blocked_by"),
            created: s("created"),
            completed: s("completed"),
        }
    }

    /// True unless the task is `done` or `cancelled`.
    pub fn is_open(&self) -> bool {
        !matches!(self.status.as_str(), "done" | "cancelled")
    }
}

/// The result of `git aahp task`.
#[derive(Debug, Serialize)]
pub struct TaskReport {
    /// `add`, `claim`, `done`, `block` or `list`.
    pub action: &'static str,
    /// Repository-relative path of the manifest.
    #[serde(serialize_with = "boundary::line")]
    pub path: String,
    /// The task changed (all but `list`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskView>,
    /// Whether the manifest was rewritten.
    pub changed: bool,
    /// How the lock was held: `session` (this session's) or `taken` (taken and released
    /// around the write); absent for `list`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lock: Option<&'static str>,
    /// `next_task_id` after the command.
    pub next_task_id: Option<u64>,
    /// `list`: the tasks shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Vec<TaskView>>,
    /// `list`: how many tasks the manifest holds in all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<usize>,
    /// Things worth knowing that did not stop the command (they name agents, remotes).
    #[serde(serialize_with = "boundary::list")]
    pub warnings: Vec<String>,
}

impl Report for TaskReport {
    fn command(&self) -> &'static str {
        "task"
    }

    fn write_human(&self, w: &mut dyn Write, style: &Style) -> io::Result<()> {
        if let Some(tasks) = &self.tasks {
            write_list(
                w,
                tasks,
                self.total.unwrap_or(tasks.len()),
                self.next_task_id,
            )?;
        } else if let Some(t) = &self.task {
            let title = escape_untrusted(&t.title);
            let line = match (self.action, self.changed) {
                (_, false) => format!("{} is already {}; nothing changed", t.id, t.status),
                ("add", _) => format!("{} {}: {title}", style.ok("added"), t.id),
                ("claim", _) => format!(
                    "{} {} for {}: {title}",
                    style.ok("claimed"),
                    t.id,
                    escape_untrusted(t.assigned_to.as_deref().unwrap_or("?"))
                ),
                ("done", _) => format!(
                    "{} {} at {}: {title}",
                    style.ok("done"),
                    t.id,
                    t.completed.as_deref().unwrap_or("?")
                ),
                _ => format!(
                    "{} {}: {title} (blocked by: {})",
                    style.warn("blocked"),
                    t.id,
                    escape_untrusted(t.blocked_by.as_deref().unwrap_or("?"))
                ),
            };
            writeln!(w, "{line}")?;
        }
        crate::output::write_warnings(w, style, &self.warnings)?;
        Ok(())
    }

    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}

fn write_list(
    w: &mut dyn Write,
    tasks: &[TaskView],
    total: usize,
    next: Option<u64>,
) -> io::Result<()> {
    let next = next.map_or(String::new(), |n| format!("; next id {}", format_id(n)));
    if tasks.is_empty() {
        return writeln!(w, "no open tasks ({total} in total{next})");
    }
    writeln!(
        w,
        "{:<7} {:<12} {:<9} {:<14} TITLE",
        "ID", "STATUS", "PRIORITY", "ASSIGNED"
    )?;
    for t in tasks {
        let mut extra = String::new();
        if !t.depends_on.is_empty() {
            extra = format!(" [after {}]", t.depends_on.join(", "));
        }
        if let Some(b) = &t.blocked_by {
            extra = format!("{extra} [blocked by: {b}]");
        }
        writeln!(
            w,
            "{:<7} {:<12} {:<9} {:<14} {}",
            escape_untrusted(&t.id),
            escape_untrusted(&t.status),
            escape_untrusted(t.priority.as_deref().unwrap_or("-")),
            escape_untrusted(t.assigned_to.as_deref().unwrap_or("-")),
            escape_untrusted(&format!("{}{extra}", t.title))
        )?;
    }
    writeln!(w, "{} shown of {total}{next}", tasks.len())
}

/// Runs `git aahp task`.
pub fn run(ctx: &Context, args: &TaskArgs) -> Result<TaskReport> {
    if let TaskAction::List(a) = &args.action {
        return list(ctx, a);
    }
    // What the command line adds is admitted against this directory's `.aiignore` too.
    let dir = ctx.existing_handoff()?;
    match &args.action {
        TaskAction::List(_) => unreachable!("handled above"),
        TaskAction::Add(a) => {
            let title = check_text(&dir, "the title", &a.title)?;
            for d in &a.depends_on {
                check_id(d)?;
            }
            let claim = claim_of(&dir, a.agent.as_ref(), &a.session)?;
            let queued = queued_ids(&dir)?;
            mutate(ctx, "add", &claim, |m, c| {
                add(
                    m,
                    c,
                    &title,
                    a.priority.as_deref(),
                    &a.depends_on,
                    queued,
                    ctx,
                )
            })
        }
        TaskAction::Claim(a) => {
            check_id(&a.id)?;
            let claim = claim_of(&dir, a.agent.as_ref(), &a.session)?;
            mutate(ctx, "claim", &claim, |m, c| {
                let agent = match (&a.agent, &c.holder) {
                    (Some(given), _) => given.clone(),
                    // The lock is a file anyone can edit: its agent is admitted like one
                    // given on the command line before it lands in the manifest.
                    (None, Some(holder)) => {
                        boundary::admit(&dir, "the agent HANDOFF.lock names", Some(holder))?;
                        holder.clone()
                    }
                    (None, None) => {
                        return Err(Error::Usage(
                            "`task claim` needs --agent (or AAHP_AGENT) when this session \
                             holds no lock"
                                .into(),
                        ));
                    }
                };
                claim_task(m, c, &a.id, &agent, a.steal)
            })
        }
        TaskAction::Done(a) => {
            check_id(&a.id)?;
            let claim = claim_of(&dir, a.agent.as_ref(), &a.session)?;
            mutate(ctx, "done", &claim, |m, c| {
                finish(m, c, &a.id, &clock::format_rfc3339(ctx.now))
            })
        }
        TaskAction::Block(a) => {
            check_id(&a.id)?;
            let reason = check_text(&dir, "--reason", &a.reason)?;
            let claim = claim_of(&dir, a.agent.as_ref(), &a.session)?;
            mutate(ctx, "block", &claim, |m, c| block(m, c, &a.id, &reason))
        }
    }
}

/// The caller's claim on the session; an agent name given on the command line lands in the
/// manifest, so it is admitted through the boundary first.
fn claim_of(
    dir: &HandoffDir,
    agent: Option<&String>,
    session: &SessionOpts,
) -> Result<SessionClaim> {
    boundary::admit(dir, "--agent", agent.map(String::as_str))?;
    Ok(SessionClaim {
        session_id: session.session_id.clone(),
        agent: agent.cloned(),
    })
}

fn list(ctx: &Context, args: &TaskListArgs) -> Result<TaskReport> {
    let dir = ctx.existing_handoff()?;
    let (manifest, path) = load(ctx.repo()?, &dir)?;
    let all = task_views(&manifest, &path)?;
    let total = all.len();
    let tasks: Vec<TaskView> = all
        .into_iter()
        .filter(|t| args.all || t.is_open())
        .collect();
    Ok(TaskReport {
        action: "list",
        path,
        task: None,
        changed: false,
        lock: None,
        next_task_id: next_id(&manifest, &dir.path_of(MANIFEST), None).ok(),
        tasks: Some(tasks),
        total: Some(total),
        warnings: Vec::new(),
    })
}

fn load(repo: &Repo, dir: &HandoffDir) -> Result<(Manifest, String)> {
    let path = dir.path_of(MANIFEST);
    let snap = dir.snapshot(repo, Source::Worktree)?;
    let manifest =
        Manifest::from_snapshot(dir, &snap)?.ok_or_else(|| Error::NoManifest(dir.rel.clone()))?;
    Ok((manifest, path))
}

/// Returns every task, refusing a `tasks` field that is neither a map nor a list.
fn task_views(m: &Manifest, path: &str) -> Result<Vec<TaskView>> {
    match m.doc.get("tasks") {
        None | Some(Value::Object(_) | Value::Array(_)) => Ok(m
            .tasks()
            .into_iter()
            .map(|(id, t)| TaskView::from_value(&id, t))
            .collect()),
        Some(_) => Err(Error::invalid(
            path,
            None,
            "`tasks` must be an object (id → task) or a list of tasks",
        )),
    }
}

/// What a change sees besides the manifest, and the warnings it leaves.
struct Change {
    /// Repository-relative path of the manifest (for messages).
    path: String,
    /// The line of its `next_task_id`, for a message about the value.
    next_id_line: Option<usize>,
    /// The agent of this session's lock, when the session holds it.
    holder: Option<String>,
    /// The remote lease that session holds (`begin --remote`): new ids are reserved there.
    lease: Option<RemoteLease>,
    warnings: Vec<String>,
}

/// What a change did to one task.
struct Outcome {
    id: String,
    changed: bool,
}

/// Runs `change` on the manifest under the lock and writes the result atomically.
///
/// # Crash safety
/// The manifest is replaced by rename, so it is either the old or the new document. A lock
/// taken here is released afterwards, also when the change fails; a crash in between leaves
/// it for `git aahp recover`.
fn mutate(
    ctx: &Context,
    action: &'static str,
    claim: &SessionClaim,
    change: impl FnOnce(&mut Manifest, &mut Change) -> Result<Outcome>,
) -> Result<TaskReport> {
    let repo = ctx.repo()?;
    let dir = ctx.existing_handoff()?;
    let write = HandoffWrite::begin(
        repo,
        &dir,
        claim,
        ctx.now,
        &format!("git aahp task {action}"),
        &[MANIFEST],
    )?;
    failpoint::hit("task:locked");
    let holder = write.holder().map(|h| h.agent.clone());
    let lease = write.holder().and_then(|h| h.remote.clone());
    let lock = if write.took_lock() {
        "taken"
    } else {
        "session"
    };
    let mut report = apply(repo, &dir, action, (holder, lease), change)?;
    if let Some(crashed) = write.taken_over() {
        report.warnings.push(format!(
            "took over the HANDOFF.lock a crashed `{crashed}` left behind"
        ));
    }
    write.finish()?;
    report.lock = Some(lock);
    Ok(report)
}

fn apply(
    repo: &Repo,
    dir: &HandoffDir,
    action: &'static str,
    (holder, lease): (Option<String>, Option<RemoteLease>),
    change: impl FnOnce(&mut Manifest, &mut Change) -> Result<Outcome>,
) -> Result<TaskReport> {
    let snap = dir.snapshot(repo, Source::Worktree)?;
    let path = dir.path_of(MANIFEST);
    let mut manifest =
        Manifest::from_snapshot(dir, &snap)?.ok_or_else(|| Error::NoManifest(dir.rel.clone()))?;
    task_views(&manifest, &path)?;
    let before = manifest.doc.clone();
    let next_id_line = snap
        .text(dir, MANIFEST)?
        .and_then(|text| crate::handoff::json::key_line(text, "next_task_id"));
    let mut c = Change {
        path: path.clone(),
        next_id_line,
        holder,
        lease,
        warnings: Vec::new(),
    };
    let outcome = change(&mut manifest, &mut c)?;
    let changed = manifest.doc != before;
    if changed {
        // What the change keeps from the old manifest and the schema refuses (a 7 MB
        // `summary`, a negative `lines`) is bad input, as in `commit`: nothing is written.
        if let Some(problem) =
            crate::schema::validate_manifest(&Value::Object(manifest.doc.clone()))
                .into_iter()
                .next()
        {
            return Err(Error::invalid(
                path,
                None,
                format!(
                    "{problem}; nothing was written (`git aahp manifest` regenerates what it owns, other fields need a hand edit)"
                ),
            ));
        }
        // The budget counts the manifest itself, which just grew or shrank; the checksums
        // do not cover tasks, so `manifest --check` stays as it was.
        if manifest.doc.contains_key("token_budget") {
            let mut counts = BlobCache::token_counts(repo);
            manifest.refresh_token_budget(dir, &snap, &mut counts)?;
            counts.save();
        }
        write_atomic(&dir.abs.join(MANIFEST), &manifest.to_bytes()).map_err(|source| {
            Error::Write {
                path: path.clone(),
                source,
            }
        })?;
        failpoint::hit("task:written");
    }
    let task = manifest
        .tasks()
        .into_iter()
        .find(|(id, _)| *id == outcome.id)
        .map(|(id, t)| TaskView::from_value(&id, t));
    Ok(TaskReport {
        action,
        path: path.clone(),
        task,
        changed: outcome.changed && changed,
        lock: None,
        next_task_id: next_id(&manifest, &path, None).ok(),
        tasks: None,
        total: None,
        warnings: c.warnings,
    })
}

/// Refuses an id that is not `T-` followed by at least three digits.
fn check_id(id: &str) -> Result<()> {
    if is_task_id(id) {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "`{id}` is not a task id (expected T- and at least three digits, e.g. T-001)"
        )))
    }
}

/// True for `T-NNN` (at least three digits).
pub fn is_task_id(id: &str) -> bool {
    id.strip_prefix("T-")
        .is_some_and(|n| n.len() >= 3 && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Formats a task number as an id (`7` → `T-007`).
pub fn format_id(n: u64) -> String {
    format!("T-{n:03}")
}

/// Returns the number of an id written `T-<digits>` (any width, so `T-7` counts as taken).
fn id_number(id: &str) -> Option<u64> {
    id.strip_prefix("T-")
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse().ok())
}

/// One line of text within the schema's length, without control characters.
fn check_text(dir: &HandoffDir, what: &str, s: &str) -> Result<String> {
    let t = s.trim();
    if t.is_empty() {
        return Err(Error::Usage(format!("{what} must not be empty")));
    }
    boundary::admit(dir, what, Some(t))?;
    if t.chars().any(char::is_control) {
        return Err(Error::Usage(format!(
            "{what} must be one line without control characters"
        )));
    }
    let n = t.chars().count();
    if n > TEXT_MAX {
        return Err(Error::Usage(format!(
            "{what} is {n} characters; the manifest allows at most {TEXT_MAX}"
        )));
    }
    Ok(t.to_string())
}

/// Returns the number the next task gets: `next_task_id`, but never an id already used. A
/// value that is not one is refused naming `line`, where the manifest holds it.
fn next_id(m: &Manifest, path: &str, line: Option<usize>) -> Result<u64> {
    let recorded = match m.doc.get("next_task_id") {
        None => 1,
        Some(v) => m.next_task_id().filter(|n| *n >= 1).ok_or_else(|| {
            // Redacted on the value as written, then cut (review s23 item 10): cut or
            // JSON-escaped first, a secret no longer reads as one.
            let shown = match v {
                serde_json::Value::String(s) => {
                    format!("\"{}\"", crate::output::boundary::shorten(s, 40))
                }
                other => crate::output::boundary::shorten(&other.to_string(), 40),
            };
            Error::invalid(
                path,
                line,
                format!(
                    "`next_task_id` is {shown}, not a positive integer below 2^64: set it to the number the next task should get"
                ),
            )
        })?,
    };
    let highest = m
        .tasks()
        .iter()
        .filter_map(|(id, _)| id_number(id))
        .max()
        .unwrap_or(0);
    let after_highest = highest.checked_add(1).ok_or_else(|| counter_full(path))?;
    Ok(recorded.max(after_highest))
}

/// The highest `T-NNN` id the work queue uses in its headings (`NEXT_ACTIONS.md`, `BACKLOG.md`),
/// or 0.
fn queued_ids(dir: &HandoffDir) -> Result<u64> {
    let mut highest = 0;
    for name in ["NEXT_ACTIONS.md", "BACKLOG.md"] {
        let Some(text) = crate::transaction::steps::read_text(dir, name)? else {
            continue;
        };
        for line in text.lines() {
            let Some(h) = line.strip_prefix('#') else {
                continue;
            };
            let h = h.trim_start_matches('#').trim_start();
            let h = h.trim_start_matches(['[', '~', '*']);
            if let Some(rest) = h.strip_prefix("T-") {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                if let Ok(n) = digits.parse::<u64>() {
                    highest = highest.max(n);
                }
            }
        }
    }
    Ok(highest)
}

/// The error when task ids are used up: the counter never wraps (a wrapped counter would
/// hand out an id already taken).
fn counter_full(path: &str) -> Error {
    Error::invalid(
        path,
        None,
        format!(
            "task ids are used up: the next id would exceed {}",
            u64::MAX
        ),
    )
}

fn depends_of(t: &Value) -> Vec<String> {
    t.get("depends_on")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

fn add(
    m: &mut Manifest,
    c: &mut Change,
    title: &str,
    priority: Option<&str>,
    depends_on: &[String],
    queued: u64,
    ctx: &Context,
) -> Result<Outcome> {
    let path = c.path.as_str();
    let recorded = next_id(m, path, c.next_id_line)?;
    // Ids the work queue already uses are taken too: `T-001` must not name two things.
    let local = recorded.max(queued.checked_add(1).ok_or_else(|| counter_full(path))?);
    if local > recorded {
        c.warnings.push(format!(
            "NEXT_ACTIONS.md or BACKLOG.md already uses ids up to {}: the new task is {}",
            format_id(queued),
            format_id(local)
        ));
    }
    // Under a remote lease the id is reserved on the remote first, so another clone's
    // session cannot hand out the same one (issue #17 item 4); nothing is written when
    // the reservation fails.
    let n = match &c.lease {
        Some(lease) => {
            let n = crate::transaction::lease::reserve_task_id(
                ctx.repo()?,
                lease,
                &ctx.existing_handoff()?,
                local,
            )?;
            if n > local {
                c.warnings.push(format!(
                    "the remote `{}` had already handed out ids up to {} (another clone's tasks): the new task is {}",
                    lease.remote,
                    format_id(n - 1),
                    format_id(n)
                ));
            }
            n
        }
        None => local,
    };
    let next = n.checked_add(1).ok_or_else(|| counter_full(path))?;
    let id = format_id(n);
    let existing: BTreeMap<String, Vec<String>> = m
        .tasks()
        .into_iter()
        .map(|(id, t)| (id, depends_of(t)))
        .collect();
    let mut deps: Vec<String> = Vec::new();
    for d in depends_on {
        if !existing.contains_key(d) {
            return Err(Error::Usage(format!(
                "--depends-on {d}: no such task in {path}"
            )));
        }
        if !deps.contains(d) {
            deps.push(d.clone());
        }
    }
    let mut graph = existing;
    graph.insert(id.clone(), deps.clone());
    if let Some(cycle) = find_cycle(&graph, &id) {
        return Err(Error::Usage(format!(
            "{id} would close a dependency cycle: {}",
            cycle.join(" → ")
        )));
    }
    if let Some(dangling) = graph
        .iter()
        .find(|(k, ds)| *k != &id && ds.contains(&id))
        .map(|(k, _)| k.clone())
    {
        c.warnings.push(format!(
            "{dangling} already named {id} as a dependency before it existed"
        ));
    }

    let mut task = Map::new();
    task.insert("title".into(), json!(title));
    task.insert("status".into(), json!("ready"));
    if let Some(p) = priority {
        task.insert("priority".into(), json!(p));
    }
    if !deps.is_empty() {
        task.insert("depends_on".into(), json!(deps));
    }
    task.insert("created".into(), json!(clock::format_rfc3339(ctx.now)));

    match m.doc.get_mut("tasks") {
        Some(Value::Array(list)) => {
            let mut with_id = Map::new();
            with_id.insert("id".into(), json!(id));
            with_id.extend(task);
            list.push(Value::Object(with_id));
        }
        Some(Value::Object(map)) => {
            map.insert(id.clone(), Value::Object(task));
        }
        _ => {
            // Neither field yet: `next_task_id` goes first, as the reference writes them.
            if !m.doc.contains_key("next_task_id") {
                m.doc.insert("next_task_id".into(), json!(next));
            }
            let mut map = Map::new();
            map.insert(id.clone(), Value::Object(task));
            m.doc.insert("tasks".into(), Value::Object(map));
        }
    }
    // Ids are never reused: the counter moves past the new id and never goes down.
    m.doc.insert("next_task_id".into(), json!(next));
    Ok(Outcome { id, changed: true })
}

/// Returns a dependency cycle through `start` (`[start, …, start]`), if there is one.
fn find_cycle(graph: &BTreeMap<String, Vec<String>>, start: &str) -> Option<Vec<String>> {
    fn walk(
        graph: &BTreeMap<String, Vec<String>>,
        node: &str,
        start: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in graph.get(node).into_iter().flatten() {
            if next == start {
                path.push(next.clone());
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(graph, next, start, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    let mut seen = BTreeSet::new();
    walk(graph, start, start, &mut path, &mut seen).then_some(path)
}

/// Returns a task's object for changing, in either the map or the list form.
fn task_mut<'a>(m: &'a mut Manifest, c: &Change, id: &str) -> Result<&'a mut Map<String, Value>> {
    let found = match m.doc.get_mut("tasks") {
        Some(Value::Object(map)) => map.get_mut(id),
        Some(Value::Array(list)) => list
            .iter_mut()
            .find(|t| t.get("id").and_then(Value::as_str) == Some(id)),
        _ => None,
    };
    match found {
        Some(Value::Object(t)) => Ok(t),
        Some(_) => Err(Error::invalid(
            &c.path,
            None,
            format!("task {id} is not an object"),
        )),
        None => Err(Error::Usage(format!("no task {id} in {}", c.path))),
    }
}

fn status_of(t: &Map<String, Value>) -> String {
    t.get("status")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_string()
}

fn refuse_closed(id: &str, status: &str, verb: &str) -> Result<()> {
    if matches!(status, "done" | "cancelled") {
        return Err(Error::Usage(format!(
            "{id} is {status}; a closed task cannot be {verb}"
        )));
    }
    Ok(())
}

/// How a claim names the agent a task is assigned to: the name when it is plain (the
/// manifest is anyone's text), else a description.
fn holder_name(name: &str) -> String {
    if !name.is_empty()
        && name.chars().count() <= 64
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '@'))
    {
        format!("`{}`", crate::output::boundary::clean_line(name))
    } else {
        "another agent (its name is not plain text)".into()
    }
}

/// Marks a task `in_progress` for `agent`. A task in progress for another agent is refused
/// (exit 1, naming the holder) unless `steal`, which takes it over with a warning: the
/// check runs under the write lock, so of two claims at once the second sees the first.
fn claim_task(
    m: &mut Manifest,
    c: &mut Change,
    id: &str,
    agent: &str,
    steal: bool,
) -> Result<Outcome> {
    let statuses: BTreeMap<String, String> = m
        .tasks()
        .into_iter()
        .map(|(id, t)| (id, TaskView::from_value("", t).status))
        .collect();
    let t = task_mut(m, c, id)?;
    refuse_closed(id, &status_of(t), "claimed")?;
    let holder = t
        .get("assigned_to")
        .and_then(Value::as_str)
        .filter(|h| *h != agent);
    if status_of(t) == "in_progress"
        && let Some(holder) = holder
    {
        let holder = holder_name(holder);
        if !steal {
            return Err(Error::Declined {
                reason: format!(
                    "{id} is in progress for {holder}; it was not claimed (nothing was changed)"
                ),
                hint: "pick another task, or agree with its holder and rerun with `--steal` to take it over",
            });
        }
        c.warnings.push(format!(
            "took {id} over from {holder}, who had it in progress"
        ));
    }
    let waiting: Vec<String> = depends_of(&Value::Object(t.clone()))
        .into_iter()
        .filter(|d| statuses.get(d).is_none_or(|s| s != "done"))
        .collect();
    if !waiting.is_empty() {
        c.warnings.push(format!(
            "{id} depends on {}, not done yet",
            waiting.join(", ")
        ));
    }
    t.insert("status".into(), json!("in_progress"));
    t.insert("assigned_to".into(), json!(agent));
    // Whatever blocked it no longer does once someone works on it.
    t.shift_remove("blocked_by");
    Ok(Outcome {
        id: id.to_string(),
        changed: true,
    })
}

fn finish(m: &mut Manifest, c: &Change, id: &str, now: &str) -> Result<Outcome> {
    let t = task_mut(m, c, id)?;
    match status_of(t).as_str() {
        "done" => {
            return Ok(Outcome {
                id: id.to_string(),
                changed: false,
            });
        }
        "cancelled" => refuse_closed(id, "cancelled", "finished")?,
        _ => {}
    }
    t.insert("status".into(), json!("done"));
    t.insert("completed".into(), json!(now));
    t.shift_remove("blocked_by");
    Ok(Outcome {
        id: id.to_string(),
        changed: true,
    })
}

fn block(m: &mut Manifest, c: &Change, id: &str, reason: &str) -> Result<Outcome> {
    let t = task_mut(m, c, id)?;
    refuse_closed(id, &status_of(t), "blocked")?;
    t.insert("status".into(), json!("blocked"));
    t.insert("blocked_by".into(), json!(reason));
    Ok(Outcome {
        id: id.to_string(),
        changed: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(text: &str) -> Manifest {
        Manifest::parse("M", text.as_bytes()).unwrap()
    }

    #[test]
    fn next_id_never_reuses_an_id() {
        assert_eq!(next_id(&manifest("{}"), "M", None).unwrap(), 1);
        let m = manifest(r#"{"next_task_id": 9, "tasks": {"T-002": {}}}"#);
        assert_eq!(next_id(&m, "M", None).unwrap(), 9);
        let m = manifest(r#"{"next_task_id": "2", "tasks": {"T-014": {}, "T-7": {}}}"#);
        assert_eq!(next_id(&m, "M", None).unwrap(), 15);
        let m = manifest(r#"{"tasks": [null, {"id": "T-003"}]}"#);
        assert_eq!(next_id(&m, "M", None).unwrap(), 4);
        assert!(next_id(&manifest(r#"{"next_task_id": "x"}"#), "M", None).is_err());
        assert!(next_id(&manifest(r#"{"next_task_id": 0}"#), "M", None).is_err());
    }

    #[test]
    fn ids_need_three_digits() {
        assert!(is_task_id("T-001"));
        assert!(is_task_id("T-1234"));
        assert!(!is_task_id("T-01"));
        assert!(!is_task_id("t-001"));
        assert!(!is_task_id("T-00a"));
        assert_eq!(format_id(7), "T-007");
        assert_eq!(format_id(1234), "T-1234");
    }

    #[test]
    fn a_cycle_through_the_new_task_is_found() {
        let mut g = BTreeMap::new();
        g.insert("T-001".to_string(), vec!["T-003".to_string()]);
        g.insert("T-002".to_string(), vec!["T-001".to_string()]);
        g.insert("T-003".to_string(), vec!["T-002".to_string()]);
        assert_eq!(
            find_cycle(&g, "T-003").unwrap(),
            ["T-003", "T-002", "T-001", "T-003"]
        );
        g.insert("T-003".to_string(), vec![]);
        assert!(find_cycle(&g, "T-003").is_none());
    }
}
