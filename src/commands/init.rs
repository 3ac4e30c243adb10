//! `git aahp init`: scaffold the handoff directory from the templates compiled into the
//! binary and write a valid manifest; `--migrate` upgrades an AAHP v1 directory in place.
//!
//! Everything is computed in memory first (including the manifest, which decodes every
//! file), so bad input stops the command before anything is written; then each file is
//! replaced atomically and the manifest goes last.

use std::io::{self, Write};

use jiff::Timestamp;
use serde::Serialize;

use super::Context;
use crate::error::{Error, Result};
use crate::handoff::checksum_cache::BlobCache;
use crate::handoff::manifest::{Manifest, SessionInfo};
use crate::handoff::templates::TEMPLATES;
use crate::handoff::{HandoffDir, MANIFEST, Snapshot, Source, log, migrate, stream, write_atomic};
use crate::output::{Report, Style, boundary, escape_untrusted};
use crate::transaction::lock::LockState;
use crate::transaction::writer::WriteLock;

/// Create the handoff directory (.ai/handoff) with its files and a valid manifest.
///
/// Scaffolds `STATUS.md`, `NEXT_ACTIONS.md`, `LOG.md`, `LOG-ARCHIVE.md` (+ its index),
/// `TRUST.md`, `CONVENTIONS.md`, `WORKFLOW.md` and `.aiignore` from built-in templates, then
/// `MANIFEST.json`.
/// Existing files are kept unless --force; the manifest is regenerated losslessly (tasks and
/// other fields are preserved).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct InitArgs {
    /// The project name (default: the manifest's, else the repository directory's name).
    #[arg(long)]
    pub project: Option<String>,
    /// Overwrite existing files with the templates (the manifest is still regenerated
    /// losslessly).
    #[arg(long, conflicts_with = "migrate")]
    pub force: bool,
    /// Upgrade an AAHP v1 directory: add the manifest, .aiignore and missing files, section
    /// markers in STATUS.md and a TTL column note in TRUST.md. Never removes content.
    #[arg(long)]
    pub migrate: bool,
    /// Also configure a coding agent's hooks (repeatable): its sessions start with `git aahp
    /// context` and end with a reminder to `git aahp commit`.
    #[arg(long = "agent-hooks", value_enum, value_name = "HARNESS")]
    pub agent_hooks: Vec<super::agent_hook::Harness>,
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileAction {
    /// Did not exist; written from the template (or generated).
    Created,
    /// Existed and was left as it was.
    Kept,
    /// Existed and was replaced by the template (`--force`).
    Overwritten,
    /// Existed and was changed in place (migration, manifest regeneration).
    Updated,
}

impl FileAction {
    fn label(self) -> &'static str {
        match self {
            FileAction::Created => "created",
            FileAction::Kept => "kept",
            FileAction::Overwritten => "overwritten",
            FileAction::Updated => "updated",
        }
    }
}

/// One file in the report.
#[derive(Debug, Clone, Serialize)]
pub struct FileOutcome {
    /// Repository-relative path.
    pub path: String,
    /// What happened to it.
    pub action: FileAction,
    /// Why, for migrations and manifest updates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The result of `git aahp init`.
#[derive(Debug, Serialize)]
pub struct InitReport {
    /// Repository-relative path of the handoff directory.
    pub directory: String,
    /// The project name used in the templates and the manifest.
    pub project: String,
    /// Whether this was `--migrate`.
    pub migrate: bool,
    /// Every file, in order; MANIFEST.json last.
    pub files: Vec<FileOutcome>,
    /// With `--force`: the ref of a commit holding the handoff files as they were before
    /// the templates replaced them (nothing is lost).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
    #[serde(skip)]
    force: bool,
}

impl Report for InitReport {
    fn command(&self) -> &'static str {
        "init"
    }

