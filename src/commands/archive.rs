//! `git aahp archive`: rotate LOG.md into LOG-ARCHIVE.md and its index (SPEC §3.9), or
//! `--verify` them without writing. The rotation itself is [`crate::handoff::log::rotate`].

use std::io::{self, Write};

use serde::Serialize;

use super::Context;
use crate::error::{Error, ExitStatus, Result};
use crate::failpoint;
use crate::git::Repo;
use crate::handoff::checksum_cache::BlobCache;
use crate::handoff::log::{
    self, ARCHIVE_FILE, ArchiveProblem, DEFAULT_KEEP, INDEX_FILE, LOG_FILE, LogError, LogFile,
    MovedEntry, Redaction, Rotation, Trusted,
};
use crate::handoff::log_stream::{self, Bytes, Content, Limits, Rebuilt, StreamedRotation};
use crate::handoff::manifest::Manifest;
use crate::handoff::{HandoffDir, MANIFEST, MAX_FILE_BYTES, Snapshot, StagedFile, stream};
use crate::output::{Report, Style, escape_untrusted};
use crate::transaction::rotation::{self, After, Before, Change, SpliceAt};
use crate::transaction::steps::{self, write_file};
use crate::transaction::writer::HandoffWrite;

/// The fail points of an archive run, in order. A crash at any of them is repaired by
/// running `git aahp archive` again (tests loop over this list). The `mid-append` points
/// are reached only when an existing archive and index are extended in place, with half
/// of the appended text written.
pub const ARCHIVE_FAILPOINTS: &[&str] = &[
    "archive:before-write",
    "archive:staged",
    "archive:mid-append:LOG-ARCHIVE.md",
    "archive:after-archive",
    "archive:mid-append:LOG-ARCHIVE.index.json",
    "archive:after-index",
    "archive:after-log",
    "archive:rotated",
    "archive:after-manifest",
];

/// Git config key holding the default number of entries LOG.md keeps.
pub const KEEP_CONFIG: &str = "aahp.keep";

/// Rotate LOG.md: keep the newest entries (by entry date, then file order) and move the rest
/// into LOG-ARCHIVE.md and LOG-ARCHIVE.index.json, then refresh MANIFEST.json.
///
/// Every entry that leaves LOG.md is archived, identical ones included. Idempotent: a second
/// run changes nothing. The three files change together: a run that fails leaves them as they
/// were, and one interrupted at any point is completed by running it (or `recover`) again.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ArchiveArgs {
    /// How many entries LOG.md keeps [default: git config aahp.keep, else 10].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub keep: Option<u64>,
    /// Write nothing; exit 1 when archive entries are forged, missing or duplicated, or
    /// LOG.md holds more entries than it keeps.
    #[arg(long)]
    pub verify: bool,
    /// After a deliberate redaction of LOG-ARCHIVE.md (text replaced by
    /// `[redacted: REASON]`), give the redacted entries their new digests in the index.
    /// Refuses (exit 1, nothing written) any other change: an entry added, deleted, or
    /// edited without a marker.
    #[arg(long, conflicts_with_all = ["verify", "keep"])]
    pub reindex: bool,
    #[command(flatten)]
    pub session: super::SessionOpts,
}

/// One problem, located.
#[derive(Debug, Serialize)]
pub struct LocatedProblem {
    /// Repository-relative path of the file.
    pub path: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// What is wrong, in words.
    pub message: String,
    /// The problem itself (`kind` and its details).
    #[serde(flatten)]
    pub problem: ArchiveProblem,
}

/// What `git aahp archive` did or found.
#[derive(Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ArchiveOutcome {
    /// Entries were moved or indexed.
    Rotated,
    /// Nothing needed doing.
    UpToDate,
    /// `--verify` found nothing wrong.
    Verified,
    /// `--verify` found problems.
    Failed,
    /// The archive is damaged; nothing was written.
    Refused,
    /// `--reindex` re-indexed redacted entries (or found the index matching).
    Reindexed,
    /// `--reindex` found a change that is not a redaction; nothing was written.
    NotRedacted,
}

/// The result of `git aahp archive`.
#[derive(Debug, Serialize)]
pub struct ArchiveReport {
    /// What happened.
    pub outcome: ArchiveOutcome,
    /// Repository-relative path of LOG.md.
    pub log: String,
    /// Repository-relative path of LOG-ARCHIVE.md.
    pub archive: String,
    /// How many entries LOG.md keeps.
    pub keep: usize,
    /// Entries in LOG.md now.
    pub log_entries: usize,
    /// Entries in LOG-ARCHIVE.md now.
    pub archived_entries: usize,
    /// Entries moved out of LOG.md by this run, newest first.
    pub moved: Vec<MovedEntry>,
    /// Archive entries that had no index entry and got one.
    pub adopted: usize,
    /// Files an interrupted earlier run had left staged, put in place by this run.
    pub completed: Vec<String>,
    /// Files written, in order.
    pub written: Vec<String>,
    /// Problems found (`--verify`, or why the rotation was refused).
    pub problems: Vec<LocatedProblem>,
    /// Entries `--reindex` re-indexed after their redaction.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redactions: Vec<Redaction>,
}

