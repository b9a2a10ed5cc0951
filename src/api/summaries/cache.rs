//! The summaries' cache: one per process, each part of each agent's row
//! kept under the root's identity (its folder's device and inode) and the
//! agent's id, with the stamp of every file or folder its read touched (as
//! a recording disk noted them: `disk::Recorder`), the day it was read on
//! and the first time ahead it stops holding. A part is used again only
//! when every one of those files has the same stamp now (device, inode,
//! size, modification and change times to the nanosecond), the day is the
//! same and that time has not come; otherwise it is read again.
//!
//! A part read while one of its files was changing is not kept: a file
//! seen in two versions during the read, or one whose modification or
//! change time is not older than the moment the read began by the file
//! system's granularity (git's racy-clean rule, `FileStamp::racy`: a change
//! in the same tick would leave its stamp as it is). At most
//! [`MAX_OWNERS`] agents are kept; past that, the least recently used go.
//! The parts missing are read on at most [`MAX_WORKERS`] threads.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{LazyLock, Mutex};
use std::time::SystemTime;

use chrono::{DateTime, NaiveDate, Utc};

use super::Counted;
use super::parts::{Kind, Part, compute};
use crate::error::{Error, Result};
use crate::model::Caller;
use crate::store::Store;
use crate::store::answers;
use crate::store::stamps::{self, Dep};

/// The most agents the cache holds (of every root together).
pub(crate) const MAX_OWNERS: usize = 4096;

/// The most threads reading parts at once.
pub(crate) const MAX_WORKERS: usize = 8;

/// A root (its path as the store names it, and its folder's device and
/// inode) and an agent: the files a part depends on are noted by their
/// paths below the root's path, so a root of another path (or another
/// folder since at that path) is another root.
type Key = (PathBuf, (u64, u64), String);

/// A part as read, and what it holds under.
#[derive(Debug, Clone)]
struct Kept {
    /// The files and folders its read touched, with their stamps then.
    deps: Vec<Dep>,
    /// The day (UTC) it was read on.
    day: NaiveDate,
    /// The first time ahead it stops holding.
    until: Option<DateTime<Utc>>,
    /// The part.
    part: Part,
}

impl Kept {
    /// Whether it still holds at `now`, its files aside.
    fn current(&self, now: DateTime<Utc>) -> bool {
        self.day == now.date_naive() && self.until.is_none_or(|t| now < t)
    }
}

/// One agent's kept parts, by [`Kind::index`].
#[derive(Debug, Default)]
struct Entry {
    /// When it was last used ([`Cache::clock`]).
    used: u64,
    parts: [Option<Kept>; Kind::ALL.len()],
}

/// The agents' entries.
#[derive(Debug, Default)]
struct Cache {
    entries: HashMap<Key, Entry>,
    /// Counts the lookups, for "least recently used".
    clock: u64,
}

impl Cache {
    /// At most [`MAX_OWNERS`] entries: the least recently used go.
    fn bound(&mut self) {
        answers::bound(&mut self.entries, MAX_OWNERS, |e| e.used);
    }
}

/// The process's cache (a part is not kept while it is read: two calls may
/// read the same part, and the later keeps its own).
static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(Mutex::default);

/// A part asked for: an agent (by its place in the ids) and which part.
type Job = (usize, Kind);

