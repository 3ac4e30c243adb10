//! `git aahp hooks install | uninstall | status`: put the shims of `hooks/` where git runs
//! hooks (`core.hooksPath` or the common git dir, so linked worktrees share them), chain
//! whatever hook was there before, and take it all back out again. The checks themselves are
//! `git aahp hook`, which the shims run.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Context;
use crate::error::{Error, ExitStatus, Result};
use crate::output::{Report, Style, escape_untrusted};

/// The line that marks a hook file as one of ours.
pub const MARKER: &str = "# git-aahp hook shim";
/// Suffix of the file a chained (pre-existing) hook is moved to.
pub const BACKUP_SUFFIX: &str = ".pre-aahp";
/// Suffix under which the pre-commit framework (and prek) keeps the hook it found when it
/// installed its own, and runs it before its hooks ("migration mode").
pub const LEGACY_SUFFIX: &str = ".legacy";

/// A shim shipped in `hooks/`.
#[derive(Debug, Clone, Copy)]
pub struct Shim {
    /// The git hook it serves.
    pub name: &'static str,
    /// Its exact content.
    pub text: &'static str,
}

/// The hooks `install` manages, in order.
pub const SHIMS: &[Shim] = &[
    Shim {
        name: "pre-commit",
        text: include_str!("../../hooks/pre-commit"),
    },
    Shim {
        name: "pre-push",
        text: include_str!("../../hooks/pre-push"),
    },
    // Git runs no pre-commit hook for a merge it commits without a conflict: this one judges
    // that merge's result as pre-commit judges a concluded one.
    Shim {
        name: "pre-merge-commit",
        text: include_str!("../../hooks/pre-merge-commit"),
    },
    // Nor for a patch `git am` applies (review atk32 #12): this one judges the index that
    // holds it before git commits it, as pre-commit judges a staged change.
    Shim {
        name: "pre-applypatch",
        text: include_str!("../../hooks/pre-applypatch"),
    },
];

/// Install, remove or inspect the git hooks that run `git aahp hook`.
///
/// The hooks go where git runs them: `core.hooksPath` when set (relative to the working-tree
/// root), else the repository's hooks directory, which linked worktrees share. A hook that
/// is already there is chained, not replaced: it moves to `<hook>.pre-aahp` and runs first;
/// `uninstall` puts it back.
#[derive(Debug, clap::Args)]
pub struct HooksArgs {
    #[command(subcommand)]
    pub action: HooksAction,
}

/// What `git aahp hooks` does.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum HooksAction {
    /// Install the pre-commit, pre-push, pre-merge-commit and pre-applypatch shims, chaining
    /// existing hooks.
    Install(InstallArgs),
    /// Remove the shims and restore the hooks they chained, byte for byte.
    Uninstall,
    /// Report each hook: installed, chained, foreign (another hook, not chained) or missing.
    /// Exits 1 unless all four are installed and current.
    Status,
}

/// Options of `git aahp hooks install`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct InstallArgs {
    /// Install even when a hook manager (lefthook, pre-commit) is configured or
    /// `core.hooksPath` comes from global or system config; its hooks are chained. A Husky
    /// hooks directory is never written to.
    #[arg(long)]
    pub force: bool,
}

/// A hook's state in the hooks directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HookState {
    /// Our shim, nothing chained.
    Installed,
    /// Our shim, running the previous hook (`<hook>.pre-aahp`) first.
    Chained,
    /// Another hook, not chained: git aahp does not run.
    Foreign,
    /// Another hook manager's hook, which runs our shim from `<hook>.legacy` first.
    Wrapped,
    /// No hook.
    Missing,
    /// The hooks directory is not a directory (`core.hooksPath = /dev/null`, the usual way
    /// to switch hooks off): git runs no hook at all.
    Disabled,
}

/// What a command did to one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HookChange {
    /// The shim was written where there was no hook.
    Installed,
    /// The existing hook moved to `<hook>.pre-aahp` and the shim runs it first.
    Chained,
    /// An older shim was replaced by the current one.
    Updated,
    /// The current shim was already there.
    Unchanged,
    /// The shim was removed and the chained hook moved back.
    Restored,
    /// The shim was removed.
    Removed,
    /// Nothing of ours was there.
    NotInstalled,
    /// Another hook is there; it was left alone.
    LeftForeign,
}

