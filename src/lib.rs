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
//! import), all private to the crate. Pure, without I/O: `model` (ids,
//! stores, metadata, callers, settings), `markdown` (parsing into entries
//! with byte ranges, splicing), `scan` (the threat and secret scanner),
//! `edit` (the write operations and the budget rule), `journal` (the
//! episodes.md format), `memtool` (Claude's memory tool), `recall`
//! (scoring and picking) and `snapshot` (rendering). The disk layer does
//! all file access; the store ties them together.
//!
//! The library's face is small: [`Store`], [`Owner`] with its curated
//! stores, fact lifecycle, day log and recall, and its features' handles
//! ([`Owner::runs`], [`Owner::reviews`], [`Owner::skills`],
//! [`Owner::results`], [`Owner::hermes`]); [`Error`] and its
//! [`ErrorCode`]; and [`api`], the interface layer the command line and the
//! servers use: one request/response model, one registry of error codes,
//! and in [`api::types`] every type a method takes or answers.
//!
//! The on-disk format is described in `docs/FORMAT.md`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used)]
// A function past 150 lines (clippy.toml) holds more than one concern.
#![warn(clippy::too_many_lines)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod api;
mod disk;
mod edit;
mod error;
#[cfg(any(test, feature = "internals"))]
mod fuzz;
mod git;
mod journal;
mod markdown;
mod memtool;
mod merge;
mod model;
mod program;
mod recall;
mod review;
mod scan;
mod snapshot;
mod store;

// The library's face: the interface layer and the entry points a program
// that embeds memdir starts from. Every other type a method takes or
// answers is named in `api::types`.
pub use edit::{Change, Op};
pub use error::{Error, ErrorCode, Result};
pub use model::{Caller, Scope};
pub use store::{Owner, RunOptions, Store};

/// The library's inner layers, for the benches, the fuzz targets and the
/// integration tests that measure or probe one layer alone: not part of
/// the library's API, and compiled only with the `internals` feature.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    /// The property checks the fuzz targets call.
    pub mod fuzz {
        pub use crate::fuzz::*;
    }
    /// See [`crate::edit`].
    pub mod edit {
        pub use crate::edit::*;
    }
    /// See [`crate::journal`].
    pub mod journal {
        pub use crate::journal::*;
    }
    /// See [`crate::markdown`].
    pub mod markdown {
        pub use crate::markdown::*;
    }
    /// See [`crate::memtool`].
    pub mod memtool {
        pub use crate::memtool::*;
    }
    /// See [`crate::merge`].
    pub mod merge {
        pub use crate::merge::*;
    }
    /// See [`crate::model`].
    pub mod model {
        pub use crate::model::*;
    }
    /// See [`crate::recall`].
    pub mod recall {
        pub use crate::recall::*;
    }
    /// See [`crate::review`].
    pub mod review {
        pub use crate::review::*;
    }
    /// The scanner over a SharedMemory result's content, as a put runs it
    /// (the benches' text-scan speed).
    pub mod results {
        pub use crate::store::files::results::verdict::{FlaggedSpan, scan_content};
    }
    /// See [`crate::scan`].
    pub mod scan {
        pub use crate::scan::*;
    }
    /// See [`crate::snapshot`].
    pub mod snapshot {
        pub use crate::snapshot::*;
    }
}
