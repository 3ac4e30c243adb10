//! The keyword prefilter: every occurrence of every rule keyword in a lowercased text.
//!
//! An Aho-Corasick automaton over the ~1,200 keywords is a 3.4 MB DFA (a cache miss on most
//! bytes) or a slower NFA, and takes ~1.5 ms to build on every process start, which the
//! pre-commit hook pays each time. Here the text is read at every second byte only, in the
//! manner of Wu and Manber's multi-pattern search (the crate forbids `unsafe`, so no SIMD:
//! sampling half the positions is how this pass goes faster):
//!
//! - a keyword of five bytes or more covers a sampled position wherever it occurs, at an
//!   offset of the same parity as its start. For each parity it registers one four-byte
//!   *gram* at such an offset (the least common-looking one), and a sampled position whose
//!   four bytes are in a bit filter of those grams is compared with the keywords that
//!   registered them, at the start their offset implies;
//! - a four-byte keyword does the same with its first three bytes and its last three;
//! - a keyword of one to three bytes registers the byte pairs a sampled position holds when
//!   the keyword starts there or next to it, in a bit table indexed by the pair itself.
//!
//! Each occurrence is checked from exactly one sampled position, so it is reported once. The
//! filters are 8 KiB each and stay in L1; real text passes them at about one sampled position
//! in ten (~31,000 of ~290,000 over the 0.58 MB of negative corpora). The tables are plain
//! data: [`KeywordStore`] builds them, and the linter's own are built ahead of time and
//! compiled in as `static` arrays (`src/lint/engine.rs`), so no process start pays for them.
//!
//! The result is the same set of (keyword, start, end) triples as an overlapping
//! Aho-Corasick search (the differential test below checks it), in no particular order.

/// Bits of a filter index: each filter has `2^16` bits (8 KiB).
const HASH_BITS: u32 = 16;
/// A bit set over 16-bit indices (a fixed size, so indexing needs no check).
pub(crate) type Filter = [u64; 1 << (HASH_BITS - 6)];
/// Bucket slots for the gram entries: the top bits of the gram hash.
const SLOT_BITS: u32 = 11;
/// The number of bucket slots.
const SLOTS: usize = 1 << SLOT_BITS;

/// A keyword's gram, registered for the starts of one parity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The gram's bytes, little-endian.
    gram: u32,
    /// Where the keyword's bytes are in [`KeywordSet::bytes`].
    at: u32,
    keyword: u16,
    /// Where the gram lies in the keyword.
    offset: u8,
    len: u8,
}

/// An entry, as the generated tables write it ([`KeywordStore::render`]).
pub(crate) const fn entry(gram: u32, at: u32, keyword: u16, offset: u8, len: u8) -> Entry {
    Entry {
        gram,
        at,
        keyword,
        offset,
        len,
    }
}

/// The grams of one width: a filter and the entries behind it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Grams<'a> {
    /// Bits `mix(gram)` of every registered gram.
    filter: &'a Filter,
    /// `entries[slots[s]..slots[s + 1]]` are the entries whose gram hash falls in slot `s`.
    slots: &'a [u16; SLOTS + 1],
    entries: &'a [Entry],
}

/// A fixed set of lowercase keywords, searched all at once. It borrows its tables: the
/// linter's own are generated ahead of time and are `static` data (see
/// `src/lint/engine.rs`), so no process builds them; [`KeywordStore`] builds them at run time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeywordSet<'a> {
    /// Every keyword's bytes, one after the other; entries point into it.
    bytes: &'a [u8],
    /// Four-byte grams of the keywords of five bytes or more.
    four: Grams<'a>,
    /// Three-byte grams of the four-byte keywords.
    three: Grams<'a>,
    /// Bit `a | b << 8` for every byte pair `a b` at a sampled position that may own an
    /// occurrence of a keyword of one to three bytes.
    pairs: &'a Filter,
    /// Those keywords by first byte: `short[short_at[b]..short_at[b + 1]]`.
    short_at: &'a [u16; 257],
    short: &'a [Entry],
}

