//! `HANDOFF.lock` discipline across commands (issue #12): every writer honours another
//! session's lock, the processes of one session serialise their writes, and a lock that is
//! not a regular file is reported instead of blocking or being read without end.

use std::collections::BTreeSet;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::session_fixture::{DIR, STATUS, handoff_files, head, session_repo, task_ids};
use crate::support::{TestRepo, mkfifo};

const LOCK: &str = ".ai/handoff/HANDOFF.lock";
/// Far above any normal run of one command, even on a loaded machine: only a hang reaches it.
const BOUND: Duration = Duration::from_mins(2);

/// Starts `git-aahp` without waiting, as the session `session` when given.
fn spawn(repo: &TestRepo, args: &[&str], session: Option<&str>) -> Child {
    let mut cmd = repo.aahp_command(args);
    if let Some(id) = session {
        cmd.env("AAHP_SESSION_ID", id);
    }
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A lock held by another session: `begin` in this worktree, then the worktree forgets it
/// (as if that session ran elsewhere).
fn foreign_lock(repo: &TestRepo) {
    repo.aahp(&["begin", "--agent", "other-agent", "--session-id", "OTHER"])
        .assert_code(0);
    std::fs::remove_dir_all(repo.path().join(".git/aahp/sessions")).unwrap();
}

#[test]
fn every_writer_exits_3_naming_the_holder_of_another_sessions_lock() {
    let repo = session_repo();
    foreign_lock(&repo);
    let before = handoff_files(&repo);
    let lock = repo.read(LOCK);
    let writers: &[&[&str]] = &[
        &["archive", "--keep", "1"],
        &["manifest"],
        &["manifest", "--context", "new orientation"],
        &["trust", "decay"],
        &["trust", "verify", "build passes", "--", "touch", "ran.txt"],
        &["task", "add", "x"],
        &["task", "done", "T-002"],
        &["init", "--force"],
        &["commit", "-m", "x"],
        &["recover"],
    ];
    for args in writers {
        let out = repo.aahp(args);
        out.assert_code(3);
        assert!(
            out.stderr.contains("locked by other-agent (session OTHER)"),
            "{args:?} must name the holder\n{out}"
        );
        assert_eq!(handoff_files(&repo), before, "{args:?} wrote the handoff");
        assert_eq!(repo.read(LOCK), lock, "{args:?} touched the lock");
    }
    assert!(
        !repo.exists("ran.txt"),
        "the verification command must not run"
    );
    // Read-only forms stay available.
    repo.aahp(&["manifest", "--check"]).assert_code(0);
    repo.aahp(&["archive", "--verify"]).assert_code(0);
    repo.aahp(&["trust", "list"]).assert_code(0);
    // The holder, named by its id, writes.
    repo.aahp(&["trust", "decay", "--session-id", "OTHER"])
        .assert_code(0);
    repo.aahp_env(".", &["task", "add", "y"], &[("AAHP_SESSION_ID", "OTHER")])
        .assert_code(0);
}

#[test]
fn twenty_parallel_task_adds_in_one_session_keep_twenty_tasks_with_distinct_ids() {
    let repo = session_repo();
    repo.aahp(&["begin", "--session-id", "S1"]).assert_code(0);
    let children: Vec<_> = (0..20)
        .map(|k| spawn(&repo, &["task", "add", &format!("task-{k}")], Some("S1")))
        .collect();
    let mut added = BTreeSet::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let id = stdout
            .split_whitespace()
            .nth(1)
            .unwrap()
            .trim_end_matches(':');
        assert!(added.insert(id.to_string()), "{id} was handed out twice");
    }
    let ids: BTreeSet<String> = task_ids(&handoff_files(&repo)).into_iter().collect();
    assert_eq!(ids.len(), 22, "2 tasks before + 20 added: {ids:?}");
    assert!(added.is_subset(&ids));
    let m: serde_json::Value =
        serde_json::from_str(&repo.read(&format!("{DIR}/MANIFEST.json"))).unwrap();
    assert_eq!(m["next_task_id"], 23);
    assert!(repo.exists(LOCK), "the session keeps its lock");
}

