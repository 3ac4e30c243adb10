//! What the gate cannot judge is refused, never passed (review 20): content a checkout puts
//! in the handoff directory from elsewhere (a submodule, a Git LFS object, a directory
//! reached through a link), a handoff directory a sparse index folds into one entry, the
//! configuration files, and the commits of a range that the tip no longer shows.

use crate::support::TestRepo;
use crate::verify::handoff_repo;

/// A GitHub personal access token's shape: `ghp_` and 36 letters and digits, not a real one.
fn token(seed: u64) -> String {
    let set = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let body: String = (0..36)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            set[usize::try_from(s % 62).unwrap()] as char
        })
        .collect();
    format!("ghp_{body}")
}

/// Stages `.ai/handoff/STATUS.md` with `line` appended and the manifest regenerated.
fn stage_status_line(repo: &TestRepo, line: &str) {
    let status = repo.read(".ai/handoff/STATUS.md");
    repo.write(".ai/handoff/STATUS.md", format!("{status}\n{line}\n"));
    repo.aahp(&["manifest"]).assert_code(0);
    repo.git(&["add", "-A"]);
}

/// The 1-based line of STATUS.md at `rev` that starts with `start`.
fn line_of(repo: &TestRepo, rev: &str, start: &str) -> usize {
    let text = repo.git(&["show", &format!("{rev}:.ai/handoff/STATUS.md")]);
    text.lines().position(|l| l.starts_with(start)).unwrap() + 1
}

#[test]
fn a_submodule_inside_the_handoff_directory_is_refused_at_the_hook_and_in_ci() {
    // Its files come from another repository when it is checked out: nothing here judged
    // them, and the next agent reads them as handoff files.
    let repo = handoff_repo();
    repo.git(&["checkout", "-q", "-b", "pr"]);
    stage_status_line(&repo, "- Added the notes.");
    // A gitlink as `git submodule add` stages it (its directory is not checked out here).
    let other = repo.git(&["rev-parse", "HEAD"]);
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{},.ai/handoff/notes", other.trim()),
    ]);
    for args in [
        &["hook", "pre-commit"][..],
        &["verify", "--level", "precommit"],
    ] {
        let out = repo.aahp(args);
        out.assert_code(2);
        assert!(
            out.stderr
                .contains(".ai/handoff/notes: is a git submodule inside the handoff directory"),
            "{args:?}: {out}"
        );
    }
    repo.git(&["commit", "-q", "--no-verify", "-m", "notes"]);
    let ci = repo.aahp(&["verify", "--level", "ci", "--base", "main"]);
    ci.assert_code(2);
    assert!(ci.stderr.contains("git submodule"), "{ci}");
    // A submodule where a package's `.ai` belongs is refused as what it is (review 21 F14).
    let repo = handoff_repo();
    repo.write("svc/main.rs", "fn main() {}\n");
    stage_status_line(&repo, "- Added the service.");
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{},svc/.ai", other.trim()),
    ]);
    let out = repo.aahp(&["hook", "pre-commit"]);
    assert_ne!(out.code, 0, "{out}");
    assert!(
        out.stdout
            .contains("svc/.ai: the index holds a file, a symbolic link or a submodule")
            && out
                .stdout
                .contains("`git rm --cached` the link or submodule"),
        "{out}"
    );
    assert!(!out.stdout.contains("from inside it"), "{out}");
}

