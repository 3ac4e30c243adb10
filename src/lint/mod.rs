//! The handoff linter (issue #3, SPEC §5): prompt injection, hidden content, encoded payloads,
//! exfiltration, secrets, PII, the user's `.aiignore`, structure and allowlist validity.
//!
//! Pipeline per file: decode (UTF-8; JSON string values are decoded with their escapes) →
//! Markdown structure → the Unicode pass (HID events + a normalised view with an offset map) →
//! one keyword prefilter pass (every occurrence of every rule keyword, as an overlapping
//! Aho-Corasick search would report them; see `keywords`), regexes only for candidate rules on
//! windows → decoding of encoded runs, linted again → structure and hidden-markup rules →
//! `.aiignore` → suppression (pii-allowlist, inline markers, allowlist file) → positions,
//! redacted snippets, fingerprints.
//! [`check_snapshot`] is the single entry point for `verify` and the pre-commit hook.

pub mod agent_config;
pub mod agent_runs;
pub mod agents;
mod aiignore;
pub mod allow;
pub(crate) mod backtrack;
pub(crate) mod code;
mod compiled;
mod confusables;
mod engine;
pub(crate) mod escapes;
mod inline;
mod json;
mod keywords;
mod launches;
mod markdown;
mod pieces;
mod recipes;
pub mod registry;
mod rules;
mod swar;
mod text;
mod unicode;
mod wordtab;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::error::Result;
use crate::handoff::{AIIGNORE, HandoffDir, LOCK, Snapshot};
use engine::{Finding, Scan};
use text::LineIndex;

pub use markdown::Context;
pub use pieces::LintCut;
pub(crate) use pieces::{WINDOW_FROM, changed_window, index_window_cut};
pub use registry::{Family, RULES, RuleMeta};

/// How serious a finding is. `Error` blocks commits and fails CI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Blocks the commit.
    Error,
    /// Reported, does not block (blocks with `--strict`).
    Warning,
    /// Informational.
    Info,
}

impl Severity {
    /// The lowercase name (`error`, `warning`, `info`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
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
    /// 1-based line where the finding ends.
    pub end_line: usize,
    /// 1-based column (characters) just past the finding.
    pub end_column: usize,
    /// What was found; secrets are already redacted.
    pub message: String,
    /// Stable identity of the finding across runs (for SARIF and baselines).
    pub fingerprint: String,
    /// Where in the document the finding sits.
    pub context: Context,
    /// For secrets and PII: the credential or data type (`github-pat`, `email`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    /// The source line, escaped, with invisible characters shown and secrets redacted.
    pub snippet: String,
    /// Character offset of the finding in `snippet` and its width (for the caret line).
    pub caret: (usize, usize),
    /// Why the finding does not count (allow marker, allowlist entry), when it is suppressed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppressed_by: Option<String>,
}

impl Diagnostic {
    /// True when the finding blocks a commit.
    pub fn is_blocking(&self) -> bool {
        self.severity == Severity::Error && self.suppressed_by.is_none()
    }
}

/// How a file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    Markdown,
    Json,
    Text,
    Decoded,
}

/// Files in a handoff directory the linter never scans: configuration and the lock.
pub const NOT_SCANNED: &[&str] = &[AIIGNORE, allow::ALLOWLIST, allow::PII_ALLOWLIST, LOCK];

/// The configuration files among [`NOT_SCANNED`]: they name injection wording and personal
/// data on purpose (patterns, allowed addresses), so only [`config_rule`]s judge them, but a
/// credential written into one is committed and read like any other.
pub fn is_config_file(inner: &str) -> bool {
    matches!(inner, AIIGNORE | allow::ALLOWLIST | allow::PII_ALLOWLIST)
}

/// The rules that judge a configuration file: the secret rules, and the characters and
/// pointers and ciphertext that hide what a reader gets (HID011, HID012, HID013).
fn config_rule(d: &Diagnostic) -> bool {
    is_secret_finding(d) || matches!(d.rule, "HID011" | "HID012" | "HID013")
}

/// A finding of a credential: a secret rule's, or an encoded run that decodes to one.
pub fn is_secret_finding(d: &Diagnostic) -> bool {
    d.rule.starts_with("SEC") || d.kind == Some("encoded-secret")
}

/// Extensions of files that are not text and are skipped.
const BINARY_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "webp", "ico", "pdf", "zip", "gz", "bmp", "svgz",
];

/// Everything that adjusts a lint run: the `.aiignore`, allowlists and today's date.
#[derive(Debug)]
pub struct LintConfig {
    /// The date allowlist expiry is judged against.
    pub today: jiff::civil::Date,
    /// Honour inline `aahp:allow` markers (CI may turn them off).
    pub inline_allow: bool,
    aiignore: Option<aiignore::AiIgnore>,
    allow: Vec<allow::AllowEntry>,
    allow_path: String,
    pii: Vec<allow::PiiEntry>,
    pii_path: String,
    /// CFG findings about the configuration files themselves.
    config_diagnostics: Vec<Diagnostic>,
}

impl LintConfig {
    /// A configuration with no `.aiignore` and no allowlists.
    pub fn empty(today: jiff::civil::Date) -> LintConfig {
        LintConfig {
            today,
            inline_allow: true,
            aiignore: None,
            allow: Vec::new(),
            allow_path: allow::ALLOWLIST.into(),
            pii: Vec::new(),
            pii_path: allow::PII_ALLOWLIST.into(),
            config_diagnostics: Vec::new(),
        }
    }

    /// Reads `.aiignore`, `aahp-allowlist.json` and `pii-allowlist.json` from a snapshot.
    /// Invalid files are errors (exit 2); expired entries become CFG001 findings.
    pub fn from_snapshot(
        dir: &HandoffDir,
        snap: &Snapshot,
        today: jiff::civil::Date,
    ) -> Result<LintConfig> {
        let mut cfg = LintConfig::empty(today);
        cfg.allow_path = dir.path_of(allow::ALLOWLIST);
        cfg.pii_path = dir.path_of(allow::PII_ALLOWLIST);
        if let Some(text) = snap.text(dir, AIIGNORE)? {
            let path = dir.path_of(AIIGNORE);
            let parsed = aiignore::AiIgnore::parse(&path, text)?;
            // Whatever is printed from now on has this version's secrets redacted too.
            crate::output::boundary::redact_user_secrets_in(&path, text)?;
            for (line, msg) in &parsed.warnings {
                cfg.config_diagnostics.push(config_diag(
                    &registry::CFG003,
                    &path,
                    text,
                    *line,
                    msg.clone(),
                ));
            }
            for (line, msg) in &parsed.notes {
                let mut d = config_diag(&registry::CFG003, &path, text, *line, msg.clone());
                d.severity = Severity::Info;
                cfg.config_diagnostics.push(d);
            }
            let streamed = snap
                .streamed
                .keys()
                .filter(|n| is_lintable(n))
                .chain(snap.nested_streamed.keys())
                .map(|n| (n.as_str(), dir.path_of(n)));
            let names: Vec<(&str, String)> = snapshot_files(dir, snap)
                .into_iter()
                .filter_map(|f| {
                    let name = snap
                        .files
                        .get_key_value(&f.name)
                        .or_else(|| snap.nested.get_key_value(&f.name))
                        .map(|(k, _)| k.as_str())?;
                    Some((name, f.path))
                })
                .chain(streamed)
                .collect();
            for (name, file_path) in &names {
                for (line, pattern) in parsed.paths_matching(name) {
                    cfg.config_diagnostics.push(config_diag(
                        &registry::CFG003,
                        &path,
                        text,
                        line,
                        format!(
                            "handoff file {file_path} matches the path pattern `{pattern}`: keep it out of the handoff, or remove the pattern",
                        ),
                    ));
                }
            }
            cfg.aiignore = Some(parsed);
        }
        if let Some(bytes) = snap.get(allow::ALLOWLIST) {
            cfg.allow = allow::parse_allowlist(&cfg.allow_path, bytes, today)?;
            let text = String::from_utf8_lossy(bytes);
            for e in cfg.allow.iter().filter(|e| e.expired) {
                cfg.config_diagnostics.push(config_diag(
                    &registry::CFG001,
                    &cfg.allow_path,
                    &text,
                    e.line,
                    format!(
                        "allowlist entry for {} ({}) expired on {}; it suppresses nothing",
                        e.rule, e.owner, e.expires
                    ),
                ));
            }
        }
        if let Some(bytes) = snap.get(allow::PII_ALLOWLIST) {
            cfg.pii = allow::parse_pii_allowlist(&cfg.pii_path, bytes, today)?;
            let text = String::from_utf8_lossy(bytes);
            for e in cfg.pii.iter().filter(|e| e.expired) {
                cfg.config_diagnostics.push(config_diag(
                    &registry::CFG001,
                    &cfg.pii_path,
                    &text,
                    e.line,
                    format!(
                        "PII allowlist entry '{}' expired on {}; it allows nothing",
                        e.value, e.expires
                    ),
                ));
            }
        }
        Ok(cfg)
    }

    /// True when an allowlist entry has expired: what it suppressed counts again, in files
    /// that did not change too.
    pub fn has_expired(&self) -> bool {
        self.allow.iter().any(|e| e.expired) || self.pii.iter().any(|e| e.expired)
    }

    /// Number of active `.aiignore` patterns.
    pub fn aiignore_patterns(&self) -> usize {
        self.aiignore.as_ref().map_or(0, aiignore::AiIgnore::len)
    }
}

/// The finding (CFG007) for what the gate could not follow of what the agent configuration
/// at `path` (read as `text`) runs, on the line that names the command it comes from. It is
/// an error (fail closed): what the agent would read there is text the gate never judged.
/// One no static reading can follow (`unread` false) can be acknowledged by an
/// `aahp-allowlist.json` entry with its fingerprint ([`unfollowed_acknowledgement`]), which
/// its message names; its fingerprint hashes the configuration's path, what the gate says
/// of the command and the command as written, not the line, so an acknowledgement survives
/// edits elsewhere and lapses when the command changes.
pub fn unfollowed_diagnostic(path: &str, text: &str, u: &agent_runs::Unfollowed) -> Diagnostic {
    // The command's longest word, as the configuration may quote it.
    let needle = u
        .command
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '\\'))
        .max_by_key(|w| w.len())
        .filter(|w| w.len() >= 3);
    let line = needle
        .and_then(|n| text.lines().position(|l| l.contains(n)))
        .map_or(1, |i| i + 1);
    let fp = unfollowed_fingerprint(path, u);
    let mut d = config_diag(
        &registry::CFG007,
        path,
        text,
        line,
        unfollowed_message(u, &fp),
    );
    d.fingerprint = fp;
    d
}

/// The fingerprint of the CFG007 finding for `u` in the configuration at `path`: what the
/// gate says, the configuration's command and the command as written where the gate
/// stopped, so that an acknowledgement covers that command only.
pub fn unfollowed_fingerprint(path: &str, u: &agent_runs::Unfollowed) -> String {
    let key = format!("{}\0{}\0{}", u.message(), u.command, u.source);
    fingerprint(registry::CFG007.id, path, &key, 0, false)
}

/// What a user reads of `u` when it blocks: what the gate could not follow, how to make it
/// judgeable, and, when it can be acknowledged, the allowlist entry that does.
pub fn unfollowed_message(u: &agent_runs::Unfollowed, fingerprint: &str) -> String {
    if u.unread {
        u.message()
    } else {
        format!(
            "{}; or, to have the agent run it unjudged, acknowledge it: an entry in the \
             handoff directory's {} with rule CFG007 and fingerprint {fingerprint}",
            u.message(),
            allow::ALLOWLIST
        )
    }
}

/// The `aahp-allowlist.json` entry of `cfg` (unexpired, for rule CFG007 and this finding's
/// fingerprint, and for `path` when it names one) that acknowledges `u` in the configuration
/// at `path`, as a user reads it (file, reason, owner, expiry). `None` for what the gate
/// could have read and did not (`unread`): that is made judgeable, not acknowledged.
pub fn unfollowed_acknowledgement(
    cfg: &LintConfig,
    path: &str,
    u: &agent_runs::Unfollowed,
) -> Option<String> {
    if u.unread {
        return None;
    }
    acknowledging(cfg, path, &unfollowed_fingerprint(path, u)).map(|(_, by)| by)
}

/// The first unexpired CFG007 entry of `cfg` for `fingerprint` at `path` (by index), with
/// how a user reads it.
fn acknowledging(cfg: &LintConfig, path: &str, fingerprint: &str) -> Option<(usize, String)> {
    cfg.allow
        .iter()
        .enumerate()
        .find(|(_, e)| {
            !e.expired && e.fingerprint == fingerprint && e.applies(registry::CFG007.id, path)
        })
        .map(|(i, e)| (i, e.described(&cfg.allow_path)))
}

