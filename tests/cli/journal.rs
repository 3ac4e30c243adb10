//! LOG.md keeps every entry of the base (review s29 #5): an entry leaves it only through
//! `git aahp archive`, is redacted with `[redacted: REASON]`, or is added to; a session that
//! drops or rewrites an earlier entry is refused at every level.

use crate::support::{CmdOutput, TestRepo};

const LOG: &str = ".ai/handoff/LOG.md";
const ALICE: &str =
    "## [2026-11-22] alice: Added a.rs; the DB schema v2 migration is NOT applied in prod.";

/// A repository after `init` where alice's session is committed with `git aahp commit` (the
/// hook is run as `git aahp hook pre-commit`, with no shim installed).
fn repo_after_alice() -> TestRepo {
    let repo = TestRepo::with_handoff();
    session(
        &repo,
        "alice",
        "a",
        "Added a.rs; the DB schema v2 migration is NOT applied in prod.",
    )
    .assert_code(0);
    assert!(repo.read(LOG).contains(ALICE));
    repo
}

/// A session of `agent` adding `{file}.rs`, committed with `git aahp commit --log`.
fn session(repo: &TestRepo, agent: &str, file: &str, log: &str) -> CmdOutput {
    repo.write(&format!("src/{file}.rs"), "fn f() {}\n");
    repo.git(&["add", "-A", "src"]);
    let status = repo.read(".ai/handoff/STATUS.md");
    let open = "<!-- SECTION: summary -->\n";
    let from = status.find(open).unwrap() + open.len();
    let to = status.find("<!-- /SECTION: summary -->").unwrap();
    repo.write(
        ".ai/handoff/STATUS.md",
        format!("{}Added src/{file}.rs.\n{}", &status[..from], &status[to..]),
    );
    repo.aahp(&["commit", "-m", file, "--agent", agent, "--log", log])
}

/// LOG.md cut before its second entry: only the newest is left.
fn drop_older_entries(repo: &TestRepo) {
    let log = repo.read(LOG);
    let first = log.find("\n## [").unwrap();
    let second = log[first + 1..].find("\n## [").unwrap() + first + 1;
    repo.write(LOG, &log[..=second]);
}

