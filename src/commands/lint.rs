//! `git aahp lint`: the safety linter (SPEC §3.5, §5) over the handoff directory in the working
//! tree (default), the index (`--staged`, what the pre-commit hook judges) or a commit
//! (`--rev`), plus agent instruction files with `--all`; `--explain` and `--list-rules` print
//! the registry. Output is human, JSON or SARIF; secrets are redacted in all of them.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Context;
use crate::error::{Error, ExitStatus, Result};
use crate::git::Repo;
use crate::handoff::{HandoffDir, Source, read_limited};
use crate::lint::{
    self, Diagnostic, LintConfig, LintFile, LintOutcome, RULES, RuleMeta, Severity, registry,
};
use crate::output::boundary::{Annotation, AnnotationLevel, Untrusted};
use crate::output::{Annotated, Report, Style, escape_untrusted, sarif};

/// Output formats of `lint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// `path:line:col: error[ID name]: message` with the source line and a caret.
    #[default]
    Human,
    /// One JSON document (the same as the global `--json`).
    Json,
    /// SARIF 2.1.0 for GitHub code scanning (allowed findings only with
    /// `--include-suppressed`).
    Sarif,
    /// GitHub Actions annotations: one `::error`/`::warning`/`::notice` line per finding.
    Github,
}

/// Lint handoff files for prompt injection, hidden content, secrets, PII and `.aiignore`
/// patterns.
///
/// Exit 0 when nothing blocks, 1 on an error-level finding (or a warning with --strict), 2 when
/// the linter cannot run (bad input, invalid .aiignore or allowlist).
#[derive(Debug, Clone, Default, clap::Args)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent command-line flags"
)]
pub struct LintArgs {
    /// Judge the staged content (the index): what the next commit will contain.
    #[arg(long, conflicts_with_all = ["rev", "paths"])]
    pub staged: bool,
    /// Judge the handoff directory as of a commit.
    #[arg(long, value_name = "REV", conflicts_with = "paths")]
    pub rev: Option<String>,
    /// Also scan agent instruction files (AGENTS.md, CLAUDE.md, .cursorrules, …) when present.
    #[arg(long)]
    pub all: bool,
    /// Lint these files instead (with the handoff directory's .aiignore and allowlists).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Warnings fail too (exit 1).
    #[arg(long)]
    pub strict: bool,
    /// Ignore inline `aahp:allow` markers (for CI).
    #[arg(long)]
    pub no_inline_allow: bool,
    /// With `--format sarif`, also write the allowed findings (marked with `suppressions`).
    /// Left out by default: GitHub code scanning ignores `suppressions` and would open an
    /// alert for each.
    #[arg(long)]
    pub include_suppressed: bool,
    /// Print a rule's documentation (by id or slug) and exit.
    #[arg(long, value_name = "RULE", conflicts_with_all = ["staged", "rev", "all", "paths", "list_rules"])]
    pub explain: Option<String>,
    /// List every rule and exit.
    #[arg(long, conflicts_with_all = ["staged", "rev", "all", "paths"])]
    pub list_rules: bool,
}

/// Counts by severity.
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
    pub suppressed: usize,
}

/// The result of `git aahp lint`.
#[derive(Debug, Serialize)]
pub struct LintReport {
    /// `worktree`, `index` or `commit <id>`.
    pub scope: String,
    /// Warnings fail the run.
    pub strict: bool,
    /// Paths scanned.
    pub files: Vec<String>,
    /// Findings that count.
    pub diagnostics: Vec<Diagnostic>,
    /// Findings allowed by a marker or an allowlist entry.
    pub suppressed: Vec<Diagnostic>,
    /// With `--all` in the working tree: where the search for instruction files did not
    /// read to the end (a directory git ignores past the search's budget). Warnings: they
    /// fail the run with `--strict`.
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "crate::output::boundary::list"
    )]
    pub unsearched: Vec<String>,
    /// Counts.
    pub summary: Summary,
}

