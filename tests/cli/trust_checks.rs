//! Executable trust claims (TRUST.md's `Check` column) and the trust policy
//! (`trustTtl.enforce`, `graceDays`, `checks` in `aahp.config.json`), as the reference's 4.0
//! defines them (issue #15 item 6). Tests run on 2026-11-22 (`AAHP_NOW`).

use crate::support::TestRepo;

const TRUST: &str = ".ai/handoff/TRUST.md";
const CONFIG: &str = "aahp.config.json";

/// The reference's 4.0 layout: a `Check` column beside the property.
const LEDGER: &str = "\
# Trust Register

| Property | Status | Provenance | Last Verified | Agent | TTL | Expires | Check | Notes |
|----------|--------|------------|---------------|-------|-----|---------|-------|-------|
| LICENSE matches | verified | tool_verified | 2026-01-01 | a | 30d | 2026-01-31 | license-matches | |
| Manifest holds | verified | tool_verified | 2026-01-01 | a | 30d | 2026-01-31 | `manifest-integrity` | |
| Templates tracked | verified | tool_verified | 2026-11-20 | a | 30d | 2026-12-20 | templates-present | |
| Build passes | verified | test_verified | 2026-11-08 | a | 7d | 2026-11-15 | - | |
| Docs current | assumed | - | 2026-06-20 | a | 30d | 2026-07-20 | - | |
";

const MIT: &str = "MIT License\n\nCopyright (c) 2026 Test\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\nof this software ...\n";
const APACHE: &str = "                                 Apache License\n                           Version 2.0, January 2004\n";

fn policy(enforce: bool, grace: u32) -> String {
    format!(
        r#"{{
  "versionSites": [{{"file": "README.md"}}],
  "trustTtl": {{
    "enforce": {enforce},
    "graceDays": {grace},
    "checks": [
      {{"id": "templates-present", "run": ["test", "-f", "templates.txt"], "reason": "test exits 1 when the file is missing"}}
    ]
  }}
}}
"#
    )
}

fn repo(config: Option<&str>) -> TestRepo {
    let repo = TestRepo::new();
    repo.write("package.json", r#"{"name": "x", "license": "MIT"}"#);
    repo.write("LICENSE", MIT);
    repo.write("templates.txt", "t\n");
    if let Some(c) = config {
        repo.write(CONFIG, c);
    }
    repo.write(".ai/handoff/STATUS.md", "# Status\n\nAll good.\n");
    repo.write(TRUST, LEDGER);
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "handoff"]);
    repo
}

/// Commits whatever the test changed (so no other layer fails on drift), runs `args` and
/// returns the exit code and the trust layer.
fn trust_layer(repo: &TestRepo, args: &[&str]) -> (i32, serde_json::Value) {
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--allow-empty", "-m", "change"]);
    let out = repo.aahp(args);
    let json: serde_json::Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out}"));
    let layer = json["layers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["layer"] == "trust")
        .unwrap_or_else(|| panic!("no trust layer: {out}"))
        .clone();
    (out.code, layer)
}

