//! archive.md: archived memories, each a list item of its text with its
//! metadata and the archive fields (see docs/FORMAT.md); and its rotation:
//! past [`ARCHIVE_ROTATE_BYTES`] its oldest records move to the parts of
//! `archive/` (`archive/YYYY.md`, by archive year), which readers search
//! too.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Datelike, Utc};

use crate::disk::{Change, Dir, Held, decode};
use crate::edit::Vetoes;
use crate::error::{Error, Result};
use crate::markdown::{Document, parse_without_ids, splice};
use crate::model::{ArchiveKind, Caller, Meta, Origin};
use crate::store::limits::{
    ARCHIVE_BYTES, ARCHIVE_KEEP_BYTES, ARCHIVE_PART_BYTES, ARCHIVE_ROTATE_BYTES,
};
use crate::store::owner::{At, Locked};

/// An edit of an archive file's text, or why it cannot be placed.
type Placed<T> = std::result::Result<T, String>;

/// The archive's file name.
pub const ARCHIVE_FILE: &str = "archive.md";

/// The folder of the archive's rotated parts, in the owner's folder.
pub const ARCHIVE_DIR: &str = "archive";

/// How errors name a part of `archive/`.
const PARTS: &str = "archive/*.md";

/// The part key of records without an archive time.
const UNDATED: &str = "undated";

const ARCHIVE_HEADER: &str =
    "# Archive\n\nArchived memories, with why. `memdir unarchive ID` brings one back.\n";

/// One archived memory.
#[derive(Debug, Clone)]
pub(crate) struct Archived {
    /// Its id (as it had when live).
    pub(crate) id: String,
    /// Its text (a day row's: its lines).
    pub(crate) text: String,
    /// Its metadata and archive fields.
    pub(crate) meta: Meta,
}

/// The metadata of a memory archived now: its own metadata `m` with the
/// archive fields (where it came from, when, what kind, why, by whom).
pub(crate) fn record_meta(
    mut m: Meta,
    origin: Origin,
    kind: ArchiveKind,
    reason: String,
    now: DateTime<Utc>,
    by: &Caller,
) -> Meta {
    m.scope = Some(origin);
    m.archived = Some(now);
    m.kind = Some(kind);
    m.reason = Some(reason);
    m.archived_by = Some(match by {
        Caller::Agent(a) => format!("agent:{a}"),
        Caller::Person(p) => format!("person:{p}"),
    });
    m
}

/// An archived memory's id: over its original scope and text, or its date
/// for a day row.
pub(crate) fn archived_id(meta: &Meta, text: &str) -> String {
    meta.archived_id(text)
}

/// archive.md as read: the file (to write it back) and its text (empty if
/// missing).
pub(crate) fn read(at: At<'_>) -> Result<(Option<Held>, String)> {
    super::read_text(at, ARCHIVE_FILE, ARCHIVE_BYTES)
}

/// The archived memories in `src` (archive.md's text), in file order.
pub(crate) fn records(src: &str) -> Vec<Archived> {
    parse_without_ids(src)
        .entries
        .iter()
        .map(|e| {
            let meta = e.metadata(src);
            Archived {
                id: archived_id(&meta, &e.text),
                text: e.text.clone(),
                meta,
            }
        })
        .collect()
}

/// One file of the archive: archive.md, or a part of `archive/`.
pub(crate) struct ArchiveFile {
    /// The part's name in `archive/`; `None` for archive.md.
    pub(crate) part: Option<String>,
    /// The file as read (to write it back); `None` when missing.
    pub(crate) held: Option<Held>,
    /// Its text.
    pub(crate) src: String,
}

impl ArchiveFile {
    /// The file's path relative to the owner's folder.
    pub(crate) fn rel(&self) -> String {
        match &self.part {
            Some(p) => format!("{ARCHIVE_DIR}/{p}"),
            None => ARCHIVE_FILE.to_owned(),
        }
    }
}

