//! SEC100: the credential catalogue. Providers' token formats are kept as data, one `.rules`
//! file per provider family beside this module (format: `README.md` here), compiled into
//! [`ENTRIES`] and [`PATTERNS`] by `build.rs`. Each entry is one keyword-gated pattern, so a
//! process pays for an entry's regex only when one of its literals occurs in the text.
//!
//! Two kinds of entry:
//! - **prefix** (`token:`): a format with its own literal prefix or structure (`ghp_…`,
//!   `xoxb-…`, `glsa_…`). The check judges the body: a valid checksum (CRC32, bech32) makes it
//!   a credential outright; a structure check (JWT header, base64 JSON, base64 PEM) must hold;
//!   otherwise entropy and placeholder gates decide.
//! - **context** (`near:` + `value:`): a provider whose keys have no prefix (32 hex, a UUID):
//!   the provider's name, then within a short gap a value of the provider's shape. The gap must
//!   be an assignment (`DATADOG_API_KEY = …`, `datadog:\n  api_key: …`) or name a secret word;
//!   a gap that names an identifier (`client_id`, `account`, `url`) is not a credential.
//!
//! Credentials are errors; entries marked `level: warning` (publishable keys, DSNs) are
//! warnings; values that are placeholders or references are nothing.

use super::super::Severity;
use super::super::engine::{Caps, Finding, Pattern, Scan, Site, Split};
use super::super::json::Field;
use super::super::redacted;
use super::super::registry::SEC100;
use super::super::text::{View, entropy, line_near};
use super::{Placeholder, is_template, placeholder};

use std::sync::{LazyLock, Mutex, PoisonError};

use regex::Regex;
use rustc_hash::FxHashMap;

/// A structure or checksum the token format carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    None,
    /// The last six characters are the base62 CRC32 of the random part (GitHub, npm).
    Crc32,
    /// A JSON Web Token: the first segment is base64url JSON naming an `alg` or `typ`.
    Jwt,
    /// The body after the prefix is base64 of a JSON object.
    Json64,
    /// A bech32 string with a valid checksum (age, Nostr).
    Bech32,
    /// Base64 of a PEM private key.
    Pem64,
}

/// One provider's token format. The fields only tests read (`family`, `examples`,
/// `negatives`) exist only in test builds: in the binary they would be about 2,400 pointers the
/// loader relocates at every start, the pre-commit hook's included.
#[derive(Debug)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent properties of a format, one table row each, written by build.rs"
)]
pub(crate) struct Entry {
    /// The finding's kind (`github-pat`, `datadog-api-key`).
    pub kind: &'static str,
    pub label: &'static str,
    /// The `.rules` file it comes from.
    #[cfg(test)]
    pub family: &'static str,
    /// A `near:` + `value:` entry.
    pub context: bool,
    /// A context entry whose value shape is distinctive: any gap but an identifier's will do.
    pub free: bool,
    /// The format's random part is letters only (Hugging Face): words in it are chance.
    pub letters: bool,
    pub check: Check,
    /// Least Shannon entropy (bits per character) of the random part; below 0: the default.
    pub entropy: f64,
    /// Characters of the token's prefix that name it (kept with the format's data; messages
    /// show every secret in the one redacted form of `lint::redacted`).
    #[allow(dead_code, reason = "format data; messages use the one redacted form")]
    pub show: usize,
    /// A public identifier rather than a credential: a warning.
    pub warning: bool,
    /// Templates of texts that hold one credential of this kind (see [`expand`]).
    #[cfg(test)]
    pub examples: &'static [&'static str],
    /// Templates of texts that must not give an error of this kind.
    #[cfg(test)]
    pub negatives: &'static [&'static str],
}

/// The gate of a prefix entry whose token starts with its prefix at a word boundary (chosen by
/// `build.rs`): the byte before the prefix is not a word character.
fn word_start_gate(b: &Site<'_>, start: usize, _end: usize) -> bool {
    start == 0 || !(b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'_')
}

/// The gate of a prefix entry whose token is its prefix at a word boundary and then `N`
/// characters of a key's alphabet (`00` and forty, chosen by `build.rs`): the byte before
/// the prefix is no word character and the `N` bytes after it are letters, digits or
/// `+/_-`. A prefix prose is full of (`00` in `10:00`, `2000`) compiles nothing then.
fn run_after_gate<const N: usize>(b: &Site<'_>, start: usize, end: usize) -> bool {
    word_start_gate(b, start, end)
        && b.get(end..end + N).is_some_and(|run| {
            run.iter()
                .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'_' | b'-'))
        })
}

/// The gate of a prefix entry whose token is `N` characters of a key's alphabet and then
/// its literal (`[A-Za-z0-9]{42}AzSe…`, chosen by `build.rs`): the `N` bytes before the
/// literal are letters, digits or `+/_-`. Random capitals and digits hold such literals by
/// chance; without a run that long before them there is no token to compile a regex for.
fn run_before_gate<const N: usize>(b: &Site<'_>, start: usize, _end: usize) -> bool {
    start >= N
        && b[start - N..start]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'_' | b'-'))
}

/// The gate of a context entry: its provider's word stands as a word ([`stands_as_word`]).
fn near_word_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    stands_as_word(b, start, end)
}

/// Whether a provider's word found at `start..end` of `b` is a word of the text, as a reader
/// would take it, not part of another (`box` in `mailbox` or `boxes`, `drone` in `drones`,
/// `linear` in `nonlinear`): where the word begins or ends with a letter or digit, the text
/// goes on past it only into another word of an identifier (`datadogApiKey`, `MY_BOX_…`) or
/// into a credential's word run together with it (`sendgridapikey`, `twiliotoken`).
pub(crate) fn stands_as_word(b: &[u8], start: usize, end: usize) -> bool {
    let (Some(&first), Some(&last)) = (b.get(start), b.get(end.wrapping_sub(1))) else {
        return false;
    };
    if first.is_ascii_alphanumeric() && start > 0 {
        let prev = b[start - 1];
        let camel = prev.is_ascii_lowercase() && first.is_ascii_uppercase();
        // A Java system property: `-Dsonar.login=…`.
        let property = prev == b'D' && start >= 2 && b[start - 2] == b'-';
        if prev.is_ascii_alphanumeric() && !camel && !property {
            return false;
        }
    }
    if !last.is_ascii_alphanumeric() {
        return true;
    }
    match b.get(end) {
        Some(&next) if next.is_ascii_alphabetic() => {
            let camel = last.is_ascii_lowercase() && next.is_ascii_uppercase();
            camel || run_on_credential(&b[end..b.len().min(end + 12)])
        }
        _ => true,
    }
}