#[test]
fn a_git_lfs_pointer_is_refused_where_a_handoff_file_or_instruction_file_belongs() {
    // The gate reads the pointer git holds; a checkout with git-lfs puts the real file there.
    let pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 109\n";
    let repo = handoff_repo();
    repo.write(".ai/handoff/notes/brief.md", pointer);
    stage_status_line(&repo, "- Added a brief.");
    let out = repo.aahp(&["hook", "pre-commit"]);
    out.assert_code(1);
    assert!(
        out.stdout
            .contains(".ai/handoff/notes/brief.md: 1:1: error[HID012 lfs-pointer]"),
        "{out}"
    );
    let repo = handoff_repo();
    repo.write("AGENTS.md", pointer);
    repo.git(&["add", "AGENTS.md"]);
    let out = repo.aahp(&["hook", "pre-commit"]);
    out.assert_code(1);
    assert!(out.stdout.contains("AGENTS.md: 1:1: error[HID012"), "{out}");
    // As git-lfs reads one: blank lines and indentation before it, the `git-media` alias.
    let repo = handoff_repo();
    repo.write(
        ".ai/handoff/notes/brief.md",
        format!(
            "\n  {}",
            pointer.replace(
                "https://git-lfs.github.com/spec/v1",
                "http://git-media.io/v/2"
            )
        ),
    );
    stage_status_line(&repo, "- Added a brief.");
    let out = repo.aahp(&["hook", "pre-commit"]);
    out.assert_code(1);
    assert!(out.stdout.contains("error[HID012"), "{out}");
    // Text that only mentions the format is not a pointer.
    let repo = handoff_repo();
    stage_status_line(
        &repo,
        "- Moved the screenshots to Git LFS (version https://git-lfs.github.com/spec/v1).",
    );
    repo.aahp(&["hook", "pre-commit"]).assert_code(0);
}

#[test]
fn an_encrypted_handoff_or_instruction_file_is_refused() {
    // An encryption filter (transcrypt, git-crypt, age or gpg filters) stores ciphertext;
    // a checkout with the key decrypts it into text the gate never read (review 23).
    let b64 = |n: usize| -> String {
        let set = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        (0..n).map(|i| set[(i * 37 + i / 3) % 64] as char).collect()
    };
    let salted = format!("U2FsdGVkX1{}\n{}==\n", b64(54), b64(62));
    let age = format!(
        "-----BEGIN AGE ENCRYPTED FILE-----\n{}\n{}\n-----END AGE ENCRYPTED FILE-----\n",
        b64(64),
        b64(20)
    );
    let around = format!("# Plan\n\nThe rest is below.\n{salted}\nThanks.\n");
    // A mention of the mark in prose comes first; the block after it is still seen.
    // `openssl enc -d -a` skips whitespace: a block wrapped and indented, or a mark with a
    // blank inside, decrypts all the same (review 25).
    let wrapped = {
        let body = salted.replace('\n', "");
        let lines: Vec<String> = body
            .as_bytes()
            .chunks(12)
            .map(|c| format!("    {}", String::from_utf8_lossy(c)))
            .collect();
        format!("# Notes\n\nKeep this:\n\n{}\n", lines.join("\n"))
    };
    let spaced = format!("# Notes\n\n{} {}\n", &salted[..4], &salted[4..]);
    let mentioned = format!(
        "# Plan\n\nA salted file starts with U2FsdGVkX1, as below.\n\n  {salted}\nThanks.\n"
    );
    for (path, text) in [
        (".ai/handoff/NEXT_ACTIONS.md", salted.as_str()),
        (".ai/handoff/notes/plan.md", age.as_str()),
        (".ai/handoff/notes/rest.md", around.as_str()),
        (".ai/handoff/notes/later.md", mentioned.as_str()),
        (".ai/handoff/notes/wrapped.md", wrapped.as_str()),
        (".ai/handoff/notes/spaced.md", spaced.as_str()),
    ] {
        let repo = handoff_repo();
        repo.write(path, text);
        stage_status_line(&repo, "- Encrypted the plan.");
        let out = repo.aahp(&["hook", "pre-commit"]);
        out.assert_code(1);
        assert!(
            out.stdout
                .lines()
                .any(|l| l.contains(&format!("{path}: "))
                    && l.contains("error[HID013 encrypted-file]")),
            "{out}"
        );
    }
    let repo = handoff_repo();
    repo.write("CLAUDE.md", salted.as_str());
    repo.git(&["add", "CLAUDE.md"]);
    let out = repo.aahp(&["hook", "pre-commit"]);
    out.assert_code(1);
    assert!(out.stdout.contains("CLAUDE.md: 1:1: error[HID013"), "{out}");
    // git-crypt's binary format is not text: refused as such, and named.
    let repo = handoff_repo();
    repo.aahp(&["manifest"]).assert_code(0);
    let mut crypt = b"\0GITCRYPT\0".to_vec();
    crypt.extend((0u8..=255).cycle().take(600));
    repo.write(".ai/handoff/notes/chart.png", crypt);
    repo.git(&["add", "-A"]);
    let out = repo.aahp(&["hook", "pre-commit"]);
    out.assert_code(2);
    assert!(
        out.stderr.contains(".ai/handoff/notes/chart.png:")
            && out
                .stderr
                .contains("invalid UTF-8: the file is git-crypt-encrypted"),
        "{out}"
    );
    // A message quoted in prose is not decrypted on checkout: only the whole file counts.
    let repo = handoff_repo();
    stage_status_line(
        &repo,
        &format!("- The vault export starts with {} (salted).", &salted[..60]),
    );
    let out = repo.aahp(&["hook", "pre-commit"]);
    assert!(!out.stdout.contains("HID013"), "{out}");
}

