//! Runs: a frozen snapshot taken at the start of a run, stored
//! content-addressed, and the handles that hold it.
//!
//! A [`Run`] may write memory (through [`Run::memory`]); a [`Delegate`] taken
//! from it can only read: its type has no write methods, so "one writer per
//! run" holds at compile time.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::env::is_live;
use crate::error::{Error, Result};
use crate::fs;
use crate::id::validate_id;
use crate::scope::Scope;
use crate::snapshot::{self, Snapshot, StoreInput};
use crate::store::{DERIVED_DIR, Owner, StoreView};

/// Options for [`Owner::begin_run`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunOptions {
    /// The task key the run works on, such as `PIN-812`.
    pub task: Option<String>,
}

impl RunOptions {
    /// Options with a task key.
    pub fn task(task: impl Into<String>) -> RunOptions {
        RunOptions {
            task: Some(task.into()),
        }
    }
}

/// What is recorded about a run when it begins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The run id: unique, sortable by start time, safe as a file name.
    pub run_id: String,
    /// The owner.
    pub owner: String,
    /// Start time, RFC 3339 UTC.
    pub started_at: String,
    /// The SHA-256 of the snapshot the run began with.
    pub snapshot_sha256: String,
    /// The task key, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// Finish time, RFC 3339 UTC, once the run has finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
}

/// A run in progress: its id and frozen snapshot, and the right to write memory.
#[derive(Debug, Clone)]
pub struct Run<'s> {
    owner: Owner<'s>,
    record: RunRecord,
    snapshot: Arc<Snapshot>,
}

/// A delegate (child) of a run: reads the snapshot and the memory, never writes.
#[derive(Debug, Clone)]
pub struct Delegate<'s> {
    owner: Owner<'s>,
    run_id: String,
    snapshot: Arc<Snapshot>,
}

impl<'s> Run<'s> {
    /// The run id.
    pub fn id(&self) -> &str {
        &self.record.run_id
    }

    /// The snapshot taken when the run began; writes never change it.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The run's record.
    pub fn record(&self) -> &RunRecord {
        &self.record
    }

    /// The owner's memory, for this run's writes (durable at once; seen by
    /// runs begun later, not by this run's snapshot).
    pub fn memory(&self) -> &Owner<'s> {
        &self.owner
    }

    /// A read-only handle for a delegate (fan-out child) of this run.
    ///
    /// ```compile_fail
    /// # fn f(run: &memdir::Run<'_>) {
    /// let child = run.delegate();
    /// child.add(memdir::Scope::Memory, "children never write"); // no such method
    /// # }
    /// ```
    pub fn delegate(&self) -> Delegate<'s> {
        Delegate {
            owner: self.owner.clone(),
            run_id: self.record.run_id.clone(),
            snapshot: Arc::clone(&self.snapshot),
        }
    }
}

impl Delegate<'_> {
    /// The parent run's id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The parent run's frozen snapshot.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The current entries of one store (read-only).
    pub fn show(&self, scope: Scope) -> Result<StoreView> {
        self.owner.show(scope)
    }
}

