//! Compiles the credential catalogue (`src/lint/rules/catalogue/*.rules`, one file per provider
//! family) into Rust tables, so the binary parses nothing at start-up: each entry becomes one
//! keyword-gated pattern whose regex is compiled only when one of its literals occurs.
//!
//! The format is described in `src/lint/rules/catalogue/README.md`.

use std::fmt::Write as _;
use std::path::Path;

#[derive(Default)]
struct Entry {
    file: String,
    line: usize,
    kind: String,
    label: String,
    prefix: Vec<String>,
    near: Vec<String>,
    token: Option<String>,
    value: Option<String>,
    check: String,
    entropy: Option<f64>,
    show: Option<usize>,
    level: String,
    gap: usize,
    after: Option<usize>,
    before: Option<usize>,
    free: bool,
    letters: bool,
    generic: bool,
    examples: Vec<String>,
    negatives: Vec<String>,
}

fn fail(e: &Entry, msg: &str) -> ! {
    panic!("{}:{}: [{}] {msg}", e.file, e.line, e.kind)
}

fn list(v: &str) -> Vec<String> {
    v.split(',')
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .collect()
}

fn parse(file: &str, text: &str, out: &mut Vec<Entry>) {
    let mut cur: Option<Entry> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            if let Some(e) = cur.take() {
                out.push(e);
            }
            let (kind, label) = rest
                .split_once(']')
                .unwrap_or_else(|| panic!("{file}:{}: `[kind] label` expected", i + 1));
            cur = Some(Entry {
                file: file.to_string(),
                line: i + 1,
                kind: kind.trim().to_string(),
                label: label.trim().to_string(),
                check: "none".into(),
                level: "error".into(),
                gap: 40,
                ..Entry::default()
            });
            continue;
        }
        let e = cur
            .as_mut()
            .unwrap_or_else(|| panic!("{file}:{}: a field before any `[kind]`", i + 1));
        let (key, val) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("{file}:{}: `key: value` expected", i + 1));
        let val = val.trim();
        match key.trim() {
            "prefix" => e.prefix = list(val),
            "near" => e.near = list(val),
            "token" => e.token = Some(val.to_string()),
            "value" => e.value = Some(val.to_string()),
            "check" => e.check = val.to_string(),
            "entropy" => e.entropy = Some(val.parse().unwrap_or_else(|_| fail(e, "entropy"))),
            "show" => e.show = Some(val.parse().unwrap_or_else(|_| fail(e, "show"))),
            "level" => e.level = val.to_string(),
            "gap" => e.gap = val.parse().unwrap_or_else(|_| fail(e, "gap")),
            "after" => e.after = Some(val.parse().unwrap_or_else(|_| fail(e, "after"))),
            "before" => e.before = Some(val.parse().unwrap_or_else(|_| fail(e, "before"))),
            "free" => e.free = val == "yes",
            "letters" => e.letters = val == "yes",
            "generic" => e.generic = val == "yes",
            "ex" => e.examples.push(val.to_string()),
            "no" => e.negatives.push(val.to_string()),
            k => panic!("{file}:{}: unknown field `{k}`", i + 1),
        }
    }
    if let Some(e) = cur.take() {
        out.push(e);
    }
}

