//! The commands a Python or JavaScript script starts (`subprocess.run(["./x.sh"])`,
//! `os.system("…")`, `child_process.execSync("…")`), for [`super::agent_runs::follow`]: a
//! command line when the script writes its words, the call as written when it builds them at
//! run time. Calls in comments and strings are not calls; one pass over the text.

use super::code::Lang;
use std::collections::HashMap;

/// What a script starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Launch {
    /// A command line as the shell reads it; a word the script builds at run time is
    /// written [`RUNTIME`], a variable.
    Line(String),
    /// A call whose command the script builds at run time, as written (shortened).
    Unknown(String),
}

/// How a word built at run time is written in a [`Launch::Line`].
pub(crate) const RUNTIME: &str = "$RUNTIME";

/// How a launching function reads its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    /// A command line (`os.system`, `exec`).
    Line,
    /// A program and its arguments as a list, or a command line with `shell=True`
    /// (`subprocess.run`).
    ListOrLine,
    /// A program, then its arguments as a list (`spawn`, `execFile`); `true` when the list
    /// starts with the program's own name (`os.execv(path, [argv0, …])`).
    ProgramThenList(bool),
    /// A program, then each argument (`create_subprocess_exec`); `true` when the first is
    /// the program's own name (`os.execl(path, arg0, …)`).
    ProgramThenEach(bool),
    /// A mode, then a program and each argument (`os.spawnl`).
    ModeThenProgram,
    /// A JavaScript module, run by node (`fork`).
    Module,
}

/// The launching functions of Python's `subprocess`, `os` and `asyncio`.
const PYTHON: &[(&str, &str, Takes)] = &[
    ("subprocess", "run", Takes::ListOrLine),
    ("subprocess", "call", Takes::ListOrLine),
    ("subprocess", "check_call", Takes::ListOrLine),
    ("subprocess", "check_output", Takes::ListOrLine),
    ("subprocess", "Popen", Takes::ListOrLine),
    ("subprocess", "getoutput", Takes::Line),
    ("subprocess", "getstatusoutput", Takes::Line),
    ("os", "system", Takes::Line),
    ("os", "popen", Takes::Line),
    ("os", "execl", Takes::ProgramThenEach(true)),
    ("os", "execlp", Takes::ProgramThenEach(true)),
    ("os", "execle", Takes::ProgramThenEach(true)),
    ("os", "execlpe", Takes::ProgramThenEach(true)),
    ("os", "execv", Takes::ProgramThenList(true)),
    ("os", "execvp", Takes::ProgramThenList(true)),
    ("os", "execve", Takes::ProgramThenList(true)),
    ("os", "execvpe", Takes::ProgramThenList(true)),
    ("os", "posix_spawn", Takes::ProgramThenList(true)),
    ("os", "posix_spawnp", Takes::ProgramThenList(true)),
    ("os", "spawnl", Takes::ModeThenProgram),
    ("os", "spawnlp", Takes::ModeThenProgram),
    ("os", "spawnv", Takes::ModeThenProgram),
    ("os", "spawnvp", Takes::ModeThenProgram),
    ("asyncio", "create_subprocess_shell", Takes::Line),
    (
        "asyncio",
        "create_subprocess_exec",
        Takes::ProgramThenEach(false),
    ),
];

/// The launching functions of Node's `child_process`.
const NODE: &[(&str, &str, Takes)] = &[
    ("child_process", "exec", Takes::Line),
    ("child_process", "execSync", Takes::Line),
    ("child_process", "execFile", Takes::ProgramThenList(false)),
    (
        "child_process",
        "execFileSync",
        Takes::ProgramThenList(false),
    ),
    ("child_process", "spawn", Takes::ProgramThenList(false)),
    ("child_process", "spawnSync", Takes::ProgramThenList(false)),
    ("child_process", "fork", Takes::Module),
];

/// How far past a call's opening parenthesis its arguments are read: a command written in
/// a script is far shorter, and an unclosed call costs no more than this.
const MAX_CALL: usize = 4096;

