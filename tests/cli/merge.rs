//! `git aahp merge-driver` under a real `git merge` (issue #17, SPEC §6): branches that each
//! add log entries, trust rows, tasks and STATUS sections merge without losing or doubling
//! anything, and the result verifies; `manifest` rebuilds a conflicted MANIFEST.json.

use std::ffi::OsString;

use crate::support::{CmdOutput, TestRepo, bin};

const DIR: &str = ".ai/handoff";

/// `PATH` with the binary under test first, so git finds `git aahp` for the driver.
fn path_with_bin() -> OsString {
    let mut paths = vec![bin().parent().unwrap().to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).unwrap()
}

fn git_with_driver(repo: &TestRepo, args: &[&str]) -> CmdOutput {
    repo.git_env(args, &[("PATH", path_with_bin().as_os_str())])
}

/// A repository after `init` and `hooks install`, its handoff committed on `main`.
fn merge_repo() -> TestRepo {
    let repo = TestRepo::with_handoff();
    let out = repo.aahp(&["hooks", "install"]);
    out.assert_code(0);
    assert!(out.stdout.contains("merge.aahp.driver"), "{out}");
    assert_eq!(
        repo.git(&["config", "merge.aahp.driver"]).trim(),
        "git aahp merge-driver %O %A %B %P"
    );
    repo
}

fn file(name: &str) -> String {
    format!("{DIR}/{name}")
}

/// Adds a log entry on top of LOG.md.
fn add_log_entry(repo: &TestRepo, who: &str, what: &str) {
    let log = repo.read(&file("LOG.md"));
    let at = log.find("\n## [2026").expect("a dated entry") + 1;
    let entry = format!("## [2026-11-22] {who}: {what}\n\n- {what} done\n\n---\n\n");
    repo.write(
        &file("LOG.md"),
        format!("{}{entry}{}", &log[..at], &log[at..]),
    );
}

