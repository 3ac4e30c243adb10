//! `HANDOFF.lock` (SPEC §3.3): its JSON, its exclusive atomic creation, reading it back, and
//! the rule that decides whether a lock belongs to the calling session. It never decides
//! to take over a lock: a stale lock is reported, and only `recover` removes it.

use std::io::Write;
use std::path::Path;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::clock;
use crate::error::{Error, LockHolder, Result};
use crate::handoff::{HandoffDir, LOCK};

/// The content of `HANDOFF.lock`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandoffLock {
    /// The agent that holds the session.
    pub agent: String,
    /// The session's id (printed by `begin`; `--session-id` / `AAHP_SESSION_ID` name it).
    pub session_id: String,
    /// When the session began (RFC 3339 UTC).
    pub started: String,
    /// When the lock stops protecting the session (RFC 3339 UTC); past it, the lock is stale.
    pub expires: String,
    /// The host the session runs on.
    pub host: String,
    /// The commit HEAD pointed to when the session began.
    pub base_commit: Option<String>,
    /// The handoff files the session intends to update.
    #[serde(default)]
    pub updating: Vec<String>,
    /// The version of git-aahp that wrote the lock.
    pub tool_version: String,
    /// The session phase, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
}

/// What is found at `HANDOFF.lock`.
#[derive(Debug, Clone)]
pub enum LockState {
    /// No lock: no session is writing.
    Absent,
    /// A readable lock.
    Held(HandoffLock),
    /// A lock file that is not a valid lock (garbage JSON, invalid UTF-8). It is treated as
    /// held by an unknown session; `recover` clears it.
    Unreadable(String),
}

impl HandoffLock {
    /// Serialises the lock as pretty JSON with a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("a lock always serialises");
        bytes.push(b'\n');
        bytes
    }

    /// Parses a lock's bytes.
    pub fn parse(bytes: &[u8]) -> std::result::Result<HandoffLock, String> {
        let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
        serde_json::from_str(text).map_err(|e| format!("not a lock: {e}"))
    }

    /// Returns true when `now` is past the lock's expiry (an unparseable expiry counts as
    /// expired: nothing can show the holder is alive).
    pub fn is_stale(&self, now: Timestamp) -> bool {
        self.expires.parse::<Timestamp>().is_ok_and(|e| now > e)
            || self.expires.parse::<Timestamp>().is_err()
    }

    /// Describes how long ago the session started (`2h 5m ago`).
    pub fn age(&self, now: Timestamp) -> String {
        match self.started.parse::<Timestamp>() {
            Ok(t) => format_age(now.as_second() - t.as_second()),
            Err(_) => "unknown age".into(),
        }
    }

    /// Builds the exit-3 error naming this holder.
    pub fn locked_error(&self, now: Timestamp) -> Error {
        Error::Locked(Box::new(LockHolder {
            agent: self.agent.clone(),
            session_id: self.session_id.clone(),
            host: Some(self.host.clone()),
            started: Some(self.started.clone()),
            expires: Some(self.expires.clone()),
            stale: self.is_stale(now),
            since: format!("{} ({})", self.started, self.age(now)),
        }))
    }
}

/// Formats a number of seconds as `3d 2h`, `2h 5m`, `4m 10s`, followed by `ago`.
pub fn format_age(secs: i64) -> String {
    if secs < 0 {
        return "in the future".into();
    }
    let (d, h, m, s) = (
        secs / 86_400,
        secs % 86_400 / 3600,
        secs % 3600 / 60,
        secs % 60,
    );
    let text = if d > 0 {
        format!("{d}d {h}h")
    } else if h > 0 {
        format!("{h}h {m}m")
    } else if m > 0 {
        format!("{m}m {s}s")
    } else {
        format!("{s}s")
    };
    format!("{text} ago")
}

