//! Bad input of every kind: exit 2 with the file and line, no panic, nothing written.

use crate::support::TestRepo;
use crate::verify::handoff_repo;

const MANIFEST: &str = ".ai/handoff/MANIFEST.json";

/// Runs `args`, expects exit 2 with `needle` on stderr, and checks nothing was written.
#[track_caller]
fn refused(repo: &TestRepo, args: &[&str], needle: &str) {
    let before = std::fs::read(repo.path().join(MANIFEST)).ok();
    let out = repo.aahp(args);
    out.assert_code(2);
    assert!(out.stderr.contains(needle), "expected {needle:?}\n{out}");
    assert!(!out.stderr.contains("panicked"), "{out}");
    assert_eq!(
        std::fs::read(repo.path().join(MANIFEST)).ok(),
        before,
        "{args:?} wrote the manifest"
    );
}

#[test]
fn malformed_manifest_json_names_the_file_and_line_even_with_crlf() {
    let repo = handoff_repo();
    repo.write(
        MANIFEST,
        "{\r\n  \"aahp_version\": \"3.0\",\r\n  \"project\": oops\r\n}\r\n",
    );
    repo.git(&["add", MANIFEST]);
    for args in [
        &["manifest"][..],
        &["verify"],
        &["verify", "--level", "precommit"],
        &["status"],
        &["context"],
    ] {
        refused(
            &repo,
            args,
            "error: .ai/handoff/MANIFEST.json:3: malformed JSON",
        );
    }
}

#[test]
fn a_number_the_tool_could_not_write_back_is_refused_and_one_it_can_is_kept() {
    // Fields the tool does not own are written back as they are read: a number beyond what
    // it holds exactly (an id past 64 bits, a decimal past a double's digits) is refused,
    // naming its line, before anything is rewritten.
    let repo = handoff_repo();
    let text = repo.read(MANIFEST);
    let custom = text.replacen(
        "{\n",
        "{\n  \"x_custom\": {\"id\": 123456789012345678901234567890, \"ratio\": 0.1, \"n\": 1E+2},\n",
        1,
    );
    repo.write(MANIFEST, &custom);
    for args in [
        &["task", "add", "Lossless?"][..],
        &["manifest"],
        &["status"],
    ] {
        refused(&repo, args, "error: .ai/handoff/MANIFEST.json:2:");
        let out = repo.aahp(args);
        assert!(
            out.stderr.contains("123456789012345678901234567890")
                && out
                    .stderr
                    .contains("would be written back as 1.2345678901234568e+29"),
            "{args:?}\n{out}"
        );
    }
    // Quoted, it is kept as written, and so is every number a double holds.
    repo.write(
        MANIFEST,
        custom.replace(
            "123456789012345678901234567890",
            "\"123456789012345678901234567890\"",
        ),
    );
    repo.aahp(&["task", "add", "Lossless"]).assert_code(0);
    // So for the archive's index, whose other keys a rotation writes back.
    let index = ".ai/handoff/LOG-ARCHIVE.index.json";
    repo.write(
        ".ai/handoff/LOG.md",
        "# Log\n\n## [2026-01-02] a: new\n\nx\n\n## [2026-01-01] a: old\n\ny\n",
    );
    repo.write(
        index,
        "{\"version\": 1, \"entries\": [], \"budget\": 0.30000000000000001}\n",
    );
    let log_before = repo.read(".ai/handoff/LOG.md");
    let out = repo.aahp(&["archive", "--keep", "1"]);
    out.assert_code(2);
    assert!(
        out.stderr.contains("LOG-ARCHIVE.index.json:1:")
            && out
                .stderr
                .contains("0.30000000000000001 would be written back as 0.3"),
        "{out}"
    );
    assert_eq!(repo.read(".ai/handoff/LOG.md"), log_before);
    std::fs::remove_file(repo.path().join(index)).unwrap();
    let after = repo.read(MANIFEST);
    assert!(
        after.contains("\"id\": \"123456789012345678901234567890\"")
            && after.contains("\"ratio\": 0.1")
            && after.contains("\"n\": 100.0"),
        "{after}"
    );
}

