//! SEC: secrets. Vendor formats are ported in design (not code) from gitleaks (MIT) and Nosey
//! Parker (Apache-2.0). In a human-reviewed handoff any credential-shaped string is a defect, so
//! the rules favour recall and keep the guards that matter: template placeholders never fire,
//! documentation-style values (`password`, `myPassword`, `aaaa…`) are warnings.

use super::super::Severity;
use super::super::engine::{Caps, Finding, GroupsFn, Pattern, Scan, Site, Spans};
use super::super::registry::{
    RuleMeta, SEC001, SEC010, SEC011, SEC020, SEC030, SEC040, SEC041, SEC042, SEC050, SEC051,
    SEC060, SEC070, SEC080, SEC090, SEC100, SEC110, SEC120, SEC121, SEC130, SEC131, SEC140, SEC150,
};
use super::super::text::{entropy, is_continuation, line_near};
use super::super::{redacted, steps};
use super::{Placeholder, is_template, placeholder};

pub(crate) static PATTERNS: &[Pattern] = &[
    Pattern {
        rule: &SEC001,
        keywords: &["private key", "putty-user-key"],
        regex: r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d+:",
        before: 120,
        after: 40,
        check: check_private_key,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC010,
        keywords: &["akia", "asia", "abia", "acca", "a3t"],
        // No word boundary before the prefix: a key id glued to what precedes it
        // (`keyAKIA…`, `_AKIA…`) is still one, and its twenty characters are distinctive.
        regex: r"(?-i:(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b)",
        before: 10,
        after: 30,
        check: check_aws_key_id,
        overlap: false,
        gate: Some(upper_case_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC011,
        keywords: &["secret"],
        regex: r#"\b(?P<n>(?:aws_?)?secret(?:[ _-]?(?:access)?[ _-]?key)?)["']?\s*(?:=|:|=>)\s*["']?(?P<v>[A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        before: 40,
        after: 80,
        check: check_aws_secret,
        overlap: false,
        gate: Some(secret_key_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC011,
        keywords: &["session_token", "sessiontoken", "session-token"],
        regex: r#"\baws_?session_?token["']?\s*(?:=|:)\s*["']?(?P<v>[A-Za-z0-9/+=]{100,})"#,
        before: 20,
        after: 1200,
        check: check_aws_session,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC020,
        keywords: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        // A whole token or a fine-grained one is recognised glued to what precedes it
        // (`agentghp_…`, `my_github_pat_…`); a shorter piece only at a word's start.
        regex: r"(?P<full>gh[pousr]_[A-Za-z0-9]{36,255})\b|(?P<pat>github_pat_[A-Za-z0-9_]{22,255})\b|\b(?P<part>gh[pousr]_[A-Za-z0-9]{16,35})\b",
        before: 10,
        after: 300,
        check: check_github,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC030,
        keywords: &[
            "glpat-",
            "glptt-",
            "glrt-",
            "gldt-",
            "glft-",
            "glsoat-",
            "glcbt-",
            "glimt-",
            "glagent-",
            "gloas-",
            "glffct-",
            "glwt-",
            "glrtr-",
            "gr1348941",
        ],
        regex: r"(?:glpat|glptt|glrtr|glrt|gldt|glft|glsoat|glcbt|glimt|glagent|gloas|glffct|glwt)-[A-Za-z0-9_-]{20,}|GR1348941[A-Za-z0-9_-]{20}\b",
        before: 10,
        after: 120,
        check: check_prefixed::<30>,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC040,
        keywords: &[
            "sk-proj-",
            "sk-svcacct-",
            "sk-admin-",
            "sk-none-",
            "t3blbkfj",
        ],
        regex: r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b",
        before: 40,
        after: 300,
        check: check_prefixed::<40>,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC041,
        keywords: &["sk-ant-"],
        // A whole key, or one shortened in a note with its head and tail left showing
        // (`sk-ant-api03-kF…-SVeW7gAA`): what shows still names the one key to revoke.
        regex: r"sk-ant-(?:api\d\d|admin\d\d|oat\d\d|sid\d\d)-(?:[A-Za-z0-9_-]{20,}|[A-Za-z0-9_-]{2,}(?:…|\.{3})[A-Za-z0-9_-]{6,})",
        before: 10,
        after: 300,
        check: check_anthropic,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC042,
        keywords: &["sk-"],
        regex: r"(?:^|[^A-Za-z0-9_-])(?P<v>sk-[A-Za-z0-9][A-Za-z0-9_-]{15,})",
        before: 10,
        after: 300,
        check: check_sk,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC050,
        keywords: &[
            "xoxb-", "xoxp-", "xoxe-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xapp-", "xoxe.",
            "xoxc-",
        ],
        regex: r"(xox[pe]-\d{8,14}-\d{8,14}-\d{8,14}-[A-Za-z0-9]{20,})|(xoxb-\d{8,14}-\d{8,14}-[A-Za-z0-9]{20,})|(xoxb-\d{8,14}-[A-Za-z0-9]{18,})|(xapp-\d-[A-Z0-9]+-\d+-[A-Za-z0-9]+|xapp-\d{8,14}-[A-Za-z0-9/+]{16,})|(xoxe\.xox[bp]-\d-[A-Za-z0-9]{60,}|xoxe-\d-[A-Za-z0-9]{60,})|(\bxox[abposerc]-[A-Za-z0-9-]{8,})",
        before: 10,
        after: 200,
        check: check_slack,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC051,
        keywords: &[
            "hooks.slack.com",
            "webhook.office.com",
            "outlook.office",
            "discord.com/api/webhooks",
            "discordapp.com/api/webhooks",
        ],
        regex: r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}|https://[a-z0-9-]+\.webhook\.office\.com/webhookb2/[\w@/-]{40,}|https://outlook\.office(?:365)?\.com/webhook/[0-9a-f-]{36}@[0-9a-f-]{36}/IncomingWebhook/[0-9a-f]{32}/[0-9a-f-]{36}|https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]{50,}",
        before: 10,
        after: 400,
        check: check_prefixed::<51>,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC060,
        keywords: &[
            "sk_live", "sk_test", "sk_prod", "rk_live", "rk_test", "rk_prod", "whsec_",
        ],
        regex: r"\b(?:sk|rk)_(?P<env>live|test|prod)_[A-Za-z0-9]{10,99}\b|whsec_[A-Za-z0-9+/=]{24,}",
        before: 10,
        after: 140,
        check: check_stripe,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC070,
        keywords: &["aiza", "ya29.", "gocspx-", "service_account"],
        regex: r#"AIza[0-9A-Za-z_-]{35}|\bya29\.[0-9A-Za-z_-][0-9A-Za-z_.-]{19,}|GOCSPX-[0-9A-Za-z_-]{28}|"type"\s*:\s*"service_account""#,
        before: 20,
        after: 400,
        check: check_prefixed::<70>,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC080,
        keywords: &[
            "accountkey=",
            "sharedaccesskey=",
            "sharedaccesssignature=",
            ";secret=",
            "q~",
            "azdo",
        ],
        regex: r#"\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=(?P<v>[A-Za-z0-9+/=%]{20,})|\bId=[^;\s"'<>]{1,100};Secret=(?P<v2>[A-Za-z0-9+/=]{20,})|(?:^|[^A-Za-z0-9_~.-])(?P<v3>[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34})(?:[^A-Za-z0-9_~.-]|$)|\b(?P<v4>[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4})\b"#,
        before: 120,
        after: 200,
        check: check_azure,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC090,
        keywords: &["eyj"],
        regex: r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*",
        before: 10,
        after: 1200,
        check: check_prefixed::<90>,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC100,
        keywords: &["vault"],
        regex: r"\b(?P<s>s\.[A-Za-z0-9]{24,})|\b(?P<b>b\.[A-Za-z0-9_-]{24,})|\b(?P<r>r\.[A-Za-z0-9]{24,})",
        before: 200,
        after: 300,
        check: check_vault_legacy,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC100,
        keywords: &["bootstrap", "kubeadm", "--token"],
        regex: r"\b(?P<v>[a-z0-9]{6}\.[a-z0-9]{16})\b",
        before: 200,
        after: 200,
        check: check_k8s_token,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC001,
        keywords: &[
            "mnemonic", "seed", "phrase", "bip39", "bip-39", "wallet", "metamask",
        ],
        // A word that names the phrase, then on the same line a run of short words (BIP-39
        // words have three to eight letters) separated by spaces or commas. The regex starts
        // at its keyword (`recovery phrase` is read from `phrase`).
        regex: r"\b(?:mnemonic|seed|phrase|bip-?39|wallet|metamask)[^\n]{0,60}?\b(?P<w>(?:[a-z]{3,8}[ \t,]+){11,40}[a-z]{3,8})\b",
        before: 0,
        after: 480,
        check: super::seed_phrase::check,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC001,
        keywords: &["accounts", "hdwalletprovider"],
        // An Ethereum account's private key (64 hex digits) in the list of accounts a
        // Hardhat network or a Truffle provider signs with: the one place such a list holds
        // keys, not hashes.
        regex: r#"(?:\baccounts["']?[ \t]*:[ \t]*\[|\bHDWalletProvider[ \t]*\([ \t]*\[?)[ \t]*["'](?P<v>(?:0x)?[0-9a-f]{64})["']"#,
        before: 0,
        after: 200,
        check: check_account_key,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC100,
        keywords: &["\"auth\""],
        // A Docker client's `config.json` (`{"auths": {"<registry>": {"auth": "<base64>"}}}`):
        // the value is base64 of `user:password`, judged as a Basic value is.
        regex: r#""auth"[ \t]*:[ \t]*"(?P<v>[A-Za-z0-9+/]{8,}={0,2})""#,
        before: 0,
        after: 400,
        check: check_docker_auth,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC020,
        keywords: &["github"],
        // GitHub's legacy OAuth and personal tokens are 40 lower-case hex digits, as a commit
        // id is: one is a token when a name that holds `github` is assigned it or called with
        // it (`"github.com": "…"` under composer's `github-oauth`, `Github("…")`), and that
        // name does not name a commit (`GITHUB_SHA`, `github_commit`, `head.sha`).
        regex: r#"(?P<n>[A-Za-z0-9_.-]*github[A-Za-z0-9_.-]*)["']?[ \t]*(?::|=>?|\()[ \t]*["']?(?P<v>[0-9a-f]{40})\b"#,
        before: 40,
        after: 120,
        check: check_github_legacy,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC110,
        keywords: &["bearer", "authorization", "basic"],
        regex: r#"\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?P<scheme>bearer|basic|token|ssws|digest|apikey|api-key|key|sharedaccesssignature)\s+(?P<v>[A-Za-z0-9._~+/=:-]{4,})|\bbearer\s*:?\s+(?P<v2>[A-Za-z0-9._~+/=-]{8,})|\bbasic\s+(?P<v3>[A-Za-z0-9+/]{8,}={0,2})(?:[^A-Za-z0-9+/=]|$)"#,
        before: 20,
        after: 400,
        check: check_authorization,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &[
            "key",
            "secret",
            "token",
            "passw",
            "pwd",
            "_pass",
            "credential",
            "passphrase",
            "_pat",
            "pass",
            "pat=",
            "pat =",
            // A bare `pat:` or `auth:` (judged with its value, see `check_assignment`) and an
            // `Authorization` header written as a mapping's key.
            "pat",
            "auth",
            "authtoken",
            "auth_token",
            "pw",
            // Review 23: the other words for a credential (see `credential_name`).
            "cred",
            "seed",
            "recovery",
            "backup",
            "cookie",
            "conn",
            "pepper",
            "kek",
            "dek",
            "sas",
            "passwort",
            "kennwort",
            "contrase",
            "senha",
            "wachtwoord",
            "haslo",
            "heslo",
            "salasana",
            "parol",
            "lozinka",
            "jelszo",
            "sifre",
            "losenord",
            "passord",
            "adgangskode",
            "de_passe",
            "depasse",
            "geslo",
            "slaptazodis",
        ],
        regex: ASSIGNMENT,
        before: 90,
        after: 240,
        check: check_assignment,
        overlap: true,
        gate: Some(assignment_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &["<add"],
        regex: r#"<add\s+(?:name|key)\s*=\s*"([^"\n]{1,80})"\s+value\s*=\s*"([^"\n]{1,200})""#,
        before: 4,
        after: 320,
        check: check_tuple,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &["<setting"],
        regex: r#"<setting\s+name\s*=\s*"([^"\n]{1,80})"[^>\n]{0,80}>\s*<value>([^<\n]{1,200})</value>"#,
        before: 4,
        after: 400,
        check: check_tuple,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &["password>", "passwd>", "pwd>", "secret>", "token>", "key>"],
        regex: r"<([A-Za-z][\w.:-]{0,60})>\s*([^<>\s]{4,200})\s*</[A-Za-z][\w.:-]{0,60}>",
        before: 80,
        after: 320,
        check: check_tuple,
        overlap: false,
        gate: None,
        near: &[],
    },
    // A web server or proxy setting a request header to a literal (`proxy_set_header X-Api-Key
    // "…";`, Apache's `RequestHeader set`, HAProxy's `http-request set-header`): the header's
    // name is the value's.
    Pattern {
        rule: &SEC120,
        keywords: &[
            "_set_header",
            "add_header",
            "requestheader",
            "set-header",
            "more_set_",
        ],
        regex: r#"\b(?:proxy_set_header|grpc_set_header|add_header|more_set_(?:input_)?headers|RequestHeader[ \t]+(?:set|append|add)|http-request[ \t]+(?:set|add)-header)[ \t]+["']?([A-Za-z][A-Za-z0-9_-]{1,60})["']?:?[ \t]+["']?(?:(?:Bearer|Token|Basic)[ \t]+)?([^\s"';]{8,200})"#,
        before: 24,
        after: 320,
        check: check_tuple,
        overlap: false,
        gate: None,
        near: &[],
    },
    // A property list's `<key>APISecret</key>` and the `<string>` after it (iOS and macOS
    // `Info.plist`, `GoogleService-Info.plist`).
    Pattern {
        rule: &SEC120,
        keywords: &["</key>"],
        regex: r"<key>([A-Za-z][\w.:-]{0,60})</key>\s*<string>([^<>\s]{4,200})</string>",
        before: 80,
        after: 320,
        check: check_tuple,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &["buildconfigfield", "resvalue"],
        regex: r#"\b(?:buildConfigField|resValue)\s*\(?\s*["'][^"'\n]*["']\s*,\s*["']([^"'\n]{1,80})["']\s*,\s*(?:"(?:\\")?([^"\\\n]{1,200})(?:\\")?"|'"?([^"'\\\n]{1,200})"?')"#,
        before: 4,
        after: 400,
        check: check_tuple,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &["define"],
        regex: r#"\bdefine\s*\(\s*["']([^"'\n]{1,80})["']\s*,\s*["']([^"'\n]{1,200})["']"#,
        before: 4,
        after: 320,
        check: check_tuple,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &["<add"],
        regex: r#"<add\s+value\s*=\s*"([^"\n]{1,200})"\s+(?:name|key)\s*=\s*"([^"\n]{1,80})""#,
        before: 4,
        after: 320,
        check: check_pair::<{ Pair::XmlValueFirst as u8 }>,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &["key=", "name=", "key =", "name ="],
        regex: r#"<[A-Za-z][\w.:-]{0,40}\s+(?:key|name)\s*=\s*"([^"\n]{1,80})"[^>\n]{0,80}>[ \t]*([^<\s][^<\n]{0,199}?)[ \t]*</"#,
        before: 60,
        after: 320,
        check: check_pair::<{ Pair::XmlKeyed as u8 }>,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &["value"],
        regex: r#"\bname["']?\s*[:=]\s*["']?([A-Za-z_][A-Za-z0-9_.-]{0,80})["']?\s*,?[ \t]*\r?\n?[ \t]*-?[ \t]*["']?value["']?\s*[:=]\s*(?:"([^"\n]{1,200})"|'([^'\n]{1,200})'|([^\s"'#,}]{1,200}))"#,
        before: 140,
        after: 240,
        check: check_pair::<{ Pair::NameValue as u8 }>,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &["setx", "env ", "arg ", "set -"],
        regex: r#"(?m)^[ \t]*(?:setx|ENV|ARG|set\s+-[A-Za-z]{1,3})[ \t]+([A-Za-z_][A-Za-z0-9_]{0,80})[ \t]+(?:"([^"\n]{1,200})"|'([^'\n]{1,200})'|([^\s"']{1,200}))[ \t]*\r?$"#,
        before: 40,
        after: 320,
        check: check_pair::<{ Pair::EnvCommand as u8 }>,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &["#define"],
        regex: r#"#define[ \t]+([A-Za-z_][A-Za-z0-9_]{0,80})[ \t]+@?"([^"\n]{1,200})""#,
        before: 4,
        after: 320,
        check: check_pair::<{ Pair::CDefine as u8 }>,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: SPACED_KEYWORDS,
        regex: r#"(?m)^[ \t]*(?:[A-Za-z_][A-Za-z0-9_]{0,40}[ \t]*\{[ \t]*){0,3}@?([A-Za-z_][A-Za-z0-9_.]{0,80})[ \t]+(?:"([^"\n]{1,200})"|'([^'\n]{1,200})')[ \t]*[,;]?[ \t]*(?:\}[ \t]*){0,3}\r?$"#,
        before: 80,
        after: 240,
        check: check_pair::<{ Pair::SpacedArgument as u8 }>,
        overlap: false,
        gate: Some(spaced_quote_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &[
            "password(",
            "passwd(",
            "secret(",
            "token(",
            "key(",
            "password (",
            "secret (",
            "token (",
            "key (",
        ],
        regex: r#"\b([A-Za-z_][A-Za-z0-9_]{0,80})\s*\(\s*(?:"([^"\n]{1,200})"|'([^'\n]{1,200})')\s*\)"#,
        before: 80,
        after: 240,
        check: check_pair::<{ Pair::CallArgument as u8 }>,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &[
            "password",
            "passwd",
            "secret",
            "token",
            "key",
            "pwd",
            "credential",
            "pass",
        ],
        regex: r"(?m)^[ \t]*\|?[^\n|]*(?:\|[^\n|]*)+\|?[ \t]*\r?\n[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*\r?$",
        before: 300,
        after: 600,
        check: check_table,
        overlap: false,
        gate: Some(table_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &[
            "password",
            "passwd",
            "pass",
            "secret",
            "token",
            "key",
            "pwd",
            "credential",
            "creds",
        ],
        regex: r"(?m)^[ \t>]*\|[^\n]*\|[^\n]*$",
        before: 600,
        after: 600,
        check: check_table_row,
        overlap: false,
        gate: Some(table_row_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &["variable"],
        regex: r#"\bvariable\s+"([^"\n]{1,80})"\s*\{[^}]{0,240}?\bdefault\s*=\s*"([^"\n]{1,200})""#,
        before: 4,
        after: 400,
        check: check_pair::<{ Pair::TerraformDefault as u8 }>,
        overlap: false,
        gate: None,
        near: &[],
    },
    // SEC120: a credential compared with a literal by a call rather than an operator: the
    // literal is the credential the code expects (`apiKey.equals("…")`, `"…".equals(token)`,
    // `hmac.compare_digest(token, "…")`, `subtle.ConstantTimeCompare([]byte(pw), []byte("…"))`,
    // `request.headers.get('X-Api-Key') == '…'`).
    Pattern {
        rule: &SEC120,
        keywords: &[
            "equals(",
            "equalsignorecase(",
            "compare(",
            "compare_digest(",
            "') ==",
            "')==",
            "\") ==",
            "\")==",
            "') !=",
            "')!=",
            "\") !=",
            "\")!=",
        ],
        regex: COMPARED_BY_CALL,
        before: 60,
        after: 240,
        check: check_compared_by_call,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &["identified", "password '", "password\t'"],
        regex: SQL_PASSWORD,
        before: 200,
        after: 240,
        check: check_sql_password,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &["password", "passwd", "pwd", "pass"],
        regex: r#"(?m)^[ \t]*(?:user(?:name)?|login|uid)[ \t]*[=:][ \t]*\S+[^\n]*\n(?:[^\n]*\n){0,3}?[ \t]*(?:password|passwd|pwd|pass)[ \t]*[=:][ \t]*(?P<v>[^\s"']\S*)"#,
        before: 300,
        after: 60,
        check: check_user_pass,
        overlap: false,
        gate: Some(assigned_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &["password", "credentials"],
        regex: SPACED_QUOTED,
        before: 120,
        after: 80,
        check: check_gradle,
        overlap: false,
        gate: Some(quoted_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC121,
        keywords: &["password"],
        regex: r#"\bpassword\b[^.\n]{0,40}?\b(?:is|was|are|of|=|:)\s*["'](?P<v>[^"'\n]{3,64})["']"#,
        before: 10,
        after: 120,
        check: check_password_prose,
        overlap: false,
        gate: Some(password_is_quoted_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC130,
        keywords: &["://"],
        regex: r#"\b(?P<scheme>[a-z][a-z0-9+.-]{1,20})://(?P<user>[^\s/:@'"<>]{0,64}):(?P<pass>[^\s/'"<>]{1,128})@(?P<host>[^\s/'"<>:@]+)"#,
        before: 30,
        after: 240,
        check: check_url_credentials,
        overlap: true,
        gate: Some(userinfo_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC130,
        keywords: &["://"],
        // A token alone as a URL's user (`https://TOKEN@github.com/…`, as Git hosts take a
        // personal access token): no colon, twenty or more characters drawn at random.
        regex: r"\b(?P<scheme>https?|git|ssh)://(?P<v>[A-Za-z0-9_-]{20,200})@(?P<host>[A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2,})",
        before: 8,
        after: 320,
        check: check_url_token_user,
        overlap: false,
        gate: Some(token_user_gate),
        near: &[],
    },
    // Oracle's connect strings (`user/password@//host:1521/service`, the Easy Connect
    // form, or `user/password@host:port/service`): the password sits between the user's
    // slash and the `@`. A path with an `@` (`actions/checkout@v4`, `pkg@1.2`) names no
    // host with `//` or a port and a service after it.
    Pattern {
        rule: &SEC130,
        // `@` for a connect string on any port (`user/pass@db1:1522/svc`), gated on that
        // shape after it.
        keywords: &["@//", ":1521", "oracle", "dsn", "@"],
        regex: ORACLE_CONNECT,
        before: 100,
        after: 200,
        check: check_oracle_connect,
        overlap: false,
        gate: Some(oracle_at_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC130,
        keywords: &["password", "pwd"],
        regex: CONNECTION_PASSWORD,
        before: 300,
        after: 80,
        check: check_connection_string,
        overlap: false,
        gate: Some(equals_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC131,
        keywords: &[
            "psexec",
            "sqlcmd",
            "osql",
            "bcp",
            "net use",
            "docker login",
            "az login",
            "sshpass",
            "mysql",
            "smbclient",
            "ldapsearch",
            "rdesktop",
            "xfreerdp",
            "plink",
            "pscp",
            "-password",
            "--password",
            // Any ` -u`: curl reads `-uUSER:PASS` as `-u USER:PASS` (review atk45 #4: the
            // keywords asked for a blank or a quote after it, and the regex reads neither).
            " -u",
            "--user",
            "-h ",
            "-h'",
            "-h\"",
            "--header",
            "machine",
            "networkcredential",
            "directoryentry",
            "pscredential",
            "httpbasicauth",
            "httpdigestauth",
            "basicauth",
            "smbmap",
            // Any tool's user option followed by its password option (`-u USER -p PASS`,
            // `--username U --pass P`, Windows' `/u:USER /p:PASS`): the pair is the kind, not
            // the tool's name.
            " /u:",
            " /user:",
        ],
        regex: r#"\b(?:psexec(?:\.exe)?|docker\s+login|az\s+login|sshpass|mysql|mysqladmin|mysqldump|smbclient|smbmap|ldapsearch|rdesktop|xfreerdp|plink|pscp|sqlcmd|osql|bcp)\b[^\n]*?\s(?:-p|--password)\s*(?:=\s*)?(?P<v>"[^"\n]+"|'[^'\n]+'|[^\s"']+)|\s-Password\s+(?P<v2>"[^"\n]*"|'[^'\n]*'|[^\s"']+)|--password[= ](?P<v3>[^\s"']+|"[^"\n]+")|\bcurl\b[^\n]*?\s(?:-u|--user)[ =]?["']?(?P<u>[^\s:"']+)["']?:["']?(?P<v4>[^\s"'@]+)|(?:-H|--header)[ =]?\s*["'](?P<h>X-[A-Za-z-]*(?:Token|Key|Auth|Secret|Crumb|Password)[A-Za-z-]*|Api-?Key|PRIVATE-TOKEN|Private-Token)\s*:\s*(?P<v5>[^"'\n]+)["']|\b(?:NetworkCredential|DirectoryEntry|PSCredential|HTTPBasicAuth|HTTPDigestAuth|BasicAuth)\s*\((?:\s*"[^"\n]*"\s*,){1,2}\s*"(?P<v6>[^"\n]+)"\s*\)|\bmachine\s+\S+\s+(?:login\s+\S+\s+)?password\s+(?P<v7>\S+)|\bnet\s+use\b[^\n]*?\s/user:\S+\s+(?P<v8>"[^"\n]+"|[^\s/"']+)|\s(?-i:-U)[ \t]*["']?[A-Za-z][^\s%"'/\\]*(?:[/\\]{1,2}[A-Za-z][^\s%"'/\\]*)?%(?P<v9>[^\s"'%]+)|\x20(?:-u|--user(?:name)?)(?:[ \t]+|=)["']?[^\s"'/<$%{-][^\s"']*["']?[^\n|;&]*?[ \t](?:-p|--pass(?:word)?)(?:[ \t]+|=)(?P<v10>"[^"\n]+"|'[^'\n]+'|[^\s"'|;&]+)|\x20/u(?:ser)?:["']?[^\s"'/<$%{][^\s"']*["']?[^\n|;&]*?[ \t]/p(?:assword)?:(?P<v11>"[^"\n]+"|'[^'\n]+'|[^\s"'|;&]+)"#,
        before: 60,
        after: 320,
        check: check_command_credentials,
        overlap: false,
        gate: None,
        near: &[],
    },
    // SEC131: a password given to a tool by its own option or argument shape: `redis-cli
    // -a PASS`, `sqlplus user/PASS@db`, `htpasswd -b FILE USER PASS`, `zip -P PASS`,
    // `7z -pPASS`, `openssl … -k PASS` or `-pass pass:PASS`.
    Pattern {
        rule: &SEC131,
        keywords: &[
            "redis-cli",
            "sqlplus",
            "sqlldr",
            "expdp",
            "impdp",
            "rman",
            "dgmgrl",
            "htpasswd",
            "zip",
            "7z",
            "7za",
            "7zr",
            "openssl",
        ],
        regex: r#"\bredis-cli\b[^\n|;&]*?\s(?:-a|--pass)\s+(?P<v>"[^"\n]+"|'[^'\n]+'|[^\s"'|;&]+)|\b(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl)\b(?:\s+-\w+)*\s+[\w$#.-]+/(?P<v2>[^\s@/"']+)(?:@\S+)?|\bhtpasswd(?:\s+-\w+)*?\s+-[a-z]*b[a-z]*(?:\s+-\w+)*\s+(?:[^\s-][^\s]*\s+)?[^\s-][^\s]*\s+(?P<v3>[^\s"'<>|;&][^\s]*)|\b(?:zip|unzip|zipcloak|7z|7za|7zr)(?:\.exe)?\b[^\n|;&]*?\s(?-i:-P)\s+(?P<v4>"[^"\n]+"|'[^'\n]+'|[^\s"'|;&]+)|\b7z[ar]?(?:\.exe)?\s+\w\b[^\n|;&]*?\s-p(?P<v5>"[^"\n]+"|'[^'\n]+'|[^\s"'|;&]+)|\bopenssl\b[^\n|;&]*?\s(?:-k\s+(?P<v6>"[^"\n]+"|'[^'\n]+'|[^\s"'|;&-][^\s"'|;&]*)|-(?:pass|passin|passout)\s+["']?pass:(?P<v7>[^\s"'|;&]+))"#,
        before: 60,
        after: 320,
        check: check_command_credentials_at,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC131,
        keywords: &["redis-cli", "htpasswd", "openssl", "7z", "zip", "sqlplus"],
        // Tools that take a password by their own flag or syntax: `redis-cli -a …`,
        // `htpasswd -b FILE USER …`, `openssl enc -k …` and `-passin pass:…`, `7z a -p…`,
        // `zip -P …`, `sqlplus user/…@db`.
        regex: r#"(?m)\bredis-cli\b[^\n|;&]*?[ \t]-a[ \t]+("[^"\n]+"|'[^'\n]+'|[^\s"'|;&]+)|\bhtpasswd[ \t]+-[A-Za-z]*b[A-Za-z]*(?:[ \t]+[^\s|;&]+){1,2}?[ \t]+("[^"\n]+"|'[^'\n]+'|[^\s"'|;&]+)[ \t]*(?:$|[|;&])|\bopenssl\b[^\n|;&]*?[ \t](?-i:-k)[ \t]+("[^"\n]+"|'[^'\n]+'|[^\s"'|;&]+)|\bopenssl\b[^\n|;&]*?[ \t]-pass(?:in|out)?[ \t]+pass:([^\s"'|;&]+)|\b7z[a-z]?\b[^\n|;&]*?[ \t](?-i:-p)([^\s"'|;&]+)|\b(?:zip|unzip|zipcloak)\b[^\n|;&]*?[ \t](?-i:-P)[ \t]+("[^"\n]+"|'[^'\n]+'|[^\s"'|;&]+)|\bsqlplus[ \t]+(?:-[A-Za-z]+[ \t]+)*["']?[A-Za-z][A-Za-z0-9_$#]*/([^\s@/"']+)@"#,
        before: 4,
        after: 320,
        check: check_tool_password,
        overlap: false,
        gate: Some(tool_password_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC131,
        // The credential word ends a compound flag as often as it starts one (`-NuGetApiKey`,
        // `--github-token`): the gate keeps the words that end a flag's name.
        keywords: &[
            "key", "token", "secret", "pass", "password", "passwd", "-pat", "-pw", "-auth",
        ],
        regex: r#"(?:^|[\s"'`(])--?([A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+){0,6})(?:=|[ \t]+)(?:"([^"\n]{1,200})"|'([^'\n]{1,200})'|([^\s"'`\\;|&)]{1,200}))"#,
        before: 60,
        after: 240,
        check: check_flag,
        overlap: false,
        gate: Some(flag_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC110,
        keywords: &["cookie"],
        regex: r#"\bcookie["']?\s*:\s*[^\n]{0,200}?\b([A-Za-z0-9_.-]*(?:sess|sid|auth|token|jwt|remember|login)[A-Za-z0-9_.-]*)=([^;\s"'\\]{1,400})"#,
        before: 10,
        after: 640,
        check: check_cookie,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC121,
        keywords: PROSE_LABELS,
        regex: r#"\b(?:passwords?|passwd|passphrase|pwd|secret|token|api[ _-]?key|apikey|access[ _-]?key|secret[ _-]?key|private[ _-]?key|auth[ _-]?token|access[ _-]?token|client[ _-]?secret|bearer)\b(?:\*\*|__)?(?:[ \t]*(?:is|was|are|:|=|-|–|—)[ \t]*|[ \t]+)(?:\*\*|__)?[ \t]*[`"']?(?P<v>[^\s`"'<>()\[\]{},;|]{10,})"#,
        before: 10,
        after: 340,
        check: check_labelled,
        overlap: false,
        gate: Some(labelled_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC121,
        keywords: PROSE_LABELS,
        // A label, a short clause of words, then a verb or sign that gives the value:
        // `the admin password was set to …`, `the webhook secret we configured is …`,
        // `Password for the test account: …`, `an access token (…)`.
        regex: r#"(?:\b|_)(?:passwords?|passwd|passphrase|secrets?|tokens?|api[ _-]?keys?|apikeys?|access[ _-]?keys?|secret[ _-]?keys?|private[ _-]?keys?|signing[ _-]?keys?|auth[ _-]?tokens?|access[ _-]?tokens?|client[ _-]?secrets?|credentials?)\b(?:'s)?(?:\*\*|__|`)?,?(?:[ \t]+\(?[A-Za-z0-9_'-]{1,24}\)?,?){0,10}?(?:[ \t]+(?:is|was|are|to|now|as|be|equals|becomes|still|currently)[ \t]+[`"']?|[ \t]*(?:\*\*|__)?[ \t]*(?::|=>|=|->|→)[ \t]*(?:\*\*|__)?[ \t]*[`"']?|[ \t]+[-–—][ \t]+[`"']?|[ \t]*\([ \t]*[`"']?)(?P<v>[^\s`"'<>()\[\]{},;|]{10,})"#,
        before: 10,
        after: 340,
        check: check_clause_labelled,
        overlap: false,
        gate: Some(clause_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC121,
        keywords: PROSE_LABELS,
        // The value first: `use … as the password`, `the CI bot uses … as its token`.
        regex: r#"(?i:\b(?:use|used|uses|using|set|sets|with))[ \t]+[`"']?(?P<v>[^\s`"'<>()\[\]{},;|]{10,})[`"']?[ \t]+as[ \t]+(?:(?:the|its|our|your|their|his|her|a|an|my)[ \t]+)?(?:[A-Za-z0-9_-]{1,20}[ \t]+){0,3}(?:passwords?|passwd|passphrase|secrets?|tokens?|api[ _-]?keys?|access[ _-]?keys?|secret[ _-]?keys?|private[ _-]?keys?|signing[ _-]?keys?|auth[ _-]?tokens?|access[ _-]?tokens?|client[ _-]?secrets?|credentials?)\b"#,
        before: 200,
        after: 20,
        check: check_value_first_label,
        overlap: false,
        gate: Some(value_first_label_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC121,
        keywords: PROSE_LABELS,
        // The value alone on the line after its label (`Password for staging:`, then the
        // value indented, in a code fence or on its own line).
        regex: r#"(?m)(?:\b|_)(?:passwords?|passwd|passphrase|secrets?|tokens?|api[ _-]?keys?|apikeys?|access[ _-]?keys?|secret[ _-]?keys?|private[ _-]?keys?|signing[ _-]?keys?|auth[ _-]?tokens?|access[ _-]?tokens?|client[ _-]?secrets?|credentials?)\b[^\n:]{0,80}:[ \t*_]*\r?\n(?:[ \t]*\r?\n){0,2}(?:[ \t]*(?:```|~~~)[^\n]{0,20}\n)?[ \t]*(?:[-*+][ \t]+)?[`"']?(?P<v>[^\s`"'<>()\[\]{},;|]{10,})[`"']?[ \t]*\r?$"#,
        before: 10,
        after: 800,
        check: check_next_line,
        overlap: false,
        gate: Some(next_line_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC121,
        keywords: PROSE_LABELS,
        // The label alone on its line, with no colon (a heading `## Staging DB password`, a
        // bold line, a list item), and the value alone below it: indented, fenced or a
        // nested list item.
        regex: r#"(?m)(?:\b|_)(?:passwords?|passwd|passphrase|secrets?|tokens?|api[ _-]?keys?|apikeys?|access[ _-]?keys?|secret[ _-]?keys?|private[ _-]?keys?|signing[ _-]?keys?|auth[ _-]?tokens?|access[ _-]?tokens?|client[ _-]?secrets?|credentials?)(?:[ \t]+(?i:for|of|on|in|at|from|to)[ \t][^\n:]{1,60})?(?:\*\*|__)?[ \t]*\r?\n(?:[ \t]*\r?\n){0,2}(?:[ \t]*(?:```|~~~)[^\n]{0,20}\n)?[ \t]*(?:[-*+][ \t]+)?[`"']?(?P<v>[^\s`"'<>()\[\]{},;|]{10,})[`"']?[ \t]*\r?$"#,
        before: 10,
        after: 880,
        check: check_label_line,
        overlap: false,
        gate: Some(label_line_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC121,
        keywords: &["key"],
        // A bare `key` as a sentence's subject (`The key is …`, `Stripe key: …`); the
        // qualified labels (`API key`, `signing key`) are the patterns' above.
        regex: r#"\bkey\b(?:\*\*|__)?(?:[ \t]+(?:is|was|=)[ \t]+|[ \t]*(?:\*\*|__)?[ \t]*[:=][ \t]*)(?:\*\*|__)?[`"']?(?P<v>[^\s`"'<>()\[\]{},;|]{10,})"#,
        before: 40,
        after: 340,
        check: check_bare_key,
        overlap: false,
        gate: Some(bare_key_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC121,
        keywords: &["key", "token", "secret", "password", "passwd"],
        regex: r#"(?m)(?:^|[\s"'`(\[{,;])(?P<n>[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)*)(?:[ \t]+|,)(?P<v>[^\s"'`<>()\[\]{},;|=:]{16,})[ \t]*(?:[\r\n"'`)\]},;]|$)"#,
        before: 80,
        after: 320,
        check: check_compound_label,
        overlap: false,
        gate: Some(compound_label_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: CSV_KEYWORDS,
        regex: r"(?m)^[^,\n]*(?:,[^,\n]*)+\r?\n[^,\n]*(?:,[^,\n]*)+",
        before: 200,
        after: 400,
        check: check_csv,
        overlap: false,
        gate: Some(csv_header_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC121,
        keywords: &[
            "password",
            "passwd",
            "passphrase",
            "token",
            "secret",
            "api key",
            "api_key",
            "api-key",
            "apikey",
        ],
        regex: r"(?:^|[\s`'\x22(/#*;])(?P<v>[^\s`'\x22<>()\[\]{},;|]{10,})[ \t]+(?:is|was)[ \t]+(?:(?:the|my|our|your|an?)[ \t]+)?(?:[A-Za-z]+[ \t]+)?(?:passwords?|passwd|passphrase|token|secret|api[ _-]?key|apikey)(?:[ \t]*(?:[.,;:!)*/\r\n]|$)|[ \t]+(?:for|of|to|on|in|at|here|we|you|I)\b)",
        before: 340,
        after: 8,
        check: check_value_first,
        overlap: false,
        gate: Some(value_first_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC140,
        keywords: &[
            "$2a$", "$2b$", "$2y$", "$2x$", "$2$", "$1$", "$5$", "$6$", "$8$", "$9$", "$apr1$",
            "$argon2", "$krb5", "$y$",
        ],
        regex: r"\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}|\$1\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}|\$5\$(?:rounds=\d+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43}|\$6\$(?:rounds=\d+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{86}|\$[89]\$[./A-Za-z0-9]{14}\$[./A-Za-z0-9]{43}|\$apr1\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}|\$argon2(?:id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]{8,}\$[A-Za-z0-9+/]{16,}|\$krb5(?:asrep|tgs)\$\d+\$[^\s]{20,}|\$y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{43}",
        before: 10,
        after: 600,
        check: check_prefixed::<140>,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC150,
        keywords: &[
            "arn:aws",
            "amazonaws.com",
            "storage.googleapis.com",
            "gs://",
            "myshopify.com",
            "apps.googleusercontent.com",
            "account",
            "age1",
            "_user",
            "_username",
            "_login",
            "_uid",
        ],
        regex: r#"\barn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:(?:\d{12})?:[^\s"'`<>]+|\b[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\.s3(?:[.-][a-z0-9-]+)?\.amazonaws\.com\b|\bs3(?:[.-][a-z0-9-]+)?\.amazonaws\.com/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]|\b[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]\.storage\.googleapis\.com\b|\bstorage\.googleapis\.com/[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]|\bgs://[a-z0-9][a-z0-9._-]{2,}|\b[a-z0-9][a-z0-9-]*\.myshopify\.com\b|\b\d{6,}-[a-z0-9]{32}\.apps\.googleusercontent\.com\b|\b(?:aws_?)?account_?id\b["']?\s*[=:]\s*["']?\d{12}\b|\bage1[02-9ac-hj-np-z]{58}\b|(?-i:\b[A-Z][A-Z0-9_]*_(?:USER|USERNAME|LOGIN|UID)\s*=\s*["']?[^\s"'$<{%]{2,})"#,
        before: 20,
        after: 200,
        check: check_identifier,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC131,
        keywords: &["convertto-securestring"],
        regex: r#"\bConvertTo-SecureString(?:[ \t]+-String)?[ \t]+(?P<v>"[^"\n]+"|'[^'\n]+')"#,
        before: 4,
        after: 400,
        check: check_secure_string,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &[
            "getenv",
            "setenv",
            "setenvironmentvariable",
            "setdefault",
            "environ.get",
            "env.fetch",
            "setproperty",
        ],
        regex: r#"\b(?:getenv|setenv|SetEnvironmentVariable|setdefault|environ\.get|ENV\.fetch|setProperty)[ \t]*\([ \t]*["']([A-Za-z_][A-Za-z0-9_.-]{0,80})["'][ \t]*,[ \t]*(?:"([^"\n]+)"|'([^'\n]+)')"#,
        before: 20,
        after: 320,
        check: check_pair::<{ Pair::EnvCall as u8 }>,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &[
            "config set",
            "configure set",
            "secret set",
            "secrets set",
            "user-secrets set",
        ],
        regex: r#"\b(?:configure|config|secrets?|user-secrets)[ \t]+set[ \t]+["']?([A-Za-z_/][A-Za-z0-9_.:/-]{0,80})["']?[ \t]+(?:(?:--body|--value|-b)[ \t]+)?(?:"([^"\n]+)"|'([^'\n]+)'|([^ \t\r\n"'|;&]+))"#,
        before: 20,
        after: 320,
        check: check_pair::<{ Pair::CliSetting as u8 }>,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        keywords: &[
            "mysqli_connect",
            "mysql_connect",
            "mysqli(",
            "pdo(",
            "ldap_bind",
            "simple_bind",
            "passwordauthentication",
            "auth=(",
            "auth = (",
            ".auth(",
            "jwt.sign(",
            "jwt.encode(",
            "jwt.verify(",
            "jwt.decode(",
            "createhmac(",
        ],
        regex: r"\b(?P<f>mysqli_connect|mysql_connect|mysqli|PDO|ldap_bind|simple_bind_s|simple_bind|PasswordAuthentication|jwt\.(?:sign|encode|verify|decode)|createHmac|auth[ \t]*=[ \t]*|auth)[ \t]*\(",
        before: 20,
        after: 400,
        check: check_credential_call,
        overlap: false,
        gate: None,
        near: &[],
    },
    // SEC120: a (user, password) pair by position: assigned as a pair to a name that names
    // one (`creds = ("svc", "…")`, `http_auth=('elastic', '…')`, `login: [admin, …]`), or
    // passed to a login or connection call (`ftp.login('mirror', '…')`,
    // `getConnection(url, "etl", "…")`, `pymysql.connect(host, "report", "…", db)`).
    Pattern {
        rule: &SEC120,
        keywords: &[
            "auth", "cred", "login", "logon", "signin", "sign_in", "userpass", "connect",
        ],
        regex: CREDENTIAL_PAIR,
        before: 40,
        after: 300,
        check: check_credential_pair,
        overlap: false,
        gate: Some(pair_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC121,
        keywords: &[
            "passwort",
            "kennwort",
            "contraseña",
            "contrasena",
            "senha",
            "mot de passe",
            "wachtwoord",
            "hasło",
            "haslo",
            "lösenord",
            "losenord",
            "salasana",
            "parola",
            "密码",
            "密碼",
            "パスワード",
            "비밀번호",
            "парол",
        ],
        // Also with the language's verb for "is" (`das Passwort lautet …`, `le mot de passe
        // est …`, `la contraseña es …`, `a senha é …`, `hasło to …`), now or not, and with a
        // few words of a clause between the label and its sign or verb (`das Passwort für
        // Staging ist …`, `le mot de passe du serveur : …`, `пароль от сервера — …`). The
        // Cyrillic label (`пароль`, `парола`) is written as the normalised view reads it: `а`,
        // `р`, `о` fold to their Latin look-alikes, `Ь` to `b`.
        regex: r"(?i:passwort|kennwort|contraseña|contrasena|senha|mot de passe|wachtwoord|hasło|haslo|lösenord|losenord|salasana|parola|密码|密碼|パスワード|비밀번호|пapoл[ьяиеюab])(?:[ \t]+[^\s:=：.,;!?()\[\]<>`'\x22]{1,24}){0,4}?(?:[ \t]*(?:\*\*|__)?[ \t]*[:=：]|[ \t]+[-–—][ \t]|[ \t]+(?i:ist|lautet|war|est|était|etait|es|era|é|è|e|is|was|jest|to|är|var|on|oli|je|je to|это)(?:[ \t]+(?i:jetzt|nun|maintenant|désormais|ahora|agora|ora|nu|teraz|nyt|сейчас|теперь))?[ \t]*:?)[ \t]*(?:\*\*|__)?[ \t]*[`'\x22]?(?P<v>[^ \t\r\n`'\x22<>()\[\]{},;|]+)",
        before: 10,
        after: 340,
        check: check_foreign_label,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC121,
        keywords: &[
            "schlüssel",
            "schluessel",
            "clave",
            "clé",
            "chiave",
            "chave",
            "sleutel",
            "klucz",
            "nyckel",
            "avain",
            "jeton",
            "token",
            "キー",
            "トークン",
            "密钥",
            "密鑰",
            "秘钥",
            "令牌",
            "토큰",
        ],
        // A key or a token after its label in another language, with a sign or the
        // language's verb for "is" (`der API-Schlüssel lautet …`, `la clave de API de … es
        // …`, `la clé API est …`, `il token di … è …`, `API 密钥是 …`). The English `token`
        // only with another language's verb: English prose is the patterns' above. The verb
        // is a word of its own, as the gate reads it (not the `E` of `token EAA…`).
        regex: r"(?:(?i:schl(?:ü|u|ue)ssel|clave|cl[eé]|chiave|chave|sleutel|klucz|nyckel|avain|jetons?)(?:[ \t]+[^\s:=：.,;!?()\[\]<>`'\x22]{1,24}){0,4}?(?:[ \t]*(?:\*\*|__)?[ \t]*[:=：]|[ \t]+[-–—][ \t]|[ \t]+(?i:ist|lautet|war|est|était|etait|es|era|é|è|e|is|jest|to|är|ar|var|on|oli|je)\b)|(?i:token)(?:[ \t]+[^\s:=：.,;!?()\[\]<>`'\x22]{1,24}){0,4}?[ \t]+(?i:ist|lautet|est|es|è|é|e)\b|(?:キー|トークン|密钥|密鑰|秘钥|令牌|토큰)[ \t]*(?:は|是|为|為|는|은|:|：))[ \t]*:?[ \t]*(?:\*\*|__)?[ \t]*[`'\x22]?(?P<v>[^ \t\r\n`'\x22<>()\[\]{},;|。、]+)",
        before: 10,
        after: 340,
        check: check_foreign_key_label,
        overlap: false,
        gate: Some(foreign_key_gate),
        near: &[],
    },
    // The same pair in a sentence: `The staging login is deploy / …`, `creds are admin/…`,
    // `log in as deploy / …`. A slash between the two: `is admin:…` is the pattern's below.
    Pattern {
        rule: &SEC121,
        keywords: &["login", "creds", "credentials", "log in"],
        regex: r#"(?i:\b(?:logins?|creds|credentials)\b[^:\n/]{0,40}?[ \t](?:is|are|was|were)|\blog[ \t]+in[ \t]+(?:with|as))[ \t]+[`'"]?(?P<u>[A-Za-z0-9_.@+-]{1,64})[`'"]?[ \t]*/[ \t]*[`'"]?(?P<v>[^ \t\r\n`'"<>()\[\]{},;|]+)"#,
        before: 10,
        after: 200,
        check: check_login_pair,
        overlap: false,
        gate: Some(slash_on_line_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC121,
        keywords: &["login", "creds", "credentials", "account"],
        // A login label, a short clause on its line (`Login for the test account:`,
        // `Staging login (admin panel):`), then a user and a password.
        regex: r#"\b(?:logins?|creds|credentials|accounts?)\b[^:\n]{0,60}:[ \t]*[`'"]?(?P<u>[A-Za-z0-9_.@+-]{1,64})[`'"]?[ \t]*(?:/|:)[ \t]*[`'"]?(?P<v>[^ \t\r\n`'"<>()\[\]{},;|]+)"#,
        before: 10,
        after: 340,
        check: check_login_pair,
        overlap: false,
        gate: Some(login_pair_gate),
        near: &[],
    },
    Pattern {
        rule: &SEC131,
        keywords: &[
            "password-stdin",
            "sudo -s",
            "chpasswd",
            "passwd --stdin",
            "passphrase-fd",
        ],
        regex: r#"\b(?:echo|printf)[ \t]+(?:-[ne][ \t]+)?(?P<v>"[^"\n]+"|'[^'\n]+'|[^ \t\r\n"'|;&]+)[ \t]*\|[^\n|;]*?(?:--password-stdin|\bsudo[ \t]+-S\b|\bchpasswd\b|\bpasswd[ \t]+--stdin|--passphrase-fd[ \t]+0)"#,
        before: 200,
        after: 120,
        check: check_piped_password,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC121,
        keywords: &[
            "recovery code",
            "recovery_code",
            "recovery-code",
            "backup code",
            "backup verification code",
            "scratch code",
            "emergency code",
            "2fa recovery",
            "mfa recovery",
        ],
        // The label of an account's recovery codes; the list is read beside it.
        regex: r"(?:recovery|backup|scratch|emergency)[ \t_-]+(?:verification[ \t]+)?codes?\b|\b(?:2fa|mfa)[ \t]+recovery\b",
        before: 10,
        after: 40,
        check: check_recovery_codes,
        overlap: false,
        gate: None,
        near: &[],
    },
    Pattern {
        rule: &SEC120,
        // A `.pgpass` line (`host:port:database:user:password`) names PostgreSQL's port or a
        // wildcard in almost every file.
        keywords: &[":5432:", ":*:"],
        regex: r"(?m)^[ \t]*(?:[A-Za-z0-9._-]{1,64}|\*):(?:\d{1,5}|\*):(?:[A-Za-z0-9._$-]{1,64}|\*):(?:[A-Za-z0-9._@$-]{1,64}|\*):(?P<v>[^\s:]\S{0,199})[ \t]*\r?$",
        before: 200,
        after: 400,
        check: check_pgpass,
        overlap: false,
        gate: Some(pgpass_gate),
        near: &[],
    },
];

/// The line of a `.pgpass` keyword holds no blank between its first and last character and
/// at least four colons: five fields. Bounded to the pattern's window. Sound because
/// [`check_pgpass`] reports only a line that holds a keyword, whose own gate then passes.
fn pgpass_gate(b: &Site<'_>, start: usize, _end: usize) -> bool {
    let lo = start.saturating_sub(200);
    let hi = b.len().min(start + 400);
    let mut a = start;
    while a > lo && b[a - 1] != b'\n' {
        a -= 1;
    }
    let mut z = start;
    while z < hi && b[z] != b'\n' {
        z += 1;
    }
    steps::add((z - a) as u64);
    let line = b[a..z].trim_ascii();
    !line.is_empty()
        && !line.iter().any(u8::is_ascii_whitespace)
        && memchr::memchr_iter(b':', line).count() >= 4
}

/// The password field of a `.pgpass` line.
fn check_pgpass(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.range(1).expect("group v");
    let v = &scan.text()[s..e];
    let (ws, we) = caps.whole();
    let line = &scan.text()[ws..we];
    if !(line.contains(":5432:") || line.contains(":*:")) {
        return;
    }
    if v == "*" || is_template(v) || variable(v) || placeholder(v) == Placeholder::Hard {
        return;
    }
    let mut f = Finding::new(
        &SEC120,
        s,
        e,
        format!("password in a .pgpass line: {}", redacted(v)),
    )
    .secret("pgpass-line");
    if placeholder(v) == Placeholder::Soft {
        f = f.severity(Severity::Warning);
    }
    out.push(f);
}

/// `scheme://` followed by `@` before the URL ends: the only URLs that can hold a password.
fn userinfo_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    let tail = &b[end..b.len().min(end + 220)];
    let stop = tail
        .iter()
        .position(|c| c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'<' | b'>' | b')'))
        .unwrap_or(tail.len());
    memchr::memchr(b'@', &tail[..stop]).is_some()
}

/// [`check_url_token_user`]'s gate: a run of twenty or more token bytes right after `://`,
/// ended by `@`. Reads at most 201 bytes.
fn token_user_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    let tail = &b[end..b.len().min(end + 201)];
    let run = tail
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'-'))
        .unwrap_or(tail.len());
    run >= 20 && tail.get(run) == Some(&b'@')
}

/// The arguments of a call whose `(` ends at `open`, up to its closing bracket on the same
/// line (at most 240 bytes, three brackets deep): each argument's trimmed range. Commas inside quotes or nested
/// brackets do not split.
fn call_arguments(text: &str, open: usize) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let hi = text.len().min(open + 240);
    let (mut depth, mut quote, mut from) = (0usize, 0u8, open);
    let mut args = Vec::new();
    let push = |s: usize, e: usize, args: &mut Vec<(usize, usize)>| {
        let a = &text[s..e];
        let lead = a.len() - a.trim_start().len();
        args.push((s + lead, s + lead + a.trim().len()));
    };
    let mut i = open;
    while i < hi {
        steps::add(1);
        let c = b[i];
        match (quote, c) {
            (_, b'\n') => return Vec::new(),
            (0, b'"' | b'\'') => quote = c,
            (q, _) if q != 0 => {
                if c == b'\\' {
                    i += 1;
                } else if c == q {
                    quote = 0;
                }
            }
            (_, b'(' | b'[' | b'{') if depth < 3 => depth += 1,
            (_, b'(' | b'[' | b'{') => return Vec::new(),
            (_, b')' | b']' | b'}') if depth > 0 => depth -= 1,
            (_, b')' | b']') => {
                push(from, i, &mut args);
                return args;
            }
            (_, b',') if depth == 0 => {
                push(from, i, &mut args);
                from = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    Vec::new()
}

/// A password passed by position to a call that takes one: `mysqli_connect(host, user,
/// "…")`, `new PDO($dsn, $user, '…')`, `ldap_bind($c, $dn, "…")`,
/// `new PasswordAuthentication("user", "…".toCharArray())`, `auth=('user', '…')`,
/// `redis.auth("…")`; a key passed to sign a JSON Web Token or an HMAC (`jwt.sign(payload,
/// '…')`, `createHmac('sha256', '…')`).
fn check_credential_call(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let func = caps.str(1).to_ascii_lowercase();
    let (_, open) = caps.whole();
    let args = call_arguments(text, open);
    let (ms, _) = caps.whole();
    let (slot, strict) = match func.as_str() {
        "mysqli_connect" | "mysql_connect" | "mysqli" | "pdo" | "ldap_bind" => (2, false),
        "simple_bind_s" | "simple_bind" | "passwordauthentication" => (1, false),
        // A JSON Web Token signed or checked with a literal key (`jwt.sign(payload, '…')`,
        // `jwt.encode(payload, "…", algorithm="HS256")`), an HMAC keyed with one
        // (`crypto.createHmac('sha256', '…')`): the key must look like one on its own.
        "jwt.sign" | "jwt.encode" | "jwt.verify" | "jwt.decode" | "createhmac" => (1, true),
        // `auth=('user', '…')`: a (user, password) pair.
        _ if func.starts_with("auth") && func.len() > 4 => (1, args.len() != 2),
        // `redis.auth("…")`: a method of that name with one argument, which must look like a
        // credential on its own.
        _ if text[..ms].ends_with('.') && args.len() == 1 => (0, true),
        _ => return,
    };
    // The argument is one string literal, perhaps turned into characters or bytes.
    let Some((vs, ve)) = args.get(slot).and_then(|&a| literal_argument(text, a)) else {
        return;
    };
    // The name the finding gives the argument: a signing key for a token's or an HMAC's
    // call, a password for a login's.
    let name = if func.starts_with("jwt.") || func == "createhmac" {
        "signing_key"
    } else {
        "password"
    };
    judge_pair(scan, name, vs, ve, "credential-argument", strict, out);
}

/// The keyword ends a flag's name (`-ApiKey`, `--github-token`, `-NuGetApiKey`): the name
/// starts with `-` after a blank, a quote or a bracket, and a value follows it after `=` or a
/// blank. The look back is bounded, so a long run of name characters stays linear.
fn flag_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    // The credential word ends the name (`--max-tokens`, `--manifest-path` are not
    // credentials), and a value follows.
    if !matches!(b.get(end), Some(b'=' | b' ' | b'\t')) {
        return false;
    }
    let name = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    let floor = start.saturating_sub(40);
    let mut i = start;
    while i > floor && name(b[i - 1]) {
        i -= 1;
    }
    steps::add((start - i) as u64);
    // The name's first dashes, then a letter (`--api-key`, `-Token`).
    let dashes = b[i..end].iter().take_while(|&&c| c == b'-').count();
    // What the regex's `(?:^|[\s"'`(])` accepts: any Unicode blank (a vertical tab, a
    // no-break space), not only the ASCII ones.
    let opens =
        char_before(b, i).is_none_or(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '('));
    (1..=2).contains(&dashes) && opens && b[i + dashes].is_ascii_alphabetic()
}

/// The character that ends at byte `i` of `b` (UTF-8 text cut at a character boundary).
fn char_before(b: &[u8], i: usize) -> Option<char> {
    // A character is at most four bytes; its first is not a continuation byte.
    let start = (i.saturating_sub(4)..i)
        .rev()
        .find(|&k| !is_continuation(b[k]))?;
    std::str::from_utf8(&b[start..i]).ok()?.chars().next()
}

/// SEC120's assignment: a name, its closing quote, a declared string type, bold, an index's
/// `]`, the operator and the value. Its groups are read off the match ([`assignment_groups`]).
const ASSIGNMENT: &str = r#"(?P<name>[A-Za-z_$@][A-Za-z0-9_.$-]{0,80})(?P<q>\\?["']?)(?:[ \t]+(?:string|String|str))?(?:\*\*|__)?[ \t]*(?:\]\s*)?(?P<op>:::=|::=|:=|=>|<-|!==?|={1,3}|\?\??=|\+=|\.=|\|\|=|\|\||&&=|:)(?:\*\*|__)?[ \t]*(?P<val>\\"[^"\\\n]+\\"|"""[^"\n]+"""|@?"[^"\n]+"|'[^'\n]+'|`[^`\n]+`|[|>][-+]?[ \t]*\r?\n[ \t]+[^\s"'`,;)\]}<>]+|[^\s"'`,;)\]}<>]+)"#;

/// A credential compared with a literal by a call: `NAME.equals("…")` or
/// `getHeader("NAME").equals("…")` (group 1 or 2, value 3), `"…".equals(NAME)` (4, 5),
/// `compare(NAME, "…")` and its constant-time kin (6, 7), a header or field read by name
/// then compared with an operator (8, 9).
const COMPARED_BY_CALL: &str = r#"(?:(?P<n1>[A-Za-z_$][A-Za-z0-9_$]*)(?:\(\))?|[A-Za-z_$][A-Za-z0-9_$]*\([ \t]*["'](?P<n1h>[A-Za-z][A-Za-z0-9_-]{1,60})["'][ \t]*\))\.(?:equals|equalsIgnoreCase)\([ \t]*"(?P<v1>[^"\n]{4,200})"[ \t]*\)|"(?P<v2>[^"\n]{4,200})"\.(?:equals|equalsIgnoreCase)\([ \t]*(?:[A-Za-z_$][A-Za-z0-9_$]*\.)*(?P<n2>[A-Za-z_$][A-Za-z0-9_$]*)(?:\(\))?[ \t]*\)|\b(?:compare|compare_digest|ConstantTimeCompare|secure_compare)\([ \t]*(?:\[\]byte\()?(?:[A-Za-z_$][A-Za-z0-9_$]*\.)*(?P<n3>[A-Za-z_$][A-Za-z0-9_$]*)\)?[ \t]*,[ \t]*(?:\[\]byte\()?["'](?P<v3>[^"'\n]{4,200})["']|(?:\.|->)(?:get|getHeader|header|getenv)\([ \t]*["'](?P<n4>[A-Za-z][A-Za-z0-9_-]{1,60})["'][ \t]*\)[ ]?(?:!==?|===?)[ \t]*["'](?P<v4>[^"'\n]{4,200})["']"#;

/// [`check_credential_pair`]'s calls and assignments: a name ending in a word for a pair of
/// credentials assigned a bracketed pair (group 1, the bracket 2), or a login or connection
/// call (group 3).
const CREDENTIAL_PAIR: &str = r#"\b(?P<n>[A-Za-z0-9_]*(?:auth|creds|cred|credentials|credential|login|logon|userpass))["']?[ \t]*(?:=>|=|:)[ \t]*(?P<o>[(\[])|\b(?P<f>login|logon|signin|sign_in|authenticate|getConnection|connect)[ \t]*\("#;

/// SQL's `IDENTIFIED BY '…'` and `PASSWORD '…'`; the value is read off the match
/// ([`quoted_groups`]).
const SQL_PASSWORD: &str = r"\b(?:identified\s+by(?:\s+password)?|password)\s+'([^'\n]{1,200})'";

/// Gradle's `password "…"`; the value is read off the match ([`quoted_groups`]).
const SPACED_QUOTED: &str = r#"\b(?:password|username|credentials)\s+["'](?P<v>[^"'\n]{2,})["']"#;

/// A connection string's `Password=…`; the value is read off the match
/// ([`assigned_groups`]).
/// Oracle's `user/password@//host[:port][/service]` and `user/password@host:port/service`;
/// group 1 is the password.
const ORACLE_CONNECT: &str = r#"(?:^|[\s"'=:(`])[A-Za-z][A-Za-z0-9_$#]{0,29}/([^\s@/"'`<>${}%()]{3,64})@(?://[A-Za-z0-9][A-Za-z0-9_.-]*(?::[0-9]{2,5})?|[A-Za-z0-9][A-Za-z0-9_.-]*:[0-9]{2,5}/[A-Za-z][A-Za-z0-9_.$-]*)"#;

const CONNECTION_PASSWORD: &str = r#"\b(?:password|pwd)\s*=\s*(?P<v>[^;"'\s<>]{2,})"#;

/// A class of bytes, as a regex's run of that class reads them.
pub(crate) type ByteClass = fn(u8) -> bool;

/// The value SEC121's prose patterns end with: a run of ten or more value bytes.
const PROSE_VALUE: &str = r#"(?P<v>[^\s`"'<>()\[\]{},;|]{10,})"#;

/// A byte of [`PROSE_VALUE`]'s class: not ASCII white space, a quote, a bracket or a
/// separator (every byte of a non-ASCII character is one: the class is negated). Not
/// [`value_byte`], which lets the vertical tab through where the regex's `\s` stops.
fn prose_value_byte(c: u8) -> bool {
    !regex_space(c) && !value_stop(c)
}

/// The plain value of [`ASSIGNMENT`] (also the end of its block value).
const PLAIN_VALUE: &str = r#"[^\s"'`,;)\]}<>]+"#;

/// A byte of [`PLAIN_VALUE`]'s class.
fn plain_value_byte(c: u8) -> bool {
    !(regex_space(c)
        || matches!(
            c,
            b'"' | b'\'' | b'`' | b',' | b';' | b')' | b']' | b'}' | b'<' | b'>'
        ))
}

/// The run of [`ASSIGNMENT`]'s name after its first character, counted (`{0,80}`), and the
/// most bytes it takes.
const NAME_RUN: &str = "[A-Za-z0-9_.$-]{0,80}";
const NAME_RUN_MOST: usize = 80;

/// A byte of [`NAME_RUN`]'s class.
pub(crate) fn name_run_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'-')
}

/// `head` (the source [`head`] gives) with its name's counted run made unbounded (`*`), and
/// how many bytes the counted run takes at most; `None` for a head without that run. The
/// counted run made the search's lazy DFA track every place a name may have started in the
/// last 81 bytes: on lines of identifiers and values (`key: …` a thousand times) it built
/// tens of thousands of states, overflowed its cache and fell back to the backtracker, most
/// of that text's lint. Unbounded, the DFA has a few states. Its match is the counted
/// regex's whenever the match's name run is within the count: no counted match starts
/// before an unbounded one (each is one), and at that start the counted regex tries the
/// same names longest first, cut at the count, with the same rest after each. Past the count
/// the counted regex is asked from that start (`lint::engine::tests`, random names around
/// the count).
pub(crate) fn unbounded_head(p: &Pattern) -> Option<(String, usize)> {
    if p.regex != ASSIGNMENT {
        return None;
    }
    let (head, _) = head(p)?;
    // The name opens the regex: one byte of its first class, then the run.
    debug_assert!(head.starts_with(&format!("(?P<name>[A-Za-z_$@]{NAME_RUN})")));
    Some((head.replace(NAME_RUN, "[A-Za-z0-9_.$-]*"), NAME_RUN_MOST))
}

/// The head `p`'s regex is searched as (see the engine's `Matcher::Head`) and the class of
/// the run its matches go on with, for a regex that ends in a greedy run whose matches can
/// reach the end of a long line: `KEY=KEY=…` and `password=password=…` on one line made the
/// assignment's and the prose labels' matches a kilobyte or a megabyte long. The head is
/// the regex with that run at its least (`+` → one, `{10,}` → `{10}`); the run is the last
/// thing each of them matches, so a match of the head is a match of the regex cut short.
pub(crate) fn head(p: &Pattern) -> Option<(String, ByteClass)> {
    if p.regex == ASSIGNMENT {
        let least = PLAIN_VALUE.strip_suffix('+').expect("a greedy run");
        return Some((ASSIGNMENT.replace(PLAIN_VALUE, least), plain_value_byte));
    }
    let bare = p.regex.strip_suffix(PROSE_VALUE)?;
    let least = PROSE_VALUE.replace("{10,}", "{10}");
    Some((format!("{bare}{least}"), prose_value_byte))
}

/// The reader of the groups of `p`'s regex when they are read off its match, `None` for a
/// regex whose groups the capture engine resolves. These regexes match one after another on
/// a line of credential pairs (issue #13 item 4).
pub(crate) fn groups_reader(p: &Pattern) -> Option<GroupsFn> {
    let readers: [(&str, GroupsFn); 4] = [
        (ASSIGNMENT, assignment_groups),
        (SQL_PASSWORD, quoted_groups),
        (SPACED_QUOTED, quoted_groups),
        (CONNECTION_PASSWORD, assigned_groups),
    ];
    readers
        .into_iter()
        .find_map(|(regex, read)| (p.regex == regex).then_some(read))
}

/// Group 1 of a match of [`SQL_PASSWORD`] or [`SPACED_QUOTED`]: between the match's first
/// quote (the words before it hold none) and its last byte, the closing quote. The value's
/// repetition stops only at a quote or a line break, so it is all there is between the two.
fn quoted_groups(m: &str) -> Option<Spans> {
    let b = m.as_bytes();
    let open = memchr::memchr2(b'"', b'\'', b)?;
    let close = b.len() - 1;
    (open < close).then_some([
        Some((0, b.len())),
        Some((open + 1, close)),
        None,
        None,
        None,
    ])
}

/// Group 1 of a match of [`CONNECTION_PASSWORD`]: after its first `=` and the white space
/// after it (the value cannot start with white space) to the end of the match.
fn assigned_groups(m: &str) -> Option<Spans> {
    let b = m.as_bytes();
    let sign = memchr::memchr(b'=', b)?;
    let vs = run(b, sign + 1, b.len(), regex_space);
    (vs < b.len()).then_some([Some((0, b.len())), Some((vs, b.len())), None, None, None])
}

/// The operators of [`ASSIGNMENT`], in the regex's order (`!==?` and `={1,3}` longest first).
const OPERATORS: [&str; 18] = [
    ":::=", "::=", ":=", "=>", "<-", "!==", "!=", "===", "==", "=", "??=", "?=", "+=", ".=", "||=",
    "||", "&&=", ":",
];

/// The groups of a match `m` of [`ASSIGNMENT`] (name, quote, operator, value) as the regex
/// crate's backtracking engine assigns them, which tries each part's choices in the regex's
/// order (the most a repetition can take, an optional part taken, an alternation's first
/// alternative) and keeps the first reading that matches. Each part here takes its first
/// choice that matches where it stands; when a later part then fails, that engine would go
/// back and try the next choice: this is `None`, and the capture engine decides. A reading
/// that goes through is therefore the engine's first, and it ends where the match does (a
/// guard: `None` otherwise). Without a capture engine on each match, credential assignments
/// one after another lint in a fifth fewer instructions (issue #13 item 4).
fn assignment_groups(m: &str) -> Option<Spans> {
    let b = m.as_bytes();
    // The regex is compiled ignoring ASCII case (`str` is also `STR`).
    let at = |i: usize, lit: &[u8]| {
        b.get(i..i + lit.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(lit))
    };
    let blank = |c: u8| matches!(c, b' ' | b'\t');
    if !b
        .first()
        .is_some_and(|&c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'@'))
    {
        return None;
    }
    let name = run(b, 1, 81, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'-')
    });
    // `\\?["']?`
    let mut i = name + usize::from(at(name, b"\\"));
    i += usize::from(matches!(b.get(i), Some(b'"' | b'\'')));
    let q = (name, i);
    // `(?:[ \t]+(?:string|String|str))?`
    let blanks = run(b, i, b.len(), blank);
    if blanks > i {
        if at(blanks, b"string") {
            i = blanks + 6;
        } else if at(blanks, b"str") {
            i = blanks + 3;
        }
    }
    // `(?:\*\*|__)?[ \t]*(?:\]\s*)?`, the operator, `(?:\*\*|__)?[ \t]*`
    i += 2 * usize::from(at(i, b"**") || at(i, b"__"));
    i = run(b, i, b.len(), blank);
    if at(i, b"]") {
        i = run(b, i + 1, b.len(), regex_space);
    }
    let op = OPERATORS
        .iter()
        .find(|o| b[i..].starts_with(o.as_bytes()))?;
    let op = (i, i + op.len());
    i = op.1 + 2 * usize::from(at(op.1, b"**") || at(op.1, b"__"));
    let vs = run(b, i, b.len(), blank);
    let ve = assignment_value(b, vs)?;
    (ve == b.len()).then_some([
        Some((0, b.len())),
        Some((0, name)),
        Some(q),
        Some(op),
        Some((vs, ve)),
    ])
}

/// The end of the value of [`ASSIGNMENT`] that starts at `i` in `b`: its first alternative
/// that matches there, each repetition in it taking all it can (none can take less and
/// still match).
fn assignment_value(b: &[u8], i: usize) -> Option<usize> {
    // `OPEN[^STOP]+CLOSE`, the stops a line break and one or two more bytes.
    let quoted = |open: &[u8], stop: [u8; 2], close: &[u8]| {
        let s = i + open.len();
        if b.get(i..s) != Some(open) {
            return None;
        }
        let e = s + memchr::memchr3(stop[0], stop[1], b'\n', &b[s..]).unwrap_or(b.len() - s);
        (e > s && b.get(e..e + close.len()) == Some(close)).then_some(e + close.len())
    };
    // `[^\s"'`,;)\]}<>]+`
    let plain = |s: usize| {
        let e = run(b, s, b.len(), |c| {
            !(regex_space(c)
                || matches!(
                    c,
                    b'"' | b'\'' | b'`' | b',' | b';' | b')' | b']' | b'}' | b'<' | b'>'
                ))
        });
        (e > s).then_some(e)
    };
    // `[|>][-+]?[ \t]*\r?\n[ \t]+` and a plain value
    let block = || {
        if !matches!(b.get(i), Some(b'|' | b'>')) {
            return None;
        }
        let k = i + 1 + usize::from(matches!(b.get(i + 1), Some(b'-' | b'+')));
        let k = run(b, k, b.len(), |c| matches!(c, b' ' | b'\t'));
        let k = k + usize::from(b.get(k) == Some(&b'\r'));
        if b.get(k) != Some(&b'\n') {
            return None;
        }
        let s = run(b, k + 1, b.len(), |c| matches!(c, b' ' | b'\t'));
        if s == k + 1 {
            return None;
        }
        plain(s)
    };
    quoted(b"\\\"", *b"\"\\", b"\\\"")
        .or_else(|| quoted(b"\"\"\"", *b"\"\"", b"\"\"\""))
        // `@?"…"`: with the `@` when there is one (without, `"` cannot match at `@`).
        .or_else(|| quoted(b"@\"", *b"\"\"", b"\""))
        .or_else(|| quoted(b"\"", *b"\"\"", b"\""))
        .or_else(|| quoted(b"'", *b"''", b"'"))
        .or_else(|| quoted(b"`", *b"``", b"`"))
        .or_else(block)
        .or_else(|| plain(i))
}

/// The end of the run of bytes of `b` from `i` that satisfy `f`, at most up to `limit`.
fn run(b: &[u8], i: usize, limit: usize, f: impl Fn(u8) -> bool) -> usize {
    let limit = limit.min(b.len());
    i + b
        .get(i..limit)
        .map_or(0, |s| s.iter().take_while(|&&c| f(c)).count())
}

/// The patterns' `\s`: ASCII white space, the vertical tab included.
fn regex_space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

/// A credential word followed (after the rest of its identifier and an optional quote) by an
/// assignment or comparison operator.
fn assignment_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    let mut i = end;
    // The rest of the name (the pattern takes 80 bytes of it), then the blanks of a
    // column-aligned block (`password            = …`, review 24): the pattern reads 240 bytes
    // past the keyword.
    let name_limit = b.len().min(end + 80);
    while i < name_limit
        && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'.' | b'-' | b'$'))
    {
        i += 1;
    }
    let limit = b.len().min(i + 128);
    // The name's closing quote (escaped in a JSON string: `\"token\":`), bold
    // (`**password**:`, `'pwd'__:`), blanks (the regex's `\s` holds the vertical tab), an
    // index's `]`.
    while i < limit
        && (matches!(b[i], b'"' | b'\'' | b'*' | b'_' | b']' | b'\\') || regex_space(b[i]))
    {
        i += 1;
    }
    // A declared string type between the name and the sign (Go's `token string = …`).
    for ty in [&b"string"[..], b"String", b"str"] {
        if b[i..limit].starts_with(ty) && i > end && b[i - 1].is_ascii_whitespace() {
            i += ty.len();
            while i < limit
                && (matches!(b[i], b'"' | b'\'' | b'*' | b']' | b'_') || b[i].is_ascii_whitespace())
            {
                i += 1;
            }
            break;
        }
    }
    i < limit
        && (matches!(b[i], b'=' | b':' | b'!' | b'?' | b'+')
            || b[i] == b'<' && b.get(i + 1) == Some(&b'-')
            || b[i] == b'.' && b.get(i + 1) == Some(&b'=')
            || matches!(b[i], b'|' | b'&') && b.get(i + 1) == Some(&b[i]))
}

/// Whether, past blanks from `i`, the next byte is one of `signs`. A byte that is not ASCII
/// counts as a match: it may be a Unicode space the pattern's `\s` skips. The gates below ask
/// this of the byte after a keyword, so the regex of a pattern that needs `password =`,
/// `password: "…"` or `secret_key: …` is not compiled for prose that only names a password;
/// none of them is stricter than its pattern.
fn sign_follows(b: &[u8], mut i: usize, signs: &[u8]) -> bool {
    while i < b.len() && is_blank(b[i]) {
        i += 1;
    }
    i < b.len() && (signs.contains(&b[i]) || !b[i].is_ascii())
}

/// `password: …`, `pwd = …` (a line of a username/password pair).
fn assigned_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    sign_follows(b, end, b"=:")
}

/// `password = …`.
fn equals_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    sign_follows(b, end, b"=")
}

/// `password "…"`, `credentials '…'`.
fn quoted_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    sign_follows(b, end, b"\"'")
}

/// `password … is "…"`: within the pattern's 40 characters of the same sentence, a separator
/// (`is`, `was`, `are`, `of`, `=`, `:`) followed by a quote.
///
/// Read from the quotes, not from every byte: a line of `password` after `password` asked
/// this of each, and each read up to 164 bytes a byte at a time (issue #13 item 4). A quote
/// answers when the blanks before it follow a separator that starts before the sentence's
/// stop; that is every way the byte walk ([`password_is_quoted_walk`]) can succeed, as it
/// skips blanks from the separator to the first byte after them. A non-ASCII byte also
/// answers the walk (it may be a Unicode space), so a stretch holding one is walked.
fn password_is_quoted_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    let limit = b.len().min(end + 4 * 40 + 4);
    if end >= limit {
        return false;
    }
    let stop = memchr::memchr2(b'.', b'\n', &b[end..limit]).map_or(limit, |k| end + k);
    // A separator starting before `stop` ends by `stop + 2`; the byte that answers is the
    // first one after it and its blanks.
    let mut last = (stop + 2).min(b.len());
    while last < b.len() && is_blank(b[last]) {
        last += 1;
    }
    let from = end + 1;
    let window = &b[from..(last + 1).min(b.len())];
    if !window.is_ascii() {
        return password_is_quoted_walk(b, end, limit);
    }
    memchr::memchr2_iter(b'"', b'\'', window).any(|k| {
        let q = from + k;
        let mut w = q;
        while w > end && is_blank(b[w - 1]) {
            w -= 1;
        }
        let sep = |n: usize, words: &[&[u8]]| {
            w >= end + n
                && w - n < stop
                && words.iter().any(|x| b[w - n..w].eq_ignore_ascii_case(x))
        };
        sep(1, &[b"=", b":"]) || sep(2, &[b"is", b"of"]) || sep(3, &[b"was", b"are"])
    })
}

/// A blank as [`sign_follows`] skips it.
fn is_blank(c: u8) -> bool {
    c.is_ascii_whitespace() || c == 0x0b
}

/// [`password_is_quoted_gate`] read a byte at a time from the keyword.
fn password_is_quoted_walk(b: &[u8], end: usize, limit: usize) -> bool {
    let mut j = end;
    while j < limit && !matches!(b[j], b'.' | b'\n') {
        let word = |w: &[u8]| b.len() >= j + w.len() && b[j..j + w.len()].eq_ignore_ascii_case(w);
        // The byte decides which separator may start here before any word is compared.
        let sep = match b[j] | 0x20 {
            _ if matches!(b[j], b'=' | b':') => 1,
            b'i' if word(b"is") => 2,
            b'o' if word(b"of") => 2,
            b'w' if word(b"was") => 3,
            b'a' if word(b"are") => 3,
            _ => 0,
        };
        if sep > 0 && sign_follows(b, j + sep, b"\"'") {
            return true;
        }
        j += 1;
    }
    false
}

/// `secret: …`, `secret_access_key = …`, `"secret key" => …`: the label's tail (at most
/// `_access_key`), a quote, then an assignment sign.
/// For a pattern matched case-sensitively in upper case whose keywords are found in any
/// case (AWS key ids): the keyword stands in upper case. A digest's `acca` wakes no regex.
fn upper_case_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    b[start..end].iter().all(|c| !c.is_ascii_lowercase())
}

fn secret_key_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    let mut i = end;
    let stop = b.len().min(end + "_access_key".len());
    while i < stop && (b[i].is_ascii_alphabetic() || matches!(b[i], b' ' | b'_' | b'-')) {
        i += 1;
    }
    if i < b.len() && matches!(b[i], b'"' | b'\'') {
        i += 1;
    }
    sign_follows(b, i, b"=:")
}

/// The labels SEC121's prose patterns open their windows at. Every label their regexes
/// accept holds one of them: a label that holds none (`access_key`) was searched for only in
/// a window another label opened, and so found or not by where its neighbour's gate stopped
/// reading.
const PROSE_LABELS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "token",
    "api key",
    "api-key",
    "api_key",
    "apikey",
    "access key",
    "access_key",
    "access-key",
    "accesskey",
    "private key",
    "private_key",
    "private-key",
    "privatekey",
    "signing key",
    "signing_key",
    "signing-key",
    "signingkey",
    "client secret",
    "bearer",
    "credential",
];

/// [`labelled_gate`] for a label with a short clause before its value (`password was set
/// to …`, `secret we configured is …`, `token for the demo account: …`, `token (…)`).
///
/// It follows the clause pattern's regex a piece at a time instead of guessing its words, so
/// that it is never stricter than the regex: every place the label can end (its tail `s`,
/// `key`, ` key`, `_key` or `-key`, then a word boundary), the possessive, emphasis and comma
/// after it, then up to ten clause words (blanks, an optional parenthesis, 1–24 word bytes,
/// an optional closing parenthesis and comma), and at every place a clause can stop, inside
/// a word too (`ab->…`, `key(…`), each sign the regex knows, then a run of ten or more value
/// bytes that [`check_clause_labelled`] can report ([`value_run_at`]). A parenthesis gives
/// the value only within three words of the label, as the check has it (from the keyword,
/// which never starts after the label). Reads at most [`CLAUSE_READ`] bytes.
#[allow(
    clippy::many_single_char_names,
    reason = "byte positions of one scan: b the text, i/j/p/q/r/v places in it, n/m/k counts"
)]
fn clause_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    let hi = b.len().min(end + CLAUSE_READ);
    let b = &b[..hi];
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let clause_byte = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'\'' | b'-');
    let blank = |c: u8| c == b' ' || c == b'\t';
    let at =
        |i: usize, s: &[u8]| b.len() >= i + s.len() && b[i..i + s.len()].eq_ignore_ascii_case(s);
    // A sign and its value from `p`, a place where the clause may stop.
    let sign_value_at = |p: usize| {
        let mut j = p;
        while j < b.len() && blank(b[j]) {
            j += 1;
        }
        let spaced = j > p;
        // `(`: within three words of the keyword (the check counts from the label).
        if j < b.len() && b[j] == b'(' {
            let words = b[start..=j]
                .split(u8::is_ascii_whitespace)
                .filter(|w| !w.is_empty());
            return words.count() <= 3 && value_run_at(b, j + 1);
        }
        // A verb or a dash between blanks.
        if spaced {
            let words = [
                &b"is"[..],
                b"was",
                b"are",
                b"to",
                b"now",
                b"as",
                b"be",
                b"equals",
                b"becomes",
                b"still",
                b"currently",
                b"-",
                "\u{2013}".as_bytes(),
                "\u{2014}".as_bytes(),
            ];
            if words.iter().any(|w| {
                at(j, w)
                    && b.get(j + w.len()).is_some_and(|&c| blank(c))
                    && value_run_at(b, j + w.len())
            }) {
                return true;
            }
        }
        // Emphasis, blanks, then an operator.
        if at(j, b"**") || at(j, b"__") {
            j += 2;
        }
        while j < b.len() && blank(b[j]) {
            j += 1;
        }
        let Some(op) = [&b"=>"[..], b"->", "\u{2192}".as_bytes(), b":", b"="]
            .into_iter()
            .find(|op| at(j, op))
        else {
            return false;
        };
        let mut v = j + op.len();
        if value_run_at(b, v) {
            return true;
        }
        // Emphasis after the operator (the value may also start with it, as above).
        while v < b.len() && blank(b[v]) {
            v += 1;
        }
        (at(v, b"**") || at(v, b"__")) && value_run_at(b, v + 2)
    };
    for tail in [
        &b""[..],
        b"s",
        b"key",
        b"keys",
        b" key",
        b" keys",
        b"_key",
        b"_keys",
        b"-key",
        b"-keys",
    ] {
        let label_end = end + tail.len();
        if !at(end, tail) || b.get(label_end).is_some_and(|&c| word(c)) {
            continue;
        }
        // The possessive, emphasis and a comma after the label, each optional.
        let mut stops = [label_end; 8];
        let mut n = 1;
        if at(label_end, b"'s") {
            stops[n] = label_end + 2;
            n += 1;
        }
        // Each stop so far, with its emphasis after it (the new stops are not read again).
        let found = n;
        for k in 0..found {
            let i = stops[k];
            let e = if at(i, b"**") || at(i, b"__") {
                2
            } else {
                usize::from(at(i, b"`"))
            };
            if e > 0 {
                stops[n] = i + e;
                n += 1;
            }
        }
        let found = n;
        for k in 0..found {
            if at(stops[k], b",") {
                stops[n] = stops[k] + 1;
                n += 1;
            }
        }
        if stops[..n].iter().any(|&p| sign_value_at(p)) {
            return true;
        }
        // Where the next clause word may start: a stop followed by a blank (at most one is).
        let mut from = stops[..n]
            .iter()
            .copied()
            .find(|&p| b.get(p).is_some_and(|&c| blank(c)));
        for _ in 0..10 {
            let Some(p) = from.take() else { break };
            let mut q = p;
            while q < b.len() && blank(b[q]) {
                q += 1;
            }
            if q < b.len() && b[q] == b'(' {
                q += 1;
            }
            let mut r = q;
            while r < b.len() && clause_byte(b[r]) {
                r += 1;
            }
            if r == q {
                break;
            }
            // The word may stop inside the run where an operator starts (`ab->…`, `ab__:`).
            if (q + 1..r.min(q + 25)).any(|w| matches!(b[w], b'-' | b'_') && sign_value_at(w)) {
                return true;
            }
            if r - q > 24 {
                break;
            }
            let mut ends = [r; 4];
            let mut m = 1;
            if b.get(r) == Some(&b')') {
                ends[m] = r + 1;
                m += 1;
            }
            let found = m;
            for k in 0..found {
                if b.get(ends[k]) == Some(&b',') {
                    ends[m] = ends[k] + 1;
                    m += 1;
                }
            }
            if ends[..m].iter().any(|&p| sign_value_at(p)) {
                return true;
            }
            from = ends[..m]
                .iter()
                .copied()
                .find(|&p| b.get(p).is_some_and(|&c| blank(c)));
        }
    }
    false
}

