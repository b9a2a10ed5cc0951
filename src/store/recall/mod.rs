//! Recall at the start of a run: the owner's live, unexpired facts scored
//! against the task (`recall::select` picks them), today's and yesterday's
//! day log, and the recall counted in the stats, under the owner's lock.

#[cfg(feature = "embed")]
use std::time::Instant;

use std::sync::LazyLock;

use chrono::{DateTime, NaiveDate, Utc};

use super::answers::Answers;
use super::files::episodes::{self, EPISODES_FILE};
use super::files::learnings::{self, LEARNINGS_FILE};
use super::files::runs::{self, RunRecall};
use super::files::stats::{Stats, StatsLock};
use super::files::{scan_cache, stats, stores};
use super::limits::STORE_BYTES;
use super::owner::{At, Owner};
use crate::error::{Error, Result};
use crate::journal::DayLine;
use crate::model::{Scope, created_at, expires_at, validate_id};
#[cfg(feature = "embed")]
use crate::recall::fuse::{Fused, Fusion};
use crate::recall::select::{self, Candidate, DEFAULT_SCORE_TIMEOUT};
use crate::recall::{MAX_QUERY_CHARS, Recall, RecallOptions, RecalledFact, Scorer, TokenEstimator};
use crate::scan;
use crate::snapshot::{conflict_placeholder, display_text};

pub use super::files::stats::SESSION_SKIP;

#[cfg(feature = "embed")]
mod semantic;

#[cfg(feature = "embed")]
pub(crate) use semantic::{embed_missing, settle};

/// A day line as a recall may show it: as written (a line that could pass
/// for a placeholder or a structure of memdir's escaped, as the snapshot
/// escapes an entry), or its placeholder when the scanner flags it.
fn safe_day_line(line: DayLine, date: NaiveDate) -> DayLine {
    let findings = scan::scan(&line.raw);
    if findings.is_empty() {
        return DayLine {
            text: display_text(&line.text),
            raw: display_text(&line.raw),
            ..line
        };
    }
    let raw = format!(
        "[BLOCKED: {EPISODES_FILE} line of {date} matched {}; remove or edit it]",
        scan::pattern_list(&findings)
    );
    DayLine {
        time: line.time,
        task: line.task,
        text: raw.clone(),
        run: line.run,
        workflow: line.workflow,
        raw,
    }
}

/// The root's approved learnings as recall candidates (wiki matches when
/// they score), each scanned as the snapshot scans it.
fn wiki_candidates(owner: &Owner, now: DateTime<Utc>) -> Result<Vec<Candidate>> {
    let store = owner.store();
    let Some(root) = store.disk().open_root(store.root())? else {
        return Ok(Vec::new());
    };
    Ok(learnings::approved(store.disk(), &root)?
        .into_iter()
        .map(|a| {
            let findings = scan::scan(&a.text);
            let (text, blocked) = if findings.is_empty() {
                (display_text(&a.text), Vec::new())
            } else {
                (
                    scan::blocked(&format!("{LEARNINGS_FILE} entry {}", a.id), &findings),
                    findings.iter().map(|f| f.pattern).collect(),
                )
            };
            let created = a.created.unwrap_or(now);
            Candidate {
                fact: RecalledFact {
                    id: a.id,
                    scope: Scope::Memory,
                    added: created.date_naive(),
                    text,
                    score: None,
                    blocked,
                },
                scored: a.text,
                created,
                wiki: true,
            }
        })
        .collect())
}

