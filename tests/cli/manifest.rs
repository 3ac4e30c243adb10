//! `git aahp manifest`.

use crate::support::TestRepo;

fn repo_with_files() -> TestRepo {
    let repo = TestRepo::new();
    repo.write(
        ".ai/handoff/STATUS.md",
        "# Status\n\n<!-- SECTION: summary -->\nBuild green.\n<!-- /SECTION: summary -->\n",
    );
    repo.write(
        ".ai/handoff/LOG.md",
        "# Log\n\n## [2026-11-20] agent-a: First session\n\nDid things.\n",
    );
    repo
}

#[test]
fn manifest_writes_then_is_idempotent() {
    let repo = repo_with_files();
    repo.aahp(&["manifest"]).assert_code(0);
    let first = repo.read(".ai/handoff/MANIFEST.json");
    let again = repo.aahp_env(".", &["manifest"], &[("AAHP_NOW", "2027-01-01T00:00:00Z")]);
    again.assert_code(0);
    assert!(again.stdout.contains("is up to date"), "{again}");
    assert_eq!(repo.read(".ai/handoff/MANIFEST.json"), first);
}

#[test]
fn manifest_check_exits_1_when_a_file_changed_and_writes_nothing() {
    let repo = repo_with_files();
    repo.aahp(&["manifest"]).assert_code(0);
    let before = repo.read(".ai/handoff/MANIFEST.json");
    repo.write(".ai/handoff/LOG.md", "# Log\n\nedited\n");
    let out = repo.aahp(&["manifest", "--check"]);
    out.assert_code(1);
    assert!(out.stdout.contains("changed: LOG.md"), "{out}");
    assert_eq!(repo.read(".ai/handoff/MANIFEST.json"), before);
}

/// The reference (4.0) estimates tokens as max(1.3 × words, bytes / 4) and writes those
/// figures into `token_budget`. Its manifest is not stale to us for that: `--check` judges
/// the checksums and the fields this tool owns, and `manifest` leaves its figures alone.
#[test]
fn a_token_budget_another_tool_estimated_is_not_called_stale() {
    let repo = repo_with_files();
    repo.aahp(&["manifest"]).assert_code(0);
    let path = ".ai/handoff/MANIFEST.json";
    let mut doc: serde_json::Value = serde_json::from_str(&repo.read(path)).unwrap();
    doc["token_budget"] =
        serde_json::json!({"manifest_only": 431, "manifest_plus_core": 467, "full_read": 502});
    let theirs = format!("{}\n", serde_json::to_string_pretty(&doc).unwrap());
    repo.write(path, &theirs);
    repo.aahp(&["manifest", "--check"]).assert_code(0);
    repo.aahp(&["verify"]).assert_code(0);
    let out = repo.aahp(&["manifest"]);
    out.assert_code(0);
    assert_eq!(repo.read(path), theirs, "{out}");
}

#[test]
fn manifest_works_from_a_subdirectory() {
    let repo = repo_with_files();
    repo.write("src/deep/x.rs", "fn x() {}\n");
    repo.aahp_in("src/deep", &["manifest"]).assert_code(0);
    assert!(repo.exists(".ai/handoff/MANIFEST.json"));
}

#[test]
fn manifest_output_and_document_are_stable() {
    let repo = repo_with_files();
    let out = repo.aahp(&[
        "manifest",
        "--agent",
        "agent-a",
        "--context",
        "Build \"green\"\ttoday",
    ]);
    out.assert_code(0);
    insta::assert_snapshot!("manifest_human_first_run", out);
    insta::assert_snapshot!(
        "manifest_document_first_run",
        repo.read(".ai/handoff/MANIFEST.json")
    );
    let json = repo.aahp(&["manifest", "--json"]);
    json.assert_code(0);
    insta::assert_snapshot!("manifest_json_up_to_date", json);
}

#[test]
fn manifest_check_json_lists_what_is_stale() {
    let repo = repo_with_files();
    repo.aahp(&["manifest"]).assert_code(0);
    repo.write(".ai/handoff/LOG.md", "# Log\n\nedited\n");
    let out = repo.aahp(&["manifest", "--check", "--json"]);
    out.assert_code(1);
    insta::assert_snapshot!("manifest_check_json_stale", out);
}

#[test]
fn manifest_without_session_options_keeps_the_last_session_whole() {
    let repo = TestRepo::with_handoff();
    let path = ".ai/handoff/MANIFEST.json";
    let mut m: serde_json::Value = serde_json::from_str(&repo.read(path)).unwrap();
    m["last_session"] = serde_json::json!({
        "agent": "ref-agent", "session_id": "cli-1784446500", "timestamp": "2026-11-01T08:00:00Z",
        "commit": "abc1234", "phase": "development", "duration_minutes": 42
    });
    repo.write(path, serde_json::to_string_pretty(&m).unwrap());
    repo.write(".ai/handoff/STATUS.md", "# Status\n\nChanged.\n");
    repo.aahp(&["manifest"]).assert_code(0);
    let m: serde_json::Value = serde_json::from_str(&repo.read(path)).unwrap();
    let s = &m["last_session"];
    assert_eq!(s["agent"], "ref-agent");
    assert_eq!(s["session_id"], "cli-1784446500");
    assert_eq!(s["timestamp"], "2026-11-01T08:00:00Z");
    assert_eq!(
        s["phase"], "implementation",
        "the reference's `development`, kept in meaning"
    );
    // A new agent starts a new record: nothing of the other session is carried into it.
    repo.aahp(&["manifest", "--agent", "newcomer"])
        .assert_code(0);
    let m: serde_json::Value = serde_json::from_str(&repo.read(path)).unwrap();
    let s = &m["last_session"];
    assert_eq!(s["agent"], "newcomer");
    assert_ne!(s["session_id"], "cli-1784446500");
    assert!(s.get("duration_minutes").is_none(), "{s}");
}

