//! Recall at the start of a run: score each live, unexpired fact against the
//! task, keep the relevant ones within limits, add today's and yesterday's
//! day log, and count the recall.

use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use crate::env::is_live;
use crate::error::{Error, Result};
use crate::id::fold_whitespace;
use crate::journal::DayLine;
use crate::meta::Meta;
use crate::scope::Scope;
use crate::score::{Bm25Scorer, CharEstimator, KEEP_THRESHOLD, Scorer, TokenEstimator};
use crate::store::Owner;

/// Longest recall query, in characters.
pub const MAX_QUERY_CHARS: usize = 4_000;
/// Most facts a recall shows.
pub const MAX_RECALL_FACTS: usize = 300;
/// Most tokens the facts of a recall take.
pub const MAX_RECALL_TOKENS: usize = 12_000;
/// Most tokens the day log adds.
pub const MAX_DAY_TOKENS: usize = 2_000;
/// How long a session's start-of-run recall stands (the skip).
pub const SESSION_SKIP: chrono::Duration = chrono::Duration::hours(24);
/// Default time limit for scoring.
pub const DEFAULT_SCORE_TIMEOUT: Duration = Duration::from_millis(500);

/// What to recall.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecallOptions {
    /// The task, or the message in a conversation (at most 4,000 characters).
    /// Without one, the newest facts are listed.
    pub query: Option<String>,
    /// The session; a session that already recalled at the start of a run in
    /// the last 24 hours gets no block (the skip).
    pub session: Option<String>,
    /// An on-demand recall: it counts, but neither skips nor starts the skip.
    pub on_demand: bool,
    /// Scoring time limit (default 500 ms); past it the newest facts are listed.
    pub timeout: Option<Duration>,
}

impl RecallOptions {
    /// Options for a query.
    pub fn query(q: impl Into<String>) -> RecallOptions {
        RecallOptions {
            query: Some(q.into()),
            ..RecallOptions::default()
        }
    }

    /// With a session id.
    pub fn session(mut self, s: impl Into<String>) -> RecallOptions {
        self.session = Some(s.into());
        self
    }

    /// As an on-demand recall.
    pub fn on_demand(mut self) -> RecallOptions {
        self.on_demand = true;
        self
    }
}

/// One recalled fact.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecalledFact {
    /// Its id.
    pub id: String,
    /// Its store.
    pub scope: Scope,
    /// The date it was added (UTC).
    pub added: NaiveDate,
    /// Its text.
    pub text: String,
    /// Its score in [0, 1] (absent when listing the newest instead).
    pub score: Option<f64>,
}

/// One day-log line of the block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecalledDayLine {
    /// Its date.
    pub date: NaiveDate,
    /// The line.
    pub line: DayLine,
}

/// What a recall answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recall {
    /// True when the session already recalled in the last 24 hours: no block.
    pub skipped: bool,
    /// Set when the newest facts are listed instead of scored ones, with why.
    pub fallback: Option<String>,
    /// The facts, best first (or newest first).
    pub facts: Vec<RecalledFact>,
    /// Today's and yesterday's day log, newest line first.
    pub day_log: Vec<RecalledDayLine>,
    /// Estimated tokens of the block.
    pub tokens: usize,
    /// The `--- MEMORY ---` block (empty when skipped).
    pub block: String,
}

fn fact_line(f: &RecalledFact) -> String {
    format!("{} ({}) {}", f.id, f.added, fold_whitespace(&f.text))
}