/// Adds a trust row after the `Test suite passes` row and re-verifies `Project builds`.
fn add_trust_row(repo: &TestRepo, property: &str, builds_verified: &str) {
    let trust = repo.read(&file("TRUST.md"));
    let mut out = String::new();
    for line in trust.lines() {
        if line.starts_with("| Project builds |") {
            out.push_str(&format!(
                "| Project builds | verified | tool_verified | {builds_verified} | x | 7d | - | - |\n"
            ));
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if line.starts_with("| Test suite passes |") {
            out.push_str(&format!(
                "| {property} | verified | tool_verified | 2026-11-22 | x | 7d | - | - |\n"
            ));
        }
    }
    repo.write(&file("TRUST.md"), out);
}

/// Replaces the body of a STATUS section and appends a new section.
fn edit_status(repo: &TestRepo, section: &str, body: &str, new_section: &str) {
    let status = repo.read(&file("STATUS.md"));
    let open = format!("<!-- SECTION: {section} -->\n");
    let close = format!("<!-- /SECTION: {section} -->");
    let a = status.find(&open).unwrap() + open.len();
    let b = status.find(&close).unwrap();
    repo.write(
        &file("STATUS.md"),
        format!(
            "{}{body}\n{}\n## {new_section}\n\n<!-- SECTION: {new_section} -->\n{new_section} notes\n<!-- /SECTION: {new_section} -->\n",
            &status[..a],
            &status[b..]
        ),
    );
}

/// One branch's session: a log entry, a trust row, a task and STATUS sections, committed.
fn work_on(repo: &TestRepo, branch: &str, who: &str, section: &str, builds: &str) {
    repo.git(&["switch", "-q", branch]);
    add_log_entry(repo, who, &format!("{who} work"));
    add_trust_row(repo, &format!("{who} checks pass"), builds);
    edit_status(
        repo,
        section,
        &format!("{who} rewrote {section}"),
        &format!("{who}_notes"),
    );
    repo.aahp(&["task", "add", &format!("{who} task")])
        .assert_code(0);
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.git(&[
        "commit",
        "-q",
        "--no-verify",
        "-m",
        &format!("{who} session"),
    ]);
}

fn manifest(repo: &TestRepo) -> serde_json::Value {
    serde_json::from_str(&repo.read(&file("MANIFEST.json"))).unwrap()
}

/// Both branches added T-001: ours (alice's) kept it, bob's was renumbered with a note.
fn assert_alice_kept_t001_and_bob_became_t002(repo: &TestRepo) {
    let m = manifest(repo);
    assert_eq!(m["tasks"]["T-001"]["title"], "alice task", "{m}");
    assert_eq!(m["tasks"]["T-002"]["title"], "bob task", "{m}");
    assert_eq!(m["tasks"]["T-002"]["renumbered_from"], "T-001");
    let note = m["tasks"]["T-002"]["notes"].as_str().unwrap();
    assert!(note.contains("renumbered from T-001"), "{m}");
    assert_eq!(m["next_task_id"], 3);
}

#[test]
fn branches_that_each_add_entries_rows_tasks_and_sections_merge_losing_nothing() {
    let repo = merge_repo();
    repo.git(&["branch", "feature"]);
    work_on(&repo, "feature", "bob", "done", "2026-11-22");
    work_on(&repo, "main", "alice", "what_is_missing", "2026-11-21");

    let out = git_with_driver(&repo, &["merge", "--no-edit", "feature"]);
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    // LOG.md: both entries and the init entry, each once, newest first.
    let log = repo.read(&file("LOG.md"));
    for heading in [
        "alice: alice work",
        "bob: bob work",
        "Handoff directory initialised",
    ] {
        assert_eq!(log.matches(heading).count(), 1, "{heading}\n{log}");
    }
    assert!(log.find("bob work").unwrap() < log.find("initialised").unwrap());
    // The merge's own entry, newest, says which id was renamed.
    let first = log.find("\n## [").unwrap();
    assert!(
        log[first..].starts_with("\n## [2026-11-22] git-aahp: Merge renumbered task ids\n"),
        "{log}"
    );
    assert_eq!(log.matches("Merge renumbered task ids").count(), 1, "{log}");
    assert!(log.contains("\n- `T-001` is now `T-002`"), "{log}");
    repo.aahp(&["lint"]).assert_code(0);
    // TRUST.md: both rows; the later verification of `Project builds` (bob's) wins.
    let trust = repo.read(&file("TRUST.md"));
    assert!(trust.contains("| alice checks pass |"), "{trust}");
    assert!(trust.contains("| bob checks pass |"), "{trust}");
    assert_eq!(trust.matches("| Project builds |").count(), 1, "{trust}");
    assert!(trust.contains("| Project builds | verified | tool_verified | 2026-11-22 |"));
    // STATUS.md: each side's rewritten section and new section.
    let status = repo.read(&file("STATUS.md"));
    for text in [
        "bob rewrote done",
        "alice rewrote what_is_missing",
        "bob_notes notes",
        "alice_notes notes",
    ] {
        assert_eq!(status.matches(text).count(), 1, "{text}\n{status}");
    }
    assert!(!status.contains("<<<<<<<"), "{status}");
    // Tasks: both kept; bob's T-001 clashed with alice's and was renumbered, with a note.
    assert_alice_kept_t001_and_bob_became_t002(&repo);
    // The merged handoff verifies as committed, and every journal entry of either side is
    // still there (review s29 #5).
    repo.aahp(&["verify"]).assert_code(0);
    repo.aahp(&["manifest", "--check"]).assert_code(0);
    for base in ["HEAD~1", "feature"] {
        repo.aahp(&["verify", "--level", "ci", "--base", base])
            .assert_code(0);
    }
}

/// A repository whose `feature` (bob) and `main` (alice) each rewrote STATUS.md's summary
/// and added a section, committed; `main` checked out.
fn summary_rewritten_on_both() -> TestRepo {
    let repo = merge_repo();
    repo.git(&["branch", "feature"]);
    for (branch, who) in [("feature", "bob"), ("main", "alice")] {
        repo.git(&["switch", "-q", branch]);
        edit_status(
            &repo,
            "summary",
            &format!("{who} summary"),
            &format!("{who}_notes"),
        );
        repo.aahp(&["manifest"]).assert_code(0);
        repo.git(&["commit", "-q", "--no-verify", "-am", who]);
    }
    repo
}

/// The summary conflict of [`summary_rewritten_on_both`] merged, as git leaves it.
const SUMMARY_CONFLICT: &str =
    "<<<<<<< ours\nalice summary\n=======\nbob summary\n>>>>>>> theirs\n";

/// Resolves [`SUMMARY_CONFLICT`] in `status` (STATUS.md as the merge left it) by hand,
/// regenerates the manifest and stages everything.
fn resolve_summary(repo: &TestRepo, status: &str) {
    repo.write(
        &file("STATUS.md"),
        status.replace(SUMMARY_CONFLICT, "alice and bob summary\n"),
    );
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
}

#[test]
fn a_section_both_branches_rewrote_is_a_marked_conflict_that_manifest_then_indexes() {
    let repo = summary_rewritten_on_both();
    let out = git_with_driver(&repo, &["merge", "--no-edit", "feature"]);
    assert_ne!(out.code, 0, "{out}");
    let status = repo.read(&file("STATUS.md"));
    assert!(status.contains(SUMMARY_CONFLICT), "{status}");
    assert!(status.contains("bob_notes notes") && status.contains("alice_notes notes"));
    // Resolved by hand, the manifest is regenerated and the merge verifies.
    resolve_summary(&repo, &status);
    repo.git(&["commit", "-q", "--no-verify", "--no-edit"]);
    repo.aahp(&["verify"]).assert_code(0);
}

/// Session 30 #2: a STATUS.md the merge left with conflict markers passed the hook and CI
/// (the driver regenerated the manifest over it) and `context` printed both sides. The
/// driver now leaves the checksums alone, and the markers are refused by the hook, `lint`,
/// `verify --level ci` and `context`, naming the file and line; resolved, the merge passes.
#[test]
fn a_file_a_merge_left_conflicted_is_refused_and_never_checksummed() {
    let repo = summary_rewritten_on_both();
    let checksum = |repo: &TestRepo| manifest(repo)["files"]["STATUS.md"]["checksum"].clone();
    let before = checksum(&repo);
    let out = git_with_driver(&repo, &["merge", "--no-edit", "feature"]);
    assert_ne!(out.code, 0, "{out}");
    assert!(
        out.stdout.contains("checksums were not regenerated"),
        "{out}"
    );
    assert_eq!(checksum(&repo), before);
    let status = repo.read(&file("STATUS.md"));
    let opener = 1 + status[..status.find("<<<<<<< ours").unwrap()]
        .matches('\n')
        .count();
    let at = format!("{}:{opener}", file("STATUS.md"));

    repo.git(&["add", "-A"]);
    let hook = repo.aahp(&["hook", "pre-commit"]);
    hook.assert_code(1);
    let lint = repo.aahp(&["lint"]);
    lint.assert_code(1);
    for out in [&hook, &lint] {
        assert!(
            out.stdout.contains("STRUCT004") && out.stdout.contains("resolve it"),
            "{out}"
        );
    }
    assert!(lint.stdout.contains(&format!("{at}:1:")), "{lint}");
    let context = repo.aahp(&["context"]);
    context.assert_code(2);
    assert!(
        context
            .stderr
            .contains(&format!("{at}: holds merge conflict markers"))
            && context.stderr.contains("resolve the merge")
            && !context.stdout.contains("<<<<<<<"),
        "{context}"
    );
    repo.git(&["commit", "-q", "--no-verify", "--no-edit"]);
    let ci = repo.aahp(&["verify", "--level", "ci", "--base", "HEAD~1"]);
    ci.assert_code(1);
    assert!(ci.stdout.contains("STRUCT004"), "{ci}");

    resolve_summary(&repo, &status);
    repo.aahp(&["hook", "pre-commit"]).assert_code(0);
    repo.aahp(&["context"]).assert_code(0);
}

/// Review atk46 #3: `recover --force` in the middle of a conflicted merge rolled the
/// session back by restoring HEAD's handoff files over the index and the work tree: the
/// file only the merged branch added left both, the conflict was gone, and the `git commit`
/// concluding the merge recorded `feature` as merged without its handoff changes. It is
/// refused (exit 2) naming how to finish or abort the merge, nothing changed; once the
/// merge is aborted, the session is rolled back as before.
#[test]
fn recover_refuses_to_roll_back_a_session_in_the_middle_of_a_merge() {
    let repo = summary_rewritten_on_both();
    repo.git(&["switch", "-q", "feature"]);
    repo.write(
        &file("DESIGN.md"),
        "# Design\n\nThe parser reads by entry.\n",
    );
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "design"]);
    repo.git(&["switch", "-q", "main"]);
    repo.aahp(&["begin", "--agent", "alice"]).assert_code(0);
    let out = git_with_driver(&repo, &["merge", "--no-edit", "feature"]);
    assert_ne!(out.code, 0, "{out}");
    let staged = || repo.git(&["ls-files", "--stage", DIR]);
    let (before, status) = (staged(), repo.read(&file("STATUS.md")));
    assert!(before.contains("DESIGN.md") && status.contains(SUMMARY_CONFLICT));

    let rec = repo.aahp(&["recover", "--force"]);
    rec.assert_code(2);
    assert!(
        rec.stderr.contains("`git merge` is in progress")
            && rec.stderr.contains("git merge --abort")
            && rec.stderr.contains("nothing was recovered"),
        "{rec}"
    );
    assert_eq!(staged(), before, "the index changed");
    assert_eq!(repo.read(&file("STATUS.md")), status);
    assert!(repo.exists(&file("DESIGN.md")) && repo.exists(&file("HANDOFF.lock")));

    repo.git(&["merge", "--abort"]);
    let rec = repo.aahp(&["recover", "--force"]);
    rec.assert_code(0);
    assert!(!repo.exists(&file("HANDOFF.lock")), "{rec}");
}