impl Report for ArchiveReport {
    fn command(&self) -> &'static str {
        "archive"
    }

    fn write_human(&self, w: &mut dyn Write, style: &Style) -> io::Result<()> {
        if !self.completed.is_empty() {
            writeln!(
                w,
                "completed the rotation an interrupted `git aahp archive` left half done ({})",
                self.completed.join(", ")
            )?;
        }
        for p in &self.problems {
            let loc = p.line.map(|l| format!(":{l}")).unwrap_or_default();
            writeln!(
                w,
                "{}{loc}: {}: {}",
                p.path,
                style.error("error"),
                escape_untrusted(&p.message)
            )?;
        }
        match self.outcome {
            ArchiveOutcome::Verified => writeln!(
                w,
                "{}: {} has {} (keep {}), {} has {}, all indexed",
                style.ok("archive verified"),
                self.log,
                entries(self.log_entries),
                self.keep,
                self.archive,
                entries(self.archived_entries)
            ),
            ArchiveOutcome::Failed => writeln!(
                w,
                "archive check failed: {} problem(s)",
                self.problems.len()
            ),
            ArchiveOutcome::Refused => {
                writeln!(
                    w,
                    "archive refused: {} problem(s) in the archive; nothing was changed",
                    self.problems.len()
                )?;
                writeln!(
                    w,
                    "hint: restore {} and {INDEX_FILE} from git history, then rerun",
                    self.archive
                )
            }
            ArchiveOutcome::UpToDate => {
                writeln!(
                    w,
                    "{} has {} (keep {}): nothing to archive",
                    self.log,
                    entries(self.log_entries),
                    self.keep
                )?;
                if self.written.is_empty() {
                    Ok(())
                } else {
                    writeln!(w, "wrote {}", self.written.join(", "))
                }
            }
            ArchiveOutcome::Rotated => self.write_rotated(w),
            ArchiveOutcome::Reindexed => self.write_reindexed(w),
            ArchiveOutcome::NotRedacted => {
                writeln!(
                    w,
                    "reindex refused: {} problem(s); nothing was changed",
                    self.problems.len()
                )?;
                writeln!(
                    w,
                    "hint: --reindex records only redactions (text replaced by `[redacted: REASON]`, the rest of the entry unchanged) and closing lines added to an entry that left a block open; restore other changes from git history"
                )
            }
        }
    }

    fn status(&self) -> ExitStatus {
        match self.outcome {
            ArchiveOutcome::Failed | ArchiveOutcome::Refused | ArchiveOutcome::NotRedacted => {
                ExitStatus::Findings
            }
            _ => ExitStatus::Success,
        }
    }
}

impl ArchiveReport {
    fn new(dir: &HandoffDir, keep: usize) -> ArchiveReport {
        ArchiveReport {
            outcome: ArchiveOutcome::UpToDate,
            log: dir.path_of(LOG_FILE),
            archive: dir.path_of(ARCHIVE_FILE),
            keep,
            log_entries: 0,
            archived_entries: 0,
            moved: Vec::new(),
            adopted: 0,
            completed: Vec::new(),
            written: Vec::new(),
            problems: Vec::new(),
            redactions: Vec::new(),
        }
    }

    fn write_reindexed(&self, w: &mut dyn Write) -> io::Result<()> {
        if self.redactions.is_empty() {
            return writeln!(
                w,
                "{INDEX_FILE} lists every entry of {}: nothing to re-index",
                self.archive
            );
        }
        writeln!(
            w,
            "re-indexed {} of {} after a redaction or a repair",
            entries(self.redactions.len()),
            self.archive
        )?;
        for r in &self.redactions {
            let how = if r.compared {
                "the rest of it matches the text it replaces"
            } else {
                "its text before is not in HEAD: tied to its index line by its heading only"
            };
            writeln!(
                w,
                "  line {}: {} (redacted: {}; {how})",
                r.line,
                escape_untrusted(&r.title),
                escape_untrusted(&r.reasons.join(", "))
            )?;
        }
        writeln!(w, "wrote {}", self.written.join(", "))
    }

    fn write_rotated(&self, w: &mut dyn Write) -> io::Result<()> {
        const SHOWN: usize = 5;
        if !self.moved.is_empty() {
            writeln!(
                w,
                "archived {} from {} into {} (kept the newest {})",
                entries(self.moved.len()),
                self.log,
                self.archive,
                self.log_entries
            )?;
        }
        for m in self.moved.iter().take(SHOWN) {
            writeln!(w, "  {}", escape_untrusted(&m.title))?;
        }
        if self.moved.len() > SHOWN {
            writeln!(w, "  … and {} more", self.moved.len() - SHOWN)?;
        }
        if self.adopted > 0 {
            writeln!(
                w,
                "indexed {} that {INDEX_FILE} did not list",
                entries(self.adopted)
            )?;
        }
        writeln!(w, "wrote {}", self.written.join(", "))
    }
}

pub(crate) fn entries(n: usize) -> String {
    if n == 1 {
        "1 entry".into()
    } else {
        format!("{n} entries")
    }
}

/// Returns a handoff file's text (a BOM kept, so rewrites keep it), refusing invalid UTF-8
/// with the file and line.
pub(crate) fn file_text(dir: &HandoffDir, snap: &Snapshot, name: &str) -> Result<Option<String>> {
    let Some(bytes) = snap.get(name) else {
        return Ok(None);
    };
    crate::handoff::decode_text(&dir.path_of(name), bytes)?;
    Ok(Some(
        String::from_utf8(bytes.to_vec()).expect("decode_text validated the UTF-8"),
    ))
}

/// Like [`file_text`], but moves the bytes out of the snapshot instead of copying them.
fn take_text(dir: &HandoffDir, snap: &mut Snapshot, name: &str) -> Result<Option<String>> {
    let Some(bytes) = snap.files.remove(name) else {
        return Ok(None);
    };
    crate::handoff::decode_text(&dir.path_of(name), &bytes)?;
    Ok(Some(
        String::from_utf8(bytes).expect("decode_text validated the UTF-8"),
    ))
}

