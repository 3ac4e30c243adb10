//! The keyword prefilter: every occurrence of every rule keyword in a lowercased text.
//!
//! An Aho-Corasick automaton over the ~1,200 keywords is a 3.4 MB DFA (a cache miss on most
//! bytes) or a slower NFA, and takes ~1.5 ms to build on every process start, which the
//! pre-commit hook pays each time. Here every position is tested against small bit filters
//! that stay in L1: a hash of the four bytes there against the first four bytes of every
//! keyword of four bytes or more, a hash of the three bytes against the three-byte keywords,
//! and a table of first bytes for the one- and two-byte keywords. Real text passes at a few
//! percent of positions; only there are keywords compared, after a second filter on the first
//! eight bytes for keywords that long, and only those with exactly that prefix. Building the
//! set takes well under a tenth of a millisecond.
//!
//! The result is the same set of (keyword, start, end) triples as an overlapping
//! Aho-Corasick search, in order of start position (the differential test below checks it).

/// Bits of a prefix hash: each filter has `2^16` bits (8 KiB).
const HASH_BITS: u32 = 16;
/// A filter: bit `h` for every hash `h` in it (a fixed size, so indexing needs no check).
type Filter = [u64; 1 << (HASH_BITS - 6)];
/// Bucket slots for the candidate lists: the top bits of the same hash.
const SLOT_BITS: u32 = 12;

/// How many leading bytes of a keyword are hashed, by keyword length (`None`: one or two bytes,
/// found through the first-byte table).
fn prefix_len(len: usize) -> Option<usize> {
    match len {
        0..=2 => None,
        3 => Some(3),
        4..=7 => Some(4),
        _ => Some(8),
    }
}

/// One keyword whose prefix lives in the hashed table.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// The keyword's first 8, 4 or 3 bytes, little-endian.
    key: u64,
    /// `mix(key)`.
    hash: u32,
    keyword: u32,
    /// How many bytes `key` holds.
    prefix: u8,
}

/// A fixed set of lowercase keywords, searched all at once.
#[derive(Debug)]
pub(crate) struct KeywordSet {
    /// Every keyword's bytes, one after the other: keyword `i` is `bytes[ends[i - 1]..ends[i]]`
    /// (one allocation instead of one per keyword: the set is built on every process start).
    bytes: Vec<u8>,
    ends: Vec<u32>,
    /// Bits `mix(first four bytes)` of every keyword of four bytes or more.
    first4: Box<Filter>,
    /// Bits `mix(first eight bytes)` of every keyword of eight bytes or more.
    first8: Box<Filter>,
    /// Bits `mix(keyword)` of every three-byte keyword.
    first3: Box<Filter>,
    /// `entries[slots[s]..slots[s + 1]]` are the entries whose hash falls in slot `s`.
    slots: Box<[u16]>,
    entries: Box<[Entry]>,
    /// Keywords of one or two bytes, by first byte.
    short_first: Box<[bool; 256]>,
    short: Vec<u32>,
}

/// The hash of a (masked) prefix.
#[inline]
fn mix(x: u64) -> u32 {
    #[allow(clippy::cast_possible_truncation, reason = "the top HASH_BITS bits")]
    let h = (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - HASH_BITS)) as u32;
    h
}

/// Bit `h` of a filter.
#[inline]
fn bit(filter: &Filter, h: u32) -> bool {
    // `h` has HASH_BITS bits, so the index is in range (the mask lets the compiler see it).
    filter[(h >> 6) as usize & (filter.len() - 1)] & (1 << (h & 63)) != 0
}

fn set_bit(filter: &mut Filter, h: u32) {
    filter[(h >> 6) as usize & (filter.len() - 1)] |= 1 << (h & 63);
}

/// The eight bytes at `i` as a little-endian `u64`, zero-padded past the end.
fn load(text: &[u8], i: usize) -> u64 {
    let rest = &text[i.min(text.len())..];
    let n = rest.len().min(8);
    let mut b = [0u8; 8];
    b[..n].copy_from_slice(&rest[..n]);
    u64::from_le_bytes(b)
}

/// The low `n` bytes of `x` (`n` ≤ 8).
#[inline]
fn low(x: u64, n: usize) -> u64 {
    if n >= 8 {
        x
    } else {
        x & ((1u64 << (8 * n)) - 1)
    }
}