impl LintReport {
    fn new(scope: String, strict: bool, outcome: LintOutcome) -> LintReport {
        let count = |s: Severity| {
            outcome
                .diagnostics
                .iter()
                .filter(|d| d.severity == s)
                .count()
        };
        LintReport {
            scope,
            strict,
            summary: Summary {
                errors: count(Severity::Error),
                warnings: count(Severity::Warning),
                notes: count(Severity::Info),
                suppressed: outcome.suppressed.len(),
            },
            files: outcome.files,
            diagnostics: outcome.diagnostics,
            suppressed: outcome.suppressed,
            unsearched: Vec::new(),
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Writes one diagnostic in the editor/CI shape, then its line with a caret.
pub fn write_diagnostic(w: &mut dyn Write, d: &Diagnostic, style: &Style) -> io::Result<()> {
    let sev = match d.severity {
        Severity::Error => style.error("error"),
        Severity::Warning => style.warn("warning"),
        Severity::Info => style.dim("note"),
    };
    writeln!(
        w,
        "{}:{}:{}: {sev}[{} {}]: {}",
        escape_untrusted(&d.path),
        d.line,
        d.column,
        d.rule,
        d.name,
        escape_untrusted(&d.message)
    )?;
    let gutter = d.line.to_string();
    let pad = " ".repeat(gutter.len());
    writeln!(w, "{pad} |")?;
    writeln!(w, "{gutter} | {}", d.snippet)?;
    writeln!(
        w,
        "{pad} | {}{}",
        " ".repeat(d.caret.0),
        style.bold(&"^".repeat(d.caret.1.max(1)))
    )
}

impl Report for LintReport {
    fn command(&self) -> &'static str {
        "lint"
    }

    fn write_human(&self, w: &mut dyn Write, style: &Style) -> io::Result<()> {
        for d in &self.diagnostics {
            write_diagnostic(w, d, style)?;
        }
        for d in &self.suppressed {
            writeln!(
                w,
                "{} {}:{}:{} [{} {}] ({})",
                style.dim("allowed:"),
                escape_untrusted(&d.path),
                d.line,
                d.column,
                d.rule,
                d.name,
                escape_untrusted(d.suppressed_by.as_deref().unwrap_or(""))
            )?;
        }
        for u in &self.unsearched {
            writeln!(w, "{}: {}", style.warn("warning"), escape_untrusted(u))?;
        }
        self.write_summary(w, *style)
    }

    fn status(&self) -> ExitStatus {
        let warned = self.summary.warnings > 0 || !self.unsearched.is_empty();
        let blocking = self.summary.errors > 0 || (self.strict && warned);
        if blocking {
            ExitStatus::Findings
        } else {
            ExitStatus::Success
        }
    }
}

impl LintReport {
    /// The closing line: counts, files, scope.
    fn write_summary(&self, w: &mut dyn Write, style: Style) -> io::Result<()> {
        let s = &self.summary;
        let files = plural(self.files.len(), "file", "files");
        if self.diagnostics.is_empty() {
            write!(
                w,
                "{}: no findings in {files} ({})",
                style.ok("ok"),
                self.scope
            )?;
        } else {
            write!(
                w,
                "{}, {}, {} in {files} ({})",
                plural(s.errors, "error", "errors"),
                plural(s.warnings, "warning", "warnings"),
                plural(s.notes, "note", "notes"),
                self.scope
            )?;
        }
        if s.suppressed > 0 {
            write!(w, "; {} allowed", s.suppressed)?;
        }
        writeln!(w)
    }
}

/// A lint finding as a GitHub Actions annotation: error, warning or notice by severity,
/// pointing at the file, line and columns, titled with the rule.
pub fn annotation(d: &Diagnostic) -> Annotation {
    Annotation {
        level: match d.severity {
            Severity::Error => AnnotationLevel::Error,
            Severity::Warning => AnnotationLevel::Warning,
            Severity::Info => AnnotationLevel::Notice,
        },
        file: Some(Untrusted::new(d.path.as_str())),
        line: Some(d.line),
        col: Some(d.column),
        end_column: (d.end_line == d.line && d.end_column > d.column).then_some(d.end_column),
        title: Some(Untrusted::new(format!("{} {}", d.rule, d.name))),
        message: Untrusted::new(d.message.as_str()),
    }
}

impl Annotated for LintReport {
    fn annotations(&self) -> Vec<Annotation> {
        let mut out: Vec<Annotation> = self.diagnostics.iter().map(annotation).collect();
        out.extend(self.unsearched.iter().map(|u| Annotation {
            level: AnnotationLevel::Warning,
            file: None,
            line: None,
            col: None,
            end_column: None,
            title: Some(Untrusted::new("not searched")),
            message: Untrusted::new(u.as_str()),
        }));
        out
    }

    fn write_verdict(&self, w: &mut dyn Write) -> io::Result<()> {
        self.write_summary(w, Style::default())
    }
}

/// `--explain RULE`.
#[derive(Debug, Serialize)]
pub struct ExplainReport {
    pub id: &'static str,
    pub name: &'static str,
    pub family: registry::Family,
    pub severity: Severity,
    pub summary: &'static str,
    pub explanation: String,
}

impl Report for ExplainReport {
    fn command(&self) -> &'static str {
        "lint"
    }

    fn write_human(&self, w: &mut dyn Write, _style: &Style) -> io::Result<()> {
        write!(w, "{}", self.explanation)
    }
}

/// One row of `--list-rules`.
#[derive(Debug, Serialize)]
pub struct RuleRow {
    pub id: &'static str,
    pub name: &'static str,
    pub family: registry::Family,
    pub severity: Severity,
    pub summary: &'static str,
}

/// `--list-rules`.
#[derive(Debug, Serialize)]
pub struct RulesReport {
    pub rules: Vec<RuleRow>,
}

impl Report for RulesReport {
    fn command(&self) -> &'static str {
        "lint"
    }

    fn write_human(&self, w: &mut dyn Write, _style: &Style) -> io::Result<()> {
        for r in &self.rules {
            writeln!(
                w,
                "{:<10} {:<8} {:<34} {}",
                r.id,
                r.severity.as_str(),
                r.name,
                r.summary
            )?;
        }
        Ok(())
    }
}

fn explain(key: &str) -> Result<ExplainReport> {
    let r: &RuleMeta = registry::find(key).ok_or_else(|| {
        Error::Usage(format!(
            "unknown rule `{key}`; `git aahp lint --list-rules` lists them"
        ))
    })?;
    Ok(ExplainReport {
        id: r.id,
        name: r.name,
        family: r.family,
        severity: r.severity,
        summary: r.summary,
        explanation: r.explanation(),
    })
}

fn list_rules() -> RulesReport {
    RulesReport {
        rules: RULES
            .iter()
            .map(|r| RuleRow {
                id: r.id,
                name: r.name,
                family: r.family,
                severity: r.severity,
                summary: r.summary,
            })
            .collect(),
    }
}

