//! Lexical similarity over the terms recall scores with: the git merge
//! driver pairs an edit with the entry it replaced by it, and the daily
//! review finds near-duplicates by it.

use super::terms;

/// A text's distinct terms, sorted.
pub fn term_set(text: &str) -> Vec<String> {
    let mut t = terms(text);
    t.sort_unstable();
    t.dedup();
    t
}

/// The Jaccard index of two sorted term sets: shared terms over all terms
/// (0 when both are empty).
pub fn jaccard(a: &[String], b: &[String]) -> f64 {
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let all = a.len() + b.len() - shared;
    if all == 0 {
        0.0
    } else {
        shared as f64 / all as f64
    }
}
