//! The remote lease (SPEC §6, issue #17): agents on different machines exclude each other
//! through the git remote they share. A session that began with `--remote NAME` holds one ref
//! per handoff directory, `refs/aahp/lock/<encoded path>`, pointing at a commit whose
//! `lease.json` is the session's lock. It is taken only if absent and released only while it
//! still holds this session's commit (compare-and-swap pushes), so two clones racing never
//! both win; a lease past its `expires` is reported, and taken over only when asked.

use gix::ObjectId;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::lock::HandoffLock;
use crate::error::{Error, LockHolder, Result};
use crate::git::{CasPush, Repo};
use crate::handoff::HandoffDir;
use crate::output::boundary;

/// Where lease refs live on the remote.
pub const LOCK_REF_PREFIX: &str = "refs/aahp/lock/";
/// Where a fetched lease is kept locally while it is read.
const FETCHED_PREFIX: &str = "refs/aahp/remote-lock/";

/// A lease held on a remote, as recorded in the session's `HANDOFF.lock`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteLease {
    /// The remote (a name or a URL/path), as given to `begin --remote`.
    pub remote: String,
    /// The lease ref on the remote.
    pub refname: String,
    /// The lease commit this session pushed.
    pub commit: String,
    /// The holder of the stale lease this session took over (`begin --steal`): agent,
    /// session, host and expiry, as read from the remote (anyone's text). `commit` logs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub took_over: Option<String>,
}

/// Where the task id counters live on the remote (one ref per handoff directory).
pub const IDS_REF_PREFIX: &str = "refs/aahp/ids/";
/// Where a fetched counter is kept locally while it is read.
const FETCHED_IDS_PREFIX: &str = "refs/aahp/remote-ids/";
/// How many times a reservation rereads the counter after another clone moved it.
const RESERVE_ATTEMPTS: usize = 5;

/// Encodes a handoff directory's path as one valid ref name component: letters, digits,
/// `-` and `_` stay, every other byte becomes `%XX` (so `.ai/handoff` →
/// `%2Eai%2Fhandoff`: no component starts with a dot, none ends in `.lock`, no `..`).
pub fn lock_ref(dir: &str) -> String {
    encoded_ref(LOCK_REF_PREFIX, dir)
}

fn encoded_ref(prefix: &str, dir: &str) -> String {
    let mut out = String::from(prefix);
    for b in dir.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push_str(&crate::handoff::hex(&[b]).to_ascii_uppercase());
        }
    }
    out
}

/// Refuses (exit 2) a remote that git would read as an option, and a recorded lease whose
/// ref is not a lease ref: HANDOFF.lock is a file in the work tree, so what it records must
/// never make `commit` or `recover` push to another ref or pass an option to git.
fn check(remote: &str, refname: Option<&str>) -> Result<()> {
    if remote.is_empty() || remote.starts_with('-') {
        return Err(Error::Usage(format!(
            "the remote `{}` is not a remote name, URL or path",
            crate::output::boundary::clean_line(remote)
        )));
    }
    if let Some(r) = refname {
        let encoded = r.strip_prefix(LOCK_REF_PREFIX).unwrap_or("");
        if encoded.is_empty()
            || !encoded
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'%'))
        {
            return Err(Error::other(format!(
                "HANDOFF.lock records the remote lease ref `{}`, which is not under {LOCK_REF_PREFIX}; \
                 it was left alone (remove the `remote` field from the lock, or run `git aahp recover --force`)",
                crate::output::boundary::clean_line(r)
            )));
        }
    }
    Ok(())
}

/// What is on the remote for a handoff directory.
#[derive(Debug, Clone)]
#[expect(
    clippy::large_enum_variant,
    reason = "read once per command; boxing would only add noise at every match"
)]
pub enum RemoteHolder {
    /// No lease.
    Free,
    /// A lease: its commit and its lock (or why it cannot be read).
    Held(ObjectId, std::result::Result<HandoffLock, String>),
}

/// Reads the lease of `dir` on `remote` (one fetch; `Free` when the ref does not exist).
pub fn read(repo: &Repo, remote: &str, dir: &HandoffDir) -> Result<RemoteHolder> {
    check(remote, None)?;
    let refname = lock_ref(&dir.rel);
    let local = format!("{FETCHED_PREFIX}{}", &refname[LOCK_REF_PREFIX.len()..]);
    Ok(match repo.fetch_lease(remote, &refname, &local)? {
        None => RemoteHolder::Free,
        Some((id, bytes)) => RemoteHolder::Held(
            id,
            match HandoffLock::parse(&bytes) {
                // Each field it shows vetted: anyone who can push its ref writes them, and
                // `begin`'s exit 3, `status --remote` and MCP hand them to an agent (review
                // s28 #2; `HandoffLock::shown`).
                Ok(lock) => Ok(lock.shown(dir)?),
                Err(why) => Err(boundary::vetted_line(dir, &why, "why it cannot be read")?),
            },
        ),
    })
}