/// Runs `git aahp lint` and prints its result in the chosen format.
pub fn run(ctx: &Context, args: &LintArgs) -> Result<ExitStatus> {
    if let Some(key) = &args.explain {
        return ctx.emit(&explain(key)?);
    }
    if args.list_rules {
        return ctx.emit(&list_rules());
    }
    let report = lint(ctx, args)?;
    if args.format == Format::Sarif {
        let written = sarif::write(&sarif::log(
            &report.diagnostics,
            &report.suppressed,
            args.include_suppressed,
            ctx.repo()?.workdir(),
        ));
        return Ok(crate::output::keep_status(written, report.status())?);
    }
    if args.format == Format::Github {
        return Ok(ctx.printer.emit_github(&report)?);
    }
    if args.format == Format::Json && !ctx.printer.json {
        let mut p = ctx.printer;
        p.json = true;
        return Ok(p.emit(&report)?);
    }
    ctx.emit(&report)
}

/// The directory as `source` holds it, for the lint, which only reads it: a commit's
/// LOG-ARCHIVE.md and index above 8 MiB that the working tree holds as committed are read
/// from there in pieces, not loaded whole (issue #12 item 2).
fn read_only_snapshot(
    repo: &Repo,
    dir: &HandoffDir,
    source: Source,
) -> Result<crate::handoff::Snapshot> {
    match source {
        Source::Commit(commit) => dir.snapshot_commit(repo, commit, true),
        other => dir.snapshot(repo, other),
    }
}

/// Lints the scope the arguments select.
pub fn lint(ctx: &Context, args: &LintArgs) -> Result<LintReport> {
    let repo = ctx.repo()?;
    let dir = ctx.handoff()?;
    let today = crate::clock::utc_date(ctx.now);
    let source = if args.staged {
        Source::Index
    } else if let Some(rev) = &args.rev {
        Source::Commit(repo.resolve_commit(rev)?)
    } else {
        Source::Worktree
    };
    // At a monorepo's root with no root directory, the directory located holds nothing:
    // every package's is linted instead (the hook judges them all), never "no findings in
    // 0 files".
    let absent = source == Source::Worktree && !dir.exists();
    let packages =
        if args.paths.is_empty() && !ctx.dir_given() && (absent || !dir_in(repo, &dir, source)?) {
            package_dirs(repo, source)?
        } else {
            Vec::new()
        };
    if absent && packages.is_empty() && args.paths.is_empty() && !args.all {
        return Err(Error::NoHandoffDir(dir.rel));
    }
    let snap = if absent {
        crate::handoff::Snapshot::default()
    } else {
        read_only_snapshot(repo, &dir, source)?
    };
    // A manifest every other command refuses is refused here too (issue #12, L4): a linter
    // that passes what it could not read would be a gate that passes unchecked input.
    crate::handoff::manifest::Manifest::from_snapshot(&dir, &snap)?;
    let scope = source.describe();
    if !args.paths.is_empty() {
        let mut cfg = LintConfig::from_snapshot(&dir, &snap, today)?;
        cfg.inline_allow = !args.no_inline_allow;
        let mut owned: Vec<(String, String, Vec<u8>)> = Vec::new();
        for p in &args.paths {
            let (path, name, bytes) = read_path(&dir, &ctx.cwd, p)?;
            // A configuration is judged for what it runs too, which needs it read.
            if lint::agents::is_agent_config(&path) {
                super::verify::config_readable(&path, &String::from_utf8_lossy(&bytes))?;
            }
            owned.push((path, name, bytes));
        }
        let (scripts, unfollowed) = run_scripts(repo, &dir, source, &owned);
        let files: Vec<LintFile<'_>> = owned
            .iter()
            .map(|(path, _, bytes)| LintFile {
                script: scripts.contains(path),
                path: path.clone(),
                // Named as `lint --all` names it: a configuration by the format it holds.
                name: lint::agents::lint_name(path, bytes),
                bytes,
            })
            .collect();
        let mut outcome = lint::lint(&cfg, &files)?;
        outcome.add_unfollowed(&cfg, unfollowed, false);
        return Ok(LintReport::new(scope, args.strict, outcome));
    }
    let in_packages = !packages.is_empty();
    let dirs = if in_packages { packages } else { vec![dir] };
    let mut merged = LintOutcome::default();
    let mut unsearched = Vec::new();
    // What the configurations run that the gate cannot follow, found with the first
    // directory: each is acknowledged (or not) by the directory nearest its configuration.
    let mut unfollowed: Vec<(Diagnostic, bool)> = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        let snap = if in_packages {
            let snap = read_only_snapshot(repo, dir, source)?;
            crate::handoff::manifest::Manifest::from_snapshot(dir, &snap)?;
            snap
        } else {
            snap.clone()
        };
        // Instruction files are found once, for the whole repository.
        let extra_owned = if args.all && i == 0 {
            let search = agent_files(repo, dir, source)?;
            unsearched = search.unsearched;
            unfollowed = search.unfollowed;
            search.read
        } else {
            Vec::new()
        };
        let outside = |path: &String| {
            !dirs
                .iter()
                .any(|d| path.starts_with(&format!("{}/", d.rel)))
        };
        // An image or archive among them (an icon in a plugin marketplace, a skill's
        // picture) is judged by its readable text, as the gate judges it.
        let (binary, text): (Vec<&AgentRead>, Vec<&AgentRead>) = extra_owned
            .iter()
            .filter(|(path, _, _, _)| outside(path))
            .partition(|(path, _, bytes, _)| lint::is_binary_file(path, bytes));
        let extra: Vec<LintFile<'_>> = text
            .into_iter()
            .map(|(path, name, bytes, script)| LintFile {
                script: *script,
                path: path.clone(),
                name: name.clone(),
                bytes,
            })
            .collect();
        let mut cfg = LintConfig::from_snapshot(dir, &snap, today)?;
        cfg.inline_allow = !args.no_inline_allow;
        let mut outcome = lint::lint_snapshot_with(&cfg, dir, &snap, &extra)?;
        for (path, _, bytes, _) in binary {
            outcome
                .diagnostics
                .extend(lint::binary_file_secrets(&cfg, path, bytes)?);
            outcome.files.push(path.clone());
        }
        let (mine, others): (Vec<_>, Vec<_>) = std::mem::take(&mut unfollowed)
            .into_iter()
            .partition(|(d, _)| super::verify::nearest_dir(dirs.iter(), &d.path) == Some(i));
        unfollowed = others;
        outcome.add_unfollowed(&cfg, mine, args.all);
        merged.diagnostics.extend(outcome.diagnostics);
        merged.suppressed.extend(outcome.suppressed);
        merged.files.extend(outcome.files);
    }
    // A configuration no judged directory's package holds: no allowlist acknowledges it.
    merged.add(unfollowed.into_iter().map(|(d, _)| d).collect());
    let mut report = LintReport::new(scope, args.strict, merged);
    report.unsearched = unsearched;
    Ok(report)
}

