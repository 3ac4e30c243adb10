//! The `o200k_base` pre-tokenizer, written out by hand (issue #14). The reference splits
//! text with a backtracking regex of seven alternatives, the first that matches winning:
//!
//! 1. `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+` + contraction
//! 2. `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*` + contraction
//! 3. `\p{N}{1,3}`
//! 4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
//! 5. `\s*[\r\n]+`
//! 6. `\s+(?!\S)`
//! 7. `\s+`
//!
//! where a contraction is `(?i:'s|'t|'re|'ve|'m|'ll|'d)?`. Compiling that regex cost about
//! 33 M instructions in every process and running it about 900 a byte. Each function below
//! is one alternative, written to give the match backtracking gives: greedy repeats that
//! give back only what the rest of the alternative needs. Every position starts a match,
//! so the pieces tile the text. Each character is looked at a bounded number of times, so
//! splitting is linear.
//!
//! Character classes come from a table `build.rs` lays out from `regex-syntax`'s Unicode
//! tables, the ones the reference's regex engine uses.

/// The table `build.rs` writes: `0x1100` u16 block numbers, then blocks of 256 classes.
static CLASSES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_classes.bin"));
const BLOCKS: usize = 0x1100 * 2;

// Classes, as `build.rs` numbers them.
const OTHER: u8 = 0;
/// `Lu`, `Lt`: upper case only.
const UPPER: u8 = 1;
/// `Ll`: lower case only.
const LOWER: u8 = 2;
/// `Lm`, `Lo`: letters on both sides of the case split.
const LETTER: u8 = 3;
/// `M`: marks, on both sides of the case split but not letters.
const MARK: u8 = 4;
const NUMBER: u8 = 5;
/// White space other than a line break.
const SPACE: u8 = 6;
/// `\r`, `\n`.
const NEWLINE: u8 = 7;

const fn set(classes: &[u8]) -> u8 {
    let mut bits = 0;
    let mut i = 0;
    while i < classes.len() {
        bits |= 1 << classes[i];
        i += 1;
    }
    bits
}

/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`
const UPPERS: u8 = set(&[UPPER, LETTER, MARK]);
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`
const LOWERS: u8 = set(&[LOWER, LETTER, MARK]);
/// `[^\r\n\p{L}\p{N}]`
const PREFIX: u8 = set(&[OTHER, MARK, SPACE]);
/// `[^\s\p{L}\p{N}]`
const SYMBOL: u8 = set(&[OTHER, MARK]);

const fn is(class: u8, set: u8) -> bool {
    (1 << class) & set != 0
}

/// Classes of the ASCII characters, the common case, without the two-level lookup. Unicode's
/// white space in ASCII is tab, line feed, vertical tab, form feed, carriage return, space.
const ASCII: [u8; 128] = {
    let mut t = [OTHER; 128];
    let mut b: u8 = 0;
    while b < 128 {
        t[b as usize] = match b {
            b'\r' | b'\n' => NEWLINE,
            b'\t' | 0x0b | 0x0c | b' ' => SPACE,
            b'A'..=b'Z' => UPPER,
            b'a'..=b'z' => LOWER,
            b'0'..=b'9' => NUMBER,
            _ => OTHER,
        };
        b += 1;
    }
    t
};

/// The class of a code point.
fn class_of(cp: u32) -> u8 {
    let at = (cp >> 8) as usize * 2;
    let block = usize::from(u16::from_le_bytes([CLASSES[at], CLASSES[at + 1]]));
    CLASSES[BLOCKS + (block << 8) + (cp & 0xff) as usize]
}

/// The text being split: UTF-8 bytes, read one character (class and length) at a time.
struct Text<'a>(&'a [u8]);

