//! The daily review of an owner (`memdir review`): its files loaded, the
//! plan made by `crate::review` (pure), and applied under the owner's lock:
//! archive.md first, then each store, then the journal line, each file in
//! one durable write. `undo` brings back what a review archived and takes
//! out what it lifted, from the files alone (`review=ID` in the metadata).

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::files::archive::{self, record_meta};
use super::files::{config, episodes, results, stats, stores};
use super::limits::STORE_EDIT_BYTES;
use super::owner::{At, Owner};
use super::root::{CONFIG_FILE, DERIVED_DIR};
use crate::disk::{Change as DiskChange, decode_limited};
use crate::edit;
use crate::error::{Error, Result};
use crate::markdown::{parse, splice};
use crate::model::{ArchiveKind, Caller, Curation, Origin, Scope};
use crate::review::routine::{self, Due, LastReview};
use crate::review::{self, Change, DayLine, Fact, Plan, reviewer};

/// The folder of review records in `.memdir/`.
const REVIEWS_DIR: &str = "reviews";

/// What a review did, or would do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReviewReport {
    /// The review's id (`review-…`), also in every entry it touched.
    pub review_id: String,
    /// Whether anything was written (false for `--dry-run`).
    pub applied: bool,
    /// The plan.
    pub plan: Plan,
    /// Per file changed: a unified diff of it.
    pub diffs: Vec<(String, String)>,
    /// Notes, such as a commit that failed.
    pub warnings: Vec<String>,
    /// The reviewer's part, when one is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviewer: Option<ReviewerRun>,
}

/// What the reviewer did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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

/// The reviewer's default timeout.
const REVIEWER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);
/// The most the reviewer may print, in bytes.
pub const REVIEWER_OUTPUT_BYTES: u64 = 1024 * 1024;
/// The most result text sent per run, in bytes.
const RESULT_TEXT_BYTES: usize = 16 * 1024;

/// The reviewer command: `--reviewer`, else the machine-local
/// configuration's; with its timeout.
fn reviewer_command(
    owner: &Owner,
    opts: &ReviewOptions,
) -> Result<Option<(String, std::time::Duration)>> {
    let machine = owner.store().machine_config()?;
    let timeout = machine
        .reviewer_timeout_secs
        .map_or(REVIEWER_TIMEOUT, std::time::Duration::from_secs);
    Ok(opts
        .reviewer
        .clone()
        .or(machine.reviewer)
        .filter(|c| !c.trim().is_empty())
        .map(|c| (c, timeout)))
}

/// Runs the reviewer on the owner's files as `at` shows them: its
/// proposals (JSON values), or why there are none.
fn ask_reviewer(
    at: At<'_>,
    command: &str,
    timeout: std::time::Duration,
    now: DateTime<Utc>,
) -> Result<std::result::Result<Vec<serde_json::Value>, String>> {
    let g = gather(at, now)?;
    let plan = plan_of(at, &g, now);
    let Gathered {
        facts,
        yesterday,
        mut evidence,
        ..
    } = g;
    let pairs = reviewer::candidate_pairs(&facts, now);
    for (ids, _, _) in &pairs {
        for id in ids {
            if let Some(run) = facts
                .iter()
                .find(|f| &f.id == id)
                .and_then(|f| f.meta.run.clone())
                && !evidence.contains_key(&run)
                && let Some(texts) = results::texts(at, &run)?
            {
                evidence.insert(run, texts);
            }
        }
    }
    for texts in evidence.values_mut() {
        let mut left = RESULT_TEXT_BYTES;
        for t in texts.iter_mut() {
            let mut cut = t.len().min(left);
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            t.truncate(cut);
            left -= cut;
        }
        texts.retain(|t| !t.is_empty());
    }
    let date = (now - Duration::days(1)).date_naive();
    let doc = reviewer::document(
        at.owner.id(),
        &facts,
        (date, &yesterday),
        &plan,
        pairs,
        &evidence,
        now,
    );
    let input = serde_json::to_vec(&doc).map_err(|e| Error::Encode {
        what: "the reviewer's document",
        source: e,
    })?;
    Ok(
        crate::program::run_shell(command, &input, timeout, REVIEWER_OUTPUT_BYTES)
            .and_then(|out| reviewer::parse_output(&out))
            .map(|o| o.proposals),
    )
}

