//! A small backtracking matcher for the credential catalogue's token regexes (issue #13
//! item 4). A text holding many kinds of token woke hundreds of catalogue entries, and each
//! paid for its regex's compile (forward and reverse automata, a capture engine, set-up and
//! tear-down): 1.4 G instructions on the `credentials-repeated` shape. The formats are a
//! literal, then runs of a character class with counts, alternatives and boundaries, which a
//! backtracking reading of the regex's own syntax tree matches in a few steps per window.
//!
//! The program is the regex's [`Hir`] (parsed with the flags the regex is compiled with) laid
//! out as instructions; it is run as a backtracking engine runs a regex: start positions left
//! to right, alternatives in order, greedy repetitions longest first, lazy ones shortest first.
//! That is the regex crate's leftmost-first match, with the same groups. Patterns it cannot
//! read the same way (a repetition that can match nothing, a look-around other than `^`, `$`
//! and word boundaries, more than four groups, an empty match) get no program and keep their
//! regex. A search that takes more steps than its budget (a long run that each start
//! backtracks through) stops and tells its caller, which then asks the regex: the answer is
//! the same either way, only its cost differs.
//! `lint::engine::tests::catalogue_programs_match_as_their_regexes_do` compares the two on
//! every entry's examples and on random texts built from its pieces.

use regex_syntax::hir::{Class as HirClass, Hir, HirKind, Look};

use super::engine::Spans;

/// A set of characters: ASCII ones by bit, the rest as sorted ranges.
#[derive(Debug, Clone)]
struct Class {
    ascii: u128,
    wide: Box<[(u32, u32)]>,
}

impl Class {
    fn new(c: &HirClass) -> Option<Class> {
        let ranges = class_ranges(c);
        // In the byte mode the patterns compile in, a byte class is ASCII (a UTF-8 regex
        // refuses any other); one that is not is left to the regex.
        if matches!(c, HirClass::Bytes(_)) && ranges.iter().any(|&(_, z)| z > 0x7f) {
            return None;
        }
        let mut ascii = 0u128;
        let mut wide = Vec::new();
        for (a, z) in ranges {
            for b in a..=z.min(0x7f) {
                ascii |= 1 << b;
            }
            if z > 0x7f {
                wide.push((a.max(0x80), z));
            }
        }
        Some(Class {
            ascii,
            wide: wide.into(),
        })
    }

    /// The length of the character at `pos` when it is in the class.
    #[inline]
    fn at(&self, hay: &str, pos: usize) -> Option<usize> {
        let byte = *hay.as_bytes().get(pos)?;
        if byte < 0x80 {
            return (self.ascii >> byte & 1 == 1).then_some(1);
        }
        if self.wide.is_empty() {
            return None;
        }
        let ch = hay.get(pos..)?.chars().next()?;
        let code = u32::from(ch);
        let k = self.wide.partition_point(|&(_, last)| last < code);
        self.wide
            .get(k)
            .is_some_and(|&(first, _)| first <= code)
            .then_some(ch.len_utf8())
    }
}

#[derive(Debug, Clone, Copy)]
enum Assert {
    Start,
    End,
    StartLine,
    EndLine,
    WordAscii(bool),
    WordUnicode(bool),
}

impl Assert {
    fn holds(self, hay: &str, p: usize) -> bool {
        let b = hay.as_bytes();
        match self {
            Assert::Start => p == 0,
            Assert::End => p == b.len(),
            Assert::StartLine => p == 0 || b[p - 1] == b'\n',
            Assert::EndLine => p == b.len() || b[p] == b'\n',
            Assert::WordAscii(yes) => {
                let w = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
                let before = p > 0 && w(b[p - 1]);
                let after = p < b.len() && w(b[p]);
                (before != after) == yes
            }
            Assert::WordUnicode(yes) => {
                let w = |c: Option<char>| {
                    c.is_some_and(|c| regex_syntax::try_is_word_character(c).unwrap_or(false))
                };
                let before = w(hay[..p].chars().next_back());
                let after = w(hay[p..].chars().next());
                (before != after) == yes
            }
        }
    }
}

#[derive(Debug, Clone)]
enum Inst {
    /// These bytes (whole characters).
    Lit(Box<[u8]>),
    /// One character of the class.
    One(Class),
    /// `least..=most` characters of the class, greedy or lazy.
    Run {
        class: Class,
        least: u32,
        most: u32,
        greedy: bool,
    },
    Assert(Assert),
    /// Try the first, then the second.
    Split(u32, u32),
    Jmp(u32),
    /// Record the position in a group slot.
    Save(u8),
    Match,
}