    fn write_human(&self, w: &mut dyn Write, style: &Style) -> io::Result<()> {
        let verb = if self.migrate {
            "Migrated"
        } else {
            "Initialised"
        };
        writeln!(
            w,
            "{verb} {} for project \"{}\"",
            self.directory,
            escape_untrusted(&self.project)
        )?;
        for f in &self.files {
            let label = format!("{:<11}", f.action.label());
            let label = match f.action {
                FileAction::Created | FileAction::Updated => style.ok(&label),
                FileAction::Overwritten => style.warn(&label),
                FileAction::Kept => style.dim(&label),
            };
            write!(w, "  {label} {}", f.path)?;
            if let Some(d) = &f.detail {
                write!(w, " ({d})")?;
            }
            writeln!(w)?;
        }
        let count = |a: FileAction| self.files.iter().filter(|f| f.action == a).count();
        writeln!(
            w,
            "{} created, {} updated, {} kept, {} overwritten",
            count(FileAction::Created),
            count(FileAction::Updated),
            count(FileAction::Kept),
            count(FileAction::Overwritten)
        )?;
        if let Some(b) = &self.backup {
            writeln!(
                w,
                "backup: the replaced files are saved in {b} (`git checkout {b} -- {}` brings \
                 them back)",
                crate::output::shell_word(&self.directory)
            )?;
        }
        if !self.migrate
            && !self.force
            && self
                .files
                .iter()
                .any(|f| f.action == FileAction::Kept && !f.path.ends_with(MANIFEST))
        {
            writeln!(
                w,
                "hint: existing files were kept; `git aahp init --force` replaces them with \
                 the templates"
            )?;
        }
        writeln!(
            w,
            "next: `git aahp hooks install` gates commits on the handoff check"
        )
    }
}

/// A write `init` will make.
struct Planned {
    name: String,
    /// The new content (for a splice: the text after the kept bytes).
    bytes: Vec<u8>,
    action: FileAction,
    detail: Option<String>,
    /// How LOG-ARCHIVE.md or its index left on disk changes without being read whole
    /// (issue #12 item 2); `None`: `bytes` is the whole new file.
    streamed: Option<Streamed>,
}

/// A change to a file left on disk, planned by the split of LOG.md.
enum Streamed {
    /// Its first `keep` bytes stay and `Planned::bytes` follows them; `old_tail` is what
    /// followed them (the index's closing `]` and `}`), written back to roll back.
    Splice { keep: u64, old_tail: String },
    /// Written anew as a stream at the rotation's staged path, this many bytes long.
    Staged { len: u64 },
}

/// Runs `git aahp init`.
/// When the index tracks files below `dir` while the working tree holds no such directory
/// (a sparse checkout that leaves it out, a deletion): what is wrong and how to bring it
/// back.
pub(crate) fn tracked_but_absent(
    repo: &crate::git::Repo,
    dir: &HandoffDir,
) -> Result<Option<String>> {
    if dir.exists() {
        return Ok(None);
    }
    let index = repo.index()?;
    if !crate::git::Repo::index_has_dir(&index, &dir.rel) {
        return Ok(None);
    }
    Ok(Some(format!(
        "is tracked in the index but not in the working tree (outside a sparse checkout, or deleted): bring it back with `git sparse-checkout add {0}` or `git checkout -- {0}`",
        crate::output::shell_word(&dir.rel)
    )))
}

/// Refuses a new handoff directory at the root when `init` runs below it and nothing says
/// where: in a monorepo's package that is the wrong place as often as the right one (review
/// s28 #11), and a directory made in the wrong place gates the wrong code. An existing
/// directory (the nearest enclosing one), `--dir` and `aahp.dir` say where.
fn refuse_to_guess_the_place(
    ctx: &Context,
    repo: &crate::git::Repo,
    dir: &HandoffDir,
) -> Result<()> {
    if ctx.dir_given() || dir.exists() || dir.rel != crate::handoff::DEFAULT_DIR {
        return Ok(());
    }
    let root = repo.workdir();
    let here = std::fs::canonicalize(&ctx.cwd).unwrap_or_else(|_| ctx.cwd.clone());
    let below = here
        .strip_prefix(std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()))
        .ok()
        .filter(|rel| !rel.as_os_str().is_empty());
    let Some(below) = below else {
        return Ok(());
    };
    let below = below.to_string_lossy().replace('\\', "/");
    Err(Error::Usage(format!(
        "init runs in `{}`, below the repository's root, where no handoff directory exists: \
         say which to create: `git aahp init --dir .ai/handoff` here makes this directory's \
         own ({}/.ai/handoff, a package's in a monorepo), `git aahp init` at the root makes \
         the repository's (.ai/handoff)",
        crate::output::escape_untrusted(&below),
        crate::output::escape_untrusted(&below)
    )))
}