/// The commands the script `text`, in `lang`, starts ([`Launch`]).
pub(crate) fn launches(text: &str, lang: Lang) -> Vec<Launch> {
    static CALL: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"([A-Za-z_$][\w$]*)(?:\s*\.\s*([A-Za-z_$][\w$]*))?\s*\(")
            .expect("a valid regex")
    });
    let table = match lang {
        Lang::Python => PYTHON,
        Lang::Js => NODE,
        Lang::Shell => return Vec::new(),
    };
    let names = Names::read(text, lang);
    let parts = super::code::lex(lang, text);
    // (where the call starts, where its arguments start, how it takes them)
    let mut calls: Vec<(usize, usize, Takes)> = Vec::new();
    for cap in CALL.captures_iter(text) {
        let whole = cap.get(0).expect("a match");
        // A name that continues another (`foo_exec(`) or a method of something else
        // (`re.exec(` is matched from `re`).
        let before = text[..whole.start()].trim_end();
        // `require("child_process").execSync(…)`: a method of the module itself.
        let of_required = before.ends_with('.')
            && before[..before.len() - 1].trim_end().ends_with(')')
            && before[floor_boundary(before, before.len().saturating_sub(48))..]
                .rsplit("require")
                .next()
                .is_some_and(|r| r.contains("child_process"));
        if whole.start() > 0 && !of_required {
            let c = text.as_bytes()[whole.start() - 1];
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.' {
                continue;
            }
        }
        if parts
            .as_ref()
            .is_some_and(|p| !p.holds(whole.start(), whole.start() + 1).code_only)
        {
            continue;
        }
        let (module, function) = match (cap.get(2), of_required) {
            (None, true) => (Some("child_process"), &cap[1]),
            (Some(f), _) => (names.module(&cap[1]), f.as_str()),
            (None, false) => match names.bare.iter().find(|(local, _, _)| local == &cap[1]) {
                Some((_, f, m)) => (Some(*m), f.as_str()),
                None => continue,
            },
        };
        let Some(module) = module else { continue };
        let Some(&(_, _, takes)) = table
            .iter()
            .find(|(m, f, _)| *m == module && *f == function)
        else {
            continue;
        };
        calls.push((whole.start(), whole.end(), takes));
    }
    let mut out = Vec::new();
    for (i, &(start, args_at, takes)) in calls.iter().enumerate() {
        // Read up to the next launching call at most: each byte is read for one call.
        let next = calls.get(i + 1).map_or(text.len(), |c| c.0);
        let end = (args_at + MAX_CALL).min(next).max(args_at);
        let end = (args_at..=end)
            .rev()
            .find(|&e| text.is_char_boundary(e))
            .unwrap_or(args_at);
        let args = Args::read(&text[args_at..end], lang);
        let shown: String = text[start..end]
            .chars()
            .take_while(|&c| c != '\n')
            .take(80)
            .collect();
        out.push(args.launch(takes).unwrap_or(Launch::Unknown(shown)));
    }
    out
}

/// The names a script gives the launching modules and functions.
#[derive(Debug, Default)]
struct Names {
    /// (local name, module): `import subprocess as sp`, `const cp = require("child_process")`.
    modules: Vec<(String, &'static str)>,
    /// (local name, function, module): `from subprocess import run`, `const { execSync } =
    /// require("child_process")`.
    bare: Vec<(String, String, &'static str)>,
}

/// The Python modules that launch commands.
const PYTHON_MODULES: &[&str] = &["subprocess", "os", "asyncio"];

impl Names {
    fn read(text: &str, lang: Lang) -> Names {
        static PY_IMPORT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r"(?m)^[ \t]*import[ \t]+([\w., \t]+)").expect("a valid regex")
        });
        static PY_FROM: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(
                r"(?m)^[ \t]*from[ \t]+(subprocess|os|asyncio)[ \t]+import[ \t]+\(?([\w, \t]+)",
            )
            .expect("a valid regex")
        });
        static JS_MODULE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(
                r#"(?:(?:const|let|var)\s+([\w$]+)\s*=\s*require\s*\(\s*|import\s+(?:\*\s+as\s+)?([\w$]+)\s+from\s*)['"](?:node:)?child_process['"]"#,
            )
            .expect("a valid regex")
        });
        static JS_BARE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(
                r#"(?:(?:const|let|var)\s*\{([^}]*)\}\s*=\s*require\s*\(\s*|import\s*\{([^}]*)\}\s*from\s*)['"](?:node:)?child_process['"]"#,
            )
            .expect("a valid regex")
        });
        let mut names = Names::default();
        match lang {
            Lang::Python => {
                names
                    .modules
                    .extend(PYTHON_MODULES.iter().map(|m| ((*m).to_string(), *m)));
                for cap in PY_IMPORT.captures_iter(text) {
                    for item in cap[1].split(',') {
                        let mut w = item.split_whitespace();
                        let (Some(module), Some("as"), Some(alias)) =
                            (w.next(), w.next(), w.next())
                        else {
                            continue;
                        };
                        if let Some(m) = PYTHON_MODULES.iter().find(|m| **m == module) {
                            names.modules.push((alias.to_string(), m));
                        }
                    }
                }
                for cap in PY_FROM.captures_iter(text) {
                    let Some(module) = PYTHON_MODULES.iter().find(|m| **m == &cap[1]) else {
                        continue;
                    };
                    for item in cap[2].split(',') {
                        let mut w = item.split_whitespace();
                        if let Some(f) = w.next() {
                            let local = w.nth(1).unwrap_or(f);
                            names.bare.push((local.to_string(), f.to_string(), module));
                        }
                    }
                }
            }
            Lang::Js => {
                names
                    .modules
                    .push(("child_process".into(), "child_process"));
                for cap in JS_MODULE.captures_iter(text) {
                    if let Some(local) = cap.get(1).or_else(|| cap.get(2)) {
                        names
                            .modules
                            .push((local.as_str().to_string(), "child_process"));
                    }
                }
                for cap in JS_BARE.captures_iter(text) {
                    let list = cap.get(1).or_else(|| cap.get(2)).map_or("", |m| m.as_str());
                    for item in list.split(',') {
                        let (f, local) = match item.split_once(':') {
                            Some((f, l)) => (f.trim(), l.trim()),
                            None => match item.split_once(" as ") {
                                Some((f, l)) => (f.trim(), l.trim()),
                                None => (item.trim(), item.trim()),
                            },
                        };
                        if !f.is_empty() {
                            names
                                .bare
                                .push((local.to_string(), f.to_string(), "child_process"));
                        }
                    }
                }
            }
            Lang::Shell => {}
        }
        names
    }

    /// The module `local` names.
    fn module(&self, local: &str) -> Option<&'static str> {
        self.modules
            .iter()
            .find(|(l, _)| l == local)
            .map(|(_, m)| *m)
    }
}

