//! What a package script, a make target, a just recipe or a task runs, for
//! [`super::agent_runs::follow`]: the runner a command starts ([`runner_of`]) and the
//! commands the files holding its recipe run for it ([`expand`]), each with the directory it
//! runs in. Files are read only through [`Files`], which counts them toward the walk's bound;
//! what a recipe names by a variable is left as written, for the walk to say.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde_json::Value;

/// The files of the repository a recipe is read from.
pub(crate) trait Files {
    /// The text of `path`, `None` when the tree does not hold it.
    fn text(&mut self, path: &str) -> Option<Rc<str>>;
    /// Counts `bytes` of work (a recipe expanded, a file parsed) toward the walk's bound.
    fn charge(&mut self, bytes: usize);
    /// The files of the tree `pattern` (a path with `*`, `?` or `[…]`) matches.
    fn matching(&mut self, pattern: &str) -> Vec<String>;
    /// True when the walk has done all the work it may: a recipe stops expanding (the walk
    /// says where it stopped).
    fn exhausted(&self) -> bool;
    /// Records that the file at `path`, which the runner reads, cannot be read as it reads
    /// it (`why`, at `line`): the walk is refused then, naming it, rather than passing what
    /// the file runs unread.
    fn refuse(&mut self, path: &str, line: usize, why: String);
}

/// A command that runs what a file of the repository names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Runner {
    /// `npm run x` (pnpm, yarn, bun): the script `x` of the packages' `package.json`.
    Package {
        dir: String,
        packages: Packages,
        script: String,
    },
    /// `npm install`, `npm ci`: the lifecycle scripts the packages hold.
    Install { dir: String },
    /// `npx x`, `npm exec x`, `pnpm exec x`: the program `x` a package of the repository
    /// declares in its `bin`; none when no package does (one from the registry).
    Bin { dir: String, name: String },
    /// `make x y` (`-C dir`, `-f file`): the targets of the Makefile; the default goal for none.
    Make {
        dir: String,
        file: Option<String>,
        targets: Vec<String>,
        /// The makefiles the `MAKEFILES` environment variable names, read with it.
        extra: Vec<String>,
    },
    /// `just x` (`-f file`, `-d dir`): the recipe of the justfile; the first for none.
    /// `just m x` runs the recipe `x` of the module `m` (`then`).
    Just {
        dir: String,
        file: Option<String>,
        recipe: Option<String>,
        then: Option<String>,
    },
    /// `task x y` (`-t file`, `-d dir`): the tasks of the Taskfile; `default` for none.
    Task {
        dir: String,
        file: Option<String>,
        tasks: Vec<String>,
    },
}

/// Which packages a package manager's command runs a script of.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Packages {
    /// The package in the directory it runs in.
    Here,
    /// One workspace, by its name or directory (`npm -w x`, `yarn workspace x`).
    Named(String),
    /// Every workspace that has the script (`npm -ws`, `pnpm -r`).
    All,
}

/// Why a runner's recipe cannot be followed; `unread` when the gate could have read it but
/// did not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lost {
    pub(crate) why: String,
    pub(crate) unread: bool,
}

fn lost(why: String) -> Lost {
    Lost { why, unread: false }
}

/// What a runner runs: the files read for it (recipes a change to which changes what runs)
/// and its commands, each with the directory it runs in.
#[derive(Debug, Default)]
pub(crate) struct Recipe {
    pub(crate) files: Vec<String>,
    pub(crate) commands: Vec<(String, String)>,
    /// Directories its commands' relative paths are looked up from too: an included
    /// Taskfile's own, where Task since 3.35 runs its tasks (before, where the including
    /// one runs).
    pub(crate) also: Vec<String>,
    /// What the runner reads that the gate cannot follow (a file included by a variable's
    /// name, one the repository does not hold), each a reason the walk says.
    pub(crate) said: Vec<String>,
}

/// Sub-commands of the package managers that are not a script's name.
const PACKAGE_BUILTINS: &[&str] = &[
    "install",
    "i",
    "ci",
    "add",
    "remove",
    "rm",
    "un",
    "uninstall",
    "update",
    "up",
    "upgrade",
    "exec",
    "dlx",
    "x",
    "create",
    "init",
    "link",
    "unlink",
    "publish",
    "pack",
    "config",
    "cache",
    "info",
    "why",
    "list",
    "ls",
    "outdated",
    "audit",
    "import",
    "global",
    "bin",
    "store",
    "help",
    "version",
    "set",
    "plugin",
    "workspace",
    "workspaces",
    "node",
    "patch",
    "rebuild",
    "prune",
    "fetch",
    "deploy",
    "env",
    "setup",
    "login",
    "logout",
    "whoami",
    "npx",
    "view",
];

/// Options of the runners that take a value which is no directory or file of theirs.
const VALUED: &[&str] = &[
    "--loglevel",
    "--registry",
    "--tag",
    "--scope",
    "-j",
    "--jobs",
    "-l",
    "--load-average",
    "-o",
    "--old-file",
    "-W",
    "--what-if",
    "--assume-new",
    "-I",
    "--include-dir",
    "--set",
    "--output",
    "-p",
    "--package",
];

