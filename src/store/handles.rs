//! An owner's features beside its curated stores, each a handle of its own:
//! [`Owner::runs`], [`Owner::reviews`], [`Owner::skills`],
//! [`Owner::results`] and [`Owner::hermes`]. A handle borrows the owner and
//! costs nothing; each method is one line into its feature.

use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::{
    DayOutcome, DueOutcome, HermesExport, HermesImport, ImportOptions, Owner, PutOptions,
    PutOutcome, ResultsGc, ResultsRemoved, ReviewHistory, ReviewOptions, ReviewReport,
    RoutineStatus, RunHit, RunRecord, RunView, SearchOptions, Skill, SkillOutcome, SkillRow,
    TaskResult, UndoReport, WorkflowResults, daylog, files, hermes, lookup, results, runs, skills,
};
use crate::error::Result;
use crate::review::io as review;

impl Owner {
    /// The owner's runs, after [`Owner::begin_run`]: finish one, read its
    /// record, search and list them.
    pub fn runs(&self) -> Runs<'_> {
        Runs(self)
    }

    /// The owner's daily review (docs/REVIEW.md) and its routine.
    pub fn reviews(&self) -> Reviews<'_> {
        Reviews(self)
    }

    /// The owner's learned skills (`skills/NAME/SKILL.md`).
    pub fn skills(&self) -> Skills<'_> {
        Skills(self)
    }

    /// SharedMemory: the results of the tasks of the owner's workflows.
    pub fn results(&self) -> Results<'_> {
        Results(self)
    }

    /// Moving in from, and out to, a Hermes-style memories folder.
    pub fn hermes(&self) -> Hermes<'_> {
        Hermes(self)
    }
}

/// An owner's runs ([`Owner::runs`]).
#[derive(Debug, Clone, Copy)]
pub struct Runs<'a>(&'a Owner);

impl Runs<'_> {
    /// Finishes a run begun earlier (by id): appends its line to the day log
    /// with the run's task key and id, and records the finish in the run
    /// record.
    pub fn finish(&self, run_id: &str, summary: &str) -> Result<DayOutcome> {
        daylog::finish_run(self.0, run_id, summary)
    }

    /// The newest run begun for the client's session `key` (`run begin
    /// --session`) and not finished, if any.
    pub fn open_of_session(&self, key: &str) -> Result<Option<RunRecord>> {
        crate::model::validate_id("session", key)?;
        runs::open_run_of_session(self.0, key)
    }

    /// The newest run begun for the client's session `key`, finished or
    /// not, if any.
    pub fn latest_of_session(&self, key: &str) -> Result<Option<RunRecord>> {
        crate::model::validate_id("session", key)?;
        runs::latest_run_of_session(self.0, key)
    }

    /// The record of a run begun earlier.
    pub fn record(&self, run_id: &str) -> Result<RunRecord> {
        files::runs::read_record(self.0.view()?.at(), run_id)
    }

    /// The text of a stored snapshot, by its SHA-256.
    pub fn stored_snapshot(&self, sha256: &str) -> Result<Option<String>> {
        files::runs::stored_snapshot(self.0.view()?.at(), sha256)
    }

    /// Ranks the journal's lines against `query` (BM25, as recall scores),
    /// best first; lines with no match are left out.
    pub fn search(&self, query: &str, options: &SearchOptions) -> Result<Vec<RunHit>> {
        lookup::search_runs(self.0, query, options)
    }

    /// The runs begun through memdir, newest first; with `open`, only
    /// those not finished.
    pub fn list(&self, open: bool) -> Result<Vec<RunRecord>> {
        lookup::list_runs(self.0, open)
    }

    /// One run: its record, journal lines, starting snapshot and steps.
    /// `run_id` may be a unique prefix of a begun run's id.
    pub fn get(&self, run_id: &str) -> Result<RunView> {
        lookup::get_run(self.0, run_id)
    }
}

/// An owner's daily review ([`Owner::reviews`]).
#[derive(Debug, Clone, Copy)]
pub struct Reviews<'a>(&'a Owner);

