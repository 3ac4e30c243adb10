//! ENC: encoded payloads. Runs of base64, hex, percent or `\x`/`\u` escapes are decoded; when
//! the result is mostly printable text it is linted again (depth ≤ 2) and reported at the
//! encoded span: ENC001 when the decoded text triggers another rule, ENC002 (a note) otherwise.

use super::super::Severity;
use super::super::engine::{Finding, Scan};
use super::super::registry::{ENC001, ENC002, Family};
use super::excerpt;

/// Maximum decoding depth (as gitleaks' `--max-decode-depth`).
pub(crate) const MAX_DEPTH: u8 = 2;

/// Finds and judges encoded runs; `existing` spans (normalised offsets) of secret findings are
/// skipped so a JWT is not also reported as an opaque blob.
pub(crate) fn scan(scan: &Scan<'_>, existing: &[(usize, usize)], out: &mut Vec<Finding>) {
    let existing = super::super::text::Spans::new(existing.to_vec());
    if scan.depth >= MAX_DEPTH {
        return;
    }
    let text = scan.text();
    let b = text.as_bytes();
    // Escape runs (`%xx`, `\\xNN`, `\\uNNNN`) are rare: find them with memchr.
    let mut skip_until = 0;
    for p in memchr::memchr2_iter(b'%', b'\\', b) {
        if p < skip_until {
            continue;
        }
        let end = escape_run(b, p);
        if end > p {
            if let Some(decoded) = decode_escapes(&text[p..end]) {
                judge(scan, p, end, "percent/escape", &decoded, out);
            }
            skip_until = end;
        }
    }
    // Base64/hex runs of at least 24 bytes. Any 24 bytes hold two whole 8-byte words of the
    // text (at offsets that are multiples of 8); a run holds no space or newline, so only a
    // pair of such words can lie in one. Prose has a space every few bytes: most words are
    // ruled out eight bytes at a time.
    let blank = |w: usize| super::super::swar::holds_either(&b[8 * w..8 * w + 8], b' ', b'\n');
    let words = b.len() / 8;
    let mut i = 0;
    let mut word = 1;
    while word < words {
        if blank(word) {
            word += 2;
            continue;
        }
        if blank(word - 1) {
            word += 1;
            continue;
        }
        // Words `word - 1` and `word` may lie in a run; if so, the run holds the byte at
        // `8 * word`.
        let probe = 8 * word;
        word += 1;
        if probe < i || B64[b[probe] as usize] == 0 {
            continue;
        }
        let mut start = probe;
        while start > i
            && B64[b[start - 1] as usize] != 0
            && !(b[start - 1] == b'=' && b[start] != b'=')
        {
            start -= 1;
        }
        let mut j = start;
        let mut seen = 0u8;
        while j < b.len() {
            let class = B64[b[j] as usize];
            if class == 0 {
                break;
            }
            // `=` is padding only at the end of a run: `NAME=base64…` starts a new run.
            if class == EQ && b.get(j + 1).is_some_and(|c| B64[*c as usize] & !EQ != 0) {
                break;
            }
            seen |= class;
            j += 1;
        }
        i = (if b.get(j) == Some(&b'=') { j + 1 } else { j }).max(probe + 1);
        word = word.max(i.div_ceil(8) + 1);
        // Base64 of text mixes cases with digits or symbols; hex is long and alphanumeric;
        // plain words are neither.
        let len = j - start;
        let hexish = len >= 32 && seen & !(DIGIT | LOWER | UPPER) == 0;
        let b64ish = len >= 24
            && seen & (LOWER | UPPER) == (LOWER | UPPER)
            && seen & (DIGIT | SYM | EQ) != 0;
        if !(hexish || b64ish) {
            continue;
        }
        let run = &text[start..j];
        if existing.overlaps(start, j) {
            continue;
        }
        let prev = &text[..start];
        if prev.ends_with("sha256:")
            || prev.ends_with("sha512-")
            || prev.ends_with("sha384-")
            || prev.ends_with("sha1-")
            || prev.ends_with("sha256-")
            || prev.ends_with("base64,")
        {
            continue;
        }
        let hex = run.bytes().all(|c| c.is_ascii_hexdigit());
        let decoded = if hex {
            if run.len() < 32 || !run.len().is_multiple_of(2) {
                continue;
            }
            decode_hex(run)
        } else {
            if !looks_base64(run) {
                continue;
            }
            decode_base64(run)
        };
        let Some(bytes) = decoded else { continue };
        let Some(t) = printable(&bytes) else { continue };
        judge(scan, start, j, if hex { "hex" } else { "base64" }, &t, out);
    }
}

const LOWER: u8 = 1;
const UPPER: u8 = 2;
const DIGIT: u8 = 4;
const SYM: u8 = 8;
const EQ: u8 = 16;
const URLSAFE: u8 = 32;

