//! Sentence embeddings, pure: a BERT encoder of the sentence-transformers
//! kind (all-MiniLM-L6-v2 and models shaped like it) run in plain Rust, for
//! semantic recall.
//!
//! [`Model::load`] takes the bytes of a sentence-transformers model folder
//! ([`ModelFiles`]: `config.json`, `model.safetensors`, `tokenizer.json` and
//! optionally `1_Pooling/config.json`); the caller reads the files and bounds
//! their sizes, this module does no I/O. Everything in them is validated:
//! the config's sizes against fixed limits ([`MAX_HIDDEN`], [`MAX_LAYERS`],
//! [`MAX_POSITIONS`], …), every tensor's name, shape and dtype, and the
//! tokenizer's ids against the vocabulary, so a malformed or hostile folder
//! is an [`EmbedError`], never a panic or an out-of-bounds read.
//!
//! [`Model::embed`] tokenises each text (WordPiece, as `tokenizer.json` says,
//! without its padding, truncated to the model's positions and at most
//! [`MAX_TOKENS`]), runs the encoder (exact erf GELU, LayerNorm with the
//! config's eps, full attention over the one unpadded sequence), mean-pools
//! the last hidden states and L2-normalises them. Texts are sorted by length
//! and packed into batches, so the dense layers multiply the concatenated
//! tokens of many texts at once; attention runs per text and head. A batch
//! is computed the same wherever it runs, and each row of a matrix product
//! independently of the others, so the output is bit-for-bit the same for
//! the same input on one machine, whatever the thread count, and a text's
//! vector does not depend on the texts embedded with it.
//!
//! Weights in F32 are used as they are; F16 and BF16 tensors are converted to
//! F32 on load; any other dtype is refused.
//!
//! [`Model::fingerprint`] is the SHA-256 of the engine's version and all the
//! bytes it was loaded from: a cache of vectors keyed by it is invalidated by
//! a new model, tokenizer, config, or a change to this engine's arithmetic.

mod bert;
mod config;
mod dense;
mod tokenize;
mod weights;

#[cfg(test)]
pub(crate) mod testmodel;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_files;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use sha2::{Digest, Sha256};

use config::{BertConfig, Pooling};
use tokenize::Tokenizer;
use weights::Weights;

#[cfg(any(test, feature = "internals"))]
pub use super::fuse::cosine;
#[cfg(any(test, feature = "internals"))]
pub use config::{
    MAX_HEADS, MAX_HIDDEN, MAX_INTERMEDIATE, MAX_LAYERS, MAX_POSITIONS, MAX_TYPE_VOCAB, MAX_VOCAB,
};

/// The most tokens of a text that are embedded (with `[CLS]` and `[SEP]`), as
/// sentence-transformers' `max_seq_length` for all-MiniLM-L6-v2; fewer when
/// the model has fewer positions. The rest of a longer text is left out.
pub const MAX_TOKENS: usize = 256;

/// The most threads [`Model::embed`] uses, whatever it is asked for.
pub const MAX_THREADS: usize = 2;

/// The most bytes of a text that are tokenised: more than [`MAX_TOKENS`]
/// WordPiece tokens of any ordinary text (a word longer than 100 characters
/// is one `[UNK]`), so cutting there bounds the tokeniser's work without
/// changing what is embedded.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// Tokens packed into one batch for the dense layers: big enough for the
/// matrix products to run at speed, small enough that a batch's activations
/// (`tokens × intermediate` floats) stay in cache and two threads share
/// the work of a few hundred short texts.
const BATCH_TOKENS: usize = 512;

/// Bumped whenever the engine's arithmetic changes, so that vectors cached
/// under an old [`Model::fingerprint`] are not mixed with new ones.
const ENGINE_VERSION: &str = "memdir-embed-2";

/// The files of a sentence-transformers model folder, as bytes read by the
/// caller.
#[derive(Debug, Clone, Copy)]
pub struct ModelFiles<'a> {
    /// `config.json`: the BERT configuration (sizes, eps, activation).
    pub config: &'a [u8],
    /// `model.safetensors`: the encoder's weights.
    pub weights: &'a [u8],
    /// `tokenizer.json`: the `tokenizers` library's tokenizer (WordPiece).
    pub tokenizer: &'a [u8],
    /// `1_Pooling/config.json`, when the folder has one: mean (the default)
    /// or `[CLS]` pooling.
    pub pooling: Option<&'a [u8]>,
}

