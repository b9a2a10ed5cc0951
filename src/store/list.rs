//! Facts as rows: every memory of an owner (live facts of MEMORY.md and
//! USER.md, day rows of episodes.md, archived facts of archive.md) with its
//! state, metadata and recall figures, newest first.

use chrono::{DateTime, NaiveDate, Timelike, Utc};
use serde::Serialize;

use super::files::stats::{self, Stats};
use super::files::{archive, episodes, stores};
use super::limits::STORE_BYTES;
use super::owner::{At, Owner};
use crate::error::Result;
use crate::model::{ArchiveKind, FactKind, Meta, Origin, Scope, Status, is_live};

/// Default rows a list returns.
pub const DEFAULT_LIST_LIMIT: usize = 100;
/// Most rows a list returns.
pub const MAX_LIST_LIMIT: usize = 500;

/// One memory as `list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct FactRow {
    /// `mem_` id.
    pub id: String,
    /// `fact` or `day`.
    pub kind: FactKind,
    /// The store: `memory`, `user` or `day`.
    pub scope: Origin,
    /// The owner (the agent whose memory it is).
    pub agent: String,
    /// The UTC date of a day row.
    pub date: Option<NaiveDate>,
    /// The fact, or the day's lines joined by LF.
    pub text: String,
    /// `active` or `archived`.
    pub status: Status,
    /// Expiry time, when it has one.
    pub expires_at: Option<DateTime<Utc>>,
    /// True once `expires_at` has passed.
    pub expired: bool,
    /// Why it was archived.
    pub reason: Option<String>,
    /// `plain`, `superseded` or `vetoed`, once archived.
    pub archive_kind: Option<ArchiveKind>,
    /// Archive time.
    pub archived_at: Option<DateTime<Utc>>,
    /// The memory this one replaced.
    pub supersedes: Option<String>,
    /// The memory that replaced this one.
    pub superseded_by: Option<String>,
    /// The run that saved it.
    #[serde(rename = "run_id")]
    pub run: Option<String>,
    /// The task that run worked on.
    pub task: Option<String>,
    /// Set when an agent saved it.
    pub saved_by_agent: Option<String>,
    /// Set when a person saved or edited it.
    pub person: Option<String>,
    /// How many times a recall picked it.
    pub recall_count: u64,
    /// The last time a recall picked it.
    pub last_recalled_at: Option<DateTime<Utc>>,
    /// Creation time (for a fact written by hand: when the store first saw it).
    pub created_at: DateTime<Utc>,
    /// Last change time.
    pub updated_at: DateTime<Utc>,
}

/// Which rows `list` returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    /// Only facts or only day rows.
    pub kind: Option<FactKind>,
    /// Only active or only archived rows (default: active, or both with `all`).
    pub status: Option<Status>,
    /// Include archived rows.
    pub all: bool,
    /// At most this many rows (default 100, at most 500).
    pub limit: Option<usize>,
}

impl ListFilter {
    /// Orders rows newest first (then by id) and keeps at most the limit
    /// (default 100, at most 500).
    ///
    /// Rows saved in the same second keep the order they were gathered in
    /// (file order), not their ids' order. Gives how many rows there were
    /// before the cut.
    pub fn finish(&self, rows: &mut Vec<FactRow>) -> usize {
        // A stable sort: equal times keep file order.
        rows.sort_by_key(|r| std::cmp::Reverse(r.created_at));
        let total = rows.len();
        rows.truncate(self.limit());
        total
    }

    /// At most this many rows: `limit` (default 100), at most 500.
    pub fn limit(&self) -> usize {
        self.limit.unwrap_or(DEFAULT_LIST_LIMIT).min(MAX_LIST_LIMIT)
    }
}

