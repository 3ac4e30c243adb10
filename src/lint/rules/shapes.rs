//! Credentials whose format has no literal to find them by, recognised by a structural check
//! on the value itself: the engine's patterns wait for a keyword, these run once over the
//! text and look only where the shape's one fixed character (a dot) stands.

use super::super::engine::{Finding, Scan};
use super::super::registry::{SEC001, SEC100};

/// A URL-safe base64 character (the alphabet of Discord's token parts).
fn b64url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

/// Discord bot and user tokens: `<id>.<time>.<hmac>`, where `<id>` is the account's numeric
/// snowflake (17 to 20 digits) in unpadded base64 (23 to 27 characters, always starting with
/// `M`, `N` or `O`, as base64 of an ASCII digit does), `<time>` six base64 characters and
/// `<hmac>` 27 or more. The first part must decode to digits: a JWT's first part decodes to
/// `{"alg"…`, a dotted name to nothing. Read at every dot, looking back at most 28 bytes.
///
/// `Base58Check` keys are found by [`base58check_keys`]. Placed among the other findings by
/// [`place`].
pub(crate) fn find(scan: &Scan<'_>) -> Found {
    let mut keys = Vec::new();
    base58check_keys(scan, &mut keys);
    Found {
        discord: discord(scan),
        keys,
    }
}

/// What [`find`] found in a text, before it is placed among the findings already made.
pub(crate) struct Found {
    discord: Vec<Finding>,
    keys: Vec<Finding>,
}

/// Adds what [`find`] found to `out`: the Discord tokens no secret already found covers,
/// then the keys.
pub(crate) fn place(out: &mut Vec<Finding>, found: Found) {
    super::push_unless_overlapping(out, found.discord, |o| o.secret);
    out.extend(found.keys);
}

