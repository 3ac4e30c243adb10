//! `.aiignore` (SPEC §5, compatible with the reference template): one pattern per line, `#`
//! comments (at line start or after white space; `\#` is a literal hash), `*`/`?` globs matched
//! within a line, `re:` raw regexes, `!` exceptions. The most recent comment header decides the
//! section: secrets/keys/tokens/passwords → secret rules for values, PII/email → PII exemptions,
//! injection → matched case-insensitively on the normalised text; anything else is custom.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use std::sync::OnceLock;

use regex::bytes::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};

use super::engine::{Finding, MAX_FINDINGS, Scan, cap_finding};
use super::redacted;
use super::registry::IGN001;
use super::rules::pii::email_exemption;
use super::rules::{Placeholder, is_template, placeholder};
use super::text::LineIndex;
use crate::error::{Error, Result};

/// The section a pattern belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Section {
    Secrets,
    Pii,
    Injection,
    Custom,
}

impl Section {
    fn name(self) -> &'static str {
        match self {
            Section::Secrets => "secrets",
            Section::Pii => "PII",
            Section::Injection => "injection",
            Section::Custom => "custom",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Guard {
    None,
    /// The trailing wildcard must be a credential-shaped value of at least 8 characters.
    Value,
    /// A bare prefix (`sk-*`): token boundary before, at least 16 token characters after.
    Prefix,
    /// An email pattern: the PII exemptions apply.
    Email,
    /// A regular expression in the secrets section: the matched value (after its last `=`,
    /// `:` or blank) must not be what the built-in detectors judge a stand-in.
    Matched,
}

/// A pattern's regex, compiled the first time it may match a line: a glob's when its literal
/// occurs, a pattern without a literal when the set of all of them says it matches. Most
/// patterns of a `.aiignore` never match, and compiling all of them up front was a
/// millisecond of every pre-commit hook. A `re:` pattern's syntax is checked at once, so an
/// invalid one is reported with its line.
#[derive(Debug)]
struct LazyRegex {
    src: String,
    re: OnceLock<Option<Regex>>,
}

impl LazyRegex {
    fn lazy(src: String) -> LazyRegex {
        LazyRegex {
            src,
            re: OnceLock::new(),
        }
    }

    /// The regex; `None` only if a generated glob regex does not compile (a bug: the tests
    /// compile every glob shape).
    fn get(&self) -> Option<&Regex> {
        self.re
            .get_or_init(|| {
                RegexBuilder::new(&self.src)
                    .size_limit(MAX_SET_BYTES)
                    .build()
                    .ok()
            })
            .as_ref()
    }
}

#[derive(Debug)]
struct IgnPattern {
    line: usize,
    source: String,
    section: Section,
    re: LazyRegex,
    guard: Guard,
    literal: Option<String>,
    /// The line is one `git aahp init`'s template wrote (worked out once, at parse time).
    from_template: bool,
}

/// Whether an `.aiignore` line's pattern is one `git aahp init`'s template wrote.
fn from_template(source: &str) -> bool {
    crate::handoff::templates::TEMPLATES
        .iter()
        .filter(|t| t.name == crate::handoff::AIIGNORE)
        .flat_map(|t| t.text.lines())
        .any(|l| l == source || l.strip_prefix("re:") == Some(source))
}

/// The largest `.aiignore` read, in bytes: a list of patterns, not a data file.
pub(crate) const MAX_BYTES: usize = 256 * 1024;
/// The most patterns (exceptions and paths included) a `.aiignore` may hold: compiling the
/// regular expressions of 5,000 into one set took longer than linting 1 MB.
pub(crate) const MAX_PATTERNS: usize = 1_000;
/// The most memory the patterns without a literal (regular expressions), compiled together
/// into one automaton, may take.
pub(crate) const MAX_SET_BYTES: usize = 16 * 1024 * 1024;

/// A parsed `.aiignore`.
#[derive(Debug, Default)]
pub(crate) struct AiIgnore {
    patterns: Vec<IgnPattern>,
    exceptions: Vec<IgnPattern>,
    /// The patterns' literals, searched for by one automaton built at the first search
    /// ([`AiIgnore::automaton`]): a parse that is never searched (the output boundary's,
    /// when nothing is printed; a hook that passes prints nothing) does not build it.
    lits: Vec<String>,
    ac: OnceLock<Option<AhoCorasick>>,
    /// The literals again, for every occurrence within a line that holds one (overlapping
    /// matches): built at the first such line.
    ac_each: OnceLock<Option<AhoCorasick>>,
    /// For each automaton pattern, the indexes of `patterns` using that literal.
    ac_targets: Vec<Vec<usize>>,
    /// Patterns without a usable literal: every line is tried against all of them at once.
    always: Vec<usize>,
    /// `always` compiled together: which of them match a line, in one pass over it.
    always_set: Option<RegexSet>,
    /// The fewest bytes any of `always` matches: a shorter line is not searched (a file of
    /// half a million one-letter lines paid one set search per line).
    always_min: usize,
    /// (line, message) for lines that are probably not what was meant (CFG003).
    pub warnings: Vec<(usize, String)>,
    /// (line, message) notes about how the file was read (CFG003 at note level).
    pub notes: Vec<(usize, String)>,
    /// Path patterns (gitignore style: `dist/`, `*.log`): files to keep out of the handoff,
    /// matched against its file names, never against text. (line, source, compiled glob).
    paths: Vec<(usize, String, PathGlob)>,
}

fn section_of(header: &str) -> Option<Section> {
    let l = header.to_lowercase();
    if l.contains("[secrets]")
        || l.contains("secret")
        || l.contains("api key")
        || l.contains(" key")
        || l.contains("token")
        || l.contains("password")
        || l.contains("credential")
    {
        Some(Section::Secrets)
    } else if l.contains("[pii]")
        || l.contains("pii")
        || l.contains("email")
        || l.contains("personal")
        || l.contains("phone")
        || l.contains("ssn")
    {
        Some(Section::Pii)
    } else if l.contains("[injection]") || l.contains("injection") || l.contains("jailbreak") {
        Some(Section::Injection)
    } else if l.contains("[custom]") {
        Some(Section::Custom)
    } else {
        None
    }
}

/// True when a line looks like a regular expression rather than a glob.
fn looks_regex(p: &str) -> bool {
    p.contains("\\b")
        || p.contains("\\d")
        || p.contains("\\w")
        || p.contains("\\s")
        || p.contains("(?")
        || {
            let b = p.as_bytes();
            b.windows(2).any(|w| w[0] == b'{' && w[1].is_ascii_digit())
                || (p.contains('[') && p.contains(']') && !p.starts_with('['))
        }
}

impl AiIgnore {
    /// Parses `.aiignore`; an invalid regex is a configuration error naming the line.
    pub(crate) fn parse(path: &str, text: &str) -> Result<AiIgnore> {
        AiIgnore::parse_as(path, text, false)
    }

    fn parse_as(path: &str, text: &str, secrets_only: bool) -> Result<AiIgnore> {
        if text.len() > MAX_BYTES {
            return Err(Error::invalid(
                path,
                None,
                format!(
                    "file is {} bytes; a .aiignore may hold at most {MAX_BYTES} bytes ({} KiB) of patterns",
                    text.len(),
                    MAX_BYTES / 1024
                ),
            ));
        }
        let mut out = AiIgnore::default();
        let path_dialect = gitignore_style(text);
        let mut section = Section::Custom;
        let mut after_banner = false;
        // A comment that opens a block (after a blank line) is a header: one that names no
        // family starts a custom section rather than extending the one above (issue #15).
        let mut block_start = true;
        for (n, raw_line) in text.lines().enumerate() {
            let line_no = n + 1;
            let trimmed = raw_line.trim();
            if trimmed.is_empty() {
                block_start = true;
                continue;
            }
            let opens_block = std::mem::replace(&mut block_start, false);
            if let Some(comment) = trimmed.strip_prefix('#') {
                let c = comment.trim();
                if c.chars()
                    .all(|ch| matches!(ch, '=' | '-' | '#' | '*' | ' '))
                {
                    after_banner = true;
                    continue;
                }
                if let Some(s) = section_of(c) {
                    section = s;
                } else if (after_banner || opens_block) && !looks_regex(c) {
                    section = Section::Custom;
                }
                after_banner = false;
                continue;
            }
            after_banner = false;
            if trimmed.starts_with('[')
                && trimmed.ends_with(']')
                && !trimmed.contains('*')
                && let Some(s) = section_of(trimmed)
            {
                section = s;
                continue;
            }
            // A trailing comment after white space.
            let mut pat = String::new();
            let mut prev_ws = false;
            let mut chars = trimmed.chars().peekable();
            while let Some(ch) = chars.next() {
                if ch == '\\' && chars.peek() == Some(&'#') {
                    pat.push('#');
                    chars.next();
                    prev_ws = false;
                    continue;
                }
                if ch == '#' && prev_ws {
                    break;
                }
                prev_ws = ch.is_whitespace();
                pat.push(ch);
            }
            let pat = pat.trim().to_string();
            let (negate, body) = match pat.strip_prefix('!') {
                Some(b) => (true, b.trim().to_string()),
                None => (false, pat.clone()),
            };
            if body.is_empty() {
                continue;
            }
            // A path (`dist/`, `*.log`, `build/**`) names files, not text: in a file written
            // gitignore style every line outside the secret/PII/injection sections is one,
            // elsewhere only the lines that cannot be anything else.
            if section == Section::Custom
                && !body.starts_with("re:")
                && (path_dialect && path_like(&body) != PathLike::No
                    || path_like(&body) == PathLike::Surely)
            {
                if !negate {
                    if out.paths.len() + out.patterns.len() + out.exceptions.len() >= MAX_PATTERNS {
                        return Err(Error::invalid(
                            path,
                            Some(line_no),
                            format!(
                                "more than {MAX_PATTERNS} patterns; a .aiignore may hold at most {MAX_PATTERNS}"
                            ),
                        ));
                    }
                    let glob = path_glob(&body);
                    out.paths.push((line_no, body, glob));
                }
                continue;
            }
            let compiled = if let Some(re) = body.strip_prefix("re:") {
                compile_regex(path, line_no, re.trim(), section)?
            } else if looks_regex(&body) {
                out.warnings.push((line_no, format!("`{body}` looks like a regular expression and is treated as one; prefix it with `re:`")));
                compile_regex(path, line_no, &body, section)?
            } else {
                glob(&body, section)
            };
            let Some(compiled) = compiled else {
                out.warnings.push((
                    line_no,
                    format!("`{body}` would match every line and is ignored"),
                ));
                continue;
            };
            let (re, guard, literal) = compiled;
            let p = IgnPattern {
                line: line_no,
                from_template: from_template(&body),
                source: body,
                section,
                re,
                guard,
                literal,
            };
            if out.paths.len() + out.patterns.len() + out.exceptions.len() >= MAX_PATTERNS {
                return Err(Error::invalid(
                    path,
                    Some(line_no),
                    format!(
                        "more than {MAX_PATTERNS} patterns; a .aiignore may hold at most {MAX_PATTERNS}"
                    ),
                ));
            }
            if negate {
                out.exceptions.push(p);
            } else {
                out.patterns.push(p);
            }
        }
        if let Some((first, _, _)) = out.paths.first() {
            out.notes.push((
                *first,
                format!(
                    "{} line(s) of this .aiignore are paths (gitignore style){}: they name files to keep out of the handoff and are matched against its file names, not its text",
                    out.paths.len(),
                    if path_dialect {
                        ", and so is the file"
                    } else {
                        ""
                    }
                ),
            ));
        }
        if secrets_only {
            out.patterns.retain(|p| p.section == Section::Secrets);
        }
        out.build_prefilter();
        out.build_set(path)?;
        Ok(out)
    }

    /// [`AiIgnore::parse`] keeping only the patterns of the secrets section (the exceptions
    /// too): what the output boundary redacts, without compiling the rest for every command
    /// that prints. The whole file is still read and checked as `parse` checks it.
    pub(crate) fn parse_secrets(path: &str, text: &str) -> Result<AiIgnore> {
        AiIgnore::parse_as(path, text, true)
    }

    /// What this `.aiignore` (a change's) no longer holds of `base`'s text patterns, and the
    /// exceptions it adds: (line, what), the line the base's for a pattern, this file's for
    /// an exception. A pattern counts as held when this file has one with the same source
    /// in the same section (so the same severity): one removed, moved under a header of
    /// another family, or read as a path since the file now reads as a list of paths
    /// (gitignore style) is not. Named by line only: a pattern may be the secret itself.
    pub(crate) fn weakened_since(&self, base: &AiIgnore) -> Vec<(usize, String)> {
        fn held(list: &[IgnPattern]) -> std::collections::HashSet<(&str, Section)> {
            list.iter()
                .map(|p| (p.source.as_str(), p.section))
                .collect()
        }
        let (now, before) = (held(&self.patterns), held(&base.exceptions));
        let mut out: Vec<(usize, String)> = base
            .patterns
            .iter()
            .filter(|p| !now.contains(&(p.source.as_str(), p.section)))
            .map(|p| {
                (
                    p.line,
                    format!(
                        "line {} of the base's .aiignore (a {} pattern) is no pattern of this \
                         .aiignore's {} section: removed, moved under another header, or read \
                         as a path",
                        p.line,
                        p.section.name(),
                        p.section.name()
                    ),
                )
            })
            .collect();
        out.extend(
            self.exceptions
                .iter()
                .filter(|p| !before.contains(&(p.source.as_str(), p.section)))
                .map(|p| {
                    (
                        p.line,
                        format!(
                            "line {} of .aiignore adds an exception to the {} patterns, which \
                             the base does not hold",
                            p.line,
                            p.section.name()
                        ),
                    )
                }),
        );
        out
    }

    /// The path patterns that match a handoff file name: (line, pattern).
    pub(crate) fn paths_matching<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = (usize, &'a str)> + 'a {
        self.paths
            .iter()
            .filter(move |(_, _, glob)| glob.is_match(name))
            .map(|(line, src, _)| (*line, src.as_str()))
    }

    /// Compiles the patterns without a literal into one [`RegexSet`]; too large a set is a
    /// configuration error naming the pattern that does not compile on its own, or the file.
    fn build_set(&mut self, path: &str) -> Result<()> {
        if self.always.is_empty() {
            return Ok(());
        }
        let sources: Vec<&str> = self
            .always
            .iter()
            .map(|&i| self.patterns[i].re.src.as_str())
            .collect();
        match RegexSetBuilder::new(&sources)
            .size_limit(MAX_SET_BYTES)
            .dfa_size_limit(MAX_SET_BYTES)
            .build()
        {
            Ok(set) => {
                // Parsed as the set compiles them (`compile_regex` checked each parses); a
                // pattern that can match nothing sets no bound.
                self.always_min = sources
                    .iter()
                    .map(|src| {
                        regex_syntax::Parser::new()
                            .parse(src)
                            .map_or(Some(0), |h| h.properties().minimum_len())
                    })
                    .map(|len| len.unwrap_or(usize::MAX))
                    .min()
                    .unwrap_or(0);
                self.always_set = Some(set);
                Ok(())
            }
            Err(e) => {
                // Name the pattern that is too large on its own, if one is. Each is compiled
                // alone within what is left of a budget of two sets' worth, so a thousand
                // patterns just under the limit cost about two set builds, not a thousand
                // (issue #12 review, N7: 55 s before exit 2).
                let mut budget = 2 * MAX_SET_BYTES;
                for &i in &self.always {
                    let p = &self.patterns[i];
                    match nfa_size(&p.re.src, MAX_SET_BYTES.min(budget)) {
                        Ok(size) => budget = budget.saturating_sub(size),
                        Err(e) if budget >= MAX_SET_BYTES => {
                            return Err(Error::invalid(
                                path,
                                Some(p.line),
                                format!("invalid regex (CFG003): {e}"),
                            ));
                        }
                        Err(_) => break,
                    }
                    if budget == 0 {
                        break;
                    }
                }
                Err(Error::invalid(
                    path,
                    None,
                    format!(
                        "its {} regular expressions together exceed the {} MiB limit for compiled patterns: {e}",
                        self.always.len(),
                        MAX_SET_BYTES / (1024 * 1024)
                    ),
                ))
            }
        }
    }

    fn build_prefilter(&mut self) {
        let mut lits: Vec<String> = Vec::new();
        let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for (i, p) in self.patterns.iter().enumerate() {
            match &p.literal {
                Some(l) => {
                    let k = *index.entry(l.as_str()).or_insert_with(|| {
                        lits.push(l.clone());
                        self.ac_targets.push(Vec::new());
                        lits.len() - 1
                    });
                    self.ac_targets[k].push(i);
                }
                None => self.always.push(i),
            }
        }
        self.lits = lits;
    }

    /// The automaton that finds the lines holding a literal, built at the first call (none
    /// without a literal). The literals are matched without regard to ASCII case: the
    /// automata hold them ASCII-lowercased and search the text ASCII-lowercased
    /// ([`AiIgnore::literal_lines`]), which finds what an ASCII-case-insensitive automaton
    /// finds, at the same offsets (lowercasing ASCII keeps every byte where it was). This one
    /// reports leftmost matches, which lets the crate search with its vectorised prefilter
    /// (a case-insensitive or overlapping automaton steps through the text byte by byte:
    /// 0.47 M instructions for the default fixture's STATUS.md, which holds no literal).
    fn automaton(&self) -> Option<&AhoCorasick> {
        self.ac
            .get_or_init(|| self.literal_automaton(MatchKind::LeftmostFirst))
            .as_ref()
    }

    /// The literals' automaton with `kind`: a contiguous NFA, cheaper to build than the DFA
    /// the crate picks for few literals, whose speed the prefilter and the short lines make
    /// moot.
    fn literal_automaton(&self, kind: MatchKind) -> Option<AhoCorasick> {
        if self.lits.is_empty() {
            return None;
        }
        AhoCorasickBuilder::new()
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .match_kind(kind)
            .build(self.lits.iter().map(|l| l.to_ascii_lowercase()))
            .ok()
    }

    /// Every (line start, line end, pattern) where the line holds the pattern's literal,
    /// ASCII case ignored: the lines holding a literal, by a search that skips ahead between
    /// candidates (an overlapping search steps through every byte); then, in those lines
    /// only, every literal, overlapping ones included. A literal never spans lines, so an
    /// occurrence the first search steps over (it starts inside a match it reports, a
    /// leftmost search reporting the earliest start) lies in a line it reports. Unsorted,
    /// with repeats.
    fn literal_lines<'l>(
        &self,
        text: &str,
        lines: impl Fn() -> &'l LineIndex,
        todo: &mut Vec<(usize, usize, usize)>,
    ) {
        let Some(scan) = self.automaton() else {
            return;
        };
        let folded = text.as_bytes().to_ascii_lowercase();
        let mut last = usize::MAX;
        for m in scan.find_iter(&folded) {
            let line = lines().line_of(m.start());
            if line == last {
                continue;
            }
            last = line;
            // Every literal of the line, overlapping ones included: an automaton of its own,
            // built at the first line that holds one.
            let each = self
                .ac_each
                .get_or_init(|| self.literal_automaton(MatchKind::Standard));
            let Some(each) = each.as_ref() else {
                continue;
            };
            let (s, e) = lines().range_of(line);
            for m in each.find_overlapping_iter(&folded[s..e]) {
                for &p in &self.ac_targets[m.pattern().as_usize()] {
                    todo.push((s, e, p));
                }
            }
        }
    }

    /// Number of active patterns.
    pub(crate) fn len(&self) -> usize {
        self.patterns.len()
    }

    /// Reports every pattern match in the scan.
    pub(crate) fn apply(&self, scan: &Scan<'_>, out: &mut Vec<Finding>) {
        let text = scan.text();
        let lines = std::cell::OnceCell::new();
        let lines = || lines.get_or_init(|| super::text::LineIndex::new(text));
        let mut todo: Vec<(usize, usize, usize)> = Vec::new(); // (line start, line end, pattern)
        self.literal_lines(text, lines, &mut todo);
        if let Some(set) = &self.always_set {
            for (s, e) in lines().ranges() {
                if e - s < self.always_min {
                    continue;
                }
                for k in &set.matches(&text.as_bytes()[s..e]) {
                    todo.push((s, e, self.always[k]));
                }
            }
        }
        todo.sort_unstable();
        todo.dedup();
        // The spans the exceptions match on the current line, found once per line.
        let mut excepted: (usize, Vec<(usize, usize)>) = (usize::MAX, Vec::new());
        super::steps::add(todo.len() as u64);
        // Findings per pattern: past MAX_FINDINGS a pattern stops (CFG006, fail closed).
        let mut found = vec![0usize; self.patterns.len()];
        for (ls, le, p) in todo {
            let pat = &self.patterns[p];
            let line = &text[ls..le];
            let Some(re) = pat.re.get() else { continue };
            for c in re.captures_iter(line.as_bytes()) {
                let m = c.get(0).expect("group 0");
                if found[p] >= MAX_FINDINGS {
                    if found[p] == MAX_FINDINGS {
                        let s = super::text::floor_char(text, ls + m.start());
                        let secret = pat.section == Section::Secrets;
                        let end = if secret {
                            text.len()
                        } else {
                            super::text::ceil_char(text, s + 1)
                        };
                        out.push(cap_finding(&IGN001, MAX_FINDINGS, s, end, secret));
                        found[p] += 1;
                    }
                    break;
                }
                let (mut s, mut e) = (ls + m.start(), ls + m.end());
                if let Some(t) = c.name("t") {
                    s = ls + t.start();
                    e = ls + t.end();
                }
                // Byte-level globs may stop inside a character: widen to whole characters.
                let s = super::text::floor_char(text, s);
                let e = super::text::ceil_char(text, e.max(s));
                let value = c
                    .name("v")
                    .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
                let value = value.as_deref();
                let matched = &text[s..e];
                let ok = match pat.guard {
                    Guard::None => true,
                    Guard::Value => value.is_some_and(|v| {
                        v.len() >= 8
                            && !is_template(v)
                            && placeholder(v) == Placeholder::No
                            && shaped(v)
                    }),
                    // A value the built-in detectors judge a stand-in (`sk-test-1234…`,
                    // `${TOKEN}`) is not re-raised by a prefix pattern.
                    Guard::Prefix => {
                        value.is_some_and(|v| !is_template(v) && placeholder(v) == Placeholder::No)
                    }
                    Guard::Email => is_email(matched) && email_exemption(matched).is_none(),
                    Guard::Matched => {
                        let v = matched
                            .rsplit(|c: char| c == '=' || c == ':' || c.is_whitespace())
                            .find(|v| !v.trim_matches(['"', '\'', '@']).is_empty())
                            .unwrap_or(matched)
                            .trim_matches(['"', '\'', '@']);
                        // An assignment whose name the built-in detectors read as no secret
                        // (`PRIMARY_KEY=…`, `NEXT_PUBLIC_…_KEY=…`) is not re-raised either.
                        let name = matched
                            .split_once(['=', ':'])
                            .map(|(n, _)| n)
                            .filter(|n| !n.trim().is_empty() && !n.contains("://"));
                        // Only for the template's own lines: a pattern the user wrote says
                        // what they want found.
                        // A value the assignment detector judged a stand-in (a phrase of
                        // words, a dummy run) is not re-raised either (issue #13).
                        let no_secret = pat.from_template
                            && (name.is_some_and(super::rules::secrets::names_no_secret)
                                || super::rules::secrets::judged_stand_in(v));
                        v.contains("-----")
                            || !is_template(v) && placeholder(v) == Placeholder::No && !no_secret
                    }
                };
                if !ok {
                    continue;
                }
                if excepted.0 != ls {
                    excepted = (ls, self.exception_spans(ls, line));
                }
                if excepted.1.iter().any(|&(xs, xe)| xs < e && s < xe) {
                    continue;
                }
                let shown = if pat.section == Section::Secrets {
                    redacted(matched)
                } else {
                    super::rules::excerpt(matched)
                };
                let mut f = Finding::new(
                    &IGN001,
                    s,
                    e,
                    format!(
                        "matches .aiignore line {} `{}` ({} section): {shown}",
                        pat.line,
                        pat.source,
                        pat.section.name()
                    ),
                );
                if pat.section == Section::Secrets {
                    f.secret = true;
                    f.kind = Some("aiignore-secret");
                } else if pat.guard == Guard::Email {
                    f.kind = Some("email");
                } else if pat.section == Section::Injection {
                    f.kind = Some("aiignore-injection");
                    // The template's injection lines are the built-in rules' own phrases: where
                    // those rules block, their finding stands in its place; where they judged
                    // the phrase quoted or described ("text such as \"ignore previous
                    // instructions\""), the template's line does not raise it to a block.
                    if pat.from_template {
                        f.severity = super::Severity::Warning;
                    }
                }
                out.push(f);
                found[p] += 1;
            }
        }
    }

    /// The first match of each exception on the line starting at `ls` (text offsets).
    fn exception_spans(&self, ls: usize, line: &str) -> Vec<(usize, usize)> {
        self.exceptions
            .iter()
            .filter_map(|x| x.re.get()?.find(line.as_bytes()))
            .map(|m| (ls + m.start(), ls + m.end()))
            .collect()
    }
}

/// How surely a pattern line names files rather than text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathLike {
    /// Cannot be a text pattern: `dist/`, `**/x`, `*.log`, `/build`.
    Surely,
    /// A file or directory name (`node_modules`, `.env`, `notes.txt`): a path in a file
    /// written as a list of paths.
    Maybe,
    No,
}

fn path_like(p: &str) -> PathLike {
    let p = p.trim();
    if p.is_empty()
        || p.contains([
            ' ', '\t', '=', '@', ':', '"', '\'', '(', ')', '|', '^', '$', '\\',
        ])
    {
        return PathLike::No;
    }
    let ext = |e: &str| {
        !e.is_empty() && e.len() <= 10 && e.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'*')
    };
    if p.ends_with('/')
        || p.starts_with('/')
        || p.contains("**")
        || p.contains('/') && !p.contains("://")
        || p.strip_prefix("*.")
            .is_some_and(|e| ext(e) && !e.contains('*') && e.len() <= 6 && !TLDS.contains(&e))
    {
        return PathLike::Surely;
    }
    let name = p.trim_start_matches('.');
    if !name.is_empty()
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-' | b'*' | b'?'))
        && !name.starts_with('-')
        // A file name has an extension, a wildcard or lower case (`node_modules`); a
        // codename in capitals (`PROJECT-ATLAS`) is text.
        && (name.contains(['.', '*']) || !name.bytes().any(|c| c.is_ascii_uppercase()))
    {
        return PathLike::Maybe;
    }
    PathLike::No
}

