//! `git aahp merge-driver %O %A %B %P`: the merge driver `.gitattributes` names for handoff
//! files (SPEC §6, issue #17). Git runs it with the ancestor's, ours' and theirs' versions in
//! temporary files; it writes the merge into ours' file and exits 0 (clean) or 1 (conflicts
//! left marked). The rules are in [`crate::handoff::merge`]; here they are chosen by file
//! name, and MANIFEST.json is regenerated for the merged directory.
#![allow(
    clippy::many_single_char_names,
    reason = "b, o, t: ancestor, ours and theirs, as in every three-way merge"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::Context;
use crate::error::{Error, ExitStatus, Result};
use crate::git::Repo;
use crate::handoff::manifest::{Manifest, SessionInfo};
use crate::handoff::merge::{self, Merged};
use crate::handoff::merge_stream::{self, Budget, Index, Journal, MergeError, NotStreamed, Side};
use crate::handoff::stream::Streamed;
use crate::handoff::{
    HandoffDir, MANIFEST, MAX_FILE_BYTES, Snapshot, write_atomic, write_atomic_from,
};
use crate::output::{Report, Style, boundary, escape_untrusted};

/// The git config key naming the driver's command.
pub const DRIVER_KEY: &str = "merge.aahp.driver";
/// The command git runs (`hooks install` writes it into [`DRIVER_KEY`]).
pub const DRIVER_COMMAND: &str = "git aahp merge-driver %O %A %B %P";
/// The attribute value `.gitattributes` gives handoff files (`merge=aahp`).
pub const ATTRIBUTE: &str = "merge=aahp";

/// Merge one handoff file for git (configured by `git aahp hooks install`; `init` names it
/// in .gitattributes).
///
/// LOG.md, LOG-ARCHIVE.md and its index are unioned by entry, newest first; TRUST.md rows by
/// property (the newer verification wins); STATUS.md and `NEXT_ACTIONS.md` by section
/// (conflict markers where both sides rewrote one); MANIFEST.json's tasks are unioned (a
/// clashing incoming id is renumbered) and the manifest regenerated. Other files get git's
/// line merge. Exit 0: merged; 1: conflicts left marked.
#[derive(Debug, Clone, clap::Args)]
pub struct MergeDriverArgs {
    /// The common ancestor's version (git's %O).
    pub base: PathBuf,
    /// Ours (git's %A): the merge is written here.
    pub ours: PathBuf,
    /// Theirs (git's %B).
    pub theirs: PathBuf,
    /// The file's path in the repository (git's %P).
    pub path: String,
}

/// What the driver did.
#[derive(Debug, Serialize)]
pub struct MergeDriverReport {
    /// The file merged (repository-relative).
    #[serde(serialize_with = "boundary::line")]
    pub path: String,
    /// The rule applied (`journal`, `index`, `trust`, `sections`, `manifest`, `lines`).
    pub rule: &'static str,
    /// Conflicts left marked (0: clean).
    pub conflicts: usize,
    /// What a person should know about the merge.
    #[serde(serialize_with = "boundary::list")]
    pub notes: Vec<String>,
}

impl Report for MergeDriverReport {
    fn command(&self) -> &'static str {
        "merge-driver"
    }

    fn write_human(&self, w: &mut dyn Write, style: &Style) -> io::Result<()> {
        for n in &self.notes {
            writeln!(
                w,
                "git aahp merge-driver: {}: {}",
                escape_untrusted(&self.path),
                escape_untrusted(n)
            )?;
        }
        if self.conflicts > 0 {
            writeln!(
                w,
                "git aahp merge-driver: {}: {} {} left marked",
                escape_untrusted(&self.path),
                style.error(&self.conflicts.to_string()),
                if self.conflicts == 1 {
                    "conflict"
                } else {
                    "conflicts"
                }
            )?;
        }
        Ok(())
    }

    fn status(&self) -> ExitStatus {
        if self.conflicts > 0 {
            ExitStatus::Findings
        } else {
            ExitStatus::Success
        }
    }
}

