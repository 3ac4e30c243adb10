//! The output boundary (issue #11): planted secrets never reach any command's output in
//! full, and names, lock fields and content carrying CI workflow commands or terminal
//! escapes never reach it raw. The secrets are fake and built at run time, so the
//! repository itself holds nothing a secret scanner would flag.

use crate::support::{CmdOutput, TestRepo};
use crate::verify::handoff_repo;

/// Fake credentials of six kinds, each as the pieces that must never appear in output.
pub(crate) struct Secrets {
    pub aws_id: String,
    pub aws_secret: String,
    pub github: String,
    pub stripe: String,
    pub slack: String,
    pub key_body: String,
    pub url_password: String,
}

impl Secrets {
    pub(crate) fn new() -> Secrets {
        Secrets {
            aws_id: format!("AK{}{}", "IA", "UJZDEGXDNCF32EPF"),
            aws_secret: format!("2hpC{}{}", "x7Lq9Vb3Nk8Rt5Wm2Yz6Pd", "4Fg1Hs0Jr8Qe5R5Kj"),
            github: format!("gh{}_{}", "p", "hGAk4wT9zQ2mX7cV1bN8sD3fJ6kL0pR5uY2e"),
            stripe: format!("sk_{}_{}", "live", "51Hx9Tq2Lm4Vz8Kc3Pn7Rb6Yw"),
            slack: format!(
                "xox{}-{}",
                "b", "1234567890123-4567890123456-Zx8Cv7Bn6Mq5Wl4Kj3Hg2Fd1"
            ),
            key_body: format!(
                "MIIEow{}",
                "IBAAKCAQEAq8iS2G8NPRVdD53ZxT4mLk9Wv2Bn7Yc1Hr6Pq3Js0Fd8"
            ),
            url_password: format!("Zq8i{}", "S2G8NPRVdD53"),
        }
    }

    /// Handoff text holding every secret.
    pub(crate) fn text(&self) -> String {
        format!(
            "AWS_ACCESS_KEY_ID={}\naws_secret_access_key={}\nThe CI token is {} and billing uses {}.\nslack: {}\n\n-----BEGIN {k}-----\n{}\n-----END {k}-----\n\nDeploy via https://deploy:{}@db.example.com/app\n",
            self.aws_id,
            self.aws_secret,
            self.github,
            self.stripe,
            self.slack,
            self.key_body,
            self.url_password,
            k = "RSA PRIVATE KEY",
        )
    }

    fn all(&self) -> [&str; 7] {
        [
            &self.aws_id,
            &self.aws_secret,
            &self.github,
            &self.stripe,
            &self.slack,
            &self.key_body,
            &self.url_password,
        ]
    }

    /// Fails when any secret appears in full in stdout or stderr.
    #[track_caller]
    pub(crate) fn assert_absent(&self, what: &str, out: &CmdOutput) {
        for s in self.all() {
            assert!(
                !out.stdout.contains(s) && !out.stderr.contains(s),
                "{what}: a secret reached the output in full ({}…)\n{out}",
                &s[..6]
            );
        }
    }
}

/// Fails when output holds a raw control character (other than newline and tab), a line
/// that starts with `::` or a `##[` anywhere.
#[track_caller]
pub(crate) fn assert_inert(what: &str, out: &CmdOutput) {
    for (stream, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "{what}: raw control character on {stream}\n{text:?}"
        );
        assert!(!text.contains("##["), "{what}: `##[` on {stream}\n{text}");
        for line in text.lines() {
            assert!(
                !line.trim_start().starts_with("::"),
                "{what}: a line on {stream} starts with `::`: {line}"
            );
        }
    }
}

/// Hostile content: workflow commands at line starts and in lines, ESC, OSC 52, BEL, C1.
pub(crate) const HOSTILE: &str = "ok\n::error file=app.js,line=1::PWNED\n  ::add-mask::x\nsee ##[group]x\n\x1b[2J\x1b]52;c;aGk=\x07 \u{9b}31m end\n::stop-commands::tok\n";

/// A committed handoff whose STATUS summary and next action carry every secret and the
/// hostile sequences.
fn planted_repo(s: &Secrets) -> TestRepo {
    let repo = handoff_repo();
    repo.write(
        ".ai/handoff/STATUS.md",
        format!(
            "# Status\n\n<!-- SECTION: summary -->\n{}\n{HOSTILE}\n<!-- /SECTION: summary -->\n",
            s.text()
        ),
    );
    repo.write(
        ".ai/handoff/NEXT_ACTIONS.md",
        format!(
            "# Next actions\n\n## T-001: rotate {} and {}\n\n{}\n",
            s.stripe, s.aws_id, HOSTILE
        ),
    );
    repo
}

#[test]
fn context_never_shows_a_secret_or_a_raw_control_sequence() {
    let s = Secrets::new();
    let repo = planted_repo(&s);
    for level in ["minimal", "medium", "full"] {
        for format in ["md", "json"] {
            let out = repo.aahp(&["context", "--level", level, "--format", format]);
            out.assert_code(0);
            s.assert_absent(&format!("context {level} {format}"), &out);
            assert_inert(&format!("context {level} {format}"), &out);
        }
    }
    let out = repo.aahp(&["context", "--for", "first", "--budget", "1000000", "--json"]);
    out.assert_code(0);
    s.assert_absent("context --for first", &out);
    assert_inert("context --for first", &out);
    // Still readable as data: the redacted form is there, and the JSON values hold no raw
    // control characters either.
    assert!(out.stdout.contains("(20 chars)"), "{out}");
    let json = out.json();
    for part in json["parts"].as_array().unwrap() {
        let text = part["text"].as_str().unwrap();
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "{text:?}"
        );
    }
}
