//! SARIF 2.1.0 for GitHub code scanning: a small hand-written serde model (as cargo-deny does).
//! Rules come from the registry with `security-severity`; results carry repository-relative
//! locations, Unicode code-point columns, stable `partialFingerprints` and, for allowed
//! findings, `suppressions`. Secrets are already redacted in every message.

use std::io;

use serde::Serialize;

use crate::lint::{Diagnostic, RULES, RuleMeta, Severity};

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
    column_kind: &'static str,
    results: Vec<SarifResult>,
}

#[derive(Debug, Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    information_uri: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    rules: Vec<Rule>,
}

#[derive(Debug, Serialize)]
struct Text {
    text: String,
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
            text: r.summary.to_string(),
        },
        full_description: Text {
            text: r.what.to_string(),
        },
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
            text: d.message.clone(),
        },
        locations: vec![Location {
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri: d.path.clone(),
                    uri_base_id: "%SRCROOT%",
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

/// Builds the SARIF log for the findings (and the suppressed findings, marked as such).
pub fn log(diagnostics: &[Diagnostic], suppressed: &[Diagnostic]) -> SarifLog {
    SarifLog {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "git-aahp",
                    information_uri: "https://github.com/homeofe/AAHP",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    rules: RULES.iter().map(|r| rule(r)).collect(),
                },
            },
            column_kind: "unicodeCodePoints",
            results: diagnostics.iter().chain(suppressed).map(result).collect(),
        }],
    }
}

/// Writes a SARIF log to stdout as one pretty-printed document, through the boundary's sink.
pub fn write(log: &SarifLog) -> io::Result<()> {
    super::write_json(log)
}
