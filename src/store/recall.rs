//! Recall at the start of a run: the owner's live, unexpired facts scored
//! against the task (`recall::select` picks them), today's and yesterday's
//! day log, and the recall counted in the stats, under the owner's lock.

use chrono::{DateTime, Utc};

use super::files::stats;
use super::files::{episodes, stores};
use super::owner::Owner;
use crate::error::{Error, Result};
use crate::model::{Meta, Scope, is_live, validate_id};
use crate::recall::select::{self, Candidate};
use crate::recall::{MAX_QUERY_CHARS, Recall, RecallOptions, RecalledFact, Scorer, TokenEstimator};

/// How long a session's start-of-run recall stands (the skip).
pub const SESSION_SKIP: chrono::Duration = chrono::Duration::hours(24);

/// Recalls with a given scorer, token estimate and time.
pub(crate) fn recall(
    owner: &Owner,
    options: &RecallOptions,
    scorer: &dyn Scorer,
    tokens: &dyn TokenEstimator,
    now: DateTime<Utc>,
) -> Result<Recall> {
    if let Some(q) = &options.query {
        let chars = q.chars().count();
        if chars > MAX_QUERY_CHARS {
            return Err(Error::QueryTooLong {
                chars,
                limit: MAX_QUERY_CHARS,
            });
        }
    }
    if let Some(s) = &options.session {
        validate_id("session", s)?;
    }
    let locked = owner.lock()?;
    let at = locked.at();
    let mut stats = stats::load(at);
    if let Some(s) = &options.session
        && !options.on_demand
        && stats
            .sessions
            .get(s)
            .is_some_and(|t| now - *t < SESSION_SKIP)
    {
        return Ok(Recall::skipped());
    }
    // Live, unexpired facts with their dates.
    let mut facts = Vec::new();
    for scope in Scope::ALL {
        let l = stores::load(at, scope, true)?;
        for e in &l.doc.entries {
            let meta_src = e.meta_comment(&l.src);
            if !is_live(meta_src, now) {
                continue;
            }
            let st = stats.facts.entry(e.id.clone()).or_default();
            let created = meta_src.map(Meta::parse).and_then(|m| m.created);
            if created.is_none() && st.first_seen.is_none() {
                st.first_seen = Some(now);
            }
            let created = created.or(st.first_seen).unwrap_or(now);
            facts.push(Candidate {
                fact: RecalledFact {
                    id: e.id.clone(),
                    scope,
                    added: created.date_naive(),
                    text: e.text.clone(),
                    score: None,
                },
                created,
            });
        }
    }
    let days = episodes::day_rows(at)?
        .into_iter()
        .map(|r| (r.date, r.lines))
        .collect();
    let recall = select::select(facts, days, options, scorer, tokens, now);
    // Count the recall.
    for f in &recall.facts {
        let st = stats.facts.entry(f.id.clone()).or_default();
        st.recall_count += 1;
        st.last_recalled_at = Some(now);
    }
    if let Some(s) = &options.session
        && !options.on_demand
    {
        stats.sessions.insert(s.clone(), now);
    }
    stats.sessions.retain(|_, t| now - *t < SESSION_SKIP);
    stats::save(&locked, &mut stats)?;
    Ok(recall)
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use chrono::Utc;

    use crate::model::Scope;
    use crate::recall::{Bm25Scorer, CharEstimator, RecallOptions, Scorer};
    use crate::store::{ListFilter, Store};

    struct Failing;
    impl Scorer for Failing {
        fn score(
            &self,
            _: &str,
            _: &[&str],
            _: Instant,
        ) -> std::result::Result<Vec<f64>, crate::recall::ScoreError> {
            Err(crate::recall::ScoreError::Failed("model offline".into()))
        }
    }

    #[test]
    fn scored_recall_counts_and_skips_a_session() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        let o = s.owner("agt").unwrap();
        o.add(
            Scope::Memory,
            "The staging deploy needs the VPN on (PIN-812)",
        )
        .unwrap();
        o.add(Scope::Memory, "Prefers tabs over spaces in Go code")
            .unwrap();
        let now = Utc::now();
        let q = RecallOptions::query("Fix the staging deploy for PIN-812").session("s1");
        let r = o
            .recall_with(&q, &Bm25Scorer::default(), &CharEstimator, now)
            .unwrap();
        assert!(!r.skipped && r.fallback.is_none());
        assert_eq!(r.facts.len(), 1, "{r:?}");
        assert!(r.block.starts_with("--- MEMORY ---\nmem_"));
        assert!(r.block.contains(&format!("({})", now.date_naive())));
        let again = o
            .recall_with(&q, &Bm25Scorer::default(), &CharEstimator, now)
            .unwrap();
        assert!(again.skipped && again.block.is_empty());
        // On demand: counts, keeps the skip.
        let od = q.clone().on_demand();
        assert!(
            !o.recall_with(&od, &Bm25Scorer::default(), &CharEstimator, now)
                .unwrap()
                .skipped
        );
        let rows = o.list(&ListFilter::default()).unwrap();
        let hit = rows.iter().find(|r| r.text.contains("VPN")).unwrap();
        assert_eq!(hit.recall_count, 2);
        assert!(
            o.recall_with(&q, &Bm25Scorer::default(), &CharEstimator, now)
                .unwrap()
                .skipped
        );
        // A day later the session recalls again.
        let later = now + chrono::Duration::hours(25);
        assert!(
            !o.recall_with(&q, &Bm25Scorer::default(), &CharEstimator, later)
                .unwrap()
                .skipped
        );
    }

    #[test]
    fn failing_scorer_falls_back_to_newest_and_says_so() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        let o = s.owner("agt").unwrap();
        o.add(Scope::Memory, "one").unwrap();
        o.add(Scope::User, "two").unwrap();
        let r = o
            .recall_with(
                &RecallOptions::query("anything"),
                &Failing,
                &CharEstimator,
                Utc::now(),
            )
            .unwrap();
        assert!(r.fallback.unwrap().contains("model offline"));
        assert_eq!(r.facts.len(), 2);
        let long = "q".repeat(4001);
        assert_eq!(
            o.recall(&RecallOptions::query(long)).unwrap_err().code(),
            "memory_query_too_long"
        );
    }
}