/// Whether `rest` (the letters run together after a provider's word) opens with a word of
/// its credential's name (`apikey`, `token`, `secret`) or a product's suffix (`ai`, `sdk`).
fn run_on_credential(rest: &[u8]) -> bool {
    [
        "api",
        "key",
        "token",
        "secret",
        "pass",
        "pwd",
        "auth",
        "access",
        "app",
        "client",
        "cred",
        "private",
        "sk",
        "pat",
        "bearer",
        "license",
        "licence",
        "webhook",
        "dsn",
        "signing",
        "master",
        "admin",
        "server",
        "service",
        "deploy",
        "integration",
        "oauth",
        "bot",
        "hook",
        // A product's name run on with its own suffix (`ZHIPUAI_…`, `LOOKERSDK_…`,
        // `INFLUXDB_TOKEN`, `nessuscli`).
        "ai",
        "sdk",
        "cli",
        "db",
        "io",
        "hq",
        "cloud",
        "labs",
    ]
    .iter()
    .any(|w| rest.len() >= w.len() && rest[..w.len()].eq_ignore_ascii_case(w.as_bytes()))
}

include!(concat!(env!("OUT_DIR"), "/catalogue.rs"));

/// The parts of a catalogue pattern that is matched in parts ([`Split`]), `None` for any
/// other pattern (another rule's, or a copy made by the tests' ungated engine, which so runs
/// the full regex).
pub(crate) fn split(p: &Pattern) -> Option<&'static Split> {
    let range = PATTERNS.as_ptr_range();
    let at = std::ptr::from_ref(p);
    if !range.contains(&at) {
        return None;
    }
    let i = (at.addr() - range.start.addr()) / std::mem::size_of::<Pattern>();
    SPLITS[i].as_ref()
}

/// Whether `p` is one of the catalogue's patterns (not another rule's, nor a copy the tests'
/// ungated engine made).
pub(crate) fn is_entry(p: &Pattern) -> bool {
    PATTERNS.as_ptr_range().contains(&std::ptr::from_ref(p))
}

/// Whether a word of a context gap names a credential (`key`, `apikey`, `client_secret`'s
/// `secret`, `password`).
fn secret_word(w: &str) -> bool {
    matches!(
        w,
        "key"
            | "keys"
            | "secret"
            | "secrets"
            | "token"
            | "tokens"
            | "pass"
            | "passwd"
            | "pwd"
            | "pw"
            | "auth"
            | "cred"
            | "creds"
            | "credential"
            | "credentials"
            | "pat"
            | "private"
            | "sig"
            | "signature"
            | "license"
            | "licence"
            | "webhook"
            | "dsn"
            | "bearer"
            | "access"
            | "session"
            | "cookie"
            | "hmac"
            | "signing"
            | "sk"
            | "psk"
            | "authorization"
            | "apikey"
            | "login"
            | "certificate"
            | "hec"
    ) || ["key", "token", "secret", "password", "passwd"]
        .iter()
        .any(|s| w.ends_with(s) && w.len() <= 16)
        || ["passw", "secret", "token", "apikey"]
            .iter()
            .any(|s| w.starts_with(s))
}

/// Words in a context gap that make the value an identifier.
const ID_WORDS: &[&str] = &[
    "id",
    "user",
    "name",
    "url",
    "uri",
    "host",
    "account",
    "region",
    "project",
    "org",
    "endpoint",
    "domain",
    "email",
    "mail",
    "public",
    "publishable",
    "site",
    "tenant",
    "app",
    "client",
    "team",
    "workspace",
    "version",
    "sha",
    "commit",
    "hash",
    "checksum",
    "cache",
    "container",
    "digest",
    "build",
    "port",
    "path",
    "zone",
];

fn check_entry<const N: usize>(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    judge(&ENTRIES[N], scan, caps, out);
}

