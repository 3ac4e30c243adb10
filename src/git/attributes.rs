//! The one checkout conversion that every clone applies from committed files alone:
//! `working-tree-encoding` (review s25 #1). Git stores such a file re-encoded to UTF-8 and
//! writes it back in the named encoding on checkout, so the bytes an agent reads are not the
//! blob the gate judged: text whose UTF-16 code units are ASCII pairs is CJK-looking
//! gibberish in the blob and plain English in the checkout. Filter drivers need a driver in
//! each clone's configuration (and `git-lfs` pointers are refused by their content); line
//! endings and `ident` change no words.
//!
//! Attributes are read as git reads committed `.gitattributes` files: the root's first,
//! then each directory's down to the file's, later lines overriding earlier ones; a pattern
//! without a slash matches the file's name at any depth below its file, one with a slash
//! the path from its file's directory; macros (`[attr]`) are defined in the root's file.
//! Where the reading is unsure (a quoted pattern, a pattern that does not compile), the
//! attribute is taken to apply.

use globset::GlobBuilder;

/// Where a `working-tree-encoding` other than UTF-8 is set for a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoding {
    /// The `.gitattributes` file (repository-relative) and its 1-based line.
    pub file: String,
    pub line: usize,
    /// The encoding named.
    pub value: String,
}

const ATTR: &str = "working-tree-encoding";

/// What one attribute field does to the encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Setting {
    /// Sets an encoding other than UTF-8.
    Encode(String),
    /// Unsets it, or names UTF-8 (no conversion).
    Plain,
}

/// The `working-tree-encoding` that the attributes files `chain` give `path`, when it is not
/// UTF-8. `chain` holds (directory, file path, contents) from the root down to the file's
/// directory, each directory at most once.
pub fn checkout_encoding(path: &str, chain: &[(&str, &str, &[u8])]) -> Option<Encoding> {
    // Macros that set the attribute, from the root's file: name -> encoding.
    let mut macros: Vec<(String, Setting)> = Vec::new();
    if let Some((_, _, root)) = chain.iter().find(|(dir, _, _)| dir.is_empty()) {
        for line in String::from_utf8_lossy(root).lines() {
            let Some(rest) = line.trim().strip_prefix("[attr]") else {
                continue;
            };
            let mut fields = rest.split_whitespace();
            let Some(name) = fields.next() else {
                continue;
            };
            if let Some(state) = fields.filter_map(setting).next_back() {
                macros.push((name.to_string(), state));
            }
        }
    }
    let mut state: Option<Encoding> = None;
    for (dir, file, text) in chain {
        let Some(rel) = (if dir.is_empty() {
            Some(path)
        } else {
            path.strip_prefix(&format!("{dir}/"))
        }) else {
            continue;
        };
        for (n, line) in String::from_utf8_lossy(text).lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with("[attr]") {
                continue;
            }
            let (pattern, attrs) = match line.strip_prefix('"') {
                // A quoted pattern (spaces, escapes): taken to match.
                Some(rest) => match rest.find('"') {
                    Some(end) => (None, &rest[end + 1..]),
                    None => continue,
                },
                None => match line.split_once(char::is_whitespace) {
                    Some((p, a)) => (Some(p), a),
                    None => continue,
                },
            };
            let mut set: Option<Setting> = None;
            for field in attrs.split_whitespace() {
                if let Some(s) = setting(field) {
                    set = Some(s);
                } else if let Some((_, m)) = macros.iter().rev().find(|(name, _)| name == field) {
                    set = Some(m.clone());
                } else if let Some(name) = field.strip_prefix('-').or(field.strip_prefix('!'))
                    && macros.iter().any(|(m, _)| m == name)
                {
                    set = Some(Setting::Plain);
                }
            }
            let Some(set) = set else {
                continue;
            };
            if pattern.is_some_and(|p| !matches(p, rel)) {
                continue;
            }
            state = match set {
                Setting::Encode(value) => Some(Encoding {
                    file: (*file).to_string(),
                    line: n + 1,
                    value,
                }),
                Setting::Plain => None,
            };
        }
    }
    state
}

