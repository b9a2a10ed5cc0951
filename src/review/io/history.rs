//! `memdir review history`: every review the owner's journal records,
//! newest first, each with what it changed as the files record it (the
//! `review=ID` its records and entries carry, `settled=ID` on records it
//! settled) and a diff of each changed entry. Reads the stores, the
//! archive and episodes.md; takes no lock, writes nothing.

use std::collections::BTreeMap;

use serde::Serialize;

use super::diff::unified_diff;
use super::undo::live_meta;
use crate::error::Result;
use crate::markdown::Entry;
use crate::model::{ArchiveKind, Meta, Origin, Scope};
use crate::review::routine::{self, LastReview, MAX_REVIEWS};
use crate::store::files::{archive, episodes, reviews, stores};
use crate::store::limits::STORE_BYTES;
use crate::store::owner::{At, Owner};

/// The reviews listed when a request names no limit.
pub(crate) const DEFAULT_REVIEWS: usize = 20;
/// The most changes listed per review (the rest counted in
/// `changes_total`).
pub(crate) const MAX_CHANGES: usize = 200;
/// The most bytes of one change's diff (a longer one is cut, and says so).
pub(crate) const MAX_DIFF_BYTES: usize = 8 * 1024;
/// The most bytes of diffs in one answer; past it a change's diff is left
/// empty (`diff_cut`).
pub(crate) const MAX_DIFFS_BYTES: usize = 2 * 1024 * 1024;

/// What a review did to one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// Taken out of its store into the archive (the record's `kind` says
    /// why: merged, expired, conflict, reviewed, unrecalled, …).
    Archived,
    /// Lifted into MEMORY.md from a day log's `fact:` line.
    Lifted,
    /// Saved on the reviewer's proposal.
    Added,
    /// Given a new expiry (`renewed_from` holds the old one).
    Renewed,
    /// The kept side of a conflict it settled (`resolved` holds the
    /// conflict).
    Resolved,
    /// Kept as the one of its copies (the others archived as merged).
    Kept,
    /// An archived fact that was live too, settled as archived
    /// (`settled=ID` on its record).
    Settled,
}

impl ChangeKind {
    /// The kind's name in JSON and text.
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::Archived => "archived",
            ChangeKind::Lifted => "lifted",
            ChangeKind::Added => "added",
            ChangeKind::Renewed => "renewed",
            ChangeKind::Resolved => "resolved",
            ChangeKind::Kept => "kept",
            ChangeKind::Settled => "settled",
        }
    }
}

/// One change of a review, as the files record it now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ReviewChange {
    /// What the review did.
    pub kind: ChangeKind,
    /// The entry's id.
    pub id: String,
    /// The store it is in, or came from (`memory`, `user`, `day`).
    pub scope: Origin,
    /// The file that holds it now (`MEMORY.md`, `archive.md`, `archive/2026.md`).
    pub file: String,
    /// Its text.
    pub text: String,
    /// For an archived one: the record's kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive_kind: Option<ArchiveKind>,
    /// For an archived one: the record's reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A unified diff of the entry in its store: as it was before the
    /// review (read back from what the review recorded) and as it is now.
    pub diff: String,
    /// Whether the diff was cut (at most 8 KiB a diff, 2 MiB in all).
    pub diff_cut: bool,
}

/// One review: its journal line, and what it changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ReviewHistoryEntry {
    /// Its id.
    #[schemars(pattern(r"^review-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$"))]
    pub id: String,
    /// When it ran.
    pub at: chrono::DateTime<chrono::Utc>,
    /// Its journal line's text.
    pub report: String,
    /// Whether `review undo` undid it.
    pub undone: bool,
    /// What the files still record of it (an undo takes its marks off),
    /// at most 200.
    #[schemars(length(max = 200))]
    pub changes: Vec<ReviewChange>,
    /// How many changes the files record, before the bound.
    pub changes_total: usize,
}

/// Every review the journal records, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ReviewHistory {
    /// The reviews, at most `limit`.
    #[schemars(length(max = 100))]
    pub reviews: Vec<ReviewHistoryEntry>,
    /// The limit asked for (at most 100).
    #[schemars(range(max = 100))]
    pub limit: usize,
}

/// An entry's lines as a store holds them: `- text <!-- memdir … -->`,
/// continuation lines indented.
fn item(text: &str, meta: &Meta) -> String {
    let body = text.replace('\n', "\n  ");
    format!("- {body} {}\n", meta.render())
}

