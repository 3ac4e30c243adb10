//! The JSON Schemas in `schemas/`, embedded at build time and compiled once. They are the
//! public contract of the files the tool writes.

use serde_json::Value;

/// Our manifest schema (`schemas/manifest.schema.json`).
pub const MANIFEST_SCHEMA: &str = include_str!("../schemas/manifest.schema.json");

/// The manifest schema compiled into Rust at build time: no schema compilation (and no
/// meta-schema check) at run time, which keeps the pre-commit hook fast.
#[jsonschema::validator(path = "schemas/manifest.schema.json", draft = Draft202012, validate_formats = true, pattern_options = { engine = regex })]
struct ManifestSchema;

/// Validates a manifest document, returning one message per violation
/// (`/files/STATUS.md/checksum: "x" does not match …`). Values are masked so that a secret
/// pasted into a field is never echoed.
pub fn validate_manifest(doc: &Value) -> Vec<String> {
    // A valid document, the common case, is told without building an error for each check.
    if ManifestSchema::is_valid(doc) {
        return Vec::new();
    }
    ManifestSchema::iter_errors(doc)
        .map(|e| {
            let pointer = e.instance_path().to_string();
            let pointer = if pointer.is_empty() {
                "/".to_string()
            } else {
                pointer
            };
            format!("{pointer}: {}", e.masked())
        })
        .collect()
}

/// Compiles the pattern regexes every manifest's validation needs (the version, the file
/// names and their checksums) by validating a manifest that has only the required fields, so
/// that a later [`validate_manifest`] on the critical path does not pay for them (called from
/// a warm-up thread). The optional fields' patterns (task ids, a `next_task_id` written as a
/// string) are compiled by the first validation of a manifest that has them: warming them
/// cost a manifest without tasks two regex builds for nothing.
pub fn warm_up() {
    let doc = serde_json::json!({
        "aahp_version": "3.0", "project": "p", "quick_context": "",
        "last_session": {"agent": "a", "timestamp": "2026-01-01T00:00:00Z", "phase": "idle"},
        "files": {"STATUS.md": {
            "checksum": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
            "updated": "2026-01-01T00:00:00Z", "lines": 1, "summary": ""},
            "pii-allowlist.json": {
            "checksum": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
            "updated": "2026-01-01T00:00:00Z", "lines": 1, "summary": ""}}
    });
    let _ = validate_manifest(&doc);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file-name rules are written without an any-character class (see the schema's
    /// description); this pins that they still accept and refuse what `^[^/\\]+$` together
    /// with `^.+\.md$` did.
    /// The warm-up leaves the optional fields' patterns to the first manifest that has them:
    /// those are still judged, before and after it.
    #[test]
    fn task_ids_are_judged_whether_or_not_the_warm_up_ran() {
        let doc = |id: &str, next: &str| {
            serde_json::json!({
                "aahp_version": "3.0", "project": "p", "quick_context": "",
                "last_session": {"agent": "a", "timestamp": "2026-01-01T00:00:00Z", "phase": "idle"},
                "files": {},
                "next_task_id": next,
                "tasks": {id: {"id": id, "title": "t", "status": "ready", "depends_on": [id],
                    "created": "2026-01-01T00:00:00Z"}}
            })
        };
        for warmed in [false, true] {
            if warmed {
                warm_up();
            }
            assert!(validate_manifest(&doc("T-001", "2")).is_empty(), "{warmed}");
            for (id, next) in [("T-01", "2"), ("T-001", "02"), ("X-001", "2")] {
                assert!(
                    !validate_manifest(&doc(id, next)).is_empty(),
                    "{id} {next} {warmed}"
                );
            }
        }
    }

    #[test]
    fn file_names_need_a_stem_and_no_separator_or_line_break() {
        let entry = serde_json::json!({
            "checksum": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
            "updated": "2026-01-01T00:00:00Z", "lines": 1, "summary": ""});
        let with_file = |name: &str| {
            let mut files = serde_json::Map::new();
            files.insert(name.to_string(), entry.clone());
            serde_json::json!({
                "aahp_version": "3.0", "project": "p", "quick_context": "",
                "last_session": {"agent": "a", "timestamp": "2026-01-01T00:00:00Z", "phase": "idle"},
                "files": files})
        };
        for ok in [
            "a.md",
            "STATUS.md",
            "notes.v2.md",
            "é.md",
            "pii-allowlist.json",
            "LOG-ARCHIVE.index.json",
        ] {
            let errors = validate_manifest(&with_file(ok));
            assert!(errors.is_empty(), "{ok:?}: {errors:?}");
        }
        for bad in [
            ".md", "a/b.md", "a\\b.md", "a\nb.md", "a\rb.md", "a.txt", "md", "", "x.json",
        ] {
            let errors = validate_manifest(&with_file(bad));
            assert!(
                errors.iter().any(|e| e.starts_with("/files")),
                "{bad:?} accepted: {errors:?}"
            );
        }
    }

    #[test]
    fn schema_rejects_a_bad_checksum_and_accepts_unknown_top_level_fields() {
        let doc: Value = serde_json::json!({
            "aahp_version": "3.0", "project": "p", "quick_context": "",
            "last_session": {"agent": "a", "timestamp": "2026-01-01T00:00:00Z", "phase": "idle"},
            "files": {"STATUS.md": {"checksum": "sha256:(pending)", "updated": "2026-01-01T00:00:00Z", "lines": 1, "summary": ""}},
            "x_custom": {"kept": true}
        });
        let errors = validate_manifest(&doc);
        // The checksum's rule is a pattern and a length: either may speak; nothing else does.
        assert!(!errors.is_empty(), "{errors:?}");
        assert!(
            errors
                .iter()
                .all(|e| e.starts_with("/files/STATUS.md/checksum")),
            "{errors:?}"
        );
    }

    /// The checksum rule is written as a run of hex digits and a length (see the schema's
    /// `$comment`); this pins that it accepts and refuses exactly what `^sha256:[a-f0-9]{64}$`
    /// does, at every length around 64 and with every kind of wrong character.
    #[test]
    fn a_checksum_is_sha256_and_exactly_64_lowercase_hex_digits() {
        let counted = regex::Regex::new("^sha256:[a-f0-9]{64}$").expect("compiles");
        let with_checksum = |checksum: &str| {
            serde_json::json!({
                "aahp_version": "3.0", "project": "p", "quick_context": "",
                "last_session": {"agent": "a", "timestamp": "2026-01-01T00:00:00Z", "phase": "idle"},
                "files": {"STATUS.md": {"checksum": checksum, "updated": "2026-01-01T00:00:00Z",
                    "lines": 1, "summary": ""}}})
        };
        let mut checked = 0;
        for n in [0, 1, 62, 63, 64, 65, 66, 128] {
            for fill in ['0', 'f', 'a', '9', 'A', 'g', 'é', ' ', '\n', '/', '-'] {
                for prefix in ["sha256:", "SHA256:", "sha1:", "sha256", " sha256:", ""] {
                    // The filler alone, and once at the end of otherwise valid digits.
                    for body in [
                        fill.to_string().repeat(n),
                        format!("{}{fill}", "0".repeat(n.saturating_sub(1))),
                    ] {
                        let checksum = format!("{prefix}{body}");
                        let accepted = validate_manifest(&with_checksum(&checksum)).is_empty();
                        assert_eq!(accepted, counted.is_match(&checksum), "{checksum:?}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000);
        assert!(
            validate_manifest(&with_checksum(&format!("sha256:{}", "ab".repeat(32)))).is_empty()
        );
    }
}
