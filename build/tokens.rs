//! Lays out the `o200k_base` vocabulary as a table the binary maps and probes in place
//! (issue #14): token bytes by rank, and an open-addressing table from bytes to rank. The
//! tokenizer then costs nothing to load; building it from the compressed vocabulary took
//! about 100 ms in every process that counted tokens.
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
}
