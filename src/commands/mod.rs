//! One module per subcommand. Each holds its `Args`, a `run` function and its report type;
//! this file holds the [`Command`] enum, the shared [`Context`] and the one flat `match`.

pub mod lint;
pub mod manifest;

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
    /// Lint handoff files: prompt injection, hidden content, secrets, PII, .aiignore.
    Lint(lint::LintArgs),
    /// Regenerate MANIFEST.json from the files (or check that it is current).
    Manifest(manifest::ManifestArgs),
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
    pub fn handoff(&self) -> Result<HandoffDir> {
        HandoffDir::locate(self.repo()?, &self.cwd, self.dir_arg.as_deref())
    }

    /// Returns the handoff directory, failing when it does not exist.
    pub fn existing_handoff(&self) -> Result<HandoffDir> {
        let dir = self.handoff()?;
        if !dir.exists() {
            return Err(Error::NoHandoffDir(dir.rel));
        }
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
        Command::Lint(args) => lint::run(&ctx, args),
        Command::Manifest(args) => ctx.emit(&manifest::run(&ctx, args)?),
    }
}
