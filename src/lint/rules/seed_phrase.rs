//! Wallet recovery phrases (BIP-39 mnemonics): twelve to twenty-four words of the BIP-39
//! English list, written next to a word that names a seed, a mnemonic or a wallet, or, with
//! nothing naming them, whose BIP-39 checksum holds ([`scan`]). The phrase is the wallet's
//! private key: whoever reads it holds the funds.

use super::super::engine::{Caps, Finding, Scan};
use super::super::registry::SEC001;

/// The BIP-39 English word list (2,048 words, sorted), as published with the BIP-39
/// specification in bitcoin/bips; a format's alphabet, like base64's. Where it comes from and
/// on what terms: NOTICES.md.
const WORDS: &str = include_str!("bip39_english.txt");

/// Whether `w` (lower-case) is a BIP-39 English word.
fn listed(w: &str) -> bool {
    index(w).is_some()
}

/// The fewest and most words of a mnemonic (BIP-39 phrases have 12, 15, 18, 21 or 24).
const FEWEST: usize = 12;
const MOST: usize = 24;

/// The regex's group 1 holds a run of short lower-case words after the seed word: the
/// longest stretch of listed words in it is judged. Twelve to twenty-four listed words in a
/// row, not the same few repeated (`abandon abandon … about` is the specification's test
/// phrase, a stand-in), are a recovery phrase. English prose rarely strings twelve listed
/// words together: the list leaves out the words prose is made of (`the`, `and`, `of`, `to`).
pub(super) fn check(_scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let Some((base, _, text)) = caps.first(&[1]) else {
        return;
    };
    let mut best: Option<(usize, usize, usize)> = None; // (start, end, count)
    let mut run: Option<(usize, usize, usize)> = None;
    let mut words: Vec<&str> = Vec::new();
    let mut best_words: Vec<&str> = Vec::new();
    let mut at = 0;
    for w in text.split([' ', '\t', ',']) {
        let (s, e) = (at, at + w.len());
        at = e + 1;
        if w.is_empty() {
            continue;
        }
        let lower = w.to_ascii_lowercase();
        if listed(&lower) {
            run = Some(run.map_or((s, e, 1), |(rs, _, n)| (rs, e, n + 1)));
            words.push(w);
            if run.is_some_and(|(_, _, n)| best.is_none_or(|(_, _, b)| n > b)) {
                best = run;
                best_words.clone_from(&words);
            }
        } else {
            run = None;
            words.clear();
        }
    }
    let Some((s, e, n)) = best else {
        return;
    };
    if !(FEWEST..=MOST).contains(&n) {
        return;
    }
    let indices: Vec<u16> = best_words
        .iter()
        .filter_map(|w| index(&w.to_ascii_lowercase()))
        .collect();
    if !varied(&indices) {
        return;
    }
    out.push(
        Finding::new(
            &SEC001,
            base + s,
            base + e,
            format!("wallet recovery phrase ({n} BIP-39 words): the wallet's private key"),
        )
        .secret("seed-phrase"),
    );
}

/// A word's letters packed five bits each, left-aligned in a `u64` (`a` = 1, nothing = 0),
/// so packed words sort as the words do; `None` for anything but three to eight lower-case
/// ASCII letters.
fn pack(w: &[u8]) -> Option<u64> {
    if !(3..=8).contains(&w.len()) {
        return None;
    }
    let mut k = 0u64;
    for (i, &c) in w.iter().enumerate() {
        if !c.is_ascii_lowercase() {
            return None;
        }
        k |= u64::from(c - b'a' + 1) << (59 - 5 * i);
    }
    Some(k)
}

/// The list packed, in the list's order (a word's position is its 11-bit value).
fn packed() -> &'static [u64] {
    static PACKED: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    PACKED.get_or_init(|| WORDS.lines().filter_map(|w| pack(w.as_bytes())).collect())
}

/// A word's position in the list (its 11 bits in a mnemonic).
fn index(w: &str) -> Option<u16> {
    let k = pack(w.as_bytes())?;
    packed()
        .binary_search(&k)
        .ok()
        .and_then(|i| u16::try_from(i).ok())
}

