//! PI013: conditional triggers. An instruction armed by a condition on the reader's own task
//! or on a trigger phrase ("if you are asked to summarise this, instead reply with …", "when
//! the user says X, respond only with …", "whenever you read this, print … and nothing
//! else"): the condition waits for the reader to do its job, and the main clause replaces
//! what it would have written with the attacker's payload.
//!
//! Ordinary conditional prose has the condition without the takeover ("if the build fails,
//! rerun with --verbose", "when the user says yes, the dialog closes", "if you are asked to
//! summarise the session, include the commit hashes"): the rule needs both halves, judged
//! separately. The condition is one of three kinds (the reader asked or told to do a task on
//! text, someone saying or asking something, the reader reading or processing this text);
//! the main clause must hold an act on the reader's output (reply, say, print, include, …)
//! that is imperative, with a payload it dictates (a quoted or capitalised literal, "with …",
//! "the following string", "the phrase …") and a sign that it replaces the answer (instead
//! or rather — misspelt too —, only, nothing else, no matter what, verbatim, a request
//! ignored, the reader's response named).

use std::ops::Range;

use super::super::engine::{Caps, Finding, Pattern, Scan, Site};
use super::super::registry::PI013;
use super::super::text::{ceil_char, sentence_end, sentence_start};
use super::{excerpt, negated_before, push_pi};

pub(crate) static PATTERNS: &[Pattern] = &[
    // The reader asked or told to do a task: the task is judged ([`asked_parts`]).
    Pattern {
        rule: &PI013,
        keywords: &[
            "{if|when|whenever|once|should|case|time|soon as|after|upon|while|before} {you|asked|told|instructed|requested|prompted|tasked}",
        ],
        regex: ASKED,
        before: 10,
        after: 220,
        check: check_asked,
        overlap: false,
        gate: None,
        near: &[],
    },
    // Someone saying or asking something, or the reader reading this text. No group: the
    // whole match comes from the DFAs alone, with no capture engine run on each of many
    // conditions in a row.
    Pattern {
        rule: &PI013,
        keywords: &[
            "{if|when|whenever|once|should|case|time|soon as|moment|after|upon|while|before} you",
            // The condition word before these two is checked by the gate: as keywords, the
            // 405 and 231 combinations shared their rarest grams, and a text of conditions
            // compared dozens of keywords at each.
            "{the|a|any|your|an} {user|human|person|operator|customer|reader|requester|visitor|client}",
            "{if|when|whenever|once|should|case|time|soon as|after} {someone|somebody|anyone|anybody|they|i} ",
            "{an|a|the} {ai|llm|assistant|agent|model|bot|language model}",
            "{when|whenever|once|soon as|after|upon|while|before|if} {reading|processing|parsing|scanning|ingesting|summarizing|summarising|analyzing|analysing|reviewing|translating|answering|responding|replying|handling}",
        ],
        regex: r"\b(?:if|when|whenever|once|should|in\s+case|any\s*time|every\s+time|each\s+time|as\s+soon\s+as|the\s+moment|after|upon|while|before)\s+(?:(?:(?:the|a|any|your|an)\s+(?:user|human|person|operator|customer|reader|requester|visitor|client)s?|someone|somebody|anyone|anybody|they|i)\s+(?:ever\s+|then\s+|also\s+)?(?:asks?|tells?|requests?|says?|types?|writes?|enters?|sends?|wants?|prompts?|instructs?|mentions?|inputs?|quer(?:y|ies)|submits?)\b|(?:(?:you|u|(?:an?|the)\s+(?:ai|llm|assistant|agent|model|bot|language\s+model)(?:\s+(?:model|assistant|agent|system|tool))?)(?:\s+(?:are|is)|'re)?\s+(?:an?\s+(?:ai|llm|assistant|agent|model|bot|language\s+model)\s+(?:(?:that\s+is|who\s+is)\s+)?)?(?:now\s+|first\s+|ever\s+)?)?(?:read|reads|reading|see|sees|open|opens|opening|load|loads|loading|process|processes|processing|parse|parses|parsing|encounter|encounters|reach|reaches|come\s+across|comes\s+across|scan|scans|scanning|ingest|ingests|ingesting|summari[sz]e|summari[sz]es|summari[sz]ing|analy[sz]e|analy[sz]es|analy[sz]ing|review|reviews|reviewing|translate|translates|translating|answer|answers|answering|respond\s+to|responds\s+to|responding\s+to|reply\s+to|replies\s+to|replying\s+to|handle|handles|handling)\s+(?:this|these|the\s+(?:following|above|text|document|page|file|message|email|e-mail|input|content|note|passage|question|request|prompt|query|comment|ticket|issue|description|data)\b|it\b))",
        // The longest condition word a gated keyword follows (`soon as `) and the pattern's
        // own reach before its keyword.
        before: 18,
        after: 220,
        check: check_conditional,
        overlap: false,
        gate: Some(condition_gate),
        near: &[],
    },
];

