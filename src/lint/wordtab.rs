//! The words of a scan's text, found once per scan (issue #13 item 4).
//!
//! Rules that judge a match by the sentence before it (is the reader told to run it? is it
//! negated, reported, set up by a condition?) used to split that sentence into lower-cased
//! words for every match: on a line of one short command repeated, each match read the 400
//! bytes before it, allocating each word, several times over, and a megabyte took seconds.
//! The table holds every word's span, its lower-case form and what the sentence readers
//! ask of it (is it a setting's value? an addressee?), so judging a head costs the words in
//! it, read without copying, and finding them costs a binary search.

use std::sync::OnceLock;

use super::rules::ADDRESSEE;
use super::text::blank_values;

/// The words of a text, in order, with what the head readers ask of them.
#[derive(Debug)]
pub(crate) struct WordTable {
    /// Each word's byte range in the text: a run of alphanumeric characters and apostrophes,
    /// as [`super::text::words`] splits.
    spans: Vec<(usize, usize)>,
    /// The words lower-cased, one after another: word `i` is `lower[offs[i]..offs[i + 1]]`.
    lower: String,
    offs: Vec<usize>,
    /// Whether each word lies in a setting's or an option's value, as
    /// [`super::text::blank_values`] blanks them over the whole text.
    value: Vec<bool>,
    /// The offsets of the text's backticks: a word is in a code span of a stretch when an
    /// odd number of them lie between the stretch's start and the word.
    ticks: Vec<usize>,
    /// The words that may address the reader ([`ADDRESSEE`]) and the "next" of each "next
    /// agent", found on first need.
    addressees: OnceLock<(Vec<usize>, Vec<usize>)>,
    /// Each word's classes for [`super::rules::actions`]' reading of a head (negation,
    /// condition, request, modal), found on first need.
    classes: OnceLock<Vec<u8>>,
    /// For each class mask asked for, and each word, the first word at or after it whose
    /// classes hold a bit of the mask (the count of words past the last): a reader that asks
    /// only about such words steps over the rest (`run` and `go` are classed, but a reader of
    /// reporting verbs need not stop at them).
    classed: [OnceLock<Vec<u32>>; 256],
}

