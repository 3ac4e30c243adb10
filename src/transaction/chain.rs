//! The chain of session tags (issue #15): each `aahp/session-N` tag message names the previous
//! session tag of the same handoff directory and that tag's manifest checksum, so a handoff
//! rewritten between two sessions, or a session tag moved, can be found and named.
//! `verify --chain` walks the whole chain; `status` and `context` look at the newest links.

use std::collections::{BTreeMap, HashSet};

use gix::ObjectId;
use serde::Serialize;

use super::{TAG_PREFIX, is_transient, session_tags};
use crate::error::Result;
use crate::git::Repo;
use crate::handoff::{HandoffDir, MANIFEST, checksum};

/// Default handoff directory of tags written before the `handoff:` field existed.
const DEFAULT_DIR: &str = crate::handoff::DEFAULT_DIR;

/// The fields of a session tag's message this module reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The tag name (`aahp/session-3`).
    pub tag: String,
    /// The commit it points to.
    pub commit: ObjectId,
    /// `manifest:` — the checksum of the committed MANIFEST.json.
    pub manifest: Option<String>,
    /// `handoff:` — the handoff directory (older tags: none, read as the default directory).
    pub dir: Option<String>,
    /// `session:` — the session id.
    pub session: Option<String>,
    /// `previous:` — `None` for a tag without the field (older tags: the chain starts
    /// there), `Some(None)` for the first session, else the previous tag and its checksum.
    pub previous: Option<Option<(String, String)>>,
}

/// A place where the chain does not hold.
#[derive(Debug, Clone, Serialize)]
pub struct Break {
    /// The earlier session tag.
    pub from: String,
    /// The later session tag, or `HEAD`.
    pub to: String,
    /// The handoff files that differ (repository-relative).
    pub files: Vec<String>,
    /// What is wrong.
    pub reason: String,
}

/// The outcome of walking the chain from HEAD.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ChainReport {
    /// The session tags walked, newest first.
    pub tags: Vec<String>,
    /// Links that do not hold (blocking for `verify --chain`).
    pub breaks: Vec<Break>,
    /// Handoff files committed since the newest session tag by commits that were not
    /// sessions (advisory: the next session's link will name them).
    pub since_last: Vec<String>,
    /// The oldest tag walked when it carries no link (tags made before chains existed).
    pub unlinked_start: Option<String>,
}

/// Reads the link fields of a session tag.
pub fn read_link(repo: &Repo, n: u64, commit: ObjectId) -> Result<Link> {
    let tag = format!("aahp/session-{n}");
    let message = repo
        .tag_message(&format!("{TAG_PREFIX}{n}"))?
        .unwrap_or_default();
    let mut link = Link {
        tag,
        commit,
        manifest: None,
        dir: None,
        session: None,
        previous: None,
    };
    // The fields are the lines after the title, up to the first blank line.
    for line in message.lines().skip(2) {
        if line.trim().is_empty() {
            break;
        }
        let Some((key, value)) = line.split_once(": ") else {
            continue;
        };
        let value = value.trim();
        match key {
            "manifest" => link.manifest = Some(value.to_string()),
            "handoff" => link.dir = Some(value.to_string()),
            "session" => link.session = Some(value.to_string()),
            "previous" if value == "none" => link.previous = Some(None),
            "previous" => {
                link.previous = Some(
                    value
                        .split_once(' ')
                        .map(|(t, c)| (t.to_string(), c.trim().to_string())),
                );
            }
            _ => {}
        }
    }
    Ok(link)
}

/// True when a link belongs to the handoff directory `rel`.
fn same_dir(link: &Link, rel: &str) -> bool {
    link.dir.as_deref().unwrap_or(DEFAULT_DIR) == rel
}

/// Returns the newest session tag of `dir` whose commit is `commit` or an ancestor of it
/// (`strict`: a proper ancestor), with its link fields.
pub fn newest_reachable(
    repo: &Repo,
    dir: &HandoffDir,
    commit: ObjectId,
    strict: bool,
) -> Result<Option<Link>> {
    for (n, id) in session_tags(repo)? {
        if strict && id == commit {
            continue;
        }
        if id != commit && !repo.is_ancestor(id, commit)? {
            continue;
        }
        let link = read_link(repo, n, id)?;
        if same_dir(&link, &dir.rel) {
            return Ok(Some(link));
        }
    }
    Ok(None)
}

