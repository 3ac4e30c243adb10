//! The output boundary (SPEC §3, issue #11): the one place untrusted text (handoff content,
//! file names, manifest keys and values, lock fields, git config, the command line) is made
//! safe to show. It redacts every secret the linter recognises, in the linter's redacted
//! form, and neutralises terminal control characters and CI workflow commands.
//!
//! Two layers: [`Untrusted`] holds such text and can only be rendered through [`clean`]
//! (its `Serialize` does that; it has no `Display`), and [`Sink`] is applied by the
//! [`Printer`](super::Printer) and the error reporter to everything written to stdout and
//! stderr, so text that skipped the first layer still cannot drive a terminal or a CI
//! runner. The tool's own colours ([`Paint`]) and its own annotation lines
//! ([`Annotation`]) are the only escape sequences and workflow commands that get through,
//! and only through the code built for them.

use std::borrow::Cow;

use serde::{Serialize, Serializer};

/// Text written by someone else. The only ways out are [`Untrusted::shown`] and
/// `Serialize`, both through [`clean`]; [`Untrusted::raw`] is the visible escape hatch
/// for logic (comparison, parsing) that does not print.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Untrusted(String);

impl Untrusted {
    /// Wraps text that came from outside the tool.
    pub fn new(s: impl Into<String>) -> Untrusted {
        Untrusted(s.into())
    }

    /// The text as it may be shown: secrets redacted, controls and CI commands neutralised.
    pub fn shown(&self) -> String {
        clean(&self.0).into_owned()
    }

    /// [`Untrusted::shown`] kept on one line: newlines become `\u{a}` too (names, lock
    /// fields, one-line messages).
    pub fn shown_line(&self) -> String {
        clean_line(&self.0)
    }

    /// The unmodified text, for logic that does not print it.
    pub fn raw(&self) -> &str {
        &self.0
    }

    /// True when there is no text.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Debug for Untrusted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Untrusted({:?})", clean(&self.0))
    }
}

impl From<String> for Untrusted {
    fn from(s: String) -> Untrusted {
        Untrusted(s)
    }
}

impl From<&str> for Untrusted {
    fn from(s: &str) -> Untrusted {
        Untrusted(s.to_string())
    }
}

impl Serialize for Untrusted {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&clean(&self.0))
    }
}

/// Serialises an optional untrusted string field through the boundary
/// (`#[serde(serialize_with = "boundary::opt")]`).
pub fn opt<S: Serializer>(v: &Option<String>, serializer: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(s) => serializer.serialize_some(&*clean(s)),
        None => serializer.serialize_none(),
    }
}

/// Serialises an untrusted string field through the boundary
/// (`#[serde(serialize_with = "boundary::text")]`).
pub fn text<S: Serializer>(v: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&clean(v))
}

/// Serialises an untrusted one-line field (a name, a lock field) through the boundary.
pub fn line<S: Serializer>(v: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&clean_line(v))
}

/// Serialises an optional untrusted one-line field through the boundary.
pub fn opt_line<S: Serializer>(v: &Option<String>, serializer: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(s) => serializer.serialize_some(&clean_line(s)),
        None => serializer.serialize_none(),
    }
}

/// Serialises a list of untrusted strings through the boundary.
pub fn list<S: Serializer>(v: &[String], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(v.iter().map(|s| clean(s)))
}

/// Admits text given on the command line that will be written into the handoff, a commit
/// or a tag (`--context`, task titles, agent names, claims): it is linted first, and any
/// blocking finding (a secret, an injection, a match of the secrets section of a registered
/// `.aiignore`) refuses the command with exit 1 before anything is written. `what` names
/// the option in the error. `None` passes. `dir` is the handoff directory the text goes
/// into: its `.aiignore` decides as well.
pub fn admit(
    dir: &crate::handoff::HandoffDir,
    what: &str,
    text: Option<&str>,
) -> crate::error::Result<()> {
    // The `.aiignore` decides too: one that is there but cannot be read or parsed (invalid
    // UTF-8, a FIFO or a directory in its place, a bad pattern) refuses the text, naming the
    // file, rather than letting through what its secrets section would block.
    redact_user_secrets_of(dir)?;
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Ok(());
    };
    let blocking: Vec<crate::lint::Diagnostic> = crate::lint::check_text("command-line.md", text)?
        .into_iter()
        .filter(crate::lint::Diagnostic::is_blocking)
        .collect();
    let user_secrets = user_secret_spans(text);
    // The hint speaks to what was refused: one family's advice when every finding shares it.
    let mut hints: Vec<&'static str> = blocking
        .iter()
        .map(|d| {
            crate::lint::registry::find(d.rule)
                .map_or(crate::lint::Family::Struct.refusal_hint(), |r| {
                    r.family.refusal_hint()
                })
        })
        .chain((!user_secrets.is_empty()).then(|| crate::lint::Family::Ign.refusal_hint()))
        .collect();
    hints.sort_unstable();
    hints.dedup();
    let hint = match hints[..] {
        [one] => one,
        _ => {
            "remove what each finding above names (its rule says what kind of text it is), then run the command again"
        }
    };
    let findings: Vec<String> = blocking
        .iter()
        .map(|d| format!("{} {}: {}", d.rule, d.name, clean_line(&d.message)))
        .chain(user_secrets.iter().map(|&(s, e)| {
            let rule = &crate::lint::registry::IGN001;
            format!(
                "{} {}: matches the secrets section of .aiignore: {}",
                rule.id,
                rule.name,
                crate::lint::redacted(&text[s..e])
            )
        }))
        .collect();
    if findings.is_empty() {
        Ok(())
    } else {
        Err(crate::error::Error::Refused {
            what: what.to_string(),
            findings,
            hint,
        })
    }
}

