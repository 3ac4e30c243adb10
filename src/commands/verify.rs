//! `git aahp verify`: the gate. Judges the handoff directory in layers (SPEC §3.6) and never
//! writes. At `precommit` it reads the index only (the content being committed); at
//! `prepush` and `ci` it reads commits. The pre-commit path reads git in-process and
//! spawns no process.

use std::io::{self, Write};

use gix::ObjectId;
use serde::Serialize;

use super::range::{self, BASE_HINT, CiBase, JudgedRange, Unpushed};
use super::{Context, GateScope};
use crate::error::{Error, ExitStatus, Result};
use crate::git::{Change, ChangeKind, EntryKind, Repo, StagedView};
use crate::handoff::checksum_cache::ChecksumCache;
use crate::handoff::manifest::{FileState, Manifest};
use crate::handoff::trust::TrustLedger;
use crate::handoff::{
    Baseline, DEFAULT_DIR, HandoffDir, LOCK, MANIFEST, Snapshot, Source, checksum, is_indexed_name,
    location, log, read_limited,
};
use crate::lint::{self, Diagnostic, LintConfig, LintFile};
use crate::output::boundary::{Annotation, AnnotationLevel, Untrusted};
use crate::output::{Annotated, Report, Style, escape_untrusted};

/// Environment variable that skips local verification (ignored at `--level ci`).
pub const SKIP_ENV: &str = "AAHP_SKIP_VERIFY";

/// Check the handoff directory: schema, checksums, lint, drift, lock, tasks, archive.
///
/// Without `--level` the files on disk are judged and drift compares the working tree with
/// HEAD. `precommit` judges the staged content, `prepush` the pushed commits (refs read from
/// the pre-push hook's stdin), `ci` the range from the merge base with `--base` to HEAD.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct VerifyArgs {
    /// What to judge: the index (`precommit`), pushed commits (`prepush`) or HEAD against a
    /// base (`ci`).
    #[arg(long, value_enum)]
    pub level: Option<Level>,
    /// The base revision for `ci`: the changes from its merge base with HEAD are judged
    /// (default: `AAHP_BASE_SHA`, else in GitHub Actions the pull request's base or the
    /// push's `before`). A missing, all-zero, unresolvable or HEAD-equal base fails.
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// Output format: `github` writes one GitHub Actions annotation per finding (a failing
    /// layer tied to no file gets one without a file); `json` is the global `--json`.
    #[arg(long, value_enum, default_value_t = VerifyFormat::Human)]
    pub format: VerifyFormat,
    /// Also walk the chain of session tags back to the first session: every tag must name
    /// the previous one with its manifest checksum, and the handoff must not have changed
    /// between two sessions outside the protocol.
    #[arg(long)]
    pub chain: bool,
}

/// Output formats of `verify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum VerifyFormat {
    /// The layers, their findings and the verdict.
    #[default]
    Human,
    /// One JSON document (the same as the global `--json`).
    Json,
    /// GitHub Actions annotations, then the verdict.
    Github,
}

/// The verification level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// The staged content, before a commit.
    Precommit,
    /// The commits being pushed.
    Prepush,
    /// HEAD against the pull request's base, in CI.
    Ci,
}

/// A layer's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LayerStatus {
    /// Nothing wrong.
    Pass,
    /// Advisory findings only.
    Warn,
    /// Blocking findings.
    Fail,
    /// Not applicable here.
    Skip,
}

/// One problem a layer found.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// True when it blocks.
    pub blocking: bool,
    /// Repository-relative path it concerns, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// One layer of the gate.
#[derive(Debug, Clone, Serialize)]
pub struct Layer {
    /// The handoff directory judged (repository-relative); `null` for agent instruction
    /// files outside every handoff directory.
    pub dir: Option<String>,
    /// Layer name (`schema`, `checksums`, `lint`, `drift`, `lock`, `tasks`, `archive`,
    /// `trust`, `advisory`, `instructions`).
    pub layer: &'static str,
    /// Its outcome.
    pub status: LayerStatus,
    /// A one-line summary.
    pub summary: String,
    /// The findings.
    pub findings: Vec<Finding>,
}

/// The next step for a failed layer of handoff directory `dir` (`None`: the agent
/// instruction files outside every handoff directory).
fn layer_hint(layer: &str, dir: Option<&str>) -> Option<String> {
    let d = escape_untrusted(dir.unwrap_or(DEFAULT_DIR));
    let (status, manifest) = if d == DEFAULT_DIR {
        ("STATUS.md".to_string(), "git aahp manifest".to_string())
    } else {
        (
            format!("{d}/STATUS.md"),
            format!("git aahp --dir={} manifest", crate::output::shell_word(&d)),
        )
    };
    Some(match layer {
        "schema" => format!("regenerate {d}/MANIFEST.json with `{manifest}` and stage {d}/"),
        "checksums" => format!(
            "a handoff file changed after the manifest was written: review the change, run `{manifest}`, stage {d}/ and retry"
        ),
        "lint" => "remove or rewrite the flagged text (`git aahp lint` shows each finding, `git aahp lint --explain ID` why it matters)".into(),
        "instructions" => "remove the flagged text from the agent instruction files and retry".into(),
        "drift" => format!("update {status}, run `{manifest}`, stage {d}/ and retry"),
        "required" => format!(
            "bring the file back as the finding says, update it, run `{manifest}`, stage {d}/ and retry"
        ),
        "lock" => "HANDOFF.lock and git-aahp's temporary files never enter a commit: unstage them (`git rm --cached`); a session that holds the lock ends with `git aahp commit`, or `git aahp recover` if it crashed".into(),
        "tasks" => "fix the task list with `git aahp task` (ids, states, dependencies)".into(),
        "journal" => "put each entry named back as the base has it; entries leave LOG.md \
            only through `git aahp archive`, and a secret is taken out of one by replacing \
            only its text with `[redacted: REASON]`"
            .into(),
        "archive" => "run `git aahp archive --verify`: it names each problem and its repair (`git aahp archive` completes an interrupted rotation)".into(),
        BASE_LAYER => BASE_HINT.into(),
        SHALLOW_LAYER => "fetch the whole history, then run verify again: `fetch-depth: 0` \
            in actions/checkout, or `git fetch --unshallow`"
            .into(),
        DISCOVERY_LAYER => DISCOVERY_HINT.into(),
        INSTRUCTION_LINKS_LAYER => "commit the instruction files themselves at that path \
            (`git rm --cached` the link or submodule, then add the files it stands for), or \
            move it where no agent reads instructions"
            .into(),
        LINKED_LAYER => "commit the handoff directory itself (`git rm --cached` the link or \
            submodule, then put the directory it stands for in its place and `git add` it)"
            .into(),
        "checkout" => "remove `working-tree-encoding` (they are UTF-8 text) or `export-subst` \
            (or the file's `$Format:`) for handoff and instruction files at the `.gitattributes` \
            line named, stage it and retry"
            .into(),
        AGENT_RUNS_LAYER => "the agent would read text the gate never judged: name the \
            script in the configuration's command as a path of the repository, or run it \
            through fewer scripts and recipes, so that the gate follows it; what no reading \
            can follow is acknowledged by an aahp-allowlist.json entry with the fingerprint \
            the error names (a reviewer sees it)"
            .into(),
        "history" => "rewrite the range's commits so that none holds the credential (`git \
            rebase -i`), and revoke it: it may already be copied"
            .into(),
        _ => return None,
    })
}

impl Layer {
    fn new(layer: &'static str) -> Layer {
        Layer {
            dir: None,
            layer,
            status: LayerStatus::Pass,
            summary: String::new(),
            findings: Vec::new(),
        }
    }

    fn fail(&mut self, path: Option<String>, message: impl Into<String>) {
        self.status = LayerStatus::Fail;
        self.findings.push(Finding {
            blocking: true,
            path,
            message: message.into(),
        });
    }

    fn warn(&mut self, path: Option<String>, message: impl Into<String>) {
        if self.status == LayerStatus::Pass {
            self.status = LayerStatus::Warn;
        }
        self.findings.push(Finding {
            blocking: false,
            path,
            message: message.into(),
        });
    }

    fn skip(mut self, why: impl Into<String>) -> Layer {
        self.status = LayerStatus::Skip;
        self.summary = why.into();
        self
    }

    fn summarize(mut self, pass: impl Into<String>) -> Layer {
        if self.summary.is_empty() {
            self.summary = match self.status {
                LayerStatus::Pass | LayerStatus::Skip => pass.into(),
                _ => {
                    let n = self.findings.iter().filter(|f| f.blocking).count();
                    let w = self.findings.len() - n;
                    match (n, w) {
                        (0, w) => format!("{w} warning{}", plural(w)),
                        (n, 0) => format!("{n} problem{}", plural(n)),
                        (n, w) => format!("{n} problem{}, {w} warning{}", plural(n), plural(w)),
                    }
                }
            };
        }
        self
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The result of `git aahp verify`.
#[derive(Debug, Serialize)]
pub struct VerifyReport {
    /// The level judged (`null` = working tree).
    pub level: Option<Level>,
    /// What content was judged (`index`, `working tree`, `commit abc1234`).
    pub source: String,
    /// True when the content was judged and no layer failed: false when skipped, so a
    /// reader of `ok` alone never takes a skipped check for a pass.
    pub ok: bool,
    /// True when `AAHP_SKIP_VERIFY=1` skipped the check (exit 0, `ok` false).
    pub skipped: bool,
    /// The commit ranges judged (`prepush`, `ci`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ranges: Vec<JudgedRange>,
    /// The handoff directories judged (repository-relative, sorted).
    pub dirs: Vec<String>,
    /// The layers, in order, directory by directory.
    pub layers: Vec<Layer>,
    /// The lint findings behind the lint layer.
    pub diagnostics: Vec<Diagnostic>,
    /// Pre-commit snapshots whose LOG-ARCHIVE.md pass states are recorded once the check
    /// passes (issue #14): a refused commit (`git aahp commit` changes nothing then) leaves
    /// no state of blobs that were never committed.
    #[serde(skip)]
    pass_states: Vec<std::sync::Arc<Snapshot>>,
}

impl VerifyReport {
    fn level_name(&self) -> &'static str {
        match self.level {
            None => "working tree",
            Some(Level::Precommit) => "precommit",
            Some(Level::Prepush) => "prepush",
            Some(Level::Ci) => "ci",
        }
    }
}

impl Report for VerifyReport {
    fn command(&self) -> &'static str {
        "verify"
    }

    fn write_human(&self, w: &mut dyn Write, style: &Style) -> io::Result<()> {
        if self.skipped {
            return writeln!(
                w,
                "verify skipped: {SKIP_ENV}=1 (not honoured at --level ci)"
            );
        }
        for r in &self.ranges {
            writeln!(w, "range {}", r.describe())?;
        }
        // Several groups (directories, or instruction files outside them): a heading each.
        let grouped = self
            .layers
            .iter()
            .any(|l| l.dir != self.layers.first().and_then(|f| f.dir.clone()));
        let mut current: Option<String> = None;
        for layer in &self.layers {
            let heading = match (&layer.dir, layer.layer) {
                (Some(d), _) => format!("{}:", escape_untrusted(d)),
                (None, "instructions") => {
                    "agent instruction files outside any handoff directory:".to_string()
                }
                (None, "history") => "the range's commits:".to_string(),
                (None, _) => "the change:".to_string(),
            };
            if grouped && current.as_ref() != Some(&heading) {
                writeln!(w, "{}", style.bold(&heading))?;
                current = Some(heading);
            }
            let tag = match layer.status {
                LayerStatus::Pass => style.ok("ok  "),
                LayerStatus::Warn => style.warn("warn"),
                LayerStatus::Fail => style.error("FAIL"),
                LayerStatus::Skip => style.dim("skip"),
            };
            writeln!(w, "{tag}  {}: {}", layer.layer, layer.summary)?;
            for f in &layer.findings {
                let mark = if f.blocking {
                    style.error("error")
                } else {
                    style.warn("warning")
                };
                // A path may come from a file name or a commit's tree: one line, always.
                match &f.path {
                    Some(p) => writeln!(
                        w,
                        "      {mark}: {}: {}",
                        escape_untrusted(p),
                        escape_untrusted(&f.message)
                    )?,
                    None => writeln!(w, "      {mark}: {}", escape_untrusted(&f.message))?,
                }
            }
        }
        self.write_verdict_styled(w, *style)
    }

    fn status(&self) -> ExitStatus {
        // Skipping is the user's explicit choice outside CI: it does not fail the command.
        if self.ok || self.skipped {
            ExitStatus::Success
        } else {
            ExitStatus::Findings
        }
    }
}

impl VerifyReport {
    /// The closing lines: passed or failed, and each failing layer's next step.
    fn write_verdict_styled(&self, w: &mut dyn Write, style: Style) -> io::Result<()> {
        let dirs = if self.dirs.len() > 1 {
            format!("; {} handoff directories", self.dirs.len())
        } else {
            String::new()
        };
        if self.ok {
            writeln!(
                w,
                "verify passed ({}, {}{dirs})",
                self.level_name(),
                self.source
            )
        } else {
            let n: usize = self
                .layers
                .iter()
                .map(|l| l.findings.iter().filter(|f| f.blocking).count())
                .sum();
            writeln!(
                w,
                "{} ({}, {}{dirs}): {n} blocking problem{}",
                style.error("verify failed"),
                self.level_name(),
                self.source,
                plural(n)
            )?;
            // Each failing layer gives its own next step; the drift hint only for drift.
            for layer in self.layers.iter().filter(|l| l.status == LayerStatus::Fail) {
                if let Some(hint) = layer_hint(layer.layer, layer.dir.as_deref()) {
                    writeln!(w, "hint: {hint}")?;
                }
            }
            Ok(())
        }
    }
}

/// Splits a finding's `path:line` (archive and trust findings name a line) for an
/// annotation's `file` and `line`.
fn file_and_line(path: &str) -> (&str, Option<usize>) {
    match path.rsplit_once(':') {
        Some((file, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            (file, n.parse().ok())
        }
        _ => (path, None),
    }
}

impl Annotated for VerifyReport {
    /// Lint findings (handoff files and agent instruction files) point at their file, line
    /// and column; every other layer's findings at their file when they have one, else at
    /// the run (a base that cannot be used, drift, a held lock).
    fn annotations(&self) -> Vec<Annotation> {
        if self.skipped {
            return vec![Annotation {
                level: AnnotationLevel::Notice,
                file: None,
                line: None,
                col: None,
                end_column: None,
                title: Some(Untrusted::new("git aahp verify")),
                message: Untrusted::new(format!(
                    "verify skipped: {SKIP_ENV}=1 (not honoured at --level ci)"
                )),
            }];
        }
        let mut out: Vec<Annotation> = self
            .diagnostics
            .iter()
            .map(super::lint::annotation)
            .collect();
        for layer in &self.layers {
            if matches!(layer.layer, "lint" | "instructions") {
                continue;
            }
            for f in &layer.findings {
                let (file, line) = match &f.path {
                    Some(p) => {
                        let (file, line) = file_and_line(p);
                        (Some(Untrusted::new(file)), line)
                    }
                    None => (None, None),
                };
                let title = match &layer.dir {
                    Some(d) if self.dirs.len() > 1 => format!("verify {}: {d}", layer.layer),
                    _ => format!("verify {}", layer.layer),
                };
                out.push(Annotation {
                    level: if f.blocking {
                        AnnotationLevel::Error
                    } else {
                        AnnotationLevel::Warning
                    },
                    file,
                    line,
                    col: None,
                    end_column: None,
                    title: Some(Untrusted::new(title)),
                    message: Untrusted::new(f.message.as_str()),
                });
            }
        }
        out
    }

    fn write_verdict(&self, w: &mut dyn Write) -> io::Result<()> {
        if self.skipped {
            return writeln!(
                w,
                "verify skipped: {SKIP_ENV}=1 (not honoured at --level ci)"
            );
        }
        for r in &self.ranges {
            writeln!(w, "range {}", r.describe())?;
        }
        self.write_verdict_styled(w, Style::default())
    }
}

/// The layer that reports a `ci` base that cannot be used.
const BASE_LAYER: &str = "base";
/// The layer that fails a range a shallow clone cut short (see [`history_layer`]).
const SHALLOW_LAYER: &str = "shallow";
/// The layer that fails a change removing a handoff directory (see [`removed_dirs`]).
const REMOVED_LAYER: &str = "removed";
/// The layer that fails a handoff directory committed as a symbolic link (see
/// [`linked_dir_layer`]).
const LINKED_LAYER: &str = "linked";
/// The layer that fails a submodule or symbolic link where agent instruction files belong
/// (see [`instruction_links_layer`]).
const INSTRUCTION_LINKS_LAYER: &str = "instruction-links";
/// The layer that fails changes the gate cannot place in a package (see [`unplaced_layer`]).
const DISCOVERY_LAYER: &str = "discovery";
const DISCOVERY_HINT: &str = "each error says what places the directory beyond the gate: \
     rename or move it as it says (to valid UTF-8, to the handoff directory's own spelling), or \
     name the handoff directory where the gate runs (`--dir PATH`, or `git config --add \
     aahp.dir PATH` in the CI job and each clone); with no handoff directory below it, \
     `git config aahp.discover false` turns discovery off";

/// One commit range to judge: content at `tip`, changes since `base`.
struct Target {
    source: Source,
    /// The manifest state the tasks layer compares against.
    base_commit: Option<ObjectId>,
    /// The other parents of the commit judged when it is a merge, at the hook: one being
    /// concluded (`MERGE_HEAD`), or one amended (session 30 #4). A merge is judged as git's
    /// own pre-commit hook sees it, the index against HEAD, its first parent (an amended
    /// merge: against the first parent of the commit it replaces, as the merge's own hook
    /// judged it), for every layer that judges what the change brings (drift, lint,
    /// instructions, names, checkout); and against each of these parents too for what keeps
    /// history, since a merge may drop what only the branch it merges held: LOG.md's
    /// entries (`journal`) and the tasks with `next_task_id` (`tasks`). Judging the change
    /// against every parent would ask the merge to update the handoff for code the merged
    /// branch's own commits brought, with their own updates.
    other_parents: Vec<ObjectId>,
    changes: Vec<Change>,
    /// The commit range, for the report (`prepush`, `ci`).
    range: Option<JudgedRange>,
    /// Walk the tip's whole tree for what only a walk finds (`ci`, where the cost is paid
    /// once per pull request): submodules and symbolic links where instruction files
    /// belong at any depth, and every file that imports with `@path`.
    whole: bool,
}

/// Runs `git aahp verify`. `push_lines` are the pre-push hook's stdin lines.
pub fn run(ctx: &Context, args: &VerifyArgs) -> Result<VerifyReport> {
    run_with_push_lines(ctx, args, None, None)
}

/// Where a target's content is read from, for discovery, snapshots and instruction files.
pub(crate) enum Content<'a> {
    /// The working tree (tracked files, as the index lists them).
    Worktree(&'a gix::index::State),
    /// The staged content.
    Staged(&'a StagedView<'a>),
    /// A commit's tree.
    Commit(ObjectId),
}

impl Content<'_> {
    /// True when the content holds the handoff directory `rel`.
    fn holds(&self, repo: &Repo, rel: &str) -> Result<bool> {
        let on_disk = || repo.workdir().join(rel).is_dir();
        Ok(match self {
            Content::Worktree(index) => on_disk() || Repo::index_has_dir(index, rel),
            // A directory created but not staged yet is judged (and fails): fail closed.
            Content::Staged(view) => view.has_dir(rel)? || on_disk(),
            Content::Commit(c) => repo.tree_has_dir(*c, rel)?,
        })
    }

    fn snapshot(
        &self,
        repo: &Repo,
        dir: &HandoffDir,
        base: Option<ObjectId>,
        today: jiff::civil::Date,
    ) -> Result<Snapshot> {
        match self {
            // LOG-ARCHIVE.md and its index stay on disk: hashed and checked against each
            // other as streams (issue #12 item 2).
            Content::Worktree(_) => {
                dir.snapshot_worktree_streaming(&[log::ARCHIVE_FILE, log::INDEX_FILE])
            }
            Content::Staged(view) => {
                // The staged files are compared with the commit the target judges the
                // change against: HEAD, or HEAD's parent for an amend (review atk34 #1).
                let snap = dir.snapshot_staged(view, &Baseline::at(repo, base, dir)?)?;
                Ok(complete_for_lint(repo, dir, snap, today)?.0)
            }
            Content::Commit(c) => dir.snapshot_commit(repo, *c, true),
        }
    }

    /// Reads an agent instruction file (following one symbolic link within the work tree),
    /// `None` when absent or not a file.
    pub(crate) fn read_agent_file(&self, repo: &Repo, path: &str) -> Result<Option<Vec<u8>>> {
        let file = match self {
            Content::Worktree(_) => {
                let abs = repo.workdir().join(path);
                let Ok(meta) = std::fs::symlink_metadata(&abs) else {
                    return Ok(None);
                };
                if meta.file_type().is_symlink() {
                    let target = abs.canonicalize().ok();
                    let root = repo.workdir().canonicalize().unwrap_or_default();
                    let inside = target
                        .as_ref()
                        .and_then(|t| t.strip_prefix(&root).ok())
                        .map(|t| t.to_string_lossy().replace('\\', "/"));
                    match inside {
                        Some(t) if !escapes(&t) => {}
                        _ => return Err(link_refused(path)),
                    }
                } else if !meta.is_file() {
                    return Ok(None);
                }
                if abs.is_dir() {
                    return Err(link_to_dir_refused(path));
                }
                if !abs.is_file() {
                    return Ok(None);
                }
                return read_limited(&abs, path).map(Some);
            }
            Content::Staged(view) => view.file_at(path)?,
            Content::Commit(c) => repo.tree_file_at(*c, path)?,
        };
        let Some(mut file) = file else {
            return Ok(None);
        };
        let mut from = path.to_string();
        for _ in 0..crate::handoff::MAX_LINK_HOPS {
            if !file.is_link {
                break;
            }
            let target = repo.link_target(file.id, &from)?;
            let parent = from.rsplit_once('/').map_or("", |(p, _)| p);
            let resolved =
                crate::handoff::resolve_link(parent, &target).ok_or_else(|| link_refused(path))?;
            if escapes(&resolved) {
                return Err(link_refused(path));
            }
            let next = match self {
                Content::Staged(view) => view.file_at(&resolved)?,
                Content::Commit(c) => repo.tree_file_at(*c, &resolved)?,
                Content::Worktree(_) => None,
            };
            match next {
                Some(f) => file = f,
                None if self.holds(repo, &resolved)? => return Err(link_to_dir_refused(path)),
                None => return Ok(None),
            }
            from = resolved;
        }
        if file.is_link {
            return Ok(None);
        }
        match repo.blob_within(file.id, crate::handoff::MAX_FILE_BYTES)? {
            Ok(bytes) => Ok(Some(bytes)),
            Err(len) => Err(super::lint::too_large_to_lint(path, len)),
        }
    }

    /// What the content holds at `path` (`None`: nothing, or a directory); in the working
    /// tree a symbolic link on disk is one whatever the index says, and a file git does not
    /// track is one all the same (the agent reads it: an untracked script a hook runs).
    fn kind_at(&self, repo: &Repo, path: &str) -> Result<Option<EntryKind>> {
        Ok(match self {
            Content::Worktree(index) => {
                let on_disk = std::fs::symlink_metadata(repo.workdir().join(path));
                match on_disk {
                    Ok(m) if m.file_type().is_symlink() => Some(EntryKind::Link),
                    _ => match Repo::index_kind_at(index, path) {
                        Some(kind) => Some(kind),
                        None if on_disk.is_ok_and(|m| m.is_file()) => Some(EntryKind::File),
                        None => None,
                    },
                }
            }
            Content::Staged(view) => view.kind_at(path)?,
            Content::Commit(c) => repo.tree_kind_at(*c, path)?,
        })
    }

    /// The files directly in `dir` named `name` in any ASCII letter case: the agents that
    /// ask for `CLAUDE.md` open `claude.md` on the case-insensitive file systems most of them
    /// run on, so the gate looks for every spelling the content holds.
    fn names_like(&self, repo: &Repo, dir: &str, name: &str) -> Result<Vec<String>> {
        Ok(match self {
            Content::Worktree(_) => disk_spellings(repo, dir, name, false),
            Content::Staged(view) => view.names_like(dir, name)?,
            Content::Commit(c) => repo.tree_names_like(*c, dir, name)?,
        })
    }

    /// The directories directly in `dir` named `name` in any ASCII letter case, as
    /// [`Content::names_like`] finds files: the directory a case-insensitive file system
    /// opens on the way to a file named in another case (`Docs/rules.md`).
    fn dirs_like(&self, repo: &Repo, dir: &str, name: &str) -> Result<Vec<String>> {
        Ok(match self {
            Content::Worktree(_) => disk_spellings(repo, dir, name, true),
            Content::Staged(view) => view.dirs_like(dir, name)?,
            Content::Commit(c) => repo.tree_dirs_like(*c, dir, name)?,
        })
    }

    /// The submodules (gitlinks) the content holds, repository-relative.
    fn gitlinks(&self, repo: &Repo) -> Result<Vec<String>> {
        let of_index = |state: &gix::index::State| {
            state
                .entries()
                .iter()
                .filter(|e| e.stage_raw() == 0 && e.mode.is_submodule())
                .map(|e| e.path(state).to_string())
                .collect::<Vec<String>>()
        };
        Ok(match self {
            Content::Worktree(index) => of_index(index),
            Content::Staged(view) => of_index(view.state()),
            Content::Commit(c) => {
                let mut out = Vec::new();
                repo.walk_tree(*c, &mut |p, _, kind| {
                    if kind == EntryKind::Gitlink {
                        out.push(String::from_utf8_lossy(p).into_owned());
                    }
                })?;
                out
            }
        })
    }

    /// The files below `dir` (repository-relative paths), for the staged content or a
    /// commit; the working tree's are what a checkout wrote already, so it lists none.
    fn files_below(&self, repo: &Repo, dir: &str) -> Result<Vec<String>> {
        match self {
            Content::Worktree(_) => Ok(Vec::new()),
            _ => self.listed_below(repo, dir),
        }
    }

    /// The files below `dir` (repository-relative paths) the content holds: for the working
    /// tree, those the index lists.
    fn listed_below(&self, repo: &Repo, dir: &str) -> Result<Vec<String>> {
        let files = match self {
            Content::Worktree(index) => Repo::index_files_below(index, dir),
            Content::Staged(view) => view.files_below(dir)?,
            Content::Commit(c) => repo.tree_files_below(*c, dir)?,
        };
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        Ok(files
            .into_iter()
            .map(|f| format!("{prefix}{}", String::from_utf8_lossy(&f.path)))
            .collect())
    }

    /// The blob at `path` of the staged content or a commit, not following a link (as git
    /// reads a `.gitattributes`); `None` when absent or a link. Used for `.gitattributes`
    /// and for a manifest along a changed path, so its refusal names neither alone.
    fn plain_blob(&self, repo: &Repo, path: &str) -> Result<Option<Vec<u8>>> {
        let file = match self {
            Content::Worktree(_) => return Ok(None),
            Content::Staged(view) => view.file_at(path)?,
            Content::Commit(c) => repo.tree_file_at(*c, path)?,
        };
        let Some(file) = file.filter(|f| !f.is_link) else {
            return Ok(None);
        };
        match repo.blob_within(file.id, crate::handoff::MAX_FILE_BYTES)? {
            Ok(bytes) => Ok(Some(bytes)),
            Err(len) => Err(Error::invalid(
                path,
                None,
                format!(
                    "file is {len} bytes, more than the {} bytes the gate reads of a file it \
                     consults (an attributes file, a manifest)",
                    crate::handoff::MAX_FILE_BYTES
                ),
            )),
        }
    }

    /// `path` as the agent's file system resolves it (review s26 #5): a directory on the
    /// way that is a symbolic link is replaced by its target (`lnk/guide.md` with
    /// `lnk -> notes` is `notes/guide.md`), and a file, link or directory the content does
    /// not hold in that spelling by the one it holds in another letter case (`notes/Guide.md`
    /// or `Notes/guide.md` for `notes/guide.md`), as macOS and Windows serve it. Up to [`crate::handoff::MAX_LINK_HOPS`] links; a link leaving the
    /// repository stops the resolution there (reading it is refused elsewhere). The path as
    /// written when nothing applies.
    fn resolve_path(&self, repo: &Repo, path: &str) -> Result<String> {
        let mut parts: Vec<String> = path.split('/').map(String::from).collect();
        let mut hops = 0;
        let mut i = 0;
        while i < parts.len() {
            let prefix = parts[..=i].join("/");
            let kind = match self.kind_at(repo, &prefix)? {
                Some(k) => Some(k),
                None if self.holds(repo, &prefix)? => None,
                None => {
                    let (dir, name) = prefix.rsplit_once('/').unwrap_or(("", &prefix));
                    let mut like = self.names_like(repo, dir, name)?;
                    if like.is_empty() && i + 1 < parts.len() {
                        // A directory on the way, in another case (`Docs/` for `docs/`).
                        like = self.dirs_like(repo, dir, name)?;
                    }
                    like.sort();
                    match like.into_iter().next() {
                        Some(found) => {
                            parts[i] = crate::handoff::file_name(&found).to_string();
                            self.kind_at(repo, &found)?
                        }
                        None => return Ok(path.to_string()),
                    }
                }
            };
            // A submodule's files are another repository's: neither the index nor a commit
            // of this one holds them, so what the agent reads there cannot be judged (review
            // atk31 #12: the hook passed it unread, CI stopped on a raw git error).
            if kind == Some(EntryKind::Gitlink) && i + 1 < parts.len() {
                return Err(Error::Declined {
                    reason: format!(
                        "`{}` lies inside the git submodule `{}`: an agent reads it (an \
                         instruction file imports it, or a configuration names or runs it), and \
                         its text is another repository's, which the gate cannot judge here",
                        crate::output::escape_untrusted(path),
                        crate::output::escape_untrusted(&parts[..=i].join("/"))
                    ),
                    hint: "copy the file into this repository and name it there, or remove the \
                           reference; the submodule's own repository is judged by its own gate",
                });
            }
            if kind == Some(EntryKind::Link) && i + 1 < parts.len() {
                hops += 1;
                let prefix = parts[..=i].join("/");
                let Some(target) = self.link_chain(repo, &prefix)?.pop() else {
                    return Ok(path.to_string());
                };
                if hops > crate::handoff::MAX_LINK_HOPS {
                    return Ok(path.to_string());
                }
                let rest = parts.split_off(i + 1);
                parts = target.split('/').map(String::from).collect();
                parts.extend(rest);
                i = 0;
                continue;
            }
            i += 1;
        }
        Ok(parts.join("/"))
    }

    /// The paths a symbolic link at `path` leads through (repository-relative, the last one
    /// the file read), up to [`crate::handoff::MAX_LINK_HOPS`] links; empty when `path` is
    /// not a link or leads out of the repository.
    fn link_chain(&self, repo: &Repo, path: &str) -> Result<Vec<String>> {
        let mut chain = Vec::new();
        let mut at = path.to_string();
        for _ in 0..crate::handoff::MAX_LINK_HOPS {
            let parent = at.rsplit_once('/').map_or("", |(p, _)| p).to_string();
            let target = match self {
                Content::Worktree(_) => match std::fs::read_link(repo.workdir().join(&at)) {
                    Ok(t) => t.to_string_lossy().into_owned(),
                    Err(_) => break,
                },
                Content::Staged(view) => match view.file_at(&at)? {
                    Some(f) if f.is_link => repo.link_target(f.id, &at)?,
                    _ => break,
                },
                Content::Commit(c) => match repo.tree_file_at(*c, &at)? {
                    Some(f) if f.is_link => repo.link_target(f.id, &at)?,
                    _ => break,
                },
            };
            match crate::handoff::resolve_link(&parent, &target).filter(|t| !escapes(t)) {
                Some(next) => {
                    chain.push(next.clone());
                    at = next;
                }
                None => return Ok(Vec::new()),
            }
        }
        Ok(chain)
    }

    /// The target of the symbolic link at `path` as its blob holds it, `None` when `path`
    /// is not a link.
    fn link_text(&self, repo: &Repo, path: &str) -> Result<Option<String>> {
        Ok(match self {
            Content::Worktree(_) => std::fs::read_link(repo.workdir().join(path))
                .ok()
                .map(|t| t.to_string_lossy().into_owned()),
            Content::Staged(view) => match view.file_at(path)? {
                Some(f) if f.is_link => Some(repo.link_target(f.id, path)?),
                _ => None,
            },
            Content::Commit(c) => match repo.tree_file_at(*c, path)? {
                Some(f) if f.is_link => Some(repo.link_target(f.id, path)?),
                _ => None,
            },
        })
    }
}