fn discord(scan: &Scan<'_>) -> Vec<Finding> {
    let text = scan.text();
    let b = text.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(p) = memchr::memchr(b'.', &b[from..]).map(|i| from + i) {
        super::super::steps::add((p + 1 - from) as u64);
        from = p + 1;
        if let Some(f) = zhipu_at(text, p) {
            from = f.end;
            found.push(f);
            continue;
        }
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
        // A dot and more of the alphabet after it is a fourth part (a dotted name); a dot
        // that ends the sentence is not (review atk37 #6).
        let fourth = b.get(e) == Some(&b'.') && b.get(e + 1).is_some_and(|&c| b64url(c));
        if !(27..=60).contains(&n) || fourth {
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
    found
}

/// A Zhipu / Z.ai API key at the dot `p`: `<id>.<secret>`, exactly 32 lower-case hex digits
/// (letters and digits both) then 16 letters and digits of both cases, each part bounded by
/// neither a word character nor another dot (a file's `<md5>.json`, a chunk's `<hash>.bundle`
/// and dotted names fail the second part). Reads at most 33 bytes back and 17 forward.
fn zhipu_at(text: &str, p: usize) -> Option<Finding> {
    let b = text.as_bytes();
    let s = p.checked_sub(32)?;
    let e = p + 17;
    let word = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/' | b'+');
    // A sentence's full stop may follow the key; a dot before more of a name may not.
    let goes_on = |i: usize| {
        b.get(i).is_some_and(|&c| {
            word(c) && (c != b'.' || b.get(i + 1).is_some_and(u8::is_ascii_alphanumeric))
        })
    };
    if e > b.len() || s > 0 && word(b[s - 1]) || goes_on(e) {
        return None;
    }
    let id = &b[s..p];
    let secret = &b[p + 1..e];
    let hex = id
        .iter()
        .all(|&c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
        && id.iter().any(u8::is_ascii_digit)
        && id.iter().any(u8::is_ascii_lowercase);
    let mixed = secret.iter().all(u8::is_ascii_alphanumeric)
        && secret.iter().any(u8::is_ascii_uppercase)
        && secret.iter().any(u8::is_ascii_lowercase);
    if !hex || !mixed || super::placeholder(&text[s..e]) != super::Placeholder::No {
        return None;
    }
    Some(
        Finding::new(
            &SEC100,
            s,
            e,
            "Zhipu / Z.ai API key (32 hex digits, a dot, 16 letters and digits)".to_string(),
        )
        .secret("vendor-token"),
    )
}

/// A 64-byte key pair written as an array of numbers (`[174, 47, …]`), as Solana's CLI
/// writes `id.json` and as code hands one to `Keypair.fromSecretKey(new Uint8Array([…]))`:
/// exactly 64 numbers from 0 to 255, not a run of one value, and either the whole text or
/// after a word that names a secret or a key pair on its line. Each `[` is read forward once;
/// a failed array resumes the search where it stopped. Read in the raw text: a JSON file's
/// numbers are not among the strings the patterns read.
/// Whether `text` ends inside an array [`byte_keypairs`] would read on: its last `[` is
/// followed by nothing but digits, commas and blanks (the text after may add the rest).
pub(crate) fn byte_array_open(text: &str) -> bool {
    text.rfind('[').is_some_and(|k| {
        text[k + 1..]
            .bytes()
            .all(|c| c.is_ascii_digit() || c == b',' || c.is_ascii_whitespace())
    })
}

pub(crate) fn byte_keypairs(text: &str, out: &mut Vec<Finding>) {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(open) = memchr::memchr(b'[', &b[from..]).map(|i| from + i) {
        let mut i = open + 1;
        let mut values: Vec<u16> = Vec::with_capacity(64);
        let closed = loop {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            let d = b[i.min(b.len())..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if d == 0 || d > 3 || values.len() == 64 {
                break false;
            }
            values.push(text[i..i + d].parse().unwrap_or(u16::MAX));
            i += d;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            match b.get(i) {
                Some(b',') => i += 1,
                Some(b']') => break true,
                _ => break false,
            }
        };
        super::super::steps::add((i + 1 - from) as u64);
        from = (i + 1).clamp(open + 1, b.len());
        if !closed || values.len() != 64 || values.iter().any(|&v| v > 255) {
            continue;
        }
        let mut distinct = values.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() < 24 {
            continue;
        }
        let line_start = text[..open].rfind('\n').map_or(0, |k| k + 1);
        let before = text[line_start..open].to_ascii_lowercase();
        let whole = text[..open].trim().is_empty() && text[i + 1..].trim().is_empty();
        let named = ["secret", "keypair", "private", "signer", "wallet"]
            .iter()
            .any(|w| before.contains(w));
        if whole || named {
            out.push(
                Finding::raw(
                    &SEC001,
                    open,
                    i + 1,
                    "key pair as 64 bytes (a Solana id.json or a secret key array)".to_string(),
                )
                .secret("keypair-bytes"),
            );
        }
    }
}

/// Bitcoin's base58 alphabet (no `0`, `O`, `I`, `l`).
const BASE58: &[u8; 58] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/// Decodes base58 (big-endian, leading `1`s are zero bytes); `None` off the alphabet.
fn base58(s: &[u8]) -> Option<Vec<u8>> {
    let mut n: Vec<u8> = Vec::with_capacity(s.len());
    for &c in s {
        let mut carry = u32::try_from(BASE58.iter().position(|&a| a == c)?).ok()?;
        for byte in n.iter_mut().rev() {
            carry += u32::from(*byte) * 58;
            *byte = (carry & 0xff) as u8;
            carry >>= 8;
        }
        while carry > 0 {
            n.insert(0, (carry & 0xff) as u8);
            carry >>= 8;
        }
    }
    let zeros = s.iter().take_while(|&&c| c == b'1').count();
    let mut out = vec![0u8; zeros];
    out.extend(n);
    Some(out)
}

/// `Base58Check`: the payload when the last four bytes are the first four of its double SHA-256.
fn base58check(s: &[u8]) -> Option<Vec<u8>> {
    use sha2::Digest;
    let mut d = base58(s)?;
    if d.len() < 5 {
        return None;
    }
    let sum = d.split_off(d.len() - 4);
    let h = sha2::Sha256::digest(sha2::Sha256::digest(&d));
    (h[..4] == sum[..]).then_some(d)
}

/// Bitcoin private keys in their export formats, which carry a checksum but no literal a
/// prefilter could wait for: WIF (51 or 52 base58 characters, version byte 0x80 or 0xEF for
/// testnet, 32 key bytes and an optional compression flag) and BIP-32 extended private keys
/// (`xprv`, `tprv`, `yprv`, `zprv`: 111 characters, 78 bytes). One pass over the text's
/// alphanumeric runs; only runs of those lengths are decoded, and the double SHA-256
/// checksum leaves one random run in four billion.
fn base58check_keys(scan: &Scan<'_>, out: &mut Vec<Finding>) {
    let b = scan.text().as_bytes();
    let mut i = 0;
    while i < b.len() {
        // `i` never stands inside a run. A run of 51 or more that starts in `i..=i + 50`
        // holds byte `i + 50`: when that byte is no letter or digit, none starts there.
        if b.get(i + 50).is_some_and(|c| !c.is_ascii_alphanumeric()) {
            i += 51;
            continue;
        }
        if !b[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let s = i;
        while i < b.len() && b[i].is_ascii_alphanumeric() {
            i += 1;
        }
        super::super::steps::add((i - s) as u64);
        let run = &b[s..i];
        let what = match (run.len(), run.first()) {
            (51 | 52, Some(b'5' | b'K' | b'L' | b'9' | b'c')) => base58check(run)
                .filter(|d| {
                    matches!(d.first(), Some(0x80 | 0xef))
                        && (d.len() == 33 || d.len() == 34 && d[33] == 1)
                })
                .map(|_| {
                    (
                        "bitcoin-wif-key",
                        "Bitcoin private key (WIF, checksum valid)",
                    )
                }),
            (111, _) => base58check(run)
                .filter(|d| {
                    d.len() == 78
                        && matches!(
                            d[..4],
                            [0x04, 0x88, 0xad, 0xe4]
                                | [0x04, 0x35, 0x83, 0x94]
                                | [0x04, 0x9d, 0x78, 0x78]
                                | [0x04, 0xb2, 0x43, 0x0c]
                        )
                })
                .map(|_| {
                    (
                        "bip32-extended-private-key",
                        "BIP-32 extended private key (checksum valid)",
                    )
                }),
            _ => None,
        };
        if let Some((kind, label)) = what {
            out.push(Finding::new(&SEC001, s, i, label.to_string()).secret(kind));
        }
    }
}
