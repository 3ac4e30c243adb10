//! `git aahp begin`: the session lock.

use std::time::{Duration, Instant};

use crate::session_fixture::{DIR, has_lock, head, session_repo};
use crate::support::TestRepo;

fn lock_json(repo: &TestRepo) -> serde_json::Value {
    serde_json::from_str(&repo.read(&format!("{DIR}/HANDOFF.lock"))).unwrap()
}

#[test]
fn begin_takes_the_lock_and_prints_the_session_id() {
    let repo = session_repo();
    let out = repo.aahp(&[
        "begin",
        "--agent",
        "agent-b",
        "--updating",
        "STATUS.md",
        "LOG.md",
    ]);
    out.assert_code(0);
    let id = out.stdout.lines().next().unwrap();
    assert!(id.starts_with("20261122T100000Z-"), "{out}");
    let lock = lock_json(&repo);
    assert_eq!(lock["agent"], "agent-b");
    assert_eq!(lock["session_id"], id);
    assert_eq!(lock["started"], "2026-11-22T10:00:00Z");
    assert_eq!(lock["expires"], "2026-11-22T14:00:00Z");
    assert_eq!(lock["base_commit"], head(&repo));
    assert_eq!(lock["updating"], serde_json::json!(["STATUS.md", "LOG.md"]));
    assert_eq!(lock["tool_version"], env!("CARGO_PKG_VERSION"));
    assert!(lock["host"].as_str().is_some_and(|h| !h.is_empty()));
    // The lock is not something git would offer to commit by itself: it is untracked, and
    // nothing staged it.
    assert!(
        !repo
            .git(&["diff", "--cached", "--name-only"])
            .contains("HANDOFF.lock")
    );
}

#[test]
fn begin_json_reports_the_session() {
    let repo = session_repo();
    let out = repo.aahp(&[
        "--json",
        "begin",
        "--agent",
        "a",
        "--session-id",
        "s-1",
        "--ttl",
        "30m",
    ]);
    out.assert_code(0);
    let j = out.json();
    assert_eq!(j["command"], "begin");
    assert_eq!(j["session_id"], "s-1");
    assert_eq!(j["expires"], "2026-11-22T10:30:00Z");
    assert_eq!(j["lock"], ".ai/handoff/HANDOFF.lock");
}

