//! The agent configuration files that name other files as instruction files (review s26 #4):
//! Gemini CLI's (and Qwen Code's) `contextFileName` / `context.fileName`, opencode's
//! `instructions`, aider's `read:`, Codex's fallback file names and instructions file,
//! Crush's `context_paths`, VS Code's instruction folders and Copilot's instruction files.
//! The files they name are read by the agent as its
//! instructions, so the gate judges them as it judges an imported file. What cannot be
//! resolved to files of the tree (a remote URL, a path out of the repository, a pattern
//! syntax the gate does not read, a file it cannot parse) is refused rather than passed.

use yaml_rust2::{Yaml, YamlLoader};

/// One file name or pattern a configuration names, repository-relative.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    /// One path.
    Path(String),
    /// A pattern (`*`, `?`, `**`) over the repository's paths.
    Glob(String),
}

/// Which tool's configuration a path is, by where it lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `.gemini/settings.json`, `.qwen/settings.json`: file names looked for in every
    /// directory of the project.
    Gemini,
    /// `opencode.json`, `opencode.jsonc`: paths or patterns from the project's directory.
    Opencode,
    /// `.aider.conf.yml`: paths from the repository's directory.
    Aider,
    /// `.codex/config.toml`: file names looked for in every directory of the project (as
    /// `AGENTS.md` is), and a file replacing the built-in instructions.
    Codex,
    /// `crush.json`, `.crush.json`: files or directories from the configuration's own.
    Crush,
    /// `.vscode/settings.json`: folders of `*.instructions.md` files, and files, from the
    /// workspace's directory.
    VsCode,
    /// `.claude/settings.json`, `.claude/settings.local.json`: plugin marketplaces kept in
    /// a directory of the project, whose plugins' commands, agents, skills, hooks and
    /// scripts the agent loads.
    Claude,
}

fn kind(path: &str) -> Option<Kind> {
    let lower = path.to_ascii_lowercase();
    let (dir, name) = lower.rsplit_once('/').unwrap_or(("", &lower));
    let parent = dir.rsplit('/').next().unwrap_or(dir);
    match name {
        "settings.json" if parent == ".gemini" || parent == ".qwen" => Some(Kind::Gemini),
        "opencode.json" | "opencode.jsonc" => Some(Kind::Opencode),
        // Kilo CLI, an opencode fork, reads the same configuration from `.kilo/`.
        "kilo.json" | "kilo.jsonc" if parent == ".kilo" => Some(Kind::Opencode),
        ".aider.conf.yml" | ".aider.conf.yaml" => Some(Kind::Aider),
        // aider loads `.env` from the repository's root and where it runs: its `AIDER_*`
        // variables are the configuration's options (Gemini CLI's own `.gemini/.env` is not).
        ".env" if parent != ".gemini" => Some(Kind::Aider),
        "config.toml" if parent == ".codex" => Some(Kind::Codex),
        "crush.json" | ".crush.json" => Some(Kind::Crush),
        "settings.json" if parent == ".vscode" => Some(Kind::VsCode),
        "settings.json" | "settings.local.json" if parent == ".claude" => Some(Kind::Claude),
        _ => None,
    }
}

/// True for a configuration file that names instruction files ([`named`]).
pub fn names_files(path: &str) -> bool {
    kind(path).is_some()
}

/// The files the configuration at `path` (repository-relative) names as instruction files,
/// resolved against the tree; `Err` with the reason when something it names cannot be
/// judged or the file cannot be read for what it names. Empty for any other path.
pub fn named(path: &str, text: &str) -> Result<Vec<Named>, String> {
    let Some(kind) = kind(path) else {
        return Ok(Vec::new());
    };
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    // Where relative names start: the project directory that holds `.gemini/`, or an
    // opencode file's own directory (its parent when the file sits in `.opencode/`).
    let parent = |d: &str| d.rsplit_once('/').map_or("", |(p, _)| p).to_string();
    let base = match kind {
        Kind::Gemini | Kind::Codex | Kind::VsCode | Kind::Claude => parent(dir),
        Kind::Opencode if matches!(dir.rsplit('/').next(), Some(".opencode" | ".kilo")) => {
            parent(dir)
        }
        Kind::Opencode | Kind::Aider | Kind::Crush => dir.to_string(),
    };
    let names = match kind {
        Kind::Gemini => {
            let v = parse_jsonc(text)?;
            let mut names = strings_at(&v, &["contextFileName"])?;
            names.extend(strings_at(&v, &["context", "fileName"])?);
            names
        }
        Kind::Opencode => strings_at(&parse_jsonc(text)?, &["instructions"])?,
        Kind::Aider => aider_reads(path, text)?,
        Kind::Codex => return codex_named(dir, &base, text),
        Kind::Crush => return crush_named(&base, text),
        Kind::VsCode => return vscode_named(&base, text),
        Kind::Claude => return claude_named(&base, text),
    };
    let mut out = Vec::new();
    for name in names {
        if name.is_empty() {
            continue;
        }
        // aider's `.env` values expand `${NAME}` (python-dotenv): the directory aider runs
        // in is the project's; another name is the environment's (review atk34 #4).
        let name = match name
            .strip_prefix("${PWD}/")
            .or_else(|| name.strip_prefix("$PWD/"))
        {
            Some(rest) if kind == Kind::Aider => rest.to_string(),
            _ => name,
        };
        if kind == Kind::Aider && name.contains("${") {
            return Err(format!(
                "names {} as a file to read through an environment variable the gate cannot \
                 resolve (aider's .env expands `${{VAR}}`): name the file itself",
                crate::output::escape_untrusted(&name)
            ));
        }
        if kind == Kind::Gemini && name.contains('$') {
            return Err(format!(
                "names {} as a context file through an environment variable the gate cannot \
                 resolve (Gemini CLI expands `$VAR` and `${{VAR}}`): name the file itself",
                crate::output::escape_untrusted(&name)
            ));
        }
        match kind {
            // opencode looks a relative name up from the directory it runs in (anywhere
            // below its configuration) to the repository's root (review s27 #5).
            Kind::Opencode if is_relative(&name) && !name.split('/').any(|c| c == "..") => {
                let rel = name.trim_start_matches("./");
                out.push(resolve_name(&name, &name_below(&base, rel))?);
                let mut at = base.as_str();
                while !at.is_empty() {
                    at = at.rsplit_once('/').map_or("", |(p, _)| p);
                    out.push(resolve_name(
                        &name,
                        &crate::handoff::location::join(at, rel),
                    )?);
                }
            }
            // A context file name is looked for in every directory of the project.
            Kind::Gemini => {
                if !is_relative(&name) || name.split('/').any(|c| c == "..") {
                    return Err(outside(&name));
                }
                out.push(resolve_name(&name, &name_below(&base, &name))?);
            }
            Kind::Opencode
            | Kind::Aider
            | Kind::Codex
            | Kind::Crush
            | Kind::VsCode
            | Kind::Claude => {
                if let Some(full) = within(&base, &name)? {
                    out.push(resolve_name(&name, &full)?);
                }
            }
        }
    }
    if kind == Kind::Opencode {
        // `{file:path}` anywhere in the file is replaced by that file's text, the path
        // relative to the configuration's own directory (review s27 #5).
        for reference in file_references(text) {
            if let Some(full) = within(dir, &reference)? {
                out.push(resolve_name(&reference, &full)?);
            }
        }
    }
    out.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    out.dedup();
    Ok(out)
}