/// The exit-3 error for a lease someone else holds: holder, host and age.
pub fn held_error(
    remote: &str,
    lock: &std::result::Result<HandoffLock, String>,
    now: Timestamp,
) -> Error {
    let holder = match lock {
        Ok(l) => LockHolder {
            agent: l.agent.clone(),
            session_id: l.session_id.clone(),
            host: Some(l.host.clone()),
            started: Some(l.started.clone()),
            expires: Some(l.expires.clone()),
            stale: l.is_stale(now),
            since: format!(
                "{} ({}), on host {}, by its lease on the remote `{remote}`{}",
                l.started,
                l.age(now),
                l.host,
                if l.is_stale(now) {
                    format!(
                        "; the lease expired at {}: `git aahp recover --remote {remote}` or `git aahp begin --remote {remote} --steal` takes it over",
                        l.expires
                    )
                } else {
                    String::new()
                }
            ),
        },
        Err(why) => LockHolder {
            agent: "an unknown session".into(),
            session_id: "unknown".into(),
            host: None,
            started: None,
            expires: None,
            stale: true,
            since: format!(
                "an unknown time (its lease on the remote `{remote}` is unreadable: {why})"
            ),
        },
    };
    Error::Locked(Box::new(holder))
}

/// A lease taken, and the stale lease it replaced, if any.
#[derive(Debug, Clone)]
pub struct Taken {
    /// The lease now held.
    pub lease: RemoteLease,
    /// The holder of the stale lease taken over (`--steal`).
    pub stolen_from: Option<HandoffLock>,
}

/// Takes the lease of `dir` on `remote` for `lock`: pushes a new lease commit only if the ref
/// is absent. When a lease exists it is exit 3 naming its holder; a stale one (past its
/// `expires`) is replaced only when `steal` is set, and only if it still holds what was read.
pub fn take(
    repo: &Repo,
    dir: &HandoffDir,
    lock: &HandoffLock,
    remote: &str,
    steal: bool,
    now: Timestamp,
) -> Result<Taken> {
    check(remote, None)?;
    let refname = lock_ref(&dir.rel);
    let tmp = tempfile::tempdir().map_err(|source| Error::Write {
        path: "a temporary directory".into(),
        source,
    })?;
    let commit = repo.lease_commit(
        &lock.to_bytes(),
        // The directory and the session id are anyone's text: through the boundary.
        &format!(
            "aahp lease: {} ({})",
            boundary::clean_line(&dir.rel),
            boundary::clean_line(&lock.session_id)
        ),
        tmp.path(),
    )?;
    let lease = RemoteLease {
        remote: remote.to_string(),
        refname: refname.clone(),
        commit: commit.to_string(),
        took_over: None,
    };
    // A lease released between our push and our read leaves the ref free again: retry once.
    for _ in 0..2 {
        if repo.push_cas(remote, &refname, None, Some(commit))? == CasPush::Done {
            return Ok(Taken {
                lease,
                stolen_from: None,
            });
        }
        match read(repo, remote, dir)? {
            RemoteHolder::Free => {}
            RemoteHolder::Held(old, Ok(held)) if steal && held.is_stale(now) => {
                if repo.push_cas(remote, &refname, Some(old), Some(commit))? == CasPush::Done {
                    return Ok(Taken {
                        lease: RemoteLease {
                            took_over: Some(describe_holder(&held)),
                            ..lease
                        },
                        stolen_from: Some(held),
                    });
                }
                return Err(held_error(remote, &read_lock(repo, remote, dir)?, now));
            }
            RemoteHolder::Held(_, held) => return Err(held_error(remote, &held, now)),
        }
    }
    Err(held_error(remote, &read_lock(repo, remote, dir)?, now))
}

/// A lease holder as `begin --steal` reports it and `commit` logs it: agent, session, host
/// and expiry (raw: whoever shows it puts it through the boundary).
pub fn describe_holder(h: &HandoffLock) -> String {
    format!(
        "{} (session {}, host {}, expired {})",
        h.agent, h.session_id, h.host, h.expires
    )
}

/// [`describe_holder`] with each field vetted ([`boundary::vetted_line`]): what `begin
/// --steal` records in the lock for `commit` to write into LOG.md and shows the agent. The
/// lease's fields were written by whoever could push its ref (review s23 #8).
pub fn describe_holder_vetted(dir: &HandoffDir, h: &HandoffLock) -> Result<String> {
    let field = |text: &str, what: &str| boundary::vetted_line(dir, text, what);
    Ok(format!(
        "{} (session {}, host {}, expired {})",
        field(&h.agent, "an agent name")?,
        field(&h.session_id, "a session id")?,
        field(&h.host, "a host name")?,
        field(&h.expires, "a time")?
    ))
}

