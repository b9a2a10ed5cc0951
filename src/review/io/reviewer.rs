//! The reviewer command: which one this machine names, running it on the
//! owner's files before the lock (it may take minutes), and its proposals
//! checked by `crate::review::reviewer` (merged into the plan by `prepare`).

use chrono::{DateTime, Duration, Utc};

use super::ReviewOptions;
use super::prepare::{Gathered, gather, plan_of};
use crate::error::{Error, Result};
use crate::review::reviewer;
use crate::store::files::results;
use crate::store::owner::{At, Owner};

/// The reviewer's default timeout.
const REVIEWER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);
/// The most the reviewer may print, in bytes.
pub const REVIEWER_OUTPUT_BYTES: u64 = 1024 * 1024;
/// The most result text sent per run, in bytes.
const RESULT_TEXT_BYTES: usize = 16 * 1024;

/// The reviewer command: `--reviewer`, else the machine-local
/// configuration's; with its timeout.
pub(super) fn reviewer_command(
    owner: &Owner,
    opts: &ReviewOptions,
) -> Result<Option<(String, std::time::Duration)>> {
    let machine = owner.store().machine_config()?;
    let timeout = machine
        .reviewer_timeout_secs
        .map_or(REVIEWER_TIMEOUT, std::time::Duration::from_secs);
    Ok(opts
        .reviewer
        .clone()
        .or(machine.reviewer)
        .filter(|c| !c.trim().is_empty())
        .map(|c| (c, timeout)))
}

/// Runs the reviewer on the owner's files as `at` shows them: its
/// proposals (JSON values), or why there are none.
pub(super) fn ask_reviewer(
    at: At<'_>,
    command: &str,
    timeout: std::time::Duration,
    now: DateTime<Utc>,
) -> Result<std::result::Result<Vec<serde_json::Value>, String>> {
    let g = gather(at, now)?;
    let plan = plan_of(at, &g, now);
    let Gathered {
        facts,
        yesterday,
        mut evidence,
        ..
    } = g;
    let pairs = reviewer::candidate_pairs(&facts, now);
    for (ids, _, _) in &pairs {
        for id in ids {
            if let Some(run) = facts
                .iter()
                .find(|f| &f.id == id)
                .and_then(|f| f.meta.run.clone())
                && !evidence.contains_key(&run)
                && let Some(texts) = results::texts(at, &run)?
            {
                evidence.insert(run, texts);
            }
        }
    }
    for texts in evidence.values_mut() {
        let mut left = RESULT_TEXT_BYTES;
        for t in texts.iter_mut() {
            let mut cut = t.len().min(left);
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            t.truncate(cut);
            left -= cut;
        }
        texts.retain(|t| !t.is_empty());
    }
    let date = (now - Duration::days(1)).date_naive();
    let doc = reviewer::document(
        at.owner.id(),
        &facts,
        (date, &yesterday),
        &plan,
        pairs,
        &evidence,
        now,
    );
    let input = serde_json::to_vec(&doc).map_err(|e| Error::Encode {
        what: "the reviewer's document",
        source: e,
    })?;
    Ok(
        crate::program::run_shell(command, &input, timeout, REVIEWER_OUTPUT_BYTES)
            .and_then(|out| reviewer::parse_output(&out))
            .map(|o| o.proposals),
    )
}
