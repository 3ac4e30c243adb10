//! Executable trust claims and the trust policy (issue #15 item 6; the reference's 4.0
//! `Check` column and `trustTtl` in `aahp.config.json`).
//!
//! A `verified` row of TRUST.md may name a check in its `Check` column. The name is only
//! ever looked up, never executed: in the built-in checks, which this tool runs in-process,
//! and in `trustTtl.checks` of `aahp.config.json`, reviewed configuration that gives each
//! id an argv. A name found in neither is a failed check. A built-in check judges only a row
//! whose property states what it establishes ([`Builtin::proves`]); beside any other claim
//! it vouches for nothing and the row keeps its date.
//!
//! `trustTtl.enforce` makes the trust layer of `verify` (every level but `precommit`)
//! blocking: a failing check, a judgment row expired more than `trustTtl.graceDays`
//! (default 14) days ago, a `verified` row with neither a check that judges it nor a date,
//! and a register with no row to judge. Without it the layer warns.
//!
//! This module is pure: text in, verdicts out. Running a configured check's argv is
//! `git aahp trust verify`'s job; `verify` never runs one, so a pull request that edits the
//! configuration cannot make CI execute anything.

use serde::Deserialize;

use crate::error::{Error, Result};

/// The file the policy is read from, at the project root (the directory holding `.ai/`).
pub const CONFIG_FILE: &str = "aahp.config.json";
/// Days a judgment row may be past its expiry before `trustTtl.enforce` blocks.
pub const DEFAULT_GRACE_DAYS: i64 = 14;
/// The largest grace period the configuration accepts, as in the reference's schema.
pub const MAX_GRACE_DAYS: i64 = 365;
/// How long a configured check may run before it is stopped and counts as failed.
pub const CHECK_TIME_LIMIT_SECS: u64 = 120;

/// A check this tool runs itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// `package.json`'s `license` is an SPDX id recognised here and the root LICENSE file
    /// carries that licence's text.
    LicenseMatches,
    /// The manifest's checksums hold (the checksum layer of the same run passed).
    ManifestIntegrity,
}

impl Builtin {
    /// Every built-in check, by the name a `Check` cell uses.
    pub const ALL: [(&'static str, Builtin); 2] = [
        ("license-matches", Builtin::LicenseMatches),
        ("manifest-integrity", Builtin::ManifestIntegrity),
    ];

    /// The built-in check called `name`.
    pub fn named(name: &str) -> Option<Builtin> {
        Builtin::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| *b)
    }

    /// Every built-in check's name, for messages (`license-matches, manifest-integrity`).
    pub fn names() -> String {
        Builtin::ALL.map(|(n, _)| n).join(", ")
    }

    /// The check's name.
    pub fn name(self) -> &'static str {
        Builtin::ALL
            .iter()
            .find(|(_, b)| *b == self)
            .map_or("", |(n, _)| n)
    }

    /// What the check establishes, for messages.
    pub fn establishes(self) -> &'static str {
        match self {
            Builtin::LicenseMatches => {
                "that package.json's license and the LICENSE file name the same licence"
            }
            Builtin::ManifestIntegrity => "that the manifest's checksums hold",
        }
    }

    /// The words a property this check proves is about: at least one must be there.
    fn subject(self) -> &'static [&'static str] {
        match self {
            Builtin::LicenseMatches => &["license", "licence", "licenses", "licences", "licensing"],
            Builtin::ManifestIntegrity => &["manifest", "checksum", "checksums"],
        }
    }

    /// Further words a property this check proves may use.
    fn vocabulary(self) -> &'static [&'static str] {
        match self {
            Builtin::LicenseMatches => &["spdx", "package", "json", "id", "identifier", "text"],
            Builtin::ManifestIntegrity => &[
                "integrity",
                "hash",
                "hashes",
                "sha256",
                "index",
                "indexed",
                "handoff",
                "file",
                "files",
                "content",
                "contents",
            ],
        }
    }

    /// True when a row claiming `property` states what this check establishes, so that the
    /// check may judge it in place of its date.
    ///
    /// The rule: every word of the property (letters and digits; case and markup ignored)
    /// is one of the check's own words or a connecting word (`matches`, `holds`, `the`, …),
    /// and at least one is the check's subject (`license`/`licence` for `license-matches`,
    /// `manifest`/`checksum` for `manifest-integrity`). So "LICENSE matches declared
    /// license" and "Checksums match file contents" are judged by their checks, while
    /// "Tests pass", "Manifest passes schema", "LICENSE is Apache-2.0" or "Manifest holds
    /// and tests pass" claim more than the check proves: such a row keeps its date.
    pub fn proves(self, property: &str) -> bool {
        let lower = property.to_lowercase();
        let mut words = lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .peekable();
        if words.peek().is_none() {
            return false;
        }
        let mut about = false;
        for w in words {
            if self.subject().contains(&w) {
                about = true;
            } else if !self.vocabulary().contains(&w) && !CONNECTING_WORDS.contains(&w) {
                return false;
            }
        }
        about
    }
}

