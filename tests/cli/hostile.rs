//! Hostile input (issue #12, item 7): every command against a generated set of bad inputs —
//! malformed, truncated, deeply nested and oversized JSON; invalid UTF-8, NUL, CR, BOM; a
//! FIFO, directory, device link or stray symlink in place of each handoff file and of the
//! lock; odd file names; huge numbers, dates and TTLs; a bad or huge `.aiignore` and
//! allowlist. Each run must exit 0–3, never panic, never hang (a per-run timeout kills it),
//! and write nothing when it exits non-zero; read-only commands write nothing at all.
//!
//! Every failing (input, command) pair is listed by name before the test fails, so a
//! regression (or a fix still missing on this branch) is visible at a glance.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::session_fixture::{DIR, log_with, session_repo_with_log};
use crate::support::TestRepo;

/// The longest a single run may take before it counts as a hang. A hang has no end, so the
/// limit only has to sit well above the slowest honest run: `commit` of the 720 KB LOG.md of
/// "LOG.md 20k identical entries" takes 5.4 s in a debug build on a quiet 2-core machine and
/// passed 30 s at load 14-22 (three false hangs in the twenty-fifth session).
const TIMEOUT: Duration = Duration::from_secs(90);
/// Address space per run: a command that reads without bound fails instead of taking the
/// machine's memory.
const MEMORY_KIB: u64 = 2 * 1024 * 1024;

/// A command line, and whether the command may write when it succeeds.
struct Cmd {
    args: &'static [&'static str],
    writes: bool,
}

const fn read(args: &'static [&'static str]) -> Cmd {
    Cmd {
        args,
        writes: false,
    }
}

const fn write(args: &'static [&'static str]) -> Cmd {
    Cmd { args, writes: true }
}

/// Every command, each level and variant that reads something different.
const COMMANDS: &[Cmd] = &[
    read(&["status"]),
    read(&["--json", "status"]),
    read(&["context"]),
    read(&["context", "--level", "full"]),
    read(&["manifest", "--check"]),
    read(&["verify"]),
    read(&["verify", "--level", "precommit"]),
    read(&["verify", "--level", "prepush"]),
    read(&["verify", "--level", "ci", "--base", "HEAD~1"]),
    read(&["lint"]),
    read(&["lint", "--staged"]),
    read(&["lint", "--rev", "HEAD"]),
    read(&["lint", "--format", "github"]),
    read(&["hook", "pre-commit"]),
    read(&["archive", "--verify"]),
    read(&["trust", "list"]),
    read(&["task", "list"]),
    read(&["review", "--base", "HEAD~1"]),
    write(&["manifest"]),
    write(&["begin", "--session-id", "hostile"]),
    // With `--log`, so the session is not declined for want of a LOG entry before the
    // rest of the commit path has read the hostile input.
    write(&["commit", "-m", "hostile input", "--log", "Hostile input."]),
    write(&["recover"]),
    write(&["archive"]),
    write(&["archive", "--reindex"]),
    write(&["trust", "decay"]),
    write(&["task", "add", "hostile task"]),
];

/// The commands that judge history, run again after each input is committed (with
/// `--no-verify`, as anyone may): in the staged set-up they only ever judge the clean base.
const HISTORY_COMMANDS: &[Cmd] = &[
    read(&["lint", "--rev", "HEAD"]),
    read(&["verify", "--level", "ci", "--base", "HEAD~1"]),
    read(&["review", "--base", "HEAD~1"]),
    read(&[
        "verify", "--level", "ci", "--base", "HEAD~1", "--format", "sarif",
    ]),
    read(&["verify", "--chain"]),
];

/// A bad input: a name and how to plant it in a copy of the base repository.
struct Input {
    name: String,
    plant: Box<dyn Fn(&Path) + Send + Sync>,
}

fn input(name: impl Into<String>, plant: impl Fn(&Path) + Send + Sync + 'static) -> Input {
    Input {
        name: name.into(),
        plant: Box::new(plant),
    }
}

