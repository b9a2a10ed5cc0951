//! The agents page's rows: what each agent's files say (fact counts, each
//! store's usage, the last run, today's day log, the review routine,
//! `check`'s findings), asked of `api::execute` and kept in memory keyed
//! by the stamps (size, modification time, inode) of the files it came
//! from, which the library states (`Store::stamps`). A row is asked again
//! only when one of its files changed, the day changed, or a time it
//! depends on (a fact's expiry, the review's next due time) has passed.

use std::collections::HashMap;
use std::sync::Mutex;

use chrono::{DateTime, NaiveDate, Utc};
use memdir::api::{self, Request, Response, Who};
use memdir::{Caller, Error, FactKind, FileStamp, Status, Store};

/// The most threads computing rows at once.
const MAX_WORKERS: usize = 8;

/// How many files an agent's row is keyed by.
const FILES: usize = 9;

/// The files (relative to the root) an agent's row is computed from (not
/// the agent's folder nor its `.memdir/` themselves: reading a row creates
/// and writes caches there).
fn files(agent: &str) -> [String; FILES] {
    [
        "memdir.yaml".to_owned(),
        format!("{agent}/MEMORY.md"),
        format!("{agent}/USER.md"),
        format!("{agent}/archive.md"),
        format!("{agent}/episodes.md"),
        format!("{agent}/memdir.yaml"),
        format!("{agent}/.memdir/runs"),
        format!("{agent}/.memdir/reviews"),
        format!("{agent}/archive"),
    ]
}

/// One store's usage against its budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Use {
    /// Characters used.
    pub used: usize,
    /// The budget.
    pub limit: usize,
    /// The percentage, for the bar (at most 100: the bar's end).
    pub percent: usize,
    /// `NN% — used/limit chars`.
    pub text: String,
}

/// One agent's row of the agents page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRow {
    /// The agent's id.
    pub id: String,
    /// Live facts of both stores.
    pub live: usize,
    /// Expired facts still in the stores.
    pub expired: usize,
    /// Archived facts.
    pub archived: usize,
    /// MEMORY.md's usage.
    pub memory: Use,
    /// USER.md's usage.
    pub user: Use,
    /// When the last run began.
    pub last_run: Option<DateTime<Utc>>,
    /// Today's day log, in characters.
    pub day_chars: usize,
    /// When the next review is due.
    pub next_due: Option<DateTime<Utc>>,
    /// Whether the routine is paused.
    pub paused: bool,
    /// Whether the agent has a review routine at all.
    pub routine: bool,
    /// `check`'s findings.
    pub findings: usize,
    /// The row holds until then (the first expiry or due time ahead).
    valid_until: Option<DateTime<Utc>>,
}

impl AgentRow {
    /// The fuller of the two stores, in percent (for sorting).
    pub fn usage(&self) -> usize {
        self.memory.percent.max(self.user.percent)
    }
}

/// A row with the stamps and the day it was computed under.
#[derive(Debug, Clone)]
struct Cached {
    stamps: Vec<Option<FileStamp>>,
    day: NaiveDate,
    row: AgentRow,
}

/// The rows, by agent.
#[derive(Debug, Default)]
pub struct Cache {
    map: Mutex<HashMap<String, Cached>>,
}

/// How many rows were computed and how many came from the cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counted {
    /// Asked of the store.
    pub computed: usize,
    /// Taken from the cache.
    pub cached: usize,
}