/// Runs the driver.
pub fn run(ctx: &Context, args: &MergeDriverArgs) -> Result<MergeDriverReport> {
    sweep_beside_ours(ctx, args);
    if let Some(report) = merge_streamed(args)? {
        return Ok(report);
    }
    // The limit is that of the file merged (LOG-ARCHIVE.md and its index, when they cannot
    // be merged as streams, are merged whole within theirs), not of a file named
    // `LOG-ARCHIVE.md (ours)`.
    let read = |p: &Path, what: &str| {
        crate::handoff::read_limited_as(p, &format!("{} ({what})", args.path), &args.path)
    };
    let (base, ours, theirs) = (
        read(&args.base, "ancestor")?,
        read(&args.ours, "ours")?,
        read(&args.theirs, "theirs")?,
    );
    let repo = ctx.repo()?;
    let name = args.path.rsplit('/').next().unwrap_or_default();
    let (rule, merged) = match (
        std::str::from_utf8(&base),
        std::str::from_utf8(&ours),
        std::str::from_utf8(&theirs),
    ) {
        (Ok(b), Ok(o), Ok(t)) => merge_text(ctx, repo, &args.path, name, b, o, t)?,
        _ => ("lines", line_merge(repo, &base, &ours, &theirs)?),
    };
    write_atomic(&args.ours, merged.text.as_bytes()).map_err(|source| Error::Write {
        path: args.ours.display().to_string(),
        source,
    })?;
    Ok(MergeDriverReport {
        path: args.path.clone(),
        rule,
        conflicts: merged.conflicts,
        notes: merged.notes,
    })
}

/// Merges LOG-ARCHIVE.md or its index without holding a side whole (issue #12 item 2) when
/// a side is larger than the files held in memory: a side equal to another is taken as it
/// is, compared and copied in pieces; an archive to which each side only added entries
/// before or after the ancestor's (an archive only grows) is merged entry by entry, its
/// index element by element ([`merge_stream`]). `None`: the texts are merged whole, as for
/// every other file, within the file's limit (small sides, invalid UTF-8, a side that
/// rewrote or removed an entry, or is not an index the rule merges).
fn merge_streamed(args: &MergeDriverArgs) -> Result<Option<MergeDriverReport>> {
    use crate::handoff::log::{ARCHIVE_FILE, INDEX_FILE};
    let name = args.path.rsplit('/').next().unwrap_or_default();
    let rule = match name {
        ARCHIVE_FILE => "journal",
        INDEX_FILE => "index",
        _ => return Ok(None),
    };
    let shown = |side: Side| format!("{} ({})", args.path, side.name());
    let open = |p: &Path, side: Side| -> Result<Streamed> {
        let (_, meta) = crate::handoff::open_regular(p, &shown(side))?;
        Ok(Streamed::whole(p.to_path_buf(), meta.len()))
    };
    let (b, o, t) = (
        open(&args.base, Side::Base)?,
        open(&args.ours, Side::Ours)?,
        open(&args.theirs, Side::Theirs)?,
    );
    // Tests arm `merge-in-pieces` to take this path with small files.
    let whole_up_to = if crate::failpoint::armed_flag("merge-in-pieces") {
        0
    } else {
        MAX_FILE_BYTES as u64
    };
    if [&b, &o, &t].iter().all(|s| s.len() <= whole_up_to) {
        return Ok(None);
    }
    let read_err = |side: Side| {
        move |source| Error::Read {
            path: shown(side),
            source,
        }
    };
    for (c, side) in [(&b, Side::Base), (&o, Side::Ours), (&t, Side::Theirs)] {
        if !merge_stream::is_utf8(c).map_err(read_err(side))? {
            return Ok(None);
        }
    }
    let report = |notes| {
        Some(MergeDriverReport {
            path: args.path.clone(),
            rule,
            conflicts: 0,
            notes,
        })
    };
    let same = |x: &Streamed, y: &Streamed, side: Side| {
        merge_stream::same_content(x, y).map_err(read_err(side))
    };
    let write_err = |source| Error::Write {
        path: args.ours.display().to_string(),
        source,
    };
    // Ours already holds the result when it is theirs or theirs changed nothing.
    if same(&o, &t, Side::Ours)? || same(&t, &b, Side::Theirs)? {
        return Ok(report(Vec::new()));
    }
    if same(&o, &b, Side::Ours)? {
        write_atomic_from(&args.ours, |out| merge_stream::copy_content(&t, out))
            .map_err(write_err)?;
        return Ok(report(Vec::new()));
    }
    let failed = |e: MergeError| match e {
        MergeError::Read(side, e) => e.into_error(|_| shown(side)),
        MergeError::Write(source) => write_err(source),
    };
    let not_streamed = |why: NotStreamed| {
        let why = match why {
            NotStreamed::NotAdditive(side) => format!(
                "{} does not hold the ancestor's entries unchanged before or after its own",
                side.name()
            ),
            NotStreamed::TooLarge(side) => format!(
                "{} added more than {MAX_FILE_BYTES} bytes of entries",
                side.name()
            ),
            NotStreamed::Unusual(side) => {
                format!(
                    "{} is not a JSON object with an `entries` list",
                    side.name()
                )
            }
        };
        whole_within_limit(args, &[&b, &o, &t], &why)
    };
    let notes = if rule == "index" {
        let plan = match merge_stream::plan::<Index>(&b, &o, &t, Budget::default()) {
            Ok(Ok(plan)) => plan,
            Ok(Err(why)) => return not_streamed(why),
            Err(e) => return Err(failed(e)),
        };
        write_atomic_from(&args.ours, |out| plan.write_index(out)).map_err(failed)?;
        Vec::new()
    } else {
        let plan = match merge_stream::plan::<Journal>(&b, &o, &t, Budget::default()) {
            Ok(Ok(plan)) => plan,
            Ok(Err(why)) => return not_streamed(why),
            Err(e) => return Err(failed(e)),
        };
        write_atomic_from(&args.ours, |out| plan.write_journal(out)).map_err(failed)?
    };
    Ok(report(notes))
}