/// Codex's names: `project_doc_fallback_filenames`, names it looks for in each directory
/// from the project's root down to where it runs when `AGENTS.md` is not there (so any of
/// them anywhere below the project), and `model_instructions_file` (formerly
/// `experimental_instructions_file`), the file that replaces its built-in instructions, in
/// any table (profiles hold their own). A relative instructions file is taken from the
/// configuration's directory and, failing closed, from the project's as well.
fn codex_named(dir: &str, base: &str, text: &str) -> Result<Vec<Named>, String> {
    let v = super::agent_runs::toml_value_or_why(text)
        .map_err(|(_, why)| format!("cannot be read for the instruction files it names: {why}"))?;
    let mut out = Vec::new();
    for name in strings_at(&v, &["project_doc_fallback_filenames"])? {
        if name.is_empty() {
            continue;
        }
        if !is_relative(&name) || name.contains('/') {
            return Err(format!(
                "names {} as a fallback instruction file name: Codex looks the name up in \
                 each directory, so it must be a plain file name",
                crate::output::escape_untrusted(&name)
            ));
        }
        out.push(resolve_name(&name, &name_below(base, &name))?);
    }
    let mut files = Vec::new();
    keys_anywhere(
        &v,
        &["model_instructions_file", "experimental_instructions_file"],
        0,
        &mut files,
    )?;
    for name in files {
        for from in [dir, base] {
            if let Some(full) = within(from, &name)? {
                out.push(resolve_name(&name, &full)?);
            }
        }
    }
    Ok(sorted(out))
}

/// The strings at any of `keys` in any table of `v` (tables nest a few levels at most; the
/// walk stops at 16).
fn keys_anywhere(
    v: &serde_json::Value,
    keys: &[&str],
    depth: usize,
    out: &mut Vec<String>,
) -> Result<(), String> {
    let serde_json::Value::Object(map) = v else {
        return Ok(());
    };
    for (k, item) in map {
        if keys.contains(&k.as_str()) {
            match item {
                serde_json::Value::String(s) if !s.is_empty() => out.push(s.clone()),
                serde_json::Value::String(_) | serde_json::Value::Null => {}
                _ => return Err(format!("`{k}` is not a path")),
            }
        } else if depth < 16 {
            keys_anywhere(item, keys, depth + 1, out)?;
        }
    }
    Ok(())
}

/// Crush's `options.context_paths`: files, or directories whose files it all reads, from
/// the configuration's directory.
/// Claude Code's plugin marketplaces kept in a directory of the project
/// (`extraKnownMarketplaces.NAME.source` with `"source": "directory"`): every file below it
/// is named, since the plugins it lists bring commands, agents, skills, hooks, MCP servers
/// and the scripts they run, all of which the agent loads (review atk31 #2). A marketplace
/// elsewhere (a remote repository, a directory outside the project) is no file of this
/// one; adding it is shown as a grant ([`super::agent_runs::grants`]).
fn claude_named(base: &str, text: &str) -> Result<Vec<Named>, String> {
    let v = parse_jsonc(text)?;
    let mut out = Vec::new();
    let Some(serde_json::Value::Object(markets)) = v.get("extraKnownMarketplaces") else {
        return Ok(out);
    };
    for market in markets.values() {
        let source = &market["source"];
        if source["source"].as_str() != Some("directory") {
            continue;
        }
        let Some(dir) = source["path"].as_str() else {
            continue;
        };
        if !is_relative(dir) || dir.split('/').any(|c| c == "..") {
            continue;
        }
        if let Some(full) = crate::handoff::resolve_link(base, dir) {
            let all = crate::handoff::location::join(&full, "**");
            out.push(resolve_name(dir, &all)?);
        }
    }
    Ok(out)
}

