//! The dense layers' product, `y = x · Wᵀ + b`, read straight from the
//! weights' own `[out, in]` layout.
//!
//! Every output is the dot product of a row of `x` (a token) with a row of
//! `W` (an output's weights), both contiguous. The rows of `W` are read in
//! blocks of [`OUTPUTS`], each block dotted with the tokens [`TOKENS`] at a
//! time, so a block's weights stay in the first-level cache while the tokens
//! pass over them, and the tokens in chunks of [`PASS`], so a chunk's
//! activations stay in the second-level cache while the whole of `W` passes
//! over them once. Nothing is copied or packed: a short text (a query) reads
//! each weight from memory once per product, which is what bounds its time.
//!
//! The SIMD width is chosen at run time (AVX2 with FMA where the processor
//! has it) by `pulp`'s safe dispatch. Each output element is summed in one
//! fixed order whatever block it falls in, so the result of a row does not
//! depend on the other rows, on the block sizes, or on how the outputs are
//! split between threads.

use std::ops::Range;

use pulp::{Arch, Simd, WithSimd};

/// Outputs (rows of `W`) per block.
const OUTPUTS: usize = 4;
/// Tokens (rows of `x`) per block: `OUTPUTS × TOKENS` accumulators fit in
/// the 16 vector registers of AVX2 with room for the loads.
const TOKENS: usize = 3;
/// Tokens per pass over `W`: a multiple of [`TOKENS`] whose activations (at
/// most `PASS × in` values) stay in the second-level cache.
const PASS: usize = 48;

/// A product's operands: `x` is `rows × inputs`, `weight` is
/// `outputs × inputs` and `bias` is `outputs`, all row after row.
#[derive(Clone, Copy)]
pub(super) struct Operands<'a> {
    pub(super) x: &'a [f32],
    pub(super) weight: &'a [f32],
    pub(super) bias: &'a [f32],
    pub(super) inputs: usize,
}

/// Writes outputs `cols` of every row of `x` into `out`, one slice per row
/// of `x`, each `cols.len()` long: `out[t][j] = b[o] + Σᵢ x[t][i] · W[o][i]`
/// with `o = cols.start + j`. Operands of other sizes write nothing and
/// answer `false` (an internal error for the caller).
pub(super) fn product(ops: Operands<'_>, cols: Range<usize>, out: &mut [&mut [f32]]) -> bool {
    let k = ops.inputs;
    let rows = out.len();
    let fits = k > 0
        && ops.x.len() == rows * k
        && cols.start <= cols.end
        && ops.weight.len() >= cols.end * k
        && ops.bias.len() >= cols.end
        && out.iter().all(|row| row.len() == cols.len());
    if !fits {
        return false;
    }
    Arch::new().dispatch(Product { ops, cols, out });
    true
}

struct Product<'a, 'o, 'r> {
    ops: Operands<'a>,
    cols: Range<usize>,
    out: &'o mut [&'r mut [f32]],
}

impl WithSimd for Product<'_, '_, '_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let Product { ops, cols, out } = self;
        let rows = out.len();
        let mut t0 = 0;
        while t0 < rows {
            let t1 = (t0 + PASS).min(rows);
            let mut o = cols.start;
            while o < cols.end {
                if o + OUTPUTS <= cols.end {
                    outputs::<S, OUTPUTS>(simd, &ops, o, t0..t1, cols.start, out);
                    o += OUTPUTS;
                } else {
                    outputs::<S, 1>(simd, &ops, o, t0..t1, cols.start, out);
                    o += 1;
                }
            }
            t0 = t1;
        }
    }
}

/// Outputs `o .. o + O` of the rows `tokens`.
#[inline(always)]
fn outputs<S: Simd, const O: usize>(
    simd: S,
    ops: &Operands<'_>,
    o: usize,
    tokens: Range<usize>,
    first: usize,
    out: &mut [&mut [f32]],
) {
    let k = ops.inputs;
    let w: [&[f32]; O] = std::array::from_fn(|j| &ops.weight[(o + j) * k..(o + j + 1) * k]);
    let col = o - first;
    let bias = &ops.bias[o..o + O];
    let row = |t: usize| &ops.x[t * k..(t + 1) * k];
    let mut t = tokens.start;
    while t < tokens.end {
        if t + TOKENS <= tokens.end {
            let x: [&[f32]; TOKENS] = std::array::from_fn(|r| row(t + r));
            write(&tile::<S, O, TOKENS>(simd, w, x), bias, &mut out[t..], col);
            t += TOKENS;
        } else {
            write(
                &tile::<S, O, 1>(simd, w, [row(t)]),
                bias,
                &mut out[t..],
                col,
            );
            t += 1;
        }
    }
}