/// The entries of the work tree's directory `dir` named `name` in any ASCII letter case,
/// repository-relative: directories only when `dirs`, else any.
fn disk_spellings(repo: &Repo, dir: &str, name: &str, dirs: bool) -> Vec<String> {
    let listing = repo.disk_entries(dir);
    let mut found: Vec<String> = listing
        .get(&name.to_ascii_lowercase())
        .into_iter()
        .flatten()
        .filter(|(_, is_dir)| !dirs || *is_dir)
        .map(|(n, _)| crate::handoff::location::join(dir, n))
        .collect();
    // Sorted: the order does not hang on the file system's.
    found.sort();
    found
}

/// How many `@path` imports deep an instruction file is followed (Claude Code's limit).
const MAX_IMPORT_DEPTH: usize = 5;

/// Adds to `agent_files` what the agent reads as part of its instruction files although the
/// change does not touch them by those names (review 20 F08, F09; review 21 F05, F06): the
/// file a top-level instruction file links to (through up to
/// [`crate::handoff::MAX_LINK_HOPS`] links) when the change alters a file of the chain, and
/// the files of [`lint::agents::IMPORTING_NAMES`] import with `@path`, breadth first up to
/// [`MAX_IMPORT_DEPTH`] deep: all of them below a file the change alters or pulls in, else
/// those the change alters; an `@word` with neither `/` nor `.` imports the file of that name
/// beside the importer when there is one. Importing files are looked up at the repository's
/// root and each package root (`.claude/` included), in the directories of the changed paths,
/// and wherever else they lie: `importers` lists every one of the content's tree (a walk at
/// `ci`, else [`crate::handoff::importers`], whose cost follows what changed).
pub(crate) fn add_pulled_in(
    repo: &Repo,
    content: &Content<'_>,
    changes: &[Change],
    package_roots: &[String],
    importers: &[String],
    agent_files: &mut Vec<(Option<String>, String, Vec<u8>)>,
    runs: &mut AgentRuns,
) -> Result<std::collections::HashSet<String>> {
    // Every path an instruction file links or imports, read or not: the history layer
    // judges them in each commit (review 22).
    let mut pulled_paths: std::collections::HashSet<String> = std::collections::HashSet::new();
    let altered: std::collections::HashSet<&str> = changes
        .iter()
        .filter(|c| c.kind != ChangeKind::Deleted)
        .map(|c| c.path.as_str())
        .collect();
    let mut roots: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    roots.insert(String::new());
    roots.extend(package_roots.iter().cloned());
    // (path, owner, whether all its imports are new to the agent, depth)
    let mut queue: std::collections::VecDeque<(String, Option<String>, bool, usize)> = agent_files
        .iter()
        .filter(|(_, p, _)| lint::agents::pulls_in_files(p))
        .map(|(o, p, _)| (p.clone(), o.clone(), true, 0))
        .collect();
    for root in &roots {
        for name in lint::agents::top_level_names() {
            let (dir, name) = match name.rsplit_once('/') {
                Some((sub, n)) => (crate::handoff::location::join(root, sub), n),
                None => (root.clone(), name),
            };
            // A directory on the way that is a submodule holds another repository's files
            // (the instruction-links layer says so): none to look up here.
            if dir.contains('/') && !directories_held(repo, content, &dir)? {
                continue;
            }
            for path in content.names_like(repo, &dir, name)? {
                if agent_files.iter().any(|(_, p, _)| *p == path) {
                    continue;
                }
                let chain = content.link_chain(repo, &path)?;
                pulled_paths.extend(chain.iter().cloned());
                if chain.iter().any(|t| altered.contains(t.as_str()))
                    && let Some(bytes) = content.read_agent_file(repo, &path)?
                {
                    agent_files.push((None, path.clone(), bytes));
                }
            }
        }
    }
    let mut dirs: std::collections::BTreeSet<String> = roots.clone();
    // Claude Code's project memory may sit in `.claude/` (review s25 #9).
    dirs.extend(
        roots
            .iter()
            .map(|r| crate::handoff::location::join(r, ".claude")),
    );
    for c in &altered {
        let mut at: &str = c;
        while let Some((parent, _)) = at.rsplit_once('/') {
            dirs.insert(parent.to_string());
            at = parent;
        }
    }
    for dir in &dirs {
        for name in lint::agents::IMPORTING_NAMES {
            for path in content.names_like(repo, dir, name)? {
                queue.push_back((path, None, false, 0));
            }
        }
    }
    for path in importers {
        queue.push_back((path.clone(), None, false, 0));
    }
    // Where each path of `agent_files` is, and the imports of each file read (each file is
    // read and parsed once, however many import it: review 22).
    let mut held: std::collections::HashMap<String, usize> = agent_files
        .iter()
        .enumerate()
        .map(|(i, (_, p, _))| (p.clone(), i))
        .collect();
    let mut parsed: std::collections::HashMap<String, std::rc::Rc<Vec<String>>> =
        std::collections::HashMap::new();
    let mut done: std::collections::HashSet<(String, bool)> = std::collections::HashSet::new();
    while let Some((path, owner, whole, depth)) = queue.pop_front() {
        if depth >= MAX_IMPORT_DEPTH || !done.insert((path.clone(), whole)) {
            continue;
        }
        if lint::agents::is_agent_config(&path) {
            let of = ScriptsOf {
                config: &path,
                whole,
                owner: &owner,
            };
            let (added, unfollowed) = add_scripts(
                repo,
                content,
                &of,
                &altered,
                &mut held,
                agent_files,
                &mut pulled_paths,
            )?;
            runs.scripts.extend(added);
            runs.unfollowed
                .extend(unfollowed.into_iter().map(|u| (path.clone(), u)));
        }
        let imports = if lint::agent_config::names_files(&path) {
            // A configuration's files: all of them when it changed, else those changed.
            std::rc::Rc::new(named_files(repo, content, &path, whole, &altered)?)
        } else if lint::agents::is_agent_config(&path) {
            std::rc::Rc::new(Vec::new())
        } else if let Some(i) = parsed.get(&path) {
            std::rc::Rc::clone(i)
        } else {
            let text = match held.get(&path) {
                Some(&i) => String::from_utf8_lossy(&agent_files[i].2).into_owned(),
                None => match content.read_agent_file(repo, &path)? {
                    Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                    None => String::new(),
                },
            };
            let mut found = lint::agents::imports(&path, &text);
            // `@STYLE` imports the file of that name beside the importer, when there is one.
            for word in lint::agents::bare_imports(&path, &text) {
                if matches!(
                    content.kind_at(repo, &word)?,
                    Some(EntryKind::File | EntryKind::Link)
                ) {
                    found.push(word);
                }
            }
            let i = std::rc::Rc::new(found);
            parsed.insert(path.clone(), std::rc::Rc::clone(&i));
            i
        };
        pulled_paths.extend(imports.iter().cloned());
        for import in imports.iter() {
            // What the agent reads: the path through the links on its way and at its end,
            // in the letter case the content holds (review s26 #5).
            let resolved = content.resolve_path(repo, import)?;
            let mut names = content.link_chain(repo, &resolved)?;
            if resolved != *import {
                names.push(resolved.clone());
            }
            pulled_paths.extend(names.iter().cloned());
            // A script the agent also reads as an import is judged as text.
            runs.scripts.remove(import);
            let pulled = whole
                || altered.contains(import.as_str())
                || names.iter().any(|n| altered.contains(n.as_str()));
            if pulled
                && !held.contains_key(import)
                && let Some(bytes) = content.read_agent_file(repo, &resolved)?
            {
                held.insert(import.clone(), agent_files.len());
                agent_files.push((owner.clone(), import.clone(), bytes));
            }
            if !done.contains(&(import.clone(), pulled)) {
                queue.push_back((import.clone(), owner.clone(), pulled, depth + 1));
            }
        }
    }
    Ok(pulled_paths)
}

/// What the agent configurations judged run: the scripts added to the files judged (judged
/// as code), and what the gate could not follow of what a configuration, or a file it runs,
/// that the change touches runs (with the configuration's path).
#[derive(Debug, Default)]
pub(crate) struct AgentRuns {
    pub(crate) scripts: std::collections::HashSet<String>,
    pub(crate) unfollowed: Vec<(String, lint::agent_runs::Unfollowed)>,
}

/// An agent configuration whose scripts [`add_scripts`] adds: all of them when `whole` (the
/// configuration changed or is pulled in), else those changed; judged with `owner`'s
/// handoff directory.
struct ScriptsOf<'a> {
    config: &'a str,
    whole: bool,
    owner: &'a Option<String>,
}

/// Adds to `agent_files` the scripts of the repository the configuration runs (review s27
/// #1: a hook's script, whose output the agent reads; an MCP server's code) that the content
/// holds as text ([`lint::agent_runs::runs`]), read as the harness reads them (through links
/// within the work tree, in the letter case the content holds); every path they are read
/// through goes to `pulled`, for the history layer. A compiled program is not text the agent
/// reads and is left out; anything else is judged as text ([`run_bytes`]). Gives the paths it added (they
/// are judged as code, [`LintFile::script`]) and, when the configuration or a file it runs
/// changed, what the gate could not follow of what it runs.
fn add_scripts(
    repo: &Repo,
    content: &Content<'_>,
    of: &ScriptsOf<'_>,
    altered: &std::collections::HashSet<&str>,
    held: &mut std::collections::HashMap<String, usize>,
    agent_files: &mut Vec<(Option<String>, String, Vec<u8>)>,
    pulled: &mut std::collections::HashSet<String>,
) -> Result<(Vec<String>, Vec<lint::agent_runs::Unfollowed>)> {
    let mut added = Vec::new();
    let Some(bytes) = content.read_agent_file(repo, of.config)? else {
        return Ok((added, Vec::new()));
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut followed = follow_runs(repo, content, of.config, &text)?;
    // A changed script or recipe may run files that did not change: all are judged then.
    // A file the walk read in another letter case (`makefile` for `Makefile`) is the
    // change's by the path the content holds it at.
    let whole = of.whole
        || followed.runs.iter().chain(&followed.recipes).any(|r| {
            altered.contains(r.path.as_str())
                || content
                    .resolve_path(repo, &r.path)
                    .is_ok_and(|p| p != r.path && altered.contains(p.as_str()))
        });
    let unfollowed = if whole {
        std::mem::take(&mut followed.unfollowed)
    } else {
        Vec::new()
    };
    // The file that holds a recipe the run reaches (`package.json`, a Makefile, a justfile,
    // a Taskfile) is judged as a script is: its commands' words are what the agent runs
    // (review 32 #2: `"hook": "echo '…'"` printed an injection no rule read).
    // It is named as the tree spells it (make asks for `makefile`, which a case-insensitive
    // file system serves as `Makefile`).
    let recipes = followed.recipes.into_iter().map(|r| (r, true));
    for (mut run, recipe) in followed.runs.into_iter().map(|r| (r, false)).chain(recipes) {
        let resolved = content.resolve_path(repo, &run.path)?;
        if recipe && resolved != run.path {
            run.path.clone_from(&resolved);
        }
        let mut names = content.link_chain(repo, &resolved)?;
        if resolved != run.path {
            names.push(resolved.clone());
        }
        let changed = whole
            || altered.contains(run.path.as_str())
            || names.iter().any(|n| altered.contains(n.as_str()));
        pulled.insert(run.path.clone());
        pulled.extend(names);
        if !changed || held.contains_key(&run.path) {
            continue;
        }
        if !matches!(
            content.kind_at(repo, &resolved)?,
            Some(EntryKind::File | EntryKind::Link)
        ) {
            continue;
        }
        if let Some(bytes) = content.read_agent_file(repo, &resolved)?
            && let Some(bytes) = run_bytes(&run.path, bytes)
        {
            held.insert(run.path.clone(), agent_files.len());
            // Handed to an interpreter of another language: judged whole, as text.
            if !followed.another_language.contains(&run.path) {
                added.push(run.path.clone());
            }
            agent_files.push((of.owner.clone(), run.path, bytes));
        }
    }
    Ok((added, unfollowed))
}

/// The bytes of a file a configuration runs (at `path`) as the gate judges them: a
/// compiled program, an image or an archive is not text the agent reads (`None`); anything
/// else an interpreter reads as text, so it is text here, bytes that are not UTF-8 replaced
/// (review atk31 #10: a NUL past `exit`, a Latin-1 comment).
pub(crate) fn run_bytes(path: &str, bytes: Vec<u8>) -> Option<Vec<u8>> {
    if lint::agent_runs::compiled(&bytes) || lint::is_binary_file(path, &bytes) {
        return None;
    }
    match String::from_utf8(bytes) {
        Ok(text) => Some(text.into_bytes()),
        Err(e) => Some(
            String::from_utf8_lossy(e.as_bytes())
                .into_owned()
                .into_bytes(),
        ),
    }
}

/// Refuses the agent configuration at `config` (read as `text`) when it cannot be read as
/// its harness reads it ([`lint::agent_runs::readable`]), naming its line and how to make it
/// readable: what it runs would go unjudged (session 30 #1).
pub(crate) fn config_readable(config: &str, text: &str) -> Result<()> {
    lint::agent_runs::readable(config, text).map_err(|e| {
        Error::invalid(
            config,
            e.line,
            format!(
                "agent configuration cannot be read as its harness reads it ({}), so what it \
                 runs cannot be judged; {} so that the gate can judge it",
                e.why, e.fix
            ),
        )
    })
}

/// What the configuration at `config` (read as `text`) runs, followed through its scripts
/// and recipes ([`lint::agent_runs::follow`]) as the content holds them, a path in another
/// letter case included ([`Content::resolve_path`]); refused when it cannot be read as its
/// harness reads it ([`config_readable`]).
pub(crate) fn follow_runs(
    repo: &Repo,
    content: &Content<'_>,
    config: &str,
    text: &str,
) -> Result<lint::agent_runs::Followed> {
    config_readable(config, text)?;
    let followed = lint::agent_runs::follow(config, text, &mut HeldTree { repo, content });
    match followed.refused {
        // Review atk31 #9: a `package.json` npm reads but the gate cannot would pass what
        // it runs unread.
        Some(r) => Err(Error::invalid(
            &r.path,
            Some(r.line),
            format!(
                "`{config}` runs what this file holds, but it cannot be read as its runner \
                 reads it ({}), so what it runs cannot be judged; make it valid JSON so that \
                 the gate can judge it",
                r.why
            ),
        )),
        None => Ok(followed),
    }
}

/// The content's files as the walk of what a configuration runs reads them: as text,
/// through links within the work tree, a path in another letter case included (the
/// harness's file system may serve it); a file the gate refuses, or a compiled program, is
/// not there for it (the refusal comes from judging it); one that is not UTF-8 is read with
/// its bad bytes replaced, as [`run_bytes`] judges it.
struct HeldTree<'a> {
    repo: &'a Repo,
    content: &'a Content<'a>,
}

impl lint::agent_runs::Tree for HeldTree<'_> {
    fn read(&mut self, path: &str) -> Option<String> {
        let path = self.content.resolve_path(self.repo, path).ok()?;
        self.content
            .read_agent_file(self.repo, &path)
            .ok()
            .flatten()
            .and_then(|b| lint::agent_runs::script_text(&b).map(std::borrow::Cow::into_owned))
    }

    fn files_below(&mut self, dir: &str) -> Vec<String> {
        self.content
            .listed_below(self.repo, dir)
            .unwrap_or_default()
    }

    fn declined(&mut self, path: &str) -> Option<String> {
        match self.content.resolve_path(self.repo, path) {
            Err(Error::Declined { reason, .. }) => Some(reason),
            _ => None,
        }
    }

    fn holds_compiled(&mut self, path: &str) -> bool {
        self.content
            .resolve_path(self.repo, path)
            .ok()
            .and_then(|path| {
                self.content
                    .read_agent_file(self.repo, &path)
                    .ok()
                    .flatten()
            })
            .is_some_and(|b| lint::agent_runs::compiled(&b))
    }
}