impl Text<'_> {
    /// The class and byte length of the character at `i`, `None` at the end. `i` is always
    /// on a character boundary.
    #[inline]
    fn at(&self, i: usize) -> Option<(u8, usize)> {
        let b = self.0;
        let x = *b.get(i)?;
        if x < 0x80 {
            return Some((ASCII[usize::from(x)], 1));
        }
        let cont = |k: usize| u32::from(b[i + k] & 0x3f);
        let (cp, len) = if x < 0xe0 {
            ((u32::from(x & 0x1f) << 6) | cont(1), 2)
        } else if x < 0xf0 {
            ((u32::from(x & 0x0f) << 12) | (cont(1) << 6) | cont(2), 3)
        } else {
            (
                (u32::from(x & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
                4,
            )
        };
        Some((class_of(cp), len))
    }

    /// The end of the run of characters in `set` starting at `i`.
    fn run(&self, mut i: usize, set: u8) -> usize {
        while let Some((c, len)) = self.at(i) {
            if !is(c, set) {
                break;
            }
            i += len;
        }
        i
    }

    /// `[Lu Lt Lm Lo M]*[Ll Lm Lo M]+` at `i`. When the upper run is not followed by a
    /// lower character, backtracking gives back upper characters until the last one that
    /// is also lower (`Lm`, `Lo`, `M`), which then makes the lower run alone.
    fn upper_lower(&self, mut i: usize) -> Option<usize> {
        let mut last_lower = None;
        while let Some((c, len)) = self.at(i) {
            if !is(c, UPPERS) {
                if c == LOWER {
                    return Some(self.run(i, LOWERS));
                }
                break;
            }
            i += len;
            if is(c, LOWERS) {
                last_lower = Some(i);
            }
        }
        last_lower
    }

    /// `[Lu Lt Lm Lo M]+[Ll Lm Lo M]*` at `i`.
    fn upper_run(&self, i: usize) -> Option<usize> {
        let end = self.run(i, UPPERS);
        (end > i).then(|| self.run(end, LOWERS))
    }

    /// `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` at `i`. Case folding adds `ſ` (U+017F) to `s`.
    fn contraction(&self, i: usize) -> usize {
        match self.0.get(i..).unwrap_or_default() {
            [
                b'\'',
                b's' | b'S' | b't' | b'T' | b'm' | b'M' | b'd' | b'D',
                ..,
            ] => i + 2,
            [b'\'', 0xc5, 0xbf, ..]
            | [b'\'', b'r' | b'R' | b'v' | b'V', b'e' | b'E', ..]
            | [b'\'', b'l' | b'L', b'l' | b'L', ..] => i + 3,
            _ => i,
        }
    }

    /// The end of the piece that starts at `p` (not the end of the text).
    fn piece(&self, p: usize) -> usize {
        let (c0, len0) = self.at(p).expect("a piece starts before the end");
        let prefixed = is(c0, PREFIX);
        // 1 and 2: letters, optionally after one character that is none of line break,
        // letter, number. The optional character is tried first, each alternative whole.
        let letters = (prefixed.then(|| self.upper_lower(p + len0)).flatten())
            .or_else(|| self.upper_lower(p))
            .or_else(|| prefixed.then(|| self.upper_run(p + len0)).flatten())
            .or_else(|| self.upper_run(p));
        if let Some(end) = letters {
            return self.contraction(end);
        }
        // 3: one to three numbers.
        if c0 == NUMBER {
            let mut end = p + len0;
            for _ in 0..2 {
                match self.at(end) {
                    Some((NUMBER, len)) => end += len,
                    _ => break,
                }
            }
            return end;
        }
        // 4: symbols, optionally after one space, then line breaks and slashes.
        let symbols = if self.0[p] == b' ' { p + 1 } else { p };
        if let Some((c, _)) = self.at(symbols)
            && is(c, SYMBOL)
        {
            let end = self.run(symbols, SYMBOL);
            return end
                + self.0[end..]
                    .iter()
                    .take_while(|&&b| matches!(b, b'\r' | b'\n' | b'/'))
                    .count();
        }
        // Only white space is left: anything else matched above.
        debug_assert!(c0 == SPACE || c0 == NEWLINE);
        let (mut end, mut last, mut after_break) = (p, p, None);
        while let Some((c, len)) = self.at(end) {
            if c == NEWLINE {
                after_break = Some(end + len);
            } else if c != SPACE {
                break;
            }
            last = end;
            end += len;
        }
        // 5: white space up to and including its last line break.
        if let Some(after) = after_break {
            return after;
        }
        // 6: white space not followed by other text: all of it at the end of the text,
        // else all but its last character, which goes with what follows.
        if end < self.0.len() && last > p {
            return last;
        }
        // 7: one white space character before other text.
        end
    }
}

/// The pieces of `text`, as byte ranges that tile it.
pub(super) fn pieces(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let split = Text(text.as_bytes());
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= split.0.len() {
            return None;
        }
        let start = pos;
        pos = split.piece(start);
        Some((start, pos))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy as _;

    /// The pieces the reference's regex finds.
    fn reference(text: &str) -> Vec<(usize, usize)> {
        use std::sync::LazyLock;
        static RE: LazyLock<fancy_regex::Regex> = LazyLock::new(|| {
            fancy_regex::Regex::new(tiktoken_rs::O200K_BASE_PAT_STR).expect("valid")
        });
        RE.find_iter(text)
            .map(|m| {
                let m = m.expect("no backtrack limit on these inputs");
                (m.start(), m.end())
            })
            .collect()
    }

    fn assert_same_pieces(text: &str) {
        let ours: Vec<_> = pieces(text).collect();
        let theirs = reference(text);
        if ours != theirs {
            let show =
                |v: &[(usize, usize)]| v.iter().map(|&(s, e)| &text[s..e]).collect::<Vec<_>>();
            panic!(
                "pieces differ for {text:?}\n ours: {:?}\n ref:  {:?}",
                show(&ours),
                show(&theirs)
            );
        }
    }

    #[test]
    fn the_classes_are_the_regex_engines() {
        let check = |pattern: &str, wanted: &[u8]| {
            let re = regex::Regex::new(&format!("^{pattern}$")).expect("valid");
            for cp in (0..0x11_0000u32).step_by(3) {
                let Some(ch) = char::from_u32(cp) else {
                    continue;
                };
                let mut buf = [0; 4];
                assert_eq!(
                    re.is_match(ch.encode_utf8(&mut buf)),
                    wanted.contains(&class_of(cp)),
                    "{pattern} on U+{cp:04X}"
                );
            }
        };
        check(r"\p{L}", &[UPPER, LOWER, LETTER]);
        check(r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", &[UPPER, LETTER, MARK]);
        check(r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", &[LOWER, LETTER, MARK]);
        check(r"\p{N}", &[NUMBER]);
        check(r"\s", &[SPACE, NEWLINE]);
        check(r"[^\r\n\p{L}\p{N}]", &[OTHER, MARK, SPACE]);
    }

    #[test]
    fn the_ascii_classes_are_the_tables() {
        for b in 0..128u8 {
            assert_eq!(ASCII[usize::from(b)], class_of(u32::from(b)), "{b:#x}");
        }
    }

    #[test]
    fn contractions_fold_case_as_the_regex_does() {
        let re = regex::Regex::new("^(?i:'s|'t|'re|'ve|'m|'ll|'d)").expect("valid");
        for a in ('\0'..='\u{2fff}').filter(|c| !c.is_control()) {
            for b in ['e', 'E', 'l', 'L', 'x'] {
                let s = format!("'{a}{b}");
                let ours = Text(s.as_bytes()).contraction(0);
                let theirs = re.find(&s).map_or(0, |m| m.end());
                assert_eq!(ours, theirs, "{s:?}");
            }
        }
    }

    #[test]
    fn pieces_match_the_reference_regex() {
        for text in [
            "",
            "Hello world",
            "  \t\n\n   whitespace   runs\n\n\n",
            "   ",
            " x",
            "a \u{3000}b\u{a0}\u{a0}c",
            "don't CAN'T I'LL we'Ve it'ſ 12345 6789012 3.14159",
            "ABCdef DEFgh ǅungla İstanbul ʰʰAʰ AʰA",
            "\u{301}abc \u{301}ABC \u{301}! \u{301}\u{301}",
            "x\u{301}Y\u{301} a\u{64b}b",
            "path/to//file/\n/\r\n//x",
            "...\n\n  \r\n \t",
            "٠١٢٣٤ 12a3 ½¼ Ⅻ",
            "日本語のテキストと emoji 🎉🚀👍🏽 and",
            "<|endoftext|> \u{2028}\u{2029}\u{85}x",
            "'s 's ' s\n's",
        ] {
            assert_same_pieces(text);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        #[test]
        fn pieces_match_the_reference_on_mixed_text(
            parts in proptest::collection::vec(proptest::prop_oneof![
                "[a-zA-Z]{1,6}",
                "[0-9]{1,5}",
                "[ \t]{1,3}",
                "\r?\n{1,2}",
                "[.,;:!?'\"/()<>|-]{1,3}",
                "'(s|S|t|re|RE|ve|m|ll|lL|d|ſ|x)",
                "[\u{a0}\u{2003}\u{3000}\u{85}\u{2028}\u{b}\u{c}]",
                "[éÉßǅİıẞʰˇ]",
                "[\u{300}\u{301}\u{64b}\u{20dd}\u{903}]",
                "[日本語中文かなカナ]{1,3}",
                "[🎉🚀👍🏽]",
                "[٠-٩½Ⅻ²]",
                proptest::char::any().prop_map(String::from),
            ], 0..24)
        ) {
            let text: String = parts.concat();
            let ours: Vec<_> = pieces(&text).collect();
            proptest::prop_assert_eq!(ours, reference(&text), "{:?}", text);
        }
    }

    #[test]
    fn pieces_match_the_reference_on_the_corpora() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut seen = 0;
        let mut dirs = vec![root.join("tests/corpora"), root.join("templates")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("corpus directory") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if let Ok(text) = std::fs::read_to_string(&path) {
                    assert_eq!(
                        pieces(&text).collect::<Vec<_>>(),
                        reference(&text),
                        "{}",
                        path.display()
                    );
                    seen += 1;
                }
            }
        }
        assert!(seen > 50, "only {seen} corpus files");
    }
}
