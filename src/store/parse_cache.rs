//! The store's memory of its latest parses, so that a file read back with the
//! very bytes it had when last parsed (or written) is not parsed again: the
//! stores' markdown, and the `memdir.yaml` every write reads.
//!
//! In memory only, per [`Store`](crate::Store) value. An answer is given only
//! for the same path *and* the same text, compared in full, so it can never
//! stand for other bytes: a hand edit, another process's write or a `git
//! checkout` changes the text and the file is parsed afresh.
//!
//! `memdir.yaml` is not even read again while its stat is the one it had when
//! it was read (device, inode, size, modification and status-change times)
//! and it had not changed for [`RACY_SECS`] by then. The kernel sets a file's
//! status-change time to the clock at every change (a write, a rename over
//! it, `touch -d`), and no caller can set it back; a change within the same
//! clock tick as the read could leave every field as it was, which the
//! two-second rule leaves out (git's rule for "racily clean" index entries).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::disk::{Kind, Stat};
use crate::error::Result;
use crate::markdown::Document;
use crate::model::Settings;
use crate::recall::TermCache;

/// How many parses are kept (two stores a owner, a few owners a process).
const SLOTS: usize = 8;

/// One remembered parse.
#[derive(Debug)]
struct Parsed {
    path: PathBuf,
    src: String,
    doc: Arc<Document>,
    /// Whether the entries carry ids.
    ids: bool,
}

/// How long a `memdir.yaml` must have been unchanged when it was read for
/// its stat to stand for its bytes.
const RACY_SECS: i64 = 2;

/// One remembered `memdir.yaml`.
#[derive(Debug)]
struct Read {
    path: PathBuf,
    text: String,
    settings: Settings,
    /// The file's stat when it was read, if it had not changed for
    /// [`RACY_SECS`] by then.
    settled: Option<StatKey>,
}

/// The fields of a stat that change with a file's bytes.
pub(crate) type StatKey = (u64, u64, u64, (i64, i64), (i64, i64));

fn stat_key(s: &Stat) -> StatKey {
    (s.dev, s.ino, s.len, s.mtime, s.ctime)
}

/// The seconds since the epoch now.
fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The stat's key when it stands for the file's bytes: a plain file whose
/// status had not changed for [`RACY_SECS`] by now (see the module's text);
/// `None` otherwise.
pub(crate) fn settled_key(stat: &Stat) -> Option<StatKey> {
    (stat.kind == Kind::File && stat.ctime.0.saturating_add(RACY_SECS) <= now_secs())
        .then(|| stat_key(stat))
}

/// A parse a layer above keeps here (it names its type).
pub(crate) type Kept = Arc<dyn std::any::Any + Send + Sync>;

/// Recent parses, most recent last.
#[derive(Debug, Default)]
pub(crate) struct ParseCache {
    slots: Mutex<Vec<Parsed>>,
    settings: Mutex<Vec<Read>>,
    /// The keys file last read, by path and settled stat (its parse, as
    /// the keys' layer made it).
    keys: Mutex<Option<(PathBuf, StatKey, Kept)>>,
    /// The terms of the texts recall scored, by their whole text.
    terms: TermCache,
}

impl ParseCache {
    /// The terms of the texts recall scored (lexical recall's tokenising,
    /// kept between the calls of a long-lived process).
    pub(crate) fn terms(&self) -> &TermCache {
        &self.terms
    }

    /// The parse of `src` read from `path`, when it is remembered (with ids
    /// if `ids`).
    pub(crate) fn get(&self, path: &Path, src: &str, ids: bool) -> Option<Arc<Document>> {
        let slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        slots
            .iter()
            .rev()
            .find(|p| p.path == path && (p.ids || !ids) && p.src == src)
            .map(|p| Arc::clone(&p.doc))
    }

