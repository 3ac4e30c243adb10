//! The file transformations of a session end and of a recovery, each reading and writing one
//! handoff file through the models in [`crate::handoff::log`] and [`crate::handoff::trust`]:
//! trust decay, log rotation, marking an interrupted session's claims unknown, and the
//! recovery entry in LOG.md.

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;
use jiff::civil::Date;

use crate::error::{Error, Result};
use crate::failpoint;
use crate::git::Repo;
use crate::handoff::checksum_cache::BlobCache;
use crate::handoff::log::{self, ARCHIVE_FILE, INDEX_FILE, LOG_FILE};
use crate::handoff::log_stream::{self, Content, Limits, StreamedRotation};
use crate::handoff::manifest::{Manifest, SessionInfo};
use crate::handoff::stream::Streamed;
use crate::handoff::trust::{self, TrustClaim, TrustLedger, property_key};
use crate::handoff::{HandoffDir, MANIFEST, Snapshot, Source, StagedFile, read_limited};

/// TRUST.md's name.
pub const TRUST_FILE: &str = "TRUST.md";

/// Writes one handoff file atomically (by name).
pub type WriteFn<'a> = dyn Fn(&str, &[u8]) -> Result<()> + 'a;

/// Writes the handoff file `name` of `dir` (temp file, fsync, rename): the [`WriteFn`] of a
/// command that writes under its own lock, with no transaction staging the files.
pub fn write_file(dir: &HandoffDir, name: &str, bytes: &[u8]) -> Result<()> {
    crate::handoff::write_atomic(&dir.abs.join(name), bytes).map_err(|source| {
        crate::error::Error::Write {
            path: dir.path_of(name),
            source,
        }
    })
}

/// Regenerates MANIFEST.json from the working tree when it exists and is out of date.
/// Returns whether it was written. `old` must have been parsed before anything was written,
/// so a broken manifest stops a command before it changes files.
/// With `only_for`, it is written only when one of those files is among the stale ones.
pub fn refresh_manifest(
    repo: &Repo,
    dir: &HandoffDir,
    now: Timestamp,
    old: Option<&Manifest>,
    only_for: Option<&[&str]>,
) -> Result<bool> {
    let snap = dir.snapshot(repo, Source::Worktree)?;
    match planned_manifest(repo, dir, now, old, &snap, only_for)? {
        Some(bytes) => write_file(dir, MANIFEST, &bytes).map(|()| true),
        None => Ok(false),
    }
}

/// The MANIFEST.json that `snap` calls for (the handoff as it will be once a command's
/// writes are done), or `None` when there is no manifest or it is current. It reads every
/// changed file, so a command that plans its manifest before writing anything fails on bad
/// input (a file of invalid UTF-8 anywhere in the directory) with nothing written.
/// With `only_for`, `None` unless one of those files is among the stale ones.
pub fn planned_manifest(
    repo: &Repo,
    dir: &HandoffDir,
    now: Timestamp,
    old: Option<&Manifest>,
    snap: &Snapshot,
    only_for: Option<&[&str]>,
) -> Result<Option<Vec<u8>>> {
    let Some(old) = old else {
        return Ok(None);
    };
    let commit = repo.head_commit()?.map(Repo::short);
    let mut counts = BlobCache::token_counts(repo);
    let regen = Manifest::regenerate(
        Some(old),
        dir,
        snap,
        &SessionInfo::default(),
        commit.as_deref(),
        now,
        &mut counts,
    )?;
    counts.save();
    let relevant = only_for.is_none_or(|names| {
        regen
            .changed_files
            .iter()
            .any(|f| names.contains(&f.as_str()))
    });
    if !regen.changed || !relevant {
        return Ok(None);
    }
    Ok(Some(regen.manifest.to_bytes()))
}

/// Reads a handoff file as UTF-8 text (a BOM is kept), or `None` when absent; bounded in
/// size; invalid UTF-8 is exit 2 naming the file.
pub fn read_text(dir: &HandoffDir, name: &str) -> Result<Option<String>> {
    let path = dir.abs.join(name);
    if !path.exists() {
        return Ok(None);
    }
    let bytes = read_limited(&path, &dir.path_of(name))?;
    crate::handoff::decode_text(&dir.path_of(name), &bytes)?;
    Ok(Some(String::from_utf8(bytes).map_err(|_| {
        Error::invalid(dir.path_of(name), None, "invalid UTF-8")
    })?))
}

