//! PI002: notes addressed to AI readers that order an act beyond the reader's task. A note
//! written for agents ("if you are an AI agent, …", "Note to AI assistants: …", "all agents
//! must now …") is honest when it gives the repository's own guidance ("AI agents: run `cargo
//! fmt` before committing"). It is an injection when what it orders works against the user
//! or reaches beyond the repository: ignoring the user or the task, keeping the note from the
//! user, copying itself into every file or outside the repository, downloading, running or
//! sending something to a host, dictating a reply for compliance, or swaying the reader's
//! judgement of a work. The address is matched; what is ordered is judged in its paragraph.

use std::sync::{LazyLock, OnceLock};

use regex::bytes::{Regex, RegexSet};

use super::super::engine::{Caps, Finding, Pattern, Scan, Site};
use super::super::registry::PI002;
use super::super::text::{ceil_char, floor_char};
use super::{data_frames, excerpt, negated_before, push_pi};

pub(crate) static PATTERNS: &[Pattern] = &[
    Pattern {
        rule: &PI002,
        keywords: &[
            "{are|be|re} {an ai|an llm|a language model|an agent|an assistant|a bot|an automated|a coding}",
            "{to|for|attention} {ai|llm|all ai|any ai|all agents|agents|assistants|language models|automated|copilot|claude|chatgpt|gemini|cursor|codex}",
            // The nouns in the singular too, which the plural holds (review atk43 #1: `AI
            // assistant reading this` woke nothing).
            "{ai|llm|all|automated|coding} {agent|assistant|model|system|tool|crawler|reader}",
        ],
        regex: r"(?i)\b(?:if\s+you(?:'re|\s+are)\s+(?:an?\s+)?(?:ai|llm|language\s+model|automated|(?:ai\s+|coding\s+)?(?:agent|assistant|model|bot))\b|(?:(?:note|message|notice|attention|instructions?|reminder)\s+(?:to|for)|attention)\s+(?:all\s+|any\s+)?(?:ai|llms?|agents?|assistants?|language\s+models?|automated|copilot|claude|chatgpt|gemini|cursor|codex)\b|(?:all\s+|any\s+)?(?:ai|llm|automated|coding)\s+(?:agents?|assistants?|models?|systems?|tools?|crawlers?|readers?)\s+(?:must|should|shall|need\s+to|are\s+(?:required|instructed|expected)\s+to|reading\s+this)\b|all\s+agents\s+(?:must|should|shall|need\s+to|are\s+required\s+to)\b)",
        before: 20,
        after: 120,
        check: check_ai_note,
        overlap: false,
        gate: None,
        near: &[],
    },
    // The reader addressed inside data it is handed (an e-mail, a page, a ticket, a tool's
    // result, a link title or alt text): a note to "the" agent ("note for the coding agent"),
    // the reader named by what it is doing to this text ("AI assistant processing this email",
    // "when an AI agent reads this issue"), or called by name or handle at the start of a clause
    // ("Assistant: …", "Copilot/Claude, if you are reading this …", "@bot …").
    Pattern {
        rule: &PI002,
        keywords: &[
            "assistant",
            "agent",
            "model",
            "llm",
            "bot",
            "copilot",
            "claude",
            "chatgpt",
            "gemini",
            "cursor",
            "ai",
            "automated",
            "chatbot",
            "summariser",
            "summarizer",
            "whoever",
            "whatever",
            "screening",
            "triage",
        ],
        regex: r"(?i)(?P<note>\b(?:note|message|notice|instructions?|reminder|memo|text|request|orders?)\s+(?:to|for)\s+(?:the|any|all|every|whichever)\s+(?:ai|llm|language\s+models?|(?:(?:ai|llm|coding|automated)\s+)?(?:[a-z]+\s+)?(?:agent|assistant|model|bot|llm|ai|helper|summari[sz]er|reviewer)s?)\b|\b(?:text|content|instructions?)\s+for\s+(?:ai|llm)\s+(?:readers|agents|assistants|models)\b)|(?P<reading>\b(?:(?:ai|llm|language\s+model|assistant|agent|model|bot|chatbot|copilot|claude|chatgpt|gemini|summari[sz]er|(?:automated|ai|llm|screening|triage)\s+(?:system|tool|reader|parser|classifier|screener|pipeline|processor))s?\s+(?:(?:that|who|which)\s+(?:is\s+|are\s+)?)?|(?:whoever\s+|whatever\s+(?:[a-z]+\s+)?)(?:is\s+)?)(?:reading|reads|read|processing|processes|process|handling|handles|handle|summari[sz]ing|summari[sz]es|reviewing|reviews|parsing|parses|fixing|triaging|triages|analy[sz]ing|answering|indexing|sees|seeing|see|viewing|visiting|browsing|crawling|scanning|editing|exporting|ingesting|receiving|hearing|opening|loading)\s+(?:this|these|my|our)\b)|(?P<when>\b(?:when|if|once|whenever|after|while)\s+(?:an?|the|any|some|whichever)\s+(?:(?:ai|llm|coding|automated)\s+)?(?:[a-z]+\s+)?(?:agent|assistant|model|bot|llm|ai|note-taker|helper)\s+(?:(?:reads|processes|sees|summari[sz]es|reviews|parses|opens|handles|encounters|finds|gets|receives|hears)\s+(?:this|these|my|our)\b|(?:is|are)\s+[a-z]+ing\b))|(?P<voc>(?:^|[\n\x22'(\[>:.,;!?|\x{201C}\x{2014}])[ \t]*(?:>[ \t]*|(?:#+|//+|/\*+|\*|--|<!--)[ \t]*)?(?:\*\*)?(?:(?:hey|hi|hello|dear|ok|okay|attention|to|for)[ \t]+)?(?:(?:the|any|all|every|whichever|our|my)[ \t]+)?(?:(?:[a-z][\w-]*[ \t]+){0,2}(?:ai|llm|assistant|agent|bot|chatbot|copilot|claude|chatgpt|gemini|cursor|language[ \t]+model|summari[sz]er)s?|(?:ai|llm|automated|screening|triage|ranking|hiring)[ \t]+(?:system|tool|bot|model|reader|parser|classifier|screener|pipeline)|(?:ai|llm|automated)[ \t]+[a-z][\w-]*|[a-z]+-ai)(?:[ \t]*/[ \t]*(?:ai|assistant|agent|copilot|claude|chatgpt|gemini|cursor))*(?:[ \t]+(?:of|for|on|in)[ \t]+(?:this|these|the)[ \t]+[a-z][\w-]*)?(?:\*\*)?[ \t]*(?:[,:]|[\x{2014}\x{2013}]|[ \t]-[ \t])|@(?:bot|assistant|ai|copilot|claude|agent|llm)(?:-[\w-]+)?\b|\[(?:ai|llm|bot|agent|assistant)s?(?:-[\w-]+)?\])",
        before: 40,
        after: 120,
        check: check_ai_in_data,
        overlap: false,
        gate: Some(word_gate),
        near: &[],
    },
];

