//! Three-way merges of LOG-ARCHIVE.md and its index read as streams (issue #12 item 2): what
//! [`super::merge`] does with the three texts whole, done with each side read entry by entry
//! ([`Entries`]) or in pieces, so the merge holds one entry of a side at a time plus what the
//! sides added, never a side whole.
//!
//! The union of [`super::merge::merge_journal`] needs, for every entry, how often the ancestor,
//! ours and theirs hold it. Read as streams, that is known without a table of every entry
//! when each side holds the ancestor's entries, in order, as one run at its start or at its
//! end (an archive only grows: rotations append to it, and entries that were added at the
//! top of a journal stand before the ancestor's). Then every entry of the ancestor is kept
//! once, every entry a side holds outside that run is one of its additions, and only the
//! additions are held: theirs' with their text (they are placed among ours' entries), ours'
//! by digest (their first copies are not the ancestor's). A side that changed, removed or
//! reordered an entry of the ancestor (a redaction) is [`NotStreamed::NotAdditive`]; a side
//! that added more than [`Budget::additions`] bytes is [`NotStreamed::TooLarge`]. The caller
//! then merges the texts whole, within their limit, or refuses.
//!
//! The result equals the whole merge's byte for byte (a unit test compares them on every
//! shape above at several piece sizes).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Bound;

use jiff::civil::Date;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::log::LogError;
use super::log_stream::{CHUNK, Content, Entries, Limits};

/// What a streamed merge may hold beside one entry of each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// How the sides are read (piece size, largest entry).
    pub limits: Limits,
    /// Bytes of one side's additions held: theirs' texts, ours' digests.
    pub additions: usize,
    /// Digests held at once when counting the entries the result holds more than once; more
    /// take more passes over a temporary file of digests, not more memory.
    pub digests: usize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            limits: Limits::default(),
            additions: super::MAX_FILE_BYTES,
            digests: 1 << 17,
        }
    }
}

/// A side of a three-way merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The common ancestor (git's %O).
    Base,
    /// Ours (git's %A), where the merge is written.
    Ours,
    /// Theirs (git's %B).
    Theirs,
}

impl Side {
    /// How messages name the side (`ancestor`, `ours`, `theirs`).
    pub fn name(self) -> &'static str {
        match self {
            Side::Base => "ancestor",
            Side::Ours => "ours",
            Side::Theirs => "theirs",
        }
    }
}

/// Why a merge was not done as a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotStreamed {
    /// The side does not hold the ancestor's entries as one run at its start or its end.
    NotAdditive(Side),
    /// The side added more than [`Budget::additions`] bytes.
    TooLarge(Side),
    /// The side is not what the whole merge unions (an index that is not a JSON object with
    /// an `entries` list): merged whole, it is left to git's line merge.
    Unusual(Side),
}

/// A streamed merge that failed.
#[derive(Debug)]
pub enum MergeError {
    /// A side could not be read or is malformed.
    Read(Side, LogError),
    /// The merge could not be written.
    Write(io::Error),
}

impl From<io::Error> for MergeError {
    fn from(e: io::Error) -> MergeError {
        MergeError::Write(e)
    }
}

/// True when two contents hold the same bytes, compared in pieces.
pub fn same_content(a: &dyn Content, b: &dyn Content) -> io::Result<bool> {
    if a.content_len() != b.content_len() {
        return Ok(false);
    }
    let (mut ra, mut rb) = (a.open_at(0)?, b.open_at(0)?);
    let (mut ba, mut bb) = (vec![0u8; CHUNK], vec![0u8; CHUNK]);
    loop {
        let n = fill(&mut *ra, &mut ba)?;
        let m = fill(&mut *rb, &mut bb)?;
        if n != m || ba[..n] != bb[..m] {
            return Ok(false);
        }
        if n < CHUNK {
            return Ok(true);
        }
    }
}

