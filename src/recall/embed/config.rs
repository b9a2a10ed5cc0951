//! `config.json` and `1_Pooling/config.json`: parsed, bounded, and refused
//! when they ask for something this engine does not compute.

use serde::Deserialize;

use super::EmbedError;

/// The largest hidden size accepted (MiniLM: 384, BERT-large: 1024).
pub const MAX_HIDDEN: usize = 4096;
/// The most encoder layers accepted (MiniLM-L6: 6, BERT-large: 24).
pub const MAX_LAYERS: usize = 48;
/// The most attention heads accepted.
pub const MAX_HEADS: usize = 64;
/// The largest feed-forward size accepted (4 × [`MAX_HIDDEN`]).
pub const MAX_INTERMEDIATE: usize = 16_384;
/// The largest vocabulary accepted (BERT: 30,522, multilingual models up to
/// 250,002).
pub const MAX_VOCAB: usize = 500_000;
/// The most position embeddings accepted (BERT: 512).
pub const MAX_POSITIONS: usize = 8192;
/// The most token types accepted (BERT: 2; only type 0 is used).
pub const MAX_TYPE_VOCAB: usize = 16;

/// The activation of the feed-forward layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Activation {
    /// `gelu`: the exact GELU, `x · Φ(x)` with the error function, as BERT.
    GeluErf,
    /// `gelu_new`, `gelu_pytorch_tanh`: the tanh approximation.
    GeluTanh,
}

/// A validated BERT configuration.
#[derive(Debug, Clone)]
pub(super) struct BertConfig {
    pub(super) hidden: usize,
    pub(super) layers: usize,
    pub(super) heads: usize,
    pub(super) intermediate: usize,
    pub(super) vocab: usize,
    pub(super) max_positions: usize,
    pub(super) type_vocab: usize,
    pub(super) eps: f32,
    pub(super) activation: Activation,
}

#[derive(Deserialize)]
struct RawConfig {
    model_type: Option<String>,
    hidden_size: Option<u64>,
    num_hidden_layers: Option<u64>,
    num_attention_heads: Option<u64>,
    intermediate_size: Option<u64>,
    vocab_size: Option<u64>,
    max_position_embeddings: Option<u64>,
    type_vocab_size: Option<u64>,
    layer_norm_eps: Option<f64>,
    hidden_act: Option<String>,
    position_embedding_type: Option<String>,
}

fn bounded(name: &str, value: Option<u64>, min: u64, max: usize) -> Result<usize, EmbedError> {
    let value = value.ok_or_else(|| EmbedError::Config(format!("{name} is missing")))?;
    if value < min || value > max as u64 {
        return Err(EmbedError::Config(format!(
            "{name} is {value}, outside {min}..={max}"
        )));
    }
    usize::try_from(value).map_err(|_| EmbedError::Config(format!("{name} is too large")))
}

impl BertConfig {
    /// Parses and bounds `config.json`.
    pub(super) fn parse(bytes: &[u8]) -> Result<BertConfig, EmbedError> {
        let raw: RawConfig =
            serde_json::from_slice(bytes).map_err(|e| EmbedError::Config(e.to_string()))?;
        if let Some(kind) = &raw.model_type
            && kind != "bert"
        {
            return Err(EmbedError::Config(format!(
                "model_type is {kind:?}; only \"bert\" is supported"
            )));
        }
        if let Some(kind) = &raw.position_embedding_type
            && kind != "absolute"
        {
            return Err(EmbedError::Config(format!(
                "position_embedding_type is {kind:?}; only \"absolute\" is supported"
            )));
        }
        let activation = match raw.hidden_act.as_deref().unwrap_or("gelu") {
            "gelu" => Activation::GeluErf,
            "gelu_new" | "gelu_pytorch_tanh" => Activation::GeluTanh,
            other => {
                return Err(EmbedError::Config(format!(
                    "hidden_act is {other:?}; only \"gelu\", \"gelu_new\" and \"gelu_pytorch_tanh\" are supported"
                )));
            }
        };
        let hidden = bounded("hidden_size", raw.hidden_size, 1, MAX_HIDDEN)?;
        let layers = bounded("num_hidden_layers", raw.num_hidden_layers, 1, MAX_LAYERS)?;
        let heads = bounded("num_attention_heads", raw.num_attention_heads, 1, MAX_HEADS)?;
        if hidden % heads != 0 {
            return Err(EmbedError::Config(format!(
                "hidden_size {hidden} is not a multiple of num_attention_heads {heads}"
            )));
        }
        let intermediate = bounded(
            "intermediate_size",
            raw.intermediate_size,
            1,
            MAX_INTERMEDIATE,
        )?;
        let vocab = bounded("vocab_size", raw.vocab_size, 1, MAX_VOCAB)?;
        // Two positions at least: [CLS] and [SEP].
        let max_positions = bounded(
            "max_position_embeddings",
            raw.max_position_embeddings,
            2,
            MAX_POSITIONS,
        )?;
        let type_vocab = bounded(
            "type_vocab_size",
            Some(raw.type_vocab_size.unwrap_or(2)),
            1,
            MAX_TYPE_VOCAB,
        )?;
        let eps = raw.layer_norm_eps.unwrap_or(1e-12);
        if !(eps.is_finite() && eps > 0.0 && eps < 1.0) {
            return Err(EmbedError::Config(format!(
                "layer_norm_eps is {eps}, outside (0, 1)"
            )));
        }
        Ok(BertConfig {
            hidden,
            layers,
            heads,
            intermediate,
            vocab,
            max_positions,
            type_vocab,
            eps: eps as f32,
            activation,
        })
    }
}

/// How the last hidden states become one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pooling {
    /// The mean over the text's tokens (all-MiniLM-L6-v2).
    Mean,
    /// The `[CLS]` token's (first token's) state.
    Cls,
}

#[derive(Deserialize)]
struct RawPooling {
    word_embedding_dimension: Option<u64>,
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
    #[serde(default)]
    pooling_mode_weightedmean_tokens: bool,
    #[serde(default)]
    pooling_mode_lasttoken: bool,
}

impl Pooling {
    /// Parses `1_Pooling/config.json`: exactly one of mean or `[CLS]`
    /// pooling, over the model's hidden size.
    pub(super) fn parse(bytes: &[u8], hidden: usize) -> Result<Pooling, EmbedError> {
        let raw: RawPooling =
            serde_json::from_slice(bytes).map_err(|e| EmbedError::Pooling(e.to_string()))?;
        if let Some(dim) = raw.word_embedding_dimension
            && dim != hidden as u64
        {
            return Err(EmbedError::Pooling(format!(
                "word_embedding_dimension is {dim}, the model's hidden size {hidden}"
            )));
        }
        if raw.pooling_mode_max_tokens
            || raw.pooling_mode_mean_sqrt_len_tokens
            || raw.pooling_mode_weightedmean_tokens
            || raw.pooling_mode_lasttoken
        {
            return Err(EmbedError::Pooling(
                "only mean or [CLS] pooling is supported".into(),
            ));
        }
        match (raw.pooling_mode_mean_tokens, raw.pooling_mode_cls_token) {
            (true, false) => Ok(Pooling::Mean),
            (false, true) => Ok(Pooling::Cls),
            _ => Err(EmbedError::Pooling(
                "exactly one of pooling_mode_mean_tokens and pooling_mode_cls_token must be true"
                    .into(),
            )),
        }
    }
}