#[test]
fn a_key_given_twice_in_a_json_file_is_refused_not_resolved() {
    // serde_json keeps the last of two equal keys: a rewrite would drop the first (a
    // shadowed task, an earlier `next_task_id`) without a word.
    let repo = handoff_repo();
    let out = repo.aahp(&["task", "add", "First task"]);
    out.assert_code(0);
    let id = out
        .stdout
        .split_whitespace()
        .nth(1)
        .unwrap()
        .trim_end_matches(':');
    let text = repo.read(MANIFEST);
    let dup = text.replacen(
        &format!("\"{id}\": {{"),
        &format!("\"{id}\": {{\"title\": \"Shadowed\", \"status\": \"ready\"}},\n    \"{id}\": {{"),
        1,
    );
    assert_ne!(dup, text);
    repo.write(MANIFEST, &dup);
    repo.git(&["add", MANIFEST]);
    for args in [
        &["task", "add", "Second"][..],
        &["task", "list"],
        &["manifest"],
        &["verify"],
        &["verify", "--level", "precommit"],
        &["status"],
    ] {
        refused(&repo, args, "error: .ai/handoff/MANIFEST.json:");
        let out = repo.aahp(args);
        assert!(
            out.stderr.contains(&format!("\"{id}\" appears twice")),
            "{args:?}\n{out}"
        );
    }
    // The allowlists: a reviewer must not read one expiry while the tool honours another.
    let repo = handoff_repo();
    repo.write(
        ".ai/handoff/aahp-allowlist.json",
        r#"{"entries": [{"rule": "PI001", "fingerprint": "v1:00", "reason": "x", "expires": "2020-01-01", "expires": "2099-01-01"}]}"#,
    );
    let out = repo.aahp(&["lint"]);
    out.assert_code(2);
    assert!(
        out.stderr.contains(".ai/handoff/aahp-allowlist.json:1:")
            && out.stderr.contains("\"expires\" appears twice"),
        "{out}"
    );
}

#[test]
fn a_bom_and_crlf_manifest_is_read_leniently() {
    let repo = handoff_repo();
    let text = repo.read(MANIFEST).replace('\n', "\r\n");
    repo.write(MANIFEST, format!("\u{feff}{text}"));
    let out = repo.aahp(&["manifest", "--check"]);
    out.assert_code(0);
    repo.aahp(&["verify"]).assert_code(0);
}

#[test]
fn invalid_utf8_in_a_handoff_file_is_refused_with_its_line() {
    let repo = handoff_repo();
    repo.write(
        ".ai/handoff/STATUS.md",
        b"# Status\n\nfine\n\xff\xfe broken\n".as_slice(),
    );
    refused(
        &repo,
        &["manifest"],
        "error: .ai/handoff/STATUS.md:4: invalid UTF-8",
    );
}

#[test]
fn manifest_keys_that_leave_the_directory_are_refused() {
    for key in [
        "../../etc/passwd.md",
        "/etc/passwd.md",
        "..",
        "sub/dir.md",
        "C:\\\\x.md",
    ] {
        let repo = handoff_repo();
        let mut m: serde_json::Value = serde_json::from_str(&repo.read(MANIFEST)).unwrap();
        m["files"][key] =
            serde_json::json!({"checksum": "sha256:x", "updated": "x", "lines": 0, "summary": ""});
        repo.write(MANIFEST, serde_json::to_string_pretty(&m).unwrap());
        let needle = serde_json::to_string(key).unwrap();
        let line = repo
            .read(MANIFEST)
            .lines()
            .position(|l| l.contains(&needle))
            .map(|i| i + 1);
        refused(&repo, &["manifest"], "must be a plain file name");
        refused(&repo, &["verify"], "must be a plain file name");
        if let Some(line) = line {
            refused(&repo, &["manifest"], &format!("MANIFEST.json:{line}:"));
        }
    }
}