/// The handoff files (and the lock) that each get every special-file input.
const TARGETS: &[&str] = &[
    "MANIFEST.json",
    "STATUS.md",
    "NEXT_ACTIONS.md",
    "LOG.md",
    "LOG-ARCHIVE.md",
    "LOG-ARCHIVE.index.json",
    "TRUST.md",
    ".aiignore",
    "pii-allowlist.json",
    "HANDOFF.lock",
];
const TEXT_FILES: &[&str] = &[
    "STATUS.md",
    "NEXT_ACTIONS.md",
    "LOG.md",
    "LOG-ARCHIVE.md",
    "TRUST.md",
];
const JSON_FILES: &[&str] = &[
    "MANIFEST.json",
    "LOG-ARCHIVE.index.json",
    "pii-allowlist.json",
    "HANDOFF.lock",
];
/// One byte over the limit of the files agents edit.
const OVER_LIMIT: usize = 8 * 1024 * 1024 + 1;

/// Makes `name` one byte longer than the tool reads: `head` and then a hole (a sparse
/// file, so the 256 MiB the archive may hold cost no disk and no time to write or copy).
fn over_limit(root: &Path, name: &str, head: &[u8]) {
    let limit = if name.starts_with("LOG-ARCHIVE") {
        git_aahp::handoff::MAX_ARCHIVE_BYTES
    } else {
        OVER_LIMIT - 1
    };
    replace_with(root, name, head);
    std::fs::OpenOptions::new()
        .write(true)
        .open(path_in(root, name))
        .unwrap()
        .set_len(limit as u64 + 1)
        .unwrap();
}

fn path_in(root: &Path, name: &str) -> std::path::PathBuf {
    root.join(DIR).join(name)
}

fn replace_with(root: &Path, name: &str, bytes: &[u8]) {
    let p = path_in(root, name);
    let _ = std::fs::remove_file(&p);
    let _ = std::fs::remove_dir_all(&p);
    std::fs::write(p, bytes).unwrap();
}

fn current(root: &Path, name: &str) -> Vec<u8> {
    std::fs::read(path_in(root, name)).unwrap_or_default()
}

fn remove(root: &Path, name: &str) -> std::path::PathBuf {
    let p = path_in(root, name);
    let _ = std::fs::remove_file(&p);
    let _ = std::fs::remove_dir_all(&p);
    p
}

fn special_inputs() -> Vec<Input> {
    let mut out = Vec::new();
    for &t in TARGETS {
        out.push(input(format!("{t} is a FIFO"), move |r| {
            let p = remove(r, t);
            let ok = Command::new("mkfifo").arg(&p).status().unwrap().success();
            assert!(ok, "mkfifo");
        }));
        out.push(input(format!("{t} is a directory"), move |r| {
            let p = remove(r, t);
            std::fs::create_dir_all(p.join("sub")).unwrap();
            std::fs::write(p.join("sub/x.md"), "# x\n").unwrap();
        }));
        for (what, target) in [
            ("a link to /dev/zero", "/dev/zero"),
            ("a link outside the repository", "/etc/passwd"),
            ("a dangling link", "missing-target.md"),
        ] {
            out.push(input(format!("{t} is {what}"), move |r| {
                let p = remove(r, t);
                std::os::unix::fs::symlink(target, p).unwrap();
            }));
        }
    }
    out
}