/// Words a property may use around a built-in check's subject without claiming more than
/// the check proves. No conjunction is among them: "X and Y" is two claims.
const CONNECTING_WORDS: &[&str] = &[
    "a",
    "agree",
    "agrees",
    "all",
    "an",
    "are",
    "consistent",
    "declared",
    "every",
    "for",
    "hold",
    "holds",
    "intact",
    "is",
    "its",
    "match",
    "matches",
    "matching",
    "of",
    "root",
    "same",
    "the",
    "to",
    "unchanged",
    "with",
];

/// A check declared in `trustTtl.checks`: an argv run without a shell at the project root.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfiguredCheck {
    /// The name a `Check` cell uses.
    pub id: String,
    /// The program and its arguments.
    pub run: Vec<String>,
    /// Why exit 0 of this argv proves the claim (reviewed text).
    pub reason: String,
}

/// What `aahp.config.json` says about trust.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustPolicy {
    /// Whether the trust layer blocks.
    pub enforce: bool,
    /// Days past expiry before an expired judgment row blocks under `enforce`.
    pub grace_days: i64,
    /// The repository's own checks.
    pub checks: Vec<ConfiguredCheck>,
}

impl Default for TrustPolicy {
    fn default() -> Self {
        TrustPolicy {
            enforce: false,
            grace_days: DEFAULT_GRACE_DAYS,
            checks: Vec::new(),
        }
    }
}

/// `aahp.config.json` as far as this tool reads it: every other section belongs to the
/// reference's release gates and is left alone. Serde refuses a duplicate key of a section
/// read here, so a `"enforce": false` further down cannot quietly undo a `true` a reviewer
/// saw.
#[derive(Deserialize)]
struct ConfigFile {
    /// Absent means the defaults; present, it must be an object (`null` is refused, not
    /// read as "absent": a policy is never switched off by a value that means nothing).
    #[serde(rename = "trustTtl", default, deserialize_with = "present")]
    trust_ttl: Option<TrustTtl>,
}