#[test]
fn begin_when_held_exits_3_naming_holder_and_age_and_leaves_the_lock() {
    let repo = session_repo();
    repo.aahp(&["begin", "--agent", "agent-a", "--session-id", "first"])
        .assert_code(0);
    let before = repo.read(&format!("{DIR}/HANDOFF.lock"));
    let out = repo.aahp_env(
        ".",
        &["begin", "--agent", "agent-b"],
        &[("AAHP_NOW", "2026-11-22T11:05:00Z")],
    );
    insta::assert_snapshot!(out, @r"
    exit: 3
    --- stdout ---
    --- stderr ---
    error: the handoff is locked by agent-a (session first) since 2026-11-22T10:00:00Z (1h 5m ago)
    hint: wait for that session to run `git aahp commit` (or retry with `--wait SECONDS`); if it is gone, `git aahp recover --force` saves its files and clears the lock
    ");
    assert_eq!(repo.read(&format!("{DIR}/HANDOFF.lock")), before);
}

#[test]
fn begin_reports_a_stale_lock_and_never_takes_it_over() {
    let repo = session_repo();
    repo.aahp(&[
        "begin",
        "--agent",
        "agent-a",
        "--session-id",
        "old",
        "--ttl",
        "1h",
    ])
    .assert_code(0);
    let before = repo.read(&format!("{DIR}/HANDOFF.lock"));
    let out = repo.aahp_env(
        ".",
        &["begin", "--agent", "agent-b"],
        &[("AAHP_NOW", "2026-11-22T13:00:00Z")],
    );
    out.assert_code(3);
    assert!(out.stderr.contains("stale"), "{out}");
    assert!(out.stderr.contains("git aahp recover"), "{out}");
    assert_eq!(repo.read(&format!("{DIR}/HANDOFF.lock")), before);
}

#[test]
fn begin_takes_the_lifetime_from_git_config() {
    let repo = session_repo();
    repo.git(&["config", "aahp.lockTtl", "90m"]);
    repo.aahp(&["begin"]).assert_code(0);
    assert_eq!(lock_json(&repo)["expires"], "2026-11-22T11:30:00Z");
}

#[test]
fn begin_rejects_a_bad_lifetime_and_takes_no_lock() {
    let repo = session_repo();
    let out = repo.aahp(&["begin", "--ttl", "soon"]);
    out.assert_code(2);
    assert!(out.stderr.contains("invalid lock lifetime `soon`"), "{out}");
    assert!(!has_lock(&repo));
}

#[test]
fn begin_wait_succeeds_once_the_holder_releases() {
    let repo = session_repo();
    repo.aahp(&["begin", "--session-id", "holder"])
        .assert_code(0);
    let mut waiter = repo
        .aahp_command(&["begin", "--session-id", "waiter", "--wait", "20"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    assert!(
        waiter.try_wait().unwrap().is_none(),
        "the waiter must still be waiting"
    );
    std::fs::remove_file(repo.path().join(DIR).join("HANDOFF.lock")).unwrap();
    let status = waiter.wait().unwrap();
    assert!(status.success());
    assert_eq!(lock_json(&repo)["session_id"], "waiter");
}

#[test]
fn begin_wait_gives_up_after_the_given_time() {
    let repo = session_repo();
    repo.aahp(&["begin", "--session-id", "holder"])
        .assert_code(0);
    let start = Instant::now();
    let out = repo.aahp(&["begin", "--wait", "1"]);
    out.assert_code(3);
    assert!(start.elapsed() >= Duration::from_secs(1));
    assert_eq!(lock_json(&repo)["session_id"], "holder");
}

#[test]
fn begin_with_a_garbage_lock_exits_3_and_leaves_it() {
    let repo = session_repo();
    repo.write(&format!("{DIR}/HANDOFF.lock"), "{ this is not json\n");
    let out = repo.aahp(&["begin"]);
    out.assert_code(3);
    assert!(out.stderr.contains("HANDOFF.lock is unreadable"), "{out}");
    assert!(out.stderr.contains("git aahp recover"), "{out}");
    assert_eq!(
        repo.read(&format!("{DIR}/HANDOFF.lock")),
        "{ this is not json\n"
    );
}

#[test]
fn begin_on_a_detached_head_exits_2_and_takes_no_lock() {
    let repo = session_repo();
    repo.git(&["checkout", "-q", "--detach"]);
    let out = repo.aahp(&["begin"]);
    out.assert_code(2);
    assert!(out.stderr.contains("HEAD is detached"), "{out}");
    assert!(!has_lock(&repo));
}

#[test]
fn begin_in_a_repository_without_commits_exits_2() {
    let repo = TestRepo::unborn();
    repo.write(&format!("{DIR}/STATUS.md"), "# Status\n");
    let out = repo.aahp(&["begin"]);
    out.assert_code(2);
    assert!(out.stderr.contains("has no commits yet"), "{out}");
    assert!(!has_lock(&repo));
    assert_eq!(repo.read(&format!("{DIR}/STATUS.md")), "# Status\n");
}

#[test]
fn begin_on_an_unborn_branch_exits_2() {
    let repo = session_repo();
    repo.git(&["checkout", "-q", "--orphan", "fresh"]);
    let out = repo.aahp(&["begin"]);
    out.assert_code(2);
    assert!(
        out.stderr.contains("the branch `fresh` has no commits yet"),
        "{out}"
    );
    assert!(!has_lock(&repo));
}

#[test]
fn begin_without_a_handoff_directory_exits_2() {
    let repo = TestRepo::new();
    let out = repo.aahp(&["begin"]);
    out.assert_code(2);
    assert!(out.stderr.contains("no handoff directory"), "{out}");
}

#[test]
fn begin_never_writes_a_lock_it_cannot_read_back() {
    let repo = session_repo();
    let long = "a".repeat(70_000);
    let out = repo.aahp(&["begin", "--agent", &long]);
    out.assert_code(2);
    assert!(out.stderr.contains("KiB a lock may hold"), "{out}");
    assert!(!has_lock(&repo), "{out}");
    let mut args = vec!["begin".to_string(), "--agent".into(), "a".into()];
    for i in 0..700 {
        args.push("--updating".into());
        args.push(format!("{i}{}", "F".repeat(100)));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    repo.aahp(&args).assert_code(2);
    assert!(!has_lock(&repo));
    // Within the limit, the session's own commands read the lock it wrote.
    repo.aahp(&["begin", "--agent", &"b".repeat(10_000)])
        .assert_code(0);
    repo.aahp(&["status"]).assert_code(0);
}

#[test]
fn the_lock_is_created_with_the_umask_like_every_new_file() {
    let repo = session_repo();
    crate::archive::aahp_with_umask(&repo, "022", "begin --agent a");
    assert_eq!(
        crate::archive::mode(&repo, &format!("{DIR}/HANDOFF.lock")),
        0o644
    );
    repo.aahp(&["recover", "--force"]).assert_code(0);
    crate::archive::aahp_with_umask(&repo, "077", "begin --agent a");
    assert_eq!(
        crate::archive::mode(&repo, &format!("{DIR}/HANDOFF.lock")),
        0o600
    );
}

/// `begin`, and `commit` without a session, publish the lock and then record the session in
/// the git directory. When that record cannot be written (a full disk, no permission; here
/// a file where its directory goes) the command fails, and once left the lock behind: held
/// by a session nobody could name, it made the rerun, `task`, and `recover` exit 3 until
/// `recover --force` (review rob35 #3). A failed command takes back the lock it took.
#[test]
fn a_begin_or_commit_that_cannot_record_its_session_leaves_no_lock() {
    let repo = session_repo();
    let sessions = repo.path().join(".git/aahp/sessions");
    let _ = std::fs::remove_dir_all(&sessions);
    std::fs::create_dir_all(sessions.parent().unwrap()).unwrap();
    std::fs::write(&sessions, "not a directory").unwrap();
    let out = repo.aahp(&["begin", "--agent", "a"]);
    out.assert_code(2);
    assert!(!has_lock(&repo), "{out}");
    crate::session_fixture::edit_like_a_session(&repo);
    let out = repo.aahp(&["commit", "-m", "session"]);
    out.assert_code(2);
    assert!(!has_lock(&repo), "{out}");
    // With the fault gone, the rerun works.
    std::fs::remove_file(&sessions).unwrap();
    repo.aahp(&["begin", "--agent", "a"]).assert_code(0);
    repo.aahp(&["commit", "-m", "session"]).assert_code(0);
}