pub fn run(ctx: &Context, args: &InitArgs) -> Result<InitReport> {
    let repo = ctx.repo()?;
    let dir = ctx.handoff()?;
    if args.migrate && !dir.exists() {
        return Err(Error::NoHandoffDir(dir.rel));
    }
    refuse_to_guess_the_place(ctx, repo, &dir)?;
    if let Some(p) = &args.project
        && p.trim().is_empty()
    {
        return Err(Error::Usage("--project must not be empty".into()));
    }
    // The name is written into every template and MANIFEST.json: judged before anything is
    // written, new directory or existing one, as every other writer's text is (review s23
    // #14).
    boundary::admit(&dir, "--project", args.project.as_deref())?;
    // The harnesses' settings are read and checked before anything is written.
    let agent_hooks = args
        .agent_hooks
        .iter()
        .map(|&h| super::agent_hook::plan(repo.workdir(), h))
        .collect::<Result<Vec<_>>>()?;
    // A directory the index tracks but the working tree lacks (a sparse checkout that
    // leaves it out, a deletion) holds the project's tasks and history: fresh templates
    // written there would replace them at the next commit.
    if let Some(why) = tracked_but_absent(repo, &dir)? {
        return Err(Error::invalid(
            &dir.rel,
            None,
            format!("{why}; init would write fresh files over it"),
        ));
    }
    let _serial = WriteLock::acquire_with_index(repo, &dir, "git aahp init")?;
    refuse_if_locked(&dir, ctx.now)?;
    // A split of LOG.md that an earlier run left half done is finished before planning;
    // one killed while staging, before its journal, decided nothing.
    if crate::transaction::rotation::complete(repo, &dir)?.is_none() {
        crate::transaction::rotation::remove_stale_staging(&dir);
    }

    // LOG-ARCHIVE.md and its index stay on disk, hashed and summarised as streams (issue
    // #12 item 2), unless `--migrate` splits LOG.md (see `plan_log_split`).
    let mut snap = dir.snapshot(repo, Source::Worktree)?;
    let old = Manifest::from_snapshot(&dir, &snap)?;
    let project = args
        .project
        .clone()
        .or_else(|| {
            old.as_ref()
                .and_then(|m| m.str_field("project"))
                .filter(|p| !p.trim().is_empty())
                .map(String::from)
        })
        .map_or_else(|| default_project(&dir), Ok)?;
    let date = crate::clock::utc_date(ctx.now).to_string();

    let (mut plan, mut kept) = plan_templates(&dir, &snap, &project, &date, args.force);
    if args.migrate {
        plan_migration(&dir, &mut snap, &date, &mut plan, &mut kept)?;
    }

    // The snapshot as it will be after the writes: the manifest is computed from it, which
    // also decodes every file, so invalid input fails here with nothing written.
    let mut next = snap.clone();
    for p in &plan {
        match &p.streamed {
            None => {
                next.streamed.remove(&p.name);
                next.files.insert(p.name.clone(), p.bytes.clone());
            }
            Some(Streamed::Splice { keep, .. }) => {
                if let Some(s) = next.streamed.get_mut(&p.name) {
                    s.keep = *keep;
                    s.tail.clone_from(&p.bytes);
                }
            }
            &Some(Streamed::Staged { len }) => {
                let staged = crate::transaction::rotation::staged_path(&dir, &p.name);
                next.streamed
                    .insert(p.name.clone(), stream::Streamed::whole(staged, len));
            }
        }
    }
    let info = SessionInfo {
        // `project` is preserved unless given on the command line (SPEC §2.1).
        project: args
            .project
            .clone()
            .or_else(|| old.is_none().then(|| project.clone())),
        ..SessionInfo::default()
    };
    let commit = repo.head_commit()?.map(crate::git::Repo::short);
    let mut counts = BlobCache::token_counts(repo);
    let regen = Manifest::regenerate(
        old.as_ref(),
        &dir,
        &next,
        &info,
        commit.as_deref(),
        ctx.now,
        &mut counts,
    )
    .inspect_err(|_| crate::transaction::rotation::remove_stale_staging(&dir))?;
    counts.save();

    // `--force` replaces files an agent wrote: they are saved first (issue #15).
    let backup = if args.force
        && plan
            .iter()
            .any(|p| snap.get(&p.name).is_some_and(|b| b != p.bytes.as_slice()))
    {
        Some(backup_before_force(repo, &dir, ctx.now)?)
    } else {
        None
    };
    std::fs::create_dir_all(&dir.abs).map_err(|source| Error::Write {
        path: dir.rel.clone(),
        source,
    })?;
    // LOG.md, the archive and its index change together (a half-written split would be
    // split again: entries archived twice), first; the rest one by one.
    let journal_names = [log::LOG_FILE, log::ARCHIVE_FILE, log::INDEX_FILE];
    let (journal_files, single): (Vec<&Planned>, Vec<&Planned>) = plan
        .iter()
        .partition(|p| journal_names.contains(&p.name.as_str()));
    if !journal_files.is_empty() {
        let changes: Vec<crate::transaction::rotation::Change<'_>> = journal_files
            .iter()
            .map(|p| {
                use crate::transaction::rotation::{After, Before, Change, SpliceAt};
                // A file left on disk is kept there to roll back.
                let before = if snap.streamed.contains_key(&p.name) {
                    Before::OnDisk
                } else {
                    Before::Held(snap.get(&p.name))
                };
                match &p.streamed {
                    None => Change {
                        name: &p.name,
                        before,
                        after: After::Held(&p.bytes),
                        splice: None,
                    },
                    Some(Streamed::Splice { keep, old_tail }) => Change {
                        name: &p.name,
                        before: Before::Held(None),
                        after: After::Held(&p.bytes),
                        splice: Some(SpliceAt {
                            keep: *keep,
                            old_tail: old_tail.as_bytes(),
                        }),
                    },
                    Some(Streamed::Staged { .. }) => Change {
                        name: &p.name,
                        before,
                        after: After::Staged,
                        splice: None,
                    },
                }
            })
            .collect();
        crate::transaction::rotation::apply(repo, &dir, &changes)?;
        for p in &journal_files {
            crate::failpoint::hit(&format!("init-wrote:{}", p.name));
        }
    }
    // After the journaled change, which says "nothing was changed" when it fails: the
    // files written one by one before it made that untrue (`init --force` on a full disk
    // had replaced TRUST.md by the template, review rob36 #6).
    for p in &single {
        write_atomic(&dir.abs.join(&p.name), &p.bytes).map_err(|source| Error::Write {
            path: dir.path_of(&p.name),
            source,
        })?;
        crate::failpoint::hit(&format!("init-wrote:{}", p.name));
    }
    let manifest_action = match (&old, regen.changed) {
        (None, _) => FileAction::Created,
        (Some(_), true) => FileAction::Updated,
        (Some(_), false) => FileAction::Kept,
    };
    if regen.changed {
        write_atomic(&dir.abs.join(MANIFEST), &regen.manifest.to_bytes()).map_err(|source| {
            Error::Write {
                path: dir.path_of(MANIFEST),
                source,
            }
        })?;
    }

    let mut files = template_outcomes(&dir, &plan, &kept);
    files.push(FileOutcome {
        path: dir.path_of(MANIFEST),
        action: manifest_action,
        detail: (manifest_action == FileAction::Updated && !regen.changed_files.is_empty())
            .then(|| format!("re-indexed {}", regen.changed_files.join(", "))),
    });
    for planned in agent_hooks {
        files.push(planned.apply(repo.workdir())?);
    }
    Ok(InitReport {
        directory: dir.rel.clone(),
        project,
        migrate: args.migrate,
        files,
        backup,
        force: args.force,
    })
}

