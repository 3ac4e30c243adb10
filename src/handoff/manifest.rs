//! `MANIFEST.json`: read leniently, regenerated from the files, written losslessly.
//!
//! The document is kept as an ordered JSON map, so every field this tool does not own
//! (`tasks`, `next_task_id`, `cross_repo_ref`, anything newer) survives a rewrite in its
//! original place and form. Entries of files whose checksum did not change are kept as they
//! were, so regenerating an up-to-date manifest changes nothing (SPEC §2.1, §3.4).

use jiff::Timestamp;
use serde_json::{Map, Value, json};

use super::checksum_cache::BlobCache;
use super::log::INDEX_FILE;
use super::log_stream::Content;
use super::stream::{Pass, Streamed};
use super::{HandoffDir, Snapshot, checksum, decode_text, line_count, tokens};
use crate::clock;
use crate::error::{Error, Result};

/// The version written into a new manifest.
pub const NEW_VERSION: &str = "2.0";
/// Longest `summary` the schema allows, in characters.
pub const SUMMARY_MAX: usize = 200;
/// Longest `quick_context` the schema allows, in characters.
pub const QUICK_CONTEXT_MAX: usize = 500;
/// Session phases the schema allows.
pub const PHASES: &[&str] = &[
    "research",
    "architecture",
    "implementation",
    "review",
    "fix",
    "idle",
    "documentation",
];

/// A parsed manifest: the ordered JSON document plus the bytes it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// The document, keys in file order.
    pub doc: Map<String, Value>,
}

/// One `files` entry as the tool reads it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FileEntry {
    /// `sha256:<hex>`, or whatever placeholder the file holds.
    pub checksum: String,
    /// When the content last changed (RFC 3339).
    pub updated: String,
    /// Newline count.
    pub lines: u64,
    /// One-line summary.
    pub summary: String,
}

/// What a regeneration may set besides the file entries.
#[derive(Debug, Clone, Default)]
pub struct SessionInfo {
    /// `last_session.agent`.
    pub agent: Option<String>,
    /// `last_session.session_id`.
    pub session_id: Option<String>,
    /// `last_session.phase` (one of [`PHASES`]).
    pub phase: Option<String>,
    /// `last_session.duration_minutes`.
    pub duration_minutes: Option<u64>,
    /// `quick_context`; kept from the old manifest when `None`.
    pub context: Option<String>,
    /// `project`; kept from the old manifest when `None`.
    pub project: Option<String>,
}

impl SessionInfo {
    /// True when the caller asked to record something about the session.
    pub fn is_empty(&self) -> bool {
        self.agent.is_none()
            && self.session_id.is_none()
            && self.phase.is_none()
            && self.duration_minutes.is_none()
            && self.context.is_none()
            && self.project.is_none()
    }

    /// Checks values against the schema before anything is written.
    pub fn validate(&self) -> Result<()> {
        if let Some(p) = &self.phase
            && !PHASES.contains(&p.as_str())
        {
            return Err(Error::Usage(format!(
                "invalid phase `{p}`; expected one of: {}",
                PHASES.join(", ")
            )));
        }
        if let Some(c) = &self.context
            && c.chars().count() > QUICK_CONTEXT_MAX
        {
            return Err(Error::Usage(format!(
                "--context is {} characters; the manifest allows at most {QUICK_CONTEXT_MAX}",
                c.chars().count()
            )));
        }
        if let Some(p) = &self.project
            && p.trim().is_empty()
        {
            return Err(Error::Usage("--project must not be empty".into()));
        }
        Ok(())
    }
}

/// The outcome of [`Manifest::regenerate`].
#[derive(Debug, Clone)]
pub struct Regenerated {
    /// The new manifest (equal to the old one when nothing changed).
    pub manifest: Manifest,
    /// True when the document differs from the old one and must be written.
    pub changed: bool,
    /// Files whose entries changed, were added or removed.
    pub changed_files: Vec<String>,
}

/// Per-file state of the manifest against the content (SPEC §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileState {
    /// Checksum matches.
    Ok,
    /// Indexed, present, but the content changed (or the checksum is a placeholder).
    Changed,
    /// Indexed but absent.
    Missing,
    /// Present but not indexed.
    Unindexed,
}

/// One file's [`FileState`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FileCheck {
    /// File name within the handoff directory.
    pub name: String,
    /// Its state.
    pub state: FileState,
    /// The checksum recorded in the manifest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// The checksum of the content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
}

/// [`Error::Conflicted`] at the first `<<<<<<<` marker when a manifest that is not JSON
/// holds complete git conflict markers (`git aahp manifest` rebuilds it from both sides).
pub fn conflict_error(path: &str, text: &str) -> Option<Error> {
    super::merge::split_conflict(text)?;
    let line = text.lines().position(|l| l.starts_with("<<<<<<<"))? + 1;
    Some(Error::Conflicted {
        path: path.to_owned(),
        line,
    })
}

impl Manifest {
    /// Parses a manifest. A BOM and CRLF line ends are accepted; conflict markers are
    /// [`Error::Conflicted`]; malformed JSON or a
    /// non-object document is an error naming the file and line; so is a `files` key that
    /// is absolute or contains `..` (it could make a later write or read leave the
    /// directory).
    pub fn parse(path: &str, bytes: &[u8]) -> Result<Manifest> {
        Manifest::parse_with(path, bytes, super::json::from_str)
    }

    /// Parses a manifest that is only read, never written back (a base commit's, compared
    /// with the new one): a number a [`Value`] cannot hold exactly is taken as it holds it.
    pub fn parse_read_only(path: &str, bytes: &[u8]) -> Result<Manifest> {
        Manifest::parse_with(path, bytes, super::json::from_str_read_only)
    }

    fn parse_with(
        path: &str,
        bytes: &[u8],
        json: fn(&str) -> std::result::Result<Value, super::json::JsonError>,
    ) -> Result<Manifest> {
        let text = decode_text(path, bytes)?;
        let value: Value = json(text).map_err(|e| {
            conflict_error(path, text).unwrap_or_else(|| {
                Error::invalid(path, Some(e.line()), e.describe("malformed JSON"))
            })
        })?;
        let Value::Object(doc) = value else {
            return Err(Error::invalid(
                path,
                Some(1),
                "the manifest must be a JSON object",
            ));
        };
        // Its values reach messages (`verify` quotes `last_session.commit`, `task add` the
        // `next_task_id`) escaped or embedded: a secret in one is redacted from any output.
        note_strings(&doc);
        if let Some(files) = doc.get("files") {
            let Value::Object(files) = files else {
                return Err(Error::invalid(
                    path,
                    line_of(text, "\"files\""),
                    "`files` must be an object",
                ));
            };
            for key in files.keys() {
                if !is_safe_file_key(key) {
                    return Err(Error::invalid(
                        path,
                        line_of(text, &serde_json::to_string(key).unwrap_or_default()),
                        format!(
                            "`files` key {key:?} must be a plain file name (no `/`, `\\` or `..`)"
                        ),
                    ));
                }
            }
        }
        Ok(Manifest { doc })
    }

