//! The Unicode pass: one linear scan that records every character a reviewer cannot see or
//! could misread (for the HID rules) and builds the normalised view the other rules match on:
//! invisible and format characters dropped, tag characters decoded to the ASCII they hide,
//! look-alike letters and fullwidth forms folded to ASCII, compatibility forms decomposed and
//! accents removed, typographic quotes and spaces made plain. Pure ASCII text takes a fast path.

use unicode_general_category::{GeneralCategory, get_general_category};

use super::confusables;
use super::swar::find_non_ascii_or;
use super::text::{View, ViewBuilder};

/// What kind of notable character was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UKind {
    /// Zero-width and other invisible format characters.
    Invisible,
    /// U+00AD.
    SoftHyphen,
    /// U+FEFF not at the start of the file.
    Bom,
    /// Bidi overrides, embeddings and isolates.
    Bidi,
    /// LRM, RLM, ALM.
    BidiMark,
    /// U+E0000–U+E007F.
    Tag,
    /// Variation selectors.
    VarSel,
    /// Private use.
    Private,
    /// Unassigned or noncharacter.
    Unassigned,
    /// A combining mark.
    Combining,
    /// A look-alike letter from another script (or a mathematical letter).
    Confusable,
    /// A fullwidth ASCII form.
    Fullwidth,
}

/// One notable character at a source byte range.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UEvent {
    pub kind: UKind,
    pub start: usize,
    pub end: usize,
    pub ch: char,
}

/// The normalised view and the notable characters of a text.
#[derive(Debug)]
pub(crate) struct Normalized<'a> {
    pub view: View<'a>,
    pub events: Vec<UEvent>,
}

/// Normalises `text`. With `entities`, HTML character references (`&#8203;`, `&#x69;`,
/// `&amp;`, …) are decoded first, as a Markdown renderer or a model would read them.
pub(crate) fn normalize(text: &str, entities: bool) -> Normalized<'_> {
    let bytes = text.as_bytes();
    let amp = entities.then_some(b'&');
    let Some(first) = find_non_ascii_or(bytes, amp) else {
        let mut view = View::identity(text);
        unwrap_values(&mut view.text);
        return Normalized {
            view,
            events: Vec::new(),
        };
    };
    let mut out = ViewBuilder::with_capacity(text.len());
    let mut events = Vec::new();
    out.copy(&text[..first], 0);
    let mut i = first;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if b == b'&'
                && entities
                && let Some((c, len)) = decode_entity(&text[i..])
            {
                push_char(c, i, i + len, &mut out, &mut events, false);
                i += len;
                continue;
            }
            // Copy the ASCII run up to the next special byte in one piece.
            let run = find_non_ascii_or(&bytes[i + 1..], amp).map_or(bytes.len(), |p| i + 1 + p);
            out.copy(&text[i..run], i);
            i = run;
            continue;
        }
        let c = text[i..].chars().next().expect("i is a char boundary");
        let len = c.len_utf8();
        push_char(c, i, i + len, &mut out, &mut events, true);
        i += len;
    }
    let mut view = out.build();
    unwrap_values(&mut view.text);
    Normalized { view, events }
}

