//! Picking a recall's facts and day-log lines and rendering its block.
//!
//! Pure: given the live facts with their creation times, the day log of
//! today and yesterday, a scorer and a token estimate, [`select`] keeps the
//! relevant facts (score ≥ 0.5, best first) within 300 facts and 12,000
//! tokens, falls back to the newest facts without a query or when scoring
//! fails, and adds the day log within 2,000 tokens.

use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use super::score::{KEEP_THRESHOLD, Scored, Scorer, TokenEstimator};
use crate::edit::escape_controls;
use crate::journal::DayLine;
use crate::model::{Scope, fold_whitespace};

/// Longest recall query, in characters.
pub const MAX_QUERY_CHARS: usize = 4_000;
/// Most facts a recall shows.
pub const MAX_RECALL_FACTS: usize = 300;
/// Most tokens the facts of a recall take.
pub const MAX_RECALL_TOKENS: usize = 12_000;
/// Most tokens the day log adds.
pub const MAX_DAY_TOKENS: usize = 2_000;
/// Default time limit for scoring.
pub const DEFAULT_SCORE_TIMEOUT: Duration = Duration::from_millis(200);

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
    /// A preview: what a recall would give, counting nothing (no recall
    /// counts, no session started).
    pub preview: bool,
    /// Scoring time limit (default 200 ms, the query's vector included);
    /// past it the newest facts are listed (or, when only the model is
    /// late, the facts scored lexically).
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

    /// As a preview: nothing is counted.
    pub fn preview(mut self) -> RecallOptions {
        self.preview = true;
        self
    }

    /// With a scoring time limit other than the default (or the owner's
    /// configured one).
    pub fn timeout(mut self, limit: Duration) -> RecallOptions {
        self.timeout = Some(limit);
        self
    }
}

/// One recalled fact.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RecalledFact {
    /// Its id.
    pub id: String,
    /// Its store.
    pub scope: Scope,
    /// The date it was added (UTC).
    pub added: NaiveDate,
    /// Its text; for a fact the scanner flags, its `[BLOCKED: …]`
    /// placeholder (the raw text never reaches a prompt).
    pub text: String,
    /// Its score in [0, 1] (absent when listing the newest instead).
    #[schemars(range(min = 0, max = 1))]
    pub score: Option<f64>,
    /// The scanner's pattern ids, for a fact it flags (empty otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<&'static str>,
}

/// One approved learning a recall matched: a wiki match, shown before the
/// `--- MEMORY ---` block.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RecalledLearning {
    /// Its id.
    pub id: String,
    /// The date it was approved (UTC).
    pub added: NaiveDate,
    /// Its text; for a learning the scanner flags, its `[BLOCKED: …]`
    /// placeholder.
    pub text: String,
    /// Its score in [0, 1].
    #[schemars(range(min = 0, max = 1))]
    pub score: Option<f64>,
    /// The scanner's pattern ids, for a learning it flags (empty otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<&'static str>,
}

/// One day-log line of the block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RecalledDayLine {
    /// Its date.
    pub date: NaiveDate,
    /// The line.
    pub line: DayLine,
}