fn config_diag(
    rule: &'static RuleMeta,
    path: &str,
    text: &str,
    line: usize,
    message: String,
) -> Diagnostic {
    let line_text = text.lines().nth(line.saturating_sub(1)).unwrap_or("");
    let snippet = crate::output::boundary::neutralise(line_text).into_owned();
    let width = snippet.chars().count().max(1);
    Diagnostic {
        rule: rule.id,
        name: rule.name,
        severity: rule.severity,
        path: path.to_string(),
        line,
        column: 1,
        end_line: line,
        end_column: line_text.chars().count() + 1,
        fingerprint: fingerprint(rule.id, path, &format!("{line}:{message}"), 0, false),
        message,
        context: Context::JsonString,
        kind: None,
        snippet,
        caret: (0, width),
        suppressed_by: None,
    }
}

/// One file to lint.
#[derive(Debug, Clone)]
pub struct LintFile<'a> {
    /// Repository-relative path with `/` (as reported).
    pub path: String,
    /// The file name (decides the structure rules: `LOG.md`, `NEXT_ACTIONS.md`).
    pub name: String,
    /// The content.
    pub bytes: &'a [u8],
    /// A script an agent configuration runs (a hook's, a server's: [`agent_runs`]): code,
    /// whose comments do not reach the agent ([`code`]).
    pub script: bool,
}

/// The result of a lint run.
#[derive(Debug, Default, Serialize)]
pub struct LintOutcome {
    /// Findings that count, sorted by path and position.
    pub diagnostics: Vec<Diagnostic>,
    /// Findings suppressed by an allow marker or an allowlist entry.
    pub suppressed: Vec<Diagnostic>,
    /// Repository-relative paths that were scanned.
    pub files: Vec<String>,
    /// The cuts found near the ends of the files left on disk that were linted, by name, to
    /// record for their blobs ([`LintCut`]).
    #[serde(skip)]
    pub cuts: Vec<(String, LintCut)>,
}

impl LintOutcome {
    /// Adds the CFG007 findings `found` ([`unfollowed_diagnostic`]), each with whether no
    /// static reading can follow it, as [`LintOutcome::add`] does; those an entry of `cfg`
    /// acknowledges are suppressed by it. With `report_unused` (every configuration was
    /// walked), each unexpired CFG007 entry of `cfg` that acknowledged none is said (CFG005).
    pub fn add_unfollowed(
        &mut self,
        cfg: &LintConfig,
        found: Vec<(Diagnostic, bool)>,
        report_unused: bool,
    ) {
        let mut used = vec![false; cfg.allow.len()];
        let mut open = Vec::new();
        for (mut d, acknowledgeable) in found {
            if acknowledgeable && let Some((i, by)) = acknowledging(cfg, &d.path, &d.fingerprint) {
                used[i] = true;
                d.suppressed_by = Some(by);
                if !self
                    .suppressed
                    .iter()
                    .any(|s| s.fingerprint == d.fingerprint)
                {
                    self.suppressed.push(d);
                }
            } else {
                open.push(d);
            }
        }
        if report_unused {
            for (e, _) in cfg
                .allow
                .iter()
                .zip(&used)
                .filter(|(e, u)| !**u && !e.expired && e.rule == registry::CFG007.id)
            {
                open.push(config_diag(
                    &registry::CFG005,
                    &cfg.allow_path,
                    "",
                    e.line,
                    format!(
                        "allowlist entry for {} {} acknowledges no command an agent \
                         configuration runs; remove it",
                        e.rule, e.fingerprint
                    ),
                ));
            }
        }
        self.add(open);
    }

    /// Adds findings made beside the rules (what a configuration runs that the gate cannot
    /// follow), each once, in the order of the others.
    pub fn add(&mut self, found: Vec<Diagnostic>) {
        if found.is_empty() {
            return;
        }
        let mut held: std::collections::HashSet<String> = self
            .diagnostics
            .iter()
            .map(|d| d.fingerprint.clone())
            .collect();
        for d in found {
            if held.insert(d.fingerprint.clone()) {
                self.diagnostics.push(d);
            }
        }
        let key = |d: &Diagnostic| (d.path.clone(), d.line, d.column, d.rule);
        self.diagnostics.sort_by_key(key);
    }
}

/// Starts building the rule set (and the manifest schema's regexes) on another
/// thread, so a command that will lint pays for them while it reads the repository instead
/// of after. Building is idempotent: the first caller wins and later ones wait for it. With
/// `ancestors`, the thread first reads the processes a pre-commit check asks about
/// ([`crate::procfs::read_ancestors_ahead`]).
///
/// The thread then waits for one piece of work ([`on_warm_thread`]): the command's first
/// lint runs there instead of on a thread of its own, which would pay for its start and
/// its own allocator arena on the hook's critical path.
pub fn warm_up(ancestors: bool) {
    let (job_tx, job_rx) = std::sync::mpsc::sync_channel::<WarmJob>(1);
    // Failing to spawn only loses the head start.
    let spawned = crate::sched::spawn_beside("lint-warm-up", move || {
        if ancestors {
            crate::procfs::read_ancestors_ahead();
        }
        engine::warm_up();
        crate::schema::warm_up();
        // Whether the lint's decoders get a thread of their own is asked on the lint's
        // critical path; the answer (the CPUs this process may use, from its affinity and its
        // cgroup's quota files) is read here first.
        crate::sched::parallel();
        if let Ok(job) = job_rx.recv() {
            job();
        }
    });
    if spawned.is_ok() {
        let _ = WARM_THREAD.set(std::sync::Mutex::new(Some(job_tx)));
    }
}

/// Work handed to the warm-up thread.
pub(crate) type WarmJob = Box<dyn FnOnce() + Send>;

/// Where the warm-up thread takes its one piece of work from, until it is handed one.
static WARM_THREAD: std::sync::OnceLock<
    std::sync::Mutex<Option<std::sync::mpsc::SyncSender<WarmJob>>>,
> = std::sync::OnceLock::new();

/// Hands `job` to the warm-up thread ([`warm_up`]), which runs it once it has warmed up;
/// gives it back when there is no such thread or it was handed one already.
pub(crate) fn on_warm_thread(job: WarmJob) -> std::result::Result<(), WarmJob> {
    let Some(slot) = WARM_THREAD.get() else {
        return Err(job);
    };
    let taken = slot.lock().ok().and_then(|mut s| s.take());
    match taken {
        Some(tx) => tx.send(job).map_err(|e| e.0),
        None => Err(job),
    }
}

/// Lints every file of a handoff snapshot (the files themselves, with `.aiignore` and the
/// allowlists found in the same snapshot), judging expiry dates against `today`. Returns the
/// findings that count (suppressed ones are left out).
pub fn check_snapshot(
    dir: &HandoffDir,
    snap: &Snapshot,
    today: jiff::civil::Date,
) -> Result<Vec<Diagnostic>> {
    Ok(lint_snapshot(dir, snap, today, &[])?.diagnostics)
}

/// Lints a handoff snapshot plus `extra` files (agent instruction files for `--all`), with the
/// snapshot's configuration; also reports unused allowlist entries.
pub fn lint_snapshot(
    dir: &HandoffDir,
    snap: &Snapshot,
    today: jiff::civil::Date,
    extra: &[LintFile<'_>],
) -> Result<LintOutcome> {
    let cfg = LintConfig::from_snapshot(dir, snap, today)?;
    lint_snapshot_with(&cfg, dir, snap, extra)
}

/// [`lint_snapshot`] with a configuration already read (and possibly adjusted).
pub fn lint_snapshot_with(
    cfg: &LintConfig,
    dir: &HandoffDir,
    snap: &Snapshot,
    extra: &[LintFile<'_>],
) -> Result<LintOutcome> {
    // Files a snapshot left on disk (LOG-ARCHIVE.md and its index, read elsewhere as
    // streams) are linted in pieces of whole entries above 1 MiB when that gives what their
    // whole lint gives ([`pieces`]); else the file is read whole, within its size limit.
    // At pre-commit, one changed from HEAD's blob is linted from the cut recorded for that
    // blob when it starts as the blob did ([`LintCut`]); not when an allowlist entry may
    // serve it (see the windows below).
    let served = |path: &str| {
        cfg.allow
            .iter()
            .any(|e| e.path.as_deref().is_none_or(|p| p == path))
    };
    let streamed: Vec<Streamed<'_>> = snap
        .streamed
        .iter()
        .filter(|(name, _)| is_lintable(name))
        .chain(&snap.nested_streamed)
        .map(|(name, content)| {
            let path = dir.path_of(name);
            Streamed {
                resume: snap.lint_cuts.get(name).filter(|_| !served(&path)),
                record: snap.lint_cut_cache.is_some() && snap.streamed_blob_ids.contains_key(name),
                path,
                name,
                content,
            }
        })
        .collect();
    let mut files = snapshot_files(dir, snap);
    // A file changed from HEAD's is linted in the window around its change
    // ([`pieces::changed_window`]), shifted back to its lines. Not when an allowlist entry
    // may serve the file: entries match findings by a fingerprint that numbers a text's
    // occurrences from the start of what is linted.
    let mut placed: Vec<(String, pieces::WindowLines)> = Vec::new();
    for f in &mut files {
        if let Some(&(start, end)) = snap.windows.get(&f.name)
            && !cfg
                .allow
                .iter()
                .any(|e| e.path.as_deref().is_none_or(|p| p == f.path))
        {
            placed.push((
                f.path.clone(),
                pieces::WindowLines::of(f.bytes, (start, end)),
            ));
            f.bytes = &f.bytes[start..end];
        }
    }
    // Unused allowlist entries can only be told on the whole directory: an entry may serve
    // a file a pre-commit snapshot left unread.
    // The index read whole, changed from HEAD's: linted from the cut the snapshot found in
    // it, when no allowlist entry may serve it.
    let held_cut = |f: &LintFile<'_>| {
        snap.lint_cuts
            .get(&f.name)
            .filter(|_| snap.files.contains_key(&f.name) && !served(&f.path))
    };
    let mut outcome = lint_inputs(cfg, &files, &streamed, extra, !snap.is_partial(), &held_cut)?;
    record_cuts(snap, std::mem::take(&mut outcome.cuts));
    if !placed.is_empty() {
        let place = |d: &mut Diagnostic| {
            placed
                .iter()
                .find(|(path, _)| *path == d.path)
                .is_none_or(|(_, lines)| lines.place(d))
        };
        outcome.diagnostics.retain_mut(place);
        outcome.suppressed.retain_mut(place);
    }
    let binaries = snap
        .files
        .iter()
        .chain(&snap.nested)
        .filter(|(name, bytes)| is_lintable(name) && is_binary(name, bytes));
    for (name, bytes) in binaries {
        outcome
            .diagnostics
            .extend(binary_secrets(cfg, &dir.path_of(name), name, bytes)?);
    }
    Ok(outcome)
}

/// Records the cuts found in the files `snap` left on disk as their blobs, by blob id, in
/// the cache the snapshot names: only for a file that still has the stamp it had when it
/// was shown to be its blob, so the cut was found in that blob's bytes (a cut is checked
/// against a file's bytes by its digest before it serves anyway).
fn record_cuts(snap: &Snapshot, cuts: Vec<(String, LintCut)>) {
    let Some(path) = &snap.lint_cut_cache else {
        return;
    };
    let mut cache = None;
    for (name, cut) in cuts {
        let (Some(&(id, stamp)), Some(content)) =
            (snap.streamed_blob_ids.get(&name), snap.streamed.get(&name))
        else {
            continue;
        };
        if crate::handoff::stream::Stamp::of(&content.path) != Some(stamp) {
            continue;
        }
        cache
            .get_or_insert_with(|| crate::handoff::checksum_cache::BlobCache::lint_cuts_at(path))
            .insert_lint_cut(id, &cut);
    }
    if let Some(cache) = cache {
        cache.save();
    }
}

/// The secret findings (SEC, any severity) in a file's bytes, however they read: a binary
/// file by its readable runs ([`binary_secrets`]), text as text, and bytes that are not
/// UTF-8 as text with the bad bytes replaced, so nothing is passed unread (the `history`
/// layer of `verify`, which judges blobs no tip holds any more).
pub fn secrets_in(cfg: &LintConfig, path: &str, bytes: &[u8]) -> Result<Vec<Diagnostic>> {
    let name = path.rsplit('/').next().unwrap_or(path);
    if is_binary(name, bytes) {
        return binary_secrets(cfg, path, name, bytes);
    }
    let text = String::from_utf8_lossy(bytes);
    let file = LintFile {
        script: false,
        path: path.to_string(),
        name: name.to_string(),
        bytes: text.as_bytes(),
    };
    let mut used = vec![false; cfg.allow.len()];
    // JSON that does not parse, or text the Markdown reader refuses: judged as plain text.
    let diags = if let Ok(d) = lint_text_as(cfg, &file, &mut used, false, Judged::Secrets) {
        d
    } else {
        let plain = LintFile {
            script: false,
            name: format!("{name}.txt"),
            ..file
        };
        lint_text_as(cfg, &plain, &mut used, false, Judged::Secrets)?
    };
    Ok(diags.into_iter().filter(is_secret_finding).collect())
}

/// The hidden-character rules that judge a name: the characters that make a name read as
/// something else or carry text unseen (format and zero-width characters, bidi controls,
/// tag characters, variation selectors, control characters).
const NAME_HID_RULES: &[&str] = &["HID001", "HID002", "HID003", "HID004", "HID011"];

/// The findings in a name: a changed path (every component of it) or a symbolic link's
/// target, judged as one line of plain text by the secret rules and [`NAME_HID_RULES`]
/// (review s23 #2: a credential or a bidi override in a file name was committed and
/// published unjudged, since only contents were linted). `path` is where the name is
/// reported.
pub fn name_findings(cfg: &LintConfig, path: &str, name: &str) -> Result<Vec<Diagnostic>> {
    let file = LintFile {
        script: false,
        path: path.to_string(),
        name: "name.txt".to_string(),
        bytes: name.as_bytes(),
    };
    let mut used = vec![false; cfg.allow.len()];
    let diags = lint_text_as(cfg, &file, &mut used, false, Judged::Secrets)?;
    Ok(diags
        .into_iter()
        .filter(|d| is_secret_finding(d) || NAME_HID_RULES.contains(&d.rule))
        .collect())
}

/// True for an image, PDF or archive (by extension and content) the linter judges by its
/// readable runs only.
pub fn is_binary_file(path: &str, bytes: &[u8]) -> bool {
    is_binary(path.rsplit('/').next().unwrap_or(path), bytes)
}

/// [`binary_secrets`] for a file outside a handoff directory (an instruction file's bundled
/// image).
pub fn binary_file_secrets(cfg: &LintConfig, path: &str, bytes: &[u8]) -> Result<Vec<Diagnostic>> {
    binary_secrets(cfg, path, path.rsplit('/').next().unwrap_or(path), bytes)
}

/// The credentials in the readable text of a binary file of a handoff directory (an image,
/// a PDF, an archive): its runs of at least eight printable ASCII characters, one per line,
/// as `strings` lists them, where image metadata and an archive's names keep text. Only
/// the secret rules judge them (review 20: a token in a screenshot's `tEXt` chunk passed
/// unread); the line is the run's.
fn binary_secrets(
    cfg: &LintConfig,
    path: &str,
    name: &str,
    bytes: &[u8],
) -> Result<Vec<Diagnostic>> {
    const MIN_RUN: usize = 8;
    let mut text = Vec::new();
    for run in bytes.split(|b| !(b.is_ascii_graphic() || *b == b' ' || *b == b'\t')) {
        if run.len() >= MIN_RUN {
            text.extend_from_slice(run);
            text.push(b'\n');
        }
    }
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let file = LintFile {
        script: false,
        path: path.to_string(),
        // Judged as plain text, whatever the extension.
        name: format!("{name}.strings"),
        bytes: &text,
    };
    let mut used = vec![false; cfg.allow.len()];
    let mut diags = lint_text_as(cfg, &file, &mut used, false, Judged::Secrets)?;
    diags.retain(is_secret_finding);
    for d in &mut diags {
        d.message = format!(
            "in the file's readable text (line {} of it): {}",
            d.line, d.message
        );
        d.line = 1;
        d.column = 1;
    }
    Ok(diags)
}

/// Lints a file held in memory. LOG-ARCHIVE.md and its index above 1 MiB
/// ([`pieces::Sizes::whole_up_to`]; blobs read from git: the pre-commit hook, `commit`'s
/// gate, `verify --level ci`) are linted in pieces when that gives what the whole lint
/// gives: the lint's own structures, several times the text, then hold one piece rather
/// than the file.
///
/// With `resume` (LOG-ARCHIVE.index.json changed from HEAD's, at pre-commit), it is linted
/// from that cut on, as a file left on disk is ([`LintCut`]).
fn lint_held(
    cfg: &LintConfig,
    file: &LintFile<'_>,
    used: &mut [bool],
    resume: Option<&LintCut>,
) -> Result<Vec<Diagnostic>> {
    let content = crate::handoff::log_stream::Bytes(file.bytes);
    match pieces::lint_streamed(
        cfg,
        &file.path,
        &file.name,
        &content,
        used,
        pieces::Resume {
            at: resume,
            record: false,
        },
        pieces::Sizes::of_command(),
    )? {
        Some((diags, _)) => Ok(diags),
        None if is_config_file(&file.name) => {
            let mut diags = lint_text_as(cfg, file, used, false, Judged::Secrets)?;
            diags.retain(config_rule);
            Ok(diags)
        }
        None => lint_file(cfg, file, used),
    }
}

/// A file a snapshot left on disk.
struct Streamed<'a> {
    path: String,
    name: &'a str,
    content: &'a crate::handoff::stream::Streamed,
    /// Where its lint may resume: the cut recorded for HEAD's blob (at pre-commit, when it
    /// changed from it and no allowlist entry may serve it).
    resume: Option<&'a LintCut>,
    /// Whether to find the cut of its content near its end, to record for its blob.
    record: bool,
}