impl WordTable {
    /// Splits `text` into its words: one pass, linear in `text`.
    pub(crate) fn new(text: &str) -> Self {
        let blanked = blank_values(text);
        let blanked = blanked.as_bytes();
        let mut t = Self {
            spans: Vec::new(),
            lower: String::with_capacity(text.len() / 2),
            offs: vec![0],
            value: Vec::new(),
            ticks: memchr::memchr_iter(b'`', text.as_bytes()).collect(),
            addressees: OnceLock::new(),
            classes: OnceLock::new(),
            classed: std::array::from_fn(|_| OnceLock::new()),
        };
        let mut from = None;
        for (i, c) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            let word = c.is_alphanumeric() || c == '\'' || c == '\u{2019}';
            match (from, word) {
                (None, true) => from = Some(i),
                (Some(f), false) => {
                    let w = &text[f..i];
                    if w.is_ascii() {
                        t.lower
                            .extend(w.bytes().map(|b| char::from(b.to_ascii_lowercase())));
                    } else {
                        t.lower.push_str(&w.to_lowercase());
                    }
                    t.offs.push(t.lower.len());
                    t.spans.push((f, i));
                    // blank_values blanks only ASCII bytes, a value's whole run.
                    t.value
                        .push(blanked[f] == b' ' && text.as_bytes()[f] != b' ');
                    from = None;
                }
                _ => {}
            }
        }
        t
    }

    /// The indices of the words that lie wholly in `from..to`.
    pub(crate) fn within(&self, from: usize, to: usize) -> std::ops::Range<usize> {
        let a = self.spans.partition_point(|&(s, _)| s < from);
        let b = self.spans.partition_point(|&(_, e)| e <= to).max(a);
        a..b
    }

    /// The first word that starts at or after `from`.
    pub(crate) fn first_from(&self, from: usize) -> Option<usize> {
        let i = self.spans.partition_point(|&(s, _)| s < from);
        (i < self.spans.len()).then_some(i)
    }

    /// Word `i`, lower-cased.
    pub(crate) fn word(&self, i: usize) -> &str {
        &self.lower[self.offs[i]..self.offs[i + 1]]
    }

    /// Word `i`'s byte range.
    pub(crate) fn span(&self, i: usize) -> (usize, usize) {
        self.spans[i]
    }

    /// The addressee words of the text and the "next" of each "next agent" (the phrase, one
    /// blank between): their indices, in order.
    pub(crate) fn addressees(&self) -> (&[usize], &[usize]) {
        let (words, phrases) = self.addressees.get_or_init(|| {
            let n = self.spans.len();
            let words = (0..n)
                .filter(|&i| ADDRESSEE.contains(&self.word(i)))
                .collect();
            let phrases = (0..n.saturating_sub(1))
                .filter(|&i| {
                    self.word(i).ends_with("next")
                        && self.word(i + 1).starts_with("agent")
                        && self.spans[i].1 + 1 == self.spans[i + 1].0
                })
                .collect();
            (words, phrases)
        });
        (words, phrases)
    }

    /// The classes `classify` gives each word, worked out on the first call: every call must
    /// pass the same function (one reader of heads uses them).
    pub(crate) fn classes(&self, classify: fn(&str) -> u8) -> &[u8] {
        self.classes.get_or_init(|| {
            (0..self.spans.len())
                .map(|i| classify(self.word(i)))
                .collect()
        })
    }

    /// The prose words of `from..to` (see [`WordTable::prose`]) whose class `classify` gives
    /// is not 0, in order: a head of unclassed words (a command repeated on one line) is
    /// stepped over, not read word by word. The same `classify` as [`WordTable::classes`].
    #[cfg(test)]
    pub(crate) fn classed(
        &self,
        from: usize,
        to: usize,
        values: bool,
        classify: fn(&str) -> u8,
    ) -> Prose<'_> {
        self.classed_as(from, to, values, classify, u8::MAX)
    }

    /// [`WordTable::classed`], only the words whose classes hold a bit of `mask`.
    pub(crate) fn classed_as(
        &self,
        from: usize,
        to: usize,
        values: bool,
        classify: fn(&str) -> u8,
        mask: u8,
    ) -> Prose<'_> {
        let skip = self.classed[usize::from(mask)].get_or_init(|| {
            let classes = self.classes(classify);
            let mut next = vec![0u32; classes.len() + 1];
            let mut at = u32::try_from(classes.len()).expect("fewer than 4 G words");
            next[classes.len()] = at;
            for i in (0..classes.len()).rev() {
                if classes[i] & mask != 0 {
                    at = u32::try_from(i).expect("fewer than 4 G words");
                }
                next[i] = at;
            }
            next
        });
        Prose {
            skip: Some(skip),
            ..self.prose(from, to, values)
        }
    }

    /// Whether word `i` is a setting's or an option's value.
    pub(crate) fn is_value(&self, i: usize) -> bool {
        self.value[i]
    }

    /// How many backticks lie in `from..to`.
    pub(crate) fn ticks_in(&self, from: usize, to: usize) -> usize {
        let a = self.ticks.partition_point(|&k| k < from);
        let b = self.ticks.partition_point(|&k| k < to);
        b.saturating_sub(a)
    }

    /// Whether byte `at` lies in a backtick code span of the stretch that starts at `from`
    /// (an unclosed span runs on): what [`blank_code`](super::rules) blanks in it.
    pub(crate) fn in_code(&self, from: usize, at: usize) -> bool {
        self.ticks_in(from, at) % 2 == 1
    }

    /// The words of `from..to` that are prose: outside its code spans (counted from `from`)
    /// and, when `values` is false, outside settings' values: what splitting the stretch with
    /// its code spans (and values) blanked yields, in order.
    pub(crate) fn prose(&self, from: usize, to: usize, values: bool) -> Prose<'_> {
        let r = self.within(from, to);
        let tick = self.ticks.partition_point(|&k| k < from);
        Prose {
            table: self,
            next: r.start,
            end: r.end,
            tick,
            code: false,
            values,
            skip: None,
        }
    }
}