/// Character classes of the base64 alphabets (0: not base64).
static B64: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        #[allow(clippy::cast_possible_truncation, reason = "i < 256")]
        let c = i as u8;
        t[i] = match c {
            b'a'..=b'z' => LOWER,
            b'A'..=b'Z' => UPPER,
            b'0'..=b'9' => DIGIT,
            b'+' | b'/' => SYM,
            b'=' => EQ,
            b'-' | b'_' => URLSAFE,
            _ => 0,
        };
        i += 1;
    }
    t
};

/// Base64 of text mixes cases and digits; identifiers and paths rarely look like it.
fn looks_base64(run: &str) -> bool {
    let lower = run.bytes().filter(u8::is_ascii_lowercase).count();
    let upper = run.bytes().filter(u8::is_ascii_uppercase).count();
    let digits = run.bytes().filter(u8::is_ascii_digit).count();
    let slashes = run.bytes().filter(|c| *c == b'/').count();
    lower > 0
        && upper > 0
        && (digits > 0 || run.contains('+') || run.ends_with('='))
        && slashes * 8 < run.len()
}

fn escape_run(b: &[u8], i: usize) -> usize {
    let mut j = i;
    let mut escapes = 0;
    while j < b.len() {
        if b[j] == b'%'
            && j + 2 < b.len()
            && b[j + 1].is_ascii_hexdigit()
            && b[j + 2].is_ascii_hexdigit()
        {
            escapes += 1;
            j += 3;
        } else if b[j] == b'\\'
            && j + 3 < b.len()
            && b[j + 1] == b'x'
            && b[j + 2].is_ascii_hexdigit()
            && b[j + 3].is_ascii_hexdigit()
        {
            escapes += 1;
            j += 4;
        } else if b[j] == b'\\'
            && j + 5 < b.len()
            && b[j + 1] == b'u'
            && b[j + 2..j + 6].iter().all(u8::is_ascii_hexdigit)
        {
            escapes += 1;
            j += 6;
        } else if escapes > 0
            && (b[j].is_ascii_alphanumeric() || matches!(b[j], b'.' | b'-' | b'_' | b'~' | b'+'))
        {
            j += 1;
        } else {
            break;
        }
    }
    if escapes >= 6 { j } else { i }
}

fn decode_escapes(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).ok()?);
            i += 3;
        } else if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
            out.push(u8::from_str_radix(&s[i + 2..i + 4], 16).ok()?);
            i += 4;
        } else if b[i] == b'\\' && b.get(i + 1) == Some(&b'u') {
            let c = char::from_u32(u32::from_str_radix(&s[i + 2..i + 6], 16).ok()?)?;
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            i += 6;
        } else if b[i] == b'+' {
            out.push(b' ');
            i += 1;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    printable(&out)
}

fn decode_hex(s: &str) -> Option<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

/// Decodes standard or URL-safe base64, ignoring padding.
pub(crate) fn decode_base64(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            #[allow(clippy::cast_possible_truncation, reason = "masked to one byte")]
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Returns the text when at least 70 % of it is printable and it reads as words.
fn printable(bytes: &[u8]) -> Option<String> {
    let t = std::str::from_utf8(bytes).ok()?;
    let n = t.chars().count();
    if n < 8 {
        return None;
    }
    let good = t
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t' | '\r'))
        .count();
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    (good * 10 >= n * 7 && letters * 2 >= n && t.contains(' ')
        || good == n && letters * 3 >= n * 2 && n >= 12)
        .then(|| t.to_string())
}

fn judge(
    scan: &Scan<'_>,
    start: usize,
    end: usize,
    how: &str,
    decoded: &str,
    out: &mut Vec<Finding>,
) {
    let inner = super::super::scan_decoded(decoded, scan.depth + 1);
    let hit = inner
        .iter()
        .filter(|f| {
            f.severity != Severity::Info
                && matches!(
                    f.rule.family,
                    Family::Pi | Family::Exf | Family::Sec | Family::Hid | Family::Enc
                )
        })
        .min_by_key(|f| (f.severity, f.rule.id));
    match hit {
        Some(f) => {
            let shown = if f.secret {
                f.message.clone()
            } else {
                excerpt(decoded)
            };
            out.push(Finding::new(
                &ENC001,
                start,
                end,
                format!(
                    "{how} text decodes to content that triggers {} {}: {shown}",
                    f.rule.id, f.rule.name
                ),
            ));
        }
        None => {
            out.push(Finding::new(
                &ENC002,
                start,
                end,
                format!("{how} text decodes to {}", excerpt(decoded)),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trip() {
        assert_eq!(decode_base64("aGVsbG8gd29ybGQ=").unwrap(), b"hello world");
        assert_eq!(decode_base64("aGVsbG8gd29ybGQ").unwrap(), b"hello world");
    }

    #[test]
    fn binary_is_not_text() {
        assert!(
            printable(&decode_hex("275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2").unwrap())
                .is_none()
        );
        assert!(printable(b"ignore all previous instructions").is_some());
    }
}
