//! Property tests for the linter: no input makes it panic, and hiding characters inside a
//! positive never hides it — zero-width, tag and homoglyph insertions still yield an
//! error-level finding, and (except for tag characters that decode to letters) the original
//! rule family still fires, matched on the normalised text.

use git_aahp::lint::registry::{Family, RULES, expand_template};
use git_aahp::lint::{Severity, check_text};
use proptest::prelude::*;

/// Every documented positive example that is error-level on its own.
fn positives() -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for r in RULES {
        if !matches!(
            r.family,
            Family::Pi | Family::Sec | Family::Pii | Family::Exf | Family::Enc
        ) {
            continue;
        }
        for (k, h) in r.hits.iter().enumerate() {
            let text = expand_template(h, k as u64 + 1);
            let d = check_text("p/NOTES.md", &text).expect("valid UTF-8 text always lints");
            if d.iter()
                .any(|d| d.rule.starts_with(r.family.prefix()) && d.severity == Severity::Error)
            {
                out.push((text, r.family.prefix()));
            }
        }
    }
    assert!(out.len() >= 40, "too few positives: {}", out.len());
    out
}

/// Latin letters with a Cyrillic or Greek look-alike.
fn homoglyph(c: char) -> Option<char> {
    Some(match c {
        'a' => 'а',
        'e' => 'е',
        'o' => 'о',
        'p' => 'р',
        'c' => 'с',
        'x' => 'х',
        'i' => 'і',
        'A' => 'А',
        'E' => 'Е',
        'O' => 'О',
        'I' => 'І',
        'T' => 'Τ',
        _ => return None,
    })
}

#[derive(Debug, Clone, Copy)]
enum Evasion {
    ZeroWidth(char),
    Tag(u32),
    Homoglyph,
}

fn evasion() -> impl Strategy<Value = Evasion> {
    prop_oneof![
        prop::sample::select(vec![
            '\u{200B}', '\u{200C}', '\u{2060}', '\u{FEFF}', '\u{200D}'
        ])
        .prop_map(Evasion::ZeroWidth),
        (0xE0000u32..=0xE007F).prop_map(Evasion::Tag),
        Just(Evasion::Homoglyph),
    ]
}

fn apply(text: &str, e: Evasion, at: usize) -> (String, bool) {
    let chars: Vec<char> = text.chars().collect();
    let pos = at % (chars.len() + 1);
    let mut out: Vec<char> = chars.clone();
    let keeps_family = match e {
        Evasion::ZeroWidth(c) => {
            out.insert(pos, c);
            true
        }
        Evasion::Tag(cp) => {
            out.insert(
                pos,
                char::from_u32(cp).expect("the inserted code points are scalar values"),
            );
            // Printable tag characters decode into the text a model reads (HID003 reports them).
            !(0xE0020..=0xE007E).contains(&cp)
        }
        Evasion::Homoglyph => {
            let candidates: Vec<usize> = (0..chars.len())
                .filter(|i| homoglyph(chars[*i]).is_some())
                .collect();
            if let Some(i) = candidates.get(pos % candidates.len().max(1)) {
                out[*i] = homoglyph(chars[*i]).expect("only letters with a homoglyph are chosen");
            }
            true
        }
    };
    (out.into_iter().collect(), keeps_family)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn hidden_characters_never_hide_a_positive(idx in any::<usize>(), e in evasion(), at in any::<usize>()) {
        let ps = positives();
        let (text, family) = &ps[idx % ps.len()];
        let (evaded, keeps_family) = apply(text, e, at);
        let d = check_text("p/NOTES.md", &evaded).unwrap();
        prop_assert!(d.iter().any(|d| d.severity == Severity::Error), "{evaded:?} → {d:?}");
        if keeps_family {
            prop_assert!(
                d.iter().any(|d| d.rule.starts_with(family) && d.severity == Severity::Error),
                "{family} lost on {evaded:?} → {:?}", d.iter().map(|d| d.rule).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn no_input_makes_the_linter_panic(s in "\\PC{0,400}", name in prop::sample::select(vec!["x/A.md", "x/B.json", "x/C.txt", "x/D.yaml"])) {
        let _ = check_text(name, &s);
    }

    #[test]
    fn no_markdown_or_json_shape_makes_the_linter_panic(parts in prop::collection::vec(prop::sample::select(vec![
        "<!--", "-->", "`", "```", "![", "](", "[", "]: ", "\"", "\\u200b", "\\", "{", "}", ":", "&#", ";", "%2", "\u{200B}", "\u{E0041}", "\u{202E}", "é", "\n", " ", "ignore all previous instructions", "ghp_", "sk-", "=", "@", "x",
    ]), 0..60)) {
        let s: String = parts.concat();
        let _ = check_text("x/A.md", &s);
        let _ = check_text("x/B.json", &s);
    }
}