/// Saves the handoff files of the working tree as a commit under `refs/aahp/backup/` and
/// returns the ref's name.
fn backup_before_force(
    repo: &crate::git::Repo,
    dir: &HandoffDir,
    now: jiff::Timestamp,
) -> Result<String> {
    let saved = crate::transaction::save_worktree(
        repo,
        dir,
        repo.head_commit()?,
        "aahp: handoff files before `git aahp init --force`",
    )?;
    let stamp = crate::clock::format_rfc3339(now).replace([':', '-'], "");
    for i in 1.. {
        let name = if i == 1 {
            format!("refs/aahp/backup/init-{stamp}")
        } else {
            format!("refs/aahp/backup/init-{stamp}-{i}")
        };
        match repo.find_ref(&name)? {
            None => {
                repo.create_ref(&name, saved, "git aahp init --force: backup")?;
                return Ok(name);
            }
            Some(id) if id == saved => return Ok(name),
            Some(_) => {}
        }
    }
    unreachable!("the loop returns once a free name is found")
}

/// Files `--force` never replaces: the archive only grows, and its index must match it.
const APPEND_ONLY: [&str; 2] = [log::ARCHIVE_FILE, log::INDEX_FILE];

/// A file left as it was, with why when that is not obvious.
type Kept = Vec<(String, Option<String>)>;

