//! `git aahp doctor` (issue #16): one read-only look at the whole set-up. Are the git hooks
//! installed, current and really run (not shadowed by another hook or a hook manager that
//! never calls them)? Is the merge driver configured where `.gitattributes` names it? Are
//! the agent-harness hooks there? And can the repository's CI skip the gate: no workflow
//! runs `verify --level ci`, `continue-on-error`, path filters or `if:` conditions on the
//! job that runs it, events without a base, a shallow checkout. A failing check exits 1;
//! nothing is written.

use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;
use yaml_rust2::{Yaml, YamlLoader};

use super::Context;
use super::agent_hook::{self, Harness};
use super::hooks::{
    self, HookReport, HookState, HooksAction, HooksArgs, HooksReport, ManagerReport,
};
use crate::error::{ExitStatus, Result};
use crate::handoff::read_limited;
use crate::output::{Report, Style, boundary};

/// The attribute that hands handoff files to the merge driver.
const MERGE_ATTRIBUTE: &str = "merge=aahp";
/// The config key git needs to run that driver.
const MERGE_DRIVER_KEY: &str = "merge.aahp.driver";
/// Where GitHub looks for workflows.
const WORKFLOWS: &str = ".github/workflows";
/// How to make CI run the gate.
const CI_HINT: &str = "call the reusable workflow or the action, or run `git aahp verify --level ci` in a job (README, CI)";

/// Check the whole set-up: git hooks, merge driver, agent-harness hooks and the CI
/// workflows (read-only; exit 1 when a check fails).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DoctorArgs {}

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Nothing to fix.
    Ok,
    /// Worth a look; the gate still holds.
    Warn,
    /// The gate can be skipped or does not run.
    Fail,
}

/// One finding of `doctor`.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// The area: `hooks`, `merge-driver`, `agent-hooks`, `ci`.
    pub area: &'static str,
    /// The verdict.
    pub verdict: Verdict,
    /// What was found (text from the repository goes through the output boundary).
    #[serde(serialize_with = "boundary::text")]
    pub message: String,
    /// How to fix it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Check {
    fn new(area: &'static str, verdict: Verdict, message: impl Into<String>) -> Check {
        Check {
            area,
            verdict,
            message: message.into(),
            hint: None,
        }
    }

    fn hint(mut self, hint: impl Into<String>) -> Check {
        self.hint = Some(hint.into());
        self
    }
}

/// The result of `git aahp doctor`.
#[derive(Debug, Serialize)]
pub struct DoctorReport {
    /// Every check, in order.
    pub checks: Vec<Check>,
}

impl Report for DoctorReport {
    fn command(&self) -> &'static str {
        "doctor"
    }

    fn write_human(&self, w: &mut dyn Write, style: &Style) -> io::Result<()> {
        for c in &self.checks {
            let label = match c.verdict {
                Verdict::Ok => style.ok("ok  "),
                Verdict::Warn => style.warn("warn"),
                Verdict::Fail => style.error("FAIL"),
            };
            writeln!(
                w,
                "{label}  {}: {}",
                c.area,
                boundary::clean_line(&c.message)
            )?;
            if let Some(h) = &c.hint {
                writeln!(w, "      hint: {h}")?;
            }
        }
        let failed = self.failed();
        if failed == 0 {
            writeln!(w, "{}", style.ok("doctor: the set-up holds"))
        } else {
            writeln!(
                w,
                "{}",
                style.error(&format!("doctor: {failed} check(s) failed"))
            )
        }
    }

    fn status(&self) -> ExitStatus {
        if self.failed() == 0 {
            ExitStatus::Success
        } else {
            ExitStatus::Findings
        }
    }
}

impl DoctorReport {
    fn failed(&self) -> usize {
        self.checks
            .iter()
            .filter(|c| c.verdict == Verdict::Fail)
            .count()
    }
}

/// Runs `git aahp doctor`.
pub fn run(ctx: &Context, _args: &DoctorArgs) -> Result<DoctorReport> {
    let repo = ctx.repo()?;
    let root = repo.workdir().to_path_buf();
    let mut checks = Vec::new();
    git_hooks(ctx, &root, &mut checks)?;
    merge_driver(
        &hooks::MergeAttributes::find(ctx, repo)?,
        repo.config_string(MERGE_DRIVER_KEY).is_some(),
        &mut checks,
    );
    agent_hooks(&root, &mut checks)?;
    ci(&root, &mut checks);
    Ok(DoctorReport { checks })
}

/// The git hooks: installed and current, or run through a hook manager's configuration.
fn git_hooks(ctx: &Context, root: &Path, checks: &mut Vec<Check>) -> Result<()> {
    let status = hooks::run(
        ctx,
        &HooksArgs {
            action: HooksAction::Status,
        },
    )?;
    for h in &status.hooks {
        let mut check = hook_check(root, &status, h);
        // A merge git commits without a conflict is still judged by the pre-push hook and
        // in CI: without this hook it is judged later, not never.
        if h.name == "pre-merge-commit" && check.verdict == Verdict::Fail {
            check.verdict = Verdict::Warn;
            check.message.push_str(
                " (a merge committed without a conflict is judged only at push and in CI)",
            );
        }
        // Likewise a patch `git am` applies (the pre-commit framework has no such stage).
        if h.name == "pre-applypatch" && check.verdict == Verdict::Fail {
            check.verdict = Verdict::Warn;
            check
                .message
                .push_str(" (a patch `git am` applies is judged only at push and in CI)");
        }
        checks.push(check);
    }
    Ok(())
}

/// The check of one git hook.
fn hook_check(root: &Path, status: &HooksReport, h: &HookReport) -> Check {
    let name = h.name;
    match h.state {
        HookState::Disabled => Check::new(
            "hooks",
            Verdict::Fail,
            format!(
                "hooks are disabled: the hooks directory {} is not a directory (core.hooksPath), so git runs no {name} hook",
                status.hooks_dir
            ),
        )
        .hint("unset core.hooksPath (or point it at a directory), then run `git aahp hooks install`"),
        HookState::Installed | HookState::Chained | HookState::Wrapped if h.not_executable => {
            Check::new(
                "hooks",
                Verdict::Fail,
                format!("{name} ({}) is not executable: git skips it", h.path),
            )
            .hint("run `git aahp hooks install` to repair it")
        }
        HookState::Installed | HookState::Chained | HookState::Wrapped if h.outdated => {
            Check::new(
                "hooks",
                Verdict::Warn,
                format!("{name} is an older git aahp shim"),
            )
            .hint("run `git aahp hooks install` to update it")
        }
        HookState::Installed | HookState::Chained | HookState::Wrapped => {
            Check::new("hooks", Verdict::Ok, format!("{name} runs git aahp"))
        }
        HookState::Foreign | HookState::Missing => match hook_owner(root, status, h) {
            Some(m) => manager_check(root, status, h, m),
            None if h.state == HookState::Foreign => Check::new(
                "hooks",
                Verdict::Fail,
                format!("{name} ({}) is another hook that never runs git aahp", h.path),
            )
            .hint("run `git aahp hooks install` (it chains the hook), or add git aahp to your hook manager"),
            None => match status.managers.first() {
                // A manager is configured but its hook is not where git looks for it.
                Some(m) => Check::new(
                    "hooks",
                    Verdict::Fail,
                    format!(
                        "no {name} hook in {}: {} is configured ({}) but not installed there, so git runs nothing",
                        status.hooks_dir, m.name, m.evidence
                    ),
                )
                .hint(install_hint(m.name)),
                None => Check::new(
                    "hooks",
                    Verdict::Fail,
                    format!("no {name} hook: nothing checks the handoff before it leaves this clone"),
                )
                .hint("run `git aahp hooks install`"),
            },
        },
    }
}

