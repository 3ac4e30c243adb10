//! `HANDOFF.lock` (SPEC §3.3): its JSON, its exclusive atomic creation, reading it back, and
//! the rule that decides whether a lock belongs to the calling session. It never decides
//! to take over a lock: a stale lock is reported, and only `recover` removes it.

use std::io::{Read, Write};
use std::path::Path;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::clock;
use crate::error::{Error, LockHolder, Result};
use crate::handoff::{HandoffDir, LOCK};

/// Default lock lifetime when neither `--ttl` nor git config `aahp.lockTtl` is set.
pub const DEFAULT_TTL: &str = "4h";

/// Largest `HANDOFF.lock` that is read; a real lock is a few hundred bytes.
pub const MAX_LOCK_BYTES: u64 = 64 * 1024;

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
    /// The checksum of the committed MANIFEST.json the session starts from (with
    /// `base_commit`, the session's ticket: `commit` refuses when another handoff landed
    /// since).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_manifest: Option<String>,
    /// The handoff files the session intends to update.
    #[serde(default)]
    pub updating: Vec<String>,
    /// The version of git-aahp that wrote the lock.
    pub tool_version: String,
    /// The session phase, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// For a lock taken around one write when no session held the handoff: the command
    /// that took it (see [`crate::transaction::writer`]). Absent on session locks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<String>,
    /// The lease this session holds on a git remote (`begin --remote`), released by
    /// `commit` and `recover` (see [`crate::transaction::lease`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<super::lease::RemoteLease>,
    /// True for a lock that names no session (the AAHP v2 proposal's format, see
    /// [`ForeignLock`]): `session_id` then only says so (`unknown`) and no caller's session
    /// owns it, not even one that calls itself `unknown` (review rob36 #7).
    #[serde(skip)]
    pub anonymous: bool,
}

/// What is found at `HANDOFF.lock`.
#[derive(Debug, Clone)]
#[expect(
    clippy::large_enum_variant,
    reason = "read a few times per command; boxing would only add noise at every match"
)]
pub enum LockState {
    /// No lock: no session is writing.
    Absent,
    /// A readable lock.
    Held(HandoffLock),
    /// A lock file that is not a valid lock (garbage JSON, invalid UTF-8). It is treated as
    /// held by an unknown session; `recover` clears it.
    Unreadable(String),
}

/// A lock as the AAHP v2 proposal writes it (`{"agent", "started", "updating"}`) or with
/// only some of our fields. It names a holder and when it began, so it is a live session's
/// lock until `started` + [`DEFAULT_TTL`] (its own `expires` when it gives one): `recover`
/// leaves it alone without `--force`, like any live lock, instead of clearing it as garbage
/// and rolling back the files that session is writing.
#[derive(Deserialize)]
struct ForeignLock {
    agent: String,
    started: String,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    expires: Option<String>,
    #[serde(default)]
    host: Option<String>,
    #[serde(default)]
    base_commit: Option<String>,
    #[serde(default)]
    updating: Vec<String>,
    #[serde(default)]
    tool_version: Option<String>,
}

impl ForeignLock {
    /// The lock, when `started` is a time (else nothing shows when the holder began).
    fn into_lock(self) -> Option<HandoffLock> {
        let started = self.started.parse::<Timestamp>().ok()?;
        let expires = if let Some(e) = self.expires {
            e
        } else {
            let ttl = parse_ttl(DEFAULT_TTL).ok()?;
            clock::format_rfc3339(started.checked_add(ttl).ok()?)
        };
        let unknown = || "unknown".to_string();
        Some(HandoffLock {
            agent: self.agent,
            anonymous: self.session_id.is_none(),
            session_id: self.session_id.unwrap_or_else(unknown),
            started: self.started,
            expires,
            host: self.host.unwrap_or_else(unknown),
            base_commit: self.base_commit,
            base_manifest: None,
            updating: self.updating,
            tool_version: self.tool_version.unwrap_or_else(unknown),
            phase: None,
            write: None,
            remote: None,
        })
    }
}

