//! The BERT encoder's forward pass over a batch of unpadded sequences, with
//! pooling and normalisation.
//!
//! The tokens of all the batch's sequences are rows of one matrix, so every
//! dense layer is one matrix product (`[tokens × hidden] · [hidden × out]`,
//! by [`super::dense`]); attention (small products, by `matrixmultiply`
//! through `ndarray`) runs per sequence and head, each sequence attending
//! only to its own tokens (no padding, so no mask). Each row of a product is computed independently of the other rows,
//! so a sequence's result does not depend on the batch it is in.

use ndarray::linalg::general_mat_mul;
use std::ops::Range;

use ndarray::{Array2, ArrayView2, ArrayViewMut2, Axis, Slice};

use super::config::{Activation, BertConfig, Pooling};
use super::dense;
use super::weights::{Linear, Norm, Weights};
use super::{EmbedError, Stop};

/// Embeds each sequence of token ids (each non-empty unless the tokenizer
/// adds no special tokens, each in the vocabulary and within the positions)
/// as one pooled, L2-normalised vector.
pub(super) fn embed_batch(
    w: &Weights,
    config: &BertConfig,
    pooling: Pooling,
    seqs: &[&[u32]],
    stop: &Stop,
    split: bool,
) -> Result<Vec<Vec<f32>>, EmbedError> {
    stop.check()?;
    let h = config.hidden;
    let total: usize = seqs.iter().map(|s| s.len()).sum();
    let mut x = Array2::<f32>::zeros((total, h));
    {
        let rows = contiguous(&mut x)?;
        let mut rows = rows.chunks_exact_mut(h);
        for seq in seqs {
            for (pos, &id) in seq.iter().enumerate() {
                let id = id as usize;
                if id >= w.words.nrows() || pos >= w.positions.nrows() {
                    return Err(EmbedError::Internal(
                        "a token id or position past the embeddings",
                    ));
                }
                let row = rows
                    .next()
                    .ok_or(EmbedError::Internal("fewer rows than tokens"))?;
                let word = w.words.row(id);
                let position = w.positions.row(pos);
                for (j, out) in row.iter_mut().enumerate() {
                    *out = word[j] + position[j] + w.token_type[j];
                }
            }
        }
    }
    layer_norm(&mut x, &w.embedding_norm, config.eps)?;

    let heads = config.heads;
    let dh = h / heads;
    let scale = 1.0 / (dh as f32).sqrt();
    let longest = seqs.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut scores_buf = vec![0.0f32; longest * longest];
    for layer in &w.layers {
        stop.check()?;
        let qkv = linear(&x, &layer.qkv, split)?;
        let mut context = Array2::<f32>::zeros((total, h));
        let mut offset = 0;
        for seq in seqs {
            let n = seq.len();
            if n == 0 {
                continue;
            }
            let rows = offset..offset + n;
            let mut scores = ArrayViewMut2::from_shape((n, n), &mut scores_buf[..n * n])
                .map_err(|_| EmbedError::Internal("the attention scores' buffer"))?;
            for head in 0..heads {
                let cols = head * dh..(head + 1) * dh;
                let q = block(&qkv, rows.clone(), cols.clone());
                let k = block(&qkv, rows.clone(), h + cols.start..h + cols.end);
                let v = block(&qkv, rows.clone(), 2 * h + cols.start..2 * h + cols.end);
                general_mat_mul(scale, &q, &k.t(), 0.0, &mut scores);
                for mut row in scores.rows_mut() {
                    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    let mut sum = 0.0f32;
                    for value in row.iter_mut() {
                        *value = (*value - max).exp();
                        sum += *value;
                    }
                    let inverse = 1.0 / sum;
                    for value in row.iter_mut() {
                        *value *= inverse;
                    }
                }
                let mut out = block_mut(&mut context, rows.clone(), cols);
                general_mat_mul(1.0, &scores, &v, 0.0, &mut out);
            }
            offset += n;
        }
        drop(qkv);
        let mut attended = linear(&context, &layer.attention_out, split)?;
        attended += &x;
        layer_norm(&mut attended, &layer.attention_norm, config.eps)?;
        x = attended;

        let mut inner = linear(&x, &layer.intermediate, split)?;
        let values = contiguous(&mut inner)?;
        match config.activation {
            Activation::GeluErf => values.iter_mut().for_each(|v| *v = gelu_erf(*v)),
            Activation::GeluTanh => values.iter_mut().for_each(|v| *v = gelu_tanh(*v)),
        }
        let mut out = linear(&inner, &layer.output, split)?;
        drop(inner);
        out += &x;
        layer_norm(&mut out, &layer.output_norm, config.eps)?;
        x = out;
    }

    let mut vectors = Vec::with_capacity(seqs.len());
    let mut offset = 0;
    for seq in seqs {
        let n = seq.len();
        let mut v = vec![0.0f32; h];
        if n > 0 {
            let states = block(&x, offset..offset + n, 0..h);
            match pooling {
                Pooling::Mean => {
                    for row in states.rows() {
                        for (acc, &value) in v.iter_mut().zip(row.iter()) {
                            *acc += value;
                        }
                    }
                    let inverse = 1.0 / n as f32;
                    v.iter_mut().for_each(|value| *value *= inverse);
                }
                Pooling::Cls => {
                    for (acc, &value) in v.iter_mut().zip(states.row(0).iter()) {
                        *acc = value;
                    }
                }
            }
            let norm = v
                .iter()
                .map(|&value| f64::from(value) * f64::from(value))
                .sum::<f64>()
                .sqrt();
            if !norm.is_finite() {
                return Err(EmbedError::Overflow);
            }
            if norm > 0.0 {
                let inverse = (1.0 / norm) as f32;
                v.iter_mut().for_each(|value| *value *= inverse);
            }
        }
        offset += n;
        vectors.push(v);
    }
    Ok(vectors)
}