impl Reviews<'_> {
    /// Reviews the owner's memory (docs/REVIEW.md): merges duplicates,
    /// renews or archives expired facts, lifts yesterday's marked day
    /// lines, settles conflicts by their runs' results, lists unrecalled
    /// facts. With `dry_run`, only plans (with a diff of each file).
    pub fn run(&self, opts: &ReviewOptions) -> Result<ReviewReport> {
        review::run(self.0, opts, Utc::now())
    }

    /// [`Reviews::run`] as of `now`.
    pub fn run_at(&self, opts: &ReviewOptions, now: DateTime<Utc>) -> Result<ReviewReport> {
        review::run(self.0, opts, now)
    }

    /// Runs a review only when the routine (`review:` in memdir.yaml) says
    /// one is due: the last review the owner's journal records is older
    /// than the latest scheduled time. When none is due it reads
    /// memdir.yaml and episodes.md, takes no lock and writes nothing.
    pub fn due(&self, opts: &ReviewOptions) -> Result<DueOutcome> {
        review::run_due(self.0, opts, Utc::now())
    }

    /// [`Reviews::due`] as of `now`.
    pub fn due_at(&self, opts: &ReviewOptions, now: DateTime<Utc>) -> Result<DueOutcome> {
        review::run_due(self.0, opts, now)
    }

    /// The routine: its setting, whether a review is due, the last review.
    pub fn status(&self) -> Result<RoutineStatus> {
        review::status(self.0, Utc::now())
    }

    /// Pauses (`true`) or resumes the routine, in the owner's memdir.yaml.
    pub fn pause(&self, paused: bool) -> Result<RoutineStatus> {
        review::set_paused(self.0, paused, Utc::now())
    }

    /// Applies the plan a dry run showed (`memdir review apply ID`), with
    /// the dry run's id, if nothing it was planned on changed since
    /// (`review_changed` says what did; `review_not_found`: no such plan on
    /// this machine). The reviewer is not run again.
    pub fn apply(&self, id: &str) -> Result<ReviewReport> {
        review::apply_planned(self.0, id)
    }

    /// Undoes a review from the files alone: what it archived comes back,
    /// what it lifted goes; all or nothing unless `partial`
    /// (`review_changed` lists what changed since).
    pub fn undo(&self, id: &str, partial: bool) -> Result<UndoReport> {
        review::undo(self.0, id, partial)
    }

    /// Every review the owner's journal records, newest first, at most
    /// `limit` (default 20, at most 100), each with what the files still
    /// record of its changes (`review=ID`, `settled=ID`) and a diff of
    /// each changed entry. Takes no lock, writes nothing.
    pub fn history(&self, limit: Option<usize>) -> Result<ReviewHistory> {
        review::history(self.0, limit)
    }
}

/// An owner's learned skills ([`Owner::skills`]).
#[derive(Debug, Clone, Copy)]
pub struct Skills<'a>(&'a Owner);

impl Skills<'_> {
    /// Saves the skill `name` from `source` (markdown; a front matter of its
    /// own gives the description unless `description` does) as
    /// `skills/NAME/SKILL.md`. The body is scanned like a fact (threats and
    /// secrets refuse the save) and holds at most
    /// [`limits::SKILL_BODY_BYTES`](super::limits::SKILL_BODY_BYTES); an
    /// existing name needs `replace` (`skill_exists`).
    pub fn learn(
        &self,
        name: &str,
        source: &str,
        description: Option<&str>,
        replace: bool,
    ) -> Result<SkillOutcome> {
        skills::learn(self.0, name, source, description, replace)
    }

    /// The owner's learned skills, by name.
    pub fn list(&self) -> Result<Vec<SkillRow>> {
        skills::list(self.0)
    }

    /// One learned skill (`skill_not_found` when there is none).
    pub fn get(&self, name: &str) -> Result<Skill> {
        skills::show(self.0, name)
    }

    /// Forgets a learned skill (`skill_not_found` when there is none).
    pub fn forget(&self, name: &str) -> Result<SkillOutcome> {
        skills::forget(self.0, name)
    }
}

/// SharedMemory: an owner's workflow results ([`Owner::results`]).
#[derive(Debug, Clone, Copy)]
pub struct Results<'a>(&'a Owner);