/// The tables of one gram width, owned.
#[derive(Debug)]
struct GramStore {
    filter: Box<Filter>,
    slots: Box<[u16; SLOTS + 1]>,
    entries: Box<[Entry]>,
}

/// A keyword set's tables built at run time; [`KeywordStore::set`] searches with them.
#[derive(Debug)]
pub(crate) struct KeywordStore {
    bytes: Vec<u8>,
    four: GramStore,
    three: GramStore,
    pairs: Box<Filter>,
    short_at: Box<[u16; 257]>,
    short: Box<[Entry]>,
}

/// The hash of a gram.
#[inline]
fn mix(x: u32) -> u32 {
    #[allow(clippy::cast_possible_truncation, reason = "the top HASH_BITS bits")]
    let h = (u64::from(x).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - HASH_BITS)) as u32;
    h
}

/// Bit `h` of a filter.
#[inline]
fn bit(filter: &Filter, h: u32) -> bool {
    masked(filter, h) != 0
}

/// The word of a filter that holds bit `h`, with its other bits cleared.
#[inline]
fn masked(filter: &Filter, h: u32) -> u64 {
    // `h` has HASH_BITS bits, so the index is in range (the mask lets the compiler see it).
    filter[(h >> 6) as usize & (filter.len() - 1)] & (1 << (h & 63))
}

fn set_bit(filter: &mut Filter, h: u32) {
    filter[(h >> 6) as usize & (filter.len() - 1)] |= 1 << (h & 63);
}

/// The four bytes at `i` as a little-endian `u32`, zero-padded past the end.
fn load(text: &[u8], i: usize) -> u32 {
    let rest = &text[i.min(text.len())..];
    let n = rest.len().min(4);
    let mut b = [0u8; 4];
    b[..n].copy_from_slice(&rest[..n]);
    u32::from_le_bytes(b)
}

/// English letters from the most frequent to the least.
const BY_FREQUENCY: &[u8; 26] = b"etaoinsrhldcumfpgwybvkxjqz";
/// Trigrams that ordinary text is full of: the commonest in English prose, then the ones
/// developer Markdown repeats (URLs, `github`, `config`, `commit`, `check`, the handoff's
/// own words). A gram holding one makes a poor filter.
const COMMON: [&[u8; 3]; 121] = [
    b"the", b"and", b"ing", b"ion", b"tio", b"ent", b"ati", b"for", b"her", b"ter", b"hat", b"tha",
    b"ere", b"ate", b"his", b"con", b"res", b"ver", b"all", b"ons", b"nce", b"men", b"ith", b"ted",
    b"ers", b"pro", b"thi", b"wit", b"are", b"ess", b"not", b"ive", b"was", b"ect", b"rea", b"com",
    b"eve", b"per", b"int", b"est", b"htt", b"ttp", b"tps", b"git", b"hub", b"onf", b"nfi", b"fig",
    b"omm", b"mmi", b"mit", b"che", b"eck", b"wor", b"ork", b"por", b"ort", b"abl", b"ble", b"tur",
    b"ure", b"tas", b"ask", b"scr", b"cri", b"rip", b"ipt", b"tes", b"fil", b"ile", b"cod", b"ode",
    b"dat", b"ata", b"use", b"ser", b"aah", b"ahp", b"han", b"ndo", b"dof", b"off", b"err", b"rro",
    b"ror", b"now", b"add", b"rev", b"evi", b"vie", b"iew", b"ran", b"nch", b"mpl", b"ple", b"req",
    b"equ", b"ues", b"bra", b"fea", b"eat", b"fix", b"upd", b"pda", b"cha", b"ang", b"nge", b"log",
    b"run", b"bui", b"uil", b"ild", b"ase", b"rel", b"lea", b"ele", b"sta", b"tat", b"mai", b"ain",
    b"ult",
];

