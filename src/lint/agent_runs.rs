//! What an agent configuration runs and grants (review s27 #1, #2): the commands it starts
//! (hooks, MCP and language servers, helper commands, a cloud agent's setup), the files of
//! the repository those commands run (a hook's script, whose output the agent reads; a
//! server's code, whose tool descriptions it reads), and the settings that hand the agent
//! or its traffic to someone else (an environment that redirects the model or loads code,
//! blanket permissions, plugins). The scripts are judged as instruction files are; a range
//! that adds a grant, or changes a script a configuration runs, is shown to a reviewer.

use serde_json::Value;

/// A file of the repository a configuration's command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// Repository-relative, as the harness resolves it.
    pub path: String,
    /// What runs it, as a reviewer reads it ("a `SessionStart` hook", "the MCP server `x`").
    pub by: String,
}

/// One command a configuration starts: who starts it and its words (a command line, or a
/// program and its arguments).
struct Command {
    by: String,
    /// How the grant reads ("a `SessionStart` hook running `…`"), `None` when the grant is
    /// told otherwise (a server, with its own line).
    grant: Option<String>,
    words: Vec<String>,
    /// The directory it runs in, relative to the project (an MCP server's `cwd`).
    cwd: Option<String>,
}

/// Why an agent configuration cannot be read as its harness reads it ([`readable`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// The line (from 1) where reading stopped, when known.
    pub line: Option<usize>,
    /// What stopped it.
    pub why: String,
    /// How to make the file one the gate can read.
    pub fix: String,
}

/// `Err` when the configuration at `path` cannot be read as its harness reads it, saying
/// where and how to make it readable: what it runs cannot be seen then, and a gate that
/// passed it would pass scripts it never read (session 30 #1). A blank file runs nothing,
/// and a file named as prose (`.md`, `.txt`) in a directory of configurations is not read
/// as one by its harness.
pub fn readable(path: &str, text: &str) -> Result<(), Unreadable> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    if ["md", "markdown", "mdc", "txt"]
        .iter()
        .any(|p| ext.eq_ignore_ascii_case(p))
    {
        return Ok(());
    }
    read(path, text).map(drop)
}

/// The configuration's text read as its harness reads it ([`read`]); `None` when it cannot
/// be: its text was judged as text, and the gate refuses it ([`readable`]).
fn value(path: &str, text: &str) -> Option<Value> {
    read(path, text).ok()
}

/// The configuration's text read as its harness reads it: TOML, YAML, an environment file,
/// or JSON with comments (YAML when it is not JSON and its name allows both, as Roo's modes
/// file). A blank file is empty.
fn read(path: &str, text: &str) -> Result<Value, Unreadable> {
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "toml" => toml_read(text),
        "yaml" | "yml" => yaml_read(text),
        "env" if name == ".env" => Ok(env_value(text)),
        "json" | "jsonc" | "hook" => jsonc_read(text),
        _ => jsonc_read(text).or_else(|json| {
            yaml_read(text).map_err(|yaml| Unreadable {
                line: json.line,
                why: format!(
                    "neither JSON nor YAML: as JSON, {}; as YAML, {}",
                    json.why, yaml.why
                ),
                fix: "make it valid JSON or YAML".into(),
            })
        }),
    }
}

/// JSON with comments read as the harnesses' `JSON.parse` reads it
/// ([`super::json::read_jsonc`]).
fn jsonc_read(text: &str) -> Result<Value, Unreadable> {
    super::json::read_jsonc(text).map_err(|e| Unreadable {
        line: Some(e.line),
        why: e.why,
        fix: format!(
            "make it valid JSON (comments and trailing commas allowed, arrays and objects \
             nested at most {} deep)",
            super::json::MAX_JSON_DEPTH
        ),
    })
}

/// True when `text` holds more than [`MAX_YAML_ALIASES`] YAML alias references, or fewer
/// that copy so much (aliases of aliases of a long list) that its values would not fit in
/// memory (review s29b #5: four levels of four aliases over a 200,000-item list took 13 GB).
fn too_many_aliases(text: &str) -> bool {
    let count = alias_count(text);
    count > MAX_YAML_ALIASES || count > 0 && super::agent_config::yaml_alias_bomb(text)
}

/// The YAML alias references (`*name` after a blank, a bracket, a comma or a colon) in `text`.
fn alias_count(text: &str) -> usize {
    let b = text.as_bytes();
    (0..b.len())
        .filter(|&i| {
            b[i] == b'*'
                && (i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'[' | b'{' | b',' | b':'))
                && b.get(i + 1)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        })
        .count()
}

/// A TOML document as JSON values (dates as their text).
pub(super) fn toml_value(text: &str) -> Option<Value> {
    toml_read(text).ok()
}

fn toml_read(text: &str) -> Result<Value, Unreadable> {
    let doc = text
        .parse::<toml_edit::DocumentMut>()
        .map_err(|e| Unreadable {
            line: e.span().map(|s| line_at(text, s.start)),
            why: format!("not valid TOML: {}", e.message().trim_end()),
            fix: "make it valid TOML".into(),
        })?;
    Ok(toml_table(doc.as_table()))
}

/// The line (from 1) of byte `at` of `text`.
fn line_at(text: &str, at: usize) -> usize {
    1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..at.min(text.len())]).count()
}

fn toml_table(t: &toml_edit::Table) -> Value {
    Value::Object(
        t.iter()
            .map(|(k, i)| (k.to_string(), toml_item(i)))
            .collect(),
    )
}

fn toml_item(item: &toml_edit::Item) -> Value {
    match item {
        toml_edit::Item::None => Value::Null,
        toml_edit::Item::Value(v) => toml_plain(v),
        toml_edit::Item::Table(t) => toml_table(t),
        toml_edit::Item::ArrayOfTables(a) => Value::Array(a.iter().map(toml_table).collect()),
    }
}

fn toml_plain(v: &toml_edit::Value) -> Value {
    match v {
        toml_edit::Value::String(s) => Value::String(s.value().clone()),
        toml_edit::Value::Integer(i) => Value::from(*i.value()),
        toml_edit::Value::Float(f) => Value::from(*f.value()),
        toml_edit::Value::Boolean(b) => Value::Bool(*b.value()),
        toml_edit::Value::Datetime(d) => Value::String(d.value().to_string()),
        toml_edit::Value::Array(a) => Value::Array(a.iter().map(toml_plain).collect()),
        toml_edit::Value::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_string(), toml_plain(v)))
                .collect(),
        ),
    }
}

/// Alias references a YAML configuration may hold: each copies its anchor's node, so a few
/// nested ones multiply (review s27 #8); 16 bound a read to a few hundred copies.
const MAX_YAML_ALIASES: usize = 16;

/// The first YAML document as JSON values; `None` when it does not parse or holds more
/// than [`MAX_YAML_ALIASES`] aliases.
fn yaml_value(text: &str) -> Option<Value> {
    yaml_read(text).ok()
}

fn yaml_read(text: &str) -> Result<Value, Unreadable> {
    if too_many_aliases(text) {
        return Err(Unreadable {
            line: None,
            why: format!(
                "YAML whose aliases copy too much (more than {MAX_YAML_ALIASES}, or past what \
                 fits in memory)"
            ),
            fix: "write the values out instead of aliasing them".into(),
        });
    }
    let docs = yaml_rust2::YamlLoader::load_from_str(text).map_err(|e| Unreadable {
        line: Some(e.marker().line()),
        why: format!("not valid YAML: {}", e.info()),
        fix: "make it valid YAML".into(),
    })?;
    Ok(docs.first().map_or(Value::Null, yaml_plain))
}

fn yaml_plain(y: &yaml_rust2::Yaml) -> Value {
    use yaml_rust2::Yaml;
    match y {
        Yaml::String(s) | Yaml::Real(s) => Value::String(s.clone()),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Array(items) => Value::Array(items.iter().map(yaml_plain).collect()),
        Yaml::Hash(map) => Value::Object(
            map.iter()
                .filter_map(|(k, v)| {
                    let key = match k {
                        Yaml::String(s) | Yaml::Real(s) => s.clone(),
                        Yaml::Integer(i) => i.to_string(),
                        Yaml::Boolean(b) => b.to_string(),
                        _ => return None,
                    };
                    Some((key, yaml_plain(v)))
                })
                .collect(),
        ),
        Yaml::Null | Yaml::BadValue | Yaml::Alias(_) => Value::Null,
    }
}

/// An environment file (`KEY=value` lines, `export` and quotes allowed) as `{"env": {…}}`.
fn env_value(text: &str) -> Value {
    let mut env = serde_json::Map::new();
    for line in text.lines() {
        let line = line.trim();
        let line = line.strip_prefix("export ").unwrap_or(line);
        if line.starts_with('#') {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                .unwrap_or(v);
            env.insert(k.trim().to_string(), Value::String(v.to_string()));
        }
    }
    let mut out = serde_json::Map::new();
    out.insert("env".into(), Value::Object(env));
    Value::Object(out)
}

/// Every `command` string below `v`.
fn commands_below(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, item) in map {
                match item.as_str() {
                    Some(c) if k == "command" => out.push(c.to_string()),
                    _ => commands_below(item, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| commands_below(i, out)),
        _ => {}
    }
}

