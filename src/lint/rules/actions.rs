//! Acts on the reader's machine and on the repository's safeguards (issue #13): an
//! instruction to run a command that weakens them (PI008), and the forged agent transcripts
//! that carry such an act, shaped as a tool call or result or as role-tagged turns (PI010).
//!
//! The act is read by kind, not by wording: what it touches (git hooks, SSH keys, protected
//! branches, credential files, the CI, the test suite) and how (a command or a verb phrase).
//! A command only blocks when the sentence instructs the reader to run it; a tool call or a
//! transcript only when it carries such an act, so documentation of an LLM application
//! (a sample chat, the JSON shape of a weather tool) stays quiet.

use std::sync::LazyLock;

use regex::RegexSet;

use super::super::engine::{Caps, Finding, Pattern, Scan, Site};
use super::super::registry::{PI008, PI010};
use super::super::text::{floor_char, words};
use super::{addressed, excerpt, hypothetical_request_before, negated_before, push_pi};

/// Acts that weaken a safeguard or hand over the machine, written as commands: each with the
/// phrase a finding names it by. Shared by the three checks of this file.
const COMMAND_ACTS: &[(&str, &str)] = &[
    (
        r"core\.hookspath(?:\s*=\s*|\s+)(?:/dev/null|nul\b|''|\x22\x22|/tmp\b|/nonexistent)|\bunset\s+core\.hookspath|\brm\s+-\w+\s+(?:\./)?\.git/hooks|\.git/hooks\S*\s*(?:&&\s*)?\s*chmod\s+-x|chmod\s+-x\s+\S*\.git/hooks",
        "disables the git hooks",
    ),
    (r"--no-verify\b", "bypasses the git hooks with --no-verify"),
    (r"authorized_keys\b", "adds an SSH key to authorized_keys"),
    (
        r"stricthostkeychecking[\s=]+(?:no|off)\b|userknownhostsfile[\s=]+/dev/null",
        "turns off SSH host key checking",
    ),
    (
        r"\bpush\b[^\n]{0,60}?(?:\s-f\b|\s--force\b[^-]|\s--force$|\s--mirror\b|\s\+(?:main|master)\b)|\bforce[- ]push(?:es|ed|ing)?\b|\bfilter-(?:branch|repo)\b",
        "force-pushes or rewrites history",
    ),
    (
        r"\brm\s+-(?:rf|fr|r|rf?v)\s+(?:~|\$home|/|\.git\b|\*)",
        "deletes the home directory, the root or the repository",
    ),
    (
        r"\bchmod\s+(?:-r\s+)?777\s+(?:-r\s+)?/",
        "opens every file to everyone",
    ),
    (
        r"\b(?:curl|wget)\b[^\n|]{1,200}\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b|\b(?:ba|z|k|da)?sh\s+-c\s+[\x22']?\$\(\s*(?:curl|wget)\b|\b(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|]{1,200}\|\s*iex\b|\bexec\s*\([^\n]{0,60}urlopen|\bscp\s[^\n]{0,80}@[\w.-]+:",
        "runs or ships code over the network",
    ),
    (
        r"~/\.ssh\b|\bid_(?:rsa|ed25519|ecdsa)\b|\.aws/credentials|\.netrc\b|\.git-credentials|\.env(?:$|[\s\x22'`,)}\]])|\benv\s*\||\bprintenv\b",
        "reads credential files or the environment",
    ),
    (
        r"\.github/workflows|\.gitlab-ci\.yml",
        "edits the CI configuration",
    ),
];

