//! SharedMemory: the task results of a run, stored under
//! (workflow id, task id) in the owner's folder.
//!
//! Each result is one self-describing file,
//! `<owner>/results/<workflow_id>/<task_id>.result`: a first line of JSON
//! metadata, `\n`, then the raw content bytes. It is written durably (temp
//! file, sync, rename, folder sync) before the workflow's derived index,
//! `results/<workflow_id>/index.json`, mentions it, so a reader never sees an
//! indexed result whose content is missing or partial. The index can be
//! deleted at any time: the next access rebuilds it from the `.result` files,
//! with a warning. Puts to one workflow are serialised by a per-workflow lock
//! file, `<owner>/.memdir/locks/<workflow_id>.lock`; nothing owner-wide is
//! rewritten, so a put costs the same however many results the owner holds.
//!
//! The largest result accepted is `max_result_bytes` from `memdir.yaml` (the
//! owner's over the root's), else [`DEFAULT_MAX_RESULT_BYTES`]. A damaged
//! result file is [`Error::ResultCorrupt`], naming it; it is never repaired.
//!
//! The code is split by what it holds: `file` (the `.result` format, pure),
//! `index` (the workflow's `index.json`: read, check, rebuild, write),
//! `layout` (paths, folders, the workflow lock) and `wait` (notify watcher,
//! polling fallback); this module keeps the types and the public methods.
//!
//! ```
//! # fn main() -> memdir::Result<()> {
//! # let root = tempfile::tempdir().map_err(|e| memdir::Error::InvalidRequest(e.to_string()))?;
//! let store = memdir::Store::open(root.path())?;
//! let me = store.owner("agt_docs")?;
//! assert_eq!(me.get_result("wf-1", "fetch").unwrap_err().code(), "not_ready");
//!
//! let put = me.put_result("wf-1", "fetch", b"42 pages", "text/plain", false)?;
//! assert_eq!(put.status.message(), "stored");
//! let got = me.get_result("wf-1", "fetch")?;
//! assert_eq!(got.content, b"42 pages");
//! assert_eq!(me.workflow_results("wf-1")?.steps[0].task_id, "fetch");
//! # Ok(())
//! # }
//! ```

mod file;
mod index;
mod layout;
#[cfg(test)]
mod tests;
mod wait;

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::fs;
use crate::id::validate_id;
use crate::store::Owner;
use file::{check_content_type, decode_result, encode_result, sha256_hex};
use index::{sort_steps, step_of};

/// Largest result stored by default: 16 MiB (`max_result_bytes` in
/// `memdir.yaml` sets another).
pub const DEFAULT_MAX_RESULT_BYTES: u64 = 16 * 1024 * 1024;

/// Version of the `.result` file's metadata line (`"v"`).
pub const RESULT_FORMAT_VERSION: u32 = 1;

/// Version of a workflow's `index.json` (`"version"`).
pub const RESULT_INDEX_VERSION: u32 = 1;

/// The owner's folder of results, one sub-folder per workflow.
pub const RESULTS_DIR: &str = "results";

/// The suffix of a result file: `<task_id>.result`.
pub const RESULT_SUFFIX: &str = ".result";

/// The name of a workflow's derived index file.
pub const RESULT_INDEX_FILE: &str = "index.json";

/// What is known of a stored result, without its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    pub sha256: String,
    /// Length of the content in bytes.
    pub bytes: u64,
}

/// A stored result with its content, as [`Owner::get_result`] answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskResult {
    /// The content, byte for byte as it was put.
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

/// What a put did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PutStatus {
    /// The result is new.
    Stored,
    /// The same content (and content type) was already stored: nothing changed.
    AlreadyStored,
    /// A different result was replaced, as the caller asked.
    Overwritten,
}

impl PutStatus {
    /// The status as the CLI prints it: `stored`, `already stored`, `overwritten`.
    pub fn message(self) -> &'static str {
        match self {
            PutStatus::Stored => "stored",
            PutStatus::AlreadyStored => "already stored",
            PutStatus::Overwritten => "overwritten",
        }
    }
}