impl Cache {
    /// The rows of `agents` as their files are now, for `person`.
    pub fn rows(
        &self,
        store: &Store,
        person: &str,
        agents: &[String],
        counted: &mut Counted,
    ) -> Result<Vec<AgentRow>, Error> {
        let now = Utc::now();
        let today = now.date_naive();
        // Every agent's files stated in one call (each folder opened once).
        let names: Vec<[String; FILES]> = agents.iter().map(|a| files(a)).collect();
        let all: Vec<&str> = names.iter().flatten().map(String::as_str).collect();
        let stamped = store.stamps(&all)?;
        let stamps_of = |i: usize| stamped[i * FILES..(i + 1) * FILES].to_vec();
        let mut out: Vec<Option<AgentRow>> = {
            let map = self.map.lock().ok();
            agents
                .iter()
                .enumerate()
                .map(|(i, agent)| {
                    map.as_ref()?
                        .get(agent)
                        .filter(|c| {
                            c.stamps == stamps_of(i)
                                && c.day == today
                                && c.row.valid_until.is_none_or(|t| now < t)
                        })
                        .map(|c| c.row.clone())
                })
                .collect()
        };
        let missing: Vec<usize> = (0..agents.len()).filter(|i| out[*i].is_none()).collect();
        counted.cached += agents.len() - missing.len();
        counted.computed += missing.len();
        // The rows to compute, on a few threads (each row is its own reads).
        let workers = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .clamp(1, MAX_WORKERS)
            .min(missing.len().max(1));
        let chunk = missing.len().div_ceil(workers).max(1);
        let computed: Vec<Result<Vec<(usize, AgentRow)>, Error>> = std::thread::scope(|scope| {
            let handles: Vec<_> = missing
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter()
                            .map(|&i| Ok((i, compute(store, person, &agents[i], now)?)))
                            .collect::<Result<Vec<_>, Error>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(Error::Usage {
                            message: "a dashboard worker failed".to_owned(),
                        })
                    })
                })
                .collect()
        });
        for part in computed {
            for (i, row) in part? {
                let rels = &all[i * FILES..(i + 1) * FILES];
                let stamps = stamps_of(i);
                // A file that changed while the row was read: the row is
                // shown, not kept.
                if store.stamps(rels)? == stamps
                    && let Ok(mut m) = self.map.lock()
                {
                    m.insert(
                        agents[i].clone(),
                        Cached {
                            stamps,
                            day: today,
                            row: row.clone(),
                        },
                    );
                }
                out[i] = Some(row);
            }
        }
        Ok(out.into_iter().flatten().collect())
    }
}

fn usage(u: &memdir::Usage) -> Use {
    Use {
        used: u.used,
        limit: u.limit,
        percent: (u.used * 100).checked_div(u.limit).unwrap_or(0).min(100),
        text: u.text.clone(),
    }
}

fn empty_use() -> Use {
    Use {
        used: 0,
        limit: 0,
        percent: 0,
        text: "-".to_owned(),
    }
}

/// One agent's row, asked of the api as `person`.
fn compute(
    store: &Store,
    person: &str,
    agent: &str,
    now: DateTime<Utc>,
) -> Result<AgentRow, Error> {
    let who = Who {
        caller: Caller::Person(person.to_owned()),
        named: Some(agent.to_owned()),
        raw: false,
    };
    let mut row = AgentRow {
        id: agent.to_owned(),
        live: 0,
        expired: 0,
        archived: 0,
        memory: empty_use(),
        user: empty_use(),
        last_run: None,
        day_chars: 0,
        next_due: None,
        paused: false,
        routine: false,
        findings: 0,
        valid_until: None,
    };
    let mut until: Vec<DateTime<Utc>> = Vec::new();
    if let Response::Show { stores, .. } = api::execute(store, &who, Request::Show { scope: None })?
    {
        for v in &stores {
            let u = usage(&v.usage);
            match v.scope {
                memdir::Scope::User => row.user = u,
                _ => row.memory = u,
            }
            for e in &v.entries {
                if e.expired {
                    row.expired += 1;
                } else {
                    row.live += 1;
                    if let Some(t) = e
                        .expires
                        .as_deref()
                        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                    {
                        until.push(t.with_timezone(&Utc));
                    }
                }
            }
        }
    }
    let archived = Request::List {
        kind: Some(FactKind::Fact),
        status: Some(Status::Archived),
        all: true,
        limit: Some(1),
    };
    if let Response::Rows { total, .. } = api::execute(store, &who, archived)? {
        row.archived = total;
    }
    if let Response::Runs(runs) = api::execute(store, &who, Request::ListRuns { open: false })? {
        row.last_run = runs.iter().map(|r| r.started_at).max();
    }
    let days = Request::List {
        kind: Some(FactKind::Day),
        status: None,
        all: false,
        limit: Some(1),
    };
    if let Response::Rows { rows, .. } = api::execute(store, &who, days)? {
        row.day_chars = rows
            .iter()
            .filter(|r| r.date == Some(now.date_naive()))
            .map(|r| r.text.chars().count())
            .sum();
    }
    if let Response::Routine(r) = api::execute(store, &who, Request::ReviewStatus)? {
        row.paused = r.paused;
        row.routine = r.at.is_some();
        row.next_due = r.next_due;
        if let Some(t) = r.next_due {
            until.push(t);
        }
    }
    if let Response::Check { reports, .. } = api::check(store, &[agent.to_owned()], false)? {
        // The root's LEARNINGS.md is no agent's: the decisions page shows
        // its findings on their own.
        row.findings = reports
            .iter()
            .flat_map(|r| &r.findings)
            .filter(|f| f.file != memdir::LEARNINGS_FILE)
            .count();
    }
    row.valid_until = until.into_iter().filter(|t| *t > now).min();
    Ok(row)
}