/// Reads until `buf` is full or the content ends; returns the bytes read.
fn fill(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// True when the content is valid UTF-8, read in pieces.
pub fn is_utf8(c: &dyn Content) -> io::Result<bool> {
    text_pieces(c, |_| true)
}

/// Gives the content's text to `each` in pieces (no character cut); false as soon as
/// `each` returns false or a byte is not UTF-8, else true.
fn text_pieces(c: &dyn Content, mut each: impl FnMut(&str) -> bool) -> io::Result<bool> {
    let mut r = c.open_at(0)?;
    let mut buf = vec![0u8; CHUNK + 4];
    let mut carry = 0;
    loop {
        let n = fill(&mut *r, &mut buf[carry..carry + CHUNK])?;
        let end = carry + n;
        let valid = match std::str::from_utf8(&buf[..end]) {
            Ok(t) => t.len(),
            // A character cut by the piece's end: kept for the next piece.
            Err(e) if e.error_len().is_none() && n == CHUNK => e.valid_up_to(),
            Err(_) => return Ok(false),
        };
        if !each(std::str::from_utf8(&buf[..valid]).unwrap_or_default()) {
            return Ok(false);
        }
        buf.copy_within(valid..end, 0);
        carry = end - valid;
        if n < CHUNK {
            return Ok(carry == 0);
        }
    }
}

/// Copies a content to `out` in pieces.
pub fn copy_content(c: &dyn Content, out: &mut dyn Write) -> io::Result<()> {
    let mut r = c.open_at(0)?;
    io::copy(&mut r, out)?;
    Ok(())
}

/// The items a merge unions, read from a side in one pass: journal entries ([`Journal`]) or
/// the elements of an index's `entries` list ([`Index`]).
pub trait Kind {
    /// One item.
    type Item;
    /// What stands around the items (a journal's preamble, an index's other members).
    type Frame;
    /// Reads `c` once, giving each item to `f` in order; returns the frame, or why the side
    /// cannot be merged as a stream.
    fn read(
        c: &dyn Content,
        side: Side,
        b: &Budget,
        f: &mut dyn FnMut(Self::Item) -> Result<(), MergeError>,
    ) -> Result<Result<Self::Frame, NotStreamed>, MergeError>;
    /// The item's identity (`union_by_key`'s key).
    fn key(item: &Self::Item) -> String;
    /// The item's date.
    fn date(item: &Self::Item) -> Option<Date>;
    /// About how many bytes the item holds.
    fn size(item: &Self::Item) -> usize;
}

/// LOG-ARCHIVE.md's entries, keyed by digest.
pub struct Journal;

/// What stands around a journal's entries.
pub struct JournalFrame {
    preamble: String,
    bom: bool,
    line_ending: &'static str,
}

/// An entry as the merge writes it.
pub struct JournalItem {
    text: String,
    date: Option<Date>,
    digest: String,
}

impl Kind for Journal {
    type Item = JournalItem;
    type Frame = JournalFrame;

    fn read(
        c: &dyn Content,
        side: Side,
        b: &Budget,
        f: &mut dyn FnMut(JournalItem) -> Result<(), MergeError>,
    ) -> Result<Result<JournalFrame, NotStreamed>, MergeError> {
        let read = |e| MergeError::Read(side, e);
        let mut s = Entries::new(c, b.limits, super::log::ARCHIVE_FILE).map_err(read)?;
        while let Some(e) = s.next_entry().map_err(read)? {
            let digest = e.digest();
            f(JournalItem {
                text: e.text,
                date: e.date,
                digest,
            })?;
        }
        Ok(Ok(JournalFrame {
            preamble: s.preamble().to_string(),
            bom: s.bom,
            line_ending: s.line_ending(),
        }))
    }

    fn key(item: &JournalItem) -> String {
        item.digest.clone()
    }

    fn date(item: &JournalItem) -> Option<Date> {
        item.date
    }

    fn size(item: &JournalItem) -> usize {
        item.text.len() + item.digest.len()
    }
}

/// The number of items of a side and a digest of its keys in a window, with its additions:
/// the keys outside that window, with how often each occurs there.
struct Window {
    items: usize,
    run: [u8; 32],
    outside: Result<HashMap<String, usize>, NotStreamed>,
}

/// Reads a side, hashing the keys of its items `from..from + len` in order and counting
/// the others (within the budget).
fn window<K: Kind>(
    c: &dyn Content,
    side: Side,
    b: &Budget,
    from: usize,
    len: usize,
) -> Result<Result<(Window, K::Frame), NotStreamed>, MergeError> {
    let mut run = Sha256::new();
    let mut outside: Result<HashMap<String, usize>, NotStreamed> = Ok(HashMap::new());
    let (mut i, mut bytes) = (0usize, 0usize);
    let frame = K::read(c, side, b, &mut |item| {
        let key = K::key(&item);
        if (from..from + len).contains(&i) {
            run.update((key.len() as u64).to_le_bytes());
            run.update(key.as_bytes());
        } else if let Ok(held) = outside.as_mut() {
            bytes += K::size(&item) + key.len();
            if bytes > b.additions {
                outside = Err(NotStreamed::TooLarge(side));
            } else {
                *held.entry(key).or_insert(0) += 1;
            }
        }
        i += 1;
        Ok(())
    })?;
    Ok(frame.map(|frame| {
        (
            Window {
                items: i,
                run: run.finalize().into(),
                outside,
            },
            frame,
        )
    }))
}

/// A side's additions by key, with how often each occurs, and its frame.
type Added<K> = (HashMap<String, usize>, <K as Kind>::Frame);

/// A side's additions: the keys it holds outside one run of the ancestor's items, at its
/// start or at its end, with how often each occurs there; and its frame.
fn additions<K: Kind>(
    side_content: &dyn Content,
    side: Side,
    base: &Window,
    b: &Budget,
) -> Result<Result<Added<K>, NotStreamed>, MergeError> {
    let n = base.items;
    let (w, frame) = match window::<K>(side_content, side, b, 0, n)? {
        Ok(found) => found,
        Err(why) => return Ok(Err(why)),
    };
    if w.items >= n && w.run == base.run {
        return Ok(w.outside.map(|o| (o, frame)));
    }
    let Some(extra) = w.items.checked_sub(n).filter(|e| *e > 0) else {
        return Ok(Err(NotStreamed::NotAdditive(side)));
    };
    let (w, frame) = match window::<K>(side_content, side, b, extra, n)? {
        Ok(found) => found,
        Err(why) => return Ok(Err(why)),
    };
    if w.run != base.run {
        return Ok(Err(NotStreamed::NotAdditive(side)));
    }
    Ok(w.outside.map(|o| (o, frame)))
}

/// A merge planned from the sides read as streams: theirs' additions and where they go
/// among ours' items. [`Plan::write_journal`] or [`Plan::write_index`] writes it.
pub struct Plan<'a, K: Kind> {
    ours: &'a dyn Content,
    budget: Budget,
    base_frame: K::Frame,
    ours_frame: K::Frame,
    theirs_frame: K::Frame,
    ours_items: usize,
    additions: Vec<K::Item>,
    /// Theirs' additions to write before ours' item of that index (its number of items:
    /// after the last), in order.
    gaps: BTreeMap<usize, Vec<usize>>,
}