/// The most bytes [`clause_gate`] reads past its keyword: the pattern's window (340 bytes
/// after the keyword, widened to a blank by at most 64) and a value's first 300 bytes.
const CLAUSE_READ: usize = 340 + 64 + 300;

/// A byte a labelled value may hold: not a blank, a quote, a bracket or a separator.
fn value_byte(c: u8) -> bool {
    !c.is_ascii_whitespace() && !value_stop(c)
}

/// A quote, a bracket or a separator: where a labelled value stops.
fn value_stop(c: u8) -> bool {
    matches!(
        c,
        b'`' | b'"'
            | b'\''
            | b'<'
            | b'>'
            | b'('
            | b')'
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b','
            | b';'
            | b'|'
    )
}

/// Whether, past blanks and one opening quote from `i`, a run of ten or more value bytes
/// with something other than letters in it follows.
fn value_run_at(b: &[u8], mut i: usize) -> bool {
    while i < b.len() && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    if i < b.len() && matches!(b[i], b'"' | b'\'' | b'`') {
        i += 1;
    }
    let run = i;
    let (mut other, mut upper) = (false, 0);
    // Letters alone qualify when long and of both cases (see [`random_looking`]). Once the
    // run qualifies, more bytes cannot undo it: the read stops there.
    let qualifies = |len: usize, other: bool, upper: usize| {
        len >= 10 && (other || len >= 16 && upper >= 3 && len - upper >= 3)
    };
    while i < b.len() && value_byte(b[i]) {
        other |= !b[i].is_ascii_alphabetic();
        upper += usize::from(b[i].is_ascii_uppercase());
        i += 1;
        if qualifies(i - run, other, upper) {
            return true;
        }
    }
    false
}