/// A tile's sums plus the bias, into the rows `out` from column `col`.
#[inline(always)]
fn write<const O: usize, const T: usize>(
    sums: &[[f32; T]; O],
    bias: &[f32],
    out: &mut [&mut [f32]],
    col: usize,
) {
    for (r, row) in out.iter_mut().take(T).enumerate() {
        for (j, (cell, b)) in row[col..col + O].iter_mut().zip(bias).enumerate() {
            *cell = sums[j][r] + b;
        }
    }
}

/// The `O × T` dot products of the weight rows `w` with the token rows `x`
/// (all of one length). Each is summed the same way whatever `O` and `T`:
/// lane by lane over the vector-wide part, the lanes added up, then the
/// remaining values in order.
#[inline(always)]
fn tile<S: Simd, const O: usize, const T: usize>(
    simd: S,
    w: [&[f32]; O],
    x: [&[f32]; T],
) -> [[f32; T]; O] {
    let wv: [(&[S::f32s], &[f32]); O] = std::array::from_fn(|j| S::as_simd_f32s(w[j]));
    let xv: [(&[S::f32s], &[f32]); T] = std::array::from_fn(|r| S::as_simd_f32s(x[r]));
    let len = wv[0].0.len();
    let zero = simd.splat_f32s(0.0);
    let mut acc = [[zero; T]; O];
    for i in 0..len {
        let xs: [S::f32s; T] = std::array::from_fn(|r| xv[r].0[i]);
        for j in 0..O {
            let wi = wv[j].0[i];
            for r in 0..T {
                acc[j][r] = simd.mul_add_f32s(wi, xs[r], acc[j][r]);
            }
        }
    }
    std::array::from_fn(|j| {
        std::array::from_fn(|r| {
            let mut sum = simd.reduce_sum_f32s(acc[j][r]);
            for (a, b) in wv[j].1.iter().zip(xv[r].1) {
                sum += a * b;
            }
            sum
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic values in about [−1, 1].
    fn values(n: usize, seed: u32) -> Vec<f32> {
        let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                (s % 2001) as f32 / 1000.0 - 1.0
            })
            .collect()
    }

    fn run(x: &[f32], w: &[f32], b: &[f32], k: usize, cols: Range<usize>) -> Vec<Vec<f32>> {
        let rows = x.len() / k;
        let mut out = vec![vec![0.0f32; cols.len()]; rows];
        let mut slices: Vec<&mut [f32]> = out.iter_mut().map(Vec::as_mut_slice).collect();
        let ops = Operands {
            x,
            weight: w,
            bias: b,
            inputs: k,
        };
        assert!(product(ops, cols, &mut slices));
        out
    }

    #[test]
    fn the_product_is_the_dot_products_plus_the_bias() {
        // Sizes that leave remainders everywhere: inputs past the vector
        // width, outputs past a block, tokens past a block and a pass.
        for (rows, k, n) in [(1, 8, 4), (5, 13, 7), (50, 37, 9), (2, 384, 6)] {
            let (x, w, b) = (values(rows * k, 1), values(n * k, 2), values(n, 3));
            let got = run(&x, &w, &b, k, 0..n);
            for t in 0..rows {
                for o in 0..n {
                    let exact: f64 = (0..k)
                        .map(|i| f64::from(x[t * k + i]) * f64::from(w[o * k + i]))
                        .sum::<f64>()
                        + f64::from(b[o]);
                    let err = (f64::from(got[t][o]) - exact).abs();
                    assert!(
                        err < 1e-4 * (k as f64),
                        "{rows}×{k}·{n}: [{t}][{o}] off by {err}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_row_is_the_same_alone_in_a_batch_or_in_halves() {
        let (rows, k, n) = (53, 40, 11);
        let (x, w, b) = (values(rows * k, 4), values(n * k, 5), values(n, 6));
        let all = run(&x, &w, &b, k, 0..n);
        for t in 0..rows {
            let alone = run(&x[t * k..(t + 1) * k], &w, &b, k, 0..n);
            assert_eq!(
                alone[0].iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                all[t].iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
        }
        let left = run(&x, &w, &b, k, 0..5);
        let right = run(&x, &w, &b, k, 5..n);
        for t in 0..rows {
            let joined: Vec<u32> = left[t]
                .iter()
                .chain(&right[t])
                .map(|v| v.to_bits())
                .collect();
            assert_eq!(
                joined,
                all[t].iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn operands_of_other_sizes_write_nothing() {
        let (x, w, b) = (values(6, 1), values(6, 2), values(2, 3));
        let mut row = [7.0f32; 2];
        let mut out: Vec<&mut [f32]> = vec![&mut row];
        let ops = |inputs| Operands {
            x: &x[..3],
            weight: &w,
            bias: &b,
            inputs,
        };
        assert!(!product(ops(0), 0..2, &mut out));
        assert!(!product(ops(2), 0..2, &mut out));
        assert!(!product(ops(3), 0..3, &mut out));
        assert_eq!(row, [7.0; 2]);
    }
}
