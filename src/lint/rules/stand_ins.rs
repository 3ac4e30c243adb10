//! Values that have the shape of a credential and are not one, judged by kind: a vendor's
//! published example (AWS's documentation key, the jwt.io sample token, a card processor's test
//! numbers), a key block whose body was cut out, and stand-ins an assignment holds in
//! documentation (a regular expression, the variable's own name written in camelCase, base64 of
//! a placeholder word, a short value introduced by "e.g."). Kept apart from the detectors so
//! each detector asks one question.

use super::encoded::decode_base64;
use super::secrets::name_parts;
use super::{Placeholder, placeholder};

/// What a credential-shaped value turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StandIn {
    /// Holds nothing secret: no finding.
    Placeholder(&'static str),
    /// A value a vendor publishes for documentation or testing: a warning at most.
    Published(&'static str),
}

/// The jwt.io debugger's sample token and the tokens documentation derives from it: a payload
/// whose subject is jwt.io's `"1234567890"` and whose issue time, if any, is the sample's
/// `1516239022`, with no expiry. A minted token carries its own subject and times.
pub(crate) fn sample_jwt(token: &str) -> bool {
    let Some(payload) = token.split('.').nth(1) else {
        return false;
    };
    let Some(json) = decode_base64(payload).and_then(|b| String::from_utf8(b).ok()) else {
        return false;
    };
    let json: String = json.chars().filter(|c| !c.is_whitespace()).collect();
    json.contains("\"sub\":\"1234567890\"")
        && (!json.contains("\"iat\":") || json.contains("\"iat\":1516239022"))
        && !json.contains("\"exp\":")
}

/// A token whose body was made up, not drawn: a dummy run (`1234567890abcdef`,
/// `ABCDEFGHIJ`) that is not a stretch masked inside a real token, or words written between
/// separators making up half the token (`…BEEP_BOOP_BUZZ_WHIRR_CLICK…`). A drawn body of
/// that length holds neither.
pub(crate) fn made_up_body(token: &str) -> bool {
    if super::dummy_run(token) {
        return true;
    }
    let mut words = 0usize;
    let mut covered = 0usize;
    for part in token.split(['_', '-']) {
        let letters = part.bytes().all(|c| c.is_ascii_alphabetic());
        let one_case = part.bytes().all(|c| c.is_ascii_uppercase())
            || part.bytes().all(|c| c.is_ascii_lowercase());
        if letters && one_case && (3..=12).contains(&part.len()) {
            words += 1;
            covered += part.len();
        }
    }
    words >= 4 && covered * 2 >= token.len()
}

/// A JWT shown without its signature (`eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...`, a header and
/// a payload cut short): documentation showing a token's shape. What shows is a header every
/// token of that algorithm shares and at most claims; a server accepts such a token only
/// signed. A header of algorithm `none` declares a token complete without one.
pub(crate) fn unsigned_jwt(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    let signed = parts.len() >= 3 && parts[2].len() >= 16;
    if signed || !v.starts_with("eyJ") {
        return false;
    }
    decode_base64(parts[0])
        .and_then(|b| String::from_utf8(b).ok())
        .is_some_and(|header| {
            let header: String = header.chars().filter(|c| !c.is_whitespace()).collect();
            header.contains("\"alg\":") && !header.to_ascii_lowercase().contains("\"alg\":\"none\"")
        })
}

/// Card numbers processors publish for their test modes that no shape rule below catches
/// (Stripe's, Braintree's and Adyen's documented lists).
const PUBLISHED_TEST_CARDS: &[&str] = &[
    "378282246310005",
    "371449635398431",
    "4000056655665556",
    "2223003122003222",
    "5200828282828210",
    "6011000990139424",
    "3056930009020004",
    "36227206271667",
    "3566002020360505",
    "6205500000000000004",
    "4005519200000004",
    "4009348888881881",
    "4012000033330026",
    "4217651111111119",
    "4500600000000061",
    "2223000048400011",
];

/// A card number of the kind processors publish for testing: a documented one, or one whose
/// digits after the issuer prefix are mostly one repeated digit (`4000 0000 0000 9995`,
/// `4111 1111 1111 1111`) or one short group written out again and again (`4242…`,
/// `5105 1051 0510 5100`). An issued number is drawn with no such run.
pub(crate) fn test_card(digits: &str) -> bool {
    if PUBLISHED_TEST_CARDS.contains(&digits) {
        return true;
    }
    let b = digits.as_bytes();
    let longest_run = b
        .chunk_by(|x, y| x == y)
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    // A period of one to three digits covering all but the last two digits.
    let body = &b[..b.len().saturating_sub(2)];
    let repeating = (2..=3)
        .any(|p| body.len() >= 4 * p && body.iter().enumerate().all(|(i, c)| *c == body[i % p]));
    longest_run >= 7 || repeating
}

/// The text after a private-key header shows no key material: the body was cut out
/// (`...`, `[...]`, `<snip>`, `MIIE...`) before the footer or the end of the excerpt. At most
/// sixteen base64 characters may show, the standard opening of any key's encoding.
pub(crate) fn elided_key_body(after: &str) -> bool {
    let mut elided = false;
    let mut shown = 0;
    // The body may be written with escaped line breaks on one line (`…KEY-----\nMIIE...\n`).
    for line in after
        .lines()
        .flat_map(|l| l.split("\\n"))
        .map(|l| l.trim().trim_matches(['"', '\'', '`', ',']))
        .take(12)
    {
        if line.starts_with("-----END") || line.is_empty() && elided {
            break;
        }
        if line.is_empty() {
            continue;
        }
        let lower = line.to_ascii_lowercase();
        let marker = [
            "...",
            "…",
            "<snip",
            "[snip",
            "snip>",
            "(snip",
            "[...]",
            "<...>",
            "truncated",
        ]
        .iter()
        .any(|m| lower.contains(m));
        if !marker {
            // A line of key material, or prose: either way not an elided body.
            return false;
        }
        elided = true;
        shown += line
            .bytes()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
            .count();
        if line.contains("truncated") || line.contains("snip") {
            shown = shown.saturating_sub(9);
        }
    }
    elided && shown <= 16
}

/// A stand-in held by an assignment (`name = value`, `name: value`), or `None` when the value
/// may be a credential. `before` is the text of the line before the value.
pub(crate) fn assigned_stand_in(name: &str, before: &str, v: &str) -> Option<StandIn> {
    if regular_expression(v) {
        return Some(StandIn::Placeholder("a regular expression"));
    }
    if echoes_its_name(name, v) {
        return Some(StandIn::Placeholder("the variable's own name"));
    }
    if base64_placeholder(v) {
        return Some(StandIn::Placeholder("base64 of a placeholder word"));
    }
    if sample_jwt(v) {
        return Some(StandIn::Published("the jwt.io sample token"));
    }
    if introduced_as_example(before) && v.len() < 24 {
        return Some(StandIn::Placeholder("an illustrative value"));
    }
    None
}

/// A detector's pattern, not a value: a bracketed character class followed by a quantifier
/// (`[A-Za-z0-9]{40}`, `[^\s]+`) or two or more escapes of a class (`\d`, `\w`, `\s`).
fn regular_expression(v: &str) -> bool {
    let b = v.as_bytes();
    let quantified_class = b.iter().enumerate().any(|(i, c)| {
        *c == b']'
            && v[..i].contains('[')
            && b.get(i + 1)
                .is_some_and(|n| matches!(n, b'{' | b'+' | b'*' | b'?'))
    });
    let escapes = ["\\d", "\\w", "\\s", "\\b", "\\S", "\\W", "\\D"]
        .iter()
        .map(|e| v.matches(e).count())
        .sum::<usize>();
    quantified_class || escapes >= 2
}

/// `JWT_ACCESS_SECRET=accessSecret`, `redis_password: redisPassword`: the value is two or more
/// words of the variable's own name (in any case style), which a template writes where the
/// secret goes.
fn echoes_its_name(name: &str, v: &str) -> bool {
    if v.len() < 4
        || !v
            .bytes()
            .all(|c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'-'))
    {
        return false;
    }
    let name_words = name_parts(name);
    let value_words = name_parts(v);
    // Two words or more: one word alone is judged as any value is (`password: password`,
    // `db_password=database`).
    value_words.len() >= 2 && value_words.iter().all(|w| name_words.contains(w))
}

