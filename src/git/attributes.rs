//! The conversions that every clone or archive applies from committed files alone, on a
//! judged file: `working-tree-encoding` (review s25 #1) and `export-subst` (review s26 #3).
//! Git stores a `working-tree-encoding` file re-encoded to UTF-8 and writes it back in the
//! named encoding on checkout, so the bytes an agent reads are not the blob the gate judged:
//! text whose UTF-16 code units are ASCII pairs is CJK-looking gibberish in the blob and plain
//! English in the checkout. `export-subst` makes `git archive` (GitHub's source downloads,
//! release tarballs) replace `$Format:…$` with commit data. Filter drivers need a driver in
//! each clone's configuration (and `git-lfs` pointers are refused by their content); line
//! endings and `ident` change no words.
//!
//! Attributes are read as git's `attr.c` reads committed `.gitattributes` files (checked
//! against `git check-attr`): the root's first, then each directory's down to the file's,
//! later lines and later fields overriding earlier ones; a pattern without a slash matches
//! the file's name at any depth below its file, one with a slash the path from its file's
//! directory; a negative pattern, a line naming an invalid attribute and a line of 2048 bytes
//! or more are ignored; macros (`[attr]`) are defined in the root's file (the last definition
//! wins) and expand, macros naming macros included, only when set, each attribute taking the
//! first value it is given (which also ends cycles).
//!
//! Where git's own readings differ, every one is judged and the attribute counts when any
//! gives it: from the index (a fresh clone: the file ends at its first NUL, a UTF-8 BOM is
//! part of the first line) and from the working tree (a later `git restore`: a BOM is
//! skipped, a NUL ends only its line, the CR of a CRLF is dropped), each with patterns
//! matched case-sensitively and ASCII-case-insensitively (`core.ignorecase`, set in every
//! macOS and Windows clone). Judging both cases, not only the insensitive one, matters: a
//! line that unsets the attribute in another letter case unsets it only in a
//! case-insensitive clone. Where the reading is unsure (a pattern whose glob syntax is not
//! read here exactly as git's, or does not compile), the line is taken to match for the
//! values that convert and not to match for those that undo a conversion, so doubt only
//! fails closed.

use std::collections::HashMap;

use globset::{GlobBuilder, GlobMatcher};

/// Where a `working-tree-encoding` other than UTF-8 is set for a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoding {
    /// The `.gitattributes` file (repository-relative) and its 1-based line.
    pub file: String,
    pub line: usize,
    /// The encoding named.
    pub value: String,
}

/// A `.gitattributes` line: its file (repository-relative) and 1-based number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub file: String,
    pub line: usize,
}

/// The conversions committed attributes give one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Conversions {
    /// A `working-tree-encoding` other than UTF-8.
    pub encoding: Option<Encoding>,
    /// `export-subst` set.
    pub export_subst: Option<Origin>,
}

const ENCODING: &str = "working-tree-encoding";
const EXPORT_SUBST: &str = "export-subst";
/// Git ignores an attributes line this long or longer.
const MAX_LINE: usize = 2048;
/// Git's field separators (not vertical tab or form feed).
const BLANK: &[u8] = b" \t\r\n";

/// How git reads an attributes file: from the index (checkout) or the working tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    Index,
    Worktree,
}