/// Where to resume when what was tried fails.
enum Frame {
    /// Another alternative.
    Alt { pc: u32, pos: usize },
    /// A greedy run one character shorter: it ended at `cur`, and may shrink to `lo`.
    Shorter { pc: u32, lo: usize, cur: usize },
    /// A lazy run one character longer: the run instruction `run`, `count` characters so far.
    Longer { run: u32, count: u32, pos: usize },
    /// Undo a group slot.
    Restore { slot: u8, old: Option<usize> },
}

/// The most instructions a program may have: a counted repetition of a group is laid out a
/// copy per count.
const MAX_INSTS: usize = 4096;

/// A regex laid out for the backtracking search.
#[derive(Debug)]
pub(crate) struct Prog {
    insts: Vec<Inst>,
    /// The bytes a match may start with.
    first: [bool; 256],
    /// Every match starts at the text's start (`^…`).
    anchored: bool,
}

/// The search took more steps than its budget: ask the regex.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct OverBudget;

impl Prog {
    /// The program of a regex source as [`crate::lint::rules::expand`] writes it (flags
    /// included), or `None` when the pattern is not one this matcher reads as the regex
    /// does.
    pub(crate) fn new(src: &str) -> Option<Prog> {
        // Refused before parsing, which costs about a third of compiling: its regex is
        // compiled next.
        if capture_groups(src) > 4 {
            return None;
        }
        let hir = regex_syntax::ParserBuilder::new().build().parse(src).ok()?;
        // An empty match (or none possible) is left to the regex's rules for it.
        if hir.properties().minimum_len().is_none_or(|n| n == 0) {
            return None;
        }
        let mut p = Prog {
            insts: Vec::new(),
            first: [false; 256],
            anchored: hir.properties().look_set_prefix().contains(Look::Start),
        };
        p.emit(&hir)?;
        p.insts.push(Inst::Match);
        if p.insts.len() > MAX_INSTS {
            return None;
        }
        first_bytes(&hir, &mut p.first);
        Some(p)
    }

    /// Steps worth about as much as compiling the regex: past them, compiling it is cheaper
    /// than going on without it.
    pub(crate) fn allowance(&self) -> usize {
        2_000 * self.insts.len() + 50_000
    }

    fn pc(&self) -> u32 {
        index(self.insts.len())
    }

    fn emit(&mut self, h: &Hir) -> Option<()> {
        if self.insts.len() > MAX_INSTS {
            return None;
        }
        match h.kind() {
            HirKind::Empty => {}
            HirKind::Literal(l) => self.insts.push(Inst::Lit(l.0.clone())),
            HirKind::Class(c) => self.insts.push(Inst::One(Class::new(c)?)),
            HirKind::Look(l) => self.insts.push(Inst::Assert(match l {
                Look::Start => Assert::Start,
                Look::End => Assert::End,
                Look::StartLF => Assert::StartLine,
                Look::EndLF => Assert::EndLine,
                Look::WordAscii => Assert::WordAscii(true),
                Look::WordAsciiNegate => Assert::WordAscii(false),
                Look::WordUnicode => Assert::WordUnicode(true),
                Look::WordUnicodeNegate => Assert::WordUnicode(false),
                _ => return None,
            })),
            HirKind::Capture(c) => {
                let slot = u8::try_from(c.index).ok().filter(|&i| i < 5)?;
                self.insts.push(Inst::Save(2 * slot));
                self.emit(&c.sub)?;
                self.insts.push(Inst::Save(2 * slot + 1));
            }
            HirKind::Concat(items) => {
                for i in items {
                    self.emit(i)?;
                }
            }
            HirKind::Alternation(alts) => {
                // Split(a1, next) a1 Jmp(end) next: Split(a2, next2) a2 Jmp(end) … an
                let mut jumps = Vec::new();
                for (k, a) in alts.iter().enumerate() {
                    if k + 1 < alts.len() {
                        let split = self.insts.len();
                        self.insts.push(Inst::Split(self.pc() + 1, 0));
                        self.emit(a)?;
                        jumps.push(self.insts.len());
                        self.insts.push(Inst::Jmp(0));
                        let next = self.pc();
                        self.insts[split] = Inst::Split(index(split) + 1, next);
                    } else {
                        self.emit(a)?;
                    }
                }
                let end = self.pc();
                for j in jumps {
                    self.insts[j] = Inst::Jmp(end);
                }
            }
            HirKind::Repetition(r) => {
                if let HirKind::Class(c) = r.sub.kind() {
                    self.insts.push(Inst::Run {
                        class: Class::new(c)?,
                        least: r.min,
                        most: r.max.unwrap_or(u32::MAX),
                        greedy: r.greedy,
                    });
                    return Some(());
                }
                // A repeated group that can match nothing is read by the regex's own rules
                // for empty iterations: left to it.
                if r.sub.properties().minimum_len().is_none_or(|n| n == 0) {
                    return None;
                }
                for _ in 0..r.min {
                    self.emit(&r.sub)?;
                }
                match r.max {
                    None => {
                        // loop: Split(body, exit) body Jmp(loop)
                        let split = self.insts.len();
                        self.insts.push(Inst::Split(0, 0));
                        self.emit(&r.sub)?;
                        self.insts.push(Inst::Jmp(index(split)));
                        let (body, exit) = (index(split) + 1, self.pc());
                        self.insts[split] = if r.greedy {
                            Inst::Split(body, exit)
                        } else {
                            Inst::Split(exit, body)
                        };
                    }
                    Some(max) => {
                        // Nested optional copies, as the regex's compiler lays them out:
                        // (x(x(x)?)?)? — each split's other branch goes to the end.
                        let mut splits = Vec::new();
                        for _ in r.min..max {
                            splits.push(self.insts.len());
                            self.insts.push(Inst::Split(0, 0));
                            self.emit(&r.sub)?;
                        }
                        let end = self.pc();
                        for s in splits {
                            let body = index(s) + 1;
                            self.insts[s] = if r.greedy {
                                Inst::Split(body, end)
                            } else {
                                Inst::Split(end, body)
                            };
                        }
                    }
                }
            }
        }
        Some(())
    }