/// The words of an identifier-like gap, lowercased (`DATADOG_API_KEY` → `api`, `key`).
fn words(gap: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in gap.chars() {
        if c.is_ascii_alphabetic() {
            if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_ascii_lowercase();
            cur.push(c.to_ascii_lowercase());
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Whether a context gap (the text between the provider's word and the value) makes the value
/// the provider's credential: `Some(true)` yes, `Some(false)` an identifier, `None` unrelated.
fn gap_verdict(gap: &str) -> Option<bool> {
    let ws = words(gap);
    // A public, publishable or site key is an identifier by name.
    if ws
        .iter()
        .any(|w| matches!(w.as_str(), "public" | "publishable" | "site" | "pub"))
        || ws
            .windows(2)
            .any(|w| w[0] == "search" && matches!(w[1].as_str(), "only" | "key"))
    {
        return Some(false);
    }
    // The last word before the value decides between the two (`client_secret` vs `client_id`).
    let last = ws.last().map(String::as_str).unwrap_or_default();
    // `KEEN_API=…`, `GITHUB_OAUTH=…`: a name that ends in the API or its OAuth holds its key;
    // elsewhere in a gap the words describe (`the datadog api returned …`).
    let names_key = matches!(last, "api" | "oauth");
    let secret = names_key || ws.iter().any(|w| secret_word(w));
    let ident = ws.iter().any(|w| ID_WORDS.contains(&w.as_str()));
    if secret && (!ident || secret_word(last) || names_key) {
        return Some(true);
    }
    if ident {
        return Some(false);
    }
    // An assignment straight after the provider's name: `SENTRY=…`, `datadog: "…"`.
    let t =
        gap.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    let t = t.trim_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | ']'));
    // The signs that hand a name its value: assignment (`=`, `:`, `:=`, make's `?=`, `::=`
    // and `:::=`), a mapping's `=>` and `->`, an element's `>` (`<datadog>…`, also spaced), a
    // fallback's `||` (`process.env.DATADOG || '…'`), and a tuple's `,` (`("datadog", "…")`,
    // `datadog , …`) unless the comma is prose punctuation, written straight after the word
    // (`datadog, then 3f9a…`).
    let tuple = t == ","
        && gap
            .find(',')
            .and_then(|at| gap[..at].chars().next_back())
            .is_some_and(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | ')' | ']'));
    let assign = t.is_empty() && gap.trim().is_empty()
        || matches!(t, "=" | ":" | "=>" | ":=" | "=:" | "->" | ">" | "||")
        || tuple
        || t.ends_with('=') && t.len() <= 3
        || t == ":::=";
    assign.then_some(true)
}

/// Words that, in a gap of prose, say the value is a record's or a build's handle (a trace,
/// a release, a commit): never a credential handed over, whatever verb follows.
fn handle_word(w: &str) -> bool {
    matches!(
        w,
        "id" | "ids"
            | "sha"
            | "commit"
            | "hash"
            | "checksum"
            | "digest"
            | "build"
            | "version"
            | "cache"
            | "container"
            | "url"
            | "uri"
            | "host"
            | "endpoint"
            | "domain"
            | "email"
            | "mail"
            | "region"
            | "zone"
            | "port"
            | "path"
            | "name"
            | "site"
            | "tenant"
            | "trace"
            | "span"
            | "request"
            | "job"
            | "run"
            | "event"
            | "image"
            | "tag"
            | "release"
            | "ticket"
            | "issue"
            | "pr"
            | "revision"
            | "rev"
            | "ref"
            | "refs"
            | "branch"
            | "snapshot"
            | "fingerprint"
            | "nonce"
            | "public"
            | "publishable"
            | "pub"
            | "sid"
            | "model"
            | "file"
    )
}

/// Whether a gap of prose between a provider's name and a value hands the value over: a verb
/// of using or giving it (`I used …`, `authenticate to Datadog with …`, `retry with …`,
/// `pasted from the … dashboard:` then a fenced block) or a sign that ends a short label
/// (`Cohere → …`, `Zoom — …`, `Segment access for the bot: …`). A word that names a record's
/// handle (`trace`, `commit`, `release`) anywhere in it says otherwise; an owner's word
/// (`account`, `project`) only when no verb of use follows it (`our account uses …`).
fn handed_over(gap: &str) -> bool {
    // A value on a later line under a key of its own (`"from": "…"` below
    // `"base_from": "GITHUB_BASE_REF"`) is that key's: the provider named above labels
    // another value. The generic assignment rules judge it by its own key.
    if let Some((_, last)) = gap.rsplit_once('\n') {
        let key = last.trim_start().trim_start_matches(['"', '\'', '-', ' ']);
        let name_end = key
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .unwrap_or(key.len());
        let after = key[name_end..].trim_start_matches(['"', '\'']).trim_start();
        if name_end > 0 && (after.starts_with(':') || after.starts_with('=')) {
            return false;
        }
    }
    let ws = words(gap);
    if ws.len() > 8
        || ws.iter().any(|w| handle_word(w))
        || ws.windows(2).any(|w| w[0] == "search" && w[1] == "only")
    {
        return false;
    }
    let owner = ws.iter().rposition(|w| ID_WORDS.contains(&w.as_str()));
    let verb = ws.iter().rposition(|w| {
        matches!(
            w.as_str(),
            "use"
                | "used"
                | "uses"
                | "using"
                | "with"
                | "via"
                | "accepts"
                | "accepted"
                | "switched"
                | "pasted"
                | "paste"
                | "copied"
                | "gave"
                | "given"
                | "got"
                | "here"
                | "below"
                | "signed"
                | "logged"
                | "authenticate"
                | "authenticated"
                | "authenticates"
                | "retry"
                | "connected"
        )
    });
    if let Some(o) = owner {
        return verb.is_some_and(|v| v > o);
    }
    if verb.is_some() {
        return true;
    }
    // A sign at the end of a short label, past quotes, emphasis and a fence's opening line.
    let mut t = gap.trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, '`' | '"' | '\'' | '*' | '_' | '~')
    });
    if let Some(i) = t.rfind("```").or_else(|| t.rfind("~~~"))
        && t[i + 3..].bytes().all(|c| c.is_ascii_alphanumeric())
    {
        t = t[..i].trim_end_matches(|c: char| c.is_whitespace() || c == '`');
    }
    [
        ":", "\u{ff1a}", "\u{2192}", "->", "\u{2014}", "\u{2013}", "=",
    ]
    .iter()
    .any(|s| t.ends_with(s))
        || t.ends_with(" -")
}

/// A value drawn at random as keys are: twenty characters or more, hex with letters and digits
/// both, or else letters of both cases and digits.
fn drawn(v: &str) -> bool {
    let b = v.as_bytes();
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    let upper = b.iter().filter(|c| c.is_ascii_uppercase()).count();
    let lower = b.iter().filter(|c| c.is_ascii_lowercase()).count();
    let hex = b.iter().all(u8::is_ascii_hexdigit);
    b.len() >= 20
        && if hex {
            digits >= 3 && upper + lower >= 3
        } else {
            (digits >= 2 || digits >= 1 && b.len() >= 28) && upper >= 2 && lower >= 2
        }
}

/// The part of a token after its literal prefix (for entropy).
fn body<'a>(e: &Entry, token: &'a str) -> &'a str {
    if e.context {
        return token;
    }
    let cut = PATTERNS[index_of(e)]
        .keywords
        .iter()
        .filter(|k| {
            token.len() >= k.len() && token.as_bytes()[..k.len()].eq_ignore_ascii_case(k.as_bytes())
        })
        .map(|k| k.len())
        .max()
        .unwrap_or(0);
    &token[cut..]
}

fn index_of(e: &Entry) -> usize {
    (std::ptr::from_ref(e).addr() - std::ptr::from_ref(&ENTRIES[0]).addr())
        / std::mem::size_of::<Entry>()
}

/// How often the case flips between neighbouring letters.
fn case_changes(v: &str) -> usize {
    v.as_bytes()
        .windows(2)
        .filter(|w| w[0].is_ascii_lowercase() != w[1].is_ascii_lowercase())
        .count()
}

/// Three or more lower-case words joined by `-`, `_` or `.`: a phrase that stands in for a value
/// (`change-me-in-production`), not a random one.
pub(crate) fn phrase(v: &str) -> bool {
    lowercase_words(v).is_some_and(|parts| parts.len() >= 3)
}

/// The parts of `v` split at `-`, `_` and `.`, when every one is a lower-case ASCII word.
pub(crate) fn lowercase_words(v: &str) -> Option<Vec<&str>> {
    let parts: Vec<&str> = v.split(['-', '_', '.']).collect();
    parts
        .iter()
        .all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_lowercase()))
        .then_some(parts)
}

