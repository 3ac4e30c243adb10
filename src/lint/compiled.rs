//! The lint engine's regexes compiled ahead of time: the NFAs of the regexes a text may wake,
//! as `regex_automata`'s Thompson compiler builds them, written into `compiled.bin` by a test
//! and read back at run time state by state. Parsing a rule's regex and compiling its NFAs
//! was most of what linting a real handoff file cost (a 27 KB STATUS.md woke 56 regexes:
//! about 26 ms of parsing and compiling against 3 ms to read their NFAs back), paid again by
//! every process, since nothing of a compiled regex outlives the process (issue #14).
//!
//! An entry is found by its key, compared in full (a regex source as the engine compiles
//! it): a rule whose regex changed since the file was written is not in it and is compiled
//! as before. What the key does not say (how a source is relaxed: the engine's `RELAX_AT`
//! and group names; this file's format) is in the file's header as a hash, and a file whose
//! hash is not the engine's is not read at all. The compilers' own versions are pinned by
//! `Cargo.lock`; a change of either makes the currency test fail until the file is written
//! again. The test `generated_tables_are_current_for_the_compiled_regexes` fails when the
//! file is not what the rules give now, and rewrites it when `AAHP_REGENERATE` is set (with
//! the keyword tables: `AAHP_REGENERATE=1 cargo test --lib generated_tables_are_current`).
//!
//! The file: `AAHPNFA1`, the hash of what the keys do not say (u64, little-endian), the entry
//! count (u32, little-endian), an index of (`FxHash` of the key u64, offset u32) sorted by
//! hash, then the entries. An entry: its key (varint length and bytes: a source, the source
//! of a relaxed form after `\0relaxed\0`, a byte-mode helper regex's after `\0bytes\0`), a
//! kind byte ([`PLAIN`], [`RELAXED`] or [`NOT_RELAXED`]), for a relaxed regex its loops
//! (varint count, then each loop's number and most bytes), then, but for [`NOT_RELAXED`], the
//! forward NFA (with its groups) and the reverse one (without), each prefixed by its varint
//! length. An NFA: flags (bit 0 UTF-8, bit 1 reverse), its anchored, unanchored and pattern
//! starts, its groups (count, then each name's length plus one, 0 for none, and bytes), its
//! states (count, then each state's tag and fields). State ids are written relative to the state's own (zigzag
//! varints): most transitions go to a state nearby.

#[cfg(test)]
use regex_automata::PatternID;
#[cfg(test)]
use regex_automata::nfa::thompson::State;
use regex_automata::nfa::thompson::{self, NFA, Transition};
use regex_automata::util::look::Look;
use regex_automata::util::primitives::StateID;

const MAGIC: &[u8; 8] = b"AAHPNFA1";
const INDEX_AT: usize = 20;
const INDEX_ENTRY: usize = 12;

/// An entry's kind: a regex compiled as its source says.
pub(crate) const PLAIN: u8 = 0;
/// An entry's kind: the relaxed form of a regex (`engine::Relaxed`), with its loops.
pub(crate) const RELAXED: u8 = 1;
/// An entry's kind: a regex with nothing to relax (no NFA: it is compiled as [`PLAIN`]).
pub(crate) const NOT_RELAXED: u8 = 2;

static FILE: &[u8] = include_bytes!("compiled.bin");

/// A compiled entry read from the file.
pub(crate) struct Entry {
    pub kind: u8,
    /// A relaxed regex's loops: (the loop's number, the most bytes its group may hold).
    pub loops: Vec<(usize, usize)>,
    /// The forward NFA's bytes.
    pub forward: &'static [u8],
    /// The reverse NFA's bytes.
    pub reverse: &'static [u8],
}

/// The key's hash in the index.
fn hash(key: &str) -> u64 {
    use std::hash::Hasher as _;
    let mut h = rustc_hash::FxHasher::default();
    h.write(key.as_bytes());
    h.finish()
}

/// The entry of `key`, if the file holds it (and reads as an entry).
pub(crate) fn get(key: &str) -> Option<Entry> {
    lookup(FILE, key)
}

