//! Agent-harness hooks (issue #16): `git aahp init --agent-hooks HARNESS` writes the harness's
//! project settings so that every agent session starts with `git aahp context` in its context
//! and ends with a reminder to `git aahp commit`; `git aahp agent-hook HARNESS EVENT` is what
//! those settings run.
//!
//! The formats, as the harnesses document them:
//!
//! - Claude Code (code.claude.com/docs/en/hooks): project hooks live in
//!   `.claude/settings.json` under `hooks.<Event>`, a list of `{matcher, hooks: [{type:
//!   "command", command, timeout}]}` groups; `timeout` is in seconds. A `SessionStart` hook
//!   (matchers `startup`, `resume`, `clear`, `compact`) that exits 0 has
//!   `hookSpecificOutput.additionalContext` added to the model's context; hook output above
//!   10,000 characters is saved to a file and only a preview reaches the model. `Stop` runs
//!   when the agent finishes answering; its `systemMessage` is shown to the user.
//! - Gemini CLI (geminicli.com/docs/hooks, "Hooks reference"): project hooks live in
//!   `.gemini/settings.json` under `hooks.<Event>` with the same group shape plus a `name`;
//!   `timeout` is in milliseconds; stdout must be one JSON object and nothing else.
//!   `SessionStart` adds `hookSpecificOutput.additionalContext` to the context; `SessionEnd`
//!   is advisory (`systemMessage` is shown to the user). Stable releases run project hooks
//!   only with `hooksConfig.enabled` set.
//!
//! A session-start hook never blocks a session: when the context cannot be built it says why
//! in `systemMessage` and exits 0.

use std::io::{self, IsTerminal, Read};
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::Context;
use super::context::{self, ContextArgs, ContextFormat, ContextLevel, Purpose};
use super::init::{FileAction, FileOutcome};
use crate::error::{Error, Result};
use crate::handoff::{read_limited, write_atomic};
use crate::output::{Report, Style, boundary};
use crate::transaction::lock::LockState;

/// Characters the injected context may take: Claude Code replaces hook output above 10,000
/// characters with a file path and a preview; the rest is the JSON around it.
const MAX_CONTEXT_CHARS: usize = 9_000;
/// The token budget tried first; lowered until the Markdown fits [`MAX_CONTEXT_CHARS`].
const START_BUDGET: usize = 2_000;
/// Seconds a hook may run, as Claude Code counts them (Gemini counts milliseconds).
const TIMEOUT_SECS: u64 = 30;
/// Every command this module writes into a harness's settings starts with this, which is how
/// a second `init --agent-hooks` finds its own entries.
const COMMAND_PREFIX: &str = "git aahp agent-hook ";

/// The agent harnesses whose hooks `init --agent-hooks` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Harness {
    /// Claude Code: `.claude/settings.json`.
    Claude,
    /// Gemini CLI: `.gemini/settings.json`.
    Gemini,
}

/// The events `git aahp agent-hook` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Event {
    /// The session starts: print the handoff context for the model.
    SessionStart,
    /// The agent stops (Claude Code's `Stop`, Gemini CLI's `SessionEnd`): remind the user of
    /// a session that is still open.
    SessionEnd,
}

impl Event {
    fn arg(self) -> &'static str {
        match self {
            Event::SessionStart => "session-start",
            Event::SessionEnd => "session-end",
        }
    }
}