impl Streamed<'_> {
    /// Lints the file: LOG-ARCHIVE.md and its index in pieces when they give what the
    /// whole lint gives (from the cut of [`Streamed::resume`] when the file starts as HEAD's
    /// blob did), else (and any other file) read whole. Gives the cut of its content found
    /// on the way, when asked to record one.
    ///
    /// Above [`whole_lint_limit`], a file whose pieces cannot be shown to give the whole
    /// lint is not judged at all: exit 2 naming the file, its size, the limit and what to
    /// do. Never a pass on a lint of pieces that may miss what the whole lint finds (fail
    /// closed; issue #12 item 2): the hook, `verify` and `commit` stop there too.
    fn lint(
        &self,
        cfg: &LintConfig,
        used: &mut [bool],
    ) -> Result<(Vec<Diagnostic>, Option<LintCut>)> {
        if let Some(found) = pieces::lint_streamed(
            cfg,
            &self.path,
            self.name,
            self.content,
            used,
            pieces::Resume {
                at: self.resume,
                record: self.record,
            },
            pieces::Sizes::of_command(),
        )? {
            return Ok(found);
        }
        // An archive already moved aside cannot be moved aside again.
        let or_move = if self.name.contains('/') {
            ""
        } else {
            ", or move LOG-ARCHIVE.md and LOG-ARCHIVE.index.json into a dated subdirectory \
             to start a new archive"
        };
        let bytes = self.content.read_all(
            &self.path,
            whole_lint_limit(self.name),
            &format!(
                "its lint cannot be done in pieces that give what the whole lint gives (a link \
                 reference definition, an obfuscated stretch or a repeated finding across its \
                 entries, more than 100 findings, or text that is not UTF-8), so it was not \
                 judged: fix what spans its entries{or_move}, then rerun"
            ),
        )?;
        let file = LintFile {
            script: false,
            path: self.path.clone(),
            name: self.name.to_string(),
            bytes: &bytes,
        };
        Ok((lint_file(cfg, &file, used)?, None))
    }
}

/// The most of a file left on disk (LOG-ARCHIVE.md or its index) the lint reads whole when
/// its pieces cannot be shown to give the whole lint: [`crate::handoff::max_bytes`] (the
/// lint's own structures then take several times the text). Tests arm
/// `whole-lint-at-most-1k` to reach the refusal at a test's size.
fn whole_lint_limit(name: &str) -> usize {
    if crate::failpoint::armed_flag("whole-lint-at-most-1k") {
        return 1024;
    }
    crate::handoff::max_bytes(name)
}

/// The files of a snapshot that are scanned: every top-level file but the configuration and
/// the lock, and every file in a subdirectory (named by its inner path, so the structure
/// rules of `LOG.md` and the like apply only at the top level); binary files are not.
pub fn snapshot_files<'a>(dir: &HandoffDir, snap: &'a Snapshot) -> Vec<LintFile<'a>> {
    let top = snap
        .files
        .iter()
        .filter(|(name, bytes)| {
            (is_lintable(name) || (is_config_file(name) && !snap.config_as_base.contains(*name)))
                && !snap.judged_at_base.contains(*name)
                && !is_binary(name, bytes)
        })
        .map(|(name, bytes)| LintFile {
            script: false,
            path: dir.path_of(name),
            name: name.clone(),
            bytes,
        });
    let nested = snap
        .nested
        .iter()
        .filter(|(inner, bytes)| is_lintable(inner) && !is_binary(inner, bytes))
        .map(|(inner, bytes)| LintFile {
            script: false,
            path: dir.path_of(inner),
            name: inner.clone(),
            bytes,
        });
    top.chain(nested).collect()
}

/// True for files of a handoff directory that are scanned, by their inner path: all but the
/// configuration and the lock at the top level, which their own checks read. In a
/// subdirectory those names are ordinary files, and a temporary file's name (`.aahp-tmp-…`)
/// is content like any other wherever it is committed or staged: the working-tree snapshot
/// leaves out the transient ones a writer may hold at the top level.
pub fn is_lintable(inner: &str) -> bool {
    inner.contains('/') || !NOT_SCANNED.contains(&inner)
}

/// True for a file that is an image, a PDF or an archive: a binary extension and content
/// that opens the way that format does. Anything else under such a name (text, or a byte
/// or two of garbage before text) is scanned like any file, and refused if it is not UTF-8.
fn is_binary(inner: &str, bytes: &[u8]) -> bool {
    let ext = inner.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    ext.is_some_and(|e| BINARY_EXTENSIONS.contains(&e.as_str())) && has_binary_magic(bytes)
}

/// Whether `b` starts with the signature of one of [`BINARY_EXTENSIONS`]' formats.
fn has_binary_magic(b: &[u8]) -> bool {
    const MAGIC: &[&[u8]] = &[
        b"\x89PNG\r\n\x1a\n",
        b"\xFF\xD8\xFF",
        b"GIF87a",
        b"GIF89a",
        b"%PDF-",
        b"PK\x03\x04",
        b"PK\x05\x06",
        b"\x1f\x8b",
        b"\x00\x00\x01\x00",
    ];
    MAGIC.iter().any(|m| b.starts_with(m))
        // RIFF, a size, then the WebP form type.
        || (b.starts_with(b"RIFF") && b.get(8..12) == Some(b"WEBP".as_slice()))
        // BM, a size, then four reserved bytes that are zero.
        || (b.starts_with(b"BM") && b.get(6..10) == Some([0u8; 4].as_slice()))
}