/// Recalls with a given scorer, token estimate and time.
pub(crate) fn recall(
    owner: &Owner,
    options: &RecallOptions,
    scorer: &dyn Scorer,
    tokens: &dyn TokenEstimator,
    now: DateTime<Utc>,
) -> Result<Recall> {
    check(options)?;
    // The stats' own lock, not the owner's: a recall never waits for
    // writers; it reads the stores as they are (stable reads).
    let view = owner.view()?;
    let at = view.at();
    let skips = |stats: &Stats| {
        options.session.as_ref().is_some_and(|s| {
            !options.on_demand
                && stats
                    .sessions
                    .get(s)
                    .is_some_and(|t| now - *t < SESSION_SKIP)
        })
    };
    // Figures written behind (a server): no file lock; the session's skip
    // is claimed at once, so a second recall of it meanwhile is skipped.
    let (held, mut stats) = match stats::behind(owner.store()) {
        Some(behind) => {
            let mut skipped = false;
            let stats = behind.view(at, |stats| {
                skipped = skips(stats);
                match (&options.session, skipped || options.preview) {
                    (Some(s), false) if !options.on_demand => Some(Stats {
                        sessions: [(s.clone(), now)].into(),
                        ..Stats::default()
                    }),
                    _ => None,
                }
            });
            if skipped {
                return Ok(Recall::skipped());
            }
            (None, stats)
        }
        None => {
            let held = stats::lock(owner, at.settings)?;
            let stats = held.load();
            if skips(&stats) {
                return Ok(Recall::skipped());
            }
            (Some(held), stats)
        }
    };
    let (mut facts, conflicts) = live_facts(owner, &mut stats, now)?;
    facts.extend(wiki_candidates(owner, now)?);
    // One time limit for the scoring, the query's vector included (counted
    // from when the model is loaded: a process loads it once). When only
    // the model fails or is late, lexical scoring gets the time afresh.
    let timeout = options
        .timeout
        .or_else(|| owner.store().recall_timeout())
        .unwrap_or(DEFAULT_SCORE_TIMEOUT);
    #[cfg(feature = "embed")]
    let prepared = if facts.is_empty() {
        Ok(None)
    } else {
        semantic::prepare(owner, at, options.query.as_deref(), timeout)
    };
    let days = recent_days(at, now)?;
    let mut scoring = options.clone();
    scoring.timeout = Some(timeout);
    #[cfg(feature = "embed")]
    let recall = match prepared {
        Ok(Some(p)) => {
            scoring.timeout = Some(p.deadline.saturating_duration_since(Instant::now()));
            let texts: Vec<String> = facts.iter().map(|c| c.scored.clone()).collect();
            let fused = Fused {
                lexical: scorer,
                fusion: Fusion::default(),
                query: &p.query,
                vectors: &p.cached,
            };
            let mut recall = select::select(facts, days, conflicts, &scoring, &fused, tokens, now);
            recall.model = Some(p.path.display().to_string());
            semantic::embed_later(owner, &p, texts);
            recall
        }
        Ok(None) => select::select(facts, days, conflicts, &scoring, scorer, tokens, now),
        Err(semantic::Unprepared { why, model }) => {
            // The model loaded and only the query's vector failed: the
            // facts' vectors are computed all the same.
            let later = model.map(|m| (m, facts.iter().map(|c| c.scored.clone()).collect()));
            let mut recall = select::select(facts, days, conflicts, &scoring, scorer, tokens, now);
            if let Some((model, texts)) = later {
                semantic::embed_in_background(owner, &model, texts);
            }
            if recall.fallback.is_none() {
                recall.fallback =
                    Some(format!("semantic scoring failed ({why}): scored lexically"));
                recall.lexical = recall.shown_ids().map(str::to_owned).collect();
            }
            recall
        }
    };
    #[cfg(not(feature = "embed"))]
    let recall = {
        let mut recall = select::select(facts, days, conflicts, &scoring, scorer, tokens, now);
        if recall.fallback.is_none() && owner.store().recall_model().is_some() {
            recall.fallback = Some(
                "semantic scoring is not built in (the cargo feature embed): scored lexically"
                    .to_owned(),
            );
        }
        recall
    };
    if options.preview {
        return Ok(recall);
    }
    match (held, stats::behind(owner.store())) {
        (Some(held), _) => counted(owner, options, &recall, &held, &mut stats, now)?,
        (None, Some(behind)) => {
            let mut delta = Stats::default();
            for (id, st) in &stats.facts {
                // Seen first by this recall (a fact written by hand).
                if st.first_seen == Some(now) {
                    delta.facts.entry(id.clone()).or_default().first_seen = Some(now);
                }
            }
            count(&mut delta, &recall, now);
            behind.note(owner, &delta)?;
            kept_in_run(owner, options, &recall, now)?;
        }
        (None, None) => {}
    }
    Ok(recall)
}

/// The recall's facts counted in `stats`.
fn count(stats: &mut Stats, recall: &Recall, now: DateTime<Utc>) {
    for f in &recall.facts {
        let st = stats.facts.entry(f.id.clone()).or_default();
        st.recall_count += 1;
        st.last_recalled_at = Some(now);
    }
}

/// Inside a run, the block given kept in the run's record.
fn kept_in_run(
    owner: &Owner,
    options: &RecallOptions,
    recall: &Recall,
    now: DateTime<Utc>,
) -> Result<()> {
    if let Some(run) = owner.run() {
        let given = RunRecall::bounded(now, options.query.as_deref(), &recall.block);
        runs::record_recall(owner, &run.id, given)?;
    }
    Ok(())
}

/// Refuses a query past [`MAX_QUERY_CHARS`] and an invalid session key.
fn check(options: &RecallOptions) -> Result<()> {
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
    Ok(())
}

/// A store entry outside conflict regions as a recall reads it, whatever
/// the time: scanned as the snapshot scans it (a flagged fact shows its
/// placeholder, never its text), with its dates.
#[derive(Debug)]
struct ReadFact {
    scope: Scope,
    id: String,
    /// When it was created, if its metadata says.
    created: Option<DateTime<Utc>>,
    /// When it expires, if its metadata says.
    expires: Option<DateTime<Utc>>,
    /// What a recall shows of it.
    text: String,
    /// The scanner's patterns that flag it.
    blocked: Vec<&'static str>,
    /// Its text as written (what is scored).
    scored: String,
}

