//! Rendering of command results. A command returns a value implementing [`Report`]; the
//! [`Printer`] writes it as human text or as one JSON document, through the output
//! [`boundary`]'s final sink. Nothing else prints to stdout.

pub mod boundary;
pub mod sarif;

use std::io::{self, IsTerminal, Write};

use serde::Serialize;

use crate::error::ExitStatus;
use boundary::{Paint, Sink};

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

/// A report that can also be written as GitHub Actions annotations (`--format github`):
/// one workflow command per finding, then the plain verdict lines.
pub trait Annotated: Report {
    /// One annotation per finding, built from the report's untrusted text.
    fn annotations(&self) -> Vec<boundary::Annotation>;
    /// The lines after the annotations (summary, hints), as in the human form.
    fn write_verdict(&self, w: &mut dyn Write) -> io::Result<()>;
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

    // Colour is a mark only the printer's sink turns into an escape sequence.
    fn paint(self, paint: Paint, s: &str) -> String {
        if self.color {
            paint.wrap(s)
        } else {
            s.to_string()
        }
    }

    /// Red, for failures.
    pub fn error(&self, s: &str) -> String {
        self.paint(Paint::Error, s)
    }

    /// Yellow, for warnings.
    pub fn warn(&self, s: &str) -> String {
        self.paint(Paint::Warn, s)
    }

    /// Green, for passes.
    pub fn ok(&self, s: &str) -> String {
        self.paint(Paint::Ok, s)
    }

    /// Bold, for headings.
    pub fn bold(&self, s: &str) -> String {
        self.paint(Paint::Bold, s)
    }

    /// Dim, for secondary detail.
    pub fn dim(&self, s: &str) -> String {
        self.paint(Paint::Dim, s)
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
    /// Prints a report and returns the exit status it implies. Everything goes through the
    /// boundary's final [`Sink`], whatever the report did itself.
    pub fn emit<R: Report>(&self, report: &R) -> io::Result<ExitStatus> {
        let status = report.status();
        let written = if self.json {
            let envelope = Envelope {
                schema_version: JSON_SCHEMA_VERSION,
                command: report.command(),
                report,
            };
            write_json(&envelope)
        } else if !(self.quiet && status == ExitStatus::Success) {
            let mut buf = Vec::new();
            report.write_human(&mut buf, &self.style)?;
            let text = String::from_utf8_lossy(&buf);
            write_stdout(
                &Sink::Text {
                    color: self.style.color,
                }
                .finish(&text),
            )
        } else {
            Ok(())
        };
        keep_status(written, status)
    }
}

/// The exit status of a report whose output went to `written`. A reader that closed the
/// pipe early does not turn a failed check into success (review s23 #5: `verify --level ci
/// | head` passed a failing gate under `pipefail`): the failing status stands; a passing
/// report's broken pipe stays an error, which exits 0.
pub fn keep_status(written: io::Result<()>, status: ExitStatus) -> io::Result<ExitStatus> {
    match written {
        Ok(()) => Ok(status),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe && status != ExitStatus::Success => {
            Ok(status)
        }
        Err(e) => Err(e),
    }
}

impl Printer {
    /// Prints a report as GitHub Actions annotations (no colour, whatever `--color` says:
    /// the runner reads the lines) and returns the exit status it implies.
    pub fn emit_github<R: Annotated>(&self, report: &R) -> io::Result<ExitStatus> {
        let mut text = String::new();
        for a in report.annotations() {
            text.push_str(&a.render());
        }
        let mut buf = Vec::new();
        report.write_verdict(&mut buf)?;
        text.push_str(&String::from_utf8_lossy(&buf));
        keep_status(
            write_stdout(&Sink::Text { color: false }.finish(&text)),
            report.status(),
        )
    }
}

/// Writes one annotation to stdout through the sink (an error under `--format github`).
pub fn write_annotation(a: &boundary::Annotation) -> io::Result<()> {
    write_stdout(&Sink::Text { color: false }.finish(&a.render()))
}

/// Writes one JSON document to stdout through the sink (SARIF uses it too).
pub fn write_json<T: Serialize>(value: &T) -> io::Result<()> {
    write_json_as(value, true)
}

/// [`write_json`] on one line, for a reader that wants a compact document (an agent
/// harness's hook).
pub fn write_json_line<T: Serialize>(value: &T) -> io::Result<()> {
    write_json_as(value, false)
}

/// Every string of the document, object keys included, is neutralised before it is
/// written ([`boundary::neutralise_json`]), so a field serialised without the boundary
/// still cannot carry a control character or a workflow command to whoever decodes it
/// (`jq -r`, an MCP client); the sink then redacts and escapes what remains.
fn write_json_as<T: Serialize>(value: &T, pretty: bool) -> io::Result<()> {
    let mut value = serde_json::to_value(value)?;
    boundary::neutralise_json(&mut value);
    let mut doc = if pretty {
        serde_json::to_string_pretty(&value)?
    } else {
        serde_json::to_string(&value)?
    };
    doc.push('\n');
    write_stdout(&Sink::Json.finish(&doc))
}

/// The only writer of stdout: it writes sink output only.
fn write_stdout(s: &str) -> io::Result<()> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    out.write_all(s.as_bytes())?;
    out.flush()
}

