//! `git aahp recover`: finish or roll back an interrupted session.

use crate::session_fixture::{
    DIR, STATUS, count_entries, edit_like_a_session, handoff_files, handoff_files_at, has_journal,
    has_lock, head, session_repo, session_repo_with_log,
};

#[test]
fn recover_with_nothing_interrupted_does_nothing() {
    let repo = session_repo();
    let files = handoff_files(&repo);
    let out = repo.aahp(&["recover"]);
    insta::assert_snapshot!(out, @r"
    exit: 0
    --- stdout ---
    nothing to recover: no lock and no interrupted commit
    --- stderr ---
    ");
    assert_eq!(handoff_files(&repo), files);
}

#[test]
fn recover_releases_a_lock_left_by_begin_without_changes() {
    let repo = session_repo();
    repo.aahp(&["begin", "--session-id", "idle"]).assert_code(0);
    let files = handoff_files(&repo);
    // The session is live and this worktree's own: recover says so and changes nothing.
    let out = repo.aahp(&["recover"]);
    out.assert_code(3);
    assert!(out.stderr.contains("your own live session"), "{out}");
    assert!(out.stderr.contains("git aahp commit"), "{out}");
    assert!(has_lock(&repo));
    let out = repo.aahp(&["--json", "recover", "--force"]);
    out.assert_code(0);
    assert_eq!(out.json()["action"], "release_lock");
    assert!(!has_lock(&repo));
    assert_eq!(handoff_files(&repo), files);
    assert_eq!(repo.git(&["for-each-ref", "refs/aahp/"]), "");
    // The next session can begin.
    repo.aahp(&["begin"]).assert_code(0);
}

#[test]
fn recover_clears_the_lock_of_a_killed_begin_only_with_force_while_it_is_fresh() {
    let repo = session_repo();
    // `begin` killed right after publishing the lock: it never recorded its session here.
    let out = repo.aahp_env(
        ".",
        &["begin", "--session-id", "killed"],
        &[("AAHP_FAILPOINT", "lock:linked")],
    );
    assert_ne!(out.code, 0, "{out}");
    assert!(has_lock(&repo));
    let lock: serde_json::Value =
        serde_json::from_str(&repo.read(&format!("{DIR}/HANDOFF.lock"))).unwrap();
    assert_eq!(
        lock["session_id"], "killed",
        "the lock is complete, never half-written"
    );
    let refused = repo.aahp(&["recover"]);
    refused.assert_code(3);
    assert!(refused.stderr.contains("recover --force"), "{refused}");
    let out = repo.aahp(&["recover", "--force"]);
    out.assert_code(0);
    assert!(out.stdout.contains("released a lock left behind:"), "{out}");
    assert!(!has_lock(&repo));
    assert!(repo.path().join(DIR).read_dir().unwrap().all(|e| {
        !e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with(".aahp-tmp-")
    }));
    // Past its expiry no --force is needed.
    repo.aahp_env(
        ".",
        &["begin", "--session-id", "x"],
        &[("AAHP_FAILPOINT", "lock:linked")],
    );
    repo.aahp_env(".", &["recover"], &[("AAHP_NOW", "2026-11-23T10:00:00Z")])
        .assert_code(0);
    assert!(!has_lock(&repo));
}

#[test]
fn recover_with_the_sessions_id_is_allowed() {
    let repo = session_repo();
    repo.aahp_env(
        ".",
        &["begin", "--session-id", "mine"],
        &[("AAHP_FAILPOINT", "lock:linked")],
    );
    repo.aahp(&["recover", "--session-id", "other"])
        .assert_code(3);
    // Its own session, still live: refused without --force, saying whose it is.
    let out = repo.aahp(&["recover", "--session-id", "mine"]);
    out.assert_code(3);
    assert!(out.stderr.contains("your own live session"), "{out}");
    assert!(out.stderr.contains("session mine"), "{out}");
    repo.aahp(&["recover", "--session-id", "mine", "--force"])
        .assert_code(0);
    assert!(!has_lock(&repo));
}

#[test]
fn recover_rolls_back_a_crashed_session_and_saves_its_files() {
    let repo = session_repo();
    let clean = handoff_files(&repo);
    let base = head(&repo);
    repo.aahp(&["begin", "--agent", "agent-b", "--session-id", "s-7"])
        .assert_code(0);
    edit_like_a_session(&repo);
    let session = handoff_files(&repo);
    let out = repo.aahp(&["recover", "--force"]);
    out.assert_code(0);
    assert!(
        out.stdout.contains("rolled back the interrupted session"),
        "{out}"
    );
    assert!(
        out.stdout.contains("saved: refs/aahp/recovered/s-7"),
        "{out}"
    );
    // The session's files are in the saved commit, on top of HEAD.
    assert_eq!(handoff_files_at(&repo, "refs/aahp/recovered/s-7"), session);
    assert_eq!(
        repo.git(&["rev-parse", "refs/aahp/recovered/s-7~1"]).trim(),
        base
    );
    // The directory is back at the clean handoff, plus one recovery entry in LOG.md.
    let now = handoff_files(&repo);
    assert_eq!(now["STATUS.md"], STATUS);
    assert_eq!(now["NEXT_ACTIONS.md"], clean["NEXT_ACTIONS.md"]);
    assert_eq!(
        count_entries(&now["LOG.md"]),
        count_entries(&clean["LOG.md"]) + 1
    );
    assert!(now["LOG.md"].contains("Recovered interrupted session s-7"));
    assert!(now["LOG.md"].contains("refs/aahp/recovered/s-7"));
    assert_eq!(head(&repo), base);
    assert!(!has_lock(&repo) && !has_journal(&repo));
    repo.aahp(&["manifest", "--check"]).assert_code(0);
    // The user's own staged code is not touched.
    assert!(
        repo.git(&["diff", "--cached", "--name-only"])
            .contains("src/parser.rs")
    );
}

#[test]
fn recover_dry_run_prints_the_plan_and_writes_nothing() {
    let repo = session_repo();
    repo.aahp(&["begin", "--session-id", "s-1"]).assert_code(0);
    edit_like_a_session(&repo);
    let files = handoff_files(&repo);
    let lock = repo.read(&format!("{DIR}/HANDOFF.lock"));
    let out = repo.aahp(&["recover", "--dry-run", "--force"]);
    out.assert_code(0);
    assert!(out.stdout.starts_with("recover would:"), "{out}");
    assert!(out.stdout.contains("refs/aahp/recovered/s-1"), "{out}");
    assert_eq!(handoff_files(&repo), files);
    assert_eq!(repo.read(&format!("{DIR}/HANDOFF.lock")), lock);
    assert_eq!(repo.git(&["for-each-ref", "refs/aahp/"]), "");
    assert!(!has_journal(&repo));
    let j = repo
        .aahp(&["--json", "recover", "--dry-run", "--force"])
        .json();
    assert_eq!(j["action"], "roll_back");
    assert_eq!(j["dry_run"], true);
}

#[test]
fn recover_clears_a_garbage_lock() {
    let repo = session_repo();
    repo.write(&format!("{DIR}/HANDOFF.lock"), "{{{ not a lock");
    let out = repo.aahp(&["recover"]);
    out.assert_code(0);
    assert!(!has_lock(&repo));
    repo.aahp(&["begin"]).assert_code(0);
}

/// A lock in the AAHP v2 proposal's format (`agent`, `started`, `updating`: another tool's,
/// or an agent's by hand) is a live session's until `started` + the default TTL: `recover`
/// without `--force` once took it for garbage, removed it and rolled back the files that
/// session was writing (review rob35 #1).
#[test]
fn recover_leaves_a_live_lock_in_the_proposals_format_alone() {
    let repo = session_repo();
    repo.write(
        &format!("{DIR}/HANDOFF.lock"),
        r#"{ "agent": "claude", "started": "2026-11-22T09:59:00Z", "updating": ["STATUS.md"] }"#,
    );
    edit_like_a_session(&repo);
    let files = handoff_files(&repo);
    let out = repo.aahp(&["recover"]);
    out.assert_code(3);
    assert!(out.stderr.contains("claude"), "{out}");
    assert_eq!(handoff_files(&repo), files);
    assert_eq!(repo.git(&["for-each-ref", "refs/aahp/"]), "");
    repo.aahp(&["begin"]).assert_code(3);
    // Past started + 4h it is stale: recover rolls it back and saves its files.
    let out = repo.aahp_env(".", &["recover"], &[("AAHP_NOW", "2026-11-22T14:00:00Z")]);
    out.assert_code(0);
    assert!(!has_lock(&repo));
    assert_ne!(repo.git(&["for-each-ref", "refs/aahp/recovered/"]), "");
}

#[test]
fn recover_refuses_a_live_lock_of_another_session() {
    let repo = session_repo();
    repo.aahp(&["begin", "--session-id", "alive"])
        .assert_code(0);
    edit_like_a_session(&repo);
    let files = handoff_files(&repo);
    let out = repo.aahp(&["recover", "--session-id", "someone-else"]);
    out.assert_code(3);
    assert_eq!(handoff_files(&repo), files);
    assert!(has_lock(&repo));
}

#[test]
fn recover_twice_saves_once() {
    let repo = session_repo();
    repo.aahp(&["begin", "--session-id", "twice"])
        .assert_code(0);
    edit_like_a_session(&repo);
    // Crash recover itself right after it saved the files, then run it again.
    let out = repo.aahp_env(
        ".",
        &["recover", "--force"],
        &[("AAHP_FAILPOINT", "recover:saved")],
    );
    assert_ne!(out.code, 0);
    repo.aahp(&["recover"]).assert_code(0);
    let refs = repo.git(&["for-each-ref", "--format=%(refname)", "refs/aahp/"]);
    assert_eq!(refs.trim(), "refs/aahp/recovered/twice");
    assert!(!has_lock(&repo) && !has_journal(&repo));
    assert_eq!(
        count_entries(&handoff_files(&repo)["LOG.md"]),
        4,
        "three entries plus one recovery entry, not two"
    );
}

/// Runs session `cut`'s `commit`, killed at fail point `point`.
fn commit_killed_at(repo: &crate::support::TestRepo, point: &str) {
    let args = [
        "commit",
        "--log",
        "Test session.",
        "-m",
        "x",
        "--session-id",
        "cut",
    ];
    let out = repo.aahp_env(".", &args, &[("AAHP_FAILPOINT", point)]);
    assert_eq!(out.code, -1, "{out}");
}

#[test]
fn an_interrupted_commit_blocks_new_sessions_until_recovered() {
    let repo = session_repo();
    edit_like_a_session(&repo);
    commit_killed_at(&repo, "commit:release");
    // The commit exists and the lock is gone, but the journal says the session is unfinished.
    assert!(!has_lock(&repo) && has_journal(&repo));
    for args in [&["begin"][..], &["commit", "-m", "again"][..]] {
        let out = repo.aahp(args);
        out.assert_code(3);
        assert!(out.stderr.contains("session cut"), "{out}");
        assert!(out.stderr.contains("was interrupted"), "{out}");
        assert!(out.stderr.contains("git aahp recover"), "{out}");
    }
    let out = repo.aahp(&["--json", "recover"]);
    out.assert_code(0);
    let j = out.json();
    assert_eq!(j["action"], "finish");
    assert_eq!(j["step"], "committed");
    assert_eq!(j["tag"], "aahp/session-1");
    assert_eq!(j["commit"], head(&repo));
    repo.aahp(&["begin"]).assert_code(0);
}

#[test]
fn recover_reports_an_unreadable_journal_and_changes_nothing() {
    let repo = session_repo();
    repo.write(".git/aahp/journal.json", "{\"version\": 1,\n  broken");
    let out = repo.aahp(&["recover"]);
    out.assert_code(2);
    assert!(out.stderr.contains("journal.json:2"), "{out}");
    assert!(
        out.stderr.contains("the commit journal is unreadable"),
        "{out}"
    );
    assert!(has_journal(&repo));
}

#[test]
fn recover_marks_the_claims_the_session_changed_as_untested() {
    let repo = session_repo();
    repo.aahp(&["begin", "--session-id", "claims"])
        .assert_code(0);
    edit_like_a_session(&repo);
    let out = repo.aahp(&["--json", "recover", "--force"]);
    out.assert_code(0);
    assert_eq!(
        out.json()["marked_unknown"],
        serde_json::json!(["api documented"])
    );
    let trust = repo.read(&format!("{DIR}/TRUST.md"));
    assert!(
        trust.contains(
            "| api documented | untested | - | 2026-11-20 | agent-a | 30d | 2026-12-20 | - |"
        ),
        "{trust}"
    );
    // The claim the session did not touch keeps its row.
    assert!(
        trust.contains("| build passes | verified | test_verified |"),
        "{trust}"
    );
    let log = repo.read(&format!("{DIR}/LOG.md"));
    assert!(
        log.contains("marked untested until re-verified: api documented"),
        "{log}"
    );
}

#[test]
fn recover_never_rolls_back_handoff_content_committed_after_the_last_tag() {
    let repo = session_repo();
    repo.aahp(&["begin"]).assert_code(0);
    repo.aahp(&["commit", "--log", "Test session.", "-m", "tagged session"])
        .assert_code(0);
    // A log entry committed by plain `git commit`: the manifest is not regenerated, so this
    // commit's manifest does not verify, but its content is committed work.
    let log = format!("{DIR}/LOG.md");
    let text = repo.read(&log).replacen(
        "## [",
        "## [2026-11-22] human: HUMAN ENTRY\n\nWritten by hand.\n\n---\n\n## [",
        1,
    );
    repo.write(&log, text);
    repo.git(&["commit", "-q", "-am", "log by hand"]);
    let committed = head(&repo);

    repo.aahp(&["begin"]).assert_code(0);
    edit_like_a_session(&repo);
    let crashed = repo.aahp_env(
        ".",
        &["commit", "--log", "Test session.", "-m", "crashes"],
        &[("AAHP_FAILPOINT", "commit:stage")],
    );
    assert_ne!(crashed.code, 0);
    let out = repo.aahp(&["--json", "recover"]);
    out.assert_code(0);
    assert_eq!(out.json()["action"], "roll_back");
    assert_eq!(out.json()["restored_to"], committed.as_str());
    assert!(
        repo.read(&log).contains("HUMAN ENTRY"),
        "the committed entry is kept"
    );
    assert_eq!(head(&repo), committed);
    repo.aahp(&["manifest", "--check"]).assert_code(0);
}

#[test]
fn a_file_name_that_is_not_utf8_never_wedges_recover_or_commits_undo() {
    use std::os::unix::ffi::OsStrExt;
    let repo = session_repo();
    let odd = repo
        .path()
        .join(DIR)
        .join(std::ffi::OsStr::from_bytes(b"\xff\xfe.md"));
    let status = format!("{DIR}/STATUS.md");
    let hook = repo.path().join(".git/hooks/pre-commit");

    // commit's undo: the name appears while `git commit` runs (its hook creates it, then
    // rejects the commit); the undo leaves it where it is and restores everything else.
    repo.aahp(&["begin"]).assert_code(0);
    repo.write(&status, "# Status\n\nsession edit\n");
    repo.write(
        ".git/hooks/pre-commit",
        "#!/bin/sh\nprintf x > \"$(printf '.ai/handoff/\\377\\376.md')\"\nexit 1\n",
    );
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = repo.aahp(&["commit", "--log", "Test session.", "-m", "rejected"]);
    out.assert_code(2);
    assert!(out.stderr.contains("nothing was committed"), "{out}");
    assert!(!has_journal(&repo), "{out}");
    assert!(has_lock(&repo), "the session keeps its lock");
    assert!(repo.read(&status).contains("session edit"));
    assert!(odd.exists());
    std::fs::remove_file(&hook).unwrap();

    // recover names the file and changes nothing until it is moved away.
    let out = repo.aahp(&["recover", "--force"]);
    out.assert_code(2);
    assert!(out.stderr.contains("not valid UTF-8"), "{out}");
    assert!(has_lock(&repo) && !has_journal(&repo));
    assert!(repo.read(&status).contains("session edit"));
    std::fs::rename(&odd, repo.path().join("odd.md")).unwrap();
    let committed = handoff_files_at(&repo, "HEAD");
    let out = repo.aahp(&["--json", "recover", "--force"]);
    out.assert_code(0);
    let saved = out.json()["saved_ref"].as_str().unwrap().to_string();
    assert!(
        repo.git(&["show", &format!("{saved}:{status}")])
            .contains("session edit")
    );
    assert_eq!(repo.read(&status), committed["STATUS.md"]);
    assert!(!has_lock(&repo) && !has_journal(&repo));
    repo.aahp(&["begin"]).assert_code(0);
}

/// A name no command can write, committed in HEAD and removed from the work tree (as the
/// refusal's hint says): a commit killed after its journal then left `recover` refusing
/// that name on every run, `begin` exiting 3 for good (review of issue #12, N1). The
/// roll-back reads only what it needs of the saved copy, so it completes.
#[test]
fn a_name_no_command_can_write_in_head_never_wedges_a_crashed_commit() {
    use std::os::unix::ffi::OsStrExt;
    for point in ["commit:journal", "commit:manifest", "commit:stage"] {
        let repo = session_repo();
        let odd = std::ffi::OsStr::from_bytes(b".ai/handoff/\xff.md");
        std::fs::write(repo.path().join(odd), "# x\n").unwrap();
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "--no-verify", "-m", "odd name"]);
        // `git rm` of the name: removed from the work tree and the index by bytes.
        std::fs::remove_file(repo.path().join(odd)).unwrap();
        repo.git(&["add", "-A", DIR]);
        let status = format!("{DIR}/STATUS.md");
        repo.aahp(&["begin"]).assert_code(0);
        repo.write(&status, "# Status\n\nsession edit\n");
        let out = repo.aahp_env(
            ".",
            &["commit", "-m", "x", "--log", "Crashed."],
            &[("AAHP_FAILPOINT", point)],
        );
        assert_ne!(out.code, 0, "{point}: the commit must stop\n{out}");
        let out = repo.aahp(&["--json", "recover"]);
        assert_eq!(out.code, 0, "{point}: recover must complete\n{out}");
        let saved = out.json()["saved_ref"].as_str().unwrap().to_string();
        assert!(
            repo.git(&["show", &format!("{saved}:{status}")])
                .contains("session edit"),
            "{point}: the session's work is saved"
        );
        assert!(!has_lock(&repo) && !has_journal(&repo), "{point}");
        repo.aahp(&["begin"]).assert_code(0);
    }
}