/// `None` (merge the texts whole) when every side is within the file's limit for a whole
/// read; else the refusal, naming the file, why it could not be merged as a stream and how
/// to go on.
fn whole_within_limit(
    args: &MergeDriverArgs,
    sides: &[&Streamed; 3],
    why: &str,
) -> Result<Option<MergeDriverReport>> {
    let limit = crate::handoff::max_bytes(&args.path) as u64;
    match sides.iter().map(|s| s.len()).max() {
        Some(len) if len > limit => Err(Error::invalid(
            &args.path,
            None,
            format!(
                "cannot be merged entry by entry ({why}), and merged whole it is limited to \
                 {limit} bytes (a side is {len}); nothing was merged: resolve it by hand, keeping \
                 every entry of both sides, then run `git aahp archive --verify`"
            ),
        )),
        _ => Ok(None),
    }
}

/// Merges one file's text by the rule for its name.
fn merge_text(
    ctx: &Context,
    repo: &Repo,
    path: &str,
    name: &str,
    b: &str,
    o: &str,
    t: &str,
) -> Result<(&'static str, Merged)> {
    if name == MANIFEST {
        return Ok(("manifest", merge_manifest(ctx, repo, path, b, o, t)?));
    }
    let renamed = if name == crate::handoff::log::LOG_FILE || names_task_ids(name) {
        let rel_dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        match (repo.head_commit()?, repo.merging_commit()) {
            (Some(ours), Some(theirs)) => renamed_between(repo, rel_dir, ours, theirs)?,
            _ => None,
        }
    } else {
        None
    };
    let renamed = renamed.unwrap_or_default();
    let top = if name == crate::handoff::log::LOG_FILE {
        renumbering_entry(repo, &renamed, ours_and_theirs(repo)?)?
    } else {
        None
    };
    let t = &*theirs_renamed(name, b, t, &renamed);
    Ok(match file_merge(name, b, o, t, top.as_deref()) {
        Some(r) => r,
        None => (
            "lines",
            line_merge(repo, b.as_bytes(), o.as_bytes(), t.as_bytes())?,
        ),
    })
}

/// True for the files whose text names tasks by id (`### T-001: …` headings, `(follow-up:
/// T-002)`, prose): a task the merge renumbered is renamed in what the merged branch added.
fn names_task_ids(name: &str) -> bool {
    matches!(name, "STATUS.md" | "NEXT_ACTIONS.md")
}

/// Theirs' text as the merge takes it: in a file that names tasks ([`names_task_ids`]), the
/// task ids the manifest's merge renumbers on theirs' side (`renamed`) are renamed in the
/// lines theirs added, whichever rule then merges it.
fn theirs_renamed<'a>(
    name: &str,
    b: &str,
    t: &'a str,
    renamed: &[(String, String)],
) -> std::borrow::Cow<'a, str> {
    if names_task_ids(name) && !renamed.is_empty() {
        std::borrow::Cow::Owned(merge::rename_added_ids(b, t, renamed))
    } else {
        std::borrow::Cow::Borrowed(t)
    }
}

