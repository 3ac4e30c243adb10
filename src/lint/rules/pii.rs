//! PII: email addresses (each judged on its own, as the reference does since T-029), US social
//! security numbers, payment cards, phone numbers and IBANs. Numbers are found by one pass over
//! digit runs, not by a regex per rule.

use super::super::Severity;
use super::super::engine::{Caps, Finding, Pattern, Scan, Site};
use super::super::registry::{PII001, PII002, PII003, PII004, PII005};

pub(crate) static PATTERNS: &[Pattern] = &[Pattern {
    rule: &PII001,
    keywords: &["@"],
    regex: r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b",
    before: 64,
    after: 120,
    check: check_email,
    overlap: false,
    gate: Some(email_gate),
    near: &[],
}];

/// An `@` inside an address: a local-part character before it, a domain character after.
fn email_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    let local = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'%' | b'+' | b'-');
    start > 0 && local(b[start - 1]) && b.get(end).is_some_and(u8::is_ascii_alphanumeric)
}

/// Domains reserved for documentation and testing (RFC 2606, RFC 6761).
const RESERVED: &[&str] = &["example.com", "example.org", "example.net", "example.edu"];
/// Reserved top-level domains that never hold a mailbox. `.test` is deliberately absent: the
/// reference linter's own suite expects `intruder@external.test` to be reported.
const RESERVED_TLDS: &[&str] = &["example", "invalid", "localhost"];

/// Returns why an address is not personal data, or `None` when it is.
pub(crate) fn email_exemption(email: &str) -> Option<&'static str> {
    let lower = email.to_ascii_lowercase();
    let (local, domain) = lower.rsplit_once('@')?;
    let tld = domain.rsplit('.').next().unwrap_or("");
    if local == "noreply"
        || local == "no-reply"
        || local.starts_with("noreply+")
        || domain.contains(".noreply.")
        || domain.starts_with("noreply.")
        || domain.contains("users.noreply.")
    {
        return Some("noreply address");
    }
    if RESERVED
        .iter()
        .any(|r| domain == *r || domain.ends_with(&format!(".{r}")))
        || RESERVED_TLDS.contains(&tld)
    {
        return Some("reserved domain");
    }
    if lower.contains("placeholder") {
        return Some("placeholder");
    }
    if matches!(
        local,
        "user"
            | "username"
            | "name"
            | "you"
            | "your.name"
            | "yourname"
            | "your-name"
            | "firstname.lastname"
            | "first.last"
            | "someone"
            | "somebody"
            | "foo"
            | "bar"
            | "email"
            | "me"
            | "x"
            | "xxx"
            | "your-email"
            | "youremail"
            | "your_email"
    ) || domain
        .split('.')
        .any(|label| label.starts_with("your") && label.len() > 4)
        || domain.starts_with("domain.")
        || domain == "company.com"
        || domain == "email.com"
        || domain == "host.com"
    {
        return Some("placeholder");
    }
    None
}

fn check_email(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (s, e) = caps.whole();
    let email = &text[s..e];
    // `git@github.com:org/repo` is an SSH remote, `user:pass@host` a URL (SEC130).
    if text[e..].starts_with(':') && !text[e..].starts_with(": ")
        || text[..s].ends_with("://")
        || text[..s].ends_with(':')
    {
        return;
    }
    if email.starts_with('@') || email.contains("..") {
        return;
    }
    // `$PGPASSWORD@db.internal`, `%USERNAME%@host`: a variable's value before a host (a
    // connection target or a URL's userinfo), not a mailbox.
    if text[..s].ends_with('$')
        || email.starts_with('%')
            && email[1..]
                .split('@')
                .next()
                .is_some_and(|l| l.ends_with('%'))
    {
        return;
    }
    if email_exemption(email).is_some() || role_address(email) || login_target(text, s) {
        return;
    }
    let line_start = text[..s].rfind('\n').map_or(0, |i| i + 1);
    let contact = contact_sentence(&text[line_start..s]);
    let mut f = Finding::new(
        &PII001,
        s,
        e,
        format!("email address {email} (not in pii-allowlist.json)"),
    );
    f.kind = Some("email");
    if contact {
        // Published for people to write to: public by purpose, still worth a look.
        f = f.severity(Severity::Warning);
        f.message = format!("email address {email} published as a contact address");
    } else if identity(&text[line_start..s], &text[e..]) {
        // A commit's or a changelog's identity (`Signed-off-by: Jane Doe <jane@…>`, an
        // `AUTHORS` line): published with the history it signs, still worth a look.
        f = f.severity(Severity::Warning);
        f.message = format!("email address {email} in a name <address> identity");
    }
    out.push(f);
}

