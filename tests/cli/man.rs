//! `git aahp generate-man` and `git aahp completions` (hidden, used by install.sh).

use std::process::Command;

use crate::support::{TestRepo, bin};

#[test]
fn generate_man_writes_one_page_per_command_with_the_exit_codes() {
    let dir = TestRepo::bare_dir();
    let out = dir.aahp(&["generate-man", "man/man1", "--json"]);
    out.assert_code(0);
    let json = out.json();
    assert_eq!(json["command"], "generate-man");
    assert_eq!(json["directory"], "man/man1");
    let pages: Vec<String> = json["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    assert_eq!(pages[0], "git-aahp.1");
    for page in &pages {
        assert!(
            dir.exists(&format!("man/man1/{page}")),
            "{page} not written"
        );
    }
    // Every command `git aahp -h` lists has its page; nested ones too; hidden ones none.
    let help = dir.aahp(&["-h"]);
    let commands: Vec<&str> = help
        .stdout
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands section")
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(
        commands.contains(&"init") && commands.contains(&"hooks"),
        "{help}"
    );
    for c in &commands {
        assert!(
            pages.contains(&format!("git-aahp-{c}.1")),
            "no page for {c}: {pages:?}"
        );
    }
    for nested in ["install", "uninstall", "status"] {
        assert!(pages.contains(&format!("git-aahp-hooks-{nested}.1")));
    }
    assert!(
        !pages
            .iter()
            .any(|p| p.contains("generate-man") || p.contains("completions"))
    );
    assert!(!pages.iter().any(|p| p.contains("-help")));

    let page = dir.read("man/man1/git-aahp.1");
    assert!(
        page.contains(".TH git-aahp 1 \" \" \"git-aahp 0.1.0\" \"Git Manual\""),
        "{page}"
    );
    let exit = &page[page
        .find(".SH \"EXIT STATUS\"")
        .expect("exit status section")..];
    for code in ["0", "1", "2", "3"] {
        assert!(exit.contains(&format!(".TP\n\\fB{code}\\fR\n")), "{exit}");
    }
    assert!(exit.contains("HANDOFF.lock is held by another session"));
    assert!(page.contains(".SH ENVIRONMENT"));
    assert!(page.contains("AAHP_SKIP_VERIFY"));
    let init = dir.read("man/man1/git-aahp-init.1");
    assert!(init.contains(".SH NAME\ngit\\-aahp\\-init \\- "), "{init}");
    assert!(init.contains("\\-\\-migrate"));
    assert!(init.contains(".SH \"EXIT STATUS\""));
    // Generating again over the same directory is fine.
    dir.aahp(&["generate-man", "man/man1", "--quiet"])
        .assert_code(0);
}

#[test]
fn completions_name_the_subcommands_and_complete_git_aahp_in_bash() {
    let dir = TestRepo::bare_dir();
    let out = dir.aahp(&["completions", "bash"]);
    out.assert_code(0);
    for word in [
        "init",
        "hooks",
        "manifest",
        "install",
        "uninstall",
        "--migrate",
    ] {
        assert!(out.stdout.contains(word), "bash script lacks {word}");
    }
    assert!(out.stdout.contains("complete -F _git__aahp"));
    assert!(out.stdout.contains("\n_git_aahp() {\n"));

    // Drive the functions as git's completion would, for `git -C x aahp hooks in<TAB>` and
    // `git aahp ho<TAB>`.
    let script = format!(
        "source <('{}' completions bash)\n\
         words=(git aahp ho); cword=2; _git_aahp; echo \"${{COMPREPLY[*]}}\"\n\
         words=(git -C x aahp hooks in); cword=5; _git_aahp; echo \"${{COMPREPLY[*]}}\"\n\
         COMP_WORDS=(git-aahp init --for); COMP_CWORD=2; _git__aahp git-aahp --for init; \
         echo \"${{COMPREPLY[*]}}\"\n",
        bin().display()
    );
    let run = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &script])
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "hooks hook\ninstall\n--force\n"
    );

    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = dir.aahp(&["completions", shell]);
        out.assert_code(0);
        assert!(out.stdout.contains("hooks"), "{shell}");
        assert!(out.stdout.contains("init"), "{shell}");
    }
    let out = dir.aahp(&["completions", "tcsh"]);
    out.assert_code(2);
    assert!(out.stderr.contains("invalid value 'tcsh'"), "{out}");
}
