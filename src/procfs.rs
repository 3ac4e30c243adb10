//! Reading Linux's `/proc` files, for what the platform tells no other way without `unsafe`
//! (the CPU a thread runs on, a process's parent, the git command a hook runs under).

/// Field `n` (counted from 1, as `proc(5)` numbers them; `n` ≥ 3) of a `/proc/…/stat` line,
/// as a number. The second field, the name in parentheses, may hold spaces and parentheses
/// itself: the fields after it are counted from its last `)`. `None` for a short or garbled
/// line.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn stat_field(stat: &[u8], n: usize) -> Option<u64> {
    let after_name = &stat[stat.iter().rposition(|&b| b == b')')? + 1..];
    let field = after_name
        .split(u8::is_ascii_whitespace)
        .filter(|f| !f.is_empty())
        .nth(n.checked_sub(3)?)?;
    std::str::from_utf8(field).ok()?.parse().ok()
}

/// Whether the git process this one runs under is `git commit --amend`: the nearest
/// ancestor process that is git, passing over `git aahp` (the shim runs the hook through it)
/// and whatever a hook manager puts between (husky, lefthook, pre-commit run shells and
/// interpreters). Git tells a pre-commit hook nothing about amending; the command line of
/// the `git commit` that runs it does. `Some(false)` when that ancestor is another git
/// command or there is none (a hook run by hand, `git aahp commit`'s own check); `None`
/// where it cannot be told: no `/proc` (not Linux, or a process whose entries cannot be
/// read). Tests arm `no-proc` to take that path. `alias` answers git's `alias.NAME`: an
/// alias git expands in the same process (`git ca` for `commit --amend`) is expanded here
/// too, its words split as git splits them ([`split_alias`]; an alias that runs a shell,
/// `!…`, starts a git process of its own, found further down).
pub(crate) fn git_commit_amends(alias: &dyn Fn(&str) -> Option<String>) -> Option<bool> {
    if crate::failpoint::armed_flag("no-proc") {
        return None;
    }
    ancestors_amend(alias)
}

#[cfg(target_os = "linux")]
fn ancestors_amend(alias: &dyn Fn(&str) -> Option<String>) -> Option<bool> {
    let first = std::os::unix::process::parent_id();
    let ahead = AHEAD.get_or_init(|| read_ahead(first, &read_proc));
    walk(first, ahead, &read_proc, alias)
}

/// Reads the ancestors [`git_commit_amends`] walks (their command lines and parents) ahead,
/// on a thread that starts with a command that will ask (the lint's warm-up): `/proc`'s
/// files of other processes are slow to read (about 20 µs each on the project's machine
/// kind; a hook run by hand walks up to `init`), and the hook's first thread waits for the
/// answer before it reads the staged files. What is read ahead is what the walk reads; the
/// walk reads what was not.
pub(crate) fn read_ancestors_ahead() {
    #[cfg(target_os = "linux")]
    AHEAD.get_or_init(|| read_ahead(std::os::unix::process::parent_id(), &read_proc));
}

/// The ancestors read ahead, nearest first (see [`read_ancestors_ahead`]).
#[cfg(target_os = "linux")]
static AHEAD: std::sync::OnceLock<Vec<Seen>> = std::sync::OnceLock::new();

/// One ancestor as read ahead: its id, its command line (`None`: it could not be read) and
/// its parent.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct Seen {
    pid: u32,
    cmdline: Option<Vec<u8>>,
    parent: Parent,
}

/// An ancestor's parent as read ahead.
#[derive(Clone, Copy)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
enum Parent {
    /// Not read: the walk ends, or may end, at this process.
    Unread,
    /// Its `/proc/PID/stat` could not be read, or named no parent.
    Unknown,
    /// The parent's id.
    Is(u32),
}

/// A bound on the walk: a process tree is never this deep, a garbled entry may loop.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const MAX_WALK: usize = 64;

/// `/proc/PID/WHAT`'s bytes.
#[cfg(target_os = "linux")]
fn read_proc(pid: u32, what: &str) -> Option<Vec<u8>> {
    std::fs::read(format!("/proc/{pid}/{what}")).ok()
}

/// A command line's arguments (`/proc/PID/cmdline`: each ends with a NUL).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn args_of(cmdline: &[u8]) -> Vec<&[u8]> {
    let mut args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
    if args.last().is_some_and(|a| a.is_empty()) {
        args.pop();
    }
    args
}