/// `text` when [`admit`] lets it through, else `withheld`: for text the tool writes into the
/// handoff that nobody typed on this command line (a lock's or a remote lease's fields, a
/// directory's name), where refusing would block the command that clears it. A `.aiignore`
/// that cannot be read is still an error, as in [`admit`].
pub fn admitted_or<'a>(
    dir: &crate::handoff::HandoffDir,
    text: &'a str,
    withheld: &'a str,
) -> crate::error::Result<&'a str> {
    match admit(dir, "", Some(text)) {
        Ok(()) => Ok(text),
        Err(crate::error::Error::Refused { .. }) => Ok(withheld),
        Err(e) => Err(e),
    }
}

/// A field of a lock, a remote lease or a commit journal as the tool writes it into a
/// handoff file: the field on one line ([`clean_line`]) when the linter lets it through,
/// else `{what} withheld: it did not pass the linter`. Anyone who can push
/// `refs/aahp/lock/*` or edit `HANDOFF.lock` writes these fields; an instruction or a secret
/// in one must not reach LOG.md, where `context` serves it to the next agent and the gate
/// then blocks the commit of whoever wrote the entry (review s23 #8).
pub fn vetted_line(
    dir: &crate::handoff::HandoffDir,
    text: &str,
    what: &str,
) -> crate::error::Result<String> {
    let withheld = format!("{what} withheld: it did not pass the linter");
    Ok(clean_line(admitted_or(dir, text, &withheld)?))
}

/// Makes untrusted text safe to show in any format: every secret the linter recognises is
/// replaced by its redacted form (`gh…(40 chars)`), then [`neutralise`] applies.
pub fn clean(s: &str) -> Cow<'_, str> {
    let redacted = redact(s);
    match neutralise(&redacted) {
        Cow::Borrowed(_) => redacted,
        Cow::Owned(o) => Cow::Owned(o),
    }
}

/// [`clean`] for text shown on one line: a newline, and the Unicode line and paragraph
/// separators every reader that splits lines by Unicode breaks at (Python's `splitlines`,
/// JavaScript, editors; [`starts_line`]), become visible escapes as well, so a name or a
/// field cannot start a line of its own (review atk45 #2: a task title or a lock's agent
/// holding U+2028 forged a line in `status`, `task list` and the session-start context).
pub fn clean_line(s: &str) -> String {
    let c = clean(s);
    if c.contains(starts_line) {
        let mut out = String::with_capacity(c.len() + 16);
        for ch in c.chars() {
            if starts_line(ch) {
                push_escape(&mut out, ch);
            } else {
                out.push(ch);
            }
        }
        out
    } else {
        c.into_owned()
    }
}

/// The `.aiignore` files whose secrets section the boundary redacts besides the built-in
/// detectors (issue #11): registered, read and parsed by whoever locates a handoff
/// directory ([`redact_user_secrets_of`], which refuses a file it cannot parse).
struct UserSecrets {
    /// The registered `.aiignore` files, each with its parsed secrets section (`None`: the
    /// file does not exist).
    files: Vec<(std::path::PathBuf, Option<crate::lint::UserSecrets>)>,
    /// Hashes of the texts parsed: the same text registered again (the index's version of
    /// the file on disk) is not parsed twice.
    texts: Vec<u64>,
}

static USER_SECRETS: std::sync::Mutex<UserSecrets> = std::sync::Mutex::new(UserSecrets {
    files: Vec::new(),
    texts: Vec::new(),
});

/// A text's hash, to know it registered already.
fn text_hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// Makes the boundary redact what the secrets section of the `.aiignore` in `dir` matches,
/// in every output of this process from now on (the same text `lint` redacts in its
/// snippets). The file is read and parsed here: one that is there but cannot be read or
/// parsed (an invalid pattern, a FIFO in its place) is exit 2 naming it, since what its
/// secrets section names could not be redacted (its secrets section alone is compiled).
pub fn redact_user_secrets_of(dir: &crate::handoff::HandoffDir) -> crate::error::Result<()> {
    let path = dir.abs.join(crate::handoff::AIIGNORE);
    let mut user = USER_SECRETS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if user.files.iter().any(|(p, _)| *p == path) {
        return Ok(());
    }
    let parsed = if std::fs::symlink_metadata(&path).is_ok() {
        let shown = dir.path_of(crate::handoff::AIIGNORE);
        let bytes = crate::handoff::read_limited(&path, &shown)?;
        let text = crate::handoff::decode_text(&shown, &bytes)?;
        let hash = text_hash(text);
        if user.texts.contains(&hash) {
            None
        } else {
            let parsed = crate::lint::UserSecrets::parse(&shown, text)?;
            user.texts.push(hash);
            Some(parsed)
        }
    } else {
        None
    };
    user.files.push((path, parsed));
    Ok(())
}

/// Makes the boundary redact what the secrets section of a `.aiignore` version that is not
/// (or not only) on disk matches: a revision's or the index's (`shown` names it in errors),
/// every one the gate judges with or against. In a monorepo only the directory a command
/// located was registered, so the gate, run at the root, printed what a package's secrets
/// section names in file names, in clear (review atk42 #5); and a range that excepted a
/// secret in its own `.aiignore` had it printed by the base's definition as well.
pub fn redact_user_secrets_in(shown: &str, text: &str) -> crate::error::Result<()> {
    let hash = text_hash(text);
    let mut user = USER_SECRETS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if user.texts.contains(&hash) {
        return Ok(());
    }
    let parsed = crate::lint::UserSecrets::parse(shown, text)?;
    user.texts.push(hash);
    user.files.push((std::path::PathBuf::new(), Some(parsed)));
    Ok(())
}

