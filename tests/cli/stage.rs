//! Staging in process (`Repo::stage`, issue #14) against `git add -f` and `git rm --cached`
//! on the same repository: the same entries, modes, ids and cached stat data, a cache tree
//! git can trust, and the tree `git write-tree` prints.

use std::os::unix::fs::PermissionsExt;

use git_aahp::git::Repo;

use crate::support::TestRepo;

/// A repository with nested directories, an executable, a handoff directory and one commit
/// (`git commit` leaves a complete cache tree).
fn staged_repo() -> TestRepo {
    let repo = TestRepo::new();
    for (path, body) in [
        ("a/b/c.txt", "c\n"),
        ("a/e.txt", "e\n"),
        ("a.txt", "sorts between a and a/\n"),
        ("keep/deep/x.txt", "x\n"),
        (".ai/handoff/STATUS.md", "# Status\n"),
        (".ai/handoff/LOG.md", "# Log\n"),
        (".ai/handoff/OLD.md", "removed by the session\n"),
        (".ai/handoff/SAME.md", "unchanged\n"),
        (
            ".ai/handoff/.gitattributes",
            "*.md merge=aahp\n*.json merge=aahp\n",
        ),
    ] {
        repo.write(path, body);
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "tree"]);
    repo
}

fn chmod_x(repo: &TestRepo, rel: &str) {
    let path = repo.path().join(rel);
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_mode(0o755);
    std::fs::set_permissions(&path, perms).unwrap();
}

/// What git says of an index: every entry with its cached stat data, and its tree.
fn describe(repo: &TestRepo, index: &std::path::Path) -> (String, String) {
    let env = [("GIT_INDEX_FILE", index.as_os_str())];
    let entries = repo.git_env(&["ls-files", "--stage", "--debug"], &env);
    assert_eq!(entries.code, 0, "{entries}");
    let tree = repo.git_env(&["write-tree"], &env);
    assert_eq!(tree.code, 0, "{tree}");
    (entries.stdout, tree.stdout.trim().to_string())
}

/// Stages `add` and `remove` in process on the index and with `git add -f` / `git rm
/// --cached` on a copy taken before (mtime kept, so both see the same racy entries), and
/// asserts that git sees the same entries, stat data and tree in both; returns the tree.
#[track_caller]
fn assert_stages_as_git(repo: &TestRepo, add: &[&str], remove: &[&str], in_process: bool) {
    let git_dir = repo.path().join(".git");
    let theirs = git_dir.join("index.git-add");
    let copied = std::process::Command::new("cp")
        .arg("-p")
        .arg(git_dir.join("index"))
        .arg(&theirs)
        .status()
        .unwrap();
    assert!(copied.success());
    let add: Vec<String> = add.iter().map(|s| (*s).to_string()).collect();
    let remove: Vec<String> = remove.iter().map(|s| (*s).to_string()).collect();

    let r = Repo::discover(&repo.path()).unwrap();
    assert_eq!(r.stages_in_process(&add).unwrap(), in_process);
    let index = r.stage(&add, &remove).unwrap();
    let planned = r.write_index_tree(&index).unwrap().to_string();

    let env = [("GIT_INDEX_FILE", theirs.as_os_str())];
    let mut args = vec!["add", "-f", "--"];
    args.extend(add.iter().map(String::as_str));
    let out = repo.git_env(&args, &env);
    assert_eq!(out.code, 0, "{out}");
    if !remove.is_empty() {
        let mut args = vec!["rm", "-q", "--cached", "--ignore-unmatch", "--"];
        args.extend(remove.iter().map(String::as_str));
        let out = repo.git_env(&args, &env);
        assert_eq!(out.code, 0, "{out}");
    }
    let ours = describe(repo, &git_dir.join("index"));
    let git = describe(repo, &theirs);
    assert_eq!(ours.0, git.0, "entries and stat data");
    assert_eq!(ours.1, git.1, "git write-tree");
    assert_eq!(planned, git.1, "the planned tree");
    // The index is one git reads without complaint, and says the same staged changes.
    let status = |index: &std::path::Path| {
        let out = repo.git_env(
            &["status", "--porcelain=v1", "-uno"],
            &[("GIT_INDEX_FILE", index.as_os_str())],
        );
        assert_eq!(out.code, 0, "{out}");
        out.stdout
    };
    assert_eq!(status(&git_dir.join("index")), status(&theirs));
    std::fs::remove_file(theirs).unwrap();
}

