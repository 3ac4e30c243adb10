//! Token counts for budgets, with exact parity to `o200k_base` (SPEC §7). Ordinary
//! encoding only: file content is never read as special tokens. Kept off the pre-commit
//! path, which needs checksums, not counts.
//!
//! The vocabulary is a table `build.rs` lays out at build time and the binary probes in
//! place, so nothing is built at start-up (issue #14). Text is split into pieces as the
//! o200k pre-tokenizer regex splits it (`split`, written out by hand: the regex cost more
//! to compile than all the counting a command does), then each piece is merged by byte-pair ranks: the lowest-ranked
//! adjacent pair first, the leftmost among equals. Long pieces (a run of letters with no
//! break) are merged through a priority queue, so counting is `n log n`, not quadratic.

mod hash;
mod split;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::LazyLock;

/// The table `build.rs` writes (layout described there).
static TABLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.bin"));

/// Pieces longer than this are merged through a priority queue.
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

    /// Merges a long piece with a linked list of parts and a queue of pair ranks; a queued
    /// pair whose rank changed since is skipped when it comes up.
    fn merge_long(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        // next[i]: start of the part after the one starting at i (n at the end);
        // prev[i]: start of the part before; rank[i]: rank of the pair starting at i.
        let mut next: Vec<u32> = (1..=n)
            .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            .collect();
        let mut prev: Vec<u32> = (0..n)
            .map(|i| u32::try_from(i).unwrap_or(0).wrapping_sub(1))
            .collect();
        let mut rank: Vec<u32> = vec![u32::MAX; n];
        let mut alive = vec![true; n];
        let mut queue = BinaryHeap::with_capacity(n);
        for i in 0..n - 1 {
            rank[i] = self.rank(&piece[i..i + 2]);
            if rank[i] != u32::MAX {
                queue.push(Reverse((rank[i], i)));
            }
        }
        let end_of_pair = |next: &[u32], i: usize| -> Option<usize> {
            let j = next[i] as usize;
            if j >= n {
                return None;
            }
            Some(next[j] as usize)
        };
        let mut parts = n;
        while let Some(Reverse((r, i))) = queue.pop() {
            if !alive[i] || rank[i] != r {
                continue;
            }
            // Merge the part at i with the next one.
            let j = next[i] as usize;
            alive[j] = false;
            next[i] = next[j];
            if (next[j] as usize) < n {
                prev[next[j] as usize] = u32::try_from(i).unwrap_or(u32::MAX);
            }
            parts -= 1;
            rank[i] = end_of_pair(&next, i).map_or(u32::MAX, |e| self.rank(&piece[i..e]));
            if rank[i] != u32::MAX {
                queue.push(Reverse((rank[i], i)));
            }
            if i > 0 {
                let p = prev[i] as usize;
                rank[p] = end_of_pair(&next, p).map_or(u32::MAX, |e| self.rank(&piece[p..e]));
                if rank[p] != u32::MAX {
                    queue.push(Reverse((rank[p], p)));
                }
            }
        }
        parts
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
