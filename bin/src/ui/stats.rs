//! The agents page's rows: what each agent's files say (fact counts, each
//! store's usage, the last run, today's day log, the review routine,
//! `check`'s findings), asked of `api::execute` and kept in memory keyed
//! by the stamps (size, modification time, inode) of the files it came
//! from, which the library states (`Store::stamps`). A row is asked again
//! only when one of its files changed, the day changed, or a time it
//! depends on (a fact's expiry, the review's next due time) has passed.
//!
//! Sorted by a column, the page needs every agent's value of that column,
//! not every agent's row: each sort asks the one request its column comes
//! from (`Show` for the counts and usage, `List` of the archive or the day
//! log, `ListRuns`, `check`), kept the same way, and only the page's 50
//! rows are computed whole. `check`'s findings are asked for many agents at
//! once (git asked once for them all, not a process per agent).
//!
//! An agent whose files cannot be read (one over its size limit, say) has
//! a row that says why — the error's code and a short message — in place
//! of its figures, and sorts as if they were zero; the other agents' rows
//! are as usual. Such a row is not kept: it is asked again each time.

use std::collections::HashMap;
use std::sync::Mutex;

use chrono::{DateTime, NaiveDate, Utc};
use memdir::api::types::{Caller, Error, FactKind, FileStamp, Status, Store};
use memdir::api::{Request, Response, Who};

use crate::ui::Shown as Failure;

/// The most threads computing rows at once.
const MAX_WORKERS: usize = 8;

/// How many files an agent's row is keyed by.
const FILES: usize = 9;

/// How many sorts there are.
const SORTS: usize = Sort::ALL.len();

/// The most characters of an error's message a failed row shows.
const ROW_MESSAGE_CHARS: usize = 200;

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
    /// Why the agent's files could not be read (its figures are then
    /// zero, and not shown).
    pub failed: Option<Failure>,
    /// The row holds until then (the first expiry or due time ahead).
    valid_until: Option<DateTime<Utc>>,
}

impl AgentRow {
    /// The fuller of the two stores, in percent (for sorting).
    pub fn usage(&self) -> usize {
        self.memory.percent.max(self.user.percent)
    }

    /// The row of an agent whose files could not be read: the error's
    /// code and its message, cut to [`ROW_MESSAGE_CHARS`].
    fn failed(agent: &str, e: &Error) -> AgentRow {
        let mut shown = Failure::of(e);
        if let Some((cut, _)) = shown.message.char_indices().nth(ROW_MESSAGE_CHARS) {
            shown.message.truncate(cut);
            shown.message.push('…');
        }
        AgentRow {
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
            failed: Some(shown),
            valid_until: None,
        }
    }
}

/// A row with the stamps and the day it was computed under.
#[derive(Debug, Clone)]
struct Cached {
    stamps: Vec<Option<FileStamp>>,
    day: NaiveDate,
    row: AgentRow,
}

/// One agent's values of the sorted columns, asked alone, with the stamps
/// and the day they were asked under.
#[derive(Debug, Clone)]
struct Keyed {
    stamps: Vec<Option<FileStamp>>,
    day: NaiveDate,
    /// By [`Sort::index`]; each holds until its own time (an expiry).
    keys: Keys,
}

/// The rows, by agent, and the sorted columns' values.
#[derive(Debug, Default)]
pub struct Cache {
    map: Mutex<HashMap<String, Cached>>,
    keys: Mutex<HashMap<String, Keyed>>,
}

/// How many rows were computed and how many came from the cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counted {
    /// Asked of the store.
    pub computed: usize,
    /// Taken from the cache.
    pub cached: usize,
    /// A sorted column's values asked alone (the row not computed).
    pub keyed: usize,
}