/// What a field does to the encoding; `None` for another attribute.
fn setting(field: &str) -> Option<Setting> {
    if field == format!("-{ATTR}") || field == format!("!{ATTR}") {
        return Some(Setting::Plain);
    }
    let value = field.strip_prefix(ATTR)?;
    let value = match value.strip_prefix('=') {
        Some(v) => v,
        None if value.is_empty() => "",
        None => return None,
    };
    let utf8 = value.eq_ignore_ascii_case("utf-8") || value.eq_ignore_ascii_case("utf8");
    Some(if utf8 {
        Setting::Plain
    } else {
        Setting::Encode(value.to_string())
    })
}

/// True when a gitattributes pattern matches `rel` (the path from the pattern's file's
/// directory). A pattern that does not compile is taken to match.
fn matches(pattern: &str, rel: &str) -> bool {
    if pattern.ends_with('/') {
        // A directory pattern matches no file.
        return false;
    }
    let (glob, subject) = if pattern.contains('/') {
        (pattern.trim_start_matches('/'), rel)
    } else {
        (pattern, rel.rsplit('/').next().unwrap_or(rel))
    };
    match GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
    {
        Ok(g) => g.compile_matcher().is_match(subject),
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::checkout_encoding;

    fn at(path: &str, chain: &[(&str, &str, &str)]) -> Option<(String, usize, String)> {
        let chain: Vec<(&str, &str, &[u8])> = chain
            .iter()
            .map(|(d, f, t)| (*d, *f, t.as_bytes()))
            .collect();
        checkout_encoding(path, &chain).map(|e| (e.file, e.line, e.value))
    }

    #[test]
    fn patterns_precedence_macros_and_unsetting_are_read_as_git_reads_them() {
        let root = "# encodings\n*.ps1 working-tree-encoding=UTF-16LE\nCLAUDE.md text working-tree-encoding=UTF-16BE\n";
        assert_eq!(
            at("CLAUDE.md", &[("", ".gitattributes", root)]),
            Some((".gitattributes".into(), 3, "UTF-16BE".into()))
        );
        // A name pattern matches at any depth; a path pattern only from its directory.
        assert!(at("docs/CLAUDE.md", &[("", ".gitattributes", root)]).is_some());
        assert!(at("README.md", &[("", ".gitattributes", root)]).is_none());
        let anchored = "/notes/*.md working-tree-encoding=UTF-16BE\n";
        let chain = [(".ai/handoff", ".ai/handoff/.gitattributes", anchored)];
        assert!(at(".ai/handoff/notes/x.md", &chain).is_some());
        assert!(at(".ai/handoff/other/notes/x.md", &chain).is_none());
        assert!(at(".ai/handoff/notes/deep/x.md", &chain).is_none());
        // A deeper file overrides the root's; a later line overrides an earlier one.
        let chain = [
            (
                "",
                ".gitattributes",
                "*.md working-tree-encoding=UTF-16BE\n",
            ),
            (
                "docs",
                "docs/.gitattributes",
                "*.md -working-tree-encoding\n",
            ),
        ];
        assert!(at("docs/CLAUDE.md", &chain).is_none());
        assert!(at("CLAUDE.md", &chain).is_some());
        let later = "*.md working-tree-encoding=UTF-16BE\nAGENTS.md !working-tree-encoding\n";
        assert!(at("AGENTS.md", &[("", ".gitattributes", later)]).is_none());
        // UTF-8 converts nothing.
        let utf8 = "*.md working-tree-encoding=utf-8\n";
        assert!(at("AGENTS.md", &[("", ".gitattributes", utf8)]).is_none());
        // A macro of the root's file.
        let macros = "[attr]wide working-tree-encoding=UTF-16LE\n*.md wide\n";
        assert_eq!(
            at("STATUS.md", &[("", ".gitattributes", macros)]),
            Some((".gitattributes".into(), 2, "UTF-16LE".into()))
        );
        // A quoted pattern is taken to match; a directory pattern matches no file.
        let quoted = "\"my notes.md\" working-tree-encoding=UTF-16BE\n";
        assert!(at("STATUS.md", &[("", ".gitattributes", quoted)]).is_some());
        let dir = "notes/ working-tree-encoding=UTF-16BE\n";
        assert!(at("notes/x.md", &[("", ".gitattributes", dir)]).is_none());
        // Other attributes are no conversion of words.
        let other = "*.md text eol=crlf ident filter=lfs diff=markdown\n";
        assert!(at("STATUS.md", &[("", ".gitattributes", other)]).is_none());
    }
}