/// The files the agent configuration at `path` names as instruction files
/// ([`lint::agent_config::named`]) that the content holds: every one when `whole`, else
/// those among `altered` (a pattern is matched against them, so that the tree is listed only
/// when the configuration itself changed). What it names but cannot be judged is refused,
/// naming the configuration.
fn named_files(
    repo: &Repo,
    content: &Content<'_>,
    path: &str,
    whole: bool,
    altered: &std::collections::HashSet<&str>,
) -> Result<Vec<String>> {
    let Some(bytes) = content.read_agent_file(repo, path)? else {
        return Ok(Vec::new());
    };
    let text = crate::handoff::decode_text(path, &bytes)?;
    let named =
        lint::agent_config::named(path, text).map_err(|why| Error::invalid(path, None, why))?;
    let mut out = Vec::new();
    let mut globs = Vec::new();
    for n in named {
        match n {
            lint::agent_config::Named::Path(p) => out.push(p),
            lint::agent_config::Named::Glob(g) => globs.push(g),
        }
    }
    if !globs.is_empty() {
        // One matcher for every pattern, one listing (review s27 #8).
        let m = lint::agent_config::GlobsMatcher::new(globs.iter().map(String::as_str)).map_err(
            |g| {
                Error::invalid(
                    path,
                    None,
                    format!("names instruction files with a pattern the gate cannot read: {g}"),
                )
            },
        )?;
        // A submodule's files are another repository's, never listed here: a pattern that
        // reaches into one names files the agent reads and the gate cannot (review 32 #8,
        // as an import or aider's `read:` of such a path is refused).
        for link in content.gitlinks(repo)? {
            let reached = globs.iter().any(|g| {
                let last = g.rsplit('/').next().unwrap_or(g);
                let probe: String = last
                    .chars()
                    .filter(|c| !matches!(c, '{' | '}'))
                    .map(|c| if matches!(c, '*' | '?' | ',') { 'a' } else { c })
                    .collect();
                m.is_match(&format!("{link}/{probe}")) || m.is_match(&format!("{link}/a/{probe}"))
            });
            if reached {
                return Err(Error::Declined {
                    reason: format!(
                        "`{}` names instruction files by a pattern that reaches into the git \
                         submodule `{}`: an agent reads them, and their text is another \
                         repository's, which the gate cannot judge here",
                        crate::output::escape_untrusted(path),
                        crate::output::escape_untrusted(&link)
                    ),
                    hint: "copy the files into this repository and name them there, or name \
                           paths outside the submodule; the submodule's own repository is \
                           judged by its own gate",
                });
            }
        }
        // A context file's imports are followed whether it changed or not (review s27 #6):
        // every one the tree holds is listed, as the importing files are.
        if whole || lint::agent_config::named_files_import(path) {
            let base = m.base();
            let listed = match content {
                // The working tree's files are the index's, as a checkout wrote them.
                Content::Worktree(index) => Repo::index_files_below(index, base)
                    .into_iter()
                    .map(|f| String::from_utf8_lossy(&f.path).into_owned())
                    .map(|p| crate::handoff::location::join(base, &p))
                    .collect(),
                _ => content.files_below(repo, base)?,
            };
            out.extend(listed.into_iter().filter(|p| m.is_match(p)));
        } else {
            out.extend(
                altered
                    .iter()
                    .filter(|p| m.is_match(p))
                    .map(|p| (*p).to_string()),
            );
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// True for a repository-relative path that lies in a git directory.
fn escapes(rel: &str) -> bool {
    rel.split('/').any(|c| c.eq_ignore_ascii_case(".git"))
}

/// A symbolic link at an instruction file's path that leads to a directory: the agent
/// reads the files below it as instructions (review s25 #7).
fn link_to_dir_refused(path: &str) -> Error {
    Error::invalid(
        path,
        None,
        "symbolic link to a directory where agent instruction files belong: the agent reads \
         the files below its target, which the gate would judge by their own paths as \
         ordinary files. Commit the files themselves there",
    )
}

fn link_refused(path: &str) -> Error {
    Error::invalid(
        path,
        None,
        "symbolic link points outside the work tree or into .git; agent instruction files must be files of the work tree",
    )
}

/// Reads the files a pre-commit snapshot left unread when the lint must see them: an
/// expired allowlist entry no longer suppresses its finding, which may lie in a file that
/// did not change. The lint configuration read to tell is returned when it still describes
/// the snapshot (nothing more was read), so that the lint does not read it again.
fn complete_for_lint(
    repo: &Repo,
    dir: &HandoffDir,
    mut snap: Snapshot,
    today: jiff::civil::Date,
) -> Result<(Snapshot, Option<LintConfig>)> {
    if !snap.is_partial() {
        return Ok((snap, None));
    }
    let cfg = LintConfig::from_snapshot(dir, &snap, today)?;
    if cfg.has_expired() {
        snap.read_unread(repo, dir)?;
        return Ok((snap, None));
    }
    Ok((snap, Some(cfg)))
}

/// The AAHP checksums of the files a snapshot left on disk (hashed in pieces) and of those
/// a pre-commit snapshot left unread, by name. An unread file whose
/// manifest entry is HEAD's too keeps the state HEAD was judged with, unhashed; any other is
/// hashed once per blob, through the cache in the git directory (issue #14).
fn unread_checksums(
    repo: &Repo,
    dir: &HandoffDir,
    snap: &Snapshot,
    manifest: Option<&Manifest>,
    committed: &mut CommittedManifests,
) -> Result<std::collections::HashMap<String, String>> {
    let mut known = std::collections::HashMap::new();
    for (name, s) in &snap.streamed {
        known.insert(name.clone(), s.checksum(&dir.path_of(name))?);
    }
    if !snap.is_partial() {
        return Ok(known);
    }
    let path = dir.path_of(MANIFEST);
    // The manifest of the commit the unread files were found equal to (HEAD's, or HEAD's
    // parent's for an amend: review atk34 #1).
    let head_entries: std::collections::HashMap<String, _> = match snap.unread_since {
        Some(head) => match committed.at(repo, head, &path)? {
            Committed::Parsed(m) => m.files().into_iter().collect(),
            Committed::Absent | Committed::Unparsable => std::collections::HashMap::new(),
        },
        None => std::collections::HashMap::new(),
    };
    let staged_entries: std::collections::HashMap<String, _> = manifest
        .map(|m| m.files().into_iter().collect())
        .unwrap_or_default();
    let mut cache: Option<ChecksumCache> = None;
    for (name, id) in &snap.unread {
        if name.contains('/') || !is_indexed_name(name) {
            continue;
        }
        match (staged_entries.get(name), head_entries.get(name)) {
            (Some(now), Some(then)) if now == then => {
                known.insert(name.clone(), now.checksum.clone());
            }
            _ => {
                let cache = cache.get_or_insert_with(|| ChecksumCache::open(repo));
                let sum = if let Some(sum) = cache.get(*id) {
                    sum.to_string()
                } else {
                    let shown = dir.path_of(name);
                    let bytes = repo
                        .blob_within(*id, crate::handoff::max_bytes(name))?
                        .map_err(|size| crate::handoff::too_large_blob(&shown, size))?;
                    let sum = checksum(&bytes);
                    cache.insert(*id, &sum);
                    sum
                };
                known.insert(name.clone(), sum);
            }
        }
    }
    if let Some(cache) = cache {
        cache.save();
    }
    Ok(known)
}

/// One handoff directory read for judging: its snapshot and its running lint.
struct Read {
    dir: HandoffDir,
    /// Shared with its lint thread: a copy would hold LOG-ARCHIVE.md and its index twice.
    snap: std::sync::Arc<Snapshot>,
    lint: LintJob,
    /// The snapshot's lint configuration when it was read before the lint started (shared
    /// with the lint thread, so that the other layers do not read it again).
    cfg: Option<std::sync::Arc<LintConfig>>,
}

/// Runs `verify`, with the pre-push hook's stdin and the remote it pushes to (its first
/// argument, when git gave one) when called from `hook pre-push`.
pub fn run_with_push_lines(
    ctx: &Context,
    args: &VerifyArgs,
    push_lines: Option<&str>,
    remote: Option<&str>,
) -> Result<VerifyReport> {
    let level = args.level;
    if level == Some(Level::Ci) {
        crate::handoff::distrust_git_dir_caches();
    }
    if level != Some(Level::Ci) && std::env::var(SKIP_ENV).is_ok_and(|v| v == "1") {
        let mut report = VerifyReport::empty(level);
        report.skipped = true;
        report.ok = false;
        return Ok(report);
    }
    // Every layer judges against one HEAD, read once.
    let _head = ctx.repo()?.pin_head();
    let mut report = judge_level(ctx, args, push_lines, remote)?;
    if args.chain {
        let layer = chain_layer(ctx)?;
        report.ok &= layer.status != LayerStatus::Fail;
        report.layers.push(layer);
    }
    Ok(report)
}

/// The chain layer (`--chain`): the session tags of the handoff directory, walked from HEAD.
fn chain_layer(ctx: &Context) -> Result<Layer> {
    let repo = ctx.repo()?;
    let dir = ctx.existing_handoff()?;
    let mut layer = Layer::new("chain");
    layer.dir = Some(dir.rel.clone());
    let Some(head) = repo.head_commit()? else {
        return Ok(layer.skip("no commits yet"));
    };
    let walked = crate::transaction::chain::walk(repo, &dir, head, usize::MAX)?;
    if walked.tags.is_empty() {
        return Ok(layer.skip("no session tags yet"));
    }
    for b in &walked.breaks {
        let files = if b.files.is_empty() {
            String::new()
        } else {
            format!(" (changed: {})", b.files.join(", "))
        };
        layer.fail(None, format!("{}{files}", b.reason));
    }
    if !walked.since_last.is_empty() {
        layer.warn(
            None,
            format!(
                "committed since {} outside a session: {}",
                walked.tags[0],
                crate::transaction::chain::some_names(&walked.since_last)
            ),
        );
    }
    if let Some(t) = &walked.unlinked_start {
        layer.warn(
            None,
            format!("the chain starts at {t}: older session tags carry no link"),
        );
    }
    let n = walked.tags.len();
    Ok(layer.summarize(format!(
        "{n} session tag{} linked back to {}",
        plural(n),
        walked.tags[n - 1]
    )))
}

/// The pre-commit gate on the index as it is now, whatever `AAHP_SKIP_VERIFY` says: what
/// `git aahp commit` runs on exactly what it is about to commit (SPEC §3.7).
pub(crate) fn gate_staged(ctx: &Context) -> Result<VerifyReport> {
    let args = VerifyArgs {
        level: Some(Level::Precommit),
        base: None,
        ..VerifyArgs::default()
    };
    judge_level(ctx, &args, None, None)
}

impl VerifyReport {
    fn empty(level: Option<Level>) -> VerifyReport {
        VerifyReport {
            level,
            source: String::new(),
            ok: true,
            skipped: false,
            ranges: Vec::new(),
            dirs: Vec::new(),
            layers: Vec::new(),
            diagnostics: Vec::new(),
            pass_states: Vec::new(),
        }
    }
}

/// Runs every layer at `args.level` (the skip variable already handled).
fn judge_level(
    ctx: &Context,
    args: &VerifyArgs,
    push_lines: Option<&str>,
    remote: Option<&str>,
) -> Result<VerifyReport> {
    let level = args.level;
    let mut report = VerifyReport::empty(level);
    let repo = ctx.repo()?;
    let scope = ctx.gate_scope()?;
    let today = crate::clock::utc_date(ctx.now);
    let mut any_change = false;
    let mut sources = Vec::new();
    match level {
        None => {
            let index = repo.index()?;
            let target = Target {
                source: Source::Worktree,
                base_commit: repo.head_commit()?,
                other_parents: Vec::new(),
                changes: repo.worktree_changes(&index)?,
                range: None,
                whole: false,
            };
            any_change |= !target.changes.is_empty();
            // Nothing below writes to the work tree: each directory is listed once.
            let _listings = repo.pin_listings();
            let content = Content::Worktree(&index);
            judge_target(
                repo,
                &scope,
                &target,
                &content,
                Vec::new(),
                today,
                &mut report,
            )?;
            sources.push(target.source.describe());
        }
        Some(Level::Precommit) => {
            // The hook's critical path: the lint threads of the directories known up front
            // start now and lint as soon as their staged files are read, beside the staged
            // changes and the other layers.
            let pending: Vec<(HandoffDir, PendingLint)> = scope
                .known
                .iter()
                .map(|d| (d.clone(), PendingLint::start(d, today)))
                .collect();
            // Only the known handoff directories and the directories the commit changes are
            // read; directories found along the changes are completed from HEAD.
            let keep: Vec<&str> = scope.known.iter().map(|d| d.rel.as_str()).collect();
            let index = repo.index_for_precommit(&keep)?;
            // `git commit --amend` replaces HEAD: the commit it makes is judged against
            // HEAD's parent, as CI will judge it (review s29 #1). Git does not tell the hook;
            // the command line of the `git commit` running it does.
            let head = repo.head_commit()?;
            let amends = match head {
                Some(_) => crate::procfs::git_commit_amends(&|name| {
                    repo.config_string(&format!("alias.{name}"))
                }),
                None => Some(false),
            };
            let amended = match (amends, head) {
                (Some(true), Some(head)) => Some((head, repo.commit_parents(head)?)),
                _ => None,
            };
            // What the staged handoff files are compared with: an amend's files are
            // HEAD's parent's, HEAD being the commit it replaces (review atk34 #1). Where an
            // amend cannot be told (no /proc: macOS, Windows), HEAD's parent's too: the files
            // HEAD changed are read and linted, which a commit on top of HEAD only reads
            // again, and an amend of an unjudged HEAD (`--no-verify`) would otherwise leave
            // unread (review atk35 #1).
            let baseline_commit = match (&amended, amends, head) {
                (Some((_, parents)), _, _) => parents.first().copied(),
                (None, None, Some(head)) => repo.commit_parents(head)?.first().copied(),
                _ => head,
            };
            // The known directories first: their snapshots are read right away.
            refuse_sparse_handoff(repo, index.state(), &scope, &[])?;
            let mut early = Vec::new();
            for (dir, p) in pending {
                // Only what changed since the baseline is read (issue #14).
                let base = Baseline::at(repo, baseline_commit, &dir)?;
                let snap = dir.snapshot_index_since(repo, index.state(), &base)?;
                let (snap, cfg) = complete_for_lint(repo, &dir, snap, today)?;
                let snap = std::sync::Arc::new(snap);
                let cfg = cfg.map(std::sync::Arc::new);
                let lint = p.submit(&snap, cfg.clone());
                // A commit that changes the archive pair read them: their state is kept
                // for the next `archive` onto them (issue #14), once the check passes.
                report.pass_states.push(std::sync::Arc::clone(&snap));
                early.push(Read {
                    dir,
                    snap,
                    lint,
                    cfg,
                });
            }
            let staged = repo.staged_changes_in(index.state(), index.tree())?;
            refuse_sparse_handoff(repo, index.state(), &scope, &staged)?;
            let view = StagedView::new(repo, &index, &staged)?;
            let mut source = Source::Index.describe();
            let (base_commit, changes, other_parents) = if let Some((head, parents)) = amended {
                let parent = parents.first().copied();
                let changes = amended_changes(repo, &view, &staged, head, parent)?;
                refuse_sparse_handoff(repo, index.state(), &scope, &changes)?;
                let others = parents.get(1..).unwrap_or_default().to_vec();
                source = format!(
                    "{source}, amending {}{} (judged against {}{})",
                    if others.is_empty() { "" } else { "merge " },
                    Repo::short(head),
                    parent.map_or_else(
                        || "the empty tree".to_string(),
                        |p| format!(
                            "its {}parent {}",
                            if others.is_empty() { "" } else { "first " },
                            Repo::short(p)
                        )
                    ),
                    merged_parents_note(&others)
                );
                (parent, changes, others)
            } else {
                // A merge being concluded (`git commit` after a conflict), or one git
                // commits without a conflict (the pre-merge-commit hook).
                let merging = if head.is_some() {
                    repo.merge_heads()
                } else {
                    Vec::new()
                };
                if !merging.is_empty() {
                    let ids: Vec<String> = merging.iter().map(|m| Repo::short(*m)).collect();
                    source = format!(
                        "{source}, merging {}{}",
                        ids.join(", "),
                        merged_parents_note(&merging)
                    );
                }
                (head, staged.clone(), merging)
            };
            let target = Target {
                source: Source::Index,
                base_commit,
                other_parents,
                changes,
                range: None,
                whole: false,
            };
            any_change |= !target.changes.is_empty();
            let content = Content::Staged(&view);
            judge_target(repo, &scope, &target, &content, early, today, &mut report)?;
            if amends.is_none() {
                note_amend_unknown(&mut report.layers);
            }
            sources.push(source);
        }
        Some(Level::Prepush | Level::Ci) => {
            let targets = if level == Some(Level::Ci) {
                match ci_target(repo, args.base.as_deref())? {
                    Ok(target) => vec![target],
                    Err(failure) => return Ok(failure),
                }
            } else {
                prepush_targets(repo, push_lines, remote)?
            };
            if targets.is_empty() {
                report.source = "nothing to push".into();
                return Ok(report);
            }
            for target in targets {
                any_change |= !target.changes.is_empty();
                report.ranges.extend(target.range.clone());
                let Source::Commit(tip) = target.source else {
                    unreachable!("pushed and CI targets are commits")
                };
                let content = Content::Commit(tip);
                judge_target(
                    repo,
                    &scope,
                    &target,
                    &content,
                    Vec::new(),
                    today,
                    &mut report,
                )?;
                sources.push(target.source.describe());
            }
        }
    }
    report.source = sources.join(", ");
    if report.layers.is_empty() {
        if let Some(only) = &scope.only {
            return Err(Error::NoHandoffDir(only.rel.clone()));
        }
        if !any_change {
            return Err(Error::NoHandoffDir(scope.default_rel.clone()));
        }
        report.source = format!(
            "{}; no handoff directory is touched by the change, nothing to judge",
            report.source
        );
    }
    report.dirs.sort();
    report.dirs.dedup();
    report.ok = report.layers.iter().all(|l| l.status != LayerStatus::Fail);
    if report.ok {
        for snap in std::mem::take(&mut report.pass_states) {
            super::archive::record_pass_states(repo, &snap);
        }
    }
    Ok(report)
}

/// The words added to the judged source's description when the commit has `others` as
/// further parents.
fn merged_parents_note(others: &[ObjectId]) -> &'static str {
    if others.is_empty() {
        ""
    } else {
        "; LOG.md's entries and the tasks against every parent"
    }
}

/// The paths the commit `git commit --amend` makes changes against `parent` (`None`: it
/// has none), from the paths HEAD changed against it and the paths `staged` changes against
/// HEAD: a path only one of them holds keeps that change; one both hold is compared, the
/// parent's file with the staged one. The cost follows the two change lists.
fn amended_changes(
    repo: &Repo,
    view: &StagedView<'_>,
    staged: &[Change],
    head: ObjectId,
    parent: Option<ObjectId>,
) -> Result<Vec<Change>> {
    let replaced = repo.commit_changes(parent, head)?;
    let staged_kind: std::collections::HashMap<&str, ChangeKind> =
        staged.iter().map(|c| (c.path.as_str(), c.kind)).collect();
    let mut out = Vec::with_capacity(replaced.len() + staged.len());
    for c in &replaced {
        let Some(&now) = staged_kind.get(c.path.as_str()) else {
            out.push(c.clone());
            continue;
        };
        let kind = match (c.kind != ChangeKind::Added, now != ChangeKind::Deleted) {
            (false, false) => continue,
            (false, true) => ChangeKind::Added,
            (true, false) => ChangeKind::Deleted,
            (true, true) => {
                let was = match parent {
                    Some(p) => repo.tree_file_at(p, &c.path)?,
                    None => None,
                };
                let is = view.file_at(&c.path)?;
                if was.map(|f| (f.id, f.is_link)) == is.map(|f| (f.id, f.is_link)) {
                    continue;
                }
                ChangeKind::Modified
            }
        };
        out.push(Change {
            path: c.path.clone(),
            kind,
        });
    }
    let replaced_paths: std::collections::HashSet<&str> =
        replaced.iter().map(|c| c.path.as_str()).collect();
    out.extend(
        staged
            .iter()
            .filter(|c| !replaced_paths.contains(c.path.as_str()))
            .cloned(),
    );
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Where this process cannot tell whether `git commit --amend` runs it (no `/proc`), says
/// so once, on the first drift layer that judged code changes: they were compared with
/// HEAD, which an amended commit replaces. Nothing when no drift was judged.
fn note_amend_unknown(layers: &mut [Layer]) {
    if let Some(drift) = layers
        .iter_mut()
        .find(|l| l.layer == "drift" && l.summary != NO_CODE_CHANGES)
    {
        drift.warn(None, AMEND_UNKNOWN);
    }
}

/// What [`note_amend_unknown`] says.
const AMEND_UNKNOWN: &str = "judged against HEAD: this system does not show whether `git \
     commit --amend` runs the hook (no /proc), and an amended commit replaces HEAD; CI \
     (`verify --level ci`) judges it against its parent";

impl VerifyReport {
    /// The warnings of what the gate cannot follow of what an agent configuration runs,
    /// one line each (`path: message`, through the output boundary): a hook that passes
    /// says them all the same.
    pub fn unfollowed_warnings(&self) -> Vec<String> {
        self.warnings_of(AGENT_RUNS_LAYER)
    }

    /// The warnings of the `suppressions` layers, one line each: what the judged change adds
    /// to keep its own text from being judged (an allowlist entry or an inline marker the
    /// base does not hold, a CFG007 acknowledgement). A hook that passes says them, once for
    /// the commits a push brings (review atk39 #4: `git push` said nothing of a new
    /// acknowledgement, and neither did `git aahp commit`).
    pub fn suppression_warnings(&self) -> Vec<String> {
        self.warnings_of("suppressions")
    }

    fn warnings_of(&self, layer: &str) -> Vec<String> {
        self.layers
            .iter()
            .filter(|l| l.layer == layer)
            .flat_map(|l| &l.findings)
            .filter(|f| !f.blocking)
            .map(|f| {
                format!(
                    "{}: {}",
                    escape_untrusted(f.path.as_deref().unwrap_or("")),
                    escape_untrusted(&f.message)
                )
            })
            .collect()
    }

    /// The note that drift was judged against HEAD where an amend cannot be told apart
    /// ([`note_amend_unknown`]): the hook, silent when it passes, says it all the same.
    pub fn amend_unknown(&self) -> Option<&'static str> {
        self.layers
            .iter()
            .filter(|l| l.layer == "drift")
            .flat_map(|l| &l.findings)
            .any(|f| f.message == AMEND_UNKNOWN)
            .then_some(AMEND_UNKNOWN)
    }
}

/// Judges one target: every handoff directory it touches (a changed path belongs to the
/// nearest enclosing package holding one) or that is known up front and present, and every
/// agent instruction file it changes. `early` are known directories already being read.
fn judge_target(
    repo: &Repo,
    scope: &GateScope,
    target: &Target,
    content: &Content<'_>,
    early: Vec<Read>,
    today: jiff::civil::Date,
    report: &mut VerifyReport,
) -> Result<()> {
    let paths: Vec<&str> = target.changes.iter().map(|c| c.path.as_str()).collect();
    if scope.discover
        && let Some(layer) = unplaced_layer(&paths)
    {
        report.layers.push(layer);
    }
    if let Some(layer) = linked_dir_layer(scope, target) {
        report.layers.push(layer);
    }
    let moved = match removed_dirs(repo, scope, target, content)? {
        Removal::Removed(layer) => {
            report.layers.push(layer);
            None
        }
        Removal::Moved { from, to } => Some((from, to)),
        Removal::None => None,
    };
    // Known directories own changes only where they exist (`--dir` always does).
    let mut present = Vec::new();
    for d in &scope.known {
        if scope.only.is_some() || d.exists() || content.holds(repo, &d.rel)? {
            present.push(d.clone());
        }
    }
    let owners = location::owners(repo, &paths, &present, scope.discover, |pkg| {
        content.holds(repo, &location::join(pkg, DEFAULT_DIR))
    })?;
    let mut reads: Vec<Read> = Vec::new();
    for r in early {
        if content.holds(repo, &r.dir.rel)? || owners.dirs.iter().any(|d| d.rel == r.dir.rel) {
            reads.push(r);
        }
    }
    let mut wanted: Vec<&HandoffDir> = owners.dirs.iter().collect();
    match &scope.only {
        // Named with --dir: judged whether or not the change touches it (a directory not
        // yet tracked included), never reported missing while it is there.
        Some(only) if !wanted.iter().any(|d| d.rel == only.rel) => wanted.push(only),
        Some(_) => {}
        None => wanted.extend(scope.known.iter()),
    }
    for dir in wanted {
        if reads.iter().any(|r| r.dir.rel == dir.rel) {
            continue;
        }
        let explicit = scope.only.as_ref().is_some_and(|o| o.rel == dir.rel);
        let touched = owners.dirs.iter().any(|d| d.rel == dir.rel);
        if !explicit && !touched && !content.holds(repo, &dir.rel)? {
            continue;
        }
        if explicit && !dir.exists() && !content.holds(repo, &dir.rel)? {
            return Err(Error::NoHandoffDir(dir.rel.clone()));
        }
        let snap = std::sync::Arc::new(content.snapshot(repo, dir, target.base_commit, today)?);
        if matches!(content, Content::Staged(_)) {
            report.pass_states.push(std::sync::Arc::clone(&snap));
        }
        let lint = LintJob::spawn(dir, &snap, today);
        reads.push(Read {
            dir: dir.clone(),
            snap,
            lint,
            cfg: None,
        });
    }

    if let Some(layer) = unknown_dirs_layer(repo, content, target, &reads)? {
        report.layers.push(layer);
    }

    // Agent instruction files the target changes, grouped by the handoff directory whose
    // configuration (.aiignore, allowlists) applies; files inside a handoff directory are
    // linted with it already.
    let mut agent_files: Vec<(Option<String>, String, Vec<u8>)> = Vec::new();
    for (change, owner) in target.changes.iter().zip(&owners.owner) {
        let inside_dir = reads
            .iter()
            .any(|r| change.path.starts_with(&format!("{}/", r.dir.rel)));
        if change.kind == ChangeKind::Deleted
            || inside_dir
            || !lint::agents::is_agent_file(&change.path)
        {
            continue;
        }
        if let Some(bytes) = content.read_agent_file(repo, &change.path)? {
            let owner = owner.first().map(|i| owners.dirs[*i].rel.clone());
            agent_files.push((owner, change.path.clone(), bytes));
        }
    }

    let package_roots: Vec<String> = reads
        .iter()
        .filter_map(|r| r.dir.rel.strip_suffix(DEFAULT_DIR))
        .map(|p| p.trim_end_matches('/').to_string())
        .collect();
    let walked = match (&target.source, target.whole) {
        (Source::Commit(tip), true) => walk_tip(repo, *tip)?,
        _ => Vec::new(),
    };
    // Every file that imports with `@path`, wherever it lies (review s25 #9): from the walk
    // at `ci`, else from the cache of the tree the content starts from (HEAD's, or the
    // pushed tip's), whose cost follows what changed since it was last brought up to date.
    let importers: Vec<String> = match (&target.source, target.whole) {
        (Source::Commit(_), true) => walked
            .iter()
            .filter(|(p, k)| *k != EntryKind::Gitlink && lint::agents::pulls_in_files(p))
            .map(|(p, _)| p.clone())
            .collect(),
        (Source::Commit(tip), false) => {
            crate::handoff::importers::importers(repo, repo.commit_tree(*tip)?)?
        }
        _ => match repo.head_commit()? {
            Some(head) => crate::handoff::importers::importers(repo, repo.commit_tree(head)?)?,
            None => Vec::new(),
        },
    };
    let mut runs = AgentRuns::default();
    let pulled_paths = add_pulled_in(
        repo,
        content,
        &target.changes,
        &package_roots,
        &importers,
        &mut agent_files,
        &mut runs,
    )?;
    // Pulled in files that lie in a judged handoff directory are linted with it already.
    agent_files.retain(|(_, p, _)| {
        !reads
            .iter()
            .any(|r| p.starts_with(&format!("{}/", r.dir.rel)))
    });

    let mut roots = vec![String::new()];
    roots.extend(package_roots.iter().filter(|r| !r.is_empty()).cloned());
    if let Some(layer) = instruction_links_layer(repo, target, content, &roots, &walked)? {
        report.layers.push(layer);
    }
    if let Some(layer) = names_layer(repo, scope, target, content, &reads, &pulled_paths, today)? {
        report.layers.push(layer);
    }
    let judged_dirs: Vec<&HandoffDir> = reads.iter().map(|r| &r.dir).collect();
    if let Some(layer) = checkout_layer(repo, content, target, &judged_dirs, &agent_files)? {
        report.layers.push(layer);
    }

    // What the range's history is judged with (`prepush`, `ci`): the judged directories
    // with their configuration.
    let ranged = target.range.is_some();
    let mut history_dirs: Vec<(HandoffDir, LintConfig)> = Vec::new();
    // A move counts only when its new place is judged here (found by discovery or
    // configured): else the old directory was removed as far as the gate can tell.
    let moved = match moved {
        Some((from, to)) if !reads.iter().any(|r| r.dir.rel == to) => {
            report.layers.push(removed_layer(&[from]));
            None
        }
        other => other,
    };
    let left = match &moved {
        Some((from, to)) => left_by_move(repo, scope, target, &owners, from, to)?,
        None => Vec::new(),
    };
    let is_left: std::collections::HashSet<usize> = left.iter().copied().collect();
    // What agent configurations grant and what the gate cannot follow of what they run:
    // over a range, every configuration of the tip (a reviewer sees it); else those the
    // change touches, or whose scripts it touches. Known before the directories are judged,
    // so that what no reading can follow is looked up in the allowlist of the directory
    // that owns its configuration (CFG007 acknowledgements).
    let notes: Vec<(String, ConfigNote)> = if let (Source::Commit(tip), Some(base), true) =
        (&target.source, target.base_commit, ranged)
    {
        added_grants(repo, base, *tip, &target.changes)?
    } else {
        runs.unfollowed.sort();
        runs.unfollowed.dedup();
        std::mem::take(&mut runs.unfollowed)
            .into_iter()
            .map(|(path, what)| {
                (
                    path,
                    ConfigNote::Unfollowed {
                        what,
                        touched: true,
                    },
                )
            })
            .collect()
    };
    let owner_of: Vec<Option<usize>> = notes
        .iter()
        .map(|(path, note)| match note {
            ConfigNote::Unfollowed { what, .. } if !what.unread => {
                nearest_dir(reads.iter().map(|r| &r.dir), path)
            }
            _ => None,
        })
        .collect();
    let mut acks: Vec<Option<String>> = vec![None; notes.len()];
    // The acknowledgements the range's base does not hold as they are (review atk38 #5).
    let mut added_acks = Layer::new("suppressions");
    for (k, r) in reads.into_iter().enumerate() {
        let moved_from = moved
            .as_ref()
            .filter(|(_, to)| *to == r.dir.rel)
            .map(|(from, _)| from.as_str());
        if owner_of.contains(&Some(k)) {
            let cfg = match &r.cfg {
                Some(cfg) => std::sync::Arc::clone(cfg),
                None => std::sync::Arc::new(LintConfig::from_snapshot(&r.dir, &r.snap, today)?),
            };
            let mut base_entries = None;
            for (i, (path, note)) in notes.iter().enumerate() {
                if owner_of[i] == Some(k)
                    && let ConfigNote::Unfollowed { what, .. } = note
                {
                    acks[i] = lint::unfollowed_acknowledgement(&cfg, path, what);
                    if let (Some(by), Some(base), true) = (&acks[i], target.base_commit, ranged) {
                        let entries = match &base_entries {
                            Some(e) => e,
                            None => base_entries.insert(base_allowlist(
                                repo,
                                base,
                                &r.dir,
                                moved_from.unwrap_or(&r.dir.rel),
                                today,
                            )?),
                        };
                        if !acknowledged_in(entries, &r.dir, path, what, by) {
                            added_acks.warn(
                                Some(path.clone()),
                                format!(
                                    "CFG007 {}: acknowledged by {by}, which this range adds or \
                                     changes: {}",
                                    lint::registry::CFG007.name,
                                    what.message()
                                ),
                            );
                        }
                    }
                }
            }
        }
        let owned: Vec<&Change> = target
            .changes
            .iter()
            .zip(&owners.owner)
            .enumerate()
            .filter(|(i, (_, o))| {
                o.iter().any(|i| owners.dirs[*i].rel == r.dir.rel)
                    || moved_from.is_some() && is_left.contains(i)
            })
            .map(|(_, (c, _))| c)
            .collect();
        let base_dir = Judged {
            dir: &r.dir,
            base_rel: moved_from.unwrap_or(&r.dir.rel),
        };
        if ranged {
            history_dirs.push((
                r.dir.clone(),
                LintConfig::from_snapshot(&r.dir, &r.snap, today)?,
            ));
        }
        let (mut layers, mut diagnostics, mut suppressed) =
            judge(repo, base_dir, &r.snap, target, &owned, today, r.lint)?;
        if let Some(from) = moved_from
            && !left.is_empty()
            && let Some(drift) = layers.iter_mut().find(|l| l.layer == "drift")
        {
            let paths: Vec<&str> = left
                .iter()
                .take(5)
                .map(|i| target.changes[*i].path.as_str())
                .collect();
            drift.warn(
                None,
                format!(
                    "{from} moved to {to}: the code it governed in the base ({}{}) is judged \
                     with it here, but from this change on {to} does not govern it",
                    paths.join(", "),
                    if left.len() > 5 { ", …" } else { "" },
                    to = r.dir.rel,
                ),
            );
        }
        let mine: Vec<&(Option<String>, String, Vec<u8>)> = agent_files
            .iter()
            .filter(|(o, _, _)| o.as_deref() == Some(r.dir.rel.as_str()))
            .collect();
        if !mine.is_empty() {
            let read;
            let cfg = if let Some(cfg) = &r.cfg {
                &**cfg
            } else {
                read = LintConfig::from_snapshot(&r.dir, &r.snap, today)?;
                &read
            };
            let (layer, diags, supp) = instructions_layer(cfg, &mine, &runs.scripts)?;
            layers.push(layer);
            diagnostics.extend(diags);
            suppressed.extend(supp);
        }
        // At `prepush` and `ci` against the range's base; before a commit against HEAD
        // (the first commit against nothing: every suppression it holds is new).
        let staged = matches!(target.source, Source::Index);
        if staged || ranged && target.base_commit.is_some() {
            layers.extend(suppressions_layer(
                repo,
                base_dir,
                &r.snap,
                &owned,
                target.base_commit,
                &suppressed,
                &mine,
                ranged,
                today,
            )?);
        }
        for l in &mut layers {
            l.dir = Some(r.dir.rel.clone());
        }
        report.dirs.push(r.dir.rel.clone());
        report.layers.extend(layers);
        report.diagnostics.extend(diagnostics);
    }
    let unowned: Vec<&(Option<String>, String, Vec<u8>)> =
        agent_files.iter().filter(|(o, _, _)| o.is_none()).collect();
    if !unowned.is_empty() {
        let (layer, diags, suppressed) =
            instructions_layer(&LintConfig::empty(today), &unowned, &runs.scripts)?;
        report.layers.push(layer);
        report.diagnostics.extend(diags);
        let staged = matches!(target.source, Source::Index);
        if staged || ranged && target.base_commit.is_some() {
            report.layers.extend(unowned_suppressions(
                repo,
                target.base_commit,
                &unowned,
                &suppressed,
                ranged,
            )?);
        }
    }
    if let Some(layer) = history_layer(repo, target, scope, &history_dirs, &pulled_paths, today)? {
        report.layers.push(layer);
    }
    let mut layer = Layer::new("agent-config");
    let mut unfollowed = Layer::new(AGENT_RUNS_LAYER);
    for ((path, note), ack) in notes.into_iter().zip(acks) {
        match note {
            ConfigNote::Added(what) => layer.warn(
                Some(path),
                format!(
                    "{what}: the agent runs or allows it without asking, and the gate \
                     cannot tell a good one from a bad one; a reviewer should"
                ),
            ),
            ConfigNote::Unfollowed { what, touched } => {
                unfollowed_finding(&mut unfollowed, path, &what, touched, ack.as_deref());
            }
        }
    }
    for layer in [layer, unfollowed, added_acks] {
        if !layer.findings.is_empty() {
            report.layers.push(layer.summarize(""));
        }
    }
    Ok(())
}

/// The entries of the allowlist of the handoff directory `dir` as the commit `base` holds it
/// (at `base_rel`, where a range moved the directory); none when it has none or it does
/// not parse.
fn base_allowlist(
    repo: &Repo,
    base: ObjectId,
    dir: &HandoffDir,
    base_rel: &str,
    today: jiff::civil::Date,
) -> Result<Vec<lint::allow::AllowEntry>> {
    let path = dir.path_of(lint::allow::ALLOWLIST);
    Ok(base_file(
        repo,
        base,
        &location::join(base_rel, lint::allow::ALLOWLIST),
    )?
    .and_then(|b| lint::allow::parse_allowlist(&path, b.as_bytes(), today).ok())
    .unwrap_or_default())
}

/// Whether `entries` (a base's allowlist) hold the acknowledgement `by` of what the gate
/// cannot follow in the configuration at `path` as it is: same rule and fingerprint, reason,
/// owner and expiry.
fn acknowledged_in(
    entries: &[lint::allow::AllowEntry],
    dir: &HandoffDir,
    path: &str,
    what: &lint::agent_runs::Unfollowed,
    by: &str,
) -> bool {
    let fingerprint = lint::unfollowed_fingerprint(path, what);
    let file = dir.path_of(lint::allow::ALLOWLIST);
    entries.iter().any(|e| {
        e.fingerprint == fingerprint
            && e.applies(lint::registry::CFG007.id, path)
            && e.described(&file) == by
    })
}

/// The layer that says what the gate cannot follow of what an agent configuration runs
/// (session 30 #8).
const AGENT_RUNS_LAYER: &str = "agent-runs";

/// A finding of the `agent-runs` layer for what the gate could not follow of what the
/// configuration at `path` runs. Where the change adds or alters the configuration or what
/// it runs (`touched`), it fails (fail closed): the agent would read text the gate never
/// judged. What no static reading can follow may be acknowledged by an allowlist entry
/// (`ack`, as the user reads it): a warning naming it. In a range that leaves both alone,
/// a warning, for a reviewer.
fn unfollowed_finding(
    layer: &mut Layer,
    path: String,
    u: &lint::agent_runs::Unfollowed,
    touched: bool,
    ack: Option<&str>,
) {
    match ack {
        Some(by) => layer.warn(
            Some(path),
            format!("{} (acknowledged by {by})", u.message()),
        ),
        None if touched => {
            let message = lint::unfollowed_message(u, &lint::unfollowed_fingerprint(&path, u));
            layer.fail(Some(path), message);
        }
        None => layer.warn(Some(path), u.message()),
    }
}

/// The index of the directory among `dirs` whose package holds `path` (the nearest one),
/// the one whose configuration (allowlist) applies to a file outside every handoff
/// directory, such as an agent configuration.
pub(crate) fn nearest_dir<'d>(
    dirs: impl Iterator<Item = &'d HandoffDir>,
    path: &str,
) -> Option<usize> {
    dirs.enumerate()
        .filter(|(_, d)| {
            let root = d.package_root();
            root.is_empty()
                || path
                    .strip_prefix(root)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
        .max_by_key(|(_, d)| d.package_root().len())
        .map(|(i, _)| i)
}

/// What a range changes of what an agent configuration grants and runs ([`added_grants`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ConfigNote {
    /// A grant the range adds, a script or recipe of it the range changes: for a reviewer.
    Added(String),
    /// What the gate cannot follow of what the configuration runs; `touched` when the
    /// range changes the configuration or what it runs.
    Unfollowed {
        what: lint::agent_runs::Unfollowed,
        touched: bool,
    },
}

impl ConfigNote {
    /// The note as a reviewer reads it.
    pub(crate) fn text(&self) -> String {
        match self {
            ConfigNote::Added(what) => what.clone(),
            ConfigNote::Unfollowed { what, .. } => what.message(),
        }
    }
}

/// True when each directory on the way to `dir` (repository-relative) is a directory of
/// `content`, none of them a submodule or a file.
fn directories_held(repo: &Repo, content: &Content, dir: &str) -> Result<bool> {
    let mut at = String::new();
    for part in dir.split('/') {
        if !content
            .dirs_like(repo, &at, part)?
            .iter()
            .any(|d| d.rsplit('/').next() == Some(part))
        {
            return Ok(false);
        }
        at = crate::handoff::location::join(&at, part);
    }
    Ok(true)
}

/// What the changes between `base` and `tip` add to the agent configuration files
/// ([`lint::agent_runs::grants`]): (path, what) for each grant the tip's file holds and the
/// base's does not, each script of the repository a configuration of the tip runs
/// ([`lint::agent_runs::runs`]) that the range changed, and what the gate cannot follow of
/// what each runs (blocking only when the range changed the configuration or what it runs:
/// a chain accepted before does not fail a range that leaves it alone). A configuration is read as the
/// harness reads it, through a symbolic link within the repository (a link out of it is
/// refused, naming it), so a range that changes only the link's target is read too. A
/// version too large to read is refused.
pub(crate) fn added_grants(
    repo: &Repo,
    base: ObjectId,
    tip: ObjectId,
    changes: &[Change],
) -> Result<Vec<(String, ConfigNote)>> {
    let altered: std::collections::HashSet<&str> = changes
        .iter()
        .filter(|c| c.kind != ChangeKind::Deleted)
        .map(|c| c.path.as_str())
        .collect();
    // Every configuration of the tip (from the list kept in the git directory), and the
    // changed ones.
    let mut configs: std::collections::BTreeSet<String> =
        crate::handoff::importers::importers(repo, repo.commit_tree(tip)?)?
            .into_iter()
            .filter(|p| lint::agents::is_agent_config(p))
            .collect();
    configs.extend(
        altered
            .iter()
            .filter(|p| lint::agents::is_agent_config(p))
            .map(|p| (*p).to_string()),
    );
    let (at_tip, at_base) = (Content::Commit(tip), Content::Commit(base));
    let mut out = Vec::new();
    for path in configs {
        let Some(after) = at_tip.read_agent_file(repo, &path)? else {
            continue;
        };
        let after = String::from_utf8_lossy(&after).into_owned();
        // The base's version as the harness read it; one the gate refused grants nothing.
        let before = match at_base.read_agent_file(repo, &path) {
            Ok(Some(b)) => String::from_utf8_lossy(&b).into_owned(),
            _ => String::new(),
        };
        if before != after {
            let held: std::collections::BTreeSet<String> = lint::agent_runs::grants(&path, &before)
                .into_iter()
                .collect();
            for what in lint::agent_runs::grants(&path, &after) {
                if !held.contains(&what) {
                    out.push((
                        path.clone(),
                        ConfigNote::Added(format!("the range adds {what}")),
                    ));
                }
            }
        }
        let followed = follow_runs(repo, &at_tip, &path, &after)?;
        let scripts = followed.runs.iter().map(|r| (r, true));
        let mut touched = before != after;
        for (run, script) in scripts.chain(followed.recipes.iter().map(|r| (r, false))) {
            // As the tree spells it: make's `makefile` is the `Makefile` a case-insensitive
            // file system serves (review 32 #2: a changed Makefile went unnamed).
            let at = at_tip
                .resolve_path(repo, &run.path)
                .unwrap_or_else(|_| run.path.clone());
            // A script that runs itself (OpenHands's setup script) changed with the
            // configuration it is: said once, as its grant.
            if at == path {
                continue;
            }
            if altered.contains(run.path.as_str()) || altered.contains(at.as_str()) {
                touched = true;
                let what = if script {
                    format!("the script `{at}` that {} runs", run.by)
                } else {
                    format!("`{at}`, which holds what {} runs", run.by)
                };
                out.push((
                    at.clone(),
                    ConfigNote::Added(format!("{what} (named by {path}) changed")),
                ));
            }
        }
        // What the gate cannot follow is shown whenever it is judged (fail closed).
        for what in followed.unfollowed {
            out.push((path.clone(), ConfigNote::Unfollowed { what, touched }));
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// True when `path` lies in a handoff directory: any `.ai/handoff/`, or one configured.
fn in_handoff_dir(scope: &GateScope, path: &str) -> bool {
    path.starts_with(&format!("{DEFAULT_DIR}/"))
        || path.contains(&format!("/{DEFAULT_DIR}/"))
        || scope
            .known
            .iter()
            .any(|d| path.starts_with(&format!("{}/", d.rel)))
}

/// The `checkout` layer (review s25 #1, s26 #2, #3): a judged file (a changed file of a
/// handoff directory, an instruction file or one it pulls in) whose committed attributes give
/// it a `working-tree-encoding` fails: every checkout writes it re-encoded, so agents read
/// text the gate never judged. So does one with `export-subst` whose text holds `$Format:`:
/// `git archive` fills in commit data. Attributes are read as every clone may read them
/// ([`crate::git::checkout_conversions`]: macros, a BOM, either letter case). A change to any `.gitattributes` judges every file of the handoff
/// directories and every instruction file of the content, since the attribute may now fall
/// on a file the change does not touch. Staged content and commits only: the working tree
/// holds what a checkout wrote. Shown only when it fails.
fn checkout_layer(
    repo: &Repo,
    content: &Content<'_>,
    target: &Target,
    dirs: &[&HandoffDir],
    agent_files: &[(Option<String>, String, Vec<u8>)],
) -> Result<Option<Layer>> {
    if matches!(content, Content::Worktree(_)) {
        return Ok(None);
    }
    let in_dirs = |p: &str| dirs.iter().any(|d| p.starts_with(&format!("{}/", d.rel)));
    let mut paths: std::collections::BTreeSet<String> = target
        .changes
        .iter()
        .filter(|c| c.kind != ChangeKind::Deleted && in_dirs(&c.path))
        .map(|c| c.path.clone())
        .collect();
    paths.extend(agent_files.iter().map(|(_, p, _)| p.clone()));
    // In any letter case: a case-insensitive checkout opens `.GITATTRIBUTES` for git's
    // `.gitattributes` (review s27 #7).
    let attributes_changed = target.changes.iter().any(|c| {
        c.path
            .rsplit('/')
            .next()
            .is_some_and(|n| n.eq_ignore_ascii_case(".gitattributes"))
    });
    if attributes_changed {
        for d in dirs {
            paths.extend(content.files_below(repo, &d.rel)?);
        }
        paths.extend(
            content
                .files_below(repo, "")?
                .into_iter()
                .filter(|p| lint::agents::is_agent_file(p)),
        );
    }
    let mut layer = Layer::new("checkout");
    // Each directory's attributes files: `.gitattributes` in every letter case the content
    // holds, since a case-insensitive checkout serves any of them as git's (all are read:
    // which one a checkout keeps is not known, and any may set the attribute).
    let mut read: std::collections::HashMap<String, Vec<crate::git::AttributesFile>> =
        std::collections::HashMap::new();
    for path in &paths {
        // The attributes files from the root down to the file's directory.
        let mut dirs_down = vec![""];
        dirs_down.extend(path.match_indices('/').map(|(i, _)| &path[..i]));
        for dir in &dirs_down {
            if !read.contains_key(*dir) {
                let mut files = Vec::new();
                for file in content.names_like(repo, dir, ".gitattributes")? {
                    if let Some(bytes) = content.plain_blob(repo, &file)? {
                        files.push(crate::git::AttributesFile::parse(dir, &file, &bytes));
                    }
                }
                read.insert((*dir).to_string(), files);
            }
        }
        let chain: Vec<&crate::git::AttributesFile> =
            dirs_down.iter().flat_map(|d| read[*d].iter()).collect();
        let found = crate::git::checkout_conversions(path, &chain);
        if let Some(e) = found.encoding {
            layer.fail(
                Some(path.clone()),
                format!(
                    "{}:{} gives this file working-tree-encoding={}: every checkout writes it \
                     re-encoded, so agents read text other than what the gate judged; remove \
                     the attribute for handoff and instruction files",
                    e.file, e.line, e.value
                ),
            );
        }
        // `git archive` fills in `$Format:…$` only: a file without one archives as judged.
        if let Some(o) = found.export_subst
            && content
                .plain_blob(repo, path)?
                .is_some_and(|text| text.windows(8).any(|w| w == b"$Format:"))
        {
            layer.fail(
                Some(path.clone()),
                format!(
                    "{}:{} gives this file export-subst and it holds `$Format:`: `git archive` \
                     (source downloads, release tarballs) replaces the placeholder with commit \
                     data the gate never judged; remove the attribute or the placeholder",
                    o.file, o.line
                ),
            );
        }
    }
    Ok(shown(layer))
}

/// The findings in a name the gate judges (review s23 #2): a changed path in a handoff
/// directory, at an agent instruction file or pulled in by one (every component of it:
/// a name is committed and published like a file's text, and shown to the agents that
/// list the directory), and the target of a symbolic link there (its blob's text). The
/// secret rules and the hidden-character rules judge them, with the configuration of the
/// handoff directory the path lies in.
fn name_problems(
    cfg: &LintConfig,
    path: &str,
    link: Option<&str>,
) -> Result<Vec<(String, Diagnostic)>> {
    let mut out = Vec::new();
    let name = if path.is_empty() {
        Vec::new()
    } else {
        lint::name_findings(cfg, path, path)?
    };
    for d in name {
        out.push(("its name".to_string(), d));
    }
    if let Some(target) = link {
        for d in lint::name_findings(cfg, path, target)? {
            out.push(("the target of this symbolic link".to_string(), d));
        }
    }
    Ok(out)
}

/// The `names` layer: [`name_problems`] for every path the change adds or alters where the
/// gate judges contents (at every level). `None` when no such path changed or none holds
/// a finding.
fn names_layer(
    repo: &Repo,
    scope: &GateScope,
    target: &Target,
    content: &Content<'_>,
    reads: &[Read],
    pulled: &std::collections::HashSet<String>,
    today: jiff::civil::Date,
) -> Result<Option<Layer>> {
    let mut layer = Layer::new("names");
    let mut configs: std::collections::HashMap<String, std::sync::Arc<LintConfig>> =
        std::collections::HashMap::new();
    let empty = LintConfig::empty(today);
    let mut n = 0;
    for change in &target.changes {
        let path = change.path.as_str();
        let dir = reads
            .iter()
            .find(|r| path.starts_with(&format!("{}/", r.dir.rel)));
        if change.kind == ChangeKind::Deleted
            || !(dir.is_some()
                || in_handoff_dir(scope, path)
                || lint::agents::is_agent_file(path)
                || pulled.contains(path))
        {
            continue;
        }
        n += 1;
        let cfg = match dir {
            Some(r) => {
                if !configs.contains_key(&r.dir.rel) {
                    let cfg = match &r.cfg {
                        Some(cfg) => std::sync::Arc::clone(cfg),
                        None => {
                            std::sync::Arc::new(LintConfig::from_snapshot(&r.dir, &r.snap, today)?)
                        }
                    };
                    configs.insert(r.dir.rel.clone(), cfg);
                }
                &*configs[&r.dir.rel]
            }
            None => &empty,
        };
        let link = content.link_text(repo, path)?;
        for (what, d) in name_problems(cfg, path, link.as_deref())? {
            let message = format!("{what} holds {} {}: {}", d.rule, d.name, d.message);
            if d.is_blocking() {
                layer.fail(Some(path.to_string()), message);
            } else {
                layer.warn(Some(path.to_string()), message);
            }
        }
    }
    // Shown only when it found something: every change has names, and a line per run
    // saying they were clean would only push the other layers down.
    if n == 0 || layer.findings.is_empty() {
        return Ok(None);
    }
    Ok(Some(layer.summarize(format!(
        "{n} changed name{} judged, no credential or hidden character",
        plural(n)
    ))))
}

/// The secrets a pushed range holds in its history (review 20 F06, review 21 F01). The tip
/// is judged whole, but every commit of a push or pull request reaches the remote: a
/// credential one commit adds and a later one removes is published all the same. Each
/// commit of the range is diffed against its first parent, and every file it adds or
/// changes in a handoff directory (any `.ai/handoff/`, or one configured) or at an agent
/// instruction file goes through the secret rules once per blob, with the configuration of
/// the directory the tip judges there (none elsewhere). A blob the tip holds at the same
/// path was judged with the tip. LOG-ARCHIVE.md grows by appending: where a commit's
/// archive starts with its parent's, only the appended part is judged. The cost follows
/// what the range's commits change.
fn history_layer(
    repo: &Repo,
    target: &Target,
    scope: &GateScope,
    dirs: &[(HandoffDir, LintConfig)],
    pulled: &std::collections::HashSet<String>,
    today: jiff::civil::Date,
) -> Result<Option<Layer>> {
    let (Source::Commit(tip), Some(_)) = (&target.source, &target.range) else {
        return Ok(None);
    };
    let base = target.base_commit;
    let tip = *tip;
    let mut layer = Layer::new("history");
    let mut seen: std::collections::HashSet<ObjectId> = std::collections::HashSet::new();
    let commits = repo.range_commits(base, tip)?;
    // A shallow clone hides the commits behind its boundary from the walk: judging the
    // commits it did reach would pass a credential one of the others added and removed.
    if let Some((commit, parent)) = repo.shallow_cut(base, &commits)? {
        let mut cut = Layer::new(SHALLOW_LAYER);
        cut.summary = "the range's commits cannot all be read in this clone".into();
        cut.fail(
            None,
            format!(
                "this clone is shallow and does not hold {}, a parent of {}: the range's \
                 commits behind it are not here to judge",
                Repo::short(parent),
                Repo::short(commit)
            ),
        );
        return Ok(Some(cut));
    }
    let empty = LintConfig::empty(today);
    let in_handoff = |path: &str| in_handoff_dir(scope, path);
    // Names judged once each (a path, a link's blob), those the tip holds included: a
    // name one commit adds and a later one renames away is published all the same.
    let mut names_seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let handoff_dir =
        |dir: &str| is_package_handoff(dir) || scope.known.iter().any(|d| d.rel == dir);
    for commit in &commits {
        let parent = repo.commit_parents(*commit)?.first().copied();
        for change in repo.commit_changes(parent, *commit)? {
            let path = change.path;
            if change.kind == ChangeKind::Deleted
                || !(in_handoff(&path)
                    || lint::agents::is_agent_file(&path)
                    || pulled.contains(&path))
            {
                continue;
            }
            let Some(file) = repo.tree_file_at(*commit, &path)? else {
                continue;
            };
            let cfg = dirs
                .iter()
                .find(|(d, _)| path.starts_with(&format!("{}/", d.rel)))
                .map_or(&empty, |(_, c)| c);
            // What the tip holds at the path the `names` layer judged.
            let at_tip = repo.tree_file_at(tip, &path)?;
            let new_name = at_tip.is_none() && names_seen.insert(path.clone());
            let new_link = file.is_link
                && at_tip.as_ref().is_none_or(|f| f.id != file.id)
                && seen.insert(file.id);
            if new_name || new_link {
                let link = if new_link {
                    Some(repo.link_target(file.id, &path)?)
                } else {
                    None
                };
                let name = if new_name { path.as_str() } else { "" };
                let judged = name_problems(cfg, name, link.as_deref())?;
                for (what, d) in judged.iter().filter(|(_, d)| d.is_blocking()) {
                    layer.fail(
                        Some(path.clone()),
                        format!(
                            "commit {} holds a name here ({what}) with {} {}: {}. Every \
                             commit of the range is published: rewrite the commits that \
                             hold it and revoke any credential",
                            Repo::short(*commit),
                            d.rule,
                            d.name,
                            d.message
                        ),
                    );
                }
            }
            if file.is_link || !seen.insert(file.id) {
                continue;
            }
            if repo
                .tree_file_at(tip, &path)?
                .is_some_and(|f| f.id == file.id)
            {
                continue;
            }
            let Ok(bytes) = repo.blob_within(file.id, crate::handoff::max_bytes(&path))? else {
                layer.fail(
                    Some(path.clone()),
                    format!(
                        "commit {} holds a version of this file too large to judge: its \
                         credentials, if any, would be published unjudged. Rewrite the \
                         commits that hold it, or split the file",
                        Repo::short(*commit)
                    ),
                );
                continue;
            };
            // Only what a handoff directory's archive appended since its parent is new in
            // this commit, from the start of the last two lines the parent ended with: a
            // credential split across two appends is whole there (review 22).
            let is_archive = path.rsplit_once('/').is_some_and(|(dir, name)| {
                name == crate::handoff::log::ARCHIVE_FILE && handoff_dir(dir)
            });
            let appended_from = match parent {
                Some(p) if is_archive => repo
                    .tree_file_at(p, &path)?
                    .filter(|f| !f.is_link)
                    // The parent's version is no larger than this one when it is a prefix.
                    .and_then(|f| repo.blob_within(f.id, bytes.len()).ok()?.ok())
                    .filter(|old| bytes.starts_with(old))
                    .map_or(0, |old| {
                        let mut from = old.len();
                        for _ in 0..2 {
                            from = memchr::memrchr(b'\n', &old[..from.saturating_sub(1)])
                                .map_or(0, |i| i + 1);
                        }
                        from
                    }),
                _ => 0,
            };
            let lines_before = memchr::memchr_iter(b'\n', &bytes[..appended_from]).count();
            let found = lint::secrets_in(cfg, &path, &bytes[appended_from..])?;
            let (approved, blocking): (Vec<&Diagnostic>, Vec<&Diagnostic>) = found
                .iter()
                .filter(|d| d.severity == lint::Severity::Error)
                .partition(|d| d.suppressed_by.is_some());
            // An allowlist entry of the tip approves the value the tip or the base holds at
            // this path, not another of the same redacted form (review s25 #2).
            let unheld = if approved.is_empty() {
                Vec::new()
            } else {
                let text = String::from_utf8_lossy(&bytes[appended_from..]);
                let at = |c: Option<ObjectId>| -> Result<String> {
                    Ok(match c {
                        Some(c) => base_file(repo, c, &path)?.unwrap_or_default(),
                        None => String::new(),
                    })
                };
                let not_at_tip = swapped_secrets(&text, &at(Some(tip))?, &approved);
                swapped_secrets(&text, &at(base)?, &not_at_tip)
            };
            for d in blocking.into_iter().chain(unheld) {
                layer.fail(
                    Some(format!("{path}:{}", d.line + lines_before)),
                    format!(
                        "commit {} holds a credential here ({} {}) that the range's last \
                         commit no longer holds: every commit of the range is published, so \
                         it is published too. Rewrite the commits that hold it (`git rebase \
                         -i {}`) and revoke the credential",
                        Repo::short(*commit),
                        d.rule,
                        d.name,
                        base.map_or_else(|| "--root".to_string(), Repo::short)
                    ),
                );
            }
        }
    }
    let n = commits.len();
    Ok(Some(layer.summarize(format!(
        "no credential in the range's {n} commit{} that its last one dropped",
        plural(n)
    ))))
}

/// Handoff directories the base holds and the target no longer does (the change deletes
/// files below them and the target holds nothing there): the gate could judge neither
/// their tasks nor the code they governed, so such a change fails (fail closed). One
/// removed directory beside one new directory (which the base does not hold) is a move:
/// its tasks are then judged against the base's manifest at the old place, and nothing
/// fails here.
fn removed_dirs(
    repo: &Repo,
    scope: &GateScope,
    target: &Target,
    content: &Content<'_>,
) -> Result<Removal> {
    // The handoff directory a path lies in: a known one, or any `.ai/handoff`.
    let handoff_of = |path: &str| -> Option<String> {
        if let Some(d) = scope
            .known
            .iter()
            .find(|d| path.starts_with(&format!("{}/", d.rel)))
        {
            return Some(d.rel.clone());
        }
        // The innermost one, as a changed path belongs to the nearest package.
        let at = match path.rfind(&format!("/{DEFAULT_DIR}/")) {
            Some(i) => i + 1,
            None if path.starts_with(&format!("{DEFAULT_DIR}/")) => 0,
            None => return None,
        };
        Some(path[..at + DEFAULT_DIR.len()].to_string())
    };
    let mut removed = std::collections::BTreeSet::new();
    let mut added = std::collections::BTreeSet::new();
    for c in &target.changes {
        match (c.kind, handoff_of(&c.path)) {
            (ChangeKind::Deleted, Some(dir)) => {
                removed.insert(dir);
            }
            (ChangeKind::Added, Some(dir)) => {
                added.insert(dir);
            }
            _ => {}
        }
    }
    // Gone: the target holds nothing there. New: the base held nothing there.
    let mut gone = Vec::new();
    for dir in removed {
        if !content.holds(repo, &dir)? {
            gone.push(dir);
        }
    }
    let mut new = Vec::new();
    for dir in added {
        let at_base = match target.base_commit {
            Some(base) => repo.tree_has_dir(base, &dir)?,
            None => false,
        };
        if !at_base {
            new.push(dir);
        }
    }
    if let ([from], [to]) = (gone.as_slice(), new.as_slice()) {
        return Ok(Removal::Moved {
            from: from.clone(),
            to: to.clone(),
        });
    }
    if gone.is_empty() {
        return Ok(Removal::None);
    }
    Ok(Removal::Removed(removed_layer(&gone)))
}

/// The changes (indices into `target.changes`) that the base's handoff directory `from`
/// governed and that the target, with the directory moved to `to`, leaves to no directory or
/// to another one (session 30 #3): the root's code, with the root's directory moved into a
/// package. They are judged with the moved directory (its drift needs its STATUS.md and
/// manifest updated), as the base's directory would have judged them; the directory's own
/// files, moved with it, are not code.
fn left_by_move(
    repo: &Repo,
    scope: &GateScope,
    target: &Target,
    owners: &location::Owners,
    from: &str,
    to: &str,
) -> Result<Vec<usize>> {
    let Some(base) = target.base_commit else {
        return Ok(Vec::new());
    };
    let paths: Vec<&str> = target.changes.iter().map(|c| c.path.as_str()).collect();
    let at_base = location::owners(repo, &paths, &scope.known, true, |pkg| {
        Ok(repo.tree_has_dir(base, &location::join(pkg, DEFAULT_DIR))?)
    })?;
    let inside = format!("{from}/");
    Ok((0..paths.len())
        .filter(|&i| {
            !paths[i].starts_with(&inside)
                && at_base.owner[i]
                    .iter()
                    .any(|d| at_base.dirs[*d].rel == from)
                && !owners.owner[i].iter().any(|d| owners.dirs[*d].rel == to)
        })
        .collect())
}

/// Fails a change that puts a file (a symbolic link, say) where a handoff directory or its
/// `.ai` belongs: the tree then holds no directory there, so which code it governs depends
/// on who resolves the link (the working tree follows it, a commit's tree does not), and
/// the gate cannot judge it the same way everywhere (fail closed).
fn linked_dir_layer(scope: &GateScope, target: &Target) -> Option<Layer> {
    let dir_like = |p: &str| {
        let ai = DEFAULT_DIR.split('/').next().unwrap_or(DEFAULT_DIR);
        p == DEFAULT_DIR
            || p.ends_with(&format!("/{DEFAULT_DIR}"))
            || p == ai
            || p.ends_with(&format!("/{ai}"))
            || scope.known.iter().any(|d| d.rel == p)
    };
    let linked: Vec<&Change> = target
        .changes
        .iter()
        .filter(|c| c.kind != ChangeKind::Deleted && dir_like(&c.path))
        .collect();
    if linked.is_empty() {
        return None;
    }
    let mut layer = Layer::new(LINKED_LAYER);
    for c in linked {
        layer.fail(
            Some(c.path.clone()),
            format!(
                "the {} holds a file, a symbolic link or a submodule where a handoff directory \
                 belongs: the gate judges the directory a tree holds, a link is followed by the \
                 working tree but not by a commit, and a submodule's files come from another \
                 repository; make it a directory",
                target.source.describe()
            ),
        );
    }
    Some(layer.summarize(""))
}

/// Every file, symbolic link and submodule of the tip's tree, by path (`ci` only: see
/// [`Target::whole`]).
fn walk_tip(repo: &Repo, tip: ObjectId) -> Result<Vec<(String, EntryKind)>> {
    let mut out = Vec::new();
    repo.walk_tree(tip, &mut |path, _, kind| {
        if kind != EntryKind::File || lint::agents::pulls_in_files(&String::from_utf8_lossy(path)) {
            out.push((String::from_utf8_lossy(path).into_owned(), kind));
        }
    })?;
    Ok(out)
}

/// True when an entry of `kind` at `path` stands in for instruction files the gate would
/// never judge by their own paths (review s25 #7, #8): a submodule where instruction files
/// or their directories belong (a checkout fills it with another repository's files), and a
/// symbolic link at such a directory (the agent reads the files below its target, which
/// the gate judges as ordinary files). A link at an instruction file's own path is read
/// through ([`Content::read_agent_file`]).
pub(crate) fn stands_in_for_instructions(path: &str, kind: EntryKind) -> bool {
    match kind {
        EntryKind::File => false,
        EntryKind::Gitlink => {
            lint::agents::is_instruction_dir(path) || lint::agents::is_agent_file(path)
        }
        EntryKind::Link => {
            lint::agents::is_instruction_dir(path) && !lint::agents::is_agent_file(path)
        }
    }
}

/// The `instruction-links` layer: fails every path where [`stands_in_for_instructions`]
/// holds. Looked for at the paths the change adds or alters, at the instruction
/// directories of the root and the package roots (one lookup each: the hook's cost does not
/// grow with the repository), and, when the target says so (`ci`), in the tip's whole tree
/// (`walked`). `None` when there is none.
fn instruction_links_layer(
    repo: &Repo,
    target: &Target,
    content: &Content<'_>,
    roots: &[String],
    walked: &[(String, EntryKind)],
) -> Result<Option<Layer>> {
    let mut found: std::collections::BTreeMap<String, EntryKind> =
        std::collections::BTreeMap::new();
    for c in target
        .changes
        .iter()
        .filter(|c| c.kind != ChangeKind::Deleted)
    {
        if (lint::agents::is_instruction_dir(&c.path) || lint::agents::is_agent_file(&c.path))
            && let Some(kind) = content.kind_at(repo, &c.path)?
            && stands_in_for_instructions(&c.path, kind)
        {
            found.insert(c.path.clone(), kind);
        }
    }
    for root in roots {
        for path in lint::agents::instruction_dirs_at(root) {
            if let Some(kind) = content.kind_at(repo, &path)?
                && stands_in_for_instructions(&path, kind)
            {
                found.insert(path, kind);
            }
        }
    }
    for (path, kind) in walked {
        if stands_in_for_instructions(path, *kind) {
            found.insert(path.clone(), *kind);
        } else if *kind == EntryKind::Link && lint::agents::is_agent_file(path) {
            // Read through: a link to a directory is refused there.
            content.read_agent_file(repo, path)?;
        }
    }
    if found.is_empty() {
        return Ok(None);
    }
    let mut layer = Layer::new(INSTRUCTION_LINKS_LAYER);
    for (path, kind) in found {
        layer.fail(
            Some(path),
            format!(
                "in the {}, this path {}",
                target.source.describe(),
                stand_in_problem(kind)
            ),
        );
    }
    Ok(Some(layer.summarize("")))
}

/// Why an entry [`stands_in_for_instructions`] is refused, after its path.
pub(crate) fn stand_in_problem(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Gitlink => {
            "is a git submodule where agent instruction files belong: the files a checkout \
             puts there are another repository's, and cannot be judged here"
        }
        _ => {
            "is a symbolic link where a directory of agent instruction files belongs (or a \
             directory on the way to one): the agent reads the files below its target as \
             instructions, which the gate would judge by their own paths as ordinary files. \
             Commit the files themselves there"
        }
    }
}

/// The failed layer naming handoff directories a change removes.
fn removed_layer(removed: &[String]) -> Layer {
    let mut layer = Layer::new(REMOVED_LAYER);
    for dir in removed {
        layer.fail(
            Some(dir.clone()),
            "the change removes this handoff directory, which the base holds: its tasks and \
             the code it governs can no longer be judged. Keep it (to move it, move the whole \
             directory in one change, so its tasks are judged at the new place); if removing \
             the handoff is deliberate, remove the gate from CI and the hooks in the same change"
                .to_string(),
        );
    }
    layer.summarize("")
}

/// What a change did to the handoff directories its base holds ([`removed_dirs`]).
enum Removal {
    /// Every one is still there.
    None,
    /// One moved, whole: judged at `to` against the base's directory at `from`.
    Moved { from: String, to: String },
    /// Some are gone: the failed layer naming them.
    Removed(Layer),
}

/// Fails changes in a handoff directory the gate was not told about (review s25 #6): a
/// directory along a changed path, outside every judged one, that holds an AAHP
/// `MANIFEST.json`. `aahp.dir` is git configuration, which no clone and no CI job carries,
/// so a directory named there is judged in one clone and passed unread everywhere else.
/// Only the directories along the changed paths are looked at, each once.
fn unknown_dirs_layer(
    repo: &Repo,
    content: &Content<'_>,
    target: &Target,
    reads: &[Read],
) -> Result<Option<Layer>> {
    let judged = |d: &str| {
        reads
            .iter()
            .any(|r| d == r.dir.rel || d.starts_with(&format!("{}/", r.dir.rel)))
    };
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut layer = Layer::new(DISCOVERY_LAYER);
    for c in target
        .changes
        .iter()
        .filter(|c| c.kind != ChangeKind::Deleted)
    {
        let mut at = c.path.as_str();
        while let Some((dir, _)) = at.rsplit_once('/') {
            at = dir;
            if !seen.insert(dir) || judged(dir) {
                continue;
            }
            if let Some(spelled) = handoff_in_another_case(dir, reads) {
                layer.fail(
                    Some(c.path.clone()),
                    format!(
                        "{}/ is the handoff directory {}/ spelled in another letter case: a \
                         case-insensitive checkout (macOS, Windows) writes {} into {}/, where \
                         agents read it as handoff content the gate did not judge as such; \
                         move it into {}/ as spelled, or out of the handoff directory",
                        escape_untrusted(dir),
                        escape_untrusted(&spelled),
                        escape_untrusted(&c.path),
                        escape_untrusted(&spelled),
                        escape_untrusted(&spelled)
                    ),
                );
                continue;
            }
            let manifest = location::join(dir, MANIFEST);
            let holds_aahp = match content {
                // A regular file only (a FIFO is never waited on), read within the limit.
                Content::Worktree(_) => {
                    let abs = repo.workdir().join(&manifest);
                    match std::fs::symlink_metadata(&abs) {
                        Ok(m) if m.is_file() => Some(read_limited(&abs, &manifest)?),
                        _ => None,
                    }
                }
                _ => content.plain_blob(repo, &manifest)?,
            }
            .is_some_and(|b| memchr::memmem::find(&b, b"\"aahp_version\"").is_some());
            if holds_aahp {
                layer.fail(
                    Some(manifest.clone()),
                    format!(
                        "{}/ is an AAHP handoff directory the gate was not told about, so the \
                         change to {} would pass unjudged (`aahp.dir` is git configuration, \
                         which clones and CI jobs do not carry): name it where the gate runs \
                         (`--dir {}`, or `git config --add aahp.dir {}` in the CI job and each \
                         clone), or move it to a `.ai/handoff` directory, which is found \
                         everywhere",
                        escape_untrusted(dir),
                        escape_untrusted(&c.path),
                        crate::output::shell_word(dir),
                        crate::output::shell_word(dir)
                    ),
                );
            }
        }
    }
    Ok(shown(layer))
}

/// The handoff directory `dir` stands for on a case-insensitive file system when it is
/// spelled otherwise (`.AI/handoff`, `pkg/.ai/HANDOFF`, a judged directory in another
/// case, `ſ` for `s`): the spelling it should have. `None` for every other directory.
fn handoff_in_another_case(dir: &str, reads: &[Read]) -> Option<String> {
    let folded = lint::agents::fold_case(dir);
    if let Some(r) = reads
        .iter()
        .find(|r| r.dir.rel != dir && lint::agents::fold_case(&r.dir.rel) == folded)
    {
        return Some(r.dir.rel.clone());
    }
    // `.ai/handoff` is two components: the last two of `dir`, and what lies above them.
    let mut parts = dir.rsplitn(3, '/');
    let (name, up) = (parts.next()?, parts.next()?);
    let last = format!("{up}/{name}");
    (last != DEFAULT_DIR && lint::agents::fold_case(&last) == DEFAULT_DIR).then(|| {
        parts
            .next()
            .map_or_else(|| DEFAULT_DIR.to_string(), |p| format!("{p}/{DEFAULT_DIR}"))
    })
}

/// Fails the changes whose directory's name is not valid UTF-8 (git's bytes, shown with
/// U+FFFD): discovery finds packages by name, so whether such a directory is a package with
/// its own `.ai/handoff/` cannot be told, and a change there would otherwise pass unjudged
/// (a staged injection in that package's STATUS.md included). One finding per directory.
fn unplaced_layer(paths: &[&str]) -> Option<Layer> {
    let dirs: std::collections::BTreeSet<&str> = paths
        .iter()
        .map(|p| p.rsplit_once('/').map_or("", |(d, _)| d))
        .filter(|d| d.contains('\u{fffd}'))
        .collect();
    if dirs.is_empty() {
        return None;
    }
    let mut layer = Layer::new(DISCOVERY_LAYER);
    for d in dirs {
        layer.fail(
            Some(d.to_string()),
            format!(
                "{}/: changed files lie in a directory whose name is not valid UTF-8; the gate cannot tell whether it is a package with its own handoff directory, so it does not pass them unjudged: rename it to valid UTF-8",
                escape_untrusted(d)
            ),
        );
    }
    Some(layer.summarize(""))
}

/// The lint of agent instruction files, as a layer of its own.
fn instructions_layer(
    cfg: &LintConfig,
    files: &[&(Option<String>, String, Vec<u8>)],
    scripts: &std::collections::HashSet<String>,
) -> Result<(Layer, Vec<Diagnostic>, Vec<Diagnostic>)> {
    // An image or archive bundled with a skill, or named by an import, is judged by its
    // readable text, as one in a handoff directory is (review 21).
    type Held<'a> = &'a (Option<String>, String, Vec<u8>);
    let (binary, text): (Vec<Held<'_>>, Vec<Held<'_>>) = files
        .iter()
        .copied()
        .partition(|(_, path, bytes)| lint::is_binary_file(path, bytes));
    let files: Vec<LintFile<'_>> = text
        .iter()
        .map(|(_, path, bytes)| LintFile {
            script: scripts.contains(path),
            path: path.clone(),
            name: lint::agents::lint_name(path, bytes),
            bytes,
        })
        .collect();
    let mut outcome = lint::lint(cfg, &files)?;
    for (_, path, bytes) in &binary {
        outcome
            .diagnostics
            .extend(lint::binary_file_secrets(cfg, path, bytes)?);
    }
    // The configuration's own findings belong to the handoff directory's lint layer; the
    // binary files' findings are this layer's as much as the text files'.
    let mine = |d: &Diagnostic| {
        files.iter().any(|f| f.path == d.path) || binary.iter().any(|(_, p, _)| *p == d.path)
    };
    outcome.diagnostics.retain(mine);
    outcome.suppressed.retain(mine);
    let n = files.len() + binary.len();
    let layer = lint_layer("instructions", &outcome.diagnostics).summarize(format!(
        "{n} agent instruction file{} changed, no findings",
        plural(n)
    ));
    Ok((layer, outcome.diagnostics, outcome.suppressed))
}

/// What a lint thread answers: its findings, or the panic it met.
type LintAnswer = std::thread::Result<Result<LintFound>>;

/// What a lint of a snapshot found: the findings that count, and those an allow marker or
/// an allowlist entry suppressed (judged against the base at `prepush`/`ci`).
type LintFound = (Vec<Diagnostic>, Vec<Diagnostic>);

/// The lint of one snapshot: the costliest layer, needing nothing from the others, so it
/// runs on its own thread while they are judged. The thread hands its result over a channel
/// and is not joined: freeing its memory (regex caches, the snapshot copy) is no reason to
/// keep the hook waiting, and process exit ends it.
struct LintJob(Option<std::sync::mpsc::Receiver<LintAnswer>>);

/// What a lint thread is handed: the snapshot, and its lint configuration when that was read
/// already.
type LintWork = (std::sync::Arc<Snapshot>, Option<std::sync::Arc<LintConfig>>);

/// A lint thread started before its snapshot is read, so that starting it overlaps the reads.
struct PendingLint {
    snap: Option<std::sync::mpsc::SyncSender<LintWork>>,
    answer: std::sync::mpsc::Receiver<LintAnswer>,
}

impl PendingLint {
    /// Starts a thread that waits for a snapshot of `dir` and lints it.
    fn start(dir: &HandoffDir, today: jiff::civil::Date) -> PendingLint {
        let dir = dir.clone();
        let (snap_tx, snap_rx) = std::sync::mpsc::sync_channel::<LintWork>(1);
        let (tx, answer) = std::sync::mpsc::sync_channel(1);
        let work = move || {
            // No snapshot comes when reading it failed: nothing to do.
            let Ok((snap, cfg)) = snap_rx.recv() else {
                return;
            };
            let lint = std::panic::AssertUnwindSafe(|| {
                match &cfg {
                    Some(cfg) => lint::lint_snapshot_with(cfg, &dir, &snap, &[]),
                    None => lint::lint_snapshot(&dir, &snap, today, &[]),
                }
                .map(|outcome| (outcome.diagnostics, outcome.suppressed))
            });
            let _ = tx.send(std::panic::catch_unwind(lint));
        };
        // The lint's warm-up thread takes the first (it built the rules the lint needs and
        // has its allocator arena already); another gets a plain thread. Either blocks on
        // its snapshot at once, and where it then runs is decided when the snapshot wakes it
        // (the scheduler looks for an idle CPU on a wake-up, unlike on a thread's start: see
        // `crate::sched`).
        let started = match lint::on_warm_thread(Box::new(work)) {
            Ok(()) => true,
            Err(work) => std::thread::Builder::new()
                .name("lint".into())
                .spawn(work)
                .is_ok(),
        };
        PendingLint {
            snap: started.then_some(snap_tx),
            answer,
        }
    }

    /// Hands the thread its snapshot, with the snapshot's lint configuration when it was read
    /// already. A thread that could not be spawned only loses the overlap: [`LintJob::join`]
    /// lints in place.
    fn submit(
        self,
        snap: &std::sync::Arc<Snapshot>,
        cfg: Option<std::sync::Arc<LintConfig>>,
    ) -> LintJob {
        match self.snap {
            Some(tx) if tx.send((std::sync::Arc::clone(snap), cfg)).is_ok() => {
                LintJob(Some(self.answer))
            }
            _ => LintJob(None),
        }
    }
}

impl LintJob {
    fn spawn(
        dir: &HandoffDir,
        snap: &std::sync::Arc<Snapshot>,
        today: jiff::civil::Date,
    ) -> LintJob {
        PendingLint::start(dir, today).submit(snap, None)
    }

    fn join(
        self,
        dir: &HandoffDir,
        snap: &Snapshot,
        today: jiff::civil::Date,
    ) -> Result<LintFound> {
        match self.0.map(|rx| rx.recv()) {
            Some(Ok(Ok(result))) => result,
            // The lint panicked: a bug, raised here as it would have been in place.
            Some(Ok(Err(panic))) => std::panic::resume_unwind(panic),
            // No thread, or one that ended without an answer: lint in place.
            None | Some(Err(_)) => lint::lint_snapshot(dir, snap, today, &[])
                .map(|outcome| (outcome.diagnostics, outcome.suppressed)),
        }
    }
}

/// A directory to judge, and where the base holds it (elsewhere when the change moves it).
#[derive(Clone, Copy)]
struct Judged<'a> {
    dir: &'a HandoffDir,
    base_rel: &'a str,
}

/// True for a directory laid out as a package's handoff directory (`.ai/handoff`, at the
/// root or below a package).
fn is_package_handoff(rel: &str) -> bool {
    rel == DEFAULT_DIR || rel.ends_with(&format!("/{DEFAULT_DIR}"))
}

/// Fails the pre-commit check when a sparse index holds a handoff directory the change
/// answers to, or part of a known one, as a single entry outside the sparse checkout
/// (review 20 F04, review 21 F04, F12): the files below it are not in the index, so the
/// directory would look absent (and the change pass unjudged) or hold a "file" named like a
/// directory. A changed path answers to the nearest `.ai/handoff` among its directories, as
/// discovery places it; a folded one farther up (another package's, the root's in a
/// monorepo) is not this change's. Looked up along each changed path, so the cost follows
/// the change.
fn refuse_sparse_handoff(
    repo: &Repo,
    index: &gix::index::State,
    scope: &GateScope,
    changes: &[Change],
) -> Result<()> {
    let refuse = |sparse: &str, dir: &str| {
        Err(Error::Declined {
            reason: format!(
                "the index is sparse and holds {} as one entry, outside the sparse checkout: \
                 the handoff directory {} cannot be judged before this commit",
                escape_untrusted(sparse),
                escape_untrusted(dir)
            ),
            hint: "bring the handoff directory into the sparse checkout (`git \
                   sparse-checkout add DIR`), or turn the sparse index off (`git \
                   sparse-checkout init --no-sparse-index`), and commit again",
        })
    };
    // The folded entry that holds a handoff directory at `dir`: only when the tree it stands
    // for has one there (review 22: a folded `.ai/` of prompt files is no handoff).
    let folded = |dir: &str| -> Result<Option<String>> {
        let Some((sparse, tree)) = Repo::index_sparse_dir_holding(index, dir) else {
            return Ok(None);
        };
        let rest = dir.strip_prefix(sparse.as_str()).unwrap_or("");
        Ok(repo.tree_holds_dir(tree, rest)?.then_some(sparse))
    };
    for d in &scope.known {
        if let Some(sparse) = Repo::index_sparse_dir_within(index, &d.rel) {
            return refuse(&sparse, &d.rel);
        }
        // A directory configured elsewhere than a package's `.ai/handoff` owns what the
        // configuration says: any change may answer to it.
        if !changes.is_empty()
            && !is_package_handoff(&d.rel)
            && let Some(sparse) = folded(&d.rel)?
        {
            return refuse(&sparse, &d.rel);
        }
    }
    let mut walked: std::collections::HashSet<String> = std::collections::HashSet::new();
    for c in changes {
        let mut at = c.path.as_str();
        loop {
            let parent = at.rsplit_once('/').map_or("", |(p, _)| p);
            let dir = crate::handoff::location::join(parent, DEFAULT_DIR);
            if !walked.insert(dir.clone()) {
                break;
            }
            if Repo::index_has_dir(index, &dir) {
                // Held, but a subdirectory of it may be folded (review 22).
                if let Some(sparse) = Repo::index_sparse_dir_within(index, &dir) {
                    return refuse(&sparse, &dir);
                }
                break;
            }
            if let Some(sparse) = folded(&dir)? {
                return refuse(&sparse, &dir);
            }
            if parent.is_empty() {
                break;
            }
            at = parent;
        }
    }
    Ok(())
}

/// Runs every layer on one snapshot.
fn judge(
    repo: &Repo,
    judged: Judged<'_>,
    snap: &Snapshot,
    target: &Target,
    owned: &[&Change],
    today: jiff::civil::Date,
    lint_job: LintJob,
) -> Result<(Vec<Layer>, Vec<Diagnostic>, Vec<Diagnostic>)> {
    let dir = judged.dir;
    let manifest_path = dir.path_of(MANIFEST);
    let mut layers = Vec::new();

    // 1. Schema. A manifest that is not JSON cannot be judged at all: exit 2.
    let manifest = Manifest::from_snapshot(dir, snap)?;
    let mut schema = Layer::new("schema");
    match &manifest {
        None => schema.fail(
            Some(manifest_path.clone()),
            format!("no {MANIFEST} in the {}", target.source.describe()),
        ),
        Some(m) => {
            for e in crate::schema::validate_manifest(&serde_json::Value::Object(m.doc.clone())) {
                schema.fail(Some(manifest_path.clone()), e);
            }
        }
    }
    layers.push(schema.summarize(format!("{MANIFEST} matches the schema")));
    layers.extend(required_layer(dir, snap, target));

    // 2. Checksums against the same content.
    let mut committed = CommittedManifests::default();
    let mut sums = Layer::new("checksums");
    if let Some(m) = &manifest {
        let known = unread_checksums(repo, dir, snap, Some(m), &mut committed)?;
        let checks = m.check_files_with(snap, &known);
        let total = checks.len();
        for c in checks {
            let path = Some(dir.path_of(&c.name));
            match c.state {
                FileState::Ok => {}
                FileState::Changed => sums.fail(
                    path,
                    format!(
                        "content changed since the manifest (manifest {}, file {})",
                        short_sum(c.expected.as_deref()),
                        short_sum(c.actual.as_deref())
                    ),
                ),
                FileState::Missing => sums.fail(path, "indexed in the manifest but missing"),
                FileState::Unindexed => sums.fail(path, "present but not indexed in the manifest"),
            }
        }
        layers.push(sums.summarize(format!("{total} files match the manifest")));
    } else {
        layers.push(sums.skip("no manifest"));
    }

    // 3. Lint: its layer is placed here once the lint (on its own thread) is joined below.
    let lint_at = layers.len();

    // 4. Drift: code changed within the package requires STATUS.md and MANIFEST.json to change.
    // A moved directory's files all lie at new paths: one the move left as the base held
    // it at the old place is no update (session 30 #3).
    let mut kept_by_move = Vec::new();
    if let Some(base) = target.base_commit
        && judged.base_rel != dir.rel
    {
        for name in ["STATUS.md", MANIFEST] {
            let before = base_file(repo, base, &location::join(judged.base_rel, name))?;
            let now = snap.files.get(name).map(|b| String::from_utf8_lossy(b));
            if before.is_some() && before.as_deref() == now.as_deref() {
                kept_by_move.push(name);
            }
        }
    }
    layers.push(drift_layer(dir, owned, &target.changes, &kept_by_move));

    // 5. The lock never enters a commit.
    let mut lock = Layer::new("lock");
    let lock_path = dir.path_of(LOCK);
    let tracked: Vec<String> = match target.source {
        Source::Worktree => Repo::index_dir(&*repo.index()?, &dir.rel)
            .into_iter()
            .map(|e| e.name)
            .collect(),
        _ => snap
            .files
            .keys()
            .chain(snap.streamed.keys())
            .chain(snap.unread.keys())
            .cloned()
            .collect(),
    };
    if tracked.iter().any(|n| n == LOCK) {
        lock.fail(
            Some(lock_path),
            "HANDOFF.lock is staged or committed; it must never enter a commit",
        );
    }
    // Nor do the temporary files of a write (debris of one that was killed, which
    // `git add -A` would stage).
    for name in tracked.iter().filter(|n| crate::handoff::is_temp_name(n)) {
        lock.fail(
            Some(dir.path_of(name)),
            "a temporary file of git-aahp is staged or committed (left by an interrupted write); remove it from the index (`git rm --cached`), then run `git aahp recover`",
        );
    }
    layers.push(lock.summarize("HANDOFF.lock is not committed"));

    // 6. Tasks in the base manifest are not silently dropped; next_task_id never decreases.
    layers.push(tasks_layer(
        repo,
        judged,
        manifest.as_ref(),
        target.base_commit,
        &target.other_parents,
        &mut committed,
    )?);

    // 7. The log archive matches its index.
    layers.push(archive_layer(repo, judged, snap, target.base_commit)?);
    layers.extend(journal_layer(
        repo,
        judged,
        snap,
        target.base_commit,
        &target.other_parents,
    )?);

    // 8. Trust: every verified claim, by its check or its date; blocking only where
    //    `trustTtl.enforce` asks for it, and never before a commit.
    let checksums_hold = layers
        .iter()
        .any(|l| l.layer == "checksums" && l.status == LayerStatus::Pass);
    layers.push(trust_layer(
        repo,
        dir,
        snap,
        &target.source,
        checksums_hold,
        today,
    )?);

    // 9. Advisory: the commit pointer, provenance.
    let mut advisory = advisory_layer(repo, manifest.as_ref());
    provenance_warnings(repo, dir, snap, target.base_commit, &mut advisory)?;
    layers.push(advisory);

    // The lint ran beside every other layer; join it last.
    let (diagnostics, suppressed) = lint_job.join(dir, snap, today)?;
    layers.insert(
        lint_at,
        lint_layer("lint", &diagnostics).summarize("no findings"),
    );
    Ok((layers, diagnostics, suppressed))
}

/// The `suppressions` layer (`prepush`, `ci`; review s23 #12): what the range itself does
/// to keep its own text from being judged. A pull request could add an allowlist entry for
/// its own secret, an inline `aahp:allow` over its own injection, or delete the `.aiignore`
/// secrets pattern its text matches, and the gate passed without a word.
///
/// Shown only when it finds something.
///
/// - A finding suppressed by an allowlist entry (or PII allowlist) the base does not hold
///   as it is, or by an inline marker the base's version of the file does not hold, is a
///   warning naming the rule and the suppression: the suppression still counts (the
///   allowlist is the documented way to accept a finding), but the reviewer sees it in the
///   run's log and annotations. Entries and markers the base holds suppress silently.
///   Before a commit the base is HEAD (none for the first commit: every suppression is
///   new), and the hook says the warning: a commit that added a secret with the entry that
///   approves it passed the hook without a word (review atk42 #2).
/// - Text of a file the range changes that a pattern of the base's `.aiignore` matches (any
///   section: secrets, injections, a project's code names), and the head's no longer does
///   (the range removed the pattern or added an exception over it), fails where the base's
///   pattern is an error and warns where it warns: the base's own definition of what must
///   never appear still applies to the range that changes it.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site; the directory's reads, the range and the instruction files are distinct"
)]
fn suppressions_layer(
    repo: &Repo,
    judged: Judged<'_>,
    snap: &Snapshot,
    owned: &[&Change],
    base: Option<ObjectId>,
    suppressed: &[Diagnostic],
    instructions: &[&(Option<String>, String, Vec<u8>)],
    ranged: bool,
    today: jiff::civil::Date,
) -> Result<Option<Layer>> {
    let dir = judged.dir;
    let mut layer = Layer::new("suppressions");
    // A file of the base by its repository path (none without a base).
    let at_base = |path: &str| match base {
        Some(base) => base_file(repo, base, path),
        None => Ok(None),
    };
    let base_text = |rel: &str| at_base(&location::join(judged.base_rel, rel));
    // An instruction file judged with this directory's configuration, by its path.
    let instruction = |path: &str| {
        instructions
            .iter()
            .find(|(_, p, _)| p == path)
            .map(|(_, _, b)| b)
    };
    let allow_path = dir.path_of(lint::allow::ALLOWLIST);
    let pii_path = dir.path_of(lint::allow::PII_ALLOWLIST);
    // Read only when a finding needs them: the pre-commit hook runs this layer too.
    let mut base_allow: Option<Vec<lint::allow::AllowEntry>> = None;
    let mut base_pii: Option<Option<String>> = None;
    let head_pii = snap
        .get(lint::allow::PII_ALLOWLIST)
        .map(|b| String::from_utf8_lossy(b).into_owned());
    let mut markers: std::collections::HashMap<String, MarkerIndex> =
        std::collections::HashMap::new();
    // Secrets an entry the base holds suppresses, by file: each must be a value the base's
    // version of the file holds (review s25 #2).
    let mut held_secrets: std::collections::BTreeMap<&str, Vec<&Diagnostic>> =
        std::collections::BTreeMap::new();
    for d in suppressed {
        let Some(by) = d.suppressed_by.as_deref() else {
            continue;
        };
        let new = if by.starts_with(&format!("{allow_path}: ")) {
            // The entry as the base holds it: same rule, fingerprint, reason, owner and
            // expiry (a base file that does not parse holds none).
            let entries = match (&base_allow, base) {
                (Some(e), _) => e,
                (None, Some(base)) => {
                    base_allow.insert(base_allowlist(repo, base, dir, judged.base_rel, today)?)
                }
                (None, None) => base_allow.insert(Vec::new()),
            };
            let held = entries.iter().any(|e| {
                e.rule == d.rule && e.fingerprint == d.fingerprint && e.described(&allow_path) == by
            });
            if held && d.fingerprint.starts_with("v2:") {
                held_secrets.entry(d.path.as_str()).or_default().push(d);
            }
            !held
        } else if by.starts_with(&format!("{pii_path}: ")) {
            if base_pii.is_none() {
                base_pii = Some(base_text(lint::allow::PII_ALLOWLIST)?);
            }
            base_pii.as_ref().is_some_and(|b| *b != head_pii)
        } else if let Some(reason) = by.strip_prefix("inline allow: ") {
            inline_is_new(&mut markers, d, reason, || {
                Ok(match d.path.strip_prefix(&format!("{}/", dir.rel)) {
                    Some(inner) => (snap.get(inner), base_text(inner)?),
                    None => (instruction(&d.path).map(Vec::as_slice), at_base(&d.path)?),
                })
            })?
        } else {
            false
        };
        if new {
            warn_new_suppression(&mut layer, d, by, ranged);
        }
    }
    for (path, found) in held_secrets {
        let (head, base) = match path.strip_prefix(&format!("{}/", dir.rel)) {
            Some(inner) => (snap.get(inner), base_text(inner)?),
            None => (instruction(path).map(Vec::as_slice), at_base(path)?),
        };
        let head = head.map(|b| String::from_utf8_lossy(b).into_owned());
        for d in swapped_secrets(
            head.as_deref().unwrap_or(""),
            base.as_deref().unwrap_or(""),
            &found,
        ) {
            layer.fail(
                Some(format!("{}:{}", d.path, d.line)),
                format!(
                    "{} {}: the allowlist entry for this finding approved the value the base \
                     holds here, and this change puts another value under it ({}); remove the \
                     secret (and revoke it), or change the entry (its reason or expiry) so that \
                     the review shows it as a new approval",
                    d.rule, d.name, d.message
                ),
            );
        }
    }
    // The base's `.aiignore` patterns, where the head's differ. Before a commit only when
    // the commit changes the file: the snapshot holds only what changed.
    let ignore_path = dir.path_of(crate::handoff::AIIGNORE);
    if !ranged && !owned.iter().any(|c| c.path == ignore_path) {
        return Ok(shown(layer));
    }
    let head_ignore = snap
        .get(crate::handoff::AIIGNORE)
        .map(|b| String::from_utf8_lossy(b).into_owned());
    let base_ignore = base_text(crate::handoff::AIIGNORE)?;
    let base_patterns = match base_ignore.filter(|b| Some(b) != head_ignore.as_ref()) {
        None => None,
        Some(base_ignore) => {
            match lint::UserPatterns::parse(&dir.path_of(crate::handoff::AIIGNORE), &base_ignore) {
                Ok(p) => {
                    // What the base calls a secret stays redacted in what this run prints,
                    // an exception the range adds over it notwithstanding.
                    crate::output::boundary::redact_user_secrets_in(
                        &dir.path_of(crate::handoff::AIIGNORE),
                        &base_ignore,
                    )?;
                    Some(p)
                }
                // The base's file never worked (its own lint stopped on it), so there is no
                // definition to hold the range to, and failing would leave no way to mend it:
                // said, not passed over in silence.
                Err(e) => {
                    layer.warn(
                        Some(dir.path_of(crate::handoff::AIIGNORE)),
                        format!(
                            "the base's .aiignore cannot be read as patterns ({e}): what this \
                             range removes from it or excepts was not compared; review the \
                             change to .aiignore by hand"
                        ),
                    );
                    None
                }
            }
        }
    };
    if let Some(base_patterns) = base_patterns {
        let head_patterns = match &head_ignore {
            Some(h) => Some(lint::UserPatterns::parse(
                &dir.path_of(crate::handoff::AIIGNORE),
                h,
            )?),
            None => None,
        };
        // What the change takes away from the base's patterns is said whether or not text
        // it adds needs them (review atk42 #3: only `review` listed it, and the gate passed
        // a range that emptied the secrets section without a word).
        let weakened = match &head_patterns {
            Some(h) => h.weakened_since(&base_patterns),
            None => lint::UserPatterns::parse(&dir.path_of(crate::handoff::AIIGNORE), "")?
                .weakened_since(&base_patterns),
        };
        let whose = if ranged { "range" } else { "commit" };
        for what in weakened.iter().take(MAX_DROPPED_LINES) {
            layer.warn(
                Some(dir.path_of(crate::handoff::AIIGNORE)),
                format!(
                    "{what}: this {whose} narrows what the gate must never let into the \
                     handoff; a reviewer should confirm it"
                ),
            );
        }
        if weakened.len() > MAX_DROPPED_LINES {
            layer.warn(
                Some(dir.path_of(crate::handoff::AIIGNORE)),
                format!(
                    "and {} more patterns of the base's .aiignore dropped or excepted",
                    weakened.len() - MAX_DROPPED_LINES
                ),
            );
        }
        // The handoff directory's changed files, and the instruction files judged with the
        // same `.aiignore` (review s25 #3).
        let changed = owned
            .iter()
            .filter(|c| c.kind != ChangeKind::Deleted)
            .filter_map(|c| {
                let inner = c.path.strip_prefix(&format!("{}/", dir.rel))?;
                let bytes = snap.get(inner).filter(|_| !lint::is_config_file(inner))?;
                Some((c.path.as_str(), bytes))
            });
        let instructed = instructions
            .iter()
            .filter(|(_, path, bytes)| !lint::is_binary_file(path, bytes))
            .map(|(_, path, bytes)| (path.as_str(), bytes.as_slice()));
        for (path, bytes) in changed.chain(instructed) {
            let text = String::from_utf8_lossy(bytes);
            let kept = head_patterns
                .as_ref()
                .map(|h| h.hits(&text))
                .unwrap_or_default();
            dropped_patterns(&mut layer, path, &text, &base_patterns.hits(&text), &kept);
        }
    }
    Ok(shown(layer))
}

/// A layer shown only when it has something to say, as the `names` layer.
fn shown(layer: Layer) -> Option<Layer> {
    if layer.findings.is_empty() {
        return None;
    }
    Some(layer.summarize(String::new()))
}

/// The findings of `found` (in the file whose head text is `head`) whose matched text the
/// base's version `base` does not hold anywhere: a secret an allowlist entry approved in the
/// base, replaced by another of the same redacted form (review s25 #2: the fingerprint
/// hashes the redacted form, so the entry alone cannot tell them apart). One pass over each
/// text, however many findings.
fn swapped_secrets<'d>(head: &str, base: &str, found: &[&'d Diagnostic]) -> Vec<&'d Diagnostic> {
    // Byte offsets of each line's start in the head text.
    let starts: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', head.as_bytes()).map(|i| i + 1))
        .collect();
    let at = |line: usize, column: usize| -> Option<usize> {
        let start = *starts.get(line.checked_sub(1)?)?;
        let rest = &head[start..];
        match rest.char_indices().nth(column.checked_sub(1)?) {
            Some((i, _)) => Some(start + i),
            None => Some(head.len()),
        }
    };
    let values: Vec<(&'d Diagnostic, &str)> = found
        .iter()
        .map(|d| {
            let text = match (at(d.line, d.column), at(d.end_line, d.end_column)) {
                (Some(s), Some(e)) if s < e => &head[s..e],
                _ => "",
            };
            (*d, text)
        })
        .collect();
    let patterns: Vec<&str> = values
        .iter()
        .map(|(_, v)| *v)
        .filter(|v| !v.is_empty())
        .collect();
    let mut present = std::collections::HashSet::new();
    if let Ok(ac) = aho_corasick::AhoCorasick::new(&patterns) {
        for m in ac.find_overlapping_iter(base) {
            present.insert(patterns[m.pattern().as_usize()]);
        }
    }
    values
        .into_iter()
        .filter(|(_, v)| v.is_empty() || !present.contains(v))
        .map(|(d, _)| d)
        .collect()
}

