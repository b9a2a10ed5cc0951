//! A write that waits for a person: under `writes: review` an agent's
//! write that adds or changes text is planned and checked whole as a
//! direct write is (budget, veto, a rejected text, the scanner, what a
//! replace or removal names), then kept in the owner's `PENDING.md`
//! instead of being written; a person approves it later
//! (`store::pending`), and it is then written through [`super::commit`]
//! exactly as it would have been.

use chrono::Utc;

use super::{Planned, Written, commit, plan};
use crate::edit::{self, Op, Usage};
use crate::error::{Error, Result};
use crate::markdown::splice::normalize_text;
use crate::model::{Caller, Scope, WritePolicy, fold_whitespace};
use crate::store::files::pending::{
    self, Asker, MAX_PENDING_WRITES, PENDING_FILE, PendingSource, PendingStatus, Staging,
};
use crate::store::owner::{At, Locked};

/// Whether `ops`, written by the locked handle's caller, wait for a
/// person: an agent's write under `writes: review` (the owner's settings
/// and the machine-local configuration, the tighter) when one of its
/// operations adds or changes text. A person's writes and removals alone
/// never wait.
pub(crate) fn waits(at: At<'_>, ops: &[Op]) -> Result<bool> {
    if !matches!(at.owner.caller(), Caller::Agent(_)) {
        return Ok(false);
    }
    if ops.iter().all(|op| matches!(op, Op::Remove { .. })) {
        return Ok(false);
    }
    Ok(at.owner.write_policy(at.settings)? == WritePolicy::Review)
}

/// Writes `ops` under the lock (as [`commit`] does), or keeps them in
/// PENDING.md when they wait for a person ([`waits`]).
pub(crate) fn submit(
    locked: &Locked<'_>,
    ops: &[Op],
    batch: bool,
    source: PendingSource,
) -> Result<Written> {
    if waits(locked.at(), ops)? {
        let archives = vec![None; ops.len()];
        return stage(locked, ops, &archives, batch, source);
    }
    commit(locked, ops, Vec::new(), batch)
}

impl Planned<'_> {
    /// The usage of each store the plan would write, as it is now (before
    /// the plan).
    fn usage_now(&self, at: At<'_>) -> Result<Vec<(Scope, Usage)>> {
        let now = Utc::now();
        self.plans
            .iter()
            .map(|p| {
                let cx = p.loaded.context(at, now);
                let budget = cx.budget(&p.loaded.doc)?;
                let used = edit::used_live(&cx, &p.loaded.src, &p.loaded.doc);
                Ok((p.scope, Usage::new(used, budget.limit)))
            })
            .collect()
    }
}

/// An operation with its texts folded as an entry's id folds them, to
/// tell the same write asked twice.
fn normalized(op: &Op) -> Op {
    let fold = |t: &str| fold_whitespace(&normalize_text(t));
    match op {
        Op::Add {
            text,
            scope,
            expires,
            supersedes,
        } => Op::Add {
            text: fold(text),
            scope: *scope,
            expires: expires.clone(),
            supersedes: supersedes.clone(),
        },
        Op::Replace { old, new, scope } => Op::Replace {
            old: fold(old),
            new: fold(new),
            scope: *scope,
        },
        Op::Remove { old, scope } => Op::Remove {
            old: fold(old),
            scope: *scope,
        },
    }
}

/// The id of the agent's write of `ops` that waits already, if one does
/// (the same operations, in the same order).
fn waiting_already(parts: &[pending::Part], agent: &str, ops: &[Op]) -> Option<String> {
    let want: Vec<Op> = ops.iter().map(normalized).collect();
    let mut groups: Vec<&str> = parts.iter().map(|p| p.group.as_str()).collect();
    groups.dedup();
    groups.into_iter().find_map(|g| {
        let mine: Vec<&pending::Part> = parts.iter().filter(|p| p.group == g).collect();
        let same = mine
            .iter()
            .all(|p| p.status == PendingStatus::Pending && p.meta.agent.as_deref() == Some(agent))
            && mine.len() == want.len()
            && mine.iter().zip(&want).all(|(p, w)| normalized(&p.op) == *w);
        same.then(|| g.to_owned())
    })
}

/// How many writes of `agent` wait in PENDING.md.
fn waiting(parts: &[pending::Part], agent: &str) -> usize {
    let mut groups: Vec<&str> = parts
        .iter()
        .filter(|p| p.status == PendingStatus::Pending && p.meta.agent.as_deref() == Some(agent))
        .map(|p| p.group.as_str())
        .collect();
    groups.sort_unstable();
    groups.dedup();
    groups.len()
}

/// Keeps `ops` (a removal archiving with `archives[i]` when given) in
/// PENDING.md for a person to decide on, after planning them whole as
/// [`commit`] would (a write a direct write would refuse is refused here
/// the same way, and one that would change nothing is answered as it
/// would be, nothing kept). The answer is the plan's outcome with each
/// operation's message `pending`, the stores' usage as it is now, and the
/// pending write's id; at most [`MAX_PENDING_WRITES`] writes of an
/// agent wait (`memory_pending_full`). The same write asked again while it
/// waits is answered with the id it has.
pub(crate) fn stage(
    locked: &Locked<'_>,
    ops: &[Op],
    archives: &[Option<String>],
    batch: bool,
    source: PendingSource,
) -> Result<Written> {
    let at = locked.at();
    let planned = plan(at, ops, Vec::new(), batch)?;
    let mut w = planned.outcome(at);
    let changes = w.results.iter().any(|o| {
        !matches!(
            o.message,
            edit::Change::AlreadyStored | edit::Change::Unchanged
        )
    });
    if !changes {
        return Ok(w);
    }
    w.usage = planned.usage_now(at)?;
    w.archived = Vec::new();
    let agent = locked.owner().caller().id().to_owned();
    let (held, src) = pending::read(at)?;
    let parts = pending::parts(&src);
    let id = match waiting_already(&parts, &agent, ops) {
        Some(id) => id,
        None => {
            let n = waiting(&parts, &agent);
            if n >= MAX_PENDING_WRITES {
                return Err(Error::PendingFull {
                    agent,
                    pending: n,
                    limit: MAX_PENDING_WRITES,
                });
            }
            let asker = Asker {
                agent,
                run: locked.owner().run().map(|r| (r.id.clone(), r.task.clone())),
                source,
                now: Utc::now(),
            };
            let staging: Vec<Staging<'_>> = ops
                .iter()
                .zip(archives.iter().chain(std::iter::repeat(&None)))
                .map(|(op, archive)| Staging {
                    op,
                    archive: archive.clone(),
                })
                .collect();
            let id = pending::new_id(&asker, &staging);
            let path = locked.dir().join(PENDING_FILE);
            let group = id.clone();
            let change = pending::rewrite(locked.dir(), held, move |src| {
                pending::append(src, &path, &group, &staging, &asker).map(Some)
            });
            locked.owner().disk().replace_in_order(vec![change])?;
            w.warnings
                .extend(locked.written(&[PENDING_FILE], &format!("pending {id}")));
            id
        }
    };
    for o in &mut w.results {
        o.message = edit::Change::Pending;
    }
    w.pending = Some(id);
    Ok(w)
}
