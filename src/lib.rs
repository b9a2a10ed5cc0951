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
//! # fn main() -> memdir::Result<()> {
//! let root = tempfile::tempdir().map_err(|e| memdir::Error::InvalidRequest(e.to_string()))?;
//! let store = Store::open(root.path())?;
//! let me = store.owner("agt_docs")?;
//!
//! let (added, usage) = me.add(Scope::User, "Prefers weekly summaries, no emojis")?;
//! assert_eq!(added.message, "added");
//! assert!(added.id.starts_with("mem_"));
//! assert_eq!(usage.text, "2% — 37/1375 chars");
//!
//! me.replace(Scope::User, "weekly", "Prefers monthly summaries")?;
//! let view = me.show(Scope::User)?;
//! assert_eq!(view.entries[0].text, "Prefers monthly summaries");
//! # Ok(())
//! # }
//! ```
//!
//! A run starts from a frozen snapshot of both stores, and its delegates can
//! only read:
//!
//! ```
//! # fn main() -> memdir::Result<()> {
//! # let root = tempfile::tempdir().map_err(|e| memdir::Error::InvalidRequest(e.to_string()))?;
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
//! Where things are:
//!
//! * curated stores: [`Store`], [`Owner`] (`add`, `replace`, `remove`,
//!   `batch`, `show`), entries and ids ([`parse`], [`entry_id`]), budgets
//!   ([`used_chars`]);
//! * runs and snapshots: [`Owner::begin_run`], [`Run`], [`Delegate`],
//!   [`Snapshot`]; the scanner: [`scan`];
//! * run data: the day log ([`Owner::day`], [`DayRow`]), SharedMemory
//!   ([`Owner::put_result`], [`Owner::get_result`], [`Owner::wait_result`]),
//!   lookups ([`Owner::search_runs`], [`Owner::get_run`]);
//! * the fact lifecycle: [`Owner::save`], [`Owner::archive`],
//!   [`Owner::veto`], [`Owner::unarchive`], [`Owner::list`], recall
//!   ([`Owner::recall`], [`Scorer`], [`TokenEstimator`]), callers
//!   ([`Store::owner_as`], [`Caller`]).
//!
//! The on-disk format is described in `docs/FORMAT.md`; the pure modules
//! (parsing, splicing, budgets, settings, metadata, the journal format,
//! snapshot rendering, scanning, scoring) do no I/O, and all file access goes
//! through the store and its fs layer.

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod budget;
mod caller;
mod edit;
mod env;
mod episodes;
mod error;
mod facts;
mod fs;
mod id;
mod journal;
mod lifecycle;
mod lock;
mod lookup;
mod meta;
mod parse;
mod parse_cache;
mod recall;
mod results;
mod runs;
mod scan;
mod scan_cache;
mod scope;
mod score;
mod settings;
mod snapshot;
mod splice;
mod stats;
mod store;

pub use budget::{Budget, BudgetSource, MAX_BUDGET, MIN_BUDGET, Usage, render_entries, used_chars};
pub use caller::Caller;
pub use edit::{EditEnv, MAX_TEXT_CHARS, Op, OpOutcome};
pub use episodes::{DayOutcome, DayRow, EPISODES_FILE, day_id};
pub use error::{EntryBrief, Error, Result};
pub use facts::{ARCHIVE_FILE, DEFAULT_LIST_LIMIT, FactRow, ListFilter, MAX_LIST_LIMIT};
pub use fs::MAX_FILE_BYTES;
pub use id::{entry_id, is_entry_id, validate_id};
pub use journal::{DayLine, MAX_DAY_CHARS, MAX_DAY_LINE_CHARS};
pub use lifecycle::{MAX_REASON_CHARS, SaveOutcome, Transition};
pub use lock::OwnerLock;
pub use lookup::{DEFAULT_SEARCH_LIMIT, RunHit, RunView, SearchOptions};
pub use meta::{ArchiveKind, Meta};
pub use parse::{Document, Entry, FrontMatter, Marker, parse};
pub use recall::{
    MAX_DAY_TOKENS, MAX_QUERY_CHARS, MAX_RECALL_FACTS, MAX_RECALL_TOKENS, Recall, RecallOptions,
    RecalledDayLine, RecalledFact,
};
pub use results::{
    DEFAULT_MAX_RESULT_BYTES, PutOutcome, PutStatus, RESULT_FORMAT_VERSION, RESULT_INDEX_FILE,
    RESULT_INDEX_VERSION, RESULT_SUFFIX, RESULTS_DIR, ResultMeta, ResultStep, TaskResult,
    WorkflowResults,
};
pub use runs::{Delegate, Run, RunOptions, RunRecord};
pub use scan::{Family, Finding, MAX_SCAN_CHARS, finding, fingerprint, pattern_list, scan};
pub use scope::Scope;
pub use score::{
    Bm25Scorer, CharEstimator, KEEP_THRESHOLD, ScoreError, Scorer, TokenEstimator, terms,
};
pub use settings::{Budgets, Curation, ExpiryDays, FileSettings, Settings};
pub use snapshot::{
    Blocked, Overflow, Snapshot, StoreInput, blocked_placeholder, render, render_scanned,
};
pub use splice::{Unplaceable, append, normalize_text, remove, replace, set_meta};
pub use stats::FactStats;
pub use store::{BatchOutcome, CONFIG_FILE, DERIVED_DIR, EntryView, Owner, Store, StoreView};
