//! Volatile figures kept under `.memdir/stats.json`: recall counts, last
//! recall times, when the store first saw a hand-written fact, and when each
//! session last recalled. Not history worth committing; deleting the file
//! resets them to zero. Read-modify-writes take the stats' own lock
//! (`.memdir/stats.lock`), never the owner's, and write atomically without a
//! sync: derived figures may be lost in a crash, never torn.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::disk::{Dir, Lock};
use crate::error::{Error, Result};
use crate::model::Settings;
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

/// Reads the stats; a missing or unreadable file is all zeros.
pub(crate) fn load(at: At<'_>) -> Stats {
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
