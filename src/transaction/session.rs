//! Who holds a handoff directory right now, as `status` and `context` tell an agent: its own
//! live session ("your session, started 12 minutes ago"), another session, a stale lock, or an
//! interrupted commit (issue #17, D9). Read-only: it decides nothing and takes nothing over.

use jiff::Timestamp;
use serde::Serialize;

use super::SessionClaim;
use super::journal::Journal;
use super::lock::{HandoffLock, LockState};
use crate::error::Result;
use crate::git::Repo;
use crate::handoff::HandoffDir;

/// The session state of one handoff directory, seen from this worktree.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum SessionView {
    /// No lock and no interrupted commit: nobody is writing.
    Free,
    /// The caller's own session holds the lock and has not expired: keep working, then
    /// `git aahp commit`.
    Yours(Holder),
    /// Another live session holds the lock.
    Other(Holder),
    /// A lock past its expiry: its holder seems gone; `git aahp recover` clears it.
    Stale(Holder),
    /// A `git aahp commit` of this directory was interrupted: `git aahp recover` finishes or
    /// rolls it back.
    Interrupted(Holder),
    /// A lock that cannot be read (garbage, a FIFO, a directory…).
    Unreadable {
        /// Why.
        #[serde(serialize_with = "crate::output::boundary::line")]
        reason: String,
    },
}

/// The holder of a session, as its lock (or journal) records it. Untrusted text: shown only
/// through the output boundary.
#[derive(Debug, Clone, Serialize)]
pub struct Holder {
    /// The agent.
    #[serde(serialize_with = "crate::output::boundary::line")]
    pub agent: String,
    /// The session id.
    #[serde(serialize_with = "crate::output::boundary::line")]
    pub session_id: String,
    /// The host it runs on, when known.
    #[serde(serialize_with = "crate::output::boundary::opt_line")]
    pub host: Option<String>,
    /// When it started (RFC 3339), as recorded.
    #[serde(serialize_with = "crate::output::boundary::line")]
    pub started: String,
    /// When its lock expires, when known.
    #[serde(serialize_with = "crate::output::boundary::opt_line")]
    pub expires: Option<String>,
    /// Whole minutes since `started`, when it parses.
    pub age_minutes: Option<i64>,
}

impl Holder {
    fn of_lock(lock: &HandoffLock, now: Timestamp) -> Holder {
        Holder {
            agent: lock.agent.clone(),
            session_id: lock.session_id.clone(),
            host: Some(lock.host.clone()),
            started: lock.started.clone(),
            expires: Some(lock.expires.clone()),
            age_minutes: minutes_since(&lock.started, now),
        }
    }

    /// "started 12 minutes ago" (or "at <time>" when the start cannot be read).
    pub fn started_phrase(&self) -> String {
        match self.age_minutes {
            Some(m) if m < 1 => "started less than a minute ago".into(),
            Some(1) => "started 1 minute ago".into(),
            Some(m) if m < 120 => format!("started {m} minutes ago"),
            Some(m) if m < 48 * 60 => format!("started {} hours ago", m / 60),
            Some(m) => format!("started {} days ago", m / (24 * 60)),
            None => format!("started at {}", self.started),
        }
    }
}

fn minutes_since(started: &str, now: Timestamp) -> Option<i64> {
    let t: Timestamp = started.parse().ok()?;
    Some((now.as_second() - t.as_second()).max(0) / 60)
}

impl SessionView {
    /// Reads the state of `dir`: its journal first (an interrupted commit outranks the lock
    /// it left), then `HANDOFF.lock`, judged against `claim` by the rule of
    /// [`super::SessionClaim::owns`] (the id given, else the session `begin` recorded in this
    /// worktree for this directory). A lock taken for one write belongs to no session; it is
    /// reported as another's.
    pub fn read(
        repo: &Repo,
        dir: &HandoffDir,
        claim: &SessionClaim,
        now: Timestamp,
    ) -> Result<SessionView> {
        if let Some(j) = Journal::load(repo, &dir.rel)? {
            return Ok(SessionView::Interrupted(Holder {
                agent: j.agent.clone(),
                session_id: j.session_id.clone(),
                host: None,
                started: j.started.clone(),
                expires: None,
                age_minutes: minutes_since(&j.started, now),
            }));
        }
        Ok(match LockState::read(dir)? {
            LockState::Absent => SessionView::Free,
            LockState::Unreadable(reason) => SessionView::Unreadable { reason },
            LockState::Held(lock) => {
                let holder = Holder::of_lock(&lock.shown(dir)?, now);
                if lock.is_stale(now) {
                    SessionView::Stale(holder)
                } else if lock.write.is_none() && claim.owns(&lock, repo, dir) {
                    SessionView::Yours(holder)
                } else {
                    SessionView::Other(holder)
                }
            }
        })
    }

    /// One line for a person: whose session this is and since when (untrusted fields
    /// escaped), or `None` when the directory is free.
    pub fn describe(&self) -> Option<String> {
        use crate::output::escape_untrusted as esc;
        let who = |h: &Holder| {
            format!(
                "{} (session {}{})",
                esc(&h.agent),
                esc(&h.session_id),
                h.host
                    .as_deref()
                    .map(|host| format!(", host {}", esc(host)))
                    .unwrap_or_default()
            )
        };
        Some(match self {
            SessionView::Free => return None,
            SessionView::Yours(h) => format!(
                "your session, {}: {}{}",
                h.started_phrase(),
                who(h),
                h.expires
                    .as_deref()
                    .map(|e| format!(", lock valid until {}", esc(e)))
                    .unwrap_or_default()
            ),
            SessionView::Other(h) => {
                format!("held by {}, {}", who(h), h.started_phrase())
            }
            SessionView::Stale(h) => format!(
                "stale: held by {}, {}, expired {}",
                who(h),
                h.started_phrase(),
                esc(h.expires.as_deref().unwrap_or("unknown"))
            ),
            SessionView::Interrupted(h) => format!(
                "the `git aahp commit` of {} was interrupted ({})",
                who(h),
                h.started_phrase()
            ),
            SessionView::Unreadable { reason } => {
                format!("unreadable lock ({})", esc(reason))
            }
        })
    }

    /// What the agent should do next about the session, or `None` when nothing is needed.
    pub fn next_step(&self) -> Option<&'static str> {
        match self {
            SessionView::Free => None,
            SessionView::Yours(_) => Some(
                "your session is open: finish it with `git aahp commit -m MESSAGE` (do not run `recover`)",
            ),
            SessionView::Other(_) => Some(
                "another session is writing: wait for its `git aahp commit`, or `git aahp begin --wait SECONDS`",
            ),
            SessionView::Stale(_)
            | SessionView::Interrupted(_)
            | SessionView::Unreadable { .. } => Some(
                "a previous session did not finish: run `git aahp recover` (or `--dry-run` to see the plan)",
            ),
        }
    }
}
