//! The handoff linter (issue #3): prompt injection, hidden content, secrets, PII, `.aiignore`.
//!
//! This file fixes the interface the rest of the crate calls; the rules land with issue #3.

use serde::Serialize;

use crate::error::Result;
use crate::handoff::{HandoffDir, Snapshot};

/// How serious a finding is. `Error` blocks commits and fails CI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Blocks the commit.
    Error,
    /// Reported, does not block.
    Warning,
    /// Informational.
    Info,
}

/// One finding.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnostic {
    /// Stable rule id (`PI001`).
    pub rule: &'static str,
    /// Rule slug (`instruction-override`).
    pub name: &'static str,
    /// Severity after configuration.
    pub severity: Severity,
    /// Repository-relative path with `/`.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters).
    pub column: usize,
    /// What was found; secrets are already redacted.
    pub message: String,
    /// Stable identity of the finding across runs (for SARIF and baselines).
    pub fingerprint: String,
}

impl Diagnostic {
    /// True when the finding blocks a commit.
    pub fn is_blocking(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Lints every file of a handoff snapshot (the files themselves, with `.aiignore` and the
/// allowlists found in the same snapshot), judging expiry dates against `today`.
pub fn check_snapshot(
    _dir: &HandoffDir,
    _snap: &Snapshot,
    _today: jiff::civil::Date,
) -> Result<Vec<Diagnostic>> {
    // TODO(#3): the rule registry and pipeline replace this placeholder.
    Ok(Vec::new())
}
