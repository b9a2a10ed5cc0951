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
//! With `results_quota_bytes`, a put that would take the owner's stored
//! results past it is [`Error::ResultsQuotaExceeded`] (`quota`).
//!
//! The files are `files::results` (the `.result` format, the index, the
//! folders and the workflow lock); this module holds the operations, and
//! `wait` the waiting (notify watcher, polling fallback).
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let root = tempfile::tempdir()?;
//! let store = memdir::Store::open(root.path())?;
//! let me = store.owner("agt_docs")?;
//! // A workflow memdir does not know, then one a run produces.
//! assert_eq!(me.results().get("wf-1", "fetch").unwrap_err().code().as_str(), "result_not_found");
//! me.begin_run(memdir::RunOptions::default().workflow("wf-1"))?;
//! assert_eq!(me.results().get("wf-1", "fetch").unwrap_err().code().as_str(), "not_ready");
//!
//! let put = me.results().put("wf-1", "fetch", b"42 pages", "text/plain", false)?;
//! assert_eq!(put.status.message(), "stored");
//! let got = me.results().get("wf-1", "fetch")?;
//! assert_eq!(got.content, b"42 pages");
//! assert_eq!(me.results().workflow("wf-1")?.steps[0].task_id, "fetch");
//! # Ok(())
//! # }
//! ```

mod quota;
mod remove;
mod stream;
#[cfg(test)]
mod tests;
mod wait;

pub use remove::{ResultsGc, ResultsRemoved};
pub(crate) use remove::{gc, remove};
pub(crate) use stream::put_from;

use std::time::{Duration, Instant};

use serde::Serialize;

use super::files::results::RESULT_SUFFIX;
use super::files::results::file::{
    check_content_type, decode_result, decode_with_verdict, encode_head, encode_result, sha256_hex,
};
use super::files::results::index::{self, sort_steps, step_of};
use super::files::results::verdict::{self, FlaggedSpan};
use super::files::results::{
    ContentKind, DEFAULT_MAX_RESULT_BYTES, ResultMeta, TaskResult, WorkflowResults,
    ensure_workflow_dir, existing_workflow_dir, file_limit, not_ready, register_waiter,
    result_name, waited_for, workflow_lock,
};
use super::owner::{At, Owner, no_case_twin};
use crate::error::{Error, Result};
use crate::model::validate_id;

/// What a put did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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

/// The answer of [`Results::put`](super::Results::put).
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

/// How a put takes its content: the type it is stored under and what it
/// may be. The default is a put of text: no type named (the content must
/// then be text, stored as `text/plain`), no overwrite, empty content
/// refused, the owner's `max_result_bytes`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PutOptions {
    /// The content's MIME type; `None`: `text/plain`, for content that is
    /// text (valid UTF-8 without a NUL byte), else [`Error::ResultNotText`].
    pub content_type: Option<String>,
    /// Replace a different result stored under the same ids.
    pub overwrite: bool,
    /// Store empty content; without it a put of 0 bytes is
    /// [`Error::ResultEmpty`] (an empty standard input is more often a
    /// producer that failed than a result).
    pub allow_empty: bool,
    /// The largest content accepted, in bytes; `None`: the owner's
    /// `max_result_bytes`.
    pub limit: Option<u64>,
}

/// The content type a put stores content of `kind` under, after the checks
/// the options ask for: empty content refused unless allowed; without a
/// type, content that is not text refused (stored as `text/plain`
/// otherwise).
///
/// `bytes` is the content's length.
pub(super) fn accepted_type(
    (workflow_id, task_id): (&str, &str),
    bytes: u64,
    kind: ContentKind,
    options: &PutOptions,
) -> Result<String> {
    if bytes == 0 && !options.allow_empty {
        return Err(Error::ResultEmpty {
            workflow_id: workflow_id.to_owned(),
            task_id: task_id.to_owned(),
        });
    }
    match (&options.content_type, kind) {
        (Some(t), _) => Ok(t.clone()),
        (None, ContentKind::Text) => Ok(DEFAULT_CONTENT_TYPE.to_owned()),
        (None, ContentKind::Binary { reason, offset }) => Err(Error::ResultNotText {
            workflow_id: workflow_id.to_owned(),
            task_id: task_id.to_owned(),
            reason: reason.as_str(),
            offset: usize::try_from(offset).unwrap_or(usize::MAX),
        }),
    }
}