/// Top-level domains that make `*.com` a host pattern, not a file extension.
const TLDS: &[&str] = &[
    "com", "org", "net", "io", "de", "dev", "ai", "co", "uk", "fr", "nl", "eu", "us", "app",
    "internal", "local", "corp",
];

/// True when a `.aiignore` is written as a list of paths: most of its pattern lines name
/// files (`dist/`, `*.log`, `node_modules`), or its comments speak of excluding files and
/// half of them do.
fn gitignore_style(text: &str) -> bool {
    let (mut lines, mut surely, mut maybe, mut cue) = (0usize, 0usize, 0usize, false);
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(c) = line.strip_prefix('#') {
            let c = c.to_ascii_lowercase();
            cue |= [
                "exclude",
                "files",
                "directories",
                "folders",
                "paths",
                "gitignore",
                "index",
            ]
            .iter()
            .any(|w| c.contains(w))
                && !["secret", "token", "password", "injection", "pii"]
                    .iter()
                    .any(|w| c.contains(w));
            continue;
        }
        let body = line.trim_start_matches('!');
        lines += 1;
        match path_like(body) {
            PathLike::Surely => surely += 1,
            PathLike::Maybe => maybe += 1,
            PathLike::No => {}
        }
    }
    let paths = surely + maybe;
    surely > 0 && (paths * 10 >= lines * 7 || cue && paths * 2 >= lines)
}

