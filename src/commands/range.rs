//! Where `verify` finds the commits it judges when no index is involved (SPEC §3.6): the base
//! of `--level ci` (`--base`, `AAHP_BASE_SHA`, or what GitHub Actions provides) and, for a
//! push that names no refs, the commits no remote-tracking ref holds. Both fail closed: a
//! base that cannot be used is reported as a blocking problem, never turned into an empty
//! range. Reads git in-process only.

use std::io::Read;

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::git::Repo;
use crate::output::boundary::Untrusted;
use crate::output::escape_untrusted;

/// How to give `verify --level ci` a base, printed under a base failure.
pub const BASE_HINT: &str = "pass a base that resolves and differs from HEAD: `--base origin/main` \
     or `AAHP_BASE_SHA=<sha>`; in GitHub Actions check out with `fetch-depth: 0` \
     (actions/checkout) so that the pull request's base or the push's `before` is in the clone";

/// The largest GitHub event file read (GitHub caps webhook payloads at 25 MB).
const EVENT_LIMIT: u64 = 32 * 1024 * 1024;

/// The range a check judged: the changes from `from` (the empty tree when absent) to `to`.
#[derive(Debug, Clone, Serialize)]
pub struct JudgedRange {
    /// The base asked for, as given (a revision, a ref or an id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<Untrusted>,
    /// Where that base came from (`--base`, `AAHP_BASE_SHA`, `GITHUB_BASE_REF`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_from: Option<&'static str>,
    /// The commit the changes are counted from (the merge base); `null` means the empty tree,
    /// so every file of `to` counts as added.
    pub from: Option<String>,
    /// The commit judged.
    pub to: String,
}

impl JudgedRange {
    /// One line for humans: `1a2b3c4..5d6e7f8 (merge base with `origin/main` from GITHUB_BASE_REF)`.
    pub fn describe(&self) -> String {
        let to = short_hex(&self.to);
        let why = match (&self.base, self.base_from) {
            (Some(b), Some(from)) => {
                format!(" (merge base with `{}` from {from})", b.shown_line())
            }
            (Some(b), None) => format!(" (merge base with `{}`)", b.shown_line()),
            (None, _) => String::new(),
        };
        match &self.from {
            Some(from) => format!("{}..{to}{why}", short_hex(from)),
            None => format!("every commit up to {to}, from the empty tree{why}"),
        }
    }
}

fn short_hex(hex: &str) -> &str {
    hex.get(..7).unwrap_or(hex)
}

/// Where a CI base came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BaseOrigin {
    Arg,
    Env,
    GithubBaseRef,
    PullRequestEvent,
    MergeGroupEvent,
    PushEvent,
}

impl BaseOrigin {
    fn describe(self) -> &'static str {
        match self {
            BaseOrigin::Arg => "--base",
            BaseOrigin::Env => "AAHP_BASE_SHA",
            BaseOrigin::GithubBaseRef => "GITHUB_BASE_REF",
            BaseOrigin::PullRequestEvent => "pull_request.base.sha in $GITHUB_EVENT_PATH",
            BaseOrigin::MergeGroupEvent => "merge_group.base_sha in $GITHUB_EVENT_PATH",
            BaseOrigin::PushEvent => "the push event's `before` in $GITHUB_EVENT_PATH",
        }
    }
}

/// A base to try: the revision and where it came from.
struct Candidate {
    spec: String,
    origin: BaseOrigin,
}

impl Candidate {
    fn name(&self) -> String {
        format!(
            "base `{}` (from {})",
            escape_untrusted(&self.spec),
            self.origin.describe()
        )
    }
}

/// What `--level ci` compares, or why it cannot compare anything.
#[derive(Debug)]
pub enum CiBase {
    /// HEAD against the merge base with a usable base.
    Range {
        /// The merge base: where the judged changes start.
        merge_base: ObjectId,
        /// The range, for the report.
        range: JudgedRange,
    },
    /// No usable base: a sentence naming what was tried and why it cannot be used.
    Unusable(String),
}

