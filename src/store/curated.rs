//! The curated stores, MEMORY.md and USER.md: showing a store's entries and
//! usage, and writing operations to them (one or a batch, all or none).

use std::sync::{Arc, LazyLock};

use chrono::Utc;
use serde::Serialize;

use super::answers::Answers;
use super::files::pending::PendingSource;
use super::files::{scan_cache, stores};
use super::limits::STORE_BYTES;
use super::owner::Owner;
use super::write::{Written, group, submit};
use crate::edit::{self, Budget, Op, OpOutcome, Usage};
use crate::error::Result;
use crate::model::Scope;

/// An entry as `show` lists it, with what its metadata says (FORMAT.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct EntryView {
    /// Its `mem_` id.
    pub id: String,
    /// Its text.
    pub text: String,
    /// When it was saved, if its metadata says (RFC 3339 UTC).
    pub created: Option<String>,
    /// When it expires, if it does (RFC 3339 UTC).
    pub expires: Option<String>,
    /// True once `expires` has passed: it is left out of every snapshot
    /// and recall, and frees nothing of the budget.
    pub expired: bool,
    /// Who saved or last edited it: `agent:ID` or `person:ID`, if its
    /// metadata says.
    #[schemars(pattern(r"^(agent|person):"))]
    pub by: Option<String>,
    /// What `check` finds about this entry.
    pub warnings: Vec<String>,
    /// Why the snapshot does not show the entry as it is: `expired` (left
    /// out), `blocked` (the scanner flagged it: a placeholder stands in its
    /// place) or `over_budget` (left out past the store's budget); `None`
    /// when the snapshot shows it. Set by `show` (the interface layer).
    pub omitted: Option<Omitted>,
}

/// Why the snapshot does not show an entry as it is (serialised as
/// `expired`, `blocked` or `over_budget`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Omitted {
    /// Past its expiry: left out.
    Expired,
    /// Flagged by the scanner: a placeholder stands in its place.
    Blocked,
    /// Left out past the store's budget.
    OverBudget,
}

impl Omitted {
    /// Its wire word.
    pub const fn as_str(self) -> &'static str {
        match self {
            Omitted::Expired => "expired",
            Omitted::Blocked => "blocked",
            Omitted::OverBudget => "over_budget",
        }
    }
}

impl std::fmt::Display for Omitted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One store of an owner, as `show` answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct StoreView {
    /// Which store.
    pub scope: Scope,
    /// Its file name.
    #[schemars(extend("enum" = ["MEMORY.md", "USER.md"]))]
    pub file: &'static str,
    /// The entries in file order.
    pub entries: Vec<EntryView>,
    /// Characters used against the budget.
    pub usage: Usage,
    /// The budget and where it came from.
    pub budget: Budget,
    /// Notes such as a clamped budget.
    pub warnings: Vec<String>,
}

/// What one write did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WriteOutcome {
    /// The operation's outcome.
    pub outcome: OpOutcome,
    /// Usage of the store written, after the write.
    pub usage: Usage,
    /// Facts archived on the way: superseded, or picked by curation.
    pub archived: Vec<String>,
    /// Notes such as a clamped budget.
    pub warnings: Vec<String>,
    /// When the write waits for a person's review (`writes: review`; its
    /// message is then `pending`): its id in the owner's PENDING.md.
    pub pending_id: Option<String>,
}

/// What a batch did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BatchOutcome {
    /// Each operation's outcome, in order.
    pub results: Vec<OpOutcome>,
    /// Usage of each store the batch wrote, after it.
    pub usage: Vec<(Scope, Usage)>,
    /// Facts archived on the way: superseded, or picked by curation.
    pub archived: Vec<String>,
    /// Notes such as a clamped budget.
    pub warnings: Vec<String>,
    /// When the batch waits for a person's review (`writes: review`; each
    /// operation's message is then `pending`): its id in the owner's
    /// PENDING.md.
    pub pending_id: Option<String>,
}

/// The entries of one store with their ids, and its usage.
pub(crate) fn show(owner: &Owner, scope: Scope) -> Result<StoreView> {
    let view = owner.view()?;
    let at = view.at();
    let l = stores::load(at, scope, true, STORE_BYTES)?;
    let now = Utc::now();
    let cx = l.context(at, now);
    let budget = cx.budget(&l.doc)?;
    let used = edit::used_live(&cx, &l.src, &l.doc);
    let time = |t: Option<chrono::DateTime<Utc>>| t.map(crate::model::fmt_time);
    Ok(StoreView {
        scope,
        file: scope.file_name(),
        entries: l
            .doc
            .entries
            .iter()
            .map(|e| {
                let m = e.metadata(&l.src);
                let by = match (&m.person, &m.agent) {
                    (Some(p), _) => Some(format!("person:{p}")),
                    (None, Some(a)) => Some(format!("agent:{a}")),
                    (None, None) => None,
                };
                EntryView {
                    id: e.id.clone(),
                    text: e.text.clone(),
                    created: time(m.created),
                    expires: time(m.expires),
                    expired: !crate::model::is_live(e.meta_comment(&l.src), now),
                    by,
                    warnings: Vec::new(),
                    omitted: None,
                }
            })
            .collect(),
        usage: Usage::new(used, budget.limit),
        warnings: budget.warning(scope.file_name()).into_iter().collect(),
        budget,
    })
}