/// The runner `words` (a command from its program on: `npm run x`, `make -C d t`) start in
/// `cwd`, if it is one.
pub(crate) fn runner_of(words: &[String], cwd: &str) -> Option<Runner> {
    let program = super::agent_runs::program(words.first()?);
    let task = matches!(program, "task" | "go-task");
    let just = program == "just";
    let make = matches!(program, "make" | "gmake");
    let node = matches!(
        program,
        "npm" | "pnpm" | "yarn" | "bun" | "npx" | "pnpx" | "bunx"
    );
    let join = |base: &str, d: &str| crate::handoff::resolve_link(base, d);
    let mut dir = cwd.to_string();
    let mut file = None;
    let mut positional: Vec<String> = Vec::new();
    let mut packages = Packages::Here;
    let mut rest = words[1..].iter();
    while let Some(w) = rest.next() {
        let (key, inline) = match w.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k, Some(v.to_string())),
            _ => (w.as_str(), None),
        };
        let value = |rest: &mut std::slice::Iter<'_, String>| {
            inline.clone().or_else(|| rest.next().cloned())
        };
        match key {
            // What follows is the script's or the task's own arguments.
            "--" => break,
            "-t" | "--taskfile" if task => file = value(&mut rest),
            "-f" | "--file" | "--makefile" | "--justfile" if make || just => {
                file = value(&mut rest);
            }
            "-C" | "--directory" if make => {
                if let Some(d) = value(&mut rest).and_then(|d| join(&dir, &d)) {
                    dir = d;
                }
            }
            "-d" | "--dir" if task => {
                if let Some(d) = value(&mut rest).and_then(|d| join(&dir, &d)) {
                    dir = d;
                }
            }
            "-d" | "--working-directory" if just => {
                if let Some(d) = value(&mut rest).and_then(|d| join(&dir, &d)) {
                    dir = d;
                }
            }
            "-C" | "--prefix" | "--cwd" | "--dir" | "--directory" if node => {
                if let Some(d) = value(&mut rest).and_then(|d| join(&dir, &d)) {
                    dir = d;
                }
            }
            "-w" | "--workspace" | "-F" | "--filter" if node => {
                if let Some(n) = value(&mut rest) {
                    packages = Packages::Named(n);
                }
            }
            "-ws" | "--workspaces" | "-r" | "--recursive" if node => packages = Packages::All,
            // `npx -p pkg cmd`: the package, then the program.
            k if VALUED.contains(&k) => {
                if inline.is_none() {
                    // `make -j` takes a number when one follows.
                    let optional = matches!(k, "-j" | "--jobs" | "-l" | "--load-average");
                    if !optional
                        || rest
                            .as_slice()
                            .first()
                            .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit() || c == '.'))
                    {
                        rest.next();
                    }
                }
            }
            k if k.starts_with('-') => {}
            // `make X=1 t`, `task t X=1`: variables, not targets.
            w if w
                .split_once('=')
                .is_some_and(|(n, _)| super::agent_runs::is_name(n)) => {}
            w => positional.push(w.to_string()),
        }
    }
    let first = positional.first().map(String::as_str);
    Some(match program {
        "npx" | "pnpx" | "bunx" => Runner::Bin {
            dir,
            name: positional.into_iter().next()?,
        },
        "npm" | "pnpm" | "yarn" | "bun" => {
            let named = |s: &str| Runner::Package {
                dir: dir.clone(),
                packages: packages.clone(),
                script: s.to_string(),
            };
            match first {
                Some("run" | "run-script" | "rum" | "urn") => named(positional.get(1)?),
                Some(s @ ("test" | "start" | "stop" | "restart")) => named(s),
                Some("t" | "tst") => named("test"),
                Some("install" | "i" | "ci" | "it" | "install-test") if positional.len() == 1 => {
                    Runner::Install { dir }
                }
                None if program == "yarn" => Runner::Install { dir },
                Some("exec" | "x") => Runner::Bin {
                    dir,
                    name: positional.get(1)?.clone(),
                },
                Some("workspace") if program == "yarn" => Runner::Package {
                    dir: dir.clone(),
                    packages: Packages::Named(positional.get(1)?.clone()),
                    script: match positional.get(2)?.as_str() {
                        "run" => positional.get(3)?.clone(),
                        s => s.to_string(),
                    },
                },
                // `yarn workspaces foreach -A run x`.
                Some("workspaces") if program == "yarn" && positional.get(1)? == "foreach" => {
                    Runner::Package {
                        dir: dir.clone(),
                        packages: Packages::All,
                        script: positional.iter().skip(2).find(|w| *w != "run")?.clone(),
                    }
                }
                Some(s)
                    if program != "npm"
                        && !PACKAGE_BUILTINS.contains(&s)
                        && !s.contains(['/', '.']) =>
                {
                    named(s)
                }
                _ => return None,
            }
        }
        "make" | "gmake" => Runner::Make {
            dir,
            file,
            targets: positional,
            extra: Vec::new(),
        },
        "just" => Runner::Just {
            dir,
            file,
            then: positional.get(1).cloned(),
            recipe: positional.into_iter().next(),
        },
        _ if task => Runner::Task {
            dir,
            file,
            tasks: positional,
        },
        _ => return None,
    })
}

/// Where a runner looks, for a reason: "in `pkg`", or at the repository's root.
fn at_dir(dir: &str) -> String {
    if dir.is_empty() {
        "at the repository's root".to_string()
    } else {
        format!("in `{dir}`")
    }
}