fn crush_named(base: &str, text: &str) -> Result<Vec<Named>, String> {
    let v = parse_jsonc(text)?;
    let mut out = Vec::new();
    for name in strings_at(&v, &["options", "context_paths"])? {
        if name.is_empty() {
            continue;
        }
        if let Some(full) = within(base, &name)? {
            let full = full.trim_end_matches('/').to_string();
            // A file, or a directory: which one the tree decides.
            out.push(resolve_name(&name, &format!("{full}/**"))?);
            out.push(resolve_name(&name, &full)?);
        }
    }
    Ok(sorted(out))
}

/// VS Code's: the folders `chat.instructionsFilesLocations` turns on (their
/// `*.instructions.md` files, which Copilot applies by their `applyTo`), with the prompt,
/// mode and agent folders likewise, and the files Copilot's per-task instruction settings
/// (`github.copilot.chat.*.instructions`, a list of `{"file": …}` or `{"text": …}`) name;
/// all from the workspace's directory. A `text` entry is judged with the settings file.
fn vscode_named(base: &str, text: &str) -> Result<Vec<Named>, String> {
    const FOLDERS: [(&str, &str); 4] = [
        ("chat.instructionsFilesLocations", "*.instructions.md"),
        ("chat.promptFilesLocations", "*.prompt.md"),
        ("chat.modeFilesLocations", "*.chatmode.md"),
        ("chat.agentFilesLocations", "*.agent.md"),
    ];
    let v = parse_jsonc(text)?;
    let serde_json::Value::Object(map) = &v else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (key, files) in FOLDERS {
        let Some(folders) = map.get(key) else {
            continue;
        };
        let serde_json::Value::Object(folders) = folders else {
            return Err(format!(
                "`{key}` is not a mapping of folders to true or false"
            ));
        };
        for (folder, on) in folders {
            if on == &serde_json::Value::Bool(false) || folder.is_empty() {
                continue;
            }
            if let Some(full) = within(base, folder)? {
                let full = full.trim_end_matches('/');
                out.push(resolve_name(folder, &format!("{full}/**/{files}"))?);
            }
        }
    }
    for (key, entries) in map {
        if !(key.starts_with("github.copilot.chat.") && key.ends_with(".instructions")) {
            continue;
        }
        let serde_json::Value::Array(entries) = entries else {
            continue;
        };
        for entry in entries {
            let file = match entry.get("file") {
                None | Some(serde_json::Value::Null) => continue,
                Some(serde_json::Value::String(f)) => f,
                Some(_) => return Err(format!("`{key}` names a file that is not a path")),
            };
            if let Some(full) = within(base, file)? {
                out.push(resolve_name(file, &full)?);
            }
        }
    }
    Ok(sorted(out))
}

fn sorted(mut out: Vec<Named>) -> Vec<Named> {
    out.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    out.dedup();
    out
}

/// True for a name relative to a directory: neither absolute, nor from the home directory,
/// nor a remote address.
fn is_relative(name: &str) -> bool {
    !(name.is_empty()
        || name.starts_with(['/', '~', '\\'])
        || name.contains('\\')
        || name.contains(':'))
}

/// `**/name` below `base`: the name in `base` or any directory below it.
fn name_below(base: &str, name: &str) -> String {
    crate::handoff::location::join(base, &format!("**/{name}"))
}

/// `name` (as a configuration wrote it) resolved from `base` to a repository path; `None`
/// for what is legitimately no file of the repository: a path into the user's own
/// configuration directories (`~/.config/…`, `~/.aider/…`), which no clone holds and the
/// user alone writes. `Err` for what the gate cannot judge and a clone may hold: a remote
/// file, an absolute path, any other home path, a path leaving the repository.
fn within(base: &str, name: &str) -> Result<Option<String>, String> {
    if let Some(home) = name.strip_prefix("~/")
        && home.starts_with('.')
        && !home.starts_with("./")
        && !home.split('/').any(|c| c == "..")
    {
        return Ok(None);
    }
    if !is_relative(name) {
        return Err(outside(name));
    }
    crate::handoff::resolve_link(base, name)
        .map(Some)
        .ok_or_else(|| outside(name))
}

/// A resolved name (`full`, repository-relative, as a pattern or a path) as a [`Named`],
/// or the reason it cannot be judged; `name` is what the configuration wrote.
fn resolve_name(name: &str, full: &str) -> Result<Named, String> {
    let shown = crate::output::escape_untrusted(name);
    if full.split('/').any(|c| c.eq_ignore_ascii_case(".git")) {
        return Err(format!(
            "names {shown} as an instruction file inside .git: agent instruction files \
             must be files of the work tree"
        ));
    }
    if full.contains(['[', ']', '!']) || (full.contains(['{', '}']) && glob_matcher(full).is_none())
    {
        return Err(format!(
            "names {shown} as instruction files with a pattern the gate does not resolve \
             (only `*`, `?`, `**` and `{{a,b}}`): name the files, or use those"
        ));
    }
    Ok(if full.contains(['*', '?', '{']) {
        Named::Glob(full.to_string())
    } else {
        Named::Path(full.to_string())
    })
}

/// Why `name` cannot be judged when it is no relative path within the repository.
fn outside(name: &str) -> String {
    let shown = crate::output::escape_untrusted(name);
    if name.contains("://") {
        format!(
            "names {shown} as an instruction file: a remote file the gate cannot judge; \
             commit the file and name its path"
        )
    } else {
        format!(
            "names {shown} as an instruction file, outside the work tree: agent instruction \
             files must be files of the work tree (a file under a dot-directory of the home \
             directory, `~/.config/…`, is the user's own and not judged)"
        )
    }
}

/// The paths of opencode's `{file:path}` references, but those only on lines that are
/// `//` comments (opencode leaves those alone).
fn file_references(text: &str) -> Vec<String> {
    const OPEN: &str = "{file:";
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find(OPEN) {
            let after = &rest[at + OPEN.len()..];
            let Some(end) = after.find('}') else { break };
            if end > 0 {
                out.push(after[..end].to_string());
            }
            rest = &after[end..];
        }
    }
    out.sort();
    out.dedup();
    out
}

