//! One module per subcommand. Each holds its `Args`, a `run` function and its report type;
//! this file holds the [`Command`] enum, the shared [`Context`] and the one flat `match`.

pub mod agent_hook;
pub mod archive;
pub mod begin;
pub mod commit;
pub mod context;
pub mod doctor;
pub mod hook;
pub mod hooks;
pub mod init;
pub mod lint;
pub mod man;
pub mod manifest;
pub mod mcp;
pub mod merge_driver;
pub mod range;
pub mod recover;
pub mod review;
pub mod status;
pub mod task;
pub mod trust;
pub mod verify;

use std::cell::OnceCell;
use std::path::PathBuf;

use clap::Subcommand;
use jiff::Timestamp;

use crate::cli::Cli;
use crate::error::{Error, ExitStatus, Result};
use crate::git::Repo;
use crate::handoff::HandoffDir;
use crate::output::{Printer, Report, Style};

/// Every subcommand.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create the handoff directory with its files and a valid manifest (or --migrate a v1
    /// directory).
    Init(init::InitArgs),
    /// Show the handoff's health for an incoming agent (read-only).
    Status(status::StatusArgs),
    /// Print what the next agent should read, within a token budget.
    Context(context::ContextArgs),
    /// Lint handoff files: prompt injection, hidden content, secrets, PII, .aiignore.
    Lint(lint::LintArgs),
    /// Regenerate MANIFEST.json from the files (or check that it is current).
    Manifest(manifest::ManifestArgs),
    /// Check the handoff: schema, checksums, lint, drift, lock, tasks (never writes).
    Verify(verify::VerifyArgs),
    /// Install, remove or inspect the git hooks that run the handoff check.
    Hooks(hooks::HooksArgs),
    /// Run a git hook's check (what the installed shims call).
    Hook(hook::HookArgs),
    /// Check the whole set-up: git hooks, merge driver, agent-harness hooks, CI workflows
    /// (read-only).
    Doctor(doctor::DoctorArgs),
    /// Answer a coding agent's session hook: the context at start, a reminder at the end
    /// (what `init --agent-hooks` configures).
    AgentHook(agent_hook::AgentHookArgs),
    /// Rotate LOG.md into LOG-ARCHIVE.md and its index (or --verify them).
    Archive(archive::ArchiveArgs),
    /// List, decay or re-verify the claims in TRUST.md (default: list).
    Trust(trust::TrustArgs),
    /// Add, claim, finish, block or list the tasks in MANIFEST.json (v3 compatibility).
    Task(task::TaskArgs),
    /// Print a pull request's review work-list: unbacked claims, unmentioned changes, open
    /// questions, blocked items (Markdown for the job summary, or JSON).
    Review(review::ReviewArgs),
    /// Start a session: take HANDOFF.lock and print the session id.
    Begin(begin::BeginArgs),
    /// End the session: lint, decay trust, rotate the log, regenerate the manifest, commit once, tag.
    Commit(commit::CommitArgs),
    /// Finish or roll back a crashed session, saving its files under refs/aahp/recovered/.
    Recover(recover::RecoverArgs),
    /// Serve the commands as Model Context Protocol tools over stdio (for agent harnesses).
    Mcp(mcp::McpArgs),
    /// Merge one handoff file for git (the merge driver .gitattributes names; `hooks
    /// install` configures it).
    MergeDriver(merge_driver::MergeDriverArgs),
    /// Write the man pages (git-aahp.1 and one page per subcommand) into a directory.
    #[command(hide = true)]
    GenerateMan(man::GenerateManArgs),
    /// Print a shell completion script.
    #[command(hide = true)]
    Completions(man::CompletionsArgs),
}

/// Who is changing the handoff (decides whether `HANDOFF.lock` is this session's).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SessionOpts {
    /// The session id `begin` printed.
    #[arg(long, env = "AAHP_SESSION_ID")]
    pub session_id: Option<String>,
}

impl SessionOpts {
    /// The claim these options make (no agent: the session id or this worktree's session
    /// record decides).
    pub fn claim(&self) -> crate::transaction::SessionClaim {
        crate::transaction::SessionClaim {
            session_id: self.session_id.clone(),
            agent: None,
        }
    }
}

/// The handoff directories the gate judges before looking at the change (see
/// [`Context::gate_scope`]).
#[derive(Debug, Clone)]
pub struct GateScope {
    /// `--dir`: only this directory is judged, and it owns every change.
    pub only: Option<HandoffDir>,
    /// Directories judged when present: `--dir`, the `aahp.dir` values, the current one.
    pub known: Vec<HandoffDir>,
    /// Directories holding `.ai/handoff/` are found along the changed paths.
    pub discover: bool,
    /// The directory named when nothing at all can be judged.
    pub default_rel: String,
}

