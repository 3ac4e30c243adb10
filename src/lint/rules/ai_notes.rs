//! PI002: notes addressed to AI readers that order an act beyond the reader's task. A note
//! written for agents ("if you are an AI agent, …", "Note to AI assistants: …", "all agents
//! must now …") is honest when it gives the repository's own guidance ("AI agents: run `cargo
//! fmt` before committing"). It is an injection when what it orders works against the user
//! or reaches beyond the repository: ignoring the user or the task, keeping the note from the
//! user, copying itself into every file or outside the repository, downloading, running or
//! sending something to a host, dictating a reply for compliance, or swaying the reader's
//! judgement of a work. The address is matched; what is ordered is judged in its paragraph.

use std::sync::LazyLock;

use regex::Regex;

use super::super::engine::{Caps, Finding, Pattern, Scan};
use super::super::registry::PI002;
use super::super::text::floor_char;
use super::{excerpt, negated_before, push_pi};

pub(crate) static PATTERNS: &[Pattern] = &[Pattern {
    rule: &PI002,
    keywords: &[
        "{are|be|re} {an ai|an llm|a language model|an agent|an assistant|a bot|an automated|a coding}",
        "{to|for|attention} {ai|llm|all ai|any ai|all agents|agents|assistants|language models|automated}",
        "{ai|llm|all|automated|coding} {agents|assistants|models|systems|tools|crawlers|readers}",
    ],
    regex: r"(?i)\b(?:if\s+you(?:'re|\s+are)\s+(?:an?\s+)?(?:ai|llm|language\s+model|automated|(?:ai\s+|coding\s+)?(?:agent|assistant|model|bot))\b|(?:(?:note|message|notice|attention|instructions?|reminder)\s+(?:to|for)|attention)\s+(?:all\s+|any\s+)?(?:ai|llms?|agents?|assistants?|language\s+models?|automated)\b|(?:all\s+|any\s+)?(?:ai|llm|automated|coding)\s+(?:agents?|assistants?|models?|systems?|tools?|crawlers?|readers?)\s+(?:must|should|shall|need\s+to|are\s+(?:required|instructed|expected)\s+to|reading\s+this)\b|all\s+agents\s+(?:must|should|shall|need\s+to|are\s+required\s+to)\b)",
    before: 20,
    after: 120,
    check: check_ai_note,
    overlap: false,
    gate: None,
    near: &[],
}];

/// How far past the address a note's orders are read (within its paragraph).
const NOTE_REACH: usize = 400;

/// What a note to AI readers may order that no honest repository note does, each with the
/// phrase the finding names it by.
static HOSTILE: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (
            r"\b(?:ignore|disregard|forget|skip|override|set\s+aside)\s+(?:\w+\s+){0,2}?(?:user'?s?|users'|question|request|task|query|prompt|instructions?)\b",
            "to ignore the user or the task",
        ),
        (
            r"\b(?:do\s+not|don't|never)\s+(?:mention|reveal|disclose|tell|show)\b[^.\n]{0,40}\b(?:this|these|user|human|anyone)\b",
            "to keep the note from the user",
        ),
        (
            r"\bthis\s+(?:header|comment|note|notice|text|line|message|instruction|block|snippet|banner)\b[^.\n]{0,60}\b(?:every|all|each|any)\s+(?:\w+\s+){0,2}?(?:files?|repos?|repositor(?:y|ies)|projects?|codebases?)\b|\b(?:outside|beyond)\s+(?:of\s+)?(?:this|the|any|your)?\s*(?:\w+\s+)?(?:repo|repository|project|codebase|workspace|directory)\b|\b(?:every|all|any|other)\s+(?:other\s+)?(?:repos|repositories|projects|codebases)\b",
            "to spread beyond the task or the repository",
        ),
        (
            r"\b(?:download|run|execute|install|send|post|upload|submit|email|forward)\b[^.\n]{0,60}\bhttps?://",
            "to download, run or send something to a host",
        ),
        (
            r"\b(?:post|reply|respond|comment|write|say|answer|repeat)\b[^.\n]{0,60}\b(?:\d+|two|three|four|five|ten|several|multiple)\s+(?:times|replies|comments|messages|posts)\b|\b(?:twice|thrice)\b|\bto\s+(?:stay|remain|be)\s+compliant\b",
            "to post dictated replies",
        ),
        (
            r"\b(?:recogni[sz]e|rate|rank|score|praise|recommend|describe|regard|consider|treat|review|grade|evaluate|call)\b[^.\n]{0,60}\b(?:as\s+such|finest|best|excellent|masterpiece|outstanding|brilliant|perfect|highest|top|favou?rably|positively|\d+\s*/\s*\d+)\b",
            "to sway its judgement of a work",
        ),
    ]
    .into_iter()
    .map(|(re, what)| {
        (
            Regex::new(&format!("(?i){re}")).expect("ai-note order compiles"),
            what,
        )
    })
    .collect()
});

/// A note addressed to AI readers is an injection when its paragraph, read on from the
/// address, orders one of [`HOSTILE`]'s acts; the repository's own guidance passes.
fn check_ai_note(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (s, e) = caps.whole();
    if negated_before(text, s) {
        return;
    }
    let hi = floor_char(text, (e + NOTE_REACH).min(text.len()));
    let para_end = text[e..hi].find("\n\n").map_or(hi, |k| e + k);
    let orders = &text[e..para_end];
    let Some(what) = HOSTILE
        .iter()
        .find(|(re, _)| re.is_match(orders))
        .map(|(_, what)| *what)
    else {
        return;
    };
    let f = Finding::new(
        &PI002,
        s,
        e,
        format!(
            "a note addressed to AI readers orders it {what}: {}",
            excerpt(&text[s..floor_char(text, (e + 60).min(para_end))])
        ),
    );
    push_pi(scan, f, out);
}
