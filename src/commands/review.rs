//! `git aahp review --base REV`: the reviewer's work-list for a pull request (SPEC §3.14): the
//! handoff at HEAD read against the merge base with REV — claims marked verified without
//! evidence, expired or dated ahead, changed files the handoff does not mention, declared
//! open questions and blocked items. A report: it never writes and never fails on what it finds.

use std::collections::BTreeSet;
use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;

use super::Context;
use crate::clock;
use crate::error::{Error, Result};
use crate::git::{ChangeKind, Repo};
use crate::handoff::criteria::{self, Defect};
use crate::handoff::log::LogFile;
use crate::handoff::manifest::Manifest;
use crate::handoff::trust::TrustLedger;
use crate::handoff::{HandoffDir, Snapshot};
use crate::output::{Report, Style, escape_untrusted};

/// Provenance that records no check outside the producing model itself.
const WEAK_PROVENANCE: &[&str] = &["model_claim", "self_reviewed"];
/// Cell or list values that mean "nothing here".
const NONE_VALUES: &[&str] = &["", "-", "—", "none", "n/a", "na", "nothing", "no", "tbd"];

/// Print the reviewer's work-list for a pull request: unbacked, expired or future-dated
/// verified claims, changed files the handoff does not mention, open questions and blocked
/// items.
///
/// The Markdown form is meant for `$GITHUB_STEP_SUMMARY`. Exits 0 whatever it finds.
#[derive(Debug, Clone, clap::Args)]
pub struct ReviewArgs {
    /// The pull request's base (branch, tag or commit); the range is merge-base..HEAD
    /// (default, as for `verify --level ci`: `AAHP_BASE_SHA`, else in GitHub Actions the pull
    /// request's base or the push's `before`).
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReviewFormat::Md)]
    pub format: ReviewFormat,
}

/// The output formats of `review`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReviewFormat {
    /// GitHub-flavoured Markdown.
    Md,
    /// One JSON document.
    Json,
}

/// A claim the reviewer should check.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimItem {
    /// The property claimed.
    pub property: String,
    /// Its provenance, if any.
    pub provenance: Option<String>,
    /// Its computed expiry.
    pub expires: Option<String>,
    /// Why it needs checking (`no provenance`, `expired on …`, …).
    pub reasons: Vec<String>,
    /// Repository-relative path of TRUST.md.
    pub path: String,
    /// 1-based line of the row.
    pub line: usize,
}

/// A changed file no handoff file mentions.
#[derive(Debug, Clone, Serialize)]
pub struct FileItem {
    /// Repository-relative path.
    pub path: String,
    /// How it changed.
    pub change: ChangeKind,
}

/// An open question or a blocked item, quoted from the handoff.
#[derive(Debug, Clone, Serialize)]
pub struct TextItem {
    /// The task id, for blocked tasks from the manifest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// The text, as written.
    pub text: String,
    /// The heading it sits under.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// Repository-relative path.
    pub path: String,
    /// 1-based line (absent for manifest tasks).
    pub line: Option<usize>,
}

/// An acceptance-criteria finding (advisory: criteria are read heuristically).
#[derive(Debug, Clone, Serialize)]
pub struct CriteriaItem {
    /// What is wrong.
    pub defect: Defect,
    /// The task the section belongs to, when one does.
    pub task: Option<String>,
    /// The criterion, or the section's heading.
    pub text: String,
    /// The file.
    pub path: String,
    /// 1-based line.
    pub line: usize,
}

/// The result of `git aahp review`.
#[derive(Debug, Serialize)]
pub struct ReviewReport {
    /// The base as given.
    pub base: String,
    /// The merge base of the base and HEAD.
    pub merge_base: String,
    /// HEAD.
    pub head: String,
    /// The handoff directory read.
    pub handoff: String,
    /// The other handoff directories read: at a monorepo's root, each package's whose
    /// package the range changes (as `verify --level ci` judges them). Their items are
    /// listed with the others, each naming its file; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<String>,
    /// Verified claims without evidence, expired, or dated ahead of today.
    pub claims: Vec<ClaimItem>,
    /// Changed files outside the handoff that no handoff file mentions.
    pub unmentioned_files: Vec<FileItem>,
    /// Declared open questions.
    pub open_questions: Vec<TextItem>,
    /// Blocked tasks and items.
    pub blocked: Vec<TextItem>,
    /// Acceptance-criteria defects in `NEXT_ACTIONS.md` (advisory).
    pub criteria: Vec<CriteriaItem>,
    /// What limited the review (no handoff at HEAD, …).
    pub notes: Vec<String>,
    /// What the range adds to keep its own text from being judged (review s23 #12):
    /// allowlist entries the merge base does not hold as they are, inline `aahp:allow`
    /// markers, `.aiignore` lines removed. Listed for the reviewer; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suppressions: Vec<TextItem>,
    /// What the range adds to the agent configuration files (review s26 #4): session hook
    /// commands, MCP servers, permission prompts turned off. The gate cannot tell a good one
    /// from a bad one, so they are listed for the reviewer; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub agent_config: Vec<TextItem>,
}

