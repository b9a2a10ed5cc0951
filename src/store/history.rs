//! `memdir log`: entry-level history from git. For each commit that touched
//! an owner's memory files, which entries it added and removed in MEMORY.md
//! and USER.md, and which it archived and brought back in archive.md, with
//! the commit's author, date and message.

use std::collections::BTreeSet;

use chrono::NaiveDate;
use serde::Serialize;

use super::files::archive;
use super::owner::Owner;
use crate::error::{Error, Result};
use crate::git::{Repo, prefix};
use crate::markdown::parse;
use crate::model::Scope;

/// How many commits `log` reads at most by default.
pub const DEFAULT_LOG_LIMIT: usize = 50;

/// What one commit did to the owner's entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LogCommit {
    /// The commit's id.
    pub commit: String,
    /// Its author's name.
    pub author: String,
    /// Its author's e-mail.
    pub email: String,
    /// When it was authored (RFC 3339, as git gives it).
    pub date: String,
    /// Its message's first line.
    pub message: String,
    /// The entry changes, in file order.
    pub changes: Vec<EntryChange>,
}

/// What a commit did to an entry (serialised as `added`, `removed`,
/// `archived` or `unarchived`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LogChange {
    /// Into its store.
    Added,
    /// Out of its store.
    Removed,
    /// Into archive.md.
    Archived,
    /// Out of archive.md.
    Unarchived,
}

impl LogChange {
    /// Its wire word.
    pub const fn as_str(self) -> &'static str {
        match self {
            LogChange::Added => "added",
            LogChange::Removed => "removed",
            LogChange::Archived => "archived",
            LogChange::Unarchived => "unarchived",
        }
    }

    /// Whether the entry came into the snapshot's files (added to its
    /// store, or out of the archive).
    pub const fn gained(self) -> bool {
        matches!(self, LogChange::Added | LogChange::Unarchived)
    }
}

impl std::fmt::Display for LogChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One entry added, removed, archived or brought back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct EntryChange {
    /// `added`, `removed`, `archived` or `unarchived`.
    pub change: LogChange,
    /// The file (`MEMORY.md`, `USER.md`, `archive.md`).
    pub file: &'static str,
    /// The entry's id.
    pub id: String,
    /// Its text.
    pub text: String,
}

/// What `log` reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogOptions {
    /// Only commits that changed this entry.
    pub id: Option<String>,
    /// Only commits on or after this date.
    pub since: Option<NaiveDate>,
    /// At most this many commits read (default [`DEFAULT_LOG_LIMIT`]).
    pub limit: Option<usize>,
}

/// The text of `path` at `rev` (empty when it did not exist there).
fn at_rev(repo: &Repo, rev: &str, path: &str) -> Result<String> {
    let out = repo.output(&["show", &format!("{rev}:{path}")], &[])?;
    Ok(if out.status.success() {
        String::from_utf8_lossy(&out.stdout).into_owned()
    } else {
        String::new()
    })
}

/// `(id, text)` of each entry of a store's text, in order.
fn store_entries(scope: Scope, src: &str) -> Vec<(String, String)> {
    parse(scope, src)
        .entries
        .iter()
        .map(|e| (e.id.clone(), e.text.clone()))
        .collect()
}

/// `(id, text)` of each archived memory of archive.md's text.
fn archived(src: &str) -> Vec<(String, String)> {
    archive::records(src)
        .into_iter()
        .map(|r| (r.id, r.text))
        .collect()
}

/// The changes between two lists of `(id, text)`: what `after` has that
/// `before` lacks (`gained`), then the reverse (`lost`).
fn diff(
    file: &'static str,
    before: &[(String, String)],
    after: &[(String, String)],
    gained: LogChange,
    lost: LogChange,
) -> Vec<EntryChange> {
    let was: BTreeSet<&str> = before.iter().map(|(i, _)| i.as_str()).collect();
    let now: BTreeSet<&str> = after.iter().map(|(i, _)| i.as_str()).collect();
    let change = |change, (id, text): &(String, String)| EntryChange {
        change,
        file,
        id: id.clone(),
        text: text.clone(),
    };
    after
        .iter()
        .filter(|(i, _)| !was.contains(i.as_str()))
        .map(|e| change(gained, e))
        .chain(
            before
                .iter()
                .filter(|(i, _)| !now.contains(i.as_str()))
                .map(|e| change(lost, e)),
        )
        .collect()
}

/// The owner's entry history, newest commit first.
pub(crate) fn log(owner: &Owner, opts: &LogOptions) -> Result<Vec<LogCommit>> {
    let dir = owner.dir();
    let repo = Repo::find(&dir).ok_or_else(|| Error::NotInGit { path: dir.clone() })?;
    let pre = prefix(&dir)?;
    let files = [
        (Scope::Memory.file_name(), Some(Scope::Memory)),
        (Scope::User.file_name(), Some(Scope::User)),
        (archive::ARCHIVE_FILE, None),
    ];
    let paths: Vec<String> = files.iter().map(|(f, _)| format!("{pre}{f}")).collect();
    let limit = opts.limit.unwrap_or(DEFAULT_LOG_LIMIT).to_string();
    let mut args: Vec<String> = vec![
        "log".into(),
        "--format=%H%x1f%an%x1f%ae%x1f%aI%x1f%s%x1e".into(),
        format!("--max-count={limit}"),
    ];
    if let Some(since) = opts.since {
        args.push(format!("--since={since}T00:00:00Z"));
    }
    args.push("--".into());
    args.extend(paths.iter().cloned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = repo.output(&args, &[])?;
    if !out.status.success() {
        // A repository without commits has no history yet.
        return Ok(Vec::new());
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut commits = Vec::new();
    for rec in text.split('\u{1e}') {
        let f: Vec<&str> = rec.trim_start_matches('\n').split('\u{1f}').collect();
        let [hash, author, email, date, message] = f.as_slice() else {
            continue;
        };
        let parent = format!("{hash}^");
        let mut changes = Vec::new();
        for ((file, scope), path) in files.iter().zip(&paths) {
            let before = at_rev(&repo, &parent, path)?;
            let after = at_rev(&repo, hash, path)?;
            if before == after {
                continue;
            }
            changes.extend(match scope {
                Some(s) => diff(
                    file,
                    &store_entries(*s, &before),
                    &store_entries(*s, &after),
                    LogChange::Added,
                    LogChange::Removed,
                ),
                None => diff(
                    file,
                    &archived(&before),
                    &archived(&after),
                    LogChange::Archived,
                    LogChange::Unarchived,
                ),
            });
        }
        if let Some(id) = &opts.id
            && !changes.iter().any(|c| &c.id == id)
        {
            continue;
        }
        commits.push(LogCommit {
            commit: (*hash).to_owned(),
            author: (*author).to_owned(),
            email: (*email).to_owned(),
            date: (*date).to_owned(),
            message: (*message).to_owned(),
            changes,
        });
    }
    Ok(commits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_lists_gains_then_losses_in_file_order() {
        let e = |i: &str| (i.to_owned(), format!("text {i}"));
        let d = diff(
            "MEMORY.md",
            &[e("a"), e("b")],
            &[e("b"), e("c"), e("d")],
            LogChange::Added,
            LogChange::Removed,
        );
        let got: Vec<(&str, &str)> = d
            .iter()
            .map(|c| (c.change.as_str(), c.id.as_str()))
            .collect();
        assert_eq!(got, [("added", "c"), ("added", "d"), ("removed", "a")]);
    }
}
