//! Compatibility with repositories that already use the AAHP reference tool: their real
//! handoff directories (`tests/corpora/handoff-negatives/`) are read, verified and
//! rewritten without losing a field, and our manifests satisfy the reference's schema.

use std::path::PathBuf;

use serde_json::Value;

use crate::support::TestRepo;

fn corpus() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpora/handoff-negatives");
    assert!(
        dir.is_dir(),
        "the shared corpora are missing at {}",
        dir.display()
    );
    dir
}

/// Every corpus directory that carries a MANIFEST.json.
fn manifests() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("MANIFEST.json").is_file())
        .collect();
    out.sort();
    assert!(out.len() >= 4, "expected the real manifests, found {out:?}");
    out
}

/// A repository whose `.ai/handoff/` is a copy of a corpus directory, committed.
fn repo_from(dir: &PathBuf) -> TestRepo {
    let repo = TestRepo::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name == "LICENSE.source" {
            continue;
        }
        repo.write(&format!(".ai/handoff/{name}"), std::fs::read(&p).unwrap());
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "copied handoff"]);
    repo
}

fn manifest_json(repo: &TestRepo) -> Value {
    serde_json::from_str(
        repo.read(".ai/handoff/MANIFEST.json")
            .trim_start_matches('\u{feff}'),
    )
    .unwrap()
}

/// The placeholder checksums some repositories carry (`sha256:init`, `sha256:(pending)`).
fn has_placeholders(m: &Value) -> bool {
    m["files"]
        .as_object()
        .unwrap()
        .values()
        .any(|f| f["checksum"].as_str().unwrap().len() != 71)
}

#[test]
fn reference_checksums_are_reproduced_and_an_unchanged_manifest_is_left_byte_identical() {
    let mut reproduced = 0;
    for dir in manifests() {
        let repo = repo_from(&dir);
        let original = repo.read(".ai/handoff/MANIFEST.json");
        let m = manifest_json(&repo);
        if has_placeholders(&m) {
            continue;
        }
        let verify = repo.aahp(&["verify", "--json"]).json();
        let sums = verify["layers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["layer"] == "checksums")
            .unwrap();
        assert_eq!(sums["status"], "pass", "{}: {sums}", dir.display());
        reproduced += m["files"].as_object().unwrap().len();
        repo.aahp(&["manifest", "--check"]).assert_code(0);
        let out = repo.aahp(&["manifest"]);
        out.assert_code(0);
        assert!(out.stdout.contains("is up to date"), "{out}");
        assert_eq!(
            repo.read(".ai/handoff/MANIFEST.json"),
            original,
            "{}",
            dir.display()
        );
    }
    assert!(
        reproduced >= 30,
        "only {reproduced} reference checksums reproduced"
    );
}

#[test]
fn rewriting_a_reference_manifest_keeps_every_key_and_task() {
    for dir in manifests() {
        let repo = repo_from(&dir);
        let before = manifest_json(&repo);
        let status = repo.read(".ai/handoff/STATUS.md");
        repo.write(
            ".ai/handoff/STATUS.md",
            format!("{status}\nOne more line from a later session.\n"),
        );
        repo.aahp(&[
            "manifest",
            "--agent",
            "claude \"quoted\"\tagent",
            "--phase",
            "fix",
        ])
        .assert_code(0);
        let after = manifest_json(&repo);
        let (b, a) = (before.as_object().unwrap(), after.as_object().unwrap());
        let before_keys: Vec<&String> = b.keys().collect();
        let after_keys: Vec<&String> = a.keys().filter(|k| b.contains_key(*k)).collect();
        assert_eq!(
            before_keys,
            after_keys,
            "{}: key order changed",
            dir.display()
        );
        for (k, v) in b {
            match k.as_str() {
                "last_session" | "files" | "token_budget" | "quick_context" => {}
                _ => assert_eq!(&a[k], v, "{}: {k} changed", dir.display()),
            }
        }
        assert_eq!(a["project"], b["project"]);
        assert_eq!(a["aahp_version"], b["aahp_version"]);
        if b.contains_key("quick_context") {
            assert_eq!(a["quick_context"], b["quick_context"]);
        }
        assert_eq!(a["last_session"]["agent"], "claude \"quoted\"\tagent");
        // Unchanged files keep their entries exactly; STATUS.md got a new one.
        for (name, entry) in b["files"].as_object().unwrap() {
            if name != "STATUS.md" && !has_placeholders(&before) {
                assert_eq!(
                    &a["files"][name],
                    entry,
                    "{}: entry of {name} changed",
                    dir.display()
                );
            }
        }
        assert_ne!(a["files"]["STATUS.md"], b["files"]["STATUS.md"]);
        repo.aahp(&["manifest", "--check"]).assert_code(0);
        let verify = repo.aahp(&["verify", "--json"]).json();
        for layer in ["schema", "checksums"] {
            let l = verify["layers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["layer"] == layer)
                .unwrap();
            assert_eq!(l["status"], "pass", "{}: {l}", dir.display());
        }
    }
}

#[test]
fn placeholder_checksums_are_reported_stale_not_a_crash() {
    let dir = manifests().into_iter().find(|d| {
        let m: Value =
            serde_json::from_slice(&std::fs::read(d.join("MANIFEST.json")).unwrap()).unwrap();
        has_placeholders(&m)
    });
    let Some(dir) = dir else {
        panic!("the corpus has a manifest with placeholder checksums")
    };
    let repo = repo_from(&dir);
    let out = repo.aahp(&["manifest", "--check"]);
    out.assert_code(1);
    let out = repo.aahp(&["verify"]);
    out.assert_code(1);
    assert!(
        out.stdout
            .contains("content changed since the manifest (manifest init, file"),
        "{out}"
    );
}

#[test]
fn manifests_we_write_satisfy_the_reference_schema() {
    let schema: Value =
        serde_json::from_str(include_str!("../fixtures/reference-manifest.schema.json")).unwrap();
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    let repo = TestRepo::new();
    repo.write(
        ".ai/handoff/STATUS.md",
        "# S\n\nMultibyte summary: Grüße 日本語 🎉 with \"quotes\"\tand tabs.\n",
    );
    repo.write(".ai/handoff/LOG.md", "# Log\n\n## [2026-11-20] a: b\n");
    repo.write(
        ".ai/handoff/pii-allowlist.json",
        "{\"version\":1,\"entries\":[]}\n",
    );
    repo.aahp(&[
        "manifest",
        "--agent",
        "a\"b",
        "--context",
        "line one\nline two\twith tab",
        "--phase",
        "review",
    ])
    .assert_code(0);
    let m = manifest_json(&repo);
    let errors: Vec<String> = validator
        .iter_errors(&m)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    for dir in manifests() {
        let repo = repo_from(&dir);
        let status = repo.read(".ai/handoff/STATUS.md");
        repo.write(".ai/handoff/STATUS.md", format!("{status}\nappended\n"));
        repo.aahp(&["manifest"]).assert_code(0);
        let m = manifest_json(&repo);
        let errors: Vec<String> = validator
            .iter_errors(&m)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        // A manifest that already carried placeholders still carries them for the files
        // that did not change (we never invent checksums); everything we wrote validates.
        let ours: Vec<&String> = errors.iter().filter(|e| !e.contains("/checksum")).collect();
        assert!(
            ours.is_empty() || has_placeholders(&manifest_json(&repo_from(&dir))),
            "{}: {errors:?}",
            dir.display()
        );
    }
}