/// How to install a manager's own hooks.
fn install_hint(manager: &str) -> &'static str {
    match manager {
        "lefthook" => "run `lefthook install`, or `git aahp hooks install`",
        "pre-commit" => {
            "run `pre-commit install --hook-type pre-commit --hook-type pre-push --hook-type pre-merge-commit`, or `git aahp hooks install`"
        }
        "husky" => "run `npx husky` (core.hooksPath becomes .husky/_), or `git aahp hooks install`",
        _ => "run `git aahp hooks install`",
    }
}

/// The hook manager whose hook git runs for `h`: Husky when it owns the hooks directory,
/// else the manager the hook's text names. `None` for a missing hook or anybody else's.
fn hook_owner<'a>(
    root: &Path,
    status: &'a HooksReport,
    h: &HookReport,
) -> Option<&'a ManagerReport> {
    if let Some(m) = status.managers.iter().find(|m| m.owns_hooks_dir) {
        return Some(m);
    }
    if h.state == HookState::Missing {
        return None;
    }
    let path = root.join(&h.path);
    let text = read_limited(&path, &h.path).ok()?;
    let text = String::from_utf8_lossy(&text);
    let by = |name: &str| status.managers.iter().find(|m| m.name == name);
    if text.contains("lefthook") {
        by("lefthook")
    } else if text.contains("File generated by pre-commit") || text.contains("pre-commit.com") {
        by("pre-commit")
    } else if text.contains("husky") {
        by("husky")
    } else {
        None
    }
}

/// Whether a hook manager's configuration runs `git aahp hook STAGE`.
enum ManagerRun {
    /// It does, as a command of its own whose failure stops git.
    Runs,
    /// No entry for the stage runs it (a mention in `echo` or a comment runs nothing).
    Absent(String),
    /// It runs, but its failure is ignored (why).
    Swallowed(String),
    /// lefthook's pre-push command without `use_stdin: true`.
    NoStdin,
    /// It runs only when a condition of the manager or the script holds (what): a commit
    /// or push it does not meet is not judged (review s28b #1).
    Conditional(String),
    /// It cannot be told from here (why).
    NotChecked(String),
}

/// The check of a hook run by the hook manager `m`: its hook must be executable and its
/// configuration must run `git aahp hook <stage>` for this stage (review s23 #15).
fn manager_check(root: &Path, status: &HooksReport, h: &HookReport, m: &ManagerReport) -> Check {
    let name = h.name;
    if h.state == HookState::Missing {
        return Check::new(
            "hooks",
            Verdict::Fail,
            format!(
                "no {name} hook in {}: {} does not install one there, so git runs nothing for {name}",
                status.hooks_dir, m.name
            ),
        )
        .hint(install_hint(m.name));
    }
    if h.not_executable {
        return Check::new(
            "hooks",
            Verdict::Fail,
            format!("{name} ({}) is not executable: git skips it", h.path),
        )
        .hint(install_hint(m.name));
    }
    let run = match m.name {
        "lefthook" => lefthook_runs(root, name),
        "pre-commit" => pre_commit_runs(root, name, pre_commit_config(root, h).as_deref()),
        "husky" => husky_runs(root, name),
        other => ManagerRun::NotChecked(format!("{other} is not a manager doctor reads")),
    };
    let event = match name {
        "pre-push" => "push",
        "pre-merge-commit" => "merge",
        "pre-applypatch" => "`git am`",
        _ => "commit",
    };
    match run {
        ManagerRun::Runs => Check::new(
            "hooks",
            Verdict::Ok,
            format!("{name} runs git aahp through {}", m.name),
        ),
        ManagerRun::Absent(why) => Check::new(
            "hooks",
            Verdict::Fail,
            format!(
                "{name}: {} runs no `git aahp hook {name}` ({why}): nothing checks the handoff at {event}",
                m.name
            ),
        )
        .hint(m.advice.clone()),
        ManagerRun::Swallowed(why) => Check::new(
            "hooks",
            Verdict::Fail,
            format!(
                "{name}: {} runs `git aahp hook {name}` but {why}, so its failure does not stop the {event}",
                m.name
            ),
        )
        .hint(m.advice.clone()),
        ManagerRun::NoStdin => Check::new(
            "hooks",
            Verdict::Fail,
            format!(
                "{name}: lefthook runs `git aahp hook {name}` without `use_stdin: true`: it gets no ref list and judges the current branch, not what is pushed"
            ),
        )
        .hint("add `use_stdin: true` to the lefthook command that runs git aahp"),
        ManagerRun::Conditional(why) => Check::new(
            "hooks",
            Verdict::Fail,
            format!(
                "{name}: {} runs `git aahp hook {name}` only {why}: a {event} that does not meet it is not judged",
                m.name
            ),
        )
        .hint(format!(
            "run it on every {event}: remove the condition (for pre-commit, add `always_run: true`); the hook's own cost follows the change"
        )),
        ManagerRun::NotChecked(why) => Check::new(
            "hooks",
            Verdict::Warn,
            format!(
                "{name}: not checked whether {} runs `git aahp hook {name}`: {why}",
                m.name
            ),
        )
        .hint(m.advice.clone()),
    }
}