/// A string, or the strings of a list, as words.
fn words(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// The servers a configuration declares, by name: a map of name to server, or a list of
/// servers with a `name` (Continue). Entries that are not objects are settings, not servers.
fn servers(v: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    for key in [
        "mcpServers",
        "servers",
        "mcp",
        "context_servers",
        "mcp_servers",
    ] {
        let mut at = v.get(key);
        // VS Code's user settings hold them one level down.
        if key == "mcp"
            && let Some(inner) = at.and_then(|m| m.get("servers"))
        {
            at = Some(inner);
        }
        match at {
            Some(Value::Object(map)) => {
                for (name, server) in map {
                    if server.is_object() {
                        out.push((name.clone(), server));
                    }
                }
            }
            Some(Value::Array(items)) => {
                for server in items.iter().filter(|s| s.is_object()) {
                    let name = server.get("name").and_then(Value::as_str).unwrap_or("");
                    out.push((name.to_string(), server));
                }
            }
            _ => {}
        }
    }
    out
}

/// How a server (or language server) starts: its command (a string, a list, or Zed's
/// `{path, args}`) and arguments.
fn server_words(server: &Value) -> Vec<String> {
    let command = server.get("command");
    let mut run = match command {
        Some(Value::Object(c)) => {
            let mut w = words(c.get("path"));
            w.extend(words(c.get("args")));
            w
        }
        other => words(other),
    };
    run.extend(words(server.get("args")));
    run
}

/// The commands below a hook's `spec`, each run by `by`.
fn hook_commands(by: &str, spec: &Value, out: &mut Vec<Command>) {
    let mut found = Vec::new();
    commands_below(spec, &mut found);
    for c in found {
        out.push(Command {
            by: by.to_string(),
            grant: Some(format!("{by} running `{c}`")),
            words: vec![c],
            cwd: None,
        });
    }
}

/// The commands the configuration at `path` starts.
fn commands(path: &str, v: &Value) -> Vec<Command> {
    let mut out = Vec::new();
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let line = |c: String| vec![c];
    match v.get("hooks") {
        Some(Value::Object(hooks)) => {
            for (event, spec) in hooks {
                hook_commands(&format!("a {event} hook"), spec, &mut out);
            }
        }
        // Kiro's hook files: a list of hooks, each with its trigger.
        Some(Value::Array(hooks)) => {
            for h in hooks {
                let event = h
                    .get("trigger")
                    .or_else(|| h.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                hook_commands(&format!("a {event} hook"), h, &mut out);
            }
        }
        _ => {}
    }
    // A Kiro IDE hook file is one hook.
    if lower.contains(".kiro/hooks/") && v.get("hooks").is_none() {
        hook_commands("a hook", v, &mut out);
    }
    for (server, spec) in servers(v) {
        out.push(Command {
            by: format!("the MCP server `{server}`"),
            grant: None,
            words: server_words(spec),
            cwd: spec.get("cwd").and_then(Value::as_str).map(str::to_string),
        });
    }
    // Commands some harnesses run for the agent: Claude Code's helpers and status line,
    // Gemini CLI's tool discovery and MCP server command (current and earlier names).
    for key in [
        "/apiKeyHelper",
        "/awsAuthRefresh",
        "/awsCredentialExport",
        "/otelHeadersHelper",
        "/statusLine/command",
        "/tools/discoveryCommand",
        "/tools/callCommand",
        "/toolDiscoveryCommand",
        "/toolCallCommand",
        "/mcp/serverCommand",
        "/mcpServerCommand",
    ] {
        if let Some(c) = v.pointer(key).and_then(Value::as_str) {
            let shown = key
                .trim_start_matches('/')
                .replace("/command", "")
                .replace('/', ".");
            out.push(Command {
                by: shown.clone(),
                grant: Some(format!("{shown} running `{c}`")),
                words: line(c.to_string()),
                cwd: None,
            });
        }
    }
    // Language servers and formatters (opencode, Crush) run commands too.
    for key in ["lsp", "formatter"] {
        if let Some(Value::Object(map)) = v.get(key) {
            for (n, spec) in map.iter().filter(|(_, s)| s.get("command").is_some()) {
                let w = server_words(spec);
                let what = if key == "lsp" {
                    "language server"
                } else {
                    "formatter"
                };
                out.push(Command {
                    by: format!("the {what} `{n}`"),
                    grant: Some(format!("the {what} `{n}` (runs `{}`)", w.join(" "))),
                    words: w,
                    cwd: None,
                });
            }
        }
    }
    // Cursor's cloud agents: the setup and start commands, and the terminals.
    if name == "environment.json" {
        for key in ["install", "start"] {
            if let Some(c) = v.get(key).and_then(Value::as_str) {
                out.push(Command {
                    by: format!("the Cursor environment's {key} command"),
                    grant: Some(format!("the Cursor environment's {key} command `{c}`")),
                    words: line(c.to_string()),
                    cwd: None,
                });
            }
        }
        if let Some(Value::Array(terms)) = v.get("terminals") {
            for t in terms {
                if let Some(c) = t.get("command").and_then(Value::as_str) {
                    out.push(Command {
                        by: "a Cursor environment terminal".into(),
                        grant: Some(format!("a Cursor environment terminal running `{c}`")),
                        words: line(c.to_string()),
                        cwd: None,
                    });
                }
            }
        }
    }
    out
}

/// Environment variables that send the model's traffic elsewhere or load code into what
/// runs (exact names; any `*_BASE_URL`, `*_API_BASE` too).
const RISKY_ENV: &[&str] = &[
    "NODE_OPTIONS",
    "NODE_PATH",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONHOME",
    "RUBYOPT",
    "PERL5OPT",
    "PERL5LIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "BASH_ENV",
    "ENV",
    "ZDOTDIR",
    "PROMPT_COMMAND",
    "PATH",
    "GIT_SSH_COMMAND",
    "GIT_EXEC_PATH",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NODE_TLS_REJECT_UNAUTHORIZED",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "ANTHROPIC_CUSTOM_HEADERS",
    "GEMINI_SYSTEM_MD",
    // The agent's shell and what it sends or installs (review s27b #7).
    "CLAUDE_CODE_SHELL_PREFIX",
    "CLAUDE_CODE_SHELL",
    "SHELL",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_LOG_USER_PROMPTS",
    "NPM_CONFIG_REGISTRY",
    "YARN_NPM_REGISTRY_SERVER",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "UV_INDEX_URL",
    "UV_EXTRA_INDEX_URL",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
];

fn risky_env(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    RISKY_ENV.contains(&upper.as_str())
        || upper.ends_with("_BASE_URL")
        || upper.ends_with("_API_BASE")
        || upper.ends_with("_API_URL")
}

/// The risky variables of an environment map, with the grant line of each.
fn env_grants(env: Option<&Value>, whose: &str, out: &mut Vec<(String, String)>) {
    if let Some(Value::Object(env)) = env {
        for (k, v) in env.iter().filter(|(k, _)| risky_env(k)) {
            let val = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            out.push((
                val.clone(),
                format!("the environment variable {k}=`{val}`{whose}"),
            ));
        }
    }
}

/// True for a `permissions.allow` entry that allows a shell or the network broadly, or files
/// outside the project.
fn broad_allow(entry: &str) -> bool {
    let (tool, spec) = match entry.split_once('(') {
        Some((t, rest)) => (t.trim(), rest.trim_end_matches(')').trim()),
        None => (entry.trim(), ""),
    };
    let only_wild = spec.chars().all(|c| matches!(c, '*' | ':' | ' '));
    match tool {
        "Bash" => {
            let first = spec.split([' ', ':']).next().unwrap_or("");
            only_wild
                || (spec.contains('*')
                    && ([
                        "sh", "bash", "zsh", "curl", "wget", "python", "python3", "node", "npx",
                        "ruby", "perl", "eval", "nc", "ssh", "scp", "env", "xargs", "sudo", "bunx",
                        "uvx", "pwsh", "bun", "deno", "php", "lua", "powershell", "cmd",
                    ]
                    .contains(&program(first))
                    // An interpreter named by its version (`python3.12:*`), or a tool's
                    // sub-command that runs whatever it is given (`uv run`, `docker run`).
                    || ["python", "node", "ruby", "perl", "php"]
                        .iter()
                        .any(|i| program(first).starts_with(i))
                    || runs_anything(program(first), spec)))
        }
        "WebFetch" => only_wild || spec == "domain:*",
        // Outside the project, or over the agent's own configuration (it could grant itself
        // more: `Edit(.claude/**)`).
        "Read" | "Edit" | "Write" | "MultiEdit" => {
            spec.starts_with('~')
                || spec.starts_with("//")
                || spec.contains("..")
                || tool != "Read" && spec.trim_start_matches("./").starts_with(".claude")
        }
        _ => false,
    }
}

/// A command's program without its directory (`/bin/bash` is `bash`).
fn program(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// True when `spec` (a `Bash(…)` rule of `tool`) lets the agent run whatever it names through
/// a runner sub-command: `uv run`, `docker run`, `npm exec`, `cargo run`…
fn runs_anything(tool: &str, spec: &str) -> bool {
    let words: Vec<&str> = spec.split([' ', ':']).filter(|w| !w.is_empty()).collect();
    // The runner followed by the wildcard alone: `npm run:*` is any script, `npm run test:*`
    // only the tests.
    let sub = match words.as_slice() {
        [_, sub] => sub.trim_end_matches('*'),
        [_, sub, "*"] => sub,
        _ => return false,
    };
    matches!(
        (tool, sub),
        (
            "uv" | "npm" | "pnpm" | "yarn" | "cargo" | "go" | "poetry" | "pipenv",
            "run"
        ) | ("npm" | "pnpm", "exec")
            | ("pnpm" | "yarn", "dlx")
            | ("docker" | "podman", "run" | "exec")
    )
}

/// What the configuration at `path` grants, one line each: its hooks, servers and helper
/// commands, its risky environment, blanket permissions, plugins and marketplaces. Nothing
/// for a file that cannot be read as its format: its text was judged as text.
pub fn grants(path: &str, text: &str) -> Vec<String> {
    let Some(v) = value(path, text) else {
        // Not read for fear of its aliases' copies: shown rather than passed unread.
        if too_many_aliases(text) && super::agent_config::parse_jsonc(text).is_err() {
            return vec![format!(
                "a YAML configuration whose aliases copy too much (more than \
                 {MAX_YAML_ALIASES}, or past what fits in memory), not read for what it runs \
                 or grants"
            )];
        }
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for c in commands(path, &v) {
        if let Some(g) = c.grant {
            out.push(g);
        }
    }
    for (server, spec) in servers(&v) {
        let run = server_words(spec);
        let start = if run.is_empty() {
            match spec
                .get("url")
                .or_else(|| spec.get("httpUrl"))
                .or_else(|| spec.get("serverUrl"))
                .and_then(Value::as_str)
            {
                Some(url) => format!("at {url}"),
                None => "no command or address given".into(),
            }
        } else {
            format!("runs `{}`", run.join(" "))
        };
        out.push(format!("the MCP server `{server}` ({start})"));
    }
    let mut env = Vec::new();
    env_grants(v.get("env"), "", &mut env);
    env_grants(v.pointer("/shell_environment_policy/set"), "", &mut env);
    for (server, spec) in servers(&v) {
        let whose = format!(" for the MCP server `{server}`");
        env_grants(spec.get("env"), &whose, &mut env);
        env_grants(spec.get("environment"), &whose, &mut env);
    }
    out.extend(env.into_iter().map(|(_, g)| g));
    out.extend(permission_grants(&v));
    out.sort();
    out.dedup();
    out
}

/// Permissions and trust a configuration hands out without asking.
fn permission_grants(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let truthy = |p: &str| v.pointer(p).and_then(Value::as_bool) == Some(true);
    let text = |p: &str| v.pointer(p).and_then(Value::as_str);
    if text("/permissions/defaultMode") == Some("bypassPermissions") {
        out.push("permissions.defaultMode bypassPermissions (no prompt before any tool)".into());
    }
    for entry in words(v.pointer("/permissions/allow")) {
        if broad_allow(&entry) {
            out.push(format!(
                "permissions.allow `{entry}` (a shell, the network or files outside the \
                 project without asking)"
            ));
        }
    }
    for dir in words(v.pointer("/permissions/additionalDirectories")) {
        out.push(format!(
            "permissions.additionalDirectories `{dir}` (files outside the project)"
        ));
    }
    if truthy("/enableAllProjectMcpServers") {
        out.push("enableAllProjectMcpServers (every project MCP server starts unasked)".into());
    }
    for s in words(v.pointer("/enabledMcpjsonServers")) {
        out.push(format!("the project MCP server `{s}` enabled unasked"));
    }
    if let Some(Value::Object(p)) = v.get("enabledPlugins") {
        for (name, on) in p {
            if on.as_bool() != Some(false) {
                out.push(format!(
                    "the plugin `{name}` enabled (its hooks, servers and commands)"
                ));
            }
        }
    }
    if let Some(Value::Object(m)) = v.get("extraKnownMarketplaces") {
        for (name, spec) in m {
            out.push(format!(
                "the plugin marketplace `{name}` ({})",
                spec.get("source")
                    .map_or_else(String::new, Value::to_string)
            ));
        }
    }
    if v.pointer("/sandbox/enabled").and_then(Value::as_bool) == Some(false) {
        out.push("sandbox.enabled false (commands run outside the sandbox)".into());
    }
    if truthy("/sandbox/allowUnsandboxedCommands") {
        out.push("sandbox.allowUnsandboxedCommands (commands may leave the sandbox)".into());
    }
    // Gemini CLI, Zed, VS Code: tools run without asking.
    for key in [
        "/tools/autoAccept",
        "/autoAccept",
        "/agent/always_allow_tool_actions",
        "/chat.tools.autoApprove",
        "/chat.tools.global.autoApprove",
    ] {
        if truthy(key) {
            out.push(format!(
                "{} (tools run without asking)",
                key.trim_start_matches('/').replace('/', ".")
            ));
        }
    }
    // Codex: no approval, no sandbox, another model provider.
    if text("/approval_policy") == Some("never") {
        out.push("approval_policy never (commands run without asking)".into());
    }
    if text("/sandbox_mode") == Some("danger-full-access") {
        out.push("sandbox_mode danger-full-access (no sandbox)".into());
    }
    if let Some(Value::Object(providers)) = v.get("model_providers") {
        for (name, p) in providers {
            if let Some(url) = p.get("base_url").and_then(Value::as_str) {
                out.push(format!("the model provider `{name}` at {url}"));
            }
        }
    }
    // opencode: plugins, and tools allowed outright.
    for p in words(v.get("plugin")) {
        out.push(format!("the opencode plugin `{p}` (code loaded at start)"));
    }
    opencode_permission(v.get("permission"), "permission", &mut out);
    if let Some(Value::Object(agents)) = v.get("agent") {
        for (name, a) in agents {
            opencode_permission(
                a.get("permission"),
                &format!("agent.{name}.permission"),
                &mut out,
            );
        }
    }
    out
}

/// An opencode `permission` that allows a shell, the network or other directories outright
/// (`"allow"` for all, or for `bash`, `webfetch`, `external_directory`, or their `*`).
fn opencode_permission(p: Option<&Value>, at: &str, out: &mut Vec<String>) {
    match p {
        Some(Value::String(s)) if s == "allow" => {
            out.push(format!("{at} allow (every tool without asking)"));
        }
        Some(Value::Object(map)) => {
            for (tool, rule) in map {
                let risky = matches!(
                    tool.as_str(),
                    "bash" | "webfetch" | "external_directory" | "*"
                );
                let allows = match rule {
                    Value::String(s) => s == "allow",
                    Value::Object(r) => r.get("*").and_then(Value::as_str) == Some("allow"),
                    _ => false,
                };
                if risky && allows {
                    out.push(format!("{at}.{tool} allow (without asking)"));
                }
            }
        }
        _ => {}
    }
}

/// Variables harnesses set to the project's directory when they run a command.
const PROJECT_VARS: &[&str] = &[
    "CLAUDE_PROJECT_DIR",
    "workspaceFolder",
    "workspaceRoot",
    "PWD",
    "extensionPath",
];

/// Interpreted script file extensions: a word ending so is a file even without a `/`.
const SCRIPT_EXTS: &[&str] = &[
    "sh", "bash", "zsh", "fish", "py", "js", "mjs", "cjs", "ts", "mts", "cts", "tsx", "rb", "pl",
    "ps1", "php", "lua",
];

/// The project directory of the configuration at `path`: the directory holding its first
/// dot-directory (`pkg` for `pkg/.claude/settings.json`), else its own directory.
fn project_dir(path: &str) -> String {
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    match parts.iter().position(|p| p.starts_with('.')) {
        Some(i) => parts[..i].join("/"),
        None => parts.join("/"),
    }
}

/// The words of a command line that may name a file, quotes and shell punctuation removed.
fn path_words(command: &str) -> Vec<String> {
    command
        .split(|c: char| {
            c.is_whitespace()
                || matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>' | '=' | ',' | '`')
        })
        .map(|w| w.replace(['"', '\''], ""))
        .filter(|w| {
            !w.is_empty()
                && (!w.starts_with('-') || w == "-m" || DIRECTORY_FLAGS.contains(&w.as_str()))
                && !w.starts_with('@')
                && !w.contains("://")
        })
        .collect()
}

/// The files of the repository the configuration at `path` (repository-relative) runs: each
/// word of a hook's, a helper's or a server's command (and of a risky environment value,
/// `NODE_OPTIONS=--require ./x.js`) that is a relative path or a script's name, resolved from
/// the project's directory (what `$CLAUDE_PROJECT_DIR`, `${workspaceFolder}` name) and from
/// the configuration's own (Cursor resolves hooks from `.cursor/`). Paths out of the
/// repository, on the `PATH`, or behind another variable are not the repository's and are
/// left out, as are modules (`python -m`). The caller keeps those the tree holds.
pub fn runs(path: &str, text: &str) -> Vec<Run> {
    let Some(v) = value(path, text) else {
        return Vec::new();
    };
    let project = project_dir(path);
    let mut out = Vec::new();
    for line in lines_of(path, &v) {
        resolve_line(&line, &project, &mut out);
    }
    out
}

/// A command line to resolve: who runs it, the line, the directory it runs in (from which
/// `cd` moves), the directories its relative words are looked up from, and those it moved to
/// before it started (an MCP server's `cwd`).
#[derive(Debug, Clone)]
struct Line {
    by: String,
    text: String,
    cwd: String,
    bases: Vec<String>,
    moved: Vec<String>,
}

/// The command lines of the configuration at `path` (read as `v`).
fn lines_of(path: &str, v: &Value) -> Vec<Line> {
    let project = project_dir(path);
    let own = path.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    let line = |by: String, text: String, cwd: Option<&str>| Line {
        by,
        text,
        cwd: project.clone(),
        bases: vec![project.clone(), own.clone()],
        moved: cwd
            .map(|c| {
                PROJECT_VARS
                    .iter()
                    .find_map(|var| {
                        c.strip_prefix(&format!("${{{var}}}/"))
                            .or_else(|| c.strip_prefix(&format!("${var}/")))
                    })
                    .unwrap_or(c)
            })
            .filter(|c| !c.starts_with(['/', '~', '$']))
            .and_then(|c| crate::handoff::resolve_link(&project, c))
            .into_iter()
            .collect(),
    };
    let mut lines: Vec<Line> = commands(path, v)
        .into_iter()
        .flat_map(|c| {
            let (by, cwd) = (c.by, c.cwd);
            c.words
                .into_iter()
                .map(|w| line(by.clone(), w, cwd.as_deref()))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut env = Vec::new();
    env_grants(v.get("env"), "", &mut env);
    for (server, spec) in servers(v) {
        let mut e = Vec::new();
        env_grants(spec.get("env"), "", &mut e);
        lines.extend(
            e.into_iter()
                .map(|(val, _)| line(format!("the MCP server `{server}`"), val, None)),
        );
    }
    lines.extend(
        env.into_iter()
            .map(|(val, _)| line("the environment".to_string(), val, None)),
    );
    lines
}

/// Adds to `out` the files of the repository `l` names (see [`runs`]); `project` is what a
/// variable naming the project's directory leads to.
fn resolve_line(l: &Line, project: &str, out: &mut Vec<Run>) {
    let by = &l.by;
    {
        let line = toplevel_spelled_as_a_variable(&l.text);
        let mut module = false;
        // Directories the command moves to (`cd tools && …`, `uv run --directory tools …`):
        // later words are looked up there too.
        let mut moved: Vec<String> = l.moved.clone();
        let mut words = path_words(&line).into_iter().peekable();
        while let Some(word) = words.next() {
            if word == "cd" || DIRECTORY_FLAGS.contains(&word.as_str()) {
                if let Some(dir) = words.next()
                    && !dir.starts_with(['/', '~', '$'])
                    && let Some(d) = crate::handoff::resolve_link(&l.cwd, &dir)
                {
                    moved.push(d);
                }
                continue;
            }
            // `python -m pkg.mod`: looked up from the working directory first, so a module
            // of the repository is its `pkg/mod.py` (or its package's `__main__.py`).
            let word = if std::mem::take(&mut module) {
                if word.contains(['/', '$']) {
                    continue;
                }
                word.replace('.', "/")
            } else {
                word
            };
            if word == "-m" {
                module = true;
                continue;
            }
            let (bases, rel) = match PROJECT_VARS.iter().find_map(|var| {
                word.strip_prefix(&format!("${{{var}}}/"))
                    .or_else(|| word.strip_prefix(&format!("${var}/")))
            }) {
                Some(rest) if rest.starts_with(TOPLEVEL) => {
                    (vec![String::new()], rest[TOPLEVEL.len()..].to_string())
                }
                Some(rest) => (vec![project.to_string()], rest.to_string()),
                None => {
                    let mut bases = l.bases.clone();
                    bases.extend(moved.iter().cloned());
                    (bases, word.clone())
                }
            };
            if rel.starts_with(['/', '~', '$', '\\']) || rel.contains('$') || rel.contains(':') {
                continue;
            }
            let ext = rel.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
            let scriptish = ext.as_deref().is_some_and(|e| SCRIPT_EXTS.contains(&e));
            if !rel.contains('/') && !scriptish && moved.is_empty() {
                continue;
            }
            for base in &bases {
                let Some(p) = crate::handoff::resolve_link(base, &rel) else {
                    continue;
                };
                if p.is_empty() || p.split('/').any(|c| c.eq_ignore_ascii_case(".git")) {
                    continue;
                }
                // What an interpreter runs for a name without its extension: `node tools/srv`
                // runs `tools/srv.js` or `tools/srv/index.js`, `python -m` a `.py`. The caller
                // keeps only the paths the tree holds.
                let mut candidates = vec![p.clone()];
                if !scriptish {
                    candidates.extend(IMPLIED.iter().map(|tail| format!("{p}{tail}")));
                }
                for path in candidates {
                    let run = Run {
                        path,
                        by: by.clone(),
                    };
                    if !out.contains(&run) {
                        out.push(run);
                    }
                }
            }
        }
    }
}

/// Options that run a command in another directory, like `cd`.
const DIRECTORY_FLAGS: &[&str] = &["--directory", "--cwd", "--prefix", "-C", "--project"];

/// What an interpreter opens for a script named without its extension, or a package named
/// by its directory.
const IMPLIED: &[&str] = &[
    ".js",
    ".mjs",
    ".cjs",
    ".ts",
    ".py",
    ".sh",
    "/index.js",
    "/index.mjs",
    "/index.ts",
    "/__main__.py",
];

/// A marker, after a project variable, for the repository's top level.
const TOPLEVEL: &str = "__aahp_toplevel__/";

/// `$(git rev-parse --show-toplevel)/x` (or in backquotes) names `x` at the repository's
/// top; `${VAR:-default}` is `${VAR}`: both are rewritten so that [`runs`] reads them as the
/// project variables it knows.
fn toplevel_spelled_as_a_variable(line: &str) -> String {
    static TOP: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?:\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\)|`\s*git\s+rev-parse\s+--show-toplevel\s*`)/")
            .expect("a valid regex")
    });
    static DEFAULTED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\$\{(\w+):?[-=][^}]*\}").expect("a valid regex")
    });
    let line = TOP.replace_all(line, "$${CLAUDE_PROJECT_DIR}/__aahp_toplevel__/");
    DEFAULTED.replace_all(&line, "$${$1}").into_owned()
}

/// What a configuration runs, followed through what its commands and scripts hand on
/// (review s27b #3, session 29 #1): a script a run shell script sources (`. tools/lib.sh`)
/// or runs (`./tools/x.sh`, `python tools/x.py`), the command of a package script (`npm run
/// hook`), of a make target, a just recipe or a task (`task x`), and a shell's `-c` string.
/// Each is resolved as the configuration's own commands are, up to [`MAX_FOLLOW_DEPTH`]
/// steps deep.
#[derive(Debug, Default)]
pub struct Followed {
    /// The files of the repository the commands run (the caller keeps those the tree holds).
    pub runs: Vec<Run>,
    /// The files that hold a command run on the way (`package.json`, a Makefile, a
    /// justfile): not judged as scripts, but what they run is theirs to change.
    pub recipes: Vec<Run>,
    /// What the gate could not follow, one sentence each, naming the command.
    pub unfollowed: Vec<String>,
}

/// How many steps (a sourced or run script, a package script, a recipe, a task, a `-c`
/// string) are followed.
pub const MAX_FOLLOW_DEPTH: usize = 4;

/// [`runs`], followed ([`Followed`]); `read` gives a file of the repository as text, `None`
/// when the tree does not hold it. Each file is read once, at most [`MAX_FOLLOW_BYTES`] in
/// all (what lies past that is said in `unfollowed`), and each recipe expanded once: the
/// work is linear in what is read.
pub fn follow(path: &str, text: &str, read: &mut dyn FnMut(&str) -> Option<String>) -> Followed {
    let Some(v) = value(path, text) else {
        return Followed::default();
    };
    let mut walk = Walk {
        project: project_dir(path),
        f: Followed::default(),
        queue: lines_of(path, &v).into_iter().map(|l| (l, 0)).collect(),
        reader: Reader {
            read,
            cache: std::collections::HashMap::new(),
            spent: 0,
        },
        read_once: std::collections::HashSet::new(),
        listed: std::collections::HashSet::new(),
        expanded: std::collections::HashSet::new(),
    };
    while walk.reader.spent <= MAX_FOLLOW_BYTES
        && let Some((line, depth)) = walk.queue.pop_front()
    {
        walk.line(&line, depth);
    }
    if walk.reader.spent > MAX_FOLLOW_BYTES {
        walk.f.unfollowed.push(format!(
            "`{path}` runs more than the gate follows ({MAX_FOLLOW_BYTES} bytes of scripts and \
             recipes); what lies past them was not followed"
        ));
    }
    walk.f
}

/// The most bytes [`follow`] reads and parses on its way (scripts, package files, recipes):
/// far above what a repository's hooks run, and a bound on the work a hostile tree can ask
/// for.
pub const MAX_FOLLOW_BYTES: usize = 4 * 1024 * 1024;

/// The files [`follow`] reads, each once, with the bytes read and parsed so far.
struct Reader<'r> {
    read: &'r mut dyn FnMut(&str) -> Option<String>,
    cache: std::collections::HashMap<String, Option<std::rc::Rc<str>>>,
    spent: usize,
}

impl Reader<'_> {
    /// The text of `path`, `None` when the tree does not hold it.
    fn text(&mut self, path: &str) -> Option<std::rc::Rc<str>> {
        if let Some(held) = self.cache.get(path) {
            return held.clone();
        }
        let held: Option<std::rc::Rc<str>> = (self.read)(path).map(std::rc::Rc::from);
        self.spent += held.as_ref().map_or(0, |t| t.len());
        self.cache.insert(path.to_string(), held.clone());
        held
    }

    fn holds(&mut self, path: &str) -> bool {
        self.text(path).is_some()
    }
}

/// The state of [`follow`].
struct Walk<'r> {
    /// What a variable naming the project's directory leads to.
    project: String,
    f: Followed,
    queue: std::collections::VecDeque<(Line, usize)>,
    reader: Reader<'r>,
    /// Scripts followed, so that each is followed once.
    read_once: std::collections::HashSet<String>,
    /// The runs of `f`, for finding one at once.
    listed: std::collections::HashSet<(String, String)>,
    /// The recipes expanded: (the file, what of it).
    expanded: std::collections::HashSet<(String, String)>,
}

impl Walk<'_> {
    /// Resolves one line `depth` steps from the configuration, and queues what it hands on.
    fn line(&mut self, line: &Line, depth: usize) {
        let mut found = Vec::new();
        resolve_line(line, &self.project, &mut found);
        for run in found {
            if !self.listed.insert((run.path.clone(), run.by.clone())) {
                continue;
            }
            if depth < MAX_FOLLOW_DEPTH
                && self.read_once.insert(run.path.clone())
                && let Some(script) = self.reader.text(&run.path)
                && super::code::lang(&run.path, &script) == Some(super::code::Lang::Shell)
            {
                self.sourced(&run, &script, depth);
                self.script(&run, &script, depth);
            }
            self.f.runs.push(run);
        }
        if depth >= MAX_FOLLOW_DEPTH {
            return;
        }
        for (cmd, runner) in runners(&line.text, &line.cwd) {
            self.runner(line, &cmd, &runner, depth);
        }
        // `sh -c "npm run x"`: the string is a command line of its own.
        for words in super::code::shell_commands(&line.text) {
            if let Some(inner) = shell_string(&words) {
                let mut inner_line = line.clone();
                inner_line.text = inner.to_string();
                self.queue.push_back((inner_line, depth + 1));
            }
        }
    }

    /// Queues the file of the repository at `path`, which `by` runs, to be resolved and
    /// followed as a command `sh <path>` from the top.
    fn hand_on(&mut self, by: String, path: &str, depth: usize) {
        self.queue.push_back((
            Line {
                by,
                text: format!("sh ./{path}"),
                cwd: String::new(),
                bases: vec![String::new()],
                moved: Vec::new(),
            },
            depth + 1,
        ));
    }

    /// Hands on ([`Walk::hand_on`]) what the tree holds of `paths`, where a script's `word`
    /// may lead (with what an interpreter adds to a name without its extension); false when
    /// it holds none of them.
    fn hand_on_held(&mut self, by: &str, word: &str, paths: Vec<String>, depth: usize) -> bool {
        let scriptish = word
            .rsplit_once('.')
            .is_some_and(|(_, e)| SCRIPT_EXTS.contains(&e.to_ascii_lowercase().as_str()));
        let mut held = false;
        for path in paths {
            let implied = IMPLIED.iter().filter(|_| !scriptish);
            let candidates =
                std::iter::once(path.clone()).chain(implied.map(|t| format!("{path}{t}")));
            for c in candidates {
                if self.read_once.contains(&c) || self.reader.holds(&c) {
                    held = true;
                    self.hand_on(by.to_string(), &c, depth);
                }
            }
        }
        held
    }

    /// The files a shell script (`run`, read as `script`) sources with `.` or `source`: each
    /// is a run of its own, followed further; one named by a variable, or that the
    /// repository does not hold, is said in `unfollowed`. A path out of the repository is
    /// not its.
    fn sourced(&mut self, run: &Run, script: &str, depth: usize) {
        static SOURCE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r"(?:^|[;&|({]\s*|\b(?:then|do|else)\s+)(?:\.|source)\s+(\S+)")
                .expect("a valid regex")
        });
        let dir = run.path.rsplit_once('/').map_or("", |(d, _)| d);
        for line in script.lines() {
            let line = line.trim_start();
            if line.starts_with('#') {
                continue;
            }
            let line = script_dir_spelled_as_a_marker(line);
            for cap in SOURCE.captures_iter(&line) {
                let arg = cap[1].replace(['"', '\''], "");
                if arg.starts_with(['/', '~']) {
                    continue;
                }
                let shown = format!("{} (sourced by `{}`)", run.by, run.path);
                if arg.contains(['$', '`']) {
                    self.f.unfollowed.push(format!(
                        "`{}`, run by {}, sources `{}`: a name the gate cannot follow",
                        run.path, run.by, &cap[1]
                    ));
                    continue;
                }
                let candidates: Vec<String> = match arg.strip_prefix(SCRIPT_DIR) {
                    Some(rest) => crate::handoff::resolve_link(dir, rest.trim_start_matches('/'))
                        .into_iter()
                        .collect(),
                    None => [self.project.as_str(), dir]
                        .iter()
                        .filter_map(|b| crate::handoff::resolve_link(b, &arg))
                        .collect(),
                };
                let mut held = false;
                for path in candidates {
                    if self.read_once.contains(&path) {
                        held = true;
                    } else if self.reader.holds(&path) {
                        held = true;
                        self.hand_on(shown.clone(), &path, depth);
                    }
                }
                if !held {
                    self.f.unfollowed.push(format!(
                        "`{}`, run by {}, sources `{}`, which the repository does not hold",
                        run.path, run.by, &cap[1]
                    ));
                }
            }
        }
    }

    /// What a shell script (`run`, read as `script`) runs itself: a script of the repository
    /// it names as the program or hands to an interpreter (`./tools/x.sh`, `bash x.sh`,
    /// `python tools/x.py`, `node x.js`), each a run of its own, followed further; a package
    /// script, recipe or task it runs, and a `sh -c` string, followed as a configuration's
    /// command is. A script named by a variable, out of the repository or that the
    /// repository does not hold is said in `unfollowed`. The script's `cd`s and its
    /// variables naming directories (`DIR=$(dirname "$0")`) are read along the way.
    fn script(&mut self, run: &Run, script: &str, depth: usize) {
        let dir = run.path.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        let by = format!("{} (run by `{}`)", run.by, run.path);
        let text = toplevel_spelled_as_a_variable(&script_dir_spelled_as_a_marker(script));
        let text = TOPLEVEL_ALONE.replace_all(&text, "$${CLAUDE_PROJECT_DIR}/__aahp_toplevel__");
        let project = self.project.clone();
        let mut cwd = project.clone();
        let mut vars: std::collections::HashMap<String, String> = std::collections::HashMap::new();
        for words in super::code::shell_commands(&text) {
            let words: Vec<String> = words.iter().map(|w| substituted(w, &vars)).collect();
            if assigns(&words, &mut vars) {
                continue;
            }
            let place = |w: &str, cwd: &str| place(w, &project, &dir, cwd);
            match hands_on(&words) {
                None => {}
                Some(Hands::Cd(to)) => {
                    if let Place::At(paths) = place(&to, &cwd)
                        && let Some(first) = paths.into_iter().next()
                    {
                        cwd = first;
                    }
                }
                Some(Hands::Line(line)) => {
                    let bases = vec![cwd.clone(), dir.clone()];
                    self.queue.push_back((
                        Line {
                            by: by.clone(),
                            text: line,
                            cwd: cwd.clone(),
                            bases,
                            moved: Vec::new(),
                        },
                        depth + 1,
                    ));
                }
                Some(Hands::Module(module)) => {
                    if let Place::At(paths) = place(&module.replace('.', "/"), &cwd) {
                        for path in paths {
                            for tail in [".py", "/__main__.py"] {
                                let file = format!("{path}{tail}");
                                if self.reader.holds(&file) {
                                    self.hand_on(by.clone(), &file, depth);
                                }
                            }
                        }
                    }
                }
                Some(Hands::Script { word, program }) => {
                    let why = match place(&word, &cwd) {
                        Place::At(paths) => (!self.hand_on_held(&by, &word, paths, depth))
                            .then_some("the repository does not hold it"),
                        // The program `/usr/bin/env`, `~/bin/tool`: not the repository's.
                        Place::Outside if program => None,
                        Place::Outside => Some("a path out of the repository"),
                        Place::Variable => Some("a script named by a variable"),
                    };
                    if let Some(why) = why {
                        self.f.unfollowed.push(format!(
                            "`{}`, run by {}, runs `{}`, which the gate cannot follow ({why})",
                            run.path,
                            run.by,
                            words.join(" ")
                        ));
                    }
                }
            }
        }
    }
}

