//! Writes that wait for a person (`writes: review`): what an agent and a
//! person see of them, and a person's decision. An approval takes the
//! owner's lock once, reads the write from PENDING.md under it, and writes
//! it through the write path as the agent's own write (so the budget, a
//! veto, a rejected text and the scanner are checked again, as they are
//! now), then takes it out of PENDING.md and journals the decision in
//! episodes.md; a rejection marks it rejected in PENDING.md (its text is
//! then refused to the agent as a vetoed one is) and journals it. Only a
//! person decides.

use std::cell::Cell;
use std::rc::Rc;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::files::archive::record_meta;
use super::files::episodes::{self, EPISODES_FILE};
use super::files::pending::{self, PENDING_FILE, Part, PendingSource, PendingStatus};
use super::files::stores;
use super::limits::STORE_EDIT_BYTES;
use super::owner::{Locked, Owner};
use super::write::{Written, commit};
use crate::edit::{Op, OpKind, OpOutcome};
use crate::error::{Error, Result};
use crate::model::{ArchiveKind, Caller, Meta, Origin, RunContext, Scope, fold_whitespace};

/// Longest reason for a rejection, in characters.
const MAX_REASON_CHARS: usize = 500;
/// The most of a rejection's reason its journal line keeps, in characters.
const JOURNALLED_REASON_CHARS: usize = 200;

/// One operation of a write that waits, as the answers give it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PendingOp {
    /// The operation (`add`, `replace`, `remove`).
    pub op: OpKind,
    /// The store it names, if it names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// The text it would write (for a removal: what names the entry).
    pub text: String,
    /// What a replace or a removal names: an entry id or a unique
    /// substring.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The expiry an add asks for, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
    /// The fact an add supersedes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<String>,
    /// For a removal that archives (the memory tool's `create`): the
    /// archive reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive: Option<String>,
}

/// A write that waits for a person's review (or that a person rejected),
/// as the answers give it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PendingWrite {
    /// Its id in PENDING.md.
    #[schemars(pattern(r"^pnd_[0-9a-f]{12}$"))]
    pub pending_id: String,
    /// Where it stands.
    pub status: PendingStatus,
    /// Which write of the agent's it is.
    pub source: PendingSource,
    /// Who asked for it (`agent:ID`), when recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(r"^(agent|person):"))]
    pub by: Option<String>,
    /// The run it was asked in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// That run's task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// When it was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<DateTime<Utc>>,
    /// Its operations, in order (a batch's several, all or none).
    pub operations: Vec<PendingOp>,
    /// The person who rejected it (`person:ID`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// When.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<DateTime<Utc>>,
    /// The person's reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The writes of an owner that wait for a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PendingList {
    /// The owner.
    pub owner: String,
    /// The writes, oldest first: those that wait (and, when asked, the
    /// rejected ones).
    pub pending: Vec<PendingWrite>,
    /// How many wait.
    pub waiting: usize,
    /// How many of an agent's writes may wait at once.
    pub limit: usize,
}

/// A person's decision on a write that waited, and what it did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PendingDecision {
    /// `approved` or `rejected`.
    pub status: PendingStatus,
    /// The write decided on, as it waited (with the decision for a
    /// rejection).
    pub pending: PendingWrite,
    /// For an approval: each operation's outcome, as a direct write
    /// answers.
    pub results: Vec<OpOutcome>,
    /// For an approval: facts archived on the way (superseded, curated, or
    /// dropped by the memory tool's `create`).
    pub archived: Vec<String>,
    /// Notes such as a clamped budget.
    pub warnings: Vec<String>,
}

/// The parts of `parts` grouped by write, in file order.
fn grouped(parts: Vec<Part>) -> Vec<Vec<Part>> {
    let mut out: Vec<Vec<Part>> = Vec::new();
    for p in parts {
        match out.iter_mut().find(|g| g[0].group == p.group) {
            Some(g) => g.push(p),
            None => out.push(vec![p]),
        }
    }
    out
}