/// Both stores as a recall reads them, whatever the time: each entry
/// outside conflict regions, and each region's placeholder.
#[derive(Debug, Default)]
struct ReadFacts {
    facts: Vec<ReadFact>,
    conflicts: Vec<String>,
}

/// The live, unexpired facts of both stores with their dates, outside
/// conflict regions, scanned as the snapshot scans them; and each conflict
/// region's placeholder. A fact without a date is first seen now (in
/// `stats`). The stores are read, scanned and escaped once while their
/// files are as they were (`answers`): under load a recall does only what
/// depends on the time and the query.
fn live_facts(
    owner: &Owner,
    stats: &mut Stats,
    now: DateTime<Utc>,
) -> Result<(Vec<Candidate>, Vec<String>)> {
    static KEPT: LazyLock<Answers<ReadFacts>> = LazyLock::new(Answers::default);
    let read = KEPT.get(owner, read_facts)?;
    let mut facts = Vec::with_capacity(read.facts.len());
    for f in read
        .facts
        .iter()
        .filter(|f| f.expires.is_none_or(|e| e > now))
    {
        let st = stats.facts.entry(f.id.clone()).or_default();
        if f.created.is_none() && st.first_seen.is_none() {
            st.first_seen = Some(now);
        }
        let created = f.created.or(st.first_seen).unwrap_or(now);
        facts.push(Candidate {
            fact: RecalledFact {
                id: f.id.clone(),
                scope: f.scope,
                added: created.date_naive(),
                text: f.text.clone(),
                score: None,
                blocked: f.blocked.clone(),
            },
            scored: f.scored.clone(),
            created,
            wiki: false,
        });
    }
    Ok((facts, read.conflicts.clone()))
}

/// [`ReadFacts`] from the files.
fn read_facts(owner: &Owner) -> Result<ReadFacts> {
    let view = owner.view()?;
    let at = view.at();
    let mut out = ReadFacts::default();
    let mut scanner = scan_cache::load(at);
    for scope in Scope::ALL {
        let l = stores::load(at, scope, true, STORE_BYTES)?;
        let (entries, marks) = stores::entries_where(&l, |_| true);
        out.conflicts.extend(
            marks
                .iter()
                .map(|m| conflict_placeholder(scope.file_name(), &m.lines)),
        );
        let texts: Vec<&str> = entries.iter().map(|e| e.text.as_str()).collect();
        let verdicts = scanner.verdicts(&texts);
        for (e, findings) in entries.iter().zip(verdicts) {
            let meta = e.meta_comment(&l.src);
            let (text, blocked) = if findings.is_empty() {
                (display_text(&e.text), Vec::new())
            } else {
                (
                    scan::blocked_placeholder(scope, &e.id, &findings),
                    findings.iter().map(|f| f.pattern).collect(),
                )
            };
            out.facts.push(ReadFact {
                scope,
                id: e.id.clone(),
                created: meta.and_then(created_at),
                expires: meta.and_then(expires_at),
                text,
                blocked,
                scored: e.text.clone(),
            });
        }
    }
    scan_cache::store(owner, scanner);
    Ok(out)
}

/// The day log of today and yesterday, each line scanned; read from the
/// end of episodes.md: only the sections since yesterday are parsed.
fn recent_days(at: At<'_>, now: DateTime<Utc>) -> Result<Vec<(NaiveDate, Vec<DayLine>)>> {
    let today = now.date_naive();
    let since = today.pred_opt().unwrap_or(today);
    Ok(episodes::recent_day_rows(at, since)?
        .into_iter()
        .filter(|r| r.date == today || Some(r.date) == today.pred_opt())
        .map(|r| {
            let lines = r
                .lines
                .into_iter()
                .map(|l| safe_day_line(l, r.date))
                .collect();
            (r.date, lines)
        })
        .collect())
}

