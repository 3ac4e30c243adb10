//! The file transformations of a session end and of a recovery, each reading and writing one
//! handoff file through the model in [`crate::handoff`]: trust decay, log rotation, marking
//! an interrupted session's claims unknown, and the recovery entry in LOG.md.

use jiff::civil::Date;

use crate::error::Result;
use crate::handoff::HandoffDir;

/// Writes one handoff file atomically (by name).
pub type WriteFn<'a> = dyn Fn(&str, &[u8]) -> Result<()> + 'a;

/// Decays expired `verified` claims in TRUST.md; returns the decayed properties.
pub fn decay_trust(_dir: &HandoffDir, _today: Date, _write: &WriteFn<'_>) -> Result<Vec<String>> {
    // TODO(#4): wire crate::handoff::trust::decay once branch `logtrust` is merged.
    Ok(Vec::new())
}

/// Rotates LOG.md so the newest `keep` entries remain; returns how many entries moved.
pub fn rotate_log(_dir: &HandoffDir, _keep: usize, _write: &WriteFn<'_>) -> Result<usize> {
    // TODO(#4): wire crate::handoff::log::rotate once branch `logtrust` is merged.
    Ok(0)
}

/// Marks the claims the interrupted session changed (compared with the restored TRUST.md)
/// as untested; returns their properties.
pub fn mark_session_claims(
    _dir: &HandoffDir,
    _session: &crate::handoff::Snapshot,
    _write: &WriteFn<'_>,
) -> Result<Vec<String>> {
    // TODO(#4): wire crate::handoff::trust::mark_unknown once branch `logtrust` is merged.
    Ok(Vec::new())
}

/// Adds an entry to LOG.md (newest first).
pub fn append_log(dir: &HandoffDir, entry: &str, write: &WriteFn<'_>) -> Result<()> {
    // TODO(#4): wire crate::handoff::log::append_entry once branch `logtrust` is merged.
    let old = std::fs::read_to_string(dir.abs.join("LOG.md")).unwrap_or_default();
    write("LOG.md", format!("{entry}\n---\n\n{old}").as_bytes())
}
