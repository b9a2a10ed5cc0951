//! The day log and runs as text: a line appended, the runs a search
//! found, one run, the runs.

use super::{utc, utc_text};
use crate::journal::MAX_DAY_CHARS;
use crate::store::{DayOutcome, RunHit, RunRecord, RunView};

/// A line appended to the day log, and how full the day is.
pub(super) fn day(o: &DayOutcome) -> String {
    format!(
        "appended to {} ({}): {} ({}/{MAX_DAY_CHARS} chars)\n",
        o.date, o.id, o.line.raw, o.chars
    )
}

/// The day lines a search of the runs found, with their scores.
pub(super) fn run_hits(hits: &[RunHit]) -> String {
    let mut out = String::new();
    for h in hits {
        out.push_str(&format!(
            "{} {} {}{}{}  [{:.2}]\n",
            h.date,
            h.time.as_deref().unwrap_or("--:--"),
            h.task
                .as_deref()
                .map(|t| format!("[{t}] "))
                .unwrap_or_default(),
            h.text,
            h.run
                .as_deref()
                .map(|r| format!(" (run {r})"))
                .unwrap_or_default(),
            h.score.unwrap_or(0.0)
        ));
    }
    if hits.is_empty() {
        out.push_str("(no matching runs)\n");
    }
    out
}

/// One run: its record, its journal lines, its steps, its recalls and the
/// snapshot it began with.
pub(super) fn run(v: &RunView) -> String {
    let mut out = format!("run {}\n", v.run_id);
    if let Some(r) = &v.record {
        out.push_str(&format!("started {}", utc(&r.started_at)));
        if let Some(f) = &r.finished_at {
            out.push_str(&format!(", finished {}", utc(f)));
        }
        if let Some(t) = &r.task {
            out.push_str(&format!(", task {t}"));
        }
        out.push('\n');
    }
    for h in &v.journal {
        out.push_str(&format!(
            "journal: {} {} {}\n",
            h.date,
            h.time.as_deref().unwrap_or("--:--"),
            h.text
        ));
    }
    for s in &v.steps {
        out.push_str(&format!(
            "step {}: {} ({} bytes, {})\n",
            s.task_id,
            s.content_type,
            s.bytes,
            utc_text(&s.created_at)
        ));
    }
    for (i, r) in v.recalls.iter().enumerate() {
        let query = r.query.as_deref().unwrap_or("(no query)");
        let cut = if r.truncated { ", cut" } else { "" };
        out.push_str(&format!(
            "recall {} at {}: {query}{cut}\n{}\n",
            i + 1,
            utc(&r.at),
            r.block
        ));
    }
    if v.recalls_left_out > 0 {
        out.push_str(&format!(
            "recalls not kept (past the bound): {}\n",
            v.recalls_left_out
        ));
    }
    if let Some(snap) = &v.snapshot {
        out.push_str("snapshot it began with:\n");
        out.push_str(snap);
    }
    out
}

/// The runs, newest first.
pub(super) fn runs(runs: &[RunRecord]) -> String {
    let mut out = String::new();
    for r in runs {
        out.push_str(&format!("{}  started {}", r.run_id, utc(&r.started_at)));
        match &r.finished_at {
            Some(f) => out.push_str(&format!(", finished {}", utc(f))),
            None => out.push_str(", open"),
        }
        if let Some(t) = &r.task {
            out.push_str(&format!(", task {t}"));
        }
        if r.workflow() != r.run_id {
            out.push_str(&format!(", workflow {}", r.workflow()));
        }
        out.push('\n');
    }
    if runs.is_empty() {
        out.push_str("(no runs)\n");
    }
    out
}