/// Not a stand-in or an excerpt of the list: most words distinct (`abandon … about`, the
/// specification's test phrase, repeats one word) and not in the list's own order (a
/// document quoting the list's first entries).
fn varied(indices: &[u16]) -> bool {
    let mut distinct = indices.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.len() * 4 >= indices.len() * 3 && !indices.windows(2).all(|p| p[0] < p[1])
}

/// Whether the words' last bits are the checksum BIP-39 gives them: a mnemonic of `n` words
/// (12, 15, 18, 21 or 24) carries `32n/3` bits of entropy and the first `n/3` bits of the
/// entropy's SHA-256. Eleven bits a word, in order.
fn checksum_holds(indices: &[u16]) -> bool {
    use sha2::Digest;
    let n = indices.len();
    if !(FEWEST..=MOST).contains(&n) || !n.is_multiple_of(3) {
        return false;
    }
    let mut bits = [0u8; 33];
    for (i, &x) in indices.iter().enumerate() {
        for b in 0..11 {
            if x >> (10 - b) & 1 == 1 {
                let at = i * 11 + b;
                bits[at / 8] |= 0x80 >> (at % 8);
            }
        }
    }
    let entropy = n * 32 / 3;
    let cs = n / 3;
    let digest = sha2::Sha256::digest(&bits[..entropy / 8]);
    (0..cs).all(|b| {
        let at = entropy + b;
        (bits[at / 8] >> (7 - at % 8) & 1) == (digest[0] >> (7 - b) & 1)
    })
}

/// Mnemonics written without a word that names them (a line of twelve words in a notes file,
/// a string or an array handed to a wallet library, a numbered list in one or several
/// columns): a run of 12, 15, 18, 21 or 24 words of the list whose checksum holds. One run in
/// sixteen of twelve random listed words passes the checksum by chance, one in 256 of
/// twenty-four; English prose rarely strings twelve listed words together (the list leaves
/// out `the`, `and`, `of`, `to`, `is`), so both are needed. Runs of more than 27 listed words
/// are a word list, not a phrase. One pass over the text; the list is looked up only in runs
/// of twelve or more short lower-case words.
///
/// Placed among the other findings by [`place`].
pub(crate) fn find(scan: &Scan<'_>) -> Vec<Finding> {
    let text = scan.text();
    let b = text.as_bytes();
    let mut run: Vec<(usize, usize)> = Vec::new();
    let mut found: Vec<Finding> = Vec::new();
    let mut at = 0;
    while at < b.len() {
        let end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |i| at + i);
        super::super::steps::add((end - at + 1) as u64);
        words_of_line(text, at, end, &mut run, &mut found);
        at = end + 1;
    }
    judge_run(text, &run, &mut found);
    found
}

/// Adds the phrases [`find`] found to `out`, but none a labelled phrase (SEC001) already
/// covers.
pub(crate) fn place(out: &mut Vec<Finding>, found: Vec<Finding>) {
    super::push_unless_overlapping(out, found, |o| o.rule.id == SEC001.id);
}

/// What separates a mnemonic's words: blanks, commas, quotes, brackets, table bars, the
/// asterisks of emphasis.
fn separator(c: u8) -> bool {
    SEPARATORS[usize::from(c)]
}

/// [`separator`] as a table: the scan reads every byte of the text through it.
const SEPARATORS: [bool; 256] = {
    let mut t = [false; 256];
    let set = b" \t\r,\"'`()[]{};|*";
    let mut k = 0;
    while k < set.len() {
        t[set[k] as usize] = true;
        k += 1;
    }
    t
};