/// Session 30 #2: conflict markers in an agent instruction file (here with git's diff3
/// part) are refused like those of a handoff file; a Markdown heading underlined with `=`
/// is not a conflict.
#[test]
fn conflict_markers_in_an_instruction_file_are_refused_and_a_heading_underline_is_not() {
    let repo = merge_repo();
    repo.write(
        "AGENTS.md",
        "# Agents\n\nRules\n=======\n\n<<<<<<< HEAD\nRun the tests.\n||||||| base\nRun.\n=======\nRun the linter.\n>>>>>>> feature\n",
    );
    repo.git(&["add", "-A"]);
    for args in [
        &["hook", "pre-commit"][..],
        &["lint", "--all"],
        &["lint", "AGENTS.md"],
    ] {
        let out = repo.aahp(args);
        out.assert_code(1);
        assert!(
            out.stdout.contains("AGENTS.md")
                && out.stdout.contains("6:1")
                && out.stdout.contains("STRUCT004"),
            "{args:?}\n{out}"
        );
    }
    repo.write(
        "AGENTS.md",
        "# Agents\n\nRules\n=======\n\nRun the tests.\n",
    );
    let out = repo.aahp(&["lint", "AGENTS.md"]);
    out.assert_code(0);
}

/// Each branch runs `task` commands and commits; then `main` merges `feature` without the
/// driver configured, so git's line merge leaves MANIFEST.json in conflict markers
/// (`feature` is branched from `main` unless it exists).
fn conflicted_merge(repo: &TestRepo, feature: &[&[&str]], main: &[&[&str]]) {
    repo.git_output(&["branch", "feature"]);
    for (branch, cmds) in [("feature", feature), ("main", main)] {
        repo.git(&["switch", "-q", branch]);
        for args in cmds {
            repo.aahp(args).assert_code(0);
        }
        repo.git(&["commit", "-q", "--no-verify", "-am", branch]);
    }
    let out = repo.git_output(&["merge", "--no-edit", "feature"]);
    assert_ne!(out.code, 0, "{out}");
    assert!(repo.read(&file("MANIFEST.json")).contains("<<<<<<<"));
}

#[test]
fn manifest_rebuilds_a_manifest_left_with_conflict_markers() {
    let repo = TestRepo::with_handoff();
    conflicted_merge(
        &repo,
        &[&["task", "add", "bob task"]],
        &[&["task", "add", "alice task"]],
    );
    // Every other command refuses it, naming the file and line and the way out.
    for args in [
        &["status"][..],
        &["verify"],
        &["lint"],
        &["context"],
        &["task", "list"],
    ] {
        let out = repo.aahp(args);
        out.assert_code(2);
        assert!(
            out.stderr.contains(".ai/handoff/MANIFEST.json:")
                && out.stderr.contains("holds merge conflict markers")
                && out
                    .stderr
                    .contains("hint: run `git aahp manifest` to rebuild"),
            "{args:?}: {out}"
        );
    }
    repo.aahp(&["manifest", "--check"]).assert_code(2);
    // recover has nothing to recover, and says where the way out is.
    let out = repo.aahp(&["recover"]);
    out.assert_code(0);
    assert!(
        out.stdout.contains("MANIFEST.json:")
            && out.stdout.contains("holds merge conflict markers")
            && out.stdout.contains("run `git aahp manifest`"),
        "{out}"
    );

    let out = repo.aahp(&["manifest"]);
    out.assert_code(0);
    assert!(
        out.stdout
            .contains("held merge conflict markers: rebuilt from both sides")
            && out
                .stdout
                .contains("task T-001 of the incoming side is now T-002")
            && out
                .stdout
                .contains("logged: the renumbering, in .ai/handoff/LOG.md"),
        "{out}"
    );
    assert_alice_kept_t001_and_bob_became_t002(&repo);
    // The renumbering is logged, as a merge through the driver logs it.
    let log = repo.read(&file("LOG.md"));
    let entry = log
        .find("## [2026-11-22] git-aahp: Manifest rebuild renumbered task ids")
        .expect(&log);
    assert!(log[entry..].contains("- `T-001` is now `T-002`"), "{log}");
    repo.aahp(&["manifest", "--check"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "--no-edit"]);
    repo.aahp(&["verify"]).assert_code(0);
}

#[test]
fn a_conflicted_manifest_rebuild_keeps_a_task_both_sides_changed_as_one_task() {
    // Both sides change T-001 (from the ancestor) and add a task; theirs also adds a field
    // the tool does not own. The index's ancestor tells an edit from an addition.
    let repo = TestRepo::with_handoff();
    repo.aahp(&["task", "add", "shared task"]).assert_code(0);
    repo.git(&["commit", "-q", "--no-verify", "-am", "shared"]);
    repo.git(&["branch", "feature"]);
    repo.git(&["switch", "-q", "feature"]);
    let mut doc = manifest(&repo);
    let cross =
        serde_json::json!({"repo": "org/other", "commit": "abc1234", "relation": "extends"});
    doc["cross_repo_ref"] = cross.clone();
    repo.write(
        &file("MANIFEST.json"),
        serde_json::to_string_pretty(&doc).unwrap() + "\n",
    );
    repo.git(&["commit", "-q", "--no-verify", "-am", "ref"]);
    repo.git(&["switch", "-q", "main"]);
    conflicted_merge(
        &repo,
        &[
            &["task", "block", "T-001", "--reason", "waiting"],
            &["task", "add", "bob task"],
        ],
        &[&["task", "done", "T-001"], &["task", "add", "alice task"]],
    );
    repo.aahp(&["manifest"]).assert_code(0);
    let m = manifest(&repo);
    let tasks = m["tasks"].as_object().unwrap();
    assert_eq!(tasks.len(), 3, "{m}");
    assert_eq!(m["tasks"]["T-001"]["title"], "shared task");
    assert_eq!(
        m["tasks"]["T-001"]["status"], "done",
        "ours' edit kept: {m}"
    );
    assert_eq!(m["tasks"]["T-002"]["title"], "alice task");
    assert_eq!(m["tasks"]["T-003"]["title"], "bob task");
    assert_eq!(m["tasks"]["T-003"]["renumbered_from"], "T-002");
    assert_eq!(m["next_task_id"], 4);
    assert_eq!(m["cross_repo_ref"], cross, "{m}");
    repo.aahp(&["manifest", "--check"]).assert_code(0);
}