/// The whole archive of an owner as read: archive.md first, then the parts
/// of `archive/` by name (oldest year first), with the folder they are in.
pub(crate) struct Archives {
    /// `archive/`, when it exists.
    pub(crate) dir: Option<Dir>,
    /// archive.md, then each part.
    pub(crate) files: Vec<ArchiveFile>,
}

/// Whether `name` is a part of `archive/` memdir reads: `YYYY.md`,
/// `undated.md`, or a later part of either, `YYYY-N.md` (N from 2).
pub(crate) fn is_part_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".md") else {
        return false;
    };
    let (key, n) = match stem.split_once('-') {
        Some((k, n)) => (k, Some(n)),
        None => (stem, None),
    };
    let key_ok = key == UNDATED || (key.len() == 4 && key.bytes().all(|b| b.is_ascii_digit()));
    let n_ok = n.is_none_or(|n| {
        !n.is_empty()
            && n.len() <= 6
            && n.bytes().all(|b| b.is_ascii_digit())
            && !n.starts_with('0')
            && n != "1"
    });
    key_ok && n_ok
}

/// The name of part `n` (from 1) of `key` (a year or `undated`).
fn part_name(key: &str, n: u32) -> String {
    if n <= 1 {
        format!("{key}.md")
    } else {
        format!("{key}-{n}.md")
    }
}

/// The part key of an archive record: the year it was archived, or
/// `undated`.
fn part_key(meta: &Meta) -> String {
    meta.archived
        .map_or_else(|| UNDATED.to_owned(), |t| format!("{:04}", t.year()))
}

/// Reads archive.md and every part of `archive/` (symlinks and special
/// files refused, each size checked before reading).
pub(crate) fn read_all(at: At<'_>) -> Result<Archives> {
    let (held, src) = read(at)?;
    let mut files = vec![ArchiveFile {
        part: None,
        held,
        src,
    }];
    let Some(owner_dir) = at.dir else {
        return Ok(Archives { dir: None, files });
    };
    let disk = at.disk();
    let Some(dir) = disk.open_dir(owner_dir, ARCHIVE_DIR)? else {
        return Ok(Archives { dir: None, files });
    };
    let mut names = disk.list(&dir)?;
    names.retain(|n| is_part_name(n));
    names.sort();
    for name in names {
        let Some(held) = disk.read(&dir, &name, ARCHIVE_BYTES)? else {
            continue;
        };
        let src = decode(&dir.join(&name), held.bytes.clone())?;
        files.push(ArchiveFile {
            part: Some(name),
            held: Some(held),
            src,
        });
    }
    Ok(Archives {
        dir: Some(dir),
        files,
    })
}

impl Archives {
    /// Every archived memory once: a record in more than one file (a
    /// rotation cut short by a crash) as the first file holds it
    /// (archive.md before the parts).
    pub(crate) fn records(&self) -> Vec<Archived> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for f in &self.files {
            for r in records(&f.src) {
                if seen.insert(r.id.clone()) {
                    out.push(r);
                }
            }
        }
        out
    }

    /// The changes that apply `edit` (the new text from the current one;
    /// `None`: no change) to every file of the archive that `wanted` picks
    /// (by the file), each with the file's path relative to the owner's
    /// folder. Parts go first, archive.md last.
    pub(crate) fn changes<'a>(
        &'a mut self,
        owner_dir: &'a Dir,
        wanted: impl Fn(&ArchiveFile) -> bool,
        edit: impl Fn(&str) -> Result<Option<String>> + Clone + 'a,
    ) -> Vec<(String, Change<'a>)> {
        let mut parts = Vec::new();
        let mut main = None;
        let dir = self.dir.as_ref();
        for f in self.files.iter_mut() {
            if !wanted(f) {
                continue;
            }
            let held = f.held.take();
            let rel = f.rel();
            let part: &'a Option<String> = &f.part;
            match (part, dir) {
                (Some(name), Some(dir)) => {
                    parts.push((rel, part_change(dir, name, held, edit.clone())));
                }
                (None, _) => {
                    let edit = edit.clone();
                    main = Some((
                        rel,
                        super::rewrite(owner_dir, ARCHIVE_FILE, ARCHIVE_BYTES, held, move |src| {
                            edit(src)
                        }),
                    ));
                }
                (Some(_), None) => {}
            }
        }
        parts.extend(main);
        parts
    }

    /// The changes that take the records of `ids` out of every file of the
    /// archive that holds one (a rotation cut short leaves a record in
    /// two), of its parts only with `parts_only`; each with the file's path
    /// relative to the owner's folder.
    pub(crate) fn without_records<'a>(
        &'a mut self,
        owner_dir: &'a Dir,
        ids: BTreeSet<String>,
        parts_only: bool,
    ) -> Vec<(String, Change<'a>)> {
        let wanted = ids.clone();
        let holds = move |f: &ArchiveFile| {
            (f.part.is_some() || !parts_only)
                && records(&f.src).iter().any(|r| wanted.contains(&r.id))
        };
        let at = owner_dir.join(if parts_only {
            ARCHIVE_DIR
        } else {
            ARCHIVE_FILE
        });
        self.changes(owner_dir, holds, move |src| {
            without(src, &ids).map_err(|reason| Error::Unplaceable {
                path: at.clone(),
                reason,
            })
        })
    }
}