/// The rule-based merge of a handoff file other than the manifest, or `None` when git's line
/// merge must decide. `log_top` is the merge's own LOG.md entry, if it has one.
fn file_merge(
    name: &str,
    b: &str,
    o: &str,
    t: &str,
    log_top: Option<&str>,
) -> Option<(&'static str, Merged)> {
    use crate::handoff::log::{ARCHIVE_FILE, INDEX_FILE, LOG_FILE};
    match name {
        LOG_FILE => Some(("journal", merge::merge_journal_with(b, o, t, log_top))),
        ARCHIVE_FILE => Some(("journal", merge::merge_journal(b, o, t))),
        INDEX_FILE => merge::merge_index(b, o, t).map(|m| ("index", m)),
        "TRUST.md" => Some(("trust", merge::merge_trust(b, o, t))),
        "STATUS.md" | "NEXT_ACTIONS.md" => merge::merge_sections(b, o, t)
            .map(|m| ("sections", m))
            .or_else(|| merge::merge_blocks(b, o, t).map(|m| ("items", m))),
        _ => None,
    }
}

/// Git's own line merge (`git merge-file`), through temporary files.
fn line_merge(repo: &Repo, b: &[u8], o: &[u8], t: &[u8]) -> Result<Merged> {
    let tmp = tempfile::tempdir().map_err(|source| Error::Write {
        path: "a temporary directory".into(),
        source,
    })?;
    let put = |name: &str, bytes: &[u8]| -> Result<PathBuf> {
        let p = tmp.path().join(name);
        std::fs::write(&p, bytes).map_err(|source| Error::Write {
            path: p.display().to_string(),
            source,
        })?;
        Ok(p)
    };
    let (bp, op, tp) = (put("base", b)?, put("ours", o)?, put("theirs", t)?);
    let (bytes, conflicts) = repo.merge_file(&op, &bp, &tp)?;
    Ok(Merged {
        text: String::from_utf8_lossy(&bytes).into_owned(),
        conflicts,
        notes: Vec::new(),
    })
}

/// A driver killed while it wrote the merge (a full disk, `ulimit -f`) leaves its temporary
/// file beside git's `%A`, at the work tree's top (where git makes `%A`); nothing else
/// removed it (review rob36 #11). The next run sweeps what it finds there, as the writers
/// sweep the handoff directory: no other writer works there, and git runs one driver at a
/// time. Anywhere else nothing is touched.
fn sweep_beside_ours(ctx: &Context, args: &MergeDriverArgs) {
    let Ok(repo) = ctx.repo() else {
        return;
    };
    let Some(parent) = std::fs::canonicalize(&args.ours)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
    else {
        return;
    };
    let Ok(top) = std::fs::canonicalize(repo.workdir()) else {
        return;
    };
    // Only there: a handoff directory (never the top) has writers that hold its lock.
    if parent == top {
        crate::transaction::remove_temp_files_in(repo, &parent, "");
    }
}

/// Merges MANIFEST.json: tasks unioned (clashing incoming ids renumbered), `next_task_id` the
/// maximum, other fields taken from the side that changed them; then the file entries and
/// token budget are regenerated for the merged directory. When the merged directory cannot
/// be known (not a `git merge`, or another file of the directory kept conflicts) the
/// manifest is left for `git aahp manifest` and the merge reports a conflict.
fn merge_manifest(
    ctx: &Context,
    repo: &Repo,
    path: &str,
    b: &str,
    o: &str,
    t: &str,
) -> Result<Merged> {
    let parse = |text: &str, read: fn(&str, &[u8]) -> Result<Manifest>| -> Option<Manifest> {
        if text.trim().is_empty() {
            return Some(Manifest {
                doc: serde_json::Map::new(),
            });
        }
        read(path, text.as_bytes()).ok()
    };
    // The merge base is only compared with; the sides are written back merged.
    let (Some(bm), Some(om), Some(tm)) = (
        parse(b, Manifest::parse_read_only),
        parse(o, Manifest::parse),
        parse(t, Manifest::parse),
    ) else {
        let mut m = line_merge(repo, b.as_bytes(), o.as_bytes(), t.as_bytes())?;
        m.conflicts = m.conflicts.max(1);
        m.notes.push(
            "a side's MANIFEST.json is not valid JSON, or holds a number this tool cannot write back exactly: resolve the other files, then run `git aahp manifest`".into(),
        );
        return Ok(m);
    };
    let merged = merge_manifest_fields(&bm, &om, &tm);
    let mut notes: Vec<String> = merged
        .renamed
        .iter()
        .map(|(from, to)| format!("task {from} added on the merged branch is now {to} (its id was taken on this branch)"))
        .collect();
    notes.extend(merged.notes);
    // A task field both branches changed differently: the merged manifest (every task of
    // the union, renumbered ids included) twice, with ours' and with theirs' values of those
    // fields, inside git's markers only where they differ (exit 1), naming each field. A
    // line merge of the two sides instead put both whole task maps in the markers: either
    // choice lost the other side's tasks, and the renumbered ids were nowhere (review
    // rob36 #2).
    if let Some(theirs_choice) = merged.theirs_choice {
        let ours = settle_manifest(ctx, repo, path, &merged.manifest, &merged.renamed)?;
        let theirs = settle_manifest(ctx, repo, path, &theirs_choice, &merged.renamed)?;
        notes.extend(ours.notes);
        notes.push(format!(
            "both branches changed {} to different values: both choices are in the conflict markers, each with every task; keep one, then run `git aahp manifest`",
            merged.conflicts.join(", ")
        ));
        return Ok(Merged {
            text: crate::handoff::merge::marked_texts(&ours.text, &theirs.text),
            conflicts: 1,
            notes,
        });
    }
    let mut settled = settle_manifest(ctx, repo, path, &merged.manifest, &merged.renamed)?;
    notes.append(&mut settled.notes);
    settled.notes = notes;
    Ok(settled)
}

