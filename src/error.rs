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
    #[error("{path}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Invalid {
        path: String,
        line: Option<usize>,
        message: String,
    },
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
    #[error("the handoff is locked by {holder} (session {session}) since {since}{}", if *stale { " — the lock is past its expiry and looks stale" } else { "" })]
    Locked {
        holder: String,
        session: String,
        since: String,
        stale: bool,
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
            Error::Locked { .. } => ExitStatus::Locked,
            _ => ExitStatus::Error,
        }
    }

    /// A next step for the user, printed as `hint:` under the error.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            Error::NoHandoffDir(_) => Some("run `git aahp init` to create it"),
            Error::NoManifest(_) => Some("run `git aahp manifest` to generate it"),
            Error::Locked { stale: true, .. } => Some(
                "the holder seems to have crashed: `git aahp recover` finishes or rolls back its session",
            ),
            Error::Locked { stale: false, .. } => Some(
                "wait for that session to run `git aahp commit` (or retry with `--wait SECONDS`); if it is gone, `git aahp recover --force` saves its files and clears the lock",
            ),
            Error::Schema { .. } => Some("regenerate it with `git aahp manifest`"),
            _ => None,
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