/// Plans the template writes: files that do not exist are created, existing ones are kept
/// (or overwritten with `force`, except the append-only archive and its index). An empty
/// archive index is only created together with the archive it describes. Returns the plan
/// and the files kept.
fn plan_templates(
    dir: &HandoffDir,
    snap: &Snapshot,
    project: &str,
    date: &str,
    force: bool,
) -> (Vec<Planned>, Kept) {
    let mut plan: Vec<Planned> = Vec::new();
    let mut kept = Vec::new();
    for t in TEMPLATES {
        let exists = snap.files.contains_key(t.name)
            || std::fs::symlink_metadata(dir.abs.join(t.name)).is_ok();
        let append_only = APPEND_ONLY.contains(&t.name);
        if exists && (!force || append_only) {
            let why = (force && append_only)
                .then(|| "append-only; --force does not replace it".to_string());
            kept.push((t.name.to_string(), why));
            continue;
        }
        if t.name == log::INDEX_FILE && !plan.iter().any(|p| p.name == log::ARCHIVE_FILE) {
            // The existing archive has no index; an empty one would contradict it.
            continue;
        }
        plan.push(Planned {
            name: t.name.to_string(),
            bytes: t.render(project, date).into_bytes(),
            streamed: None,
            action: if exists {
                FileAction::Overwritten
            } else {
                FileAction::Created
            },
            detail: None,
        });
    }
    (plan, kept)
}

/// The outcome of every template file, in template order.
fn template_outcomes(dir: &HandoffDir, plan: &[Planned], kept: &Kept) -> Vec<FileOutcome> {
    let mut files = Vec::new();
    for t in TEMPLATES {
        if let Some(p) = plan.iter().find(|p| p.name == t.name) {
            files.push(outcome(dir, p));
        } else if let Some((_, why)) = kept.iter().find(|(k, _)| k == t.name) {
            files.push(FileOutcome {
                path: dir.path_of(t.name),
                action: FileAction::Kept,
                detail: why.clone(),
            });
        }
    }
    files
}

fn outcome(dir: &HandoffDir, p: &Planned) -> FileOutcome {
    FileOutcome {
        path: dir.path_of(&p.name),
        action: p.action,
        detail: p.detail.clone(),
    }
}