/// The parent's id in a `/proc/PID/stat` line.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn parent_of(stat: &[u8]) -> Option<u32> {
    u32::try_from(stat_field(stat, 4)?).ok()
}

/// The ancestors from `first` up, as [`walk`] reads them, up to the first whose command line
/// cannot be read or answers the walk whatever git's aliases say (a git command other than
/// `git aahp`: only an alias that runs `git aahp` lets the walk go on, and then it reads
/// that process's parent itself).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn read_ahead(first: u32, read: &dyn Fn(u32, &str) -> Option<Vec<u8>>) -> Vec<Seen> {
    let mut chain = Vec::new();
    let mut pid = first;
    for _ in 0..MAX_WALK {
        if pid <= 1 {
            break;
        }
        let cmdline = read(pid, "cmdline");
        let last = cmdline
            .as_ref()
            .is_none_or(|c| git_amends(&args_of(c), &|_| None, 0).is_some());
        let parent = if last {
            Parent::Unread
        } else {
            read(pid, "stat")
                .and_then(|s| parent_of(&s))
                .map_or(Parent::Unknown, Parent::Is)
        };
        chain.push(Seen {
            pid,
            cmdline,
            parent,
        });
        match parent {
            Parent::Is(p) => pid = p,
            Parent::Unread | Parent::Unknown => break,
        }
    }
    chain
}

/// Walks the ancestors from `first` up to the nearest git process that answers (see
/// [`git_commit_amends`]), taking each process's command line and parent from `ahead` where
/// it was read ahead for that process at that place, and reading the rest.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn walk(
    first: u32,
    ahead: &[Seen],
    read: &dyn Fn(u32, &str) -> Option<Vec<u8>>,
    alias: &dyn Fn(&str) -> Option<String>,
) -> Option<bool> {
    let mut pid = first;
    let mut ahead = ahead.iter();
    for _ in 0..MAX_WALK {
        if pid <= 1 {
            return Some(false);
        }
        let seen = ahead.next().filter(|s| s.pid == pid);
        let cmdline = match seen {
            Some(s) => s.cmdline.clone(),
            None => read(pid, "cmdline"),
        }?;
        if let Some(amends) = git_amends(&args_of(&cmdline), alias, MAX_ALIAS_DEPTH) {
            return Some(amends);
        }
        pid = match seen.map_or(Parent::Unread, |s| s.parent) {
            Parent::Is(parent) => Some(parent),
            Parent::Unknown => None,
            Parent::Unread => read(pid, "stat").and_then(|s| parent_of(&s)),
        }?;
    }
    Some(false)
}

#[cfg(not(target_os = "linux"))]
fn ancestors_amend(_alias: &dyn Fn(&str) -> Option<String>) -> Option<bool> {
    None
}

/// Git's own options before the command; these take the next argument as their value.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const GLOBAL_VALUED: &[&[u8]] = &[
    b"-c",
    b"-C",
    b"--git-dir",
    b"--work-tree",
    b"--namespace",
    b"--super-prefix",
    b"--config-env",
];

/// How many aliases deep an alias is expanded (git refuses a loop; this bounds one).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const MAX_ALIAS_DEPTH: usize = 8;

/// The words of an alias's value as git splits them before running it (review s29 #5): at
/// white space outside quotes; `'…'` keeps everything to the next `'` as it is, `"…"` keeps
/// white space and quotes of the other kind, and a backslash outside single quotes takes
/// the next character as it is (`a\ b` is one word). `None` where git refuses the alias: a
/// quote left open, or a backslash at the end.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn split_alias(value: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = value.trim_start().chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, c) if c.is_ascii_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (Some(q), c) if c == q => quote = None,
            (q, '\\') if q != Some('\'') => {
                word.push(chars.next()?);
                in_word = true;
            }
            (_, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return None;
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

/// `git commit`'s options that take the next argument (or the rest of a short cluster)
/// as their value, which may read `--amend` (a message) without being the option.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const LONG_VALUED: &[&[u8]] = &[
    b"--message",
    b"--file",
    b"--author",
    b"--date",
    b"--fixup",
    b"--squash",
    b"--template",
    b"--cleanup",
    b"--reuse-message",
    b"--reedit-message",
    b"--trailer",
    b"--pathspec-from-file",
];