    /// The first match in `hay` that starts at or after `at`, as the regex's
    /// `captures_at(hay, at)` finds it (the text before `at` is read by boundaries), or
    /// `Err` when the steps left in `budget` did not settle it (each step taken is counted
    /// off it).
    pub(crate) fn captures_at(
        &self,
        hay: &str,
        at: usize,
        budget: &mut usize,
    ) -> Result<Option<Spans>, OverBudget> {
        let b = hay.as_bytes();
        let mut stack: Vec<Frame> = Vec::new();
        let last = match (self.anchored, at) {
            (true, 0) => b.len().min(1),
            (true, _) => at,
            (false, _) => b.len(),
        };
        for (s, &byte) in b.iter().enumerate().take(last).skip(at) {
            // Every match takes a character, so starts at the end and inside a character are
            // none (the first instruction taking one is ASCII or a whole character).
            if !self.first[usize::from(byte)] || !hay.is_char_boundary(s) {
                continue;
            }
            if let Some(spans) = self.run(hay, s, &mut stack, budget)? {
                return Ok(Some(spans));
            }
        }
        Ok(None)
    }

    /// A match starting at `start`.
    fn run(
        &self,
        hay: &str,
        start: usize,
        stack: &mut Vec<Frame>,
        budget: &mut usize,
    ) -> Result<Option<Spans>, OverBudget> {
        let b = hay.as_bytes();
        let mut slots: [Option<usize>; 10] = [None; 10];
        stack.clear();
        let (mut pc, mut pos) = (0u32, start);
        loop {
            if *budget == 0 {
                return Err(OverBudget);
            }
            *budget -= 1;
            // Whether the thread goes on (else it backtracks).
            let ok = match &self.insts[pc as usize] {
                Inst::Match => {
                    slots[0] = Some(start);
                    slots[1] = Some(pos);
                    let mut spans: Spans = [None; 5];
                    for (g, span) in spans.iter_mut().enumerate() {
                        if let (Some(s), Some(e)) = (slots[2 * g], slots[2 * g + 1]) {
                            *span = Some((s, e));
                        }
                    }
                    return Ok(Some(spans));
                }
                Inst::Lit(l) => {
                    let ok = b.len() >= pos + l.len() && b[pos..pos + l.len()] == **l;
                    if ok {
                        pos += l.len();
                        pc += 1;
                    }
                    ok
                }
                Inst::One(c) => match c.at(hay, pos) {
                    Some(n) => {
                        pos += n;
                        pc += 1;
                        true
                    }
                    None => false,
                },
                Inst::Assert(a) => {
                    let ok = a.holds(hay, pos);
                    pc += u32::from(ok);
                    ok
                }
                Inst::Split(x, y) => {
                    stack.push(Frame::Alt { pc: *y, pos });
                    pc = *x;
                    true
                }
                Inst::Jmp(x) => {
                    pc = *x;
                    true
                }
                Inst::Save(slot) => {
                    let slot = *slot;
                    stack.push(Frame::Restore {
                        slot,
                        old: slots[usize::from(slot)],
                    });
                    slots[usize::from(slot)] = Some(pos);
                    pc += 1;
                    true
                }
                Inst::Run {
                    class,
                    least,
                    most,
                    greedy,
                } => {
                    let mut count = 0u32;
                    let mut p = pos;
                    let mut lo = pos;
                    let until = if *greedy { *most } else { *least };
                    while count < until {
                        let Some(n) = class.at(hay, p) else { break };
                        p += n;
                        count += 1;
                        if count == *least {
                            lo = p;
                        }
                        if count.trailing_zeros() >= 6 {
                            *budget = budget.saturating_sub(64);
                        }
                    }
                    if count < *least {
                        false
                    } else {
                        if *greedy {
                            if p > lo {
                                stack.push(Frame::Shorter {
                                    pc: pc + 1,
                                    lo,
                                    cur: p,
                                });
                            }
                        } else if count < *most {
                            stack.push(Frame::Longer {
                                run: pc,
                                count,
                                pos: p,
                            });
                        }
                        pos = p;
                        pc += 1;
                        true
                    }
                }
            };
            if ok {
                continue;
            }
            // Backtrack.
            loop {
                let Some(f) = stack.pop() else {
                    return Ok(None);
                };
                match f {
                    Frame::Restore { slot, old } => slots[usize::from(slot)] = old,
                    Frame::Alt { pc: p, pos: q } => {
                        (pc, pos) = (p, q);
                        break;
                    }
                    Frame::Shorter { pc: p, lo, cur } => {
                        // One character back (the run holds whole characters).
                        let mut c = cur - 1;
                        while !hay.is_char_boundary(c) {
                            c -= 1;
                        }
                        if c > lo {
                            stack.push(Frame::Shorter { pc: p, lo, cur: c });
                        }
                        (pc, pos) = (p, c);
                        break;
                    }
                    Frame::Longer { run, count, pos: q } => {
                        let Inst::Run { class, most, .. } = &self.insts[run as usize] else {
                            unreachable!("a lazy run's frame names its run");
                        };
                        let Some(n) = class.at(hay, q) else {
                            continue;
                        };
                        if count + 1 < *most {
                            stack.push(Frame::Longer {
                                run,
                                count: count + 1,
                                pos: q + n,
                            });
                        }
                        (pc, pos) = (run + 1, q + n);
                        break;
                    }
                }
                if *budget == 0 {
                    return Err(OverBudget);
                }
                *budget -= 1;
            }
        }
    }
}