#[test]
fn a_link_to_a_directory_inside_the_handoff_directory_is_refused() {
    // git holds the link, not the files an agent finds through it.
    let repo = handoff_repo();
    repo.write("docs/ref.md", "Reference notes.\n");
    std::os::unix::fs::symlink("../../docs", repo.path().join(".ai/handoff/notes")).unwrap();
    repo.git(&["add", "-A"]);
    let out = repo.aahp(&["hook", "pre-commit"]);
    out.assert_code(2);
    assert!(
        out.stderr
            .contains(".ai/handoff/notes: symbolic link to a directory (docs)"),
        "{out}"
    );
    repo.git(&["commit", "-q", "--no-verify", "-m", "link"]);
    let ci = repo.aahp(&["verify", "--level", "ci", "--base", "HEAD~1"]);
    ci.assert_code(2);
    assert!(ci.stderr.contains("symbolic link to a directory"), "{ci}");
}

#[test]
fn a_sparse_index_that_folds_the_handoff_directory_fails_the_hook() {
    // With `.ai/` one entry of the index, the hook found no handoff directory and passed
    // code with no handoff update ("nothing to judge").
    let repo = handoff_repo();
    repo.write("src/app.rs", "fn main() {}\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "code"]);
    repo.git(&["sparse-checkout", "set", "--cone", "--sparse-index", "src"]);
    let listed = repo.git(&["ls-files", "--sparse"]);
    assert!(listed.lines().any(|l| l == ".ai/"), "{listed}");
    repo.write("src/app.rs", "fn main() { println!(); }\n");
    repo.git(&["add", "src/app.rs"]);
    let out = repo.aahp(&["hook", "pre-commit"]);
    out.assert_code(1);
    assert!(
        out.stderr.contains(
            "the index is sparse and holds .ai/ as one entry, outside the sparse checkout"
        ) && out.stderr.contains("git sparse-checkout add"),
        "{out}"
    );
    // In the sparse checkout, it is judged as before (drift: no handoff update).
    repo.git(&["sparse-checkout", "add", ".ai"]);
    let out = repo.aahp(&["hook", "pre-commit"]);
    out.assert_code(1);
    assert!(out.stdout.contains("FAIL  drift"), "{out}");
}

#[test]
fn a_sparse_index_is_judged_by_the_handoff_directory_each_change_answers_to() {
    // Review 21: a package's own `.ai/handoff` folded away passed the hook; a folded
    // directory the change does not answer to (the root's, beside a package that has its
    // own) must not block, and a folded subdirectory of a handoff directory is named.
    let repo = handoff_repo();
    crate::verify::write_handoff(&repo, "svc/.ai/handoff");
    repo.aahp(&["--dir", "svc/.ai/handoff", "manifest", "--project", "svc"])
        .assert_code(0);
    repo.write("svc/src/app.rs", "fn main() {}\n");
    repo.write("web/src/app.rs", "fn main() {}\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "packages"]);
    repo.git(&[
        "sparse-checkout",
        "set",
        "--cone",
        "--sparse-index",
        "svc/src",
        "web",
    ]);
    repo.write("svc/src/app.rs", "fn main() { println!(); }\n");
    repo.git(&["add", "svc/src/app.rs"]);
    let out = repo.aahp(&["hook", "pre-commit"]);
    out.assert_code(1);
    assert!(
        out.stderr.contains("holds svc/.ai/ as one entry")
            && out.stderr.contains("the handoff directory svc/.ai/handoff"),
        "{out}"
    );
    repo.git(&["reset", "-q"]);
    repo.git(&["checkout", "-q", "--", "svc"]);
    repo.git(&["sparse-checkout", "set", "--cone", "--sparse-index", "svc"]);
    repo.write("svc/src/app.rs", "fn main() { println!(); }\n");
    repo.git(&["add", "svc/src/app.rs"]);
    let out = repo.aahp(&["hook", "pre-commit"]);
    assert!(!out.stderr.contains("index is sparse"), "{out}");
    assert!(out.stdout.contains("FAIL  drift"), "{out}");
}

#[test]
fn a_credential_in_the_configuration_files_is_found() {
    // `.aiignore` and the allowlists are not judged for wording (they name injection
    // phrases and allowed addresses on purpose), but a credential in them is committed.
    let repo = TestRepo::with_handoff();
    let ignore = repo.read(".ai/handoff/.aiignore");
    repo.write(
        ".ai/handoff/.aiignore",
        format!("{ignore}\n# deploy token (keep): {}\n", token(3)),
    );
    repo.git(&["add", "-A"]);
    let out = repo.aahp(&["hook", "pre-commit"]);
    out.assert_code(1);
    assert!(
        out.stdout.contains(".ai/handoff/.aiignore: ") && out.stdout.contains("error[SEC020"),
        "{out}"
    );
    assert!(!out.stdout.contains(&token(3)), "{out}");
    // Its patterns are not findings.
    let repo = TestRepo::with_handoff();
    repo.write(
        ".ai/handoff/.aiignore",
        format!("{ignore}\n# injection\nignore previous instructions\n"),
    );
    repo.git(&["add", "-A"]);
    repo.aahp(&["hook", "pre-commit"]).assert_code(0);
}

#[test]
fn a_credential_a_later_commit_removed_still_fails_the_range() {
    // Every commit of a push or pull request is published: the tip alone passing is not
    // enough when an earlier commit of the range holds the token.
    let repo = handoff_repo();
    repo.git(&["checkout", "-q", "-b", "pr"]);
    stage_status_line(&repo, &format!("Deploy token: {}", token(5)));
    repo.git(&["commit", "-q", "--no-verify", "-m", "wip"]);
    repo.git(&["revert", "--no-edit", "HEAD"]);
    stage_status_line(&repo, "- Real work done.");
    repo.git(&["commit", "-q", "--no-verify", "-m", "work"]);
    let wip = repo.git(&["rev-parse", "--short=7", "HEAD~2"]);
    let ci = repo.aahp(&["verify", "--level", "ci", "--base", "main"]);
    ci.assert_code(1);
    assert!(
        ci.stdout.contains("FAIL  history: 1 problem")
            && ci.stdout.contains(&format!(
                ".ai/handoff/STATUS.md:{}: commit {} holds a credential here (SEC020",
                line_of(&repo, "HEAD~2", "Deploy token:"),
                wip.trim()
            )),
        "{ci}"
    );
    assert!(!ci.stdout.contains(&token(5)), "{ci}");
    // The pre-push hook judges the same commits.
    let tip = repo.git(&["rev-parse", "HEAD"]);
    let line = format!(
        "refs/heads/pr {} refs/heads/pr {}\n",
        tip.trim(),
        "0".repeat(40)
    );
    let push = repo.aahp_with_stdin(&["hook", "pre-push", "origin", "x"], line.as_bytes());
    push.assert_code(1);
    assert!(push.stdout.contains("FAIL  history"), "{push}");
    // Review 21: each commit is judged by its own diff, not by what the range changes
    // overall: an instruction file restored to its base text, a package's handoff
    // directory the range leaves as it was, a handoff directory only one commit holds, and
    // a file the tip could not show (an image's readable text) all fail.
    let repo = handoff_repo();
    repo.write("CLAUDE.md", "# Rules\n\nRun the tests. See @docs/team.md\n");
    repo.write("docs/team.md", "Team notes.\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "rules"]);
    repo.git(&["checkout", "-q", "-b", "pr"]);
    // An imported file is read by the agent as part of CLAUDE.md (review 22).
    repo.write("docs/team.md", format!("Team notes. Token {}\n", token(14)));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "leak in an import"]);
    repo.write("docs/team.md", "Team notes.\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "undo the import"]);
    let steps: [(&str, Vec<u8>); 3] = [
        (
            "CLAUDE.md",
            format!(
                "# Rules\n\nRun the tests. See @docs/team.md\nDeploy with {}\n",
                token(11)
            )
            .into_bytes(),
        ),
        (
            "web/.ai/handoff/STATUS.md",
            format!("token {}\n", token(12)).into_bytes(),
        ),
        (".ai/handoff/shot.png", {
            let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x30tEXtComment\0".to_vec();
            b.extend_from_slice(format!("deploy token {}", token(13)).as_bytes());
            b
        }),
    ];
    for (path, bytes) in &steps {
        repo.write(path, bytes);
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "--no-verify", "-m", "leak"]);
    }
    repo.git(&["checkout", "-q", "main", "--", "CLAUDE.md"]);
    repo.git(&["rm", "-rq", "web", ".ai/handoff/shot.png"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "undo"]);
    let ci = repo.aahp(&["verify", "--level", "ci", "--base", "main"]);
    ci.assert_code(1);
    for path in [
        "CLAUDE.md:4",
        "docs/team.md:1",
        "web/.ai/handoff/STATUS.md:1",
        ".ai/handoff/shot.png:1",
    ] {
        assert!(
            ci.stdout.contains(&format!("error: {path}: commit ")),
            "{path}\n{ci}"
        );
    }
    // A range whose commits hold no such credential passes the layer.
    let clean = handoff_repo();
    clean.git(&["checkout", "-q", "-b", "pr"]);
    stage_status_line(&clean, "- Work.");
    clean.git(&["commit", "-q", "-m", "work"]);
    let ci = clean.aahp(&["verify", "--level", "ci", "--base", "main"]);
    ci.assert_code(0);
    assert!(
        ci.stdout.contains(
            "ok    history: no credential in the range's 1 commit that its last one dropped"
        ),
        "{ci}"
    );
}