#[test]
fn racing_task_adds_without_a_session_lose_nothing_and_never_exit_2() {
    let repo = session_repo();
    let children: Vec<_> = (0..12)
        .map(|k| spawn(&repo, &["task", "add", &format!("task-{k}")], None))
        .collect();
    let mut succeeded = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        match out.status.code() {
            Some(0) => succeeded += 1,
            Some(3) => {}
            other => panic!("exit {other:?}: {}", String::from_utf8_lossy(&out.stderr)),
        }
    }
    assert_eq!(task_ids(&handoff_files(&repo)).len(), 2 + succeeded);
    assert!(!repo.exists(LOCK), "a lock taken for one write is released");
}

#[test]
fn a_sessions_writers_serialise_with_its_commit() {
    // `trust verify` of the same session, run while `commit` runs, lands either in the
    // commit (whose manifest then verifies) or after it — never half in.
    let repo = session_repo();
    repo.aahp(&["begin", "--session-id", "S1"]).assert_code(0);
    let commit = spawn(
        &repo,
        &["commit", "--log", "Test session.", "-m", "session"],
        None,
    );
    let verifies: Vec<_> = (0..3)
        .map(|k| {
            spawn(
                &repo,
                &[
                    "trust",
                    "verify",
                    &format!("prop {k}"),
                    "--new",
                    "--",
                    "true",
                ],
                Some("S1"),
            )
        })
        .collect();
    let out = commit.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for v in verifies {
        let out = v.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    repo.aahp(&["verify", "--level", "ci", "--base", "HEAD~1"])
        .assert_code(0);
    let trust = repo.read(&format!("{DIR}/TRUST.md"));
    for k in 0..3 {
        assert!(trust.contains(&format!("prop {k}")), "{trust}");
    }
    assert!(!repo.exists(LOCK));
}

#[test]
fn another_sessions_writers_never_reach_a_running_commit() {
    // The audit's race (issue #12): `trust verify` of session S2, run again and again while
    // S1 commits, is refused while S1 holds the handoff and lands after it, never in it:
    // S1's commit holds none of S2's claims, and its manifest verifies.
    let repo = session_repo();
    repo.aahp(&["begin", "--session-id", "S1"]).assert_code(0);
    let commit = spawn(
        &repo,
        &["commit", "--log", "Test session.", "-m", "session"],
        None,
    );
    let mut others = Vec::new();
    for k in 0..8 {
        let prop = format!("other prop {k}");
        let child = spawn(
            &repo,
            &["trust", "verify", &prop, "--new", "--", "true"],
            Some("S2"),
        );
        others.push((prop, child));
        std::thread::sleep(Duration::from_millis(40));
    }
    let out = commit.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let others: Vec<_> = others
        .into_iter()
        .map(|(prop, child)| (prop, child.wait_with_output().unwrap()))
        .collect();
    let committed = repo.git(&["show", &format!("HEAD:{DIR}/TRUST.md")]);
    let trust = repo.read(&format!("{DIR}/TRUST.md"));
    let mut refused = 0;
    for (prop, out) in others {
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(3) => {
                refused += 1;
                assert!(stderr.contains("session S1"), "{stderr}");
                assert!(!trust.contains(&prop), "{prop}: {trust}");
            }
            Some(0) => assert!(trust.contains(&prop), "{prop}: {trust}"),
            code => panic!("{prop}: exit {code:?}\n{stderr}"),
        }
        assert!(!committed.contains(&prop), "{prop} reached the commit");
    }
    assert!(refused > 0, "no write of S2 overlapped the commit");
    repo.aahp(&["verify", "--level", "ci", "--base", "HEAD~1"])
        .assert_code(0);
}

/// Puts something that is not a lock file at HANDOFF.lock.
fn plant(repo: &TestRepo, kind: &str) {
    let path = repo.path().join(LOCK);
    match kind {
        "fifo" => mkfifo(&path),
        "dir" => std::fs::create_dir(&path).unwrap(),
        "zero" => std::os::unix::fs::symlink("/dev/zero", &path).unwrap(),
        "git-config" => std::os::unix::fs::symlink("../../.git/config", &path).unwrap(),
        "in-tree" => std::os::unix::fs::symlink("STATUS.md", &path).unwrap(),
        _ => unreachable!(),
    }
}

