//! The engine's model files, hostile or odd: weights in other dtypes,
//! truncated, reshaped or missing tensors, non-finite weights, bad JSON,
//! absurd configs, pooling files and tokenizers that must be refused
//! without a panic.

use safetensors::Dtype;
use serde_json::{Value, json};

use super::testmodel::{self, HIDDEN, INTERMEDIATE, Tensors, VOCAB, tiny};
use super::tests::{embed, load, load_err, with_config, with_tensors};
use super::tokenize::check_id;
use super::weights::f16_to_f32;
use super::{EmbedError, Model, cosine};

// ---- weights ----

#[test]
fn f16_widening_is_exact() {
    for (h, want) in [
        (0x0000u16, 0.0f32),
        (0x3c00, 1.0),
        (0xc000, -2.0),
        (0x3555, 0.333_251_95),
        (0x7bff, 65504.0),
        (0x0400, 6.103_515_6e-5),
        (0x0001, 5.960_464_5e-8),
        (0x83ff, -6.097_555e-5),
    ] {
        assert_eq!(f16_to_f32(h), want, "{h:#06x}");
    }
    assert!(f16_to_f32(0x8000).is_sign_negative());
    assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
    assert!(f16_to_f32(0x7e00).is_nan());
}

#[test]
fn f16_and_bf16_weights_are_converted() {
    let tensors = testmodel::tensors();
    for dtype in [Dtype::F16, Dtype::BF16] {
        let mut t = tiny();
        t.weights = testmodel::serialize(&tensors, dtype);
        // The same values, rounded as the file holds them, in F32.
        let mut rounded = tensors.clone();
        for (_, values) in rounded.values_mut() {
            for v in values.iter_mut() {
                *v = match dtype {
                    Dtype::F16 => f16_to_f32(testmodel::f32_to_f16(*v)),
                    _ => f32::from_bits(v.to_bits() & 0xffff_0000),
                };
            }
        }
        let mut exact = tiny();
        exact.weights = testmodel::serialize(&rounded, Dtype::F32);
        let texts = ["the cat sat", "we like tea"];
        assert_eq!(embed(&load(&t), &texts, 1), embed(&load(&exact), &texts, 1));
        let full = embed(&load(&tiny()), &texts, 1);
        assert!(cosine(&embed(&load(&t), &texts, 1)[0], &full[0]) > 0.99);
    }
}

#[test]
fn bert_prefixed_names_load() {
    let mut t = tiny();
    let renamed: Tensors = testmodel::tensors()
        .into_iter()
        .map(|(k, v)| (format!("bert.{k}"), v))
        .collect();
    t.weights = testmodel::serialize(&renamed, Dtype::F32);
    assert_eq!(
        embed(&load(&t), &["cat"], 1),
        embed(&load(&tiny()), &["cat"], 1)
    );
}

#[test]
fn a_truncated_safetensors_is_an_error() {
    let full = tiny().weights;
    for cut in [0, 4, 8, 9, 40, full.len() / 2, full.len() - 1] {
        let mut t = tiny();
        t.weights = full[..cut].to_vec();
        assert!(
            matches!(load_err(&t), EmbedError::Safetensors(_)),
            "cut at {cut}"
        );
    }
}

#[test]
fn a_missing_tensor_is_an_error() {
    for name in [
        "encoder.layer.1.output.dense.weight",
        "embeddings.LayerNorm.bias",
        "embeddings.word_embeddings.weight",
    ] {
        let t = with_tensors(|t| {
            t.remove(name);
        });
        match load_err(&t) {
            EmbedError::MissingTensor(missing) => assert_eq!(missing, name),
            other => panic!("{other}"),
        }
    }
}

#[test]
fn a_wrong_shape_is_an_error() {
    let t = with_tensors(|t| {
        t.get_mut("encoder.layer.0.intermediate.dense.weight")
            .unwrap()
            .0 = vec![HIDDEN, INTERMEDIATE];
    });
    match load_err(&t) {
        EmbedError::Shape {
            name,
            expected,
            found,
        } => {
            assert_eq!(name, "encoder.layer.0.intermediate.dense.weight");
            assert_eq!(expected, [INTERMEDIATE, HIDDEN]);
            assert_eq!(found, [HIDDEN, INTERMEDIATE]);
        }
        other => panic!("{other}"),
    }
    // A config that disagrees with the file.
    let mut t = with_config("hidden_size", json!(32));
    assert!(matches!(load_err(&t), EmbedError::Pooling(_)));
    t.pooling = None;
    assert!(matches!(load_err(&t), EmbedError::Shape { .. }));
    assert!(matches!(
        load_err(&with_config("vocab_size", json!(1000))),
        EmbedError::Shape { .. }
    ));
    assert!(matches!(
        load_err(&with_config("num_hidden_layers", json!(3))),
        EmbedError::MissingTensor(_)
    ));
}

#[test]
fn an_unknown_dtype_is_an_error() {
    for dtype in [Dtype::F64, Dtype::I64] {
        let mut t = tiny();
        t.weights = testmodel::serialize_mixed(&testmodel::tensors(), |name| {
            if name == "encoder.layer.0.attention.self.key.weight" {
                dtype
            } else {
                Dtype::F32
            }
        });
        assert!(
            matches!(load_err(&t), EmbedError::Dtype { .. }),
            "{dtype:?}"
        );
    }
}