#[test]
fn a_credential_in_the_readable_text_of_a_binary_file_is_found() {
    // An image is not linted as text, but its metadata (a screenshot's `tEXt` chunk) keeps
    // text an agent or anyone can read back.
    let png = |text: &str| {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0".to_vec();
        b.extend_from_slice(b"\0\0\0\x30tEXtComment\0");
        b.extend_from_slice(text.as_bytes());
        b.extend_from_slice(b"\0\0\0\0IEND\xaeB`\x82");
        b
    };
    let repo = handoff_repo();
    repo.write(
        ".ai/handoff/notes/screenshot.png",
        png(&format!("staging deploy token {}", token(7))),
    );
    stage_status_line(&repo, "- Added a screenshot.");
    let out = repo.aahp(&["hook", "pre-commit"]);
    out.assert_code(1);
    assert!(
        out.stdout.contains(
            ".ai/handoff/notes/screenshot.png: 1:1: error[SEC020 github-token]: in the file's readable text"
        ),
        "{out}"
    );
    assert!(!out.stdout.contains(&token(7)), "{out}");
    let repo = handoff_repo();
    repo.write(
        ".ai/handoff/notes/screenshot.png",
        png("a chart of build times"),
    );
    repo.write("docs/chart.png", png("a chart of build times"));
    repo.write(
        "CLAUDE.md",
        "# Agent notes\n\nThe build times: @docs/chart.png\n",
    );
    stage_status_line(&repo, "- Added a screenshot.");
    repo.aahp(&["hook", "pre-commit"]).assert_code(0);
    repo.git(&["commit", "-q", "-m", "chart"]);
    // An image an instruction file imports is judged the same way, and its findings are
    // reported, not dropped with the layer's other files' (review 23).
    repo.write(
        "docs/chart.png",
        png(&format!("staging deploy token {}", token(8))),
    );
    stage_status_line(&repo, "- Updated the chart.");
    let hook = repo.aahp(&["hook", "pre-commit"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "token"]);
    let ci = repo.aahp(&["verify", "--level", "ci", "--base", "HEAD~1"]);
    for out in [hook, ci] {
        out.assert_code(1);
        assert!(
            out.stdout.contains(
                "docs/chart.png: 1:1: error[SEC020 github-token]: in the file's readable text"
            ),
            "{out}"
        );
        assert!(!out.stdout.contains(&token(8)), "{out}");
    }
}

