//! What an edit needs besides the text, as a plain value: the store, who is
//! writing and in which run, the time, the settings the budget and expiry
//! come from, and the file's path for messages.

use std::path::Path;

use chrono::{DateTime, Duration, Utc};

use super::Op;
use super::budget::{Budget, resolve_budget};
use crate::error::{Error, Result};
use crate::markdown::{Document, FileSettings};
use crate::model::{Caller, Meta, RunContext, Scope, Settings, is_live, parse_expires};

/// An edit's context: one store of one owner at one moment.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EditContext<'a> {
    /// The store edited.
    pub(crate) scope: Scope,
    /// Who writes.
    pub(crate) caller: &'a Caller,
    /// The run writing, if any.
    pub(crate) run: Option<&'a RunContext>,
    /// The time of the edit (stamps, expiry, liveness).
    pub(crate) now: DateTime<Utc>,
    /// The root's settings.
    pub(crate) root: &'a Settings,
    /// The owner's settings (overlaid on the root's).
    pub(crate) settings: &'a Settings,
    /// The store's file, for messages.
    pub(crate) path: &'a Path,
    /// Whether an over-budget refusal is detailed: the store's entries
    /// listed (each scanned) and the first operation past the budget found
    /// (the operations applied again one by one). A trial apply whose
    /// refusal no one reads, curation's, leaves both out: its refusal names
    /// the last operation and no entry.
    pub(crate) detail: bool,
}

impl EditContext<'_> {
    /// The budget of the store in the state `doc` (its front matter may set
    /// one).
    pub(crate) fn budget(&self, doc: &Document) -> Result<Budget> {
        let file = match &doc.front_matter {
            Some(fm) => FileSettings::from_yaml(&fm.yaml, self.path)?,
            None => FileSettings::default(),
        };
        Ok(resolve_budget(self.scope, self.root, self.settings, &file))
    }

    /// The error for an edit that cannot be placed.
    pub(crate) fn unplaceable(&self, reason: String) -> Error {
        Error::Unplaceable {
            path: self.path.to_owned(),
            reason,
        }
    }

    /// Whether an entry with this metadata comment is live (not expired):
    /// only live entries are rendered, so only they count against the budget.
    pub(crate) fn live(&self, meta: Option<&str>) -> bool {
        is_live(meta, self.now)
    }

    /// The expiry a new fact gets: `requested` (a date, an RFC 3339 time, a
    /// number of days such as `30d`, or `never`), else the store's default.
    /// A requested expiry that is not ahead of now is refused
    /// (`InvalidExpiry`, naming today's UTC date): the fact would never show.
    pub(crate) fn expiry(&self, requested: Option<&str>) -> Result<Option<DateTime<Utc>>> {
        let at = self.requested_expiry(requested)?;
        match (requested, at) {
            (Some(value), Some(t)) if t <= self.now => Err(Error::InvalidExpiry {
                value: value.to_owned(),
                today: Some(self.now.format("%Y-%m-%d").to_string()),
            }),
            _ => Ok(at),
        }
    }

    /// The expiry `requested` reads as, unchecked against now.
    fn requested_expiry(&self, requested: Option<&str>) -> Result<Option<DateTime<Utc>>> {
        let days = requested
            .and_then(|s| s.strip_suffix('d'))
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|n| *n <= 36_500);
        match requested {
            Some("never") => Ok(None),
            Some(_) if let Some(n) = days => Ok(Some(self.now + Duration::days(i64::from(n)))),
            Some(s) => parse_expires(s).map(Some),
            None => Ok(self
                .settings
                .expiry_days
                .days(self.scope)
                .map(|d| self.now + Duration::days(i64::from(d)))),
        }
    }

    /// The metadata comment of a new fact saved now by this caller and run.
    pub(crate) fn stamp_new(&self, op: &Op) -> Result<String> {
        let (expires, supersedes) = match op {
            Op::Add {
                expires,
                supersedes,
                ..
            } => (expires.as_deref(), supersedes.clone()),
            _ => (None, None),
        };
        let mut m = Meta {
            created: Some(self.now),
            expires: self.expiry(expires)?,
            supersedes,
            ..Meta::default()
        };
        match self.caller {
            Caller::Agent(a) => m.agent = Some(a.clone()),
            Caller::Person(p) => m.person = Some(p.clone()),
        }
        if let Some(run) = self.run {
            m.run = Some(run.id.clone());
            m.task = run.task.clone();
        }
        Ok(m.render())
    }

    /// The metadata comment of an edited entry, given its current one.
    pub(crate) fn stamp_edit(&self, old: Option<&str>) -> String {
        let mut m = old.map(Meta::parse).unwrap_or_default();
        m.updated = Some(self.now);
        if let Caller::Person(p) = self.caller {
            m.person = Some(p.clone());
        }
        m.render()
    }
}