/// Finds the base of `verify --level ci` for `head`: `--base`, else `AAHP_BASE_SHA`, else
/// what GitHub Actions provides (the pull request's base branch `origin/$GITHUB_BASE_REF`,
/// else its `pull_request.base.sha`; a merge queue's `base_sha`; a push's `before`). A
/// missing, all-zero, unresolvable or HEAD-equal base, or one whose merge base with HEAD is
/// HEAD or absent, is [`CiBase::Unusable`]. `env` reads an environment variable.
///
/// Exit 2 only for an event file that cannot be read or parsed.
pub fn ci_base(
    repo: &Repo,
    head: ObjectId,
    arg: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<CiBase> {
    let candidates = ci_candidates(arg, env)?;
    if candidates.is_empty() {
        return Ok(CiBase::Unusable(
            "no base to compare HEAD with: --base was not given, AAHP_BASE_SHA is unset, and \
             neither GITHUB_BASE_REF nor a pull request or push event in GITHUB_EVENT_PATH \
             names one"
                .into(),
        ));
    }
    let mut tried = Vec::new();
    let mut chosen = None;
    for c in candidates {
        if c.spec.trim().is_empty() {
            tried.push(format!("{} is empty", c.name()));
        } else if is_zero_id(&c.spec) {
            tried.push(format!(
                "{} is all zeros (a push that created the branch has no previous commit)",
                c.name()
            ));
        } else {
            match repo.resolve_commit(c.spec.trim()) {
                Ok(id) => {
                    chosen = Some((c, id));
                    break;
                }
                Err(e) => tried.push(format!(
                    "{} does not resolve to a commit in this clone ({})",
                    c.name(),
                    error_chain(&e)
                )),
            }
        }
    }
    let Some((c, base)) = chosen else {
        return Ok(CiBase::Unusable(tried.join("; ")));
    };
    let head_short = Repo::short(head);
    if base == head {
        return Ok(CiBase::Unusable(format!(
            "{} is HEAD itself ({head_short}): nothing would be compared",
            c.name()
        )));
    }
    let merge_base = match repo.merge_base(base, head) {
        Ok(Some(m)) => m,
        Ok(None) => {
            return Ok(CiBase::Unusable(format!(
                "{} ({}) shares no history with HEAD ({head_short}): a shallow clone?",
                c.name(),
                Repo::short(base)
            )));
        }
        Err(e) => {
            return Ok(CiBase::Unusable(format!(
                "the merge base of {} ({}) and HEAD ({head_short}) cannot be found ({}): a \
                 shallow clone?",
                c.name(),
                Repo::short(base),
                error_chain(&e)
            )));
        }
    };
    if merge_base == head {
        return Ok(CiBase::Unusable(format!(
            "{} ({}) already contains HEAD ({head_short}): the range is empty, nothing would \
             be compared",
            c.name(),
            Repo::short(base)
        )));
    }
    Ok(CiBase::Range {
        merge_base,
        range: JudgedRange {
            base: Some(Untrusted::new(c.spec)),
            base_from: Some(c.origin.describe()),
            from: Some(merge_base.to_string()),
            to: head.to_string(),
        },
    })
}

/// The bases to try, in order. `--base` and `AAHP_BASE_SHA` stand alone; GitHub's pull
/// request base is tried as `origin/<ref>` first, then as the event's `base.sha`.
fn ci_candidates(
    arg: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Candidate>> {
    if let Some(a) = arg {
        return Ok(vec![Candidate {
            spec: a.to_string(),
            origin: BaseOrigin::Arg,
        }]);
    }
    let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    if let Some(sha) = set("AAHP_BASE_SHA") {
        return Ok(vec![Candidate {
            spec: sha,
            origin: BaseOrigin::Env,
        }]);
    }
    let mut out = Vec::new();
    if let Some(r) = set("GITHUB_BASE_REF") {
        out.push(Candidate {
            spec: format!("origin/{}", r.trim()),
            origin: BaseOrigin::GithubBaseRef,
        });
    }
    if let Some(path) = set("GITHUB_EVENT_PATH") {
        let candidate = read_event(&path)?.candidate();
        // Whoever wrote the event chose the base: messages quote it (gix's `Debug` of
        // a revision it cannot parse), so a secret in it is redacted wherever it lands.
        if let Some(c) = &candidate {
            crate::output::boundary::note_input(&c.spec);
        }
        out.extend(candidate);
    }
    Ok(out)
}

/// The parts of a GitHub Actions event payload that name a base.
#[derive(Debug, Default, Deserialize)]
struct Event {
    pull_request: Option<PullRequest>,
    merge_group: Option<MergeGroup>,
    before: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct PullRequest {
    base: Option<PullRequestBase>,
}

#[derive(Debug, Default, Deserialize)]
struct PullRequestBase {
    sha: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct MergeGroup {
    base_sha: Option<String>,
}

impl Event {
    /// The event's base: a pull request's (whose `before`, on `synchronize`, is the previous
    /// head of the pull request, not its base), else a merge group's, else a push's `before`.
    fn candidate(self) -> Option<Candidate> {
        if let Some(pr) = self.pull_request {
            return pr.base.and_then(|b| b.sha).map(|spec| Candidate {
                spec,
                origin: BaseOrigin::PullRequestEvent,
            });
        }
        if let Some(mg) = self.merge_group {
            return mg.base_sha.map(|spec| Candidate {
                spec,
                origin: BaseOrigin::MergeGroupEvent,
            });
        }
        self.before.map(|spec| Candidate {
            spec,
            origin: BaseOrigin::PushEvent,
        })
    }
}

/// Reads and parses the event file at `path` (a regular file of at most [`EVENT_LIMIT`]
/// bytes); anything else is bad input, exit 2.
fn read_event(path: &str) -> Result<Event> {
    let name = path.to_string();
    let read_err = |source| Error::Read {
        path: name.clone(),
        source,
    };
    // A FIFO or device would block or never end: only a regular file is read.
    let meta = std::fs::metadata(path).map_err(read_err)?;
    if !meta.is_file() {
        return Err(Error::invalid(
            &name,
            None,
            "the GitHub event file ($GITHUB_EVENT_PATH) is not a regular file",
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(read_err)?
        .take(EVENT_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(read_err)?;
    if bytes.len() as u64 > EVENT_LIMIT {
        return Err(Error::invalid(
            &name,
            None,
            format!(
                "the GitHub event file ($GITHUB_EVENT_PATH) is larger than {} MiB",
                EVENT_LIMIT >> 20
            ),
        ));
    }
    serde_json::from_slice(&bytes).map_err(|e| {
        Error::invalid(
            &name,
            Some(e.line()),
            format!("the GitHub event file ($GITHUB_EVENT_PATH) does not parse: {e}"),
        )
    })
}

/// True for an id of zeros only (`git` and GitHub's "no commit").
fn is_zero_id(spec: &str) -> bool {
    let s = spec.trim();
    s.len() >= 7 && s.bytes().all(|b| b == b'0')
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

/// Where the commits of a push start when git named no refs (the pre-commit framework on a
/// first push gives none).
#[derive(Debug)]
pub enum Unpushed {
    /// Every commit of the branch is held by a remote-tracking ref: nothing new is pushed.
    Nothing,
    /// The commits after `base` (the newest commit of the branch's history that a
    /// remote-tracking ref holds) are new; `base = None`: no remote-tracking ref holds any
    /// of them, so every commit is new, the root commit included.
    From {
        /// Where the new commits start.
        base: Option<ObjectId>,
        /// The remote-tracking ref that holds `base`.
        held_by: Option<String>,
    },
}

/// Finds the commits of `tip` that no remote-tracking ref of `remote` holds
/// (`refs/remotes/<remote>/*`; every remote's when `None`). With several such refs, the
/// merge base nearest to `tip` wins, so only commits no ref holds are counted as new (or, for
/// histories that merged two remote branches, a superset of them). A push names its remote:
/// a commit another remote holds (a fork fetched for review, its commits made with
/// `--no-verify`) was never judged on the way to this one (review atk37 #4). A remote given
/// by its URL has no tracking refs: every commit of `tip` is new.
pub fn unpushed(repo: &Repo, tip: ObjectId, remote: Option<&str>) -> Result<Unpushed> {
    let mut seen = std::collections::HashSet::new();
    let mut best: Option<(ObjectId, String)> = None;
    let refs = match remote {
        None => repo.refs_with_prefix("refs/remotes/")?,
        // A URL or a path is no ref name: nothing holds the commits (judging more is the
        // safe side).
        Some(r) => repo
            .refs_with_prefix(&format!("refs/remotes/{r}/"))
            .unwrap_or_default(),
    };
    for (name, id) in refs {
        if !seen.insert(id) {
            continue;
        }
        if id == tip {
            return Ok(Unpushed::Nothing);
        }
        // A ref whose history cannot be walked (not a commit, a shallow boundary) holds
        // nothing we can count on: judging more commits is the safe side.
        let Ok(Some(m)) = repo.merge_base(id, tip) else {
            continue;
        };
        if m == tip {
            return Ok(Unpushed::Nothing);
        }
        let newer = match &best {
            None => true,
            Some((b, _)) => *b != m && repo.is_ancestor(*b, m)?,
        };
        if newer {
            best = Some((m, name));
        }
    }
    Ok(match best {
        Some((base, name)) => Unpushed::From {
            base: Some(base),
            held_by: Some(name),
        },
        None => Unpushed::From {
            base: None,
            held_by: None,
        },
    })
}
