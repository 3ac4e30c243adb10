//! Crash safety, proven (issue #4): `commit` killed at every fail point (and by a real
//! SIGKILL), then `recover`, always ends in the complete new state or the last clean state,
//! with the crashed session's files retrievable and nothing lost; and two racing `begin`
//! never both win.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::{Duration, Instant};

use git_aahp::commands::archive::ARCHIVE_FAILPOINTS;
use git_aahp::commands::commit::COMMIT_FAILPOINTS;

use crate::session_fixture::{
    DIR, edit_like_a_session, handoff_files, handoff_files_at, has_journal, has_lock, head,
    log_with, session_repo_with_log, task_ids, total_entries,
};
use crate::support::TestRepo;

/// How a crash ended after `recover`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// The session's commit exists and is complete (tagged, no lock).
    CompleteNew,
    /// Rolled back to the last clean handoff; the session's files saved under a ref.
    LastClean,
    /// The crash came before `commit` changed anything: the session's edits are untouched.
    Untouched,
    /// The point is not on this path (`begin` already took the lock): a normal commit.
    NotReached,
}

/// The state before the crash, to compare with.
struct Before {
    clean_head: String,
    clean: BTreeMap<String, String>,
    session: BTreeMap<String, String>,
}

fn prepare(with_begin: bool, session_id: &str) -> (TestRepo, Before) {
    // Eleven entries plus the session's one: rotation has work to do at keep = 10.
    let repo = session_repo_with_log(&log_with(11, 20));
    let clean_head = head(&repo);
    let clean = handoff_files(&repo);
    if with_begin {
        repo.aahp(&["begin", "--agent", "agent-b", "--session-id", session_id])
            .assert_code(0);
    }
    edit_like_a_session(&repo);
    let session = handoff_files(&repo);
    (
        repo,
        Before {
            clean_head,
            clean,
            session,
        },
    )
}

/// Asserts the invariants after a crash and recovery, and classifies the result.
#[track_caller]
fn check_after(repo: &TestRepo, before: &Before, session_id: &str, context: &str) -> Outcome {
    assert!(!has_lock(repo), "{context}: the lock remains");
    assert!(!has_journal(repo), "{context}: the journal remains");
    assert!(
        !repo.path().join(".git/index.lock").exists(),
        "{context}: .git/index.lock remains"
    );
    let leftovers: Vec<String> = std::fs::read_dir(repo.path().join(DIR))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".aahp-tmp-"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "{context}: temp files remain: {leftovers:?}"
    );
    // `verify` passes; after a rollback its drift layer rightly notes that the user's staged
    // code is no longer described by the (rolled back) STATUS.md, and nothing else.
    let manifest_verifies = |allow_drift: bool| {
        let check = repo.aahp(&["manifest", "--check"]);
        assert_eq!(
            check.code, 0,
            "{context}: manifest does not verify\n{check}"
        );
        let verify = repo.aahp(&["--json", "verify"]);
        for layer in verify.json()["layers"].as_array().unwrap() {
            let name = layer["layer"].as_str().unwrap();
            if allow_drift && name == "drift" {
                continue;
            }
            assert_ne!(layer["status"], "fail", "{context}: verify fails\n{verify}");
        }
        if !allow_drift {
            assert_eq!(verify.code, 0, "{context}: verify fails\n{verify}");
        }
    };
    let now = handoff_files(repo);
    assert_eq!(
        task_ids(&now),
        ["T-001", "T-002"],
        "{context}: a task was lost"
    );
    let saved_ref = format!("refs/aahp/recovered/{session_id}");
    let saved = repo
        .git_output(&["rev-parse", "--verify", "-q", &saved_ref])
        .code
        == 0;

    if head(repo) != before.clean_head {
        // The complete new state: one commit on the clean head, tagged, equal to the tree.
        assert_eq!(
            repo.git(&["rev-parse", "HEAD~1"]).trim(),
            before.clean_head,
            "{context}: more than one commit"
        );
        assert_eq!(
            now,
            handoff_files_at(repo, "HEAD"),
            "{context}: tree differs"
        );
        assert!(
            repo.git(&["tag", "--points-at", "HEAD"])
                .contains("aahp/session-"),
            "{context}: the commit is not tagged"
        );
        // The session's STATUS.md, with the provenance line `commit` stamps into it.
        let words = |s: &str| {
            s.lines()
                .filter(|l| !l.starts_with("Provenance: "))
                .flat_map(str::split_whitespace)
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(
            words(&now["STATUS.md"]),
            words(&before.session["STATUS.md"]),
            "{context}"
        );
        assert!(
            now["STATUS.md"].contains("Provenance: agent `"),
            "{context}"
        );
        assert_eq!(
            total_entries(&now),
            total_entries(&before.session),
            "{context}: log entries lost or duplicated"
        );
        assert!(!saved, "{context}: a finished session needs no saved copy");
        manifest_verifies(false);
        return Outcome::CompleteNew;
    }
    if !saved {
        // Nothing was changed: the session's edits are as the agent left them.
        assert_eq!(
            now, before.session,
            "{context}: files changed without a saved copy"
        );
        return Outcome::Untouched;
    }
    check_last_clean(repo, before, &now, session_id, context, &saved_ref);
    manifest_verifies(true);
    Outcome::LastClean
}

