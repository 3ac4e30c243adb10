//! The command line: global options shared by every subcommand, and the subcommand itself.
//! Argument structs live beside their command in [`crate::commands`].

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser};

use crate::commands::Command;
use crate::commands::hook::{HookArgs, HookName};
use crate::output::ColorChoice;

/// The exit codes and environment variables, shown after `--help` and rendered as the man
/// page's EXIT STATUS and ENVIRONMENT sections.
pub const EXIT_CODES: &str = "\
Exit codes:
  0  success, no blocking findings
  1  the check ran and failed (findings, drift, stale manifest)
  2  could not run (usage error, unreadable or invalid input or config, not a repository)
  3  HANDOFF.lock is held by another session

Environment:
  AAHP_SKIP_VERIFY=1  skip local verification (ignored at --level ci)
  AAHP_BASE_SHA       the base of verify --level ci when --base is not given
  AAHP_NOW            fix the clock (RFC 3339), for tests and reproducible runs
  NO_COLOR            disable colour";

/// Maintain `.ai/handoff/`, the files through which AI coding agents hand work to each other
/// (AAHP v2): manifest, safety lint, verify gate, session lock, single commit, recovery.
#[derive(Debug, Parser)]
#[command(name = "git-aahp", bin_name = "git aahp", version, after_help = EXIT_CODES, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The command line a commit's hook shim runs (`git aahp hook pre-commit`, and the
    /// pre-merge-commit and pre-applypatch shims, which pass no arguments), as clap parses
    /// it, without building clap's command tree first: that build is ~0.6 M instructions and
    /// its allocations on the thread a commit waits for. Any other command line, an option
    /// or one more word included, is `None` and goes through clap.
    pub fn parse_hook_shim(args: &[OsString]) -> Option<Cli> {
        let [_, word, name] = args else {
            return None;
        };
        if word != "hook" {
            return None;
        }
        let name = match name.to_str()? {
            "pre-commit" => HookName::PreCommit,
            "pre-merge-commit" => HookName::PreMergeCommit,
            "pre-applypatch" => HookName::PreApplypatch,
            _ => return None,
        };
        Some(Cli {
            global: GlobalArgs {
                dir: None,
                json: false,
                quiet: false,
                color: ColorChoice::Auto,
            },
            command: Command::Hook(HookArgs {
                name,
                rest: Vec::new(),
            }),
        })
    }
}

/// Options every subcommand accepts.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// The handoff directory (default: the nearest enclosing one holding `.ai/handoff`, else
    /// git config `aahp.dir`, else `.ai/handoff`).
    #[arg(long, global = true, value_name = "PATH")]
    pub dir: Option<PathBuf>,
    /// Print one JSON document on stdout instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Print nothing on success.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// When to use colour.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    fn argv(words: &[&str]) -> Vec<OsString> {
        std::iter::once("git-aahp")
            .chain(words.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn hook_shim_command_lines_parse_as_clap_parses_them() {
        for name in ["pre-commit", "pre-merge-commit", "pre-applypatch"] {
            let args = argv(&["hook", name]);
            let shim = Cli::parse_hook_shim(&args).expect("a shim's command line");
            let clap = Cli::try_parse_from(&args).expect("clap parses it");
            assert_eq!(format!("{shim:?}"), format!("{clap:?}"), "{name}");
        }
    }

    #[test]
    fn other_command_lines_go_through_clap() {
        for words in [
            &["hook", "pre-push"][..],
            &["hook", "pre-push", "origin", "https://example.com/r.git"],
            &["hook", "pre-commit", "--json"],
            &["hook", "pre-commit", "extra"],
            &["--quiet", "hook", "pre-commit"],
            &["--dir", "x", "hook", "pre-commit"],
            &["hook", "--help"],
            &["hook", "pre-commit", "--help"],
            &["hook", "Pre-Commit"],
            &["hook"],
            &["verify", "pre-commit"],
            &["lint", "pre-commit"],
            &[],
        ] {
            assert!(Cli::parse_hook_shim(&argv(words)).is_none(), "{words:?}");
        }
    }
}