/// The type of a result put without one: it is text.
pub const DEFAULT_CONTENT_TYPE: &str = "text/plain";

/// The ids checked (bad ones are refused before any file, even
/// memdir.yaml, is read), then the limit a put of them has: `options`'
/// own, else the owner's.
pub(super) fn checked_limit(
    owner: &Owner,
    (workflow_id, task_id): (&str, &str),
    options: &PutOptions,
) -> Result<u64> {
    validate_id("workflow", workflow_id)?;
    validate_id("task", task_id)?;
    match options.limit {
        Some(l) => Ok(l),
        None => max_result_bytes(owner),
    }
}

/// Stores a result under `options` (see [`PutOptions`]): the checks of the
/// content, then [`put`].
pub(crate) fn put_with(
    owner: &Owner,
    workflow_id: &str,
    task_id: &str,
    content: &[u8],
    options: &PutOptions,
) -> Result<PutOutcome> {
    let limit = checked_limit(owner, (workflow_id, task_id), options)?;
    if content.len() as u64 > limit {
        return Err(Error::ResultTooLarge {
            bytes: content.len() as u64,
            limit,
        });
    }
    let kind = ContentKind::of(content);
    let content_type = accepted_type((workflow_id, task_id), content.len() as u64, kind, options)?;
    put(
        owner,
        workflow_id,
        task_id,
        (content, kind),
        &content_type,
        options.overwrite,
        limit,
    )
}

/// The largest result a put accepts, in bytes: `max_result_bytes` from
/// `memdir.yaml` (the owner's over the root's), else
/// [`DEFAULT_MAX_RESULT_BYTES`].
pub(crate) fn max_result_bytes(owner: &Owner) -> Result<u64> {
    let view = owner.view()?;
    Ok(view
        .at()
        .settings
        .max_result_bytes
        .unwrap_or(DEFAULT_MAX_RESULT_BYTES))
}

/// Stores the result of `task_id` in `workflow_id`, refusing content over
/// `max_bytes` with [`Error::ResultTooLarge`].
///
/// `kind` is the content's [`ContentKind`] (`ContentKind::of(content)`):
/// text is scanned, binary content is not read as text.
///
/// Results are immutable: the same content and content type again is
/// [`PutStatus::AlreadyStored`] (nothing written); different content under
/// the same ids is refused with [`Error::ResultExists`] unless `overwrite`.
/// The result file is durable before the workflow's index mentions it.
/// Puts to one workflow are serialised by its lock; puts to different
/// workflows do not meet.
pub(crate) fn put(
    owner: &Owner,
    workflow_id: &str,
    task_id: &str,
    (content, kind): (&[u8], ContentKind),
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
    owner.disk().check()?;
    owner.writable(owner.view()?.at().settings)?;
    // Results are stored as given; the verdict travels with them.
    let flagged = verdict::spans_of(kind, content);
    let received = Content {
        body: Body::Bytes(content),
        sha256: sha256_hex(content),
        bytes,
        flagged,
    };
    commit(
        owner,
        (workflow_id, task_id),
        received,
        content_type,
        overwrite,
    )
}

/// Where the content a put stores is: in memory, or in a spool.
pub(super) enum Body<'a> {
    /// The bytes themselves.
    Bytes(&'a [u8]),
    /// Taken as it arrived (see `files::results::upload`).
    Spool(&'a crate::disk::Spool),
}

/// Content checked and scanned, ready to store.
pub(super) struct Content<'a> {
    pub(super) body: Body<'a>,
    pub(super) sha256: String,
    pub(super) bytes: u64,
    pub(super) flagged: Vec<FlaggedSpan>,
}