/// A gitignore-style path pattern over handoff file names (inner paths with `/`): `*` within
/// a name, `**` across directories, a trailing `/` for a directory and everything in it, a
/// pattern without `/` matching any name component. Matched by a walk over the name's
/// characters (no regex to compile: a `.aiignore` may hold thousands of paths, and each
/// compiled regex cost about as much as linting a page).
#[derive(Debug)]
struct PathGlob {
    /// Matches only at the start of the name (the pattern holds a `/` before its end).
    anchored: bool,
    /// A trailing `/`: a directory and everything in it.
    dir: bool,
    tokens: Vec<GlobToken>,
    /// The longest run of literal characters among the tokens: consecutive [`GlobToken::Char`]
    /// tokens match consecutive characters, so a name without it cannot match. A `.aiignore`
    /// of a thousand paths is then no thousand walks over every handoff file's name.
    literal: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GlobToken {
    Char(char),
    /// `?`: one character but `/`.
    One,
    /// `*`: any characters but `/`.
    Star,
    /// `**`: any characters but a newline.
    Any,
    /// `**/`: nothing, or any characters but a newline ending in `/`.
    AnyDir,
}

impl PathGlob {
    fn is_match(&self, name: &str) -> bool {
        if !name.contains(self.literal.as_str()) {
            return false;
        }
        let c: Vec<char> = name.chars().collect();
        let n = c.len();
        // Where a match may start: the name's start, or (unanchored) after any `/`.
        let mut at = vec![false; n + 1];
        at[0] = true;
        if !self.anchored {
            for i in 0..n {
                at[i + 1] |= c[i] == '/';
            }
        }
        let mut next = vec![false; n + 1];
        for t in &self.tokens {
            next.fill(false);
            match *t {
                GlobToken::Char(ch) => {
                    for i in 0..n {
                        next[i + 1] = at[i] && c[i] == ch;
                    }
                }
                GlobToken::One => {
                    for i in 0..n {
                        next[i + 1] = at[i] && c[i] != '/';
                    }
                }
                GlobToken::Star | GlobToken::Any => {
                    let stop = if *t == GlobToken::Star { '/' } else { '\n' };
                    let mut live = false;
                    for i in 0..=n {
                        live = at[i] || live && c[i - 1] != stop;
                        next[i] = live;
                    }
                }
                GlobToken::AnyDir => {
                    let mut live = false;
                    for i in 0..=n {
                        next[i] = at[i] || live && c[i - 1] == '/';
                        live = at[i] || live && i > 0 && c[i - 1] != '\n';
                    }
                }
            }
            std::mem::swap(&mut at, &mut next);
        }
        (0..=n).any(|k| {
            at[k]
                && if self.dir {
                    c.get(k) == Some(&'/')
                } else {
                    k == n || c[k] == '/'
                }
        })
    }
}

/// Reads a gitignore-style path pattern (see [`PathGlob`]).
fn path_glob(p: &str) -> PathGlob {
    let dir = p.ends_with('/');
    let anchored = p.starts_with('/') || p.trim_end_matches('/').contains('/');
    let body = p.trim_matches('/');
    let mut tokens = Vec::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        tokens.push(match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                if chars.peek() == Some(&'/') {
                    chars.next();
                    GlobToken::AnyDir
                } else {
                    GlobToken::Any
                }
            }
            '*' => GlobToken::Star,
            '?' => GlobToken::One,
            c => GlobToken::Char(c),
        });
    }
    let literal = tokens
        .split(|t| !matches!(t, GlobToken::Char(_)))
        .max_by_key(|run| run.len())
        .unwrap_or_default()
        .iter()
        .filter_map(|t| match t {
            GlobToken::Char(c) => Some(*c),
            _ => None,
        })
        .collect();
    PathGlob {
        anchored,
        dir,
        tokens,
        literal,
    }
}

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    let tld = domain.rsplit('.').next().unwrap_or("");
    !local.is_empty()
        && domain.contains('.')
        && tld.len() >= 2
        && tld.bytes().all(|c| c.is_ascii_alphabetic())
}