/// The default least entropy for a random part of `n` characters: random text of a small
/// alphabet and a short length has less.
fn default_entropy(n: usize) -> f64 {
    #[allow(clippy::cast_precision_loss, reason = "lengths are small")]
    let bits = (n.max(1) as f64).log2();
    (bits * 0.7).min(3.0)
}

fn judge(e: &'static Entry, scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let group = if e.context || caps.range(1).is_some() {
        1 + usize::from(e.context)
    } else {
        0
    };
    let (s, end) = caps.range(group).expect("a participating group");
    let token = &scan.text()[s..end];
    if is_template(token) {
        return;
    }
    let part = body(e, token);
    if e.context {
        // The provider's word must stand as a word: a window another word opened may hold it
        // inside a longer one (`mailbox` near `box`).
        let (word_start, _) = caps.whole();
        let word_end = caps.range(1).map_or(word_start, |(g, _)| g);
        if !stands_as_word(scan.text().as_bytes(), word_start, word_end) {
            return;
        }
        // The provider's word names a variable that a reference reads (`${REDIS_PASSWORD}@…`,
        // `$PGPASSWORD`, `%API_KEY%`): what follows is not its value, unless it is the
        // reference's default (`${REDIS_PASSWORD:-…}`).
        let text = scan.text();
        let (ws, _) = caps.whole();
        let before = &text[..ws];
        let boundary = text[..s].chars().next_back();
        let reference = before.ends_with('$')
            || before.ends_with("${")
            || before.ends_with("$(")
            || before.ends_with('%');
        let gap = caps.str(1);
        // The name the provider's word sits in says the key is published
        // (`NEXT_PUBLIC_AMPLITUDE_KEY`, `PUBLIC_PUSHER_KEY`): an identifier.
        let lead = before
            .char_indices()
            .rfind(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .map_or(0, |(i, c)| i + c.len_utf8());
        if words(&before[lead..]).iter().any(|w| {
            matches!(
                w.as_str(),
                "public" | "publishable" | "pub" | "site" | "anon"
            )
        }) {
            return;
        }
        // `$GITHUB_TOKEN (see 3f9a…)`: a reference gives no value after it without a sign.
        if reference && !gap.contains([':', '=']) && !matches!(boundary, Some(':' | '='))
            || gap.trim().is_empty() && matches!(boundary, Some('}' | ')' | '%'))
        {
            return;
        }
        // `JENKINS_=…`, `flickr-: …`: the provider's name and separators, then an assignment;
        // `SURGE_TOKEN_ …`, `secretkeybase …`: a near word that itself names a secret needs no
        // assignment sign after the separators.
        let only_separators = gap
            .bytes()
            .all(|c| matches!(c, b'_' | b'-' | b'.' | b' ' | b'\t'));
        let word_names_secret = words(&text[ws..caps.range(1).map_or(ws, |(g, _)| g)])
            .last()
            .is_some_and(|w| secret_word(w));
        let separators = only_separators
            && (!gap.is_empty() && matches!(boundary, Some('=' | ':'))
                || word_names_secret && !matches!(boundary, Some('.' | '/')));
        // `api.snowflake.com/v2/…`: the provider's name inside a host name or a path; what
        // follows the dot or slash is the rest of it, not an assigned value.
        if gap.is_empty() && matches!(boundary, Some('.' | '/')) {
            return;
        }
        // The sign may end on the boundary the value needs (`datadog ?=9f…`, `datadog ||9f…`):
        // read with it, the gap is the whole of what stands between the word and the value.
        let signed = caps.range(1).map(|(g, _)| &text[g..s]);
        match gap_verdict(gap)
            .or_else(|| signed.and_then(gap_verdict))
            .or(separators.then_some(true))
        {
            Some(true) => {}
            None if e.free => {}
            _ if handed_over(gap) && drawn(part) => {}
            _ => return,
        }
        // A value that ends in a colon is the next key of a mapping (`api_key_secret:`); one
        // that holds `NAME=` is the assignment itself, which the generic rule judges.
        if part.ends_with(':') || assignment_inside(part) {
            return;
        }
        // A value of letters only with few case changes is a word or a name (`myApiKeyHere`);
        // digits only, a number.
        if part.bytes().all(|c| c.is_ascii_alphabetic())
            && part.len() < 40
            && case_changes(part) < 4
            || part.bytes().all(|c| c.is_ascii_digit())
        {
            return;
        }
    }
    conclude(e, scan, s, end, token, part, out);
}

/// A group of lower-case letters no English word has: without a vowel (`y` counted), or with
/// three consonants in a row.
fn unspeakable(g: &str) -> bool {
    let vowel = |c: u8| matches!(c, b'a' | b'e' | b'i' | b'o' | b'u' | b'y');
    !g.bytes().any(vowel)
        || g.as_bytes()
            .windows(3)
            .any(|w| !w.iter().any(|&c| vowel(c)))
}

/// Whether `token` (its random part `part`) holds as entry `e`'s credential: the format's
/// checksum or structure, then the placeholder and entropy gates.
fn credible(e: &Entry, token: &str, part: &str) -> bool {
    let lower = part.to_ascii_lowercase();
    let proven = match e.check {
        Check::None => false,
        Check::Crc32 => crc32_valid(token),
        Check::Bech32 => bech32_valid(token),
        Check::Jwt => {
            if !jwt_valid(token) {
                return false;
            }
            false
        }
        Check::Json64 => {
            if !json64_valid(token) {
                return false;
            }
            false
        }
        Check::Pem64 => {
            if !pem64_valid(token) {
                return false;
            }
            true
        }
    };
    // A format of letters in groups of one length (`mkzq-wpta-rjvn-hycs`) is drawn, not a
    // phrase, when a group cannot be an English word: no vowel, or three consonants in a row
    // (drawn at random, one of four groups of four is so 24 times in 25).
    let groups = e.letters
        && lowercase_words(part).is_some_and(|p| {
            p.iter().all(|g| g.len() == p[0].len() && g.len() >= 4)
                && p.iter().any(|g| unspeakable(g))
        });
    if phrase(part) && !groups || super::secrets::stand_in(part) {
        return false;
    }
    // Judged once: the value's grade decides three of the tests below.
    let grade = placeholder(part);
    if grade != Placeholder::No && !matches!(e.check, Check::Pem64) || lower.contains("xxxx") {
        return false;
    }
    if !proven {
        if grade == Placeholder::Hard
            // `part` is a suffix of `token`: the same text when as long.
            || part.len() < token.len() && placeholder(token) == Placeholder::Hard
            || super::dummy_run(part)
            || lower.contains("xxxx")
            || lower.contains("example")
            || lower.contains("your")
            || !e.letters && spelled_in_words(part)
        {
            return false;
        }
        let least = if e.entropy < 0.0 {
            default_entropy(part.len())
        } else {
            e.entropy
        };
        if entropy(part) < least || grade == Placeholder::Soft {
            return false;
        }
    }
    true
}