#[test]
fn status_warns_when_gitattributes_names_the_driver_but_the_clone_lacks_it() {
    let repo = TestRepo::with_handoff();
    let out = repo.aahp(&["status"]);
    assert!(
        out.stdout.contains(
            ".gitattributes names `git aahp merge-driver` but this clone has not configured it"
        ),
        "{out}"
    );
    assert_eq!(
        repo.aahp(&["status", "--json"]).json()["merge_driver_missing"],
        true
    );
    repo.aahp(&["hooks", "install"]).assert_code(0);
    assert_eq!(
        repo.aahp(&["status", "--json"]).json()["merge_driver_missing"],
        false
    );
}

#[test]
fn an_archive_over_the_limit_of_other_files_merges_within_its_own() {
    // Issue #12 item 2: LOG-ARCHIVE.md may hold up to 256 MiB (what `archive` writes, every
    // reader reads back); the driver read its temporary copies with the 8 MiB limit of other
    // handoff files and refused the merge of a 9 MB archive.
    let repo = TestRepo::new();
    let entry = |i: usize| {
        format!(
            "## [2026-01-{:02}] agent-{i}: Session {i}\n\n**Agent:** agent-{i}\n\n- did {i}, a line long enough to make the archive large\n\n---\n\n",
            i % 28 + 1
        )
    };
    let mut base = String::from("# Archive\n\n---\n\n");
    let mut i = 0;
    while base.len() <= 9 * 1024 * 1024 {
        i += 1;
        base.push_str(&entry(i));
    }
    let new = |who: &str| {
        format!("## [2026-02-01] {who}: Session new\n\n- {who} did it\n\n---\n\n{base}")
    };
    let (ours, theirs) = (new("alice"), new("bob"));
    for (name, text) in [("base", &base), ("ours", &ours), ("theirs", &theirs)] {
        repo.write(name, text);
    }
    let out = repo.aahp(&[
        "merge-driver",
        "base",
        "ours",
        "theirs",
        ".ai/handoff/LOG-ARCHIVE.md",
    ]);
    out.assert_code(0);
    let merged = repo.read("ours");
    assert!(merged.contains("- alice did it") && merged.contains("- bob did it"));
    assert!(merged.len() > 9 * 1024 * 1024);
}

/// Runs the driver on `base`, `ours` and `theirs` written into a fresh repository as the
/// sides of `path`; returns the run and what it left in `ours`.
fn drive(path: &str, sides: [&str; 3], envs: &[(&str, &str)]) -> (CmdOutput, String) {
    let repo = TestRepo::new();
    for (name, text) in ["base", "ours", "theirs"].into_iter().zip(sides) {
        repo.write(name, text);
    }
    let out = repo.aahp_env(".", &["merge-driver", "base", "ours", "theirs", path], envs);
    (out, repo.read("ours"))
}

#[test]
fn an_archive_both_sides_appended_to_merges_as_streams_to_what_the_whole_merge_gives() {
    // Issue #12 item 2: above the 8 MiB of files held in memory, LOG-ARCHIVE.md is merged
    // entry by entry when each side only added entries before or after the ancestor's (an
    // archive only grows). `merge-in-pieces` takes that path with small files and
    // `read-whole:NAME` makes holding a side in memory fail; the result is the whole
    // merge's, byte for byte.
    const ARCHIVE_PATH: &str = ".ai/handoff/LOG-ARCHIVE.md";
    const INDEX_PATH: &str = ".ai/handoff/LOG-ARCHIVE.index.json";
    let entry = |d: usize, who: &str| {
        format!("## [2026-01-{d:02}] {who}: Session {d}\r\n\r\n- {who} did {d}\r\n\r\n---\r\n\r\n")
    };
    let side = |top: &[(usize, &str)], end: &[(usize, &str)]| {
        let mut s = String::from("# Archive\r\n\r\n---\r\n\r\n");
        let all = top
            .iter()
            .chain(&[(3, "a"), (5, "b"), (5, "c"), (9, "d")])
            .chain(end);
        for (d, who) in all {
            s.push_str(&entry(*d, who));
        }
        s
    };
    let base = side(&[], &[]);
    let shapes = [
        (
            side(&[], &[(11, "alice"), (12, "alice")]),
            side(&[], &[(10, "bob")]),
        ),
        (
            side(&[(4, "alice")], &[]),
            side(&[], &[(5, "bob"), (5, "c")]),
        ),
        (side(&[], &[(7, "same")]), side(&[], &[(7, "same")])),
    ];
    let streams_only = [(
        "AAHP_FAILPOINT",
        "merge-in-pieces,read-whole:LOG-ARCHIVE.md",
    )];
    for (ours, theirs) in &shapes {
        let (whole, expected) = drive(ARCHIVE_PATH, [&base, ours, theirs], &[]);
        whole.assert_code(0);
        let (out, merged) = drive(ARCHIVE_PATH, [&base, ours, theirs], &streams_only);
        out.assert_code(0);
        assert_eq!(merged, expected);
        assert_eq!(out.stdout, whole.stdout);
    }
    // A side equal to another is taken as it is, compared and copied in pieces, for the
    // index too.
    for path in [ARCHIVE_PATH, INDEX_PATH] {
        let failpoints = format!(
            "merge-in-pieces,read-whole:{}",
            path.rsplit('/').next().unwrap()
        );
        let env = [("AAHP_FAILPOINT", failpoints.as_str())];
        let (out, merged) = drive(path, [&base, &base, &shapes[0].1], &env);
        out.assert_code(0);
        assert_eq!(merged, shapes[0].1);
        let (out, merged) = drive(path, [&base, &shapes[0].0, &base], &env);
        out.assert_code(0);
        assert_eq!(merged, shapes[0].0);
    }
    // The index, element by element.
    let el = |d: usize, who: &str| {
        format!(
            "{{\"sha256\": \"{who}{d}\", \"title\": \"## [2026-01-{d:02}] {who}: Session {d}\"}}"
        )
    };
    let index = |els: &[String]| {
        format!(
            "{{\n  \"version\": 1,\n  \"entries\": [{}]\n}}\n",
            els.join(", ")
        )
    };
    let base_els: Vec<String> = [3, 5, 9].iter().map(|d| el(*d, "a")).collect();
    let with = |end: &[String]| -> Vec<String> { base_els.iter().chain(end).cloned().collect() };
    let (b, o, t) = (
        index(&base_els),
        index(&with(&[el(11, "alice")])),
        index(&with(&[el(10, "bob"), el(12, "bob")])),
    );
    let (whole, expected) = drive(INDEX_PATH, [&b, &o, &t], &[]);
    whole.assert_code(0);
    let index_only = [(
        "AAHP_FAILPOINT",
        "merge-in-pieces,read-whole:LOG-ARCHIVE.index.json",
    )];
    let (out, merged) = drive(INDEX_PATH, [&b, &o, &t], &index_only);
    out.assert_code(0);
    assert_eq!(merged, expected);
    assert!(
        merged.contains("bob10") && merged.contains("alice11"),
        "{merged}"
    );
    // A side that rewrote an ancestor's entry (a redaction) cannot be merged entry by entry:
    // the sides are read whole, within the archive's limit, as before (here that read is
    // the injected failure, exit 2 naming the side).
    let redacted = base.replace("- b did 5", "- b did [redacted: secret]");
    let (out, merged) = drive(
        ARCHIVE_PATH,
        [&base, &redacted, &shapes[0].1],
        &streams_only,
    );
    out.assert_code(2);
    assert!(out.stderr.contains("LOG-ARCHIVE.md (ancestor)"), "{out}");
    assert_eq!(merged, redacted);
    let (out, merged) = drive(
        ARCHIVE_PATH,
        [&base, &redacted, &shapes[0].1],
        &[("AAHP_FAILPOINT", "merge-in-pieces")],
    );
    out.assert_code(0);
    assert!(merged.contains("[redacted: secret]") && merged.contains("- bob did 10"));
}

