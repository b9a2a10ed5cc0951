//! Run records (`.memdir/runs/<run_id>.json`) and the snapshots runs began
//! with, stored content-addressed (`.memdir/snapshots/<sha256>.md`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::disk::{Dir, decode};
use crate::error::{Error, Result};
use crate::model::time::{as_micros, as_micros_opt};
use crate::model::validate_id;
use crate::snapshot::Snapshot;
use crate::store::limits::{RUN_RECORD_BYTES, SNAPSHOT_BYTES};
use crate::store::owner::{At, Owner, STALE_TEMP_AGE};
use crate::store::root::DERIVED_DIR;

/// The folder of run records in `.memdir/`.
const RUNS_DIR: &str = "runs";
/// The folder of stored snapshots in `.memdir/`.
const SNAPSHOTS_DIR: &str = "snapshots";

/// What is recorded about a run when it begins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The run id: unique, sortable by start time, safe as a file name.
    pub run_id: String,
    /// The owner.
    pub owner: String,
    /// Start time (written as RFC 3339 UTC with microseconds).
    #[serde(with = "as_micros")]
    pub started_at: DateTime<Utc>,
    /// The SHA-256 of the snapshot the run began with.
    pub snapshot_sha256: String,
    /// The task key, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// The learned skills the run declared (in its snapshot after the
    /// stores).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<String>,
    /// Finish time, once the run has finished.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "as_micros_opt"
    )]
    pub finished_at: Option<DateTime<Utc>>,
}

/// Stores `snap` at `.memdir/snapshots/<sha256>.md` (once: identical
/// snapshots share one file).
pub(crate) fn store_snapshot(owner: &Owner, derived: &Dir, snap: &Snapshot) -> Result<()> {
    let disk = owner.disk();
    let (snaps, _) = disk.ensure_dir(derived, SNAPSHOTS_DIR)?;
    disk.sweep_stale_temps(&snaps, STALE_TEMP_AGE);
    let name = format!("{}.md", snap.sha256);
    if disk.stat(&snaps, &name)?.is_none() {
        disk.write_atomic(&snaps, &name, snap.text.as_bytes())?;
    }
    Ok(())
}

/// Writes a run's record durably.
pub(crate) fn write_record(owner: &Owner, derived: &Dir, record: &RunRecord) -> Result<()> {
    let disk = owner.disk();
    let (runs, _) = disk.ensure_dir(derived, RUNS_DIR)?;
    disk.sweep_stale_temps(&runs, STALE_TEMP_AGE);
    let bytes = serde_json::to_vec_pretty(record).map_err(|source| Error::Encode {
        what: "run record",
        source,
    })?;
    disk.write_atomic(&runs, &format!("{}.json", record.run_id), &bytes)
}

/// `.memdir/<name>/` of the owner, if it exists.
fn derived_sub(at: At<'_>, name: &str) -> Result<Option<Dir>> {
    let disk = at.disk();
    let Some(dir) = at.dir else { return Ok(None) };
    let Some(derived) = disk.open_dir(dir, DERIVED_DIR)? else {
        return Ok(None);
    };
    disk.open_dir(&derived, name)
}

/// The record of a run begun earlier.
pub(crate) fn read_record(at: At<'_>, run_id: &str) -> Result<RunRecord> {
    validate_id("run", run_id)?;
    let not_found = || Error::RunNotFound {
        run_id: run_id.to_owned(),
    };
    let runs = derived_sub(at, RUNS_DIR)?.ok_or_else(not_found)?;
    let name = format!("{run_id}.json");
    let bytes = at
        .disk()
        .read_bytes(&runs, &name, RUN_RECORD_BYTES)?
        .ok_or_else(not_found)?;
    serde_json::from_slice(&bytes).map_err(|e| Error::InvalidConfig {
        path: runs.join(&name),
        message: format!("run record: {e}"),
    })
}

/// The text of a stored snapshot, by its SHA-256.
pub(crate) fn stored_snapshot(at: At<'_>, sha256: &str) -> Result<Option<String>> {
    if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::InvalidId {
            kind: "snapshot",
            value: sha256.to_owned(),
            reason: "a snapshot is named by its SHA-256, 64 hex digits".into(),
        });
    }
    let Some(snaps) = derived_sub(at, SNAPSHOTS_DIR)? else {
        return Ok(None);
    };
    let name = format!("{sha256}.md");
    match at.disk().read_bytes(&snaps, &name, SNAPSHOT_BYTES)? {
        Some(b) => Ok(Some(decode(&snaps.join(&name), b)?)),
        None => Ok(None),
    }
}
