//! `git aahp generate-man` and `git aahp completions`: the man pages and shell completion
//! scripts, generated from the clap definition so they cannot drift from `--help`.
//!
//! Git turns `git aahp --help` into `man git-aahp`, so without an installed page the user
//! gets "No manual entry"; `install.sh` writes the pages with the first command.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::CommandFactory;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};
use serde::Serialize;

use super::Context;
use crate::cli::{Cli, EXIT_CODES};
use crate::error::{Error, Result};
use crate::handoff::write_atomic;
use crate::output::{Report, Style};

/// Write the man pages: `git-aahp.1` and `git-aahp-<command>.1` for each subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct GenerateManArgs {
    /// Directory to write the pages into (created when missing).
    #[arg(default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
}

/// The result of `git aahp generate-man`.
#[derive(Debug, Serialize)]
pub struct ManReport {
    /// The directory written to.
    pub directory: String,
    /// The file names written, main page first.
    pub pages: Vec<String>,
}

impl Report for ManReport {
    fn command(&self) -> &'static str {
        "generate-man"
    }

    fn write_human(&self, w: &mut dyn Write, _style: &Style) -> io::Result<()> {
        writeln!(
            w,
            "wrote {} man pages to {}",
            self.pages.len(),
            self.directory
        )?;
        for p in &self.pages {
            writeln!(w, "  {p}")?;
        }
        Ok(())
    }
}

/// Returns the command tree with display names set (`git-aahp-hooks-install`).
fn built_command() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// Renders every page: `(file name, roff)`, the main page first.
pub fn render_pages() -> io::Result<Vec<(String, Vec<u8>)>> {
    fn walk(cmd: &clap::Command, out: &mut Vec<(String, Vec<u8>)>) -> io::Result<()> {
        let mut page = Vec::new();
        render_page(cmd, &mut page)?;
        out.push((Man::new(cmd.clone()).get_filename(), page));
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub, out)?;
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(&built_command(), &mut out)?;
    Ok(out)
}

/// Renders one page: clap's sections, then EXIT STATUS and ENVIRONMENT from the text shown
/// after `--help`, then SEE ALSO.
pub fn render_page(cmd: &clap::Command, w: &mut dyn Write) -> io::Result<()> {
    let name = cmd.get_display_name().unwrap_or(cmd.get_name()).to_string();
    // An empty date would be dropped from `.TH` and shift the fields after it; a blank one
    // keeps the footer empty without reading the clock.
    let man = Man::new(cmd.clone())
        .date(" ")
        .source(concat!("git-aahp ", env!("CARGO_PKG_VERSION")))
        .manual("Git Manual");
    man.render_title(w)?;
    man.render_name_section(w)?;
    man.render_synopsis_section(w)?;
    man.render_description_section(w)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(w)?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(w)?;
    }
    let mut roff = Roff::default();
    for (heading, items) in after_help_sections(EXIT_CODES) {
        roff.control("SH", [heading.as_str()]);
        for (key, text) in items {
            roff.control("TP", []);
            roff.text([bold(key)]);
            roff.text([roman(text)]);
        }
    }
    roff.control("SH", ["SEE ALSO"]);
    let mut see_also = vec![bold("git"), roman("(1)")];
    if name != "git-aahp" {
        see_also.extend([roman(", "), bold("git-aahp"), roman("(1)")]);
    }
    roff.text(see_also);
    // Subcommands carry no version of their own; every page names the release.
    roff.control("SH", ["VERSION"]);
    roff.text([roman(concat!("v", env!("CARGO_PKG_VERSION")))]);
    roff.to_writer(w)
}

/// Splits the after-help text into `(SECTION, [(key, text)])`: a block headed `Exit codes:`
/// becomes `EXIT STATUS`, `Environment:` becomes `ENVIRONMENT`; items are `  KEY  text`.
fn after_help_sections(text: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            let heading = line.trim().trim_end_matches(':');
            let heading = match heading.to_ascii_lowercase().as_str() {
                "exit codes" | "exit status" => "EXIT STATUS".to_string(),
                _ => heading.to_ascii_uppercase(),
            };
            out.push((heading, Vec::new()));
            continue;
        }
        let item = line.trim();
        let (key, rest) = item.split_once("  ").unwrap_or((item, ""));
        if let Some((_, items)) = out.last_mut() {
            items.push((key.to_string(), rest.trim().to_string()));
        }
    }
    out
}