/// The `journal` layer's messages of a failed `--json` verify.
fn journal_messages(out: &CmdOutput) -> Vec<String> {
    out.assert_code(1);
    let json = out.json();
    let layer = json["layers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["layer"] == "journal")
        .unwrap_or_else(|| panic!("no journal layer: {out}"));
    layer["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_session_that_drops_earlier_entries_is_refused_at_every_level() {
    let repo = repo_after_alice();
    let before = repo.read(LOG);
    // Bob's session rewrites LOG.md to his entry alone: `commit` refuses, changing nothing.
    repo.write("src/b.rs", "fn b() {}\n");
    let log = repo.read(LOG);
    let first = log.find("\n## [").unwrap();
    repo.write(LOG, &log[..=first]);
    let out = repo.aahp(&[
        "commit",
        "-m",
        "b",
        "--agent",
        "bob",
        "--log",
        "Added b.rs.",
    ]);
    out.assert_code(1);
    assert!(
        out.stdout.contains(&format!(
            "FAIL  journal: {LOG}: the entry \"{ALICE}\" of the base"
        )),
        "{out}"
    );
    assert!(out.stdout.contains("is no longer in LOG.md"), "{out}");
    assert!(
        out.stdout
            .contains("git-aahp: Handoff directory initialised"),
        "{out}"
    );

    // The same change staged by hand fails the hook; committed without it, CI fails it.
    repo.write(LOG, &before);
    session(&repo, "bob", "b", "Added b.rs.").assert_code(0);
    drop_older_entries(&repo);
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
    let messages = journal_messages(&repo.aahp(&["verify", "--level", "precommit", "--json"]));
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(
        messages[0].starts_with(&format!("the entry \"{ALICE}\" of the base")),
        "{messages:?}"
    );
    assert!(messages[0].contains("`[redacted: REASON]`"), "{messages:?}");
    repo.aahp(&["hook", "pre-commit"]).assert_code(1);
    repo.git(&["commit", "-q", "-m", "drop"]);
    let messages =
        journal_messages(&repo.aahp(&["verify", "--level", "ci", "--base", "HEAD~1", "--json"]));
    assert_eq!(messages.len(), 2, "{messages:?}");
}

#[test]
fn rewriting_an_earlier_entry_is_refused_redacting_or_adding_to_it_is_not() {
    let repo = repo_after_alice();
    let log = repo.read(LOG);
    let stage = |text: String| {
        repo.write(LOG, text);
        repo.aahp(&["manifest"]).assert_code(0);
        repo.git(&["add", "-A"]);
        repo.aahp(&["verify", "--level", "precommit", "--json"])
    };
    // Its provenance stamp is part of what it says.
    let restamped = log.replacen("agent `alice`", "agent `mallory`", 1);
    let messages = journal_messages(&stage(restamped));
    assert!(
        messages[0].contains(&format!("\"{ALICE}\" of the base")),
        "{messages:?}"
    );
    assert!(
        messages[0].contains("is rewritten, and not archived"),
        "{messages:?}"
    );
    // A secret taken out with a marker: the rest of the entry is as it was.
    let alice_at = log.find(ALICE).unwrap();
    let entry_end = log[alice_at + 1..].find("\n## [").unwrap() + alice_at + 1;
    let redacted = log.replacen("the DB schema v2", "the [redacted: internal name]", 1);
    stage(redacted).assert_code(0);
    // Text added at its end.
    let grown = format!(
        "{}\nLater: the migration was applied on 2026-11-23.\n{}",
        log[..entry_end].trim_end_matches("\n\n---\n"),
        &log[entry_end..]
    );
    let out = stage(grown);
    out.assert_code(0);
}

#[test]
fn rotation_by_commit_and_by_archive_keeps_passing() {
    let repo = repo_after_alice();
    // `aahp.keep` 1: each commit rotates the older entries into the archive.
    repo.git(&["config", "aahp.keep", "1"]);
    session(&repo, "bob", "b", "Added b.rs.").assert_code(0);
    let archive = repo.read(".ai/handoff/LOG-ARCHIVE.md");
    assert!(archive.contains(ALICE), "{archive}");
    repo.aahp(&["verify", "--level", "ci", "--base", "HEAD~1"])
        .assert_code(0);
    repo.git(&["config", "--unset", "aahp.keep"]);
    session(&repo, "carol", "c", "Added c.rs.").assert_code(0);
    repo.aahp(&["archive", "--keep", "1"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.aahp(&["hook", "pre-commit"]).assert_code(0);
    repo.git(&["commit", "-q", "-m", "rotate"]);
    repo.aahp(&["verify", "--level", "ci", "--base", "HEAD~2"])
        .assert_code(0);
    repo.aahp(&["archive", "--verify"]).assert_code(0);
}

/// An entry whose heading alone changed is named with its old and new heading, not called
/// removed; it still blocks (its digest covers the heading), at the hook and in CI. An entry
/// gone altogether is still said to be no longer in LOG.md.
#[test]
fn an_entry_whose_heading_alone_changed_is_named_with_both_headings() {
    let repo = repo_after_alice();
    let renamed = ALICE.replace("alice: Added a.rs", "alice: Added src/a.rs");
    repo.write(LOG, repo.read(LOG).replacen(ALICE, &renamed, 1));
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
    let messages = journal_messages(&repo.aahp(&["verify", "--level", "precommit", "--json"]));
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].starts_with(&format!(
            "the entry \"{ALICE}\" of the base ({}) has a new heading, \"{renamed}\", over the \
             same text",
            repo.git(&["rev-parse", "--short", "HEAD"]).trim()
        )),
        "{messages:?}"
    );
    assert!(!messages[0].contains("no longer in LOG.md"), "{messages:?}");
    let hook = repo.aahp(&["hook", "pre-commit"]);
    hook.assert_code(1);
    assert!(hook.stdout.contains("has a new heading"), "{hook}");
    repo.git(&["commit", "-q", "--no-verify", "-m", "rename"]);
    let ci =
        journal_messages(&repo.aahp(&["verify", "--level", "ci", "--base", "HEAD~1", "--json"]));
    assert!(
        ci[0].contains(&format!("has a new heading, \"{renamed}\"")),
        "{ci:?}"
    );
}
