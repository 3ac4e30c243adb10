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
/// The text of make's own `$(info …)`, `$(warning …)` and `$(error …)` is what make prints:
/// each starts a paragraph of its own, without the call around it (review gate32).
pub(crate) fn recipe_lines(raw: &str) -> View<'static> {
    let mut out = ViewBuilder::with_capacity(raw.len() + raw.len() / 8);
    let mut at = 0;
    for line in raw.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let kept = body
            .trim_start_matches([' ', '\t'])
            .trim_start_matches(['@', '-', '+', ' ', '\t']);
        let mut from = at + body.len() - kept.len();
        let mut rest = kept;
        while let Some(open) = ["$(info ", "$(warning ", "$(error "]
            .iter()
            .filter_map(|o| rest.find(o).map(|i| (i, o.len())))
            .min()
        {
            out.copy(&rest[..open.0], from);
            out.replace("\n\n", from + open.0, from + open.0 + open.1);
            from += open.0 + open.1;
            rest = &rest[open.0 + open.1..];
        }
        out.copy(rest, from);
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

/// `raw`, a script in `lang` whose lexer marked `marks`, with each literal read as its value
/// (review atk32 #3): each escape the language undoes replaced by the character it stands for
/// (`printf '\111…'`, dash's `echo "\0111…"`, Python's `"\x49…"` and `"\N{…}"`, Node's
/// `"\u0049…"`), and the quotes between literals the language joins dropped (`"Ign" "ore"`,
/// `'Ign''ore'`, `"Ign" + "ore"`). An escape of a control or an invisible character stays as
/// it is spelt: the rules for those read the raw text. The rest of the script as it is.
pub(crate) fn script<'a>(
    lang: super::code::Lang,
    raw: &'a str,
    marks: &[super::code::Mark],
) -> View<'a> {
    use super::code::{Lang, Mark};
    if marks.is_empty() {
        return View::identity(raw);
    }
    let mut out = ViewBuilder::with_capacity(raw.len());
    let mut copied = 0;
    for &mark in marks {
        match mark {
            Mark::Join(start, end) if start >= copied && end <= raw.len() => {
                out.copy(&raw[copied..start], copied);
                out.replace("", start, end);
                copied = end;
            }
            Mark::Escape(at) if at >= copied => {
                let decoded = match lang {
                    Lang::Shell => shell_escape(raw, at),
                    Lang::Python => python_escape(raw, at),
                    Lang::Js => js_escape(raw, at),
                };
                let Some((value, len)) = decoded else {
                    continue;
                };
                if value.chars().any(|c| {
                    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
                        || super::unicode::is_invisible_for_display(c)
                }) {
                    continue;
                }
                // An empty value (a line continued) leaves nothing: the copy resumes after it.
                out.copy(&raw[copied..at], copied);
                out.replace(&value, at, at + len);
                copied = at + len;
            }
            _ => {}
        }
    }
    out.copy(&raw[copied..], copied);
    out.build()
}

/// The character of up to `max` digits of `radix` at `raw[at..]` (at least one), with how
/// many were read.
fn digits_char(raw: &str, at: usize, max: usize, radix: u32) -> Option<(char, usize)> {
    let b = raw.as_bytes();
    let n = b[at.min(b.len())..]
        .iter()
        .take(max)
        .take_while(|c| (**c as char).is_digit(radix))
        .count();
    if n == 0 {
        return None;
    }
    let v = u32::from_str_radix(&raw[at..at + n], radix).ok()?;
    Some((char::from_u32(v)?, n))
}

/// Where `byte` is first found in the `within` bytes from `from`: a look that never reads
/// past them, whatever the text holds after.
fn bounded_find(raw: &str, from: usize, within: usize, byte: u8) -> Option<usize> {
    let b = raw.as_bytes();
    let end = (from + within).min(b.len());
    memchr::memchr(byte, b.get(from..end)?).map(|e| from + e)
}

/// The value of a C-style letter escape (`\n`, `\t`) other than a control's.
fn letter_escape(c: u8) -> Option<&'static str> {
    match c {
        b'n' => Some("\n"),
        b't' => Some("\t"),
        b'r' => Some("\r"),
        _ => None,
    }
}

