//! The store: an owner's folder, read and edited under the owner's lock.
//!
//! Layers inside, top down:
//!
//! * this module: the public surface of [`Owner`], [`Run`] and
//!   [`Delegate`], each method one line into its feature;
//! * the features, side by side, none importing another: `curated` (show,
//!   write, batch), `lifecycle` (archive, veto, unarchive), `list`,
//!   `daylog`, `runs` (snapshot, begin), `lookup` (search runs, show one),
//!   `recall`, `results` (SharedMemory), `skills` (learned skills), `hermes`
//!   (import and export of Hermes-style memory folders), `merge_file` (git's merge driver,
//!   on three files anywhere: no owner);
//! * the shared steps they use: `write` (the write path of the curated
//!   stores), `files` (one module per file of an owner's folder) and
//!   `answers` (reads kept between calls, checked against their files);
//! * `owner` (the handle, and its folder opened for one operation: to read,
//!   or locked to edit) and `root` (the [`Store`]).

pub(crate) mod answers;
mod check;
mod curated;
mod daylog;
mod decide;
pub(crate) mod files;
mod handles;
mod hermes;
mod history;
pub mod keys;
mod learnings;
mod lifecycle;
pub mod limits;
mod list;
mod lookup;
mod memtool;
mod merge_file;
pub(crate) mod owner;
mod parse_cache;
mod pending;
mod recall;
mod replicas;
mod results;
pub(crate) mod root;
mod runs;
mod setup;
mod skills;
pub(crate) mod stamps;
mod sync;
#[cfg(test)]
mod tests;
mod watch;
pub(crate) mod write;

use chrono::{DateTime, Utc};

pub use crate::disk::MAX_FILE_BYTES;
pub use crate::git::MERGE_DRIVER;
pub use crate::model::{FactKind, Status};
pub use crate::review::io::{
    ChangeKind, DueOutcome, ReviewChange, ReviewHistory, ReviewHistoryEntry, ReviewOptions,
    ReviewReport, ReviewerRun, RoutineStatus, StillVetoed, UndoReport,
};
pub use check::{CheckReport, Finding, FindingKind, Severity};
pub use curated::{BatchOutcome, EntryView, Omitted, ScannedEntry, StoreView, WriteOutcome};
pub use daylog::DayOutcome;
pub use decide::{Decided, Decision, FileHashes, StoreFile};
pub use files::archive::ARCHIVE_FILE;
pub use files::episodes::{DayRow, EPISODES_FILE};
pub use files::learnings::{
    DEFAULT_LEARNINGS_BUDGET, LEARNINGS_DIR, LEARNINGS_FILE, LearningStatus, PROPOSALS_FILE,
};
pub use files::pending::{MAX_PENDING_WRITES, PENDING_FILE, PendingSource, PendingStatus};
pub use files::results::{
    ContentKind, DEFAULT_MAX_RESULT_BYTES, FlaggedSpan, NotText, RESULTS_DIR, ResultMeta,
    ResultStep, TaskResult, WorkflowResults,
};
pub use files::runs::{
    MAX_RECALL_BLOCK_BYTES, MAX_RECALL_QUERY_CHARS, MAX_RUN_RECALLS, RunRecall, RunRecord,
};
pub use files::skills::{MAX_DESCRIPTION_CHARS, SKILL_FILE, SKILLS_DIR};
pub use files::stats::FactStats;
pub use handles::{Hermes, Results, Reviews, Runs, Skills};
pub use hermes::{
    ExportedFile, HermesExport, HermesImport, ImportOptions, ImportStatus, ImportedEntry,
    ImportedFile, LeftOut,
};
pub use history::{DEFAULT_LOG_LIMIT, EntryChange, LogChange, LogCommit, LogOptions};
pub use learnings::{
    Learning, LearningChange, LearningOutcome, LearningsList, MAX_PENDING_PER_AGENT,
    MAX_PENDING_PER_ROOT,
};
pub use lifecycle::{Keep, MAX_REASON_CHARS, Renewed, Transition, TransitionChange};
pub use list::{DEFAULT_LIST_LIMIT, FactRow, ListFilter, MAX_LIST_LIMIT};
pub use lookup::{DEFAULT_SEARCH_LIMIT, RunHit, RunView, SearchOptions};
pub(crate) use memtool::{
    ARCHIVE_REASON as MEMORY_TOOL_REASON, Edited as ToolEdit, Files as ToolFiles,
};
pub use merge_file::{MergeFileOutcome, merge_file};
pub use owner::Owner;
pub use pending::{PendingDecision, PendingList, PendingOp, PendingWrite};
pub use results::{
    DEFAULT_CONTENT_TYPE, PutOptions, PutOutcome, PutStatus, ResultsGc, ResultsRemoved,
};
pub use root::{CONFIG_FILE, DEFAULT_LOCK_TIMEOUT, Deadline, Store};
pub use runs::{Delegate, Run, RunOptions};
pub use setup::Setup;
pub use skills::{Skill, SkillChange, SkillOutcome, SkillRow};
pub use sync::{SYNC_LOCK_WAIT, SyncChanges, SyncReport, SyncedEntry};
pub use watch::{Change as WatchedChange, Watching};