/// The capture groups a regex source opens, read off its text: a `(` not escaped, not in a
/// class and not followed by `?`, or a named group (`(?P<`, `(?<`). A miscount only sends a
/// pattern to its regex sooner.
pub(crate) fn capture_groups(src: &str) -> usize {
    let b = src.as_bytes();
    let (mut n, mut i, mut class) = (0, 0, false);
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' if !class => {
                class = true;
                // A `]` first in a class (after an optional `^`) is a member.
                if b.get(i + 1) == Some(&b'^') {
                    i += 1;
                }
                if b.get(i + 1) == Some(&b']') {
                    i += 1;
                }
            }
            b'[' if class && b.get(i + 1) == Some(&b':') => {
                // A POSIX class inside a class: `[[:alpha:]]`.
                if let Some(k) = src[i..].find(":]") {
                    i += k + 1;
                }
            }
            b']' if class => class = false,
            b'(' if !class => {
                let rest = &b[i + 1..];
                if !rest.starts_with(b"?") || rest.starts_with(b"?P<") || rest.starts_with(b"?<") {
                    n += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    n
}

/// A class's ranges of characters (or bytes), as code points.
fn class_ranges(c: &HirClass) -> Vec<(u32, u32)> {
    match c {
        HirClass::Unicode(u) => u
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
        HirClass::Bytes(b) => b
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
    }
}

/// An instruction's index (programs stay under [`MAX_INSTS`], or are refused).
fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Adds the bytes a match of `h` may start with to `set`; whether `h` can match nothing.
fn first_bytes(h: &Hir, set: &mut [bool; 256]) -> bool {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => true,
        HirKind::Literal(l) => {
            match l.0.first() {
                Some(&b) => set[usize::from(b)] = true,
                None => return true,
            }
            false
        }
        HirKind::Class(c) => {
            for (a, z) in class_ranges(c) {
                for b in a..=z.min(0x7f) {
                    set[b as usize] = true;
                }
                if z > 0x7f {
                    // Any lead byte of a wider character.
                    for s in set.iter_mut().skip(0x80) {
                        *s = true;
                    }
                }
            }
            false
        }
        HirKind::Repetition(r) => first_bytes(&r.sub, set) || r.min == 0,
        HirKind::Capture(c) => first_bytes(&c.sub, set),
        HirKind::Concat(items) => {
            for i in items {
                if !first_bytes(i, set) {
                    return false;
                }
            }
            true
        }
        HirKind::Alternation(alts) => {
            let mut empty = false;
            for a in alts {
                empty |= first_bytes(a, set);
            }
            empty
        }
    }
}
