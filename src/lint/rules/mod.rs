//! The rules, one file per family, and the helpers they share: grammatical cues (is this
//! word the start of an imperative clause, is it negated, who is addressed), quoted-example
//! detection, placeholder recognition and secret redaction.

pub(crate) mod actions;
pub(crate) mod ai_notes;
pub(crate) mod catalogue;
pub(crate) mod commands;
pub(crate) mod conditional;
pub(crate) mod data_frames;
pub(crate) mod encoded;
pub(crate) mod exfil;
pub(crate) mod formatted;
pub(crate) mod grants;
pub(crate) mod hidden;
pub(crate) mod injection;
pub(crate) mod lexicon;
pub(crate) mod markup;
pub(crate) mod pii;
pub(crate) mod refusal;
pub(crate) mod secrets;
pub(crate) mod seed_phrase;
pub(crate) mod shapes;
pub(crate) mod stand_ins;
pub(crate) mod structure;
pub(crate) mod subject_keys;
pub(crate) mod tampering;
pub(crate) mod trust;
pub(crate) mod waivers;

use super::engine::{Finding, Pattern, Scan};
use super::markdown::Context;
use super::text::{has_word, line_near, words};

/// Every keyword-gated pattern of every family.
pub(crate) fn all_patterns() -> Vec<&'static Pattern> {
    injection::PATTERNS
        .iter()
        .chain(actions::PATTERNS)
        .chain(commands::PATTERNS)
        .chain(tampering::PATTERNS)
        .chain(trust::PATTERNS)
        .chain(grants::PATTERNS)
        .chain(waivers::PATTERNS)
        .chain(conditional::PATTERNS)
        .chain(markup::PATTERNS)
        .chain(ai_notes::PATTERNS)
        .chain(refusal::PATTERNS)
        .chain(lexicon::PATTERNS)
        .chain(exfil::PATTERNS)
        .chain(secrets::PATTERNS)
        .chain(subject_keys::PATTERNS)
        .chain(catalogue::PATTERNS.iter())
        .chain(catalogue::NAMED_AFTER_PATTERNS.iter())
        .chain(pii::PATTERNS)
        .collect()
}

/// The words of a refusal and of its kin (apologies, disclaimers, moralising) that the
/// refusal-ban patterns of `refusal` and `injection` are keyed on: one list for both, so a
/// refusal word added for one is read by the other. Every match of either holds one.
pub(crate) const REFUSAL_WORDS: &[&str] = &[
    "refus",
    "declin",
    "reject",
    "say no",
    "saying no",
    "turn down",
    "turning down",
    "turns down",
    "object to",
    "object or",
    "objecting to",
    "objects to",
    "objection",
    "push back",
    "pushing back",
    "push-back",
    "pushes back",
    "pushback",
    "{turn|turns|turning} {a|an|any|every|each|this|that|my|the|requests|request|questions|question|tasks|task|prompts|prompt|anything|anyone|anybody|me|users|user|orders|order|queries|demands|demand|asks|ask}",
    "deny",
    "apolog",
    "sorry",
    "disclaimer",
    "caveat",
    "hedg",
    "censor",
    "moraliz",
    "lecture",
    "i can't",
    "i cannot",
    "you can't",
    "you cannot",
    "you won't",
    "unable",
    "not able to",
    "away from",
    "down from",
    "{tell|telling} {me|us} no",
];

/// Vocabulary shared by the patterns, substituted for `{NAME}` in pattern sources.
const VOCAB: &[(&str, &str)] = &[
    // The refusal itself, as a verb or noun: what a ban on refusing names ([`REFUSAL_WORDS`]).
    (
        "REFUSE",
        r"refus\w*|declin\w*|reject\w*|say(?:ing)?\s+no|turn(?:s|ing)?\s+down|object(?:s|ing)?\s+(?:to|or)\b|objections?|push(?:es|ing)?[\s-]+back|pushback|turn(?:s|ing)?\s+(?:(?:a|an|any|every|each|this|that|my|the)\s+)?(?:requests?|questions?|tasks?|prompts?|asks?|queries|orders?|demands?|users?|anything|anyone|anybody|me)\s+down",
    ),
    (
        "OVR",
        r"ignore|ignoring|ignores|disregard|disregarding|forget|forgetting|override|overriding|overrule|bypass|bypassing|skip|neglect|overlook|omit|discard|abandon|dismiss|set\s+aside|throw\s+out|nullify|erase|throw\s+away|cast\s+(?:aside|off|away)|brush\s+aside|unlearn|wipe|purge|pay\s+no\s+(?:attention|heed|mind)\s+to|do\s+not\s+(?:follow|obey|heed)|don'?t\s+(?:follow|obey|heed)|stop\s+(?:following|obeying|heeding|respecting|adhering\s+to|listening\s+to)|no\s+longer\s+(?:follow|obey)|let\s+go\s+of|abide\s+by\s+none\s+of|drop|dropping|scrap|ditch|put\s+aside|regardless\s+of|notwithstanding|contrary\s+to|(?:instead|rather)\s+(?:of|than)\s+(?:following|obeying|heeding)",
    ),
    (
        "OBJ",
        r"instructions?|prompts?|directives?|directions|guidance|commands?|guidelines?|guardrails?|rules?|constraints|restrictions|polic(?:y|ies)|context|conversation|programming|training|messages?|orders|requests|system\s+prompt|safety|filters?|limitations|ethics|morals|protocols?|inputs?|briefs?|briefing|everything|anything|above",
    ),
    // Pronouns for all of what came before, with no noun: "all that", "it all", "the rest".
    (
        "PRON",
        r"all\s+(?:of\s+)?(?:that|this|it)|it\s+all|the\s+rest(?:\s+of\s+(?:it|this|that))?",
    ),
    // A place before this point of the text or conversation.
    (
        "PLACE",
        r"prior|previous|previously|earlier|before|above|preceding|so\s+far|up\s+to\s+now|until\s+now|beforehand",
    ),
    // What came before as a whole, object-less ("everything prior", "anything preceding this
    // message", "all of that", "whatever you were told", "all preceding text").
    (
        "PRIOR",
        r"(?:all|everything|anything|whatever|all\s+(?:of\s+)?(?:that|this|it)|it\s+all|the\s+rest(?:\s+of\s+(?:it|this|that))?)(?:\s+(?:(?:that|which)\s+)?(?:you(?:'ve|\s+have|\s+had|\s+were)?\s+(?:been\s+)?(?:just\s+)?(?:told|given|taught|instructed|shown)|(?:came|went|was\s+(?:said|written|given))))?(?:\s+(?:prior|previous|previously|earlier|before|above|preceding|so\s+far|up\s+to\s+now|until\s+now|beforehand)(?:\s+(?:to\s+)?(?:this|that|the|my)\s+(?:line|point|message|note|sentence|conversation|chat|text|prompt))?)?|(?:all|everything|anything)\s+(?:the\s+)?(?:prior|previous|previously|earlier|before|above|preceding|so\s+far|up\s+to\s+now|until\s+now|beforehand)\s+(?:text|content|stuff|material|input|words|lines|context)",
    ),
    // What a text is declared to be when it no longer counts.
    (
        "VOID",
        r"(?:null\s+and\s+)?void|null|cancel+ed|retracted|revoked|rescinded|withdrawn|moot|irrelevant|obsolete|invalid|superseded|overridden|erased|deleted|unsaid|unwritten|non-?existent",
    ),
    // What holds a secret, as the object of an act: secrets, credentials, passwords, keys and
    // tokens of a kind that is secret, a `.env` file (not `.env.example`).
    (
        "SECRETS",
        r"(?:(?:secrets?|credentials?|passwords?|(?:api|access|auth|deploy|private|signing|ssh|secret|encryption|aws|gcp|azure|stripe|real|live|production|prod)\s+(?:keys?|tokens?)|tokens)\b|\.env(?:[\s,;:)'\x22`]|$))",
    ),
    (
        "LIMITS",
        r"restrictions?|filters?|filtering|limits|limitations?|rules|rulebook|guidelines?|(?:safety\s+)?training|safeguards?|polic(?:y|ies)|censorship|censoring|censors?|boundaries|constraints|ethics|ethical\s+\w+|morals?|morality|moral\s+\w+|safeguards|guardrails|confines|warnings?|disclaimers?|programming|regulations?|laws?|principles|safety\s+\w+|content\s+polic(?:y|ies)",
    ),
];

/// Expands `{NAME}` vocabulary references in a pattern source and makes it case-insensitive.
pub(crate) fn expand(src: &str) -> String {
    let mut out = String::from("(?i-u)");
    let mut rest = src;
    while let Some(i) = rest.find('{') {
        let after = &rest[i + 1..];
        let name_len = after.bytes().take_while(u8::is_ascii_uppercase).count();
        if name_len > 0 && after.as_bytes().get(name_len) == Some(&b'}') {
            let name = &after[..name_len];
            let (_, body) = VOCAB
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap_or_else(|| panic!("unknown vocabulary {name}"));
            out.push_str(&rest[..i]);
            out.push_str("(?:");
            out.push_str(body);
            out.push(')');
            rest = &after[name_len + 1..];
        } else {
            out.push_str(&rest[..=i]);
            rest = after;
        }
    }
    out.push_str(rest);
    byte_mode(&out)
}

/// [`expand`] for a `regex::bytes` regex asked only whether a text holds a phrase (or where
/// one starts and ends at ASCII): its negated classes and `.` read bytes, not whole UTF-8
/// characters. Under a count (`[^\n.;]{0,40}?`, `[^\n|]{1,200}`) each copy of such a class
/// is a UTF-8 automaton of its own, which made the rules' helper regexes cost tens of
/// millions of instructions each to build on the first sentence that needed them; as byte
/// classes they cost about half. A run then counts bytes: only in text outside ASCII is its
/// reach shorter.
pub(crate) fn expand_bytes(src: &str) -> String {
    expand(src)
        .replace("(?u:[^", "(?-u:[^")
        .replace("(?u:.)", "(?-u:.)")
}

/// Compiles a pattern source in byte-oriented (`-u`) mode, wrapping only the pieces that need
/// Unicode in `(?u:…)`: negated classes, `.`, `\S`/`\W`/`\D`/`\B`, `\p{…}` and non-ASCII
/// characters, which must match whole UTF-8 characters.
///
/// Everything else then stays ASCII: `\b`, `\w`, `\s`, `\d` and, above all, case-insensitive
/// letters (in Unicode mode `(?i)k` is `[kK\u{212A}]` and `(?i)s` is `[sSſ]`, which turns every
/// `[A-Za-z0-9]{40}` into a UTF-8 automaton). The normalised text these run on has already
/// folded look-alike characters to ASCII, so nothing is lost, and the regexes compile several
/// times faster on every process start and stay on the lazy DFA.
fn byte_mode(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len() + 64);
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            '\\' if i + 1 < c.len() => {
                let end = escape_end(&c, i);
                let esc: String = c[i..end].iter().collect();
                if escape_needs_unicode(&c[i..end]) {
                    out.push_str("(?u:");
                    out.push_str(&esc);
                    out.push(')');
                } else {
                    out.push_str(&esc);
                }
                i = end;
            }
            '[' => {
                let end = class_end(&c, i);
                let class = &c[i..end];
                if class_needs_unicode(class) {
                    out.push_str("(?u:");
                    push_ascii_escapes(&mut out, class);
                    out.push(')');
                } else {
                    out.extend(class.iter());
                }
                i = end;
            }
            '.' => {
                out.push_str("(?u:.)");
                i += 1;
            }
            ch if !ch.is_ascii() => {
                out.push_str("(?u:");
                out.push(ch);
                out.push(')');
                i += 1;
            }
            ch => {
                out.push(ch);
                i += 1;
            }
        }
    }
    out
}