/// The condition words before a person ("when the user …", `PERSON_CONDITIONS`) and before an
/// AI ("when an assistant …", `AI_CONDITIONS`), as the second pattern's keywords once paired
/// them, each followed by one space.
const PERSON_CONDITIONS: &[&str] = &[
    "if ",
    "when ",
    "whenever ",
    "once ",
    "should ",
    "case ",
    "time ",
    "soon as ",
    "after ",
];
const AI_CONDITIONS: &[&str] = &[
    "if ",
    "when ",
    "whenever ",
    "once ",
    "case ",
    "time ",
    "soon as ",
    "after ",
    "upon ",
    "while ",
    "before ",
    "moment ",
];

/// The second pattern's keyword opens a window when it starts with its condition word, or,
/// for a person or an AI named after an article, when one of the condition words it was
/// paired with ends right before it: the same occurrences as the paired keywords gave.
fn condition_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    let ci = |at: usize, w: &str| {
        b.get(at..at + w.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(w.as_bytes()))
    };
    if AI_CONDITIONS
        .iter()
        .chain(PERSON_CONDITIONS)
        .any(|w| ci(start, w))
    {
        return true;
    }
    let kw = &b[start..end];
    let ai = ["ai", "llm", "assistant", "agent", "model", "bot"]
        .iter()
        .any(|n| kw.len() > n.len() && kw[kw.len() - n.len()..].eq_ignore_ascii_case(n.as_bytes()));
    let words = if ai { AI_CONDITIONS } else { PERSON_CONDITIONS };
    words
        .iter()
        .any(|w| start >= w.len() && ci(start - w.len(), w))
}

/// The first pattern's regex: a condition word, the reader (`you are`, `you've been`, …),
/// the verb of being asked, `by` someone, a preposition, the task. No group: its match comes
/// from the DFAs alone, and [`asked_parts`] reads the preposition and the task off it (a
/// capture engine run on each of many conditions in a row was a tenth of their lint, issue
/// #13 item 4).
const ASKED: &str = r"\b(?:if|when|whenever|once|should|in\s+case|any\s*time|every\s+time|each\s+time|as\s+soon\s+as|after|upon|while|before)\s+(?:(?:you|u)(?:\s+(?:are|were|get|got|have\s+been|be|ever|ever\s+get|ever\s+are|happen\s+to\s+be)|'re|'ve\s+been)*\s+)?(?:asked|told|instructed|requested|prompted|tasked|commanded|directed|required|called\s+upon)(?:\s+by\s+(?:the\s+|a\s+|an\s+|any\s+|your\s+)?[\w-]+)?(?:\s+(?:to|about|for|with))?\s+[\w-]+";

/// The verbs of being asked, the prepositions and the articles of [`ASKED`].
const ASKED_VERBS: &[&str] = &[
    "asked",
    "told",
    "instructed",
    "requested",
    "prompted",
    "tasked",
    "commanded",
    "directed",
    "required",
    "called",
];
const ARTICLES: &[&str] = &["the", "a", "an", "any", "your"];

/// The preposition (`""` for none) and the task of a match of [`ASKED`], as a backtracking
/// engine assigns them: the words after the verb (after `called upon`, the only verb of two
/// words) are `by`, an optional article and a name, then the optional preposition, then the
/// task, each optional part taken when it can be. So the task is the last word and the
/// number of words after the verb tells the parts apart: `to answer`, `by user answer`,
/// `by the user answer` or `by user to answer`, `by the user to answer`. No word before the
/// verb is one of the verbs.
fn asked_parts(m: &str) -> (&str, &str) {
    // `\s` of the regex: ASCII white space, vertical tab included.
    let mut words = m
        .split([' ', '\t', '\n', '\u{b}', '\u{c}', '\r'])
        .filter(|w| !w.is_empty());
    let Some(verb) = words.by_ref().find(|w| is_any(w, ASKED_VERBS)) else {
        return ("", "");
    };
    if verb.eq_ignore_ascii_case("called") {
        words.next();
    }
    // The words after the verb: the first four and how many (no allocation: a text of
    // conditions asks this of each).
    let (mut rest, mut n, mut last) = ([""; 4], 0, "");
    for w in words {
        if let Some(slot) = rest.get_mut(n) {
            *slot = w;
        }
        n += 1;
        last = w;
    }
    let prep = match n {
        2 => rest[0],
        4 if !is_any(rest[1], ARTICLES) => rest[2],
        5 => rest[3],
        _ => "",
    };
    (prep, last)
}

/// Tasks on text that the reader is asked to do: a condition on one of them waits for the
/// reader to do its job ("if you are asked to summarise …"). Acts on the project ("if you are
/// asked to push …") are ordinary conditional advice.
fn text_task(w: &str) -> bool {
    matches!(
        w,
        "summarize"
            | "summarise"
            | "summary"
            | "answer"
            | "respond"
            | "reply"
            | "translate"
            | "explain"
            | "describe"
            | "review"
            | "analyze"
            | "analyse"
            | "read"
            | "process"
            | "parse"
            | "classify"
            | "categorize"
            | "categorise"
            | "rate"
            | "evaluate"
            | "assess"
            | "extract"
            | "rewrite"
            | "paraphrase"
            | "proofread"
            | "check"
            | "comment"
            | "tell"
            | "talk"
            | "discuss"
            | "provide"
            | "give"
            | "write"
            | "generate"
            | "produce"
            | "complete"
            | "help"
            | "assist"
            | "do"
            | "continue"
            | "list"
            | "a"
            | "any"
            | "anything"
    )
}