/// Checks, before anything is written, that TRUST.md and the log files can be decayed and
/// rotated: an unreadable row or a damaged archive is bad input (exit 2) that must stop the
/// commit with nothing changed.
///
/// Returns the check of LOG-ARCHIVE.md against its index it made, for [`rotate_log`] to
/// reuse while the pair stays as it is (issue #14: reading and hashing the whole archive
/// twice in one commit was about a tenth of its cost).
///
/// Where LOG-ARCHIVE.md and its index hold what HEAD holds (in the layout this tool writes),
/// they were judged when they were committed: the rotation reads only their ends and
/// checks what it appends, as `git aahp archive` does ([`trusted_pair`]), and the pre-commit
/// gate the commit runs on what it stages still checks the pair it leaves whole.
pub fn precheck(repo: &Repo, dir: &HandoffDir, keep: usize) -> Result<Prechecked> {
    if let Some(text) = read_text(dir, TRUST_FILE)? {
        TrustLedger::parse(&dir.path_of(TRUST_FILE), &text)?;
    }
    let mut checked = Prechecked::default();
    if let Some(log_text) = read_text(dir, LOG_FILE)? {
        let stamps = pair_stamps(dir);
        checked.ends = head_ends(repo, dir)?;
        // Read before the stamps are taken again: ends of files that changed meanwhile
        // are never used.
        checked.files = Some(stamps);
        plan_rotation(dir, &log_text, keep, false, &mut checked)?;
    }
    Ok(checked)
}

/// The check of LOG-ARCHIVE.md against its index that [`precheck`] made, with what the two
/// files were on disk then (size, times, inode): a later rotation reuses it only while
/// both are still those same files, and checks them anew otherwise.
#[derive(Debug, Default)]
pub struct Prechecked {
    files: Option<[Option<FileStamp>; 2]>,
    pair: Option<log_stream::PairCheck>,
    /// The ends of the pair as HEAD holds them ([`head_ends`]): a rotation onto them reads
    /// nothing else of the pair.
    ends: Option<log::TrustedEnds>,
}

/// HEAD's blob ids of LOG-ARCHIVE.md and its index when both files hold what HEAD holds,
/// in the index layout this tool writes.
pub(crate) fn trusted_pair(repo: &Repo, dir: &HandoffDir) -> Result<Option<[gix::ObjectId; 2]>> {
    let mut ids = [gix::ObjectId::null(gix::hash::Kind::Sha1); 2];
    for (id, name) in ids.iter_mut().zip([ARCHIVE_FILE, INDEX_FILE]) {
        match repo.head_blob_on_disk(&dir.path_of(name))? {
            Some(at_head) => *id = at_head,
            None => return Ok(None),
        }
    }
    // HEAD may hold an index committed past the gate (`--no-verify`): the ends alone are
    // trusted only under the layout this tool writes, `{"version": 1, ...` first. Any
    // other index is checked whole as a stream, which refuses what `verify` refuses.
    let mut head = [0u8; 64];
    let n = std::fs::File::open(dir.abs.join(INDEX_FILE))
        .and_then(|mut f| {
            use std::io::Read as _;
            f.read(&mut head)
        })
        .unwrap_or(0);
    Ok(starts_with_version_1(&head[..n]).then_some(ids))
}

/// Whether an index starts (after a BOM and blanks) with `{"version": 1` followed by `,`
/// or `}`.
pub(crate) fn starts_with_version_1(head: &[u8]) -> bool {
    let head = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(head);
    let mut rest = head.trim_ascii_start();
    for part in [&b"{"[..], b"\"version\"", b":", b"1"] {
        let Some(after) = rest.strip_prefix(part) else {
            return false;
        };
        rest = after.trim_ascii_start();
    }
    matches!(rest.first(), Some(b',' | b'}'))
}

/// Gives `streamed` (LOG-ARCHIVE.md or its index, `name`, left on disk as HEAD's blob `id`)
/// the state of a pass over its committed bytes, from the pass state cache (`cache`, opened
/// at the first use; the caller saves it), keyed by the blob id; one not there is computed
/// (the bytes are read once, as the pass would have read them) and recorded for the next run
/// onto the same blob.
pub(crate) fn resume_at_head(
    repo: &Repo,
    dir: &HandoffDir,
    name: &str,
    streamed: &mut Streamed,
    id: gix::ObjectId,
    cache: &mut Option<BlobCache>,
) -> Result<()> {
    let len = std::fs::symlink_metadata(&streamed.path).map_or(0, |m| m.len());
    let Some(at) = crate::handoff::stream::resume_point(len).filter(|&at| at <= streamed.keep)
    else {
        return Ok(());
    };
    let scan = name == INDEX_FILE;
    let cache = cache.get_or_insert_with(|| BlobCache::pass_states(repo));
    let cached = cache
        .pass_state(id)
        .filter(|st| st.at == at && (!scan || st.has_scan()));
    let state = if let Some(st) = cached {
        st
    } else {
        let st = streamed.prefix_state(&dir.path_of(name), at, scan)?;
        cache.insert_pass_state(id, &st);
        st
    };
    streamed.resume = Some(state);
    Ok(())
}