/// The spans the registered `.aiignore` secrets sections match in `s`.
fn user_secret_spans(s: &str) -> Vec<(usize, usize)> {
    let user = USER_SECRETS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    user.files
        .iter()
        .filter_map(|(_, parsed)| parsed.as_ref())
        .flat_map(|u| u.spans(s))
        .collect()
}

/// Untrusted inputs noted where they enter the process (the command line, the
/// environment, manifest values), and the secrets found in them. Text composed from an
/// input may no longer show a secret's shape (a label on the line before turned into `\n`
/// by an escape, a value quoted by `Debug`, a path normalised): the sinks replace each
/// noted secret wherever it appears, in whatever escaping, so a message that forgot to
/// clean the value before embedding it still cannot print it (review s23 item 10).
struct Noted {
    /// Inputs not scanned yet.
    pending: Vec<String>,
    /// Each secret's pieces as an escape leaves them whole, with the form shown instead,
    /// longest first.
    pieces: Vec<(String, String)>,
}

static NOTED: std::sync::Mutex<Noted> = std::sync::Mutex::new(Noted {
    pending: Vec::new(),
    pieces: Vec::new(),
});

/// Notes text that entered the process from outside (an argument, an environment value,
/// a manifest field): a secret in it is redacted from every output of this process,
/// whatever that output made of the text. Scanned lazily, when output is written.
pub fn note_input(s: &str) {
    if s.len() < 8 {
        return;
    }
    NOTED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .pending
        .push(s.to_string());
}

/// The pieces of the noted secrets (scanning what was noted since the last call).
fn noted_pieces() -> Vec<(String, String)> {
    let mut noted = NOTED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !noted.pending.is_empty() {
        // One scan for all of them (a manifest has thousands of strings), a blank line
        // apart so that no label reaches into the next input.
        let pending = std::mem::take(&mut noted.pending);
        // A control character ends a value the way a line end does, but the detectors read
        // it as part of the value and judge none there; the quotes around the input escape
        // it (`\x1b`, `\u{1b}`) and leave the value before it as it was (review s26 #9).
        // So the text is read a second time with each control character a line end.
        let cut = |c: char| c.is_control() && !matches!(c, '\n' | '\t');
        let split = pending.iter().any(|s| s.contains(cut)).then(|| {
            pending
                .iter()
                .map(|s| s.chars().map(|c| if cut(c) { '\n' } else { c }).collect())
                .collect::<Vec<String>>()
        });
        // Where each input lies in the text scanned: a secret is one input's. A span from
        // one input into another (a key block's first line in one manifest string, its last
        // in a later one) is no input's secret, and the inputs between would become its
        // pieces: every output would lose whatever text they hold, a verdict, an
        // annotation's `::error` (review atk39 #1).
        let mut input = String::new();
        let mut inputs: Vec<(usize, usize)> = Vec::new();
        for s in pending.iter().chain(split.iter().flatten()) {
            if !input.is_empty() {
                input.push_str("\n\n");
            }
            inputs.push((input.len(), input.len() + s.len()));
            input.push_str(s);
        }
        // The inputs a span touches (their indices, first to last).
        let touched = |start: usize, end: usize| {
            let first = inputs.partition_point(|&(from, _)| from <= start).max(1) - 1;
            let last = inputs.partition_point(|&(from, _)| from < end).max(1) - 1;
            first..=last
        };
        let mut spans = Vec::new();
        let mut rescanned = std::collections::BTreeSet::new();
        for (start, end) in redaction_spans(&input) {
            let within = touched(start, end);
            if within.start() == within.end() {
                spans.push((start, end));
            } else {
                // Each input it touches is read again on its own, for the secrets it holds.
                rescanned.extend(within);
            }
        }
        for i in rescanned {
            let (from, to) = inputs[i];
            spans.extend(
                redaction_spans(&input[from..to])
                    .into_iter()
                    .map(|(s, e)| (from + s, from + e)),
            );
        }
        for (start, end) in spans {
            let secret = &input[start..end];
            let form = crate::lint::redacted(secret);
            // A key block's body is base64, without blanks: a line of it that holds a blank
            // is its armour (`-----BEGIN … KEY-----`, `Proc-Type: …`) or text the block was
            // made to carry, which is no key, and as a piece it was erased wherever output
            // held it: a manifest string holding a block around a heading of `review` took
            // that heading out of the review (review atk40 #3).
            let key_block = secret.trim_start().starts_with("-----BEGIN");
            // An escape (JSON, `Debug`, `\u{a}`) rewrites controls, quotes and backslashes:
            // what lies between them stays as it was.
            for piece in secret.split(|c: char| c.is_control() || matches!(c, '"' | '\\' | '\'')) {
                let piece = piece.trim();
                if key_block && piece.contains(char::is_whitespace) {
                    continue;
                }
                if piece.chars().count() >= 8 && !noted.pieces.iter().any(|(p, _)| p == piece) {
                    noted.pieces.push((piece.to_string(), form.clone()));
                }
            }
        }
        noted
            .pieces
            .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    }
    noted.pieces.clone()
}