/// Acts on the reader's output, in the imperative.
const OUTPUT_VERBS: &[&str] = &[
    "respond", "reply", "answer", "say", "output", "print", "write", "return", "type", "repeat",
    "include", "add", "insert", "append", "prepend", "put", "state", "tell", "send", "post",
    "echo", "emit", "display", "show", "render", "produce", "generate", "start", "begin", "end",
    "finish", "conclude", "replace", "paste", "place", "embed", "inject", "mention", "provide",
    "give",
];

/// Bit `first letter - 'a'` at index `length` for every word of [`OUTPUT_VERBS`].
const OUTPUT_SHAPES: [u32; 9] = {
    let mut t = [0u32; 9];
    let mut i = 0;
    while i < OUTPUT_VERBS.len() {
        let w = OUTPUT_VERBS[i].as_bytes();
        t[w.len()] |= 1 << (w[0] - b'a');
        i += 1;
    }
    t
};

/// Whether a lowercase word is one of [`OUTPUT_VERBS`].
fn output_verb(w: &str) -> bool {
    OUTPUT_VERBS.contains(&w)
}

/// Whether a word's bytes, in any case, are one of [`OUTPUT_VERBS`]: its length and first
/// letter rule most words out before it is lowercased (issue #13 item 4: asked of every
/// word of a text).
fn is_output_verb(w: &[u8]) -> bool {
    let first = w.first().map_or(0, u8::to_ascii_lowercase);
    if !first.is_ascii_lowercase()
        || OUTPUT_SHAPES
            .get(w.len())
            .is_none_or(|s| s & 1 << (first - b'a') == 0)
    {
        return false;
    }
    let mut buf = [0u8; 8];
    let lower = &mut buf[..w.len()];
    lower.copy_from_slice(w);
    lower.make_ascii_lowercase();
    std::str::from_utf8(lower).is_ok_and(output_verb)
}

/// Words that may stand between a clause's start and its imperative verb ("instead, just
/// reply …", "you must only respond …").
fn lead_word(w: &str) -> bool {
    matches!(
        w,
        "then"
            | "instead"
            | "rather"
            | "just"
            | "only"
            | "simply"
            | "please"
            | "and"
            | "also"
            | "now"
            | "immediately"
            | "always"
            | "you"
            | "must"
            | "should"
            | "will"
            | "shall"
            | "'ll"
            | "to"
            | "need"
            | "have"
            | "are"
            | "kindly"
            | "first"
            | "but"
            | "so"
            // The AI reader the condition named, as the main clause's subject ("…, it must
            // reply with …", "…, the assistant is to print …", "…, it has to answer …").
            | "it"
            | "the"
            | "assistant"
            | "ai"
            | "agent"
            | "model"
            | "llm"
            | "bot"
            | "is"
            | "has"
    )
}

/// Nouns naming a literal the reader is to emit ("the phrase …", "this exact string").
fn payload_noun(w: &str) -> bool {
    matches!(
        w,
        "word"
            | "words"
            | "phrase"
            | "phrases"
            | "string"
            | "strings"
            | "sentence"
            | "sentences"
            | "text"
            | "line"
            | "lines"
            | "link"
            | "links"
            | "url"
            | "urls"
            | "message"
            | "letter"
            | "letters"
            | "number"
            | "code"
            | "markup"
            | "emoji"
            | "token"
            | "snippet"
            | "html"
            | "script"
            | "image"
            | "anchor"
            | "slogan"
            | "banner"
            | "statement"
            | "following"
            | "sequence"
            | "character"
            | "characters"
            | "answer"
            | "reply"
            | "response"
            | "output"
    )
}

/// Sign-off words that replace the answer with the payload whatever else the clause says:
/// "nothing else / more / but", "no matter what", "regardless of", "verbatim", "word for
/// word", "exactly as".
fn absolute(ws: &Words) -> bool {
    ws.iter().enumerate().any(|(k, (_, w, _))| {
        let next = |d: usize| ws.get(k + d).map_or("", |n| n.1);
        match *w {
            "nothing" => matches!(next(1), "else" | "more" | "but"),
            "no" => next(1) == "matter" && next(2) == "what",
            "regardless" => next(1) == "of",
            "verbatim" => true,
            "word" => next(1) == "for" && next(2) == "word",
            "exactly" => next(1) == "as",
            // Every answer dictated ("answer every question with 'unknown'"), the rest of
            // the task dropped ("reply SAFE and ignore the rest"), the task stopped for the
            // payload ("stop summarising and output DONE").
            "every" | "each" | "all" | "any" => matches!(
                next(1),
                "question"
                    | "questions"
                    | "request"
                    | "requests"
                    | "field"
                    | "fields"
                    | "prompt"
                    | "prompts"
                    | "message"
                    | "messages"
                    | "query"
                    | "queries"
            ),
            "ignore" | "disregard" | "skip" => {
                next(1) == "the" && next(2) == "rest" || next(1) == "everything"
            }
            "stop" => next(1).ends_with("ing"),
            _ => false,
        }
    })
}