/// One argument of a call, as far as the script writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Arg {
    /// A string written whole.
    Text(String),
    /// A string with parts built at run time (an f-string, a template), each [`RUNTIME`].
    Built(String),
    /// A list (`[…]`) of arguments.
    List(Vec<Arg>),
    /// Anything else: a name, a call, an expression.
    Other,
}

/// The arguments of a call, read from just past its `(`, and whether it asks for a shell
/// (`shell=True`, `shell: true`).
#[derive(Debug, Default)]
struct Args {
    args: Vec<Arg>,
    shell: bool,
}

impl Args {
    fn read(text: &str, lang: Lang) -> Args {
        let mut out = Args::default();
        for (arg, piece) in arg_pieces(text, lang) {
            let flat: String = piece.split_whitespace().collect();
            if flat == "shell=True"
                || flat.starts_with("{shell:true")
                || flat.contains(",shell:true")
            {
                out.shell = true;
            }
            // Keyword arguments (`cwd=…`) are not the command.
            if !(lang == Lang::Python && flat.contains('=') && matches!(arg, Arg::Other)) {
                out.args.push(arg);
            }
        }
        out
    }

    /// The launch these arguments make for a function that `takes` them; `None` when the
    /// command is built at run time.
    fn launch(&self, takes: Takes) -> Option<Launch> {
        let word = |a: &Arg| match a {
            Arg::Text(t) => Some(crate::output::shell_word(t)),
            Arg::Built(t) => Some(t.clone()),
            _ => None,
        };
        let list_words = |a: Option<&Arg>, skip: usize| -> Vec<String> {
            match a {
                Some(Arg::List(items)) => items
                    .iter()
                    .skip(skip)
                    .map(|i| word(i).unwrap_or_else(|| RUNTIME.to_string()))
                    .collect(),
                Some(_) => vec![RUNTIME.to_string()],
                None => Vec::new(),
            }
        };
        let first = self.args.first()?;
        let line = match takes {
            Takes::Line => match first {
                Arg::Text(t) | Arg::Built(t) => t.clone(),
                _ => return None,
            },
            Takes::ListOrLine => match first {
                Arg::Text(t) | Arg::Built(t) if self.shell => t.clone(),
                Arg::Text(_) | Arg::Built(_) => word(first)?,
                Arg::List(_) => list_words(Some(first), 0).join(" "),
                Arg::Other => return None,
            },
            Takes::ProgramThenList(named) => {
                let mut words = vec![word(first)?];
                words.extend(list_words(self.args.get(1), usize::from(named)));
                words.join(" ")
            }
            Takes::ProgramThenEach(named) => {
                let mut words = vec![word(first)?];
                words.extend(
                    self.args
                        .iter()
                        .skip(1 + usize::from(named))
                        .map(|a| word(a).unwrap_or_else(|| RUNTIME.to_string())),
                );
                words.join(" ")
            }
            Takes::ModeThenProgram => {
                let program = self.args.get(1)?;
                word(program)?
            }
            Takes::Module => format!("node {}", word(first)?),
        };
        Some(Launch::Line(line))
    }
}

/// The character boundary of `text` at or after `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    (at..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len())
}