/// lefthook: a command (or job) of the stage whose `run:` runs the hook as a command of its
/// own, not skipped, with `use_stdin: true` for pre-push. lefthook runs `run:` with `sh -c`
/// (no errexit).
fn lefthook_runs(root: &Path, stage: &str) -> ManagerRun {
    let Some(file) = hooks::LEFTHOOK_CONFIGS
        .iter()
        .find(|c| root.join(c).is_file())
    else {
        return ManagerRun::Absent("no lefthook configuration file".into());
    };
    let yaml = Path::new(file)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("yml") || e.eq_ignore_ascii_case("yaml"));
    if !yaml {
        return ManagerRun::NotChecked(format!("doctor reads lefthook's YAML only, not {file}"));
    }
    let Some(doc) = read_yaml(root, file) else {
        return ManagerRun::NotChecked(format!("{file} could not be read as YAML"));
    };
    let section = &doc[stage];
    if matches!(section["skip"], Yaml::Boolean(true)) {
        return ManagerRun::Absent(format!("{file} skips the whole {stage} stage"));
    }
    let mut entries: Vec<&Yaml> = Vec::new();
    if let Some(cmds) = section["commands"].as_hash() {
        entries.extend(cmds.values());
    }
    if let Some(jobs) = section["jobs"].as_vec() {
        entries.extend(jobs.iter());
    }
    let mut best = ManagerRun::Absent(format!("{file} has no {stage} command that runs it"));
    for e in entries {
        if matches!(e["skip"], Yaml::Boolean(true)) {
            continue;
        }
        let Some(run) = e["run"].as_str() else {
            continue;
        };
        let verdict = match script_runs(run, stage, false) {
            ManagerRun::Runs
                if stage == "pre-push" && !matches!(e["use_stdin"], Yaml::Boolean(true)) =>
            {
                ManagerRun::NoStdin
            }
            v => v,
        };
        // Its `env:` may make it skip the check, or judge other content.
        let verdict = match (verdict, entry_env_override(e)) {
            (ManagerRun::Runs | ManagerRun::NoStdin, Some(why)) => ManagerRun::Swallowed(why),
            (v, _) => v,
        };
        if matches!(verdict, ManagerRun::Runs) {
            return lefthook_conditions(root, file, section, e, stage).unwrap_or(verdict);
        }
        if !matches!(verdict, ManagerRun::Absent(_)) {
            best = verdict;
        }
    }
    if matches!(best, ManagerRun::Absent(_)) && !section["scripts"].is_badvalue() {
        return ManagerRun::NotChecked(format!("{file}'s {stage} scripts are not read"));
    }
    best
}

/// A lefthook command's `env:` that sets one of [`GATE_OVERRIDES`] (review atk41 #4).
fn entry_env_override(entry: &Yaml) -> Option<String> {
    let env = entry["env"].as_hash()?;
    env.iter().find_map(|(k, v)| {
        let name = k.as_str()?;
        let value = match v {
            Yaml::String(s) => s.clone(),
            Yaml::Integer(i) => i.to_string(),
            Yaml::Boolean(b) => b.to_string(),
            _ => String::new(),
        };
        gate_override(&format!("{name}={value} git aahp"), false)
            .map(|why| why.replace("before it", "in its `env:`"))
    })
}

/// What makes lefthook skip a command that runs the hook, if anything: the stage's or the
/// command's `skip` (other than `false`) or `only`, the command's file filters (`glob`,
/// `root`, `files`, `file_types`, `exclude`: a change outside them runs nothing), its
/// `tags` when the stage excludes tags, and a local configuration (`lefthook-local.yml`)
/// that changes the stage, which lefthook merges and doctor does not.
fn lefthook_conditions(
    root: &Path,
    file: &str,
    section: &Yaml,
    entry: &Yaml,
    stage: &str,
) -> Option<ManagerRun> {
    let set = |v: &Yaml| !matches!(v, Yaml::BadValue | Yaml::Null | Yaml::Boolean(false));
    for key in ["skip", "only"] {
        if set(&section[key]) {
            return Some(ManagerRun::Conditional(format!(
                "when the stage's `{key}` in {file} lets it"
            )));
        }
        if set(&entry[key]) {
            return Some(ManagerRun::Conditional(format!(
                "when its `{key}` in {file} lets it"
            )));
        }
    }
    for key in ["glob", "root", "files", "file_types", "exclude"] {
        if set(&entry[key]) {
            return Some(ManagerRun::Conditional(format!(
                "for the staged files its `{key}` in {file} selects"
            )));
        }
    }
    if set(&entry["tags"]) && set(&section["exclude_tags"]) {
        return Some(ManagerRun::Conditional(format!(
            "unless the stage's `exclude_tags` in {file} excludes its tags"
        )));
    }
    for local in [
        "lefthook-local.yml",
        "lefthook-local.yaml",
        ".lefthook-local.yml",
        ".lefthook-local.yaml",
    ] {
        if root.join(local).is_file()
            && read_yaml(root, local).is_none_or(|d| !d[stage].is_badvalue())
        {
            return Some(ManagerRun::NotChecked(format!(
                "{local} changes the {stage} stage, and lefthook merges it over {file} in a way doctor does not follow"
            )));
        }
    }
    None
}

/// The configuration file the installed pre-commit shim runs with (`--config=…` in its
/// arguments, as `pre-commit install -c FILE` writes it), else the default one that exists.
fn pre_commit_config(root: &Path, h: &HookReport) -> Option<String> {
    let text = read_limited(&root.join(&h.path), &h.path).ok()?;
    let text = String::from_utf8_lossy(&text);
    let named = text.split_whitespace().find_map(|w| {
        w.strip_prefix("--config=").map(|c| {
            c.trim_matches(|c| matches!(c, '"' | '\'' | ')' | '('))
                .to_string()
        })
    });
    named.or_else(|| {
        [".pre-commit-config.yaml", ".pre-commit-config.yml"]
            .into_iter()
            .find(|c| root.join(c).is_file())
            .map(str::to_string)
    })
}

