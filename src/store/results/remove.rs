//! Removing results: one task's, a workflow's, or every workflow whose
//! newest result is older than some days (`memdir results gc`). Results are
//! run data, not memory: removing them archives nothing. Each workflow is
//! changed under its lock, so a put or a rebuild of its index never meets a
//! removal half done.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::super::files::results::index::{self, Loaded};
use super::super::files::results::{
    RESULT_INDEX_FILE, RESULT_SUFFIX, RESULTS_DIR, existing_workflow_dir, file_limit, result_name,
    workflow_lock,
};
use super::super::owner::Owner;
use crate::disk::{Dir, Disk};
use crate::error::{Error, Result};
use crate::model::validate_id;

/// What removing a workflow's results did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ResultsRemoved {
    /// The workflow id.
    pub workflow_id: String,
    /// The tasks whose results were removed.
    pub removed: Vec<String>,
    /// The content bytes those results held.
    pub bytes: u64,
    /// The results of the workflow left.
    pub left: usize,
    /// Notes such as an index rebuilt from the result files.
    pub warnings: Vec<String>,
}

/// What `results gc` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ResultsGc {
    /// The age, in days, past which a workflow was removed.
    pub older_than_days: u32,
    /// Each workflow removed.
    pub workflows: Vec<ResultsRemoved>,
    /// The workflows kept (a result newer than the cut, or one that could
    /// not be read: see `warnings`).
    pub kept: usize,
    /// The content bytes removed in all.
    pub bytes: u64,
    /// Notes, such as a workflow skipped.
    pub warnings: Vec<String>,
}

/// Removes `task_id`'s result from `workflow_id`, or with no task every
/// result of the workflow and its folder. `result_not_found` when there is
/// nothing to remove.
pub(crate) fn remove(
    owner: &Owner,
    workflow_id: &str,
    task_id: Option<&str>,
) -> Result<ResultsRemoved> {
    remove_unless_newer(owner, workflow_id, task_id, None)?.ok_or_else(|| Error::ResultNotFound {
        workflow_id: workflow_id.to_owned(),
        task_id: task_id.map(str::to_owned),
    })
}

/// The newest `created_at` of `steps`.
fn newest(steps: &[super::super::files::results::ResultStep]) -> Option<DateTime<Utc>> {
    steps
        .iter()
        .filter_map(|s| DateTime::parse_from_rfc3339(&s.created_at).ok())
        .map(|t| t.with_timezone(&Utc))
        .max()
}

/// [`remove`]; with `cut`, only when the workflow's newest result is older
/// than `cut` under the lock (`None`: kept, a put came meanwhile).
fn remove_unless_newer(
    owner: &Owner,
    workflow_id: &str,
    task_id: Option<&str>,
    cut: Option<DateTime<Utc>>,
) -> Result<Option<ResultsRemoved>> {
    validate_id("workflow", workflow_id)?;
    if let Some(t) = task_id {
        validate_id("task", t)?;
    }
    owner.disk().check()?;
    let view = owner.view()?;
    owner.writable(view.at().settings)?;
    let Some(dir) = existing_workflow_dir(view.at(), workflow_id)? else {
        return Ok(None);
    };
    let folders = owner.folders()?;
    let _lock = workflow_lock(view.at(), &folders.derived, workflow_id)?;
    let disk = owner.disk();
    let limit = file_limit(view.at().settings);
    let Loaded {
        mut steps,
        warnings,
        ..
    } = index::load_steps(disk, &dir, workflow_id, limit)?;
    if let Some(cut) = cut
        && newest(&steps).is_none_or(|t| t >= cut)
    {
        return Ok(None);
    }
    let gone: Vec<_> = match task_id {
        Some(t) => {
            if !disk.remove_file_durably(&dir, &result_name(t))? {
                return Ok(None);
            }
            let (gone, kept) = steps.into_iter().partition(|s| s.task_id == t);
            steps = kept;
            gone
        }
        None => {
            if steps.is_empty() && disk.list(&dir)?.is_empty() {
                return Ok(None);
            }
            for s in &steps {
                disk.remove_file_durably(&dir, &result_name(&s.task_id))?;
            }
            std::mem::take(&mut steps)
        }
    };
    if steps.is_empty() {
        drop_workflow(disk, &dir, &view, workflow_id)?;
    } else {
        index::write_index(disk, &dir, workflow_id, &steps)?;
    }
    Ok(Some(ResultsRemoved {
        workflow_id: workflow_id.to_owned(),
        bytes: gone.iter().map(|s| s.bytes).sum(),
        removed: gone.into_iter().map(|s| s.task_id).collect(),
        left: steps.len(),
        warnings,
    }))
}

/// Removes what is left of a workflow with no results: its index, result
/// files the index did not list (damaged ones), leftover temp files, and
/// its folder when that leaves it empty.
fn drop_workflow(
    disk: &Disk,
    dir: &Dir,
    view: &super::super::owner::View<'_>,
    workflow_id: &str,
) -> Result<()> {
    disk.sweep_temps(dir);
    for name in disk.list(dir)? {
        if name == RESULT_INDEX_FILE || name.ends_with(RESULT_SUFFIX) {
            disk.remove_file_durably(dir, &name)?;
        }
    }
    if let Some(root) = view.at().dir
        && let Some(results) = disk.open_dir(root, RESULTS_DIR)?
    {
        disk.remove_empty_dir(&results, workflow_id)?;
    }
    Ok(())
}

/// Removes every workflow whose newest result was stored more than `days`
/// days before `now`, each under its lock. A workflow whose results cannot
/// be read is kept, with a warning.
pub(crate) fn gc(owner: &Owner, days: u32, now: DateTime<Utc>) -> Result<ResultsGc> {
    let cut = now - Duration::days(i64::from(days));
    let view = owner.view()?;
    owner.writable(view.at().settings)?;
    let disk = owner.disk();
    let mut out = ResultsGc {
        older_than_days: days,
        workflows: Vec::new(),
        kept: 0,
        bytes: 0,
        warnings: Vec::new(),
    };
    let Some(root) = view.at().dir else {
        return Ok(out);
    };
    let Some(results) = disk.open_dir(root, RESULTS_DIR)? else {
        return Ok(out);
    };
    let mut names = disk.list(&results)?;
    names.sort();
    let limit = file_limit(view.at().settings);
    for wf in names {
        if validate_id("workflow", &wf).is_err() {
            out.warnings
                .push(format!("skipped {RESULTS_DIR}/{wf}: not a workflow id"));
            continue;
        }
        let newest = existing_workflow_dir(view.at(), &wf).and_then(|d| match d {
            Some(dir) => Ok(newest(&index::load_steps(disk, &dir, &wf, limit)?.steps)),
            None => Ok(None),
        });
        match newest {
            Ok(Some(t)) if t < cut => {}
            Ok(_) => {
                out.kept += 1;
                continue;
            }
            Err(e) => {
                out.warnings.push(format!("kept {RESULTS_DIR}/{wf}: {e}"));
                out.kept += 1;
                continue;
            }
        }
        match remove_unless_newer(owner, &wf, None, Some(cut)) {
            Ok(Some(r)) => {
                out.bytes += r.bytes;
                out.workflows.push(r);
            }
            Ok(None) => out.kept += 1,
            Err(e) => {
                out.warnings.push(format!("kept {RESULTS_DIR}/{wf}: {e}"));
                out.kept += 1;
            }
        }
    }
    Ok(out)
}