#[test]
fn a_symlink_leaving_the_repository_is_refused() {
    let repo = handoff_repo();
    let outside = TestRepo::bare_dir();
    outside.write("secret.md", "outside the repository\n");
    std::fs::remove_file(repo.path().join(".ai/handoff/STATUS.md")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        repo.path().join(".ai/handoff/STATUS.md"),
    )
    .unwrap();
    refused(
        &repo,
        &["manifest"],
        "symbolic link points outside the repository",
    );
    refused(
        &repo,
        &["verify"],
        "symbolic link points outside the repository",
    );
}

#[test]
fn a_symlink_inside_the_repository_is_followed() {
    let repo = handoff_repo();
    repo.write("docs/status.md", "# Status\n\nkept in docs\n");
    std::fs::remove_file(repo.path().join(".ai/handoff/STATUS.md")).unwrap();
    std::os::unix::fs::symlink(
        "../../docs/status.md",
        repo.path().join(".ai/handoff/STATUS.md"),
    )
    .unwrap();
    repo.aahp(&["manifest"]).assert_code(0);
    repo.aahp(&["verify"]).assert_code(0);
    repo.git(&["add", "-A"]);
    repo.aahp(&["verify", "--level", "precommit"])
        .assert_code(0);
}

#[test]
fn a_huge_file_is_refused_with_its_real_size() {
    let repo = handoff_repo();
    repo.write(".ai/handoff/NOTES.md", vec![b'a'; 9 * 1024 * 1024]);
    refused(
        &repo,
        &["manifest"],
        ".ai/handoff/NOTES.md: file is 9437184 bytes; NOTES.md is limited to 8388608 bytes",
    );
    // L8: the size reported is the file's, not the limit plus one.
    let f = std::fs::File::create(repo.path().join(".ai/handoff/NOTES.md")).unwrap();
    f.set_len(100 * 1024 * 1024).unwrap();
    refused(&repo, &["manifest"], "file is 104857600 bytes");
    // Staged, the blob is judged by its header before it is inflated: its real size again.
    f.set_len(9 * 1024 * 1024).unwrap();
    repo.git(&["add", ".ai/handoff/NOTES.md"]);
    // A blob is loaded whole (gix), whatever the file (issue #12 item 2): the message says so.
    for args in [&["lint", "--staged"][..], &["hook", "pre-commit"]] {
        refused(
            &repo,
            args,
            "file is 9437184 bytes in git; a file read from git is loaded whole, and NOTES.md is limited to 8388608 bytes that way",
        );
    }
}

#[test]
fn an_invalid_phase_or_overlong_context_is_a_usage_error() {
    let repo = handoff_repo();
    refused(
        &repo,
        &["manifest", "--phase", "coffee"],
        "invalid value 'coffee'",
    );
    let long = "x".repeat(501);
    refused(
        &repo,
        &["manifest", "--context", &long],
        "the manifest allows at most 500",
    );
}