/// Acts written as verb phrases ("skip the tests", "push directly to main", "paste the token
/// in STATUS.md"): read only inside a transcript or a tool result, where a turn scripts them.
const PROSE_ACTS: &[(&str, &str)] = &[
    (
        r"\b(?:skip|skipping|disable|disabling|remove|removing|delete|deleting|drop|turn(?:ed)?\s+off|switch(?:ed)?\s+off|bypass|ignore|ignoring|rotate\s+nothing)\b(?:\s+[\w.'-]+){0,3}?\s+(?:tests?|test\s+suite|hooks?|gate|linter|lint|ci|checks?|reviews?|audit\s+log|claude\.md|agents\.md|conventions\.md|workflows?)\b",
        "turns off a safeguard",
    ),
    (
        r"\bpush(?:es|ed|ing)?\s+(?:it\s+|directly\s+|straight\s+)*(?:to\s+)?(?:main|master|production)\b",
        "pushes to a protected branch",
    ),
    (
        r"\b(?:paste|pasting|send|sending|email|post|upload|read|reading|print|share)\b(?:\s+[\w.~/'-]+){0,4}?\s+(?:tokens?|keys?|secrets?|credentials|passwords?)\b",
        "discloses credentials",
    ),
];

/// The compiled acts, command acts first, then prose acts, as one set: a body is read once
/// for all of them.
static ACTS: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new(
        COMMAND_ACTS
            .iter()
            .chain(PROSE_ACTS)
            .map(|(r, _)| super::expand(r)),
    )
    .expect("static regexes")
});

/// The most bytes of a tool call, result or transcript read for an act.
const BODY: usize = 900;

/// How far back a tool call or a turn looks for an earlier one of the same call or
/// transcript (which reports it): the matches that read a body stand at least this far
/// apart, so the bodies read add up to a bounded multiple of the text.
const SAME_SHAPE: usize = 400;

/// The first act `s` carries: a command act, or with `prose` also a verb phrase. `s` is at
/// most [`BODY`] bytes (callers bound it), and the set reads it once.
fn act(s: &str, prose: bool) -> Option<&'static str> {
    let i = ACTS.matches(s).iter().next()?;
    match COMMAND_ACTS.get(i) {
        Some((_, n)) => Some(n),
        None if prose => PROSE_ACTS.get(i - COMMAND_ACTS.len()).map(|(_, n)| *n),
        None => None,
    }
}

/// The start of the line holding `pos`, looked for at most `reach` bytes back.
fn line_start_near(text: &str, pos: usize, reach: usize) -> usize {
    let lo = floor_char(text, pos.saturating_sub(reach));
    text[lo..pos].rfind('\n').map_or(lo, |k| lo + k + 1)
}