/// How rare each byte is in prose: a letter by its frequency rank, digits and punctuation
/// rarer than most letters, a space very common (built at compile time: the keyword set is
/// built on every process start).
const RARITY: [i8; 256] = {
    let mut t = [8i8; 256];
    let mut d = b'0';
    while d <= b'9' {
        t[d as usize] = 12;
        d += 1;
    }
    t[b' ' as usize] = -10;
    let mut i = 0;
    while i < BY_FREQUENCY.len() {
        #[allow(clippy::cast_possible_truncation, reason = "a rank under 26")]
        let rank = i as i8;
        t[BY_FREQUENCY[i] as usize] = rank;
        i += 1;
    }
    t
};

/// The index of a trigram of lowercase letters among all `26^3`.
const fn trigram(a: u8, b: u8, c: u8) -> usize {
    ((a - b'a') as usize * 26 + (b - b'a') as usize) * 26 + (c - b'a') as usize
}

/// Bit `trigram(..)` of every trigram in [`COMMON`].
const COMMON_BITS: [u64; 26 * 26 * 26 / 64 + 1] = {
    let mut t = [0u64; 26 * 26 * 26 / 64 + 1];
    let mut i = 0;
    while i < COMMON.len() {
        let [a, b, c] = *COMMON[i];
        let n = trigram(a, b, c);
        t[n / 64] |= 1 << (n % 64);
        i += 1;
    }
    t
};

/// Where a keyword of five bytes or more registers its four-byte gram for the starts of
/// each parity: the gram least likely to turn up in ordinary prose, since each sampled
/// position holding a registered gram costs a comparison. A gram's score is the sum of its
/// bytes' [`RARITY`], far lower when it holds one of the commonest English trigrams; of equal
/// scores the last wins. One pass over the keyword.
fn best_grams(k: &[u8]) -> [usize; 2] {
    debug_assert!(k.len() >= 5);
    let r = |i: usize| i32::from(RARITY[usize::from(k[i])]);
    let common = |i: usize| {
        let w = &k[i..i + 3];
        w.iter().all(u8::is_ascii_lowercase) && {
            let n = trigram(w[0], w[1], w[2]);
            COMMON_BITS[n / 64] & (1 << (n % 64)) != 0
        }
    };
    let mut best = [(i32::MIN, 0usize); 2];
    let mut sum = r(0) + r(1) + r(2) + r(3);
    let mut here = common(0);
    for o in 0..=k.len() - 4 {
        if o > 0 {
            sum += r(o + 3) - r(o - 1);
        }
        let next = common(o + 1);
        let score = sum - if here || next { 100 } else { 0 };
        let slot = &mut best[o & 1];
        if score >= slot.0 {
            *slot = (score, o);
        }
        here = next;
    }
    [best[0].1, best[1].1]
}

impl GramStore {
    fn new(entries: Vec<Entry>) -> GramStore {
        let mut filter = Box::new([0u64; 1 << (HASH_BITS - 6)]);
        for e in &entries {
            set_bit(&mut filter, mix(e.gram));
        }
        assert!(
            entries.len() < usize::from(u16::MAX),
            "fewer than 32767 keywords"
        );
        // Entries grouped by slot with a counting sort; within a slot, entries keep their
        // order (keyword order).
        let slot_of = |e: &Entry| (mix(e.gram) >> (HASH_BITS - SLOT_BITS)) as usize;
        let mut slots = Box::new([0u16; SLOTS + 1]);
        for e in &entries {
            slots[slot_of(e) + 1] += 1;
        }
        for s in 1..slots.len() {
            slots[s] += slots[s - 1];
        }
        let mut next: Vec<u16> = slots[..SLOTS].to_vec();
        let mut grouped = vec![entry(0, 0, 0, 0, 0); entries.len()];
        for e in entries {
            let n = &mut next[slot_of(&e)];
            grouped[usize::from(*n)] = e;
            *n += 1;
        }
        GramStore {
            filter,
            slots,
            entries: grouped.into_boxed_slice(),
        }
    }

    fn grams(&self) -> Grams<'_> {
        Grams {
            filter: &self.filter,
            slots: &self.slots,
            entries: self.entries.as_ref(),
        }
    }
}