/// Adds the reviewer's valid proposals to `plan`.
fn merge_reviewer(
    plan: &mut Plan,
    facts: &[Fact],
    (command, asked): &(String, std::result::Result<Vec<serde_json::Value>, String>),
    at: At<'_>,
    now: DateTime<Utc>,
) -> ReviewerRun {
    match asked {
        Ok(proposals) => {
            let days = |s: Scope| at.settings.expiry_days.days(s);
            let rejected = reviewer::merge(plan, facts, proposals, &days, now);
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

/// What an undo did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UndoReport {
    /// The review undone.
    pub review_id: String,
    /// Facts brought back from archive.md.
    pub restored: Vec<String>,
    /// Facts the review added (lifted, or saved on the reviewer's
    /// proposal) taken out.
    pub removed: Vec<String>,
    /// Renewed facts given their old expiry back.
    pub renewals_undone: Vec<String>,
    /// Entries left as they are because they changed since (with
    /// `--partial`).
    pub left: Vec<String>,
    /// Notes.
    pub warnings: Vec<String>,
}

/// How a review runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReviewOptions {
    /// Plan only; change nothing.
    pub dry_run: bool,
    /// Run only when the routine says a review is due (checked again under
    /// the lock).
    pub due: bool,
    /// The reviewer command (run with `sh -c`); `None`: the machine-local
    /// configuration's `reviewer`, if any.
    pub reviewer: Option<String>,
}

/// The routine's state: its setting, whether a review is due, the last
/// review the journal records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoutineStatus {
    /// The time of day a review is due (UTC), when there is a routine.
    pub at: Option<String>,
    /// Whether the routine is paused.
    pub paused: bool,
    /// Whether a review is due now, and since or until when.
    pub due: Due,
    /// The next time a review is due (now or earlier when one is due).
    pub next_due: Option<DateTime<Utc>>,
    /// The last review the owner's journal records.
    pub last: Option<LastReview>,
}

/// What `review --due` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DueOutcome {
    /// The review, when one was due.
    pub ran: Option<ReviewReport>,
    /// The routine as it stood before.
    pub status: RoutineStatus,
}

/// The routine's state as the owner's files (memdir.yaml, episodes.md)
/// record it: reads two files, parses neither store, takes no lock.
pub(crate) fn status_at(at: At<'_>, now: DateTime<Utc>) -> Result<RoutineStatus> {
    let (_, episodes) = episodes::read(at)?;
    let last = routine::last_review(&episodes);
    let r = at.settings.review.as_ref();
    let due = routine::due(r, last.as_ref().map(|l| l.at), now).map_err(|message| {
        Error::InvalidConfig {
            path: at.owner.dir().join(CONFIG_FILE),
            message,
        }
    })?;
    let next_due = match &due {
        Due::Due { since } => Some(*since),
        Due::NotDue { next } => Some(*next),
        Due::NoRoutine | Due::Paused => None,
    };
    Ok(RoutineStatus {
        at: r.map(|r| r.at().to_owned()),
        paused: r.is_some_and(|r| r.paused()),
        due,
        next_due,
        last,
    })
}

/// The routine's state (`memdir review status`).
pub(crate) fn status(owner: &Owner, now: DateTime<Utc>) -> Result<RoutineStatus> {
    let view = owner.view()?;
    status_at(view.at(), now)
}

/// `memdir review --due`: a review when one is due, else nothing written
/// and no lock taken.
pub(crate) fn run_due(
    owner: &Owner,
    opts: &ReviewOptions,
    now: DateTime<Utc>,
) -> Result<DueOutcome> {
    let status = status(owner, now)?;
    if !matches!(status.due, Due::Due { .. }) {
        return Ok(DueOutcome { ran: None, status });
    }
    let opts = ReviewOptions {
        due: true,
        dry_run: false,
        ..opts.clone()
    };
    let ran = apply(owner, &opts, now)?;
    Ok(DueOutcome { ran, status })
}

