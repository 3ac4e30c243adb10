//! Token counts for budgets, with exact parity to `o200k_base` (SPEC §7). Ordinary
//! encoding only: file content is never read as special tokens. Kept off the pre-commit
//! path, which needs checksums, not counts.
//!
//! The vocabulary is a table `build.rs` lays out at build time and the binary probes in
//! place, so nothing is built at start-up (issue #14). Text is split into pieces as the
//! o200k pre-tokenizer regex splits it (`split`, written out by hand: the regex cost more
//! to compile than all the counting a command does), then each piece is merged by byte-pair ranks: the lowest-ranked
//! adjacent pair first, the leftmost among equals. Long pieces (a run of letters with no
//! break) are merged over a linked list with a queue of pairs bucketed by rank, so counting
//! is linear in practice (`n log n` at worst), not quadratic.

mod hash;
mod split;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::LazyLock;

/// The table `build.rs` writes (layout described there).
static TABLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.bin"));

/// Pieces longer than this are merged through [`RankQueue`]; shorter ones are rescanned in
/// place, which is faster for the few bytes most pieces have.
const SHORT_PIECE: usize = 64;

fn word(at: usize) -> u32 {
    u32::from_le_bytes(
        TABLE[at * 4..at * 4 + 4]
            .try_into()
            .expect("four bytes make a word"),
    )
}

/// The vocabulary as laid out by `build.rs`.
struct Vocab {
    n: usize,
    mask: usize,
    /// Word index of the offsets.
    offsets: usize,
    /// Word index of the slots.
    slots: usize,
    /// Byte index of the arena.
    arena: usize,
}

static VOCAB: LazyLock<Vocab> = LazyLock::new(|| {
    assert_eq!(&TABLE[..4], b"O2K1", "the o200k table has the wrong magic");
    let n = word(1) as usize;
    let bits = word(2);
    let slots = 3 + n + 1;
    Vocab {
        n,
        mask: (1 << bits) - 1,
        offsets: 3,
        slots,
        arena: (slots + (1 << bits)) * 4,
    }
});

