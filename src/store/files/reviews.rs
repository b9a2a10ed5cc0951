//! `.memdir/reviews/` (derived, per machine): each review's plan as
//! `<id>.json` — a dry run's with what it was planned on, so that `review
//! apply ID` applies exactly that plan or says what changed; an applied
//! review's, marked `applied` — and `unchanged`, the id of the last review
//! that found nothing to change (it writes no journal line). Written
//! atomically, not durably: a plan lost is a dry run to make again. A
//! deleted `.memdir/` only means: dry-run again, and the next `--due`
//! reviews again.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::validate_id;
use crate::store::owner::{At, STALE_TEMP_AGE};
use crate::store::root::DERIVED_DIR;

/// The folder of review plans in `.memdir/`.
pub(crate) const REVIEWS_DIR: &str = "reviews";
/// The file naming the last review that changed nothing.
const UNCHANGED_FILE: &str = "unchanged";
/// The most a plan file may hold, in bytes (a plan names at most every
/// fact of two stores of 20,000 characters, and a reviewer's answer is at
/// most 1 MiB).
pub(crate) const PLAN_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// The version of the plan file this memdir writes and reads.
pub(crate) const PLAN_FILE_VERSION: u32 = 1;

/// What a plan was made on: the SHA-256 (hex) of each file read (`None`:
/// missing), and each store's entries as `(id, SHA-256 of the entry's
/// bytes)`, to say which entries changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Fingerprint {
    /// File (relative to the owner's folder) → its hash.
    pub(crate) files: BTreeMap<String, Option<String>>,
    /// Store file → its entries, in file order.
    pub(crate) entries: BTreeMap<String, Vec<(String, String)>>,
}

/// The reviewer's answer, kept so that an apply does not run it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoredReviewer {
    /// The command that answered.
    pub(crate) command: String,
    /// Its proposals (checked again, as any reviewer's, when applied).
    #[serde(default)]
    pub(crate) proposals: Option<Vec<serde_json::Value>>,
    /// Why it gave none.
    #[serde(default)]
    pub(crate) error: Option<String>,
}

/// One review's plan file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PlanFile {
    /// [`PLAN_FILE_VERSION`].
    pub(crate) version: u32,
    /// The review id.
    pub(crate) id: String,
    /// The owner.
    pub(crate) owner: String,
    /// The time the plan was made for (every time the review writes).
    pub(crate) now: DateTime<Utc>,
    /// Whether the plan was applied.
    #[serde(default)]
    pub(crate) applied: bool,
    /// What it was planned on.
    pub(crate) planned_on: Fingerprint,
    /// The reviewer's answer, when one was asked.
    #[serde(default)]
    pub(crate) reviewer: Option<StoredReviewer>,
    /// The plan (`crate::review::Plan` as JSON), to compare with the plan
    /// made again.
    pub(crate) plan: serde_json::Value,
}

/// Writes `file` as `.memdir/reviews/<id>.json` (creating the folders of
/// `.memdir/` when missing); nothing when the owner's folder is missing.
pub(crate) fn write(at: At<'_>, file: &PlanFile) -> Result<()> {
    let bytes = serde_json::to_vec_pretty(file).map_err(|source| Error::Encode {
        what: "review plan",
        source,
    })?;
    put(at, &format!("{}.json", file.id), &bytes)
}

/// Writes `bytes` as `.memdir/reviews/<name>`.
fn put(at: At<'_>, name: &str, bytes: &[u8]) -> Result<()> {
    let disk = at.disk();
    let Some(dir) = at.dir else { return Ok(()) };
    let (derived, _) = disk.ensure_dir(dir, DERIVED_DIR)?;
    let (reviews, _) = disk.ensure_dir(&derived, REVIEWS_DIR)?;
    disk.sweep_stale_temps(&reviews, STALE_TEMP_AGE);
    disk.write_atomic_volatile(&reviews, name, bytes)
}

/// `.memdir/reviews/<name>`'s bytes, at most `limit`; `None` when missing.
fn get(at: At<'_>, name: &str, limit: u64) -> Result<Option<Vec<u8>>> {
    let disk = at.disk();
    let Some(dir) = at.dir else { return Ok(None) };
    let Some(derived) = disk.open_dir(dir, DERIVED_DIR)? else {
        return Ok(None);
    };
    let Some(reviews) = disk.open_dir(&derived, REVIEWS_DIR)? else {
        return Ok(None);
    };
    disk.read_bytes(&reviews, name, limit)
}

/// Review `id`'s plan file: `None` when this machine keeps none; a file
/// that does not parse, or names another review or owner, is refused.
pub(crate) fn read(at: At<'_>, id: &str) -> Result<Option<PlanFile>> {
    validate_id("review", id)?;
    let name = format!("{id}.json");
    let Some(bytes) = get(at, &name, PLAN_FILE_BYTES)? else {
        return Ok(None);
    };
    let path = at
        .owner
        .dir()
        .join(DERIVED_DIR)
        .join(REVIEWS_DIR)
        .join(&name);
    let file: PlanFile = serde_json::from_slice(&bytes).map_err(|e| Error::InvalidConfig {
        path: path.clone(),
        message: format!("review plan: {e}"),
    })?;
    if file.version != PLAN_FILE_VERSION || file.id != id || file.owner != at.owner.id() {
        return Err(Error::InvalidConfig {
            path,
            message: format!(
                "review plan: version {}, review {}, owner {}: not this review's (version {PLAN_FILE_VERSION})",
                file.version, file.id, file.owner
            ),
        });
    }
    Ok(Some(file))
}

/// Notes `id` as the last review that found nothing to change.
pub(crate) fn note_unchanged(at: At<'_>, id: &str) -> Result<()> {
    put(at, UNCHANGED_FILE, id.as_bytes())
}

/// The last review this machine noted as finding nothing to change.
pub(crate) fn last_unchanged(at: At<'_>) -> Result<Option<String>> {
    Ok(get(at, UNCHANGED_FILE, 128)?
        .and_then(|b| String::from_utf8(b).ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| validate_id("review", s).is_ok()))
}