/// The commands `runner` runs, read through `files`; `Err` says why they cannot be known.
pub(crate) fn expand(runner: &Runner, files: &mut dyn Files) -> Result<Recipe, Lost> {
    match runner {
        Runner::Package {
            dir,
            packages,
            script,
        } => {
            let dir = &nearest_package(dir, files);
            let mut recipe = package_scripts(dir, packages, script, files)?;
            npmrc(dir, files, &mut recipe);
            Ok(recipe)
        }
        Runner::Install { dir } => {
            let dir = &nearest_package(dir, files);
            let mut recipe = install_scripts(dir, files);
            npmrc(dir, files, &mut recipe);
            Ok(recipe)
        }
        Runner::Bin { dir, name } => Ok(bin(&nearest_package(dir, files), name, files)),
        Runner::Make {
            dir,
            file,
            targets,
            extra,
        } => {
            let (path, text) = first_readable(dir, file.as_deref(), MAKEFILES, files)
                .ok_or_else(|| lost(format!("no Makefile {}", at_dir(dir))))?;
            let mut made = Makefile::read(&path, &text, dir, false, files);
            // make reads the makefiles `MAKEFILES` names too (never for its default goal;
            // one that is not there is passed over), their rules and what they evaluate.
            for x in extra {
                if let Some(t) = files.text(x) {
                    made.add(x, &t, files, 0);
                }
            }
            let commands = made
                .commands(targets, files)
                .map_err(|t| lost(format!("`{path}` has no rule `{t}`")))?;
            // What make evaluates as it reads the files (`$(shell …)`, `$(file <…)`) runs
            // before any rule; a `SHELL` the Makefile sets runs every recipe line.
            let shell = made
                .vars
                .get("SHELL")
                .map(|v| made.expand_vars(v, None))
                .and_then(|v| v.split_whitespace().next().map(crate::output::shell_word));
            Ok(Recipe {
                commands: made
                    .reads
                    .iter()
                    .chain(&shell)
                    .chain(&commands)
                    .map(|c| (dir.clone(), c.clone()))
                    .collect(),
                files: made.files,
                said: made.lost,
                ..Recipe::default()
            })
        }
        Runner::Just {
            dir,
            file,
            recipe,
            then,
        } => {
            let (path, text) = first_readable(dir, file.as_deref(), JUSTFILES, files)
                .ok_or_else(|| lost(format!("no justfile {}", at_dir(dir))))?;
            // just runs a recipe in the justfile's directory.
            let here = parent(&path).to_string();
            let made = Makefile::read(&path, &text, &here, true, files);
            // `just m x`: the recipe `x` of the module `m`.
            let recipe = match (recipe, then) {
                (Some(m), Some(x)) if made.modules.iter().any(|(n, _)| n == m) => {
                    Some(format!("{m}::{x}"))
                }
                (r, _) => r.clone(),
            };
            let targets: Vec<String> = recipe.into_iter().collect();
            let commands = made
                .commands(&targets, files)
                .map_err(|t| lost(format!("`{path}` has no recipe `{t}`")))?;
            Ok(Recipe {
                files: made.files,
                commands: made
                    .reads
                    .into_iter()
                    .chain(commands)
                    .map(|c| (here.clone(), c))
                    .collect(),
                // A module's recipes run in its own directory.
                also: made.modules.into_iter().map(|(_, d)| d).collect(),
                said: made.lost,
            })
        }
        Runner::Task { dir, file, tasks } => {
            let (path, _) = first_readable(dir, file.as_deref(), TASKFILES, files)
                .ok_or_else(|| lost(format!("no Taskfile {}", at_dir(dir))))?;
            Taskfiles::new(&path).commands(tasks, files)
        }
    }
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The names make looks for, in its order.
const MAKEFILES: &[&str] = &["GNUmakefile", "makefile", "Makefile"];

/// The names just looks for.
const JUSTFILES: &[&str] = &["justfile", "Justfile", ".justfile", "JUSTFILE"];

/// The names Task looks for, in its order.
const TASKFILES: &[&str] = &[
    "Taskfile.yml",
    "taskfile.yml",
    "Taskfile.yaml",
    "taskfile.yaml",
    "Taskfile.dist.yml",
    "taskfile.dist.yml",
    "Taskfile.dist.yaml",
    "taskfile.dist.yaml",
];

/// The file a runner reads in `dir`: the one `given`, else the first of `names` the tree
/// holds.
fn first_readable(
    dir: &str,
    given: Option<&str>,
    names: &[&str],
    files: &mut dyn Files,
) -> Option<(String, Rc<str>)> {
    let names: Vec<&str> = given.map_or_else(|| names.to_vec(), |n| vec![n]);
    names.into_iter().find_map(|n| {
        let path = crate::handoff::resolve_link(dir, n)?;
        files.text(&path).map(|t| (path, t))
    })
}

/// The package a package manager started in `dir` works on: the nearest directory from
/// `dir` up to the repository's root that holds a `package.json`, as npm (pnpm, yarn, bun)
/// walks up to it (review atk32 #11: `cd tools/sub && npm run x` runs the root's script);
/// `dir` itself when none does.
fn nearest_package(dir: &str, files: &mut dyn Files) -> String {
    let mut at = dir;
    loop {
        if files
            .text(&crate::handoff::location::join(at, "package.json"))
            .is_some()
        {
            return at.to_string();
        }
        if at.is_empty() {
            return dir.to_string();
        }
        at = parent(at);
    }
}

/// `package.json` of the package directory `dir`, read as npm reads it (charged as parsed):
/// a byte-order mark skipped, numbers past a double's range, lone surrogates and deep
/// nesting read as the agent configurations' JSON is ([`super::json::read_jsonc`]). One
/// that cannot be read so is refused ([`Files::refuse`]), never taken for no file (review
/// atk31 #9).
pub(crate) fn package_json(dir: &str, files: &mut dyn Files) -> Option<(String, Value)> {
    let path = crate::handoff::location::join(dir, "package.json");
    let text = files.text(&path)?;
    files.charge(text.len());
    match super::json::read_jsonc(text.strip_prefix('\u{feff}').unwrap_or(&text)) {
        Ok(v) => Some((path, v)),
        Err(e) => {
            files.refuse(&path, e.line, e.why);
            None
        }
    }
}

/// The workspaces of the package at `dir` (`workspaces` of its `package.json`, `packages`
/// of `pnpm-workspace.yaml`): each one's name and directory, found by matching the patterns
/// against the tree once each.
fn workspaces(dir: &str, files: &mut dyn Files) -> Vec<(String, String)> {
    let mut patterns: Vec<String> = Vec::new();
    if let Some((_, v)) = package_json(dir, files) {
        let list = match v.get("workspaces") {
            Some(Value::Object(o)) => o.get("packages").cloned(),
            other => other.cloned(),
        };
        patterns.extend(super::agent_runs::words(list.as_ref()));
    }
    let pnpm = crate::handoff::location::join(dir, "pnpm-workspace.yaml");
    if let Some(text) = files.text(&pnpm) {
        files.charge(text.len());
        if let Some(v) = super::agent_runs::yaml_value(&text) {
            patterns.extend(super::agent_runs::words(v.get("packages")));
        }
    }
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for pattern in patterns.iter().filter(|p| !p.starts_with('!')) {
        let Some(base) = crate::handoff::resolve_link(dir, pattern.trim_end_matches('/')) else {
            continue;
        };
        let manifest = crate::handoff::location::join(&base, "package.json");
        let found = if super::agent_runs::has_glob(&manifest) {
            files.matching(&manifest)
        } else {
            vec![manifest]
        };
        for path in found {
            let package = parent(&path).to_string();
            if !seen.insert(package.clone()) {
                continue;
            }
            if let Some((_, v)) = package_json(&package, files) {
                let name = v.get("name").and_then(Value::as_str).unwrap_or("");
                out.push((name.to_string(), package));
            }
        }
    }
    out
}

/// The directories of `packages`, from the package at `dir`.
fn package_dirs(
    dir: &str,
    packages: &Packages,
    files: &mut dyn Files,
) -> Result<Vec<String>, Lost> {
    match packages {
        Packages::Here => Ok(vec![dir.to_string()]),
        Packages::All => Ok(workspaces(dir, files).into_iter().map(|(_, d)| d).collect()),
        Packages::Named(n) => {
            // pnpm's filters: `pkg...`, `...pkg`, `{./dir}`, `./dir`.
            let n = n.strip_suffix("...").unwrap_or(n);
            let n = n.strip_prefix("...").unwrap_or(n).trim_start_matches('^');
            let n = n.trim_start_matches('{').trim_end_matches('}');
            let path_like = n.starts_with("./") || (n.contains('/') && !n.starts_with('@'));
            if path_like
                && let Some(d) = crate::handoff::resolve_link(dir, n)
                && files
                    .text(&crate::handoff::location::join(&d, "package.json"))
                    .is_some()
            {
                return Ok(vec![d]);
            }
            workspaces(dir, files)
                .into_iter()
                .find(|(name, d)| name == n || d.rsplit('/').next() == Some(n))
                .map(|(_, d)| vec![d])
                .ok_or_else(|| lost(format!("no workspace `{n}` of the package {}", at_dir(dir))))
        }
    }
}

/// The commands `npm run script` runs in the packages: the script, and `preX` and `postX`
/// around it (npm's `start` with none: `node server.js`, when the package holds it).
fn package_scripts(
    dir: &str,
    packages: &Packages,
    script: &str,
    files: &mut dyn Files,
) -> Result<Recipe, Lost> {
    let mut recipe = Recipe::default();
    for package in package_dirs(dir, packages, files)? {
        let Some((path, v)) = package_json(&package, files) else {
            if *packages == Packages::All {
                continue;
            }
            return Err(lost(if *packages == Packages::Here && package.is_empty() {
                "no `package.json` at the repository's root".to_string()
            } else if *packages == Packages::Here {
                format!("no `package.json` in `{package}` or a directory above it")
            } else {
                format!(
                    "no `{}`",
                    crate::handoff::location::join(&package, "package.json")
                )
            }));
        };
        recipe.files.push(path.clone());
        let scripts = v.get("scripts");
        let main = scripts.and_then(|s| s.get(script)).and_then(Value::as_str);
        let Some(main) = main else {
            let server = crate::handoff::location::join(&package, "server.js");
            if script == "start" && files.text(&server).is_some() {
                recipe
                    .commands
                    .push((package.clone(), "node server.js".into()));
                continue;
            }
            if *packages == Packages::All {
                continue;
            }
            return Err(lost(format!("`{path}` holds no script `{script}`")));
        };
        for name in [
            format!("pre{script}"),
            script.to_string(),
            format!("post{script}"),
        ] {
            let c = if name == script {
                Some(main)
            } else {
                scripts.and_then(|s| s.get(&name)).and_then(Value::as_str)
            };
            if let Some(c) = c {
                recipe.commands.push((package.clone(), c.to_string()));
            }
        }
    }
    Ok(recipe)
}

/// What the project's `.npmrc` at `dir` makes npm (pnpm reads it too) run around every
/// script (review atk31 #8): the shell it runs scripts with (`script-shell`) and the
/// modules every node it starts loads first (`node-options=--require ./x.js`), each a
/// command line of its own; the file becomes one of the recipe's.
fn npmrc(dir: &str, files: &mut dyn Files, recipe: &mut Recipe) {
    let path = crate::handoff::location::join(dir, ".npmrc");
    let Some(text) = files.text(&path) else {
        return;
    };
    files.charge(text.len());
    recipe.files.push(path);
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with(['#', ';']) {
            continue;
        }
        let Some((key, value)) = super::agent_runs::key_value(line) else {
            continue;
        };
        let key = key.to_ascii_lowercase().replace('_', "-");
        match key.as_str() {
            "script-shell" if !value.is_empty() => recipe
                .commands
                .push((dir.to_string(), crate::output::shell_word(value))),
            "node-options" if !value.is_empty() => recipe
                .commands
                .push((dir.to_string(), format!("node {value}"))),
            _ => {}
        }
    }
}

