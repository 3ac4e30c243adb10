//! `git aahp doctor` (issue #16): one read-only check of the set-up, which fails where the
//! gate does not run or can skip itself.

use crate::support::{CmdOutput, TestRepo};

/// A workflow that runs the gate the way README's CI section says.
const GOOD_WORKFLOW: &str = r"name: handoff
on:
  pull_request:
  push:
    branches: [main]
jobs:
  handoff:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683
        with:
          fetch-depth: 0
      - run: cargo install --locked --git https://github.com/owner/git-aahp git-aahp
      - run: git aahp verify --level ci
";

/// The checks of one area with one verdict, as (verdict, message) pairs.
fn checks(out: &CmdOutput, area: &str) -> Vec<(String, String)> {
    out.json()["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["area"] == area)
        .map(|c| {
            (
                c["verdict"].as_str().unwrap().to_string(),
                c["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// True when a check of `area` with `verdict` says `needle`.
fn says(out: &CmdOutput, area: &str, verdict: &str, needle: &str) -> bool {
    checks(out, area)
        .iter()
        .any(|(v, m)| v == verdict && m.contains(needle))
}

fn failing(out: &CmdOutput, area: &str, needle: &str) -> bool {
    says(out, area, "fail", needle)
}

/// Writes `workflow` at `path` and asserts that `doctor` fails a `ci` check saying `needle`.
#[track_caller]
fn fails_with(repo: &TestRepo, path: &str, workflow: &str, needle: &str) {
    repo.write(path, workflow);
    let out = repo.aahp(&["doctor", "--json"]);
    out.assert_code(1);
    assert!(failing(&out, "ci", needle), "{workflow}\n{out}");
}

#[test]
fn a_bare_repository_fails_on_missing_hooks_and_ci_and_doctor_writes_nothing() {
    let repo = TestRepo::with_handoff();
    let before = repo.git(&["status", "--porcelain", "--ignored"]);
    let out = repo.aahp(&["doctor", "--json"]);
    out.assert_code(1);
    assert!(failing(&out, "hooks", "no pre-commit hook"), "{out}");
    assert!(failing(&out, "ci", "no .github/workflows"), "{out}");
    assert_eq!(repo.git(&["status", "--porcelain", "--ignored"]), before);
    let human = repo.aahp(&["doctor"]);
    human.assert_code(1);
    assert!(human.stdout.contains("FAIL  hooks"), "{human}");
    assert!(
        human.stdout.contains("hint: run `git aahp hooks install`"),
        "{human}"
    );
}

#[test]
fn a_complete_set_up_passes() {
    let repo = TestRepo::with_handoff();
    repo.aahp(&["hooks", "install"]).assert_code(0);
    repo.aahp(&["init", "--agent-hooks", "claude"])
        .assert_code(0);
    repo.write(".github/workflows/handoff.yml", GOOD_WORKFLOW);
    repo.write(".gitattributes", ".ai/handoff/*.md merge=aahp\n");
    repo.git(&[
        "config",
        "merge.aahp.driver",
        "git aahp merge-driver %O %A %B %P",
    ]);
    let out = repo.aahp(&["doctor", "--json"]);
    out.assert_code(0);
    for area in ["hooks", "ci", "agent-hooks", "merge-driver"] {
        let found = checks(&out, area);
        assert!(!found.is_empty(), "{area}: no check\n{out}");
        assert!(found.iter().all(|(v, _)| v == "ok"), "{area}: {found:?}");
    }
}

#[test]
fn ci_workflows_that_can_skip_the_gate_fail() {
    let repo = TestRepo::with_handoff();
    repo.aahp(&["hooks", "install"]).assert_code(0);
    repo.write(
        ".github/workflows/skippable.yml",
        r#"on:
  pull_request:
    paths: ["src/**"]
  workflow_dispatch:
jobs:
  gate:
    runs-on: ubuntu-latest
    continue-on-error: true
    if: github.actor != 'dependabot[bot]'
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683
      - run: git aahp verify --level ci
"#,
    );
    let out = repo.aahp(&["doctor", "--json"]);
    out.assert_code(1);
    assert!(failing(&out, "ci", "continue-on-error"), "{out}");
    assert!(failing(&out, "ci", "`paths` filter"), "{out}");
    assert!(failing(&out, "ci", "shallow"), "{out}");
    assert!(says(&out, "ci", "warn", "dependabot"), "{out}");
    assert!(says(&out, "ci", "warn", "workflow_dispatch"), "{out}");

    // A workflow that never runs verify --level ci is no gate at all.
    std::fs::remove_file(repo.path().join(".github/workflows/skippable.yml")).unwrap();
    fails_with(
        &repo,
        ".github/workflows/test.yml",
        "on: [pull_request]\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: git aahp verify\n",
        "runs `git aahp verify --level ci`",
    );

    // A reusable workflow is judged through its callers.
    repo.write(
        ".github/workflows/aahp.yml",
        "on:\n  workflow_call:\njobs:\n  g:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: git aahp verify --level ci\n",
    );
    let out = repo.aahp(&["doctor", "--json"]);
    assert!(
        failing(&out, "ci", "runs `git aahp verify --level ci`"),
        "{out}"
    );
    repo.write(
        ".github/workflows/test.yml",
        "on: [pull_request]\njobs:\n  t:\n    uses: ./.github/workflows/aahp.yml\n",
    );
    let out = repo.aahp(&["doctor", "--json"]);
    out.assert_code(0);

    // An unreadable workflow is named with its line.
    repo.write(".github/workflows/broken.yml", "on: [push\njobs: {\n");
    let out = repo.aahp(&["doctor", "--json"]);
    assert!(
        failing(&out, "ci", ".github/workflows/broken.yml:"),
        "{out}"
    );
}

#[test]
fn a_gate_step_that_cannot_fail_is_no_gate() {
    // Review, fourteenth session: `doctor` passed any `run:` that mentioned the gate, so a
    // step that swallowed its failure, echoed it or held it in a comment "held".
    let repo = TestRepo::with_handoff();
    repo.aahp(&["hooks", "install"]).assert_code(0);
    let with_step =
        |step: &str| GOOD_WORKFLOW.replace("      - run: git aahp verify --level ci\n", step);
    let no_gate = "runs `git aahp verify --level ci`";
    for (step, why) in [
        (
            "      - run: git aahp verify --level ci || true\n",
            "`|| …` after it",
        ),
        (
            "      - run: |\n          set +e\n          git aahp verify --level ci\n          echo done\n",
            "`set +e` before it",
        ),
        ("      - run: echo git aahp verify --level ci\n", no_gate),
        (
            "      - run: \"# TODO: git aahp verify --level ci\"\n",
            no_gate,
        ),
        ("      - run: git aahp verify --level ci --help\n", no_gate),
        (
            "      - shell: bash {0}\n        run: |\n          git aahp verify --level ci\n          echo ok\n",
            "a `shell:` without `-e`",
        ),
        (
            "      - run: |\n          git aahp verify \\\n            --level ci \\\n            || true\n",
            "`|| …` after it",
        ),
        (
            "      - run: |\n          set +o errexit\n          git aahp verify --level ci\n          echo done\n",
            "`set +e` before it",
        ),
        (
            "      - shell: sh\n        run: git aahp verify --level ci | tee out.txt\n",
            "a pipe after it without `pipefail`",
        ),
        (
            "      - run: |\n          trap 'exit 0' EXIT\n          git aahp verify --level ci\n",
            "`trap … EXIT`",
        ),
        (
            "      - run: git aahp verify --level ci &\n",
            "in the background",
        ),
        (
            "      - if: failure()\n        run: git aahp verify --level ci\n",
            "never when the steps before it pass",
        ),
        (
            "      - if: ${{ false }}\n        run: git aahp verify --level ci\n",
            "never when the steps before it pass",
        ),
    ] {
        fails_with(
            &repo,
            ".github/workflows/handoff.yml",
            &with_step(step),
            why,
        );
    }
    // Failures handled and passed on: still the gate.
    for step in [
        "      - run: git aahp verify --level ci || { echo failed; exit 1; }\n",
        "      - run: |\n          set +e\n          git aahp verify --level ci\n          rc=$?\n          echo \"gate: $rc\"\n          exit $rc\n",
    ] {
        repo.write(".github/workflows/handoff.yml", with_step(step));
        let out = repo.aahp(&["doctor", "--json"]);
        assert!(
            !failing(&out, "ci", "passes when it fails"),
            "{step}\n{out}"
        );
        assert!(!failing(&out, "ci", no_gate), "{step}\n{out}");
    }
    // The gate by a path, after a variable, with a trailing comment: still the gate.
    repo.write(
        ".github/workflows/handoff.yml",
        with_step("      - run: AAHP_BASE_SHA=x ./bin/git-aahp verify --level=ci # the gate\n"),
    );
    let out = repo.aahp(&["doctor", "--json"]);
    assert!(!failing(&out, "ci", "runs `git aahp verify"), "{out}");
    assert!(!failing(&out, "ci", "passes when it fails"), "{out}");
}

#[test]
fn a_default_shell_without_errexit_and_a_base_counted_from_the_tip_skip_the_gate() {
    // Review atk39 #5: `doctor` read a step's own `shell:` only, so `defaults: {run: {shell:
    // bash {0}}}` on the job or the workflow (errexit off for every step) passed a gate
    // followed by another command; and `--base HEAD~1` judges the last commit of a pull
    // request, the ones before it never.
    let repo = TestRepo::with_handoff();
    repo.aahp(&["hooks", "install"]).assert_code(0);
    let gate_then_echo = GOOD_WORKFLOW.replace(
        "      - run: git aahp verify --level ci\n",
        "      - run: |\n          git aahp verify --level ci\n          echo done\n",
    );
    let job_default = gate_then_echo.replace(
        "    runs-on: ubuntu-latest\n",
        "    runs-on: ubuntu-latest\n    defaults:\n      run:\n        shell: bash {0}\n",
    );
    let workflow_default =
        gate_then_echo.replace("jobs:\n", "defaults:\n  run:\n    shell: sh {0}\njobs:\n");
    for workflow in [&job_default, &workflow_default] {
        fails_with(
            &repo,
            ".github/workflows/handoff.yml",
            workflow,
            "a `shell:` without `-e`",
        );
    }
    for base in ["--base HEAD~1", "--base=HEAD^", "--base '@~3'"] {
        fails_with(
            &repo,
            ".github/workflows/handoff.yml",
            &GOOD_WORKFLOW.replace(
                "verify --level ci\n",
                &format!("verify --level ci {base}\n"),
            ),
            "counted back from the tip",
        );
    }
    // A default shell with errexit, and the event's base: still the gate.
    for workflow in [
        job_default.replace("shell: bash {0}", "shell: bash -e {0}"),
        GOOD_WORKFLOW.replace(
            "verify --level ci\n",
            "verify --level ci --base ${{ github.event.pull_request.base.sha }}\n",
        ),
    ] {
        repo.write(".github/workflows/handoff.yml", &workflow);
        let out = repo.aahp(&["doctor", "--json"]);
        assert!(
            !failing(&out, "ci", "passes when it fails") && !failing(&out, "ci", "counted back"),
            "{workflow}\n{out}"
        );
    }
}

#[test]
fn shadowed_hooks_unconfigured_drivers_and_missing_agent_hooks_are_reported() {
    let repo = TestRepo::with_handoff();
    repo.write(".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n");
    repo.write(".git/hooks/pre-push", "#!/bin/sh\nexit 0\n");
    repo.write(".gitattributes", "*.md merge=aahp\n");
    std::fs::create_dir_all(repo.path().join(".claude")).unwrap();
    repo.write(".github/workflows/handoff.yml", GOOD_WORKFLOW);
    let out = repo.aahp(&["doctor", "--json"]);
    out.assert_code(1);
    assert!(failing(&out, "hooks", "never runs git aahp"), "{out}");
    assert!(failing(&out, "merge-driver", "merge.aahp.driver"), "{out}");
    assert!(
        says(&out, "agent-hooks", "warn", ".claude/settings.json"),
        "{out}"
    );

    // A .gitattributes that cannot be read as a file cannot be judged: it fails.
    std::fs::remove_file(repo.path().join(".gitattributes")).unwrap();
    std::fs::create_dir(repo.path().join(".gitattributes")).unwrap();
    let out = repo.aahp(&["doctor", "--json"]);
    assert!(failing(&out, "merge-driver", ".gitattributes"), "{out}");
    std::fs::remove_dir(repo.path().join(".gitattributes")).unwrap();

    // The same hooks run git aahp when a hook manager's configuration calls it.
    repo.write(
        ".pre-commit-config.yaml",
        "repos:\n  - repo: local\n    hooks:\n      - id: aahp-verify\n        name: aahp\n        entry: git aahp hook pre-commit\n        language: system\n",
    );
    hook(
        &repo,
        ".git/hooks/pre-commit",
        "#!/bin/sh\n# File generated by pre-commit: https://pre-commit.com\nexec pre-commit\n",
    );
    let out = repo.aahp(&["doctor", "--json"]);
    assert!(says(&out, "hooks", "ok", "through pre-commit"), "{out}");
}

/// Review s23 #5: with GitHub's default `run` shell (`bash -e {0}`, no pipefail) a pipe
/// gives the step the last command's status, errexit never stops inside an `&&` list, and
/// `types: [closed]` runs the gate only once the pull request is merged or closed: each
/// lets a failing gate through, so each fails `doctor`. `shell: bash` (pipefail on) or a
/// script that sets `pipefail` keeps a piped gate's status.
#[test]
fn a_piped_gate_an_and_list_and_a_closed_only_trigger_fail() {
    let repo = TestRepo::with_handoff();
    repo.aahp(&["hooks", "install"]).assert_code(0);
    let with_step =
        |step: &str| GOOD_WORKFLOW.replace("      - run: git aahp verify --level ci\n", step);
    for (step, why) in [
        (
            "      - run: |\n          git aahp verify --level ci | head -n 200\n",
            "a pipe after it without `pipefail`",
        ),
        (
            "      - run: git aahp verify --level ci 2>&1 | tee log.txt\n",
            "a pipe after it without `pipefail`",
        ),
        (
            "      - run: |\n          git aahp verify --level ci && echo done; true\n",
            "`&& …` after it",
        ),
        (
            "      - run: |\n          git aahp verify --level ci && echo done\n          echo more\n",
            "`&& …` after it",
        ),
    ] {
        fails_with(
            &repo,
            ".github/workflows/handoff.yml",
            &with_step(step),
            why,
        );
    }
    fails_with(
        &repo,
        ".github/workflows/handoff.yml",
        &GOOD_WORKFLOW.replace(
            "  pull_request:\n",
            "  pull_request:\n    types: [closed]\n",
        ),
        "runs only on `types: [closed]`",
    );
    // The gate's status kept: pipefail on, or the `&&` list last.
    for step in [
        "      - shell: bash\n        run: git aahp verify --level ci | tee log.txt\n",
        "      - run: |\n          set -o pipefail\n          git aahp verify --level ci | tee log.txt\n",
        "      - run: |\n          echo start\n          git aahp verify --level ci && echo done\n",
    ] {
        repo.write(".github/workflows/handoff.yml", with_step(step));
        let out = repo.aahp(&["doctor", "--json"]);
        assert!(
            !failing(&out, "ci", "passes when it fails"),
            "{step}\n{out}"
        );
    }
}

/// Writes an executable hook at `rel`.
fn hook(repo: &TestRepo, rel: &str, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    repo.write(rel, text);
    std::fs::set_permissions(
        repo.path().join(rel),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
}

/// The first `hooks` check doctor makes (the pre-commit hook's), as (verdict, message).
fn pre_commit(repo: &TestRepo) -> (String, String) {
    let out = repo.aahp(&["doctor", "--json"]);
    checks(&out, "hooks").into_iter().next().unwrap()
}

/// lefthook's own pre-commit hook, installed where git looks.
fn lefthook_hook(repo: &TestRepo) {
    hook(
        repo,
        ".git/hooks/pre-commit",
        "#!/bin/sh\n# lefthook\nexec lefthook run \"pre-commit\" \"$@\"\n",
    );
}

/// husky's set-up: `core.hooksPath` at `.husky/_`, whose pre-commit runs `.husky/pre-commit`.
fn husky_hook(repo: &TestRepo) {
    repo.git(&["config", "core.hooksPath", ".husky/_"]);
    hook(
        repo,
        ".husky/_/pre-commit",
        "#!/bin/sh\n. \"$(dirname \"$0\")/h\"\n",
    );
}

/// Review s23 #15 (a): a hook manager's configuration that merely mentions the command (in
/// `echo`, a comment, after `exit 0`), one whose hook is not installed where git looks, or
/// one that ignores the command's failure (`|| true`) runs nothing: `doctor` fails it, and
/// says "ok" only for an installed manager that runs `git aahp hook <stage>` as a command
/// of its own (for lefthook's pre-push, with `use_stdin: true`).
#[test]
fn doctor_says_a_hook_manager_runs_git_aahp_only_when_it_does() {
    let repo = TestRepo::with_handoff();
    // pre-commit's and pre-push's checks; pre-merge-commit's and pre-applypatch's are
    // judged apart (a warning).
    let hooks_ok = |repo: &TestRepo| {
        let out = repo.aahp(&["doctor", "--json"]);
        let mut found = checks(&out, "hooks");
        found.retain(|(_, m)| !m.contains("pre-merge-commit") && !m.contains("pre-applypatch"));
        found
    };
    let merge_check = |repo: &TestRepo| {
        let out = repo.aahp(&["doctor", "--json"]);
        checks(&out, "hooks")
            .into_iter()
            .find(|(_, m)| m.contains("pre-merge-commit"))
            .expect("a pre-merge-commit check")
    };
    // lefthook, never installed, its only command an echo.
    repo.write(
        "lefthook.yml",
        "pre-commit:\n  commands:\n    lint:\n      run: echo \"remember to run git aahp hook pre-commit later\"\n",
    );
    let found = hooks_ok(&repo);
    assert!(found.iter().all(|(v, _)| v == "fail"), "{found:?}");
    assert!(found[0].1.contains("not installed"), "{found:?}");
    // Installed, still only the echo.
    let lefthook_hook =
        |stage: &str| format!("#!/bin/sh\n# lefthook\nexec lefthook run \"{stage}\" \"$@\"\n");
    hook(&repo, ".git/hooks/pre-commit", &lefthook_hook("pre-commit"));
    hook(&repo, ".git/hooks/pre-push", &lefthook_hook("pre-push"));
    let found = hooks_ok(&repo);
    assert!(found.iter().all(|(v, _)| v == "fail"), "{found:?}");
    assert!(
        found[0].1.contains("runs no `git aahp hook pre-commit`"),
        "{found:?}"
    );
    // `|| true` swallows the failure; a pre-push without use_stdin judges the wrong branch.
    repo.write(
        "lefthook.yml",
        "pre-commit:\n  commands:\n    aahp:\n      run: git aahp hook pre-commit || true\npre-push:\n  commands:\n    aahp:\n      run: git aahp hook pre-push {1} {2}\n",
    );
    let found = hooks_ok(&repo);
    assert!(
        found[0].0 == "fail" && found[0].1.contains("`|| true`"),
        "{found:?}"
    );
    assert!(
        found[1].0 == "fail" && found[1].1.contains("use_stdin: true"),
        "{found:?}"
    );
    // As README's advice says: both run.
    repo.write(
        "lefthook.yml",
        "pre-commit:\n  commands:\n    aahp:\n      run: git aahp hook pre-commit\npre-push:\n  commands:\n    aahp:\n      run: git aahp hook pre-push {1} {2}\n      use_stdin: true\n",
    );
    let found = hooks_ok(&repo);
    assert!(
        found
            .iter()
            .all(|(v, m)| v == "ok" && m.contains("through lefthook")),
        "{found:?}"
    );
    // Merges git commits without a conflict: lefthook installs no pre-merge-commit hook
    // until its configuration has the stage; until then a warning, not a failure (push and
    // CI still judge the merge). `hook pre-commit` judges a merge as `pre-merge-commit` does.
    let (verdict, message) = merge_check(&repo);
    assert!(
        verdict == "warn" && message.contains("judged only at push and in CI"),
        "{message}"
    );
    // Likewise a patch `git am` applies (review atk32 #12).
    let out = repo.aahp(&["doctor", "--json"]);
    let (verdict, message) = checks(&out, "hooks")
        .into_iter()
        .find(|(_, m)| m.contains("pre-applypatch"))
        .expect("a pre-applypatch check");
    assert!(
        verdict == "warn" && message.contains("`git am` applies is judged only at push"),
        "{message}"
    );
    repo.write(
        "lefthook.yml",
        "pre-commit:\n  commands:\n    aahp:\n      run: git aahp hook pre-commit\npre-push:\n  commands:\n    aahp:\n      run: git aahp hook pre-push {1} {2}\n      use_stdin: true\npre-merge-commit:\n  commands:\n    aahp:\n      run: git aahp hook pre-commit\n",
    );
    hook(
        &repo,
        ".git/hooks/pre-merge-commit",
        &lefthook_hook("pre-merge-commit"),
    );
    let (verdict, message) = merge_check(&repo);
    assert!(
        verdict == "ok" && message.contains("through lefthook"),
        "{message}"
    );
    std::fs::remove_file(repo.path().join(".git/hooks/pre-merge-commit")).unwrap();
    // A manager's hook that is not executable never runs.
    std::fs::set_permissions(
        repo.path().join(".git/hooks/pre-push"),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .unwrap();
    let found = hooks_ok(&repo);
    assert!(
        found[1].0 == "fail" && found[1].1.contains("not executable"),
        "{found:?}"
    );
    std::fs::remove_file(repo.path().join("lefthook.yml")).unwrap();
    std::fs::remove_file(repo.path().join(".git/hooks/pre-commit")).unwrap();
    std::fs::remove_file(repo.path().join(".git/hooks/pre-push")).unwrap();

    // pre-commit: an entry that echoes the command runs nothing.
    repo.write(
        ".pre-commit-config.yaml",
        "repos:\n  - repo: local\n    hooks:\n      - id: x\n        name: x\n        entry: echo \"git aahp hook pre-commit is disabled for now\"\n        language: system\n",
    );
    hook(
        &repo,
        ".git/hooks/pre-commit",
        "#!/bin/sh\n# File generated by pre-commit: https://pre-commit.com\nexec pre-commit\n",
    );
    let found = hooks_ok(&repo);
    assert!(found.iter().all(|(v, _)| v == "fail"), "{found:?}");
    std::fs::remove_file(repo.path().join(".pre-commit-config.yaml")).unwrap();
    std::fs::remove_file(repo.path().join(".git/hooks/pre-commit")).unwrap();

    // Husky: a comment and `exit 0`, not installed; then installed and running it.
    repo.write(
        ".husky/pre-commit",
        "#!/bin/sh\n# git aahp hook pre-commit (disabled)\nexit 0\n",
    );
    let found = hooks_ok(&repo);
    assert!(found.iter().all(|(v, _)| v == "fail"), "{found:?}");
    husky_hook(&repo);
    let found = hooks_ok(&repo);
    assert!(
        found[0].0 == "fail" && found[0].1.contains("exits before"),
        "{found:?}"
    );
    repo.write(".husky/pre-commit", "#!/bin/sh\ngit aahp hook pre-commit\n");
    let found = hooks_ok(&repo);
    assert!(
        found[0].0 == "ok" && found[0].1.contains("through husky"),
        "{found:?}"
    );
    assert!(found[1].0 == "fail", "no pre-push in .husky/_: {found:?}");
}

/// Review s23 #15 (b) and (c): a shim git skips (not executable) fails, and
/// `core.hooksPath=/dev/null` is reported as hooks switched off, not an error reading it.
#[test]
fn doctor_fails_a_shim_git_skips_and_hooks_switched_off() {
    let repo = TestRepo::with_handoff();
    repo.aahp(&["hooks", "install"]).assert_code(0);
    std::fs::set_permissions(
        repo.path().join(".git/hooks/pre-commit"),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .unwrap();
    let out = repo.aahp(&["doctor", "--json"]);
    out.assert_code(1);
    assert!(
        failing(
            &out,
            "hooks",
            "pre-commit (.git/hooks/pre-commit) is not executable: git skips it"
        ),
        "{out}"
    );
    let status = repo.aahp(&["hooks", "status"]);
    status.assert_code(1);
    assert!(
        status.stdout.contains("not executable: git skips it"),
        "{status}"
    );
    repo.aahp(&["hooks", "install"]).assert_code(0);
    repo.aahp(&["hooks", "status"]).assert_code(0);

    repo.git(&["config", "core.hooksPath", "/dev/null"]);
    let out = repo.aahp(&["doctor", "--json"]);
    out.assert_code(1);
    assert!(failing(&out, "hooks", "hooks are disabled"), "{out}");
    let status = repo.aahp(&["hooks", "status"]);
    status.assert_code(1);
    assert!(
        status
            .stdout
            .contains("disabled: /dev/null is not a directory"),
        "{status}"
    );
}

/// Review s28b #1: `doctor` said "ok: pre-commit runs git aahp through …" for managers whose
/// own conditions skip the check, and with the real managers a commit staging an injected
/// `AGENTS.md` went through. A condition (lefthook's `glob`, `root`, `files`, `skip`,
/// excluded `tags`, a local override; pre-commit's file filters without `always_run: true`,
/// or a shim that reads another configuration; a husky script that can `exit` first or
/// runs the gate inside an `if`) now fails the check, naming it.
#[test]
fn doctor_fails_a_hook_manager_that_runs_the_gate_only_under_a_condition() {
    let repo = TestRepo::with_handoff();
    lefthook_hook(&repo);
    let gate = "pre-commit:\n  commands:\n    aahp:\n      run: git aahp hook pre-commit\n";
    repo.write("lefthook.yml", gate);
    assert_eq!(pre_commit(&repo).0, "ok");
    for (extra, needle) in [
        ("      glob: \".ai/handoff/*\"\n", "`glob`"),
        ("      root: \"packages/web/\"\n", "`root`"),
        (
            "      files: git diff --name-only --cached -- '*.rs'\n",
            "`files`",
        ),
        ("      skip:\n        - ref: main\n", "`skip`"),
        ("      tags: [slow]\n", "`exclude_tags`"),
    ] {
        let mut text = format!("{gate}{extra}");
        if extra.contains("tags") {
            text = format!(
                "pre-commit:\n  exclude_tags: [slow]\n{}",
                &text["pre-commit:\n".len()..]
            );
        }
        repo.write("lefthook.yml", &text);
        let (verdict, message) = pre_commit(&repo);
        assert!(
            verdict == "fail" && message.contains(needle),
            "{text}\n{message}"
        );
    }
    repo.write("lefthook.yml", format!("{gate}  skip: true\n"));
    assert_eq!(pre_commit(&repo).0, "fail");
    repo.write("lefthook.yml", gate);
    repo.write(
        "lefthook-local.yml",
        "pre-commit:\n  commands:\n    aahp:\n      skip: true\n",
    );
    let (verdict, message) = pre_commit(&repo);
    assert!(
        verdict == "warn" && message.contains("lefthook-local.yml"),
        "{message}"
    );
    for f in ["lefthook.yml", "lefthook-local.yml"] {
        std::fs::remove_file(repo.path().join(f)).unwrap();
    }

    // pre-commit: file filters without `always_run`, and a shim reading another file.
    let shim = |config: &str| {
        format!(
            "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\nARGS=(hook-impl --config={config} --hook-type=pre-commit)\nexec pre-commit \"${{ARGS[@]}}\"\n"
        )
    };
    hook(
        &repo,
        ".git/hooks/pre-commit",
        &shim(".pre-commit-config.yaml"),
    );
    let local = "repos:\n  - repo: local\n    hooks:\n      - id: aahp\n        name: aahp\n        entry: git aahp hook pre-commit\n        language: system\n        pass_filenames: false\n";
    repo.write(".pre-commit-config.yaml", local);
    assert_eq!(pre_commit(&repo).0, "ok");
    for (text, needle) in [
        (
            format!("{local}        files: ^(src/|\\.ai/)\n"),
            "its `files`",
        ),
        (format!("{local}        types: [rust]\n"), "its `types`"),
        (
            format!("exclude: '^[^/]*\\.md$'\n{local}"),
            "the file's `exclude`",
        ),
    ] {
        repo.write(".pre-commit-config.yaml", &text);
        let (verdict, message) = pre_commit(&repo);
        assert!(
            verdict == "fail" && message.contains(needle),
            "{text}\n{message}"
        );
    }
    repo.write(
        ".pre-commit-config.yaml",
        format!("{local}        files: ^src/\n        always_run: true\n"),
    );
    assert_eq!(pre_commit(&repo).0, "ok");
    repo.write("ci/pre-commit.yaml", "repos: []\n");
    hook(&repo, ".git/hooks/pre-commit", &shim("ci/pre-commit.yaml"));
    assert_eq!(
        pre_commit(&repo).0,
        "fail",
        "the shim reads ci/pre-commit.yaml"
    );
    std::fs::remove_file(repo.path().join(".pre-commit-config.yaml")).unwrap();
    std::fs::remove_file(repo.path().join(".git/hooks/pre-commit")).unwrap();

    // Husky: a condition that can end the script before the gate.
    husky_hook(&repo);
    for script in [
        "if git diff --cached --quiet -- .ai/handoff; then exit 0; fi\ngit aahp hook pre-commit\n",
        "[ -n \"$(git diff --cached --name-only -- .ai/handoff)\" ] || exit 0\ngit aahp hook pre-commit\n",
        "case \"$(git branch --show-current)\" in main) exit 0;; esac\ngit aahp hook pre-commit\n",
        "if [ -z \"$CI\" ]; then\n  git aahp hook pre-commit\nfi\n",
        "[ -f .ai/handoff/STATUS.md ] && git aahp hook pre-commit\n",
    ] {
        repo.write(".husky/pre-commit", format!("#!/bin/sh\n{script}"));
        let (verdict, message) = pre_commit(&repo);
        assert!(
            verdict == "fail" && message.contains("only"),
            "{script}\n{message}"
        );
    }
    repo.write(
        ".husky/pre-commit",
        "#!/bin/sh\nfor f in a b; do echo \"$f\"; done\ngit aahp hook pre-commit\nnpx lint-staged\n",
    );
    assert_eq!(pre_commit(&repo).0, "ok");
}

/// Review s30 #6: `doctor` read only the root `.gitattributes`, but `init` writes the one
/// in the handoff directory, so a clone without the merge driver passed while `status`
/// warned. Every `.gitattributes` naming the driver counts, tracked or not yet.
#[test]
fn the_handoff_directorys_attributes_need_the_merge_driver_too() {
    let repo = TestRepo::with_handoff();
    repo.aahp(&["hooks", "install"]).assert_code(0);
    repo.git(&["config", "--unset", "merge.aahp.driver"]);
    assert!(!repo.exists(".gitattributes"));
    let out = repo.aahp(&["doctor", "--json"]);
    out.assert_code(1);
    assert!(
        failing(
            &out,
            "merge-driver",
            ".ai/handoff/.gitattributes names merge=aahp"
        ),
        "{out}"
    );
    assert_eq!(
        repo.aahp(&["status", "--json"]).json()["merge_driver_missing"],
        true
    );

    // Another package's attributes, tracked, are read as well.
    repo.write(".ai/handoff/.gitattributes", "# none here\n");
    repo.write("pkg/.gitattributes", "*.md   merge=aahp\n");
    repo.git(&["add", "-A"]);
    let out = repo.aahp(&["doctor", "--json"]);
    assert!(
        failing(&out, "merge-driver", "pkg/.gitattributes names merge=aahp"),
        "{out}"
    );
    assert!(
        !failing(&out, "merge-driver", ".ai/handoff/.gitattributes"),
        "{out}"
    );

    repo.aahp(&["hooks", "install"]).assert_code(0);
    let out = repo.aahp(&["doctor", "--json"]);
    assert!(
        says(&out, "merge-driver", "ok", "pkg/.gitattributes"),
        "{out}"
    );
    assert!(!failing(&out, "merge-driver", ""), "{out}");
    assert_eq!(
        repo.aahp(&["status", "--json"]).json()["merge_driver_missing"],
        false
    );
}

/// Review atk41 #4: a hook script that sets `AAHP_SKIP_VERIFY=1` (for the gate alone or for
/// the rest of the script) never checks anything, and one that points the gate at another
/// index, repository or object store judges other content than git commits: both passed
/// doctor as scripts that run the gate. A redirection (`2>&1`) is no background `&`.
#[test]
fn doctor_fails_a_hook_script_that_makes_the_gate_skip_or_judge_other_content() {
    let repo = TestRepo::with_handoff();
    husky_hook(&repo);
    for (script, needle) in [
        (
            "AAHP_SKIP_VERIFY=1 git aahp hook pre-commit\n",
            "AAHP_SKIP_VERIFY",
        ),
        (
            "export AAHP_SKIP_VERIFY=1\ngit aahp hook pre-commit\n",
            "AAHP_SKIP_VERIFY",
        ),
        (
            "AAHP_SKIP_VERIFY=1; export AAHP_SKIP_VERIFY\ngit aahp hook pre-commit\n",
            "AAHP_SKIP_VERIFY",
        ),
        (
            "GIT_INDEX_FILE=/dev/null git aahp hook pre-commit\n",
            "GIT_INDEX_FILE",
        ),
        (
            "export GIT_DIR=/tmp/other.git\ngit aahp hook pre-commit\n",
            "GIT_DIR",
        ),
        (
            "git aahp hook pre-commit >/dev/null 2>&1 || echo failed\n",
            "`|| echo failed`",
        ),
    ] {
        repo.write(".husky/pre-commit", format!("#!/bin/sh\n{script}"));
        let (verdict, message) = pre_commit(&repo);
        assert!(
            verdict == "fail" && message.contains(needle),
            "{script}\n{message}"
        );
    }
    // lefthook: the command's `env:` does the same.
    repo.git(&["config", "--unset", "core.hooksPath"]);
    lefthook_hook(&repo);
    let gate = "pre-commit:\n  commands:\n    aahp:\n      run: git aahp hook pre-commit\n";
    repo.write("lefthook.yml", gate);
    assert_eq!(pre_commit(&repo).0, "ok");
    repo.write(
        "lefthook.yml",
        format!("{gate}      env:\n        AAHP_SKIP_VERIFY: 1\n"),
    );
    let (verdict, message) = pre_commit(&repo);
    assert!(
        verdict == "fail" && message.contains("`AAHP_SKIP_VERIFY=…` in its `env:`"),
        "{message}"
    );
    std::fs::remove_file(repo.path().join("lefthook.yml")).unwrap();
    std::fs::remove_file(repo.path().join(".git/hooks/pre-commit")).unwrap();
    repo.git(&["config", "core.hooksPath", ".husky/_"]);
    for script in [
        "AAHP_SKIP_VERIFY=0 git aahp hook pre-commit\n",
        "GIT_DIR=../tools/.git git fetch -q\ngit aahp hook pre-commit\n",
        "git aahp hook pre-commit 2>&1\n",
    ] {
        repo.write(".husky/pre-commit", format!("#!/bin/sh\n{script}"));
        assert_eq!(pre_commit(&repo).0, "ok", "{script}");
    }
}

/// Review atk41 #4, in CI: a workflow that points the gate at another repository, index or
/// object store (git's location variables in an `env:` or in the step's script) judges
/// other content than the checkout, and passed as a workflow that runs the gate.
#[test]
fn a_ci_gate_pointed_at_another_repository_fails() {
    let repo = TestRepo::with_handoff();
    let gate = "      - run: git aahp verify --level ci\n";
    for (workflow, needle) in [
        (
            GOOD_WORKFLOW.replace(
                gate,
                "      - run: GIT_DIR=/tmp/clean/.git GIT_WORK_TREE=/tmp/clean git aahp verify --level ci\n",
            ),
            "the script sets GIT_DIR",
        ),
        (
            GOOD_WORKFLOW.replace(
                gate,
                "      - run: |\n          export GIT_INDEX_FILE=/tmp/index\n          git aahp verify --level ci\n",
            ),
            "the script sets GIT_INDEX_FILE",
        ),
        (
            GOOD_WORKFLOW.replace(
                gate,
                "      - run: git aahp verify --level ci\n        env:\n          GIT_OBJECT_DIRECTORY: /tmp/objects\n",
            ),
            "the step's `env` sets GIT_OBJECT_DIRECTORY",
        ),
        (
            GOOD_WORKFLOW.replace(
                "    runs-on: ubuntu-latest\n",
                "    runs-on: ubuntu-latest\n    env:\n      GIT_DIR: /tmp/clean/.git\n",
            ),
            "the job's `env` sets GIT_DIR",
        ),
    ] {
        fails_with(&repo, ".github/workflows/handoff.yml", &workflow, needle);
    }
    // Another command's own variables, and AAHP_SKIP_VERIFY (ignored at --level ci), leave it.
    repo.write(
        ".github/workflows/handoff.yml",
        GOOD_WORKFLOW.replace(
            gate,
            "      - run: |\n          GIT_DIR=../tools/.git git fetch -q\n          AAHP_SKIP_VERIFY=1 git aahp verify --level ci\n",
        ),
    );
    let out = repo.aahp(&["doctor", "--json"]);
    assert!(!failing(&out, "ci", "another index"), "{out}");
}