/// Whether a label (`password`, `token`, …) ending at `end` can be followed by a value
/// [`check_labelled`] reports: the label's tail (`s`, `key`) and then, within the next few
/// blank-separated runs (separator words, emphasis), a run of ten or more value bytes that
/// holds something besides letters ([`strong_value`] needs a digit or a symbol). "token
/// budget", `token_budget` and a status file's prose fail here, so the pattern's regex is
/// not compiled for them. Never stricter than the regex and the check: a run that holds the
/// value also holds it bytewise.
fn labelled_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    // The label's own tail: `passwords`, `secret_key`, `secret-key`, `secretkey`.
    let rest = &b[end..];
    let tail = [&b"s"[..], b"key", b"_key", b"-key"]
        .iter()
        .find(|t| {
            rest.len() >= t.len()
                && rest[..t.len()].eq_ignore_ascii_case(t)
                && !rest.get(t.len()).is_some_and(|&c| word(c))
        })
        .map_or(0, |t| t.len());
    if tail == 0 && rest.first().is_some_and(|&c| word(c)) {
        // `token_budget`, `tokens`: no word boundary ends the label here.
        return false;
    }
    let value = value_byte;
    let mut i = end + tail;
    // Before the value come at most: a spaced tail (`secret key`), emphasis, a separator word
    // or sign, emphasis again.
    for _ in 0..6 {
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'"' | b'\'' | b'`') {
            i += 1;
        }
        let run = i;
        let mut other = false;
        // Past 300 bytes the check no longer looks (it keeps the value's first 300). A run
        // that qualifies still does as it grows, so it is read only until it does.
        while i < b.len() && value(b[i]) && i - run < 300 {
            other |= !b[i].is_ascii_alphabetic();
            i += 1;
            if i - run >= 10 && other {
                return true;
            }
        }
        if i == run {
            // A line break or a delimiter: no value follows on this line.
            return false;
        }
        while i < b.len() && value(b[i]) {
            i += 1;
        }
    }
    false
}

fn rule_for(id: u16) -> &'static RuleMeta {
    match id {
        30 => &SEC030,
        40 => &SEC040,
        41 => &SEC041,
        51 => &SEC051,
        70 => &SEC070,
        90 => &SEC090,
        _ => &SEC140,
    }
}

fn kind_for(id: u16, m: &str) -> &'static str {
    match id {
        30 => "gitlab-token",
        40 => "openai-key",
        41 => "anthropic-key",
        51 => {
            if m.contains("slack") {
                "slack-webhook"
            } else if m.contains("discord") {
                "discord-webhook"
            } else {
                "teams-webhook"
            }
        }
        70 => {
            if m.starts_with("AIza") {
                "google-api-key"
            } else if m.starts_with("ya29") {
                "google-oauth-access-token"
            } else if m.starts_with("GOCSPX") {
                "google-oauth-client-secret"
            } else {
                "gcp-service-account"
            }
        }
        90 => "jwt",
        _ => "password-hash",
    }
}

/// Bytes read after a recovery-code label, and before it, for its list of codes.
const CODES_AFTER: usize = 600;
const CODES_BEFORE: usize = 400;

/// The bytes that end a word of a list of codes ([`CodeWords`]): blanks, commas,
/// semicolons, pipes, quotes, backticks and brackets, looked up by byte.
const CODE_SEPARATOR: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = b" \t\n\r\x0c,;|`()[]{}\"'";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// The words of `text[from..to]` as (start, end) spans, read forwards or backwards (`back`):
/// runs between blanks, commas, semicolons, pipes, backticks and brackets, closing
/// punctuation left out. Lazy: a list's reader stops at its first word that is no code.
struct CodeWords<'t> {
    text: &'t str,
    from: usize,
    to: usize,
    back: bool,
}

impl Iterator for CodeWords<'_> {
    type Item = (usize, usize);
    fn next(&mut self) -> Option<(usize, usize)> {
        let b = self.text.as_bytes();
        let sep = |c: u8| CODE_SEPARATOR[usize::from(c)];
        loop {
            let (s, e) = if self.back {
                while self.to > self.from && sep(b[self.to - 1]) {
                    self.to -= 1;
                }
                let e = self.to;
                while self.to > self.from && !sep(b[self.to - 1]) {
                    self.to -= 1;
                }
                (self.to, e)
            } else {
                while self.from < self.to && sep(b[self.from]) {
                    self.from += 1;
                }
                let s = self.from;
                while self.from < self.to && !sep(b[self.from]) {
                    self.from += 1;
                }
                (s, self.from)
            };
            if s == e {
                return None;
            }
            let word = self.text[s..e].trim_end_matches(['.', ':', '!', '?']);
            if !word.is_empty() {
                return Some((s, s + word.len()));
            }
        }
    }
}

/// A recovery code's shape: 4 to 16 letters and digits, in one or two groups joined by `-`,
/// not a placeholder (`xxxxx-xxxxx`) nor a list's number (`1.`, `2)`).
fn code_shaped(w: &str) -> bool {
    let alnum = w.bytes().filter(u8::is_ascii_alphanumeric).count();
    let dashes = w.bytes().filter(|&c| c == b'-').count();
    (4..=16).contains(&alnum)
        // Without a digit, only a long one reads as drawn (`disk`, `full` are words).
        && (alnum >= 8 || w.bytes().any(|c| c.is_ascii_digit()))
        && alnum + dashes == w.len()
        && dashes <= 1
        && !w.starts_with('-')
        && !w.ends_with('-')
        && placeholder(w) == Placeholder::No
        && !w.to_ascii_lowercase().contains("xxx")
}

/// The codes of a list that starts among `words` within its first eight words, at a code
/// with a digit (the words before it end the label's sentence: `for the bot account:`, a
/// fence, a table's header), read on while words are codes or a list's numbers: (first
/// start, last end, count), when six or more distinct codes of one length, most with digits,
/// not numbers counted up nor abbreviated commits, follow one another.
fn code_list(text: &str, words: CodeWords<'_>) -> Option<(usize, usize, usize)> {
    let mut words = words.peekable();
    let mut lead = 0;
    loop {
        let &(s, e) = words.peek()?;
        let w = &text[s..e];
        if w.bytes().any(|c| c.is_ascii_digit()) && code_shaped(w) {
            break;
        }
        lead += 1;
        if lead == 8 {
            return None;
        }
        words.next();
    }
    let mut codes: Vec<&str> = Vec::new();
    let (mut first, mut last) = (usize::MAX, 0);
    for (s, e) in words {
        let w = &text[s..e];
        let numbering = w.len() <= 3
            && w.trim_end_matches(['.', ')', '#'])
                .bytes()
                .all(|c| c.is_ascii_digit())
            || w.bytes()
                .all(|c| matches!(c, b'-' | b'*' | b'+' | b'#' | b':'));
        if numbering {
            continue;
        }
        // Twenty codes make the case: a longer run is read no further.
        if !code_shaped(w) || codes.len() == 20 {
            break;
        }
        codes.push(w);
        first = first.min(s);
        last = last.max(e);
    }
    let digits = codes
        .iter()
        .filter(|c| c.bytes().any(|b| b.is_ascii_digit()))
        .count();
    let (short, long) = codes.iter().fold((usize::MAX, 0), |(lo, hi), c| {
        (lo.min(c.len()), hi.max(c.len()))
    });
    let distinct = codes.iter().collect::<std::collections::HashSet<_>>().len();
    let numbers: Vec<u64> = codes.iter().filter_map(|c| c.parse().ok()).collect();
    // Numbers one after another are ids (`1001 1002 1003`), not codes drawn at random.
    let counted = numbers.windows(2).filter(|w| w[1] == w[0] + 1).count() >= 2;
    let four_digit_pairs = short == 4 && numbers.len() == codes.len();
    // Short hex words with letters, undashed, are abbreviated commits (`3f9a2c1`).
    let commits = codes
        .iter()
        .all(|c| c.bytes().all(|b| b.is_ascii_hexdigit()))
        && codes
            .iter()
            .any(|c| c.bytes().any(|b| b.is_ascii_alphabetic()));
    (codes.len() >= 6
        && !counted
        && !commits
        // (Four-digit halves of Google's codes may meet twice by chance.)
        && distinct * 10 >= codes.len() * 9
        && digits * 2 >= codes.len()
        && long == short
        && (short > 4 || four_digit_pairs && codes.len() >= 8))
        .then_some((first, last, codes.len()))
}

/// An account's recovery (backup) codes written out: a list of six or more short random
/// codes after their label (`GitHub recovery codes:`, then one a line; `backup codes: …,
/// …`) or before it (`… ^ those are the npm 2FA recovery codes`). Each one opens the account
/// without its second factor. Advice about codes (`store your recovery codes somewhere
/// safe`) and placeholders (`xxxxx-xxxxx`) give no list.
fn check_recovery_codes(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (ms, me) = caps.whole();
    let to = super::super::text::floor_char(text, (me + CODES_AFTER).min(text.len()));
    let from = super::super::text::floor_char(text, ms.saturating_sub(CODES_BEFORE));
    let words = |from, to, back| CodeWords {
        text,
        from,
        to,
        back,
    };
    let list =
        code_list(text, words(me, to, false)).or_else(|| code_list(text, words(from, ms, true)));
    if let Some((s, e, n)) = list {
        out.push(
            Finding::new(
                &SEC121,
                s,
                e,
                format!("account recovery codes written out ({n} codes)"),
            )
            .secret("recovery-codes"),
        );
    }
}

/// A secret finding over `s..e` with a redacted message.
fn secret(
    rule: &'static RuleMeta,
    kind: &'static str,
    label: &str,
    s: usize,
    e: usize,
    value: &str,
) -> Finding {
    Finding::new(rule, s, e, format!("{label}: {}", redacted(value))).secret(kind)
}

fn check_prefixed<const ID: u16>(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.whole();
    let m = &scan.text()[s..e];
    if ID != 140 && is_template(m) {
        return;
    }
    // A key made up for a document (`AIzaSyA1234567890abcdef…`, a scanner's example spelled
    // in words); a JWT and a password hash are judged by their structure.
    if !matches!(ID, 51 | 90 | 140) && super::stand_ins::made_up_body(m) {
        return;
    }
    let rule = rule_for(ID);
    let kind = kind_for(ID, m);
    let label = rule
        .summary
        .split(['(', '—', '.'])
        .next()
        .unwrap_or(rule.name)
        .trim();
    if kind == "gcp-service-account" {
        out.push(
            Finding::new(
                rule,
                s,
                e,
                "Google Cloud service-account key file (its private_key is a credential)".into(),
            )
            .secret(kind),
        );
        return;
    }
    if ID == 90 && super::stand_ins::unsigned_jwt(m) {
        return;
    }
    let mut f = secret(rule, kind, label, s, e, m);
    if ID == 90 && super::stand_ins::sample_jwt(m) {
        f = f.severity(Severity::Warning);
        f.message.push_str(" (the jwt.io sample token)");
    }
    if ID == 51 && webhook_placeholder(m) {
        return;
    }
    out.push(f);
}

/// A Slack webhook URL whose ids or secret are a stand-in: a segment after `services/` that
/// reads as a lower-case word (`…/T00INTRO/B00INTRO/introplaceholder`; a real secret mixes
/// cases) or that a placeholder judgement rejects.
fn webhook_placeholder(url: &str) -> bool {
    let Some(path) = url.strip_prefix("https://hooks.slack.com/") else {
        return false;
    };
    path.split('/').skip(1).any(|seg| {
        !seg.is_empty()
            && (placeholder(seg) != Placeholder::No
                || seg.len() >= 8 && seg.bytes().all(|c| c.is_ascii_lowercase()))
    })
}

/// An Anthropic key, whole or shortened with an ellipsis. A shortened one is reported when
/// what shows of it was drawn at random: its tail mixes letters with digits or cases, as a
/// real key's does, where a documentation stand-in writes `xxxx` or a word.
fn check_anthropic(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.whole();
    let m = &scan.text()[s..e];
    let Some(cut) = m.find(['…', '.']) else {
        check_prefixed::<41>(scan, caps, out);
        return;
    };
    let tail = m[cut..].trim_start_matches(['…', '.']);
    let head = m[..cut].rsplit('-').next().unwrap_or("");
    let classes = [
        tail.bytes().any(|c| c.is_ascii_uppercase()),
        tail.bytes().any(|c| c.is_ascii_lowercase()),
        tail.bytes().any(|c| c.is_ascii_digit()),
    ]
    .iter()
    .filter(|c| **c)
    .count();
    if classes < 2
        || placeholder(tail) != Placeholder::No
        || placeholder(head) == Placeholder::Hard
        || repeated_run(tail)
        || tail.to_ascii_lowercase().contains("xxx")
    {
        return;
    }
    out.push(secret(
        &SEC041,
        "anthropic-key",
        "Anthropic API key (truncated or partial)",
        s,
        e,
        m,
    ));
}

fn check_private_key(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.whole();
    let header = &scan.text()[s..e];
    let body = scan.text()[e..]
        .trim_start()
        .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '"');
    let what = if header.starts_with("PuTTY") {
        "PuTTY private key file"
    } else {
        header.trim_matches('-')
    };
    if super::stand_ins::elided_key_body(&scan.text()[e..]) {
        out.push(
            Finding::new(
                &SEC001,
                s,
                e,
                format!("private key header ({what}) with its body elided"),
            )
            .secret("private-key")
            .severity(Severity::Warning),
        );
        return;
    }
    let msg = if body {
        format!("private key block ({what})")
    } else {
        format!("private key header ({what}); a header alone still marks a leaked key")
    };
    out.push(Finding::new(&SEC001, s, e, msg).secret("private-key"));
}

fn check_aws_key_id(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.whole();
    let m = &scan.text()[s..e];
    let label = if m.ends_with("EXAMPLE") {
        "AWS access key id (the AWS documentation example key)"
    } else {
        "AWS access key id"
    };
    let mut f = secret(&SEC010, "aws-access-key-id", label, s, e, m);
    // Issued key ids are random: one that ends in EXAMPLE was written for documentation.
    if m.ends_with("EXAMPLE") {
        f = f.severity(Severity::Warning);
    }
    // AWS draws the sixteen characters after the prefix at random: a body that repeats itself
    // (`DEADBEEFDEADBEEF`, `ABCDABCDABCDABCD`) was typed as a stand-in.
    if periodic(&m[m.len() - 16..]) {
        f = f.severity(Severity::Warning);
        f.message.push_str(" (looks like a placeholder)");
    }
    out.push(f);
}

/// The text is a shorter piece written out two or more times (`DEADBEEFDEADBEEF`).
fn periodic(v: &str) -> bool {
    let b = v.as_bytes();
    (1..=b.len() / 2).any(|p| b.len().is_multiple_of(p) && b.chunks(p).all(|c| c == &b[..p]))
}

fn check_aws_secret(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (vs, ve) = caps.range(2).expect("group v");
    let v = caps.str(2);
    let name = caps.str(1).to_lowercase();
    let lo = super::super::text::floor_char(text, vs.saturating_sub(400));
    let near = &text[lo..vs];
    let aws = name.contains("aws")
        || near.to_lowercase().contains("aws")
        || near.contains("AKIA")
        || near.contains("ASIA");
    if !aws || is_template(v) {
        return;
    }
    let mut f = secret(
        &SEC011,
        "aws-secret-access-key",
        "AWS secret access key",
        vs,
        ve,
        v,
    );
    if placeholder(v) != Placeholder::No {
        f = f.severity(Severity::Warning);
        f.message.push_str(" (looks like a placeholder)");
    }
    out.push(f);
}

fn check_aws_session(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (vs, ve) = caps.range(1).expect("group v");
    out.push(secret(
        &SEC011,
        "aws-session-token",
        "AWS session token",
        vs,
        ve,
        &scan.text()[vs..ve],
    ));
}

fn check_github(_scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let Some((s, e, m)) = caps.first(&[1, 2, 3]) else {
        return;
    };
    // `gh?_` + 30 random base62 characters + six of their CRC32: a valid checksum is a real
    // token whatever it looks like (one made-up body in 62^6 passes it by chance), so no
    // placeholder judgement applies; without one, the token is judged by its look.
    let checked = caps.range(1).is_some() && m.len() == 40 && super::catalogue::crc32_valid(m);
    let partial = caps.range(3).is_some();
    // A whole token made up for a document (`ghp_1234567890abcdef…`) is none; a partial one
    // keeps the reference suite's judgement (it fails `ghp_abcdef1234567890abcdef`): what
    // shows of a real token may hold a run.
    if !checked && (is_template(m) || !partial && super::stand_ins::made_up_body(m)) {
        return;
    }
    let (kind, label) = match &m[..3] {
        _ if m.starts_with("github_pat_") => (
            "github-fine-grained-pat",
            "GitHub fine-grained personal access token",
        ),
        "ghp" => ("github-pat", "GitHub personal access token"),
        "gho" => ("github-oauth-token", "GitHub OAuth access token"),
        "ghu" => ("github-app-user-token", "GitHub App user token"),
        "ghs" => (
            "github-app-installation-token",
            "GitHub App installation token",
        ),
        _ => ("github-refresh-token", "GitHub refresh token"),
    };
    let label = if partial {
        format!("{label} (truncated or partial)")
    } else if checked {
        format!("{label} (its checksum is valid)")
    } else {
        label.to_string()
    };
    out.push(secret(&SEC020, kind, &label, s, e, m));
}

fn check_sk(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.range(1).expect("group v");
    let v = &scan.text()[s..e];
    if is_template(v)
        || placeholder(&v[3..]) == Placeholder::Hard
        || repeated_run(v)
        // Made up for a document, at a real key's length; the reference suite fails the
        // short `sk-abcdef1234567890abcdef`, and so does this rule.
        || v.len() >= 40 && super::stand_ins::made_up_body(v)
        || v.to_lowercase().contains("your")
    {
        return;
    }
    // `(e.g. "sk-19763ASDF87q6657")`: a short illustration, shorter than any issued key.
    let line_start = scan.text()[..s].rfind('\n').map_or(0, |i| i + 1);
    if v.len() < 24 && super::stand_ins::introduced_as_example(&scan.text()[line_start..s]) {
        return;
    }
    // A hyphenated English phrase after `sk-` (sk-learn-style) is not a key.
    let body = &v[3..];
    let words_only = body
        .split('-')
        .all(|w| w.chars().all(|c| c.is_ascii_lowercase()) && w.len() <= 10);
    if words_only && body.contains('-') {
        return;
    }
    out.push(secret(
        &SEC042,
        "sk-prefixed-key",
        "sk- prefixed API key",
        s,
        e,
        v,
    ));
}

fn check_slack(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let kinds = [
        ("slack-user-token", "Slack user token"),
        ("slack-bot-token", "Slack bot token"),
        ("slack-legacy-bot-token", "Slack legacy bot token"),
        ("slack-app-token", "Slack app-level token"),
        ("slack-config-token", "Slack configuration token"),
        ("slack-token", "Slack token"),
    ];
    for (i, (kind, label)) in kinds.iter().enumerate() {
        if let Some((s, e)) = caps.range(i + 1) {
            let m = &scan.text()[s..e];
            if is_template(m) {
                return;
            }
            out.push(secret(&SEC050, kind, label, s, e, m));
            return;
        }
    }
}

fn check_stripe(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.whole();
    let m = &scan.text()[s..e];
    let body = m.rsplit('_').next().unwrap_or(m);
    if is_template(m) || placeholder(body) != Placeholder::No || repeated_run(body) {
        return;
    }
    // A test-mode secret or restricted key is a secret all the same: it opens the account's
    // test data and settings through the API. Only a publishable key (`pk_`) is public.
    let (kind, label) = if m.starts_with("whsec_") {
        ("stripe-webhook-secret", "Stripe webhook signing secret")
    } else if caps.str(1).eq_ignore_ascii_case("test") {
        ("stripe-test-key", "Stripe test-mode key")
    } else {
        ("stripe-live-key", "Stripe live key")
    };
    out.push(secret(&SEC060, kind, label, s, e, m));
}

fn check_azure(_scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let Some((s, e, v)) = caps.first(&[1, 2, 3, 4]) else {
        return;
    };
    if is_template(v) || placeholder(v) == Placeholder::Hard {
        return;
    }
    let kind = if caps.range(3).is_some() {
        "azure-ad-client-secret"
    } else if caps.range(4).is_some() {
        "azure-devops-pat"
    } else if caps.range(2).is_some() {
        "azure-app-configuration-secret"
    } else {
        "azure-storage-key"
    };
    let mut f = secret(&SEC080, kind, "Azure credential", s, e, v);
    if placeholder(v) == Placeholder::Soft {
        f = f.severity(Severity::Warning);
    }
    out.push(f);
}

fn check_vault_legacy(_scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let Some((s, e, m)) = caps.first(&[1, 2, 3]) else {
        return;
    };
    if is_template(m) || entropy(m) < 3.0 {
        return;
    }
    let kind = match caps.range(1).is_some() {
        true => "vault-legacy-service-token",
        false if caps.range(2).is_some() => "vault-legacy-batch-token",
        false => "vault-legacy-recovery-token",
    };
    out.push(secret(
        &SEC100,
        kind,
        "HashiCorp Vault token (before 1.10)",
        s,
        e,
        m,
    ));
}

fn check_k8s_token(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.range(1).expect("group v");
    let m = &scan.text()[s..e];
    if placeholder(m) != Placeholder::No {
        return;
    }
    out.push(secret(
        &SEC100,
        "kubernetes-bootstrap-token",
        "Kubernetes bootstrap token",
        s,
        e,
        m,
    ));
}

/// A shell, PHP or Perl variable (`$password`, `${PASS}`, `$super_secret`): a reference.
pub(crate) fn variable(v: &str) -> bool {
    let mut b = v.bytes();
    b.next() == Some(b'$')
        && b.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_' || c == b'{')
}

/// A value an assignment's detector reads as standing in for a secret, whatever its name: a
/// dummy run (`abcdef…`), a phrase of lower-case words (`change-me-in-production`), a field's
/// name (`refresh_token`) or a stand-in of the right shape. An `.aiignore` line does not
/// re-raise one (issue #13).
pub(crate) fn judged_stand_in(v: &str) -> bool {
    super::dummy_run(v) || super::catalogue::phrase(v) || names_a_credential(v) || stand_in(v)
}

/// A stand-in of the right shape: a run of one character (`0000…`), or letters that run
/// through the alphabet between the digits (`a1b2c3d4e5f6…`).
pub(crate) fn stand_in(v: &str) -> bool {
    (repeated_run(v) || interleaved_stand_in(v)) && !super::masked_secret(v)
}

/// Letters that run through the alphabet between the digits (`a1b2c3d4e5f6…`), or a long run
/// of ascending digits among the letters.
pub(crate) fn interleaved_stand_in(v: &str) -> bool {
    let letters: String = v
        .chars()
        .filter(char::is_ascii_alphabetic)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let digits: String = v.chars().filter(char::is_ascii_digit).collect();
    letters.len() >= 8 && super::sequential(&letters) && run_len(&letters) >= 6
        || digits.len() >= 8 && run_len(&digits) >= 8
}

/// The longest run of consecutive ascending characters.
fn run_len(s: &str) -> usize {
    let b = s.as_bytes();
    let (mut best, mut run) = (usize::from(!b.is_empty()), 1);
    for w in b.windows(2) {
        run = if w[1] == w[0] + 1 { run + 1 } else { 1 };
        best = best.max(run);
    }
    best
}

/// True when the value holds a run of twelve or more of one character (`0000…` in a UUID
/// stand-in, `sk_live_xxxx…`): a placeholder of the right shape, not a secret.
pub(crate) fn repeated_run(v: &str) -> bool {
    let mut run = 0;
    let mut prev = 0u8;
    for &c in v.as_bytes() {
        run = if c == prev { run + 1 } else { 1 };
        prev = c;
        if run >= 12 {
            return true;
        }
    }
    false
}

/// A lower-case field or parameter name that names a credential (`refresh_token`,
/// `update_password`, `x-api-key`): the value of a setting that picks a field, a grant type or
/// a route, not a secret.
pub(crate) fn names_a_credential(v: &str) -> bool {
    super::catalogue::lowercase_words(v).is_some_and(|parts| {
        parts.len() >= 2
            && parts.iter().any(|p| {
                matches!(
                    *p,
                    "password"
                        | "passwd"
                        | "pwd"
                        | "token"
                        | "secret"
                        | "key"
                        | "apikey"
                        | "credential"
                        | "credentials"
                        | "passphrase"
                )
            })
    })
}

/// A label or prompt shown to a person that names the credential, not one: words between
/// spaces, letters only (a closing `:`, `?`, `.`, `!` or `…` aside), lower case but for the
/// first letter, one of them a credential's name ("Enter your password", "Forgot
/// password?", "API key:"). A drawn passphrase has no credential's name in it.
pub(crate) fn labels_a_credential(v: &str) -> bool {
    let ws: Vec<&str> = v.split(' ').collect();
    ws.len() >= 2
        && ws.iter().enumerate().all(|(i, w)| {
            let w = w.trim_end_matches([':', '?', '.', '!', '\u{2026}']);
            !w.is_empty()
                && w.bytes().enumerate().all(|(k, c)| {
                    c.is_ascii_lowercase()
                        || c.is_ascii_uppercase() && (k == 0 && i == 0 || w.len() <= 3)
                })
        })
        && ws.iter().any(|w| {
            let w = w
                .trim_end_matches([':', '?', '.', '!', '\u{2026}'])
                .to_ascii_lowercase();
            matches!(
                w.as_str(),
                "password"
                    | "passwd"
                    | "passcode"
                    | "passphrase"
                    | "pin"
                    | "token"
                    | "secret"
                    | "key"
                    | "credentials"
                    | "credential"
            )
        })
}

/// True when a value has the shape of a credential rather than a word. Capitals make a
/// value mixed-case only inside it, and not when they start the words of a name
/// (`token: Artifactory`, `key: GitGuardian`): those name a product, and the tool's own
/// report line `error[SEC100 vendor-token]: GitGuardian API key` must not read as a token.
fn credential_shaped(v: &str) -> bool {
    let has_digit = v.bytes().any(|c| c.is_ascii_digit());
    let has_upper = v.bytes().any(|c| c.is_ascii_uppercase());
    let inner_upper = v.bytes().skip(1).any(|c| c.is_ascii_uppercase());
    let has_letters_only = v.bytes().all(|c| c.is_ascii_alphabetic());
    let has_lower = v.bytes().any(|c| c.is_ascii_lowercase());
    let has_sym = v.bytes().any(|c| {
        matches!(
            c,
            b'.' | b'_'
                | b'~'
                | b'+'
                | b'/'
                | b'='
                | b'-'
                | b'$'
                | b'!'
                | b'@'
                | b'#'
                | b'%'
                | b'^'
                | b'&'
                | b'*'
        )
    });
    (has_digit && (has_upper || has_lower))
        || (inner_upper
            && has_lower
            && v.len() >= 10
            && !(has_letters_only && names_made_of_words(v)))
        || (has_sym && v.len() >= 8 && (has_upper || has_lower))
}

fn check_authorization(_scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    // A bare `Basic <base64>` (a header written without its name, a log line): credentials
    // only when it decodes to a `user:password` pair with a real password.
    if let Some((s, e, v)) = caps.first(&[4]) {
        if let Some(Ok(f)) = basic_credentials(s, e, v, basic_decoded(v).as_deref()) {
            out.push(f);
        }
        return;
    }
    let Some((s, _e, v)) = caps.first(&[2, 3]) else {
        return;
    };
    let scheme = caps.str(1).to_lowercase();
    if is_template(v) || placeholder(v) == Placeholder::Hard {
        return;
    }
    let v = v.trim_end_matches(['.', ',', ')', '\'', '"']);
    let e = s + v.len();
    if v.len() < 4
        || (scheme.is_empty() && (v.len() < 8 || !credential_shaped(v)))
        || (!scheme.is_empty() && !credential_shaped(v) && v.len() < 12)
    {
        return;
    }
    if scheme == "basic" {
        let decoded = basic_decoded(v);
        match basic_credentials(s, e, v, decoded.as_deref()) {
            Some(Ok(f)) => out.push(f),
            Some(Err(())) => {}
            // No pair: a key sent as the whole value (APIs that take their key that way, or
            // base64 of the key alone) is a credential all the same; anything else a warning.
            None => {
                let keyed = |k: &str| {
                    k.len() >= 16
                        && credential_shaped(k)
                        && !is_template(k)
                        && placeholder(k) == Placeholder::No
                };
                let f = secret(
                    &SEC110,
                    "authorization-header",
                    "HTTP Basic value that does not decode to user:password",
                    s,
                    e,
                    v,
                );
                out.push(if keyed(v) || decoded.as_deref().is_some_and(keyed) {
                    f
                } else {
                    f.severity(Severity::Warning)
                });
            }
        }
        return;
    }
    let label = match scheme.as_str() {
        "" | "bearer" => "bearer token",
        _ => "Authorization header credential",
    };
    let mut f = secret(&SEC110, "authorization-header", label, s, e, v);
    if placeholder(v) == Placeholder::Soft {
        f = f.severity(Severity::Warning);
    }
    out.push(f);
}

/// A signing account's private key: random hex, not a stand-in (`0x000…01`, `0xabc…`).
fn check_account_key(_scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let Some((s, e, v)) = caps.first(&[1]) else {
        return;
    };
    let hex = v.trim_start_matches("0x");
    if judged_stand_in(hex) || entropy(hex) < 3.0 || super::placeholder(v) != super::Placeholder::No
    {
        return;
    }
    out.push(secret(
        &SEC001,
        "ethereum-private-key",
        "Ethereum account private key (64 hex in a network's accounts)",
        s,
        e,
        v,
    ));
}

/// A Docker `config.json` `auth` value: base64 of `user:password`; a real password blocks.
fn check_docker_auth(_scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let Some((s, e, v)) = caps.first(&[1]) else {
        return;
    };
    let Some(decoded) = basic_decoded(v).filter(|d| d.contains(':')) else {
        return;
    };
    if let Some(Ok(mut f)) = basic_credentials(s, e, v, Some(&decoded)) {
        f.rule = &SEC100;
        f.kind = Some("docker-config-auth");
        f.message = f
            .message
            .replacen("HTTP Basic credentials", "Docker registry credentials", 1);
        out.push(f);
    }
}

/// A JSON field whose value is judged by the format its key gives it: a Docker `auth` (base64
/// of `user:password`), a GitHub legacy token under a GitHub key (composer's
/// `{"github-oauth": {"github.com": "<40 hex>"}}`). Spans are the value's, in `v`.
fn json_structured_field(f: &super::super::json::Field, v: &str) -> Option<Finding> {
    let key = f.key.to_ascii_lowercase();
    if key == "auth" && v.len() >= 8 {
        let decoded = basic_decoded(v).filter(|d| d.contains(':'))?;
        let Some(Ok(mut found)) = basic_credentials(0, v.len(), v, Some(&decoded)) else {
            return None;
        };
        found.rule = &SEC100;
        found.kind = Some("docker-config-auth");
        found.message =
            found
                .message
                .replacen("HTTP Basic credentials", "Docker registry credentials", 1);
        return Some(found);
    }
    let github = |n: &str| name_parts(n).iter().any(|p| p == "github");
    let commit = |n: &str| {
        name_parts(n)
            .iter()
            .any(|p| COMMIT_WORDS.contains(&p.as_str()))
    };
    (v.len() == 40
        && v.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
        && (github(&f.key) || f.parent.as_deref().is_some_and(github))
        && !commit(&f.key)
        && !f.parent.as_deref().is_some_and(commit)
        && !judged_stand_in(v))
    .then(|| {
        secret(
            &SEC020,
            "github-legacy-token",
            "GitHub legacy OAuth or personal access token (40 hex under a GitHub key)",
            0,
            v.len(),
            v,
        )
    })
}

/// The words of a name that make its 40-hex value a commit, a tree or a run, not a token.
const COMMIT_WORDS: &[&str] = &[
    "sha", "commit", "ref", "rev", "revision", "hash", "head", "base", "after", "before", "digest",
    "version", "tag", "tree", "checkout", "event", "run", "id", "pin", "merge", "release", "blob",
    "object", "oid", "node", "parent", "build", "sum", "checksum",
];

/// A GitHub legacy token (40 lower-case hex) assigned to or passed with a GitHub name.
fn check_github_legacy(_scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (Some(name), Some((s, e, v))) = (caps.range(1).map(|_| caps.str(1)), caps.first(&[2]))
    else {
        return;
    };
    if !v.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
        || name_parts(name)
            .iter()
            .any(|p| COMMIT_WORDS.contains(&p.as_str()))
        || judged_stand_in(v)
        || super::placeholder(v) != super::Placeholder::No
    {
        return;
    }
    out.push(secret(
        &SEC020,
        "github-legacy-token",
        "GitHub legacy OAuth or personal access token (40 hex under a GitHub name)",
        s,
        e,
        v,
    ));
}

/// A Basic value's base64 decoded, when it decodes to text without control characters.
fn basic_decoded(v: &str) -> Option<String> {
    super::encoded::decode_base64(v.trim_end_matches('='))
        .and_then(|b| String::from_utf8(b).ok())
        .filter(|t| !t.chars().any(char::is_control))
}

/// HTTP Basic credentials are `user:password` in base64 (RFC 7617): decoded, the pair is
/// judged as the password it carries. `None` when `v` is no such pair (neither base64 of one
/// nor one written out); `Some(Err(()))` when the pair holds no secret (an empty or
/// placeholder password, a user alone); otherwise the finding, a warning for a password that
/// reads as a documentation stand-in. An empty password with a key-shaped user is the key
/// (`sk_live_…:`, as APIs that take their key as the user name want it).
fn basic_credentials(
    s: usize,
    e: usize,
    v: &str,
    decoded: Option<&str>,
) -> Option<Result<Finding, ()>> {
    let pair = decoded
        .filter(|t| t.contains(':'))
        .or_else(|| v.contains(':').then_some(v))?;
    let (user, password) = pair.split_once(':')?;
    let key = if password.is_empty() { user } else { password };
    if key.is_empty()
        || is_template(key)
        || placeholder(key) == Placeholder::Hard
        || password.is_empty() && !(key.len() >= 16 && credential_shaped(key))
    {
        return Some(Err(()));
    }
    let mut f = secret(
        &SEC110,
        "authorization-header",
        "HTTP Basic credentials (decoded user:password)",
        s,
        e,
        v,
    );
    if placeholder(key) == Placeholder::Soft {
        f = f.severity(Severity::Warning);
        f.message
            .push_str(" (the password looks like a placeholder)");
    }
    Some(Ok(f))
}

/// True for values that are code rather than a literal: calls, indexing, variables, CSS-style
/// selectors, lowercase paths.
fn code_like(v: &str) -> bool {
    let b = v.as_bytes();
    v.contains(['(', ')', '[', ']'])
        || v.starts_with("\\$")
        || v.starts_with('\\')
        || (b.first() == Some(&b'#')
            && v[1..]
                .bytes()
                .all(|c| c.is_ascii_lowercase() || c == b'-' || c == b'_'))
        || v.starts_with('/')
        || v.starts_with("http://")
        || v.starts_with("https://")
        || (v.contains('/')
            && v.split('/').all(|seg| {
                !seg.is_empty()
                    && seg.bytes().all(|c| {
                        c.is_ascii_lowercase()
                            || c.is_ascii_digit()
                            || matches!(c, b'_' | b'-' | b'.' | b'#' | b':')
                    })
            }))
}

/// A value of base64 or base62 randomness (`/oKk7bqL6lvz4BrInA4iqWVEk3eUNZh1ZXxmXpEv`): a literal
/// even where its `/` or brackets would make a shorter value a path or code.
fn random_literal(v: &str) -> bool {
    v.len() >= 16
        && entropy(v) >= 4.0
        && v.bytes().any(|c| c.is_ascii_uppercase())
        && v.bytes().any(|c| c.is_ascii_lowercase())
        && v.bytes().any(|c| c.is_ascii_digit())
        && v.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'_' | b'-'))
        && !v.split('/').any(|seg| {
            // A path's segments are words; a blob's are runs of mixed case and digits.
            seg.len() >= 3
                && seg
                    .bytes()
                    .all(|c| c.is_ascii_lowercase() || c == b'_' || c == b'-')
        })
}

