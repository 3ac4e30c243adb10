//! A scripted multi-session scenario (issue #15): three sessions by three agents, a crash
//! rolled back and another finished by `recover`, a hand edit between sessions, another
//! handoff landing during a session, and a task's lifecycle — checked at every step through
//! what the next agent reads (context at several budgets, lock, tasks, quick context),
//! provenance, the tag chain and the receipt.

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

fn manifest(repo: &TestRepo) -> serde_json::Value {
    serde_json::from_str(&repo.read(&format!("{DIR}/MANIFEST.json"))).unwrap()
}

/// A session tag's message.
fn tag_message(repo: &TestRepo, n: u32) -> String {
    repo.git(&[
        "tag",
        "-l",
        "--format=%(contents)",
        &format!("aahp/session-{n}"),
    ])
}

/// The value of a `key: value` field of a session tag's message.
fn tag_field(repo: &TestRepo, n: u32, key: &str) -> String {
    let message = tag_message(repo, n);
    message
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{key}: ")))
        .unwrap_or_else(|| panic!("no `{key}:` in aahp/session-{n}:\n{message}"))
        .to_string()
}

/// What the next agent reads, at the budget the essentials need and at each preset: never
/// over budget, never less at a larger budget, and every read holds `always` (the
/// essentials). Below what the essentials need, `context` declines (exit 1). Returns the
/// read at the default budget as text.
#[track_caller]
fn read_at_budgets(repo: &TestRepo, envs: &[(&str, &str)], always: &[&str]) -> String {
    let tight = repo.aahp_env(".", &["context", "--json", "--budget", "40"], envs);
    tight.assert_code(1);
    let needed = tight.json()["needed_tokens"].as_u64().unwrap();
    let mut before: Vec<String> = Vec::new();
    let mut default_read = String::new();
    for budget in [needed, 400.max(needed), 800.max(needed), 1200.max(needed)] {
        let out = repo.aahp_env(
            ".",
            &["context", "--json", "--budget", &budget.to_string()],
            envs,
        );
        out.assert_code(0);
        let json = out.json();
        assert!(
            json["used_tokens"].as_u64().unwrap() <= budget,
            "over budget {budget}: {out}"
        );
        let titles: Vec<String> = json["parts"]
            .as_array()
            .unwrap()
            .iter()
            // A part shortened to fit a small budget is the same part.
            .map(|p| p["title"].as_str().unwrap().replace(" (shortened)", ""))
            .collect();
        for t in &before {
            assert!(
                titles.contains(t),
                "budget {budget} dropped `{t}` a smaller one had: {out}"
            );
        }
        let text = serde_json::to_string(&json["parts"]).unwrap();
        for want in always {
            assert!(text.contains(want), "budget {budget} lacks `{want}`: {out}");
        }
        if budget == 800.max(needed) {
            default_read = text;
        }
        before = titles;
    }
    default_read
}