/// The recall counted in `stats` (of the owner's facts: a learning is the
/// root's) and the session's skip noted, saved under the stats' lock
/// `held`; inside a run, the block given kept in the run's record (under
/// that lock, so concurrent recalls of the run keep each other's).
fn counted(
    owner: &Owner,
    options: &RecallOptions,
    recall: &Recall,
    held: &StatsLock<'_>,
    stats: &mut Stats,
    now: DateTime<Utc>,
) -> Result<()> {
    count(stats, recall, now);
    if let Some(s) = &options.session
        && !options.on_demand
    {
        stats.sessions.insert(s.clone(), now);
    }
    stats.sessions.retain(|_, t| now - *t < SESSION_SKIP);
    held.save(stats)?;
    kept_in_run(owner, options, recall, now)
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
    fn the_stores_are_read_and_scanned_once_while_their_files_are_as_they_were() {
        use crate::store::answers::reads_on_this_thread;
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path().join("root"))
            .unwrap()
            .with_config_dir(d.path().join("config"));
        let o = s.owner("agt").unwrap();
        o.add(Scope::Memory, "The staging deploy needs the VPN on")
            .unwrap();
        let tomorrow = (Utc::now() + chrono::Duration::days(1)).to_rfc3339();
        o.write(crate::edit::Op::Add {
            text: "The staging deploy window is Tuesday".into(),
            scope: Scope::Memory,
            expires: Some(tomorrow),
            supersedes: None,
        })
        .unwrap();
        let q = RecallOptions::query("VPN window").on_demand();
        let ids =
            |r: &crate::recall::Recall| r.facts.iter().map(|f| f.id.clone()).collect::<Vec<_>>();
        // The first recall writes the scan cache; once it has settled, the
        // stores are read once and kept.
        o.recall(&q).unwrap();
        std::thread::sleep(crate::store::stamps::FINE_GRANULARITY * 2);
        let before = reads_on_this_thread();
        let first = o.recall(&q).unwrap();
        let again = o.recall(&q).unwrap();
        assert_eq!(reads_on_this_thread() - before, 1);
        assert_eq!((ids(&first).len(), ids(&again)), (2, ids(&first)));
        // Expiry is decided at each recall's time, on what was kept.
        let later = Utc::now() + chrono::Duration::days(2);
        let (scorer, tokens) = (Bm25Scorer::default(), CharEstimator);
        let expired = super::recall(&o, &q, &scorer, &tokens, later).unwrap();
        assert_eq!(ids(&expired).len(), 1);
        assert_eq!(reads_on_this_thread() - before, 1);
        // A hand edit is read at once.
        let path = o.path(Scope::Memory);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("VPN on", "VPN up")).unwrap();
        let edited = o.recall(&q).unwrap();
        assert!(edited.facts.iter().any(|f| f.text.contains("VPN up")));
        assert_eq!(reads_on_this_thread() - before, 2);
    }

    #[test]
    fn a_recall_inside_a_run_is_kept_in_its_record_a_preview_not() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        let o = s.owner("agt").unwrap();
        o.add(Scope::Memory, "The staging deploy needs the VPN on")
            .unwrap();
        let run = o
            .begin_run(crate::store::RunOptions::task("PIN-1"))
            .unwrap();
        let q = RecallOptions::query("staging deploy");
        // Outside the run, and a preview inside it: nothing kept.
        o.recall(&q).unwrap();
        run.memory().recall(&q.clone().preview()).unwrap();
        assert!(o.runs().record(run.id()).unwrap().recalls.is_empty());
        let given = run.memory().recall(&q).unwrap();
        let rec = o.runs().record(run.id()).unwrap();
        assert_eq!(rec.recalls.len(), 1);
        assert_eq!(rec.recalls[0].block, given.block);
        assert_eq!(rec.recalls[0].query.as_deref(), Some("staging deploy"));
        // Shown with the run, once: beside the record, not in it.
        let v = o.runs().get(run.id()).unwrap();
        assert_eq!(v.recalls.len(), 1);
        assert!(v.record.unwrap().recalls.is_empty());
        assert!(o.runs().list(false).unwrap()[0].recalls.is_empty());
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
            o.recall(&RecallOptions::query(long))
                .unwrap_err()
                .code()
                .as_str(),
            "memory_query_too_long"
        );
    }

    #[test]
    fn an_approved_learning_that_matches_is_a_wiki_match() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        s.init().unwrap();
        let o = s.owner("agt").unwrap();
        o.add(Scope::Memory, "The staging deploy needs the VPN on")
            .unwrap();
        let agent = crate::model::Caller::Agent("agt_other".into());
        let person = crate::model::Caller::Person("ann".into());
        let p = s
            .propose(&agent, "Production deploys need a change ticket")
            .unwrap();
        let q = RecallOptions::query("open the change ticket for the production deploy");
        let before = o
            .recall_with(&q, &Bm25Scorer::default(), &CharEstimator, Utc::now())
            .unwrap();
        assert!(before.wiki.is_empty(), "a pending proposal is no match");
        s.approve_learning(&person, &p.learning.id, None, None)
            .unwrap();
        let r = o
            .recall_with(&q, &Bm25Scorer::default(), &CharEstimator, Utc::now())
            .unwrap();
        assert_eq!(r.wiki.len(), 1, "{r:?}");
        assert_eq!(r.wiki[0].id, p.learning.id);
        let wiki = r.block.find("--- WIKI ---\n").unwrap();
        let memory = r.block.find("--- MEMORY ---\n").unwrap();
        assert!(wiki < memory && r.block[wiki..memory].contains("change ticket"));
    }
}