/// The judgement every entry's value gets once its place is settled: the format's checksum or
/// structure, then placeholder and entropy gates; a credential that passes them is reported
/// at `s..end` (`token` the whole of it, `part` its random part).
fn conclude(
    e: &'static Entry,
    scan: &Scan<'_>,
    s: usize,
    end: usize,
    token: &str,
    part: &str,
    out: &mut Vec<Finding>,
) {
    if !credible(e, token, part) {
        return;
    }
    let mut f =
        Finding::new(&SEC100, s, end, format!("{}: {}", e.label, redacted(token))).secret(e.kind);
    if e.warning {
        f = f.severity(Severity::Warning);
    }
    // A password a person typed (not a key the provider issued) that is a word or two and a
    // few digits is a local default, unless its line names a real host it would open.
    let text = scan.text();
    let before = || &text[super::super::text::floor_char(text, s.saturating_sub(256))..s];
    if e.context
        && e.kind.ends_with("-password")
        && super::secrets::local_default_password(part, before())
    {
        let (ls, le) = line_near(text, s, end, 256);
        if !super::secrets::names_a_real_host(&text[ls..le]) {
            f = f.severity(Severity::Warning);
            f.message.push_str(" (a local default login)");
        }
    }
    out.push(f);
}

/// Patterns of the catalogue that are not one entry's: a value named as a provider's
/// credential after it ([`check_named_after`], [`check_named_in_parens`]).
pub(crate) static NAMED_AFTER_PATTERNS: [Pattern; 2] = [
    Pattern {
        rule: &SEC100,
        keywords: NAMED_AFTER,
        // A value, then within 80 bytes on its line the credential's word.
        regex: r"(?P<v>[A-Za-z0-9][A-Za-z0-9_=+/-]{15,99})(?P<gap>[^A-Za-z0-9_=+/\n-][^\n]{0,80}?)\b(?:keys?|tokens?|secrets?|passwords?|dsn)\b",
        before: 200,
        after: 10,
        check: check_named_after,
        overlap: false,
        gate: Some(named_after_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC100,
        keywords: &["use ", "using ", "try ", "paste "],
        // A verb of use, the value, then the provider in parentheses or after `for`.
        regex: r"\b(?:use|using|try|paste)[ \t]+[`'\x22]?(?P<v>[A-Za-z0-9][A-Za-z0-9_=+/-]{15,99})[`'\x22]?[ \t]*(?:\(|(?:for|on)[ \t]+)(?P<gap>[A-Za-z][A-Za-z0-9 ._-]{1,40}?)[ \t]*(?:\)|[.,;:!?]?[ \t]*(?:\r?\n|\z))",
        before: 2,
        after: 200,
        check: check_named_in_parens,
        overlap: false,
        gate: Some(value_on_line_gate),
        near: &[],
    },
];

/// The context entries by their provider words in lower case (`twilio` → the Twilio API key
/// and auth token entries), worked out once from the patterns' keywords.
static NAMED: LazyLock<FxHashMap<String, Vec<usize>>> = LazyLock::new(|| {
    let mut named: FxHashMap<String, Vec<usize>> = FxHashMap::default();
    for (i, e) in ENTRIES.iter().enumerate() {
        if e.context {
            for k in PATTERNS[i].keywords {
                named.entry(k.to_ascii_lowercase()).or_default().push(i);
            }
        }
    }
    named
});

/// Context entries' value shapes, anchored and compiled when first asked for.
static SHAPES: LazyLock<Mutex<FxHashMap<usize, &'static Regex>>> =
    LazyLock::new(|| Mutex::new(FxHashMap::default()));

/// Whether `v` is wholly of context entry `i`'s value shape (its `value:` regex, read back
/// from the entry's pattern: `…(?P<v>SHAPE)(?:[^A-Za-z0-9+/_-]|$)`).
fn of_shape(i: usize, v: &str) -> bool {
    let mut shapes = SHAPES.lock().unwrap_or_else(PoisonError::into_inner);
    let re = *shapes.entry(i).or_insert_with(|| {
        let src = PATTERNS[i].regex;
        let start = src.find("(?P<v>").map_or(0, |at| at + 6);
        let shape = src
            .strip_suffix(")(?:[^A-Za-z0-9+/_-]|$)")
            .map_or("(?!)", |r| &r[start..]);
        // Leaked on purpose, as the engine's are: at most one per entry.
        Box::leak(Box::new(
            Regex::new(&super::expand(&format!("^(?:{shape})$")))
                .expect("a catalogue value shape compiles"),
        ))
    });
    re.is_match(v)
}

/// The context entry that `word` (a provider's name, any case) names and whose value shape
/// `v` has: `Mailgun` and 32 hex digits give Mailgun's key, `Heroku` and a UUID Heroku's.
fn named_entry(word: &str, v: &str) -> Option<&'static Entry> {
    let word = word
        .trim_matches(|c: char| !c.is_ascii_alphanumeric())
        .to_ascii_lowercase();
    NAMED
        .get(&word)?
        .iter()
        .find(|&&i| of_shape(i, v))
        .map(|&i| &ENTRIES[i])
}

/// Words that may stand between a value and the provider and credential named after it
/// (`… is our Mailgun key`, `… — heroku api key`, `… (twilio auth token)`): the copula,
/// determiners, the environment, and the words of credentials' kinds.
fn naming_word(w: &str) -> bool {
    matches!(
        w,
        "is" | "was"
            | "are"
            | "s"
            | "that"
            | "this"
            | "it"
            | "which"
            | "our"
            | "the"
            | "my"
            | "a"
            | "an"
            | "as"
            | "new"
            | "old"
            | "current"
            | "live"
            | "prod"
            | "production"
            | "staging"
            | "stage"
            | "dev"
            | "development"
            | "test"
            | "sandbox"
            | "api"
            | "auth"
            | "access"
            | "admin"
            | "app"
            | "application"
            | "secret"
            | "signing"
            | "delivery"
            | "preview"
            | "management"
            | "personal"
            | "rest"
            | "server"
            | "master"
            | "private"
            | "bot"
            | "deploy"
            | "ci"
            | "webhook"
            | "ingest"
            | "insert"
            | "license"
            | "integration"
            | "service"
            | "here"
            | "now"
            | "still"
            | "also"
            | "one"
    )
}

