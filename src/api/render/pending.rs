//! The writes that wait for a person's review (`writes: review`) as text:
//! the line a waiting write answers with, a list, one write, a decision.

use crate::edit::OpKind;
use crate::store::{PendingDecision, PendingList, PendingStatus, PendingWrite};

/// The line a write kept for review answers with: its id, and that a
/// person decides on it.
pub(super) fn waits(id: &str, ops: usize) -> String {
    let what = match ops {
        1 => "this write".to_owned(),
        n => format!("this write of {n} operations"),
    };
    format!(
        "pending {id}: {what} waits for a person's review; nothing is written until a person \
         approves it (look it up: memdir pending show {id})\n"
    )
}

/// One operation of a waiting write, on one line.
fn operation(o: &crate::store::PendingOp) -> String {
    let store = o.scope.map(|s| format!(" in {}", s.file_name()));
    let store = store.unwrap_or_default();
    let text = crate::edit::one_line(&o.text, 200);
    match (o.op, &o.target) {
        (OpKind::Replace, Some(t)) => format!(
            "replace {}{store} with: {text}",
            crate::edit::one_line(t, 80)
        ),
        (OpKind::Remove, _) => format!("remove {text}{store}"),
        (op, _) => format!("{op}{store}: {text}"),
    }
}

/// One write: its id, state and who asked, then an operation a line.
pub(super) fn write(w: &PendingWrite) -> String {
    let mut out = format!("{} {} ({})", w.pending_id, w.status, w.source.as_str());
    if let Some(by) = &w.by {
        out.push_str(&format!(" by {by}"));
    }
    if let Some(t) = w.created {
        out.push_str(&format!(" at {}", super::utc(&t)));
    }
    if let Some(run) = &w.run {
        out.push_str(&format!(" in run {run}"));
    }
    out.push('\n');
    for o in &w.operations {
        out.push_str(&format!("  {}\n", operation(o)));
    }
    if w.status == PendingStatus::Rejected {
        out.push_str(&format!(
            "  rejected by {}: {}\n",
            w.decided_by.as_deref().unwrap_or("a person"),
            w.reason.as_deref().unwrap_or_default()
        ));
    }
    out
}

/// The owner's waiting writes.
pub(super) fn list(l: &PendingList) -> String {
    let mut out = format!(
        "{} of {}: {} waiting (at most {} an agent)\n",
        crate::store::PENDING_FILE,
        l.owner,
        l.waiting,
        l.limit
    );
    for w in &l.pending {
        out.push_str(&write(w));
    }
    out
}

/// A person's decision, and what an approval wrote.
pub(super) fn decided(d: &PendingDecision) -> String {
    let mut out = format!("{} {}\n", d.status, d.pending.pending_id);
    for r in &d.results {
        out.push_str(&format!(
            "  {} {} in {}\n",
            r.message,
            r.id,
            r.scope.file_name()
        ));
    }
    for id in &d.archived {
        out.push_str(&format!("  archived {id}\n"));
    }
    if let Some(reason) = &d.pending.reason {
        out.push_str(&format!("  reason: {reason}\n"));
    }
    out
}