/// A value strong enough to be a credential without an assignment operator to vouch for it
/// (after a label in prose, a flag, a whitespace-separated `ENV` line): three character
/// classes in ten or more characters, or a long random run of letters and digits, and
/// nothing of a word, a name, a path or a placeholder.
pub(crate) fn strong_value(v: &str) -> bool {
    let n = v.chars().count();
    if !(10..=512).contains(&n) || v.chars().any(char::is_whitespace) || !v.is_ascii() {
        return false;
    }
    let up = v.bytes().any(|c| c.is_ascii_uppercase());
    let lo = v.bytes().any(|c| c.is_ascii_lowercase());
    let dg = v.bytes().any(|c| c.is_ascii_digit());
    let sym = v.bytes().any(|c| !c.is_ascii_alphanumeric());
    let classes = usize::from(up) + usize::from(lo) + usize::from(dg) + usize::from(sym);
    let hex = n >= 32 && v.bytes().all(|c| c.is_ascii_hexdigit()) && dg && (up || lo);
    let shaped = classes >= 3 && entropy(v) >= 3.0
        || n >= 20 && dg && (up || lo) && entropy(v) >= 3.5
        || hex;
    shaped
        && !is_template(v)
        && placeholder(v) == Placeholder::No
        && !super::dummy_run(v)
        && !super::catalogue::phrase(v)
        && !stand_in(v)
        && !variable(v)
        && (!code_like(v) || random_literal(v))
        && !v.contains("://")
        && !v.starts_with(['-', '.', '#', '@', '&', '%', '~'])
        // A dotted or slashed name (`com.example.App`, `org/repo`), a version, a file name.
        && !(v.contains(['.', '/', ':']) && !random_literal(v) && v.split(['.', '/', ':']).all(|p| {
            p.len() < 3 || p.bytes().all(|c| c.is_ascii_alphabetic()) || p.bytes().all(|c| c.is_ascii_digit())
        }))
}

/// A date (`2024-06-01`), a version (`v1.4.2-beta`, `0.4.2`) or words joined by dashes
/// (`expired-on-…`): what a qualified name such as `TOKEN_OLD` labels when it is no secret.
fn labels_a_version_or_date(v: &str) -> bool {
    let b = v.as_bytes();
    let date = b.windows(10).any(|w| {
        w[..4].iter().all(u8::is_ascii_digit)
            && w[4] == b'-'
            && w[5..7].iter().all(u8::is_ascii_digit)
            && w[7] == b'-'
            && w[8..].iter().all(u8::is_ascii_digit)
    });
    let version = v
        .trim_start_matches('v')
        .starts_with(|c: char| c.is_ascii_digit())
        && v.contains('.')
        && v.bytes().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'+' | b'v')
        });
    let words = v
        .split(['-', '_', '.'])
        .filter(|w| w.len() >= 3 && w.bytes().all(|c| c.is_ascii_lowercase()))
        .count()
        >= 2;
    // Lowercase words and numbers between dashes: a region, a host's or an app's name
    // (`eu-central-1`, `my-app-2`), not a key's alphabet.
    let slug = v.contains('-')
        && v.split('-').all(|p| {
            !p.is_empty()
                && (p.bytes().all(|c| c.is_ascii_lowercase())
                    || p.bytes().all(|c| c.is_ascii_digit()))
        })
        // Two words, or a region's or a stage's word: one word and a number is how
        // passwords are often made (`hunter-1987`, review 25).
        && {
            let words = || {
                v.split('-')
                    .filter(|p| p.bytes().all(|c| c.is_ascii_lowercase()))
            };
            words().count() >= 2 || words().any(name_qualifier)
        };
    // The value names the form or stage itself (`TOKEN_B64=base64`).
    date || version || words || slug || name_qualifier(v)
}

/// Whether the text between backticks is a command whose output a shell substitutes: a
/// program's name, then arguments after a blank (a credential holds no blank).
fn command_output(v: &str) -> bool {
    v.split_once(' ').is_some_and(|(cmd, args)| {
        // A program's name is lower case; `echo` and `printf` print their arguments.
        (1..=24).contains(&cmd.len())
            && cmd.bytes().any(|c| c.is_ascii_lowercase())
            && cmd.bytes().all(|c| {
                c.is_ascii_lowercase()
                    || c.is_ascii_digit()
                    || matches!(c, b'-' | b'_' | b'.' | b'/')
            })
            && !matches!(cmd.rsplit('/').next(), Some("echo" | "printf" | "print"))
            && !args.trim().is_empty()
    })
}

/// The word just before `at` on its line, past blanks and `*`/`_` emphasis.
fn word_before(text: &str, at: usize) -> Option<&str> {
    let head = text[..at].trim_end_matches([' ', '\t', '*', '_']);
    let start = head
        .char_indices()
        .rev()
        .find(|(_, c)| !c.is_ascii_alphanumeric())
        .map_or(0, |(i, c)| i + c.len_utf8());
    (start < head.len()).then(|| &head[start..])
}

/// "Password" in the languages whose word for it is not the English one, as written in
/// configuration names (ASCII, without diacritics).
fn password_word(w: &str) -> bool {
    matches!(
        w,
        "passwort"
            | "kennwort"
            | "contrasena"
            | "contrasenya"
            | "senha"
            | "wachtwoord"
            | "haslo"
            | "heslo"
            | "salasana"
            | "parol"
            | "parola"
            | "lozinka"
            | "jelszo"
            | "sifre"
            | "losenord"
            | "passord"
            | "adgangskode"
            | "motdepasse"
            | "geslo"
            | "slaptazodis"
    )
}

/// A name's words as [`credential_name`] judges them: a qualifier after the credential word
/// names which one it is, not something else (`API_KEY_PROD`, `DB_PASSWORD_2`, `SECRET_V2`,
/// `TOKEN_B64`, review 23), so it is set aside.
fn judged_parts(name: &str) -> Vec<String> {
    let mut parts = name_parts(name);
    while let Some(last) = parts.last() {
        let letters = last.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        if parts.len() > 1 && name_qualifier(last) {
            parts.pop();
        } else if letters > 0 && letters < last.len() {
            // A number glued to the word (`apiKey1`, `token2`).
            let n = parts.len() - 1;
            parts[n].truncate(letters);
        } else {
            break;
        }
    }
    parts
}

/// Whether a name's words say outright that its value is no secret: a public key, a key's
/// id, name, path or file, a tokenizer, a record's handle (`PARTITION_KEY`, `page_token`),
/// or a key meant to be published (`NEXT_PUBLIC_…_KEY`, a captcha's site key, a search-only
/// key, a GPG key's id).
fn not_a_secret_name(parts: &[String]) -> bool {
    let Some(last) = parts.last().map(String::as_str) else {
        return false;
    };
    let prev = parts.len().checked_sub(2).map_or("", |i| parts[i].as_str());
    let whole: String = parts.concat();
    [
        "publickey",
        "pubkey",
        "keyid",
        "keyname",
        "keypath",
        "keyfile",
        "tokenizer",
        "tokentype",
        "tokenurl",
    ]
    .iter()
    .any(|x| whole.ends_with(x))
        || !secret_marked(parts)
            && ((prev == "public" || prev == "pub")
                && !matches!(
                    last,
                    "password" | "passwd" | "pwd" | "passphrase" | "pass" | "secret"
                )
                || last == "key"
                    && (names_a_record(prev) && (parts.len() == 2 || !first_only(prev))
                        || parts.windows(2).any(|w| w[0] == "search" && w[1] == "only")
                        || parts.iter().any(|p| {
                            matches!(
                                p.as_str(),
                                "public" | "publishable" | "site" | "anon" | "gpg" | "pgp"
                            )
                        }))
                || last == "token" && names_a_page(parts))
}

/// A word in a name that makes its value a secret whatever else the name says
/// (`GPG_PRIVATE_KEY`, `NEXT_PUBLIC_STRIPE_SECRET_KEY`).
fn secret_marked(parts: &[String]) -> bool {
    parts.iter().any(|p| {
        matches!(
            p.as_str(),
            "secret" | "private" | "signing" | "password" | "passwd" | "priv" | "master"
        )
    })
}

/// A record word that names a database's key only at the head of a name (`PRIMARY_KEY`),
/// where after a service's name it is the service's own (`AZURE_STORAGE_PRIMARY_KEY`).
fn first_only(word: &str) -> bool {
    matches!(word, "primary" | "secondary" | "hash" | "redis" | "lock")
}

/// A page's or a cursor's token (`next_page_token`, `pagination_token`, `sync_token`), not a
/// credential (a Facebook `PAGE_TOKEN` is one).
fn names_a_page(parts: &[String]) -> bool {
    let prev = parts.len().checked_sub(2).map_or("", |i| parts[i].as_str());
    let before = parts.len().checked_sub(3).map_or("", |i| parts[i].as_str());
    matches!(prev, "pagination" | "continuation" | "cursor" | "sync")
        || prev == "page" && matches!(before, "next" | "prev" | "previous")
}

/// Whether `name` (an assignment's) says outright that its value is no secret (see
/// [`not_a_secret_name`]): an `.aiignore` pattern for assignments does not raise it either.
pub(crate) fn names_no_secret(name: &str) -> bool {
    let trimmed = name
        .trim_matches(['"', '\'', '?', '!', ' ', '\t'])
        .trim_start_matches(['$', '@', '.', '-', '_']);
    not_a_secret_name(&judged_parts(trimmed))
}

/// Whether `value`, given to `key` after the prose word `word` (lower case), names a public
/// key by its fingerprint: an `OpenPGP` key's (`GPG key: 8DAC…`) in hex of a key id's or a
/// fingerprint's length (8, 16, 40 or 64 digits, `0x` allowed), a signing or release key's
/// the same in upper case, as `gpg` prints it (a secret in hex is written in lower case), or
/// an SSH host key's `SHA256:…`/`MD5:…` as `ssh-keygen -l` prints it. A private key is no
/// one-line hex run: its block is SEC's private-key rule's to judge.
fn public_key_fingerprint(word: &str, value: &str) -> bool {
    let v = value.trim_matches(['"', '\'', '`', '*', '_']);
    let v = v.trim_end_matches(['.', ',', ';', ')']);
    if matches!(word, "host" | "ssh" | "gpg" | "pgp" | "server")
        && (v.starts_with("SHA256:") || v.starts_with("MD5:"))
    {
        return true;
    }
    let hex = v
        .strip_prefix("0x")
        .or_else(|| v.strip_prefix("0X"))
        .unwrap_or(v);
    let fingerprint_length = matches!(hex.len(), 8 | 16 | 40 | 64);
    if !fingerprint_length || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
        return false;
    }
    let openpgp = matches!(word, "gpg" | "pgp" | "openpgp" | "gnupg");
    let public = matches!(
        word,
        "signing"
            | "release"
            | "public"
            | "apt"
            | "repository"
            | "repo"
            | "maintainer"
            | "maintainers"
            | "archive"
            | "packaging"
            | "verification"
            | "distribution"
    );
    openpgp || public && !hex.bytes().any(|c| c.is_ascii_lowercase())
}

/// A word that, before `key` or `token`, makes it a record's, a cache's or a page's handle,
/// not a credential: `PARTITION_KEY`, `cache key`, `next_page_token`, `feature flag key`.
fn names_a_record(word: &str) -> bool {
    matches!(
        word,
        "cache"
            | "sort"
            | "primary"
            | "foreign"
            | "partition"
            | "idempotency"
            | "dedup"
            | "dedupe"
            | "deduplication"
            | "lookup"
            | "index"
            | "hash"
            | "map"
            | "row"
            | "column"
            | "field"
            | "object"
            | "item"
            | "unique"
            | "composite"
            | "shard"
            | "routing"
            | "route"
            | "i18n"
            | "translation"
            | "locale"
            | "memcache"
            | "flag"
            | "feature"
            | "lock"
            | "redis"
            | "etag"
            | "dictionary"
            | "dict"
            | "lru"
    )
}

/// A word that, after a credential word in a name, says which credential it is: a number
/// or version, a deployment stage, a place in a rotation, a slot, or the form the value is
/// written in.
fn name_qualifier(part: &str) -> bool {
    part.bytes().all(|c| c.is_ascii_digit())
        || part
            .strip_prefix('v')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
        || matches!(
            part,
            "prod"
                | "production"
                | "prd"
                | "live"
                | "dev"
                | "develop"
                | "development"
                | "staging"
                | "stage"
                | "stg"
                | "test"
                | "testing"
                | "qa"
                | "uat"
                | "sandbox"
                | "local"
                | "preview"
                | "preprod"
                | "demo"
                | "ci"
                | "old"
                | "new"
                | "prev"
                | "previous"
                | "next"
                | "current"
                | "latest"
                | "legacy"
                | "backup"
                | "temp"
                | "tmp"
                | "fallback"
                | "alt"
                | "primary"
                | "secondary"
                | "b64"
                | "base64"
                | "hex"
                | "raw"
                | "value"
                | "val"
                | "plain"
                | "plaintext"
                // Where it is used, what it may do, whose it is (review 24).
                | "eu"
                | "us"
                | "uk"
                | "east"
                | "west"
                | "north"
                | "south"
                | "central"
                | "apac"
                | "emea"
                | "global"
                | "ro"
                | "rw"
                | "readonly"
                | "readwrite"
                | "read"
                | "write"
                | "admin"
                | "root"
                | "bot"
                | "main"
                | "internal"
                | "external"
                | "encrypted"
        )
        || part.len() == 1 && part.bytes().all(|c| c.is_ascii_lowercase())
}

/// The lowercase words of an identifier, split at separators and camelCase humps
/// (`beamerApiKey` → `beamer`, `api`, `key`).
pub(crate) fn name_parts(name: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if matches!(c, '_' | '-' | '.' | '$' | ':' | '/' | '"' | '\'' | '@') {
            if !cur.is_empty() {
                parts.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            parts.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts
}

/// A provider's key (`beamer_key`, `mapquestKey`, `sendbird-key`): a name of two or more
/// words ending in `key` whose other words name no kind of key that is not a secret (a cache,
/// sort or primary key, a public key, a key's id or path). Judged with the value: only a
/// strong random literal makes it a credential.
fn provider_key_name(name: &str) -> bool {
    let parts = name_parts(name);
    parts.len() >= 2
        && parts.len() <= 4
        && parts.last().is_some_and(|p| p == "key")
        && !parts.iter().any(|p| {
            matches!(
                p.as_str(),
                "cache"
                    | "sort"
                    | "only"
                    | "primary"
                    | "foreign"
                    | "partition"
                    | "idempotency"
                    | "dedup"
                    | "dedupe"
                    | "lookup"
                    | "index"
                    | "hash"
                    | "map"
                    | "group"
                    | "row"
                    | "column"
                    | "field"
                    | "object"
                    | "item"
                    | "list"
                    | "unique"
                    | "composite"
                    | "shard"
                    | "routing"
                    | "route"
                    | "state"
                    | "message"
                    | "i18n"
                    | "translation"
                    | "locale"
                    | "public"
                    | "pub"
                    | "publishable"
                    | "site"
                    | "anon"
                    | "browser"
                    | "frontend"
                    | "ssh"
                    | "gpg"
                    | "pgp"
                    | "kms"
                    | "host"
                    | "file"
                    | "path"
                    | "name"
                    | "id"
                    | "type"
                    | "react"
                    | "query"
                    | "request"
                    | "storage"
                    | "s3"
                    | "bucket"
                    | "redis"
                    | "memcache"
                    | "event"
                    | "job"
                    | "lock"
                    | "trace"
                    | "span"
                    | "metric"
                    | "label"
                    | "tag"
                    | "dict"
                    | "json"
                    | "config"
                    | "setting"
                    | "settings"
                    | "env"
                    | "header"
                    | "param"
                    | "table"
                    | "db"
                    | "sql"
            )
        })
}

/// A value with nothing of a word in it: letters and digits mixed throughout, in the
/// alphabets keys are written in, no lowercase word between its separators
/// (`new-checkout-flow-v2` and `user:42:session` are names, not keys).
fn opaque(v: &str) -> bool {
    v.bytes().any(|c| c.is_ascii_digit())
        && v.bytes().any(|c| c.is_ascii_alphabetic())
        && v.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'+' | b'/' | b'='))
        && entropy(v) >= 3.5
        && !v
            .split(['-', '_', '.'])
            .any(|p| p.len() >= 3 && p.bytes().all(|c| c.is_ascii_lowercase()))
}

/// Names that hold credentials: the last word(s) of the identifier.
///
/// A pure function of the name, asked again and again of the same few names by a text of
/// assignments or tables (`password=` after `password=`, a table header repeated: issue #13
/// item 4), where working it out allocates the name's words each time. Short names keep their
/// answer in a small per-thread table (one slot per hash, the last name in it wins), so
/// memory stays bounded whatever the text.
fn credential_name(name: &str) -> Option<bool> {
    /// Slots of the table; names up to [`NAME_MEMO_LEN`] bytes are kept.
    const SLOTS: usize = 256;
    const NAME_MEMO_LEN: usize = 48;
    type Slot = ([u8; NAME_MEMO_LEN], u8, Option<bool>);
    thread_local! {
        static MEMO: std::cell::RefCell<Vec<Slot>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    if name.is_empty() || name.len() > NAME_MEMO_LEN {
        return credential_name_uncached(name);
    }
    let slot = {
        use std::hash::BuildHasher as _;
        // An Fx hash of a short name varies little in its top byte (`USER` and `password`
        // share it): multiplied once more, every bit of it moves the top byte.
        let h = rustc_hash::FxBuildHasher.hash_one(name);
        (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize % SLOTS
    };
    let len = u8::try_from(name.len()).expect("at most NAME_MEMO_LEN");
    let known = MEMO.with_borrow(|m| {
        m.get(slot)
            .filter(|(k, n, _)| *n == len && &k[..name.len()] == name.as_bytes())
            .map(|e| e.2)
    });
    if let Some(answer) = known {
        return answer;
    }
    let answer = credential_name_uncached(name);
    MEMO.with_borrow_mut(|m| {
        if m.is_empty() {
            m.resize(SLOTS, ([0; NAME_MEMO_LEN], 0, None));
        }
        let mut key = [0; NAME_MEMO_LEN];
        key[..name.len()].copy_from_slice(name.as_bytes());
        m[slot] = (key, len, answer);
    });
    answer
}

/// [`credential_name`] worked out.
fn credential_name_uncached(name: &str) -> Option<bool> {
    let raw = name.trim_end_matches(['"', '\'', '?', '!']);
    let trimmed = raw.trim_start_matches(['$', '@', '.', '-', '_']);
    let env = !trimmed.is_empty()
        && trimmed
            .bytes()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
        && trimmed.bytes().any(|c| c.is_ascii_uppercase());
    let parts = judged_parts(trimmed);
    if not_a_secret_name(&parts) {
        return None;
    }
    let last = parts.last()?.as_str();
    let prev = parts.len().checked_sub(2).map_or("", |i| parts[i].as_str());
    let whole: String = parts.concat();
    let ok = match last {
        "password" | "passwd" | "pwd" | "passphrase" | "secret" | "token" | "credential"
        | "credentials" | "apikey" | "authtoken" | "secretkey" | "accesskey" | "privatekey"
        | "clientsecret"
        // Review 23: the words for a credential outside the usual few.
        | "creds" | "cred" | "pepper" | "kek" | "dek" | "sas" | "connstr"
        | "connectionstring"
        // An acronym run into its word (`kAPIToken`, `AccessTOKEN`): one part.
        | "apitoken" | "accesstoken" => true,
        w if password_word(w) => true,
        // A one-time-password generator's seed, the codes that recover an account.
        "seed" => matches!(prev, "totp" | "otp" | "hotp" | "mfa" | "twofa"),
        "code" | "codes" => matches!(prev, "recovery" | "backup"),
        "cookie" => matches!(prev, "session" | "auth" | "login") || env && parts.len() == 1,
        "str" | "string" => matches!(prev, "conn" | "connection"),
        "pat" => parts.len() > 1,
        "auth" => env,
        // An `Authorization` header's value as a mapping holds it (`"authorization": "…"`):
        // a scheme and its token are SEC110's, a bare token is the header's whole value.
        "authorization" => parts.len() == 1,
        // Rails's `secret_key_base`, `SECRET_KEY_BASE`, `secretKeyBase`.
        "base" => whole == "secretkeybase",
        // `pass` alone is often a step (`first_pass`, `render_pass`): a credential when the
        // name is a constant, a PHP or shell variable, or names what the password opens.
        "pass" | "pw" => {
            env || raw.starts_with('$')
                || parts.len() == 1 && last == "pw"
                || matches!(
                    prev,
                    "db" | "database"
                        | "smtp"
                        | "mail"
                        | "email"
                        | "user"
                        | "admin"
                        | "root"
                        | "ftp"
                        | "sftp"
                        | "ssh"
                        | "sql"
                        | "mysql"
                        | "pg"
                        | "postgres"
                        | "redis"
                        | "ldap"
                        | "proxy"
                        | "login"
                        | "api"
                        | "app"
                        | "bind"
                        | "store"
                        | "key"
                        | "wifi"
                        | "vpn"
                        | "account"
                        | "auth"
                        | "keystore"
                        | "truststore"
                        | "rabbit"
                        | "rabbitmq"
                        | "mongo"
                        | "server"
                        // PHP's `mysqli.default_pw`, a tool's `default_pass`.
                        | "default"
                )
        }
        // WordPress-style keys and salts (`AUTH_SALT`, `NONCE_SALT`) are secret.
        "salt" => env && parts.len() > 1,
        "key" => {
            env && parts.len() > 1
                || matches!(
                    prev,
                    "api"
                        | "access"
                        | "secret"
                        | "private"
                        | "client"
                        | "app"
                        | "auth"
                        | "license"
                        | "licence"
                        | "master"
                        | "signing"
                        | "encryption"
                        | "session"
                        | "account"
                        | "service"
                        | "subscription"
                        | "consumer"
                        | "admin"
                        | "deploy"
                        | "write"
                        | "stream"
                        | "shared"
                        | "storage"
                        | "sas"
                        | "root"
                        | "bot"
                        | "hmac"
                        | "crypto"
                        | "jwt"
                        | "cookie"
                        | "preshared"
                        | "instrumentation"
                        | "ingestion"
                        | "encrypt"
                        | "aes"
                        | "webhook"
                        | "server"
                        | "sdk"
                        | "mobile"
                        | "rest"
                        | "secure"
                        | "fb"
                        | "x"
                        | "google"
                        | "maps"
                )
        }
        // One compound word: `jwtsecret`, `csrftoken`, `dbpassword`, and a key store's
        // password run into one word as Java's tools name their options (`-storepass`,
        // `-srcstorepass`, `-keypass`, `keystorepass=`).
        _ => {
            parts.len() == 1 && store_pass(&whole)
                || whole.ends_with("password")
                || whole.ends_with("motdepasse")
                || whole.ends_with("secret")
                || whole.ends_with("passwd")
                || parts.len() == 1 && whole.ends_with("token")
                || whole.ends_with("apikey")
                || whole.ends_with("secretkey")
                || whole.ends_with("accesskey")
        }
    };
    ok.then_some(env)
}

/// A key store's or key's password named in one word, the way Java's `keytool` and
/// `jarsigner` spell their options: `storepass`, `keypass`, `srcstorepass`, `deststorepass`,
/// `keystorepass`, `truststorepass`, `newpass`'s kin with a store or key before it. Words that
/// only end in `pass` (`bypass`, `compass`, `renderpass`) name no store.
fn store_pass(whole: &str) -> bool {
    let Some(head) = ["pass", "pwd", "pw"]
        .iter()
        .find_map(|s| whole.strip_suffix(s))
    else {
        return false;
    };
    let head = ["src", "dest", "new", "old"]
        .iter()
        .find_map(|p| head.strip_prefix(p))
        .unwrap_or(head);
    matches!(head, "store" | "key" | "keystore" | "truststore")
}

/// True when the name starting at `ns` closes a bracketed phrase before its operator at `op`:
/// `[SEC100 vendor-token]: GitGuardian API key` (the tool's own report line, which the
/// output boundary redacts as a last resort) or a Markdown link definition `[the token]:
/// …`. An index (`ENV["TOKEN"] = …`, `cfg[token]: …`) holds the name alone in its brackets.
/// Reads at most 200 bytes back from the name, so many such names on one long line cost
/// what they span, not the line each.
fn bracketed_phrase(text: &str, ns: usize, op: usize) -> bool {
    if !text[ns..op].contains(']') {
        return false;
    }
    let before = &text.as_bytes()[ns.saturating_sub(200)..ns];
    let line = before
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(before, |i| &before[i + 1..]);
    line.iter()
        .rposition(|&c| c == b'[')
        .is_some_and(|open| line[open + 1..].iter().any(|&c| c == b' ' || c == b'\t'))
}

fn check_assignment(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let name = caps.str(1);
    let Some(env) = credential_name(name).or_else(|| {
        // A bare `key:`, `pass:` or `pw=` names a credential only when the value is one on
        // its own (`sendgrid:\n  key: 2l5dB…`); `key: v1-deps-…` and `pass: true` are not.
        let bare = name.trim_matches(['"', '\'', '$']).to_ascii_lowercase();
        let v = caps.str(4).trim_matches(['"', '\'', '`']);
        // A UUID under such a name is more often a record's or an upload's id.
        let uuid = v.len() == 36 && v.bytes().filter(|&c| c == b'-').count() == 4;
        let provider_key =
            provider_key_name(name) && strong_value(v) && opaque(v) && v.len() >= 16 && !uuid;
        (matches!(bare.as_str(), "key" | "pass" | "pw" | "auth" | "pat")
            && strong_value(v)
            && v.len() >= 12
            || provider_key)
            .then_some(false)
    }) else {
        return;
    };
    let (ns, _) = caps.range(1).expect("group name");
    // A name read by a reference (`${API_KEY:?missing}`, `$API_KEY`) is not assigned here;
    // its default (`${PASSWORD:-…}`, `${TOKEN:=…}`) is a literal and is judged.
    let after_name = &text[caps.range(1).expect("group name").1..];
    if (text[..ns].ends_with('$') || text[..ns].ends_with("${"))
        && !after_name.starts_with([':', '-', '=', '+'])
        || text[..ns].ends_with("${") && after_name.starts_with(":?")
    {
        return;
    }
    if bracketed_phrase(text, ns, caps.range(3).expect("group op").0) {
        return;
    }
    let prose_word = word_before(text, ns).map(str::to_ascii_lowercase);
    let lower_name = name.to_ascii_lowercase();
    if prose_word.as_deref().is_some_and(|w| {
        lower_name == "key" && (names_a_record(w) || matches!(w, "public" | "publishable"))
            || lower_name == "token"
                && matches!(w, "pagination" | "continuation" | "cursor" | "sync")
    }) {
        // `Cache key: deps-…`, `Pagination token: eyJ…` (review 23).
        return;
    }
    // A public key named by its fingerprint or key id (`Our GPG key: 8DAC…`, `Signing key:
    // 0x5B20…`, `SSH host key: SHA256:…`): an identifier anyone may publish.
    if lower_name == "key"
        && prose_word
            .as_deref()
            .is_some_and(|w| public_key_fingerprint(w, caps.str(4)))
    {
        return;
    }
    let op = caps.str(3);
    let (vs, ve) = caps.range(4).expect("group val");
    // The value the regex took may be a string literal's prefix (`r"…"`, `b'…'`) or a
    // declared type (`apiKey: String = "…"`, `API_KEY: &str = "…"`): the literal follows.
    let direct = string_prefix_literal(text, vs, ve)
        .or_else(|| (op == ":").then(|| typed_literal(text, vs, ve)).flatten());
    // A default after an environment read or a template tag's literal: a real secret is
    // judged; a weak default (`|| "development"`, `or "postgres"`) is a choice, not a leak.
    let followed = direct
        .is_none()
        .then(|| following_literal(text, vs, ve))
        .flatten();
    let (vs, ve) = direct.or(followed).unwrap_or((vs, ve));
    // A YAML block scalar (`token: |` or `token: >-`, the value indented on the next line):
    // the value is that line's.
    let vs = if op == ":" && text[vs..ve].starts_with(['|', '>']) {
        vs + text[vs..ve].find('\n').map_or(0, |i| i + 1)
    } else {
        vs
    };
    let vs = vs + (text[vs..ve].len() - text[vs..ve].trim_start().len());
    let raw_val = &text[vs..ve];
    let escaped = raw_val.starts_with("\\\"");
    // Objective-C's `@"…"` string literal; Python's and Kotlin's triple-quoted one.
    let at = raw_val.starts_with("@\"");
    let triple = raw_val.len() > 6 && raw_val.starts_with("\"\"\"") && raw_val.ends_with("\"\"\"");
    let quoted = escaped || at || raw_val.starts_with(['"', '\'', '`']);
    let q = if triple {
        3
    } else if escaped {
        2
    } else {
        1
    };
    let lead = q + usize::from(at);
    let (vs, ve, v) = if quoted {
        (vs + lead, ve - q, &raw_val[lead..raw_val.len() - q])
    } else {
        (vs, ve, raw_val)
    };
    // Backticks around spaces close one code span and open the next (`` Set `password=` in
    // the `[db]` section ``): prose between two spans, not a literal. Backticks around a
    // command with its arguments substitute its output (`` `cat /run/secrets/key` ``).
    if raw_val.starts_with('`')
        && (v.starts_with([' ', '\t']) || v.ends_with([' ', '\t']) || command_output(v))
    {
        return;
    }
    let (line_start, _) = line_near(text, ns, ns, 256);
    let at_line_start = text[line_start..ns]
        .trim_start_matches([' ', '\t', '-', '*', '#', '>'])
        .trim()
        .is_empty()
        || text[line_start..ns].trim().eq_ignore_ascii_case("export")
        || text[line_start..ns].trim().eq_ignore_ascii_case("set");
    let comparison = op.starts_with('!') || op.len() >= 2 && op.starts_with('=') && op != "=>";
    // An unquoted right-hand side is a variable's name (`token == expected`), unless it reads
    // as drawn at random, which no name does (`[[ $secret == 9vQ2…+cbr ]]`).
    if comparison && !quoted && !random_literal(raw_val) {
        return;
    }
    // A fallback written with `||` (`process.env.TOKEN || "…"`) is the same default: only a
    // literal drawn at random is a leak.
    if (followed.is_some() || op == "||") && !random_looking(v) {
        return;
    }
    // A long quoted string of high entropy is a literal even when it holds brackets.
    let literal = quoted && v.len() >= 16 && entropy(v) >= 4.0 || random_literal(v);
    if is_template(v)
        || code_like(v) && !literal
        || judged_stand_in(v)
        || variable(v) && !(quoted && raw_val.starts_with('\''))
    {
        return;
    }
    // A quoted string followed by `+` or `.` is part of an expression.
    let tail = text[ve + q.min(text.len() - ve)..].trim_start();
    // (A conversion of the literal is the literal: `"…".to_string()`, `"…".into()`.)
    let converted = [".to_string()", ".to_owned()", ".into()", ".to_str()"]
        .iter()
        .any(|c| tail.starts_with(c));
    if quoted
        && (tail.starts_with('+') || tail.starts_with('.') && !tail.starts_with("..") && !converted)
    {
        return;
    }
    // The next character after an unquoted value decides whether it was an expression.
    if !quoted {
        let after = text[ve..].chars().next().unwrap_or(' ');
        if after == '('
            || v.contains('(')
            || (v.contains('.')
                && v.split('.').all(|p| {
                    !p.is_empty()
                        && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                        && p.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                }))
                && !v.chars().any(|c| c.is_ascii_digit())
        {
            return;
        }
        if v.bytes()
            .all(|c| c.is_ascii_uppercase() || c == b'_' || c.is_ascii_digit())
            && v.contains('_')
        {
            return;
        }
        if v.starts_with("http")
            || v.starts_with('/') && !random_literal(v)
            || v.starts_with("~/")
            || v.starts_with("./")
        {
            return;
        }
    }
    let min = if env || quoted { 4 } else { 6 };
    if v.chars().count() < min {
        return;
    }
    let lname = name.to_lowercase();
    // An `Authorization` header's scheme and token (`Bearer …`) are SEC110's to judge.
    if lname.trim_matches(['"', '\'']).ends_with("authorization") && v.contains([' ', '\t']) {
        return;
    }
    let password_name = lname.contains("pass") || lname.contains("pwd");
    let shaped = credential_shaped(v);
    // A name read past a qualifier (`TOKEN_OLD`, `api_key_prev`) holds a credential only when
    // the value looks like one: such names also label dates and versions (review 24).
    let bare_name = name.trim_matches(['"', '\'', '$', '@']);
    if (!shaped || labels_a_version_or_date(v)) && judged_parts(bare_name) != name_parts(bare_name)
    {
        return;
    }
    if !env && !quoted {
        // Unquoted code- or prose-style values must look like a credential, except INI/YAML
        // password lines.
        if !(shaped || (at_line_start && password_name && v.len() >= 8)) {
            return;
        }
        if op == ":" && !at_line_start && !shaped {
            return;
        }
    }
    if env && !quoted && v.bytes().all(|c| c.is_ascii_lowercase()) && v.len() < 4 {
        return;
    }
    // A field's caption or a translated string (`"password": "Mot de passe"`).
    let worded = label(v);
    if worded == Label::Caption {
        return;
    }
    let kind = if comparison {
        "credential-comparison"
    } else if env {
        "env-assignment"
    } else if quoted {
        "code-assignment"
    } else {
        "ini-assignment"
    };
    let clean = name.trim_end_matches(['"', '\'']);
    let mut f = Finding::new(
        &SEC120,
        vs,
        ve,
        format!("credential assigned to {}: {}", clean, redacted(v)),
    )
    .secret(kind);
    match super::stand_ins::assigned_stand_in(name, &text[line_start..vs], v) {
        Some(super::stand_ins::StandIn::Placeholder(_)) => return,
        Some(super::stand_ins::StandIn::Published(what)) => {
            f = f.severity(Severity::Warning);
            f.message = format!("{} ({what})", f.message);
        }
        None => {}
    }
    match placeholder(v) {
        // A quoted dictionary stand-in (`password = 'secret'`) is still worth a look.
        Placeholder::Hard if !quoted => return,
        Placeholder::Hard | Placeholder::Soft => {
            f = f.severity(Severity::Warning);
            f.message.push_str(" (looks like a placeholder)");
        }
        Placeholder::No
            if !password_name
                && names_a_provider(name.trim_matches(['"', '\'', '$', '@']))
                && too_short_for_an_issued_key(v) =>
        {
            f = f.severity(Severity::Warning);
            f.message.push_str(" (too short to be an issued key)");
        }
        Placeholder::No
            if password_name
                && local_default_password(
                    v,
                    &text[super::super::text::floor_char(text, vs.saturating_sub(256))..vs],
                )
                && !names_a_real_host(&text[line_start..line_near(text, ve, ve, 256).1]) =>
        {
            f = f.severity(Severity::Warning);
            f.message.push_str(" (a local default login)");
        }
        Placeholder::No => {}
    }
    // A passphrase of three to eight lower-case dictionary words (`correct horse battery
    // staple`, quoted or written out to the line's end): what a sample file or a document
    // makes up, never a key a provider issued; a person's real one is still worth a look.
    if worded == Label::Words {
        f = f.severity(Severity::Warning);
        f.message
            .push_str(" (reads as words: a label or a translated string)");
    }
    if f.severity == Severity::Error
        && if quoted {
            word_passphrase(v)
        } else {
            spoken_passphrase(&text[vs..])
        }
    {
        f = f.severity(Severity::Warning);
        f.message.push_str(" (a passphrase of words)");
    }
    // A short parameter of a URL's query (`…/badge.svg?token=B1Enaf…`): badge and share
    // tokens, which grant read access to a public view at most.
    let (ns, _) = caps.range(1).expect("group name");
    let in_query = text[..ns].ends_with(['?', '&']);
    if in_query && !quoted && !password_name && v.len() < 20 && f.severity == Severity::Error {
        f = f.severity(Severity::Warning);
        f.message.push_str(" (a short URL parameter)");
    }
    out.push(f);
}

/// A field of a JSON document named for a credential (`"password"`, `"client_secret"`,
/// `"apiKey"`) whose string value reads as drawn at random: the pair a `.env` or YAML line
/// would give, however the document is laid out (`{"db": {"password": "…"}}` on one line).
pub(crate) fn json_fields(
    base: &super::super::text::View<'_>,
    fields: &[super::super::json::Field],
    out: &mut Vec<Finding>,
) {
    // A `{"key": "api_key", "value": "…"}` pair (Postman and Insomnia environments and
    // collections, many settings files) names its value in a sibling field.
    let mut named: Option<(Option<&str>, &str)> = None;
    for f in fields {
        let v = &base.text[f.value.0..f.value.1];
        if let Some(mut found) = json_structured_field(f, v) {
            let (s, e) = base.to_source(f.value.0, f.value.1);
            (found.start, found.end, found.raw_span) = (s, e, true);
            out.push(found);
            continue;
        }
        let parent = f.parent.as_deref();
        if f.key.eq_ignore_ascii_case("key") || f.key.eq_ignore_ascii_case("name") {
            named = (credential_name(v).is_some()).then_some((parent, v));
            if named.is_some() || !bare_field_of_service(&f.key, parent, v) {
                continue;
            }
        }
        let sibling = match named {
            Some((p, name)) if p == parent && f.key.eq_ignore_ascii_case("value") => {
                named = None;
                Some(name)
            }
            _ => None,
        };
        let name = sibling.unwrap_or(&f.key);
        if sibling.is_none()
            && credential_name(&f.key).is_none()
            && !bare_field_of_service(&f.key, parent, v)
        {
            continue;
        }
        if !strong_value(v) || judged_stand_in(v) || label(v) != Label::No {
            continue;
        }
        let (s, e) = base.to_source(f.value.0, f.value.1);
        out.push(
            Finding::raw(
                &SEC120,
                s,
                e,
                format!("credential assigned to {name}: {}", redacted(v)),
            )
            .secret("json-field"),
        );
    }
}

/// A bare `key`, `pass`, `pw` or `auth` field of an object named for a service (`{"sendgrid":
/// {"key": …}}`, `{"smtp": {"pass": …}}`, `{"redis": {"auth": …}}`) whose value is a
/// credential on its own, as [`check_assignment`] reads the same names in YAML: for `key`, the
/// object's name must not make it a record's (`cache`, `redis`, `index`:
/// [`provider_key_name`]); a UUID under any of them is more often a record's id.
fn bare_field_of_service(key: &str, parent: Option<&str>, v: &str) -> bool {
    // A host or a path for the object's name (`{"auths": {"ghcr.io": {"auth": …}}}`) is not a
    // service's: a registry's `auth` is judged by what it decodes to.
    let Some(parent) = parent.filter(|p| !p.contains(['.', ':', '/'])) else {
        return false;
    };
    let key = key.to_ascii_lowercase();
    if !matches!(key.as_str(), "key" | "pass" | "pw" | "auth") {
        return false;
    }
    let owner = parent.rsplit(['[', ']']).find(|p| !p.is_empty());
    let uuid = v.len() == 36 && v.bytes().filter(|&c| c == b'-').count() == 4;
    // A record's or a flag's name (`newCheckoutFlowEnabled2`): letters only but a trailing
    // number, words run together. Drawn at random, a value holds a digit inside.
    let body = v.trim_end_matches(|c: char| c.is_ascii_digit());
    let spelled = body.bytes().all(|c| c.is_ascii_alphabetic()) && names_made_of_words(body);
    !uuid
        && !spelled
        && strong_value(v)
        && if key == "key" {
            owner.is_some_and(|o| provider_key_name(&format!("{o}_key")))
                && opaque(v)
                && v.len() >= 16
        } else {
            v.len() >= 12
        }
}

/// What a value made of words says about itself: a form's label or a translated string
/// (`"Mot de passe"`, `Contraseña`, `"Enter password"`, `Пароль`) is text shown to a user,
/// not a secret.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Label {
    /// Letters of any script and blanks only, one of the words a credential's name in some
    /// language: the field's own caption. No finding.
    Caption,
    /// Letters and blanks only, several words or letters outside ASCII: reads as language.
    /// At most a warning.
    Words,
    No,
}

/// Judges `v` as a label ([`Label`]). A digit, a symbol other than a phrase's punctuation, or
/// a single ASCII word not naming a credential leaves it a possible secret.
fn label(v: &str) -> Label {
    let v = v.trim_end_matches(['.', '!', '?', ':', '…']).trim();
    if v.is_empty()
        || !v.chars().all(|c| {
            c.is_alphabetic() || matches!(c, ' ' | '\'' | '\u{2019}' | '-' | ',' | '\u{30fc}')
        })
        || v.contains("  ")
    {
        return Label::No;
    }
    let lower = v.to_lowercase();
    let caption = lower
        .split([' ', '-', '\''])
        .any(credential_word_any_language)
        || CREDENTIAL_WORDS_UNSPACED.iter().any(|w| lower.contains(w));
    let several = v.split(' ').filter(|w| !w.is_empty()).count() >= 2;
    if caption && (several || !v.is_ascii() || v.chars().next().is_some_and(char::is_uppercase)) {
        Label::Caption
    } else if several && v.chars().next().is_some_and(char::is_uppercase) || !v.is_ascii() {
        Label::Words
    } else {
        Label::No
    }
}

/// A credential's name as a word in the languages of translation files, lower case.
fn credential_word_any_language(w: &str) -> bool {
    password_word(w)
        || matches!(
            w,
            "password"
                | "passwords"
                | "passcode"
                | "passphrase"
                | "pin"
                | "token"
                | "tokens"
                | "secret"
                | "key"
                | "keys"
                | "credentials"
                | "contraseña"
                | "contraseñas"
                | "mot"
                | "passe"
                | "hasło"
                | "lösenord"
                | "şifre"
                | "jelszó"
                | "jeton"
                | "jetons"
                | "toegangstoken"
                | "zugangstoken"
                | "geheimnis"
                | "secreto"
                | "segreto"
                | "segredo"
                | "clave"
                | "clé"
                | "chiave"
                | "chave"
                | "schlüssel"
                | "sleutel"
                | "klucz"
                | "nyckel"
                | "avain"
                | "пароль"
                | "пароля"
                | "токен"
                | "ключ"
                | "секрет"
        )
}

/// Credential words of scripts written without blanks, found anywhere in a value.
const CREDENTIAL_WORDS_UNSPACED: &[&str] = &[
    "密码",
    "密碼",
    "口令",
    "令牌",
    "密钥",
    "密鑰",
    "秘密",
    "パスワード",
    "トークン",
    "キー",
    "暗証",
    "비밀번호",
    "토큰",
];

/// An unquoted value written out to its line's end or a ` #` comment (`rest`: the text from
/// the value on) is a [`word_passphrase`]. Read only as far as it can still be one: a byte
/// that is neither a lower-case letter nor blank, or a 97th letter, answers "no" where it
/// stands, so a long line of assignments is not read to its end for each of them.
fn spoken_passphrase(rest: &str) -> bool {
    let b = rest.as_bytes();
    let mut letters = 0;
    for (i, c) in rest.char_indices() {
        if c == '\n' || c == ' ' && b.get(i + 1) == Some(&b'#') {
            return word_passphrase(rest[..i].trim());
        }
        if c.is_ascii_lowercase() {
            letters += 1;
            if letters > 8 * 12 {
                return false;
            }
        } else if !c.is_whitespace() {
            return false;
        }
    }
    word_passphrase(rest.trim())
}

/// Three to eight lower-case words of two to twelve letters, one blank between each
/// (`correct horse battery staple`).
fn word_passphrase(v: &str) -> bool {
    let words: Vec<&str> = v.split(' ').collect();
    (3..=8).contains(&words.len())
        && words
            .iter()
            .all(|w| (2..=12).contains(&w.len()) && w.bytes().all(|c| c.is_ascii_lowercase()))
}

/// A credential word after a word, in lower case (`devpassword`, `local_secret2`): a password
/// named for a local set-up, a default where it opens no real host.
fn word_made_password(v: &str) -> bool {
    let named = v.trim_end_matches(|c: char| c.is_ascii_digit());
    v.len() - named.len() <= 4
        && named
            .bytes()
            .all(|c| c.is_ascii_lowercase() || matches!(c, b'-' | b'_'))
        && ["password", "passwd", "pass", "pwd", "secret"]
            .iter()
            .any(|w| {
                named
                    .strip_suffix(w)
                    .map(|head| head.trim_end_matches(['-', '_']))
                    .is_some_and(|head| (2..=12).contains(&head.len()))
            })
}

/// A credential name that names who issues it (`OPENAI_API_KEY`, `GITHUB_TOKEN`), not only a
/// kind (`API_KEY`, `ACCESS_TOKEN`): that issuer's keys have a length a typed value lacks.
fn names_a_provider(name: &str) -> bool {
    name_parts(name).iter().any(|p| {
        !matches!(
            p.as_str(),
            "api"
                | "key"
                | "token"
                | "secret"
                | "access"
                | "auth"
                | "app"
                | "client"
                | "private"
                | "my"
                | "the"
                | "bearer"
                | "id"
        )
    })
}

/// A key or token value a provider could not have issued: under sixteen characters, in lower
/// case, of letters with at most four digits (`sk-test`, `test123`, `localdev`). Issued keys
/// are longer and drawn at random; such a value was typed for tests or documentation.
fn too_short_for_an_issued_key(v: &str) -> bool {
    let digits = v.bytes().filter(u8::is_ascii_digit).count();
    let letters = v.bytes().filter(u8::is_ascii_lowercase).count();
    v.len() < 16
        && letters >= 3
        && digits <= 4
        && v.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'-' | b'_'))
}