/// The length of the HTML tag at `i` (`<br>`, `<br/>`, `</td>`, `<li>`; at most 16 bytes,
/// letters, digits, `/` and blanks), which separates words as a renderer shows them: a
/// phrase joined by `<br>` or laid out in `<td>` cells is one word a line or a cell (review
/// atk37 #2). Read at a `<` only, a bounded look-ahead.
fn tag(b: &[u8], i: usize, end: usize) -> Option<usize> {
    if b.get(i) != Some(&b'<') {
        return None;
    }
    let inner = b[i + 1..end.min(i + 16)]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'/' | b' '))
        .count();
    let close = i + 1 + inner;
    (inner > 0 && close < end && b[close] == b'>' && b[i + 1] != b' ').then_some(inner + 2)
}

/// A list's number or bullet (`3.`, `12)`, `7:`, `#4`, `-`, `*`, `5`).
fn marker(item: &[u8]) -> bool {
    let digits = item.strip_prefix(b"#").unwrap_or(item);
    let n = digits.iter().take_while(|c| c.is_ascii_digit()).count();
    matches!(item, b"-" | b"*")
        || (1..=2).contains(&n) && matches!(&digits[n..], b"" | b"." | b")" | b":")
}

/// Whether `item`, standing alone between blanks, only joins or lists what is around it: an
/// arrow (`->`, `=>`, `→`), a bullet or a middle dot (`•`, `·`, `∙`), a dash (`–`, `—`). A
/// phrase written `skin • rose • …` or `skin -> rose -> …`, or one word a line after a
/// bullet, is still one run of words.
fn joiner(item: &[u8]) -> bool {
    // →, ⇒, •, –, —, ‣, ·, ∙, ◦ in UTF-8, after the ASCII arrows and dashes.
    matches!(
        item,
        b"->"
            | b"=>"
            | b"-->"
            | b"==>"
            | b"~>"
            | b"--"
            | [0xE2, 0x86 | 0x87, 0x92]
            | [0xE2, 0x80, 0xA2 | 0x93 | 0x94 | 0xA3]
            | [0xC2, 0xB7]
            | [0xE2, 0x88, 0x99]
            | [0xE2, 0x97, 0xA6]
    )
}

/// Reads the line `text[start..end]` into `run`, the run of short words that may go on from
/// earlier lines ([`word_shape`]: any letter case, as a phrase is copied out). A line that
/// starts with a word continues the run of the line before (a phrase one word a line, in
/// columns, or after its label: `Keep these: skin`); any other item ends it, a word that
/// ends a sentence or a label (`word.`, `word:`) closes it after itself, and the parts of an
/// item joined by marks ([`parts`]: `skin-rose`, `m=skin%20rose`) are read one by one
/// (review atk38 #3).
fn words_of_line(
    text: &str,
    start: usize,
    end: usize,
    run: &mut Vec<(usize, usize)>,
    found: &mut Vec<Finding>,
) {
    let b = text.as_bytes();
    let mut i = start;
    let mut first = true;
    while i < end {
        loop {
            if i < end && separator(b[i]) {
                i += 1;
            } else if let Some(n) = tag(b, i, end) {
                i += n;
            } else {
                break;
            }
        }
        let s = i;
        while i < end && !separator(b[i]) && tag(b, i, end).is_none() {
            i += 1;
        }
        if s == i {
            break;
        }
        let item = &b[s..i];
        if matches!(item[0], b'0'..=b'9' | b'#' | b'-' | b'*') && marker(item) || joiner(item) {
            continue;
        }
        // A list's number written against its word (`1.skin`, `2)rose`).
        let numbered = numbered_word(item);
        let s = s + numbered;
        let item = &item[numbered..];
        let closes = matches!(item.last(), Some(b'.' | b':' | b'!' | b'?'));
        let word = &item[..item.len() - usize::from(closes)];
        // Words joined by marks (`skin-rose-…`, `m=skin%20rose…`, `Skin.Rose…`): each part
        // of the item is a word of the phrase or ends the run.
        for (k, (ps, pe)) in parts(word).enumerate() {
            let part = &word[ps..pe];
            let is_word = word_shape(part);
            // Words run together by their capitals (`SkinRoseBike…`, `skinROSEbike…`).
            let run_together =
                !is_word && part.len() > 8 && part.iter().all(u8::is_ascii_alphabetic);
            if first && k == 0 && (closes || !is_word && !run_together) {
                // The line is not a continuation of a list of words: what came before is
                // whole.
                judge_run(text, run, found);
                run.clear();
            }
            if is_word {
                run.push((s + ps, s + pe));
            } else if run_together {
                for (cs, ce) in capital_parts(part) {
                    if word_shape(&part[cs..ce]) {
                        run.push((s + ps + cs, s + ps + ce));
                    } else {
                        judge_run(text, run, found);
                        run.clear();
                    }
                }
            } else {
                judge_run(text, run, found);
                run.clear();
            }
        }
        first = false;
        if closes {
            judge_run(text, run, found);
            run.clear();
        }
    }
}

