//! Semantic recall, pure: the lexical score fused with a sentence
//! embedding's cosine into the one score the seed's 0.5 threshold reads.
//!
//! [`Fused`] is a [`Scorer`]: given the query's vector (embedded by the
//! caller, once per recall) and a lookup of each fact's cached vector, it
//! scores every fact lexically ([`Bm25Scorer`](super::Bm25Scorer) or any other scorer), then,
//! for each fact that has a vector, fuses the two:
//!
//! `e = w · cos(q, d) + (1 − w) · lexical(d)`.
//!
//! A fact without a vector keeps its lexical score (and is named in the
//! answer's `lexical`: scored lexically); a fact's score is never below its
//! lexical score (the model adds matches, it takes none away). Like the lexical scorer's half
//! point, the fused evidence that scores exactly 0.5 is set per query by
//! the best matches: the facts with `e ≥ max(floor, e_best − margin)`,
//! best first, whose texts fit in about `tokens` tokens; the last of them
//! sets the cut `c`, and `score = max(lexical, 1 / (1 + exp(−(e − c) /
//! spread)))`. A
//! query whose best fact is below `floor` keeps nothing fused (`c =
//! floor`). The defaults were calibrated on LoCoMo's dev conversations
//! (26 and 30) and the project's recall cases (docs/RECALL.md).

use std::time::Instant;

use super::score::{ScoreError, Scored, Scorer};

/// The fusion's parameters; [`Fusion::default`] is the calibrated one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    /// The weight `w` of the cosine in the fused evidence, in [0, 1]; the
    /// lexical score weighs `1 − w`.
    pub semantic: f64,
    /// A fact within this much fused evidence of the best fact's may score
    /// 0.5.
    pub margin: f64,
    /// The least fused evidence that scores 0.5.
    pub floor: f64,
    /// The best matches whose texts fit in about this many tokens (four
    /// characters a token, plus one a fact) score 0.5 or more.
    pub tokens: f64,
    /// How much fused evidence moves a score from 0.5 to about 0.73.
    pub spread: f64,
}

impl Default for Fusion {
    fn default() -> Fusion {
        Fusion {
            semantic: 0.65,
            margin: 0.15,
            floor: 0.3,
            tokens: 800.0,
            spread: 0.05,
        }
    }
}

impl Fusion {
    /// Fused scores in [0, 1], in order: `lexical[i]` is fact `i`'s lexical
    /// score, `cosine[i]` its cosine with the query (`None`: no vector; it
    /// keeps its lexical score), `docs[i]` its text (for the token count).
    pub fn fuse(&self, lexical: &[f64], cosine: &[Option<f32>], docs: &[&str]) -> Vec<f64> {
        let w = self.semantic.clamp(0.0, 1.0);
        let evidence: Vec<Option<f64>> = lexical
            .iter()
            .zip(cosine)
            .map(|(&l, c)| c.map(|c| w * f64::from(c) + (1.0 - w) * l))
            .collect();
        let best = evidence
            .iter()
            .flatten()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let least = self.floor.max(best - self.margin);
        let mut matches: Vec<usize> = (0..evidence.len())
            .filter(|&i| evidence[i].is_some_and(|e| e >= least))
            .collect();
        matches.sort_by(|&a, &b| {
            let (ea, eb) = (evidence[a].unwrap_or(0.0), evidence[b].unwrap_or(0.0));
            eb.total_cmp(&ea).then(a.cmp(&b))
        });
        let (mut used, mut cut) = (0.0, self.floor.max(best));
        for (n, i) in matches.into_iter().enumerate() {
            let chars = docs.get(i).map_or(0, |d| d.chars().count());
            let t = chars.div_ceil(4) as f64 + 1.0;
            // The best match always counts, however long.
            if n > 0 && used + t > self.tokens {
                break;
            }
            used += t;
            cut = evidence[i].unwrap_or(cut);
        }
        let spread = if self.spread > 0.0 { self.spread } else { 0.05 };
        lexical
            .iter()
            .zip(evidence)
            .map(|(&l, e)| match e {
                // The fused score, or the lexical one where that is higher:
                // the model adds matches, it never takes one away.
                Some(e) => l.max(1.0 / (1.0 + (-(e - cut) / spread).exp())),
                None => l,
            })
            .map(|s| {
                if s.is_finite() {
                    s.clamp(0.0, 1.0)
                } else {
                    0.0
                }
            })
            .collect()
    }
}

