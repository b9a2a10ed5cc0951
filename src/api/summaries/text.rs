//! The summaries as text: a line for the page, then one line an agent.
//! Pure: no I/O.

use super::{AgentSummaries, AgentSummary};

/// A time as text, UTC to the minute.
fn minute(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// The review routine of a row, in words.
fn review(r: &AgentSummary) -> String {
    if !r.routine {
        "no routine".to_owned()
    } else if r.paused {
        "paused".to_owned()
    } else {
        r.next_due
            .as_ref()
            .map_or_else(|| "-".to_owned(), |t| format!("next {}", minute(t)))
    }
}

/// One row: its figures, or why they could not be read.
fn row(r: &AgentSummary) -> String {
    if let Some(f) = &r.failed {
        return format!("{}  {} ({}): {}\n", r.id, f.code, f.status, f.message);
    }
    format!(
        "{}  live {}  expired {}  archived {}  MEMORY {}  USER {}  last run {}  today {} chars  findings {}  review {}\n",
        r.id,
        r.live,
        r.expired,
        r.archived,
        r.memory.text,
        r.user.text,
        r.last_run
            .as_ref()
            .map_or_else(|| "never".to_owned(), minute),
        r.day_chars,
        r.findings,
        review(r),
    )
}

/// The page as text.
pub(crate) fn summaries_text(s: &AgentSummaries) -> String {
    let mut out = format!(
        "{} agents — page {} of {}, sorted by {}\n",
        s.total,
        s.page,
        s.pages,
        s.sort.word()
    );
    for r in &s.rows {
        out.push_str(&row(r));
    }
    out
}