impl KeywordSet {
    /// A set of non-empty keywords; a keyword's index is its position in `keywords`.
    /// Keywords never contain a NUL byte (the text is zero-padded past its end).
    pub(crate) fn new<S: AsRef<[u8]>>(keywords: &[S]) -> KeywordSet {
        let mut bytes = Vec::with_capacity(keywords.iter().map(|k| k.as_ref().len()).sum());
        let mut ends = Vec::with_capacity(keywords.len());
        let empty = || Box::new([0u64; 1 << (HASH_BITS - 6)]);
        let (mut first3, mut first4, mut first8) = (empty(), empty(), empty());
        let mut short_first = Box::new([false; 256]);
        let mut short = Vec::new();
        let mut entries: Vec<Entry> = Vec::new();
        for (i, k) in keywords.iter().enumerate() {
            let k = k.as_ref();
            bytes.extend_from_slice(k);
            ends.push(u32::try_from(bytes.len()).expect("under 4 GiB of keywords"));
            let keyword = u32::try_from(i).expect("fewer than 2^32 keywords");
            assert!(
                !k.is_empty() && !k.contains(&0),
                "keywords are not empty and hold no NUL"
            );
            let x = load(k, 0);
            let Some(prefix) = prefix_len(k.len()) else {
                short_first[usize::from(k[0])] = true;
                short.push(keyword);
                continue;
            };
            let key = low(x, prefix);
            let hash = mix(key);
            match prefix {
                3 => set_bit(&mut first3, hash),
                4 => set_bit(&mut first4, hash),
                _ => {
                    set_bit(&mut first4, mix(low(x, 4)));
                    set_bit(&mut first8, hash);
                }
            }
            let prefix = u8::try_from(prefix).expect("a prefix of at most 8 bytes");
            entries.push(Entry {
                key,
                hash,
                keyword,
                prefix,
            });
        }
        let slot_of = |e: &Entry| (e.hash >> (HASH_BITS - SLOT_BITS)) as usize;
        entries.sort_by_key(|e| (slot_of(e), e.keyword));
        assert!(
            entries.len() < usize::from(u16::MAX),
            "fewer than 65535 keywords"
        );
        let mut slots = vec![0u16; (1 << SLOT_BITS) + 1].into_boxed_slice();
        for e in &entries {
            slots[slot_of(e) + 1] += 1;
        }
        for s in 1..slots.len() {
            slots[s] += slots[s - 1];
        }
        KeywordSet {
            bytes,
            ends,
            first4,
            first8,
            first3,
            slots,
            entries: entries.into_boxed_slice(),
            short_first,
            short,
        }
    }

    /// Keyword `i`.
    fn keyword(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }

    /// The number of keywords.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Calls `f(keyword, start, end)` for every occurrence of every keyword in `text`
    /// (overlapping occurrences included), in order of `start`. `text` must already be
    /// lowercased as the keywords are.
    pub(crate) fn for_each(&self, text: &[u8], mut f: impl FnMut(usize, usize, usize)) {
        // Every position with eight bytes after it reads them straight from the text; the last
        // seven read a zero-padded copy.
        let body = text.len().saturating_sub(7);
        for (i, w) in text.windows(8).enumerate() {
            let x = u64::from_le_bytes(w.try_into().expect("a window of eight bytes"));
            self.step(text, i, x, &mut f);
        }
        for i in body..text.len() {
            self.step(text, i, load(text, i), &mut f);
        }
    }

    /// Tests position `i` (`x`: the eight bytes there) and reports the keywords that start there.
    #[inline]
    fn step(&self, text: &[u8], i: usize, x: u64, f: &mut impl FnMut(usize, usize, usize)) {
        let (h3, h4) = (mix(low(x, 3)), mix(low(x, 4)));
        #[allow(clippy::cast_possible_truncation, reason = "the first byte")]
        let first = x as u8;
        let (in3, in4) = (bit(&self.first3, h3), bit(&self.first4, h4));
        let short = self.short_first[usize::from(first)];
        if !(in3 | in4 | short) {
            return;
        }
        self.candidates(text, i, x, (in3, in4, short), f);
    }

