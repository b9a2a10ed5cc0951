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

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::fs;
use crate::id::validate_id;
use crate::lock::{self, OwnerLock};
use crate::store::{DEFAULT_LOCK_TIMEOUT, Owner};

/// Largest result stored by default: 16 MiB.
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

/// How often [`Owner::wait_result`] looks again where it cannot watch the folder.
const POLL_INTERVAL: Duration = Duration::from_millis(200);

/// Longest content type accepted, in bytes.
const MAX_CONTENT_TYPE_LEN: usize = 255;

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

/// The first line of a `.result` file (field order is the on-disk order).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    v: u32,
    workflow_id: String,
    task_id: String,
    content_type: String,
    created_at: String,
    sha256: String,
    bytes: u64,
}

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
struct Loaded {
    steps: Vec<ResultStep>,
    warnings: Vec<String>,
    rebuilt: bool,
}

fn not_ready(workflow_id: &str, task_id: Option<&str>) -> Error {
    Error::NotReady {
        workflow_id: workflow_id.to_owned(),
        task_id: task_id.map(str::to_owned),
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn check_content_type(content_type: &str) -> Result<()> {
    let ok = !content_type.is_empty()
        && content_type.len() <= MAX_CONTENT_TYPE_LEN
        && content_type.bytes().all(|b| (0x20..0x7f).contains(&b));
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidRequest(format!(
            "invalid content type {content_type:?}: use 1-{MAX_CONTENT_TYPE_LEN} printable ASCII characters, such as text/plain"
        )))
    }
}

