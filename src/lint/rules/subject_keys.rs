//! SEC121: a credential named as a sentence's subject and then given, whatever the vendor's
//! word: `The api key for staging is 439d…`, `the Twilio auth token credential I created
//! today is c5aa…`, `PAT key for the build agent is <52 base32>`, `staging key → …`, and the
//! same in other languages (`der Schlüssel für Staging ist …`, `la clave de la API de
//! producción es …`, `la clé du serveur est …`).
//!
//! The prose labels of `secrets` read such a clause too, but leave hex and base32 values
//! alone there: a sentence about a token may well give a commit. Here the sentence must
//! have the credential's noun as its subject, a few words that name no record's handle
//! (`md5`, `checksum`, `commit`, `digest`, `fingerprint`, `cache key`, `session id`, `ETag`,
//! `integrity`), a copula or a sign (`is`, `=`, `→`, `:`; `ist`, `es`, `est`, `è`), and a
//! value of 32 or more letters and digits drawn at random as keys are: hex, base32 or
//! base62.

use super::super::engine::{Caps, Finding, Pattern, Scan, Site};
use super::super::redacted;
use super::super::registry::SEC121;
use super::super::text::{entropy, floor_char};
use super::{Placeholder, is_template, placeholder};

/// The nouns of a credential a sentence can open with, in English and in other languages.
const SUBJECTS: &[&str] = &[
    "key",
    "token",
    "secret",
    "pat",
    "credential",
    "schlüssel",
    "schluessel",
    "schlussel",
    "clave",
    "clé",
    "cle",
    "chiave",
    "chave",
    "jeton",
    "segreto",
    "geheimnis",
    "sleutel",
];

pub(crate) static PATTERNS: &[Pattern] = &[Pattern {
    rule: &SEC121,
    keywords: SUBJECTS,
    regex: r"(?i:key|token|secret|pat|credential|schl(?:ü|u|ue)ssel|clave|cl[eé]|chiave|chave|jeton|segreto|geheimnis|sleutel)",
    before: 2,
    after: 24,
    check,
    overlap: false,
    gate: Some(gate),
    near: &[],
}];

/// The most bytes read after the noun for its clause and value, and before it for the words
/// that open its sentence.
const AHEAD: usize = 200;
const BEHIND: usize = 80;

/// The least and most characters of a value.
const SHORTEST: usize = 32;
const LONGEST: usize = 128;