/// The `previous:` value for a new session tag on `commit`: the newest session tag of the
/// directory in the commit's history, with the checksum of its committed manifest.
pub fn previous_for(
    repo: &Repo,
    dir: &HandoffDir,
    commit: ObjectId,
) -> Result<Option<(String, String)>> {
    let Some(link) = newest_reachable(repo, dir, commit, true)? else {
        return Ok(None);
    };
    let bytes = repo
        .blob_at(link.commit, &dir.path_of(MANIFEST))?
        .unwrap_or_default();
    Ok(Some((link.tag, checksum(&bytes))))
}

/// The handoff files that differ between two commits (repository-relative, sorted); the
/// lock and temporary files aside.
pub fn changed_files(
    repo: &Repo,
    dir: &HandoffDir,
    a: ObjectId,
    b: ObjectId,
) -> Result<Vec<String>> {
    let (x, y) = (handoff_blobs(repo, dir, a)?, handoff_blobs(repo, dir, b)?);
    let mut names: Vec<String> = x
        .iter()
        .filter(|(n, id)| y.get(*n) != Some(id))
        .map(|(n, _)| n.clone())
        .chain(y.keys().filter(|n| !x.contains_key(*n)).cloned())
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// The handoff files of `dir` in commit `c` (repository-relative) with their blob ids; the
/// lock and temporary files aside.
fn handoff_blobs(repo: &Repo, dir: &HandoffDir, c: ObjectId) -> Result<BTreeMap<String, ObjectId>> {
    Ok(repo
        .tree_dir(c, &dir.rel)?
        .into_iter()
        .filter(|e| !is_transient(&e.name))
        .map(|e| (dir.path_of(&e.name), e.id))
        .collect())
}

/// What the session tags record, read once when a link needs it: the commits they point to
/// and, by the session ids they name, the commits of those sessions.
struct Sessions {
    commits: HashSet<ObjectId>,
    ids: std::collections::HashMap<String, Vec<ObjectId>>,
}

fn sessions_of(repo: &Repo) -> Result<Sessions> {
    let mut out = Sessions {
        commits: HashSet::new(),
        ids: std::collections::HashMap::new(),
    };
    for (n, id) in session_tags(repo)? {
        out.commits.insert(id);
        if let Some(s) = read_link(repo, n, id)?.session {
            out.ids.entry(s).or_default().push(id);
        }
    }
    Ok(out)
}

/// The session ids named by the provenance lines of a LOG.md text.
fn provenance_ids(log: &[u8]) -> HashSet<String> {
    let text = String::from_utf8_lossy(log);
    text.lines()
        .filter(|l| l.starts_with(crate::handoff::manifest::PROVENANCE_PREFIX))
        .filter_map(|l| {
            let rest = &l[l.find(", session `")? + ", session `".len()..];
            Some(rest[..rest.find('`')?].to_string())
        })
        .collect()
}

/// The handoff files that the commits of `from..to` changed outside a session, sorted. A
/// merge is the merge driver's (a branch's sessions joined, README "Branches and merges")
/// for each file it takes from one side or that both sides changed; a file it makes
/// different from every side that at most one side changed is an edit the merge carried
/// (review atk38 #4). A commit a session tag points to is that session's; so is a commit
/// whose LOG.md gains the provenance line of a session a tag names (the session's commit
/// rebased or cherry-picked: its tag stays on the commit it was copied from), for the files
/// that session changed, each as the session left it unless the commit's parent had changed
/// it too; a file the copied session did not change, or one it changes otherwise, is an
/// edit dressed as the copy (a provenance line is one line anyone can paste). Anything else
/// that touched the handoff (a plain `git commit` of its files) is outside the protocol.
fn changed_outside_sessions(
    repo: &Repo,
    dir: &HandoffDir,
    from: ObjectId,
    to: ObjectId,
    sessions: &mut Option<Sessions>,
) -> Result<Vec<String>> {
    let log = dir.path_of(crate::handoff::log::LOG_FILE);
    let mut out = Vec::new();
    for c in repo.range_commits(Some(from), to)? {
        let parents = repo.commit_parents(c)?;
        if parents.len() > 1 {
            out.extend(carried_by_merge(repo, dir, c, &parents)?);
            continue;
        }
        let files = match parents.first() {
            Some(&p) => changed_files(repo, dir, p, c)?,
            None => continue,
        };
        if files.is_empty() {
            continue;
        }
        if sessions.is_none() {
            *sessions = Some(sessions_of(repo)?);
        }
        let Some(known) = sessions.as_ref() else {
            continue;
        };
        if known.commits.contains(&c) {
            continue;
        }
        let before = provenance_ids(&repo.blob_at(parents[0], &log)?.unwrap_or_default());
        let after = provenance_ids(&repo.blob_at(c, &log)?.unwrap_or_default());
        // The sessions this commit may be a copy of: tagged, named by a provenance line it
        // adds, and not in its own history (a session already applied is not copied again).
        let mut originals = Vec::new();
        for id in after.iter().filter(|id| !before.contains(*id)) {
            for &t in known.ids.get(id).into_iter().flatten() {
                if !repo.is_ancestor(t, c)? {
                    let start = repo.commit_parents(t)?.first().copied();
                    let start = match start {
                        Some(b) => handoff_blobs(repo, dir, b)?,
                        None => BTreeMap::new(),
                    };
                    originals.push((handoff_blobs(repo, dir, t)?, start));
                }
            }
        }
        if originals.is_empty() {
            out.extend(files);
            continue;
        }
        let (was, now) = (
            handoff_blobs(repo, dir, parents[0])?,
            handoff_blobs(repo, dir, c)?,
        );
        for f in files {
            let copied = originals.iter().any(|(left, start)| {
                let (left, start) = (left.get(&f), start.get(&f));
                // The session changed it, and the copy leaves it as the session did unless
                // the copy's parent had changed it too (a rebase's merge of both).
                left != start && (now.get(&f) == left || was.get(&f) != start)
            });
            if !copied {
                out.push(f);
            }
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The handoff files merge `c` (of `parents`) makes different from every parent although at
/// most one parent changed them since the merge base of the first two: a merge takes such a
/// file from the side that changed it, so any other content is an edit it carried.
fn carried_by_merge(
    repo: &Repo,
    dir: &HandoffDir,
    c: ObjectId,
    parents: &[ObjectId],
) -> Result<Vec<String>> {
    let files = changed_files(repo, dir, parents[0], c)?;
    if files.is_empty() {
        return Ok(files);
    }
    let now = handoff_blobs(repo, dir, c)?;
    let sides = parents
        .iter()
        .map(|&p| handoff_blobs(repo, dir, p))
        .collect::<Result<Vec<_>>>()?;
    let base = match repo.merge_base(parents[0], parents[1])? {
        Some(b) => handoff_blobs(repo, dir, b)?,
        None => BTreeMap::new(),
    };
    Ok(files
        .into_iter()
        .filter(|f| {
            let here = now.get(f);
            !sides.iter().any(|s| s.get(f) == here)
                && sides.iter().filter(|s| s.get(f) != base.get(f)).count() < 2
        })
        .collect())
}

/// The commit of an interrupted `git aahp commit` of `dir` (its journal names it, or it is
/// `head` with the planned tree) when it lies between the session tag `tagged` and `head`,
/// with the commit it started from (its first parent).
fn pending_session(
    repo: &Repo,
    dir: &HandoffDir,
    tagged: ObjectId,
    head: ObjectId,
) -> Result<Option<(ObjectId, ObjectId)>> {
    let Some(journal) = super::journal::Journal::load(repo, &dir.rel)? else {
        return Ok(None);
    };
    let Some(commit) = journal.session_commit(repo, Some(head))? else {
        return Ok(None);
    };
    if commit != head && !repo.is_ancestor(commit, head)? {
        return Ok(None);
    }
    let Some(start) = repo.commit_parents(commit)?.first().copied() else {
        return Ok(None);
    };
    if start != tagged && !repo.is_ancestor(tagged, start)? {
        return Ok(None);
    }
    Ok(Some((start, commit)))
}

/// Walks the chain of `dir` from `head` back to its first session (at most `max` links):
/// each link's previous tag must still point to a commit whose manifest has the checksum the
/// link recorded, and the session must have started from exactly that tag's handoff.
pub fn walk(repo: &Repo, dir: &HandoffDir, head: ObjectId, max: usize) -> Result<ChainReport> {
    let mut report = ChainReport::default();
    let Some(mut cur) = newest_reachable(repo, dir, head, false)? else {
        return Ok(report);
    };
    if cur.commit != head {
        report.since_last = match pending_session(repo, dir, cur.commit, head)? {
            // A session whose commit exists but whose `commit` was interrupted before the
            // tag (recover finishes it) is a session, not a change outside one: only what
            // came before it or after it counts.
            Some((start, commit)) => {
                let mut files = changed_files(repo, dir, cur.commit, start)?;
                files.extend(changed_files(repo, dir, commit, head)?);
                files.sort();
                files.dedup();
                files
            }
            None => changed_files(repo, dir, cur.commit, head)?,
        };
        // Other branches' sessions merged in since are no change outside a session.
        if !report.since_last.is_empty() {
            let mut sessions = None;
            let outside = changed_outside_sessions(repo, dir, cur.commit, head, &mut sessions)?;
            report.since_last.retain(|f| outside.contains(f));
        }
    }
    let mut seen = HashSet::new();
    let mut sessions = None;
    while seen.insert(cur.tag.clone()) && report.tags.len() < max {
        report.tags.push(cur.tag.clone());
        let Some(previous) = cur.previous.clone() else {
            report.unlinked_start = Some(cur.tag.clone());
            break;
        };
        let Some((ptag, psum)) = previous else {
            break;
        };
        let Some(pn) = ptag
            .strip_prefix("aahp/session-")
            .and_then(super::session_number)
        else {
            // The field is text anyone who can push a tag wrote: it is named by what it is
            // not, never quoted (review s28 #1: a sentence joined by no-break spaces read as
            // one tag name and reached the next agent's context).
            report.breaks.push(Break {
                from: "a tag that is not a session tag".to_string(),
                to: cur.tag.clone(),
                files: Vec::new(),
                reason: format!(
                    "{} names as its previous tag one that is not a session tag \
                     (`aahp/session-N`); its `previous:` field is not shown",
                    cur.tag
                ),
            });
            break;
        };
        let Some(pcommit) = repo.find_ref(&format!("{TAG_PREFIX}{pn}"))? else {
            report.breaks.push(Break {
                from: ptag.clone(),
                to: cur.tag.clone(),
                files: Vec::new(),
                reason: format!("the previous session tag {ptag} was deleted"),
            });
            break;
        };
        // Moved to a tree or a blob, it names no handoff: a break, not a read that fails.
        if !repo.is_commit(pcommit) {
            report.breaks.push(Break {
                from: ptag.clone(),
                to: cur.tag.clone(),
                files: Vec::new(),
                reason: format!(
                    "the previous session tag {ptag} now points to no commit: the tag was moved"
                ),
            });
            break;
        }
        let at_previous = checksum(
            &repo
                .blob_at(pcommit, &dir.path_of(MANIFEST))?
                .unwrap_or_default(),
        );
        if at_previous != psum {
            report.breaks.push(Break {
                from: ptag.clone(),
                to: cur.tag.clone(),
                files: vec![dir.path_of(MANIFEST)],
                reason: format!(
                    "{ptag} now points to a handoff whose manifest is not the one {} recorded: \
                     the tag was moved or recreated",
                    cur.tag
                ),
            });
        }
        // The state the session started from is its commit's first parent.
        let start = repo.commit_parents(cur.commit)?.first().copied();
        if let Some(start) = start {
            let mut files = changed_files(repo, dir, pcommit, start)?;
            if !files.is_empty() {
                files = changed_outside_sessions(repo, dir, pcommit, start, &mut sessions)?;
            }
            if !files.is_empty() {
                report.breaks.push(Break {
                    from: ptag.clone(),
                    to: cur.tag.clone(),
                    files,
                    reason: format!(
                        "the handoff changed outside the protocol between {ptag} and {}",
                        cur.tag
                    ),
                });
            }
        }
        cur = read_link(repo, pn, pcommit)?;
    }
    Ok(report)
}

/// The newest link of the chain of `dir`, checked cheaply for `status` and `context`: where
/// it does not hold, and what was committed since the newest session outside a session, as
/// sentences.
pub fn newest_warnings(repo: &Repo, dir: &HandoffDir) -> Result<Vec<String>> {
    let Some(head) = repo.head_commit()? else {
        return Ok(Vec::new());
    };
    let walked = walk(repo, dir, head, 1)?;
    let mut out: Vec<String> = walked
        .breaks
        .iter()
        .map(|b| {
            if b.files.is_empty() {
                b.reason.clone()
            } else {
                format!("{} ({})", b.reason, b.files.join(", "))
            }
        })
        .collect();
    if let (Some(tag), false) = (walked.tags.first(), walked.since_last.is_empty()) {
        out.push(format!(
            "committed since {tag} outside a session: {}",
            some_names(&walked.since_last)
        ));
    }
    Ok(out)
}

/// The first ten of `names`, and how many more: a list that grows with what anyone commits
/// must not crowd the rest of the handoff out of the next agent's budget (review s28 #8).
pub fn some_names(names: &[String]) -> String {
    const SHOWN: usize = 10;
    let shown = names
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        format!("{shown} and {} more", names.len() - SHOWN)
    } else {
        shown
    }
}