fn messages(layer: &serde_json::Value) -> Vec<(bool, String)> {
    layer["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["blocking"] == true,
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn without_a_policy_checks_judge_their_rows_and_dated_rows_warn() {
    let repo = repo(None);
    let (code, layer) = trust_layer(&repo, &["--json", "verify"]);
    assert_eq!(code, 0, "{layer}");
    let found = messages(&layer);
    // Check-backed rows are judged by the check: their old dates are not expiries.
    assert!(
        !found
            .iter()
            .any(|(_, m)| m.contains("LICENSE matches") || m.contains("Manifest holds")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|(b, m)| !b && m.contains("`Build passes` expired on 2026-11-15, 7 days ago")),
        "{found:?}"
    );
    // No configuration declares `templates-present`: a name found nowhere is a failed check.
    assert!(
        found
            .iter()
            .any(|(b, m)| !b && m.contains(
                "`Templates tracked` names the check `templates-present`, which is neither built in"
            )),
        "{found:?}"
    );
    assert_eq!(
        layer["summary"].as_str().unwrap(),
        "2 warnings; 4 verified claims: 3 by check, 1 dated, 0 neither"
    );

    // The human output says the same, as a warning.
    let out = repo.aahp(&["verify"]);
    out.assert_code(0);
    assert!(
        out.stdout.contains("trust: 2 warnings; 4 verified claims"),
        "{out}"
    );
}

#[test]
fn enforce_blocks_past_the_grace_period_and_a_failing_check_but_never_before_a_commit() {
    // 7 days past expiry, 5 days of grace: blocking.
    let repo = repo(Some(&policy(true, 5)));
    let (code, layer) = trust_layer(&repo, &["--json", "verify"]);
    assert_eq!(code, 1, "{layer}");
    let found = messages(&layer);
    assert!(
        found.iter().any(|(b, m)| *b
            && m.contains("`Build passes` expired on 2026-11-15, 7 days ago")
            && m.contains("more than trustTtl.graceDays (5) and trustTtl.enforce is on")),
        "{found:?}"
    );
    // A configured check is run by `trust verify`, never by the gate; its row is dated.
    assert!(
        !found.iter().any(|(_, m)| m.contains("Templates tracked")),
        "{found:?}"
    );
    // Enforcement gates CI, not local work.
    repo.aahp(&["verify", "--level", "precommit"])
        .assert_code(0);

    // Within the grace period it warns.
    repo.write(CONFIG, policy(true, 14));
    let (code, layer) = trust_layer(&repo, &["--json", "verify"]);
    assert_eq!(code, 0, "{layer}");
    assert!(messages(&layer).iter().all(|(b, _)| !b));
    assert!(
        layer["summary"].as_str().unwrap().ends_with("(enforced)"),
        "{layer}"
    );

    // A failing check has no grace: LICENSE no longer says what package.json says.
    repo.write("LICENSE", APACHE);
    let (code, layer) = trust_layer(&repo, &["--json", "verify"]);
    assert_eq!(code, 1, "{layer}");
    assert!(
        messages(&layer)
            .iter()
            .any(|(b, m)| *b && m.contains(
                "`LICENSE matches` fails its check license-matches: LICENSE does not read as MIT"
            )),
        "{layer}"
    );

    // manifest-integrity follows the checksums of the same run.
    repo.write("LICENSE", MIT);
    let (code, layer) = trust_layer(&repo, &["--json", "verify"]);
    assert_eq!(code, 0, "{layer}");
    repo.write(
        ".ai/handoff/STATUS.md",
        "# Status\n\nEdited after the manifest.\n",
    );
    let (code, layer) = trust_layer(&repo, &["--json", "verify"]);
    assert_eq!(code, 1);
    assert!(
        messages(&layer)
            .iter()
            .any(|(b, m)| *b && m.contains("`Manifest holds` fails its check manifest-integrity")),
        "{layer}"
    );
}

#[test]
fn under_enforce_a_register_with_nothing_to_judge_fails() {
    let repo = repo(Some(&policy(true, 14)));
    repo.write(TRUST, LEDGER.replace("| verified |", "| assumed |"));
    repo.aahp(&["manifest"]).assert_code(0);
    let (code, layer) = trust_layer(&repo, &["--json", "verify"]);
    assert_eq!(code, 1, "{layer}");
    assert!(messages(&layer).iter().any(|(b, m)| *b && m.contains("not evaluated: TRUST.md holds no verified claim, and trustTtl.enforce is on in aahp.config.json")), "{layer}");
    // Without enforcement the same register is reported, not failed.
    repo.write(CONFIG, policy(false, 14));
    let (code, layer) = trust_layer(&repo, &["--json", "verify"]);
    assert_eq!(code, 0);
    assert_eq!(layer["status"], "skip");
    assert_eq!(
        layer["summary"],
        "not evaluated: TRUST.md holds no verified claim"
    );
}

#[test]
fn a_policy_that_cannot_be_read_is_exit_2_naming_the_file_and_line() {
    let repo = repo(Some(
        "{\n  \"trustTtl\": {\n    \"enforce\": true,\n    \"enforce\": false\n  }\n}\n",
    ));
    let out = repo.aahp(&["verify"]);
    out.assert_code(2);
    assert!(
        out.stderr.contains("aahp.config.json:4")
            && out.stderr.contains("duplicate field `enforce`"),
        "{out}"
    );
    repo.write(CONFIG, r#"{"trustTtl": {"graceDays": 400}}"#);
    let out = repo.aahp(&["verify"]);
    out.assert_code(2);
    assert!(out.stderr.contains("trustTtl.graceDays is 400"), "{out}");
    // A FIFO or a symbolic link in its place is refused, never waited on or followed.
    let path = repo.path().join(CONFIG);
    std::fs::remove_file(&path).unwrap();
    crate::support::mkfifo(&path);
    let out = repo.aahp_bounded(&["verify"], &[], std::time::Duration::from_secs(30));
    out.assert_code(2);
    assert!(
        out.stderr.contains("aahp.config.json") && out.stderr.contains("a FIFO"),
        "{out}"
    );
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    let out = repo.aahp_bounded(&["verify"], &[], std::time::Duration::from_secs(30));
    out.assert_code(2);
    assert!(
        out.stderr.contains("aahp.config.json") && out.stderr.contains("symbolic link"),
        "{out}"
    );
}

#[test]
fn trust_verify_runs_the_check_a_row_names_and_keeps_the_check_cell() {
    let repo = repo(Some(&policy(false, 14)));
    // A configured check: its argv runs at the project root, without a shell.
    let out = repo.aahp(&["trust", "verify", "Templates tracked"]);
    out.assert_code(0);
    assert!(
        out.stdout
            .contains("passed: check `templates-present` `test -f templates.txt` exit 0"),
        "{out}"
    );
    let row = |repo: &TestRepo, p: &str| {
        repo.read(TRUST)
            .lines()
            .find(|l| l.contains(p))
            .unwrap()
            .to_string()
    };
    // `test` is the file test, not a test suite: the provenance is a tool's.
    let r = row(&repo, "Templates tracked");
    assert!(
        r.contains("| verified | tool_verified | 2026-11-22 |")
            && r.contains("| templates-present |"),
        "{r}"
    );

    std::fs::remove_file(repo.path().join("templates.txt")).unwrap();
    let out = repo.aahp(&["trust", "verify", "Templates tracked"]);
    out.assert_code(1);
    assert!(
        row(&repo, "Templates tracked").contains("| untested |"),
        "{}",
        repo.read(TRUST)
    );

    // A built-in check runs in-process.
    let out = repo.aahp(&["trust", "verify", "LICENSE matches"]);
    out.assert_code(0);
    assert!(
        out.stdout
            .contains("check `license-matches`: package.json and LICENSE both say MIT"),
        "{out}"
    );
    assert!(row(&repo, "LICENSE matches").contains("| verified | tool_verified | 2026-11-22 |"));

    // A name found nowhere: nothing runs, nothing is written.
    let ledger = repo
        .read(TRUST)
        .replace("| license-matches |", "| licence-matches |");
    repo.write(TRUST, &ledger);
    let out = repo.aahp(&["trust", "verify", "LICENSE matches"]);
    out.assert_code(2);
    assert!(
        out.stderr.contains(".ai/handoff/TRUST.md:5")
            && out
                .stderr
                .contains("the check `licence-matches` is neither built in"),
        "{out}"
    );
    assert_eq!(repo.read(TRUST), ledger);

    // A judgment row still needs a command.
    let out = repo.aahp(&["trust", "verify", "Build passes"]);
    out.assert_code(2);
    assert!(
        out.stderr
            .contains("or name a check in its row's Check column"),
        "{out}"
    );
}

#[test]
fn decay_leaves_rows_backed_by_a_built_in_check_alone() {
    let repo = repo(None);
    let out = repo.aahp(&["trust", "decay"]);
    out.assert_code(0);
    let text = repo.read(TRUST);
    assert!(text.contains("| LICENSE matches | verified |"), "{text}");
    assert!(text.contains("| Manifest holds | verified |"), "{text}");
    assert!(text.contains("| Build passes | assumed |"), "{text}");
    // The column is read and kept: the table keeps its shape.
    assert!(
        text.contains("| 2026-01-31 | license-matches | |"),
        "{text}"
    );
}

/// A register an agent gamed: "Tests pass" backed by `manifest-integrity`, which proves
/// nothing about tests, and a verified row with neither a check nor a date.
const GAMED: &str = "\
# Trust Register

| Property | Status | Provenance | Last Verified | Agent | TTL | Expires | Check | Notes |
|----------|--------|------------|---------------|-------|-----|---------|-------|-------|
| Manifest holds | verified | tool_verified | 2026-01-01 | a | 30d | 2026-01-31 | manifest-integrity | |
| Tests pass | verified | test_verified | 2026-01-01 | a | 30d | 2026-01-31 | manifest-integrity | cargo test |
| Docs current | verified | human_confirmed | | a | | | - | read them |
";

#[test]
fn under_enforce_a_verified_row_with_neither_a_check_nor_a_date_fails() {
    let repo = repo(Some(&policy(true, 14)));
    let ledger: String = GAMED
        .split_inclusive('\n')
        .filter(|l| !l.contains("Tests pass"))
        .collect();
    repo.write(TRUST, &ledger);
    repo.aahp(&["manifest"]).assert_code(0);
    let (code, layer) = trust_layer(&repo, &["--json", "verify"]);
    assert_eq!(code, 1, "{layer}");
    let found = messages(&layer);
    assert!(
        found.iter().any(|(b, m)| *b
            && m.contains(
                "verified claim `Docs current` has neither a check that judges it nor a date"
            )
            && m.contains("trustTtl.enforce is on")),
        "{found:?}"
    );
    assert!(
        layer["summary"]
            .as_str()
            .unwrap()
            .ends_with("2 verified claims: 1 by check, 0 dated, 1 neither (enforced)"),
        "{layer}"
    );
    // Without enforcement the row is reported, not failed; before a commit it is not read.
    repo.write(CONFIG, policy(false, 14));
    let (code, layer) = trust_layer(&repo, &["--json", "verify"]);
    assert_eq!(code, 0, "{layer}");
    assert!(
        messages(&layer)
            .iter()
            .any(|(b, m)| !b && m.contains("`Docs current` has neither")),
        "{layer}"
    );
    repo.write(CONFIG, policy(true, 14));
    let (code, layer) = trust_layer(&repo, &["--json", "verify", "--level", "precommit"]);
    assert_eq!(code, 0, "{layer}");
    assert!(
        !messages(&layer)
            .iter()
            .any(|(_, m)| m.contains("Docs current")),
        "{layer}"
    );
    // A date makes it judgeable again.
    repo.write(
        TRUST,
        repo.read(TRUST).replace(
            "| a | | | - | read them |",
            "| a | 30d | 2026-12-01 | - | read them |",
        ),
    );
    repo.aahp(&["manifest"]).assert_code(0);
    let (code, layer) = trust_layer(&repo, &["--json", "verify"]);
    assert_eq!(code, 0, "{layer}");
}

#[test]
fn a_built_in_check_named_for_a_claim_it_does_not_establish_leaves_the_row_to_its_date() {
    let repo = repo(Some(&policy(true, 14)));
    repo.write(
        TRUST,
        GAMED.replace(
            "| a | | | - | read them |",
            "| a | 30d | 2026-12-01 | - | read them |",
        ),
    );
    repo.aahp(&["manifest"]).assert_code(0);
    let (code, layer) = trust_layer(&repo, &["--json", "verify"]);
    // `Tests pass` expired 295 days ago: manifest-integrity does not keep it alive.
    assert_eq!(code, 1, "{layer}");
    let found = messages(&layer);
    assert!(
        found.iter().any(|(b, m)| !b
            && m.contains("`Tests pass` names the built-in check manifest-integrity, which establishes only that the manifest's checksums hold; it does not judge this claim, so its date does")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|(b, m)| *b && m.contains("`Tests pass` expired on 2026-01-31, 295 days ago")),
        "{found:?}"
    );
    // The row the check does establish is still judged by it, its old date ignored.
    assert!(
        !found.iter().any(|(_, m)| m.contains("`Manifest holds`")),
        "{found:?}"
    );

    // `trust decay` decays it; `trust verify` refuses to let the check prove it.
    let before = repo.read(TRUST);
    let out = repo.aahp(&["trust", "verify", "Tests pass"]);
    out.assert_code(2);
    assert!(
        out.stderr.contains(".ai/handoff/TRUST.md:6")
            && out.stderr.contains("the built-in check `manifest-integrity` establishes only that the manifest's checksums hold, not `Tests pass`; nothing was run or written"),
        "{out}"
    );
    assert_eq!(repo.read(TRUST), before);
    repo.aahp(&["trust", "decay"]).assert_code(0);
    let text = repo.read(TRUST);
    assert!(text.contains("| Tests pass | assumed |"), "{text}");
    assert!(text.contains("| Manifest holds | verified |"), "{text}");

    // The reviewer's work-list names the mismatch.
    repo.write(TRUST, &before);
    let out = repo.aahp(&["review", "--base", "HEAD~1"]);
    assert!(
        out.stdout.contains("Tests pass")
            && out.stdout.contains("its Check names the built-in check manifest-integrity, which establishes only that the manifest's checksums hold"),
        "{out}"
    );
    // A row its check judges has no expiry to miss.
    assert!(
        out.stdout
            .lines()
            .any(|l| l.contains("Manifest holds") && !l.contains("expired")),
        "{out}"
    );
}

/// True when process `pid` no longer runs: gone, or a zombie nobody has reaped yet.
fn stopped(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| matches!(rest.trim_start().chars().next(), Some('Z' | 'X'))),
    }
}

#[test]
fn a_check_stopped_at_its_limit_takes_what_it_started_with_it() {
    // The check forks a sleeping grandchild and waits for it: at the limit both stop, not
    // only the shell the tool started. (The limit leaves a loaded machine time to write the
    // pid file first.)
    let config = r#"{"trustTtl": {"checks": [{"id": "templates-present",
        "run": ["sh", "-c", "sleep 1000 & echo $! > grandchild.pid; wait"],
        "reason": "r"}]}}"#;
    let repo = repo(Some(config));
    let before = repo.read(TRUST);
    let out = repo.aahp_bounded(
        &["trust", "verify", "Templates tracked"],
        &[("AAHP_CHECK_LIMIT_MS", "3000")],
        std::time::Duration::from_secs(30),
    );
    out.assert_code(1);
    assert!(out.stdout.contains("failed (stopped after 3 s)"), "{out}");
    let pid = repo.read("grandchild.pid").trim().to_string();
    assert!(!pid.is_empty(), "{out}");
    // SIGKILL is delivered before the tool returns; allow the kernel a moment to finish it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !stopped(&pid) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        stopped(&pid),
        "the check's grandchild {pid} outlived its limit"
    );
    assert_ne!(repo.read(TRUST), before, "a failed check is recorded");
}

#[test]
fn a_hint_naming_a_claim_pastes_into_a_shell_without_running_it() {
    // A claim is text an agent wrote: shown in a command to paste, it is one single-quoted
    // word, so `$(…)` and backticks in it stay text.
    let repo = TestRepo::new();
    repo.aahp(&["init", "--project", "demo"]).assert_code(0);
    let trust = repo.read(".ai/handoff/TRUST.md").replace(
        "| Project builds | untested | - | - | - | 7d | - | not checked yet |",
        "| Cache is warm $(touch pwned) `id` | verified | tool_verified | - | - | - | - | x |",
    );
    repo.write(".ai/handoff/TRUST.md", trust);
    let out = repo.aahp(&["verify"]);
    assert!(
        out.stdout
            .contains("`git aahp trust verify 'Cache is warm $(touch pwned) `id`' -- CMD`"),
        "{out}"
    );
}