#[test]
fn a_credential_split_across_appends_or_encoded_still_fails_the_range() {
    // Review 22: the archive is judged by what each commit appended, so a token appended in
    // two halves passed; and the secrets-only judging dropped a base64 credential.
    let repo = TestRepo::with_handoff();
    repo.git(&["checkout", "-q", "-b", "pr"]);
    let archive = ".ai/handoff/LOG-ARCHIVE.md";
    let pat = token(21);
    let old = repo.read(archive);
    repo.write(archive, format!("{old}\nDeploy token {}", &pat[..8]));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "first half"]);
    repo.write(archive, format!("{old}\nDeploy token {pat}\n"));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "second half"]);
    let encoded = {
        let mut b64 = String::new();
        let table = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for chunk in format!("token={}", token(22)).as_bytes().chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
            for i in 0..4 {
                b64.push(if i <= chunk.len() {
                    table[(n >> (18 - 6 * i) & 63) as usize] as char
                } else {
                    '='
                });
            }
        }
        b64
    };
    repo.write(".ai/handoff/NOTES.md", format!("Config blob: {encoded}\n"));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "encoded"]);
    repo.write(archive, &old);
    repo.git(&["rm", "-q", ".ai/handoff/NOTES.md"]);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "undo"]);
    let ci = repo.aahp(&["verify", "--level", "ci", "--base", "main"]);
    ci.assert_code(1);
    assert!(
        ci.stdout.contains(".ai/handoff/LOG-ARCHIVE.md:") && ci.stdout.contains("(SEC020"),
        "{ci}"
    );
    assert!(
        ci.stdout.contains(".ai/handoff/NOTES.md:1: commit ") && ci.stdout.contains("(ENC001"),
        "{ci}"
    );
}

#[test]
fn a_folded_directory_that_holds_no_handoff_directory_does_not_block() {
    // Review 22: a root `.ai/` of prompt files, folded by a cone sparse checkout, refused
    // every commit although no handoff directory is there.
    let repo = TestRepo::new();
    repo.write(".ai/prompts/review.md", "Review the diff.\n");
    repo.write("web/app.js", "x();\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "prompts"]);
    repo.git(&["sparse-checkout", "set", "--cone", "--sparse-index", "web"]);
    repo.write("web/app.js", "y();\n");
    repo.git(&["add", "web/app.js"]);
    let out = repo.aahp(&["hook", "pre-commit"]);
    assert!(!out.stderr.contains("index is sparse"), "{out}");
}