/// A file of the base commit by its repository path (`None`: absent, a link, or too large
/// to be a handoff file).
fn base_file(repo: &Repo, base: ObjectId, path: &str) -> Result<Option<String>> {
    let Some(file) = repo.tree_file_at(base, path)? else {
        return Ok(None);
    };
    if file.is_link {
        return Ok(None);
    }
    Ok(repo
        .blob_within(file.id, crate::handoff::max_bytes(path))?
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned()))
}

/// True when an inline marker's suppression of `d` is new in the range: the base holds no
/// marker for the rule with `reason` over the same line text (review s25 #4: a marker
/// copied above new text is a new suppression). `texts` gives the file's head bytes and
/// base text; each file is read and indexed once per run, in `markers`.
fn inline_is_new<'a>(
    markers: &mut std::collections::HashMap<String, MarkerIndex>,
    d: &Diagnostic,
    reason: &str,
    texts: impl FnOnce() -> Result<(Option<&'a [u8]>, Option<String>)>,
) -> Result<bool> {
    if !markers.contains_key(&d.path) {
        let (head, base) = texts()?;
        let head = head.map(|b| String::from_utf8_lossy(b).into_owned());
        markers.insert(d.path.clone(), MarkerIndex::new(head, base.as_deref()));
    }
    Ok(!markers[&d.path].holds(d.line, d.rule, reason))
}