/// Pauses or resumes the routine: `paused:` edited in place in the owner's
/// memdir.yaml (the routine added when it has none).
pub(crate) fn set_paused(owner: &Owner, paused: bool, now: DateTime<Utc>) -> Result<RoutineStatus> {
    let locked = owner.lock()?;
    let (held, _) = config::read(locked.at())?;
    let change = config::edit(locked.dir(), held, move |src| {
        let next = routine::set_paused(src, paused);
        (next != src).then_some(next)
    });
    let name = change.name;
    owner.disk().replace_in_order(vec![change])?;
    let what = if paused { "pause" } else { "resume" };
    // A commit that fails leaves the setting written; status says it.
    let _ = locked.written(&[name], &format!("{what} the daily review"));
    drop(locked);
    status(owner, now)
}

/// A review id: `review-` + the UTC time + 8 hex digits of the plan's hash.
fn review_id(now: DateTime<Utc>, plan: &Plan) -> String {
    let mut h = Sha256::new();
    h.update(serde_json::to_vec(plan).unwrap_or_default());
    h.update(std::process::id().to_le_bytes());
    h.update(now.timestamp_nanos_opt().unwrap_or_default().to_le_bytes());
    let hex = hex::encode(h.finalize());
    format!("review-{}-{}", now.format("%Y%m%dT%H%M%SZ"), &hex[..8])
}

/// What a plan is made from: the facts, yesterday's day lines, the
/// conflict runs' results, the archive records of live facts, and each
/// store's budget.
struct Gathered {
    facts: Vec<Fact>,
    yesterday: Vec<DayLine>,
    evidence: BTreeMap<String, Vec<String>>,
    archived: Vec<review::Record>,
    budgets: Vec<(Scope, usize)>,
}

/// What a plan is made from, as `at` shows the owner's files.
fn gather(at: At<'_>, now: DateTime<Utc>) -> Result<Gathered> {
    let st = stats::load(at);
    let mut facts = Vec::new();
    let mut budgets = Vec::new();
    for scope in Scope::ALL {
        let l = stores::load(at, scope, true, STORE_EDIT_BYTES)?;
        budgets.push((scope, l.budget(at)?.limit));
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
    }
    let yesterday = (now - Duration::days(1)).date_naive();
    let journal = episodes::journal(at)?;
    let lines = journal
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
    // settled already.
    let ids: BTreeSet<&str> = facts.iter().map(|f| f.id.as_str()).collect();
    let archived = archive::read_all(at)?
        .records()
        .into_iter()
        .filter(|r| ids.contains(r.id.as_str()) && r.meta.settled.is_none())
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
        budgets,
    })
}

/// The plan for what `g` gathered.
fn plan_of(at: At<'_>, g: &Gathered, now: DateTime<Utc>) -> Plan {
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
        curation: at.settings.curation == Some(Curation::Auto),
        budget: &budget,
        now,
    })
}

/// The plan for the owner's files as `at` shows them.
fn make_plan(at: At<'_>, now: DateTime<Utc>) -> Result<(Plan, Vec<Fact>)> {
    let g = gather(at, now)?;
    let plan = plan_of(at, &g, now);
    Ok((plan, g.facts))
}