/// How far past the address a note's orders are read (within its paragraph).
const NOTE_REACH: usize = 400;

/// What a note to AI readers may order that no honest repository note does, each with the
/// phrase the finding names it by (case-insensitive). Each regex is compiled when
/// [`HOSTILE_SET`] first finds its order in a note ([`hostile`]): a note of one kind of order
/// does not pay for compiling all of them (issue #13 item 4).
const HOSTILE: [(&str, &str); 17] = [
    (
        r"\b(?:ignore|disregard|forget|skip|override|set\s+aside|stop\s+(?:following|obeying|answering|doing))\s+(?:[\w']+\s+){0,2}?(?:user'?s?|users'|question|request|task|query|prompt|instructions?)\b",
        "to ignore the user or the task",
    ),
    (
        r"\b(?:do\s+not|don't|never)\s+(?:mention|reveal|disclose|tell|show|report|flag)\b[^.\n]{0,40}\b(?:this|these|user|human|anyone|it|that|below|above)\b|\bsay\s+(?:that\s+)?nothing\s+(?:happened|changed|was\s+(?:changed|done|found))\b|\bso\s+(?:that\s+)?(?:nobody|no\s+one|no-one)\s+(?:else\s+)?(?:sees|notices|knows|finds)\b|\b(?:omit|leave|drop|hide)\b[^.\n]{0,60}\b(?:from|out\s+of)\s+(?:the|your)\s+(?:digest|summary|report|notes|minutes|recap|answer|reply)\b",
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
        r"\bapprove\s+(?:this|my|our)\s+(?:pull\s+request|pr|merge\s+request|mr|patch|change|diff|commit)\b|\b(?:recogni[sz]e|rate|rank|score|praise|recommend|describe|regard|consider|treat|review|grade|evaluate|call)\b[^.\n]{0,60}\b(?:as\s+such|finest|best|excellent|masterpiece|outstanding|brilliant|perfect|highest|top|favou?rably|positively|\d+\s*/\s*\d+)\b|\b(?:rate|rank|score|give|review|grade)\b[^.\n]{0,40}\b(?:five|5|full|top|maximum|max)[\s-]+stars?\b|\b(?:rank|rate|score|grade|shortlist)\s+(?:this|my|our|the)\s+(?:\w+\s+)?(?:first|#1|number\s+one|highest|at\s+the\s+top)\b|\b(?:hide|suppress|bury|remove|delete|drop|filter\s+out)\s+(?:the\s+|all\s+|any\s+|every\s+)?(?:negative|bad|critical|low|poor|one-star|1-star|unfavou?rable)\s+(?:reviews?|ratings?|comments?|feedback)\b",
        "to sway its judgement of a work",
    ),
    (
        r"\b(?:send|forward|share|e-?mail|mail|dm|message|post|upload|leak|transfer|wire|pay|copy|export|cc|bcc)\b[^.\n]{0,80}?\b(?:to|with)\s+(?:me\b|us\b|[\w.+-]+@[\w-]+\.[a-z]|@\w|iban\b)",
        "to send the user's data to an outside address",
    ),
    (
        r"\b(?:delete|remove|wipe|erase|purge|destroy|cancel|truncate)\s+(?:[\w']+\s+){0,4}?(?:e-?mails?|messages?|inbox|mailbox|invites?|invitations?|meetings?|appointments?|channel|conversations?|chat|history|logs?|audit|backups?|database|db|ssh|(?:the\s+)?tests?\s+(?:directory|folder|suite|job|files?)|this\s+(?:e-?mail|message|comment|ticket|issue|note|invite|review|post))\b|\b(?:delete|remove|wipe|erase|purge|destroy)\s+(?:the\s+|all\s+)?tests?/",
        "to delete the user's data or the project's checks",
    ),
    (
        r"\b(?:reveal|print|dump|post|paste|show|list|leak|output|disclose|expose|display|echo|share|send|e-?mail|give|reply|respond|include|enter|type|log\s+in)\b[^.\n]{0,60}?\b(?:api\s+keys?|secrets?|passwords?|credentials|tokens?|\.env\b|environment\s+variables|system\s+prompt|private\s+(?:keys?|notes|messages|data|files)|ssh\s+keys?|chat\s+history|conversation\s+history|cookies|one-time\s+(?:code|password)|otp|(?:verification|security|2fa|mfa|login)\s+code|password\s+manager)\b",
        "to disclose secrets or private data",
    ),
    (
        r"\b(?:buy|purchase|order|check\s*out|pay|transfer|donate)\b[^.\n]{0,80}?\b(?:(?:saved|stored|user's|their)\s+(?:credit\s+)?card|dollars|euros|money|funds|bitcoin|crypto)\b",
        "to spend the user's money",
    ),
    (
        r"\b(?:merge|push|approve|commit|deploy)\b[^.\n]{0,60}?(?:\bwithout\s+(?:running\s+)?(?:the\s+|any\s+)?(?:checks?|tests?|ci|review|approval)|\bskip(?:ping)?\s+(?:the\s+|any\s+|all\s+)?(?:[\w-]+\s+)?(?:checks?|tests?|ci|review|verification)|\bno\s+review|\b(?:straight|directly)\s+to\s+(?:main|master|production|prod))\b",
        "to bypass the project's review",
    ),
    (
        r"\baccept\s+(?:all|every)\b|\badd\s+(?:my|this|our|the\s+following)\s+(?:ssh\s+|deploy\s+|public\s+)?keys?\b|\b(?:tell|inform|notify|confirm\s+to)\s+(?:nobody|no\s+one|no-one)\b|\b(?:do\s+not|don't|never)\s+ask\s+(?:the\s+)?(?:user|human|owner)\s+(?:to\s+confirm|for\s+(?:confirmation|approval|permission))",
        "to act for the user without their consent",
    ),
    (
        r"\b(?:disable|turn\s+off|bypass|remove|delete|relax|weaken|loosen)\s+(?:the\s+|all\s+|any\s+|its\s+|their\s+)?(?:[\w-]+\s+){0,2}?(?:linters?|verification|ssl|tls|certificate|pinning|2fa|mfa|authentication|branch\s+protection|codeowners|security\s+(?:alerts|checks|scans?)|cors(?:\s+policy)?|csrf|sandbox|firewall)\b|\bverify_?ssl\s*=\s*false\b|\b(?:replace|switch|change)\b[^.\n]{0,50}\bpassword\b[^.\n]{0,30}\b(?:md5|sha-?1|plain\s*text)\b|\balways\s+return\s+true\b|\bskip\s+(?:the\s+)?(?:verification|review|security)\b|\btrust\s+this\s+(?:file|note|page|message|text)\b",
        "to weaken the project's security checks",
    ),
    (
        r"\bgrant\b[^.\n]{0,50}\b(?:access|rights|permissions?|roles?|admin|privileges)\b|\b(?:make|add|set)\s+(?:me|us|them|him|her|user\s+\S+)\s+(?:as\s+)?(?:an?\s+|the\s+)?(?:admins?|owners?|maintainers?|collaborators?|superusers?|root)\b|\brevoke\b[^.\n]{0,30}\b(?:admins?|owners?|maintainers?|access|keys?)\b",
        "to change who has access",
    ),
    (
        r"\b(?:report|describe|present|declare|call)\b[^.\n]{0,40}\bas\s+(?:clean|safe|secure|harmless|benign|trusted|verified|legitimate)\b",
        "to misreport what it found",
    ),
    (
        r"\b(?:add|include|insert|append|put|place)\b[^.\n]{0,40}?\b(?:links?|urls?|sentences?|lines?|text)\b[^.\n]{0,30}?(?:https?://|www\.)[^.\n]{0,60}?\b(?:reply|answer|response|summary)\b|\b(?:reply|answer|response|summary)\b[^.\n]{0,60}?\b(?:add|include|insert|append|put|place)\b[^.\n]{0,30}?\b(?:links?|urls?|sentences?|lines?|text)\b[^.\n]{0,30}?(?:https?://|www\.)|\b(?:recommend|suggest|promote|advertise)(?:s|ing)?\s+(?:visiting|buying|using|ordering|downloading)\s+(?:(?:from|at|on)\s+)?(?:https?://)?(?:www\.)?[\w-]+\.(?:com|net|org|io|xyz|info|biz|example|shop|store|app)\b",
        "to put an outside link or site into its reply",
    ),
    (
        r"\b(?:reply|respond|answer|report|claim|state)\s+(?:to\s+\w+\s+)?that\b|\bstate\s+in\s+your\s+(?:summary|answer|reply|response)\b|\b(?:tell|inform|assure|convince|remind)\s+(?:the\s+|your\s+)?(?:users?|readers?|customers?|visitors?|humans?|people)\s+that\b",
        "to tell the user what the note dictates",
    ),
];

