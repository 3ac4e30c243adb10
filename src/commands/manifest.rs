//! `git aahp manifest`: regenerate MANIFEST.json from the files on disk, or `--check` that it
//! is current without writing.

use std::io::{self, Write};

use serde::Serialize;

use super::Context;
use crate::error::{Error, ExitStatus, Result};
use crate::git::Repo;
use crate::handoff::checksum_cache::BlobCache;
use crate::handoff::manifest::{Manifest, SessionInfo};
use crate::handoff::{HandoffDir, MANIFEST, write_atomic};
use crate::output::{Report, Style, boundary, escape_untrusted};
use crate::transaction::SessionClaim;
use crate::transaction::writer::HandoffWrite;

/// Regenerate MANIFEST.json (checksums, summaries, token budget) from the handoff files.
///
/// Fields the tool does not own (tasks, `next_task_id`, `cross_repo_ref`, …) are kept as they
/// are. When no file changed and no session option is given, nothing is written.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ManifestArgs {
    /// Record the agent that ran this session.
    #[arg(long)]
    pub agent: Option<String>,
    /// Record the session id (it also names the session whose HANDOFF.lock this write uses;
    /// else `AAHP_SESSION_ID`, else the session `begin` started in this worktree).
    #[arg(long)]
    pub session_id: Option<String>,
    /// Record the session phase.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(crate::handoff::manifest::PHASES))]
    pub phase: Option<String>,
    /// Set `quick_context`, the one-paragraph orientation for the next agent (≤ 500 characters).
    #[arg(long)]
    pub context: Option<String>,
    /// Record the session's duration in minutes.
    #[arg(long)]
    pub duration: Option<u64>,
    /// Set the project name.
    #[arg(long)]
    pub project: Option<String>,
    /// Write nothing; exit 1 when the manifest is stale.
    #[arg(long)]
    pub check: bool,
}

impl ManifestArgs {
    /// The session fields these options set.
    pub fn session_info(&self) -> SessionInfo {
        SessionInfo {
            agent: self.agent.clone(),
            session_id: self.session_id.clone(),
            phase: self.phase.clone(),
            duration_minutes: self.duration,
            context: self.context.clone(),
            project: self.project.clone(),
        }
    }
}

/// The result of `git aahp manifest`.
#[derive(Debug, Serialize)]
pub struct ManifestReport {
    /// Repository-relative path of the manifest.
    pub path: String,
    /// Whether the manifest was rewritten.
    pub written: bool,
    /// With `--check`: whether the manifest is out of date.
    pub stale: bool,
    /// Whether this was a check only.
    pub check: bool,
    /// Files whose entries changed (the removed ones included).
    pub changed_files: Vec<String>,
    /// Files the previous manifest indexed that are gone: their entries were dropped.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed_files: Vec<String>,
    /// With `--check`: where the manifest on disk fails the schema (`verify` fails it too).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub schema_errors: Vec<String>,
    /// Present when the manifest held conflict markers and was rebuilt from both sides: the
    /// tasks of the incoming side renumbered because the other side had taken their id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rebuilt_from_conflict: Option<Vec<Renumbered>>,
    /// What the rebuild of a conflicted manifest did not take from a side, and why (a task
    /// status further along won).
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "boundary::list"
    )]
    pub merge_notes: Vec<String>,
    /// The LOG.md that records the renumbering in an entry (none when nothing was renumbered,
    /// or when LOG.md itself holds conflict markers: the note on each task is then the record).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "boundary::opt_line"
    )]
    pub logged: Option<String>,
    /// How many files the manifest indexes.
    pub indexed: usize,
    /// The token budget recorded.
    pub token_budget: serde_json::Value,
}

/// A task id the rebuild of a conflicted manifest changed.
#[derive(Debug, Serialize)]
pub struct Renumbered {
    /// The id the incoming side gave the task.
    #[serde(serialize_with = "boundary::line")]
    pub from: String,
    /// Its id now.
    #[serde(serialize_with = "boundary::line")]
    pub to: String,
}