    /// Reads the manifest from a snapshot, or `None` when the directory has none.
    pub fn from_snapshot(dir: &HandoffDir, snap: &Snapshot) -> Result<Option<Manifest>> {
        match snap.get(super::MANIFEST) {
            Some(bytes) => Ok(Some(Manifest::parse(&dir.path_of(super::MANIFEST), bytes)?)),
            None => Ok(None),
        }
    }

    /// Serialises deterministically: two-space indentation, keys in document order, LF,
    /// trailing newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(&self.doc).expect("a JSON map always serialises");
        out.push(b'\n');
        out
    }

    /// Returns a string field.
    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.doc.get(key).and_then(Value::as_str)
    }

    /// Returns a `last_session` string field.
    pub fn session_field(&self, key: &str) -> Option<&str> {
        self.doc.get("last_session")?.get(key)?.as_str()
    }

    /// Returns the `files` entries that have the expected shape, in document order.
    pub fn files(&self) -> Vec<(String, FileEntry)> {
        let Some(Value::Object(files)) = self.doc.get("files") else {
            return Vec::new();
        };
        files
            .iter()
            .map(|(name, v)| {
                let s = |k: &str| {
                    v.get(k)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                (
                    name.clone(),
                    FileEntry {
                        checksum: s("checksum"),
                        updated: s("updated"),
                        lines: v.get("lines").and_then(Value::as_u64).unwrap_or_default(),
                        summary: s("summary"),
                    },
                )
            })
            .collect()
    }

    /// Returns `next_task_id`, read leniently (integer or numeric string).
    pub fn next_task_id(&self) -> Option<u64> {
        match self.doc.get("next_task_id")? {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// Returns the tasks as `(id, task)` pairs: from the map form (`T-001` → task) or from
    /// the older list form (tasks carrying an `id`, null holes skipped).
    pub fn tasks(&self) -> Vec<(String, &Value)> {
        match self.doc.get("tasks") {
            Some(Value::Object(map)) => map.iter().map(|(k, v)| (k.clone(), v)).collect(),
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(|t| Some((t.get("id")?.as_str()?.to_string(), t)))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Compares the recorded checksums with a snapshot of the directory. Files the snapshot
    /// left on disk ([`Snapshot::streamed`]: LOG-ARCHIVE.md and its index) are hashed in
    /// pieces, never read whole (issue #12 item 2).
    pub fn check_files(&self, dir: &HandoffDir, snap: &Snapshot) -> Result<Vec<FileCheck>> {
        Ok(self.check_files_with(snap, &snap.streamed_checksums(dir)?))
    }

    /// [`Manifest::check_files`] for a snapshot with unread files or files left on disk
    /// ([`Snapshot::streamed`]), whose checksums `known` gives by name. Such a file missing
    /// from `known` counts as changed (fail closed).
    pub fn check_files_with(
        &self,
        snap: &Snapshot,
        known: &std::collections::HashMap<String, String>,
    ) -> Vec<FileCheck> {
        let recorded = self.files();
        let mut out = Vec::new();
        let actual_of = |name: &str| match snap.get(name) {
            Some(bytes) => Some(checksum(bytes)),
            None if snap.unread.contains_key(name) || snap.streamed.contains_key(name) => Some(
                known
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| "unknown (not read)".into()),
            ),
            None => None,
        };
        for (name, entry) in &recorded {
            let check = match actual_of(name) {
                None => FileCheck {
                    name: name.clone(),
                    state: FileState::Missing,
                    expected: Some(entry.checksum.clone()),
                    actual: None,
                },
                Some(actual) => FileCheck {
                    name: name.clone(),
                    state: if actual == entry.checksum {
                        FileState::Ok
                    } else {
                        FileState::Changed
                    },
                    expected: Some(entry.checksum.clone()),
                    actual: Some(actual),
                },
            };
            out.push(check);
        }
        for name in snap.indexed_names() {
            if !recorded.iter().any(|(n, _)| n == name) {
                out.push(FileCheck {
                    name: name.to_string(),
                    state: FileState::Unindexed,
                    expected: None,
                    actual: actual_of(name),
                });
            }
        }
        out
    }

    /// Builds the manifest for `snap`, starting from `old` when there is one.
    ///
    /// Entries of files whose checksum is unchanged are kept exactly (their `updated`,
    /// `lines` and `summary`); changed and new files get a fresh entry stamped `now`; files
    /// gone from the directory are dropped. When no entry changed and `info` asks for
    /// nothing, the old manifest is returned unchanged, so the command is idempotent.
    pub fn regenerate(
        old: Option<&Manifest>,
        dir: &HandoffDir,
        snap: &Snapshot,
        info: &SessionInfo,
        commit: Option<&str>,
        now: Timestamp,
        counts: &mut BlobCache,
    ) -> Result<Regenerated> {
        info.validate()?;
        let now_s = clock::format_rfc3339(now);
        let old_entries: Vec<(String, FileEntry)> = old.map(Manifest::files).unwrap_or_default();
        let old_files = old
            .and_then(|m| m.doc.get("files"))
            .and_then(Value::as_object);

        let mut files = Map::new();
        let mut changed_files = Vec::new();
        for name in snap.indexed_names() {
            let bytes = snap.get(name).unwrap_or_default();
            // A file left on disk is read once, in pieces (issue #12: the archive's size is
            // bounded by the disk).
            let pass = match snap.streamed.get(name) {
                Some(s) => Some((s, s.pass(&dir.path_of(name), name == INDEX_FILE)?)),
                None => None,
            };
            let (sum, lines) = match &pass {
                Some((_, p)) => (p.checksum.clone(), p.lines),
                None => (checksum(bytes), line_count(bytes)),
            };
            let previous = old_entries.iter().find(|(n, _)| n == name).map(|(_, e)| e);
            let entry = match (previous, old_files.and_then(|f| f.get(name))) {
                // An entry that does not match the schema is rebuilt even when the checksum
                // holds: everything in it is regenerable (issue #12, L5).
                (Some(p), Some(raw)) if p.checksum == sum && is_sound_entry(raw, lines) => {
                    raw.clone()
                }
                (_, raw) => {
                    changed_files.push(name.to_string());
                    let summary = match &pass {
                        Some((s, p)) => streamed_summary(&dir.path_of(name), name, s, p)?,
                        None => summarize(name, decode_text(&dir.path_of(name), bytes)?),
                    };
                    // The fields it owns are rewritten; any other field of the entry
                    // (another tool's) is kept as it was.
                    let mut entry = match raw {
                        Some(Value::Object(old)) => old.clone(),
                        _ => Map::new(),
                    };
                    for (k, v) in [
                        ("checksum", json!(sum)),
                        ("updated", json!(now_s)),
                        ("lines", json!(lines)),
                        ("summary", json!(summary)),
                    ] {
                        entry.insert(k.into(), v);
                    }
                    Value::Object(entry)
                }
            };
            files.insert(name.to_string(), entry);
        }
        for (name, _) in &old_entries {
            if !files.contains_key(name) {
                changed_files.push(name.clone());
            }
        }

        let content_changed = !changed_files.is_empty()
            || old.is_none_or(|m| {
                !m.doc.get("token_budget").is_some_and(is_sound_budget)
                    || m.doc.get("files").is_none()
            });
        if !content_changed && info.is_empty() {
            return Ok(Regenerated {
                manifest: old.expect("unchanged implies an old manifest").clone(),
                changed: false,
                changed_files,
            });
        }

        let mut doc = old.map(|m| m.doc.clone()).unwrap_or_default();
        let project = info
            .project
            .clone()
            .or_else(|| {
                old.and_then(|m| m.str_field("project"))
                    .filter(|p| !p.is_empty())
                    .map(String::from)
            })
            .unwrap_or_else(|| default_project(dir));
        set_in_order(
            &mut doc,
            "aahp_version",
            json!(
                old.and_then(|m| m.str_field("aahp_version"))
                    .unwrap_or(NEW_VERSION)
            ),
        );
        set_in_order(&mut doc, "project", json!(project));
        let session = session_object(old, info, commit, &now_s);
        set_in_order(&mut doc, "last_session", Value::Object(session));
        set_in_order(&mut doc, "files", Value::Object(files));
        let quick_context = info
            .context
            .clone()
            .or_else(|| {
                old.and_then(|m| m.str_field("quick_context"))
                    .map(String::from)
            })
            .unwrap_or_else(|| default_quick_context(dir, snap));
        set_in_order(&mut doc, "quick_context", json!(quick_context));
        // Older tools wrote the id as a string; the schema wants an integer.
        if let Some(Value::String(s)) = doc.get("next_task_id")
            && let Ok(n) = s.trim().parse::<u64>()
        {
            doc.insert("next_task_id".into(), json!(n));
        }
        set_in_order(&mut doc, "token_budget", json!({}));
        let mut manifest = Manifest { doc };
        manifest.refresh_token_budget(dir, snap, counts)?;
        let changed = old.is_none_or(|o| o.doc != manifest.doc);
        Ok(Regenerated {
            manifest,
            changed,
            changed_files,
        })
    }

    /// Computes `token_budget` with the real tokenizer. `manifest_only` counts this
    /// document itself, so the numbers are iterated until they are stable. Commands that
    /// change a field the checksums do not cover (`task`) call it to keep the budget exact.
    /// Files are counted through `counts`, so a file counted before is not counted again.
    pub fn refresh_token_budget(
        &mut self,
        dir: &HandoffDir,
        snap: &Snapshot,
        counts: &mut BlobCache,
    ) -> Result<()> {
        let mut core = 0;
        let mut full = 0;
        for name in snap.indexed_names() {
            // No budget counts the archive or its index (`full_read` leaves them out), so
            // they are neither read nor tokenized: they only grow (issue #12 item 2).
            if super::ARCHIVE_PAIR.contains(&name) {
                continue;
            }
            let bytes = snap.get(name).unwrap_or_default();
            let text = decode_text(&dir.path_of(name), bytes)?;
            let n = counts.token_count(bytes, text);
            if name == "STATUS.md" || name == "NEXT_ACTIONS.md" {
                core += n;
            }
            full += n;
        }
        let mut manifest_only = 0;
        for _ in 0..4 {
            let budget = json!({
                "manifest_only": manifest_only,
                "manifest_plus_core": manifest_only + core,
                "full_read": manifest_only + full,
            });
            self.doc.insert("token_budget".into(), budget);
            let text = String::from_utf8(self.to_bytes()).expect("serde_json writes UTF-8");
            let counted = tokens::count(&text);
            if counted == manifest_only {
                break;
            }
            manifest_only = counted;
        }
        Ok(())
    }
}

/// True when a `files` entry is what `regenerate` would write for `bytes`: the schema's
/// four fields and nothing else, a well-formed checksum and timestamp, the file's line count
/// and a summary within the limit. Anything else is rebuilt.
/// The fields of a `files` entry this tool owns (and rewrites); any other is kept.
pub const ENTRY_FIELDS: [&str; 4] = ["checksum", "updated", "lines", "summary"];

fn is_sound_entry(raw: &Value, lines: usize) -> bool {
    let Some(entry) = raw.as_object() else {
        return false;
    };
    let checksum_ok = entry
        .get("checksum")
        .and_then(Value::as_str)
        .and_then(|c| c.strip_prefix("sha256:"))
        .is_some_and(|h| {
            h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        });
    let updated_ok = entry
        .get("updated")
        .and_then(Value::as_str)
        .is_some_and(|t| t.parse::<Timestamp>().is_ok());
    let lines_ok = entry.get("lines").and_then(Value::as_u64) == u64::try_from(lines).ok();
    let summary_ok = entry
        .get("summary")
        .and_then(Value::as_str)
        .is_some_and(|s| s.chars().count() <= SUMMARY_MAX);
    checksum_ok && updated_ok && lines_ok && summary_ok
}

/// True when `token_budget` holds the three counts as non-negative integers.
fn is_sound_budget(budget: &Value) -> bool {
    ["manifest_only", "manifest_plus_core", "full_read"]
        .iter()
        .all(|k| budget.get(k).is_some_and(Value::is_u64))
}

/// Inserts or replaces a key, appending new keys at the end (document order is kept).
fn set_in_order(doc: &mut Map<String, Value>, key: &str, value: Value) {
    if let Some(slot) = doc.get_mut(key) {
        *slot = value;
    } else {
        doc.insert(key.to_string(), value);
    }
}

/// Maps a phase another tool wrote to the schema's nearest phase (`development` means
/// `implementation`), so regenerating keeps what it meant instead of resetting it to `idle`.
pub fn normalise_phase(phase: &str) -> Option<&'static str> {
    let p = phase.trim().to_ascii_lowercase();
    if let Some(known) = PHASES.iter().find(|k| **k == p) {
        return Some(known);
    }
    Some(match p.as_str() {
        "development" | "dev" | "coding" | "build" | "building" | "feature" => "implementation",
        "testing" | "test" | "qa" | "verification" => "review",
        "docs" | "doc" | "writing" => "documentation",
        "design" | "planning" | "plan" => "architecture",
        "bugfix" | "debug" | "debugging" | "hotfix" | "fixing" => "fix",
        "investigation" | "analysis" | "exploration" => "research",
        _ => return None,
    })
}

/// The `last_session` record. A session is described by who ran it, when and on what
/// commit, so those move together: without a new agent or session id, the previous
/// session's record is kept whole (a regeneration is not a session, issue #15); with one,
/// a new record is written and nothing of the previous session's identity is carried into it.
/// The phase is kept unless given.
fn session_object(
    old: Option<&Manifest>,
    info: &SessionInfo,
    commit: Option<&str>,
    now: &str,
) -> Map<String, Value> {
    let mut s = old
        .and_then(|m| m.doc.get("last_session"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let keep = |s: &Map<String, Value>, k: &str| s.get(k).and_then(Value::as_str).map(String::from);
    let phase = info
        .phase
        .clone()
        .or_else(|| keep(&s, "phase").and_then(|p| normalise_phase(&p).map(String::from)))
        .unwrap_or_else(|| "idle".into());
    let new_session = info.agent.is_some() || info.session_id.is_some() || s.is_empty();
    if new_session {
        let same = info.session_id.is_some() && info.session_id == keep(&s, "session_id");
        let agent = info
            .agent
            .clone()
            .or_else(|| keep(&s, "agent").filter(|_| same))
            .unwrap_or_else(|| {
                if s.is_empty() {
                    "git-aahp".into()
                } else {
                    "unknown".into()
                }
            });
        let session_id = info
            .session_id
            .clone()
            .unwrap_or_else(|| format!("aahp-{}", now.replace([':', '-'], "")));
        set_in_order(&mut s, "agent", json!(agent));
        set_in_order(&mut s, "session_id", json!(session_id));
        set_in_order(&mut s, "timestamp", json!(now));
        set_in_order(&mut s, "commit", json!(commit.unwrap_or("unknown")));
        if !same {
            s.remove("duration_minutes");
        }
    } else {
        for (k, v) in [
            ("agent", "unknown".to_string()),
            ("timestamp", now.to_string()),
            ("commit", commit.unwrap_or("unknown").to_string()),
        ] {
            if keep(&s, k).is_none() {
                set_in_order(&mut s, k, json!(v));
            }
        }
    }
    set_in_order(&mut s, "phase", json!(phase));
    if let Some(d) = info.duration_minutes {
        set_in_order(&mut s, "duration_minutes", json!(d));
    }
    s
}

fn default_project(dir: &HandoffDir) -> String {
    let base = dir.root.join(dir.package_root());
    base.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "project".into())
}

fn default_quick_context(dir: &HandoffDir, snap: &Snapshot) -> String {
    for name in ["STATUS.md", "NEXT_ACTIONS.md"] {
        if let Some(bytes) = snap.get(name)
            && let Ok(text) = decode_text(&dir.path_of(name), bytes)
            && let Some(q) = quick_context_from(name, text)
        {
            return q;
        }
    }
    "No handoff files with summaries yet.".into()
}

/// The quick context a file gives: its `summary` section (else its first prose line), on one
/// line, at most [`QUICK_CONTEXT_MAX`] characters, without provenance lines; `None` when it
/// has no prose.
pub fn quick_context_from(name: &str, text: &str) -> Option<String> {
    let body = match section(text, "summary") {
        Some(sec) => sec
            .lines()
            .filter(|l| !is_provenance_line(l))
            .collect::<Vec<_>>()
            .join("\n"),
        None => summarize(name, text),
    };
    (!body.trim().is_empty() && body != NO_SUMMARY)
        .then(|| crate::output::boundary::shorten(&body, QUICK_CONTEXT_MAX))
}

/// The sentence `git aahp init` leaves in the STATUS summary until a session records work.
pub const INIT_PLACEHOLDER: &str = "No project work has been recorded yet.";

/// Start of the provenance line `git aahp commit` stamps into the STATUS summary and LOG
/// entries (issue #15).
pub const PROVENANCE_PREFIX: &str = "Provenance: ";

/// True for a provenance line (it describes the record, not the project).
pub fn is_provenance_line(line: &str) -> bool {
    line.trim_start_matches(['>', ' ', '*', '_'])
        .starts_with(PROVENANCE_PREFIX)
}

/// Placeholder summary when a file has no prose.
pub const NO_SUMMARY: &str = "(no summary available)";

/// Summarises a handoff file in at most [`SUMMARY_MAX`] characters: the `summary` section
/// when present, else (for LOG files) the newest entry, else the first prose line.
#[expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "AAHP file keys are case-sensitive (`^.+\\.md$`)"
)]
pub fn summarize(name: &str, text: &str) -> String {
    let s = if name.ends_with(".json") {
        summarize_json(name, text)
    } else if let Some(section) = section(text, "summary") {
        // Lines kept as written: the boundary redacts before it collapses.
        section
            .lines()
            .filter(|l| !is_provenance_line(l))
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string()
    } else if name == "LOG.md" || name == "LOG-ARCHIVE.md" {
        newest_entry(text).map_or_else(|| first_prose_line(text), |t| format!("Last entry: {t}"))
    } else {
        first_prose_line(text)
    };
    if s.trim().is_empty() {
        NO_SUMMARY.to_string()
    } else {
        crate::output::boundary::shorten(&s, SUMMARY_MAX)
    }
}

/// [`summarize`] for a file read as a stream, from its first bytes where they decide it:
/// the index's entry count comes from the pass; a Markdown file's summary section or newest
/// entry when they lie within its head (and no summary marker hides further on). Otherwise
/// (rare: no dated heading in the first 256 KiB) the file is read again as a stream of
/// lines ([`summary_of_stream`]), never whole (issue #12 item 2).
#[expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "AAHP file keys are case-sensitive (`^.+\\.md$`)"
)]
fn streamed_summary(shown: &str, name: &str, s: &Streamed, pass: &Pass) -> Result<String> {
    let n = pass.index_end.map(|e| e.count);
    if name == INDEX_FILE
        && let Some(n) = n
    {
        return Ok(format!(
            "{n} archived log entr{}",
            if n == 1 { "y" } else { "ies" }
        ));
    }
    let head = pass.head_lines();
    let decided = pass.whole
        || (name.ends_with(".md")
            && if pass.marker_seen {
                section(head, "summary").is_some()
            } else {
                (name == "LOG.md" || name == "LOG-ARCHIVE.md") && newest_entry(head).is_some()
            });
    if decided {
        return Ok(summarize(name, head));
    }
    summary_of_stream(shown, name, s, pass.marker_seen, super::MAX_FILE_BYTES).map(|(s, _)| s)
}