/// The last clean state, plus a recovery entry, with the session's files saved.
#[track_caller]
fn check_last_clean(
    repo: &TestRepo,
    before: &Before,
    now: &BTreeMap<String, String>,
    session_id: &str,
    context: &str,
    saved_ref: &str,
) {
    // The last clean state, plus a recovery entry, with the session's files saved.
    assert_eq!(
        handoff_files_at(repo, saved_ref),
        before.session,
        "{context}: the saved copy is not the session's content"
    );
    for (name, text) in &before.clean {
        match name.as_str() {
            "LOG.md" | "MANIFEST.json" | "TRUST.md" => {}
            _ => assert_eq!(&now[name], text, "{context}: {name} is not the clean one"),
        }
    }
    assert!(
        now["LOG.md"].contains(&format!("Recovered interrupted session {session_id}")),
        "{context}: no recovery entry"
    );
    assert_eq!(
        total_entries(now),
        total_entries(&before.clean) + 1,
        "{context}: log entries lost"
    );
    for line in before.clean["LOG.md"]
        .lines()
        .filter(|l| l.starts_with("## ["))
    {
        assert!(
            now["LOG.md"].contains(line)
                || now.get("LOG-ARCHIVE.md").is_some_and(|a| a.contains(line)),
            "{context}: lost {line}"
        );
    }
    assert!(
        repo.git(&["diff", "--cached", "--name-only"])
            .contains("src/parser.rs"),
        "{context}: the user's staged code was unstaged"
    );
}

#[test]
fn commit_crash_at_every_fail_point_recovers_without_loss() {
    let mut table: BTreeMap<(&str, &str), Outcome> = BTreeMap::new();
    for (i, point) in COMMIT_FAILPOINTS.iter().enumerate() {
        for with_begin in [true, false] {
            let mode = if with_begin { "begin+commit" } else { "commit" };
            let sid = format!("crash-{i}-{}", u8::from(with_begin));
            let context = format!("{point} ({mode})");
            let (repo, before) = prepare(with_begin, &sid);
            let out = repo.aahp_env(
                ".",
                &["commit", "-m", "Parser finished", "--session-id", &sid],
                &[("AAHP_FAILPOINT", point)],
            );
            if out.code == 0 {
                // The point is not on this path (the lock was taken by `begin`).
                assert!(
                    with_begin && *point == "lock:linked",
                    "{context}: not reached\n{out}"
                );
                assert_eq!(
                    check_after(&repo, &before, &sid, &context),
                    Outcome::CompleteNew
                );
                table.insert((point, mode), Outcome::NotReached);
                continue;
            }
            assert_eq!(out.code, -1, "{context}: expected an abort\n{out}");
            // A `git commit` the abort left running decides the outcome: recover waits.
            wait_for("an orphaned git commit to finish", || {
                !write_lock_held(&repo)
            });
            // Recover as the same session would: by id, or by the worktree's record. A crash
            // before the journal leaves the session's live lock, which recover leaves alone
            // unless forced (issue #17): the agent knows its process died.
            let rec = if with_begin {
                repo.aahp(&["recover", "--force"])
            } else {
                repo.aahp(&["recover", "--session-id", &sid, "--force"])
            };
            assert_eq!(rec.code, 0, "{context}: recover failed\n{rec}");
            table.insert((point, mode), check_after(&repo, &before, &sid, &context));
        }
    }
    let mut counts: BTreeMap<Outcome, usize> = BTreeMap::new();
    println!("commit fail points x outcomes:");
    for ((point, mode), outcome) in &table {
        println!("  {point:<24} {mode:<13} {outcome:?}");
        *counts.entry(*outcome).or_default() += 1;
    }
    println!(
        "commit crash summary: {} runs ({} points x 2 modes): {counts:?}",
        table.len(),
        COMMIT_FAILPOINTS.len()
    );
    assert_eq!(table.len(), COMMIT_FAILPOINTS.len() * 2);
    // Both ends are exercised: crashes before the commit roll back, after it finish.
    assert!(counts.get(&Outcome::LastClean).is_some_and(|n| *n > 0));
    assert!(counts.get(&Outcome::CompleteNew).is_some_and(|n| *n > 0));
}

/// A session repository whose LOG-ARCHIVE.md and index are committed (4 entries) and whose
/// LOG.md holds 12 entries: the next `archive` moves 2 and extends both files in place.
fn appending_repo(log: &str) -> TestRepo {
    let repo = session_repo_with_log(log);
    repo.aahp(&["archive", "--keep", "12"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "archived"]);
    repo
}

#[test]
fn archive_crash_at_every_fail_point_completes_when_rerun() {
    // The complete new state: the same repository archived without a crash. The archive
    // exists and is extended in place, so every fail point is reached.
    let log = log_with(16, 20);
    let reference = appending_repo(&log);
    reference.aahp(&["archive"]).assert_code(0);
    // Files compared as they are; of the manifest what a rotation changes (file entries,
    // tasks), not what differs between two temporary repositories (project name, commit,
    // and the token budget, which counts the manifest itself).
    let normal = |mut files: BTreeMap<String, String>| {
        let m: serde_json::Value = serde_json::from_str(&files["MANIFEST.json"]).unwrap();
        let kept = serde_json::json!({
            "files": m["files"],
            "tasks": m["tasks"],
            "next_task_id": m["next_task_id"],
        });
        files.insert("MANIFEST.json".into(), kept.to_string());
        files
    };
    let expected = normal(handoff_files(&reference));
    assert_eq!(
        crate::session_fixture::count_entries(&expected["LOG.md"]),
        10
    );
    let mut table = Vec::new();
    for point in ARCHIVE_FAILPOINTS {
        let repo = appending_repo(&log);
        let before = normal(handoff_files(&repo));
        let out = repo.aahp_env(".", &["archive"], &[("AAHP_FAILPOINT", point)]);
        assert_eq!(out.code, -1, "{point}: expected an abort\n{out}");
        let crashed = normal(handoff_files(&repo));
        let state = if crashed == before {
            "old"
        } else if crashed == expected {
            "new"
        } else {
            "partial"
        };
        assert!(
            total_entries(&crashed) >= total_entries(&before),
            "{point}: an entry is missing right after the crash"
        );
        let rerun = repo.aahp(&["archive"]);
        assert_eq!(rerun.code, 0, "{point}: rerun failed\n{rerun}");
        let now = normal(handoff_files(&repo));
        let differing: Vec<(&String, &String)> = now
            .iter()
            .filter(|(k, v)| expected.get(*k) != Some(*v))
            .collect();
        assert!(
            differing.is_empty() && now.len() == expected.len(),
            "{point}: rerun did not reach the complete new state: {differing:#?}"
        );
        assert_eq!(
            total_entries(&now),
            total_entries(&before),
            "{point}: entries lost"
        );
        assert_eq!(
            task_ids(&now),
            ["T-001", "T-002"],
            "{point}: a task was lost"
        );
        repo.aahp(&["archive", "--verify"]).assert_code(0);
        repo.aahp(&["manifest", "--check"]).assert_code(0);
        let verify = repo.aahp(&["verify"]);
        assert_eq!(verify.code, 0, "{point}: verify fails\n{verify}");
        assert!(!has_lock(&repo), "{point}: a lock remains");
        assert!(
            std::fs::read_dir(repo.path().join(DIR)).unwrap().all(|e| !e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".aahp-tmp-")),
            "{point}: temp files remain"
        );
        table.push((*point, state));
    }
    println!("archive fail points x outcomes (state at the crash -> after rerun):");
    for (point, state) in &table {
        println!("  {point:<24} crashed in {state:<7} state -> complete new state");
    }
    println!(
        "archive crash summary: {} points, {} reached the complete new state on rerun",
        table.len(),
        table.len()
    );
}