/// The value one field gives an attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    /// `name`
    Set,
    /// `-name`
    Unset,
    /// `!name`
    Unspecified,
    /// `name=value`
    Text(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Field {
    name: String,
    value: Value,
}

/// A compiled pattern, case-sensitive and ASCII-case-insensitive.
#[derive(Debug, Clone)]
struct Pattern {
    /// Matches the file's name (no slash in the pattern) rather than its path.
    by_name: bool,
    /// `None`: the line is unsure (see the module doc).
    exact: Option<GlobMatcher>,
    folded: Option<GlobMatcher>,
}

#[derive(Debug, Clone)]
enum Head {
    Macro(String),
    /// `None` for a directory pattern, which matches no file.
    Pattern(Option<Pattern>),
}

#[derive(Debug, Clone)]
struct Line {
    number: usize,
    head: Head,
    fields: Vec<Field>,
}

/// One committed `.gitattributes` file, parsed once for both of git's readings.
#[derive(Debug, Clone)]
pub struct AttributesFile {
    /// Its directory ("" for the root) and path.
    dir: String,
    file: String,
    readings: [Vec<Line>; 2],
}

impl AttributesFile {
    /// Parses the file at `file` in directory `dir` ("" for the root).
    pub fn parse(dir: &str, file: &str, bytes: &[u8]) -> Self {
        let macro_ok = dir.is_empty();
        let read = |reading| {
            split_lines(bytes, reading)
                .filter_map(|(n, line)| parse_line(n, line, macro_ok))
                .collect()
        };
        Self {
            dir: dir.to_string(),
            file: file.to_string(),
            readings: [read(Reading::Index), read(Reading::Worktree)],
        }
    }
}

/// The conversions that the attributes files `chain` (from the root down to the file's
/// directory, each directory at most once) give `path`, under any of git's readings.
pub fn checkout_conversions(path: &str, chain: &[&AttributesFile]) -> Conversions {
    let mut out = Conversions::default();
    for reading in [Reading::Index, Reading::Worktree] {
        for folded in [false, true] {
            let found = evaluate(path, chain, reading as usize, folded);
            out.encoding = out.encoding.or(found.encoding);
            out.export_subst = out.export_subst.or(found.export_subst);
        }
    }
    out
}

/// The lines of `bytes` as git reads them, with their 1-based numbers.
fn split_lines(bytes: &[u8], reading: Reading) -> impl Iterator<Item = (usize, &[u8])> {
    let bytes = match reading {
        // Read as a C string: the first NUL ends the file.
        Reading::Index => &bytes[..bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len())],
        Reading::Worktree => bytes,
    };
    let ends_in_newline = bytes.last() == Some(&b'\n');
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if ends_in_newline || bytes.is_empty() {
        lines.pop();
    }
    let count = lines.len();
    lines
        .into_iter()
        .enumerate()
        .filter_map(move |(i, mut line)| {
            if reading == Reading::Worktree {
                if i == 0 {
                    line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
                }
                if i + 1 < count || ends_in_newline {
                    line = line.strip_suffix(b"\r").unwrap_or(line);
                }
                line = &line[..line.iter().position(|&b| b == 0).unwrap_or(line.len())];
            }
            (line.len() < MAX_LINE).then_some((i + 1, line))
        })
}

fn is_blank(b: u8) -> bool {
    BLANK.contains(&b)
}

/// Splits `s` after its leading blanks into its first blank-free token and the rest.
fn token(s: &[u8]) -> (&[u8], &[u8]) {
    let start = s.iter().position(|&b| !is_blank(b)).unwrap_or(s.len());
    let s = &s[start..];
    let end = s.iter().position(|&b| is_blank(b)).unwrap_or(s.len());
    s.split_at(end)
}