/// The change of the part `name` of `archive/` (read as `held`) that `edit`
/// computes from its current text; refused past [`ARCHIVE_BYTES`], when
/// not UTF-8, and when it holds git conflict markers.
fn part_change<'a>(
    dir: &'a Dir,
    name: &'a str,
    held: Option<Held>,
    edit: impl Fn(&str) -> Result<Option<String>> + 'a,
) -> Change<'a> {
    super::rewrite_as(dir, name, PARTS, ARCHIVE_BYTES, held, edit)
}

/// The archived memory `id`, if it is archived (in archive.md or a part).
pub(crate) fn find(at: At<'_>, id: &str) -> Result<Option<Archived>> {
    let (_, src) = read(at)?;
    if let Some(r) = records(&src).into_iter().find(|r| r.id == id) {
        return Ok(Some(r));
    }
    Ok(read_all(at)?
        .files
        .iter()
        .skip(1)
        .find_map(|f| records(&f.src).into_iter().find(|r| r.id == id)))
}

/// `src` (an archive file's text, `header` when it is new) with `items`
/// (text and metadata) appended; a memory archived again replaces its older
/// record. One parse to find older records, one to check the appended ones
/// (each placed as `splice::append` places it; one by one only where that
/// does not read back).
fn with_appended(src: &str, items: &[(String, Meta)], header: &str) -> Placed<String> {
    let mut cur = if src.trim().is_empty() {
        format!("{header}\n")
    } else {
        src.to_owned()
    };
    if items.is_empty() {
        return Ok(cur);
    }
    let ids: BTreeSet<String> = items.iter().map(|(t, m)| archived_id(m, t)).collect();
    let mut doc = parse_without_ids(&cur);
    let older: Vec<usize> = doc
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| ids.contains(&archived_id(&e.metadata(&cur), &e.text)))
        .map(|(i, _)| i)
        .collect();
    if !older.is_empty() {
        (cur, doc) = remove_all(&cur, doc, &older)?;
    }
    let metas: Vec<String> = items.iter().map(|(_, m)| m.render()).collect();
    let mut rest: Vec<(&str, &str, Option<&str>)> = items
        .iter()
        .zip(&metas)
        .map(|((t, _), m)| (t.as_str(), "", Some(m.as_str())))
        .collect();
    // The id an archived entry is known by comes from its metadata (its
    // parse carries none).
    if doc.entries.is_empty() {
        let (t, i, m) = rest.remove(0);
        (cur, doc) = splice::append(&cur, &doc, (t, i), m).map_err(|e| e.0)?;
    }
    if rest.is_empty() {
        return Ok(cur);
    }
    if let Some((out, _)) = splice::append_many(&cur, &doc, &rest) {
        return Ok(out);
    }
    for (t, i, m) in rest {
        (cur, doc) = splice::append(&cur, &doc, (t, i), m).map_err(|e| e.0)?;
    }
    Ok(cur)
}