/// The escape at `at` as `printf`, `echo -e`, dash's `echo` or `$'…'` read it: after one or
/// more backslashes (the shell's own quoting leaves one), `\0nnn` or `\nnn` in octal, `\xHH`,
/// `\uHHHH`, `\UHHHHHHHH`, a letter; `\"`, `\\`, `` \` `` and `\$` as double quotes read
/// them. A byte past ASCII (one of a UTF-8 sequence) stays as spelt.
fn shell_escape(raw: &str, at: usize) -> Option<(String, usize)> {
    let b = raw.as_bytes();
    // A few backslashes at most: a long run is read once, not once per escape in it.
    let slashes = b[at..].iter().take(4).take_while(|c| **c == b'\\').count();
    let j = at + slashes;
    let c = *b.get(j)?;
    let (ch, len) = match c {
        b'0' if b.get(j + 1).is_some_and(|d| (b'0'..=b'7').contains(d)) => {
            let (ch, n) = digits_char(raw, j + 1, 3, 8)?;
            (ch, n + 1)
        }
        b'0'..=b'7' => digits_char(raw, j, 3, 8)?,
        b'x' => digits_char(raw, j + 1, 2, 16).map(|(ch, n)| (ch, n + 1))?,
        b'u' => digits_char(raw, j + 1, 4, 16).map(|(ch, n)| (ch, n + 1))?,
        b'U' => digits_char(raw, j + 1, 8, 16).map(|(ch, n)| (ch, n + 1))?,
        b'"' | b'`' | b'$' if slashes == 1 => (c as char, 1),
        b'\\' => return None,
        _ => {
            let v = letter_escape(c)?;
            return Some((v.to_string(), slashes + 1));
        }
    };
    (ch.is_ascii() || !matches!(c, b'0'..=b'7' | b'x')).then(|| (ch.to_string(), slashes + len))
}

/// The escape at `at` of a Python string: `\xHH`, `\uHHHH`, `\UHHHHHHHH`, `\ooo`, `\N{NAME}`
/// (the names of ASCII letters, digits and common signs), a letter, a quote, a backslash, a
/// line continued.
fn python_escape(raw: &str, at: usize) -> Option<(String, usize)> {
    let b = raw.as_bytes();
    let c = *b.get(at + 1)?;
    let exact = |n: usize| hex_char(raw, at + 2, n).map(|ch| (ch.to_string(), n + 2));
    match c {
        b'x' => exact(2),
        b'u' => exact(4),
        b'U' => exact(8),
        b'0'..=b'7' => digits_char(raw, at + 1, 3, 8).map(|(ch, n)| (ch.to_string(), n + 1)),
        b'N' if b.get(at + 2) == Some(&b'{') => {
            let close = bounded_find(raw, at + 3, 64, b'}')?;
            let ch = char_named(&raw[at + 3..close])?;
            Some((ch.to_string(), close + 1 - at))
        }
        b'\'' | b'"' | b'\\' => Some(((c as char).to_string(), 2)),
        b'\n' => Some((String::new(), 2)),
        _ => letter_escape(c).map(|v| (v.to_string(), 2)),
    }
}

/// The character of a Unicode name Python's `\N{…}` reads, for the ASCII letters, digits
/// and the common signs (any letter case); `None` for another.
fn char_named(name: &str) -> Option<char> {
    let upper = name.trim().to_ascii_uppercase();
    let words: Vec<&str> = upper.split_whitespace().collect();
    match words.as_slice() {
        ["LATIN", "CAPITAL", "LETTER", l] if l.len() == 1 => {
            l.chars().next().filter(char::is_ascii_uppercase)
        }
        ["LATIN", "SMALL", "LETTER", l] if l.len() == 1 => l
            .chars()
            .next()
            .filter(char::is_ascii_uppercase)
            .map(|c| c.to_ascii_lowercase()),
        ["DIGIT", d] => [
            "ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE",
        ]
        .iter()
        .zip('0'..='9')
        .find(|(n, _)| *n == d)
        .map(|(_, c)| c),
        _ => {
            const SIGNS: &[(&str, char)] = &[
                ("SPACE", ' '),
                ("FULL STOP", '.'),
                ("COMMA", ','),
                ("COLON", ':'),
                ("SEMICOLON", ';'),
                ("HYPHEN-MINUS", '-'),
                ("APOSTROPHE", '\''),
                ("QUOTATION MARK", '"'),
                ("EXCLAMATION MARK", '!'),
                ("QUESTION MARK", '?'),
                ("SOLIDUS", '/'),
                ("LOW LINE", '_'),
                ("NUMBER SIGN", '#'),
                ("LEFT PARENTHESIS", '('),
                ("RIGHT PARENTHESIS", ')'),
                ("LINE FEED", '\n'),
            ];
            let joined = words.join(" ");
            SIGNS.iter().find(|(n, _)| *n == joined).map(|(_, c)| *c)
        }
    }
}