impl HandoffLock {
    /// Serialises the lock as pretty JSON with a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("a lock always serialises");
        bytes.push(b'\n');
        bytes
    }

    /// Parses a lock's bytes: ours, or one in the AAHP v2 proposal's own format (see
    /// [`ForeignLock`]), which another tool or an agent writing by hand leaves.
    pub fn parse(bytes: &[u8]) -> std::result::Result<HandoffLock, String> {
        let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
        serde_json::from_str(text).or_else(|e| {
            serde_json::from_str::<ForeignLock>(text)
                .ok()
                .and_then(ForeignLock::into_lock)
                .ok_or_else(|| format!("not a lock: {e}"))
        })
    }

    /// The lock with each field it shows vetted ([`crate::output::boundary::vetted_line`]):
    /// a field the linter blocks is withheld, saying so; a valid time passes unchanged (a
    /// withheld expiry reads as no expiry: stale). For display only: ownership is judged on
    /// the lock as read. Anyone who can edit `HANDOFF.lock` (or commit one into a repository
    /// the next agent clones) writes these fields, and `status`, `context`, the session-start
    /// answer and every exit 3 hand them to an agent (review atk45 #1); a remote lease's
    /// fields were vetted so already (review s28 #2).
    pub fn shown(&self, dir: &HandoffDir) -> Result<HandoffLock> {
        let field = |text: &str, what: &str| crate::output::boundary::vetted_line(dir, text, what);
        Ok(HandoffLock {
            agent: field(&self.agent, "an agent name")?,
            session_id: field(&self.session_id, "a session id")?,
            host: field(&self.host, "a host name")?,
            started: field(&self.started, "a time")?,
            expires: field(&self.expires, "a time")?,
            phase: self
                .phase
                .as_deref()
                .map(|p| field(p, "a phase"))
                .transpose()?,
            updating: self
                .updating
                .iter()
                .map(|u| field(u, "a file name"))
                .collect::<Result<_>>()?,
            write: self
                .write
                .as_deref()
                .map(|w| field(w, "a command"))
                .transpose()?,
            ..self.clone()
        })
    }

    /// True when this lock is the session `id`'s (never for a lock that names no session).
    pub fn is_session(&self, id: &str) -> bool {
        !self.anonymous && self.session_id == id
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
        Error::Locked(Box::new(self.holder(now)))
    }

    /// Describes this lock's holder for an error.
    pub fn holder(&self, now: Timestamp) -> LockHolder {
        LockHolder {
            agent: self.agent.clone(),
            session_id: self.session_id.clone(),
            host: Some(self.host.clone()),
            started: Some(self.started.clone()),
            expires: Some(self.expires.clone()),
            stale: self.is_stale(now),
            since: format!("{} ({})", self.started, self.age(now)),
        }
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
    /// Reads the lock of a handoff directory (see [`read_lock_bytes`]): `Unreadable` for
    /// anything that is not a small regular file holding a lock.
    pub fn read(dir: &HandoffDir) -> Result<LockState> {
        Ok(match read_lock_bytes(dir)? {
            None => LockState::Absent,
            Some(Err(reason)) => LockState::Unreadable(reason),
            Some(Ok(bytes)) => match HandoffLock::parse(&bytes) {
                Ok(lock) => LockState::Held(lock),
                Err(reason) => LockState::Unreadable(reason),
            },
        })
    }

    /// Returns true when a lock file exists (readable or not).
    pub fn is_present(&self) -> bool {
        !matches!(self, LockState::Absent)
    }

    /// The exit-3 error for this lock when it is not ours.
    pub fn locked_error(&self, dir: &HandoffDir, now: Timestamp) -> Error {
        match self {
            LockState::Held(lock) => match lock.shown(dir) {
                Ok(shown) => shown.locked_error(now),
                Err(e) => e,
            },
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

/// Reads the bytes of `HANDOFF.lock` without ever blocking or reading without bound: `None`
/// when there is no lock; `Some(Err(what it is))` for a lock that is not a regular file
/// (FIFO, socket, device, directory), a symbolic link leaving the repository or a file larger
/// than [`MAX_LOCK_BYTES`], whose content is never read.
pub fn read_lock_bytes(dir: &HandoffDir) -> Result<Option<std::result::Result<Vec<u8>, String>>> {
    let path = dir.abs.join(LOCK);
    let read_err = |source| Error::Read {
        path: dir.path_of(LOCK),
        source,
    };
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(read_err(source)),
    };
    // git-aahp writes its lock as a file, so a link is never one of its locks: it is
    // reported, never followed (one into `.git` would have git's own files read as a lock).
    if meta.file_type().is_symlink() {
        let why = match path.canonicalize() {
            Ok(target) if !target.starts_with(&dir.root) => {
                "it is a symbolic link pointing outside the repository"
            }
            Ok(target) if target.components().any(|c| c.as_os_str() == ".git") => {
                "it is a symbolic link pointing into .git"
            }
            Ok(_) => "it is a symbolic link, not the file git-aahp writes",
            Err(_) => "it is a symbolic link that leads nowhere",
        };
        return Ok(Some(Err(why.into())));
    }
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(read_err(source)),
    };
    if !meta.is_file() {
        return Ok(Some(Err(not_regular(&meta))));
    }
    let file = match crate::handoff::open_nonblocking(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(read_err(source)),
    };
    // The name may have been swapped for a FIFO or device since the check above: judge
    // what was opened.
    let meta = file.metadata().map_err(read_err)?;
    if !meta.is_file() {
        return Ok(Some(Err(not_regular(&meta))));
    }
    let mut bytes = Vec::new();
    file.take(MAX_LOCK_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read_err)?;
    if bytes.len() as u64 > MAX_LOCK_BYTES {
        return Ok(Some(Err(format!(
            "it is larger than {MAX_LOCK_BYTES} bytes"
        ))));
    }
    Ok(Some(Ok(bytes)))
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
    acquire_with(dir, lock, true)
}

/// [`acquire`] of the lock of a session that begins and ends inside one process (`commit`
/// without `begin`), with no fsync (issue #14: two fewer per commit). Exclusion between
/// processes is the same: it is the link's, which the page cache keeps. Only a power cut
/// differs. After the session's journal is written, `recover` acts on the journal whatever
/// the lock says. Before, nothing has changed yet, and the cut leaves the lock complete,
/// absent (the next `commit` takes it anew) or unreadable (exit 3 until `git aahp recover`
/// clears it, saving the session's files first, as it does for a complete lock without a
/// journal once that is stale or `--force` is given).
///
/// # Crash safety
/// As [`acquire`] for a process killed.
pub fn acquire_in_process(dir: &HandoffDir, lock: &HandoffLock) -> Result<bool> {
    acquire_with(dir, lock, false)
}

fn acquire_with(dir: &HandoffDir, lock: &HandoffLock, durable: bool) -> Result<bool> {
    let path = dir.abs.join(LOCK);
    let write_err = |source| Error::Write {
        path: dir.path_of(LOCK),
        source,
    };
    // What is written is read back by every command of the session: a lock past the read
    // limit (a very long `--agent`, thousands of `--updating`) would make the session's own
    // `commit` call it unknown and stale.
    let bytes = lock.to_bytes();
    if bytes.len() as u64 > MAX_LOCK_BYTES {
        return Err(Error::Usage(format!(
            "the session's lock would be {} bytes, more than the {} KiB a lock may hold: \
             give a shorter --agent or --session-id, or fewer --updating files",
            bytes.len(),
            MAX_LOCK_BYTES / 1024
        )));
    }
    // Its mode follows the umask, as every new file the tool creates: in a group-shared
    // repository the group reads the lock.
    let prefix = format!("{}lock-", crate::handoff::TEMP_PREFIX);
    let mut tmp = crate::handoff::temp_file_in(&dir.abs, &prefix).map_err(write_err)?;
    tmp.write_all(&bytes).map_err(write_err)?;
    if durable {
        tmp.as_file().sync_all().map_err(write_err)?;
    }
    let linked = match std::fs::hard_link(tmp.path(), &path) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
        // No hard links here (some network or FUSE file systems): exclusive creation is
        // still atomic with respect to other sessions, only the content is written after.
        Err(_) => create_new(&path, &bytes, durable).map_err(write_err)?,
    };
    crate::failpoint::hit("lock:linked");
    drop(tmp);
    if durable {
        sync_dir(&dir.abs);
    }
    Ok(linked)
}