    /// Remembers `doc` as the parse of `src` at `path`, replacing what was
    /// remembered for that path.
    /// (A `String` is kept as it is, without a copy.)
    pub(crate) fn put(&self, path: &Path, src: impl Into<String>, doc: Arc<Document>, ids: bool) {
        let src = src.into();
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        // The path of a file remembered already is kept (no copy of it).
        let path = match slots.iter().position(|p| p.path == path) {
            Some(i) => slots.remove(i).path,
            None => {
                if slots.len() >= SLOTS {
                    slots.remove(0);
                }
                path.to_owned()
            }
        };
        slots.push(Parsed {
            path,
            src,
            doc,
            ids,
        });
    }
}

impl ParseCache {
    /// The settings `text` (read from `path`) gives: remembered when it is
    /// the same path and text, else `parse`d (and remembered when read).
    pub(crate) fn settings(
        &self,
        path: &Path,
        text: &str,
        stat: Option<&Stat>,
        parse: impl FnOnce() -> Result<Settings>,
    ) -> Result<Settings> {
        let settled = stat.and_then(settled_key);
        let mut slots = self.settings.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(r) = slots.iter_mut().find(|r| r.path == path && r.text == text) {
            r.settled = settled;
            return Ok(r.settings.clone());
        }
        let settings = parse()?;
        slots.retain(|r| r.path != path);
        if slots.len() >= SLOTS {
            slots.remove(0);
        }
        slots.push(Read {
            path: path.to_owned(),
            text: text.to_owned(),
            settings: settings.clone(),
            settled,
        });
        Ok(settings)
    }

    /// The settings last read from `path`, where `stat` (called only when
    /// there are some) finds the file as it was then and it had settled
    /// (see the module's text).
    pub(crate) fn settings_unchanged(
        &self,
        path: &Path,
        stat: impl FnOnce() -> Option<Stat>,
    ) -> Option<Settings> {
        let slots = self.settings.lock().unwrap_or_else(PoisonError::into_inner);
        let r = slots.iter().find(|r| r.path == path)?;
        let settled = r.settled?;
        let now = stat().filter(|s| s.kind == Kind::File)?;
        (stat_key(&now) == settled).then(|| r.settings.clone())
    }
}

impl ParseCache {
    /// The keys file `path`'s parse as last read, when `stat` is the
    /// settled stat it had then.
    pub(crate) fn keys(&self, path: &Path, stat: &Stat) -> Option<Kept> {
        let key = settled_key(stat)?;
        let kept = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        kept.as_ref()
            .filter(|(p, k, _)| p == path && *k == key)
            .map(|(_, _, doc)| Arc::clone(doc))
    }