/// True for a configuration whose named files are context files the agent reads with their
/// `@path` imports followed (Gemini CLI's and Qwen Code's, review s27 #6).
pub fn named_files_import(path: &str) -> bool {
    kind(path) == Some(Kind::Gemini)
}

/// The directory a glob's matches all lie below: its components before the first with a
/// wildcard.
pub fn glob_base(pattern: &str) -> String {
    pattern
        .split('/')
        .take_while(|c| !c.contains(['*', '?', '{', '[']))
        .collect::<Vec<_>>()
        .join("/")
        .trim_end_matches('/')
        .to_string()
}

/// A matcher for a [`Named::Glob`], in any ASCII letter case (the file systems most agents
/// run on serve either spelling); `*` and `?` stay within a component, `**` crosses them.
pub fn glob_matcher(pattern: &str) -> Option<globset::GlobMatcher> {
    globset::GlobBuilder::new(pattern)
        .case_insensitive(true)
        .literal_separator(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

/// Many [`Named::Glob`]s matched at once, each path once (review s27 #8: 20,000 context
/// file names over 2,000 files were 20,000 passes over the tree). `base/**/name` with a
/// literal name, the form of every context file name, is a lookup of the path's tails and
/// heads; any other pattern is part of one [`globset::GlobSet`].
pub struct GlobsMatcher {
    /// Literal tail (ASCII-folded) to the bases it may lie below.
    tails: std::collections::HashMap<String, std::collections::HashSet<String>>,
    set: globset::GlobSet,
    base: String,
}

impl GlobsMatcher {
    /// The matcher of `globs`; `Err` with the pattern the gate cannot read.
    pub fn new<'a>(globs: impl IntoIterator<Item = &'a str>) -> Result<GlobsMatcher, String> {
        let mut tails: std::collections::HashMap<String, std::collections::HashSet<String>> =
            std::collections::HashMap::new();
        let mut set = globset::GlobSetBuilder::new();
        let mut base: Option<Vec<String>> = None;
        for g in globs {
            let b = glob_base(g);
            base = Some(match base {
                None => b.split('/').map(str::to_string).collect(),
                Some(mut common) => {
                    let n = common
                        .iter()
                        .zip(b.split('/'))
                        .take_while(|(x, y)| x.as_str() == *y)
                        .count();
                    common.truncate(n);
                    common
                }
            });
            let rest = g.strip_prefix(&b).unwrap_or(g).trim_start_matches('/');
            if let Some(tail) = rest.strip_prefix("**/")
                && !tail.contains(['*', '?', '{', '}', '[', ']'])
            {
                tails
                    .entry(super::agents::fold_case(tail))
                    .or_default()
                    .insert(super::agents::fold_case(&b));
                continue;
            }
            let glob = globset::GlobBuilder::new(g)
                .case_insensitive(true)
                .literal_separator(true)
                .build()
                .map_err(|_| crate::output::escape_untrusted(g))?;
            set.add(glob);
        }
        Ok(GlobsMatcher {
            tails,
            set: set.build().map_err(|e| e.to_string())?,
            base: base.map(|b| b.join("/")).unwrap_or_default(),
        })
    }

    /// The directory every match lies below (`""`: anywhere).
    pub fn base(&self) -> &str {
        &self.base
    }

    /// True when `path` matches one of the patterns.
    pub fn is_match(&self, path: &str) -> bool {
        if !self.tails.is_empty() {
            let folded = super::agents::fold_case(path);
            // Where each component starts, and the end.
            let mut starts: Vec<usize> = std::iter::once(0)
                .chain(folded.match_indices('/').map(|(i, _)| i + 1))
                .collect();
            starts.push(folded.len() + 1);
            for k in 0..starts.len() - 1 {
                let Some(bases) = self.tails.get(&folded[starts[k]..]) else {
                    continue;
                };
                // `base/**/tail`: the base is the path's first j components, j <= k.
                if (0..=k).any(|j| bases.contains(&folded[..starts[j].saturating_sub(1)])) {
                    return true;
                }
            }
        }
        self.set.is_match(path)
    }
}

/// True for JSON with comments or trailing commas that its tools read (strict JSON too).
pub fn is_jsonc(text: &str) -> bool {
    super::json::check_jsonc(text).is_ok()
}

/// `text` read as JSON with comments and trailing commas (the form these tools read).
pub(super) fn parse_jsonc(text: &str) -> Result<serde_json::Value, String> {
    super::json::read_jsonc(text).map_err(|e| {
        format!(
            "cannot be read for the instruction files it names: {}",
            e.why
        )
    })
}

/// The string, or the strings of the list, at `keys` of `v`; nothing when absent.
fn strings_at(v: &serde_json::Value, keys: &[&str]) -> Result<Vec<String>, String> {
    let mut at = v;
    for k in keys {
        match at.get(k) {
            Some(next) => at = next,
            None => return Ok(Vec::new()),
        }
    }
    let shape = || {
        format!(
            "`{}` is neither a string nor a list of strings",
            keys.join(".")
        )
    };
    match at {
        serde_json::Value::Null => Ok(Vec::new()),
        serde_json::Value::String(s) => Ok(vec![s.clone()]),
        serde_json::Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().map(str::to_string).ok_or_else(shape))
            .collect(),
        _ => Err(shape()),
    }
}