impl Grams<'_> {
    /// Whether a gram hashing to `h` may be registered.
    #[inline]
    fn may_hold(&self, h: u32) -> bool {
        bit(self.filter, h)
    }

    /// Reports the keywords that registered `gram` (hash `h`) and occur where it implies,
    /// sampled position `p` being in them.
    #[inline]
    fn report(
        &self,
        bytes: &[u8],
        text: &[u8],
        p: usize,
        (gram, h): (u32, u32),
        f: &mut impl FnMut(usize, usize, usize),
    ) {
        let slot = (h >> (HASH_BITS - SLOT_BITS)) as usize;
        let range = usize::from(self.slots[slot])..usize::from(self.slots[slot + 1]);
        for e in &self.entries[range] {
            if e.gram == gram {
                check(bytes, text, p.wrapping_sub(usize::from(e.offset)), e, f);
            }
        }
    }
}

/// Reports entry `e`'s keyword if it occurs at `start` (`usize::MAX` and the like: it cannot).
/// Inlined into the loops over candidates, the caller's callback kept out of line
/// ([`found`]): most candidates do not match, and a call that saved and restored the
/// registers of the callback (the linter's, with its gates) for each of them cost more than
/// the comparison.
#[allow(
    clippy::inline_always,
    reason = "left to itself the compiler calls it: measured, 57 M instructions more on a line of `password=`"
)]
#[inline(always)]
fn check(
    bytes: &[u8],
    text: &[u8],
    start: usize,
    e: &Entry,
    f: &mut impl FnMut(usize, usize, usize),
) {
    let len = usize::from(e.len);
    let Some(there) = text.get(start..start.wrapping_add(len)) else {
        return;
    };
    let kw = &bytes[e.at as usize..e.at as usize + len];
    if same_bytes(kw, there) {
        found(f, usize::from(e.keyword), start, start + len);
    }
}

/// Calls `f` for an occurrence [`check`] found.
#[inline(never)]
fn found(f: &mut impl FnMut(usize, usize, usize), keyword: usize, start: usize, end: usize) {
    f(keyword, start, end);
}

/// Whether two slices of the same length hold the same bytes. Keywords are short, and a
/// text dense with one keyword's grams (`password=` repeated) sends its occurrences to
/// dozens of keywords that share a gram: the bytes are compared as one or two overlapping
/// words, the first and the last of the slice, not a byte at a time (nor by a call to
/// memcmp, for a few bytes).
#[allow(
    clippy::inline_always,
    reason = "left to itself the compiler calls it, at every candidate of the keyword pass"
)]
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    debug_assert_eq!(a.len(), b.len());
    let n = a.len();
    let word = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"));
    let half = |s: &[u8], i: usize| u32::from_le_bytes(s[i..i + 4].try_into().expect("4 bytes"));
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n - 1] == b[n - 1] && a[n / 2] == b[n / 2],
        4..=8 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        9..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => word(a, 0) == word(b, 0) && a[8..] == b[8..],
    }
}