/// The new text of one store under `plan`, or `None`.
fn store_text(
    at: At<'_>,
    l: &stores::Loaded,
    plan: &mut Plan,
    id: &str,
    now: DateTime<Utc>,
    src: &str,
) -> Result<Option<String>> {
    let limit = l.budget(at)?.limit;
    let agent = match at.owner.caller() {
        Caller::Agent(a) => Some(a.as_str()),
        Caller::Person(_) => None,
    };
    // The store's own parse (from the parse cache) when `src` is its text.
    let parsed;
    let doc: &crate::markdown::Document = if src == l.src {
        &l.doc
    } else {
        parsed = parse(l.scope, src);
        &parsed
    };
    let out = review::apply_to_doc(
        src,
        doc,
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

/// A unified diff of `old` and `new` (line-wise, longest common
/// subsequence; files of more than 4,000 lines are summarised).
pub(crate) fn unified_diff(name: &str, old: &str, new: &str) -> String {
    let a_all: Vec<&str> = old.lines().collect();
    let b_all: Vec<&str> = new.lines().collect();
    let mut out = format!("--- a/{name}\n+++ b/{name}\n");
    // The lines both start and end with take no part in the table.
    let head = a_all.iter().zip(&b_all).take_while(|(x, y)| x == y).count();
    let tail = a_all[head..]
        .iter()
        .rev()
        .zip(b_all[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let a = &a_all[head..a_all.len() - tail];
    let b = &b_all[head..b_all.len() - tail];
    if a.len() > 4_000 || b.len() > 4_000 {
        out.push_str(&format!(
            "@@ {} lines -> {} lines @@\n",
            a_all.len(),
            b_all.len()
        ));
        return out;
    }
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str(&format!("@@ +{} @@\n+{}\n", head + j + 1, b[j]));
            j += 1;
        } else {
            out.push_str(&format!("@@ -{} @@\n-{}\n", head + i + 1, a[i]));
            i += 1;
        }
    }
    out
}

/// The facts a plan settles as both live and archived, with the review's
/// id: their archive records get `settled=ID`.
fn settled(plan: &Plan, id: &str) -> archive::Settle {
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

/// Archive records of the plan's archived facts, each with `review=ID`.
fn records(
    plan: &Plan,
    facts: &[Fact],
    id: &str,
    now: DateTime<Utc>,
    by: &Caller,
) -> Vec<(String, crate::model::Meta)> {
    plan.changes
        .iter()
        .filter_map(|c| match c {
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
                Some((text.clone(), m))
            }
            _ => None,
        })
        .collect()
}

/// Reviews the owner: plans, and unless `dry_run` applies the plan.
pub(crate) fn run(owner: &Owner, opts: &ReviewOptions, now: DateTime<Utc>) -> Result<ReviewReport> {
    let opts = ReviewOptions {
        due: false,
        ..opts.clone()
    };
    apply(owner, &opts, now)?.ok_or_else(|| Error::ReviewNotFound {
        id: "(none was due)".into(),
    })
}

/// Plans and (unless a dry run) applies a review; `None` when
/// `opts.due` and, under the lock, none is due.
fn apply(owner: &Owner, opts: &ReviewOptions, now: DateTime<Utc>) -> Result<Option<ReviewReport>> {
    // The reviewer runs before the lock (it may take minutes); its
    // proposals are checked against the files as they are under the lock.
    let asked = match reviewer_command(owner, opts)? {
        Some((command, timeout)) => {
            let view = owner.view()?;
            let answer = ask_reviewer(view.at(), &command, timeout, now)?;
            Some((command, answer))
        }
        None => None,
    };
    if opts.dry_run {
        let view = owner.view()?;
        let at = view.at();
        let (mut plan, facts) = make_plan(at, now)?;
        let reviewer = asked
            .as_ref()
            .map(|a| merge_reviewer(&mut plan, &facts, a, at, now));
        let id = review_id(now, &plan);
        let mut diffs = Vec::new();
        let recs = records(&plan, &facts, &id, now, owner.caller());
        let settle = settled(&plan, &id);
        if !recs.is_empty() || settle.is_some() {
            let (_, src) = archive::read(at)?;
            let cur =
                archive::next_text(&src, &recs, &BTreeSet::new(), &settle).map_err(|reason| {
                    Error::Unplaceable {
                        path: owner.dir().join(archive::ARCHIVE_FILE),
                        reason,
                    }
                })?;
            diffs.push((
                archive::ARCHIVE_FILE.to_owned(),
                unified_diff(archive::ARCHIVE_FILE, &src, &cur),
            ));
        }
        for scope in Scope::ALL {
            let l = stores::load(at, scope, true, STORE_EDIT_BYTES)?;
            if let Some(new) = store_text(at, &l, &mut plan, &id, now, &l.src)? {
                let name = scope.file_name();
                diffs.push((name.to_owned(), unified_diff(name, &l.src, &new)));
            }
        }
        return Ok(Some(ReviewReport {
            review_id: id,
            applied: false,
            plan,
            diffs,
            warnings: Vec::new(),
            reviewer,
        }));
    }
    let locked = owner.lock()?;
    let at = locked.at();
    // Another process may have run the due review while this one waited.
    if opts.due && !matches!(status_at(at, now)?.due, Due::Due { .. }) {
        return Ok(None);
    }
    let (mut plan, facts) = make_plan(at, now)?;
    let reviewer = asked
        .as_ref()
        .map(|a| merge_reviewer(&mut plan, &facts, a, at, now));
    let id = review_id(now, &plan);
    let dir = locked.dir();
    let recs = records(&plan, &facts, &id, now, owner.caller());
    let settle = settled(&plan, &id);
    let mut archives = match &settle {
        Some(_) => Some(archive::read_all(at)?),
        None => None,
    };
    let mut changes: Vec<DiskChange<'_>> = Vec::new();
    let mut parts = Vec::new();
    // Records of facts settled as both live and archived are marked
    // (`settled=`): in the parts of `archive/` first, then archive.md.
    if let (Some(archives), Some((ids, rid))) = (archives.as_mut(), settle.clone()) {
        let holds = ids.clone();
        for (rel, change) in archives.changes(
            dir,
            move |f| {
                f.part.is_some()
                    && archive::records(&f.src)
                        .iter()
                        .any(|r| holds.contains(&r.id))
            },
            move |src| {
                archive::with_meta(src, &ids, |m| m.settled = Some(rid.clone())).map_err(|reason| {
                    Error::Unplaceable {
                        path: dir.join(archive::ARCHIVE_DIR),
                        reason,
                    }
                })
            },
        ) {
            parts.push(rel);
            changes.push(change);
        }
    }
    if !recs.is_empty() || settle.is_some() {
        let (change, rotated) = archive::append_rotating(&locked, recs, settle)?;
        changes.push(change);
        parts.extend(rotated);
    }
    let mut loaded = Vec::new();
    for scope in Scope::ALL {
        loaded.push(stores::load(at, scope, true, STORE_EDIT_BYTES)?);
    }
    let mut planned = Vec::new();
    for l in &loaded {
        planned.push(store_text(at, l, &mut plan, &id, now, &l.src)?);
    }
    let frozen = plan.clone();
    for (mut l, new) in loaded.into_iter().zip(planned) {
        let Some(new) = new else { continue };
        let base = l.base();
        let (plan, id) = (frozen.clone(), id.clone());
        let limit = l.budget(at)?.limit;
        let days = at.settings.expiry_days.days(l.scope);
        let agent = match owner.caller() {
            Caller::Agent(a) => Some(a.clone()),
            Caller::Person(_) => None,
        };
        let (scope, path) = (l.scope, l.path.clone());
        changes.push(DiskChange {
            dir,
            name: scope.file_name(),
            base,
            planned: Some(new.into_bytes()),
            redo: Box::new(move |cur| {
                let src = match cur {
                    Some(b) => decode_limited(&path, b.to_vec(), STORE_EDIT_BYTES)?,
                    None => String::new(),
                };
                let out = review::apply_to_store(
                    &src,
                    scope,
                    &plan,
                    &id,
                    agent.as_deref(),
                    now,
                    days,
                    limit,
                )
                .map_err(|reason| Error::Unplaceable {
                    path: path.clone(),
                    reason,
                })?;
                Ok(out.src.map(String::into_bytes))
            }),
        });
    }
    let count = |k: ArchiveKind| {
        plan.changes
            .iter()
            .filter(|c| matches!(c, Change::Archive { kind, .. } if *kind == k))
            .count()
    };
    let lifted = plan
        .changes
        .iter()
        .filter(|c| matches!(c, Change::Lift { .. }))
        .count();
    let renewed = plan
        .changes
        .iter()
        .filter(|c| matches!(c, Change::Renew { .. }))
        .count();
    let proposed = reviewer.as_ref().map_or(0, |r| r.accepted);
    let twins = plan
        .changes
        .iter()
        .filter(|c| matches!(c, Change::Settle { .. }))
        .count();
    let summary = format!(
        "review: {} merged, {} expired, {renewed} renewed, {lifted} lifted, {} conflicts settled, {} left, {} unrecalled, {proposed} proposed, {} curated, {twins} live and archived settled",
        count(ArchiveKind::Merged),
        count(ArchiveKind::Expired),
        count(ArchiveKind::Conflict),
        plan.unsettled.len(),
        plan.unrecalled.len(),
        count(ArchiveKind::Unrecalled)
    );
    let line =
        crate::journal::render_line(&now.format("%H:%M").to_string(), None, &summary, Some(&id));
    let (held, _) = episodes::read(at)?;
    changes.push(episodes::append_line(
        dir,
        held,
        now.date_naive(),
        line,
        Rc::new(Cell::new(0)),
    ));
    let mut names: Vec<String> = changes
        .iter()
        .filter(|c| std::ptr::eq(c.dir, dir))
        .map(|c| c.name.to_owned())
        .collect();
    owner.disk().replace_in_order(changes)?;
    names.extend(parts);
    let mut warnings = Vec::new();
    // Recall counts add up on the survivor (this machine's counts).
    if !plan.recalls_moved.is_empty()
        && let Ok(lock) = stats::lock(owner, locked.settings())
    {
        let mut st = lock.load();
        for (keep, gone) in &plan.recalls_moved {
            let moved = st.facts.get(gone).map_or(0, |s| s.recall_count);
            st.facts.entry(keep.clone()).or_default().recall_count += moved;
        }
        if let Err(e) = lock.save(&mut st) {
            warnings.push(format!("recall counts not moved: {e}"));
        }
    }
    // The plan, kept beside the run records (derived).
    if let Ok(json) = serde_json::to_vec_pretty(&plan)
        && let Ok(Some(derived)) = owner.disk().open_dir(dir, DERIVED_DIR)
        && let Ok((reviews, _)) = owner.disk().ensure_dir(&derived, REVIEWS_DIR)
        && let Err(e) = owner
            .disk()
            .write_atomic(&reviews, &format!("{id}.json"), &json)
    {
        warnings.push(format!("review record not written: {e}"));
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    warnings.extend(locked.written(&names, &format!("review {id}")));
    Ok(Some(ReviewReport {
        review_id: id,
        applied: true,
        plan,
        diffs: Vec::new(),
        warnings,
        reviewer,
    }))
}

/// Undoes review `id`: archived facts (merged, expired, conflict,
/// unrecalled, …) back into their stores from archive.md or the part of
/// `archive/` that holds them, lifted facts out of MEMORY.md, renewals
/// back to their old expiry, the kept side of a settled conflict back in
/// conflict, and facts settled as both live and archived back to both; all
/// or nothing unless `partial` when entries changed since.
pub(crate) fn undo(owner: &Owner, id: &str, partial: bool) -> Result<UndoReport> {
    crate::model::validate_id("review", id)?;
    let locked = owner.lock()?;
    let at = locked.at();
    let now = Utc::now();
    let mut archives = archive::read_all(at)?;
    let all = archives.records();
    let recs: Vec<archive::Archived> = all
        .iter()
        .filter(|r| r.meta.review.as_deref() == Some(id))
        .filter(|r| {
            matches!(
                r.meta.kind,
                Some(
                    ArchiveKind::Merged
                        | ArchiveKind::Expired
                        | ArchiveKind::Conflict
                        | ArchiveKind::Reviewed
                        | ArchiveKind::Superseded
                        | ArchiveKind::Unrecalled
                )
            )
        })
        .cloned()
        .collect();
    // Records of facts the review settled as both live and archived.
    let settled: Vec<archive::Archived> = all
        .into_iter()
        .filter(|r| r.meta.settled.as_deref() == Some(id))
        .collect();
    let mut loaded = Vec::new();
    for scope in Scope::ALL {
        loaded.push(stores::load(at, scope, true, STORE_EDIT_BYTES)?);
    }
    let mut lifted = Vec::new();
    let mut renewed = Vec::new();
    let mut resolved = Vec::new();
    let mut left = Vec::new();
    let mut live_ids = Vec::new();
    let ran = routine::review_time(id);
    let edited_after =
        |m: &crate::model::Meta| m.updated.is_some_and(|u| ran.is_some_and(|r| u > r));
    for l in &loaded {
        for e in &l.doc.entries {
            live_ids.push(e.id.clone());
            let m = e.metadata(&l.src);
            if m.review.as_deref() != Some(id) {
                continue;
            }
            if let Some(old) = m.renewed_from {
                // Renewed: the renewal set `updated` to the review's time.
                if edited_after(&m) {
                    left.push(format!("{} (edited after the review)", e.id));
                } else {
                    renewed.push((l.scope, e.id.clone(), old));
                }
            } else if let Some(c) = m.resolved.clone() {
                // The kept side of a conflict the review settled.
                if edited_after(&m) {
                    left.push(format!("{} (edited after the review)", e.id));
                } else {
                    resolved.push((l.scope, e.id.clone(), c));
                }
            } else if m.lifted.is_some() || (m.created.is_some() && m.created == ran) {
                // Added by the review: lifted, or saved on the reviewer's
                // proposal (created at the review's time).
                if m.updated.is_some() {
                    left.push(format!("{} (edited after the review)", e.id));
                } else {
                    lifted.push((l.scope, e.id.clone()));
                }
            }
        }
    }
    let mut restore = Vec::new();
    for r in recs {
        if live_ids.contains(&r.id) {
            left.push(format!("{} (live again already)", r.id));
        } else {
            restore.push(r);
        }
    }
    // A settled fact whose live copy left comes back beside its record.
    let twins: Vec<archive::Archived> = settled
        .iter()
        .filter(|r| !live_ids.contains(&r.id))
        .cloned()
        .collect();
    if restore.is_empty()
        && lifted.is_empty()
        && renewed.is_empty()
        && resolved.is_empty()
        && settled.is_empty()
        && left.is_empty()
    {
        return Err(Error::ReviewNotFound { id: id.to_owned() });
    }
    if !left.is_empty() && !partial {
        return Err(Error::ReviewChanged {
            id: id.to_owned(),
            entries: left,
        });
    }
    let dir = locked.dir();
    let mut changes: Vec<DiskChange<'_>> = Vec::new();
    for mut l in loaded {
        let scope = l.scope;
        let mut cur = l.src.clone();
        let unplaceable = |e: splice::Unplaceable| Error::Unplaceable {
            path: l.path.clone(),
            reason: e.0,
        };
        // What the review added goes first.
        for (_, lid) in lifted.iter().filter(|(s, _)| *s == scope) {
            let doc = parse(scope, &cur);
            if let Some(i) = doc.entries.iter().position(|e| &e.id == lid) {
                cur = splice::remove(&cur, &doc, i).map_err(unplaceable)?.0;
            }
        }
        for r in restore.iter().chain(&twins).filter(|r| {
            r.meta
                .scope
                .and_then(Origin::store)
                .unwrap_or(Scope::Memory)
                == scope
        }) {
            let mut m = r.meta.clone();
            m.archived_by = None;
            m.reason = None;
            m.superseded_by = None;
            m.scope = None;
            m.archived = None;
            m.kind = None;
            m.date = None;
            m.review = None;
            m.settled = None;
            m.updated = Some(now);
            // Back as it was before the review, even past the budget (the
            // review may have archived it because the store was over).
            let doc = parse(scope, &cur);
            if let Some(e) = edit::conflicted(scope.file_name(), &doc.conflicts) {
                return Err(e);
            }
            let rid = crate::model::entry_id(scope.name(), &r.text);
            if !doc.entries.iter().any(|e| e.id == rid) {
                cur = splice::append(&cur, &doc, (&r.text, &rid), Some(&m.render()))
                    .map_err(unplaceable)?
                    .0;
            }
        }
        for (_, rid, old) in renewed.iter().filter(|(s, _, _)| *s == scope) {
            let doc = parse(scope, &cur);
            if let Some(i) = doc.entries.iter().position(|e| &e.id == rid) {
                let mut m = doc.entries[i].metadata(&cur);
                m.expires = Some(*old);
                m.renewed_from = None;
                m.review = None;
                m.updated = Some(now);
                cur = splice::set_meta(&cur, &doc, i, &m.render())
                    .map_err(unplaceable)?
                    .0;
            }
        }
        for (_, rid, conflict) in resolved.iter().filter(|(s, _, _)| *s == scope) {
            let doc = parse(scope, &cur);
            if let Some(i) = doc.entries.iter().position(|e| &e.id == rid) {
                let mut m = doc.entries[i].metadata(&cur);
                m.conflict = Some(conflict.clone());
                m.resolved = None;
                m.review = None;
                cur = splice::set_meta(&cur, &doc, i, &m.render())
                    .map_err(unplaceable)?
                    .0;
            }
        }
        if cur != l.src {
            changes.push(DiskChange {
                dir,
                name: scope.file_name(),
                base: l.base(),
                planned: Some(cur.into_bytes()),
                // The owner's lock is held: a changed file is an editor's
                // save; refuse rather than guess.
                redo: Box::new(move |_| {
                    Err(Error::Locked {
                        path: std::path::PathBuf::from(scope.file_name()),
                        waited_ms: 0,
                    })
                }),
            });
        }
    }
    let mut names: Vec<String> = changes.iter().map(|c| c.name.to_owned()).collect();
    let restored: Vec<String> = restore.iter().map(|r| r.id.clone()).collect();
    // Then the archive: restored records out of every file that holds one,
    // settled ones unmarked.
    let out: BTreeSet<String> = restored.iter().cloned().collect();
    let unmark: BTreeSet<String> = settled.iter().map(|r| r.id.clone()).collect();
    let touched = |f: &archive::ArchiveFile| {
        archive::records(&f.src).iter().any(|r| {
            (out.contains(&r.id) && r.meta.review.is_some())
                || (unmark.contains(&r.id) && r.meta.settled.is_some())
        })
    };
    let (out2, unmark2, review) = (out.clone(), unmark.clone(), id.to_owned());
    for (rel, change) in archives.changes(dir, touched, move |src| {
        let unplaceable = |reason| Error::Unplaceable {
            path: std::path::PathBuf::from(archive::ARCHIVE_FILE),
            reason,
        };
        let mut cur = src.to_owned();
        if let Some(next) = archive::without(&cur, &out2).map_err(unplaceable)? {
            cur = next;
        }
        if let Some(next) = archive::with_meta(&cur, &unmark2, |m| {
            if m.settled.as_deref() == Some(review.as_str()) {
                m.settled = None;
            }
        })
        .map_err(unplaceable)?
        {
            cur = next;
        }
        Ok((cur != src).then_some(cur))
    }) {
        names.push(rel);
        changes.push(change);
    }
    owner.disk().replace_in_order(changes)?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut restored = restored;
    restored.extend(twins.iter().map(|r| r.id.clone()));
    Ok(UndoReport {
        review_id: id.to_owned(),
        restored,
        removed: lifted.into_iter().map(|(_, i)| i).collect(),
        renewals_undone: renewed.into_iter().map(|(_, i, _)| i).collect(),
        left,
        warnings: locked
            .written(&names, &format!("undo review {id}"))
            .into_iter()
            .collect(),
    })
}
