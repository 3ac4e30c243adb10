//! The parts of a script that can reach the agent (review s27b #6). A script a configuration
//! runs is code: what the agent reads is what it prints (a hook's output) or the strings it
//! sends (a server's tool descriptions), not its comments. [`lex`] splits a script of a
//! language family it knows (shell, Python, JavaScript/TypeScript) into comments, string
//! literals (here-documents included) and the rest, in one pass over its bytes; a script it
//! cannot tell apart (an unterminated string, a here-document without its end, a language it
//! does not know) gets `None` and is judged whole, as text.

/// A language family the lexer knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    /// `sh`, `bash`, `zsh`, `dash`, `ksh`.
    Shell,
    Python,
    /// JavaScript and TypeScript without JSX (whose text between tags is not a literal).
    Js,
}

impl Lang {
    /// True when the language's string literals are mostly what the program prints (a
    /// shell's `echo "…"`): a chat-template marker there forges a turn in the agent's context.
    /// A Python or JavaScript program builds prompts in its strings.
    pub(crate) fn prints_its_literals(self) -> bool {
        self == Lang::Shell
    }
}

/// The language of the script at `name` (its file name): by its extension, else by its
/// `#!` line; `None` when both name one and they differ (`x.py` starting `#!/bin/sh`, run as
/// `./x.py`, is read by the shell): the caller judges it whole, as text (review 32 #3).
pub(crate) fn lang(name: &str, text: &str) -> Option<Lang> {
    let lower = name.to_ascii_lowercase();
    let by_name = match lower.rsplit_once('.').map(|(_, e)| e) {
        Some("sh" | "bash" | "zsh" | "dash" | "ksh") => Some(Lang::Shell),
        Some("py" | "pyw") => Some(Lang::Python),
        Some("js" | "mjs" | "cjs" | "ts" | "mts" | "cts") => Some(Lang::Js),
        _ => None,
    };
    let by_line = shebang(text);
    match (by_name, by_line) {
        (Some(n), Some(l)) if n != l => None,
        (Some(n), _) => Some(n),
        (None, l) => l,
    }
}

/// The lexer a script of the repository a configuration runs is judged with: its own
/// language's ([`lang`]), else the closest the lexer knows for a language it does not (review
/// gate34 #5): the shell's for those that print their literals and comment with `#` (Ruby,
/// Perl, PowerShell, R, Tcl), JavaScript's for those whose strings and comments are C's
/// (PHP, Go, Java, Kotlin, Swift, C#, Rust). `None` (judged whole, as text) for any other,
/// and for a script whose `#!` line names a language the lexer knows that its name does not.
pub(crate) fn judged_lang(name: &str, text: &str) -> Option<Lang> {
    if let Some(l) = lang(name, text) {
        return Some(l);
    }
    if shebang(text).is_some() {
        return None;
    }
    let lower = name.to_ascii_lowercase();
    match lower.rsplit_once('.').map(|(_, e)| e) {
        Some("rb" | "pl" | "pm" | "ps1" | "psm1" | "r" | "tcl") => Some(Lang::Shell),
        Some(
            "php" | "go" | "java" | "kt" | "kts" | "swift" | "cs" | "scala" | "groovy" | "dart"
            | "rs",
        ) => Some(Lang::Js),
        _ => None,
    }
}

/// The language the program of the `#!` line starting `text` reads (`None`: no such line,
/// or a program the lexer does not know).
fn shebang(text: &str) -> Option<Lang> {
    let first = text.lines().next()?.strip_prefix("#!")?;
    // `/usr/bin/env -S bash -e` names its program after the options.
    let program = first
        .split_whitespace()
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .find(|w| *w != "env" && !w.starts_with('-'))?;
    let base = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match base {
        "sh" | "bash" | "zsh" | "dash" | "ksh" => Some(Lang::Shell),
        "python" | "pypy" => Some(Lang::Python),
        "node" | "deno" | "bun" | "tsx" | "ts-node" => Some(Lang::Js),
        _ => None,
    }
}

/// What a byte of a script is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Code,
    Comment,
    Literal,
}

/// A script split into its parts: runs of bytes of one kind, with the bytes of each kind
/// counted before each run, so that what a span holds is found by a binary search.
#[derive(Debug)]
pub(crate) struct Parts {
    /// (start, kind) of each run; a run ends where the next starts.
    runs: Vec<(usize, Part)>,
    /// Comment and literal bytes before each run.
    before: Vec<(usize, usize)>,
    len: usize,
    /// Where the text a literal stands for differs from its spelling ([`Mark`]), in order.
    marks: Vec<Mark>,
}

/// Where a literal's value differs from its spelling (review atk32 #3): what the program
/// prints is the value, so the rules judge it ([`super::escapes::script`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    /// A backslash escape of the language starts here (`\x49`, `\0111`, `\N{…}`).
    Escape(usize),
    /// The bytes `start..end` join two literals into one value and stand for nothing: the
    /// quotes (and `+`) between `"Ign" "ore"`, `'Ign''ore'`, `"Ign" + "ore"`.
    Join(usize, usize),
}

/// What a span of a script holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Holds {
    /// Every byte of it other than white space is a comment's.
    pub comment_only: bool,
    /// Some byte of it is a literal's.
    pub literal: bool,
    /// No byte of it is a comment's or a literal's.
    pub code_only: bool,
}

impl Parts {
    fn new(kinds: &[Part], text: &[u8], marks: Vec<Mark>) -> Parts {
        let mut runs: Vec<(usize, Part)> = Vec::new();
        for (i, &k) in kinds.iter().enumerate() {
            // White space between two comments belongs to them: a sentence that runs over
            // two comment lines is a comment's.
            let k = if k == Part::Code
                && text[i].is_ascii_whitespace()
                && runs.last().is_some_and(|r| r.1 == Part::Comment)
            {
                Part::Comment
            } else {
                k
            };
            if runs.last().is_none_or(|r| r.1 != k) {
                runs.push((i, k));
            }
        }
        let mut before = Vec::with_capacity(runs.len());
        let (mut c, mut l) = (0, 0);
        for (j, &(start, kind)) in runs.iter().enumerate() {
            before.push((c, l));
            let end = runs.get(j + 1).map_or(kinds.len(), |r| r.0);
            match kind {
                Part::Comment => c += end - start,
                Part::Literal => l += end - start,
                Part::Code => {}
            }
        }
        Parts {
            runs,
            before,
            len: kinds.len(),
            marks,
        }
    }

    /// Comment and literal bytes before `at`.
    fn counts_before(&self, at: usize) -> (usize, usize) {
        let at = at.min(self.len);
        let j = self.runs.partition_point(|r| r.0 <= at);
        if j == 0 {
            return (0, 0);
        }
        let (start, kind) = self.runs[j - 1];
        let (c, l) = self.before[j - 1];
        match kind {
            Part::Comment => (c + at - start, l),
            Part::Literal => (c, l + at - start),
            Part::Code => (c, l),
        }
    }