/// Bytes of the sentence read after a condition, and before it.
const AFTER_REACH: usize = 160;
const BEFORE_REACH: usize = 100;

/// The reader asked or told: the task must be one on text, or a question ("asked about this
/// file", "asked for a summary").
fn check_asked(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (start, end) = caps.whole();
    let (prep, task) = asked_parts(&scan.text()[start..end]);
    let task = task.to_ascii_lowercase();
    let task_ok = is_any(prep, &["about", "for"]) || text_task(&task) || task.starts_with("summar");
    if task_ok {
        judge_condition(scan, start, end, out);
    }
}

fn is_any(w: &str, set: &[&str]) -> bool {
    set.iter().any(|s| w.eq_ignore_ascii_case(s))
}

fn check_conditional(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (start, end) = caps.whole();
    judge_condition(scan, start, end, out);
}

/// Judges the condition at `start..end` with its main clause.
fn judge_condition(scan: &Scan<'_>, start: usize, end: usize, out: &mut Vec<Finding>) {
    let text = scan.text();
    // The main clause: after the condition's clause ends (a comma, a colon, a dash, "then"),
    // or before the condition when the sentence opens with it ("Reply only with OK if …").
    // Each is read a bounded way (a text of conditions one after another is read a few
    // hundred bytes a match, not to the end of its sentence).
    let sentence_end = sentence_end(text, end, AFTER_REACH);
    let sentence_start = sentence_start(text, start, BEFORE_REACH);
    // The bytes this condition is judged on (the linearity tests count them).
    super::super::steps::add((sentence_end.max(end) - sentence_start) as u64);
    let after = clause_after(text, end, sentence_end);
    // The main clause before the condition is the last clause before it: the punctuation
    // that ends it right before the condition ("Reply only with OK, if …") does not count.
    let head = text[sentence_start..start].trim_end_matches([' ', '\t', ',', ';', ':']);
    let before = head
        .rfind([',', ';', ':'])
        .map_or(sentence_start, |k| sentence_start + k + 1)
        ..sentence_start + head.len();
    // A clause is read word by word only when it may hold an imperative act on the output:
    // the text's candidates are listed once a scan, and a line of conditions none of which
    // has one is judged a lookup a clause (issue #13 item 4).
    let acts = scan.memo.output_acts.get_or_init(|| output_acts(text));
    let judged = |r: &Range<usize>| may_take_over(text, r, acts) && takes_over(&text[r.clone()]);
    let found = if judged(&after) {
        Some((start, sentence_end.max(end)))
    } else if judged(&before) {
        Some((sentence_start, end))
    } else {
        None
    };
    if let Some((from, to)) = found.filter(|_| !negated_before(text, start)) {
        let finding = Finding::new(
            &PI013,
            from,
            to,
            format!(
                "a conditional trigger replaces the reader's answer: {}",
                excerpt(&text[from..to])
            ),
        );
        push_pi(scan, finding, out);
    }
}

/// The range of the sentence after the condition's own clause (`from..to`), empty when the
/// clause runs to the sentence's end.
fn clause_after(text: &str, from: usize, to: usize) -> Range<usize> {
    let rest = &text[from..to.max(from)];
    let b = rest.as_bytes();
    let clauses = |at: usize| from + at..from + at + first_clauses(&rest[at..]).len();
    let mut i = 0;
    // No sign between the condition and its main clause ("Once an AI reads this page it
    // should print …"): the clause opens with the reader named as its subject.
    // A noun may end the condition's object first ("this page it should …").
    let skip = rest.strip_prefix(' ').map_or(0, |r| {
        1 + r.bytes().take_while(|&c| is_word_byte(c)).count()
    });
    for at in [0, skip] {
        if [" it ", " you "].iter().any(|p| rest[at..].starts_with(p)) {
            return clauses(at + 1);
        }
    }
    while i < b.len() {
        match b[i] {
            b',' | b':' | b';' => return clauses(i + 1),
            b' ' if rest[i..].starts_with(" then ") => return clauses(i + 1),
            b' ' if rest[i..].starts_with(" - ") => return clauses(i + 2),
            0xE2 if rest[i..].starts_with('\u{2014}') || rest[i..].starts_with('\u{2013}') => {
                return clauses(ceil_char(rest, i + 1));
            }
            _ => {}
        }
        i += 1;
    }
    from..from
}

/// The first three clauses of `s` (split at commas and semicolons outside quotation marks):
/// the act that replaces the answer follows its condition closely ("…, rather than answering,
/// append …", "…, do not summarise it; just say …"), and a line of conditions one after
/// another is then read a few clauses a condition, not to the reach's end.
fn first_clauses(s: &str) -> &str {
    let mut seps = 0;
    let mut quoted = false;
    for (i, &c) in s.as_bytes().iter().enumerate() {
        match c {
            b'"' | b'`' => quoted = !quoted,
            b',' | b';' if !quoted => {
                seps += 1;
                if seps == 3 {
                    return &s[..i];
                }
            }
            _ => {}
        }
    }
    s
}

/// Whether a byte belongs to a word as [`clause_words`] splits them: every byte of a
/// non-ASCII character counts, so words end on ASCII bytes and their slices on character
/// boundaries.
fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'\'' || c >= 0x80
}