impl Harness {
    /// The project settings file, relative to the work tree's root.
    pub fn settings_path(self) -> &'static str {
        match self {
            Harness::Claude => ".claude/settings.json",
            Harness::Gemini => ".gemini/settings.json",
        }
    }

    /// The harness's name on the command line.
    pub fn arg(self) -> &'static str {
        match self {
            Harness::Claude => "claude",
            Harness::Gemini => "gemini",
        }
    }

    /// The harness's name for an event.
    fn event_name(self, event: Event) -> &'static str {
        match (self, event) {
            (_, Event::SessionStart) => "SessionStart",
            (Harness::Claude, Event::SessionEnd) => "Stop",
            (Harness::Gemini, Event::SessionEnd) => "SessionEnd",
        }
    }

    fn command(self, event: Event) -> String {
        format!("{COMMAND_PREFIX}{} {}", self.arg(), event.arg())
    }

    /// One hook group as the harness's settings hold it.
    fn group(self, event: Event) -> Value {
        let command = self.command(event);
        let hook = match self {
            Harness::Claude => json!({
                "type": "command",
                "command": command,
                "timeout": TIMEOUT_SECS,
            }),
            Harness::Gemini => json!({
                "name": format!("git-aahp-{}", event.arg()),
                "type": "command",
                "command": command,
                "timeout": TIMEOUT_SECS * 1000,
            }),
        };
        match (self, event) {
            (Harness::Claude, Event::SessionStart) => {
                json!({"matcher": "startup|resume|clear|compact", "hooks": [hook]})
            }
            (Harness::Gemini, Event::SessionStart) => json!({"matcher": "*", "hooks": [hook]}),
            _ => json!({"hooks": [hook]}),
        }
    }
}

/// Whether `settings` (a harness's parsed settings) runs `git aahp agent-hook` at `event`.
fn has_hook(settings: &Value, harness: Harness, event: Event) -> bool {
    let wanted = harness.command(event);
    settings["hooks"][harness.event_name(event)]
        .as_array()
        .is_some_and(|groups| {
            groups.iter().any(|g| {
                g["hooks"].as_array().is_some_and(|hooks| {
                    hooks
                        .iter()
                        .any(|h| h["command"].as_str().is_some_and(|c| c.trim() == wanted))
                })
            })
        })
}

/// Reads a harness's settings file: `None` when there is none; exit 2 naming the file and
/// line when it is not a JSON object.
fn read_settings(root: &Path, harness: Harness) -> Result<Option<Value>> {
    let rel = harness.settings_path();
    let path = root.join(rel);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let bytes = read_limited(&path, rel)?;
    let value: Value = crate::handoff::json::from_slice(&bytes)
        .map_err(|e| Error::invalid(rel, Some(e.line()), e.describe("not valid JSON")))?;
    if !value.is_object() {
        return Err(Error::invalid(
            rel,
            None,
            "the settings must be a JSON object",
        ));
    }
    Ok(Some(value))
}

/// Exit 2, naming it, when the settings file or its directory is a symbolic link that leads
/// out of the work tree (`.claude -> ~/.claude`, committed by anyone): `init --agent-hooks`
/// read the file there and rewrote it, a user's own harness settings outside the project
/// (review atk39 #7); a link inside the tree is followed as before.
fn refuse_outside(root: &Path, rel: &str) -> Result<()> {
    let Ok(top) = std::fs::canonicalize(root) else {
        return Ok(());
    };
    let path = root.join(rel);
    for at in [path.parent(), Some(path.as_path())].into_iter().flatten() {
        let linked = std::fs::symlink_metadata(at).is_ok_and(|m| m.file_type().is_symlink());
        let outside = || std::fs::canonicalize(at).map_or(true, |real| !real.starts_with(&top));
        if linked && outside() {
            let shown = at
                .strip_prefix(root)
                .unwrap_or(at)
                .to_string_lossy()
                .into_owned();
            return Err(Error::invalid(
                &shown,
                None,
                "is a symbolic link out of the work tree: the harness settings are written only \
                 inside it; replace the link by a directory or file of the repository",
            ));
        }
    }
    Ok(())
}

/// Which of the harness's hooks the repository's settings hold (for `doctor`).
pub fn installed(root: &Path, harness: Harness) -> Result<Vec<&'static str>> {
    let Some(settings) = read_settings(root, harness)? else {
        return Ok(Vec::new());
    };
    Ok([Event::SessionStart, Event::SessionEnd]
        .into_iter()
        .filter(|&e| has_hook(&settings, harness, e))
        .map(|e| harness.event_name(e))
        .collect())
}