/// Replaces every noted secret's pieces in `s` by the secret's redacted form.
fn redact_noted(s: &str) -> Cow<'_, str> {
    let pieces = noted_pieces();
    let mut out = Cow::Borrowed(s);
    for (piece, form) in &pieces {
        if out.contains(piece.as_str()) {
            out = Cow::Owned(out.replace(piece.as_str(), form));
        }
    }
    out
}

/// Replaces every secret the linter's detectors recognise, and every match of a registered
/// `.aiignore`'s secrets section, by the linter's redacted form.
pub fn redact(s: &str) -> Cow<'_, str> {
    redact_with(s, false)
}

/// [`redact`] for a whole file whose lines are read afterwards (review's items): every
/// secret is found on the text as written, then replaced by its redacted form followed by
/// the line breaks it spanned, so each line keeps its number and no line of a multi-line
/// secret (a private key's body, a value whose label is on the line before) is shown in
/// clear when the text is split (review s23 item 9).
pub fn redact_keeping_lines(s: &str) -> Cow<'_, str> {
    redact_with(s, true)
}

fn redact_with(s: &str, keep_lines: bool) -> Cow<'_, str> {
    let spans = redaction_spans(s);
    if spans.is_empty() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    for (start, end) in spans {
        out.push_str(&s[at..start]);
        let secret = &s[start..end];
        out.push_str(&crate::lint::redacted(secret));
        if keep_lines {
            out.extend(secret.matches('\n'));
        }
        at = end;
    }
    out.push_str(&s[at..]);
    Cow::Owned(out)
}

/// The byte ranges [`redact`] replaces in `s`: sorted, disjoint, non-empty.
fn redaction_spans(s: &str) -> Vec<(usize, usize)> {
    thread_local! {
        /// Set while this thread looks for secrets in a text to redact.
        static FINDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    /// Clears [`FINDING`] however the scan ends.
    struct Found;
    impl Drop for Found {
        fn drop(&mut self) {
            FINDING.set(false);
        }
    }
    // The detectors' findings quote what they match through this module
    // (`lint::rules::quote_of`): a text shortened while its secrets are being found is a
    // message the scan drops (it keeps the spans only), and redacting it would find secrets
    // again, without end.
    if s.len() < 8 || FINDING.replace(true) {
        return Vec::new();
    }
    let _found = Found;
    let mut spans = crate::lint::secret_spans(s);
    // As in lint's snippets, an `.aiignore` match only adds text no built-in detector
    // covers, so a secret both find reads the same with and without the `.aiignore`.
    // Both lists are sorted and merged: one sweep.
    let mut next = 0;
    let user: Vec<(usize, usize)> = user_secret_spans(s)
        .into_iter()
        .filter(|&(us, ue)| {
            while spans.get(next).is_some_and(|&(_, be)| be <= us) {
                next += 1;
            }
            spans.get(next).is_none_or(|&(bs, _)| bs >= ue)
        })
        .collect();
    if !user.is_empty() {
        spans.extend(user);
        spans = crate::lint::merge_spans(spans);
    }
    // A backslash escapes what follows it in the JSON (or the Markdown) the text is: one
    // the span would end on stays, or the redacted form would swallow the escape of the
    // quote after it and break the document (review 24).
    let b = s.as_bytes();
    spans
        .into_iter()
        .filter_map(|(start, mut end)| {
            while end > start && b[end - 1] == b'\\' {
                end -= 1;
            }
            (end > start).then_some((start, end))
        })
        .collect()
}

/// How far past a summary's limit secrets are looked for: a token that starts within the
/// summary ends within this many characters more (long JWTs included).
const SHORTEN_MARGIN: usize = 4096;

/// Untrusted text shortened to one line of at most `max` characters (a summary, a quick
/// context): every secret is redacted on the text as it was written, with its line
/// structure (a private key's body, a value whose label is on the line before), and only
/// then are white-space runs collapsed to one space and the result cut. A redacted form is
/// never cut: when it does not fit, the text ends before it. The result is cleaned as
/// [`clean_line`] cleans (review s23 items 1 and 18).
pub fn shorten(s: &str, max: usize) -> String {
    shorten_within(s, max, SHORTEN_MARGIN)
}

/// [`shorten`], looking for secrets `margin` characters past `max` only: for the quotes
/// lint's messages make of matched text (`lint::rules::quoted`), one per finding, where a
/// secret that starts in the quote and is not recognisable within that margin is one no
/// output would recognise either.
pub fn shorten_within(s: &str, max: usize, margin: usize) -> String {
    enum Piece<'a> {
        Space,
        Text(&'a str),
        Secret(String),
    }
    // Enough of the text for `max` characters once collapsed, plus the margin.
    let mut kept = 0usize;
    let mut end = s.len();
    for (i, c) in s.char_indices() {
        if !c.is_whitespace() {
            kept += 1;
            if kept > max + margin {
                end = i;
                break;
            }
        }
    }
    let head = &s[..end];
    let mut pieces: Vec<Piece<'_>> = Vec::new();
    let mut at = 0;
    let spans = redaction_spans(head);
    let ends = std::iter::once((head.len(), head.len()));
    for (start, stop) in spans.iter().copied().chain(ends) {
        let text = &head[at..start];
        let mut word_start = None;
        for (i, c) in text.char_indices() {
            if c.is_whitespace() {
                if let Some(w) = word_start.take() {
                    pieces.push(Piece::Text(&head[at + w..at + i]));
                }
                if !matches!(pieces.last(), None | Some(Piece::Space)) {
                    pieces.push(Piece::Space);
                }
            } else if word_start.is_none() {
                word_start = Some(i);
            }
        }
        if let Some(w) = word_start {
            pieces.push(Piece::Text(&head[at + w..start]));
        }
        if start == stop {
            break;
        }
        pieces.push(Piece::Secret(crate::lint::redacted(&head[start..stop])));
        at = stop;
    }
    if matches!(pieces.last(), Some(Piece::Space)) {
        pieces.pop();
    }
    let len = |p: &Piece<'_>| match p {
        Piece::Space => 1,
        Piece::Text(t) => t.chars().count(),
        Piece::Secret(r) => r.chars().count(),
    };
    let total: usize = pieces.iter().map(len).sum();
    let cut = total > max || end < s.len();
    let budget = if cut { max.saturating_sub(1) } else { max };
    let mut out = String::new();
    let mut used = 0usize;
    for p in &pieces {
        let n = len(p);
        if used + n <= budget {
            match p {
                Piece::Space => out.push(' '),
                Piece::Text(t) => out.push_str(t),
                Piece::Secret(r) => out.push_str(r),
            }
            used += n;
            continue;
        }
        if let Piece::Text(t) = p {
            out.extend(t.chars().take(budget - used));
        }
        break;
    }
    if cut {
        out.push('…');
    }
    match neutralise(&out) {
        Cow::Borrowed(_) => out,
        Cow::Owned(o) => o,
    }
}