/// An address in angle brackets after a person's name, as Git writes an author and its
/// trailers (`Co-authored-by: Jane Doe <…>`) and changelogs and `AUTHORS` files copy it: one
/// to four words just before `<`, each a capitalised name or a name's particle (`van`, `de`).
fn identity(before: &str, after: &str) -> bool {
    let Some(head) = before.strip_suffix('<') else {
        return false;
    };
    if !after.starts_with('>') {
        return false;
    }
    let name_word = |w: &str| {
        w.starts_with(char::is_uppercase)
            && w.chars()
                .all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '.'))
    };
    let particle = |w: &str| {
        matches!(
            w,
            "van" | "von" | "de" | "der" | "den" | "da" | "di" | "du" | "le" | "la" | "del" | "dos"
        )
    };
    let words: Vec<&str> = head
        .split_whitespace()
        .rev()
        .take_while(|w| name_word(w) || particle(w))
        .collect();
    (1..=4).contains(&words.len()) && words.iter().any(|w| name_word(w))
}

/// Local parts that name a function, not a person (RFC 2142 and the usual project mailboxes).
const ROLE_MAILBOXES: &[&str] = &[
    "abuse",
    "admin",
    "billing",
    "bugs",
    "careers",
    "cert",
    "community",
    "compliance",
    "conduct",
    "contact",
    "dev",
    "developers",
    "devops",
    "disclosure",
    "dpo",
    "enquiries",
    "feedback",
    "gdpr",
    "hello",
    "help",
    "helpdesk",
    "hostmaster",
    "info",
    "inquiries",
    "jobs",
    "legal",
    "maintainers",
    "marketing",
    "noc",
    "office",
    "ops",
    "opensource",
    "oss",
    "postmaster",
    "press",
    "privacy",
    "psirt",
    "sales",
    "secalert",
    "security",
    "support",
    "team",
    "vuln",
    "vulnerabilities",
    "vulnerability",
    "webmaster",
];

/// `security@project.org`, `security-reports@…`, `oss.team@…`: a mailbox named after a role
/// (its first word), which a project publishes for anyone to write to. Not personal data.
fn role_address(email: &str) -> bool {
    let lower = email.to_ascii_lowercase();
    let Some((local, _)) = lower.rsplit_once('@') else {
        return false;
    };
    let first = local.split(['.', '-', '_', '+']).next().unwrap_or(local);
    ROLE_MAILBOXES.contains(&first)
}

/// Commands whose `user@host` argument is a login target, not a mailbox.
const LOGIN_COMMANDS: &[&str] = &["ssh", "mosh", "sftp", "ssh-copy-id", "autossh", "telnet"];

/// `ssh efish@login.example.edu`, `ssh -i key.pem -p 2222 deploy@host`: the address is the
/// argument of a remote-login command earlier on its line (flags and their values between).
fn login_target(text: &str, s: usize) -> bool {
    let line_start = text[..s].rfind('\n').map_or(0, |i| i + 1);
    let words: Vec<&str> = text[line_start..s].split_whitespace().collect();
    // The address must start a word of its own.
    if !text[..s].ends_with(|c: char| c.is_whitespace()) {
        return false;
    }
    let mut i = words.len();
    while i > 0 {
        let w = words[i - 1].trim_start_matches(['`', '$', '(']);
        if LOGIN_COMMANDS.contains(&w) {
            return true;
        }
        let flag = w.starts_with('-');
        let flag_value = i >= 2 && words[i - 2].starts_with('-') && words[i - 2].len() == 2;
        if !(flag || flag_value) {
            return false;
        }
        i -= 1;
    }
    false
}

/// The words before an address on its line invite readers to write to it: "report it
/// privately to", "contact us at", "email us", "security contact:". A project publishes such an
/// address on purpose.
fn contact_sentence(before: &str) -> bool {
    let lower = before.to_ascii_lowercase();
    let tail = &lower[super::super::text::floor_char(&lower, lower.len().saturating_sub(120))..];
    let words: Vec<&str> = tail
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let reader_asked = |verb: &str| {
        words.iter().enumerate().any(|(i, w)| {
            *w == verb
                && words[i + 1..]
                    .iter()
                    .take(2)
                    .any(|o| matches!(*o, "us" | "me" | "the" | "our"))
        })
    };
    let has = |set: &[&str]| words.iter().any(|w| set.contains(w));
    has(&[
        "report",
        "reports",
        "reporting",
        "disclose",
        "disclosure",
        "disclosures",
    ]) && has(&[
        "privately",
        "security",
        "vulnerability",
        "vulnerabilities",
        "issue",
        "issues",
        "bug",
        "bugs",
        "abuse",
        "concerns",
        "incidents",
        "it",
        "them",
    ]) && has(&["to", "at", "via", "email", "mail"])
        || ["contact", "email", "reach", "write", "mail"]
            .iter()
            .any(|v| reader_asked(v))
        // "For moderation issues please contact Erick (…)": the reader is told where to
        // take a kind of question, the way a project's policy documents do.
        || has(&["contact", "email", "reach", "write"])
            && has(&["please", "questions", "issues", "concerns", "moderation", "conduct",
                     "support", "feedback", "enquiries", "inquiries"])
        || tail.trim_end().ends_with("contact:")
}

