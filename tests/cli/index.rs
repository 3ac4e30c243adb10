//! The pre-commit index read (`Repo::index_for_precommit`) against the full decode: the
//! staged changes and the staged handoff files must be exactly the same, whatever was staged.

use git_aahp::git::Repo;
use git_aahp::handoff::HandoffDir;

use crate::support::TestRepo;

/// A repository with nested directories, a handoff directory and one commit.
fn tree_repo() -> TestRepo {
    let repo = TestRepo::new();
    for (path, body) in [
        ("a/b/c.txt", "c\n"),
        ("a/b/d.txt", "d\n"),
        ("a/e.txt", "e\n"),
        ("d/e.txt", "gone soon\n"),
        ("f", "a file that becomes a directory\n"),
        ("g/h.txt", "a directory that becomes a file\n"),
        ("keep/deep/x.txt", "x\n"),
        ("run.sh", "echo\n"),
        (".ai/handoff/STATUS.md", "# Status\n"),
        (".ai/handoff/LOG.md", "# Log\n"),
    ] {
        repo.write(path, body);
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "tree"]);
    repo
}

/// How the pre-commit read is expected to go.
#[derive(Clone, Copy, PartialEq)]
enum Read {
    /// Partial, and fewer entries than the full index.
    Fewer,
    /// Partial reader used, every entry kept (no cache tree to skip by).
    All,
    /// Left to gix.
    Full,
}

/// Asserts that the pre-commit read gives the full read's staged changes and handoff files.
#[track_caller]
fn assert_same_as_full(repo: &TestRepo, expect: Read) {
    let r = Repo::discover(&repo.path()).unwrap();
    let full = r.index().unwrap();
    let partial = r.index_for_precommit(&[".ai/handoff"]).unwrap();
    assert_eq!(partial.is_partial(), expect != Read::Full);
    let want: Vec<(String, String)> = r
        .staged_changes(&full)
        .unwrap()
        .into_iter()
        .map(|c| (c.path, format!("{:?}", c.kind)))
        .collect();
    let got: Vec<(String, String)> = r
        .staged_changes_in(partial.state(), partial.tree())
        .unwrap()
        .into_iter()
        .map(|c| (c.path, format!("{:?}", c.kind)))
        .collect();
    assert_eq!(got, want);
    let dir = HandoffDir {
        rel: ".ai/handoff".into(),
        abs: repo.path().join(".ai/handoff"),
        root: repo.path(),
    };
    assert_eq!(
        dir.snapshot_index(&r, partial.state()).unwrap(),
        dir.snapshot_index(&r, &full).unwrap()
    );
    let (kept, all) = (partial.state().entries().len(), full.entries().len());
    match expect {
        Read::Fewer => assert!(kept < all, "the partial read kept every entry"),
        Read::All | Read::Full => assert_eq!(kept, all),
    }
}

#[test]
fn nothing_staged_reads_only_the_handoff_directory() {
    let repo = tree_repo();
    assert_same_as_full(&repo, Read::Fewer);
    let r = Repo::discover(&repo.path()).unwrap();
    let partial = r.index_for_precommit(&[".ai/handoff"]).unwrap();
    assert_eq!(
        partial.state().entries().len(),
        2,
        "only STATUS.md and LOG.md"
    );
}

#[test]
fn every_kind_of_staged_change_matches_the_full_index() {
    let repo = tree_repo();
    repo.write("a/b/c.txt", "changed\n");
    repo.write("x/y/z.txt", "new in a new directory\n");
    repo.git(&["rm", "-q", "d/e.txt"]);
    repo.git(&["rm", "-q", "f"]);
    repo.write("f/inner.txt", "now a directory\n");
    repo.git(&["rm", "-q", "-r", "g"]);
    repo.write("g", "now a file\n");
    repo.git(&["update-index", "--chmod=+x", "run.sh"]);
    repo.write(".ai/handoff/STATUS.md", "# Status\n\nupdated\n");
    // Named paths: `add -A` re-adds racily clean files written in the same second, which
    // invalidates their directories' cache trees (correct, but nothing left to skip).
    repo.git(&[
        "add",
        "a/b/c.txt",
        "x/y/z.txt",
        "f/inner.txt",
        "g",
        ".ai/handoff/STATUS.md",
    ]);
    assert_same_as_full(&repo, Read::Fewer);
    let r = Repo::discover(&repo.path()).unwrap();
    let partial = r.index_for_precommit(&[".ai/handoff"]).unwrap();
    let paths: Vec<String> = r
        .staged_changes_in(partial.state(), partial.tree())
        .unwrap()
        .into_iter()
        .map(|c| c.path)
        .collect();
    assert!(paths.contains(&"a/b/c.txt".to_string()), "{paths:?}");
    assert!(paths.contains(&"run.sh".to_string()), "{paths:?}");
    assert!(!paths.iter().any(|p| p.starts_with("keep/")), "{paths:?}");
}