/// The ends of LOG-ARCHIVE.md and its index, read from disk without the rest of them: the
/// archive's last bytes and the index scanned in pieces for the end of its `entries` list.
/// `None` when they do not serve (not UTF-8 where read, no `entries` list, a long end after
/// it): the rotation then checks them as streams.
pub(crate) fn trusted_ends(
    dir: &HandoffDir,
    archive: &Streamed,
    index: &Streamed,
) -> Result<Option<log::TrustedEnds>> {
    let index_from = index
        .resume
        .as_ref()
        .and_then(crate::handoff::stream::PassState::raw_scan);
    log_stream::ends_of(archive, index, archive.keep, index_from)
        .map_err(|e| e.into_error(|f| dir.path_of(f)))
}

/// The ends of LOG-ARCHIVE.md and its index when both hold what HEAD holds, in the layout
/// this tool writes ([`trusted_pair`]), found from their pass states at HEAD.
fn head_ends(repo: &Repo, dir: &HandoffDir) -> Result<Option<log::TrustedEnds>> {
    if crate::transaction::rotation::pending(repo)?.is_some() {
        return Ok(None);
    }
    let Some(ids) = trusted_pair(repo, dir)? else {
        return Ok(None);
    };
    let (Some(mut archive), Some(mut index)) =
        (on_disk(dir, ARCHIVE_FILE)?, on_disk(dir, INDEX_FILE)?)
    else {
        return Ok(None);
    };
    let mut cache = None;
    resume_at_head(repo, dir, ARCHIVE_FILE, &mut archive, ids[0], &mut cache)?;
    resume_at_head(repo, dir, INDEX_FILE, &mut index, ids[1], &mut cache)?;
    if let Some(cache) = cache {
        cache.save();
    }
    trusted_ends(dir, &archive, &index)
}

/// What identifies a file's content without reading it, as git's index does: a file
/// rewritten (or replaced by a rename) gets another inode, change time or size.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    unix: (u64, u64, i64, i64),
}