/// Lists the owner's memories as of `now` (for expiry), newest first, and
/// how many there were before the filter's limit cut them.
pub(crate) fn list(
    owner: &Owner,
    filter: &ListFilter,
    now: DateTime<Utc>,
) -> Result<(Vec<FactRow>, usize)> {
    // Whole seconds, as metadata writes times.
    let now = now.with_nanosecond(0).unwrap_or(now);
    let view = owner.view()?;
    let at = view.at();
    let stats = stats::load(at);
    let want_kind = |k: FactKind| filter.kind.is_none_or(|w| w == k);
    let (active, archived) = match filter.status {
        Some(Status::Active) => (true, false),
        Some(Status::Archived) => (false, true),
        None => (true, filter.all),
    };
    let mut rows = Vec::new();
    if active && want_kind(FactKind::Fact) {
        for scope in Scope::ALL {
            let l = stores::load(at, scope, true, STORE_BYTES)?;
            for e in &l.doc.entries {
                let m = e.metadata(&l.src);
                let live = is_live(e.meta_comment(&l.src), now);
                rows.push(row(
                    at,
                    &e.id,
                    scope.into(),
                    &e.text,
                    &m,
                    &stats,
                    now,
                    !live,
                ));
            }
        }
    }
    if active && want_kind(FactKind::Day) {
        for d in episodes::day_rows(at)? {
            let created = d.date.and_hms_opt(0, 0, 0).map_or(now, |t| t.and_utc());
            let mut r = row(
                at,
                &d.id,
                Origin::Day,
                &d.text,
                &Meta::default(),
                &stats,
                now,
                false,
            );
            r.kind = FactKind::Day;
            r.date = Some(d.date);
            r.created_at = created;
            r.updated_at = created;
            rows.push(r);
        }
    }
    if archived {
        // archive.md and the parts of `archive/` it rotated into.
        for a in archive::read_all(at)?.records() {
            let m = &a.meta;
            let is_day = m.scope == Some(Origin::Day);
            if !want_kind(if is_day {
                FactKind::Day
            } else {
                FactKind::Fact
            }) {
                continue;
            }
            let scope = m.scope.unwrap_or(Origin::Memory);
            let expired = m.expires.is_some_and(|t| t <= now);
            let mut r = row(at, &a.id, scope, &a.text, m, &stats, now, expired);
            r.status = Status::Archived;
            r.reason = m.reason.clone();
            r.archive_kind = m.kind;
            r.archived_at = m.archived;
            r.superseded_by = m.superseded_by.clone();
            if is_day {
                r.kind = FactKind::Day;
                r.date = m.date;
            }
            rows.push(r);
        }
    }
    remember_first_seen(owner, &rows, &stats, now);
    let total = filter.finish(&mut rows);
    Ok((rows, total))
}

/// The fact `id` of the owner's memory: live (an entry of a store) or
/// archived (archive.md and its parts), with its store, its state and its
/// text; `None` when the owner holds no fact of that id. Reads only
/// (nothing derived is noted): what a person's confirmation shows.
pub(crate) fn find(owner: &Owner, id: &str) -> Result<Option<(Origin, Status, String)>> {
    let view = owner.view()?;
    let at = view.at();
    for scope in Scope::ALL {
        let l = stores::load(at, scope, true, STORE_BYTES)?;
        if let Some(e) = l.doc.entries.iter().find(|e| e.id == id) {
            return Ok(Some((scope.into(), Status::Active, e.text.clone())));
        }
    }
    Ok(archive::read_all(at)?
        .records()
        .iter()
        .find(|a| a.id == id)
        .map(|a| {
            let scope = a.meta.scope.unwrap_or(Origin::Memory);
            (scope, Status::Archived, a.text.clone())
        }))
}

/// Records `now` as the first-seen time of facts that have neither a
/// `created` time nor a first-seen time yet (written by hand), so their
/// created time stays put. Best effort: the figures are derived.
fn remember_first_seen(owner: &Owner, rows: &[FactRow], stats: &Stats, now: DateTime<Utc>) {
    let fresh: Vec<&str> = rows
        .iter()
        .filter(|r| r.kind == FactKind::Fact && r.status == Status::Active && r.created_at == now)
        .filter(|r| {
            stats
                .facts
                .get(&r.id)
                .is_none_or(|s| s.first_seen.is_none())
        })
        .map(|r| r.id.as_str())
        .collect();
    if fresh.is_empty() {
        return;
    }
    let Ok(settings) = owner.view().map(|v| v.at().settings.clone()) else {
        return;
    };
    let Ok(held) = stats::lock(owner, &settings) else {
        return;
    };
    let mut current = held.load();
    for id in fresh {
        current
            .facts
            .entry(id.to_owned())
            .or_default()
            .first_seen
            .get_or_insert(now);
    }
    let _ = held.save(&mut current);
}

#[allow(clippy::too_many_arguments)]
fn row(
    at: At<'_>,
    id: &str,
    scope: Origin,
    text: &str,
    m: &Meta,
    stats: &Stats,
    now: DateTime<Utc>,
    expired: bool,
) -> FactRow {
    let st = stats.facts.get(id).cloned().unwrap_or_default();
    let created = m.created.or(st.first_seen).unwrap_or(now);
    FactRow {
        id: id.to_owned(),
        kind: FactKind::Fact,
        scope,
        agent: at.owner.id().to_owned(),
        date: None,
        text: text.to_owned(),
        status: Status::Active,
        expires_at: m.expires,
        expired,
        reason: None,
        archive_kind: None,
        archived_at: None,
        supersedes: m.supersedes.clone(),
        superseded_by: None,
        run: m.run.clone(),
        task: m.task.clone(),
        saved_by_agent: m.agent.clone(),
        person: m.person.clone(),
        recall_count: st.recall_count,
        last_recalled_at: st.last_recalled_at,
        created_at: created,
        updated_at: m.updated.unwrap_or(created),
    }
}