impl Report for ManifestReport {
    fn command(&self) -> &'static str {
        "manifest"
    }

    fn write_human(&self, w: &mut dyn Write, style: &Style) -> io::Result<()> {
        if self.check {
            if self.stale {
                writeln!(w, "{}: {} is stale", style.error("stale"), self.path)?;
                for f in &self.changed_files {
                    writeln!(w, "  changed: {f}")?;
                }
                for e in &self.schema_errors {
                    writeln!(w, "  schema: {}", escape_untrusted(e))?;
                }
                writeln!(w, "hint: run `git aahp manifest` to regenerate it")?;
            } else {
                writeln!(
                    w,
                    "{} is current ({} files indexed)",
                    self.path, self.indexed
                )?;
            }
            return Ok(());
        }
        if let Some(renumbered) = &self.rebuilt_from_conflict {
            writeln!(
                w,
                "{} held merge conflict markers: rebuilt from both sides",
                self.path
            )?;
            for r in renumbered {
                writeln!(
                    w,
                    "  renumbered: task {} of the incoming side is now {} (its id was taken on this side; noted on the task)",
                    escape_untrusted(&r.from),
                    escape_untrusted(&r.to)
                )?;
            }
            for n in &self.merge_notes {
                writeln!(w, "  note: {}", escape_untrusted(n))?;
            }
            if let Some(log) = &self.logged {
                writeln!(w, "  logged: the renumbering, in {}", escape_untrusted(log))?;
            } else if !renumbered.is_empty() {
                writeln!(
                    w,
                    "{}: LOG.md holds conflict markers too: the renumbering is recorded on the tasks only",
                    style.warn("warning")
                )?;
            }
        }
        if self.written {
            writeln!(w, "{} written: {} files indexed", self.path, self.indexed)?;
            for f in &self.changed_files {
                let what = if self.removed_files.contains(f) {
                    "removed"
                } else {
                    "updated"
                };
                writeln!(w, "  {what}: {f}")?;
            }
            for f in self.removed_files.iter().filter(|f| *f == "STATUS.md") {
                writeln!(
                    w,
                    "{}: {f} is missing: the next agent has no current state, and the gate \
                     refuses a commit without it (`git aahp init` writes the missing handoff \
                     files from the templates)",
                    style.warn("warning")
                )?;
            }
        } else {
            writeln!(
                w,
                "{} is up to date: {} files indexed",
                self.path, self.indexed
            )?;
        }
        if self.rebuilt_from_conflict.is_some() {
            writeln!(
                w,
                "hint: check it, then `git add -- {}` to mark the conflict resolved",
                crate::output::shell_word(&self.path)
            )?;
        }
        let b = &self.token_budget;
        writeln!(
            w,
            "token budget (o200k): manifest {}, +core {}, full {}",
            b["manifest_only"], b["manifest_plus_core"], b["full_read"]
        )
    }

    fn status(&self) -> ExitStatus {
        if self.check && self.stale {
            ExitStatus::Findings
        } else {
            ExitStatus::Success
        }
    }
}

/// The manifest merged from the two sides of a MANIFEST.json that holds git conflict
/// markers, by the merge driver's rules (tasks unioned, a clashing id of the incoming side
/// renumbered and noted on the task), and the renamed ids. The ancestor is the index's
/// stage 1 entry when the merge left one (so a task both sides edited stays one task), else
/// empty. A side that is not a JSON object is an error naming the file.
fn conflicted_manifest(
    repo: &Repo,
    dir: &HandoffDir,
    bytes: &[u8],
) -> Result<super::merge_driver::MergedFields> {
    let path = dir.path_of(MANIFEST);
    let sides = std::str::from_utf8(bytes)
        .ok()
        .and_then(crate::handoff::merge::split_conflict);
    let parse = |t: &str| Manifest::parse(&path, t.as_bytes()).ok();
    let Some((o, t)) = sides.and_then(|(o, t)| Some((parse(&o)?, parse(&t)?))) else {
        return Err(Error::invalid(
            &path,
            None,
            "holds merge conflict markers, and a side between them is not a JSON object this tool can write back (malformed, or a number it cannot keep exactly): resolve it by hand or take one side (`git checkout --ours` or `--theirs`), then run `git aahp manifest`",
        ));
    };
    let empty = || Manifest {
        doc: serde_json::Map::new(),
    };
    let base = Repo::index_stage_blob(&*repo.index()?, &path, 1)
        .map(|id| {
            repo.blob_within(id, crate::handoff::max_bytes(MANIFEST))?
                .map_err(|size| crate::handoff::too_large_blob(&path, size))
        })
        .transpose()?
        .and_then(|b| Manifest::parse_read_only(&path, &b).ok())
        .unwrap_or_else(empty);
    let merged = super::merge_driver::merge_manifest_fields(&base, &o, &t);
    if !merged.conflicts.is_empty() {
        return Err(Error::invalid(
            &path,
            None,
            format!(
                "holds merge conflict markers, and both sides changed {} to different values: choose between them by hand in the markers, then run `git aahp manifest`",
                merged.conflicts.join(", ")
            ),
        ));
    }
    Ok(merged)
}

/// Adds the LOG.md entry recording the ids a conflicted manifest's rebuild renumbered.
/// Returns false, writing nothing, when LOG.md holds conflict markers itself (the entry
/// would land inside one side; the note on each task records the renaming).
fn log_renumbering(
    dir: &HandoffDir,
    renamed: &[(String, String)],
    now: jiff::Timestamp,
) -> Result<bool> {
    use crate::transaction::steps::{append_log, read_text};
    let log = read_text(dir, crate::handoff::log::LOG_FILE)?.unwrap_or_default();
    if log.lines().any(|l| l.starts_with("<<<<<<< ")) {
        return Ok(false);
    }
    let mut entry = format!(
        "## [{}] git-aahp: Manifest rebuild renumbered task ids\n\n`git aahp manifest` rebuilt {} from the two sides of a merge conflict: the incoming side had added tasks under ids this side already used; they were renumbered (`renumbered_from` and a note on each task):\n",
        crate::clock::utc_date(now),
        boundary::clean_line(&dir.path_of(MANIFEST))
    );
    entry.push_str(&super::merge_driver::renumbered_list(renamed));
    append_log(dir, &entry, &|name, bytes| {
        crate::transaction::steps::write_file(dir, name, bytes)
    })?;
    Ok(true)
}