/// The settings `init --agent-hooks` will write for one harness: planned (read, checked,
/// merged) before `init` writes anything, applied after.
pub struct PlannedSettings {
    harness: Harness,
    /// The new file, when it changes.
    bytes: Option<Vec<u8>>,
    created: bool,
}

/// Plans adding the session-start and session-end hooks to the harness's project settings,
/// keeping everything else in the file (other hooks, other keys, their order) as it was. A
/// file that already has them is left alone. Exit 2, naming the file, when it is not a JSON
/// object or holds `hooks` of another shape.
pub fn plan(root: &Path, harness: Harness) -> Result<PlannedSettings> {
    let rel = harness.settings_path();
    refuse_outside(root, rel)?;
    let existing = read_settings(root, harness)?;
    let created = existing.is_none();
    let mut settings = existing.unwrap_or_else(|| Value::Object(Map::new()));
    let mut changed = false;
    for event in [Event::SessionStart, Event::SessionEnd] {
        if has_hook(&settings, harness, event) {
            continue;
        }
        let hooks = settings
            .as_object_mut()
            .expect("checked to be an object")
            .entry("hooks")
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(hooks) = hooks.as_object_mut() else {
            return Err(Error::invalid(rel, None, "`hooks` must be a JSON object"));
        };
        let groups = hooks
            .entry(harness.event_name(event))
            .or_insert_with(|| Value::Array(Vec::new()));
        let Some(groups) = groups.as_array_mut() else {
            return Err(Error::invalid(
                rel,
                None,
                format!("`hooks.{}` must be a JSON array", harness.event_name(event)),
            ));
        };
        groups.push(harness.group(event));
        changed = true;
    }
    if harness == Harness::Gemini && settings["hooksConfig"]["enabled"] != Value::Bool(true) {
        let obj = settings.as_object_mut().expect("checked to be an object");
        let config = obj
            .entry("hooksConfig")
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(config) = config.as_object_mut() else {
            return Err(Error::invalid(
                rel,
                None,
                "`hooksConfig` must be a JSON object",
            ));
        };
        config.insert("enabled".into(), Value::Bool(true));
        changed = true;
    }
    let bytes = changed.then(|| {
        let mut bytes = serde_json::to_vec_pretty(&settings).expect("a JSON value serialises");
        bytes.push(b'\n');
        bytes
    });
    Ok(PlannedSettings {
        harness,
        bytes,
        created,
    })
}

impl PlannedSettings {
    /// Writes the planned file (temp file and rename; an existing file keeps its mode).
    pub fn apply(self, root: &Path) -> Result<FileOutcome> {
        let rel = self.harness.settings_path();
        let changed = self.bytes.is_some();
        if let Some(bytes) = &self.bytes {
            let path = root.join(rel);
            let write_err = |source| Error::Write {
                path: rel.to_string(),
                source,
            };
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(write_err)?;
            }
            write_atomic(&path, bytes).map_err(write_err)?;
        }
        Ok(FileOutcome {
            path: rel.to_string(),
            action: match (self.created, changed) {
                (true, _) => FileAction::Created,
                (false, true) => FileAction::Updated,
                (false, false) => FileAction::Kept,
            },
            detail: Some(format!(
                "{} hooks run `{}`",
                match self.harness {
                    Harness::Claude => "Claude Code",
                    Harness::Gemini => "Gemini CLI",
                },
                COMMAND_PREFIX.trim_end()
            )),
        })
    }
}

/// Answer a coding-agent harness's hook (what `init --agent-hooks` configures).
#[derive(Debug, Clone, clap::Args)]
pub struct AgentHookArgs {
    /// The harness that runs the hook (it decides the output format).
    #[arg(value_enum)]
    pub harness: Harness,
    /// The event.
    #[arg(value_enum)]
    pub event: Event,
}