fn read_lock(
    repo: &Repo,
    remote: &str,
    dir: &HandoffDir,
) -> Result<std::result::Result<HandoffLock, String>> {
    Ok(match read(repo, remote, dir)? {
        RemoteHolder::Free => Err("it changed while it was read; retry".into()),
        RemoteHolder::Held(_, l) => l,
    })
}

/// Reserves a task number of `dir` on the lease's remote (issue #17 item 4): the number is
/// the larger of `at_least` (what the local manifest would hand out) and the remote counter
/// `refs/aahp/ids/<encoded dir>` (a commit whose `ids.json` holds `next_task_id`), and the
/// counter moves past it by a compare-and-swap push, so two clones never hand out the same
/// id. A push refused because another clone moved the counter first is retried with the new
/// value; every remote call is bounded in time. Returns the reserved number.
pub fn reserve_task_id(
    repo: &Repo,
    lease: &RemoteLease,
    dir: &HandoffDir,
    at_least: u64,
) -> Result<u64> {
    check(&lease.remote, None)?;
    let remote = lease.remote.as_str();
    let refname = encoded_ref(IDS_REF_PREFIX, &dir.rel);
    let local = format!("{FETCHED_IDS_PREFIX}{}", &refname[IDS_REF_PREFIX.len()..]);
    let tmp = tempfile::tempdir().map_err(|source| Error::Write {
        path: "a temporary directory".into(),
        source,
    })?;
    for _ in 0..RESERVE_ATTEMPTS {
        let (current, recorded) = match repo.fetch_ref_file(remote, &refname, &local, "ids.json")? {
            None => (None, 1),
            Some((id, bytes)) => (Some(id), counter_of(&bytes).ok_or_else(|| {
                Error::invalid(
                    format!("{refname} on the remote `{remote}`"),
                    None,
                    "its ids.json does not hold a positive `next_task_id`; delete the ref on the remote to start the counter again from the manifests",
                )
            })?),
        };
        // Between the read and the compare-and-swap another clone may move the counter: the
        // push below is then refused and the loop reads again (a test stops here).
        crate::failpoint::rendezvous("lease:ids-read");
        let n = at_least.max(recorded);
        let next = n
            .checked_add(1)
            .ok_or_else(|| Error::other("task ids are used up on the remote"))?;
        let body = serde_json::json!({ "next_task_id": next });
        let commit = repo.one_file_commit(
            "ids.json",
            format!("{body}\n").as_bytes(),
            // The lease names the reserving session: two clones reserving the same number
            // from the same counter must not build the same commit (same tree, parent,
            // identity and second), or the second push would change nothing and "succeed".
            &format!(
                "aahp task ids: {} reserved {} under lease {}",
                boundary::clean_line(&dir.rel),
                crate::handoff::merge::task_id(n),
                boundary::clean_line(&lease.commit)
            ),
            tmp.path(),
        )?;
        if repo.push_cas(remote, &refname, current, Some(commit))? == CasPush::Done {
            return Ok(n);
        }
    }
    Err(Error::other(format!(
        "could not reserve a task id on the remote `{remote}`: its counter {refname} changed {RESERVE_ATTEMPTS} times while this clone read it; retry"
    )))
}

/// The `next_task_id` of a counter's `ids.json`.
fn counter_of(bytes: &[u8]) -> Option<u64> {
    serde_json::from_slice::<serde_json::Value>(bytes)
        .ok()?
        .get("next_task_id")?
        .as_u64()
        .filter(|n| *n >= 1)
}

/// The highest session number among the remote's `aahp/session-N` tags (one `ls-remote`):
/// a session committed under a lease numbers its tag above it, so two clones taking turns
/// through the lease never tag the same number whether or not they fetched each other's.
pub fn remote_session_floor(repo: &Repo, remote: &str) -> Result<u64> {
    check(remote, None)?;
    let refs = repo.remote_refs(remote, "refs/tags/aahp/*")?;
    Ok(super::highest_session_number(
        refs.iter().map(|(n, _)| n.as_str()),
    ))
}

/// Whether the remote still holds this session's lease.
pub fn still_held(repo: &Repo, lease: &RemoteLease) -> Result<bool> {
    check(&lease.remote, Some(&lease.refname))?;
    let current = repo.remote_ref(&lease.remote, &lease.refname)?;
    let ours = ObjectId::from_hex(lease.commit.as_bytes()).ok();
    Ok(current.is_some() && current == ours)
}