/// The credential words a value may be named by after it ([`check_named_after`]).
pub(crate) const NAMED_AFTER: &[&str] = &["key", "token", "secret", "password", "dsn"];

/// The keyword of [`NAMED_AFTER`] is a word of its own (`key`, `tokens`), not part of one
/// (`keyboard`, `monkey`), after a value on its line (`token budget` alone opens nothing).
pub(crate) fn named_after_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    let after = b.get(end).copied();
    let after = if after == Some(b's') {
        b.get(end + 1).copied()
    } else {
        after
    };
    start > 16
        && !b[start - 1].is_ascii_alphanumeric()
        && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        && b.line(start).first_run.is_some_and(|e| e < start)
}

/// A value named as a provider's credential after it, in prose (`9c1f… is our Mailgun key`,
/// `` `3f0a…` — heroku api key ``, `… (twilio auth token)`): the provider's word between the
/// value and the credential's word, and only words that name it (`the`, `our`, `staging`,
/// `api`) with it, gives the provider's entry whose value shape it has. A word before the
/// value that names a handle (`commit …`, `trace …`) or any other word in between (`… shows
/// Datadog's key`, `… rotates the Mailgun key`) leaves it alone.
pub(crate) fn check_named_after(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let Some((vs, ve)) = caps.range(1) else {
        return;
    };
    let v = &text[vs..ve];
    if text[..vs]
        .bytes()
        .next_back()
        .is_some_and(|c| c.is_ascii_alphanumeric() || b"_-+/=.".contains(&c))
    {
        return;
    }
    let lead = &text[super::super::text::floor_char(text, vs.saturating_sub(40))..vs];
    if words(lead).last().is_some_and(|w| {
        handle_word(w)
            || matches!(
                w.as_str(),
                "md" | "sha" | "uuid" | "guid" | "fixture" | "sample" | "example" | "fake"
            )
    }) {
        return;
    }
    let gap = caps.str(2);
    let lower_gap = gap.to_ascii_lowercase();
    // A clause that restarts the naming (`…; that's the Datadog application`): its words.
    let clause = [
        "that's",
        "that\u{2019}s",
        "that is",
        "which is",
        "it's",
        "this is",
    ]
    .iter()
    .filter_map(|c| lower_gap.rfind(c).map(|at| at + c.len()))
    .max()
    .map_or(gap, |at| &gap[at..]);
    // The naming is linked to the value by a sign or a verb (`… = datadog api key`, `… is our
    // Mailgun key`, `… (twilio auth token)`); a value and words side by side are a list's
    // line (`3f9a… heroku api key: support rotation`, a commit and its subject).
    let linked = clause.len() < gap.len()
        || gap
            .trim_start_matches([' ', '\t'])
            .starts_with(|c: char| !c.is_ascii_alphanumeric())
        || words(gap)
            .iter()
            .any(|w| matches!(w.as_str(), "is" | "was" | "are" | "as" | "for"));
    if !linked || names_more(&text[caps.whole().1..]) {
        return;
    }
    if let Some(e) = named_in(clause, v) {
        conclude(e, scan, vs, ve, v, v, out);
    }
}

/// The entry a short clause names for value `v` (`our Mailgun`, `twilio auth`): a provider's
/// word whose value shape `v` has, and only words that name a credential with it. Not a
/// publishable key's; `v` drawn at random as keys are, or a UUID (a provider's key of that
/// shape, named so).
fn named_in(clause: &str, v: &str) -> Option<&'static Entry> {
    let tokens: Vec<&str> = clause
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .map(|t| t.trim_matches(['.', '-', '_']))
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.len() > 7 {
        return None;
    }
    let (named, e) = tokens
        .iter()
        .find_map(|t| named_entry(t, v).map(|e| (*t, e)))?;
    let own = words(named);
    if e.warning
        || words(clause)
            .iter()
            .any(|w| !naming_word(w) && !own.contains(w))
    {
        return None;
    }
    let uuid = v.len() == 36
        && v.bytes().filter(|&c| c == b'-').count() == 4
        && v.bytes().all(|c| c.is_ascii_hexdigit() || c == b'-');
    ((drawn(v) || uuid) && !is_template(v)).then_some(e)
}

/// A value handed over with its provider named right after it (`use 9c1f… (datadog)`, `try
/// … for Mailgun`): a verb of use before it, the provider's word and words that name its
/// credential in parentheses or after `for`.
pub(crate) fn check_named_in_parens(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let Some((vs, ve)) = caps.range(1) else {
        return;
    };
    let v = &text[vs..ve];
    if let Some(e) = named_in(caps.str(2), v) {
        conclude(e, scan, vs, ve, v, v, out);
    }
}

/// A keyword of [`NAMED_AFTER_PATTERNS`]' second pattern opens a window only on a line that
/// holds a value drawn at random.
pub(crate) fn value_on_line_gate(b: &Site<'_>, start: usize, _end: usize) -> bool {
    b.line(start).first_run.is_some()
}

/// SEC100 for a JSON field that names a credential (`token`, `apiKey`, `secret`) in an object
/// under a provider's key (`{"twilio": {"sid": "AC…", "token": "…"}}`): the provider's entry
/// whose value shape the field's value has. A sibling key between them (`sid`, `site`) does
/// not hide it, as it does from the entry's own text pattern, which reads only a short gap.
pub(crate) fn json_fields(base: &View<'_>, fields: &[Field], out: &mut Vec<Finding>) {
    for f in fields {
        let Some(parent) = &f.parent else {
            continue;
        };
        if gap_verdict(&f.key) != Some(true) {
            continue;
        }
        let v = &base.text[f.value.0..f.value.1];
        if v.len() < 16 || is_template(v) {
            continue;
        }
        let Some(e) = parent
            .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .find_map(|t| named_entry(t, v))
        else {
            continue;
        };
        if !credible(e, v, v) {
            continue;
        }
        let (s, end) = base.to_source(f.value.0, f.value.1);
        let mut found =
            Finding::raw(&SEC100, s, end, format!("{}: {}", e.label, redacted(v))).secret(e.kind);
        if e.warning {
            found = found.severity(Severity::Warning);
        }
        out.push(found);
    }
}

