//! Lays out the `o200k_base` vocabulary as a table the binary maps and probes in place
//! (issue #14): token bytes by rank, and an open-addressing table from bytes to rank. The
//! tokenizer then costs nothing to load; building it from the compressed vocabulary took
//! about 100 ms in every process that counted tokens.
//!
//! It also lays out the Unicode classes the pre-tokenizer splits text by ([`classes`]).
//!
//! Layout (all integers u32 little-endian): magic `O2K1`, token count `n`, table bits `b`,
//! `n + 1` arena offsets by rank, `2^b` slots holding rank + 1 (0 = empty, linear probing
//! from `token_hash & (2^b - 1)`), then the arena of token bytes.

use std::io::Write;

include!("../src/handoff/tokens/hash.rs");

const TABLE_BITS: u32 = 19;

pub(crate) fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/handoff/tokens/hash.rs");
    let enc = tiktoken::get_encoding("o200k_base").expect("o200k_base is compiled into tiktoken");
    let n = u32::try_from(enc.vocab_size()).expect("the vocabulary fits in u32");
    let mut offsets = Vec::with_capacity(n as usize + 1);
    let mut arena: Vec<u8> = Vec::new();
    let mut slots = vec![0u32; 1 << TABLE_BITS];
    let mask = (1usize << TABLE_BITS) - 1;
    for rank in 0..n {
        let bytes = enc.decode(&[rank]);
        assert!(!bytes.is_empty(), "rank {rank} has no bytes");
        offsets.push(u32::try_from(arena.len()).expect("the arena fits in u32"));
        #[allow(clippy::cast_possible_truncation, reason = "masked to the table size")]
        let mut at = (token_hash(&bytes) as usize) & mask;
        while slots[at] != 0 {
            let other = slots[at] as usize - 1;
            let start = offsets[other] as usize;
            let end = offsets.get(other + 1).map_or(arena.len(), |e| *e as usize);
            assert_ne!(
                &arena[start..end],
                bytes.as_slice(),
                "duplicate token {rank}"
            );
            at = (at + 1) & mask;
        }
        slots[at] = rank + 1;
        arena.extend_from_slice(&bytes);
    }
    offsets.push(u32::try_from(arena.len()).expect("the arena fits in u32"));

    let mut out = Vec::with_capacity(12 + offsets.len() * 4 + slots.len() * 4 + arena.len());
    out.extend_from_slice(b"O2K1");
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&TABLE_BITS.to_le_bytes());
    for o in &offsets {
        out.extend_from_slice(&o.to_le_bytes());
    }
    for s in &slots {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out.extend_from_slice(&arena);
    let path = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("o200k.bin");
    let mut file = std::fs::File::create(&path).expect("create the table");
    file.write_all(&out).expect("write the table");
    classes();
}

/// Character classes of the pre-tokenizer, numbered as in `src/handoff/tokens/split.rs`.
const CLASSES: [(&str, u8); 9] = [
    (r"\p{Lu}", 1),
    (r"\p{Lt}", 1),
    (r"\p{Ll}", 2),
    (r"\p{Lm}", 3),
    (r"\p{Lo}", 3),
    (r"\p{M}", 4),
    (r"\p{N}", 5),
    (r"\s", 6),
    (r"[\r\n]", 7),
];

/// Lays out the class of every code point as a two-level table (`o200k_classes.bin`):
/// `0x1100` block numbers (u16 little-endian, one per 256 code points), then the distinct
/// blocks of 256 class bytes. The classes come from `regex-syntax`, the Unicode tables of
/// the regex engine the reference tokenizer splits text with, so both agree on every
/// character. A character outside every class is 0 (other).
fn classes() {
    let mut class = vec![0u8; 0x11_0000];
    for (pattern, code) in CLASSES {
        let hir = regex_syntax::Parser::new()
            .parse(pattern)
            .expect("the class pattern is valid");
        let regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(set)) = hir.kind()
        else {
            panic!("{pattern} is not a Unicode class");
        };
        for range in set.ranges() {
            for cp in u32::from(range.start())..=u32::from(range.end()) {
                let slot = &mut class[cp as usize];
                // Only the line breaks refine an earlier class (white space).
                assert!(
                    *slot == 0 || (code == 7 && *slot == 6),
                    "U+{cp:04X} is in two classes"
                );
                *slot = code;
            }
        }
    }
    let mut index: Vec<u8> = Vec::with_capacity(0x1100 * 2);
    let mut blocks: Vec<&[u8]> = Vec::new();
    for block in class.chunks(256) {
        let n = blocks.iter().position(|b| *b == block).unwrap_or_else(|| {
            blocks.push(block);
            blocks.len() - 1
        });
        index.extend_from_slice(&u16::try_from(n).expect("few blocks").to_le_bytes());
    }
    let mut out = index;
    for b in blocks {
        out.extend_from_slice(b);
    }
    let path = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("o200k_classes.bin");
    std::fs::write(path, out).expect("write the class table");
}