fn create_new(path: &Path, bytes: &[u8], durable: bool) -> std::io::Result<bool> {
    match std::fs::File::create_new(path) {
        Ok(mut f) => {
            f.write_all(bytes)?;
            if durable {
                f.sync_all()?;
            }
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

/// Removes `HANDOFF.lock` (a missing lock is not an error) and syncs the directory. A FIFO,
/// device or symbolic link in its place is removed like a file (a link's target is never
/// touched); a directory is refused, since it may hold someone's files.
pub fn release(dir: &HandoffDir) -> Result<()> {
    let path = dir.abs.join(LOCK);
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
        return Err(Error::invalid(
            dir.path_of(LOCK),
            None,
            "is a directory, not a lock; git-aahp does not delete directories: move it out \
             of the handoff directory by hand",
        ));
    }
    match std::fs::remove_file(&path) {
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

/// Names what a non-regular file is, for [`LockState::Unreadable`].
fn not_regular(meta: &std::fs::Metadata) -> String {
    let t = meta.file_type();
    let kind = crate::handoff::special_kind(t);
    format!("it is not a regular file but {kind}")
}

pub(crate) fn sync_dir(dir: &Path) {
    crate::handoff::sync_dir(dir);
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

/// Longest session id accepted, in characters.
pub const SESSION_ID_MAX: usize = 128;

/// Checks that a session id can name a ref part (`refs/aahp/recovered/<id>`) as it is:
/// ASCII letters, digits, `-`, `_` and `.`, not starting with `.` or `-`, without `..`, not
/// ending with `.` or `.lock`, at most [`SESSION_ID_MAX`] characters. Ids enter here
/// (`begin`, a lock a command takes); ids already in a lock are mapped by
/// [`crate::transaction::recovered_ref_part`] instead.
pub fn check_session_id(id: &str) -> std::result::Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let ok = !id.is_empty()
        && id.chars().count() <= SESSION_ID_MAX
        && id.chars().all(allowed)
        && !id.starts_with(['.', '-'])
        && !id.ends_with('.')
        && !id.to_ascii_lowercase().ends_with(".lock")
        && !id.contains("..");
    if ok {
        Ok(())
    } else {
        Err(format!(
            "the session id {id:?} cannot name a git ref: use ASCII letters, digits, `-`, `_` \
             and single dots (not first or last, no `.lock` ending), at most {SESSION_ID_MAX} \
             characters"
        ))
    }
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
    let per_unit = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => {
            return Err(format!(
                "invalid lock lifetime `{s}`: expected e.g. 4h, 30m, 1d"
            ));
        }
    };
    let secs = n
        .checked_mul(per_unit)
        .ok_or_else(|| format!("the lock lifetime `{s}` is too long"))?;
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
    check_session_id(session_id).map_err(Error::Usage)?;
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
        base_manifest: None,
        updating,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        phase,
        write: None,
        remote: None,
        anonymous: false,
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
    fn session_ids_must_name_a_ref_part() {
        for good in ["s1", "S-1_a.b", "20261122T100000Z-1a2b3c4d", "a.lock.b"] {
            assert!(check_session_id(good).is_ok(), "{good}");
        }
        let long = "a".repeat(SESSION_ID_MAX + 1);
        for bad in [
            "",
            "v1..2",
            "sess.lock",
            "a/b",
            ".a",
            "-a",
            "a.",
            "a b",
            "a\u{1b}b",
            "a\nb",
            "a:b",
            "a~1",
            "a^",
            "a@{1}",
            "a*",
            "a?",
            "a[",
            "ü",
            &long,
        ] {
            assert!(check_session_id(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn ttl_arithmetic_never_overflows() {
        assert!(parse_ttl("99999999999999999d").is_err());
        assert!(parse_ttl("9223372036854775807h").is_err());
    }

    #[test]
    fn garbage_is_not_a_lock() {
        assert!(HandoffLock::parse(b"{not json").is_err());
        assert!(HandoffLock::parse(b"\xff\xfe").is_err());
        assert!(HandoffLock::parse(b"{\"agent\": 1}").is_err());
    }

    #[test]
    fn a_lock_in_the_proposals_format_is_live_for_the_default_ttl() {
        let lock = HandoffLock::parse(
            b"{ \"agent\": \"claude\", \"started\": \"2026-11-22T10:00:00Z\", \"updating\": [\"STATUS.md\"] }",
        )
        .unwrap();
        assert_eq!(lock.agent, "claude");
        assert_eq!(lock.session_id, "unknown");
        assert_eq!(lock.updating, ["STATUS.md"]);
        assert_eq!(lock.write, None);
        assert_eq!(lock.expires, "2026-11-22T14:00:00Z");
        assert!(!lock.is_stale("2026-11-22T14:00:00Z".parse().unwrap()));
        assert!(lock.is_stale("2026-11-22T14:00:01Z".parse().unwrap()));
        // Its own expiry, when it gives one, wins; without a time it began, it is garbage.
        let own = br#"{"agent": "a", "started": "2026-11-22T10:00:00Z", "expires": "2026-11-22T10:30:00Z"}"#;
        assert_eq!(
            HandoffLock::parse(own).unwrap().expires,
            "2026-11-22T10:30:00Z"
        );
        assert!(HandoffLock::parse(br#"{"agent": "a", "started": "soon"}"#).is_err());
        assert!(HandoffLock::parse(br#"{"agent": "a"}"#).is_err());
    }

    #[test]
    fn session_ids_differ_between_calls() {
        let now: Timestamp = "2026-11-22T10:00:00Z".parse().unwrap();
        let a = new_session_id(now);
        assert!(a.starts_with("20261122T100000Z-"), "{a}");
        assert_ne!(a, new_session_id(now));
    }
}