/// [`summarize`] of `content` read as a stream of lines of at most `line_max` bytes (an
/// archive's lines come from LOG.md, whose size is [`super::MAX_FILE_BYTES`] at most; a
/// longer one is exit 2 naming that limit): the `summary` section when `marker_seen`, else
/// the newest entry of a log, else the first prose line, each as the whole text gives it.
/// An index is counted as [`summarize_json`] counts it, read as a stream. Also gives the
/// most bytes held at once for one line (tests show it bounded).
#[expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "AAHP file keys are case-sensitive (`^.+\\.md$`)"
)]
fn summary_of_stream(
    shown: &str,
    name: &str,
    content: &dyn Content,
    marker_seen: bool,
    line_max: usize,
) -> Result<(String, usize)> {
    let read_err = |source| Error::Read {
        path: shown.to_string(),
        source,
    };
    let mut largest = 0;
    let mut pass = |f: &mut dyn FnMut(&mut Lines<'_>) -> Option<String>| -> Result<Option<String>> {
        let reader = content.open_at(0).map_err(read_err)?;
        let mut lines = Lines::new(shown, reader, line_max);
        let found = f(&mut lines);
        largest = largest.max(lines.largest);
        lines.finish()?;
        Ok(found)
    };
    let mut found = None;
    if name.ends_with(".json") {
        found = Some(json_summary_of_stream(shown, name, content)?);
    } else if marker_seen {
        found = pass(&mut |l| section_words(l, "summary"))?;
    }
    if found.is_none() && (name == "LOG.md" || name == "LOG-ARCHIVE.md") {
        found = pass(&mut |l| newest_entry_in(l))?.map(|t| format!("Last entry: {t}"));
    }
    let s = match found {
        Some(s) => s,
        None => pass(&mut |l| Some(first_prose_line_in(l)))?.unwrap_or_default(),
    };
    let s = if s.trim().is_empty() {
        NO_SUMMARY.to_string()
    } else {
        crate::output::boundary::shorten(&s, SUMMARY_MAX)
    };
    Ok((s, largest))
}