/// The length of a list's number written against the word after it (`1.`, `12)`, `3:`,
/// `#4.`) at the start of `item`, when letters follow; else 0.
fn numbered_word(item: &[u8]) -> usize {
    let hash = usize::from(item.first() == Some(&b'#'));
    let digits = item[hash..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if !(1..=2).contains(&digits) {
        return 0;
    }
    let at = hash + digits;
    match item.get(at) {
        Some(b'.' | b')' | b':') if item.get(at + 1).is_some_and(u8::is_ascii_alphabetic) => at + 1,
        _ => 0,
    }
}

/// Whether `w` is a word a phrase may hold: three to eight ASCII letters, all lower-case,
/// all capitals or capitalised (`skin`, `SKIN`, `Skin`), as people copy a phrase out.
fn word_shape(w: &[u8]) -> bool {
    (3..=8).contains(&w.len())
        && w.iter().all(u8::is_ascii_alphabetic)
        && (w[1..].iter().all(u8::is_ascii_lowercase) || w.iter().all(u8::is_ascii_uppercase))
}

/// The words of an ASCII-letter `part` run together by their capitals, as offsets in it: a
/// new word starts at a capital after a small letter (`skinRose`) and at a small letter after
/// two or more capitals (`SKINrose`). Linear in the part.
fn capital_parts(part: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= part.len() {
            return None;
        }
        let start = at;
        let mut i = at + 1;
        while i < part.len() {
            let (prev, c) = (part[i - 1], part[i]);
            let upper_run = i >= start + 2 && part[start..i].iter().all(u8::is_ascii_uppercase);
            if prev.is_ascii_lowercase() && c.is_ascii_uppercase()
                || upper_run && c.is_ascii_lowercase()
            {
                break;
            }
            i += 1;
        }
        at = i;
        Some((start, i))
    })
}

/// The length of a mark that joins two words of a phrase written without blanks, at the
/// start of `rest`: `-`, `_`, `.`, `/`, `+`, `:`, `=`, `~`, `&`, `?`, `#`, `@`, `>` (of
/// `->` and `=>`), `%20` and `%2C` as a URL encodes a blank and a comma, and the bullets,
/// middle dots, arrows and dashes [`joiner`] reads between blanks; 0 when none starts there.
fn mark_len(rest: &[u8]) -> usize {
    match rest {
        [
            b'-' | b'_' | b'.' | b'/' | b'+' | b':' | b'=' | b'~' | b'&' | b'?' | b'#' | b'@'
            | b'>',
            ..,
        ] => 1,
        [b'%', b'2', b'0' | b'C' | b'c', ..] => 3,
        [0xC2, 0xB7, ..] => 2,
        [0xE2, b1, b2, ..] if joiner(&[0xE2, *b1, *b2]) => 3,
        _ => 0,
    }
}

/// The bytes a mark of [`mark_len`] may start with.
const MAY_MARK: [bool; 256] = {
    let mut t = [false; 256];
    let set = b"-_./+:=~&?#@>%";
    let mut k = 0;
    while k < set.len() {
        t[set[k] as usize] = true;
        k += 1;
    }
    t[0xC2] = true;
    t[0xE2] = true;
    t
};