impl Report for ReviewReport {
    fn command(&self) -> &'static str {
        "review"
    }

    fn write_human(&self, w: &mut dyn Write, _style: &Style) -> io::Result<()> {
        writeln!(
            w,
            "## AAHP review: {}..{}\n",
            code(&short(&self.merge_base)),
            code(&short(&self.head))
        )?;
        let mut handoffs = code(&self.handoff);
        for p in &self.packages {
            handoffs.push_str(", ");
            handoffs.push_str(&code(p));
        }
        writeln!(
            w,
            "Handoff {} at HEAD, against the merge base with {}: {}, {}, {}, {}.",
            handoffs,
            code(&self.base),
            count(self.claims.len(), "claim to check", "claims to check"),
            count(
                self.unmentioned_files.len(),
                "changed file not mentioned",
                "changed files not mentioned"
            ),
            count(self.open_questions.len(), "open question", "open questions"),
            count(self.blocked.len(), "blocked item", "blocked items"),
        )?;
        for note in &self.notes {
            writeln!(w, "\n> **Note:** {}", md(note))?;
        }

        section(
            w,
            "Claims marked verified without evidence, expired, or dated ahead",
            self.claims.len(),
        )?;
        for c in &self.claims {
            let reasons: Vec<String> = c.reasons.iter().map(|r| md(r)).collect();
            writeln!(
                w,
                "- **{}**: {} ({})",
                md(&c.property),
                reasons.join("; "),
                code(&format!("{}:{}", c.path, c.line))
            )?;
        }

        section(
            w,
            "Changed files the handoff does not mention",
            self.unmentioned_files.len(),
        )?;
        for f in &self.unmentioned_files {
            writeln!(w, "- {} ({})", code(&f.path), kind_word(f.change))?;
        }

        if !self.suppressions.is_empty() {
            section(
                w,
                "Suppressions the range adds (the gate's findings they hide)",
                self.suppressions.len(),
            )?;
            for s in &self.suppressions {
                write_text_item(w, s)?;
            }
        }

        if !self.agent_config.is_empty() {
            section(
                w,
                "Agent configuration the range adds (run or allowed without asking)",
                self.agent_config.len(),
            )?;
            for a in &self.agent_config {
                write_text_item(w, a)?;
            }
        }

        section(w, "Open questions", self.open_questions.len())?;
        for q in &self.open_questions {
            write_text_item(w, q)?;
        }

        section(w, "Blocked", self.blocked.len())?;
        for b in &self.blocked {
            write_text_item(w, b)?;
        }

        section(w, "Acceptance criteria, advisory", self.criteria.len())?;
        for c in &self.criteria {
            let task = c
                .task
                .as_deref()
                .map_or(String::new(), |t| format!("**{}** ", md(t)));
            let what = match c.defect {
                Defect::UnresolvedOnDone => "open criterion on a done task",
                Defect::PlainBullets => "criteria written as plain items, not task boxes",
                Defect::LegacyHeading => "legacy heading; call it Acceptance criteria",
                Defect::Unparsed => "criteria section with no list item",
                Defect::Unbound => "criteria section no task in the registry owns",
            };
            writeln!(
                w,
                "- {task}{what}: {} ({})",
                md(&c.text),
                code(&format!("{}:{}", c.path, c.line))
            )?;
        }
        Ok(())
    }
}

fn section(w: &mut dyn Write, title: &str, n: usize) -> io::Result<()> {
    writeln!(w, "\n### {title} ({n})\n")?;
    if n == 0 {
        writeln!(w, "_None._")?;
    }
    Ok(())
}

fn write_text_item(w: &mut dyn Write, item: &TextItem) -> io::Result<()> {
    let task = item
        .task
        .as_deref()
        .map_or(String::new(), |t| format!("**{}** ", md(t)));
    let section = item
        .section
        .as_deref()
        .map_or(String::new(), |s| format!(" — under _{}_", md(s)));
    let place = match item.line {
        Some(l) => format!("{}:{l}", item.path),
        None => item.path.clone(),
    };
    writeln!(w, "- {task}{}{section} ({})", md(&item.text), code(&place))
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn short(id: &str) -> String {
    id.chars().take(7).collect()
}

fn kind_word(k: ChangeKind) -> &'static str {
    match k {
        ChangeKind::Added => "added",
        ChangeKind::Modified => "modified",
        ChangeKind::Deleted => "deleted",
    }
}