/// The lines of a stream as `str::lines` gives them, each read whole up to a limit; an
/// error ends them and is kept for [`Lines::finish`].
struct Lines<'a> {
    shown: &'a str,
    reader: std::io::BufReader<Box<dyn std::io::Read + 'a>>,
    max: usize,
    buf: Vec<u8>,
    largest: usize,
    error: Option<Error>,
}

impl<'a> Lines<'a> {
    fn new(shown: &'a str, reader: Box<dyn std::io::Read + 'a>, max: usize) -> Lines<'a> {
        Lines {
            shown,
            reader: std::io::BufReader::with_capacity(64 * 1024, reader),
            max,
            buf: Vec::new(),
            largest: 0,
            error: None,
        }
    }

    fn finish(self) -> Result<()> {
        self.error.map_or(Ok(()), Err)
    }
}

impl Iterator for Lines<'_> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        use std::io::{BufRead, Read};
        if self.error.is_some() {
            return None;
        }
        self.buf.clear();
        let mut limited = (&mut self.reader).take(self.max as u64 + 1);
        match limited.read_until(b'\n', &mut self.buf) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(source) => {
                self.error = Some(Error::Read {
                    path: self.shown.to_string(),
                    source,
                });
                return None;
            }
        }
        self.largest = self.largest.max(self.buf.len());
        if self.buf.len() > self.max {
            self.error = Some(Error::invalid(
                self.shown,
                None,
                format!(
                    "a line is longer than {} bytes, the most git-aahp holds of one line of it in memory",
                    self.max
                ),
            ));
            return None;
        }
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        }
        if let Ok(line) = String::from_utf8(std::mem::take(&mut self.buf)) {
            Some(line)
        } else {
            self.error = Some(Error::invalid(self.shown, None, "invalid UTF-8"));
            None
        }
    }
}