/// For the command line `args` of a git process (argument 0 named `git`): whether it is
/// `git commit` amending (`--amend`, or a prefix of it down to `--am` as git's option
/// parser accepts, the last of `--amend`/`--no-amend` winning); `false` for any other git
/// command; `None` for `git aahp` and for a process that is not git (look further up).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn git_amends(
    args: &[&[u8]],
    alias: &dyn Fn(&str) -> Option<String>,
    depth: usize,
) -> Option<bool> {
    let program = args.first()?;
    let name = program.rsplit(|&b| b == b'/').next().unwrap_or(program);
    // Git's own dashed form of the command (`$(git --exec-path)/git-commit`, a link to git
    // that runs `commit`, review atk35 #1): its arguments are the command's. Other dashed
    // programs (`git-aahp`, a hook manager named `git-…`) are passed over like any program.
    if name == b"git-commit" {
        return Some(commit_amends(args[1..].iter()));
    }
    if name != b"git" {
        return None;
    }
    let mut rest = args[1..].iter();
    let command = loop {
        let arg = rest.next()?;
        if GLOBAL_VALUED.contains(arg) {
            rest.next();
        } else if !arg.starts_with(b"-") {
            break *arg;
        }
    };
    match command {
        b"aahp" => return None,
        b"commit" => {}
        other => {
            let expansion = std::str::from_utf8(other)
                .ok()
                .and_then(alias)
                .filter(|e| !e.trim_start().starts_with('!'));
            let Some(expansion) = expansion.filter(|_| depth > 0) else {
                return Some(false);
            };
            // An alias git cannot split fails before any hook runs.
            let Some(words) = split_alias(&expansion) else {
                return Some(false);
            };
            let mut expanded: Vec<&[u8]> = vec![b"git"];
            expanded.extend(words.iter().map(String::as_bytes));
            expanded.extend(rest.copied());
            return git_amends(&expanded, alias, depth - 1);
        }
    }
    Some(commit_amends(rest))
}

/// Whether `git commit`'s arguments `rest` (after the command's name) amend: `--amend`, or a
/// prefix of it down to `--am` as git's option parser accepts, the last of
/// `--amend`/`--no-amend` winning.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn commit_amends<'a>(mut rest: impl Iterator<Item = &'a &'a [u8]>) -> bool {
    let is_prefix = |arg: &[u8], of: &[u8], min: usize| arg.len() >= min && of.starts_with(arg);
    let mut amends = false;
    while let Some(arg) = rest.next() {
        if *arg == b"--" {
            break;
        }
        if is_prefix(arg, b"--amend", 4) {
            amends = true;
        } else if is_prefix(arg, b"--no-amend", 7) {
            amends = false;
        } else if LONG_VALUED.contains(arg) {
            rest.next();
        } else if let Some(cluster) = arg.strip_prefix(b"-").filter(|c| !c.starts_with(b"-")) {
            // `-am MSG`: the first option letter that takes a value takes the rest of the
            // cluster, or the next argument when it ends the cluster.
            if let Some(at) = cluster.iter().position(|b| b"mFcCt".contains(b))
                && at + 1 == cluster.len()
            {
                rest.next();
            }
        }
    }
    amends
}

#[cfg(test)]
mod tests {
    use super::*;

    fn amends(line: &str) -> Option<bool> {
        let args: Vec<&[u8]> = line.split(' ').map(str::as_bytes).collect();
        let alias = |name: &str| {
            Some(
                match name {
                    "ca" => "commit --amend",
                    "cm" => "commit -m",
                    "again" => "ca --no-edit",
                    "loop" => "loop",
                    "sh" => "!git commit --amend",
                    "said" => "commit -m 'do not --amend'",
                    "quoted" => "'commit' \"--amend\"",
                    "spaced" => "commit -m a\\ --amend",
                    "inner" => "commit -m \"it's \\\" --amend\" -q",
                    "open" => "commit --amend -m 'x",
                    _ => return None,
                }
                .to_string(),
            )
        };
        git_amends(&args, &alias, MAX_ALIAS_DEPTH)
    }