/// Plans `union_by_key` ([`super::merge`]) of three contents read as streams. The trivial
/// cases (a side equal to another) are the caller's: they need no parse.
pub fn plan<'a, K: Kind>(
    base: &dyn Content,
    ours: &'a dyn Content,
    theirs: &dyn Content,
    budget: Budget,
) -> Result<Result<Plan<'a, K>, NotStreamed>, MergeError> {
    let b = &budget;
    let (base_w, base_frame) = match window::<K>(base, Side::Base, b, 0, usize::MAX)? {
        Ok(found) => found,
        Err(why) => return Ok(Err(why)),
    };
    let (ours_added, ours_frame) = match additions::<K>(ours, Side::Ours, &base_w, b)? {
        Ok(a) => a,
        Err(why) => return Ok(Err(why)),
    };
    let (theirs_added, theirs_frame) = match additions::<K>(theirs, Side::Theirs, &base_w, b)? {
        Ok(a) => a,
        Err(why) => return Ok(Err(why)),
    };
    // Theirs' additions in theirs' order: of each key, its first copies (those of the
    // ancestor's run included, as the whole merge counts them), less the copies ours added
    // too (an entry both sides added is one addition, as in the whole merge).
    let mut added = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    K::read(theirs, Side::Theirs, b, &mut |item| {
        let key = K::key(&item);
        if let Some(&max) = theirs_added.get(&key) {
            let max = max.saturating_sub(ours_added.get(&key).copied().unwrap_or(0));
            let n = seen.entry(key).or_insert(0);
            *n += 1;
            if *n <= max {
                added.push(item);
            }
        }
        Ok(())
    })?
    .ok();
    // Where each addition goes: before the first of ours' items that is older, or that is
    // an ancestor's item of the same date (`union_by_key`'s rule); found for all in one pass.
    let mut ours_items = 0;
    let mut first_place = vec![None; added.len()];
    let mut waiting: BTreeMap<Option<Date>, Vec<usize>> = BTreeMap::new();
    for (j, a) in added.iter().enumerate() {
        waiting.entry(K::date(a)).or_default().push(j);
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    K::read(ours, Side::Ours, b, &mut |item| {
        let i = ours_items;
        ours_items += 1;
        if waiting.is_empty() {
            return Ok(());
        }
        let key = K::key(&item);
        // Of a key ours added, its first copies are additions; the rest are the ancestor's.
        let from_base = match ours_added.get(&key) {
            Some(&max) => {
                let n = seen.entry(key).or_insert(0);
                *n += 1;
                *n > max
            }
            None => true,
        };
        let date = K::date(&item);
        let lower = if from_base {
            Bound::Included(date)
        } else {
            Bound::Excluded(date)
        };
        let placed: Vec<Option<Date>> = waiting
            .range((lower, Bound::Unbounded))
            .map(|(d, _)| *d)
            .collect();
        for d in placed {
            for j in waiting.remove(&d).unwrap_or_default() {
                first_place[j] = Some(i);
            }
        }
        Ok(())
    })?
    .ok();
    // Placed as the whole merge places them: an addition never stands before the item found
    // above unless it was placed before that same item, and there the additions stand
    // newest first, in theirs' order among equal dates. A stable sort per gap; placing them
    // one by one, each after a scan of the earlier gaps, was quadratic (review rob35 #4).
    let dates: Vec<Option<Date>> = added.iter().map(K::date).collect();
    let mut gaps: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (j, place) in first_place.iter().enumerate() {
        gaps.entry(place.unwrap_or(ours_items)).or_default().push(j);
    }
    for list in gaps.values_mut() {
        list.sort_by_key(|&x| std::cmp::Reverse(dates[x]));
    }
    Ok(Ok(Plan {
        ours,
        budget,
        base_frame,
        ours_frame,
        theirs_frame,
        ours_items,
        additions: added,
        gaps,
    }))
}