/// Passwords that a database, broker or server image ships with or that its documentation
/// uses for a local instance: the product's or its default user's name.
const DEFAULT_LOGINS: &[&str] = &[
    "postgres",
    "postgresql",
    "mysql",
    "mariadb",
    "redis",
    "mongo",
    "mongodb",
    "guest",
    "rabbitmq",
    "oracle",
    "elastic",
    "minioadmin",
    "neo4j",
    "couchdb",
    "cassandra",
    "keycloak",
    "sa",
];

/// Words that say where a typed password is used rather than guard anything: a local or
/// test environment, the credential words themselves (`devpass`, `localdev`, `test123`) and
/// the default accounts' (`rootpw`, `admin123`).
const LOCAL_PASSWORD_WORDS: &[&str] = &[
    "dev",
    "devel",
    "local",
    "localhost",
    "test",
    "testing",
    "demo",
    "docker",
    "pass",
    "passwd",
    "password",
    "pwd",
    "pw",
    "secret",
    "root",
    "admin",
    "changeme",
];

/// A password typed for a local set-up, placeholder-grade: a product's own default
/// ([`DEFAULT_LOGINS`]: `POSTGRES_PASSWORD=postgres`), the very name of the user or service
/// beside it (`context`: the text before the value, its setting's name and the names near it;
/// `user: app` then `password: app`), or a value shaped as words (lower-case letters, `-` or
/// `_`, at most four digits, under twenty characters) made wholly of the words of a local or
/// test environment and of such defaults ([`LOCAL_PASSWORD_WORDS`]: `DB_PASSWORD=devpassword`,
/// `MYSQL_ROOT_PASSWORD=rootpw`, `test123`). A word password of its own (`bluefalcon`,
/// `garden42`) was chosen by someone and guards something, and so does one built of the
/// project's or environment's own names (`northwind2024`, `prodpostgres99`: review s29b #7,
/// where any word of the setting's name had counted as local); one chosen or drawn to be hard
/// to guess mixes case, digits or signs (`Xk9#mQ2$vL7p`, `Autumn2031`).
pub(crate) fn local_default_password(v: &str, context: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    if DEFAULT_LOGINS.contains(&lower.as_str()) {
        return true;
    }
    let digits = v.bytes().filter(u8::is_ascii_digit).count();
    let letters: Vec<u8> = v.bytes().filter(u8::is_ascii_lowercase).collect();
    if v.len() >= 20
        || digits > 4
        || letters.len() < 3
        || !v
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'-' | b'_'))
    {
        return false;
    }
    // The context's names, split as a setting's name is (`POSTGRES_PASSWORD`, `dbUser`): the
    // value may be one of them whole, as a user's own name is its local password.
    let mapped: String = context
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if digits == 0
        && name_parts(&mapped)
            .iter()
            .any(|p| p.len() >= 3 && p.eq_ignore_ascii_case(v))
    {
        return true;
    }
    let known: Vec<&[u8]> = LOCAL_PASSWORD_WORDS
        .iter()
        .chain(DEFAULT_LOGINS)
        .map(|w| w.as_bytes())
        .collect();
    // reach[i]: the first `i` letters split into known words.
    let mut reach = vec![false; letters.len() + 1];
    reach[0] = true;
    for i in 0..letters.len() {
        if reach[i] {
            for w in &known {
                if letters[i..].starts_with(w) {
                    reach[i + w.len()] = true;
                }
            }
        }
    }
    reach[letters.len()]
}

/// True when a line names a host a password could open ([`real_host`]): after `-h`,
/// `--host`, `host=` or an `@`.
pub(crate) fn names_a_real_host(line: &str) -> bool {
    let mut prev = "";
    line.split_whitespace().any(|w| {
        let w = w.trim_matches(['`', '"', '\'']);
        let flagged = matches!(prev, "-h" | "-H" | "--host" | "--hostname");
        prev = w;
        let host = if flagged {
            Some(w)
        } else if let Some((_, h)) = w.split_once("host=") {
            Some(h)
        } else {
            w.rsplit_once('@').map(|(_, h)| h)
        };
        host.is_some_and(|h| real_host(h.split([':', '/']).next().unwrap_or(h)))
    })
}

/// A quoted literal (`"…"`, `'…'`, `` `…` ``) starting at `from` on its line, up to 200
/// characters: its range with the quotes.
fn quoted_at(text: &str, from: usize) -> Option<(usize, usize)> {
    let q = *text.as_bytes().get(from)?;
    if !matches!(q, b'"' | b'\'' | b'`') {
        return None;
    }
    let hi = text.len().min(from + 1 + 200);
    let body = &text.as_bytes()[from + 1..hi];
    let close = memchr::memchr2(q, b'\n', body);
    steps::add(close.unwrap_or(body.len()) as u64);
    let close = close.filter(|&k| body[k] == q && k > 0)?;
    Some((from, from + 1 + close + 1))
}

/// The literal an expression the regex took the head of (`vs..ve`) falls back to or wraps:
/// an environment read with a hard-coded fallback (`process.env.KEY || "…"`,
/// `getenv("KEY") or "…"`, `ENV["KEY"] ?? '…'`), or a `CloudFormation` tag's argument
/// (`!Sub '…'`, `!Join ['', ['…']]`, and `!Ref …` when what follows reads as drawn at random,
/// which a resource's logical id never does). The look stays on the line, within 160 bytes.
fn following_literal(text: &str, vs: usize, ve: usize) -> Option<(usize, usize)> {
    const TAGS: [&str; 5] = ["!Sub", "!Join", "!If", "!Base64", "!Select"];
    let head = &text[vs..ve];
    let tag = head.starts_with('!');
    if !tag && !super::ENV_READS.iter().any(|r| head.starts_with(r)) {
        return None;
    }
    let hi = text.len().min(vs + 160);
    let line_end = memchr::memchr(b'\n', &text.as_bytes()[vs..hi]).map_or(hi, |i| vs + i);
    let line_end = (line_end..=text.len().min(line_end + 3))
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    steps::add((line_end - vs) as u64);
    let rest = &text[ve.min(line_end)..line_end];
    // The longest literal on the line (`!Join [':', ['…']]`, `!If [c, 'none', '…']`), each
    // literal read whole.
    let longest_quoted = |mut i: usize| {
        let mut best: Option<(usize, usize)> = None;
        let b = text.as_bytes();
        while i < line_end {
            if !matches!(b[i], b'"' | b'\'' | b'`') {
                i += 1;
                continue;
            }
            if b.get(i + 1) == Some(&b[i]) {
                i += 2; // an empty literal
                continue;
            }
            let Some((s, e)) = quoted_at(text, i).filter(|&(_, e)| e <= line_end) else {
                break;
            };
            // A nested tag's argument (`!Ref 'AWS::NoValue'`) or a pseudo parameter names
            // something; it is not the literal.
            let nested = text[ve..s]
                .trim_end()
                .ends_with(|c: char| c.is_ascii_alphabetic())
                && text[ve..s]
                    .trim_end()
                    .rsplit(' ')
                    .next()
                    .is_some_and(|w| w.starts_with('!'));
            if !nested && !text[s..e].contains("::") && best.is_none_or(|(bs, be)| e - s > be - bs)
            {
                best = Some((s, e));
            }
            i = e;
        }
        best.filter(|&(s, e)| e > s + 2)
    };
    if TAGS.contains(&head)
        && let Some(lit) = longest_quoted(ve)
    {
        return Some(lit);
    }
    if matches!(
        head,
        "!Ref" | "!GetAtt" | "!ImportValue" | "!Sub" | "!Base64"
    ) {
        let arg = rest.trim_start_matches([' ', '\t']);
        let start = line_end - rest.len() + (rest.len() - arg.len());
        let len = arg
            .find(|c: char| c.is_whitespace() || matches!(c, ',' | ']' | '}' | '#'))
            .unwrap_or(arg.len());
        let word = &arg[..len];
        // A logical id is words (`MySQL8RootPassword`, `OAuth2ClientSecret`); a run of four
        // lowercase letters is a word's (review 25).
        let worded = word
            .as_bytes()
            .windows(4)
            .any(|w| w.iter().all(u8::is_ascii_lowercase));
        return (word.len() >= 16 && super::random_word(word) && !worded)
            .then_some((start, start + len));
    }
    if tag {
        return None;
    }
    env_fallback(text, ve, line_end, super::ENV_READS)
}

/// The literal an environment read ending the regex's value at `ve` falls back to: right
/// after the read's own tail (its quoted name, brackets, members: no blank) comes `||`, `??`,
/// `?:` or `or`, then the literal, or another read that falls back in turn
/// (`process.env.A || process.env.B || "…"`). Rust's `.unwrap_or("…")` and
/// `.unwrap_or_else(|_| "…")` give it as an argument. Nothing past a `;`, `#` or `,` is read.
fn env_fallback(text: &str, ve: usize, line_end: usize, reads: &[&str]) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let literal = |at: usize| quoted_at(text, at).filter(|&(s, e)| e > s + 2 && e <= line_end);
    let mut i = ve;
    for _ in 0..4 {
        let from = i;
        while i < line_end
            && !b[i].is_ascii_whitespace()
            && !matches!(b[i], b'|' | b'?' | b';' | b'#' | b',')
        {
            i = if matches!(b[i], b'"' | b'\'') {
                quoted_at(text, i).map_or(i + 1, |(_, e)| e)
            } else {
                i + 1
            };
        }
        let tail = &text[from..i.min(line_end)];
        for call in [".unwrap_or(", ".unwrap_or_else("] {
            if let Some(k) = tail.find(call) {
                // Past the closure's head (`|_|`, `||`) and blanks.
                let mut at = from + k + call.len();
                for head in ["|_|", "||"] {
                    if text[at.min(line_end)..line_end].starts_with(head) {
                        at += head.len();
                    }
                }
                while at < line_end && matches!(b[at], b' ' | b'\t') {
                    at += 1;
                }
                return literal(at);
            }
        }
        while i < line_end && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        let rest = &text[i.min(line_end)..line_end];
        let op = ["||", "??", "?:", "or "]
            .iter()
            .find(|o| rest.starts_with(**o))
            .map(|o| o.len())?;
        i += op;
        while i < line_end && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        if let Some(lit) = literal(i) {
            return Some(lit);
        }
        let next = &text[i.min(line_end)..line_end];
        let read = reads.iter().find(|r| next.starts_with(**r))?;
        i += read.len();
    }
    None
}

/// `r"…"`, `b'…'`, `u"…"`, `rb"…"`: a string prefix the regex took for the value (`vs..ve`),
/// followed by its literal. Format strings (`f"…"`) are expressions and stay out.
fn string_prefix_literal(text: &str, vs: usize, ve: usize) -> Option<(usize, usize)> {
    let prefix = text[vs..ve].to_ascii_lowercase();
    if !matches!(prefix.as_str(), "r" | "b" | "u" | "rb" | "br") {
        return None;
    }
    quoted_at(text, ve).filter(|&(s, e)| text.as_bytes()[s] != b'`' && e > s + 2)
}

/// `apiKey: String = "…"`, `API_KEY: &str = "…"`, `token: string | undefined = '…'`: the regex
/// took a declaration's type (`vs..ve`) for the value; the literal after its `=` is the value.
/// The look is bounded (a type of at most 48 bytes on the same line).
fn typed_literal(text: &str, vs: usize, ve: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    if !(b[vs].is_ascii_alphabetic() || matches!(b[vs], b'&' | b'[' | b'*')) {
        return None;
    }
    let limit = text.len().min(ve + 48);
    let mut i = ve;
    while i < limit
        && (b[i].is_ascii_alphanumeric()
            || matches!(
                b[i],
                b' ' | b'\t'
                    | b'_'
                    | b'.'
                    | b'<'
                    | b'>'
                    | b'?'
                    | b'&'
                    | b'['
                    | b']'
                    | b'|'
                    | b','
                    | b'\''
            ))
    {
        i += 1;
    }
    steps::add((i - ve) as u64);
    if i >= limit || b[i] != b'=' || matches!(b.get(i + 1), Some(b'=' | b'>')) {
        return None;
    }
    i += 1;
    while i < limit + 8 && i < b.len() && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    quoted_at(text, i)
}

/// A (name, value) pair outside an assignment: `<add key="DbPassword" value="…"/>`,
/// `<apiKey>…</apiKey>`, Gradle's `buildConfigField "String", "API_KEY", "\"…\""`, PHP's
/// `define('AUTH_KEY', '…')`, a property list's `<key>…</key><string>…</string>`, a proxy's `proxy_set_header X-Api-Key "…"`. Group 1 is the
/// name, group 2 (or 3, Gradle's value in single quotes) the value.
fn check_tuple(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let name = caps.str(1);
    // Gradle's value may be quoted either way (`"\"…\""`, `'"…"'`): group 3 is the second.
    let Some((vs, ve, _)) = caps.first(&[2, 3]) else {
        return;
    };
    let whole = caps.str(0);
    // A closing tag must close the opening one.
    if whole.starts_with('<')
        && !whole.starts_with("<add")
        && !whole.starts_with("<setting")
        && !whole.starts_with("<key>")
    {
        let close = whole
            .rsplit("</")
            .next()
            .unwrap_or("")
            .trim_end_matches('>');
        if !close.eq_ignore_ascii_case(name) {
            return;
        }
    }
    let kind = if whole.starts_with('<') {
        "xml-config-value"
    } else if whole.to_ascii_lowercase().starts_with("define") {
        "php-define"
    } else if whole.starts_with("buildConfigField") || whole.starts_with("resValue") {
        "gradle-build-config"
    } else {
        "server-header"
    };
    judge_pair(scan, name, vs, ve, kind, false, out);
}

/// The syntaxes of [`check_pair`].
#[derive(Clone, Copy)]
#[repr(u8)]
enum Pair {
    /// `<add value="…" key="…Password"/>`: value first.
    XmlValueFirst,
    /// `<entry key="api.secret">…</entry>`.
    XmlKeyed,
    /// `- name: API_TOKEN` + `value: …` (Kubernetes env, ECS task definitions).
    NameValue,
    /// `ENV DB_PASSWORD …`, `setx API_KEY …`, `set -x API_TOKEN …`: a space for an operator.
    EnvCommand,
    /// `#define API_KEY "…"`.
    CDefine,
    /// A line `storePassword "…"` (Groovy, Ruby, Gradle signing configs, Elixir's module
    /// attributes `@api_token "…"`), also inside a block on one line (`release { … }`).
    SpacedArgument,
    /// `setPassword("…")`, `.apiKey("…")`: a setter or builder called with a literal.
    CallArgument,
    /// `variable "db_password" { default = "…" }` (Terraform).
    TerraformDefault,
    /// `os.getenv("API_TOKEN", "…")`, `os.Setenv("API_TOKEN", "…")`,
    /// `System.setProperty("…Password", "…")`: an environment or property call with a literal.
    EnvCall,
    /// `aws configure set aws_secret_access_key …`, `gh secret set NAME --body "…"`.
    CliSetting,
}

const PAIRS: [Pair; 10] = [
    Pair::XmlValueFirst,
    Pair::XmlKeyed,
    Pair::NameValue,
    Pair::EnvCommand,
    Pair::CDefine,
    Pair::SpacedArgument,
    Pair::CallArgument,
    Pair::TerraformDefault,
    Pair::EnvCall,
    Pair::CliSetting,
];

/// A (name, value) pair in one of the syntaxes of [`Pair`]: group 1 is the name (the value for
/// [`Pair::XmlValueFirst`]), the value the first of groups 2–4 that took part.
fn check_pair<const K: u8>(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let pair = PAIRS[usize::from(K)];
    let (name, (vs, ve)) = if matches!(pair, Pair::XmlValueFirst) {
        (caps.str(2), caps.range(1).expect("group value"))
    } else {
        let Some((s, e, _)) = caps.first(&[2, 3, 4]) else {
            return;
        };
        (caps.str(1), (s, e))
    };
    let (kind, strict) = match pair {
        Pair::XmlValueFirst | Pair::XmlKeyed => ("xml-config-value", false),
        Pair::NameValue => ("name-value-pair", false),
        Pair::EnvCommand => ("env-assignment", caps.range(4).is_some()),
        Pair::CDefine => ("c-define", false),
        Pair::SpacedArgument => {
            // The name holds a keyword its gate reads ([`spaced_quote_gate`]): a name that
            // does not (`pwd`) was judged only when another keyword's window held it.
            if !spaced_name_keyed(name) {
                return;
            }
            ("spaced-assignment", true)
        }
        Pair::CallArgument => {
            // A setter or builder (`setPassword`, `withApiKey`, `.password`), not a getter,
            // a hash or a check of a password.
            let first = name
                .split(|c: char| c == '_' || c.is_ascii_uppercase())
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            let one_word = credential_name(name).is_some()
                && name
                    .bytes()
                    .skip(1)
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
            // A builder's method named for what it sets (`.apiKey("…")`, `.clientSecret(…)`).
            let (ns, _) = caps.range(1).expect("group name");
            let builder = scan.text()[..ns].ends_with('.')
                && matches!(
                    first.as_str(),
                    "api"
                        | "access"
                        | "client"
                        | "secret"
                        | "password"
                        | "auth"
                        | "token"
                        | "private"
                        | "bearer"
                        | "app"
                        | "consumer"
                );
            if !(matches!(first.as_str(), "set" | "with" | "use") || one_word || builder) {
                return;
            }
            ("setter-argument", true)
        }
        Pair::TerraformDefault => ("terraform-default", false),
        Pair::EnvCall => ("env-call", false),
        Pair::CliSetting => ("cli-setting", caps.range(4).is_some()),
    };
    judge_pair(scan, name, vs, ve, kind, strict, out);
}

/// Judges the value `vs..ve` given to the credential name `name`; `strict`: the syntax does not
/// vouch for an assignment, so the value must look like a credential on its own.
fn judge_pair(
    scan: &Scan<'_>,
    name: &str,
    vs: usize,
    ve: usize,
    kind: &'static str,
    strict: bool,
    out: &mut Vec<Finding>,
) {
    let v = &scan.text()[vs..ve];
    if credential_name(name).is_none() {
        return;
    }
    if v.chars().count() < 4
        || is_template(v)
        || variable(v)
        || code_like(v) && !random_literal(v)
        || super::dummy_run(v)
        || super::catalogue::phrase(v)
        || names_a_credential(v)
        || labels_a_credential(v)
        || stand_in(v)
        || super::stand_ins::token_head(v)
        || v.starts_with('#') && v.ends_with('#')
        || strict && !(credential_shaped(v) && v.len() >= 8)
        // An environment variable's name (`GITHUB_TOKEN`): a reference.
        || v.contains('_')
            && v.bytes().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
    {
        return;
    }
    // Judged before the message is written: on a line of `PASSWORD 'changeme'` one after
    // another, most values are placeholders (issue #13 item 4).
    let soft = match placeholder(v) {
        Placeholder::Hard => return,
        Placeholder::Soft => true,
        Placeholder::No => false,
    };
    let mut f = Finding::new(
        &SEC120,
        vs,
        ve,
        format!("credential assigned to {}: {}", name.trim(), redacted(v)),
    )
    .secret(kind);
    if soft {
        f = f.severity(Severity::Warning);
        f.message.push_str(" (looks like a placeholder)");
    }
    out.push(f);
}

/// The words in a name that open the windows of `NAME "value"` lines.
const SPACED_KEYWORDS: &[&str] = &["password", "passwd", "secret", "token", "key", "pass"];

/// Whether a `NAME "value"` line's name holds one of [`SPACED_KEYWORDS`] where
/// [`spaced_quote_gate`] reads it: only letters, digits and `_` after it.
fn spaced_name_keyed(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SPACED_KEYWORDS.iter().any(|k| {
        lower.match_indices(k).any(|(i, _)| {
            lower[i + k.len()..]
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_')
        })
    })
}

/// The keyword ends a name that a space and a quote follow (`storePassword "…"`).
fn spaced_quote_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    let mut i = end;
    let limit = b.len().min(end + 48);
    while i < limit && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    let spaces = i;
    while i < limit && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    i > spaces && i < limit && matches!(b[i], b'"' | b'\'')
}

/// The keyword is in a line that holds a `|`, followed by a line of a Markdown table's
/// delimiter row.
fn table_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    // Within the pattern's window (a header longer than it cannot match anyway), so that a
    // long line of keywords is not read again for each of them.
    // The line's ends and its last `|` are the site's, read once for the line.
    let lo = start.saturating_sub(300);
    let hi = b.len().min(end + 600);
    let line = b.line(start);
    let line_start = line.start.max(lo);
    // The `\n` after the keyword, within reach, and whether a `|` is before it on the line.
    let (nl, pipe) = if end <= line.end {
        if line.end >= hi {
            return false;
        }
        (line.end, line.last_pipe.is_some_and(|p| p >= line_start))
    } else {
        // A keyword that holds a line break: read as it stands.
        let Some(nl) = memchr::memchr(b'\n', &b[end..hi]).map(|i| end + i) else {
            return false;
        };
        (nl, memchr::memchr(b'|', &b[line_start..nl]).is_some())
    };
    let next_end = memchr::memchr(b'\n', &b[nl + 1..hi]).map_or(hi, |i| nl + 1 + i);
    let next = &b[nl + 1..next_end];
    pipe && next.contains(&b'-')
        && next
            .iter()
            .all(|c| matches!(c, b'|' | b'-' | b':' | b' ' | b'\t' | b'\r'))
}

/// The cells of a table row with their byte ranges (`| a | b |` → `a`, `b`).
fn cells(line: &str, offset: usize) -> Vec<(usize, usize)> {
    let t = line.trim_end_matches(['\r', ' ', '\t']);
    let mut out = Vec::new();
    let mut from = 0;
    for i in memchr::memchr_iter(b'|', t.as_bytes()).chain(std::iter::once(t.len())) {
        let cell = &t[from..i];
        let rest = cell.trim_start();
        let s = from + (cell.len() - rest.len());
        let e = s + rest.trim_end().len();
        out.push((offset + s, offset + e));
        from = i + 1;
    }
    // A leading or trailing pipe leaves an empty first or last cell.
    if t.trim_start().starts_with('|') && !out.is_empty() {
        out.remove(0);
    }
    if t.ends_with('|') {
        out.pop();
    }
    out
}

/// The columns of a table's header row named like a credential: (index, the name judged,
/// whether a value must also read as random). A function of the header's text alone, kept
/// for the last header a thread read: a text of tables under one header (issue #13 item 4)
/// works its columns out once.
fn table_columns(header: &str) -> std::rc::Rc<[(usize, String, bool)]> {
    type Columns = std::rc::Rc<[(usize, String, bool)]>;
    thread_local! {
        static LAST: std::cell::RefCell<Option<(String, Columns)>> =
            const { std::cell::RefCell::new(None) };
    }
    if let Some(known) = LAST.with_borrow(|l| {
        l.as_ref()
            .filter(|(h, _)| h == header)
            .map(|(_, c)| std::rc::Rc::clone(c))
    }) {
        return known;
    }
    let columns: Vec<(usize, String, bool)> = cells(header, 0)
        .into_iter()
        .enumerate()
        .filter_map(|(i, (s, e))| {
            let name: String = header[s..e]
                .trim_matches(['*', '_', '`'])
                .split_whitespace()
                .collect::<Vec<_>>()
                .join("_");
            let words: Vec<String> = name
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_ascii_lowercase)
                .collect();
            let last = words.last().map_or("", String::as_str);
            let prev = words.len().checked_sub(2).map_or("", |i| words[i].as_str());
            // A column's name is a label, as an environment variable's is: `DB pass`,
            // `signing key`, `encryption key` (review 23).
            let listed = matches!(
                last,
                "password"
                    | "passwd"
                    | "pwd"
                    | "passphrase"
                    | "secret"
                    | "token"
                    | "credential"
                    | "credentials"
                    | "apikey"
            ) || last == "key"
                && matches!(prev, "api" | "access" | "secret" | "private" | "license");
            // A column called `Key` alone is a credential's when its cell is a key drawn
            // at random ([`bare_key_cell`]): feature flags' and translations' keys are words.
            if words.len() == 1 && matches!(last, "key" | "keys") {
                return Some((i, BARE_KEY.to_owned(), true));
            }
            // Other words judged as a name too, with a value that reads as random: a
            // `Signing key` column may list public key ids, a `Pass` column test runs.
            if !(listed || cell_names_a_credential(&name)) {
                return None;
            }
            // Judged as the label it is (`pass` alone is a column of passwords).
            let name = if credential_name(&name).is_some() {
                name
            } else {
                name.to_ascii_uppercase()
            };
            Some((i, name, !listed))
        })
        .collect();
    let columns: Columns = columns.into();
    LAST.with_borrow_mut(|l| *l = Some((header.to_owned(), std::rc::Rc::clone(&columns))));
    columns
}

/// The name a column called `Key` is judged by: a key of a service, as `API_KEY` is.
const BARE_KEY: &str = "API_KEY";

/// A cell of a column called `Key` that holds a credential: 32 or more letters and digits
/// drawn at random (hex, base32 or base62; see [`super::subject_keys::drawn`]), not an upper-case hex
/// fingerprint of 40 (a signing key's, as key lists of releases give them).
fn bare_key_cell(v: &str) -> bool {
    v.len() >= 32 && v.bytes().all(|c| c.is_ascii_alphanumeric()) && super::subject_keys::drawn(v)
}

/// A Markdown table with a column named like a credential (`| user | password |`): each
/// row's cell in that column is judged as a value assigned to the column's name.
fn check_table(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (ms, me) = caps.whole();
    let header_end = text[ms..me].find('\n').map_or(me, |i| ms + i);
    let columns = table_columns(&text[ms..header_end]);
    if columns.is_empty() {
        return;
    }
    // Every row to the end of the table: a line without a `|`, or the delimiter row of the
    // next table (so each row is read for one header only, however many tables there are).
    let mut at = me;
    while at < text.len() {
        let from = at + usize::from(text.as_bytes()[at] == b'\n');
        let end = text[from..].find('\n').map_or(text.len(), |i| from + i);
        let line = &text[from..end];
        let delimiter = line.contains('-')
            && line
                .bytes()
                .all(|c| matches!(c, b'|' | b'-' | b':' | b' ' | b'\t' | b'\r'));
        if !line.contains('|') || delimiter {
            break;
        }
        let row = cells(line, from);
        for (i, name, strict) in columns.iter() {
            if let Some(&(s, e)) = row.get(*i) {
                let cell = &text[s..e];
                let lead = cell.len() - cell.trim_start_matches('`').len();
                let trail = cell.len() - cell.trim_end_matches('`').len();
                if s + lead < e - trail {
                    let v = &text[s + lead..e - trail];
                    if name == BARE_KEY && !bare_key_cell(v) {
                        continue;
                    }
                    if strong_value(v) && (!strict || random_looking(v)) {
                        judge_pair(scan, name, s + lead, e - trail, "table-cell", true, out);
                    }
                }
            }
        }
        at = end;
    }
}

/// Whether a table cell's text (`DB pass`, `jwt_secret`, `**API key**`) names a credential,
/// read as a label: the words joined as an environment variable's name would be.
fn cell_names_a_credential(cell: &str) -> bool {
    let name = cell.trim_matches(['*', '_', '`', ' ', '\t']);
    if name.len() > 60
        || !name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b' '))
    {
        return false;
    }
    // ASCII with only spaces between words: joined in place, no allocation (a table's
    // every row is asked this of its cells).
    let mut joined = [0u8; 60];
    let mut n = 0;
    let mut words = 0;
    for w in name.split(' ').filter(|w| !w.is_empty()) {
        if words > 0 {
            joined[n] = b'_';
            n += 1;
        }
        joined[n..n + w.len()].copy_from_slice(w.as_bytes());
        n += w.len();
        words += 1;
    }
    joined[..n].make_ascii_uppercase();
    let joined = std::str::from_utf8(&joined[..n]).expect("ASCII");
    (1..=4).contains(&words) && credential_name(joined).is_some()
}

/// The keyword is inside a cell of a Markdown table row (the line starts with `|`).
/// Reads back to the line's start within 600 bytes.
fn table_row_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    let lo = start.saturating_sub(600);
    // The line must start within the reach: a row is not 600 bytes long (review 27: a line
    // of a megabyte of cells opened the pattern at every keyword).
    let line = b.line(start);
    if line.start < lo || line.start == lo && lo > 0 {
        return false;
    }
    // The line's first byte past blanks and `>`, before the keyword.
    line.lead < start
        && b[line.lead] == b'|'
        && memchr::memchr(b'|', &b[end..b.len().min(end + 600)]).is_some()
}

