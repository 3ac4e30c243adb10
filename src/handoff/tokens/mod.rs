//! Token counts for budgets, from the `o200k_base` BPE compiled into the binary (SPEC §7).
//! Ordinary encoding only: file content is never read as special tokens. Kept off the
//! pre-commit path, which needs checksums, not counts.

/// Returns the number of `o200k_base` tokens in `text`.
pub fn count(text: &str) -> usize {
    tiktoken::get_encoding("o200k_base")
        .expect("the o200k_base vocabulary is compiled in")
        .count(text)
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
}
