//! The agent configuration files that name other files as instruction files (review s26 #4):
//! Gemini CLI's (and Qwen Code's) `contextFileName` / `context.fileName`, opencode's
//! `instructions`, aider's `read:`. The files they name are read by the agent as its
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
        Kind::Gemini => parent(dir),
        Kind::Opencode if matches!(dir.rsplit('/').next(), Some(".opencode" | ".kilo")) => {
            parent(dir)
        }
        Kind::Opencode | Kind::Aider => dir.to_string(),
    };
    let names = match kind {
        Kind::Gemini => {
            let v = parse_jsonc(text)?;
            let mut names = strings_at(&v, &["contextFileName"])?;
            names.extend(strings_at(&v, &["context", "fileName"])?);
            names
        }
        Kind::Opencode => strings_at(&parse_jsonc(text)?, &["instructions"])?,
        Kind::Aider => aider_reads(text)?,
    };
    let mut out = Vec::new();
    for name in names {
        let shown = crate::output::escape_untrusted(&name);
        if name.contains("://") {
            return Err(format!(
                "names {shown} as an instruction file: a remote file the gate cannot judge; \
                 commit the file and name its path"
            ));
        }
        if name.is_empty() {
            continue;
        }
        let up = kind == Kind::Gemini && name.split('/').any(|c| c == "..");
        if up || name.starts_with(['/', '~', '\\']) || name.contains('\\') || name.contains(':') {
            return Err(format!(
                "names {shown} as an instruction file, outside the work tree: agent \
                 instruction files must be files of the work tree"
            ));
        }
        let pattern = match kind {
            // A context file name is looked for in every directory of the project.
            Kind::Gemini => format!("**/{name}"),
            Kind::Opencode | Kind::Aider => name.clone(),
        };
        let Some(resolved) = crate::handoff::resolve_link(&base, &pattern) else {
            return Err(format!(
                "names {shown} as an instruction file, outside the work tree: agent \
                 instruction files must be files of the work tree"
            ));
        };
        if resolved.split('/').any(|c| c.eq_ignore_ascii_case(".git")) {
            return Err(format!(
                "names {shown} as an instruction file inside .git: agent instruction files \
                 must be files of the work tree"
            ));
        }
        if resolved.contains(['[', ']', '{', '}', '!']) {
            return Err(format!(
                "names {shown} as instruction files with a pattern the gate does not resolve \
                 (only `*`, `?` and `**`): name the files, or use those"
            ));
        }
        if resolved.contains(['*', '?']) {
            out.push(Named::Glob(resolved));
        } else {
            out.push(Named::Path(resolved));
        }
    }
    out.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    out.dedup();
    Ok(out)
}

/// The directory a glob's matches all lie below: its components before the first with a
/// wildcard.
pub fn glob_base(pattern: &str) -> String {
    pattern
        .split('/')
        .take_while(|c| !c.contains(['*', '?']))
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

/// `text` read as JSON with comments and trailing commas (the form these tools read).
pub(super) fn parse_jsonc(text: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(&strip_jsonc(text))
        .map_err(|e| format!("cannot be read for the instruction files it names: {e}"))
}

/// `text` with its `//` and `/* */` comments and its trailing commas blanked (to spaces, so
/// that lines and columns stay), strings left whole.
fn strip_jsonc(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let mut in_string = false;
    while i < b.len() {
        let c = b[i];
        if in_string {
            if c == b'\\' {
                i += 2;
                continue;
            }
            in_string = c != b'"';
            i += 1;
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                for o in &mut out[i..end] {
                    if *o != b'\n' {
                        *o = b' ';
                    }
                }
                i = end;
                continue;
            }
            b',' => {
                // A comma followed, past blanks and comments already blanked, by a closer.
                let mut j = i + 1;
                while j < b.len() {
                    if b[j].is_ascii_whitespace() {
                        j += 1;
                    } else if b[j] == b'/' && b.get(j + 1) == Some(&b'/') {
                        while j < b.len() && b[j] != b'\n' {
                            j += 1;
                        }
                    } else if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                        j = text[j + 2..].find("*/").map_or(b.len(), |e| j + 2 + e + 2);
                    } else {
                        break;
                    }
                }
                if matches!(b.get(j), Some(b'}' | b']')) {
                    out[i] = b' ';
                }
            }
            _ => {}
        }
        i += 1;
    }
    // Only ASCII bytes were replaced, by ASCII: still UTF-8.
    String::from_utf8(out).unwrap_or_default()
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

/// The files aider's `read:` names: a string or a list of strings.
fn aider_reads(text: &str) -> Result<Vec<String>, String> {
    let docs = YamlLoader::load_from_str(text)
        .map_err(|e| format!("cannot be read for the instruction files it names: {e}"))?;
    let mut out = Vec::new();
    for doc in &docs {
        let read = &doc["read"];
        match read {
            Yaml::BadValue | Yaml::Null => {}
            Yaml::String(s) => out.push(s.clone()),
            Yaml::Array(items) => {
                for i in items {
                    match i {
                        Yaml::String(s) => out.push(s.clone()),
                        _ => return Err("`read` lists something other than a path".into()),
                    }
                }
            }
            _ => return Err("`read` is neither a path nor a list of paths".into()),
        }
    }
    Ok(out)
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
                Named::Glob("docs/*.md".into()),
                Named::Path("docs/rules.md".into())
            ]
        );
        assert_eq!(
            named(
                "pkg/.opencode/opencode.json",
                r#"{"instructions": ["x.md"]}"#
            )
            .unwrap(),
            [Named::Path("pkg/x.md".into())]
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
        assert!(named("settings.json", gemini).unwrap().is_empty());
        assert!(names_files(".qwen/settings.json") && !names_files(".claude/settings.json"));
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
            ("opencode.json", r#"{"instructions": ["docs/{a,b}.md"]}"#),
            ("opencode.json", r#"{"instructions": [".git/x.md"]}"#),
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
    fn globs_match_below_their_base_in_any_case() {
        let m = glob_matcher("docs/**/*.md").unwrap();
        assert!(m.is_match("docs/a.md") && m.is_match("DOCS/x/y/B.MD") && !m.is_match("a.md"));
        let one = glob_matcher("docs/*.md").unwrap();
        assert!(!one.is_match("docs/x/a.md"));
        assert_eq!(glob_base("web/**/HELP.md"), "web");
        assert_eq!(glob_base("**/HELP.md"), "");
    }
}