/// The entry `e` of `src` with its metadata comment replaced by `meta`.
fn with_meta(src: &str, e: &Entry, meta: &Meta) -> String {
    let whole = &src[e.item.clone()];
    match &e.meta {
        Some(m) => format!(
            "{}{}{}\n",
            &src[e.item.start..m.start],
            meta.render(),
            &src[m.end..e.item.end]
        ),
        None => format!("{whole} {}\n", meta.render()),
    }
}

/// The file a store-origin belongs to.
fn origin_file(o: Origin) -> &'static str {
    o.store().map_or(episodes::EPISODES_FILE, Scope::file_name)
}

/// The reviews of `owner`'s journal, at most `limit` (default
/// [`DEFAULT_REVIEWS`], at most [`MAX_REVIEWS`]), newest first, with their
/// changes.
pub(crate) fn history(owner: &Owner, limit: Option<usize>) -> Result<ReviewHistory> {
    let limit = limit.unwrap_or(DEFAULT_REVIEWS).min(MAX_REVIEWS);
    let view = owner.view()?;
    let at = view.at();
    let listed = listed(at, limit)?;
    let mut found = Found::of(&listed);
    found.in_archive(at)?;
    found.in_stores(at)?;
    Ok(ReviewHistory {
        reviews: found.bounded(listed),
        limit,
    })
}

/// The reviews the journal records, at most `limit`, newest first; and
/// the last one that changed nothing (it wrote no journal line; this
/// machine noted it), when it is newer.
fn listed(at: At<'_>, limit: usize) -> Result<Vec<LastReview>> {
    let (_, journal) = episodes::read(at)?;
    let mut listed: Vec<LastReview> = routine::reviews(&journal, limit);
    if limit > 0
        && let Some(id) = reviews::last_unchanged(at)?
        && let Some(t) = routine::review_time(&id)
        && !listed.iter().any(|r| r.id == id)
        && listed.first().is_none_or(|l| t > l.at)
    {
        listed.insert(
            0,
            LastReview {
                id,
                at: t,
                report: "review: no changes".into(),
                undone: false,
            },
        );
        listed.truncate(limit);
    }
    Ok(listed)
}

/// The changes found of each review listed: at most [`MAX_CHANGES`] kept
/// of each, all counted.
struct Found {
    changes: BTreeMap<String, Vec<ReviewChange>>,
    totals: BTreeMap<String, usize>,
}

impl Found {
    /// None yet, for the reviews `listed`.
    fn of(listed: &[LastReview]) -> Found {
        Found {
            changes: listed.iter().map(|r| (r.id.clone(), Vec::new())).collect(),
            totals: BTreeMap::new(),
        }
    }

    /// A change of review `rid` (nothing when it is not listed).
    fn push(&mut self, rid: &str, c: ReviewChange) {
        if let Some(list) = self.changes.get_mut(rid) {
            *self.totals.entry(rid.to_owned()).or_default() += 1;
            if list.len() < MAX_CHANGES {
                list.push(c);
            }
        }
    }

    /// The archive's: records a review took out, and those it settled.
    fn in_archive(&mut self, at: At<'_>) -> Result<()> {
        let archives = archive::read_all(at)?;
        for f in &archives.files {
            let file = f.rel();
            for r in archive::records(&f.src) {
                let scope = r.meta.scope.unwrap_or(Origin::Memory);
                if let Some(rid) = r.meta.review.as_deref() {
                    let before = item(&r.text, &live_meta(&r.meta));
                    self.push(
                        rid,
                        ReviewChange {
                            kind: ChangeKind::Archived,
                            id: r.id.clone(),
                            scope,
                            file: file.clone(),
                            text: r.text.clone(),
                            archive_kind: r.meta.kind,
                            reason: r.meta.reason.clone(),
                            diff: unified_diff(origin_file(scope), &before, ""),
                            diff_cut: false,
                        },
                    );
                }
                if let Some(rid) = r.meta.settled.as_deref()
                    && r.meta.review.as_deref() != Some(rid)
                {
                    let mut was = r.meta.clone();
                    was.settled = None;
                    self.push(
                        rid,
                        ReviewChange {
                            kind: ChangeKind::Settled,
                            id: r.id.clone(),
                            scope,
                            file: file.clone(),
                            text: r.text.clone(),
                            archive_kind: r.meta.kind,
                            reason: r.meta.reason.clone(),
                            diff: unified_diff(
                                &file,
                                &item(&r.text, &was),
                                &item(&r.text, &r.meta),
                            ),
                            diff_cut: false,
                        },
                    );
                }
            }
        }
        Ok(())
    }