/// Reads `aahp.keep`, refusing anything but a positive integer.
fn configured_keep(repo: &Repo) -> Result<usize> {
    match repo.config_string(KEEP_CONFIG) {
        None => Ok(DEFAULT_KEEP),
        Some(v) => match v.trim().parse::<usize>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(Error::invalid(
                format!("git config {KEEP_CONFIG}"),
                None,
                format!("`{v}` is not a positive integer"),
            )),
        },
    }
}

/// [`crate::transaction::steps::refresh_manifest`] at the command's clock.
pub(crate) fn refresh_manifest(
    ctx: &Context,
    dir: &HandoffDir,
    old: Option<&Manifest>,
    only_for: Option<&[&str]>,
) -> Result<bool> {
    crate::transaction::steps::refresh_manifest(ctx.repo()?, dir, ctx.now, old, only_for)
}

/// [`crate::transaction::steps::planned_manifest`] at the command's clock.
pub(crate) fn planned_manifest(
    ctx: &Context,
    dir: &HandoffDir,
    old: Option<&Manifest>,
    snap: &Snapshot,
    only_for: Option<&[&str]>,
) -> Result<Option<Vec<u8>>> {
    crate::transaction::steps::planned_manifest(ctx.repo()?, dir, ctx.now, old, snap, only_for)
}

/// Writes MANIFEST.json.
pub(crate) fn write_manifest(dir: &HandoffDir, bytes: &[u8]) -> Result<()> {
    failpoint::error("manifest:write").map_err(|source| Error::Write {
        path: dir.path_of(MANIFEST),
        source,
    })?;
    write_file(dir, MANIFEST, bytes)
}

/// Writes a rotation's changed files as one change (see [`rotation::apply`]): LOG.md
/// whole, the archive and its index by splicing in place when the rotation extends them,
/// the index from its staged file when it was written anew as a stream (`index_staged`:
/// left on disk, as is the old one it replaces). Returns the repository-relative paths
/// written.
pub fn write_rotation(
    repo: &Repo,
    dir: &HandoffDir,
    rot: &Rotation,
    before: [Option<&str>; 3],
    index_staged: bool,
) -> Result<Vec<String>> {
    if let Err(e) = crate::transaction::steps::check_rotation_sizes(dir, rot) {
        // Nothing was decided: the staged index goes too.
        rotation::remove_stale_staging(dir);
        return Err(e);
    }
    failpoint::hit("archive:before-write");
    let [log_before, archive_before, index_before] = before;
    let candidates = [
        (
            rot.archive_changed,
            ARCHIVE_FILE,
            archive_before,
            &rot.archive,
            rot.archive_splice.as_ref(),
        ),
        (
            rot.index_changed,
            INDEX_FILE,
            index_before,
            &rot.index,
            rot.index_splice.as_ref(),
        ),
        (rot.log_changed, LOG_FILE, log_before, &rot.log, None),
    ];
    let changes: Vec<Change<'_>> = candidates
        .iter()
        .filter(|(changed, ..)| *changed)
        .map(|(_, name, before, after, splice)| match splice {
            Some(s) => Change {
                name,
                before: Before::Held(None),
                after: After::Held(s.text.as_bytes()),
                splice: Some(SpliceAt {
                    keep: s.keep as u64,
                    old_tail: s.old_tail.as_bytes(),
                }),
            },
            None => Change {
                name,
                // A file left on disk (not read into memory) is kept there to roll back.
                before: match before {
                    Some(text) => Before::Held(Some(text.as_bytes())),
                    None if std::fs::symlink_metadata(dir.abs.join(name)).is_ok() => Before::OnDisk,
                    None => Before::Held(None),
                },
                after: if index_staged && *name == INDEX_FILE {
                    After::Staged
                } else {
                    After::Held(after.as_bytes())
                },
                splice: None,
            },
        })
        .collect();
    Ok(rotation::apply(repo, dir, &changes)?
        .iter()
        .map(|n| dir.path_of(n))
        .collect())
}

/// Writes the index a rotation rebuilds (`plan`) as a stream at its staged path (see
/// [`rotation::staged_path`]), reading the old archive and index from `snap` (left on
/// disk), and checks the new pair as streams before anything is in place: on an error the
/// staged file is removed and nothing was changed. Returns its length.
pub(crate) fn stage_rebuilt_index(
    dir: &HandoffDir,
    snap: &Snapshot,
    rot: &Rotation,
    plan: &Rebuilt,
    log_before: &str,
    keep: usize,
) -> Result<u64> {
    let old = [ARCHIVE_FILE, INDEX_FILE].map(|n| snap.streamed.get(n));
    let path = rotation::staged_path(dir, INDEX_FILE);
    let write_err = |source| Error::Write {
        path: dir.path_of(INDEX_FILE),
        source,
    };
    let staged = std::fs::File::create(&path)
        .and_then(|mut file| {
            let read = plan.write_index_to(&mut file, old)?;
            file.sync_all()?;
            Ok(read)
        })
        .map_err(write_err)
        .and_then(|read| read.map_err(|e| e.into_error(|f| dir.path_of(f))))
        .and_then(|()| {
            plan.check_staged(rot, log_before, old[0], &path, keep)
                .map_err(|e| e.into_error(|f| dir.path_of(f)))
        })
        .and_then(|()| std::fs::metadata(&path).map_err(write_err));
    match staged {
        Ok(meta) => Ok(meta.len()),
        Err(e) => {
            rotation::remove_stale_staging(dir);
            Err(e)
        }
    }
}

/// Runs `git aahp archive`.
pub fn run(ctx: &Context, args: &ArchiveArgs) -> Result<ArchiveReport> {
    run_in(ctx, &ctx.existing_handoff()?, args)
}