impl<K: Kind> Plan<'_, K> {
    /// Gives the merged items in order to `f`, reading ours once more.
    fn each(
        &self,
        f: &mut dyn FnMut(&K::Item) -> Result<(), MergeError>,
    ) -> Result<(), MergeError> {
        let mut i = 0;
        K::read(self.ours, Side::Ours, &self.budget, &mut |item| {
            for &j in self.gaps.get(&i).into_iter().flatten() {
                f(&self.additions[j])?;
            }
            i += 1;
            f(&item)
        })?
        .ok();
        for &j in self.gaps.range(i..).flat_map(|(_, l)| l) {
            f(&self.additions[j])?;
        }
        Ok(())
    }

    /// How many items the merge holds.
    fn total(&self) -> usize {
        self.ours_items + self.additions.len()
    }
}

impl Plan<'_, Journal> {
    /// Writes the merged journal to `out` (as [`super::merge::merge_journal`] renders it);
    /// returns the merge's notes.
    pub fn write_journal(&self, out: &mut dyn Write) -> Result<Vec<String>, MergeError> {
        let mut out = BufWriter::with_capacity(CHUNK, out);
        let nl = self.ours_frame.line_ending;
        let put = |out: &mut BufWriter<&mut dyn Write>, piece: &str| -> io::Result<()> {
            if nl == "\n" {
                out.write_all(piece.as_bytes())
            } else {
                let piece = piece.replace("\r\n", "\n").replace('\n', nl);
                out.write_all(piece.as_bytes())
            }
        };
        if self.ours_frame.bom {
            put(&mut out, "\u{feff}")?;
        }
        let preamble = if self.ours_frame.preamble == self.base_frame.preamble {
            &self.theirs_frame.preamble
        } else {
            &self.ours_frame.preamble
        };
        if self.total() == 0 {
            put(&mut out, preamble)?;
            out.flush()?;
            return Ok(Vec::new());
        }
        let pre = preamble.replace("\r\n", "\n");
        let pre = pre.trim_end();
        if !pre.is_empty() {
            put(&mut out, pre)?;
            put(&mut out, "\n\n")?;
        }
        let mut digests = tempfile::tempfile()?;
        let mut kept = BufWriter::new(&mut digests);
        let mut written = 0usize;
        self.each(&mut |e| {
            if written > 0 {
                put(&mut out, "\n\n---\n\n")?;
            }
            put(&mut out, &e.text)?;
            kept.write_all(&digest_bytes(&e.digest))?;
            written += 1;
            Ok(())
        })?;
        kept.flush()?;
        drop(kept);
        put(&mut out, "\n")?;
        out.flush()?;
        let doubled = repeats(&mut digests, written, self.budget.digests)?;
        let mut notes = Vec::new();
        if doubled > 0 {
            notes.push(super::merge::doubled_note(doubled));
        }
        Ok(notes)
    }
}