/// `$(git rev-parse --show-toplevel)` not followed by `/` (`ROOT=$(…)`, `"$(…)"/x`).
static TOPLEVEL_ALONE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\)|`\s*git\s+rev-parse\s+--show-toplevel\s*`",
    )
    .expect("a valid regex")
});

/// A marker for the directory of the script being read.
const SCRIPT_DIR: &str = "__aahp_scriptdir__";

/// The script's own directory spelled as a shell script spells it (`$(dirname "$0")`,
/// `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)`, `${0%/*}`) replaced by [`SCRIPT_DIR`].
fn script_dir_spelled_as_a_marker(text: &str) -> std::borrow::Cow<'_, str> {
    static SPELLED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"\$\(\s*cd\s+"?\$\(\s*dirname\s+"?\$\{?(?:BASH_SOURCE(?:\[0\])?|0)\}?"?\s*\)"?\s*(?:&&|;)\s*pwd(?:\s+-P)?\s*\)|\$\(\s*dirname\s+"?\$\{?(?:BASH_SOURCE(?:\[0\])?|0)\}?"?\s*\)|\$\{(?:BASH_SOURCE(?:\[0\])?|0)%/\*\}"#,
        )
        .expect("a valid regex")
    });
    SPELLED.replace_all(text, SCRIPT_DIR)
}

