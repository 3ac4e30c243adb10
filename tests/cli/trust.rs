//! `git aahp trust list | decay | verify`.

use crate::support::{CmdOutput, TestRepo};

const TRUST: &str = ".ai/handoff/TRUST.md";
const MANIFEST: &str = ".ai/handoff/MANIFEST.json";

/// TRUST.md as real files look: a Level table without Status, bold and emoji statuses,
/// an escaped pipe, a table split by a blank line, a second table with other columns.
const LEDGER: &str = "\
# Project: Trust Register

## Confidence Levels

| Level | Meaning |
|-------|---------|
| **verified** | An agent ran it |

---

## Build

| Property | Status | Provenance | Last Verified | Agent | TTL | Expires | Notes |
|----------|--------|------------|---------------|-------|-----|---------|-------|
| Build passes | verified | test_verified | 2026-11-20 | a | 7d | 2026-11-27 | ok |
| Lint clean | **verified** | tool_verified | 2026-11-10 | a | 7d | 2026-12-31 | TTL wins |
| Parser `a \\| b` | verified ✅ | - | 2026-10-01 | a | 30d | - | old |

| Docs current | assumed | - | 2026-06-20 | a | 30d | 2026-07-20 | stable |

## Components

| Component | Status | Tests | Verified | Provenance |
|-----------|--------|-------|----------|------------|
| reader | Verified | 40 | 2026-11-01 | - |
";

fn repo_with_trust(trust: &str) -> TestRepo {
    let repo = TestRepo::new();
    repo.write(".ai/handoff/STATUS.md", "# Status\n\nAll good.\n");
    repo.write(TRUST, trust);
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "handoff"]);
    repo
}