/// The ids and texts of both stores' entries (USER.md's, then
/// MEMORY.md's, each in file order: what [`show`] gives of each entry,
/// without its metadata and the store's usage), each with the patterns the
/// scanner flags in it (the snapshot's verdicts, from the same cache, read
/// and kept once for both stores as a recall does; expired entries
/// included). Kept between calls while the files it read are as they were
/// (`answers`): a recall under load reads and scans nothing again.
pub(crate) fn entry_texts(owner: &Owner) -> Result<Arc<Vec<ScannedEntry>>> {
    static KEPT: LazyLock<Answers<Vec<ScannedEntry>>> = LazyLock::new(Answers::default);
    KEPT.get(owner, read_entry_texts)
}

/// [`entry_texts`] read from the files.
fn read_entry_texts(owner: &Owner) -> Result<Vec<ScannedEntry>> {
    let view = owner.view()?;
    let at = view.at();
    let mut scanner = scan_cache::load(at);
    let mut out = Vec::new();
    for scope in Scope::ALL {
        let l = stores::load(at, scope, true, STORE_BYTES)?;
        let texts: Vec<&str> = l.doc.entries.iter().map(|e| e.text.as_str()).collect();
        let verdicts = scanner.verdicts(&texts);
        out.extend(
            l.doc
                .entries
                .iter()
                .zip(verdicts)
                .map(|(e, findings)| ScannedEntry {
                    scope,
                    id: e.id.clone(),
                    text: e.text.clone(),
                    flagged: findings.iter().map(|f| f.pattern).collect(),
                }),
        );
    }
    scan_cache::store(owner, scanner);
    Ok(out)
}

/// One entry as [`Owner::entry_texts`](crate::store::Owner::entry_texts) gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScannedEntry {
    /// Its store.
    pub scope: Scope,
    /// Its id.
    pub id: String,
    /// Its text as the file holds it.
    pub text: String,
    /// The scanner's patterns that match it (empty: none).
    pub flagged: Vec<&'static str>,
}

/// Writes one operation under the owner's lock, or keeps it for a
/// person's review (an agent's write that adds or changes text under
/// `writes: review`).
/// In a process with group commit on, concurrent writes of the owner are
/// written together (`write::group`), each answered once it is durable.
pub(crate) fn write(owner: &Owner, op: Op) -> Result<WriteOutcome> {
    let scope = op.scope().unwrap_or(Scope::Memory);
    let written = match group::groups(owner.store()) {
        Some(groups) => groups.write(owner, op, alone)?,
        None => alone(owner, op)?,
    };
    // An id names its entry in whichever store holds it.
    let scope = written.results.first().map_or(scope, |o| o.scope);
    Ok(single(written, scope))
}

/// The plain write of one operation, under the owner's lock.
fn alone(owner: &Owner, op: Op) -> Result<Written> {
    let locked = owner.lock()?;
    submit(
        &locked,
        std::slice::from_ref(&op),
        false,
        PendingSource::Write,
    )
}

/// The answer of a one-operation write.
pub(crate) fn single(w: Written, scope: Scope) -> WriteOutcome {
    let Written {
        results,
        usage,
        warnings,
        archived,
        pending,
    } = w;
    let usage = usage
        .into_iter()
        .find(|(s, _)| *s == scope)
        .map_or_else(|| Usage::new(0, scope.default_budget()), |(_, u)| u);
    let Some(outcome) = results.into_iter().next() else {
        // `commit` gives each operation asked for its outcome.
        unreachable!("a write of one operation has its outcome")
    };
    WriteOutcome {
        outcome,
        usage,
        archived,
        warnings,
        pending_id: pending,
    }
}

/// Applies all of `ops` or none of them, under the owner's lock; budgets are
/// checked on the final state of each store. An agent's batch that adds or
/// changes text under `writes: review` waits whole for a person's review.
pub(crate) fn batch(owner: &Owner, ops: &[Op]) -> Result<BatchOutcome> {
    let locked = owner.lock()?;
    let w = submit(&locked, ops, true, PendingSource::Batch)?;
    Ok(BatchOutcome {
        results: w.results,
        usage: w.usage,
        archived: w.archived,
        warnings: w.warnings,
        pending_id: w.pending,
    })
}