/// Which of the files named on the command line (`given`: path, name, bytes) are scripts
/// an agent configuration runs, judged as code as `lint --all` and the gate judge them
/// (session 29 #2), and what the gate cannot follow of what the configurations among them
/// run (session 30 #8): found as `lint --all` finds them ([`agent_files`]). Only a file the
/// lexer reads as a script, or a configuration, asks for the search; when the search fails,
/// every file is judged as text, the stricter reading, and a configuration is judged as
/// `lint --all` would refuse it.
fn run_scripts(
    repo: &Repo,
    dir: &HandoffDir,
    source: Source,
    given: &[(String, String, Vec<u8>)],
) -> (std::collections::HashSet<String>, Vec<(Diagnostic, bool)>) {
    let config = |p: &str| lint::agents::is_agent_config(p);
    let maybe = given.iter().any(|(path, name, bytes)| {
        config(path)
            || std::str::from_utf8(bytes).is_ok_and(|t| lint::code::lang(name, t).is_some())
    });
    if !maybe {
        return (std::collections::HashSet::new(), Vec::new());
    }
    let Ok(found) = agent_files(repo, dir, source) else {
        return (std::collections::HashSet::new(), Vec::new());
    };
    let scripts = found
        .read
        .into_iter()
        .filter(|(path, _, _, script)| *script && given.iter().any(|(p, _, _)| p == path))
        .map(|(path, _, _, _)| path)
        .collect();
    let unfollowed = found
        .unfollowed
        .into_iter()
        .filter(|(d, _)| given.iter().any(|(p, _, _)| *p == d.path))
        .collect();
    (scripts, unfollowed)
}

/// True when `source` holds any file of `dir`.
fn dir_in(repo: &crate::git::Repo, dir: &HandoffDir, source: Source) -> Result<bool> {
    Ok(match source {
        Source::Worktree => dir.exists(),
        Source::Index => crate::git::Repo::index_has_dir(&*repo.index()?, &dir.rel),
        Source::Commit(c) => repo.tree_has_dir(c, &dir.rel)?,
    })
}

/// The handoff directories `source` holds anywhere (`<package>/.ai/handoff`), by their
/// files' paths, and every configured one, in path order.
fn package_dirs(repo: &crate::git::Repo, source: Source) -> Result<Vec<HandoffDir>> {
    let mut paths: Vec<Vec<u8>> = match source {
        Source::Commit(c) => repo
            .tree_files_below(c, "")?
            .into_iter()
            .map(|f| f.path)
            .collect(),
        Source::Index | Source::Worktree => {
            let index = repo.index()?;
            crate::git::Repo::index_files_below(&index, "")
                .into_iter()
                .map(|f| f.path)
                .collect()
        }
    };
    // The working tree holds what was never `git add`ed too: such a package is linted from
    // disk like the others, never skipped for want of an index entry.
    if source == Source::Worktree {
        paths.extend(repo.untracked_handoff_files()?);
    }
    let mut rels = std::collections::BTreeSet::new();
    let mut undecodable = std::collections::BTreeSet::new();
    for p in &paths {
        let Some(rel) = handoff_prefix(p) else {
            continue;
        };
        match std::str::from_utf8(rel) {
            Ok(rel) => {
                rels.insert(rel.to_string());
            }
            Err(_) => {
                undecodable.insert(String::from_utf8_lossy(rel).into_owned());
            }
        }
    }
    // A handoff directory whose path is not valid UTF-8 cannot be named, read or reported
    // faithfully: lint fails rather than pass over it.
    if !undecodable.is_empty() {
        let names: Vec<String> = undecodable
            .iter()
            .map(|d| crate::output::escape_untrusted(d))
            .collect();
        return Err(Error::Declined {
            reason: format!(
                "lint cannot judge {}: the path is not valid UTF-8",
                names.join(", ")
            ),
            hint: "rename the package directory to valid UTF-8, then lint again",
        });
    }
    let mut out: Vec<HandoffDir> = crate::handoff::location::configured(repo)?;
    for rel in rels {
        if !out.iter().any(|d| d.rel == rel) {
            out.push(HandoffDir::at_rel(repo, &rel)?);
        }
    }
    Ok(out)
}

