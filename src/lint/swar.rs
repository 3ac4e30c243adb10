//! Byte searches eight bytes at a time in plain `u64` arithmetic ("SIMD within a register"):
//! the linter's linear passes look for a few byte classes (newlines, non-ASCII, `&`) in
//! text that is mostly ASCII prose, where a byte-by-byte loop costs ten instructions a byte
//! and a `memchr` call per short line costs its set-up each time.

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;
const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;

/// The high bit of every byte of `x` that is zero, and no other bit (no borrow crosses a
/// byte, so every set bit is a real match, not only the lowest).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    !(((x & LOW7) + LOW7) | x) & HI
}

/// The high bit of every byte of `x` equal to `b`.
#[inline]
fn bytes_equal(x: u64, b: u8) -> u64 {
    zero_bytes(x ^ (LO * u64::from(b)))
}

/// The eight bytes of `chunk` as a little-endian word: byte `i` is bits `8i..8i+8`.
#[inline]
fn word(chunk: &[u8]) -> u64 {
    u64::from_le_bytes(chunk.try_into().expect("a chunk of eight bytes"))
}

/// The offset of the byte whose high bit is the lowest set bit of `mask`.
#[inline]
fn first(mask: u64) -> usize {
    (mask.trailing_zeros() / 8) as usize
}

/// The first byte of `bytes` that is not ASCII, or equal to `also` when given.
pub(crate) fn find_non_ascii_or(bytes: &[u8], also: Option<u8>) -> Option<usize> {
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for c in &mut chunks {
        let x = word(c);
        let mut m = x & HI;
        if let Some(b) = also {
            m |= bytes_equal(x, b);
        }
        if m != 0 {
            return Some(at + first(m));
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&c| c >= 0x80 || Some(c) == also)
        .map(|i| at + i)
}

/// Whether one of the eight bytes of `chunk` is `a` or `b`.
#[inline]
pub(crate) fn holds_either(chunk: &[u8], a: u8, b: u8) -> bool {
    let x = word(chunk);
    bytes_equal(x, a) | bytes_equal(x, b) != 0
}

/// Calls `f` with the offset of every byte of `bytes` equal to `b`, in order.
pub(crate) fn for_each_byte(bytes: &[u8], b: u8, mut f: impl FnMut(usize)) {
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for c in &mut chunks {
        let mut m = bytes_equal(word(c), b);
        while m != 0 {
            f(at + first(m));
            m &= m - 1;
        }
        at += 8;
    }
    for (i, &c) in chunks.remainder().iter().enumerate() {
        if c == b {
            f(at + i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{find_non_ascii_or, for_each_byte};
    use proptest::prelude::*;

    fn positions(bytes: &[u8], b: u8) -> Vec<usize> {
        let mut v = Vec::new();
        for_each_byte(bytes, b, |i| v.push(i));
        v
    }

    #[test]
    fn every_match_at_every_offset() {
        // Adjacent matches, a match right after a zero byte (where a borrowing zero test
        // reports false positives), bytes that differ from the target only in the high bit.
        let text = b"\n\na\0\n\x8a\n\xff\xff\n x\n\n\n\n\n\n\n\n\n";
        let want: Vec<usize> = (0..text.len()).filter(|&i| text[i] == b'\n').collect();
        assert_eq!(positions(text, b'\n'), want);
        assert_eq!(positions(b"", b'\n'), Vec::<usize>::new());
        assert_eq!(find_non_ascii_or(b"plain ascii text here", None), None);
        assert_eq!(find_non_ascii_or(b"plain ascii & text", None), None);
        assert_eq!(
            find_non_ascii_or(b"plain ascii & text", Some(b'&')),
            Some(12)
        );
        assert_eq!(
            find_non_ascii_or("0123456789ab\u{e9}".as_bytes(), Some(b'&')),
            Some(12)
        );
        assert_eq!(find_non_ascii_or("\u{2014}".as_bytes(), None), Some(0));
        assert_eq!(find_non_ascii_or(b"abc", Some(b'c')), Some(2));
    }

    proptest! {
        #[test]
        fn same_as_a_byte_loop(text in prop::collection::vec(any::<u8>(), 0..80), b in any::<u8>()) {
            let want: Vec<usize> = (0..text.len()).filter(|&i| text[i] == b).collect();
            prop_assert_eq!(positions(&text, b), want);
            let b = b & 0x7F;
            let want = text.iter().position(|&c| c >= 0x80 || c == b);
            prop_assert_eq!(find_non_ascii_or(&text, Some(b)), want);
            let want = text.iter().position(|&c| c >= 0x80);
            prop_assert_eq!(find_non_ascii_or(&text, None), want);
        }
    }
}
