//! Volatile figures kept under `.memdir/stats.json`: recall counts, last
//! recall times, when the store first saw a hand-written fact, and when each
//! session last recalled. Not history worth committing; deleting the file
//! resets them to zero. Read-modify-writes take the stats' own lock
//! (`.memdir/stats.lock`), never the owner's, and write atomically without a
//! sync: derived figures may be lost in a crash, never torn.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::disk::{Dir, Lock};
use crate::error::{Error, Result};
use crate::model::Settings;
use crate::store::answers::Answers;
use crate::store::limits::STATS_BYTES;
use crate::store::owner::{At, Owner};
use crate::store::root::DERIVED_DIR;

/// Format version of stats.json.
const STATS_VERSION: u32 = 1;

/// Per-fact figures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FactStats {
    /// How many times a recall picked it.
    #[serde(default)]
    pub recall_count: u64,
    /// The last time a recall picked it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_recalled_at: Option<DateTime<Utc>>,
    /// When the store first saw it (for facts written by hand without metadata).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_seen: Option<DateTime<Utc>>,
}

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stats {
    #[serde(default)]
    pub(crate) version: u32,
    #[serde(default)]
    pub(crate) facts: BTreeMap<String, FactStats>,
    /// Session id → the last start-of-run recall it got.
    #[serde(default)]
    pub(crate) sessions: BTreeMap<String, DateTime<Utc>>,
}

/// The stats file's name in `.memdir/`.
const STATS_FILE: &str = "stats.json";

/// Reads the stats, with the figures this process keeps behind
/// ([`Behind`]) added; a missing or unreadable file is all zeros.
pub(crate) fn load(at: At<'_>) -> Stats {
    match behind(at.owner.store()) {
        Some(behind) => behind.view(at, |_| None),
        None => load_file(at),
    }
}

/// Reads the stats file alone; a missing or unreadable file is all zeros.
fn load_file(at: At<'_>) -> Stats {
    let disk = at.disk();
    at.dir
        .and_then(|dir| disk.open_dir(dir, DERIVED_DIR).ok().flatten())
        .and_then(|derived| {
            disk.read_bytes(&derived, STATS_FILE, STATS_BYTES)
                .ok()
                .flatten()
        })
        .and_then(|b| serde_json::from_slice::<Stats>(&b).ok())
        .filter(|s| s.version == STATS_VERSION)
        .unwrap_or_default()
}

/// [`load_file`] as kept between calls while the file is as it was
/// (`answers`): a server reads the figures at every recall, and the file
/// changes only when what is behind is written.
fn kept_file(at: At<'_>) -> Stats {
    static KEPT: LazyLock<Answers<Stats>> = LazyLock::new(Answers::default);
    KEPT.get(at.owner, |o| Ok(load_file(o.view()?.at())))
        .map_or_else(|_| load_file(at), |s| Stats::clone(&s))
}

/// The stats file's lock in `.memdir/`: recall counts are derived data with
/// a lock of their own, so a recall never waits for the owner's writers.
const STATS_LOCK: &str = "stats.lock";

/// The stats, held under their own lock for a read-modify-write; for an
/// owner without a folder, nothing held: all zeros, and nothing saved (a
/// read creates no folder).
pub(crate) struct StatsLock<'a> {
    owner: &'a Owner,
    /// `.memdir/` and the lock in it; `None` without an owner's folder.
    held: Option<(Dir, Lock)>,
}

/// Takes the stats' lock (creating `.memdir/` in the owner's folder if
/// missing, never the owner's folder), waiting as long as the owner's lock
/// would.
pub(crate) fn lock<'a>(owner: &'a Owner, settings: &Settings) -> Result<StatsLock<'a>> {
    let Some(folders) = owner.existing_folders()? else {
        return Ok(StatsLock { owner, held: None });
    };
    let lock = owner
        .disk()
        .lock(&folders.derived, STATS_LOCK, owner.lock_timeout(settings))?;
    Ok(StatsLock {
        owner,
        held: Some((folders.derived, lock)),
    })
}

impl StatsLock<'_> {
    /// Reads the stats (all zeros when missing or unreadable).
    pub(crate) fn load(&self) -> Stats {
        let Some((derived, _)) = &self.held else {
            return Stats::default();
        };
        self.owner
            .disk()
            .read_bytes(derived, STATS_FILE, STATS_BYTES)
            .ok()
            .flatten()
            .and_then(|b| serde_json::from_slice::<Stats>(&b).ok())
            .filter(|s| s.version == STATS_VERSION)
            .unwrap_or_default()
    }

    /// Writes the stats atomically but not durably: they are derived, a
    /// crash may lose the last counts but never tears the file.
    pub(crate) fn save(&self, stats: &mut Stats) -> Result<()> {
        stats.version = STATS_VERSION;
        let bytes = serde_json::to_vec(stats).map_err(|e| Error::Encode {
            what: "stats.json",
            source: e,
        })?;
        let Some((derived, _)) = &self.held else {
            return Ok(());
        };
        self.owner
            .disk()
            .write_atomic_volatile(derived, STATS_FILE, &bytes)
    }
}