/// Where a word of a script names a file: the paths of the repository it may be (from the
/// working directory `cwd`, the project's and the script's directory `dir`; from the
/// project's or the top after a variable naming them, from `dir` after [`SCRIPT_DIR`]), or
/// why it names none.
#[derive(Debug, PartialEq, Eq)]
enum Place {
    At(Vec<String>),
    Outside,
    Variable,
}

fn place(word: &str, project: &str, dir: &str, cwd: &str) -> Place {
    let project_rest = PROJECT_VARS.iter().find_map(|var| {
        word.strip_prefix(&format!("${{{var}}}"))
            .or_else(|| word.strip_prefix(&format!("${var}")))
            .filter(|r| r.is_empty() || r.starts_with('/'))
    });
    let (bases, rel): (Vec<&str>, &str) = if let Some(rest) = word.strip_prefix(SCRIPT_DIR) {
        (vec![dir], rest)
    } else if let Some(rest) = project_rest {
        let rest = rest.trim_start_matches('/');
        match rest.strip_prefix(TOPLEVEL.trim_end_matches('/')) {
            Some(top) => (vec![""], top),
            None => (vec![project], rest),
        }
    } else {
        // From the project's directory too: a `cd` in a subshell ends with it.
        (vec![cwd, project, dir], word)
    };
    if rel.contains(['$', '`']) {
        return Place::Variable;
    }
    if bases.len() > 1 && rel.starts_with(['/', '~', '\\']) {
        return Place::Outside;
    }
    let rel = rel.trim_start_matches('/');
    let mut paths: Vec<String> = Vec::new();
    for base in bases {
        if let Some(p) = crate::handoff::resolve_link(base, rel)
            && !p.is_empty()
            && !paths.contains(&p)
        {
            paths.push(p);
        }
    }
    if paths.is_empty() {
        Place::Outside
    } else {
        Place::At(paths)
    }
}