/// `src` (parsed as `doc`) without the entries `at`: at once where that
/// reads back, else one by one from the last.
fn remove_all(src: &str, doc: Document, at: &[usize]) -> Placed<(String, Document)> {
    if let Some(done) = splice::edit_many(src, &doc, at, &[]) {
        return Ok(done);
    }
    let (mut cur, mut doc) = (src.to_owned(), doc);
    let mut at = at.to_vec();
    at.sort_unstable();
    for i in at.into_iter().rev() {
        (cur, doc) = splice::remove(&cur, &doc, i).map_err(|e| e.0)?;
    }
    Ok((cur, doc))
}

/// `src` without the records of `ids` (every copy).
pub(crate) fn without(src: &str, ids: &BTreeSet<String>) -> Placed<Option<String>> {
    let doc = parse_without_ids(src);
    let at: Vec<usize> = doc
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| ids.contains(&archived_id(&e.metadata(src), &e.text)))
        .map(|(i, _)| i)
        .collect();
    if at.is_empty() {
        return Ok(None);
    }
    remove_all(src, doc, &at).map(|(out, _)| Some(out))
}

/// `src` with `edit` applied to the metadata of the records of `ids`
/// (`None`: no record changed).
pub(crate) fn with_meta(
    src: &str,
    ids: &BTreeSet<String>,
    edit: impl Fn(&mut Meta),
) -> Placed<Option<String>> {
    let doc = parse_without_ids(src);
    let mut metas = Vec::new();
    for (i, e) in doc.entries.iter().enumerate() {
        let m = e.metadata(src);
        if ids.contains(&archived_id(&m, &e.text)) {
            let mut next = m.clone();
            edit(&mut next);
            if next != m {
                metas.push((i, next.render()));
            }
        }
    }
    if metas.is_empty() {
        return Ok(None);
    }
    if let Some((out, _)) = splice::edit_many(src, &doc, &[], &metas) {
        return Ok(Some(out));
    }
    let (mut cur, mut d) = (src.to_owned(), doc);
    for (i, m) in &metas {
        (cur, d) = splice::set_meta(&cur, &d, *i, m).map_err(|e| e.0)?;
    }
    Ok(Some(cur))
}

/// Records to mark settled by a review: their ids, and the review's id
/// (`settled=` in their metadata).
pub(crate) type Settle = Option<(BTreeSet<String>, String)>;

/// archive.md's next text: `src` with `items` appended, the records of
/// `moved` taken out, and the records of `settle` marked.
pub(crate) fn next_text(
    src: &str,
    items: &[(String, Meta)],
    moved: &BTreeSet<String>,
    settle: &Settle,
) -> Placed<String> {
    let mut out = if items.is_empty() {
        src.to_owned()
    } else {
        with_appended(src, items, ARCHIVE_HEADER)?
    };
    if !moved.is_empty()
        && let Some(next) = without(&out, moved)?
    {
        out = next;
    }
    if let Some((ids, review)) = settle
        && let Some(next) = with_meta(&out, ids, |m| m.settled = Some(review.clone()))?
    {
        out = next;
    }
    Ok(out)
}

/// The change that appends `items` to archive.md in `dir` (read as `held`),
/// takes out the records of `moved` (those a rotation put in `archive/`
/// first: see [`rotate_first`]) and marks those of `settle`.
pub(crate) fn append(
    dir: &Dir,
    held: Option<Held>,
    items: Vec<(String, Meta)>,
    moved: BTreeSet<String>,
    settle: Settle,
) -> Change<'_> {
    super::rewrite(dir, ARCHIVE_FILE, ARCHIVE_BYTES, held, move |src| {
        let out = next_text(src, &items, &moved, &settle).map_err(|reason| Error::Unplaceable {
            path: dir.join(ARCHIVE_FILE),
            reason,
        })?;
        Ok((out != src).then_some(out))
    })
}