/// What [`section`] then [`summarize`] make of the section `name` of the text whose lines
/// these are: its lines outside provenance lines, as written, only as many as a summary can
/// show and a secret starting in it needs ([`boundary::shorten`](crate::output::boundary::shorten)
/// collapses and cuts them). `None` when the section does not open and close.
fn section_words<S: AsRef<str>>(lines: impl Iterator<Item = S>, name: &str) -> Option<String> {
    let open = format!("<!-- SECTION: {name} -->");
    let close = format!("<!-- /SECTION: {name} -->");
    let mut words = String::new();
    let mut chars = 0usize;
    let mut inside = false;
    for line in lines {
        let mut seg = line.as_ref();
        if !inside {
            let Some(at) = seg.find(&open) else { continue };
            seg = &seg[at + open.len()..];
            inside = true;
        }
        let (body, closed) = match seg.find(&close) {
            Some(at) => (&seg[..at], true),
            None => (seg, false),
        };
        // Lines kept as written (the boundary redacts a key's body by its line structure
        // before it collapses them), enough for the summary and a secret that starts in it.
        if !is_provenance_line(body) && chars <= SUMMARY_MAX + 4096 {
            if !words.is_empty() {
                words.push('\n');
            }
            words.push_str(body);
            chars += body.chars().filter(|c| !c.is_whitespace()).count();
        }
        if closed {
            return Some(words);
        }
    }
    None
}

/// [`summarize_json`] of an index read as a stream: the scan's count, else the length of
/// its `entries` list as the parsed document gives it, or `(unparsable JSON)`.
fn json_summary_of_stream(shown: &str, name: &str, content: &dyn Content) -> Result<String> {
    use std::io::Read;
    let read_err = |source| Error::Read {
        path: shown.to_string(),
        source,
    };
    // Leading BOMs skipped, as `trim_start_matches` skips them.
    let skip_boms = || -> Result<Box<dyn Read + '_>> {
        let mut at = 0u64;
        loop {
            let mut three = [0u8; 3];
            let mut r = content.open_at(at).map_err(read_err)?;
            let n = r.read(&mut three).map_err(read_err)?;
            let n = if n > 0 && n < 3 {
                n + r.read(&mut three[n..]).map_err(read_err)?
            } else {
                n
            };
            if n == 3 && three == *b"\xEF\xBB\xBF" {
                at += 3;
            } else {
                return content.open_at(at).map_err(read_err);
            }
        }
    };
    let counted = |n: usize| format!("{n} archived log entr{}", if n == 1 { "y" } else { "ies" });
    if name == INDEX_FILE {
        let mut scanner = super::log::IndexScanner::default();
        let mut r = skip_boms()?;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match r.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => scanner.feed(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(source) => return Err(read_err(source)),
            }
        }
        if let Some(end) = scanner.finish() {
            return Ok(counted(end.count));
        }
    }
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::new(skip_boms()?));
    let n = match serde::de::DeserializeSeed::deserialize(Counted { top: true }, &mut de).and_then(
        |n| {
            de.end()?;
            Ok(n)
        },
    ) {
        Ok(n) => n,
        Err(e) if e.is_io() => {
            return Err(Error::Read {
                path: shown.to_string(),
                source: e.into(),
            });
        }
        Err(_) => return Ok("(unparsable JSON)".into()),
    };
    Ok(match name {
        "pii-allowlist.json" => format!(
            "{n} allowlisted email address{}",
            if n == 1 { "" } else { "es" }
        ),
        INDEX_FILE => counted(n),
        _ => String::new(),
    })
}