/// Lints `files` with `cfg`.
pub fn lint(cfg: &LintConfig, files: &[LintFile<'_>]) -> Result<LintOutcome> {
    lint_with(cfg, files, false)
}

fn lint_with(cfg: &LintConfig, files: &[LintFile<'_>], report_unused: bool) -> Result<LintOutcome> {
    lint_inputs(cfg, files, &[], &[], report_unused, &|_| None)
}

/// Where a file is listed: the top-level files by name, then the nested ones by path.
fn listing_order(name: &str) -> (bool, &str) {
    (name.contains('/'), name)
}

fn lint_inputs<'c>(
    cfg: &LintConfig,
    files: &[LintFile<'_>],
    streamed: &[Streamed<'_>],
    extra: &[LintFile<'_>],
    report_unused: bool,
    resume: &dyn Fn(&LintFile<'_>) -> Option<&'c LintCut>,
) -> Result<LintOutcome> {
    let mut out = LintOutcome::default();
    let mut used = vec![false; cfg.allow.len()];
    for d in &cfg.config_diagnostics {
        out.diagnostics.push(d.clone());
    }
    let mut found = Vec::new();
    for f in files {
        found.push((
            f.name.as_str(),
            f.path.clone(),
            lint_held(cfg, f, &mut used, resume(f))?,
        ));
    }
    for s in streamed {
        let (diags, cut) = s.lint(cfg, &mut used)?;
        if let Some(cut) = cut {
            out.cuts.push((s.name.to_string(), cut));
        }
        // Listed where a whole read would have put it: the top-level files by name, then
        // the nested ones by path.
        let at = found
            .iter()
            .position(|(name, _, _)| listing_order(name) > listing_order(s.name))
            .unwrap_or(found.len());
        found.insert(at, (s.name, s.path.clone(), diags));
    }
    for f in extra {
        found.push((
            f.name.as_str(),
            f.path.clone(),
            lint_file(cfg, f, &mut used)?,
        ));
    }
    for (_, path, diags) in found {
        out.files.push(path);
        for d in diags {
            if d.suppressed_by.is_some() {
                out.suppressed.push(d);
            } else {
                out.diagnostics.push(d);
            }
        }
    }
    if report_unused {
        // An acknowledged command an agent configuration runs (CFG007) is matched by the
        // walk over what configurations run, not by a file's lint.
        for (e, u) in cfg.allow.iter().zip(&used) {
            if !u && !e.expired && e.rule != registry::CFG007.id {
                out.diagnostics.push(config_diag(
                    &registry::CFG005,
                    &cfg.allow_path,
                    "",
                    e.line,
                    format!(
                        "allowlist entry for {} {} matches no finding; remove it",
                        e.rule, e.fingerprint
                    ),
                ));
            }
        }
    }
    let key = |d: &Diagnostic| (d.path.clone(), d.line, d.column, d.rule);
    out.diagnostics.sort_by_key(key);
    out.suppressed.sort_by_key(key);
    Ok(out)
}

/// The findings that count in one string field of MANIFEST.json, read as the manifest's
/// lint reads it: for a field shown on its own, away from the file (`context` shows
/// `quick_context` at the top of the read).
pub fn manifest_field_findings(
    cfg: &LintConfig,
    path: &str,
    key: &str,
    value: &str,
) -> Result<Vec<Diagnostic>> {
    let mut doc = serde_json::Map::new();
    doc.insert(
        key.to_string(),
        serde_json::Value::String(value.to_string()),
    );
    let text = serde_json::to_string_pretty(&serde_json::Value::Object(doc))
        .expect("a JSON map of one string always serialises");
    let file = LintFile {
        script: false,
        path: path.to_string(),
        name: crate::handoff::MANIFEST.to_string(),
        bytes: text.as_bytes(),
    };
    Ok(lint(cfg, &[file])?.diagnostics)
}

/// Lints one text with no `.aiignore` or allowlist (the evaluation harness, benchmarks,
/// property tests). `path` decides Markdown or JSON handling.
pub fn check_text(path: &str, text: &str) -> Result<Vec<Diagnostic>> {
    let cfg = LintConfig::empty(jiff::civil::date(2000, 1, 1));
    let name = path.rsplit('/').next().unwrap_or(path).to_string();
    let file = LintFile {
        script: false,
        path: path.to_string(),
        name,
        bytes: text.as_bytes(),
    };
    Ok(lint(&cfg, &[file])?.diagnostics)
}

/// The byte ranges of every secret the linter's detectors recognise in `text` (credentials,
/// private keys with their body, PII the linter redacts), sorted and merged. The output
/// boundary (`output::boundary`) replaces each with [`redacted`], the form lint snippets use.
pub fn secret_spans(text: &str) -> Vec<(usize, usize)> {
    // Character references decoded (`AKIA&#90;…` is read as `AKIAZ…`), as lint reads
    // Markdown: a secret lint finds through them is redacted in every other output too.
    spans_of_secrets(
        text,
        &scan_with(text, 0, true, |scan, findings| {
            every_secret_detector(scan, findings);
            // Encoded runs that decode to a secret are secrets too (ENC001, marked so), and
            // so are tokens reversed, in ROT13 or spaced out.
            decode_runs(scan, findings);
            undo_tokens(scan, findings);
            // And credentials split by Markdown formatting (`ghp\_…`, `AKIA<b></b>…`).
            let mut hidden = rules::formatted::hidden_by_formatting(scan, false, findings);
            findings.append(&mut hidden);
        }),
    )
}

/// The spans of the secret findings among `findings` (spans in `text`), as
/// [`secret_spans`] gives them.
fn spans_of_secrets(text: &str, findings: &[Finding]) -> Vec<(usize, usize)> {
    let spans: Vec<(usize, usize)> = findings
        .iter()
        .filter(|f| f.secret)
        .map(|f| {
            let s = text::floor_char(text, f.start.min(text.len()));
            let e = text::ceil_char(text, f.end.clamp(s, text.len()));
            (s, extend_private_key(text, s, e))
        })
        .collect();
    merge_spans(spans)
}

/// Text the output boundary redacts beyond the built-in detectors: the secrets section of a
/// repository's `.aiignore` (issue #11). Parsed from the file the first time it is needed.
pub struct UserSecrets(aiignore::AiIgnore);

impl UserSecrets {
    /// Parses a `.aiignore` (`path` names it in errors).
    pub fn parse(path: &str, text: &str) -> Result<UserSecrets> {
        aiignore::AiIgnore::parse_secrets(path, text).map(UserSecrets)
    }

    /// The byte ranges in `text` that a secrets-section pattern matches, as `lint` reports
    /// them (IGN001 findings it redacts), sorted and merged.
    pub fn spans(&self, text: &str) -> Vec<(usize, usize)> {
        let spans = ignore_hits(&self.0, text)
            .filter(|(f, ..)| f.secret)
            .map(|(_, s, e)| (s, e))
            .collect();
        merge_spans(spans)
    }
}

/// The findings of a `.aiignore`'s patterns in `text` (exceptions applied), each with its
/// span on character boundaries.
fn ignore_hits<'t>(
    ignore: &aiignore::AiIgnore,
    text: &'t str,
) -> impl Iterator<Item = (Finding, usize, usize)> + 't {
    plain_scan(text, 0, |scan, found| ignore.apply(scan, found))
        .into_iter()
        .map(move |f| {
            let s = text::floor_char(text, f.start.min(text.len()));
            let e = text::ceil_char(text, f.end.clamp(s, text.len()));
            (f, s, e)
        })
}

/// Every pattern of a `.aiignore`, all sections: what another revision's file makes of a
/// text (the `suppressions` layer judges a range's text by the base's patterns).
pub struct UserPatterns(aiignore::AiIgnore);

/// A hit of a [`UserPatterns`]: its byte range and whether the pattern's section makes it
/// an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatternHit {
    pub start: usize,
    pub end: usize,
    pub error: bool,
}

impl UserPatterns {
    /// Parses a `.aiignore` (`path` names it in errors).
    pub fn parse(path: &str, text: &str) -> Result<UserPatterns> {
        aiignore::AiIgnore::parse(path, text).map(UserPatterns)
    }

    /// What this `.aiignore` no longer holds of `base`'s patterns and the exceptions it adds,
    /// one message each, by line ([`aiignore::AiIgnore::weakened_since`]).
    pub fn weakened_since(&self, base: &UserPatterns) -> Vec<String> {
        self.0
            .weakened_since(&base.0)
            .into_iter()
            .map(|(_, what)| what)
            .collect()
    }

    /// The hits of the patterns in `text` (exceptions applied), sorted by start.
    pub fn hits(&self, text: &str) -> Vec<PatternHit> {
        let mut hits: Vec<PatternHit> = ignore_hits(&self.0, text)
            .filter(|(f, ..)| f.rule.family == Family::Ign)
            .map(|(f, start, end)| PatternHit {
                start,
                end,
                error: f.severity == Severity::Error,
            })
            .collect();
        hits.sort_unstable_by_key(|h| (h.start, h.end));
        hits
    }
}

/// Sorts spans and merges those that overlap (adjacent ones stay apart), dropping empty
/// ones: both the boundary and lint snippets redact these, so they agree on the form.
pub(crate) fn merge_spans(mut spans: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    spans.retain(|(s, e)| s < e);
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        match merged.last_mut() {
            Some(last) if s < last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}

/// The redacted form of a secret: its first two characters when it has at least twelve,
/// then its length (`gh…(40 chars)`, `…(8 chars)`). The one definition of the form (issue
/// #11): lint messages and snippets, the output boundary and every format use it, so a
/// secret reads the same wherever it is shown. Nothing that depends on where it was found
/// (a vendor prefix, the rule) goes in, since the boundary redacts text without knowing that.
pub fn redacted(secret: &str) -> String {
    redacted_counted(secret, secret.chars().count())
}

/// [`redacted`] of a secret whose `n` characters are already counted.
fn redacted_counted(secret: &str, n: usize) -> String {
    let shown: String = if n >= 12 {
        secret.chars().take(2).collect()
    } else {
        String::new()
    };
    format!("{shown}…({n} chars)")
}

/// A private-key header's finding covers the `-----BEGIN … PRIVATE KEY-----` line; for
/// display the key body and its END line go too (a bounded look-ahead keeps this linear).
fn extend_private_key(text: &str, s: usize, e: usize) -> usize {
    const LOOK: usize = 64 * 1024;
    let head = &text[s..e];
    // The header as it renders (`-----BEGIN RSA PRIVATE **KEY**-----` is a header too).
    let plain = inline::unformatted(head).map(|u| u.view.text.into_owned());
    let head = plain.as_deref().unwrap_or(head);
    if !(head.starts_with("-----BEGIN") && head.contains("PRIVATE KEY")) {
        return e;
    }
    let window = &text[e..text::floor_char(text, (e + LOOK).min(text.len()))];
    if let Some(i) = window.find("-----END") {
        let after = &window[i + 8..];
        let close = after
            .find("-----")
            .filter(|j| !after[..*j].contains('\n'))
            .map_or(i + 8, |j| i + 8 + j + 5);
        return e + close;
    }
    // No END line: the body is the following run of base64 lines.
    let mut end = e;
    let mut body_seen = false;
    for line in window.split_inclusive('\n') {
        let body = line.trim();
        if body.is_empty() && body_seen
            || !body
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
        {
            break;
        }
        body_seen |= !body.is_empty();
        end += line.len();
    }
    end
}

/// Lints text decoded from an encoded run (ENC); offsets are in `text`.
pub(crate) fn scan_decoded(text: &str, depth: u8) -> Vec<Finding> {
    plain_scan(text, depth, every_rule)
}

/// Every rule that judges plain text: the engine's patterns, the jailbreak signals they
/// combine into, and the decoders of encoded runs.
fn every_rule(scan: &Scan<'_>, findings: &mut Vec<Finding>) {
    engine::run(scan, findings);
    rules::injection::combine(scan, findings);
    keyless_secrets(scan, findings);
    rules::shapes::byte_keypairs(&scan.base.text, findings);
    decode_runs(scan, findings);
}

/// The secret detectors that wait for no keyword, run after the engine's patterns (a seed
/// phrase a pattern found by its label is not reported twice): numbers (cards, SSNs,
/// phones, IBANs), wallet phrases by their checksum, Discord tokens and `Base58Check` keys.
/// Lint runs them on the file; every other reading that judges secrets runs them through
/// [`every_secret_detector`]: the boundary redacted none of them, and a WIF key in bold
/// pieces, in base64 or reversed passed the gate where a `ghp_` token did not (review
/// atk37 #1, #2).
fn keyless_secrets(scan: &Scan<'_>, findings: &mut Vec<Finding>) {
    Keyless::find(scan).place(findings);
}

/// What the [`keyless_secrets`] detectors find in a text, before they are placed among the
/// findings already made. Finding reads only the text; placing drops what overlaps a finding
/// already made, in the detectors' order. Lint finds them beside the engine's run and places
/// them where they always were: the text's longest work split more evenly between its two
/// threads (the obfuscation decoders' thread took longer than the engine's).
struct Keyless {
    numbers: Vec<Finding>,
    phrases: Vec<Finding>,
    shapes: rules::shapes::Found,
}

impl Keyless {
    fn find(scan: &Scan<'_>) -> Keyless {
        let mut numbers = Vec::new();
        rules::pii::scan_numbers(scan, &mut numbers);
        Keyless {
            numbers,
            phrases: rules::seed_phrase::find(scan),
            shapes: rules::shapes::find(scan),
        }
    }

    fn place(self, findings: &mut Vec<Finding>) {
        findings.extend(self.numbers);
        rules::seed_phrase::place(findings, self.phrases);
        rules::shapes::place(findings, self.shapes);
    }
}

/// Every detector whose findings can be secrets, over a text read as plain text (a
/// [`scan_with`] scan, whose base is the text itself): the engine's secret patterns, the
/// [`keyless_secrets`] and key pairs written as byte arrays. The one list the output
/// boundary ([`secret_spans`]) and the readings of undone text (formatting removed, tokens
/// reversed) judge secrets by, so each finds what lint finds.
fn every_secret_detector(scan: &Scan<'_>, findings: &mut Vec<Finding>) {
    engine::run_secrets(scan, findings);
    keyless_secrets(scan, findings);
    rules::shapes::byte_keypairs(&scan.base.text, findings);
}

/// Judges the tokens of the text written reversed, in ROT13 or spaced out (ENC), outside
/// the secrets already found.
fn undo_tokens(scan: &Scan<'_>, findings: &mut Vec<Finding>) {
    let secrets = secret_spans_of(findings);
    rules::encoded::obfuscated_tokens(scan, &secrets, findings);
}

/// The spans of the secrets among `findings` that block (the scan's offsets): the decoders
/// leave those alone, the text being reported already. A warning's span is read (an
/// infrastructure identifier, SEC150: an order in base64 as an ARN's or a bucket's path
/// passed with that warning, review atk46 #2).
fn secret_spans_of(findings: &[Finding]) -> Vec<(usize, usize)> {
    findings
        .iter()
        .filter(|f| f.secret && f.severity == Severity::Error)
        .map(|f| (f.start, f.end))
        .collect()
}

/// Judges the encoded runs of the text (ENC), outside the secrets already found.
fn decode_runs(scan: &Scan<'_>, findings: &mut Vec<Finding>) {
    let secrets = secret_spans_of(findings);
    rules::encoded::scan(scan, &secrets, findings);
}

/// Lints decoded text for the rules whose findings can be secrets only (SEC, PII; offsets in
/// `text`): what `encoded::obfuscated_tokens` judges undone tokens by.
pub(crate) fn scan_decoded_secrets(text: &str, depth: u8) -> Vec<Finding> {
    plain_scan(text, depth, every_secret_detector)
}

/// Lints decoded text for the injection and exfiltration rules only (PI, EXF; offsets in
/// `text`): what `encoded::obfuscated` judges a decoded stretch by. Their findings are the
/// ones [`scan_decoded`] gives: none of those rules reads another family's findings.
pub(crate) fn scan_decoded_injection(text: &str, depth: u8) -> Vec<Finding> {
    plain_scan(text, depth, |scan, findings| {
        engine::run_injection(scan, findings);
        rules::injection::combine(scan, findings);
    })
}

/// Lints the text read without its Markdown inline formatting (offsets in `text`): the
/// secret rules, and the injection and exfiltration rules when `injection`. What
/// `formatted::hidden_by_formatting` judges that text by.
pub(crate) fn scan_unformatted(text: &str, injection: bool) -> Vec<Finding> {
    plain_scan(text, 1, |scan, findings| {
        if injection {
            engine::run_injection(scan, findings);
            rules::injection::combine(scan, findings);
        }
        every_secret_detector(scan, findings);
    })
}

/// Runs `detect` over `text` read as plain text (no Markdown or JSON structure) and returns
/// its findings with spans in `text`'s own offsets.
fn plain_scan(
    text: &str,
    depth: u8,
    detect: impl FnOnce(&Scan<'_>, &mut Vec<Finding>),
) -> Vec<Finding> {
    scan_with(text, depth, false, detect)
}

/// [`plain_scan`], with HTML character references decoded when `entities`.
fn scan_with(
    text: &str,
    depth: u8,
    entities: bool,
    detect: impl FnOnce(&Scan<'_>, &mut Vec<Finding>),
) -> Vec<Finding> {
    let base = text::View::identity(text);
    let norm = unicode::normalize(text, entities);
    let scan = Scan {
        base: &base,
        norm: &norm.view,
        events: &norm.events,
        md: None,
        kind: FileKind::Decoded,
        depth,
        examples_shown: false,
        memo: engine::Memo::default(),
    };
    let mut findings = Vec::new();
    detect(&scan, &mut findings);
    for f in &mut findings {
        if !f.raw_span {
            let (s, e) = scan.to_raw(f.start, f.end);
            f.start = s;
            f.end = e;
            f.raw_span = true;
        }
    }
    findings
}

#[allow(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "the name is lowercased first"
)]
fn file_kind(name: &str) -> FileKind {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".json") || is_jsonc_name(&lower) {
        FileKind::Json
    } else if escapes::is_toml(&lower) || escapes::is_yaml(&lower) || escapes::is_json_text(&lower)
    {
        // Read through their escapes, not as Markdown.
        FileKind::Text
    } else if lower.ends_with(".md")
        || lower.ends_with(".markdown")
        || lower.ends_with(".mdc")
        || lower.ends_with(".txt")
        || !lower.contains('.')
        || lower.starts_with('.')
    {
        FileKind::Markdown
    } else {
        FileKind::Text
    }
}

/// True for a name read as JSON with comments ([`json::extract_jsonc`]).
fn is_jsonc_name(name: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, e)| e.eq_ignore_ascii_case("jsonc"))
}