/// The warning for a finding suppressed by something the range (`ranged`), or the commit
/// being made, adds or changes.
fn warn_new_suppression(layer: &mut Layer, d: &Diagnostic, by: &str, ranged: bool) {
    layer.warn(
        Some(format!("{}:{}", d.path, d.line)),
        format!(
            "{} {} suppressed by {by}, which this {} adds or changes: {}",
            d.rule,
            d.name,
            if ranged { "range" } else { "commit" },
            d.message
        ),
    );
}

/// The `suppressions` layer for instruction files no handoff directory owns: only inline
/// markers can suppress there (no allowlist, no `.aiignore` applies).
fn unowned_suppressions(
    repo: &Repo,
    base: Option<ObjectId>,
    files: &[&(Option<String>, String, Vec<u8>)],
    suppressed: &[Diagnostic],
    ranged: bool,
) -> Result<Option<Layer>> {
    let mut layer = Layer::new("suppressions");
    let mut markers = std::collections::HashMap::new();
    for d in suppressed {
        let Some(by) = d.suppressed_by.as_deref() else {
            continue;
        };
        let Some(reason) = by.strip_prefix("inline allow: ") else {
            continue;
        };
        let new = inline_is_new(&mut markers, d, reason, || {
            let head = files
                .iter()
                .find(|(_, p, _)| *p == d.path)
                .map(|(_, _, b)| b.as_slice());
            let base = match base {
                Some(base) => base_file(repo, base, &d.path)?,
                None => None,
            };
            Ok((head, base))
        })?;
        if new {
            warn_new_suppression(&mut layer, d, by, ranged);
        }
    }
    Ok(shown(layer))
}