/// What `npm install` runs of the package at `dir` and its workspaces: their lifecycle
/// scripts.
fn install_scripts(dir: &str, files: &mut dyn Files) -> Recipe {
    const LIFECYCLE: &[&str] = &[
        "preinstall",
        "install",
        "postinstall",
        "prepublish",
        "preprepare",
        "prepare",
        "postprepare",
    ];
    let mut recipe = Recipe::default();
    let mut dirs = vec![dir.to_string()];
    dirs.extend(workspaces(dir, files).into_iter().map(|(_, d)| d));
    for package in dirs {
        let Some((path, v)) = package_json(&package, files) else {
            continue;
        };
        recipe.files.push(path);
        for name in LIFECYCLE {
            if let Some(c) = v
                .pointer(&format!("/scripts/{name}"))
                .and_then(Value::as_str)
            {
                recipe.commands.push((package.clone(), c.to_string()));
            }
        }
    }
    recipe
}

/// What `npx name` runs from the repository: the file a package of it (the one at `dir`,
/// or a workspace) declares as its program `name`.
fn bin(dir: &str, name: &str, files: &mut dyn Files) -> Recipe {
    // `npx pkg@1.2`: a version from the registry.
    let name = name.split('@').find(|p| !p.is_empty()).unwrap_or(name);
    let mut dirs = vec![dir.to_string()];
    dirs.extend(workspaces(dir, files).into_iter().map(|(_, d)| d));
    for package in dirs {
        let Some((path, v)) = package_json(&package, files) else {
            continue;
        };
        let own = v.get("name").and_then(Value::as_str).unwrap_or("");
        let target = match v.get("bin") {
            Some(Value::String(b)) if own.rsplit('/').next() == Some(name) || own == name => {
                Some(b.clone())
            }
            Some(Value::Object(map)) => map.get(name).and_then(Value::as_str).map(str::to_string),
            _ => None,
        };
        if let Some(target) = target {
            return Recipe {
                files: vec![path],
                commands: vec![(package, format!("./{}", target.trim_start_matches("./")))],
                ..Recipe::default()
            };
        }
    }
    // npm looks in `node_modules/.bin` of the directory and each above it (review atk34
    // #7): a program kept there in the repository is the one it runs.
    if !name.contains(['/', '\\', '$', '`']) {
        for d in ancestors(dir) {
            let program = crate::handoff::location::join(&d, &format!("node_modules/.bin/{name}"));
            if files.text(&program).is_some() {
                return Recipe {
                    commands: vec![(d, format!("./node_modules/.bin/{name}"))],
                    ..Recipe::default()
                };
            }
        }
    }
    Recipe::default()
}

/// `dir` and each directory above it, to the repository's top (`""`).
pub(crate) fn ancestors(dir: &str) -> Vec<String> {
    let mut out = vec![dir.to_string()];
    let mut d = dir;
    while !d.is_empty() {
        d = d.rsplit_once('/').map_or("", |(p, _)| p);
        out.push(d.to_string());
    }
    out
}

/// Work a variable's expansion may do, in bytes written, per line: far above a real
/// recipe's, and a bound on what a variable that names itself many times asks for.
const MAX_EXPANDED: usize = 64 * 1024;

/// How deep a variable's value is expanded within another's.
const MAX_VARIABLE_DEPTH: usize = 8;

/// A Makefile (or justfile) read for its rules: the included files read in, its variables
/// and the goal it runs by default.
#[derive(Debug, Default)]
struct Makefile {
    /// (names, prerequisites, recipe lines) of each rule, in order.
    rules: Vec<(Vec<String>, Vec<String>, Vec<String>)>,
    vars: HashMap<String, String>,
    default_goal: Option<String>,
    /// The files read: the Makefile and those it includes.
    files: Vec<String>,
    just: bool,
    /// The directory make runs in (what `$(CURDIR)` names, where `include` looks).
    dir: String,
    /// The commands make runs as it reads the files: each `$(shell …)` outside a recipe,
    /// and a `cat` of each file `$(file <…)` reads there.
    reads: Vec<String>,
    /// What it reads that the gate cannot follow, each a reason.
    lost: Vec<String>,
    /// The modules of a justfile (`mod m`): each one's name and directory.
    modules: Vec<(String, String)>,
    /// The module whose rules are being read (`m::`), empty for the justfile's own.
    prefix: String,
}

/// How deep `include` is followed.
const MAX_INCLUDE_DEPTH: usize = 8;

impl Makefile {
    fn read(path: &str, text: &str, dir: &str, just: bool, files: &mut dyn Files) -> Makefile {
        let mut m = Makefile {
            just,
            dir: dir.to_string(),
            ..Makefile::default()
        };
        m.add(path, text, files, 0);
        m
    }