/// A write as the answers give it, from its parts.
fn as_write(parts: &[Part]) -> Option<PendingWrite> {
    let first = parts.first()?;
    let operations = parts
        .iter()
        .map(|p| {
            let (op, scope, text, target, expires, supersedes) = match &p.op {
                Op::Add {
                    text,
                    scope,
                    expires,
                    supersedes,
                } => (
                    OpKind::Add,
                    Some(*scope),
                    text.clone(),
                    None,
                    expires.clone(),
                    supersedes.clone(),
                ),
                Op::Replace { old, new, scope } => (
                    OpKind::Replace,
                    *scope,
                    new.clone(),
                    Some(old.clone()),
                    None,
                    None,
                ),
                Op::Remove { old, scope } => (
                    OpKind::Remove,
                    *scope,
                    old.clone(),
                    Some(old.clone()),
                    None,
                    None,
                ),
            };
            PendingOp {
                op,
                scope,
                text,
                target,
                expires,
                supersedes,
                archive: p.archive.clone(),
            }
        })
        .collect();
    let status = match parts.iter().any(|p| p.status == PendingStatus::Rejected) {
        true => PendingStatus::Rejected,
        false => PendingStatus::Pending,
    };
    Some(PendingWrite {
        pending_id: first.group.clone(),
        status,
        source: first.source,
        by: first.meta.agent.as_ref().map(|a| format!("agent:{a}")),
        run: first.meta.run.clone(),
        task: first.meta.task.clone(),
        created: first.meta.created,
        operations,
        decided_by: first.other("decided_by").map(str::to_owned),
        decided_at: first.decided_at(),
        reason: first.meta.reason.clone(),
    })
}

/// The owner's writes that wait for a person (and the rejected ones with
/// `all`), oldest first. An agent sees its own (its folder holds no
/// other's).
pub(crate) fn list(owner: &Owner, all: bool) -> Result<PendingList> {
    let view = owner.view()?;
    let (_, src) = pending::read(view.at())?;
    let writes: Vec<PendingWrite> = grouped(pending::parts(&src))
        .iter()
        .map(Vec::as_slice)
        .filter_map(as_write)
        .filter(|w| visible(owner.caller(), w))
        .collect();
    let waiting = writes
        .iter()
        .filter(|w| w.status == PendingStatus::Pending)
        .count();
    Ok(PendingList {
        owner: owner.id().to_owned(),
        pending: writes
            .into_iter()
            .filter(|w| all || w.status == PendingStatus::Pending)
            .collect(),
        waiting,
        limit: pending::MAX_PENDING_WRITES,
    })
}

/// Whether `caller` may see the write `w`: a person every one, an agent
/// its own.
fn visible(caller: &Caller, w: &PendingWrite) -> bool {
    match caller {
        Caller::Person(_) => true,
        Caller::Agent(a) => w.by.as_deref() == Some(format!("agent:{a}").as_str()),
    }
}

/// The write `id` of the owner (waiting or rejected).
pub(crate) fn show(owner: &Owner, id: &str) -> Result<PendingWrite> {
    let view = owner.view()?;
    let (_, src) = pending::read(view.at())?;
    grouped(pending::parts(&src))
        .iter()
        .map(Vec::as_slice)
        .filter_map(as_write)
        .find(|w| w.pending_id == id && visible(owner.caller(), w))
        .ok_or_else(|| Error::PendingNotFound { id: id.to_owned() })
}

/// The person deciding, or the refusal an agent gets.
fn person_only<'a>(caller: &'a Caller, action: &'static str, id: &str) -> Result<&'a str> {
    match caller {
        Caller::Person(p) => Ok(p),
        Caller::Agent(_) => Err(Error::PendingPersonOnly {
            action,
            id: id.to_owned(),
        }),
    }
}

