//! [`Request::AgentSummaries`](crate::api::Request::AgentSummaries): every
//! agent of the root summed up for a person (the dashboard's agents page),
//! a page at a time, sorted by id or by a column. A row is each agent's
//! fact counts, its stores' usage, its last run, today's day log, its
//! review routine and `check`'s findings; an agent whose files cannot be
//! read has a row that says why (the error's code, status and message) in
//! place of its figures, and sorts as if they were zero.
//!
//! A row is made of parts, each what one read of the agent's files gives
//! (`parts`): the stores (counts, usage and `check`'s findings of the
//! files), the archive, the runs, today's day log, the routine. Sorted by a
//! column, the page needs every agent's part that column comes from, and
//! only its own rows whole. Each part is kept in the process-wide cache
//! (`cache`), keyed by the root and the agent and checked, each time it
//! is used, against the stamps of every file its read touched; what git
//! tracks (`check`'s `tracked_derived`) is asked afresh each time, once for
//! all the agents asked about.

mod cache;
mod parts;
mod text;

use std::cmp::Reverse;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::model::{Caller, validate_id};
use crate::store::Store;

use super::Who;
use super::errors::{ErrorBody, Surface};
use parts::{Kind, Part};

pub(crate) use text::summaries_text;

/// Rows a page of [`AgentSummaries`] holds unless the request says.
pub const DEFAULT_SUMMARY_ROWS: usize = 50;

/// The most rows a page of [`AgentSummaries`] holds.
pub const MAX_SUMMARY_ROWS: usize = 500;

/// The most characters of an error's message a failed row shows.
pub const ROW_MESSAGE_CHARS: usize = 200;

/// How the summaries are ordered: by id (the default), or by a column,
/// largest first (ties by id).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SummarySort {
    /// By the agent's id.
    #[default]
    Id,
    /// Live facts, most first.
    Live,
    /// Expired facts, most first.
    Expired,
    /// Archived facts, most first.
    Archived,
    /// The fuller store, fullest first.
    Usage,
    /// The last run, newest first.
    Run,
    /// Today's day log, longest first.
    Day,
    /// `check`'s findings, most first.
    Findings,
}

impl SummarySort {
    /// Every sort, in the order of the page's columns.
    pub const ALL: [SummarySort; 8] = [
        SummarySort::Id,
        SummarySort::Live,
        SummarySort::Expired,
        SummarySort::Archived,
        SummarySort::Usage,
        SummarySort::Run,
        SummarySort::Day,
        SummarySort::Findings,
    ];

    /// Its word (as JSON and a query string name it).
    pub fn word(self) -> &'static str {
        match self {
            SummarySort::Id => "id",
            SummarySort::Live => "live",
            SummarySort::Expired => "expired",
            SummarySort::Archived => "archived",
            SummarySort::Usage => "usage",
            SummarySort::Run => "run",
            SummarySort::Day => "day",
            SummarySort::Findings => "findings",
        }
    }

    /// The sort `word` names, if any.
    pub fn parse(word: &str) -> Option<SummarySort> {
        SummarySort::ALL.into_iter().find(|s| s.word() == word)
    }

    /// The part of a row its column comes from (`None`: by id).
    fn kind(self) -> Option<Kind> {
        match self {
            SummarySort::Id => None,
            SummarySort::Live
            | SummarySort::Expired
            | SummarySort::Usage
            | SummarySort::Findings => Some(Kind::Stores),
            SummarySort::Archived => Some(Kind::Archived),
            SummarySort::Run => Some(Kind::Runs),
            SummarySort::Day => Some(Kind::Day),
        }
    }

    /// The value of `row` this sort orders by, larger first.
    fn key(self, row: &AgentSummary) -> i64 {
        let wide = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        match self {
            SummarySort::Id => 0,
            SummarySort::Live => wide(row.live),
            SummarySort::Expired => wide(row.expired),
            SummarySort::Archived => wide(row.archived),
            SummarySort::Usage => wide(row.usage()),
            SummarySort::Run => run_key(row.last_run),
            SummarySort::Day => wide(row.day_chars),
            SummarySort::Findings => wide(row.findings),
        }
    }
}

/// A last run as a sort value: newer larger, never the smallest.
fn run_key(t: Option<DateTime<Utc>>) -> i64 {
    t.map_or(i64::MIN, |t| t.timestamp_micros())
}