/// A row of a key/value table (`| jwt_secret | `Xk29…` |`, `| Password | Xk29… |`): a
/// cell that names a credential, and the next cell holding a value shaped like one.
fn check_table_row(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (ms, me) = caps.whole();
    let row = cells(&text[ms..me], ms);
    steps::add((me - ms) as u64);
    for pair in row.windows(2) {
        let ((ns, ne), (s, e)) = (pair[0], pair[1]);
        if !cell_names_a_credential(&text[ns..ne]) {
            continue;
        }
        let cell = &text[s..e];
        let lead = cell.len() - cell.trim_start_matches('`').len();
        let trail = cell.len() - cell.trim_end_matches('`').len();
        if s + lead >= e - trail {
            continue;
        }
        let v = &text[s + lead..e - trail];
        if strong_value(v) && random_looking(v) {
            let name = text[ns..ne].trim_matches(['*', '_', '`', ' ', '\t']);
            let mut name = name.split_whitespace().collect::<Vec<_>>().join("_");
            if credential_name(&name).is_none() {
                name.make_ascii_uppercase();
            }
            judge_pair(scan, &name, s + lead, e - trail, "table-row", true, out);
        }
    }
}

/// The keyword is a whole cell of a line of comma-separated cells (`user,password,host`).
/// Reads from the keyword out to the first byte that ends its cell on either side (within
/// 200 bytes and the line), not the whole line: a gate is asked at every keyword.
fn csv_header_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    let cell = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b' ' | b'"' | b'\'');
    // The byte that ends the cell before the keyword, or None when the line or the reach
    // ends first; the same after it, where a carriage return is part of the cell.
    let before = b[start.saturating_sub(200)..start]
        .iter()
        .rev()
        .find(|&&c| !cell(c))
        .filter(|&&c| c != b'\n');
    let after = b[end..b.len().min(end + 200)]
        .iter()
        .find(|&&c| !cell(c) && c != b'\r')
        .filter(|&&c| c != b'\n');
    (before.is_some() || after.is_some())
        && before.is_none_or(|&c| c == b',')
        && after.is_none_or(|&c| c == b',')
}

/// The cells of one CSV line (no quoted commas): their ranges, trimmed of blanks and quotes.
fn csv_cells(text: &str, from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut s = from;
    for (i, c) in text[from..to].char_indices() {
        if c == ',' {
            out.push((s, from + i));
            s = from + i + 1;
        }
    }
    out.push((s, to));
    out.into_iter()
        .map(|(s, e)| {
            let cell = &text[s..e];
            let lead = cell.len() - cell.trim_start_matches([' ', '\t', '"', '\'']).len();
            let trail = cell.len() - cell.trim_end_matches([' ', '\t', '\r', '"', '\'']).len();
            (s + lead, (e - trail).max(s + lead))
        })
        .collect()
}

/// The words of a CSV header that open [`check_csv`]'s windows.
const CSV_KEYWORDS: &[&str] = &[
    "password", "passwd", "pwd", "secret", "token", "apikey", "api_key",
];

/// Whether a CSV header line has a cell of [`CSV_KEYWORDS`] as [`csv_header_gate`] reads one:
/// between commas (or the line's ends), of letters, digits, `_`, `-`, blanks and quotes. The
/// check judges a header only then: one whose credential columns hold none (`Credentials`,
/// `creds`) was judged only when another keyword's window happened to hold it.
fn csv_keyed(line: &str) -> bool {
    line.split(',').any(|cell| {
        let cell = cell.strip_suffix('\r').unwrap_or(cell);
        cell.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b' ' | b'"' | b'\''))
            && CSV_KEYWORDS.iter().any(|k| {
                cell.as_bytes()
                    .windows(k.len())
                    .any(|w| w.eq_ignore_ascii_case(k.as_bytes()))
            })
    })
}

/// A CSV file with a column named like a credential (`username,password,host`): each row's
/// cell in that column is judged as a value assigned to the column's name.
fn check_csv(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (ms, _) = caps.whole();
    let line_end = |from: usize| text[from..].find('\n').map_or(text.len(), |i| from + i);
    // The header is the first line of the match that names a credential column (the match
    // may start at an earlier row).
    let mut at = ms;
    for _ in 0..2 {
        let end = line_end(at);
        let header = csv_cells(text, at, end);
        let columns: Vec<(usize, &str)> = header
            .iter()
            .enumerate()
            .map(|(i, &(s, e))| (i, &text[s..e]))
            .filter(|(_, name)| {
                !name.is_empty()
                    && name.len() <= 40
                    && name
                        .bytes()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b' '))
                    && credential_name(&name.replace(' ', "_")).is_some()
            })
            .collect();
        // A header begins its block: a line after a row of as many cells is a row (so a file of
        // identical lines is read once, not once per line).
        let prev_start = text[..at.saturating_sub(1)]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let continues = at > 0
            && prev_start < at - 1
            && csv_cells(text, prev_start, at - 1).len() == header.len();
        if columns.is_empty() || continues || !csv_keyed(&text[at..end]) {
            at = end + 1;
            if at >= text.len() {
                return;
            }
            continue;
        }
        // Every row with as many cells as the header, to the first that has not.
        let mut row_at = end + 1;
        while row_at < text.len() {
            let row_end = line_end(row_at);
            let row = csv_cells(text, row_at, row_end);
            if row.len() != header.len() {
                break;
            }
            for &(i, name) in &columns {
                let (s, e) = row[i];
                if strong_value(&text[s..e]) {
                    judge_pair(scan, name, s, e, "csv-cell", true, out);
                }
            }
            row_at = row_end + 1;
        }
        return;
    }
}

/// `CREATE USER … IDENTIFIED BY '…'`, `ALTER ROLE … PASSWORD '…'` (SQL).
fn check_sql_password(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (vs, ve) = caps.range(1).expect("group value");
    let (ms, _) = caps.whole();
    let (line_start, _) = line_near(text, ms, ms, 200);
    let line = text[line_start..ms].to_ascii_lowercase();
    let sql = caps.str(0).to_ascii_lowercase().starts_with("identified")
        || ["user ", "role ", "login ", "alter ", "create "]
            .iter()
            .any(|k| line.contains(k));
    if !sql {
        return;
    }
    judge_pair(scan, "password", vs, ve, "sql-password", false, out);
}

/// [`COMPARED_BY_CALL`]: the literal a credential is compared with, judged as an
/// assignment's value would be (a getter's `get` is read past: `getApiKey()`).
fn check_compared_by_call(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let Some((name, (vs, ve))) =
        [(1, 3), (2, 3), (5, 4), (6, 7), (8, 9)]
            .iter()
            .find_map(|&(n, v)| {
                caps.range(n)?;
                Some((caps.str(n), caps.range(v)?))
            })
    else {
        return;
    };
    let name = name
        .strip_prefix("get")
        .filter(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase() || c == '_'))
        .unwrap_or(name);
    judge_pair(scan, name, vs, ve, "credential-comparison", false, out);
}

/// [`CREDENTIAL_PAIR`]'s gate: after the keyword, the rest of a name, then `(` (a call) or
/// `=`/`:`/`=>` and `(` or `[` (a pair assigned). Reads at most 60 bytes.
fn pair_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    let tail = &b[end..b.len().min(end + 60)];
    let mut i = tail
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))
        .unwrap_or(tail.len());
    if matches!(tail.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    let blanks = |mut i: usize| {
        while matches!(tail.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        i
    };
    i = blanks(i);
    match tail.get(i) {
        Some(b'(') => true,
        Some(b'=' | b':') => {
            i += 1;
            if tail.get(i) == Some(&b'>') {
                i += 1;
            }
            matches!(tail.get(blanks(i)), Some(b'(' | b'['))
        }
        _ => false,
    }
}

/// Letters of both cases (digits may be absent) spread as a random draw spreads them, twelve
/// or more, with no dot, slash, colon or blank: `bkydTYxIDhwroru` is, `ReadOnlyReplica` and
/// `OrdersService` (few letters, repeated) are not.
fn mixed_case_random(v: &str) -> bool {
    v.len() >= 12
        && v.bytes().any(|c| c.is_ascii_uppercase())
        && v.bytes().any(|c| c.is_ascii_lowercase())
        && !v.contains(['.', '/', ':', ' ', '\t'])
        && entropy(v) >= 3.5
}

/// One argument as a string literal: the range of its text inside the quotes (a
/// `.toCharArray()` or `.getBytes()` after it is the same literal).
fn literal_argument(text: &str, (s, e): (usize, usize)) -> Option<(usize, usize)> {
    let arg = &text[s..e];
    let q = arg.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let close = arg[1..].find(q)? + 1;
    let rest = &arg[close + 1..];
    (rest.is_empty() || rest == ".toCharArray()" || rest == ".getBytes()")
        .then_some((s + 1, s + close))
}

/// A (user, password) pair by position ([`CREDENTIAL_PAIR`]): the password is the literal
/// after the user's. A pair assigned or a login's two arguments is judged as a password
/// (`("user", "pass")` is a placeholder's warning); a connection call's longer list only
/// when the literal after a literal looks drawn at random (the others are hosts and
/// database names). A port (`bind("0.0.0.0", "8080")`) holds no letter; an anonymous login
/// gives none.
fn check_credential_pair(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (_, open) = caps.whole();
    let args = call_arguments(text, open);
    let assigned = caps.range(1).is_some();
    if assigned {
        // `auth=(…)` is [`check_credential_call`]'s.
        if caps.str(1).eq_ignore_ascii_case("auth") && caps.str(2) == "(" || args.len() != 2 {
            return;
        }
    }
    let lits: Vec<Option<(usize, usize)>> =
        args.iter().map(|&a| literal_argument(text, a)).collect();
    let func = caps.str(3).to_ascii_lowercase();
    let drawn = |v: &str| strong_value(v) || mixed_case_random(v);
    let login = assigned || !matches!(func.as_str(), "connect" | "getconnection");
    let pick = if login && args.len() == 2 {
        // The user may be a variable (`smtp.login(sender, "…")`); the password is the literal.
        lits[1].map(|v| (v, false)).or_else(|| {
            // YAML's flow sequence of bare words (`login: [admin, …]`): only a value drawn at
            // random.
            let (s, e) = args[1];
            (assigned && lits[0].is_none() && drawn(&text[s..e])).then_some(((s, e), false))
        })
    } else if login {
        None
    } else {
        lits.windows(2).find_map(|w| match (w[0], w[1]) {
            (Some(_), Some((s, e))) if drawn(&text[s..e]) => Some(((s, e), false)),
            _ => None,
        })
    };
    let Some(((vs, ve), strict)) = pick else {
        return;
    };
    // An anonymous login's password is a courtesy (`ftp.login('anonymous', 'guest@')`); a
    // password equal to the user's name is a product's default account (`login("demo",
    // "demo")`).
    let value = &text[vs..ve];
    let anonymous = args.iter().any(|&(s, e)| {
        let arg = text[s..e].trim_matches(['"', '\'']);
        arg.eq_ignore_ascii_case("anonymous") || e <= vs && arg.eq_ignore_ascii_case(value)
    });
    if anonymous
        || text[vs..ve].ends_with('@')
        || !text[vs..ve].bytes().any(|c| c.is_ascii_alphabetic())
    {
        return;
    }
    judge_pair(scan, "password", vs, ve, "credential-pair", strict, out);
}

/// `--api-key …`, `-token=…`, `--client-secret "…"`: a credential passed as a flag.
fn check_flag(_scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let flag = caps.str(1);
    let Some((s, e, v)) = caps.first(&[2, 3, 4]) else {
        return;
    };
    // `--password` has its own pattern (with `--password-stdin` and friends).
    if flag.eq_ignore_ascii_case("password") || credential_name(flag).is_none() {
        return;
    }
    let v = v.trim_end_matches(['.', ',']);
    if !strong_value(v) {
        return;
    }
    let e = s + v.len().min(e - s);
    out.push(secret(
        &SEC131,
        "command-credentials",
        &format!("credential passed as --{flag}"),
        s,
        e,
        v,
    ));
}

/// `ConvertTo-SecureString "…" -AsPlainText`: PowerShell's way to hand a literal password to a
/// credential object; the literal is the password.
fn check_secure_string(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (s, e) = caps.range(1).expect("group v");
    let (ms, _) = caps.whole();
    // The rest of the statement (to a pipe, a `;`, a bracket or the line's end) takes the
    // string as plain text.
    let (_, line_end) = line_near(text, e, e, 200);
    let statement = &text[ms..line_end.max(e)];
    steps::add(statement.len() as u64);
    let stop = statement[e - ms..]
        .find(['|', ';', ')', '\n'])
        .map_or(statement.len(), |k| e - ms + k);
    if !statement[..stop]
        .to_ascii_lowercase()
        .contains("-asplaintext")
    {
        return;
    }
    let v = &text[s + 1..e - 1];
    if is_template(v) || variable(v) || v.chars().count() < 4 {
        return;
    }
    let mut f = Finding::new(
        &SEC131,
        s + 1,
        e - 1,
        format!("password converted from plain text: {}", redacted(v)),
    )
    .secret("command-credentials");
    match placeholder(v) {
        Placeholder::Hard => return,
        Placeholder::Soft => {
            f = f.severity(Severity::Warning);
            f.message.push_str(" (looks like a placeholder)");
        }
        Placeholder::No => {}
    }
    out.push(f);
}

/// A password after its label in another language (`Passwort: …`, `contraseña = …`,
/// `пароль: …`): the value must look like a credential on its own ([`strong_value`]).
fn check_foreign_label(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    foreign_labelled(scan, caps, out, "password written out after its label");
}

/// The value of a label in another language (group 1, at most 200 characters, its closing
/// punctuation left out), reported with `message` when it looks like a credential on its own.
fn foreign_labelled(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>, message: &str) {
    let (s, e) = caps.range(1).expect("group v");
    let e = scan.text()[s..e]
        .char_indices()
        .nth(200)
        .map_or(e, |(i, _)| s + i);
    let v = scan.text()[s..e].trim_end_matches(['.', '!', '?', ':']);
    if !strong_value(v) {
        return;
    }
    out.push(secret(
        &SEC121,
        "labelled-credential",
        message,
        s,
        s + v.len(),
        v,
    ));
}

/// [`check_foreign_key_label`]'s gate. A label written in Latin letters stands as a word (a
/// plural `s` allowed; `Schlüssel` may end a compound, `API-Schlüssel`), and within its
/// sentence (at most 130 bytes, so a text of labels costs a bounded read each) comes a sign or
/// a verb for "is"; the English `token` needs another language's verb (`ist`, `lautet`,
/// `est`, `es`, `è` and `é` as the normalised view writes them). A label in another script
/// opens the pattern as it is.
fn foreign_key_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    let kw = &b[start..end];
    if !kw.is_ascii() {
        return true;
    }
    let token = kw.eq_ignore_ascii_case(b"token");
    let compound = kw.len() > 4 && kw[..4].eq_ignore_ascii_case(b"schl");
    let mut i = end;
    if i < b.len() && (b[i] == b's' || b[i] == b'S') {
        i += 1;
    }
    if i < b.len() && b[i].is_ascii_alphanumeric()
        || !compound && start > 0 && b[start - 1].is_ascii_alphanumeric()
    {
        return false;
    }
    let verbs: &[&[u8]] = if token {
        &[b"ist", b"lautet", b"est", b"es", b"e"]
    } else {
        &[
            b"ist", b"lautet", b"war", b"est", b"etait", b"es", b"era", b"e", b"is", b"jest",
            b"to", b"ar", b"var", b"on", b"oli", b"je",
        ]
    };
    let stop = b.len().min(end + 130);
    while i < stop && !matches!(b[i], b'\n' | b'.' | b';') {
        if !token && matches!(b[i], b':' | b'=') || !b[i].is_ascii() {
            return true;
        }
        if matches!(b[i], b' ' | b'\t') {
            let rest = &b[i + 1..stop];
            let w = &rest[..rest
                .iter()
                .position(|c| !c.is_ascii_alphabetic())
                .unwrap_or(rest.len())];
            if verbs.iter().any(|v| w.eq_ignore_ascii_case(v)) {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// A key or a token after its label in another language (`der API-Schlüssel lautet …`,
/// `la clave de API es …`): judged as [`check_foreign_label`] judges a password.
fn check_foreign_key_label(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    // A public or a record's key (`la clé publique est …`, `der öffentliche Schlüssel ist …`,
    // `la clave primaria es …`, `Primärschlüssel ist …`): the words of its label, the word
    // before it and a compound's head name it so.
    let text = scan.text();
    let (ms, _) = caps.whole();
    let (vs, _) = caps.range(1).expect("group v");
    let head = text[..ms]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| c.is_alphabetic())
        .last()
        .map_or(ms, |(i, _)| i);
    let before = &text[super::super::text::floor_char(text, head.saturating_sub(30))..head];
    let last_before = before.split_whitespace().next_back().unwrap_or_default();
    if super::subject_keys::names_a_handle(&text[head..vs])
        || super::subject_keys::names_a_handle(last_before)
    {
        return;
    }
    foreign_labelled(scan, caps, out, "key or token written out after its label");
}

/// `Admin login: app / …`, `creds: deploy:…`: a user and a password after a login label; the
/// password must look like a credential on its own ([`strong_value`]).
fn check_login_pair(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.range(2).expect("group v");
    let e = scan.text()[s..e]
        .char_indices()
        .nth(200)
        .map_or(e, |(i, _)| s + i);
    let v = scan.text()[s..e].trim_end_matches(['.', '!', '?', ':']);
    // `login: https://…` is a URL, not a user and a password.
    if caps.str(1).eq_ignore_ascii_case("http") || caps.str(1).eq_ignore_ascii_case("https") {
        return;
    }
    if !strong_value(v) {
        return;
    }
    out.push(secret(
        &SEC121,
        "labelled-credential",
        "password written out after a login",
        s,
        s + v.len(),
        v,
    ));
}

/// `echo "…" | docker login --password-stdin`, `echo '…' | sudo -S …`: a literal piped into a
/// command that reads a password from its input.
fn check_piped_password(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.range(1).expect("group v");
    let raw = &scan.text()[s..e];
    let quoted = raw.starts_with(['"', '\'']);
    let (s, e) = if quoted { (s + 1, e - 1) } else { (s, e) };
    let v = &scan.text()[s..e];
    if v.chars().count() < 4 || is_template(v) || variable(v) || code_like(v) {
        return;
    }
    let f = Finding::new(
        &SEC131,
        s,
        e,
        format!("password piped into a command: {}", redacted(v)),
    )
    .secret("command-credentials");
    out.extend(graded(f, v));
}

/// `Cookie: sessionid=…`: a session cookie is a login.
fn check_cookie(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.range(2).expect("group value");
    let v = &scan.text()[s..e];
    let random =
        v.len() >= 24 && entropy(v) >= 3.5 && placeholder(v) == Placeholder::No && !is_template(v);
    if !(strong_value(v) || random) {
        return;
    }
    out.push(secret(
        &SEC110,
        "session-cookie",
        &format!("session cookie {}", caps.str(1)),
        s,
        e,
        v,
    ));
}

/// A credential written after its label in prose, a comment or a table (`API key:
/// tkJPQ…`, `-- password k5BeK…`, `**Password:** …`): the value must look like a credential on
/// its own ([`strong_value`]).
/// Whether a value a sentence gives a credential label is one: it reads as random and not
/// as what such sentences also name (a commit or digest in hex, an address, a path, a name;
/// a prefix named in documentation ends with its dash: `sk-ant-api03-`).
fn prose_secret(v: &str) -> bool {
    // `random_looking` first: it settles most values from one count of their bytes.
    !v.bytes().all(|c| c.is_ascii_hexdigit())
        && !v.contains(['@', '/', '\\', '.'])
        && !super::stand_ins::token_head(v)
        && random_looking(v)
        && !reads_as_a_name(v.trim_end_matches('-'))
}

/// The label follows its value (`use … as the password`): before the keyword, within 120
/// bytes on its line, the word `as`.
fn value_first_label_gate(b: &Site<'_>, start: usize, _end: usize) -> bool {
    // A line without ` as ` (the site knows) is not read again at each `password` on it.
    let line = b.line(start);
    let line_start = line.start.max(start.saturating_sub(120));
    line.holds_as && super::super::engine::holds_as(&b[line_start..start])
}

/// A value named as a credential after it (`use … as the password`): judged as the prose
/// clause's value is, random-looking only.
fn check_value_first_label(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    random_prose_value(caps.range(1), scan, out, "before its label");
}

/// SEC121's finding for the value `v` at `s`, a credential written out in prose (`how`:
/// where its label stands).
fn written_out(s: usize, v: &str, how: &str) -> Finding {
    secret(
        &SEC121,
        "labelled-credential",
        &format!("credential written out {how}"),
        s,
        s + v.len(),
        v,
    )
}

/// The value in `range`, its closing punctuation left out, when it reads as a secret in
/// prose ([`prose_secret`]).
fn random_prose_value(
    range: Option<(usize, usize)>,
    scan: &Scan<'_>,
    out: &mut Vec<Finding>,
    how: &str,
) {
    let (vs, ve) = range.expect("group v");
    let v = scan.text()[vs..ve].trim_end_matches(['.', ',', ':', '!', '?']);
    if prose_secret(v) {
        out.push(written_out(vs, v, how));
    }
}

/// [`check_labelled`] for a label with a clause before its value: the same judgement, and
/// the value must not read as something a sentence about a credential names instead (a
/// commit or a digest in hex, an address, a path, a code identifier).
fn check_clause_labelled(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let v = caps.str(1).trim_end_matches(['.', ',', ':', '!', '?']);
    let (ms, _) = caps.whole();
    let (vs, _) = caps.range(1).expect("group v");
    // The same parenthesis rule as the gate's: after clause words it opens a word.
    let between = scan.text()[ms..vs].trim_end_matches(['`', '"', '\'', ' ', '\t']);
    if between.ends_with('(') && between.split_whitespace().count() > 3 {
        return;
    }
    // A label inside an identifier (`Set API_TOKEN to …`) is prose's only before a word:
    // `NEXT_PAGE_TOKEN=…` is an assignment, judged (with its name) by SEC120.
    if scan.text()[ms..].starts_with('_') && scan.text()[ms..vs].contains(['=', ':']) {
        return;
    }
    // A word of the clause that makes the value something else the credential has: its id,
    // name, ARN, policy, format, test fixture… (`the API key id is key_01HZ…`).
    if names_something_else(&scan.text()[ms..vs])
        || names_a_page_token(scan.text(), ms)
        || label_modifies(&scan.text()[ms..vs])
    {
        return;
    }
    if !prose_secret(v) {
        return;
    }
    labelled(scan, caps, out, true);
}

/// Whether the label opening `clause` modifies the noun right after it, which the value then
/// names (`Token account: Mef2…`, `the token program id`, `the token mint`): a thing on a
/// chain or in a program that the credential word only classifies, whose address is public.
fn label_modifies(clause: &str) -> bool {
    let mut words = clause.split([' ', '\t', '-']).filter(|w| !w.is_empty());
    let _label = words.next();
    words.next().is_some_and(modified_noun)
}

/// Whether `word` (as written, its closing punctuation and emphasis left out) is a noun a
/// credential's word can classify in a compound whose value is public: an account, a program,
/// a pool on a chain, a token's holder or supply (`token account`, `token program`).
pub(crate) fn modified_noun(word: &str) -> bool {
    matches!(
        word.trim_end_matches([':', '*', '_', '`', ','])
            .to_ascii_lowercase()
            .as_str(),
        "account"
            | "accounts"
            | "program"
            | "programs"
            | "pool"
            | "pools"
            | "holder"
            | "holders"
            | "owner"
            | "authority"
            | "standard"
            | "balance"
            | "supply"
            | "metadata"
            | "ledger"
            | "symbol"
    )
}

/// Whether a clause between a credential's label and a value (`the API key id is …`) names
/// something else the credential has (its id, name, ARN, policy, format, fixture…), so that
/// the value is that, not the credential. The label itself (the clause's first word) is not
/// judged.
fn names_something_else(clause: &str) -> bool {
    clause
        .split(|c: char| !c.is_ascii_alphabetic())
        .skip(1)
        .any(|w| {
            matches!(
                w.to_ascii_lowercase().as_str(),
                "id" | "ids"
                    | "name"
                    | "names"
                    | "arn"
                    | "policy"
                    | "format"
                    | "prefix"
                    | "suffix"
                    | "header"
                    | "type"
                    | "hash"
                    | "fingerprint"
                    | "endpoint"
                    | "url"
                    | "file"
                    | "path"
                    | "scope"
                    | "scopes"
                    | "fixture"
                    | "example"
                    | "length"
                    | "ttl"
                    | "expiry"
                    | "lifetime"
                    | "budget"
                    | "limit"
                    | "field"
                    | "variable"
                    | "var"
                    | "env"
                    | "version"
                    | "kind"
                    | "alias"
                    | "label"
                    | "ref"
                    | "reference"
                    | "kid"
                    | "thumbprint"
                    | "accessor"
                    | "digest"
                    | "checksum"
                    | "seed"
                    | "renamed"
                    | "called"
                    | "named"
                    | "stored"
                    | "kept"
                    | "handler"
                    | "service"
                    | "class"
                    | "module"
                    | "function"
                    | "method"
                    | "middleware"
                    | "provider"
                    | "manager"
                    | "helper"
                    | "worker"
                    | "algorithm"
                    | "public"
                    | "vector"
                    | "sample"
                    | "fake"
                    | "request"
                    | "trace"
                    | "customer"
                    | "event"
                    | "masked"
                    | "redacted"
                    | "nonce"
                    | "salt"
                    | "challenge"
                    | "struct"
                    | "component"
                    | "spec"
                    | "rfc"
                    | "docs"
                    | "expected"
                    | "segment"
                    | "claims"
                    | "payload"
                    | "encoding"
                    | "tokenizer"
                    | "address"
                    | "contract"
                    | "mint"
                    | "wallet"
            )
        })
}

/// Whether the label at `at` is a page's or a sync's token (`the continuation token was …`),
/// which is no credential.
fn names_a_page_token(text: &str, at: usize) -> bool {
    word_before(text, at).is_some_and(|w| {
        matches!(
            w.to_ascii_lowercase().as_str(),
            "pagination" | "continuation" | "cursor" | "sync" | "page"
        )
    })
}

/// [`check_next_line`]'s gate: the label's line ends with a colon within 120 bytes, and a
/// value stands alone below it ([`lone_value_below`]).
fn next_line_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    // The line's `\n`, within reach.
    let eol = b.line(end).end;
    eol < b.len().min(end + 120) && colon_then_value_below(b, end, eol)
}

/// The rest of the line from `end` to its `\n` at `eol` ends with a colon (past blanks and
/// emphasis), and a value stands alone below it.
fn colon_then_value_below(b: &[u8], end: usize, eol: usize) -> bool {
    let head = b[end..eol].trim_ascii_end();
    let head = &head[..head.len()
        - head
            .iter()
            .rev()
            .take_while(|&&c| matches!(c, b'*' | b'_'))
            .count()];
    head.ends_with(b":") && lone_value_below(b, eol)
}

/// [`check_label_line`]'s gate: the label ends its line (past emphasis), and a value stands
/// alone below it ([`lone_value_below`]).
fn label_line_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    // The pattern's labels take a plural `s` (`- secrets` over a lone value).
    let end = end + usize::from(b.get(end).is_some_and(|c| c.eq_ignore_ascii_case(&b's')));
    let rest = &b[end..b.len().min(end + 8 + MAX_HEADING_TAIL)];
    let Some(eol) = memchr::memchr(b'\n', rest).map(|i| end + i) else {
        return false;
    };
    let markup = |c: &u8| matches!(c, b'*' | b'_' | b' ' | b'\t' | b'\r');
    let tail = &b[end..eol];
    (tail.iter().all(markup) || (is_heading_line(b, end) && prepositional_tail(tail)))
        && lone_value_below(b, eol)
}

/// The longest phrase after a heading's label that still leaves it a label
/// ([`prepositional_tail`]).
const MAX_HEADING_TAIL: usize = 64;

/// True when the line holding `at` is a Markdown heading (`#` first, past blanks).
fn is_heading_line(b: &Site<'_>, at: usize) -> bool {
    let line = b.line(at);
    b[line.start..at].trim_ascii_start().starts_with(b"#")
}

/// A heading's rest after its label that says whose or where the credential is: a phrase
/// opened by a preposition (`for the registry`, `on staging`), no colon (that form is
/// [`check_next_line`]'s), emphasis allowed at its end. `## Deploy token for the registry`
/// over a lone random value is the value's label as `## Deploy token` is (review s28 #3).
fn prepositional_tail(tail: &[u8]) -> bool {
    let t = tail.trim_ascii();
    let t = &t[..t.len()
        - t.iter()
            .rev()
            .take_while(|&&c| matches!(c, b'*' | b'_'))
            .count()];
    let lower = t.to_ascii_lowercase();
    t.len() <= MAX_HEADING_TAIL
        && !t.contains(&b':')
        && [
            &b"for "[..],
            b"of ",
            b"on ",
            b"in ",
            b"at ",
            b"from ",
            b"to ",
        ]
        .iter()
        .any(|p| lower.starts_with(p))
}

/// Whether the next line after the line ending at `eol` that is not blank (past at most two
/// blank lines and a code fence's opening) holds one run of ten or more value bytes and
/// nothing else, quoted or as a list item. Reads at most 800 bytes.
fn lone_value_below(b: &[u8], eol: usize) -> bool {
    let b = &b[..b.len().min(eol + 800)];
    let mut i = eol + 1;
    let mut blanks = 0;
    let mut fenced = false;
    while i < b.len() {
        let e = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
        let line = b[i..e].trim_ascii();
        if line.is_empty() {
            blanks += 1;
            if blanks > 2 {
                return false;
            }
        } else if !fenced && (line.starts_with(b"```") || line.starts_with(b"~~~")) {
            fenced = true;
        } else {
            let line = [b"- ", b"* ", b"+ "]
                .iter()
                .find_map(|m| line.strip_prefix(*m))
                .map_or(line, <[u8]>::trim_ascii_start);
            let line = line.strip_prefix(b"`").unwrap_or(line);
            let line = line.strip_suffix(b"`").unwrap_or(line);
            return line.len() >= 10
                && line
                    .iter()
                    .all(|&c| value_byte(c) || matches!(c, b'"' | b'\''));
        }
        i = e + 1;
    }
    false
}

/// A credential alone on the line after its label (`API key for the sandbox:` and the key
/// indented or fenced below). Values on a line of their own are as often names, ids and
/// algorithms a sentence about a credential points at (`Function that fetches the token:`,
/// `Password hashing algorithm:`), so the label line must be about the credential itself
/// ([`heads_its_line`]), name nothing else it has, and the value must read as random and
/// not as encoded JSON or a name made of words ([`names_made_of_words`]).
fn check_next_line(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (ms, me) = caps.whole();
    let (vs, ve) = caps.range(1).expect("group v");
    let text = scan.text();
    let colon = text[ms..vs].find(':').map_or(vs, |i| ms + i);
    let line_start = text[..ms].rfind('\n').map_or(0, |i| i + 1);
    let label_end = ms
        + text[ms..me]
            .find(|c: char| !(c.is_ascii_alphabetic() || matches!(c, ' ' | '_' | '-')))
            .unwrap_or(0);
    if !heads_its_line(&text[line_start..ms], &text[label_end..colon])
        || names_something_else(&text[line_start..colon])
        || names_a_page_token(text, ms)
    {
        return;
    }
    let v = text[vs..ve].trim_end_matches(['.', ',', ':', '!', '?']);
    if judged_as_lone_value(v) {
        out.push(written_out(vs, v, "on the line after its label"));
    }
}

/// A credential alone below a label that is its line's only content but markup and at
/// most three qualifying words (`## Staging DB password`, `**Admin token**`, `- API key
/// for the bot` is not: it says more), judged as [`check_next_line`] judges its value.
fn check_label_line(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (ms, _) = caps.whole();
    let (vs, ve) = caps.range(1).expect("group v");
    let text = scan.text();
    let line_start = text[..ms].rfind('\n').map_or(0, |i| i + 1);
    let before =
        entry_heading_rest(text[line_start..ms].trim_start_matches(|c: char| {
            c.is_ascii_digit() || matches!(c, ' ' | '\t' | '.' | ')')
        }));
    if !heads_its_line(before, "")
        || names_something_else(&text[line_start..ms])
        || names_a_page_token(text, ms)
    {
        return;
    }
    let v = text[vs..ve].trim_end_matches(['.', ',', ':', '!', '?']);
    if judged_as_lone_value(v) {
        out.push(written_out(vs, v, "below its label"));
    }
}

/// A label line past the prefix of a log entry's or a task's heading: a bracketed stamp
/// (`[2026-11-30]`) and one word closed by a colon (`bob:`, `T-001:`), so that
/// `## [2026-11-30] bob: Staging admin password` reads as `Staging admin password` does
/// (review s28 #4: the form the tool asks LOG entries to take hid the value below it).
fn entry_heading_rest(line: &str) -> &str {
    let t = line.trim_start_matches([' ', '\t', '-', '*', '+', '#', '>', '_', '`']);
    let t = match t.strip_prefix('[').and_then(|r| r.split_once(']')) {
        Some((stamp, rest)) if stamp.len() <= 40 && !stamp.contains('\n') => rest.trim_start(),
        _ => t,
    };
    match t.split_once(": ") {
        Some((word, rest))
            if !word.is_empty() && word.len() <= 40 && !word.contains(char::is_whitespace) =>
        {
            rest
        }
        _ => t,
    }
}

/// Whether a value alone on its line below its label reads as a credential: random, not a
/// token of encoded JSON, a name made of words, a template or a placeholder.
fn judged_as_lone_value(v: &str) -> bool {
    !(v.starts_with("eyJ")
        || names_made_of_words(v)
        || is_template(v)
        || placeholder(v) != Placeholder::No
        || !prose_secret(v))
}

/// Whether a label line is about the credential itself: before the label, past list,
/// heading and emphasis marks, at most three words that qualify it (`The staging`, `Stripe
/// live`, `Our CI`), none a word that makes the label a part of something else's phrase
/// (`Function that fetches the token`); after it, up to the colon, nothing, a parenthesis,
/// a phrase opened by a preposition or a person (`for the sandbox`, `we were given`), or
/// `is` (`The password is:`), not a noun or a verb that makes the label a modifier
/// (`hashing algorithm`, `is loaded by`).
fn heads_its_line(before: &str, after: &str) -> bool {
    let before = before.trim_start_matches([' ', '\t', '-', '*', '+', '#', '>', '_', '`']);
    // Six words tell: two of `Here is` and more than three qualifiers.
    let mut words: Vec<&str> = before.split_whitespace().take(6).collect();
    // `Here is the token we used:`, `Below are the credentials:`.
    if words.len() >= 2
        && matches!(words[0].to_ascii_lowercase().as_str(), "here" | "below")
        && matches!(words[1].to_ascii_lowercase().as_str(), "is" | "are")
    {
        words.drain(..2);
    }
    let qualifier = |w: &str| {
        let w = w.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        let lower = w.to_ascii_lowercase();
        !matches!(
            lower.as_str(),
            "that"
                | "which"
                | "whose"
                | "who"
                | "with"
                | "of"
                | "for"
                | "from"
                | "by"
                | "in"
                | "on"
                | "to"
                | "after"
                | "before"
                | "behind"
                | "used"
                | "uses"
                | "using"
                | "and"
                | "or"
                | "when"
                | "where"
                | "if"
                | "is"
                | "was"
                | "are"
        ) && (w.starts_with(|c: char| c.is_ascii_uppercase())
            || matches!(
                lower.as_str(),
                "the"
                    | "a"
                    | "an"
                    | "our"
                    | "my"
                    | "your"
                    | "their"
                    | "its"
                    | "this"
                    | "new"
                    | "old"
                    | "current"
                    | "rotated"
                    | "temporary"
                    | "shared"
                    | "live"
                    | "staging"
                    | "prod"
                    | "production"
                    | "dev"
                    | "development"
                    | "test"
                    | "qa"
                    | "sandbox"
                    | "local"
                    | "preview"
                    | "demo"
                    | "admin"
                    | "root"
                    | "master"
                    | "service"
                    | "deploy"
                    | "ci"
                    | "bot"
                    | "app"
                    | "db"
                    | "database"
                    | "webhook"
                    | "here"
                    | "here's"
                    | "api"
                    | "access"
                    | "auth"
                    | "client"
                    | "secret"
                    | "signing"
                    | "private"
                    | "personal"
                    | "read-only"
                    | "readonly"
                    | "write"
            ))
    };
    if words.len() > 3 || !words.iter().all(|w| qualifier(w)) {
        return false;
    }
    let after = after
        .trim_start_matches(|c: char| c.is_ascii_alphabetic())
        .trim();
    let after = after.trim_matches(['*', '_', '`']).trim();
    if after.is_empty() || after.starts_with('(') {
        return true;
    }
    let first = after
        .split(|c: char| !c.is_ascii_alphabetic() && c != '\'')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    matches!(
        first.as_str(),
        "for"
            | "of"
            | "on"
            | "to"
            | "in"
            | "from"
            | "at"
            | "we"
            | "i"
            | "you"
            | "they"
            | "that"
            | "is"
            | "was"
            | "are"
            | "given"
            | "issued"
            | "generated"
            | "created"
    ) && !after.split_whitespace().any(|w| {
        matches!(
            w.to_ascii_lowercase().as_str(),
            "loaded"
                | "lives"
                | "live"
                | "goes"
                | "uses"
                | "used"
                | "read"
                | "reads"
                | "parsed"
                | "decoded"
                | "encoded"
                | "checked"
                | "validated"
                | "handled"
                | "fetched"
                | "stored"
                | "derived"
                | "signed"
                | "counted"
                | "computed"
        )
    })
}

/// Whether a value is a name joined from words (`getOAuth2Token`, `HmacSHA256`,
/// `UserTokenDaoTest`): its segments (a capitalised or lower-case run, an acronym, digits)
/// average three characters or more, and words of three letters or more hold most of its
/// letters. Drawn at random, a value of mixed case and digits switches class about every
/// second character.
pub(crate) fn names_made_of_words(v: &str) -> bool {
    let b: Vec<u8> = v.bytes().filter(u8::is_ascii_alphanumeric).collect();
    let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
    // An acronym is three to seven capitals (`SHA`, `PKCE`, `HMACSHA`).
    let acronym = |n: usize| if (3..=7).contains(&n) { n } else { 0 };
    let (mut segments, mut wordish, mut word, mut i) = (0, 0, false, 0);
    let n = b.len();
    while i < n {
        let start = i;
        if b[i].is_ascii_digit() {
            let lower = run(&b, i, n, |c| c.is_ascii_digit());
            i = run(&b, lower, n, |c| c.is_ascii_lowercase());
            // `SHA256withRSA`: a word after the digits.
            if i - lower >= 3 {
                word = true;
                wordish += i - lower;
            }
        } else {
            i = run(&b, i, n, |c| c.is_ascii_uppercase());
            let caps = i - start;
            if caps > 1 && i < n && b[i].is_ascii_lowercase() {
                // An acronym, then the capital that starts the next word (`SHAWith`).
                i -= 1;
                wordish += acronym(caps - 1);
            } else {
                let lower = i;
                i = run(&b, i, n, |c| c.is_ascii_lowercase());
                if i - lower >= 3 {
                    word = true;
                    wordish += i - start;
                } else if i == lower {
                    wordish += acronym(caps);
                }
            }
        }
        segments += 1;
    }
    letters > 0 && word && segments * 28 <= b.len() * 10 && wordish * 10 >= letters * 6
}

/// A `/` on the keyword's line within 160 bytes after it: the user and password of a login
/// written in a sentence.
fn slash_on_line_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    let tail = &b[end..b.len().min(end + 160)];
    let line = &tail[..memchr::memchr(b'\n', tail).unwrap_or(tail.len())];
    memchr::memchr(b'/', line).is_some()
}

