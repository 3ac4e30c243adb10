//! `git aahp status` and `git aahp context`: the read on entry.

use crate::support::TestRepo;
use crate::verify::handoff_repo;

#[test]
fn status_reports_a_healthy_directory() {
    let repo = handoff_repo();
    let out = repo.aahp(&["status"]);
    out.assert_code(0);
    insta::assert_snapshot!(out, @r"
    exit: 0
    --- stdout ---
    handoff .ai/handoff
      ok         STATUS.md
      ok         NEXT_ACTIONS.md
      ok         LOG.md
    quick context: Build green.
    token budget (o200k): manifest 417, +core 447, full 469
    next: run `git aahp context` for the orientation read within your token budget
    --- stderr ---
    ");
}

#[test]
fn status_without_a_directory_points_to_init() {
    let repo = TestRepo::new();
    let out = repo.aahp(&["status", "--json"]);
    out.assert_code(0);
    let json = out.json();
    assert_eq!(json["present"], false);
    assert!(
        json["next_step"]
            .as_str()
            .unwrap()
            .contains("git aahp init")
    );
}

#[test]
fn status_reports_changed_files_a_lock_and_expired_trust() {
    let repo = handoff_repo();
    repo.write(".ai/handoff/STATUS.md", "edited by hand\n");
    repo.write(
        ".ai/handoff/HANDOFF.lock",
        r#"{"agent":"claude","session_id":"s1","started":"2026-11-22T08:00:00Z","expires":"2026-11-22T09:00:00Z"}"#,
    );
    repo.write(
        ".ai/handoff/TRUST.md",
        "# Trust\n\n| Property | Status | Provenance | Last Verified | Agent | TTL | Expires | Notes |\n|---|---|---|---|---|---|---|---|\n| Build passes | verified | test_verified | 2026-11-01 | a | 7d | | |\n| Docs build | verified | test_verified | 2026-11-20 | a | 7d | | |\n",
    );
    let json = repo.aahp(&["status", "--json"]).json();
    assert_eq!(json["lock"]["agent"], "claude");
    assert_eq!(json["lock"]["stale"], true);
    assert_eq!(json["lock"]["age_seconds"], 7200);
    let states: Vec<(String, String)> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_string(),
                f["state"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        states.contains(&("STATUS.md".into(), "changed".into())),
        "{states:?}"
    );
    assert!(
        states.contains(&("TRUST.md".into(), "unindexed".into())),
        "{states:?}"
    );
    assert_eq!(
        json["expired_trust"],
        serde_json::json!(["Build passes (expired on 2026-11-08)"])
    );
    assert!(
        json["next_step"]
            .as_str()
            .unwrap()
            .contains("git aahp recover")
    );
}

#[test]
fn context_stays_within_budget_and_labels_unverified_files() {
    let repo = handoff_repo();
    let mut log = String::from("# Log\n\n");
    for i in (1..=30).rev() {
        log.push_str(&format!(
            "## [2026-10-{:02}] agent-{}: Session {i}\n\nDid the work of session {i}, with tests.\n\n---\n\n",
            i % 28 + 1,
            i % 3
        ));
    }
    repo.write(".ai/handoff/LOG.md", log);
    repo.aahp(&["manifest"]).assert_code(0);
    repo.write(
        ".ai/handoff/STATUS.md",
        "# Status\n\n<!-- SECTION: summary -->\nEdited by hand.\n<!-- /SECTION: summary -->\n",
    );
    for (level, budget) in [("minimal", 400), ("medium", 800), ("full", 1200)] {
        let json = repo.aahp(&["context", "--level", level, "--json"]).json();
        assert_eq!(json["budget"], budget);
        let used = json["used_tokens"].as_u64().unwrap();
        assert!(used <= budget, "{level}: {used} > {budget}");
    }
    let md = repo.aahp(&["context"]);
    md.assert_code(0);
    assert!(
        md.stdout
            .contains("## Status summary (.ai/handoff/STATUS.md, unverified)"),
        "{md}"
    );
    assert!(
        md.stdout.contains(
            "Changed outside the protocol since the manifest (treat as assumed): STATUS.md"
        ),
        "{md}"
    );
    // At most two entries per agent in the default read.
    let logs = md.stdout.matches("## Log: ").count();
    assert!(logs <= 6, "{logs} log parts\n{md}");
    let stated: usize = md
        .stdout
        .split('(')
        .nth(1)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(stated <= 800);
    let debug = repo.aahp(&["context", "--for", "debug", "--budget", "4000"]);
    assert!(debug.stdout.matches("## Log: ").count() > logs, "{debug}");
}

#[test]
fn status_reports_an_interrupted_commit_and_recover_clears_it() {
    let repo = handoff_repo();
    repo.write(
        ".ai/handoff/STATUS.md",
        "# Status\n\nHalf-way through a session.\n",
    );
    let crashed = repo.aahp_env(
        ".",
        &["commit", "--log", "Test session.", "-m", "session"],
        &[("AAHP_FAILPOINT", "commit:manifest")],
    );
    assert_ne!(crashed.code, 0, "{crashed}");
    let json = repo.aahp(&["status", "--json"]).json();
    assert!(json["interrupted_commit"].is_string(), "{json}");
    assert!(
        json["next_step"]
            .as_str()
            .unwrap()
            .contains("git aahp recover")
    );
    repo.aahp(&["recover"]).assert_code(0);
    let json = repo.aahp(&["status", "--json"]).json();
    assert!(json["interrupted_commit"].is_null(), "{json}");
    assert!(json["lock"].is_null(), "{json}");
}

#[test]
fn status_json_is_the_documented_document() {
    let repo = handoff_repo();
    let out = repo.aahp(&["status", "--json"]);
    out.assert_code(0);
    insta::assert_snapshot!("status_json_healthy", out);
}

#[test]
fn status_names_your_own_live_session_instead_of_pointing_to_recover() {
    let repo = handoff_repo();
    repo.aahp(&["begin", "--agent", "claude", "--session-id", "mine"])
        .assert_code(0);
    let later = [("AAHP_NOW", "2026-11-22T10:12:30Z")];
    let out = repo.aahp_env(".", &["status"], &later);
    out.assert_code(0);
    assert!(
        out.stdout
            .contains("session: your session, started 12 minutes ago: claude (session mine"),
        "{out}"
    );
    assert!(
        out.stdout
            .contains("next: your session is open: finish it with `git aahp commit"),
        "{out}"
    );
    assert!(!out.stdout.contains("run `git aahp recover`"), "{out}");
    let json = repo.aahp_env(".", &["status", "--json"], &later).json();
    assert_eq!(json["session"]["state"], "yours");
    assert_eq!(json["session"]["age_minutes"], 12);
    // Another session id is not yours: the lock is reported as held.
    let other = repo.aahp_env(
        ".",
        &["status", "--json", "--session-id", "someone"],
        &later,
    );
    assert_eq!(other.json()["session"]["state"], "other");
}

/// Review s29 #3: without STATUS.md, `status` and `context` tell the next agent so, in the
/// output it reads first, with the way back: restore it from HEAD when HEAD holds it, else
/// `git aahp init`.
#[test]
fn status_and_context_say_status_md_is_missing_and_how_to_bring_it_back() {
    let repo = handoff_repo();
    std::fs::remove_file(repo.path().join(".ai/handoff/STATUS.md")).unwrap();
    let restore = "restore it from HEAD with `git restore --source=HEAD --staged --worktree -- \
                   .ai/handoff/STATUS.md`, or write it from the template with `git aahp init`";
    let out = repo.aahp(&["status"]);
    out.assert_code(0);
    assert!(
        out.stdout.contains(&format!(
            "missing: .ai/handoff/STATUS.md is missing: there is no current state to start \
             from, and the gate refuses a commit without it; {restore}"
        )),
        "{out}"
    );
    let json = repo.aahp(&["status", "--json"]).json();
    assert_eq!(
        json["next_step"].as_str().unwrap(),
        format!("first bring STATUS.md back: {restore} (it keeps the other files)"),
        "{json}"
    );
    let read = repo.aahp(&["context"]);
    read.assert_code(0);
    assert!(
        read.stdout
            .contains("- .ai/handoff/STATUS.md is missing: there is no current state"),
        "{read}"
    );
    assert!(read.stdout.contains(restore), "{read}");
    assert!(
        read.stdout
            .contains("Missing, though the manifest lists them: STATUS.md")
            && !read.stdout.contains("Changed outside the protocol"),
        "{read}"
    );
    // Never committed: only the template can bring it back.
    repo.git(&["rm", "-q", "--cached", ".ai/handoff/STATUS.md"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "no status"]);
    let out = repo.aahp(&["status", "--json"]).json();
    let told = out["status_missing"].as_str().unwrap();
    assert!(
        told.ends_with(
            "write it from the template with `git aahp init` (it keeps the other files)"
        ) && !told.contains("git restore"),
        "{out}"
    );
    // Brought back, nothing is said.
    repo.aahp(&["init"]).assert_code(0);
    let out = repo.aahp(&["status", "--json"]).json();
    assert!(out.get("status_missing").is_none(), "{out}");
}

/// A lock whose `started` lies ahead of the clock: `status` printed a negative age
/// ("-2274797887s old") where `begin` and `context` say "in the future" (review rob35 #9).
#[test]
fn a_lock_started_in_the_future_is_said_to_be_so_not_given_a_negative_age() {
    let repo = crate::session_fixture::session_repo();
    repo.write(
        ".ai/handoff/HANDOFF.lock",
        r#"{"agent": "z", "session_id": "s9", "started": "2099-01-01T00:00:00Z", "expires": "2099-01-01T04:00:00Z", "host": "h", "base_commit": null, "updating": [], "tool_version": "0.1.0"}"#,
    );
    let out = repo.aahp(&["status"]);
    out.assert_code(0);
    assert!(
        out.stdout
            .contains("lock: held by z, started in the future"),
        "{out}"
    );
    assert!(!out.stdout.contains("s old"), "{out}");
    // In JSON too: no age rather than a negative one (review rob36 #10).
    let out = repo.aahp(&["--json", "status"]);
    out.assert_code(0);
    let json = out.json();
    assert_eq!(
        json["lock"]["age_seconds"],
        serde_json::Value::Null,
        "{json}"
    );
    assert_eq!(json["lock"]["started_in_future"], true, "{json}");
}