/// [`run`] on a given handoff directory (`recover` rotates the one it rolled back).
pub(crate) fn run_in(ctx: &Context, dir: &HandoffDir, args: &ArchiveArgs) -> Result<ArchiveReport> {
    let repo = ctx.repo()?;
    let keep = match args.keep {
        Some(n) => usize::try_from(n).map_err(|_| Error::Usage("--keep is too large".into()))?,
        None => configured_keep(repo)?,
    };
    // `--verify` writes nothing; a rotation holds the handoff from its first read on.
    let mut write = if args.verify {
        None
    } else {
        Some(HandoffWrite::begin_rotation(
            repo,
            dir,
            &args.session.claim(),
            ctx.now,
            "git aahp archive",
            &[LOG_FILE, ARCHIVE_FILE, INDEX_FILE, MANIFEST],
        )?)
    };
    // The rotation journal is the worktree's: one archive of any directory at a time.
    if let Some(w) = write.as_mut() {
        w.lock_worktree(repo, "git aahp archive")?;
    }
    let mut report = ArchiveReport::new(dir, keep);
    let pending = rotation::pending(repo)?;
    if !args.verify {
        match rotation::complete(repo, dir)? {
            Some(files) => {
                report.completed = files.iter().map(|n| dir.path_of(n)).collect();
            }
            // A run killed while staging, before its journal: nothing of it was decided.
            None => rotation::remove_stale_staging(dir),
        }
        // A run killed inside an atomic write left its temporary file; this run holds the
        // handoff, so no live writer owns one.
        crate::transaction::remove_temp_files(repo, dir);
    }
    // LOG-ARCHIVE.md and its index as HEAD holds them were judged when they were committed:
    // a rotation then leaves them on disk, reads only their ends and checks only what it
    // appends (issue #14), so their size is bounded by the disk, not by memory (issue #12).
    // Otherwise they are read as streams and checked entry by entry (issue #12 item 2);
    // only `--reindex` and the rare rotation a stream cannot do (see
    // `log_stream::StreamedRotation::Whole`) read them whole.
    let head_ids = if !args.verify && !args.reindex && pending.is_none() {
        steps::trusted_pair(repo, dir)?
    } else {
        None
    };
    let trust = head_ids.is_some();
    if !args.verify {
        crate::transaction::steps::refuse_linked_pair(dir)?;
    }
    let mut snap = dir.snapshot_worktree_streaming(&[ARCHIVE_FILE, INDEX_FILE])?;
    // Taken out of the snapshot, not copied: the archive and its index may be megabytes.
    let mut log_text = take_text(dir, &mut snap, LOG_FILE)?.ok_or_else(|| {
        Error::invalid(
            dir.path_of(LOG_FILE),
            None,
            "not found: there is no journal to archive",
        )
    })?;
    let mut archive_text = take_text(dir, &mut snap, ARCHIVE_FILE)?;
    let mut index_text = take_text(dir, &mut snap, INDEX_FILE)?;
    if args.reindex {
        report.log_entries = LogFile::parse(&log_text).entries.len();
        snap.files
            .insert(LOG_FILE.to_string(), log_text.into_bytes());
        reindex(ctx, dir, snap, [archive_text, index_text], &mut report)?;
        if let Some(w) = write {
            w.finish()?;
        }
        return Ok(report);
    }
    if args.verify {
        let mem = in_memory(archive_text.as_deref(), index_text.as_deref());
        let (archive, index) = contents(&snap, &mem);
        // A legacy index too: its list is paired as an `entries` list (issue #12 item 2).
        let (mut problems, archived) =
            log_stream::verify_streamed(&log_text, archive, index, keep, Limits::default())
                .map_err(|e| e.into_error(|f| dir.path_of(f)))?;
        if pending.is_some_and(|j| j.dir == dir.rel) {
            problems.insert(0, ArchiveProblem::Interrupted);
        }
        report.problems = locate(dir, problems)?;
        report.outcome = if report.problems.is_empty() {
            ArchiveOutcome::Verified
        } else {
            ArchiveOutcome::Failed
        };
        report.log_entries = LogFile::parse(&log_text).entries.len();
        report.archived_entries = archived;
        return Ok(report);
    }

    // A manifest that cannot be read stops the run before anything is written.
    let old_manifest = Manifest::from_snapshot(dir, &snap)?;
    // HEAD's bytes on disk: the index's end and the manifest's pass over both files resume
    // from HEAD's state (issue #14: the cost follows what is appended).
    if let Some(ids) = head_ids {
        resume_from_head(repo, dir, &mut snap, ids)?;
    }
    let ends = match (
        snap.streamed.get(ARCHIVE_FILE),
        snap.streamed.get(INDEX_FILE),
    ) {
        (Some(a), Some(i)) if trust => steps::trusted_ends(dir, a, i)?,
        _ => None,
    };
    let mut trusted = match &ends {
        Some(ends) => log::rotate_onto_trusted(&log_text, ends, keep)
            .map_err(|e| e.into_error(|f| dir.path_of(f)))?,
        None => Trusted::Declined,
    };
    // Not judged at HEAD, or not proportional on trust alone (see `rotate_onto_trusted`):
    // check them as streams, entry by entry, and append. (A symbolic link was read whole,
    // and is rotated whole.)
    let mut refused = None;
    let mut rebuilt = None;
    let on_disk = archive_text.is_none() && index_text.is_none();
    if matches!(trusted, Trusted::Declined) && !snap.streamed.is_empty() {
        let (archive, index) = contents(&snap, &[None, None]);
        let streamed = if on_disk {
            log_stream::rotate_streamed(&log_text, archive, index, keep, Limits::default())
        } else {
            Ok(StreamedRotation::Whole)
        };
        match streamed {
            Ok(StreamedRotation::Rotated(r)) => trusted = Trusted::Rotated(r),
            Ok(StreamedRotation::UpToDate { archived }) => {
                trusted = Trusted::UpToDate { archived };
            }
            // No index to extend (none, or a legacy one): one is written anew as a stream.
            Ok(StreamedRotation::Rebuilt(r, plan)) => {
                trusted = Trusted::Rotated(r);
                rebuilt = Some(plan);
            }
            Ok(StreamedRotation::Whole) => {
                snap.hold_streamed(dir)?;
                archive_text = take_text(dir, &mut snap, ARCHIVE_FILE)?;
                index_text = take_text(dir, &mut snap, INDEX_FILE)?;
            }
            Err(LogError::Integrity(problems)) => refused = Some(problems),
            Err(e) => return Err(e.into_error(|f| dir.path_of(f))),
        }
    }

    let mut known_archived = None;
    let rotated = match trusted {
        _ if refused.is_some() => Err(LogError::Integrity(refused.unwrap_or_default())),
        Trusted::Rotated(r) => {
            known_archived = r.archived;
            Ok(Some(*r))
        }
        Trusted::UpToDate { archived } => {
            known_archived = Some(archived);
            Ok(None)
        }
        Trusted::Declined => log::rotate(
            &log_text,
            archive_text.as_deref(),
            index_text.as_deref(),
            keep,
        ),
    };
    let rotation = match rotated {
        Ok(r) => r,
        Err(LogError::Integrity(problems)) => {
            report.problems = locate(dir, problems)?;
            report.outcome = ArchiveOutcome::Refused;
            report.log_entries = LogFile::parse(&log_text).entries.len();
            return Ok(report);
        }
        Err(e) => return Err(e.into_error(|f| dir.path_of(f))),
    };
    // The manifest the run ends with is computed before anything is written: a file it
    // cannot read (invalid UTF-8 anywhere in the directory) stops the run unchanged.
    // Also after a run that found nothing to do: a run interrupted before the manifest
    // step is completed here.
    // The rotated texts are lent to the snapshot and taken back: the archive may be
    // megabytes, and peak memory is bounded by a small multiple of it (issue #14). Files
    // left on disk are described as what they will be: their kept bytes, then the splice.
    let mut rotation = rotation;
    // An index written anew is staged now: the manifest is planned from it, in pieces.
    let staged_index = match (&mut rotation, &rebuilt) {
        (Some(rot), Some(plan)) => {
            let len = stage_rebuilt_index(dir, &snap, rot, plan, &log_text, keep)?;
            rot.index_len = usize::try_from(len).unwrap_or(usize::MAX);
            Some(len)
        }
        _ => None,
    };
    let mut after = snap;
    if let Some(len) = staged_index {
        let staged = rotation::staged_path(dir, INDEX_FILE);
        after
            .streamed
            .insert(INDEX_FILE.to_string(), stream::Streamed::whole(staged, len));
    }
    let only_for: Option<&[&str]> = match &rotation {
        Some(_) => None,
        None => Some(&[LOG_FILE, ARCHIVE_FILE, INDEX_FILE]),
    };
    if let Some(rot) = &rotation {
        for (name, splice) in [
            (ARCHIVE_FILE, &rot.archive_splice),
            (INDEX_FILE, &rot.index_splice),
        ] {
            if let (Some(splice), Some(streamed)) = (splice, after.streamed.get_mut(name)) {
                streamed.keep = splice.keep as u64;
                streamed.tail = splice.text.as_bytes().to_vec();
            }
        }
    }
    let manifest = {
        let mut lent = match &mut rotation {
            Some(rot) => {
                let whole = rot.archived.is_none();
                // A new archive (the old one held nothing) is written whole.
                let new_archive = whole || (rot.archive_changed && rot.archive_splice.is_none());
                [
                    (LOG_FILE, Some(&mut rot.log)),
                    (ARCHIVE_FILE, new_archive.then_some(&mut rot.archive)),
                    (INDEX_FILE, whole.then_some(&mut rot.index)),
                ]
            }
            None => [
                (LOG_FILE, Some(&mut log_text)),
                (ARCHIVE_FILE, archive_text.as_mut()),
                (INDEX_FILE, index_text.as_mut()),
            ],
        };
        for (name, text) in &mut lent {
            if let Some(text) = text {
                after.streamed.remove(*name);
                after
                    .files
                    .insert((*name).to_string(), std::mem::take(*text).into_bytes());
            }
        }
        let planned = planned_manifest(ctx, dir, old_manifest.as_ref(), &after, only_for);
        for (name, text) in &mut lent {
            if let Some(text) = text {
                let bytes = after.files.remove(*name).unwrap_or_default();
                **text = String::from_utf8(bytes).expect("lent as a String");
            }
        }
        planned
    };
    drop(after);
    let manifest = manifest.inspect_err(|_| {
        if staged_index.is_some() {
            rotation::remove_stale_staging(dir);
        }
    })?;
    let final_log;
    let final_archive;
    if let Some(rot) = &rotation {
        report.written = write_rotation(
            repo,
            dir,
            rot,
            [
                Some(log_text.as_str()),
                archive_text.as_deref(),
                index_text.as_deref(),
            ],
            staged_index.is_some(),
        )?;
        check_written(
            dir,
            rot,
            &log_text,
            archive_text.as_deref(),
            keep,
            rebuilt.as_ref(),
        )?;
        // Rotated and verified, the rotation journal gone; the manifest not yet written.
        failpoint::hit("archive:rotated");
        report.outcome = ArchiveOutcome::Rotated;
        report.moved.clone_from(&rot.moved_entries);
        report.adopted = rot.adopted;
        final_log = rot.log.clone();
        final_archive = Some(rot.archive.clone());
    } else {
        final_log = log_text;
        final_archive = archive_text;
    }
    if let Some(bytes) = manifest {
        write_manifest(dir, &bytes).map_err(|e| match (&rotation, e) {
            // The rotation is complete and verified; only the manifest lags behind it. Say
            // so, and how to finish: nothing is rolled back, and nothing was lost.
            (Some(_), Error::Write { path, source }) => Error::Other {
                context: format!(
                    "LOG.md was rotated into {ARCHIVE_FILE} and {INDEX_FILE} (every entry kept), \
                     but {path} could not be written, so its checksums lag behind: once it is \
                     writable, `git aahp archive` or `git aahp manifest` completes the run"
                ),
                source: Some(Box::new(source)),
            },
            (_, e) => e,
        })?;
        report.written.push(dir.path_of(MANIFEST));
    }
    failpoint::hit("archive:after-manifest");
    if let Some(w) = write {
        w.finish()?;
    }
    report.log_entries = LogFile::parse(&final_log).entries.len();
    report.archived_entries = known_archived.unwrap_or_else(|| {
        final_archive
            .as_deref()
            .map_or(0, |a| LogFile::parse(a).entries.len())
    });
    Ok(report)
}