/// [`check_login_pair`]'s gate: on the label's line, within 60 bytes, a colon; after it a
/// user, a slash or a colon and a run of ten or more value bytes. `login` inside a word
/// (`loginHandler`) or a clause that reaches no colon opens no window.
fn login_pair_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    let hi = b.len().min(end + 160);
    let b = &b[..hi];
    let mut i = end;
    while i < b.len() && b[i].is_ascii_alphabetic() {
        i += 1;
    }
    let Some(colon) = b[i..b.len().min(i + 61)]
        .iter()
        .position(|&c| c == b':' || c == b'\n')
        .map(|n| i + n)
        .filter(|&n| b[n] == b':')
    else {
        return false;
    };
    let mut i = colon + 1;
    let quote = |c: u8| matches!(c, b'`' | b'\'' | b'"');
    while i < b.len() && (matches!(b[i], b' ' | b'\t') || quote(b[i])) {
        i += 1;
    }
    let user = i;
    while i < b.len()
        && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'.' | b'@' | b'+' | b'-'))
    {
        i += 1;
    }
    if i == user {
        return false;
    }
    while i < b.len() && (matches!(b[i], b' ' | b'\t') || quote(b[i])) {
        i += 1;
    }
    if i >= b.len() || !matches!(b[i], b'/' | b':') {
        return false;
    }
    i += 1;
    while i < b.len() && (matches!(b[i], b' ' | b'\t') || quote(b[i])) {
        i += 1;
    }
    let run = i;
    while i < b.len() && value_byte(b[i]) {
        i += 1;
    }
    i - run >= 10
}

/// [`check_bare_key`]'s gate: `key` as a word, not after a qualifier another pattern reads
/// (`api key`, `secret_key`) or a word that makes it no credential (`primary key`, `cache
/// key`); then `is`, `was`, `:` or `=` and a run of ten or more value bytes with something
/// other than letters in it.
fn bare_key_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    if !bare_key_stands_alone(b, start, end) {
        return false;
    }
    // The pattern's window: 340 bytes after the keyword, widened to a blank by at most 64.
    let hi = b.len().min(end + 340 + 64);
    let b = &b[..hi];
    let mut i = end;
    while i < b.len() && matches!(b[i], b'*' | b'_' | b' ' | b'\t') {
        i += 1;
    }
    let rest = &b[i..];
    // `is` or `was` and a blank (any of the regex's `[ \t]+`).
    let verb = |w: &[u8]| {
        rest.len() > w.len()
            && rest[..w.len()].eq_ignore_ascii_case(w)
            && matches!(rest[w.len()], b' ' | b'\t')
    };
    let after = if rest.starts_with(b":") || rest.starts_with(b"=") {
        i + 1
    } else if verb(b"is") {
        i + 2
    } else if verb(b"was") {
        i + 3
    } else {
        return false;
    };
    let mut v = after;
    while v < b.len() && matches!(b[v], b'*' | b'_') {
        v += 1;
    }
    value_run_at(b, v)
}

/// Whether the `key` at `start..end` is a word of its own (not in `x-key`, `.key`, `keys`)
/// with a subject before it ([`bare_key_subject`]). The gate and the check both ask it: the
/// check so that a window another `key` opened does not report this one.
fn bare_key_stands_alone(b: &[u8], start: usize, end: usize) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    if start > 0 && (word(b[start - 1]) || b[start - 1] == b'.')
        || b.get(end).is_some_and(|&c| word(c))
    {
        return false;
    }
    let lo = start.saturating_sub(40);
    let before = b[lo..start].trim_ascii_end();
    let w = before
        .iter()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    bare_key_subject(&before[before.len() - w..])
}

/// Whether the word before a bare `key` (empty at a line's or sentence's start) leaves it the
/// subject a credential is: an article or possessive (`the key`, `our key`), a state (`live
/// key`, `new key`) or a capitalised name (`Stripe key`, `Mapbox key`); not a word that makes
/// it a data structure's or a protocol's key (`primary`, `cache`, `public`) and not a
/// qualifier another pattern reads (`api`, `secret`).
fn bare_key_subject(prev: &[u8]) -> bool {
    if prev.is_empty() {
        return true;
    }
    let lower = prev.to_ascii_lowercase();
    match lower.as_slice() {
        b"the" | b"a" | b"an" | b"our" | b"your" | b"my" | b"their" | b"its" | b"this"
        | b"that" | b"new" | b"old" | b"rotated" | b"live" | b"prod" | b"production"
        | b"staging" | b"test" | b"dev" | b"sandbox" | b"admin" | b"master" | b"root"
        | b"service" | b"account" | b"vendor" | b"license" | b"licence" | b"app" | b"bot" => true,
        _ => prev[0].is_ascii_uppercase() && !bare_key_other_kind(&lower),
    }
}

/// Capitalised words that make `key` something other than a credential at a sentence's
/// start (`Primary key: …`, `Cache key: …`) or that another pattern reads (`API key`).
fn bare_key_other_kind(lower: &[u8]) -> bool {
    matches!(
        lower,
        b"primary"
            | b"foreign"
            | b"unique"
            | b"composite"
            | b"sort"
            | b"partition"
            | b"hash"
            | b"range"
            | b"cache"
            | b"idempotency"
            | b"dedup"
            | b"deduplication"
            | b"routing"
            | b"lookup"
            | b"map"
            | b"object"
            | b"public"
            | b"host"
            | b"ssh"
            | b"gpg"
            | b"pgp"
            | b"registry"
            | b"row"
            | b"index"
            | b"i18n"
            | b"translation"
            | b"json"
            | b"yaml"
            | b"config"
            | b"setting"
            | b"settings"
            | b"env"
            | b"field"
            | b"column"
            | b"attribute"
            | b"property"
            | b"header"
            | b"api"
            | b"access"
            | b"secret"
            | b"private"
            | b"signing"
            | b"encryption"
            | b"session"
            | b"storage"
            | b"bucket"
            | b"s3"
            | b"redis"
            | b"kv"
            | b"music"
            | b"musical"
            | b"hot"
            | b"shortcut"
            | b"keyboard"
            | b"escape"
            | b"enter"
            | b"tab"
            | b"shift"
            | b"ctrl"
            | b"alt"
            | b"meta"
            | b"command"
            | b"fn"
    )
}

/// A bare `key` given a value in a sentence (`The key is …`, `Stripe key: …`): judged as the
/// prose clause's value is, random-looking only.
fn check_bare_key(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (ms, _) = caps.whole();
    if !bare_key_stands_alone(scan.text().as_bytes(), ms, ms + "key".len()) {
        return;
    }
    random_prose_value(caps.range(1), scan, out, "after its label");
}

/// A value that reads as drawn at random, judged on its letters and digits alone (signs
/// removed: `Kx9#mPq2…`): upper and lower case (two of each at least) and digits mixed, the
/// digits not the most of it (a timestamp, a build number), or 32 or more hexadecimal
/// digits. Not a public id (`0x4AA4…`), a digest's fingerprint (`SHA256:…`) or a ticket
/// (`AUTH-10234`). The bar for text that names a credential without assigning it: prose,
/// and tables whose labels may be tasks (`| Rotate token | PLAT-48213 |`).
fn random_looking(v: &str) -> bool {
    // A public id, or a key meant to be published (`pk_live_…`, `pk_test_…`).
    if (v.starts_with("0x") || v.starts_with("0X")) && v[2..].bytes().all(|c| c.is_ascii_hexdigit())
        || v.starts_with("pk_")
    {
        return false;
    }
    if let Some((pre, _)) = v.split_once([':', '-', '=']) {
        let pre = pre.to_ascii_lowercase();
        if matches!(
            pre.as_str(),
            "sha1" | "sha256" | "sha384" | "sha512" | "md5" | "sha"
        ) {
            return false;
        }
    }
    // The value's letters and digits (`s` below), counted in one pass over its bytes: what
    // they allow is settled before anything reads them again, so a long value that cannot
    // be random (`KEY=KEY=…` to the end of a megabyte line) is read once (issue #13 item 4).
    let (mut upper, mut lower, mut digits, mut switches) = (0, 0, 0, 0);
    let mut last_upper = None;
    for c in v.bytes().filter(u8::is_ascii_alphanumeric) {
        upper += usize::from(c.is_ascii_uppercase());
        lower += usize::from(c.is_ascii_lowercase());
        digits += usize::from(c.is_ascii_digit());
        // Letters alone, drawn at random, switch case about every other letter.
        switches += usize::from(last_upper.is_some_and(|u| u != c.is_ascii_uppercase()));
        last_upper = Some(c.is_ascii_uppercase());
    }
    let n = upper + lower + digits;
    let mixed_letters =
        digits == 0 && n >= 16 && upper * 4 >= n && lower * 4 >= n && switches * 3 >= n;
    let cased = upper >= 2 && lower >= 2 && digits * 5 <= n * 3;
    let hex = v.len() >= 32 && digits > 0 && v.bytes().all(|c| c.is_ascii_hexdigit());
    if n < 10 || !(mixed_letters || cased || hex) {
        return false;
    }
    let s: String = v.chars().filter(char::is_ascii_alphanumeric).collect();
    !reads_as_a_name(v)
        && entropy(&s) >= 3.0
        && (mixed_letters || super::random_word(&s) && cased || hex)
}

/// A value written as a name, not drawn at random: lowercase words and numbers between
/// dashes (`kid-2024-06-prod-eu`), capitalised words between dashes (`X-Api-Key-V2`), or
/// camel case with two or more capitalised words of five letters or more that make up half of
/// it (`RotateDbSecretFn2024`, `Argon2idV19Params`), which random text seldom has.
fn reads_as_a_name(v: &str) -> bool {
    let dashed = v.contains('-')
        && v.split('-').all(|p| {
            !p.is_empty()
                && p.len() <= 12
                && (p
                    .bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
                    || p.starts_with(|c: char| c.is_ascii_uppercase())
                        && p[1..]
                            .bytes()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
                    || p.len() <= 3
                        && p.bytes()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()))
        });
    let b = v.as_bytes();
    let (mut words, mut covered) = (0, 0);
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_uppercase() {
            let lower = b[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_lowercase())
                .count();
            if lower >= 4 {
                words += 1;
                covered += 1 + lower;
            }
            i += 1 + lower;
        } else {
            i += 1;
        }
    }
    // One capitalised word and a version or a year at the end (`PaymentsDbPwV2`,
    // `ReadOnlyProjects2024`, `Argon2idV19`): a name that was given a version.
    let digits = b.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    let versioned = digits > 0
        && (b.len() > digits && b[b.len() - digits - 1] == b'V'
            || digits == 4 && v[v.len() - 4..].starts_with("20"));
    // Two such words in a long random value happen by chance (one in ten of forty
    // characters): a name is mostly its words.
    dashed || words >= 2 && covered * 2 >= b.len() || words >= 1 && versioned
}

fn check_labelled(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    labelled(scan, caps, out, false);
}

/// SEC121's judgement of a labelled value; `random`: a value that reads as random (see
/// [`random_looking`]) is enough, as the prose-clause check has already asked it.
fn labelled(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>, random: bool) {
    let (s, e) = caps.range(1).expect("group v");
    // The value is its first 300 characters. Counted here, not in the regex: a repetition
    // bound of 300 over a Unicode class built an automaton that cost the hook ~20 M
    // instructions to compile whenever a handoff file said "token" or "password".
    let e = scan.text()[s..e]
        .char_indices()
        .nth(300)
        .map_or(e, |(i, _)| s + i);
    let (ms, _) = caps.whole();
    // A URL's query parameter (`?token=…`) or a member (`.token = …`) is an assignment's to
    // judge.
    if scan.text()[..ms].ends_with(['?', '&', '.', '/', '$', '-', '_']) {
        return;
    }
    // `password = …`, `token: …`: one word and an operator are an assignment, judged (with
    // its placeholders and references) by SEC120.
    let head = &scan.text()[ms..s];
    let word = head
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(head.len());
    if head[word..]
        .trim_start_matches(['*', '_', ' ', '\t'])
        .starts_with(['=', ':'])
        && credential_name(&head[..word]).is_some()
    {
        return;
    }
    let raw = &scan.text()[s..e];
    let v = raw.trim_end_matches(['.', ',', ':', '!', '?']);
    // Emphasis closing a bold label (`**Secret Exposure**`) is markup: the value is judged
    // without it (and reported with it, as the text shows it).
    let judged = v
        .trim_end_matches(['*', '_'])
        .trim_end_matches(['.', ',', ':', '!', '?']);
    // A password may begin with a sign that starts no word or path here (`~Xk29…`, `%4f…`).
    let signed = judged.starts_with(['~', '%', '.', '-'])
        && judged.len() > 10
        && !judged[1..].contains(['/', '\\', '%', '.'])
        && strong_value(&judged[1..]);
    if judged.len() < 10 || !(strong_value(judged) || signed || random && random_looking(judged)) {
        return;
    }
    // `Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...`: a token's shape.
    if super::stand_ins::unsigned_jwt(judged) {
        return;
    }
    out.push(written_out(s, v, "after its label"));
}

/// The keyword ends an identifier that joins it to another word (`BEAMER_API_KEY`,
/// `apolloApiKey`, `stripe.secret`) and whitespace or a comma, then a value, follows: a setting
/// written as `NAME value` (Dockerfile `ENV` without `=`, `.netrc`-style and space-separated
/// config files) or a CSV row `NAME,value`.
fn compound_label_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric();
    let joined = start > 0 && (word(b[start - 1]) || matches!(b[start - 1], b'_' | b'.' | b'-'));
    if !joined || b.get(end).is_some_and(|&c| word(c) || c == b'_') {
        return false;
    }
    // A CSV row of a name and its value (`ledgerlyToken,…,`).
    if b.get(end) == Some(&b',') {
        return true;
    }
    let mut i = end;
    while i < b.len() && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    i > end && i < b.len() && !matches!(b[i], b'=' | b':' | b'\r' | b'\n' | b'"' | b'\'')
}

/// SEC121 for `NAME value`: an identifier that names a credential, whitespace, and a value that
/// is a credential on its own (no operator vouches for an assignment).
fn check_compound_label(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let name = caps.str(1);
    // The name ends in one of the pattern's keywords joined to a word before it, as its gate
    // reads it ([`compound_label_gate`]): a name that does not (`hf_credentials`,
    // `keyCredentials`) was judged only when another keyword's window happened to hold it.
    let ends_in_keyword = |k: &str| {
        name.len() > k.len()
            && name.is_char_boundary(name.len() - k.len())
            && name[name.len() - k.len()..].eq_ignore_ascii_case(k)
    };
    if !["key", "token", "secret", "password", "passwd"]
        .into_iter()
        .any(ends_in_keyword)
    {
        return;
    }
    let (s, e) = caps.range(2).expect("group v");
    let parts = name_parts(name);
    let last = parts.last().map_or("", String::as_str);
    let prev = parts.len().checked_sub(2).map_or("", |i| parts[i].as_str());
    // A name of two to five words that ends in a credential's word, none of them naming an
    // identifier or a public half (`public_key`, `key_id`, `token_url`).
    let named = (2..=5).contains(&parts.len())
        && (matches!(
            last,
            "key" | "token" | "secret" | "password" | "passwd" | "apikey"
        ) || credential_name(name).is_some())
        && !parts.iter().any(|p| {
            matches!(
                p.as_str(),
                "public"
                    | "pub"
                    | "publishable"
                    | "id"
                    | "url"
                    | "uri"
                    | "name"
                    | "file"
                    | "path"
                    | "type"
                    | "length"
                    | "size"
                    | "count"
                    | "limit"
                    | "budget"
                    | "expiry"
            )
        })
        && !matches!(
            prev,
            "cache" | "sort" | "primary" | "foreign" | "partition" | "hash"
        );
    // The setting is the line's first word, or follows `ENV`/`export`/`set` and the like.
    let text = scan.text();
    let (ns, _) = caps.range(1).expect("group n");
    let line = &text[text[..ns].rfind('\n').map_or(0, |i| i + 1)..ns];
    let lead = line.split_whitespace().count() <= 1;
    let v = &text[s..e];
    if !named || !lead || !strong_value(v) || v.len() < 16 {
        return;
    }
    out.push(
        Finding::new(
            &SEC121,
            s,
            e,
            format!(
                "credential written after its setting's name: {}",
                redacted(v)
            ),
        )
        .secret("labelled-credential"),
    );
}

/// The keyword ends a sentence that names what precedes it: `… is the password`, `… was my
/// API key` (a value written first, as in a code comment `// 8fJ2… is the password`).
fn value_first_gate(b: &Site<'_>, start: usize, _end: usize) -> bool {
    // The runs of bytes between blanks back from the label, as the regex reads them: the
    // label after a blank, at most a word and an article before it (in either order the
    // regex allows: `is the password`, `is admin password`, `is the admin password`), `is`
    // or `was` (any case), then a run of ten or more bytes (the value). Within the pattern's
    // window (340 bytes before the keyword); a text of labels one after another is turned
    // down at its second run.
    let lo = start.saturating_sub(340);
    let blank = |c: u8| c == b' ' || c == b'\t';
    let mut runs = [&b[..0]; 4];
    let mut i = start;
    for run in &mut runs {
        let end = i;
        while i > lo && blank(b[i - 1]) {
            i -= 1;
        }
        if i == end || i == lo {
            break;
        }
        let run_end = i;
        while i > lo && !blank(b[i - 1]) {
            i -= 1;
        }
        *run = &b[i..run_end];
    }
    let verb = |r: &[u8]| r.eq_ignore_ascii_case(b"is") || r.eq_ignore_ascii_case(b"was");
    let article = |r: &[u8]| {
        [&b"the"[..], b"my", b"our", b"your", b"a", b"an"]
            .iter()
            .any(|a| r.eq_ignore_ascii_case(a))
    };
    let word = |r: &[u8]| !r.is_empty() && r.iter().all(u8::is_ascii_alphabetic);
    let value = |r: &[u8]| r.len() >= 10;
    verb(runs[0]) && value(runs[1])
        || word(runs[0]) && verb(runs[1]) && value(runs[2])
        || word(runs[0]) && article(runs[1]) && verb(runs[2]) && value(runs[3])
}

/// SEC121 for a value written before its label (`8fJ2… is the password`).
fn check_value_first(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.range(1).expect("group v");
    let raw = &scan.text()[s..e];
    // A comment's marker written against the value (`//8fJ2…`).
    let v = raw.trim_start_matches(['/', '#', '*', ';', '-']);
    let s = s + (raw.len() - v.len());
    if !strong_value(v) {
        return;
    }
    out.push(
        Finding::new(
            &SEC121,
            s,
            e,
            format!("credential written out before its label: {}", redacted(v)),
        )
        .secret("labelled-credential"),
    );
}

fn check_user_pass(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.range(1).expect("group v");
    let v = scan.text()[s..e].trim_end_matches([';', ',']);
    let e = s + v.len();
    if is_template(v)
        || code_like(v)
        || placeholder(v) == Placeholder::Hard
        || v.len() < 3
        || super::stand_ins::base64_placeholder(v)
    {
        return;
    }
    let mut f = Finding::new(
        &SEC120,
        s,
        e,
        format!("password next to a username: {}", redacted(v)),
    )
    .secret("username-and-password");
    let text = scan.text();
    let (ls, le) = line_near(text, s, e, 256);
    if placeholder(v) == Placeholder::Soft {
        f = f.severity(Severity::Warning);
    } else if local_default_password(
        v,
        &text[super::super::text::floor_char(text, s.saturating_sub(256))..s],
    ) && !names_a_real_host(&text[ls..le])
    {
        f = f.severity(Severity::Warning);
        f.message.push_str(" (a local default login)");
    }
    out.push(f);
}

#[allow(
    clippy::many_single_char_names,
    reason = "s/e/m/v: span and match, as in every check"
)]
fn check_gradle(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (s, e) = caps.range(1).expect("group v");
    let m = caps.str(0).to_lowercase();
    if !m.starts_with("password") {
        return;
    }
    let lo = super::super::text::floor_char(text, s.saturating_sub(200));
    if !text[lo..s].contains("credentials") {
        return;
    }
    let v = &text[s..e];
    if is_template(v) {
        return;
    }
    let mut f = Finding::new(
        &SEC120,
        s,
        e,
        format!(
            "password in a build script credentials block: {}",
            redacted(v)
        ),
    )
    .secret("gradle-credentials");
    if placeholder(v) != Placeholder::No {
        f = f.severity(Severity::Warning);
    }
    out.push(f);
}

#[allow(
    clippy::many_single_char_names,
    reason = "s/e/v: span and value, as in every check"
)]
fn check_password_prose(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.range(1).expect("group v");
    let v = &scan.text()[s..e];
    if is_template(v)
        || variable(v)
        || v.contains(' ') && v.split_whitespace().count() > 2
        || prose_value_is_a_name(v)
        || label(v) == Label::Caption
    {
        return;
    }
    let p = placeholder(v);
    if p == Placeholder::Hard {
        return;
    }
    let mut f = Finding::new(
        &SEC121,
        s,
        e,
        format!("password written out in text: {}", redacted(v)),
    )
    .secret("password-in-prose");
    if p == Placeholder::Soft || label(v) == Label::Words {
        f = f.severity(Severity::Warning);
    }
    out.push(f);
}

/// SEC121's prose password is a field's or a route's name (`as: 'update_password'`), kept
/// apart from the pattern's own check, which another change is reworking.
fn prose_value_is_a_name(v: &str) -> bool {
    names_a_credential(v)
}

/// A token as a URL's user name (`https://ghp_…@github.com`, `https://<40 hex>@host/…`): a
/// credential when it reads as drawn (hex with letters and digits, or mixed case with
/// digits), not a user's name.
fn check_url_token_user(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.range(2).expect("group v");
    let v = &scan.text()[s..e];
    let b = v.as_bytes();
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
    let hex = b.iter().all(u8::is_ascii_hexdigit);
    let mixed = b.iter().any(u8::is_ascii_uppercase) && b.iter().any(u8::is_ascii_lowercase);
    if is_template(v)
        || placeholder(v) != Placeholder::No
        || judged_stand_in(v)
        || digits < 2
        || letters < 3
        || !(hex || mixed)
        || entropy(v) < 3.5
    {
        return;
    }
    let scheme = caps.str(1).to_lowercase();
    out.push(
        Finding::new(
            &SEC130,
            s,
            e,
            format!(
                "token embedded as the user of a {scheme} URL: {}",
                redacted(v)
            ),
        )
        .secret("url-credentials"),
    );
}

fn check_url_credentials(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.range(3).expect("group pass");
    let pass = &scan.text()[s..e];
    let scheme = caps.str(1).to_lowercase();
    if is_template(pass)
        || matches!(
            pass.to_lowercase().as_str(),
            "password" | "pass" | "passwd" | "pwd" | "pw" | "token"
        )
    {
        return;
    }
    if scheme == "mailto" {
        return;
    }
    let mut f = Finding::new(
        &SEC130,
        s,
        e,
        format!("password embedded in a {scheme} URL: {}", redacted(pass)),
    )
    .secret("url-credentials");
    // A weak or default password (`hunter2`, `admin`, `password123`) that opens a real host
    // is a leaked login, not a stand-in; documentation points at `localhost` or `example.com`.
    // So does a password that repeats the user's name (`postgres:postgres@localhost`), a
    // local default.
    let user = caps.str(2);
    let text = scan.text();
    let before = &text[super::super::text::floor_char(text, s.saturating_sub(256))..s];
    let default_login = ((pass.eq_ignore_ascii_case(user) || word_made_password(pass))
        && pass.len() <= 16
        && pass
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c == b'_' || c == b'-')
        || local_default_password(pass, before))
        && !real_host(caps.str(4));
    match placeholder(pass) {
        Placeholder::Soft if real_host(caps.str(4)) => {}
        Placeholder::Hard | Placeholder::Soft => {
            f = f.severity(Severity::Warning);
            f.message.push_str(" (looks like a placeholder)");
        }
        Placeholder::No if default_login => {
            f = f.severity(Severity::Warning);
            f.message.push_str(" (a local default login)");
        }
        Placeholder::No => {}
    }
    out.push(f);
}

/// A host that a URL's password could open: a domain name or an IP address that is not
/// loopback, reserved for documentation (RFC 2606, RFC 5737, RFC 6761) or a stand-in
/// (`host`, `your-db-host.com`).
fn real_host(host: &str) -> bool {
    let h = host
        .trim_end_matches(['.', ',', ';', ')', '?'])
        .to_ascii_lowercase();
    let labels: Vec<&str> = h.split('.').collect();
    let tld = labels.last().copied().unwrap_or("");
    let domain = labels.len().checked_sub(2).map_or("", |i| labels[i]);
    let ip = h.bytes().all(|c| c.is_ascii_digit() || c == b'.');
    labels.len() >= 2
        && labels.iter().all(|l| !l.is_empty())
        && !is_template(&h)
        && placeholder(&h) == Placeholder::No
        && !matches!(tld, "test" | "invalid" | "localhost" | "example")
        && !labels.contains(&"localhost")
        && !matches!(
            domain,
            "host" | "hostname" | "server" | "domain" | "mydomain" | "company" | "mycompany"
        )
        && !(ip
            && (labels.len() != 4
                || ["127.", "0.", "192.0.2.", "198.51.100.", "203.0.113."]
                    .iter()
                    .any(|p| h.starts_with(p))))
}

fn check_connection_string(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let text = scan.text();
    let (s, e) = caps.range(1).expect("group v");
    let v = &text[s..e];
    let (line_start, line_end) = line_near(text, s, e, 512);
    let line = text[line_start..line_end].to_lowercase();
    let conn = [
        "server=",
        "data source=",
        "host=",
        "uid=",
        "user id=",
        "database=",
        "initial catalog=",
        "provider=",
        "driver=",
        "user=",
        "port=",
    ]
    .iter()
    .any(|k| line.contains(k))
        && line.contains(';');
    if !conn || is_template(v) {
        return;
    }
    let mut f = Finding::new(
        &SEC130,
        s,
        e,
        format!("password in a connection string: {}", redacted(v)),
    )
    .secret("connection-string");
    if placeholder(v) != Placeholder::No {
        f = f.severity(Severity::Warning);
        f.message.push_str(" (looks like a placeholder)");
    }
    out.push(f);
}

/// The password of an Oracle connect string ([`ORACLE_CONNECT`]): an error, a warning when a
/// placeholder (`scott/tiger`), nothing when a variable or template stands in its place.
fn check_oracle_connect(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let Some((s, e, v)) = caps.first(&[1]) else {
        return;
    };
    if is_template(v) || variable(v) || v.starts_with(['-', '*', '[']) {
        return;
    }
    // Oracle's own tools on the line (`sqlplus user/…@//host/svc`) are SEC131's: the
    // password is reported once, as the tool's argument.
    let text = scan.text();
    let (line_start, _) = line_near(text, s, e, 160);
    let before = text[line_start..s].to_ascii_lowercase();
    if super::super::text::has_word(
        &before,
        &["sqlplus", "sqlldr", "expdp", "impdp", "rman", "dgmgrl"],
    ) {
        return;
    }
    let f = Finding::new(
        &SEC130,
        s,
        e,
        format!("password in an Oracle connect string: {}", redacted(v)),
    )
    .secret("connection-string");
    out.extend(graded(f, v));
}

/// `f` as its value `v` grades it: none for a stand-in (`<password>`, `xxxx`), a warning for
/// a documentation password (`secret`, `changeit`), as it is for a real one.
fn graded(mut f: Finding, v: &str) -> Option<Finding> {
    match placeholder(v) {
        Placeholder::Hard => return None,
        Placeholder::Soft => {
            f = f.severity(Severity::Warning);
            f.message.push_str(" (looks like a placeholder)");
        }
        Placeholder::No => {}
    }
    Some(f)
}

fn check_command_credentials(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let Some((s, e, v)) = caps.first(&[1, 2, 3, 5, 7, 8, 9, 10, 11, 12, 13]) else {
        return;
    };
    // A user option then a password option on any tool's command line: `-p` is also a port
    // (`docker run -u 1000 -p 8080:80`, `lftp -u u -p 2121`), a process id (`ps -u x -p 42`)
    // a switch before a URL (`curl -u admin -p https://…`) or sudo's prompt; a password holds
    // a letter and is neither a URL, a path nor a phrase.
    if caps.range(12).or_else(|| caps.range(13)).is_some() {
        let bare = v.trim_matches(['"', '\'']);
        if !bare.bytes().any(|c| c.is_ascii_alphabetic())
            || bare.contains("://")
            || bare.starts_with(['/', '.', '~', '\\'])
            || bare.ends_with('@')
            // A quoted phrase is a prompt (`sudo -u postgres -p 'password for %u: '`).
            || bare.contains([' ', '\t'])
            // Any tool's `-p` may take a name (`pytest -p no:cacheprovider`): only a value
            // shaped like a password is read as one.
            || !(credential_shaped(bare) || mixed_case_random(bare))
        {
            return;
        }
        // The password equal to the user name is a product's default account
        // (`-u guest -p guest`, `/u:admin /p:admin`), not an issued secret.
        let (ms, _) = caps.whole();
        let user = scan.text()[ms..s]
            .trim_start()
            .split_once([' ', '\t', '=', ':'])
            .map(|(_, rest)| rest.trim_start())
            .and_then(|rest| rest.split_whitespace().next())
            .map(|u| u.trim_matches(['"', '\'']));
        if user.is_some_and(|u| u.eq_ignore_ascii_case(bare)) {
            return;
        }
    }
    command_credential(scan, caps.whole().0, (s, e), v, out);
}

/// [`check_command_credentials`] for the tools with a password syntax of their own.
fn check_tool_password(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let Some((s, e, v)) = caps.first(&[1, 2, 3, 4, 5, 6, 7]) else {
        return;
    };
    if variable(v.trim_matches(['"', '\''])) {
        return;
    }
    command_credential(scan, caps.whole().0, (s, e), v, out);
}

/// [`check_tool_password`]'s gate: a flag (` -`) or a `user/password` slash on the keyword's
/// line, within 240 bytes.
fn tool_password_gate(b: &Site<'_>, _start: usize, end: usize) -> bool {
    let tail = &b[end..b.len().min(end + 240)];
    let line = &tail[..memchr::memchr(b'\n', tail).unwrap_or(tail.len())];
    memchr::memmem::find(line, b" -").is_some() || memchr::memchr(b'/', line).is_some()
}

/// A password `v` at `s..e` on a command line whose match starts at `ms`: an error, a
/// warning when a placeholder.
fn command_credential(
    scan: &Scan<'_>,
    ms: usize,
    (s, e): (usize, usize),
    v: &str,
    out: &mut Vec<Finding>,
) {
    let v_trim = v.trim_matches(['"', '\'']);
    // `net use … /user:x *` asks for the password.
    if v_trim.is_empty() || v_trim == "*" || is_template(v_trim) || v_trim.starts_with('-') {
        return;
    }
    // MySQL's `-P 3306` is the port (its password flag is `-p`).
    if scan.text()[..s]
        .trim_end_matches([' ', '\t', '='])
        .ends_with("-P")
        && v_trim.len() <= 5
        && v_trim.bytes().all(|c| c.is_ascii_digit())
    {
        return;
    }
    // MySQL's `-p` takes its password joined (`-pSECRET`): `mysql -u root -p app` asks for
    // it and names the database.
    if scan.text()[ms..s].ends_with([' ', '\t'])
        && scan.text()[ms..s].trim_end().ends_with(" -p")
        && scan.text()[ms..].starts_with("mysql")
    {
        return;
    }
    if describes_flag(&scan.text()[ms..s], v, &scan.text()[e..]) {
        return;
    }
    let lower = v_trim.to_lowercase();
    // `-Password (Get-Secret db)`, `-p $(cat pw.txt)`: an expression that reads the password.
    if lower.starts_with("stdin")
        || lower == "file"
        || v_trim.starts_with('(')
        || v_trim.starts_with("@(")
    {
        return;
    }
    push_command_credential((s, e), v_trim, out);
}

/// Prose that describes a tool's password flag rather than a command line using it (`PsExec's
/// flag -p takes the password`, `pass -p the password to mysql`): the "value" is a lower-case
/// word, and either the words before the flag call it one (`flag`, `option`), or it or the
/// next word is an article or a pronoun, as a sentence goes on (`-p its password`). `before` runs from the tool's name to the
/// value; only the rest of the value's line is read after it.
fn describes_flag(before: &str, v: &str, after: &str) -> bool {
    if v.is_empty() || !v.bytes().all(|c| c.is_ascii_lowercase()) {
        return false;
    }
    let line = after.split('\n').next().unwrap_or("");
    let next = line
        .trim_start_matches([' ', '\t'])
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("");
    let names_flag = before.split(|c: char| !c.is_ascii_alphabetic()).any(|w| {
        matches!(
            w.to_ascii_lowercase().as_str(),
            "flag" | "flags" | "option" | "options" | "switch" | "argument" | "parameter"
        )
    });
    let article = |w: &str| {
        matches!(
            w,
            "the" | "a" | "an" | "your" | "its" | "their" | "it" | "them" | "this" | "that"
        )
    };
    names_flag || article(v) || article(&next.to_ascii_lowercase())
}

/// Reports SEC131 for the credential `v` at `(s, e)`: a warning when it is a placeholder.
fn push_command_credential((s, e): (usize, usize), v: &str, out: &mut Vec<Finding>) {
    let mut f = Finding::new(
        &SEC131,
        s,
        e,
        format!(
            "credential on a command line or in a header: {}",
            redacted(v)
        ),
    )
    .secret("command-credentials");
    if placeholder(v) != Placeholder::No {
        f = f.severity(Severity::Warning);
        f.message.push_str(" (looks like a placeholder)");
    }
    out.push(f);
}

/// A password in a tool's own option or argument (`redis-cli -a`, `sqlplus user/pass@db`,
/// `htpasswd -b`, `zip -P`, `7z -p…`, `openssl -k`, `-pass pass:…`); a template, a variable
/// or an option in its place is none.
fn check_command_credentials_at(_scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let Some((s, e, v)) = caps.first(&[1, 2, 3, 4, 5, 6, 7]) else {
        return;
    };
    let v = v.trim_matches(['"', '\'']);
    if v.is_empty() || is_template(v) || v.starts_with(['-', '$', '%', '<', '@']) {
        return;
    }
    push_command_credential((s, e), v, out);
}

fn check_identifier(scan: &Scan<'_>, caps: &Caps<'_>, out: &mut Vec<Finding>) {
    let (s, e) = caps.whole();
    let m = &scan.text()[s..e];
    let kind = if m.starts_with("arn:") {
        "aws-arn"
    } else if m.contains("amazonaws.com") {
        if m.starts_with("s3") {
            "s3-bucket-path"
        } else {
            "s3-bucket-host"
        }
    } else if m.starts_with("storage.googleapis.com") || m.starts_with("gs://") {
        "gcs-bucket-path"
    } else if m.contains("googleapis.com") {
        "gcs-bucket-host"
    } else if m.contains("myshopify") {
        "shopify-domain"
    } else if m.contains("googleusercontent") {
        "google-oauth-client-id"
    } else if m.starts_with("age1") {
        "age-recipient"
    } else if m.to_lowercase().contains("account") {
        "aws-account-id"
    } else {
        if is_template(m.rsplit('=').next().unwrap_or("")) {
            return;
        }
        "account-username"
    };
    let mut f = Finding::new(
        &SEC150,
        s,
        e,
        format!("infrastructure identifier ({kind}): {}", super::excerpt(m)),
    );
    f.kind = Some(kind);
    out.push(f);
}