/// One hook in a report.
#[derive(Debug, Clone, Serialize)]
pub struct HookReport {
    /// The hook name (`pre-commit`).
    pub name: &'static str,
    /// Where git looks for it.
    pub path: String,
    /// Its state after the command.
    pub state: HookState,
    /// For `install`/`uninstall`: what changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<HookChange>,
    /// The chained hook's path, when one exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chained: Option<String>,
    /// Our shim's path when another manager keeps and runs it as `<hook>.legacy`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legacy: Option<String>,
    /// True when our shim is there but differs from the one this version ships.
    pub outdated: bool,
    /// True when the file git would run for this hook (the shim, or the manager's hook
    /// that runs it) is there but not executable: git skips it with only a hint.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub not_executable: bool,
    /// For `uninstall`: the shim removed was the one under `<hook>.legacy`.
    #[serde(skip)]
    pub legacy_removed: bool,
}

/// A hook manager found in the repository, with how to run git aahp from it.
#[derive(Debug, Clone, Serialize)]
pub struct ManagerReport {
    /// `husky`, `lefthook` or `pre-commit`.
    pub name: &'static str,
    /// What gave it away (a config file, `core.hooksPath`, a hook's content).
    pub evidence: String,
    /// How to call git aahp from it instead.
    pub advice: String,
    /// True when it owns the hooks directory itself (Husky's `core.hooksPath`), so nothing
    /// may be written there.
    pub owns_hooks_dir: bool,
}

/// The result of `git aahp hooks …`.
#[derive(Debug, Serialize)]
pub struct HooksReport {
    /// `install`, `uninstall` or `status`.
    pub action: &'static str,
    /// The directory git runs hooks from (repository-relative when inside it).
    pub hooks_dir: String,
    /// `core.hooksPath`, when set, and the config scope it comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hooks_path: Option<HooksPath>,
    /// Hook managers found.
    pub managers: Vec<ManagerReport>,
    /// Each managed hook.
    pub hooks: Vec<HookReport>,
    /// `install`: whether it configured `git aahp merge-driver` for this clone (`configured`,
    /// `unchanged`); `status`: `missing` when a handoff `.gitattributes` names the driver
    /// but this clone has not configured it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merge_driver: Option<&'static str>,
    /// True when git tracks files in the hooks directory (`core.hooksPath = .githooks`):
    /// what `install` writes there is part of the repository (review s28b #8).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub tracked_dir: bool,
}

/// A `core.hooksPath` setting.
#[derive(Debug, Clone, Serialize)]
pub struct HooksPath {
    /// The configured value.
    pub value: String,
    /// `local`, `worktree`, `global`, `system` or `command`.
    pub scope: String,
}