/// `git aahp archive --reindex` on the files read under the lock (`snap` holds the rest of
/// the handoff, LOG.md included; `mem` LOG-ARCHIVE.md and its index where they were read
/// into memory, as a symbolic link is): re-indexes redacted entries, comparing each with
/// the text it replaces where HEAD holds that text (its LOG-ARCHIVE.md or LOG.md). The
/// archive and index are read as streams, entry by entry (issue #12 item 2), and the new
/// index is written as one into a temporary file, put in place once the manifest that
/// follows it is planned; then the manifest is written. Nothing is written when refused.
fn reindex(
    ctx: &Context,
    dir: &HandoffDir,
    mut snap: Snapshot,
    mem: [Option<String>; 2],
    report: &mut ArchiveReport,
) -> Result<()> {
    let repo = ctx.repo()?;
    let limits = Limits::default();
    let today = crate::clock::utc_date(ctx.now);
    report.outcome = ArchiveOutcome::Reindexed;
    let in_error = |e: LogError| e.into_error(|f| dir.path_of(f));
    let bytes = in_memory(mem[0].as_deref(), mem[1].as_deref());
    let (archive, index) = contents(&snap, &bytes);
    let empty = Bytes(&[]);
    let archive = archive.unwrap_or(&empty);
    let index = index.ok_or_else(|| {
        Error::invalid(
            dir.path_of(INDEX_FILE),
            None,
            "not found: there is no index to re-index (`git aahp archive` builds one)",
        )
    })?;
    // A legacy index too: paired by its list, and written in the current layout.
    let unpaired = log_stream::pair_for_reindex(archive, index, limits).map_err(in_error)?;
    report.archived_entries = unpaired.archived();
    if unpaired.is_empty() {
        return Ok(());
    }
    let originals = head_entries(repo, dir, Some(&unpaired.wanted()))?;
    let lookup = |digest: &str| originals.get(digest).cloned();
    let plan = match unpaired.plan(archive, index, &lookup, today, limits) {
        Ok(plan) => plan,
        Err(LogError::Integrity(problems)) => {
            report.problems = locate(dir, problems)?;
            report.outcome = ArchiveOutcome::NotRedacted;
            return Ok(());
        }
        Err(e) => return Err(in_error(e)),
    };
    let redactions = plan.redactions.clone();
    let write_err = |source| Error::Write {
        path: dir.path_of(INDEX_FILE),
        source,
    };
    let staged = StagedFile::write(&dir.abs.join(INDEX_FILE), |file| {
        let mut out = io::BufWriter::with_capacity(log_stream::CHUNK, file);
        let read = log_stream::write_reindexed(index, plan, limits, &mut out)?;
        out.flush()?;
        Ok::<_, io::Error>(read)
    });
    let staged = match staged {
        Ok((staged, Ok(()))) => staged,
        Ok((_, Err(e))) => return Err(in_error(e)),
        Err(source) => return Err(write_err(source)),
    };
    let len = staged.content_len().map_err(write_err)?;
    let limit = crate::handoff::max_archive_bytes();
    if len > limit as u64 {
        return Err(Error::invalid(
            dir.path_of(INDEX_FILE),
            None,
            format!(
                "re-indexing would make it {len} bytes, more than the {limit} bytes git-aahp reads; nothing was changed"
            ),
        ));
    }
    // The manifest is planned before anything is put in place: a file it cannot read stops
    // the run unchanged. It reads the new index from the temporary file, in pieces.
    let old_manifest = Manifest::from_snapshot(dir, &snap)?;
    let [archive_mem, _] = mem;
    if let Some(text) = archive_mem {
        snap.files
            .insert(ARCHIVE_FILE.to_string(), text.into_bytes());
    }
    snap.streamed.insert(
        INDEX_FILE.to_string(),
        stream::Streamed::whole(staged.temp_path().to_path_buf(), len),
    );
    let manifest = planned_manifest(ctx, dir, old_manifest.as_ref(), &snap, None)?;
    drop(snap);
    staged.commit().map_err(write_err)?;
    report.written.push(dir.path_of(INDEX_FILE));
    write_reindexed_manifest(dir, manifest, report)?;
    report.redactions = redactions;
    Ok(())
}