#[test]
fn index_versions_3_and_4_and_intent_to_add_match_the_full_index() {
    for version in ["3", "4"] {
        let repo = tree_repo();
        repo.git(&["update-index", "--index-version", version]);
        repo.write("a/b/new.txt", "intent to add\n");
        repo.git(&["add", "-N", "a/b/new.txt"]);
        repo.write("keep/deep/x.txt", "changed\n");
        repo.git(&["add", "keep/deep/x.txt"]);
        assert_same_as_full(&repo, Read::Fewer);
    }
}

#[test]
fn a_path_longer_than_the_name_length_field_is_read() {
    let repo = tree_repo();
    let blob = repo
        .git(&["hash-object", "-w", "--stdin"])
        .trim()
        .to_string();
    let long = format!("{}/leaf.txt", vec!["d".repeat(200); 21].join("/"));
    assert!(long.len() > 0xfff);
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("100644,{blob},{long}"),
    ]);
    // gix does not decode such an index at all; the pre-commit read does.
    let r = Repo::discover(&repo.path()).unwrap();
    let partial = r.index_for_precommit(&[".ai/handoff"]).unwrap();
    assert!(partial.is_partial());
    let changes = r
        .staged_changes_in(partial.state(), partial.tree())
        .unwrap();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].path, long);
}

#[test]
fn a_merge_conflict_matches_the_full_index() {
    let repo = tree_repo();
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write("a/e.txt", "theirs\n");
    repo.git(&["commit", "-q", "-am", "theirs"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("a/e.txt", "ours\n");
    repo.git(&["commit", "-q", "-am", "ours"]);
    let merge = repo.git_output(&["merge", "-q", "other"]);
    assert_ne!(merge.code, 0, "the merge conflicts");
    assert_same_as_full(&repo, Read::Fewer);
}

#[test]
fn an_unborn_branch_and_a_split_index_fall_back_or_match() {
    let repo = TestRepo::unborn();
    repo.write("src/a.rs", "fn a() {}\n");
    repo.write(".ai/handoff/STATUS.md", "# Status\n");
    repo.git(&["add", "-A"]);
    // No HEAD and no cache tree yet: every entry is kept.
    assert_same_as_full(&repo, Read::All);

    let repo = tree_repo();
    repo.git(&["update-index", "--split-index"]);
    repo.write("a/e.txt", "split\n");
    repo.git(&["add", "a/e.txt"]);
    // A split index is left to gix.
    assert_same_as_full(&repo, Read::Full);
}

/// Review atk41 #7: git pointed at another object directory (`GIT_OBJECT_DIRECTORY`, as in a
/// `pre-receive` hook's quarantine, with the repository's own as an alternate) writes the
/// staged blobs there; the gate, which reads the repository's own, failed on "a partial
/// clone". It says which variable keeps it from judging (exit 2), and judges as before
/// when the variable names the repository's own directory.
#[test]
fn the_gate_names_an_object_directory_it_cannot_read() {
    let repo = TestRepo::with_handoff();
    let elsewhere = tempfile::tempdir().unwrap();
    let own = repo.path().join(".git/objects");
    let env = [
        ("GIT_OBJECT_DIRECTORY", elsewhere.path().as_os_str()),
        ("GIT_ALTERNATE_OBJECT_DIRECTORIES", own.as_os_str()),
    ];
    let status = repo.read(".ai/handoff/STATUS.md") + "\nMore work.\n";
    repo.write(".ai/handoff/STATUS.md", status);
    let added = repo.git_env(&["add", "-A"], &env);
    assert_eq!(added.code, 0, "{added}");
    let dir = elsewhere.path().to_str().unwrap();
    let out = repo.aahp_env(
        ".",
        &["hook", "pre-commit"],
        &[
            ("GIT_OBJECT_DIRECTORY", dir),
            ("GIT_ALTERNATE_OBJECT_DIRECTORIES", own.to_str().unwrap()),
        ],
    );
    out.assert_code(2);
    assert!(out.stderr.contains("GIT_OBJECT_DIRECTORY is set"), "{out}");
    assert!(!out.stderr.contains("partial clone"), "{out}");
    let own_dir = repo.aahp_env(
        ".",
        &["lint"],
        &[("GIT_OBJECT_DIRECTORY", own.to_str().unwrap())],
    );
    own_dir.assert_code(0);
}
