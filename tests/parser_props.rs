//! Property tests over the parsers that read handoff files (issue #12, item 7): the
//! Markdown/log, archive index, trust table, manifest and `.aiignore` parsers get arbitrary
//! bytes and never panic; where a format is written back, it round-trips.

#![allow(
    clippy::unwrap_used,
    reason = "a test fails by panicking; unwrap says where"
)]

use std::collections::BTreeMap;

use git_aahp::handoff::log::{self, ArchiveIndex, LogFile};
use git_aahp::handoff::manifest::Manifest;
use git_aahp::handoff::trust::{self, TrustLedger};
use git_aahp::handoff::{HandoffDir, Snapshot, decode_text};
use git_aahp::lint::LintConfig;
use proptest::prelude::*;

/// Bytes that look like handoff Markdown often enough to reach deep into the parsers:
/// headings, fences, separators, table rows, dates, JSON punctuation, and any byte at all.
fn handoff_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"## [2026-01-02] agent: t\n".to_vec()),
        Just(b"## [9999-99-99] x\n".to_vec()),
        Just(b"```\n".to_vec()),
        Just(b"~~~\n".to_vec()),
        Just(b"---\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just(b"| p | verified | test_verified | 2026-01-01 | a | 99999999d | | n |\n".to_vec()),
        Just(b"|---|---|---|---|---|---|---|---|\n".to_vec()),
        Just(
            b"| Property | Status | Provenance | Last Verified | Agent | TTL | Expires | Notes |\n"
                .to_vec()
        ),
        Just(b"{\"version\": 1, \"entries\": [".to_vec()),
        Just(b"<!-- SECTION: a -->\n".to_vec()),
        Just(b"re:(a+)+$\n".to_vec()),
        Just(b"!*\n".to_vec()),
        prop::collection::vec(any::<u8>(), 0..12),
        "[ -~]{0,16}".prop_map(String::into_bytes),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn dir() -> HandoffDir {
    HandoffDir {
        rel: ".ai/handoff".into(),
        abs: "/nonexistent/.ai/handoff".into(),
        root: "/nonexistent".into(),
    }
}

fn today() -> jiff::civil::Date {
    jiff::civil::date(2026, 11, 22)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn log_parse_and_rotation_never_panic_and_lose_nothing(bytes in handoff_bytes(), keep in 1usize..6) {
        // Invalid UTF-8 is refused before parsing; what decodes is parsed.
        if let Ok(text) = decode_text("LOG.md", &bytes) {
            let parsed = LogFile::parse(text);
            let _ = parsed.check_dated("LOG.md");
            if let Ok(Some(rot)) = log::rotate(text, None, None, keep) {
                prop_assert!(log::check_rotation(text, None, &rot.log, &rot.archive, &rot.index, keep).is_ok());
                prop_assert!(log::verify_archive(&rot.log, Some(&rot.archive), Some(&rot.index), keep).is_empty());
                let kept = LogFile::parse(&rot.log).entries.len();
                prop_assert_eq!(kept + LogFile::parse(&rot.archive).entries.len(), parsed.entries.len());
            }
        }
        let lossy = text_of(&bytes);
        let _ = log::rotate(&lossy, Some(&lossy), Some(&lossy), keep);
        let _ = log::verify_archive(&lossy, Some(&lossy), Some(&lossy), keep);
    }

    #[test]
    fn archive_index_parse_never_panics_and_round_trips(bytes in handoff_bytes()) {
        if let Ok(index) = ArchiveIndex::parse(&text_of(&bytes)) {
            let again = ArchiveIndex::parse(&index.render()).unwrap();
            prop_assert_eq!(again.entries, index.entries);
        }
    }

    #[test]
    fn trust_parse_and_decay_never_panic_and_decay_is_idempotent(bytes in handoff_bytes()) {
        let text = text_of(&bytes);
        if TrustLedger::parse("TRUST.md", &text).is_ok() {
            let once = trust::decay(&text, today());
            let twice = trust::decay(&once.text, today());
            prop_assert!(twice.decayed.is_empty());
            prop_assert_eq!(twice.text, once.text);
        }
        let _ = trust::mark_unknown(&text, &["p".to_string()]);
    }

    #[test]
    fn ttl_round_trips(days in 0i64..=trust::TTL_MAX_DAYS) {
        let s = trust::format_ttl(days);
        prop_assert_eq!(trust::parse_ttl(&s), Ok(Some(days)));
    }

    #[test]
    fn ttl_above_the_limit_is_refused(days in trust::TTL_MAX_DAYS + 1..i64::MAX) {
        let ttl = format!("{days}d");
        prop_assert!(trust::parse_ttl(&ttl).is_err());
    }

    #[test]
    fn ttl_parse_never_panics(s in "[0-9]{0,25}[dwmy]?") {
        let _ = trust::parse_ttl(&s);
    }

    #[test]
    fn manifest_parse_never_panics_and_round_trips(bytes in prop_oneof![
        handoff_bytes(),
        "\\{(\"[a-z./]{0,6}\": (1e400|-1|null|\\[\\]|\\{\\}|\"[^\"]{0,5}\"), ){0,6}\"files\": \\{\\}\\}".prop_map(String::into_bytes),
    ]) {
        if let Ok(m) = Manifest::parse("MANIFEST.json", &bytes) {
            let again = Manifest::parse("MANIFEST.json", &m.to_bytes()).unwrap();
            prop_assert_eq!(&again.doc, &m.doc);
            let _ = m.files();
            let _ = m.tasks();
            let _ = m.next_task_id();
        }
    }

    #[test]
    fn aiignore_and_allowlist_parse_never_panic(aiignore in handoff_bytes(), allow in handoff_bytes()) {
        let mut files = BTreeMap::new();
        files.insert(".aiignore".to_string(), aiignore);
        files.insert("pii-allowlist.json".to_string(), allow);
        let snap = Snapshot { files, ..Snapshot::default() };
        let _ = LintConfig::from_snapshot(&dir(), &snap, today());
    }
}