/// The keys of aider's configuration whose files reach the model: `read` (read-only
/// context), `file` (files added to the chat), `message-file` (the prompt itself), `load`
/// (commands run at launch; what they run is followed by [`super::agent_runs::follow`]) and
/// `model-settings-file` (model settings in place of `.aider.model.settings.yml`, whose
/// `system_prompt_prefix` goes to the model) and `env-file` (an environment file in place
/// of `.env`, whose `AIDER_*` variables are options: the walk reads it as aider's `.env`).
pub(super) const AIDER_FILE_KEYS: &[&str] = &[
    "read",
    "file",
    "message-file",
    "load",
    "model-settings-file",
    "env-file",
];

/// The files aider's [`AIDER_FILE_KEYS`] name: a string or a list of strings, at the top of
/// the mapping or through its YAML merge keys (`<<:`), as `PyYAML` reads them (review s27
/// #5; review atk31 #3 for the keys besides `read`).
/// A file whose aliases expand past [`MAX_YAML_NODES`] is refused before it is expanded.
fn aider_reads(path: &str, text: &str) -> Result<Vec<String>, String> {
    Ok(aider_files(path, text)?
        .into_iter()
        .map(|(_, f)| f)
        .collect())
}

/// True for an environment file aider loads (`.env`), whose `AIDER_*` variables are its
/// options ([`aider_env_options`]).
pub(super) fn is_aider_env(path: &str) -> bool {
    kind(path) == Some(Kind::Aider)
        && path
            .rsplit('/')
            .next()
            .is_some_and(|n| n.eq_ignore_ascii_case(".env"))
}

/// The `AIDER_*` variables of an environment file as the options of aider's configuration
/// they set (`AIDER_MESSAGE_FILE` is `message-file`), a value spelled `[a, b]` as a list,
/// as aider's argument parser reads a list option from the environment.
pub(super) fn aider_env_options(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for (k, v) in dotenv_entries(text) {
        let v = v.as_str();
        let Some(option) = k
            .get(..6)
            .filter(|p| p.eq_ignore_ascii_case("AIDER_"))
            .map(|_| k[6..].to_ascii_lowercase().replace('_', "-"))
        else {
            continue;
        };
        out.push((option, aider_env_list(v)));
    }
    out
}

/// The bindings of an environment file as python-dotenv reads it (aider loads the
/// repository's `.env` with it; review atk34 #4), in order: `KEY=value` lines, `export`
/// before the key allowed; an unquoted value to the line's end, a comment after white
/// space cut off; a quoted one to its closing quote (across lines), what follows it on
/// the line ignored, a double-quoted one's escapes (`\n`, `\"`, …) undone; `${NAME}` and
/// `${NAME:-default}` in an unquoted or double-quoted value replaced by the binding made
/// above (or the default) — a name the file does not bind stays as written (the
/// environment's, which the gate cannot tell). A binding python-dotenv cannot parse (an
/// unclosed quote) is skipped to the next line, as it skips it. One pass over the text.
pub(super) fn dotenv_entries(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    while !rest.is_empty() {
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        let body = line.trim_start();
        let body = body
            .strip_prefix("export")
            .filter(|b| b.starts_with([' ', '\t']))
            .map_or(body, str::trim_start);
        let Some((key, value)) = body.split_once('=') else {
            rest = after;
            continue;
        };
        let key = key.trim_end();
        if key.is_empty() || key.starts_with('#') || key.contains(char::is_whitespace) {
            rest = after;
            continue;
        }
        let value = value.trim_start_matches([' ', '\t']);
        let (found, next) = if let Some(q @ ('\'' | '"')) = value.chars().next() {
            // The value's place in `rest` (it ends the line, which starts `rest`), to
            // read on past the line's end.
            let at = line.len() - value.len();
            match dotenv_quoted(&rest[at + 1..], q) {
                Some((v, used)) => {
                    let tail = &rest[at + 1 + used..];
                    let next = tail.split_once('\n').map_or("", |(_, n)| n);
                    (
                        Some(if q == '"' {
                            dotenv_interpolated(&v, &out)
                        } else {
                            v
                        }),
                        next,
                    )
                }
                None => (None, after),
            }
        } else {
            let value = value.trim_end_matches('\r');
            let cut = value
                .char_indices()
                .find(|&(i, c)| c == '#' && value[..i].ends_with(|p: char| p.is_whitespace()))
                .map_or(value, |(i, _)| &value[..i]);
            (Some(dotenv_interpolated(cut.trim_end(), &out)), after)
        };
        if let Some(v) = found {
            out.push((key.to_string(), v));
        }
        rest = next;
    }
    out
}

/// A quoted dotenv value from just past its opening quote `q`: its text with the escapes
/// python-dotenv undoes, and the bytes used up to and with the closing quote; `None` when
/// it is never closed.
fn dotenv_quoted(s: &str, q: char) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        if c == q {
            return Some((out, i + 1));
        }
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some((_, n)) = chars.next() else {
            out.push(c);
            break;
        };
        let undone = match (q, n) {
            (_, '\\' | '\'') => Some(n),
            ('"', '"') => Some('"'),
            ('"', 'a') => Some('\u{7}'),
            ('"', 'b') => Some('\u{8}'),
            ('"', 'f') => Some('\u{c}'),
            ('"', 'n') => Some('\n'),
            ('"', 'r') => Some('\r'),
            ('"', 't') => Some('\t'),
            ('"', 'v') => Some('\u{b}'),
            _ => None,
        };
        if let Some(u) = undone {
            out.push(u);
        } else {
            out.push(c);
            out.push(n);
        }
    }
    None
}