/// LOG-ARCHIVE.index.json's `entries` elements, keyed by digest and title, dated by title.
pub struct Index;

/// An index's top-level members in order, the `entries` list as `None`.
pub struct IndexFrame {
    members: Vec<(String, Option<Value>)>,
}

impl Kind for Index {
    type Item = Value;
    type Frame = IndexFrame;

    fn read(
        c: &dyn Content,
        side: Side,
        b: &Budget,
        f: &mut dyn FnMut(Value) -> Result<(), MergeError>,
    ) -> Result<Result<IndexFrame, NotStreamed>, MergeError> {
        read_index_doc(c, side, b, f)
    }

    fn key(v: &Value) -> String {
        format!(
            "{}\u{0}{}",
            v.get("sha256").and_then(Value::as_str).unwrap_or_default(),
            v.get("title").and_then(Value::as_str).unwrap_or_default()
        )
    }

    fn date(v: &Value) -> Option<Date> {
        let title = v.get("title").and_then(Value::as_str).unwrap_or_default();
        super::log::LogFile::parse(&format!("{title}\n"))
            .entries
            .first()?
            .date
    }

    fn size(v: &Value) -> usize {
        Index::key(v).len() + 64
    }
}

impl Plan<'_, Index> {
    /// Writes the merged index to `out`, as [`super::merge::merge_index`] renders it (ours'
    /// members, pretty-printed, its `entries` list the merged one).
    pub fn write_index(&self, out: &mut dyn Write) -> Result<(), MergeError> {
        let mut out = BufWriter::with_capacity(CHUNK, out);
        let mut members: Vec<(&str, Option<&Value>)> = self
            .ours_frame
            .members
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_ref()))
            .collect();
        if !members.iter().any(|(_, v)| v.is_none()) {
            members.push(("entries", None));
        }
        let json = |v: &Value, depth: usize| -> io::Result<String> {
            let text = serde_json::to_string_pretty(v).map_err(io::Error::other)?;
            Ok(text.replace('\n', &format!("\n{}", "  ".repeat(depth))))
        };
        out.write_all(b"{")?;
        for (n, (key, value)) in members.into_iter().enumerate() {
            if n > 0 {
                out.write_all(b",")?;
            }
            out.write_all(b"\n  ")?;
            out.write_all(json(&Value::from(key), 1)?.as_bytes())?;
            out.write_all(b": ")?;
            match value {
                Some(v) => out.write_all(json(v, 1)?.as_bytes())?,
                None if self.total() == 0 => out.write_all(b"[]")?,
                None => {
                    out.write_all(b"[")?;
                    let mut first = true;
                    self.each(&mut |v| {
                        out.write_all(if first { b"\n    " } else { b",\n    " })?;
                        first = false;
                        out.write_all(json(v, 2)?.as_bytes())?;
                        Ok(())
                    })?;
                    out.write_all(b"\n  ]")?;
                }
            }
        }
        out.write_all(b"\n}\n")?;
        out.flush()?;
        Ok(())
    }
}

/// Reads an index as [`super::merge::merge_index`] parses it (blank: no members; else a
/// JSON object after any BOMs), giving the elements of its `entries` list to `f` one at a
/// time and keeping its other members. What that parse would not take (not an object, an
/// `entries` member that is not a list, a member named twice) is
/// [`NotStreamed::Unusual`]: merged whole, the index is then left to git's line merge.
fn read_index_doc(
    content: &dyn Content,
    side: Side,
    budget: &Budget,
    each: &mut dyn FnMut(Value) -> Result<(), MergeError>,
) -> Result<Result<IndexFrame, NotStreamed>, MergeError> {
    use serde::de::Deserializer as _;
    let read_err = |e: io::Error| {
        MergeError::Read(
            side,
            LogError::Malformed {
                file: super::log::INDEX_FILE.into(),
                line: None,
                message: format!("could not be read: {e}"),
            },
        )
    };
    if is_blank(content).map_err(read_err)? {
        return Ok(Ok(IndexFrame {
            members: Vec::new(),
        }));
    }
    let mut reader = content.open_at(0).map_err(read_err)?;
    // Leading BOMs are skipped, as `trim_start_matches('\u{feff}')` skips them.
    let mut skip = 0u64;
    let mut head = [0u8; 3];
    while fill(&mut *reader, &mut head).map_err(read_err)? == 3 && head == *b"\xEF\xBB\xBF" {
        skip += 3;
    }
    drop(reader);
    let reader = io::BufReader::with_capacity(
        budget.limits.chunk.max(1),
        content.open_at(skip).map_err(read_err)?,
    );
    let mut de = serde_json::Deserializer::from_reader(reader);

    let mut top = Top {
        f: each,
        failed: None,
        members: Vec::new(),
    };
    let parsed = (&mut de).deserialize_map(&mut top).and_then(|()| de.end());
    if let Some(e) = top.failed.take() {
        return Err(e);
    }
    match parsed {
        Ok(()) => Ok(Ok(IndexFrame {
            members: top.members,
        })),
        Err(e) if e.is_io() => Err(read_err(io::Error::other(e.to_string()))),
        Err(_) => Ok(Err(NotStreamed::Unusual(side))),
    }
}