/// The noun stands as a word (a plural `s` after it; `API-Schlüssel`, `apiKey` and
/// `STAGING_KEY` end in it), and its line holds, after it within [`AHEAD`] bytes, a run of
/// [`SHORTEST`] letters and digits.
fn gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    if !stands_as_word(b, start, end) {
        return false;
    }
    // A value holds a digit (see [`drawn`]), so it is or follows the line's first run of
    // sixteen key bytes with a digit, which the site knows: a line without one, or whose first
    // one ends beyond a value's reach, is not read again at each noun.
    let line = b.line(start);
    if line
        .first_run
        .is_none_or(|run| run > end + AHEAD + LONGEST + 1)
    {
        return false;
    }
    let hi = line.end.min(end + AHEAD);
    let mut run = 0;
    for &c in &b[end.min(hi)..hi] {
        if c.is_ascii_alphanumeric() {
            run += 1;
            if run >= SHORTEST {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// Whether the noun at `start..end` is a word of its own: not inside a longer one (`monkey`,
/// `path`, `tokenizer`, `secretary`), a plural `s` allowed.
fn stands_as_word(b: &[u8], start: usize, end: usize) -> bool {
    let camel = start > 0 && b[start - 1].is_ascii_lowercase() && b[start].is_ascii_uppercase();
    if start > 0 && b[start - 1].is_ascii_alphanumeric() && !camel {
        return false;
    }
    let mut e = end;
    if b.get(e).is_some_and(|&c| c == b's' || c == b'S') {
        e += 1;
    }
    !b.get(e)
        .is_some_and(|&c| c.is_ascii_alphanumeric() || c >= 0x80)
}

/// Words that make the value a record's or a build's handle, or a public half, when they
/// stand in the noun's sentence before it (`the fingerprint of the host key is …`) or between
/// it and the value (`the key id is …`, `the token fix landed in …`).
fn handle(w: &str) -> bool {
    matches!(
        w,
        "md5"
            | "sha"
            | "sha1"
            | "sha256"
            | "sha512"
            | "hash"
            | "hashes"
            | "hashed"
            | "checksum"
            | "checksums"
            | "digest"
            | "commit"
            | "commits"
            | "fingerprint"
            | "fingerprints"
            | "thumbprint"
            | "etag"
            | "integrity"
            | "revision"
            | "rev"
            | "ref"
            | "id"
            | "ids"
            | "uuid"
            | "guid"
            | "identifier"
            | "name"
            | "label"
            | "object"
            | "cache"
            | "cached"
            | "row"
            | "column"
            | "index"
            | "partition"
            | "sort"
            | "primary"
            | "foreign"
            | "idempotency"
            | "dedup"
            | "lookup"
            | "translation"
            | "locale"
            | "i18n"
            | "flag"
            | "feature"
            | "public"
            | "pub"
            | "publishable"
            | "site"
            | "host"
            | "gpg"
            | "pgp"
            | "gnupg"
            | "openpgp"
            | "keyserver"
            | "kid"
            | "nonce"
            | "salt"
            | "seed"
            | "vector"
            | "sample"
            | "example"
            | "fake"
            | "dummy"
            | "fixture"
            | "placeholder"
            | "redacted"
            | "masked"
            | "hint"
            | "prefix"
            | "suffix"
            | "length"
            | "format"
            | "trace"
            | "request"
            | "span"
            | "version"
            | "release"
            | "tag"
            | "branch"
            | "pr"
            | "issue"
            | "ticket"
            | "fix"
            | "fixed"
            | "bug"
            | "patch"
            | "merge"
            | "merged"
            | "revert"
            | "changelog"
            | "file"
            | "path"
            | "url"
            | "endpoint"
            | "email"
            | "bucket"
            | "arn"
            | "image"
            | "container"
            | "snapshot"
            | "fixtures"
            | "examples"
            | "samples"
            | "primär"
            | "primaire"
            | "primario"
            | "primaria"
            | "vectors"
            | "maintainer"
            | "keyring"
            | "repo"
            | "repository"
            | "pubkey"
            | "wallet"
            | "mint"
            | "contract"
            | "address"
            // German, Spanish, French, Italian: checksum, hash, fingerprint, commit.
            | "prüfsumme"
            | "pruefsumme"
            | "suma"
            | "somme"
            | "empreinte"
            | "huella"
            | "impronta"
            | "firma"
            | "öffentlich"
            | "öffentliche"
            | "öffentlicher"
            | "öffentlichen"
            | "publica"
            | "pública"
            | "publique"
            | "pubblica"
    )
}

/// Words that give the value: the copula in the languages of [`SUBJECTS`] and `equals`.
fn copula(w: &str) -> bool {
    let lower;
    let w = if w.chars().any(char::is_uppercase) {
        lower = w.to_lowercase();
        lower.as_str()
    } else {
        w
    };
    matches!(
        w,
        "is" | "was"
            | "are"
            | "equals"
            | "ist"
            | "lautet"
            | "war"
            | "sind"
            | "es"
            | "era"
            | "son"
            | "est"
            | "était"
            | "etait"
            | "sont"
            | "è"
            | "é"
            | "e"
            | "é:"
            | "eh"
            | "são"
            | "sao"
            | "era:"
    )
}

/// Whether a word of `s` (any case, any language of [`SUBJECTS`]) names a handle, a public
/// half or a record's key ([`handle`]), or opens a compound with one (`Primärschlüssel`).
pub(crate) fn names_a_handle(s: &str) -> bool {
    words_of(s).any(|w| {
        handle(&w)
            || [
                "primär",
                "primaer",
                "primar",
                "öffentlich",
                "oeffentlich",
                "offentlich",
                "fremd",
                "haupt",
            ]
            .iter()
            .any(|p| w.starts_with(p))
    })
}

/// The lower-case words of `s` (letters, digits and apostrophes; `d'accès` is one word).
fn words_of(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .filter(|w| !w.is_empty())
        .flat_map(|w| w.split(['\'', '\u{2019}']))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The noun's sentence before it, at most [`BEHIND`] bytes, from its last stop (`.`, `!`,
/// `?`, `;`, a line break or a table's `|`).
fn sentence_before(text: &str, at: usize) -> &str {
    let from = floor_char(text, at.saturating_sub(BEHIND));
    let head = &text[from..at];
    let cut = head
        .char_indices()
        .rfind(|&(i, c)| {
            matches!(c, '\n' | '|' | ';' | '!' | '?')
                || c == '.' && head[i + 1..].starts_with([' ', '\t'])
        })
        .map_or(0, |(i, c)| i + c.len_utf8());
    &head[cut..]
}

/// A value's byte and the bytes that may end one (`.`, `,`, `;`, `)`, quotes, emphasis, a
/// blank or the end; a `.` only before a blank or the end: `….json` is a file).
fn ends_value(text: &[u8], at: usize) -> bool {
    match text.get(at) {
        Some(b'.' | b'!' | b'?') => text
            .get(at + 1)
            .is_none_or(|c| c.is_ascii_whitespace() || matches!(c, b'*' | b'_' | b'`')),
        Some(&c) => {
            c.is_ascii_whitespace()
                || c >= 0x80
                || matches!(
                    c,
                    b',' | b';' | b')' | b']' | b'"' | b'\'' | b'`' | b'*' | b'|'
                )
        }
        None => true,
    }
}

/// Whether `v` (ASCII letters and digits) is drawn at random as keys are: hex with both
/// letters and digits, base32 of one case, or base62 that switches case. Not an address
/// (`0x…`) nor an upper-case hex fingerprint of 40 (an `OpenPGP` key's, as release notes and
/// repository set-ups give it).
pub(crate) fn drawn(v: &str) -> bool {
    let b = v.as_bytes();
    if v.starts_with("0x") || v.starts_with("0X") {
        return false;
    }
    let fingerprint = b.len() == 40
        && b.iter()
            .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(c));
    if fingerprint {
        return false;
    }
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    let upper = b.iter().filter(|c| c.is_ascii_uppercase()).count();
    let lower = b.iter().filter(|c| c.is_ascii_lowercase()).count();
    let letters = upper + lower;
    let hex = b.iter().all(u8::is_ascii_hexdigit) && digits >= 4 && letters >= 4;
    let base32 = (upper == 0 || lower == 0)
        && b.iter()
            .all(|&c| c.is_ascii_alphabetic() || (b'2'..=b'7').contains(&c))
        && digits >= 3
        && letters >= 8;
    let base62 = upper >= 4 && lower >= 4 && digits >= 2;
    (hex || base32 || base62)
        && entropy(v) >= if hex { 3.2 } else { 3.6 }
        && !is_template(v)
        && placeholder(v) == Placeholder::No
        && !super::dummy_run(v)
        && !super::secrets::stand_in(v)
        && !super::secrets::repeated_run(v)
        && !v.to_ascii_lowercase().contains("xxxx")
}

/// The longest a clause between the noun and its copula may be, in words.
const CLAUSE_WORDS: usize = 9;

fn check(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let b = text.as_bytes();
    let (ms, me) = caps.whole();
    if !stands_as_word(b, ms, me) {
        return;
    }
    // A name's word (`API_KEY_EU_WEST=…`, `"acme-key": …`, `cfg.token = …`): an assignment,
    // which the assignment rules judge with the name. A compound of another language
    // (`API-Schlüssel`) is prose.
    let english = b[ms].is_ascii_alphabetic()
        && ["key", "token", "secret", "pat", "credential"]
            .iter()
            .any(|w| text[ms..me].eq_ignore_ascii_case(w));
    let joined = |c: u8| c == b'_' || c == b'.' || english && c == b'-';
    let tail = me + usize::from(b.get(me).is_some_and(|&c| c == b's' || c == b'S'));
    if ms > 0 && joined(b[ms - 1]) || b.get(tail).is_some_and(|&c| joined(c) && c != b'.') {
        return;
    }
    // The clause is read first, without judging its words: most nouns meet no value.
    let Some((clause_end, vs, ve, assigned)) = given_value(text, tail) else {
        return;
    };
    // A handle's word in the clause (`the key id is …`) or before the noun in its sentence
    // (`the md5 of the key`, `cache key`, `the host key`) makes it no credential's.
    // The noun classifies the next one, which the value names (`Token account: …`, `the
    // token program id is …`): a public address on a chain.
    let modifies = text[tail..clause_end]
        .strip_prefix(' ')
        .and_then(|rest| rest.split([' ', '\t']).next())
        .is_some_and(super::secrets::modified_noun);
    if assigned
        || modifies
        || names_a_handle(&text[tail..clause_end])
        || names_a_handle(sentence_before(text, ms))
    {
        return;
    }
    let v = &text[vs..ve];
    if (SHORTEST..=LONGEST).contains(&v.len()) && ends_value(b, ve) && drawn(v) {
        out.push(
            Finding::new(
                &SEC121,
                vs,
                ve,
                format!(
                    "credential written out as its sentence's subject: {}",
                    redacted(v)
                ),
            )
            .secret("labelled-credential"),
        );
    }
}

/// The value a clause from `at` gives, within [`AHEAD`] bytes of its line: up to
/// [`CLAUSE_WORDS`] words, then a copula or a sign and a run of sixteen or more letters and
/// digits. `(clause end, value start, value end, assigned)`; `assigned` when a `:` or `=`
/// follows the noun straight away (an assignment, which the assignment rules judge).
fn given_value(text: &str, mut at: usize) -> Option<(usize, usize, usize, bool)> {
    let b = text.as_bytes();
    let hi = floor_char(text, (at + AHEAD).min(text.len()));
    let mut words = 0;
    while at < hi {
        // Blanks and the emphasis or quotes that close a label (`**API key**`, `"key"`).
        while at < hi && matches!(b[at], b' ' | b'\t' | b'*' | b'_' | b'`' | b'"') {
            at += 1;
        }
        if at >= hi || matches!(b[at], b'\n' | b'\r' | b'|' | b';') {
            return None;
        }
        let rest = &text[at..hi];
        // A sign that gives the value.
        let sign = [
            "\u{2192}", "->", "=>", ":=", "=", ":", "\u{ff1a}", "\u{2014}", "\u{2013}",
        ]
        .iter()
        .find(|s| rest.starts_with(**s));
        if let Some(s) = sign {
            let assigned = words == 0 && matches!(*s, ":" | "=" | ":=" | "=>" | "\u{ff1a}");
            // `PAT: the one for CI is …`: a word after the sign leaves the clause going on.
            if let Some((vs, ve)) = run_after(b, at + s.len(), hi) {
                return Some((at, vs, ve, assigned));
            }
            at += s.len();
            words += 1;
            continue;
        }
        // The next word of the clause.
        let len = rest
            .char_indices()
            .find(|&(_, c)| c.is_whitespace() || matches!(c, ':' | '=' | '|' | '`' | '"' | '*'))
            .map_or(rest.len(), |(i, _)| i);
        if len == 0 {
            return None;
        }
        let word = &rest[..len];
        let end = at;
        at += len;
        if copula(word.trim_end_matches([',', ')'])) {
            if let Some((vs, ve)) = run_after(b, at, hi) {
                return Some((end, vs, ve, false));
            }
        } else if word.ends_with(['.', '!', '?']) {
            // The sentence ends before any value is given.
            return None;
        }
        words += 1;
        if words > CLAUSE_WORDS {
            return None;
        }
    }
    None
}

/// The run of letters and digits after a copula or sign at `at` (past blanks, emphasis, an
/// adverb of time and one opening quote), when it is sixteen or more long: a value; a
/// shorter one is a word, and the clause goes on.
fn run_after(b: &[u8], mut at: usize, hi: usize) -> Option<(usize, usize)> {
    let blanks = |at: &mut usize| {
        while *at < hi && matches!(b[*at], b' ' | b'\t' | b'*' | b'_') {
            *at += 1;
        }
    };
    blanks(&mut at);
    // An adverb of time between the copula and the value (`is now …`, `ist jetzt …`).
    let rest = &b[at.min(hi)..hi];
    if let Some(adverb) = [
        "now ",
        "still ",
        "currently ",
        "jetzt ",
        "nun ",
        "ahora ",
        "maintenant ",
        "ora ",
    ]
    .iter()
    .find(|a| rest.len() >= a.len() && rest[..a.len()].eq_ignore_ascii_case(a.as_bytes()))
    {
        at += adverb.len();
        blanks(&mut at);
    }
    if at < hi && matches!(b[at], b'`' | b'"' | b'\'') {
        at += 1;
    }
    let end = at
        + b[at.min(b.len())..]
            .iter()
            .take(LONGEST + 1)
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
    (end - at >= 16).then_some((at, end))
}