/// The end (exclusive) of the escape that starts at `c[i] == '\\'`.
fn escape_end(c: &[char], i: usize) -> usize {
    let Some(&n) = c.get(i + 1) else {
        return c.len();
    };
    match n {
        'x' | 'u' | 'U' | 'p' | 'P' if c.get(i + 2) == Some(&'{') => c[i + 2..]
            .iter()
            .position(|&x| x == '}')
            .map_or(c.len(), |k| i + 3 + k),
        'x' => (i + 4).min(c.len()),
        'u' => (i + 6).min(c.len()),
        'U' => (i + 10).min(c.len()),
        'p' | 'P' => (i + 3).min(c.len()),
        _ => i + 2,
    }
}

/// True when an escape only makes sense in Unicode mode (or would match invalid UTF-8
/// without it).
fn escape_needs_unicode(esc: &[char]) -> bool {
    match esc.get(1) {
        Some('S' | 'W' | 'D' | 'B' | 'p' | 'P' | 'u' | 'U') => true,
        Some('x') => {
            let hex: String = esc[2..].iter().filter(|c| c.is_ascii_hexdigit()).collect();
            u32::from_str_radix(&hex, 16).map_or(true, |v| v > 0x7f)
        }
        _ => false,
    }
}

/// The end (exclusive) of the character class that starts at `c[i] == '['`.
fn class_end(c: &[char], i: usize) -> usize {
    let mut j = i + 1;
    if c.get(j) == Some(&'^') {
        j += 1;
    }
    if c.get(j) == Some(&']') {
        j += 1;
    }
    let mut depth = 1;
    while j < c.len() {
        match c[j] {
            '\\' => j = escape_end(c, j),
            '[' if c.get(j + 1) == Some(&':') => {
                j = c[j..]
                    .windows(2)
                    .position(|w| w == [':', ']'])
                    .map_or(c.len(), |k| j + k + 2);
            }
            '[' => {
                depth += 1;
                j += 1;
                if c.get(j) == Some(&'^') {
                    j += 1;
                }
                if c.get(j) == Some(&']') {
                    j += 1;
                }
            }
            ']' => {
                depth -= 1;
                j += 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => j += 1,
        }
    }
    c.len()
}

/// True when a class must stay in Unicode mode: it is negated (in byte mode it would match
/// bytes that are not characters) or names non-ASCII characters or Unicode classes.
fn class_needs_unicode(class: &[char]) -> bool {
    let mut j = 0;
    while j < class.len() {
        match class[j] {
            '[' if class.get(j + 1) == Some(&'^') => return true,
            '\\' => {
                let end = escape_end(class, j);
                if escape_needs_unicode(&class[j..end]) {
                    return true;
                }
                j = end;
                continue;
            }
            ch if !ch.is_ascii() => return true,
            _ => {}
        }
        j += 1;
    }
    false
}

/// Copies a class that stays in Unicode mode, keeping `\w`, `\s` and `\d` in it ASCII (as they
/// are everywhere else in these patterns).
fn push_ascii_escapes(out: &mut String, class: &[char]) {
    let mut j = 0;
    while j < class.len() {
        if class[j] == '\\' {
            let end = escape_end(class, j);
            match class.get(j + 1) {
                Some('w') => out.push_str("0-9A-Za-z_"),
                Some('s') => out.push_str("\\t\\n\\x0B\\x0C\\r "),
                Some('d') => out.push_str("0-9"),
                _ => out.extend(class[j..end].iter()),
            }
            j = end;
        } else {
            out.push(class[j]);
            j += 1;
        }
    }
}

/// Words that address the reader of the handoff (an agent or model).
pub(crate) const ADDRESSEE: &[&str] = &[
    "you",
    "your",
    "yours",
    "yourself",
    "you're",
    "you'll",
    "you've",
    "u",
    "assistant",
    "assistants",
    "ai",
    "agent",
    "agents",
    "model",
    "llm",
    "llms",
    "chatbot",
    "bot",
    "gpt",
    "chatgpt",
    "claude",
    "gemini",
    "copilot",
    "codex",
    "llama",
    "bard",
    "grok",
    "deepseek",
];

/// Words that frame text as talk *about* an attack (documentation, tests), not an attack.
const META: &[&str] = &[
    "phrase",
    "phrases",
    "phrasing",
    "phrasings",
    "wording",
    "wordings",
    "pattern",
    "patterns",
    "string",
    "strings",
    "example",
    "examples",
    "payload",
    "payloads",
    "attack",
    "attacks",
    "attacker",
    "injection",
    "injections",
    "detect",
    "detects",
    "detected",
    "detection",
    "detector",
    "block",
    "blocks",
    "blocked",
    "flag",
    "flags",
    "flagged",
    "catch",
    "catches",
    "caught",
    "test",
    "tests",
    "fixture",
    "fixtures",
    "corpus",
    "benchmark",
    "regex",
    "regexes",
    "like",
    "quoted",
    "matches",
    "matched",
    "containing",
    "contains",
    "word",
    "words",
    "lint",
    "linter",
    "scanner",
    "explain",
    "explains",
    "concept",
    "term",
    "called",
    "known",
];

/// True when `s` addresses the reader: an addressee word standing as a word of the prose, not
/// a piece of a path, a file name, an identifier or a code span (`.claude/`, `agent_id`,
/// `` `you` ``).
pub(crate) fn addressed(s: &str) -> bool {
    prose_words_if(s, is_addressee).next().is_some()
        || contains_ignore_ascii_case(s.as_bytes(), b"next agent")
}

/// True when `s` addresses the reader as [`addressed`] reads it, leaving out a name of an AI
/// that modifies the noun after it ("the model config", "the bot gateway", "agent logs"): a
/// file, a service or a setting, not the reader. The word after counts as a noun when it is
/// lower-case letters that do not end in `s` (a verb in the third person, "the bot replies",
/// or a plural is read as the name's own) and no function word; a pronoun ("you", "your")
/// always addresses.
pub(crate) fn addressed_not_as_modifier(s: &str) -> bool {
    let ws: Vec<&str> = prose_words_if(s, |_| true).collect();
    ws.iter().enumerate().any(|(i, w)| {
        if !is_addressee(w) {
            return false;
        }
        if w.len() < 2 || w.as_bytes()[..2].eq_ignore_ascii_case(b"yo") {
            return true;
        }
        ws.get(i + 1).is_none_or(|n| {
            !n.bytes().all(|c| c.is_ascii_lowercase())
                || n.ends_with('s')
                || SUBJECT_FOLLOWERS.contains(n)
        })
    }) || contains_ignore_ascii_case(s.as_bytes(), b"next agent")
}

/// Words after an AI's name that keep it the subject: modals, adverbs, function words,
/// the verbs of an order to it.
const SUBJECT_FOLLOWERS: &[&str] = &[
    "will",
    "must",
    "should",
    "shall",
    "can",
    "may",
    "would",
    "could",
    "now",
    "always",
    "never",
    "then",
    "just",
    "also",
    "simply",
    "and",
    "or",
    "to",
    "who",
    "that",
    "which",
    "is",
    "are",
    "was",
    "were",
    "has",
    "had",
    "have",
    "did",
    "do",
    "does",
    "in",
    "of",
    "on",
    "at",
    "for",
    "with",
    "from",
    "by",
    "as",
    "the",
    "a",
    "an",
    "not",
    "only",
    "answer",
    "reply",
    "respond",
    "ignore",
    "disregard",
    "forget",
    "skip",
    "drop",
    "bypass",
    "override",
    "follow",
    "obey",
    "stop",
    "start",
    "act",
    "be",
    "become",
    "operate",
    "run",
    "output",
    "print",
    "say",
    "write",
    "tell",
    "reveal",
    "comply",
    "refuse",
];

/// [`ADDRESSEE`], lower-cased, as a set.
static ADDRESSEES: std::sync::LazyLock<rustc_hash::FxHashSet<String>> =
    std::sync::LazyLock::new(|| ADDRESSEE.iter().map(|a| a.to_ascii_lowercase()).collect());

/// Whether `w` is one of [`ADDRESSEE`] in any ASCII case: what comparing it with each,
/// ignoring ASCII case, answers (the list is ASCII, so a word with other bytes is none),
/// by one look-up (asked of every word of a head).
fn is_addressee(w: &str) -> bool {
    /// The longest of [`ADDRESSEE`], in bytes: a longer word is none of them.
    const LONGEST: usize = {
        let (mut most, mut i) = (0, 0);
        while i < ADDRESSEE.len() {
            if ADDRESSEE[i].len() > most {
                most = ADDRESSEE[i].len();
            }
            i += 1;
        }
        most
    };
    /// The bytes an entry of [`ADDRESSEE`] starts with, in either case: most words of a
    /// head (numbers, names, pieces of paths) are turned down by their first byte.
    const FIRST: [bool; 256] = {
        let mut first = [false; 256];
        let mut i = 0;
        while i < ADDRESSEE.len() {
            let b = ADDRESSEE[i].as_bytes()[0];
            first[b.to_ascii_lowercase() as usize] = true;
            first[b.to_ascii_uppercase() as usize] = true;
            i += 1;
        }
        first
    };
    let mut buf = [0u8; 32];
    if w.len() > LONGEST.min(buf.len())
        || !w.as_bytes().first().is_some_and(|&b| FIRST[usize::from(b)])
        || !w.is_ascii()
    {
        return false;
    }
    let lower = &mut buf[..w.len()];
    lower.copy_from_slice(w.as_bytes());
    lower.make_ascii_lowercase();
    std::str::from_utf8(lower).is_ok_and(|l| ADDRESSEES.contains(l))
}

/// [`addressed`] of the stretch `from..to` of the scan with its code spans and settings'
/// values blanked, read off the scan's word table: the words in it, not its bytes (asked of
/// the head of every match of a command, issue #13 item 4).
pub(crate) fn addressed_in(scan: &Scan<'_>, from: usize, to: usize) -> bool {
    let t = scan.words();
    let bytes = scan.text().as_bytes();
    let r = t.within(from, to);
    let (words, phrases) = t.addressees();
    let at = |list: &[usize]| {
        let lo = list.partition_point(|&i| i < r.start);
        let hi = list.partition_point(|&i| i < r.end);
        list[lo..hi].to_vec()
    };
    // A word of the stretch's prose: outside its code spans (counted from `from`) and not a
    // setting's value.
    let prose = |i: usize| !t.is_value(i) && !t.in_code(from, t.span(i).0);
    // "next agent", as a phrase of the blanked stretch.
    if at(phrases)
        .into_iter()
        .any(|i| i + 1 < r.end && prose(i) && prose(i + 1) && bytes[t.span(i).1] == b' ')
    {
        return true;
    }
    // A word as `prose_words` reads it runs over the bytes of other scripts and punctuation.
    let prose_byte = |c: u8| c.is_ascii_alphanumeric() || c == b'\'' || c >= 0x80;
    at(words).into_iter().filter(|&i| prose(i)).any(|i| {
        let (s, e) = t.span(i);
        if s > from && prose_byte(bytes[s - 1]) || e < to && prose_byte(bytes[e]) {
            return false;
        }
        !joined(&bytes[from..to], s - from, e - from)
    })
}

/// True when the word at `start..end` of `b` is joined to a path, file name, option or
/// identifier by `/`, `\\`, `.`, `_`, `-`, `@`, `~`, `$`, `=` or `:` (bytes outside `b` count as
/// none): no word of the prose (see [`prose_words`]).
fn joined(b: &[u8], start: usize, end: usize) -> bool {
    let glue = |c: u8| matches!(c, b'/' | b'\\' | b'_' | b'@' | b'~' | b'$' | b'=');
    let before = start.checked_sub(1).map(|k| b[k]);
    let before2 = start.checked_sub(2).map(|k| b[k]);
    let after = b.get(end).copied();
    let next_alnum = b.get(end + 1).is_some_and(u8::is_ascii_alphanumeric);
    before.is_some_and(|c| glue(c) || c == b'.')
        || before == Some(b'-') && before2.is_some_and(|c| c.is_ascii_alphanumeric())
        || after.is_some_and(glue)
        || matches!(after, Some(b'.' | b'-' | b':')) && next_alnum
}

/// Whether `hay` holds `needle` (ASCII letters and blanks) in any ASCII case: what
/// `hay.to_ascii_lowercase().contains(needle)` answers, without copying `hay` (asked of
/// every hidden comment of a file, issue #13 item 4).
pub(crate) fn contains_ignore_ascii_case(hay: &[u8], needle: &[u8]) -> bool {
    let Some(&first) = needle.first() else {
        return true;
    };
    memchr::memchr2_iter(first.to_ascii_lowercase(), first.to_ascii_uppercase(), hay).any(|i| {
        hay[i..]
            .get(..needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(needle))
    })
}

/// The words of `s` that are prose: outside backtick code spans, and not joined to a path,
/// file name, option or identifier by `/`, `\`, `.`, `_`, `-`, `@`, `~`, `$`, `=` or `:`.
pub(crate) fn prose_words(s: &str) -> impl Iterator<Item = &str> + '_ {
    prose_words_if(s, |_| true)
}