/// pre-commit: a hook of the stage whose `entry` is the command (run without a shell), or
/// one of git-aahp's own hook ids, in the configuration the installed shim reads; and
/// without `always_run: true`, no file filter of its own or of the file (pre-commit runs a
/// hook only for the staged files they select).
fn pre_commit_runs(root: &Path, stage: &str, config: Option<&str>) -> ManagerRun {
    let Some(file) = config else {
        return ManagerRun::Absent("no .pre-commit-config.yaml".into());
    };
    if !root.join(file).is_file() {
        return ManagerRun::Absent(format!(
            "the configuration its hook names, {file}, is missing"
        ));
    }
    let Some(doc) = read_yaml(root, file) else {
        return ManagerRun::NotChecked(format!("{file} could not be read as YAML"));
    };
    let names: &[&str] = match stage {
        "pre-push" => &["pre-push", "push"],
        "pre-merge-commit" => &["pre-merge-commit", "merge-commit"],
        // No stage of the pre-commit framework runs at `git am`.
        "pre-applypatch" => &["pre-applypatch"],
        _ => &["pre-commit", "commit"],
    };
    let in_stage = |stages: &Yaml| match stages.as_vec() {
        Some(list) => list
            .iter()
            .any(|s| s.as_str().is_some_and(|s| names.contains(&s))),
        None => true,
    };
    let mut best = ManagerRun::Absent(format!("{file} has no {stage} hook that runs it"));
    for repo in doc["repos"].as_vec().map(Vec::as_slice).unwrap_or_default() {
        for hook in repo["hooks"]
            .as_vec()
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let stages = if hook["stages"].is_badvalue() {
                &doc["default_stages"]
            } else {
                &hook["stages"]
            };
            if !in_stage(stages) {
                continue;
            }
            let id = hook["id"].as_str().unwrap_or("");
            let verdict = match hook["entry"].as_str() {
                Some(entry) => {
                    let words: Vec<&str> = entry.split_whitespace().collect();
                    if runs_hook_words(&words, stage) {
                        ManagerRun::Runs
                    } else if matches!(words.first(), Some(&("sh" | "bash" | "dash" | "zsh")))
                        && entry.contains("aahp")
                    {
                        ManagerRun::NotChecked(format!("the entry of `{id}` runs a shell script"))
                    } else {
                        continue;
                    }
                }
                // git-aahp's own .pre-commit-hooks.yaml: the ids name the stage.
                None if id.starts_with("aahp-verify")
                    && id.contains("push") == (stage == "pre-push") =>
                {
                    ManagerRun::Runs
                }
                None => continue,
            };
            if matches!(verdict, ManagerRun::Runs) {
                // git-aahp's own hooks say `always_run: true`; a configuration may undo it.
                let always = match hook["always_run"] {
                    Yaml::Boolean(b) => b,
                    _ => hook["entry"].is_badvalue(),
                };
                if !always {
                    let filter = ["files", "exclude", "types", "types_or", "exclude_types"]
                        .into_iter()
                        .map(|k| (k, &hook[k], "its"))
                        .chain(
                            ["files", "exclude"]
                                .into_iter()
                                .map(|k| (k, &doc[k], "the file's")),
                        )
                        .find(|(_, v, _)| !matches!(v, Yaml::BadValue | Yaml::Null));
                    if let Some((key, _, whose)) = filter {
                        return ManagerRun::Conditional(format!(
                            "for the staged files {whose} `{key}` in {file} selects (no `always_run: true`)"
                        ));
                    }
                }
                return verdict;
            }
            best = verdict;
        }
    }
    best
}

/// Husky: `.husky/<stage>`, a script Husky runs with `sh -e`.
fn husky_runs(root: &Path, stage: &str) -> ManagerRun {
    let rel = format!(".husky/{stage}");
    match read_limited(&root.join(&rel), &rel) {
        Ok(bytes) => script_runs(&String::from_utf8_lossy(&bytes), stage, true),
        Err(_) => ManagerRun::Absent(format!("there is no {rel}")),
    }
}

fn read_yaml(root: &Path, file: &str) -> Option<Yaml> {
    let bytes = read_limited(&root.join(file), file).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    YamlLoader::load_from_str(&text).ok()?.into_iter().next()
}

/// Whether a shell script runs `git aahp hook STAGE` as a command of its own, and whether
/// its failure ends the script with a failure. `errexit`: the script runs with `sh -e`.
fn script_runs(script: &str, stage: &str, errexit: bool) -> ManagerRun {
    let lines = logical_lines(script);
    let errexit = errexit
        || lines.iter().any(|l| {
            l == "set -e" || l.starts_with("set -e ") || l == "set -eu" || l == "set -o errexit"
        });
    // Open `if`/`case`/loop blocks, and whether a condition can end the script before it.
    let mut depth = 0usize;
    let mut may_exit = false;
    // A variable set before it that makes it skip the check or judge other content.
    let mut overridden: Option<String> = None;
    for (i, line) in lines.iter().enumerate() {
        // An `exit` before it ends the script first.
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() == Some(&"exit") && words.len() <= 2 && depth == 0 {
            return ManagerRun::Absent("the script exits before it".into());
        }
        let commands = shell_commands(line);
        let position = commands
            .iter()
            .position(|(c, _)| runs_hook_words(&c.split_whitespace().collect::<Vec<_>>(), stage));
        // The words before it on its line count as earlier lines do.
        let before = position.map_or(commands.len(), |at| at);
        for (c, _) in &commands[..before] {
            if overridden.is_none() {
                overridden = gate_override(c, true);
            }
            for w in c.split_whitespace() {
                match w {
                    "if" | "case" | "while" | "until" | "for" => depth += 1,
                    "fi" | "esac" | "done" => depth = depth.saturating_sub(1),
                    "exit" | "return" => may_exit = true,
                    _ => {}
                }
            }
        }
        let Some(at) = position else {
            if commands.iter().any(|(c, _)| {
                matches!(
                    c.split_whitespace().next(),
                    Some("sh" | "bash" | "dash" | "zsh")
                ) && c.contains("aahp")
            }) {
                return ManagerRun::NotChecked("it is run inside `sh -c`".into());
            }
            continue;
        };
        if let Some(why) = gate_override(&commands[at].0, false).or(overridden) {
            return ManagerRun::Swallowed(why);
        }
        if depth > 0 {
            return ManagerRun::Conditional("inside an `if`, `case` or loop of the script".into());
        }
        if at > 0 && matches!(commands[at - 1].1, "&&" | "||") {
            return ManagerRun::Conditional(format!(
                "when the command before it ({}) lets it",
                commands[at - 1].0.trim()
            ));
        }
        if may_exit {
            return ManagerRun::Conditional(
                "when no condition before it ends the script (`exit`)".into(),
            );
        }
        let next = commands.get(at + 1).map(|(c, _)| c.trim());
        match commands[at].1 {
            "||" => {
                let fails = next.is_some_and(|n| {
                    n == "false" || n.strip_prefix("exit ").is_some_and(|c| c.trim() != "0")
                });
                if !fails {
                    return ManagerRun::Swallowed(format!(
                        "`|| {}` follows it",
                        next.unwrap_or("")
                    ));
                }
            }
            "|" => {
                return ManagerRun::Swallowed(
                    "its output is piped, the pipe's last command decides".into(),
                );
            }
            "&" => return ManagerRun::Swallowed("it runs in the background (`&`)".into()),
            // `;` or the end of the line: without errexit, a later command decides.
            ";" | "" if !errexit && (at + 1 < commands.len() || i + 1 < lines.len()) => {
                return ManagerRun::Swallowed(
                    "a later command of the script decides its exit status (no `set -e`)".into(),
                );
            }
            _ => {}
        }
        return ManagerRun::Runs;
    }
    ManagerRun::Absent("the script never runs it as a command of its own".into())
}

