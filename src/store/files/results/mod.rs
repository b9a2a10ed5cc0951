//! SharedMemory's files: `results/<workflow_id>/<task_id>.result` (the
//! format is `file`), each workflow's derived `index.json` (`index`), the
//! workflow folders, the per-workflow lock
//! `.memdir/locks/<workflow_id>.lock`, content taken as it arrives
//! (`upload`), and what content is, text or binary (`kind`).

pub(crate) mod file;
pub(crate) mod index;
pub(crate) mod kind;
pub(crate) mod upload;
pub(crate) mod verdict;

use serde::{Deserialize, Serialize};

use std::time::Instant;

use crate::disk::{Dir, Lock};
use crate::error::{Error, Result};
use crate::model::validate_id;
use crate::store::owner::{At, Folders, Owner, no_case_twin};
use crate::store::root::DERIVED_DIR;

pub use kind::{ContentKind, NotText};
pub use verdict::FlaggedSpan;

/// Largest result stored by default: 16 MiB (`max_result_bytes` in
/// `memdir.yaml` sets another).
pub const DEFAULT_MAX_RESULT_BYTES: u64 = 16 * 1024 * 1024;

/// Version of the `.result` file's metadata line (`"v"`): 2 keeps the
/// scanner's verdict (`"scan"`); files of version 1 are read too.
pub const RESULT_FORMAT_VERSION: u32 = 2;

/// Version of a workflow's `index.json` (`"version"`).
pub const RESULT_INDEX_VERSION: u32 = 1;

/// The owner's folder of results, one sub-folder per workflow.
pub const RESULTS_DIR: &str = "results";

/// The suffix of a result file: `<task_id>.result`.
pub const RESULT_SUFFIX: &str = ".result";

/// The name of a workflow's derived index file.
pub const RESULT_INDEX_FILE: &str = "index.json";

/// The folder of per-workflow locks in `.memdir/`.
const LOCKS_DIR: &str = "locks";

/// The folder of the marks of running waits in `.memdir/`: one file per
/// workflow, `<workflow_id>.wait`, which each wait holds a shared lock on.
pub const WAITERS_DIR: &str = "waiters";

/// What is known of a stored result, without its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ResultMeta {
    /// The workflow (run) the result belongs to.
    pub workflow_id: String,
    /// The task that produced it.
    pub task_id: String,
    /// Its MIME type, such as `text/plain`.
    pub content_type: String,
    /// When it was stored: RFC 3339 UTC with microseconds.
    pub created_at: String,
    /// SHA-256 of the content, lowercase hex.
    #[schemars(pattern(r"^[0-9a-f]{64}$"))]
    pub sha256: String,
    /// Length of the content in bytes.
    pub bytes: u64,
}

/// A stored result with its content, as `Results::get` answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskResult {
    /// The content, byte for byte as it was put (unless `redacted`).
    pub content: Vec<u8>,
    /// Its MIME type.
    pub content_type: String,
    /// The workflow id.
    pub workflow_id: String,
    /// The task id.
    pub task_id: String,
    /// When it was stored: RFC 3339 UTC with microseconds.
    pub created_at: String,
    /// SHA-256 of the content, lowercase hex.
    pub sha256: String,
    /// Length of the content in bytes.
    pub bytes: u64,
    /// Whether the stored content is text or binary (decided on its bytes,
    /// whatever its type): binary content is not scanned, and no answer
    /// gives it to an agent as text.
    pub kind: ContentKind,
    /// The spans of the stored content the scanner flags, in order (none
    /// for binary content).
    pub flagged: Vec<FlaggedSpan>,
    /// Whether `content` is the stored text with each flagged span replaced
    /// by its `[BLOCKED: …]` placeholder (an answer to an agent); `sha256`
    /// and `bytes` still describe the stored bytes.
    pub redacted: bool,
}

impl TaskResult {
    /// The result's metadata, without the content.
    pub fn meta(&self) -> ResultMeta {
        ResultMeta {
            workflow_id: self.workflow_id.clone(),
            task_id: self.task_id.clone(),
            content_type: self.content_type.clone(),
            created_at: self.created_at.clone(),
            sha256: self.sha256.clone(),
            bytes: self.bytes,
        }
    }
}

