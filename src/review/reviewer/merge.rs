//! The reviewer's proposals checked against the owner's facts and the plan
//! so far, and the valid ones merged into the plan ([`merge`]): one check
//! per kind of proposal, each saying why it refuses one.

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, Utc};

use super::{MAX_REASON_CHARS, MAX_RENEW_DAYS, Proposal, Rejected};
use crate::edit::{Vetoes, check_text};
use crate::model::{ArchiveKind, Scope, entry_id, fold_whitespace};
use crate::review::duplicates::folded;
use crate::review::{Change, DEFAULT_RENEW_DAYS, Fact, Plan};

/// Checks each proposal against the owner's facts and the plan so far and
/// adds the valid ones to `plan` (after its own changes); returns the rest
/// with why. `renew_days` gives a store's expiry. A new text that is a
/// vetoed fact in any form (`vetoes`, by `edit::fold`) is rejected: a
/// person's veto stands.
pub fn merge(
    plan: &mut Plan,
    facts: &[Fact],
    proposals: &[serde_json::Value],
    renew_days: &dyn Fn(Scope) -> Option<u32>,
    vetoes: &Vetoes,
    now: DateTime<Utc>,
) -> Vec<Rejected> {
    let touched: BTreeSet<String> = plan.changes.iter().map(|c| c.id().to_owned()).collect();
    let present: BTreeSet<String> = facts
        .iter()
        .filter(|f| !f.expired(now) && !touched.contains(&f.id))
        .map(|f| folded(&f.text))
        .collect();
    let mut merging = Merging {
        plan,
        facts,
        renew_days,
        vetoes,
        now,
        touched,
        present,
    };
    let mut rejected = Vec::new();
    for (index, raw) in proposals.iter().enumerate() {
        let merged = serde_json::from_value::<Proposal>(raw.clone())
            .map_err(|e| format!("not a proposal: {e}"))
            .and_then(|p| merging.take(p));
        if let Err(why) = merged {
            rejected.push(Rejected {
                index,
                proposal: raw.to_string(),
                why,
            });
        }
    }
    rejected
}

/// The plan the proposals merge into, and what they are checked against.
struct Merging<'a> {
    plan: &'a mut Plan,
    facts: &'a [Fact],
    renew_days: &'a dyn Fn(Scope) -> Option<u32>,
    vetoes: &'a Vetoes,
    now: DateTime<Utc>,
    /// The ids the plan changes already.
    touched: BTreeSet<String>,
    /// The texts (folded) the stores hold after the plan.
    present: BTreeSet<String>,
}

