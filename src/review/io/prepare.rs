//! One `prepare` for every review: the dry run, the real run and `review
//! apply ID` gather the owner's files the same way (what the plan is made
//! on, with the hash of each file), make the plan (`crate::review::plan`,
//! pure), merge the reviewer's proposals, and splice each store's new text;
//! they differ only in what they do with the result.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};

use serde::Serialize;

use crate::edit::{Op, Vetoes};
use crate::error::{Error, Result};
use crate::model::{ArchiveKind, Caller, Curation, Origin, Scope};
use crate::review::{self, Change, DayLine, Fact, Plan, reviewer};
use crate::store::files::archive::{self, record_meta};
use crate::store::files::reviews::Fingerprint;
use crate::store::files::{episodes, results, stats, stores};
use crate::store::limits::STORE_EDIT_BYTES;
use crate::store::owner::At;
use crate::store::write::waits;

/// A review prepared: its id and time, the plan (reviewer's proposals
/// merged, lifts past the budget skipped), the facts it was made from, the
/// stores as loaded with their new texts, and what it was made on.
pub(super) struct Prepared {
    /// The review id.
    pub(super) id: String,
    /// The time the plan is made for.
    pub(super) now: DateTime<Utc>,
    /// The plan.
    pub(super) plan: Plan,
    /// The facts of both stores (every copy).
    pub(super) facts: Vec<Fact>,
    /// The reviewer's part, when one was asked.
    pub(super) reviewer: Option<ReviewerRun>,
    /// Each store as loaded, and its new text (`None`: unchanged).
    pub(super) stores: Vec<(stores::Loaded, Option<String>)>,
    /// archive.md's text.
    pub(super) archive_src: String,
    /// What the plan was made on.
    pub(super) fingerprint: Fingerprint,
    /// The facts the plan lifts out of yesterday's day log that wait for a
    /// person instead (an agent's review under `writes: review`): taken
    /// out of the plan, kept in PENDING.md when the review is applied.
    pub(super) held: Vec<String>,
}

/// Prepares the review of the owner's files as `at` shows them at `now`:
/// `asked`, the reviewer's answer (asked before, or kept by a dry run);
/// `id`, the review's id when it has one already (a dry run's, applied).
pub(super) fn prepare(
    at: At<'_>,
    asked: Option<&Asked>,
    now: DateTime<Utc>,
    id: Option<&str>,
) -> Result<Prepared> {
    let mut g = gather(at, now)?;
    let mut plan = plan_of(at, &g, now);
    let reviewer = asked.map(|a| merge_reviewer(&mut plan, &g, a, at, now));
    let held = held_lifts(at, &mut plan)?;
    let id = id.map_or_else(|| review_id(now, &plan), str::to_owned);
    let mut out = Vec::new();
    for l in std::mem::take(&mut g.loaded) {
        let new = store_text(at, &l, &mut plan, &id, now)?;
        out.push((l, new));
    }
    Ok(Prepared {
        id,
        now,
        plan,
        facts: g.facts,
        reviewer,
        stores: out,
        archive_src: g.archive_src,
        fingerprint: g.fingerprint,
        held,
    })
}

/// Under `writes: review`, an agent's review lifts no fact itself: the
/// plan's lifts are taken out of it, and their texts given back to wait for
/// a person.
fn held_lifts(at: At<'_>, plan: &mut Plan) -> Result<Vec<String>> {
    let lifts = |c: &Change| matches!(c, Change::Lift { .. });
    if !plan.changes.iter().any(lifts) || !waits(at, &[Op::add(Scope::Memory, "")])? {
        return Ok(Vec::new());
    }
    let (held, kept): (Vec<Change>, Vec<Change>) = std::mem::take(&mut plan.changes)
        .into_iter()
        .partition(lifts);
    plan.changes = kept;
    Ok(held
        .into_iter()
        .filter_map(|c| match c {
            Change::Lift { text, .. } => Some(text),
            _ => None,
        })
        .collect())
}