/// The inline markers of a file's base version by the text of the line each covers, and the
/// head version's lines: whether a suppression of the head is held by the base over the
/// same text. A marker ending a line covers that line, one alone on its line the next
/// non-blank one (as the linter reads them).
struct MarkerIndex {
    head: Vec<String>,
    base: std::collections::HashMap<String, Vec<String>>,
}

impl MarkerIndex {
    fn new(head: Option<String>, base: Option<&str>) -> MarkerIndex {
        let head = head.map_or_else(Vec::new, |h| h.lines().map(String::from).collect());
        let mut by_covered: std::collections::HashMap<String, Vec<String>> =
            std::collections::HashMap::new();
        let lines: Vec<&str> = base.map_or_else(Vec::new, |b| b.lines().collect());
        // The next non-blank line after each line, found from the end in one pass.
        let mut next_text: Vec<Option<usize>> = vec![None; lines.len()];
        let mut seen = None;
        for i in (0..lines.len()).rev() {
            next_text[i] = seen;
            if !lines[i].trim().is_empty() {
                seen = Some(i);
            }
        }
        for (i, l) in lines.iter().enumerate() {
            let Some(at) = l.find("<!--") else {
                continue;
            };
            if !l.contains("aahp:allow") {
                continue;
            }
            let covered = if l[..at].trim().is_empty() {
                match next_text[i] {
                    Some(n) => lines[n],
                    None => continue,
                }
            } else {
                l
            };
            by_covered
                .entry(covered.to_string())
                .or_default()
                .push((*l).to_string());
        }
        MarkerIndex {
            head,
            base: by_covered,
        }
    }