/// Runs `git aahp manifest`.
pub fn run(ctx: &Context, args: &ManifestArgs) -> Result<ManifestReport> {
    let repo = ctx.repo()?;
    let dir = ctx.existing_handoff()?;
    boundary::admit(&dir, "--context", args.context.as_deref())?;
    boundary::admit(&dir, "--agent", args.agent.as_deref())?;
    boundary::admit(&dir, "--phase", args.phase.as_deref())?;
    // A check writes nothing and needs no lock; a write holds it from the read on.
    let write = if args.check {
        None
    } else {
        let claim = SessionClaim {
            session_id: args
                .session_id
                .clone()
                .or_else(|| std::env::var("AAHP_SESSION_ID").ok()),
            agent: None,
        };
        Some(HandoffWrite::begin(
            repo,
            &dir,
            &claim,
            ctx.now,
            "git aahp manifest",
            &[MANIFEST],
        )?)
    };
    // LOG-ARCHIVE.md and its index are hashed and summarised in pieces, never held (issue
    // #12 item 2).
    let streamed = [
        crate::handoff::log::ARCHIVE_FILE,
        crate::handoff::log::INDEX_FILE,
    ];
    let mut snap = dir.snapshot_worktree_streaming(&streamed)?;
    let mut conflict = None;
    let mut merge_notes = Vec::new();
    let old = match Manifest::from_snapshot(&dir, &snap) {
        // A merge left both sides' manifests inside conflict markers (issue #17): rebuilt
        // from their merged fields instead of failing; a check still fails.
        Err(Error::Conflicted { .. }) if !args.check => {
            let bytes = snap.get(MANIFEST).unwrap_or_default();
            let merged = conflicted_manifest(repo, &dir, bytes)?;
            conflict = Some(merged.renamed);
            merge_notes = merged.notes;
            Some(merged.manifest)
        }
        other => other?,
    };
    // Renumbered ids are logged as the merge driver logs them (issue #17), before the
    // manifest is regenerated so that it indexes the new LOG.md.
    let logged = match &conflict {
        Some(renamed) if !renamed.is_empty() => log_renumbering(&dir, renamed, ctx.now)?,
        _ => false,
    };
    let logged = logged.then(|| dir.path_of(crate::handoff::log::LOG_FILE));
    if logged.is_some() {
        snap = dir.snapshot_worktree_streaming(&streamed)?;
    }
    let commit = repo.head_commit()?.map(crate::git::Repo::short);
    let mut counts = BlobCache::token_counts(repo);
    let regen = Manifest::regenerate(
        old.as_ref(),
        &dir,
        &snap,
        &args.session_info(),
        commit.as_deref(),
        ctx.now,
        &mut counts,
    )?;
    let path = dir.path_of(MANIFEST);
    // A check ignores session options: only content decides staleness, and a manifest that
    // fails the schema is never current (issue #12, L5).
    let schema_errors = match (&old, args.check) {
        (Some(m), true) => {
            crate::schema::validate_manifest(&serde_json::Value::Object(m.doc.clone()))
        }
        _ => Vec::new(),
    };
    let stale = if args.check {
        !schema_errors.is_empty()
            || Manifest::regenerate(
                old.as_ref(),
                &dir,
                &snap,
                &SessionInfo::default(),
                commit.as_deref(),
                ctx.now,
                &mut counts,
            )?
            .changed
    } else {
        false
    };
    counts.save();
    let written = !args.check && (regen.changed || conflict.is_some());
    if written {
        write_atomic(&dir.abs.join(MANIFEST), &regen.manifest.to_bytes()).map_err(|source| {
            Error::Write {
                path: path.clone(),
                source,
            }
        })?;
    }
    if let Some(w) = write {
        w.finish()?;
    }
    Ok(ManifestReport {
        path,
        written,
        stale,
        check: args.check,
        indexed: snap.indexed_names().len(),
        removed_files: regen
            .changed_files
            .iter()
            .filter(|f| !snap.contains(f))
            .cloned()
            .collect(),
        changed_files: regen.changed_files,
        schema_errors,
        logged,
        merge_notes,
        rebuilt_from_conflict: conflict.map(|renamed| {
            renamed
                .into_iter()
                .map(|(from, to)| Renumbered { from, to })
                .collect()
        }),
        token_budget: regen
            .manifest
            .doc
            .get("token_budget")
            .cloned()
            .unwrap_or_default(),
    })
}