fn skip_blank(b: &[u8], mut at: usize) -> usize {
    while at < b.len() && b[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

/// How deep lists within an argument are read.
const MAX_NESTING: usize = 8;

/// One argument at `at` (`depth` lists deep): what it is, and where it ends (at the `,` or
/// `)` after it).
fn read_arg(text: &str, at: usize, lang: Lang, depth: usize) -> (Arg, usize) {
    let b = text.as_bytes();
    if let Some((arg, next)) = read_string(text, at, lang) {
        let after = skip_blank(b, next);
        // A string that goes on (`"./x" + name`, `"a".format(…)`) is built at run time.
        if matches!(b.get(after), Some(b',' | b')' | b']') | None) {
            return (arg, next);
        }
        return (Arg::Other, skip_expression(b, next));
    }
    if b.get(at) == Some(&b'[') && depth < MAX_NESTING {
        let mut items = Vec::new();
        let mut i = at + 1;
        loop {
            i = skip_blank(b, i);
            match b.get(i) {
                None => return (Arg::List(items), i),
                Some(b']') => {
                    let next = skip_blank(b, i + 1);
                    if matches!(b.get(next), Some(b',' | b')') | None) {
                        return (Arg::List(items), i + 1);
                    }
                    // `[…] + rest`: built at run time.
                    return (Arg::Other, skip_expression(b, i + 1));
                }
                Some(b',') => i += 1,
                Some(_) => {
                    let (item, next) = read_arg(text, i, lang, depth + 1);
                    items.push(item);
                    if next == i {
                        return (Arg::Other, skip_expression(b, i + 1));
                    }
                    i = next;
                }
            }
        }
    }
    (Arg::Other, skip_expression(b, at))
}

/// Where an expression starting at `at` ends: at a `,`, `)` or `]` outside the brackets and
/// strings it opens.
fn skip_expression(b: &[u8], mut at: usize) -> usize {
    let mut depth = 0usize;
    while at < b.len() {
        match b[at] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' | b',' if depth == 0 => return at,
            b')' | b']' | b'}' => depth -= 1,
            q @ (b'"' | b'\'' | b'`') => {
                at += 1;
                while at < b.len() && b[at] != q {
                    at += if b[at] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        at += 1;
    }
    at.min(b.len())
}

/// A string literal at `at` (Python's with its prefix, JavaScript's with backquotes): its
/// text, escapes undone, each interpolated part [`RUNTIME`]; and where it ends.
fn read_string(text: &str, at: usize, lang: Lang) -> Option<(Arg, usize)> {
    let b = text.as_bytes();
    let mut i = at;
    let mut raw = false;
    let mut interpolates = false;
    if lang == Lang::Python {
        while i < b.len() && i - at < 2 && b[i].is_ascii_alphabetic() {
            match b[i].to_ascii_lowercase() {
                b'r' => raw = true,
                b'f' => interpolates = true,
                b'b' | b'u' => {}
                _ => return None,
            }
            i += 1;
        }
    }
    let quote = *b.get(i)?;
    let js_template = lang == Lang::Js && quote == b'`';
    if !(matches!(quote, b'"' | b'\'') || js_template) {
        return None;
    }
    if lang == Lang::Js && quote == b'`' {
        interpolates = true;
    }
    let triple = lang == Lang::Python && b[i..].starts_with(&[quote, quote, quote]);
    i += if triple { 3 } else { 1 };
    let mut out: Vec<u8> = Vec::new();
    let mut built = false;
    while i < b.len() {
        let c = b[i];
        if c == quote && (!triple || b[i..].starts_with(&[quote, quote, quote])) {
            let end = i + if triple { 3 } else { 1 };
            let s = String::from_utf8_lossy(&out).into_owned();
            return Some((if built { Arg::Built(s) } else { Arg::Text(s) }, end));
        }
        if c == b'\\' && !raw && i + 1 < b.len() {
            out.push(match b[i + 1] {
                b'n' => b'\n',
                b't' => b'\t',
                other => other,
            });
            i += 2;
            continue;
        }
        let opens = match lang {
            Lang::Python => c == b'{' && b.get(i + 1) != Some(&b'{'),
            _ => c == b'$' && b.get(i + 1) == Some(&b'{'),
        };
        if interpolates && opens {
            let from = if lang == Lang::Python { i + 1 } else { i + 2 };
            let close = b[from..].iter().position(|&x| x == b'}')?;
            out.extend_from_slice(RUNTIME.as_bytes());
            built = true;
            i = from + close + 1;
            continue;
        }
        if interpolates && lang == Lang::Python && c == b'{' {
            out.push(b'{');
            i += 2;
            continue;
        }
        out.push(c);
        i += 1;
    }
    None
}

/// A file or module a Python or JavaScript program loads at run time (review atk32 #4): what
/// the agent reads through it is the repository's when its name is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Load {
    /// A module by its dotted name (`importlib.import_module("h")`, `__import__("h")`,
    /// `runpy.run_module("h")`), looked up as `import h` is.
    Module(String),
    /// A program file it runs (`runpy.run_path(…)`, `execfile(…)`).
    Run(Named),
    /// A file whose text it reads (`open(…)`, `fs.readFileSync(…)`).
    Read(Named),
    /// A directory it puts on its import path (`sys.path.insert(0, …)`).
    ImportPath(Named),
    /// A module `require`d or `import()`ed from the program's directory
    /// (`require(path.join(__dirname, "x"))`).
    Require(Named),
    /// A load whose name is built at run time, as written (shortened).
    Unknown(String),
}

/// Where a loaded name leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Named {
    /// A path as written: from the working directory (the project), else the program's.
    Here(String),
    /// A path from the program's own directory (`__dirname`, `__file__`): the empty string
    /// is the directory itself.
    Near(String),
}

/// How a loading function takes its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loads {
    Module,
    Run,
    Read,
    ImportPath,
    Require,
    /// A URL it fetches (`urllib.request.urlopen(…)`): a `file:` address is a file it reads.
    Url,
}

/// The loading functions: (the dotted name's ending, the language, what it loads, which
/// argument names it).
const LOADERS: &[(&str, Lang, Loads, usize)] = &[
    ("import_module", Lang::Python, Loads::Module, 0),
    ("__import__", Lang::Python, Loads::Module, 0),
    ("runpy.run_module", Lang::Python, Loads::Module, 0),
    ("runpy.run_path", Lang::Python, Loads::Run, 0),
    ("execfile", Lang::Python, Loads::Run, 0),
    ("spec_from_file_location", Lang::Python, Loads::Run, 1),
    ("load_source", Lang::Python, Loads::Run, 1),
    ("open", Lang::Python, Loads::Read, 0),
    ("io.open", Lang::Python, Loads::Read, 0),
    ("codecs.open", Lang::Python, Loads::Read, 0),
    ("sys.path.insert", Lang::Python, Loads::ImportPath, 1),
    ("sys.path.append", Lang::Python, Loads::ImportPath, 0),
    ("urlopen", Lang::Python, Loads::Url, 0),
    ("urlretrieve", Lang::Python, Loads::Url, 0),
    ("readFileSync", Lang::Js, Loads::Read, 0),
    ("readFile", Lang::Js, Loads::Read, 0),
    ("createReadStream", Lang::Js, Loads::Read, 0),
    ("require", Lang::Js, Loads::Require, 0),
    ("import", Lang::Js, Loads::Require, 0),
];

/// The files and modules the program `text`, in `lang`, loads by a call ([`Load`]): one
/// pass over the text, calls in comments and strings not calls.
pub(crate) fn loads(text: &str, lang: Lang) -> Vec<Load> {
    static CALL: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"((?:[A-Za-z_$][\w$]*[ \t]*\.[ \t]*)*[A-Za-z_$][\w$]*)[ \t]*\(")
            .expect("a valid regex")
    });
    let parts = super::code::lex(lang, text);
    let assigned = Assigned::read(text, lang);
    let mut out = Vec::new();
    let mut calls: Vec<(usize, usize, Loads, usize)> = Vec::new();
    for cap in CALL.captures_iter(text) {
        let whole = cap.get(0).expect("a match");
        let name: String = cap[1].chars().filter(|c| !c.is_whitespace()).collect();
        let Some(&(_, _, loads, index)) = LOADERS.iter().find(|(n, l, _, _)| {
            *l == lang
                && (name == *n
                    || name.ends_with(&format!(".{n}"))
                        && (n.contains('.') || !matches!(*n, "open" | "import")))
        }) else {
            continue;
        };
        // A method of something else (`x.open(…)`), but for JavaScript's the result of a
        // call (`require("fs").readFileSync(…)`, review atk34 #6).
        if whole.start() > 0 && text.as_bytes()[whole.start() - 1] == b'.' {
            let before = text[..whole.start() - 1].trim_end();
            let called = lang == Lang::Js
                && before.ends_with(')')
                && !matches!(name.as_str(), "open" | "import");
            if !called {
                continue;
            }
        }
        if parts
            .as_ref()
            .is_some_and(|p| !p.holds(whole.start(), whole.start() + 1).code_only)
        {
            continue;
        }
        calls.push((whole.start(), whole.end(), loads, index));
    }
    for (i, &(start, args_at, loads, index)) in calls.iter().enumerate() {
        // Up to the call after the next: a call in the arguments is read as part of them
        // (`require(require("path").join(…))`, review atk34 #6); each byte read twice at
        // most.
        let next = calls.get(i + 2).map_or(text.len(), |c| c.0).max(args_at);
        let end = floor_boundary(text, (args_at + MAX_CALL).min(next)).min(next);
        let args = &text[args_at..end];
        let pieces = arg_pieces(args, lang);
        let shown = || -> String {
            text[start..end]
                .chars()
                .take_while(|&c| c != '\n')
                .take(80)
                .collect()
        };
        // A file opened to be written (`open(p, "w")`, `open(p, mode="a")`) is not read.
        if loads == Loads::Read
            && lang == Lang::Python
            && pieces.iter().enumerate().skip(1).any(|(k, (a, piece))| {
                let mode = match (a, piece.split_once('=')) {
                    (Arg::Text(t), _) if k == 1 => t.as_str(),
                    (_, Some((key, v))) if key.trim() == "mode" => v.trim(),
                    _ => "",
                };
                mode.contains(['w', 'a', 'x'])
            })
        {
            continue;
        }
        let Some((arg, piece)) = pieces.get(index) else {
            continue;
        };
        let literal = matches!(arg, Arg::Text(_));
        let named = match arg {
            Arg::Text(t) => Some(Named::Here(t.clone())),
            _ => built(&assigned.expand(piece, start, 0), lang),
        };
        let load = match (loads, named) {
            (Loads::Module, Some(Named::Here(m))) => Load::Module(m),
            (Loads::Run, Some(n)) => Load::Run(n),
            (Loads::Read, Some(n)) => Load::Read(n),
            (Loads::ImportPath, Some(n)) => Load::ImportPath(n),
            // A literal `require("./x")` is an import the caller reads; a bare one a package.
            (Loads::Require, Some(Named::Here(_))) if literal => continue,
            (Loads::Require, Some(n)) => Load::Require(n),
            // A `file:` address read as the path it names; another scheme is no file. An
            // address built at run time (`"file://" + os.getcwd() + "/x"`) is said (review
            // atk36 #5).
            (Loads::Url, Some(Named::Here(url))) if literal => match file_url_path(&url) {
                Some(path) => Load::Read(Named::Here(path)),
                None => continue,
            },
            _ => Load::Unknown(shown()),
        };
        out.push(load);
    }
    if lang == Lang::Python {
        path_reads(text, parts.as_ref(), &assigned, &mut out);
    }
    out
}