/// Writes the manifest a re-index planned, if any, saying how to finish when it cannot.
fn write_reindexed_manifest(
    dir: &HandoffDir,
    manifest: Option<Vec<u8>>,
    report: &mut ArchiveReport,
) -> Result<()> {
    let Some(bytes) = manifest else {
        return Ok(());
    };
    write_manifest(dir, &bytes).map_err(|e| match e {
        Error::Write { path, source } => Error::Other {
            context: format!(
                "{INDEX_FILE} was re-indexed, but {path} could not be written, so its \
                 checksums lag behind: once it is writable, `git aahp manifest` completes \
                 the run"
            ),
            source: Some(Box::new(source)),
        },
        e => e,
    })?;
    report.written.push(dir.path_of(MANIFEST));
    Ok(())
}

/// The entries HEAD holds in LOG-ARCHIVE.md and LOG.md, by digest (their normalised text):
/// the texts a redaction can be compared with. Empty without HEAD.
fn head_entries(
    repo: &Repo,
    dir: &HandoffDir,
    wanted: Option<&std::collections::HashSet<String>>,
) -> Result<std::collections::HashMap<String, String>> {
    let mut out = std::collections::HashMap::new();
    let Some(head) = repo.head_commit()? else {
        return Ok(out);
    };
    for (name, limit) in [
        (ARCHIVE_FILE, crate::handoff::max_archive_bytes()),
        (LOG_FILE, MAX_FILE_BYTES),
    ] {
        let path = dir.path_of(name);
        let Some(file) = repo.tree_file_at(head, &path)? else {
            continue;
        };
        if file.is_link {
            continue;
        }
        // What HEAD holds beyond the limit or not as UTF-8 is not compared with: such an
        // entry is tied to its index line by its heading only, as if HEAD had none.
        let Ok(bytes) = repo.blob_within(file.id, limit)? else {
            continue;
        };
        if std::str::from_utf8(&bytes).is_err() {
            continue;
        }
        // Read entry by entry, keeping the texts wanted only: HEAD's blob is the one copy
        // of the archive held (gix loads a blob whole).
        let content = Bytes(&bytes);
        let Ok(mut entries) = log_stream::Entries::new(&content, Limits::default(), ARCHIVE_FILE)
        else {
            continue;
        };
        // An entry beyond what a stream reads ends the comparison texts there.
        while let Ok(Some(e)) = entries.next_entry() {
            let digest = e.digest();
            if wanted.is_none_or(|w| w.contains(&digest)) {
                out.entry(digest).or_insert(e.text);
            }
        }
    }
    Ok(out)
}