    /// Reads the rules, variables and includes of `text` (the file at `path`).
    fn add(&mut self, path: &str, text: &str, files: &mut dyn Files, depth: usize) {
        static ASSIGN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(
                r"^(?:(?:override|export)\s+)?([A-Za-z_.][A-Za-z0-9_.-]*)\s*(\?|:{1,3}|\+|!)?=\s*(.*)$",
            )
            .expect("a valid regex")
        });
        if self.files.iter().any(|f| f == path) {
            return;
        }
        self.files.push(path.to_string());
        files.charge(text.len());
        let here = parent(path).to_string();
        let mut joined = String::new();
        for raw in text.lines() {
            if let Some(head) = raw.strip_suffix('\\') {
                joined.push_str(head);
                joined.push(' ');
                continue;
            }
            joined.push_str(raw);
            let line = std::mem::take(&mut joined);
            let indented = line.starts_with('\t') || (self.just && line.starts_with(' '));
            if indented {
                if let Some(rule) = self.rules.last_mut() {
                    let c = line.trim().trim_start_matches(['@', '-', '+']).trim();
                    if !c.is_empty() && !c.starts_with('#') {
                        rule.2.push(c.to_string());
                    }
                }
                continue;
            }
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if self.just {
                if self.just_import(trimmed, &here, files, depth) {
                    continue;
                }
                // `set shell := ["./tools/sh", "-c"]`: the program every recipe line runs
                // through.
                if let Some(c) = JUST_SHELL.captures(trimmed) {
                    let program = c.get(2).or_else(|| c.get(3)).map_or("", |m| m.as_str());
                    self.reads.push(crate::output::shell_word(program));
                    continue;
                }
            } else {
                self.evaluated(trimmed);
            }
            if let Some(cap) = ASSIGN.captures(trimmed) {
                let op = cap.get(2).map_or("", |m| m.as_str());
                // What runs as the file is read: make's `X != cmd`, a just value's
                // backquoted command.
                if op == "!" && !self.just {
                    let c = self.expand_vars(&cap[3], None);
                    self.reads.push(c);
                } else if self.just {
                    for c in cap[3].split('`').skip(1).step_by(2) {
                        self.reads.push(c.to_string());
                    }
                }
                self.assign(&cap[1], op, &cap[3]);
                continue;
            }
            if !self.just
                && let Some(names) = trimmed
                    .strip_prefix("include ")
                    .or_else(|| trimmed.strip_prefix("-include "))
                    .or_else(|| trimmed.strip_prefix("sinclude "))
            {
                // A missing file `-include` and `sinclude` pass over is no file of the
                // repository; one `include` names must be there, or made by a rule.
                let must = trimmed.starts_with("include ");
                if depth < MAX_INCLUDE_DEPTH {
                    let names = self.expand_vars(names, None);
                    for name in names.split_whitespace() {
                        if name.contains('$') {
                            self.lost.push(format!(
                                "`{path}` includes `{name}`, a file named by a variable"
                            ));
                            continue;
                        }
                        match crate::handoff::resolve_link(&self.dir, name)
                            .and_then(|p| files.text(&p).map(|t| (p, t)))
                        {
                            Some((p, t)) => self.add(&p, &t, files, depth + 1),
                            None if must && !name.starts_with('/') => self.lost.push(format!(
                                "`{path}` includes `{name}`, which the repository does not hold"
                            )),
                            None => {}
                        }
                    }
                } else {
                    self.lost.push(format!(
                        "`{path}` includes files more than {MAX_INCLUDE_DEPTH} deep"
                    ));
                }
                continue;
            }
            if let Some((names, rest)) = trimmed.split_once(':')
                && !rest.starts_with('=')
                && !names.contains('=')
            {
                let names: Vec<String> = names
                    .split_whitespace()
                    .map(|n| format!("{}{}", self.prefix, n.trim_start_matches('@')))
                    .collect();
                // A just recipe's parameters follow its name.
                let names = if self.just {
                    names.into_iter().take(1).collect()
                } else {
                    names
                };
                let (prereqs, inline) = rest.split_once(';').unwrap_or((rest, ""));
                let prereqs = prereqs
                    .split_whitespace()
                    // A just recipe's dependencies after `&&` run after it.
                    .filter(|p| !(p.contains(['(', ')']) || self.just && *p == "&&"))
                    .map(|p| format!("{}{p}", self.prefix))
                    .collect();
                let inline = inline.trim();
                let body = if inline.is_empty() {
                    Vec::new()
                } else {
                    vec![inline.to_string()]
                };
                self.rules.push((names, prereqs, body));
            }
        }
    }

    /// A justfile's `import 'x.just'` (`import?`) and `mod m` (`mod? m 'path'`): the file
    /// read in (a module's recipes as `m::x`, run in its directory), from the directory of
    /// the file that names it (review atk31 #8). True when `line` is one.
    fn just_import(&mut self, line: &str, here: &str, files: &mut dyn Files, depth: usize) -> bool {
        static IMPORT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r#"^import(\?)?\s+(?:'([^']*)'|"([^"]*)")\s*(?:#.*)?$"#)
                .expect("a valid regex")
        });
        static MOD: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(
                r#"^mod(\?)?\s+([A-Za-z_][A-Za-z0-9_-]*)(?:\s+(?:'([^']*)'|"([^"]*)"))?\s*(?:#.*)?$"#,
            )
            .expect("a valid regex")
        });
        let (optional, name, candidates): (bool, Option<String>, Vec<String>) =
            if let Some(c) = IMPORT.captures(line) {
                let p = c.get(2).or_else(|| c.get(3)).map_or("", |m| m.as_str());
                (c.get(1).is_some(), None, vec![p.to_string()])
            } else if let Some(c) = MOD.captures(line) {
                let m = c[2].to_string();
                let given = c
                    .get(3)
                    .or_else(|| c.get(4))
                    .map(|g| g.as_str().to_string());
                let candidates = match given {
                    Some(g) => vec![
                        g.clone(),
                        format!("{g}/mod.just"),
                        format!("{g}/justfile"),
                        format!("{g}/.justfile"),
                    ],
                    None => vec![
                        format!("{m}.just"),
                        format!("{m}/mod.just"),
                        format!("{m}/justfile"),
                        format!("{m}/.justfile"),
                    ],
                };
                (c.get(1).is_some(), Some(m), candidates)
            } else {
                return false;
            };
        if depth >= MAX_INCLUDE_DEPTH {
            self.lost.push(format!(
                "`{}` imports files more than {MAX_INCLUDE_DEPTH} deep",
                self.files.last().map_or("", String::as_str)
            ));
            return true;
        }
        let found = candidates.iter().find_map(|c| {
            if c.contains('{') || c.starts_with(['/', '~']) {
                return None;
            }
            let p = crate::handoff::resolve_link(here, c)?;
            files.text(&p).map(|t| (p, t))
        });
        let Some((p, t)) = found else {
            if !optional {
                self.lost.push(format!(
                    "`{}` imports `{}`, which the repository does not hold",
                    self.files.last().map_or("", String::as_str),
                    candidates.first().map_or("", String::as_str)
                ));
            }
            return true;
        };
        match name {
            None => self.add(&p, &t, files, depth + 1),
            Some(m) => {
                let inner = format!("{}{m}::", self.prefix);
                let outer = std::mem::replace(&mut self.prefix, inner);
                self.modules.push((
                    self.prefix.trim_end_matches("::").to_string(),
                    parent(&p).to_string(),
                ));
                self.add(&p, &t, files, depth + 1);
                self.prefix = outer;
            }
        }
        true
    }

    /// The commands make runs as it reads a line outside a recipe (review atk31 #8): each
    /// `$(shell CMD)`, and `cat F` for each `$(file <F)`, variables spelled out.
    fn evaluated(&mut self, line: &str) {
        for (call, inner) in make_calls(line) {
            let inner = self.expand_vars(inner, None);
            match call {
                "shell" => self.reads.push(inner),
                _ => {
                    if let Some(f) = inner.trim().strip_prefix('<') {
                        let f = f.trim();
                        if f.contains('$') {
                            self.lost.push(format!(
                                "`{}` reads `{f}`, a file named by a variable",
                                self.files.last().map_or("", String::as_str)
                            ));
                        } else if !f.is_empty() {
                            let f = if f.starts_with('/') {
                                f.to_string()
                            } else {
                                format!("./{f}")
                            };
                            self.reads
                                .push(format!("cat {}", crate::output::shell_word(&f)));
                        }
                    }
                }
            }
        }
    }

    /// `name op= value`: make's `=`, `:=`, `?=`, `+=` (`!=` runs a command: not known);
    /// just's `:=` with a quoted value.
    fn assign(&mut self, name: &str, op: &str, value: &str) {
        let value = value.trim();
        let value = if self.just {
            value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                .unwrap_or(value)
        } else {
            value
        };
        if name == ".DEFAULT_GOAL" {
            self.default_goal = Some(value.to_string());
            return;
        }
        match op {
            "!" => {
                self.vars.remove(name);
            }
            "?" if self.vars.contains_key(name) => {}
            "+" => {
                let v = self.vars.entry(name.to_string()).or_default();
                if !v.is_empty() {
                    v.push(' ');
                }
                v.push_str(value);
            }
            _ => {
                self.vars.insert(name.to_string(), value.to_string());
            }
        }
    }

    /// `text` with the variables the file sets spelled out (`$(NAME)`, `${NAME}`, just's
    /// `{{NAME}}`), and `$@`, `$<`, `$^` as the rule `auto` (target, prerequisites) names
    /// them; `$$` is the shell's `$`. What it does not know is left as written: the shell
    /// then reads it as a variable. At most [`MAX_EXPANDED`] bytes are written.
    fn expand_vars(&self, text: &str, auto: Option<(&str, &[String])>) -> String {
        let mut out = String::new();
        self.expand_into(text, auto, 0, &mut out);
        out
    }

    fn expand_into(
        &self,
        text: &str,
        auto: Option<(&str, &[String])>,
        depth: usize,
        out: &mut String,
    ) {
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if out.len() > MAX_EXPANDED {
                return;
            }
            let rest = &text[i..];
            if self.just {
                if let Some(inner) = rest.strip_prefix("{{")
                    && let Some(end) = inner.find("}}")
                {
                    let name = inner[..end].trim();
                    match self.vars.get(name) {
                        Some(v) if depth < MAX_VARIABLE_DEPTH => {
                            self.expand_into(v, auto, depth + 1, out);
                        }
                        _ => out.push_str(&rest[..end + 4]),
                    }
                    i += end + 4;
                    continue;
                }
                let c = rest.chars().next().unwrap_or(' ');
                out.push(c);
                i += c.len_utf8();
                continue;
            }
            if b[i] != b'$' {
                let c = rest.chars().next().unwrap_or(' ');
                out.push(c);
                i += c.len_utf8();
                continue;
            }
            match b.get(i + 1) {
                Some(b'$') => {
                    out.push('$');
                    i += 2;
                }
                Some(b'@') if auto.is_some() => {
                    out.push_str(auto.map_or("", |a| a.0));
                    i += 2;
                }
                Some(b'<') if auto.is_some() => {
                    out.push_str(auto.and_then(|a| a.1.first()).map_or("", String::as_str));
                    i += 2;
                }
                Some(b'^' | b'+') if auto.is_some() => {
                    out.push_str(&auto.map(|a| a.1.join(" ")).unwrap_or_default());
                    i += 2;
                }
                Some(&open @ (b'(' | b'{')) => {
                    let close = if open == b'(' { ')' } else { '}' };
                    let inner = &text[i + 2..];
                    let end = inner.find(close);
                    let name = end.map(|e| &inner[..e]);
                    let known = name.and_then(|n| match n {
                        "MAKE" => Some("make".to_string()),
                        "SHELL" => Some("sh".to_string()),
                        "CURDIR" => Some(format!(
                            "${{CLAUDE_PROJECT_DIR}}/{}{}",
                            super::agent_runs::TOPLEVEL,
                            self.dir
                        )),
                        n => self.vars.get(n).cloned(),
                    });
                    match (end, known) {
                        (Some(e), Some(v)) if depth < MAX_VARIABLE_DEPTH => {
                            self.expand_into(&v, auto, depth + 1, out);
                            i += e + 3;
                        }
                        _ => {
                            out.push('$');
                            i += 1;
                        }
                    }
                }
                _ => {
                    out.push('$');
                    i += 1;
                }
            }
        }
    }

    /// The commands make (or just) runs for `targets` (the default goal, else the first
    /// rule, when none), their prerequisites' first; `Err` names a target it has no rule for.
    fn commands(&self, targets: &[String], files: &mut dyn Files) -> Result<Vec<String>, String> {
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, r) in self.rules.iter().enumerate() {
            for n in &r.0 {
                by_name.entry(n.as_str()).or_default().push(i);
            }
        }
        let first = self.default_goal.clone().or_else(|| {
            self.rules
                .iter()
                .find(|r| r.0.iter().any(|n| !n.starts_with('.') && !n.contains('%')))
                .and_then(|r| r.0.first().cloned())
        });
        let mut todo: Vec<String> = if targets.is_empty() {
            first.into_iter().collect()
        } else {
            targets.to_vec()
        };
        let asked: Vec<String> = todo.clone();
        let mut done: HashSet<String> = HashSet::new();
        let mut out = Vec::new();
        while let Some(t) = todo.pop() {
            if files.exhausted() {
                break;
            }
            if !done.insert(t.clone()) {
                continue;
            }
            let Some(mine) = by_name.get(t.as_str()) else {
                // A prerequisite without a rule is a file to make; a target asked for is
                // missing, as is a recipe a just recipe depends on.
                if asked.contains(&t) || self.just {
                    return Err(t);
                }
                continue;
            };
            for &i in mine {
                let r = &self.rules[i];
                for line in &r.2 {
                    let c = self.expand_vars(line, Some((&t, &r.1)));
                    files.charge(c.len() + 1);
                    out.push(c);
                }
                todo.extend(r.1.iter().map(|p| self.expand_vars(p, None)));
            }
        }
        Ok(out)
    }
}