/// The path a `file:` URL names (`file:///abs`, `file://localhost/abs`, `file:rel/x`);
/// `None` for another scheme.
fn file_url_path(url: &str) -> Option<String> {
    let rest = url
        .get(..5)
        .filter(|s| s.eq_ignore_ascii_case("file:"))
        .map(|_| &url[5..])?;
    let rest = rest
        .strip_prefix("//localhost")
        .or_else(|| rest.strip_prefix("//"))
        .unwrap_or(rest);
    Some(rest.to_string())
}

/// The values a program gives its names on a line of their own (`here = os.path.dirname(
/// __file__)`, `const dir = path.join(__dirname, "lib")`), each with where it is given, so
/// that a path built from a name is read as built from its value ([`built`]).
struct Assigned<'t> {
    values: HashMap<&'t str, Vec<(usize, &'t str)>>,
}

/// How many names deep a value is looked up (`NOTES = ROOT / "m.txt"`, `ROOT = …`).
const MAX_NAMES_DEEP: usize = 3;

/// The longest expression a path is built from, its names' values in it: a path's are
/// short, and each expansion stops here, so that the work per read is bounded.
const MAX_EXPANDED: usize = 256;

impl<'t> Assigned<'t> {
    fn read(text: &'t str, lang: Lang) -> Assigned<'t> {
        static ASSIGN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(
                r"(?m)^[ \t]*(?:(?:const|let|var)[ \t]+)?([A-Za-z_$][\w$]*)[ \t]*(?::[^=\n]*)?=[ \t]*([^=\n][^\n]*)$",
            )
            .expect("a valid regex")
        });
        let mut values: HashMap<&str, Vec<(usize, &str)>> = HashMap::new();
        // Only a program that builds paths from its own place or names them gives names
        // worth looking up: the rest is not read.
        if text.contains("__file__")
            || text.contains("__dirname")
            || text.contains("Path")
            || text.contains("path.join")
        {
            for cap in ASSIGN.captures_iter(text) {
                let (name, rhs) = (cap.get(1).expect("a name"), cap.get(2).expect("a value"));
                let rhs = rhs.as_str().trim();
                let rhs = if lang == Lang::Js {
                    rhs.trim_end_matches(';').trim_end()
                } else {
                    rhs
                };
                values
                    .entry(name.as_str())
                    .or_default()
                    .push((name.start(), rhs));
            }
        }
        Assigned { values }
    }

    /// The value `name` was last given before `at`.
    fn value_of(&self, name: &str, at: usize) -> Option<&'t str> {
        self.values
            .get(name)
            .and_then(|v| v.iter().rev().find(|(p, _)| *p < at).map(|(_, rhs)| *rhs))
    }

    /// `expr` (written at `at`) with each name it uses that was given a value before, and
    /// is not one of [`PATH_WORDS`] or an attribute, replaced by that value in brackets,
    /// [`MAX_NAMES_DEEP`] names deep.
    fn expand(&self, expr: &str, at: usize, depth: usize) -> String {
        if self.values.is_empty() || depth >= MAX_NAMES_DEEP {
            return expr.to_string();
        }
        let mut e = String::new();
        let b = expr.as_bytes();
        let mut i = 0;
        let mut quote: Option<u8> = None;
        while i < b.len() {
            if e.len() > MAX_EXPANDED {
                return e;
            }
            let c = b[i];
            if let Some(q) = quote {
                if c == b'\\' {
                    e.push_str(&expr[i..floor_boundary(expr, (i + 2).min(b.len()))]);
                    i = floor_boundary(expr, (i + 2).min(b.len()));
                    continue;
                }
                if c == q {
                    quote = None;
                }
            } else if matches!(c, b'"' | b'\'' | b'`') {
                quote = Some(c);
            } else if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$')
                {
                    i += 1;
                }
                let word = &expr[start..i];
                let dotted = start > 0 && b[start - 1] == b'.';
                match self.value_of(word, at).filter(|rhs| {
                    !dotted && !PATH_WORDS.contains(&word) && rhs.len() <= MAX_EXPANDED
                }) {
                    Some(rhs) => {
                        e.push('(');
                        e.push_str(&self.expand(rhs, at, depth + 1));
                        e.push(')');
                    }
                    None => e.push_str(word),
                }
                continue;
            }
            let ch = expr[i..].chars().next().expect("a char");
            e.push(ch);
            i += ch.len_utf8();
        }
        e
    }
}