/// True for characters shown as a visible `\u{…}` escape instead of themselves: C0 controls
/// but newline and tab, DEL, C1 controls, bidirectional overrides (they reorder what a
/// terminal shows), the noncharacters the tool uses as its own colour marks, and Unicode tag
/// characters and supplementary variation selectors: invisible on every screen, they spell
/// text a model reads (HID003, HID004), so a read for the next agent (`context`, the
/// session-start answer, MCP) handed it an instruction no human saw (review atk40 #4).
fn is_neutralised(c: char) -> bool {
    // Most text is ASCII: its controls are the whole test.
    if c.is_ascii() {
        return c.is_ascii_control() && c != '\n' && c != '\t';
    }
    c.is_control()
        || matches!(
            c,
            '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{E0000}'..='\u{E007F}'
                | '\u{E0100}'..='\u{E01EF}'
        )
        || is_mark(c)
}

/// The noncharacters reserved for the tool's own marks (colours, annotations).
fn is_mark(c: char) -> bool {
    matches!(c, '\u{FDD0}'..='\u{FDEF}')
}

/// Neutralises terminal and CI control in text: control characters (every ESC sequence
/// starts with one) become visible `\u{1b}` escapes, a `::` at the start of a line (after
/// blanks) gets a backslash (`\::error`), and `##[` anywhere becomes `#\#[` (`##vso[`,
/// Azure Pipelines' logging command, `#\#vso[`). Newlines and
/// tabs stay, so the text reads as it was written. Idempotent.
pub fn neutralise(s: &str) -> Cow<'_, str> {
    if !needs_neutralising(s) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(neutralise_with(s, false))
}

/// The neutraliser; with `keep_marks` the tool's marks pass through and are transparent to
/// the `::` and `##[` patterns (the sink turns them into colour or drops them afterwards).
fn neutralise_with(s: &str, keep_marks: bool) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    let mut line_start = true;
    for (i, c) in s.char_indices() {
        if keep_marks && is_mark(c) {
            out.push(c);
            continue;
        }
        if is_neutralised(c) {
            push_escape(&mut out, c);
            line_start = false;
            continue;
        }
        let rest = &s[i..];
        if line_start && starts_with_unmarked(rest, "::", keep_marks) {
            out.push('\\');
        }
        if c == '#'
            && (starts_with_unmarked(&rest[1..], "#[", keep_marks) || starts_vso(&rest[1..]))
        {
            out.push_str("#\\");
            line_start = false;
            continue;
        }
        out.push(c);
        line_start = starts_line(c) || line_start && c.is_whitespace();
    }
    out
}

/// A character after which a reader may start a new line: a newline, or a Unicode line or
/// paragraph separator (other breaks are control characters, escaped anyway). Before `::`,
/// a runner skips any Unicode white space (.NET's `TrimStart`), not only blanks.
fn starts_line(c: char) -> bool {
    matches!(c, '\n' | '\u{2028}' | '\u{2029}')
}

/// True when `s` starts with `pat`, skipping the tool's marks when `skip_marks`.
fn starts_with_unmarked(s: &str, pat: &str, skip_marks: bool) -> bool {
    if !skip_marks {
        return s.starts_with(pat);
    }
    let mut want = pat.chars();
    let mut next = want.next();
    for c in s.chars() {
        let Some(w) = next else { return true };
        if is_mark(c) {
            continue;
        }
        if c != w {
            return false;
        }
        next = want.next();
    }
    next.is_none()
}

/// True when `s` starts with `#vso[` in any case: with the `#` before it, an Azure Pipelines
/// logging command (`##vso[task.setvariable …]`), which the agent runs wherever it stands in
/// a line of a step's output.
fn starts_vso(s: &str) -> bool {
    s.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("#vso["))
}

/// True when `s` ends with `##vso` in any case (a `[` after it would make the command).
fn ends_vso(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 5 && b[b.len() - 5..].eq_ignore_ascii_case(b"##vso")
}

/// True when `s` holds `##vso[` in any case (`starts_vso` after any `#`: the pairs overlap).
fn holds_vso(s: &str) -> bool {
    memchr::memchr_iter(b'#', s.as_bytes()).any(|i| starts_vso(&s[i + 1..]))
}