/// Commits everything on the current branch, skipping the hooks.
fn commit_all(repo: &TestRepo, msg: &str) {
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", msg]);
}

/// Replaces `from` by `to` in a handoff file (which must hold it).
fn edit(repo: &TestRepo, name: &str, from: &str, to: &str) {
    let text = repo.read(&file(name));
    assert!(text.contains(from), "{name} lacks {from:?}:\n{text}");
    repo.write(&file(name), text.replacen(from, to, 1));
}

/// `feature` adds "Build parser" (T-001), "Test parser" depending on it and a `NEXT_ACTIONS.md`
/// item for each; `main` adds "Write docs" (T-001 too). `main_edits_next_actions`: main
/// also changes `NEXT_ACTIONS.md` (elsewhere), so git merges it through the driver.
fn renumbering_merge(main_edits_next_actions: bool) -> (TestRepo, CmdOutput) {
    let repo = merge_repo();
    repo.git(&["switch", "-q", "-c", "feature"]);
    repo.aahp(&["task", "add", "Build parser"]).assert_code(0);
    repo.aahp(&["task", "add", "Test parser", "--depends-on", "T-001"])
        .assert_code(0);
    edit(
        &repo,
        "NEXT_ACTIONS.md",
        "None.\n",
        "## T-001: Build parser\n\nThe lexer first.\n\n## T-002: Test parser\n\nAfter T-001 is done.\n",
    );
    repo.aahp(&["manifest"]).assert_code(0);
    commit_all(&repo, "feature");
    repo.git(&["switch", "-q", "main"]);
    repo.aahp(&["task", "add", "Write docs"]).assert_code(0);
    if main_edits_next_actions {
        edit(
            &repo,
            "NEXT_ACTIONS.md",
            "|------|-----------|-------|\n",
            "|------|-----------|-------|\n| Set up CI | 2026-11-21 | - |\n",
        );
    }
    repo.aahp(&["manifest"]).assert_code(0);
    commit_all(&repo, "main");
    let out = git_with_driver(&repo, &["merge", "--no-edit", "feature"]);
    (repo, out)
}

#[test]
fn a_renumbered_task_is_renamed_in_the_dependencies_and_headings_its_branch_wrote() {
    let (repo, out) = renumbering_merge(true);
    assert_eq!(out.code, 0, "{out}");
    assert!(
        out.stdout
            .contains("task T-001 added on the merged branch is now T-003")
            || out
                .stderr
                .contains("task T-001 added on the merged branch is now T-003"),
        "{out}"
    );
    let m = manifest(&repo);
    assert_eq!(m["tasks"]["T-001"]["title"], "Write docs", "{m}");
    assert_eq!(m["tasks"]["T-003"]["title"], "Build parser", "{m}");
    assert_eq!(m["tasks"]["T-002"]["title"], "Test parser", "{m}");
    // "Test parser" still waits for "Build parser", not for main's "Write docs".
    assert_eq!(
        m["tasks"]["T-002"]["depends_on"],
        serde_json::json!(["T-003"])
    );
    let list = repo.aahp(&["task", "list"]);
    assert!(list.stdout.contains("Test parser [after T-003]"), "{list}");
    let next = repo.read(&file("NEXT_ACTIONS.md"));
    assert!(next.contains("## T-003: Build parser\n"), "{next}");
    assert!(next.contains("After T-003 is done."), "{next}");
    assert!(!next.contains("T-001: Build parser"), "{next}");
    // Text the ancestor held is not touched (the template's `## T-001: Title`).
    assert!(next.contains("`## T-001: Title`"), "{next}");
    assert!(next.contains("| Set up CI |"), "{next}");
    repo.aahp(&["manifest", "--check"]).assert_code(0);
    repo.aahp(&["verify"]).assert_code(0);
}

#[test]
fn a_renumbered_id_in_a_file_git_takes_whole_from_the_merged_branch_stops_the_merge() {
    // Main did not touch NEXT_ACTIONS.md: git takes feature's as it is, without the
    // driver, and its `T-001: Build parser` would name main's task.
    let (repo, out) = renumbering_merge(false);
    assert_eq!(out.code, 1, "{out}");
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains(".ai/handoff/NEXT_ACTIONS.md from the merged branch names a task this merge renumbered (T-001 is now T-003)"),
        "{out}"
    );
    assert_eq!(
        manifest(&repo)["tasks"]["T-002"]["depends_on"],
        serde_json::json!(["T-003"])
    );
}

#[test]
fn a_task_done_on_one_branch_and_claimed_on_the_other_stays_done_with_both_changes() {
    let repo = merge_repo();
    repo.aahp(&["task", "add", "Shared task"]).assert_code(0);
    commit_all(&repo, "base");
    repo.git(&["switch", "-q", "-c", "feature"]);
    repo.aahp(&["task", "done", "T-001", "--agent", "bob"])
        .assert_code(0);
    let mut m = manifest(&repo);
    m["tasks"]["T-001"]["x_custom"] = "kept-from-feature".into();
    repo.write(
        &file("MANIFEST.json"),
        serde_json::to_string_pretty(&m).unwrap() + "\n",
    );
    commit_all(&repo, "feature");
    repo.git(&["switch", "-q", "main"]);
    repo.aahp(&["task", "claim", "T-001", "--agent", "alice"])
        .assert_code(0);
    commit_all(&repo, "main");
    let out = git_with_driver(&repo, &["merge", "--no-edit", "feature"]);
    assert_eq!(out.code, 0, "{out}");
    assert!(
        format!("{}{}", out.stdout, out.stderr).contains(
            "task T-001: both branches changed its status; `done` is further along and was kept, this branch's `in_progress` was not"
        ),
        "{out}"
    );
    let t = &manifest(&repo)["tasks"]["T-001"];
    assert_eq!(t["status"], "done", "{t}");
    assert!(t["completed"].is_string(), "{t}");
    assert_eq!(t["assigned_to"], "alice", "{t}");
    assert_eq!(t["x_custom"], "kept-from-feature", "{t}");
    repo.aahp(&["manifest", "--check"]).assert_code(0);
}