/// Writes text to stderr through the boundary's sink (no colour): the error reporter and
/// warnings use it, so stderr gets the same protection as stdout.
pub fn write_stderr(s: &str) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(Sink::Text { color: false }.finish(s).as_bytes());
    let _ = err.flush();
}

/// The name of the thread that judges a panic's report (see [`write_panic_report`]).
const PANIC_CLEANER: &str = "panic-boundary";

/// Writes a panic's report to stderr: `git-aahp panicked{at}: MESSAGE (…)`, through the
/// output boundary on a thread of its own within a few seconds, else with the message
/// withheld. The boundary's redaction runs the linter: a panic raised while this thread
/// builds part of the linter (its tables, a lazily compiled regex) would otherwise wait on
/// that very build for ever, and the command hang instead of exiting. `at` is the panic's
/// location in this crate's source. A panic of the judging thread itself adds nothing.
pub(crate) fn write_panic_report(at: &str, message: &str) {
    // Once the boundary could not judge one report, it cannot judge the next (the linter
    // it waits on is the same): those are withheld at once.
    static STUCK: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if std::thread::current().name() == Some(PANIC_CLEANER) {
        return;
    }
    let stuck = STUCK.load(std::sync::atomic::Ordering::Relaxed);
    let line = format!("git-aahp panicked{at}: {message} (a bug in git-aahp; please report it)");
    let (tx, rx) = std::sync::mpsc::channel();
    let judged = (!stuck)
        .then(|| {
            std::thread::Builder::new()
                .name(PANIC_CLEANER.into())
                .spawn(move || {
                    let _ =
                        tx.send(Sink::Text { color: false }.finish(&boundary::clean_line(&line)));
                })
                .ok()
        })
        .flatten()
        .and_then(|_| rx.recv_timeout(std::time::Duration::from_secs(5)).ok());
    if judged.is_none() {
        STUCK.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    let text = judged.map_or_else(
        || {
            format!(
                "git-aahp panicked{at}: [message withheld: the output boundary could not judge \
                 it] (a bug in git-aahp; please report it)\n"
            )
        },
        |t| format!("{}\n", t.trim_end()),
    );
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// Writes a report's warnings, one `warning: …` line each, through the output boundary.
pub fn write_warnings(w: &mut dyn Write, style: &Style, warnings: &[String]) -> io::Result<()> {
    for warning in warnings {
        writeln!(
            w,
            "{}: {}",
            style.warn("warning"),
            escape_untrusted(warning)
        )?;
    }
    Ok(())
}

/// Makes untrusted text safe to show on one line: the output boundary's
/// [`boundary::clean_line`] (secrets redacted, control characters, newlines and CI workflow
/// commands neutralised). Prefer holding such text as [`boundary::Untrusted`].
pub fn escape_untrusted(s: &str) -> String {
    boundary::clean_line(s)
}

/// A word to paste into a shell: `s` itself when it holds only characters no shell reads
/// specially, else single-quoted (a `'` inside written `'\''`). For hints that show a
/// command with a path in it (`git checkout -- 'my notes/LOG.md'`); the text still passes
/// the output boundary when printed.
pub fn shell_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./@%+=:,-".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_in_a_hint_pastes_into_a_shell_as_one_word() {
        assert_eq!(shell_word(".ai/handoff/LOG.md"), ".ai/handoff/LOG.md");
        assert_eq!(shell_word("my notes/LOG.md"), "'my notes/LOG.md'");
        assert_eq!(shell_word("it's $HOME"), "'it'\\''s $HOME'");
        assert_eq!(shell_word(""), "''");
    }

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