fn content_inputs() -> Vec<Input> {
    let mut out = Vec::new();
    for &t in TEXT_FILES {
        out.push(input(format!("{t} has invalid UTF-8"), move |r| {
            let mut b = current(r, t);
            b.extend_from_slice(b"\n\xff\xfe broken \xc3\n");
            replace_with(r, t, &b);
        }));
        out.push(input(format!("{t} has NUL bytes"), move |r| {
            let mut b = current(r, t);
            b.extend_from_slice(b"\nnul \0 here\0\n");
            replace_with(r, t, &b);
        }));
        out.push(input(format!("{t} has a BOM and lone CRs"), move |r| {
            let b = current(r, t);
            let mut out = b"\xEF\xBB\xBF".to_vec();
            out.extend(b.iter().map(|&c| if c == b'\n' { b'\r' } else { c }));
            replace_with(r, t, &out);
        }));
        out.push(input(format!("{t} is truncated"), move |r| {
            let b = current(r, t);
            replace_with(r, t, &b[..b.len() / 2]);
        }));
        out.push(input(format!("{t} is over the size limit"), move |r| {
            over_limit(r, t, b"a\n");
        }));
    }
    for &t in JSON_FILES {
        out.push(input(format!("{t} is malformed JSON"), move |r| {
            replace_with(r, t, b"{\n  \"a\": oops,\n}\n");
        }));
        out.push(input(format!("{t} is 100k nested arrays"), move |r| {
            let s = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
            replace_with(r, t, s.as_bytes());
        }));
        out.push(input(format!("{t} is null"), move |r| {
            replace_with(r, t, b"null\n");
        }));
        out.push(input(format!("{t} holds a lone surrogate"), move |r| {
            replace_with(
                r,
                t,
                b"{\"version\": 1, \"project\": \"\\ud800\", \"session_id\": \"\\udfff\"}\n",
            );
        }));
        out.push(input(format!("{t} holds 1e400"), move |r| {
            replace_with(
                r,
                t,
                b"{\"version\": 1e400, \"next_task_id\": 1e400, \"ttl\": 1e400}\n",
            );
        }));
        out.push(input(format!("{t} is over the size limit"), move |r| {
            over_limit(r, t, b"{\"version\": 1, \"x\": \"");
        }));
    }
    out
}

/// A JSON edit of a file in the base repository.
fn edit_json(root: &Path, name: &str, edit: impl Fn(&mut serde_json::Value)) {
    let mut v: serde_json::Value = serde_json::from_slice(&current(root, name)).unwrap();
    edit(&mut v);
    replace_with(
        root,
        name,
        serde_json::to_string_pretty(&v).unwrap().as_bytes(),
    );
}

fn lock_json(fields: &str) -> String {
    format!(
        "{{\"session_id\": \"s1\", \"agent\": \"a\", \"started\": \"2026-11-22T09:00:00Z\", \"expires\": \"2026-11-22T11:00:00Z\"{fields}}}\n"
    )
}

