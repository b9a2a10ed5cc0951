//! Recall, pure: scoring facts against a task ([`Scorer`], the built-in
//! [`Bm25Scorer`]), estimating tokens ([`TokenEstimator`]), and picking what
//! a run's block holds within its limits (`select`): the approved
//! learnings that match, as wiki matches, then the `--- MEMORY ---` block. No
//! I/O: the store's recall feature reads the files and counts the recall.
//!
//! `embed` (the cargo feature `embed`) is the sentence-embedding engine for
//! semantic recall: a BERT encoder of the sentence-transformers kind (all-MiniLM-L6-v2) run
//! in pure Rust over a model folder's bytes, giving normalised vectors whose
//! cosine scores a fact against a query; `fuse` fuses that cosine with the
//! lexical score ([`fuse::Fused`], calibrated so that 0.5 still means
//! relevant: docs/RECALL.md).

#[cfg(feature = "embed")]
pub mod embed;
pub mod fuse;
mod kept;
mod score;
pub(crate) mod select;
mod similarity;

pub use kept::{KeptBm25, TermCache};
pub use score::{Bm25Scorer, CharEstimator, Scorer, TokenEstimator, terms};
#[cfg(any(test, feature = "internals"))]
pub use score::{KEEP_THRESHOLD, ScoreError, Scored};
#[cfg(any(test, feature = "internals"))]
pub use select::{
    MAX_DAY_TOKENS, MAX_RECALL_FACTS, MAX_RECALL_TOKENS, RecalledDayLine, RecalledLearning,
    WIKI_HEADING,
};
pub use select::{MAX_QUERY_CHARS, Recall, RecallOptions, RecalledFact};
pub use similarity::{jaccard, term_set};