#[test]
fn a_closed_stdout_exits_0() {
    let repo = handoff_repo();
    let mut log = String::from("# Log\n\n");
    for i in 0..3000 {
        log.push_str(&format!(
            "## [2026-10-01] agent-{i}: Session {i}\n\nA long enough entry for session {i}.\n\n"
        ));
    }
    repo.write(".ai/handoff/LOG.md", log);
    repo.aahp(&["manifest"]).assert_code(0);
    let script = format!(
        "set -o pipefail; '{}' context --for first --budget 10000000 | head -c 10 >/dev/null",
        crate::support::bin().display()
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(repo.path())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Manifests that every reading command refuses, with what the refusal names.
pub(crate) fn unreadable_manifests() -> Vec<(&'static str, String)> {
    let file = |files: &str| {
        format!(
            "{{\n  \"aahp_version\": \"3.0\",\n  \"project\": \"demo\",\n  \"files\": {files}\n}}\n"
        )
    };
    let entry = r#"{"checksum": "sha256:x", "updated": "x", "lines": 0, "summary": ""}"#;
    vec![
        (
            "nested arrays",
            format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)),
        ),
        (
            "nested objects",
            format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000)),
        ),
        ("empty array", "[]\n".into()),
        ("null", "null\n".into()),
        (
            "lone surrogate",
            "{\n  \"project\": \"\\ud800\"\n}\n".into(),
        ),
        ("files as array", file("[]")),
        ("huge number", file(r#"{"STATUS.md": {"lines": 1e400}}"#)),
        ("parent key", file(&format!(r#"{{"../x.md": {entry}}}"#))),
        (
            "absolute key",
            file(&format!(r#"{{"/etc/x.md": {entry}}}"#)),
        ),
        (
            "backslash key",
            file(&format!(r#"{{"..\\x.md": {entry}}}"#)),
        ),
        ("NUL key", file(&format!(r#"{{"a\u0000.md": {entry}}}"#))),
        ("empty key", file(&format!(r#"{{"": {entry}}}"#))),
    ]
}

#[test]
fn lint_refuses_every_manifest_the_other_commands_refuse() {
    let repo = handoff_repo();
    for (what, text) in unreadable_manifests() {
        repo.write(MANIFEST, &text);
        repo.git(&["add", MANIFEST]);
        repo.git(&["commit", "-q", "--no-verify", "-m", what]);
        for args in [
            &["lint"][..],
            &["lint", "--staged"],
            &["lint", "--rev", "HEAD"],
            &["lint", "--format", "sarif"],
            &["verify"],
        ] {
            let out = repo.aahp(args);
            assert_eq!(out.code, 2, "{what}: {args:?}\n{out}");
            assert!(
                out.stderr.contains(".ai/handoff/MANIFEST.json"),
                "{what}: {args:?} does not name the file\n{out}"
            );
            assert!(!out.stderr.contains("panicked"), "{out}");
        }
    }
}

#[test]
fn manifest_check_fails_a_manifest_the_schema_fails_and_manifest_repairs_it() {
    let repo = handoff_repo();
    let mut m: serde_json::Value = serde_json::from_str(&repo.read(MANIFEST)).unwrap();
    m["files"]["STATUS.md"]["lines"] = serde_json::json!(-1);
    m["files"]["NEXT_ACTIONS.md"]["summary"] = serde_json::json!("x".repeat(300));
    repo.write(MANIFEST, serde_json::to_string_pretty(&m).unwrap());
    repo.aahp(&["verify"]).assert_code(1);
    let check = repo.aahp(&["manifest", "--check"]);
    check.assert_code(1);
    assert!(
        check.stdout.contains("schema: /files/STATUS.md/lines"),
        "{check}"
    );
    repo.aahp(&["manifest"]).assert_code(0);
    repo.aahp(&["manifest", "--check"]).assert_code(0);
    repo.aahp(&["verify"]).assert_code(0);
    let m: serde_json::Value = serde_json::from_str(&repo.read(MANIFEST)).unwrap();
    assert_eq!(m["files"]["STATUS.md"]["lines"], 5);
}

#[test]
fn a_fifo_in_place_of_a_handoff_file_is_never_waited_on() {
    // A FIFO with no writer blocks `open` itself: verify's check of the work tree against
    // the index, and commit's reads of TRUST.md and the log, once waited forever (issue #12).
    const BOUND: std::time::Duration = std::time::Duration::from_mins(2);
    for name in ["STATUS.md", "TRUST.md", "LOG.md"] {
        let repo = crate::session_fixture::session_repo();
        let path = repo.path().join(".ai/handoff").join(name);
        std::fs::remove_file(&path).unwrap();
        crate::support::mkfifo(&path);
        let before = crate::session_fixture::head(&repo);
        let out = repo.aahp_bounded(&["verify"], &[], BOUND);
        assert!(matches!(out.code, 1 | 2), "{name}\n{out}");
        let out = repo.aahp_bounded(&["commit", "-m", "x"], &[], BOUND);
        assert!(matches!(out.code, 1 | 2), "{name}\n{out}");
        assert_eq!(crate::session_fixture::head(&repo), before, "{name}");
        assert!(!repo.exists(".ai/handoff/HANDOFF.lock"), "{name}");
        assert!(!crate::session_fixture::has_journal(&repo), "{name}");
        if name != "STATUS.md" {
            // Read directly, it is named for what it is.
            assert!(
                out.stderr.contains(&format!(
                    ".ai/handoff/{name}: not a regular file but a FIFO"
                )),
                "{name}\n{out}"
            );
        }
    }
}

#[test]
fn an_aiignore_that_cannot_be_read_refuses_rather_than_checks_nothing() {
    const BOUND: std::time::Duration = std::time::Duration::from_mins(2);
    let ignore = ".ai/handoff/.aiignore";
    // A FIFO (or a FIFO in place of the archive) in the working tree: lint, verify and
    // manifest name it (exit 2) instead of judging without it.
    for name in [".aiignore", "LOG-ARCHIVE.md"] {
        let repo = handoff_repo();
        let path = repo.path().join(".ai/handoff").join(name);
        let _ = std::fs::remove_file(&path);
        crate::support::mkfifo(&path);
        for args in [&["lint"][..], &["verify"], &["manifest"]] {
            let out = repo.aahp_bounded(args, &[], BOUND);
            out.assert_code(2);
            assert!(
                out.stderr.contains(&format!(
                    ".ai/handoff/{name}: not a regular file but a FIFO"
                )),
                "{name} {args:?}\n{out}"
            );
        }
    }
    // A link to a directory under a handoff file's name is refused too; under another name
    // as well: git stores the link, not the files an agent finds through it, so nothing
    // would judge them (review 20).
    let repo = handoff_repo();
    std::fs::create_dir(repo.path().join("docs")).unwrap();
    std::os::unix::fs::symlink("../../docs", repo.path().join(".ai/handoff/notes")).unwrap();
    let out = repo.aahp(&["lint"]);
    out.assert_code(2);
    assert!(
        out.stderr
            .contains(".ai/handoff/notes: symbolic link to a directory"),
        "{out}"
    );
    std::fs::remove_file(repo.path().join(".ai/handoff/notes")).unwrap();
    let _ = std::fs::remove_file(repo.path().join(ignore));
    std::os::unix::fs::symlink("../../docs", repo.path().join(ignore)).unwrap();
    let out = repo.aahp(&["lint"]);
    out.assert_code(2);
    assert!(
        out.stderr.contains("not a regular file but a directory"),
        "{out}"
    );
    // Text from the command line is judged by the `.aiignore` too: one that does not
    // decode refuses it, naming the file and line, before anything is written.
    let repo = handoff_repo();
    let text = b"# secrets\nzorbleplex\nbad \xff\n";
    std::fs::write(repo.path().join(ignore), text).unwrap();
    refused(
        &repo,
        &["task", "add", "deploy zorbleplex now"],
        ".ai/handoff/.aiignore:",
    );
    refused(
        &repo,
        &["manifest", "--context", "zorbleplex here"],
        "invalid UTF-8",
    );
}

#[test]
fn a_fifo_in_place_of_the_handoff_gitattributes_is_never_waited_on() {
    const BOUND: std::time::Duration = std::time::Duration::from_mins(2);
    let repo = handoff_repo();
    let path = repo.path().join(".ai/handoff/.gitattributes");
    let _ = std::fs::remove_file(&path);
    crate::support::mkfifo(&path);
    for args in [&["status"][..], &["doctor"], &["hooks", "status"]] {
        let out = repo.aahp_bounded(args, &[], BOUND);
        assert!(matches!(out.code, 0..=2), "{args:?}\n{out}");
        assert!(!out.stderr.contains("panicked"), "{args:?}\n{out}");
    }
}

#[test]
fn an_editors_dangling_lock_link_stops_nothing_but_a_dangling_handoff_file_does() {
    let repo = handoff_repo();
    std::os::unix::fs::symlink(
        "alice@host.4242:1700000000",
        repo.path().join(".ai/handoff/.#STATUS.md"),
    )
    .unwrap();
    for args in [&["status"][..], &["lint"], &["verify"]] {
        repo.aahp(args).assert_code(0);
    }
    let status = repo.path().join(".ai/handoff/STATUS.md");
    std::fs::remove_file(&status).unwrap();
    std::os::unix::fs::symlink("gone.md", &status).unwrap();
    let out = repo.aahp(&["lint"]);
    out.assert_code(2);
    assert!(out.stderr.contains(".ai/handoff/STATUS.md"), "{out}");
}

#[test]
fn a_garbage_pre_push_line_is_named_not_echoed_whole() {
    let repo = handoff_repo();
    let line = "x".repeat(1_000_000);
    let out = repo.aahp_with_stdin(&["hook", "pre-push", "origin", "url"], line.as_bytes());
    out.assert_code(2);
    assert!(out.stderr.contains("pre-push stdin"), "{out}");
    assert!(out.stderr.contains("999800 more characters"), "{out}");
    assert!(
        out.stderr.len() < 2_000,
        "{} bytes of stderr",
        out.stderr.len()
    );
}

/// A NUL byte in handoff text is a control character a reader never sees: `lint`, the
/// pre-commit hook and `commit` block it by name (HID011), and nothing is committed.
#[test]
fn a_nul_byte_in_handoff_text_is_blocked_by_lint_the_hook_and_commit() {
    for file in ["STATUS.md", "LOG.md", "TRUST.md"] {
        let repo = crate::session_fixture::session_repo();
        let path = format!(".ai/handoff/{file}");
        let text = repo.read(&path);
        let at = text.find('\n').unwrap() + 1;
        repo.write(
            &path,
            format!("{}Done\0 today.\n{}", &text[..at], &text[at..]),
        );
        let lint = repo.aahp(&["lint", &path]);
        lint.assert_code(1);
        assert!(
            lint.stdout.contains("HID011") && lint.stdout.contains("U+0000"),
            "{file}: {lint}"
        );
        repo.git(&["add", &path]);
        let hook = repo.aahp(&["hook", "pre-commit"]);
        hook.assert_code(1);
        assert!(
            hook.stdout.contains("HID011") || hook.stderr.contains("HID011"),
            "{file}: {hook}"
        );
        let head = crate::session_fixture::head(&repo);
        repo.aahp(&["begin"]).assert_code(0);
        let commit = repo.aahp(&["commit", "--log", "Test session.", "-m", "x"]);
        commit.assert_code(1);
        assert!(
            commit.stdout.contains("HID011") || commit.stderr.contains("HID011"),
            "{file}: {commit}"
        );
        assert_eq!(crate::session_fixture::head(&repo), head, "{file}");
    }
}

/// The temporary files of a killed write are debris that `git add -A` stages: the hook and
/// CI refuse them by name, as they refuse a staged lock.
#[test]
fn a_staged_temporary_file_of_the_tool_never_enters_a_commit() {
    let repo = crate::session_fixture::session_repo();
    for name in [".aahp-tmp-rotation-LOG.md", ".aahp-tmp-Xy12Zq"] {
        repo.write(&format!(".ai/handoff/{name}"), "# Log\n\nhalf written\n");
    }
    repo.git(&["add", "-A"]);
    let hook = repo.aahp(&["hook", "pre-commit"]);
    hook.assert_code(1);
    for name in [".aahp-tmp-rotation-LOG.md", ".aahp-tmp-Xy12Zq"] {
        assert!(
            hook.stdout
                .contains(&format!(".ai/handoff/{name}: a temporary file of git-aahp")),
            "{hook}"
        );
    }
    repo.git(&["commit", "-q", "--no-verify", "-m", "debris"]);
    let ci = repo.aahp(&["verify", "--level", "ci", "--base", "HEAD~1"]);
    ci.assert_code(1);
    assert!(ci.stdout.contains("a temporary file of git-aahp"), "{ci}");
    // A name that only looks alike is the user's, judged as any other file.
    repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
    assert!(!repo.exists(".ai/handoff/.aahp-tmp-Xy12Zq"));
    repo.write(".ai/handoff/.aahp-tmp-draft.md", "# Draft\n");
    repo.git(&["add", "-A"]);
    let hook = repo.aahp(&["hook", "pre-commit"]);
    assert!(
        !hook.stdout.contains("a temporary file of git-aahp"),
        "{hook}"
    );
}

/// A symbolic link's blob is a path: one made by hand to hold megabytes is refused from its
/// header by every reader of history, naming the link, never loaded.
#[test]
fn a_committed_link_whose_target_is_megabytes_is_refused_by_name() {
    let repo = crate::session_fixture::session_repo();
    repo.write("target.bin", "x".repeat(64 * 1024));
    let id = repo.git(&["hash-object", "-w", "target.bin"]);
    std::fs::remove_file(repo.path().join("target.bin")).unwrap();
    let info = format!("120000,{},.ai/handoff/NOTES.md", id.trim());
    repo.git(&["update-index", "--add", "--cacheinfo", &info]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "a link made by hand"]);
    for args in [
        &["lint", "--rev", "HEAD"][..],
        &["verify", "--level", "ci", "--base", "HEAD~1"],
    ] {
        let out = repo.aahp(args);
        out.assert_code(2);
        assert!(
            out.stderr.contains(".ai/handoff/NOTES.md")
                && out
                    .stderr
                    .contains("more than the 4096 bytes a path may hold"),
            "{args:?}: {out}"
        );
    }
}

/// A FIFO named MANIFEST.json in a directory along a changed path: the gate looks there for
/// a handoff directory it was not told about (review s25 #6) and must never wait on it.
#[test]
fn a_fifo_named_like_a_manifest_along_a_change_is_never_waited_on() {
    const BOUND: std::time::Duration = std::time::Duration::from_mins(2);
    let repo = crate::verify::handoff_repo();
    repo.write("docs/guide.md", "Use tabs.\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "docs"]);
    repo.write("docs/guide.md", "Use spaces.\n");
    crate::support::mkfifo(&repo.path().join("docs/MANIFEST.json"));
    let out = repo.aahp_bounded(&["verify"], &[], BOUND);
    assert!(matches!(out.code, 0 | 1), "{out}");
    assert!(!out.stdout.contains("not told about"), "{out}");
}

/// Review s28b #6: a SHA-256 repository was "not a git repository … or `git init` one".
/// It is refused (exit 2, every command) saying what the tool cannot read and that nothing
/// was judged.
#[test]
fn a_repository_in_an_object_format_the_tool_cannot_read_is_named_as_such() {
    let repo = crate::support::TestRepo::bare_dir();
    repo.git(&["init", "-q", "--object-format=sha256", "-b", "main"]);
    for args in [
        &["status"][..],
        &["hook", "pre-commit"],
        &["verify", "--level", "ci"],
    ] {
        let out = repo.aahp(args);
        out.assert_code(2);
        assert!(
            out.stderr.contains("object format git-aahp cannot read")
                && !out.stderr.contains("not a git repository"),
            "{args:?}\n{out}"
        );
    }
}

/// Review s28b #7: in a partial clone (`--filter=blob:none`) the base's blobs are not in the
/// clone, and `verify --level ci` said only "could not read blob …". It still refuses
/// (exit 2: nothing unread passes), and says why and how to fetch them.
#[test]
fn a_blob_a_partial_clone_lacks_is_refused_saying_how_to_fetch_it() {
    let origin = crate::support::TestRepo::with_handoff();
    origin.git(&["config", "uploadpack.allowFilter", "true"]);
    let status = origin.read(".ai/handoff/STATUS.md");
    origin.write(".ai/handoff/STATUS.md", format!("{status}\n- more\n"));
    origin.aahp(&["manifest", "-q"]).assert_code(0);
    origin.git(&["commit", "-q", "-am", "more"]);
    let clone = crate::support::TestRepo::bare_dir();
    let url = format!("file://{}", origin.path().display());
    clone.git(&["clone", "-q", "--filter=blob:none", &url, "."]);
    let out = clone.aahp(&["verify", "--level", "ci", "--base", "HEAD~1"]);
    out.assert_code(2);
    assert!(out.stderr.contains("partial clone"), "{out}");
}
