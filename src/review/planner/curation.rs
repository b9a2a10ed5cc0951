//! Steps 5 and 6: the live facts not recalled in the last
//! [`RECALL_WINDOW_DAYS`] days (and older than that), candidates to
//! re-read; with `curation: auto`, the oldest of them archived (kind
//! `unrecalled`) while a store would be over its budget after the plan.

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, Utc};

use crate::edit::used_chars;
use crate::model::{ArchiveKind, Scope};
use crate::review::{Change, Fact, Input, Plan, RECALL_WINDOW_DAYS};

/// The ids of the `live` facts not `gone`, not recalled in the window and
/// created before it.
pub(super) fn unrecalled(
    live: &[&Fact],
    gone: &BTreeSet<String>,
    now: DateTime<Utc>,
) -> Vec<String> {
    live.iter()
        .filter(|f| !gone.contains(&f.id))
        .filter(|f| !f.recalled_within(now))
        .filter(|f| {
            f.created()
                .is_some_and(|c| now - c > Duration::days(RECALL_WINDOW_DAYS))
        })
        .map(|f| f.id.clone())
        .collect()
}

/// `curation: auto`: while a store would be over its budget after the plan
/// (lifted facts included), its unrecalled facts are archived, oldest
/// first, before anything is lifted (their changes go before the lifts).
pub(super) fn curate(
    facts: &[&Fact],
    live: &[&Fact],
    renewed: &BTreeSet<String>,
    input: &Input<'_>,
    gone: &mut BTreeSet<String>,
    out: &mut Plan,
) {
    let now = input.now;
    let mut curated = Vec::new();
    for scope in Scope::ALL {
        let limit = (input.budget)(scope);
        let mut held: Vec<(&str, &str)> = facts
            .iter()
            .filter(|f| f.scope == scope && !gone.contains(&f.id))
            .filter(|f| !f.expired(now) || renewed.contains(&f.id))
            .map(|f| (f.id.as_str(), f.text.as_str()))
            .collect();
        for c in &out.changes {
            if let Change::Lift { id, text, .. } = c
                && scope == Scope::Memory
            {
                held.push((id, text));
            }
        }
        let used = |held: &[(&str, &str)]| used_chars(held.iter().map(|(_, t)| *t));
        let mut now_used = used(&held);
        if now_used <= limit {
            continue;
        }
        let mut cands: Vec<&Fact> = live
            .iter()
            .copied()
            .filter(|f| f.scope == scope && out.unrecalled.contains(&f.id))
            .collect();
        cands.sort_by(|a, b| a.created().cmp(&b.created()).then(a.id.cmp(&b.id)));
        for f in cands {
            if now_used <= limit {
                break;
            }
            let before = now_used;
            held.retain(|(id, _)| *id != f.id);
            now_used = used(&held);
            gone.insert(f.id.clone());
            curated.push(Change::Archive {
                id: f.id.clone(),
                scope,
                text: f.text.clone(),
                kind: ArchiveKind::Unrecalled,
                reason: format!(
                    "curated: {} over its budget ({before}/{limit} chars), not recalled in the last {RECALL_WINDOW_DAYS} days",
                    scope.file_name()
                ),
                into: None,
            });
        }
    }
    out.unrecalled.retain(|id| !gone.contains(id));
    let at = out
        .changes
        .iter()
        .position(|c| matches!(c, Change::Lift { .. }))
        .unwrap_or(out.changes.len());
    out.changes.splice(at..at, curated);
}