use crate::edit::Op;
use crate::error::Result;
use crate::model::{Caller, Scope};
use crate::recall::{
    Bm25Scorer, CharEstimator, KeptBm25, Recall, RecallOptions, Scorer, TermCache, TokenEstimator,
};
use crate::snapshot::Snapshot;

/// The public surface of an owner's memory.
impl Store {
    /// The terms of the texts lexical recall scored, kept between the calls
    /// of a long-lived process (a [`Store`] and its clones share them).
    pub fn recall_terms(&self) -> &TermCache {
        self.parsed().terms()
    }

    /// Waits for the work this process started after answering recalls
    /// (semantic recall's missing vectors, computed and cached in the
    /// background) to finish: a command line calls it after printing.
    pub fn settle() {
        #[cfg(feature = "embed")]
        recall::settle();
    }

    /// Creates the memory root and readies it for git (see [`Setup`]):
    /// `.gitignore` lists `.memdir/` and `results/`, `memdir.yaml` records
    /// the format, and inside a git work tree `.gitattributes` and the
    /// repository's configuration route the memory files to the merge
    /// driver. Idempotent; says what it changed.
    pub fn init(&self) -> Result<Setup> {
        setup::setup(self, false)
    }

    /// [`Store::init`] for an existing folder, with the pre-commit hook that
    /// runs `memdir check` when `hook` is set (refused outside a git work
    /// tree).
    pub fn git_setup(&self, hook: bool) -> Result<Setup> {
        setup::setup(self, hook)
    }

    /// Syncs the root's git work tree with `remote` (default: the branch's
    /// upstream, else `origin`; none when the work tree has no remote):
    /// commits what is pending as `caller`, merges the remote's branch
    /// through the merge driver, pushes, retries when another machine
    /// pushed first, and says which entries came in and went out. Holds the
    /// root's sync lock throughout (waiting for another sync of this clone
    /// up to the lock timeout set on this value, else
    /// two minutes), and every owner's lock while git commits and
    /// merges. A merge that does not go through is
    /// [`ReplicaError::SyncConflict`](crate::error::ReplicaError).
    pub fn sync(&self, caller: Option<&Caller>, remote: Option<&str>) -> Result<SyncReport> {
        let wait = self.lock_timeout().unwrap_or(SYNC_LOCK_WAIT);
        sync::sync(self, caller, remote, wait)
    }

    /// [`Store::sync`], waiting at most `wait` for another sync of this
    /// clone (`locked` past it): a server's own sync does not wait.
    pub fn sync_within(
        &self,
        caller: Option<&Caller>,
        remote: Option<&str>,
        wait: std::time::Duration,
    ) -> Result<SyncReport> {
        sync::sync(self, caller, remote, wait)
    }

    /// Whether the commit `commit` is in the root's HEAD: a merge a sync
    /// stopped on was made since (by a person, or by a sync).
    pub fn has_merged(&self, commit: &str) -> Result<bool> {
        sync::merged_in(self, commit)
    }

    /// Refuses a request for `owner` on a replica ([`Store::with_replica`])
    /// that is not its home: `misdirected`, naming the home and its URL
    /// (docs/SCALING.md). Without a replica, every owner is at home.
    pub fn require_home(&self, owner: &str) -> Result<()> {
        replicas::require_home(self, owner)
    }