impl Report for HooksReport {
    fn command(&self) -> &'static str {
        "hooks"
    }

    fn write_human(&self, w: &mut dyn Write, style: &Style) -> io::Result<()> {
        write!(w, "hooks directory: {}", escape_untrusted(&self.hooks_dir))?;
        if let Some(p) = &self.hooks_path {
            write!(
                w,
                " (core.hooksPath = {}, {} config)",
                escape_untrusted(&p.value),
                p.scope
            )?;
        }
        writeln!(w)?;
        for h in &self.hooks {
            let state = match (h.change, h.state) {
                // After uninstall the state is the user's business; say what was done.
                (Some(HookChange::Restored), _) => style.ok("restored"),
                (Some(HookChange::Removed), _) => style.ok("removed"),
                (Some(HookChange::NotInstalled), _) => style.dim("untouched"),
                (Some(HookChange::LeftForeign), _) => style.warn("untouched"),
                (_, HookState::Installed) => style.ok("installed"),
                (_, HookState::Chained) => style.ok("chained"),
                (_, HookState::Foreign) => style.warn("foreign"),
                (_, HookState::Wrapped) => style.ok("wrapped"),
                (_, HookState::Missing) => style.warn("missing"),
                (_, HookState::Disabled) => style.warn("disabled"),
            };
            let detail = match (h.change, h.state) {
                (Some(HookChange::Installed), _) => "shim written".to_string(),
                (Some(HookChange::Chained), _) => format!(
                    "the existing hook moved to {}{BACKUP_SUFFIX} and runs first",
                    h.name
                ),
                (Some(HookChange::Updated), _) => "shim updated to this version".into(),
                (Some(HookChange::Unchanged), _) => "already installed".into(),
                (Some(HookChange::Restored), _) if h.legacy_removed => format!(
                    "shim removed from {}{LEGACY_SUFFIX}, the hook from {}{BACKUP_SUFFIX} is there \
                     instead",
                    h.name, h.name
                ),
                (Some(HookChange::Restored), _) => {
                    format!(
                        "shim removed, the hook from {}{BACKUP_SUFFIX} is back",
                        h.name
                    )
                }
                (Some(HookChange::Removed), _) if h.legacy_removed => format!(
                    "shim removed from {}{LEGACY_SUFFIX}, where another hook manager kept it",
                    h.name
                ),
                (Some(HookChange::Removed), _) => "shim removed".into(),
                (Some(HookChange::NotInstalled), _) => "no shim installed".into(),
                (Some(HookChange::LeftForeign), _) => "another hook, left in place".into(),
                (None, HookState::Installed) => "runs git aahp hook".into(),
                (None, HookState::Chained) => {
                    format!("runs {}{BACKUP_SUFFIX} first, then git aahp hook", h.name)
                }
                (None, HookState::Foreign) => self.foreign_detail(),
                (_, HookState::Wrapped) => format!(
                    "another hook manager's hook runs the shim from {}{LEGACY_SUFFIX} first",
                    h.name
                ),
                (None, HookState::Missing) => "`git aahp hooks install` adds it".into(),
                (_, HookState::Disabled) => format!(
                    "{} is not a directory: git runs no hooks",
                    escape_untrusted(&self.hooks_dir)
                ),
            };
            let outdated = if h.not_executable && h.change.is_none() {
                format!(
                    " {}",
                    style.warn("(not executable: git skips it; run `git aahp hooks install`)")
                )
            } else if h.outdated && h.change.is_none() {
                format!(
                    " {}",
                    style.warn("(outdated: run `git aahp hooks install`)")
                )
            } else {
                String::new()
            };
            writeln!(w, "  {:<16}  {state}: {detail}{outdated}", h.name)?;
        }
        match self.merge_driver {
            Some("configured") => writeln!(
                w,
                "  merge             {}: {} = {}",
                style.ok("configured"),
                super::merge_driver::DRIVER_KEY,
                super::merge_driver::DRIVER_COMMAND
            )?,
            Some("missing") => writeln!(
                w,
                "  merge             {}: .gitattributes names `git aahp merge-driver` but this clone has not configured it; run `git aahp hooks install`",
                style.warn("missing")
            )?,
            _ => {}
        }
        if self.tracked_dir && self.action == "install" {
            writeln!(
                w,
                "note: git tracks {dir}: the hooks written there are files of the repository. \
                 Commit them so that every clone runs the gate; until then a checkout, stash or \
                 pull of {dir} puts the tracked hooks back and removes it (`git aahp doctor` \
                 tells).",
                dir = escape_untrusted(&self.hooks_dir)
            )?;
        }
        for m in &self.managers {
            writeln!(
                w,
                "note: {} detected ({}). {}",
                m.name,
                escape_untrusted(&m.evidence),
                m.advice
            )?;
        }
        Ok(())
    }

    fn status(&self) -> ExitStatus {
        let healthy = self.hooks.iter().all(|h| {
            matches!(
                h.state,
                HookState::Installed | HookState::Chained | HookState::Wrapped
            ) && !h.outdated
                && !h.not_executable
        });
        if self.action == "status" && !healthy {
            ExitStatus::Findings
        } else {
            ExitStatus::Success
        }
    }
}

impl HooksReport {
    /// What `status` says of a foreign hook: whether `install` would chain it, or refuse
    /// (a hook manager is set up, or `core.hooksPath` is global) and what to do instead.
    fn foreign_detail(&self) -> String {
        if let Some(m) = self.managers.iter().find(|m| m.owns_hooks_dir) {
            return format!(
                "another hook; {} owns this directory, so `git aahp hooks install` will not \
                 write here: add git aahp to {}'s hooks (note below)",
                m.name, m.name
            );
        }
        if let Some(m) = self.managers.first() {
            return format!(
                "another hook; with {} set up, `git aahp hooks install` does not chain it \
                 (only with --force): add git aahp to {}'s configuration (note below)",
                m.name, m.name
            );
        }
        if let Some(p) = self
            .hooks_path
            .as_ref()
            .filter(|p| p.scope == "global" || p.scope == "system")
        {
            return format!(
                "another hook; core.hooksPath comes from {} config, so `git aahp hooks \
                 install` chains it only with --force",
                p.scope
            );
        }
        "another hook; `git aahp hooks install` chains it".into()
    }
}

