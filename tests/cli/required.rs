//! The handoff files the protocol needs (review s29 #3): removing `STATUS.md` (or
//! `NEXT_ACTIONS.md`, `LOG.md`, `TRUST.md`) is no handoff update, and a directory where a
//! handoff file belongs is bad input.

use crate::support::TestRepo;
use crate::verify::handoff_repo;

fn layer<'a>(json: &'a serde_json::Value, name: &str) -> Option<&'a serde_json::Value> {
    json["layers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["layer"] == name)
}

/// The one blocking message of the `required` layer of a failed `--json` verify.
fn required_message(out: &crate::support::CmdOutput) -> String {
    out.assert_code(1);
    let json = out.json();
    let required = layer(&json, "required").unwrap_or_else(|| panic!("no required layer: {out}"));
    assert_eq!(required["status"], "fail", "{out}");
    assert_eq!(required["findings"].as_array().unwrap().len(), 1, "{out}");
    required["findings"][0]["message"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Code staged with STATUS.md removed and the manifest regenerated: the reviewer's
/// reproduction.
fn stage_code_without_status(repo: &TestRepo) {
    repo.git(&["rm", "-q", ".ai/handoff/STATUS.md"]);
    let manifest = repo.aahp(&["manifest"]);
    manifest.assert_code(0);
    assert!(
        manifest.stdout.contains("  removed: STATUS.md"),
        "{manifest}"
    );
    assert!(
        !manifest.stdout.contains("updated: STATUS.md"),
        "{manifest}"
    );
    assert!(
        manifest.stdout.contains("warning: STATUS.md is missing"),
        "{manifest}"
    );
    repo.write("src/x.rs", "fn x() {}\n");
    repo.git(&["add", "-A"]);
}

#[test]
fn removing_status_is_no_handoff_update_at_any_level() {
    let repo = handoff_repo();
    stage_code_without_status(&repo);
    let msg = required_message(&repo.aahp(&["verify", "--level", "precommit", "--json"]));
    assert!(msg.contains("STATUS.md is removed by this change"), "{msg}");
    assert!(
        msg.contains("`git restore --staged --worktree -- .ai/handoff/STATUS.md`"),
        "{msg}"
    );
    let hook = repo.aahp(&["hook", "pre-commit"]);
    hook.assert_code(1);
    assert!(hook.stdout.contains("FAIL  required: 1 problem"), "{hook}");
    // Drift no longer counts the removal as the update it asks for.
    assert!(
        hook.stdout
            .contains(".ai/handoff/STATUS.md was not updated (changed: src/x.rs)"),
        "{hook}"
    );

    // Committed past the hook: CI refuses it, and says how to restore it from the base.
    repo.git(&["commit", "-q", "--no-verify", "-m", "code, no status"]);
    let base = repo.git(&["rev-parse", "--short", "HEAD~1"]);
    let msg =
        required_message(&repo.aahp(&["verify", "--level", "ci", "--base", "HEAD~1", "--json"]));
    assert!(
        msg.contains(&format!(
            "`git restore --source={} --staged --worktree -- .ai/handoff/STATUS.md`",
            base.trim()
        )),
        "{msg}"
    );
    // The working tree, which no longer differs from HEAD, still has no STATUS.md.
    let msg = required_message(&repo.aahp(&["verify", "--json"]));
    assert!(
        msg.contains("STATUS.md is missing: the next agent has no current state"),
        "{msg}"
    );
    assert!(msg.contains("`git aahp init`"), "{msg}");

    // The way out the message names works: init writes it back, and the gate passes again.
    repo.aahp(&["init"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.aahp(&["verify", "--level", "precommit"])
        .assert_code(0);
}

#[test]
fn removing_the_queue_the_journal_or_the_ledger_is_refused() {
    let repo = TestRepo::with_handoff();
    for name in ["NEXT_ACTIONS.md", "LOG.md", "TRUST.md"] {
        let path = format!(".ai/handoff/{name}");
        repo.git(&["rm", "-q", &path]);
        repo.aahp(&["manifest"]).assert_code(0);
        repo.git(&["add", "-A"]);
        let msg = required_message(&repo.aahp(&["verify", "--level", "precommit", "--json"]));
        assert!(
            msg.contains(&format!("{name} is removed by this change")),
            "{msg}"
        );
        assert!(
            msg.contains(&format!("`git restore --staged --worktree -- {path}`")),
            "{msg}"
        );
        repo.git(&["restore", "--staged", "--worktree", "--", &path]);
        repo.aahp(&["manifest"]).assert_code(0);
        repo.git(&["add", "-A"]);
        let out = repo.aahp(&["verify", "--level", "precommit", "--json"]);
        out.assert_code(0);
        assert!(layer(&out.json(), "required").is_none(), "{out}");
    }
}

#[test]
fn a_directory_in_place_of_a_handoff_file_is_bad_input() {
    let repo = handoff_repo();
    std::fs::remove_file(repo.path().join(".ai/handoff/STATUS.md")).unwrap();
    std::fs::create_dir(repo.path().join(".ai/handoff/STATUS.md")).unwrap();
    for args in [&["manifest"][..], &["lint"], &["verify"]] {
        let out = repo.aahp(args);
        out.assert_code(2);
        assert!(
            out.stderr
                .contains(".ai/handoff/STATUS.md: not a regular file but a directory"),
            "{args:?}: {out}"
        );
    }
    // Git tracks no empty directory: staged, the file is removed, which blocks.
    repo.git(&["add", "-A"]);
    repo.aahp(&["verify", "--level", "precommit"])
        .assert_code(1);
    // A file inside it reaches the index as a tree at the handoff file's name.
    repo.write(".ai/handoff/STATUS.md/notes.md", "notes\n");
    repo.git(&["add", "-A"]);
    let out = repo.aahp(&["verify", "--level", "precommit"]);
    out.assert_code(2);
    assert!(
        out.stderr
            .contains(".ai/handoff/STATUS.md: not a regular file but a directory"),
        "{out}"
    );
}
