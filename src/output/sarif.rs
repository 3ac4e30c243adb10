//! SARIF 2.1.0 for GitHub code scanning: a small hand-written serde model (as cargo-deny does).
//! Rules come from the registry with `security-severity` and a help page each; results carry
//! locations relative to `%SRCROOT%` (the work tree, declared in `originalUriBaseIds`),
//! Unicode code-point columns and stable `partialFingerprints`. Allowed findings are left
//! out unless asked for (code scanning ignores `suppressions` and would open alerts for
//! them); kept, they carry `suppressions`. Messages go through the output boundary.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde::Serialize;

use super::boundary::Untrusted;
use crate::lint::{Diagnostic, RULES, RuleMeta, Severity};

/// The base id every result's `uri` is relative to: the root of the git work tree.
const SRCROOT: &str = "%SRCROOT%";

/// Where this tool is described: its crate page (the README) for this version.
fn information_uri() -> String {
    format!(
        "https://docs.rs/crate/git-aahp/{}",
        env!("CARGO_PKG_VERSION")
    )
}

/// A rule's help page: its entry in the crate's rule registry for this version.
fn help_uri(id: &str) -> String {
    format!(
        "https://docs.rs/git-aahp/{}/git_aahp/lint/registry/static.{id}.html",
        env!("CARGO_PKG_VERSION")
    )
}

/// Percent-encodes a path for a URI: everything but unreserved characters and `/`, so a
/// file name with spaces, `#`, `%` or control characters is still one valid reference.
fn uri_path(path: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// The SARIF log.
#[derive(Debug, Serialize)]
pub struct SarifLog {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    original_uri_base_ids: BTreeMap<&'static str, BaseLocation>,
    column_kind: &'static str,
    results: Vec<SarifResult>,
}

#[derive(Debug, Serialize)]
struct BaseLocation {
    uri: String,
    description: Text,
}

#[derive(Debug, Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    information_uri: String,
    version: &'static str,
    semantic_version: &'static str,
    rules: Vec<Rule>,
}

#[derive(Debug, Serialize)]
struct Text {
    text: Untrusted,
}

#[derive(Debug, Serialize)]
struct Help {
    text: String,
    markdown: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: &'static str,
    name: &'static str,
    short_description: Text,
    full_description: Text,
    help_uri: String,
    help: Help,
    default_configuration: Level,
    properties: RuleProperties,
}

#[derive(Debug, Serialize)]
struct Level {
    level: &'static str,
}

#[derive(Debug, Serialize)]
struct RuleProperties {
    tags: Vec<&'static str>,
    precision: &'static str,
    #[serde(rename = "security-severity")]
    security_severity: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: Vec<Location>,
    partial_fingerprints: Fingerprints,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suppressions: Vec<Suppression>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    uri_base_id: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

#[derive(Debug, Serialize)]
struct Fingerprints {
    #[serde(rename = "aahp/v1")]
    aahp: String,
}

#[derive(Debug, Serialize)]
struct Suppression {
    kind: &'static str,
    justification: String,
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn rule(r: &'static RuleMeta) -> Rule {
    Rule {
        id: r.id,
        name: r.name,
        short_description: Text {
            text: r.summary.into(),
        },
        full_description: Text {
            text: r.what.into(),
        },
        help_uri: help_uri(r.id),
        help: Help {
            text: format!("{} Fix: {}", r.why, r.fix),
            markdown: r.explanation(),
        },
        default_configuration: Level {
            level: level(r.severity),
        },
        properties: RuleProperties {
            tags: vec!["security", r.family.prefix()],
            precision: if matches!(
                r.family,
                crate::lint::Family::Sec | crate::lint::Family::Hid
            ) {
                "high"
            } else {
                "medium"
            },
            security_severity: r.security_severity(),
        },
    }
}

fn result(d: &Diagnostic) -> SarifResult {
    let rule_index = RULES.iter().position(|r| r.id == d.rule).unwrap_or(0);
    let suppressions = d
        .suppressed_by
        .iter()
        .map(|why| Suppression {
            kind: if why.starts_with("inline") {
                "inSource"
            } else {
                "external"
            },
            justification: why.clone(),
        })
        .collect();
    SarifResult {
        rule_id: d.rule,
        rule_index,
        level: level(d.severity),
        message: Text {
            text: d.message.as_str().into(),
        },
        locations: vec![Location {
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri: uri_path(&d.path),
                    uri_base_id: SRCROOT,
                },
                region: Region {
                    start_line: d.line,
                    start_column: d.column,
                    end_line: d.end_line,
                    end_column: d.end_column.max(if d.end_line == d.line {
                        d.column + 1
                    } else {
                        1
                    }),
                },
            },
        }],
        partial_fingerprints: Fingerprints {
            aahp: d.fingerprint.clone(),
        },
        suppressions,
    }
}

/// Builds the SARIF log for the findings of a work tree rooted at `root`; the allowed
/// (suppressed) findings are included, marked as such, only with `include_suppressed`.
pub fn log(
    diagnostics: &[Diagnostic],
    suppressed: &[Diagnostic],
    include_suppressed: bool,
    root: &Path,
) -> SarifLog {
    let allowed = if include_suppressed { suppressed } else { &[] };
    let path = root.to_string_lossy().replace('\\', "/");
    let slash = if path.starts_with('/') { "" } else { "/" };
    let mut root_uri = format!("file://{slash}{}", uri_path(&path));
    if !root_uri.ends_with('/') {
        root_uri.push('/');
    }
    let base = BaseLocation {
        uri: root_uri,
        description: Text {
            text: "The root of the git work tree; every result's uri is relative to it.".into(),
        },
    };
    SarifLog {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "git-aahp",
                    information_uri: information_uri(),
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    rules: RULES.iter().map(|r| rule(r)).collect(),
                },
            },
            original_uri_base_ids: BTreeMap::from([(SRCROOT, base)]),
            column_kind: "unicodeCodePoints",
            results: diagnostics.iter().chain(allowed).map(result).collect(),
        }],
    }
}

/// Writes a SARIF log to stdout as one pretty-printed document, through the boundary's sink.
pub fn write(log: &SarifLog) -> io::Result<()> {
    super::write_json(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_becomes_one_uri_reference() {
        assert_eq!(uri_path(".ai/handoff/STATUS.md"), ".ai/handoff/STATUS.md");
        assert_eq!(
            uri_path("a b/#1%?.md\n::x"),
            "a%20b/%231%25%3F.md%0A%3A%3Ax"
        );
        assert_eq!(uri_path("ü.md"), "%C3%BC.md");
    }
}