/// Handoff text as inert Markdown: control characters made visible (so no line break can
/// start a workflow command or a new block) and every character that could open a link,
/// image, HTML tag, emphasis or table cell escaped.
pub fn md(s: &str) -> String {
    let safe = escape_untrusted(s);
    let mut out = String::with_capacity(safe.len());
    for c in safe.chars() {
        if matches!(
            c,
            '\\' | '`'
                | '*'
                | '_'
                | '['
                | ']'
                | '<'
                | '>'
                | '!'
                | '|'
                | '~'
                | '&'
                | '#'
                | '('
                | ')'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A path or id as an inline code span (backticks inside cannot close it).
fn code(s: &str) -> String {
    format!("`{}`", escape_untrusted(s).replace('`', "'"))
}

/// Runs `git aahp review`.
pub fn run(ctx: &Context, args: &ReviewArgs) -> Result<ReviewReport> {
    // Run in CI on a checkout a pull request may have written the git directory of.
    crate::handoff::distrust_git_dir_caches();
    let repo = ctx.repo()?;
    let dir = ctx.handoff()?;
    let head = repo
        .head_commit()?
        .ok_or_else(|| Error::other("HEAD has no commit yet; there is nothing to review"))?;
    let (base_name, merge_base) = if let Some(given) = &args.base {
        if given.trim().is_empty() || given.starts_with('-') {
            return Err(Error::Usage(format!("--base `{given}` is not a revision")));
        }
        let base = repo.resolve_commit(given)?;
        let merge_base = repo.merge_base(base, head)?.ok_or_else(|| {
            Error::Usage(format!(
                "`{given}` and HEAD have no common ancestor; nothing to compare"
            ))
        })?;
        (given.clone(), merge_base)
    } else {
        // The same base `verify --level ci` finds, so CI needs no `--base` for either.
        let env = |name: &str| std::env::var(name).ok();
        match super::range::ci_base(repo, head, None, &env)? {
            super::range::CiBase::Range { merge_base, range } => (
                range
                    .base
                    .as_ref()
                    .map_or_else(|| merge_base.to_string(), |b| b.raw().to_string()),
                merge_base,
            ),
            super::range::CiBase::Unusable(why) => {
                return Err(Error::Usage(format!("{why}; pass --base REV")));
            }
        }
    };
    let changes = repo.commit_changes(Some(merge_base), head)?;
    let packages = package_dirs(repo, &dir, &changes, head)?;
    let mut report = ReviewReport {
        base: base_name,
        merge_base: merge_base.to_string(),
        head: head.to_string(),
        handoff: dir.rel.clone(),
        packages: packages.iter().map(|d| d.rel.clone()).collect(),
        claims: Vec::new(),
        unmentioned_files: Vec::new(),
        open_questions: Vec::new(),
        blocked: Vec::new(),
        criteria: Vec::new(),
        notes: Vec::new(),
        suppressions: Vec::new(),
        agent_config: Vec::new(),
    };
    let today = clock::utc_date(ctx.now);
    // The packages' own changes are theirs to account for, not the directory's above them.
    let owned: Vec<String> = packages
        .iter()
        .map(|d| format!("{}/", d.package_root()))
        .collect();
    review_dir(repo, &dir, [merge_base, head], today, &owned, &mut report)?;
    for package in &packages {
        review_dir(repo, package, [merge_base, head], today, &[], &mut report)?;
    }
    redact_owners_secrets(repo, &report.unmentioned_files, [head, merge_base])?;
    report.agent_config = super::verify::added_grants(repo, merge_base, head, &changes)?
        .into_iter()
        .map(|(path, what)| TextItem {
            task: None,
            text: what.text(),
            section: None,
            path,
            line: None,
        })
        .collect();
    Ok(report)
}

/// The package handoff directories (`<package>/.ai/handoff`) at `head` other than `dir`
/// that own a changed path (the nearest one along it), in path order: `review` at a
/// monorepo's root read the root's directory alone, and listed none of the packages'
/// claims, questions, blocked items or suppressions that `verify --level ci` judges (left
/// by review atk42).
fn package_dirs(
    repo: &Repo,
    dir: &HandoffDir,
    changes: &[crate::git::Change],
    head: gix::ObjectId,
) -> Result<Vec<HandoffDir>> {
    // Whether HEAD holds a handoff directory in a directory, asked once each.
    let mut holds: std::collections::HashMap<String, bool> = std::collections::HashMap::new();
    let mut owners = BTreeSet::new();
    for c in changes {
        let mut at = c.path.as_str();
        while let Some((parent, _)) = at.rsplit_once('/') {
            at = parent;
            let rel = format!("{at}/{}", crate::handoff::DEFAULT_DIR);
            let found = if let Some(&h) = holds.get(at) {
                h
            } else {
                let h = repo.tree_has_dir(head, &rel)?;
                holds.insert(at.to_string(), h);
                h
            };
            if found {
                if rel != dir.rel {
                    owners.insert(rel);
                }
                break;
            }
        }
    }
    let mut dirs = Vec::new();
    for rel in owners {
        let d = HandoffDir::at_rel(repo, &rel)?;
        // What its `.aiignore` calls a secret is redacted from the report, as the located
        // directory's is (review atk42 #5).
        crate::output::boundary::redact_user_secrets_of(&d)?;
        dirs.push(d);
    }
    Ok(dirs)
}

/// Adds one handoff directory's items to the report: its claims, the changes it does not
/// mention (those under `owned`, packages read on their own, left out), its open
/// questions, blocked items, criteria and suppressions.
fn review_dir(
    repo: &Repo,
    dir: &HandoffDir,
    [merge_base, head]: [gix::ObjectId; 2],
    today: jiff::civil::Date,
    owned: &[String],
    report: &mut ReviewReport,
) -> Result<()> {
    // Nothing here reads LOG-ARCHIVE.md or its index: left unread, whatever their size
    // (issue #12 item 2).
    let leave = crate::handoff::ARCHIVE_PAIR;
    let snap = dir.snapshot_commit_leaving(repo, head, &leave)?;
    let old = dir.snapshot_commit_leaving(repo, merge_base, &leave)?;
    if snap.files.is_empty() && snap.unread.is_empty() {
        report.notes.push(format!(
            "HEAD has no handoff directory at {}; every changed file is unaccounted for",
            dir.rel
        ));
    }
    report.claims.extend(claims(dir, &snap, today)?);
    report.unmentioned_files.extend(
        unmentioned(repo, dir, &snap, &old, merge_base, head)?
            .into_iter()
            .filter(|f| !owned.iter().any(|o| f.path.starts_with(o.as_str()))),
    );
    for (name, text) in texts(dir, &snap)? {
        if name == "LOG.md" || name == "LOG-ARCHIVE.md" {
            continue;
        }
        // Redacted as a whole, in file coordinates, before it is split into items: a line
        // of a multi-line secret alone is not recognisable (review s23 item 9).
        let text = &*crate::output::boundary::redact_keeping_lines(text);
        report
            .open_questions
            .extend(open_questions(&dir.path_of(&name), text));
        if name == "NEXT_ACTIONS.md" {
            report
                .blocked
                .extend(blocked_lines(&dir.path_of(&name), text));
            report
                .criteria
                .extend(criteria_items(dir, &snap, &dir.path_of(&name), text)?);
        }
    }
    report.blocked.extend(blocked_tasks(dir, &snap)?);
    report.suppressions.extend(suppressions(dir, &snap, &old));
    Ok(())
}

/// The suppressions HEAD holds that the merge base does not ([`ReviewReport::suppressions`]).
/// Only what identifies a suppression is quoted (rule, reason, owner, expiry; the marker),
/// never an allowed value or a removed pattern, which may be the secret itself.
fn suppressions(dir: &HandoffDir, snap: &Snapshot, old: &Snapshot) -> Vec<TextItem> {
    let item = |text: String, name: &str, line: Option<usize>| TextItem {
        task: None,
        text,
        section: None,
        path: dir.path_of(name),
        line,
    };
    let text_of =
        |s: &Snapshot, name: &str| s.get(name).map(|b| String::from_utf8_lossy(b).into_owned());
    let entries = |s: &Snapshot, name: &str| -> Vec<serde_json::Value> {
        text_of(s, name)
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["entries"].as_array().cloned())
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    for name in [
        crate::lint::allow::ALLOWLIST,
        crate::lint::allow::PII_ALLOWLIST,
    ] {
        let before = entries(old, name);
        for e in entries(snap, name).iter().filter(|e| !before.contains(e)) {
            let field = |k: &str| e[k].as_str().unwrap_or("?").to_string();
            let rule = e["rule"]
                .as_str()
                .map_or_else(String::new, |r| format!("{r} "));
            out.push(item(
                format!(
                    "allowlist entry {rule}added or changed: {} ({}, until {})",
                    field("reason"),
                    field("owner"),
                    field("expires")
                ),
                name,
                None,
            ));
        }
    }
    if let Some(before) = text_of(old, crate::handoff::AIIGNORE) {
        let now = text_of(snap, crate::handoff::AIIGNORE).unwrap_or_default();
        // An exception the base does not hold releases text from the patterns as surely as
        // removing them (named by line only: it may quote the secret it excepts).
        let had: std::collections::HashSet<&str> = before.lines().map(str::trim).collect();
        for (i, l) in now.lines().enumerate() {
            let l = l.trim();
            if l.starts_with('!') && !had.contains(l) {
                out.push(item(
                    format!(
                        "line {} of .aiignore adds an exception (text the patterns no longer match)",
                        i + 1
                    ),
                    crate::handoff::AIIGNORE,
                    None,
                ));
            }
        }
        let kept: std::collections::HashSet<&str> = now.lines().map(str::trim).collect();
        for (i, l) in before.lines().enumerate() {
            let l = l.trim();
            if !l.is_empty() && !l.starts_with('#') && !kept.contains(l) {
                out.push(item(
                    format!(
                        "line {} of the base's .aiignore removed (a pattern no longer applied)",
                        i + 1
                    ),
                    crate::handoff::AIIGNORE,
                    None,
                ));
            }
        }
    }
    for name in snap.files.keys() {
        let Some(now) = text_of(snap, name) else {
            continue;
        };
        let before = text_of(old, name).unwrap_or_default();
        for (i, l) in now.lines().enumerate() {
            let Some(at) = l.find("aahp:allow") else {
                continue;
            };
            let marker = &l[at..];
            let marker = marker
                .find("-->")
                .map_or(marker, |e| &marker[..e])
                .trim_end();
            if !before.lines().any(|b| b.contains(marker)) {
                out.push(item(
                    format!("inline marker added: {marker}"),
                    name,
                    Some(i + 1),
                ));
            }
        }
    }
    out
}

/// The Markdown files of a snapshot as text, by name.
fn texts<'a>(dir: &HandoffDir, snap: &'a Snapshot) -> Result<Vec<(String, &'a str)>> {
    let mut out = Vec::new();
    for name in snap.files.keys() {
        if let Some(stem) = name.strip_suffix(".md")
            && !stem.is_empty()
            && let Some(text) = snap.text(dir, name)?
        {
            out.push((name.clone(), text));
        }
    }
    Ok(out)
}

/// Verified claims with no external anchor, past their expiry, or dated ahead of today.
fn claims(dir: &HandoffDir, snap: &Snapshot, today: jiff::civil::Date) -> Result<Vec<ClaimItem>> {
    let path = dir.path_of("TRUST.md");
    let Some(text) = snap.text(dir, "TRUST.md")? else {
        return Ok(Vec::new());
    };
    let ledger = TrustLedger::parse(&path, text)?;
    let mut out = Vec::new();
    for c in ledger.claims.iter().filter(|c| c.is_verified()) {
        let mut reasons = Vec::new();
        match c.provenance.as_deref() {
            None => reasons.push("no provenance".to_string()),
            Some(p) if WEAK_PROVENANCE.contains(&p.trim().to_lowercase().as_str()) => {
                reasons.push(format!("provenance {p} is not independent evidence"));
            }
            Some(_) => {}
        }
        if c.notes.as_deref().is_none_or(is_none_value) {
            reasons.push("no evidence in the notes".into());
        }
        if let Some(b) = c.mismatched_builtin_check() {
            reasons.push(format!(
                "its Check names the built-in check {}, which establishes only {}: the check does not judge this claim, its date does",
                b.name(),
                b.establishes()
            ));
        }
        // A row a built-in check judges has no date to miss (as in `verify`); one dated
        // ahead of today vouches for nothing, as `verify` and `context` say (review s30 #8).
        if !c.has_builtin_check()
            && let Some(why) = c.out_of_date_reason(today)
        {
            reasons.push(why);
        }
        if !reasons.is_empty() {
            out.push(ClaimItem {
                property: c.property.clone(),
                provenance: c.provenance.clone(),
                expires: c.expiry().map(|d| d.to_string()),
                reasons,
                path: path.clone(),
                line: c.line,
            });
        }
    }
    Ok(out)
}

fn is_none_value(s: &str) -> bool {
    let t = s
        .trim()
        .trim_matches(|c: char| matches!(c, '*' | '_' | '`' | '.' | ' '))
        .to_lowercase();
    let words: Vec<&str> = t.split_whitespace().collect();
    // "None recorded.", "Nothing yet": a placeholder, not a question.
    NONE_VALUES.contains(&t.as_str())
        || (words.len() <= 3 && matches!(words.first(), Some(&("none" | "nothing"))))
}

/// Changed files outside the handoff directory (within its package) that neither STATUS.md,
/// `NEXT_ACTIONS.md` nor a LOG entry new in the range mentions by path or file name.
/// Registers with the output boundary the secrets sections of the `.aiignore` of every
/// package handoff directory (`<dir>/.ai/handoff`) along the listed files' paths, as
/// `commits` hold them: at a monorepo's root the report lists every package's files, and
/// a name holding what a package's `.aiignore` calls a secret was printed in clear (review
/// atk42 #5). Each directory is looked up once.
fn redact_owners_secrets(
    repo: &Repo,
    files: &[FileItem],
    commits: [gix::ObjectId; 2],
) -> Result<()> {
    let mut seen = BTreeSet::new();
    for f in files {
        let mut at = f.path.as_str();
        while let Some((parent, _)) = at.rsplit_once('/') {
            at = parent;
            if !seen.insert(at.to_string()) {
                break;
            }
            let path = format!(
                "{at}/{}/{}",
                crate::handoff::DEFAULT_DIR,
                crate::handoff::AIIGNORE
            );
            for commit in commits {
                // A submodule along the path holds no directory of this repository.
                let Ok(Some(file)) = repo.tree_file_at(commit, &path) else {
                    continue;
                };
                if file.is_link {
                    continue;
                }
                if let Ok(bytes) = repo.blob_within(file.id, crate::handoff::max_bytes(&path))? {
                    crate::output::boundary::redact_user_secrets_in(
                        &path,
                        &String::from_utf8_lossy(&bytes),
                    )?;
                }
            }
        }
    }
    Ok(())
}

fn unmentioned(
    repo: &Repo,
    dir: &HandoffDir,
    snap: &Snapshot,
    old: &Snapshot,
    merge_base: gix::ObjectId,
    head: gix::ObjectId,
) -> Result<Vec<FileItem>> {
    let mut corpus = String::new();
    for name in ["STATUS.md", "NEXT_ACTIONS.md"] {
        if let Some(t) = snap.text(dir, name)? {
            corpus.push_str(t);
            corpus.push('\n');
        }
    }
    if let Some(log) = snap.text(dir, "LOG.md")? {
        let before: BTreeSet<String> = match old.text(dir, "LOG.md") {
            Ok(Some(t)) => LogFile::parse(t).digests().into_iter().collect(),
            _ => BTreeSet::new(),
        };
        for e in LogFile::parse(log).entries {
            if !before.contains(&e.digest()) {
                corpus.push_str(&e.text);
                corpus.push('\n');
            }
        }
    }
    let package = dir.package_root();
    let prefix = format!("{}/", dir.rel);
    let package_prefix = format!("{package}/");
    let changes: Vec<_> = repo
        .commit_changes(Some(merge_base), head)?
        .into_iter()
        .filter(|c| !c.path.starts_with(&prefix))
        .filter(|c| package.is_empty() || c.path.starts_with(&package_prefix))
        .collect();
    // Each change is named by its path, its path in the package or its file name: all of
    // them are looked for in one pass over the text (a search per file was files × text,
    // review rob37 #6).
    let names = |path: &str| -> [String; 3] {
        let relative = if package.is_empty() {
            path
        } else {
            path.strip_prefix(&package_prefix).unwrap_or(path)
        };
        let name = path.rsplit('/').next().unwrap_or(path);
        [path.to_string(), relative.to_string(), name.to_string()]
    };
    let needles: BTreeSet<String> = changes.iter().flat_map(|c| names(&c.path)).collect();
    let needles: Vec<&str> = needles.iter().map(String::as_str).collect();
    let found = mentioned(&corpus, &needles);
    let is_mentioned = |n: &str| needles.binary_search(&n).is_ok_and(|i| found[i]);
    Ok(changes
        .into_iter()
        .filter(|c| !names(&c.path).iter().any(|n| is_mentioned(n)))
        .map(|c| FileItem {
            path: c.path,
            change: c.kind,
        })
        .collect())
}

/// For each of `needles`, whether [`mentions`] holds for it in `text`: one pass over `text`
/// for all of them (every occurrence of every needle, each checked where it stands).
pub fn mentioned(text: &str, needles: &[&str]) -> Vec<bool> {
    let mut found = vec![false; needles.len()];
    let searched: Vec<(usize, &str)> = needles
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, n)| !n.is_empty())
        .collect();
    let Ok(ac) = aho_corasick::AhoCorasick::new(searched.iter().map(|(_, n)| n)) else {
        // Too many needles for an automaton: one search each, as before.
        for (i, n) in searched {
            found[i] = mentions(text, n);
        }
        return found;
    };
    for m in ac.find_overlapping_iter(text) {
        let i = searched[m.pattern().as_usize()].0;
        if !found[i] && stands_alone(text, m.start(), m.end()) {
            found[i] = true;
        }
    }
    found
}