impl Results<'_> {
    /// The largest result [`Results::put`] accepts, in bytes:
    /// `max_result_bytes` from `memdir.yaml` (the owner's over the root's),
    /// else [`DEFAULT_MAX_RESULT_BYTES`](super::DEFAULT_MAX_RESULT_BYTES).
    pub fn max_bytes(&self) -> Result<u64> {
        results::max_result_bytes(self.0)
    }

    /// Stores the result of `task_id` in `workflow_id` as `options` say:
    /// empty content refused unless [`PutOptions::allow_empty`], content
    /// that is not text refused when no type is named, content over the
    /// limit ([`PutOptions::limit`], else [`Results::max_bytes`]) refused
    /// (`result_too_large`). Results are immutable: the same content again
    /// is "already stored"; different content under the same ids is
    /// `result_exists` unless [`PutOptions::overwrite`]. The result file is
    /// durable before the workflow's index mentions it.
    pub fn put_with(
        &self,
        workflow_id: &str,
        task_id: &str,
        content: &[u8],
        options: &PutOptions,
    ) -> Result<PutOutcome> {
        results::put_with(self.0, workflow_id, task_id, content, options)
    }

    /// [`Results::put_with`] of content read from `content` to its end as it
    /// arrives (standard input, a file, an upload), never held whole in
    /// memory: it is taken into a spool through a bounded buffer, hashed,
    /// counted and checked on the way, scanned from the spool a piece at a
    /// time and written behind its metadata line (the same `.result` file).
    /// Past the limit it stops reading: `result_too_large` with `bytes` what
    /// was read so far. `source` names the reader in an I/O error.
    pub fn put_from(
        &self,
        workflow_id: &str,
        task_id: &str,
        content: &mut dyn std::io::Read,
        source: &str,
        options: &PutOptions,
    ) -> Result<PutOutcome> {
        results::put_from(self.0, (workflow_id, task_id), content, source, options)
    }

    /// [`Results::put_with`] of a result of the type named, with the
    /// owner's limit.
    pub fn put(
        &self,
        workflow_id: &str,
        task_id: &str,
        content: &[u8],
        content_type: &str,
        overwrite: bool,
    ) -> Result<PutOutcome> {
        let options = PutOptions {
            content_type: Some(content_type.to_owned()),
            overwrite,
            ..PutOptions::default()
        };
        results::put_with(self.0, workflow_id, task_id, content, &options)
    }

    /// The result of `task_id` in `workflow_id`; `not_ready` (an answer, not
    /// a failure) when it is not stored yet.
    pub fn get(&self, workflow_id: &str, task_id: &str) -> Result<TaskResult> {
        results::get(self.0, workflow_id, task_id)
    }

    /// The workflow's final result: every step stored so far, from its index
    /// (rebuilt from the result files, with a warning, when it is missing or
    /// out of step). `not_ready` when the workflow has no results.
    pub fn workflow(&self, workflow_id: &str) -> Result<WorkflowResults> {
        results::workflow(self.0, workflow_id)
    }

    /// Removes a task's result, or without a task every result of the
    /// workflow (under the workflow's lock); `result_not_found` when there
    /// is none.
    pub fn remove(&self, workflow_id: &str, task_id: Option<&str>) -> Result<ResultsRemoved> {
        results::remove(self.0, workflow_id, task_id)
    }

    /// Removes every workflow whose newest result is more than `days` days
    /// old (each under its lock).
    pub fn gc(&self, days: u32) -> Result<ResultsGc> {
        results::gc(self.0, days, Utc::now())
    }

    /// Waits up to `timeout` for the result of `task_id` in `workflow_id`
    /// (asleep on a watch of the nearest folder on the way to it; polling
    /// where none can be set up), making the workflow known to readers while
    /// it waits and creating no folder of results. When the timeout passes
    /// first: `not_ready` for a workflow something else knows,
    /// `result_not_found` for one nothing knows.
    pub fn wait(&self, workflow_id: &str, task_id: &str, timeout: Duration) -> Result<TaskResult> {
        results::wait(self.0, workflow_id, task_id, timeout)
    }
}

/// Hermes-style memories folders ([`Owner::hermes`]).
#[derive(Debug, Clone, Copy)]
pub struct Hermes<'a>(&'a Owner);

impl Hermes<'_> {
    /// Imports a Hermes-style memories folder (`MEMORY.md`, `USER.md`,
    /// entries separated by a line holding only `§`) into this owner's
    /// stores through the write path of `add`: each file all or none (or
    /// what fits, with `partial`); entries already stored are skipped.
    pub fn import(&self, dir: &Path, opts: ImportOptions) -> Result<HermesImport> {
        hermes::import(self.0, dir, opts)
    }

    /// Writes this owner's live entries to `dir` as a Hermes-style
    /// memories folder; an existing file is replaced only with `force`.
    pub fn export(&self, dir: &Path, force: bool, dry_run: bool) -> Result<HermesExport> {
        hermes::export(self.0, dir, force, dry_run)
    }
}