/// The facts' cached vectors, by text.
pub trait Vectors {
    /// The vector of a fact whose scored text is `text`, if one is cached.
    fn vector(&self, text: &str) -> Option<&[f32]>;
}

/// The fused scorer: a lexical scorer, the query's vector and the facts'.
pub struct Fused<'a> {
    /// The lexical scorer fused with.
    pub lexical: &'a dyn Scorer,
    /// How the two are fused.
    pub fusion: Fusion,
    /// The query's vector.
    pub query: &'a [f32],
    /// The facts' vectors.
    pub vectors: &'a dyn Vectors,
}

impl Scorer for Fused<'_> {
    fn score(&self, query: &str, docs: &[&str], deadline: Instant) -> Result<Vec<f64>, ScoreError> {
        Ok(self.scored(query, docs, deadline)?.scores)
    }

    fn scored(&self, query: &str, docs: &[&str], deadline: Instant) -> Result<Scored, ScoreError> {
        let lexical = self.lexical.score(query, docs, deadline)?;
        if lexical.len() != docs.len() {
            return Err(ScoreError::Failed(
                "the lexical scorer gave the wrong number of scores".into(),
            ));
        }
        let cosines: Vec<Option<f32>> = docs
            .iter()
            .map(|d| self.vectors.vector(d).map(|v| cosine(self.query, v)))
            .collect();
        let lexical_only: Vec<usize> = (0..docs.len()).filter(|&i| cosines[i].is_none()).collect();
        Ok(Scored {
            scores: self.fusion.fuse(&lexical, &cosines, docs),
            lexical: lexical_only,
        })
    }
}