#[test]
fn trust_list_shows_every_claim_with_its_computed_expiry() {
    let repo = repo_with_trust(LEDGER);
    insta::assert_snapshot!(repo.aahp(&["trust", "list"]), @r"
    exit: 0
    --- stdout ---
    .ai/handoff/TRUST.md: 5 claims, 2 expired verified
    LINE  STATUS     PROVENANCE      EXPIRES     PROPERTY
    15    verified   test_verified   2026-11-27  Build passes
    16    verified   tool_verified   2026-11-17! Lint clean
    17    verified   -               2026-10-31! Parser `a | b`
    19    assumed    -               2026-07-20! Docs current
    25    verified   -               -           reader
    hint: `git aahp trust decay` marks expired verified claims `assumed`
    --- stderr ---
    ");
    // `list` is the default action.
    assert_eq!(
        repo.aahp(&["trust"]).stdout,
        repo.aahp(&["trust", "list"]).stdout
    );
}

#[test]
fn trust_list_json() {
    let repo = repo_with_trust(
        "| Claim | Status | Verified | TTL | Expires |\n|---|---|---|---|---|\n| Build | verified | 2026-11-01 | 7d | 2026-11-08 ⚠️ EXPIRED |\n",
    );
    insta::assert_snapshot!(repo.aahp(&["--json", "trust", "list"]), @r#"
    exit: 0
    --- stdout ---
    {
      "schema_version": 1,
      "command": "trust",
      "action": "list",
      "path": ".ai/handoff/TRUST.md",
      "today": "2026-11-22",
      "claims": [
        {
          "property": "Build",
          "status": "verified",
          "provenance": null,
          "last_verified": "2026-11-01",
          "ttl_days": 7,
          "expires": "2026-11-08",
          "expired": true,
          "decays": true,
          "section": null,
          "line": 3
        }
      ],
      "written": []
    }
    --- stderr ---
    "#);
}

#[test]
fn trust_decay_rewrites_only_expired_verified_cells() {
    let repo = repo_with_trust(LEDGER);
    let out = repo.aahp(&["trust", "decay"]);
    insta::assert_snapshot!(out, @r"
    exit: 0
    --- stdout ---
    .ai/handoff/TRUST.md:16: verified → assumed: Lint clean
    .ai/handoff/TRUST.md:17: verified → assumed: Parser `a | b`
    wrote .ai/handoff/TRUST.md, .ai/handoff/MANIFEST.json
    --- stderr ---
    ");
    let expected = LEDGER
        .replace(
            "| Lint clean | **verified** |",
            "| Lint clean | **assumed** |",
        )
        .replace("| verified ✅ |", "| assumed |");
    assert_eq!(repo.read(TRUST), expected);
    repo.aahp(&["manifest", "--check"]).assert_code(0);
    // Idempotent.
    let again = repo.aahp(&["trust", "decay"]);
    again.assert_code(0);
    assert!(
        again.stdout.contains("no expired verified claims"),
        "{again}"
    );
    assert_eq!(repo.read(TRUST), expected);
}

#[test]
fn trust_decay_keeps_crlf_line_endings() {
    let crlf = LEDGER.replace('\n', "\r\n");
    let repo = repo_with_trust(&crlf);
    repo.aahp(&["trust", "decay"]).assert_code(0);
    let after = repo.read(TRUST);
    assert_eq!(after.matches("\r\n").count(), crlf.matches("\r\n").count());
    assert_eq!(after.matches('\n').count(), crlf.matches('\n').count());
    assert!(after.contains("| Lint clean | **assumed** | tool_verified |"));
    assert_eq!(
        after,
        crlf.replace(
            "| Lint clean | **verified** |",
            "| Lint clean | **assumed** |"
        )
        .replace("| verified ✅ |", "| assumed |")
    );
}

#[test]
fn trust_verify_records_provenance_date_ttl_and_evidence() {
    let repo = repo_with_trust(LEDGER);
    let out = repo.aahp(&[
        "trust",
        "verify",
        "docs CURRENT",
        "--ttl",
        "2w",
        "--agent",
        "codex",
        "--",
        "true",
    ]);
    insta::assert_snapshot!(out, @r"
    exit: 0
    --- stdout ---
    passed: `true` exit 0
    .ai/handoff/TRUST.md: docs CURRENT: assumed → verified, expires 2026-12-06
    wrote .ai/handoff/TRUST.md, .ai/handoff/MANIFEST.json
    --- stderr ---
    ");
    assert!(repo.read(TRUST).contains(
        "| Docs current | verified | tool_verified | 2026-11-22 | codex | 14d | 2026-12-06 | `true` exit 0 |\n"
    ));
    repo.aahp(&["manifest", "--check"]).assert_code(0);
}

#[test]
fn trust_verify_json_and_test_provenance() {
    let repo = repo_with_trust(LEDGER);
    repo.write("run-tests", "#!/bin/sh\nexit 0\n");
    let out = repo.aahp(&[
        "--json",
        "trust",
        "verify",
        "Build passes",
        "--",
        "sh",
        "run-tests",
        "test",
    ]);
    insta::assert_snapshot!(out, @r#"
    exit: 0
    --- stdout ---
    {
      "schema_version": 1,
      "command": "trust",
      "action": "verify",
      "path": ".ai/handoff/TRUST.md",
      "today": "2026-11-22",
      "verify": {
        "property": "Build passes",
        "command": [
          "sh",
          "run-tests",
          "test"
        ],
        "exit_code": 0,
        "passed": true,
        "previous_status": "verified",
        "status": "verified",
        "provenance": "test_verified",
        "expires": "2026-11-29",
        "evidence": "`sh run-tests test` exit 0",
        "added": false,
        "output_tail": []
      },
      "written": [
        ".ai/handoff/TRUST.md",
        ".ai/handoff/MANIFEST.json"
      ]
    }
    --- stderr ---
    "#);
}

#[test]
fn trust_verify_failure_never_sets_verified_and_exits_1() {
    let repo = repo_with_trust(LEDGER);
    let out = repo.aahp(&[
        "trust",
        "verify",
        "Build passes",
        "--",
        "sh",
        "-c",
        "echo 3 tests failed; exit 4",
    ]);
    insta::assert_snapshot!(out, @r"
    exit: 1
    --- stdout ---
    failed: `sh -c 'echo 3 tests failed; exit 4'` failed (exit 4) on 2026-11-22
      | 3 tests failed
    .ai/handoff/TRUST.md: Build passes: verified → untested, expires 2026-11-27
    wrote .ai/handoff/TRUST.md, .ai/handoff/MANIFEST.json
    --- stderr ---
    ");
    assert!(repo.read(TRUST).contains(
        "| Build passes | untested | test_verified | 2026-11-20 | a | 7d | 2026-11-27 | `sh -c 'echo 3 tests failed; exit 4'` failed (exit 4) on 2026-11-22 |"
    ));
    // An `assumed` claim stays assumed when its check fails.
    repo.aahp(&["trust", "verify", "Docs current", "--", "false"])
        .assert_code(1);
    assert!(repo.read(TRUST).contains("| Docs current | assumed |"));
}

#[test]
fn trust_verify_adds_a_row_for_a_new_property() {
    let repo = repo_with_trust(LEDGER);
    repo.aahp(&["trust", "verify", "Release | tagged", "--new", "--", "true"])
        .assert_code(0);
    let text = repo.read(TRUST);
    assert!(
        text.contains(
            "| Docs current | assumed | - | 2026-06-20 | a | 30d | 2026-07-20 | stable |\n| Release \\| tagged | verified | tool_verified | 2026-11-22 | - | 7d | 2026-11-29 | `true` exit 0 |\n"
        ),
        "{text}"
    );
    let list = repo.aahp(&["trust", "list"]);
    assert!(list.stdout.contains("Release | tagged"), "{list}");
}

#[test]
fn trust_verify_creates_trust_md_when_absent() {
    let repo = TestRepo::new();
    repo.write(".ai/handoff/STATUS.md", "# S\n");
    repo.aahp(&["trust", "verify", "Builds", "--new", "--", "true"])
        .assert_code(0);
    insta::assert_snapshot!(repo.read(TRUST), @r"
    # Trust Register

    ## Claims

    | Property | Status | Provenance | Last Verified | Agent | TTL | Expires | Notes |
    |---|---|---|---|---|---|---|---|
    | Builds | verified | tool_verified | 2026-11-22 | - | 7d | 2026-11-29 | `true` exit 0 |
    ");
}

fn files(repo: &TestRepo) -> Vec<String> {
    [TRUST, MANIFEST].iter().map(|f| repo.read(f)).collect()
}

fn assert_untouched(repo: &TestRepo, args: &[&str], code: i32) -> CmdOutput {
    let before = files(repo);
    let out = repo.aahp(args);
    assert_eq!(out.code, code, "{out}");
    assert_eq!(files(repo), before, "files must stay as they were");
    out
}

#[test]
fn trust_verify_needs_a_command_and_runs_it_without_a_shell() {
    let repo = repo_with_trust(LEDGER);
    let out = assert_untouched(&repo, &["trust", "verify", "Build passes"], 2);
    insta::assert_snapshot!(out, @r#"
    exit: 2
    --- stdout ---
    --- stderr ---
    error: a claim becomes verified only with an external anchor: give the command that proves it after `--`, e.g. `git aahp trust verify 'Build passes' -- cargo test`, or name a check in its row's Check column
    "#);
    // One argv element, not a shell line: there is no program called "true; false".
    let out = assert_untouched(
        &repo,
        &["trust", "verify", "Build passes", "--", "true; false"],
        2,
    );
    assert!(out.stderr.contains("could not run `true; false`"), "{out}");
    assert_untouched(
        &repo,
        &[
            "trust",
            "verify",
            "Build passes",
            "--ttl",
            "soon",
            "--",
            "true",
        ],
        2,
    );
}

#[test]
fn trust_refuses_unparseable_rows_with_file_and_line() {
    let bad = LEDGER.replace(
        "| Lint clean | **verified** |",
        "| Lint clean | a | b | **verified** |",
    );
    let repo = repo_with_trust(&bad);
    for args in [
        &["trust", "list"][..],
        &["trust", "decay"],
        &["trust", "verify", "Build passes", "--", "true"],
    ] {
        let out = assert_untouched(&repo, args, 2);
        assert_eq!(
            out.stderr,
            "error: .ai/handoff/TRUST.md:16: table row has 10 cells but its header (line 13) has 8; write a `|` inside a cell as `\\|`\n",
            "{args:?}"
        );
    }
    let bad = LEDGER.replace("2026-11-27 | ok", "27.11.2026 | ok");
    let repo = repo_with_trust(&bad);
    let out = assert_untouched(&repo, &["trust", "decay"], 2);
    insta::assert_snapshot!(out, @r"
    exit: 2
    --- stdout ---
    --- stderr ---
    error: .ai/handoff/TRUST.md:15: Expires: `27.11.2026` is not a date (YYYY-MM-DD)
    ");
}

#[test]
fn trust_verify_does_not_run_the_command_on_bad_input() {
    let bad = LEDGER.replace("| 7d | 2026-11-27 |", "| 1 month | 2026-11-27 |");
    let repo = repo_with_trust(&bad);
    let marker = repo.path().join("ran");
    let script = format!("touch {}", marker.display());
    assert_untouched(
        &repo,
        &["trust", "verify", "x", "--", "sh", "-c", &script],
        2,
    );
    assert!(
        !marker.exists(),
        "the command ran although TRUST.md is unreadable"
    );
}

#[test]
fn trust_verify_help() {
    insta::assert_snapshot!(TestRepo::new().aahp(&["trust", "verify", "-h"]), @r"
    exit: 0
    --- stdout ---
    Re-verify a claim by running a command; it becomes `verified` only if the command succeeds

    Usage: git aahp trust verify [OPTIONS] <PROPERTY> [-- <CMD>...]

    Arguments:
      <PROPERTY>  The property, as in the table's Property column (case and `**`/`` ` `` markup are
                  ignored). A property not yet in TRUST.md is refused unless `--new` is given
      [CMD]...    The command that proves the claim, after `--`. It runs without a shell, in the current
                  directory; its exit status is the evidence

    Options:
          --dir <PATH>               The handoff directory (default: the nearest enclosing one holding
                                     `.ai/handoff`, else git config `aahp.dir`, else `.ai/handoff`)
          --new                      Add the property as a new claim when TRUST.md has no row for it
                                     (without it, an unknown property — a typo — is refused, exit 1,
                                     before the command runs)
          --json                     Print one JSON document on stdout instead of text
          --ttl <TTL>                How long the verification holds: `7d`, `2w`, `48h` [default: the
                                     claim's TTL, else `7d`]
          --provenance <PROVENANCE>  The provenance to record [default: `test_verified` when the command
                                     runs tests, else `tool_verified`] [possible values: test_verified,
                                     tool_verified]
      -q, --quiet                    Print nothing on success
          --agent <AGENT>            The agent recorded in the Agent column
          --color <WHEN>             When to use colour [default: auto] [possible values: auto, always,
                                     never]
          --session-id <SESSION_ID>  The session id `begin` printed: `decay` and `verify` write only
                                     under this session's HANDOFF.lock (or one taken for the write when
                                     no session holds it) [env: AAHP_SESSION_ID=]
      -h, --help                     Print help (see more with '--help')
    --- stderr ---
    ");
}

#[test]
fn a_huge_ttl_or_date_is_exit_2_naming_the_line_in_every_command_that_reads_trust() {
    // A TTL past the limit, and a date whose expiry is past the calendar's end (which once
    // read as "never expires"): bad input, refused wherever TRUST.md is read — never a
    // panic, never a warning that lets the gate pass (issue #12, H8).
    for (from, to, shown) in [
        ("| 7d |", "| 99999999d |", "99999999d"),
        ("| 2026-11-01 |", "| 9999-12-30 |", "9999-12-30"),
    ] {
        let repo = crate::session_fixture::session_repo();
        let text = repo.read(TRUST).replacen(from, to, 1);
        assert!(text.contains(shown));
        repo.write(TRUST, text);
        repo.git(&["add", TRUST]);
        let before = crate::session_fixture::handoff_files(&repo);
        for args in [
            &["status"][..],
            &["--json", "status"],
            &["verify"],
            &["verify", "--json"],
            &["verify", "--level", "precommit"],
            &["hook", "pre-commit"],
            &["context"],
            &["context", "--level", "full"],
            &["trust"],
            &["trust", "decay"],
            &["commit", "-m", "x"],
        ] {
            let out = repo.aahp(args);
            assert_eq!(out.code, 2, "{shown}: {args:?}\n{out}");
            let said = format!("{}{}", out.stdout, out.stderr);
            assert!(
                said.contains(".ai/handoff/TRUST.md:5:") && said.contains(shown),
                "{shown}: {args:?}\n{out}"
            );
            assert!(!said.contains("panicked"), "{shown}: {args:?}\n{out}");
        }
        assert_eq!(crate::session_fixture::handoff_files(&repo), before);
        // commit, also inside a session, leaves no journal and keeps only the session's lock.
        repo.aahp(&["begin"]).assert_code(0);
        repo.aahp(&["commit", "-m", "x"]).assert_code(2);
        assert!(!crate::session_fixture::has_journal(&repo));
        repo.aahp(&["recover", "--force"]).assert_code(0);
        assert!(!repo.exists(".ai/handoff/HANDOFF.lock"));
    }
}

/// A TTL within the parser's limit whose expiry still falls past the calendar's end: the
/// row it would write is one every reader refuses (status, verify, the hook, commit), so
/// the verification refuses it and writes nothing (issue #12 item 4: what the tool writes,
/// it reads back).
#[test]
fn a_verification_never_writes_an_expiry_past_the_calendar() {
    let repo = repo_with_trust(LEDGER);
    for args in [
        &[
            "trust",
            "verify",
            "Long lived",
            "--new",
            "--ttl",
            "3000000d",
            "--",
            "true",
        ][..],
        &[
            "trust",
            "verify",
            "Build passes",
            "--ttl",
            "3650000d",
            "--",
            "true",
        ],
    ] {
        let out = assert_untouched(&repo, args, 2);
        assert!(out.stderr.contains("past the year 9999"), "{args:?}\n{out}");
    }
    // A long TTL the calendar holds is written and read back.
    repo.aahp(&[
        "trust",
        "verify",
        "Long lived",
        "--new",
        "--ttl",
        "2000000d",
        "--",
        "true",
    ])
    .assert_code(0);
    repo.aahp(&["status"]).assert_code(0);
    repo.aahp(&["trust"]).assert_code(0);
}

#[test]
fn trust_decay_writes_nothing_when_another_handoff_file_is_bad() {
    // The decay itself can be done, but the manifest it must refresh cannot: a file of
    // invalid UTF-8 elsewhere. Validated before anything is written, so TRUST.md stays.
    let repo = repo_with_trust(LEDGER);
    let mut status = repo.read(".ai/handoff/STATUS.md").into_bytes();
    status.extend_from_slice(b"\n\xff\xfe broken\n");
    repo.write(".ai/handoff/STATUS.md", &status);
    let out = assert_untouched(&repo, &["trust", "decay"], 2);
    assert!(
        out.stderr.contains(".ai/handoff/STATUS.md:") && out.stderr.contains("UTF-8"),
        "{out}"
    );
    let out = assert_untouched(&repo, &["trust", "verify", "Build passes", "--", "true"], 2);
    assert!(out.stderr.contains(".ai/handoff/STATUS.md:"), "{out}");
}

#[test]
fn trust_verify_refuses_a_misspelt_property_and_names_the_closest() {
    let repo = TestRepo::with_handoff();
    let out = repo.aahp(&["trust", "verify", "Projct builds", "--", "true"]);
    out.assert_code(1);
    assert!(
        out.stderr
            .contains("has no claim `Projct builds`; did you mean `Project builds`?"),
        "{out}"
    );
    assert!(out.stderr.contains("--new"), "{out}");
    assert!(!repo.read(TRUST).contains("Projct"), "nothing written");
    let added = repo.aahp(&["trust", "verify", "Docs build", "--new", "--", "true"]);
    added.assert_code(0);
    assert!(repo.read(TRUST).contains("| Docs build |"), "{added}");
}

/// Review s23 #7: the command line goes into TRUST.md with its newlines escaped (`\u{a}`),
/// after which a labelled secret (`password:` and the secret on the next line) is no
/// longer one the linter sees. The argv is admitted as given first: refused, exit 1,
/// nothing run or written. A row that holds the escaped form anyway (written by hand, or by
/// an older version) fails lint.
#[test]
fn trust_verify_refuses_a_secret_in_the_command_before_it_is_escaped() {
    let secret = "Xq8vN2pL7rT4kW9mZ3bY6cH1jF5dS0aG";
    let repo = repo_with_trust(LEDGER);
    let marker = repo.path().join("ran");
    let arg = format!("A=password:\n{secret}");
    let script = format!("touch {}", marker.display());
    let out = assert_untouched(
        &repo,
        &[
            "trust",
            "verify",
            "Build passes",
            "--",
            "env",
            &arg,
            "sh",
            "-c",
            &script,
        ],
        1,
    );
    assert!(
        out.stderr.contains("the command after -- was refused"),
        "{out}"
    );
    assert!(out.stderr.contains("SEC121"), "{out}");
    assert!(!out.stderr.contains(secret), "{out}");
    assert!(!marker.exists(), "the command ran although it was refused");

    // The escaped form, however it got there, is judged as what it stands for.
    let trust = repo.read(TRUST).replace(
        "| 2026-11-27 | ok |",
        &format!("| 2026-11-27 | `env 'A=password:\\u{{a}}{secret}' true` exit 0 |"),
    );
    repo.write(TRUST, trust);
    let out = repo.aahp(&["lint"]);
    out.assert_code(1);
    assert!(out.stdout.contains("ENC001"), "{out}");
    assert!(out.stdout.contains("SEC121"), "{out}");
    assert!(!out.stdout.contains(secret), "{out}");
}

/// Review s28 #10: a `verified` claim dated after today (2099) stayed current for decades:
/// it passed the hook and CI and was never listed as needing attention. A date still to
/// come vouches for nothing: `verify` says so, `context` lists the claim, `trust list`
/// marks it and `decay` turns it `assumed`. A day ahead (another machine's clock) is not.
#[test]
fn a_claim_verified_on_a_date_still_to_come_is_out_of_date() {
    let repo = repo_with_trust(
        "| Property | Status | Provenance | Last Verified | Agent | TTL | Expires | Notes |\n\
         |---|---|---|---|---|---|---|---|\n\
         | Project builds | verified | human_confirmed | 2099-01-01 | alice | 7d | - | checked |\n\
         | Tests pass | verified | test_verified | 2026-11-23 | bob | 7d | - | skewed clock |\n",
    );
    let verify = repo.aahp(&["verify"]);
    assert!(
        verify
            .stdout
            .contains("`Project builds` says it was verified on 2099-01-01, after today"),
        "{verify}"
    );
    assert!(!verify.stdout.contains("`Tests pass` says"), "{verify}");
    let context = repo.aahp(&["context", "--budget", "3000"]);
    assert!(
        context
            .stdout
            .contains("- Project builds: verified (verified on a date still to come"),
        "{context}"
    );
    assert!(!context.stdout.contains("- Tests pass:"), "{context}");
    let list = repo.aahp(&["--json", "trust", "list"]).json();
    assert_eq!(list["claims"][0]["decays"], true, "{list}");
    assert_eq!(list["claims"][1]["decays"], false, "{list}");
    let decay = repo.aahp(&["trust", "decay"]);
    decay.assert_code(0);
    assert!(
        repo.read(TRUST).contains("| Project builds | assumed |"),
        "{decay}"
    );
    assert!(
        repo.read(TRUST).contains("| Tests pass | verified |"),
        "{decay}"
    );
}