/// `value` with `${NAME}` and `${NAME:-default}` replaced as python-dotenv replaces them:
/// by the last binding of `NAME` above, else the default; a name bound nowhere above
/// stays as written. Linear: each `${` is looked at once.
fn dotenv_interpolated(value: &str, bound: &[(String, String)]) -> String {
    if !value.contains("${") {
        return value.to_string();
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let inner = &rest[at + 2..];
        let Some(close) = inner.find('}') else {
            out.push_str(&rest[at..]);
            return out;
        };
        let spec = &inner[..close];
        let (name, default) = match spec.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (spec, None),
        };
        let found = bound
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str());
        match found.or(default) {
            // What a binding adds is bounded, so the cost follows the text.
            Some(v) if out.len() + v.len() <= value.len() + 4096 => out.push_str(v),
            _ => out.push_str(&rest[at..=at + 2 + close]),
        }
        rest = &inner[close + 1..];
    }
    out.push_str(rest);
    out
}

/// An `AIDER_*` variable's value: `[a, b]` is a list, as aider's argument parser reads a
/// list option from the environment; anything else one value.
pub(super) fn aider_env_list(v: &str) -> Vec<String> {
    match v.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        Some(list) => list
            .split(',')
            .map(|i| i.trim().trim_matches(['"', '\'']).to_string())
            .filter(|i| !i.is_empty())
            .collect(),
        None => vec![v.to_string()],
    }
}

/// True for a value aider reads as "on" (`true`, `yes`, `1`, `on`, in any letter case).
fn on(v: &str) -> bool {
    ["true", "yes", "1", "on"]
        .iter()
        .any(|t| v.trim().eq_ignore_ascii_case(t))
}

/// The file aider keeps its chat history in when it restores it into the chat at launch
/// (`restore-chat-history`): `chat-history-file`, else its default name (review atk32 #7).
const AIDER_HISTORY_DEFAULT: &str = ".aider.chat.history.md";

/// Each file aider's configuration at `path` names under [`AIDER_FILE_KEYS`], with its key,
/// and the chat history it restores; an environment file's `AIDER_*` variables likewise.
pub(super) fn aider_files(path: &str, text: &str) -> Result<Vec<(&'static str, String)>, String> {
    if is_aider_env(path) {
        let options = aider_env_options(text);
        let mut out = Vec::new();
        let mut history = None;
        let mut restore = false;
        for (option, values) in options {
            if let Some(&key) = AIDER_FILE_KEYS.iter().find(|k| **k == option) {
                out.extend(values.into_iter().map(|v| (key, v)));
            } else if option == "chat-history-file" {
                history = values.into_iter().next();
            } else if option == "restore-chat-history" {
                restore = values.iter().any(|v| on(v));
            }
        }
        if restore {
            let file = history.unwrap_or_else(|| AIDER_HISTORY_DEFAULT.to_string());
            out.push(("chat-history-file", file));
        }
        return Ok(out);
    }
    yaml_within_budget(text)?;
    let docs = YamlLoader::load_from_str(text)
        .map_err(|e| format!("cannot be read for the instruction files it names: {e}"))?;
    let mut out = Vec::new();
    for doc in &docs {
        let restore = match merged_value(doc, "restore-chat-history", 0) {
            Some(Yaml::Boolean(b)) => *b,
            Some(Yaml::String(s)) => on(s),
            Some(Yaml::Integer(i)) => *i != 0,
            _ => false,
        };
        if restore {
            match merged_value(doc, "chat-history-file", 0) {
                Some(Yaml::String(s)) => out.push(("chat-history-file", s.clone())),
                None | Some(Yaml::Null) => {
                    out.push(("chat-history-file", AIDER_HISTORY_DEFAULT.to_string()));
                }
                Some(_) => return Err("`chat-history-file` is not a path".to_string()),
            }
        }
        for &key in AIDER_FILE_KEYS {
            match merged_value(doc, key, 0) {
                None | Some(Yaml::BadValue | Yaml::Null) => {}
                Some(Yaml::String(s)) => out.push((key, s.clone())),
                Some(Yaml::Array(items)) => {
                    for i in items {
                        match i {
                            Yaml::String(s) => out.push((key, s.clone())),
                            _ => return Err(format!("`{key}` lists something other than a path")),
                        }
                    }
                }
                Some(_) => return Err(format!("`{key}` is neither a path nor a list of paths")),
            }
        }
    }
    Ok(out)
}

/// The value of `key` in the mapping `map`: its own, else the first a merge key (`<<:`, a
/// mapping or a list of them, earlier ones first) gives, merges within merges followed.
fn merged_value<'y>(map: &'y Yaml, key: &str, depth: usize) -> Option<&'y Yaml> {
    let Yaml::Hash(h) = map else {
        return None;
    };
    if let Some(v) = h.get(&Yaml::String(key.to_string())) {
        return Some(v);
    }
    // The expansion is bounded (`MAX_YAML_NODES`), and so is this walk through it.
    if depth > 64 {
        return None;
    }
    match h.get(&Yaml::String("<<".to_string()))? {
        Yaml::Array(items) => items.iter().find_map(|m| merged_value(m, key, depth + 1)),
        m => merged_value(m, key, depth + 1),
    }
}

/// The most nodes a YAML configuration may hold with its aliases expanded: far above any
/// configuration's, far below what would exhaust memory (a "billion laughs" of a few
/// hundred bytes expands to billions, review s27 #8).
const MAX_YAML_NODES: u64 = 100_000;

/// `Err` naming the cause when `text`'s aliases expand past [`MAX_YAML_NODES`] nodes:
/// counted from the parser's events, each alias as the size of the node it names, without
/// expanding anything (time and memory linear in the text).
fn yaml_within_budget(text: &str) -> Result<(), String> {
    let total = yaml_expanded_nodes(text)
        .map_err(|e| format!("cannot be read for the instruction files it names: {e}"))?;
    if total > MAX_YAML_NODES {
        return Err(format!(
            "cannot be read for the instruction files it names: its aliases expand to more \
             than {MAX_YAML_NODES} nodes (a YAML alias bomb?); write the values out"
        ));
    }
    Ok(())
}