    /// What `memdir serve --sync REMOTE` checks as it starts: the root is
    /// in a git work tree with that remote; a replica
    /// ([`Store::with_replica`]) is one the root's `replicas:` names, and a
    /// server that is no replica serves a root that names none.
    pub fn check_replica(&self, remote: &str) -> Result<()> {
        replicas::check_start(self, remote)
    }

    /// The replicas of the root (`replicas:` in its `memdir.yaml`; none
    /// when it names none), each with the owners it lists.
    pub fn replicas(&self) -> &[crate::model::Replica] {
        self.settings().replicas.as_deref().unwrap_or_default()
    }

    /// `check`'s findings of the root's `LEARNINGS.md` (none without one),
    /// as a store's: conflict markers, a learning twice, a threat or a
    /// secret, an unclosed comment, control characters, a pair a merge kept
    /// (`conflict=`), the file over its budget.
    pub fn check_learnings(&self) -> Result<Vec<Finding>> {
        check::learnings::findings(self)
    }

    /// Proposes `text` as a learning every agent would see once a person
    /// approves it: checked and scanned like a fact, it waits in
    /// `learnings/proposals.md` (at most 20 an agent, 200 a root).
    pub fn propose(&self, caller: &Caller, text: &str) -> Result<LearningOutcome> {
        learnings::propose(self, caller, text, Utc::now())
    }

    /// The learnings `caller` may see: every approved one, and the
    /// proposals (a person's list: all; an agent's: its own).
    pub fn learnings(&self, caller: &Caller) -> Result<LearningsList> {
        learnings::list(self, caller)
    }

    /// A person approves the proposal `id` (with `text` in place of its
    /// own when given; refused when its text is no longer `seen`).
    pub fn approve_learning(
        &self,
        caller: &Caller,
        id: &str,
        text: Option<&str>,
        seen: Option<&str>,
    ) -> Result<LearningOutcome> {
        learnings::approve(self, caller, id, text, seen, Utc::now())
    }

    /// A person rejects the proposal `id` with a reason.
    pub fn reject_learning(
        &self,
        caller: &Caller,
        id: &str,
        reason: &str,
    ) -> Result<LearningOutcome> {
        learnings::reject(self, caller, id, reason, Utc::now())
    }

    /// A person retires the approved learning `id`.
    pub fn retire_learning(
        &self,
        caller: &Caller,
        id: &str,
        reason: Option<&str>,
    ) -> Result<LearningOutcome> {
        learnings::retire(self, caller, id, reason, Utc::now())
    }

    /// Starts watching the root for changes to owners' memory files (see
    /// [`Watching`]); memdir's own writes are told apart while it runs.
    pub fn watch(&self) -> Result<Watching> {
        Watching::start(self)
    }

    /// [`Owner::check`] of each owner of `ids` (in that order), git asked
    /// once for them all which of their derived files it tracks (not a
    /// process per owner).
    pub fn check_owners(&self, ids: &[String]) -> Result<Vec<CheckReport>> {
        let owners = ids
            .iter()
            .map(|id| self.owner(id))
            .collect::<Result<Vec<_>>>()?;
        check::check_all(&owners, Utc::now())
    }

    /// How many of `check`'s `tracked_derived` findings each owner of
    /// `ids` has (its derived folders git tracks files in), git asked once
    /// for them all; none outside a git work tree. What [`Store::check_owners`]
    /// adds to [`Owner::check_files`].
    pub(crate) fn tracked_derived(&self, ids: &[String]) -> Result<Vec<usize>> {
        let owners = ids
            .iter()
            .map(|id| self.owner(id))
            .collect::<Result<Vec<_>>>()?;
        Ok(check::tracked_all(&owners)
            .into_iter()
            .map(|f| f.len())
            .collect())
    }
}

impl Owner {
    /// The SHA-256 (hex) of the file `name` of the owner's folder as it is
    /// now (`MEMORY.md`, `USER.md`, `archive.md`), of no bytes when it is
    /// missing: what a form rendered from it carries, to tell a change since.
    pub fn file_sha256(&self, name: &str) -> Result<String> {
        stamps::sha256(self, name)
    }

    // ---- curated stores ----

    /// The entries of one store with their ids, and its usage.
    pub fn show(&self, scope: Scope) -> Result<StoreView> {
        curated::show(self, scope)
    }