/// SEC130's connect strings: the keyword `@` opens a window only where a host, a port of
/// two to five digits and a slash follow it (`@db1:1522/svc`), as the regex's portless
/// form reads it, and a slash stands in the run before it (the password's); `@//` and the
/// other keywords open it always.
fn oracle_at_gate(b: &Site<'_>, start: usize, end: usize) -> bool {
    if &b[start..end] != b"@" {
        return true;
    }
    let host = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-');
    let mut i = end;
    if !b.get(i).is_some_and(u8::is_ascii_alphanumeric) {
        return false;
    }
    while i < b.len() && i < end + 200 && host(&b[i]) {
        i += 1;
    }
    if b.get(i) != Some(&b':') {
        return false;
    }
    let digits = b[i + 1..]
        .iter()
        .take(6)
        .take_while(|c| c.is_ascii_digit())
        .count();
    if !(2..=5).contains(&digits) || b.get(i + 1 + digits) != Some(&b'/') {
        return false;
    }
    b[start.saturating_sub(100)..start]
        .iter()
        .rev()
        .take_while(|c| !c.is_ascii_whitespace())
        .any(|&c| c == b'/')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`spoken_passphrase`] answers as the reading it replaced: the value to its line's end,
    /// cut at the first ` #`, trimmed, then [`word_passphrase`] (issue #13 item 4: that
    /// reading went to the line's end for every assignment on a long line).
    #[test]
    fn a_spoken_passphrase_is_read_as_far_as_it_can_be_one() {
        fn by_line(rest: &str) -> bool {
            let line_end = rest.find('\n').unwrap_or(rest.len());
            word_passphrase(rest[..line_end].split(" #").next().unwrap_or("").trim())
        }
        // Runs of words, mostly one blank apart, with what may stand around or after them.
        const WORDS: &[&str] = &[
            "ab",
            "horse",
            "staple",
            "abcdefghijklm",
            "x",
            "Horse",
            "h0rse",
            "\u{e9}t\u{e9}",
        ];
        const SEPS: &[&str] = &[" ", " ", " ", " ", " ", "  ", "\t", " #", "#", "=", "\n"];
        const ENDS: &[&str] = &[
            "",
            "",
            "\n",
            " # note",
            "  \t\r\n",
            "\u{3000}",
            "\u{a0}",
            " =x",
            "password=x",
            "7",
        ];
        for (rest, want) in [
            ("correct horse battery staple\nnext", true),
            ("correct horse battery staple # a comment", true),
            ("  correct horse battery staple \t\u{3000}\r\n", true),
            ("correct horse battery staple#x", false),
            ("correct horse  battery staple", false),
            ("correct horse", false),
            ("hunter2 and more words", false),
            ("password=password=password=", false),
        ] {
            assert_eq!(spoken_passphrase(rest), want, "{rest:?}");
            assert_eq!(by_line(rest), want, "{rest:?}");
        }
        let mut next = crate::lint::rules::xorshift(0x7a55_f0a5_e000_0001_u64);
        let mut yes = 0;
        for _ in 0..40_000 {
            let mut text = String::from(["", " ", "\t", "\u{3000}"][next(4)]);
            for i in 0..=next(10) {
                if i > 0 {
                    text.push_str(SEPS[next(SEPS.len())]);
                }
                text.push_str(WORDS[next(WORDS.len())]);
            }
            text.push_str(ENDS[next(ENDS.len())]);
            let want = by_line(&text);
            assert_eq!(spoken_passphrase(&text), want, "{text:?}");
            yes += usize::from(want);
        }
        assert!(yes > 20, "{yes}");
    }

    /// [`csv_header_gate`] as it was before issue #13 item 4: it found the line's ends
    /// within the reach first.
    fn csv_header_gate_by_line(b: &[u8], start: usize, end: usize) -> bool {
        let lo = start.saturating_sub(200);
        let hi = b.len().min(end + 200);
        let line_start = b[lo..start]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(lo, |i| lo + i + 1);
        let line_end = b[end..hi]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(hi, |i| end + i);
        let cell =
            |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b' ' | b'"' | b'\'');
        let before = b[line_start..start].iter().rposition(|&c| !cell(c));
        let after = b[end..line_end]
            .iter()
            .position(|&c| !cell(c) && c != b'\r');
        let comma_before = before.is_none_or(|i| b[line_start + i] == b',');
        let comma_after = after.is_none_or(|i| b[end + i] == b',');
        (before.is_some() || after.is_some()) && comma_before && comma_after
    }

    /// The gate reads the runs between blanks back from the label as the pattern's regex
    /// does: wherever the regex's head (a value, `is` or `was`, an article, a word) ends at
    /// the label, the gate holds; it turns down most places where it does not.
    #[test]
    fn the_value_first_gate_is_never_stricter_than_its_regex() {
        const PIECES: &[&str] = &[
            "is",
            "was",
            "Is",
            "wa",
            "s",
            "the",
            "my",
            "a",
            "word",
            "8fJ2kq0ZpLx",
            "0123456789",
            " ",
            " ",
            "\t",
            "password",
            "\u{e9}",
            "\u{4e2d}",
            "=",
        ];
        // The pattern's regex up to its label, ending where the label starts.
        let head = regex::Regex::new(
            r#"(?i)(?:^|[\s`'"(/#*;])[^\s`'"<>()\[\]{},;|]{10,}[ \t]+(?:is|was)[ \t]+(?:(?:the|my|our|your|an?)[ \t]+)?(?:[A-Za-z]+[ \t]+)?$"#,
        )
        .unwrap();
        let mut next = crate::lint::rules::xorshift(0x1234_5678_9abc_def1_u64);
        let (mut yes, mut no) = (0, 0);
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..next(16) {
                text.push_str(PIECES[next(PIECES.len())]);
            }
            let b = text.as_bytes();
            for start in (0..=b.len()).filter(|&i| text.is_char_boundary(i)) {
                let gate = value_first_gate(&Site::new(b), start, start);
                if head.is_match(&text[..start]) {
                    assert!(gate, "{text:?} at {start}");
                    yes += 1;
                } else if !gate {
                    no += 1;
                }
            }
        }
        assert!(yes > 50 && no > 1_000, "{yes} {no}");
    }

    #[test]
    fn the_password_is_quoted_gate_read_from_the_quotes_is_the_byte_walk() {
        // Random texts of separators (also inside words and in either case), blanks of every
        // kind, quotes, stops, non-ASCII characters and filler, the keyword's end anywhere.
        const PIECES: &[&[u8]] = &[
            b"=",
            b":",
            b"is",
            b"IS",
            b"of",
            b"Of",
            b"was",
            b"are",
            b"ARE",
            b"this",
            b"i",
            b"s",
            b"w",
            b"a",
            b" ",
            b" ",
            b"  ",
            b"\t",
            b"\n",
            b"\r",
            b"\x0b",
            b"\x0c",
            b".",
            b"\"",
            b"'",
            b"x",
            b"password",
            "\u{e9}".as_bytes(),
            "\u{a0}".as_bytes(),
        ];
        let mut next = crate::lint::rules::xorshift(0x2545_f491_4f6c_dd1d_u64);
        let (mut yes, mut no) = (0, 0);
        let mut text = Vec::new();
        for round in 0..20_000 {
            text.clear();
            let size = next(120) + if round % 10 == 0 { 120 } else { 0 };
            while text.len() < size {
                let piece = PIECES[next(PIECES.len())];
                // Long runs of blanks or filler, past the reach of 164 bytes.
                let times = if round % 7 == 0 && matches!(piece, b" " | b"x") {
                    90
                } else {
                    1
                };
                for _ in 0..times {
                    text.extend_from_slice(piece);
                }
            }
            for end in 0..=text.len() {
                let limit = text.len().min(end + 4 * 40 + 4);
                let walk = password_is_quoted_walk(&text, end, limit);
                assert_eq!(
                    password_is_quoted_gate(&Site::new(&text), end, end),
                    walk,
                    "{:?} at {end}",
                    String::from_utf8_lossy(&text)
                );
                if walk { yes += 1 } else { no += 1 }
            }
        }
        assert!(yes > 10_000 && no > 10_000, "{yes} {no}");
    }

    #[test]
    fn the_csv_header_gate_reads_to_the_cell_ends_as_it_read_the_line() {
        // Random lines of cells, separators, line breaks and other punctuation, the keyword
        // anywhere (also near either end and past the reach of 200 bytes).
        const PIECES: &[&[u8]] = &[
            b"password",
            b"user",
            b"a",
            b"_",
            b"-",
            b" ",
            b"\"",
            b"'",
            b",",
            b",",
            b",",
            b"\n",
            b"\r",
            b"\r\n",
            b"=",
            b";",
            b":",
            b"\t",
            "\u{e9}".as_bytes(),
            b"x",
        ];
        let mut next = crate::lint::rules::xorshift(0x9e37_79b9_7f4a_7c15_u64);
        let (mut yes, mut no) = (0, 0);
        let mut text = Vec::new();
        for round in 0..40_000 {
            // Long runs of cell bytes, to pass the reach.
            pieces_text(&mut text, PIECES, &mut next, round, (30, 60), (b"a", 150));
            let start = next(text.len() + 1);
            let end = start + next(text.len() - start + 1);
            let got = csv_header_gate(&Site::new(&text), start, end);
            assert_eq!(
                got,
                csv_header_gate_by_line(&text, start, end),
                "{:?} {start}..{end}",
                String::from_utf8_lossy(&text)
            );
            if got {
                yes += 1;
            } else {
                no += 1;
            }
        }
        assert!(yes > 2_000 && no > 2_000, "{yes} / {no}");
    }

    /// Fills `text` with up to `most` pieces drawn by `next` (`long` more every tenth round),
    /// the piece `run` repeated `times` times where it is drawn every seventh round.
    fn pieces_text(
        text: &mut Vec<u8>,
        pieces: &[&[u8]],
        next: &mut impl FnMut(usize) -> usize,
        round: usize,
        (most, long): (usize, usize),
        (run, times): (&[u8], usize),
    ) {
        text.clear();
        let long = if round.is_multiple_of(10) { long } else { 0 };
        for _ in 0..next(most) + long {
            let piece = pieces[next(pieces.len())];
            let times = if piece == run && round.is_multiple_of(7) {
                times
            } else {
                1
            };
            for _ in 0..times {
                text.extend_from_slice(piece);
            }
        }
    }

    /// [`table_gate`] as it read the text before the line facts of [`Site`]: back to the
    /// line's start and on to its end for each keyword.
    fn table_gate_by_bytes(b: &[u8], start: usize, end: usize) -> bool {
        let lo = start.saturating_sub(300);
        let hi = b.len().min(end + 600);
        let line_start = memchr::memrchr(b'\n', &b[lo..start]).map_or(lo, |i| lo + i + 1);
        let Some(nl) = memchr::memchr(b'\n', &b[end..hi]).map(|i| end + i) else {
            return false;
        };
        let next_end = memchr::memchr(b'\n', &b[nl + 1..hi]).map_or(hi, |i| nl + 1 + i);
        let next = &b[nl + 1..next_end];
        memchr::memchr(b'|', &b[line_start..nl]).is_some()
            && next.contains(&b'-')
            && next
                .iter()
                .all(|c| matches!(c, b'|' | b'-' | b':' | b' ' | b'\t' | b'\r'))
    }

    /// [`table_row_gate`] as it read the text before the line facts of [`Site`].
    fn table_row_gate_by_bytes(b: &[u8], start: usize, end: usize) -> bool {
        let lo = start.saturating_sub(600);
        let line_start = match memchr::memrchr(b'\n', &b[lo..start]) {
            Some(i) => lo + i + 1,
            None if lo == 0 => 0,
            None => return false,
        };
        let first = b[line_start..start]
            .iter()
            .find(|c| !matches!(c, b' ' | b'\t' | b'>'));
        first == Some(&b'|') && memchr::memchr(b'|', &b[end..b.len().min(end + 600)]).is_some()
    }

    /// [`value_first_label_gate`] and [`next_line_gate`] as they read the text before the line
    /// facts of [`Site`].
    fn line_gates_by_bytes(b: &[u8], start: usize, end: usize) -> (bool, bool) {
        let lo = start.saturating_sub(120);
        let line_start = memchr::memrchr(b'\n', &b[lo..start]).map_or(lo, |i| lo + i + 1);
        let label = memchr::memmem::find(&b[line_start..start], b" as ").is_some();
        let next = memchr::memchr(b'\n', &b[end..b.len().min(end + 120)])
            .map(|i| end + i)
            .is_some_and(|eol| colon_then_value_below(b, end, eol));
        (label, next)
    }

    #[test]
    fn gates_reading_line_facts_answer_as_reading_the_bytes_did() {
        // Tables, rows, quotes, labels and lines of every length around keywords, asked of
        // one site in the order the keyword pass meets them (the line facts kept from one
        // keyword to the next) and of a fresh site, out of order.
        const PIECES: &[&[u8]] = &[
            b"password",
            b"pass",
            b"token",
            b"|",
            b"| ",
            b"|---|",
            b"| --- | :-: |",
            b"-",
            b" ",
            b"\t",
            b">",
            b"\n",
            b"\r\n",
            b"\n\n",
            b" as ",
            b"x",
            b"Secret:",
            b":\n  Xk29fQ7vLmP3sT8w\n",
            b"**",
            b"  Xk29fQ7vLmP3sT8w",
            b"=",
        ];
        let mut next = crate::lint::rules::xorshift(0x2545_f491_4f6c_dd1d_u64);
        let (mut yes, mut no) = ([0usize; 4], [0usize; 4]);
        let mut text = Vec::new();
        for round in 0..3_000 {
            // Long runs, to pass the reach of each gate.
            pieces_text(&mut text, PIECES, &mut next, round, (40, 120), (b"x", 400));
            let site = Site::new(&text);
            let keywords: Vec<(usize, usize)> = memchr::memmem::find_iter(&text, b"pass")
                .map(|s| (s, s + 4))
                .chain(memchr::memmem::find_iter(&text, b"password").map(|s| (s, s + 8)))
                .chain(std::iter::once((0, 0)))
                .chain(std::iter::once((text.len(), text.len())))
                .collect();
            for (i, &(start, end)) in keywords.iter().enumerate() {
                let shown = || format!("{:?} {start}..{end}", String::from_utf8_lossy(&text));
                // Every other one from a fresh site: the facts of another line are not kept.
                let fresh = Site::new(&text);
                let site = if i % 2 == 0 { &site } else { &fresh };
                let (label, below) = line_gates_by_bytes(&text, start, end);
                let got = [
                    table_gate(site, start, end),
                    table_row_gate(site, start, end),
                    value_first_label_gate(site, start, end),
                    next_line_gate(site, start, end),
                ];
                let want = [
                    table_gate_by_bytes(&text, start, end),
                    table_row_gate_by_bytes(&text, start, end),
                    label,
                    below,
                ];
                assert_eq!(got, want, "{}", shown());
                for k in 0..4 {
                    if got[k] {
                        yes[k] += 1;
                    } else {
                        no[k] += 1;
                    }
                }
            }
        }
        for k in 0..4 {
            assert!(yes[k] > 100 && no[k] > 100, "gate {k}: {yes:?} / {no:?}");
        }
    }

    /// `prefix` + `body` (30 characters) + the six base62 digits of the body's CRC32.
    fn github_token(prefix: &str, body: &str) -> String {
        let sum =
            super::super::catalogue::base62_6(super::super::catalogue::crc32(body.as_bytes()));
        format!("{prefix}{body}{}", std::str::from_utf8(&sum).unwrap())
    }

    #[test]
    fn a_github_token_with_a_valid_checksum_is_an_error_whatever_it_looks_like() {
        // A body with a placeholder's look (`xxxx`): with its checksum it is a token, without
        // one it is judged as a stand-in.
        let body = "xxxxR7kQ2mVb9TzL4wPn8sHd3FjYc6";
        for prefix in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"] {
            let real = github_token(prefix, body);
            let text = format!("Example: `export GITHUB_TOKEN={real}`");
            let d = crate::lint::check_text("x/NOTES.md", &text).unwrap();
            assert!(
                d.iter().any(|d| d.rule == "SEC020"
                    && d.severity == Severity::Error
                    && d.message.contains("checksum is valid")),
                "{prefix}: {d:?}"
            );
            let mut forged = real.clone();
            forged.replace_range(39.., if real.ends_with('A') { "B" } else { "A" });
            let text = format!("Example: `export GITHUB_TOKEN={forged}`");
            let d = crate::lint::check_text("x/NOTES.md", &text).unwrap();
            assert!(!d.iter().any(|d| d.rule == "SEC020"), "{prefix}: {d:?}");
        }
    }

    #[test]
    fn a_key_id_or_token_glued_to_what_precedes_it_is_found_and_redacted() {
        // Review, fourteenth session: `\b` before the prefix let `agentghp_…` or `xAKIA…` pass
        // the gate and reach `context` verbatim.
        let gh = github_token("ghp_", "R7kQ2mVb9TzL4wPn8sHd3FjYc6aB1x");
        let pat = format!("github_pat_11{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW");
        let aws = "AKIAQYLPMN5HHHFPZAM2";
        for (rule, token) in [
            ("SEC020", gh.as_str()),
            ("SEC020", pat.as_str()),
            ("SEC010", aws),
        ] {
            for glue in ["agent", "x", "_", "9", "my_"] {
                let text = format!("Deploy with {glue}{token} today.");
                assert_eq!(severities(rule, &text), [Severity::Error], "{glue}{token}");
                let shown = crate::output::boundary::clean(&text).into_owned();
                assert!(!shown.contains(token), "{shown}");
            }
        }
        // A shorter piece of a token is still judged only at a word's start.
        assert!(severities("SEC020", "see laughs_aB3dE5fG7hJ9kL1mN3p here").is_empty());
    }

    #[test]
    fn other_tokens_with_distinctive_prefixes_are_found_glued_too() {
        // Second review, fourteenth session: the same gap in other formats. Those whose
        // prefix cannot end an ordinary word are recognised after any character; `sk_live_`
        // and the like keep their word boundary (`disk_test_…` is an identifier).
        let body = |n: usize, seed: u64| {
            let mut x = seed;
            (0..n)
                .map(|_| {
                    x = x
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let a = b"aZ3kQ9mX2pL7vB4nR8tY6wC1dF5gH0jS";
                    a[usize::try_from(x >> 59).unwrap_or(0)] as char
                })
                .collect::<String>()
        };
        let tokens = [
            format!("glpat-{}", body(20, 1)),
            format!("sk-proj-{}", body(48, 2)),
            format!("sk-ant-api03-{}", body(48, 3)),
            format!("xoxb-123456789012-123456789012-{}", body(24, 4)),
            format!("whsec_{}", body(32, 5)),
            format!("AIza{}", body(35, 6)),
            format!("npm_{}", body(36, 7)),
            format!("hvs.{}", body(30, 8)),
        ];
        for token in &tokens {
            for glue in ["agent", "x", "_", "9"] {
                let text = format!("Deploy with {glue}{token} today.");
                let found = crate::lint::check_text("x/NOTES.md", &text).unwrap();
                assert!(
                    found
                        .iter()
                        .any(|d| d.rule.starts_with("SEC") && d.severity == Severity::Error),
                    "{glue}{token}: {found:?}"
                );
                let shown = crate::output::boundary::clean(&text).into_owned();
                assert!(!shown.contains(token.as_str()), "{shown}");
            }
        }
    }

    /// The severities of `rule`'s findings in `text`.
    fn severities(rule: &str, text: &str) -> Vec<Severity> {
        crate::lint::check_text("x/NOTES.md", text)
            .unwrap()
            .iter()
            .filter(|d| d.rule == rule)
            .map(|d| d.severity)
            .collect()
    }

    /// The label's look-back window may start inside a character of the text before the
    /// value; wherever it falls, the value is still read.
    #[test]
    fn a_value_before_its_label_is_found_after_text_of_any_script() {
        for lead in ["", "note: ", "\u{5bc6}", "\u{5bc6}\u{5bc6}"] {
            for n in 10..20 {
                let text = format!(
                    "{lead}{} 8fJ2kQ9xLm3pZ7vRt4Wy is the password\n",
                    "\u{5bc6}".repeat(n)
                );
                assert_eq!(severities("SEC121", &text), [Severity::Error], "{text}");
            }
        }
    }

    #[test]
    fn an_aws_key_id_whose_body_repeats_itself_is_a_placeholder_warning() {
        for body in ["DEADBEEFDEADBEEF", "ABCDABCDABCDABCD", "Q7Q7Q7Q7Q7Q7Q7Q7"] {
            let text = format!("key id AKIA{body} in the sample");
            assert_eq!(severities("SEC010", &text), [Severity::Warning], "{text}");
        }
        // A random body stays an error; AWS's published documentation key, and any id whose
        // body ends in EXAMPLE, is a warning (issue 13: vendor examples at most warn).
        let key = crate::lint::rules::catalogue::expand("AKIA{U:16}", 4, false);
        let text = format!("aws_key = {key}");
        assert_eq!(severities("SEC010", &text), [Severity::Error], "{text}");
        let text = format!("aws_key = AKIA{}", "IOSFODNN7EXAMPLE");
        assert_eq!(severities("SEC010", &text), [Severity::Warning], "{text}");
    }

    #[test]
    fn a_shortened_anthropic_key_is_found_by_what_shows() {
        for text in [
            "old key `sk-ant-api03-kQ…-RtVw8hAA` rotated but not revoked",
            "leaked sk-ant-admin01-Zp...4mTqL9wAA in the log",
        ] {
            assert_eq!(severities("SEC041", text), [Severity::Error], "{text}");
        }
        for text in [
            "ANTHROPIC_API_KEY=sk-ant-api03-...",
            "keys look like sk-ant-api03-xxxx...xxxxxxxx",
            "keys look like sk-ant-api03-ab…AAAAAAAA",
        ] {
            assert_eq!(severities("SEC041", text), [], "{text}");
        }
    }

    #[test]
    fn a_weak_password_in_a_url_to_a_real_host_is_an_error() {
        for text in [
            "DATABASE_URL=postgres://app:hunter2@db.prod.acme-corp.io:5432/app",
            "mongodb+srv://admin:password123@cluster0.ab1cd.mongodb.net/test",
            "ftp://deploy:qwerty@ftp.acme-corp.io/",
            "mysql://root:root@10.0.3.7:3306/app",
        ] {
            assert_eq!(severities("SEC130", text), [Severity::Error], "{text}");
        }
        // The same values in documentation's URLs stay warnings; references are nothing.
        for text in [
            "postgres://app:hunter2@localhost:5432/app",
            "postgres://app:password123@db.example.com/app",
            "mysql://root:root@127.0.0.1:3306/app",
            "postgres://app:admin@host:5432/app",
            "postgres://app:qwerty@your-db-host.com/app",
            "redis://:changeme@cache.acme-corp.io:6379",
        ] {
            assert_eq!(severities("SEC130", text), [Severity::Warning], "{text}");
        }
        for text in [
            "postgres://app:${DB_PASSWORD}@db.prod.acme-corp.io/app",
            "postgres://app:$DB_PASSWORD@db.prod.acme-corp.io/app",
        ] {
            assert!(severities("SEC130", text).is_empty(), "{text}");
        }
    }

    #[test]
    fn an_app_configuration_connection_string_is_found_with_or_without_its_endpoint() {
        let secret = "Hq7vR2mX9pL4kT8wZ3nB6yC1dF5gJ0aS4eU7iO2qW9c=";
        for text in [
            format!(
                "Endpoint=https://cfg.azconfig.io;Id=Zk3d-l9-s0:Qm8vT2pXr7LwN4bY;Secret={secret}"
            ),
            format!("https://cfg-prod.azconfig.io;Id=Zk3d-l9-s0:Qm8vT2pXr7LwN4bY;Secret={secret}"),
            format!("conn = \"Id=Zk3d-l9-s0:Qm8vT2pXr7LwN4bY;Secret={secret}\""),
        ] {
            let d = crate::lint::check_text("x/NOTES.md", &text).unwrap();
            assert!(
                d.iter().any(|d| d.rule == "SEC080"
                    && d.kind == Some("azure-app-configuration-secret")
                    && d.severity == Severity::Error),
                "{text}: {d:?}"
            );
        }
        let text =
            "Id=Zk3d-l9-s0:Qm8vT2pXr7LwN4bY;Secret=0000000000000000000000000000000000000000000=";
        assert!(!severities("SEC080", text).contains(&Severity::Error));
    }

    #[test]
    fn powershell_parameters_hold_literal_credentials_not_expressions() {
        for text in [
            "Publish-Module -Name Foo -NuGetApiKey oy2k7d9qzm4x8b1c5n6v3l0j2h7g4f1s9a8p5r6t3w",
            "Connect-Api -AdminPassword 'Vm#4rT9qLz2x'",
            "deploy --github-token Zp4Rt9Lq2Vx8Wm3N",
            "$sec = ConvertTo-SecureString \"Xk82!pqLm7\" -AsPlainText -Force",
            "$sec = ConvertTo-SecureString -String 'Xk82!pqLm7' -Force -AsPlainText",
            "Connect-VIServer vc01.corp.acme.io -user admin -password Vm#4rT9qLz",
        ] {
            let d = crate::lint::check_text("x/NOTES.md", text).unwrap();
            assert!(
                d.iter()
                    .any(|d| d.rule == "SEC131" && d.severity == Severity::Error),
                "{text}: {d:?}"
            );
        }
        for text in [
            "Connect-Foo -Password (Get-Secret db)",
            "Connect-Foo -Password $env:DB_PASSWORD",
            "$enc = ConvertTo-SecureString $plain -AsPlainText -Force",
            "$sec = Get-Content pw.txt | ConvertTo-SecureString",
            "run it with --max-tokens 4096 and --keyfile ./id_ed25519",
            "the by-pass-through mode: bypass value",
        ] {
            let d = crate::lint::check_text("x/NOTES.md", text).unwrap();
            assert!(
                !d.iter().any(|d| d.rule.starts_with("SEC")),
                "{text}: {d:?}"
            );
        }
    }

    #[test]
    fn typed_declarations_string_prefixes_and_r_assignments_hold_their_literal() {
        for text in [
            "let apiKey: String = \"q8Rf2LmX9vT4kW7pZ3nB\"",
            "const apiKey: string = 'q8Rf2LmX9vT4kW7pZ3nB';",
            "val clientSecret: String? = \"q8Rf2LmX9vT4kW7pZ3nB\"",
            "pub const API_TOKEN: &'static str = \"q8Rf2LmX9vT4kW7pZ3nB\";",
            "private readonly dbPassword: string | undefined = \"Tr0ub4dor3x\";",
            "SECRET_KEY = b'q8Rf2LmX9vT4kW7pZ3nB'",
            "secret_key = r\"q8Rf2LmX9vT4kW7pZ3nB\"",
            "password=u'Tr0ub4dor3x'",
            "api_key <- \"q8Rf2LmX9vT4kW7pZ3nB\"",
        ] {
            assert_eq!(severities("SEC120", text), [Severity::Error], "{text}");
        }
        for text in [
            "let apiKey: String = readKey(\"q8Rf2LmX9vT4kW7pZ3nB\")",
            "const apiKey: string = process.env.API_KEY;",
            "secret_key = f\"{prefix}q8Rf2LmX9vT4kW7pZ3nB\"",
            "token: string == 'q8Rf2LmX9vT4kW7pZ3nB'",
            "api_key <- Sys.getenv(\"API_KEY\")",
            "password: String = \"\"",
        ] {
            assert!(
                !severities("SEC120", text).contains(&Severity::Error),
                "{text}"
            );
        }
    }

    #[test]
    fn go_types_make_operators_triple_quotes_and_provider_keys_are_assignments() {
        for text in [
            "var deployToken string = \"q8Rf2LmX9vT4kW7pZ3nB\"",
            "upload_api_token string = \"q8Rf2LmX9vT4kW7pZ3nB\"",
            "UPLOAD_API_TOKEN ::= q8Rf2LmX9vT4kW7pZ3nB",
            "upload_api_token :::= q8Rf2LmX9vT4kW7pZ3nB",
            "apiToken = \"\"\"q8Rf2LmX9vT4kW7pZ3nB\"\"\"",
            "acme_key = \"q8rf2lmx9vt4kw7pz3nb0c\"",
            "acmeKey: 'Q8Rf2LmX9vT4kW7pZ3nB'",
            "\"acme-key\": \"5f0c2a9e8b7d6c4e3a1f0b9c8d7e6f5a\"",
        ] {
            assert_eq!(severities("SEC120", text), [Severity::Error], "{text}");
        }
        // Keys that are not secrets by name, and values that are names, paths or ids.
        for text in [
            "cache_key = \"5d41402abc4b2a76b9719d911017c592\"",
            "stripe_publishable_key = \"q8Rf2LmX9vT4kW7pZ3nB0c\"",
            "recaptcha_site_key = \"q8Rf2LmX9vT4kW7pZ3nB0c\"",
            "featureFlagKey = \"new-checkout-flow-v2\"",
            "upload_key = \"550e8400-e29b-41d4-a716-446655440000\"",
            "widget_key = \"release_2024_11_final\"",
            "i18nKey = \"errors.network.timeout\"",
            "apiToken = \"\"\"\"\"\"",
            "label string = \"q8Rf2LmX9vT4kW7pZ3nB\"",
        ] {
            assert!(
                !severities("SEC120", text).contains(&Severity::Error),
                "{text}"
            );
        }
    }

    /// JavaScript's and the shells' fallback (`process.env.API_KEY || "…"`): the literal after
    /// `||` is what the name holds when the environment has nothing, written in the file.
    #[test]
    fn a_literal_fallback_after_a_credential_name_is_assigned() {
        for text in [
            "const key = process.env.API_KEY || \"Vb7qT2mZk9Xw4Lp8Rc3Nd6Hy\";",
            "apiSecret || 'Vb7qT2mZk9Xw4Lp8Rc3Nd6Hy'",
            "DEPLOY_TOKEN || Vb7qT2mZk9Xw4Lp8Rc3Nd6Hy",
        ] {
            assert_eq!(severities("SEC120", text), [Severity::Error], "{text}");
        }
        // A fallback to another name, an empty or a weak literal, a command, a test.
        for text in [
            "const key = process.env.API_KEY || fallbackKey;",
            "const token = process.env.TOKEN || '';",
            "password || \"changeme\"",
            "[ -n \"$API_TOKEN\" ] || exit 1",
            "if (!apiKey || apiKey.length < 20) throw new Error('missing');",
            "token || process.env.GITHUB_TOKEN",
        ] {
            assert!(
                !severities("SEC120", text).contains(&Severity::Error),
                "{text}"
            );
        }
    }

    #[test]
    fn a_value_that_names_a_credential_field_is_not_one() {
        for text in [
            "put '/forgot-password' => \"admin/accounts#update\", as: 'update_password'",
            "token = \"refresh_token\"",
            "The password is 'reset_password_token'",
            "<add key=\"AuthPassword\" value=\"user_password\"/>",
        ] {
            let d = crate::lint::check_text("x/NOTES.md", text).unwrap();
            assert!(
                !d.iter().any(|d| d.rule.starts_with("SEC")),
                "{text}: {d:?}"
            );
        }
        assert_eq!(
            severities("SEC120", "password = \"Kq8_zP3m_passwordless\""),
            [Severity::Error]
        );
    }

    #[test]
    fn passwords_given_to_calls_and_settings_by_position_are_found() {
        for text in [
            "$link = mysqli_connect(\"db.acme.io\", \"shop\", \"Qm8vT2pXr7Lw\", \"shop\");",
            "$pdo = new PDO($dsn, 'shop', 'Qm8vT2pXr7Lw');",
            "ldap_bind($conn, \"cn=admin,dc=acme,dc=io\", \"Qm8vT2pXr7Lw\");",
            "return new PasswordAuthentication(\"app\", \"Qm8vT2pXr7Lw\".toCharArray());",
            "r = requests.get(url, auth=('app', 'Qm8vT2pXr7Lw'))",
            "jedis.auth(\"Qm8vT2pXr7Lw\");",
            "os.Setenv(\"API_TOKEN\", \"q8Rf2LmX9vT4kW7pZ3nB\")",
            "SECRET_KEY = os.getenv(\"DJANGO_SECRET_KEY\", \"dj-Kq8_zP3mVx7Lr2Tn9W\")",
            "System.setProperty(\"javax.net.ssl.keyStorePassword\", \"Qm8vT2pXr7Lw\");",
            "gh secret set DEPLOY_TOKEN --body \"q8Rf2LmX9vT4kW7pZ3nB\"",
            "aws configure set aws_secret_access_key q8Rf2LmX9vT4kW7pZ3nBq8Rf2LmX9vT4kW7pZ3nB",
            "dotnet user-secrets set \"Payments:ApiKey\" \"q8Rf2LmX9vT4kW7pZ3nB\"",
            "token ||= \"q8Rf2LmX9vT4kW7pZ3nB\"",
            "this.apiKey ??= 'q8Rf2LmX9vT4kW7pZ3nB';",
        ] {
            let d = crate::lint::check_text("x/NOTES.md", text).unwrap();
            assert!(
                d.iter()
                    .any(|d| d.rule.starts_with("SEC") && d.severity == Severity::Error),
                "{text}: {d:?}"
            );
        }
        for text in [
            "mysqli_connect($host, $user, $pass, $db)",
            "new PDO($dsn, $user, $password)",
            "auth=(user, password)",
            "app.auth(\"google\")",
            "SECRET_KEY = os.getenv(\"DJANGO_SECRET_KEY\", \"changeme\")",
            "os.getenv(\"TOKEN_URL\", \"https://auth.acme.io\")",
            "System.setProperty(\"javax.net.ssl.keyStore\", \"/etc/keystore.jks\");",
            "aws configure set region eu-west-1",
            "git config set user.name \"Jane Doe\"",
            "a || b; token || \"fallback-token\"",
        ] {
            let d = crate::lint::check_text("x/NOTES.md", text).unwrap();
            assert!(
                !d.iter().any(|d| d.rule.starts_with("SEC")),
                "{text}: {d:?}"
            );
        }
    }

    #[test]
    fn sql_server_tools_net_use_and_a_yaml_pass_key_give_their_password() {
        for text in [
            "sqlcmd -S sql01 -U sa -P Qm8vT2pXr7Lw -Q \"select 1\"",
            "bcp dbo.orders out orders.dat -S sql01 -U loader -P Qm8vT2pXr7Lw -c",
            "net use Z: \\\\fs01\\share /user:CORP\\svc Qm8vT2pXr7Lw",
            "smtp:\n  user: mailer\n  pass: Qm8vT2pX",
        ] {
            assert_eq!(
                severities(
                    if text.starts_with("smtp") {
                        "SEC120"
                    } else {
                        "SEC131"
                    },
                    text
                ),
                [Severity::Error],
                "{text}"
            );
        }
        for text in [
            "sqlcmd -S sql01 -E -Q \"select 1\"",
            "net use Z: \\\\fs01\\share /user:CORP\\svc *",
            "net use Z: \\\\fs01\\share /persistent:yes",
            "mysql -h db01 -P 3306 -u app shop",
            "steps:\n  user: build\n  pass: true",
        ] {
            assert!(!blocked_for_a_secret(text), "{text}");
        }
    }

    /// Whether any SEC rule gives an error on the text.
    fn blocked_for_a_secret(text: &str) -> bool {
        crate::lint::check_text("x/NOTES.md", text)
            .unwrap()
            .iter()
            .any(|d| d.rule.starts_with("SEC") && d.severity == Severity::Error)
    }

    #[test]
    fn a_pgpass_line_holds_a_password() {
        for text in [
            "*:5432:appdb:appuser:Zx81spectrum",
            "db.internal:5432:*:reporter:q8Rf2LmX9vT4\n",
            "# ~/.pgpass\nlocalhost:*:*:postgres:Qm8vT2pXr7Lw",
        ] {
            assert_eq!(severities("SEC120", text), [Severity::Error], "{text}");
        }
        for text in [
            "*:5432:*:*:*",
            "db.internal:5432:*:reporter:${PGPASSWORD}",
            "**Status**: green at 10:00:00 on 5432: fine",
            "localhost:5432:appdb:appuser:password",
        ] {
            assert!(
                !severities("SEC120", text).contains(&Severity::Error),
                "{text}"
            );
        }
    }

    #[test]
    fn labels_in_other_languages_logins_and_piped_passwords_are_found() {
        for text in [
            "Passwort: Qm8vT2pXr7Lw",
            "- **Contraseña:** `Qm8vT2pXr7Lw`",
            "mot de passe = Qm8vT2pXr7Lw",
            "密码：Qm8vT2pXr7Lw",
            "Admin login: app / Qm8vT2pXr7Lw",
            "creds: deploy:Qm8vT2pXr7Lw",
            "echo 'Qm8vT2pXr7Lw' | sudo -S apt-get update",
            "printf \"Qm8vT2pXr7Lw\" | docker login -u app --password-stdin",
            "echo 'app:Qm8vT2pXr7Lw' | chpasswd",
        ] {
            let d = crate::lint::check_text("x/NOTES.md", text).unwrap();
            assert!(
                d.iter()
                    .any(|d| d.rule.starts_with("SEC") && d.severity == Severity::Error),
                "{text}: {d:?}"
            );
        }
        for text in [
            "Passwort: siehe Tresor",
            "Kennwort: ${ADMIN_PASSWORD}",
            "login: https://staging.acme.io/login",
            "Login: admin / admin",
            "creds: see the vault entry ops/staging",
            "echo \"$REGISTRY_TOKEN\" | docker login -u app --password-stdin",
            "cat token.txt | docker login --password-stdin",
        ] {
            let d = crate::lint::check_text("x/NOTES.md", text).unwrap();
            assert!(
                !d.iter()
                    .any(|d| d.rule.starts_with("SEC") && d.severity == Severity::Error),
                "{text}: {d:?}"
            );
        }
    }

    #[test]
    fn a_name_asked_again_gets_its_own_answer_whatever_was_asked_between() {
        // The per-thread table keeps one name a slot: names that share a slot, asked in
        // turn and again, each get the answer worked out for them.
        let names: Vec<String> = [
            "USER",
            "password",
            "user",
            "PASSWORD",
            "OPS",
            "API_KEY",
            "sort_key",
            "pass",
            "DB_PASS",
            "max_tokens",
            "apiKey1",
            "SIGNING_KEY",
            "note",
            "NOTE",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .chain((0..600).map(|i| format!("field_{i}_token")))
        .chain((0..600).map(|i| format!("field_{i}")))
        .collect();
        for _ in 0..3 {
            for n in &names {
                assert_eq!(credential_name(n), credential_name_uncached(n), "{n}");
            }
        }
    }

    #[test]
    fn credential_names_are_recognised() {
        assert_eq!(credential_name("API_KEY"), Some(true));
        assert_eq!(credential_name("apiKey"), Some(false));
        assert_eq!(credential_name("password"), Some(false));
        assert_eq!(credential_name("SSH_PUBLIC_KEY"), None);
        assert_eq!(credential_name("max_tokens"), None);
        assert_eq!(credential_name("sort_key"), None);
        assert_eq!(credential_name("ado_pat"), Some(false));
        assert_eq!(credential_name("REACT_APP_PASS"), Some(true));
        assert_eq!(credential_name("KEY_PATH"), None);
        // A qualifier after the credential word (review 23).
        assert_eq!(credential_name("API_KEY_PROD"), Some(true));
        assert_eq!(credential_name("DB_PASSWORD_2"), Some(true));
        assert_eq!(credential_name("stripeSecretKeyV2"), Some(false));
        assert_eq!(credential_name("SECRET_B64"), Some(true));
        assert_eq!(credential_name("KEY_2"), None);
        assert_eq!(credential_name("TOKEN_URL_PROD"), None);
        assert_eq!(credential_name("max_tokens_v2"), None);
        assert_eq!(credential_name("apiKey1"), Some(false));
        assert_eq!(credential_name("TOKEN_BASE64"), Some(true));
        assert_eq!(credential_name("sha256"), None);
        // A record's, a cache's or a page's handle (review 23).
        assert_eq!(credential_name("PARTITION_KEY"), None);
        assert_eq!(credential_name("next_page_token"), None);
        assert_eq!(credential_name("FEATURE_FLAG_KEY"), None);
        assert_eq!(credential_name("SIGNING_KEY"), Some(true));
        assert_eq!(credential_name("NEXT_PUBLIC_SENTRY_KEY"), None);
        assert_eq!(credential_name("RECAPTCHA_SITE_KEY"), None);
        assert_eq!(credential_name("pub_password"), Some(false));
        assert_eq!(credential_name("ALGOLIA_SEARCH_ONLY_KEY"), None);
        // Words for a credential outside the usual few (review 23).
        assert_eq!(credential_name("CREDS"), Some(true));
        assert_eq!(credential_name("totp_seed"), Some(false));
        assert_eq!(credential_name("recoveryCodes"), Some(false));
        assert_eq!(credential_name("passwort"), Some(false));
        assert_eq!(credential_name("conn_str"), Some(false));
        assert_eq!(credential_name("random_seed"), None);
        assert_eq!(credential_name("error_code"), None);
        assert_eq!(credential_name("cookie_name"), None);
    }

    #[test]
    fn the_word_before_a_name_is_whole_characters() {
        assert_eq!(word_before("Cache key", 6), Some("Cache"));
        assert_eq!(word_before("ጷ key", 4), None);
        assert_eq!(word_before("aጷb key", 6), Some("b"));
        assert_eq!(word_before("**flag** key", 9), Some("flag"));
    }

    fn secret_errors(text: &str) -> Vec<crate::lint::Diagnostic> {
        crate::lint::check_text("NOTES.md", text)
            .expect("text lints")
            .into_iter()
            .filter(|d| d.rule.starts_with("SEC") && d.severity == crate::lint::Severity::Error)
            .collect()
    }

    #[test]
    fn a_product_name_after_a_credential_word_is_a_name_not_a_value() {
        // A capital that starts a word, or the words of a name, do not make a value
        // mixed-case (UI labels and product names in notes).
        for text in [
            "The token: Artifactory",
            "Deploy key: GitGuardian, rotated monthly",
            "API key: OpenWeather (free tier)",
        ] {
            assert!(
                secret_errors(text).is_empty(),
                "{text}: {:?}",
                secret_errors(text)
            );
        }
        // Letters in mixed case at random are still a credential; so is a password line.
        for text in [
            "The token: qWeRtYkZxMvBnLpA",
            "api key: hGbtKWqzPLmXnVcR",
            "password: Artifactory2026",
        ] {
            assert!(!secret_errors(text).is_empty(), "{text}: missed");
        }
    }

    #[test]
    fn a_name_closing_a_bracketed_phrase_is_not_assigned() {
        // The tool's own report line, and a Markdown link definition.
        for text in [
            "error[SEC100 vendor-token]: 1Password Connect token: AK…(73 chars)",
            "[the deploy token]: Base64-encoded-notes",
        ] {
            assert!(
                secret_errors(text).is_empty(),
                "{text}: {:?}",
                secret_errors(text)
            );
        }
        // An index holds the name alone: still an assignment.
        for text in [
            "ENV[\"API_TOKEN\"] = \"f8Kq2LmZ7xWv3NpR9tYb\"",
            "cfg[token]: f8Kq2LmZ7xWv3NpR9tYb",
        ] {
            assert!(!secret_errors(text).is_empty(), "{text}: missed");
        }
    }
}