#[test]
fn a_lock_that_is_not_a_regular_file_is_reported_never_waited_on_or_read() {
    for (kind, what) in [
        ("fifo", "it is not a regular file but a FIFO"),
        ("dir", "it is not a regular file but a directory"),
        (
            "zero",
            "it is a symbolic link pointing outside the repository",
        ),
        ("git-config", "it is a symbolic link pointing into .git"),
        (
            "in-tree",
            "it is a symbolic link, not the file git-aahp writes",
        ),
    ] {
        let repo = session_repo();
        plant(&repo, kind);
        let before = handoff_files(&repo);
        let head_before = head(&repo);
        for args in [
            &["begin"][..],
            &["commit", "-m", "x"],
            &["task", "add", "x"],
            &["manifest"],
        ] {
            let out = repo.aahp_bounded(args, &[], BOUND);
            out.assert_code(3);
            assert!(out.stderr.contains(what), "{kind} {args:?}\n{out}");
        }
        assert_eq!(handoff_files(&repo), before, "{kind}");
        assert_eq!(head(&repo), head_before, "{kind}");

        let out = repo.aahp_bounded(&["status"], &[], BOUND);
        out.assert_code(0);
        assert!(
            out.stdout.contains(&format!("lock: unreadable ({what})")),
            "{kind}\n{out}"
        );
        assert!(
            out.stdout.contains("run `git aahp recover`"),
            "{kind}\n{out}"
        );

        repo.aahp_bounded(&["recover", "--dry-run"], &[], BOUND)
            .assert_code(0);
        let out = repo.aahp_bounded(&["recover"], &[], BOUND);
        if kind == "dir" {
            // A directory may hold someone's files: recover refuses to delete it.
            out.assert_code(2);
            assert!(out.stderr.contains("is a directory, not a lock"), "{out}");
            assert!(repo.path().join(LOCK).is_dir());
        } else {
            out.assert_code(0);
            assert!(
                std::fs::symlink_metadata(repo.path().join(LOCK)).is_err(),
                "{kind}"
            );
            // The link went, not what it named.
            assert!(repo.path().join(".git/config").is_file(), "{kind}");
            assert_eq!(repo.read(&format!("{DIR}/STATUS.md")), STATUS, "{kind}");
            repo.aahp(&["begin"]).assert_code(0);
        }
    }
}

#[test]
fn an_oversized_lock_is_unreadable_not_read_to_the_end() {
    let repo = session_repo();
    repo.write(LOCK, " ".repeat(1 << 20));
    let out = repo.aahp(&["task", "add", "x"]);
    out.assert_code(3);
    assert!(out.stderr.contains("larger than 65536 bytes"), "{out}");
}

#[test]
fn begin_refuses_session_ids_that_cannot_name_a_ref() {
    let repo = session_repo();
    for id in ["v1..2", "sess.lock", "a/b", "-x", "a b", "ü"] {
        let out = repo.aahp(&["begin", &format!("--session-id={id}")]);
        out.assert_code(2);
        assert!(
            out.stderr.contains("cannot name a git ref"),
            "{id:?}\n{out}"
        );
        assert!(!repo.exists(LOCK), "{id:?}");
    }
    // Control characters are bad input like any other character a ref cannot hold: exit 2,
    // before the linter would call them a finding (exit 1).
    for id in ["a\u{1b}]0;x\u{7}", "a\u{1}b"] {
        let out = repo.aahp(&["begin", "--session-id", id]);
        out.assert_code(2);
        assert!(
            out.stderr.contains("cannot name a git ref"),
            "{id:?}\n{out}"
        );
        assert!(!repo.exists(LOCK));
    }
    // The same check where a command takes the lock for one write under a given id.
    let out = repo.aahp(&["task", "add", "x", "--session-id", "v1..2"]);
    out.assert_code(2);
    assert!(!repo.exists(LOCK));
    repo.aahp(&["begin", "--session-id", "v1.2"]).assert_code(0);
}