/// What a recall answers.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Recall {
    /// True when the session already recalled in the last 24 hours: no block.
    pub skipped: bool,
    /// Set when the newest facts are listed instead of scored ones, or when
    /// semantic scoring fell back to lexical scoring for some or all facts,
    /// with why.
    pub fallback: Option<String>,
    /// The facts and wiki matches of this answer (ids) that a semantic
    /// recall scored lexically: for want of a vector (computed after the
    /// answer), or all of them when the model failed; empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lexical: Vec<String>,
    /// The approved learnings that matched, best first: the wiki matches,
    /// shown before the `--- MEMORY ---` block (none without a query, or
    /// when scoring failed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub wiki: Vec<RecalledLearning>,
    /// The facts, best first (or newest first).
    pub facts: Vec<RecalledFact>,
    /// Today's and yesterday's day log, newest line first.
    pub day_log: Vec<RecalledDayLine>,
    /// Estimated tokens of the block.
    pub tokens: usize,
    /// Placeholders for regions of the stores between git conflict markers
    /// (their facts are left out).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<String>,
    /// The block: the wiki matches (`--- WIKI ---`, when any), then the
    /// `--- MEMORY ---` block (empty when skipped).
    pub block: String,
    /// Whether the recall was counted (false for a preview).
    pub counted: bool,
    /// The recall model's folder that scored this recall (semantic
    /// recall: the one configured, or the one the binary's own Python
    /// environment installed); absent when it was scored lexically only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl Recall {
    /// The ids the answer shows: its wiki matches, then its facts.
    pub(crate) fn shown_ids(&self) -> impl Iterator<Item = &str> {
        self.wiki
            .iter()
            .map(|l| l.id.as_str())
            .chain(self.facts.iter().map(|f| f.id.as_str()))
    }

    /// The answer for a session that already recalled: no block.
    pub(crate) fn skipped() -> Recall {
        Recall {
            skipped: true,
            fallback: None,
            lexical: Vec::new(),
            wiki: Vec::new(),
            facts: Vec::new(),
            day_log: Vec::new(),
            tokens: 0,
            conflicts: Vec::new(),
            block: String::new(),
            counted: false,
            model: None,
        }
    }
}

/// A live fact a recall may pick: the fact, and when it was created.
pub(crate) struct Candidate {
    /// The fact as the block would show it (its score not set yet).
    pub(crate) fact: RecalledFact,
    /// The text it is scored on (for a flagged fact, its raw text; the fact
    /// shows the placeholder).
    pub(crate) scored: String,
    /// Its creation time (ties break newest first).
    pub(crate) created: DateTime<Utc>,
    /// An approved learning (a wiki match), not a fact of the owner's (its
    /// `fact.scope` is then not read).
    pub(crate) wiki: bool,
}

fn fact_line(f: &RecalledFact) -> String {
    line(&f.id, f.added, &f.text)
}

/// A line of the block: `ID (DATE) TEXT`.
fn line(id: &str, added: NaiveDate, text: &str) -> String {
    format!("{id} ({added}) {}", escape_controls(&fold_whitespace(text)))
}