/// True when the regular file at `path` holds exactly `meant`, read in pieces (a file that
/// is absent holds nothing).
fn same_bytes(path: &std::path::Path, meant: &[u8]) -> bool {
    if meant.is_empty() && std::fs::symlink_metadata(path).is_err() {
        return true;
    }
    stream::ends_with_at(path, 0, meant)
}

/// LOG-ARCHIVE.md and its index where they were read into memory (a symbolic link is
/// read whole, as every command reads it).
fn in_memory<'a>(archive: Option<&'a str>, index: Option<&'a str>) -> [Option<Bytes<'a>>; 2] {
    [archive, index].map(|t| t.map(|t| Bytes(t.as_bytes())))
}

/// LOG-ARCHIVE.md and its index as content to stream: left on disk by `snap`, or in
/// memory (`None`: absent).
fn contents<'a>(
    snap: &'a Snapshot,
    mem: &'a [Option<Bytes<'a>>; 2],
) -> (Option<&'a dyn Content>, Option<&'a dyn Content>) {
    let get = |name, m: &'a Option<Bytes<'a>>| {
        snap.streamed
            .get(name)
            .map(|s| s as &dyn Content)
            .or(m.as_ref().map(|b| b as &dyn Content))
    };
    (get(ARCHIVE_FILE, &mem[0]), get(INDEX_FILE, &mem[1]))
}