/// Runs `git aahp generate-man`.
pub fn run(ctx: &Context, args: &GenerateManArgs) -> Result<ManReport> {
    let dir = ctx.cwd.join(&args.dir);
    let shown = args.dir.display().to_string();
    std::fs::create_dir_all(&dir).map_err(|source| Error::Write {
        path: shown.clone(),
        source,
    })?;
    let pages = render_pages()?;
    let mut names = Vec::with_capacity(pages.len());
    for (name, bytes) in pages {
        write_atomic(&dir.join(&name), &bytes).map_err(|source| Error::Write {
            path: format!("{}/{name}", shown.trim_end_matches('/')),
            source,
        })?;
        names.push(name);
    }
    Ok(ManReport {
        directory: shown,
        pages: names,
    })
}

/// Print a shell completion script.
///
/// For bash the script also defines `_git_aahp`, which git's own completion calls for
/// `git aahp <TAB>`; install it as `git-aahp` in a bash-completion directory so git's
/// completion finds it.
#[derive(Debug, Clone, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// The result of `git aahp completions`: the script itself.
#[derive(Debug, Serialize)]
pub struct CompletionsReport {
    /// The shell.
    pub shell: String,
    /// The completion script.
    pub script: String,
}

impl Report for CompletionsReport {
    fn command(&self) -> &'static str {
        "completions"
    }

    fn write_human(&self, w: &mut dyn Write, _style: &Style) -> io::Result<()> {
        w.write_all(self.script.as_bytes())
    }
}

/// Bridges git's bash completion to the generated function: for `git aahp …`, git calls
/// `_git_aahp` with its own `words`/`cword`; they are rewritten as if `git-aahp` was typed.
const BASH_GIT_SHIM: &str = r#"
# `git aahp <TAB>`: git's completion calls _git_aahp with its own words and cword (after
# any global options such as `git -C dir`); present them as if `git-aahp` had been typed.
_git_aahp() {
    local i idx=${__git_cmd_idx:-}
    if [[ -z $idx ]]; then
        idx=1
        for ((i = 1; i < cword; i++)); do
            if [[ ${words[i]} == aahp ]]; then
                idx=$i
                break
            fi
        done
    fi
    local COMP_WORDS=("git-aahp" "${words[@]:idx+1}")
    local COMP_CWORD=$((cword - idx))
    _git__aahp git-aahp "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
}
"#;

/// Runs `git aahp completions`.
pub fn completions(args: &CompletionsArgs) -> CompletionsReport {
    // The bin name must be set before clap builds the subcommands' names, or the generated
    // functions of nested subcommands keep the `git aahp` spelling and never match.
    let mut cmd = Cli::command().bin_name("git-aahp");
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "git-aahp", &mut out);
    let mut script = String::from_utf8_lossy(&out).into_owned();
    if args.shell == clap_complete::Shell::Bash {
        // clap_complete 4.6 spells the bin name's `-` as `__` in the dispatch table but as
        // `__subcmd__` in the per-subcommand cases, so nested subcommands (`hooks install`)
        // would never complete; align the two spellings.
        script = script.replace("git__subcmd__aahp", "git__aahp");
        script.push_str(BASH_GIT_SHIM);
    }
    CompletionsReport {
        shell: args.shell.to_string(),
        script,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_become_a_man_section() {
        let sections = after_help_sections(EXIT_CODES);
        let (heading, items) = &sections[0];
        assert_eq!(heading, "EXIT STATUS");
        let keys: Vec<&str> = items.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["0", "1", "2", "3"]);
        assert!(items[3].1.contains("HANDOFF.lock"));
        assert_eq!(sections[1].0, "ENVIRONMENT");
    }

    #[test]
    fn every_visible_subcommand_gets_a_page() {
        let pages = render_pages().unwrap();
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names[0], "git-aahp.1");
        assert!(names.contains(&"git-aahp-init.1"), "{names:?}");
        assert!(names.contains(&"git-aahp-hooks-install.1"), "{names:?}");
        assert!(!names.iter().any(|n| n.contains("generate-man")));
        for (name, page) in &pages {
            let text = String::from_utf8(page.clone()).unwrap();
            assert!(text.contains(".SH \"EXIT STATUS\""), "{name}");
        }
    }
}