    /// Remembers `doc` as the parse of the keys file `path` read with
    /// `stat`, when that stat is settled.
    pub(crate) fn put_keys(&self, path: &Path, stat: &Stat, doc: Kept) {
        let mut kept = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        *kept = settled_key(stat).map(|key| (path.to_owned(), key, doc));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::{parse, parse_without_ids};
    use crate::model::Scope;

    #[test]
    fn answers_only_for_the_same_path_and_text() {
        let cache = ParseCache::default();
        let (a, b) = (Path::new("/r/o/MEMORY.md"), Path::new("/r/o/USER.md"));
        let src = "- one\n- two\n";
        let doc = Arc::new(parse(Scope::Memory, src));
        cache.put(a, src, Arc::clone(&doc), true);
        assert_eq!(cache.get(a, src, true), Some(Arc::clone(&doc)));
        assert_eq!(cache.get(a, src, false), Some(doc));
        assert_eq!(cache.get(a, "- one\n- two!\n", true), None);
        assert_eq!(cache.get(b, src, true), None);
        // A parse without ids does not answer for one with them.
        cache.put(b, src, Arc::new(parse_without_ids(src)), false);
        assert_eq!(cache.get(b, src, true), None);
        assert!(cache.get(b, src, false).is_some());
    }

    #[test]
    fn keeps_one_parse_a_path_and_at_most_the_latest_few() {
        let cache = ParseCache::default();
        let path = |i: usize| PathBuf::from(format!("/r/o{i}/MEMORY.md"));
        let src = "- x\n";
        let doc = Arc::new(parse(Scope::Memory, src));
        for i in 0..=SLOTS {
            cache.put(&path(i), src, Arc::clone(&doc), true);
        }
        assert_eq!(cache.get(&path(0), src, true), None, "the oldest went");
        assert!(cache.get(&path(SLOTS), src, true).is_some());
        cache.put(
            &path(SLOTS),
            "- y\n",
            Arc::new(parse(Scope::Memory, "- y\n")),
            true,
        );
        assert_eq!(cache.get(&path(SLOTS), src, true), None, "replaced");
        assert_eq!(cache.slots.lock().map(|s| s.len()).unwrap_or(0), SLOTS);
    }

    #[test]
    fn settings_are_parsed_again_for_other_bytes_only() {
        let cache = ParseCache::default();
        let p = Path::new("/r/o/memdir.yaml");
        let parses = std::cell::Cell::new(0);
        let read = |text: &str| {
            cache
                .settings(p, text, None, || {
                    parses.set(parses.get() + 1);
                    Settings::from_yaml(text, p)
                })
                .unwrap()
        };
        let a = read("budgets:\n  memory: 3000\n");
        assert_eq!(a.budgets.memory, Some(3000));
        assert_eq!(read("budgets:\n  memory: 3000\n"), a);
        assert_eq!(parses.get(), 1);
        // A hand edit: parsed afresh, and what it says counts.
        assert_eq!(
            read("budgets:\n  memory: 4000\n").budgets.memory,
            Some(4000)
        );
        assert_eq!(parses.get(), 2);
        // A file memdir cannot read is refused every time, never remembered.
        let bad = "budgets: [\n";
        for _ in 0..2 {
            assert!(
                cache
                    .settings(p, bad, None, || Settings::from_yaml(bad, p))
                    .is_err()
            );
        }
        assert_eq!(
            read("budgets:\n  memory: 4000\n").budgets.memory,
            Some(4000)
        );
        assert_eq!(parses.get(), 2);
    }

    fn stat(ino: u64, len: u64, ctime: i64) -> Stat {
        Stat {
            kind: Kind::File,
            len,
            mode: 0o644,
            ino,
            dev: 1,
            uid: 0,
            mtime: (ctime, 0),
            ctime: (ctime, 0),
        }
    }

    /// A stat stands for the bytes only once the file had settled when it
    /// was read: then the same stat answers without a read, and any other
    /// stat (or none, or not a file) does not.
    #[test]
    fn settings_stand_by_stat_only_once_settled() {
        let cache = ParseCache::default();
        let p = Path::new("/r/o/memdir.yaml");
        let text = "budgets:\n  memory: 3000\n";
        let parse = || Settings::from_yaml(text, p);
        let old = stat(7, text.len() as u64, 1_000);
        // Nothing read yet: no answer, and the stat is not even taken.
        assert!(
            cache
                .settings_unchanged(p, || panic!("stat taken with nothing remembered"))
                .is_none()
        );
        cache.settings(p, text, Some(&old), parse).unwrap();
        let same = cache.settings_unchanged(p, || Some(old));
        assert_eq!(same.and_then(|s| s.budgets.memory), Some(3000));
        for other in [
            stat(8, text.len() as u64, 1_000),
            stat(7, text.len() as u64 + 1, 1_000),
            stat(7, text.len() as u64, 1_001),
            Stat {
                kind: Kind::Symlink,
                ..old
            },
        ] {
            assert!(cache.settings_unchanged(p, || Some(other)).is_none());
        }
        assert!(cache.settings_unchanged(p, || None).is_none());
        // Read within the same second as its last change: the stat could
        // stay as it is through another change, so it never answers.
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap();
        let fresh = stat(9, text.len() as u64, now);
        cache.settings(p, text, Some(&fresh), parse).unwrap();
        assert!(cache.settings_unchanged(p, || Some(fresh)).is_none());
    }
}