impl Vocab {
    fn token(&self, rank: usize) -> &'static [u8] {
        let start = word(self.offsets + rank) as usize;
        let end = word(self.offsets + rank + 1) as usize;
        &TABLE[self.arena + start..self.arena + end]
    }

    /// The rank of a token, `u32::MAX` when `bytes` is not one.
    fn rank(&self, bytes: &[u8]) -> u32 {
        #[expect(clippy::cast_possible_truncation, reason = "masked to the table size")]
        let mut at = (hash::token_hash(bytes) as usize) & self.mask;
        loop {
            let slot = word(self.slots + at);
            if slot == 0 {
                return u32::MAX;
            }
            if self.token(slot as usize - 1) == bytes {
                return slot - 1;
            }
            at = (at + 1) & self.mask;
        }
    }

    /// Tokens in one piece of pre-tokenized text.
    fn count_piece(&self, piece: &[u8]) -> usize {
        if piece.len() <= 1 || self.rank(piece) != u32::MAX {
            return usize::from(!piece.is_empty());
        }
        if piece.len() <= SHORT_PIECE {
            self.merge_short(piece)
        } else {
            self.merge_long(piece)
        }
    }

    /// Merges a short piece in place: `parts[i]` is where part `i` starts and the rank of
    /// the pair it begins.
    fn merge_short(&self, piece: &[u8]) -> usize {
        let mut parts: Vec<(usize, u32)> = (0..=piece.len())
            .map(|i| {
                let rank = if i + 2 <= piece.len() {
                    self.rank(&piece[i..i + 2])
                } else {
                    u32::MAX
                };
                (i, rank)
            })
            .collect();
        // The rank of the pair that part `i` begins once part `i + 1` is merged into it.
        let pair_after = |parts: &[(usize, u32)], i: usize| match parts.get(i + 3) {
            Some(&(end, _)) => self.rank(&piece[parts[i].0..end]),
            None => u32::MAX,
        };
        while parts.len() > 2 {
            let mut best = (u32::MAX, 0);
            for (i, &(_, rank)) in parts[..parts.len() - 1].iter().enumerate() {
                if rank < best.0 {
                    best = (rank, i);
                }
            }
            if best.0 == u32::MAX {
                break;
            }
            let i = best.1;
            parts[i].1 = pair_after(&parts, i);
            if i > 0 {
                parts[i - 1].1 = pair_after(&parts, i - 1);
            }
            parts.remove(i + 1);
        }
        parts.len() - 1
    }

    /// Merges a long piece over a linked list of parts, in the order the in-place merge
    /// takes: the lowest-ranked pair first, the leftmost among equals. Pairs wait in
    /// [`RankQueue`]; a pair whose part was merged away or grew since it was queued is
    /// skipped when it comes up (a part only grows, so a pair's rank never comes back).
    fn merge_long(&self, piece: &[u8]) -> usize {
        let n = u32::try_from(piece.len())
            .expect("handoff files are capped at 256 MiB, so a piece fits u32 positions");
        let at = |i: u32| i as usize;
        // next[i]: start of the part after the one starting at i (n at the end);
        // prev[i]: start of the part before; rank[i]: rank of the pair the part at i
        // begins, NO_RANK when it is not a token, DEAD when the part was merged away.
        let mut next: Vec<u32> = (1..=n).collect();
        let mut prev: Vec<u32> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        let mut rank: Vec<u32> = Vec::with_capacity(at(n));
        let mut queue = RankQueue::default();
        for i in 0..n - 1 {
            let r = self.rank(&piece[at(i)..at(i) + 2]);
            rank.push(r);
            if r != NO_RANK {
                queue.push(r, i);
            }
        }
        rank.push(NO_RANK);
        // The rank of the pair the part at `i` begins, from its end to the next part's end.
        let pair_rank = |next: &[u32], i: u32| -> u32 {
            let j = next[at(i)];
            if j >= n {
                return NO_RANK;
            }
            self.rank(&piece[at(i)..at(next[at(j)])])
        };
        let mut parts = at(n);
        while let Some((r, i)) = queue.pop() {
            if rank[at(i)] != r {
                continue;
            }
            // Merge the part at i with the next one.
            let j = next[at(i)];
            let after = next[at(j)];
            rank[at(j)] = DEAD;
            next[at(i)] = after;
            if after < n {
                prev[at(after)] = i;
            }
            parts -= 1;
            let r = pair_rank(&next, i);
            rank[at(i)] = r;
            if r != NO_RANK {
                queue.push(r, i);
            }
            if i > 0 {
                let p = prev[at(i)];
                let r = pair_rank(&next, p);
                rank[at(p)] = r;
                if r != NO_RANK {
                    queue.push(r, p);
                }
            }
        }
        parts
    }
}

/// `rank` of a pair that is not a token.
const NO_RANK: u32 = u32::MAX;
/// `rank` of a part merged into the one before it; no queued rank equals it.
const DEAD: u32 = u32::MAX - 1;

/// The pairs waiting to be merged, popped lowest rank first and leftmost among equals: one
/// bucket per rank, and a heap of the ranks whose bucket holds something. A binary heap of
/// every pair was `n log n` but slow on a long piece: each pop walked a heap of millions of
/// entries in random order. Here the merges of one rank are mostly a left-to-right walk.
#[derive(Default)]
struct RankQueue {
    /// Bucket index of a rank.
    index: HashMap<u32, u32, BuildHasherDefault<RankHasher>>,
    buckets: Vec<Bucket>,
    /// Ranks whose bucket was non-empty when pushed, with the bucket (one entry a rank).
    ranks: BinaryHeap<Reverse<(u32, u32)>>,
}