/// Why a model could not be loaded or texts embedded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedError {
    /// `config.json` is not JSON of the expected form, or a value in it is
    /// out of bounds or not supported.
    #[error("model config.json: {0}")]
    Config(String),
    /// `1_Pooling/config.json` is not JSON of the expected form, or asks for
    /// a pooling this engine does not do.
    #[error("model 1_Pooling/config.json: {0}")]
    Pooling(String),
    /// `model.safetensors` could not be parsed (truncated, bad header, bad
    /// offsets).
    #[error("model.safetensors: {0}")]
    Safetensors(String),
    /// A tensor the encoder needs is not in `model.safetensors`.
    #[error("model.safetensors has no tensor {0}")]
    MissingTensor(String),
    /// A tensor has another shape than the config implies.
    #[error("model.safetensors: tensor {name} has shape {found:?}, expected {expected:?}")]
    Shape {
        /// The tensor's name.
        name: String,
        /// The shape the config implies.
        expected: Vec<usize>,
        /// The shape in the file.
        found: Vec<usize>,
    },
    /// A tensor's dtype is neither F32, F16 nor BF16.
    #[error("model.safetensors: tensor {name} has dtype {dtype}, expected F32, F16 or BF16")]
    Dtype {
        /// The tensor's name.
        name: String,
        /// The dtype in the file.
        dtype: String,
    },
    /// A tensor holds a NaN or an infinity.
    #[error("model.safetensors: tensor {0} holds a value that is not finite")]
    NonFinite(String),
    /// `tokenizer.json` could not be parsed or configured, or does not fit
    /// the model.
    #[error("tokenizer.json: {0}")]
    Tokenizer(String),
    /// The tokenizer gave a token id that has no embedding in the model.
    #[error("the tokenizer gave token id {id}, past the model's vocabulary of {vocab}")]
    TokenOutOfVocab {
        /// The token id.
        id: u32,
        /// The model's vocabulary size.
        vocab: usize,
    },
    /// Tokenising a text failed.
    #[error("tokenising a text: {0}")]
    Tokenize(String),
    /// The deadline passed before all texts were embedded.
    #[error("embedding timed out")]
    TimedOut,
    /// The encoder's output overflowed F32 (weights that are finite but
    /// absurdly large).
    #[error("the encoder's output is not finite")]
    Overflow,
    /// An invariant of this module failed (a bug, reported rather than a
    /// panic).
    #[error("embedding failed inside the engine: {0}")]
    Internal(&'static str),
}

/// A loaded sentence-embedding model: immutable, shareable between threads.
pub struct Model {
    config: BertConfig,
    pooling: Pooling,
    weights: Weights,
    tokenizer: Tokenizer,
    fingerprint: String,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("dim", &self.config.hidden)
            .field("layers", &self.config.layers)
            .field("heads", &self.config.heads)
            .field("max_tokens", &self.tokenizer.max_len())
            .field("pooling", &self.pooling)
            .field("fingerprint", &self.fingerprint)
            .finish_non_exhaustive()
    }
}

impl Model {
    /// Loads a model from its folder's bytes, validating the config, every
    /// tensor and the tokenizer.
    pub fn load(files: ModelFiles<'_>) -> Result<Model, EmbedError> {
        let config = BertConfig::parse(files.config)?;
        let pooling = match files.pooling {
            Some(bytes) => Pooling::parse(bytes, config.hidden)?,
            None => Pooling::Mean,
        };
        let weights = Weights::load(files.weights, &config)?;
        let max_len = config.max_positions.min(MAX_TOKENS);
        let tokenizer = Tokenizer::load(files.tokenizer, max_len, config.vocab)?;
        let fingerprint = fingerprint(&files);
        Ok(Model {
            config,
            pooling,
            weights,
            tokenizer,
            fingerprint,
        })
    }

    /// The vectors' dimension (the model's hidden size).
    pub fn dim(&self) -> usize {
        self.config.hidden
    }

    /// The most tokens of a text that are embedded (`[CLS]` and `[SEP]`
    /// included): the model's positions, at most [`MAX_TOKENS`].
    #[cfg(any(test, feature = "internals"))]
    pub fn max_tokens(&self) -> usize {
        self.tokenizer.max_len()
    }