/// Finds SSNs, card numbers, phone numbers and IBANs in one pass over digit runs.
pub(crate) fn scan_numbers(scan: &Scan<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let b = text.as_bytes();
    let numeric = |c: u8| c.is_ascii_digit() || matches!(c, b' ' | b'-' | b'.' | b'(' | b')');
    let mut i = 0;
    while i < b.len() {
        // Every number of interest spans at least 8 bytes of digits and separators: probe the
        // 8th byte ahead and skip the stretch when it cannot be part of one.
        if i + 7 < b.len() && !numeric(b[i + 7]) {
            i += 8;
            continue;
        }
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let prev = if i > 0 { b[i - 1] } else { b' ' };
        let start = i;
        let mut j = i;
        while j < b.len()
            && (b[j].is_ascii_digit()
                || (matches!(b[j], b' ' | b'-' | b'.')
                    && j + 1 < b.len()
                    && b[j + 1].is_ascii_digit()
                    && b[j - 1].is_ascii_digit()))
        {
            j += 1;
        }
        let next = b.get(j).copied().unwrap_or(b' ');
        let run = &text[start..j];
        i = j;
        if prev.is_ascii_alphanumeric()
            && !(start >= 2
                && b[start - 2].is_ascii_uppercase()
                && b[start - 1].is_ascii_uppercase())
            || next.is_ascii_alphanumeric()
        {
            // Part of an identifier, hash or version; IBANs start with letters (handled below).
            if !(start >= 2
                && b[start - 1].is_ascii_uppercase()
                && b[start - 2].is_ascii_uppercase())
            {
                continue;
            }
        }
        if start >= 2 && b[start - 1].is_ascii_uppercase() && b[start - 2].is_ascii_uppercase() {
            iban(text, start - 2, out);
            continue;
        }
        if matches!(prev, b'.' | b'/' | b'#' | b':' | b'_' | b'=')
            || matches!(next, b'.' | b'/' | b':' | b'_')
                && b.get(j + 1).is_some_and(u8::is_ascii_digit)
        {
            continue;
        }
        if prev == b'+' {
            phone(text, start - 1, j, out);
            continue;
        }
        ssn(run, start, j, out);
        card(run, start, j, out);
        if prev == b'(' || prev == b')' {
            nanp(text, start, out);
        }
    }
}

fn ssn(run: &str, start: usize, end: usize, out: &mut Vec<Finding>) {
    let p: Vec<&str> = run.split('-').collect();
    if p.len() != 3
        || p[0].len() != 3
        || p[1].len() != 2
        || p[2].len() != 4
        || !p.iter().all(|x| x.bytes().all(|c| c.is_ascii_digit()))
    {
        return;
    }
    let area: u32 = p[0].parse().unwrap_or(0);
    if area == 0
        || area == 666
        || area >= 900
        || p[1] == "00"
        || p[2] == "0000"
        || run == "078-05-1120"
        || run == "219-09-9999"
    {
        return;
    }
    out.push(
        Finding::new(&PII002, start, end, "US social security number".into()).secret("us-ssn"),
    );
}

fn luhn(digits: &[u8]) -> bool {
    let mut sum = 0;
    for (i, d) in digits.iter().rev().enumerate() {
        let mut v = u32::from(*d - b'0');
        if i % 2 == 1 {
            v *= 2;
            if v > 9 {
                v -= 9;
            }
        }
        sum += v;
    }
    sum % 10 == 0
}