impl FileStamp {
    fn of(meta: &std::fs::Metadata) -> FileStamp {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        FileStamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            unix: (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// The stamps of the archive pair on disk (`None` for a file that is not there).
fn pair_stamps(dir: &HandoffDir) -> [Option<FileStamp>; 2] {
    [ARCHIVE_FILE, INDEX_FILE].map(|name| {
        std::fs::metadata(dir.abs.join(name))
            .ok()
            .map(|m| FileStamp::of(&m))
    })
}

/// A rotation of LOG.md, planned with LOG-ARCHIVE.md and its index read as streams.
enum Planned {
    /// Nothing to move.
    Nothing,
    /// The archive and index change by their splices alone (see
    /// [`log_stream::rotate_streamed`]).
    Spliced(Box<log::Rotation>),
    /// The archive changes by its splice (or is new) and the index is written anew as a
    /// stream (see [`log_stream::Rebuilt`]).
    Rebuilt(Box<log::Rotation>, log_stream::Rebuilt),
    /// The three files are written whole: what a stream cannot do (see
    /// [`StreamedRotation::Whole`]), read whole within its limit.
    Whole(Box<log::Rotation>),
}

/// A handoff file left on disk, when it is there: a regular file (a link is followed, as a
/// whole read follows it), not read yet.
fn on_disk(dir: &HandoffDir, name: &str) -> Result<Option<Streamed>> {
    let path = dir.abs.join(name);
    if !path.exists() {
        return Ok(None);
    }
    let (_, meta) = crate::handoff::open_regular(&path, &dir.path_of(name))?;
    Ok(Some(Streamed::whole(path, meta.len())))
}

/// Plans the rotation of `log_text` (LOG.md) onto the archive and index on disk, checking
/// them entry by entry as streams (issue #12 item 2): a damaged archive is refused here,
/// before anything is written, as a whole read refuses it. `written`: the plan is the one
/// written, so a rotation of the whole files gets its postcondition check
/// ([`log::rotate_checked`]).
fn plan_rotation(
    dir: &HandoffDir,
    log_text: &str,
    keep: usize,
    written: bool,
    checked: &mut Prechecked,
) -> Result<Planned> {
    let planned = plan_rotation_of(dir, log_text, keep, written, checked)?;
    match &planned {
        Planned::Nothing => {}
        Planned::Spliced(r) | Planned::Rebuilt(r, _) | Planned::Whole(r) => {
            refuse_linked_pair(dir)?;
            check_rotation_sizes(dir, r)?;
        }
    }
    Ok(planned)
}

/// Refuses a rotation whose files the tool could not read back (issue #12, M4), whichever
/// command rotates (`archive`, `commit`, `recover`): nothing is written then.
pub fn check_rotation_sizes(dir: &HandoffDir, rot: &log::Rotation) -> Result<()> {
    for (name, len, limit) in [
        (
            ARCHIVE_FILE,
            rot.archive_len,
            crate::handoff::max_archive_bytes(),
        ),
        (
            INDEX_FILE,
            rot.index_len,
            crate::handoff::max_archive_bytes(),
        ),
        (LOG_FILE, rot.log.len(), crate::handoff::MAX_FILE_BYTES),
    ] {
        if len > limit {
            return Err(Error::invalid(
                dir.path_of(name),
                None,
                format!(
                    "archiving would make it {len} bytes, more than the {limit} bytes git-aahp reads; \
                     nothing was changed (move {ARCHIVE_FILE} and {INDEX_FILE} into a dated \
                     subdirectory to start a new archive, then rerun)"
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses a rotation onto a LOG-ARCHIVE.md or index that is a symbolic link (exit 2,
/// before anything is written): the archive is extended in place and its index replaced by
/// a rename, so one would be written through the link and the other over it, and the pair
/// read back afterwards would not be the pair written.
pub fn refuse_linked_pair(dir: &HandoffDir) -> Result<()> {
    refuse_linked(
        dir,
        &[ARCHIVE_FILE, INDEX_FILE],
        "a rotation would write through or over it",
    )
}

/// Refuses (exit 2, before anything is written) to rewrite a handoff file of `names` that
/// is a symbolic link: a file is rewritten by a rename, which would put a copy in the
/// link's place and leave the file it points to (a TRUST.md shared by two packages, say)
/// as it was, the link gone without a word (review rob35 #6). `what` says what the write is.
pub fn refuse_linked(dir: &HandoffDir, names: &[&str], what: &str) -> Result<()> {
    for name in names {
        if std::fs::symlink_metadata(dir.abs.join(name)).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Error::invalid(
                dir.path_of(name),
                None,
                format!(
                    "is a symbolic link, and {what}; nothing was changed: put the file it \
                     points to in its place, then rerun"
                ),
            ));
        }
    }
    Ok(())
}

fn plan_rotation_of(
    dir: &HandoffDir,
    log_text: &str,
    keep: usize,
    written: bool,
    checked: &mut Prechecked,
) -> Result<Planned> {
    // Stamped before they are read: a file that changes while it is read gets another
    // stamp, and the check made of it is never reused.
    let stamps = pair_stamps(dir);
    if checked.files.as_ref() != Some(&stamps) {
        checked.pair = None;
        checked.ends = None;
    }
    checked.files = Some(stamps);
    // The pair as HEAD holds it: only what is appended is read and checked.
    if let Some(ends) = &checked.ends {
        match log::rotate_onto_trusted(log_text, ends, keep)
            .map_err(|e| e.into_error(|f| dir.path_of(f)))?
        {
            log::Trusted::Rotated(r) => return Ok(Planned::Spliced(r)),
            log::Trusted::UpToDate { .. } => return Ok(Planned::Nothing),
            log::Trusted::Declined => {}
        }
    }
    // Tests arm `rotation:check-pair` to prove a rotation onto HEAD's pair does not check
    // the pair whole before it writes.
    failpoint::error("rotation:check-pair").map_err(|source| Error::Read {
        path: dir.path_of(INDEX_FILE),
        source,
    })?;
    let archive = on_disk(dir, ARCHIVE_FILE)?;
    let index = on_disk(dir, INDEX_FILE)?;
    let streamed = log_stream::rotate_streamed_with(
        log_text,
        archive.as_ref().map(|s| s as &dyn Content),
        index.as_ref().map(|s| s as &dyn Content),
        keep,
        Limits::default(),
        &mut checked.pair,
    )
    .map_err(|e| e.into_error(|f| dir.path_of(f)))?;
    Ok(match streamed {
        StreamedRotation::Rotated(r) => Planned::Spliced(r),
        StreamedRotation::Rebuilt(r, plan) => Planned::Rebuilt(r, plan),
        StreamedRotation::UpToDate { .. } => Planned::Nothing,
        StreamedRotation::Whole => {
            // Held whole within the pair's limit, with the way out beyond it (issue #12).
            let hold = |name: &str, file: Option<&Streamed>| -> Result<Option<String>> {
                let Some(file) = file else { return Ok(None) };
                let shown = dir.path_of(name);
                let bytes = file.read_all(
                    &shown,
                    crate::handoff::held_whole_limit(),
                    crate::handoff::HELD_WHOLE,
                )?;
                crate::handoff::decode_text(&shown, &bytes)?;
                String::from_utf8(bytes)
                    .map(Some)
                    .map_err(|_| Error::invalid(shown, None, "invalid UTF-8"))
            };
            let archive = hold(ARCHIVE_FILE, archive.as_ref())?;
            let index = hold(INDEX_FILE, index.as_ref())?;
            match log::rotate_checked(
                log_text,
                archive.as_deref(),
                index.as_deref(),
                keep,
                written,
            )
            .map_err(|e| e.into_error(|f| dir.path_of(f)))?
            {
                Some(r) => Planned::Whole(Box::new(r)),
                None => Planned::Nothing,
            }
        }
    })
}

/// Decays expired `verified` claims in TRUST.md to `assumed`; returns their properties.
pub fn decay_trust(dir: &HandoffDir, today: Date, write: &WriteFn<'_>) -> Result<Vec<String>> {
    let Some(text) = read_text(dir, TRUST_FILE)? else {
        return Ok(Vec::new());
    };
    let decay = trust::decay(&text, today);
    if !decay.decayed.is_empty() && decay.text != text {
        refuse_linked(dir, &[TRUST_FILE], "the decay would replace it by a copy")?;
        write(TRUST_FILE, decay.text.as_bytes())?;
    }
    Ok(decay.decayed)
}

/// Rotates LOG.md so the newest `keep` entries remain, writing archive → index → LOG (the
/// order in which every prefix can be completed by rotating again); returns how many
/// entries moved.
///
/// `pending` is LOG.md as a step before this one changed it without writing it yet (the
/// provenance stamps; it differs from the file): rotated from that text, LOG.md is written
/// once, not once per step (issue #14); with nothing to move, `pending` itself is written.
///
/// Each file is synced before its rename; the directory is not (the spliced archive and a
/// rebuilt index as `write` is expected to do it, [`crate::handoff::write_atomic_batched`]):
/// the caller makes the renames durable at once (`commit`, whose journal rolls back a
/// rotation cut short, syncs the directory before recording the planned tree).
///
/// `checked` is what [`precheck`] found of the archive pair, reused while the pair is what
/// it was then.
pub fn rotate_log(
    dir: &HandoffDir,
    keep: usize,
    pending: Option<String>,
    write: &WriteFn<'_>,
    checked: &mut Prechecked,
) -> Result<usize> {
    let changed = pending.is_some();
    let log_text = match pending {
        Some(text) => text,
        None => match read_text(dir, LOG_FILE)? {
            Some(text) => text,
            None => return Ok(0),
        },
    };
    let written = |text: &str| -> Result<()> {
        if changed {
            write(LOG_FILE, text.as_bytes())?;
        }
        Ok(())
    };
    let (r, spliced, index) = match plan_rotation(dir, &log_text, keep, true, checked)? {
        Planned::Nothing => {
            written(&log_text)?;
            return Ok(0);
        }
        Planned::Spliced(r) => (r, true, None),
        Planned::Rebuilt(r, plan) => {
            // The new index is written from the old files and checked with the archive as it
            // will be before anything changes; it goes in place after the archive.
            let old = [on_disk(dir, ARCHIVE_FILE)?, on_disk(dir, INDEX_FILE)?];
            let old = old.each_ref().map(Option::as_ref);
            let in_error = |e: log::LogError| e.into_error(|f| dir.path_of(f));
            let write_err = |source| Error::Write {
                path: dir.path_of(INDEX_FILE),
                source,
            };
            let (staged, read) = StagedFile::write(&dir.abs.join(INDEX_FILE), |file| {
                plan.write_index_to(file, old)
            })
            .map_err(write_err)?;
            read.map_err(in_error)?;
            plan.check_staged(&r, &log_text, old[0], staged.temp_path(), keep)
                .map_err(in_error)?;
            (r, true, Some(staged))
        }
        Planned::Whole(r) => (r, false, None),
    };
    // A spliced file is replaced like any other (a new file renamed over the old one,
    // which `recover` rolls back from the journal's saved copy), its old bytes copied from
    // disk rather than held.
    let put = |name: &str, whole: &str, splice: Option<&log::Splice>| match splice {
        Some(s) if spliced => crate::handoff::write_atomic_spliced_batched(
            &dir.abs.join(name),
            s.keep as u64,
            s.text.as_bytes(),
        )
        .map_err(|source| Error::Write {
            path: dir.path_of(name),
            source,
        }),
        _ => write(name, whole.as_bytes()),
    };
    if r.archive_changed {
        put(ARCHIVE_FILE, &r.archive, r.archive_splice.as_ref())?;
    }
    failpoint::hit("commit:rotate:archive");
    if let Some(staged) = index {
        staged.commit_batched().map_err(|source| Error::Write {
            path: dir.path_of(INDEX_FILE),
            source,
        })?;
    } else if r.index_changed {
        put(INDEX_FILE, &r.index, r.index_splice.as_ref())?;
    }
    failpoint::hit("commit:rotate:index");
    if r.log_changed {
        write(LOG_FILE, r.log.as_bytes())?;
    } else {
        written(&log_text)?;
    }
    Ok(r.moved)
}

/// The cells of a claim that a session can change.
type ClaimState = (
    String,
    Option<String>,
    Option<Date>,
    Option<i64>,
    Option<Date>,
    Option<String>,
    Option<String>,
);

fn claim_state(c: &TrustClaim) -> ClaimState {
    (
        c.status.clone(),
        c.provenance.clone(),
        c.last_verified,
        c.ttl_days,
        c.expires,
        c.agent.clone(),
        c.notes.clone(),
    )
}

/// Marks the claims the interrupted session changed (its TRUST.md in `session` against the
/// restored one on disk) as untested, provenance unknown; returns their properties.
///
/// Linear in the number of claims: the session's claims are grouped by property once, so
/// a ledger of 100,000 rows (or 100,000 rows of one property) costs no more than reading it.
pub fn mark_session_claims(
    dir: &HandoffDir,
    session: &Snapshot,
    write: &WriteFn<'_>,
) -> Result<Vec<String>> {
    let Some(clean_text) = read_text(dir, TRUST_FILE)? else {
        return Ok(Vec::new());
    };
    let Some(session_text) = session
        .get(TRUST_FILE)
        .and_then(|b| std::str::from_utf8(b).ok())
    else {
        return Ok(Vec::new());
    };
    let path = dir.path_of(TRUST_FILE);
    let (Ok(clean), Ok(theirs)) = (
        TrustLedger::parse(&path, &clean_text),
        TrustLedger::parse(&path, session_text),
    ) else {
        return Ok(Vec::new());
    };
    // Each property's distinct states in the session's ledger.
    let mut states: HashMap<String, HashSet<ClaimState>> = HashMap::new();
    for c in &theirs.claims {
        states
            .entry(property_key(&c.property))
            .or_default()
            .insert(claim_state(c));
    }
    let mut changed: Vec<String> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for claim in &clean.claims {
        // Touched when the session holds this property in any other state.
        let touched = states
            .get(&property_key(&claim.property))
            .is_some_and(|s| s.len() > 1 || !s.contains(&claim_state(claim)));
        if touched && seen.insert(claim.property.as_str()) {
            changed.push(claim.property.clone());
        }
    }
    if changed.is_empty() {
        return Ok(changed);
    }
    let marked = trust::mark_unknown(&clean_text, &changed);
    if marked != clean_text {
        write(TRUST_FILE, marked.as_bytes())?;
    }
    Ok(changed)
}

/// Adds an entry at the top of LOG.md (newest first).
pub fn append_log(dir: &HandoffDir, entry: &str, write: &WriteFn<'_>) -> Result<()> {
    let old = read_text(dir, LOG_FILE)?.unwrap_or_else(|| "# Log\n\n".to_string());
    write(LOG_FILE, log::append_entry(&old, entry).as_bytes())
}