/// The parts of the write `id` as PENDING.md holds them under the lock,
/// refused when there is none or it was rejected.
fn waiting_parts(locked: &Locked<'_>, id: &str) -> Result<(Option<crate::disk::Held>, Vec<Part>)> {
    let (held, src) = pending::read(locked.at())?;
    let mine: Vec<Part> = pending::parts(&src)
        .into_iter()
        .filter(|p| p.group == id)
        .collect();
    if mine.is_empty() {
        return Err(Error::PendingNotFound { id: id.to_owned() });
    }
    if mine.iter().any(|p| p.status == PendingStatus::Rejected) {
        return Err(Error::PendingClosed {
            id: id.to_owned(),
            state: PendingStatus::Rejected.as_str(),
        });
    }
    Ok((held, mine))
}

/// The operations of a waiting write, with `text` (a person's edit) in
/// place of the text of its one operation that writes text.
fn ops_of(parts: &[Part], text: Option<&str>) -> Result<Vec<Op>> {
    let mut ops: Vec<Op> = parts.iter().map(|p| p.op.clone()).collect();
    let Some(edited) = text else {
        return Ok(ops);
    };
    let mut writers = ops.iter_mut().filter(|op| !matches!(op, Op::Remove { .. }));
    match (writers.next(), writers.next()) {
        (Some(Op::Add { text, .. }), None) => *text = edited.to_owned(),
        (Some(Op::Replace { new, .. }), None) => *new = edited.to_owned(),
        _ => {
            return Err(Error::Usage {
                message: "a text is given in place of a write's only text: this write has none, \
                          or several (approve it as it is, or reject it)"
                    .into(),
            });
        }
    }
    Ok(ops)
}

/// The archive records of the removals of `parts` that archive (the
/// memory tool's `create`), made from the entries as they are now.
fn records(locked: &Locked<'_>, parts: &[Part], now: DateTime<Utc>) -> Result<Vec<(String, Meta)>> {
    let at = locked.at();
    let mut out = Vec::new();
    for p in parts {
        let (Op::Remove { old, scope }, Some(reason)) = (&p.op, &p.archive) else {
            continue;
        };
        for s in scope.map_or(Scope::ALL.to_vec(), |s| vec![s]) {
            let l = stores::load(at, s, true, STORE_EDIT_BYTES)?;
            if let Some(e) = l.doc.entries.iter().find(|e| e.id == *old) {
                let meta = record_meta(
                    e.metadata(&l.src),
                    Origin::from(s),
                    ArchiveKind::Plain,
                    reason.clone(),
                    now,
                    at.owner.caller(),
                );
                out.push((e.text.clone(), meta));
                break;
            }
        }
    }
    Ok(out)
}

/// The journal line of a decision, in episodes.md's day log of `now`.
fn journal<'a>(
    locked: &'a Locked<'_>,
    now: DateTime<Utc>,
    text: &str,
) -> Result<crate::disk::Change<'a>> {
    let line = crate::journal::render_line(&now.format("%H:%M").to_string(), None, text, None);
    let (held, _) = episodes::read(locked.at())?;
    Ok(episodes::append_line(
        locked.dir(),
        held,
        now.date_naive(),
        line,
        Rc::new(Cell::new(0)),
    ))
}