    /// The slow path of [`Self::step`]: compares the keywords the filters let through.
    #[inline(never)]
    fn candidates(
        &self,
        text: &[u8],
        i: usize,
        x: u64,
        (in3, in4, short): (bool, bool, bool),
        f: &mut impl FnMut(usize, usize, usize),
    ) {
        if in4 {
            let h8 = mix(x);
            if bit(&self.first8, h8) {
                self.verify(text, i, x, h8, 8, f);
            }
            self.verify(text, i, x, mix(low(x, 4)), 4, f);
        }
        if in3 {
            self.verify(text, i, x, mix(low(x, 3)), 3, f);
        }
        if short {
            for &k in &self.short {
                let kw = self.keyword(k as usize);
                if text[i..].starts_with(kw) {
                    f(k as usize, i, i + kw.len());
                }
            }
        }
    }

    /// Reports the keywords with a `prefix`-byte key hashing to `h` that occur at `i` (`x`:
    /// the eight bytes there).
    #[inline]
    fn verify(
        &self,
        text: &[u8],
        i: usize,
        x: u64,
        h: u32,
        prefix: u8,
        f: &mut impl FnMut(usize, usize, usize),
    ) {
        let slot = (h >> (HASH_BITS - SLOT_BITS)) as usize;
        let range = usize::from(self.slots[slot])..usize::from(self.slots[slot + 1]);
        let key = low(x, usize::from(prefix));
        for e in &self.entries[range] {
            if e.hash != h || e.prefix != prefix || e.key != key {
                continue;
            }
            let kw = self.keyword(e.keyword as usize);
            // The prefix matched; compare the rest (keywords are short: no call to memcmp).
            let rest = &text[i..];
            if rest.len() >= kw.len()
                && kw
                    .iter()
                    .zip(rest)
                    .skip(usize::from(prefix))
                    .all(|(a, b)| a == b)
            {
                f(e.keyword as usize, i, i + kw.len());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KeywordSet;
    use aho_corasick::{AhoCorasickBuilder, MatchKind};
    use proptest::prelude::*;

    fn ours(set: &KeywordSet, text: &[u8]) -> Vec<(usize, usize, usize)> {
        let mut v = Vec::new();
        set.for_each(text, |k, s, e| v.push((k, s, e)));
        v
    }

    fn reference(keywords: &[&str], text: &[u8]) -> Vec<(usize, usize, usize)> {
        let ac = AhoCorasickBuilder::new()
            .match_kind(MatchKind::Standard)
            .build(keywords)
            .unwrap();
        let mut v: Vec<_> = ac
            .find_overlapping_iter(text)
            .map(|m| (m.pattern().as_usize(), m.start(), m.end()))
            .collect();
        v.sort_by_key(|&(k, s, _)| (s, k));
        v
    }

    fn sorted(mut v: Vec<(usize, usize, usize)>) -> Vec<(usize, usize, usize)> {
        v.sort_by_key(|&(k, s, _)| (s, k));
        v
    }

    #[test]
    fn finds_every_length_class_overlapping_and_at_the_end() {
        let kws = [
            "@",
            "<|",
            "key",
            "api_key",
            "api",
            "ignore",
            "ignore previous",
            "://",
        ];
        let set = KeywordSet::new(&kws);
        let text = b"@x <| api_key=1 ignore previous https://a.b key";
        assert_eq!(sorted(ours(&set, text)), reference(&kws, text));
        // Starts are reported in order.
        let starts: Vec<usize> = ours(&set, text).iter().map(|m| m.1).collect();
        assert!(starts.windows(2).all(|w| w[0] <= w[1]));
        // A keyword that ends exactly at the end of the text, and one cut short there.
        assert_eq!(ours(&set, b"the key"), vec![(2, 4, 7)]);
        assert!(ours(&set, b"the ke").is_empty());
        assert!(ours(&set, b"").is_empty());
    }

    proptest! {
        #[test]
        fn same_matches_as_aho_corasick(
            kws in prop::collection::vec("[a-e@:/ ]{1,6}", 1..40),
            text in "[a-e@:/ ]{0,200}",
        ) {
            let mut kws = kws;
            kws.sort();
            kws.dedup();
            let refs: Vec<&str> = kws.iter().map(String::as_str).collect();
            let set = KeywordSet::new(&refs);
            prop_assert_eq!(sorted(ours(&set, text.as_bytes())), reference(&refs, text.as_bytes()));
        }
    }
}