/// How the agents page sorts: by id (the default), or by a column,
/// largest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    /// By the agent's id.
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

impl Sort {
    /// Every sort and its query word.
    pub const ALL: [(Sort, &'static str); 8] = [
        (Sort::Id, "id"),
        (Sort::Live, "live"),
        (Sort::Expired, "expired"),
        (Sort::Archived, "archived"),
        (Sort::Usage, "usage"),
        (Sort::Run, "run"),
        (Sort::Day, "day"),
        (Sort::Findings, "findings"),
    ];

    /// The sort a query word names (an unknown word: by id).
    pub fn parse(word: Option<&str>) -> Sort {
        Sort::ALL
            .iter()
            .find(|(_, w)| Some(*w) == word)
            .map_or(Sort::Id, |(s, _)| *s)
    }

    /// Its query word.
    pub fn word(self) -> &'static str {
        Sort::ALL
            .iter()
            .find(|(s, _)| *s == self)
            .map_or("id", |(_, w)| w)
    }

    /// Sorts `rows` (ties by id).
    pub fn apply(self, rows: &mut [AgentRow]) {
        use std::cmp::Reverse;
        match self {
            Sort::Id => rows.sort_by(|a, b| a.id.cmp(&b.id)),
            Sort::Live => rows.sort_by_key(|r| (Reverse(r.live), r.id.clone())),
            Sort::Expired => rows.sort_by_key(|r| (Reverse(r.expired), r.id.clone())),
            Sort::Archived => rows.sort_by_key(|r| (Reverse(r.archived), r.id.clone())),
            Sort::Usage => rows.sort_by_key(|r| (Reverse(r.usage()), r.id.clone())),
            Sort::Run => rows.sort_by_key(|r| (Reverse(r.last_run), r.id.clone())),
            Sort::Day => rows.sort_by_key(|r| (Reverse(r.day_chars), r.id.clone())),
            Sort::Findings => rows.sort_by_key(|r| (Reverse(r.findings), r.id.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_computed_once_until_a_file_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        store
            .owner("agt_a")
            .unwrap()
            .add(memdir::Scope::Memory, "Prefers tea")
            .unwrap();
        let cache = Cache::default();
        let agents = vec!["agt_a".to_owned()];
        let mut n = Counted::default();
        let rows = cache.rows(&store, "ann", &agents, &mut n).unwrap();
        assert_eq!((rows[0].live, n.computed, n.cached), (1, 1, 0));
        let again = cache.rows(&store, "ann", &agents, &mut n).unwrap();
        assert_eq!((again, n.computed, n.cached), (rows, 1, 1));
        // A folder written by hand (no `.memdir/` yet): reading its row
        // creates one, and the row is still kept.
        std::fs::create_dir(tmp.path().join("agt_b")).unwrap();
        std::fs::write(tmp.path().join("agt_b/MEMORY.md"), "- one\n").unwrap();
        let b = vec!["agt_b".to_owned()];
        let mut m = Counted::default();
        cache.rows(&store, "ann", &b, &mut m).unwrap();
        cache.rows(&store, "ann", &b, &mut m).unwrap();
        assert_eq!((m.computed, m.cached), (1, 1));
        store
            .owner("agt_a")
            .unwrap()
            .add(memdir::Scope::User, "Lives in Oslo")
            .unwrap();
        let rows = cache.rows(&store, "ann", &agents, &mut n).unwrap();
        assert_eq!((rows[0].live, n.computed), (2, 2));
        assert!(rows[0].user.used > 0 && rows[0].memory.percent <= 100);
    }

    #[test]
    fn sorts_are_named_and_applied() {
        assert_eq!(Sort::parse(Some("usage")), Sort::Usage);
        assert_eq!(Sort::parse(Some("<x>")), Sort::Id);
        for (s, w) in Sort::ALL {
            assert_eq!(s.word(), w);
        }
    }
}