/// A JSON value parsed as [`Value`] parses it (numbers in range, strings escaped
/// correctly, so the same documents are refused) without holding it. At the top (`top`):
/// the length of the object's `entries` list (its last occurrence; 0 when it is no list or
/// the document no object); below it, a list's length (0 for anything else).
#[derive(Clone, Copy)]
struct Counted {
    top: bool,
}

/// Any JSON value, dropped.
struct Skip;

impl<'de> serde::Deserialize<'de> for Skip {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Skip, D::Error> {
        d.deserialize_any(Counted { top: false }).map(|_| Skip)
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Counted {
    type Value = usize;
    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<usize, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Counted {
    type Value = usize;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<usize, A::Error> {
        let mut n = 0;
        while seq.next_element::<Skip>()?.is_some() {
            n += 1;
        }
        Ok(if self.top { 0 } else { n })
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<usize, A::Error> {
        let mut n = 0;
        while let Some(key) = map.next_key::<String>()? {
            if self.top && key == "entries" {
                n = map.next_value_seed(Counted { top: false })?;
            } else {
                map.next_value::<Skip>()?;
            }
        }
        Ok(n)
    }
    fn visit_bool<E>(self, _: bool) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_i64<E>(self, _: i64) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_u64<E>(self, _: u64) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_unit<E>(self) -> std::result::Result<usize, E> {
        Ok(0)
    }
}

fn summarize_json(name: &str, text: &str) -> String {
    // The archive index may list hundreds of thousands of entries: counted by a structural
    // scan, without building the document (the same count for any index `archive` reads).
    if name == super::log::INDEX_FILE
        && let Some(end) = super::log::index_end(text.trim_start_matches('\u{feff}').as_bytes())
    {
        let n = end.count;
        return format!("{n} archived log entr{}", if n == 1 { "y" } else { "ies" });
    }
    let Ok(v) = serde_json::from_str::<Value>(text.trim_start_matches('\u{feff}')) else {
        return "(unparsable JSON)".into();
    };
    let n = v
        .get("entries")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    match name {
        "pii-allowlist.json" => format!(
            "{n} allowlisted email address{}",
            if n == 1 { "" } else { "es" }
        ),
        "LOG-ARCHIVE.index.json" => {
            format!("{n} archived log entr{}", if n == 1 { "y" } else { "ies" })
        }
        _ => String::new(),
    }
}

/// Returns the body of `<!-- SECTION: name -->` … `<!-- /SECTION: name -->`.
pub fn section<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<!-- SECTION: {name} -->");
    let close = format!("<!-- /SECTION: {name} -->");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&close)? + start;
    Some(&text[start..end])
}

fn newest_entry(text: &str) -> Option<String> {
    newest_entry_in(text.lines())
}

/// [`newest_entry`] of the text whose lines these are.
fn newest_entry_in<S: AsRef<str>>(lines: impl Iterator<Item = S>) -> Option<String> {
    let mut fence = false;
    for line in lines {
        let t = line.as_ref().trim_end_matches('\r');
        if t.trim_start().starts_with("```") || t.trim_start().starts_with("~~~") {
            fence = !fence;
        }
        if !fence && t.starts_with("## [") && t.as_bytes().get(4).is_some_and(u8::is_ascii_digit) {
            return Some(t[3..].trim().to_string());
        }
    }
    None
}

/// The first line of prose: headings, quotes, rules, tables, HTML comments, code (fenced,
/// indented or JSON), bold labels (`**What happened:**`), provenance and date stamps are
/// skipped, and a paragraph is preferred to a list item.
fn first_prose_line(text: &str) -> String {
    first_prose_line_in(text.lines())
}

/// [`first_prose_line`] of the text whose lines these are.
fn first_prose_line_in<S: AsRef<str>>(lines: impl Iterator<Item = S>) -> String {
    let mut fence = false;
    let mut comment = false;
    let mut json_depth = 0usize;
    let mut first_item = None;
    for line in lines {
        let line = line.as_ref();
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        if comment {
            if t.contains("-->") {
                comment = false;
            }
            continue;
        }
        if t.starts_with("<!--") {
            comment = !t.contains("-->");
            continue;
        }
        // A bare JSON document or block: skip until its brackets close.
        if json_depth > 0 || (json_depth == 0 && (t == "{" || t == "[" || t.starts_with("{\""))) {
            for c in t.chars() {
                match c {
                    '{' | '[' => json_depth += 1,
                    '}' | ']' => json_depth = json_depth.saturating_sub(1),
                    _ => {}
                }
            }
            continue;
        }
        if t.is_empty()
            || t.starts_with('#')
            || t.starts_with('>')
            || t.starts_with("---")
            || t.starts_with("***")
            || t.starts_with('|')
            || t.starts_with("===")
            || line.starts_with("    ")
            || line.starts_with('\t')
            || is_label_only(t)
            || is_provenance_line(t)
            || is_stamp(t)
        {
            continue;
        }
        let item = t
            .strip_prefix("- ")
            .or_else(|| t.strip_prefix("* "))
            .or_else(|| t.strip_prefix("+ "));
        match item {
            Some(rest) => {
                if first_item.is_none() && !is_label_only(rest.trim()) {
                    first_item = Some(collapse(rest));
                }
            }
            None => return collapse(t),
        }
    }
    first_item.unwrap_or_default()
}

/// True for a line that is only a label: `**What happened:**`, `__Goal__:`, `Context:`.
fn is_label_only(t: &str) -> bool {
    let inner = t.trim_matches(['*', '_', ' ']);
    let inner = inner
        .strip_suffix(':')
        .unwrap_or(inner)
        .trim_matches(['*', '_', ' ']);
    let bold = (t.starts_with("**") || t.starts_with("__")) && !inner.contains("**");
    let bare = t.ends_with(':') && inner.split_whitespace().count() <= 4;
    (bold && (t.ends_with("**") || t.ends_with("__") || t.ends_with(':'))) || bare
}

/// True for a date stamp such as `Last updated: 2026-02-22 01:00`.
fn is_stamp(t: &str) -> bool {
    let l = t.trim_matches(['*', '_']).to_ascii_lowercase();
    [
        "last updated",
        "updated:",
        "updated on",
        "date:",
        "generated:",
        "generated on",
    ]
    .iter()
    .any(|p| l.starts_with(p))
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Notes every string of a manifest (keys and values) as untrusted input for the output
/// boundary ([`note_input`](crate::output::boundary::note_input)).
fn note_strings(doc: &Map<String, Value>) {
    fn walk(v: &Value) {
        match v {
            Value::String(s) => crate::output::boundary::note_input(s),
            Value::Array(items) => items.iter().for_each(walk),
            Value::Object(map) => note_strings(map),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    for (k, v) in doc {
        crate::output::boundary::note_input(k);
        walk(v);
    }
}

/// Cuts to at most `max` characters on a character boundary, marking the cut with `…`.
pub fn truncate_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// True when `key` can name a file in `files`: one plain name inside the directory that no
/// platform reads as a path (`/`, `\`, `..`), a home directory (`~`) or a drive (`C:`).
pub(crate) fn is_safe_file_key(key: &str) -> bool {
    !key.is_empty()
        && key != "."
        && key != ".."
        && !key.contains(['/', '\\', '\0'])
        && !key.starts_with('~')
        && key.as_bytes().get(1) != Some(&b':')
}

/// Returns the 1-based line of the first occurrence of `needle`.
fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.find(needle)
        .map(|i| text[..i].matches('\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> HandoffDir {
        HandoffDir {
            rel: ".ai/handoff".into(),
            abs: "/r/.ai/handoff".into(),
            root: "/r/proj".into(),
        }
    }

    fn snap(files: &[(&str, &str)]) -> Snapshot {
        let mut s = Snapshot::default();
        for (n, c) in files {
            s.files.insert((*n).into(), c.as_bytes().to_vec());
        }
        s
    }

    fn now() -> Timestamp {
        "2026-11-22T10:00:00Z".parse().unwrap()
    }

    #[test]
    fn summary_prefers_the_summary_section_and_cuts_on_char_boundaries() {
        let text = "# S\n<!-- SECTION: summary -->\nBuild green.\nAuth done.\n<!-- /SECTION: summary -->\nother";
        assert_eq!(summarize("STATUS.md", text), "Build green. Auth done.");
        let long = format!("# T\n\n{}\n", "é".repeat(300));
        let s = summarize("X.md", &long);
        assert_eq!(s.chars().count(), SUMMARY_MAX);
        assert!(s.ends_with('…'));
    }

    #[test]
    fn summary_of_a_log_is_its_newest_entry() {
        let text = "# Log\n\n> append only\n\n```\n## [2020-01-01] fake: in a fence\n```\n## [2026-11-20] claude: Fixed CORS\n\nbody\n";
        assert_eq!(
            summarize("LOG.md", text),
            "Last entry: [2026-11-20] claude: Fixed CORS"
        );
    }

    #[test]
    fn a_file_read_as_a_stream_gets_the_entry_it_gets_read_whole() {
        // Archives beyond the head a pass keeps: the summary found within it, a summary
        // marker only past it, a dated heading only past it (read whole then), an index.
        let entry = |i: usize| format!("## [2026-01-01] a: Session {i}\n\n- é {i}\r\n\n---\n\n");
        let many: String = (0..6000).map(entry).collect();
        let filler = "prose line\n".repeat(30_000);
        let archives = [
            format!("# A\n\n{many}"),
            format!("# A\n\n{many}<!-- SECTION: summary -->\nLate.\n<!-- /SECTION: summary -->\n"),
            format!("# A\n\n{filler}{many}"),
            format!("# A\n\n{filler}"),
            "# small\n\nno entries".to_string(),
        ];
        let index = format!(
            "{{\n  \"version\": 1,\n  \"entries\": [\n{}\n  ]\n}}\n",
            vec!["    {\"sha256\": \"00\", \"title\": \"t\"}"; 9000].join(",\n")
        );
        let tmp = tempfile::tempdir().unwrap();
        for archive in &archives {
            let whole = snap(&[
                ("STATUS.md", "# S\n"),
                ("LOG-ARCHIVE.md", archive.as_str()),
                ("LOG-ARCHIVE.index.json", index.as_str()),
            ]);
            let mut streamed = snap(&[("STATUS.md", "# S\n")]);
            for (name, text) in [
                ("LOG-ARCHIVE.md", archive.as_str()),
                ("LOG-ARCHIVE.index.json", index.as_str()),
            ] {
                // Half on disk, half about to be appended.
                let path = tmp.path().join(name);
                let half = text.len() / 2;
                std::fs::write(&path, &text.as_bytes()[..half]).unwrap();
                streamed.streamed.insert(
                    name.to_string(),
                    Streamed {
                        path,
                        keep: half as u64,
                        tail: text.as_bytes()[half..].to_vec(),
                        resume: None,
                    },
                );
            }
            let regen = |s: &Snapshot| {
                Manifest::regenerate(
                    None,
                    &dir(),
                    s,
                    &SessionInfo::default(),
                    None,
                    now(),
                    &mut BlobCache::token_counts_in_memory(),
                )
                .unwrap()
                .manifest
                .to_bytes()
            };
            assert_eq!(
                String::from_utf8(regen(&streamed)).unwrap(),
                String::from_utf8(regen(&whole)).unwrap()
            );
        }
    }

    #[test]
    fn a_summary_read_as_a_stream_of_short_lines_is_the_whole_texts() {
        // Issue #12 item 2: a summary the first bytes do not decide is read again line by
        // line, never whole: here no line may exceed 80 bytes, the texts are hundreds of
        // times that, and each summary is the one the whole text gives.
        use crate::handoff::log_stream::Bytes;
        let entry = |i: usize| {
            format!(
                "## [2026-01-{:02}] a: Session {i}\n\n- é {i}\r\n\n---\n\n",
                i % 28 + 1
            )
        };
        let entries: String = (0..300).map(entry).collect();
        let filler = "prose line\n".repeat(3000);
        let open = crate::handoff::stream::SUMMARY_OPEN;
        let close = "<!-- /SECTION: summary -->";
        let mut words = String::new();
        for i in 0..200 {
            words.push_str("wörd");
            words.push_str(&i.to_string());
            words.push_str(if i % 5 == 4 { "\r\n" } else { " " });
        }
        let md = [
            format!("# A\n\n{filler}{entries}"),
            format!(
                "# A\n\n{filler}{open}\n> *Provenance: x*\nLate  summary\ttext.\n{close}\n{entries}"
            ),
            format!("# A\n\n{filler}{open}\n{words}\n{close}\n"),
            format!("# A\n\n{filler}{open}\nnever closed\n{entries}"),
            format!("# A\n\n{filler}x {open}short one{close} y\n{entries}"),
            format!("# A\n\n{filler}{open}\n\n{close}\n{entries}"),
            format!("# A\n\n{filler}```\n## [2020-01-01] fake: fenced\n```\n{entries}"),
            format!("# A\n\n{}", "- an item\n".repeat(2000)),
            format!("# A\n\n{filler}"),
            format!("{}tail\r", "# heading\r\n".repeat(2000)),
            String::new(),
        ];
        let entry_line = "    {\"sha256\": \"00\", \"title\": \"t\"}";
        let json = [
            format!(
                "{{\n  \"version\": 1,\n  \"entries\": [\n{}\n  ]\n}}\n",
                vec![entry_line; 900].join(",\n")
            ),
            format!(
                "\u{feff}\u{feff}{{\"entries\": [\n{}\n]}}",
                vec![entry_line; 900].join(",\n")
            ),
            format!(
                "{{\"entries\": {{\"a\": 1}},\n\"pad\": [\n{}\n]}}",
                vec![entry_line; 900].join(",\n")
            ),
            format!("[\n{}\n]", vec![entry_line; 900].join(",\n")),
            format!(
                "{{\"entries\": [1, 2],\n\"pad\": [\n{}\n], \"entries\": [3]}}",
                vec![entry_line; 900].join(",\n")
            ),
            format!(
                "{{\"x\": 1e400,\n\"pad\": [\n{}\n], \"entries\": 3}}",
                vec![entry_line; 900].join(",\n")
            ),
            format!("{{\"entries\": [\n{},", vec![entry_line; 900].join(",\n")),
        ];
        let cases = md
            .iter()
            .map(|t| ("LOG-ARCHIVE.md", t))
            .chain(json.iter().map(|t| (INDEX_FILE, t)));
        for (i, (name, text)) in cases.enumerate() {
            let marker = text.contains(open);
            let (got, largest) =
                summary_of_stream("f", name, &Bytes(text.as_bytes()), marker, 80).unwrap();
            assert_eq!(got, summarize(name, text), "case {i}");
            assert!(largest <= 81, "{largest}");
        }
        let long = format!("# A\n\n{filler}{}\n", "x".repeat(81));
        let err = summary_of_stream("f", "LOG-ARCHIVE.md", &Bytes(long.as_bytes()), false, 80)
            .unwrap_err()
            .to_string();
        assert!(err.contains("longer than 80 bytes"), "{err}");
    }

    #[test]
    fn regenerate_twice_is_a_no_op() {
        let s = snap(&[("STATUS.md", "# S\n\nAll green.\n"), ("LOG.md", "# L\n")]);
        let first = Manifest::regenerate(
            None,
            &dir(),
            &s,
            &SessionInfo::default(),
            Some("abc1234"),
            now(),
            &mut BlobCache::token_counts_in_memory(),
        )
        .unwrap();
        assert!(first.changed);
        let later: Timestamp = "2026-11-23T10:00:00Z".parse().unwrap();
        let second = Manifest::regenerate(
            Some(&first.manifest),
            &dir(),
            &s,
            &SessionInfo::default(),
            Some("def5678"),
            later,
            &mut BlobCache::token_counts_in_memory(),
        )
        .unwrap();
        assert!(!second.changed);
        assert_eq!(second.manifest.to_bytes(), first.manifest.to_bytes());
    }

    #[test]
    fn regenerate_keeps_updated_for_unchanged_files_and_unknown_fields() {
        let s = snap(&[("STATUS.md", "# S\n\nAll green.\n"), ("LOG.md", "# L\n")]);
        let first = Manifest::regenerate(
            None,
            &dir(),
            &s,
            &SessionInfo::default(),
            None,
            now(),
            &mut BlobCache::token_counts_in_memory(),
        )
        .unwrap()
        .manifest;
        let mut with_extra = first.clone();
        with_extra.doc.insert(
            "tasks".into(),
            json!({"T-001": {"title": "a \"quoted\"\ttab", "status": "ready"}}),
        );
        with_extra
            .doc
            .insert("x_future".into(), json!([1, 2.50, null]));
        let s2 = snap(&[("STATUS.md", "# S\n\nNow red.\n"), ("LOG.md", "# L\n")]);
        let later: Timestamp = "2026-11-23T10:00:00Z".parse().unwrap();
        let r = Manifest::regenerate(
            Some(&with_extra),
            &dir(),
            &s2,
            &SessionInfo::default(),
            None,
            later,
            &mut BlobCache::token_counts_in_memory(),
        )
        .unwrap();
        assert!(r.changed);
        assert_eq!(r.changed_files, ["STATUS.md"]);
        let files = r.manifest.files();
        assert_eq!(files[0].1.updated, "2026-11-23T10:00:00Z");
        assert_eq!(files[1].1.updated, "2026-11-22T10:00:00Z");
        assert_eq!(r.manifest.doc["tasks"], with_extra.doc["tasks"]);
        assert_eq!(r.manifest.doc["x_future"], json!([1, 2.50, null]));
        let reparsed = Manifest::parse("m", &r.manifest.to_bytes()).unwrap();
        assert_eq!(reparsed, r.manifest);
    }

    #[test]
    fn parse_refuses_traversal_keys_with_their_line() {
        let text = "{\n  \"files\": {\n    \"../../etc/passwd.md\": {}\n  }\n}\n";
        let err = Manifest::parse("M.json", text.as_bytes()).unwrap_err();
        assert!(err.to_string().starts_with("M.json:3: "), "{err}");
        let err = Manifest::parse("M.json", b"{\r\n  \"a\": 1,\r\n  oops\r\n}").unwrap_err();
        assert!(
            err.to_string().starts_with("M.json:3: malformed JSON"),
            "{err}"
        );
        assert!(Manifest::parse("M.json", b"\xEF\xBB\xBF{\"a\":1}\r\n").is_ok());
    }

    #[test]
    fn conflict_markers_name_the_first_marker_line() {
        let text = "{\n  \"tasks\": {\n<<<<<<< HEAD\n    \"a\": 1\n=======\n    \"a\": 2\n>>>>>>> feature\n  }\n}\n";
        let err = Manifest::parse("M.json", text.as_bytes()).unwrap_err();
        assert!(matches!(err, Error::Conflicted { line: 3, .. }), "{err}");
        // A marker without its other halves is malformed JSON, not a conflict.
        let half = "{\n<<<<<<< HEAD\n}\n";
        let err = Manifest::parse("M.json", half.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("malformed JSON"), "{err}");
    }

    #[test]
    fn numeric_string_task_id_is_read_and_normalised() {
        let s = snap(&[("STATUS.md", "x\n")]);
        let old = Manifest::parse(
            "m",
            br#"{"aahp_version":"3.0","project":"p","next_task_id":"18"}"#,
        )
        .unwrap();
        assert_eq!(old.next_task_id(), Some(18));
        let r = Manifest::regenerate(
            Some(&old),
            &dir(),
            &s,
            &SessionInfo::default(),
            None,
            now(),
            &mut BlobCache::token_counts_in_memory(),
        )
        .unwrap();
        assert_eq!(r.manifest.doc["next_task_id"], json!(18));
        assert_eq!(r.manifest.str_field("aahp_version"), Some("3.0"));
    }
}