    /// The ids and texts of both stores' entries (USER.md's, then
    /// MEMORY.md's, in file order: what [`Owner::show`] gives of each,
    /// without metadata and usage), with the scanner's verdict on each.
    pub fn entry_texts(&self) -> Result<Vec<ScannedEntry>> {
        curated::entry_texts(self).map(std::sync::Arc::unwrap_or_clone)
    }

    /// [`Owner::entry_texts`] as kept between calls (shared, not copied).
    pub(crate) fn kept_entry_texts(&self) -> Result<std::sync::Arc<Vec<ScannedEntry>>> {
        curated::entry_texts(self)
    }

    /// Lints the owner's files as `memdir check` does (see [`CheckReport`]):
    /// errors are what must not be committed, warnings what a merge or a
    /// person leaves to settle.
    pub fn check(&self) -> Result<CheckReport> {
        check::check(self, Utc::now(), true)
    }

    /// [`Owner::check`] of the files alone, without asking git which of
    /// them it tracks (a process per owner): what `show` and `watch` report
    /// with their answers.
    pub(crate) fn check_files(&self) -> Result<CheckReport> {
        check::check(self, Utc::now(), false)
    }

    /// The owner's entry history from git, newest commit first: which
    /// entries each commit added, removed, archived or brought back.
    /// Refused (`not_in_git`) outside a git work tree.
    pub fn log(&self, opts: &LogOptions) -> Result<Vec<LogCommit>> {
        history::log(self, opts)
    }

    /// Writes one operation (see [`Op`]): a save (with an expiry, or
    /// superseding a live fact), a replace or a removal. A save past the
    /// budget is refused, or with `curation: auto` first archives the least
    /// recently recalled facts of its store.
    pub fn write(&self, op: Op) -> Result<WriteOutcome> {
        curated::write(self, op)
    }

    /// Saves a fact with the default expiry (`already stored` when its id is
    /// present): [`Owner::write`] of [`Op::add`].
    pub fn add(&self, scope: Scope, text: &str) -> Result<WriteOutcome> {
        self.write(Op::add(scope, text))
    }

    /// Replaces the text of the entry `old` names (an id or a unique substring).
    pub fn replace(&self, scope: Scope, old: &str, new: &str) -> Result<WriteOutcome> {
        self.write(Op::Replace {
            old: old.to_owned(),
            new: new.to_owned(),
            scope: Some(scope),
        })
    }

    /// Removes the entry `old` names (an id or a unique substring).
    pub fn remove(&self, scope: Scope, old: &str) -> Result<WriteOutcome> {
        self.write(Op::Remove {
            old: old.to_owned(),
            scope: Some(scope),
        })
    }

    /// Applies all of `ops` or none of them; budgets are checked on the final
    /// state of each store.
    pub fn batch(&self, ops: &[Op]) -> Result<BatchOutcome> {
        curated::batch(self, ops)
    }

    // ---- writes that wait for a person (`writes: review`) ----

    /// The owner's writes that wait for a person's review, oldest first
    /// (the rejected ones too with `all`).
    pub fn pending(&self, all: bool) -> Result<PendingList> {
        pending::list(self, all)
    }

    /// One write that waits for a person's review (or was rejected).
    pub fn pending_write(&self, id: &str) -> Result<PendingWrite> {
        pending::show(self, id)
    }

    /// A person approves the waiting write `id` (with `text` in place of
    /// its one text when given): written as the agent's direct write would
    /// have been, its budget, vetoes and scan checked again now.
    pub fn approve_pending(&self, id: &str, text: Option<&str>) -> Result<PendingDecision> {
        pending::approve(self, id, text)
    }

    /// A person rejects the waiting write `id` with a reason: nothing is
    /// written, and its text is refused to the agent as a vetoed one is.
    pub fn reject_pending(&self, id: &str, reason: &str) -> Result<PendingDecision> {
        pending::reject(self, id, reason)
    }

    // ---- Claude's memory tool ----

    /// What the owner has that the memory tool shows.
    pub(crate) fn tool_files(&self) -> Result<ToolFiles> {
        memtool::files(self)
    }

    /// A store as the memory tool shows it: one line per live entry.
    pub(crate) fn tool_view(&self, scope: Scope) -> Result<Vec<crate::memtool::ViewEntry>> {
        memtool::store_view(self, scope)
    }