fn present<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<TrustTtl>, D::Error> {
    TrustTtl::deserialize(d).map(Some)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustTtl {
    enforce: Option<bool>,
    #[serde(rename = "graceDays")]
    grace_days: Option<serde_json::Number>,
    checks: Option<Vec<ConfiguredCheck>>,
}

/// How a claim's named check is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved<'a> {
    /// Run in-process.
    Builtin(Builtin),
    /// An argv from the configuration.
    Configured(&'a ConfiguredCheck),
    /// Neither: a failed check.
    Unknown,
}

impl TrustPolicy {
    /// Parses `aahp.config.json` (`path` names it in errors). Anything this tool cannot read
    /// with certainty is exit 2 naming the file and line: a broken policy file must not turn
    /// enforcement off.
    pub fn parse(path: &str, bytes: &[u8]) -> Result<TrustPolicy> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| Error::invalid(path, None, format!("not UTF-8: {e}")))?;
        let file: ConfigFile = serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text))
            .map_err(|e| Error::invalid(path, Some(e.line()), e.to_string()))?;
        let Some(t) = file.trust_ttl else {
            return Ok(TrustPolicy::default());
        };
        let grace_days = match t.grace_days {
            None => DEFAULT_GRACE_DAYS,
            Some(n) => n
                .as_i64()
                .filter(|d| (0..=MAX_GRACE_DAYS).contains(d))
                .ok_or_else(|| {
                    Error::invalid(
                        path,
                        None,
                        format!(
                            "trustTtl.graceDays is {n}; it must be a whole number of days from 0 to {MAX_GRACE_DAYS}"
                        ),
                    )
                })?,
        };
        let checks = t.checks.unwrap_or_default();
        for (i, c) in checks.iter().enumerate() {
            let bad =
                |why: String| Error::invalid(path, None, format!("trustTtl.checks[{i}]: {why}"));
            if c.id.trim().is_empty() || c.id.chars().any(char::is_control) {
                return Err(bad(
                    "`id` must be a non-empty name without control characters".into(),
                ));
            }
            if Builtin::named(&c.id).is_some() {
                return Err(bad(format!(
                    "`{}` is a built-in check; give the repository's own check another id",
                    c.id
                )));
            }
            if checks[..i].iter().any(|o| o.id == c.id) {
                return Err(bad(format!("the id `{}` is declared twice", c.id)));
            }
            if c.run.is_empty() || c.run.iter().any(|a| a.is_empty() || a.contains('\0')) {
                return Err(bad(
                    "`run` must be a non-empty argv of non-empty strings (it runs without a shell)"
                        .into(),
                ));
            }
            if c.reason.trim().is_empty() {
                return Err(bad("`reason` must say why exit 0 proves the claim".into()));
            }
        }
        Ok(TrustPolicy {
            enforce: t.enforce.unwrap_or(false),
            grace_days,
            checks,
        })
    }

    /// Resolves the name in a `Check` cell.
    pub fn resolve(&self, name: &str) -> Resolved<'_> {
        if let Some(b) = Builtin::named(name) {
            return Resolved::Builtin(b);
        }
        self.checks
            .iter()
            .find(|c| c.id == name)
            .map_or(Resolved::Unknown, Resolved::Configured)
    }
}

/// A licence `license-matches` recognises: SPDX ids (with the `-only` / `-or-later` forms
/// where they exist) and phrases its text holds near the top, all of which must be there.
struct Licence {
    ids: &'static [&'static str],
    phrases: &'static [&'static str],
    /// Phrases that must not be there (tells BSD-2-Clause from BSD-3-Clause).
    absent: &'static [&'static str],
}

const LICENCES: &[Licence] = &[
    Licence {
        ids: &["MIT"],
        phrases: &["permission is hereby granted, free of charge, to any person obtaining a copy"],
        absent: &[],
    },
    Licence {
        ids: &["Apache-2.0"],
        phrases: &["apache license", "version 2.0, january 2004"],
        absent: &[],
    },
    Licence {
        ids: &["ISC"],
        phrases: &[
            "permission to use, copy, modify, and",
            "with or without fee is hereby granted",
        ],
        absent: &[],
    },
    Licence {
        ids: &["BSD-2-Clause"],
        phrases: &[
            "redistribution and use in source and binary forms, with or without modification, are permitted",
        ],
        absent: &["neither the name of"],
    },
    Licence {
        ids: &["BSD-3-Clause"],
        phrases: &[
            "redistribution and use in source and binary forms, with or without modification, are permitted",
            "neither the name of",
        ],
        absent: &[],
    },
    Licence {
        ids: &["GPL-2.0", "GPL-2.0-only", "GPL-2.0-or-later"],
        phrases: &["gnu general public license", "version 2, june 1991"],
        absent: &[],
    },
    Licence {
        ids: &["GPL-3.0", "GPL-3.0-only", "GPL-3.0-or-later"],
        phrases: &["gnu general public license", "version 3, 29 june 2007"],
        absent: &[
            "gnu lesser general public license",
            "gnu affero general public license",
        ],
    },
    Licence {
        ids: &["LGPL-3.0", "LGPL-3.0-only", "LGPL-3.0-or-later"],
        phrases: &[
            "gnu lesser general public license",
            "version 3, 29 june 2007",
        ],
        absent: &[],
    },
    Licence {
        ids: &["AGPL-3.0", "AGPL-3.0-only", "AGPL-3.0-or-later"],
        phrases: &[
            "gnu affero general public license",
            "version 3, 19 november 2007",
        ],
        absent: &[],
    },
    Licence {
        ids: &["MPL-2.0"],
        phrases: &["mozilla public license", "version 2.0"],
        absent: &[],
    },
    Licence {
        ids: &["Unlicense"],
        phrases: &["this is free and unencumbered software released into the public domain"],
        absent: &[],
    },
];