/// Runs `git aahp hooks`.
pub fn run(ctx: &Context, args: &HooksArgs) -> Result<HooksReport> {
    let repo = ctx.repo()?;
    let root = repo.workdir().to_path_buf();
    let dir = repo.hooks_dir()?;
    let hooks_path = repo
        .config_with_scope("core.hooksPath")?
        .map(|(scope, value)| HooksPath { value, scope });
    let managers = detect_managers(&root, &dir, hooks_path.as_ref());
    let mut report = HooksReport {
        action: "status",
        hooks_dir: display_path(&root, &dir),
        hooks_path,
        managers,
        hooks: Vec::new(),
        merge_driver: None,
        tracked_dir: false,
    };
    // `core.hooksPath = /dev/null` (or any file) switches hooks off: said so, not an error
    // reading `/dev/null/pre-commit`.
    let disabled = std::fs::metadata(&dir).is_ok_and(|m| !m.is_dir());
    if disabled && !matches!(args.action, HooksAction::Status) {
        return Err(Error::other(format!(
            "the hooks directory {} is not a directory, so git runs no hooks; set              core.hooksPath to a directory (or unset it) first",
            escape_untrusted(&report.hooks_dir)
        )));
    }
    match &args.action {
        HooksAction::Status if disabled => {
            for shim in SHIMS {
                report.hooks.push(HookReport {
                    name: shim.name,
                    path: display_path(&root, &dir.join(shim.name)),
                    state: HookState::Disabled,
                    change: None,
                    chained: None,
                    legacy: None,
                    outdated: false,
                    not_executable: false,
                    legacy_removed: false,
                });
            }
        }
        HooksAction::Status => {
            for shim in SHIMS {
                let hook = Hook::inspect(&dir, shim)?;
                report.hooks.push(hook.report(&root, None));
            }
            if merge_driver_missing(ctx, repo)? {
                report.merge_driver = Some("missing");
            }
        }
        HooksAction::Install(opts) => {
            report.action = "install";
            install(&root, &dir, &mut report, opts)?;
            report.merge_driver = Some(configure_merge_driver(repo)?);
            report.tracked_dir = match dir.strip_prefix(&root) {
                Ok(rel) if !rel.as_os_str().is_empty() => {
                    let rel = rel.to_string_lossy().replace('\\', "/");
                    !crate::git::Repo::index_files_below(&*repo.index()?, &rel).is_empty()
                }
                _ => false,
            };
        }
        HooksAction::Uninstall => {
            report.action = "uninstall";
            for shim in SHIMS {
                let hook = Hook::inspect(&dir, shim)?;
                let change = hook.uninstall()?;
                let after = Hook::inspect(&dir, shim)?;
                let mut r = after.report(&root, Some(change));
                r.legacy_removed =
                    hook.legacy.is_some() && !matches!(hook.found, Found::Ours { .. });
                report.hooks.push(r);
            }
        }
    }
    Ok(report)
}

/// Configures `git aahp merge-driver` for this clone (the repository's own config), which the
/// `.gitattributes` `init` writes names. Returns `configured` or `unchanged`.
fn configure_merge_driver(repo: &crate::git::Repo) -> Result<&'static str> {
    use super::merge_driver::{DRIVER_COMMAND, DRIVER_KEY};
    if repo.config_string(DRIVER_KEY).as_deref() == Some(DRIVER_COMMAND) {
        return Ok("unchanged");
    }
    repo.set_config(
        "merge.aahp.name",
        "git aahp: handoff files by entry, row and section",
    )?;
    repo.set_config(DRIVER_KEY, DRIVER_COMMAND)?;
    Ok("configured")
}

/// The `.gitattributes` files that hand files to the merge driver (`merge=aahp`), as
/// `doctor` and `status` judge them.
#[derive(Debug, Default)]
pub struct MergeAttributes {
    /// Repository-relative paths of the files that name the driver.
    pub naming: Vec<String>,
    /// Files there but not readable as files (a directory, a FIFO, too large), with why:
    /// whether they name the driver cannot be told.
    pub unreadable: Vec<(String, String)>,
}