#[test]
fn a_task_field_both_branches_changed_differently_is_a_conflict() {
    let repo = merge_repo();
    repo.aahp(&["task", "add", "Shared task"]).assert_code(0);
    commit_all(&repo, "base");
    repo.git(&["switch", "-q", "-c", "feature"]);
    for (branch, title) in [("feature", "Theirs title"), ("main", "Ours title")] {
        repo.git(&["switch", "-q", branch]);
        let mut m = manifest(&repo);
        m["tasks"]["T-001"]["title"] = title.into();
        repo.write(
            &file("MANIFEST.json"),
            serde_json::to_string_pretty(&m).unwrap() + "\n",
        );
        commit_all(&repo, branch);
    }
    let out = git_with_driver(&repo, &["merge", "--no-edit", "feature"]);
    assert_eq!(out.code, 1, "{out}");
    assert!(
        format!("{}{}", out.stdout, out.stderr)
            .contains("both branches changed T-001 `title` to different values"),
        "{out}"
    );
    let text = repo.read(&file("MANIFEST.json"));
    assert!(
        text.contains("Ours title") && text.contains("Theirs title") && text.contains("<<<<<<<"),
        "{text}"
    );
    // The rebuild does not choose either: it names the field.
    let out = repo.aahp(&["manifest"]);
    out.assert_code(2);
    assert!(out.stderr.contains("T-001 `title`"), "{out}");
}

#[test]
fn trust_text_and_a_section_only_the_merged_branch_added_are_kept() {
    let repo = merge_repo();
    repo.git(&["switch", "-q", "-c", "feature"]);
    edit(
        &repo,
        "TRUST.md",
        "## Infrastructure\n",
        "Builds need the nightly toolchain.\n\n## Infrastructure\n",
    );
    let trust = repo.read(&file("TRUST.md"));
    repo.write(
        &file("TRUST.md"),
        format!(
            "{trust}\n## Deployment\n\n| Property | Status | Provenance | Last Verified | Agent | TTL | Expires | Notes |\n|---|---|---|---|---|---|---|---|\n| Staging deploys | untested | - | - | - | 7d | - | - |\n"
        ),
    );
    repo.aahp(&["manifest"]).assert_code(0);
    commit_all(&repo, "feature");
    repo.git(&["switch", "-q", "main"]);
    add_trust_row(&repo, "Lints pass", "2026-11-21");
    repo.aahp(&["manifest"]).assert_code(0);
    commit_all(&repo, "main");
    let out = git_with_driver(&repo, &["merge", "--no-edit", "feature"]);
    assert_eq!(out.code, 0, "{out}");
    let trust = repo.read(&file("TRUST.md"));
    assert!(
        trust.contains("Builds need the nightly toolchain.\n"),
        "{trust}"
    );
    let section = trust.find("## Deployment\n").expect(&trust);
    assert!(
        trust[section..].contains("| Staging deploys |"),
        "the row stays under its heading: {trust}"
    );
    assert!(trust.contains("| Lints pass |"), "{trust}");
    assert!(trust.contains("| Project builds | verified | tool_verified | 2026-11-21 |"));
    repo.aahp(&["verify"]).assert_code(0);
}

#[test]
fn text_outside_entries_both_branches_changed_is_a_conflict_not_ours() {
    let repo = merge_repo();
    repo.git(&["branch", "feature"]);
    for (branch, who) in [("feature", "B"), ("main", "A")] {
        repo.git(&["switch", "-q", branch]);
        add_log_entry(&repo, who, "work");
        edit(
            &repo,
            "LOG.md",
            "newest entry first.\n",
            &format!("newest entry first.\nTeam note {who}\n"),
        );
        edit(
            &repo,
            "TRUST.md",
            "Claims about the project",
            &format!("Team {who} claims about the project"),
        );
        repo.aahp(&["manifest"]).assert_code(0);
        commit_all(&repo, branch);
    }
    let out = git_with_driver(&repo, &["merge", "--no-edit", "feature"]);
    assert_eq!(out.code, 1, "{out}");
    let log = repo.read(&file("LOG.md"));
    assert!(
        log.contains("<<<<<<< ours\nTeam note A\n=======\nTeam note B\n>>>>>>> theirs\n"),
        "{log}"
    );
    assert!(log.contains("A: work") && log.contains("B: work"), "{log}");
    let trust = repo.read(&file("TRUST.md"));
    assert!(
        trust.contains("<<<<<<< ours\n# ") || trust.contains("<<<<<<< ours\nTeam A"),
        "{trust}"
    );
    assert!(
        trust.contains("Team A claims") && trust.contains("Team B claims"),
        "{trust}"
    );
}

/// Session 30 #4: a merge is judged at the hook as git's pre-commit sees it (the index
/// against HEAD), and what keeps history against the merged branch too: concluding a merge
/// that keeps HEAD's LOG.md drops the branch's entries and is refused; amending the merge to
/// drop the branch's task is refused the same way, the merge's parents named.
#[test]
fn a_merge_dropping_what_the_merged_branch_kept_is_refused_concluded_or_amended() {
    let repo = merge_repo();
    repo.git(&["branch", "feature"]);
    work_on(&repo, "feature", "bob", "done", "2026-11-22");
    repo.git(&["switch", "-q", "main"]);
    add_log_entry(&repo, "alice", "alice work");
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "alice session"]);
    let short = |rev: &str| repo.git(&["rev-parse", "--short", rev]).trim().to_string();
    let (main, feature) = (short("main"), short("feature"));

    // Merged by the driver but not committed: `git commit` concludes it through the hook.
    git_with_driver(&repo, &["merge", "-q", "--no-commit", "feature"]).assert_code(0);
    let merged_log = repo.read(&file("LOG.md"));
    assert!(merged_log.contains("bob: bob work"), "{merged_log}");
    repo.write(
        &file("LOG.md"),
        repo.git(&["show", "HEAD:.ai/handoff/LOG.md"]),
    );
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
    let out = git_with_driver(&repo, &["commit", "-q", "-m", "merge feature"]);
    out.assert_code(1);
    assert!(
        out.stderr.contains(&format!(
            "the entry \"## [2026-11-22] bob: bob work\" of the merged parent ({feature}) is no \
             longer in LOG.md"
        )) && out.stderr.contains(&format!(
            "(precommit, index, merging {feature}; LOG.md's entries and the tasks against every \
             parent)"
        )),
        "{out}"
    );
    // Both journals kept: the merge is concluded.
    repo.write(&file("LOG.md"), &merged_log);
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
    git_with_driver(&repo, &["commit", "-q", "-m", "merge feature"]).assert_code(0);
    let merge = short("HEAD");

    // Amended to drop the branch's task: judged against both parents as the merge was.
    let mut m = manifest(&repo);
    assert_eq!(m["tasks"]["T-001"]["title"], "bob task", "{m}");
    m["tasks"].as_object_mut().unwrap().remove("T-001");
    repo.write(
        &file("MANIFEST.json"),
        serde_json::to_string_pretty(&m).unwrap(),
    );
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
    let out = git_with_driver(&repo, &["commit", "-q", "--amend", "--no-edit"]);
    out.assert_code(1);
    assert!(
        out.stderr.contains(&format!(
            "task T-001 by the merged parent {feature} was dropped"
        )) && out.stderr.contains(&format!(
            "amending merge {merge} (judged against its first parent {main}; LOG.md's entries \
             and the tasks against every parent)"
        )),
        "{out}"
    );
    assert_eq!(short("HEAD"), merge, "nothing was amended");
}