/// The parts `kinds` of each agent of `ids` (as `result[i][k]`, in the
/// order of `kinds`), read as `caller` at `now`: each from the cache when
/// its files are as they were, else read again (and kept when it may be).
pub(super) fn parts(
    store: &Store,
    caller: &Caller,
    ids: &[String],
    kinds: &[Kind],
    now: DateTime<Utc>,
    counted: &mut Counted,
) -> Result<Vec<Vec<Result<Part>>>> {
    let mut out: Vec<Vec<Option<Result<Part>>>> = ids
        .iter()
        .map(|_| kinds.iter().map(|_| None).collect())
        .collect();
    let Some(root) = stamps::root_id(store)? else {
        // No root, no agents; nothing to keep.
        return Ok(Vec::new());
    };
    let key = |i: usize| (store.root().to_owned(), root, ids[i].clone());
    let jobs: Vec<Job> = (0..ids.len())
        .flat_map(|i| kinds.iter().map(move |k| (i, *k)))
        .collect();
    // What the cache holds that still holds at `now`, then its files
    // stated (outside the lock).
    let held: Vec<Option<Kept>> = {
        let mut cache = CACHE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        cache.clock += 1;
        let clock = cache.clock;
        jobs.iter()
            .map(|(i, k)| {
                let e = cache.entries.get_mut(&key(*i))?;
                e.used = clock;
                e.parts[k.index()].clone().filter(|p| p.current(now))
            })
            .collect()
    };
    let lists: Vec<&[Dep]> = held
        .iter()
        .map(|h| h.as_ref().map_or(&[][..], |h| h.deps.as_slice()))
        .collect();
    let fresh = stamps::unchanged(store, &lists);
    let mut missing: Vec<Job> = Vec::new();
    for (((i, k), h), fresh) in jobs.iter().zip(held).zip(fresh) {
        let slot = kinds.iter().position(|x| x == k).unwrap_or(0);
        match h {
            Some(h) if fresh => {
                counted.cached += 1;
                out[*i][slot] = Some(Ok(h.part));
            }
            _ => missing.push((*i, *k)),
        }
    }
    counted.computed += missing.len();
    let read = parallel(&missing, |&(i, k)| read(store, caller, &ids[i], k, now));
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let clock = cache.clock;
    for (&(i, k), done) in missing.iter().zip(read) {
        let (result, kept) = done.unwrap_or_else(|| (Err(lost()), None));
        if let Some(kept) = kept {
            let e = cache.entries.entry(key(i)).or_default();
            e.used = clock;
            e.parts[k.index()] = Some(kept);
        }
        let slot = kinds.iter().position(|x| *x == k).unwrap_or(0);
        out[i][slot] = Some(result);
    }
    cache.bound();
    drop(cache);
    Ok(out
        .into_iter()
        .map(|row| {
            row.into_iter()
                .map(|p| p.unwrap_or_else(|| Err(lost())))
                .collect()
        })
        .collect())
}

/// The error of a part no worker answered (a worker that panicked).
fn lost() -> Error {
    Error::Usage {
        message: "a summary's worker failed".to_owned(),
    }
}

/// Reads part `kind` of agent `id` on a recording copy of `store`: the
/// part, and what the cache may keep of it (`None`: it failed, or a file
/// it read was changing).
fn read(
    store: &Store,
    caller: &Caller,
    id: &str,
    kind: Kind,
    now: DateTime<Utc>,
) -> (Result<Part>, Option<Kept>) {
    let read_at = SystemTime::now();
    let (recording, recorder) = match store.recording() {
        Ok(r) => r,
        Err(e) => return (Err(e), None),
    };
    let (part, until) = match compute(&recording, caller, id, kind, now) {
        Ok(p) => p,
        Err(e) => return (Err(e), None),
    };
    let kept = recorder
        .seen()
        .and_then(stamps::deps)
        .filter(|deps| stamps::settled(deps, read_at))
        .map(|deps| Kept {
            deps,
            day: now.date_naive(),
            until,
            part: part.clone(),
        });
    (Ok(part), kept)
}

/// `f` of each of `jobs`, in order, on at most [`MAX_WORKERS`] threads
/// (fewer on a machine with fewer cores); `None` for a job whose thread
/// panicked.
fn parallel<J: Sync, T: Send>(jobs: &[J], f: impl Fn(&J) -> T + Sync) -> Vec<Option<T>> {
    if jobs.is_empty() {
        return Vec::new();
    }
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, MAX_WORKERS)
        .min(jobs.len());
    let chunk = jobs.len().div_ceil(workers).max(1);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .chunks(chunk)
            .map(|part| {
                let n = part.len();
                (
                    n,
                    scope.spawn(move || part.iter().map(f).collect::<Vec<T>>()),
                )
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|(n, h)| match h.join() {
                Ok(done) => done.into_iter().map(Some).collect::<Vec<_>>(),
                Err(_) => (0..n).map(|_| None).collect(),
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_most_max_owners_are_kept_the_least_recently_used_dropped() {
        let mut c = Cache::default();
        let key = |i: usize| (PathBuf::from("root"), (1, 2), format!("agt_{i}"));
        for i in 0..MAX_OWNERS {
            let used = u64::try_from(i).unwrap();
            c.entries.insert(
                key(i),
                Entry {
                    used,
                    ..Entry::default()
                },
            );
        }
        c.bound();
        assert_eq!(c.entries.len(), MAX_OWNERS);
        c.entries.insert(
            key(MAX_OWNERS),
            Entry {
                used: 1,
                ..Entry::default()
            },
        );
        c.bound();
        assert_eq!(c.entries.len(), MAX_OWNERS - MAX_OWNERS / 8);
        assert!(!c.entries.contains_key(&key(0)) && !c.entries.contains_key(&key(1)));
        assert!(!c.entries.contains_key(&key(MAX_OWNERS)));
        assert!(c.entries.contains_key(&key(MAX_OWNERS - 1)));
    }
}