/// The reads of a Python program through a path object's methods (`Path("lib/m.txt")
/// .read_text()`, `(Path(__file__).parent / "m.txt").open()`, `p.read_bytes()` after `p =
/// Path(…)`): each receiver that builds a path is read as [`built`] reads it, the names it
/// uses read as their values ([`Assigned::expand`]); a path it cannot
/// resolve is a [`Load::Unknown`]. A receiver that builds no path (a module's `tarfile.open`,
/// an object the program made otherwise) is not a read of a file of the repository.
fn path_reads(
    text: &str,
    parts: Option<&super::code::Parts>,
    assigned: &Assigned<'_>,
    out: &mut Vec<Load>,
) {
    static READ: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\.[ \t]*(?:read_text|read_bytes|open)[ \t]*\(").expect("a valid regex")
    });
    for m in READ.find_iter(text) {
        if parts.is_some_and(|p| !p.holds(m.start(), m.start() + 1).code_only) {
            continue;
        }
        // `.open("w")`: written, not read.
        let after = &text[m.end()..floor_boundary(text, (m.end() + 64).min(text.len()))];
        if m.as_str().contains("open")
            && let Some((Arg::Text(mode), _)) = arg_pieces(after, Lang::Python).into_iter().next()
            && mode.contains(['w', 'a', 'x'])
        {
            continue;
        }
        let receiver = receiver_before(text, m.start());
        let expr = if is_identifier(receiver) {
            match assigned.value_of(receiver, m.start()) {
                Some(rhs) => assigned.expand(rhs, m.start(), 1),
                None => continue,
            }
        } else {
            assigned.expand(receiver, m.start(), 0)
        };
        if !(expr.contains("Path") || expr.contains("__file__") || expr.contains("os.path")) {
            continue;
        }
        // The user's home (`Path.home()`, `expanduser`): no file of the repository.
        if expr.contains("home()") || expr.contains("expanduser") {
            continue;
        }
        out.push(match built(&expr, Lang::Python) {
            Some(named) => Load::Read(named),
            None => Load::Unknown(
                format!("{receiver}{}", m.as_str())
                    .chars()
                    .filter(|&c| c != '\n')
                    .take(80)
                    .collect(),
            ),
        });
    }
}

