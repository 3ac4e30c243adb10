//! Where handoff directories are (SPEC §2): the one a command works on (`--dir`, else the
//! nearest enclosing the current directory, else git config `aahp.dir`, else `.ai/handoff`),
//! the ones a change touches (each changed path belongs to the nearest enclosing directory
//! that holds `.ai/handoff/`), and the checks every location passes once, here: inside the
//! work tree, outside every git directory, not the work tree's root, a name that is UTF-8
//! without control characters. Reading the files is [`super::HandoffDir::snapshot`]'s job.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use super::{DEFAULT_DIR, HandoffDir};
use crate::error::{Error, Result};
use crate::git::Repo;

/// The git config key naming handoff directories (multi-valued; repository-relative).
pub const DIR_KEY: &str = "aahp.dir";
/// The git config key that turns discovery off: only `aahp.dir` values are judged.
pub const DISCOVER_KEY: &str = "aahp.discover";

impl HandoffDir {
    /// Locates the handoff directory a command works on: `dir` when given (relative to
    /// `cwd`); else the nearest directory enclosing `cwd` that holds `.ai/handoff/` or is the
    /// package of an `aahp.dir` value; else the only `aahp.dir` value; else `.ai/handoff` at
    /// the root. Every candidate passes [`HandoffDir::at`]'s checks.
    pub fn locate(repo: &Repo, cwd: &Path, dir: Option<&Path>) -> Result<HandoffDir> {
        if let Some(d) = dir {
            let abs = if d.is_absolute() {
                d.to_path_buf()
            } else {
                cwd.join(d)
            };
            return HandoffDir::at(repo, &abs);
        }
        let configured = configured(repo)?;
        if let Some(found) = nearest(repo, cwd, &configured)? {
            return Ok(found);
        }
        match configured.as_slice() {
            [] => HandoffDir::at(repo, &repo.workdir().join(DEFAULT_DIR)),
            [only] => Ok(only.clone()),
            several => Err(Error::Usage(format!(
                "several handoff directories are configured in `{DIR_KEY}` ({}); run the \
                 command inside one's package or pass --dir",
                several
                    .iter()
                    .map(|d| crate::output::escape_untrusted(&d.rel))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// Builds the handoff directory at `abs` after the checks SPEC §2 requires (exit 2 when
    /// one fails): it lies inside the work tree, is not its root, is outside every git
    /// directory (`.git` anywhere on the path, this repository's git directories), even
    /// through symbolic links, and its path is UTF-8 without control characters.
    pub fn at(repo: &Repo, abs: &Path) -> Result<HandoffDir> {
        let root = canonical(repo.workdir());
        let shown = || crate::output::escape_untrusted(&abs.to_string_lossy());
        let abs = canonical(&normalize(abs));
        let refuse = |why: &str| Error::invalid(shown(), None, why);
        let Ok(rel) = abs.strip_prefix(&root) else {
            return Err(refuse(
                "the handoff directory must be inside the repository",
            ));
        };
        let mut parts = Vec::new();
        for c in rel.components() {
            let part = c.as_os_str().to_str().ok_or_else(|| {
                refuse("the handoff directory's path is not valid UTF-8; rename it")
            })?;
            if part.chars().any(char::is_control) {
                return Err(refuse(
                    "the handoff directory's path holds control characters; rename it",
                ));
            }
            if part.eq_ignore_ascii_case(".git") {
                return Err(refuse(
                    "the handoff directory must be outside .git (git's own files are not handoff files)",
                ));
            }
            parts.push(part);
        }
        if parts.is_empty() {
            return Err(refuse(
                "the handoff directory must not be the work tree's root; use a directory such as .ai/handoff",
            ));
        }
        for git in [repo.git_dir(), repo.common_dir()] {
            if abs.starts_with(canonical(git)) {
                return Err(refuse(
                    "the handoff directory must be outside .git (git's own files are not handoff files)",
                ));
            }
        }
        // A directory on the way that holds `.git` is another repository's work tree (a
        // submodule, a nested clone): this repository cannot stage its files, and writers
        // started there and here would lock in two git directories and not exclude each
        // other.
        let mut at = root.clone();
        for (i, part) in parts.iter().enumerate() {
            at.push(part);
            if std::fs::symlink_metadata(at.join(".git")).is_ok() {
                return Err(refuse(&format!(
                    "the handoff directory lies in another repository (a submodule or nested repository at `{}`): run git aahp from inside it",
                    crate::output::escape_untrusted(&parts[..=i].join("/"))
                )));
            }
        }
        let dir = HandoffDir {
            rel: parts.join("/"),
            abs,
            root,
        };
        // Every directory a command finds, not only the one it was run for: the gate run at
        // a monorepo's root prints the packages' names and text (review atk42 #5).
        crate::output::boundary::redact_user_secrets_of(&dir)?;
        Ok(dir)
    }

    /// The handoff directory at a repository-relative path.
    pub fn at_rel(repo: &Repo, rel: &str) -> Result<HandoffDir> {
        HandoffDir::at(repo, &repo.workdir().join(rel))
    }
}

/// The directories named by `aahp.dir` (every value, in order, duplicates dropped).
pub fn configured(repo: &Repo) -> Result<Vec<HandoffDir>> {
    let mut out: Vec<HandoffDir> = Vec::new();
    for value in repo.config_strings(DIR_KEY) {
        let dir = HandoffDir::at(repo, &repo.workdir().join(&value))
            .map_err(|e| config_error(&value, &e))?;
        if !out.iter().any(|d| d.rel == dir.rel) {
            out.push(dir);
        }
    }
    Ok(out)
}

fn config_error(value: &str, e: &Error) -> Error {
    Error::invalid(
        format!("git config {DIR_KEY}"),
        None,
        format!(
            "`{}` is not usable: {e}",
            crate::output::escape_untrusted(value)
        ),
    )
}

/// True unless `aahp.discover` is false: directories holding `.ai/handoff/` are found
/// without configuration. A value that is not a boolean is exit 2.
pub fn discovery_enabled(repo: &Repo) -> Result<bool> {
    repo.config_bool(DISCOVER_KEY)
        .map(|v| v.unwrap_or(true))
        .map_err(|value| {
            Error::invalid(
                format!("git config {DISCOVER_KEY}"),
                None,
                format!(
                    "`{}` is not a boolean (true or false)",
                    crate::output::escape_untrusted(&value)
                ),
            )
        })
}

/// The nearest directory enclosing `cwd` (itself included) that holds `.ai/handoff/` on disk
/// (unless discovery is off) or is the package of a configured directory. Two candidates
/// for one package are ambiguous: exit 2.
fn nearest(repo: &Repo, cwd: &Path, configured: &[HandoffDir]) -> Result<Option<HandoffDir>> {
    let root = canonical(repo.workdir());
    let Ok(rel) = canonical(cwd).strip_prefix(&root).map(Path::to_path_buf) else {
        return Ok(None);
    };
    let discover = discovery_enabled(repo)?;
    let mut here: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    loop {
        let pkg = here.join("/");
        let mut found: Vec<HandoffDir> = configured
            .iter()
            .filter(|d| d.package_root() == pkg)
            .cloned()
            .collect();
        // Inside a git directory (a hook's cwd can be `.git`) nothing is discovered.
        let in_git = here.iter().any(|p| p.eq_ignore_ascii_case(".git"));
        if discover && !in_git && root.join(&pkg).join(DEFAULT_DIR).is_dir() {
            let dir = HandoffDir::at(repo, &root.join(&pkg).join(DEFAULT_DIR))?;
            if !found.iter().any(|d| d.rel == dir.rel) {
                found.push(dir);
            }
        }
        match found.len() {
            0 => {}
            1 => return Ok(found.pop()),
            _ => {
                return Err(Error::Usage(format!(
                    "several handoff directories belong to {}: {}; pass --dir",
                    if pkg.is_empty() {
                        "the repository root"
                    } else {
                        &pkg
                    },
                    found
                        .iter()
                        .map(|d| crate::output::escape_untrusted(&d.rel))
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        if here.pop().is_none() {
            return Ok(None);
        }
    }
}

/// Which handoff directories a set of changed paths touches, and which one owns each path:
/// the nearest enclosing directory (package) that holds a handoff directory.
#[derive(Debug, Default)]
pub struct Owners {
    /// The handoff directories touched, in the order first met.
    pub dirs: Vec<HandoffDir>,
    /// For each changed path (same order as given), the index into `dirs` of its owners
    /// (several only when two configured directories share a package).
    pub owner: Vec<Vec<usize>>,
}

/// Finds the owners of `paths` (repository-relative, `/`-separated). `known` are directories
/// that exist regardless of discovery (configured ones, the one the command was given).
/// `holds(pkg)` says whether `pkg/.ai/handoff` (`.ai/handoff` for the root, `pkg == ""`)
/// exists in the content judged; it is asked at most once per distinct ancestor directory
/// of the paths, so the cost follows the change, and never when `discover` is false.
pub fn owners(
    repo: &Repo,
    paths: &[&str],
    known: &[HandoffDir],
    discover: bool,
    mut holds: impl FnMut(&str) -> Result<bool>,
) -> Result<Owners> {
    let mut out = Owners::default();
    // Package path -> indices into `out.dirs` of its handoff directories (empty: none).
    let mut memo: HashMap<String, Vec<usize>> = HashMap::new();
    let index_of = |dir: &HandoffDir, out: &mut Owners| -> usize {
        if let Some(i) = out.dirs.iter().position(|d| d.rel == dir.rel) {
            i
        } else {
            out.dirs.push(dir.clone());
            out.dirs.len() - 1
        }
    };
    for path in paths {
        let mut owner = Vec::new();
        let mut pkg: &str = parent(path);
        loop {
            if let Some(found) = memo.get(pkg) {
                if !found.is_empty() {
                    owner.clone_from(found);
                    break;
                }
            } else {
                let mut found = Vec::new();
                for d in known.iter().filter(|d| d.package_root() == pkg) {
                    found.push(index_of(d, &mut out));
                }
                let in_git = pkg.split('/').any(|p| p.eq_ignore_ascii_case(".git"));
                if discover && !in_git && holds(pkg)? {
                    let rel = join(pkg, DEFAULT_DIR);
                    let dir = HandoffDir::at_rel(repo, &rel)?;
                    let i = index_of(&dir, &mut out);
                    if !found.contains(&i) {
                        found.push(i);
                    }
                }
                memo.insert(pkg.to_string(), found.clone());
                if !found.is_empty() {
                    owner = found;
                    break;
                }
            }
            if pkg.is_empty() {
                break;
            }
            pkg = parent(pkg);
        }
        out.owner.push(owner);
    }
    Ok(out)
}

/// Joins a directory and a name: `a/b`, or just `b` when the directory is the root (empty).
pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(p, _)| p)
}

/// Removes `.` and `..` components lexically (the path may not exist yet).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Resolves symbolic links in the longest existing prefix of `path` and appends the rest, so
/// a directory that does not exist yet is still judged where it would really be created.
fn canonical(path: &Path) -> PathBuf {
    let mut missing = Vec::new();
    let mut cur = path.to_path_buf();
    loop {
        if let Ok(c) = cur.canonicalize() {
            let mut out = c;
            for m in missing.iter().rev() {
                out.push(m);
            }
            return out;
        }
        match (cur.file_name().map(ToOwned::to_owned), cur.parent()) {
            (Some(name), Some(p)) => {
                missing.push(name);
                cur = p.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{join, parent};

    #[test]
    fn parents_walk_up_to_the_root() {
        assert_eq!(parent("a/b/c.rs"), "a/b");
        assert_eq!(parent("a"), "");
        assert_eq!(join("", ".ai/handoff"), ".ai/handoff");
        assert_eq!(join("p/q", ".ai/handoff"), "p/q/.ai/handoff");
    }
}