/// Picks the block's facts and day-log lines and renders it.
///
/// `candidates` are the live facts and the approved learnings (`wiki`),
/// scored together and held to one limit of facts and tokens; a learning
/// is kept only when scored (a match), never as one of the newest; `days` the day log's dates with their
/// lines in file order (only today's and yesterday's are kept, newest line
/// first; a line the scanner flags must come as its placeholder already);
/// `conflicts` the placeholders of conflict regions, shown first.
pub(crate) fn select(
    mut facts: Vec<Candidate>,
    days: Vec<(NaiveDate, Vec<DayLine>)>,
    conflicts: Vec<String>,
    options: &RecallOptions,
    scorer: &dyn Scorer,
    tokens: &dyn TokenEstimator,
    now: DateTime<Utc>,
) -> Recall {
    // Score, or list the newest.
    let newest = |facts: &mut Vec<Candidate>| {
        facts.sort_by(|a, b| {
            b.created
                .cmp(&a.created)
                .then_with(|| a.fact.id.cmp(&b.fact.id))
        });
    };
    let mut fallback = None;
    let mut lexical = Vec::new();
    let mut scored = false;
    match options.query.as_deref().filter(|q| !q.trim().is_empty()) {
        None => {
            newest(&mut facts);
            fallback = Some("no query: the newest facts".to_owned());
        }
        Some(q) => {
            let docs: Vec<&str> = facts.iter().map(|c| c.scored.as_str()).collect();
            let deadline = Instant::now() + options.timeout.unwrap_or(DEFAULT_SCORE_TIMEOUT);
            match scorer.scored(q, &docs, deadline) {
                Ok(Scored {
                    scores,
                    lexical: by_words,
                }) if scores.len() == facts.len() => {
                    for (c, s) in facts.iter_mut().zip(scores) {
                        c.fact.score = Some(s);
                    }
                    lexical = by_words
                        .into_iter()
                        .filter_map(|i| facts.get(i).map(|c| c.fact.id.clone()))
                        .collect();
                    if !lexical.is_empty() {
                        fallback = Some(format!(
                            "{} of {} facts have no embedding yet: scored lexically",
                            lexical.len(),
                            facts.len()
                        ));
                    }
                    facts.retain(|c| c.fact.score.is_some_and(|s| s >= KEEP_THRESHOLD));
                    scored = true;
                    facts.sort_by(|a, b| {
                        b.fact
                            .score
                            .partial_cmp(&a.fact.score)
                            .unwrap_or(std::cmp::Ordering::Equal)
                            .then_with(|| b.created.cmp(&a.created))
                            .then_with(|| a.fact.id.cmp(&b.fact.id))
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
    // The learnings are matches or nothing: listed only when scored.
    if !scored {
        facts.retain(|c| !c.wiki);
    }
    // Limits: 300 facts and 12,000 tokens, the wiki matches counted in.
    let mut picked = Vec::new();
    let mut wiki = Vec::new();
    let mut used = 0;
    for c in facts.into_iter().take(MAX_RECALL_FACTS) {
        let t = tokens.tokens(&fact_line(&c.fact));
        if used + t > MAX_RECALL_TOKENS {
            break;
        }
        used += t;
        if c.wiki {
            let f = c.fact;
            wiki.push(RecalledLearning {
                id: f.id,
                added: f.added,
                text: f.text,
                score: f.score,
                blocked: f.blocked,
            });
        } else {
            picked.push(c.fact);
        }
    }
    // Day log: today and yesterday, newest line first, at most 2,000 tokens.
    let today = now.date_naive();
    let mut day_log = Vec::new();
    let mut day_tokens = 0;
    let mut days = days;
    days.retain(|(d, _)| *d == today || Some(*d) == today.pred_opt());
    days.sort_by_key(|(d, _)| std::cmp::Reverse(*d));
    'days: for (date, lines) in days {
        for line in lines.into_iter().rev() {
            let t = tokens.tokens(&format!("{date} {}", line.raw));
            if day_tokens + t > MAX_DAY_TOKENS {
                break 'days;
            }
            day_tokens += t;
            day_log.push(RecalledDayLine { date, line });
        }
    }
    let block = render_block(&wiki, &picked, &day_log, &conflicts);
    let mut recall = Recall {
        skipped: false,
        fallback,
        lexical: Vec::new(),
        wiki,
        facts: picked,
        day_log,
        tokens: used + day_tokens,
        conflicts,
        block,
        counted: !options.preview,
        model: None,
    };
    // Of the facts scored lexically for want of a vector, those shown.
    if !lexical.is_empty() {
        let by_words: std::collections::HashSet<String> = lexical.into_iter().collect();
        recall.lexical = recall
            .shown_ids()
            .filter(|id| by_words.contains(*id))
            .map(str::to_owned)
            .collect();
    }
    recall
}

/// The heading of the wiki matches, before the `--- MEMORY ---` block.
pub const WIKI_HEADING: &str = "--- WIKI ---";

/// The block: the wiki matches under [`WIKI_HEADING`] (left out when there
/// are none), then the `--- MEMORY ---` block.
fn render_block(
    wiki: &[RecalledLearning],
    facts: &[RecalledFact],
    day: &[RecalledDayLine],
    conflicts: &[String],
) -> String {
    let mut out = String::new();
    if !wiki.is_empty() {
        out.push_str(WIKI_HEADING);
        out.push('\n');
        for l in wiki {
            out.push_str(&line(&l.id, l.added, &l.text));
            out.push('\n');
        }
    }
    out.push_str("--- MEMORY ---\n");
    for c in conflicts {
        out.push_str(c);
        out.push('\n');
    }
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
            out.push_str(&format!("{} {}\n", d.date, escape_controls(&d.line.raw)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::{Bm25Scorer, CharEstimator};

    fn candidate(id: &str, text: &str, wiki: bool) -> Candidate {
        let created = DateTime::parse_from_rfc3339("2026-03-01T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        Candidate {
            fact: RecalledFact {
                id: id.into(),
                scope: Scope::Memory,
                added: created.date_naive(),
                text: text.into(),
                score: None,
                blocked: Vec::new(),
            },
            scored: text.into(),
            created,
            wiki,
        }
    }

    fn recall(candidates: Vec<Candidate>, query: Option<&str>) -> Recall {
        let options = RecallOptions {
            query: query.map(str::to_owned),
            ..RecallOptions::default()
        };
        select(
            candidates,
            Vec::new(),
            Vec::new(),
            &options,
            &Bm25Scorer::default(),
            &CharEstimator,
            Utc::now(),
        )
    }

    #[test]
    fn a_matching_learning_is_a_wiki_match_before_the_memory_block() {
        let r = recall(
            vec![
                candidate(
                    "mem_00000000000a",
                    "The staging deploy needs the VPN",
                    false,
                ),
                candidate("mem_00000000000b", "Prefers tabs in Go code", false),
                candidate(
                    "mem_00000000000c",
                    "Production deploys need a change ticket",
                    true,
                ),
                candidate("mem_00000000000d", "Invoices go out monthly", true),
            ],
            Some("prepare the production deploy ticket"),
        );
        assert_eq!(r.wiki.len(), 1, "{r:?}");
        assert_eq!(r.wiki[0].id, "mem_00000000000c");
        assert!(r.facts.iter().all(|f| !f.id.ends_with(['c', 'd'])), "{r:?}");
        assert!(
            r.block.starts_with(
                "--- WIKI ---\nmem_00000000000c (2026-03-01) Production deploys need a change ticket\n--- MEMORY ---\n"
            ),
            "{}",
            r.block
        );
    }

    #[test]
    fn without_a_query_no_learning_is_listed_and_the_block_is_as_before() {
        let r = recall(
            vec![
                candidate(
                    "mem_00000000000a",
                    "The staging deploy needs the VPN",
                    false,
                ),
                candidate("mem_00000000000c", "Production deploys need a ticket", true),
            ],
            None,
        );
        assert!(r.wiki.is_empty());
        assert_eq!(r.facts.len(), 1);
        assert!(
            r.block.starts_with("--- MEMORY ---\nmem_00000000000a"),
            "{}",
            r.block
        );
    }

    /// Scores every fact 1.
    struct All;
    impl Scorer for All {
        fn score(
            &self,
            _: &str,
            docs: &[&str],
            _: Instant,
        ) -> Result<Vec<f64>, crate::recall::ScoreError> {
            Ok(vec![1.0; docs.len()])
        }
    }

    #[test]
    fn the_wiki_matches_count_toward_the_one_limit_of_facts() {
        let mut all: Vec<Candidate> = (0..MAX_RECALL_FACTS)
            .map(|i| candidate(&format!("mem_{i:012x}"), "deploy ticket", true))
            .collect();
        all.push(candidate("mem_ffffffffffff", "deploy ticket", false));
        let options = RecallOptions::query("deploy ticket");
        let r = select(
            all,
            Vec::new(),
            Vec::new(),
            &options,
            &All,
            &CharEstimator,
            Utc::now(),
        );
        assert_eq!(r.wiki.len() + r.facts.len(), MAX_RECALL_FACTS);
        // And the tokens: long learnings stop at 12,000 with the facts.
        let long = "deploy ticket ".repeat(35);
        let many: Vec<Candidate> = (0..MAX_RECALL_FACTS)
            .map(|i| candidate(&format!("mem_{i:012x}"), &long, i % 2 == 0))
            .collect();
        let r = select(
            many,
            Vec::new(),
            Vec::new(),
            &options,
            &All,
            &CharEstimator,
            Utc::now(),
        );
        assert!(r.tokens <= MAX_RECALL_TOKENS && !r.wiki.is_empty() && !r.facts.is_empty());
        assert!(
            r.wiki.len() + r.facts.len() < MAX_RECALL_FACTS,
            "{}",
            r.tokens
        );
    }
}