/// Records the [`stream::PassState`] of LOG-ARCHIVE.md and its index where `snap` read them
/// whole from blobs ([`Snapshot::blob_ids`]: the pre-commit gate of a commit that changes
/// them, `git aahp commit`'s included), by blob id: once committed, the next `archive` onto
/// them resumes from it instead of reading them (see `resume_from_head`). A state is
/// computed from the blob's own bytes, so it is that blob's whatever the working tree holds.
/// Where they were left on disk as the blob instead (above `HELD_WHOLE_UP_TO`,
/// [`Snapshot::streamed_blob_ids`]), the state is computed from the file and kept only if
/// the file kept the stamp it had before it was shown to be the blob, so it is that blob's.
pub(crate) fn record_pass_states(repo: &Repo, snap: &Snapshot) {
    /// Where a state is computed from.
    enum From<'a> {
        Held(&'a [u8]),
        OnDisk(&'a stream::Streamed, stream::Stamp),
    }
    let mut cache: Option<BlobCache> = None;
    for name in [ARCHIVE_FILE, INDEX_FILE] {
        let (id, from, len) = match (
            snap.streamed_blob_ids.get(name),
            snap.streamed.get(name),
            snap.blob_ids.get(name),
            snap.files.get(name),
        ) {
            (Some(&(id, stamp)), Some(s), _, _) => (id, From::OnDisk(s, stamp), s.len()),
            (_, _, Some(&id), Some(bytes)) => (id, From::Held(bytes), bytes.len() as u64),
            _ => continue,
        };
        let Some(at) = stream::resume_point(len) else {
            continue;
        };
        let scan = name == INDEX_FILE;
        let cache = cache.get_or_insert_with(|| BlobCache::pass_states(repo));
        if cache
            .pass_state(id)
            .is_some_and(|st| st.at == at && (!scan || st.has_scan()))
        {
            continue;
        }
        let state = match from {
            From::Held(bytes) => stream::state_of(bytes, at, scan),
            From::OnDisk(s, stamp) => s
                .prefix_state(name, at, scan)
                .ok()
                .filter(|_| stream::Stamp::of(&s.path) == Some(stamp)),
        };
        if let Some(state) = state {
            cache.insert_pass_state(id, &state);
        }
    }
    if let Some(cache) = cache {
        cache.save();
    }
}

/// Gives LOG-ARCHIVE.md and its index, left on disk as HEAD holds them (`ids`, shown
/// equal by their bytes), the state of a pass over their committed bytes: the index's end
/// is then found from there, and the manifest reads only their first
/// [`stream::HEAD_BYTES`] and what follows the state (they are extended in place, or not
/// at all; an index rebuilt instead is staged as another file, without the state). See
/// [`steps::resume_at_head`].
fn resume_from_head(
    repo: &Repo,
    dir: &HandoffDir,
    snap: &mut Snapshot,
    ids: [gix::ObjectId; 2],
) -> Result<()> {
    let mut cache: Option<BlobCache> = None;
    for (name, id) in [ARCHIVE_FILE, INDEX_FILE].into_iter().zip(ids) {
        if let Some(streamed) = snap.streamed.get_mut(name) {
            steps::resume_at_head(repo, dir, name, streamed, id, &mut cache)?;
        }
    }
    if let Some(cache) = cache {
        cache.save();
    }
    Ok(())
}

/// Attaches paths to problems; input that cannot be interpreted becomes an error (exit 2).
fn locate(dir: &HandoffDir, problems: Vec<ArchiveProblem>) -> Result<Vec<LocatedProblem>> {
    if let Some(ArchiveProblem::Malformed {
        file,
        line,
        message,
    }) = problems.iter().find(|p| p.is_malformed())
    {
        return Err(Error::invalid(dir.path_of(file), *line, message.clone()));
    }
    Ok(problems
        .into_iter()
        .map(|p| LocatedProblem {
            path: dir.path_of(p.file()),
            line: p.line(),
            message: p.message(),
            problem: p,
        })
        .collect())
}

/// The postcondition on disk: the files read back are what was meant to be written, and
/// by hash no entry was lost or duplicated. A rebuilt index (`rebuilt`) is checked with
/// the archive as streams, entry by entry.
fn check_written(
    dir: &HandoffDir,
    rot: &Rotation,
    log_before: &str,
    archive_before: Option<&str>,
    keep: usize,
    rebuilt: Option<&Rebuilt>,
) -> Result<()> {
    // The files on disk are what was meant (compared as streams, the archive may be large);
    // the checks below then run on the texts in memory. A file extended in place by a
    // rotation onto trusted files is compared from where its splice starts: the rest was
    // not written.
    let appended = rot.archived.is_some();
    for (name, meant, splice, changed) in [
        (LOG_FILE, &rot.log, None, true),
        (
            ARCHIVE_FILE,
            &rot.archive,
            rot.archive_splice.as_ref(),
            !appended || rot.archive_changed,
        ),
        (
            INDEX_FILE,
            &rot.index,
            rot.index_splice.as_ref(),
            rebuilt.is_none(),
        ),
    ] {
        if !changed {
            continue;
        }
        let path = dir.abs.join(name);
        let as_meant = match splice {
            Some(s) if appended => stream::ends_with_at(&path, s.keep as u64, s.text.as_bytes()),
            _ => same_bytes(&path, meant.as_bytes()),
        };
        if !as_meant {
            return Err(changed_while_written(dir, name));
        }
    }
    if let Some(plan) = rebuilt {
        let on_disk = |name: &str| {
            let path = dir.abs.join(name);
            let len = std::fs::metadata(&path).map_or(0, |m| m.len());
            stream::Streamed::whole(path, len)
        };
        let (archive, index) = (on_disk(ARCHIVE_FILE), on_disk(INDEX_FILE));
        return plan
            .check(rot, log_before, &archive, &index, keep, Limits::default())
            .map_err(|e| e.into_error(|f| dir.path_of(f)));
    }
    // An appending rotation onto trusted files checks what it appended; the old bytes were
    // never written.
    if appended {
        return log::check_appended(log_before, &rot.log, rot, keep)
            .map_err(|e| e.into_error(|f| dir.path_of(f)));
    }
    log::check_rotation(
        log_before,
        archive_before,
        &rot.log,
        &rot.archive,
        &rot.index,
        keep,
    )
    .map_err(|e| e.into_error(|f| dir.path_of(f)))
}

/// The error of a postcondition that found a file other than it was written.
fn changed_while_written(dir: &HandoffDir, name: &str) -> Error {
    Error::other(format!(
        "archive postcondition failed: {} changed while it was being written; rerun `git aahp archive`",
        dir.path_of(name)
    ))
}

#[cfg(test)]
mod tests {
    use crate::transaction::steps::starts_with_version_1;

    /// Only an index that starts as this tool writes it is extended on trust in its ends.
    #[test]
    fn only_the_written_layout_is_trusted_by_its_ends() {
        for ok in [
            "{\"version\": 1, \"entries\": []}",
            "\u{feff}{\n  \"version\" :1\n}",
        ] {
            assert!(starts_with_version_1(ok.as_bytes()), "{ok}");
        }
        for bad in [
            "{\"archived\": [], \"entries\": []}",
            "{\"entries\": [], \"version\": 1}",
            "{\"version\": 2, \"entries\": []}",
            "{\"version\": 10, \"entries\": []}",
            "{\"version\": 1.5}",
            "",
        ] {
            assert!(!starts_with_version_1(bad.as_bytes()), "{bad}");
        }
    }
}