impl LockState {
    /// Reads the lock of a handoff directory.
    pub fn read(dir: &HandoffDir) -> Result<LockState> {
        let path = dir.abs.join(LOCK);
        match std::fs::read(&path) {
            Ok(bytes) => Ok(match HandoffLock::parse(&bytes) {
                Ok(lock) => LockState::Held(lock),
                Err(reason) => LockState::Unreadable(reason),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(LockState::Absent),
            Err(source) => Err(Error::Read {
                path: dir.path_of(LOCK),
                source,
            }),
        }
    }

    /// Returns true when a lock file exists (readable or not).
    pub fn is_present(&self) -> bool {
        !matches!(self, LockState::Absent)
    }

    /// The exit-3 error for this lock when it is not ours.
    pub fn locked_error(&self, dir: &HandoffDir, now: Timestamp) -> Error {
        match self {
            LockState::Held(lock) => lock.locked_error(now),
            LockState::Unreadable(reason) => unknown_holder(format!(
                "an unknown session ({} is unreadable: {reason})",
                dir.path_of(LOCK)
            )),
            LockState::Absent => unknown_holder(format!(
                "an unknown session (its {} vanished)",
                dir.path_of(LOCK)
            )),
        }
    }
}

/// The exit-3 error for a lock whose holder cannot be read.
fn unknown_holder(agent: String) -> Error {
    Error::Locked(Box::new(LockHolder {
        agent,
        session_id: "unknown".into(),
        host: None,
        started: None,
        expires: None,
        stale: true,
        since: "an unknown time".into(),
    }))
}

/// Creates `HANDOFF.lock` exclusively and atomically: the JSON is written to a temporary file
/// and fsync'd, then hard-linked to the lock's name, which fails when a lock exists. So a
/// reader sees either no lock or a complete one, and of two racing sessions exactly one wins.
///
/// Returns `Ok(false)` when a lock already exists.
///
/// # Crash safety
/// A crash before the link leaves only a `.aahp-tmp-*` file (never read as a lock; `recover`
/// deletes it); after the link, a complete lock that `recover` clears.
pub fn acquire(dir: &HandoffDir, lock: &HandoffLock) -> Result<bool> {
    let path = dir.abs.join(LOCK);
    let write_err = |source| Error::Write {
        path: dir.path_of(LOCK),
        source,
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".aahp-tmp-lock-")
        .tempfile_in(&dir.abs)
        .map_err(write_err)?;
    tmp.write_all(&lock.to_bytes()).map_err(write_err)?;
    tmp.as_file().sync_all().map_err(write_err)?;
    let linked = match std::fs::hard_link(tmp.path(), &path) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
        // No hard links here (some network or FUSE file systems): exclusive creation is
        // still atomic with respect to other sessions, only the content is written after.
        Err(_) => create_new(&path, &lock.to_bytes()).map_err(write_err)?,
    };
    crate::failpoint::hit("lock:linked");
    drop(tmp);
    sync_dir(&dir.abs);
    Ok(linked)
}

fn create_new(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    match std::fs::File::create_new(path) {
        Ok(mut f) => {
            f.write_all(bytes)?;
            f.sync_all()?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

/// Removes `HANDOFF.lock` (a missing lock is not an error) and syncs the directory.
pub fn release(dir: &HandoffDir) -> Result<()> {
    match std::fs::remove_file(dir.abs.join(LOCK)) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(Error::Write {
                path: dir.path_of(LOCK),
                source,
            });
        }
    }
    sync_dir(&dir.abs);
    Ok(())
}

pub(crate) fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Returns the host name (Linux `/proc`, else `HOSTNAME`/`COMPUTERNAME`, else `unknown`).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// Makes a new session id: the UTC start time plus 8 random hex digits
/// (`20261122T100000Z-1a2b3c4d`), unique enough to name a recovered ref.
pub fn new_session_id(now: Timestamp) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_i128(now.as_nanosecond());
    let stamp = now.strftime("%Y%m%dT%H%M%SZ");
    format!("{stamp}-{:08x}", h.finish() & 0xffff_ffff)
}

/// Parses a lock lifetime: `90s`, `30m`, `4h`, `2d`, or plain seconds.
pub fn parse_ttl(s: &str) -> std::result::Result<jiff::SignedDuration, String> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => (&s[..i], s[i..].trim()),
        None => (s, "s"),
    };
    let n: i64 = num
        .parse()
        .map_err(|_| format!("invalid lock lifetime `{s}`: expected e.g. 4h, 30m, 1d"))?;
    let secs = match unit {
        "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        "d" => n * 86_400,
        _ => {
            return Err(format!(
                "invalid lock lifetime `{s}`: expected e.g. 4h, 30m, 1d"
            ));
        }
    };
    if secs <= 0 {
        return Err(format!("the lock lifetime must be positive, got `{s}`"));
    }
    Ok(jiff::SignedDuration::from_secs(secs))
}

/// Builds the lock for a session starting `now` and lasting `ttl`.
pub fn new_lock(
    agent: &str,
    session_id: &str,
    now: Timestamp,
    ttl: jiff::SignedDuration,
    base_commit: Option<String>,
    updating: Vec<String>,
    phase: Option<String>,
) -> Result<HandoffLock> {
    let expires = now
        .checked_add(ttl)
        .map_err(|_| Error::Usage("the lock lifetime is too long".into()))?;
    Ok(HandoffLock {
        agent: agent.to_string(),
        session_id: session_id.to_string(),
        started: clock::format_rfc3339(now),
        expires: clock::format_rfc3339(expires),
        host: host_name(),
        base_commit,
        updating,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        phase,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_accepts_units_and_rejects_nonsense() {
        assert_eq!(parse_ttl("4h").unwrap().as_secs(), 14_400);
        assert_eq!(parse_ttl("30m").unwrap().as_secs(), 1800);
        assert_eq!(parse_ttl("1d").unwrap().as_secs(), 86_400);
        assert_eq!(parse_ttl("90").unwrap().as_secs(), 90);
        assert!(parse_ttl("0h").is_err());
        assert!(parse_ttl("4 weeks").is_err());
        assert!(parse_ttl("").is_err());
    }

    #[test]
    fn lock_round_trips_and_expires_strictly_after_its_expiry() {
        let now: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
        let lock = new_lock(
            "agent-a",
            "s1",
            now,
            parse_ttl("1h").unwrap(),
            None,
            vec![],
            None,
        )
        .unwrap();
        assert_eq!(HandoffLock::parse(&lock.to_bytes()).unwrap(), lock);
        assert_eq!(lock.expires, "2026-11-22T11:00:00Z");
        assert!(!lock.is_stale("2026-11-22T11:00:00Z".parse().unwrap()));
        assert!(lock.is_stale("2026-11-22T11:00:01Z".parse().unwrap()));
        assert_eq!(
            lock.age("2026-11-22T12:05:00Z".parse().unwrap()),
            "2h 5m ago"
        );
    }

    #[test]
    fn garbage_is_not_a_lock() {
        assert!(HandoffLock::parse(b"{not json").is_err());
        assert!(HandoffLock::parse(b"\xff\xfe").is_err());
        assert!(HandoffLock::parse(b"{\"agent\": 1}").is_err());
    }

    #[test]
    fn session_ids_differ_between_calls() {
        let now: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
        let a = new_session_id(now);
        assert!(a.starts_with("20261122T100000Z-"), "{a}");
        assert_ne!(a, new_session_id(now));
    }
}
