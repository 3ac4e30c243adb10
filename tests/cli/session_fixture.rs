//! A committed handoff directory for the session-lifecycle tests (`begin`, `commit`,
//! `recover`, crash), built from files written here so it needs no other command than
//! `manifest`, and helpers to compare handoff states.

#![allow(
    dead_code,
    reason = "each test module uses a different part of the fixture"
)]
#![allow(
    unreachable_pub,
    reason = "the test binary is its own crate; pub reads naturally here"
)]

use std::collections::BTreeMap;

use crate::support::TestRepo;

/// The handoff directory.
pub const DIR: &str = ".ai/handoff";

/// STATUS.md as committed.
pub const STATUS: &str = "# Status\n\n<!-- SECTION: summary -->\nBuild green; parser half done.\n<!-- /SECTION: summary -->\n";

/// TRUST.md as committed: one claim verified long ago with a short TTL (expired on the test
/// date), one fresh.
pub const TRUST: &str = "\
# Trust

| Property | Status | Provenance | Last Verified | Agent | TTL | Expires | Notes |
|----------|--------|------------|---------------|-------|-----|---------|-------|
| build passes | verified | test_verified | 2026-11-01 | agent-a | 7d | 2026-11-08 | cargo test |
| api documented | assumed | model_claim | 2026-11-20 | agent-a | 30d | 2026-12-20 | - |
";

/// Returns LOG.md text with `n` dated entries, newest first, the newest dated `newest_day`
/// of November 2026.
pub fn log_with(n: usize, newest_day: usize) -> String {
    let mut s = String::from("# Log\n\n");
    for i in 0..n {
        let day = newest_day - i.min(newest_day - 1);
        s.push_str(&format!(
            "## [2026-11-{day:02}] agent-a: Session {}\n\nDid step {}.\n\n---\n\n",
            n - i,
            n - i
        ));
    }
    s
}

/// A repository with a committed handoff directory (`STATUS.md`, `NEXT_ACTIONS.md`, `LOG.md`
/// with 3 entries, `TRUST.md`, a manifest with two tasks) and a README.
pub fn session_repo() -> TestRepo {
    session_repo_with_log(&log_with(3, 20))
}

/// Like [`session_repo`] with a given LOG.md.
pub fn session_repo_with_log(log: &str) -> TestRepo {
    let repo = TestRepo::new();
    repo.write(&format!("{DIR}/STATUS.md"), STATUS);
    repo.write(
        &format!("{DIR}/NEXT_ACTIONS.md"),
        "# Next actions\n\n## T-001: Finish the parser\n\n**Goal:** parse everything.\n",
    );
    repo.write(&format!("{DIR}/LOG.md"), log);
    repo.write(&format!("{DIR}/TRUST.md"), TRUST);
    repo.aahp(&[
        "manifest",
        "--agent",
        "agent-a",
        "--phase",
        "implementation",
    ])
    .assert_code(0);
    // Tasks written by the reference tool must survive every step.
    let path = format!("{DIR}/MANIFEST.json");
    let mut m: serde_json::Value = serde_json::from_str(&repo.read(&path)).unwrap();
    m["tasks"] = serde_json::json!({
        "T-001": {"title": "Finish the parser", "status": "in_progress"},
        "T-002": {"title": "Write docs", "status": "ready"}
    });
    m["next_task_id"] = serde_json::json!(3);
    repo.write(&path, serde_json::to_string_pretty(&m).unwrap() + "\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "handoff"]);
    repo
}

/// The handoff files on disk (name → content), without the lock and temporary files.
pub fn handoff_files(repo: &TestRepo) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(repo.path().join(DIR)).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name == "HANDOFF.lock" || name.starts_with(".aahp-tmp-") || !e.path().is_file() {
            continue;
        }
        out.insert(name, std::fs::read_to_string(e.path()).unwrap());
    }
    out
}

/// The handoff files in a commit (name → content).
pub fn handoff_files_at(repo: &TestRepo, rev: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let names = repo.git(&["ls-tree", "--name-only", &format!("{rev}:{DIR}")]);
    for name in names.lines() {
        out.insert(
            name.to_string(),
            repo.git(&["show", &format!("{rev}:{DIR}/{name}")]),
        );
    }
    out
}

/// Counts dated log entries (`## [YYYY-MM-DD]` headers) in a text.
pub fn count_entries(text: &str) -> usize {
    text.lines()
        .filter(|l| {
            l.strip_prefix("## [")
                .is_some_and(|r| r.len() > 10 && r.as_bytes()[..4].iter().all(u8::is_ascii_digit))
        })
        .count()
}

/// Entries in LOG.md plus LOG-ARCHIVE.md of a state.
pub fn total_entries(files: &BTreeMap<String, String>) -> usize {
    ["LOG.md", "LOG-ARCHIVE.md"]
        .iter()
        .map(|n| files.get(*n).map_or(0, |t| count_entries(t)))
        .sum()
}

/// The task ids in MANIFEST.json of a state.
pub fn task_ids(files: &BTreeMap<String, String>) -> Vec<String> {
    let m: serde_json::Value = serde_json::from_str(&files["MANIFEST.json"]).unwrap();
    m["tasks"]
        .as_object()
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default()
}

/// The HEAD commit id.
pub fn head(repo: &TestRepo) -> String {
    repo.git(&["rev-parse", "HEAD"]).trim().to_string()
}

/// True when a commit journal exists (one per handoff directory, under `.git/aahp/journals/`).
pub fn has_journal(repo: &TestRepo) -> bool {
    repo.exists(".git/aahp/journal.json")
        || std::fs::read_dir(repo.path().join(".git/aahp/journals")).is_ok_and(|d| {
            d.flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "json"))
        })
}

/// True when the lock exists.
pub fn has_lock(repo: &TestRepo) -> bool {
    repo.exists(&format!("{DIR}/HANDOFF.lock"))
}

/// The edits of a typical session: STATUS rewritten, a new log entry on top, a claim
/// raised to verified, a code file staged by the user.
pub fn edit_like_a_session(repo: &TestRepo) {
    repo.write(
        &format!("{DIR}/STATUS.md"),
        "# Status\n\n<!-- SECTION: summary -->\nParser done; docs next.\n<!-- /SECTION: summary -->\n",
    );
    let log = repo.read(&format!("{DIR}/LOG.md"));
    let log = log.replacen(
        "## [",
        "## [2026-11-22] agent-b: Parser finished\n\nFinished the parser.\n\n---\n\n## [",
        1,
    );
    repo.write(&format!("{DIR}/LOG.md"), log);
    let trust = repo.read(&format!("{DIR}/TRUST.md")).replace(
        "| api documented | assumed | model_claim |",
        "| api documented | verified | source_verified |",
    );
    repo.write(&format!("{DIR}/TRUST.md"), trust);
    repo.write("src/parser.rs", "pub fn parse() {}\n");
    repo.git(&["add", "src/parser.rs"]);
}