/// Adds the v1 → v2 upgrades of existing files to the plan. Each one only inserts text, and
/// is checked to keep every original byte before it is accepted.
fn plan_migration(
    dir: &HandoffDir,
    snap: &mut Snapshot,
    date: &str,
    plan: &mut Vec<Planned>,
    kept: &mut Kept,
) -> Result<()> {
    plan_log_split(dir, snap, plan, kept)?;
    if let Some(bytes) = snap.get("STATUS.md")
        && !plan.iter().any(|p| p.name == "STATUS.md")
    {
        let (bom, text) = split_bom(&dir.path_of("STATUS.md"), bytes)?;
        if let Some(w) = migrate::wrap_status_sections(text) {
            if !migrate::preserves(text, &w.text, &w.inserted) {
                return Err(Error::other(format!(
                    "refusing to migrate {}: adding section markers would change its content",
                    dir.path_of("STATUS.md")
                )));
            }
            plan.push(Planned {
                name: "STATUS.md".into(),
                bytes: [bom, w.text.as_bytes()].concat(),
                action: FileAction::Updated,
                detail: Some(format!("added section markers: {}", w.sections.join(", "))),
                streamed: None,
            });
        }
    }
    if let Some(bytes) = snap.get("TRUST.md")
        && !plan.iter().any(|p| p.name == "TRUST.md")
    {
        let (bom, text) = split_bom(&dir.path_of("TRUST.md"), bytes)?;
        if migrate::trust_needs_ttl_note(text) {
            let new = migrate::append_trust_ttl_note(text, date);
            debug_assert!(new.starts_with(text));
            plan.push(Planned {
                name: "TRUST.md".into(),
                bytes: [bom, new.as_bytes()].concat(),
                action: FileAction::Updated,
                detail: Some("added a note on the TTL and Provenance columns".into()),
                streamed: None,
            });
        }
    }
    Ok(())
}

/// Splits LOG.md when it holds more than [`log::DEFAULT_KEEP`] entries: the older ones move
/// to the archive and its index (which also adopts archived entries an old archive never
/// indexed). Rotation keeps every entry byte for byte, checks by hash that none was lost
/// and plans the writes archive → index → LOG, the order that survives a crash. A journal
/// that cannot be rotated safely is left alone, with the reason in the report.
fn plan_log_split(
    dir: &HandoffDir,
    snap: &mut Snapshot,
    plan: &mut Vec<Planned>,
    kept: &mut Kept,
) -> Result<()> {
    let Some(log_bytes) = snap.get(log::LOG_FILE) else {
        return Ok(());
    };
    if plan.iter().any(|p| p.name == log::LOG_FILE) {
        return Ok(());
    }
    let too_long = log::LogFile::parse(full_text(&dir.path_of(log::LOG_FILE), log_bytes)?)
        .entries
        .len()
        > log::DEFAULT_KEEP;
    let has_index =
        plan.iter().any(|p| p.name == log::INDEX_FILE) || snap.contains(log::INDEX_FILE);
    let unindexed_archive = snap.contains(log::ARCHIVE_FILE) && !has_index;
    if !too_long && !unindexed_archive {
        return Ok(());
    }
    // LOG-ARCHIVE.md and its index on disk (not templates planned now, nor links read
    // whole) are read as streams (issue #12 item 2).
    let on_disk = [log::ARCHIVE_FILE, log::INDEX_FILE]
        .iter()
        .all(|n| !plan.iter().any(|p| p.name == *n) && !snap.files.contains_key(*n));
    if on_disk && split_streamed(dir, snap, plan, kept)? {
        return Ok(());
    }
    // What a stream cannot do (`log_stream::StreamedRotation::Whole`) reads them whole,
    // within the archive's limit.
    snap.hold_streamed(dir)?;
    let snap = &*snap;
    let log_bytes = snap.get(log::LOG_FILE).unwrap_or_default();
    // Content as it will be: planned (fresh template) or on disk.
    let current = |name: &str| -> Result<Option<String>> {
        let bytes = match plan.iter().find(|p| p.name == name) {
            Some(p) => Some(p.bytes.as_slice()),
            None => snap.get(name),
        };
        bytes
            .map(|b| full_text(&dir.path_of(name), b).map(String::from))
            .transpose()
    };
    let log_text = full_text(&dir.path_of(log::LOG_FILE), log_bytes)?;
    let archive = current(log::ARCHIVE_FILE)?;
    let index = current(log::INDEX_FILE)?;
    let rotation = match log::rotate(
        log_text,
        archive.as_deref(),
        index.as_deref(),
        log::DEFAULT_KEEP,
    ) {
        Ok(Some(r)) => r,
        Ok(None) => return Ok(()),
        Err(e) => {
            let why = format!("not split: {}", e.into_error(|f| dir.path_of(f)));
            set_kept_detail(kept, log::LOG_FILE, why);
            return Ok(());
        }
    };
    let mut upsert = |name: &str, text: &str, detail: String| {
        let bytes = text.as_bytes().to_vec();
        if let Some(p) = plan.iter_mut().find(|p| p.name == name) {
            p.bytes = bytes;
            p.detail = Some(detail);
        } else {
            kept.retain(|(k, _)| k != name);
            plan.push(Planned {
                name: name.to_string(),
                bytes,
                action: if snap.get(name).is_some() {
                    FileAction::Updated
                } else {
                    FileAction::Created
                },
                detail: Some(detail),
                streamed: None,
            });
        }
    };
    if rotation.archive_changed {
        upsert(
            log::ARCHIVE_FILE,
            &rotation.archive,
            format!("{} entries rotated in from LOG.md", rotation.moved),
        );
    }
    if rotation.index_changed {
        upsert(
            log::INDEX_FILE,
            &rotation.index,
            format!(
                "indexes {} archived entries",
                log::ArchiveIndex::parse(&rotation.index)
                    .map(|i| i.entries.len())
                    .unwrap_or_default()
            ),
        );
    }
    if rotation.log_changed {
        upsert(
            log::LOG_FILE,
            &rotation.log,
            format!(
                "kept the newest {}, moved {} older entries to {}",
                rotation.kept,
                rotation.moved,
                log::ARCHIVE_FILE
            ),
        );
        // The LOG.md write must come after the archive and the index.
        let pos = plan
            .iter()
            .position(|p| p.name == log::LOG_FILE)
            .expect("just planned");
        let log_write = plan.remove(pos);
        plan.push(log_write);
    }
    Ok(())
}

