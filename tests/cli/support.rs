//! Hermetic temporary repositories and a runner for the `git-aahp` binary.
//!
//! Every command runs with `GIT_CONFIG_GLOBAL=/dev/null`, `GIT_CONFIG_NOSYSTEM=1`,
//! `HOME=<tmp>`, fixed author/committer names and dates, a fixed `AAHP_NOW` and `NO_COLOR=1`,
//! and without any `GIT_*` variable inherited from the caller (tests may run inside a hook).

#![allow(
    dead_code,
    reason = "each test module uses a different part of the support"
)]
#![allow(
    unreachable_pub,
    reason = "the test binary is its own crate; pub reads naturally here"
)]

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The instant every test runs at (`AAHP_NOW`).
pub const NOW: &str = "2026-11-22T10:00:00Z";

/// A throwaway git repository.
pub struct TestRepo {
    dir: tempfile::TempDir,
}

/// The result of one command: exit code, stdout, stderr.
pub struct CmdOutput {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    root: PathBuf,
}

impl CmdOutput {
    /// Asserts the exit code, printing the output on failure.
    #[track_caller]
    pub fn assert_code(&self, code: i32) -> &Self {
        assert_eq!(self.code, code, "unexpected exit code\n{self}");
        self
    }

    /// Parses stdout as JSON.
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e})\n{self}"))
    }

    /// The `files` a JSON `lint` report says it scanned.
    pub fn linted_files(&self) -> Vec<String> {
        self.json()["files"]
            .as_array()
            .unwrap_or_else(|| panic!("no `files` list\n{self}"))
            .iter()
            .map(|f| f.as_str().unwrap_or_default().to_string())
            .collect()
    }
}

impl fmt::Display for CmdOutput {
    /// The snapshot form: exit code, stdout and stderr, with the temp path replaced by `[REPO]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let root = self.root.to_string_lossy();
        let clean = |s: &str| s.replace(root.as_ref(), "[REPO]");
        write!(
            f,
            "exit: {}\n--- stdout ---\n{}--- stderr ---\n{}",
            self.code,
            clean(&self.stdout),
            clean(&self.stderr)
        )
    }
}

fn hermetic(cmd: &mut Command, home: &Path) {
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("GIT_")
            || k.starts_with("AAHP_")
            || k == "NO_COLOR"
            || k == "CI"
            || k.starts_with("GITHUB_")
        {
            cmd.env_remove(&k);
        }
    }
    cmd.env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", home)
        .env("GIT_AUTHOR_NAME", "Test Author")
        .env("GIT_AUTHOR_EMAIL", "author@test.invalid")
        .env("GIT_AUTHOR_DATE", "2026-11-22T09:00:00Z")
        .env("GIT_COMMITTER_NAME", "Test Committer")
        .env("GIT_COMMITTER_EMAIL", "committer@test.invalid")
        .env("GIT_COMMITTER_DATE", "2026-11-22T09:00:00Z")
        .env("AAHP_NOW", NOW)
        .env("NO_COLOR", "1")
        .env("LC_ALL", "C")
        .stdin(Stdio::null());
}

/// Path of the binary under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_git-aahp"))
}

impl TestRepo {
    /// An empty directory that is not a repository.
    pub fn bare_dir() -> TestRepo {
        let dir = tempfile::Builder::new()
            .prefix("aahp-test-")
            .tempdir()
            .expect("temp dir");
        // A fixed directory name: the project name (and so manifests, token counts and
        // commit ids) is the same in every run, which snapshots need.
        std::fs::create_dir(dir.path().join("project")).expect("mkdir project");
        TestRepo { dir }
    }

    /// A copy of this repository (`cp -a`: FIFOs, symlinks and modes kept) in a new temporary
    /// directory.
    pub fn copy_of(&self) -> TestRepo {
        let dir = tempfile::Builder::new()
            .prefix("aahp-test-")
            .tempdir()
            .expect("temp dir");
        let status = Command::new("cp")
            .arg("-a")
            .arg(self.path())
            .arg(dir.path().join("project"))
            .status()
            .expect("spawn cp");
        assert!(status.success(), "cp -a failed");
        TestRepo { dir }
    }

    /// `git init -b main` with one commit holding `README.md`.
    pub fn new() -> TestRepo {
        let repo = TestRepo::unborn();
        repo.write("README.md", "# test\n");
        repo.git(&["add", "README.md"]);
        repo.git(&["commit", "-q", "-m", "initial"]);
        repo
    }