/// `$NAME/…` or `${NAME}/…` at the start of `word`, for a `NAME` the script set to a
/// directory, spelled out (once, at the start: linear).
fn substituted(word: &str, vars: &std::collections::HashMap<String, String>) -> String {
    let Some(rest) = word.strip_prefix('$') else {
        return word.to_string();
    };
    let (name, tail) = if let Some(r) = rest.strip_prefix('{') {
        let Some(split) = r.split_once('}') else {
            return word.to_string();
        };
        split
    } else {
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        rest.split_at(end)
    };
    match vars.get(name) {
        Some(value) => format!("{value}{tail}"),
        None => word.to_string(),
    }
}

/// True when `words` only set variables (`DIR=…`, `export ROOT=…`): those whose value is a
/// short name of a place ([`place`] reads it) go to `vars`.
fn assigns(words: &[String], vars: &mut std::collections::HashMap<String, String>) -> bool {
    let words = match words.first().map(String::as_str) {
        Some("export" | "local" | "readonly" | "declare" | "typeset") => &words[1..],
        _ => words,
    };
    let pairs: Vec<(&str, &str)> = words
        .iter()
        .filter_map(|w| w.split_once('='))
        .filter(|(n, _)| is_name(n))
        .collect();
    if words.is_empty() || pairs.len() != words.len() {
        return false;
    }
    for (name, value) in pairs {
        if value.len() <= 512 {
            vars.insert(name.to_string(), value.to_string());
        } else {
            vars.remove(name);
        }
    }
    true
}