/// Priority among overlapping secret findings: the most specific rule wins.
fn sec_priority(id: &str) -> u8 {
    match id {
        "SEC150" | "IGN001" => 0,
        "SEC120" => 1,
        "SEC121" | "SEC130" | "SEC131" => 2,
        "SEC110" => 3,
        "SEC042" => 4,
        // A catalogue entry names the provider: more specific than a shape (JWT, `sk_live_`).
        "SEC100" => 6,
        _ => 5,
    }
}

fn lint_file(cfg: &LintConfig, file: &LintFile<'_>, used: &mut [bool]) -> Result<Vec<Diagnostic>> {
    lint_text(cfg, file, used, false)
}

/// Text length from which [`lint_text`] runs the obfuscation decoders and `.aiignore` on a
/// thread of their own beside the rule engine. They cost about a third of a prose file's
/// lint (2.5 M instructions on a 30 KB STATUS.md, against some 50 µs to start a thread),
/// and the pre-commit hook waits for its lint thread, so on two cores the hook ends sooner;
/// below this a thread costs more than it saves.
const DECODE_BESIDE_FROM: usize = 16 * 1024;

#[cfg(test)]
thread_local! {
    /// Tests: this thread's [`DECODE_BESIDE_FROM`] instead of the constant.
    static DECODE_BESIDE_TEST: std::cell::Cell<Option<usize>> =
        const { std::cell::Cell::new(None) };
}

/// [`DECODE_BESIDE_FROM`], or what a test set for its thread.
fn decode_beside_from() -> usize {
    #[cfg(test)]
    if let Some(from) = DECODE_BESIDE_TEST.get() {
        return from;
    }
    DECODE_BESIDE_FROM
}

#[cfg(test)]
thread_local! {
    /// Tests: whether this thread's last [`beside`] ran its side work on a thread of its own.
    static SIDE_ON_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Tests: whether this thread's last [`beside`] ran its side work on a thread of its own.
#[cfg(test)]
pub(crate) fn side_ran_on_thread() -> bool {
    SIDE_ON_THREAD.get()
}

/// Tests: runs `f` with the obfuscation decoders beside the engine from `from` bytes on.
#[cfg(test)]
pub(crate) fn with_decode_beside_from<T>(from: usize, f: impl FnOnce() -> T) -> T {
    let before = DECODE_BESIDE_TEST.replace(Some(from));
    let out = f();
    DECODE_BESIDE_TEST.set(before);
    out
}

/// Runs `side` and `main`, `side` on a scoped thread of its own when `split` (and a thread
/// can be started), and returns what `side` gave. The per-text counts `side` makes on its
/// thread ([`pressure`], [`steps`]) are added to this thread's, so a caller sees the same
/// counts either way.
fn beside<T: Send>(split: bool, side: impl FnOnce() -> T + Send, main: impl FnOnce()) -> T {
    #[cfg(test)]
    SIDE_ON_THREAD.set(false);
    if !split {
        let out = side();
        main();
        return out;
    }
    // Taken by the thread, or back here when no thread could be started.
    let slot = std::sync::Mutex::new(Some(side));
    let slot = &slot;
    let take = move || slot.lock().ok().and_then(|mut s| s.take());
    std::thread::scope(|s| {
        #[cfg(test)]
        let ungated = engine::is_ungated();
        let thread = crate::sched::spawn_scoped_beside(s, "lint-decode", move || {
            #[cfg(test)]
            engine::set_ungated(ungated);
            let out = take().map(|side| side());
            (out, pressure::take(), steps::current())
        });
        main();
        if let Ok(thread) = thread {
            let (out, p, n) = thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            pressure::add(|q| q.merge(p));
            steps::add(n);
            if let Some(out) = out {
                #[cfg(test)]
                SIDE_ON_THREAD.set(true);
                return out;
            }
        }
        let side = take().expect("the side work runs once, here when not on its thread");
        side()
    })
}

/// [`lint_file`]; with `json_checked`, a JSON file is not validated (a run of whole lines of
/// a document validated as a stream, [`pieces`]).
fn lint_text(
    cfg: &LintConfig,
    file: &LintFile<'_>,
    used: &mut [bool],
    json_checked: bool,
) -> Result<Vec<Diagnostic>> {
    lint_text_as(cfg, file, used, json_checked, Judged::All)
}

/// What a text is judged for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Judged {
    /// Every rule.
    All,
    /// The secret and personal-data patterns and the checks of the raw text (hidden
    /// characters, structure), without the injection rules, the decoders and `.aiignore`:
    /// for text judged for its secrets only (the configuration files, a binary file's
    /// readable runs, a commit's history), where those findings would be thrown away and
    /// the injection wording a `.aiignore` names would compile most of the rules' regexes.
    Secrets,
}

/// Whether the file at `path` (repository-relative) is documentation, whose attack strings
/// shown as examples warn ([`engine::Scan::examples_shown`]): not a handoff file, not an
/// agent instruction file.
fn shows_examples(path: &str) -> bool {
    let in_handoff = path.starts_with(".ai/handoff/") || path.contains("/.ai/handoff/");
    !in_handoff && !agents::is_agent_file(path)
}