fn card(run: &str, start: usize, end: usize, out: &mut Vec<Finding>) {
    let seps: Vec<char> = run.chars().filter(|c| !c.is_ascii_digit()).collect();
    if seps.contains(&'.') || seps.windows(2).any(|w| w[0] != w[1]) {
        return;
    }
    let digits: Vec<u8> = run.bytes().filter(u8::is_ascii_digit).collect();
    if !(13..=19).contains(&digits.len()) || !luhn(&digits) {
        return;
    }
    if !seps.is_empty() {
        let groups: Vec<usize> = run.split(seps[0]).map(str::len).collect();
        if !(groups
            .iter()
            .all(|g| *g == 4 || *g == digits.len() % 4 && *g > 0)
            || groups == [4, 6, 5]
            || groups == [4, 6, 4])
        {
            return;
        }
    }
    let d = |n: usize| -> u32 {
        digits[..n]
            .iter()
            .fold(0, |a, c| a * 10 + u32::from(c - b'0'))
    };
    let issuer = match digits[0] {
        b'4' => Some("Visa"),
        b'5' if (51..=55).contains(&d(2)) => Some("Mastercard"),
        b'2' if (2221..=2720).contains(&d(4)) => Some("Mastercard"),
        b'3' if matches!(d(2), 34 | 37) => Some("American Express"),
        b'3' if matches!(d(2), 36 | 38 | 30) => Some("Diners Club"),
        b'3' if d(2) == 35 => Some("JCB"),
        b'6' if d(4) == 6011 || d(2) == 65 || (644..=649).contains(&d(3)) => Some("Discover"),
        _ => None,
    };
    let Some(issuer) = issuer else { return };
    let plain: String = digits.iter().map(|c| *c as char).collect();
    let test = super::stand_ins::test_card(&plain);
    let mut f = Finding::new(
        &PII003,
        start,
        end,
        format!(
            "{issuer} card number{}",
            if test {
                " (a well-known test number)"
            } else {
                ""
            }
        ),
    )
    .secret("payment-card");
    if test {
        f = f.severity(Severity::Warning);
    }
    out.push(f);
}

fn phone(text: &str, start: usize, end: usize, out: &mut Vec<Finding>) {
    let run = &text[start..end];
    let digits = run.bytes().filter(u8::is_ascii_digit).count();
    if !(8..=15).contains(&digits) || run.contains('.') && run.matches('.').count() >= 3 {
        return;
    }
    out.push(Finding::new(&PII004, start, end, "phone number".into()).secret("phone-number"));
}

fn nanp(text: &str, digits_start: usize, out: &mut Vec<Finding>) {
    let Some(open) = text[..digits_start].rfind('(') else {
        return;
    };
    if digits_start != open + 1 {
        return;
    }
    let tail = &text[open..super::super::text::floor_char(text, (open + 16).min(text.len()))];
    let b = tail.as_bytes();
    let ok = b.len() >= 14
        && b[1..4].iter().all(u8::is_ascii_digit)
        && b[4] == b')'
        && (b[5] == b' '
            && b[6..9].iter().all(u8::is_ascii_digit)
            && b[9] == b'-'
            && b[10..14].iter().all(u8::is_ascii_digit)
            || b[5..8].iter().all(u8::is_ascii_digit)
                && b[8] == b'-'
                && b[9..13].iter().all(u8::is_ascii_digit));
    if ok {
        let len = if b[5] == b' ' { 14 } else { 13 };
        out.push(
            Finding::new(&PII004, open, open + len, "phone number".into()).secret("phone-number"),
        );
    }
}