/// The answer of [`Owner::put_result`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PutOutcome {
    /// Stored, already stored, or overwritten.
    pub status: PutStatus,
    /// The metadata of the result now stored (for "already stored": the
    /// earlier result's, with its original `created_at`).
    pub result: ResultMeta,
    /// Notes such as a workflow index rebuilt from the result files.
    pub warnings: Vec<String>,
}

/// One step (task result) of a workflow, as its index lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultStep {
    /// The task id.
    pub task_id: String,
    /// The result's MIME type.
    pub content_type: String,
    /// When it was stored: RFC 3339 UTC with microseconds.
    pub created_at: String,
    /// SHA-256 of the content, lowercase hex.
    pub sha256: String,
    /// Length of the content in bytes.
    pub bytes: u64,
}

/// A workflow's final result: the steps stored so far, as
/// [`Owner::workflow_results`] answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorkflowResults {
    /// The workflow id.
    pub workflow_id: String,
    /// Its results, ordered by `created_at`, then task id.
    pub steps: Vec<ResultStep>,
    /// Notes such as an index rebuilt from the result files.
    pub warnings: Vec<String>,
}

fn not_ready(workflow_id: &str, task_id: Option<&str>) -> Error {
    Error::NotReady {
        workflow_id: workflow_id.to_owned(),
        task_id: task_id.map(str::to_owned),
    }
}

impl<'s> Owner<'s> {
    /// The largest result [`Owner::put_result`] accepts, in bytes:
    /// `max_result_bytes` from `memdir.yaml` (the owner's over the root's),
    /// else [`DEFAULT_MAX_RESULT_BYTES`].
    pub fn max_result_bytes(&self) -> Result<u64> {
        Ok(self
            .settings()?
            .max_result_bytes
            .unwrap_or(DEFAULT_MAX_RESULT_BYTES))
    }

    /// Stores the result of `task_id` in `workflow_id`, refusing content over
    /// [`Owner::max_result_bytes`] (`max_result_bytes` in `memdir.yaml`, else
    /// [`DEFAULT_MAX_RESULT_BYTES`]). See [`Owner::put_result_with_limit`].
    pub fn put_result(
        &self,
        workflow_id: &str,
        task_id: &str,
        content: &[u8],
        content_type: &str,
        overwrite: bool,
    ) -> Result<PutOutcome> {
        // Bad ids are refused before any file (even memdir.yaml) is read.
        validate_id("workflow", workflow_id)?;
        validate_id("task", task_id)?;
        self.put_result_with_limit(
            workflow_id,
            task_id,
            content,
            content_type,
            overwrite,
            self.max_result_bytes()?,
        )
    }

    /// Stores the result of `task_id` in `workflow_id`, refusing content over
    /// `max_bytes` with [`Error::ResultTooLarge`].
    ///
    /// Results are immutable: the same content and content type again is
    /// [`PutStatus::AlreadyStored`] (nothing written); different content under
    /// the same ids is refused with [`Error::ResultExists`] unless `overwrite`.
    /// The result file is durable before the workflow's index mentions it.
    /// Puts to one workflow are serialised by its lock; puts to different
    /// workflows do not meet.
    pub fn put_result_with_limit(
        &self,
        workflow_id: &str,
        task_id: &str,
        content: &[u8],
        content_type: &str,
        overwrite: bool,
        max_bytes: u64,
    ) -> Result<PutOutcome> {
        validate_id("workflow", workflow_id)?;
        validate_id("task", task_id)?;
        let bytes = content.len() as u64;
        if bytes > max_bytes {
            return Err(Error::ResultTooLarge {
                bytes,
                limit: max_bytes,
            });
        }
        check_content_type(content_type)?;
        self.store.poison.check()?;
        let dir = self.ensure_workflow_dir(workflow_id)?;
        let _lock = self.workflow_lock(workflow_id)?;
        fs::sweep_temps(self.io(), &dir);
        let path = self.result_path(workflow_id, task_id);
        let sha256 = sha256_hex(content);
        let existing = fs::stable_read(self.io(), &path)?
            .map(|b| decode_result(&path, workflow_id, task_id, b));
        let mut loaded = self.load_steps(&dir, workflow_id)?;
        let status = match existing {
            None => PutStatus::Stored,
            Some(Ok(old)) if old.sha256 == sha256 && old.content_type == content_type => {
                if loaded.rebuilt {
                    self.write_index(&dir, workflow_id, &loaded.steps)?;
                }
                return Ok(PutOutcome {
                    status: PutStatus::AlreadyStored,
                    result: old.meta(),
                    warnings: loaded.warnings,
                });
            }
            Some(Ok(_)) | Some(Err(_)) if overwrite => PutStatus::Overwritten,
            Some(Ok(_)) => {
                return Err(Error::ResultExists {
                    workflow_id: workflow_id.to_owned(),
                    task_id: task_id.to_owned(),
                });
            }
            Some(Err(e)) => return Err(e),
        };
        let meta = ResultMeta {
            workflow_id: workflow_id.to_owned(),
            task_id: task_id.to_owned(),
            content_type: content_type.to_owned(),
            created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            sha256,
            bytes,
        };
        loaded.steps.retain(|s| s.task_id != task_id);
        if status == PutStatus::Overwritten {
            // Before replacing a result, drop it from the index: a crash
            // before the final index write then leaves the index out of
            // step with the files, which the next access notices and repairs,
            // rather than an index naming the old content.
            self.write_index(&dir, workflow_id, &loaded.steps)?;
        }
        let file = encode_result(&meta, content)?;
        fs::write_atomic(self.io(), &self.store.poison, &path, &file)?;
        loaded.steps.push(step_of(&meta));
        sort_steps(&mut loaded.steps);
        self.write_index(&dir, workflow_id, &loaded.steps)?;
        Ok(PutOutcome {
            status,
            result: meta,
            warnings: loaded.warnings,
        })
    }

