//! Which facts are duplicates: the same folded text (exact), or the same
//! numbers, as many negations and a similarity of recall's term sets of at
//! least [`NEAR_DUPLICATE`] (near).

use crate::model::fold_whitespace;
#[cfg(any(test, feature = "internals"))]
use crate::recall::{jaccard, term_set};

#[cfg(any(test, feature = "internals"))]
use super::NEAR_DUPLICATE;

/// The numbers a text holds (runs of digits, with `.` `,` inside), sorted.
pub(super) fn numbers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() || (!cur.is_empty() && (c == '.' || c == ',')) {
            cur.push(c);
        } else if !cur.is_empty() {
            out.push(cur.trim_end_matches(['.', ',']).to_owned());
            cur.clear();
        }
    }
    out.sort();
    out
}

/// How many negations a text holds (`not`, `no`, `never`, `n't`, `without`,
/// `nobody`, `nothing`, `none`, `neither`, `nor`).
pub(super) fn negations(text: &str) -> usize {
    let lower = text.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| {
            matches!(
                *w,
                "not"
                    | "no"
                    | "never"
                    | "without"
                    | "nobody"
                    | "nothing"
                    | "none"
                    | "neither"
                    | "nor"
                    | "cannot"
            ) || w.ends_with("n't")
                || w.ends_with("n’t")
        })
        .count()
}

/// A text as duplicates compare it: folded whitespace, lowercased.
pub(super) fn folded(text: &str) -> String {
    fold_whitespace(text).to_lowercase()
}

/// Whether two texts are near-duplicates: the same numbers, as many
/// negations, and a similarity of at least [`NEAR_DUPLICATE`].
#[cfg(any(test, feature = "internals"))]
pub fn near_duplicate(a: &str, b: &str) -> bool {
    near_duplicate_at(a, b, NEAR_DUPLICATE)
}

/// [`near_duplicate`] at threshold `t` (for the calibration).
#[cfg(any(test, feature = "internals"))]
pub fn near_duplicate_at(a: &str, b: &str, t: f64) -> bool {
    numbers(a) == numbers(b)
        && negations(a) == negations(b)
        && jaccard(&term_set(a), &term_set(b)) >= t
}

/// The similarity [`near_duplicate`] weighs (0 when the numbers or the
/// negations differ).
#[cfg(any(test, feature = "internals"))]
pub fn duplicate_similarity(a: &str, b: &str) -> f64 {
    if numbers(a) != numbers(b) || negations(a) != negations(b) {
        return 0.0;
    }
    jaccard(&term_set(a), &term_set(b))
}