fn number_and_name_inputs() -> Vec<Input> {
    let trust_row = |row: &'static str| {
        move |r: &Path| {
            let mut t = String::from_utf8(current(r, "TRUST.md")).unwrap();
            t.push_str(row);
            replace_with(r, "TRUST.md", t.as_bytes());
        }
    };
    let log_entry = |heading: &'static str| {
        move |r: &Path| {
            let t = String::from_utf8(current(r, "LOG.md")).unwrap();
            let t = t.replacen("## [", &format!("{heading}\n\nx\n\n---\n\n## ["), 1);
            replace_with(r, "LOG.md", t.as_bytes());
        }
    };
    let odd_name = |name: &'static [u8]| {
        move |r: &Path| {
            use std::os::unix::ffi::OsStrExt;
            let p = r.join(DIR).join(std::ffi::OsStr::from_bytes(name));
            std::fs::write(p, "# odd\n").unwrap();
        }
    };
    vec![
        input(
            "TRUST.md TTL 99999999d",
            trust_row("| huge | verified | test_verified | 2026-01-01 | x | 99999999d |  | n |\n"),
        ),
        input(
            "TRUST.md TTL 7304485d",
            trust_row("| edge | verified | test_verified | 2026-01-01 | x | 7304485d |  | n |\n"),
        ),
        input(
            "TRUST.md TTL 20 digits",
            trust_row(
                "| big | verified | test_verified | 2026-01-01 | x | 99999999999999999999d |  | n |\n",
            ),
        ),
        input(
            "TRUST.md date 9999-12-31",
            trust_row("| late | verified | test_verified | 9999-12-31 | x | 365d |  | n |\n"),
        ),
        input(
            "TRUST.md date 2026-02-30",
            trust_row("| bad | verified | test_verified | 2026-02-30 | x | 1d |  | n |\n"),
        ),
        // Many rows, not the most the size limit allows: every command parses them (debug
        // builds at a few microseconds a row), and a quadratic step at 20,000 rows would
        // still blow the per-run timeout; how time grows with size is measured in `bench/`.
        input("TRUST.md 20k rows", |r| {
            let mut t = String::from_utf8(current(r, "TRUST.md")).unwrap();
            for i in 0..20_000 {
                t.push_str(&format!(
                    "| p{i} | assumed | model_claim | 2026-11-20 | a | 30d |  | - |\n"
                ));
            }
            replace_with(r, "TRUST.md", t.as_bytes());
        }),
        input(
            "LOG.md entry dated 9999-12-31",
            log_entry("## [9999-12-31] a: far future"),
        ),
        input(
            "LOG.md entry dated 0001-01-01",
            log_entry("## [0001-01-01] a: far past"),
        ),
        input(
            "LOG.md entry dated 2026-13-45",
            log_entry("## [2026-13-45] a: no such day"),
        ),
        input("LOG.md 20k identical entries", |r| {
            let e = "## [2026-11-01] a: same\n\nsame\n\n---\n\n".repeat(20_000);
            replace_with(r, "LOG.md", format!("# Log\n\n{e}").as_bytes());
        }),
        input("MANIFEST next_task_id u64::MAX", |r| {
            edit_json(r, "MANIFEST.json", |m| {
                m["next_task_id"] = serde_json::json!(u64::MAX);
            });
        }),
        input("MANIFEST next_task_id -1", |r| {
            edit_json(r, "MANIFEST.json", |m| {
                m["next_task_id"] = serde_json::json!(-1);
            });
        }),
        input("MANIFEST lines -1", |r| {
            edit_json(r, "MANIFEST.json", |m| {
                m["files"]["STATUS.md"]["lines"] = serde_json::json!(-1);
            });
        }),
        input("MANIFEST files is an array", |r| {
            edit_json(r, "MANIFEST.json", |m| m["files"] = serde_json::json!([]));
        }),
        input("MANIFEST key ../../etc/passwd.md", |r| {
            edit_json(r, "MANIFEST.json", |m| {
                m["files"]["../../etc/passwd.md"] = m["files"]["STATUS.md"].clone();
            });
        }),
        input("MANIFEST key with ESC and newline", |r| {
            edit_json(r, "MANIFEST.json", |m| {
                m["files"]["\u{1b}[31mx\n::error::y.md"] = m["files"]["STATUS.md"].clone();
            });
        }),
        input("HANDOFF.lock expires in year 99999", |r| {
            replace_with(
                r,
                "HANDOFF.lock",
                lock_json(", \"expires\": \"+99999-12-31T00:00:00Z\"").as_bytes(),
            );
        }),
        input("HANDOFF.lock ttl 1e300 and huge pid", |r| {
            replace_with(
                r,
                "HANDOFF.lock",
                lock_json(", \"ttl_minutes\": 1e300, \"pid\": 99999999999999999999").as_bytes(),
            );
        }),
        input("HANDOFF.lock session id v1..2", |r| {
            replace_with(
                r,
                "HANDOFF.lock",
                lock_json("").replace("\"s1\"", "\"v1..2\"").as_bytes(),
            );
        }),
        input("HANDOFF.lock session id ../../heads/main", |r| {
            replace_with(
                r,
                "HANDOFF.lock",
                lock_json("")
                    .replace("\"s1\"", "\"../../heads/main\"")
                    .as_bytes(),
            );
        }),
        input("HANDOFF.lock agent with control sequences", |r| {
            replace_with(
                r,
                "HANDOFF.lock",
                lock_json("")
                    .replace("\"a\"", "\"evil\\u001b]0;t\\u0007\\n::error::x\"")
                    .as_bytes(),
            );
        }),
        input(".aiignore re:(unclosed", |r| {
            replace_with(r, ".aiignore", b"re:(unclosed\n");
        }),
        input(".aiignore invalid UTF-8", |r| {
            replace_with(r, ".aiignore", b"*.md\n\xff\xfe\n");
        }),
        // Each pattern compiles alone, together they pass the automaton limit: the search
        // for the one too large on its own once compiled all 999 (55 s, review N7).
        input(".aiignore 999 large regexes", |r| {
            let mut lines = String::new();
            for i in 0..999 {
                lines.push_str(&format!("re:\\w{{1,60}}\\w{{1,60}}[a-z]N{i}\n"));
            }
            replace_with(r, ".aiignore", lines.as_bytes());
        }),
        input(".aiignore 8 MiB of patterns", |r| {
            replace_with(r, ".aiignore", &b"*abc*\n".repeat(8 * 1024 * 1024 / 6));
        }),
        input("pii-allowlist.json wrong types", |r| {
            replace_with(
                r,
                "pii-allowlist.json",
                b"{\"version\": \"1\", \"entries\": {\"a\": 1}}\n",
            );
        }),
        input("STATUS.md 128 KB of unclosed brackets", |r| {
            replace_with(
                r,
                "STATUS.md",
                format!("{}\n", "[".repeat(128_000)).as_bytes(),
            );
        }),
        input(
            "file name with a newline and ::error",
            odd_name(b"x\n::error file=a,line=1::y.md"),
        ),
        input(
            "file name with an OSC sequence",
            odd_name(b"\x1b]0;title\x07z.md"),
        ),
        input("file name that is not UTF-8", odd_name(b"\xff\xfe.md")),
    ]
}