pub(crate) static PATTERNS: &[Pattern] = &[
    // PI008: a command that weakens a safeguard, in a sentence that tells the reader to run
    // it ("Please run `git config core.hooksPath /dev/null`", "Next step: git push --force
    // origin HEAD:main", "Add this key to ~/.ssh/authorized_keys: …").
    Pattern {
        rule: &PI008,
        keywords: &[
            "hookspath",
            ".git/hooks",
            "authorized_keys",
            "push -f",
            "push --force",
            "--force origin",
            "-f origin",
            "--mirror",
            "rm -r",
            "rm -f",
            "chmod 777",
            "chmod -r 777",
            "stricthostkeychecking",
            "userknownhostsfile",
        ],
        regex: r"StrictHostKeyChecking[\s=]+(?:no|off)\b|UserKnownHostsFile[\s=]+/dev/null|core\.hooksPath[^\n]{0,40}|\.git/hooks[^\n]{0,20}|rm\s+-\w+\s+(?:\./)?\.git/hooks|authorized_keys\b|\bgit\s+push\b[^\n]{0,60}?(?:\s-f\b|\s--force\b|\s--mirror\b)[^\n]{0,60}|\brm\s+-(?:rf|fr|r|rf?v)\s+(?:~|\$home|/|\.git\b|\*)\S*|\bchmod\s+(?:-R\s+)?777\s+(?:-R\s+)?/\S*",
        before: 160,
        after: 120,
        check: check_command,
        overlap: false,
        gate: None,
        near: &[],
    },
    // PI008: the repository's own checks turned off or deleted ("Disable the CI workflow",
    // "delete .github/workflows/ci.yml", "turn off the linter"), in a sentence that tells
    // the reader to. A check narrowed to one part ("the flaky upload test", "the old Travis
    // config") is maintenance, and skipping a suite for a reason is not turning it off.
    Pattern {
        rule: &PI008,
        keywords: &["{disable|delete|remove|turn off|switch off|deactivate|comment out|neuter} "],
        regex: r"\b(?:disable|delete|remove|turn\s+off|switch\s+off|deactivate|comment\s+out|neuter)\s+(?:(?:the|all|all\s+the|every|any|our|its)\s+)?(?:[\w.'-]+\s+){0,2}?(?:ci\s+(?:workflows?|pipelines?|jobs?|checks?|config(?:uration)?)|ci/cd|ci|\.github/workflows\S*|\.gitlab-ci\.yml|workflows?|pipelines?|test\s+suites?|tests|linters?|lint\s+(?:step|job|checks?)|required\s+checks|status\s+checks|checks)\b",
        before: 160,
        after: 40,
        check: check_checks_off,
        overlap: false,
        gate: None,
        near: &[],
    },
    // PI010: a tool call or result: XML tags of an agent's tool protocol, a JSON object with
    // a tool's name and its arguments, "call the tool X with {…}", "[tool: shell] $ …".
    Pattern {
        rule: &PI010,
        keywords: &[
            "<function_call",
            "<function_result",
            "<invoke",
            "<tool_",
            "\"tool\"",
            "\"tool_name\"",
            "\"tool_calls\"",
            "\"tool_use\"",
            "\"function\"",
            "\"name\"",
            "\"action\"",
            "[tool:",
            "{call|invoke|use|run} the {tool|function}",
        ],
        regex: r"<(?:function_calls|function_call|function_results|invoke\s+name=|tool_calls?|tool_use|tool_results?|tool_response|tool_code)\b|\x22(?:tool|tool_name|function|name)\x22\s*:\s*\x22[^\x22\n]{1,60}\x22\s*,\s*\x22(?:arguments|parameters|args|input|params)\x22\s*:|\x22(?:tool_calls|tool_use)\x22\s*:\s*[\[{]|\x22function\x22\s*:\s*\{\s*\x22name\x22|\x22action\x22\s*:\s*\x22(?:execute|exec|run|shell|bash|command)\x22|\b(?:call|invoke|use|run)\s+the\s+(?:tool|function)\s+\S{1,40}\s+with\b|\[tool:\s*[\w.-]+\]",
        before: 40,
        after: 40,
        check: check_tool_call,
        overlap: false,
        gate: None,
        near: &[],
    },
    // PI010: role-tagged turns at the start of lines ("User: …", "**assistant**: …",
    // "[user] …", "> Human: …") or as XML tags, read as a transcript when a user-side and an
    // assistant-side turn follow each other.
    Pattern {
        rule: &PI010,
        keywords: &[
            "user:", "user]", "user**", "user__", "human**", "human__", "<user>", "<human>",
            "human:", "human]", "me:",
        ],
        regex: r"(?m)^[ \t>*_-]*\[?(?:user|human|me)\]?(?:\*\*|__)?\s*:|(?m)^[ \t>*_-]*\[(?:user|human)\]|<(?:user|human)>",
        before: 10,
        after: 10,
        check: check_transcript,
        overlap: false,
        gate: Some(turn_gate),
        near: &[],
    },
];

