//! `git aahp mcp` end to end with the official SDK's client over stdio: initialize, list the
//! tools, and a session round trip (begin → edit → commit) with the documents `--json` gives.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};

use crate::support::{NOW, TestRepo, bin};

fn args(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    match v {
        serde_json::Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .expect("a text result")
}

#[test]
fn mcp_server_lists_its_tools_and_runs_a_session_round_trip() {
    let repo = TestRepo::with_handoff();
    let root = repo.path();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let repo_ref = &repo;
    runtime.block_on(async move {
        let transport =
            TokioChildProcess::new(tokio::process::Command::new(bin()).configure(|cmd| {
                cmd.arg("mcp")
                    .current_dir(&root)
                    .env_clear()
                    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                    .env("HOME", &root)
                    .env("GIT_CONFIG_GLOBAL", "/dev/null")
                    .env("GIT_CONFIG_NOSYSTEM", "1")
                    .env("GIT_AUTHOR_NAME", "Test Author")
                    .env("GIT_AUTHOR_EMAIL", "author@test.invalid")
                    .env("GIT_COMMITTER_NAME", "Test Committer")
                    .env("GIT_COMMITTER_EMAIL", "committer@test.invalid")
                    .env("AAHP_NOW", NOW);
            }))
            .unwrap();
        let client = ().serve(transport).await.expect("initialize");
        let info = client.peer_info().expect("server info");
        assert_eq!(
            info.server_info.as_ref().map(|i| i.name.as_str()),
            Some("git-aahp")
        );

        let tools = client.list_all_tools().await.unwrap();
        let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "begin",
                "commit",
                "context",
                "lint",
                "recover",
                "review",
                "status",
                "task_add",
                "task_claim",
                "task_done",
                "task_list",
                "verify"
            ]
        );

        // status answers the document `status --json` prints.
        let status = client
            .call_tool(CallToolRequestParams::new("status"))
            .await
            .unwrap();
        let doc: serde_json::Value = serde_json::from_str(&text(&status)).unwrap();
        assert_eq!(doc["command"], "status");
        assert_eq!(doc["schema_version"], 1);

        // begin takes the lock for this client.
        let begin = client
            .call_tool(
                CallToolRequestParams::new("begin")
                    .with_arguments(args(serde_json::json!({"agent": "mcp-test"}))),
            )
            .await
            .unwrap();
        assert_ne!(begin.is_error, Some(true), "{}", text(&begin));
        let started: serde_json::Value = serde_json::from_str(&text(&begin)).unwrap();
        assert_eq!(started["command"], "begin");
        assert!(root.join(".ai/handoff/HANDOFF.lock").exists());

        // Recover refuses to apply before the plan was shown.
        let blind = client
            .call_tool(
                CallToolRequestParams::new("recover")
                    .with_arguments(args(serde_json::json!({"apply": true}))),
            )
            .await
            .unwrap();
        assert_eq!(blind.is_error, Some(true));

        // A task added under the client's own lock.
        let task = client
            .call_tool(
                CallToolRequestParams::new("task_add")
                    .with_arguments(args(serde_json::json!({"title": "--not-an-option"}))),
            )
            .await
            .unwrap();
        assert_ne!(task.is_error, Some(true), "{}", text(&task));

        // Edit, then commit through the server: one commit, the lock released.
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
        let status_md = std::fs::read_to_string(root.join(".ai/handoff/STATUS.md")).unwrap();
        std::fs::write(
            root.join(".ai/handoff/STATUS.md"),
            status_md.replace("No project work has been recorded yet.", "Added f.")
                + "\n- src/lib.rs added\n",
        )
        .unwrap();
        repo_ref.git(&["add", "src/lib.rs"]);
        let commit = client
            .call_tool(CallToolRequestParams::new("commit").with_arguments(args(
                serde_json::json!({"message": "Add f", "log": "Added f"}),
            )))
            .await
            .unwrap();
        assert_ne!(commit.is_error, Some(true), "{}", text(&commit));
        let committed: serde_json::Value = serde_json::from_str(&text(&commit)).unwrap();
        assert_eq!(committed["command"], "commit");
        assert!(!root.join(".ai/handoff/HANDOFF.lock").exists());

        // A check that fails is an error result holding the same document.
        let review = client
            .call_tool(
                CallToolRequestParams::new("review")
                    .with_arguments(args(serde_json::json!({"base": "no-such-rev"}))),
            )
            .await
            .unwrap();
        assert_eq!(review.is_error, Some(true));
        let err: serde_json::Value = serde_json::from_str(&text(&review)).unwrap();
        assert_eq!(err["error"]["exit_code"], 2);

        client.cancel().await.unwrap();
    });
    assert_eq!(repo.git(&["log", "-1", "--format=%s"]).trim(), "Add f");
    let tasks = repo.aahp(&["task", "list", "--json"]).json();
    assert!(tasks.to_string().contains("--not-an-option"), "{tasks}");
}
