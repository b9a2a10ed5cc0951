//! The store's side of an edit: budgets, metadata stamps and liveness, for
//! one store of one owner at one moment.

use std::path::Path;
use std::sync::LazyLock;

use chrono::{DateTime, Duration, Utc};
use memchr::memmem;

use crate::budget::Budget;
use crate::caller::Caller;
use crate::edit::{EditEnv, Op};
use crate::error::{Error, Result};
use crate::meta::{Meta, parse_expires};
use crate::parse::Document;
use crate::scope::Scope;
use crate::settings::Settings;
use crate::store::Owner;

/// An edit's environment.
pub(crate) struct StoreEnv<'a, 's> {
    pub(crate) owner: &'a Owner<'s>,
    pub(crate) scope: Scope,
    pub(crate) settings: &'a Settings,
    pub(crate) path: &'a Path,
    pub(crate) now: DateTime<Utc>,
}

impl StoreEnv<'_, '_> {
    /// The expiry a new fact gets: `requested`, else the store's default.
    pub(crate) fn expiry(&self, requested: Option<&str>) -> Result<Option<DateTime<Utc>>> {
        match requested {
            Some(s) => parse_expires(s).map(Some),
            None => Ok(self
                .settings
                .expiry_days
                .days(self.scope)
                .map(|d| self.now + Duration::days(i64::from(d)))),
        }
    }

    /// Metadata for a new fact saved now by this handle's caller and run.
    pub(crate) fn new_meta(&self, expires: Option<&str>) -> Result<Meta> {
        let mut m = Meta {
            created: Some(self.now),
            expires: self.expiry(expires)?,
            ..Meta::default()
        };
        match &self.owner.caller {
            Caller::Agent(a) => m.agent = Some(a.clone()),
            Caller::Person(p) => m.person = Some(p.clone()),
        }
        if let Some((run, task)) = &self.owner.run {
            m.run = Some(run.clone());
            m.task = task.clone();
        }
        Ok(m)
    }
}

/// Whether a fact with metadata comment `meta` is live at `now`: it has no
/// `expires`, or one still ahead. (Reads only the `expires` value; this runs
/// for every entry of every snapshot.)
pub(crate) fn is_live(meta: Option<&str>, now: DateTime<Utc>) -> bool {
    static EXPIRES: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(" expires="));
    let Some(meta) = meta else { return true };
    let Some(at) = EXPIRES.find(meta.as_bytes()) else {
        return true;
    };
    // A bare value (memdir always writes one) is read directly; anything
    // else goes through the full parser.
    let value = &meta[at + " expires=".len()..];
    let token = value.split(char::is_whitespace).next().unwrap_or("");
    match crate::meta::parse_time(token) {
        Some(t) if !token.starts_with('"') => t > now,
        _ => Meta::parse(meta).expires.is_none_or(|e| e > now),
    }
}

impl EditEnv for StoreEnv<'_, '_> {
    fn budget(&self, doc: &Document) -> Result<Budget> {
        self.owner.budget(self.scope, self.settings, doc, self.path)
    }

    fn unplaceable(&self, reason: String) -> Error {
        Error::Unplaceable {
            path: self.path.to_owned(),
            reason,
        }
    }

    fn stamp_new(&self, op: &Op) -> Result<Option<String>> {
        let (expires, supersedes) = match op {
            Op::Add {
                expires,
                supersedes,
                ..
            } => (expires.as_deref(), supersedes.clone()),
            _ => (None, None),
        };
        let mut meta = self.new_meta(expires)?;
        meta.supersedes = supersedes;
        Ok(Some(meta.render()))
    }

    fn stamp_edit(&self, old: Option<&str>) -> Option<String> {
        let mut m = old.map(Meta::parse).unwrap_or_default();
        m.updated = Some(self.now);
        if let Caller::Person(p) = &self.owner.caller {
            m.person = Some(p.clone());
        }
        Some(m.render())
    }

    fn live(&self, meta: Option<&str>) -> bool {
        is_live(meta, self.now)
    }
}
