//! The crate-level [`Error`] and the documented [`ExitStatus`] codes. Each variant says what
//! failed in words the user can act on; `main` prints it with its causes and a hint.

use std::path::PathBuf;

/// Exit codes, documented in `--help` and the README (SPEC §3); a test pins them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitStatus {
    /// 0: success, no blocking findings.
    Success,
    /// 1: the check ran and failed (findings, drift, stale manifest).
    Findings,
    /// 2: could not run (usage error, unreadable or invalid input or config, not a repository).
    Error,
    /// 3: `HANDOFF.lock` is held by another session.
    Locked,
}

impl ExitStatus {
    /// Returns the process exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Findings => 1,
            ExitStatus::Error => 2,
            ExitStatus::Locked => 3,
        }
    }
}

/// A failure that stops a command. Its exit status is [`Error::status`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The working directory is not inside a git repository.
    #[error("not a git repository (or any parent up to the mount point): {path}")]
    NotARepository {
        path: PathBuf,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The repository is bare, so there is no working tree holding a handoff directory.
    #[error("the repository at {0} has no working tree")]
    Bare(PathBuf),
    /// No handoff directory where one was expected.
    #[error("no handoff directory at {0}")]
    NoHandoffDir(String),
    /// No MANIFEST.json in the handoff directory.
    #[error("no MANIFEST.json in {0}")]
    NoManifest(String),
    /// A file could not be read.
    #[error("could not read {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A file could not be written (nothing was replaced: writes go through a temp file).
    #[error("could not write {path}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// Input that the tool refuses to interpret: names the file and, when known, the line.
    #[error("{}{}: {message}", crate::output::escape_untrusted(path), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Invalid {
        path: String,
        line: Option<usize>,
        message: String,
    },
    /// A file holds git conflict markers left by a merge, rebase or `git checkout -m`.
    #[error(
        "{path}:{line}: holds merge conflict markers (`<<<<<<<`, `=======`, `>>>>>>>`) left by a merge, rebase or `git checkout -m`"
    )]
    Conflicted { path: String, line: usize },
    /// The manifest parses but does not satisfy the schema.
    #[error("{path} does not match the manifest schema:{}", bullets(errors))]
    Schema { path: String, errors: Vec<String> },
    /// Bad command-line usage that clap could not catch.
    #[error("{0}")]
    Usage(String),
    /// A git operation failed.
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    /// `HANDOFF.lock` is held by another session.
    // Lock fields are anyone's text: kept on one line (a newline would start a line of its
    // own), the rest of the boundary's cleaning follows in the error sink.
    #[error("the handoff is locked by {} (session {}) since {}{}", line(&.0.agent), line(&.0.session_id), line(&.0.since), if .0.stale { " — the lock is past its expiry and looks stale" } else { "" })]
    Locked(Box<LockHolder>),
    /// The caller's own session holds the lock and has not expired: it is live, not
    /// interrupted, so `recover` leaves it alone unless forced (issue #17).
    #[error("this is your own live session: {} (session {}) since {}, its lock valid until {}; nothing was recovered", line(&.0.agent), line(&.0.session_id), line(&.0.since), line(.0.expires.as_deref().unwrap_or("unknown")))]
    LiveSession(Box<LockHolder>),
    /// Text from the command line that would be written into the handoff (or a commit or
    /// tag) holds something the linter blocks, such as a secret: nothing was written.
    #[error("{what} was refused: the linter blocks it ({}); nothing was written", findings.join("; "))]
    Refused {
        /// What was refused (`--context`, the task title, …).
        what: String,
        /// The blocking findings, already redacted.
        findings: Vec<String>,
        /// What to do instead, for the kind of text refused.
        hint: &'static str,
    },
    /// `git aahp commit` declined a session the handoff would misdescribe (no LOG entry, a
    /// STATUS summary that still says nothing was done, another handoff landed since
    /// `begin`): nothing was changed. Also a check that cannot judge what it was given
    /// (exit 1, failing closed), with the way to make it judgeable.
    #[error("{reason}")]
    Declined {
        /// What is wrong, naming the file.
        reason: String,
        /// The way forward.
        hint: &'static str,
    },
    /// Another process of the same session is rewriting the handoff and did not finish in time.
    #[error(
        "another git-aahp command is writing {dir} ({holder}) and did not finish within {waited_secs} seconds"
    )]
    Busy {
        dir: String,
        holder: String,
        waited_secs: u64,
    },
    /// The `git commit` of a `git aahp commit` that was killed is still running and may yet
    /// create the session's commit: nothing may be finished or rolled back until it ends
    /// (issue #12 item 5).
    #[error(
        "the `git commit` of session {} (pid {pid}) is still running and may yet create the session's commit; nothing was changed",
        line(session_id)
    )]
    CommitRunning {
        /// The interrupted session.
        session_id: String,
        /// The running `git commit`.
        pid: u32,
    },
    /// Another error, with context.
    #[error("{context}")]
    Other {
        context: String,
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
}

impl Error {
    /// Builds an [`Error::Invalid`] naming a file and optionally a line.
    pub fn invalid(
        path: impl Into<String>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Error::Invalid {
            path: path.into(),
            line,
            message: message.into(),
        }
    }

    /// Builds an [`Error::Other`] with no cause.
    pub fn other(context: impl Into<String>) -> Self {
        Error::Other {
            context: context.into(),
            source: None,
        }
    }

    /// Returns the exit status this error maps to.
    pub fn status(&self) -> ExitStatus {
        match self {
            Error::Locked(_)
            | Error::LiveSession(_)
            | Error::Busy { .. }
            | Error::CommitRunning { .. } => ExitStatus::Locked,
            Error::Refused { .. } | Error::Declined { .. } => ExitStatus::Findings,
            _ => ExitStatus::Error,
        }
    }