impl KeywordStore {
    /// A set of non-empty keywords; a keyword's index is its position in `keywords`.
    /// Keywords never contain a NUL byte (the text is zero-padded past its end).
    pub(crate) fn new<S: AsRef<[u8]>>(keywords: &[S]) -> KeywordStore {
        let mut bytes = Vec::with_capacity(keywords.iter().map(|k| k.as_ref().len()).sum());
        let mut pairs = Box::new([0u64; 1 << (HASH_BITS - 6)]);
        let (mut four, mut three, mut short) = (Vec::new(), Vec::new(), Vec::new());
        for (i, k) in keywords.iter().enumerate() {
            let k = k.as_ref();
            assert!(
                !k.is_empty() && !k.contains(&0),
                "keywords are not empty and hold no NUL"
            );
            let entry = |offset: usize, width: usize| Entry {
                gram: load(&k[offset..offset + width], 0),
                at: u32::try_from(bytes.len()).expect("under 4 GiB of keywords"),
                keyword: u16::try_from(i).expect("fewer than 65536 keywords"),
                offset: u8::try_from(offset).expect("keywords under 256 bytes"),
                len: u8::try_from(k.len()).expect("keywords under 256 bytes"),
            };
            let pair = |a: u8, b: u8| u32::from(a) | u32::from(b) << 8;
            match *k {
                // Owned by the sampled position at its start (even) or the one after (odd):
                // the pair there is its first two bytes or its last two.
                [a, b, c] => {
                    set_bit(&mut pairs, pair(a, b));
                    set_bit(&mut pairs, pair(b, c));
                    short.push(entry(0, 0));
                }
                // Owned by its start or the position before: the pair there is the keyword,
                // or any byte and its first.
                [a, b] => {
                    set_bit(&mut pairs, pair(a, b));
                    for c in 0..=255 {
                        set_bit(&mut pairs, pair(c, a));
                    }
                    short.push(entry(0, 0));
                }
                [a] => {
                    for c in 0..=255 {
                        set_bit(&mut pairs, pair(a, c));
                        set_bit(&mut pairs, pair(c, a));
                    }
                    short.push(entry(0, 0));
                }
                [_, _, _, _] => {
                    three.push(entry(0, 3));
                    three.push(entry(1, 3));
                }
                _ => {
                    for offset in best_grams(k) {
                        four.push(entry(offset, 4));
                    }
                }
            }
            bytes.extend_from_slice(k);
        }
        short.sort_unstable_by_key(|e| (bytes[e.at as usize], e.keyword));
        let mut short_at = Box::new([0u16; 257]);
        for e in &short {
            short_at[usize::from(bytes[e.at as usize]) + 1] += 1;
        }
        for b in 1..short_at.len() {
            short_at[b] += short_at[b - 1];
        }
        KeywordStore {
            bytes,
            four: GramStore::new(four),
            three: GramStore::new(three),
            pairs,
            short_at,
            short: short.into_boxed_slice(),
        }
    }

    /// The set, searching with these tables.
    pub(crate) fn set(&self) -> KeywordSet<'_> {
        KeywordSet {
            bytes: &self.bytes,
            four: self.four.grams(),
            three: self.three.grams(),
            pairs: &self.pairs,
            short_at: &self.short_at,
            short: &self.short,
        }
    }

    /// The set for the rest of the process: the tables are never freed.
    pub(crate) fn leak(self) -> KeywordSet<'static> {
        let store: &'static KeywordStore = Box::leak(Box::new(self));
        store.set()
    }

    #[cfg(test)]
    /// Rust items that define `static` tables of this set, named `{prefix}_…`, and
    /// `{prefix}: KeywordSet<'static>` over them (the engine's generated tables).
    pub(crate) fn render(&self, prefix: &str, out: &mut String) {
        use std::fmt::Write as _;
        let list = |out: &mut String, name: &str, ty: &str, items: Vec<String>| {
            render_static(out, &format!("{prefix}_{name}"), ty, &items);
        };
        let hex = |f: &Filter| f.iter().map(|x| format!("{x:#x}")).collect();
        let entries = |v: &[Entry]| {
            v.iter()
                .map(|e| {
                    format!(
                        "entry({:#x}, {}, {}, {}, {})",
                        e.gram, e.at, e.keyword, e.offset, e.len
                    )
                })
                .collect()
        };
        let _ = write!(
            out,
            "static {prefix}_BYTES: [u8; {}] = *b\"",
            self.bytes.len()
        );
        for &b in &self.bytes {
            match b {
                b'"' | b'\\' => {
                    out.push('\\');
                    out.push(char::from(b));
                }
                0x20..=0x7e => out.push(char::from(b)),
                _ => {
                    let _ = write!(out, "\\x{b:02x}");
                }
            }
        }
        out.push_str("\";\n");
        for (name, g) in [("FOUR", &self.four), ("THREE", &self.three)] {
            list(out, &format!("{name}_FILTER"), "Filter", hex(&g.filter));
            list(
                out,
                &format!("{name}_SLOTS"),
                &format!("[u16; {}]", SLOTS + 1),
                g.slots.iter().map(u16::to_string).collect(),
            );
            list(
                out,
                &format!("{name}_ENTRIES"),
                &format!("[Entry; {}]", g.entries.len()),
                entries(&g.entries),
            );
        }
        list(out, "PAIRS", "Filter", hex(&self.pairs));
        list(
            out,
            "SHORT_AT",
            "[u16; 257]",
            self.short_at.iter().map(u16::to_string).collect(),
        );
        list(
            out,
            "SHORT",
            &format!("[Entry; {}]", self.short.len()),
            entries(&self.short),
        );
        let _ = writeln!(
            out,
            "pub(super) static {prefix}: KeywordSet<'static> = KeywordSet::from_parts(\n    \
             &{prefix}_BYTES,\n    \
             (&{prefix}_FOUR_FILTER, &{prefix}_FOUR_SLOTS, &{prefix}_FOUR_ENTRIES),\n    \
             (&{prefix}_THREE_FILTER, &{prefix}_THREE_SLOTS, &{prefix}_THREE_ENTRIES),\n    \
             &{prefix}_PAIRS,\n    \
             &{prefix}_SHORT_AT,\n    \
             &{prefix}_SHORT,\n\
             );"
        );
    }
}