/// A person approves the waiting write `id` of `owner` (with `text` in
/// place of its one text when given): written through the write path as
/// the agent's own write, under the owner's lock, then taken out of
/// PENDING.md and journalled.
pub(crate) fn approve(owner: &Owner, id: &str, text: Option<&str>) -> Result<PendingDecision> {
    let person = person_only(owner.caller(), "approve", id)?.to_owned();
    // The write is the agent's: made through a handle of the agent, in the
    // run it was asked in.
    let agent = owner.store().owner(owner.id())?;
    let (_, src) = pending::read(owner.view()?.at())?;
    let run = pending::parts(&src)
        .into_iter()
        .find(|p| p.group == id)
        .and_then(|p| {
            p.meta.run.map(|run| RunContext {
                id: run,
                task: p.meta.task,
            })
        });
    let agent = match run {
        Some(r) => agent.in_run(r),
        None => agent,
    };
    let locked = agent.lock()?;
    let (held, parts) = waiting_parts(&locked, id)?;
    let Some(write) = as_write(&parts) else {
        return Err(Error::PendingNotFound { id: id.to_owned() });
    };
    let ops = ops_of(&parts, text)?;
    let now = Utc::now();
    let records = records(&locked, &parts, now)?;
    let batch = ops.len() > 1 || write.source == PendingSource::Batch;
    let Written {
        results,
        mut warnings,
        archived,
        ..
    } = commit(&locked, &ops, records, batch)?;
    // A day line holds at most 300 characters: a long batch is counted.
    let what = match results.len() {
        0..=3 => results
            .iter()
            .map(|o| format!("{} {}", o.message, o.id))
            .collect::<Vec<_>>()
            .join(", "),
        n => format!("{n} operations"),
    };
    let path = locked.dir().join(PENDING_FILE);
    let group = id.to_owned();
    let changes = vec![
        pending::rewrite(locked.dir(), held, move |src| {
            pending::remove(src, &path, &group)
        }),
        journal(
            &locked,
            now,
            &format!("pending {id} approved by person:{person}: {what}"),
        )?,
    ];
    agent.disk().replace_in_order(changes)?;
    warnings.extend(locked.written(
        &[PENDING_FILE, EPISODES_FILE],
        &format!("approve pending {id}"),
    ));
    Ok(PendingDecision {
        status: PendingStatus::Approved,
        pending: PendingWrite {
            status: PendingStatus::Approved,
            ..write
        },
        results,
        archived,
        warnings,
    })
}

/// A person rejects the waiting write `id` of `owner` with a reason: it
/// stays in PENDING.md as `rejected` (its text refused to the agent from
/// then on, as a vetoed one is), and the decision is journalled.
pub(crate) fn reject(owner: &Owner, id: &str, reason: &str) -> Result<PendingDecision> {
    let person = person_only(owner.caller(), "reject", id)?.to_owned();
    let reason = fold_whitespace(reason);
    let chars = reason.chars().count();
    if reason.is_empty() || chars > MAX_REASON_CHARS {
        return Err(Error::BadReason {
            chars,
            limit: MAX_REASON_CHARS,
        });
    }
    crate::edit::check_controls(&reason)?;
    let locked = owner.lock()?;
    let (held, parts) = waiting_parts(&locked, id)?;
    let Some(write) = as_write(&parts) else {
        return Err(Error::PendingNotFound { id: id.to_owned() });
    };
    let now = Utc::now();
    let path = locked.dir().join(PENDING_FILE);
    let (group, who, why) = (id.to_owned(), person.clone(), reason.clone());
    let changes = vec![
        pending::rewrite(locked.dir(), held, move |src| {
            pending::reject(src, &path, &group, &who, &why, now)
        }),
        journal(
            &locked,
            now,
            &format!(
                "pending {id} rejected by person:{person}: {}",
                reason
                    .chars()
                    .take(JOURNALLED_REASON_CHARS)
                    .collect::<String>()
            ),
        )?,
    ];
    owner.disk().replace_in_order(changes)?;
    let warnings = locked
        .written(
            &[PENDING_FILE, EPISODES_FILE],
            &format!("reject pending {id}"),
        )
        .into_iter()
        .collect();
    Ok(PendingDecision {
        status: PendingStatus::Rejected,
        pending: PendingWrite {
            status: PendingStatus::Rejected,
            decided_by: Some(format!("person:{person}")),
            decided_at: Some(now),
            reason: Some(reason),
            ..write
        },
        results: Vec::new(),
        archived: Vec::new(),
        warnings,
    })
}

#[cfg(test)]
mod tests;