/// How much of LICENSE is searched for the licence's phrases: they open the text.
const LICENCE_HEAD_BYTES: usize = 4096;

/// Lowercase words of `s` joined by single spaces (line breaks and indentation in a licence
/// file do not matter).
fn words(s: &str) -> String {
    s.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The built-in `license-matches`: `package_json` and `licence_file` are the project root's
/// `package.json` and `LICENSE` (`None` when absent). `Err` says why the claim does not hold.
pub fn license_matches(
    package_json: Option<&[u8]>,
    licence_file: Option<&[u8]>,
) -> std::result::Result<String, String> {
    let package = package_json.ok_or("there is no package.json at the project root")?;
    let doc: serde_json::Value = serde_json::from_slice(package)
        .map_err(|e| format!("package.json is not JSON (line {}): {e}", e.line()))?;
    let id = doc
        .get("license")
        .and_then(serde_json::Value::as_str)
        .ok_or("package.json has no `license` string")?;
    let licence = LICENCES
        .iter()
        .find(|l| l.ids.contains(&id))
        .ok_or_else(|| {
            format!("package.json's license `{id}` is not a single SPDX id this check recognises")
        })?;
    let text = licence_file.ok_or("there is no LICENSE file at the project root")?;
    let head = &text[..text.len().min(LICENCE_HEAD_BYTES)];
    let head = words(&String::from_utf8_lossy(head));
    if let Some(p) = licence.phrases.iter().find(|p| !head.contains(&words(p))) {
        return Err(format!(
            "LICENSE does not read as {id}: \"{p}\" is not near its top"
        ));
    }
    if let Some(p) = licence.absent.iter().find(|p| head.contains(&words(p))) {
        return Err(format!("LICENSE does not read as {id}: it says \"{p}\""));
    }
    Ok(format!("package.json and LICENSE both say {id}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_reads_enforce_grace_and_checks_and_ignores_other_sections() {
        let p = TrustPolicy::parse(
            "aahp.config.json",
            br#"{"versionSites":[{"file":"x"}],"trustTtl":{"enforce":true,"graceDays":0,
                "checks":[{"id":"templates-present","run":["git","ls-files"],"reason":"tracked"}]}}"#,
        )
        .unwrap();
        assert!(p.enforce);
        assert_eq!(p.grace_days, 0);
        assert!(
            matches!(p.resolve("templates-present"), Resolved::Configured(c) if c.run == ["git", "ls-files"])
        );
        assert_eq!(
            p.resolve("license-matches"),
            Resolved::Builtin(Builtin::LicenseMatches)
        );
        assert_eq!(p.resolve("no-such-check"), Resolved::Unknown);
        let d = TrustPolicy::parse("aahp.config.json", b"{}").unwrap();
        assert_eq!(d, TrustPolicy::default());
        assert_eq!(d.grace_days, 14);
    }

    #[test]
    fn a_policy_that_cannot_be_read_with_certainty_is_refused_naming_the_line() {
        for (json, needle) in [
            (r#"{"trustTtl":{"graceDays":-1}}"#, "graceDays"),
            (r#"{"trustTtl":{"graceDays":366}}"#, "graceDays"),
            (r#"{"trustTtl":{"graceDays":1.5}}"#, "graceDays"),
            (r#"{"trustTtl":{"enforce":"yes"}}"#, "invalid type"),
            (
                r#"{"trustTtl":{"enforce":true,"enforce":false}}"#,
                "duplicate field",
            ),
            (
                r#"{"trustTtl":{"enforce":true}, "trustTtl":{}}"#,
                "duplicate field",
            ),
            (r#"{"trustTtl":{"enforced":true}}"#, "unknown field"),
            (r#"{"trustTtl":null}"#, "invalid type: null"),
            (r#"{"trustTtl":[]}"#, "invalid length"),
            (
                r#"{"trustTtl":{"checks":[{"id":"license-matches","run":["git"],"reason":"r"}]}}"#,
                "built-in",
            ),
            (
                r#"{"trustTtl":{"checks":[{"id":"a","run":["git",""],"reason":"r"}]}}"#,
                "argv",
            ),
            (
                r#"{"trustTtl":{"checks":[{"id":"a","run":[],"reason":"r"}]}}"#,
                "argv",
            ),
            (
                r#"{"trustTtl":{"checks":[{"id":"a","run":["git"]}]}}"#,
                "missing field",
            ),
            (
                r#"{"trustTtl":{"checks":[{"id":"a","run":["x"],"reason":"r"},{"id":"a","run":["y"],"reason":"r"}]}}"#,
                "twice",
            ),
            ("{\n\"trustTtl\": {\n", "EOF"),
        ] {
            let e = TrustPolicy::parse("aahp.config.json", json.as_bytes()).unwrap_err();
            let shown = e.to_string();
            assert!(shown.contains("aahp.config.json"), "{json}: {shown}");
            assert!(shown.contains(needle), "{json}: {shown}");
        }
    }

    #[test]
    fn a_builtin_check_proves_only_the_claim_it_establishes() {
        use Builtin::{LicenseMatches as L, ManifestIntegrity as M};
        for (b, property) in [
            (L, "LICENSE matches declared license"),
            (L, "`LICENSE` matches package.json license"),
            (L, "Licence consistent"),
            (M, "Manifest holds"),
            (M, "Checksums match file contents"),
            (M, "**MANIFEST** integrity intact"),
            (M, "Manifest checksums hold for every handoff file"),
        ] {
            assert!(b.proves(property), "{property}");
        }
        for (b, property) in [
            (M, "tests pass"),
            (M, "Generated MANIFEST.json passes schema"),
            (M, "Manifest holds and tests pass"),
            (M, "Manifest holds, build green"),
            (M, "No secrets in the manifest"),
            (M, "LICENSE matches"),
            (L, "Manifest holds"),
            (L, "LICENSE is Apache-2.0"),
            (L, "License valid"),
            (L, "the"),
            (L, ""),
            (L, "``"),
        ] {
            assert!(!b.proves(property), "{property}");
        }
    }

    const MIT: &[u8] = b"MIT License\n\nCopyright (c) 2026 Someone\n\nPermission is hereby granted, free of charge, to any\nperson obtaining a copy of this software";
    const BSD3: &[u8] = b"Copyright 2026\n\nRedistribution and use in source and binary forms, with or without\n   modification, are permitted provided that ...\n3. Neither the name of the copyright holder ...";

    #[test]
    fn license_matches_needs_the_declared_licence_in_both_files() {
        let pkg = |id: &str| format!(r#"{{"name":"x","license":"{id}"}}"#).into_bytes();
        assert!(license_matches(Some(&pkg("MIT")), Some(MIT)).is_ok());
        assert!(license_matches(Some(&pkg("BSD-3-Clause")), Some(BSD3)).is_ok());
        for (p, l, why) in [
            (
                Some(pkg("Apache-2.0")),
                Some(MIT),
                "does not read as Apache-2.0",
            ),
            (Some(pkg("BSD-2-Clause")), Some(BSD3), "neither the name of"),
            (Some(pkg("MIT OR Apache-2.0")), Some(MIT), "single SPDX id"),
            (Some(pkg("MIT")), None, "no LICENSE"),
            (None, Some(MIT), "no package.json"),
            (Some(b"{".to_vec()), Some(MIT), "not JSON"),
            (
                Some(br#"{"license":3}"#.to_vec()),
                Some(MIT),
                "no `license`",
            ),
        ] {
            let e = license_matches(p.as_deref(), l).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
    }
}