    /// True when the base holds a marker for `rule` with `reason` over the text of the
    /// head's 1-based `line`.
    fn holds(&self, line: usize, rule: &str, reason: &str) -> bool {
        let Some(covered) = line.checked_sub(1).and_then(|i| self.head.get(i)) else {
            return false;
        };
        self.base.get(covered).is_some_and(|markers| {
            markers
                .iter()
                .any(|m| m.contains(rule) && m.contains(reason))
        })
    }
}

/// The most lines of one file the `suppressions` layer names for the base's `.aiignore`
/// patterns; the rest are counted in one more finding.
const MAX_DROPPED_LINES: usize = 20;

/// Text a pattern of the base's `.aiignore` matches that the head's no longer does (the
/// range removed the pattern or added an exception over it): a failure where the base's
/// pattern is an error, a warning where it warns. Both lists are sorted by start: one pass
/// over them and the text, whatever the number of hits (a megabyte of key ids is 50,000).
fn dropped_patterns(
    layer: &mut Layer,
    path: &str,
    text: &str,
    base: &[lint::PatternHit],
    kept: &[lint::PatternHit],
) {
    const WHY: &str = "a pattern of the base's .aiignore matches it and this range removes or \
         excepts the pattern: the base's definition of what must never appear still applies to \
         the range that changes it; remove the text (and revoke it if it is a credential), or \
         change the pattern in a change of its own";
    // Where the head's patterns still report, as an error or at all: merged, for bisection.
    let merged = |error_only: bool| {
        lint::merge_spans(
            kept.iter()
                .filter(|h| h.error || !error_only)
                .map(|h| (h.start, h.end))
                .collect(),
        )
    };
    let (kept_any, kept_errors) = (merged(false), merged(true));
    let covers = |spans: &[(usize, usize)], at: usize| {
        let i = spans.partition_point(|&(s, _)| s <= at);
        i > 0 && at < spans[i - 1].1
    };
    let (mut line, mut counted) = (1usize, 0usize);
    let (mut named, mut more, mut more_errors) = (0usize, 0usize, false);
    let mut last_line = 0;
    for hit in base {
        // A hit the head still reports (as an error where the base's was one) is judged by
        // the lint layer.
        if covers(if hit.error { &kept_errors } else { &kept_any }, hit.start) {
            continue;
        }
        line += memchr::memchr_iter(b'\n', &text.as_bytes()[counted..hit.start]).count();
        counted = hit.start;
        if line == last_line {
            continue;
        }
        last_line = line;
        if named == MAX_DROPPED_LINES {
            more += 1;
            more_errors |= hit.error;
            continue;
        }
        named += 1;
        let at = Some(format!("{path}:{line}"));
        if hit.error {
            layer.fail(at, WHY);
        } else {
            layer.warn(at, WHY);
        }
    }
    if more > 0 {
        // At least: each pattern stops after its first thousand hits (CFG006).
        let msg = format!("at least {more} more line(s) of this file the same way");
        if more_errors {
            layer.fail(Some(path.to_string()), msg);
        } else {
            layer.warn(Some(path.to_string()), msg);
        }
    }
}

/// A layer holding lint findings: errors block, the rest warn.
fn lint_layer(name: &'static str, diagnostics: &[Diagnostic]) -> Layer {
    let mut layer = Layer::new(name);
    for d in diagnostics {
        let msg = format!(
            "{}:{}: {}[{} {}]: {}",
            d.line,
            d.column,
            severity_word(d),
            d.rule,
            d.name,
            d.message
        );
        if d.is_blocking() {
            layer.fail(Some(d.path.clone()), msg);
        } else {
            layer.warn(Some(d.path.clone()), msg);
        }
    }
    layer
}

fn severity_word(d: &Diagnostic) -> &'static str {
    match d.severity {
        lint::Severity::Error => "error",
        lint::Severity::Warning => "warning",
        lint::Severity::Info => "info",
    }
}

fn short_sum(s: Option<&str>) -> String {
    match s {
        Some(s) => {
            let hex = s.strip_prefix("sha256:").unwrap_or(s);
            let cut: String = hex.chars().take(12).collect();
            if hex.len() > 12 {
                format!("{cut}…")
            } else {
                cut
            }
        }
        None => "none".into(),
    }
}

/// The handoff files the protocol needs, with what the next agent loses without each: STATUS.md
/// (also named by the drift rule) must always be there; the others, which a repository
/// written by the reference may never have had, must not be removed by the change.
const REQUIRED_FILES: &[(&str, bool, &str)] = &[
    ("STATUS.md", true, "the next agent has no current state"),
    (
        "NEXT_ACTIONS.md",
        false,
        "the next agent loses the work queue",
    ),
    (
        log::LOG_FILE,
        false,
        "the next agent loses the session journal (entries leave LOG.md only through `git aahp archive`)",
    ),
    ("TRUST.md", false, "the next agent loses the trust ledger"),
];

/// The `required` layer (review s29 #3), shown only when it finds something: a handoff
/// directory judged without its `STATUS.md`, or a change that removes `NEXT_ACTIONS.md`, `LOG.md`
/// or TRUST.md. A missing MANIFEST.json fails the schema layer. Looks only at the names the
/// snapshot holds (read or not) and at the change list: nothing is read.
fn required_layer(dir: &HandoffDir, snap: &Snapshot, target: &Target) -> Option<Layer> {
    let mut layer = Layer::new("required");
    let restore = |path: &str| {
        let path = crate::output::shell_word(path);
        match (&target.source, target.base_commit) {
            (Source::Commit(_), Some(base)) => format!(
                "`git restore --source={} --staged --worktree -- {path}`",
                Repo::short(base)
            ),
            _ => format!("`git restore --staged --worktree -- {path}`"),
        }
    };
    for &(name, always, loses) in REQUIRED_FILES {
        if snap.contains(name) {
            continue;
        }
        let path = dir.path_of(name);
        let removed = target
            .changes
            .iter()
            .any(|c| c.path == path && c.kind == ChangeKind::Deleted);
        if removed {
            layer.fail(
                Some(path.clone()),
                format!(
                    "{name} is removed by this change: {loses}; restore it with {}, or write \
                     the missing handoff files from the templates with `git aahp init`",
                    restore(&path)
                ),
            );
        } else if always {
            layer.fail(
                Some(path),
                format!(
                    "{name} is missing: {loses}; write the missing handoff files from the \
                     templates with `git aahp init`"
                ),
            );
        }
    }
    shown(layer)
}

/// The drift layer's summary when it had no code change to judge.
const NO_CODE_CHANGES: &str = "no code changes outside the handoff directory";

/// Drift (layer 4): the changes `owned` by the handoff directory (its package's, nested
/// packages with their own handoff directory excluded) that lie outside it require its
/// STATUS.md and MANIFEST.json to change; `kept_by_move` names those of them that a move
/// brought along as they were.
fn drift_layer(
    dir: &HandoffDir,
    owned: &[&Change],
    changes: &[Change],
    kept_by_move: &[&str],
) -> Layer {
    let mut layer = Layer::new("drift");
    let handoff_prefix = format!("{}/", dir.rel);
    let code: Vec<&Change> = owned
        .iter()
        .copied()
        .filter(|c| !c.path.starts_with(&handoff_prefix))
        .collect();
    if code.is_empty() {
        return layer.summarize(NO_CODE_CHANGES);
    }
    // A removal is no update (review s29 #3): the `required` layer names it.
    let touched = |name: &str| {
        !kept_by_move.contains(&name)
            && changes
                .iter()
                .any(|c| c.path == dir.path_of(name) && c.kind != ChangeKind::Deleted)
    };
    let mut missing = Vec::new();
    for name in ["STATUS.md", MANIFEST] {
        if !touched(name) {
            missing.push(dir.path_of(name));
        }
    }
    if missing.is_empty() {
        let n = code.len();
        return layer.summarize(format!(
            "{n} code change{} with a handoff update",
            plural(n)
        ));
    }
    let mut listed: Vec<String> = code.iter().take(20).map(|c| c.path.clone()).collect();
    if code.len() > 20 {
        listed.push(format!("… and {} more", code.len() - 20));
    }
    layer.fail(
        None,
        format!(
            "code changed but the handoff did not: {} {} not updated (changed: {})",
            missing.join(" and "),
            if missing.len() == 1 { "was" } else { "were" },
            listed.join(", ")
        ),
    );
    layer.summarize("")
}

/// Manifests read from commits while one directory is judged, by commit and path: the
/// pre-commit gate reads HEAD's for the checksums of the files it left unread and again for
/// the tasks layer, and inflated and parsed it twice.
#[derive(Default)]
struct CommittedManifests(Vec<(ObjectId, String, Committed)>);

/// A manifest as a commit holds it.
#[derive(Clone)]
enum Committed {
    /// No file at the path.
    Absent,
    /// A file that does not parse.
    Unparsable,
    Parsed(std::rc::Rc<Manifest>),
}

impl CommittedManifests {
    /// The manifest at `path` in `commit`, read once.
    fn at(&mut self, repo: &Repo, commit: ObjectId, path: &str) -> Result<Committed> {
        if let Some((.., read)) = self.0.iter().find(|(c, p, _)| *c == commit && p == path) {
            return Ok(read.clone());
        }
        let read = match repo.blob_at(commit, path)? {
            None => Committed::Absent,
            Some(bytes) => {
                match Manifest::parse_read_only(
                    &format!("{path} at {}", Repo::short(commit)),
                    &bytes,
                ) {
                    Ok(m) => Committed::Parsed(std::rc::Rc::new(m)),
                    Err(_) => Committed::Unparsable,
                }
            }
        };
        self.0.push((commit, path.to_string(), read.clone()));
        Ok(read)
    }
}

fn tasks_layer(
    repo: &Repo,
    judged: Judged<'_>,
    manifest: Option<&Manifest>,
    base: Option<ObjectId>,
    others: &[ObjectId],
    committed: &mut CommittedManifests,
) -> Result<Layer> {
    let mut layer = Layer::new("tasks");
    let (Some(current), Some(base)) = (manifest, base) else {
        return Ok(layer.skip("no base manifest to compare with"));
    };
    let path = judged.dir.path_of(MANIFEST);
    let base_path = location::join(judged.base_rel, MANIFEST);
    let now_ids: std::collections::HashSet<String> =
        current.tasks().into_iter().map(|(id, _)| id).collect();
    let mut dropped: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut kept = Err("no base manifest to compare with");
    for (i, commit) in std::iter::once(base)
        .chain(others.iter().copied())
        .enumerate()
    {
        let old = match committed.at(repo, commit, &base_path)? {
            Committed::Absent => continue,
            Committed::Parsed(m) => m,
            // A manifest that no longer parses cannot lose tasks we could name.
            Committed::Unparsable => {
                if i == 0 {
                    kept = Err("the base manifest does not parse");
                }
                continue;
            }
        };
        let whose = if i == 0 {
            String::new()
        } else {
            format!(" by the merged parent {}", Repo::short(commit))
        };
        let mut held = 0;
        for (id, _) in old.tasks() {
            if now_ids.contains(&id) {
                held += 1;
            } else if dropped.insert(id.clone()) {
                layer.fail(
                    Some(path.clone()),
                    format!(
                        "task {id}{whose} was dropped (tasks are closed with a status, never \
                         deleted)"
                    ),
                );
            }
        }
        if i == 0 {
            kept = Ok(held);
        }
        if let (Some(before), after) = (old.next_task_id(), current.next_task_id()) {
            match after {
                Some(a) if a >= before => {}
                Some(a) => layer.fail(
                    Some(path.clone()),
                    format!("next_task_id decreased from {before}{whose} to {a}"),
                ),
                None if current.doc.contains_key("next_task_id") => layer.fail(
                    Some(path.clone()),
                    format!(
                        "next_task_id is not a positive integer below 2^64 (it was {before}{whose})"
                    ),
                ),
                None => layer.fail(
                    Some(path.clone()),
                    format!("next_task_id was removed (it was {before}{whose})"),
                ),
            }
        }
    }
    Ok(match kept {
        Ok(kept) => layer.summarize(format!("{kept} task{} kept", plural(kept))),
        Err(why) if layer.findings.is_empty() => layer.skip(why),
        Err(_) => layer.summarize(""),
    })
}

/// Archive integrity (layer 7): every archived entry indexed, every index hash present, no
/// entry both in LOG.md and the archive. A LOG.md over its limit is only a warning.
fn archive_layer(
    repo: &Repo,
    judged: Judged<'_>,
    snap: &Snapshot,
    base: Option<ObjectId>,
) -> Result<Layer> {
    let dir = judged.dir;
    let mut layer = Layer::new("archive");
    if !snap.contains(log::LOG_FILE) {
        return Ok(layer.skip("no LOG.md"));
    }
    // At pre-commit, what HEAD holds unchanged was judged with HEAD: LOG-ARCHIVE.md and its
    // index are read and checked only when the commit changes one of them (issue #14), and
    // LOG.md only when it changes.
    let archive_unchanged = [log::ARCHIVE_FILE, log::INDEX_FILE]
        .iter()
        .any(|n| snap.unread.contains_key(*n));
    let log_unchanged = snap.unread.contains_key(log::LOG_FILE);
    if archive_unchanged && log_unchanged {
        return Ok(layer.skip("LOG.md, LOG-ARCHIVE.md and its index are unchanged since HEAD"));
    }
    let log = snap.text(dir, log::LOG_FILE)?.unwrap_or_default();
    let pass = if archive_unchanged {
        "LOG.md checked; LOG-ARCHIVE.md and its index are unchanged since HEAD"
    } else {
        "the archive matches its index"
    };
    let keep = repo
        .config_string("aahp.keep")
        .and_then(|k| k.trim().parse().ok())
        .unwrap_or(log::DEFAULT_KEEP);
    let mut problems = if archive_unchanged {
        log::verify_archive(log, None, None, keep)
    } else {
        archive_problems(dir, snap, log, keep)?
    };
    // A half-done `git aahp archive` in this worktree: the files do not belong together
    // until it is completed, whatever they look like.
    if crate::transaction::rotation::pending_in(repo, dir)?.is_some() {
        problems.insert(0, log::ArchiveProblem::Interrupted);
    }
    if !archive_unchanged && let Some(base) = base {
        dropped_since_base(repo, judged, snap, base, &mut layer)?;
    }
    for p in problems {
        let path = match p.line() {
            Some(l) => format!("{}:{l}", dir.path_of(p.file())),
            None => dir.path_of(p.file()),
        };
        if matches!(p, log::ArchiveProblem::OverLimit { .. }) {
            layer.warn(Some(path), p.message());
        } else {
            layer.fail(Some(path), p.message());
        }
    }
    Ok(layer.summarize(pass))
}

/// Fails `layer` for every line of the base's archive index that the index judged no longer
/// lists, nor replaced by a recorded redaction (review s23 #6): the archive is append-only
/// against the base, not only consistent with its own index, so a change that deletes an
/// archived entry together with its index line fails, naming the entries.
fn dropped_since_base(
    repo: &Repo,
    judged: Judged<'_>,
    snap: &Snapshot,
    base: ObjectId,
    layer: &mut Layer,
) -> Result<()> {
    use crate::handoff::log_stream::{self, Bytes, Limits};
    let base_path = location::join(judged.base_rel, log::INDEX_FILE);
    let Some(file) = repo.tree_file_at(base, &base_path)? else {
        return Ok(());
    };
    let index_path = judged.dir.path_of(log::INDEX_FILE);
    if file.is_link {
        return Ok(());
    }
    if index_is_blob(repo, judged, snap, file.id)? {
        // The index judged is the base's own: it lists every line the base's does.
        return Ok(());
    }
    // A large loose object is read as a stream; a packed one (or a small one) whole: gix
    // loads a blob whole. Tests arm `blob-in-pieces` to stream one of any size.
    let large = repo.blob_size(file.id)? > crate::handoff::HELD_WHOLE_UP_TO as u64;
    let loose = if large || crate::failpoint::armed_flag("blob-in-pieces") {
        repo.loose_blob(file.id)?
    } else {
        None
    };
    let whole;
    let base_content: &dyn log_stream::Content = match &loose {
        Some(l)
            if usize::try_from(l.len())
                .is_ok_and(|n| n <= crate::handoff::max_bytes(&base_path)) =>
        {
            l
        }
        _ => {
            whole = repo
                .blob_within(file.id, crate::handoff::max_bytes(&base_path))?
                .map_err(|len| super::lint::too_large_to_lint(&base_path, len))?;
            &Bytes(&whole)
        }
    };
    let mem = snap.get(log::INDEX_FILE).map(Bytes);
    let head = snap
        .streamed
        .get(log::INDEX_FILE)
        .map(|s| s as &dyn log_stream::Content)
        .or(mem.as_ref().map(|b| b as &dyn log_stream::Content));
    let Some(head) = head else {
        layer.fail(
            Some(index_path),
            format!(
                "the base ({}) has an archive index and this change removes it: LOG-ARCHIVE.md is append-only",
                Repo::short(base)
            ),
        );
        return Ok(());
    };
    // An index that only gained elements after the base's lists every line of it.
    match log_stream::extends_entries_of(base_content, head) {
        Ok(true) => return Ok(()),
        Ok(false) => {}
        Err(e) => return Err(e.into_error(|f| judged.dir.path_of(f))),
    }
    let (shown, dropped, replaced) =
        match log_stream::dropped_from_base(base_content, head, Limits::default()) {
            Ok(d) => d,
            // An index that cannot be read is reported by the archive check itself.
            Err(log::LogError::Malformed { .. }) => return Ok(()),
            Err(e) => return Err(e.into_error(|f| judged.dir.path_of(f))),
        };
    if !replaced.is_empty() {
        redactions_since_base(repo, judged, snap, base, &replaced, layer)?;
    }
    for e in &shown {
        layer.fail(
            Some(index_path.clone()),
            format!(
                "the archived entry \"{}\" of the base ({}) is no longer in the archive: LOG-ARCHIVE.md is append-only; restore it, or redact its text with `[redacted: REASON]` and run `git aahp archive --reindex`",
                e.title,
                Repo::short(base)
            ),
        );
    }
    if dropped > shown.len() {
        layer.fail(
            Some(index_path),
            format!(
                "{} more archived entries of the base are no longer in the archive",
                dropped - shown.len()
            ),
        );
    }
    Ok(())
}

/// Checks the redactions a change records in place of base archive entries (`replaced`:
/// base line, head digest, head heading): the head entry must be a redaction of the base
/// entry's text, as `archive --reindex` requires of what it records (a `[redacted: REASON]`
/// marker, the text outside it the base's), else the base entry was deleted and the
/// change fails; a real one is a warning, since it removes archived text and a reviewer
/// should see it (review atk42 #6: the `redactions` list is the change's own word, and a
/// record written by hand replaced an archived entry by any text without a word).
fn redactions_since_base(
    repo: &Repo,
    judged: Judged<'_>,
    snap: &Snapshot,
    base: ObjectId,
    replaced: &[(log::IndexEntry, String, String)],
    layer: &mut Layer,
) -> Result<()> {
    use crate::handoff::log_stream::{self, Bytes, Limits};
    let archive_path = judged.dir.path_of(log::ARCHIVE_FILE);
    let wanted_head: std::collections::HashSet<String> =
        replaced.iter().map(|(_, sha, _)| sha.clone()).collect();
    let wanted_base: std::collections::HashSet<String> =
        replaced.iter().map(|(b, _, _)| b.sha256.clone()).collect();
    let mem = snap.get(log::ARCHIVE_FILE).map(Bytes);
    let head_entries = match snap
        .streamed
        .get(log::ARCHIVE_FILE)
        .map(|s| s as &dyn log_stream::Content)
        .or(mem.as_ref().map(|b| b as &dyn log_stream::Content))
    {
        Some(head) => log_stream::entries_with_digests(head, &wanted_head, Limits::default())
            .map_err(|e| e.into_error(|f| judged.dir.path_of(f)))?,
        None => std::collections::HashMap::new(),
    };
    let base_path = location::join(judged.base_rel, log::ARCHIVE_FILE);
    let base_entries = match repo.tree_file_at(base, &base_path)? {
        Some(file) if !file.is_link => {
            let bytes = repo
                .blob_within(file.id, crate::handoff::max_bytes(&base_path))?
                .map_err(|len| super::lint::too_large_to_lint(&base_path, len))?;
            log_stream::entries_with_digests(&Bytes(&bytes), &wanted_base, Limits::default())
                .map_err(|e| e.into_error(|f| judged.dir.path_of(f)))?
        }
        _ => std::collections::HashMap::new(),
    };
    let original = |sha: &str| base_entries.get(sha).map(|e| e.text.clone());
    for (line, sha, title) in replaced {
        let verdict = match head_entries.get(sha) {
            None => Err("the archive holds no entry with the digest its record names".to_string()),
            Some(e) => match log::redaction_target(e, &[line], &[false], &original) {
                Ok(_) => Ok(log::redaction_reasons(&e.text)),
                Err(log::ArchiveProblem::NotRedaction { why, .. }) => Err(why),
                Err(_) => Err("it is no redaction of that entry".to_string()),
            },
        };
        match verdict {
            Ok(reasons) => layer.warn(
                Some(archive_path.clone()),
                format!(
                    "the archived entry \"{}\" of the base ({}) is redacted by this change \
                     (\"{title}\"{}): its text leaves the archive (not git's history); a \
                     reviewer should confirm it",
                    line.title,
                    Repo::short(base),
                    if reasons.is_empty() {
                        String::new()
                    } else {
                        format!(", {}", reasons.join("; "))
                    }
                ),
            ),
            Err(why) => layer.fail(
                Some(archive_path.clone()),
                format!(
                    "the archived entry \"{}\" of the base ({}) is gone, and the redaction the \
                     index records in its place (\"{title}\") is none: {why}; LOG-ARCHIVE.md is \
                     append-only: restore the entry, or redact its text with `[redacted: \
                     REASON]` and run `git aahp archive --reindex`",
                    line.title,
                    Repo::short(base)
                ),
            ),
        }
    }
    Ok(())
}