pub(crate) fn main() {
    let dir = Path::new("src/lint/rules/catalogue");
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("src/lint/rules/catalogue exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rules"))
        .collect();
    files.sort();
    let mut entries = Vec::new();
    for f in &files {
        println!("cargo::rerun-if-changed={}", f.display());
        let text = std::fs::read_to_string(f).expect("catalogue file is UTF-8");
        let name = f
            .file_stem()
            .expect("file name")
            .to_string_lossy()
            .into_owned();
        parse(&name, &text, &mut entries);
    }
    // Provider-specific entries first: of two findings on the same span the first one kept
    // wins, and a named provider says more than a generic secret word.
    entries.sort_by_key(|e| e.generic);
    let mut seen = std::collections::BTreeSet::new();
    let mut table = String::new();
    let mut patterns = String::new();
    let mut splits = String::new();
    for (i, e) in entries.iter().enumerate() {
        if !seen.insert(e.kind.clone()) {
            fail(e, "kind listed twice");
        }
        if e.examples.is_empty() {
            fail(e, "no `ex:` example");
        }
        if !matches!(
            e.check.as_str(),
            "none" | "crc32" | "jwt" | "json64" | "bech32" | "pem64"
        ) {
            fail(e, "unknown check");
        }
        if !matches!(e.level.as_str(), "error" | "warning") {
            fail(e, "level is error or warning");
        }
        let mut split = "None".to_string();
        let (context, keywords, regex, before, after) = match (&e.token, &e.value) {
            (Some(t), None) => {
                if e.prefix.is_empty() {
                    fail(e, "a `token:` entry needs `prefix:` literals");
                }
                (
                    false,
                    &e.prefix,
                    format!("(?-i:{t})"),
                    e.before.unwrap_or(16),
                    e.after.unwrap_or(320),
                )
            }
            (None, Some(v)) => {
                if e.near.is_empty() {
                    fail(e, "a `value:` entry needs `near:` words");
                }
                // Longest first: the alternation prefers `smtp_password` to `smtp_pass`.
                let mut pairs: Vec<(String, String)> =
                    e.near.iter().map(|w| (escape(w), w.clone())).collect();
                pairs.sort_by_key(|(w, _)| std::cmp::Reverse(w.len()));
                let words: Vec<String> = pairs.iter().map(|(w, _)| w.clone()).collect();
                let raw: Vec<&str> = pairs.iter().map(|(_, w)| w.as_str()).collect();
                split = if raw.iter().all(|w| w.is_ascii()) && splittable(v) {
                    format!(
                        "Some(Split {{ words: &{raw:?}, gap: {}, value: {:?} }})",
                        e.gap,
                        format!("^(?P<v>{v})(?:[^A-Za-z0-9+/_-]|$)")
                    )
                } else {
                    "None".to_string()
                };
                // The provider's word, a short gap (judged by the check), a boundary, the value.
                let re = format!(
                    "(?:{})(?P<gap>(?s:.){{0,{}}}?)[^A-Za-z0-9+/_-](?P<v>{v})(?:[^A-Za-z0-9+/_-]|$)",
                    words.join("|"),
                    e.gap
                );
                (
                    true,
                    &e.near,
                    re,
                    e.before.unwrap_or(2),
                    e.after.unwrap_or(e.gap + 260),
                )
            }
            _ => fail(e, "exactly one of `token:` and `value:`"),
        };
        let _ = writeln!(
            table,
            "    Entry {{ kind: {:?}, label: {:?}, #[cfg(test)] family: {:?}, context: {context}, free: {}, letters: {}, check: Check::{}, entropy: {:?}, show: {}, warning: {}, #[cfg(test)] examples: &{:?}, #[cfg(test)] negatives: &{:?} }},",
            e.kind,
            e.label,
            e.file,
            e.free,
            e.letters,
            match e.check.as_str() {
                "none" => "None",
                "crc32" => "Crc32",
                "jwt" => "Jwt",
                "json64" => "Json64",
                "bech32" => "Bech32",
                _ => "Pem64",
            },
            e.entropy.unwrap_or(-1.0),
            e.show.unwrap_or(if context {
                0
            } else {
                e.prefix[0].len().min(12)
            }),
            e.level == "warning",
            e.examples,
            e.negatives,
        );
        let token = e.token.as_deref().unwrap_or("");
        let gate = if context {
            "Some(near_word_gate)".to_string()
        } else if let Some(n) = run_after(token, keywords) {
            format!("Some(run_after_gate::<{n}>)")
        } else if starts_at_prefix(token, keywords) {
            "Some(word_start_gate)".to_string()
        } else if let Some(n) = run_before(token, keywords) {
            format!("Some(run_before_gate::<{n}>)")
        } else {
            "None".to_string()
        };
        let _ = writeln!(
            patterns,
            "    Pattern {{ rule: &SEC100, keywords: &{keywords:?}, regex: {regex:?}, before: {before}, after: {after}, check: check_entry::<{i}>, overlap: false, gate: {gate}, near: &[] }},",
        );
        let _ = writeln!(splits, "    {split},");
    }
    let n = entries.len();
    let code = format!(
        "/// Every catalogue entry, in file order.\npub(crate) static ENTRIES: [Entry; {n}] = [\n{table}];\n\n/// One keyword-gated pattern per entry (same order).\npub(crate) static PATTERNS: [Pattern; {n}] = [\n{patterns}];\n\n/// For each context entry whose regex can be matched in parts, the parts (same order).\npub(crate) static SPLITS: [Option<Split>; {n}] = [\n{splits}];\n"
    );
    let out =
        Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR set by cargo")).join("catalogue.rs");
    std::fs::write(out, code).expect("OUT_DIR writable");
}