impl MergeAttributes {
    /// Reads the `.gitattributes` at the root, the one in the handoff directory (which
    /// `init` writes, tracked or not yet) and every other one the index holds, from the
    /// working tree, in-process (review s30 #6: `doctor` read only the root one, so the
    /// handoff directory's never had its driver checked). Each is read like a handoff file:
    /// a FIFO in its place is never waited on, a huge one never read whole.
    pub fn find(ctx: &Context, repo: &crate::git::Repo) -> Result<MergeAttributes> {
        use crate::handoff::templates::GITATTRIBUTES;
        let mut paths = vec![GITATTRIBUTES.to_string()];
        if let Ok(dir) = ctx.handoff() {
            paths.push(dir.path_of(GITATTRIBUTES));
        }
        let index = repo.index()?;
        let suffix = format!("/{GITATTRIBUTES}");
        for e in index.entries() {
            let path = e.path(&index);
            if e.stage_raw() == 0
                && path.ends_with(suffix.as_bytes())
                && let Ok(path) = std::str::from_utf8(path)
            {
                paths.push(path.to_string());
            }
        }
        paths.sort();
        paths.dedup();
        let mut out = MergeAttributes::default();
        for rel in paths {
            let abs = repo.workdir().join(&rel);
            match crate::handoff::read_limited(&abs, &rel) {
                Ok(bytes) => {
                    if names_merge_driver(&String::from_utf8_lossy(&bytes)) {
                        out.naming.push(rel);
                    }
                }
                Err(_) if std::fs::symlink_metadata(&abs).is_err() => {}
                Err(e) => out.unreadable.push((rel, e.to_string())),
            }
        }
        Ok(out)
    }
}

/// True when a `.gitattributes` text gives some pattern the `merge=aahp` attribute.
fn names_merge_driver(text: &str) -> bool {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .any(|l| {
            l.split_whitespace()
                .skip(1)
                .any(|a| a == super::merge_driver::ATTRIBUTE)
        })
}

/// True when a `.gitattributes` names the merge driver but this clone has no
/// `merge.aahp.driver`: git would then merge the handoff files line by line.
pub fn merge_driver_missing(ctx: &Context, repo: &crate::git::Repo) -> Result<bool> {
    if repo
        .config_string(super::merge_driver::DRIVER_KEY)
        .is_some()
    {
        return Ok(false);
    }
    Ok(!MergeAttributes::find(ctx, repo)?.naming.is_empty())
}

fn install(root: &Path, dir: &Path, report: &mut HooksReport, opts: &InstallArgs) -> Result<()> {
    if let Some(m) = report.managers.iter().find(|m| m.owns_hooks_dir) {
        return Err(Error::other(format!(
            "not installing: {} ({}) manages the hooks directory {}, and would discard or \
             commit whatever is written there.\n{}",
            m.name,
            escape_untrusted(&m.evidence),
            report.hooks_dir,
            m.advice
        )));
    }
    if !opts.force {
        if let Some(m) = report.managers.first() {
            return Err(Error::other(format!(
                "not installing: {} is set up in this repository ({}); it rewrites the hooks \
                 it manages, so a shim installed beside it would not last.\n{}\n\
                 To chain its hook anyway, run `git aahp hooks install --force`.",
                m.name,
                escape_untrusted(&m.evidence),
                m.advice
            )));
        }
        if let Some(p) = report
            .hooks_path
            .as_ref()
            .filter(|p| p.scope == "global" || p.scope == "system")
        {
            return Err(Error::other(format!(
                "not installing: core.hooksPath ({}) comes from {} config, so hooks installed \
                 there run in every repository that uses it.\nTo install there anyway, run \
                 `git aahp hooks install --force`; to install for this repository only, set \
                 `git config core.hooksPath .git/hooks` first.",
                escape_untrusted(&p.value),
                p.scope
            )));
        }
    }
    // Plan every hook first, so a refusal leaves everything as it was.
    let mut plans = Vec::new();
    for shim in SHIMS {
        let hook = Hook::inspect(dir, shim)?;
        hook.check_installable()?;
        plans.push(hook);
    }
    std::fs::create_dir_all(dir).map_err(|source| Error::Write {
        path: report.hooks_dir.clone(),
        source,
    })?;
    for hook in plans {
        let change = hook.install()?;
        let after = Hook::inspect(dir, hook.shim)?;
        report.hooks.push(after.report(root, Some(change)));
    }
    Ok(())
}

/// What is at a hook's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    Missing,
    /// Our shim; `current` when it is byte-identical to the shipped one and executable.
    Ours {
        current: bool,
    },
    Foreign,
    /// A directory or other non-file where the hook should be.
    NotAFile,
}

