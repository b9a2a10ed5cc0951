//! The pure checks of the learnings: who may decide, what a caller may
//! see, a reason's bounds, whether a proposal still waits, whether an
//! approval fits LEARNINGS.md's budget, and an entry as the answers give
//! it. No I/O.

use super::Learning;
use crate::error::{EntryBrief, Error, Result};
use crate::model::Caller;
use crate::store::files::learnings::{Item, LEARNINGS_FILE, LearningStatus};

/// Longest reason for a rejection or a retirement, in characters.
const MAX_REASON: usize = 500;

/// The caller as a comment records it: `agent:ID` or `person:ID`.
pub(super) fn by(caller: &Caller) -> String {
    match caller {
        Caller::Agent(a) => format!("agent:{a}"),
        Caller::Person(p) => format!("person:{p}"),
    }
}

/// Refuses an agent: only a person decides on learnings.
pub(super) fn person_only<'a>(
    caller: &'a Caller,
    action: &'static str,
    id: &str,
) -> Result<&'a str> {
    match caller {
        Caller::Person(p) => Ok(p),
        Caller::Agent(_) => Err(Error::LearningPersonOnly {
            action,
            id: id.to_owned(),
        }),
    }
}

pub(super) fn as_learning(i: &Item) -> Learning {
    let proposed_by = match (&i.meta.agent, &i.meta.person) {
        (Some(a), _) => Some(format!("agent:{a}")),
        (None, Some(p)) if i.status != LearningStatus::Approved => Some(format!("person:{p}")),
        _ => i.other("proposed_by").map(str::to_owned),
    };
    let decided_by = match i.status {
        LearningStatus::Approved => i.meta.person.as_ref().map(|p| format!("person:{p}")),
        _ => i.other("decided_by").map(str::to_owned),
    };
    Learning {
        id: i.id.clone(),
        text: i.text.clone(),
        status: i.status,
        proposed_by,
        created: i.meta.created,
        decided_by,
        decided_at: match i.status {
            LearningStatus::Approved => i.meta.created,
            _ => i.decided_at(),
        },
        reason: i.meta.reason.clone(),
        proposal: i.other("proposal").map(str::to_owned),
    }
}

pub(super) fn check_reason(reason: Option<&str>, required: bool) -> Result<Option<String>> {
    let reason = reason.map(crate::model::fold_whitespace);
    let chars = reason.as_ref().map_or(0, |r| r.chars().count());
    if (required && chars == 0) || chars > MAX_REASON {
        return Err(Error::BadReason {
            chars,
            limit: MAX_REASON,
        });
    }
    if let Some(r) = &reason {
        crate::edit::check_controls(r)?;
    }
    Ok(reason.filter(|r| !r.is_empty()))
}

/// A decision on proposal `id` needs it still pending: a rejected or
/// retired one is [`Error::LearningClosed`], with its state and reason.
pub(super) fn still_pending(p: &Item, id: &str) -> Result<()> {
    if p.status == LearningStatus::Pending {
        return Ok(());
    }
    Err(Error::LearningClosed {
        id: id.to_owned(),
        state: p.status.name(),
        reason: p.meta.reason.clone(),
    })
}

/// Whether `caller` may see the proposal `i`: a person every one, an agent
/// only its own (never another agent's pending text).
pub(super) fn visible_to(caller: &Caller, i: &Item) -> bool {
    match caller {
        Caller::Person(_) => true,
        Caller::Agent(a) => i.meta.agent.as_deref() == Some(a.as_str()),
    }
}

/// An approval that takes LEARNINGS.md from `used` to `would_use`
/// characters past `limit` is refused as a store's write past its budget
/// is ([`Error::OverBudget`], with the current learnings); one that does
/// not grow the file passes (a file over its budget by a hand edit can
/// still take an approval that changes nothing).
pub(super) fn fits_budget(
    learnings: &[Item],
    used: usize,
    would_use: usize,
    limit: usize,
) -> Result<()> {
    if would_use <= limit || would_use <= used {
        return Ok(());
    }
    Err(Error::OverBudget {
        file: LEARNINGS_FILE,
        would_use,
        limit,
        used,
        entries: learnings
            .iter()
            .map(|i| EntryBrief {
                id: i.id.clone(),
                text: shown(&i.id, &i.text),
                file: LEARNINGS_FILE,
                expired: false,
            })
            .collect(),
    })
}

/// A learning's text as an error lists it: its `[BLOCKED: …]` placeholder
/// when the scanner flags it.
fn shown(id: &str, text: &str) -> String {
    let findings = crate::scan::scan(text);
    if findings.is_empty() {
        text.to_owned()
    } else {
        crate::scan::blocked(&format!("{LEARNINGS_FILE} entry {id}"), &findings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Meta;

    fn item(id: &str, text: &str, agent: Option<&str>) -> Item {
        Item {
            index: 0,
            id: id.into(),
            text: text.into(),
            meta: Meta {
                agent: agent.map(str::to_owned),
                ..Meta::default()
            },
            status: LearningStatus::Pending,
        }
    }

    #[test]
    fn an_agent_sees_its_own_proposals_only() {
        let mine = item("mem_000000000001", "a", Some("a1"));
        let theirs = item("mem_000000000002", "b", Some("a2"));
        let persons = item("mem_000000000003", "c", None);
        let a1 = Caller::Agent("a1".into());
        assert!(visible_to(&a1, &mine));
        assert!(!visible_to(&a1, &theirs) && !visible_to(&a1, &persons));
        let ann = Caller::Person("ann".into());
        assert!([mine, theirs, persons].iter().all(|i| visible_to(&ann, i)));
    }

    #[test]
    fn an_approval_past_the_budget_is_refused_with_the_learnings() {
        let l = [item("mem_000000000001", "Deploys need the VPN", None)];
        assert!(fits_budget(&l, 400, 500, 500).is_ok());
        let e = fits_budget(&l, 400, 501, 500).unwrap_err();
        assert_eq!(e.code().as_str(), "memory_over_budget");
        let Error::OverBudget { entries, file, .. } = e else {
            panic!("not over budget")
        };
        assert_eq!(file, LEARNINGS_FILE);
        assert_eq!(entries[0].text, "Deploys need the VPN");
        // Already past it (a hand edit), an approval that does not grow it.
        assert!(fits_budget(&l, 600, 600, 500).is_ok());
    }

    #[test]
    fn a_reason_is_bounded_and_required_where_asked() {
        assert_eq!(check_reason(None, false).unwrap(), None);
        assert_eq!(
            check_reason(Some("  stale   now "), true)
                .unwrap()
                .as_deref(),
            Some("stale now")
        );
        assert!(check_reason(Some(" "), true).is_err());
        assert!(check_reason(Some(&"x".repeat(MAX_REASON + 1)), false).is_err());
    }
}
