//! Where the files that import with `@path` lie in a tree (review s25 #9), and the agent
//! configuration files that name instruction files (review s26 #4): a nested
//! `CLAUDE.md` may import a file anywhere, so a change to that file is judged as the
//! importer's wherever the importer is. Finding them takes a walk of the whole tree, which
//! the pre-commit hook must not pay on every commit; the list is kept in the git directory
//! with the root tree id it describes, and brought up to date by diffing that tree against
//! the one asked for (unchanged subtrees skipped by id, so the cost follows what changed).
//!
//! The file is safe to delete: a missing, damaged or unusable cache (its tree no longer
//! readable) is derived again by one walk of the tree, never taken as "no importer".

use std::path::Path;

use gix::ObjectId;

use crate::git::{ChangeKind, EntryKind, GitError, Repo};

/// The cache file's name inside `<git dir>/aahp/`.
pub const FILE: &str = "importers";
/// First line of the file; another version is derived again.
const HEADER: &str = "aahp importers v3";

/// The paths of the tree `tree` whose name imports
/// ([`crate::lint::agents::pulls_in_files`]), sorted.
pub fn importers(repo: &Repo, tree: ObjectId) -> Result<Vec<String>, GitError> {
    if !super::git_dir_caches_trusted() {
        return walk(repo, tree);
    }
    let path = crate::transaction::journal::state_dir(repo).join(FILE);
    let cached = super::read_state_file(&path)
        .ok()
        .flatten()
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|t| parse(&t));
    let list = match cached {
        Some((at, list)) if at == tree => return Ok(list),
        Some((at, list)) => match repo.tree_changes(at, tree) {
            Ok(changes) => {
                let mut set: std::collections::BTreeSet<String> = list.into_iter().collect();
                for c in changes {
                    if !crate::lint::agents::pulls_in_files(&c.path) {
                        continue;
                    }
                    if c.kind == ChangeKind::Deleted {
                        set.remove(&c.path);
                    } else {
                        set.insert(c.path);
                    }
                }
                set.into_iter().collect()
            }
            // The tree it describes is gone (pruned): derived again.
            Err(_) => walk(repo, tree)?,
        },
        None => walk(repo, tree)?,
    };
    save(&path, tree, &list);
    Ok(list)
}

/// Every importing path of `tree`, by one walk of it.
fn walk(repo: &Repo, tree: ObjectId) -> Result<Vec<String>, GitError> {
    let mut out = Vec::new();
    repo.walk_tree_id(tree, &mut |path, _, kind| {
        let path = String::from_utf8_lossy(path);
        if kind != EntryKind::Gitlink && crate::lint::agents::pulls_in_files(&path) {
            out.push(path.into_owned());
        }
    })?;
    out.sort();
    Ok(out)
}

/// The tree id and paths a cache file holds; `None` when any line is not of its shape.
fn parse(text: &str) -> Option<(ObjectId, Vec<String>)> {
    let mut lines = text.lines();
    if lines.next()? != HEADER {
        return None;
    }
    let tree = ObjectId::from_hex(lines.next()?.as_bytes()).ok()?;
    let mut list = Vec::new();
    for line in lines {
        // The last line counts the paths: a file cut short is derived again.
        if let Some(n) = line.strip_prefix("end ") {
            return (n.parse::<usize>().ok()? == list.len()).then_some((tree, list));
        }
        list.push(serde_json::from_str::<String>(line).ok()?);
    }
    None
}

/// Writes the cache (best effort: a failure only costs the work it saves).
fn save(path: &Path, tree: ObjectId, list: &[String]) {
    let mut text = format!("{HEADER}\n{tree}\n");
    for p in list {
        // One JSON string a line: a name may hold a newline.
        let Ok(line) = serde_json::to_string(p) else {
            return;
        };
        text.push_str(&line);
        text.push('\n');
    }
    text.push_str("end ");
    text.push_str(&list.len().to_string());
    text.push('\n');
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    // No fsync: a file power loss cuts short lacks its last line and is derived again.
    let _ = super::write_cache_file(path, text.as_bytes());
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cache_reads_back_and_a_damaged_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("aahp").join(super::FILE);
        let tree = gix::ObjectId::from_hex(b"0123456789012345678901234567890123456789").unwrap();
        let list = vec!["a/CLAUDE.md".to_string(), "odd\nname/GEMINI.md".to_string()];
        super::save(&path, tree, &list);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(super::parse(&text), Some((tree, list)));
        assert_eq!(super::parse(&text.replace("\"a/", "a/")), None);
        assert_eq!(super::parse("aahp importers v1\n"), None);
        let cut = text.rsplit_once("end").unwrap().0;
        assert_eq!(super::parse(cut), None, "a file cut short is refused");
    }
}