/// Whether the credential's word after a value goes on into a longer name (`… Datadog API key
/// support`, `… token handling`: a changelog's line after a commit's hash), read from the text
/// after it: the next word on its line, unless it starts a new clause.
fn names_more(after: &str) -> bool {
    let rest = after.trim_start_matches([' ', '\t']);
    let word: String = rest
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .collect::<String>()
        .to_ascii_lowercase();
    !word.is_empty()
        && !matches!(
            word.as_str(),
            "for"
                | "in"
                | "on"
                | "of"
                | "and"
                | "but"
                | "so"
                | "from"
                | "we"
                | "you"
                | "i"
                | "which"
                | "that"
                | "do"
                | "don"
                | "please"
                | "use"
                | "to"
                | "it"
                | "is"
                | "was"
                | "with"
                | "here"
                | "now"
                | "keep"
                | "rotate"
                | "until"
                // A determiner or a conjunction opens the next phrase or clause (`… is the
                // heroku token the release script needs`, `… as the Datadog key when …`).
                | "the"
                | "a"
                | "an"
                | "our"
                | "my"
                | "this"
                | "when"
                | "if"
                | "because"
                | "since"
                | "while"
                | "unless"
                | "after"
                | "before"
                | "or"
                | "as"
                | "at"
                | "by"
        )
}

/// `JWT_REFRESH_SECRET=refreshSecret` taken whole as a value: an upper-case identifier, then
/// `=` and more (base64 padding only ends a value).
fn assignment_inside(part: &str) -> bool {
    part.split_once('=').is_some_and(|(name, rest)| {
        !rest.is_empty()
            && !rest.starts_with('=')
            && name.contains('_')
            && name
                .bytes()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
    })
}

/// Whether a token's random part is words, not drawn (`ProductTeamKnowledgeBase…`,
/// `identifier_for_the_team_v2` after a prefix that a code name shares): no digit but a
/// trailing version or year, sixteen characters or more, and made of words as
/// [`names_made_of_words`](super::secrets::names_made_of_words) reads them. Drawn at
/// random, a part that long holds a digit almost always.
fn spelled_in_words(part: &str) -> bool {
    let body = part.trim_end_matches(|c: char| c.is_ascii_digit());
    body.len() >= 16
        && !body.bytes().any(|c| c.is_ascii_digit())
        && super::secrets::names_made_of_words(body)
}

// --- checksums and structure -------------------------------------------------------------

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// CRC-32 (IEEE), bit by bit: tokens are short.
pub(crate) fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Six base62 digits, most significant first.
pub(crate) fn base62_6(mut n: u32) -> [u8; 6] {
    let mut out = [b'0'; 6];
    for slot in out.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    out
}

/// `prefix_` + random part + six base62 digits of the random part's CRC32.
pub(crate) fn crc32_valid(token: &str) -> bool {
    let Some(i) = token.rfind('_') else {
        return false;
    };
    let rest = &token.as_bytes()[i + 1..];
    if rest.len() < 12 {
        return false;
    }
    let (data, sum) = rest.split_at(rest.len() - 6);
    base62_6(crc32(data)) == sum
}

fn b64_value(c: u8) -> Option<u32> {
    Some(u32::from(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    }))
}

/// Decodes standard or URL-safe base64, padded or not, up to `limit` output bytes; `None` on
/// a character outside the alphabet.
pub(crate) fn b64_decode(s: &str, limit: usize) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in s.trim_end_matches('=').as_bytes() {
        acc = (acc << 6) | b64_value(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((acc >> bits) & 0xff).expect("masked"));
            if out.len() >= limit {
                break;
            }
        }
    }
    Some(out)
}

/// The first segment of a JWT (after any literal prefix) decodes to a JSON object header.
fn jwt_valid(part: &str) -> bool {
    let start = part.find("eyJ").unwrap_or(0);
    let seg = part[start..].split('.').next().unwrap_or("");
    let Some(head) = b64_decode(seg, 512) else {
        return false;
    };
    let head = String::from_utf8_lossy(&head);
    head.starts_with('{')
        && (head.contains("\"alg\"") || head.contains("\"typ\"") || head.contains("\"kid\""))
}

/// The body (up to a `_` or `.` that ends the base64) decodes to a JSON object.
fn json64_valid(part: &str) -> bool {
    let start = part.find("eyJ").unwrap_or(0);
    let seg: String = part[start..].chars().take(16).collect();
    b64_decode(&seg, 12).is_some_and(|d| d.starts_with(b"{\""))
}

fn pem64_valid(part: &str) -> bool {
    let seg: String = part.chars().take(160).collect();
    let usable = seg.len() / 4 * 4;
    b64_decode(&seg[..usable], 120).is_some_and(|d| {
        let t = String::from_utf8_lossy(&d);
        t.starts_with("-----BEGIN") && t.contains("PRIVATE KEY")
    })
}

const BECH32: &[u8] = b"qpzry9x8gf2tvdw0s3jn54khce6mua7l";

fn bech32_polymod(values: impl Iterator<Item = u8>) -> u32 {
    const GEN: [u32; 5] = [
        0x3b6a_57b2,
        0x2650_8e6d,
        0x1ea1_19fa,
        0x3d42_33dd,
        0x2a14_62b3,
    ];
    let mut chk = 1u32;
    for v in values {
        let top = chk >> 25;
        chk = ((chk & 0x01ff_ffff) << 5) ^ u32::from(v);
        for (i, g) in GEN.iter().enumerate() {
            if (top >> i) & 1 == 1 {
                chk ^= g;
            }
        }
    }
    chk
}

/// `hrp1data` with a valid bech32 checksum (case-insensitive, as age writes it upper-case).
pub(crate) fn bech32_valid(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    let Some(sep) = lower.rfind('1') else {
        return false;
    };
    let (hrp, data) = (&lower[..sep], &lower[sep + 1..]);
    if hrp.is_empty() || data.len() < 6 {
        return false;
    }
    let Some(vals) = data
        .bytes()
        .map(|c| {
            BECH32
                .iter()
                .position(|&b| b == c)
                .and_then(|p| u8::try_from(p).ok())
        })
        .collect::<Option<Vec<u8>>>()
    else {
        return false;
    };
    let expanded = hrp
        .bytes()
        .map(|c| c >> 5)
        .chain(std::iter::once(0))
        .chain(hrp.bytes().map(|c| c & 31))
        .chain(vals.iter().copied());
    bech32_polymod(expanded) == 1
}