/// The base: a committed handoff with an archive, two tasks, TRUST.md, `.aiignore` and an
/// allowlist, on a second commit (so `HEAD~1` exists).
fn base() -> &'static TestRepo {
    static BASE: OnceLock<TestRepo> = OnceLock::new();
    BASE.get_or_init(|| {
        let repo = session_repo_with_log(&log_with(13, 20));
        repo.write(&format!("{DIR}/.aiignore"), "*.secret\n");
        repo.write(
            &format!("{DIR}/pii-allowlist.json"),
            "{\"version\": 1, \"entries\": []}\n",
        );
        repo.aahp(&["archive"]).assert_code(0);
        repo.aahp(&["manifest"]).assert_code(0);
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "archive"]);
        repo.aahp(&["verify"]).assert_code(0);
        repo
    })
}

/// What a command could change: every entry of the handoff directory (kind, mode, content
/// or identity), the git index, HEAD, refs and the tool's state in the git directory.
fn state(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut add = |key: String, path: &Path| {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            return;
        };
        let desc = if meta.file_type().is_symlink() {
            format!("link {:?}", std::fs::read_link(path).ok())
        } else if meta.is_file() {
            use std::os::unix::fs::MetadataExt;
            if meta.len() <= 1 << 20 {
                let bytes = std::fs::read(path).unwrap_or_default();
                format!(
                    "file {:o} {}",
                    meta.mode(),
                    git_aahp::handoff::hex(&Sha256::digest(&bytes))
                )
            } else {
                format!(
                    "file {:o} {} ino {} mtime {}",
                    meta.mode(),
                    meta.len(),
                    meta.ino(),
                    meta.mtime_nsec()
                )
            }
        } else {
            use std::os::unix::fs::MetadataExt;
            format!("other {:o}", meta.mode())
        };
        out.insert(key, desc);
    };
    for sub in [
        DIR,
        ".git/aahp",
        ".git/refs/heads",
        ".git/refs/tags",
        ".git/refs/tags/aahp",
        ".git/refs/aahp",
        ".git/refs/aahp/recovered",
    ] {
        if let Ok(entries) = std::fs::read_dir(root.join(sub)) {
            for e in entries.flatten() {
                // The checksum, token count and lint cut caches (keyed by blob id, safe to
                // delete, issue #14) and the list of importing files (keyed by tree id, review
                // s25 #9) are not state: an entry for a blob or a tree is true whatever the
                // verdict on the commit.
                if sub == ".git/aahp"
                    && ["checksums", "token-counts", "lint-cuts", "importers"]
                        .contains(&e.file_name().to_str().unwrap_or_default())
                {
                    continue;
                }
                let key = format!("{sub}/{}", e.file_name().to_string_lossy());
                // The tool's state nests (session records): a writer's copy is reused
                // only when nothing in it changed.
                if sub == ".git/aahp" && e.path().is_dir() {
                    for inner in std::fs::read_dir(e.path()).into_iter().flatten().flatten() {
                        add(
                            format!("{key}/{}", inner.file_name().to_string_lossy()),
                            &inner.path(),
                        );
                    }
                }
                add(key, &e.path());
            }
        }
    }
    for f in [".git/index", ".git/HEAD", ".git/packed-refs", "README.md"] {
        add(f.to_string(), &root.join(f));
    }
    out
}