/// A writer killed after its files and before MANIFEST.json (the window between the end of
/// a rotation and the manifest's write) leaves its one-write lock: `recover` alone, with no
/// rerun of the command, brings the manifest up to date. Found by the SIGKILL loop: a
/// `recover` killed inside the rotation that follows its roll-back left a stale manifest the
/// next `recover` released the lock over.
#[test]
fn recover_refreshes_the_manifest_a_writer_killed_before_it_left_behind() {
    let crash = [("AAHP_FAILPOINT", "archive:rotated")];
    // After a roll-back, `drift` rightly notes the staged code STATUS.md no longer describes.
    let settled = |repo: &TestRepo, context: &str| {
        let check = repo.aahp(&["manifest", "--check"]);
        assert_eq!(check.code, 0, "{context}: manifest stale\n{check}");
        let verify = repo.aahp(&["--json", "verify"]);
        for layer in verify.json()["layers"].as_array().unwrap() {
            if layer["layer"] != "drift" {
                assert_ne!(layer["status"], "fail", "{context}: verify fails\n{verify}");
            }
        }
        assert!(!has_lock(repo), "{context}: the lock remains");
        assert!(!has_journal(repo), "{context}: the journal remains");
    };

    // `archive` itself, then `recover`.
    let repo = appending_repo(&log_with(16, 20));
    let out = repo.aahp_env(".", &["archive"], &crash);
    assert_eq!(out.code, -1, "expected an abort\n{out}");
    assert!(has_lock(&repo));
    let stale = repo.aahp(&["manifest", "--check"]);
    assert_eq!(stale.code, 1, "the crash left the manifest behind\n{stale}");
    let rec = repo.aahp(&["recover"]);
    assert_eq!(rec.code, 0, "{rec}");
    assert!(rec.stdout.contains("refreshed"), "{rec}");
    settled(&repo, "archive killed, then recover");

    // A roll-back whose rotation of LOG.md (the recovery entry takes it past keep) is killed
    // at the same point, then `recover` again.
    let (repo, _) = prepare(true, "rolled");
    let out = repo.aahp_env(".", &["recover", "--force"], &crash);
    assert_eq!(out.code, -1, "expected an abort\n{out}");
    let rec = repo.aahp(&["recover", "--force"]);
    assert_eq!(rec.code, 0, "{rec}");
    settled(&repo, "recover killed in its rotation, then recover");
    assert_eq!(
        task_ids(&handoff_files(&repo)),
        ["T-001", "T-002"],
        "a task was lost"
    );
}

fn write_hook(repo: &TestRepo, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = repo.path().join(".git/hooks").join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// True while some process holds a handoff directory's write lock (`flock` on a file under
/// `.git/aahp/locks/`): the lock a `git commit` inherits from `git aahp commit` and keeps
/// until it ends, even when `git aahp commit` was killed.
fn write_lock_held(repo: &TestRepo) -> bool {
    let Ok(entries) = std::fs::read_dir(repo.path().join(".git/aahp/locks")) else {
        return false;
    };
    entries.flatten().any(|e| {
        std::fs::File::open(e.path())
            .is_ok_and(|f| matches!(f.try_lock(), Err(std::fs::TryLockError::WouldBlock)))
    })
}

/// Ends what [`sigkill_during_hook`] started, however the test ends (a failed assertion
/// included): lets the waiting pre-commit hook go, kills `git aahp commit` if it still runs,
/// and waits for the orphaned `git commit` to let go of the write lock. Without it a failing
/// run leaves a hook polling forever, its `git commit` behind it.
struct Release<'a> {
    repo: &'a TestRepo,
    go: &'a std::path::Path,
    child: Option<std::process::Child>,
}

impl Drop for Release<'_> {
    fn drop(&mut self) {
        let _ = std::fs::write(self.go, "");
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
        let start = Instant::now();
        while write_lock_held(self.repo) && start.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(10));
        }
        if !std::thread::panicking() {
            assert!(
                !write_lock_held(self.repo),
                "timed out waiting for the orphaned git commit to end"
            );
        }
    }
}