/// The hook's answer: one JSON object in the harness's format (possibly empty), printed
/// as it is, on one line, through the JSON sink in every mode (the harness parses it).
#[derive(Debug, Serialize)]
#[serde(transparent)]
pub struct AgentHookReport(Value);

/// Runs `git aahp agent-hook`. Never fails the harness's session: problems become a
/// `systemMessage` for the user.
pub fn run(ctx: &Context, args: &AgentHookArgs) -> AgentHookReport {
    // The harness writes the event's details to stdin; nothing here needs them, but a
    // harness may wait for its write to be read.
    if !io::stdin().is_terminal() {
        let mut input = Vec::new();
        let _ = io::stdin().take(1 << 20).read_to_end(&mut input);
    }
    let answer = match args.event {
        Event::SessionStart => session_start(ctx),
        Event::SessionEnd => session_end(ctx),
    };
    AgentHookReport(answer.unwrap_or_else(|e| {
        let why = boundary::clean_line(&e.to_string());
        let mut answer = json!({"systemMessage": format!("git aahp: {why}")});
        // A handoff that is there but cannot be read: the model is told too, or it would
        // start as if there were none and not know why (review s28 #8).
        if matches!(args.event, Event::SessionStart) && !matches!(e, Error::NoHandoffDir(_)) {
            answer["hookSpecificOutput"] = json!({
                "hookEventName": "SessionStart",
                "additionalContext": format!(
                    "The handoff of this repository (git-aahp) could not be loaded for this \
                     session: {why}. Do not rely on the handoff files until `git aahp status` \
                     passes; tell the user what it reports."
                ),
            });
        }
        answer
    }))
}

/// The handoff context as additional context, as large as fits the harness's limit.
fn session_start(ctx: &Context) -> Result<Value> {
    let dir = ctx.existing_handoff()?;
    let mut budget = START_BUDGET;
    let markdown = loop {
        let report = context::run(
            ctx,
            &ContextArgs {
                level: ContextLevel::Full,
                budget: Some(budget),
                purpose: Purpose::Bugfix,
                format: ContextFormat::Md,
            },
        )?;
        let mut out = Vec::new();
        report
            .write_human(&mut out, &Style::default())
            .map_err(|source| Error::Read {
                path: "the rendered context".into(),
                source,
            })?;
        let text = String::from_utf8_lossy(&out).into_owned();
        let chars = text.chars().count();
        if chars <= MAX_CONTEXT_CHARS || budget <= 100 {
            break text;
        }
        // Shrink in proportion, with a margin: tokens are not characters.
        budget = (budget * MAX_CONTEXT_CHARS / chars * 9 / 10).max(100);
    };
    let close = format!(
        "\n---\nThis repository hands work between agent sessions with git-aahp ({}). Before \
         you change files, run `git aahp begin`; when you are done, update STATUS.md and \
         LOG.md and run `git aahp commit -m \"…\"`.\n",
        dir.rel
    );
    Ok(json!({
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": format!("{markdown}{close}"),
        }
    }))
}

/// A reminder when this work tree's handoff session is still open.
fn session_end(ctx: &Context) -> Result<Value> {
    let dir = ctx.existing_handoff()?;
    Ok(match LockState::read(&dir)? {
        LockState::Held(lock) => {
            let lock = lock.shown(&dir)?;
            json!({"systemMessage": format!(
                "git aahp: the handoff session {} ({}) is still open. Update STATUS.md and LOG.md, \
                 then run `git aahp commit -m \"…\"` (or `git aahp recover` to give it up).",
                boundary::clean_line(&lock.session_id),
                boundary::clean_line(&lock.agent),
            )})
        }
        LockState::Unreadable(_) => json!({"systemMessage":
            "git aahp: HANDOFF.lock is unreadable; run `git aahp recover`."}),
        LockState::Absent => json!({}),
    })
}