/// The variables that make `git aahp hook` skip its check (`AAHP_SKIP_VERIFY`) or judge other
/// content than git commits (git's own location variables: another index, repository, work
/// tree or object store). Git hands a hook the ones it uses; a script that sets one before
/// the gate, for it alone (`VAR=… git aahp hook …`) or for the rest of the script
/// (`VAR=…`, `export VAR=…`), passed doctor as a script that runs it (review atk41 #4).
const GATE_OVERRIDES: &[&str] = &[
    crate::commands::verify::SKIP_ENV,
    "GIT_INDEX_FILE",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
];

/// Why the variables `command` sets change what the gate judges, if they do: its leading
/// `VAR=value` words, or (`alone`: a command before the gate) an `export`, `readonly` or
/// `declare` of one, or a line of assignments only.
fn gate_override(command: &str, alone: bool) -> Option<String> {
    override_name(command, alone).map(|name| {
        if name == crate::commands::verify::SKIP_ENV {
            format!("`{name}=…` before it skips the check")
        } else {
            format!("`{name}=…` before it makes it judge other content than git commits")
        }
    })
}

/// The variable of [`GATE_OVERRIDES`] `command` sets (see [`gate_override`]).
fn override_name(command: &str, alone: bool) -> Option<&'static str> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let declares = matches!(
        words.first().copied(),
        Some("export" | "readonly" | "declare" | "typeset" | "local")
    );
    let assignments = words
        .iter()
        .skip(usize::from(declares))
        .take_while(|w| w.contains('=') && !w.starts_with('-'));
    let only_assignments = assignments.clone().count() + usize::from(declares) == words.len();
    if alone && !declares && !only_assignments {
        return None;
    }
    assignments
        .filter_map(|w| w.split_once('='))
        .find_map(|(name, value)| {
            let value = value.trim_matches(['"', '\'']);
            GATE_OVERRIDES
                .iter()
                .copied()
                .find(|v| *v == name)
                .filter(|v| *v != crate::commands::verify::SKIP_ENV || !matches!(value, "" | "0"))
        })
}

/// A variable of git's (not `AAHP_SKIP_VERIFY`, which `--level ci` ignores) that a workflow
/// sets for a gate step, in an `env:` of the workflow, the job or the step, or in the
/// step's script before the gate or for it alone: the gate then judges another index,
/// repository or object store than the checkout (review atk41 #4).
fn ci_gate_override(doc: &Yaml, job: &Yaml, step: &Yaml) -> Option<String> {
    let git_var = |name: &str| {
        GATE_OVERRIDES
            .iter()
            .any(|v| *v == name && *v != crate::commands::verify::SKIP_ENV)
    };
    for (y, whose) in [
        (doc, "the workflow's"),
        (job, "the job's"),
        (step, "the step's"),
    ] {
        if let Some(env) = y["env"].as_hash()
            && let Some(name) = env.keys().filter_map(Yaml::as_str).find(|k| git_var(k))
        {
            return Some(format!("{whose} `env` sets {name}"));
        }
    }
    let mut earlier = None;
    for line in logical_lines(step["run"].as_str().unwrap_or("")) {
        for (c, _) in shell_commands(&line) {
            if runs_gate_command(&c) {
                if let Some(name) = override_name(&c, false).filter(|n| git_var(n)).or(earlier) {
                    return Some(format!("the script sets {name} for it"));
                }
                return None;
            }
            if earlier.is_none() {
                earlier = override_name(&c, true).filter(|n| git_var(n));
            }
        }
    }
    None
}

/// A shell line's commands, each with the operator after it (`;`, `&&`, `||`, `|`, `&`, or
/// `""` at the end); quoted text is kept whole.
fn shell_commands(line: &str) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            cur.push(c);
            if c == q {
                quote = None;
            }
            continue;
        }
        let op: Option<&'static str> = match c {
            '\'' | '"' => {
                quote = Some(c);
                cur.push(c);
                None
            }
            ';' | '(' | ')' => Some(";"),
            // A group's braces are words of their own; `{1}` (lefthook's arguments) is not one.
            '{' if chars.peek().is_none_or(|n| n.is_whitespace()) => Some(";"),
            '}' if cur.trim().is_empty() || cur.ends_with(char::is_whitespace) => Some(";"),
            // A redirection (`2>&1`, `&>file`) is no separator.
            '&' if cur.ends_with('>') || chars.peek() == Some(&'>') => {
                cur.push(c);
                None
            }
            '&' if chars.peek() == Some(&'&') => {
                chars.next();
                Some("&&")
            }
            '&' => Some("&"),
            '|' if chars.peek() == Some(&'|') => {
                chars.next();
                Some("||")
            }
            '|' => Some("|"),
            _ => {
                cur.push(c);
                None
            }
        };
        if let Some(op) = op {
            if !cur.trim().is_empty() {
                out.push((std::mem::take(&mut cur), op));
            }
            cur.clear();
        }
    }
    if !cur.trim().is_empty() {
        out.push((cur, ""));
    }
    out
}

/// True when `words` run `git aahp hook STAGE` (or `git-aahp hook STAGE` by any path),
/// after any `VAR=value`, `exec` or `command`, and not only for help.
fn runs_hook_words(words: &[&str], stage: &str) -> bool {
    let mut rest = words.iter().copied().skip_while(|w| {
        (w.contains('=') && !w.starts_with('-')) || matches!(*w, "exec" | "command")
    });
    let runs_aahp = match rest.next() {
        Some("git") => rest.next() == Some("aahp"),
        Some(program) => program == "git-aahp" || program.ends_with("/git-aahp"),
        None => false,
    };
    let rest: Vec<&str> = rest.collect();
    // `hook pre-commit` judges a merge's result as `hook pre-merge-commit` does, and an
    // applied patch as `hook pre-applypatch` does.
    let judges_stage = |w: &str| {
        w == stage || (matches!(stage, "pre-merge-commit" | "pre-applypatch") && w == "pre-commit")
    };
    runs_aahp
        && rest.first() == Some(&"hook")
        && rest.get(1).is_some_and(|w| judges_stage(w))
        && !rest.iter().any(|w| matches!(*w, "--help" | "-h"))
}

/// The merge driver: wherever a `.gitattributes` hands files to it, git must know it.
fn merge_driver(found: &hooks::MergeAttributes, configured: bool, checks: &mut Vec<Check>) {
    // There, but not readable as a file: whether it names the driver cannot be judged.
    for (path, why) in &found.unreadable {
        checks.push(Check::new(
            "merge-driver",
            Verdict::Fail,
            format!(
                "{path} cannot be read, so whether it names {MERGE_ATTRIBUTE} cannot be told: {why}"
            ),
        ));
    }
    if found.naming.is_empty() {
        return;
    }
    let named = found.naming.join(", ");
    if configured {
        checks.push(Check::new(
            "merge-driver",
            Verdict::Ok,
            format!("{named} names {MERGE_ATTRIBUTE} and {MERGE_DRIVER_KEY} is set"),
        ));
    } else {
        checks.push(
            Check::new(
                "merge-driver",
                Verdict::Fail,
                format!(
                    "{named} names {MERGE_ATTRIBUTE} but {MERGE_DRIVER_KEY} is not \
                     configured: git merges the handoff files line by line"
                ),
            )
            .hint("configure the driver in this clone (`git aahp hooks install` does it)"),
        );
    }
}

