//! The daily review as text: a plan, the routine's state, the history of
//! reviews, an undo.

use super::utc;

/// The routine's state, one fact a line.
pub(super) fn routine(s: &crate::store::RoutineStatus) -> String {
    use crate::model::fmt_time;
    use crate::review::routine::Due;
    let mut out = match &s.at {
        None => {
            "routine: none (an agent's first save creates it; `memdir review resume` adds it)\n"
                .to_owned()
        }
        Some(at) if s.paused => format!("routine: daily at {at} UTC, paused\n"),
        Some(at) => format!("routine: daily at {at} UTC\n"),
    };
    match &s.last {
        Some(l) => out.push_str(&format!(
            "last run: {} ({}){}\nlast report: {}\n",
            fmt_time(l.at),
            l.id,
            if l.undone { ", undone" } else { "" },
            l.report
        )),
        None => out.push_str("last run: never\n"),
    }
    out.push_str(&match &s.due {
        Due::Due { since } => format!("next due: now (due since {})\n", fmt_time(*since)),
        Due::NotDue { next } => format!("next due: {}\n", fmt_time(*next)),
        Due::Paused => "next due: never while paused\n".to_owned(),
        Due::NoRoutine => "next due: never (no routine)\n".to_owned(),
    });
    out
}

/// Every review, newest first: its line, then each change the files still
/// record with its diff.
pub(super) fn history(h: &crate::store::ReviewHistory) -> String {
    use crate::model::fmt_time;
    if h.reviews.is_empty() {
        return "no review yet\n".to_owned();
    }
    let mut out = String::new();
    for r in &h.reviews {
        out.push_str(&format!(
            "{} at {}{}: {}\n",
            r.id,
            fmt_time(r.at),
            if r.undone { " (undone)" } else { "" },
            r.report
        ));
        for c in &r.changes {
            let kind = c.kind.name();
            let why = c
                .archive_kind
                .map_or(String::new(), |k| format!(" ({})", k.name()));
            out.push_str(&format!("  {kind}{why} {} in {}\n", c.id, c.file));
            for l in c.diff.lines() {
                out.push_str(&format!("    {l}\n"));
            }
            if c.diff_cut {
                out.push_str("    (diff cut)\n");
            }
        }
        if r.changes_total > r.changes.len() {
            out.push_str(&format!(
                "  … and {} more\n",
                r.changes_total - r.changes.len()
            ));
        }
    }
    out
}

/// A review's plan: each change with its reason, what is left and listed,
/// and (dry run) a diff of each file.
pub(super) fn review(r: &crate::store::ReviewReport) -> String {
    use crate::review::Change;
    let mut out = if r.plan.changes.is_empty() {
        format!("review {}: no changes (nothing written)\n", r.review_id)
    } else if r.applied {
        format!("review {}\n", r.review_id)
    } else {
        format!("review {} (dry run: nothing changed)\n", r.review_id)
    };
    for c in &r.plan.changes {
        out.push_str(&match c {
            Change::Archive {
                id, kind, reason, ..
            } => format!("  archive {id} ({}): {reason}\n", kind.name()),
            Change::Renew {
                id,
                reason,
                expires,
                ..
            } => format!("  renew {id} until {}: {reason}\n", utc(expires)),
            Change::Lift { id, text, date, .. } => {
                format!("  lift {id} from {date}: {text}\n")
            }
            Change::Settle {
                id, kept, reason, ..
            } => format!(
                "  settle {id} (keep the {} one): {reason}\n",
                match kept {
                    crate::review::Kept::Live => "live",
                    crate::review::Kept::Archived => "archived",
                }
            ),
            Change::Save {
                id, text, reason, ..
            } => format!("  save {id} (reviewer): {text} ({reason})\n"),
            Change::Dedupe {
                id, copies, reason, ..
            } => format!("  keep one of {copies} copies of {id}: {reason}\n"),
        });
    }
    for u in &r.plan.unsettled {
        out.push_str(&format!(
            "  conflict left: {} and {}: {}\n",
            u.ids[0], u.ids[1], u.why
        ));
    }
    for s in &r.plan.skipped {
        out.push_str(&format!("  skipped: {} ({})\n", s.what, s.why));
    }
    if !r.plan.unrecalled.is_empty() {
        out.push_str(&format!(
            "  not recalled in 30 days: {}\n",
            r.plan.unrecalled.join(", ")
        ));
    }
    if let Some(rv) = &r.reviewer {
        match &rv.error {
            Some(e) => out.push_str(&format!("  reviewer failed: {e}\n")),
            None => out.push_str(&format!(
                "  reviewer: {} proposals applied, {} not\n",
                rv.accepted,
                rv.rejected.len()
            )),
        }
        for x in &rv.rejected {
            out.push_str(&format!(
                "  rejected #{}: {} ({})\n",
                x.index, x.proposal, x.why
            ));
        }
    }
    for (_, d) in &r.diffs {
        out.push_str(d);
    }
    if !r.plan.changes.is_empty() {
        out.push_str(&if r.applied {
            format!("undo it: memdir review undo {}\n", r.review_id)
        } else {
            format!("apply it: memdir review apply {}\n", r.review_id)
        });
    }
    out
}

/// A review undone: what came back, what was taken out, what was left.
pub(super) fn undone(u: &crate::store::UndoReport) -> String {
    let mut out = format!(
        "undid review {}: {} brought back, {} lifted taken out\n",
        u.review_id,
        u.restored.len(),
        u.removed.len()
    );
    for i in &u.restored {
        out.push_str(&format!("  + {i}\n"));
    }
    for i in &u.removed {
        out.push_str(&format!("  - {i}\n"));
    }
    for i in &u.left {
        out.push_str(&format!("  left: {i}\n"));
    }
    for v in &u.vetoed {
        out.push_str(&format!("  not brought back: {} ({})\n", v.id, v.why));
    }
    out
}