/// Whether a context entry's value regex can be matched on its own, anchored where the full
/// regex would have it start (see `engine::Split`): the value is then searched in the text
/// after its boundary character, so it must not look behind its start (`\b`, `\B`, `^`,
/// `\A`) or set flags that would reach past it (`(?m)`); `$` and `\z` would mean the same,
/// but are refused too to keep the rule short.
fn splittable(v: &str) -> bool {
    let c: Vec<char> = v.chars().collect();
    let (mut i, mut class) = (0, false);
    while i < c.len() {
        match c[i] {
            '\\' => {
                if !class && matches!(c.get(i + 1), Some('b' | 'B' | 'A' | 'z')) {
                    return false;
                }
                i += 2;
                continue;
            }
            '[' => class = true,
            ']' => class = false,
            '^' | '$' if !class => return false,
            '(' if !class && c.get(i + 1) == Some(&'?') => {
                // `(?:`, `(?-i:`, `(?P<name>` open a group; `(?i)` sets flags for the rest.
                let flags: String = c[i + 2..]
                    .iter()
                    .take_while(|x| x.is_ascii_alphabetic() || **x == '-')
                    .collect();
                let after = c.get(i + 2 + flags.chars().count());
                if after == Some(&')') || !matches!(after, Some(':' | '<')) && flags != "P" {
                    return false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    true
}

/// For a token that opens with a boundary and `N` characters of a key's alphabet followed by
/// its literal (`(?:^|[^A-Za-z0-9])([A-Za-z0-9]{42}AzSe…`), where the literal starts with
/// every prefix (any case), `N`: a prefix found with fewer than `N` such characters before
/// it cannot be that literal, so its regex need not be compiled (random text of capital
/// letters and digits holds `AzSe` and the like by chance). The alphabet must lie within
/// letters, digits and `+/_-`, the characters the gate counts.
fn run_before(token: &str, prefixes: &[String]) -> Option<usize> {
    run_before_opening(token, prefixes).or_else(|| run_before_inside(token, prefixes))
}

/// [`run_before`] for a literal inside the token (`…:[A-Za-z0-9+/]{22}==`, Bitwarden's
/// access token ending in its key's padding): the one prefix, written once in the token,
/// right after a run of exactly `N` characters of a key's alphabet, the run's class simple
/// and the run not optional. Then `N` such characters stand before every match's literal.
fn run_before_inside(token: &str, prefixes: &[String]) -> Option<usize> {
    let [prefix] = prefixes else {
        return None;
    };
    if prefix.is_empty()
        || !prefix
            .bytes()
            .all(|c| "=:@%#,~!&;<>".as_bytes().contains(&c))
    {
        return None;
    }
    if token.matches(prefix.as_str()).count() != 1 || top_level_alternative(token) {
        return None;
    }
    let at = token.find(prefix.as_str())?;
    let head = token[..at].strip_suffix('}')?;
    let (head, n) = head.rsplit_once('{')?;
    let n: usize = n.parse().ok()?;
    let head = head.strip_suffix(']')?;
    let (_, class) = head.rsplit_once('[')?;
    // What follows the literal must not make it optional.
    let after = &token[at + prefix.len()..];
    (n > 0 && key_class(class) && !after.starts_with(['?', '*', '{'])).then_some(n)
}

fn run_before_opening(token: &str, prefixes: &[String]) -> Option<usize> {
    let rest = token.strip_prefix("(?:^|[^")?;
    let rest = &rest[rest.find("])(")? + 3..];
    let rest = rest.strip_prefix('[')?;
    let (class, rest) = rest.split_once(']')?;
    if !key_class(class) {
        return None;
    }
    let rest = rest.strip_prefix('{')?;
    let (n, rest) = rest.split_once('}')?;
    let n: usize = n.parse().ok()?;
    // The literal after the run, escapes undone, up to the first other construct.
    let mut literal = String::new();
    let mut chars = rest.chars();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => match chars.next() {
                Some(x) if !x.is_ascii_alphanumeric() => literal.push(x),
                _ => break,
            },
            x if x.is_ascii_alphanumeric() || "_-/:=@%#,~!&;<>'\"".contains(x) => literal.push(x),
            x => {
                // A quantifier may take the last character away.
                if matches!(x, '?' | '*' | '{') {
                    literal.pop();
                }
                break;
            }
        }
    }
    let literal = literal.to_ascii_lowercase();
    (n > 0
        && prefixes
            .iter()
            .all(|p| literal.starts_with(&p.to_ascii_lowercase())))
    .then_some(n)
}

/// Escapes a literal for a regex.
fn escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The run of a key's alphabet a token has right after its prefix at a word boundary
/// (`\\b(00[A-Za-z0-9_-]{40})…`): `N` when the token is the prefix, a class of letters, digits
/// and `+/_-`, and `{N}` or `{N,…}` of it, with no alternative at the top level. A prefix
/// that prose holds by the thousand (`00` in every time and year) then wakes nothing unless
/// that many key characters follow it.
fn run_after(token: &str, prefixes: &[String]) -> Option<usize> {
    let rest = token.strip_prefix("\\b")?;
    if top_level_alternative(rest) {
        return None;
    }
    let rest = rest.strip_prefix('(').unwrap_or(rest);
    let lit_len = rest.chars().take_while(char::is_ascii_alphanumeric).count();
    let (literal, rest) = rest.split_at(lit_len);
    if literal.is_empty() || !prefixes.iter().any(|p| p.eq_ignore_ascii_case(literal)) {
        return None;
    }
    let rest = rest.strip_prefix('[')?;
    let (class, rest) = rest.split_once(']')?;
    if !key_class(class) {
        return None;
    }
    let rest = rest.strip_prefix('{')?;
    let end = rest.find(['}', ','])?;
    rest[..end].parse().ok()
}

/// Whether a regex source has an alternative (`|`) at its top level, outside groups and
/// classes: such a token may start anywhere.
fn top_level_alternative(source: &str) -> bool {
    let (mut depth, mut class, mut escaped) = (0u32, false, false);
    for c in source.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' => class = true,
            ']' => class = false,
            '(' if !class => depth += 1,
            ')' if !class => depth = depth.saturating_sub(1),
            '|' if !class && depth == 0 => return true,
            _ => {}
        }
    }
    false
}