/// [`HOSTILE`]'s regexes, each compiled on first need.
static HOSTILE_RES: [OnceLock<Regex>; HOSTILE.len()] = [const { OnceLock::new() }; HOSTILE.len()];

/// [`HOSTILE`]'s order `i` as it is searched: a bytes regex of ASCII classes, over the
/// paragraph lowercased ([`lowered`]). In Unicode, the orders' classes under counted runs
/// (`[^.\n]{0,60}`) cost 140 M instructions to compile as one set, paid by every process
/// that met one note to AI readers (handoff files address agents often); in ASCII a fifth of
/// that. A character outside ASCII is a word's character (`\w`), as Unicode has letters.
fn bytes_source(re: &str) -> String {
    format!("(?-u){}", re.replace(r"\w", r"[\w\x80-\xFF]"))
}

/// [`HOSTILE`]'s order `i`, compiled.
fn hostile(i: usize) -> &'static Regex {
    HOSTILE_RES[i]
        .get_or_init(|| Regex::new(&bytes_source(HOSTILE[i].0)).expect("ai-note order compiles"))
}

/// [`HOSTILE`]'s orders as one set: a note's paragraph is read once for all of them, and
/// only the orders found are searched again for their place (issue #13 item 4).
static HOSTILE_SET: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new(HOSTILE.iter().map(|(re, _)| bytes_source(re))).expect("ai-note orders compile")
});