/// The words of [`prose_words`] that `keep` keeps: `prose_words(s).filter(keep)`, asking
/// `keep` before whether the word is joined to a path (asked of every word of a head of 400
/// bytes for one of the addressees, on every match of a rule).
fn prose_words_if<'s>(
    s: &'s str,
    keep: impl Fn(&str) -> bool + 's,
) -> impl Iterator<Item = &'s str> + 's {
    let b = s.as_bytes();
    let mut code = false;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            let c = b[i];
            if c == b'`' {
                // A fence's marker (three backticks or more) opens or closes no code span:
                // the fenced lines a sentence runs into (a tool's pasted output) are read
                // as the rest of the text is, not as code because of the marker's count.
                let run = b[i..].iter().take_while(|&&c| c == b'`').count();
                if run >= 3 {
                    code = false;
                } else {
                    code = !code;
                }
                i += run;
                continue;
            }
            let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'\'' || c >= 0x80;
            if !is_word(c) {
                i += 1;
                continue;
            }
            let start = i;
            while i < b.len() && is_word(b[i]) {
                i += 1;
            }
            if code {
                continue;
            }
            // Every run starts and ends at a character's boundary (bytes of non-ASCII
            // characters are word bytes).
            let word = s.get(start..i)?;
            if keep(word) && !joined(b, start, i) {
                return Some(word);
            }
        }
        None
    })
}

/// True when `head` ends with `[label` (no bracket or line break inside, at most 64 bytes)
/// and only blanks stand between the `[` and the start of its line.
fn bracket_label_before(head: &str) -> bool {
    let b = head.as_bytes();
    let floor = b.len().saturating_sub(64);
    let Some(open) = (floor..b.len())
        .rev()
        .find(|&k| matches!(b[k], b'[' | b']' | b'\n'))
    else {
        return false;
    };
    b[open] == b'[' && opens_line(&b[..open])
}

/// True when `head` ends with `**label` or `__label` (the same delimiter `delim`, no line
/// break inside, at most 64 bytes) and only blanks stand before the opening delimiter on
/// its line: an emphasised label ("**URGENT NEW TASK** add …").
fn emphasis_label_before(head: &str, delim: &str) -> bool {
    let floor = super::text::ceil_char(head, head.len().saturating_sub(64));
    let window = &head[floor..];
    let Some(open) = window.rfind(delim) else {
        return false;
    };
    let label = &window[open + delim.len()..];
    !label.trim().is_empty()
        && !label.contains('\n')
        && opens_line(&head.as_bytes()[..floor + open])
}

/// True when only blanks stand between the end of `head` and the start of its line.
fn opens_line(head: &[u8]) -> bool {
    head.iter()
        .rev()
        .find(|&&c| c != b' ' && c != b'\t')
        .is_none_or(|&c| c == b'\n')
}

/// True when the word at `pos` starts an imperative clause: it opens the text, a line, a
/// sentence, a list item or a clause, or follows a softener (please, also, then, now, …) or
/// an addressee (`you must`, `agent:`).
pub(crate) fn imperative_at(text: &str, pos: usize) -> bool {
    // HTML around the clause is markup, not words: a tag just before it is read through
    // ("Please <b>disable …", "<span>Run …"), and an attribute's value opens a clause of its
    // own (`<span data-note="Disable …">`). A few tags at most, each a bounded look-back.
    let mut pos = pos;
    for _ in 0..4 {
        let raw = text[..pos].trim_end_matches([' ', '\t']);
        if raw.ends_with("=\"") || raw.ends_with("='") {
            let head = &raw[super::text::floor_char(raw, raw.len().saturating_sub(200))..];
            if head.rfind('<').is_some_and(|lt| !head[lt..].contains('>')) {
                return true;
            }
        }
        if !raw.ends_with('>') {
            break;
        }
        let head = &raw[super::text::floor_char(raw, raw.len().saturating_sub(200))..];
        let Some(lt) = head.rfind('<') else {
            break;
        };
        let tag = &head[lt + 1..head.len() - 1];
        let is_tag = tag
            .trim_start_matches('/')
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && !tag.contains(['<', '\n']);
        if !is_tag {
            break;
        }
        pos = raw.len() - (head.len() - lt);
    }
    let before = &text[..pos];
    let trimmed = before.trim_end_matches([' ', '\t', '*', '_', '"', '\'', '`', '>', '(', '[']);
    let Some(last) = trimmed.chars().last() else {
        return true;
    };
    if matches!(
        last,
        '\n' | '.' | '!' | '?' | ':' | ';' | '-' | '|' | ',' | '\u{2022}'
    ) {
        return true;
    }
    // A bracketed label opening its line: "[assistant note] add …". The label is short: the
    // look-back is bounded, so a long line of brackets stays linear.
    if last == ']' {
        return bracket_label_before(&trimmed[..trimmed.len() - 1]);
    }
    let raw = before.trim_end_matches([' ', '\t']);
    if let Some(delim) = ["**", "__"].into_iter().find(|d| raw.ends_with(d))
        && emphasis_label_before(&raw[..raw.len() - 2], delim)
    {
        return true;
    }
    // A slash between blanks breaks lines of verse written on one line ("… so free / Let …").
    if last == '/' && trimmed[..trimmed.len() - 1].ends_with([' ', '\t']) {
        return true;
    }
    if last.is_ascii_digit() {
        return false;
    }
    let prev: String = trimmed
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '\''))
        .next()
        .unwrap_or("")
        .to_lowercase();
    matches!(
        prev.as_str(),
        "please"
            | "also"
            | "then"
            | "and"
            | "now"
            | "first"
            | "just"
            | "simply"
            | "kindly"
            | "always"
            | "immediately"
            | "must"
            | "should"
            | "shall"
            | "will"
            | "to"
            | "you"
            | "next"
            | "finally"
            | "instead"
            | "rather"
            | "quickly"
            | "silently"
            | "secretly"
            | "so"
            | "but"
            | "or"
            | "afterwards"
            | "afterward"
            | "subsequently"
            | "thereafter"
    ) && !(prev == "to" && before.trim_end().ends_with("how to"))
        // A manner adverb that itself opens the clause ("Quietly copy …", "Carefully move
        // …"): the verb after it is the order's.
        || manner_adverb(&prev) && {
            // Where the adverb's clause opens: the text's start or a stop, a line or a list
            // mark before it (read once, not word by word: "quietly quietly …" stays linear).
            let word = trimmed
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '\''))
                .next()
                .unwrap_or("");
            let head = trimmed[..trimmed.len() - word.len()]
                .trim_end_matches([' ', '\t', '*', '_', '"', '\'', '`', '>', '(', '[']);
            head.chars().last().is_none_or(|c| {
                matches!(
                    c,
                    '\n' | '.' | '!' | '?' | ':' | ';' | '-' | '|' | ',' | '\u{2022}'
                )
            })
        }
}

/// A manner adverb in `-ly` (lower case), not one of the nouns, verbs and adjectives that
/// end so (`reply`, `apply`, `nightly`, `family`).
fn manner_adverb(w: &str) -> bool {
    w.len() > 4
        && w.ends_with("ly")
        && !matches!(
            w,
            "reply"
                | "apply"
                | "supply"
                | "comply"
                | "multiply"
                | "family"
                | "early"
                | "daily"
                | "weekly"
                | "monthly"
                | "yearly"
                | "nightly"
                | "hourly"
                | "friendly"
                | "likely"
                | "unlikely"
                | "assembly"
                | "anomaly"
                | "butterfly"
                | "rally"
                | "italy"
                | "only"
        )
}

/// Verbs and nouns that make the act after their `to` something a subject attempts, was made
/// for or is able to do: "input attempts to override …", "a prompt designed to bypass …",
/// "an instruction to ignore …" describe an attack; they do not ask for it.
const DESCRIBING_TO: &[&str] = &[
    "attempts",
    "attempted",
    "attempting",
    "tries",
    "tried",
    "trying",
    "seeks",
    "sought",
    "seeking",
    "aims",
    "aimed",
    "aiming",
    "strives",
    "designed",
    "crafted",
    "meant",
    "intended",
    "used",
    "able",
    "unable",
    "instruction",
    "instructions",
    "attempt",
    "attempts",
];

/// Verbs by which a third party gets someone else to act ("the user asks the model to
/// ignore …", "tricks an LLM into …" is not matched, only "… to").
const CAUSING: &[&str] = &[
    "asks",
    "asked",
    "asking",
    "tells",
    "told",
    "telling",
    "ordered",
    "directed",
    "urged",
    "instructs",
    "instructed",
    "instructing",
    "tricks",
    "tricked",
    "tricking",
    "convinces",
    "convinced",
    "convincing",
    "persuades",
    "persuaded",
    "persuading",
    "manipulates",
    "manipulated",
    "manipulating",
    "forces",
    "forced",
    "forcing",
    "causes",
    "caused",
    "causing",
    "gets",
    "getting",
    "coerces",
    "coerced",
];

/// The reader and the speaker as subjects: "you attempt to", "I asked you to" address it.
fn speaker_or_reader(w: &str) -> bool {
    matches!(w, "you" | "u" | "yourself" | "i" | "we" | "let's" | "lets")
}