/// One step (task result) of a workflow, as its index lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ResultStep {
    /// The task id.
    pub task_id: String,
    /// The result's MIME type.
    pub content_type: String,
    /// When it was stored: RFC 3339 UTC with microseconds.
    pub created_at: String,
    /// SHA-256 of the content, lowercase hex.
    #[schemars(pattern(r"^[0-9a-f]{64}$"))]
    pub sha256: String,
    /// Length of the content in bytes.
    pub bytes: u64,
}

/// A workflow's final result: the steps stored so far, as
/// `Results::workflow` answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct WorkflowResults {
    /// The workflow id.
    pub workflow_id: String,
    /// Its results, ordered by `created_at`, then task id.
    pub steps: Vec<ResultStep>,
    /// Notes such as an index rebuilt from the result files.
    pub warnings: Vec<String>,
}

/// The largest result file memdir reads under `settings`: the largest
/// content a put accepts (never less than the default, so lowering the
/// setting keeps older results readable) and its metadata line.
pub(crate) fn file_limit(settings: &crate::model::Settings) -> u64 {
    settings
        .max_result_bytes
        .unwrap_or(DEFAULT_MAX_RESULT_BYTES)
        .max(DEFAULT_MAX_RESULT_BYTES)
        .saturating_add(crate::store::limits::RESULT_HEADER_BYTES)
}

/// "Not ready": the answer for a result (or workflow) not stored yet.
pub(crate) fn not_ready(workflow_id: &str, task_id: Option<&str>) -> Error {
    Error::NotReady {
        workflow_id: workflow_id.to_owned(),
        task_id: task_id.map(str::to_owned),
        waited_ms: None,
    }
}

/// The file name of a task's result. The id must be validated first.
pub(crate) fn result_name(task_id: &str) -> String {
    format!("{task_id}{RESULT_SUFFIX}")
}

/// The workflow's folder if it and `results/` exist as plain folders;
/// `None` if any is missing; `unsafe_path` for a symlink. The id must be
/// validated first.
pub(crate) fn existing_workflow_dir(at: At<'_>, workflow_id: &str) -> Result<Option<Dir>> {
    let disk = at.disk();
    let Some(dir) = at.dir else { return Ok(None) };
    let Some(results) = disk.open_dir(dir, RESULTS_DIR)? else {
        return Ok(None);
    };
    let wf = disk.open_dir(&results, workflow_id)?;
    if wf.is_none() {
        no_case_twin(disk, &results, "workflow", workflow_id, "")?;
    }
    Ok(wf)
}

/// Creates the owner's folders down to the workflow's, refusing symlinks.
/// The id must be validated first.
pub(crate) fn ensure_workflow_dir(owner: &Owner, workflow_id: &str) -> Result<(Folders, Dir)> {
    let disk = owner.disk();
    let folders = owner.folders()?;
    let (results, _) = disk.ensure_dir(&folders.dir, RESULTS_DIR)?;
    let wf = match disk.open_dir(&results, workflow_id)? {
        Some(wf) => wf,
        None => {
            no_case_twin(disk, &results, "workflow", workflow_id, "")?;
            disk.ensure_dir(&results, workflow_id)?.0
        }
    };
    Ok((folders, wf))
}

/// The name of a workflow's waiters' mark. The id must be validated first.
fn waiter_name(workflow_id: &str) -> String {
    format!("{workflow_id}.wait")
}

/// Marks a wait for `workflow_id` as running: a shared lock on
/// `.memdir/waiters/<workflow_id>.wait`, held until the guard is dropped
/// (or the process dies: the kernel drops it), which makes the workflow
/// known to readers ([`waited_for`]). Creates `.memdir/waiters/` in the
/// owner's folder if missing, never the owner's folder: `None` when the
/// owner has no folder, or the mark could not be taken within the lock
/// timeout. The id must be validated first.
pub(crate) fn register_waiter(at: At<'_>, workflow_id: &str) -> Result<Option<Lock>> {
    let Some(dir) = at.dir else { return Ok(None) };
    let disk = at.disk();
    let (derived, _) = disk.ensure_dir(dir, DERIVED_DIR)?;
    let (waiters, _) = disk.ensure_dir(&derived, WAITERS_DIR)?;
    let deadline = Instant::now() + at.owner.lock_timeout(at.settings);
    disk.share(&waiters, &waiter_name(workflow_id), deadline)
}