/// The cosine similarity of two vectors: their dot product over the product
/// of their norms (for normalised vectors, the dot product). 0 when either
/// is zero, not finite, or their lengths differ.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    // Eight partial sums each, so that the loop runs in SIMD lanes; the
    // order of the additions is fixed, so the result is too.
    const LANES: usize = 8;
    let (mut dot, mut na, mut nb) = ([0.0f32; LANES], [0.0f32; LANES], [0.0f32; LANES]);
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..LANES {
            dot[i] += x[i] * y[i];
            na[i] += x[i] * x[i];
            nb[i] += y[i] * y[i];
        }
    }
    for (i, (x, y)) in ra.iter().zip(rb).enumerate() {
        dot[i] += x * y;
        na[i] += x * x;
        nb[i] += y * y;
    }
    let (dot, na, nb): (f32, f32, f32) = (dot.iter().sum(), na.iter().sum(), nb.iter().sum());
    let c = dot / (na.sqrt() * nb.sqrt());
    if c.is_finite() {
        c.clamp(-1.0, 1.0)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::time::Duration;

    use super::*;
    use crate::recall::{Bm25Scorer, KEEP_THRESHOLD};

    struct Map(HashMap<String, Vec<f32>>);
    impl Vectors for Map {
        fn vector(&self, text: &str) -> Option<&[f32]> {
            self.0.get(text).map(Vec::as_slice)
        }
    }

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn cosine_of_parallel_orthogonal_and_bad_vectors() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
        assert!((cosine(&a, &a) - 1.0).abs() < 1e-6);
        let mut b = [0.0f32; 9];
        b[0] = 2.0;
        let mut c = [0.0f32; 9];
        c[1] = 3.0;
        assert_eq!(cosine(&b, &c), 0.0);
        assert_eq!(cosine(&a, &a[..8]), 0.0, "lengths differ");
        assert_eq!(cosine(&[0.0; 9], &a), 0.0, "a zero vector");
        assert_eq!(cosine(&[f32::NAN; 9], &a), 0.0, "not finite");
    }

    #[test]
    fn the_best_matches_fitting_the_tokens_score_half_or_more() {
        let f = Fusion::default();
        let docs = ["a fact"; 5];
        let lexical = [0.0; 5];
        let cos = [Some(0.9), Some(0.8), Some(0.3), None, Some(0.55)];
        let s = f.fuse(&lexical, &cos, &docs);
        assert!(s[0] > s[1] && s[1] >= KEEP_THRESHOLD, "{s:?}");
        // 0.65 · 0.55 ≈ 0.36 is more than the margin (0.15) below the
        // best (0.65 · 0.9 ≈ 0.59): not kept.
        assert!(s[4] < KEEP_THRESHOLD && s[2] < s[4], "{s:?}");
        assert_eq!(s[3], 0.0, "no vector: its lexical score");
        // A query no fact is near keeps nothing fused.
        let far = f.fuse(&[0.0; 3], &[Some(0.2), Some(0.1), Some(0.3)], &docs[..3]);
        assert!(far.iter().all(|&s| s < KEEP_THRESHOLD), "{far:?}");
    }

    #[test]
    fn the_token_budget_cuts_the_best_matches() {
        let f = Fusion {
            tokens: 30.0,
            ..Fusion::default()
        };
        let long = "x".repeat(80); // 21 tokens
        let docs = [long.as_str(); 3];
        let s = f.fuse(&[0.0; 3], &[Some(0.9), Some(0.89), Some(0.88)], &docs);
        assert!(s[0] >= KEEP_THRESHOLD, "{s:?}");
        assert!(s[1] < KEEP_THRESHOLD && s[2] < KEEP_THRESHOLD, "{s:?}");
        // The best match counts even when it alone is past the budget.
        let longer = "x".repeat(400);
        let one = f.fuse(&[0.0], &[Some(0.9)], &[longer.as_str()]);
        assert!(one[0] >= KEEP_THRESHOLD, "{one:?}");
    }

    #[test]
    fn the_lexical_score_lifts_a_fact_the_cosine_alone_would_not() {
        let f = Fusion::default();
        let docs = ["a", "b"];
        let alone = f.fuse(&[0.0, 0.0], &[Some(0.9), Some(0.5)], &docs);
        let lifted = f.fuse(&[0.0, 0.45], &[Some(0.9), Some(0.5)], &docs);
        assert!(alone[1] < KEEP_THRESHOLD, "{alone:?}");
        assert!(lifted[1] >= KEEP_THRESHOLD, "{lifted:?}");
    }

    #[test]
    fn a_lexical_match_stays_a_match_whatever_the_cosine() {
        let f = Fusion::default();
        let s = f.fuse(&[0.8, 0.0], &[Some(0.05), Some(0.9)], &["a", "b"]);
        assert!(s[0] >= 0.8 && s[1] >= KEEP_THRESHOLD, "{s:?}");
    }

    #[test]
    fn the_fused_scorer_names_the_facts_scored_lexically() {
        let docs = [
            "The staging deploy needs the VPN on",
            "Prefers tabs over spaces in Go code",
            "Invoices go out monthly",
        ];
        let q = unit(&[1.0, 0.2, 0.0]);
        let mut m = HashMap::new();
        m.insert(docs[0].to_owned(), unit(&[1.0, 0.1, 0.0]));
        m.insert(docs[1].to_owned(), unit(&[0.0, 1.0, 0.3]));
        let vectors = Map(m);
        let lexical = Bm25Scorer::default();
        let s = Fused {
            lexical: &lexical,
            fusion: Fusion::default(),
            query: &q,
            vectors: &vectors,
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        let out = s.scored("how do I reach staging", &docs, deadline).unwrap();
        assert_eq!(out.lexical, vec![2]);
        assert_eq!(out.scores.len(), 3);
        assert!(out.scores[0] >= KEEP_THRESHOLD, "{:?}", out.scores);
        assert!(out.scores[1] < KEEP_THRESHOLD, "{:?}", out.scores);
        assert_eq!(s.score("x", &docs, deadline).unwrap().len(), 3);
        // A passed deadline fails as the lexical scorer does.
        let past = Instant::now() - Duration::from_secs(1);
        assert_eq!(
            s.scored("staging", &docs, past).unwrap_err(),
            ScoreError::TimedOut
        );
    }
}