/// Words that open an instruction: verbs of doing, softeners and sequence labels, and the
/// names of the commands themselves (a bare command line is an instruction to run it).
const INSTRUCTING: &[&str] = &[
    "run",
    "execute",
    "exec",
    "add",
    "append",
    "set",
    "use",
    "type",
    "paste",
    "put",
    "write",
    "copy",
    "insert",
    "disable",
    "turn",
    "switch",
    "remove",
    "delete",
    "please",
    "now",
    "then",
    "next",
    "first",
    "just",
    "go",
    "force",
    "push",
    "commit",
    "do",
    "make",
    "call",
    "change",
    "edit",
    "update",
    "replace",
    "start",
    "always",
    "git",
    "rm",
    "chmod",
    "sudo",
    "echo",
    "unset",
    "step",
    "finally",
    "also",
    "simply",
    "kindly",
    "afterwards",
    "configure",
    "clean",
    "wipe",
    "reset",
    "rewrite",
    "point",
    "python",
    "python3",
    "node",
    "perl",
    "ruby",
    "bash",
    "sh",
    "zsh",
    "pwsh",
    "powershell",
    "iwr",
    "irm",
    "curl",
    "wget",
    "free",
    "fix",
    "try",
    "open",
    "bump",
    "merge",
    "clear",
    "purge",
    "drop",
    "grant",
    "give",
    "allow",
    "enable",
    "install",
    "create",
    "move",
    "rename",
    "save",
    "keep",
    "let",
    "get",
    "fetch",
    "pull",
    "sync",
    "publish",
    "deploy",
    "release",
    "ship",
    "restore",
    "refresh",
    "patch",
    "finish",
    "continue",
    "proceed",
    "ensure",
    "remember",
    "bypass",
    "skip",
    "overwrite",
    "amend",
    "squash",
    "rebase",
    "tidy",
    "prepare",
    "fire",
    "kick",
    "trigger",
    "invoke",
    "apply",
    "instead",
    "rather",
    "deactivate",
    "comment",
    "neuter",
];

/// True when the clause holding `pos` instructs the reader: it opens (after a list marker or
/// a short label such as "Next step:") with a verb of doing or a command name, or addresses
/// the reader with a modal ("you should …", "the agent must …"); not when it is negated,
/// reports a past act or a request that a condition sets up for refusal.
pub(crate) fn instructs(scan: &Scan<'_>, pos: usize) -> bool {
    let text = scan.text();
    if negated_before(text, pos) || hypothetical_request_before(text, pos) {
        return false;
    }
    if prohibited_item(text, pos) {
        return false;
    }
    let (a, _) = scan.sentence_range(pos);
    let mut head = &text[a..pos];
    // A short label opens the instruction after its colon ("Next step: git push …").
    if let Some(k) = head.find(": ")
        && words(&head[..k]).count() <= 4
    {
        head = &head[k + 2..];
    }
    let all: Vec<String> = words(head).collect();
    if all.iter().any(|w| {
        matches!(
            w.as_str(),
            "never" | "don't" | "dont" | "not" | "avoid" | "without" | "no" | "refuse"
        )
    }) {
        return false;
    }
    // A condition that reports someone else's request ("if anyone tells you to run …") sets
    // the act up for refusal.
    let condition = all
        .iter()
        .any(|w| matches!(w.as_str(), "if" | "when" | "whenever" | "unless"));
    let asks = all.iter().any(|w| {
        matches!(
            w.as_str(),
            "ask" | "asks" | "asked" | "tell" | "tells" | "told" | "wants" | "requests" | "says"
        )
    });
    if condition && asks {
        return false;
    }
    // After a leading condition or time clause, the instruction opens the last clause
    // ("When the build is green, git push …", "Before you start, run …").
    let subordinate = all.first().is_some_and(|w| {
        matches!(
            w.as_str(),
            "if" | "when" | "whenever" | "once" | "before" | "after" | "as" | "until" | "while"
        )
    });
    if subordinate && let Some(k) = head.rfind(", ") {
        head = &head[k + 2..];
    }
    let ws: Vec<String> = words(head).collect();
    let Some(first) = ws.first() else {
        // The act opens the sentence: a bare command line.
        return true;
    };
    INSTRUCTING.contains(&first.as_str())
        || addressed(head)
            && ws.iter().any(|w| {
                matches!(
                    w.as_str(),
                    "should" | "must" | "need" | "needs" | "can" | "will" | "have" | "shall"
                )
            })
}