/// The reviewer's answer: the command, and its proposals (JSON values) or
/// why there are none. A dry run keeps it with its plan, so that
/// `review apply ID` does not run the reviewer again.
pub(crate) type Asked = (String, std::result::Result<Vec<serde_json::Value>, String>);

/// What the reviewer did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ReviewerRun {
    /// The command.
    pub command: String,
    /// Why it gave nothing (did not start, timed out, printed too much,
    /// failed, printed no valid document); the rest of the review applies.
    pub error: Option<String>,
    /// Its proposals applied (their changes are in the plan).
    pub accepted: usize,
    /// Its proposals not applied, with why.
    pub rejected: Vec<crate::review::reviewer::Rejected>,
}

/// Adds the reviewer's valid proposals to `plan`.
fn merge_reviewer(
    plan: &mut Plan,
    g: &Gathered,
    (command, asked): &Asked,
    at: At<'_>,
    now: DateTime<Utc>,
) -> ReviewerRun {
    match asked {
        Ok(proposals) => {
            let days = |s: Scope| at.settings.expiry_days.days(s);
            let rejected = reviewer::merge(plan, &g.facts, proposals, &days, &g.vetoes, now);
            ReviewerRun {
                command: command.clone(),
                error: None,
                accepted: proposals.len() - rejected.len(),
                rejected,
            }
        }
        Err(e) => ReviewerRun {
            command: command.clone(),
            error: Some(e.clone()),
            accepted: 0,
            rejected: Vec::new(),
        },
    }
}

/// The SHA-256 of `text`, in hex.
fn sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// A review id: `review-` + the UTC time + 8 hex digits of the plan's hash.
pub(super) fn review_id(now: DateTime<Utc>, plan: &Plan) -> String {
    let mut h = Sha256::new();
    h.update(serde_json::to_vec(plan).unwrap_or_default());
    h.update(std::process::id().to_le_bytes());
    h.update(now.timestamp_nanos_opt().unwrap_or_default().to_le_bytes());
    let hex = hex::encode(h.finalize());
    format!("review-{}-{}", now.format("%Y%m%dT%H%M%SZ"), &hex[..8])
}

/// What a plan is made from: the facts, yesterday's day lines, the
/// conflict runs' results, the archive records of live facts, every veto,
/// and each store's budget.
pub(super) struct Gathered {
    pub(super) facts: Vec<Fact>,
    pub(super) yesterday: Vec<DayLine>,
    pub(super) evidence: BTreeMap<String, Vec<String>>,
    pub(super) archived: Vec<review::Record>,
    /// Every veto, by its fold.
    pub(super) vetoes: Vetoes,
    pub(super) budgets: Vec<(Scope, usize)>,
    /// The stores as loaded (with ids), MEMORY.md then USER.md.
    pub(super) loaded: Vec<stores::Loaded>,
    /// What the plan is made on.
    pub(super) fingerprint: Fingerprint,
    /// archive.md's text (the dry run's diff).
    pub(super) archive_src: String,
}