/// The change that appends `items` to archive.md under the owner's lock,
/// and rotates archive.md first when the write takes it past
/// [`ARCHIVE_ROTATE_BYTES`] (see [`rotate_first`]); with the parts written
/// (relative names, for a commit).
pub(crate) fn append_rotating<'a>(
    locked: &'a Locked<'_>,
    items: Vec<(String, Meta)>,
    settle: Settle,
) -> Result<(Change<'a>, Vec<String>)> {
    append_lifting(locked, items, BTreeSet::new(), settle)
}

/// What stands in the way of saving texts again: the records of the ids
/// written that do (`vetoed` and `superseded` ones), and every veto of the
/// owner, by its fold (a save whose text is a vetoed fact in another form).
pub(crate) struct Standing {
    /// The records of the ids asked, each id once.
    pub(crate) records: Vec<Archived>,
    /// Every vetoed record.
    pub(crate) vetoes: Vetoes,
}

/// The records of `ids` that stand in the way of saving their text again
/// (`vetoed` and `superseded` ones), and every veto, from archive.md and
/// every part; only the files that hold such a record at all are parsed.
pub(crate) fn standing(at: At<'_>, ids: &BTreeSet<String>) -> Result<Standing> {
    let mut out = Standing {
        records: Vec::new(),
        vetoes: Vetoes::default(),
    };
    if ids.is_empty() {
        return Ok(out);
    }
    let archives = read_all(at)?;
    let mut seen = BTreeSet::new();
    for f in &archives.files {
        if !(f.src.contains("vetoed") || f.src.contains("superseded")) {
            continue;
        }
        for r in records(&f.src) {
            out.vetoes.insert(&r.id, &r.text, &r.meta);
            let stands = matches!(
                r.meta.kind,
                Some(ArchiveKind::Vetoed | ArchiveKind::Superseded)
            );
            if ids.contains(&r.id) && seen.insert(r.id.clone()) && stands {
                out.records.push(r);
            }
        }
    }
    Ok(out)
}

impl Archives {
    /// Every veto of the owner (archive.md and every part), by its fold;
    /// only the files that hold one are parsed.
    pub(crate) fn vetoes(&self) -> Vetoes {
        let mut out = Vetoes::default();
        for f in self.files.iter().filter(|f| f.src.contains("vetoed")) {
            for r in records(&f.src) {
                out.insert(&r.id, &r.text, &r.meta);
            }
        }
        out
    }
}

/// [`append_rotating`] that also takes the records of `lifted` out of
/// archive.md (memories a save brings back, as an unarchive takes a record
/// out); a rotation never moves a lifted record into a part.
pub(crate) fn append_lifting<'a>(
    locked: &'a Locked<'_>,
    items: Vec<(String, Meta)>,
    lifted: BTreeSet<String>,
    settle: Settle,
) -> Result<(Change<'a>, Vec<String>)> {
    let (held, src) = read(locked.at())?;
    // Room to spare (a record's comment is at most a few hundred bytes
    // beyond its text and reason): no need to look.
    let most = src.len() as u64
        + items
            .iter()
            .map(|(t, m)| (t.len() + m.reason.as_ref().map_or(0, String::len) * 6 + 1024) as u64)
            .sum::<u64>();
    let unplaceable = |reason| Error::Unplaceable {
        path: locked.dir().join(ARCHIVE_FILE),
        reason,
    };
    let (mut moved, parts) = if most <= ARCHIVE_ROTATE_BYTES {
        (BTreeSet::new(), Vec::new())
    } else {
        let mut planned = with_appended(&src, &items, ARCHIVE_HEADER).map_err(unplaceable)?;
        if let Some(out) = without(&planned, &lifted).map_err(unplaceable)? {
            planned = out;
        }
        rotate_first(locked, &planned)?
    };
    moved.extend(lifted);
    Ok((append(locked.dir(), held, items, moved, settle), parts))
}

/// A record a rotation moves out of archive.md, and the part it goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rotated {
    /// Its id.
    pub(crate) id: String,
    /// Its part key: the year it was archived (`2025`), or `undated`.
    pub(crate) key: String,
    /// Its text.
    pub(crate) text: String,
    /// Its metadata.
    pub(crate) meta: Meta,
}