/// The rows and columns of `a` in the ranges (within its bounds).
fn block(a: &Array2<f32>, rows: Range<usize>, cols: Range<usize>) -> ArrayView2<'_, f32> {
    let mut view = a.view();
    view.slice_axis_inplace(Axis(0), Slice::from(rows));
    view.slice_axis_inplace(Axis(1), Slice::from(cols));
    view
}

/// [`block`], to write.
fn block_mut(
    a: &mut Array2<f32>,
    rows: Range<usize>,
    cols: Range<usize>,
) -> ArrayViewMut2<'_, f32> {
    let mut view = a.view_mut();
    view.slice_axis_inplace(Axis(0), Slice::from(rows));
    view.slice_axis_inplace(Axis(1), Slice::from(cols));
    view
}

/// `x · Wᵀ + b` for every row of `x` ([`dense::product`]); with `split`,
/// the output's columns in two halves, the second on a second thread (one
/// short text on two threads: each element is the same sum either way).
fn linear(x: &Array2<f32>, layer: &Linear, split: bool) -> Result<Array2<f32>, EmbedError> {
    const SIZES: EmbedError = EmbedError::Internal("a dense layer's operands of other sizes");
    let cols = layer.outputs();
    let mut out = Array2::<f32>::zeros((x.nrows(), cols));
    let ops = dense::Operands {
        x: x.as_slice().ok_or(SIZES)?,
        weight: &layer.weight,
        bias: &layer.bias,
        inputs: layer.inputs,
    };
    let mid = cols / 2;
    let values = contiguous(&mut out)?;
    if !split || mid == 0 || values.is_empty() {
        let mut rows: Vec<&mut [f32]> = values.chunks_exact_mut(cols.max(1)).collect();
        return if dense::product(ops, 0..cols, &mut rows) {
            Ok(out)
        } else {
            Err(SIZES)
        };
    }
    let (mut left, mut right): (Vec<&mut [f32]>, Vec<&mut [f32]>) = values
        .chunks_exact_mut(cols)
        .map(|row| row.split_at_mut(mid))
        .unzip();
    let (here, there) = std::thread::scope(|scope| {
        let other = std::thread::Builder::new()
            .name("memdir-embed".into())
            .spawn_scoped(scope, || dense::product(ops, mid..cols, &mut right));
        let here = dense::product(ops, 0..mid, &mut left);
        (here, other.ok().and_then(|handle| handle.join().ok()))
    });
    // A thread that could not start (or did not finish) leaves its half to
    // this one.
    let done = here && there.unwrap_or_else(|| dense::product(ops, mid..cols, &mut right));
    if done { Ok(out) } else { Err(SIZES) }
}

/// The array's values as one slice, row after row.
fn contiguous(a: &mut Array2<f32>) -> Result<&mut [f32], EmbedError> {
    a.as_slice_mut().ok_or(EmbedError::Internal(
        "an activation matrix is not contiguous",
    ))
}

/// LayerNorm of every row: `(x − mean) / √(var + eps) · gain + bias`, the
/// statistics in f64.
fn layer_norm(x: &mut Array2<f32>, norm: &Norm, eps: f32) -> Result<(), EmbedError> {
    let h = norm.gain.len();
    if h == 0 || x.ncols() != h {
        return Err(EmbedError::Internal("a LayerNorm of another width"));
    }
    for row in contiguous(x)?.chunks_exact_mut(h) {
        let mean = row.iter().map(|&v| f64::from(v)).sum::<f64>() / h as f64;
        let var = row
            .iter()
            .map(|&v| {
                let d = f64::from(v) - mean;
                d * d
            })
            .sum::<f64>()
            / h as f64;
        let inverse = 1.0 / (var + f64::from(eps)).sqrt();
        let (mean, inverse) = (mean as f32, inverse as f32);
        for ((v, &g), &b) in row.iter_mut().zip(&norm.gain).zip(&norm.bias) {
            *v = (*v - mean) * inverse * g + b;
        }
    }
    Ok(())
}

/// The exact GELU, `x · Φ(x) = x/2 · (1 + erf(x/√2))`.
pub(super) fn gelu_erf(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// The tanh approximation of GELU (`gelu_new`).
pub(super) fn gelu_tanh(x: f32) -> f32 {
    const SQRT_2_OVER_PI: f32 = 0.797_884_6;
    0.5 * x * (1.0 + (SQRT_2_OVER_PI * (x + 0.044_715 * x * x * x)).tanh())
}

/// The error function in F32: a rational approximation on [−4, 4] (±1
/// beyond, where erf is 1 to F32's precision), within 5·10⁻⁷ of erf
/// everywhere (the coefficients of Eigen's and XLA's `erf` for float).
pub(super) fn erf(x: f32) -> f32 {
    const ALPHA: [f64; 7] = [
        -2.726_142_258_013_06e-10,
        2.770_681_424_959_02e-8,
        -2.101_024_020_825_08e-6,
        -5.692_506_394_623_46e-5,
        -7.349_906_303_268_55e-4,
        -2.954_599_808_540_25e-3,
        -1.609_603_332_624_15e-2,
    ];
    const BETA: [f64; 5] = [
        -1.456_607_184_649_96e-5,
        -2.133_740_552_789_05e-4,
        -1.682_826_974_382_03e-3,
        -7.373_329_167_204_68e-3,
        -1.426_473_905_141_89e-2,
    ];
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let p = ALPHA.iter().fold(0.0f32, |acc, &c| acc * x2 + c as f32) * x;
    let q = BETA.iter().fold(0.0f32, |acc, &c| acc * x2 + c as f32);
    p / q
}