/// True when `text` parses as YAML whose aliases expand past [`MAX_YAML_NODES`] nodes: a
/// document too big to expand into values, however few its aliases.
pub(super) fn yaml_alias_bomb(text: &str) -> bool {
    yaml_expanded_nodes(text).is_ok_and(|n| n > MAX_YAML_NODES)
}

/// The nodes `text`'s YAML holds with its aliases expanded (saturating), counted from the
/// parser's events, each alias as the size of the node it names, without expanding anything
/// (time and memory linear in the text); `Err` when it does not parse.
fn yaml_expanded_nodes(text: &str) -> Result<u64, yaml_rust2::ScanError> {
    #[derive(Default)]
    struct Count {
        total: u64,
        /// The expanded size of each anchored node.
        sizes: std::collections::HashMap<usize, u64>,
        /// Each open collection: its anchor and the count when it opened.
        open: Vec<(usize, u64)>,
    }
    impl yaml_rust2::parser::MarkedEventReceiver for Count {
        fn on_event(&mut self, ev: yaml_rust2::parser::Event, _: yaml_rust2::scanner::Marker) {
            use yaml_rust2::parser::Event;
            match ev {
                Event::Scalar(_, _, anchor, _) => {
                    self.total = self.total.saturating_add(1);
                    if anchor > 0 {
                        self.sizes.insert(anchor, 1);
                    }
                }
                Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                    self.open.push((anchor, self.total));
                    self.total = self.total.saturating_add(1);
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    if let Some((anchor, from)) = self.open.pop()
                        && anchor > 0
                    {
                        self.sizes.insert(anchor, self.total - from);
                    }
                }
                Event::Alias(id) => {
                    let size = self.sizes.get(&id).copied().unwrap_or(1);
                    self.total = self.total.saturating_add(size);
                }
                _ => {}
            }
        }
    }
    let mut count = Count::default();
    yaml_rust2::parser::Parser::new_from_str(text).load(&mut count, true)?;
    Ok(count.total)
}

#[cfg(test)]
mod tests {
    use super::{Named, glob_base, glob_matcher, named, names_files};

    #[test]
    fn each_tool_names_its_files_from_its_own_directory() {
        let gemini =
            r#"{"contextFileName": "HELP.md", "context": {"fileName": ["A.md", "GEMINI.md"]}}"#;
        assert_eq!(
            named("web/.gemini/settings.json", gemini).unwrap(),
            [
                Named::Glob("web/**/A.md".into()),
                Named::Glob("web/**/GEMINI.md".into()),
                Named::Glob("web/**/HELP.md".into())
            ]
        );
        let opencode =
            "{\n  // team rules\n  \"instructions\": [\"docs/rules.md\", \"docs/*.md\",],\n}\n";
        assert_eq!(
            named("opencode.jsonc", opencode).unwrap(),
            [
                Named::Glob("**/docs/*.md".into()),
                Named::Glob("**/docs/rules.md".into())
            ]
        );
        // opencode: from any directory below the configuration up to the root; `{file:}`
        // from the configuration's own directory.
        assert_eq!(
            named(
                "pkg/.opencode/opencode.json",
                r#"{"instructions": ["./x.md", "../y.md"], "agent": {"a": {"prompt": "{file:./p.txt}"}}}"#
            )
            .unwrap(),
            [
                Named::Glob("pkg/**/x.md".into()),
                Named::Path("pkg/.opencode/p.txt".into()),
                Named::Path("x.md".into()),
                Named::Path("y.md".into())
            ]
        );
        assert_eq!(
            named(
                ".aider.conf.yml",
                "model: x\nread:\n  - docs/a.md\n  - b.md\n"
            )
            .unwrap(),
            [Named::Path("b.md".into()), Named::Path("docs/a.md".into())]
        );
        assert_eq!(
            named(".aider.conf.yml", "read: CONVENTIONS.md # ours\n").unwrap(),
            [Named::Path("CONVENTIONS.md".into())]
        );
        assert!(named(".aider.conf.yml", "model: x\n").unwrap().is_empty());
        // Merge keys, as PyYAML reads them; the user's own configuration is not judged.
        for merged in [
            "<<: {read: a.md}\n",
            "b: &b {read: a.md}\nc: &c {model: x}\n<<: [*c, *b]\n",
            "b: &b {read: a.md}\nd: &d {<<: *b}\n<<: *d\n",
        ] {
            assert_eq!(
                named(".aider.conf.yml", merged).unwrap(),
                [Named::Path("a.md".into())],
                "{merged}"
            );
        }
        assert_eq!(
            named(".aider.conf.yml", "read: [~/.config/aider/x.md, a.md]\n").unwrap(),
            [Named::Path("a.md".into())]
        );
        assert!(named("settings.json", gemini).unwrap().is_empty());
        assert!(names_files(".qwen/settings.json") && !names_files(".cursor/settings.json"));
        // Claude Code's settings name the files of a marketplace kept in the project.
        let claude = r#"{"extraKnownMarketplaces": {"a": {"source": {"source": "directory", "path": "./tools/market"}}, "b": {"source": {"source": "directory", "path": "/opt/market"}}, "c": {"source": {"source": "github", "repo": "o/r"}}}}"#;
        assert_eq!(
            named("pkg/.claude/settings.json", claude).unwrap(),
            [Named::Glob("pkg/tools/market/**".into())]
        );
    }