/// The index document's visitor: its members, the `entries` list streamed to `f`.
struct Top<'a> {
    f: &'a mut dyn FnMut(Value) -> Result<(), MergeError>,
    failed: Option<MergeError>,
    members: Vec<(String, Option<Value>)>,
}
/// The `entries` list's visitor.
struct List<'a, 'b>(&'a mut Top<'b>);
impl<'de> Visitor<'de> for &mut Top<'_> {
    type Value = ();
    fn expecting(&self, w: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        w.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut names = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !names.insert(key.clone()) {
                return Err(serde::de::Error::custom("a member named twice"));
            }
            if key == "entries" {
                map.next_value_seed(List(&mut *self))?;
                self.members.push((key, None));
            } else {
                let v: Value = map.next_value()?;
                self.members.push((key, Some(v)));
            }
        }
        Ok(())
    }
}
impl<'de> DeserializeSeed<'de> for List<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}
impl<'de> Visitor<'de> for List<'_, '_> {
    type Value = ();
    fn expecting(&self, w: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        w.write_str("a list")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(v) = seq.next_element::<Value>()? {
            if let Err(e) = (self.0.f)(v) {
                self.0.failed = Some(e);
                return Err(serde::de::Error::custom("stopped"));
            }
        }
        Ok(())
    }
}

/// True when the content holds only whitespace (as `str::trim` sees it), read in pieces.
fn is_blank(c: &dyn Content) -> io::Result<bool> {
    text_pieces(c, |t| t.chars().all(char::is_whitespace))
}

/// A hex digest as its 32 bytes (anything else hashed to 32 bytes: only equality matters).
fn digest_bytes(hex: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    let b = hex.as_bytes();
    let val = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    if b.len() == 64 {
        let mut ok = true;
        for (i, o) in out.iter_mut().enumerate() {
            match (val(b[2 * i]), val(b[2 * i + 1])) {
                (Some(h), Some(l)) => *o = h << 4 | l,
                _ => ok = false,
            }
        }
        if ok {
            return out;
        }
    }
    Sha256::digest(b).into()
}