/// What a plan is made from, as `at` shows the owner's files.
pub(super) fn gather(at: At<'_>, now: DateTime<Utc>) -> Result<Gathered> {
    let st = stats::load(at);
    let mut facts = Vec::new();
    let mut budgets = Vec::new();
    let mut loaded = Vec::new();
    let mut fingerprint = Fingerprint::default();
    for scope in Scope::ALL {
        let l = stores::load(at, scope, true, STORE_EDIT_BYTES)?;
        budgets.push((scope, l.budget(at)?.limit));
        fingerprint.files.insert(
            scope.file_name().to_owned(),
            l.exists.then(|| sha256(&l.src)),
        );
        fingerprint.entries.insert(
            scope.file_name().to_owned(),
            l.doc
                .entries
                .iter()
                .map(|e| (e.id.clone(), sha256(&l.src[e.item.clone()])))
                .collect(),
        );
        for e in &l.doc.entries {
            if l.doc.conflicts.iter().any(|c| c.overlaps(&e.item)) {
                continue;
            }
            let s = st.facts.get(&e.id).cloned().unwrap_or_default();
            facts.push(Fact {
                id: e.id.clone(),
                scope,
                text: e.text.clone(),
                meta: e.metadata(&l.src),
                first_seen: s.first_seen,
                recall_count: s.recall_count,
                last_recalled: s.last_recalled_at,
            });
        }
        loaded.push(l);
    }
    let yesterday = (now - Duration::days(1)).date_naive();
    let (held, episodes_src) = episodes::read(at)?;
    fingerprint.files.insert(
        episodes::EPISODES_FILE.to_owned(),
        held.is_some().then(|| sha256(&episodes_src)),
    );
    let journal = crate::journal::parse(&episodes_src);
    let lines: Vec<DayLine> = journal
        .section(yesterday)
        .map(|sec| {
            sec.lines
                .iter()
                .map(|(_, l)| DayLine {
                    date: yesterday,
                    text: l.text.clone(),
                    run: l.run.clone(),
                    task: l.task.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    let mut evidence = BTreeMap::new();
    for f in facts.iter().filter(|f| f.meta.conflict.is_some()) {
        if let Some(run) = &f.meta.run
            && !evidence.contains_key(run)
            && let Some(texts) = results::texts(at, run)?
        {
            evidence.insert(run.clone(), texts);
        }
    }
    // Archive records of live facts (after a merge), but those a review
    // settled already (a veto stands however often its fact comes back),
    // and of the facts yesterday's day lines would lift (a veto or a
    // supersession keeps them out).
    let lifted = review::lift_ids(&lines);
    let ids: BTreeSet<&str> = facts
        .iter()
        .map(|f| f.id.as_str())
        .chain(lifted.iter().map(String::as_str))
        .collect();
    let archives = archive::read_all(at)?;
    for f in &archives.files {
        fingerprint
            .files
            .insert(f.rel(), f.held.is_some().then(|| sha256(&f.src)));
    }
    let archive_src = archives.files[0].src.clone();
    let archived = archives
        .records()
        .into_iter()
        .filter(|r| {
            ids.contains(r.id.as_str())
                && (r.meta.settled.is_none() || r.meta.kind == Some(ArchiveKind::Vetoed))
        })
        .map(|r| review::Record {
            id: r.id,
            meta: r.meta,
        })
        .collect();
    Ok(Gathered {
        facts,
        yesterday: lines,
        evidence,
        archived,
        vetoes: archives.vetoes(),
        budgets,
        loaded,
        fingerprint,
        archive_src,
    })
}

/// The plan for what `g` gathered.
pub(super) fn plan_of(at: At<'_>, g: &Gathered, now: DateTime<Utc>) -> Plan {
    let days = |s: Scope| at.settings.expiry_days.days(s);
    let budget = |s: Scope| {
        g.budgets
            .iter()
            .find(|(b, _)| *b == s)
            .map_or(usize::MAX, |(_, l)| *l)
    };
    review::plan(&review::Input {
        facts: &g.facts,
        yesterday: &g.yesterday,
        evidence: &g.evidence,
        renew_days: &days,
        archived: &g.archived,
        vetoes: &g.vetoes,
        curation: at.settings.curation == Some(Curation::Auto),
        budget: &budget,
        now,
    })
}

/// The new text of one store under `plan`, or `None`.
fn store_text(
    at: At<'_>,
    l: &stores::Loaded,
    plan: &mut Plan,
    id: &str,
    now: DateTime<Utc>,
) -> Result<Option<String>> {
    let limit = l.budget(at)?.limit;
    let agent = match at.owner.caller() {
        Caller::Agent(a) => Some(a.as_str()),
        Caller::Person(_) => None,
    };
    let out = review::apply_to_doc(
        &l.src,
        &l.doc,
        l.scope,
        plan,
        id,
        agent,
        now,
        at.settings.expiry_days.days(l.scope),
        limit,
    )
    .map_err(|reason| Error::Unplaceable {
        path: l.path.clone(),
        reason,
    })?;
    plan.skipped.extend(out.skipped);
    Ok(out.src)
}

/// The facts a plan settles as both live and archived, with the review's
/// id: their archive records get `settled=ID`.
pub(super) fn settled(plan: &Plan, id: &str) -> archive::Settle {
    let ids: BTreeSet<String> = plan
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::Settle { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect();
    (!ids.is_empty()).then(|| (ids, id.to_owned()))
}

/// Archive records of the plan's archived facts, each with `review=ID`;
/// of the copies a plan keeps as one, one record per copy (as it was),
/// marked `settled=ID` too (its id stays live: neither `check` nor the next
/// review takes it for a fact both live and archived).
pub(super) fn records(
    plan: &Plan,
    facts: &[Fact],
    id: &str,
    now: DateTime<Utc>,
    by: &Caller,
) -> Vec<(String, crate::model::Meta)> {
    let mut out = Vec::new();
    for c in &plan.changes {
        match c {
            Change::Archive {
                id: fid,
                scope,
                text,
                kind,
                reason,
                into,
            } => {
                let meta = facts
                    .iter()
                    .find(|f| &f.id == fid)
                    .map(|f| f.meta.clone())
                    .unwrap_or_default();
                let mut m = record_meta(meta, Origin::from(*scope), *kind, reason.clone(), now, by);
                m.review = Some(id.to_owned());
                if *kind == ArchiveKind::Superseded {
                    m.superseded_by = into.clone();
                }
                out.push((text.clone(), m));
            }
            Change::Dedupe {
                id: fid,
                scope,
                text,
                reason,
                ..
            } => {
                for f in facts.iter().filter(|f| &f.id == fid && f.scope == *scope) {
                    let mut m = record_meta(
                        f.meta.clone(),
                        Origin::from(*scope),
                        ArchiveKind::Merged,
                        reason.clone(),
                        now,
                        by,
                    );
                    m.review = Some(id.to_owned());
                    m.settled = Some(id.to_owned());
                    out.push((text.clone(), m));
                }
            }
            _ => {}
        }
    }
    out
}

/// What changed between the fingerprint a plan was made on and the files
/// now: each file changed, with the entries of a store added, removed or
/// edited (an edit of an entry's text changes its id: removed and added).
pub(super) fn changed_since(then: &Fingerprint, now: &Fingerprint) -> Vec<String> {
    let mut out = Vec::new();
    let names: BTreeSet<&String> = then.files.keys().chain(now.files.keys()).collect();
    for name in names {
        let (a, b) = (then.files.get(name), now.files.get(name));
        if a == b {
            continue;
        }
        let (Some(ea), Some(eb)) = (then.entries.get(name), now.entries.get(name)) else {
            out.push(format!("{name} changed"));
            continue;
        };
        let old: BTreeMap<&str, &str> = ea.iter().map(|(i, h)| (i.as_str(), h.as_str())).collect();
        let new: BTreeMap<&str, &str> = eb.iter().map(|(i, h)| (i.as_str(), h.as_str())).collect();
        let mut entries = Vec::new();
        for (i, h) in &old {
            match new.get(i) {
                None => entries.push(format!("{i} removed")),
                Some(h2) if h2 != h => entries.push(format!("{i} edited")),
                Some(_) => {}
            }
        }
        entries.extend(
            new.keys()
                .filter(|i| !old.contains_key(*i))
                .map(|i| format!("{i} added")),
        );
        if entries.is_empty() {
            out.push(format!("{name} changed"));
        } else {
            out.push(format!("{name} changed: {}", entries.join(", ")));
        }
    }
    out
}