/// `cGFzc3dvcmQ=` (Kubernetes Secrets are base64): a short base64 value whose decoded text is a
/// placeholder judged as the value itself would be.
pub(crate) fn base64_placeholder(v: &str) -> bool {
    if !(4..=44).contains(&v.len())
        || !v.len().is_multiple_of(4)
        || !v
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
    {
        return false;
    }
    let Some(decoded) = decode_base64(v).and_then(|b| String::from_utf8(b).ok()) else {
        return false;
    };
    !decoded.is_empty()
        && decoded.chars().all(|c| c.is_ascii_graphic() || c == ' ')
        && placeholder(&decoded) != Placeholder::No
}

/// The text before a value introduces it as an illustration: "e.g.", "for example", "such
/// as", "like", with at most an opening bracket or quote between.
pub(crate) fn introduced_as_example(before: &str) -> bool {
    let lower = before.to_ascii_lowercase();
    let t = lower.trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '(' | ':' | ',')
    });
    [
        "e.g.",
        "e.g",
        "eg.",
        "for example",
        "for instance",
        "such as",
        "like",
    ]
    .iter()
    .any(|lead| {
        t.ends_with(lead)
            && t[..t.len() - lead.len()]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_ascii_alphanumeric())
    })
}

/// Prefixes of token formats whose random part is at least twenty characters (GitHub's,
/// npm's, GitLab's, `PyPI`'s, Stripe's, Slack's, Hugging Face's, `OpenAI`'s, Anthropic's).
const LONG_TOKEN_PREFIXES: &[&str] = &[
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "npm_",
    "glpat-",
    "pypi-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "rk_test_",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "hf_",
    "sk-proj-",
    "sk-ant-",
];

