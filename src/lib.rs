//! memdir: an embedded, file-backed markdown memory store for AI agents.
//!
//! Each owner (a user or an agent) keeps plain markdown files in a folder of
//! its own under a memory root: `MEMORY.md` (the agent's curated notes) and
//! `USER.md` (what it knows about the user). Their top-level list items are
//! **entries**; memdir edits them under the owner's lock with durable, atomic
//! writes that splice only the bytes of the entry concerned, and holds each
//! file to a character budget.
//!
//! ```
//! use memdir::{Scope, Store};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let root = tempfile::tempdir()?;
//! let store = Store::open(root.path())?;
//! let me = store.owner("agt_docs")?;
//!
//! let added = me.add(Scope::User, "Prefers weekly summaries, no emojis")?;
//! assert_eq!(added.outcome.message, memdir::Change::Added);
//! assert!(added.outcome.id.starts_with("mem_"));
//! assert_eq!(added.usage.text, "2% — 37/1375 chars");
//!
//! me.replace(Scope::User, "weekly", "Prefers monthly summaries")?;
//! let view = me.show(Scope::User)?;
//! assert_eq!(view.entries[0].text, "Prefers monthly summaries");
//! # Ok(())
//! # }
//! ```
//!
//! Every save goes through one path, [`Owner::write`] (`add` is its
//! shorthand): an [`Op::Add`] may set an expiry or supersede a live fact,
//! which is archived as superseded. A run starts from a frozen snapshot of
//! both stores, and its delegates can only read:
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let root = tempfile::tempdir()?;
//! # let store = memdir::Store::open(root.path())?;
//! let me = store.owner("agt_docs")?;
//! let run = me.begin_run(memdir::RunOptions::task("PIN-812"))?;
//! run.memory().add(memdir::Scope::Memory, "Staging needs the VPN")?; // durable now
//! assert!(!run.snapshot().text.contains("VPN")); // but not in this run's prompt
//! assert!(run.delegate().snapshot().text.starts_with("## USER.md"));
//! run.finish("checked the staging deploy")?; // a day-log line in episodes.md
//! # Ok(())
//! # }
//! ```
//!
//! # Where things are
//!
//! The modules are the layers (docs/ARCHITECTURE.md states what each may
//! import). Pure, without I/O: [`model`] (ids, stores, metadata, callers,
//! settings), [`markdown`] (parsing into entries with byte ranges; splicing
//! is internal), [`scan`] (the threat and secret scanner), [`edit`] (the
//! write operations and the budget rule), [`journal`] (the episodes.md
//! format), [`memtool`] (Claude's memory tool: its commands, its view of a
//! store and the new text turned into entry operations), [`recall`]
//! (scoring and picking) and [`snapshot`] (rendering).
//! The disk layer is internal: all file access goes through it. The store
//! ties them together, and is reached through the types at the top of the
//! crate: [`Store`], [`Owner`] with its curated stores, fact lifecycle, day
//! log and recall, and its features' handles ([`Owner::runs`],
//! [`Owner::reviews`], [`Owner::skills`], [`Owner::results`],
//! [`Owner::hermes`]). [`api`] is the interface layer the command line and
//! the servers use: one request/response model and one registry of error
//! codes.
//!
//! The on-disk format is described in `docs/FORMAT.md`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod api;
mod disk;
pub mod edit;
mod error;
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzz;
mod git;
pub mod journal;
pub mod markdown;
pub mod memtool;
pub mod merge;
pub mod model;
mod program;
pub mod recall;
pub mod review;
pub mod scan;
pub mod snapshot;
mod store;

pub use edit::{Change, Op, OpKind, OpOutcome, Usage};
pub use error::{EntryBrief, Error, ErrorCode, Hint, OtherOwners, Result};
pub use model::{Caller, Scope, entry_id};
pub use recall::{Recall, RecallOptions};
pub use snapshot::Snapshot;
// The store: the root, an owner and its features' handles, and what their
// methods take and answer, feature by feature.
pub use store::{
    CONFIG_FILE, DEFAULT_LOCK_TIMEOUT, Deadline, Delegate, FileStamp, Owner, Run, RunOptions,
    Store, limits,
};
// The curated stores and the fact lifecycle.
pub use store::{
    ARCHIVE_FILE, BatchOutcome, DEFAULT_LIST_LIMIT, EntryView, FactKind, FactRow, FactStats, Keep,
    ListFilter, MAX_FILE_BYTES, MAX_LIST_LIMIT, MAX_REASON_CHARS, Omitted, Renewed, Status,
    StoreView, Transition, TransitionChange, WriteOutcome,
};
// The day log and runs.
pub use store::{
    DEFAULT_SEARCH_LIMIT, DayOutcome, DayRow, EPISODES_FILE, MAX_RECALL_BLOCK_BYTES,
    MAX_RECALL_QUERY_CHARS, MAX_RUN_RECALLS, RunHit, RunRecall, RunRecord, RunView, Runs,
    SearchOptions,
};
// The daily review.
pub use store::{
    ChangeKind, DueOutcome, ReviewChange, ReviewHistory, ReviewHistoryEntry, ReviewOptions,
    ReviewReport, Reviews, RoutineStatus, StillVetoed, UndoReport,
};
// Learned skills.
pub use store::{
    MAX_DESCRIPTION_CHARS, SKILL_FILE, SKILLS_DIR, Skill, SkillChange, SkillOutcome, SkillRow,
    Skills,
};
// Learnings: proposed by agents, approved by persons, in every snapshot.
pub use store::{
    DEFAULT_LEARNINGS_BUDGET, LEARNINGS_DIR, LEARNINGS_FILE, Learning, LearningChange,
    LearningOutcome, LearningStatus, LearningsList, MAX_PENDING_PER_AGENT, MAX_PENDING_PER_ROOT,
    PROPOSALS_FILE,
};
// SharedMemory results.
pub use store::{
    DEFAULT_CONTENT_TYPE, DEFAULT_MAX_RESULT_BYTES, FlaggedSpan, PutOptions, PutOutcome, PutStatus,
    RESULTS_DIR, ResultMeta, ResultStep, Results, ResultsGc, ResultsRemoved, TaskResult,
    WorkflowResults,
};
// Hermes-style memories folders.
pub use store::{
    ExportedFile, Hermes, HermesExport, HermesImport, ImportOptions, ImportStatus, ImportedEntry,
    ImportedFile, LeftOut,
};
// Memory folders in git (docs/GIT.md).
pub use store::{
    CheckReport, DEFAULT_LOG_LIMIT, EntryChange, Finding, FindingKind, LogChange, LogCommit,
    LogOptions, MERGE_DRIVER, MergeFileOutcome, Setup, Severity, SyncChanges, SyncReport,
    SyncedEntry, WatchedChange, Watching, merge_file,
};