fn shaped(v: &str) -> bool {
    let digit = v.bytes().any(|c| c.is_ascii_digit());
    let upper = v.bytes().any(|c| c.is_ascii_uppercase());
    let lower = v.bytes().any(|c| c.is_ascii_lowercase());
    (digit && (upper || lower)) || (upper && lower) || v.bytes().any(|c| !c.is_ascii_alphanumeric())
}

/// The memory of `src`'s compiled automaton (regex's own Thompson NFA, with the syntax a
/// `regex::bytes::Regex` reads), or the error past `limit` bytes.
fn nfa_size(src: &str, limit: usize) -> std::result::Result<usize, String> {
    use regex_automata::nfa::thompson;
    thompson::Compiler::new()
        .syntax(regex_automata::util::syntax::Config::new().utf8(false))
        .configure(
            thompson::Config::new()
                .utf8(false)
                .nfa_size_limit(Some(limit)),
        )
        .build(src)
        .map(|nfa| nfa.memory_usage())
        .map_err(|e| e.to_string())
}

/// `None` for a regex that matches empty text (`re:`, `re:x*`, `re:(a|)`, `re:\b`): it would
/// report an empty match on every line (or at every word) of every handoff file and block
/// every commit, where a glob that matches everything (`*`) is ignored with a warning
/// (review rob35 #8); it is ignored the same way.
fn compile_regex(
    path: &str,
    line: usize,
    src: &str,
    section: Section,
) -> Result<Option<(LazyRegex, Guard, Option<String>)>> {
    let full = if section == Section::Injection {
        format!("(?i){src}")
    } else {
        src.to_string()
    };
    // Checked here, so an error names its line; compiled with the others into one set, and
    // on its own only for a line the set says it matches.
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(&full)
        .map_err(|e| Error::invalid(path, Some(line), format!("invalid regex (CFG003): {e}")))?;
    if hir.properties().minimum_len() == Some(0) {
        return Ok(None);
    }
    let guard = if section == Section::Secrets {
        Guard::Matched
    } else {
        Guard::None
    };
    Ok(Some((LazyRegex::lazy(full), guard, None)))
}