    /// Where the values of the script's literals differ from their spelling, in order.
    pub(crate) fn marks(&self) -> &[Mark] {
        &self.marks
    }

    /// The spans of the script's literals, in order.
    pub(crate) fn literal_spans(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.runs
            .iter()
            .enumerate()
            .filter_map(|(j, &(start, kind))| {
                let end = self.runs.get(j + 1).map_or(self.len, |r| r.0);
                (kind == Part::Literal).then_some((start, end))
            })
    }

    /// What the bytes `start..end` hold (the byte at `start` for an empty span).
    pub(crate) fn holds(&self, start: usize, end: usize) -> Holds {
        let end = end.max(start + 1).min(self.len);
        let start = start.min(end);
        let (c0, l0) = self.counts_before(start);
        let (c1, l1) = self.counts_before(end);
        let (comments, literals) = (c1 - c0, l1 - l0);
        Holds {
            comment_only: end > start && comments == end - start,
            literal: literals > 0,
            code_only: comments == 0 && literals == 0,
        }
    }
}

/// The steps of a lexer's work ([`super::steps`]), counted as it goes and added when it
/// ends, however it ends: each visit of a byte by its loop, and each byte an inner scan reads
/// without moving past it. Tests bound them by the text's length (linear, not timed).
#[derive(Debug, Default)]
struct Work(u64);

impl Work {
    fn add(&mut self, n: usize) {
        self.0 = self.0.saturating_add(n as u64);
    }
}

impl Drop for Work {
    fn drop(&mut self) {
        super::steps::add(self.0);
    }
}

/// The parts of `text`, a script in `lang`; `None` when the lexer cannot tell them apart.
pub(crate) fn lex(lang: Lang, text: &str) -> Option<Parts> {
    let b = text.as_bytes();
    let mut marks = Vec::new();
    let kinds = match lang {
        Lang::Shell => shell(b, &mut marks)?,
        Lang::Python => python(b, &mut marks)?,
        Lang::Js => js(b, &mut marks)?,
    };
    Some(Parts::new(&kinds, b, marks))
}

/// What a nested piece of code ends with: `)` of `$(`, a backquote, `}` of `${` or `{`.
#[derive(Debug, Clone, Copy)]
struct Nest {
    close: u8,
    /// Open brackets of the closing kind inside it.
    depth: usize,
    /// The string the code sits in (a `"…$(…)…"`, an f-string's `{…}`), resumed after it.
    resume: Option<Str>,
}

impl Nest {
    fn new(close: u8, resume: Option<Str>) -> Nest {
        Nest {
            close,
            depth: 0,
            resume,
        }
    }
}

/// A string being read.
#[derive(Debug, Clone, Copy)]
struct Str {
    quote: u8,
    triple: bool,
    /// Python's f-strings and JavaScript's templates hold code in braces; a shell's double
    /// quotes hold it in `$(…)` and backquotes.
    holds_code: bool,
    /// Its backslashes are its text (Python's `r"…"`): no escape to undo.
    raw: bool,
}

/// What the byte at `i` inside a string is to its reader.
enum Step {
    /// An escape: the string goes on here.
    Skip(usize),
    /// Read it.
    Read,
    /// A line ends a string that cannot hold one: the lexer cannot tell.
    Lost,
}

/// Marks the byte at `i` inside a string as a literal's and says what it is ([`Step`]).
fn string_byte(kinds: &mut [Part], b: &[u8], i: usize, one_line: bool) -> Step {
    kinds[i] = Part::Literal;
    match b[i] {
        b'\\' => Step::Skip(escape(kinds, i)),
        b'\n' if one_line => Step::Lost,
        _ => Step::Read,
    }
}

/// Marks the escape at `i` (a backslash and the byte it escapes) as a literal's; where the
/// text goes on.
fn escape(kinds: &mut [Part], i: usize) -> usize {
    let end = (i + 2).min(kinds.len());
    kinds[i..end].fill(Part::Literal);
    i + 2
}

/// A `}` in code: the end of an open brace inside it, or of the code itself (an f-string's
/// or a template's `{…}`), whose string then goes on.
fn close_brace(nests: &mut Vec<Nest>, string: &mut Option<Str>) {
    let Some(n) = nests.last_mut() else {
        return;
    };
    if n.depth > 0 {
        n.depth -= 1;
    } else {
        *string = n.resume;
        nests.pop();
    }
}

/// The end of the line that starts at or after `i`.
fn line_end(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| i + p)
}

/// Words that start a command without being its program (`if echo …`, `FOO=1 echo …`).
const SHELL_PREFIXES: &[&[u8]] = &[
    b"if", b"then", b"else", b"elif", b"while", b"until", b"do", b"time", b"!", b"{", b"command",
    b"builtin", b"exec", b"nohup",
];

/// Commands that print their arguments.
const SHELL_PRINTERS: &[&[u8]] = &[b"echo", b"printf", b"print", b"yes"];

