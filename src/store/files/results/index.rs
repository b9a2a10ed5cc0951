//! A workflow's sidecar index, `results/<workflow_id>/index.json`: reading
//! and validating it against the `.result` files in the folder, rebuilding
//! it from them (with a warning) when it is missing, damaged, of another
//! version or workflow, or out of step, and writing it durably.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::file::{decode_result, is_sha256_hex};
use super::{RESULT_INDEX_FILE, RESULT_INDEX_VERSION, RESULT_SUFFIX, ResultMeta, ResultStep};
use crate::disk::{Dir, Disk};
use crate::error::{Error, Result};
use crate::model::validate_id;
use crate::store::limits::RESULT_INDEX_BYTES;

/// A workflow's `index.json`.
#[derive(Debug, Serialize, Deserialize)]
struct Index {
    version: u32,
    workflow_id: String,
    results: Vec<ResultStep>,
}

/// How a workflow's index was found.
enum IndexState {
    /// No index file.
    Missing,
    /// An index of this format, for this workflow.
    Valid(Vec<ResultStep>),
    /// Unreadable, of another version or another workflow: why.
    Bad(String),
}

/// A workflow's steps, and whether the index on disk must be rewritten.
pub(crate) struct Loaded {
    /// The steps, in index order.
    pub(crate) steps: Vec<ResultStep>,
    /// Why the index was rebuilt, and the damaged files left out.
    pub(crate) warnings: Vec<String>,
    /// The steps were rebuilt from the result files: save them.
    pub(crate) rebuilt: bool,
}

/// A result's entry in its workflow's index.
pub(crate) fn step_of(meta: &ResultMeta) -> ResultStep {
    ResultStep {
        task_id: meta.task_id.clone(),
        content_type: meta.content_type.clone(),
        created_at: meta.created_at.clone(),
        sha256: meta.sha256.clone(),
        bytes: meta.bytes,
    }
}

/// Index order: by `created_at` (fixed-width UTC, so string order is time
/// order), then task id.
pub(crate) fn sort_steps(steps: &mut [ResultStep]) {
    steps.sort_by(|a, b| {
        a.created_at
            .cmp(&b.created_at)
            .then_with(|| a.task_id.cmp(&b.task_id))
    });
}

/// The task ids of the `.result` files in a workflow's folder, sorted.
fn result_files(disk: &Disk, dir: &Dir) -> Result<BTreeSet<String>> {
    let names = disk.list(dir)?;
    Ok(names
        .into_iter()
        .filter_map(|n| {
            let task = n.strip_suffix(RESULT_SUFFIX)?;
            validate_id("task", task).ok()?;
            Some(task.to_owned())
        })
        .collect())
}

fn read_index(disk: &Disk, dir: &Dir, workflow_id: &str) -> Result<IndexState> {
    let Some(bytes) = disk.read_bytes(dir, RESULT_INDEX_FILE, RESULT_INDEX_BYTES)? else {
        return Ok(IndexState::Missing);
    };
    let index: Index = match serde_json::from_slice(&bytes) {
        Ok(i) => i,
        Err(e) => return Ok(IndexState::Bad(format!("not a valid index ({e})"))),
    };
    if index.version != RESULT_INDEX_VERSION {
        return Ok(IndexState::Bad(format!(
            "unknown index version {}",
            index.version
        )));
    }
    if index.workflow_id != workflow_id {
        return Ok(IndexState::Bad(format!(
            "indexes workflow {:?}",
            index.workflow_id
        )));
    }
    if let Some(s) = index
        .results
        .iter()
        .find(|s| validate_id("task", &s.task_id).is_err() || !is_sha256_hex(&s.sha256))
    {
        return Ok(IndexState::Bad(format!(
            "bad entry for task {:?}",
            s.task_id
        )));
    }
    Ok(IndexState::Valid(index.results))
}

/// The workflow's steps from its index when the index matches the
/// `.result` files in the folder; else rebuilt from the files, with a
/// warning (`rebuilt` set). Call under the workflow's lock to rebuild.
pub(crate) fn load_steps(
    disk: &Disk,
    dir: &Dir,
    workflow_id: &str,
    file_limit: u64,
) -> Result<Loaded> {
    let files = result_files(disk, dir)?;
    let index_path = dir.join(RESULT_INDEX_FILE);
    let why = match read_index(disk, dir, workflow_id)? {
        IndexState::Missing if files.is_empty() => {
            return Ok(Loaded {
                steps: Vec::new(),
                warnings: Vec::new(),
                rebuilt: false,
            });
        }
        IndexState::Missing => "missing".to_owned(),
        IndexState::Bad(why) => why,
        IndexState::Valid(mut steps) => {
            let listed: BTreeSet<&str> = steps.iter().map(|s| s.task_id.as_str()).collect();
            if listed.len() == steps.len()
                && listed.iter().copied().eq(files.iter().map(String::as_str))
            {
                sort_steps(&mut steps);
                return Ok(Loaded {
                    steps,
                    warnings: Vec::new(),
                    rebuilt: false,
                });
            }
            "out of step with the result files (an interrupted put)".to_owned()
        }
    };
    let mut warnings = Vec::new();
    let mut steps = Vec::with_capacity(files.len());
    for task in &files {
        let name = format!("{task}{RESULT_SUFFIX}");
        let path = dir.join(&name);
        let read = disk
            .read_bytes(dir, &name, file_limit)
            .and_then(|b| match b {
                Some(b) => decode_result(&path, workflow_id, task, b).map(Some),
                None => Ok(None), // removed meanwhile
            });
        match read {
            Ok(Some(r)) => steps.push(step_of(&r.meta())),
            Ok(None) => {}
            Err(e) => warnings.push(format!("skipped a damaged result: {e}")),
        }
    }
    sort_steps(&mut steps);
    warnings.insert(
        0,
        format!(
            "{}: {why}; rebuilt from {} result file(s)",
            index_path.display(),
            steps.len()
        ),
    );
    Ok(Loaded {
        steps,
        warnings,
        rebuilt: true,
    })
}

/// Writes the workflow's index durably (temp file, sync, rename, folder sync).
pub(crate) fn write_index(
    disk: &Disk,
    dir: &Dir,
    workflow_id: &str,
    steps: &[ResultStep],
) -> Result<()> {
    let index = Index {
        version: RESULT_INDEX_VERSION,
        workflow_id: workflow_id.to_owned(),
        results: steps.to_vec(),
    };
    let mut bytes = serde_json::to_vec_pretty(&index).map_err(|source| Error::Encode {
        what: "results index",
        source,
    })?;
    bytes.push(b'\n');
    disk.write_atomic(dir, RESULT_INDEX_FILE, &bytes)
}