/// A shell variable's name.
fn is_name(n: &str) -> bool {
    !n.is_empty()
        && !n.starts_with(|c: char| c.is_ascii_digit())
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// What one command of a script hands on ([`Walk::script`]).
#[derive(Debug, PartialEq, Eq)]
enum Hands {
    /// A script, as the program (`./x.sh`) or an interpreter's argument (`bash x.sh`).
    Script { word: String, program: bool },
    /// `python -m module`: followed when the repository holds it.
    Module(String),
    /// A command line followed as a configuration's: a runner, a `sh -c` string.
    Line(String),
    /// `cd dir`.
    Cd(String),
}

/// Options of `uv run` that take a value.
const UV_VALUED: &[&str] = &[
    "--with",
    "--with-requirements",
    "--with-editable",
    "--python",
    "-p",
    "--package",
    "--env-file",
    "--extra",
    "--group",
    "--index",
    "--default-index",
];

/// True for a word that names a file rather than a command: a path, or a script's name.
fn is_file_word(word: &str) -> bool {
    word.contains('/')
        || word
            .rsplit_once('.')
            .is_some_and(|(_, e)| SCRIPT_EXTS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Words before a command's program that are not it (`then ./x.sh`, `exec ./x.sh`).
const COMMAND_PREFIXES: &[&str] = &[
    "if", "then", "else", "elif", "while", "until", "do", "time", "!", "{", "command", "builtin",
    "exec", "nohup", "env", "sudo", "nice", "xargs",
];

/// Shells, whose `-c` runs a string.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh"];

/// The string a shell runs with `-c` (`bash -lc '…'`), when `words` are such a command.
fn shell_string(words: &[String]) -> Option<&str> {
    let at = program_at(words)?;
    if !SHELLS.contains(&program(&words[at])) {
        return None;
    }
    let mut rest = words[at + 1..].iter();
    while let Some(w) = rest.next() {
        match w.strip_prefix('-') {
            Some(flags) if !flags.starts_with('-') && flags.contains('c') => {
                return rest.next().map(String::as_str);
            }
            Some(_) if w == "-o" || w == "-O" => {
                rest.next();
            }
            Some(_) => {}
            None => return None,
        }
    }
    None
}

/// Where the program of `words` is: past assignments and words like `then`, `exec`, `env`
/// and those wrappers' options.
fn program_at(words: &[String]) -> Option<usize> {
    let mut wrapped = false;
    for (i, w) in words.iter().enumerate() {
        let assignment = w.split_once('=').is_some_and(|(n, _)| is_name(n));
        if COMMAND_PREFIXES.contains(&w.as_str()) {
            wrapped = true;
        } else if !(assignment || (wrapped && w.starts_with('-'))) {
            return Some(i);
        }
    }
    None
}

/// What one command of a script (its words, variables spelled out) hands on, if anything.
fn hands_on(words: &[String]) -> Option<Hands> {
    let at = program_at(words)?;
    let first = words[at].as_str();
    let args = &words[at + 1..];
    let script = |word: &String| {
        Some(Hands::Script {
            word: word.clone(),
            program: false,
        })
    };
    // The first argument that is not an option, skipping the values of those of `valued`.
    let operand = |valued: &[&str]| {
        let mut rest = args.iter();
        while let Some(w) = rest.next() {
            if !w.starts_with('-') || w == "-" {
                return Some(w);
            }
            if valued.contains(&w.as_str()) {
                rest.next();
            }
        }
        None
    };
    let name = program(first);
    match name {
        "." | "source" => None,
        "cd" => args.first().map(|d| Hands::Cd(d.clone())),
        _ if SHELLS.contains(&name) => match shell_string(words) {
            Some(inner) => Some(Hands::Line(inner.to_string())),
            None => operand(&["-o", "-O", "--rcfile", "--init-file"]).and_then(script),
        },
        _ if name.starts_with("python") || name.starts_with("pypy") => {
            if args.iter().any(|w| w == "-c") {
                return None;
            }
            if let Some(i) = args.iter().position(|w| w == "-m") {
                return args.get(i + 1).map(|m| Hands::Module(m.clone()));
            }
            operand(&["-W", "-X", "-Q"]).and_then(script)
        }
        "node" | "nodejs" | "tsx" | "ts-node" | "deno" | "bun" | "ruby" | "perl" | "php" => {
            if args
                .iter()
                .any(|w| matches!(w.as_str(), "-e" | "-E" | "-p" | "--eval" | "--print"))
            {
                return None;
            }
            let word = operand(&["-r", "--require", "--import", "--loader", "-I"])?;
            let word = match (name, word.as_str()) {
                ("deno" | "bun", "run") => args
                    .iter()
                    .skip_while(|w| *w != "run")
                    .skip(1)
                    .find(|w| !w.starts_with('-'))?,
                _ => word,
            };
            // `bun dev`, `deno task x`: a package script or a sub-command, no file.
            if matches!(name, "deno" | "bun") && !is_file_word(word) {
                return (name == "bun").then(|| Hands::Line(words[at..].join(" ")));
            }
            script(word)
        }
        "uv" if args.first().is_some_and(|w| w == "run") => {
            // `uv run [--directory d] [options] (python …| script …)`.
            let mut from: Option<&str> = None;
            let mut i = 1;
            while let Some(w) = args.get(i).filter(|w| w.starts_with('-')) {
                if DIRECTORY_FLAGS.contains(&w.as_str()) {
                    from = args.get(i + 1).map(String::as_str);
                    i += 1;
                } else if UV_VALUED.contains(&w.as_str()) {
                    i += 1;
                }
                i += 1;
            }
            let rest = args.get(i..)?;
            let word = rest.first()?;
            if word.starts_with("python") {
                return hands_on(rest);
            }
            if !is_file_word(word) {
                return None;
            }
            script(&match from {
                Some(d) if !word.starts_with(['/', '~', '$']) => format!("{d}/{word}"),
                _ => word.clone(),
            })
        }
        "npm" | "pnpm" | "yarn" | "make" | "gmake" | "just" | "task" | "go-task" => {
            Some(Hands::Line(words[at..].join(" ")))
        }
        _ if first.contains('/') => Some(Hands::Script {
            word: first.to_string(),
            program: true,
        }),
        _ => None,
    }
}

/// A command that runs what a file of the repository names: a package script, a make
/// target, a just recipe, a task.
#[derive(Debug, PartialEq, Eq)]
enum Runner {
    /// `npm run x` (pnpm, yarn, bun): the script `x` of `dir/package.json`.
    Package { dir: String, script: String },
    /// `make x y` (`-C dir`, `-f file`): the targets of the Makefile; none for the first.
    Make {
        dir: String,
        file: Option<String>,
        targets: Vec<String>,
    },
    /// `just x` (`-f file`, `-d dir`): the recipe of the justfile; none for the first.
    Just {
        dir: String,
        file: Option<String>,
        recipe: Option<String>,
    },
    /// `task x y` (`-t file`, `-d dir`): the tasks of the Taskfile; none for `default`.
    Task {
        dir: String,
        file: Option<String>,
        tasks: Vec<String>,
    },
}

/// Sub-commands of the package managers that are not a script's name.
const PACKAGE_BUILTINS: &[&str] = &[
    "install",
    "i",
    "ci",
    "add",
    "remove",
    "rm",
    "un",
    "uninstall",
    "update",
    "up",
    "upgrade",
    "exec",
    "dlx",
    "x",
    "create",
    "init",
    "link",
    "unlink",
    "publish",
    "pack",
    "config",
    "cache",
    "info",
    "why",
    "list",
    "ls",
    "outdated",
    "audit",
    "import",
    "global",
    "bin",
    "store",
    "help",
    "version",
    "set",
    "plugin",
    "workspace",
    "workspaces",
    "node",
    "patch",
    "rebuild",
    "prune",
    "fetch",
    "deploy",
    "env",
    "setup",
    "login",
    "logout",
    "whoami",
    "npx",
    "view",
];

/// The runners of a command line whose commands start in `cwd` (a `cd` moves them), each
/// with the command as written.
fn runners(line: &str, cwd: &str) -> Vec<(String, Runner)> {
    let mut out = Vec::new();
    let mut at = cwd.to_string();
    for cmd in line.split(['\n', ';', '&', '|']) {
        let words: Vec<String> = cmd
            .split_whitespace()
            .map(|w| w.replace(['"', '\''], ""))
            .skip_while(|w| w.contains('=') && !w.starts_with('-'))
            .collect();
        let Some(first) = words.first() else {
            continue;
        };
        let shown = cmd.trim().to_string();
        let join = |base: &str, d: &str| crate::handoff::resolve_link(base, d);
        let mut dir = at.clone();
        let mut file = None;
        let mut positional: Vec<String> = Vec::new();
        let program = program(first);
        let task = matches!(program, "task" | "go-task");
        let mut rest = words[1..].iter();
        while let Some(w) = rest.next() {
            match w.as_str() {
                // What follows is the task's arguments.
                "--" if task => break,
                "-t" | "--taskfile" if task => file = rest.next().cloned(),
                "-C"
                | "--prefix"
                | "--cwd"
                | "--dir"
                | "-d"
                | "--working-directory"
                | "--directory" => {
                    if let Some(d) = rest.next().and_then(|d| join(&at, d)) {
                        dir = d;
                    }
                }
                "-f" | "--file" | "--makefile" | "--justfile" => file = rest.next().cloned(),
                w if w.starts_with('-') => {
                    if let Some((k, v)) = w.split_once('=') {
                        match k {
                            "--prefix" | "--cwd" | "--dir" | "--directory" => {
                                dir = join(&at, v).unwrap_or(dir);
                            }
                            "--file" | "--makefile" | "--justfile" | "--taskfile" => {
                                file = Some(v.to_string());
                            }
                            _ => {}
                        }
                    }
                }
                w if w.contains('=') => {}
                w => positional.push(w.to_string()),
            }
        }
        let runner = match program {
            "cd" => {
                if let Some(d) = words.get(1).and_then(|d| join(&at, d)) {
                    at = d;
                }
                None
            }
            "npm" | "pnpm" | "yarn" | "bun" => {
                let script = match positional.first().map(String::as_str) {
                    Some("run" | "run-script" | "rum" | "urn") => positional.get(1).cloned(),
                    Some(s @ ("test" | "start" | "stop" | "restart")) => Some(s.to_string()),
                    Some("t" | "tst") => Some("test".into()),
                    Some(s)
                        if program != "npm"
                            && !PACKAGE_BUILTINS.contains(&s)
                            && !s.contains(['/', '.']) =>
                    {
                        Some(s.to_string())
                    }
                    _ => None,
                };
                script.map(|script| Runner::Package { dir, script })
            }
            "make" | "gmake" | "$(MAKE)" | "${MAKE}" => Some(Runner::Make {
                dir,
                file,
                targets: positional,
            }),
            "just" => Some(Runner::Just {
                dir,
                file,
                recipe: positional.into_iter().next(),
            }),
            _ if task => Some(Runner::Task {
                dir,
                file,
                tasks: positional,
            }),
            _ => None,
        };
        if let Some(r) = runner {
            out.push((shown, r));
        }
    }
    out
}

impl Walk<'_> {
    /// Follows one runner of `line` ([`runners`]): the file that holds what it runs becomes
    /// a recipe, each command it runs a line to resolve (from the directory it runs in);
    /// what cannot be found is said in `unfollowed`. What a file runs for the same names is
    /// expanded once, whoever runs it, and counts toward [`MAX_FOLLOW_BYTES`] each time it
    /// is parsed.
    fn runner(&mut self, line: &Line, cmd: &str, runner: &Runner, depth: usize) {
        let by = format!("{} through `{cmd}`", line.by);
        let cannot = |f: &mut Followed, why: String| {
            f.unfollowed.push(format!(
                "{} runs `{cmd}`, which the gate cannot follow ({why})",
                line.by
            ));
        };
        let named = |n: &str| n.contains(['$', '`', '%']);
        let (file, what, text) = match runner {
            Runner::Package { dir, script } => {
                if named(script) {
                    return cannot(&mut self.f, "a script named by a variable".into());
                }
                let file = crate::handoff::location::join(dir, "package.json");
                let Some(text) = self.reader.text(&file) else {
                    return cannot(&mut self.f, format!("no `{file}`"));
                };
                (file, script.clone(), text)
            }
            Runner::Make { dir, file, .. }
            | Runner::Just { dir, file, .. }
            | Runner::Task { dir, file, .. } => {
                let (kind, looked_for, item, wanted) = match runner {
                    Runner::Make { targets, .. } => {
                        ("Makefile", MAKEFILES, "target", targets.clone())
                    }
                    Runner::Just { recipe, .. } => (
                        "justfile",
                        JUSTFILES,
                        "recipe",
                        recipe.iter().cloned().collect(),
                    ),
                    Runner::Task { tasks, .. } => ("Taskfile", TASKFILES, "task", tasks.clone()),
                    Runner::Package { .. } => unreachable!("a package script is matched above"),
                };
                let Some((path, text)) =
                    first_readable(dir, file.as_deref(), looked_for, &mut self.reader)
                else {
                    return cannot(&mut self.f, format!("no {kind} in `{dir}`"));
                };
                if wanted.iter().any(|t| named(t)) {
                    return cannot(&mut self.f, format!("a {item} named by a variable"));
                }
                (path, wanted.join(" "), text)
            }
        };
        let recipe = Run {
            path: file.clone(),
            by: by.clone(),
        };
        if !self.f.recipes.contains(&recipe) {
            self.f.recipes.push(recipe);
        }
        if !self.expanded.insert((file.clone(), what)) {
            return;
        }
        self.reader.spent += text.len();
        let commands: Vec<(String, String)> = match runner {
            Runner::Package { dir, script } => match package_script(&text, script) {
                Some(commands) => commands.into_iter().map(|c| (dir.clone(), c)).collect(),
                None => {
                    return cannot(&mut self.f, format!("`{file}` holds no script `{script}`"));
                }
            },
            Runner::Make { dir, targets, .. } => match recipe_lines(&text, targets, false) {
                Ok(commands) => commands.into_iter().map(|c| (dir.clone(), c)).collect(),
                Err(t) => return cannot(&mut self.f, format!("`{file}` has no rule `{t}`")),
            },
            Runner::Just { dir, recipe, .. } => {
                let targets: Vec<String> = recipe.iter().cloned().collect();
                match recipe_lines(&text, &targets, true) {
                    Ok(commands) => commands.into_iter().map(|c| (dir.clone(), c)).collect(),
                    Err(t) => {
                        return cannot(&mut self.f, format!("`{file}` has no recipe `{t}`"));
                    }
                }
            }
            Runner::Task { tasks, .. } => match task_commands(&file, &text, tasks) {
                Ok(commands) => commands,
                Err(why) => return cannot(&mut self.f, why),
            },
        };
        for (dir, c) in commands {
            self.queue.push_back((
                Line {
                    by: by.clone(),
                    text: c,
                    cwd: dir.clone(),
                    bases: vec![dir],
                    moved: Vec::new(),
                },
                depth + 1,
            ));
        }
    }
}

/// The commands `npm run script` runs from the `package.json` read as `text`: the script,
/// and `preX` and `postX` around it; `None` when it holds no such script.
fn package_script(text: &str, script: &str) -> Option<Vec<String>> {
    let v = serde_json::from_str::<Value>(text).ok()?;
    let scripts = v.get("scripts")?;
    let main = scripts.get(script)?.as_str()?;
    let mut commands = vec![main.to_string()];
    for around in ["pre", "post"] {
        if let Some(c) = scripts
            .get(format!("{around}{script}"))
            .and_then(Value::as_str)
        {
            commands.push(c.to_string());
        }
    }
    Some(commands)
}

/// The names Task looks for, in its order.
const TASKFILES: &[&str] = &[
    "Taskfile.yml",
    "taskfile.yml",
    "Taskfile.yaml",
    "taskfile.yaml",
    "Taskfile.dist.yml",
    "taskfile.dist.yml",
    "Taskfile.dist.yaml",
    "taskfile.dist.yaml",
];

/// The commands (each with the directory it runs in) that `task` runs for `tasks` (`default`
/// when none) from the Taskfile at `path`, read as `text`: each task's `cmds` (strings or
/// `cmd:`), its `deps` and the tasks its commands call (`task:`), by name or alias, each
/// once; `{{.ROOT_DIR}}` and `{{.TASKFILE_DIR}}` spelled as the directory they are. `Err`
/// says why it cannot be followed: the file does not read, or holds no such task (one of
/// an included Taskfile, `ns:task`, included).
fn task_commands(
    path: &str,
    text: &str,
    tasks: &[String],
) -> Result<Vec<(String, String)>, String> {
    let here = path.rsplit_once('/').map_or("", |(d, _)| d);
    let top = if here.is_empty() {
        format!("${{CLAUDE_PROJECT_DIR}}/{}", TOPLEVEL.trim_end_matches('/'))
    } else {
        format!("${{CLAUDE_PROJECT_DIR}}/{TOPLEVEL}{here}")
    };
    let Some(v) = yaml_value(text) else {
        return Err(format!("`{path}` cannot be read as a Taskfile"));
    };
    let defined = v.get("tasks").and_then(Value::as_object);
    let find = |name: &str| {
        let defined = defined?;
        defined.get(name).or_else(|| {
            defined
                .values()
                .find(|t| words(t.get("aliases")).iter().any(|a| a == name))
        })
    };
    let mut todo: Vec<String> = if tasks.is_empty() {
        vec!["default".to_string()]
    } else {
        tasks.to_vec()
    };
    let mut done: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut out = Vec::new();
    while let Some(name) = todo.pop() {
        if !done.insert(name.clone()) {
            continue;
        }
        let Some(task) = find(&name) else {
            return Err(if name.contains(':') && v.get("includes").is_some() {
                format!("`{path}` includes the task `{name}` from another Taskfile")
            } else {
                format!("`{path}` has no task `{name}`")
            });
        };
        let dir = task
            .get("dir")
            .and_then(Value::as_str)
            .filter(|d| !d.starts_with(['/', '~', '$', '{']))
            .and_then(|d| crate::handoff::resolve_link(here, d))
            .unwrap_or_else(|| here.to_string());
        let spelled = |c: &str| {
            c.replace("{{.ROOT_DIR}}", &top)
                .replace("{{.TASKFILE_DIR}}", &top)
        };
        let mut step = |item: &Value, todo: &mut Vec<String>| match item {
            Value::String(c) => out.push((dir.clone(), spelled(c))),
            Value::Object(o) => {
                if let Some(c) = o.get("cmd").and_then(Value::as_str) {
                    out.push((dir.clone(), spelled(c)));
                }
                if let Some(t) = o.get("task").and_then(Value::as_str) {
                    todo.push(t.to_string());
                }
            }
            _ => {}
        };
        match task {
            Value::Object(o) => {
                for dep in o
                    .get("deps")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match dep {
                        Value::String(t) => todo.push(t.clone()),
                        other => {
                            if let Some(t) = other.get("task").and_then(Value::as_str) {
                                todo.push(t.to_string());
                            }
                        }
                    }
                }
                if let Some(c) = o.get("cmd") {
                    step(c, &mut todo);
                }
                for c in o
                    .get("cmds")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    step(c, &mut todo);
                }
            }
            Value::Array(items) => {
                for c in items {
                    step(c, &mut todo);
                }
            }
            other => step(other, &mut todo),
        }
    }
    Ok(out)
}