    /// The stores': entries a review added, renewed, resolved or kept.
    fn in_stores(&mut self, at: At<'_>) -> Result<()> {
        for scope in Scope::ALL {
            let l = stores::load(at, scope, true, STORE_BYTES)?;
            let name = scope.file_name();
            for e in &l.doc.entries {
                let m = e.metadata(&l.src);
                let Some(rid) = m.review.clone() else {
                    continue;
                };
                let ran = routine::review_time(&rid);
                let now = with_meta(&l.src, e, &m);
                let mut was = m.clone();
                was.review = None;
                let (kind, before) = if let Some(old) = m.renewed_from {
                    was.expires = Some(old);
                    was.renewed_from = None;
                    if was.updated.is_some() && was.updated == ran {
                        was.updated = None;
                    }
                    (ChangeKind::Renewed, with_meta(&l.src, e, &was))
                } else if let Some(c) = m.resolved.clone() {
                    was.conflict = Some(c);
                    was.resolved = None;
                    (ChangeKind::Resolved, with_meta(&l.src, e, &was))
                } else if m.lifted.is_some() {
                    (ChangeKind::Lifted, String::new())
                } else if m.created.is_some() && m.created == ran {
                    (ChangeKind::Added, String::new())
                } else {
                    (ChangeKind::Kept, with_meta(&l.src, e, &was))
                };
                self.push(
                    &rid,
                    ReviewChange {
                        kind,
                        id: e.id.clone(),
                        scope: Origin::from(scope),
                        file: name.to_owned(),
                        text: e.text.clone(),
                        archive_kind: None,
                        reason: None,
                        diff: unified_diff(name, &before, &now),
                        diff_cut: false,
                    },
                );
            }
        }
        Ok(())
    }

    /// The entries of the reviews `listed` with their changes, the diffs
    /// bounded: each, then all of them together.
    fn bounded(mut self, listed: Vec<LastReview>) -> Vec<ReviewHistoryEntry> {
        let mut budget = MAX_DIFFS_BYTES;
        let mut out = Vec::with_capacity(listed.len());
        for r in listed {
            let mut changes = self.changes.remove(&r.id).unwrap_or_default();
            for c in &mut changes {
                cut(c, MAX_DIFF_BYTES.min(budget));
                budget -= c.diff.len().min(budget);
            }
            out.push(ReviewHistoryEntry {
                changes_total: self.totals.get(&r.id).copied().unwrap_or(0),
                id: r.id,
                at: r.at,
                report: r.report,
                undone: r.undone,
                changes,
            });
        }
        out
    }
}

/// Cuts `c`'s diff to at most `max` bytes, at a line's end.
fn cut(c: &mut ReviewChange, max: usize) {
    if c.diff.len() <= max {
        return;
    }
    let mut at = max;
    while !c.diff.is_char_boundary(at) {
        at -= 1;
    }
    let end = c.diff[..at].rfind('\n').map_or(0, |i| i + 1);
    c.diff.truncate(end);
    c.diff_cut = true;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_is_cut_at_a_line_end_and_says_so() {
        let mut c = ReviewChange {
            kind: ChangeKind::Lifted,
            id: "mem_1".into(),
            scope: Origin::Memory,
            file: "MEMORY.md".into(),
            text: "x".into(),
            archive_kind: None,
            reason: None,
            diff: "--- a\n+++ b\n+é long line\n".into(),
            diff_cut: false,
        };
        cut(&mut c, 100);
        assert!(!c.diff_cut);
        cut(&mut c, 14);
        assert_eq!(c.diff, "--- a\n+++ b\n");
        assert!(c.diff_cut);
        cut(&mut c, 0);
        assert_eq!(c.diff, "");
    }

    #[test]
    fn an_item_is_written_as_a_store_holds_it() {
        let m = Meta {
            review: Some("review-x".into()),
            ..Meta::default()
        };
        assert_eq!(
            item("two\nlines", &m),
            format!("- two\n  lines {}\n", m.render())
        );
    }
}