/// Converts a glob to a regex; `None` for a pattern that would match everything.
fn glob(body: &str, section: Section) -> Option<(LazyRegex, Guard, Option<String>)> {
    let core = body.trim_matches('*');
    if core.trim().is_empty() || core.chars().all(|c| c == '?' || c == '*') {
        return None;
    }
    let phrase = body.contains(' ');
    let case_insensitive = section == Section::Injection || !body.chars().any(char::is_uppercase);
    // Globs match bytes (`(?-u)`): small automata, and a wildcard never needs Unicode classes.
    let any = if phrase { "[^\\n]*?" } else { "\\S*?" };
    let one = if phrase { "[^\\n]" } else { "\\S" };
    let literal = body
        .split(['*', '?'])
        .max_by_key(|s| s.len())
        .map(|s| s.trim().to_lowercase())
        .filter(|s| s.len() >= 2);
    // Email patterns in the PII section.
    if section == Section::Pii && body.contains('@') {
        let mut re = String::from(if case_insensitive { "(?i)" } else { "" });
        let (l, r) = body.split_once('@')?;
        for (part, charset) in [(l, "[A-Za-z0-9._%+-]"), (r, "[A-Za-z0-9.-]")] {
            for ch in part.chars() {
                match ch {
                    '*' => {
                        re.push_str(charset);
                        re.push('*');
                    }
                    '?' => re.push_str(charset),
                    c => re.push_str(&regex::escape(&c.to_string())),
                }
            }
            if std::ptr::eq(part, l) {
                re.push('@');
            }
        }
        re.push_str("\\b");
        // Anchor the local part at a token boundary so the whole address is reported.
        let re = format!(
            "(?:^|[^A-Za-z0-9._%+-])(?P<t>{})",
            re.trim_start_matches("(?i)")
        );
        let re = if case_insensitive {
            format!("(?i-u){re}")
        } else {
            format!("(?-u){re}")
        };
        return Some((LazyRegex::lazy(re), Guard::Email, literal));
    }
    let trailing_star = body.ends_with('*');
    let leading_star = body.starts_with('*');
    let inner = body.trim_end_matches('*');
    let inner = inner.trim_start_matches('*');
    let prefix_only = section == Section::Secrets
        && trailing_star
        && !leading_star
        && !inner.contains(['*', '?', ' ']);
    let value_guard = section == Section::Secrets
        && trailing_star
        && !prefix_only
        && inner.ends_with(['=', ':', '-', '_', ' ']);
    let mut re = String::from(if case_insensitive { "(?i-u)" } else { "(?-u)" });
    if prefix_only {
        re.push_str("(?:^|[^A-Za-z0-9_-])(?P<t>");
        re.push_str(&regex::escape(inner));
        re.push_str("(?P<v>[A-Za-z0-9_-]{16,}))");
        return Some((LazyRegex::lazy(re), Guard::Prefix, literal));
    }
    re.push_str("(?P<t>");
    if leading_star {
        re.push_str(if phrase { "" } else { "[A-Za-z0-9_.-]*" });
    }
    for ch in inner.chars() {
        match ch {
            '*' => re.push_str(any),
            '?' => re.push_str(one),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    if value_guard {
        re.push_str("[\"']?(?P<v>[^\\s\"'`]{1,200})");
    }
    re.push(')');
    let guard = if value_guard {
        Guard::Value
    } else {
        Guard::None
    };
    Some((LazyRegex::lazy(re), guard, literal))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference_template() -> &'static str {
        "# Secrets & API Keys\n*_KEY=*\nBearer *\nsk-*\nAKIA*\n-----BEGIN*PRIVATE KEY-----\n\n# PII\n*@*.com\n# SSN pattern (US)\n# \\b\\d{3}-\\d{2}-\\d{4}\\b\n\n# Prompt Injection Patterns\nignore all previous*\nyou are now*\n"
    }

    #[test]
    fn reference_template_parses_into_sections() {
        let a = AiIgnore::parse(".aiignore", reference_template()).unwrap();
        let sections: Vec<(String, Section)> = a
            .patterns
            .iter()
            .map(|p| (p.source.clone(), p.section))
            .collect();
        assert!(sections.contains(&("*_KEY=*".into(), Section::Secrets)));
        assert!(sections.contains(&("*@*.com".into(), Section::Pii)));
        assert!(sections.contains(&("you are now*".into(), Section::Injection)));
        assert_eq!(a.patterns.len(), 8, "commented regexes stay comments");
        assert!(a.warnings.is_empty());
    }

    /// The literals' automaton is built at the first search, not by the parse: the output
    /// boundary parses the secrets section for every command, and a hook that passes prints
    /// nothing, so never searches. What a search finds does not depend on when it was built.
    #[test]
    fn the_literal_automaton_is_built_at_the_first_search() {
        let ignore = "# Secrets\nre:\\bTOKEN-[0-9]{4}[a-z]{4}\\b\nsk-*\n*_KEY=*\n";
        let sample = "a TOKEN-1234abcd b\nkey sk-Q7vT2mX9pL4wR8nK3jH6 here\nMY_API_KEY=Zx8Qm2Lp9Tv4Rk7W\n\
                      nothing here\ntask-to-model\ntoken-5678wxyz\n";
        let lazy = crate::lint::UserSecrets::parse(".aiignore", ignore).unwrap();
        assert!(
            lazy.0.ac.get().is_none(),
            "the parse does not build the automaton"
        );
        let found = lazy.spans(sample);
        assert!(lazy.0.ac.get().is_some(), "the first search builds it");
        let built = crate::lint::UserSecrets::parse(".aiignore", ignore).unwrap();
        assert!(built.0.automaton().is_some());
        assert_eq!(built.spans(sample), found);
        let shown: Vec<&str> = found.iter().map(|&(s, e)| &sample[s..e]).collect();
        for secret in [
            "TOKEN-1234abcd",
            "sk-Q7vT2mX9pL4wR8nK3jH6",
            "MY_API_KEY=Zx8Qm2Lp9Tv4Rk7W",
        ] {
            assert!(
                shown.iter().any(|s| s.contains(secret)),
                "{secret}: {shown:?}"
            );
        }
        assert!(
            !shown
                .iter()
                .any(|s| s.contains("task") || s.contains("nothing")),
            "{shown:?}"
        );
        // A file without a literal builds none, and finds nothing.
        let none = crate::lint::UserSecrets::parse(".aiignore", "# Secrets\n").unwrap();
        assert!(none.spans(sample).is_empty());
        assert!(none.0.automaton().is_none());
    }

    /// The lines holding a literal as the ASCII-case-insensitive automaton found them
    /// before the literals were searched lowercased.
    fn literal_lines_case_insensitive(a: &AiIgnore, text: &str) -> Vec<(usize, usize, usize)> {
        let mut todo = Vec::new();
        if a.lits.is_empty() {
            return todo;
        }
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&a.lits)
            .unwrap();
        let lines = LineIndex::new(text);
        let mut last = usize::MAX;
        for m in ac.find_iter(text) {
            let line = lines.line_of(m.start());
            if line == last {
                continue;
            }
            last = line;
            let (s, e) = lines.range_of(line);
            for m in ac.find_overlapping_iter(&text[s..e]) {
                for &p in &a.ac_targets[m.pattern().as_usize()] {
                    todo.push((s, e, p));
                }
            }
        }
        todo.sort_unstable();
        todo.dedup();
        todo
    }

    fn literal_lines_of(a: &AiIgnore, text: &str) -> Vec<(usize, usize, usize)> {
        let lines = LineIndex::new(text);
        let mut todo = Vec::new();
        a.literal_lines(text, || &lines, &mut todo);
        todo.sort_unstable();
        todo.dedup();
        todo
    }

    #[test]
    fn literals_are_found_in_every_ascii_case_as_before() {
        let ignore = "# Secrets\n*_KEY=*\nBearer *\nsk-*\nGHP_*\n*Clé_*\n\n# PII\n*@*.COM\n\n\
                      # Internal\nProject-Falcon*\nfalcon*\n*ÀB*\n";
        let a = AiIgnore::parse(".aiignore", ignore).unwrap();
        assert!(a.lits.len() >= 8, "{:?}", a.lits);
        let text = "my_key=1\nMY_KEY=2 and My_Key=3\nbearer x BEARER y\nSK-abc sk-def\n\
                    ghp_x Ghp_y\nclé_1 CLÉ_2 CLé_3\nan@b.com c@D.CoM\nproject-falcon PROJECT-FALCON-x\n\
                    falconfalcon\nàb ÀB Àb\nnothing\n\nKEY= _KE Y=\n";
        let found = literal_lines_of(&a, text);
        assert_eq!(found, literal_lines_case_insensitive(&a, text));
        let lines: std::collections::BTreeSet<usize> = found.iter().map(|t| t.0).collect();
        assert_eq!(lines.len(), 10, "{found:?}");
    }

    proptest::proptest! {
        #[test]
        fn literal_lines_match_the_case_insensitive_search(
            globs in proptest::collection::vec("[aAbB_\\-=é]{2,5}", 1..6),
            text in "([aAbBcC_\\-=é \n]{0,12}){0,24}",
        ) {
            let mut ignore = String::from("# Internal\n");
            for g in &globs {
                ignore.push_str(g);
                ignore.push_str("*\n");
            }
            let a = AiIgnore::parse(".aiignore", &ignore).unwrap();
            proptest::prop_assert_eq!(
                literal_lines_of(&a, &text),
                literal_lines_case_insensitive(&a, &text)
            );
        }
    }

    #[test]
    fn a_custom_header_does_not_inherit_the_family_above() {
        let text = "# Injection\nyou are now*\n\n# Internal\nproject-falcon*\n# note under it\nfalcon-db*\n";
        let a = AiIgnore::parse(".aiignore", text).unwrap();
        let of = |src: &str| a.patterns.iter().find(|p| p.source == src).unwrap().section;
        assert_eq!(of("you are now*"), Section::Injection);
        assert_eq!(of("project-falcon*"), Section::Custom);
        assert_eq!(of("falcon-db*"), Section::Custom);
    }

    /// A regex that matches empty text reported an empty match on every line (or at every
    /// word) of every handoff file and blocked every commit; it is ignored with a warning,
    /// as `*` is (review rob35 #8). A regex that needs at least one character still counts.
    #[test]
    fn a_regex_that_matches_empty_text_is_ignored_like_a_star() {
        for src in [
            "re:", "re:x*", "re:(a|)", "re:\\b", "re:(?m)^", "re:\\s*", "*",
        ] {
            let a = AiIgnore::parse(".aiignore", &format!("# Internal\n{src}\n")).unwrap();
            assert!(a.patterns.is_empty(), "{src}");
            assert_eq!(a.warnings.len(), 1, "{src}");
            assert!(a.warnings[0].1.contains("is ignored"), "{src}");
        }
        let a = AiIgnore::parse(".aiignore", "# Internal\nre:proj-[0-9]*\n").unwrap();
        assert_eq!(a.patterns.len(), 1);
    }

    #[test]
    fn invalid_regex_names_the_line() {
        let err = AiIgnore::parse(".ai/handoff/.aiignore", "# x\nre:(unclosed\n").unwrap_err();
        assert!(
            err.to_string()
                .starts_with(".ai/handoff/.aiignore:2: invalid regex"),
            "{err}"
        );
    }

    #[test]
    fn globs_follow_the_value_and_prefix_guards() {
        let (re, g, _) = glob("*_KEY=*", Section::Secrets).unwrap();
        let re = re.get().unwrap();
        assert_eq!(g, Guard::Value);
        let c = re.captures(b"MY_API_KEY=abcdef123456").unwrap();
        assert_eq!(&c["t"], b"MY_API_KEY=abcdef123456");
        let (re, g, _) = glob("sk-*", Section::Secrets).unwrap();
        let re = re.get().unwrap();
        assert_eq!(g, Guard::Prefix);
        assert!(re.is_match(b"key sk-abcdefghijklmnop1234"));
        assert!(!re.is_match(b"task-to-model"));
        assert!(glob("*", Section::Custom).is_none());
    }

    #[test]
    fn a_list_of_paths_is_read_as_paths() {
        let text =
            "# Files to exclude from AI context\ndist/\nnode_modules\n*.log\n.env\nbuild/**\n";
        let ign = AiIgnore::parse(".aiignore", text).unwrap();
        assert_eq!(ign.len(), 0, "no text pattern");
        assert_eq!(ign.paths.len(), 5);
        assert_eq!(ign.notes.len(), 1);
        assert!(ign.paths_matching("debug.log").next().is_some());
        assert!(ign.paths_matching("dist/app.js").next().is_some());
        assert!(ign.paths_matching("STATUS.md").next().is_none());
        // The reference template is text patterns, not paths.
        let t = AiIgnore::parse(".aiignore", reference_template()).unwrap();
        assert!(t.paths.is_empty() && t.notes.is_empty());
        assert!(t.len() > 5);
    }

    /// The regular expression a path pattern stands for (what it was compiled to before).
    fn path_regex(p: &str) -> Regex {
        let dir = p.ends_with('/');
        let anchored = p.starts_with('/') || p.trim_end_matches('/').contains('/');
        let mut re = String::from(if anchored { "^" } else { "(?:^|/)" });
        let mut chars = p.trim_matches('/').chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '*' if chars.peek() == Some(&'*') => {
                    chars.next();
                    if chars.peek() == Some(&'/') {
                        chars.next();
                        re.push_str("(?:.*/)?");
                    } else {
                        re.push_str(".*");
                    }
                }
                '*' => re.push_str("[^/]*"),
                '?' => re.push_str("[^/]"),
                c => re.push_str(&regex::escape(&c.to_string())),
            }
        }
        re.push_str(if dir { "/" } else { "(?:$|/)" });
        Regex::new(&re).unwrap()
    }

    #[test]
    fn path_patterns_match_as_their_regular_expressions() {
        let patterns = [
            "dist/",
            "/build",
            "*.log",
            "node_modules",
            "build/**",
            "**/x",
            "a/**/b",
            "**",
            "a?c",
            "/",
            "*",
            "docs/*.md",
            "**/",
            "x**y",
            "notes.txt",
            "é?/",
            "a*/b*/",
            // Literal runs a name must hold (the prefilter of `PathGlob::is_match`).
            "build7/",
            "*codename7*",
            "do?s/a.md",
        ];
        let names = [
            "dist/app.js",
            "dist",
            "x/dist/y",
            "build",
            "build/a/b",
            "debug.log",
            "a/debug.log",
            "log",
            "node_modules/x",
            "src/node_modules",
            "x",
            "a/x",
            "a/b",
            "a/c/d/b",
            "ab/b",
            "abc",
            "a/c",
            "",
            "/",
            "docs/a.md",
            "docs/x/a.md",
            "xy",
            "x/y",
            "xay",
            "é1/z",
            "notes.txt",
            "a1/b2/c",
            "a\nb/x",
            "STATUS.md",
            "build7/x",
            "x/build7/y",
            "build7",
            "build77/x",
            "the-codename7-notes.md",
            "codename",
            "dogs/a.md",
        ];
        for p in patterns {
            let (glob, re) = (path_glob(p), path_regex(p));
            for n in names {
                assert_eq!(
                    glob.is_match(n),
                    re.is_match(n.as_bytes()),
                    "{p:?} on {n:?}"
                );
            }
        }
    }

    #[test]
    fn a_path_line_among_text_patterns_is_a_path() {
        let ign = AiIgnore::parse(".aiignore", "# custom\nPROJECT-ATLAS\ncoverage/\n").unwrap();
        assert_eq!(ign.len(), 1);
        assert_eq!(ign.paths.len(), 1);
        assert!(!gitignore_style(
            "# custom\nPROJECT-ATLAS\ncoverage/\n*@*.com\n"
        ));
        assert_ne!(path_like("*.com"), PathLike::Surely);
        assert_eq!(path_like("*.log"), PathLike::Surely);
        assert_eq!(path_like("ignore all previous*"), PathLike::No);
    }

    #[test]
    fn every_glob_shape_compiles() {
        let shapes = [
            "*_KEY=*",
            "sk-*",
            "Bearer *",
            "AKIA*",
            "-----BEGIN*PRIVATE KEY-----",
            "*@*.com",
            "ignore all previous*",
            "you are now*",
            "pass?ord",
            "*.internal.example",
            "x*y",
            "*secret*",
            "token: *",
            "user?@corp.example",
        ];
        for section in [
            Section::Secrets,
            Section::Pii,
            Section::Injection,
            Section::Custom,
        ] {
            for shape in shapes {
                if let Some((re, _, _)) = glob(shape, section) {
                    assert!(re.get().is_some(), "{shape} in {section:?}: {}", re.src);
                }
            }
        }
    }
}