/// Which records of archive.md (its text `src`) a rotation moves: none
/// while it holds at most `rotate` bytes; else the oldest by archive time
/// (records without one first; then in file order) until what stays holds
/// at most `keep` bytes. Each goes to the part of the year it was archived.
pub(crate) fn rotation(src: &str, rotate: u64, keep: u64) -> Vec<Rotated> {
    if src.len() as u64 <= rotate {
        return Vec::new();
    }
    let doc = parse_without_ids(src);
    let mut order: Vec<(Option<DateTime<Utc>>, usize, Meta)> = doc
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let m = e.metadata(src);
            (m.archived, i, m)
        })
        .collect();
    order.sort_by_key(|(t, i, _)| (*t, *i));
    let mut size = src.len() as u64;
    let mut out = Vec::new();
    for (_, i, meta) in order {
        if size <= keep {
            break;
        }
        let e = &doc.entries[i];
        let end = crate::markdown::line_end_with_eol(src, e.item.end);
        size = size.saturating_sub((end - e.item.start) as u64);
        out.push(Rotated {
            id: archived_id(&meta, &e.text),
            key: part_key(&meta),
            text: e.text.clone(),
            meta,
        });
    }
    out
}

/// Rotates archive.md as a write under the owner's lock is about to leave
/// it (`planned`, its text then): the records [`rotation`] picks are
/// appended to their parts of `archive/` (the folder created durably if
/// missing), each part in one durable write, now, before archive.md is
/// written; archive.md's write then takes them out ([`append`]'s `moved`).
/// A crash between the two leaves a record in both, which readers take
/// once. Gives the ids moved and the parts written (relative to the
/// owner's folder, for a commit).
pub(crate) fn rotate_first(
    locked: &Locked<'_>,
    planned: &str,
) -> Result<(BTreeSet<String>, Vec<String>)> {
    let moved = rotation(planned, ARCHIVE_ROTATE_BYTES, ARCHIVE_KEEP_BYTES);
    if moved.is_empty() {
        return Ok((BTreeSet::new(), Vec::new()));
    }
    let disk = locked.owner().disk();
    let (dir, _) = disk.ensure_dir(locked.dir(), ARCHIVE_DIR)?;
    let names = disk.list(&dir)?;
    let mut by_key: BTreeMap<String, Vec<(String, Meta)>> = BTreeMap::new();
    let mut ids = BTreeSet::new();
    for r in moved {
        ids.insert(r.id);
        by_key.entry(r.key).or_default().push((r.text, r.meta));
    }
    // Each key's part: its last one, or the next when that one is full.
    let mut targets: Vec<(String, Vec<(String, Meta)>)> = Vec::new();
    for (key, items) in by_key {
        let last = (1..=u32::MAX)
            .take_while(|n| *n == 1 || names.contains(&part_name(&key, *n)))
            .last()
            .unwrap_or(1);
        let mut name = part_name(&key, last);
        let size = disk.stat(&dir, &name)?.map_or(0, |s| s.len);
        let adding: u64 = items.iter().map(|(t, _)| t.len() as u64 + 200).sum();
        if size > 0 && size + adding > ARCHIVE_PART_BYTES {
            name = part_name(&key, last + 1);
        }
        targets.push((name, items));
    }
    let mut changes = Vec::new();
    for (name, items) in &targets {
        let held = disk.read(&dir, name, ARCHIVE_BYTES)?;
        let year = name.trim_end_matches(".md").to_owned();
        let path = dir.join(name);
        changes.push(part_change(&dir, name, held, move |src| {
            let header = format!(
                "# Archive: {year}\n\nArchived memories moved out of archive.md (archived in {year}). `memdir unarchive ID` brings one back.\n"
            );
            with_appended(src, items, &header)
                .map(Some)
                .map_err(|reason| Error::Unplaceable {
                    path: path.clone(),
                    reason,
                })
        }));
    }
    disk.replace_in_order(changes)?;
    let written = targets
        .into_iter()
        .map(|(n, _)| format!("{ARCHIVE_DIR}/{n}"))
        .collect();
    Ok((ids, written))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn record(text: &str, archived: Option<(i32, u32)>) -> (String, Meta) {
        let m = Meta {
            scope: Some(Origin::Memory),
            archived: archived.map(|(y, mo)| Utc.with_ymd_and_hms(y, mo, 1, 0, 0, 0).unwrap()),
            kind: Some(ArchiveKind::Plain),
            reason: Some("because".into()),
            ..Meta::default()
        };
        (text.to_owned(), m)
    }

    fn archive(items: &[(String, Meta)]) -> String {
        with_appended("", items, ARCHIVE_HEADER).unwrap()
    }

    #[test]
    fn part_names_are_years_or_undated_with_later_parts() {
        for ok in [
            "2025.md",
            "0999.md",
            "undated.md",
            "2025-2.md",
            "undated-12.md",
        ] {
            assert!(is_part_name(ok), "{ok}");
        }
        for bad in [
            "2025",
            "25.md",
            "2025-1.md",
            "2025-02.md",
            "2025-.md",
            "x2025.md",
            "README.md",
            "2025.md.memdir-tmp",
            ".2025.md",
        ] {
            assert!(!is_part_name(bad), "{bad}");
        }
        assert_eq!(part_name("2025", 1), "2025.md");
        assert_eq!(part_name("2025", 3), "2025-3.md");
    }

    #[test]
    fn nothing_rotates_at_or_under_the_size() {
        let src = archive(&[record("a", Some((2024, 1)))]);
        assert!(rotation(&src, src.len() as u64, 0).is_empty());
        assert_eq!(rotation(&src, src.len() as u64 - 1, 0).len(), 1);
    }

    #[test]
    fn the_oldest_rotate_first_to_their_archive_year_until_what_stays_fits() {
        let items = vec![
            record("newest, 2026", Some((2026, 3))),
            record("oldest, 2024", Some((2024, 5))),
            record("no archive time", None),
            record("middle, 2025", Some((2025, 7))),
            record("second newest, 2026", Some((2026, 1))),
        ];
        let src = archive(&items);
        // Keep what is left without the undated one and the two oldest.
        let three: BTreeSet<String> = [1, 2, 3]
            .iter()
            .map(|&i| archived_id(&items[i].1, &items[i].0))
            .collect();
        let keep = without(&src, &three).unwrap().unwrap().len() as u64 + 5;
        let got: Vec<(String, String)> = rotation(&src, 0, keep)
            .into_iter()
            .map(|r| (r.text, r.key))
            .collect();
        assert_eq!(
            got,
            vec![
                ("no archive time".to_owned(), "undated".to_owned()),
                ("oldest, 2024".to_owned(), "2024".to_owned()),
                ("middle, 2025".to_owned(), "2025".to_owned()),
            ]
        );
        // What stays is under `keep`.
        let ids: BTreeSet<String> = rotation(&src, 0, keep).into_iter().map(|r| r.id).collect();
        let left = without(&src, &ids).unwrap().unwrap();
        assert!((left.len() as u64) <= keep, "{left}");
        assert_eq!(records(&left).len(), 2);
    }

    #[test]
    fn appending_many_records_at_once_reads_back_and_replaces_older_copies() {
        let items: Vec<(String, Meta)> = (0..50)
            .map(|i| record(&format!("fact {i}\nsecond line {i}"), Some((2025, 1))))
            .collect();
        let src = archive(&items);
        let recs = records(&src);
        assert_eq!(recs.len(), 50);
        assert_eq!(recs[49].text, "fact 49\nsecond line 49");
        // The same records again (a rotation redone after a crash): once each.
        let again = with_appended(&src, &items[..10], ARCHIVE_HEADER).unwrap();
        assert_eq!(records(&again).len(), 50);
        // One by one gives the same bytes.
        let mut one = String::new();
        for it in &items {
            one = with_appended(&one, std::slice::from_ref(it), ARCHIVE_HEADER).unwrap();
        }
        assert_eq!(one, src);
    }
}
