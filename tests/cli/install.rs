//! `install.sh`: where it installs and what it tells the user. A stand-in `cargo` copies the
//! binary under test instead of building (the build itself is cargo's business), so these
//! runs cost milliseconds; everything else (man pages, completions, the PATH check, running
//! the installed binary through git) is the real script.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::bin;

/// A stand-in for `cargo install --locked --path DIR --root ROOT`: records its arguments and
/// copies the binary under test to `ROOT/bin/git-aahp`.
const FAKE_CARGO: &str = r#"#!/bin/sh
printf '%s\n' "$*" >"$FAKE_CARGO_LOG"
root=
while [ $# -gt 0 ]; do
    if [ "$1" = --root ]; then root=$2; fi
    shift
done
[ -n "$root" ] || { echo "fake cargo: no --root" >&2; exit 1; }
mkdir -p "$root/bin" && cp "$FAKE_CARGO_BIN" "$root/bin/git-aahp"
"#;

struct Sandbox {
    dir: tempfile::TempDir,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    cargo_args: String,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let tools = dir.path().join("tools");
        std::fs::create_dir_all(&tools).unwrap();
        let cargo = tools.join("cargo");
        std::fs::write(&cargo, FAKE_CARGO).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        Sandbox { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Runs `sh -c SCRIPT` from the checkout with only the given variables set, PATH being
    /// `extra_path` (if any), the stand-in cargo, then the system directories.
    fn run(&self, script: &str, extra_path: Option<&Path>, envs: &[(&str, PathBuf)]) -> Run {
        let mut path = String::new();
        if let Some(p) = extra_path {
            path.push_str(&p.to_string_lossy());
            path.push(':');
        }
        path.push_str(&self.path("tools").to_string_lossy());
        path.push_str(":/usr/local/bin:/usr/bin:/bin");
        let log = self.path("cargo-args");
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(script)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.path("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("FAKE_CARGO_LOG", &log)
            .env("FAKE_CARGO_BIN", bin());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            cargo_args: std::fs::read_to_string(&log).unwrap_or_default(),
        }
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout ---\n{}--- stderr ---\n{}--- cargo ---\n{}",
            self.code, self.stdout, self.stderr, self.cargo_args
        )
    }
}

#[test]
fn readme_line_one_works_when_cargo_home_is_not_dot_cargo() {
    // The user of field note D12: CARGO_HOME elsewhere, its bin on PATH (as rustup sets up).
    let sb = Sandbox::new();
    let cargo_home = sb.path("opt/cargo");
    let run = sb.run(
        "./install.sh && git aahp --version",
        Some(&cargo_home.join("bin")),
        &[("CARGO_HOME", cargo_home.clone())],
    );
    assert_eq!(run.code, 0, "{run}");
    assert!(
        run.stdout
            .trim_end()
            .ends_with(&format!("git-aahp {}", env!("CARGO_PKG_VERSION"))),
        "{run}"
    );
    assert!(cargo_home.join("bin/git-aahp").is_file(), "{run}");
    assert!(!sb.path("home/.cargo").exists(), "{run}");
    assert!(
        run.cargo_args.contains("--locked") && run.cargo_args.contains("--root"),
        "{run}"
    );
    assert!(!run.stdout.contains("is not on PATH"), "{run}");
    assert!(
        cargo_home.join("share/man/man1/git-aahp.1").is_file(),
        "{run}"
    );
    // bash-completion 2.11 searches the user directory under XDG_DATA_HOME, not PATH.
    assert!(
        sb.path("home/.local/share/bash-completion/completions/git-aahp")
            .is_file(),
        "{run}"
    );
}

#[test]
fn install_root_follows_cargo_install_root_and_names_the_bin_to_put_on_path() {
    let sb = Sandbox::new();
    let root = sb.path("root");
    let run = sb.run(
        "./install.sh",
        None,
        &[
            ("CARGO_INSTALL_ROOT", root.clone()),
            ("CARGO_HOME", sb.path("elsewhere")),
        ],
    );
    assert_eq!(run.code, 0, "{run}");
    assert!(root.join("bin/git-aahp").is_file(), "{run}");
    assert!(!sb.path("elsewhere/bin").exists(), "{run}");
    let bin_dir = root.join("bin");
    assert!(
        run.stdout
            .contains(&format!("{} is not on PATH", bin_dir.display())),
        "{run}"
    );
    assert!(
        run.stdout
            .contains(&format!("export PATH=\"{}:$PATH\"", bin_dir.display())),
        "{run}"
    );
}

#[test]
fn bash_completion_goes_under_the_prefix_when_it_is_an_xdg_data_directory() {
    let sb = Sandbox::new();
    let prefix = sb.path("usr-local");
    let run = sb.run(
        "./install.sh",
        Some(&prefix.join("bin")),
        &[
            ("PREFIX", prefix.clone()),
            (
                "XDG_DATA_DIRS",
                PathBuf::from(format!("{}/share:/usr/share", prefix.display())),
            ),
        ],
    );
    assert_eq!(run.code, 0, "{run}");
    assert!(
        prefix
            .join("share/bash-completion/completions/git-aahp")
            .is_file(),
        "{run}"
    );
    assert!(!sb.path("home/.local").exists(), "{run}");
    // The file completes `git aahp` through git's completion bridge.
    let text =
        std::fs::read_to_string(prefix.join("share/bash-completion/completions/git-aahp")).unwrap();
    assert!(text.contains("_git_aahp"), "bridge missing");
}

/// Review atk41 #5: the lines install.sh tells the user to paste into a shell quote the
/// directory they name: an install root named `$(…)` (or holding a `"`) made the `export
/// PATH=…` line run a command, or break, once pasted.
#[test]
fn the_lines_to_paste_quote_an_install_root_that_shell_would_read_as_a_command() {
    let sb = Sandbox::new();
    let root = sb.path("odd $(touch pwned) \"q\" `touch pwned2`");
    let run = sb.run(
        "./install.sh",
        None,
        &[("CARGO_INSTALL_ROOT", root.clone())],
    );
    assert_eq!(run.code, 0, "{run}");
    assert!(root.join("bin/git-aahp").is_file(), "{run}");
    for (var, dir) in [
        ("PATH", root.join("bin")),
        ("MANPATH", root.join("share/man")),
    ] {
        let prefix = format!("export {var}=");
        // The MANPATH line is there only where `man` is installed.
        let Some(line) = run
            .stdout
            .lines()
            .map(|l| l.trim_start_matches("note:").trim())
            .find(|l| l.starts_with(&prefix))
        else {
            assert!(var == "MANPATH", "no export {var} line\n{run}");
            continue;
        };
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("{line}; printf '%s' \"${var}\""))
            .current_dir(sb.path(""))
            .env_clear()
            .output()
            .unwrap();
        let value = String::from_utf8_lossy(&out.stdout);
        assert!(
            value.starts_with(&format!("{}:", dir.display())),
            "{line} gave {value}"
        );
    }
    assert!(!sb.path("pwned").exists(), "{run}");
    assert!(!sb.path("pwned2").exists(), "{run}");
}