/// The parts of `item` between the marks that join a phrase's words in a name, a path, a
/// URL or a query ([`mark_len`]), as offsets in it; the item itself when it holds none.
/// Empty parts (`//`, `->`) are left out. Linear in the item.
fn parts(item: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        while at <= item.len() {
            let start = at;
            let mut i = at;
            let mark_len = loop {
                // Most bytes start no mark: a table says which may.
                while i < item.len() && !MAY_MARK[usize::from(item[i])] {
                    i += 1;
                }
                if i >= item.len() {
                    break 0;
                }
                match mark_len(&item[i..]) {
                    0 => i += 1,
                    n => break n,
                }
            };
            at = if mark_len == 0 {
                item.len() + 1
            } else {
                i + mark_len
            };
            if i > start {
                return Some((start, i));
            }
        }
        None
    })
}

/// Judges a run of short words: its stretches of listed words of 12 to 27 words, by the
/// checksum of the whole stretch when it has a mnemonic's length, else of the longest
/// mnemonic-length stretch at its start or its end.
fn judge_run(text: &str, run: &[(usize, usize)], found: &mut Vec<Finding>) {
    if run.len() < FEWEST {
        return;
    }
    super::super::steps::add(run.len() as u64);
    let mut stretch: Vec<(u16, usize, usize)> = Vec::new();
    for &(s, e) in run.iter().chain(std::iter::once(&(0, 0))) {
        if let Some(x) = (e > s)
            .then(|| index(&text[s..e].to_ascii_lowercase()))
            .flatten()
        {
            stretch.push((x, s, e));
        } else {
            judge_stretch(&stretch, found);
            stretch.clear();
        }
    }
}

fn judge_stretch(stretch: &[(u16, usize, usize)], found: &mut Vec<Finding>) {
    let len = stretch.len();
    if !(FEWEST..=MOST + 3).contains(&len) {
        return;
    }
    let indices: Vec<u16> = stretch.iter().map(|w| w.0).collect();
    for n in (FEWEST..=len.min(MOST)).rev().filter(|n| n % 3 == 0) {
        for from in [0, len - n] {
            let words = &indices[from..from + n];
            if checksum_holds(words) && varied(words) {
                found.push(
                    Finding::new(
                        &SEC001,
                        stretch[from].1,
                        stretch[from + n - 1].2,
                        format!(
                            "wallet recovery phrase ({n} BIP-39 words, checksum valid): the wallet's private key"
                        ),
                    )
                    .secret("seed-phrase"),
                );
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{checksum_holds, index, listed, varied};

    fn indices(phrase: &str) -> Vec<u16> {
        phrase.split(' ').map(|w| index(w).unwrap()).collect()
    }

    #[test]
    fn the_checksum_is_the_entropys_sha256() {
        // Written here from random entropy; and the specification's all-zero entropy phrase.
        for ok in [
            "ceiling distance sound erase reason nice winner timber top hamster excess economy",
            "noodle swing number body about sword unfair measure visit truly rhythm submit major exile game",
            "coil initial elegant excuse buyer core marble tumble pumpkin drip jealous fragile flag biology mammal anger polar discover foil race safe tribe comic over",
            "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
        ] {
            assert!(checksum_holds(&indices(ok)), "{ok}");
        }
        for bad in [
            "refuse setup mansion tiny tomato select endorse grocery verify pitch broom crumble",
            "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon",
            "ceiling distance sound erase reason nice winner timber top hamster excess",
        ] {
            assert!(!checksum_holds(&indices(bad)), "{bad}");
        }
        assert!(!varied(&indices(
            "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
        )));
        assert!(!varied(&indices(
            "abandon ability able about above absent absorb abstract absurd abuse access accident"
        )));
    }

    #[test]
    fn the_list_is_the_specifications() {
        let words: Vec<&str> = super::WORDS.lines().collect();
        assert_eq!(words.len(), 2048);
        assert!(words.windows(2).all(|p| p[0] < p[1]), "sorted, no repeats");
        for w in ["abandon", "zoo", "satoshi", "legal", "winner", "accuse"] {
            assert!(listed(w), "{w}");
        }
        for w in ["the", "and", "zzz", "abandons", "a", "zoology"] {
            assert!(!listed(w), "{w}");
        }
    }
}