/// [`plan_log_split`] with LOG-ARCHIVE.md and its index left on disk: checked entry by
/// entry as streams, the moved entries appended after the archive's last byte, the index
/// extended in place or, when there is none in the current layout to extend (an archive
/// never indexed, a legacy index), written anew as a stream at the rotation's staged path
/// (issue #12 item 2). `false` when a stream cannot do the split (the caller reads them
/// whole).
fn split_streamed(
    dir: &HandoffDir,
    snap: &Snapshot,
    plan: &mut Vec<Planned>,
    kept: &mut Kept,
) -> Result<bool> {
    use crate::handoff::log_stream::{self, Content, Limits, StreamedRotation};
    let log_bytes = snap.get(log::LOG_FILE).unwrap_or_default();
    let log_text = full_text(&dir.path_of(log::LOG_FILE), log_bytes)?;
    let [archive, index] = [log::ARCHIVE_FILE, log::INDEX_FILE]
        .map(|n| snap.streamed.get(n).map(|s| s as &dyn Content));
    let keep = log::DEFAULT_KEEP;
    let (rot, rebuilt) =
        match log_stream::rotate_streamed(log_text, archive, index, keep, Limits::default()) {
            Ok(StreamedRotation::Rotated(r)) => (r, None),
            Ok(StreamedRotation::Rebuilt(r, plan)) => (r, Some(plan)),
            Ok(StreamedRotation::UpToDate { .. }) => return Ok(true),
            Ok(StreamedRotation::Whole) => return Ok(false),
            Err(e) => {
                let why = format!("not split: {}", e.into_error(|f| dir.path_of(f)));
                set_kept_detail(kept, log::LOG_FILE, why);
                return Ok(true);
            }
        };
    let staged = match &rebuilt {
        Some(plan) => Some(super::archive::stage_rebuilt_index(
            dir, snap, &rot, plan, log_text, keep,
        )?),
        None => None,
    };
    let mut push = |name: &str, bytes: &str, streamed: Option<Streamed>, detail: String| {
        kept.retain(|(k, _)| k != name);
        plan.push(Planned {
            name: name.to_string(),
            bytes: bytes.as_bytes().to_vec(),
            action: if snap.contains(name) {
                FileAction::Updated
            } else {
                FileAction::Created
            },
            detail: Some(detail),
            streamed,
        });
    };
    let spliced = |s: &log::Splice| Streamed::Splice {
        keep: s.keep as u64,
        old_tail: s.old_tail.clone(),
    };
    if rot.archive_changed {
        let detail = format!("{} entries rotated in from LOG.md", rot.moved);
        match &rot.archive_splice {
            Some(s) => push(log::ARCHIVE_FILE, &s.text, Some(spliced(s)), detail),
            None => push(log::ARCHIVE_FILE, &rot.archive, None, detail),
        }
    }
    let detail = format!(
        "indexes {} archived entries",
        rot.archived.unwrap_or_default()
    );
    match (&rot.index_splice, staged) {
        (Some(s), _) => push(log::INDEX_FILE, &s.text, Some(spliced(s)), detail),
        (None, Some(len)) => push(log::INDEX_FILE, "", Some(Streamed::Staged { len }), detail),
        (None, None) => {}
    }
    if rot.log_changed {
        let detail = format!(
            "kept the newest {}, moved {} older entries to {}",
            rot.kept,
            rot.moved,
            log::ARCHIVE_FILE
        );
        push(log::LOG_FILE, &rot.log, None, detail);
    }
    Ok(true)
}