/// One store's usage against its budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoreUse {
    /// Characters used.
    pub used: usize,
    /// The budget.
    pub limit: usize,
    /// The percentage, for a bar (at most 100: the bar's end).
    pub percent: usize,
    /// `NN% — used/limit chars` (`-` when unknown).
    pub text: String,
}

impl StoreUse {
    /// Usage not known (a row that failed).
    fn none() -> StoreUse {
        StoreUse {
            used: 0,
            limit: 0,
            percent: 0,
            text: "-".to_owned(),
        }
    }

    /// The usage a store view states.
    fn of(u: &crate::edit::Usage) -> StoreUse {
        StoreUse {
            used: u.used,
            limit: u.limit,
            percent: (u.used * 100).checked_div(u.limit).unwrap_or(0).min(100),
            text: u.text.clone(),
        }
    }
}

/// Why an agent's files could not be read, as its row shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SummaryFailure {
    /// The error's stable code.
    pub code: ErrorCode,
    /// Its HTTP status.
    pub status: u16,
    /// Its message (cut to 200 characters).
    pub message: String,
    /// Its hint, when it has one.
    pub hint: Option<String>,
}

/// One agent's row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentSummary {
    /// The agent's id.
    pub id: String,
    /// Live facts of both stores.
    pub live: usize,
    /// Expired facts still in the stores.
    pub expired: usize,
    /// Archived facts.
    pub archived: usize,
    /// MEMORY.md's usage.
    pub memory: StoreUse,
    /// USER.md's usage.
    pub user: StoreUse,
    /// When the last run began.
    pub last_run: Option<DateTime<Utc>>,
    /// Today's day log (UTC), in characters.
    pub day_chars: usize,
    /// When the next review is due.
    pub next_due: Option<DateTime<Utc>>,
    /// Whether the routine is paused.
    pub paused: bool,
    /// Whether the agent has a review routine at all.
    pub routine: bool,
    /// `check`'s findings.
    pub findings: usize,
    /// Why the agent's files could not be read (its figures are then
    /// zero).
    pub failed: Option<SummaryFailure>,
}

impl AgentSummary {
    /// The fuller of the two stores, in percent.
    pub fn usage(&self) -> usize {
        self.memory.percent.max(self.user.percent)
    }

    /// The row of an agent whose files could not be read.
    fn failed(id: &str, e: &Error) -> AgentSummary {
        let body = ErrorBody::of(e, Surface::Http);
        let mut message = body.message;
        if let Some((cut, _)) = message.char_indices().nth(ROW_MESSAGE_CHARS) {
            message.truncate(cut);
            message.push('…');
        }
        AgentSummary {
            failed: Some(SummaryFailure {
                code: body.code,
                status: body.status,
                message,
                hint: body.hint.map(|h| h.text),
            }),
            ..AgentSummary::empty(id)
        }
    }

    /// A row of zeros.
    fn empty(id: &str) -> AgentSummary {
        AgentSummary {
            id: id.to_owned(),
            live: 0,
            expired: 0,
            archived: 0,
            memory: StoreUse::none(),
            user: StoreUse::none(),
            last_run: None,
            day_chars: 0,
            next_due: None,
            paused: false,
            routine: false,
            findings: 0,
            failed: None,
        }
    }

    /// The row its parts make (in [`Kind::ALL`]'s order), `tracked` the
    /// findings git adds; the first part that failed fails the row.
    fn of(id: &str, parts: Vec<Result<Part>>, tracked: usize) -> AgentSummary {
        let mut row = AgentSummary::empty(id);
        for part in parts {
            match part {
                Err(e) => return AgentSummary::failed(id, &e),
                Ok(Part::Stores {
                    live,
                    expired,
                    memory,
                    user,
                    findings,
                }) => {
                    row.live = live;
                    row.expired = expired;
                    row.memory = memory;
                    row.user = user;
                    row.findings = findings + tracked;
                }
                Ok(Part::Archived(n)) => row.archived = n,
                Ok(Part::Runs(last)) => row.last_run = last,
                Ok(Part::Day(chars)) => row.day_chars = chars,
                Ok(Part::Routine {
                    routine,
                    paused,
                    next_due,
                }) => {
                    row.routine = routine;
                    row.paused = paused;
                    row.next_due = next_due;
                }
            }
        }
        row
    }
}