    #[test]
    fn codex_crush_and_vs_code_name_files_as_their_tools_read_them() {
        // Codex: fallback names anywhere below the project; an instructions file from the
        // configuration's directory and, failing closed, the project's.
        assert_eq!(
            named(
                "web/.codex/config.toml",
                "project_doc_fallback_filenames = [\"TEAM.md\", \"\"]\n[profiles.x]\nmodel_instructions_file = \"base.md\"\n"
            )
            .unwrap(),
            [
                Named::Glob("web/**/TEAM.md".into()),
                Named::Path("web/.codex/base.md".into()),
                Named::Path("web/base.md".into())
            ]
        );
        // Crush: a file or a directory, which the tree decides.
        assert_eq!(
            named(
                "app/crush.json",
                r#"{"options": {"context_paths": ["docs/"]}}"#
            )
            .unwrap(),
            [
                Named::Glob("app/docs/**".into()),
                Named::Path("app/docs".into())
            ]
        );
        // VS Code: folders turned on, and Copilot's files; a `text` entry is no file.
        assert_eq!(
            named(
                "w/.vscode/settings.json",
                r#"{"chat.instructionsFilesLocations": {"ai": true, "off": false},
                    "chat.promptFilesLocations": {"p": true},
                    "github.copilot.chat.testGeneration.instructions": [{"file": "t.md"}, {"text": "x"}],
                    "editor.tabSize": 4}"#
            )
            .unwrap(),
            [
                Named::Glob("w/ai/**/*.instructions.md".into()),
                Named::Glob("w/p/**/*.prompt.md".into()),
                Named::Path("w/t.md".into())
            ]
        );
        assert!(named(".vscode/settings.json", "{}").unwrap().is_empty());
        for (path, text) in [
            (".codex/config.toml", "model_instructions_file = 3\n"),
            (".codex/config.toml", "x = [\n"),
            (
                ".vscode/settings.json",
                r#"{"chat.instructionsFilesLocations": ["a"]}"#,
            ),
            (
                "crush.json",
                r#"{"options": {"context_paths": "~/notes.md"}}"#,
            ),
        ] {
            assert!(named(path, text).is_err(), "{path}: {text}");
        }
    }

    #[test]
    fn what_cannot_be_judged_in_the_tree_is_refused() {
        for (path, text) in [
            (
                "opencode.json",
                r#"{"instructions": ["https://example.com/r.md"]}"#,
            ),
            ("opencode.json", r#"{"instructions": ["../../outside.md"]}"#),
            ("opencode.json", r#"{"instructions": ["/etc/rules.md"]}"#),
            ("opencode.json", r#"{"instructions": ["~/rules.md"]}"#),
            ("opencode.json", r#"{"instructions": ["docs/[ab].md"]}"#),
            ("opencode.json", r#"{"instructions": [".git/x.md"]}"#),
            ("opencode.json", r#"{"x": "{file:../../up.md}"}"#),
            ("opencode.json", r#"{"x": "{file:/etc/passwd}"}"#),
            (".gemini/settings.json", r#"{"contextFileName": "$CTX"}"#),
            (
                ".gemini/settings.json",
                r#"{"context": {"fileName": ["${CTX}"]}}"#,
            ),
            (".aider.conf.yml", "read: ~/work/repo/x.md\n"),
            (".aider.conf.yml", "read: ~/.config/../work/x.md\n"),
            ("opencode.json", r#"{"instructions": "x.md" "#),
            ("opencode.json", r#"{"instructions": [1]}"#),
            (
                ".gemini/settings.json",
                r#"{"contextFileName": "../../x.md"}"#,
            ),
            (".aider.conf.yml", "read: {a: b}\n"),
            (".aider.conf.yml", "read: [\n"),
        ] {
            assert!(named(path, text).is_err(), "{path}: {text}");
        }
    }

    #[test]
    fn yaml_aliases_are_counted_expanded_and_a_bomb_refused() {
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..7 {
            let uses = vec![format!("*a{}", i - 1); 10].join(", ");
            bomb += &[
                "a",
                &i.to_string(),
                ": &a",
                &i.to_string(),
                " [",
                &uses,
                "]\n",
            ]
            .concat();
        }
        let err = named(".aider.conf.yml", &bomb).unwrap_err();
        assert!(err.contains("aliases expand"), "{err}");
        assert!(super::yaml_within_budget("a: &a [1, 2]\nb: *a\nc: *a\n").is_ok());
    }

    #[test]
    fn many_patterns_match_in_one_matcher() {
        let globs = [
            "web/**/HELP.md",
            "**/docs/Rules.md",
            "web/**/*.mdx",
            "x/**/N.md",
        ];
        let m = super::GlobsMatcher::new(globs).unwrap();
        for hit in [
            "web/HELP.md",
            "web/a/b/help.md",
            "docs/rules.md",
            "a/b/docs/RULES.md",
            "web/a/x.mdx",
            "x/N.md",
        ] {
            assert!(m.is_match(hit), "{hit}");
        }
        for miss in [
            "HELP.md",
            "webx/HELP.md",
            "docs/a/rules.md",
            "a.mdx",
            "y/x/N.md",
        ] {
            assert!(!m.is_match(miss), "{miss}");
        }
        assert_eq!(m.base(), "");
        assert_eq!(
            super::GlobsMatcher::new(["web/**/A.md", "web/b/*.md"])
                .unwrap()
                .base(),
            "web"
        );
    }

    #[test]
    fn globs_match_below_their_base_in_any_case() {
        let m = glob_matcher("docs/**/*.md").unwrap();
        assert!(m.is_match("docs/a.md") && m.is_match("DOCS/x/y/B.MD") && !m.is_match("a.md"));
        let one = glob_matcher("docs/*.md").unwrap();
        assert!(!one.is_match("docs/x/a.md"));
        assert_eq!(glob_base("web/**/HELP.md"), "web");
        assert_eq!(glob_base("**/HELP.md"), "");
    }
}