#[test]
#[expect(clippy::too_many_lines, reason = "one story, told in order")]
fn three_sessions_a_crash_a_hand_edit_and_a_landed_handoff() {
    let repo = TestRepo::with_handoff();
    // What `init` writes into STATUS and quick_context (its LOG entry keeps its own words).
    let init_placeholder = "Handoff directory initialised on";

    // Session 1: alice begins; the read shows her lock as her own session.
    repo.aahp(&["begin", "--agent", "alice", "--session-id", "s-1"])
        .assert_code(0);
    let s1 = session_env("s-1");
    let added = repo.aahp_env(".", &["task", "add", "Parse nested lists"], &s1);
    added.assert_code(0);
    assert!(added.stdout.contains("T-001"), "{added}");
    let read = read_at_budgets(
        &repo,
        &s1,
        &["HANDOFF.lock is held by your session s-1 (agent alice)"],
    );
    assert!(read.contains("T-001 [ready] Parse nested lists"), "{read}");
    let lock = repo.aahp_env(".", &["context", "--json"], &s1).json()["lock"].clone();
    assert_eq!(lock["yours"], true, "{lock}");
    assert_eq!(lock["agent"], "alice", "{lock}");

    // Code with init's placeholder still in STATUS, then no LOG entry: both declined.
    repo.write("src/lib.rs", "pub fn parse() {}\n");
    repo.git(&["add", "src/lib.rs"]);
    let placeholder = repo.aahp(&["commit", "-m", "parser skeleton", "--session-id", "s-1"]);
    placeholder.assert_code(1);
    assert!(placeholder.stderr.contains("STATUS.md"), "{placeholder}");
    repo.write(
        &format!("{DIR}/STATUS.md"),
        status("Parser skeleton in place."),
    );
    let no_log = repo.aahp(&["commit", "-m", "parser skeleton", "--session-id", "s-1"]);
    no_log.assert_code(1);
    assert!(
        no_log
            .stderr
            .contains("LOG.md has no entry for this session"),
        "{no_log}"
    );
    add_log_entry(
        &repo,
        "## [2026-11-22] alice: Parser skeleton",
        "Wrote the skeleton.",
    );
    let first = repo.aahp(&["commit", "-m", "parser skeleton", "--session-id", "s-1"]);
    first.assert_code(0);
    assert!(
        first.stdout.contains("on main; tagged aahp/session-1"),
        "{first}"
    );
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
    let m = manifest(&repo);
    assert_eq!(m["quick_context"], "Parser skeleton in place.");
    assert_eq!(m["last_session"]["agent"], "alice");
    assert_eq!(m["last_session"]["session_id"], "s-1");
    assert_eq!(tag_field(&repo, 1, "previous"), "none");
    assert_eq!(tag_field(&repo, 1, "agent"), "alice");
    // The next agent's read: current, no lock, the open task.
    let read = read_at_budgets(&repo, &[], &["Parser skeleton in place."]);
    assert!(!read.contains(init_placeholder), "{read}");
    assert!(!read.contains("HANDOFF.lock"), "{read}");
    assert!(read.contains("T-001 [ready] Parse nested lists"), "{read}");

    // Session 2: bob claims the task; his first commit crashes before the commit and is
    // rolled back.
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
    let log_arg = "Nested lists\nTwo levels.";
    let crashed = repo.aahp_env(
        ".",
        &[
            "commit",
            "-m",
            "nested lists",
            "--session-id",
            "s-2",
            "--log",
            log_arg,
        ],
        &[("AAHP_FAILPOINT", "commit:manifest")],
    );
    assert_ne!(crashed.code, 0, "{crashed}");
    let context = repo.aahp(&["context"]);
    assert!(
        context.stdout.contains("interrupted `git aahp commit`"),
        "{context}"
    );
    let rolled = repo.aahp(&["recover"]);
    rolled.assert_code(0);
    assert!(
        rolled
            .stdout
            .contains("rolled back the interrupted session"),
        "{rolled}"
    );

    // Bob starts over; this time the commit exists but the process dies before the tag.
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
    let commit_args = [
        "commit",
        "-m",
        "nested lists",
        "--session-id",
        "s-2b",
        "--log",
        log_arg,
    ];
    let crashed = repo.aahp_env(".", &commit_args, &[("AAHP_FAILPOINT", "commit:committed")]);
    assert_ne!(crashed.code, 0, "{crashed}");
    // The session's own commit is not someone else's change outside the protocol.
    let st = repo.aahp(&["status"]);
    assert!(st.stdout.contains("commit: interrupted"), "{st}");
    assert!(!st.stdout.contains("outside"), "{st}");
    let context = repo.aahp(&["context"]);
    assert!(
        context.stdout.contains("interrupted `git aahp commit`"),
        "{context}"
    );
    assert!(!context.stdout.contains("outside"), "{context}");
    let finished = repo.aahp(&["recover"]);
    finished.assert_code(0);
    assert!(
        finished.stdout.contains("finished the interrupted session")
            && finished.stdout.contains("as aahp/session-2"),
        "{finished}"
    );
    // The chain: session 2 names session 1 and the checksum of its manifest.
    assert_eq!(
        tag_field(&repo, 2, "previous"),
        format!("aahp/session-1 {}", tag_field(&repo, 1, "manifest"))
    );
    assert_eq!(tag_field(&repo, 2, "session"), "s-2b");
    repo.aahp(&["verify", "--chain"]).assert_code(0);
    let read = read_at_budgets(&repo, &[], &["Nested lists parse two levels deep."]);
    assert!(
        read.contains("T-001 [in_progress] Parse nested lists (assigned to bob)"),
        "{read}"
    );
    assert!(!read.contains("Session chain"), "{read}");

    // A hand edit between sessions, with the manifest regenerated so that the checksums
    // agree: only the chain can tell.
    repo.write(
        &format!("{DIR}/STATUS.md"),
        repo.read(&format!("{DIR}/STATUS.md"))
            .replace("two levels", "ALL levels"),
    );
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["commit", "-q", "-a", "-m", "tweak status by hand"]);
    repo.aahp(&["verify"]).assert_code(0);
    let st = repo.aahp(&["status"]);
    assert!(
        st.stdout
            .contains("committed since aahp/session-2 outside a session: .ai/handoff/MANIFEST.json, .ai/handoff/STATUS.md"),
        "{st}"
    );

    // Session 3: carol sees the change flagged in her read.
    repo.aahp(&["begin", "--agent", "carol", "--session-id", "s-3"])
        .assert_code(0);
    let s3 = session_env("s-3");
    read_at_budgets(
        &repo,
        &s3,
        &[
            "HANDOFF.lock is held by your session s-3 (agent carol)",
            "Session chain: committed since aahp/session-2 outside a session",
        ],
    );
    // Another agent's NEXT_ACTIONS edit lands on the branch meanwhile (no manifest).
    repo.write(
        &format!("{DIR}/NEXT_ACTIONS.md"),
        "# Next\n\n## Active\n\n### Landed elsewhere\n\nFrom another agent.\n",
    );
    repo.git(&["commit", "-q", "-a", "-m", "another agent's handoff"]);
    // The task's lifecycle ends: T-001 done, a new one opened.
    repo.aahp_env(".", &["task", "done", "T-001"], &s3)
        .assert_code(0);
    repo.aahp_env(".", &["task", "add", "Write the docs"], &s3)
        .assert_code(0);
    repo.write(
        &format!("{DIR}/STATUS.md"),
        status("Nested lists done; docs next."),
    );
    let third_args = [
        "commit",
        "-m",
        "docs",
        "--session-id",
        "s-3",
        "--log",
        "Closed T-001",
    ];
    let refused = repo.aahp(&third_args);
    refused.assert_code(1);
    assert!(
        refused
            .stderr
            .contains("another handoff landed on this branch"),
        "{refused}"
    );
    assert!(
        refused.stderr.contains(".ai/handoff/NEXT_ACTIONS.md"),
        "{refused}"
    );
    assert!(refused.stderr.contains("--accept-landed"), "{refused}");
    assert!(
        repo.exists(&format!("{DIR}/HANDOFF.lock")),
        "the session keeps its lock"
    );
    let mut accepted = third_args.to_vec();
    accepted.push("--accept-landed");
    let third = repo.aahp(&accepted);
    third.assert_code(0);
    assert!(third.stdout.contains("tagged aahp/session-3"), "{third}");
    assert_eq!(
        tag_field(&repo, 3, "previous"),
        format!("aahp/session-2 {}", tag_field(&repo, 2, "manifest"))
    );

    // The chain names where the handoff changed outside the protocol, and which files.
    let chain = repo.aahp(&["verify", "--chain"]);
    chain.assert_code(1);
    assert!(
        chain.stdout.contains(
            "the handoff changed outside the protocol between aahp/session-2 and aahp/session-3 \
             (changed: .ai/handoff/MANIFEST.json, .ai/handoff/NEXT_ACTIONS.md, .ai/handoff/STATUS.md)"
        ),
        "{chain}"
    );
    let chain = repo.aahp(&["verify", "--chain", "--json"]).json();
    let text = chain.to_string();
    assert!(text.contains("aahp/session-3"), "{text}");

    // The next agent's read: current quick context, the closed task gone, the new one
    // there, the break flagged, within every budget.
    let read = read_at_budgets(
        &repo,
        &[],
        &[
            "Nested lists done; docs next.",
            "Session chain: the handoff changed outside the protocol between aahp/session-2 and aahp/session-3",
        ],
    );
    assert!(read.contains("T-002 [ready] Write the docs"), "{read}");
    assert!(
        !read.contains("Parse nested lists"),
        "a done task is not open: {read}"
    );
    let m = manifest(&repo);
    assert_eq!(m["quick_context"], "Nested lists done; docs next.");
    assert_eq!(m["last_session"]["agent"], "carol");
    assert_eq!(m["tasks"]["T-001"]["status"], "done");
    let log = repo.read(&format!("{DIR}/LOG.md"));
    assert_eq!(log.matches("Provenance: agent `").count(), 3, "{log}");
    repo.aahp(&["verify"]).assert_code(0);
}