/// The agent-harness hooks: for each harness the repository has settings for.
fn agent_hooks(root: &Path, checks: &mut Vec<Check>) -> Result<()> {
    let mut any = false;
    for harness in [Harness::Claude, Harness::Gemini] {
        let settings = harness.settings_path();
        let dir = Path::new(settings)
            .parent()
            .expect("a settings file has a directory");
        if !root.join(dir).is_dir() {
            continue;
        }
        any = true;
        let present = agent_hook::installed(root, harness)?;
        checks.push(if present.len() == 2 {
            Check::new(
                "agent-hooks",
                Verdict::Ok,
                format!("{settings} runs git aahp at {}", present.join(" and ")),
            )
        } else {
            Check::new(
                "agent-hooks",
                Verdict::Warn,
                format!(
                    "{settings} does not run git aahp at session start and end: agents start \
                     without the handoff"
                ),
            )
            .hint(format!(
                "run `git aahp init --agent-hooks {}`",
                harness.arg()
            ))
        });
    }
    if !any {
        checks.push(
            Check::new(
                "agent-hooks",
                Verdict::Ok,
                "no agent-harness settings in the repository",
            )
            .hint(
                "`git aahp init --agent-hooks claude|gemini` starts each session with the context",
            ),
        );
    }
    Ok(())
}

/// How a workflow runs the gate.
fn runs_gate(step_or_job: &Yaml) -> bool {
    let run = step_or_job["run"].as_str().unwrap_or("");
    let uses = step_or_job["uses"].as_str().unwrap_or("");
    let reusable = uses
        .split('@')
        .next()
        .is_some_and(|u| u.ends_with("/aahp.yml"));
    gate_lines(run).next().is_some() || uses.contains("git-aahp") || reusable
}

/// A `run:` script's logical lines: `\`-continued lines joined, comments (whole lines and
/// ` #` tails) and blank lines dropped.
fn logical_lines(run: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for line in run.lines() {
        let code = line.split(" #").next().unwrap_or(line);
        if pending.is_empty() && code.trim_start().starts_with('#') {
            continue;
        }
        if let Some(head) = code.trim_end().strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(code);
        let whole = std::mem::take(&mut pending);
        if !whole.trim().is_empty() {
            out.push(whole.trim().to_string());
        }
    }
    if !pending.trim().is_empty() {
        out.push(pending.trim().to_string());
    }
    out
}

/// True when a command (one of a line's, split at `;`, `|`, `&` and parentheses) runs
/// `git aahp verify --level ci` (or `git-aahp …`, by any path), after any `VAR=value`, and
/// does not only ask for help.
fn runs_gate_command(command: &str) -> bool {
    let mut words = command
        .split_whitespace()
        .skip_while(|w| w.contains('=') && !w.starts_with('-'));
    let runs_aahp = match words.next() {
        Some("git") => words.next() == Some("aahp"),
        Some(program) => program == "git-aahp" || program.ends_with("/git-aahp"),
        None => false,
    };
    let rest: Vec<&str> = words.collect();
    runs_aahp
        && rest.contains(&"verify")
        && (rest.windows(2).any(|w| w == ["--level", "ci"]) || rest.contains(&"--level=ci"))
        && !rest.iter().any(|w| matches!(*w, "--help" | "-h"))
}

/// True when a logical line runs the gate as a command of its own: not as the argument of
/// another command (`echo git aahp verify --level ci` gates nothing).
fn is_gate_line(line: &str) -> bool {
    line.split([';', '|', '&', '(', ')', '{', '}'])
        .any(runs_gate_command)
}

/// The logical lines of a `run:` script that run the gate.
fn gate_lines(run: &str) -> impl Iterator<Item = String> {
    logical_lines(run).into_iter().filter(|l| is_gate_line(l))
}

/// The text of a logical line after the first command that runs the gate (from the
/// separator that ends that command), with `>&` redirections read as `>` so that `2>&1`
/// is not taken for a separator.
fn after_gate_command(line: &str) -> Option<String> {
    let line = line.replace(">&", ">");
    let mut start = 0;
    for (i, c) in line.char_indices() {
        if matches!(c, ';' | '|' | '&' | '(' | ')' | '{' | '}') {
            if runs_gate_command(&line[start..i]) {
                return Some(line[i..].to_string());
            }
            start = i + c.len_utf8();
        }
    }
    runs_gate_command(&line[start..]).then(String::new)
}

/// How a step lets the job pass when the gate fails, or `None` when the gate's failure
/// fails the step. With errexit on (GitHub's default shells: `bash -e`, `sh -e`) a failing
/// gate ends the script; off (`set +e`, `set +o errexit`, or a custom `shell:` without `-e`),
/// only a gate that is the script's last command decides its status, unless a later line
/// exits with a status of its own (`exit $?`, `exit "$rc"`). `|| …` after the gate swallows
/// its failure unless what follows exits non-zero (`|| exit 1`, `|| { …; exit 1; }`,
/// `|| false`); `&` runs it in the background; a `trap … EXIT` may change the status. A
/// pipe after the gate gives the step the last command's status unless `pipefail` is on
/// (GitHub's default `run` shell, `bash -e {0}`, has none: only `shell: bash` sets it), and
/// errexit never stops at a failure inside an `&&` list, so `gate && x` followed by any
/// other command lets the step pass (review s23 #5).
/// `shell` is the step's own `shell:`, else the job's or the workflow's `defaults.run.shell`
/// ([`effective_shell`]).
fn swallows_failure(step: &Yaml, shell: &str) -> Option<&'static str> {
    let run = step["run"].as_str().unwrap_or("");
    let lines = logical_lines(run);
    let custom_shell = shell.contains("{0}")
        && !shell
            .split_whitespace()
            .any(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('e'));
    let mut errexit = !custom_shell;
    let mut pipefail = shell == "bash" || shell.contains("pipefail");
    let exits_with_status = |l: &str| {
        l.split(['|', ';', '&', '{', '}']).map(str::trim).any(|c| {
            c.starts_with("exit $")
                || c.starts_with("exit \"$")
                || c == "false"
                || (c.starts_with("exit ") && c != "exit 0")
        })
    };
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("trap ") && line.contains("EXIT") {
            return Some("a `trap … EXIT` that may set the status");
        }
        if line.starts_with("set +e") || line.contains("set +o errexit") {
            errexit = false;
        }
        if line.starts_with("set -e") || line.contains("set -o errexit") {
            errexit = true;
        }
        if line.contains("set +o pipefail") {
            pipefail = false;
        } else if line.contains("set -o pipefail") || line.contains("set -eo pipefail") {
            pipefail = true;
        }
        if !is_gate_line(line) {
            continue;
        }
        let after_gate = line.split_once("||").map(|(_, rest)| rest);
        if let Some(rest) = after_gate
            && !exits_with_status(rest)
        {
            return Some("`|| …` after it");
        }
        let background = line.trim_end().ends_with('&') && !line.trim_end().ends_with("&&");
        if background {
            return Some("`&` runs it in the background");
        }
        let later = &lines[i + 1..];
        if !errexit && !later.is_empty() && !later.iter().any(|l| exits_with_status(l)) {
            return Some(if custom_shell {
                "a `shell:` without `-e`, and commands after it"
            } else {
                "`set +e` before it"
            });
        }
        let last_on_line = line.rsplit(';').next().is_some_and(runs_gate_command);
        if !errexit && after_gate.is_none() && !last_on_line {
            return Some("errexit off, and commands after it on its line");
        }
        let tail = after_gate_command(line).unwrap_or_default();
        // The gate's own pipeline: up to the list operator or command that ends it.
        let pipeline = tail
            .split(';')
            .next()
            .unwrap_or("")
            .split("&&")
            .next()
            .unwrap_or("")
            .split("||")
            .next()
            .unwrap_or("");
        if pipeline.contains('|') && !pipefail {
            return Some(
                "a pipe after it without `pipefail`, so the step has the last command's status",
            );
        }
        let and_list = tail.trim_start().starts_with("&&");
        let more_after = tail.contains(';') || !later.is_empty();
        if and_list && more_after && !later.iter().any(|l| exits_with_status(l)) {
            return Some(
                "`&& …` after it and commands after that list (errexit does not stop inside an `&&` list)",
            );
        }
    }
    None
}