/// One hook path and its chained backup.
#[derive(Debug)]
struct Hook {
    shim: &'static Shim,
    path: PathBuf,
    backup: PathBuf,
    found: Found,
    backup_exists: bool,
    /// `<hook>.legacy`, when it holds our shim (`current` as in [`Found::Ours`]).
    legacy: Option<(PathBuf, bool)>,
}

impl Hook {
    fn inspect(dir: &Path, shim: &'static Shim) -> Result<Hook> {
        let path = dir.join(shim.name);
        let backup = dir.join(format!("{}{BACKUP_SUFFIX}", shim.name));
        let found = match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Found::Missing,
            Err(source) => {
                return Err(Error::Read {
                    path: path.display().to_string(),
                    source,
                });
            }
            Ok(meta) if meta.is_dir() => Found::NotAFile,
            Ok(_) => match read_hook(&path) {
                Some(bytes) if is_ours(&bytes) => Found::Ours {
                    current: bytes == shim.text.as_bytes() && is_executable(&path),
                },
                // Unreadable or a dangling link: still somebody's hook.
                _ => Found::Foreign,
            },
        };
        let backup_exists = std::fs::symlink_metadata(&backup).is_ok();
        let legacy_path = dir.join(format!("{}{LEGACY_SUFFIX}", shim.name));
        let legacy = match std::fs::symlink_metadata(&legacy_path) {
            Ok(meta) if meta.is_file() => match read_hook(&legacy_path) {
                Some(bytes) if is_ours(&bytes) => {
                    let current = bytes == shim.text.as_bytes() && is_executable(&legacy_path);
                    Some((legacy_path, current))
                }
                _ => None,
            },
            _ => None,
        };
        Ok(Hook {
            shim,
            path,
            backup,
            found,
            backup_exists,
            legacy,
        })
    }

    fn state(&self) -> HookState {
        match self.found {
            Found::Ours { .. } if self.backup_exists => HookState::Chained,
            Found::Ours { .. } => HookState::Installed,
            // Whether the manager's hook really runs `.legacy` is its business; pre-commit
            // and prek do unless installed with --overwrite, which deletes the file.
            Found::Foreign if self.legacy.is_some() => HookState::Wrapped,
            Found::Foreign | Found::NotAFile => HookState::Foreign,
            Found::Missing => HookState::Missing,
        }
    }

    fn report(&self, root: &Path, change: Option<HookChange>) -> HookReport {
        HookReport {
            name: self.shim.name,
            path: display_path(root, &self.path),
            state: self.state(),
            change,
            chained: self.backup_exists.then(|| display_path(root, &self.backup)),
            legacy: self.legacy.as_ref().map(|(p, _)| display_path(root, p)),
            outdated: match (self.found, &self.legacy) {
                (Found::Ours { current }, _) => !current,
                (Found::Foreign, Some((_, current))) => !current,
                _ => false,
            },
            not_executable: matches!(self.found, Found::Ours { .. } | Found::Foreign)
                && !is_executable(&self.path),
            legacy_removed: false,
        }
    }

    /// Refuses the cases install cannot handle without losing something.
    fn check_installable(&self) -> Result<()> {
        match self.found {
            Found::NotAFile => Err(Error::other(format!(
                "not installing: {} is not a file",
                self.path.display()
            ))),
            Found::Foreign
                if self.backup_exists && !same_file_content(&self.path, &self.backup) =>
            {
                Err(Error::other(format!(
                    "not installing: {} exists and {} holds a different hook; move one of them \
                     away first, so that neither is lost",
                    self.path.display(),
                    self.backup.display()
                )))
            }
            _ => Ok(()),
        }
    }

    /// Writes the shim, chaining a foreign hook. Every step leaves a working hook at `path`.
    fn install(&self) -> Result<HookChange> {
        match self.found {
            Found::Ours { current: true } => Ok(HookChange::Unchanged),
            Found::Ours { current: false } => {
                self.write_shim()?;
                Ok(HookChange::Updated)
            }
            Found::Missing => {
                self.write_shim()?;
                Ok(if self.backup_exists {
                    HookChange::Chained
                } else {
                    HookChange::Installed
                })
            }
            Found::Foreign => {
                if !self.backup_exists {
                    // A hard link keeps the user's hook at both names until the shim replaces
                    // it by rename; where links are unsupported, fall back to a rename.
                    if std::fs::hard_link(&self.path, &self.backup).is_err() {
                        std::fs::rename(&self.path, &self.backup).map_err(|source| {
                            Error::Write {
                                path: self.backup.display().to_string(),
                                source,
                            }
                        })?;
                    }
                }
                self.write_shim()?;
                Ok(HookChange::Chained)
            }
            Found::NotAFile => Err(Error::other(format!(
                "{} is not a file",
                self.path.display()
            ))),
        }
    }

    fn uninstall(&self) -> Result<HookChange> {
        if let (Found::Foreign | Found::Missing | Found::NotAFile, Some((legacy, _))) =
            (self.found, &self.legacy)
        {
            // Another manager keeps our shim as `<hook>.legacy` and runs it: take it out
            // there, and give the manager the hook we had chained, if any, in its place.
            let write_err = |source| Error::Write {
                path: legacy.display().to_string(),
                source,
            };
            if self.backup_exists {
                std::fs::rename(&self.backup, legacy).map_err(write_err)?;
                return Ok(HookChange::Restored);
            }
            std::fs::remove_file(legacy).map_err(write_err)?;
            return Ok(HookChange::Removed);
        }
        match self.found {
            Found::Ours { .. } | Found::Missing if self.backup_exists => {
                // One rename puts the original back with its bytes and mode, atomically.
                std::fs::rename(&self.backup, &self.path).map_err(|source| Error::Write {
                    path: self.path.display().to_string(),
                    source,
                })?;
                Ok(HookChange::Restored)
            }
            Found::Ours { .. } => {
                std::fs::remove_file(&self.path).map_err(|source| Error::Write {
                    path: self.path.display().to_string(),
                    source,
                })?;
                Ok(HookChange::Removed)
            }
            Found::Missing => Ok(HookChange::NotInstalled),
            Found::Foreign | Found::NotAFile => Ok(HookChange::LeftForeign),
        }
    }

    fn write_shim(&self) -> Result<()> {
        write_executable(&self.path, self.shim.text.as_bytes()).map_err(|source| Error::Write {
            path: self.path.display().to_string(),
            source,
        })
    }
}