fn lint_text_as(
    cfg: &LintConfig,
    file: &LintFile<'_>,
    used: &mut [bool],
    json_checked: bool,
    judged: Judged,
) -> Result<Vec<Diagnostic>> {
    let raw = crate::handoff::decode_text(&file.path, file.bytes)?;
    // A script in a language the lexer knows and can split is read as code, not Markdown.
    let code = file
        .script
        .then(|| code::judged_lang(&file.name, raw))
        .flatten()
        .and_then(|lang| Some((lang, code::lex(lang, raw)?)));
    let kind = if code.is_some() {
        FileKind::Text
    } else {
        file_kind(&file.name)
    };
    let json = match kind {
        FileKind::Json if json_checked => Some(json::strings(raw)),
        FileKind::Json if is_jsonc_name(&file.name) => Some(json::extract_jsonc(&file.path, raw)?),
        FileKind::Json => Some(json::extract(&file.path, raw)?),
        _ => None,
    };
    // A TOML or YAML file is judged with its strings' escapes undone (review s27 #4).
    // A script's literals are judged as their values (review atk32 #3).
    let plain = if let Some((lang, parts)) = &code {
        escapes::script(*lang, raw, parts.marks())
    } else if escapes::is_json_text(&file.name) {
        escapes::json_text(raw)
    } else if escapes::is_toml(&file.name) {
        escapes::toml(raw)
    } else if code.is_none() && escapes::is_recipe_file(&file.name) {
        escapes::recipe_lines(raw)
    } else if escapes::is_yaml(&file.name) {
        escapes::yaml(raw)
    } else {
        text::View::identity(raw)
    };
    let base = json.as_ref().map_or(&plain, |j| &j.view);
    let norm = unicode::normalize(&base.text, kind == FileKind::Markdown);
    // Markdown structure is read from the normalised text, as a model reads it (hidden
    // characters cannot break a link or a comment apart), then placed in the raw file.
    let md = (kind == FileKind::Markdown).then(|| {
        let idx = markdown::MdIndex::parse(&norm.view.text);
        if norm.view.is_identity() {
            idx
        } else {
            idx.map(norm.view.source_mapper())
        }
    });
    let scan = Scan {
        base,
        norm: &norm.view,
        events: &norm.events,
        md: md.as_ref(),
        kind,
        depth: 0,
        examples_shown: shows_examples(&file.path),
        memo: engine::Memo::default(),
    };
    // The obfuscation decoders need no rule of the engine until a stretch decodes, and the
    // engine may still be building on the warm-up thread; `.aiignore` needs no other finding.
    // They run first, or beside the engine on a text long enough to pay for a thread; their
    // findings are placed where they always were.
    let mut findings: Vec<Finding> = Vec::new();
    let mut keyless: Option<Keyless> = None;
    let (mut obfuscated, mut ignored) = if judged == Judged::Secrets {
        engine::run_secrets(&scan, &mut findings);
        (Vec::new(), Vec::new())
    } else {
        beside(
            scan.text().len() >= decode_beside_from() && crate::sched::parallel(),
            || {
                let mut obfuscated = Vec::new();
                rules::encoded::obfuscated(&scan, &mut obfuscated);
                let mut ignored = Vec::new();
                if let Some(ign) = &cfg.aiignore {
                    ign.apply(&scan, &mut ignored);
                }
                (obfuscated, ignored)
            },
            || {
                engine::run(&scan, &mut findings);
                // Found here, after the engine (whose limits read this thread's counts, as
                // before); placed below, where they always were.
                keyless = Some(Keyless::find(&scan));
            },
        )
    };
    if let Some((lang, parts)) = &code {
        judge_as_code(&scan, *lang, parts, &mut findings);
    }
    let engine_found = findings.len();
    if judged == Judged::All {
        rules::injection::combine(&scan, &mut findings);
    }
    let combined = findings.len();
    keyless
        .unwrap_or_else(|| Keyless::find(&scan))
        .place(&mut findings);
    // Encoded runs are decoded in both modes: a base64 credential is a credential (review 22).
    // Outside the secrets that block only ([`secret_spans_of`]: a warning's span is read).
    let secrets: Vec<(usize, usize)> = findings
        .iter()
        .filter(|f| (f.secret || f.rule.family == Family::Sec) && f.severity == Severity::Error)
        .map(|f| (f.start, f.end))
        .collect();
    rules::encoded::scan(&scan, &secrets, &mut findings);
    // A credential reversed, in ROT13 or spaced out is a credential, in both modes too.
    rules::encoded::obfuscated_tokens(&scan, &secrets, &mut findings);
    // Markdown formatting inside or around words (`Ig**nore**`, `ghp\_…`) read as a
    // renderer shows it: the injection rules in Markdown, the secret rules in every text.
    let mut hidden = rules::formatted::hidden_by_formatting(
        &scan,
        judged == Judged::All && kind == FileKind::Markdown,
        &findings,
    );
    findings.append(&mut hidden);
    findings.append(&mut obfuscated);
    if let Some((lang, parts)) = &code {
        judge_as_code(&scan, *lang, parts, &mut findings);
    }
    findings.append(&mut ignored);
    // Everything in raw offsets from here on; keep the normalised text for fingerprints.
    let mut keys: Vec<String> = Vec::with_capacity(findings.len());
    for f in &mut findings {
        if f.raw_span {
            keys.push(key_text(raw, f));
        } else {
            keys.push(key_text(scan.text(), f));
            let (s, e) = scan.to_raw(f.start, f.end);
            f.start = s;
            f.end = e;
            f.raw_span = true;
        }
    }
    let lines = LineIndex::new(raw);
    let mut extra: Vec<Finding> = Vec::new();
    let others = text::Spans::new(
        findings
            .iter()
            .filter(|f| {
                matches!(
                    f.rule.family,
                    Family::Pi | Family::Sec | Family::Exf | Family::Enc | Family::Ign
                )
            })
            .map(|f| (f.start, f.end))
            .collect(),
    );
    rules::hidden::unicode_events(&scan, &others, &mut extra);
    rules::hidden::controls(raw, &mut extra);
    rules::hidden::lfs_pointer(raw, &mut extra);
    rules::hidden::ciphertext(raw, &mut extra);
    rules::shapes::byte_keypairs(raw, &mut extra);
    // A commit of a range's history may hold a conflict its last one resolved.
    if judged == Judged::All {
        rules::structure::conflict(raw, &mut extra);
    }
    if let Some(md) = &md {
        rules::exfil::check_markdown(raw, md, &mut extra);
        rules::structure::check(&file.name, raw, md, &mut extra);
        rules::hidden::padding(raw, &lines, &mut extra);
    }
    if let Some(j) = &json {
        rules::hidden::json_fields(&j.view, &j.fields, &mut extra);
        rules::catalogue::json_fields(&j.view, &j.fields, &mut extra);
        rules::secrets::json_fields(&j.view, &j.fields, &mut extra);
        if judged == Judged::All {
            rules::refusal::json_config_off(raw, &mut extra);
            if rules::actions::is_local_agent_settings(&file.path) {
                rules::actions::local_settings_bypass(
                    &j.view.text,
                    |s, e| j.view.to_source(s, e),
                    &mut extra,
                );
            }
        }
    }
    for f in &extra {
        keys.push(raw[f.start..f.end.min(raw.len())].to_string());
    }
    findings.extend(extra);
    if let Some(md) = &md {
        let spans: Vec<(usize, usize, Family, Severity)> = findings
            .iter()
            .map(|f| (f.start, f.end, f.rule.family, f.severity))
            .collect();
        let mut hid = Vec::new();
        rules::hidden::comments(raw, md, &spans, &mut hid);
        for f in hid {
            keys.push(raw[f.start..f.end].to_string());
            findings.push(f);
        }
    }
    // Findings before any is dropped, the engine's jailbreak signals included: at least as
    // many as any one pattern or detector gave (see `pressure`).
    pressure::add(|p| p.findings += engine_found + findings.len() - combined);
    let keep = dedupe(&findings);
    // The built-in detectors' spans are what the output boundary redacts in any other
    // rendering of this text (`context`, `status`, …), so a secret reads the same in a
    // snippet as everywhere else (issue #11); an `.aiignore` secret pattern only adds text
    // no built-in detector covers. A private key's body goes with its header.
    let builtin = text::Spans::new(
        findings
            .iter()
            .filter(|f| f.secret && f.rule.family != Family::Ign)
            .map(|f| (f.start, extend_private_key(raw, f.start, f.end)))
            .collect(),
    );
    let secret_spans = redactions(
        raw,
        kind,
        findings
            .iter()
            .filter(|f| f.secret)
            .map(|f| {
                let covers = (f.start, extend_private_key(raw, f.start, f.end));
                (f.rule.family == Family::Ign, covers)
            })
            .filter(|&(ign, (s, e))| !ign || !builtin.overlaps(s, e))
            .map(|(_, covers)| covers),
    );
    // Inline markers.
    let (markers, marker_problems) = match &md {
        Some(md) if cfg.inline_allow => {
            let comments: Vec<(usize, usize, usize, usize)> = md
                .comments
                .iter()
                .map(|c| (c.start, c.end, c.inner.0, c.inner.1))
                .collect();
            allow::inline_markers(raw, &comments)
        }
        _ => (Vec::new(), Vec::new()),
    };
    let mut markers = markers;
    markers.sort_by_key(|m| m.line);
    let mut out = Vec::new();
    // The first MAX_LISTED findings of the file (by position) are listed one by one; the
    // rest are judged as well (suppression included) and summed up in one finding at the
    // severity of the worst of them. Configuration findings (a pattern that gave up: CFG006)
    // are always listed.
    let mut order: Vec<usize> = (0..findings.len()).filter(|&i| keep[i]).collect();
    order.sort_unstable_by_key(|&i| (findings[i].start, findings[i].end, findings[i].rule.id));
    let mut listed = vec![false; findings.len()];
    let mut room = MAX_LISTED;
    for &i in &order {
        if findings[i].rule.family == Family::Cfg {
            listed[i] = true;
        } else if room > 0 {
            listed[i] = true;
            room -= 1;
        }
    }
    // Fingerprints number the findings of one rule with the same text in the order they
    // were found. A fingerprint is hashed when it is shown (a listed or suppressed finding)
    // or an allowlist entry of the rule may match it; the rest only keep their key and
    // number: hashing 40,000 unlisted findings was a third of the hook's time on a file of
    // section markers (issue #13 item 4).
    let mut fps: Vec<String> = vec![String::new(); findings.len()];
    // The normalised key and occurrence of each finding whose fingerprint waits.
    let mut pending: Vec<Option<usize>> = vec![None; findings.len()];
    // A secret's fingerprint must not hash the secret: an unsalted hash of a short
    // password is recovered offline from the SARIF or the allowlist that shows it (review
    // s23 item 11). Its key is the line it is on with every secret in its redacted form.
    let hides_secret: Vec<bool> = findings
        .iter()
        .map(|f| f.secret || f.rule.family == Family::Sec)
        .collect();
    // Each distinct key is stored, normalised and hashed once: the secrets of one line share
    // their key, and a line of 50,000 key ids made every finding rebuild, compare and hash
    // the whole line (issue #13 item 4).
    let mut interned = Interner::default();
    let mut key_of: Vec<usize> = vec![usize::MAX; findings.len()];
    // A finding that is no secret is fingerprinted (`v3:`) by its text and by the lines it
    // spans, each secret on them in its redacted form: `v1:` hashed the text alone, so an
    // allowlist entry went on approving it whatever the rest of its line came to say (`the
    // attacker wrote: "…"` made `…` followed by an order; left by review atk42). The lines'
    // key is stored once per span of lines, however many findings lie on them.
    let mut lines_key_of: Vec<usize> = vec![usize::MAX; findings.len()];
    let mut span_keys: rustc_hash::FxHashMap<(usize, usize), usize> =
        rustc_hash::FxHashMap::default();
    let mut line_keys: rustc_hash::FxHashMap<(usize, bool), usize> =
        rustc_hash::FxHashMap::default();
    for (i, key) in keys.iter_mut().enumerate() {
        if !keep[i] {
            continue;
        }
        let f = &findings[i];
        key_of[i] = if !hides_secret[i] {
            let start = text::floor_char(raw, f.start.min(raw.len()));
            let end = text::floor_char(raw, f.end.clamp(start, raw.len()));
            let first = lines.line_of(start);
            let last = lines.line_of(end.saturating_sub(1).max(start));
            lines_key_of[i] = *span_keys.entry((first, last)).or_insert_with(|| {
                let mut k = lines_without_secrets(raw, &lines, first, last, &secret_spans);
                normalise_key(&mut k);
                interned.id(k)
            });
            normalise_key(key);
            interned.id(std::mem::take(key))
        } else if covered_by(&secret_spans, f.start, f.end) {
            // The finding's own span adds nothing to its line's secrets: the key is the
            // line's, whichever finding on it asks.
            let start = text::floor_char(raw, f.start.min(raw.len()));
            let line = lines.line_of(start);
            // A finding at the very end of its line also takes in a secret starting there.
            let at_end = start >= lines.line_range(raw, line).1;
            *line_keys.entry((line, at_end)).or_insert_with(|| {
                let mut k = line_without_secrets(raw, &lines, f, &secret_spans);
                normalise_key(&mut k);
                interned.id(k)
            })
        } else {
            let mut k = line_without_secrets(raw, &lines, f, &secret_spans);
            normalise_key(&mut k);
            interned.id(k)
        };
    }
    let mut prints = Fingerprints::new(&file.path, &interned);
    let allowed = AllowIndex::new(cfg);
    let mut occurrences: rustc_hash::FxHashMap<(&'static str, usize, usize), usize> =
        rustc_hash::FxHashMap::default();
    let print_of = |prints: &mut Fingerprints<'_>, i: usize, occ: usize| {
        if hides_secret[i] {
            prints.get(findings[i].rule.id, key_of[i], occ, true)
        } else {
            prints.get_v3(findings[i].rule.id, lines_key_of[i], key_of[i], occ)
        }
    };
    for (i, f) in findings.iter().enumerate() {
        if !keep[i] {
            continue;
        }
        let occ = occurrences
            .entry((f.rule.id, key_of[i], lines_key_of[i]))
            .or_insert(0);
        if listed[i] || allowed.rules.contains(f.rule.id) {
            fps[i] = print_of(&mut prints, i, *occ);
        } else {
            pending[i] = Some(*occ);
        }
        *occ += 1;
    }
    let place_here = |f: &Finding, fp: String| {
        place(
            &file.path,
            raw,
            &lines,
            f,
            &secret_spans,
            md.as_ref(),
            kind,
            fp,
        )
    };
    let mut unlisted: Vec<usize> = Vec::new();
    for &i in &order {
        let f = &findings[i];
        let fp = std::mem::take(&mut fps[i]);
        let suppressed_by = suppression(
            cfg,
            &allowed,
            f,
            &fp,
            &file.path,
            &raw[f.start..f.end],
            &markers,
            lines.line_of(f.start),
            used,
        );
        if !listed[i] && suppressed_by.is_none() {
            unlisted.push(i);
            continue;
        }
        let fp = match pending[i].take() {
            Some(occ) => print_of(&mut prints, i, occ),
            None => fp,
        };
        let mut d = place_here(f, fp);
        d.suppressed_by = suppressed_by;
        out.push(d);
    }
    if !unlisted.is_empty() {
        let f = unlisted_summary(&findings, &unlisted);
        out.push(place_here(
            &f,
            fingerprint(f.rule.id, &file.path, "unlisted", 0, false),
        ));
    }
    for (s, e, msg) in marker_problems {
        let f = Finding::raw(&registry::CFG004, s, e, msg);
        out.push(place_here(
            &f,
            fingerprint(f.rule.id, &file.path, &raw[s..e], 0, false),
        ));
    }
    Ok(out)
}

/// A script's findings as code (review s27b #6): an injection, exfiltration or decoded
/// payload finding that touches no literal ([`code`]: a string, a here-document, what
/// `echo` prints) is dropped, since the agent reads what the script prints or sends, not
/// its comments or the commands it runs; a chat-template marker in a string of a Python or
/// JavaScript program is a warning (an LLM application builds prompts; a template is not a
/// forged turn).
/// Credentials, hidden characters and `.aiignore` hits stay judged on the whole text.
fn judge_as_code(
    scan: &Scan<'_>,
    lang: code::Lang,
    parts: &code::Parts,
    findings: &mut Vec<Finding>,
) {
    findings.retain_mut(|f| {
        if f.secret || !matches!(f.rule.family, Family::Pi | Family::Exf | Family::Enc) {
            return true;
        }
        let (s, e) = if f.raw_span {
            (f.start, f.end)
        } else {
            scan.to_raw(f.start, f.end)
        };
        let holds = parts.holds(s, e);
        if holds.comment_only || holds.code_only {
            return false;
        }
        if !lang.prints_its_literals() && holds.literal && f.rule.id == registry::PI005.id {
            f.severity = f.severity.max(Severity::Warning);
        }
        true
    });
}

/// Findings of one file listed one by one (configuration findings aside); the rest are
/// summed up in one finding ([`unlisted_summary`]). Each listed finding is placed, rendered
/// and later printed through the output boundary, so this keeps the report of a file linear
/// with a small constant on any input.
pub(crate) const MAX_LISTED: usize = 100;

/// The finding that stands for the findings of a file past [`MAX_LISTED`] (`rest`, by
/// position): CFG006 at the first of them, as severe as the worst of them, naming how many
/// of each rule there are.
fn unlisted_summary(findings: &[Finding], rest: &[usize]) -> Finding {
    let mut by_rule: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    let mut counts = [0usize; 3];
    for &i in rest {
        *by_rule.entry(findings[i].rule.id).or_insert(0) += 1;
        counts[findings[i].severity as usize] += 1;
    }
    let worst = rest
        .iter()
        .map(|&i| findings[i].severity)
        .min()
        .unwrap_or(Severity::Info);
    let rules: Vec<String> = by_rule.iter().map(|(r, n)| format!("{r} ×{n}")).collect();
    let first = &findings[rest[0]];
    let mut f = Finding::raw(
        &registry::CFG006,
        first.start,
        first.end,
        format!(
            "{} more findings in this file are not listed one by one ({} errors, {} warnings, {} notes: {}); fix the ones listed and lint again",
            rest.len(),
            counts[Severity::Error as usize],
            counts[Severity::Warning as usize],
            counts[Severity::Info as usize],
            rules.join(", ")
        ),
    );
    f.severity = worst;
    f
}

