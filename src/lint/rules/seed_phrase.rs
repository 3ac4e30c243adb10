//! Wallet recovery phrases (BIP-39 mnemonics): twelve to twenty-four words of the BIP-39
//! English list written next to a word that names a seed, a mnemonic or a wallet. The phrase
//! is the wallet's private key: whoever reads it holds the funds.

use super::super::engine::{Caps, Finding, Scan};
use super::super::registry::SEC001;

/// The BIP-39 English word list (2,048 words, sorted), as published with the BIP-39
/// specification in bitcoin/bips; a format's alphabet, like base64's.
const WORDS: &str = include_str!("bip39_english.txt");

/// Whether `w` (lower-case) is a BIP-39 English word.
fn listed(w: &str) -> bool {
    // The list is sorted and has no word shorter than three letters or longer than eight.
    if !(3..=8).contains(&w.len()) {
        return false;
    }
    let mut lo = 0;
    let mut hi = WORDS.len();
    // Binary search over the newline-separated text: land on a line start, compare.
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let start = WORDS[..mid].rfind('\n').map_or(0, |i| i + 1);
        let end = WORDS[start..].find('\n').map_or(WORDS.len(), |i| start + i);
        match WORDS[start..end].cmp(w) {
            std::cmp::Ordering::Equal => return true,
            std::cmp::Ordering::Less => lo = end + 1,
            std::cmp::Ordering::Greater => hi = start,
        }
    }
    false
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
    let mut distinct: Vec<String> = best_words.iter().map(|w| w.to_ascii_lowercase()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() * 4 < n * 3 {
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

#[cfg(test)]
mod tests {
    use super::listed;

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