    /// `git init -b main` with no commit.
    pub fn unborn() -> TestRepo {
        let repo = TestRepo::bare_dir();
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    /// A repository whose handoff directory was created by `git aahp init` and committed.
    pub fn with_handoff() -> TestRepo {
        let repo = TestRepo::new();
        repo.aahp(&["init"]).assert_code(0);
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "handoff"]);
        repo
    }

    /// The repository root (canonical, so paths in output match).
    pub fn path(&self) -> PathBuf {
        self.dir
            .path()
            .join("project")
            .canonicalize()
            .expect("temp dir exists")
    }

    /// Writes a file (creating parent directories).
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().expect("file has a parent")).expect("mkdir");
        std::fs::write(p, content).expect("write");
    }

    /// Reads a file as text.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    /// Returns true when the file exists.
    pub fn exists(&self, rel: &str) -> bool {
        self.path().join(rel).exists()
    }

    /// Runs git in the repository and returns stdout; panics on failure.
    #[track_caller]
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.git_output(args);
        assert_eq!(out.code, 0, "git {args:?} failed\n{out}");
        out.stdout
    }

    /// Runs git and returns its output whatever the exit code.
    pub fn git_output(&self, args: &[&str]) -> CmdOutput {
        let mut cmd = Command::new("git");
        cmd.current_dir(self.path()).args(args);
        hermetic(&mut cmd, &self.path());
        run(cmd, self.path())
    }

    /// Runs git with extra environment variables (e.g. a `PATH` for hooks) and returns its
    /// output whatever the exit code.
    pub fn git_env(&self, args: &[&str], envs: &[(&str, &std::ffi::OsStr)]) -> CmdOutput {
        let mut cmd = Command::new("git");
        cmd.current_dir(self.path()).args(args);
        hermetic(&mut cmd, &self.path());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        run(cmd, self.path())
    }

    /// Runs `git-aahp` at the repository root.
    pub fn aahp(&self, args: &[&str]) -> CmdOutput {
        self.aahp_in(".", args)
    }

    /// Runs `git-aahp` in a subdirectory.
    pub fn aahp_in(&self, subdir: &str, args: &[&str]) -> CmdOutput {
        self.aahp_env(subdir, args, &[])
    }

    /// Runs `git-aahp` in a subdirectory with extra environment variables.
    pub fn aahp_env(&self, subdir: &str, args: &[&str], envs: &[(&str, &str)]) -> CmdOutput {
        let mut cmd = Command::new(bin());
        cmd.current_dir(self.path().join(subdir)).args(args);
        hermetic(&mut cmd, &self.path());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        run(cmd, self.path())
    }

    /// Runs a program (a shell script of the repository, say) at the repository root with
    /// the hermetic environment, the binary under test first on `PATH` (so `git aahp` is
    /// it), and extra variables.
    pub fn run_program(
        &self,
        program: &Path,
        args: &[&str],
        envs: &[(&str, &std::ffi::OsStr)],
    ) -> CmdOutput {
        let mut cmd = Command::new(program);
        cmd.current_dir(self.path()).args(args);
        hermetic(&mut cmd, &self.path());
        let bin_dir = bin()
            .parent()
            .expect("binary has a directory")
            .to_path_buf();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![bin_dir];
        dirs.extend(std::env::split_paths(&path));
        cmd.env("PATH", std::env::join_paths(dirs).expect("PATH entries"));
        for (k, v) in envs {
            cmd.env(k, v);
        }
        run(cmd, self.path())
    }

    /// Runs `git-aahp` at the repository root with `input` written to its stdin, which is
    /// then closed (as a hook runner does).
    pub fn aahp_with_stdin(&self, args: &[&str], input: &[u8]) -> CmdOutput {
        use std::io::Write;
        let mut child = self
            .aahp_command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        // A command may exit without reading all of it.
        let _ = child.stdin.take().expect("piped").write_all(input);
        let out = child.wait_with_output().expect("wait");
        CmdOutput {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            root: self.path(),
        }
    }

    /// A `Command` for git with the hermetic environment, for tests that run it in the
    /// background.
    pub fn git_command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        cmd.current_dir(self.path()).args(args);
        hermetic(&mut cmd, &self.path());
        cmd
    }

    /// A `Command` for `git-aahp` with the hermetic environment, for tests that need more
    /// control (stdin, kill).
    pub fn aahp_command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(bin());
        cmd.current_dir(self.path()).args(args);
        hermetic(&mut cmd, &self.path());
        cmd
    }
}

impl TestRepo {
    /// Runs `git-aahp` like [`TestRepo::aahp_env`], but kills it and fails the test when it
    /// has not exited within `bound`: for inputs that could make a command block forever (a
    /// FIFO) or read without end (`/dev/zero`). The bound is far above any normal run, so
    /// the test asserts "no hang", not a speed.
    #[track_caller]
    pub fn aahp_bounded(&self, args: &[&str], envs: &[(&str, &str)], bound: Duration) -> CmdOutput {
        let mut cmd = self.aahp_command(args);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let drain = |mut r: Box<dyn Read + Send>| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = r.read_to_end(&mut buf);
                String::from_utf8_lossy(&buf).into_owned()
            })
        };
        let stdout = drain(Box::new(child.stdout.take().expect("piped")));
        let stderr = drain(Box::new(child.stderr.take().expect("piped")));
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            if start.elapsed() > bound {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "`git aahp {}` was still running after {bound:?}: it hangs",
                    args.join(" ")
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        CmdOutput {
            code: status.code().unwrap_or(-1),
            stdout: stdout.join().expect("reader"),
            stderr: stderr.join().expect("reader"),
            root: self.path(),
        }
    }
}

/// Creates a FIFO (named pipe) at `path`.
#[track_caller]
pub fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo")
        .success();
    assert!(ok, "mkfifo {}", path.display());
}

fn run(mut cmd: Command, root: PathBuf) -> CmdOutput {
    let out = cmd.output().expect("spawn");
    CmdOutput {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        root,
    }
}

/// Waits (at most a minute) for a fail point's rendezvous file to appear: the process under
/// test reached `what`.
#[track_caller]
pub fn wait_for_file(path: &Path, what: &str) {
    let start = std::time::Instant::now();
    while !path.exists() {
        assert!(start.elapsed().as_secs() < 60, "{what} was never reached");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Prints a suite's counts and keeps them in `<target>/tmp/robustness/NAME.txt`, which
/// `.ci/run` shows after the tests (cargo hides what a passing test prints).
#[expect(clippy::print_stdout, reason = "the counts are the suite's report")]
pub fn publish_counts(name: &str, line: &str) {
    println!("{line}");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("robustness");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(format!("{name}.txt")), format!("{line}\n"));
}