#[test]
fn recover_copes_with_any_session_id_planted_in_the_lock() {
    for id in [
        "v1..2",
        "sess.lock",
        "../../../heads/main",
        "s\n::set-output name=a::b\n## [2026-11-22] mallory: Fake entry",
        "",
    ] {
        let repo = session_repo();
        let main = head(&repo);
        let lock = serde_json::json!({
            "agent": "planted",
            "session_id": id,
            "started": "2026-11-22T09:00:00Z",
            "expires": "2026-11-22T13:00:00Z",
            "host": "elsewhere",
            "base_commit": main,
            "updating": [],
            "tool_version": "0.0.0",
        });
        repo.write(LOCK, serde_json::to_string_pretty(&lock).unwrap());
        let status = format!("{DIR}/STATUS.md");
        repo.write(&status, "# Status\n\nedited by the planted session\n");
        // Not expired and not ours: --force, as for any other session.
        repo.aahp(&["recover"]).assert_code(3);
        let out = repo.aahp(&["recover", "--force"]);
        out.assert_code(0);
        let refs = repo.git(&[
            "for-each-ref",
            "--format=%(refname)",
            "refs/aahp/recovered/",
        ]);
        let refs: Vec<&str> = refs.lines().collect();
        assert_eq!(refs.len(), 1, "{id:?}: {refs:?}");
        let saved = repo.git(&["show", &format!("{}:{status}", refs[0])]);
        assert!(saved.contains("edited by the planted session"), "{id:?}");
        assert_eq!(head(&repo), main, "{id:?}: no branch moved");
        assert!(!repo.exists(LOCK), "{id:?}");
        assert!(!crate::session_fixture::has_journal(&repo), "{id:?}");
        // The lock's text cannot forge log structure.
        let log = repo.read(&format!("{DIR}/LOG.md"));
        assert!(!log.contains("\n::set-output"), "{id:?}\n{log}");
        assert!(!log.contains("\n## [2026-11-22] mallory"), "{id:?}\n{log}");
        repo.aahp(&["begin"]).assert_code(0);
    }
}

#[test]
fn a_lock_left_by_a_writer_that_crashed_mid_write_is_taken_over_not_wedging() {
    let repo = session_repo();
    let crash = |args: &[&str]| {
        let out = repo.aahp_env(".", args, &[("AAHP_FAILPOINT", "task:locked")]);
        assert_ne!(out.code, 0, "the fail point did not fire\n{out}");
        assert!(repo.read(LOCK).contains("\"write\": \"git aahp task add\""));
    };
    // Nobody holds the write lock any more, so the one-write lock's taker is dead.
    crash(&["task", "add", "x"]);
    let out = repo.aahp(&["task", "add", "y"]);
    out.assert_code(0);
    assert!(
        out.stdout
            .contains("took over the HANDOFF.lock a crashed `git aahp task add` left behind"),
        "{out}"
    );
    assert!(!repo.exists(LOCK));
    crash(&["task", "add", "x"]);
    repo.aahp(&["begin", "--session-id", "S2"]).assert_code(0);
    assert!(repo.read(LOCK).contains("S2"));
    repo.write(&format!("{DIR}/STATUS.md"), "# Status\n\nedited\n");
    repo.aahp(&[
        "commit",
        "--log",
        "Test session.",
        "-m",
        "after a crashed writer",
    ])
    .assert_code(0);
    crash(&["task", "add", "x"]);
    repo.write(&format!("{DIR}/STATUS.md"), "# Status\n\nlater\n");
    repo.aahp(&[
        "commit",
        "--log",
        "Test session.",
        "-m",
        "commit takes it over too",
    ])
    .assert_code(0);
    assert!(!repo.exists(LOCK));
}

/// A FIFO in place of a file of the tool's own state in the git directory (its caches, a
/// legacy session record or commit journal) or of a hook: every command once opened the
/// caches and hooks blocking, so `task add`, `archive` and `commit` (`token-counts`,
/// `importers`) and `hooks status`, `hooks install` and `doctor` (a hook) waited forever
/// for a writer (review rob35 #5). They are opened without waiting and read only when
/// regular: a cache that is not one is ignored (and replaced), a journal that is not one is
/// exit 2.
#[test]
fn a_fifo_in_place_of_the_tools_state_files_or_a_hook_hangs_no_command() {
    for name in [
        "aahp/token-counts",
        "aahp/importers",
        "aahp/session.json",
        "aahp/journal.json",
        "hooks/pre-commit",
    ] {
        let repo = session_repo();
        let path = repo.path().join(".git").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let _ = std::fs::remove_file(&path);
        mkfifo(&path);
        crate::session_fixture::edit_like_a_session(&repo);
        for args in [
            &["task", "add", "a task"][..],
            &["archive"],
            &["status"],
            &["hooks", "status"],
            &["doctor"],
            &["commit", "-m", "session"],
        ] {
            let out = repo.aahp_bounded(args, &[], BOUND);
            assert!((0..=2).contains(&out.code), "{name}: {args:?}\n{out}");
            if name.contains("token-counts") || name.contains("importers") {
                assert_ne!(
                    out.code, 2,
                    "a cache is never bad input: {name}: {args:?}\n{out}"
                );
            }
        }
    }
}