#[test]
fn a_weight_that_is_not_finite_is_an_error() {
    for bad in [f32::NAN, f32::INFINITY] {
        let t = with_tensors(|t| {
            t.get_mut("encoder.layer.1.attention.self.value.weight")
                .unwrap()
                .1[3] = bad;
        });
        assert!(matches!(load_err(&t), EmbedError::NonFinite(_)));
    }
    // Finite but absurd weights overflow: an error, not NaN vectors.
    let t = with_tensors(|t| {
        for v in &mut t
            .get_mut("encoder.layer.1.output.LayerNorm.weight")
            .unwrap()
            .1
        {
            *v = f32::MAX;
        }
    });
    assert!(matches!(
        load(&t).embed(&["cat"], 1, None),
        Err(EmbedError::Overflow)
    ));
}

#[test]
fn corrupted_weights_never_panic() {
    let full = tiny().weights;
    let header = 8 + u64::from_le_bytes(full[..8].try_into().unwrap()) as usize;
    let mut state = 0x5eed_u64;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        (state >> 33) as usize % n
    };
    for round in 0..300 {
        let mut t = tiny();
        for _ in 0..1 + round % 4 {
            let at = next(header);
            t.weights[at] = next(256) as u8;
        }
        if let Ok(m) = Model::load(t.files()) {
            let _ = m.embed(&["the cat sat"], 1, None);
        }
    }
}

// ---- config, pooling, tokenizer files ----

#[test]
fn bad_json_is_an_error() {
    let mut t = tiny();
    t.config = b"{\"hidden_size\": 16,".to_vec();
    assert!(matches!(load_err(&t), EmbedError::Config(_)));
    assert!(matches!(
        load_err(&with_config("hidden_size", json!("16"))),
        EmbedError::Config(_)
    ));
    let mut t = tiny();
    t.tokenizer = b"{\"model\": ".to_vec();
    assert!(matches!(load_err(&t), EmbedError::Tokenizer(_)));
    let mut t = tiny();
    t.tokenizer = b"{}".to_vec();
    assert!(matches!(load_err(&t), EmbedError::Tokenizer(_)));
    let mut t = tiny();
    t.pooling = Some(b"[1, 2".to_vec());
    assert!(matches!(load_err(&t), EmbedError::Pooling(_)));
}

#[test]
fn absurd_config_values_are_refused() {
    for (key, value) in [
        ("hidden_size", json!(8192)),
        ("hidden_size", json!(0)),
        ("hidden_size", Value::Null),
        ("num_hidden_layers", json!(49)),
        ("num_attention_heads", json!(3)),
        ("num_attention_heads", json!(1000)),
        ("intermediate_size", json!(1u64 << 40)),
        ("vocab_size", json!(0)),
        ("vocab_size", json!(10_000_000)),
        ("max_position_embeddings", json!(10_000)),
        ("max_position_embeddings", json!(1)),
        ("max_position_embeddings", json!(-1)),
        ("type_vocab_size", json!(0)),
        ("layer_norm_eps", json!(-1.0)),
        ("layer_norm_eps", json!(2.0)),
        ("hidden_act", json!("relu")),
        ("model_type", json!("roberta")),
        ("position_embedding_type", json!("relative_key")),
    ] {
        let e = load_err(&with_config(key, value.clone()));
        assert!(matches!(e, EmbedError::Config(_)), "{key} = {value}: {e}");
    }
}

#[test]
fn the_pooling_config_is_checked() {
    for pooling in [
        json!({"word_embedding_dimension": HIDDEN, "pooling_mode_max_tokens": true}),
        json!({"word_embedding_dimension": HIDDEN + 1, "pooling_mode_mean_tokens": true}),
        json!({"word_embedding_dimension": HIDDEN}),
        json!({"pooling_mode_mean_tokens": true, "pooling_mode_cls_token": true}),
    ] {
        let mut t = tiny();
        t.pooling = Some(pooling.to_string().into_bytes());
        assert!(matches!(load_err(&t), EmbedError::Pooling(_)), "{pooling}");
    }
}

#[test]
fn a_token_id_past_the_vocabulary_cannot_occur() {
    // A vocabulary larger than the model's embeddings.
    let small = VOCAB.len() - 5;
    let mut t = with_tensors(|t| {
        let words = t.get_mut("embeddings.word_embeddings.weight").unwrap();
        words.0 = vec![small, HIDDEN];
        words.1.truncate(small * HIDDEN);
    });
    let mut config = testmodel::config_json();
    config["vocab_size"] = json!(small);
    t.config = config.to_string().into_bytes();
    assert!(
        matches!(load_err(&t), EmbedError::TokenOutOfVocab { id, vocab } if id as usize == VOCAB.len() - 1 && vocab == small)
    );
    // A special token of the template with an id of its own.
    let mut t = tiny();
    let mut tokenizer = testmodel::tokenizer_json();
    tokenizer["post_processor"]["special_tokens"]["[SEP]"]["ids"] = json!([4000]);
    t.tokenizer = tokenizer.to_string().into_bytes();
    assert!(matches!(
        load_err(&t),
        EmbedError::TokenOutOfVocab { id: 4000, .. }
    ));
    // And each id is checked as it is given.
    assert!(check_id(39, 40).is_ok());
    assert!(check_id(40, 40).is_err());
    assert!(check_id(u32::MAX, 40).is_err());
}

#[test]
fn corrupted_tokenizers_never_panic() {
    let good = tiny().tokenizer;
    let mut state = 0x70c3_u64;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        (state >> 33) as usize % n
    };
    let junk = b"{}[]\",:0123456789-e.#atrue";
    for _ in 0..200 {
        let mut t = tiny();
        t.tokenizer = good.clone();
        for _ in 0..3 {
            let at = next(t.tokenizer.len());
            t.tokenizer[at] = junk[next(junk.len())];
        }
        if let Ok(m) = Model::load(t.files()) {
            let _ = m.embed(&["The cat sat on the mat.", "zebra"], 1, None);
        }
    }
}