/// The positions queued at one rank: `run` holds those pushed in increasing order (taken
/// from `head` on), `late` those pushed behind the end of the run.
#[derive(Default)]
struct Bucket {
    run: Vec<u32>,
    head: usize,
    late: BinaryHeap<Reverse<u32>>,
    /// Whether `rank` is in `RankQueue::ranks`.
    queued: bool,
}

impl Bucket {
    fn push(&mut self, i: u32) {
        if self.head == self.run.len() {
            self.run.clear();
            self.head = 0;
        }
        if self.run.last().is_none_or(|&last| last < i) {
            self.run.push(i);
        } else {
            self.late.push(Reverse(i));
        }
    }

    fn pop(&mut self) -> Option<u32> {
        let front = self.run.get(self.head).copied();
        match (front, self.late.peek()) {
            (Some(a), Some(&Reverse(b))) if b < a => self.late.pop().map(|Reverse(b)| b),
            (Some(a), _) => {
                self.head += 1;
                Some(a)
            }
            (None, _) => self.late.pop().map(|Reverse(b)| b),
        }
    }
}

impl RankQueue {
    fn push(&mut self, rank: u32, i: u32) {
        let next = u32::try_from(self.buckets.len()).expect("fewer ranks than u32::MAX");
        let b = *self.index.entry(rank).or_insert(next);
        if b == next {
            self.buckets.push(Bucket::default());
        }
        let bucket = &mut self.buckets[b as usize];
        bucket.push(i);
        if !bucket.queued {
            bucket.queued = true;
            self.ranks.push(Reverse((rank, b)));
        }
    }

    /// The lowest rank and the leftmost position queued at it.
    fn pop(&mut self) -> Option<(u32, u32)> {
        loop {
            let &Reverse((rank, b)) = self.ranks.peek()?;
            let bucket = &mut self.buckets[b as usize];
            if let Some(i) = bucket.pop() {
                return Some((rank, i));
            }
            bucket.queued = false;
            self.ranks.pop();
        }
    }
}

/// Ranks are spread evenly; one multiplication places them.
#[derive(Default)]
struct RankHasher(u64);