impl Merging<'_> {
    /// Merges one proposal into the plan, or says why not (the plan is
    /// then unchanged).
    fn take(&mut self, p: Proposal) -> Result<(), String> {
        match p {
            Proposal::Save {
                text,
                store,
                reason,
            } => self.save(&text, store, reason.as_deref()),
            Proposal::Archive { id, reason } => self.archive(&id, &reason),
            Proposal::Supersede { id, text, reason } => {
                self.supersede(&id, &text, reason.as_deref())
            }
            Proposal::Renew { id, days, reason } => self.renew(&id, days, reason.as_deref()),
        }
    }

    /// A new fact.
    fn save(
        &mut self,
        text: &str,
        store: Option<Scope>,
        reason: Option<&str>,
    ) -> Result<(), String> {
        let t = self.new_text(text)?;
        let r = reason_of(reason)?;
        let scope = store.unwrap_or(Scope::Memory);
        let id = entry_id(scope.name(), &t);
        self.present.insert(folded(&t));
        self.touched.insert(id.clone());
        self.plan.changes.push(Change::Save {
            id,
            scope,
            text: t,
            reason: if r.is_empty() {
                "proposed by the reviewer".into()
            } else {
                r
            },
            supersedes: None,
        });
        Ok(())
    }

    /// A fact archived (kind `reviewed`), with a reason.
    fn archive(&mut self, id: &str, reason: &str) -> Result<(), String> {
        let r = reason_of(Some(reason))?;
        if r.is_empty() {
            return Err("an archive needs a reason".into());
        }
        let f = self.target(id, &self.touched)?;
        self.touched.insert(f.id.clone());
        self.present.remove(&folded(&f.text));
        self.plan.changes.push(Change::Archive {
            id: f.id.clone(),
            scope: f.scope,
            text: f.text.clone(),
            kind: ArchiveKind::Reviewed,
            reason: r,
            into: None,
        });
        Ok(())
    }

    /// A fact replaced by a new text (archived as superseded by it).
    fn supersede(&mut self, id: &str, text: &str, reason: Option<&str>) -> Result<(), String> {
        let f = self.target(id, &self.touched)?;
        let t = self.new_text(text)?;
        let r = reason_of(reason)?;
        let new_id = entry_id(f.scope.name(), &t);
        self.touched.insert(f.id.clone());
        self.touched.insert(new_id.clone());
        self.present.remove(&folded(&f.text));
        self.present.insert(folded(&t));
        let why = if r.is_empty() {
            format!("superseded by {new_id} (the reviewer)")
        } else {
            format!("superseded by {new_id}: {r}")
        };
        self.plan.changes.push(Change::Archive {
            id: f.id.clone(),
            scope: f.scope,
            text: f.text.clone(),
            kind: ArchiveKind::Superseded,
            reason: why.clone(),
            into: Some(new_id.clone()),
        });
        self.plan.changes.push(Change::Save {
            id: new_id,
            scope: f.scope,
            text: t,
            reason: why,
            supersedes: Some(f.id.clone()),
        });
        Ok(())
    }

    /// A fact given a new expiry: `days` from now, or its store's.
    fn renew(&mut self, id: &str, days: Option<u32>, reason: Option<&str>) -> Result<(), String> {
        // A renewal overrides the plan's archiving of the fact as expired
        // (this machine had not seen it recalled).
        let expired_here = self.plan.changes.iter().position(
            |c| matches!(c, Change::Archive { id: x, kind: ArchiveKind::Expired, .. } if x == id),
        );
        let mut free = self.touched.clone();
        if expired_here.is_some() {
            free.remove(id);
        }
        let f = self.target(id, &free)?;
        if f.meta.expires.is_none() {
            return Err(format!("{id} has no expiry to renew"));
        }
        let days = days
            .or_else(|| (self.renew_days)(f.scope).filter(|d| *d > 0))
            .unwrap_or(DEFAULT_RENEW_DAYS);
        if days == 0 || days > MAX_RENEW_DAYS {
            return Err(format!("days must be 1 to {MAX_RENEW_DAYS}"));
        }
        let r = reason_of(reason)?;
        if let Some(i) = expired_here {
            self.plan.changes.remove(i);
            self.plan.unrecalled.retain(|u| *u != f.id);
        }
        self.touched.insert(f.id.clone());
        self.plan.changes.push(Change::Renew {
            id: f.id.clone(),
            scope: f.scope,
            expires: self.now + Duration::days(i64::from(days)),
            previous: f.meta.expires,
            reason: if r.is_empty() {
                "renewed by the reviewer".into()
            } else {
                r
            },
        });
        Ok(())
    }

    /// The owner's fact `id`, unless `touched` (changed by the plan
    /// already).
    fn target(&self, id: &str, touched: &BTreeSet<String>) -> Result<Fact, String> {
        let f = self
            .facts
            .iter()
            .find(|f| f.id == id)
            .ok_or_else(|| format!("{id} is not a fact of this owner"))?;
        if touched.contains(id) {
            return Err(format!("{id} is changed by this review already"));
        }
        Ok(f.clone())
    }

    /// A proposal's new text, checked as a save's text is, not a vetoed
    /// fact in any form, not stored already.
    fn new_text(&self, text: &str) -> Result<String, String> {
        let t = check_text(text).map_err(|e| format!("{}: {e}", e.code()))?;
        if let Some(v) = self.vetoes.first(&t) {
            return Err(format!(
                "the same fact as {}, {}; a person's veto stands",
                v.id,
                v.why()
            ));
        }
        if self.present.contains(&folded(&t)) {
            return Err("already stored".into());
        }
        Ok(t)
    }
}

/// A proposal's reason, folded: at most [`MAX_REASON_CHARS`] characters,
/// no control character.
fn reason_of(r: Option<&str>) -> Result<String, String> {
    let r = fold_whitespace(r.unwrap_or(""));
    let n = r.chars().count();
    if n > MAX_REASON_CHARS {
        return Err(format!("reason of {n} characters, over {MAX_REASON_CHARS}"));
    }
    if r.chars().any(char::is_control) {
        return Err("reason holds control characters".into());
    }
    Ok(r)
}