#[test]
fn staging_in_process_writes_what_git_add_writes() {
    let repo = staged_repo();
    // What the user staged stays staged: a changed file and a new directory.
    repo.write("a/e.txt", "e, changed\n");
    repo.write("x/y/z.txt", "new\n");
    repo.git(&["add", "a/e.txt", "x/y/z.txt"]);
    // The session's handoff files: changed, new (one executable), unchanged, removed.
    repo.write(".ai/handoff/STATUS.md", "# Status\n\nupdated\n");
    repo.write(".ai/handoff/NEW.md", "new\n");
    repo.write(".ai/handoff/run.sh", "echo\n");
    chmod_x(&repo, ".ai/handoff/run.sh");
    std::fs::remove_file(repo.path().join(".ai/handoff/OLD.md")).unwrap();
    assert_stages_as_git(
        &repo,
        &[
            ".ai/handoff/.gitattributes",
            ".ai/handoff/LOG.md",
            ".ai/handoff/NEW.md",
            ".ai/handoff/SAME.md",
            ".ai/handoff/STATUS.md",
            ".ai/handoff/run.sh",
        ],
        &[".ai/handoff/OLD.md", ".ai/handoff/HANDOFF.lock"],
        true,
    );
}

#[test]
fn staging_in_process_checks_racy_entries_as_git_does() {
    let repo = staged_repo();
    repo.write(".ai/handoff/STATUS.md", "# Status\n\nracy\n");
    // An index older than every file: each entry is racily clean, so neither writer may
    // keep one unread, and one whose content still matches is not smudged.
    let touched = std::process::Command::new("touch")
        .args(["-d", "2001-01-01", ".git/index"])
        .current_dir(repo.path())
        .status()
        .unwrap();
    assert!(touched.success());
    assert_stages_as_git(
        &repo,
        &[".ai/handoff/STATUS.md", ".ai/handoff/SAME.md"],
        &[],
        true,
    );
}

#[test]
fn a_mode_change_and_an_index_without_cache_tree_stage_as_git_does() {
    let repo = staged_repo();
    chmod_x(&repo, ".ai/handoff/SAME.md");
    repo.write("a/b/c.txt", "changed, cache tree dropped below\n");
    // `git add` invalidates the cache tree along a/b; `update-index` of a new file drops
    // nothing more. Then every entry of the handoff directory is staged again.
    repo.git(&["add", "a/b/c.txt"]);
    assert_stages_as_git(
        &repo,
        &[".ai/handoff/SAME.md", ".ai/handoff/LOG.md"],
        &[],
        true,
    );
}

#[test]
fn converting_attributes_leave_staging_to_git() {
    let repo = staged_repo();
    repo.write(".gitattributes", "*.md text eol=crlf\n");
    repo.write(".ai/handoff/STATUS.md", "# Status\n\nconverted\n");
    assert_stages_as_git(&repo, &[".ai/handoff/STATUS.md"], &[], false);
}

#[test]
fn an_intent_to_add_entry_and_a_version_4_index_leave_staging_to_git() {
    let repo = staged_repo();
    repo.write(".ai/handoff/NEW.md", "intent\n");
    repo.git(&["add", "-N", ".ai/handoff/NEW.md"]);
    assert_stages_as_git(&repo, &[".ai/handoff/NEW.md"], &[], false);

    let repo = staged_repo();
    repo.git(&["update-index", "--index-version", "4"]);
    repo.write(".ai/handoff/STATUS.md", "# Status\n\nv4\n");
    assert_stages_as_git(&repo, &[".ai/handoff/STATUS.md"], &[], false);
}

#[test]
fn the_planned_tree_is_what_git_write_tree_prints() {
    let repo = staged_repo();
    // A symbolic link, a submodule entry and a file that becomes a directory.
    std::os::unix::fs::symlink("a.txt", repo.path().join("link")).unwrap();
    repo.git(&["add", "link"]);
    let head = repo.git(&["rev-parse", "HEAD"]).trim().to_string();
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{head},vendor/sub"),
    ]);
    repo.git(&["rm", "-q", "--cached", "a.txt"]);
    repo.write("a.txt.d/inner", "x\n");
    repo.git(&["add", "a.txt.d/inner"]);
    let r = Repo::discover(&repo.path()).unwrap();
    let planned = r.write_index_tree(&r.index().unwrap()).unwrap().to_string();
    assert_eq!(planned, repo.git(&["write-tree"]).trim());
    // Without any cache tree, every directory is built.
    repo.git(&["read-tree", "--empty"]);
    repo.git(&["add", "-A"]);
    let r = Repo::discover(&repo.path()).unwrap();
    let planned = r.write_index_tree(&r.index().unwrap()).unwrap().to_string();
    assert_eq!(planned, repo.git(&["write-tree"]).trim());
}
