//! The string escapes of TOML and YAML configurations undone before judging (review s27
//! #4): a Gemini CLI command's `prompt = "\u0049gnore …"` and aider's
//! `openai-api-key: "\x73k-…"` are what the harness reads. The text stays whole, keys,
//! comments and other strings as they are; each escaped string is replaced by its value,
//! mapped back to the raw string.

use super::text::{View, ViewBuilder};

/// The name an agent configuration in JSON that parses neither strictly nor with comments
/// is linted under ([`super::agents::lint_name`]): judged as text, whole, with the escapes of
/// its double-quoted runs undone ([`json_text`]), since a lenient reader (VS Code's) may still
/// read its strings.
pub(crate) const JSON_TEXT: &str = "config.jsontext";

/// True for the name [`JSON_TEXT`].
pub(crate) fn is_json_text(name: &str) -> bool {
    name.eq_ignore_ascii_case(JSON_TEXT)
}

/// `raw` with the JSON escapes of each double-quoted run on a line (`\u0067`, surrogate
/// pairs) decoded; the rest, comments and stray text included, as it is.
pub(crate) fn json_text(raw: &str) -> View<'static> {
    let b = raw.as_bytes();
    let mut out = ViewBuilder::with_capacity(raw.len());
    let mut copied = 0;
    let mut i = 0;
    while let Some(q) = memchr::memchr(b'"', &b[i..]) {
        let mut j = i + q + 1;
        while j < b.len() && b[j] != b'"' && b[j] != b'\n' {
            if b[j] != b'\\' {
                j += 1;
                continue;
            }
            let (c, len) = super::json::decode_escape(raw, j);
            let len = len.min(b.len() - j);
            out.copy(&raw[copied..j], copied);
            let mut buf = [0u8; 4];
            out.replace(c.encode_utf8(&mut buf), j, j + len);
            j += len;
            copied = j;
        }
        i = (j + 1).min(b.len());
        if i >= b.len() {
            break;
        }
    }
    out.copy(&raw[copied..], copied);
    out.build()
}

/// True for a name read as TOML.
pub(crate) fn is_toml(name: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, e)| e.eq_ignore_ascii_case("toml"))
}

/// True for a file make, just or task reads recipes from (`Makefile`, `GNUmakefile`,
/// `*.mk`, `justfile`, `.justfile`, `*.just`, `Taskfile.yml` and its spellings), in any
/// letter case.
pub(crate) fn is_recipe_file(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "makefile"
            | "gnumakefile"
            | "justfile"
            | ".justfile"
            | "taskfile.yml"
            | "taskfile.yaml"
            | "taskfile.dist.yml"
            | "taskfile.dist.yaml"
    ) || lower
        .rsplit_once('.')
        .is_some_and(|(_, e)| e == "mk" || e == "just")
}

/// `raw` (a Makefile, a justfile, a Taskfile) as the shell receives it, line by line: each
/// line without its indent and the prefixes make and just strip (`@`, `-`, `+`; a YAML
/// list's `-`), and each a paragraph of its own. A target's line (`hook:`) is syntax, not a
/// lead-in that shows the command under it as an example; the command is what the agent's
/// run prints (review 32 #2: `@echo "…"` under `hook:` passed, the hook's own `echo` not).
pub(crate) fn recipe_lines(raw: &str) -> View<'static> {
    let mut out = ViewBuilder::with_capacity(raw.len() + raw.len() / 8);
    let mut at = 0;
    for line in raw.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let kept = body
            .trim_start_matches([' ', '\t'])
            .trim_start_matches(['@', '-', '+', ' ', '\t']);
        out.copy(kept, at + body.len() - kept.len());
        if body.len() < line.len() {
            out.replace("\n\n", at + body.len(), at + line.len());
        }
        at += line.len();
    }
    out.build()
}

/// True for a name read as YAML.
pub(crate) fn is_yaml(name: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, e)| e.eq_ignore_ascii_case("yml") || e.eq_ignore_ascii_case("yaml"))
}

/// `raw` (TOML) with the escapes of its basic strings (`"…"`, `"""…"""`) decoded; literal
/// strings (`'…'`, `'''…'''`) and comments as they are.
pub(crate) fn toml(raw: &str) -> View<'static> {
    let b = raw.as_bytes();
    let mut out = ViewBuilder::with_capacity(raw.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        match b[i] {
            b'#' => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |e| i + e);
            }
            b'\'' => {
                let (close, len) = if raw[i..].starts_with("'''") {
                    ("'''", 3)
                } else {
                    ("'", 1)
                };
                let from = i + len;
                let limit = if len == 1 {
                    memchr::memchr(b'\n', &b[from..]).map_or(b.len(), |e| from + e)
                } else {
                    b.len()
                };
                i = raw[from..limit]
                    .find(close)
                    .map_or(limit, |e| from + e + len);
            }
            b'"' => {
                let multi = raw[i..].starts_with("\"\"\"");
                let from = i + if multi { 3 } else { 1 };
                out.copy(&raw[copied..from], copied);
                i = toml_basic(raw, from, multi, &mut out);
                copied = i;
            }
            _ => i += 1,
        }
    }
    out.copy(&raw[copied..], copied);
    out.build()
}

