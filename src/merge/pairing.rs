//! Which new entry of a side is the edit of an entry that side no longer
//! has: entry ids are hashes of the text, so an edit looks like a removal
//! and an add. The two are paired when they are the best pair left and
//! their similarity reaches [`EDIT_SIMILARITY`].
//!
//! Similarity is the Jaccard index of the two texts' term sets, the terms
//! being those recall scores with ([`crate::recall::terms`]: normalised,
//! lowercased, stop words dropped, lightly stemmed, identifiers kept whole
//! and in parts). Positions and times play no part.

use crate::recall::{jaccard, term_set};

/// The least similarity at which a removed entry and a new entry of the
/// same side count as one entry edited. Chosen on the labelled pairs of
/// `fixtures/merge/pairs.json` (see docs/GIT.md, "Merging").
pub const EDIT_SIMILARITY: f64 = 0.4;

/// Most candidate pairs weighed in one pairing (removed × new entries of a
/// side). Past it (a side that replaced more than a thousand entries at
/// once, or a hostile file) nothing is paired: each edit counts as a
/// removal and an add, which loses no entry.
pub const MAX_PAIRS: usize = 1_000_000;

/// The similarity of two entry texts: [`jaccard`] of their [`term_set`]s.
#[cfg(any(test, feature = "internals"))]
pub fn similarity(a: &str, b: &str) -> f64 {
    jaccard(&term_set(a), &term_set(b))
}

/// Pairs `removed` texts with `added` texts: repeatedly the most similar
/// pair left whose similarity reaches [`EDIT_SIMILARITY`] (ties: the
/// earlier removed, then the earlier added), each text in one pair at most.
/// Gives (index in `removed`, index in `added`).
pub(crate) fn pair(removed: &[&str], added: &[&str]) -> Vec<(usize, usize)> {
    if removed.is_empty()
        || added.is_empty()
        || removed.len().saturating_mul(added.len()) > MAX_PAIRS
    {
        return Vec::new();
    }
    let r: Vec<Vec<String>> = removed.iter().map(|t| term_set(t)).collect();
    let a: Vec<Vec<String>> = added.iter().map(|t| term_set(t)).collect();
    let mut candidates = Vec::new();
    for (i, x) in r.iter().enumerate() {
        for (j, y) in a.iter().enumerate() {
            let s = jaccard(x, y);
            if s >= EDIT_SIMILARITY {
                candidates.push((s, i, j));
            }
        }
    }
    candidates.sort_by(|p, q| q.0.total_cmp(&p.0).then((p.1, p.2).cmp(&(q.1, q.2))));
    let (mut used_r, mut used_a) = (vec![false; r.len()], vec![false; a.len()]);
    let mut out = Vec::new();
    for (_, i, j) in candidates {
        if !used_r[i] && !used_a[j] {
            used_r[i] = true;
            used_a[j] = true;
            out.push((i, j));
        }
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_pair_wins() {
        let removed = [
            "Production database is Postgres 14 on RDS",
            "Lives in Lisbon",
        ];
        let added = [
            "Prefers tea",
            "Production database is Postgres 16 on RDS",
            "Production database backups run nightly",
        ];
        assert_eq!(pair(&removed, &added), vec![(0, 1)]);
        // Each text in one pair at most: the second removed near-copy stays
        // a removal.
        let removed = ["Uses tabs in Go files", "Uses tabs in Go files!"];
        let added = ["Uses tabs in Go files."];
        assert_eq!(pair(&removed, &added), vec![(0, 0)]);
    }

    #[test]
    fn no_terms_no_pair() {
        assert_eq!(similarity("…", "!!"), 0.0);
        assert_eq!(pair(&["the"], &["a"]), Vec::<(usize, usize)>::new());
    }
}