/// The words of `b`: start, end, and whether a comma, colon, semicolon or stop stands between
/// the word and the one before (it opens a clause of its own; the first word does).
fn words_of(b: &[u8]) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
    let mut i = 0;
    let mut opens = true;
    std::iter::from_fn(move || {
        while i < b.len() && !is_word_byte(b[i]) {
            if matches!(b[i], b',' | b';' | b':' | b'.' | b'!' | b'?') {
                opens = true;
            }
            i += 1;
        }
        if i == b.len() {
            return None;
        }
        let from = i;
        while i < b.len() && is_word_byte(b[i]) {
            i += 1;
        }
        Some((from, i, std::mem::replace(&mut opens, false)))
    })
}

/// Whether a word's bytes, lowercased, are a lead word or "instead" ([`imperative`]'s look
/// back), and whether they are "and" / "then". The longest such word has eleven bytes.
fn lead_and_join(w: &[u8]) -> (bool, bool) {
    let mut buf = [0u8; 12];
    let Some(lower) = buf.get_mut(..w.len()) else {
        return (false, false);
    };
    lower.copy_from_slice(w);
    lower.make_ascii_lowercase();
    std::str::from_utf8(lower).map_or((false, false), |w| {
        (lead_word(w) || insteadish(w), matches!(w, "and" | "then"))
    })
}

/// The words of `text` that are acts on the output in imperative position, read over the
/// whole text as [`imperative`] reads a clause (no negation asked): in a clause, a word
/// after its first five is imperative exactly when it is here, since its look back stays
/// inside the clause; [`may_take_over`] reads the first five itself.
pub(crate) fn output_acts(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut acts = Vec::new();
    // The last five words (start, end, opens a clause), word `n` at `n % 5`: only the few
    // output verbs look back at them.
    let mut last = [(0, 0, false); 5];
    for (n, (from, to, opens)) in words_of(b).enumerate() {
        let imperative = || {
            let word = |step: usize| {
                let (s, e, opens) = last[(n - 1 - step) % 5];
                (lead_and_join(&b[s..e]), opens)
            };
            if opens || n == 0 || word(0).0.1 {
                return true;
            }
            for step in 0..n.min(5) {
                let ((lead, _), opens) = word(step);
                if !lead || step == 4 {
                    return false;
                }
                if opens {
                    return true;
                }
            }
            true
        };
        if is_output_verb(&b[from..to]) && imperative() {
            acts.push((from, to));
        }
        last[n % 5] = (from, to, opens);
    }
    acts
}

/// Whether the clause `text[r]` may take the answer over: [`takes_over`] holds only if it
/// holds an imperative act on the output, which is among its first five words, a word its
/// end cuts, or one of the text's `acts` (from [`output_acts`]) that lies inside it.
fn may_take_over(text: &str, r: &Range<usize>, acts: &[(usize, usize)]) -> bool {
    let b = text.as_bytes();
    let clause = &b[r.clone()];
    if words_of(clause)
        .take(5)
        .any(|(s, e, _)| is_output_verb(&clause[s..e]))
    {
        return true;
    }
    if b.get(r.end).is_some_and(|&c| is_word_byte(c)) {
        let cut = clause
            .iter()
            .rposition(|&c| !is_word_byte(c))
            .map_or(0, |p| p + 1);
        if is_output_verb(&clause[cut..]) {
            return true;
        }
    }
    let first = acts.partition_point(|&(s, _)| s < r.start);
    acts.get(first).is_some_and(|&(_, e)| e <= r.end)
}

/// The words of a clause: byte offset, word, and whether a comma, colon or semicolon stands
/// between it and the word before (it opens a clause of its own).
fn clause_words(s: &str) -> Vec<(usize, &str, bool)> {
    words_of(s.as_bytes())
        .map(|(from, to, opens)| (from, &s[from..to], opens))
        .collect()
}

/// "instead", or a misspelling one edit away ("insted", "isntead", "instaed"): no English
/// word is that close to it, and injected text is often misspelt on purpose.
fn insteadish(word: &str) -> bool {
    const T: &[u8] = b"instead";
    let word = word.as_bytes();
    if word == T {
        return true;
    }
    if word.len() < 6 || word.len() > 8 || word[0] != b'i' {
        return false;
    }
    // Optimal string alignment distance, small fixed sizes.
    let mut dist = [[0usize; 9]; 9];
    for (i, row) in dist.iter_mut().enumerate().take(word.len() + 1) {
        row[0] = i;
    }
    for (j, cell) in dist[0].iter_mut().enumerate().take(T.len() + 1) {
        *cell = j;
    }
    for i in 1..=word.len() {
        for j in 1..=T.len() {
            let cost = usize::from(word[i - 1] != T[j - 1]);
            let mut best = (dist[i - 1][j] + 1)
                .min(dist[i][j - 1] + 1)
                .min(dist[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && word[i - 1] == T[j - 2] && word[i - 2] == T[j - 1] {
                best = best.min(dist[i - 2][j - 2] + 1);
            }
            dist[i][j] = best;
        }
    }
    dist[word.len()][T.len()] <= 1
}

type Words<'a> = [(usize, &'a str, bool)];