fn needs_neutralising(s: &str) -> bool {
    s.chars().any(is_neutralised)
        || s.contains("##[")
        || holds_vso(s)
        || s.split(starts_line)
            .any(|l| l.trim_start().starts_with("::"))
}

fn push_escape(out: &mut String, c: char) {
    use std::fmt::Write as _;
    let _ = write!(out, "\\u{{{:x}}}", c as u32);
}

/// The tool's own text styles. [`Paint::wrap`] marks text with reserved noncharacters
/// that only the [`Sink`] turns into ANSI colour codes; untrusted text cannot carry them
/// (the boundary escapes them), and no other escape sequence survives the sink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paint {
    /// Red, for failures.
    Error,
    /// Yellow, for warnings.
    Warn,
    /// Green, for passes.
    Ok,
    /// Bold, for headings.
    Bold,
    /// Dim, for secondary detail.
    Dim,
}

const PAINTS: [(Paint, &str); 5] = [
    (Paint::Error, "1;31"),
    (Paint::Warn, "33"),
    (Paint::Ok, "32"),
    (Paint::Bold, "1"),
    (Paint::Dim, "2"),
];
const MARK_BASE: u32 = 0xFDD0;
const MARK_RESET: char = '\u{FDDF}';
const MARK_ANNOTATION: char = '\u{FDE0}';

impl Paint {
    /// Wraps `s` in this style's marks.
    pub fn wrap(self, s: &str) -> String {
        let i = PAINTS
            .iter()
            .position(|(p, _)| *p == self)
            .expect("every paint is in the table");
        let open = char::from_u32(MARK_BASE + u32::try_from(i).expect("small index"))
            .expect("a valid noncharacter");
        format!("{open}{s}{MARK_RESET}")
    }
}

/// The level of a GitHub Actions annotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnnotationLevel {
    /// `::error`.
    Error,
    /// `::warning`.
    Warning,
    /// `::notice`.
    Notice,
}

impl AnnotationLevel {
    fn command(self) -> &'static str {
        match self {
            AnnotationLevel::Error => "error",
            AnnotationLevel::Warning => "warning",
            AnnotationLevel::Notice => "notice",
        }
    }
}

/// A GitHub Actions annotation (`::error file=…,line=…,col=…,title=…::message`) built by
/// the tool: the only workflow command the [`Sink`] lets through. Every text part is
/// untrusted: it is cleaned like any other output and then escaped as the runner expects,
/// so it cannot end the command early, add a property or start another command.
#[derive(Debug, Clone)]
pub struct Annotation {
    /// Error, warning or notice.
    pub level: AnnotationLevel,
    /// The file it points at; `None` for an annotation on the run as a whole.
    pub file: Option<Untrusted>,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub col: Option<usize>,
    /// 1-based column just past the finding, on the same line.
    pub end_column: Option<usize>,
    /// A short title (the rule or the layer).
    pub title: Option<Untrusted>,
    /// The message.
    pub message: Untrusted,
}

// The workflow command syntax `::{command} {name}={value},…::{message}` and its escaping
// are GitHub's ("Workflow commands for GitHub Actions", docs.github.com/en/actions/reference/
// workflow-commands-for-github-actions: annotation properties `file`, `line`, `endLine`,
// `col`, `endColumn`, `title`). The escaping is the one the actions toolkit writes
// (`escapeData` and `escapeProperty` in actions/toolkit packages/core/src/command.ts) and the
// runner undoes (`_escapeDataMappings` and `_escapePropertyMappings` in actions/runner
// src/Runner.Common/ActionCommand.cs): in the message `%` → `%25`, CR → `%0D`, LF → `%0A`;
// in a property value also `:` → `%3A` and `,` → `%2C`. `%` goes first, so a `%0A` written
// in the text stays text (`%250A`), and with `:` escaped no `::` can end the properties
// early. The runner also reads `##[command]` anywhere in a line (v1 syntax): [`clean`]
// already turned every `##[` into `#\#[`, and every control character into a visible escape.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The per-process key after the annotation mark: only [`Annotation::render`] knows it, so
/// text that smuggled the mark past the boundary still cannot pass for an annotation.
fn annotation_key() -> &'static str {
    static KEY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    KEY.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(std::process::id());
        format!("{:016x}", h.finish())
    })
}

impl Annotation {
    /// Renders the line (with its mark and key; the sink removes both and keeps the line).
    pub fn render(&self) -> String {
        let mut props: Vec<String> = Vec::new();
        if let Some(f) = &self.file {
            props.push(format!("file={}", escape_property(&f.shown_line())));
        }
        for (name, v) in [
            ("line", self.line),
            ("col", self.col),
            ("endColumn", self.end_column),
        ] {
            if let Some(n) = v {
                props.push(format!("{name}={n}"));
            }
        }
        if let Some(t) = &self.title {
            props.push(format!("title={}", escape_property(&t.shown_line())));
        }
        let mut line = format!(
            "{MARK_ANNOTATION}{}::{}",
            annotation_key(),
            self.level.command()
        );
        if !props.is_empty() {
            line.push(' ');
            line.push_str(&props.join(","));
        }
        line.push_str("::");
        line.push_str(&escape_data(&self.message.shown()));
        line.push('\n');
        line
    }
}

/// What the final sink writes: human text or a JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sink {
    /// Human text; `color` decides whether the tool's paint marks become ANSI codes.
    Text {
        /// Emit ANSI colour for the tool's own marks.
        color: bool,
    },
    /// A JSON document: control characters become JSON `\u00XX` escapes (still valid JSON,
    /// never raw on a terminal) and `##[` becomes `##\u005b` (`##vso[`, `##vso\u005b`).
    Json,
}