/// A summary or quick context never copies a secret out of the file it describes into
/// MANIFEST.json: the secret is redacted there as everywhere the tool shows it, and the rest
/// of the summary is kept.
#[test]
fn summaries_in_the_manifest_redact_secrets() {
    let repo = repo_with_files();
    let token = format!("ghp_{}", "a1B2".repeat(9));
    repo.write(
        ".ai/handoff/BACKLOG.md",
        format!("Deploy token {token} rotates monthly.\n"),
    );
    repo.write(
        ".ai/handoff/STATUS.md",
        format!(
            "# Status\n\n<!-- SECTION: summary -->\nBuild green; staging uses {token}.\n<!-- /SECTION: summary -->\n"
        ),
    );
    repo.aahp(&["manifest"]).assert_code(0);
    let manifest = repo.read(".ai/handoff/MANIFEST.json");
    assert!(!manifest.contains(&token), "{manifest}");
    let doc: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    let backlog = doc["files"]["BACKLOG.md"]["summary"].as_str().unwrap();
    assert!(
        backlog.starts_with("Deploy token ") && backlog.ends_with(" rotates monthly."),
        "{backlog}"
    );
    let quick = doc["quick_context"].as_str().unwrap_or_default();
    assert!(!quick.contains(&token), "{quick}");
}

#[test]
fn another_tools_fields_of_a_files_entry_survive_a_regeneration_and_a_merge() {
    let repo = TestRepo::with_handoff();
    repo.aahp(&["hooks", "install"]).assert_code(0);
    let path = ".ai/handoff/MANIFEST.json";
    let set = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut m: serde_json::Value = serde_json::from_str(&repo.read(path)).unwrap();
        f(&mut m);
        repo.write(path, serde_json::to_string_pretty(&m).unwrap() + "\n");
    };
    set(&|m| {
        m["files"]["STATUS.md"]["x_owner"] = "alice".into();
        m["files"]["STATUS.md"]["tags"] = serde_json::json!(["core"]);
    });
    repo.git(&["commit", "-q", "--no-verify", "-am", "extras"]);
    // The file changes: its entry is regenerated, the other tool's fields kept.
    let status = repo.read(".ai/handoff/STATUS.md");
    repo.write(".ai/handoff/STATUS.md", format!("{status}\nmore\n"));
    repo.aahp(&["manifest"]).assert_code(0);
    let m: serde_json::Value = serde_json::from_str(&repo.read(path)).unwrap();
    let entry = &m["files"]["STATUS.md"];
    assert_eq!(entry["x_owner"], "alice", "{entry}");
    assert_eq!(entry["tags"], serde_json::json!(["core"]), "{entry}");
    assert_eq!(entry["lines"], status.lines().count() + 2, "{entry}");
    // A second run changes nothing: the entry with extra fields is current.
    let again = repo.aahp(&["manifest"]);
    again.assert_code(0);
    assert!(again.stdout.contains("is up to date"), "{again}");
    repo.git(&["commit", "-q", "--no-verify", "-am", "more"]);

    // A merge keeps a field the merged branch added to an entry both branches changed.
    repo.git(&["switch", "-q", "-c", "feature"]);
    set(&|m| m["files"]["LOG.md"]["x_owner"] = "bob".into());
    let log = repo.read(".ai/handoff/LOG.md");
    repo.write(".ai/handoff/LOG.md", format!("{log}\nfeature\n"));
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["commit", "-q", "--no-verify", "-am", "feature"]);
    repo.git(&["switch", "-q", "main"]);
    repo.write(".ai/handoff/STATUS.md", format!("{status}\nmore\nmain\n"));
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["commit", "-q", "--no-verify", "-am", "main"]);
    let mut paths = vec![crate::support::bin().parent().unwrap().to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let path_var = std::env::join_paths(paths).unwrap();
    // Its commits skip the gate (--no-verify), and so does the merge (pre-merge-commit).
    let out = repo.git_env(
        &["merge", "--no-edit", "--no-verify", "feature"],
        &[("PATH", path_var.as_os_str())],
    );
    assert_eq!(out.code, 0, "{out}");
    let m: serde_json::Value = serde_json::from_str(&repo.read(path)).unwrap();
    assert_eq!(m["files"]["LOG.md"]["x_owner"], "bob", "{m}");
    assert_eq!(m["files"]["STATUS.md"]["x_owner"], "alice", "{m}");
    assert_eq!(
        m["files"]["STATUS.md"]["lines"],
        status.lines().count() + 3,
        "{m}"
    );
}