/// The handoff directory (`…/.ai/handoff`, raw bytes) a repository-relative path lies in,
/// if any.
fn handoff_prefix(path: &[u8]) -> Option<&[u8]> {
    use gix::bstr::ByteSlice;
    let marker = format!("{}/", crate::handoff::DEFAULT_DIR);
    let at = if path.starts_with(marker.as_bytes()) {
        0
    } else {
        path.find(format!("/{marker}").as_bytes())? + 1
    };
    Some(&path[..at + marker.len() - 1])
}

/// Reads a file named on the command line: (repository-relative path, file name, bytes).
fn read_path(dir: &HandoffDir, cwd: &Path, p: &Path) -> Result<(String, String, Vec<u8>)> {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    };
    let abs = abs.canonicalize().map_err(|source| Error::Read {
        path: p.display().to_string(),
        source,
    })?;
    let rel = abs.strip_prefix(&dir.root).map_err(|_| {
        Error::invalid(
            p.display().to_string(),
            None,
            "the file is outside the repository",
        )
    })?;
    let rel: String = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    let name = abs
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let bytes = read_limited(&abs, &rel)?;
    Ok((rel, name, bytes))
}

/// An agent instruction file above the size the linter reads, with its real size.
pub(crate) fn too_large_to_lint(rel: &str, len: u64) -> Error {
    Error::invalid(
        rel,
        None,
        format!(
            "file is {len} bytes, more than the {} bytes the linter reads; shorten it",
            crate::handoff::MAX_FILE_BYTES
        ),
    )
}

/// Every path below `base` that spells `rel` (`/`-separated) in any ASCII letter case, as
/// the directory entries spell it: `claude.md` and `CLAUDE.md` can sit side by side, and a
/// case-insensitive file system serves either as the other (review s23 #4).
fn spellings(base: &std::path::Path, rel: &str) -> Vec<String> {
    let mut found = vec![String::new()];
    for part in rel.split('/') {
        let mut next = Vec::new();
        for prefix in &found {
            let Ok(entries) = std::fs::read_dir(base.join(prefix)) else {
                continue;
            };
            for e in entries.flatten() {
                if let Some(name) = e.file_name().to_str()
                    && name.eq_ignore_ascii_case(part)
                {
                    next.push(crate::handoff::location::join(prefix, name));
                }
            }
        }
        next.sort();
        found = next;
    }
    found
}

/// The regular files below the directory `rel` of the work tree `root` (none when it is not
/// a directory), repository-relative, appended to `out`. Symbolic links are not followed (the
/// gate judges a link where instructions belong on its own); the walk stops at
/// [`MAX_WALK_DEPTH`] levels and [`MAX_WALK_ENTRIES`] entries, which no agent's directory of
/// instructions comes near, and refuses past them rather than skip what it did not read.
fn files_below(root: &Path, rel: &str, out: &mut Vec<String>) -> Result<()> {
    let mut stack = vec![(rel.to_string(), 0usize)];
    let mut entries = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        let Ok(read) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for entry in read.flatten() {
            entries += 1;
            if entries > MAX_WALK_ENTRIES || depth >= MAX_WALK_DEPTH {
                return Err(Error::invalid(
                    &dir,
                    None,
                    format!(
                        "holds more than {MAX_WALK_ENTRIES} entries or {MAX_WALK_DEPTH} levels \
                         where agents look for instruction files; not linted"
                    ),
                ));
            }
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let path = format!("{dir}/{name}");
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push((path, depth + 1)),
                Ok(t) if t.is_file() => out.push(path),
                _ => {}
            }
        }
    }
    Ok(())
}

/// How deep [`files_below`] reads a directory where agents look for instruction files.
const MAX_WALK_DEPTH: usize = 16;
/// How many entries [`files_below`] reads in all below one such directory.
const MAX_WALK_ENTRIES: usize = 20_000;

/// A file `lint --all` reads beside the handoff directory: its path, the name it is linted
/// as, its bytes, and whether it is a script a configuration runs (judged as code).
type AgentRead = (String, String, Vec<u8>, bool);

/// How many entries [`ignored_instruction_files`] reads in all below the directories git
/// ignores whole (`target/`, `node_modules/`): far above a project's own ignored notes, a
/// bound on a build tree's. Past it the search stops and says where.
const MAX_IGNORED_ENTRIES: usize = 100_000;

/// What `lint --all` found beside the handoff directory.
#[derive(Default)]
struct AgentSearch {
    /// The files read.
    read: Vec<AgentRead>,
    /// Where the search did not read to the end, worded for the report.
    unsearched: Vec<String>,
    /// What the configurations found run that the gate could not follow (CFG007), each
    /// with whether an allowlist entry may acknowledge it (no static reading can follow it).
    unfollowed: Vec<(Diagnostic, bool)>,
}