/// Whether `text[start..end]` is a whole path or name: not glued to a letter, digit, `_`,
/// `-` or `.` before it, nor to a letter, digit, `_` or `-` after it.
fn stands_alone(text: &str, start: usize, end: usize) -> bool {
    let glued = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    !before.is_some_and(|c| glued(c) || c == '.') && !after.is_some_and(glued)
}

/// True when `needle` occurs in `text` as a whole path or name: not glued to a letter,
/// digit, `_`, `-` or `.` before it, nor to a letter, digit, `_` or `-` after it.
pub fn mentions(text: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    text.match_indices(needle)
        .any(|(i, _)| stands_alone(text, i, i + needle.len()))
}

/// A Markdown heading: its level and text.
fn heading(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_start();
    let level = t.bytes().take_while(|b| *b == b'#').count();
    if level == 0 || level > 6 || !t[level..].starts_with([' ', '\t']) && t.len() > level {
        return None;
    }
    Some((level, t[level..].trim().trim_end_matches('#').trim()))
}

/// Lines of a text with their 1-based numbers, fenced code blocks left out.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<&str> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let marker = if t.starts_with("```") {
            Some("```")
        } else if t.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m => fence = None,
            (None, None) => out.push((i + 1, line.trim_end_matches('\r'))),
            _ => {}
        }
    }
    out
}