/// The steps every put shares once its content is checked: the workflow's
/// folder and lock, the rules of an earlier result (already stored, exists,
/// overwrite), the result file written durably, then the index.
pub(super) fn commit(
    owner: &Owner,
    (workflow_id, task_id): (&str, &str),
    content: Content<'_>,
    content_type: &str,
    overwrite: bool,
) -> Result<PutOutcome> {
    let disk = owner.disk();
    let Content {
        body,
        sha256,
        bytes,
        flagged,
    } = content;
    let mut warnings = secret_warnings(workflow_id, task_id, &flagged);
    let (folders, dir) = ensure_workflow_dir(owner, workflow_id)?;
    let view = owner.view()?;
    let _lock = workflow_lock(view.at(), &folders.derived, workflow_id)?;
    disk.sweep_temps(&dir);
    let name = result_name(task_id);
    let path = dir.join(&name);
    let limit = file_limit(view.at().settings);
    let existing = disk
        .read_bytes(&dir, &name, limit)?
        .map(|b| decode_result(&path, workflow_id, task_id, b));
    if existing.is_none() {
        no_case_twin(disk, &dir, "task", task_id, RESULT_SUFFIX)?;
    }
    let mut loaded = index::load_steps(disk, &dir, workflow_id, limit)?;
    let status = match existing {
        None => PutStatus::Stored,
        Some(Ok(old)) if old.sha256 == sha256 && old.content_type == content_type => {
            if loaded.rebuilt {
                index::write_index(disk, &dir, workflow_id, &loaded.steps)?;
            }
            warnings.extend(loaded.warnings);
            return Ok(PutOutcome {
                status: PutStatus::AlreadyStored,
                result: old.meta(),
                warnings,
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
        created_at: crate::model::time::micros(&chrono::Utc::now()),
        sha256,
        bytes,
    };
    loaded.steps.retain(|s| s.task_id != task_id);
    quota::check(view.at(), workflow_id, &loaded.steps, bytes)?;
    if status == PutStatus::Overwritten {
        // Before replacing a result, drop it from the index: a crash before
        // the final index write then leaves the index out of step with the
        // files, which the next access notices and repairs, rather than an
        // index naming the old content.
        index::write_index(disk, &dir, workflow_id, &loaded.steps)?;
    }
    let sealed = owner
        .store()
        .scan_key()
        .map(|key| verdict::seal(&key, workflow_id, task_id, &meta.sha256, flagged));
    match body {
        Body::Bytes(content) => {
            disk.write_atomic(&dir, &name, &encode_result(&meta, content, sealed)?)?
        }
        Body::Spool(spool) => {
            disk.write_atomic_spooled(&dir, &name, &encode_head(&meta, sealed, 0)?, spool)?
        }
    }
    loaded.steps.push(step_of(&meta));
    sort_steps(&mut loaded.steps);
    index::write_index(disk, &dir, workflow_id, &loaded.steps)?;
    warnings.extend(loaded.warnings);
    Ok(PutOutcome {
        status,
        result: meta,
        warnings,
    })
}

/// A warning for each span of a result that looks like a secret: the put
/// stores it as given, and says so.
fn secret_warnings(workflow_id: &str, task_id: &str, flagged: &[FlaggedSpan]) -> Vec<String> {
    flagged
        .iter()
        .filter(|s| s.is_secret())
        .map(|s| {
            format!(
                "{workflow_id}/{task_id} line {} (bytes {}..{}) looks like a secret ({}); \
                 the result is stored as given: remove it if the secret should not be kept",
                s.line,
                s.start,
                s.end,
                s.patterns.join(", ")
            )
        })
        .collect()
}

/// The result of `task_id` in `workflow_id`, read from its file and checked
/// against its metadata (SHA-256 and length).
///
/// [`Error::NotReady`] when it is not stored (yet): an answer, not a
/// failure. A damaged file is an error naming its path.
pub(crate) fn get(owner: &Owner, workflow_id: &str, task_id: &str) -> Result<TaskResult> {
    validate_id("workflow", workflow_id)?;
    validate_id("task", task_id)?;
    let view = owner.view()?;
    let Some(dir) = existing_workflow_dir(view.at(), workflow_id)? else {
        return Err(pending(view.at(), workflow_id, Some(task_id))?);
    };
    let name = result_name(task_id);
    match owner
        .disk()
        .read_bytes(&dir, &name, file_limit(view.at().settings))?
    {
        Some(bytes) => {
            let (mut r, stored) =
                decode_with_verdict(&dir.join(&name), workflow_id, task_id, bytes)?;
            r.flagged = match r.kind {
                // Not read as text, whatever a stored verdict says.
                ContentKind::Binary { .. } => Vec::new(),
                ContentKind::Text => {
                    let key = owner.store().scan_key();
                    verdict::open(
                        key.as_ref(),
                        (workflow_id, task_id),
                        (&r.sha256, r.bytes),
                        stored,
                    )
                    // Not vouched for here (made elsewhere, before a
                    // scanner change, without a key, or forged): scanned
                    // afresh.
                    .unwrap_or_else(|| verdict::scan_content(&r.content))
                }
            };
            Ok(r)
        }
        None => Err(not_ready(workflow_id, Some(task_id))),
    }
}

/// The workflow's final result: every step stored so far (see
/// `files::results::workflow_results`).
pub(crate) fn workflow(owner: &Owner, workflow_id: &str) -> Result<WorkflowResults> {
    validate_id("workflow", workflow_id)?;
    let view = owner.view()?;
    match super::files::results::workflow_results(view.at(), workflow_id) {
        Err(Error::NotReady { .. }) => Err(pending(view.at(), workflow_id, None)?),
        other => other,
    }
}

/// The answer for a result not stored: `not_ready` for a workflow memdir
/// knows (a run began with its id or names it, a result is stored under it,
/// or a `wait` for it is running in some process), else `result_not_found`.
fn pending(at: At<'_>, workflow_id: &str, task_id: Option<&str>) -> Result<Error> {
    let known = existing_workflow_dir(at, workflow_id)?.is_some()
        || super::files::runs::workflow_known(at, workflow_id)?
        || waited_for(at, workflow_id)?;
    Ok(if known {
        not_ready(workflow_id, task_id)
    } else {
        Error::ResultNotFound {
            workflow_id: workflow_id.to_owned(),
            task_id: task_id.map(str::to_owned),
        }
    })
}

/// Waits up to `timeout` for the result of `task_id` in `workflow_id`.
///
/// While it waits, the workflow is known to readers (a mark under
/// `.memdir/waiters/`, see `files::results::register_waiter`); it creates no
/// other folder, neither the owner's nor the workflow's. It sleeps in the
/// kernel on the nearest existing folder on the way to the result, woken only
/// when a name appears there (see `wait`); where no folder can be watched, it
/// looks every 200 ms. At the timeout it answers as a get would with no wait
/// running: [`Error::NotReady`] (with the time waited) for a known workflow,
/// [`Error::ResultNotFound`] for one nothing knows.
pub(crate) fn wait(
    owner: &Owner,
    workflow_id: &str,
    task_id: &str,
    timeout: Duration,
) -> Result<TaskResult> {
    let deadline = Instant::now() + timeout;
    match get(owner, workflow_id, task_id) {
        Err(Error::NotReady { .. } | Error::ResultNotFound { .. }) => {}
        other => return other,
    }
    let view = owner.view()?;
    // A wait that cannot leave its mark (a read-only folder) still waits.
    let mark = register_waiter(view.at(), workflow_id).ok().flatten();
    if let Some(answer) = wait::watching(owner, workflow_id, task_id, deadline) {
        return answer;
    }
    drop(mark);
    match get(owner, workflow_id, task_id) {
        Err(Error::NotReady { .. }) => Err(wait::timed_out(workflow_id, task_id, timeout)),
        other => other,
    }
}