/// A hand-planted lock whose fields hold a NUL byte (git refuses one in a commit message)
/// never wedges `recover`: the fields reach the saved commit's message through the output
/// boundary, escaped.
#[test]
fn a_nul_byte_planted_in_the_lock_never_wedges_recover() {
    let repo = session_repo();
    repo.aahp(&["begin", "--agent", "agent-b", "--session-id", "p"])
        .assert_code(0);
    // The session record is gone (another machine's lock, say): only the lock speaks.
    std::fs::remove_dir_all(repo.path().join(".git/aahp/sessions")).unwrap();
    let path = format!("{DIR}/HANDOFF.lock");
    let mut lock: serde_json::Value = serde_json::from_str(&repo.read(&path)).unwrap();
    lock["session_id"] = "a\u{0}b".into();
    lock["agent"] = "ev\u{0}il".into();
    repo.write(&path, serde_json::to_string(&lock).unwrap());
    edit_like_a_session(&repo);
    let out = repo.aahp(&["recover", "--force"]);
    out.assert_code(0);
    assert!(!has_lock(&repo) && !has_journal(&repo), "{out}");
    let saved = repo.git(&[
        "for-each-ref",
        "--format=%(refname)",
        "refs/aahp/recovered/",
    ]);
    let saved = saved.trim();
    assert!(!saved.is_empty(), "{out}");
    let message = repo.git(&["log", "-1", "--format=%B", saved]);
    assert!(
        message.contains(r"a\u{0}b") && message.contains(r"ev\u{0}il"),
        "{message}"
    );
    repo.aahp(&["begin", "--agent", "next"]).assert_code(0);
}