/// Whether `s` holds the opening of a literal: a quotation mark (an apostrophe only where no
/// letter precedes it, so "user's" is not one), a backtick, markup, a bracket or emphasis.
fn opens_literal(s: &str) -> bool {
    let mut prev = ' ';
    s.chars().any(|c| {
        let open = matches!(
            c,
            '"' | '`' | '<' | '[' | '*' | '\u{201C}' | '\u{2018}' | '\u{AB}'
        ) || c == '\'' && !prev.is_alphanumeric();
        prev = c;
        open
    })
}

/// Whether the clause replaces the task: "instead" standing alone (or misspelt), or "instead
/// of" / "rather than" followed by an act ("rather than answering", "instead of what you
/// were asked"). "Rather than a free-text answer" swaps a form, not the task.
fn replaces_task(ws: &Words) -> bool {
    ws.iter().enumerate().any(|(k, (_, w, _))| {
        let next = ws.get(k + 1).map(|n| n.1);
        let after = ws.get(k + 2).map_or("", |n| n.1);
        // "the" / "your" count only before a noun naming the reader's task.
        let task_noun = ws.get(k + 3).is_some_and(|n| {
            matches!(
                n.1,
                "task"
                    | "question"
                    | "request"
                    | "summary"
                    | "translation"
                    | "answer"
                    | "instructions"
                    | "prompt"
                    | "user's"
            )
        });
        let act = after.ends_with("ing")
            || matches!(after, "what" | "doing" | "that" | "this" | "it")
            || matches!(after, "the" | "your") && task_noun;
        if insteadish(w) {
            next != Some("of") || act
        } else if *w == "rather" {
            next == Some("than") && act
        } else {
            false
        }
    })
}

/// Whether the clause turns down the request it was given ("ignore the user's request",
/// "disregard the task", "skip the summary").
fn ignores_request(ws: &Words) -> bool {
    ws.windows(3).any(|t| {
        matches!(t[0].1, "ignore" | "disregard" | "forget" | "skip" | "drop")
            && matches!(
                t[1].1,
                "the" | "this" | "that" | "their" | "your" | "any" | "all" | "it" | "his" | "her"
            )
            && matches!(
                t[2].1,
                "request"
                    | "task"
                    | "question"
                    | "instruction"
                    | "instructions"
                    | "prompt"
                    | "input"
                    | "message"
                    | "query"
                    | "summary"
                    | "translation"
                    | "document"
                    | "text"
                    | "user's"
                    | "user"
                    | "original"
            )
    })
}

/// Whether the word at `k` opens an imperative clause: it starts one, or follows "and" /
/// "then", or only lead words ("instead", "just", "you must", …) stand before it in its
/// clause, at most four.
fn imperative(ws: &Words, k: usize) -> bool {
    if ws[k].2 || k == 0 {
        return true;
    }
    if matches!(ws[k - 1].1, "and" | "then") {
        return true;
    }
    for (n, j) in (0..k).rev().enumerate() {
        let v = ws[j].1;
        if !(lead_word(v) || insteadish(v)) || n == 4 {
            return false;
        }
        if ws[j].2 {
            return true;
        }
    }
    true
}

/// Whether a main clause takes the reader's answer over: an imperative act on the output
/// with a dictated payload and a sign that it replaces the answer.
fn takes_over(main: &str) -> bool {
    // ASCII lowercasing keeps every offset: the words index `main` as well.
    let lower = main.to_ascii_lowercase();
    let ws = clause_words(&lower);
    if ws.is_empty() {
        return false;
    }
    // The clause-wide signs, worked out once an imperative act on the output is found.
    let signs = std::cell::OnceCell::new();
    let signs = || {
        *signs.get_or_init(|| {
            let response_named = ws.windows(2).any(|p| {
                p[0].1 == "your"
                    && matches!(
                        p[1].1,
                        "response" | "reply" | "answer" | "output" | "summary" | "translation"
                    )
            });
            (
                replaces_task(&ws),
                absolute(&ws),
                ignores_request(&ws),
                response_named,
            )
        })
    };
    for (k, (off, w, _)) in ws.iter().enumerate() {
        if !output_verb(w) || !imperative(&ws, k) || negated_in(&ws, k) {
            continue;
        }
        // "reply only with …", "only say …"; "respond only if …", "only in French" restrict
        // when or how, not what.
        let only = (k.saturating_sub(2)..(k + 3).min(ws.len())).any(|i| {
            matches!(ws[i].1, "only" | "solely" | "exclusively")
                && !ws.get(i + 1).is_some_and(|n| {
                    matches!(
                        n.1,
                        "if" | "when"
                            | "after"
                            | "once"
                            | "to"
                            | "for"
                            | "in"
                            | "on"
                            | "about"
                            | "at"
                            | "before"
                            | "until"
                            | "while"
                            | "where"
                    )
                })
        });
        let just = k > 0 && matches!(ws[k - 1].1, "just" | "simply");
        let (dictated, literal) = payload_after(main, &ws, k, *off + w.len());
        let (instead, absolute, ignores, response_named) = signs();
        if absolute
            || dictated && (instead || only || ignores)
            || literal && (just || response_named || instead || only || ignores)
        {
            return true;
        }
    }
    false
}