impl Owner<'_> {
    /// Recalls with the built-in scorer and token estimate.
    pub fn recall(&self, options: &RecallOptions) -> Result<Recall> {
        self.recall_with(options, &Bm25Scorer::default(), &CharEstimator, Utc::now())
    }

    /// Recalls with a given scorer, token estimate and time.
    pub fn recall_with(
        &self,
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
            crate::id::validate_id("session", s)?;
        }
        let _lock = self.lock()?;
        let mut stats = self.load_stats();
        if let Some(s) = &options.session
            && !options.on_demand
            && stats
                .sessions
                .get(s)
                .is_some_and(|t| now - *t < SESSION_SKIP)
        {
            return Ok(Recall {
                skipped: true,
                fallback: None,
                facts: Vec::new(),
                day_log: Vec::new(),
                tokens: 0,
                block: String::new(),
            });
        }

        // Live, unexpired facts with their dates.
        let mut facts: Vec<(RecalledFact, DateTime<Utc>)> = Vec::new();
        for scope in Scope::ALL {
            let l = self.load(scope)?;
            for e in &l.doc.entries {
                let meta_src = e.meta.clone().map(|r| &l.src[r]);
                if !is_live(meta_src, now) {
                    continue;
                }
                let st = stats.facts.entry(e.id.clone()).or_default();
                let created = meta_src.map(Meta::parse).and_then(|m| m.created);
                if created.is_none() && st.first_seen.is_none() {
                    st.first_seen = Some(now);
                }
                let created = created.or(st.first_seen).unwrap_or(now);
                let f = RecalledFact {
                    id: e.id.clone(),
                    scope,
                    added: created.date_naive(),
                    text: e.text.clone(),
                    score: None,
                };
                facts.push((f, created));
            }
        }
        // Score, or list the newest.
        let newest = |facts: &mut Vec<(RecalledFact, DateTime<Utc>)>| {
            facts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.id.cmp(&b.0.id)));
        };
        let mut fallback = None;
        match options.query.as_deref().filter(|q| !q.trim().is_empty()) {
            None => {
                newest(&mut facts);
                fallback = Some("no query: the newest facts".to_owned());
            }
            Some(q) => {
                let docs: Vec<&str> = facts.iter().map(|(f, _)| f.text.as_str()).collect();
                let deadline = Instant::now() + options.timeout.unwrap_or(DEFAULT_SCORE_TIMEOUT);
                match scorer.score(q, &docs, deadline) {
                    Ok(scores) if scores.len() == facts.len() => {
                        for ((f, _), s) in facts.iter_mut().zip(scores) {
                            f.score = Some(s);
                        }
                        facts.retain(|(f, _)| f.score.is_some_and(|s| s >= KEEP_THRESHOLD));
                        facts.sort_by(|a, b| {
                            b.0.score
                                .partial_cmp(&a.0.score)
                                .unwrap_or(std::cmp::Ordering::Equal)
                                .then_with(|| b.1.cmp(&a.1))
                                .then_with(|| a.0.id.cmp(&b.0.id))
                        });
                    }
                    Ok(_) => {
                        newest(&mut facts);
                        fallback =
                            Some("scoring failed: wrong number of scores; the newest facts".into());
                    }
                    Err(e) => {
                        newest(&mut facts);
                        fallback = Some(format!("scoring failed ({e:?}); the newest facts"));
                    }
                }
            }
        }
        // Limits: 300 facts and 12,000 tokens.
        let mut picked = Vec::new();
        let mut used = 0;
        for (f, _) in facts.into_iter().take(MAX_RECALL_FACTS) {
            let t = tokens.tokens(&fact_line(&f));
            if used + t > MAX_RECALL_TOKENS {
                break;
            }
            used += t;
            picked.push(f);
        }
        // Day log: today and yesterday, newest line first, at most 2,000 tokens.
        let today = now.date_naive();
        let mut day_log = Vec::new();
        let mut day_tokens = 0;
        let mut rows = self.day_rows()?;
        rows.retain(|r| r.date == today || Some(r.date) == today.pred_opt());
        'days: for r in rows {
            for line in r.lines.into_iter().rev() {
                let t = tokens.tokens(&format!("{} {}", r.date, line.raw));
                if day_tokens + t > MAX_DAY_TOKENS {
                    break 'days;
                }
                day_tokens += t;
                day_log.push(RecalledDayLine { date: r.date, line });
            }
        }
        let block = render_block(&picked, &day_log);
        // Count the recall.
        for f in &picked {
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
        self.save_stats(&mut stats)?;
        Ok(Recall {
            skipped: false,
            fallback,
            facts: picked,
            day_log,
            tokens: used + day_tokens,
            block,
        })
    }
}

/// The `--- MEMORY ---` block.
fn render_block(facts: &[RecalledFact], day: &[RecalledDayLine]) -> String {
    let mut out = String::from("--- MEMORY ---\n");
    if facts.is_empty() {
        out.push_str("(no memories match)\n");
    }
    for f in facts {
        out.push_str(&fact_line(f));
        out.push('\n');
    }
    if !day.is_empty() {
        out.push_str("Day log (today and yesterday, newest first):\n");
        for d in day {
            out.push_str(&format!("{} {}\n", d.date, d.line.raw));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    struct Failing;
    impl Scorer for Failing {
        fn score(
            &self,
            _: &str,
            _: &[&str],
            _: Instant,
        ) -> std::result::Result<Vec<f64>, crate::score::ScoreError> {
            Err(crate::score::ScoreError::Failed("model offline".into()))
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
        let rows = o.list(&crate::facts::ListFilter::default()).unwrap();
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