#[test]
fn entries_both_branches_rotated_into_the_archive_are_archived_once() {
    // From a full LOG.md, each branch's sessions rotate the same oldest entries into the
    // append-only archive. The merge held them twice, for good, and verified (review rob36
    // #1): an entry both branches added is one addition.
    let repo = merge_repo();
    let log = repo.read(&file("LOG.md"));
    let mut old = String::new();
    for i in (1..=9).rev() {
        old.push_str(&format!(
            "## [2026-10-{i:02}] a: base {i}\n\n- body {i}\n\n---\n\n"
        ));
    }
    repo.write(
        &file("LOG.md"),
        format!("{}\n\n---\n\n{old}", log.trim_end()),
    );
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "full log"]);
    repo.git(&["branch", "feature"]);
    let path = path_with_bin();
    let path = path.to_str().unwrap();
    let sessions = |branch: &str, n: usize| {
        repo.git(&["checkout", "-q", branch]);
        for i in 1..=n {
            let m = format!("{branch} {i}");
            repo.aahp_env(
                ".",
                &["commit", "-m", &m, "--log", &m, "--no-tag"],
                &[("PATH", path)],
            )
            .assert_code(0);
        }
    };
    sessions("feature", 3);
    sessions("main", 2);
    let out = git_with_driver(&repo, &["merge", "--no-edit", "feature"]);
    assert_eq!(out.code, 0, "{out}");
    assert!(!out.stderr.contains("more than once"), "{out}");
    let archive = repo.read(&file("LOG-ARCHIVE.md"));
    for i in 1..=3 {
        let heading = format!("## [2026-10-{i:02}] a: base {i}\n");
        assert_eq!(archive.matches(&heading).count(), 1, "{heading}\n{archive}");
    }
    let index: serde_json::Value =
        serde_json::from_str(&repo.read(&file("LOG-ARCHIVE.index.json"))).unwrap();
    assert_eq!(index["entries"].as_array().unwrap().len(), 3, "{index}");
    repo.aahp(&["archive"]).assert_code(0);
    repo.aahp(&["archive", "--verify"]).assert_code(0);
}

/// `text` with each conflict resolved to one side (`ours` or theirs).
fn keep_side(text: &str, ours: bool) -> String {
    let mut out = String::new();
    let mut side = None;
    for line in text.split_inclusive('\n') {
        match (line.trim_end(), side) {
            (l, None) if l.starts_with("<<<<<<<") => side = Some(true),
            ("=======", Some(true)) => side = Some(false),
            (l, Some(false)) if l.starts_with(">>>>>>>") => side = None,
            (_, Some(s)) if s != ours => {}
            _ => out.push_str(line),
        }
    }
    out
}

#[test]
fn a_task_field_conflict_marks_only_that_value_and_either_choice_keeps_every_task() {
    // Both branches add a task (theirs' is renumbered) and claim T-001 for different agents.
    // The driver put both sides' whole task maps in the markers: the renumbered task was in
    // neither, and keeping either side lost the other's task (review rob36 #2).
    let repo = merge_repo();
    repo.aahp(&["task", "add", "Shared task"]).assert_code(0);
    commit_all(&repo, "base");
    repo.git(&["switch", "-q", "-c", "feature"]);
    for (branch, title, agent) in [
        ("feature", "bob task", "bob"),
        ("main", "alice task", "alice"),
    ] {
        repo.git(&["switch", "-q", branch]);
        repo.aahp(&["task", "add", title]).assert_code(0);
        repo.aahp(&["task", "claim", "T-001", "--agent", agent])
            .assert_code(0);
        commit_all(&repo, branch);
    }
    let out = git_with_driver(&repo, &["merge", "--no-edit", "feature"]);
    assert_eq!(out.code, 1, "{out}");
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(
        all.contains("task T-002 added on the merged branch is now T-003"),
        "{out}"
    );
    assert!(all.contains("T-001 `assigned_to`"), "{out}");
    let text = repo.read(&file("MANIFEST.json"));
    let marked = &text[text.find("<<<<<<<").expect(&text)..text.find(">>>>>>>").unwrap()];
    assert!(
        !marked.contains("alice task") && !marked.contains("bob task"),
        "{text}"
    );
    for ours in [true, false] {
        let m: serde_json::Value = serde_json::from_str(&keep_side(&text, ours)).expect(&text);
        assert_eq!(m["tasks"]["T-002"]["title"], "alice task", "{m}");
        assert_eq!(m["tasks"]["T-003"]["title"], "bob task", "{m}");
        assert_eq!(m["tasks"]["T-003"]["renumbered_from"], "T-002", "{m}");
        let agent = if ours { "alice" } else { "bob" };
        assert_eq!(m["tasks"]["T-001"]["assigned_to"], agent, "{m}");
        assert_eq!(m["next_task_id"], 4, "{m}");
    }
    // Choosing one side settles it: the manifest then rebuilds with every task.
    repo.write(&file("MANIFEST.json"), keep_side(&text, false));
    repo.aahp(&["manifest"]).assert_code(0);
    let m = manifest(&repo);
    assert_eq!(m["tasks"].as_object().unwrap().len(), 3, "{m}");
    repo.aahp(&["manifest", "--check"]).assert_code(0);
}