/// Git's attribute names: `[-_.0-9A-Za-z]`, not starting with `-`, not `builtin_…`.
fn valid_name(name: &[u8]) -> bool {
    !name.is_empty()
        && name[0] != b'-'
        && !name.starts_with(b"builtin_")
        && name
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// One line; `None` for a line git ignores (blank, comment, negative pattern, an invalid
/// name, a macro outside the root's file).
fn parse_line(number: usize, line: &[u8], macro_ok: bool) -> Option<Line> {
    let start = line.iter().position(|&b| !is_blank(b))?;
    let line = &line[start..];
    if line[0] == b'#' {
        return None;
    }
    let (name, rest) = if let Some((pattern, rest)) = unquote(line) {
        (pattern, rest)
    } else {
        let (name, rest) = token(line);
        (name.to_vec(), rest)
    };
    let head = match name.strip_prefix(b"[attr]") {
        Some(macro_name) if !macro_name.is_empty() => {
            if !macro_ok || !valid_name(macro_name) {
                return None;
            }
            Head::Macro(String::from_utf8_lossy(macro_name).into_owned())
        }
        _ if name.first() == Some(&b'!') => return None,
        _ => Head::Pattern(compile(&name)),
    };
    let mut fields = Vec::new();
    let mut rest = rest;
    loop {
        let (field, after) = token(rest);
        if field.is_empty() {
            break;
        }
        rest = after;
        let (value, name) = match field[0] {
            b'-' => (Value::Unset, &field[1..]),
            b'!' => (Value::Unspecified, &field[1..]),
            _ => match field.iter().position(|&b| b == b'=') {
                Some(eq) => (
                    Value::Text(String::from_utf8_lossy(&field[eq + 1..]).into_owned()),
                    &field[..eq],
                ),
                None => (Value::Set, field),
            },
        };
        // `-name=value` and `!name=value` name `name`.
        let name = match value {
            Value::Unset | Value::Unspecified => {
                &name[..name.iter().position(|&b| b == b'=').unwrap_or(name.len())]
            }
            _ => name,
        };
        if !valid_name(name) {
            return None;
        }
        fields.push(Field {
            name: String::from_utf8_lossy(name).into_owned(),
            value,
        });
    }
    Some(Line {
        number,
        head,
        fields,
    })
}

/// A C-style quoted pattern at the start of `s` (as `git` quotes paths): the pattern and
/// what follows the closing quote; `None` when `s` is not one (git then reads the quote as
/// part of an unquoted pattern).
fn unquote(s: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let mut rest = s.strip_prefix(b"\"")?;
    let mut out = Vec::new();
    loop {
        let (&c, after) = rest.split_first()?;
        rest = after;
        match c {
            b'"' => return Some((out, rest)),
            b'\\' => {
                let (&e, after) = rest.split_first()?;
                rest = after;
                out.push(match e {
                    b'a' => 0x07,
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'v' => 0x0b,
                    b'\\' | b'"' => e,
                    b'0'..=b'3' => {
                        let digits = rest.get(..2)?;
                        if !digits.iter().all(|d| (b'0'..=b'7').contains(d)) {
                            return None;
                        }
                        rest = &rest[2..];
                        ((e - b'0') << 6) | ((digits[0] - b'0') << 3) | (digits[1] - b'0')
                    }
                    _ => return None,
                });
            }
            _ => out.push(c),
        }
    }
}

/// Compiles a pattern; `None` for a directory pattern (`name/`), which matches no file.
fn compile(pattern: &[u8]) -> Option<Pattern> {
    if pattern.last() == Some(&b'/') {
        return None;
    }
    let by_name = !pattern.contains(&b'/');
    let glob = if by_name {
        pattern
    } else {
        pattern.strip_prefix(b"/").unwrap_or(pattern)
    };
    let Ok(glob) = std::str::from_utf8(glob) else {
        return Some(Pattern {
            by_name,
            exact: None,
            folded: None,
        });
    };
    // Git's wildmatch has no `{a,b}`, has `[:class:]`, and reads a `**` that is not a whole
    // path component as `*`; globset differs on each.
    let differs = glob.contains(['{', '}'])
        || glob.contains("[:")
        || glob.match_indices("**").any(|(i, _)| {
            (i > 0 && glob.as_bytes()[i - 1] != b'/')
                || glob.as_bytes().get(i + 2).is_some_and(|&b| b != b'/')
        });
    let build = |glob: &str| {
        if differs {
            return None;
        }
        GlobBuilder::new(glob)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .ok()
            .map(|g| g.compile_matcher())
    };
    Some(Pattern {
        by_name,
        exact: build(glob),
        // Git folds neither the ends of a range nor an escaped letter (`\C` matches nothing
        // in a case-insensitive clone); an ASCII fold of the glob is exact elsewhere.
        folded: if glob.contains(['[', '\\']) {
            None
        } else {
            build(&glob.to_ascii_lowercase())
        },
    })
}

/// Whether a pattern line applies to `rel`: `Some(true)`, `Some(false)`, or `None` unsure.
fn applies(pattern: &Pattern, rel: &str, folded: bool) -> Option<bool> {
    let subject = if pattern.by_name {
        rel.rsplit('/').next().unwrap_or(rel)
    } else {
        rel
    };
    if folded {
        let subject = subject.to_ascii_lowercase();
        pattern.folded.as_ref().map(|g| g.is_match(&subject))
    } else {
        pattern.exact.as_ref().map(|g| g.is_match(subject))
    }
}

/// Whether a `working-tree-encoding` value converts on checkout (a bare `working-tree-encoding`
/// makes git refuse the checkout, and is counted with them).
fn converts(value: &Value) -> bool {
    match value {
        Value::Set => true,
        Value::Unset | Value::Unspecified => false,
        Value::Text(v) => {
            !(v.is_empty() || v.eq_ignore_ascii_case("utf-8") || v.eq_ignore_ascii_case("utf8"))
        }
    }
}

/// One reading (index or working tree) and one case rule, as git's attribute lookup does it.
fn evaluate(path: &str, chain: &[&AttributesFile], reading: usize, folded: bool) -> Conversions {
    // The root's macros, the last definition of a name winning.
    let mut macros: HashMap<&str, &[Field]> = HashMap::new();
    if let Some(root) = chain.iter().find(|f| f.dir.is_empty()) {
        for line in &root.readings[reading] {
            if let Head::Macro(name) = &line.head {
                macros.insert(name, &line.fields);
            }
        }
    }
    let converting = |field: &Field| match field.name.as_str() {
        ENCODING => converts(&field.value),
        EXPORT_SUBST => field.value == Value::Set,
        name => field.value == Value::Set && macros.contains_key(name),
    };
    // Each attribute keeps the first value it is given, from the deepest file's last line up.
    let mut known: HashMap<&str, (&Value, &str, usize)> = HashMap::new();
    for file in chain.iter().rev() {
        let rel = if file.dir.is_empty() {
            path
        } else {
            match path.strip_prefix(file.dir.as_str()) {
                Some(r) if r.starts_with('/') => &r[1..],
                _ => continue,
            }
        };
        for line in file.readings[reading].iter().rev() {
            let sure = match &line.head {
                Head::Macro(_) | Head::Pattern(None) => continue,
                Head::Pattern(Some(p)) => match applies(p, rel, folded) {
                    Some(false) => continue,
                    Some(true) => true,
                    None => false,
                },
            };
            // Fields last to first; a macro set expands in place. An explicit stack, not
            // recursion: a chain of macros is as deep as the file is long.
            let mut stack = vec![line.fields.iter().rev()];
            while let Some(top) = stack.last_mut() {
                let Some(field) = top.next() else {
                    stack.pop();
                    continue;
                };
                if known.contains_key(field.name.as_str()) || !(sure || converting(field)) {
                    continue;
                }
                known.insert(&field.name, (&field.value, &file.file, line.number));
                if field.value == Value::Set
                    && let Some(body) = macros.get(field.name.as_str())
                {
                    stack.push(body.iter().rev());
                }
            }
        }
    }
    let encoding = known
        .get(ENCODING)
        .filter(|(v, _, _)| converts(v))
        .map(|(v, file, line)| Encoding {
            file: (*file).to_string(),
            line: *line,
            value: match v {
                Value::Text(t) => t.clone(),
                _ => String::new(),
            },
        });
    let export_subst = known
        .get(EXPORT_SUBST)
        .filter(|(v, _, _)| **v == Value::Set)
        .map(|(_, file, line)| Origin {
            file: (*file).to_string(),
            line: *line,
        });
    Conversions {
        encoding,
        export_subst,
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::{AttributesFile, checkout_conversions};

    fn chain(files: &[(&str, &str, &[u8])]) -> Vec<AttributesFile> {
        files
            .iter()
            .map(|(d, f, t)| AttributesFile::parse(d, f, t))
            .collect()
    }

    fn at(path: &str, files: &[(&str, &str, &str)]) -> Option<(String, usize, String)> {
        let bytes: Vec<(&str, &str, &[u8])> = files
            .iter()
            .map(|(d, f, t)| (*d, *f, t.as_bytes()))
            .collect();
        encoding(path, &bytes)
    }

    fn encoding(path: &str, files: &[(&str, &str, &[u8])]) -> Option<(String, usize, String)> {
        let parsed = chain(files);
        let refs: Vec<&AttributesFile> = parsed.iter().collect();
        checkout_conversions(path, &refs)
            .encoding
            .map(|e| (e.file, e.line, e.value))
    }

    fn root(text: &str) -> Option<(String, usize, String)> {
        at("CLAUDE.md", &[("", ".gitattributes", text)])
    }

    #[test]
    fn patterns_precedence_macros_and_unsetting_are_read_as_git_reads_them() {
        let base = "# encodings\n*.ps1 working-tree-encoding=UTF-16LE\nCLAUDE.md text working-tree-encoding=UTF-16BE\n";
        assert_eq!(
            at("CLAUDE.md", &[("", ".gitattributes", base)]),
            Some((".gitattributes".into(), 3, "UTF-16BE".into()))
        );
        // A name pattern matches at any depth; a path pattern only from its directory.
        assert!(at("docs/CLAUDE.md", &[("", ".gitattributes", base)]).is_some());
        assert!(at("README.md", &[("", ".gitattributes", base)]).is_none());
        let anchored = "/notes/*.md working-tree-encoding=UTF-16BE\n";
        let files = [(".ai/handoff", ".ai/handoff/.gitattributes", anchored)];
        assert!(at(".ai/handoff/notes/x.md", &files).is_some());
        assert!(at(".ai/handoff/other/notes/x.md", &files).is_none());
        assert!(at(".ai/handoff/notes/deep/x.md", &files).is_none());
        // A deeper file overrides the root's; a later line overrides an earlier one.
        let files = [
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
        assert!(at("docs/CLAUDE.md", &files).is_none());
        assert!(at("CLAUDE.md", &files).is_some());
        let later = "*.md working-tree-encoding=UTF-16BE\nCLAUDE.md !working-tree-encoding\n";
        assert!(root(later).is_none());
        // UTF-8 converts nothing.
        assert!(root("*.md working-tree-encoding=utf-8\n").is_none());
        // A macro of the root's file.
        let macros = "[attr]wide working-tree-encoding=UTF-16LE\n*.md wide\n";
        assert_eq!(
            root(macros),
            Some((".gitattributes".into(), 2, "UTF-16LE".into()))
        );
        // A quoted pattern is unquoted; a directory pattern matches no file.
        let quoted = "\"CLAUDE\\056md\" working-tree-encoding=UTF-16BE\n\"my notes.md\" -working-tree-encoding\n";
        assert!(root(quoted).is_some());
        let dir = "notes/ working-tree-encoding=UTF-16BE\n";
        assert!(at("notes/x.md", &[("", ".gitattributes", dir)]).is_none());
        // Other attributes are no conversion of words.
        let other = "*.md text eol=crlf ident filter=lfs diff=markdown\n";
        assert!(root(other).is_none());
    }

    /// Review s26 #2 (a): macros naming macros expand as git's do, only when set, the
    /// first value an attribute gets winning; a cycle ends.
    #[test]
    fn macros_that_name_macros_expand_and_cycles_end() {
        let nested =
            "[attr]utf16 working-tree-encoding=UTF-16BE\n[attr]wide utf16\nCLAUDE.md wide\n";
        assert_eq!(
            root(nested),
            Some((".gitattributes".into(), 3, "UTF-16BE".into()))
        );
        // Defined after its use, redefined (the last definition wins), three deep.
        assert!(
            root("CLAUDE.md a\n[attr]a b\n[attr]b c\n[attr]c working-tree-encoding=X\n").is_some()
        );
        assert!(root("[attr]w working-tree-encoding=X\n[attr]w text\nCLAUDE.md w\n").is_none());
        assert!(root("[attr]w text\n[attr]w working-tree-encoding=X\nCLAUDE.md w\n").is_some());
        // Unsetting a macro, or giving it a value, does not expand it, nor undo what an
        // earlier line set.
        let unset = "*.md working-tree-encoding=X\n[attr]wide text\nCLAUDE.md -wide\n";
        assert!(root(unset).is_some());
        assert!(root("[attr]w working-tree-encoding=X\nCLAUDE.md w=yes\n").is_none());
        assert!(root("[attr]w working-tree-encoding=X\nCLAUDE.md w\nCLAUDE.md !w\n").is_none());
        // Later fields win over a macro's, earlier ones lose to it.
        let mac = "[attr]w working-tree-encoding=X\n";
        assert!(root(&format!("{mac}CLAUDE.md w -working-tree-encoding\n")).is_none());
        assert!(root(&format!("{mac}CLAUDE.md -working-tree-encoding w\n")).is_some());
        // Cycles end, with or without the attribute inside.
        assert!(root("[attr]a b\n[attr]b a\nCLAUDE.md a\n").is_none());
        assert_eq!(
            root(
                "[attr]a b working-tree-encoding=A\n[attr]b a working-tree-encoding=B\nCLAUDE.md a\n"
            ),
            Some((".gitattributes".into(), 3, "A".into()))
        );
        // A chain as long as the file, without recursion.
        let mut long = String::new();
        for i in 0..50_000 {
            writeln!(long, "[attr]m{i} m{}", i + 1).unwrap();
        }
        long.push_str("[attr]m50000 working-tree-encoding=X\nCLAUDE.md m0\n");
        assert!(root(&long).is_some());
        // Macros are the root's only; `[attr]` alone, or with a space, names none.
        let files = [
            ("", ".gitattributes", "CLAUDE.md wide\n"),
            (
                "docs",
                "docs/.gitattributes",
                "[attr]wide working-tree-encoding=X\n",
            ),
        ];
        assert!(at("docs/CLAUDE.md", &files).is_none());
        assert!(
            root("[attr]wide working-tree-encoding=X\n[attr] wide -text\nCLAUDE.md wide\n")
                .is_some()
        );
    }

    /// Review s26 #2 (b): a UTF-8 BOM is skipped where git's working-tree reading skips it;
    /// both readings count.
    #[test]
    fn a_bom_a_nul_and_long_lines_are_read_both_ways_git_reads_them() {
        let bom: &[u8] = b"\xef\xbb\xbfCLAUDE.md working-tree-encoding=UTF-16BE\n";
        assert_eq!(
            encoding("CLAUDE.md", &[("", ".gitattributes", bom)]),
            Some((".gitattributes".into(), 1, "UTF-16BE".into()))
        );
        // A macro behind a BOM is one only to the working-tree reading; the index reading
        // then sets the attribute from the line before.
        let bom_macro: &[u8] = b"\xef\xbb\xbf[attr]plain -working-tree-encoding\nCLAUDE.md working-tree-encoding=X\nCLAUDE.md plain\n";
        assert!(encoding("CLAUDE.md", &[("", ".gitattributes", bom_macro)]).is_some());
        // The index reading ends at a NUL, so an unsetting line after one does not count.
        let nul: &[u8] =
            b"CLAUDE.md working-tree-encoding=X\n\0\nCLAUDE.md -working-tree-encoding\n";
        assert!(encoding("CLAUDE.md", &[("", ".gitattributes", nul)]).is_some());
        // Git ignores a line of 2048 bytes or more, and with it what it unsets.
        let long = format!(
            "CLAUDE.md working-tree-encoding=X\nCLAUDE.md -working-tree-encoding{}\n",
            " ".repeat(2048)
        );
        assert!(root(&long).is_some());
        // Fields are split on space, tab and CR only: a vertical tab unsets nothing.
        assert!(
            root("CLAUDE.md working-tree-encoding=X\nCLAUDE.md\x0b-working-tree-encoding\n")
                .is_some()
        );
        assert!(
            root("CLAUDE.md working-tree-encoding=X\rCLAUDE.md -working-tree-encoding\n").is_none()
        );
        // A line git drops (an invalid or reserved name, a negative pattern) unsets nothing.
        for dropped in [
            "CLAUDE.md -working-tree-encoding b@d",
            "CLAUDE.md -working-tree-encoding builtin_x",
            "!CLAUDE.md -working-tree-encoding",
        ] {
            assert!(
                root(&format!("CLAUDE.md working-tree-encoding=X\n{dropped}\n")).is_some(),
                "{dropped}"
            );
        }
    }

    /// Review s26 #2 (c): a case-insensitive clone matches patterns in any letter case, a
    /// case-sensitive one does not; what either sets counts.
    #[test]
    fn patterns_count_in_either_letter_case() {
        assert!(root("claude.md working-tree-encoding=UTF-16BE\n").is_some());
        assert!(root("*.MD working-tree-encoding=UTF-16BE\n").is_some());
        assert!(
            at(
                "Docs/CLAUDE.md",
                &[(
                    "",
                    ".gitattributes",
                    "docs/claude.md working-tree-encoding=X\n"
                )]
            )
            .is_some()
        );
        // Unset in another case: only a case-insensitive clone unsets it.
        assert!(
            root("CLAUDE.md working-tree-encoding=X\nclaude.md -working-tree-encoding\n").is_some()
        );
        // Set in another case, unset in its own: only a case-insensitive clone sets it.
        assert!(
            root("claude.md working-tree-encoding=X\nCLAUDE.md -working-tree-encoding\n").is_none()
        );
        assert!(
            root("CLAUDE.md -working-tree-encoding\nclaude.md working-tree-encoding=X\n").is_some()
        );
    }

    /// A pattern read here otherwise than git reads it counts when it sets the attribute and
    /// not when it unsets it.
    #[test]
    fn an_unsure_pattern_only_fails_closed() {
        assert!(root("{CLAUDE,x}.md working-tree-encoding=X\n").is_some());
        assert!(
            root("CLAUDE.md working-tree-encoding=X\n{CLAUDE,x}.md -working-tree-encoding\n")
                .is_some()
        );
        assert!(
            root("CLAUDE.md working-tree-encoding=X\n[[:upper:]]*.md -working-tree-encoding\n")
                .is_some()
        );
        assert!(
            root("CLAUDE.md working-tree-encoding=X\nCLA**.md -working-tree-encoding\n").is_some()
        );
        // Sure patterns still unset.
        assert!(
            root("CLAUDE.md working-tree-encoding=X\n**/CLAUDE.md -working-tree-encoding\n")
                .is_none()
        );
    }

    #[test]
    fn export_subst_is_read_through_macros() {
        let found = |text: &str| {
            let parsed = chain(&[("", ".gitattributes", text.as_bytes())]);
            let refs: Vec<&AttributesFile> = parsed.iter().collect();
            checkout_conversions("STATUS.md", &refs)
                .export_subst
                .map(|o| (o.file, o.line))
        };
        assert_eq!(
            found("STATUS.md export-subst\n"),
            Some((".gitattributes".into(), 1))
        );
        assert_eq!(
            found("[attr]release export-subst\n[attr]rel release\n*.md rel\n"),
            Some((".gitattributes".into(), 3))
        );
        assert_eq!(found("*.md export-subst\nSTATUS.md -export-subst\n"), None);
        assert_eq!(found("STATUS.md export-subst=yes\n"), None);
    }
}
