use super::*;
use crate::lint::{Diagnostic, Severity, check_text};

fn lint(text: &str) -> Vec<Diagnostic> {
    check_text("NOTES.md", text).expect("text lints")
}

fn of_kind<'a>(d: &'a [Diagnostic], kind: &str) -> Vec<&'a Diagnostic> {
    d.iter()
        .filter(|d| d.rule == "SEC100" && d.kind == Some(kind))
        .collect()
}

fn show(d: &[Diagnostic]) -> String {
    d.iter()
        .map(|d| format!("{}/{}/{:?}", d.rule, d.kind.unwrap_or("-"), d.severity))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn the_catalogue_holds_over_three_hundred_formats_in_several_families() {
    assert!(ENTRIES.len() >= 300, "{} entries", ENTRIES.len());
    let families: std::collections::BTreeSet<&str> = ENTRIES.iter().map(|e| e.family).collect();
    assert!(families.len() >= 10, "{families:?}");
}

#[test]
fn every_entry_fires_on_its_examples_at_its_level_and_not_on_their_placeholders() {
    let mut failures = Vec::new();
    for e in &ENTRIES {
        let want = if e.warning {
            Severity::Warning
        } else {
            Severity::Error
        };
        for (n, t) in e.examples.iter().enumerate() {
            for seed in 1..=2u64 {
                let text = expand(t, seed * 7919 + n as u64, false);
                let d = lint(&text);
                let hits = of_kind(&d, e.kind);
                if !hits.iter().any(|h| h.severity == want) {
                    failures.push(format!("[{}] missed {text:?}: {}", e.kind, show(&d)));
                }
                // The message is redacted: it never holds the random part.
                for h in &hits {
                    if text.len() > 24 && h.message.contains(&text[text.len() - 12..]) {
                        failures.push(format!(
                            "[{}] message shows the secret: {}",
                            e.kind, h.message
                        ));
                    }
                }
            }
            // The same shape holding a placeholder fires nothing of this kind. Structured
            // tokens (a JWT, base64 JSON or PEM) keep their structure when blanked: skipped.
            if ["{jwt}", "{json64}", "{pem64}"]
                .iter()
                .any(|s| t.contains(s))
            {
                continue;
            }
            let blank = expand(t, 1, true);
            let d = lint(&blank);
            if !of_kind(&d, e.kind).is_empty()
                || d.iter()
                    .any(|d| d.rule.starts_with("SEC") && d.severity == Severity::Error)
            {
                failures.push(format!(
                    "[{}] fired on the placeholder {blank:?}: {}",
                    e.kind,
                    show(&d)
                ));
            }
        }
        for t in e.negatives {
            let text = expand(t, 3, false);
            let d = lint(&text);
            if of_kind(&d, e.kind).iter().any(|h| {
                h.severity <= Severity::Warning && !e.warning || h.severity == Severity::Error
            }) {
                failures.push(format!(
                    "[{}] fired on the negative {text:?}: {}",
                    e.kind,
                    show(&d)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn references_and_placeholders_next_to_a_provider_name_are_nothing() {
    for text in [
        "DATADOG_API_KEY=${DATADOG_API_KEY}",
        "DATADOG_API_KEY=$(vault read -field=key secret/dd)",
        "datadog:\n  api_key: <your-datadog-api-key>",
        "SENTRY_AUTH_TOKEN={{ secrets.SENTRY_AUTH_TOKEN }}",
        "OKTA_API_TOKEN=00xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "HEROKU_API_KEY=01234567-89ab-cdef-0123-456789abcdef",
        "TWILIO_AUTH_TOKEN=0123456789abcdef0123456789abcdef",
        "MAILGUN_API_KEY=key-00000000000000000000000000000000",
        "JWT_SECRET=change-me-in-production-please",
    ] {
        let d = lint(text);
        assert!(
            !d.iter()
                .any(|d| d.rule.starts_with("SEC") && d.severity == Severity::Error),
            "{text:?}: {}",
            show(&d)
        );
    }
}

/// Fails when `text` gets an error from the catalogue.
fn assert_no_catalogue_error(text: &str) {
    let d = lint(text);
    assert!(
        !d.iter()
            .any(|d| d.rule == "SEC100" && d.severity == Severity::Error),
        "{text:?}: {}",
        show(&d)
    );
}

#[test]
fn identifiers_next_to_a_provider_name_are_not_credentials() {
    for text in [
        "DATADOG_SITE=datadoghq.eu",
        "SENTRY_PROJECT_ID=4505123456789012",
        "HEROKU_APP_ID=3f0a9c1e-7b2d-4e8f-a6c5-9d1b2e3f4a5b",
        "okta:\n  client_id: 0oa1b2c3d4e5f6g7h8i9",
        "MIXPANEL_PROJECT_TOKEN_URL=https://api.mixpanel.com/track",
        "The Datadog agent version 7.52.1 ships with commit 5f3e2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f.",
    ] {
        assert_no_catalogue_error(text);
    }
}

#[test]
fn gap_verdicts_follow_the_last_word_before_the_value() {
    assert_eq!(gap_verdict("_API_KEY="), Some(true));
    assert_eq!(gap_verdict(":\n  api_key: \""), Some(true));
    assert_eq!(gap_verdict("_CLIENT_SECRET="), Some(true));
    assert_eq!(gap_verdict("_CLIENT_ID="), Some(false));
    assert_eq!(gap_verdict("_ACCESS_KEY_ID="), Some(false));
    assert_eq!(gap_verdict("="), Some(true));
    assert_eq!(gap_verdict("_API"), Some(true));
    assert_eq!(gap_verdict("_OAUTH_APP_ID"), Some(false));
    assert_eq!(gap_verdict(" api docs at"), None);
    assert_eq!(
        gap_verdict(" agent version 7.52 ships with commit"),
        Some(false)
    );
    assert_eq!(gap_verdict(" is great, see"), None);
}

#[test]
fn checksums_match_their_published_test_vectors() {
    // CRC-32/IEEE check value of "123456789".
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    // BIP 173's valid and invalid bech32 strings.
    assert!(bech32_valid("A12UEL5L"));
    assert!(bech32_valid(
        "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw"
    ));
    assert!(!bech32_valid("A12UEL5M"));
    assert!(!bech32_valid(
        "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxx"
    ));
    assert_eq!(b64_decode("eyJhbGciOiJI", 64).unwrap(), br#"{"alg":"H"#);
    assert_eq!(b64_decode("e30", 64).unwrap(), b"{}");
    assert!(b64_decode("e3*", 64).is_none());
}

#[test]
fn a_valid_checksum_makes_a_low_entropy_token_a_credential_and_a_broken_one_does_not() {
    let body = "ab".repeat(15);
    let sum = String::from_utf8(base62_6(crc32(body.as_bytes())).to_vec()).unwrap();
    let valid = format!("token npm_{body}{sum}");
    assert!(
        of_kind(&lint(&valid), "npm-token")
            .iter()
            .any(|d| d.severity == Severity::Error),
        "{valid}"
    );
    let broken = format!("token npm_{body}zzzzzz");
    assert!(of_kind(&lint(&broken), "npm-token").is_empty(), "{broken}");
}

#[test]
fn structure_checks_reject_lookalikes() {
    // `glc_` followed by a run of the alphabet: base64 in shape, drawn by no one (the token's
    // JSON is not checked: Grafana's own and other scanners' tokens have any base64 body).
    let d = lint("GRAFANA_CLOUD_TOKEN=glc_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop");
    assert!(
        of_kind(&d, "grafana-cloud-token").is_empty(),
        "{}",
        show(&d)
    );
    // A kubeconfig key that does not decode to a PEM private key.
    let d = lint(
        "    client-key-data: QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk=",
    );
    assert!(
        of_kind(&d, "kubernetes-client-key").is_empty(),
        "{}",
        show(&d)
    );
}

/// A run-before gate (`[A-Za-z0-9]{42}AzSe…`) opens a window only where the literal has the
/// run before it: each such entry still fires on its examples exactly as the ungated
/// engine finds them, and a text that holds its literal by chance after a shorter run (a
/// line of random capitals and digits) compiles none of them.
#[test]
fn run_before_gates_spare_chance_literals_and_keep_every_token() {
    // A run-before gate refuses its literal at the text's start (no run before it), where a
    // word-start gate accepts it. Told apart by behaviour, not by function address: an
    // optimised build may give one function more than one address.
    let gated: Vec<usize> = PATTERNS
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            let literal = p.keywords[0].as_bytes();
            p.gate
                .is_some_and(|g| !g(&Site::new(literal), 0, literal.len()))
        })
        .map(|(i, _)| i)
        .collect();
    assert!(gated.len() >= 8, "{gated:?}");
    let mut chance = String::new();
    for i in &gated {
        let e = &ENTRIES[*i];
        for (n, t) in e.examples.iter().enumerate() {
            let text = expand(t, 31 + n as u64, false);
            let key = |d: &Diagnostic| (d.rule, d.kind, d.line, d.column, d.severity);
            let with: Vec<_> = lint(&text).iter().map(key).collect();
            let without: Vec<_> = crate::lint::engine::ungated(|| lint(&text))
                .iter()
                .map(key)
                .collect();
            assert_eq!(with, without, "[{}] {text:?}", e.kind);
            assert!(
                !of_kind(&lint(&text), e.kind).is_empty(),
                "[{}] {text:?}",
                e.kind
            );
        }
        let literal = PATTERNS[*i].keywords[0].to_ascii_uppercase();
        chance.push_str("KQ7Z3M");
        chance.push_str(&literal);
        chance.push_str("X2 ");
    }
    let searched = crate::lint::engine::searched_regexes(&chance);
    for i in &gated {
        assert!(
            !searched.contains(&PATTERNS[*i].regex),
            "{}",
            PATTERNS[*i].regex
        );
    }
}

/// The human report joins a rule's name and a finding's message on one line
/// (`error[SEC100 vendor-token]: Artifactory API key: AK…`), and the output boundary redacts
/// that line as a last resort. Neither a catalogue label nor a rule's name may read as a
/// secret there: `vendor-token]: Artifactory` once printed as `…(11 chars) API key`.
#[test]
fn labels_and_rule_names_survive_the_last_resort_redaction_of_a_report_line() {
    use crate::lint::registry::RULES;
    use crate::output::boundary::Sink;
    let shown = |line: &str| Sink::Text { color: false }.finish(line);
    let mut failures = Vec::new();
    for e in &ENTRIES {
        let line = format!(
            "STATUS.md:3:14: error[SEC100 vendor-token]: {}: AK…(73 chars)\n",
            e.label
        );
        if !shown(&line).contains(e.label) {
            failures.push(format!("label {:?}: {}", e.label, shown(&line)));
        }
    }
    for r in RULES {
        let line = format!(
            "STATUS.md:3:14: error[{} {}]: Artifactory API key: AK…(73 chars)\n",
            r.id, r.name
        );
        let head = format!("[{} {}]: Artifactory API key", r.id, r.name);
        if !shown(&line).contains(&head) {
            failures.push(format!("rule {}: {}", r.id, shown(&line)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_near_word_that_names_a_secret_needs_no_assignment_sign() {
    let d = lint("SURGE_TOKEN_ 3f9a0c1e7b2d4e8fa6c59d1b2e3f4a5b");
    assert_eq!(of_kind(&d, "surge-token").len(), 1, "{}", show(&d));
    for text in [
        "The surge_token cache entry 3f9a0c1e7b2d4e8fa6c59d1b2e3f4a5b expired.",
        "surge_token.3f9a0c1e7b2d4e8fa6c59d1b2e3f4a5b",
        "couchbase:\n  api_key_secret: next",
    ] {
        assert_no_catalogue_error(text);
    }
}

/// A provider's word is read as a reader reads it: a word of its own, or one word of an
/// identifier (`MY_BOX_…`, `datadogApiKey`), or run together with a credential's word or a
/// product's suffix (`sendgridapikey`, `ZHIPUAI_…`); never the inside of another word
/// (`mailbox`, `sandbox`, `drones`, `nonlinear`).
#[test]
fn a_provider_word_inside_another_word_names_no_provider() {
    for (text, start, end, stands) in [
        ("mailbox_key", 4, 7, false),
        ("SANDBOX_SECRET", 4, 7, false),
        ("DRONES_API_KEY", 0, 5, false),
        ("nonlinear_secret", 3, 9, false),
        ("BOX_CLIENT_SECRET", 0, 3, true),
        ("myDatadogKey", 2, 9, true),
        ("datadogApiKey", 0, 7, true),
        ("sendgridapikey", 0, 8, true),
        ("ZHIPUAI_API_KEY", 0, 5, true),
        ("-Dsonar_login", 2, 13, true),
        ("the drone token", 4, 9, true),
    ] {
        assert_eq!(
            stands_as_word(text.as_bytes(), start, end),
            stands,
            "{text}: {}",
            &text[start..end]
        );
    }
    let key = "Qx7vLm29TrKp4Wz8Nf2Hs6JdYb3Rc5Ga";
    for text in [
        format!("SANDBOX_SECRET={key}"),
        format!("mailbox_key: \"{key}\""),
        format!("DRONES_API_KEY={key}"),
    ] {
        let d = lint(&text);
        assert!(
            of_kind(&d, "box-secret").is_empty() && of_kind(&d, "drone-token").is_empty(),
            "{text}: {}",
            show(&d)
        );
    }
}

/// A provider's name hands its value over by the signs code writes between them: make's
/// `:::=`, a fallback's `||`, an element's `>` (spaced too), a tuple's `,`. A comma written
/// straight after the word is prose punctuation, not a tuple.
#[test]
fn a_provider_name_hands_its_value_over_by_any_assignment_sign() {
    let v = "q7wz3kd9xv2mf8hr4tn6bc1jyp";
    for text in [
        format!("mattermost :::= {v}"),
        format!("mattermost || {v}"),
        format!("process.env.MATTERMOST || '{v}'"),
        format!("mattermost > {v}"),
        format!("(\"mattermost\", \"{v}\")"),
        format!("mattermost , {v}"),
        format!("mattermost ?={v}"),
        format!("mattermost ||{v}"),
    ] {
        let d = lint(&text);
        assert!(
            of_kind(&d, "mattermost-token")
                .iter()
                .any(|h| h.severity == Severity::Error),
            "{text}: {}",
            show(&d)
        );
    }
    for text in [
        format!("We post release notes to mattermost, {v} is the channel."),
        "Settings > Mattermost > Integrations".to_string(),
        "mattermost || fallbackchannelnamehere".to_string(),
        "mattermost , xxxxxxxxxxxxxxxxxxxxxxxxxx".to_string(),
        "(\"mattermost\", \"abcdefghijklmnopqrstuvwxyz\")".to_string(),
    ] {
        assert_no_catalogue_error(&text);
    }
}