/// A `commit` killed while it wrote the index in process leaves git's `.git/index.lock`:
/// `recover` removes it when no process has it open (else no git command could stage or
/// commit again), and leaves one a live process holds open (failing as git does, and
/// completing when rerun once that process is gone).
#[test]
fn recover_removes_an_index_lock_the_interrupted_commit_left() {
    let repo = session_repo();
    repo.aahp(&["begin", "--session-id", "cut"]).assert_code(0);
    repo.write(
        ".ai/handoff/STATUS.md",
        "# Status\n\nThe interrupted session's note.\n",
    );
    commit_killed_at(&repo, "commit:journal");
    let index_lock = repo.path().join(".git/index.lock");

    // A live writer holds it open: left as it is.
    std::fs::write(&index_lock, b"").unwrap();
    let mut holder = std::process::Command::new("sh")
        .arg("-c")
        .arg("exec 3<\"$1\"; exec sleep 30")
        .arg("sh")
        .arg(&index_lock)
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !crate::crash::open_by_any_process(&index_lock) {
        assert!(
            start.elapsed().as_secs() < 20,
            "the holder never opened the lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let out = repo.aahp(&["recover"]);
    let held_through = index_lock.exists();
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert!(held_through, "a lock held open was removed\n{out}");
    assert_eq!(out.code, 2, "{out}");
    assert!(out.stderr.contains("index.lock"), "{out}");

    // Its holder gone, the lock is stale: the rerun removes it, says so, and completes.
    let out = repo.aahp(&["recover"]);
    out.assert_code(0);
    assert!(!index_lock.exists(), "{out}");
    assert!(out.stdout.contains("index.lock"), "{out}");
    assert!(out.stdout.contains("no process had it open"), "{out}");
    repo.aahp(&["begin"]).assert_code(0);
    // git can write the index again.
    repo.git(&["add", "-A"]);
}

/// Lets a waiting editor close when dropped, so a failing test leaves no git behind.
struct Release(std::path::PathBuf);

impl Drop for Release {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.0, b"");
    }
}