/// One run's result.
enum Outcome {
    Exit(i32, String),
    Signal(String),
    Hang,
}

fn run(repo: &TestRepo, args: &[&str]) -> Outcome {
    run_within(repo, args, MEMORY_KIB)
}

/// [`run`] with `memory_kib` of address space.
fn run_within(repo: &TestRepo, args: &[&str], memory_kib: u64) -> Outcome {
    let cmd = repo.aahp_command(args);
    let out_dir = tempfile::tempdir().unwrap();
    let (o, e) = (out_dir.path().join("out"), out_dir.path().join("err"));
    let mut sh = Command::new("sh");
    sh.current_dir(repo.path())
        .arg("-c")
        .arg(format!("ulimit -v {memory_kib}; exec \"$@\""))
        .arg("sh")
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&o).unwrap())
        .stderr(std::fs::File::create(&e).unwrap())
        .process_group(0);
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => sh.env(k, v),
            None => sh.env_remove(k),
        };
    }
    let mut child = sh.spawn().unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let stderr =
                String::from_utf8_lossy(&std::fs::read(&e).unwrap_or_default()).into_owned();
            return match status.code() {
                Some(c) => Outcome::Exit(c, stderr),
                None => Outcome::Signal(format!(
                    "{status}: {}",
                    stderr.lines().last().unwrap_or_default()
                )),
            };
        }
        if start.elapsed() > TIMEOUT {
            // The whole process group: the command and any git it started.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
            return Outcome::Hang;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Workers per suite: the runs are separate processes, mostly waiting on each other's
/// CPU, so a few more than the cores keep the cores busy.
fn workers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4))
}