/// A page of the summaries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentSummaries {
    /// How the rows are sorted.
    pub sort: SummarySort,
    /// Agents in the root.
    pub total: usize,
    /// This page, from 1 (a page asked past the end is the last).
    pub page: usize,
    /// Pages in all (at least 1).
    pub pages: usize,
    /// Rows a page.
    pub limit: usize,
    /// This page's rows.
    pub rows: Vec<AgentSummary>,
}

/// How many parts were computed, and how many came from the cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counted {
    /// Read from the agents' files.
    pub(crate) computed: usize,
    /// Taken from the cache, its files unchanged.
    pub(crate) cached: usize,
}

/// The answer to [`Request::AgentSummaries`](crate::api::Request::AgentSummaries)
/// for `who`: a person only (`person_only` for an agent), one the machine
/// allows.
pub(crate) fn answer(
    store: &Store,
    who: &Who,
    sort: SummarySort,
    page: Option<usize>,
    limit: Option<usize>,
) -> Result<AgentSummaries> {
    let mut counted = Counted::default();
    summaries(store, who, (sort, page, limit), &mut counted)
}

/// [`answer`], counting what it computed and what it took from the cache.
fn summaries(
    store: &Store,
    who: &Who,
    (sort, page, limit): (SummarySort, Option<usize>, Option<usize>),
    counted: &mut Counted,
) -> Result<AgentSummaries> {
    let person = match &who.caller {
        Caller::Person(p) => p,
        Caller::Agent(a) => return Err(Error::SummariesPersonOnly { agent: a.clone() }),
    };
    validate_id("person", person)?;
    store.allow_person(person)?;
    let owners = store.owners()?;
    let limit = limit
        .unwrap_or(DEFAULT_SUMMARY_ROWS)
        .clamp(1, MAX_SUMMARY_ROWS);
    let total = owners.len();
    let pages = total.div_ceil(limit).max(1);
    let page = page.unwrap_or(1).clamp(1, pages);
    let at = (page - 1) * limit;
    let caller = &who.caller;
    let now = Utc::now();
    // Sorted by the findings, what git tracks of every agent (once).
    let every = (sort == SummarySort::Findings).then(|| tracked(store, &owners));
    let shown: Vec<String> = match sort.kind() {
        None => owners.iter().skip(at).take(limit).cloned().collect(),
        Some(kind) => {
            let got = cache::parts(store, caller, &owners, &[kind], now, counted)?;
            let none = vec![0; owners.len()];
            let git = every.as_ref().unwrap_or(&none);
            let mut keys: Vec<(i64, &String)> = owners
                .iter()
                .zip(got)
                .zip(git)
                .map(|((id, mut p), t)| {
                    let part = p.pop().and_then(Result::ok);
                    let row = AgentSummary::of(id, part.into_iter().map(Ok).collect(), *t);
                    (sort.key(&row), id)
                })
                .collect();
            keys.sort_by_key(|(k, id)| (Reverse(*k), *id));
            keys.into_iter()
                .skip(at)
                .take(limit)
                .map(|(_, id)| id.clone())
                .collect()
        }
    };
    let got = cache::parts(store, caller, &shown, &Kind::ALL, now, counted)?;
    let git: Vec<usize> = match &every {
        Some(all) => shown
            .iter()
            .map(|id| {
                owners
                    .binary_search(id)
                    .ok()
                    .and_then(|i| all.get(i).copied())
                    .unwrap_or(0)
            })
            .collect(),
        None => tracked(store, &shown),
    };
    let mut rows: Vec<AgentSummary> = shown
        .iter()
        .zip(got)
        .zip(git)
        .map(|((id, parts), t)| AgentSummary::of(id, parts, t))
        .collect();
    // As the rows are now (a file may have changed since its value).
    rows.sort_by_key(|r| (Reverse(sort.key(r)), r.id.clone()));
    Ok(AgentSummaries {
        sort,
        total,
        page,
        pages,
        limit,
        rows,
    })
}

/// `check`'s `tracked_derived` findings of each of `ids`, git asked once
/// (none when git cannot say).
fn tracked(store: &Store, ids: &[String]) -> Vec<usize> {
    store
        .tracked_derived(ids)
        .unwrap_or_else(|_| vec![0; ids.len()])
}

#[cfg(test)]
mod tests;