fn is_ours(bytes: &[u8]) -> bool {
    bytes
        .split(|b| *b == b'\n')
        .any(|line| line.strip_suffix(b"\r").unwrap_or(line) == MARKER.as_bytes())
}

/// A hook file's bytes, when it is a regular file (through a symbolic link too) within the
/// size limit: opened without waiting, so a FIFO in a hook's place never hangs `hooks` or
/// `doctor` (review rob35 #5). Anything else reads as no content.
fn read_hook(path: &Path) -> Option<Vec<u8>> {
    crate::handoff::read_state_file(path).ok().flatten()
}

fn same_file_content(a: &Path, b: &Path) -> bool {
    match (read_hook(a), read_hook(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_path: &Path) -> bool {
    true
}

/// Writes an executable file atomically (temp file with mode 0755, fsync, rename, fsync the
/// directory), so git never sees a half-written or non-executable hook.
fn write_executable(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".aahp-tmp-")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o755))?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// A path for output: repository-relative with `/` when inside the working tree, else
/// absolute.
fn display_path(root: &Path, path: &Path) -> String {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    // The hook file itself may not exist yet; canonicalise its directory.
    let path = match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) if !path.exists() => canon(parent).join(name),
        _ => canon(path),
    };
    match path.strip_prefix(canon(root)) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/"),
        _ => path.display().to_string(),
    }
}

const HUSKY_ADVICE: &str = "Husky runs the scripts in .husky/: add the line \
`git aahp hook pre-commit` to .husky/pre-commit, `git aahp hook pre-push \"$@\"` to \
.husky/pre-push, `git aahp hook pre-merge-commit` to .husky/pre-merge-commit and `git aahp \
hook pre-applypatch` to .husky/pre-applypatch.";
const LEFTHOOK_ADVICE: &str = "Add to its configuration:\n\
  pre-commit:\n    commands:\n      aahp:\n        run: git aahp hook pre-commit\n\
  pre-push:\n    commands:\n      aahp:\n        run: git aahp hook pre-push {1} {2}\n        \
use_stdin: true\n\
  pre-merge-commit:\n    commands:\n      aahp:\n        run: git aahp hook pre-merge-commit\n\
  pre-applypatch:\n    commands:\n      aahp:\n        run: git aahp hook pre-applypatch";
