//! Facts as rows: every memory of an owner (live facts of MEMORY.md and
//! USER.md, day rows of episodes.md, archived facts of archive.md) with its
//! state, metadata and recall figures; and finding a memory by id.

use chrono::{DateTime, NaiveDate, Timelike, Utc};
use serde::Serialize;

use crate::env::is_live;
use crate::episodes::day_id;
use crate::error::{Error, Result};
use crate::fs;
use crate::id::entry_id;
use crate::meta::{ArchiveKind, Meta};
use crate::parse::parse;
use crate::scope::Scope;
use crate::stats::Stats;
use crate::store::Owner;

/// The archive's file name.
pub const ARCHIVE_FILE: &str = "archive.md";
/// Default rows a list returns.
pub const DEFAULT_LIST_LIMIT: usize = 100;
/// Most rows a list returns.
pub const MAX_LIST_LIMIT: usize = 500;

/// One memory as `list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FactRow {
    /// `mem_` id.
    pub id: String,
    /// `fact` or `day`.
    pub kind: &'static str,
    /// The store: `memory`, `user` or `day`.
    pub scope: String,
    /// The owner (the agent whose memory it is).
    pub agent: String,
    /// The UTC date of a day row.
    pub date: Option<NaiveDate>,
    /// The fact, or the day's lines joined by LF.
    pub text: String,
    /// `active` or `archived`.
    pub status: &'static str,
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
    /// Only `fact` or `day` rows.
    pub kind: Option<String>,
    /// Only `active` or `archived` rows (default: active, or both with `all`).
    pub status: Option<String>,
    /// Include archived rows.
    pub all: bool,
    /// At most this many rows (default 100, at most 500).
    pub limit: Option<usize>,
}

impl ListFilter {
    /// Orders rows newest first (then by id) and keeps at most the limit
    /// (default 100, at most 500).
    pub fn finish(&self, rows: &mut Vec<FactRow>) {
        rows.sort_by(|a, b| {
            b.created_at
                .cmp(&a.created_at)
                .then_with(|| a.id.cmp(&b.id))
        });
        rows.truncate(self.limit.unwrap_or(DEFAULT_LIST_LIMIT).min(MAX_LIST_LIMIT));
    }
}

/// Where an id lives.
#[derive(Debug, Clone)]
pub(crate) enum Found {
    /// A live entry of a store, by index.
    Live(Scope, usize),
    /// A live day row.
    Day(NaiveDate),
    /// An archived memory.
    Archived,
    /// Nowhere in this owner's memory.
    Nowhere,
}

/// The id of an entry of archive.md (`src`), from its metadata and text.
pub(crate) fn archive_entry_id(src: &str, e: &crate::parse::Entry) -> String {
    archived_id(&Meta::of(e, src), &e.text)
}

/// An archived memory's id: over its original scope and text, or its date.
pub(crate) fn archived_id(meta: &Meta, text: &str) -> String {
    match (meta.scope.as_deref(), meta.date) {
        (Some("day"), Some(date)) => day_id(date),
        (Some(scope), _) => entry_id(scope, text),
        (None, _) => entry_id("memory", text),
    }
}