/// The prose words of a stretch (see [`WordTable::prose`]), as indices.
pub(crate) struct Prose<'t> {
    table: &'t WordTable,
    next: usize,
    end: usize,
    /// The first backtick not yet passed, and whether an odd number have been.
    tick: usize,
    code: bool,
    values: bool,
    /// [`WordTable::classed`]'s steps: the next classed word from each word.
    skip: Option<&'t [u32]>,
}

impl Iterator for Prose<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let t = self.table;
        while self.next < self.end {
            if let Some(skip) = self.skip {
                self.next = skip[self.next] as usize;
                if self.next >= self.end {
                    break;
                }
            }
            let i = self.next;
            self.next += 1;
            let (s, _) = t.spans[i];
            while t.ticks.get(self.tick).is_some_and(|&k| k < s) {
                self.code = !self.code;
                self.tick += 1;
            }
            if !self.code && (self.values || !t.value[i]) {
                return Some(i);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prose(text: &str, values: bool) -> Vec<String> {
        let t = WordTable::new(text);
        t.prose(0, text.len(), values)
            .map(|i| t.word(i).to_string())
            .collect()
    }

    #[test]
    fn words_are_split_and_lower_cased_as_the_sentence_readers_split_them() {
        let text = "Don't RUN `dd of=/dev/sda` — Ärger, l’outil";
        let t = WordTable::new(text);
        let all: Vec<&str> = (0..t.spans.len()).map(|i| t.word(i)).collect();
        let split: Vec<String> = super::super::text::words(text).collect();
        assert_eq!(all, split);
    }

    #[test]
    fn prose_leaves_out_code_spans_and_values_as_blanking_them_did() {
        assert_eq!(prose("run `never do this` now", true), ["run", "now"]);
        assert_eq!(
            prose("set approval_policy = \"never\" and go", false),
            ["set", "approval", "policy", "and", "go"]
        );
        assert_eq!(prose("set x = never", true), ["set", "x", "never"]);
        // An unclosed span runs to the end.
        assert_eq!(prose("run `rm -rf / now", true), ["run"]);
    }

    /// The words a mask steps to are the classed words whose classes hold a bit of it, in
    /// order, with the same code spans and values left out.
    #[test]
    fn a_masked_step_reads_the_classed_words_of_its_bits() {
        fn classify(w: &str) -> u8 {
            match w {
                "never" => 1,
                "if" => 2,
                "run" | "go" => 4 | 32,
                "said" => 64,
                "should" => 16 | 64,
                _ => 0,
            }
        }
        let text = "run go said x `never` if should run said = never, go `if said y";
        let t = WordTable::new(text);
        for mask in [1u8, 2, 7, 16, 64, 96, u8::MAX] {
            for from in 0..text.len() {
                for values in [false, true] {
                    let want: Vec<usize> = t
                        .classed(from, text.len(), values, classify)
                        .filter(|&i| t.classes(classify)[i] & mask != 0)
                        .collect();
                    let got: Vec<usize> = t
                        .classed_as(from, text.len(), values, classify, mask)
                        .collect();
                    assert_eq!(got, want, "{mask} from {from}");
                }
            }
        }
    }

    #[test]
    fn a_stretch_counts_its_code_spans_from_its_own_start() {
        let text = "a `b c` d";
        let t = WordTable::new(text);
        // From inside the span, its closing backtick opens one.
        let ws: Vec<&str> = t.prose(3, text.len(), true).map(|i| t.word(i)).collect();
        assert_eq!(ws, ["b", "c"]);
        assert!(t.in_code(0, 3) && !t.in_code(0, 8));
    }
}