/// The head of a token as a service displays it (`ghp_AbCdEfGhIj…`, the first ten characters
/// after the prefix): a known prefix and fewer than sixteen characters after it, where the
/// format's random part is at least twenty. No service accepts it; the format's own rule
/// judges longer pieces (SEC020 reads `ghp_` and sixteen or more as a partial token).
pub(crate) fn token_head(v: &str) -> bool {
    let v = v.trim_end_matches(['…', '.']);
    LONG_TOKEN_PREFIXES.iter().any(|p| {
        v.len() > p.len()
            && v.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes())
            && v.len() - p.len() < 16
            && v[p.len()..]
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_jwt_io_sample_is_recognised_by_its_claims() {
        let sample = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
        assert!(sample_jwt(sample));
        // {"sub":"1234567890"} alone, signed with some other key.
        assert!(sample_jwt(
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.x"
        ));
        // {"sub":"42","role":"admin","exp":1822729379}: a minted token.
        assert!(!sample_jwt(
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiIsInJvbGUiOiJhZG1pbiIsImV4cCI6MTgyMjcyOTM3OX0.x"
        ));
        // {"sub":"1234567890","exp":1822729379}: the sample subject with a real expiry.
        assert!(!sample_jwt(
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwiZXhwIjoxODIyNzI5Mzc5fQ.x"
        ));
    }

    #[test]
    fn a_made_up_body_is_a_run_or_words() {
        for made_up in [
            "ghp_1234567890abcdef1234567890abcdef1234",
            "AIzaSyA1234567890abcdefGHIJKLMNOPQRSTUV123",
            "sk-ant-api03-Q7xW_TICK_TOCK_RING_BELL_HUSH_WAIT_SNOW_RAIN_WIND_FOGS_MIST_HAZE_DUSK9dAA",
        ] {
            assert!(made_up_body(made_up), "{made_up}");
        }
        for drawn in [
            "ghp_R7mK2qXv9LpT4wZs8NcY3bHf6JdQ1uEa5oGi",
            "AIzaSyD8kQ2xV7mN4pR9tL1wZ6cH3jB5fG0sUeY",
            "sk-ant-api03-Xk29fQvL0pB7sN2mR4tW8yZ1cE6hJ3uA_d5Gq9Ht-Lw2Vz7Kc4Nb8Mx1Pf6Rj3Sd0Tg5Yh2Ul9Oa",
        ] {
            assert!(!made_up_body(drawn), "{drawn}");
        }
    }

    #[test]
    fn a_jwt_without_its_signature_shows_only_its_shape() {
        // {"alg":"HS256","typ":"JWT"} alone, and with a payload cut short.
        assert!(unsigned_jwt("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"));
        assert!(unsigned_jwt(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0Mi"
        ));
        // Signed: a token, whatever its claims.
        assert!(!unsigned_jwt(
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWc"
        ));
        // Not a JWT header at all.
        assert!(!unsigned_jwt("eyJ1c2VyIjoiYm9iIn0"));
        // {"alg":"none"}: complete without a signature.
        assert!(!unsigned_jwt("eyJhbGciOiJub25lIn0.eyJzdWIiOiI0MiJ9."));
    }

    #[test]
    fn test_cards_by_shape_and_by_list() {
        for card in [
            "4000000000009995",
            "4000000000000002",
            "4111111111111111",
            "4242424242424242",
            "5105105105105100",
            "378282246310005",
            "6011000990139424",
        ] {
            assert!(test_card(card), "{card}");
        }
        for card in ["4539148803436467", "5425233430109903", "374245455400126"] {
            assert!(!test_card(card), "{card}");
        }
    }

    #[test]
    fn an_elided_key_body_shows_no_material() {
        for after in [
            "\n...\n...\n-----END OPENSSH PRIVATE KEY-----",
            "\n      [...]\n",
            "\\nMIIE...\\n-----END RSA PRIVATE KEY-----",
            "\n<snip>\n-----END PRIVATE KEY-----",
        ] {
            assert!(elided_key_body(after), "{after:?}");
        }
        for after in [
            "\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n...",
            "\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun...\n",
            "\n-----END RSA PRIVATE KEY-----",
            "",
        ] {
            assert!(!elided_key_body(after), "{after:?}");
        }
    }

    #[test]
    fn assignment_stand_ins() {
        let cases = [
            ("token", "", "[^A-Za-z0-9+\\/]{0,1}([A-Za-z0-9+\\/]{40})"),
            ("pattern_secret", "", "\\b\\w{8}-\\d{4}\\b"),
            ("JWT_ACCESS_SECRET", "", "accessSecret"),
            ("refresh_token_secret", "", "refreshTokenSecret"),
            ("password", "", "cGFzc3dvcmQ="),
            ("db_password", "", "Y2hhbmdlbWU="),
            ("OPENAI_API_KEY", "your key (e.g. \"", "sk-8812QWER55x"),
            ("api_key", "for example ", "Ab12Cd34Ef"),
        ];
        for (name, before, v) in cases {
            assert!(
                matches!(
                    assigned_stand_in(name, before, v),
                    Some(StandIn::Placeholder(_))
                ),
                "{name}={v}"
            );
        }
        let kept = [
            ("token", "", "Zr8qLm2Vx9Tb4Kp7Wn3Hs6Fd1Yc5Jg0Qa8Ue2Ro"),
            ("db_password", "", "database"),
            ("JWT_SECRET", "", "accessSecretKq82Lm"),
            // base64 of a random string, not of a word.
            ("password", "", "a3E4MiNMbVp2IXQ="),
            // A long value after "e.g." is judged like any other.
            ("api_key", "e.g. ", "Zr8qLm2Vx9Tb4Kp7Wn3Hs6Fd1Yc5Jg0"),
            ("api_key", "seeing ", "Ab12Cd34Ef"),
        ];
        for (name, before, v) in kept {
            assert_eq!(assigned_stand_in(name, before, v), None, "{name}={v}");
        }
    }

    fn worst(rule: &str, text: &str) -> Option<crate::lint::Severity> {
        use crate::lint::Severity;
        let d = crate::lint::check_text("x/docs/setup.md", text).unwrap();
        let mut found: Vec<Severity> = d
            .iter()
            .filter(|d| d.rule == rule)
            .map(|d| d.severity)
            .collect();
        found.sort_by_key(|s| *s != Severity::Error);
        found.first().copied()
    }

    #[test]
    fn published_examples_warn_and_stand_ins_pass_through_the_linter() {
        use crate::lint::Severity::{Error, Warning};
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
        let cases: Vec<(&str, String, Option<crate::lint::Severity>)> = vec![
            (
                "SEC010",
                format!("The id looks like `AKIA{}`.", "IOSFODNN7EXAMPLE"),
                Some(Warning),
            ),
            (
                "SEC090",
                format!("Paste a token such as\n\n    {jwt}\n"),
                Some(Warning),
            ),
            (
                "PII003",
                "Try the decline card `4000 0000 0000 0002`.".into(),
                Some(Warning),
            ),
            (
                "PII003",
                "Card 5105 1051 0510 5100 is prepaid in test mode.".into(),
                Some(Warning),
            ),
            (
                "PII003",
                "Refund card 4539 1488 0343 6467 today.".into(),
                Some(Error),
            ),
            (
                "SEC001",
                format!(
                    "deployKey: |\n  -----BEGIN OPENSSH {}-----\n  [...]\n",
                    "PRIVATE KEY"
                ),
                Some(Warning),
            ),
            (
                "SEC001",
                format!(
                    "-----BEGIN OPENSSH {}-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n",
                    "PRIVATE KEY"
                ),
                Some(Error),
            ),
            (
                "SEC120",
                "    session_secret: str = \"change-me\"".into(),
                Some(Warning),
            ),
            (
                "SEC120",
                "SESSION_COOKIE_SECRET=sessionCookieSecret".into(),
                None,
            ),
            ("SEC100", "JWT_ACCESS_SECRET=accessSecret".into(), None),
            (
                "SEC120",
                "data:\n  username: dXNlcg==\n  password: cGFzc3dvcmQ=\n".into(),
                None,
            ),
            ("SEC120", "  api_password: Y2hhbmdlbWU=".into(), None),
            (
                "SEC120",
                "  api_password: a3E4MiNMbVp2IXQ=".into(),
                Some(Error),
            ),
            (
                "SEC051",
                format!(
                    "url = \"https://hooks.{}/services/T00DEMO0/B00DEMO0/demoplaceholder\"",
                    "slack.com"
                ),
                None,
            ),
            (
                "SEC051",
                format!(
                    "url = \"https://{}/api/webhooks/123456789012345678/{}\"",
                    "discord.com",
                    "Kq8vZr2LmT9xWb4NpY7cHs3Fd6Jg1Ua5Qe0Ro8Vt2Xk7Lm4Zp9Cw3Bn6Hy1Gs5Df"
                ),
                Some(Error),
            ),
            (
                "SEC042",
                "Set OPENAI_API_KEY (e.g. \"sk-8812QWER55x0091\") first.".into(),
                None,
            ),
            (
                "SEC120",
                "  secret: '[^A-Za-z0-9+\\/]{0,1}([A-Za-z0-9+\\/]{40})[^A-Za-z0-9+\\/]{0,1}'"
                    .into(),
                None,
            ),
        ];
        for (rule, text, want) in cases {
            assert_eq!(worst(rule, &text), want, "{rule} on {text}");
        }
    }
}