/// The text a finding's fingerprint is made from: what it matched, or for CFG006 (whose span
/// runs to the end of the text) its first 64 bytes, so hashing it stays cheap.
fn key_text(text: &str, f: &Finding) -> String {
    let end = f.end.min(text.len());
    let end = if f.rule.id == registry::CFG006.id {
        text::floor_char(text, end.min(f.start + 64))
    } else {
        end
    };
    text[f.start.min(end)..end].to_string()
}

/// Marks duplicates: the same rule on an overlapping span, secrets found by several rules
/// (the most specific wins), `.aiignore` matches already reported by a built-in rule.
/// Only overlapping pairs are compared (found by a sweep over the spans sorted by start), in
/// the order of a comparison of every pair, so the cost follows the overlaps, not the square
/// of the number of findings.
fn dedupe(findings: &[Finding]) -> Vec<bool> {
    let n = findings.len();
    let mut keep = vec![true; n];
    let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by_key(|&i| (findings[i].start, findings[i].end));
    for (k, &i) in order.iter().enumerate() {
        let a = &findings[i];
        for &j in &order[k + 1..] {
            let b = &findings[j];
            let same = a.start == b.start && a.end == b.end;
            if !(b.start < a.end || same) {
                break;
            }
            steps::add(1);
            if a.start < b.end && b.start < a.end || same {
                neighbours[i].push(j);
                neighbours[j].push(i);
            }
        }
    }
    for i in 0..n {
        neighbours[i].sort_unstable();
        for &j in &neighbours[i] {
            if !keep[j] || !keep[i] {
                continue;
            }
            let (a, b) = (&findings[i], &findings[j]);
            let drop_i = if a.rule.id == b.rule.id {
                (a.severity, a.start, std::cmp::Reverse(a.end))
                    > (b.severity, b.start, std::cmp::Reverse(b.end))
                    || ((a.severity, a.start, a.end) == (b.severity, b.start, b.end) && i > j)
            } else if a.rule.family == Family::Ign {
                // A built-in detector that judged the same text (a placeholder, a quoted
                // example) decides its severity; `.aiignore` does not raise it again.
                let same_concern = match a.kind {
                    Some("aiignore-secret") => matches!(b.rule.family, Family::Sec | Family::Pii),
                    Some("aiignore-injection") => b.rule.family == Family::Pi,
                    Some("email") => b.rule.family == Family::Pii,
                    _ => false,
                };
                b.rule.family != Family::Ign && (b.severity <= a.severity || same_concern)
            } else if a.rule.family == Family::Sec && b.rule.family == Family::Sec {
                let (pa, pb) = (sec_priority(a.rule.id), sec_priority(b.rule.id));
                pa < pb || pa == pb && i > j
            } else {
                false
            };
            if drop_i {
                keep[i] = false;
            }
        }
    }
    keep
}

/// The secret spans of a text, sorted and merged where they overlap, each with its
/// redacted form: what every rendering of the text shows instead.
/// In a JSON file the redacted form counts the characters of the decoded string, not of
/// its escapes, so it matches what the boundary shows for the decoded value.
fn redactions(
    raw: &str,
    kind: FileKind,
    spans: impl Iterator<Item = (usize, usize)>,
) -> Vec<(usize, usize, String)> {
    merge_spans(spans.collect())
        .into_iter()
        .map(|(s, e)| {
            let s = text::floor_char(raw, s.min(raw.len()));
            let e = text::ceil_char(raw, e.min(raw.len()));
            let shown = if kind == FileKind::Json {
                redacted(&json::decode_literal(&raw[s..e]))
            } else {
                redacted(&raw[s..e])
            };
            (s, e, shown)
        })
        .collect()
}

/// A finding's text as its fingerprint reads it: runs of white space as one space, none at
/// either end, lower case. In place: one allocation at most, none for the usual short ASCII
/// key.
fn normalise_key(s: &mut String) {
    // White space as `split_whitespace` reads it, in ASCII: tab to carriage return, space.
    let ws = |b: u8| matches!(b, b'\t'..=b'\r' | b' ');
    let b = s.as_bytes();
    let plain = s.is_ascii()
        && !b.first().copied().is_some_and(ws)
        && !b.last().copied().is_some_and(ws)
        && !b.windows(2).any(|w| ws(w[0]) && (ws(w[1]) || w[0] != b' '));
    if plain {
        s.make_ascii_lowercase();
        return;
    }
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    *s = out.to_lowercase();
}

/// Whether one of the sorted, disjoint `secrets` covers `start..end` whole.
fn covered_by(secrets: &[(usize, usize, String)], start: usize, end: usize) -> bool {
    let i = secrets.partition_point(|(s, _, _)| *s <= start);
    i > 0 && secrets[i - 1].1 >= end
}

/// The line a secret finding starts on, every secret on it (its own included) replaced by
/// its redacted form: what its `v2:` fingerprint hashes instead of the secret. `secrets` is
/// sorted and disjoint ([`redactions`]): the ones on the line are found by bisection.
fn line_without_secrets(
    raw: &str,
    lines: &LineIndex,
    f: &Finding,
    secrets: &[(usize, usize, String)],
) -> String {
    let start = text::floor_char(raw, f.start.min(raw.len()));
    let end = text::ceil_char(raw, f.end.clamp(start, raw.len()));
    let (ls, le) = lines.line_range(raw, lines.line_of(start));
    let upto = le.max(start + 1);
    let first = secrets.partition_point(|(_, e, _)| *e <= ls);
    let last = first + secrets[first..].partition_point(|(s, _, _)| *s < upto);
    let spans = merge_spans(
        secrets[first..last]
            .iter()
            .map(|(s, e, _)| (*s, *e))
            .chain(std::iter::once((start, end)))
            .filter(|&(s, e)| s < upto && e > ls)
            .collect(),
    );
    let mut out = String::with_capacity(le.saturating_sub(ls) + 16);
    let mut at = ls;
    for (s, e) in spans {
        out.push_str(&raw[at..s.clamp(at, le)]);
        // The whole secret's form, also for a private key that runs on past the line: its
        // characters counted from the line index, as a span over many lines is met once
        // per line.
        out.push_str(&redacted_counted(
            &raw[s..e],
            lines.chars_between(raw, s, e),
        ));
        at = e.clamp(at, le);
    }
    if at < le {
        out.push_str(&raw[at..le]);
    }
    out
}

/// The distinct fingerprint keys of a file, each stored once and named by its number.
#[derive(Default)]
struct Interner {
    ids: rustc_hash::FxHashMap<std::rc::Rc<str>, usize>,
    texts: Vec<std::rc::Rc<str>>,
}

impl Interner {
    fn id(&mut self, key: String) -> usize {
        let key: std::rc::Rc<str> = key.into();
        let next = self.texts.len();
        let id = *self.ids.entry(key.clone()).or_insert(next);
        if id == next {
            self.texts.push(key);
        }
        id
    }
}

/// Fingerprints of one file's findings. The hash of everything before the occurrence
/// number is kept per rule and key, so a thousand findings of one long line hash the line
/// once, not a thousand times.
struct Fingerprints<'a> {
    path: &'a str,
    keys: &'a Interner,
    prefixes: rustc_hash::FxHashMap<(&'static str, usize, bool), Sha256>,
    v3_prefixes: rustc_hash::FxHashMap<(&'static str, usize), Sha256>,
}

impl<'a> Fingerprints<'a> {
    fn new(path: &'a str, keys: &'a Interner) -> Self {
        Self {
            path,
            keys,
            prefixes: rustc_hash::FxHashMap::default(),
            v3_prefixes: rustc_hash::FxHashMap::default(),
        }
    }

    fn get(&mut self, rule: &'static str, key: usize, occurrence: usize, v2: bool) -> String {
        let h = self
            .prefixes
            .entry((rule, key, v2))
            .or_insert_with(|| fingerprint_prefix(rule, self.path, &self.keys.texts[key], v2))
            .clone();
        fingerprint_finish(h, occurrence, if v2 { "v2" } else { "v1" })
    }

    /// A `v3:` fingerprint: the lines' key (`lines`), then the finding's own text (`key`).
    fn get_v3(
        &mut self,
        rule: &'static str,
        lines: usize,
        key: usize,
        occurrence: usize,
    ) -> String {
        let mut h = self
            .v3_prefixes
            .entry((rule, lines))
            .or_insert_with(|| {
                let mut h = Sha256::new();
                h.update(b"aahp-lint-v3\0");
                for part in [rule, self.path, &self.keys.texts[lines]] {
                    h.update(part.as_bytes());
                    h.update(b"\0");
                }
                h
            })
            .clone();
        h.update(self.keys.texts[key].as_bytes());
        h.update(b"\0");
        fingerprint_finish(h, occurrence, "v3")
    }
}

/// A finding's fingerprint: `v1:` hashes its matched text (a CFG007 acknowledgement, the summary of unlisted findings, a marker problem), `v3:` (any other finding's) its text and its lines ([`Fingerprints::get_v3`]); `v2:` (a secret's) the line with
/// the secret redacted ([`line_without_secrets`]), so the secret cannot be recovered from it.
fn fingerprint(rule: &str, path: &str, key: &str, occurrence: usize, v2: bool) -> String {
    fingerprint_finish(
        fingerprint_prefix(rule, path, key, v2),
        occurrence,
        if v2 { "v2" } else { "v1" },
    )
}

/// The hash of a fingerprint's fields before its occurrence number.
fn fingerprint_prefix(rule: &str, path: &str, key: &str, v2: bool) -> Sha256 {
    let mut h = Sha256::new();
    h.update(if v2 {
        &b"aahp-lint-v2\0"[..]
    } else {
        &b"aahp-lint-v1\0"[..]
    });
    h.update(rule.as_bytes());
    h.update(b"\0");
    h.update(path.as_bytes());
    h.update(b"\0");
    h.update(key.as_bytes());
    h.update(b"\0");
    h
}

fn fingerprint_finish(mut h: Sha256, occurrence: usize, version: &str) -> String {
    h.update(occurrence.to_string().as_bytes());
    let hex = crate::handoff::hex(&h.finalize());
    format!("{version}:{}", &hex[..32])
}

/// The lines `first..=last` of `raw`, every secret on them replaced by its redacted form:
/// what a `v3:` fingerprint hashes besides the finding's text.
fn lines_without_secrets(
    raw: &str,
    lines: &LineIndex,
    first: usize,
    last: usize,
    secrets: &[(usize, usize, String)],
) -> String {
    let (ls, _) = lines.line_range(raw, first);
    let (_, le) = lines.line_range(raw, last);
    let from = secrets.partition_point(|(_, e, _)| *e <= ls);
    let to = from + secrets[from..].partition_point(|(s, _, _)| *s < le);
    let mut out = String::with_capacity(le.saturating_sub(ls) + 16);
    let mut at = ls;
    for (s, e, _) in &secrets[from..to] {
        let (s, e) = ((*s).clamp(at, le), (*e).clamp(at, le));
        out.push_str(&raw[at..s]);
        if e > s {
            out.push_str(&redacted(&raw[s..e]));
        }
        at = e;
    }
    out.push_str(&raw[at..le]);
    out
}

#[allow(
    clippy::too_many_arguments,
    reason = "one call site; the pieces are distinct"
)]
fn suppression(
    cfg: &LintConfig,
    index: &AllowIndex<'_>,
    f: &Finding,
    fingerprint: &str,
    path: &str,
    matched: &str,
    markers: &[allow::Marker],
    line: usize,
    used: &mut [bool],
) -> Option<String> {
    if f.kind == Some("email")
        && let Some(e) = index.pii(cfg, matched.trim())
    {
        return Some(format!(
            "{}: {} ({}, until {})",
            cfg.pii_path, e.reason, e.owner, e.expires
        ));
    }
    let on_line = &markers[markers.partition_point(|m| m.line < line)..];
    // A finding that lies on a secret is a secret's, whatever its family: an encoded,
    // reversed or formatted credential is reported as ENC001 (review atk42 #1), and a
    // marker may no more wave it through than it may a SEC finding.
    if f.rule.family.inline_allowable()
        && !f.secret
        && let Some(m) = on_line
            .iter()
            .take_while(|m| m.line == line)
            .find(|m| m.rules.iter().any(|r| r == f.rule.id))
    {
        return Some(format!("inline allow: {}", m.reason));
    }
    for &i in index
        .by_fingerprint
        .get(fingerprint)
        .map_or(&[][..], Vec::as_slice)
    {
        let e = &cfg.allow[i];
        if e.applies(f.rule.id, path) {
            used[i] = true;
            return Some(e.described(&cfg.allow_path));
        }
    }
    None
}