/// `f` over `missing` (indices), in chunks on at most [`MAX_WORKERS`]
/// threads (each chunk its own reads).
fn parallel<T: Send>(
    missing: &[usize],
    f: impl Fn(&[usize]) -> Result<Vec<(usize, T)>, Error> + Sync,
) -> Result<Vec<(usize, T)>, Error> {
    if missing.is_empty() {
        return Ok(Vec::new());
    }
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, MAX_WORKERS)
        .min(missing.len());
    let chunk = missing.len().div_ceil(workers).max(1);
    let f = &f;
    let parts: Vec<Result<Vec<(usize, T)>, Error>> = std::thread::scope(|scope| {
        let handles: Vec<_> = missing
            .chunks(chunk)
            .map(|part| scope.spawn(move || f(part)))
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
    let mut out = Vec::with_capacity(missing.len());
    for part in parts {
        out.extend(part?);
    }
    Ok(out)
}

/// Every agent's files stated in one call (each folder opened once).
struct Stated {
    names: Vec<[String; FILES]>,
    stamps: Vec<Option<FileStamp>>,
}

impl Stated {
    fn of(store: &Store, agents: &[String]) -> Result<Stated, Error> {
        let names: Vec<[String; FILES]> = agents.iter().map(|a| files(a)).collect();
        let all: Vec<&str> = names.iter().flatten().map(String::as_str).collect();
        let stamps = store.stamps(&all)?;
        Ok(Stated { names, stamps })
    }

    fn of_agent(&self, i: usize) -> &[Option<FileStamp>] {
        &self.stamps[i * FILES..(i + 1) * FILES]
    }

    /// Which of `done` (indices) have the same stamps now as when stated:
    /// a file that changed while a value was read leaves it shown, not
    /// kept.
    fn unchanged(&self, store: &Store, done: &[usize]) -> Result<Vec<bool>, Error> {
        let rels: Vec<&str> = done
            .iter()
            .flat_map(|&i| self.names[i].iter().map(String::as_str))
            .collect();
        let now = store.stamps(&rels)?;
        Ok(done
            .iter()
            .enumerate()
            .map(|(k, &i)| now[k * FILES..(k + 1) * FILES] == *self.of_agent(i))
            .collect())
    }
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
        let stated = Stated::of(store, agents)?;
        let mut out: Vec<Option<AgentRow>> = {
            let map = self.map.lock().ok();
            agents
                .iter()
                .enumerate()
                .map(|(i, agent)| {
                    map.as_ref()?
                        .get(agent)
                        .filter(|c| {
                            c.stamps == stated.of_agent(i)
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
        let computed = parallel(&missing, |part| {
            let ids: Vec<String> = part.iter().map(|&i| agents[i].clone()).collect();
            let found = findings_each(store, &ids);
            Ok(part
                .iter()
                .zip(found)
                .map(|(&i, f)| {
                    // One agent's files that cannot be read fail its row
                    // only.
                    let row = f
                        .and_then(|f| compute(store, person, &agents[i], f, now))
                        .unwrap_or_else(|e| AgentRow::failed(&agents[i], &e));
                    (i, row)
                })
                .collect())
        })?;
        let done: Vec<usize> = computed.iter().map(|(i, _)| *i).collect();
        let keep = stated.unchanged(store, &done)?;
        if let Ok(mut m) = self.map.lock() {
            for ((i, row), keep) in computed.iter().zip(&keep) {
                if *keep && row.failed.is_none() {
                    m.insert(
                        agents[*i].clone(),
                        Cached {
                            stamps: stated.of_agent(*i).to_vec(),
                            day: today,
                            row: row.clone(),
                        },
                    );
                }
            }
        }
        for (i, row) in computed {
            out[i] = Some(row);
        }
        Ok(out.into_iter().flatten().collect())
    }

    /// The rows of the page that starts at `at` (`n` rows) of `agents`
    /// (sorted by id) in `sort`'s order. By id, those rows alone; by a
    /// column, every agent's value of that column (from its cached row, or
    /// asked alone and kept as rows are), then the page's rows whole.
    pub fn page(
        &self,
        store: &Store,
        person: &str,
        agents: &[String],
        (sort, at, n): (Sort, usize, usize),
        counted: &mut Counted,
    ) -> Result<Vec<AgentRow>, Error> {
        if sort == Sort::Id {
            let end = at.saturating_add(n).min(agents.len());
            return self.rows(store, person, &agents[at.min(end)..end], counted);
        }
        let now = Utc::now();
        let today = now.date_naive();
        let holds = |t: &Option<DateTime<Utc>>| t.is_none_or(|t| now < t);
        let si = sort.index();
        let stated = Stated::of(store, agents)?;
        let mut keys: Vec<Option<i64>> = {
            let rows = self.map.lock().ok();
            let keyed = self.keys.lock().ok();
            agents
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    let stamps = stated.of_agent(i);
                    let from_row = rows
                        .as_ref()
                        .and_then(|m| m.get(a))
                        .filter(|c| {
                            c.stamps == stamps && c.day == today && holds(&c.row.valid_until)
                        })
                        .map(|c| sort.key(&c.row));
                    from_row.or_else(|| {
                        keyed
                            .as_ref()?
                            .get(a)
                            .filter(|k| k.stamps == stamps && k.day == today)
                            .and_then(|k| k.keys[si])
                            .filter(|(_, until)| holds(until))
                            .map(|(v, _)| v)
                    })
                })
                .collect()
        };
        let missing: Vec<usize> = (0..agents.len()).filter(|i| keys[*i].is_none()).collect();
        counted.keyed += missing.len();
        let computed = parallel(&missing, |part| {
            let ids: Vec<String> = part.iter().map(|&i| agents[i].clone()).collect();
            let values = keys_of(store, person, &ids, sort, now);
            Ok(part.iter().copied().zip(values).collect())
        })?;
        let done: Vec<usize> = computed.iter().map(|(i, _)| *i).collect();
        let keep = stated.unchanged(store, &done)?;
        if let Ok(mut m) = self.keys.lock() {
            for ((i, value), keep) in computed.iter().zip(&keep) {
                if !*keep {
                    continue;
                }
                let stamps = stated.of_agent(*i);
                let e = m.entry(agents[*i].clone()).or_insert_with(|| Keyed {
                    stamps: stamps.to_vec(),
                    day: today,
                    keys: [None; SORTS],
                });
                if e.stamps != stamps || e.day != today {
                    *e = Keyed {
                        stamps: stamps.to_vec(),
                        day: today,
                        keys: [None; SORTS],
                    };
                }
                for (slot, v) in e.keys.iter_mut().zip(value) {
                    if v.is_some() {
                        *slot = *v;
                    }
                }
            }
        }
        for (i, value) in computed {
            keys[i] = Some(value[si].map_or(0, |(v, _)| v));
        }
        let mut order: Vec<usize> = (0..agents.len()).collect();
        order.sort_by(|&a, &b| {
            keys[b]
                .cmp(&keys[a])
                .then_with(|| agents[a].cmp(&agents[b]))
        });
        let shown: Vec<String> = order
            .into_iter()
            .skip(at)
            .take(n)
            .map(|i| agents[i].clone())
            .collect();
        let mut rows = self.rows(store, person, &shown, counted)?;
        // As the rows are now (a file may have changed since its value).
        sort.apply(&mut rows);
        Ok(rows)
    }
}

fn usage(u: &memdir::api::types::Usage) -> Use {
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

/// The person acting on `agent`.
fn who(person: &str, agent: &str) -> Who {
    Who {
        caller: Caller::Person(person.to_owned()),
        named: Some(agent.to_owned()),
        raw: false,
    }
}

/// What `Show` says of an agent's stores.
struct Shown {
    live: usize,
    expired: usize,
    memory: Use,
    user: Use,
    /// The live facts' expiries.
    until: Vec<DateTime<Utc>>,
}

fn shown(store: &Store, who: &Who) -> Result<Shown, Error> {
    let mut out = Shown {
        live: 0,
        expired: 0,
        memory: empty_use(),
        user: empty_use(),
        until: Vec::new(),
    };
    if let Response::Show { stores, .. } =
        crate::ui::ask(store, who, Request::Show { scope: None })?
    {
        for v in &stores {
            let u = usage(&v.usage);
            match v.scope {
                memdir::api::types::Scope::User => out.user = u,
                _ => out.memory = u,
            }
            for e in &v.entries {
                if e.expired {
                    out.expired += 1;
                } else {
                    out.live += 1;
                    if let Some(t) = e
                        .expires
                        .as_deref()
                        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                    {
                        out.until.push(t.with_timezone(&Utc));
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Archived facts.
fn archived(store: &Store, who: &Who) -> Result<usize, Error> {
    let archived = Request::List {
        kind: Some(FactKind::Fact),
        status: Some(Status::Archived),
        all: true,
        limit: Some(1),
    };
    Ok(match crate::ui::ask(store, who, archived)? {
        Response::Rows { total, .. } => total,
        _ => 0,
    })
}

/// When the last run began.
fn last_run(store: &Store, who: &Who) -> Result<Option<DateTime<Utc>>, Error> {
    Ok(
        match crate::ui::ask(store, who, Request::ListRuns { open: false })? {
            Response::Runs(runs) => runs.iter().map(|r| r.started_at).max(),
            _ => None,
        },
    )
}

/// Today's day log, in characters.
fn day_chars(store: &Store, who: &Who, today: NaiveDate) -> Result<usize, Error> {
    let days = Request::List {
        kind: Some(FactKind::Day),
        status: None,
        all: false,
        limit: Some(1),
    };
    Ok(match crate::ui::ask(store, who, days)? {
        Response::Rows { rows, .. } => rows
            .iter()
            .filter(|r| r.date == Some(today))
            .map(|r| r.text.chars().count())
            .sum(),
        _ => 0,
    })
}

/// `check`'s findings of each of `agents`: in one request (git asked once
/// for them all), or, when that fails, one agent at a time, so that one
/// agent's files that cannot be read fail that agent's only.
fn findings_each(store: &Store, agents: &[String]) -> Vec<Result<usize, Error>> {
    match findings(store, agents) {
        Ok(found) => found.into_iter().map(Ok).collect(),
        Err(_) => agents
            .iter()
            .map(|a| {
                findings(store, std::slice::from_ref(a)).map(|f| f.first().copied().unwrap_or(0))
            })
            .collect(),
    }
}

/// `check`'s findings of each of `agents`, in one request (git asked once
/// for them all).
fn findings(store: &Store, agents: &[String]) -> Result<Vec<usize>, Error> {
    let mut out = vec![0; agents.len()];
    if agents.is_empty() {
        return Ok(out);
    }
    if let Response::Check { reports, .. } = crate::ui::ask(
        store,
        &Who::anonymous(),
        Request::Check {
            owners: agents.to_vec(),
            strict: false,
        },
    )? {
        // The root's LEARNINGS.md is no agent's (its findings come with the
        // first agent's report): the decisions page shows them on their own.
        for (o, r) in out.iter_mut().zip(&reports) {
            *o = r
                .findings
                .iter()
                .filter(|f| f.file != memdir::api::types::LEARNINGS_FILE)
                .count();
        }
    }
    Ok(out)
}

/// A sorted column's value and until when it holds, by [`Sort::index`].
type Keys = [Option<(i64, Option<DateTime<Utc>>)>; SORTS];

/// The values `sort` orders `agents` by (larger first), each asked alone
/// with the one request its column comes from, and until when each holds;
/// with them, the other columns the same request gives (`Show` gives live,
/// expired and usage at once). An agent whose files cannot be read has no
/// value (its row, asked whole, says why).
fn keys_of(
    store: &Store,
    person: &str,
    agents: &[String],
    sort: Sort,
    now: DateTime<Utc>,
) -> Vec<Keys> {
    let wide = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    let one = |s: Sort, v: i64| {
        let mut k: Keys = [None; SORTS];
        k[s.index()] = Some((v, None));
        k
    };
    if sort == Sort::Findings {
        return findings_each(store, agents)
            .into_iter()
            .map(|f| f.map_or([None; SORTS], |f| one(Sort::Findings, wide(f))))
            .collect();
    }
    let key = |who: &Who| -> Result<Keys, Error> {
        Ok(match sort {
            Sort::Live | Sort::Expired | Sort::Usage => {
                let s = shown(store, who)?;
                let until = s.until.iter().copied().filter(|t| *t > now).min();
                let mut k: Keys = [None; SORTS];
                k[Sort::Live.index()] = Some((wide(s.live), until));
                k[Sort::Expired.index()] = Some((wide(s.expired), until));
                let usage = s.memory.percent.max(s.user.percent);
                k[Sort::Usage.index()] = Some((wide(usage), None));
                k
            }
            Sort::Archived => one(sort, wide(archived(store, who)?)),
            Sort::Run => one(sort, run_key(last_run(store, who)?)),
            Sort::Day => one(sort, wide(day_chars(store, who, now.date_naive())?)),
            Sort::Id | Sort::Findings => [None; SORTS],
        })
    };
    agents
        .iter()
        .map(|a| key(&who(person, a)).unwrap_or([None; SORTS]))
        .collect()
}

/// A last run as a sort value: newer larger, never the smallest.
fn run_key(t: Option<DateTime<Utc>>) -> i64 {
    t.map_or(i64::MIN, |t| t.timestamp_micros())
}

/// One agent's row, asked of the api as `person` (`check`'s findings
/// given: they are asked for many agents at once).
fn compute(
    store: &Store,
    person: &str,
    agent: &str,
    findings: usize,
    now: DateTime<Utc>,
) -> Result<AgentRow, Error> {
    let who = who(person, agent);
    let s = shown(store, &who)?;
    let mut until = s.until;
    let mut row = AgentRow {
        id: agent.to_owned(),
        live: s.live,
        expired: s.expired,
        archived: archived(store, &who)?,
        memory: s.memory,
        user: s.user,
        last_run: last_run(store, &who)?,
        day_chars: day_chars(store, &who, now.date_naive())?,
        next_due: None,
        paused: false,
        routine: false,
        findings,
        failed: None,
        valid_until: None,
    };
    if let Response::Routine(r) = crate::ui::ask(store, &who, Request::ReviewStatus)? {
        row.paused = r.paused;
        row.routine = r.at.is_some();
        row.next_due = r.next_due;
        if let Some(t) = r.next_due {
            until.push(t);
        }
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

    /// Its place in [`Sort::ALL`].
    fn index(self) -> usize {
        Sort::ALL.iter().position(|(s, _)| *s == self).unwrap_or(0)
    }

    /// The value of `row` this sort orders by, larger first (as
    /// [`Sort::apply`] orders rows).
    fn key(self, row: &AgentRow) -> i64 {
        let wide = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        match self {
            Sort::Id => 0,
            Sort::Live => wide(row.live),
            Sort::Expired => wide(row.expired),
            Sort::Archived => wide(row.archived),
            Sort::Usage => wide(row.usage()),
            Sort::Run => run_key(row.last_run),
            Sort::Day => wide(row.day_chars),
            Sort::Findings => wide(row.findings),
        }
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
            .add(memdir::api::types::Scope::Memory, "Prefers tea")
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
            .add(memdir::api::types::Scope::User, "Lives in Oslo")
            .unwrap();
        let rows = cache.rows(&store, "ann", &agents, &mut n).unwrap();
        assert_eq!((rows[0].live, n.computed), (2, 2));
        assert!(rows[0].user.used > 0 && rows[0].memory.percent <= 100);
    }

    #[test]
    fn a_sorted_page_asks_each_agent_s_value_alone_and_only_its_rows_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        let mut agents = Vec::new();
        for i in 0..7 {
            let id = format!("agt_{i}");
            let o = store.owner(&id).unwrap();
            // agt_3 holds the most facts, then agt_6, then the others.
            let n = match i {
                3 => 5,
                6 => 3,
                _ => 1,
            };
            for k in 0..n {
                o.add(
                    memdir::api::types::Scope::Memory,
                    &format!("Fact {k} of {id}"),
                )
                .unwrap();
            }
            agents.push(id);
        }
        let cache = Cache::default();
        let mut n = Counted::default();
        let page = cache
            .page(&store, "ann", &agents, (Sort::Live, 0, 2), &mut n)
            .unwrap();
        let ids: Vec<&str> = page.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["agt_3", "agt_6"]);
        assert_eq!((n.keyed, n.computed), (7, 2));
        // The second page: ties by id; values from the cache, two rows.
        let mut m = Counted::default();
        let next = cache
            .page(&store, "ann", &agents, (Sort::Live, 2, 2), &mut m)
            .unwrap();
        let ids: Vec<&str> = next.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["agt_0", "agt_1"]);
        assert_eq!((m.keyed, m.computed), (0, 2));
        // Usage comes from the same request as the counts: nothing asked.
        let mut u = Counted::default();
        cache
            .page(&store, "ann", &agents, (Sort::Usage, 0, 1), &mut u)
            .unwrap();
        assert_eq!(u.keyed, 0);
        // Every row whole, sorted: the same order as the values gave.
        let mut all = cache.rows(&store, "ann", &agents, &mut m).unwrap();
        Sort::Live.apply(&mut all);
        let whole: Vec<&str> = all.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(whole[..4], ["agt_3", "agt_6", "agt_0", "agt_1"]);
        // A file changed: that agent's value is asked again.
        store
            .owner("agt_0")
            .unwrap()
            .add(memdir::api::types::Scope::User, "Lives in Oslo")
            .unwrap();
        let mut k = Counted::default();
        let again = cache
            .page(&store, "ann", &agents, (Sort::Findings, 0, 3), &mut k)
            .unwrap();
        assert_eq!(again.len(), 3);
        assert_eq!(k.keyed, 1, "only agt_0's row is not cached whole");
        let by_id = cache
            .page(&store, "ann", &agents, (Sort::Id, 5, 50), &mut k)
            .unwrap();
        assert_eq!(by_id.len(), 2);
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