/// Whether a class's inside (`A-Za-z0-9_-`) is made only of a key's alphabet: letters,
/// digits and `+/_-`.
fn key_class(class: &str) -> bool {
    let allowed = ["A-Z", "a-z", "0-9", "+", "/", "_", "-"];
    let mut c = class;
    while !c.is_empty() {
        let Some(part) = allowed.iter().find(|p| c.starts_with(**p)) else {
            return false;
        };
        c = &c[part.len()..];
    }
    true
}

/// Whether every match of `token` starts with each of `prefixes` at a word boundary: the
/// regex opens with `\b` and a literal (up to its first metacharacter) that begins with a
/// word character and with every prefix (any case). Then a prefix found just after a word
/// character (`eaa` inside a hex digest, `ck_` inside `quick_context`) cannot start a token,
/// and the entry's regex need not be compiled for it.
fn starts_at_prefix(token: &str, prefixes: &[String]) -> bool {
    let Some(rest) = token.strip_prefix("\\b") else {
        return false;
    };
    // An alternative at the top level may start anywhere.
    if top_level_alternative(rest) {
        return false;
    }
    // The token's opening as a sequence of character sets: literal characters and simple
    // classes (`c[ks]_`), up to the first other construct. A quantifier after an element
    // may take it away: it ends the sequence without it.
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-/:=@%#,~!&;<>'\"".contains(c);
    let mut sets: Vec<Vec<char>> = Vec::new();
    let mut chars = rest.chars().peekable();
    while let Some(&c) = chars.peek() {
        if plain(c) {
            chars.next();
            sets.push(vec![c]);
        } else if c == '\\' {
            // An escaped punctuation character is that character (`s\.`, `hvb\.`).
            chars.next();
            match chars.next() {
                Some(e) if e.is_ascii_punctuation() => sets.push(vec![e]),
                _ => break,
            }
        } else if c == '[' {
            chars.next();
            let mut set = Vec::new();
            let mut closed = false;
            for c in chars.by_ref() {
                if c == ']' {
                    closed = true;
                    break;
                }
                set.push(c);
            }
            if !closed || set.is_empty() || !set.iter().all(|&c| plain(c) && c != '-') {
                break;
            }
            sets.push(set);
        } else {
            if matches!(c, '?' | '*' | '{') {
                sets.pop();
            }
            break;
        }
    }
    let word = |c: &char| c.is_ascii_alphanumeric() || *c == '_';
    !sets.is_empty()
        && sets[0].iter().all(word)
        && prefixes.iter().all(|p| {
            p.len() <= sets.len()
                && p.chars()
                    .zip(&sets)
                    .all(|(c, set)| set.iter().any(|s| s.eq_ignore_ascii_case(&c)))
        })
}