/// The merged manifest `fields` with its file entries and token budget regenerated for the
/// merged directory; when that directory cannot be known (not a `git merge`, or another file
/// of it kept conflicts) the fields as they are, a conflict for `git aahp manifest`.
fn settle_manifest(
    ctx: &Context,
    repo: &Repo,
    path: &str,
    fields: &Manifest,
    renamed: &[(String, String)],
) -> Result<Merged> {
    let mut notes = Vec::new();
    let rel_dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let dir = HandoffDir::at_rel(repo, rel_dir)?;
    let (snap, stale_ids) = match merged_directory(repo, &dir)? {
        MergedDirectory::Merged {
            snap,
            unresolved,
            stale_ids,
        } if unresolved.is_empty() => (*snap, stale_ids),
        // Checksums over a file left with markers would make it look settled (session 30
        // #2): the fields are written as merged, the checksums left to `git aahp manifest`
        // once the files are resolved, and the manifest stays conflicted until then.
        MergedDirectory::Merged { unresolved, .. } => {
            notes.push(format!(
                "{} kept conflicts, so the checksums were not regenerated: resolve them, then \
                 run `git aahp manifest` and `git add` it",
                unresolved.join(", ")
            ));
            return Ok(Merged {
                text: String::from_utf8_lossy(&fields.to_bytes()).into_owned(),
                conflicts: 1,
                notes,
            });
        }
        left => {
            notes.push(match left {
                MergedDirectory::TooLarge(path) => format!(
                    "{path} is larger than a merge holds in memory: once the merge is done, run `git aahp manifest` (it reads the file as a stream) to regenerate the checksums, then `git add` it"
                ),
                _ => "cannot tell which commit is being merged (not a `git merge`): run `git aahp manifest` to regenerate the checksums, then `git add` it".into(),
            });
            return Ok(Merged {
                text: String::from_utf8_lossy(&fields.to_bytes()).into_owned(),
                conflicts: 1,
                notes,
            });
        }
    };
    let regen = Manifest::regenerate(
        Some(fields),
        &dir,
        &snap,
        &SessionInfo::default(),
        None,
        ctx.now,
        &mut crate::handoff::checksum_cache::BlobCache::token_counts(repo),
    )?;
    let conflicts = usize::from(!stale_ids.is_empty());
    if !stale_ids.is_empty() {
        let renumbered = renamed
            .iter()
            .map(|(from, to)| format!("{from} is now {to}"))
            .collect::<Vec<_>>()
            .join(", ");
        notes.push(format!(
            "{} from the merged branch names a task this merge renumbered ({renumbered}), and git takes that file as it is: change the ids there, then run `git aahp manifest` and `git add` both",
            stale_ids.join(", ")
        ));
    }
    Ok(Merged {
        text: String::from_utf8_lossy(&regen.manifest.to_bytes()).into_owned(),
        conflicts,
        notes,
    })
}

/// The merged manifest fields (before regeneration), and what the task merge did.
#[derive(Debug)]
pub struct MergedFields {
    /// The merged manifest, its file entries and budget not yet regenerated.
    pub manifest: Manifest,
    /// Incoming tasks renumbered: (old id, new id).
    pub renamed: Vec<(String, String)>,
    /// A side's change that was not taken, and why.
    pub notes: Vec<String>,
    /// Task fields both sides changed differently (the merge cannot choose).
    pub conflicts: Vec<String>,
    /// With `conflicts`: `manifest` with theirs' value in each of those fields.
    pub theirs_choice: Option<Manifest>,
}

