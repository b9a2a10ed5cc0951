//! A tiny BERT-shaped model that the tests build themselves: deterministic
//! weights from a fixed LCG, written as safetensors bytes, a WordPiece
//! `tokenizer.json` of a few dozen tokens shaped like all-MiniLM-L6-v2's
//! (BertNormalizer, BertPreTokenizer, `[CLS] … [SEP]` template, and its
//! fixed padding and short truncation, which the engine must override), and
//! a `config.json`.

use std::collections::BTreeMap;

use safetensors::Dtype;
use safetensors::tensor::TensorView;
use serde_json::{Value, json};

use super::ModelFiles;

pub(super) const HIDDEN: usize = 16;
pub(super) const HEADS: usize = 2;
pub(super) const INTERMEDIATE: usize = 32;
pub(super) const LAYERS: usize = 2;
pub(super) const MAX_POSITIONS: usize = 32;

/// The vocabulary, in id order.
pub(super) const VOCAB: &[&str] = &[
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "cat", "dog", "sat", "on", "mat",
    "ran", "in", "park", "sun", "is", "warm", "play", "##ing", "##s", "##ed", ".", ",", "!", "?",
    "i", "you", "we", "like", "tea", "coffee", "staging", "needs", "vpn", "deploy", "server", "to",
    "and", "my",
];

pub(super) fn id(token: &str) -> u32 {
    VOCAB.iter().position(|t| *t == token).unwrap_or(usize::MAX) as u32
}

/// The model's tensors by name: shape and F32 values.
pub(super) type Tensors = BTreeMap<String, (Vec<usize>, Vec<f32>)>;

/// A model folder's files as owned bytes.
pub(super) struct Tiny {
    pub(super) config: Vec<u8>,
    pub(super) weights: Vec<u8>,
    pub(super) tokenizer: Vec<u8>,
    pub(super) pooling: Option<Vec<u8>>,
}

impl Tiny {
    pub(super) fn files(&self) -> ModelFiles<'_> {
        ModelFiles {
            config: &self.config,
            weights: &self.weights,
            tokenizer: &self.tokenizer,
            pooling: self.pooling.as_deref(),
        }
    }
}

/// Writes the tiny model as a sentence-transformers folder at `dir`
/// (`config.json`, `model.safetensors`, `tokenizer.json`,
/// `1_Pooling/config.json`), for the store's tests.
pub(crate) fn write_folder(dir: &std::path::Path) {
    let t = tiny();
    std::fs::create_dir_all(dir.join("1_Pooling")).unwrap();
    std::fs::write(dir.join("config.json"), &t.config).unwrap();
    std::fs::write(dir.join("model.safetensors"), &t.weights).unwrap();
    std::fs::write(dir.join("tokenizer.json"), &t.tokenizer).unwrap();
    std::fs::write(dir.join("1_Pooling/config.json"), t.pooling.unwrap()).unwrap();
}

/// The tiny model, F32, with a mean-pooling config as MiniLM's.
pub(super) fn tiny() -> Tiny {
    Tiny {
        config: config_json().to_string().into_bytes(),
        weights: serialize(&tensors(), Dtype::F32),
        tokenizer: tokenizer_json().to_string().into_bytes(),
        pooling: Some(pooling_json().to_string().into_bytes()),
    }
}

pub(super) fn config_json() -> Value {
    json!({
        "architectures": ["BertModel"],
        "attention_probs_dropout_prob": 0.1,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": HIDDEN,
        "initializer_range": 0.02,
        "intermediate_size": INTERMEDIATE,
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": MAX_POSITIONS,
        "model_type": "bert",
        "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "type_vocab_size": 2,
        "vocab_size": VOCAB.len(),
    })
}

pub(super) fn pooling_json() -> Value {
    json!({
        "word_embedding_dimension": HIDDEN,
        "pooling_mode_cls_token": false,
        "pooling_mode_mean_tokens": true,
        "pooling_mode_max_tokens": false,
        "pooling_mode_mean_sqrt_len_tokens": false,
    })
}

fn special(id: usize, content: &str) -> Value {
    json!({"id": id, "content": content, "single_word": false, "lstrip": false,
           "rstrip": false, "normalized": false, "special": true})
}

pub(super) fn tokenizer_json() -> Value {
    let vocab: serde_json::Map<String, Value> = VOCAB
        .iter()
        .enumerate()
        .map(|(i, t)| ((*t).to_string(), json!(i)))
        .collect();
    json!({
        "version": "1.0",
        "truncation": {"max_length": 8, "strategy": "LongestFirst", "stride": 0},
        "padding": {"strategy": {"Fixed": 12}, "direction": "Right", "pad_to_multiple_of": null,
                    "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"},
        "added_tokens": [special(0, "[PAD]"), special(1, "[UNK]"), special(2, "[CLS]"),
                         special(3, "[SEP]"), special(4, "[MASK]")],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                       "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]},
            },
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    })
}

