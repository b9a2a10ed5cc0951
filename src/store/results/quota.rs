//! The owner's results quota (`results_quota_bytes`): the bytes its stored
//! results take, counted from the workflows' indexes.
//!
//! A count reads, per workflow folder under `results/`, its `index.json`
//! and the folder's listing (`files::results::index::load_steps`); an index
//! that is missing or out of step with the files is rebuilt in memory from
//! the `.result` files, as every reader does. No result's content is read
//! while the indexes hold. Only the workflow being written is locked, so
//! puts racing in other workflows can each pass a quota the two together
//! exceed: the quota bounds the owner's results, not to the byte.

use super::super::files::results::index;
use super::super::files::results::{RESULTS_DIR, ResultStep, file_limit};
use super::super::owner::At;
use crate::error::{Error, Result};
use crate::model::validate_id;

/// Refuses a put of `bytes` to `workflow_id` (whose steps, under its lock,
/// are `steps`, the task being written already left out) when the owner's
/// results would then pass its `results_quota_bytes` with
/// [`Error::ResultsQuotaExceeded`]. Without a quota it reads nothing.
pub(crate) fn check(at: At<'_>, workflow_id: &str, steps: &[ResultStep], bytes: u64) -> Result<()> {
    let Some(quota) = at.settings.results_quota_bytes else {
        return Ok(());
    };
    let disk = at.disk();
    let results = match at.dir {
        Some(dir) => disk.open_dir(dir, RESULTS_DIR)?,
        None => None,
    };
    let limit = file_limit(at.settings);
    let mut total = bytes.saturating_add(sum(steps));
    let names = match &results {
        Some(r) => disk.list(r)?,
        None => Vec::new(),
    };
    for wf in names {
        let Some(results) = &results else { break };
        if wf == workflow_id || validate_id("workflow", &wf).is_err() {
            continue;
        }
        let Some(dir) = disk.open_dir(results, &wf)? else {
            continue;
        };
        total = total.saturating_add(sum(&index::load_steps(disk, &dir, &wf, limit)?.steps));
        if total > quota {
            break;
        }
    }
    if total > quota {
        return Err(Error::ResultsQuotaExceeded {
            bytes: total,
            quota,
        });
    }
    Ok(())
}

/// The content bytes of a workflow's steps.
fn sum(steps: &[ResultStep]) -> u64 {
    steps.iter().fold(0u64, |n, s| n.saturating_add(s.bytes))
}