/// Releases the lease only while it still holds this session's commit. Returns false when
/// it no longer did (released or taken over by someone else): nothing was changed.
pub fn release(repo: &Repo, lease: &RemoteLease) -> Result<bool> {
    check(&lease.remote, Some(&lease.refname))?;
    let ours = ObjectId::from_hex(lease.commit.as_bytes())
        .map_err(|_| Error::other("the lock's remote lease commit id is malformed"))?;
    Ok(repo.push_cas(&lease.remote, &lease.refname, Some(ours), None)? == CasPush::Done)
}

/// A session HEAD's handoff records as committed (its manifest's `last_session`).
#[derive(Debug, Clone)]
pub struct Finished {
    /// `last_session.session_id`.
    pub session_id: String,
    /// `last_session.timestamp`: when it was committed.
    pub at: String,
}

impl Finished {
    /// Whether `lease` is that session's own: its id, taken before the session was
    /// committed (a later session reusing the id, `--session-id s1` every time, is not).
    pub fn leased(&self, lease: &HandoffLock) -> bool {
        let time = |s: &str| s.parse::<Timestamp>().ok();
        lease.session_id == self.session_id
            && matches!((time(&lease.started), time(&self.at)), (Some(a), Some(b)) if a <= b)
    }
}

/// Removes a stale lease from the remote (`recover --remote`), only if it still holds the
/// commit read. Returns the holder removed. A lease of `finished` (the session HEAD's
/// handoff records as committed: its `commit` could not release the lease) is a leftover,
/// cleared without `force` like a stale one.
pub fn clear_stale(
    repo: &Repo,
    remote: &str,
    dir: &HandoffDir,
    force: bool,
    finished: Option<&Finished>,
    now: Timestamp,
) -> Result<Option<HandoffLock>> {
    match read(repo, remote, dir)? {
        RemoteHolder::Free => Ok(None),
        RemoteHolder::Held(id, held) => {
            let stale = held.as_ref().map_or(true, |l| {
                l.is_stale(now) || finished.is_some_and(|f| f.leased(l))
            });
            if !stale && !force {
                return Err(held_error(remote, &held, now));
            }
            if repo.push_cas(remote, &lock_ref(&dir.rel), Some(id), None)? == CasPush::Rejected {
                return Err(held_error(remote, &read_lock(repo, remote, dir)?, now));
            }
            Ok(held.ok())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_refs_are_valid_ref_names_for_any_directory() {
        assert_eq!(lock_ref(".ai/handoff"), "refs/aahp/lock/%2Eai%2Fhandoff");
        for dir in [
            ".ai/handoff",
            "packages/api/.ai/handoff",
            "a..b",
            "x.lock",
            "ü/ß",
            "a b",
        ] {
            let name = lock_ref(dir);
            assert!(
                gix::refs::FullName::try_from(name.as_str()).is_ok(),
                "{dir} → {name}"
            );
        }
        assert_ne!(lock_ref("a/b"), lock_ref("a_b"));
    }

    #[test]
    fn a_committed_sessions_lease_is_its_own_only_when_taken_before_the_commit() {
        let lease = |id: &str, started: &str| {
            HandoffLock::parse(
                format!(
                    "{{\"agent\":\"a\",\"session_id\":\"{id}\",\"started\":\"{started}\",\"expires\":\"2099-01-01T00:00:00Z\",\"host\":\"h\",\"base_commit\":null,\"tool_version\":\"t\"}}"
                )
                .as_bytes(),
            )
            .unwrap()
        };
        let done = Finished {
            session_id: "s1".into(),
            at: "2026-12-01T13:00:00Z".into(),
        };
        assert!(done.leased(&lease("s1", "2026-12-01T12:00:00Z")));
        assert!(done.leased(&lease("s1", "2026-12-01T13:00:00Z")));
        // The id reused by a session begun after the commit; another session; a bad time.
        assert!(!done.leased(&lease("s1", "2026-12-01T13:00:01Z")));
        assert!(!done.leased(&lease("s2", "2026-12-01T12:00:00Z")));
        assert!(!done.leased(&lease("s1", "yesterday")));
    }

    #[test]
    fn a_remote_that_reads_as_an_option_or_a_recorded_ref_outside_the_leases_is_refused() {
        assert!(check("origin", Some(&lock_ref(".ai/handoff"))).is_ok());
        assert!(check("/srv/git/repo.git", None).is_ok());
        assert!(check("--receive-pack=touch /tmp/x", None).is_err());
        assert!(check("-q", None).is_err());
        assert!(check("", None).is_err());
        assert!(check("origin", Some("refs/heads/main")).is_err());
        assert!(check("origin", Some("refs/aahp/lock/../../heads/main")).is_err());
        assert!(check("origin", Some(LOCK_REF_PREFIX)).is_err());
    }
}