/// Deterministic values in `[-scale, scale)` plus `offset`.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    fn fill(&mut self, n: usize, scale: f32, offset: f32) -> Vec<f32> {
        (0..n).map(|_| offset + scale * self.next()).collect()
    }
}

/// The tiny model's weights, named as in all-MiniLM-L6-v2's file.
pub(super) fn tensors() -> Tensors {
    let mut rng = Lcg(0x6d65_6d64_6972);
    let mut t = Tensors::new();
    let mut put = |name: &str, shape: &[usize], scale: f32, offset: f32| {
        let n = shape.iter().product();
        t.insert(
            name.to_string(),
            (shape.to_vec(), rng.fill(n, scale, offset)),
        );
    };
    let (h, i, v) = (HIDDEN, INTERMEDIATE, VOCAB.len());
    put("embeddings.word_embeddings.weight", &[v, h], 1.0, 0.0);
    put(
        "embeddings.position_embeddings.weight",
        &[MAX_POSITIONS, h],
        0.5,
        0.0,
    );
    put("embeddings.token_type_embeddings.weight", &[2, h], 0.2, 0.0);
    put("embeddings.LayerNorm.weight", &[h], 0.1, 1.0);
    put("embeddings.LayerNorm.bias", &[h], 0.1, 0.0);
    for l in 0..LAYERS {
        let p = format!("encoder.layer.{l}.");
        for (name, out, inp) in [
            ("attention.self.query", h, h),
            ("attention.self.key", h, h),
            ("attention.self.value", h, h),
            ("attention.output.dense", h, h),
            ("intermediate.dense", i, h),
            ("output.dense", h, i),
        ] {
            put(&format!("{p}{name}.weight"), &[out, inp], 0.5, 0.0);
            put(&format!("{p}{name}.bias"), &[out], 0.1, 0.0);
        }
        for name in ["attention.output.LayerNorm", "output.LayerNorm"] {
            put(&format!("{p}{name}.weight"), &[h], 0.1, 1.0);
            put(&format!("{p}{name}.bias"), &[h], 0.1, 0.0);
        }
    }
    put("pooler.dense.weight", &[h, h], 0.5, 0.0);
    put("pooler.dense.bias", &[h], 0.1, 0.0);
    t
}

/// `v` as IEEE half precision, truncated (flushed to zero below the normal
/// range): enough for the tests' weights, all well within it.
pub(super) fn f32_to_f16(v: f32) -> u16 {
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    if exponent <= 0 {
        return sign;
    }
    sign | ((exponent as u16) << 10) | ((bits >> 13) & 0x3ff) as u16
}

/// The values as the little-endian bytes of `dtype` (F32, F16, BF16, F64).
pub(super) fn encode(values: &[f32], dtype: Dtype) -> Vec<u8> {
    let mut out = Vec::new();
    for &v in values {
        match dtype {
            Dtype::F16 => out.extend_from_slice(&f32_to_f16(v).to_le_bytes()),
            Dtype::BF16 => out.extend_from_slice(&((v.to_bits() >> 16) as u16).to_le_bytes()),
            Dtype::F64 => out.extend_from_slice(&f64::from(v).to_le_bytes()),
            Dtype::I64 => out.extend_from_slice(&(v as i64).to_le_bytes()),
            _ => out.extend_from_slice(&v.to_le_bytes()),
        }
    }
    out
}

/// The tensors as a safetensors file, all of `dtype`, with MiniLM's I64
/// `embeddings.position_ids` beside them.
pub(super) fn serialize(tensors: &Tensors, dtype: Dtype) -> Vec<u8> {
    serialize_mixed(tensors, |_| dtype)
}

/// As [`serialize`], each tensor of the dtype `dtype_of` gives it.
pub(super) fn serialize_mixed(tensors: &Tensors, dtype_of: impl Fn(&str) -> Dtype) -> Vec<u8> {
    let mut bytes: BTreeMap<String, (Dtype, Vec<usize>, Vec<u8>)> = tensors
        .iter()
        .map(|(name, (shape, values))| {
            let dtype = dtype_of(name);
            (name.clone(), (dtype, shape.clone(), encode(values, dtype)))
        })
        .collect();
    let ids: Vec<u8> = (0..MAX_POSITIONS as i64)
        .flat_map(|i| i.to_le_bytes())
        .collect();
    bytes.insert(
        "embeddings.position_ids".into(),
        (Dtype::I64, vec![1, MAX_POSITIONS], ids),
    );
    let views: Vec<(String, TensorView<'_>)> = bytes
        .iter()
        .map(|(name, (dtype, shape, data))| {
            (
                name.clone(),
                TensorView::new(*dtype, shape.clone(), data).unwrap(),
            )
        })
        .collect();
    let mut info = std::collections::HashMap::new();
    info.insert("format".to_string(), "pt".to_string());
    safetensors::serialize(views, Some(info)).unwrap()
}