/// A justfile's `set shell`, `set windows-shell` or `set script-interpreter`: its program.
static JUST_SHELL: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r#"^set\s+(shell|windows-shell|script-interpreter)\s*:=\s*\[\s*(?:'([^']*)'|"([^"]*)")"#,
    )
    .expect("a valid regex")
});

/// The `$(shell …)` and `$(file …)` calls of a line of a Makefile (also `${…}`), each as
/// its function's name and its text, parentheses within it balanced; one pass.
fn make_calls(line: &str) -> Vec<(&'static str, &str)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] != b'$' || !matches!(b[i + 1], b'(' | b'{') {
            i += 1;
            continue;
        }
        let (open, close) = if b[i + 1] == b'(' {
            (b'(', b')')
        } else {
            (b'{', b'}')
        };
        let rest = &line[i + 2..];
        let call = ["shell", "file"]
            .into_iter()
            .find(|c| rest.starts_with(c) && rest[c.len()..].starts_with([' ', '\t']));
        let Some(call) = call else {
            i += 2;
            continue;
        };
        let start = i + 2 + call.len() + 1;
        let mut depth = 1;
        let mut j = start;
        while j < b.len() {
            if b[j] == open {
                depth += 1;
            } else if b[j] == close {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            j += 1;
        }
        out.push((call, &line[start..j.min(b.len())]));
        // Calls nested within are read as part of this one's text.
        i = j + 1;
    }
    out
}

/// A task's variables, sorted, as one call of it is told from another.
type Vars = Vec<(String, String)>;

/// The Taskfiles `task` reads (the one it starts from, and those it includes), each read
/// and parsed once.
struct Taskfiles {
    root: String,
    read: HashMap<String, Option<Rc<Value>>>,
}

/// One task to expand: the Taskfile holding it, its name there, the directory it runs in
/// unless it names one, and the variables it is called with.
struct TaskCall {
    file: String,
    name: String,
    dir: String,
    vars: HashMap<String, String>,
}

impl Taskfiles {
    fn new(root: &str) -> Taskfiles {
        Taskfiles {
            root: root.to_string(),
            read: HashMap::new(),
        }
    }

    /// The Taskfile at `path` as YAML values; `Err` when it cannot be read (too many aliases,
    /// not YAML).
    fn value(&mut self, path: &str, files: &mut dyn Files) -> Result<Rc<Value>, Lost> {
        if let Some(held) = self.read.get(path) {
            return held
                .clone()
                .ok_or_else(|| lost(format!("`{path}` cannot be read as a Taskfile")));
        }
        let text = files.text(path);
        let parsed = text.as_deref().and_then(|t| {
            files.charge(t.len());
            super::agent_runs::yaml_value(t)
        });
        let bomb = text
            .as_deref()
            .is_some_and(super::agent_runs::too_many_aliases);
        let held = parsed.map(Rc::new);
        self.read.insert(path.to_string(), held.clone());
        held.ok_or_else(|| Lost {
            why: format!("`{path}` cannot be read as a Taskfile"),
            unread: bomb,
        })
    }

    /// The commands `task` runs for `tasks` (`default` when none) from the root Taskfile:
    /// each task's `cmds` (strings, `cmd:`, `defer:`, `for:` over a list), its `deps`,
    /// `preconditions` and `status` commands, the `sh:` of the variables it and its file set,
    /// and the tasks its commands call (`task:`, with `vars:`), by name or alias, in the
    /// Taskfile or one it includes (`ns:task`, a flattened include); each task once for the
    /// same variables. `{{.NAME}}` is spelled out from the variables set as text,
    /// `{{.ROOT_DIR}}` and `{{.TASKFILE_DIR}}` as the directories they are.
    fn commands(&mut self, tasks: &[String], files: &mut dyn Files) -> Result<Recipe, Lost> {
        let root = self.root.clone();
        let root_dir = parent(&root).to_string();
        let names: Vec<String> = if tasks.is_empty() {
            vec!["default".to_string()]
        } else {
            tasks.to_vec()
        };
        let mut todo: Vec<TaskCall> = names
            .into_iter()
            .rev()
            .map(|name| TaskCall {
                file: root.clone(),
                name,
                dir: root_dir.clone(),
                vars: HashMap::new(),
            })
            .collect();
        // (Taskfile, task, the variables it is called with).
        let mut done: HashSet<(String, String, Vars)> = HashSet::new();
        let mut sets_read: HashSet<String> = HashSet::new();
        let mut recipe = Recipe {
            files: vec![root.clone()],
            ..Recipe::default()
        };
        while let Some(call) = todo.pop() {
            if files.exhausted() {
                break;
            }
            let (file, name, dir) = self.locate(&call, files)?;
            if !recipe.files.contains(&file) {
                recipe.files.push(file.clone());
            }
            let own = parent(&file).to_string();
            if own != dir && !recipe.also.contains(&own) {
                recipe.also.push(own);
            }
            let v = self.value(&file, files)?;
            let mut vars: HashMap<String, String> = HashMap::new();
            // The file's own variables, whose `sh:` Task runs as it reads the file.
            let spell = Spelling {
                root: &root_dir,
                here: parent(&file),
            };
            if sets_read.insert(file.clone()) {
                for key in ["vars", "env"] {
                    for c in spell.sets(v.get(key), &HashMap::new(), &mut vars) {
                        recipe.commands.push((dir.clone(), c));
                    }
                }
            } else {
                for key in ["vars", "env"] {
                    spell.sets(v.get(key), &HashMap::new(), &mut vars);
                }
            }
            // Each call reads its variables again: their bytes count, so that calls that
            // grow them stop at the bound.
            files.charge(
                vars.iter()
                    .chain(&call.vars)
                    .map(|(k, v)| k.len() + v.len())
                    .sum(),
            );
            let mut signature: Vec<(String, String)> = call
                .vars
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            signature.sort();
            if !done.insert((file.clone(), name.clone(), signature)) {
                continue;
            }
            let task = find_task(&v, &name).expect("located above");
            let task_dir = task
                .get("dir")
                .and_then(Value::as_str)
                .map(|d| spell.spelled(d, &vars))
                .filter(|d| !d.contains(['$', '{']))
                .and_then(|d| crate::handoff::resolve_link(&dir, &d))
                .unwrap_or_else(|| dir.clone());
            // What the caller passes, then what the task sets: Task gives the task's own
            // the last word.
            vars.extend(call.vars.clone());
            for key in ["vars", "env"] {
                let cmds = spell.sets(task.get(key), &vars.clone(), &mut vars);
                recipe
                    .commands
                    .extend(cmds.into_iter().map(|c| (task_dir.clone(), c)));
            }
            let mut calls: Vec<(String, HashMap<String, String>)> = Vec::new();
            let step = |item: &Value,
                        out: &mut Vec<(String, String)>,
                        calls: &mut Vec<(String, HashMap<String, String>)>| {
                spell.step(item, &vars, &task_dir, out, calls);
            };
            let mut commands = Vec::new();
            match task {
                Value::Object(o) => {
                    // A dependency is a task: by name, or `{task, vars}`.
                    for dep in o
                        .get("deps")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        match dep {
                            Value::String(t) => {
                                calls.push((spell.spelled(t, &vars), HashMap::new()));
                            }
                            other => step(other, &mut commands, &mut calls),
                        }
                    }
                    for key in ["preconditions", "status"] {
                        for c in o.get(key).and_then(Value::as_array).into_iter().flatten() {
                            match c {
                                Value::String(s) => {
                                    commands.push((task_dir.clone(), spell.spelled(s, &vars)));
                                }
                                other => {
                                    if let Some(s) = other.get("sh").and_then(Value::as_str) {
                                        commands.push((task_dir.clone(), spell.spelled(s, &vars)));
                                    }
                                }
                            }
                        }
                    }
                    if let Some(c) = o.get("cmd") {
                        step(c, &mut commands, &mut calls);
                    }
                    for c in o
                        .get("cmds")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        step(c, &mut commands, &mut calls);
                    }
                }
                Value::Array(items) => {
                    for c in items {
                        step(c, &mut commands, &mut calls);
                    }
                }
                other => step(other, &mut commands, &mut calls),
            }
            files.charge(commands.iter().map(|(_, c)| c.len() + 1).sum::<usize>() + 64);
            recipe.commands.extend(commands);
            for (called, vars) in calls.into_iter().rev() {
                todo.push(TaskCall {
                    file: file.clone(),
                    name: called,
                    dir: dir.clone(),
                    vars,
                });
            }
        }
        Ok(recipe)
    }

    /// Where the task `call.name`, called from `call.file`, is: its Taskfile, its name there
    /// and the directory it runs in; its own file first, then an included one (`ns:task`, a
    /// flattened include; `:task` is the root's).
    fn locate(
        &mut self,
        call: &TaskCall,
        files: &mut dyn Files,
    ) -> Result<(String, String, String), Lost> {
        let mut file = call.file.clone();
        let mut name = call.name.clone();
        let mut dir = call.dir.clone();
        if let Some(top) = name.strip_prefix(':') {
            name = top.to_string();
            file.clone_from(&self.root);
            dir = parent(&self.root).to_string();
        }
        // Each step goes one include deeper; as many as the name has parts, and a few
        // flattened ones.
        for _ in 0..name.split(':').count() + MAX_INCLUDE_DEPTH {
            let v = self.value(&file, files)?;
            if find_task(&v, &name).is_some() {
                return Ok((file, name, dir));
            }
            let here = parent(&file).to_string();
            let includes = v.get("includes").and_then(Value::as_object);
            let mut next = None;
            for (ns, inc) in includes.into_iter().flatten() {
                let (taskfile, inc_dir, flat) = match inc {
                    Value::String(s) => (s.as_str(), None, false),
                    Value::Object(o) => (
                        o.get("taskfile").and_then(Value::as_str).unwrap_or(""),
                        o.get("dir").and_then(Value::as_str),
                        o.get("flatten").and_then(Value::as_bool) == Some(true),
                    ),
                    _ => continue,
                };
                let rest = if flat {
                    Some(name.as_str())
                } else {
                    name.strip_prefix(ns.as_str())
                        .and_then(|r| r.strip_prefix(':'))
                };
                let Some(rest) = rest else { continue };
                let Some(target) = crate::handoff::resolve_link(&here, taskfile) else {
                    continue;
                };
                // A directory names its Taskfile.
                let path = if files.text(&target).is_some() {
                    Some(target.clone())
                } else {
                    first_readable(&target, None, TASKFILES, files).map(|(p, _)| p)
                };
                let Some(path) = path else { continue };
                if flat
                    && !self
                        .value(&path, files)
                        .is_ok_and(|v| find_task(&v, rest).is_some())
                {
                    continue;
                }
                let run_in = inc_dir
                    .and_then(|d| crate::handoff::resolve_link(&here, d))
                    .unwrap_or_else(|| dir.clone());
                next = Some((path, rest.to_string(), run_in));
                break;
            }
            match next {
                Some((f, n, d)) => {
                    file = f;
                    name = n;
                    dir = d;
                }
                None => break,
            }
        }
        Err(lost(if call.name.contains(':') && name != call.name {
            format!(
                "`{}` includes no Taskfile with the task `{}`",
                call.file, call.name
            )
        } else {
            format!("`{}` has no task `{}`", call.file, call.name)
        }))
    }
}