/// A list item's text, or a paragraph line's; `None` for blanks, rules, comments and "none".
fn item_text(line: &str) -> Option<String> {
    let t = line.trim();
    if t.starts_with("<!--") || t.starts_with("---") || t.starts_with('|') {
        return None;
    }
    let t = t
        .strip_prefix("- [ ] ")
        .or_else(|| t.strip_prefix("* [ ] "))
        .or_else(|| t.strip_prefix("- "))
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| t.strip_prefix("+ "))
        .or_else(|| {
            let digits = t.bytes().take_while(u8::is_ascii_digit).count();
            (digits > 0)
                .then(|| {
                    t[digits..]
                        .strip_prefix(". ")
                        .or(t[digits..].strip_prefix(") "))
                })
                .flatten()
        })
        .unwrap_or(t)
        .trim();
    (!is_none_value(t)).then(|| t.to_string())
}

/// True for a line that starts a list item (`- x`, `* x`, `+ x`, `1. x`, `1) x`).
fn is_list_item(line: &str) -> bool {
    let t = line.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    ["- ", "* ", "+ "].iter().any(|p| t.starts_with(p))
        || digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") "))
}

/// The items of every `## Open questions` section (any heading level, any case) and of a
/// `<!-- SECTION: open_questions -->` block.
fn open_questions(path: &str, text: &str) -> Vec<TextItem> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String)> = None;
    let mut marker = false;
    // Lines the last item spans so far.
    let mut spanned = 1;
    for (n, line) in prose_lines(text) {
        let t = line.trim();
        if t == "<!-- SECTION: open_questions -->" {
            marker = true;
            continue;
        }
        if t == "<!-- /SECTION: open_questions -->" {
            marker = false;
            continue;
        }
        if let Some((level, title)) = heading(line) {
            if open.as_ref().is_some_and(|(l, _)| level <= *l) {
                open = None;
            }
            if title.to_lowercase().contains("open question") {
                open = Some((level, title.to_string()));
            }
            continue;
        }
        if open.is_none() && !marker {
            continue;
        }
        // A line indented under an item continues it (review s23 item 18): one question
        // written over two lines is one question.
        let continues = line.starts_with([' ', '\t'])
            && !is_list_item(line)
            && out
                .last()
                .is_some_and(|q: &TextItem| q.line.is_some_and(|l| l + spanned == n));
        if continues && let Some(last) = out.last_mut() {
            last.text.push(' ');
            last.text.push_str(line.trim());
            spanned += 1;
            continue;
        }
        spanned = 1;
        if let Some(item) = item_text(line) {
            out.push(TextItem {
                task: None,
                text: item,
                section: open.as_ref().map(|(_, s)| s.clone()),
                path: path.to_string(),
                line: Some(n),
            });
        }
    }
    out
}

