//! Rendering of command results. A command returns a value implementing [`Report`]; the
//! [`Printer`] writes it as human text or as one JSON document. Nothing else prints to stdout.

pub mod sarif;

use std::io::{self, IsTerminal, Write};

use serde::Serialize;

use crate::error::ExitStatus;

/// The version of every `--json` document (`{"schema_version":1,"command":…}`).
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// A command's result, printable for humans and serialisable for machines.
pub trait Report: Serialize {
    /// The command name put into the JSON envelope.
    fn command(&self) -> &'static str;
    /// Writes the human form.
    fn write_human(&self, w: &mut dyn Write, style: &Style) -> io::Result<()>;
    /// The exit status this result implies.
    fn status(&self) -> ExitStatus {
        ExitStatus::Success
    }
}

/// When to colour output (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset.
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// Text styling; a no-op when colour is off.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    /// Whether ANSI colour codes are emitted.
    pub color: bool,
}

impl Style {
    /// Decides colour from the choice, the terminal and `NO_COLOR` / `TERM=dumb`.
    pub fn detect(choice: ColorChoice) -> Style {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var("TERM").map_or(true, |t| t != "dumb")
            }
        };
        Style { color }
    }

    fn paint(self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    /// Red, for failures.
    pub fn error(&self, s: &str) -> String {
        self.paint("1;31", s)
    }

    /// Yellow, for warnings.
    pub fn warn(&self, s: &str) -> String {
        self.paint("33", s)
    }

    /// Green, for passes.
    pub fn ok(&self, s: &str) -> String {
        self.paint("32", s)
    }

    /// Bold, for headings.
    pub fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }

    /// Dim, for secondary detail.
    pub fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
}

/// Writes reports to stdout in the chosen format.
#[derive(Debug, Clone, Copy)]
pub struct Printer {
    /// Print one JSON document instead of text.
    pub json: bool,
    /// Print nothing on success (human form only).
    pub quiet: bool,
    /// Colour settings.
    pub style: Style,
}

#[derive(Serialize)]
struct Envelope<'a, R: Serialize> {
    schema_version: u32,
    command: &'static str,
    #[serde(flatten)]
    report: &'a R,
}

impl Printer {
    /// Prints a report and returns the exit status it implies.
    pub fn emit<R: Report>(&self, report: &R) -> io::Result<ExitStatus> {
        let status = report.status();
        let stdout = io::stdout();
        let mut out = io::BufWriter::new(stdout.lock());
        if self.json {
            let envelope = Envelope {
                schema_version: JSON_SCHEMA_VERSION,
                command: report.command(),
                report,
            };
            serde_json::to_writer_pretty(&mut out, &envelope)?;
            out.write_all(b"\n")?;
        } else if !(self.quiet && status == ExitStatus::Success) {
            report.write_human(&mut out, &self.style)?;
        }
        out.flush()?;
        Ok(status)
    }
}

/// Escapes text taken from handoff files before it reaches a terminal or CI log: control
/// characters (ANSI escapes, CR) become visible `\u{..}` sequences and a line starting with
/// `::` cannot act as a GitHub Actions workflow command.
pub fn escape_untrusted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() && c != '\t' {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    if out.trim_start().starts_with("::") {
        out.insert(0, '\\');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrusted_text_cannot_inject_terminal_or_ci_commands() {
        assert_eq!(escape_untrusted("a\x1b[31mred"), "a\\u{1b}[31mred");
        assert_eq!(
            escape_untrusted("::set-output name=x::y"),
            "\\::set-output name=x::y"
        );
        assert_eq!(escape_untrusted("plain | text"), "plain | text");
    }
}