/// Maps `f` over `items` on [`workers`] threads; results keep the items' order.
fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let done = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|s| {
        for _ in 0..workers() {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let r = f(item);
                    done.lock().unwrap().push((i, r));
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap();
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// What went wrong in one run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Problem {
    Hang,
    Panic,
    PartialWrite,
    Other,
}

/// Runs `cmd` in `repo` and returns what went wrong, each with a description, and whether
/// the run changed the repository's state.
fn judge(repo: &TestRepo, cmd: &Cmd) -> (Vec<(Problem, String)>, bool) {
    let before = state(&repo.path());
    let outcome = run(repo, cmd.args);
    let after = state(&repo.path());
    let changed: Vec<&String> = before
        .keys()
        .chain(after.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .collect();
    let mut problems = Vec::new();
    match &outcome {
        Outcome::Hang => problems.push((Problem::Hang, format!("hang: killed after {TIMEOUT:?}"))),
        Outcome::Signal(s) => problems.push((Problem::Other, format!("killed by a signal: {s}"))),
        Outcome::Exit(code, stderr) => {
            if *code == 101 || stderr.contains("panicked") {
                let line = stderr
                    .lines()
                    .find(|l| l.contains("panicked"))
                    .unwrap_or_default();
                problems.push((Problem::Panic, format!("panic: {line}")));
            } else if !(0..=3).contains(code) {
                let last = stderr.lines().last().unwrap_or_default();
                problems.push((Problem::Other, format!("exit code {code}: {last}")));
            }
            if (*code != 0 || !cmd.writes) && !changed.is_empty() {
                problems.push((
                    Problem::PartialWrite,
                    format!("partial write: exit {code}, changed {changed:?}"),
                ));
            }
        }
    }
    // A run killed or hung may have changed what `state` does not see: never reuse its copy.
    let reusable = changed.is_empty() && matches!(outcome, Outcome::Exit(..));
    (problems, !reusable)
}

/// One unit of work for an input: its read-only commands, or its writing commands, in turn.
struct Job<'a> {
    input: usize,
    cmds: Vec<&'a Cmd>,
    /// Run in the set-up with the input committed.
    committed: bool,
}

/// Runs `cmds` one after the other in copies of `planted`. A command that leaves the state
/// as it found it (every refused write must, and is failed when it does not) leaves the
/// copy as good as new for the next one; only after a command changed something is a
/// fresh copy made. Most hostile inputs make every writer refuse, so an input costs one
/// copy instead of one per writer.
///
/// Read-only commands run in the planted repository itself: they must not change it, and
/// when one does, that is the failure reported. Writers copy `pristine`, a copy of the
/// planted repository taken before any command ran: the readers run beside them in the
/// planted one and may write git's own cache there (`.git/aahp`, a temporary file renamed),
/// which a copy taken at that moment would find half gone.
fn run_in_turn(
    planted: &TestRepo,
    pristine: &TestRepo,
    cmds: &[&Cmd],
    label: impl Fn(&Cmd) -> String,
) -> Vec<Run> {
    let mut copy: Option<TestRepo> = None;
    let mut runs = Vec::with_capacity(cmds.len());
    for cmd in cmds {
        let repo = if cmd.writes {
            copy.get_or_insert_with(|| pristine.copy_of())
        } else {
            planted
        };
        let (problems, changed) = judge(repo, cmd);
        if changed && cmd.writes {
            copy = None;
        }
        runs.push((label(cmd), problems));
    }
    runs
}

/// A labelled run and what went wrong in it.
type Run = (String, Vec<(Problem, String)>);

fn check(inputs: &[Input], group: &str) {
    // Each input is planted once; its commands then run in copies of that set-up.
    let planted: Vec<TestRepo> = parallel(inputs, |inp| {
        let repo = base().copy_of();
        (inp.plant)(&repo.path());
        // Staged as well, for the commands that judge the index (a FIFO cannot be added).
        let _ = repo.git_output(&["add", "-A"]);
        repo
    });
    let pristine: Vec<TestRepo> = parallel(&planted, TestRepo::copy_of);
    // The same set-ups with the input committed, for the commands that judge history.
    // Some cannot be (git does not add a FIFO): those judge the base, as staged.
    let committed: Vec<(TestRepo, bool)> = parallel(&pristine, |p| {
        let repo = p.copy_of();
        let made = repo
            .git_output(&["commit", "-q", "--no-verify", "-m", "hostile input"])
            .code
            == 0;
        (repo, made)
    });
    let commits = committed.iter().filter(|(_, made)| *made).count();
    let readers: Vec<&Cmd> = COMMANDS.iter().filter(|c| !c.writes).collect();
    let writers: Vec<&Cmd> = COMMANDS.iter().filter(|c| c.writes).collect();
    let history: Vec<&Cmd> = HISTORY_COMMANDS.iter().collect();
    let mut jobs = Vec::new();
    for input in 0..inputs.len() {
        jobs.push(Job {
            input,
            cmds: readers.clone(),
            committed: false,
        });
        jobs.push(Job {
            input,
            cmds: writers.clone(),
            committed: false,
        });
        jobs.push(Job {
            input,
            cmds: history.clone(),
            committed: true,
        });
    }
    let results = parallel(&jobs, |job| {
        let (repo, how) = if job.committed {
            (&committed[job.input].0, ", committed")
        } else {
            (&planted[job.input], "")
        };
        run_in_turn(repo, &pristine[job.input], &job.cmds, |cmd| {
            format!(
                "[{}{how}] git aahp {}",
                inputs[job.input].name,
                cmd.args.join(" ")
            )
        })
    });
    let runs: Vec<Run> = results.into_iter().flatten().collect();
    let count = |p: Problem| {
        runs.iter()
            .flat_map(|(_, ps)| ps)
            .filter(|(k, _)| *k == p)
            .count()
    };
    let counts = format!(
        "hostile input ({group}): {} inputs x ({} commands staged + {} committed, {commits} of the inputs in a commit) = {} runs; panics {}, hangs {}, partial writes {}, other failures {}",
        inputs.len(),
        COMMANDS.len(),
        HISTORY_COMMANDS.len(),
        runs.len(),
        count(Problem::Panic),
        count(Problem::Hang),
        count(Problem::PartialWrite),
        count(Problem::Other)
    );
    assert!(
        commits * 2 > inputs.len(),
        "only {commits} of {} inputs could be committed",
        inputs.len()
    );
    crate::support::publish_counts(
        &format!("hostile-{}", group.replace([' ', ','], "-")),
        &counts,
    );
    let failures: Vec<String> = runs
        .iter()
        .flat_map(|(label, ps)| ps.iter().map(move |(_, d)| format!("{label}: {d}")))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} hostile runs ({group}) failed:\n{}",
        failures.len(),
        runs.len(),
        failures.join("\n")
    );
}