impl Owner<'_> {
    /// archive.md as text (empty if missing).
    pub(crate) fn archive_src(&self) -> Result<(Option<Vec<u8>>, String)> {
        let path = self.dir().join(ARCHIVE_FILE);
        if !fs::plain_dir_exists(self.io(), self.dir())? {
            return Ok((None, String::new()));
        }
        let raw = fs::stable_read(self.io(), &path)?;
        let src = match &raw {
            Some(b) => fs::decode(&path, b.clone())?,
            None => String::new(),
        };
        Ok((raw, src))
    }

    /// Finds where `id` lives in this owner's memory.
    pub(crate) fn locate(&self, id: &str) -> Result<Found> {
        for scope in Scope::ALL {
            let l = self.load(scope)?;
            if let Some(i) = l.doc.entries.iter().position(|e| e.id == id) {
                return Ok(Found::Live(scope, i));
            }
        }
        if let Some(row) = self.day_rows()?.into_iter().find(|r| r.id == id) {
            return Ok(Found::Day(row.date));
        }
        Ok(match self.locate_archived(id)? {
            Some(_) => Found::Archived,
            None => Found::Nowhere,
        })
    }

    /// The metadata of `id` in archive.md, if it is archived.
    pub(crate) fn locate_archived(&self, id: &str) -> Result<Option<Meta>> {
        let (_, src) = self.archive_src()?;
        let doc = parse("archive", &src);
        for e in &doc.entries {
            let m = Meta::of(e, &src);
            if archived_id(&m, &e.text) == id {
                return Ok(Some(m));
            }
        }
        Ok(None)
    }

    /// The owner that holds `id` among the other owners under the root, if any.
    pub(crate) fn holder_elsewhere(&self, id: &str) -> Result<Option<String>> {
        for other in self.store.owners()? {
            if other == self.id() {
                continue;
            }
            let o = self.store.owner(&other)?;
            if !matches!(o.locate(id), Ok(Found::Nowhere) | Err(_)) {
                return Ok(Some(other));
            }
        }
        Ok(None)
    }

    /// The error for an id found nowhere: `memory_agent_mismatch` if another
    /// owner holds it and `mismatch` is set, else `memory_not_found`.
    pub(crate) fn unknown(&self, id: &str, mismatch: bool) -> Result<Error> {
        if mismatch && let Some(owner) = self.holder_elsewhere(id)? {
            return Ok(Error::AgentMismatch {
                id: id.to_owned(),
                owner,
            });
        }
        Ok(Error::NotFound {
            file: "the workspace",
            query: id.to_owned(),
            entries: Vec::new(),
        })
    }

    /// Lists the owner's memories, newest first.
    pub fn list(&self, filter: &ListFilter) -> Result<Vec<FactRow>> {
        self.list_at(filter, Utc::now())
    }

    /// [`Owner::list`] as of `now` (for expiry).
    pub fn list_at(&self, filter: &ListFilter, now: DateTime<Utc>) -> Result<Vec<FactRow>> {
        // Whole seconds, as metadata writes times.
        let now = now.with_nanosecond(0).unwrap_or(now);
        let stats = self.load_stats();
        let want_kind = |k: &str| filter.kind.as_deref().is_none_or(|w| w == k);
        let (active, archived) = match filter.status.as_deref() {
            Some("active") => (true, false),
            Some("archived") => (false, true),
            _ => (true, filter.all),
        };
        let mut rows = Vec::new();
        if active && want_kind("fact") {
            for scope in Scope::ALL {
                let l = self.load(scope)?;
                for e in &l.doc.entries {
                    let m = Meta::of(e, &l.src);
                    let live = is_live(e.meta.clone().map(|r| &l.src[r]), now);
                    rows.push(self.row(&e.id, scope.name(), &e.text, &m, &stats, now, !live));
                }
            }
        }
        if active && want_kind("day") {
            for d in self.day_rows()? {
                let created = d.date.and_hms_opt(0, 0, 0).map_or(now, |t| t.and_utc());
                let mut r = self.row(&d.id, "day", &d.text, &Meta::default(), &stats, now, false);
                r.kind = "day";
                r.date = Some(d.date);
                r.created_at = created;
                r.updated_at = created;
                rows.push(r);
            }
        }
        if archived {
            let (_, src) = self.archive_src()?;
            let doc = parse("archive", &src);
            for e in &doc.entries {
                let m = Meta::of(e, &src);
                let is_day = m.scope.as_deref() == Some("day");
                if !want_kind(if is_day { "day" } else { "fact" }) {
                    continue;
                }
                let id = archived_id(&m, &e.text);
                let scope = m.scope.clone().unwrap_or_else(|| "memory".into());
                let expired = m.expires.is_some_and(|t| t <= now);
                let mut r = self.row(&id, &scope, &e.text, &m, &stats, now, expired);
                r.status = "archived";
                r.reason = m.reason.clone();
                r.archive_kind = m.kind;
                r.archived_at = m.archived;
                r.superseded_by = m.superseded_by.clone();
                if is_day {
                    r.kind = "day";
                    r.date = m.date;
                }
                rows.push(r);
            }
        }
        self.remember_first_seen(&rows, &stats, now);
        filter.finish(&mut rows);
        Ok(rows)
    }

    /// Records `now` as the first-seen time of facts that have neither a
    /// `created` time nor a first-seen time yet (written by hand), so their
    /// created time stays put. Best effort: the figures are derived.
    fn remember_first_seen(&self, rows: &[FactRow], stats: &Stats, now: DateTime<Utc>) {
        let fresh: Vec<&str> = rows
            .iter()
            .filter(|r| r.kind == "fact" && r.status == "active" && r.created_at == now)
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
        let Ok(_lock) = self.lock() else { return };
        let mut current = self.load_stats();
        for id in fresh {
            current
                .facts
                .entry(id.to_owned())
                .or_default()
                .first_seen
                .get_or_insert(now);
        }
        let _ = self.save_stats(&mut current);
    }

    #[allow(clippy::too_many_arguments)]
    fn row(
        &self,
        id: &str,
        scope: &str,
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
            kind: "fact",
            scope: scope.to_owned(),
            agent: self.id().to_owned(),
            date: None,
            text: text.to_owned(),
            status: "active",
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
}
