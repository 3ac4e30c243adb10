//! A scripted multi-session scenario (issue #15): three sessions by three agents, a crash and
//! its recovery, a hand edit between sessions, another handoff landing during a session, and a
//! task's lifecycle — checked end to end through context, provenance, the tag chain and the
//! receipt.

use crate::support::TestRepo;

const DIR: &str = ".ai/handoff";

fn status(summary: &str) -> String {
    format!(
        "# Status\n\n<!-- SECTION: summary -->\n{summary}\n<!-- /SECTION: summary -->\n\n## Build health\n\nGreen.\n"
    )
}

fn add_log_entry(repo: &TestRepo, heading: &str, body: &str) {
    let log = repo.read(&format!("{DIR}/LOG.md"));
    let log = log.replacen(
        "\n## [",
        &format!("\n{heading}\n\n{body}\n\n---\n\n## ["),
        1,
    );
    repo.write(&format!("{DIR}/LOG.md"), log);
}

fn session_env(id: &str) -> [(&str, &str); 1] {
    [("AAHP_SESSION_ID", id)]
}

#[test]
#[expect(clippy::too_many_lines, reason = "one story, told in order")]
fn three_sessions_a_crash_a_hand_edit_and_a_landed_handoff() {
    let repo = TestRepo::with_handoff();

    // Session 1: alice writes code, the status, a log entry and adds a task.
    repo.aahp(&["begin", "--agent", "alice", "--session-id", "s-1"])
        .assert_code(0);
    repo.aahp_env(
        ".",
        &["task", "add", "Parse nested lists"],
        &session_env("s-1"),
    )
    .assert_code(0);
    repo.write("src/lib.rs", "pub fn parse() {}\n");
    repo.git(&["add", "src/lib.rs"]);
    repo.write(
        &format!("{DIR}/STATUS.md"),
        status("Parser skeleton in place."),
    );
    add_log_entry(
        &repo,
        "## [2026-11-22] alice: Parser skeleton",
        "Wrote the skeleton.",
    );
    let first = repo.aahp(&["commit", "-m", "parser skeleton", "--session-id", "s-1"]);
    first.assert_code(0);
    assert!(first.stdout.contains("tagged aahp/session-1"), "{first}");
    let log = repo.read(&format!("{DIR}/LOG.md"));
    assert!(
        log.contains("## [2026-11-22] alice: Parser skeleton\n\nProvenance: agent `alice`, session `s-1`, 2026-11-22T10:00:00Z, commit before `"),
        "{log}"
    );
    let st = repo.read(&format!("{DIR}/STATUS.md"));
    assert!(
        st.contains("Provenance: agent `alice`, session `s-1`"),
        "{st}"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&repo.read(&format!("{DIR}/MANIFEST.json"))).unwrap();
    assert_eq!(manifest["quick_context"], "Parser skeleton in place.");
    assert_eq!(manifest["last_session"]["agent"], "alice");
    let tag1 = repo.git(&["tag", "-l", "--format=%(contents)", "aahp/session-1"]);
    assert!(tag1.contains("previous: none"), "{tag1}");

    // Session 2: bob claims the task; his first commit crashes and is recovered.
    repo.aahp(&["begin", "--agent", "bob", "--session-id", "s-2"])
        .assert_code(0);
    repo.aahp_env(
        ".",
        &["task", "claim", "T-001", "--agent", "bob"],
        &session_env("s-2"),
    )
    .assert_code(0);
    repo.write("src/lib.rs", "pub fn parse() { /* nested */ }\n");
    repo.git(&["add", "src/lib.rs"]);
    repo.write(
        &format!("{DIR}/STATUS.md"),
        status("Nested lists parse two levels deep."),
    );
    let crashed = repo.aahp_env(
        ".",
        &[
            "commit",
            "-m",
            "nested lists",
            "--session-id",
            "s-2",
            "--log",
            "Nested lists\nTwo levels.",
        ],
        &[("AAHP_FAILPOINT", "commit:manifest")],
    );
    assert_ne!(crashed.code, 0, "{crashed}");
    let context = repo.aahp(&["context"]);
    assert!(
        context.stdout.contains("interrupted `git aahp commit`"),
        "{context}"
    );
    repo.aahp(&["recover"]).assert_code(0);
    repo.aahp(&["begin", "--agent", "bob", "--session-id", "s-2b"])
        .assert_code(0);
    repo.aahp_env(
        ".",
        &["task", "claim", "T-001", "--agent", "bob"],
        &session_env("s-2b"),
    )
    .assert_code(0);
    repo.write(
        &format!("{DIR}/STATUS.md"),
        status("Nested lists parse two levels deep."),
    );
    let second = repo.aahp(&[
        "commit",
        "-m",
        "nested lists",
        "--session-id",
        "s-2b",
        "--log",
        "Nested lists\nTwo levels.",
    ]);
    second.assert_code(0);
    assert!(second.stdout.contains("tagged aahp/session-2"), "{second}");
    let tag2 = repo.git(&["tag", "-l", "--format=%(contents)", "aahp/session-2"]);
    assert!(tag2.contains("previous: aahp/session-1 sha256:"), "{tag2}");
    repo.aahp(&["verify", "--chain"]).assert_code(0);

    // A hand edit between sessions, committed without the protocol.
    repo.write(
        &format!("{DIR}/STATUS.md"),
        repo.read(&format!("{DIR}/STATUS.md"))
            .replace("two levels", "ALL levels"),
    );
    repo.git(&["commit", "-q", "-a", "-m", "tweak status by hand"]);
    let st = repo.aahp(&["status"]);
    assert!(
        st.stdout
            .contains("committed since aahp/session-2 outside a session: .ai/handoff/STATUS.md"),
        "{st}"
    );

    // Session 3: carol; another handoff lands on the branch meanwhile.
    repo.aahp(&["begin", "--agent", "carol", "--session-id", "s-3"])
        .assert_code(0);
    repo.write(
        &format!("{DIR}/NEXT_ACTIONS.md"),
        "# Next\n\n## Active\n\n### T-002: Landed elsewhere\n\nFrom another agent.\n",
    );
    repo.aahp_env(".", &["manifest"], &session_env("s-3"))
        .assert_code(0);
    repo.git(&[
        "add",
        &format!("{DIR}/NEXT_ACTIONS.md"),
        &format!("{DIR}/MANIFEST.json"),
    ]);
    repo.git(&["commit", "-q", "-m", "another agent's handoff"]);
    repo.aahp_env(".", &["task", "done", "T-001"], &session_env("s-3"))
        .assert_code(0);
    repo.write(
        &format!("{DIR}/STATUS.md"),
        status("Nested lists done; docs next."),
    );
    let refused = repo.aahp(&[
        "commit",
        "-m",
        "docs",
        "--session-id",
        "s-3",
        "--log",
        "Closed T-001",
    ]);
    refused.assert_code(1);
    assert!(
        refused
            .stderr
            .contains("another handoff landed on this branch"),
        "{refused}"
    );
    assert!(refused.stderr.contains("--accept-landed"), "{refused}");
    assert!(
        repo.exists(&format!("{DIR}/HANDOFF.lock")),
        "the session keeps its lock"
    );
    let third = repo.aahp(&[
        "commit",
        "-m",
        "docs",
        "--session-id",
        "s-3",
        "--log",
        "Closed T-001",
        "--accept-landed",
    ]);
    third.assert_code(0);
    assert!(third.stdout.contains("tagged aahp/session-3"), "{third}");

    // The chain names where the handoff changed outside the protocol, and which files.
    let chain = repo.aahp(&["verify", "--chain"]);
    chain.assert_code(1);
    assert!(
        chain.stdout.contains(
            "the handoff changed outside the protocol between aahp/session-2 and aahp/session-3"
        ),
        "{chain}"
    );
    assert!(chain.stdout.contains(".ai/handoff/STATUS.md"), "{chain}");
    assert!(
        chain.stdout.contains(".ai/handoff/NEXT_ACTIONS.md"),
        "{chain}"
    );

    // The next agent's read: current quick context, the closed task gone, within budget.
    let read = repo.aahp(&["context", "--json"]);
    read.assert_code(0);
    let json = read.json();
    assert!(json["used_tokens"].as_u64().unwrap() <= 800);
    let text = serde_json::to_string(&json["parts"]).unwrap();
    assert!(text.contains("Nested lists done; docs next."), "{text}");
    assert!(
        !text.contains("Parse nested lists"),
        "a done task is not open: {text}"
    );
    assert!(
        text.contains("Session chain: the handoff changed outside the protocol"),
        "{text}"
    );
    let log = repo.read(&format!("{DIR}/LOG.md"));
    assert_eq!(log.matches("Provenance: agent `").count(), 3, "{log}");
}