    /// The lines of episodes.md.
    pub(crate) fn tool_episodes(&self) -> Result<Vec<String>> {
        memtool::episode_lines(self)
    }

    /// Edits a store through the memory tool (see `store::memtool::edit`):
    /// `Ok(Err(text))` is a refusal for the model.
    pub(crate) fn tool_edit(
        &self,
        scope: Scope,
        path: &str,
        whole: bool,
        change: &dyn Fn(&[crate::memtool::ViewEntry]) -> std::result::Result<String, String>,
    ) -> Result<std::result::Result<ToolEdit, String>> {
        memtool::edit(self, scope, path, whole, change)
    }

    // ---- the fact lifecycle ----

    /// Archives a live memory with a reason (required, at most 500 characters).
    pub fn archive(&self, id: &str, reason: &str) -> Result<Transition> {
        lifecycle::archive(self, id, reason)
    }

    /// Sets a live fact's expiry (`expires` as `add --expires` takes it;
    /// default: the store's default expiry from now).
    pub fn renew(&self, id: &str, expires: Option<&str>) -> Result<Renewed> {
        lifecycle::renew(self, id, expires)
    }

    /// A person's veto: archives the memory as `vetoed`; only a person can
    /// bring it back.
    pub fn veto(&self, id: &str, reason: Option<&str>) -> Result<Transition> {
        lifecycle::veto(self, id, reason)
    }

    /// Brings an archived memory back. A superseded memory never comes back;
    /// only a person brings back a vetoed one; a day row whose date has a
    /// live log stays archived.
    pub fn unarchive(&self, id: &str) -> Result<Transition> {
        lifecycle::unarchive(self, id)
    }

    /// Settles what a merge left of the fact `id` that `check` finds, as
    /// `keep` says: both versions of a `conflict=` pair kept (their marks
    /// dropped), the live side of a fact live and archived (its archive
    /// records removed), or the first copy of an exact duplicate.
    pub fn resolve(&self, id: &str, keep: Keep) -> Result<Transition> {
        lifecycle::resolve(self, id, keep)
    }

    /// Takes a person's decision made on a page rendered from `file`, whose
    /// SHA-256 (hex) was `sha256` then: the hash is checked under the
    /// owner's lock and the decision applied under the same lock, as one
    /// write; when the file changed since, nothing is done
    /// ([`Error::StoreChanged`](crate::Error)).
    pub fn decide(&self, file: StoreFile, sha256: &str, decision: Decision) -> Result<Decided> {
        decide::decide(self, file, sha256, decision)
    }

    /// The SHA-256 (hex) of `MEMORY.md`, `USER.md` and `archive.md` as they
    /// are now (of no bytes for a missing one): what a page's forms carry
    /// for [`Owner::decide`].
    pub fn file_hashes(&self) -> Result<FileHashes> {
        decide::file_hashes(self)
    }

    /// Lists the owner's memories, newest first.
    pub fn list(&self, filter: &ListFilter) -> Result<Vec<FactRow>> {
        Ok(list::list(self, filter, Utc::now())?.0)
    }

    /// [`Owner::list`], and how many rows there were before the filter's
    /// limit cut them.
    pub fn list_counted(&self, filter: &ListFilter) -> Result<(Vec<FactRow>, usize)> {
        list::list(self, filter, Utc::now())
    }

    /// The fact `id`, live or archived: its store, state and text (what a
    /// person's confirmation shows); `None` when the owner holds none.
    pub(crate) fn find_fact(
        &self,
        id: &str,
    ) -> Result<Option<(crate::model::Origin, crate::model::Status, String)>> {
        list::find(self, id)
    }

    /// [`Owner::list`] as of `now` (for expiry).
    pub fn list_at(&self, filter: &ListFilter, now: DateTime<Utc>) -> Result<Vec<FactRow>> {
        Ok(list::list(self, filter, now)?.0)
    }

    /// Recalls with the built-in scorer and token estimate.
    pub fn recall(&self, options: &RecallOptions) -> Result<Recall> {
        let scorer = KeptBm25 {
            scorer: &Bm25Scorer::default(),
            kept: self.store().recall_terms(),
        };
        recall::recall(self, options, &scorer, &CharEstimator, Utc::now())
    }