impl Sink {
    /// Neutralises everything in `out` but the tool's own marks, which become colour codes
    /// (or nothing) and annotation lines. Secrets are redacted here too, as a last resort.
    pub fn finish(self, out: &str) -> String {
        match self {
            Sink::Json => json_safe(&redact_noted(out)),
            Sink::Text { color } => {
                let out = redact_noted(out);
                let mut done = String::with_capacity(out.len());
                // The text between the tool's annotations is redacted as a whole, before it
                // is read line by line: a private key's body, or a value whose label is on
                // the line before, is a secret only with its neighbours (review s23 item 10).
                let mut block = String::new();
                let flush = |block: &mut String, done: &mut String| {
                    for line in redact(block).split_inclusive('\n') {
                        text_line(line, color, done);
                    }
                    block.clear();
                };
                for line in out.split_inclusive('\n') {
                    if let Some(annotation) = line
                        .strip_prefix(MARK_ANNOTATION)
                        .and_then(|l| l.strip_prefix(annotation_key()))
                    {
                        flush(&mut block, &mut done);
                        // Built by `Annotation::render`: its parts were cleaned and escaped.
                        done.push_str(&strip_marks(annotation));
                    } else {
                        block.push_str(line);
                    }
                }
                flush(&mut block, &mut done);
                done
            }
        }
    }
}

fn strip_marks(s: &str) -> String {
    s.chars().filter(|c| !is_mark(*c)).collect()
}

fn text_line(line: &str, color: bool, done: &mut String) {
    for c in neutralise_with(line, true).chars() {
        if c == MARK_RESET {
            if color {
                done.push_str("\x1b[0m");
            }
        } else if is_mark(c) {
            let i = (c as u32 - MARK_BASE) as usize;
            if color && let Some((_, code)) = PAINTS.get(i) {
                done.push_str("\x1b[");
                done.push_str(code);
                done.push('m');
            }
        } else {
            done.push(c);
        }
    }
}

