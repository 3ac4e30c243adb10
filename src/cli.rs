//! The command line: global options shared by every subcommand, and the subcommand itself.
//! Argument structs live beside their command in [`crate::commands`].

use std::path::PathBuf;

use clap::{Args, Parser};

use crate::commands::Command;
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
}