    /// Computes now the vectors of semantic recall that the owner's cache
    /// lacks (what the review does, and a recall after its answer): how
    /// many, 0 without a recall model; or why they could not be.
    #[cfg(feature = "embed")]
    pub fn embed_missing(&self) -> std::result::Result<usize, String> {
        recall::embed_missing(self)
    }

    /// Recalls with a given scorer, token estimate and time.
    pub fn recall_with(
        &self,
        options: &RecallOptions,
        scorer: &dyn Scorer,
        tokens: &dyn TokenEstimator,
        now: DateTime<Utc>,
    ) -> Result<Recall> {
        recall::recall(self, options, scorer, tokens, now)
    }

    // ---- the day log and runs ----

    /// Appends one line to today's (UTC) day log. Only the owner (an agent)
    /// keeps a day log.
    pub fn day(&self, text: &str, task: Option<&str>, run: Option<&str>) -> Result<DayOutcome> {
        daylog::day(self, text, task, run, Utc::now())
    }

    /// [`Owner::day`] at a given time (the line's date and `HH:MM`).
    pub fn day_at(
        &self,
        text: &str,
        task: Option<&str>,
        run: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<DayOutcome> {
        daylog::day(self, text, task, run, now)
    }

    /// Every date's day log in episodes.md, newest first.
    pub fn day_rows(&self) -> Result<Vec<DayRow>> {
        files::episodes::day_rows(self.view()?.at())
    }

    /// Renders the owner's snapshot of USER.md and MEMORY.md as of now.
    pub fn snapshot(&self) -> Result<Snapshot> {
        runs::snapshot(self, Utc::now())
    }

    /// The snapshot as of `now`: facts expired by then are left out (the
    /// only input besides the files).
    pub fn snapshot_at(&self, now: DateTime<Utc>) -> Result<Snapshot> {
        runs::snapshot(self, now)
    }

    /// Begins a run: takes the snapshot, stores it content-addressed under
    /// `.memdir/snapshots/<sha256>.md` (once), and records the run.
    pub fn begin_run(&self, options: RunOptions) -> Result<Run> {
        runs::begin_run(self, options)
    }
}

impl Run {
    /// Finishes the run: appends its summary line (time, task key, text, run
    /// id) to today's day log.
    pub fn finish(&self, summary: &str) -> Result<DayOutcome> {
        daylog::finish_run(self.memory(), self.id(), summary)
    }
}

impl Delegate {
    /// The current entries of one store (read-only).
    pub fn show(&self, scope: Scope) -> Result<StoreView> {
        curated::show(self.owner(), scope)
    }
}

/// What a long-lived process (`memdir serve`) turns on in the `Store` it
/// keeps: recall figures written behind and group commit.
impl Store {
    /// Recall counts, last recall times and session skips kept in memory
    /// and written to each owner's `.memdir/stats.json` in batches, at most
    /// a second after the first of a batch, rather than by every recall
    /// (clones of this value share them). [`Store::write_stats_behind`]
    /// writes them now: call it at a clean stop. A crash loses at most the
    /// last second's figures (derived data: never a fact).
    pub fn with_stats_behind(mut self) -> Store {
        self.set_behind(std::sync::Arc::new(files::stats::Behind::default()));
        self
    }

    /// Writes every owner's recall figures kept behind
    /// ([`Store::with_stats_behind`]); the first failure is returned after
    /// every owner was tried, and what failed stays behind.
    pub fn write_stats_behind(&self) -> Result<()> {
        let Some(behind) = files::stats::behind(self) else {
            return Ok(());
        };
        let mut first = Ok(());
        for id in behind.owners() {
            let written = self.owner(&id).and_then(|o| behind.write(&o));
            if first.is_ok() {
                first = written;
            }
        }
        first
    }

    /// Concurrent writes of one owner through this value and its clones
    /// (one caller, one run) written in groups: one write of each changed
    /// file for the group, each write answered only once its group is
    /// durable, with the answer it would get alone.
    pub fn with_group_commit(mut self) -> Store {
        self.set_groups(std::sync::Arc::new(write::group::Groups::default()));
        self
    }

    /// With group commit on, the writes answered in groups and the groups
    /// written so far (by this value and its clones).
    pub fn group_counts(&self) -> Option<(u64, u64)> {
        write::group::groups(self).map(|g| g.counts())
    }
}