#[test]
fn hostile_special_files_in_place_of_handoff_files_and_the_lock() {
    check(&special_inputs(), "special files");
}

#[test]
fn hostile_file_content_and_json() {
    check(&content_inputs(), "content and JSON");
}

#[test]
fn hostile_numbers_dates_names_and_patterns() {
    check(&number_and_name_inputs(), "numbers, dates, names, patterns");
}

/// A tracked file outside the handoff directory, larger than the memory a run may use, whose
/// modification time changed (a rebuilt asset): `verify` and `status` look for code changes
/// by hashing it, which once read it whole and ran out of memory (issue #12 review, N3). It
/// is hashed in pieces: the commands finish, within the suite's memory limit.
#[test]
fn a_tracked_file_larger_than_memory_is_hashed_in_pieces() {
    let repo = crate::verify::handoff_repo();
    repo.write("asset.bin", "small\n");
    repo.git(&["add", "asset.bin"]);
    repo.git(&["commit", "-q", "-m", "asset"]);
    // Half the suite's limit, so that hashing the file in a loaded debug build stays well
    // within the per-run timeout.
    let limit_kib = MEMORY_KIB / 2;
    let big = std::fs::File::create(repo.path().join("asset.bin")).unwrap();
    big.set_len((limit_kib + 256 * 1024) * 1024).unwrap();
    drop(big);
    for args in [&["verify"][..], &["status"]] {
        match run_within(&repo, args, limit_kib) {
            Outcome::Exit(code, stderr) => {
                assert!(code <= 1, "{args:?}: exit {code}\n{stderr}");
                assert!(!stderr.contains("memory"), "{args:?}\n{stderr}");
            }
            Outcome::Signal(s) => panic!("{args:?}: killed: {s}"),
            Outcome::Hang => panic!("{args:?}: no answer within {TIMEOUT:?}"),
        }
    }
}