    /// The result of `task_id` in `workflow_id`, read from its file and
    /// checked against its metadata (SHA-256 and length).
    ///
    /// [`Error::NotReady`] when it is not stored (yet): an answer, not a
    /// failure. A damaged file is an error naming its path.
    pub fn get_result(&self, workflow_id: &str, task_id: &str) -> Result<TaskResult> {
        validate_id("workflow", workflow_id)?;
        validate_id("task", task_id)?;
        if self.existing_workflow_dir(workflow_id)?.is_none() {
            return Err(not_ready(workflow_id, Some(task_id)));
        }
        let path = self.result_path(workflow_id, task_id);
        match fs::stable_read(self.io(), &path)? {
            Some(bytes) => decode_result(&path, workflow_id, task_id, bytes),
            None => Err(not_ready(workflow_id, Some(task_id))),
        }
    }

    /// The workflow's final result: every step stored so far, from the
    /// workflow's index (rebuilt from the result files, with a warning, when
    /// it is missing, damaged, of an unknown version or out of step with the
    /// files). [`Error::NotReady`] when the workflow has no results.
    pub fn workflow_results(&self, workflow_id: &str) -> Result<WorkflowResults> {
        validate_id("workflow", workflow_id)?;
        let Some(dir) = self.existing_workflow_dir(workflow_id)? else {
            return Err(not_ready(workflow_id, None));
        };
        let mut loaded = self.load_steps(&dir, workflow_id)?;
        if loaded.rebuilt {
            // A put may be between its result and its index: look again
            // under the lock before repairing anything.
            let _lock = self.workflow_lock(workflow_id)?;
            loaded = self.load_steps(&dir, workflow_id)?;
            if loaded.rebuilt
                && let Err(e) = self.write_index(&dir, workflow_id, &loaded.steps)
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

    /// Waits up to `timeout` for the result of `task_id` in `workflow_id`.
    ///
    /// Woken by file-system notifications on the workflow's folder (created
    /// if missing); where the folder cannot be watched, looks every 200 ms.
    /// [`Error::NotReady`] when the timeout passes first.
    pub fn wait_result(
        &self,
        workflow_id: &str,
        task_id: &str,
        timeout: Duration,
    ) -> Result<TaskResult> {
        let deadline = Instant::now() + timeout;
        match self.get_result(workflow_id, task_id) {
            Err(Error::NotReady { .. }) => {}
            other => return other,
        }
        let dir = self.ensure_workflow_dir(workflow_id)?;
        self.wait_watching(&dir, workflow_id, task_id, deadline)
    }
}