#[test]
fn a_writer_taking_over_a_crashed_writers_lock_completes_its_write_first() {
    // `trust verify` killed between TRUST.md and MANIFEST.json leaves its one-write lock and
    // a stale manifest. A writer with nothing of its own to write (`trust decay`, `archive`)
    // removed the lock and left the half-written directory unmarked, `recover` then saw
    // nothing (review rob36 #4); the rerun `trust verify` was exit 3 (review rob36 #5).
    let repo = session_repo();
    repo.aahp(&["trust", "decay"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "decayed"]);
    // What the crash leaves (a `trust verify` killed after TRUST.md's rename): its lock,
    // taken for one write, and TRUST.md newer than the manifest.
    let crash = || {
        let trust = repo.read(&format!("{DIR}/TRUST.md"));
        repo.write(
            &format!("{DIR}/TRUST.md"),
            trust.replace(
                "| api documented | assumed | model_claim | 2026-11-20 |",
                "| api documented | verified | tool_verified | 2026-11-22 |",
            ),
        );
        repo.write(
            LOCK,
            "{\"agent\": \"git-aahp\", \"session_id\": \"20261122T000000Z-0badc0de\", \
             \"started\": \"2026-11-22T00:00:00Z\", \"expires\": \"2026-11-22T04:00:00Z\", \
             \"host\": \"h\", \"base_commit\": null, \
             \"updating\": [\"TRUST.md\", \"MANIFEST.json\"], \"tool_version\": \"0.1.0\", \
             \"write\": \"git aahp trust verify\"}\n",
        );
        repo.aahp(&["manifest", "--check"]).assert_code(1);
    };
    for args in [
        &["trust", "decay"][..],
        &["archive"],
        &["trust", "verify", "api documented", "--", "true"],
    ] {
        repo.git(&["checkout", "-q", "--", DIR]);
        crash();
        let out = repo.aahp(args);
        out.assert_code(0);
        assert!(!repo.exists(LOCK), "{args:?}\n{out}");
        let check = repo.aahp(&["manifest", "--check"]);
        assert_eq!(
            check.code, 0,
            "{args:?} left the crashed write half done\n{check}"
        );
        repo.aahp(&["verify"]).assert_code(0);
    }
}

#[test]
fn a_lock_that_names_no_session_is_owned_by_no_session_not_even_one_called_unknown() {
    // The AAHP v2 proposal's lock (`agent`, `started`, `updating`) names no session; it was
    // read as session `unknown`, so a session calling itself that committed over the live
    // holder's files and deleted its lock (review rob36 #7).
    let repo = session_repo();
    let lock = "{\"agent\": \"reftool\", \"started\": \"2026-11-22T00:00:00Z\", \"updating\": [\"STATUS.md\"]}\n";
    repo.write(LOCK, lock);
    repo.write(&format!("{DIR}/STATUS.md"), "# Status\n\nmine\n");
    let out = repo.aahp(&[
        "commit",
        "--session-id",
        "unknown",
        "--log",
        "Test session.",
        "-m",
        "not mine to commit",
    ]);
    out.assert_code(3);
    let out = repo.aahp_env(
        ".",
        &["task", "add", "x"],
        &[("AAHP_SESSION_ID", "unknown")],
    );
    out.assert_code(3);
    assert_eq!(repo.read(LOCK), lock);
    // A session really named `unknown` still owns its own lock.
    repo.aahp(&["recover", "--force"]).assert_code(0);
    repo.aahp(&["begin", "--session-id", "unknown"])
        .assert_code(0);
    repo.aahp_env(
        ".",
        &["task", "add", "y"],
        &[("AAHP_SESSION_ID", "unknown")],
    )
    .assert_code(0);
}

#[test]
fn commit_sweeps_the_temporary_file_a_writer_killed_mid_write_left() {
    // A `commit` killed mid-write (a full disk, `ulimit -f`) leaves `.aahp-tmp-*`; its
    // successful rerun kept it, untracked, for `git add -A` to commit (review rob36 #11).
    let repo = session_repo();
    let debris = format!("{DIR}/.aahp-tmp-Ab3dEf");
    repo.write(&debris, "{\"half\": ");
    repo.write(&format!("{DIR}/STATUS.md"), "# Status\n\nedited\n");
    repo.aahp(&["commit", "--log", "Test session.", "-m", "after a crash"])
        .assert_code(0);
    assert!(!repo.exists(&debris));
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}