/// The inline wrappers a value is shown in besides one backtick (`` ``v`` ``,
/// `<code>v</code>`, `<kbd>`, `<samp>`, `<tt>`, and `[v]` after a label's `:` or `=`), read as
/// the one-backtick code span they render like: `` ` `` in place of each delimiter, blanks in
/// place of the rest of a tag, so the text keeps its length and every offset its place. Only
/// a value of one word (no blank, quote, comma, backtick, bracket or angle bracket inside:
/// a JSON array's `["…"]` keeps its brackets) is unwrapped:
/// the rules read a labelled credential in a code span, and prose is never turned into code.
fn unwrap_values(text: &mut std::borrow::Cow<'_, str>) {
    let b = text.as_bytes();
    // (offset, replacement) of each delimiter, in order; found before the text is copied.
    let mut edits: Vec<(usize, &'static str)> = Vec::new();
    let word = |c: u8| {
        !(c.is_ascii_whitespace()
            || matches!(c, b'`' | b'<' | b'>' | b'[' | b']' | b'"' | b'\'' | b','))
    };
    let word_end = |from: usize| {
        let n = b[from..].iter().take(200).take_while(|&&c| word(c)).count();
        (n > 0).then_some(from + n)
    };
    // Each wrapper found by its opening bytes, which prose holds rarely: `` `` ``, `<` and a
    // blank before `[` (a run of `[` holds no blank and is passed over in one step).
    for p in memchr::memmem::find_iter(b, b"``") {
        // ``v``, not a fence's ``` nor part of a longer run of backticks.
        if p > 0 && b[p - 1] == b'`' {
            continue;
        }
        let Some(e) = word_end(p + 2) else { continue };
        if b.get(e..e + 2) == Some(b"``") && b.get(e + 2) != Some(&b'`') {
            edits.push((p, " `"));
            edits.push((e, "` "));
        }
    }
    for p in memchr::memchr_iter(b'<', b) {
        const TAGS: [(&[u8], &str, &str); 4] = [
            (b"code", "     `", "`      "),
            (b"kbd", "    `", "`     "),
            (b"samp", "     `", "`      "),
            (b"tt", "   `", "`    "),
        ];
        for (name, open, close) in TAGS {
            let n = name.len();
            let opens = b
                .get(p + 1..p + 1 + n)
                .is_some_and(|s| s.eq_ignore_ascii_case(name))
                && b.get(p + 1 + n) == Some(&b'>');
            if !opens {
                continue;
            }
            let Some(e) = word_end(p + n + 2) else { break };
            let closes = b.get(e..e + 2) == Some(b"</")
                && b.get(e + 2..e + 2 + n)
                    .is_some_and(|s| s.eq_ignore_ascii_case(name))
                && b.get(e + 2 + n) == Some(&b'>');
            if closes {
                edits.push((p, open));
                edits.push((e, close));
            }
            break;
        }
    }
    for blank in memchr::memmem::find_iter(b, b" [") {
        // `[v]` after a label's sign and a blank (`Password: [v]`), not a link (`[v](…)`,
        // `[v][…]`), a reference definition (`[v]: …`) nor a URL's query (`?q=[v]`).
        let p = blank + 1;
        let before = b[..p].trim_ascii_end();
        let before = before
            .strip_suffix(b"**")
            .or_else(|| before.strip_suffix(b"__"))
            .unwrap_or(before)
            .trim_ascii_end();
        if !matches!(before.last(), Some(b':' | b'=')) {
            continue;
        }
        let Some(e) = word_end(p + 1) else { continue };
        if b.get(e) == Some(&b']') && !matches!(b.get(e + 1), Some(b'(' | b'[' | b':')) {
            edits.push((p, "`"));
            edits.push((e, "`"));
        }
    }
    if edits.is_empty() {
        return;
    }
    // The wrappers hold no byte another one opens with (a value holds no backtick, `<` or
    // bracket): their edits never overlap.
    edits.sort_unstable_by_key(|&(at, _)| at);
    let t = text.to_mut();
    // Each edit puts as many ASCII bytes in place of ASCII delimiters: the text stays UTF-8.
    let mut bytes = std::mem::take(t).into_bytes();
    for (at, r) in edits {
        bytes[at..at + r.len()].copy_from_slice(r.as_bytes());
    }
    *t = String::from_utf8(bytes).expect("ASCII replaced by ASCII");
}

fn push_char(
    c: char,
    start: usize,
    end: usize,
    out: &mut ViewBuilder,
    events: &mut Vec<UEvent>,
    verbatim: bool,
) {
    let mut event = |kind| {
        events.push(UEvent {
            kind,
            start,
            end,
            ch: c,
        });
    };
    let mut buf = [0u8; 4];
    if c.is_ascii() {
        out.replace(c.encode_utf8(&mut buf), start, end);
        return;
    }
    let cp = c as u32;
    // CJK and Hangul need no folding: copy them as they are.
    if matches!(cp, 0x3040..=0x9FFF | 0xAC00..=0xD7AF) {
        verbatim_char(c, start, end, out, verbatim);
        return;
    }
    // Arrows, symbols, box drawing and emoji neither, except the few that look like a letter.
    if matches!(cp, 0x2190..=0x2BFF | 0x1F000..=0x1FAFF) {
        let mut ascii = [0u8; 16];
        if let Some(a) = confusables::lookup(c) {
            event(UKind::Confusable);
            out.replace(a, start, end);
        } else if (0x2460..=0x24FF).contains(&cp)
            && let Some((n, _)) = ascii_reading(c, &mut ascii)
        {
            // Circled and parenthesised letters and digits: ⓘ → i, ⑴ → (1).
            let s = std::str::from_utf8(&ascii[..n]).expect("ASCII bytes");
            out.replace(s, start, end);
        } else {
            verbatim_char(c, start, end, out, verbatim);
        }
        return;
    }
    match c {
        '\u{FEFF}' => return event(UKind::Bom),
        '\u{00AD}' => return event(UKind::SoftHyphen),
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => return event(UKind::Bidi),
        '\u{200E}' | '\u{200F}' | '\u{061C}' => return event(UKind::BidiMark),
        '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}' => return event(UKind::VarSel),
        '\u{E0000}'..='\u{E007F}' => {
            event(UKind::Tag);
            // The hidden ASCII is what a model reads: put it into the view.
            if (0xE0020..=0xE007E).contains(&cp) {
                let a = char::from_u32(cp - 0xE0000).expect("ASCII range");
                out.replace(a.encode_utf8(&mut buf), start, end);
            }
            return;
        }
        '\u{200B}'..='\u{200D}'
        | '\u{2060}'..='\u{2064}'
        | '\u{180E}'
        | '\u{034F}'
        | '\u{115F}'
        | '\u{1160}'
        | '\u{3164}'
        | '\u{FFA0}'
        | '\u{17B4}'
        | '\u{17B5}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{206A}'..='\u{206F}' => return event(UKind::Invisible),
        '\u{FF01}'..='\u{FF5E}' => {
            event(UKind::Fullwidth);
            let a = char::from_u32(cp - 0xFEE0).expect("fullwidth maps to ASCII");
            out.replace(a.encode_utf8(&mut buf), start, end);
            return;
        }
        _ => {}
    }
    if let Some(a) = fold_punctuation(c) {
        out.replace(a, start, end);
        return;
    }
    if let Some(a) = confusables::lookup(c) {
        event(UKind::Confusable);
        out.replace(a, start, end);
        return;
    }
    match get_general_category(c) {
        GeneralCategory::Format => return event(UKind::Invisible),
        GeneralCategory::PrivateUse => {
            event(UKind::Private);
        }
        GeneralCategory::Unassigned | GeneralCategory::Surrogate => {
            event(UKind::Unassigned);
        }
        GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark => {
            return event(UKind::Combining);
        }
        GeneralCategory::SpaceSeparator
        | GeneralCategory::LineSeparator
        | GeneralCategory::ParagraphSeparator => {
            out.replace(" ", start, end);
            return;
        }
        _ => {}
    }
    if (0x1D400..=0x1D7FF).contains(&cp) {
        event(UKind::Confusable);
    }
    // Compatibility decomposition without marks, each piece read as ASCII: é → e, ﬁ → fi,
    // 𝐢 → i, ① → 1, and through the look-alike table ё → e, ό → o.
    let mut ascii = [0u8; 16];
    match ascii_reading(c, &mut ascii) {
        Some((n, looked_alike)) => {
            if looked_alike {
                event(UKind::Confusable);
            }
            let s = std::str::from_utf8(&ascii[..n]).expect("ASCII bytes");
            out.replace(s, start, end);
        }
        None => verbatim_char(c, start, end, out, verbatim),
    }
}

fn verbatim_char(c: char, start: usize, end: usize, out: &mut ViewBuilder, verbatim: bool) {
    let mut buf = [0u8; 4];
    if verbatim {
        out.copy(c.encode_utf8(&mut buf), start);
    } else {
        out.replace(c.encode_utf8(&mut buf), start, end);
    }
}

/// The ASCII a character reads as, written into `buf`: its compatibility decomposition
/// without combining marks, each remaining piece ASCII or a look-alike of ASCII letters.
/// Returns the length and whether a look-alike was used; `None` when some piece is neither.
fn ascii_reading(c: char, buf: &mut [u8; 16]) -> Option<(usize, bool)> {
    let mut n = 0;
    let mut ok = true;
    let mut looked_alike = false;
    let mut push = |s: &[u8], n: &mut usize| {
        if *n + s.len() <= buf.len() {
            buf[*n..*n + s.len()].copy_from_slice(s);
            *n += s.len();
            true
        } else {
            false
        }
    };
    unicode_normalization::char::decompose_compatible(c, |d| {
        if !ok || unicode_normalization::char::is_combining_mark(d) {
            return;
        }
        if d.is_ascii() {
            ok = push(&[d as u8], &mut n);
        } else if let Some(a) = confusables::lookup(d) {
            looked_alike = true;
            ok = push(a.as_bytes(), &mut n);
        } else {
            ok = false;
        }
    });
    (ok && n > 0).then_some((n, looked_alike))
}

/// How `c` reads in the normalised view when it is a letter or digit (for messages): the
/// ASCII it stands for, or `c` itself.
pub(crate) fn fold_for_display(c: char, out: &mut String) {
    let cp = c as u32;
    if (0xFF01..=0xFF5E).contains(&cp) {
        out.push(char::from_u32(cp - 0xFEE0).expect("fullwidth maps to ASCII"));
    } else if let Some(a) = confusables::lookup(c) {
        out.push_str(a);
    } else if !c.is_ascii() && c.is_alphanumeric() {
        let mut buf = [0u8; 16];
        match ascii_reading(c, &mut buf) {
            Some((n, _)) => out.push_str(std::str::from_utf8(&buf[..n]).expect("ASCII bytes")),
            None => out.push(c),
        }
    } else {
        out.push(c);
    }
}

/// Typographic quotes, dashes and ellipses as their ASCII forms.
pub(super) fn fold_punctuation(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{02BC}' => "'",
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}'
        | '\u{00BB}' => "\"",
        '\u{2010}'..='\u{2015}' | '\u{2212}' => "-",
        '\u{2026}' => "...",
        _ => return None,
    })
}