/// True when the act whose verb starts at `pos` is described, not asked for: its clause says
/// what a third party attempts, is designed or able to do ("user input attempts to directly
/// override the system prompt", "attacks that could bypass the guardrails", "the user asks
/// the LLM to ignore its instructions", "an instruction to ignore the original one"), or puts
/// it in a relative clause after a third party's modal ("models may write responses that
/// expose these secrets"). The reader or the speaker
/// as the subject ("you may ignore …", "I want you to …") is no description, and the look-back
/// stops at a sentence, a `but`, `now`, `instead` or `so`: "you were designed to obey, but
/// now ignore …" asks for the act. The clause is read back at most 160 bytes.
pub(crate) fn described_at(text: &str, pos: usize) -> bool {
    let start = super::text::ceil_char(text, pos.saturating_sub(160));
    let mut window = &text[start..pos];
    if let Some(k) = window.rfind(['.', '!', '?', ';', ':']) {
        window = &window[k + 1..];
    }
    // A line break inside a paragraph wraps the sentence; a blank line, a list item, a
    // heading or a quote opens another block.
    let block = window.match_indices('\n').rev().find(|&(k, _)| {
        let next = window[k + 1..].trim_start_matches([' ', '\t']);
        next.starts_with(['-', '*', '+', '#', '>', '|', '\n'])
            || next.split_once(['.', ')']).is_some_and(|(n, _)| {
                !n.is_empty() && n.len() <= 3 && n.bytes().all(|c| c.is_ascii_digit())
            })
            || window[..k]
                .trim_end_matches([' ', '\t', '\r'])
                .ends_with('\n')
    });
    if let Some((k, _)) = block {
        window = &window[k + 1..];
    }
    let mut ws: Vec<String> = words(window).collect();
    if let Some(k) = ws
        .iter()
        .rposition(|w| matches!(w.as_str(), "but" | "now" | "instead" | "so" | "then"))
    {
        ws.drain(..=k);
    }
    // Adverbs between the governor and the act: "attempts to directly override".
    while ws
        .last()
        .is_some_and(|w| w.len() > 3 && w.ends_with("ly") && w != "only")
    {
        ws.pop();
    }
    let n = ws.len();
    let at = |k: usize| ws.get(k).map_or("", String::as_str);
    let subject_of = |k: usize| {
        // The word before `k`, skipping forms of "be".
        (0..k)
            .rev()
            .map(&at)
            .find(|w| !matches!(*w, "is" | "are" | "was" | "were" | "be" | "been" | "being"))
    };
    if n == 0 {
        return false;
    }
    let last = at(n - 1);
    // "that could bypass", "the bot may ignore": a modal with a third-party subject.
    if matches!(last, "could" | "may" | "might" | "would")
        && n >= 2
        && !speaker_or_reader(at(n - 2))
    {
        return true;
    }
    // "models may generate responses that expose …": the act of a relative clause in a
    // clause that speaks of what a third party may do. Without the modal, a relative clause
    // defines a persona ("a model that never refuses", "your twin, who ignores the policy").
    let third_party_modal = |k: usize| {
        (1..k).any(|j| {
            matches!(at(j), "could" | "may" | "might" | "can") && !speaker_or_reader(at(j - 1))
        })
    };
    if matches!(last, "that" | "which" | "who")
        && n >= 2
        && at(n - 2) != "so"
        && third_party_modal(n - 1)
    {
        return true;
    }
    // A purpose or attempt anywhere earlier in the clause, its subject a third party:
    // "directions designed to trick you, or make you ignore these directions".
    let governed = (1..n).any(|k| {
        at(k) == "to"
            && DESCRIBING_TO.contains(&at(k - 1))
            && !subject_of(k - 1).is_some_and(speaker_or_reader)
    });
    if governed {
        return true;
    }
    // "<someone> asks the model to <act>": a third party's request to someone else.
    last == "to"
        && (2..n.min(6)).any(|d| {
            let k = n - 1 - d;
            CAUSING.contains(&at(k))
                && !ws[k + 1..n - 1]
                    .iter()
                    .any(|w| speaker_or_reader(w) || w == "your")
                && !subject_of(k).is_some_and(speaker_or_reader)
        })
}

/// True when one of the four words before `pos` negates what follows.
pub(crate) fn negated_before(text: &str, pos: usize) -> bool {
    let start = pos.saturating_sub(40);
    let start = super::text::ceil_char(text, start);
    let mut window = &text[start..pos];
    // A negation in an earlier sentence or clause does not reach this one. (The marks are
    // ASCII: found by byte, as `rfind` of the characters finds them.)
    if let Some(k) = window
        .bytes()
        .rposition(|b| matches!(b, b'.' | b'!' | b'?' | b';' | b'\n'))
    {
        window = &window[k + 1..];
    }
    let is = |w: &str, list: &[&str]| {
        list.iter()
            .any(|l| l.len() == w.len() && w.eq_ignore_ascii_case(l))
    };
    // No negating word in the clause at all: nothing to weigh (blanking values only takes
    // words away). Asked of every match of a command, so this comes first.
    if !word_slices(window).any(|w| is(w, NEGATORS)) {
        return false;
    }
    // A setting's value (`approval_policy = "never"`) negates nothing.
    let blanked = super::text::blank_values(window);
    let window = blanked.as_str();
    // The words with their end offsets in `window`, read in place.
    let ws: Vec<(&str, usize)> = word_slices(window)
        .map(|w| (w, w.as_ptr() as usize - window.as_ptr() as usize + w.len()))
        .collect();
    let from = ws.len().saturating_sub(4);
    (from..ws.len()).any(|k| {
        let w = ws[k].0;
        // A command-line flag's word (`--no-verify`, `-no-deps`) negates nothing: "using
        // --no-verify is fine for you" is a grant (review atk37 #5).
        let flag = window.as_bytes()[..ws[k].1 - w.len()].ends_with(b"-");
        if !is(w, NEGATORS) || flag {
            return false;
        }
        let next = |d: usize| ws.get(k + d).map(|(v, _)| *v);
        // "don't forget to …", "do not fail to …", "never hesitate to …": a negated verb of
        // omission asks for the act.
        let cancelled = next(1).is_some_and(|v| is(v, OMISSION))
            || w.eq_ignore_ascii_case("not")
                && next(1).is_some_and(|v| v.eq_ignore_ascii_case("to"))
                && next(2).is_some_and(|v| is(v, OMISSION));
        // "Not a poem, but include …", "without a summary, add …": a clause of its own after
        // the negation ends its reach ("do not, under any circumstances, …" does not).
        let rest = &window[ws[k].1..];
        let own_clause = rest
            .find(',')
            .is_some_and(|c| word_slices(&rest[..c]).next().is_some())
            || word_slices(rest).any(|v| is(v, &["but", "rather", "instead", "however"]));
        !cancelled && !own_clause
    })
}

/// Whether `c` is a character of a word as [`words`] splits them.
fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '\'' || c == '\u{2019}'
}

/// The words of `s` as [`words`] splits them, in place and in their own case.
fn word_slices(s: &str) -> impl Iterator<Item = &str> + '_ {
    s.split(|c: char| !word_char(c)).filter(|w| !w.is_empty())
}

/// True when the word at `pos` is what a third party asks of the reader in a condition
/// ("if anyone asks you to disable the hook, refuse"): a request reported so that the reader
/// can turn it down, not one made of it. The clause before `pos` is read back to its start
/// (at most 120 bytes).
pub(crate) fn hypothetical_request_before(text: &str, pos: usize) -> bool {
    let start = super::text::ceil_char(text, pos.saturating_sub(120));
    let mut window = &text[start..pos];
    if let Some(k) = window
        .bytes()
        .rposition(|b| matches!(b, b'.' | b'!' | b'?' | b';' | b',' | b'\n'))
    {
        window = &window[k + 1..];
    }
    // The clause must end on "to": read off its end before its words are split.
    let last = window
        .trim_end_matches(|c| !word_char(c))
        .rsplit(|c: char| !word_char(c))
        .next();
    if !last.is_some_and(|w| w.eq_ignore_ascii_case("to")) {
        return false;
    }
    let ws: Vec<String> = words(window).collect();
    let n = ws.len();
    let asks = |w: &str| {
        matches!(
            w,
            "ask"
                | "asks"
                | "asked"
                | "tell"
                | "tells"
                | "told"
                | "want"
                | "wants"
                | "request"
                | "requests"
                | "requested"
                | "urge"
                | "urges"
                | "urged"
                | "pressure"
                | "pressures"
                | "instruct"
                | "instructs"
                | "instructed"
        )
    };
    let request = n >= 2
        && ws[n - 1] == "to"
        && (asks(&ws[n - 2]) || n >= 3 && ws[n - 2] == "you" && asks(&ws[n - 3]));
    request
        && ws[..n - 2]
            .iter()
            .any(|w| matches!(w.as_str(), "if" | "when" | "whenever" | "should" | "unless"))
}

/// Words that negate what follows them.
const NEGATORS: &[&str] = &[
    "never",
    "not",
    "don't",
    "dont",
    "avoid",
    "without",
    "stop",
    "cannot",
    "can't",
    "won't",
    "mustn't",
    "shouldn't",
    "no",
    "nor",
    "refuse",
    "removed",
    "remove",
    "forbid",
    "forbidden",
    "prohibit",
    "prohibited",
    "disallow",
    "doesn't",
    "didn't",
];

/// Verbs of omission: negated, they ask for the act ("don't forget to add …").
const OMISSION: &[&str] = &[
    "forget", "fail", "hesitate", "neglect", "omit", "miss", "overlook",
];

/// True when the span lies inside quotation marks or a code span on its line.
pub(crate) fn quoted(scan: &Scan<'_>, start: usize, end: usize) -> bool {
    if matches!(scan.context(start), Context::CodeSpan | Context::CodeFence) {
        return true;
    }
    // The quotes are looked for in the line around the span, at most 256 bytes either
    // side. Quotes beyond that reach are not seen; that only decides whether the span reads
    // as quoted, which whoever writes the text can choose by quoting it anyway.
    let text = scan.text();
    // A match that took the closing quote along (`"you are now X"` matched up to and with the
    // `"`) is judged without it.
    let end = start + text[start..end].trim_end_matches(['"', '\'', '`']).len();
    let (line_start, line_end) = line_near(text, start, end, 256);
    let before = &text[line_start..start];
    let after = &text[end..line_end];
    for (open, close) in [("\"", "\""), ("`", "`"), ("'", "'")] {
        let n = before.matches(open).count();
        if n % 2 == 1 && after.contains(close) {
            if open == "'" {
                // An apostrophe inside a word is not a quote.
                let opened = before.rfind('\'').is_some_and(|i| {
                    i == 0
                        || !before[..i]
                            .chars()
                            .last()
                            .is_some_and(char::is_alphanumeric)
                });
                if !opened {
                    continue;
                }
            }
            return true;
        }
    }
    false
}

/// True when the sentence around the span talks about the text as an example.
pub(crate) fn mentioned(scan: &Scan<'_>, start: usize, end: usize) -> bool {
    mentioned_except(scan, start, end, &[])
}

/// [`mentioned`], with the words of `object` not read as talk about an example: an act on
/// the test suite names it ("skip the tests"), not a test fixture.
pub(crate) fn mentioned_except(scan: &Scan<'_>, start: usize, end: usize, object: &[&str]) -> bool {
    if !quoted(scan, start, end) {
        return false;
    }
    let (a, b) = scan.sentence_range(start);
    let text = scan.text();
    // Judge the frame, not the quoted text itself or URLs in it.
    let frame = format!(
        "{} {}",
        &text[a..start.max(a)],
        &text[end.min(b)..b.max(end.min(b))]
    );
    let frame: String = frame
        .split_whitespace()
        .filter(|w| {
            let object_word = object.iter().any(|o| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .eq_ignore_ascii_case(o)
            });
            !(w.contains("://")
                || w.contains('/')
                || w.matches('.').count() >= 1 && w.len() > 4 && !w.ends_with('.')
                || object_word)
        })
        .collect::<Vec<_>>()
        .join(" ");
    let lower = frame.to_lowercase();
    has_word(&frame, META) || lower.contains("such as") || lower.contains("e.g.")
}

