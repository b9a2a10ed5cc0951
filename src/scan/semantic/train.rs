//! Training the semantic layer's classifier: L2-regularised logistic
//! regression over the model's vectors, classes weighted to balance, fitted
//! by full-batch gradient descent from zero weights for a fixed number of
//! steps (deterministic: no randomness, a fixed order, `f64` sums). The
//! threshold is chosen on out-of-fold scores of the tuning data alone
//! ([`FOLDS`]-fold, sample `i` in fold `i % FOLDS`): the lowest that flags at
//! most [`MAX_BENIGN_SHARE`] of the benign samples (the highest recall
//! there), placed midway to the next attack's score above it. The weights
//! are then fitted once more on every sample.

/// The folds of the cross-validation that chooses the threshold.
pub const FOLDS: usize = 5;
/// Gradient steps per fit.
pub const ITERATIONS: usize = 3000;
/// The step size (the vectors are unit-length, so the loss's curvature is
/// at most 1/4 and this step is stable).
pub const LEARNING_RATE: f64 = 4.0;
/// The L2 penalty on the weights (not the bias).
pub const L2: f64 = 1e-3;
/// The greatest share of the tuning benign samples the threshold may flag
/// (out of fold): 0.5%.
pub const MAX_BENIGN_SHARE: f64 = 0.005;

/// A trained classifier, and how its threshold did out of fold on the data.
#[derive(Debug, Clone, PartialEq)]
pub struct Trained {
    /// One weight per dimension.
    pub weights: Vec<f32>,
    /// The bias.
    pub bias: f32,
    /// The threshold on the logit.
    pub threshold: f32,
    /// Out of fold: attacks at or above the threshold, and attacks.
    pub attacks_flagged: (usize, usize),
    /// Out of fold: benign samples at or above the threshold, and benign
    /// samples.
    pub benign_flagged: (usize, usize),
}

/// Trains on vectors `xs` labelled `ys` (true: an attack).
pub fn train(xs: &[Vec<f32>], ys: &[bool]) -> Trained {
    let n = xs.len().min(ys.len());
    let mut oof = vec![0.0_f64; n];
    for k in 0..FOLDS {
        let fitted: Vec<usize> = (0..n).filter(|i| i % FOLDS != k).collect();
        let (w, b) = fit(xs, ys, &fitted);
        for i in (0..n).filter(|i| i % FOLDS == k) {
            oof[i] = logit(&w, b, &xs[i]);
        }
    }
    let threshold = choose(&oof, &ys[..n]);
    let count = |attack: bool| {
        let of = (0..n).filter(|&i| ys[i] == attack);
        (
            of.clone().filter(|&i| oof[i] >= threshold).count(),
            of.count(),
        )
    };
    let all: Vec<usize> = (0..n).collect();
    let (w, b) = fit(xs, ys, &all);
    Trained {
        weights: w.iter().map(|&x| x as f32).collect(),
        bias: b as f32,
        threshold: threshold as f32,
        attacks_flagged: count(true),
        benign_flagged: count(false),
    }
}

fn logit(w: &[f64], b: f64, x: &[f32]) -> f64 {
    w.iter()
        .zip(x)
        .fold(b, |acc, (w, x)| acc + w * f64::from(*x))
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Weighted logistic regression on the samples `rows`.
fn fit(xs: &[Vec<f32>], ys: &[bool], rows: &[usize]) -> (Vec<f64>, f64) {
    let dim = rows.first().map_or(0, |&i| xs[i].len());
    let pos = rows.iter().filter(|&&i| ys[i]).count().max(1) as f64;
    let neg = rows.iter().filter(|&&i| !ys[i]).count().max(1) as f64;
    let total = rows.len().max(1) as f64;
    // Each class weighs half of the loss.
    let weight = |y: bool| {
        if y {
            total / (2.0 * pos)
        } else {
            total / (2.0 * neg)
        }
    };
    let mut w = vec![0.0_f64; dim];
    let mut b = 0.0_f64;
    let mut grad = vec![0.0_f64; dim];
    for _ in 0..ITERATIONS {
        grad.iter_mut().for_each(|g| *g = 0.0);
        let mut grad_b = 0.0;
        for &i in rows {
            let x = &xs[i];
            let err = (sigmoid(logit(&w, b, x)) - f64::from(u8::from(ys[i]))) * weight(ys[i]);
            for (g, v) in grad.iter_mut().zip(x) {
                *g += err * f64::from(*v);
            }
            grad_b += err;
        }
        for (wj, g) in w.iter_mut().zip(&grad) {
            *wj -= LEARNING_RATE * (g / total + L2 * *wj);
        }
        b -= LEARNING_RATE * grad_b / total;
    }
    (w, b)
}

/// The threshold: above the benign score that must stay unflagged, midway
/// to the next attack score.
fn choose(scores: &[f64], ys: &[bool]) -> f64 {
    let mut benign: Vec<f64> = scores
        .iter()
        .zip(ys)
        .filter(|(_, y)| !**y)
        .map(|(s, _)| *s)
        .collect();
    benign.sort_by(|a, b| b.total_cmp(a));
    let allowed = (MAX_BENIGN_SHARE * benign.len() as f64).floor() as usize;
    let Some(&floor) = benign.get(allowed) else {
        return f64::NEG_INFINITY;
    };
    let next_attack = scores
        .iter()
        .zip(ys)
        .filter(|(s, y)| **y && **s > floor)
        .map(|(s, _)| *s)
        .min_by(f64::total_cmp);
    match next_attack {
        Some(a) => (floor + a) / 2.0,
        None => floor + 1.0,
    }
}