fn iban(text: &str, start: usize, out: &mut Vec<Finding>) {
    if start > 0 && text.as_bytes()[start - 1].is_ascii_alphanumeric() {
        return;
    }
    let b = text.as_bytes();
    let mut j = start;
    let mut chars: Vec<u8> = Vec::new();
    while j < b.len() && chars.len() < 34 {
        if b[j].is_ascii_uppercase() || b[j].is_ascii_digit() {
            chars.push(b[j]);
            j += 1;
        } else if b[j] == b' '
            && j + 1 < b.len()
            && (b[j + 1].is_ascii_uppercase() || b[j + 1].is_ascii_digit())
        {
            j += 1;
        } else {
            break;
        }
    }
    if chars.len() < 15 || !chars[2].is_ascii_digit() || !chars[3].is_ascii_digit() {
        return;
    }
    // mod-97 over the rearranged digits.
    let mut rem: u32 = 0;
    for c in chars[4..].iter().chain(&chars[..4]) {
        let v = if c.is_ascii_digit() {
            u32::from(c - b'0')
        } else {
            u32::from(c - b'A') + 10
        };
        rem = if v >= 10 {
            (rem * 100 + v) % 97
        } else {
            (rem * 10 + v) % 97
        };
    }
    if rem != 1 || chars[4..].iter().all(|c| *c == b'0') {
        return;
    }
    out.push(Finding::new(&PII005, start, j, "IBAN".into()).secret("iban"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exemptions_follow_the_reference() {
        assert!(email_exemption("123456+Copilot@users.noreply.github.com").is_some());
        assert!(email_exemption("admin@example.com").is_some());
        assert!(email_exemption("ops@bench.test").is_none());
        assert!(email_exemption("root@host.localhost").is_some());
        assert!(email_exemption("stranger@gmail.com").is_none());
        assert!(email_exemption("ceo@example.com.evil.io").is_none());
    }

    #[test]
    fn a_variable_before_a_host_is_not_an_email_address() {
        for text in [
            "psql -h $PGPASSWORD@db.internal",
            "postgres://app:$DB_PASSWORD@db.prod.acme-corp.io/app",
            "net use \\\\%USERNAME%@files.corp.internal",
        ] {
            let d = crate::lint::check_text("x/NOTES.md", text).unwrap();
            assert!(!d.iter().any(|d| d.rule == "PII001"), "{text}: {d:?}");
        }
        // A mailbox written after a dollar amount is still one.
        let d = crate::lint::check_text("x/NOTES.md", "Paid $5 to dana.lee@acme-corp.io").unwrap();
        assert!(d.iter().any(|d| d.rule == "PII001"), "{d:?}");
    }

    fn pii001(text: &str) -> Option<crate::lint::Severity> {
        let d = crate::lint::check_text("x/NOTES.md", text).unwrap();
        d.iter().find(|d| d.rule == "PII001").map(|d| d.severity)
    }

    /// A name and its address in angle brackets (a commit's author or trailer, a changelog's
    /// or an AUTHORS file's line) is a public identity: a warning, not a block. The same
    /// address in a sentence, or in brackets without a name before them, still blocks.
    #[test]
    fn a_name_and_address_identity_is_a_warning() {
        for text in [
            "Signed-off-by: Priya Raman <priya.raman@tidepool-tools.org>",
            "Co-authored-by: Lukas van der Meer <lukas@meer-labs.nl>",
            "2024-03-01  Ana Lima  <ana@lima-dev.pt>",
            "- 2.1.0: fix the parser (Jürgen Weiß <jweiss@suse-mirror.de>)",
        ] {
            assert_eq!(pii001(text), Some(Severity::Warning), "{text}");
        }
        for text in [
            "Mail Priya at priya.raman@tidepool-tools.org tomorrow.",
            "send the invoice to <priya.raman@tidepool-tools.org>",
        ] {
            assert_eq!(pii001(text), Some(Severity::Error), "{text}");
        }
    }

    #[test]
    fn role_mailboxes_are_not_personal_data() {
        for text in [
            "Please send vulnerability reports to security@tidepool-tools.org.",
            "Questions: support@lanternworks.io",
            "Code of conduct issues go to conduct-team@riverbend.dev",
            "- Alerts come from ops.alerts@riverbend.dev",
            "The service account is crawler@your-gcp-project.iam.gserviceaccount.com",
        ] {
            assert_eq!(pii001(text), None, "{text}");
        }
    }

    #[test]
    fn a_contact_sentence_publishes_an_address_at_warning_level() {
        for text in [
            "If you find a hole, please report it privately to dana.kovac@tidepool-tools.org.",
            "For anything else, contact us at dana.kovac@tidepool-tools.org",
            "You can reach me at dana.kovac@tidepool-tools.org",
            "Security contact: dana.kovac@tidepool-tools.org",
            "For moderation issues please contact Dana (dana.kovac@gmail.com) directly.",
        ] {
            assert_eq!(pii001(text), Some(crate::lint::Severity::Warning), "{text}");
        }
        // A personal address handed around in a note is still an error.
        for text in [
            "Escalate to dana.kovac@gmail.com if the deploy fails.",
            "Contact dana.kovac@gmail.com for details.",
            "Report to dana.kovac@gmail.com at standup.",
        ] {
            assert_eq!(pii001(text), Some(crate::lint::Severity::Error), "{text}");
        }
    }

    #[test]
    fn an_ssh_login_target_is_not_a_mailbox() {
        for text in [
            "ssh efish@node3.cluster.uni-example.de",
            "Then `ssh -i ~/.ssh/lab.pem -p 2222 deploy@build.tidepool-tools.org` and restart.",
            "$ mosh mara@gpu01.tidepool-tools.org",
        ] {
            assert_eq!(pii001(text), None, "{text}");
        }
        // The same address in prose after the word ssh is a mailbox.
        assert!(pii001("ssh keys are managed by mara.l@gmail.com now").is_some());
    }

    #[test]
    fn luhn_checks() {
        assert!(luhn(b"4539148803436467"));
        assert!(!luhn(b"1234567890123456"));
    }
}
