//! Agent-harness hooks (issue #16): `init --agent-hooks` writes Claude Code's and Gemini
//! CLI's project settings without disturbing what is there, and the commands they run give
//! the harness the handoff context within its size limit, redacted, and never block a session.

use crate::boundary::Secrets;
use crate::support::{CmdOutput, TestRepo};

/// Runs the command a harness's settings hold for `event` (`git aahp …`, as the harness
/// would run it) with the harness's JSON on stdin.
fn run_configured(repo: &TestRepo, settings: &str, event: &str) -> CmdOutput {
    let settings: serde_json::Value = serde_json::from_str(&repo.read(settings)).unwrap();
    let command = settings["hooks"][event]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["hooks"].as_array().unwrap().iter())
        .filter_map(|h| h["command"].as_str())
        .find(|c| c.starts_with("git aahp "))
        .unwrap_or_else(|| panic!("no git aahp hook at {event}: {settings}"))
        .to_string();
    let args: Vec<&str> = command.split_whitespace().skip(2).collect();
    repo.aahp_with_stdin(
        &args,
        br#"{"session_id":"s1","hook_event_name":"x","cwd":"."}"#,
    )
}

/// The answer to a session start (exit 0, stdout one JSON object and nothing else, as
/// Gemini CLI requires) and the context it gives.
#[track_caller]
fn session_start_answer(harness: &str, out: &CmdOutput) -> (serde_json::Value, String) {
    out.assert_code(0);
    let answer: serde_json::Value = serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("{harness}: stdout is not one JSON object ({e})\n{out}"));
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("{harness}: no additionalContext\n{out}"))
        .to_string();
    (answer, context)
}

#[test]
fn init_adds_the_hooks_and_keeps_the_users_settings() {
    let repo = TestRepo::new();
    let mine = r#"{
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}]
  },
  "model": "opus"
}
"#;
    repo.write(".claude/settings.json", mine);
    let out = repo.aahp(&["init", "--agent-hooks", "claude", "--agent-hooks", "gemini"]);
    out.assert_code(0);
    assert!(out.stdout.contains(".claude/settings.json"), "{out}");
    assert!(out.stdout.contains(".gemini/settings.json"), "{out}");

    let claude: serde_json::Value =
        serde_json::from_str(&repo.read(".claude/settings.json")).unwrap();
    assert_eq!(claude["permissions"]["allow"][0], "Bash(npm test)");
    assert_eq!(claude["model"], "opus");
    let keys: Vec<&String> = claude.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["permissions", "hooks", "model"], "key order kept");
    let start = claude["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(
        start.len(),
        2,
        "the user's hook stays, ours is added: {start:?}"
    );
    assert_eq!(start[0]["hooks"][0]["command"], "echo hi");
    assert_eq!(
        start[1]["hooks"][0]["command"],
        "git aahp agent-hook claude session-start"
    );
    assert_eq!(
        claude["hooks"]["Stop"][0]["hooks"][0]["command"],
        "git aahp agent-hook claude session-end"
    );
    let gemini: serde_json::Value =
        serde_json::from_str(&repo.read(".gemini/settings.json")).unwrap();
    assert_eq!(gemini["hooksConfig"]["enabled"], true);
    assert_eq!(
        gemini["hooks"]["SessionEnd"][0]["hooks"][0]["command"],
        "git aahp agent-hook gemini session-end"
    );
    assert_eq!(
        gemini["hooks"]["SessionStart"][0]["hooks"][0]["timeout"],
        30_000
    );

    // A second run finds its own hooks and changes nothing.
    let before = (
        repo.read(".claude/settings.json"),
        repo.read(".gemini/settings.json"),
    );
    let again = repo.aahp(&[
        "init",
        "--agent-hooks",
        "claude",
        "--agent-hooks",
        "gemini",
        "--json",
    ]);
    again.assert_code(0);
    let actions: Vec<String> = again.json()["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"].as_str().unwrap().ends_with("settings.json"))
        .map(|f| f["action"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(actions, ["kept", "kept"]);
    assert_eq!(
        (
            repo.read(".claude/settings.json"),
            repo.read(".gemini/settings.json")
        ),
        before
    );
}

#[test]
fn init_refuses_settings_it_cannot_read_and_writes_nothing() {
    let repo = TestRepo::new();
    repo.write(".claude/settings.json", "{\n  \"hooks\": [\n");
    let out = repo.aahp(&["init", "--agent-hooks", "claude"]);
    out.assert_code(2);
    assert!(out.stderr.contains(".claude/settings.json"), "{out}");
    assert_eq!(repo.read(".claude/settings.json"), "{\n  \"hooks\": [\n");
    assert!(
        !repo.exists(".ai/handoff"),
        "init wrote the handoff before failing"
    );
}

#[test]
fn the_session_start_hook_gives_the_context_redacted_and_within_the_harness_limit() {
    let repo = TestRepo::new();
    repo.aahp(&["init", "--agent-hooks", "claude", "--agent-hooks", "gemini"])
        .assert_code(0);
    let s = Secrets::new();
    let mut status = format!(
        "# Status\n\n<!-- SECTION: summary -->\nThe importer is half done. {}\n<!-- /SECTION: summary -->\n\n## Details\n\n",
        s.text()
    );
    for i in 0..2_000 {
        status.push_str(&format!(
            "- detail line {i} about the importer's retry logic\n"
        ));
    }
    repo.write(".ai/handoff/STATUS.md", &status);
    for (settings, harness) in [
        (".claude/settings.json", "claude"),
        (".gemini/settings.json", "gemini"),
    ] {
        let out = run_configured(&repo, settings, "SessionStart");
        let (answer, context) = session_start_answer(harness, &out);
        assert_eq!(
            answer["hookSpecificOutput"]["hookEventName"],
            "SessionStart"
        );
        assert!(
            context.contains("The importer is half done."),
            "{harness}\n{context}"
        );
        assert!(context.contains("git aahp commit"), "{harness}\n{context}");
        assert!(
            context.chars().count() <= 10_000,
            "{harness}: {} characters exceed Claude Code's inline limit",
            context.chars().count()
        );
        s.assert_absent(harness, &out);
    }
}

#[test]
fn the_session_start_answer_is_valid_json_whatever_the_directory_is_called() {
    // Review, fourteenth session: the handoff directory's path went into the answer raw and
    // the answer through the text sink, which writes `##[` as `#\#[` and a bidi control as
    // `\u{202e}`: not JSON escapes, so the harness lost the whole context.
    for pkg in ["p##[group]x", "p\u{202e}x"] {
        let repo = TestRepo::new();
        let dir = format!("{pkg}/.ai/handoff");
        repo.aahp(&["init", "--dir", &dir]).assert_code(0);
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "--no-verify", "-m", "init"]);
        for harness in ["claude", "gemini"] {
            let out = repo.aahp_in(pkg, &["agent-hook", harness, "session-start"]);
            let (_, context) = session_start_answer(harness, &out);
            assert!(context.contains("git aahp commit"), "{harness}\n{context}");
            assert!(!context.contains("##["), "{harness}\n{context}");
        }
    }
}