    /// A stable identity of the model and this engine: the SHA-256, in
    /// lower-case hex, of the engine's version and the config, weights,
    /// tokenizer and pooling bytes it was loaded from. Vectors cached under
    /// one fingerprint are the ones [`Model::embed`] gives.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// Embeds each text as an L2-normalised vector of [`Model::dim`] floats,
    /// in the order given, on at most `threads` threads (clamped to
    /// `1..=`[`MAX_THREADS`]; the calling thread is one of them): the
    /// batches of texts share them, and the texts of a single batch (one
    /// query) have each matrix product split between two. A text with
    /// no tokens at all (only with a tokenizer that adds no special tokens)
    /// gives the zero vector.
    ///
    /// The deadline is checked between texts while tokenising and between
    /// layers: past it the call stops with [`EmbedError::TimedOut`].
    pub fn embed(
        &self,
        texts: &[&str],
        threads: usize,
        deadline: Option<Instant>,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let stop = Stop {
            deadline,
            cancelled: AtomicBool::new(false),
        };
        let mut ids = Vec::with_capacity(texts.len());
        for text in texts {
            stop.check()?;
            ids.push(self.tokenizer.encode(text)?);
        }
        let batches = batches(&ids);
        // One batch (a query) on two threads: each product split in two.
        let split = batches.len() == 1 && threads.clamp(1, MAX_THREADS) >= 2;
        let threads = threads.clamp(1, MAX_THREADS).min(batches.len());
        let next = AtomicUsize::new(0);
        let work = || -> Result<Vec<Embedded>, EmbedError> {
            let mut done = Vec::new();
            loop {
                let b = next.fetch_add(1, Ordering::Relaxed);
                let Some(batch) = batches.get(b) else {
                    return Ok(done);
                };
                let seqs: Vec<&[u32]> = batch.iter().map(|&i| ids[i].as_slice()).collect();
                match bert::embed_batch(
                    &self.weights,
                    &self.config,
                    self.pooling,
                    &seqs,
                    &stop,
                    split,
                ) {
                    Ok(vectors) => done.push((b, vectors)),
                    Err(e) => {
                        stop.cancelled.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                }
            }
        };
        let mut results = Vec::with_capacity(threads);
        std::thread::scope(|scope| {
            let mut handles = Vec::with_capacity(threads.saturating_sub(1));
            for _ in 1..threads {
                // A thread that cannot be started leaves its share to the
                // others.
                if let Ok(handle) = std::thread::Builder::new()
                    .name("memdir-embed".into())
                    .spawn_scoped(scope, work)
                {
                    handles.push(handle);
                }
            }
            results.push(work());
            for handle in handles {
                results.push(
                    handle
                        .join()
                        .unwrap_or(Err(EmbedError::Internal("a worker thread panicked"))),
                );
            }
        });
        let mut out: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        for result in results {
            for (b, vectors) in result? {
                let batch = batches
                    .get(b)
                    .ok_or(EmbedError::Internal("a batch that was not made"))?;
                for (&i, v) in batch.iter().zip(vectors) {
                    if let Some(slot) = out.get_mut(i) {
                        *slot = Some(v);
                    }
                }
            }
        }
        out.into_iter()
            .map(|v| v.ok_or(EmbedError::Internal("a text left without a vector")))
            .collect()
    }
}

/// A batch's index and its texts' vectors, in the batch's order.
type Embedded = (usize, Vec<Vec<f32>>);

/// The deadline and the flag that stops the other workers once one failed.
pub(super) struct Stop {
    deadline: Option<Instant>,
    cancelled: AtomicBool,
}

impl Stop {
    /// [`EmbedError::TimedOut`] once the deadline passed or another worker
    /// stopped.
    pub(super) fn check(&self) -> Result<(), EmbedError> {
        if self.cancelled.load(Ordering::Relaxed)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            return Err(EmbedError::TimedOut);
        }
        Ok(())
    }
}

/// The texts' indices sorted by token count (ties by index) and cut into
/// batches of at most [`BATCH_TOKENS`] tokens (a longer text alone).
fn batches(ids: &[Vec<u32>]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by_key(|&i| (ids[i].len(), i));
    let mut batches = Vec::new();
    let mut batch = Vec::new();
    let mut tokens = 0;
    for i in order {
        let n = ids[i].len();
        if !batch.is_empty() && tokens + n > BATCH_TOKENS {
            batches.push(std::mem::take(&mut batch));
            tokens = 0;
        }
        batch.push(i);
        tokens += n;
    }
    if !batch.is_empty() {
        batches.push(batch);
    }
    batches
}

/// SHA-256 over the engine's version and each file, each preceded by its
/// length so that no two different sets of files hash alike.
fn fingerprint(files: &ModelFiles<'_>) -> String {
    let mut hash = Sha256::new();
    let mut part = |bytes: &[u8]| {
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    part(ENGINE_VERSION.as_bytes());
    part(files.config);
    part(files.weights);
    part(files.tokenizer);
    match files.pooling {
        Some(bytes) => {
            part(b"pooling");
            part(bytes);
        }
        None => part(b"no pooling"),
    }
    hex::encode(hash.finalize())
}
