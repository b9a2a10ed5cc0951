//! The model and the answers of the interface: every type a [`Request`]
//! takes or a [`Response`] carries, the limits and file names an adapter
//! names, and the library's entry points (`Store`, `Owner` and the handles
//! of its features) — each declared once, in the layer it belongs to, and
//! re-exported here, so that an adapter (the command line, the servers, the
//! dashboard) imports `api` and nothing else of the library.
//!
//! [`Request`]: super::Request
//! [`Response`]: super::Response

pub use crate::edit::{Change, Op, OpKind, OpOutcome, Usage};
pub use crate::error::{
    EntryBrief, Error, ErrorCode, Hint, OtherOwners, ReplicaError, Result, Unconfirmed,
};
pub use crate::model::{ArchiveKind, Caller, Origin, Replica, Scope, entry_id};
pub use crate::recall::{Recall, RecallOptions};
pub use crate::snapshot::Snapshot;
// The store: the root, an owner and its features' handles, and what their
// methods take and answer, feature by feature.
pub use crate::store::{
    CONFIG_FILE, DEFAULT_LOCK_TIMEOUT, Deadline, Delegate, Owner, Run, RunOptions, Store, limits,
};
// The curated stores and the fact lifecycle.
pub use crate::store::{
    ARCHIVE_FILE, BatchOutcome, DEFAULT_LIST_LIMIT, Decided, Decision, EntryView, FactKind,
    FactRow, FactStats, FileHashes, Keep, ListFilter, MAX_FILE_BYTES, MAX_LIST_LIMIT,
    MAX_REASON_CHARS, Omitted, Renewed, ScannedEntry, Status, StoreFile, StoreView, Transition,
    TransitionChange, WriteOutcome,
};
// The day log and runs.
pub use crate::store::{
    DEFAULT_SEARCH_LIMIT, DayOutcome, DayRow, EPISODES_FILE, MAX_RECALL_BLOCK_BYTES,
    MAX_RECALL_QUERY_CHARS, MAX_RUN_RECALLS, RunHit, RunRecall, RunRecord, RunView, Runs,
    SearchOptions,
};
// The daily review.
pub use crate::store::{
    ChangeKind, DueOutcome, ReviewChange, ReviewHistory, ReviewHistoryEntry, ReviewOptions,
    ReviewReport, Reviews, RoutineStatus, StillVetoed, UndoReport,
};
// Learned skills.
pub use crate::store::{
    MAX_DESCRIPTION_CHARS, SKILL_FILE, SKILLS_DIR, Skill, SkillChange, SkillOutcome, SkillRow,
    Skills,
};
// Learnings: proposed by agents, approved by persons, in every snapshot.
pub use crate::store::{
    DEFAULT_LEARNINGS_BUDGET, LEARNINGS_DIR, LEARNINGS_FILE, Learning, LearningChange,
    LearningOutcome, LearningStatus, LearningsList, MAX_PENDING_PER_AGENT, MAX_PENDING_PER_ROOT,
    PROPOSALS_FILE,
};
// Writes that wait for a person (`writes: review`).
pub use crate::model::WritePolicy;
pub use crate::store::{
    MAX_PENDING_WRITES, PENDING_FILE, PendingDecision, PendingList, PendingOp, PendingSource,
    PendingStatus, PendingWrite,
};
// SharedMemory results.
pub use crate::store::{
    ContentKind, DEFAULT_CONTENT_TYPE, DEFAULT_MAX_RESULT_BYTES, FlaggedSpan, NotText, PutOptions,
    PutOutcome, PutStatus, RESULTS_DIR, ResultMeta, ResultStep, Results, ResultsGc, ResultsRemoved,
    TaskResult, WorkflowResults,
};
// Hermes-style memories folders.
pub use crate::store::{
    ExportedFile, Hermes, HermesExport, HermesImport, ImportOptions, ImportStatus, ImportedEntry,
    ImportedFile, LeftOut,
};
// Memory folders in git (docs/GIT.md).
pub use crate::store::{
    CheckReport, DEFAULT_LOG_LIMIT, EntryChange, Finding, FindingKind, LogChange, LogCommit,
    LogOptions, MERGE_DRIVER, MergeFileOutcome, Setup, Severity, SyncChanges, SyncReport,
    SyncedEntry, WatchedChange, Watching, merge_file,
};
// What the dashboard needs of the scanner to show a text's hidden
// characters, the review's rule for a day line that marks a fact to lift,
// and the memory tool's input limit.
pub use crate::memtool::MAX_INPUT_BYTES;
pub use crate::review::marks_fact;
pub use crate::scan::{ascii_lookalike, is_invisible};
// The dashboard's agents page (`Request::AgentSummaries`).
pub use super::summaries::{AgentSummaries, AgentSummary, StoreUse, SummaryFailure, SummarySort};