#[test]
fn the_session_hooks_never_block_and_remind_of_an_open_session() {
    // No handoff directory: the session starts anyway, and the user is told why nothing came.
    let bare = TestRepo::new();
    bare.aahp(&["init", "--agent-hooks", "claude"])
        .assert_code(0);
    std::fs::remove_dir_all(bare.path().join(".ai")).unwrap();
    let out = run_configured(&bare, ".claude/settings.json", "SessionStart");
    out.assert_code(0);
    let answer: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert!(
        answer["systemMessage"]
            .as_str()
            .unwrap()
            .contains("git aahp"),
        "{out}"
    );
    assert!(answer.get("hookSpecificOutput").is_none(), "{out}");

    // A handoff file that cannot be read (review s28 #8): the model is told as well, with
    // the file named, rather than starting as if there were no handoff.
    let broken = TestRepo::new();
    broken
        .aahp(&["init", "--agent-hooks", "claude"])
        .assert_code(0);
    broken.write(".ai/handoff/STATUS.md", b"# Status\n\n\xff\xfe broken\n");
    let out = run_configured(&broken, ".claude/settings.json", "SessionStart");
    out.assert_code(0);
    let answer: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default();
    assert!(
        context.contains("could not be loaded") && context.contains("STATUS.md"),
        "{out}"
    );
    assert!(answer["systemMessage"].as_str().is_some(), "{out}");

    let repo = TestRepo::new();
    repo.aahp(&["init", "--agent-hooks", "claude"])
        .assert_code(0);
    let out = run_configured(&repo, ".claude/settings.json", "Stop");
    out.assert_code(0);
    assert_eq!(out.stdout.trim(), "{}", "no session, nothing to say");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "handoff"]);
    repo.aahp(&["begin", "--agent", "claude-1"]).assert_code(0);
    let out = run_configured(&repo, ".claude/settings.json", "Stop");
    out.assert_code(0);
    let answer: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    let message = answer["systemMessage"].as_str().unwrap();
    assert!(
        message.contains("claude-1") && message.contains("git aahp commit"),
        "{out}"
    );
}

#[test]
fn init_refuses_harness_settings_linked_out_of_the_work_tree() {
    // Review atk39 #7: a committed `.claude -> ~/.claude` (or a settings file linked out)
    // made `init --agent-hooks` read the user's own settings there and rewrite them, and a
    // linked file's text was copied into the project. Exit 2 naming the link; nothing
    // outside changes. A link inside the tree is followed as before.
    let outside = tempfile::tempdir().unwrap();
    let theirs = outside.path().join("settings.json");
    let text = "{\"model\": \"theirs\"}\n";
    std::fs::write(&theirs, text).unwrap();
    for (link, target) in [
        (".claude", outside.path().to_path_buf()),
        (".claude/settings.json", theirs.clone()),
        (".gemini", outside.path().join("nowhere")),
    ] {
        let repo = TestRepo::with_handoff();
        let at = repo.path().join(link);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, &at).unwrap();
        let out = repo.aahp(&["init", "--agent-hooks", "claude", "--agent-hooks", "gemini"]);
        out.assert_code(2);
        assert!(
            out.stderr.contains(link) && out.stderr.contains("out of the work tree"),
            "{out}"
        );
        assert_eq!(std::fs::read_to_string(&theirs).unwrap(), text, "{link}");
    }
    let repo = TestRepo::with_handoff();
    repo.write("config/claude/settings.json", "{}\n");
    std::os::unix::fs::symlink("config/claude", repo.path().join(".claude")).unwrap();
    repo.aahp(&["init", "--agent-hooks", "claude"])
        .assert_code(0);
    assert!(
        repo.read("config/claude/settings.json")
            .contains("agent-hook")
    );
}