/// Merges the fields of three manifests: tasks by [`merge::merge_tasks`], `next_task_id`
/// the maximum, any other field the side's that changed it (ours when both did, noted).
pub fn merge_manifest_fields(b: &Manifest, o: &Manifest, t: &Manifest) -> MergedFields {
    let own = |m: &Manifest| -> Vec<(String, Value)> {
        m.tasks().into_iter().map(|(k, v)| (k, v.clone())).collect()
    };
    let tasks = merge::merge_tasks(
        &own(b),
        &own(o),
        &own(t),
        [o.next_task_id(), t.next_task_id()],
    );
    let mut notes = tasks.notes;
    let mut doc = o.doc.clone();
    for (k, tv) in &t.doc {
        if matches!(
            k.as_str(),
            "tasks" | "next_task_id" | "files" | "token_budget"
        ) {
            continue;
        }
        if o.doc.get(k) == b.doc.get(k) {
            doc.insert(k.clone(), tv.clone());
        } else if b.doc.get(k) != Some(tv) && o.doc.get(k) != Some(tv) {
            notes.push(format!(
                "`{k}` changed on both branches: this branch's value was kept, the merged branch's was not"
            ));
        }
    }
    merge_entry_extras(b, t, &mut doc, &mut notes);
    if !tasks.tasks.is_empty() || doc.contains_key("tasks") {
        doc.insert("tasks".into(), Value::Object(tasks.tasks));
    }
    if doc.contains_key("next_task_id") || tasks.next_task_id > 1 {
        doc.insert("next_task_id".into(), Value::from(tasks.next_task_id));
    }
    let theirs_choice = tasks.theirs_choice.map(|choice| {
        let mut doc = doc.clone();
        doc.insert("tasks".into(), Value::Object(choice));
        Manifest { doc }
    });
    MergedFields {
        manifest: Manifest { doc },
        renamed: tasks.renamed,
        notes,
        conflicts: tasks.conflicts,
        theirs_choice,
    }
}

/// HEAD and the commit being merged, when this is a `git merge`.
fn ours_and_theirs(repo: &Repo) -> Result<Option<(gix::ObjectId, gix::ObjectId)>> {
    Ok(match (repo.head_commit()?, repo.merging_commit()) {
        (Some(o), Some(t)) => Some((o, t)),
        _ => None,
    })
}

/// The task ids the manifest's merge renumbers on the merged branch's side, or `None` when a
/// side's manifest does not parse.
///
/// Git runs the driver once per file, in an order this tool does not control, so the
/// merges of LOG.md, STATUS.md and `NEXT_ACTIONS.md` do not wait for the manifest's: each
/// computes the renaming from the same three commits' manifests by the same rules
/// ([`merge_manifest_fields`]), and the manifest's regeneration merges those files with the
/// same renaming, so its checksums match what git writes.
fn renamed_between(
    repo: &Repo,
    rel_dir: &str,
    ours: gix::ObjectId,
    theirs: gix::ObjectId,
) -> Result<Option<Vec<(String, String)>>> {
    let path = if rel_dir.is_empty() {
        MANIFEST.to_owned()
    } else {
        format!("{rel_dir}/{MANIFEST}")
    };
    // A side without the file has no tasks; a link, an oversized blob or a manifest that
    // does not parse gives no renaming (the manifest's own merge reports it). Only read
    // here: a number the merged manifest could not keep is the manifest merge's to refuse.
    let manifest_at = |c: Option<gix::ObjectId>| -> Result<Option<Manifest>> {
        let Some(file) = c
            .map(|c| repo.tree_file_at(c, &path))
            .transpose()?
            .flatten()
        else {
            return Ok(Some(Manifest {
                doc: serde_json::Map::new(),
            }));
        };
        if file.is_link {
            return Ok(None);
        }
        Ok(repo
            .blob_within(file.id, crate::handoff::max_bytes(MANIFEST))?
            .ok()
            .and_then(|bytes| Manifest::parse_read_only(&path, &bytes).ok()))
    };
    let base = repo.merge_base(ours, theirs)?;
    let (Some(b), Some(o), Some(t)) = (
        manifest_at(base)?,
        manifest_at(Some(ours))?,
        manifest_at(Some(theirs))?,
    ) else {
        return Ok(None);
    };
    Ok(Some(merge_manifest_fields(&b, &o, &t).renamed))
}