fn corrupt(path: &Path, message: impl Into<String>) -> Error {
    Error::InvalidConfig {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// The bytes of a `.result` file: the metadata line, `\n`, the content.
fn encode_result(meta: &ResultMeta, content: &[u8]) -> Result<Vec<u8>> {
    let header = Header {
        v: RESULT_FORMAT_VERSION,
        workflow_id: meta.workflow_id.clone(),
        task_id: meta.task_id.clone(),
        content_type: meta.content_type.clone(),
        created_at: meta.created_at.clone(),
        sha256: meta.sha256.clone(),
        bytes: meta.bytes,
    };
    let mut out = serde_json::to_vec(&header).map_err(|e| Error::InvalidRequest(e.to_string()))?;
    out.reserve(content.len() + 1);
    out.push(b'\n');
    out.extend_from_slice(content);
    Ok(out)
}

/// Parses and checks a `.result` file read from `path`, which must hold the
/// result of (`workflow_id`, `task_id`).
fn decode_result(
    path: &Path,
    workflow_id: &str,
    task_id: &str,
    mut bytes: Vec<u8>,
) -> Result<TaskResult> {
    let Some(nl) = bytes.iter().position(|&b| b == b'\n') else {
        return Err(corrupt(path, "result file: no metadata line"));
    };
    let header: Header = serde_json::from_slice(&bytes[..nl])
        .map_err(|e| corrupt(path, format!("result file: bad metadata line: {e}")))?;
    if header.v != RESULT_FORMAT_VERSION {
        return Err(corrupt(
            path,
            format!("result file: unknown format version {}", header.v),
        ));
    }
    if header.workflow_id != workflow_id || header.task_id != task_id {
        return Err(corrupt(
            path,
            format!(
                "result file: holds {}/{}, not {workflow_id}/{task_id}",
                header.workflow_id, header.task_id
            ),
        ));
    }
    let content = bytes.split_off(nl + 1);
    if content.len() as u64 != header.bytes {
        return Err(corrupt(
            path,
            format!(
                "result file: {} content bytes, the metadata says {}",
                content.len(),
                header.bytes
            ),
        ));
    }
    let sha = sha256_hex(&content);
    if sha != header.sha256 {
        return Err(corrupt(
            path,
            format!(
                "result file: content SHA-256 {sha} does not match the metadata's {}",
                header.sha256
            ),
        ));
    }
    Ok(TaskResult {
        content,
        content_type: header.content_type,
        workflow_id: header.workflow_id,
        task_id: header.task_id,
        created_at: header.created_at,
        sha256: header.sha256,
        bytes: header.bytes,
    })
}

fn step_of(meta: &ResultMeta) -> ResultStep {
    ResultStep {
        task_id: meta.task_id.clone(),
        content_type: meta.content_type.clone(),
        created_at: meta.created_at.clone(),
        sha256: meta.sha256.clone(),
        bytes: meta.bytes,
    }
}

fn sort_steps(steps: &mut [ResultStep]) {
    steps.sort_by(|a, b| {
        a.created_at
            .cmp(&b.created_at)
            .then_with(|| a.task_id.cmp(&b.task_id))
    });
}

impl<'s> Owner<'s> {
    fn results_dir(&self) -> PathBuf {
        self.dir().join(RESULTS_DIR)
    }

    fn workflow_dir(&self, workflow_id: &str) -> PathBuf {
        self.results_dir().join(workflow_id)
    }

    /// The file of a task's result. Ids must be validated first.
    fn result_path(&self, workflow_id: &str, task_id: &str) -> PathBuf {
        self.workflow_dir(workflow_id)
            .join(format!("{task_id}{RESULT_SUFFIX}"))
    }

    /// The workflow's folder if it and its parents exist as plain folders;
    /// `None` if any is missing; `unsafe_path` for a symlink.
    fn existing_workflow_dir(&self, workflow_id: &str) -> Result<Option<PathBuf>> {
        let io = self.io();
        for dir in [self.dir().to_owned(), self.results_dir()] {
            if !fs::plain_dir_exists(io, &dir)? {
                return Ok(None);
            }
        }
        let wf = self.workflow_dir(workflow_id);
        Ok(fs::plain_dir_exists(io, &wf)?.then_some(wf))
    }

    /// Creates `dir` (whose parent is a checked plain folder) if missing,
    /// refusing a symlink, and syncs the parent so the new folder is durable.
    fn ensure_plain_dir(&self, dir: &Path) -> Result<()> {
        let io = self.io();
        if fs::plain_dir_exists(io, dir)? {
            return Ok(());
        }
        io.create_dir_all(dir)
            .map_err(Error::io(dir, "create folder"))?;
        fs::plain_dir_exists(io, dir)?;
        if let Some(parent) = dir.parent() {
            io.sync_dir(parent)
                .map_err(Error::io(parent, "fsync folder"))?;
        }
        Ok(())
    }

    /// Creates the owner's folders down to the workflow's, refusing symlinks.
    fn ensure_workflow_dir(&self, workflow_id: &str) -> Result<PathBuf> {
        self.ensure_dirs()?;
        self.ensure_plain_dir(&self.results_dir())?;
        let wf = self.workflow_dir(workflow_id);
        self.ensure_plain_dir(&wf)?;
        Ok(wf)
    }

    /// Takes the workflow's lock, `.memdir/locks/<workflow_id>.lock`.
    fn workflow_lock(&self, workflow_id: &str) -> Result<OwnerLock> {
        let locks = self.ensure_dirs()?.join("locks");
        self.ensure_plain_dir(&locks)?;
        let timeout = self
            .settings()?
            .lock_timeout_ms
            .map_or(DEFAULT_LOCK_TIMEOUT, Duration::from_millis);
        lock::acquire(&locks.join(format!("{workflow_id}.lock")), timeout)
    }

    /// The task ids of the `.result` files in a workflow's folder, sorted.
    fn result_files(&self, dir: &Path) -> Result<BTreeSet<String>> {
        let names = self
            .io()
            .read_dir_names(dir)
            .map_err(Error::io(dir, "list folder"))?;
        Ok(names
            .into_iter()
            .filter_map(|n| {
                let task = n.strip_suffix(RESULT_SUFFIX)?;
                validate_id("task", task).ok()?;
                Some(task.to_owned())
            })
            .collect())
    }

    fn read_index(&self, dir: &Path, workflow_id: &str) -> Result<IndexState> {
        let path = dir.join(RESULT_INDEX_FILE);
        let Some(bytes) = fs::stable_read(self.io(), &path)? else {
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
    fn load_steps(&self, dir: &Path, workflow_id: &str) -> Result<Loaded> {
        let files = self.result_files(dir)?;
        let index_path = dir.join(RESULT_INDEX_FILE);
        let why = match self.read_index(dir, workflow_id)? {
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
            let path = dir.join(format!("{task}{RESULT_SUFFIX}"));
            let read = fs::stable_read(self.io(), &path).and_then(|b| match b {
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

    fn write_index(&self, dir: &Path, workflow_id: &str, steps: &[ResultStep]) -> Result<()> {
        let index = Index {
            version: RESULT_INDEX_VERSION,
            workflow_id: workflow_id.to_owned(),
            results: steps.to_vec(),
        };
        let mut bytes =
            serde_json::to_vec_pretty(&index).map_err(|e| Error::InvalidRequest(e.to_string()))?;
        bytes.push(b'\n');
        fs::write_atomic(
            self.io(),
            &self.store.poison,
            &dir.join(RESULT_INDEX_FILE),
            &bytes,
        )
    }

    /// Stores the result of `task_id` in `workflow_id`, refusing content over
    /// [`DEFAULT_MAX_RESULT_BYTES`]. See [`Owner::put_result_with_limit`].
    pub fn put_result(
        &self,
        workflow_id: &str,
        task_id: &str,
        content: &[u8],
        content_type: &str,
        overwrite: bool,
    ) -> Result<PutOutcome> {
        self.put_result_with_limit(
            workflow_id,
            task_id,
            content,
            content_type,
            overwrite,
            DEFAULT_MAX_RESULT_BYTES,
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

    /// Waits on notifications from a watcher of `dir`; polls if none can be set up.
    fn wait_watching(
        &self,
        dir: &Path,
        workflow_id: &str,
        task_id: &str,
        deadline: Instant,
    ) -> Result<TaskResult> {
        use notify::Watcher;
        let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
        let mut watcher = match notify::recommended_watcher(tx) {
            Ok(w) => w,
            Err(_) => return self.wait_polling(workflow_id, task_id, deadline),
        };
        if watcher
            .watch(dir, notify::RecursiveMode::NonRecursive)
            .is_err()
        {
            return self.wait_polling(workflow_id, task_id, deadline);
        }
        loop {
            // Once right after the watch is set up (a put may have landed
            // before it), then after every event.
            match self.get_result(workflow_id, task_id) {
                Err(Error::NotReady { .. }) => {}
                other => return other,
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(not_ready(workflow_id, Some(task_id)));
            }
            match rx.recv_timeout(left) {
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    // One last look: the answer at the deadline.
                    return self.get_result(workflow_id, task_id);
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return self.wait_polling(workflow_id, task_id, deadline);
                }
            }
        }
    }

    /// Looks for the result every [`POLL_INTERVAL`] until `deadline`.
    fn wait_polling(
        &self,
        workflow_id: &str,
        task_id: &str,
        deadline: Instant,
    ) -> Result<TaskResult> {
        loop {
            match self.get_result(workflow_id, task_id) {
                Err(Error::NotReady { .. }) => {}
                other => return other,
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(not_ready(workflow_id, Some(task_id)));
            }
            std::thread::sleep(left.min(POLL_INTERVAL));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::faulty::FaultyIo;
    use crate::store::Store;
    use std::sync::Arc;

    fn store() -> (tempfile::TempDir, Store) {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        (d, s)
    }

    fn index_of(d: &Path, wf: &str) -> serde_json::Value {
        let p = d.join("o/results").join(wf).join("index.json");
        serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
    }

    #[test]
    fn put_get_round_trip_and_file_format() {
        let (d, s) = store();
        let o = s.owner("o").unwrap();
        let content = b"line one\n\xff\x00binary";
        let put = o
            .put_result("wf", "t1", content, "application/octet-stream", false)
            .unwrap();
        assert_eq!(put.status, PutStatus::Stored);
        assert!(put.warnings.is_empty());
        let got = o.get_result("wf", "t1").unwrap();
        assert_eq!(got.content, content);
        assert_eq!(got.meta(), put.result);
        assert_eq!(got.bytes, content.len() as u64);
        assert_eq!(got.sha256, sha256_hex(content));
        assert!(
            got.created_at.ends_with('Z') && got.created_at.len() == 27,
            "{}",
            got.created_at
        );
        let raw = std::fs::read(d.path().join("o/results/wf/t1.result")).unwrap();
        let nl = raw.iter().position(|&b| b == b'\n').unwrap();
        let header: serde_json::Value = serde_json::from_slice(&raw[..nl]).unwrap();
        let keys: Vec<&String> = header.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 7);
        assert!(
            std::str::from_utf8(&raw[..nl])
                .unwrap()
                .starts_with(r#"{"v":1,"workflow_id":"wf","task_id":"t1","content_type""#)
        );
        assert_eq!(&raw[nl + 1..], content);
        let idx = index_of(d.path(), "wf");
        assert_eq!(idx["version"], 1);
        assert_eq!(idx["workflow_id"], "wf");
        assert_eq!(idx["results"][0]["task_id"], "t1");
        assert!(d.path().join("o/.memdir/locks/wf.lock").is_file());
    }

    #[test]
    fn not_ready_until_put() {
        let (d, s) = store();
        let o = s.owner("o").unwrap();
        let e = o.get_result("wf", "t").unwrap_err();
        assert!(
            matches!(&e, Error::NotReady { task_id: Some(t), .. } if t == "t"),
            "{e:?}"
        );
        assert_eq!(o.workflow_results("wf").unwrap_err().code(), "not_ready");
        // Reads create nothing.
        assert!(!d.path().join("o").exists());
        o.put_result("wf", "a", b"x", "text/plain", false).unwrap();
        assert_eq!(o.get_result("wf", "b").unwrap_err().code(), "not_ready");
        assert_eq!(o.get_result("wf2", "a").unwrap_err().code(), "not_ready");
    }

    #[test]
    fn immutability_and_overwrite() {
        let (d, s) = store();
        let o = s.owner("o").unwrap();
        let first = o
            .put_result("wf", "t", b"one", "text/plain", false)
            .unwrap();
        let again = o
            .put_result("wf", "t", b"one", "text/plain", false)
            .unwrap();
        assert_eq!(again.status, PutStatus::AlreadyStored);
        assert_eq!(again.result, first.result);
        let e = o
            .put_result("wf", "t", b"two", "text/plain", false)
            .unwrap_err();
        assert_eq!(e.code(), "result_exists");
        // A different content type is a different result too.
        let e = o
            .put_result("wf", "t", b"one", "text/markdown", false)
            .unwrap_err();
        assert_eq!(e.code(), "result_exists");
        assert_eq!(o.get_result("wf", "t").unwrap().content, b"one");
        let over = o.put_result("wf", "t", b"two", "text/plain", true).unwrap();
        assert_eq!(over.status, PutStatus::Overwritten);
        assert_eq!(o.get_result("wf", "t").unwrap().content, b"two");
        let steps = o.workflow_results("wf").unwrap();
        assert_eq!(steps.steps.len(), 1);
        assert_eq!(steps.steps[0].sha256, sha256_hex(b"two"));
        assert!(steps.warnings.is_empty());
        assert_eq!(
            index_of(d.path(), "wf")["results"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn limit_and_content_type_are_checked_first() {
        let (d, s) = store();
        let o = s.owner("o").unwrap();
        let e = o
            .put_result_with_limit("wf", "t", b"12345", "text/plain", false, 4)
            .unwrap_err();
        assert!(
            matches!(e, Error::ResultTooLarge { bytes: 5, limit: 4 }),
            "{e:?}"
        );
        assert!(
            o.put_result_with_limit("wf", "t", b"1234", "text/plain", false, 4)
                .is_ok()
        );
        for bad in ["", "text/plain\n", &"x".repeat(256)] {
            let e = o.put_result("wf", "u", b"x", bad, false).unwrap_err();
            assert_eq!(e.code(), "invalid_request", "{bad:?}");
        }
        assert!(!d.path().join("o/results/wf/u.result").exists());
    }

    #[test]
    fn bad_ids_build_no_path() {
        let (d, s) = store();
        let o = s.owner("o").unwrap();
        for bad in ["..", ".", "a/b", "/etc", "", "a\\b", ".hidden"] {
            assert_eq!(
                o.put_result(bad, "t", b"x", "text/plain", false)
                    .unwrap_err()
                    .code(),
                "invalid_id"
            );
            assert_eq!(
                o.put_result("wf", bad, b"x", "text/plain", false)
                    .unwrap_err()
                    .code(),
                "invalid_id"
            );
            assert_eq!(o.get_result(bad, "t").unwrap_err().code(), "invalid_id");
            assert_eq!(o.get_result("wf", bad).unwrap_err().code(), "invalid_id");
            assert_eq!(o.workflow_results(bad).unwrap_err().code(), "invalid_id");
            assert_eq!(
                o.wait_result("wf", bad, Duration::from_millis(1))
                    .unwrap_err()
                    .code(),
                "invalid_id"
            );
        }
        assert!(!d.path().join("o").exists());
    }

    #[test]
    fn steps_are_ordered_and_the_index_is_rebuilt() {
        let (d, s) = store();
        let o = s.owner("o").unwrap();
        for t in ["c", "a", "b"] {
            o.put_result("wf", t, t.as_bytes(), "text/plain", false)
                .unwrap();
        }
        let want = o.workflow_results("wf").unwrap();
        let order: Vec<&str> = want.steps.iter().map(|s| s.task_id.as_str()).collect();
        assert_eq!(order, ["c", "a", "b"]);
        let idx = d.path().join("o/results/wf/index.json");
        let cases: [(&str, Option<&[u8]>); 5] = [
            ("missing", None),
            ("not a valid index", Some(b"{nope")),
            (
                "unknown index version 9",
                Some(br#"{"version":9,"workflow_id":"wf","results":[]}"#),
            ),
            (
                "out of step",
                Some(br#"{"version":1,"workflow_id":"wf","results":[]}"#),
            ),
            (
                "indexes workflow",
                Some(br#"{"version":1,"workflow_id":"zz","results":[]}"#),
            ),
        ];
        for (why, bytes) in cases {
            match bytes {
                None => std::fs::remove_file(&idx).unwrap(),
                Some(b) => std::fs::write(&idx, b).unwrap(),
            }
            let got = o.workflow_results("wf").unwrap();
            assert_eq!(got.steps, want.steps, "{why}");
            assert_eq!(got.warnings.len(), 1, "{why}: {:?}", got.warnings);
            assert!(got.warnings[0].contains(why), "{why}: {:?}", got.warnings);
            // Repaired on disk: the next access is quiet.
            assert!(
                o.workflow_results("wf").unwrap().warnings.is_empty(),
                "{why}"
            );
        }
        // A put also repairs (and reports) a stale index.
        std::fs::remove_file(&idx).unwrap();
        let put = o.put_result("wf", "d", b"d", "text/plain", false).unwrap();
        assert_eq!(put.warnings.len(), 1, "{:?}", put.warnings);
        assert_eq!(o.workflow_results("wf").unwrap().steps.len(), 4);
    }

    #[test]
    fn damaged_result_files_are_named() {
        let (d, s) = store();
        let o = s.owner("o").unwrap();
        o.put_result("wf", "t", b"hello", "text/plain", false)
            .unwrap();
        o.put_result("wf", "u", b"world", "text/plain", false)
            .unwrap();
        let p = d.path().join("o/results/wf/t.result");
        let raw = std::fs::read(&p).unwrap();
        let mut flipped = raw.clone();
        *flipped.last_mut().unwrap() ^= 1;
        let mut short = raw.clone();
        short.pop();
        let moved = String::from_utf8(raw.clone())
            .unwrap()
            .replace("\"task_id\":\"t\"", "\"task_id\":\"u\"");
        for (bad, what) in [
            (flipped, "SHA-256"),
            (short, "content bytes"),
            (b"no newline".to_vec(), "no metadata line"),
            (moved.into_bytes(), "holds wf/u"),
        ] {
            std::fs::write(&p, &bad).unwrap();
            let e = o.get_result("wf", "t").unwrap_err();
            assert_eq!(e.code(), "invalid_config");
            assert!(e.to_string().contains(&*p.to_string_lossy()), "{e}");
            assert!(e.to_string().contains(what), "{e}");
            // The same ids cannot be put over a damaged file without overwrite.
            assert_eq!(
                o.put_result("wf", "t", b"x", "text/plain", false)
                    .unwrap_err()
                    .code(),
                "invalid_config"
            );
        }
        // A rebuild skips the damaged file with a warning naming it.
        std::fs::remove_file(d.path().join("o/results/wf/index.json")).unwrap();
        let w = o.workflow_results("wf").unwrap();
        assert_eq!(w.steps.len(), 1);
        assert!(
            w.warnings.iter().any(|x| x.contains("t.result")),
            "{:?}",
            w.warnings
        );
        o.put_result("wf", "t", b"fixed", "text/plain", true)
            .unwrap();
        assert_eq!(o.get_result("wf", "t").unwrap().content, b"fixed");
        assert_eq!(o.workflow_results("wf").unwrap().steps.len(), 2);
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_results_or_workflow_folders_are_refused() {
        let (d, s) = store();
        let elsewhere = tempfile::tempdir().unwrap();
        let o = s.owner("o").unwrap();
        o.put_result("wf", "t", b"x", "text/plain", false).unwrap();
        std::fs::create_dir_all(elsewhere.path().join("wf2")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path().join("wf2"), d.path().join("o/results/wf2"))
            .unwrap();
        assert_eq!(
            o.put_result("wf2", "t", b"x", "text/plain", false)
                .unwrap_err()
                .code(),
            "unsafe_path"
        );
        assert_eq!(o.get_result("wf2", "t").unwrap_err().code(), "unsafe_path");
        assert_eq!(o.workflow_results("wf2").unwrap_err().code(), "unsafe_path");
        let p = s.owner("p").unwrap();
        std::fs::create_dir_all(d.path().join("p")).unwrap();
        std::os::unix::fs::symlink(d.path().join("o/results"), d.path().join("p/results")).unwrap();
        assert_eq!(p.get_result("wf", "t").unwrap_err().code(), "unsafe_path");
        assert_eq!(
            p.put_result("wf", "t", b"y", "text/plain", false)
                .unwrap_err()
                .code(),
            "unsafe_path"
        );
        assert_eq!(
            p.wait_result("wf", "t", Duration::from_millis(1))
                .unwrap_err()
                .code(),
            "unsafe_path"
        );
        assert_eq!(
            std::fs::read_dir(elsewhere.path().join("wf2"))
                .unwrap()
                .count(),
            0
        );
        // A symlinked result file is refused too.
        std::fs::write(elsewhere.path().join("secret"), "x").unwrap();
        std::os::unix::fs::symlink(
            elsewhere.path().join("secret"),
            d.path().join("o/results/wf/s.result"),
        )
        .unwrap();
        assert_eq!(o.get_result("wf", "s").unwrap_err().code(), "unsafe_path");
    }

    #[test]
    fn owners_are_isolated() {
        let (_d, s) = store();
        let a = s.owner("a").unwrap();
        let b = s.owner("b").unwrap();
        a.put_result("wf", "t", b"for a", "text/plain", false)
            .unwrap();
        assert_eq!(b.get_result("wf", "t").unwrap_err().code(), "not_ready");
        assert_eq!(b.workflow_results("wf").unwrap_err().code(), "not_ready");
        b.put_result("wf", "t", b"for b", "text/plain", false)
            .unwrap();
        assert_eq!(a.get_result("wf", "t").unwrap().content, b"for a");
        assert_eq!(b.get_result("wf", "t").unwrap().content, b"for b");
    }

    #[test]
    fn every_failing_step_leaves_no_indexed_result_without_its_content() {
        // Steps: folders, lock folder, result (create, write, sync, rename,
        // folder sync), index (the same five).
        for fail_at in 1..=20 {
            let (d, s) = store();
            s.owner("o")
                .unwrap()
                .put_result("wf", "old", b"old", "text/plain", false)
                .unwrap();
            let s = s.with_io(Arc::new(FaultyIo::new(fail_at)));
            let o = s.owner("o").unwrap();
            let r = o.put_result("wf", "new", b"new content", "text/plain", false);
            // Whatever happened, a fresh handle sees a consistent workflow.
            let fresh = Store::open(d.path()).unwrap();
            let f = fresh.owner("o").unwrap();
            let listing = f.workflow_results("wf").unwrap();
            for step in &listing.steps {
                let got = f.get_result("wf", &step.task_id).unwrap();
                assert_eq!(got.sha256, step.sha256, "step {fail_at}");
            }
            let has_new = listing.steps.iter().any(|s| s.task_id == "new");
            match r {
                Ok(_) => assert!(has_new, "step {fail_at}"),
                Err(e) => {
                    if has_new {
                        assert_eq!(f.get_result("wf", "new").unwrap().content, b"new content");
                    }
                    assert!(!e.to_string().is_empty());
                }
            }
            let temps = std::fs::read_dir(d.path().join("o/results/wf"))
                .unwrap()
                .filter(|e| {
                    e.as_ref()
                        .unwrap()
                        .file_name()
                        .to_string_lossy()
                        .ends_with(fs::TEMP_SUFFIX)
                })
                .count();
            assert_eq!(temps, 0, "step {fail_at}");
        }
    }

    #[test]
    fn interrupted_overwrite_never_leaves_the_old_metadata_indexed() {
        let (d, s) = store();
        let o = s.owner("o").unwrap();
        o.put_result("wf", "t", b"old", "text/plain", false)
            .unwrap();
        o.put_result("wf", "u", b"other", "text/plain", false)
            .unwrap();
        // Fail the rename of the new result (after the index dropped it).
        for fail_at in 1..=15 {
            let s2 = Store::open(d.path())
                .unwrap()
                .with_io(Arc::new(FaultyIo::new(fail_at)));
            let _ = s2.owner("o").unwrap().put_result(
                "wf",
                "t",
                format!("new{fail_at}").as_bytes(),
                "text/plain",
                true,
            );
            let listing = o.workflow_results("wf").unwrap();
            let on_disk = o.get_result("wf", "t").unwrap();
            let step = listing.steps.iter().find(|s| s.task_id == "t").unwrap();
            assert_eq!(step.sha256, on_disk.sha256, "step {fail_at}");
        }
    }

    #[test]
    fn wait_returns_at_once_when_stored_and_not_ready_after_timeout() {
        let (_d, s) = store();
        let o = s.owner("o").unwrap();
        let t = Instant::now();
        let e = o
            .wait_result("wf", "t", Duration::from_millis(150))
            .unwrap_err();
        assert_eq!(e.code(), "not_ready");
        assert!(t.elapsed() >= Duration::from_millis(150));
        assert!(t.elapsed() < Duration::from_secs(3));
        o.put_result("wf", "t", b"x", "text/plain", false).unwrap();
        assert_eq!(
            o.wait_result("wf", "t", Duration::ZERO).unwrap().content,
            b"x"
        );
    }

    #[test]
    fn wait_is_woken_by_a_put_from_another_thread() {
        let (d, s) = store();
        let root = d.path().to_owned();
        let putter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            let s = Store::open(&root).unwrap();
            s.owner("o")
                .unwrap()
                .put_result("wf", "t", b"late", "text/plain", false)
                .unwrap();
            Instant::now()
        });
        let o = s.owner("o").unwrap();
        let got = o.wait_result("wf", "t", Duration::from_secs(20)).unwrap();
        let woke = Instant::now();
        let put_done = putter.join().unwrap();
        assert_eq!(got.content, b"late");
        assert!(woke.saturating_duration_since(put_done) < Duration::from_secs(2));
    }

    #[test]
    fn polling_fallback_finds_the_result() {
        let (d, s) = store();
        let root = d.path().to_owned();
        let putter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            let s = Store::open(&root).unwrap();
            s.owner("o")
                .unwrap()
                .put_result("wf", "t", b"polled", "text/plain", false)
                .unwrap();
        });
        let o = s.owner("o").unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let got = o.wait_polling("wf", "t", deadline).unwrap();
        putter.join().unwrap();
        assert_eq!(got.content, b"polled");
        let e = o.wait_polling("wf", "missing", Instant::now()).unwrap_err();
        assert_eq!(e.code(), "not_ready");
    }
}