/// An `if:` under which the gate never runs on a pull request whose earlier steps pass:
/// `failure()`, `cancelled()` or a constant false.
fn never_on_success(cond: &Yaml) -> bool {
    match cond {
        Yaml::Boolean(b) => !b,
        Yaml::String(s) => {
            let c: String = s.chars().filter(|c| !c.is_whitespace()).collect();
            let c = c.trim_start_matches("${{").trim_end_matches("}}");
            matches!(c, "failure()" | "cancelled()" | "false")
        }
        _ => false,
    }
}

/// Truthy `continue-on-error` (`true`, or an expression that may be).
fn continues_on_error(y: &Yaml) -> bool {
    match &y["continue-on-error"] {
        Yaml::Boolean(b) => *b,
        Yaml::String(s) => s.trim() != "false",
        _ => false,
    }
}

/// The events a workflow runs on, with their filters (`on:` as a string, list or map).
fn triggers(doc: &Yaml) -> Vec<(String, Yaml)> {
    match &doc["on"] {
        Yaml::String(s) => vec![(s.clone(), Yaml::Null)],
        Yaml::Array(a) => a
            .iter()
            .filter_map(|e| e.as_str().map(|s| (s.to_string(), Yaml::Null)))
            .collect(),
        Yaml::Hash(h) => h
            .iter()
            .filter_map(|(k, v)| k.as_str().map(|s| (s.to_string(), v.clone())))
            .collect(),
        _ => Vec::new(),
    }
}

/// The CI workflows: does one run the gate, and can it skip itself?
fn ci(root: &Path, checks: &mut Vec<Check>) {
    let Ok(entries) = std::fs::read_dir(root.join(WORKFLOWS)) else {
        checks.push(
            Check::new(
                "ci",
                Verdict::Fail,
                format!("no {WORKFLOWS}: nothing checks pull requests"),
            )
            .hint(CI_HINT),
        );
        return;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        // GitHub reads `.yml` and `.yaml` files, spelt so.
        .filter(|n| {
            Path::new(n)
                .extension()
                .is_some_and(|e| e == "yml" || e == "yaml")
        })
        .collect();
    names.sort();
    let mut gated = false;
    for name in names {
        let rel = format!("{WORKFLOWS}/{name}");
        let text = match read_limited(&root.join(&rel), &rel) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                checks.push(Check::new("ci", Verdict::Fail, format!("{rel}: {e}")));
                continue;
            }
        };
        let doc = match YamlLoader::load_from_str(&text) {
            Ok(mut docs) if !docs.is_empty() => docs.swap_remove(0),
            Ok(_) => continue,
            Err(e) => {
                checks.push(Check::new(
                    "ci",
                    Verdict::Fail,
                    format!("{rel}:{}: not valid YAML: {}", e.marker().line(), e.info()),
                ));
                continue;
            }
        };
        if audit_workflow(&rel, &doc, checks) {
            gated = true;
        }
    }
    if !gated {
        checks.push(
            Check::new(
                "ci",
                Verdict::Fail,
                format!("no workflow in {WORKFLOWS} runs `git aahp verify --level ci`: pull requests are not gated"),
            )
            .hint(CI_HINT),
        );
    }
}

/// The shell a `run` step runs in, as GitHub chooses it: the step's `shell:`, else the job's
/// `defaults.run.shell`, else the workflow's; empty for GitHub's default. A
/// `defaults: {run: {shell: bash {0}}}` turns errexit off for every step as a step's own
/// `shell:` does (review atk39 #5: doctor read only the step's).
fn effective_shell<'a>(doc: &'a Yaml, job: &'a Yaml, step: &'a Yaml) -> &'a str {
    [
        &step["shell"],
        &job["defaults"]["run"]["shell"],
        &doc["defaults"]["run"]["shell"],
    ]
    .into_iter()
    .find_map(Yaml::as_str)
    .unwrap_or("")
}

/// The `--base` a gate step passes when it names a revision counted back from the tip
/// (`HEAD~1`, `HEAD^`, `@~2`): the range is then the last commits, whatever the pull
/// request holds (review atk39 #5).
fn tip_relative_base(step: &Yaml) -> Option<String> {
    let run = step["run"].as_str()?;
    let words: Vec<&str> = run.split_whitespace().collect();
    words.iter().enumerate().find_map(|(i, w)| {
        let value = match w.strip_prefix("--base") {
            Some("") => words.get(i + 1).copied()?,
            Some(rest) => rest.strip_prefix('=')?,
            None => return None,
        };
        let value = value.trim_matches(['"', '\'']);
        let tip = ["HEAD", "@"].iter().any(|t| {
            value
                .strip_prefix(t)
                .is_some_and(|r| r.starts_with(['~', '^']))
        });
        tip.then(|| value.to_string())
    })
}

