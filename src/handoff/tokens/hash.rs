// The hash of a token's bytes that places it in the o200k lookup table. `build.rs` lays
// the table out with it and the lookup probes with it, so both include this one file.

/// FNV-1a over the bytes, 64 bits, high half folded in.
#[inline]
pub(crate) fn token_hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^ (h >> 29)
}
