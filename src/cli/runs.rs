//! `memdir runs search|show`: the run journal, queried on demand.

use chrono::NaiveDate;
use clap::Subcommand;
use memdir::{Error, Owner, SearchOptions};

use super::to_json;

/// Run lookup commands.
#[derive(Debug, Subcommand)]
pub enum RunsCommand {
    /// Rank the journal's lines against QUERY.
    Search {
        /// What to look for.
        query: String,
        /// Only lines on or after this date (YYYY-MM-DD).
        #[arg(long)]
        since: Option<NaiveDate>,
        /// Only lines on or before this date (YYYY-MM-DD).
        #[arg(long)]
        until: Option<NaiveDate>,
        /// At most this many lines (default 20).
        #[arg(long)]
        limit: Option<usize>,
    },
    /// One run: its journal lines, the snapshot it began with, its steps.
    Show {
        /// The run id.
        run: String,
    },
}

/// Runs one lookup command; returns what to print.
pub fn run(owner: &Owner<'_>, command: RunsCommand, json: bool) -> Result<String, Error> {
    match command {
        RunsCommand::Search {
            query,
            since,
            until,
            limit,
        } => {
            let hits = owner.search_runs(
                &query,
                &SearchOptions {
                    since,
                    until,
                    limit,
                },
            )?;
            if json {
                return Ok(to_json(
                    &serde_json::json!({ "hits": hits, "count": hits.len() }),
                ));
            }
            let mut out = String::new();
            for h in &hits {
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
            Ok(out)
        }
        RunsCommand::Show { run } => {
            let v = owner.get_run(&run)?;
            if json {
                return Ok(to_json(&v));
            }
            let mut out = format!("run {}\n", v.run_id);
            if let Some(r) = &v.record {
                out.push_str(&format!("started {}", r.started_at));
                if let Some(f) = &r.finished_at {
                    out.push_str(&format!(", finished {f}"));
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
                    s.task_id, s.content_type, s.bytes, s.created_at
                ));
            }
            if let Some(snap) = &v.snapshot {
                out.push_str("snapshot it began with:\n");
                out.push_str(snap);
            }
            Ok(out)
        }
    }
}