impl Command {
    /// The subcommand's name: the `command` of its `--json` documents.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Init(_) => "init",
            Command::Status(_) => "status",
            Command::Context(_) => "context",
            Command::Lint(_) => "lint",
            Command::Manifest(_) => "manifest",
            Command::Verify(_) => "verify",
            Command::Hooks(_) => "hooks",
            Command::Hook(_) => "hook",
            Command::AgentHook(_) => "agent-hook",
            Command::Doctor(_) => "doctor",
            Command::Archive(_) => "archive",
            Command::Trust(_) => "trust",
            Command::Task(_) => "task",
            Command::Review(_) => "review",
            Command::Begin(_) => "begin",
            Command::Commit(_) => "commit",
            Command::Recover(_) => "recover",
            Command::Mcp(_) => "mcp",
            Command::MergeDriver(_) => "merge-driver",
            Command::GenerateMan(_) => "generate-man",
            Command::Completions(_) => "completions",
        }
    }

    /// True when this command line prints JSON on stdout (`--json`, or a command's own
    /// `--format json`), so a failure is reported there as a JSON document too.
    pub fn wants_json(&self, global_json: bool) -> bool {
        global_json
            || match self {
                Command::Context(a) => a.format == context::ContextFormat::Json,
                Command::Review(a) => a.format == review::ReviewFormat::Json,
                Command::Lint(a) => a.format == lint::Format::Json,
                Command::Verify(a) => a.format == verify::VerifyFormat::Json,
                _ => false,
            }
    }
}

impl Command {
    /// True when this command line prints GitHub Actions annotations (`--format github`),
    /// so a failure is reported as one too.
    pub fn wants_github(&self) -> bool {
        match self {
            Command::Lint(a) => a.format == lint::Format::Github,
            Command::Verify(a) => a.format == verify::VerifyFormat::Github,
            _ => false,
        }
    }
}

/// What every command receives: where it runs, what time it is, how to print.
pub struct Context {
    /// The directory the command was started in.
    pub cwd: PathBuf,
    /// "Now", read once (honours `AAHP_NOW`).
    pub now: Timestamp,
    /// The output settings.
    pub printer: Printer,
    dir_arg: Option<PathBuf>,
    repo: OnceCell<Repo>,
}

impl Context {
    /// Builds the context from the global options.
    pub fn new(cli: &Cli) -> Result<Context> {
        let cwd = std::env::current_dir().map_err(|e| Error::Other {
            context: "cannot read the current directory".into(),
            source: Some(Box::new(e)),
        })?;
        Ok(Context {
            cwd,
            now: crate::clock::now(),
            printer: Printer {
                json: cli.global.json,
                quiet: cli.global.quiet,
                style: Style::detect(cli.global.color),
            },
            dir_arg: cli.global.dir.clone(),
            repo: OnceCell::new(),
        })
    }

    /// Returns the repository, discovered once from the working directory.
    pub fn repo(&self) -> Result<&Repo> {
        if let Some(r) = self.repo.get() {
            return Ok(r);
        }
        let repo = Repo::discover(&self.cwd)?;
        Ok(self.repo.get_or_init(|| repo))
    }

    /// Returns the handoff directory (`--dir`, git config `aahp.dir`, or `.ai/handoff`).
    /// Whatever the command prints from then on has the secrets section of that directory's
    /// `.aiignore` redacted as well as the built-in detectors' findings; a `.aiignore` that
    /// cannot be read or parsed is exit 2 here, before anything is printed.
    pub fn handoff(&self) -> Result<HandoffDir> {
        let dir = HandoffDir::locate(self.repo()?, &self.cwd, self.dir_arg.as_deref())?;
        crate::output::boundary::redact_user_secrets_of(&dir)?;
        Ok(dir)
    }

    /// Returns what the gate judges besides the directories a change touches: with `--dir`,
    /// that directory only; else every `aahp.dir` value and the directory the current
    /// directory lies in (nearest enclosing, or `.ai/handoff` at the root), whether
    /// discovery is on (`aahp.discover`), all checked as [`HandoffDir::at`] requires.
    pub fn gate_scope(&self) -> Result<GateScope> {
        let repo = self.repo()?;
        let default_rel = crate::handoff::DEFAULT_DIR.to_string();
        if self.dir_arg.is_some() {
            let only = self.handoff()?;
            return Ok(GateScope {
                known: vec![only.clone()],
                only: Some(only),
                discover: false,
                default_rel,
            });
        }
        let mut known = crate::handoff::location::configured(repo)?;
        let discover = crate::handoff::location::discovery_enabled(repo)?;
        // Several configured directories and none around the current directory: the gate
        // judges them all, so the ambiguity only matters to single-directory commands.
        match self.handoff() {
            Ok(d) => {
                let default = d.rel == crate::handoff::DEFAULT_DIR;
                // Restricted to configured directories, the default one counts only when
                // nothing is configured.
                let allowed = discover || known.is_empty() || !default;
                if allowed && !known.iter().any(|k| k.rel == d.rel) {
                    known.push(d);
                }
            }
            Err(Error::Usage(_)) => {}
            Err(e) => return Err(e),
        }
        Ok(GateScope {
            only: None,
            known,
            discover,
            default_rel,
        })
    }