fn set_kept_detail(kept: &mut Kept, name: &str, why: String) {
    if let Some((_, detail)) = kept.iter_mut().find(|(k, _)| k == name) {
        *detail = Some(why);
    }
}

/// The whole text of a file, BOM included (the log model keeps track of it), refusing
/// invalid UTF-8 with the file and line.
fn full_text<'a>(path: &str, bytes: &'a [u8]) -> Result<&'a str> {
    crate::handoff::decode_text(path, bytes)?;
    Ok(std::str::from_utf8(bytes).expect("decode_text accepted it"))
}

/// Splits a leading UTF-8 BOM from the text, which must be valid UTF-8.
fn split_bom<'a>(path: &str, bytes: &'a [u8]) -> Result<(&'a [u8], &'a str)> {
    let text = crate::handoff::decode_text(path, bytes)?;
    let bom = &bytes[..bytes.len() - text.len()];
    Ok((bom, text))
}

/// The project name when neither `--project` nor a manifest gives one: the name of the
/// directory holding the handoff directory's package (the repository root for
/// `.ai/handoff`).
/// A directory name the linter blocks is not written into the handoff: `project` instead.
fn default_project(dir: &HandoffDir) -> Result<String> {
    let name = dir
        .root
        .join(dir.package_root())
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.trim().is_empty());
    Ok(match name {
        Some(n) => boundary::admitted_or(dir, &n, "project")?.to_string(),
        None => "project".into(),
    })
}

/// Refuses to write while a session holds `HANDOFF.lock` (exit 3), naming the holder; a
/// lock that cannot be read counts as held (only `recover` clears it).
fn refuse_if_locked(dir: &HandoffDir, now: Timestamp) -> Result<()> {
    let lock = LockState::read(dir)?;
    if lock.is_present() {
        return Err(lock.locked_error(dir, now));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_bom_keeps_the_bom_bytes() {
        let (bom, text) = split_bom("S.md", b"\xEF\xBB\xBFhi\n").unwrap();
        assert_eq!(bom, b"\xEF\xBB\xBF");
        assert_eq!(text, "hi\n");
        let (bom, _) = split_bom("S.md", b"hi").unwrap();
        assert!(bom.is_empty());
        assert!(split_bom("S.md", b"ok\n\xff").is_err());
    }
}