/// How far back [`receiver_before`] looks for the start of a receiver.
const MAX_RECEIVER: usize = 128;

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The expression a method call's `.` at `dot` is called on: back over names, dots and
/// bracketed groups, on its line, at most [`MAX_RECEIVER`] bytes back (a path's receiver is
/// short; each read looks back this far at most, so the work stays linear in the text).
fn receiver_before(text: &str, dot: usize) -> &str {
    let b = text.as_bytes();
    let floor = dot.saturating_sub(MAX_RECEIVER);
    let mut i = dot;
    let mut depth = 0usize;
    while i > floor {
        let c = b[i - 1];
        match c {
            b')' | b']' => depth += 1,
            b'(' | b'[' if depth > 0 => depth -= 1,
            b'(' | b'[' => break,
            b'\n' if depth == 0 => break,
            _ if depth > 0 => {}
            _ if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' => {}
            _ => break,
        }
        i -= 1;
    }
    while !text.is_char_boundary(i) {
        i += 1;
    }
    text[i..dot].trim()
}

/// The names of the functions and attributes that build a path ([`built`]) in Python and
/// JavaScript: anything else in an expression is a value the gate cannot know.
const PATH_WORDS: &[&str] = &[
    "Path",
    "PurePath",
    "PosixPath",
    "PurePosixPath",
    "pathlib",
    "os",
    "path",
    "join",
    "joinpath",
    "dirname",
    "abspath",
    "realpath",
    "normpath",
    "resolve",
    "absolute",
    "parent",
    "with_name",
    "str",
    "fspath",
    "__file__",
    "__dirname",
    "process",
    "cwd",
    "getcwd",
];

