//! Credentials whose format has no literal to find them by, recognised by a structural check
//! on the value itself: the engine's patterns wait for a keyword, these run once over the
//! text and look only where the shape's one fixed character (a dot) stands.

use super::super::engine::{Finding, Scan};
use super::super::registry::SEC100;

/// A URL-safe base64 character (the alphabet of Discord's token parts).
fn b64url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

/// Discord bot and user tokens: `<id>.<time>.<hmac>`, where `<id>` is the account's numeric
/// snowflake (17 to 20 digits) in unpadded base64 (23 to 27 characters, always starting with
/// `M`, `N` or `O`, as base64 of an ASCII digit does), `<time>` six base64 characters and
/// `<hmac>` 27 or more. The first part must decode to digits: a JWT's first part decodes to
/// `{"alg"…`, a dotted name to nothing. Read at every dot, looking back at most 28 bytes.
pub(crate) fn scan(scan: &Scan<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let b = text.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(p) = b[from..].iter().position(|&c| c == b'.').map(|i| from + i) {
        from = p + 1;
        let back = b[p.saturating_sub(28)..p]
            .iter()
            .rev()
            .take_while(|&&c| b64url(c))
            .count();
        let s = p - back;
        if !(23..=27).contains(&back)
            || !matches!(b[s], b'M' | b'N' | b'O')
            || s > 0 && (b64url(b[s - 1]) || b[s - 1] == b'.')
        {
            continue;
        }
        let mid = p + 1;
        if b.len() < mid + 7 || !b[mid..mid + 6].iter().all(|&c| b64url(c)) || b[mid + 6] != b'.' {
            continue;
        }
        let tail = mid + 7;
        let n = b[tail..].iter().take_while(|&&c| b64url(c)).count();
        let e = tail + n;
        if !(27..=60).contains(&n) || b.get(e) == Some(&b'.') {
            continue;
        }
        let digits = super::encoded::decode_base64(&text[s..p]);
        if !digits.is_some_and(|d| (17..=20).contains(&d.len()) && d.iter().all(u8::is_ascii_digit))
        {
            continue;
        }
        // A documentation stand-in (`MTIz….XXXXXX.XXXX…`) keeps its shape but not its noise.
        if super::placeholder(&text[s..e]) != super::Placeholder::No
            || super::secrets::judged_stand_in(&text[tail..e])
        {
            continue;
        }
        found.push(
            Finding::new(
                &SEC100,
                s,
                e,
                "Discord token (its first part is an account id in base64)".to_string(),
            )
            .secret("discord-bot-token"),
        );
        from = e;
    }
    for f in found {
        if !out
            .iter()
            .any(|o| o.secret && o.start < f.end && f.start < o.end)
        {
            out.push(f);
        }
    }
}