/// Whether the archive index `snap` holds is the blob `id`: read from that blob, or left on
/// disk as the working tree's file that the git index shows (by its stat data, else by
/// hashing it in pieces) to be that blob.
fn index_is_blob(repo: &Repo, judged: Judged<'_>, snap: &Snapshot, id: ObjectId) -> Result<bool> {
    if let Some(&read) = snap.blob_ids.get(log::INDEX_FILE) {
        return Ok(read == id);
    }
    if let Some(&(read, _)) = snap.streamed_blob_ids.get(log::INDEX_FILE) {
        return Ok(read == id);
    }
    let Some(s) = snap.streamed.get(log::INDEX_FILE) else {
        return Ok(false);
    };
    let rel = judged.dir.path_of(log::INDEX_FILE);
    let whole_file = s.tail.is_empty()
        && s.resume.is_none()
        && s.path == repo.workdir().join(&rel)
        && std::fs::symlink_metadata(&s.path).is_ok_and(|m| m.is_file() && m.len() == s.keep);
    Ok(whole_file && repo.file_is_blob(&rel, id)?)
}

/// The `journal` layer, shown only when it fails: every LOG.md entry of the base that the
/// change neither keeps in LOG.md ([`lost_entries`](crate::handoff::provenance::lost_entries):
/// as it was, stamped, added to, or redacted) nor archives, by digest, in the archive's index (review s29 #5): the
/// journal loses no entry but through `git aahp archive`, whose index the `archive` check
/// holds to its archive. Runs only when the change alters LOG.md; the index is read (as a
/// stream keeping only the matches) only when entries left LOG.md. A merge's other parents
/// (`others`, see [`Target::other_parents`]) are judged too, LOG.md read for them even when
/// it is HEAD's: a merge that keeps HEAD's journal drops the merged branch's entries.
fn journal_layer(
    repo: &Repo,
    judged: Judged<'_>,
    snap: &Snapshot,
    base: Option<ObjectId>,
    others: &[ObjectId],
) -> Result<Option<Layer>> {
    use crate::handoff::log_stream::{self, Bytes, Limits};
    let Some(base) = base else {
        return Ok(None);
    };
    let path = judged.dir.path_of(log::LOG_FILE);
    // LOG.md left unread is HEAD's, judged with it; an absent one is the `required` layer's.
    let changed = snap.text(judged.dir, log::LOG_FILE)?;
    let unread_log;
    let log = match (changed, snap.unread.get(log::LOG_FILE)) {
        (Some(text), _) => text,
        (None, Some(id)) if !others.is_empty() => {
            let bytes = repo
                .blob_within(*id, crate::handoff::max_bytes(&path))?
                .map_err(|len| super::lint::too_large_to_lint(&path, len))?;
            unread_log = crate::handoff::decode_text(&path, &bytes)?.to_string();
            unread_log.as_str()
        }
        _ => return Ok(None),
    };
    let now = log::LogFile::parse(log);
    let base_path = location::join(judged.base_rel, log::LOG_FILE);
    // (the commit it was lost against, whether that is the base, the entry)
    let mut lost = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (i, commit) in std::iter::once(base)
        .chain(others.iter().copied())
        .enumerate()
    {
        if i == 0 && changed.is_none() {
            continue;
        }
        let Some(before) = base_file(repo, commit, &base_path)? else {
            continue;
        };
        for l in crate::handoff::provenance::lost_entries(&log::LogFile::parse(&before), &now) {
            if seen.insert(l.sha256.clone()) {
                lost.push((commit, i == 0, l));
            }
        }
    }
    if lost.is_empty() {
        return Ok(None);
    }
    let mut layer = Layer::new("journal");
    let wanted: std::collections::HashSet<&str> =
        lost.iter().map(|(_, _, l)| l.sha256.as_str()).collect();
    let held;
    let index: Option<&dyn log_stream::Content> = match (
        snap.streamed.get(log::INDEX_FILE),
        snap.get(log::INDEX_FILE),
    ) {
        (Some(s), _) => Some(s),
        (None, Some(b)) => {
            held = Bytes(b);
            Some(&held)
        }
        (None, None) => None,
    };
    let unread;
    let index = match (index, snap.unread.get(log::INDEX_FILE)) {
        (Some(i), _) => Some(i),
        (None, Some(id)) => {
            let path = judged.dir.path_of(log::INDEX_FILE);
            unread = repo
                .blob_within(*id, crate::handoff::max_bytes(&path))?
                .map_err(|len| super::lint::too_large_to_lint(&path, len))?;
            Some(&Bytes(&unread) as &dyn log_stream::Content)
        }
        (None, None) => None,
    };
    let listed = match index {
        // An index that cannot be read lists nothing; the archive check reports it.
        Some(i) => log_stream::listed_in_index(i, &wanted, Limits::default()).unwrap_or_default(),
        None => std::collections::HashSet::new(),
    };
    for (commit, is_base, l) in lost.iter().filter(|(_, _, l)| !listed.contains(&l.sha256)) {
        let whose = format!(
            "{} ({})",
            if *is_base {
                "the base"
            } else {
                "the merged parent"
            },
            Repo::short(*commit)
        );
        if let Some(heading) = &l.heading_now {
            // Its text is all there: say what changed rather than call it gone.
            layer.fail(
                Some(path.clone()),
                format!(
                    "the entry \"{}\" of {whose} has a new heading, \"{heading}\", over the \
                     same text, and is not archived: an entry stays as it was, heading \
                     included (its digest, which the archive's index lists, covers both). Put \
                     the heading back as it was (`git show {}:{}`); a later entry can correct it",
                    l.header,
                    Repo::short(*commit),
                    base_path,
                ),
            );
            continue;
        }
        layer.fail(
            Some(path.clone()),
            format!(
                "the entry \"{}\" of {whose} is {}, and not archived: the journal loses no \
                 entry but through `git aahp archive`. Restore it as it was (`git show {}:{}`); \
                 to take a secret out of it, replace only that text with `[redacted: REASON]`",
                l.header,
                if l.rewritten {
                    "rewritten"
                } else {
                    "no longer in LOG.md"
                },
                Repo::short(*commit),
                base_path,
            ),
        );
    }
    Ok(shown(layer))
}

/// The problems of LOG.md, LOG-ARCHIVE.md and its index: the archive checked against its
/// index as streams, entry by entry, whether they were left on disk or read (issue #12
/// item 2), a legacy index included.
fn archive_problems(
    dir: &HandoffDir,
    snap: &Snapshot,
    log: &str,
    keep: usize,
) -> Result<Vec<log::ArchiveProblem>> {
    use crate::handoff::log_stream::{self, Bytes, Limits};
    let mem = [log::ARCHIVE_FILE, log::INDEX_FILE].map(|n| snap.get(n).map(Bytes));
    let content = |i: usize, name: &str| {
        snap.streamed
            .get(name)
            .map(|s| s as &dyn log_stream::Content)
            .or(mem[i].as_ref().map(|b| b as &dyn log_stream::Content))
    };
    let archive = content(0, log::ARCHIVE_FILE);
    let index = content(1, log::INDEX_FILE);
    // A legacy index too: its list is paired as an `entries` list (issue #12 item 2).
    match log_stream::verify_streamed(log, archive, index, keep, Limits::default()) {
        Ok((problems, _)) => Ok(problems),
        // Input that cannot be interpreted is reported as the whole check reports it.
        Err(log::LogError::Malformed {
            file,
            line,
            message,
        }) => Ok(vec![log::ArchiveProblem::Malformed {
            file,
            line,
            message,
        }]),
        Err(e) => Err(e.into_error(|f| dir.path_of(f))),
    }
}

/// The trust layer: judges every `verified` claim of TRUST.md (issue #15 item 6, the
/// reference's 4.0 Layer 4). A claim naming a built-in check that establishes it
/// ([`Builtin::proves`](crate::handoff::trust_checks::Builtin::proves)) is judged by it and
/// its date is ignored; any other claim by its expiry (a built-in check named beside a claim
/// it does not establish is reported and changes nothing). A check named nowhere fails.
/// With `trustTtl.enforce` in `aahp.config.json`, a failing check, a claim expired more than
/// `trustTtl.graceDays` ago, a claim with neither a check nor a date, and a register with
/// nothing to judge block; otherwise they warn.
/// Before a commit (`precommit`) the policy is not read and nothing blocks: enforcement gates
/// CI, where the pull request that refreshes TRUST.md carries its fix with it.
fn trust_layer(
    repo: &Repo,
    dir: &HandoffDir,
    snap: &Snapshot,
    source: &Source,
    checksums_hold: bool,
    today: jiff::civil::Date,
) -> Result<Layer> {
    use crate::handoff::trust_checks::{self, Builtin, CONFIG_FILE, Resolved, TrustPolicy};
    let mut layer = Layer::new("trust");
    let precommit = matches!(source, Source::Index);
    let config_path = dir.project_path(CONFIG_FILE);
    let policy = if precommit {
        TrustPolicy::default()
    } else {
        match dir.project_file(repo, source, CONFIG_FILE)? {
            Some(bytes) => TrustPolicy::parse(&config_path, &bytes)?,
            None => TrustPolicy::default(),
        }
    };
    let enforced = policy.enforce;
    let report = |layer: &mut Layer, path: Option<String>, message: String| {
        if enforced {
            layer.fail(path, message);
        } else {
            layer.warn(path, message);
        }
    };
    let path = dir.path_of("TRUST.md");
    let Some(text) = snap.text(dir, "TRUST.md")? else {
        if enforced {
            layer.fail(
                Some(path),
                format!("not evaluated: there is no TRUST.md, and trustTtl.enforce is on in {config_path}"),
            );
            return Ok(layer.summarize(""));
        }
        return Ok(layer.skip("no TRUST.md"));
    };
    // A row that cannot be read is bad input (exit 2 naming the line), not advice: a claim
    // whose expiry cannot be computed must not pass as current.
    let ledger = TrustLedger::parse(&path, text)?;
    let verified: Vec<_> = ledger.claims.iter().filter(|c| c.is_verified()).collect();
    let (mut by_check, mut dated, mut neither) = (0, 0, 0);
    let mut licence: Option<std::result::Result<String, String>> = None;
    for c in &verified {
        let at = Some(format!("{path}:{}", c.line));
        let check = c.check.as_deref().map(|name| (name, policy.resolve(name)));
        match check {
            Some((_, Resolved::Builtin(b))) if b.proves(&c.property) => {
                by_check += 1;
                if precommit {
                    continue;
                }
                let verdict = match b {
                    Builtin::ManifestIntegrity if checksums_hold => Ok(String::new()),
                    Builtin::ManifestIntegrity => {
                        Err("the manifest's checksums do not hold".to_string())
                    }
                    Builtin::LicenseMatches => licence
                        .get_or_insert_with(|| {
                            let read = |n| dir.project_file(repo, source, n);
                            match (read("package.json"), read("LICENSE")) {
                                (Ok(p), Ok(l)) => {
                                    trust_checks::license_matches(p.as_deref(), l.as_deref())
                                }
                                (Err(e), _) | (_, Err(e)) => Err(e.to_string()),
                            }
                        })
                        .clone(),
                };
                if let Err(why) = verdict {
                    report(
                        &mut layer,
                        at,
                        format!(
                            "verified claim `{}` fails its check {}: {why}",
                            c.property,
                            b.name()
                        ),
                    );
                }
                continue;
            }
            Some((name, Resolved::Unknown)) if !precommit => {
                by_check += 1;
                report(
                    &mut layer,
                    at,
                    format!(
                        "verified claim `{}` names the check `{name}`, which is neither built in ({}) nor declared in trustTtl.checks of {config_path}",
                        c.property,
                        Builtin::names()
                    ),
                );
                continue;
            }
            Some((name, Resolved::Builtin(b))) => {
                // An agent wrote a built-in check beside a claim it does not establish
                // ("tests pass" / manifest-integrity): the check does not vouch for it, and
                // it decays by its date like any judgment row.
                layer.warn(
                    at.clone(),
                    format!(
                        "verified claim `{}` names the built-in check {name}, which establishes only {}; it does not judge this claim, so its date does: {}",
                        c.property,
                        b.establishes(),
                        mismatch_remedy(&c.property)
                    ),
                );
            }
            _ => {}
        }
        // A judgment row, or one whose check is an argv only `trust verify` runs: its date.
        let Some(expiry) = c.expiry() else {
            neither += 1;
            if precommit {
                continue;
            }
            // Nothing here can judge it: under enforcement that is a failure, not a pass.
            let how = match check {
                Some((name, Resolved::Configured(_))) => format!(
                    "`git aahp trust verify {}` runs its check `{name}` and records the date",
                    crate::output::shell_word(&c.property)
                ),
                _ => format!(
                    "give it a check it establishes, or a date (`git aahp trust verify {} -- CMD`)",
                    crate::output::shell_word(&c.property)
                ),
            };
            report(
                &mut layer,
                at,
                format!(
                    "verified claim `{}` has neither a check that judges it nor a date (Last Verified + TTL, or Expires){}; {how}",
                    c.property,
                    if enforced {
                        ", and trustTtl.enforce is on"
                    } else {
                        ""
                    }
                ),
            );
            continue;
        };
        dated += 1;
        if c.is_dated_ahead(today) {
            report(
                &mut layer,
                at,
                format!(
                    "verified claim `{}` says it was verified on {}, after today ({today}): a date still to come vouches for nothing; re-verify it (`git aahp trust verify {}`)",
                    c.property,
                    c.last_verified.map(|d| d.to_string()).unwrap_or_default(),
                    crate::output::shell_word(&c.property)
                ),
            );
            continue;
        }
        if expiry >= today {
            continue;
        }
        let days = (today - expiry).get_days();
        let run = match check {
            Some((name, Resolved::Configured(_))) => format!(
                "; `git aahp trust verify {}` runs its check `{name}`",
                crate::output::shell_word(&c.property)
            ),
            _ => String::new(),
        };
        let message = format!(
            "verified claim `{}` expired on {expiry}, {days} day{} ago{run}",
            c.property,
            plural(usize::try_from(days).unwrap_or(usize::MAX))
        );
        if enforced && i64::from(days) > policy.grace_days {
            layer.fail(
                at,
                format!(
                    "{message}: more than trustTtl.graceDays ({}) and trustTtl.enforce is on; re-verify it",
                    policy.grace_days
                ),
            );
        } else {
            layer.warn(
                at,
                format!("{message}: re-verify it or it decays to assumed"),
            );
        }
    }
    if verified.is_empty() {
        let why = if ledger.tables.is_empty() {
            "TRUST.md holds no claims table with a Status column"
        } else {
            "TRUST.md holds no verified claim"
        };
        if enforced {
            layer.fail(
                Some(path),
                format!("not evaluated: {why}, and trustTtl.enforce is on in {config_path}"),
            );
        } else {
            return Ok(layer.skip(format!("not evaluated: {why}")));
        }
    }
    let census = format!(
        "{} verified claim{}: {by_check} by check, {dated} dated, {neither} neither{}",
        verified.len(),
        plural(verified.len()),
        if enforced { " (enforced)" } else { "" }
    );
    if layer.status == LayerStatus::Pass {
        return Ok(layer.summarize(census));
    }
    let mut layer = layer.summarize("");
    layer.summary = format!("{}; {census}", layer.summary);
    Ok(layer)
}

/// How to resolve a row that names a built-in check for a claim the check does not establish.
fn mismatch_remedy(property: &str) -> String {
    format!(
        "state the claim as the check does, move it to a row of its own, or re-prove {property:?} with `git aahp trust verify {} -- CMD`",
        crate::output::shell_word(property)
    )
}

/// Advisory: the manifest's commit pointer. Never blocks.
fn advisory_layer(repo: &Repo, manifest: Option<&Manifest>) -> Layer {
    let mut layer = Layer::new("advisory");
    let Some(m) = manifest else {
        return layer.summarize("no manifest");
    };
    let pointer = m.session_field("commit").unwrap_or("unknown");
    if pointer == "unknown" || pointer.is_empty() {
        return layer.summarize("no commit pointer recorded");
    }
    match (repo.resolve_commit(pointer), repo.head_commit()) {
        (Ok(c), Ok(Some(head))) => match repo.is_ancestor(c, head) {
            Ok(true) => {}
            _ => layer.warn(
                None,
                format!(
                    "last_session.commit {pointer} is not an ancestor of HEAD (squash or rebase?)"
                ),
            ),
        },
        _ => layer.warn(
            None,
            format!("last_session.commit {pointer} is not in this repository"),
        ),
    }
    layer.summarize(format!("commit pointer {pointer} is in HEAD's history"))
}

/// Advisory: each LOG entry the change adds must carry its provenance line (agent, session,
/// timestamp, commit before), which `git aahp commit` stamps (issue #15).
fn provenance_warnings(
    repo: &Repo,
    dir: &HandoffDir,
    snap: &Snapshot,
    base: Option<ObjectId>,
    layer: &mut Layer,
) -> Result<()> {
    use crate::handoff::log::LogFile;
    use crate::handoff::provenance::{has_provenance, session_entries};
    let Some(now) = snap.text(dir, "LOG.md")? else {
        return Ok(());
    };
    let before = match base {
        Some(b) => repo
            .blob_at(b, &dir.path_of("LOG.md"))?
            .map(|b| String::from_utf8_lossy(&b).into_owned()),
        None => None,
    };
    let entries = LogFile::parse(now).entries;
    for i in session_entries(before.as_deref(), now) {
        let e = &entries[i];
        if !has_provenance(&e.text) {
            let summary = std::mem::take(&mut layer.summary);
            layer.warn(
                Some(format!("{}:{}", dir.path_of("LOG.md"), e.line)),
                format!(
                    "session entry `{}` has no provenance line (agent, session, timestamp, \
                     commit before); `git aahp commit` stamps it",
                    e.header
                ),
            );
            layer.summary = summary;
        }
    }
    if layer.status == LayerStatus::Warn && layer.findings.iter().all(|f| !f.blocking) {
        let w = layer.findings.len();
        layer.summary = format!("{w} warning{}", plural(w));
    }
    Ok(())
}

/// Builds the targets of a push from the hook's stdin (`<local ref> <local sha> <remote ref>
/// <remote sha>` per line). Deleted refs are skipped; a new branch is judged from the commits
/// no remote-tracking ref holds. Without lines (run by hand, or the pre-commit framework on a
/// first push), the branch being pushed (`PRE_COMMIT_LOCAL_BRANCH`, else HEAD) is judged the
/// same way: all its commits when no remote-tracking ref holds any, the root included.
fn prepush_targets(
    repo: &Repo,
    lines: Option<&str>,
    pushed_to: Option<&str>,
) -> Result<Vec<Target>> {
    let zero = |s: &str| s.bytes().all(|b| b == b'0');
    let mut out = Vec::new();
    // Each range is judged once: `git push --tags` or `--mirror` names many refs at the
    // same commits, and each line was judged anew (4000 tags at one commit took 47 s,
    // review rob36 #9).
    let mut lines_seen: std::collections::HashSet<(&str, &str)> = std::collections::HashSet::new();
    let mut ranges_seen: std::collections::HashSet<(Option<ObjectId>, ObjectId)> =
        std::collections::HashSet::new();
    for line in lines.unwrap_or_default().lines() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let [_, local, _, remote] = parts.as_slice() else {
            if line.trim().is_empty() {
                continue;
            }
            // Shown up to 200 characters: a line of megabytes is named, not echoed.
            // Redacted before it is cut or quoted: a cut secret is no longer recognisable
            // (review s23 item 10).
            let kept: String = line.chars().take(200).collect();
            let more = line.chars().count() - kept.chars().count();
            let shown = crate::output::boundary::shorten(line, 200 + usize::from(more > 0));
            let shown = shown.strip_suffix('…').unwrap_or(&shown);
            return Err(Error::invalid(
                "pre-push stdin",
                None,
                if more > 0 {
                    format!(
                        "unexpected line {shown:?}… ({more} more characters); git writes `<local ref> <local sha> <remote ref> <remote sha>` per line"
                    )
                } else {
                    format!(
                        "unexpected line {shown:?}; git writes `<local ref> <local sha> <remote ref> <remote sha>` per line"
                    )
                },
            ));
        };
        if zero(local) || !lines_seen.insert((local, remote)) {
            continue;
        }
        let tip = repo.resolve_commit(local)?;
        let remote_base = if zero(remote) {
            None
        } else {
            repo.resolve_commit(remote)
                .ok()
                .and_then(|r| repo.merge_base(r, tip).ok().flatten())
        };
        // A new branch, or a remote commit this clone does not have: what no
        // remote-tracking ref of the remote pushed to holds.
        let (base, held_by) = match remote_base {
            Some(b) => (Some(b), None),
            None => match range::unpushed(repo, tip, pushed_to)? {
                Unpushed::Nothing => continue,
                Unpushed::From { base, held_by } => (base, held_by),
            },
        };
        if ranges_seen.insert((base, tip)) {
            out.push(push_target(repo, base, held_by, tip)?);
        }
    }
    if out.is_empty() && lines.is_none_or(|l| l.trim().is_empty()) {
        // No ref named at all: fail closed by judging the branch's unpushed commits rather
        // than an empty push list.
        let tip = match std::env::var("PRE_COMMIT_LOCAL_BRANCH")
            .ok()
            .filter(|b| !b.trim().is_empty())
        {
            Some(branch) => repo.resolve_commit(branch.trim())?,
            None => repo
                .head_commit()?
                .ok_or_else(|| Error::Usage("nothing to push: the branch has no commits".into()))?,
        };
        if let Unpushed::From { base, held_by } = range::unpushed(repo, tip, pushed_to)? {
            out.push(push_target(repo, base, held_by, tip)?);
        }
    }
    Ok(out)
}

/// The target of one pushed range: `tip`'s content, the changes since `base` (the empty tree
/// when `None`).
fn push_target(
    repo: &Repo,
    base: Option<ObjectId>,
    held_by: Option<String>,
    tip: ObjectId,
) -> Result<Target> {
    Ok(Target {
        source: Source::Commit(tip),
        base_commit: base,
        other_parents: Vec::new(),
        changes: repo.commit_changes(base, tip)?,
        range: Some(JudgedRange {
            base: held_by.map(Untrusted::new),
            base_from: None,
            from: base.map(|b| b.to_string()),
            to: tip.to_string(),
        }),
        whole: false,
    })
}

/// The CI target: HEAD against its merge base with the base [`range::ci_base`] finds. A base
/// that cannot be used gives the failed report to return instead (exit 1).
fn ci_target(repo: &Repo, base: Option<&str>) -> Result<std::result::Result<Target, VerifyReport>> {
    let head = repo.head_commit()?.ok_or_else(|| {
        Error::Usage("verify --level ci needs a commit: the branch has none".into())
    })?;
    let env = |name: &str| std::env::var(name).ok();
    match range::ci_base(repo, head, base, &env)? {
        CiBase::Range { merge_base, range } => Ok(Ok(Target {
            source: Source::Commit(head),
            base_commit: Some(merge_base),
            other_parents: Vec::new(),
            changes: repo.commit_changes(Some(merge_base), head)?,
            range: Some(range),
            whole: true,
        })),
        CiBase::Unusable(why) => {
            let mut layer = Layer::new(BASE_LAYER);
            layer.fail(None, why);
            layer.summary = "no usable base to compare HEAD with".into();
            let mut report = VerifyReport::empty(Some(Level::Ci));
            report.source = Source::Commit(head).describe();
            report.ok = false;
            report.layers.push(layer.summarize(""));
            Ok(Err(report))
        }
    }
}