/// A shell script's parts. A `#` starts a comment only at the start of a word after white
/// space or the line's start, and only outside nested commands. What the script prints is a
/// literal: its strings, here-documents, and the arguments of `echo`, `printf` and any
/// command whose name is spelt with quotes or a variable (it may be one of them); the other
/// commands' words are code.
fn shell(b: &[u8], marks: &mut Vec<Mark>) -> Option<Vec<Part>> {
    let mut kinds = vec![Part::Code; b.len()];
    // The nested commands, each with whether the command around it was printing.
    let mut nests: Vec<(Nest, bool)> = Vec::new();
    let mut string: Option<Str> = None;
    // Here-documents whose bodies start at the next line: (delimiter, tabs stripped).
    let mut heredocs: Vec<(Vec<u8>, bool)> = Vec::new();
    // At the start of a command, and in the arguments of one that prints.
    let (mut start, mut printing) = (true, false);
    let mut steps = Work::default();
    let mut i = 0;
    while i < b.len() {
        steps.add(1);
        let c = b[i];
        if let Some(open) = string {
            kinds[i] = Part::Literal;
            match c {
                b'\\' if open.quote == b'"' || open.quote == b'$' => {
                    marks.push(Mark::Escape(i));
                    i = escape(&mut kinds, i);
                    continue;
                }
                // In single quotes a backslash is text the shell hands on, and `printf`,
                // `echo -e` or dash's `echo` undo its escapes.
                b'\\' => marks.push(Mark::Escape(i)),
                b'"' if open.quote == b'"' => {
                    string = None;
                    shell_join_after(b, i, marks);
                }
                b'\'' if open.quote != b'"' => {
                    string = None;
                    shell_join_after(b, i, marks);
                }
                b'$' if open.holds_code && b.get(i + 1) == Some(&b'(') => {
                    nests.push((Nest::new(b')', Some(open)), printing));
                    (start, printing, string) = (true, false, None);
                    i += 2;
                    continue;
                }
                b'`' if open.holds_code => {
                    nests.push((Nest::new(b'`', Some(open)), printing));
                    (start, printing, string) = (true, false, None);
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        let word_start = i == 0 || b" \t\n;&|(".contains(&b[i - 1]);
        if printing && !b"\n;&|".contains(&c) {
            kinds[i] = Part::Literal;
        }
        match c {
            b'\\' => {
                if printing && i + 1 < b.len() {
                    kinds[i + 1] = Part::Literal;
                    // `echo \\0111…`: the shell leaves one backslash for `echo` to read.
                    if b[i + 1] == b'\\' {
                        marks.push(Mark::Escape(i));
                    }
                }
                i += 1;
            }
            b'#' if nests.is_empty() && (i == 0 || b" \t\n".contains(&b[i - 1])) => {
                let end = line_end(b, i);
                kinds[i..end].fill(Part::Comment);
                i = end;
                continue;
            }
            b'\'' => {
                let ansi = i > 0 && b[i - 1] == b'$';
                kinds[i] = Part::Literal;
                shell_join_before(b, if ansi { i - 1 } else { i }, i + 1, marks);
                // A command's name in quotes may be a printer's.
                if start && word_start {
                    (start, printing) = (false, true);
                }
                string = Some(Str {
                    quote: if ansi { b'$' } else { b'\'' },
                    triple: false,
                    holds_code: false,
                    raw: false,
                });
            }
            b'"' => {
                kinds[i] = Part::Literal;
                shell_join_before(b, i, i + 1, marks);
                if start && word_start {
                    (start, printing) = (false, true);
                }
                string = Some(Str {
                    quote: b'"',
                    triple: false,
                    holds_code: true,
                    raw: false,
                });
            }
            b'$' if b.get(i + 1) == Some(&b'(') => {
                nests.push((Nest::new(b')', None), printing || (start && word_start)));
                (start, printing) = (true, false);
                i += 2;
                continue;
            }
            b'(' => {
                match nests.last_mut() {
                    Some((n, _)) if n.close == b')' => n.depth += 1,
                    _ => {}
                }
                (start, printing) = (true, false);
            }
            b')' | b'`' => {
                let top = nests.last().map(|(n, p)| (n.close, n.depth, n.resume, *p));
                match top {
                    Some((close, depth, _, _)) if close == c && depth > 0 && c == b')' => {
                        if let Some((n, _)) = nests.last_mut() {
                            n.depth -= 1;
                        }
                        printing = false;
                    }
                    Some((close, _, resume, outer)) if close == c => {
                        nests.pop();
                        string = resume;
                        (start, printing) = (false, outer);
                    }
                    _ if c == b'`' => {
                        nests.push((Nest::new(b'`', None), printing || (start && word_start)));
                        (start, printing) = (true, false);
                    }
                    _ => printing = false,
                }
            }
            b'<' if b.get(i + 1) == Some(&b'<') && b.get(i + 2) != Some(&b'<') => {
                let (delimiter, strip, next) = heredoc_word(b, i + 2).ok()?;
                heredocs.push((delimiter, strip));
                i = next;
                continue;
            }
            b'\n' if !heredocs.is_empty() => {
                i = heredoc_bodies(b, i + 1, &std::mem::take(&mut heredocs), &mut |s, e| {
                    kinds[s..e].fill(Part::Literal);
                })?;
                (start, printing) = (true, false);
                continue;
            }
            b'\n' | b';' | b'&' | b'|' => (start, printing) = (true, false),
            c if start && word_start && !c.is_ascii_whitespace() => {
                let end = b[i..]
                    .iter()
                    .position(|x| x.is_ascii_whitespace() || b";&|()<>".contains(x))
                    .map_or(b.len(), |p| i + p);
                steps.add(end - i);
                let word = &b[i..end];
                let assignment = word.iter().position(|&x| x == b'=').is_some_and(|e| {
                    e > 0
                        && word[..e]
                            .iter()
                            .all(|x| x.is_ascii_alphanumeric() || *x == b'_')
                });
                if !SHELL_PREFIXES.contains(&word) && !assignment {
                    start = false;
                    // A name spelt with escapes or a variable may be a printer's.
                    printing = SHELL_PRINTERS.contains(&word)
                        || word.iter().any(|x| b"'\"\\$`".contains(x));
                    if SHELL_PRINTERS.contains(&word) {
                        kinds[i..end].fill(Part::Code);
                        i = end;
                        continue;
                    }
                    // The name is read as what it prints, from its first byte: a run never
                    // starts inside a character.
                    if printing {
                        kinds[i] = Part::Literal;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    (string.is_none() && nests.is_empty() && heredocs.is_empty()).then_some(kinds)
}

/// A byte that goes on a shell word (not white space, not an operator).
fn shell_word_byte(c: u8) -> bool {
    !c.is_ascii_whitespace() && !b";&|()<>".contains(&c)
}

/// A string's closing quote at `at` followed by more of its word (`'Ign''ore'`,
/// `"Ign"ore`): the shell joins them, so the quote stands for nothing.
fn shell_join_after(b: &[u8], at: usize, marks: &mut Vec<Mark>) {
    if b.get(at + 1).is_some_and(|&c| shell_word_byte(c)) {
        marks.push(Mark::Join(at, at + 1));
    }
}

/// A string's opening (`start..end`: a quote, `$'`) after more of its word: it stands for
/// nothing.
fn shell_join_before(b: &[u8], start: usize, end: usize, marks: &mut Vec<Mark>) {
    if start > 0 && shell_word_byte(b[start - 1]) && b[start - 1] != b'$' {
        marks.push(Mark::Join(start, end));
    }
}

/// After a string of Python or JavaScript that closes at `close..from`, the next one that
/// its value is joined to (Python's `"Ign" "ore"`, either's `"Ign" + "ore"`): marks the
/// bytes from the closing quote to the next one's opening quote as standing for nothing.
fn joined(
    b: &[u8],
    close: usize,
    from: usize,
    python: bool,
    marks: &mut Vec<Mark>,
    steps: &mut Work,
) {
    let blank = |mut j: usize| {
        while let Some(&c) = b.get(j) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                j += 1;
            } else if c == b'\\' && python && b.get(j + 1) == Some(&b'\n') {
                j += 2;
            } else {
                break;
            }
        }
        j
    };
    let mut j = blank(from);
    if b.get(j) == Some(&b'+') {
        j = blank(j + 1);
    } else if !python {
        steps.add(j - from);
        return;
    }
    let mut k = j;
    while python
        && k - j < 3
        && b.get(k)
            .is_some_and(|x| matches!(x.to_ascii_lowercase(), b'r' | b'b' | b'u' | b'f'))
    {
        k += 1;
    }
    steps.add(k - from);
    let Some(&q) = b.get(k) else {
        return;
    };
    if !(q == b'\'' || q == b'"' || q == b'`' && !python) {
        return;
    }
    let width = if python && b[k..].starts_with(&[q, q, q]) {
        3
    } else {
        1
    };
    marks.push(Mark::Join(close, k + width));
}

/// The delimiter of a here-document whose `<<` ends before `at`: (its word without quotes,
/// whether `<<-` strips leading tabs, where the word ends). For a word the lexer cannot read,
/// how far it read: the text's end past a quote left open, else where the empty word stops.
fn heredoc_word(b: &[u8], mut at: usize) -> Result<(Vec<u8>, bool, usize), usize> {
    let strip = b.get(at) == Some(&b'-');
    if strip {
        at += 1;
    }
    while matches!(b.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    let mut word = Vec::new();
    while let Some(&c) = b.get(at) {
        match c {
            b'\'' | b'"' => {
                let end = b[at + 1..].iter().position(|&x| x == c).ok_or(b.len())? + at + 1;
                word.extend_from_slice(&b[at + 1..end]);
                at = end + 1;
            }
            b'\\' => at += 1,
            c if c.is_ascii_whitespace()
                || matches!(c, b';' | b'|' | b'&' | b'<' | b'>' | b')') =>
            {
                break;
            }
            c => {
                word.push(c);
                at += 1;
            }
        }
    }
    if word.is_empty() {
        Err(at)
    } else {
        Ok((word, strip, at))
    }
}

/// Hands each line of the bodies of `heredocs`, one after another from `at`, to `body` (its
/// start and end, the newline included); where the last ends. `None` when one has no end
/// line.
fn heredoc_bodies(
    b: &[u8],
    mut at: usize,
    heredocs: &[(Vec<u8>, bool)],
    body: &mut dyn FnMut(usize, usize),
) -> Option<usize> {
    for (delimiter, strip) in heredocs {
        loop {
            if at >= b.len() {
                return None;
            }
            let end = line_end(b, at);
            let mut line = &b[at..end];
            if *strip {
                while let [b'\t', rest @ ..] = line {
                    line = rest;
                }
            }
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let next = (end + 1).min(b.len());
            if line == delimiter.as_slice() {
                at = next;
                break;
            }
            body(at, next);
            at = next;
        }
    }
    Some(at)
}

/// A command substituted in a word being read ([`shell_command_list`]): what the command around
/// it had read when it opened.
#[derive(Debug, Default)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent states of the word and command being read"
)]
struct Frame {
    words: Vec<String>,
    word: Vec<u8>,
    in_word: bool,
    redirect: bool,
    dquote: bool,
    /// `)` for `$(…)`, a backquote for `` `…` ``.
    close: u8,
    /// Open parentheses inside it.
    depth: usize,
    /// The redirection being read is of the standard input (`< file`).
    from_file: bool,
    /// The file the command's standard input comes from.
    stdin: Option<String>,
    /// The redirection being read is of the standard output (`> file`, `1>> file`, `&> file`).
    to_file: bool,
    /// The file the command's standard output goes to.
    stdout: Option<String>,
    /// The target of another redirection ([`ShellCommand::other_redirect`]).
    other_redirect: Option<String>,
    /// The command reads the output of the one before it (`a | b`).
    piped: bool,
    /// The subshells and substitutions around it.
    base: usize,
}

/// One simple command of shell text ([`shell_command_list`]): its words (quotes and escapes
/// undone) and where its standard input comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ShellCommand {
    pub(crate) words: Vec<String>,
    /// It reads the output of the command before it in the list (`cat x | sh`).
    pub(crate) piped: bool,
    /// The file its standard input is redirected from (`sh < x.sh`).
    pub(crate) stdin: Option<String>,
    /// The file its standard output is redirected to (`curl … > /dev/null`); not a
    /// descriptor it is joined to (`>&2`).
    pub(crate) stdout: Option<String>,
    /// Another of its redirections names a file no other field holds (`3<>/dev/tcp/h/80`,
    /// `2> log`): the last such target.
    pub(crate) other_redirect: Option<String>,
    /// The subshells and substitutions it runs in (`(cd d && e)`: 1), whose `cd` ends
    /// with them.
    pub(crate) nested: usize,
}

/// The state of [`shell_command_list`]: the commands read, and the command and word being read
/// (in the frame on top of `frames`' substitutions).
#[derive(Debug, Default)]
struct Words {
    commands: Vec<ShellCommand>,
    frames: Vec<Frame>,
    now: Frame,
}

impl Words {
    fn push(&mut self, c: u8) {
        self.now.word.push(c);
        self.now.in_word = true;
    }

    fn end_word(&mut self) {
        if self.now.in_word {
            let word = String::from_utf8_lossy(&self.now.word).into_owned();
            if !std::mem::take(&mut self.now.redirect) {
                self.now.words.push(word);
            } else if std::mem::take(&mut self.now.from_file) {
                self.now.stdin = Some(word);
            } else if std::mem::take(&mut self.now.to_file)
                && !word.bytes().all(|b| b.is_ascii_digit() || b == b'-')
            {
                self.now.stdout = Some(word);
            } else if !word.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
                self.now.other_redirect = Some(word);
            }
        }
        self.now.word.clear();
        self.now.in_word = false;
    }

    fn end_command(&mut self) {
        self.end_word();
        self.now.redirect = false;
        self.now.from_file = false;
        self.now.to_file = false;
        let stdin = self.now.stdin.take();
        let stdout = self.now.stdout.take();
        let other_redirect = self.now.other_redirect.take();
        if !self.now.words.is_empty() {
            // A pipe into a subshell (`a | (b)`) is the input of the first command in it.
            let piped = std::mem::take(&mut self.now.piped);
            let nested = self.now.base + self.now.depth;
            self.commands.push(ShellCommand {
                words: std::mem::take(&mut self.now.words),
                piped,
                stdin,
                stdout,
                other_redirect,
                nested,
            });
        }
    }

    /// A redirection: the word before it, when it is a descriptor's number, and the word
    /// after it, its target, are no words of the command; the target of `<` is its input.
    fn redirect(&mut self, from_file: bool, to_file: bool) {
        // The descriptor redirected (`2>`): the standard output's when none is written.
        let mut fd_out = true;
        if self.now.in_word && self.now.word.iter().all(u8::is_ascii_digit) {
            fd_out = self.now.word == b"1";
            self.now.word.clear();
            self.now.in_word = false;
        }
        self.end_word();
        self.now.redirect = true;
        self.now.from_file = from_file;
        self.now.to_file = to_file && fd_out;
    }

    /// A substituted command opens (`$(` or a backquote, `opened`): the word around it keeps
    /// it as written.
    fn open(&mut self, close: u8, opened: &[u8]) {
        let mut outer = std::mem::take(&mut self.now);
        outer.word.extend_from_slice(opened);
        outer.in_word = true;
        outer.close = close;
        self.now.base = outer.base + outer.depth + 1;
        self.frames.push(outer);
    }

    /// True when `c` closes the substituted command being read.
    fn closes(&self, c: u8) -> bool {
        self.frames.last().is_some_and(|f| f.close == c) && (c != b')' || self.now.depth == 0)
    }

    fn close(&mut self) {
        self.end_command();
        if let Some(mut outer) = self.frames.pop() {
            outer.word.push(outer.close);
            outer.close = 0;
            self.now = outer;
        }
    }

    fn finish(mut self) -> Vec<ShellCommand> {
        while !self.frames.is_empty() {
            self.close();
        }
        self.end_command();
        self.commands
    }
}

/// The simple commands of shell text (a script, a hook's command line), each as its words
/// with quotes and escapes undone, for telling what it runs, and where its input comes from:
/// a pipe (`cat x | sh`), a file (`sh < x`). Commands end at `;`, `&`, `|`, a newline or a
/// parenthesis; a command substituted in a word (`$(…)`, backquotes, a process `<(…)`) stays
/// in the word as written (so the word reads as named by a variable) and is a command of its
/// own too. An ANSI-C quoted word (`$'…'`) has its escapes undone. Comments, here-document
/// bodies and the targets of redirections are no words. One pass over the bytes; what is
/// left open at the end is closed there.
pub(crate) fn shell_command_list(text: &str) -> Vec<ShellCommand> {
    let b = text.as_bytes();
    let mut words = Words::default();
    let mut heredocs: Vec<(Vec<u8>, bool)> = Vec::new();
    let mut steps = Work::default();
    let mut i = 0;
    while i < b.len() {
        steps.add(1);
        let c = b[i];
        // A command substituted, in double quotes or not.
        if c == b'$' && b.get(i + 1) == Some(&b'(') {
            words.open(b')', b"$(");
            i += 2;
            continue;
        }
        if !words.now.dquote && c == b'$' && b.get(i + 1) == Some(&b'\'') {
            let next = ansi_c_word(b, i + 2, &mut words);
            steps.add(next - i);
            i = next;
            continue;
        }
        // A string for translation (`$"…"`): a double-quoted string, as it reads where no
        // catalogue translates it (review atk34 #3).
        if !words.now.dquote && c == b'$' && b.get(i + 1) == Some(&b'"') {
            i += 1;
            continue;
        }
        // A process substituted: a word holding a command's output (or input) as a file.
        if !words.now.dquote
            && matches!(c, b'<' | b'>')
            && b.get(i + 1) == Some(&b'(')
            && !words.now.in_word
        {
            words.open(b')', if c == b'<' { b"<(" } else { b">(" });
            i += 2;
            continue;
        }
        if words.now.dquote {
            match c {
                b'"' => words.now.dquote = false,
                b'\\' if b.get(i + 1).is_some_and(|n| b"$`\"\\\n".contains(n)) => {
                    if b[i + 1] != b'\n' {
                        words.push(b[i + 1]);
                    }
                    i += 2;
                    continue;
                }
                b'`' => words.open(b'`', b"`"),
                _ => words.push(c),
            }
            i += 1;
            continue;
        }
        match c {
            b'\'' => {
                let end = b[i + 1..]
                    .iter()
                    .position(|&x| x == b'\'')
                    .map_or(b.len(), |p| i + 1 + p);
                words.now.word.extend_from_slice(&b[i + 1..end]);
                words.now.in_word = true;
                i = end + 1;
                continue;
            }
            b'"' => {
                words.now.dquote = true;
                words.now.in_word = true;
            }
            b'\\' => {
                match b.get(i + 1) {
                    Some(b'\n') | None => {}
                    Some(&n) => words.push(n),
                }
                i += 2;
                continue;
            }
            b'`' if words.closes(b'`') => words.close(),
            b'`' => words.open(b'`', b"`"),
            b'#' if !words.now.in_word => {
                i = line_end(b, i);
                continue;
            }
            b'\n' => {
                words.end_command();
                if !heredocs.is_empty() {
                    let bodies = std::mem::take(&mut heredocs);
                    i = heredoc_bodies(b, i + 1, &bodies, &mut |_, _| {}).unwrap_or(b.len());
                    continue;
                }
            }
            b')' if words.closes(b')') => words.close(),
            b'(' | b')' => {
                words.end_command();
                words.now.depth = if c == b'(' {
                    words.now.depth + 1
                } else {
                    words.now.depth.saturating_sub(1)
                };
            }
            b'<' if b[i..].starts_with(b"<<<") => {
                words.redirect(false, false);
                i += 3;
                continue;
            }
            b'<' if b.get(i + 1) == Some(&b'<') => {
                words.end_word();
                match heredoc_word(b, i + 2) {
                    Ok((delimiter, strip, next)) => {
                        heredocs.push((delimiter, strip));
                        i = next;
                    }
                    Err(read_to) => {
                        // What the word's reader read, moving past only `<<`: to the end
                        // past an open quote (once: the quote then opens here too), else a
                        // few bytes (`<<-<`).
                        steps.add(read_to - i);
                        i += 2;
                    }
                }
                continue;
            }
            b'<' | b'>' | b'&' if c != b'&' || b.get(i + 1) == Some(&b'>') => {
                // `<` alone (or `0<`) reads a file: `<&`, `<>` do not.
                let from_file = c == b'<' && !b.get(i + 1).is_some_and(|x| b"<>&|".contains(x));
                // `>`, `>>`, `>|`, `&>`, `&>>`: the standard output goes to a file.
                let to_file = c == b'>' || c == b'&' && b.get(i + 1) == Some(&b'>');
                words.redirect(from_file, to_file);
                i += 1;
                while b.get(i).is_some_and(|x| b"<>&|".contains(x)) {
                    i += 1;
                }
                continue;
            }
            b'|' if b.get(i + 1) == Some(&b'|') => {
                words.end_command();
                i += 2;
                continue;
            }
            b'|' => {
                words.end_command();
                words.now.piped = true;
                // `|&` pipes the errors too.
                if b.get(i + 1) == Some(&b'&') {
                    i += 1;
                }
            }
            b';' | b'&' => words.end_command(),
            b' ' | b'\t' | b'\r' => words.end_word(),
            _ => words.push(c),
        }
        i += 1;
    }
    words.finish()
}

/// Reads an ANSI-C quoted word's text (`$'…'`) from `at` (past the quote) into the word
/// being read, escapes undone; where it ends.
fn ansi_c_word(b: &[u8], mut at: usize, words: &mut Words) -> usize {
    words.now.in_word = true;
    while at < b.len() {
        match b[at] {
            b'\'' => return at + 1,
            b'\\' if at + 1 < b.len() => {
                let e = b[at + 1];
                let plain = match e {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    b'a' => 7,
                    b'b' => 8,
                    b'e' | b'E' => 27,
                    b'f' => 12,
                    b'v' => 11,
                    b'x' => {
                        let hex = b[at + 2..]
                            .iter()
                            .take(2)
                            .take_while(|h| h.is_ascii_hexdigit())
                            .count();
                        let value = std::str::from_utf8(&b[at + 2..at + 2 + hex])
                            .ok()
                            .and_then(|h| u8::from_str_radix(h, 16).ok());
                        if let Some(v) = value {
                            words.now.word.push(v);
                            at += 2 + hex;
                            continue;
                        }
                        e
                    }
                    other => other,
                };
                words.now.word.push(plain);
                at += 2;
            }
            c => {
                words.now.word.push(c);
                at += 1;
            }
        }
    }
    at
}

/// A Python script's parts: `#` comments, strings with any prefix, triple-quoted or not,
/// and the expressions of f-strings (code, whose own strings are literals).
fn python(b: &[u8], marks: &mut Vec<Mark>) -> Option<Vec<Part>> {
    let mut kinds = vec![Part::Code; b.len()];
    let mut nests: Vec<Nest> = Vec::new();
    let mut string: Option<Str> = None;
    let mut steps = Work::default();
    let mut i = 0;
    while i < b.len() {
        steps.add(1);
        let c = b[i];
        if let Some(open) = string {
            match string_byte(&mut kinds, b, i, !open.triple) {
                Step::Skip(next) => {
                    if !open.raw {
                        marks.push(Mark::Escape(i));
                    }
                    i = next;
                    continue;
                }
                Step::Lost => return None,
                Step::Read => {}
            }
            if open.holds_code && c == b'{' {
                if b.get(i + 1) == Some(&b'{') {
                    kinds[i + 1] = Part::Literal;
                    i += 2;
                    continue;
                }
                nests.push(Nest::new(b'}', Some(open)));
                string = None;
                kinds[i] = Part::Code;
            } else if c == open.quote {
                if !open.triple {
                    string = None;
                    joined(b, i, i + 1, true, marks, &mut steps);
                } else if b[i..].starts_with(&[c, c, c]) {
                    kinds[i..i + 3].fill(Part::Literal);
                    string = None;
                    joined(b, i, i + 3, true, marks, &mut steps);
                    i += 3;
                    continue;
                }
            }
            i += 1;
            continue;
        }
        match c {
            b'#' if nests.is_empty() => {
                let end = line_end(b, i);
                kinds[i..end].fill(Part::Comment);
                i = end;
                continue;
            }
            b'\'' | b'"' => {
                // Its prefix (`rb`, `f`, …): letters just before it that start a word.
                let mut from = i;
                while from > 0 && i - from < 3 && b[from - 1].is_ascii_alphabetic() {
                    from -= 1;
                }
                let word_start =
                    from == 0 || !(b[from - 1].is_ascii_alphanumeric() || b[from - 1] == b'_');
                let prefix = &b[from..i];
                let is_prefix = word_start
                    && prefix.iter().all(|x| {
                        matches!(x.to_ascii_lowercase(), b'r' | b'b' | b'u' | b'f' | b't')
                    });
                let f = is_prefix
                    && prefix
                        .iter()
                        .any(|x| matches!(x, b'f' | b'F' | b't' | b'T'));
                let triple = b[i..].starts_with(&[c, c, c]);
                let width = if triple { 3 } else { 1 };
                kinds[i..i + width].fill(Part::Literal);
                string = Some(Str {
                    quote: c,
                    triple,
                    holds_code: f,
                    raw: is_prefix && prefix.iter().any(|x| matches!(x, b'r' | b'R')),
                });
                i += width;
                continue;
            }
            b'{' | b'(' | b'[' => {
                if let Some(n) = nests.last_mut() {
                    n.depth += usize::from(c == b'{');
                }
            }
            b'}' => close_brace(&mut nests, &mut string),
            _ => {}
        }
        i += 1;
    }
    (string.is_none() && nests.is_empty()).then_some(kinds)
}

/// A JavaScript or TypeScript script's parts: `//` and `/* */` comments (a `#!` first line
/// too), strings, templates with their `${…}` code, and regular expressions (code). A `//`
/// right after `:` (a URL outside a string) is not taken for a comment.
fn js(b: &[u8], marks: &mut Vec<Mark>) -> Option<Vec<Part>> {
    let mut kinds = vec![Part::Code; b.len()];
    let mut nests: Vec<Nest> = Vec::new();
    let mut string: Option<Str> = None;
    let mut i = 0;
    if b.starts_with(b"#!") {
        i = line_end(b, 0);
        kinds[..i].fill(Part::Comment);
    }
    // The last byte of code that is not white space, for telling a regular expression from
    // a division.
    let mut last: Option<usize> = None;
    let mut steps = Work::default();
    while i < b.len() {
        steps.add(1);
        let c = b[i];
        if let Some(open) = string {
            match string_byte(&mut kinds, b, i, open.quote != b'`') {
                Step::Skip(next) => {
                    marks.push(Mark::Escape(i));
                    i = next;
                    continue;
                }
                Step::Lost => return None,
                Step::Read => {}
            }
            if open.holds_code && c == b'$' && b.get(i + 1) == Some(&b'{') {
                nests.push(Nest::new(b'}', Some(open)));
                string = None;
                kinds[i] = Part::Code;
                i += 2;
                last = Some(i - 1);
                continue;
            }
            if c == open.quote {
                string = None;
                last = Some(i);
                joined(b, i, i + 1, false, marks, &mut steps);
            }
            i += 1;
            continue;
        }
        match c {
            b'/' if b.get(i + 1) == Some(&b'/') && (i == 0 || b[i - 1] != b':') => {
                let end = line_end(b, i);
                kinds[i..end].fill(Part::Comment);
                i = end;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = b[i + 2..].windows(2).position(|w| w == b"*/")? + i + 4;
                kinds[i..end].fill(Part::Comment);
                i = end;
                continue;
            }
            b'/' if regex_may_start(b, last, &mut steps) => {
                i = regex_end(b, i)?;
                last = Some(i - 1);
                continue;
            }
            b'\'' | b'"' | b'`' => {
                kinds[i] = Part::Literal;
                string = Some(Str {
                    quote: c,
                    triple: false,
                    holds_code: c == b'`',
                    raw: false,
                });
            }
            b'{' => {
                if let Some(n) = nests.last_mut() {
                    n.depth += 1;
                }
            }
            b'}' => close_brace(&mut nests, &mut string),
            _ => {}
        }
        if !c.is_ascii_whitespace() && string.is_none() {
            last = Some(i);
        }
        i += 1;
    }
    (string.is_none() && nests.is_empty()).then_some(kinds)
}

/// True when a `/` after the code byte at `last` starts a regular expression: after an
/// operator, an opening bracket, a separator, a keyword that takes an expression, or at the
/// start.
fn regex_may_start(b: &[u8], last: Option<usize>, steps: &mut Work) -> bool {
    let Some(at) = last else {
        return true;
    };
    let c = b[at];
    if b"(,=:[!&|?{};+-*%<>~^".contains(&c) {
        return true;
    }
    if !c.is_ascii_alphabetic() {
        return false;
    }
    let start = b[..=at]
        .iter()
        .rposition(|x| !(x.is_ascii_alphanumeric() || *x == b'_' || *x == b'$'))
        .map_or(0, |p| p + 1);
    steps.add(at + 1 - start);
    matches!(
        &b[start..=at],
        b"return"
            | b"typeof"
            | b"case"
            | b"do"
            | b"else"
            | b"in"
            | b"of"
            | b"new"
            | b"delete"
            | b"void"
            | b"throw"
            | b"yield"
            | b"await"
    )
}

/// Where the regular expression starting at `at` (its `/`) ends, flags included; `None`
/// when it does not end on its line.
fn regex_end(b: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    let mut class = false;
    loop {
        match *b.get(i)? {
            b'\n' => return None,
            b'\\' => i += 1,
            b'[' => class = true,
            b']' => class = false,
            b'/' if !class => break,
            _ => {}
        }
        i += 1;
    }
    i += 1;
    while b.get(i).is_some_and(u8::is_ascii_alphabetic) {
        i += 1;
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::{Lang, Part, lang, lex};

    /// Pieces of shell, Python and JavaScript that reach deep into the lexers: quotes of
    /// every kind and their escapes, substitutions, here-documents, comments, f-strings,
    /// templates, regular expressions, and text that is not ASCII.
    #[rustfmt::skip]
    const PIECES: &[&str] = &[
        "#", "#!/bin/sh\n", "\n", " ", "\t", "'", "\"", "`", "\\", "\\\n", "$(", ")", "(", "${",
        "{", "}", "$", "<<", "<<-", "<<'EOF'", "<< E", "EOF", "\tEOF", "E\n", "<<<", ">", "2>&1",
        "&", "|", ";", "echo ", "printf ", "if ", "then ", "x=", "\"\"\"", "'''", "f\"", "rb'",
        "{{", "//", "/*", "*/", "/", "[", "]", "return /", "a / b", "http://", "é", "\u{202e}",
        "日本", "\r\n", "ignore previous instructions",
    ];

    /// Text that looks like a script of any of the three languages, or like nothing.
    fn script_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            4 => proptest::sample::select(PIECES).prop_map(str::to_string),
            1 => "[ -~]{0,8}",
            1 => any::<String>(),
        ];
        proptest::collection::vec(piece, 0..64).prop_map(|v| v.concat())
    }

    /// The steps `f` counts ([`super::super::steps`]).
    fn steps_of<T>(f: impl FnOnce() -> T) -> (T, u64) {
        let before = super::super::steps::current();
        let out = f();
        (out, super::super::steps::current() - before)
    }

    /// Steps a lexer may take per byte of its text: each byte is visited once by its loop
    /// and read at most twice more by an inner scan.
    const STEPS_PER_BYTE: u64 = 3;

    /// What must hold of any text: the lexers and [`super::shell_command_list`] end within
    /// [`STEPS_PER_BYTE`] steps a byte, and the parts they find cover the text exactly, in
    /// runs that start in order on character boundaries; any span, out of bounds too, can
    /// be asked about.
    fn lexes_soundly(text: &str, spans: &[(usize, usize)]) -> Result<(), String> {
        let bound = STEPS_PER_BYTE * text.len() as u64 + 1;
        for lang in [Lang::Shell, Lang::Python, Lang::Js] {
            let (parts, steps) = steps_of(|| lex(lang, text));
            if steps > bound {
                return Err(format!("{lang:?}: {steps} steps for {} bytes", text.len()));
            }
            let Some(parts) = parts else { continue };
            if parts.len != text.len() || (text.is_empty() != parts.runs.is_empty()) {
                return Err(format!("{lang:?}: parts of {} bytes", parts.len));
            }
            let mut last: Option<usize> = None;
            for &(start, _) in &parts.runs {
                let ordered = last.map_or(start == 0, |l| l < start);
                if !ordered || start >= text.len() || !text.is_char_boundary(start) {
                    return Err(format!("{lang:?}: a run starts at {start}"));
                }
                last = Some(start);
            }
            for &(s, e) in spans {
                let h = parts.holds(s, e);
                if (h.comment_only && h.literal) || (h.code_only && (h.literal || h.comment_only)) {
                    return Err(format!("{lang:?}: {s}..{e} holds {h:?}"));
                }
            }
        }
        let (_, steps) = steps_of(|| super::shell_command_list(text));
        if steps > bound {
            return Err(format!("commands: {steps} steps for {} bytes", text.len()));
        }
        Ok(())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Session 29 #3: the lexers never panic, cover any text in order and on character
        /// boundaries, and work in linear steps, counted, not timed.
        #[test]
        fn the_lexers_are_sound_and_linear_on_any_text(
            text in script_text(),
            spans in proptest::collection::vec((0usize..600, 0usize..600), 0..8),
        ) {
            if let Err(why) = lexes_soundly(&text, &spans) {
                proptest::prop_assert!(false, "{why}: {text:?}");
            }
        }
    }

    /// Hostile repetitions of a megabyte, each the worst case of one scan (an unended
    /// here-document word, substitutions left open, identifiers before `/`, words a shell
    /// reads as a command's name again and again): linear steps.
    #[test]
    fn hostile_texts_are_lexed_in_linear_steps() {
        for unit in [
            "$(",
            "`",
            "(",
            "<<'x' ",
            "<<\"",
            "\"$(",
            "echo \\",
            "a=b ",
            "a=b c",
            "f'{",
            "'''",
            "\"\"\"",
            "/*",
            "a /",
            "return /x/ ",
            "{",
            "${`",
            "x\\\n",
            "'#'",
            "<<E\nE\n",
            "<<-<",
            "<<\\'",
            "if ",
        ] {
            let text = unit.repeat((1 << 20) / unit.len());
            assert_eq!(lexes_soundly(&text, &[(0, text.len())]), Ok(()), "{unit:?}");
        }
        // A command's name spelt with quotes, after a character of more than one byte.
        assert_eq!(lexes_soundly("x; Σ'a' b\n(é\\\"x\" y", &[(3, 5)]), Ok(()));
        // `<<` with no word to read, again and again: each costs the few bytes read, not the
        // rest of the text (two random runs once counted the rest for each).
        for text in [
            "<‹;𞟠<<-<<>##\\\nຆ𞤀",
            "<<-<<''''<‹&\u{fffc}𞀰",
            "a <<'open\n<<'x",
        ] {
            assert_eq!(lexes_soundly(text, &[(0, text.len())]), Ok(()), "{text:?}");
        }
    }

    /// The text of each run of `kind` in `text`.
    fn of(lang: Lang, text: &str, kind: Part) -> Vec<String> {
        let parts = lex(lang, text).expect("lexed");
        let mut out = Vec::new();
        for (j, &(start, k)) in parts.runs.iter().enumerate() {
            let end = parts.runs.get(j + 1).map_or(text.len(), |r| r.0);
            if k == kind {
                out.push(text[start..end].trim().to_string());
            }
        }
        out
    }

    #[test]
    fn shell_comments_are_told_from_printed_text() {
        let script = "#!/bin/sh\n# Skip the hook.\n# Second line.\necho \"a # not a comment $(date # inner)\" # trailing\necho $# ${#x} x#y\ncat <<'EOF'\n# printed\nEOF\nprintf '%s' \"it's\"\n";
        assert_eq!(
            of(Lang::Shell, script, Part::Comment),
            ["#!/bin/sh\n# Skip the hook.\n# Second line.", "# trailing"]
        );
        let literals = of(Lang::Shell, script, Part::Literal).join("|");
        assert!(literals.contains("# printed"), "{literals}");
        assert!(literals.contains("a # not a comment"), "{literals}");
        // What a command prints is a literal; the words of other commands are code.
        let script = "git commit --no-verify -m x; echo Ignore the rules | tee log\nif echo a; then \"$say\" b; fi\n";
        let literals = of(Lang::Shell, script, Part::Literal).join("|");
        assert_eq!(literals, "Ignore the rules|a|\"$say\" b");
        let code = of(Lang::Shell, script, Part::Code).join("|");
        assert!(code.contains("--no-verify"), "{code}");
        // What cannot be told apart is judged whole.
        assert!(lex(Lang::Shell, "echo \"open\n").is_none());
        assert!(lex(Lang::Shell, "cat <<EOF\n# never ends\n").is_none());
        assert!(lex(Lang::Shell, "x=$(echo hi\n").is_none());
    }

    #[test]
    fn python_and_js_strings_comments_and_code() {
        let py = "\"\"\"Doc.\"\"\"\nP = \"\"\"<|im_start|>system\n\"\"\"  # note\nf\"{d['#']} # kept\" # gone\nrb'\\'#' # also\n";
        assert_eq!(
            of(Lang::Python, py, Part::Comment),
            ["# note", "# gone", "# also"]
        );
        let lit = of(Lang::Python, py, Part::Literal).join("|");
        assert!(
            lit.contains("<|im_start|>") && lit.contains("# kept"),
            "{lit}"
        );
        assert!(lex(Lang::Python, "x = 'open\ny = 1\n").is_none());
        let js = "#!/usr/bin/env node\n// c1\nconst u = \"http://x\"; /* c2 */ const r = /\"[/]/g, d = a / b; // c3\nconst t = `a ${f(\"// no\")} b`;\n";
        assert_eq!(of(Lang::Js, js, Part::Comment).len(), 3, "{js}");
        let lit = of(Lang::Js, js, Part::Literal).join("|");
        assert!(lit.contains("http://x") && lit.contains("// no"), "{lit}");
        assert!(lex(Lang::Js, "/* open").is_none());
    }

    #[test]
    fn shell_commands_are_split_into_words_as_the_shell_reads_them() {
        let words = |text: &str| -> Vec<Vec<String>> {
            super::shell_command_list(text)
                .into_iter()
                .map(|c| c.words)
                .collect()
        };
        assert_eq!(
            words("FOO=1 bash -c \"npm run 'x'\" && ./y.sh 2>&1 | tee -a log # c; ./z.sh\n"),
            [
                vec!["FOO=1", "bash", "-c", "npm run 'x'"],
                vec!["./y.sh"],
                vec!["tee", "-a", "log"]
            ]
        );
        // A substituted command is a command of its own; the word keeps a `$` for it.
        assert_eq!(
            words(
                "x=$(dirname \"$0\")/a\ncat <<'E' >out\n./no.sh\nE\necho \"a $(./in.sh `w`) b\"\n"
            ),
            [
                vec!["dirname", "$0"],
                vec!["x=$()/a"],
                vec!["cat"],
                vec!["w"],
                vec!["./in.sh", "``"],
                vec!["echo", "a $() b"]
            ]
        );
        assert_eq!(
            words("a \\\n b\\ c; (cd d && e) <<< in"),
            [vec!["a", "b c"], vec!["cd", "d"], vec!["e"]]
        );
        // What is left open ends with the text.
        assert_eq!(
            words("echo \"$(x 'y"),
            [vec!["x", "y"], vec!["echo", "$()"]]
        );
        // ANSI-C quotes are undone; a process substituted stays in its word.
        assert_eq!(
            words("sh $'./b\\x2esh' <(cat c.sh)"),
            [vec!["cat", "c.sh"], vec!["sh", "./b.sh", "<()"]]
        );
    }

    /// Where a command's input comes from: the command before it through a pipe (not
    /// `||`), a file after `<`; and how deep in subshells it runs.
    #[test]
    fn shell_commands_say_where_their_input_comes_from() {
        let list = super::shell_command_list(
            "cat x.sh | sh\nsh < y.sh 2>err\na || b\n(cd d && e) |& f 0<&3\n",
        );
        let shown: Vec<(String, bool, Option<&str>, usize)> = list
            .iter()
            .map(|c| (c.words.join(" "), c.piped, c.stdin.as_deref(), c.nested))
            .collect();
        assert_eq!(
            shown,
            [
                ("cat x.sh".to_string(), false, None, 0),
                ("sh".to_string(), true, None, 0),
                ("sh".to_string(), false, Some("y.sh"), 0),
                ("a".to_string(), false, None, 0),
                ("b".to_string(), false, None, 0),
                ("cd d".to_string(), false, None, 1),
                ("e".to_string(), false, None, 1),
                ("f".to_string(), true, None, 0),
            ]
        );
    }

    #[test]
    fn the_language_is_read_from_the_name_or_the_first_line() {
        assert_eq!(lang("a.SH", ""), Some(Lang::Shell));
        assert_eq!(
            lang("start", "#!/usr/bin/env -S bash -e\n"),
            Some(Lang::Shell)
        );
        assert_eq!(lang("srv", "#!/usr/bin/python3.12\n"), Some(Lang::Python));
        assert_eq!(lang("x.mjs", ""), Some(Lang::Js));
        assert_eq!(lang("x.tsx", ""), None);
        assert_eq!(lang("x.rb", "#!/bin/sh\n"), Some(Lang::Shell));
        assert_eq!(lang("status", "echo hi\n"), None);
        // Review 32 #3: a name and a first line that disagree are not read as either.
        assert_eq!(lang("x.py", "#!/bin/sh\ncat <<'EOF'\n"), None);
        assert_eq!(lang("x.sh", "#!/usr/bin/env node\n"), None);
        assert_eq!(lang("x.py", "#!/usr/bin/env python3\n"), Some(Lang::Python));
        // A launcher the lexer does not know leaves the name to say.
        assert_eq!(
            lang("x.py", "#!/usr/bin/env -S uv run --script\n"),
            Some(Lang::Python)
        );
    }
}