/// Decodes a basic string's body from `from` into `out`, up to and including its closing
/// quotes (or the end of the line, or of the text); returns where it stopped.
fn toml_basic(raw: &str, from: usize, multi: bool, out: &mut ViewBuilder) -> usize {
    let b = raw.as_bytes();
    let mut j = from;
    let mut run = from;
    while j < b.len() {
        let c = b[j];
        if c == b'"' && (!multi || raw[j..].starts_with("\"\"\"")) {
            let end = j + if multi { 3 } else { 1 };
            out.copy(&raw[run..end], run);
            return end;
        }
        if c == b'\n' && !multi {
            break;
        }
        if c != b'\\' {
            j += 1;
            continue;
        }
        out.copy(&raw[run..j], run);
        let next = b.get(j + 1).copied();
        let decoded: Option<(String, usize)> = match next {
            Some(b'b') => Some(("\u{8}".into(), 2)),
            Some(b't') => Some(("\t".into(), 2)),
            Some(b'n') => Some(("\n".into(), 2)),
            Some(b'f') => Some(("\u{c}".into(), 2)),
            Some(b'r') => Some(("\r".into(), 2)),
            Some(b'e') => Some(("\u{1b}".into(), 2)),
            Some(b'"') => Some(("\"".into(), 2)),
            Some(b'\\') => Some(("\\".into(), 2)),
            Some(b'x') => hex_char(raw, j + 2, 2).map(|c| (c.to_string(), 4)),
            Some(b'u') => hex_char(raw, j + 2, 4).map(|c| (c.to_string(), 6)),
            Some(b'U') => hex_char(raw, j + 2, 8).map(|c| (c.to_string(), 10)),
            Some(b' ' | b'\t' | b'\r' | b'\n') if multi => {
                // A line-ending backslash: the white space up to the next text goes.
                let rest = raw[j + 1..]
                    .find(|ch: char| !ch.is_whitespace())
                    .map_or(b.len(), |e| j + 1 + e);
                Some((String::new(), rest - j))
            }
            _ => None,
        };
        if let Some((s, len)) = decoded {
            // A line-ending backslash leaves nothing in the view; the next run starts after.
            if !s.is_empty() {
                out.replace(&s, j, j + len);
            }
            j += len;
        } else {
            out.copy(&raw[j..=j], j);
            j += 1;
        }
        run = j;
    }
    out.copy(&raw[run..j], run);
    j
}

/// The character of the `digits` hexadecimal digits at `raw[at..]`.
fn hex_char(raw: &str, at: usize, digits: usize) -> Option<char> {
    let hex = raw.get(at..at + digits)?;
    if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    char::from_u32(u32::from_str_radix(hex, 16).ok()?)
}

/// `raw` (YAML) with each double-quoted scalar replaced by its value as the YAML scanner
/// reads it (`\x73`, `\u…`, `\U…`, line folding); the rest as it is. Where the scanner
/// stops on an error, the rest stays raw.
pub(crate) fn yaml(raw: &str) -> View<'static> {
    use yaml_rust2::scanner::{Scanner, TScalarStyle, TokenType};
    let mut out = ViewBuilder::with_capacity(raw.len());
    if !raw.contains('"') || !raw.contains('\\') {
        out.copy(raw, 0);
        return out.build();
    }
    // The scanner counts characters; the view counts bytes.
    let bytes_at: Vec<usize> = raw
        .char_indices()
        .map(|(at, _)| at)
        .chain(std::iter::once(raw.len()))
        .collect();
    let b = raw.as_bytes();
    let mut copied = 0;
    for token in Scanner::new(raw.chars()) {
        let TokenType::Scalar(TScalarStyle::DoubleQuoted, value) = token.1 else {
            continue;
        };
        let Some(&start) = bytes_at.get(token.0.index()) else {
            break;
        };
        if b.get(start) != Some(&b'"') || start < copied {
            continue;
        }
        // The closing quote: the first unescaped one.
        let mut j = start + 1;
        while j < b.len() && b[j] != b'"' {
            j += if b[j] == b'\\' { 2 } else { 1 };
        }
        let end = (j + 1).min(b.len());
        if !raw[start..end].contains('\\') {
            continue;
        }
        out.copy(&raw[copied..start], copied);
        out.replace(&format!("\"{value}\""), start, end);
        copied = end;
    }
    out.copy(&raw[copied..], copied);
    out.build()
}

#[cfg(test)]
mod tests {
    #[test]
    fn toml_basic_strings_are_decoded_and_literal_ones_kept() {
        let raw = "a = \"\\u0049gnore\" # \"\\u0041\"\nb = '\\u0042'\nc = \"\"\"x\\\n   y\\U00000067\"\"\"\nd = \"\\x73k\"\n";
        let v = super::toml(raw);
        assert_eq!(
            v.text,
            "a = \"Ignore\" # \"\\u0041\"\nb = '\\u0042'\nc = \"\"\"xyg\"\"\"\nd = \"sk\"\n"
        );
        let at = v.text.find("Ign").unwrap();
        let (s, e) = v.to_source(at, at + 1);
        assert_eq!(&raw[s..e], "\\u0049");
    }

    #[test]
    fn json_text_runs_are_decoded_where_they_stand() {
        let raw = "{\"a\": \"\\u0067hp_\\ud83d\\ude00\"}} // \"\\u0041\"\nstray \\u0042";
        let v = super::json_text(raw);
        assert_eq!(
            v.text,
            "{\"a\": \"ghp_\u{1F600}\"}} // \"A\"\nstray \\u0042"
        );
    }

    #[test]
    fn yaml_double_quoted_scalars_are_decoded() {
        let raw =
            "# \"\\x41\"\nkey: \"\\x73k-\\u0070roj\"\nplain: a \"\\x42\" b\nsingle: '\\x43'\n";
        let v = super::yaml(raw);
        assert_eq!(
            v.text,
            "# \"\\x41\"\nkey: \"sk-proj\"\nplain: a \"\\x42\" b\nsingle: '\\x43'\n"
        );
        let at = v.text.find("sk-").unwrap();
        let (s, e) = v.to_source(at, at + 2);
        assert_eq!(&raw[s..e], "\"\\x73k-\\u0070roj\"");
    }
}