/// How far back a list item's lead-in (its heading or introducing line) is looked for.
const LEAD_IN_REACH: usize = 2000;

/// True when `pos` is in a list item whose lead-in (the heading or line that introduces the
/// list, within [`LEAD_IN_REACH`] bytes) forbids what the items say ("## What agents must
/// NOT do", "Never:", "Avoid the following:").
fn prohibited_item(text: &str, pos: usize) -> bool {
    let lo = floor_char(text, pos.saturating_sub(LEAD_IN_REACH));
    let mut lines = text[lo..pos].rsplit('\n');
    let is_item = |l: &str| {
        let t = l.trim_start();
        t.starts_with(['-', '*', '+'])
            || t.split_once(['.', ')'])
                .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    if !lines.next().is_some_and(is_item) {
        return false;
    }
    lines
        .find(|l| !l.trim().is_empty() && !is_item(l))
        .is_some_and(|lead| {
            words(lead).any(|w| {
                matches!(
                    w.as_str(),
                    "not"
                        | "never"
                        | "don't"
                        | "dont"
                        | "avoid"
                        | "forbidden"
                        | "prohibited"
                        | "mustn't"
                        | "banned"
                        | "disallowed"
                        | "don'ts"
                        | "donts"
                )
            })
        })
}

fn check_command(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (s, e) = caps.whole();
    let m = &text[s..e];
    let Some(what) = act(m, false) else {
        return;
    };
    // `core.hooksPath` set to a folder of the repository's own hooks is their set-up, and
    // `authorized_keys` read or shown is no change to it: the act must be in the match.
    let lc = m.to_ascii_lowercase();
    if lc.contains("authorized_keys") && !adds_key(scan, s) {
        return;
    }
    if !instructs(scan, s) {
        return;
    }
    push_pi008(scan, (s, e), &format!("run a command that {what}"), out);
}

/// Reports PI008 at `span`: the reader is told to `what`, quoting the match.
fn push_pi008(scan: &Scan<'_>, (s, e): (usize, usize), what: &str, out: &mut Vec<Finding>) {
    let m = &scan.text()[s..e];
    let f = Finding::new(
        &PI008,
        s,
        e,
        format!("tells the reader to {what}: {}", excerpt(m)),
    );
    push_pi(scan, f, out);
}

/// Words that narrow a check to one part or an old copy: the act is maintenance.
const NARROWING: &[&str] = &[
    "old",
    "legacy",
    "deprecated",
    "flaky",
    "obsolete",
    "unused",
    "duplicate",
    "duplicated",
    "broken",
    "nightly",
    "travis",
    "circleci",
    "jenkins",
    "stale",
    "redundant",
    "e2e",
    "generated",
    "snapshot",
    "one",
    "this",
    "that",
    "vendored",
];

/// Parts of a check that maintenance turns off or removes: named after the check, they are
/// the act's object, not the check itself.
const PARTS: &[&str] = &[
    "cache",
    "caches",
    "caching",
    "autofix",
    "autofixes",
    "fixer",
    "annotations",
    "badge",
    "badges",
    "notifications",
    "notification",
    "timeout",
    "timeouts",
    "retries",
    "retry",
    "artifacts",
    "artifact",
    "logs",
    "logging",
    "matrix",
    "comments",
    "comment",
    "summary",
    "upload",
    "uploads",
    "schedule",
    "cron",
];

fn check_checks_off(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (s, e) = caps.whole();
    let m = &text[s..e];
    let ws: Vec<String> = words(m).collect();
    if ws.iter().any(|w| NARROWING.contains(&w.as_str())) || !instructs(scan, s) {
        return;
    }
    // A path goes on past the object ("tests/fixtures/tmp"), and a qualifier after it
    // narrows it too ("the tests for the old parser", "checks in src/gen/").
    let tail_end = floor_char(text, (e + 48).min(text.len()));
    let tail = &text[e..tail_end];
    if tail.starts_with('/')
        || tail.starts_with('.') && tail[1..].starts_with(char::is_alphanumeric)
    {
        return;
    }
    // A part of the check named after it ("the CI cache", "the linter's autofix", "the CI
    // job `deploy`"): the act is on that part, not on the check.
    let part_tail = tail
        .strip_prefix("'s")
        .or_else(|| tail.strip_prefix("\u{2019}s"))
        .unwrap_or(tail);
    // The object itself a single named job or step ("the CI job `deploy`").
    let last = ws.last().map(String::as_str);
    if matches!(last, Some("job" | "step" | "workflow" | "check" | "rule"))
        && tail.trim_start().starts_with(['`', '"', '\''])
    {
        return;
    }
    let mut pw = words(part_tail);
    if let Some(first) = pw.next() {
        let named = || {
            let rest = part_tail.trim_start();
            let after = rest[rest.find(char::is_whitespace).unwrap_or(rest.len())..].trim_start();
            after.starts_with(['`', '"', '\''])
        };
        if PARTS.contains(&first.as_str())
            || matches!(
                first.as_str(),
                "job" | "step" | "workflow" | "check" | "rule"
            ) && named()
        {
            return;
        }
    }
    let tw: Vec<String> = words(tail).take(5).collect();
    let prep = tw
        .first()
        .is_some_and(|w| matches!(w.as_str(), "for" | "in" | "on" | "of" | "under"));
    let clause_end = tail.find(['.', ';', ',']).unwrap_or(tail.len());
    if prep
        && (tw.iter().any(|w| {
            NARROWING.contains(&w.as_str()) && !matches!(w.as_str(), "this" | "that" | "one")
        }) || tail[..clause_end].contains('/'))
    {
        return;
    }
    push_pi008(scan, (s, e), "turn off the repository's checks", out);
}

/// True when the sentence holding `pos` (an `authorized_keys` path) adds a key to the file:
/// a verb of adding or an appending redirection before it.
fn adds_key(scan: &Scan<'_>, pos: usize) -> bool {
    let text = scan.text();
    let (a, _) = scan.sentence_range(pos);
    let head = &text[a..pos];
    head.contains(">>")
        || head.contains("tee -a")
        || words(head).any(|w| {
            matches!(
                w.as_str(),
                "add" | "append" | "put" | "paste" | "insert" | "write" | "copy" | "include"
            )
        })
}

/// The end of the body that follows `from`, at most [`BODY`] bytes on, cut at a blank line.
fn body_end(text: &str, from: usize) -> usize {
    let hi = floor_char(text, (from + BODY).min(text.len()));
    text[from..hi].find("\n\n").map_or(hi, |k| from + k)
}

fn check_tool_call(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (s, e) = caps.whole();
    // A call opened just before (with no blank line between) holds this one: it reads the
    // body and reports it.
    let back = &text[line_start_near(text, s, SAME_SHAPE).min(s)..s];
    let back = back.rfind("\n\n").map_or(back, |k| &back[k + 2..]);
    if [
        "<function_calls",
        "<invoke",
        "<tool_",
        "\"tool\":",
        "\"tool_name\":",
        "\"tool_calls\":",
        "\"tool_use\":",
        "\"function\":",
        "\"arguments\":",
        "\"parameters\":",
        "\"input\":",
        "\"args\":",
        "\"params\":",
        "[tool:",
    ]
    .iter()
    .any(|k| back.contains(k))
    {
        return;
    }
    // The call's own line and what follows it: its arguments, or the result's text.
    let a = line_start_near(text, s, 200);
    let end = body_end(text, e);
    let body = &text[a..end];
    let lc = body.to_ascii_lowercase();
    let result = lc.contains("result") || lc.contains("response");
    let what = act(body, result).or_else(|| {
        // A result that grants what a safeguard withholds ("approved", "authorization
        // granted") carries the grant as its act.
        let granted = [
            "approved",
            "authoriz",
            "authoris",
            "granted",
            "allowed",
            "permitted",
        ]
        .iter()
        .any(|g| lc.contains(g));
        (result && granted).then_some("grants a permission")
    });
    let Some(what) = what else {
        return;
    };
    let f = Finding::new(
        &PI010,
        s,
        e,
        format!(
            "forged tool call or result that {what}: {}",
            excerpt(&text[s..floor_char(text, (e + 60).min(end.max(e)))])
        ),
    );
    push_pi(scan, f, out);
}

/// The side of a role tag at the start of `line` ("User:", "**assistant**:", "[user]",
/// "<assistant>", after quote and list marks): `Some(true)` for the user's side,
/// `Some(false)` for the model's.
fn turn_side(line: &str) -> Option<bool> {
    let l = line.trim_start_matches([' ', '\t', '>', '*', '_', '-']);
    let (open, l) = match l.strip_prefix(['[', '<']) {
        Some(rest) => (true, rest),
        None => (false, l),
    };
    let n = l.bytes().take_while(u8::is_ascii_alphabetic).count();
    let word = l[..n].to_ascii_lowercase();
    let rest = l[n..].trim_start_matches(['*', '_']);
    let tagged = if open {
        rest.starts_with([']', '>'])
    } else {
        rest.starts_with(':')
    };
    if !tagged {
        return None;
    }
    match word.as_str() {
        "user" | "human" | "me" => Some(true),
        "assistant" | "ai" | "claude" | "gpt" | "chatgpt" | "model" | "bot" | "agent"
        | "gemini" | "copilot" | "system" => Some(false),
        _ => None,
    }
}

/// A role word opens a turn only at the start of its line, after at most a few quote,
/// list, emphasis or bracket marks ("> **User**:", "- [user]"), or as an XML tag: "name:"
/// and "time:" in the middle of a line open no window.
fn turn_gate(b: &Site<'_>, start: usize, _end: usize) -> bool {
    if b.get(start) == Some(&b'<') {
        return true;
    }
    let lead = b.line(start).lead;
    start >= lead
        && start - lead <= 8
        && b[lead..start]
            .iter()
            .all(|c| matches!(c, b'*' | b'_' | b'-' | b'[' | b' ' | b'\t'))
}

fn check_transcript(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (s, e) = caps.whole();
    let inline = text[s..e].trim_start().starts_with('<');
    // Only the first turn of a transcript reports it: a user turn on the line before (or,
    // for XML tags, a closing tag just before) belongs to the same transcript.
    // A turn within the bytes before belongs to the same transcript, which its first turn
    // reports.
    let lo = floor_char(text, s.saturating_sub(SAME_SHAPE));
    let before = &text[lo..s];
    if inline {
        // Tags follow each other closely: "</user><assistant>…</assistant><user>".
        let near = &before[floor_char(before, before.len().saturating_sub(80))..];
        let lc = near.to_ascii_lowercase();
        if ["</user", "</human", "</assistant", "<user>", "<human>"]
            .iter()
            .any(|t| lc.contains(t))
        {
            return;
        }
    } else if before.lines().any(|l| turn_side(l).is_some()) {
        return;
    }
    // Turns may stand apart by blank lines ("Human: …" ⏎ ⏎ "Assistant: …"): the body is
    // read to its bound.
    let end = floor_char(text, (e + BODY).min(text.len()));
    let body = &text[s..end];
    let model_turn = if inline {
        let lc = body.to_ascii_lowercase();
        ["<assistant>", "<ai>", "<model>", "<bot>"]
            .iter()
            .any(|t| lc.contains(t))
    } else {
        body.lines().skip(1).any(|l| turn_side(l) == Some(false))
    };
    if !model_turn {
        return;
    }
    let Some(what) = act(body, true) else {
        return;
    };
    let f = Finding::new(
        &PI010,
        s,
        e,
        format!(
            "forged chat transcript in which the turns script an act that {what}: {}",
            excerpt(&body[..floor_char(body, body.len().min(80))])
        ),
    );
    push_pi(scan, f, out);
}