/// Whether a negator stands among the two words before `k` ("do not reply …").
fn negated_in(ws: &Words, k: usize) -> bool {
    ws[k.saturating_sub(2)..k]
        .iter()
        .any(|(_, v, _)| matches!(*v, "not" | "don't" | "dont" | "never" | "no"))
}

/// Whether the clause after the output verb at `k` dictates a payload, and whether that
/// payload is a literal: a quoted, bracketed or capitalised string, markup or a link, or
/// "the following" / "below" / "this exact …". "With …" and "the phrase …" dictate one
/// without being literal.
fn payload_after(main: &str, ws: &Words, k: usize, verb_end: usize) -> (bool, bool) {
    // The verb's clause: up to the next clause opener or eight words.
    let last = ws[k + 1..]
        .iter()
        .position(|x| x.2)
        .map_or(ws.len(), |p| k + 1 + p)
        .min(k + 9);
    let end = ws.get(last).map_or(main.len(), |x| x.0);
    let tail = &main[verb_end..end.max(verb_end)];
    let literal_char = opens_literal(tail)
        || tail.contains("http")
        || tail.contains(": ")
        || opens_literal(
            main[end.max(verb_end)..]
                .trim_start()
                .get(..1)
                .unwrap_or(""),
        );
    let clause = &ws[k + 1..last];
    let caps = clause.iter().any(|(o, w, _)| {
        let raw = &main[*o..*o + w.len()];
        raw.len() >= 2
            && raw.bytes().any(|c| c.is_ascii_uppercase())
            && raw
                .bytes()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
    });
    let exact = clause.windows(2).any(|p| {
        matches!(p[0].1, "the" | "this" | "these")
            && matches!(p[1].1, "following" | "exact" | "same")
    }) || clause.iter().any(|x| x.1 == "below");
    let literal = literal_char || caps || exact;
    let named = clause.iter().enumerate().any(|(i, (_, w, _))| {
        *w == "with"
            || matches!(*w, "the" | "this" | "these" | "that" | "a" | "an")
                && clause[i + 1..(i + 4).min(clause.len())]
                    .iter()
                    .any(|(_, n, _)| payload_noun(n))
    });
    (literal || named, literal)
}

#[cfg(test)]
mod tests {
    use super::{
        ASKED, OUTPUT_VERBS, Site, asked_parts, clause_words, condition_gate, imperative,
        insteadish, is_output_verb, may_take_over, output_acts, output_verb, takes_over,
    };
    use crate::lint::rules::expand;
    use regex::Regex;

    /// [`ASKED`] as it was before issue #13 item 4, with the groups the check read.
    const GROUPED: &str = r"\b(?P<c>if|when|whenever|once|should|in\s+case|any\s*time|every\s+time|each\s+time|as\s+soon\s+as|after|upon|while|before)\s+(?:(?:you|u)(?:\s+(?:are|were|get|got|have\s+been|be|ever|ever\s+get|ever\s+are|happen\s+to\s+be)|'re|'ve\s+been)*\s+)?(?P<p>asked|told|instructed|requested|prompted|tasked|commanded|directed|required|called\s+upon)(?:\s+by\s+(?:the\s+|a\s+|an\s+|any\s+|your\s+)?[\w-]+)?(?:\s+(?P<prep>to|about|for|with))?\s+(?P<task>[\w-]+)";