/// Audits one workflow; true when it runs the gate.
fn audit_workflow(rel: &str, doc: &Yaml, checks: &mut Vec<Check>) -> bool {
    let Some(jobs) = doc["jobs"].as_hash() else {
        return false;
    };
    // A reusable workflow gates nothing by itself: the workflows calling it are judged.
    let events = triggers(doc);
    if !events.is_empty() && events.iter().all(|(e, _)| e == "workflow_call") {
        return false;
    }
    let mut gated = false;
    for (id, job) in jobs {
        let id = id.as_str().unwrap_or("?");
        let steps = job["steps"].as_vec().map_or(&[][..], Vec::as_slice);
        let gate_steps: Vec<&Yaml> = steps.iter().filter(|s| runs_gate(s)).collect();
        if gate_steps.is_empty() && !runs_gate(job) {
            continue;
        }
        gated = true;
        let at = format!("{rel}, job {id}");
        let before = checks.len();
        for why in gate_steps
            .iter()
            .filter_map(|s| swallows_failure(s, effective_shell(doc, job, s)))
        {
            checks.push(
                Check::new(
                    "ci",
                    Verdict::Fail,
                    format!("{at}: the step runs the gate but passes when it fails ({why})"),
                )
                .hint("let `git aahp verify --level ci` end the step with its own exit status"),
            );
        }
        for base in gate_steps.iter().filter_map(|s| tip_relative_base(s)) {
            checks.push(
                Check::new(
                    "ci",
                    Verdict::Fail,
                    format!(
                        "{at}: the gate judges only the commits after `--base {base}`, a revision \
                         counted back from the tip: a pull request's earlier commits pass unjudged"
                    ),
                )
                .hint("leave --base out (the gate reads the pull request's base) or pass the event's base"),
            );
        }
        for why in gate_steps
            .iter()
            .filter_map(|s| ci_gate_override(doc, job, s))
        {
            checks.push(
                Check::new(
                    "ci",
                    Verdict::Fail,
                    format!(
                        "{at}: {why}, so the gate judges another index, repository or object \
                         store than the checkout"
                    ),
                )
                .hint("leave git's location variables unset for the gate's step"),
            );
        }
        if continues_on_error(job) || gate_steps.iter().any(|s| continues_on_error(s)) {
            checks.push(
                Check::new(
                    "ci",
                    Verdict::Fail,
                    format!("{at}: continue-on-error lets the job pass when the gate fails"),
                )
                .hint("remove continue-on-error from the gate's job and step"),
            );
        }
        for y in std::iter::once(job).chain(gate_steps.iter().copied()) {
            let Some(cond) = y["if"].as_str().or(y["if"].as_bool().map(|_| "a constant")) else {
                continue;
            };
            let check = if never_on_success(&y["if"]) {
                Check::new(
                    "ci",
                    Verdict::Fail,
                    format!(
                        "{at}: the gate runs only if `{cond}`: never when the steps before it pass"
                    ),
                )
                .hint("remove the condition from the gate's job and step")
            } else {
                Check::new(
                    "ci",
                    Verdict::Warn,
                    format!("{at}: the gate runs only if `{cond}`"),
                )
                .hint("make sure the condition holds for every pull request and push")
            };
            checks.push(check);
        }
        // The action and the reusable workflow check out full history themselves.
        let checkout_shallow = gate_steps.iter().any(|s| s["run"].as_str().is_some())
            && steps.iter().any(|s| {
                s["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("actions/checkout@"))
                    && !matches!(s["with"]["fetch-depth"], Yaml::Integer(0))
                    && s["with"]["fetch-depth"].as_str() != Some("0")
            });
        if checkout_shallow {
            checks.push(
                Check::new(
                    "ci",
                    Verdict::Fail,
                    format!("{at}: actions/checkout is shallow, so the base commit is missing and verify cannot compare"),
                )
                .hint("give actions/checkout `fetch-depth: 0`"),
            );
        }
        let has_base = gate_steps.iter().any(|s| {
            s["run"].as_str().is_some_and(|r| r.contains("--base"))
                || !s["env"]["AAHP_BASE_SHA"].is_badvalue()
                || !s["with"]["base"].is_badvalue()
        }) || !job["env"]["AAHP_BASE_SHA"].is_badvalue()
            || !doc["env"]["AAHP_BASE_SHA"].is_badvalue();
        audit_triggers(&at, doc, has_base, checks);
        if checks.len() == before {
            checks.push(Check::new(
                "ci",
                Verdict::Ok,
                format!("{at} runs the gate on every pull request and push it is triggered by"),
            ));
        }
    }
    gated
}

/// The workflow's events: filters that skip the gate, events with no base to compare with.
fn audit_triggers(at: &str, doc: &Yaml, has_base: bool, checks: &mut Vec<Check>) {
    let events = triggers(doc);
    for (event, filters) in &events {
        for filter in ["paths", "paths-ignore"] {
            if !filters[filter].is_badvalue() {
                checks.push(
                    Check::new(
                        "ci",
                        Verdict::Fail,
                        format!("{at}: `{event}` has a `{filter}` filter, so a change outside it skips the gate (code changed without a handoff update passes)"),
                    )
                    .hint(format!("remove `{filter}` from the gate's workflow")),
                );
            }
        }
        let baseless = matches!(
            event.as_str(),
            "workflow_dispatch" | "schedule" | "repository_dispatch"
        );
        if baseless && !has_base {
            checks.push(
                Check::new(
                    "ci",
                    Verdict::Warn,
                    format!("{at}: on `{event}` GitHub gives no base, so verify fails closed"),
                )
                .hint("pass --base or AAHP_BASE_SHA for that event"),
            );
        }
    }
    // `types:` that leave out every event of an open pull request (`[closed]`): the gate
    // runs only once the change is merged or abandoned (review s23 #5).
    let open_types = |filters: &Yaml| match &filters["types"] {
        Yaml::String(s) => s != "closed",
        Yaml::Array(a) => a.iter().any(|t| t.as_str() != Some("closed")),
        _ => true,
    };
    for (event, filters) in &events {
        if matches!(event.as_str(), "pull_request" | "pull_request_target") && !open_types(filters)
        {
            checks.push(
                Check::new(
                    "ci",
                    Verdict::Fail,
                    format!("{at}: `{event}` runs only on `types: [closed]`, after the pull request is merged or closed"),
                )
                .hint(format!("drop `types` from `{event}` (the default runs on opened, synchronize and reopened)")),
            );
        }
    }
    if !events.iter().any(|(e, filters)| {
        matches!(e.as_str(), "pull_request" | "pull_request_target") && open_types(filters)
            || e == "merge_group"
    }) {
        checks.push(
            Check::new(
                "ci",
                Verdict::Warn,
                format!("{at}: not run on pull requests"),
            )
            .hint("add `pull_request` to the workflow's events"),
        );
    }
}