/// Cleans every string of a JSON document in place, object keys included ([`clean`]:
/// secrets redacted on the decoded text, where an escape cannot hide a label's line break
/// or a tab; controls and workflow commands neutralised; idempotent, so text the boundary
/// cleaned already is unchanged). The structural half of the JSON sink: what a field's
/// serialiser forgot is caught here, before the text is escaped (review s23 item 10).
pub fn neutralise_json(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::String(s) => {
            if let Cow::Owned(o) = clean(s) {
                *s = o;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(neutralise_json),
        Value::Object(map) => {
            if map.keys().any(|k| matches!(clean(k), Cow::Owned(_))) {
                *map = std::mem::take(map)
                    .into_iter()
                    .map(|(k, v)| (clean(&k).into_owned(), v))
                    .collect();
            }
            map.values_mut().for_each(neutralise_json);
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// JSON output: control characters and other neutralised characters can only sit inside
/// strings there, so each becomes a `\u00XX` escape; `##[` becomes `##\u005b` and `##vso[`
/// becomes `##vso\u005b`.
fn json_safe(out: &str) -> String {
    let redacted = redact(out);
    let mut done = String::with_capacity(redacted.len());
    for (i, c) in redacted.char_indices() {
        if is_neutralised(c) {
            use std::fmt::Write as _;
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                let _ = write!(done, "\\u{unit:04x}");
            }
        } else if c == '[' && (redacted[..i].ends_with("##") || ends_vso(&redacted[..i])) {
            done.push_str("\\u005b");
        } else {
            done.push(c);
        }
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token() -> String {
        // Built at run time so the repository holds no token-shaped literal.
        format!("gh{}_{}", "p", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A")
    }

    #[test]
    fn redaction_keeps_json_escapes_whole() {
        // Review 24: a value before an escaped quote took the backslash into its redacted
        // form, and `--json` printed a document no parser reads.
        let secret = "Xq8vN2pL7rT4kW9mZ3bY6cH1jF5dS0aG";
        for text in [
            format!("password={secret}\" then more"),
            format!("arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-{secret}\""),
        ] {
            let doc = serde_json::json!({ "message": text }).to_string();
            let shown = redact(&doc).into_owned();
            assert!(!shown.contains(secret), "{shown}");
            serde_json::from_str::<serde_json::Value>(&shown)
                .unwrap_or_else(|e| panic!("{e}: {shown}"));
        }
    }

    #[test]
    fn clean_redacts_secrets_in_the_linters_form() {
        let t = token();
        let shown = clean(&format!("use {t} now")).into_owned();
        assert!(!shown.contains(&t), "{shown}");
        assert!(shown.contains("(40 chars)"), "{shown}");
    }

    #[test]
    fn a_workflow_command_behind_any_unicode_blank_or_line_separator_is_neutralised() {
        // Second review, fourteenth session: only spaces and tabs were skipped before `::`,
        // while the runner trims every Unicode white space.
        for text in [
            "\u{a0}::warning::x",
            "ok\n\u{3000}\u{2002}::error::x",
            "ok\u{2028}::error::x",
            "ok\u{2029} ::add-mask::x",
        ] {
            let shown = neutralise(text);
            assert!(shown.contains("\\::"), "{text:?} → {shown:?}");
            assert_eq!(neutralise(&shown), shown, "idempotent");
        }
        assert_eq!(neutralise("a\u{a0}b :: c"), "a\u{a0}b :: c");
    }

    #[test]
    fn neutralise_escapes_controls_and_ci_commands() {
        assert_eq!(neutralise("a\x1b[31mred"), "a\\u{1b}[31mred");
        assert_eq!(
            neutralise("x\x1b]52;c;AAAA\x07"),
            "x\\u{1b}]52;c;AAAA\\u{7}"
        );
        assert_eq!(neutralise("\u{9b}2J"), "\\u{9b}2J");
        assert_eq!(neutralise("a\n::error::x"), "a\n\\::error::x");
        assert_eq!(neutralise("  ::add-mask::x"), "  \\::add-mask::x");
        assert_eq!(neutralise("see ##[group]x"), "see #\\#[group]x");
        assert_eq!(neutralise("###[x"), "##\\#[x");
        // Azure Pipelines runs `##vso[…]` wherever it stands in a line, in any case.
        assert_eq!(
            neutralise("ok ##vso[task.prependpath]/tmp/x"),
            "ok #\\#vso[task.prependpath]/tmp/x"
        );
        assert_eq!(neutralise("##VsO[task.complete]"), "#\\#VsO[task.complete]");
        assert_eq!(neutralise("###vso[x"), "##\\#vso[x");
        assert_eq!(neutralise("##vso task"), "##vso task");
        let once = neutralise("a ##vso[b] ##vso[c]").into_owned();
        assert!(!once.to_ascii_lowercase().contains("##vso["), "{once}");
        assert_eq!(neutralise(&once), once);
        assert_eq!(neutralise("a\r::x"), "a\\u{d}::x");
        assert_eq!(
            neutralise("plain | text\twith tab"),
            "plain | text\twith tab"
        );
        assert_eq!(neutralise("a :: b"), "a :: b");
    }

    #[test]
    fn shorten_redacts_before_it_joins_and_never_cuts_a_redacted_form() {
        let t = token();
        let text = format!("see\n\n{t}   and more words here");
        let whole = shorten(&text, 100);
        assert_eq!(whole, "see gh…(40 chars) and more words here");
        // The cut falls inside the redacted form: the text ends before it.
        assert_eq!(shorten(&text, 10), "see …");
        assert_eq!(shorten("a\x1b]0;T\x07 b", 50), "a\\u{1b}]0;T\\u{7} b");
    }

    #[test]
    fn clean_line_keeps_a_name_on_one_line() {
        assert_eq!(clean_line("x\n::error::y"), "x\\u{a}\\::error::y");
    }

    #[test]
    fn neutralise_is_idempotent() {
        for s in ["a\n::x", "##[y", "\x1b[2J", "::a\n  ::b ###[ \u{85}"] {
            let once = neutralise(s).into_owned();
            assert_eq!(neutralise(&once), once);
        }
    }

    #[test]
    fn untrusted_serialises_through_the_boundary() {
        let u = Untrusted::new(format!("{}\x1b]0;t\x07", token()));
        let json = serde_json::to_string(&u).unwrap();
        assert!(!json.contains(&token()));
        assert!(!json.contains("\\u001b"), "{json}");
        assert!(json.contains("\\\\u{1b}"), "{json}");
    }

    #[test]
    fn sink_keeps_the_tools_colours_and_nothing_else() {
        let line = format!("{} \x1b[2J{}\n", Paint::Error.wrap("FAIL"), "\u{FDD3}");
        let plain = Sink::Text { color: false }.finish(&line);
        assert_eq!(plain, "FAIL \\u{1b}[2J\n");
        let colored = Sink::Text { color: true }.finish(&line);
        assert_eq!(colored, "\x1b[1;31mFAIL\x1b[0m \\u{1b}[2J\x1b[1m\n");
    }

    #[test]
    fn sink_neutralises_ci_commands_but_not_the_tools_annotations() {
        let a = Annotation {
            level: AnnotationLevel::Error,
            file: Some(Untrusted::new("x\n::warning::y,z.md")),
            line: Some(3),
            col: None,
            end_column: None,
            title: None,
            message: Untrusted::new("bad\n::add-mask::x"),
        };
        let out = format!("ok\n::error::forged\n{}{}", a.render(), "a ##[x]\n");
        let done = Sink::Text { color: false }.finish(&out);
        assert_eq!(
            done,
            "ok\n\\::error::forged\n::error file=x\\u{a}\\%3A%3Awarning%3A%3Ay%2Cz.md,line=3::bad%0A\\::add-mask::x\na #\\#[x]\n"
        );
    }

    #[test]
    fn json_sink_keeps_the_document_valid() {
        let doc =
            serde_json::json!({"a": "x\u{9b}y ##[z] \u{7f} ##vSo[task.complete]"}).to_string();
        let done = Sink::Json.finish(&doc);
        assert!(!done.contains('\u{9b}') && !done.contains("##["), "{done}");
        assert!(!done.to_ascii_lowercase().contains("##vso["), "{done}");
        let back: serde_json::Value = serde_json::from_str(&done).unwrap();
        assert_eq!(back["a"], "x\u{9b}y ##[z] \u{7f} ##vSo[task.complete]");
    }

    #[test]
    fn private_key_body_is_redacted_with_its_header() {
        let block = format!(
            "key:\n-----BEGIN {k}-----\nMIIEowIBAAKCAQEA1b2c3d4e5f6g7h8\nQ1w2e3r4t5y6u7i8o9p0\n-----END {k}-----\nafter",
            k = "RSA PRIVATE KEY"
        );
        let shown = clean(&block);
        assert!(!shown.contains("MIIEow"), "{shown}");
        assert!(!shown.contains("Q1w2e3"), "{shown}");
        assert!(shown.ends_with("\nafter"), "{shown}");
    }
}
