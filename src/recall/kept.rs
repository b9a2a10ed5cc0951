//! The facts' terms kept between scorings: a long-lived process (`memdir
//! serve`) scores the same facts against query after query, and
//! tokenising them (NFKC, splitting, stemming) is most of a lexical
//! recall's work. [`TermCache`] keeps each text's terms, keyed by the whole
//! text (so a fact edited by a person is a new key, never a stale answer),
//! bounded in bytes; [`KeptBm25`] is [`Bm25Scorer`] scoring through it,
//! with the same scores bit for bit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use super::score::{Bags, Bm25Scorer, CHECK_EVERY, DocBag, ScoreError, Scorer, Scratch};

/// The most text a cache keeps, in bytes (its terms about as much again):
/// past it, it starts afresh.
const MAX_KEPT_BYTES: usize = 8 * 1024 * 1024;

#[derive(Debug, Default)]
struct Kept {
    bags: HashMap<Box<str>, Arc<DocBag>>,
    bytes: usize,
}

/// Texts' terms kept between scorings, bounded ([`MAX_KEPT_BYTES`]); shared
/// by the threads of one process.
#[derive(Debug, Default)]
pub struct TermCache {
    kept: Mutex<Kept>,
}

impl Bags for TermCache {
    /// The terms of each of `docs`, in order: kept ones as kept, the rest
    /// tokenised now (checking `deadline` as the scorer does) and kept.
    fn bags(
        &self,
        docs: &[&str],
        deadline: Instant,
        scratch: &mut Scratch,
    ) -> Result<Vec<Arc<DocBag>>, ScoreError> {
        let mut out: Vec<Option<Arc<DocBag>>> = {
            let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            docs.iter().map(|d| kept.bags.get(*d).cloned()).collect()
        };
        let mut new: Vec<(usize, Arc<DocBag>)> = Vec::new();
        for (i, slot) in out.iter_mut().enumerate() {
            if slot.is_some() {
                continue;
            }
            if new.len().is_multiple_of(CHECK_EVERY) && Instant::now() > deadline {
                return Err(ScoreError::TimedOut);
            }
            let bag = Arc::new(DocBag::of(docs[i], scratch));
            *slot = Some(Arc::clone(&bag));
            new.push((i, bag));
        }
        if !new.is_empty() {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            for (i, bag) in new {
                let doc = docs[i];
                if kept.bytes + doc.len() > MAX_KEPT_BYTES {
                    *kept = Kept::default();
                }
                if doc.len() <= MAX_KEPT_BYTES && !kept.bags.contains_key(doc) {
                    kept.bytes += doc.len();
                    kept.bags.insert(Box::from(doc), bag);
                }
            }
        }
        Ok(out.into_iter().flatten().collect())
    }
}

impl TermCache {
    /// How many texts are kept.
    pub fn len(&self) -> usize {
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .bags
            .len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// [`Bm25Scorer`] taking the facts' terms from a [`TermCache`]: the same
/// scores.
#[derive(Debug, Clone, Copy)]
pub struct KeptBm25<'c> {
    /// The scorer.
    pub scorer: &'c Bm25Scorer,
    /// Where the texts' terms are kept.
    pub kept: &'c TermCache,
}

impl Scorer for KeptBm25<'_> {
    fn score(&self, query: &str, docs: &[&str], deadline: Instant) -> Result<Vec<f64>, ScoreError> {
        self.scorer
            .score_kept(query, docs, deadline, Some(self.kept))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// The kept terms give the very scores of tokenising afresh, on
    /// identifiers, stems, non-ASCII text and repeats, the first time and
    /// once kept; and a changed text is a new key.
    #[test]
    fn kept_terms_score_bit_for_bit_as_fresh_ones() {
        let docs = [
            "The deploy of PIN-812 runs on Fridays; deploys are released by Ana.",
            "Ana prefers `cargo nextest` over cargo test for the CI runs.",
            "Café ＡＢＣ numbers: api.v2 and snake_case_name, released, releasing.",
            "Nothing in common here at all.",
            "The deploy of PIN-812 runs on Fridays; deploys are released by Ana.",
        ];
        let scorer = Bm25Scorer::default();
        let cache = TermCache::default();
        let kept = KeptBm25 {
            scorer: &scorer,
            kept: &cache,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        for q in [
            "when is PIN-812 deployed",
            "ana cargo test",
            "abc api.v2 release",
            "zzz",
        ] {
            let fresh = scorer.score(q, &docs, deadline).unwrap();
            for _ in 0..2 {
                let k = kept.score(q, &docs, deadline).unwrap();
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&fresh), bits(&k), "{q}");
            }
        }
        assert_eq!(cache.len(), 4, "one key per distinct text");
        let edited = ["The deploy of PIN-813 runs on Mondays."];
        let k = kept.score("PIN-812", &edited, deadline).unwrap();
        assert_eq!(k, scorer.score("PIN-812", &edited, deadline).unwrap());
        assert_eq!(cache.len(), 5);
    }

    /// Past its bound the cache starts afresh rather than growing.
    #[test]
    fn the_cache_is_bounded_in_bytes() {
        let scorer = Bm25Scorer::default();
        let cache = TermCache::default();
        let kept = KeptBm25 {
            scorer: &scorer,
            kept: &cache,
        };
        let big = "word ".repeat(MAX_KEPT_BYTES / 5 / 3);
        let docs: Vec<String> = (0..4).map(|i| format!("{i} {big}")).collect();
        let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
        let deadline = Instant::now() + Duration::from_secs(60);
        kept.score("word", &refs, deadline).unwrap();
        assert!(cache.len() < 4, "{} kept", cache.len());
        let bytes = cache.kept.lock().unwrap().bytes;
        assert!(bytes <= MAX_KEPT_BYTES, "{bytes}");
    }
}