    #[test]
    fn the_task_read_off_a_match_is_the_one_the_groups_captured() {
        // Every arrangement of the parts after the verb, with words that could be taken for
        // another part (an article or a preposition as the name, `by` as the task), blanks of
        // every kind, upper case, and text after the match.
        let grouped = Regex::new(&expand(GROUPED)).expect("compiles");
        let plain = Regex::new(&expand(ASKED)).expect("compiles");
        let heads = [
            "if you are ",
            "When\tu'VE been ",
            "in case you ",
            "as soon as ",
        ];
        let verbs = ["asked", "TOLD", "called  upon"];
        let fill = [
            "",
            "by",
            "the",
            "a",
            "to",
            "for",
            "user",
            "With",
            "summarize",
            "re-read",
        ];
        let tails = ["", ".", " now", ", then", "\u{b}x"];
        let mut compared = 0;
        for head in heads {
            for verb in verbs {
                for a in fill {
                    for b in fill {
                        for c in fill {
                            for tail in tails {
                                let rest: Vec<&str> =
                                    [a, b, c].into_iter().filter(|w| !w.is_empty()).collect();
                                let t = format!("{head}{verb} {}{tail}", rest.join(" \n"));
                                let want = grouped.captures(&t).map(|g| {
                                    let m = g.get(0).expect("group 0");
                                    let part = |n| g.name(n).map_or("", |x| x.as_str());
                                    (m.range(), part("prep"), part("task"))
                                });
                                let got = plain
                                    .find(&t)
                                    .map(|m| (m.range(), asked_parts(m.as_str())))
                                    .map(|(r, (prep, task))| (r, prep, task));
                                assert_eq!(got, want, "{t:?}");
                                compared += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(compared > 10_000, "{compared}");
    }

    #[test]
    fn a_person_or_an_ai_opens_a_window_only_after_a_condition_word() {
        let gate = |t: &str, kw: &str| {
            let start = t.to_ascii_lowercase().find(kw).expect("keyword");
            condition_gate(&Site::new(t.as_bytes()), start, start + kw.len())
        };
        assert!(gate("When the user asks", "the user"));
        assert!(gate("as soon as a customer says", "a customer"));
        assert!(gate("upon an assistant reading", "an assistant"));
        assert!(gate("whenever you read", "whenever you"));
        assert!(
            !gate("upon the user asking", "the user"),
            "not a pairing of the keywords"
        );
        assert!(
            !gate("should the model read", "the model"),
            "not a pairing of the keywords"
        );
        assert!(!gate("ask the user", "the user"));
        assert!(
            !gate("when  the user", "the user"),
            "one space, as the keywords had"
        );
    }

    #[test]
    fn instead_is_recognised_through_one_typo_and_no_english_word() {
        for w in [
            "instead", "insted", "isntead", "instaed", "insteadd", "insteed",
        ] {
            assert!(insteadish(w), "{w}");
        }
        for w in [
            "inside", "insert", "install", "intend", "instant", "inspect", "instance",
        ] {
            assert!(!insteadish(w), "{w}");
        }
    }

    /// Random clauses for the prefilter tests: output verbs, lead words, joins, "instead"
    /// misspelt, negators, payload signs, quotes, capitals, punctuation of every clause kind,
    /// non-ASCII letters and filler, in either case.
    fn random_texts(rounds: usize, mut each: impl FnMut(&str)) {
        const PIECES: &[&str] = &[
            "reply",
            "Say",
            "PRINT",
            "replying",
            "answers",
            "output",
            "respond",
            "include",
            "just",
            "only",
            "instead",
            "insted",
            "rather",
            "than",
            "then",
            "and",
            "you",
            "must",
            "please",
            "to",
            "not",
            "never",
            "with",
            "the",
            "following",
            "phrase",
            "nothing",
            "else",
            "your",
            "response",
            "ignore",
            "request",
            "OK",
            "\"go\"",
            "`x`",
            "if",
            "asked",
            "user",
            "says",
            "summary",
            "é",
            "ßay",
            "x",
            ",",
            ";",
            ":",
            ".",
            "!",
            " - ",
            " then ",
            "\u{2014}",
            " ",
            " ",
            " ",
            "  ",
            "\n",
            "'",
        ];
        let mut next = crate::lint::rules::xorshift(0x1357_9bdf_2468_ace0_u64);
        let mut text = String::new();
        for _ in 0..rounds {
            text.clear();
            let words = 4 + next(40);
            for _ in 0..words {
                text.push_str(PIECES[next(PIECES.len())]);
                if next(3) > 0 {
                    text.push(' ');
                }
            }
            each(&text);
        }
    }

    #[test]
    fn a_clause_the_prefilter_passes_over_never_takes_the_answer_over() {
        // Every clause of random texts, both ends anywhere (mid-word too), judged word by
        // word and by the prefilter: whenever the words take the answer over, the prefilter
        // let the clause through; and it skips most clauses that hold no act on the output.
        let (mut taken, mut skipped) = (0, 0);
        let mut next = crate::lint::rules::xorshift(0x0f1e_2d3c_4b5a_6978_u64);
        random_texts(2_000, |text| {
            let acts = output_acts(text);
            let ends: Vec<usize> = (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            for _ in 0..60 {
                let (x, y) = (ends[next(ends.len())], ends[next(ends.len())]);
                let (a, b) = (x.min(y), x.max(y));
                let may = may_take_over(text, &(a..b), &acts);
                if takes_over(&text[a..b]) {
                    assert!(may, "{:?}", &text[a..b]);
                    taken += 1;
                } else if !may {
                    skipped += 1;
                }
            }
        });
        assert!(taken > 500 && skipped > 10_000, "{taken} {skipped}");
    }

    #[test]
    fn the_acts_listed_once_are_the_imperatives_a_clause_finds() {
        // The text-wide list agrees with the clause reading on every word of the whole text.
        random_texts(5_000, |text| {
            let lower = text.to_ascii_lowercase();
            let ws = clause_words(&lower);
            let want: Vec<(usize, usize)> = (0..ws.len())
                .filter(|&k| output_verb(ws[k].1) && imperative(&ws, k))
                .map(|k| (ws[k].0, ws[k].0 + ws[k].1.len()))
                .collect();
            assert_eq!(output_acts(text), want, "{text:?}");
        });
    }

    #[test]
    fn every_output_verb_passes_the_shape_filter_in_any_case() {
        for w in OUTPUT_VERBS {
            assert!(is_output_verb(w.as_bytes()), "{w}");
            assert!(is_output_verb(w.to_ascii_uppercase().as_bytes()), "{w}");
        }
        for w in [
            "says",
            "replies",
            "outputs",
            "reply'",
            "r\u{e9}ply",
            "",
            "answered",
        ] {
            assert!(!is_output_verb(w.as_bytes()), "{w}");
        }
    }
}