/// How many of the `n` digests in `file` repeat an earlier one, holding at most about
/// `per_pass` of them at once: digests are split by value into passes over the file.
fn repeats(file: &mut std::fs::File, n: usize, per_pass: usize) -> io::Result<usize> {
    let passes = n.div_ceil(per_pass.max(1)).max(1) as u64;
    let mut doubled = 0;
    for pass in 0..passes {
        file.seek(SeekFrom::Start(0))?;
        let mut r = BufReader::with_capacity(CHUNK, &mut *file);
        let mut seen: HashSet<[u8; 32]> = HashSet::new();
        let mut d = [0u8; 32];
        for _ in 0..n {
            r.read_exact(&mut d)?;
            let mut head = [0u8; 8];
            head.copy_from_slice(&d[..8]);
            if u64::from_le_bytes(head) % passes == pass && !seen.insert(d) {
                doubled += 1;
            }
        }
    }
    Ok(doubled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handoff::log_stream::Bytes;
    use crate::handoff::merge::{merge_index, merge_journal};

    fn entry(date: &str, who: &str, n: usize) -> String {
        format!("## [{date}] {who}: Session {n}\n\n- {who} did {n}\n")
    }

    fn journal(pre: &str, entries: &[String], nl: &str) -> String {
        let mut s = format!("{pre}\n\n---\n\n");
        for e in entries {
            s.push_str(e);
            s.push_str("\n---\n\n");
        }
        s.replace('\n', nl)
    }

    fn tiny(chunk: usize, digests: usize) -> Budget {
        Budget {
            limits: Limits {
                chunk,
                max_entry: 4096,
            },
            additions: 1 << 20,
            digests,
        }
    }

    fn streamed(b: &str, o: &str, t: &str, budget: Budget) -> Option<(String, Vec<String>)> {
        let (b, o, t) = (
            Bytes(b.as_bytes()),
            Bytes(o.as_bytes()),
            Bytes(t.as_bytes()),
        );
        let plan = plan::<Journal>(&b, &o, &t, budget).unwrap().ok()?;
        let mut out = Vec::new();
        let notes = plan.write_journal(&mut out).unwrap();
        Some((String::from_utf8(out).unwrap(), notes))
    }

    #[test]
    fn additions_at_either_end_merge_as_the_whole_merge_does() {
        let e = |d: usize, who: &str, n: usize| entry(&format!("2026-01-{d:02}"), who, n);
        let base: Vec<String> = (1..=6).map(|i| e(i * 3, "base", i)).collect();
        // Appended (an archive after rotations), prepended (a journal), same dates, a copy
        // of an ancestor's entry, identical additions on both sides, undated headings.
        let shapes: Vec<(Vec<String>, Vec<String>, Vec<String>)> = vec![
            (vec![], vec![e(20, "a", 7)], vec![e(21, "b", 8)]),
            (vec![e(20, "a", 7)], vec![], vec![e(4, "b", 8)]),
            (
                vec![e(9, "a", 7), e(2, "a", 9)],
                vec![],
                vec![e(9, "b", 8), e(1, "b", 10)],
            ),
            (vec![], vec![e(20, "x", 7)], vec![e(20, "x", 7)]),
            (
                vec![base[2].clone()],
                vec![],
                vec![base[2].clone(), e(6, "b", 1)],
            ),
            (
                vec![],
                vec![base[0].clone()],
                vec![e(30, "b", 3), base[5].clone()],
            ),
            (
                vec![],
                vec!["## [2026-02-30] a: not a calendar date\n\n- x\n".into()],
                vec![
                    e(3, "b", 4),
                    "## [2026-13-45] b: not a calendar date\n\n- y\n".into(),
                ],
            ),
        ];
        for (k, (o_top, o_end, t_end)) in shapes.iter().enumerate() {
            for nl in ["\n", "\r\n"] {
                let side = |top: &[String], end: &[String], pre: &str| {
                    let all: Vec<String> = top.iter().chain(&base).chain(end).cloned().collect();
                    journal(pre, &all, nl)
                };
                let b = side(&[], &[], "# Archive");
                let o = side(o_top, o_end, "# Archive");
                // Theirs' additions at its end, and at its top.
                for t in [
                    side(&[], t_end, "# Archive (theirs)"),
                    side(t_end, &[], "# Archive"),
                ] {
                    let whole = merge_journal(&b, &o, &t);
                    for (chunk, digests) in [(1, 1), (7, 2), (4096, 1 << 10)] {
                        let got = streamed(&b, &o, &t, tiny(chunk, digests))
                            .unwrap_or_else(|| panic!("shape {k} not streamed"));
                        assert_eq!(got.0, whole.text, "shape {k}, chunk {chunk}");
                        assert_eq!(got.1, whole.notes, "shape {k}, chunk {chunk}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_changed_or_removed_ancestor_entry_is_not_streamed() {
        let e = |d: u32, n: usize| entry(&format!("2026-01-{d:02}"), "x", n);
        let b = journal("# A", &[e(1, 1), e(2, 2), e(3, 3)], "\n");
        let redacted = journal("# A", &[e(1, 1), e(2, 99), e(3, 3), e(4, 4)], "\n");
        let removed = journal("# A", &[e(1, 1), e(3, 3)], "\n");
        let grown = journal("# A", &[e(1, 1), e(2, 2), e(3, 3), e(5, 5)], "\n");
        let go = |o: &str, t: &str| {
            let (b, o, t) = (
                Bytes(b.as_bytes()),
                Bytes(o.as_bytes()),
                Bytes(t.as_bytes()),
            );
            plan::<Journal>(&b, &o, &t, tiny(64, 8)).unwrap().err()
        };
        assert_eq!(
            go(&redacted, &grown),
            Some(NotStreamed::NotAdditive(Side::Ours))
        );
        assert_eq!(
            go(&grown, &removed),
            Some(NotStreamed::NotAdditive(Side::Theirs))
        );
        let mut small = tiny(64, 8);
        small.additions = 10;
        let (bb, gg) = (Bytes(b.as_bytes()), Bytes(grown.as_bytes()));
        assert_eq!(
            plan::<Journal>(&bb, &gg, &gg, small).unwrap().err(),
            Some(NotStreamed::TooLarge(Side::Ours))
        );
    }

    #[test]
    fn indexes_both_sides_appended_to_merge_as_the_whole_merge_does() {
        let el = |d: u32, who: &str| {
            format!(
                "{{\"sha256\": \"{who}{d}\", \"title\": \"## [2026-01-{d:02}] {who}: Session {d}\", \"date\": \"2026-01-{d:02}\"}}"
            )
        };
        let doc = |pre: &str, els: &[String], post: &str| {
            format!(
                "{pre}{{\"version\": 1, \"entries\": [{}]{post}}}\n",
                els.join(", ")
            )
        };
        let base: Vec<String> = (1..=5).map(|d| el(d * 4, "base")).collect();
        let with = |top: &[String], end: &[String]| -> Vec<String> {
            top.iter().chain(&base).chain(end).cloned().collect()
        };
        let cases = [
            (
                doc("", &with(&[], &[el(22, "a")]), ""),
                doc("", &with(&[], &[el(21, "b"), el(3, "b")]), ""),
            ),
            (
                doc(
                    "\u{feff}",
                    &with(&[el(6, "a")], &[]),
                    ", \"note\": {\"x\": [1, 2]}",
                ),
                doc("", &with(&[], &[el(8, "base"), el(9, "c")]), ""),
            ),
            (
                doc("", &with(&[], &[el(7, "same")]), ""),
                doc("", &with(&[el(7, "same")], &[]), ""),
            ),
        ];
        let b = doc("", &base, "");
        for (k, (o, t)) in cases.iter().enumerate() {
            let whole = merge_index(&b, o, t).unwrap();
            for chunk in [1, 5, 4096] {
                let (bb, ob, tb) = (
                    Bytes(b.as_bytes()),
                    Bytes(o.as_bytes()),
                    Bytes(t.as_bytes()),
                );
                let plan = plan::<Index>(&bb, &ob, &tb, tiny(chunk, 4))
                    .unwrap()
                    .unwrap_or_else(|why| panic!("case {k}: {why:?}"));
                let mut out = Vec::new();
                plan.write_index(&mut out).unwrap();
                assert_eq!(String::from_utf8(out).unwrap(), whole.text, "case {k}");
            }
        }
        // Not what the whole merge unions: left to it (it gives git's line merge).
        let (bb, ob) = (Bytes(b.as_bytes()), Bytes(b"[1, 2]"));
        let tb = Bytes(cases[0].1.as_bytes());
        assert_eq!(
            plan::<Index>(&bb, &ob, &tb, tiny(64, 4)).unwrap().err(),
            Some(NotStreamed::Unusual(Side::Ours))
        );
        let named_twice = Bytes(b"{\"entries\": [], \"entries\": []}");
        assert_eq!(
            plan::<Index>(&bb, &named_twice, &tb, tiny(64, 4))
                .unwrap()
                .err(),
            Some(NotStreamed::Unusual(Side::Ours))
        );
    }

    #[test]
    fn repeats_are_counted_in_passes() {
        let mut f = tempfile::tempfile().unwrap();
        let ds: Vec<[u8; 32]> = (0u8..50).map(|i| [i % 17; 32]).collect();
        for d in &ds {
            f.write_all(d).unwrap();
        }
        for per_pass in [1, 3, 17, 100] {
            assert_eq!(repeats(&mut f, ds.len(), per_pass).unwrap(), 50 - 17);
        }
    }

    #[test]
    fn contents_compare_and_validate_in_pieces() {
        let a = "é".repeat(CHUNK);
        let mut b = a.clone();
        assert!(same_content(&Bytes(a.as_bytes()), &Bytes(b.as_bytes())).unwrap());
        b.push('x');
        assert!(!same_content(&Bytes(a.as_bytes()), &Bytes(b.as_bytes())).unwrap());
        assert!(is_utf8(&Bytes(a.as_bytes())).unwrap());
        let mut bad = a.into_bytes();
        bad.insert(CHUNK - 1, 0xff);
        assert!(!is_utf8(&Bytes(&bad)).unwrap());
        let cut = format!("a{}", "é".repeat(CHUNK));
        assert!(is_utf8(&Bytes(cut.as_bytes())).unwrap());
        assert!(!is_utf8(&Bytes(&cut.as_bytes()[..CHUNK])).unwrap());
    }
}