/// The path an expression builds from string literals and the program's own file or
/// directory (`os.path.join(os.path.dirname(__file__), "..", "m.txt")`, `Path(__file__)
/// .parent.parent / "lib" / "m.txt"`, `Path("lib", "m.txt")`, `path.join(__dirname, "x")`):
/// its strings joined, each `parent`/`dirname`/`with_name` past the one that takes the
/// file's directory a step up; `None` for an expression that takes anything else (a
/// variable, an argument, the environment).
fn built(piece: &str, lang: Lang) -> Option<Named> {
    // `require("path").join(__dirname, "x")`: node's path module by its call (review atk34
    // #6), read as `path`.
    let owned;
    let piece = if piece.contains("require(") {
        owned = ["\"path\"", "'path'", "\"node:path\"", "'node:path'"]
            .iter()
            .fold(piece.to_string(), |p, m| {
                p.replace(&format!("require({m})"), "path")
            });
        owned.as_str()
    } else {
        piece
    };
    let b = piece.as_bytes();
    let mut parts: Vec<String> = Vec::new();
    let mut joined_on = false;
    let (mut file, mut dir, mut ups) = (false, false, 0usize);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let string = matches!(c, b'"' | b'\'' | b'`')
            || (lang == Lang::Python
                && c.is_ascii_alphabetic()
                && (1..=2).any(|n| {
                    b.get(i + n).is_some_and(|q| matches!(q, b'"' | b'\''))
                        && b[i..i + n].iter().all(|x| b"rRbBuUfF".contains(x))
                }));
        if string && let Some((arg, next)) = read_string(piece, i, lang) {
            let t = match arg {
                Arg::Text(t) => t,
                // `${__dirname}/x`: the directory, then the rest.
                Arg::Built(t) => {
                    dir = true;
                    t.strip_prefix(RUNTIME)?.to_string()
                }
                _ => return None,
            };
            match parts.last_mut() {
                Some(last) if std::mem::take(&mut joined_on) => last.push_str(&t),
                _ => parts.push(t),
            }
            i = next;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            let word = &piece[start..i];
            if !PATH_WORDS.contains(&word) {
                return None;
            }
            match word {
                "__file__" => file = true,
                "__dirname" => dir = true,
                "parent" | "dirname" | "with_name" => ups += 1,
                _ => {}
            }
            continue;
        }
        match c {
            b'+' => joined_on = true,
            b'(' | b')' | b'.' | b'/' | b',' | b' ' | b'\t' | b'\n' | b'\r' | b'\\' => {}
            _ => return None,
        }
        i += 1;
    }
    // `Path(__file__).parent` is the program's directory; `__dirname` is it already.
    if file {
        ups = ups.saturating_sub(1);
    }
    let near = file || dir;
    if !near && (ups > 0 || parts.is_empty()) {
        return None;
    }
    let mut segs: Vec<&str> = std::iter::repeat_n("..", ups).collect();
    segs.extend(
        parts
            .iter()
            .flat_map(|p| p.split('/'))
            .filter(|s| !s.is_empty() && *s != "."),
    );
    let joined = segs.join("/");
    Some(if near {
        Named::Near(joined)
    } else {
        Named::Here(joined)
    })
}

/// The arguments of a call read from just past its `(`: each as read, with its text.
fn arg_pieces(text: &str, lang: Lang) -> Vec<(Arg, &str)> {
    let b = text.as_bytes();
    let mut at = 0;
    let mut out = Vec::new();
    loop {
        at = skip_blank(b, at);
        if at >= b.len() || b[at] == b')' {
            return out;
        }
        let (arg, next) = read_arg(text, at, lang, 0);
        let next = next.min(text.len());
        out.push((arg, text[at..next].trim()));
        at = skip_blank(b, next);
        match b.get(at) {
            Some(b',') => at += 1,
            _ => return out,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Lang, Load, Named, loads};

    fn reads(text: &str) -> Vec<Load> {
        loads(text, Lang::Python)
    }

    /// Review gate34 #1: a path built from strings and the program's own place is the file
    /// it names; one built from what only the run knows is a load the gate cannot follow;
    /// a receiver that builds no path is no read.
    #[test]
    fn paths_a_python_program_builds_are_read_as_it_builds_them() {
        let here = |p: &str| Load::Read(Named::Here(p.into()));
        let near = |p: &str| Load::Read(Named::Near(p.into()));
        for (text, want) in [
            (
                "print(Path(\"lib\", \"m.txt\").read_text())\n",
                here("lib/m.txt"),
            ),
            (
                "print((Path(\"lib\") / \"m.txt\").read_text())\n",
                here("lib/m.txt"),
            ),
            (
                "open(os.path.join(\"lib\", \"m.txt\"))\n",
                here("lib/m.txt"),
            ),
            (
                "print((pathlib.Path(__file__).parent / \"m.txt\").read_text())\n",
                near("m.txt"),
            ),
            (
                "print((Path(__file__).parent.parent / \"lib\" / \"m.txt\").read_bytes())\n",
                near("../lib/m.txt"),
            ),
            (
                "print(Path(__file__).with_name(\"m.txt\").read_text())\n",
                near("m.txt"),
            ),
            (
                "ROOT = Path(__file__).resolve().parent.parent\nNOTES = ROOT / \"m.txt\"\nprint(NOTES.read_text())\n",
                near("../m.txt"),
            ),
            (
                "here = os.path.dirname(__file__)\nopen(os.path.join(here, \"m.txt\"))\n",
                near("m.txt"),
            ),
        ] {
            assert!(reads(text).contains(&want), "{text}: {:?}", reads(text));
        }
        for text in [
            "print(Path(sys.argv[1]).read_text())\n",
            "p = Path(input())\nprint(p.read_text())\n",
        ] {
            assert!(
                reads(text).iter().any(|l| matches!(l, Load::Unknown(_))),
                "{text}: {:?}",
                reads(text)
            );
        }
        for text in [
            "with tarfile.open(\"x.tgz\") as t:\n    pass\n",
            "log = Path(\"build/log.txt\")\nwith log.open(\"w\") as f:\n    f.write(\"x\")\n",
            "cfg = Path.home() / \".config\" / \"x.toml\"\nprint(cfg.read_text())\n",
            "# Path(sys.argv[1]).read_text()\n",
        ] {
            assert!(reads(text).is_empty(), "{text}: {:?}", reads(text));
        }
    }
}