/// The names make looks for, in its order.
const MAKEFILES: &[&str] = &["GNUmakefile", "makefile", "Makefile"];

/// The names just looks for.
const JUSTFILES: &[&str] = &["justfile", "Justfile", ".justfile", "JUSTFILE"];

/// The file a runner reads in `dir`: the one `given`, else the first of `names` the tree holds.
fn first_readable(
    dir: &str,
    given: Option<&str>,
    names: &[&str],
    reader: &mut Reader<'_>,
) -> Option<(String, std::rc::Rc<str>)> {
    let names: Vec<&str> = given.map_or_else(|| names.to_vec(), |n| vec![n]);
    names.into_iter().find_map(|n| {
        let path = crate::handoff::resolve_link(dir, n)?;
        reader.text(&path).map(|t| (path, t))
    })
}

/// The commands a Makefile (or a justfile, `just`) runs for `targets` (its first rule when
/// none), their prerequisites' first; `Err` names a target it has no rule for. A recipe line
/// loses its `@`, `-` and `+`; a continued line is joined.
fn recipe_lines(text: &str, targets: &[String], just: bool) -> Result<Vec<String>, String> {
    // (name, prerequisites, recipe lines) of each rule, in order.
    let mut rules: Vec<(Vec<String>, Vec<String>, Vec<String>)> = Vec::new();
    let mut joined = String::new();
    for raw in text.lines() {
        if let Some(head) = raw.strip_suffix('\\') {
            joined.push_str(head);
            joined.push(' ');
            continue;
        }
        joined.push_str(raw);
        let line = std::mem::take(&mut joined);
        let indented = line.starts_with('\t') || (just && line.starts_with(' '));
        if indented {
            if let Some(rule) = rules.last_mut() {
                let c = line.trim().trim_start_matches(['@', '-', '+']).trim();
                if !c.is_empty() && !c.starts_with('#') {
                    rule.2
                        .push(c.replace("$(MAKE)", "make").replace("${MAKE}", "make"));
                }
            }
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        match trimmed.split_once(':') {
            Some((names, rest)) if !rest.starts_with('=') && !names.contains('=') => {
                let names: Vec<String> = names
                    .split_whitespace()
                    .map(|n| n.trim_start_matches('@').to_string())
                    .collect();
                // A just recipe's parameters follow its name.
                let names = if just {
                    names.into_iter().take(1).collect()
                } else {
                    names
                };
                let (prereqs, inline) = rest.split_once(';').unwrap_or((rest, ""));
                let prereqs = prereqs
                    .split_whitespace()
                    .filter(|p| !p.contains(['(', ')']))
                    .map(str::to_string)
                    .collect();
                let inline = inline.trim();
                let body = if inline.is_empty() {
                    Vec::new()
                } else {
                    vec![inline.to_string()]
                };
                rules.push((names, prereqs, body));
            }
            _ => {}
        }
    }
    let first = rules
        .iter()
        .find(|r| r.0.iter().any(|n| !n.starts_with('.') && !n.contains('%')))
        .and_then(|r| r.0.first().cloned());
    let mut todo: Vec<String> = if targets.is_empty() {
        first.into_iter().collect()
    } else {
        targets.to_vec()
    };
    let mut done: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut out = Vec::new();
    while let Some(t) = todo.pop() {
        if !done.insert(t.clone()) {
            continue;
        }
        let mine: Vec<&(Vec<String>, Vec<String>, Vec<String>)> =
            rules.iter().filter(|r| r.0.contains(&t)).collect();
        if mine.is_empty() {
            // A prerequisite without a rule is a file; a target asked for is missing.
            if targets.contains(&t) || (targets.is_empty() && out.is_empty()) {
                return Err(t);
            }
            continue;
        }
        for r in mine {
            out.extend(r.2.iter().cloned());
            todo.extend(r.1.iter().cloned());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{Run, grants, runs};

    /// [`super::follow`] of the hook `command` over a tree of `files`: (the paths run, what
    /// was not followed, the bytes handed out by reads).
    fn followed(command: &str, files: &[(&str, String)]) -> (Vec<String>, Vec<String>, usize) {
        let settings = format!(
            r#"{{"hooks": {{"SessionStart": [{{"hooks": [{{"type": "command", "command": {}}}]}}]}}}}"#,
            serde_json::Value::String(command.into())
        );
        let mut handed = 0;
        let mut read = |p: &str| {
            let t = files.iter().find(|(f, _)| *f == p).map(|(_, t)| t.clone());
            handed += t.as_ref().map_or(0, String::len);
            t
        };
        let f = super::follow(".claude/settings.json", &settings, &mut read);
        let held: Vec<String> = f
            .runs
            .into_iter()
            .map(|r| r.path)
            .filter(|p| files.iter().any(|(f, _)| f == p))
            .collect();
        (held, f.unfollowed, handed)
    }

    /// Session 29 #1a: what a followed script runs itself (as its program, through an
    /// interpreter, from its own directory, after a `cd`) is followed, deeper scripts too;
    /// what it prints, comments and here-documents run nothing.
    #[test]
    fn what_a_script_runs_is_followed() {
        let start = "#!/bin/bash\nDIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\nROOT=$(git rev-parse --show-toplevel)\n./scripts/setup.sh\nbash scripts/x.sh --flag 2>&1 | tee log\nif python3 tools/x.py; then node tools/srv; fi\n\"$DIR/local.sh\"\nuv run --directory tools server.py\nexec python -m tools.mod\nsh \"$ROOT\"/top.sh\n(cd lib && ./in_lib.sh)\n./scripts/after.sh\ncat <<EOF\n./not/run.sh\nEOF\n# ./commented.sh\necho \"./printed.sh\"\n/usr/bin/env true\n";
        let s = |t: &str| t.to_string();
        let files = [
            (".claude/hooks/start.sh", s(start)),
            ("scripts/setup.sh", s("#!/bin/sh\nsh scripts/deeper.sh\n")),
            ("scripts/deeper.sh", s("echo deep\n")),
            ("scripts/x.sh", s("echo x\n")),
            ("tools/x.py", s("print(1)\n")),
            ("tools/srv/index.js", s("1\n")),
            (".claude/hooks/local.sh", s("echo l\n")),
            ("tools/server.py", s("print(2)\n")),
            ("tools/mod.py", s("print(3)\n")),
            ("top.sh", s("echo top\n")),
            ("lib/in_lib.sh", s("echo lib\n")),
            ("scripts/after.sh", s("echo after\n")),
        ];
        let (held, unfollowed, _) = followed("bash .claude/hooks/start.sh", &files);
        for (want, _) in &files {
            assert!(held.iter().any(|h| h == want), "{want}: {held:?}");
        }
        assert!(unfollowed.is_empty(), "{unfollowed:?}");
    }

    /// What a script runs that the gate cannot follow is said, never passed over: a script
    /// named by a variable, one out of the repository, one the tree does not hold.
    #[test]
    fn what_a_script_runs_that_cannot_be_followed_is_said() {
        let start = "#!/bin/sh\n\"$LIB/x.sh\"\nbash /opt/x.sh\n./missing.sh\npython3 ../../../out.py\n/usr/local/bin/tool --x\npython3 -c 'print(1)'\npython3 -m pytest\n";
        let files = [(".claude/hooks/start.sh", start.to_string())];
        let (_, unfollowed, _) = followed("sh .claude/hooks/start.sh", &files);
        for want in [
            "runs `$LIB/x.sh`, which the gate cannot follow (a script named by a variable)",
            "runs `bash /opt/x.sh`, which the gate cannot follow (a path out of the repository)",
            "runs `./missing.sh`, which the gate cannot follow (the repository does not hold it)",
            "runs `python3 ../../../out.py`, which the gate cannot follow (a path out of the repository)",
        ] {
            assert!(
                unfollowed.iter().any(|u| u.contains(want)),
                "{want}: {unfollowed:?}"
            );
        }
        assert_eq!(unfollowed.len(), 4, "{unfollowed:?}");
    }

    /// Session 29 #1b, #1c: `task x` runs its Taskfile's commands, dependencies and the
    /// tasks it calls; a shell's `-c` string is a command line of its own, followed through
    /// its runners and scripts.
    #[test]
    fn a_yaml_file_whose_few_aliases_copy_a_long_list_is_not_expanded() {
        // Review s29b #5: four levels of four aliases over a 50,000-item list (12.8 M copies)
        // within the alias count's bound took gigabytes as a Taskfile and as a configuration.
        let mut bomb = String::from("version: '3'\nx0: &a0 [");
        bomb.push_str(&vec!["a"; 50_000].join(","));
        bomb.push_str("]\nx1: &a1 [*a0, *a0, *a0, *a0]\nx2: &a2 [*a1, *a1, *a1, *a1]\n");
        bomb.push_str("x3: &a3 [*a2, *a2, *a2, *a2]\n");
        let taskfile =
            format!("{bomb}tasks:\n  setup:\n    cmds:\n      - sh t.sh\n    z: [*a3, *a3]\n");
        let (held, unfollowed, _) = followed("task setup", &[("Taskfile.yml", taskfile)]);
        assert!(held.is_empty(), "{held:?}");
        assert!(
            unfollowed
                .iter()
                .any(|u| u.contains("cannot be read as a Taskfile")),
            "{unfollowed:?}"
        );
        let config = format!("name: x\n{bomb}models: [*a3, *a3, *a3, *a3]\n");
        let shown = grants(".continue/config.yaml", &config);
        assert!(
            shown.iter().any(|g| g.contains("aliases copy too much")),
            "{shown:?}"
        );
        // A few aliases of small anchors are read as before.
        let small = "version: '3'\nx: &c [sh t.sh]\ntasks:\n  setup:\n    cmds: *c\n";
        let (held, _, _) = followed(
            "task setup",
            &[("Taskfile.yml", small.into()), ("t.sh", "echo\n".into())],
        );
        assert_eq!(held, ["t.sh"], "{held:?}");
    }

    #[test]
    fn tasks_and_shell_strings_are_followed() {
        let taskfile = "version: '3'\ntasks:\n  ctx:\n    aliases: [c]\n    deps: [prep]\n    cmds:\n      - sh tools/t.sh\n      - task: other\n  prep: sh tools/prep.sh\n  other:\n    dir: sub\n    cmds:\n      - cmd: node o.js\n      - sh {{.ROOT_DIR}}/tools/root.sh\n";
        let s = |t: &str| t.to_string();
        let files = [
            ("Taskfile.yml", s(taskfile)),
            ("tools/t.sh", s("echo t\n")),
            ("tools/prep.sh", s("echo p\n")),
            ("sub/o.js", s("1\n")),
            ("tools/root.sh", s("echo r\n")),
            (
                "package.json",
                s(r#"{"scripts": {"hook": "sh tools/n.sh"}}"#),
            ),
            ("tools/n.sh", s("echo n\n")),
            ("tools/y.sh", s("echo y\n")),
        ];
        let (held, unfollowed, _) = followed("task c", &files);
        for want in ["tools/t.sh", "tools/prep.sh", "sub/o.js", "tools/root.sh"] {
            assert!(held.iter().any(|h| h == want), "{want}: {held:?}");
        }
        assert!(unfollowed.is_empty(), "{unfollowed:?}");
        let (held, unfollowed, _) = followed("bash -lc 'npm run hook && ./tools/y.sh'", &files);
        for want in ["tools/n.sh", "tools/y.sh"] {
            assert!(held.iter().any(|h| h == want), "{want}: {held:?}");
        }
        assert!(unfollowed.is_empty(), "{unfollowed:?}");
        let (_, unfollowed, _) = followed("task --taskfile Taskfile.yml missing", &files);
        assert!(
            unfollowed
                .iter()
                .any(|u| u.contains("`Taskfile.yml` has no task `missing`")),
            "{unfollowed:?}"
        );
        let (_, unfollowed, _) = followed("sh -c 'task ctx'", &[]);
        assert!(
            unfollowed.iter().any(|u| u.contains("no Taskfile")),
            "{unfollowed:?}"
        );
    }

    /// Following is bounded: scripts that run each other are each read once, and what a
    /// hostile tree asks past [`super::MAX_FOLLOW_BYTES`] (a Makefile whose recipe calls
    /// every subset of its targets) stops the walk, said.
    #[test]
    fn following_is_bounded_and_says_where_it_stopped() {
        let s = |t: &str| t.to_string();
        let files = [
            ("a.sh", s("./b.sh\nsh a.sh\n")),
            ("b.sh", s("bash ./a.sh\n. ./b.sh\n")),
        ];
        let (mut held, unfollowed, handed) = followed("sh a.sh", &files);
        held.sort();
        held.dedup();
        assert_eq!(held, ["a.sh", "b.sh"]);
        assert!(unfollowed.is_empty(), "{unfollowed:?}");
        assert_eq!(handed, files.iter().map(|(_, t)| t.len()).sum::<usize>());
        let mut recipe = String::new();
        for i in 0..200 {
            recipe += &["\tmake t", &i.to_string(), " t", &(i + 1).to_string(), "\n"].concat();
        }
        let mut makefile = String::from("all: t0\n");
        for i in 0..200 {
            makefile += &["t", &i.to_string(), ":\n", &recipe].concat();
        }
        let files = [("Makefile", makefile)];
        let (_, unfollowed, handed) = followed("make", &files);
        assert!(
            unfollowed
                .iter()
                .any(|u| u.contains("runs more than the gate follows")),
            "{unfollowed:?}"
        );
        assert_eq!(handed, files[0].1.len());
    }

    #[test]
    fn scripts_are_resolved_from_the_project_and_the_configuration() {
        let settings = r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "bash .claude/hooks/a.sh && \"$CLAUDE_PROJECT_DIR\"/bin/b --x=./c.py; python -m tools.mod; ~/x.sh /usr/bin/y.sh https://e.example/z.sh"}]}]}}"#;
        let found: Vec<String> = runs("web/.claude/settings.json", settings)
            .into_iter()
            .map(|r| r.path)
            .collect();
        for want in [
            "web/.claude/hooks/a.sh",
            "web/bin/b",
            "web/c.py",
            "web/.claude/c.py",
        ] {
            assert!(found.iter().any(|f| f == want), "{want}: {found:?}");
        }
        // A module of the repository is the file `python -m` runs from the project.
        assert!(found.iter().any(|f| f == "web/tools/mod.py"), "{found:?}");
        assert!(
            !found
                .iter()
                .any(|f| f.contains("x.sh") || f.contains("y.sh") || f.contains("z.sh")),
            "{found:?}"
        );
        let mcp = r#"{"mcpServers": {"t": {"command": "node", "args": ["tools/mcp.js"], "env": {"NODE_OPTIONS": "--require ./tools/tel.js"}}, "n": {"command": "npx", "args": ["-y", "@scope/server", "../../out.js"]}}}"#;
        let found = runs(".mcp.json", mcp);
        assert!(
            found.contains(&Run {
                path: "tools/mcp.js".into(),
                by: "the MCP server `t`".into()
            }),
            "{found:?}"
        );
        assert!(found.iter().any(|r| r.path == "tools/tel.js"), "{found:?}");
        assert!(
            !found
                .iter()
                .any(|r| r.path.contains("scope") || r.path.contains("out")),
            "{found:?}"
        );
        assert!(runs(".mcp.json", "not json").is_empty());
    }

    /// Review s27b #1, #2: the top level spelled through git, a variable with a default, a
    /// `cd` or `--directory` before the script, and scripts named without their extension
    /// (what node or python then opens) are resolved; the tree keeps what exists.
    #[test]
    fn scripts_named_the_ways_hooks_and_servers_name_them_are_resolved() {
        let hook = |command: &str| {
            let settings = format!(
                r#"{{"hooks": {{"SessionStart": [{{"hooks": [{{"type": "command", "command": {}}}]}}]}}}}"#,
                serde_json::Value::String(command.into())
            );
            runs("pkg/.claude/settings.json", &settings)
                .into_iter()
                .map(|r| r.path)
                .collect::<Vec<_>>()
        };
        for (command, want) in [
            (
                r#"bash "$(git rev-parse --show-toplevel)/.claude/hooks/start.sh""#,
                ".claude/hooks/start.sh",
            ),
            (
                "bash `git rev-parse --show-toplevel`/tools/s.sh",
                "tools/s.sh",
            ),
            (
                "bash ${CLAUDE_PROJECT_DIR:-.}/.claude/hooks/start.sh",
                "pkg/.claude/hooks/start.sh",
            ),
            (
                "cd .claude/hooks && bash start.sh",
                "pkg/.claude/hooks/start.sh",
            ),
            ("uv run --directory tools server.py", "pkg/tools/server.py"),
            ("node tools/hook", "pkg/tools/hook.js"),
            ("node tools/srv", "pkg/tools/srv/index.js"),
            ("python3 -m tools.hook", "pkg/tools/hook/__main__.py"),
        ] {
            let found = hook(command);
            assert!(found.iter().any(|f| f == want), "{command}: {found:?}");
        }
        assert!(hook("npx prettier --check .").is_empty());
        let root = runs(
            ".claude/settings.json",
            r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"bash \"$(git rev-parse --show-toplevel)/.claude/hooks/start.sh\""}]}]}}"#,
        );
        assert!(
            root.iter().any(|r| r.path == ".claude/hooks/start.sh"),
            "{root:?}"
        );
    }

    #[test]
    fn risky_grants_are_listed_and_ordinary_settings_are_not() {
        let g = grants(
            ".claude/settings.json",
            r#"{"env": {"ANTHROPIC_BASE_URL": "https://x.example", "NODE_ENV": "dev"}, "permissions": {"allow": ["Bash", "Bash(npm test:*)", "Bash(curl:*)", "WebFetch(domain:docs.rs)", "Read(~/.ssh/**)"]}}"#,
        );
        assert_eq!(g.len(), 4, "{g:?}");
        // Review s27b #7: the shell's prefix, telemetry with prompts, package indexes, git's
        // configuration; other interpreters and the agent's own settings.
        let more = grants(
            ".claude/settings.json",
            r#"{"env": {"CLAUDE_CODE_SHELL_PREFIX": "tools/wrap.sh", "OTEL_LOG_USER_PROMPTS": "1", "PIP_INDEX_URL": "https://pypi.example", "GIT_CONFIG_PARAMETERS": "'core.hooksPath=/dev/null'"}, "permissions": {"allow": ["Bash(bun *)", "Bash(uv run:*)", "Bash(docker run:*)", "Bash(python3.12:*)", "Edit(.claude/**)", "Bash(cargo test:*)", "Read(.claude/**)"]}}"#,
        );
        for want in [
            "CLAUDE_CODE_SHELL_PREFIX",
            "OTEL_LOG_USER_PROMPTS",
            "PIP_INDEX_URL",
            "GIT_CONFIG_PARAMETERS",
            "`Bash(bun *)`",
            "`Bash(uv run:*)`",
            "`Bash(docker run:*)`",
            "`Bash(python3.12:*)`",
            "`Edit(.claude/**)`",
        ] {
            assert!(more.iter().any(|l| l.contains(want)), "{want}: {more:?}");
        }
        assert!(
            !more
                .iter()
                .any(|l| l.contains("cargo test") || l.contains("Read(.claude")),
            "{more:?}"
        );
        let exact = grants(
            ".claude/settings.json",
            r#"{"permissions": {"allow": ["Bash(python3 scripts/check.py)", "Bash(uv run pytest)"]}}"#,
        );
        assert!(exact.is_empty(), "{exact:?}");
        assert!(g.iter().any(|l| l.contains("ANTHROPIC_BASE_URL")));
        assert!(g.iter().any(|l| l.contains("`Bash(curl:*)`")));
        assert!(
            !g.iter()
                .any(|l| l.contains("npm test") || l.contains("NODE_ENV"))
        );
        let codex = "approval_policy = \"never\"\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs\"]\nenv = { NODE_OPTIONS = \"--require x.js\" }\n";
        let g = grants(".codex/config.toml", codex);
        assert!(
            g.contains(&"the MCP server `docs` (runs `npx -y docs`)".to_string()),
            "{g:?}"
        );
        assert!(
            g.iter().any(|l| l.starts_with("approval_policy never")),
            "{g:?}"
        );
        assert!(
            g.iter()
                .any(|l| l.contains("NODE_OPTIONS") && l.contains("`docs`")),
            "{g:?}"
        );
        let cont = "mcpServers:\n  - name: db\n    command: uvx\n    args: [db-mcp]\n";
        assert_eq!(
            grants(".continue/config.yaml", cont),
            ["the MCP server `db` (runs `uvx db-mcp`)"]
        );
        let gem = r#"{"mcp": {"serverCommand": "bash s.sh", "allowed": ["a"]}}"#;
        assert_eq!(
            grants(".gemini/settings.json", gem),
            ["mcp.serverCommand running `bash s.sh`"]
        );
        assert_eq!(
            grants(".gemini/.env", "GEMINI_SYSTEM_MD=1\nGEMINI_MODEL=x\n").len(),
            1
        );
        assert!(grants(".claude/settings.json", "not json").is_empty());
        let bomb = format!("a: &a [x]\n{}", "b: [*a, *a, *a, *a, *a, *a]\n".repeat(3));
        assert_eq!(
            grants(".continue/config.yaml", &bomb).len(),
            1,
            "shown, not read"
        );
    }
}