/// Whether a wait for `workflow_id` is running (in any process): its mark
/// is held. Creates nothing. The id must be validated first.
pub(crate) fn waited_for(at: At<'_>, workflow_id: &str) -> Result<bool> {
    let disk = at.disk();
    let Some(dir) = at.dir else { return Ok(false) };
    let Some(derived) = disk.open_dir(dir, DERIVED_DIR)? else {
        return Ok(false);
    };
    let Some(waiters) = disk.open_dir(&derived, WAITERS_DIR)? else {
        return Ok(false);
    };
    disk.is_held(&waiters, &waiter_name(workflow_id))
}

/// The deepest folder that exists on the way to the workflow's: the
/// workflow's, else `results/`, else the owner's, else the root (`None`
/// without a root): the folder a wait watches for the next one to appear.
/// Opens, creates nothing. The id must be validated first.
pub(crate) fn nearest_dir(owner: &Owner, workflow_id: &str) -> Result<Option<Dir>> {
    let disk = owner.disk();
    let Some(root) = disk.open_root(owner.store().root())? else {
        return Ok(None);
    };
    let Some(dir) = disk.open_dir(&root, owner.id())? else {
        return Ok(Some(root));
    };
    let Some(results) = disk.open_dir(&dir, RESULTS_DIR)? else {
        return Ok(Some(dir));
    };
    Ok(Some(
        disk.open_dir(&results, workflow_id)?.unwrap_or(results),
    ))
}

/// Takes the workflow's lock, `.memdir/locks/<workflow_id>.lock`, waiting
/// as long as the owner's lock would; the call's deadline is checked once
/// it is held, as the owner's lock does (`Owner::begin_write`).
pub(crate) fn workflow_lock(at: At<'_>, derived: &Dir, workflow_id: &str) -> Result<Lock> {
    let disk = at.disk();
    let (locks, _) = disk.ensure_dir(derived, LOCKS_DIR)?;
    at.owner.begin_write(disk.lock(
        &locks,
        &format!("{workflow_id}.lock"),
        at.owner.lock_timeout(at.settings),
    ))
}

/// The workflow's final result: every step stored so far, from the
/// workflow's index (rebuilt from the result files, with a warning, when it
/// is missing, damaged, of an unknown version or out of step with the
/// files). [`Error::NotReady`] when the workflow has no results.
pub(crate) fn workflow_results(at: At<'_>, workflow_id: &str) -> Result<WorkflowResults> {
    validate_id("workflow", workflow_id)?;
    let Some(dir) = existing_workflow_dir(at, workflow_id)? else {
        return Err(not_ready(workflow_id, None));
    };
    let disk = at.disk();
    let limit = file_limit(at.settings);
    let mut loaded = index::load_steps(disk, &dir, workflow_id, limit)?;
    if loaded.rebuilt {
        // A put may be between its result and its index: look again under
        // the lock before repairing anything.
        let folders = at.owner.folders()?;
        let _lock = workflow_lock(at, &folders.derived, workflow_id)?;
        loaded = index::load_steps(disk, &dir, workflow_id, limit)?;
        if loaded.rebuilt
            && let Err(e) = index::write_index(disk, &dir, workflow_id, &loaded.steps)
        {
            loaded
                .warnings
                .push(format!("could not save the rebuilt index: {e}"));
        }
    }
    if loaded.steps.is_empty() {
        return Err(not_ready(workflow_id, None));
    }
    Ok(WorkflowResults {
        workflow_id: workflow_id.to_owned(),
        steps: loaded.steps,
        warnings: loaded.warnings,
    })
}

/// The text of every result of `workflow_id` on this machine (results that
/// are not UTF-8 as their lossy text), or `None` when the workflow has no
/// results here: the evidence a review weighs.
pub(crate) fn texts(at: At<'_>, workflow_id: &str) -> Result<Option<Vec<String>>> {
    if validate_id("workflow", workflow_id).is_err() {
        return Ok(None);
    }
    let Some(dir) = existing_workflow_dir(at, workflow_id)? else {
        return Ok(None);
    };
    let limit = file_limit(at.settings);
    let mut out = Vec::new();
    let mut names = at.disk().list(&dir)?;
    names.sort();
    for name in names {
        let Some(task) = name.strip_suffix(RESULT_SUFFIX) else {
            continue;
        };
        let Some(bytes) = at.disk().read_bytes(&dir, &name, limit)? else {
            continue;
        };
        let r = file::decode_result(&dir.join(&name), workflow_id, task, bytes)?;
        out.push(String::from_utf8_lossy(&r.content).into_owned());
    }
    Ok((!out.is_empty()).then_some(out))
}