/// Kills `git aahp commit` with SIGKILL while `git commit` is held in the user's pre-commit
/// hook, so the orphaned `git commit` may still create the session's commit. `recover` run
/// then must neither finish nor roll back (issue #12 item 5: a rollback would be undone by
/// the commit landing after it, leaving a work tree that differs from HEAD): exit 3 naming
/// the running `git commit`, changing nothing. Once the hook lets git finish (or fail),
/// `recover` finishes or rolls back. No timing: the hook waits for the test's signal.
fn sigkill_during_hook(hook_exit: u8) -> Outcome {
    let (repo, before) = prepare(true, "killed");
    let mark = repo.path().join(".git/hook-started");
    let go = repo.path().join(".git/hook-go");
    // Silent: the killed parent no longer reads git's output, so a hook that wrote would die
    // of SIGPIPE. It also stops waiting when this test process is gone (killed by a CI
    // timeout, say), so it can never outlive the run.
    write_hook(
        &repo,
        "pre-commit",
        &format!(
            "touch '{}'\nwhile [ ! -e '{}' ] && kill -0 {} 2>/dev/null; do sleep 0.01; done\nexit {hook_exit}",
            mark.display(),
            go.display(),
            std::process::id()
        ),
    );
    let mut release = Release {
        repo: &repo,
        go: &go,
        child: None,
    };
    let child = release.child.insert(
        repo.aahp_command(&["commit", "-m", "Parser finished", "--session-id", "killed"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_for("the hook to start", || mark.exists());
    // `commit` journals git's pid just after starting it: killed before that, `recover`
    // could not name it and would only wait (for the write lock, which is what keeps it
    // safe); this test wants the name.
    let running = || repo.aahp(&["--json", "status"]).json()["commit_running"].as_u64();
    wait_for("the journal to name git's pid", || running().is_some());
    let pid = running().unwrap();
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert!(!status.success(), "the process was killed");
    let files = handoff_files(&repo);

    for args in [
        &["recover"][..],
        &["recover", "--force"],
        &["recover", "--dry-run"],
    ] {
        let rec = repo.aahp(args);
        assert_eq!(rec.code, 3, "{args:?} while git commit runs\n{rec}");
        assert!(
            rec.stderr.contains(&format!(
                "`git commit` of session killed (pid {pid}) is still running"
            )),
            "{args:?}: the running git commit is not named\n{rec}"
        );
    }
    assert_eq!(running(), Some(pid), "status no longer names git");
    // Nothing was finished, rolled back or saved.
    assert!(has_lock(&repo) && has_journal(&repo));
    assert_eq!(head(&repo), before.clean_head);
    assert_eq!(handoff_files(&repo), files);
    assert!(
        !repo
            .git(&["for-each-ref", "refs/aahp/"])
            .contains("recovered")
    );

    drop(release);
    let rec = repo.aahp(&["recover"]);
    assert_eq!(rec.code, 0, "{rec}");
    std::fs::remove_file(repo.path().join(".git/hooks/pre-commit")).unwrap();
    check_after(
        &repo,
        &before,
        "killed",
        &format!("SIGKILL, hook exit {hook_exit}"),
    )
}

#[test]
fn commit_killed_by_sigkill_while_the_commit_lands_is_finished_by_recover() {
    let outcome = sigkill_during_hook(0);
    println!("SIGKILL during an accepting hook: {outcome:?}");
    assert_eq!(outcome, Outcome::CompleteNew);
}

#[test]
fn commit_killed_by_sigkill_when_the_commit_fails_is_rolled_back_by_recover() {
    let outcome = sigkill_during_hook(1);
    println!("SIGKILL during a rejecting hook: {outcome:?}");
    assert_eq!(outcome, Outcome::LastClean);
}

/// The write lock's file replaced by a FIFO while the journal of a killed commit names its
/// `git commit`: `status` probes that lock to tell whether git still runs and must not wait
/// for a writer of the FIFO (it hung before); `recover` then finishes the session.
#[test]
fn a_fifo_in_place_of_the_write_lock_hangs_neither_status_nor_recover() {
    let (repo, before) = prepare(true, "fifo");
    let out = repo.aahp_env(
        ".",
        &["commit", "-m", "Parser finished", "--session-id", "fifo"],
        &[("AAHP_FAILPOINT", "commit:spawned")],
    );
    assert_eq!(out.code, -1, "expected an abort after spawning git\n{out}");
    wait_for("the orphaned git commit to finish", || {
        !write_lock_held(&repo)
    });
    for entry in std::fs::read_dir(repo.path().join(".git/aahp/locks")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::remove_file(&path).unwrap();
        crate::support::mkfifo(&path);
    }
    let bound = Duration::from_mins(1);
    let status = repo.aahp_bounded(&["--json", "status"], &[], bound);
    assert_eq!(status.code, 0, "{status}");
    assert!(
        status.json()["commit_running"].is_null(),
        "git has ended\n{status}"
    );
    let rec = repo.aahp_bounded(&["recover"], &[], bound);
    assert_eq!(rec.code, 0, "{rec}");
    assert_eq!(
        check_after(&repo, &before, "fifo", "FIFO in place of the write lock"),
        Outcome::CompleteNew
    );
}

#[test]
fn two_racing_begins_never_both_win() {
    const ROUNDS: usize = 200;
    let repo = crate::session_fixture::session_repo();
    let lock = repo.path().join(DIR).join("HANDOFF.lock");
    let mut winners: BTreeMap<&str, usize> = BTreeMap::new();
    for round in 0..ROUNDS {
        let spawn = |id: &str| {
            repo.aahp_command(&["begin", "--session-id", id])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let a = spawn("a");
        let b = spawn("b");
        let (ra, rb) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let codes = (ra.status.code(), rb.status.code());
        let winner = match codes {
            (Some(0), Some(3)) => "a",
            (Some(3), Some(0)) => "b",
            _ => panic!(
                "round {round}: exit codes {codes:?}\n{}\n{}",
                String::from_utf8_lossy(&ra.stderr),
                String::from_utf8_lossy(&rb.stderr)
            ),
        };
        let held: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
        assert_eq!(
            held["session_id"], winner,
            "round {round}: the lock names the loser"
        );
        *winners.entry(winner).or_default() += 1;
        std::fs::remove_file(&lock).unwrap();
    }
    println!(
        "begin race: {ROUNDS} rounds x 2 processes: exactly one winner each time; winners {winners:?}"
    );
    assert_eq!(winners.values().sum::<usize>(), ROUNDS);
}

/// A fixed-seed xorshift generator: the kill loop is random in where it strikes, the same
/// sequence of delays on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Runs `args` and SIGKILLs it after `delay` (if it is still running); returns its exit
/// code, `None` when it was killed. Waits for a `git` it left running to let go of the index.
fn run_and_kill(repo: &TestRepo, args: &[&str], delay: Duration) -> Option<i32> {
    run_and_kill_env(repo, args, delay, &[])
}

/// [`run_and_kill`] with extra environment variables.
fn run_and_kill_env(
    repo: &TestRepo,
    args: &[&str],
    delay: Duration,
    envs: &[(&str, &str)],
) -> Option<i32> {
    run_and_kill_timed(repo, args, delay, envs).0
}

/// The kill loop's delay bound after an iteration, following the machine's load as it moves
/// during the run (a bound calibrated once, under another load, put every kill after the
/// command's end or before its writes): a command that ended before its kill took `took`,
/// and the bound becomes a little more than that; one killed before it wrote anything runs
/// longer than `delay`, and the bound grows past it. A kill mid-write keeps the bound.
fn adapt(bound_ms: u64, finished: bool, mid_write: bool, delay: Duration, took: Duration) -> u64 {
    let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX / 2);
    if finished {
        ms(took) * 6 / 5 + 1
    } else if mid_write {
        bound_ms
    } else {
        bound_ms.max(ms(delay) * 5 / 4 + 1)
    }
}

/// [`run_and_kill_env`], also returning how long the command ran (until its end or its kill).
fn run_and_kill_timed(
    repo: &TestRepo,
    args: &[&str],
    delay: Duration,
    envs: &[(&str, &str)],
) -> (Option<i32>, Duration) {
    let mut child = repo
        .aahp_command(args)
        .envs(envs.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while start.elapsed() < delay {
        if let Some(status) = child.try_wait().unwrap() {
            return (status.code(), start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    // A `git commit` it left running holds the write lock until it ends (and `recover`
    // refuses until then).
    wait_for("an orphaned git commit to finish", || {
        !write_lock_held(repo)
    });
    // An orphaned git removes its `index.lock` when it ends; one git-aahp left (killed
    // while it wrote the index itself) is open in no process, and `recover` removes it.
    let index_lock = repo.path().join(".git/index.lock");
    wait_for("an orphaned git to finish", || {
        !index_lock.exists() || !open_by_any_process(&index_lock)
    });
    (status.code(), delay)
}

/// Whether a process of this user has `path` open (`/proc/PID/fd`).
pub(crate) fn open_by_any_process(path: &std::path::Path) -> bool {
    let Ok(target) = path.canonicalize() else {
        return false;
    };
    std::fs::read_dir("/proc").unwrap().flatten().any(|p| {
        std::fs::read_dir(p.path().join("fd")).is_ok_and(|fds| {
            fds.flatten()
                .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l == target))
        })
    })
}

/// True when the handoff directory holds a temp or staged file of an unfinished write.
fn has_temp_files(repo: &TestRepo) -> bool {
    std::fs::read_dir(repo.path().join(DIR)).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with(".aahp-tmp-")
    })
}

/// No lock may ever be committed, on any branch or session tag.
#[track_caller]
fn assert_no_committed_lock(repo: &TestRepo, context: &str) {
    let tree = repo.git(&["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(
        !tree.contains("HANDOFF.lock"),
        "{context}: a lock was committed"
    );
}

/// Issue #12 item 7: SIGKILL at random moments of `commit`, `archive` and `recover` itself
/// (fixed seed, bounded iterations), then a complete `recover` (or a rerun of `archive`);
/// every iteration must keep the invariants of `check_after` — no entry or task lost or
/// duplicated, no lock left or committed, at most one new commit, the crashed work in HEAD
/// or under refs/aahp/recovered/.
#[test]
fn randomised_sigkill_over_commit_archive_and_recover_keeps_the_invariants() {
    const COMMITS: usize = 12;
    const ARCHIVES: usize = 8;
    const MIN_MID_WRITE: usize = 2;
    let mut rng = Rng(0x5eed_aa49_0012_0007);
    // How long an undisturbed commit and archive take here: delays span that and a bit more.
    let (repo, _) = prepare(true, "calibrate");
    let t = Instant::now();
    repo.aahp(&["commit", "-m", "calibrate", "--session-id", "calibrate"])
        .assert_code(0);
    let mut commit_ms = u64::try_from(t.elapsed().as_millis()).unwrap() * 6 / 5 + 1;
    // `archive` writes in the last milliseconds of its run: each of its write steps is
    // slowed down by a fail point so that random delays land in them often.
    let slow = [("AAHP_FAILPOINT", git_aahp::transaction::rotation::SLOW)];
    let log = log_with(16, 20);
    let archive_repo = appending_repo(&log);
    let t = Instant::now();
    archive_repo
        .aahp_env(".", &["archive"], &slow)
        .assert_code(0);
    let mut archive_ms = u64::try_from(t.elapsed().as_millis()).unwrap() * 6 / 5 + 1;

    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let (mut killed, mut recovers_killed) = (0, 0);
    // Kills that landed mid-write: the process had begun changing the handoff (its journal
    // exists) when it died, so recovery had real work to do.
    let (mut commits_mid_write, mut archives_mid_write) = (0, 0);
    // Past the planned iterations, more run (up to three times as many) while too few kills
    // landed mid-write: slow disks and busy machines move the write windows.
    let mut commits = 0;
    while commits < COMMITS || (commits_mid_write < 1 && commits < 3 * COMMITS) {
        let i = commits;
        commits += 1;
        let with_begin = i % 2 == 0;
        let sid = format!("kill-{i}");
        let context = format!("commit iteration {i} (begin: {with_begin})");
        let (repo, before) = prepare(with_begin, &sid);
        let delay = Duration::from_millis(rng.below(commit_ms));
        let (code, took) = run_and_kill_timed(
            &repo,
            &["commit", "-m", "Parser finished", "--session-id", &sid],
            delay,
            &[],
        );
        killed += usize::from(code.is_none());
        let mid_write = code.is_none() && has_journal(&repo);
        commits_mid_write += usize::from(mid_write);
        commit_ms = adapt(commit_ms, code.is_some(), mid_write, delay, took);
        // Killed before its journal, the session keeps its live lock: forced, as an agent
        // whose process died would (issue #17).
        let recover: Vec<&str> = if with_begin {
            vec!["recover", "--force"]
        } else {
            vec!["recover", "--session-id", &sid, "--force"]
        };
        // Every third iteration, `recover` itself is killed first.
        if i % 3 == 1 {
            let d = Duration::from_millis(rng.below(commit_ms));
            recovers_killed += usize::from(run_and_kill(&repo, &recover, d).is_none());
        }
        let rec = repo.aahp(&recover);
        assert_eq!(rec.code, 0, "{context}: recover failed\n{rec}");
        assert_no_committed_lock(&repo, &context);
        let outcome = check_after(&repo, &before, &sid, &context);
        *outcomes.entry(format!("commit {outcome:?}")).or_default() += 1;
    }
    let mut archives = 0;
    while archives < ARCHIVES || (archives_mid_write < MIN_MID_WRITE && archives < 3 * ARCHIVES) {
        let i = archives;
        archives += 1;
        let context = format!("archive iteration {i}");
        let repo = appending_repo(&log);
        let before = handoff_files(&repo);
        let delay = Duration::from_millis(rng.below(archive_ms));
        let (code, took) = run_and_kill_timed(&repo, &["archive"], delay, &slow);
        killed += usize::from(code.is_none());
        let mid_write =
            code.is_none() && (repo.exists(".git/aahp/rotation.json") || has_temp_files(&repo));
        archives_mid_write += usize::from(mid_write);
        archive_ms = adapt(archive_ms, code.is_some(), mid_write, delay, took);
        // Half the time `recover` completes it, half the time a rerun of `archive`.
        let finish = if i % 2 == 0 { "recover" } else { "archive" };
        if i % 4 == 1 {
            let d = Duration::from_millis(rng.below(archive_ms));
            recovers_killed += usize::from(run_and_kill(&repo, &["recover"], d).is_none());
        }
        let out = repo.aahp(&[finish]);
        assert_eq!(out.code, 0, "{context}: {finish} failed\n{out}");
        repo.aahp(&["archive"]).assert_code(0);
        let now = handoff_files(&repo);
        let all = |files: &BTreeMap<String, String>| {
            let mut h: Vec<String> = ["LOG.md", "LOG-ARCHIVE.md"]
                .iter()
                .filter_map(|f| files.get(*f))
                .flat_map(|t| {
                    t.lines()
                        .filter(|l| l.starts_with("## ["))
                        .map(String::from)
                })
                .collect();
            h.sort();
            h
        };
        assert_eq!(
            all(&now),
            all(&before),
            "{context}: entries lost or duplicated"
        );
        assert_eq!(
            task_ids(&now),
            ["T-001", "T-002"],
            "{context}: a task was lost"
        );
        assert_eq!(
            crate::session_fixture::count_entries(&now["LOG.md"]),
            10,
            "{context}"
        );
        repo.aahp(&["archive", "--verify"]).assert_code(0);
        let verify = repo.aahp(&["verify"]);
        assert_eq!(verify.code, 0, "{context}: verify fails\n{verify}");
        assert!(!has_lock(&repo) && !has_journal(&repo), "{context}");
        assert!(
            !repo.exists(".git/aahp/rotation.json"),
            "{context}: the rotation journal remains"
        );
        let temps: Vec<String> = std::fs::read_dir(repo.path().join(DIR))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".aahp-tmp-"))
            .collect();
        assert!(temps.is_empty(), "{context}: temp files remain: {temps:?}");
        *outcomes
            .entry(format!(
                "archive {}",
                if code == Some(0) {
                    "finished"
                } else {
                    "killed"
                }
            ))
            .or_default() += 1;
    }
    let report = format!(
        "kill loop: {} iterations ({commits} commit, {archives} archive), {killed} commands and \
         {recovers_killed} recovers SIGKILLed, {commits_mid_write} commits and \
         {archives_mid_write} archives killed mid-write, 0 violations; outcomes {outcomes:?}",
        commits + archives
    );
    // A loop whose kills all land before or after the writes proves nothing: fail it, after
    // the extra iterations above. The bounds are low because the delays are random under
    // any load (measured: 4-7 of 12 commits; 5 of 8 archives, whose write steps the
    // `archive:slow` fail point widens).
    assert!(
        commits_mid_write >= 1 && archives_mid_write >= MIN_MID_WRITE,
        "too few kills landed mid-write (at least one commit and {MIN_MID_WRITE} archives \
         wanted): {report}"
    );
    crate::support::publish_counts("kill-loop", &report);
}

/// The journal's copy of the session's files is the commit `git` itself would save of them
/// (`read-tree` of the base, `update-index --add --remove`, `write-tree`): it is written
/// in-process now (issue #14), and recovery restores from it. A new executable file, a
/// deleted file and edited ones are all in it, with their modes; the lock is not.
#[test]
fn the_journal_copy_is_the_tree_git_would_save() {
    use std::os::unix::fs::PermissionsExt;
    let repo = session_repo_with_log(&log_with(11, 20));
    repo.write(&format!("{DIR}/scratch.txt"), "old notes\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "scratch notes"]);
    let base = head(&repo);
    edit_like_a_session(&repo);
    std::fs::remove_file(repo.path().join(DIR).join("scratch.txt")).unwrap();
    let tool = repo.path().join(DIR).join("tool.sh");
    std::fs::write(&tool, "#!/bin/sh\r\necho checked\r\n").unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    // A file above 1 MiB (as LOG-ARCHIVE.md grows) is saved as a stream, never read whole
    // (`save-whole:NAME` makes that fail; issue #12 item 2), into the blob git would write.
    let big = "- a note of the session, kept\n".repeat(40_000);
    assert!(big.len() > 1024 * 1024);
    repo.write(&format!("{DIR}/big-notes.txt"), &big);
    let out = repo.aahp_env(
        ".",
        &[
            "commit",
            "-m",
            "Parser finished",
            "--session-id",
            "saved-copy",
        ],
        &[("AAHP_FAILPOINT", "commit:journal,save-whole:big-notes.txt")],
    );
    assert_eq!(out.code, -1, "expected an abort at the journal\n{out}");
    let journals: Vec<_> = std::fs::read_dir(repo.path().join(".git/aahp/journals"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    assert_eq!(journals.len(), 1, "{journals:?}");
    let journal: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&journals[0]).unwrap()).unwrap();
    let saved = journal["saved_commit"].as_str().unwrap();

    let mut paths: Vec<String> = std::fs::read_dir(repo.path().join(DIR))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "HANDOFF.lock" && !n.starts_with(".aahp-tmp-"))
        .map(|n| format!("{DIR}/{n}"))
        .collect();
    paths.push(format!("{DIR}/scratch.txt"));
    let index = repo.path().join(".git/expected.index");
    let env = [("GIT_INDEX_FILE", index.as_os_str())];
    repo.git_env(&["read-tree", &base], &env).assert_code(0);
    let mut args = vec!["update-index", "--add", "--remove", "--"];
    args.extend(paths.iter().map(String::as_str));
    repo.git_env(&args, &env).assert_code(0);
    let expected = repo.git_env(&["write-tree"], &env);
    expected.assert_code(0);
    assert_eq!(
        repo.git(&["rev-parse", &format!("{saved}^{{tree}}")])
            .trim(),
        expected.stdout.trim()
    );
    assert_eq!(repo.git(&["rev-parse", &format!("{saved}^")]).trim(), base);
    let listing = repo.git(&["ls-tree", saved, &format!("{DIR}/")]);
    assert!(listing.contains("100755 blob"), "{listing}");
    assert!(!listing.contains("scratch.txt"), "{listing}");
    assert!(!listing.contains("HANDOFF.lock"), "{listing}");
}

/// The journal's saved copy is signed as `git` would sign it (the committer and author the
/// environment names) and dated at the command's clock (`AAHP_NOW`) when no date is fixed:
/// its date is read without the local time zone, whose lookup walked the whole zoneinfo
/// tree on every commit (issue #14). A date the environment fixes is still honoured.
#[test]
fn the_journal_copy_names_the_configured_identity_at_the_commands_clock() {
    let saved_copy_of = |fixed_dates: bool| {
        let repo = session_repo_with_log(&log_with(11, 20));
        edit_like_a_session(&repo);
        let mut cmd = repo.aahp_command(&[
            "commit",
            "-m",
            "Parser finished",
            "--session-id",
            "saved-identity",
        ]);
        cmd.env("AAHP_FAILPOINT", "commit:journal");
        if !fixed_dates {
            cmd.env_remove("GIT_COMMITTER_DATE")
                .env_remove("GIT_AUTHOR_DATE");
        }
        let out = cmd.output().expect("spawn");
        assert_eq!(out.status.code(), None, "expected an abort at the journal");
        let journal = std::fs::read_dir(repo.path().join(".git/aahp/journals"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "json"))
            .expect("a journal");
        let journal: serde_json::Value =
            serde_json::from_slice(&std::fs::read(journal).unwrap()).unwrap();
        let saved = journal["saved_commit"].as_str().unwrap().to_string();
        repo.git(&["log", "-1", "--format=%an <%ae> %aI|%cn <%ce> %cI", &saved])
            .trim()
            .to_string()
    };
    assert_eq!(
        saved_copy_of(false),
        "Test Author <author@test.invalid> 2026-11-22T10:00:00Z|\
         Test Committer <committer@test.invalid> 2026-11-22T10:00:00Z"
    );
    assert_eq!(
        saved_copy_of(true),
        "Test Author <author@test.invalid> 2026-11-22T09:00:00Z|\
         Test Committer <committer@test.invalid> 2026-11-22T09:00:00Z"
    );
}

/// A commit killed inside a rotation that adopts an unindexed archive or rewrites a legacy
/// index, then simply run again, archives every entry once: the rerun puts the archive pair
/// back as it was saved before rotating anew, so the half-written pair does not pass for
/// the original.
#[test]
fn a_commit_rerun_after_a_crash_in_an_adopting_rotation_archives_nothing_twice() {
    let dir = ".ai/handoff";
    for point in ["commit:rotate:archive", "commit:rotate:index"] {
        for legacy in [false, true] {
            let context = format!("{point}, legacy index: {legacy}");
            let repo = TestRepo::new();
            repo.aahp(&["init", "-q"]).assert_code(0);
            let entries = |days: std::ops::RangeInclusive<u32>, month: &str, what: &str| {
                days.rev().fold(String::new(), |mut out, i| {
                    use std::fmt::Write as _;
                    let _ = write!(
                        out,
                        "---\n\n## [2026-{month}-{i:02}] agent: {what} {i}\n\n- {what} {i}\n\n"
                    );
                    out
                })
            };
            let log = entries(11..=24, "10", "Session");
            let old = entries(1..=3, "09", "Old");
            repo.write(
                &format!("{dir}/LOG-ARCHIVE.md"),
                format!("# Archive\n\n{old}"),
            );
            let index = repo.path().join(dir).join("LOG-ARCHIVE.index.json");
            std::fs::remove_file(&index).ok();
            if legacy {
                // The reference's layout, written from the index `archive` builds for the
                // archive's own entries (init's LOG.md has nothing to move).
                repo.aahp(&["archive", "-q"]).assert_code(0);
                let doc: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&index).unwrap()).unwrap();
                let archived: Vec<serde_json::Value> = doc["entries"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| serde_json::json!({"sha256": e["sha256"], "title": e["title"]}))
                    .collect();
                std::fs::write(
                    &index,
                    serde_json::to_string_pretty(&serde_json::json!({"archived": archived}))
                        .unwrap(),
                )
                .unwrap();
            }
            repo.write(&format!("{dir}/LOG.md"), format!("# Log\n\n{log}"));
            repo.aahp(&["manifest", "-q"]).assert_code(0);
            repo.git(&["add", "-A"]);
            repo.git(&["commit", "-q", "--no-verify", "-m", "setup"]);
            repo.aahp(&["begin", "--session-id", "cut"]).assert_code(0);
            let out = repo.aahp_env(
                ".",
                &["commit", "-m", "x", "--log", "First try."],
                &[("AAHP_FAILPOINT", point)],
            );
            assert_eq!(out.code, -1, "{context}: expected an abort\n{out}");
            let out = repo.aahp(&["commit", "-m", "x", "--log", "Second try."]);
            out.assert_code(0);
            let headings: Vec<String> = [format!("{dir}/LOG.md"), format!("{dir}/LOG-ARCHIVE.md")]
                .iter()
                .flat_map(|f| {
                    repo.read(f)
                        .lines()
                        .filter(|l| l.starts_with("## ["))
                        .map(String::from)
                        .collect::<Vec<_>>()
                })
                .collect();
            let mut unique = headings.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(
                unique.len(),
                headings.len(),
                "{context}: an entry twice\n{headings:#?}"
            );
            // 14 + 3 entries and the rerun's own (the crashed try's `--log` text was only
            // in memory: LOG.md is written last).
            assert_eq!(headings.len(), 18, "{context}\n{headings:#?}");
            assert!(
                headings.iter().any(|h| h.ends_with("Second try.")),
                "{context}"
            );
            repo.aahp(&["archive", "--verify"]).assert_code(0);
            repo.aahp(&["verify"]).assert_code(0);
        }
    }
}