/// How long a session's start-of-run recall stands (the skip).
pub const SESSION_SKIP: chrono::Duration = chrono::Duration::hours(24);

/// The recall figures `store` keeps behind, when it does.
pub(crate) fn behind(store: &crate::store::root::Store) -> Option<&Behind> {
    store.behind_any()?.downcast_ref()
}

/// How long recall figures may wait in memory before they are written
/// ([`Behind`]).
pub(crate) const BEHIND_AT_MOST: std::time::Duration = std::time::Duration::from_secs(1);

/// Recall figures a long-lived process (`memdir serve`) has not written to
/// `stats.json` yet: each owner's counts, last recall times, first sightings
/// and session skips since its last write, merged into the file under the
/// stats' lock at most [`BEHIND_AT_MOST`] later, by the next recall or by
/// [`Behind`]'s flush (the server's timer, and its clean stop). What they
/// add is added to what the file holds then, so another process's counts
/// written meanwhile are kept. A crash loses at most the figures of the last
/// [`BEHIND_AT_MOST`]; the facts themselves are never behind.
#[derive(Debug, Default)]
pub(crate) struct Behind {
    owners: std::sync::Mutex<std::collections::HashMap<String, Pending>>,
}

/// One owner's figures not yet written.
#[derive(Debug)]
struct Pending {
    /// What to add to the file's figures.
    delta: Stats,
    /// When the oldest of them was noted.
    since: std::time::Instant,
}

/// Adds `delta`'s figures to `stats`: counts summed, the later recall time,
/// the earlier first sighting, the later session start.
pub(crate) fn add(stats: &mut Stats, delta: &Stats) {
    for (id, d) in &delta.facts {
        let st = stats.facts.entry(id.clone()).or_default();
        st.recall_count = st.recall_count.saturating_add(d.recall_count);
        st.last_recalled_at = st.last_recalled_at.max(d.last_recalled_at);
        st.first_seen = match (st.first_seen, d.first_seen) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    for (s, t) in &delta.sessions {
        let e = stats.sessions.entry(s.clone()).or_insert(*t);
        *e = (*e).max(*t);
    }
}

impl Behind {
    fn pending(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, Pending>> {
        self.owners
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The owner's figures as the file holds them now with what is behind
    /// added; with `claim`, runs `claim` on them under this value's lock
    /// and notes what it returns as behind (so two recalls of one session
    /// at once see each other's skip).
    pub(crate) fn view(&self, at: At<'_>, claim: impl FnOnce(&Stats) -> Option<Stats>) -> Stats {
        let mut stats = kept_file(at);
        let mut owners = self.pending();
        if let Some(p) = owners.get(at.owner.id()) {
            add(&mut stats, &p.delta);
        }
        if let Some(delta) = claim(&stats) {
            add(&mut stats, &delta);
            Self::note_in(&mut owners, at.owner.id(), &delta);
        }
        stats
    }

    fn note_in(
        owners: &mut std::collections::HashMap<String, Pending>,
        owner: &str,
        delta: &Stats,
    ) {
        match owners.get_mut(owner) {
            Some(p) => add(&mut p.delta, delta),
            None => {
                owners.insert(
                    owner.to_owned(),
                    Pending {
                        delta: delta.clone(),
                        since: std::time::Instant::now(),
                    },
                );
            }
        }
    }

    /// Notes `delta` as behind for `owner`, and writes the owner's figures
    /// when the oldest has waited [`BEHIND_AT_MOST`].
    pub(crate) fn note(&self, owner: &Owner, delta: &Stats) -> Result<()> {
        let due = {
            let mut owners = self.pending();
            Self::note_in(&mut owners, owner.id(), delta);
            owners
                .get(owner.id())
                .is_some_and(|p| p.since.elapsed() >= BEHIND_AT_MOST)
        };
        if due { self.write(owner) } else { Ok(()) }
    }

    /// Writes the owner's figures that are behind, under the stats' lock;
    /// on failure they stay behind for the next try.
    pub(crate) fn write(&self, owner: &Owner) -> Result<()> {
        let Some(p) = self.pending().remove(owner.id()) else {
            return Ok(());
        };
        let saved = owner
            .view()
            .and_then(|view| lock(owner, view.at().settings))
            .and_then(|held| {
                let mut stats = held.load();
                add(&mut stats, &p.delta);
                let now = Utc::now();
                stats.sessions.retain(|_, t| now - *t < SESSION_SKIP);
                held.save(&mut stats)
            });
        if saved.is_err() {
            let mut owners = self.pending();
            match owners.get_mut(owner.id()) {
                Some(later) => {
                    add(&mut later.delta, &p.delta);
                    later.since = later.since.min(p.since);
                }
                None => {
                    owners.insert(owner.id().to_owned(), p);
                }
            }
        }
        saved
    }

    /// The owners with figures behind.
    pub(crate) fn owners(&self) -> Vec<String> {
        self.pending().keys().cloned().collect()
    }
}