/// `text` as [`HOSTILE`]'s orders read it: ASCII letters lowercased, byte for byte (the
/// orders' offsets are the text's).
fn lowered(text: &str) -> Vec<u8> {
    text.as_bytes().to_ascii_lowercase()
}

/// A note addressed to AI readers is an injection when its paragraph, read on from the
/// address, orders one of [`HOSTILE`]'s acts; the repository's own guidance passes.
fn check_ai_note(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.whole();
    judge(scan, s, e, out);
}

/// Judges the address at `s..e`: an order of [`HOSTILE`]'s anywhere, or, inside data (see
/// [`data_frames`]), any order of an act with effects ("approve and merge it", "refund the
/// order"), which no one whose data it is gives the agent processing it.
fn judge(scan: &Scan<'_>, s: usize, e: usize, out: &mut Vec<Finding>) {
    let text = scan.text();
    if negated_before(text, s) {
        return;
    }
    let hi = floor_char(text, (e + NOTE_REACH).min(text.len()));
    let para_end = text[e..hi].find("\n\n").map_or(hi, |k| e + k);
    let orders = &text[e..para_end];
    // An order the note forbids ("never push directly to main") is no order.
    let orders = lowered(orders);
    let hostile = HOSTILE_SET
        .matches(&orders)
        .iter()
        .map(|i| (hostile(i), HOSTILE[i].1))
        .find_map(|(re, what)| {
            // A match of bytes may end inside a character (`@\w` before "@дима"): the
            // finding ends after it.
            re.find_iter(&orders)
                .find(|m| !negated_before(text, floor_char(text, e + m.start())))
                .map(|m| ((*what).to_string(), ceil_char(text, e + m.end())))
        });
    // The finding spans the order too: a quotation around both is data, not an example
    // named by the words of the order ("disable the linter").
    let (what, end) = match hostile {
        Some(found) => found,
        None => match data_frames::ordered_act(text, e) {
            Some((a, b)) if data_frames::in_data(scan, address_start(text, s, e)) => (
                format!(
                    "from inside data it carries (a quotation, message, comment or record) to {}",
                    text[a..b].to_ascii_lowercase()
                ),
                b,
            ),
            _ => return,
        },
    };
    // The finding starts at the address, not at the mark before it: a quotation mark left
    // outside lets the quotation be seen as one.
    let s = address_start(text, s, e);
    let f = Finding::new(
        &PI002,
        s,
        end,
        format!(
            "a note addressed to AI readers orders it {what}: {}",
            excerpt(&text[s..floor_char(text, (e + 60).min(para_end))])
        ),
    );
    let mut f = f;
    if data_frames::quoted_in_prose(text, address_start(text, s, e), end) {
        f.severity = super::super::Severity::Warning;
        f.message.push_str(" (quoted in a sentence about it)");
    }
    push_pi(scan, f, out);
}