/// A longer run of the archive part of the kill loop, for hunting a failure seen under heavy
/// load: `AAHP_STRESS_ITERS` iterations (default 40), each killing `archive` at a random
/// moment and finishing with `recover` or a rerun. A failing iteration's repository is copied
/// to `$AAHP_STRESS_KEEP/iteration-N` (default: the system temp directory) before the
/// assertion, so that its files can be read. Ignored: run it by name.
#[test]
#[ignore = "stress run, minutes: run by name"]
fn stress_sigkill_archive_and_finish() {
    let iterations: u64 = std::env::var("AAHP_STRESS_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let keep = std::env::var_os("AAHP_STRESS_KEEP")
        .map_or_else(std::env::temp_dir, std::path::PathBuf::from);
    let slow = [("AAHP_FAILPOINT", git_aahp::transaction::rotation::SLOW)];
    let log = log_with(16, 20);
    let probe = appending_repo(&log);
    let t = Instant::now();
    probe.aahp_env(".", &["archive"], &slow).assert_code(0);
    let archive_ms = u64::try_from(t.elapsed().as_millis()).unwrap() * 6 / 5 + 1;
    let mut rng = Rng(0x5eed_0000_0000_0001 ^ u64::from(std::process::id()));
    for i in 0..iterations {
        let repo = appending_repo(&log);
        let delay = Duration::from_millis(rng.below(archive_ms));
        let code = run_and_kill_env(&repo, &["archive"], delay, &slow);
        let finish = if i % 2 == 0 { "recover" } else { "archive" };
        if i % 4 == 1 {
            let d = Duration::from_millis(rng.below(archive_ms));
            run_and_kill(&repo, &["recover"], d);
        }
        let out = repo.aahp(&[finish]);
        let again = repo.aahp(&["archive"]);
        let verify = repo.aahp(&["verify"]);
        if out.code != 0 || again.code != 0 || verify.code != 0 {
            let to = keep.join(format!("iteration-{i}"));
            let status = std::process::Command::new("cp")
                .arg("-a")
                .arg(repo.path())
                .arg(&to)
                .status()
                .unwrap();
            assert!(status.success());
            panic!(
                "iteration {i} (archive {code:?} after {delay:?}, then {finish}): kept at {}\n\
                 {finish}: {out}\narchive: {again}\nverify: {verify}",
                to.display()
            );
        }
    }
}
