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
mod procfs;
mod sched;
pub mod schema;
pub mod transaction;

use std::process::ExitCode;

use clap::Parser;

pub use error::{Error, ExitStatus, Result};

/// Runs the command line and returns the process exit code. Errors are printed to stderr as
/// `error:`, one `caused by:` per source and a `hint:`; a closed stdout exits 0.
pub fn main_entry() -> ExitCode {
    // A panic's message may quote what it was reading (a name, a line of a file): it
    // reaches stderr through the output boundary like every other message.
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        output::write_panic_report(&at, &message);
    }));
    let args = match command_line() {
        Ok(args) => args,
        Err(e) => {
            report_error(&e);
            return ExitCode::from(e.status().code());
        }
    };
    // The command line and the tool's environment are untrusted input that messages
    // quote, escape and normalise (clap's usage errors, gix's `Debug` of a revision, a
    // normalised `--dir`): a secret in them is redacted from whatever output they reach.
    for arg in args.iter().skip(1) {
        output::boundary::note_input(&arg.to_string_lossy());
    }
    for (name, value) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("AAHP_") || name.starts_with("GITHUB_") {
            output::boundary::note_input(&value.to_string_lossy());
        }
    }
    // Tests arm `panic` to see a panic quoting untrusted text (the command line) reach
    // stderr through the boundary.
    if failpoint::armed_flag("panic") {
        let args: Vec<String> = args
            .iter()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        panic!("asked to panic by {}", args.join(" "));
    }
    // Commands that lint start building the linter before the command line is even parsed
    // (parsing builds the whole command tree): a word that merely looks like one of them
    // only costs an idle thread.
    if args
        .iter()
        .skip(1)
        .any(|a| ["hook", "verify", "lint", "commit"].iter().any(|c| a == *c))
    {
        // A pre-commit check asks which git command runs it: the processes above are read
        // on the same thread first.
        let precommit = args.iter().skip(1).any(|a| {
            [
                "commit",
                "pre-commit",
                "pre-merge-commit",
                "pre-applypatch",
                "precommit",
                "--level=precommit",
            ]
            .iter()
            .any(|c| a == *c)
        });
        lint::warm_up(precommit);
    }
    // The commit hooks' shims run one fixed command line; it skips clap's command tree.
    let parsed = match cli::Cli::parse_hook_shim(&args) {
        Some(cli) => Ok(cli),
        None => cli::Cli::try_parse_from(&args),
    };
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            if !e.use_stderr() {
                // --help and --version: the tool's own text.
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // A usage error quotes the command line: through the boundary like any error.
            let text = e.render().to_string();
            if args.iter().any(|a| a == "--json") {
                let usage = Error::Usage(text.trim_end().to_string());
                let _ = output::write_json(&ErrorDocument::new(&command_word(&args), &usage));
            }
            output::write_stderr(&text);
            return ExitCode::from(ExitStatus::Error.code());
        }
    };
    match commands::run(&cli) {
        Ok(status) => ExitCode::from(status.code()),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            if cli.command.wants_json(cli.global.json) {
                let _ = output::write_json(&ErrorDocument::new(cli.command.name(), &e));
            } else if cli.command.wants_github() {
                // The run's log shows why the gate could not judge, not only the exit code.
                let _ = output::write_annotation(&output::boundary::Annotation {
                    level: output::boundary::AnnotationLevel::Error,
                    file: None,
                    line: None,
                    col: None,
                    end_column: None,
                    title: Some(format!("git aahp {}", cli.command.name()).into()),
                    message: error_text(&e).trim_end().into(),
                });
            }
            report_error(&e);
            ExitCode::from(e.status().code())
        }
    }
}

/// The first argument that makes the command line the JSON array of strings on stdin, after
/// the program name: how `git aahp mcp` runs a tool with a client's text, which may be
/// longer than the system allows one argument to be (128 KiB on Linux).
pub const ARGS_ON_STDIN: &str = "--args-on-stdin";

/// Most bytes of arguments read from stdin (a request line of `git aahp mcp` is shorter).
const MAX_STDIN_ARGS: u64 = 64 << 20;

/// The command line: the process's arguments, or those read from stdin after
/// [`ARGS_ON_STDIN`].
fn command_line() -> Result<Vec<std::ffi::OsString>> {
    use std::io::Read;
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.len() != 2 || args[1] != ARGS_ON_STDIN {
        return Ok(args);
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_STDIN_ARGS + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Read {
            path: "the arguments on stdin".into(),
            source: e,
        })?;
    if bytes.len() as u64 > MAX_STDIN_ARGS {
        return Err(Error::Usage(format!(
            "the arguments on stdin are longer than {} MiB",
            MAX_STDIN_ARGS >> 20
        )));
    }
    let given: Vec<String> = serde_json::from_slice(&bytes).map_err(|e| {
        Error::Usage(format!(
            "{ARGS_ON_STDIN}: stdin must hold a JSON array of strings ({e})"
        ))
    })?;
    args.truncate(1);
    args.extend(given.into_iter().map(std::ffi::OsString::from));
    Ok(args)
}

/// The `--json` form of a failure (SPEC §3): one document on stdout, so an orchestrator
/// can tell why a command could not run (exit 2) or whose lock stopped it (exit 3).
#[derive(serde::Serialize)]
struct ErrorDocument<'a> {
    schema_version: u32,
    command: &'a str,
    error: ErrorBody<'a>,
}

#[derive(serde::Serialize)]
struct ErrorBody<'a> {
    kind: &'static str,
    /// Every text here may quote untrusted input: it goes through the boundary.
    message: output::boundary::Untrusted,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    causes: Vec<output::boundary::Untrusted>,
    hint: Option<&'static str>,
    exit_code: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    holder: Option<&'a error::LockHolder>,
}

impl<'a> ErrorDocument<'a> {
    fn new(command: &'a str, e: &'a Error) -> ErrorDocument<'a> {
        let mut causes = Vec::new();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            causes.push(s.to_string().into());
            source = s.source();
        }
        ErrorDocument {
            schema_version: output::JSON_SCHEMA_VERSION,
            command,
            error: ErrorBody {
                kind: e.kind(),
                message: e.to_string().into(),
                causes,
                hint: e.hint(),
                exit_code: e.status().code(),
                holder: match e {
                    Error::Locked(h) | Error::LiveSession(h) => Some(h),
                    _ => None,
                },
            },
        }
    }
}

/// The subcommand named on a command line clap refused, for the error document.
fn command_word(args: &[std::ffi::OsString]) -> String {
    use clap::CommandFactory;
    let known: Vec<String> = cli::Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    args.iter()
        .skip(1)
        .filter_map(|a| a.to_str().map(String::from))
        .find(|a| known.contains(a))
        .unwrap_or_else(|| "git-aahp".into())
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