    /// A next step for the user, printed as `hint:` under the error.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            Error::NoHandoffDir(_) => Some("run `git aahp init` to create it"),
            Error::Declined { hint, .. } | Error::Refused { hint, .. } => Some(hint),
            Error::NoManifest(_) => Some("run `git aahp manifest` to generate it"),
            Error::Locked(h) if h.stale => Some(
                "the holder seems to have crashed: `git aahp recover` finishes or rolls back its session",
            ),
            Error::Locked(_) => Some(
                "wait for that session to run `git aahp commit` (or retry with `--wait SECONDS`); if it is gone, `git aahp recover --force` saves its files and clears the lock",
            ),
            Error::LiveSession(_) => Some(
                "finish the session with `git aahp commit -m MESSAGE`; to abandon it instead, `git aahp recover --force` saves its files under refs/aahp/recovered/ and rolls the handoff back",
            ),
            Error::Schema { .. } => Some("regenerate it with `git aahp manifest`"),
            Error::Conflicted { path, .. } if path.ends_with(crate::handoff::MANIFEST) => Some(
                "run `git aahp manifest` to rebuild MANIFEST.json from both sides (tasks unioned, a clashing id renumbered), then `git add` it",
            ),
            Error::Conflicted { .. } => Some(
                "resolve the merge in that file (keep what each side meant, remove the markers), then run `git aahp manifest` and `git add` both",
            ),
            Error::NotARepository { .. } => {
                Some("run it inside a git repository (or `git init` one)")
            }
            // An object the clone lacks: a partial clone (`--filter=blob:none`) fetches blobs
            // only when git itself needs them, and the tool reads in-process (review s28b #7).
            Error::Git(crate::git::GitError::Read { action, .. })
                if action.starts_with("read blob") || action.contains("object") =>
            {
                Some(
                    "the object is not in this clone: a partial clone (`--filter`) or a shallow one lacks it; fetch it (`git fetch --refetch`, or clone without `--filter`), then run the check again",
                )
            }
            Error::Busy { .. } => Some(
                "retry when it has finished; a git-aahp command run from a hook of `git aahp commit` waits for that commit",
            ),
            Error::CommitRunning { .. } => Some(
                "wait for it to finish (its hooks may take a while), then run `git aahp recover` again: it finishes the session if the commit landed and rolls it back if it did not",
            ),
            _ => None,
        }
    }

    /// A stable `snake_case` name for the failure (the `kind` of a `--json` error document).
    pub fn kind(&self) -> &'static str {
        match self {
            Error::NotARepository { .. } => "not_a_repository",
            Error::Bare(_) => "bare_repository",
            Error::NoHandoffDir(_) => "no_handoff_dir",
            Error::NoManifest(_) => "no_manifest",
            Error::Read { .. } => "read",
            Error::Write { .. } => "write",
            Error::Invalid { .. } => "invalid_input",
            Error::Schema { .. } => "schema",
            Error::Conflicted { .. } => "merge_conflict",
            Error::Usage(_) => "usage",
            Error::Git(_) => "git",
            Error::Locked(_) => "locked",
            Error::LiveSession(_) => "live_session",
            Error::Busy { .. } => "busy",
            Error::CommitRunning { .. } => "commit_running",
            Error::Refused { .. } => "refused",
            Error::Declined { .. } => "declined",
            Error::Other { .. } => "other",
        }
    }

    /// Returns true when the cause chain contains a broken pipe (stdout closed early).
    pub fn is_broken_pipe(&self) -> bool {
        let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(self);
        while let Some(e) = cur {
            if let Some(io) = e.downcast_ref::<std::io::Error>()
                && io.kind() == std::io::ErrorKind::BrokenPipe
            {
                return true;
            }
            cur = e.source();
        }
        false
    }
}

impl From<std::io::Error> for Error {
    fn from(source: std::io::Error) -> Self {
        Error::Other {
            context: "I/O error".into(),
            source: Some(Box::new(source)),
        }
    }
}

/// Who holds `HANDOFF.lock` (an exit-3 error). Every field comes from the lock file or
/// the journal, so it is untrusted text: it is shown only through the output boundary.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LockHolder {
    /// The holder's agent name.
    #[serde(serialize_with = "crate::output::boundary::line")]
    pub agent: String,
    /// The holder's session id.
    #[serde(serialize_with = "crate::output::boundary::line")]
    pub session_id: String,
    /// The host the session runs on, when known.
    #[serde(serialize_with = "crate::output::boundary::opt_line")]
    pub host: Option<String>,
    /// When the session started, as recorded.
    #[serde(serialize_with = "crate::output::boundary::opt_line")]
    pub started: Option<String>,
    /// When the lock expires, as recorded.
    #[serde(serialize_with = "crate::output::boundary::opt_line")]
    pub expires: Option<String>,
    /// True when the lock is past its expiry or its holder is known to be gone.
    pub stale: bool,
    /// The human description of the start (`… (2h 5m ago)`).
    #[serde(skip)]
    pub since: String,
}

/// Untrusted text for a one-line message (see [`crate::output::boundary::clean_line`]).
fn line(s: &str) -> String {
    crate::output::boundary::clean_line(s)
}

/// Formats messages as an indented list, one per line.
fn bullets(items: &[String]) -> String {
    items.iter().fold(String::new(), |mut s, e| {
        s.push_str("\n  ");
        s.push_str(e);
        s
    })
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