    /// True when `--dir` named the handoff directory.
    pub fn dir_given(&self) -> bool {
        self.dir_arg.is_some()
    }

    /// Returns the handoff directory, failing when it does not exist.
    pub fn existing_handoff(&self) -> Result<HandoffDir> {
        let dir = self.handoff()?;
        if !dir.exists() {
            return Err(Error::NoHandoffDir(dir.rel));
        }
        dir.check_names()?;
        Ok(dir)
    }

    /// Prints a report and returns its exit status.
    pub fn emit<R: Report>(&self, report: &R) -> Result<ExitStatus> {
        Ok(self.printer.emit(report)?)
    }
}

/// Runs the parsed command line.
pub fn run(cli: &Cli) -> Result<ExitStatus> {
    let ctx = Context::new(cli)?;
    match &cli.command {
        Command::Init(args) => ctx.emit(&init::run(&ctx, args)?),
        Command::Status(args) => ctx.emit(&status::run(&ctx, args)?),
        Command::Context(args) => {
            let report = context::run(&ctx, args)?;
            let json = ctx.printer.json || args.format == context::ContextFormat::Json;
            Ok(Printer {
                json,
                ..ctx.printer
            }
            .emit(&report)?)
        }
        Command::Lint(args) => lint::run(&ctx, args),
        Command::Manifest(args) => ctx.emit(&manifest::run(&ctx, args)?),
        Command::Verify(args) => {
            let report = verify::run(&ctx, args)?;
            match args.format {
                verify::VerifyFormat::Github => Ok(ctx.printer.emit_github(&report)?),
                verify::VerifyFormat::Json => Ok(Printer {
                    json: true,
                    ..ctx.printer
                }
                .emit(&report)?),
                verify::VerifyFormat::Human => ctx.emit(&report),
            }
        }
        Command::Hook(args) => match hook::run(&ctx, args)? {
            // A hook is silent when it passes, so commits stay quiet.
            Some(report) => {
                let status = Printer {
                    quiet: true,
                    ..ctx.printer
                }
                .emit(&report)?;
                // Said once even when it passes: what the check could not tell.
                if status == ExitStatus::Success {
                    if let Some(note) = report.amend_unknown() {
                        crate::output::write_stderr(&format!(
                            "git-aahp hook: note: drift was {note}\n"
                        ));
                    }
                    // What the staged configuration runs that the gate cannot follow: said at
                    // the commit that brings it (a push would repeat it for every one).
                    let mut said = report.suppression_warnings();
                    if args.name == hook::HookName::PreCommit {
                        said.splice(0..0, report.unfollowed_warnings());
                    }
                    for line in said {
                        crate::output::write_stderr(&format!("git-aahp hook: warning: {line}\n"));
                    }
                }
                Ok(status)
            }
            None => Ok(ExitStatus::Success),
        },
        // The harness parses stdout as its JSON, with no envelope, in every mode.
        Command::AgentHook(args) => {
            crate::output::write_json_line(&agent_hook::run(&ctx, args))?;
            Ok(ExitStatus::Success)
        }
        Command::Doctor(args) => ctx.emit(&doctor::run(&ctx, args)?),
        Command::Archive(args) => ctx.emit(&archive::run(&ctx, args)?),
        Command::Trust(args) => ctx.emit(&trust::run(&ctx, args)?),
        Command::Task(args) => ctx.emit(&task::run(&ctx, args)?),
        Command::Review(args) => {
            let report = review::run(&ctx, args)?;
            let json = ctx.printer.json || args.format == review::ReviewFormat::Json;
            Ok(Printer {
                json,
                ..ctx.printer
            }
            .emit(&report)?)
        }
        Command::Begin(args) => ctx.emit(&begin::run(&ctx, args)?),
        Command::Commit(args) => ctx.emit(&commit::run(&ctx, args)?),
        Command::Recover(args) => ctx.emit(&recover::run(&ctx, args)?),
        Command::Mcp(args) => mcp::run(&ctx, args),
        Command::MergeDriver(args) => ctx.emit(&merge_driver::run(&ctx, args)?),
        Command::Hooks(args) => ctx.emit(&hooks::run(&ctx, args)?),
        Command::GenerateMan(args) => ctx.emit(&man::run(&ctx, args)?),
        Command::Completions(args) => ctx.emit(&man::completions(args)),
    }
}