/// The bech32 checksum characters for `hrp` and `data` (5-bit values), for examples.
#[cfg(test)]
fn bech32_checksum(hrp: &str, data: &[u8]) -> String {
    let expanded = hrp
        .bytes()
        .map(|c| c >> 5)
        .chain(std::iter::once(0))
        .chain(hrp.bytes().map(|c| c & 31))
        .chain(data.iter().copied())
        .chain([0u8; 6]);
    let m = bech32_polymod(expanded) ^ 1;
    (0..6)
        .map(|i| char::from(BECH32[((m >> (5 * (5 - i))) & 31) as usize]))
        .collect()
}

// --- examples ------------------------------------------------------------------------------

/// Expands an example template with a deterministic generator:
///
/// - `{A:n}` mixed-case alphanumerics, `{a:n}` lower-case alphanumerics, `{N:n}` upper-case
///   alphanumerics, `{H:n}` lower-case hex, `{X:n}` upper-case hex, `{D:n}` digits, `{L:n}`
///   lower-case letters, `{U:n}` upper-case letters, `{B:n}` base64, `{u:n}` base64url;
/// - `{crc32}` six base62 digits of the CRC32 of the text the previous placeholder produced;
/// - `{uuid}` a random UUID;
/// - `{jwt}` a JSON Web Token with an HS256 header and a random payload and signature;
/// - `{json64}` base64 (no padding) of a small random JSON object;
/// - `{bech32:HRP:n}` `HRP1` + n random characters + checksum (upper-case when HRP is);
/// - `{pem64}` base64 of a PEM private key header and random body.
///
/// With `blank`, every random character is `x` (or `0` for digits and hex), for the negative
/// of each example that must not fire: the same shape holding a placeholder.
#[cfg(test)]
pub(crate) fn expand(template: &str, seed: u64, blank: bool) -> String {
    let mut state = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407)
        | 1;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % n as u64).expect("fits")
    };
    let mut out = String::new();
    let mut last = String::new();
    let template = template.replace("\\n", "\n");
    let mut rest = template.as_str();
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let Some(close) = rest[i..].find('}') else {
            break;
        };
        let spec = &rest[i + 1..i + close];
        let known = matches!(
            spec,
            "crc32" | "uuid" | "jwt" | "json64" | "pem64" | "lb" | "rb"
        ) || spec.starts_with("bech32:")
            || spec.len() >= 3
                && spec.as_bytes()[1] == b':'
                && spec[2..].bytes().all(|c| c.is_ascii_digit());
        if !known {
            out.push('{');
            rest = &rest[i + 1..];
            continue;
        }
        rest = &rest[i + close + 1..];
        let mut draw = |set: &[u8], n: usize, blank_char: char| -> String {
            (0..n)
                .map(|_| {
                    if blank {
                        blank_char
                    } else {
                        char::from(set[next(set.len())])
                    }
                })
                .collect()
        };
        let piece = match spec.split(':').collect::<Vec<_>>().as_slice() {
            ["crc32"] if blank => "xxxxxx".to_string(),
            ["crc32"] => {
                String::from_utf8(base62_6(crc32(last.as_bytes())).to_vec()).expect("ascii")
            }
            ["lb"] => "{".to_string(),
            ["rb"] => "}".to_string(),
            ["uuid"] => {
                let h = draw(b"0123456789abcdef", 32, '0');
                format!(
                    "{}-{}-4{}-a{}-{}",
                    &h[..8],
                    &h[8..12],
                    &h[13..16],
                    &h[17..20],
                    &h[20..32]
                )
            }
            ["jwt"] => {
                let sub = draw(b"abcdefghijklmnopqrstuvwxyz0123456789", 12, 'x');
                let head = b64url(br#"{"alg":"HS256","typ":"JWT"}"#);
                let body = b64url(format!(r#"{{"sub":"{sub}","iat":1767225600}}"#).as_bytes());
                let sig = draw(
                    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
                    43,
                    'x',
                );
                format!("{head}.{body}.{sig}")
            }
            ["json64"] => {
                let k = draw(
                    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                    32,
                    'x',
                );
                b64url(format!(r#"{{"o":"7261","n":"stack-{}","k":"{k}"}}"#, k.len()).as_bytes())
                    .replace('-', "+")
                    .replace('_', "/")
            }
            ["pem64"] => {
                let k = draw(
                    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
                    64,
                    'x',
                );
                b64url(format!("-----BEGIN RSA PRIVATE KEY-----\nMII{k}\n").as_bytes())
                    .replace('-', "+")
                    .replace('_', "/")
            }
            ["bech32", hrp, n] => {
                let n: usize = n.parse().expect("bech32 length");
                let lower_hrp = hrp.to_ascii_lowercase();
                let data: Vec<u8> = (0..n)
                    .map(|_| {
                        if blank {
                            0
                        } else {
                            u8::try_from(next(32)).expect("< 32")
                        }
                    })
                    .collect();
                let body: String = data
                    .iter()
                    .map(|&d| char::from(BECH32[d as usize]))
                    .collect();
                let s = format!("{lower_hrp}1{body}{}", bech32_checksum(&lower_hrp, &data));
                if hrp.bytes().any(|c| c.is_ascii_uppercase()) {
                    s.to_ascii_uppercase()
                } else {
                    s
                }
            }
            [class, n] => {
                let n: usize = n
                    .parse()
                    .unwrap_or_else(|_| panic!("bad template {template}"));
                let (set, b): (&[u8], char) = match *class {
                    "A" => (
                        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                        'x',
                    ),
                    "a" => (b"abcdefghijklmnopqrstuvwxyz0123456789", 'x'),
                    "N" => (b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 'X'),
                    "H" => (b"0123456789abcdef", '0'),
                    "X" => (b"0123456789ABCDEF", '0'),
                    "D" => (b"0123456789", '0'),
                    "L" => (b"abcdefghijklmnopqrstuvwxyz", 'x'),
                    "U" => (b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", 'X'),
                    "B" => (
                        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
                        'x',
                    ),
                    "u" => (
                        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
                        'x',
                    ),
                    _ => panic!("bad class in {template}"),
                };
                draw(set, n, b)
            }
            _ => panic!("bad placeholder {{{spec}}} in {template}"),
        };
        last.clone_from(&piece);
        out.push_str(&piece);
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
fn b64url(data: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(A[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

#[cfg(test)]
mod tests;