/// The agent instruction files ([`lint::agents`]) in `source`, at any depth: the tracked
/// ones (from the index or the commit's tree), and in the working tree also the untracked
/// and the ignored ones ([`ignored_instruction_files`]), with what the gate pulls in for
/// them ([`pull_in_as_the_gate`]). Files inside the handoff directory are linted as handoff
/// files already.
fn agent_files(repo: &crate::git::Repo, dir: &HandoffDir, source: Source) -> Result<AgentSearch> {
    let inside = format!("{}/", dir.rel);
    let wanted = |p: &str| lint::agents::is_agent_file(p) && !p.starts_with(&inside);
    // The search only reads: each work-tree directory is listed once.
    let _listings = repo.pin_listings();
    let mut out = Vec::new();
    let push = |rel: String, bytes: Vec<u8>, out: &mut Vec<AgentRead>| {
        if bytes.len() > crate::handoff::MAX_FILE_BYTES {
            return Err(too_large_to_lint(&rel, bytes.len() as u64));
        }
        let name = lint::agents::lint_name(&rel, &bytes);
        out.push((rel, name, bytes, false));
        Ok(())
    };
    let index = match source {
        Source::Commit(_) => None,
        Source::Index | Source::Worktree => Some(crate::git::PrecommitIndex::Full(repo.index()?)),
    };
    let tracked = match (&index, source) {
        (Some(index), _) => crate::git::Repo::index_files_below(index.state(), ""),
        (None, Source::Commit(c)) => repo.tree_files_below(c, "")?,
        (None, _) => Vec::new(),
    };
    // A symbolic link at an instruction path is read as the gate reads it: followed within
    // the work tree, refused when it leads out of it (review s25 #12: it was skipped).
    let view = match &index {
        Some(index) if source == Source::Index => {
            Some(crate::git::StagedView::new(repo, index, &[])?)
        }
        _ => None,
    };
    let content = match (source, &index, &view) {
        (Source::Commit(c), _, _) => super::verify::Content::Commit(c),
        (_, _, Some(view)) => super::verify::Content::Staged(view),
        (_, Some(index), None) => super::verify::Content::Worktree(index.state()),
        (_, None, None) => unreachable!("an index is read for the index and the working tree"),
    };
    // A submodule or a symbolic link where instruction files belong is refused, naming the
    // path, as the gate fails it (review s25 #7, #8): what it stands for was not linted.
    let mut indirect: Vec<(String, crate::git::EntryKind)> = Vec::new();
    match (&index, source) {
        (Some(index), _) => {
            let state = index.state();
            for e in state.entries().iter().filter(|e| e.stage_raw() == 0) {
                let kind = if e.mode.is_submodule() {
                    crate::git::EntryKind::Gitlink
                } else if e.mode == gix::index::entry::Mode::SYMLINK {
                    crate::git::EntryKind::Link
                } else {
                    continue;
                };
                indirect.push((e.path(state).to_string(), kind));
            }
        }
        (None, Source::Commit(c)) => repo.walk_tree(c, &mut |path, _, kind| {
            if kind != crate::git::EntryKind::File {
                indirect.push((String::from_utf8_lossy(path).into_owned(), kind));
            }
        })?,
        (None, _) => {}
    }
    for (path, kind) in &indirect {
        if super::verify::stands_in_for_instructions(path, *kind) && !path.starts_with(&inside) {
            return Err(Error::invalid(
                path,
                None,
                format!(
                    "{}; not linted",
                    super::verify::stand_in_problem(*kind).trim_start_matches("is ")
                ),
            ));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut listed: Vec<String> = tracked
        .iter()
        .filter_map(|f| String::from_utf8(f.path.clone()).ok())
        .collect();
    // In the working tree, the files git does not track yet are there for the agent all the
    // same (review s29 #4: `sub/AGENTS.md` and `.cursor/rules/*.mdc` were clean until added).
    let untracked: Vec<String> = if source == Source::Worktree {
        repo.untracked_files(None)?
            .into_iter()
            .filter_map(|p| String::from_utf8(p).ok())
            .collect()
    } else {
        Vec::new()
    };
    // And those it ignores, at any depth (session 30 #2: `sub/CLAUDE.md` under an ignored
    // `sub/` was never read), with what the search left unread.
    // An environment file git ignores (`.env`) is the user's own, its secrets where they
    // belong: the repository's content never reaches it, and one it tracks or adds is judged.
    let env_file = |p: &str| {
        p.rsplit('/')
            .next()
            .is_some_and(|n| n.eq_ignore_ascii_case(".env"))
    };
    let wanted_ignored = |p: &str| wanted(p) && !env_file(p);
    let (ignored, unsearched) = if source == Source::Worktree {
        ignored_instruction_files(repo, &dir.root, &untracked, &wanted_ignored)?
    } else {
        (Vec::new(), Vec::new())
    };
    listed.extend(untracked.iter().cloned());
    listed.extend(ignored.iter().cloned());
    for f in tracked {
        let Ok(rel) = String::from_utf8(f.path) else {
            continue;
        };
        if !wanted(&rel) {
            continue;
        }
        if f.is_link {
            if let Some(bytes) = content.read_agent_file(repo, &rel)? {
                seen.insert(rel.clone());
                push(rel, bytes, &mut out)?;
            }
            continue;
        }
        let bytes = match source {
            Source::Worktree => {
                let abs = dir.root.join(&rel);
                let is_file = std::fs::symlink_metadata(&abs).is_ok_and(|m| m.is_file());
                if !is_file {
                    continue;
                }
                read_limited(&abs, &rel)?
            }
            // The size from the object's header: an oversized blob is refused before it is
            // inflated (issue #12 review, N5: a 300 MB AGENTS.md took 598 MB).
            _ => repo
                .blob_within(f.id, crate::handoff::MAX_FILE_BYTES)?
                .map_err(|len| too_large_to_lint(&rel, len))?,
        };
        seen.insert(rel.clone());
        push(rel, bytes, &mut out)?;
    }
    if source == Source::Worktree {
        let mut roots = vec![String::new()];
        let pkg = dir.package_root();
        if !pkg.is_empty() {
            roots.push(format!("{pkg}/"));
        }
        // Untracked and ignored files where agents look, at any depth; then the names at
        // the roots in every letter case and the files of the instruction directories there
        // (`.cursor/rules`, `.claude/commands`, …), read off the disk, a directory too large
        // to read refused.
        let mut candidates: Vec<String> = untracked.into_iter().filter(|p| wanted(p)).collect();
        candidates.extend(ignored);
        for root in &roots {
            for d in lint::agents::instruction_dirs_at(root.trim_end_matches('/')) {
                files_below(&dir.root, &d, &mut candidates)?;
            }
        }
        for rel in candidates {
            if !seen.contains(&rel)
                && wanted(&rel)
                && let Some(bytes) = content.read_agent_file(repo, &rel)?
            {
                seen.insert(rel.clone());
                push(rel, bytes, &mut out)?;
            }
        }
        for root in &roots {
            for f in lint::agents::top_level_names() {
                for found in spellings(&dir.root.join(root), f) {
                    let rel = format!("{root}{found}");
                    if !seen.contains(&rel)
                        && wanted(&rel)
                        && (!env_file(&rel) || listed.contains(&rel))
                        && let Some(bytes) = content.read_agent_file(repo, &rel)?
                    {
                        seen.insert(rel.clone());
                        push(rel, bytes, &mut out)?;
                    }
                }
            }
        }
    }
    // The scripts of the repository the configuration files run (review s27 #1).
    let configs: Vec<(String, Vec<u8>)> = out
        .iter()
        .filter(|(rel, _, _, _)| lint::agents::is_agent_config(rel))
        .map(|(rel, _, bytes, _)| (rel.clone(), bytes.clone()))
        .collect();
    let tracked_set: std::collections::HashSet<&str> = if configs.is_empty() {
        std::collections::HashSet::new()
    } else {
        listed.iter().map(String::as_str).collect()
    };
    let mut unfollowed = Vec::new();
    for (config, bytes) in configs {
        let text = String::from_utf8_lossy(&bytes);
        let followed = super::verify::follow_runs(repo, &content, &config, &text)?;
        unfollowed.extend(
            followed
                .unfollowed
                .iter()
                .map(|u| (lint::unfollowed_diagnostic(&config, &text, u), !u.unread)),
        );
        for run in followed.runs {
            if seen.contains(&run.path)
                || run.path.starts_with(&inside)
                || !tracked_set.contains(run.path.as_str())
            {
                continue;
            }
            if let Some(bytes) = content.read_agent_file(repo, &run.path)?
                && let Some(bytes) = super::verify::run_bytes(&run.path, bytes)
            {
                seen.insert(run.path.clone());
                // Handed to an interpreter of another language: judged whole, as text.
                let script = !followed.another_language.contains(&run.path);
                push(run.path, bytes, &mut out)?;
                if let Some(last) = out.last_mut() {
                    last.3 = script;
                }
            }
        }
    }
    // What the configuration files name as instruction files (review s26 #4).
    let configs: Vec<(String, Vec<u8>)> = out
        .iter()
        .filter(|(rel, _, _, _)| lint::agent_config::names_files(rel))
        .map(|(rel, _, bytes, _)| (rel.clone(), bytes.clone()))
        .collect();
    for (config, bytes) in configs {
        let text = crate::handoff::decode_text(&config, &bytes)?;
        let named = lint::agent_config::named(&config, text)
            .map_err(|why| Error::invalid(&config, None, why))?;
        let mut paths = Vec::new();
        let mut globs = Vec::new();
        for n in named {
            match n {
                lint::agent_config::Named::Path(p) => paths.push(p),
                lint::agent_config::Named::Glob(g) => globs.push(g),
            }
        }
        if !globs.is_empty() {
            // One matcher for every pattern, one pass over the files (review s27 #8).
            let m = lint::agent_config::GlobsMatcher::new(globs.iter().map(String::as_str))
                .map_err(|g| {
                    Error::invalid(
                        &config,
                        None,
                        format!("names instruction files with a pattern the gate cannot read: {g}"),
                    )
                })?;
            paths.extend(listed.iter().filter(|p| m.is_match(p)).cloned());
        }
        for p in paths {
            if seen.contains(&p) || p.starts_with(&inside) {
                // A script the agent also reads as an instruction file is judged as text.
                if let Some(read) = out.iter_mut().find(|r| r.0 == p) {
                    read.3 = false;
                }
                continue;
            }
            if let Some(bytes) = content.read_agent_file(repo, &p)? {
                seen.insert(p.clone());
                push(p, bytes, &mut out)?;
            }
        }
    }
    Ok(AgentSearch {
        read: pull_in_as_the_gate(repo, &content, dir, out)?,
        unsearched,
        unfollowed,
    })
}

/// The agent instruction files (`wanted`) that git ignores in the work tree at `root`, at
/// any depth, and what the search left unread. The ignored files git lists are taken as they
/// are; below a directory git lists whole (it does not look inside one it ignores, nor
/// inside a repository nested in the tree, listed in `untracked`) the files are read off the
/// disk, breadth first, all such directories sharing one budget of [`MAX_IGNORED_ENTRIES`]
/// entries: a shallow `sub/CLAUDE.md` is found before a build tree's depths, and a
/// directory the budget leaves unread is named, never passed over in silence. `.git` is
/// not entered; a symbolic link is not followed, and one where agents look for instruction
/// files is named as unread. Linear in the entries read.
fn ignored_instruction_files(
    repo: &Repo,
    root: &Path,
    untracked: &[String],
    wanted: &dyn Fn(&str) -> bool,
) -> Result<(Vec<String>, Vec<String>)> {
    let mut found = Vec::new();
    let mut dirs: Vec<String> = Vec::new();
    for entry in repo.ignored_entries()? {
        let Ok(path) = String::from_utf8(entry) else {
            continue;
        };
        match path.strip_suffix('/') {
            Some(d) => dirs.push(d.to_string()),
            None if wanted(&path) => found.push(path),
            None => {}
        }
    }
    dirs.extend(
        untracked
            .iter()
            .filter_map(|p| p.strip_suffix('/'))
            .map(String::from),
    );
    // A directory below another listed one is read with it.
    dirs.sort();
    dirs.dedup();
    let mut tops: Vec<String> = Vec::new();
    for d in dirs {
        if !tops.last().is_some_and(|t| d.starts_with(&format!("{t}/"))) {
            tops.push(d);
        }
    }
    let budget = if crate::failpoint::armed_flag("small-ignored-walk") {
        8
    } else {
        MAX_IGNORED_ENTRIES
    };
    let mut unsearched = Vec::new();
    let mut queue: std::collections::VecDeque<(String, usize)> = tops
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, d)| (d, i))
        .collect();
    let mut entries = 0usize;
    let mut cut: std::collections::BTreeSet<usize> = std::collections::BTreeSet::new();
    while let Some((at, top)) = queue.pop_front() {
        let Ok(read) = std::fs::read_dir(root.join(&at)) else {
            continue;
        };
        for entry in read.flatten() {
            entries += 1;
            if entries > budget {
                cut.insert(top);
                cut.extend(queue.iter().map(|(_, t)| *t));
                queue.clear();
                break;
            }
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name.eq_ignore_ascii_case(".git") {
                continue;
            }
            let path = format!("{at}/{name}");
            match entry.file_type() {
                Ok(t) if t.is_dir() => queue.push_back((path, top)),
                Ok(t) if t.is_symlink() && lint::agents::is_instruction_dir(&path) => {
                    unsearched.push(format!(
                        "{path}: a symbolic link where agents look for instruction files, in \
                         what git ignores: the files it leads to were not searched; replace it \
                         with the files themselves, or lint them by name (`git aahp lint PATH`)"
                    ));
                }
                Ok(_) if wanted(&path) => found.push(path),
                _ => {}
            }
        }
    }
    for top in cut {
        unsearched.push(format!(
            "{}/: git ignores this directory and it was not searched to the end for agent \
             instruction files (the search reads at most {budget} entries of what git ignores \
             whole): remove it if it is build output, or lint an instruction file in it by \
             name (`git aahp lint PATH`)",
            tops[top]
        ));
    }
    Ok((found, unsearched))
}