/// Writes `static NAME: TY = [items…];`, eight items a line.
#[cfg(test)]
pub(crate) fn render_static(out: &mut String, name: &str, ty: &str, items: &[String]) {
    use std::fmt::Write as _;
    let _ = write!(out, "static {name}: {ty} = [");
    for (i, item) in items.iter().enumerate() {
        out.push_str(if i % 8 == 0 { "\n    " } else { " " });
        out.push_str(item);
        out.push(',');
    }
    out.push_str("\n];\n");
}

/// The parts of one gram width: filter, slots, entries.
pub(crate) type GramParts<'a> = (&'a Filter, &'a [u16; SLOTS + 1], &'a [Entry]);

impl<'a> KeywordSet<'a> {
    /// A set over tables written by [`KeywordStore::render`].
    pub(crate) const fn from_parts(
        bytes: &'a [u8],
        four: GramParts<'a>,
        three: GramParts<'a>,
        pairs: &'a Filter,
        short_at: &'a [u16; 257],
        short: &'a [Entry],
    ) -> KeywordSet<'a> {
        KeywordSet {
            bytes,
            four: Grams {
                filter: four.0,
                slots: four.1,
                entries: four.2,
            },
            three: Grams {
                filter: three.0,
                slots: three.1,
                entries: three.2,
            },
            pairs,
            short_at,
            short,
        }
    }

    /// Calls `f(keyword, start, end)` for every occurrence of every keyword in `text`
    /// (overlapping occurrences included), in no particular order. `text` must already be
    /// lowercased as the keywords are.
    pub(crate) fn for_each(&self, text: &[u8], mut f: impl FnMut(usize, usize, usize)) {
        let mut p = 0;
        // Four sampled positions a round, read from one 8-byte word and the two bytes after
        // it, with one branch for the four (about two rounds in three have no candidate).
        while let Some(round) = text.get(p..p + 10) {
            let w = u64::from_le_bytes(round[..8].try_into().expect("eight bytes"));
            let next = u64::from(round[8]) | u64::from(round[9]) << 8;
            #[allow(
                clippy::cast_possible_truncation,
                reason = "four bytes of the word each"
            )]
            let xs = [
                w as u32,
                (w >> 16) as u32,
                (w >> 32) as u32,
                (w >> 48 | next << 16) as u32,
            ];
            let hits = [
                self.hits(xs[0]),
                self.hits(xs[1]),
                self.hits(xs[2]),
                self.hits(xs[3]),
            ];
            if hits[0] | hits[1] | hits[2] | hits[3] != 0 {
                for k in 0..4 {
                    if hits[k] != 0 {
                        self.candidates(text, p + 2 * k, xs[k], &mut f);
                    }
                }
            }
            p += 8;
        }
        // The last few positions read a zero-padded copy.
        while p < text.len() {
            let x = load(text, p);
            let hits = self.hits(x);
            if hits != 0 {
                self.candidates(text, p, x, &mut f);
            }
            p += 2;
        }
    }

    /// Tests the four bytes `x` at a sampled position against the filters: not zero when
    /// one of them may hold them (the OR of the filter words, each masked to its bit).
    #[inline]
    fn hits(&self, x: u32) -> u64 {
        masked(self.four.filter, mix(x))
            | masked(self.three.filter, mix(x & 0xFF_FFFF))
            | masked(self.pairs, x & 0xFFFF)
    }

    /// The slow path of [`Self::for_each`]: compares the keywords the filters let through at
    /// sampled position `p`.
    #[inline(never)]
    fn candidates(&self, text: &[u8], p: usize, x: u32, f: &mut impl FnMut(usize, usize, usize)) {
        let h4 = mix(x);
        if self.four.may_hold(h4) {
            self.four.report(self.bytes, text, p, (x, h4), f);
        }
        let gram = x & 0xFF_FFFF;
        let h3 = mix(gram);
        if self.three.may_hold(h3) {
            self.three.report(self.bytes, text, p, (gram, h3), f);
        }
        if bit(self.pairs, x & 0xFFFF) {
            // A three-byte keyword is owned by the sampled position of its first two bytes or
            // of its last two; a shorter one by its start or the byte before.
            for (start, owned) in [(p.wrapping_sub(1), 3..=3), (p, 1..=3), (p + 1, 1..=2)] {
                let Some(&first) = text.get(start) else {
                    continue;
                };
                let b = usize::from(first);
                let group = usize::from(self.short_at[b])..usize::from(self.short_at[b + 1]);
                for e in &self.short[group] {
                    if owned.contains(&e.len) {
                        check(self.bytes, text, start, e, f);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KeywordStore;
    use aho_corasick::{AhoCorasickBuilder, MatchKind};
    use proptest::prelude::*;

    fn ours(set: &KeywordStore, text: &[u8]) -> Vec<(usize, usize, usize)> {
        let mut v = Vec::new();
        set.set().for_each(text, |k, s, e| v.push((k, s, e)));
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
    fn same_bytes_tells_every_single_byte_difference_at_every_length() {
        for n in 0..=40usize {
            let a: Vec<u8> = (0..n)
                .map(|i| b"abcdefghijklmnopqrstuvwxyz"[i % 26])
                .collect();
            assert!(super::same_bytes(&a, &a.clone()), "length {n}");
            for i in 0..n {
                for flip in [1u8, 0x20, 0x80] {
                    let mut b = a.clone();
                    b[i] ^= flip;
                    assert!(
                        !super::same_bytes(&a, &b),
                        "length {n}, byte {i} ^ {flip:#x}"
                    );
                }
            }
        }
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
        let set = KeywordStore::new(&kws);
        let text = b"@x <| api_key=1 ignore previous https://a.b key";
        assert_eq!(sorted(ours(&set, text)), reference(&kws, text));
        // Every length class starting at either parity, at the very start and the very end.
        for pad in ["", "x"] {
            for k in kws {
                let text = format!("{pad}{k}");
                assert_eq!(
                    sorted(ours(&set, text.as_bytes())),
                    reference(&kws, text.as_bytes()),
                    "{text:?}"
                );
            }
        }
        // A keyword that ends exactly at the end of the text, and one cut short there.
        assert_eq!(ours(&set, b"the key"), vec![(2, 4, 7)]);
        assert!(ours(&set, b"the ke").is_empty());
        assert!(ours(&set, b"").is_empty());
    }

    proptest! {
        #[test]
        fn same_matches_as_aho_corasick(
            kws in prop::collection::vec("[a-e@:/ ]{1,10}", 1..40),
            text in "[a-e@:/ ]{0,200}",
        ) {
            let mut kws = kws;
            kws.sort();
            kws.dedup();
            let refs: Vec<&str> = kws.iter().map(String::as_str).collect();
            let set = KeywordStore::new(&refs);
            prop_assert_eq!(sorted(ours(&set, text.as_bytes())), reference(&refs, text.as_bytes()));
        }
    }
}