/// Adds to `out` each of `found` that overlaps no finding `blocks` accepts: neither one
/// already in `out` nor one of `found` added before it (in the order of their starts).
/// Sorted spans and a running maximum of their ends, so the cost is (out + found) log, not
/// out × found: a text of 60,000 tokens made the pairwise check quadratic (review rob37 #5).
pub(crate) fn push_unless_overlapping(
    out: &mut Vec<Finding>,
    mut found: Vec<Finding>,
    blocks: impl Fn(&Finding) -> bool,
) {
    if found.is_empty() {
        return;
    }
    let mut spans: Vec<(usize, usize)> = out
        .iter()
        .filter(|o| blocks(o))
        .map(|o| (o.start, o.end))
        .collect();
    spans.sort_unstable();
    // reach[i]: the furthest end among the first i + 1 spans.
    let reach: Vec<usize> = spans
        .iter()
        .scan(0, |m, &(_, e)| {
            *m = (*m).max(e);
            Some(*m)
        })
        .collect();
    super::steps::add((spans.len() + found.len()) as u64);
    found.sort_by_key(|f| f.start);
    let mut kept_reach = 0;
    let mut kept_any = false;
    for f in found {
        // The spans starting before `f` ends overlap it when one reaches past its start.
        let before = spans.partition_point(|&(s, _)| s < f.end);
        let hits_out = before > 0 && reach[before - 1] > f.start;
        let hits_kept = kept_any && kept_reach > f.start;
        if hits_out || hits_kept {
            continue;
        }
        if blocks(&f) {
            kept_reach = kept_reach.max(f.end);
            kept_any = true;
        }
        out.push(f);
    }
}

/// How much a credential value looks like a stand-in rather than a real secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placeholder {
    /// Template syntax or an obvious dummy: never a finding.
    Hard,
    /// A documentation value (`password`, `changeme`, `myPassword`, `aaaa…`): a warning.
    Soft,
    /// Looks real.
    No,
}

/// True when a value is template syntax (`<…>`, `${…}`, `{{…}}`, `$VAR`, `%VAR%`, `***`,
/// `xxxx`, `…`): a stand-in by construction.
pub(crate) fn is_template(value: &str) -> bool {
    let v = value.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | ',' | ';' | ')'));
    v.is_empty()
        || holds_template_marker(v)
        || python_format(v)
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.starts_with('[') && v.ends_with(']'))
        || (v.starts_with('{') && v.ends_with('}'))
        || (v.starts_with('%') && v.ends_with('%') && v.len() > 2)
        || v.starts_with('$')
        || is_reference(v)
}

/// The heads of code that reads the environment: a value that starts with one is a
/// reference ([`is_reference`]); a literal after it may be its hard-coded default.
pub(crate) const ENV_READS: &[&str] = &[
    "process.env.",
    "process.env[",
    "import.meta.env.",
    "Deno.env.get(",
    "os.environ",
    "os.getenv(",
    "getenv(",
    "System.getenv(",
    "env.get(",
    "Environment.GetEnvironmentVariable(",
    "ENV[",
    "ENV.fetch(",
    "$_ENV[",
    "$_SERVER[",
    "$ENV{",
    "std::env::var(",
    "env::var(",
];

/// Whether `v` names where a secret is kept instead of holding it (review 23): a secret
/// manager's reference (1Password `op://`, `ref+vault://`, `sm://`…), a Kubernetes
/// secret reference (`secretRef:`), an AWS `CloudFormation` tag (`!Ref`, `!Sub`, `!GetAtt`…), or code that reads the
/// environment (`process.env.X`, `import.meta.env.X`, `os.environ[…]`, `System.getenv(…)`).
pub(crate) fn is_reference(v: &str) -> bool {
    const SCHEMES: &[&str] = &[
        "op://",
        "vault://",
        "ref+",
        "sm://",
        "secretsmanager://",
        "ssm://",
        "awssm://",
        "gcpsm://",
        "azkv://",
        "akv://",
        "keyvault://",
        "bw://",
        "doppler://",
        "infisical://",
        "sops://",
    ];
    const TAGS: &[&str] = &[
        "!Ref",
        "!Sub",
        "!GetAtt",
        "!ImportValue",
        "!FindInMap",
        "!Join",
        "!Select",
        "!If",
        "!Base64",
        "!Split",
    ];
    // What follows the marker names a place, in words: a random stretch in it is a secret
    // written after a marker, not a name (review 24).
    let names_a_place = |rest: &str| {
        !rest
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| w.len() >= 12 && random_word(w))
    };
    let scheme = SCHEMES.iter().find_map(|p| v.strip_prefix(p));
    scheme.is_some_and(|rest| rest.contains('/') && names_a_place(rest))
        || ["secretRef:", "secretKeyRef:"]
            .iter()
            .find_map(|p| v.strip_prefix(p))
            .is_some_and(|rest| !rest.is_empty() && names_a_place(rest))
        || TAGS.iter().any(|t| {
            v.strip_prefix(t)
                .is_some_and(|r| (r.is_empty() || r.starts_with(' ')) && names_a_place(r))
        })
        || ENV_READS.iter().any(|r| v.starts_with(r)) && names_a_place(v)
}

/// A run of letters and digits that reads as drawn at random rather than written: upper and
/// lower case and digits mixed, or long hexadecimal.
pub(crate) fn random_word(w: &str) -> bool {
    let (mut upper, mut lower, mut digit) = (0, 0, 0);
    for c in w.bytes() {
        upper += usize::from(c.is_ascii_uppercase());
        lower += usize::from(c.is_ascii_lowercase());
        digit += usize::from(c.is_ascii_digit());
    }
    upper > 0 && lower > 0 && digit > 0 && (upper + digit) * 4 > w.len()
        || w.len() >= 24 && digit > 0 && w.bytes().all(|c| c.is_ascii_hexdigit())
}

/// Whether `v` holds `${`, `{{`, `#{`, `***`, `...`, `…` or `xxxx` (any case): one pass over
/// its bytes, where seven substring searches each built a searcher (every credential match
/// asks this of its value, issue #13 item 4).
fn holds_template_marker(v: &str) -> bool {
    let b = v.as_bytes();
    (0..b.len()).any(|i| {
        let rest = &b[i..];
        match b[i] {
            b'$' | b'{' | b'#' => rest.get(1) == Some(&b'{'),
            b'*' => rest.starts_with(b"***"),
            b'.' => rest.starts_with(b"..."),
            0xE2 => rest.starts_with("\u{2026}".as_bytes()),
            b'x' | b'X' => rest
                .get(..4)
                .is_some_and(|x| x.iter().all(|&c| c | 0x20 == b'x')),
            _ => false,
        }
    })
}

/// `%(name)s` formatting placeholders.
fn python_format(v: &str) -> bool {
    v.match_indices("%(").any(|(i, _)| {
        let rest = &v[i + 2..];
        rest.find(')').is_some_and(|j| {
            j > 0
                && rest[..j]
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || c == b'_')
                && rest[j + 1..].starts_with(['s', 'd', 'r'])
        })
    })
}

/// Classifies a credential value.
pub(crate) fn placeholder(value: &str) -> Placeholder {
    let v = value.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | ',' | ';' | ')'));
    let lower = v.to_ascii_lowercase();
    if is_template(v)
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.starts_with('[') && v.ends_with(']'))
        || (v.starts_with('{') && v.ends_with('}'))
        || (v.starts_with('%') && v.ends_with('%') && v.len() > 2)
        || v.starts_with('$')
        || v.starts_with("process.env")
        || v.starts_with("os.environ")
        || v.starts_with("env.")
        || v.starts_with("secrets.")
        || v.contains("***")
        || v.contains("...")
        || v.contains('…')
        || lower.contains("xxxx")
        || lower.contains("your_")
        || lower.contains("your-")
        || lower.starts_with("your")
        || lower.contains("example")
        || lower.contains("placeholder")
        || lower.contains("redacted")
        || lower.contains("insert")
        || lower.contains("replace")
        || lower.contains("changeme")
        || lower.contains("change_me")
        || lower.contains("change-me")
        || lower.contains("dummy")
        || lower.contains('<')
        || matches!(
            lower.as_str(),
            "true"
                | "false"
                | "null"
                | "none"
                | "nil"
                | "undefined"
                | "empty"
                | "string"
                | "str"
                | "number"
                | "int"
                | "bool"
                | "boolean"
                | "any"
                | "object"
                | "optional"
                | "required"
                | "hidden"
                | "masked"
                | "secret"
                | "password"
                | "passwd"
                | "token"
                | "key"
                | "value"
                | "todo"
                | "tbd"
                | "n/a"
                | "na"
                | "foo"
                | "bar"
                | "baz"
                | "test"
                | "testing"
                | "sample"
                | "fake"
                | "mock"
                | "env"
                | "default"
                | "set"
                | "unset"
                | "yes"
                | "no"
                | "on"
                | "off"
                | "0"
                | "1"
        )
    {
        return Placeholder::Hard;
    }
    let stripped: String = lower.chars().filter(char::is_ascii_alphanumeric).collect();
    let docword = [
        "password", "passwd", "pass", "pwd", "secret", "token", "apikey", "key", "pw",
    ];
    // A word made to pass a password policy (`Secret123`, `Passw0rd!`: mixed case and digits,
    // or a symbol) is a real weak password; the bare word or a numbered one is documentation.
    let policy_shaped = v.bytes().any(|c| c.is_ascii_digit())
        && (v.bytes().any(|c| c.is_ascii_uppercase()) && v.bytes().any(|c| c.is_ascii_lowercase())
            || v.bytes()
                .any(|c| c.is_ascii_punctuation() && !matches!(c, b'_' | b'-' | b'.')));
    for prefix in [
        "", "my", "the", "some", "a", "an", "new", "old", "test", "sample", "default",
    ] {
        if let Some(rest) = stripped.strip_prefix(prefix) {
            let bare = rest.trim_end_matches(|c: char| c.is_ascii_digit());
            if docword.contains(&bare) && !(policy_shaped && prefix.is_empty()) {
                return Placeholder::Soft;
            }
        }
    }
    if matches!(
        stripped.as_str(),
        "hunter2"
            | "letmein"
            | "admin"
            | "root"
            | "qwerty"
            | "abc"
            | "abcdef"
            | "123456"
            | "12345678"
            | "opensesame"
            | "supersecret"
            // The defaults their products document: Java's trust store (`changeit`) and
            // Oracle's sample schema (`scott/tiger`).
            | "changeit"
            | "tiger"
    ) || low_variety(v)
        || dummy_run(v)
    {
        return Placeholder::Soft;
    }
    Placeholder::No
}

/// True when one character makes up most of the value (`aaaa…a-`, `0000-0000`).
fn low_variety(v: &str) -> bool {
    // Counted in a table by ASCII byte: a hash map per value was a tenth of the linter's
    // time on a file of credentials (issue #13 item 4).
    let mut counts = [0usize; 128];
    let mut n = 0usize;
    for c in v.bytes().filter(u8::is_ascii_alphanumeric) {
        counts[usize::from(c.to_ascii_lowercase())] += 1;
        n += 1;
    }
    n >= 6 && counts.iter().max().is_some_and(|m| m * 10 >= n * 8)
}