/// The task `name` of a Taskfile, by name or alias.
fn find_task<'v>(v: &'v Value, name: &str) -> Option<&'v Value> {
    let defined = v.get("tasks").and_then(Value::as_object)?;
    defined.get(name).or_else(|| {
        defined.values().find(|t| {
            super::agent_runs::words(t.get("aliases"))
                .iter()
                .any(|a| a == name)
        })
    })
}

/// How a Taskfile's templates read: the root Taskfile's directory and this one's.
struct Spelling<'a> {
    root: &'a str,
    here: &'a str,
}

impl Spelling<'_> {
    /// `text` with `{{.NAME}}` spelled out from `vars`, and the special directories.
    fn spelled(&self, text: &str, vars: &HashMap<String, String>) -> String {
        static TEMPLATE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r"\{\{\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}").expect("a valid regex")
        });
        let top = |dir: &str| {
            let top = super::agent_runs::TOPLEVEL.trim_end_matches('/');
            if dir.is_empty() {
                format!("${{CLAUDE_PROJECT_DIR}}/{top}")
            } else {
                format!("${{CLAUDE_PROJECT_DIR}}/{top}/{dir}")
            }
        };
        TEMPLATE
            .replace_all(text, |c: &regex::Captures<'_>| match &c[1] {
                "ROOT_DIR" => top(self.root),
                "TASKFILE_DIR" => top(self.here),
                name => vars.get(name).cloned().unwrap_or_else(|| c[0].to_string()),
            })
            .into_owned()
    }

    /// Reads a `vars:` or `env:` map into `vars` (values set as text, spelled from `outer`);
    /// gives the `sh:` commands of those Task runs to learn their value.
    fn sets(
        &self,
        map: Option<&Value>,
        outer: &HashMap<String, String>,
        vars: &mut HashMap<String, String>,
    ) -> Vec<String> {
        let mut commands = Vec::new();
        for (k, v) in map.and_then(Value::as_object).into_iter().flatten() {
            match v {
                Value::String(s) => {
                    vars.insert(k.clone(), self.spelled(s, outer));
                }
                Value::Object(o) => {
                    if let Some(sh) = o.get("sh").and_then(Value::as_str) {
                        commands.push(self.spelled(sh, outer));
                    }
                    vars.remove(k);
                }
                other => {
                    vars.insert(k.clone(), other.to_string());
                }
            }
        }
        commands
    }

    /// One step of a task (a command, a `cmd:`, a `defer:`, a `for:` loop) or a dependency:
    /// its commands to `out` (run in `dir`), the tasks it calls (with their variables) to
    /// `calls`.
    fn step(
        &self,
        item: &Value,
        vars: &HashMap<String, String>,
        dir: &str,
        out: &mut Vec<(String, String)>,
        calls: &mut Vec<(String, HashMap<String, String>)>,
    ) {
        let o = match item {
            Value::String(c) => {
                out.push((dir.to_string(), self.spelled(c, vars)));
                return;
            }
            Value::Object(o) => o,
            _ => return,
        };
        if let Some(deferred) = o.get("defer") {
            self.step(deferred, vars, dir, out, calls);
        }
        // `for: [a, b]` runs the step once for each, as `{{.ITEM}}`.
        let items: Vec<Option<String>> = match o.get("for") {
            Some(Value::Array(list)) => list
                .iter()
                .map(|i| Some(i.as_str().map_or_else(|| i.to_string(), str::to_string)))
                .collect(),
            _ => vec![None],
        };
        for item in items {
            let mut here = vars.clone();
            if let Some(item) = item {
                here.insert("ITEM".into(), item);
            }
            if let Some(c) = o.get("cmd").and_then(Value::as_str) {
                out.push((dir.to_string(), self.spelled(c, &here)));
            }
            if let Some(t) = o.get("task").and_then(Value::as_str) {
                let mut with = HashMap::new();
                let cmds = self.sets(o.get("vars"), &here, &mut with);
                out.extend(cmds.into_iter().map(|c| (dir.to_string(), c)));
                calls.push((self.spelled(t, &here), with));
            }
        }
    }
}