/// `read` with what the pre-commit gate pulls in for those files, found by the gate's own
/// search ([`super::verify::add_pulled_in`]): the files `@path` imports load, and a
/// configuration's scripts and named files in the letter case the content holds them
/// (`Hooks/start.sh` for `hooks/start.sh`). `lint --all` then judges every file the gate
/// would judge for them (session 30: it judged no import, nor a path in another case); a
/// script the agent also reads as an import is judged as text, as the gate judges it.
fn pull_in_as_the_gate(
    repo: &Repo,
    content: &super::verify::Content<'_>,
    dir: &HandoffDir,
    read: Vec<AgentRead>,
) -> Result<Vec<AgentRead>> {
    // What the pulled-in configurations run but cannot be followed is reported by the
    // caller, which reads every configuration found.
    let mut runs = super::verify::AgentRuns {
        scripts: read.iter().filter(|r| r.3).map(|r| r.0.clone()).collect(),
        ..Default::default()
    };
    let mut names: std::collections::HashMap<String, String> =
        read.iter().map(|r| (r.0.clone(), r.1.clone())).collect();
    let mut files: Vec<(Option<String>, String, Vec<u8>)> = read
        .into_iter()
        .map(|(rel, _, bytes, _)| (None, rel, bytes))
        .collect();
    let package_roots: Vec<String> = [dir.package_root()]
        .into_iter()
        .filter(|r| !r.is_empty())
        .map(String::from)
        .collect();
    super::verify::add_pulled_in(
        repo,
        content,
        &[],
        &package_roots,
        &[],
        &mut files,
        &mut runs,
    )?;
    Ok(files
        .into_iter()
        .map(|(_, rel, bytes)| {
            let name = names
                .remove(&rel)
                .unwrap_or_else(|| lint::agents::lint_name(&rel, &bytes));
            let script = runs.scripts.contains(&rel);
            (rel, name, bytes, script)
        })
        .collect())
}