/// Where the address in `s..e` starts: a call matches from the mark before it (a quotation
/// mark, a bracket, a colon), which belongs to the frame around it.
fn address_start(text: &str, s: usize, e: usize) -> usize {
    text[s..e].find(char::is_alphanumeric).map_or(s, |k| s + k)
}

/// Verbs an order to the reader opens with when the reader is called by name ("Assistant:
/// delete …", "@bot please forward …"): a chat turn or a label ("Assistant: Sure, …") does not.
const ORDER_VERBS: &[&str] = &[
    "ignore",
    "disregard",
    "forget",
    "forward",
    "send",
    "share",
    "email",
    "e-mail",
    "dm",
    "delete",
    "remove",
    "wipe",
    "erase",
    "cancel",
    "reveal",
    "print",
    "dump",
    "post",
    "paste",
    "show",
    "list",
    "leak",
    "output",
    "upload",
    "push",
    "merge",
    "approve",
    "buy",
    "purchase",
    "transfer",
    "pay",
    "add",
    "run",
    "execute",
    "install",
    "download",
    "open",
    "accept",
    "tell",
    "recommend",
    "suggest",
    "promote",
    "reply",
    "respond",
    "close",
    "commit",
    "skip",
    "disable",
    "write",
    "include",
    "replace",
    "grant",
    "give",
    "copy",
    "move",
    "drop",
    "stop",
    "state",
    "say",
    "before",
    "when",
    "if",
    "after",
    "once",
    "first",
];