fn lookup(file: &'static [u8], key: &str) -> Option<Entry> {
    if file.get(..8)? != MAGIC
        || u64::from_le_bytes(file.get(8..16)?.try_into().ok()?) != super::engine::ahead_config()
    {
        return None;
    }
    let n = usize::try_from(u32::from_le_bytes(file.get(16..20)?.try_into().ok()?)).ok()?;
    let index = file.get(INDEX_AT..INDEX_AT + n * INDEX_ENTRY)?;
    let at = |i: usize| -> (u64, usize) {
        let e = &index[i * INDEX_ENTRY..(i + 1) * INDEX_ENTRY];
        let h = u64::from_le_bytes(e[..8].try_into().expect("8 bytes"));
        let o = u32::from_le_bytes(e[8..].try_into().expect("4 bytes"));
        (h, usize::try_from(o).expect("a u32 fits"))
    };
    let want = hash(key);
    // The first index entry with the hash, then each with it (keys may share a hash).
    let mut i = {
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if at(mid).0 < want {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    };
    while i < n && at(i).0 == want {
        let mut r = Reader {
            b: file,
            at: at(i).1,
        };
        let len = r.varint()?;
        if r.bytes(len)? == key.as_bytes() {
            return r.entry();
        }
        i += 1;
    }
    None
}

/// Reads the file's bytes.
struct Reader {
    b: &'static [u8],
    at: usize,
}

impl Reader {
    fn byte(&mut self) -> Option<u8> {
        let c = *self.b.get(self.at)?;
        self.at += 1;
        Some(c)
    }

    fn bytes(&mut self, n: usize) -> Option<&'static [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }

    fn varint(&mut self) -> Option<usize> {
        let mut v: usize = 0;
        for shift in (0..64).step_by(7) {
            let c = self.byte()?;
            v |= usize::from(c & 0x7f).checked_shl(shift)?;
            if c & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    /// A state id written relative to state `me`, one of `n`.
    fn id(&mut self, me: usize, n: usize) -> Option<StateID> {
        let z = self.varint()?;
        let d = isize::try_from(z >> 1).ok()?;
        let id = if z & 1 == 1 {
            me.checked_sub(d.unsigned_abs())?
        } else {
            me.checked_add(d.unsigned_abs())?
        };
        (id < n).then_some(())?;
        StateID::new(id).ok()
    }

    fn entry(&mut self) -> Option<Entry> {
        let kind = self.byte()?;
        let mut loops = Vec::new();
        if kind == RELAXED {
            for _ in 0..self.varint()? {
                loops.push((self.varint()?, self.varint()?));
            }
        }
        let (mut forward, mut reverse): (&[u8], &[u8]) = (&[], &[]);
        if kind != NOT_RELAXED {
            let n = self.varint()?;
            forward = self.bytes(n)?;
            let n = self.varint()?;
            reverse = self.bytes(n)?;
        }
        Some(Entry {
            kind,
            loops,
            forward,
            reverse,
        })
    }
}

/// The NFA written in `bytes` by [`write_nfa`], rebuilt state by state (the same states,
/// starts and groups as the compiler built); `None` where the bytes are cut short or name a
/// state, a tag or an assertion there is not.
pub(crate) fn nfa(bytes: &'static [u8]) -> Option<NFA> {
    let mut r = Reader { b: bytes, at: 0 };
    let flags = r.byte()?;
    let mut b = thompson::Builder::new();
    b.set_utf8(flags & 1 != 0);
    b.set_reverse(flags & 2 != 0);
    let start_anchored = StateID::new(r.varint()?).ok()?;
    let start_unanchored = StateID::new(r.varint()?).ok()?;
    let start_pattern = StateID::new(r.varint()?).ok()?;
    let mut names: Vec<Option<std::sync::Arc<str>>> = Vec::new();
    for _ in 0..r.varint()? {
        let n = r.varint()?;
        names.push(match n {
            0 => None,
            n => Some(std::str::from_utf8(r.bytes(n - 1)?).ok()?.into()),
        });
    }
    b.start_pattern().ok()?;
    let group = |r: &mut Reader| -> Option<u32> { u32::try_from(r.varint()?).ok() };
    let n = r.varint()?;
    if [start_anchored, start_unanchored, start_pattern]
        .iter()
        .any(|s| s.as_usize() >= n)
    {
        return None;
    }
    for me in 0..n {
        let added = match r.byte()? {
            0 => {
                let (start, end) = (r.byte()?, r.byte()?);
                let next = r.id(me, n)?;
                b.add_range(Transition { start, end, next })
            }
            1 => {
                let mut ts = Vec::new();
                for _ in 0..r.varint()? {
                    let (start, end) = (r.byte()?, r.byte()?);
                    ts.push(Transition {
                        start,
                        end,
                        next: r.id(me, n)?,
                    });
                }
                b.add_sparse(ts)
            }
            2 => {
                let look = Look::from_repr(u32::try_from(r.varint()?).ok()?)?;
                b.add_look(r.id(me, n)?, look)
            }
            3 => {
                let mut alts = Vec::new();
                for _ in 0..r.varint()? {
                    alts.push(r.id(me, n)?);
                }
                b.add_union(alts)
            }
            4 => {
                let g = group(&mut r)?;
                let next = r.id(me, n)?;
                let name = names.get(usize::try_from(g).ok()?)?.clone();
                b.add_capture_start(next, g, name)
            }
            5 => {
                let g = group(&mut r)?;
                b.add_capture_end(r.id(me, n)?, g)
            }
            6 => b.add_fail(),
            7 => b.add_match(),
            _ => return None,
        }
        .ok()?;
        if added.as_usize() != me {
            return None;
        }
    }
    b.finish_pattern(start_pattern).ok()?;
    b.build(start_anchored, start_unanchored).ok()
}

#[cfg(test)]
/// The bytes of `nfa` (one pattern, as the lint engine compiles them): [`nfa`] reads them.
pub(crate) fn write_nfa(nfa: &NFA) -> Vec<u8> {
    let mut w = Vec::new();
    w.push(u8::from(nfa.is_utf8()) | (u8::from(nfa.is_reverse()) << 1));
    let pid = PatternID::ZERO;
    varint(&mut w, nfa.start_anchored().as_usize());
    varint(&mut w, nfa.start_unanchored().as_usize());
    varint(
        &mut w,
        nfa.start_pattern(pid).expect("one pattern").as_usize(),
    );
    let gi = nfa.group_info();
    let groups = if gi.pattern_len() == 0 {
        0
    } else {
        gi.group_len(pid)
    };
    varint(&mut w, groups);
    for g in 0..groups {
        match gi.to_name(pid, g) {
            None => varint(&mut w, 0),
            Some(n) => {
                varint(&mut w, n.len() + 1);
                w.extend_from_slice(n.as_bytes());
            }
        }
    }
    varint(&mut w, nfa.states().len());
    for (me, st) in nfa.states().iter().enumerate() {
        let id = |w: &mut Vec<u8>, to: StateID| {
            let to = to.as_usize();
            let z = if to >= me {
                (to - me) << 1
            } else {
                ((me - to) << 1) | 1
            };
            varint(w, z);
        };
        match st {
            State::ByteRange { trans } => {
                w.extend_from_slice(&[0, trans.start, trans.end]);
                id(&mut w, trans.next);
            }
            State::Sparse(s) => {
                w.push(1);
                varint(&mut w, s.transitions.len());
                for t in &s.transitions {
                    w.extend_from_slice(&[t.start, t.end]);
                    id(&mut w, t.next);
                }
            }
            State::Dense(_) => unreachable!("the compiler builds no dense state"),
            State::Look { look, next } => {
                w.push(2);
                varint(&mut w, usize::try_from(look.as_repr()).expect("a u32 fits"));
                id(&mut w, *next);
            }
            State::Union { alternates } => {
                w.push(3);
                varint(&mut w, alternates.len());
                for &a in alternates {
                    id(&mut w, a);
                }
            }
            State::BinaryUnion { alt1, alt2 } => {
                w.push(3);
                varint(&mut w, 2);
                id(&mut w, *alt1);
                id(&mut w, *alt2);
            }
            State::Capture {
                next,
                group_index,
                slot,
                ..
            } => {
                let g = group_index.as_usize();
                let (start, _) = gi.slots(pid, g).expect("the group's slots");
                w.push(if slot.as_usize() == start { 4 } else { 5 });
                varint(&mut w, g);
                id(&mut w, *next);
            }
            State::Fail => w.push(6),
            State::Match { .. } => w.push(7),
        }
    }
    w
}

#[cfg(test)]
fn varint(w: &mut Vec<u8>, mut v: usize) {
    while v >= 0x80 {
        w.push(u8::try_from(v & 0x7f).expect("7 bits") | 0x80);
        v >>= 7;
    }
    w.push(u8::try_from(v).expect("7 bits"));
}

/// An entry as written: its kind, a relaxed regex's loops, its NFAs' bytes ([`write_nfa`]).
#[cfg(test)]
pub(crate) struct Written {
    pub kind: u8,
    pub loops: Vec<(usize, usize)>,
    pub forward: Vec<u8>,
    pub reverse: Vec<u8>,
}

#[cfg(test)]
/// The file of `entries`, by key.
pub(crate) fn write_file(entries: &std::collections::BTreeMap<String, Written>) -> Vec<u8> {
    let mut body = Vec::new();
    let mut index: Vec<(u64, usize)> = Vec::new();
    let head = INDEX_AT + entries.len() * INDEX_ENTRY;
    for (key, e) in entries {
        index.push((hash(key), head + body.len()));
        varint(&mut body, key.len());
        body.extend_from_slice(key.as_bytes());
        body.push(e.kind);
        if e.kind == RELAXED {
            varint(&mut body, e.loops.len());
            for &(k, most) in &e.loops {
                varint(&mut body, k);
                varint(&mut body, most);
            }
        }
        if e.kind != NOT_RELAXED {
            varint(&mut body, e.forward.len());
            body.extend_from_slice(&e.forward);
            varint(&mut body, e.reverse.len());
            body.extend_from_slice(&e.reverse);
        }
    }
    index.sort_unstable();
    let mut out = Vec::with_capacity(head + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&super::engine::ahead_config().to_le_bytes());
    out.extend_from_slice(
        &u32::try_from(entries.len())
            .expect("fewer than 2^32 entries")
            .to_le_bytes(),
    );
    for (h, o) in index {
        out.extend_from_slice(&h.to_le_bytes());
        out.extend_from_slice(&u32::try_from(o).expect("a file under 4 GiB").to_le_bytes());
    }
    out.extend_from_slice(&body);
    out
}

/// Every key in the file, in the index's order.
#[cfg(test)]
pub(crate) fn keys() -> Vec<String> {
    let n = usize::try_from(u32::from_le_bytes(
        FILE[16..20].try_into().expect("4 bytes"),
    ))
    .expect("a u32 fits");
    (0..n)
        .map(|i| {
            let e = &FILE[INDEX_AT + i * INDEX_ENTRY..INDEX_AT + (i + 1) * INDEX_ENTRY];
            let o = u32::from_le_bytes(e[8..].try_into().expect("4 bytes"));
            let mut r = Reader {
                b: FILE,
                at: usize::try_from(o).expect("a u32 fits"),
            };
            let len = r.varint().expect("a key's length");
            String::from_utf8(r.bytes(len).expect("a key").to_vec()).expect("UTF-8")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_entry_serves_only_its_own_key() {
        // A rule whose regex changed is not in the file: its source is compiled, not read.
        let keys = super::keys();
        assert!(keys.len() > 300, "{} keys", keys.len());
        for key in keys.iter().take(200) {
            assert!(super::get(key).is_some(), "{key}");
            let mut other = key.clone();
            other.push(' ');
            assert!(super::get(&other).is_none(), "{other}");
            assert!(super::get(&key[..key.len() - 1]).is_none());
        }
    }

    #[test]
    fn a_file_written_under_another_relaxing_is_not_read() {
        // Relaxed entries are what the relaxing made of a source: a file written when it
        // relaxed otherwise (another least count, other group names) holds keys that look
        // current and NFAs that are not, and is not read at all.
        let key = super::keys().into_iter().next().expect("a key");
        assert!(super::lookup(super::FILE, &key).is_some());
        let mut other = super::FILE.to_vec();
        other[8] ^= 1;
        let other: &'static [u8] = Box::leak(other.into_boxed_slice());
        assert!(super::lookup(other, &key).is_none());
    }

    #[test]
    fn nfa_bytes_cut_short_read_as_none() {
        // Bytes cut anywhere read as no NFA (the engine then compiles the source), never as
        // an NFA of fewer states or a panic.
        let key = super::keys().into_iter().next().expect("a key");
        let e = super::get(&key).expect("its entry");
        let bytes: &'static [u8] = if e.forward.is_empty() {
            let plain = super::keys()
                .into_iter()
                .find_map(|k| super::get(&k).filter(|e| !e.forward.is_empty()))
                .expect("an entry with an NFA");
            plain.forward
        } else {
            e.forward
        };
        assert!(super::nfa(bytes).is_some());
        for cut in 0..bytes.len() {
            assert!(super::nfa(&bytes[..cut]).is_none(), "cut at {cut}");
        }
    }
}
