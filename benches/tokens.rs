//! Speed figures for the token counter (not a test; run by `bench/run.sh`): the first count
//! in a process (the load: the pre-tokenizer regex and the first pages of the vocabulary
//! table), a second small count, and throughput on 8 MB of text with no break (one piece)
//! and on 8 MB of prose.
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
    let size = 8 * 1024 * 1024;
    let unbroken: String = "abcdefghij".repeat(size / 10);
    let prose: String =
        "The quick brown fox jumps over the lazy dog; 12 tests pass.\n".repeat(size / 60);
    for (what, text) in [
        ("8 MB of letters, no break", &unbroken),
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
