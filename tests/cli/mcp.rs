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

/// `git aahp mcp` started in `root` with the hermetic environment, as a client's transport.
fn server(root: &std::path::Path) -> TokioChildProcess {
    TokioChildProcess::new(tokio::process::Command::new(bin()).configure(|cmd| {
        cmd.arg("mcp")
            .current_dir(root)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Test Author")
            .env("GIT_AUTHOR_EMAIL", "author@test.invalid")
            .env("GIT_COMMITTER_NAME", "Test Committer")
            .env("GIT_COMMITTER_EMAIL", "committer@test.invalid")
            .env("AAHP_NOW", NOW);
    }))
    .unwrap()
}

/// The single-threaded runtime a test drives its MCP clients on.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn mcp_server_lists_its_tools_and_runs_a_session_round_trip() {
    let repo = TestRepo::with_handoff();
    let root = repo.path();
    let runtime = runtime();
    let repo_ref = &repo;
    runtime.block_on(async move {
        let transport = server(&root);
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

/// Calls a tool; the result's text must be a JSON document that does not hold `secret`.
async fn call(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    secret: &str,
    name: &'static str,
    params: serde_json::Value,
) -> (Option<bool>, serde_json::Value) {
    let result = client
        .call_tool(CallToolRequestParams::new(name).with_arguments(args(params)))
        .await
        .unwrap();
    let body = text(&result);
    assert!(
        !body.contains(&secret[4..]),
        "{name} leaked the token: {body}"
    );
    (result.is_error, serde_json::from_str(&body).unwrap())
}

/// Each read and task tool answers the document its command prints with `--json`, through
/// the same output boundary: a secret planted in the handoff never reaches the client.
#[test]
fn mcp_read_and_task_tools_answer_their_json_documents_redacted() {
    let repo = TestRepo::with_handoff();
    let secret = format!("gh{}_{}", "p", "hGAk4wT9zQ2mX7cV1bN8sD3fJ6kL0pR5uY2e");
    let status = repo.read(".ai/handoff/STATUS.md");
    repo.write(
        ".ai/handoff/STATUS.md",
        status.replacen(
            "<!-- /SECTION: summary -->",
            &format!("The deploy token is {secret}.\n<!-- /SECTION: summary -->"),
            1,
        ),
    );
    repo.aahp(&["task", "add", "Write the importer"])
        .assert_code(0);
    let root = repo.path();
    let runtime = runtime();
    runtime.block_on(async move {
        let client = ().serve(server(&root)).await.expect("initialize");
        let (err, doc) = call(
            &client,
            &secret,
            "context",
            serde_json::json!({"level": "full", "budget": 600, "for": "debug"}),
        )
        .await;
        assert_ne!(err, Some(true), "{doc}");
        assert_eq!(doc["command"], "context");
        assert_eq!(doc["budget"], 600);
        assert_eq!(doc["purpose"], "debug");
        assert!(doc["used_tokens"].as_u64().unwrap() <= 600, "{doc}");
        assert!(
            doc.to_string().contains("(40 chars)"),
            "the redacted form: {doc}"
        );

        // The planted token is a blocking finding: lint and verify are error results that
        // still carry the document.
        let (err, doc) = call(&client, &secret, "lint", serde_json::json!({})).await;
        assert_eq!(err, Some(true));
        assert_eq!(doc["command"], "lint");
        assert!(doc.to_string().contains("STATUS.md"), "{doc}");
        let (err, doc) = call(&client, &secret, "verify", serde_json::json!({})).await;
        assert_eq!(err, Some(true));
        assert_eq!(doc["command"], "verify");

        let (err, doc) = call(&client, &secret, "task_list", serde_json::json!({})).await;
        assert_ne!(err, Some(true), "{doc}");
        assert_eq!(doc["command"], "task");
        assert!(doc.to_string().contains("Write the importer"), "{doc}");
        let id = doc["tasks"][0]["id"].as_str().unwrap().to_string();
        let (err, doc) = call(
            &client,
            &secret,
            "task_claim",
            serde_json::json!({"id": id, "agent": "mcp-b"}),
        )
        .await;
        assert_ne!(err, Some(true), "{doc}");
        let (err, doc) = call(
            &client,
            &secret,
            "task_done",
            serde_json::json!({"id": id, "agent": "mcp-b"}),
        )
        .await;
        assert_ne!(err, Some(true), "{doc}");
        let (_, doc) = call(
            &client,
            &secret,
            "task_list",
            serde_json::json!({"all": true}),
        )
        .await;
        assert!(doc.to_string().contains("done"), "{doc}");
        client.cancel().await.unwrap();
    });
}

/// Review s23 #13: a connection that never called `begin` runs its commands as a session
/// of its own, not as the session the worktree recorded (another client's): that client's
/// lock is exit 3 to it, and its own session round trip still works.
#[test]
fn mcp_a_connection_without_begin_cannot_use_another_clients_lock() {
    let repo = TestRepo::with_handoff();
    let root = repo.path();
    let runtime = runtime();
    let repo_ref = &repo;
    runtime.block_on(async move {
        let a = ().serve(server(&root)).await.expect("initialize A");
        let b = ().serve(server(&root)).await.expect("initialize B");
        let begin = a
            .call_tool(
                CallToolRequestParams::new("begin")
                    .with_arguments(args(serde_json::json!({"agent": "claude"}))),
            )
            .await
            .unwrap();
        assert_ne!(begin.is_error, Some(true), "{}", text(&begin));

        // B has not begun: A's lock is held by someone else.
        let task = b
            .call_tool(
                CallToolRequestParams::new("task_add")
                    .with_arguments(args(serde_json::json!({"title": "from connection B"}))),
            )
            .await
            .unwrap();
        assert_eq!(task.is_error, Some(true), "{}", text(&task));
        let doc: serde_json::Value = serde_json::from_str(&text(&task)).unwrap();
        assert_eq!(doc["error"]["exit_code"], 3, "{doc}");

        std::fs::write(root.join("a.txt"), "work of A\n").unwrap();
        repo_ref.git(&["add", "a.txt"]);
        let status_md = std::fs::read_to_string(root.join(".ai/handoff/STATUS.md")).unwrap();
        std::fs::write(
            root.join(".ai/handoff/STATUS.md"),
            status_md.replace("No project work has been recorded yet.", "A changed a.txt.")
                + "\n- a.txt added\n",
        )
        .unwrap();
        let commit = b
            .call_tool(CallToolRequestParams::new("commit").with_arguments(args(
                serde_json::json!({"message": "committed by connection B", "log": "B"}),
            )))
            .await
            .unwrap();
        assert_eq!(commit.is_error, Some(true), "{}", text(&commit));
        let doc: serde_json::Value = serde_json::from_str(&text(&commit)).unwrap();
        assert_eq!(doc["error"]["exit_code"], 3, "{doc}");
        assert!(root.join(".ai/handoff/HANDOFF.lock").exists());

        // A's own session ends as before.
        let commit = a
            .call_tool(CallToolRequestParams::new("commit").with_arguments(args(
                serde_json::json!({"message": "committed by connection A", "log": "A"}),
            )))
            .await
            .unwrap();
        assert_ne!(commit.is_error, Some(true), "{}", text(&commit));
        assert!(!root.join(".ai/handoff/HANDOFF.lock").exists());
        a.cancel().await.unwrap();
        b.cancel().await.unwrap();
    });
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        "committed by connection A"
    );
    let tasks = repo.aahp(&["task", "list", "--json"]).json();
    assert!(!tasks.to_string().contains("from connection B"), "{tasks}");
}

/// Review s30 #7: the SDK drops a line it cannot read, so a client that sent one waited for
/// ever. Every line gets its answer: a Parse error for what is not JSON, an Invalid Request
/// (with the id when it can be read) for what is not a request, nests too deep or is too
/// long; and a title too long for the command line reaches the command, which refuses it.
#[test]
fn mcp_answers_every_request_line_it_cannot_read() {
    let repo = TestRepo::with_handoff();
    let mut input: Vec<u8> = Vec::new();
    let mut line = |bytes: &[u8]| {
        input.extend_from_slice(bytes);
        input.push(b'\n');
    };
    line(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#);
    line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    line(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status""#);
    line(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"task_add\",\"arguments\":{\"title\":\"a\xffb\"}}}");
    line(
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{"x":{}{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        )
        .as_bytes(),
    );
    line(
        format!(
            r#"{{"jsonrpc":"2.0","id":4,"x":"{}"}}"#,
            "x".repeat(50 << 20)
        )
        .as_bytes(),
    );
    line(br#"{"jsonrpc":"2.0","id":"five","params":[]}"#);
    line(
        format!(
            r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"task_add","arguments":{{"title":"{}"}}}}}}"#,
            "t".repeat(1 << 20)
        )
        .as_bytes(),
    );
    line(br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#);
    let out = repo.aahp_with_stdin(&["mcp"], &input);
    out.assert_code(0);
    let answers: Vec<serde_json::Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let error = |id: serde_json::Value| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .map(|a| (a["error"]["code"].clone(), a["error"]["message"].clone()))
    };
    let anonymous: Vec<(i64, String)> = answers
        .iter()
        .filter(|a| a["id"].is_null())
        .map(|a| {
            (
                a["error"]["code"].as_i64().unwrap(),
                a["error"]["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        anonymous.iter().filter(|(c, _)| *c == -32700).count(),
        2,
        "{anonymous:?}"
    );
    assert!(
        anonymous
            .iter()
            .any(|(c, m)| *c == -32600 && m.contains("longer than 8 MiB")),
        "{anonymous:?}"
    );
    assert_eq!(error(3.into()).unwrap().0, -32600);
    assert_eq!(error("five".into()).unwrap().0, -32600);
    let title = answers
        .iter()
        .find(|a| a["id"] == 6)
        .expect("an answer to 6");
    assert_eq!(title["result"]["isError"], true, "{title}");
    assert!(
        title["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("the title is 1048576 characters; the manifest allows at most 200"),
        "{title}"
    );
    assert!(
        answers
            .iter()
            .any(|a| a["id"] == 7 && a["result"]["tools"].is_array()),
        "{out}"
    );
}