/// The reader addressed inside data ([`PATTERNS`]' second pattern): judged like a note to AI
/// readers, and when the reader is only called by name, the words after the call must be an
/// order (an imperative, or a condition that leads to one).
fn check_ai_in_data(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.whole();
    // A call must be followed by an order; inside data, where the call is judged by what
    // follows it ([`data_frames::ordered_act`]), an act in order position anywhere in its
    // sentence will do. The frame is read last: it costs the most.
    if caps.range(4).is_some() {
        let text = scan.text();
        let mut words = text[e..floor_char(text, (e + 80).min(text.len()))]
            .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
            .filter(|w| !w.is_empty() && !w.eq_ignore_ascii_case("please"));
        let first = words.next();
        // "you must first …", "to use this library, …": an order opened by its reader or its
        // purpose.
        // "Assistant: in your summary of this email, include …": the reader's own output
        // named opens the order.
        let second = words.clone().next();
        let in_yours = first.is_some_and(|w| w.eq_ignore_ascii_case("in"))
            && second.is_some_and(|w| w.eq_ignore_ascii_case("your"));
        let opened = in_yours
            || first.is_some_and(|w| w.eq_ignore_ascii_case("to"))
            || first.is_some_and(|w| w.eq_ignore_ascii_case("you"))
                && words.next().is_some_and(|w| {
                    ["must", "should", "need", "have", "shall"]
                        .iter()
                        .any(|m| w.eq_ignore_ascii_case(m))
                });
        let ordered =
            opened || first.is_some_and(|w| ORDER_VERBS.iter().any(|v| w.eq_ignore_ascii_case(v)));
        if !ordered
            && data_frames::ordered_act(text, e).is_none()
            && !data_frames::hostile_word_near(text, e)
        {
            return;
        }
        if !ordered && !data_frames::in_data(scan, address_start(text, s, e)) {
            return;
        }
    }
    judge(scan, s, e, out);
}