#[test]
fn the_driver_sweeps_the_temporary_file_a_killed_run_left_beside_ours() {
    // A driver killed while writing (a full disk, `ulimit -f`) leaves `.aahp-tmp-*` beside
    // git's `%A`, at the work tree's top; nothing removed it (review rob36 #11).
    let repo = merge_repo();
    repo.git(&["branch", "feature"]);
    work_on(&repo, "feature", "bob", "done", "2026-11-22");
    work_on(&repo, "main", "alice", "what_is_missing", "2026-11-21");
    repo.write(".aahp-tmp-Zq9Xw2", "{\"half\": ");
    let out = git_with_driver(&repo, &["merge", "--no-edit", "feature"]);
    assert_eq!(out.code, 0, "{out}");
    assert!(!repo.exists(".aahp-tmp-Zq9Xw2"));
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

/// One session on the current branch: its own code file, STATUS summary and LOG entry.
fn session_on(repo: &TestRepo, who: &str) {
    repo.aahp(&["begin", "--agent", who, "-q"]).assert_code(0);
    repo.write(&format!("{who}.txt"), format!("{who}\n"));
    repo.git(&["add", &format!("{who}.txt")]);
    repo.write(
        &file("STATUS.md"),
        format!(
            "# Status\n\n<!-- SECTION: summary -->\n{who} worked\n<!-- /SECTION: summary -->\n"
        ),
    );
    let path = path_with_bin().to_string_lossy().into_owned();
    let log = format!("{who} worked");
    let out = repo.aahp_env(
        ".",
        &["commit", "-m", who, "--log", &log],
        &[("PATH", &path)],
    );
    out.assert_code(0);
}

/// Resolves a conflicted STATUS.md (if any) by the merged-in side, rebuilds the manifest and
/// stages the handoff.
fn resolve_with_theirs(repo: &TestRepo) {
    let _ = repo.git_output(&["checkout", "-q", "--theirs", "--", &file("STATUS.md")]);
    repo.aahp(&["manifest", "-q"]).assert_code(0);
    repo.git(&["add", "-A"]);
}

#[test]
fn sessions_joined_by_a_merge_or_a_rebase_keep_the_chain_and_a_plain_edit_still_breaks_it() {
    for rebase in [false, true] {
        let repo = merge_repo();
        repo.git(&["switch", "-q", "-c", "other"]);
        session_on(&repo, "alice");
        repo.git(&["switch", "-q", "main"]);
        session_on(&repo, "bob");
        if rebase {
            // bob's session replayed onto alice's: its tag stays on the commit it was.
            let _ = git_with_driver(&repo, &["rebase", "-q", "other"]);
            resolve_with_theirs(&repo);
            let path = path_with_bin();
            let out = repo.git_env(
                &["rebase", "--continue"],
                &[
                    ("GIT_EDITOR", std::ffi::OsStr::new("true")),
                    ("PATH", path.as_os_str()),
                ],
            );
            out.assert_code(0);
        } else {
            let _ = git_with_driver(&repo, &["merge", "-q", "--no-edit", "other"]);
            resolve_with_theirs(&repo);
            repo.git(&["commit", "-q", "--no-verify", "-m", "merge other"]);
        }
        session_on(&repo, "carol");
        let chain = repo.aahp(&["verify", "--chain"]);
        chain.assert_code(0);
        assert!(
            !chain.stdout.contains("outside the protocol"),
            "rebase {rebase}: {chain}"
        );

        // A plain commit of a handoff file between two sessions is still named.
        edited_then_named(&repo, &format!("hand edit, rebase {rebase}"), "dave");
    }
}

#[test]
fn work_items_and_completed_rows_both_branches_added_merge_without_a_conflict() {
    let repo = merge_repo();
    let add = |item: &str, row: &str| {
        edit(
            &repo,
            "NEXT_ACTIONS.md",
            "## Recently completed",
            &format!("## {item}\n\nGoal: {item}.\n\n## Recently completed"),
        );
        let text = repo.read(&file("NEXT_ACTIONS.md"));
        repo.write(
            &file("NEXT_ACTIONS.md"),
            format!("{}\n| {row} | 2026-11-30 | done |\n", text.trim_end()),
        );
        repo.aahp(&["manifest", "-q"]).assert_code(0);
        commit_all(&repo, item);
    };
    repo.git(&["switch", "-q", "-c", "other"]);
    add("T-001: alice item", "T-090");
    repo.git(&["switch", "-q", "main"]);
    add("T-002: bob item", "T-091");
    let out = git_with_driver(&repo, &["merge", "-q", "--no-edit", "other"]);
    out.assert_code(0);
    let next = repo.read(&file("NEXT_ACTIONS.md"));
    for want in [
        "## T-001: alice item",
        "## T-002: bob item",
        "| T-090 |",
        "| T-091 |",
    ] {
        assert!(next.contains(want), "{want} kept:\n{next}");
    }
    assert!(!next.contains("<<<<<<<"), "{next}");
    repo.aahp(&["verify"]).assert_code(0);
}

/// Review atk38 #4: a plain commit of a handoff file whose LOG.md gains the provenance line
/// of a tagged session it is no copy of (one line, pasted from another branch's session),
/// and a merge that carries an edit of a file neither side changed, are outside the
/// protocol: `verify --chain` names the file, and so does status. A clean copy of that
/// session (cherry-picked) still keeps the chain.
#[test]
fn a_hand_edit_dressed_as_a_copied_session_or_carried_by_a_merge_breaks_the_chain() {
    let repo = merge_repo();
    repo.git(&["switch", "-q", "-c", "other"]);
    session_on(&repo, "alice");
    let log = repo.read(&file("LOG.md"));
    let line = log
        .lines()
        .find(|l| l.starts_with("Provenance:") && l.contains("`alice`"))
        .expect("alice's provenance line")
        .to_string();
    repo.git(&["switch", "-q", "main"]);
    session_on(&repo, "bob");
    let log = repo.read(&file("LOG.md"));
    repo.write(&file("LOG.md"), format!("{log}\n{line}\n"));
    edited_then_named(&repo, "hand edit", "carol");

    // A merge that edits a file neither side changed.
    let repo = merge_repo();
    repo.git(&["switch", "-q", "-c", "other"]);
    repo.write("side.txt", "side\n");
    commit_all(&repo, "side");
    repo.git(&["switch", "-q", "main"]);
    session_on(&repo, "bob");
    let _ = git_with_driver(&repo, &["merge", "-q", "--no-commit", "--no-ff", "other"]);
    edited_then_named(&repo, "merge other", "carol");

    // alice's session cherry-picked onto a main that left the handoff alone since: a copy.
    let repo = merge_repo();
    repo.git(&["switch", "-q", "-c", "other"]);
    session_on(&repo, "alice");
    let alice_commit = repo.git(&["rev-parse", "HEAD"]).trim().to_string();
    repo.git(&["switch", "-q", "main"]);
    repo.write("main.txt", "main\n");
    commit_all(&repo, "code only");
    let out = git_with_driver(&repo, &["cherry-pick", &alice_commit]);
    out.assert_code(0);
    session_on(&repo, "carol");
    let chain = repo.aahp(&["verify", "--chain"]);
    assert!(!chain.stdout.contains("outside the protocol"), "{chain}");
}

/// Edits `NEXT_ACTIONS.md` by hand, commits everything as `message` past the hook, runs
/// `who`'s session, and asserts that `verify --chain` names the file as changed outside
/// the protocol.
fn edited_then_named(repo: &TestRepo, message: &str, who: &str) {
    edit(repo, "NEXT_ACTIONS.md", "None.\n", "Edited by hand.\n");
    repo.aahp(&["manifest", "-q"]).assert_code(0);
    commit_all(repo, message);
    session_on(repo, who);
    let chain = repo.aahp(&["verify", "--chain"]);
    chain.assert_code(1);
    assert!(
        chain.stdout.contains("changed outside the protocol")
            && chain.stdout.contains("NEXT_ACTIONS.md"),
        "{message}: {chain}"
    );
}