static RUN_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh run id: `run-YYYYMMDDTHHMMSS.ffffffZ-xxxxxxxx`, sortable by start
/// time, unique across processes (the suffix hashes pid, clock and a counter).
fn new_run_id(now: chrono::DateTime<chrono::Utc>) -> String {
    let mut h = Sha256::new();
    h.update(std::process::id().to_le_bytes());
    h.update(now.timestamp_nanos_opt().unwrap_or_default().to_le_bytes());
    h.update(RUN_COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    h.update(format!("{:?}", std::thread::current().id()).as_bytes());
    let suffix = hex::encode(h.finalize());
    format!("run-{}-{}", now.format("%Y%m%dT%H%M%S%.6fZ"), &suffix[..8])
}

impl<'s> Owner<'s> {
    /// Renders the owner's snapshot of USER.md and MEMORY.md as of now.
    pub fn snapshot(&self) -> Result<Snapshot> {
        self.snapshot_at(chrono::Utc::now())
    }

    /// The snapshot as of `now`: facts expired by then are left out (the only
    /// input besides the files).
    pub fn snapshot_at(&self, now: chrono::DateTime<chrono::Utc>) -> Result<Snapshot> {
        let settings = self.settings()?;
        let mut loaded = Vec::new();
        for scope in Scope::ALL {
            // Ids are needed only for flagged entries (render computes them).
            let l = self.load_with(scope, false)?;
            let limit = self.budget(scope, &settings, &l.doc, &l.path)?.limit;
            loaded.push((scope, l, limit));
        }
        let inputs: Vec<StoreInput<'_>> = loaded
            .iter()
            .map(|(scope, l, limit)| StoreInput {
                scope: *scope,
                entries: l
                    .doc
                    .entries
                    .iter()
                    .filter(|e| is_live(e.meta.clone().map(|r| &l.src[r]), now))
                    .map(|e| (e.id.as_str(), e.text.as_str()))
                    .collect(),
                limit: *limit,
            })
            .collect();
        let mut scanner = self.cached_scanner();
        let findings: Vec<_> = inputs
            .iter()
            .map(|s| scanner.verdicts(&s.entries.iter().map(|(_, t)| *t).collect::<Vec<_>>()))
            .collect();
        let snap = snapshot::render_scanned(&inputs, &findings);
        self.store_scan_cache(scanner);
        Ok(snap)
    }

    fn snapshots_dir(&self) -> PathBuf {
        self.dir().join(DERIVED_DIR).join("snapshots")
    }

    fn runs_dir(&self) -> PathBuf {
        self.dir().join(DERIVED_DIR).join("runs")
    }

    /// Begins a run: takes the snapshot, stores it content-addressed under
    /// `.memdir/snapshots/<sha256>.md` (once), and records the run.
    pub fn begin_run(&self, options: RunOptions) -> Result<Run<'s>> {
        let snap = self.snapshot()?;
        self.store.poison.check()?;
        self.ensure_dirs()?;
        let io = self.io();
        let snaps = self.snapshots_dir();
        io.create_dir_all(&snaps)
            .map_err(Error::io(&snaps, "create folder"))?;
        let snap_path = snaps.join(format!("{}.md", snap.sha256));
        if fs::plain_file_meta(io, &snap_path)?.is_none() {
            fs::write_atomic(io, &self.store.poison, &snap_path, snap.text.as_bytes())?;
        }
        let now = chrono::Utc::now();
        let record = RunRecord {
            run_id: new_run_id(now),
            owner: self.id().to_owned(),
            started_at: now.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            snapshot_sha256: snap.sha256.clone(),
            task: options.task,
            finished_at: None,
        };
        if let Some(t) = &record.task {
            validate_id("task", t)?;
        }
        self.write_run_record(&record)?;
        let mut owner = self.clone();
        owner.run = Some((record.run_id.clone(), record.task.clone()));
        Ok(Run {
            owner,
            record,
            snapshot: Arc::new(snap),
        })
    }

    /// Writes a run's record durably.
    pub(crate) fn write_run_record(&self, record: &RunRecord) -> Result<()> {
        let io = self.io();
        let runs = self.runs_dir();
        io.create_dir_all(&runs)
            .map_err(Error::io(&runs, "create folder"))?;
        let bytes =
            serde_json::to_vec_pretty(record).map_err(|e| Error::InvalidRequest(e.to_string()))?;
        fs::write_atomic(
            io,
            &self.store.poison,
            &runs.join(format!("{}.json", record.run_id)),
            &bytes,
        )
    }

    /// The record of a run begun earlier.
    pub fn run_record(&self, run_id: &str) -> Result<RunRecord> {
        validate_id("run", run_id)?;
        let path = self.runs_dir().join(format!("{run_id}.json"));
        let bytes = fs::stable_read(self.io(), &path)?.ok_or_else(|| Error::RunNotFound {
            run_id: run_id.to_owned(),
        })?;
        serde_json::from_slice(&bytes).map_err(|e| Error::InvalidConfig {
            path,
            message: format!("run record: {e}"),
        })
    }

    /// The text of a stored snapshot, by its SHA-256.
    pub fn stored_snapshot(&self, sha256: &str) -> Result<Option<String>> {
        if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::InvalidId {
                kind: "snapshot",
                value: sha256.to_owned(),
            });
        }
        let path = self.snapshots_dir().join(format!("{sha256}.md"));
        match fs::stable_read(self.io(), &path)? {
            Some(b) => Ok(Some(fs::decode(&path, b)?)),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn run_ids_sort_and_are_safe() {
        let t = chrono::Utc::now();
        let a = new_run_id(t);
        let b = new_run_id(t + chrono::Duration::microseconds(1));
        assert!(a < b);
        assert_ne!(new_run_id(t), new_run_id(t));
        validate_id("run", &a).unwrap();
    }

    #[test]
    fn snapshot_is_frozen_for_the_run_and_fresh_for_the_next() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        let o = s.owner("agt").unwrap();
        o.add(Scope::Memory, "before the run").unwrap();
        let run = o.begin_run(RunOptions::default()).unwrap();
        let twin = o.begin_run(RunOptions::default()).unwrap();
        let before = run.snapshot().clone();
        run.memory()
            .add(Scope::Memory, "learned during the run")
            .unwrap();
        twin.memory().add(Scope::User, "twin wrote this").unwrap();
        assert_eq!(run.snapshot(), &before);
        assert!(!twin.snapshot().text.contains("learned during the run"));
        assert!(!run.snapshot().text.contains("twin wrote this"));
        assert_eq!(run.delegate().snapshot(), &before);
        let next = o.begin_run(RunOptions::default()).unwrap();
        assert!(next.snapshot().text.contains("learned during the run"));
        assert!(next.snapshot().text.contains("twin wrote this"));
        // The record points at the stored snapshot.
        let rec = o.run_record(run.id()).unwrap();
        assert_eq!(rec.snapshot_sha256, before.sha256);
        assert_eq!(
            o.stored_snapshot(&rec.snapshot_sha256).unwrap().unwrap(),
            before.text
        );
        // Identical snapshots share one file.
        let files = std::fs::read_dir(d.path().join("agt/.memdir/snapshots"))
            .unwrap()
            .count();
        assert_eq!(files, 2);
    }
}