impl Hasher for RankHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u32(&mut self, x: u32) {
        self.0 = u64::from(x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Returns the number of `o200k_base` tokens in `text`.
pub fn count(text: &str) -> usize {
    let vocab = &*VOCAB;
    debug_assert!(vocab.n > 0);
    split::pieces(text)
        .map(|(s, e)| vocab.count_piece(&text.as_bytes()[s..e]))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_tiktoken_rs() {
        let reference = tiktoken_rs::o200k_base_singleton();
        let samples = [
            "",
            "The quick brown fox.",
            "## [2026-11-22] claude: Fixed CORS\r\n\r\n- 12/12 tests passing\n",
            "  \t\n\n   whitespace   runs\n\n\n",
            "don't can't I'll we've 12345 6789012 3.14159",
            "日本語のテキストと emoji 🎉🚀 and combining é and İ ǅ",
            "<|endoftext|> is plain text here <|fim_prefix|>",
            "| Property | Status | TTL |\n|---|---|---|\n| build | verified | 7d |\n",
            "fn main() { println!(\"{}\", x.iter().map(|y| y * 2).sum::<u32>()); }",
        ];
        for s in samples {
            assert_eq!(count(s), reference.encode_ordinary(s).len(), "sample {s:?}");
        }
    }

    #[test]
    fn every_token_is_found_at_its_rank() {
        let vocab = &*VOCAB;
        assert_eq!(vocab.n, 199_998);
        for rank in (0..vocab.n).step_by(7) {
            assert_eq!(vocab.rank(vocab.token(rank)) as usize, rank);
        }
    }

    #[test]
    fn long_runs_without_a_break_match_tiktoken_rs() {
        let reference = tiktoken_rs::o200k_base_singleton();
        for text in [
            "abcdefghij".repeat(300),
            "Zxqv".repeat(500),
            "a".repeat(3000),
            "ünïcödé".repeat(200),
            "x".repeat(65),
        ] {
            assert_eq!(count(&text), reference.encode_ordinary(&text).len());
        }
    }

    #[test]
    fn the_queue_merge_agrees_with_the_in_place_merge() {
        let vocab = &*VOCAB;
        for piece in [
            "abracadabra",
            "aaaaaaaaaaaaaaaa",
            "thequickbrownfoxjumps",
            "ééééàààü",
        ] {
            assert_eq!(
                vocab.merge_long(piece.as_bytes()),
                vocab.merge_short(piece.as_bytes()),
                "{piece}"
            );
        }
    }

    #[test]
    fn long_pieces_of_repeats_symbols_and_spaces_match_tiktoken_rs() {
        let reference = tiktoken_rs::o200k_base_singleton();
        for text in [
            "ab".repeat(1500),
            "aab".repeat(700),
            "abcab".repeat(400),
            "аб".repeat(600),
            "日本語".repeat(300),
            "=-".repeat(700),
            "!!!?".repeat(300),
            "—".repeat(500),
            " ".repeat(2000),
            "\t \t".repeat(400),
            "Ab".repeat(700),
        ] {
            assert_eq!(
                count(&text),
                reference.encode_ordinary(&text).len(),
                "{:?}…",
                &text[..12]
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// One long piece: letters of several scripts and marks with no break, and
        /// repeated short patterns, so the queue merge does the work.
        #[test]
        fn long_unbroken_pieces_match_tiktoken_rs(
            parts in proptest::collection::vec(
                "([a-z]{1,9}|(ab){1,20}|a{1,30}|[éüßñ]|[а-я]{1,4}|[α-ω]{1,3}|[日本語中文かな한국어]{1,3}|[\u{300}\u{301}]|[ء-ي]{1,3}|[0-9a-f]{1,4})",
                20..120,
            ),
            start in "[A-Z]{0,3}",
        ) {
            let reference = tiktoken_rs::o200k_base_singleton();
            let text = start + &parts.concat();
            proptest::prop_assert_eq!(count(&text), reference.encode_ordinary(&text).len());
        }

        /// The queue gives back what was pushed, lowest rank first and leftmost among
        /// equals, however pushes and pops interleave.
        #[test]
        fn the_rank_queue_pops_in_rank_then_position_order(
            ops in proptest::collection::vec((0u32..6, 0u32..40, proptest::bool::weighted(0.6)), 0..300),
        ) {
            let mut queue = RankQueue::default();
            let mut model = BinaryHeap::new();
            for (rank, i, push) in ops {
                if push {
                    queue.push(rank, i);
                    model.push(Reverse((rank, i)));
                } else {
                    proptest::prop_assert_eq!(queue.pop(), model.pop().map(|Reverse(x)| x));
                }
            }
            while let Some(Reverse(x)) = model.pop() {
                proptest::prop_assert_eq!(queue.pop(), Some(x));
            }
            proptest::prop_assert_eq!(queue.pop(), None);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        #[test]
        fn counts_match_tiktoken_rs_on_mixed_text(
            text in "([a-zA-Z]{1,12}|[0-9]{1,5}|[ \t]{1,4}|\r?\n{1,3}|[.,;:!?'\"/()-]{1,3}|'(s|S|t|re|ve|m|ll|d|ſ)|[\u{a0}\u{2003}\u{3000}]|[éÉßǅİıẞ]|[\u{300}\u{301}\u{64b}]|[日本語中文かなカナ]{1,4}|[🎉🚀👍🏽]|[٠-٩]|[A-Z]{2,5}[a-z]{0,3}){0,40}"
        ) {
            let reference = tiktoken_rs::o200k_base_singleton();
            proptest::prop_assert_eq!(count(&text), reference.encode_ordinary(&text).len());
        }
    }
}