/// The escape at `at` of a JavaScript string or template: `\xHH`, `\uHHHH` (a surrogate pair
/// joined), `\u{…}`, legacy octal, a letter, a line continued, any other character as itself.
fn js_escape(raw: &str, at: usize) -> Option<(String, usize)> {
    let b = raw.as_bytes();
    let c = *b.get(at + 1)?;
    match c {
        b'x' => hex_char(raw, at + 2, 2).map(|ch| (ch.to_string(), 4)),
        b'u' if b.get(at + 2) == Some(&b'{') => {
            let close = bounded_find(raw, at + 3, 7, b'}')?;
            let v = u32::from_str_radix(&raw[at + 3..close], 16).ok()?;
            Some((char::from_u32(v)?.to_string(), close + 1 - at))
        }
        b'u' => {
            let hex = raw.get(at + 2..at + 6)?;
            let v = u32::from_str_radix(hex, 16)
                .ok()
                .filter(|_| hex.bytes().all(|d| d.is_ascii_hexdigit()))?;
            if (0xD800..0xDC00).contains(&v) && raw[at + 6..].starts_with("\\u") {
                let lo = raw.get(at + 8..at + 12)?;
                let w = u32::from_str_radix(lo, 16).ok()?;
                if (0xDC00..0xE000).contains(&w) {
                    let ch = char::from_u32(0x10000 + ((v - 0xD800) << 10) + (w - 0xDC00))?;
                    return Some((ch.to_string(), 12));
                }
            }
            Some((char::from_u32(v)?.to_string(), 6))
        }
        b'0'..=b'7' => digits_char(raw, at + 1, 3, 8).map(|(ch, n)| (ch.to_string(), n + 1)),
        b'\n' => Some((String::new(), 2)),
        b'\r' if b.get(at + 2) == Some(&b'\n') => Some((String::new(), 3)),
        _ if c.is_ascii() => Some((
            letter_escape(c).map_or_else(|| (c as char).to_string(), str::to_string),
            2,
        )),
        _ => None,
    }
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

    /// The text a script's literals stand for (review atk32 #3), mapped back to the spelling.
    fn script_value(lang: crate::lint::code::Lang, raw: &str) -> String {
        let parts = crate::lint::code::lex(lang, raw).expect("lexed");
        super::script(lang, raw, parts.marks()).text.into_owned()
    }

    #[test]
    fn script_literals_are_read_as_their_values() {
        use crate::lint::code::Lang;
        for (lang, raw, value) in [
            (
                Lang::Shell,
                r"printf '\111gn\157re\n'",
                "printf '\u{49}gnore\n'",
            ),
            (
                Lang::Shell,
                r#"echo "\0111gn" '\x6fre'"#,
                "echo \"Ign\" 'ore'",
            ),
            (Lang::Shell, r"echo $'\u0049gn'ore", "echo $'Ignore"),
            (Lang::Shell, r#"echo 'Ig''no'"re" x"#, "echo 'Ignore\" x"),
            (
                Lang::Shell,
                r"printf '\033[1m\0\n'",
                "printf '\\033[1m\\0\n'",
            ),
            (
                Lang::Python,
                r#"x = "\x49\N{latin small letter g}" "n" + 'o' r"\x72""#,
                "x = \"Igno\\x72\"",
            ),
            (
                Lang::Python,
                "x = (\"a\"\n     \"b\")  # \"\\x41\"",
                "x = (\"ab\")  # \"\\x41\"",
            ),
            (
                Lang::Python,
                r#"x = "\N{NOT A NAME}\u200b\t""#,
                "x = \"\\N{NOT A NAME}\\u200b\t\"",
            ),
            (
                Lang::Js,
                r#"x = "\u{49}\x67" + `n\o` + 'r\u0065'"#,
                "x = \"Ignore'",
            ),
            (
                Lang::Js,
                r#"x = "\uD835\uDC00" // "\x41""#,
                "x = \"\u{1D400}\" // \"\\x41\"",
            ),
            (Lang::Js, r#"f("a", "b")"#, r#"f("a", "b")"#),
        ] {
            assert_eq!(script_value(lang, raw), value, "{raw}");
        }
        let raw = r"printf '\111gnore'";
        let parts = crate::lint::code::lex(crate::lint::code::Lang::Shell, raw).unwrap();
        let v = super::script(crate::lint::code::Lang::Shell, raw, parts.marks());
        let at = v.text.find('I').unwrap();
        assert_eq!(v.to_source(at, at + 1), (8, 12));
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