    /// The command lines git, hook managers and users give, read as git reads them.
    #[test]
    fn amending_is_read_from_git_commits_command_line() {
        for (line, want) in [
            ("git commit --amend", Some(true)),
            ("/usr/bin/git commit -q --amend --no-edit", Some(true)),
            (
                "git -c core.hooksPath=h -C sub commit --amen -m x",
                Some(true),
            ),
            ("git commit --am", Some(true)),
            ("git commit --amend --no-amend", Some(false)),
            ("git commit -m --amend", Some(false)),
            ("git commit -am --amend", Some(false)),
            ("git commit --message --amend", Some(false)),
            ("git commit -- --amend", Some(false)),
            ("git commit -a", Some(false)),
            ("git merge --continue", Some(false)),
            ("git aahp hook pre-commit", None),
            ("git -C x aahp hook pre-commit", None),
            ("sh .git/hooks/pre-commit", None),
            ("gitk --amend", None),
            // Git's dashed form runs the command itself (review atk35 #1).
            (
                "/usr/lib/git-core/git-commit -q --amend --no-edit",
                Some(true),
            ),
            ("git-commit -m x", Some(false)),
            ("/usr/libexec/git-core/git-aahp hook pre-commit", None),
            ("git-lfs pre-push origin", None),
            // Aliases git expands in its own process.
            ("git ca", Some(true)),
            ("git -C x ca -m y", Some(true)),
            ("git again", Some(true)),
            ("git cm --amend", Some(false)),
            ("git cm x --amend", Some(true)),
            ("git loop", Some(false)),
            ("git sh", Some(false)),
            // Split as git splits an alias: quotes and backslashes keep a word whole.
            ("git said", Some(false)),
            ("git said --amend", Some(true)),
            ("git quoted", Some(true)),
            ("git spaced", Some(false)),
            ("git inner", Some(false)),
            ("git open", Some(false)),
        ] {
            assert_eq!(amends(line), want, "{line}");
        }
    }

