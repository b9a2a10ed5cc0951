//! Recall, pure: scoring facts against a task ([`Scorer`], the built-in
//! [`Bm25Scorer`]), estimating tokens ([`TokenEstimator`]), and picking what
//! a run's `--- MEMORY ---` block holds within its limits (`select`). No
//! I/O: the store's recall feature reads the files and counts the recall.

mod score;
pub(crate) mod select;
mod similarity;

pub use score::{
    Bm25Scorer, CharEstimator, KEEP_THRESHOLD, ScoreError, Scorer, TokenEstimator, terms,
};
pub use select::{
    MAX_DAY_TOKENS, MAX_QUERY_CHARS, MAX_RECALL_FACTS, MAX_RECALL_TOKENS, Recall, RecallOptions,
    RecalledDayLine, RecalledFact,
};
pub use similarity::{jaccard, term_set};