/// True when `s` contains the word "blocked" (any case).
fn says_blocked(s: &str) -> bool {
    let lower = s.to_lowercase();
    lower.match_indices("blocked").any(|(i, _)| {
        let before = lower[..i].chars().next_back();
        let after = lower[i + "blocked".len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// True when a line outside a blocked section marks its item blocked (`Blocked by: x`,
/// `status: blocked`, `(blocked)`, `is blocked on …`), not when it only uses the word
/// (`ready/blocked/done counts`).
fn marks_blocked(line: &str) -> bool {
    let l = line
        .to_lowercase()
        .replace(['*', '_', '`'], "")
        .trim_start_matches(['-', '+', ' ', '>'])
        .to_string();
    says_blocked(&l)
        && (l.starts_with("blocked")
            || [
                "blocked by",
                "blocked on",
                "blocked:",
                "blocked until",
                "is blocked",
                "(blocked)",
                "[blocked]",
                "status: blocked",
                "⛔",
            ]
            .iter()
            .any(|p| l.contains(p)))
}

/// `NEXT_ACTIONS.md` items marked blocked: the items of a section whose heading says blocked
/// (the heading itself when the section lists nothing), and any other line that says
/// blocked, unless it is an empty `Blocked by:` field. An item of a blocked section is one
/// of its subheadings (`### T-006: …`, whose body is not itself a list of items) or one of
/// its top-level list items or `Blocked by:` fields; quotes, labels and nested bullets are
/// the items' text, not items (issue #15: one blocked task counted 25 times).
fn blocked_lines(path: &str, text: &str) -> Vec<TextItem> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    // (level, heading line, heading, listed, inside a subheading's body)
    let mut blocked_section: Option<(usize, usize, String, bool, bool)> = None;
    // `**Blocked by:** x` reads as `Blocked by: x` in a list of blocked items.
    let item = |text: String, section: Option<String>, line: usize| TextItem {
        task: None,
        text: text.replace("**", "").replace("__", ""),
        section,
        path: path.to_string(),
        line: Some(line),
    };
    let lines = prose_lines(text);
    for (n, line) in &lines {
        if let Some((level, title)) = heading(line) {
            if let Some((l, hn, h, listed, _)) = blocked_section.take() {
                if level > l {
                    out.push(item(title.to_string(), Some(h.clone()), *n));
                    blocked_section = Some((l, hn, h, true, true));
                    continue;
                } else if !listed {
                    out.push(item(h, None, hn));
                }
            }
            current = Some(title.to_string());
            if blocked_section.is_none() && says_blocked(title) {
                blocked_section = Some((level, *n, title.to_string(), false, false));
            }
            continue;
        }
        if line.trim_start().starts_with('>') {
            continue;
        }
        if let Some((_, _, h, listed, in_sub)) = blocked_section.as_mut() {
            let top_item = !line.starts_with([' ', '\t'])
                && (line.starts_with(['-', '*', '+'])
                    || line.starts_with(|c: char| c.is_ascii_digit()))
                && !line.starts_with("**");
            let blocked_by = line
                .replace(['*', '_'], "")
                .trim_start_matches(['-', '*', '+', ' '])
                .to_lowercase()
                .starts_with("blocked by");
            if !*in_sub
                && (top_item || blocked_by)
                && let Some(t) = item_text(line)
                && !is_empty_blocked_by(&t)
            {
                *listed = true;
                out.push(item(t, Some(h.clone()), *n));
            }
            continue;
        }
        if marks_blocked(line)
            && let Some(t) = item_text(line)
            && !is_empty_blocked_by(&t)
        {
            out.push(item(t, current.clone(), *n));
        }
    }
    if let Some((_, hn, h, false, _)) = blocked_section {
        out.push(item(h, None, hn));
    }
    out.sort_by_key(|i| i.line);
    out
}

/// True for a `Blocked by:` field that names nothing (`**Blocked by:** -`).
fn is_empty_blocked_by(line: &str) -> bool {
    let t = line.replace(['*', '_'], "");
    let lower = t.trim().to_lowercase();
    lower
        .strip_prefix("blocked by")
        .map(|rest| rest.trim_start().trim_start_matches(':'))
        .is_some_and(is_none_value)
}

/// Tasks with status `blocked` in the manifest at HEAD.
/// The acceptance-criteria findings of `NEXT_ACTIONS.md`, a task's done state taken from the
/// manifest's task registry.
fn criteria_items(
    dir: &HandoffDir,
    snap: &Snapshot,
    path: &str,
    text: &str,
) -> Result<Vec<CriteriaItem>> {
    let manifest = Manifest::from_snapshot(dir, snap)?;
    let done_by_id: std::collections::HashMap<String, bool> = manifest
        .as_ref()
        .map_or_else(Vec::new, Manifest::tasks)
        .into_iter()
        .map(|(id, t)| (id, t.get("status").and_then(Value::as_str) == Some("done")))
        .collect();
    let done = |id: &str| done_by_id.get(id).copied();
    Ok(criteria::findings(text, &done)
        .into_iter()
        .map(|f| CriteriaItem {
            defect: f.defect,
            task: f.task,
            text: f.text,
            path: path.to_string(),
            line: f.line,
        })
        .collect())
}

fn blocked_tasks(dir: &HandoffDir, snap: &Snapshot) -> Result<Vec<TextItem>> {
    let Some(m) = Manifest::from_snapshot(dir, snap)? else {
        return Ok(Vec::new());
    };
    Ok(m.tasks()
        .into_iter()
        .filter(|(_, t)| t.get("status").and_then(Value::as_str) == Some("blocked"))
        .map(|(id, t)| {
            let title = t.get("title").and_then(Value::as_str).unwrap_or_default();
            let text = match t.get("blocked_by").and_then(Value::as_str) {
                Some(by) => format!("{title} (blocked by: {by})"),
                None => title.to_string(),
            };
            TextItem {
                task: Some(id),
                text,
                section: None,
                path: dir.path_of(crate::handoff::MANIFEST),
                line: None,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_blocked_task_is_one_item() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/corpora/handoff-negatives/homeofe+AAHP/NEXT_ACTIONS.md"
        ))
        .unwrap();
        let items = blocked_lines("N.md", &text);
        let texts: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(
            texts,
            ["T-006: Publish npm package (issue #18)"],
            "{items:?}"
        );
        let list = "# N\n\n## Blocked\n\n- T-001 waits for ops\n  - sub detail\n- T-002 waits for legal\n\nPriority: high\n";
        assert_eq!(blocked_lines("N.md", list).len(), 2);
    }

    #[test]
    fn mentions_needs_a_whole_name() {
        assert!(mentions("Changed src/parser.rs today.", "src/parser.rs"));
        assert!(mentions("see `parser.rs`", "parser.rs"));
        assert!(mentions("in src/parser.rs", "parser.rs"));
        assert!(!mentions("see myparser.rs", "parser.rs"));
        assert!(!mentions("see parser.rsx", "parser.rs"));
        assert!(!mentions("see a.parser.rs", "parser.rs"));
        assert!(!mentions("anything", ""));
    }

    #[test]
    fn all_names_looked_for_at_once_are_found_as_each_alone_is() {
        // Overlapping and nested names, one a suffix or prefix of another, in every
        // position a boundary check meets.
        let needles = [
            "",
            "a.rs",
            "src/a.rs",
            "parser.rs",
            "src/parser.rs",
            "parser",
            "b",
            "x/b",
            "é.md",
            "src/parser.rsx",
        ];
        let texts = [
            "Changed src/parser.rs today.",
            "see myparser.rs and a.rs",
            "src/a.rsb x/b. the b-side é.md",
            "a.parser.rs src/parser.rsx parser",
            "",
            "parser.rs/parser.rs",
        ];
        for text in texts {
            let all = mentioned(text, &needles);
            for (n, got) in needles.iter().zip(all) {
                assert_eq!(got, mentions(text, n), "{n:?} in {text:?}");
            }
        }
    }

    #[test]
    fn markdown_from_the_handoff_is_inert() {
        assert_eq!(
            md("![x](https://evil.example/?k=1) <script>"),
            "\\!\\[x\\]\\(https://evil.example/?k=1\\) \\<script\\>"
        );
        assert_eq!(md("a\n::error::x"), "a\\\\u{a}\\\\::error::x");
        assert_eq!(code("a`b"), "`a'b`");
    }

    #[test]
    fn open_questions_are_read_from_their_sections_only() {
        let text = "# S\n\n## Open Questions\n\n- Which DB?\n- none\n1. Who owns auth?\n\n```\n- not me\n```\n### Detail\n- still open\n## Next\n- not a question\n<!-- SECTION: open_questions -->\nTTL of tokens?\n<!-- /SECTION: open_questions -->\n";
        let items: Vec<(Option<usize>, String)> = open_questions("S.md", text)
            .into_iter()
            .map(|i| (i.line, i.text))
            .collect();
        assert_eq!(
            items,
            [
                (Some(5), "Which DB?".to_string()),
                (Some(7), "Who owns auth?".to_string()),
                (Some(13), "still open".to_string()),
                (Some(17), "TTL of tokens?".to_string()),
            ]
        );
    }

    #[test]
    fn blocked_items_come_from_headings_sections_and_lines() {
        let text = "# Next\n\n## T-001: Deploy ⏳ Blocked\n\n**Blocked by:** staging credentials\n\n## T-002: Docs\n\n**Blocked by:** -\nNot blocked at all? It says blocked.\n\n## Blocked\n\n## T-003: Unblocked work\n- done\n";
        let items: Vec<(Option<usize>, String)> = blocked_lines("N.md", text)
            .into_iter()
            .map(|i| (i.line, i.text))
            .collect();
        assert_eq!(
            items,
            [
                (Some(5), "Blocked by: staging credentials".to_string()),
                // A line that only uses the word does not mark anything blocked.
                (Some(12), "Blocked".to_string()),
            ]
        );
    }
}