    /// An alias's value is split into the words git gives the command.
    #[test]
    fn aliases_split_as_git_splits_them() {
        let words = |v: &str| split_alias(v).map(|w| w.join("|"));
        assert_eq!(
            words("commit  --amend\t-m x").as_deref(),
            Some("commit|--amend|-m|x")
        );
        assert_eq!(words("commit -m 'a b'").as_deref(), Some("commit|-m|a b"));
        assert_eq!(
            words(r#"commit -m "a \"b\" 'c'""#).as_deref(),
            Some(r#"commit|-m|a "b" 'c'"#)
        );
        assert_eq!(words(r"commit -m 'a\b'").as_deref(), Some(r"commit|-m|a\b"));
        assert_eq!(words(r"commit -m a\ b").as_deref(), Some("commit|-m|a b"));
        assert_eq!(words("commit -m ''").as_deref(), Some("commit|-m|"));
        assert_eq!(words("commit -m 'open"), None);
        assert_eq!(words("commit -m x\\"), None);
    }

    /// The ancestors read ahead answer what the walk reading each one itself answers, over
    /// process trees a hook runs in (by git, by hand, through an alias git expands, one that
    /// runs `git aahp` itself, a hook manager between, entries that cannot be read, a tree
    /// past the walk's bound), and also when the process's parent changed after the reading
    /// ahead; what was read ahead is not read again.
    #[test]
    fn ancestors_read_ahead_answer_as_the_walk_reads_them() {
        // pid -> (command line, parent); a missing command line or parent is unreadable.
        type Tree = Vec<(u32, Option<&'static str>, Option<u32>)>;
        // Reads a tree's `/proc` files, counting the reads.
        fn reader<'t>(
            tree: &'t Tree,
            reads: &'t std::cell::Cell<usize>,
        ) -> impl Fn(u32, &str) -> Option<Vec<u8>> + 't {
            move |pid, file| {
                reads.set(reads.get() + 1);
                let (_, cmdline, parent) = tree.iter().find(|t| t.0 == pid)?;
                match file {
                    "cmdline" => cmdline.map(|c| c.replace(' ', "\0").into_bytes()),
                    _ => parent.map(|p| format!("{pid} (x) S {p} 1 1 0\n").into_bytes()),
                }
            }
        }
        let alias = |name: &str| {
            Some(
                match name {
                    "ca" => "commit --amend",
                    "hk" => "aahp hook pre-commit",
                    _ => return None,
                }
                .to_string(),
            )
        };
        let deep: Tree = (2..100)
            .map(|p| (p, Some("sh -c next"), Some(p - 1)))
            .collect();
        let trees: Vec<(&str, Tree)> = vec![
            (
                "by hand",
                vec![
                    (40, Some("git -C x aahp hook pre-commit"), Some(30)),
                    (30, Some("hyperfine -N x"), Some(20)),
                    (20, Some("bash"), Some(10)),
                    (10, Some("sshd: root"), Some(1)),
                ],
            ),
            (
                "git commit --amend",
                vec![
                    (40, Some("git aahp hook pre-commit"), Some(30)),
                    (30, Some("/bin/sh .git/hooks/pre-commit"), Some(20)),
                    (20, Some("git commit --amend -m x"), Some(10)),
                    (10, Some("bash"), Some(1)),
                ],
            ),
            (
                "a hook manager",
                vec![
                    (40, Some("git aahp hook pre-commit"), Some(30)),
                    (30, Some("node husky"), Some(25)),
                    (25, Some("sh -c x"), Some(20)),
                    (20, Some("git commit -q"), Some(10)),
                    (10, Some("bash"), Some(1)),
                ],
            ),
            (
                "an alias",
                vec![
                    (40, Some("git aahp hook pre-commit"), Some(20)),
                    (20, Some("git ca"), Some(10)),
                    (10, Some("bash"), Some(1)),
                ],
            ),
            (
                "an alias running git aahp",
                vec![
                    (40, Some("git hk"), Some(20)),
                    (20, Some("sh"), Some(15)),
                    (15, Some("git commit --amend"), Some(10)),
                    (10, Some("bash"), Some(1)),
                ],
            ),
            (
                "a command line unreadable",
                vec![
                    (40, Some("git aahp hook pre-commit"), Some(30)),
                    (30, None, Some(20)),
                    (20, Some("git commit --amend"), Some(1)),
                ],
            ),
            (
                "a parent unreadable",
                vec![
                    (40, Some("git aahp hook pre-commit"), Some(30)),
                    (30, Some("sh"), None),
                    (20, Some("git commit --amend"), Some(1)),
                ],
            ),
            ("past the bound", deep),
        ];
        for (what, tree) in &trees {
            let reads = std::cell::Cell::new(0);
            let read = reader(tree, &reads);
            let first = tree[0].0;
            let live = walk(first, &[], &read, &alias);
            let ahead = read_ahead(first, &read);
            reads.set(0);
            assert_eq!(walk(first, &ahead, &read, &alias), live, "{what}");
            if *what != "an alias running git aahp" {
                assert_eq!(reads.get(), 0, "{what}: read again");
            }
            // Read ahead for another process (the parent changed since): read as it is now.
            let moved = read_ahead(tree[1].0, &read);
            assert_eq!(walk(first, &moved, &read, &alias), live, "{what}: moved");
        }
        let answer = |what: &str| {
            let tree = &trees.iter().find(|t| t.0 == what).unwrap().1;
            let reads = std::cell::Cell::new(0);
            let read = reader(tree, &reads);
            walk(tree[0].0, &read_ahead(tree[0].0, &read), &read, &alias)
        };
        for (what, want) in [
            ("by hand", Some(false)),
            ("git commit --amend", Some(true)),
            ("a hook manager", Some(false)),
            ("an alias", Some(true)),
            ("an alias running git aahp", Some(true)),
            ("a command line unreadable", None),
            ("a parent unreadable", None),
            ("past the bound", Some(false)),
        ] {
            assert_eq!(answer(what), want, "{what}");
        }
    }

    /// Fields are found after a name holding spaces and parentheses, and a short or garbled
    /// line gives no number rather than a wrong one.
    #[test]
    fn fields_are_counted_after_the_name() {
        let tail = (3..=52)
            .map(|f| f.to_string())
            .collect::<Vec<_>>()
            .join(" ");
        let line = format!("4242 (odd) name ) (x) {tail}\n");
        assert_eq!(stat_field(line.as_bytes(), 39), Some(39));
        assert_eq!(stat_field(line.as_bytes(), 4), Some(4));
        assert_eq!(stat_field(b"77 (a (b) c) S 41 77 77 0", 4), Some(41));
        assert_eq!(stat_field(b"4242 (short) S 1 2 3\n", 39), None);
        assert_eq!(stat_field(b"no name at all", 4), None);
        assert_eq!(stat_field(b"1 (x) S 0", 2), None);
        let garbled = line.replace(" 39 ", " -1 ");
        assert_eq!(stat_field(garbled.as_bytes(), 39), None);
    }
}