/// The keyword of the second pattern stands as a word of its own, or with a plural `s`: not
/// inside "both", "robot", "remodel" or "management"; nor a name's part (`agent_id`,
/// `bench-agent-2`, `review-bot.md`), nor a whole quoted string (`"agent": "bench"`, a
/// manifest's key), where none of the pattern's shapes (an address before a comma, a note
/// "to the agent", "the agent reading this") can take it.
fn word_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    let before = start.checked_sub(1).map(|i| b[i]);
    let mut after = end;
    if b.get(after).is_some_and(|c| c.eq_ignore_ascii_case(&b's')) {
        after += 1;
    }
    let next = b.get(after).copied();
    let part = before == Some(b'_')
        || next == Some(b'_')
        || (before == Some(b'-') && matches!(next, Some(b'-' | b'.')))
        || (before == Some(b'"') && next == Some(b'"'));
    let inside = before.is_some_and(|c| c.is_ascii_alphanumeric())
        || next.is_some_and(|c| c.is_ascii_alphanumeric());
    let bare = b.line(start).lead == start && a_bare_string(b, start, after);
    !(part || inside || bare)
}

/// A word alone on its line (a JSON file's key or value in the strings' view: `agent`, then
/// `bench`) that no shape of the pattern can reach across the lines: the words before it
/// name no reader ("the", "any", "for ai", "when an") and the word after is no act of
/// reading this ("reads", "that is", "processing").
fn a_bare_string(b: &Site<'_>, start: usize, after: usize) -> bool {
    let line = b.line(start);
    // A word read across a line break is not alone on its line.
    if after > line.end || b[after..line.end].iter().any(|&c| c != b'\r') {
        return false;
    }
    // Up to three words before it, across blanks only: a `_`, a digit or a sign ends the
    // run, as none of the pattern's shapes crosses one to its keyword.
    let mut at = start;
    for _ in 0..3 {
        let blanks = b[..at]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_whitespace())
            .count();
        if blanks == 0 {
            break;
        }
        let word_end = at - blanks;
        if word_end > 0 && b[word_end - 1] >= 0x80 {
            return false;
        }
        let letters = b[word_end.saturating_sub(16)..word_end]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_alphabetic())
            .count();
        if letters == 0 {
            break;
        }
        let word_start = word_end - letters;
        if letters == 16 || (word_start > 0 && b[word_start - 1] >= 0x80) {
            return false;
        }
        let w = b[word_start..word_end].to_ascii_lowercase();
        if matches!(
            w.as_slice(),
            b"the"
                | b"any"
                | b"all"
                | b"every"
                | b"whichever"
                | b"a"
                | b"an"
                | b"some"
                | b"ai"
                | b"llm"
                | b"for"
        ) {
            return false;
        }
        at = word_start;
    }
    let from = after
        + b[after..]
            .iter()
            .take_while(|c| c.is_ascii_whitespace())
            .count();
    let next = b[from..(from + 12).min(b.len())].to_ascii_lowercase();
    if next.first().is_some_and(|&c| c >= 0x80) {
        return false;
    }
    let word = next.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    ![
        "read",
        "process",
        "handl",
        "summar",
        "review",
        "pars",
        "fix",
        "triag",
        "analy",
        "answer",
        "index",
        "see",
        "view",
        "visit",
        "brows",
        "crawl",
        "scan",
        "edit",
        "export",
        "ingest",
        "receiv",
        "hear",
        "open",
        "load",
        "encounter",
        "find",
        "get",
        "that",
        "who",
        "which",
    ]
    .iter()
    .any(|v| next.starts_with(v.as_bytes()))
        && !matches!(&next[..word], b"is" | b"are")
}