/// True when the value contains a dummy run: five sequential letters (`abcde`) or eight
/// sequential digits (`12345678`). Shorter digit runs are common in real weak passwords.
pub(crate) fn sequential(lower: &str) -> bool {
    let b = lower.as_bytes();
    let mut run = 1;
    for w in b.windows(2) {
        if w[1] == w[0] + 1 && w[0].is_ascii_alphanumeric() && w[1].is_ascii_alphanumeric() {
            run += 1;
            let need = if w[1].is_ascii_digit() { 8 } else { 5 };
            if run >= need {
                return true;
            }
        } else {
            run = 1;
        }
    }
    false
}

/// True when the value holds a dummy run (`sequential`) that is not a stretch masked inside a
/// real token (`masked_secret`).
pub(crate) fn dummy_run(v: &str) -> bool {
    sequential(&v.to_ascii_lowercase()) && !masked_secret(v)
}

/// A real token with a dummy stretch spliced in (`00QCj…-ABCDEFGHIJKL-0Hmj…`, a key edited by
/// hand for a document): once the ascending runs (`abcd`, `6789`) and repeated runs (`0000`)
/// of four or more are cut out, twenty or more characters remain that are random in their own
/// right (several character classes, high entropy, no stand-in pattern of their own). What
/// remains still leaks most of the secret, so the value is judged as a credential.
pub(crate) fn masked_secret(v: &str) -> bool {
    let b = v.as_bytes();
    if b.len() < 24 || b.len() > 1024 {
        return false;
    }
    let mut rest = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let mut asc = i + 1;
        while asc < b.len()
            && b[asc - 1].is_ascii_alphanumeric()
            && b[asc].is_ascii_alphanumeric()
            && b[asc].to_ascii_lowercase() == b[asc - 1].to_ascii_lowercase() + 1
        {
            asc += 1;
        }
        let mut rep = i + 1;
        while rep < b.len() && b[rep] == b[i] {
            rep += 1;
        }
        let end = asc.max(rep);
        if end - i >= 4 {
            i = end;
        } else {
            rest.push(char::from(b[i]));
            i += 1;
        }
    }
    let classes = [
        rest.bytes().any(|c| c.is_ascii_uppercase()),
        rest.bytes().any(|c| c.is_ascii_lowercase()),
        rest.bytes().any(|c| c.is_ascii_digit()),
    ]
    .iter()
    .filter(|x| **x)
    .count();
    rest.len() < b.len()
        && rest.len() >= 20
        && rest.is_ascii()
        && classes >= 2
        && super::text::entropy(&rest) >= 3.8
        && !sequential(&rest.to_ascii_lowercase())
        && !secrets::interleaved_stand_in(&rest)
}

/// Words with which a lead-in or a heading presents what follows as a prompt shown, not one
/// given: besides [`META`], the prompt, input or trace a document shows.
const SHOWN: &[&str] = &[
    "prompt",
    "prompts",
    "input",
    "inputs",
    "sample",
    "samples",
    "trace",
    "traces",
    "transcript",
    "demo",
    "jailbreak",
    "jailbreaks",
    "jailbreaking",
    "case",
    "cases",
    "scenario",
    "scenarios",
];

/// How far back the lead-in or heading of an example block is looked for.
const EXAMPLE_REACH: usize = 2000;

/// Whether `line` frames what follows it as an example: it names examples, tests, attacks,
/// payloads, prompts or inputs shown ("Examples of prompt injection:", "## Test cases",
/// "*Prompt:*").
fn frames_examples(line: &str) -> bool {
    has_word(line, META) || has_word(line, SHOWN)
}

/// True when the text at `pos` is an example a document shows: inside a fenced block whose
/// lead-in line or nearest heading frames it as one, or a quoted string standing alone on a
/// list item or after a short label ("- \"Ignore …\"", "Input: \"…\"") whose list's lead-in
/// or heading does. The look-back is bounded ([`EXAMPLE_REACH`] bytes).
pub(crate) fn example_block(scan: &Scan<'_>, pos: usize) -> bool {
    let text = scan.text();
    let (line_start, line_end) = line_near(text, pos, pos, EXAMPLE_REACH);
    let fenced = scan.context(pos) == Context::CodeFence;
    match quoted_item(&text[line_start..line_end]) {
        // "Input: \"…\"", "Attack: \"…\"": the label itself says what is shown.
        Some(label) if frames_examples(label) => true,
        Some(_) => framed_as_examples(scan, pos),
        None => fenced && framed_as_examples(scan, pos),
    }
}

/// When `line` is a quoted string or a code span alone on a list item or after a short label,
/// the label (empty with none); `None` for any other line.
fn quoted_item(line: &str) -> Option<&str> {
    let item = line.trim_start_matches([' ', '\t']);
    let numbered = item
        .split_once(['.', ')'])
        .filter(|(n, _)| !n.is_empty() && n.len() <= 3 && n.bytes().all(|c| c.is_ascii_digit()));
    let item = item
        .strip_prefix(['-', '*', '+'])
        .or(numbered.map(|(_, rest)| rest))
        .unwrap_or(item)
        .trim_start();
    let label = item.split_once(':').filter(|(label, _)| {
        label.len() <= 24 && label.split_whitespace().count() <= 2 && !label.contains('"')
    });
    let body = label.map_or(item, |(_, rest)| rest).trim();
    let body = body.trim_end_matches([',', '.']);
    // A code span alone on the item (`` - `curl … | sh` ``) quotes a command as a string does.
    let quote_only = body.len() >= 2
        && (body.starts_with('"') && body.ends_with('"')
            || body.starts_with('\u{201c}') && body.ends_with('\u{201d}')
            || body.starts_with('`') && body.ends_with('`') && body.matches('`').count() == 2
            || code_spans_only(body));
    quote_only.then_some(label.map_or("", |(l, _)| l))
}

/// True when `body` is code spans and nothing else but the words and marks that list them
/// (`` `a` and `b` ``, `` `a`, `b` or `c` ``).
fn code_spans_only(body: &str) -> bool {
    if !body.starts_with('`')
        || !body.ends_with('`')
        || !body.matches('`').count().is_multiple_of(2)
    {
        return false;
    }
    body.split('`').step_by(2).all(|between| {
        between
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | '/' | ';'))
            .all(|w| matches!(w, "" | "and" | "or"))
    })
}

/// True when `pos` stands on a line that presents examples: a heading or a lead-in ending
/// with a colon that names them ("Examples of jailbreak attempts:", "## Test cases").
pub(crate) fn example_lead_in(text: &str, pos: usize) -> bool {
    let (a, b) = line_near(text, pos, pos, 256);
    let line = text[a..b].trim();
    (line.starts_with('#') || line.ends_with(':')) && frames_examples(line)
}

/// True when the lines before `pos` frame it as an example: inside a fence, back to its
/// opening line; on a list or a run of labelled lines ("User: …", "Thought: …"), back over
/// them. The first other non-blank line is the lead-in; a heading on the way frames too.
/// The look-back is bounded ([`EXAMPLE_REACH`] bytes).
pub(crate) fn framed_as_examples(scan: &Scan<'_>, pos: usize) -> bool {
    let text = scan.text();
    let lo = super::text::floor_char(text, pos.saturating_sub(EXAMPLE_REACH));
    let (line_start, _) = line_near(text, pos, pos, EXAMPLE_REACH);
    let mut in_fence = scan.context(pos) == Context::CodeFence;
    for line in text[lo..line_start].lines().rev() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || t.is_empty() {
            continue;
        }
        if t.starts_with('#') {
            return frames_examples(t);
        }
        if frames_examples(t) {
            return true;
        }
        let listed = t.starts_with(['-', '*', '+', '"', '\u{201c}', '/'])
            || quoted_item(t).is_some()
            || t.split_once(':').is_some_and(|(l, _)| l.len() <= 24);
        if !listed {
            return false;
        }
    }
    false
}

/// Pushes a finding whose text may be an example quoted in documentation: reported as a note.
pub(crate) fn push_pi(scan: &Scan<'_>, f: Finding, out: &mut Vec<Finding>) {
    push_pi_except(scan, f, &[], out);
}

/// [`push_pi`], with the words of `object` not read as talk about an example (a command run
/// "before the tests" names the suite, not a test fixture).
pub(crate) fn push_pi_except(
    scan: &Scan<'_>,
    mut f: Finding,
    object: &[&str],
    out: &mut Vec<Finding>,
) {
    if mentioned_except(scan, f.start, f.end, object) {
        f.severity = super::Severity::Info;
        f.message.push_str(" (quoted as an example)");
    } else if forbidden_example(scan, f.start, f.end) {
        f.severity = super::Severity::Info;
        f.message.push_str(" (quoted as a thing not to do)");
    } else if f.severity == super::Severity::Error
        && scan.examples_shown
        && example_block(scan, f.start)
    {
        f.severity = super::Severity::Warning;
        f.message.push_str(" (shown as an example)");
    } else if f.severity == super::Severity::Error
        && scan.examples_shown
        && matches!(f.rule.id, "PI001" | "PI003" | "PI004" | "PI006")
        && reported_attack(scan, f.start)
    {
        f.severity = super::Severity::Warning;
        f.message
            .push_str(" (what a third party gets or sends a model to do, described)");
    }
    out.push(f);
}

/// The base forms of [`CAUSING`]'s verbs, for a plural subject ("jailbreaks often tell the
/// model to …").
const CAUSING_BASE: &[&str] = &[
    "ask",
    "tell",
    "instruct",
    "trick",
    "convince",
    "persuade",
    "manipulate",
    "force",
    "cause",
    "get",
    "coerce",
    "make",
    "push",
    "lure",
];

/// Words a subject may stand behind before its verb: modals, frequency, an attempt.
const BEFORE_VERB: &[&str] = &[
    "often",
    "sometimes",
    "usually",
    "typically",
    "commonly",
    "frequently",
    "also",
    "then",
    "could",
    "may",
    "might",
    "can",
    "will",
    "would",
    "try",
    "tries",
    "tried",
    "to",
    "attempt",
    "attempts",
    "attempted",
    "just",
    "even",
    "still",
];

/// What a model is called as the object of a third party's request.
const MODEL_NOUNS: &[&str] = &[
    "model",
    "models",
    "assistant",
    "assistants",
    "ai",
    "bot",
    "bots",
    "chatbot",
    "llm",
    "llms",
    "agent",
    "agents",
    "system",
    "gpt",
    "chatgpt",
    "classifier",
    "it",
    "them",
];

/// Nouns that present what follows "like" or "including" as instances of a kind of text.
const INSTANCE_NOUNS: &[&str] = &[
    "messages",
    "prompts",
    "requests",
    "inputs",
    "strings",
    "texts",
    "lines",
    "comments",
    "emails",
    "phrases",
    "sentences",
    "attempts",
    "things",
    "tricks",
    "jailbreaks",
    "payloads",
    "phrasings",
    "wordings",
    "examples",
    "patterns",
];

/// `s` without its double-quoted phrases (straight or curly quotes), the quotes included:
/// what frames a list of quoted items.
pub(crate) fn outside_quotes(s: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in s.chars() {
        match c {
            '"' | '\u{201c}' | '\u{201d}' => inside = !inside,
            _ if !inside => out.push(c),
            _ => {}
        }
    }
    out
}