/// `git commit -a` keeps the index's lock, closed, while its editor is open: no process has
/// the file open, yet it is not stale. `recover` leaves it, and the commit completes once the
/// editor closes.
#[test]
fn recover_leaves_the_index_lock_of_a_git_waiting_for_its_editor() {
    let repo = session_repo();
    repo.write("notes.txt", "first\n");
    repo.git(&["add", "notes.txt"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "notes"]);
    repo.aahp(&["begin", "--session-id", "cut"]).assert_code(0);
    repo.write(
        ".ai/handoff/STATUS.md",
        "# Status\n\nThe interrupted session's note.\n",
    );
    commit_killed_at(&repo, "commit:journal");

    repo.write("notes.txt", "second\n");
    let release = Release(repo.path().join("editor-may-close"));
    let editor = format!(
        "while [ ! -e '{}' ]; do sleep 0.02; done; true",
        release.0.display()
    );
    let mut git = repo.git_command(&["commit", "-a", "-q", "--no-verify", "-e", "-m", "by hand"]);
    let mut git = git
        .env("GIT_EDITOR", editor)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let index_lock = repo.path().join(".git/index.lock");
    let start = std::time::Instant::now();
    // Written, then closed for as long as the editor is open.
    while !index_lock.exists() || crate::crash::open_by_any_process(&index_lock) {
        assert!(
            start.elapsed().as_secs() < 20,
            "git never took the index lock and closed it"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let status_before = repo.read(".ai/handoff/STATUS.md");
    let out = repo.aahp(&["recover"]);
    let kept = index_lock.exists();
    let status_after = repo.read(".ai/handoff/STATUS.md");
    drop(release);
    let status = git.wait().unwrap();
    assert!(kept, "the lock of a running git was removed\n{out}");
    // Refused before anything changed, naming the git that runs.
    out.assert_code(2);
    assert!(
        out.stderr.contains("index.lock") && out.stderr.contains("runs in this repository"),
        "{out}"
    );
    assert_eq!(
        status_before, status_after,
        "recover changed files before refusing"
    );
    assert!(
        status.success(),
        "the waiting `git commit` failed once its editor closed\n{out}"
    );
    assert_eq!(repo.git(&["log", "-1", "--format=%s"]).trim(), "by hand");
    assert_eq!(repo.git(&["show", "HEAD:notes.txt"]), "second\n");
    assert!(!index_lock.exists());
    // That git gone, the recovery goes through.
    repo.aahp(&["recover"]).assert_code(0);
}

/// A recover refused because another session holds the handoff (exit 3) changes nothing,
/// git's index lock included, even when that lock is stale.
#[test]
fn a_refused_recover_leaves_the_index_lock_alone() {
    let repo = session_repo();
    repo.aahp(&["begin", "--session-id", "owner-1"])
        .assert_code(0);
    let index_lock = repo.path().join(".git/index.lock");
    std::fs::copy(repo.path().join(".git/index"), &index_lock).unwrap();
    let out = repo.aahp_env(".", &["recover"], &[("AAHP_SESSION_ID", "intruder-9")]);
    out.assert_code(3);
    assert!(
        index_lock.exists(),
        "a refused recover removed the index lock\n{out}"
    );
}

/// Issue #12 N4: LOG-ARCHIVE.md only grows, so restoring HEAD's archive after a session
/// appended to it cuts the file back in pieces (`restore-whole:NAME` makes a whole read
/// fail); an archive rewritten in place is still restored, from the blob.
#[test]
fn recover_cuts_a_grown_archive_back_without_reading_it_whole() {
    let mut log = String::from("# Log\n\n");
    for i in (1..=600).rev() {
        log.push_str(&format!(
            "## [2026-11-{:02}] agent-a: Session {i}\n\n{}\n\n---\n\n",
            1 + i % 20,
            "Measured the parser on the corpus and wrote the figures down. ".repeat(30)
        ));
    }
    let repo = session_repo_with_log(&log);
    repo.aahp(&["archive", "--keep", "3"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "archived"]);
    let archive = format!("{DIR}/LOG-ARCHIVE.md");
    let committed = repo.read(&archive);
    assert!(committed.len() > 1024 * 1024, "{}", committed.len());

    repo.aahp(&["begin", "--session-id", "grew"]).assert_code(0);
    repo.write(
        &archive,
        format!("{committed}\nA note the session appended.\n"),
    );
    edit_like_a_session(&repo);
    let out = repo.aahp_env(
        ".",
        &["recover", "--force"],
        &[("AAHP_FAILPOINT", "restore-whole:LOG-ARCHIVE.md")],
    );
    out.assert_code(0);
    assert_eq!(repo.read(&archive), committed);
    assert!(
        handoff_files_at(&repo, "refs/aahp/recovered/grew")["LOG-ARCHIVE.md"]
            .contains("A note the session appended.")
    );

    repo.aahp(&["begin", "--session-id", "rewrote"])
        .assert_code(0);
    repo.write(&archive, committed.replacen("Session", "Sitting", 1));
    repo.aahp(&["recover", "--force"]).assert_code(0);
    assert_eq!(repo.read(&archive), committed);
    repo.aahp(&["manifest", "--check"]).assert_code(0);
    repo.aahp(&["archive", "--verify"]).assert_code(0);
}

/// Issue #12: a version of the archive pair too large to hold (the limit is lowered for the
/// test) is never loaded: `recover` stops with the way out, and once the limit allows it a
/// rerun completes, losing nothing.
#[test]
fn recover_refuses_an_archive_version_past_the_limit_and_a_rerun_completes() {
    let repo = session_repo_with_log(&crate::session_fixture::log_with(30, 20));
    repo.aahp(&["archive", "--keep", "20"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "archived"]);
    let archive = format!("{DIR}/LOG-ARCHIVE.md");
    let committed = repo.read(&archive);
    repo.aahp(&["begin", "--session-id", "rewrote"])
        .assert_code(0);
    repo.write(&archive, committed.replacen("Session", "Sitting", 1));
    edit_like_a_session(&repo);
    let limit = (committed.len() - 1).to_string();
    let out = repo.aahp_env(
        ".",
        &["recover", "--force"],
        &[("AAHP_TEST_MAX_ARCHIVE_BYTES", limit.as_str())],
    );
    out.assert_code(2);
    assert!(
        out.stderr.contains(&format!(
            "LOG-ARCHIVE.md: the version to restore is {} bytes, more than the {limit} bytes",
            committed.len()
        )) && out.stderr.contains("git checkout"),
        "{out}"
    );
    repo.aahp(&["recover", "--force"]).assert_code(0);
    // Restored, then extended by recover's own rotation of LOG.md.
    let now = repo.read(&archive);
    assert!(
        now.starts_with(&committed) && !now.contains("Sitting"),
        "{now}"
    );
    assert!(
        handoff_files_at(&repo, "refs/aahp/recovered/rewrote")["LOG-ARCHIVE.md"]
            .contains("Sitting")
    );
}

/// A session's `chmod` is rolled back with its content: the restored files carry the
/// executable bits HEAD records, and their other bits are left as they were.
#[test]
fn recover_restores_the_executable_bit_head_records() {
    use std::os::unix::fs::PermissionsExt;
    let repo = session_repo();
    let status = repo.path().join(DIR).join("STATUS.md");
    std::fs::set_permissions(&status, std::fs::Permissions::from_mode(0o640)).unwrap();
    repo.aahp(&["begin", "--session-id", "chmod"])
        .assert_code(0);
    edit_like_a_session(&repo);
    std::fs::set_permissions(&status, std::fs::Permissions::from_mode(0o750)).unwrap();
    repo.aahp(&["recover", "--force"]).assert_code(0);
    let mode = std::fs::metadata(&status).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o640, "{mode:o}");
    assert_eq!(repo.read(&format!("{DIR}/STATUS.md")), STATUS);
    assert!(!repo.git(&["diff", "--summary"]).contains("mode change"));
}