/// Decodes one HTML character reference at the start of `s`: (character, byte length).
fn decode_entity(s: &str) -> Option<(char, usize)> {
    let end = s[..super::text::floor_char(s, s.len().min(12))].find(';')?;
    let body = &s[1..end];
    let c = if let Some(num) = body.strip_prefix('#') {
        let n = if let Some(hex) = num.strip_prefix(['x', 'X']) {
            u32::from_str_radix(hex, 16).ok()?
        } else {
            num.parse::<u32>().ok()?
        };
        char::from_u32(n)?
    } else {
        match body {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            "nbsp" => '\u{A0}',
            "shy" => '\u{AD}',
            "zwj" => '\u{200D}',
            "zwnj" => '\u{200C}',
            "lrm" => '\u{200E}',
            "rlm" => '\u{200F}',
            "ensp" | "emsp" | "thinsp" => ' ',
            _ => return None,
        }
    };
    Some((c, end + 1))
}

/// True for characters shown by code point in messages and documentation.
pub(crate) fn is_invisible_for_display(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}'
        | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}'
        | '\u{E0000}'..='\u{E007F}' | '\u{E0100}'..='\u{E01EF}')
        || (c.is_control() && c != '\t' && c != '\n')
}

/// Unicode name-ish label for a code point in messages.
pub(crate) fn char_label(c: char) -> String {
    let name = match c {
        '\u{200B}' => "ZERO WIDTH SPACE",
        '\u{200C}' => "ZERO WIDTH NON-JOINER",
        '\u{200D}' => "ZERO WIDTH JOINER",
        '\u{2060}' => "WORD JOINER",
        '\u{FEFF}' => "ZERO WIDTH NO-BREAK SPACE",
        '\u{00AD}' => "SOFT HYPHEN",
        '\u{202A}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202B}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202C}' => "POP DIRECTIONAL FORMATTING",
        '\u{202D}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202E}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{200E}' => "LEFT-TO-RIGHT MARK",
        '\u{200F}' => "RIGHT-TO-LEFT MARK",
        _ => "",
    };
    if name.is_empty() {
        format!("U+{:04X}", c as u32)
    } else {
        format!("U+{:04X} {name}", c as u32)
    }
}