/// Theirs' changes to the fields of `files` entries this tool does not own (another tool's:
/// the regeneration keeps them) merged into `doc` (ours' fields): a field only theirs
/// changed takes theirs' value; changed on both sides, ours' is kept and noted.
fn merge_entry_extras(
    b: &Manifest,
    t: &Manifest,
    doc: &mut serde_json::Map<String, Value>,
    notes: &mut Vec<String>,
) {
    use crate::handoff::manifest::ENTRY_FIELDS;
    let entries = |m: &Manifest| m.doc.get("files").and_then(Value::as_object).cloned();
    let (Some(tf), be) = (entries(t), entries(b)) else {
        return;
    };
    let Some(Value::Object(of)) = doc.get_mut("files") else {
        return;
    };
    for (name, te) in &tf {
        // An entry only theirs has (a file it added): the regeneration keeps its other
        // fields when the merged directory holds the file, and drops it when not.
        if !of.contains_key(name) {
            of.insert(name.clone(), te.clone());
            continue;
        }
        let (Some(Value::Object(oe)), Value::Object(te)) = (of.get_mut(name), te) else {
            continue;
        };
        let bentry = be
            .as_ref()
            .and_then(|f| f.get(name))
            .and_then(Value::as_object);
        let keys: BTreeSet<&String> = te.keys().chain(oe.keys()).collect();
        let mut changes = Vec::new();
        for k in keys {
            if ENTRY_FIELDS.contains(&k.as_str()) {
                continue;
            }
            let (bv, ov, tv) = (bentry.and_then(|e| e.get(k)), oe.get(k), te.get(k));
            if tv == bv || ov == tv {
                continue;
            }
            if ov == bv {
                changes.push((k.clone(), tv.cloned()));
            } else {
                notes.push(format!(
                    "`files.{name}.{k}` changed on both branches: this branch's value was kept, the merged branch's was not"
                ));
            }
        }
        for (k, v) in changes {
            match v {
                Some(v) => oe.insert(k, v),
                None => oe.remove(&k),
            };
        }
    }
}

/// The LOG.md entry of a merge that renumbered task ids (`renamed`, from
/// [`renamed_between`]), or `None` when it renumbered none.
///
/// The entry is dated by the later of the two commits, not the clock, so that the LOG.md
/// merge and the manifest's regeneration write the same text. Written only when both
/// branches changed LOG.md (git merges it, and runs the driver, only then); otherwise the
/// note on the renumbered task is the record.
fn renumbering_entry(
    repo: &Repo,
    renamed: &[(String, String)],
    commits: Option<(gix::ObjectId, gix::ObjectId)>,
) -> Result<Option<String>> {
    let Some((ours, theirs)) = commits.filter(|_| !renamed.is_empty()) else {
        return Ok(None);
    };
    let seconds = repo.commit_time(ours)?.max(repo.commit_time(theirs)?);
    let date = jiff::Timestamp::from_second(seconds).map_or_else(
        |_| "1970-01-01".into(),
        |ts| ts.strftime("%Y-%m-%d").to_string(),
    );
    let mut text = format!(
        "## [{date}] git-aahp: Merge renumbered task ids\n\nMerging {} into {}: the merged branch had added tasks under ids this branch already used; they were renumbered (`renumbered_from` and a note on each task):\n",
        Repo::short(theirs),
        Repo::short(ours),
    );
    text.push_str(&renumbered_list(renamed));
    Ok(Some(text))
}

/// The renamings of a merge of task ids as a Markdown list for a LOG.md entry, one line
/// each (``- `T-001` is now `T-002` ``).
pub fn renumbered_list(renamed: &[(String, String)]) -> String {
    // Ids are manifest keys, anyone's text: only a plain one is written into LOG.md, and
    // through the output boundary (an id can look like a credential).
    let plain = |id: &str| {
        if id.len() <= 40
            && id
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        {
            format!("`{}`", crate::output::boundary::clean_line(id))
        } else {
            "a task whose id is not plain text".into()
        }
    };
    let mut text = String::new();
    for (from, to) in renamed {
        text.push_str("\n- ");
        text.push_str(&plain(from));
        text.push_str(" is now ");
        text.push_str(&plain(to));
    }
    text
}

