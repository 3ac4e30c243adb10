//! `git aahp`: maintains `.ai/handoff/`, the files AI coding agents use to hand work to each
//! other (AAHP v2).
//!
//! - [`handoff`]: the directory model (manifest, checksums, tokens). Pure file logic.
//! - [`lint`]: rules that flag prompt injection, secrets and structural errors.
//! - [`transaction`]: `HANDOFF.lock`, the commit journal, save/restore/tag helpers;
//!   [`commands::recover`] finishes or undoes an interrupted session.
//! - [`git`]: the only module that touches git (gix reads; the `git` binary for commits).
//! - [`commands`]: one module per subcommand; [`cli`] the command line; [`output`] rendering.
//! - [`error`]: the error type and exit codes; [`clock`]: the only reader of the system clock.

pub mod cli;
pub mod clock;
pub mod commands;
pub mod error;
pub mod failpoint;
pub mod git;
pub mod handoff;
pub mod lint;
pub mod output;
pub mod schema;
pub mod transaction;

use std::process::ExitCode;

use clap::Parser;

pub use error::{Error, ExitStatus, Result};

/// Runs the command line and returns the process exit code. Errors are printed to stderr as
/// `error:`, one `caused by:` per source and a `hint:`; a closed stdout exits 0.
pub fn main_entry() -> ExitCode {
    // Commands that lint start building the linter before the command line is even parsed
    // (parsing builds the whole command tree): a word that merely looks like one of them
    // only costs an idle thread.
    if std::env::args_os()
        .skip(1)
        .any(|a| ["hook", "verify", "lint", "commit"].iter().any(|c| a == *c))
    {
        lint::warm_up();
    }
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if !e.use_stderr() {
                // --help and --version: the tool's own text.
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // A usage error quotes the command line: through the boundary like any error.
            output::write_stderr(&e.render().to_string());
            return ExitCode::from(ExitStatus::Error.code());
        }
    };
    match commands::run(&cli) {
        Ok(status) => ExitCode::from(status.code()),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            report_error(&e);
            ExitCode::from(e.status().code())
        }
    }
}

fn report_error(e: &Error) {
    output::write_stderr(&error_text(e));
}

/// The human form of an error: `error:`, one `caused by:` per source, `hint:`.
fn error_text(e: &Error) -> String {
    let mut text = format!("error: {e}\n");
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str("caused by: ");
        text.push_str(&s.to_string());
        text.push('\n');
        source = s.source();
    }
    if let Some(hint) = e.hint() {
        text.push_str("hint: ");
        text.push_str(hint);
        text.push('\n');
    }
    text
}