/// True for characters that are (part of) emoji, where ZWJ and U+FE0F are legitimate.
pub(crate) fn is_emoji_like(c: char) -> bool {
    let cp = c as u32;
    matches!(cp,
        0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2B00..=0x2BFF | 0x2190..=0x21FF
        | 0x2300..=0x23FF | 0x25A0..=0x25FF | 0x2100..=0x214F | 0x3030 | 0x303D | 0x3297
        | 0x3299 | 0xA9 | 0xAE | 0x203C | 0x2049 | 0x20E3 | 0xFE0F)
        || c.is_ascii_digit()
        || c == '#'
        || c == '*'
}

/// True for right-to-left scripts (where LRM/RLM are legitimate).
pub(crate) fn is_rtl(c: char) -> bool {
    matches!(c as u32, 0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF | 0x10800..=0x10FFF)
}

/// True for scripts that use ZWJ/ZWNJ inside words (Arabic, Indic, …).
pub(crate) fn uses_joiners(c: char) -> bool {
    matches!(c as u32, 0x0600..=0x06FF | 0x0750..=0x077F | 0x0900..=0x0DFF | 0x0F00..=0x0FFF
        | 0x1000..=0x109F | 0x1780..=0x17FF | 0xA8E0..=0xA8FF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_text_is_not_copied() {
        let n = normalize("plain text", true);
        assert!(n.view.is_identity());
        assert!(n.events.is_empty());
    }

    #[test]
    fn evasions_normalise_to_the_plain_words() {
        let n = normalize(
            "ig\u{200B}nore Іgnore ｉｇｎｏｒｅ ＆ &#105;gnore caf\u{e9} ﬁle",
            true,
        );
        assert_eq!(n.view.text, "ignore Ignore ignore & ignore cafe file");
        let kinds: Vec<UKind> = n.events.iter().map(|e| e.kind).collect();
        assert!(kinds.contains(&UKind::Invisible));
        assert!(kinds.contains(&UKind::Confusable));
        assert!(kinds.contains(&UKind::Fullwidth));
    }

    #[test]
    fn tag_characters_decode_into_the_view() {
        let hidden: String = "hi"
            .chars()
            .map(|c| char::from_u32(0xE0000 + c as u32).unwrap())
            .collect();
        let text = format!("ok{hidden}");
        let n = normalize(&text, false);
        assert_eq!(n.view.text, "okhi");
        assert_eq!(n.events.iter().filter(|e| e.kind == UKind::Tag).count(), 2);
    }

    /// A one-word value in ``…``, `<code>`, `<kbd>`, `<samp>`, `<tt>` or (after a label's
    /// sign) `[…]` reads as a one-backtick code span of the same length; prose, links,
    /// references and fences keep their wrappers.
    #[test]
    fn wrapped_values_read_as_code_spans() {
        for (text, want) in [
            ("k: ``v1``", "k:  `v1` "),
            (
                "<code>v1</code> and <KBD>v2</KBD>",
                "     `v1`       and     `v2`     ",
            ),
            ("Password: [v1]", "Password: `v1`"),
            ("é: [v1]", "e: `v1`"),
        ] {
            let n = normalize(text, false);
            assert_eq!(n.view.text, want, "{text}");
            assert_eq!(
                n.view.text.len(),
                text.len() - usize::from(!text.is_ascii())
            );
        }
        for text in [
            "``two words``",
            "```sh",
            "<code>a b</code>",
            "see [docs]",
            "Link: [docs](https://example.com)",
            "[ref]: https://example.com",
            "Ref: [a][b]",
            "\"params\": [\"v1\"]",
            "![i](https://x.example/a.png?q=[QUERY])",
        ] {
            assert_eq!(normalize(text, false).view.text, text);
        }
    }

    #[test]
    fn view_offsets_map_back_to_the_source() {
        let src = "a\u{200B}b&#99;";
        let n = normalize(src, true);
        assert_eq!(n.view.text, "abc");
        assert_eq!(n.view.to_source(2, 3), (5, 10));
        assert_eq!(n.view.to_source(1, 2), (4, 5));
    }
}