/// A configuration's unexpired allowlist entries, indexed for one file's findings: a
/// lookup per finding instead of a scan of every entry (20,000 entries and 50,000 findings
/// were a billion comparisons).
struct AllowIndex<'c> {
    /// Entries by fingerprint, in file order (the first that applies suppresses).
    by_fingerprint: rustc_hash::FxHashMap<&'c str, Vec<usize>>,
    /// Rules with an entry.
    rules: rustc_hash::FxHashSet<&'c str>,
    /// PII entries by value in ASCII lower case: the first of each.
    pii: rustc_hash::FxHashMap<String, usize>,
}

impl<'c> AllowIndex<'c> {
    fn new(cfg: &'c LintConfig) -> Self {
        let mut by_fingerprint: rustc_hash::FxHashMap<&str, Vec<usize>> =
            rustc_hash::FxHashMap::default();
        let mut rules = rustc_hash::FxHashSet::default();
        for (i, e) in cfg.allow.iter().enumerate().filter(|(_, e)| !e.expired) {
            by_fingerprint
                .entry(e.fingerprint.as_str())
                .or_default()
                .push(i);
            rules.insert(e.rule.as_str());
        }
        let mut pii = rustc_hash::FxHashMap::default();
        for (i, e) in cfg.pii.iter().enumerate().filter(|(_, e)| !e.expired) {
            pii.entry(e.value.to_ascii_lowercase()).or_insert(i);
        }
        AllowIndex {
            by_fingerprint,
            rules,
            pii,
        }
    }

    /// The PII entry that allows `value` (ASCII case ignored).
    fn pii<'a>(&self, cfg: &'a LintConfig, value: &str) -> Option<&'a allow::PiiEntry> {
        self.pii
            .get(&value.to_ascii_lowercase())
            .map(|&i| &cfg.pii[i])
    }
}

#[allow(
    clippy::too_many_arguments,
    reason = "one call site; the pieces are distinct"
)]
fn place(
    path: &str,
    raw: &str,
    lines: &LineIndex,
    f: &Finding,
    secrets: &[(usize, usize, String)],
    md: Option<&markdown::MdIndex>,
    kind: FileKind,
    fingerprint: String,
) -> Diagnostic {
    let start = text::floor_char(raw, f.start.min(raw.len()));
    let end = text::ceil_char(raw, f.end.clamp(start, raw.len()));
    let (line, column) = lines.position(raw, start);
    let (end_line, end_column) = lines.position(raw, end);
    let (ls, le) = lines.line_range(raw, line - 1);
    let (snippet, caret) = render_line(
        raw,
        ls,
        le,
        secrets,
        start,
        if end_line == line { end } else { le },
    );
    let context = match kind {
        FileKind::Json => Context::JsonString,
        _ => md.map_or(Context::Text, |m| m.context_at(start)),
    };
    Diagnostic {
        rule: f.rule.id,
        name: f.rule.name,
        severity: f.severity,
        path: path.to_string(),
        line,
        column,
        end_line,
        end_column,
        message: message_without_secrets(raw, f, secrets),
        fingerprint,
        context,
        kind: f.kind,
        snippet,
        caret,
        suppressed_by: None,
    }
}

/// A finding's message as shown: one that is no secret itself but lies on a secret (a
/// look-alike letter, a zero-width character or a word of a recovery phrase inside it) quotes
/// none of it. Its quotes (`"…"`, `` `…` ``) that hold a piece of the secret it overlaps, read
/// as the linter reads it (width and look-alikes folded, any letter case), are replaced by
/// their redacted form: HID006 said a fullwidth AWS key id "reads as" its lower-case
/// letters, which no detector recognises, and named each word of a recovery phrase written
/// with look-alike letters, so lint, SARIF and annotations printed both in clear.
fn message_without_secrets(raw: &str, f: &Finding, secrets: &[(usize, usize, String)]) -> String {
    /// How far around the finding the secret's text is read: a quote is at most a line's
    /// excerpt.
    const AROUND: usize = 512;
    /// Characters a quote and the secret must share to count as a piece of it.
    const PIECE: usize = 4;
    if f.secret {
        return f.message.clone();
    }
    let first = secrets.partition_point(|(_, e, _)| *e <= f.start);
    let over: Vec<(usize, usize)> = secrets[first..]
        .iter()
        .take_while(|(s, _, _)| *s < f.end || *s == f.start)
        .map(|&(s, e, _)| {
            (
                text::floor_char(raw, s.max(f.start.saturating_sub(AROUND))),
                text::ceil_char(raw, e.min(f.end.saturating_add(AROUND)).min(raw.len())),
            )
        })
        .collect();
    if over.is_empty() {
        return f.message.clone();
    }
    let fold = |t: &str| -> Vec<char> {
        let mut out = String::with_capacity(t.len());
        for c in t.chars() {
            unicode::fold_for_display(c, &mut out);
        }
        out.to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect()
    };
    let mut pieces: std::collections::HashSet<Vec<char>> = std::collections::HashSet::new();
    let mut short: Vec<Vec<char>> = Vec::new();
    for (s, e) in over {
        let folded = fold(&raw[s..e]);
        pieces.extend(folded.windows(PIECE).map(<[char]>::to_vec));
        if folded.len() < PIECE {
            short.push(folded);
        }
    }
    let holds_piece = |q: &str| {
        let folded = fold(q);
        if folded.len() < 3 {
            return false;
        }
        if folded.len() < PIECE {
            return pieces
                .iter()
                .any(|p| p.windows(folded.len()).any(|w| w == folded))
                || short
                    .iter()
                    .any(|s| s.windows(folded.len()).any(|w| w == folded));
        }
        folded.windows(PIECE).any(|w| pieces.contains(w))
    };
    let m = &f.message;
    let mut out = String::with_capacity(m.len());
    let mut rest = m.as_str();
    while let Some(open) = rest.find(['"', '`']) {
        let delim = rest[open..].chars().next().unwrap_or('"');
        let body = &rest[open + 1..];
        // A quote ends at the next unescaped delimiter.
        let mut close = None;
        let mut escaped = false;
        for (i, c) in body.char_indices() {
            if escaped {
                escaped = false;
            } else if c == '\\' && delim == '"' {
                escaped = true;
            } else if c == delim {
                close = Some(i);
                break;
            }
        }
        let Some(close) = close else {
            break;
        };
        let quote = &body[..close];
        out.push_str(&rest[..=open]);
        if holds_piece(quote) {
            out.push_str(&redacted(quote));
        } else {
            out.push_str(quote);
        }
        out.push(delim);
        rest = &body[close + delim.len_utf8()..];
    }
    out.push_str(rest);
    out
}

/// Characters of a long line rendered before a finding (the 60 shown before it, and a
/// margin) and after its start (the 160 shown): a line is never rendered whole for each of
/// its findings.
const RENDER_BEFORE: usize = 64;
const RENDER_AFTER: usize = 176;

/// The offset `n` characters before `at` (not before `floor`).
fn chars_back(raw: &str, at: usize, floor: usize, n: usize) -> usize {
    let b = raw.as_bytes();
    let (mut i, mut seen) = (at, 0);
    while i > floor && seen < n {
        i -= 1;
        seen += usize::from(b[i] & 0xC0 != 0x80);
    }
    text::floor_char(raw, i)
}

/// The offset `n` characters after `at` (not after `ceil`).
fn chars_forward(raw: &str, at: usize, ceil: usize, n: usize) -> usize {
    raw[at..ceil]
        .char_indices()
        .nth(n)
        .map_or(ceil, |(k, _)| at + k)
}

/// Renders a source line for display: secrets redacted, invisible characters shown by code
/// point, control characters escaped, long lines cut around the finding. Returns the text and
/// the (character offset, width) of `mark_start..mark_end` in it. `secrets` are sorted and do
/// not overlap (see [`redactions`]); a secret is shown redacted even when the line or the
/// window starts inside it.
fn render_line(
    raw: &str,
    ls: usize,
    le: usize,
    secrets: &[(usize, usize, String)],
    mark_start: usize,
    mark_end: usize,
) -> (String, (usize, usize)) {
    let ws = chars_back(raw, mark_start.clamp(ls, le), ls, RENDER_BEFORE);
    let we = chars_forward(raw, mark_start.clamp(ws, le), le, RENDER_AFTER);
    let (cut_before, cut_after) = (ws > ls, we < le);
    let mut out = String::new();
    let mut col = 0usize;
    let mut caret_start = None;
    let mut caret_end = None;
    let mut k = secrets.partition_point(|s| s.1 <= ws);
    let mut i = ws;
    steps::add((we - ws) as u64);
    while i < we {
        if i >= mark_start && caret_start.is_none() {
            caret_start = Some(col);
        }
        if i >= mark_end && caret_end.is_none() {
            caret_end = Some(col);
        }
        while k < secrets.len() && secrets[k].1 <= i {
            k += 1;
        }
        if let Some((ss, se, shown)) = secrets.get(k)
            && *ss <= i
        {
            out.push_str(shown);
            col += shown.chars().count();
            i = (*se).min(we).max(i + 1);
            i = text::ceil_char(raw, i);
            continue;
        }
        let c = raw[i..].chars().next().expect("char boundary");
        if unicode::is_invisible_for_display(c) {
            let s = format!("⟨U+{:04X}⟩", c as u32);
            col += s.chars().count();
            out.push_str(&s);
        } else if c.is_control() && c != '\t' {
            let s = c.escape_unicode().to_string();
            col += s.chars().count();
            out.push_str(&s);
        } else {
            out.push(c);
            col += 1;
        }
        i += c.len_utf8();
    }
    let start = caret_start.unwrap_or(col);
    let end = caret_end.unwrap_or(col).max(start + 1);
    let mut shown = crate::output::boundary::neutralise(&out).into_owned();
    let mut start_c = start + shown.chars().count() - out.chars().count();
    let mut width = end - start;
    // Cut long lines to a window around the finding.
    let total = shown.chars().count();
    if total > 160 || cut_before || cut_after {
        let from = start_c.saturating_sub(60);
        let to = (from + 160).min(total);
        let cut: String = shown.chars().skip(from).take(to - from).collect();
        let ellipsis_before = from > 0 || cut_before;
        shown = format!(
            "{}{cut}{}",
            if ellipsis_before { "…" } else { "" },
            if to < total || cut_after { "…" } else { "" }
        );
        start_c = start_c - from + usize::from(ellipsis_before);
        width = width.min(to.saturating_sub(start_c).max(1));
    }
    (shown, (start_c, width))
}

/// How close the lint of a text came to the limits the engine applies per text (findings
/// per pattern, decoded runs and obfuscated stretches per decoder): counted on this thread
/// for the top-level text, read by the lint of LOG-ARCHIVE.md in pieces ([`pieces`]), which
/// lints its pieces separately only when their sums stay below those limits, so no limit
/// the whole file would reach is missed.
pub(crate) mod pressure {
    use std::cell::Cell;

    /// Counts for one text.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub(crate) struct Pressure {
        /// Findings before deduplication, jailbreak signals included.
        pub(crate) findings: usize,
        /// Encoded runs decoded and judged.
        pub(crate) decoded: usize,
        /// Obfuscated stretches decoded.
        pub(crate) candidates: usize,
        /// Obfuscated stretches that decoded to a finding.
        pub(crate) hits: usize,
        /// Whether a stretch was skipped because the text's decoding budget was spent.
        pub(crate) over_budget: bool,
    }

    thread_local! {
        static PRESSURE: Cell<Pressure> = const {
            Cell::new(Pressure {
                findings: 0,
                decoded: 0,
                candidates: 0,
                hits: 0,
                over_budget: false,
            })
        };
    }

    impl Pressure {
        /// Adds the counts another thread made for the same text.
        pub(crate) fn merge(&mut self, other: Pressure) {
            let Pressure {
                findings,
                decoded,
                candidates,
                hits,
                over_budget,
            } = other;
            self.findings += findings;
            self.decoded += decoded;
            self.candidates += candidates;
            self.hits += hits;
            self.over_budget |= over_budget;
        }
    }

    /// Updates this thread's counts.
    #[inline]
    pub(crate) fn add(f: impl FnOnce(&mut Pressure)) {
        PRESSURE.with(|c| {
            let mut p = c.get();
            f(&mut p);
            c.set(p);
        });
    }

    /// This thread's counts since the last call, which starts them again.
    pub(crate) fn take() -> Pressure {
        PRESSURE.with(|c| c.replace(Pressure::default()))
    }
}

/// Counts steps of the loops whose cost could grow with their input (rendering, duplicate
/// removal, Markdown brackets, …), so that tests can check that linting grows linearly with
/// the input without timing anything. Thread-local: a test reads its own thread's count.
pub(crate) mod steps {
    use std::cell::Cell;

    thread_local! {
        static STEPS: Cell<u64> = const { Cell::new(0) };
    }

    /// Adds `n` steps.
    #[inline]
    pub(crate) fn add(n: u64) {
        STEPS.with(|s| s.set(s.get().wrapping_add(n)));
    }

    /// The steps counted on this thread so far (a thread that works for another hands its
    /// count over).
    pub(crate) fn current() -> u64 {
        STEPS.with(Cell::get)
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_prose_kinds;
