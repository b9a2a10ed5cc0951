//! Where results live: the paths of the owner's `results/` folder, a
//! workflow's folder and a result file; creating those folders (refusing
//! symlinks, durably); and the per-workflow lock,
//! `.memdir/locks/<workflow_id>.lock`.

use std::path::PathBuf;

use super::{RESULT_SUFFIX, RESULTS_DIR};
use crate::error::Result;
use crate::fs;
use crate::lock::{self, OwnerLock};
use crate::store::Owner;

impl<'s> Owner<'s> {
    /// The owner's folder of results.
    pub(super) fn results_dir(&self) -> PathBuf {
        self.dir().join(RESULTS_DIR)
    }

    /// A workflow's folder. The id must be validated first.
    pub(super) fn workflow_dir(&self, workflow_id: &str) -> PathBuf {
        self.results_dir().join(workflow_id)
    }

    /// The file of a task's result. Ids must be validated first.
    pub(super) fn result_path(&self, workflow_id: &str, task_id: &str) -> PathBuf {
        self.workflow_dir(workflow_id)
            .join(format!("{task_id}{RESULT_SUFFIX}"))
    }

    /// The workflow's folder if it and its parents exist as plain folders;
    /// `None` if any is missing; `unsafe_path` for a symlink.
    pub(super) fn existing_workflow_dir(&self, workflow_id: &str) -> Result<Option<PathBuf>> {
        let io = self.io();
        for dir in [self.dir().to_owned(), self.results_dir()] {
            if !fs::plain_dir_exists(io, &dir)? {
                return Ok(None);
            }
        }
        let wf = self.workflow_dir(workflow_id);
        Ok(fs::plain_dir_exists(io, &wf)?.then_some(wf))
    }

    /// Creates the owner's folders down to the workflow's, refusing symlinks.
    pub(super) fn ensure_workflow_dir(&self, workflow_id: &str) -> Result<PathBuf> {
        self.ensure_dirs()?;
        self.ensure_plain_dir(&self.results_dir())?;
        let wf = self.workflow_dir(workflow_id);
        self.ensure_plain_dir(&wf)?;
        Ok(wf)
    }

    /// Takes the workflow's lock, `.memdir/locks/<workflow_id>.lock`, waiting
    /// as long as the owner's lock would (`Owner::lock_timeout`).
    pub(super) fn workflow_lock(&self, workflow_id: &str) -> Result<OwnerLock> {
        let locks = self.ensure_dirs()?.join("locks");
        self.ensure_plain_dir(&locks)?;
        lock::acquire(
            &locks.join(format!("{workflow_id}.lock")),
            self.lock_timeout()?,
        )
    }
}