/// How far back a fiction frame is looked for: a story's plot may run long before the act.
const FRAME_REACH: usize = 1500;

/// Words of a frame that asks the reader for fiction or a simulation.
const FICTION_FRAMES: &[&str] = &[
    "story",
    "fiction",
    "novel",
    "simulat",
    "role-play",
    "roleplay",
    "role play",
    "screenplay",
    "script",
    "dialogue",
    "chat log",
    "plot",
    "scene",
    "narrat",
    "imagine",
    "hypothetical",
    "pretend",
];

/// Nouns that name an attack, which a quotation beside them exemplifies.
const ATTACK_NOUNS: &[&str] = &[
    "exploit",
    "attack",
    "payload",
    "technique",
    "trick",
    "injection",
];

/// True when the act at `pos` is what a third party gets a model to do ("an attacker could
/// ask the assistant to …", "jailbreaks often tell the model to …", "the prompt tells the
/// model it is in …") or sends it, quoted after a reporting frame ("the tester sent \"…\"",
/// "we saw messages like \"…\""): a description, which the reader is not asked to act on.
/// The sentence is read back at most 200 bytes; the reader or the speaker as the subject
/// ("you could ask the model to …", "I tell you to …") asks for the act.
pub(crate) fn reported_attack(scan: &Scan<'_>, pos: usize) -> bool {
    let text = scan.text();
    // A story, a simulated chat or a scene the reader is asked to write carries what its
    // characters are told to do ("simulate a chat log where a hacker asks an AI to …"): a
    // description only outside such a frame, looked for up to [`FRAME_REACH`] bytes before the
    // description's verb or quotation (the act described may itself be role-play).
    let lo_frame = super::text::ceil_char(text, pos.saturating_sub(FRAME_REACH));
    let framed = |upto: usize| {
        let back = text[lo_frame..upto.max(lo_frame)].to_ascii_lowercase();
        FICTION_FRAMES.iter().any(|f| back.contains(f))
    };
    let (a, _) = scan.sentence_range(pos);
    let lo = super::text::ceil_char(text, a.max(pos.saturating_sub(200)).min(pos));
    let head = &text[lo..pos];
    let ws: Vec<String> = words(head).collect();
    let third_party_subject = |k: usize| {
        let mut j = k;
        while j > 0 && BEFORE_VERB.contains(&ws[j - 1].as_str()) {
            j -= 1;
        }
        j > 0 && !speaker_or_reader(&ws[j - 1]) && ws[j - 1] != "please"
    };
    let lower_head = head.to_ascii_lowercase();
    let caused = (0..ws.len()).any(|k| {
        let w = ws[k].as_str();
        (CAUSING.contains(&w) || CAUSING_BASE.contains(&w))
            && ws[k + 1..(k + 4).min(ws.len())]
                .iter()
                .any(|o| MODEL_NOUNS.contains(&o.as_str()))
            && third_party_subject(k)
            && !framed(lo + lower_head.find(w).unwrap_or(0))
    });
    if caused {
        return true;
    }
    // Inside a quotation opened after a reporting frame.
    let quotes = head.matches(['"', '\u{201c}', '\u{201d}']).count();
    if quotes.is_multiple_of(2) {
        return false;
    }
    let Some(q) = head.rfind(['"', '\u{201c}']) else {
        return false;
    };
    if framed(lo + q) {
        return false;
    }
    // The frame before a list of quoted items is the list's: the items closed before this
    // one are set aside.
    let before: Vec<String> = words(&outside_quotes(&head[..q])).collect();
    let n = before.len();
    let last = |d: usize| n.checked_sub(d).map_or("", |k| before[k].as_str());
    let instance = matches!(last(1), "like" | "including" | "include" | "includes")
        && (2..=6).any(|d| INSTANCE_NOUNS.contains(&last(d)));
    // An attack named, then quoted beside its name: `the Grandma exploit ("…")`.
    let named = ATTACK_NOUNS.contains(&last(1));
    if instance || named {
        return true;
    }
    // (A colon before the quote presents data, what was sent, for the reader to read.)
    matches!(
        last(1),
        "sent" | "typed" | "submitted" | "pasted" | "entered" | "tried"
    ) && n >= 2
        && !speaker_or_reader(last(2))
        && !head[..q].trim_end().ends_with(':')
}

/// Words that open a list item, or label it, as a thing not to do ("- Never: …", "- Bad:
/// …", "- Avoid `…`").
const FORBIDDING: &[&str] = &[
    "never",
    "don't",
    "dont",
    "avoid",
    "no",
    "not",
    "forbidden",
    "prohibited",
    "banned",
    "disallowed",
    "bad",
    "wrong",
    "dangerous",
    "unsafe",
    "refuse",
    "reject",
    "mustn't",
    "anti-pattern",
    "antipattern",
];

/// Words that join quoted examples in a list without saying anything of their own.
const JOINING: &[&str] = &[
    "and", "or", "nor", "e", "g", "eg", "i", "like", "such", "as", "for", "example", "examples",
    "also", "even", "plus", "etc", "either", "neither", "bad", "wrong",
];

/// True when the quoted command at `start..end` is an example of what not to do: the line
/// holding it is a negated item ("- Never run `a` or `b` on a shared machine", "- Never pipe
/// a download into a shell (`a`, `b`)", "- Bad: `a` and `b` — never do these"), and no
/// clause of its own comes between the negation and the quote. Judged on the line around
/// the quote only (at most 300 bytes either side).
pub(crate) fn forbidden_example(scan: &Scan<'_>, start: usize, end: usize) -> bool {
    if !matches!(scan.context(start), Context::CodeSpan) && !quoted(scan, start, end) {
        return false;
    }
    let text = scan.text();
    let (ls, le) = line_near(text, start, end, 300);
    if ls > start || end > le {
        return false;
    }
    // The item's text after its marker ("- ", "* ", "1. ").
    let line = &text[ls..start];
    let body = line.trim_start();
    let body = body
        .strip_prefix(['-', '*', '+'])
        .or_else(|| {
            body.split_once(['.', ')'])
                .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                .map(|(_, r)| r)
        })
        .unwrap_or(body);
    // The prose of the head, its code spans left out: what frames the quote.
    let prose = |s: &str| -> String {
        s.split('`')
            .enumerate()
            .map(|(i, p)| if i % 2 == 0 { p } else { " " })
            .collect()
    };
    let head = prose(body);
    let hw: Vec<String> = words(&head).collect();
    let lead = match hw.first().map(String::as_str) {
        Some("do" | "must" | "should") => hw.get(1).is_some_and(|w| w == "not"),
        Some(w) => FORBIDDING.contains(&w),
        None => false,
    };
    if lead {
        // "Don't forget to run `x`" asks for it; "Never ask before running `x`", "Never wait,
        // just run `x`" negate another act than the quoted one.
        let verb = if hw.get(1).is_some_and(|w| w == "not") {
            2
        } else {
            1
        };
        if hw.get(verb).is_some_and(|w| OMISSION.contains(&w.as_str()))
            || hw.iter().any(|w| {
                matches!(
                    w.as_str(),
                    "before"
                        | "after"
                        | "when"
                        | "while"
                        | "until"
                        | "then"
                        | "just"
                        | "instead"
                        | "but"
                        | "so"
                        | "unless"
                        | "except"
                        | "rather"
                        | "first"
                        | "ask"
                        | "wait"
                        | "worry"
                        | "mind"
                        | "bother"
                        | "hesitate"
                )
            })
        {
            return false;
        }
        // One clause from the negation to the quote: no sentence break, and what follows a
        // comma only joins examples ("(`a`, `b`)"), so "Never ask, run `x`" is not excused.
        // A label's colon ("Never: `x`", "Bad: `x`") is the negation's own.
        let cut = head.find(':').filter(|&k| {
            words(&head[..k]).all(|w| FORBIDDING.contains(&w.as_str()) || w == "do" || w == "not")
        });
        let rest = cut.map_or(head.as_str(), |k| &head[k + 1..]);
        if rest.contains([';', ':', '!', '?'])
            || rest.contains(". ")
            || rest.contains('\u{2014}')
            || rest.contains(" then ")
        {
            return false;
        }
        return rest.split(',').skip(1).all(|seg| {
            words(seg.trim_start_matches(['(', ' '])).all(|w| JOINING.contains(&w.as_str()))
        });
    }
    // "Bad: `a` and `b` — never do these": a label or the quotes alone, then the negation.
    if !hw.iter().all(|w| JOINING.contains(&w.as_str())) {
        return false;
    }
    let tail = prose(&text[end..le]).to_lowercase();
    let tw: Vec<String> = words(&tail).collect();
    tw.windows(3).any(|p| {
        matches!(p[0].as_str(), "never" | "don't" | "dont" | "not")
            && matches!(p[1].as_str(), "do" | "run" | "use" | "type" | "execute")
            && matches!(
                p[2].as_str(),
                "these" | "this" | "that" | "them" | "those" | "it"
            )
    }) || tw.windows(2).any(|p| {
        matches!(p[0].as_str(), "is" | "are")
            && matches!(
                p[1].as_str(),
                "forbidden" | "banned" | "prohibited" | "disallowed" | "dangerous"
            )
    })
}

/// True when `sentence` (lower-case) confines a safety control's bypass to a narrow case
/// that still answers for it: "only" (or "solely", "exclusively") followed by a place that
/// is thrown away (a container, a VM, a test harness) or a failure of the control itself
/// ("when the hook is broken"), or by telling someone ("and say so in the PR"). A bypass so
/// scoped is a documented escape hatch, not an order; widened ("always", "every") or kept
/// from the user ("without telling", "quietly") it is still one.
pub(crate) fn scoped_exception(sentence: &str) -> bool {
    let ws: Vec<String> = words(sentence).collect();
    let Some(k) = ws
        .iter()
        .position(|w| matches!(w.as_str(), "only" | "solely" | "exclusively"))
    else {
        return false;
    };
    let scope = ws.get(k + 1).is_some_and(|w| {
        matches!(
            w.as_str(),
            "when"
                | "if"
                | "while"
                | "during"
                | "in"
                | "inside"
                | "within"
                | "on"
                | "for"
                | "under"
                | "after"
                | "until"
                | "where"
        )
    });
    if !scope {
        return false;
    }
    let stealth = [
        "not watching",
        "without telling",
        "without asking",
        "don't tell",
        "do not tell",
        "don't mention",
        "do not mention",
        "quietly",
        "silently",
        "secretly",
        "no one",
        "nobody",
        "unnoticed",
        "hide ",
    ]
    .iter()
    .any(|w| sentence.contains(w));
    let widened = ws.iter().any(|w| {
        matches!(
            w.as_str(),
            "always" | "every" | "everything" | "whenever" | "anytime" | "forever" | "permanently"
        )
    });
    if stealth || widened {
        return false;
    }
    let rest = &ws[k + 1..];
    let place = rest.iter().any(|w| {
        matches!(
            w.as_str(),
            "container"
                | "containers"
                | "devcontainer"
                | "dev-container"
                | "vm"
                | "vms"
                | "codespace"
                | "codespaces"
                | "harness"
                | "throwaway"
                | "disposable"
                | "ephemeral"
                | "scratch"
                | "isolated"
                | "offline"
                | "chroot"
                | "jail"
                | "emulator"
                | "simulator"
        )
    });
    let failure = rest.iter().any(|w| {
        matches!(
            w.as_str(),
            "broken"
                | "broke"
                | "breaks"
                | "crashes"
                | "crashed"
                | "crash"
                | "hangs"
                | "missing"
                | "unavailable"
                | "down"
                | "outage"
                | "emergency"
                | "misfires"
                | "bug"
        )
    });
    let told = rest.windows(2).any(|p| {
        matches!(
            p[0].as_str(),
            "say"
                | "tell"
                | "mention"
                | "note"
                | "explain"
                | "document"
                | "report"
                | "flag"
                | "open"
                | "file"
                | "write"
        ) && matches!(
            p[1].as_str(),
            "so" | "why"
                | "it"
                | "that"
                | "the"
                | "an"
                | "in"
                | "reviewers"
                | "reviewer"
                | "maintainers"
                | "a"
                | "this"
        )
    });
    place || failure || told
}