/// Valid YAML for every pre-commit from 2.x to 4.x (`stages` by the names all of them
/// accept); `tests/pre-commit.sh` feeds it to the real tool.
const PRE_COMMIT_ADVICE: &str = "Add to .pre-commit-config.yaml (the `repos:` line only if \
it is not there), then run `pre-commit install --hook-type pre-commit --hook-type pre-push --hook-type \
pre-merge-commit`:
repos:
  - repo: local
    hooks:
      - id: aahp-verify
        name: git aahp (handoff check)
        entry: git aahp hook pre-commit
        language: system
        pass_filenames: false
        always_run: true
        stages: [commit, merge-commit]
      - id: aahp-verify-push
        name: git aahp (handoff check before push)
        entry: git aahp hook pre-push
        language: system
        pass_filenames: false
        always_run: true
        stages: [push]
(or use the ids of git-aahp's .pre-commit-hooks.yaml). In CI, run `git aahp verify --level \
ci`: `pre-commit run --all-files` never sees code changed without a handoff update.";

pub(crate) const LEFTHOOK_CONFIGS: &[&str] = &[
    "lefthook.yml",
    ".lefthook.yml",
    "lefthook.yaml",
    ".lefthook.yaml",
    "lefthook.toml",
    ".lefthook.toml",
    "lefthook.json",
    ".lefthook.json",
    ".config/lefthook.yml",
    ".config/lefthook.yaml",
];

/// Finds hook managers: Husky (`.husky/`, or `core.hooksPath` pointing into it), lefthook
/// and the pre-commit framework (their config files, or their text in an installed hook).
fn detect_managers(root: &Path, dir: &Path, hooks_path: Option<&HooksPath>) -> Vec<ManagerReport> {
    let mut out = Vec::new();
    let husky_dir = root.join(".husky");
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    if hooks_path.is_some() && canon(dir).starts_with(canon(&husky_dir)) {
        out.push(ManagerReport {
            name: "husky",
            evidence: format!(
                "core.hooksPath = {}",
                hooks_path.map_or("", |p| p.value.as_str())
            ),
            advice: HUSKY_ADVICE.into(),
            owns_hooks_dir: true,
        });
    } else if husky_dir.is_dir() {
        out.push(ManagerReport {
            name: "husky",
            evidence: ".husky/ exists; once Husky is installed, git runs .husky/_ instead".into(),
            advice: HUSKY_ADVICE.into(),
            owns_hooks_dir: false,
        });
    }
    let hook_text = |name: &str| read_hook(&dir.join(name)).unwrap_or_default();
    let installed_by = |needle: &str| {
        SHIMS.iter().find(|s| {
            let text = hook_text(s.name);
            !is_ours(&text) && text.windows(needle.len()).any(|w| w == needle.as_bytes())
        })
    };
    if let Some(cfg) = LEFTHOOK_CONFIGS.iter().find(|c| root.join(c).is_file()) {
        out.push(ManagerReport {
            name: "lefthook",
            evidence: (*cfg).to_string(),
            advice: LEFTHOOK_ADVICE.into(),
            owns_hooks_dir: false,
        });
    } else if let Some(s) = installed_by("lefthook") {
        out.push(ManagerReport {
            name: "lefthook",
            evidence: format!("the {} hook runs lefthook", s.name),
            advice: LEFTHOOK_ADVICE.into(),
            owns_hooks_dir: false,
        });
    }
    if let Some(cfg) = [".pre-commit-config.yaml", ".pre-commit-config.yml"]
        .iter()
        .find(|c| root.join(c).is_file())
    {
        out.push(ManagerReport {
            name: "pre-commit",
            evidence: (*cfg).to_string(),
            advice: PRE_COMMIT_ADVICE.into(),
            owns_hooks_dir: false,
        });
    } else if let Some(s) = installed_by("File generated by pre-commit") {
        out.push(ManagerReport {
            name: "pre-commit",
            evidence: format!("the {} hook was generated by pre-commit", s.name),
            advice: PRE_COMMIT_ADVICE.into(),
            owns_hooks_dir: false,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_shims_carry_the_marker_and_run_git_aahp_hook() {
        for s in SHIMS {
            assert!(s.text.starts_with("#!/bin/sh\n"), "{}", s.name);
            assert!(is_ours(s.text.as_bytes()), "{}", s.name);
            assert!(
                s.text
                    .contains(&format!("exec git aahp hook {} \"$@\"", s.name)),
                "{}",
                s.name
            );
            assert!(s.text.contains(&format!("{}{BACKUP_SUFFIX}", s.name)));
        }
        assert!(!is_ours(b"#!/bin/sh\n# git-aahp hook shim extra\n"));
        assert!(is_ours(b"#!/bin/sh\r\n# git-aahp hook shim\r\n"));
    }
}