/// The handoff directory as the merge will leave it, computed from HEAD, the commit being
/// merged and their merge base: each file taken from the side that changed it, or merged by
/// its rule (git's line merge for files without one). Returns the snapshot and the files
/// that keep conflicts. Every side's files are held in memory, each within the 8 MiB of a
/// file held in memory: a larger one (LOG-ARCHIVE.md and its index, read elsewhere as
/// streams) leaves the manifest to `git aahp manifest` (issue #12 item 2; they were read
/// whole without a limit).
fn merged_directory(repo: &Repo, dir: &HandoffDir) -> Result<MergedDirectory> {
    let (Some(ours), Some(theirs)) = (repo.head_commit()?, repo.merging_commit()) else {
        return Ok(MergedDirectory::Unknown);
    };
    let base = repo.merge_base(ours, theirs)?;
    let files = |c: Option<gix::ObjectId>| -> Result<std::result::Result<BTreeMap<String, Vec<u8>>, String>> {
        let mut out = BTreeMap::new();
        if let Some(c) = c {
            for e in repo.tree_dir(c, &dir.rel)? {
                if !e.is_link && e.name != MANIFEST {
                    match repo.blob_within(e.id, MAX_FILE_BYTES)? {
                        Ok(bytes) => out.insert(e.name.clone(), bytes),
                        Err(_) => return Ok(Err(dir.path_of(&e.name))),
                    };
                }
            }
        }
        Ok(Ok(out))
    };
    let side = |c| -> Result<std::result::Result<_, MergedDirectory>> {
        Ok(match files(c)? {
            Ok(f) => Ok(f),
            Err(path) => Err(MergedDirectory::TooLarge(path)),
        })
    };
    let (bf, of, tf) = match (side(base)?, side(Some(ours))?, side(Some(theirs))?) {
        (Ok(b), Ok(o), Ok(t)) => (b, o, t),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return Ok(e),
    };
    let renamed = renamed_between(repo, &dir.rel, ours, theirs)?.unwrap_or_default();
    let log_top = renumbering_entry(repo, &renamed, Some((ours, theirs)))?;
    let names: BTreeSet<&String> = bf.keys().chain(of.keys()).chain(tf.keys()).collect();
    let mut snap = Snapshot::default();
    let mut unresolved = Vec::new();
    let mut stale_ids = Vec::new();
    for name in names {
        let (b, o, t) = (bf.get(name), of.get(name), tf.get(name));
        let merged: Option<Vec<u8>> = if o == t || b == t {
            o.cloned()
        } else if b == o {
            // Git takes theirs as it is, without the driver: a renumbered id theirs wrote
            // there cannot be renamed, so the merge stops for a person to do it.
            if names_task_ids(name)
                && let Some(tt) = t.and_then(|v| std::str::from_utf8(v).ok())
                && merge::rename_added_ids(
                    b.and_then(|v| std::str::from_utf8(v).ok()).unwrap_or(""),
                    tt,
                    &renamed,
                ) != tt
            {
                stale_ids.push(dir.path_of(name));
            }
            t.cloned()
        } else {
            let empty = Vec::new();
            let (bb, ob, tb) = (
                b.unwrap_or(&empty),
                o.unwrap_or(&empty),
                t.unwrap_or(&empty),
            );
            let m = match (
                std::str::from_utf8(bb),
                std::str::from_utf8(ob),
                std::str::from_utf8(tb),
            ) {
                (Ok(x), Ok(y), Ok(z)) => {
                    let z = &*theirs_renamed(name, x, z, &renamed);
                    match file_merge(name, x, y, z, log_top.as_deref()) {
                        Some((_, m)) => m,
                        None => line_merge(repo, bb, ob, z.as_bytes())?,
                    }
                }
                _ => line_merge(repo, bb, ob, tb)?,
            };
            if m.conflicts > 0 {
                unresolved.push(dir.path_of(name));
            }
            Some(m.text.into_bytes())
        };
        if let Some(bytes) = merged {
            // A side may have committed a conflict it never resolved: the merge keeps it.
            if !unresolved.contains(&dir.path_of(name))
                && std::str::from_utf8(&bytes).is_ok_and(|t| merge::first_conflict(t).is_some())
            {
                unresolved.push(dir.path_of(name));
            }
            snap.files.insert(name.clone(), bytes);
        }
    }
    Ok(MergedDirectory::Merged {
        snap: Box::new(snap),
        unresolved,
        stale_ids,
    })
}

/// What [`merged_directory`] found.
enum MergedDirectory {
    /// The commit being merged is unknown (not a `git merge`).
    Unknown,
    /// A file (repository-relative) is larger than a merge holds in memory.
    TooLarge(String),
    /// The merged directory.
    Merged {
        /// Its files.
        snap: Box<Snapshot>,
        /// The files that keep conflicts.
        unresolved: Vec<String>,
        /// Files git takes from the merged branch as they are, which name a task id the
        /// merge renumbered in lines that branch added.
        stale_ids: Vec<String>,
    },
}