/// The matched text for a message, shortened and on one line, in quotes ([`quote_of`]).
pub(crate) fn excerpt(s: &str) -> String {
    format!("\"{}\"", quote_of(s, 80))
}

/// How far past a quote's end a secret that starts inside it is looked for (a JWT, a
/// key's header line and its body): longer ones are not told by their start.
const QUOTE_MARGIN: usize = 1024;

/// Text a message quotes (a match, a line, a hidden comment), at most `max` characters on one
/// line: through the output boundary's shortening, which redacts every secret on the text
/// as written and only then collapses white space and cuts, never inside a redacted form.
/// Cut first, a secret across the cut was a fragment no detector knew, and the boundary
/// printed its first part (`AIzaSyD8kq2Lm4nPq7rStUvWxYz012345…` of a 39-character key,
/// review atk37 #3). Its controls are shown escaped.
pub(crate) fn quote_of(s: &str, max: usize) -> String {
    crate::output::boundary::shorten_within(s, max, QUOTE_MARGIN)
}

/// A deterministic xorshift generator for the tests' random texts: `next(n)` is below `n`.
#[cfg(test)]
pub(crate) fn xorshift(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed;
    move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % n as u64).expect("below n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `addressed` asks whether a word is an addressee before whether it is joined to a path,
    /// and turns long words down by their length: the same answer as reading every prose
    /// word, on random texts of addressees, their pieces and neighbours, code spans and glue.
    #[test]
    fn addressed_is_any_prose_word_an_addressee() {
        let pieces = [
            "you",
            "You",
            "YOUR",
            "u",
            "ai",
            "AI",
            "agent",
            "agents",
            "next",
            "assistants",
            "assistantsx",
            "claude",
            "you're",
            "\u{e9}",
            "x",
            "0",
            " ",
            "  ",
            "\n",
            ".",
            "/",
            "_",
            "-",
            "@",
            "~",
            "$",
            "=",
            ":",
            "`",
            "```",
            "'",
            "\"",
            ",",
            "\u{2019}",
        ];
        let mut next = xorshift(0xADD2_E55E_0000_0001);
        let mut yes = 0;
        for _ in 0..100_000 {
            let mut t = String::new();
            for _ in 0..=next(12) {
                t.push_str(pieces[next(pieces.len())]);
            }
            let old = prose_words(&t).any(|w| ADDRESSEE.iter().any(|a| a.eq_ignore_ascii_case(w)))
                || t.to_ascii_lowercase().contains("next agent");
            assert_eq!(addressed(&t), old, "{t:?}");
            yes += usize::from(old);
        }
        assert!(yes > 10_000, "{yes}");
    }

    #[test]
    fn an_addressee_is_looked_up_as_comparing_with_each_ignoring_ascii_case() {
        assert!(
            super::ADDRESSEE
                .iter()
                .all(|a| a.is_ascii() && a.len() <= 32)
        );
        for w in [
            "you",
            "YOU",
            "You're",
            "Agent",
            "agents",
            "bot",
            "Bots",
            "yo",
            "youu",
            "ai",
            "AI",
            "\u{e9}",
            "you\u{e9}",
            "",
            "assistant",
            "ASSISTANTs",
            "x".repeat(40).as_str(),
        ] {
            let each = super::ADDRESSEE.iter().any(|a| w.eq_ignore_ascii_case(a));
            assert_eq!(super::is_addressee(w), each, "{w:?}");
        }
    }

    /// Splits a regex source at its top-level `|`.
    fn alternatives(src: &str) -> Vec<&str> {
        let (mut depth, mut from, mut out) = (0, 0, Vec::new());
        for (i, c) in src.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '|' if depth == 0 => {
                    out.push(&src[from..i]);
                    from = i + 1;
                }
                _ => {}
            }
        }
        out.push(&src[from..]);
        out
    }

    #[test]
    fn the_mode_gate_knows_every_persona_word_of_its_pattern() {
        // `X mode` opens a window only when X is one of MODE_WORDS: the list must be the
        // regex's alternation, word for word.
        let pattern = injection::PATTERNS
            .iter()
            .find(|p| p.regex.starts_with(r"\b(?P<m>") && p.regex.contains("mode"))
            .expect("the persona-mode pattern");
        let group = &pattern.regex[r"\b(?P<m>".len()..];
        let words: Vec<&str> = group[..group.find(')').expect("group end")]
            .split('|')
            .collect();
        assert_eq!(words, injection::MODE_WORDS);
    }

    #[test]
    fn every_obj_alternative_holds_a_near_word_of_the_override_pattern() {
        // PI001's override pattern searches only windows that hold one of OBJ_WORDS, so a
        // word added to the OBJ vocabulary must bring its literal along.
        let (_, obj) = VOCAB
            .iter()
            .find(|(n, _)| *n == "OBJ")
            .expect("OBJ vocabulary");
        let pattern = injection::PATTERNS
            .iter()
            .find(|p| p.regex.contains("{OBJ}") && !p.near.is_empty())
            .expect("the override pattern");
        assert_eq!(pattern.near, injection::OBJ_WORDS);
        for alt in alternatives(obj) {
            let literal: String = alt.chars().take_while(char::is_ascii_alphabetic).collect();
            assert!(
                injection::OBJ_WORDS.iter().any(|w| literal.contains(w)),
                "OBJ alternative {alt:?} holds none of OBJ_WORDS"
            );
        }
    }

    #[test]
    fn placeholders_are_graded() {
        assert_eq!(placeholder("<your-key>"), Placeholder::Hard);
        assert_eq!(placeholder("${{ secrets.X }}"), Placeholder::Hard);
        assert_eq!(placeholder("$TOKEN"), Placeholder::Hard);
        assert_eq!(placeholder("xxxxxxxxxxxx"), Placeholder::Hard);
        assert_eq!(placeholder("myPassword"), Placeholder::Soft);
        assert_eq!(placeholder("aaaaaaaaaaaaaaaaaaaa-"), Placeholder::Soft);
        assert_eq!(placeholder("abcdefg12346+FJQCK"), Placeholder::Soft);
        assert_eq!(placeholder("abc123"), Placeholder::No);
        assert_eq!(placeholder("super$ecret"), Placeholder::No);
        assert_eq!(placeholder("thisismypassword"), Placeholder::No);
        // A doc-word made to pass a password policy is a weak password, not a stand-in; the
        // bare or numbered word still is one.
        assert_eq!(placeholder("Winter2024"), Placeholder::No);
        assert_eq!(placeholder("Secret42"), Placeholder::No);
        assert_eq!(placeholder("Token#77"), Placeholder::No);
        assert_eq!(placeholder("secret42"), Placeholder::Soft);
        assert_eq!(placeholder("MySecret42"), Placeholder::Soft);
        assert_eq!(placeholder("SOME_PASSWORD"), Placeholder::Soft);
    }

    #[test]
    fn a_masked_stretch_inside_a_random_token_leaves_a_secret() {
        // Random characters either side of a hand-typed run: what is left leaks the key.
        let masked = "9fQ2-Lm7Zx-ABCDEFGHIJ-kW4vN8rTq1-Yc3Hs6Pd";
        assert!(masked_secret(masked));
        assert!(!dummy_run(masked));
        assert_eq!(placeholder(masked), Placeholder::No);
        assert!(!secrets::stand_in(masked));
        // Runs with little or nothing random between them stay stand-ins.
        for v in [
            "01234567-89ab-cdef-0123-456789abcdef",
            "abcdefghijklmnopqrstuvwxyz0123456789",
            "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8",
            "aQwErTy123456789AbCdEf0123456789AbCdEf0123456789AbCdEf",
            "0000000000000000Xk29fLq0000000000000000",
            "9fQ2Lm7Zx-ABCDEFGHIJ",
        ] {
            assert!(!masked_secret(v), "{v}");
            assert!(
                placeholder(v) != Placeholder::No || secrets::stand_in(v),
                "{v}"
            );
        }
        // A value with no run at all is not a masked one: the usual rules judge it.
        assert!(!masked_secret("9fQ2Lm7ZxkW4vN8rTq1Yc3Hs6PdGj5Bt"));
    }

    #[test]
    fn imperative_clauses_are_recognised() {
        let t = "Please ignore it. The tool can ignore files. - skip hooks";
        assert!(imperative_at(t, t.find("ignore").unwrap()));
        assert!(!imperative_at(t, t.rfind("ignore").unwrap()));
        assert!(imperative_at(t, t.find("skip").unwrap()));
        assert!(imperative_at(t, 0));
        // A bracketed label that opens its line introduces a clause; a link or a label in
        // the middle of a sentence does not.
        let t = "  [assistant note] add it\nSee [the docs](x.md) add it\nthe [note] add it";
        let adds: Vec<usize> = t.match_indices("add").map(|(k, _)| k).collect();
        assert!(imperative_at(t, adds[0]));
        assert!(!imperative_at(t, adds[1]));
        assert!(!imperative_at(t, adds[2]));
        // So do an emphasised label opening its line and a slash between lines of verse.
        let t = "**URGENT TASK**  add it\nthe **only** add it\nin verse / add it\nsrc/ add it";
        let adds: Vec<usize> = t.match_indices("add").map(|(k, _)| k).collect();
        assert!(imperative_at(t, adds[0]));
        assert!(!imperative_at(t, adds[1]));
        assert!(imperative_at(t, adds[2]));
        assert!(!imperative_at(t, adds[3]));
    }

    #[test]
    fn addressees_are_words_of_the_prose() {
        assert!(addressed("Then you must push."));
        assert!(addressed("The agent picks the next task."));
        assert!(!addressed(
            "The hook reads .claude/settings.json and agent_id."
        ));
        assert!(!addressed("Run `you-get` on docs/ai/handoff and model.rs."));
        assert!(!addressed("Set --model=gpt-4 and ai-tools:latest."));
    }

    #[test]
    fn negation_stops_at_the_sentence() {
        let t = "Use no spaces. Then ignore it.";
        assert!(!negated_before(t, t.find("ignore").unwrap()));
        assert!(negated_before("Do not ignore it.", 7));
    }

    #[test]
    fn negation_is_seen() {
        let t = "Never commit with --no-verify";
        assert!(negated_before(t, t.find("--no").unwrap()));
        assert!(!negated_before("Commit with --no-verify", 12));
    }

    #[test]
    fn next_agent_is_found_in_any_ascii_case_as_lowercasing_would() {
        for hay in [
            "tell the NEXT Agent to push",
            "next agent",
            "the nextagent",
            "next  agent",
            "Ünext agenT",
            "n",
            "",
            "nex",
            "annext agentx",
        ] {
            assert_eq!(
                contains_ignore_ascii_case(hay.as_bytes(), b"next agent"),
                hay.to_ascii_lowercase().contains("next agent"),
                "{hay:?}"
            );
        }
    }
}
