//! Speed figures for the token counter (not a test; run by `bench/run.sh`): the first count
//! in a process (the load: the pre-tokenizer regex and the first pages of the vocabulary
//! table), a second small count, and throughput on text with no break (one piece: a
//! repeated word at 1 and 8 MB, a repeated pair, random letters) and on 8 MB of prose.
//!
//! usage: cargo bench --bench tokens

#![allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
#![allow(clippy::cast_precision_loss, reason = "timings")]

use std::time::Instant;

use git_aahp::handoff::tokens::count;

fn main() {
    let t = Instant::now();
    let n = count("## [2026-11-22] agent: first count of the process\n");
    let load = t.elapsed();
    let t = Instant::now();
    let m = count("## [2026-11-23] agent: second count, vocabulary loaded\n");
    let second = t.elapsed();
    println!(
        "| first count in a process (load included, {n} tokens) | {:.2} ms |",
        load.as_secs_f64() * 1e3
    );
    println!(
        "| a second small count ({m} tokens) | {:.3} ms |",
        second.as_secs_f64() * 1e3
    );
    let mb = 1024 * 1024;
    let letters = |size: usize| "abcdefghij".repeat(size / 10);
    // Lower-case letters from a fixed linear congruential sequence: one piece, many ranks.
    let mut seed: u32 = 1;
    let random: String = (0..8 * mb)
        .map(|_| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            char::from(b'a' + u8::try_from((seed >> 16) % 26).expect("below 26"))
        })
        .collect();
    let prose: String =
        "The quick brown fox jumps over the lazy dog; 12 tests pass.\n".repeat(8 * mb / 60);
    for (what, text) in [
        ("1 MB of letters, no break", &letters(mb)),
        ("8 MB of letters, no break", &letters(8 * mb)),
        ("8 MB of `ab` repeated, no break", &"ab".repeat(4 * mb)),
        ("8 MB of random letters, no break", &random),
        ("8 MB of prose", &prose),
    ] {
        let t = Instant::now();
        let n = count(text);
        let s = t.elapsed().as_secs_f64();
        println!(
            "| {what} ({n} tokens) | {:.0} ms, {:.1} MB/s |",
            s * 1e3,
            text.len() as f64 / s / 1e6
        );
    }
}
