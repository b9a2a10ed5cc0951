//! The model's new text of a store, compared with the view it edited,
//! turned into entry operations: a line left as it was keeps its entry
//! (metadata and all); a changed line in the same position that is an edit
//! of the entry (half of the shorter's words in common) is a replace (the
//! entry's metadata kept); any other line gone is a removal and any other
//! line new an add. A placeholder line left as it was keeps its
//! entry, one deleted removes it, and placeholder text is never stored.

use std::collections::HashMap;

use imara_diff::{Algorithm, Diff, Token};

use super::ViewEntry;

/// The most lines a store's new text may have.
pub const MAX_STORE_LINES: usize = 5_000;

/// What becomes of one line of the view, or of the new text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The entry's text is changed: a replace, its metadata kept.
    Replace {
        /// The entry's index in the view.
        entry: usize,
        /// Its new text.
        text: String,
        /// The line of the new text (from 1).
        line: usize,
    },
    /// The entry is gone from the new text.
    Remove {
        /// The entry's index in the view.
        entry: usize,
    },
    /// A new entry.
    Add {
        /// Its text.
        text: String,
        /// The line of the new text (from 1).
        line: usize,
    },
}

/// What a new text does to a store's entries.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    /// The changes, replaces and removals in the view's order, then the adds.
    pub changes: Vec<Change>,
    /// The entries left as they were.
    pub kept: usize,
    /// Headings of the new text, which are not entries and are not stored.
    pub headings: usize,
}

impl Plan {
    /// How many entries the plan replaces.
    pub fn replaced(&self) -> usize {
        self.count(|c| matches!(c, Change::Replace { .. }))
    }

    /// How many entries the plan removes.
    pub fn removed(&self) -> usize {
        self.count(|c| matches!(c, Change::Remove { .. }))
    }

    /// How many entries the plan adds.
    pub fn added(&self) -> usize {
        self.count(|c| matches!(c, Change::Add { .. }))
    }

    fn count(&self, f: impl Fn(&Change) -> bool) -> usize {
        self.changes.iter().filter(|c| f(c)).count()
    }
}

/// A line of the view or of the new text as the comparison reads it:
/// trimmed, a list marker the model may have written (`- `, `* `, `+ `)
/// dropped.
pub fn entry_key(line: &str) -> &str {
    let t = line.trim();
    for m in ["- ", "* ", "+ "] {
        if let Some(rest) = t.strip_prefix(m) {
            return rest.trim_start();
        }
    }
    if matches!(t, "-" | "*" | "+") { "" } else { t }
}

/// The words of a line, as the comparison of an entry and its edit reads
/// them: runs of letters and digits, lower-cased, of two characters or more.
fn words(text: &str) -> std::collections::BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 2)
        .map(str::to_lowercase)
        .collect()
}

/// Whether `new`, in the place of the entry `old`, is an edit of it: they
/// share at least half of the words of the shorter (or neither has any).
/// Another text in its place is a new entry, and the old one goes.
fn same_entry(old: &str, new: &str) -> bool {
    let (a, b) = (words(old), words(new));
    if a.is_empty() || b.is_empty() {
        return a.is_empty() && b.is_empty();
    }
    let shared = a.intersection(&b).count();
    shared * 2 >= a.len().min(b.len())
}

/// The most pairs of lines one changed stretch is aligned over (its old
/// lines times its new ones); past it, lines pair by position.
const MAX_ALIGNED_PAIRS: usize = 1_000_000;

/// The old lines `o` and new lines `n` of one changed stretch paired, in
/// order: as many pairs as can be where `edit_of(old, new)` holds (an
/// entry and its edit), each line of either side once; the others alone.
/// An entry reworded beside an inserted or deleted line still pairs with
/// its edit, so it keeps its metadata and place. Past
/// [`MAX_ALIGNED_PAIRS`], lines pair by position.
fn align(
    o: &[usize],
    n: &[usize],
    edit_of: impl Fn(usize, usize) -> bool,
) -> Vec<(Option<usize>, Option<usize>)> {
    let (m, k) = (o.len(), n.len());
    let mut out = Vec::with_capacity(m.max(k));
    if m.saturating_mul(k) > MAX_ALIGNED_PAIRS {
        for i in 0..m.max(k) {
            match (o.get(i), n.get(i)) {
                (Some(&e), Some(&l)) if edit_of(e, l) => out.push((Some(e), Some(l))),
                (e, l) => {
                    out.push((e.copied(), None));
                    out.push((None, l.copied()));
                }
            }
        }
        return out;
    }
    // best[i][j]: the most pairs of o[i..] and n[j..].
    let mut best = vec![vec![0u32; k + 1]; m + 1];
    for i in (0..m).rev() {
        for j in (0..k).rev() {
            let pair = if edit_of(o[i], n[j]) {
                best[i + 1][j + 1] + 1
            } else {
                0
            };
            best[i][j] = pair.max(best[i + 1][j]).max(best[i][j + 1]);
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < m || j < k {
        if i < m && j < k && edit_of(o[i], n[j]) && best[i][j] == best[i + 1][j + 1] + 1 {
            out.push((Some(o[i]), Some(n[j])));
            i += 1;
            j += 1;
        } else if i < m && (j == k || best[i + 1][j] >= best[i][j + 1]) {
            out.push((Some(o[i]), None));
            i += 1;
        } else {
            out.push((None, Some(n[j])));
            j += 1;
        }
    }
    out
}

/// Whether a line is a markdown heading (`# Notes`): not an entry.
fn is_heading(key: &str) -> bool {
    let hashes = key.chars().take_while(|c| *c == '#').count();
    (1..=6).contains(&hashes) && key[hashes..].chars().next().is_none_or(char::is_whitespace)
}

/// Whether a line is (or starts as) a placeholder memdir shows in place of
/// text: its text is never stored.
fn is_placeholder(key: &str) -> bool {
    ["[BLOCKED:", "[CONFLICT:", "[OVER BUDGET:"]
        .iter()
        .any(|p| key.starts_with(p))
}

/// The plan that turns the store `path`'s view `entries` into `new_text`;
/// refused (with the text the model reads) when the new text stores a
/// placeholder, has more than [`MAX_STORE_LINES`] lines, or would replace
/// or remove more than half of a store of three entries or more.
pub fn plan(path: &str, entries: &[ViewEntry], new_text: &str) -> Result<Plan, String> {
    let mut headings = 0;
    let mut new: Vec<(usize, &str)> = Vec::new();
    for (i, raw) in new_text.split('\n').enumerate() {
        let key = entry_key(raw);
        if key.is_empty() {
            continue;
        }
        if is_heading(key) {
            headings += 1;
            continue;
        }
        new.push((i + 1, key));
        if new.len() > MAX_STORE_LINES {
            return Err(format!(
                "No change was made: the new text of {path} has more than {MAX_STORE_LINES} entries."
            ));
        }
    }
    let old: Vec<&str> = entries.iter().map(|e| entry_key(&e.line)).collect();
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let mut token = |k| {
        let n = u32::try_from(ids.len()).unwrap_or(u32::MAX);
        Token(*ids.entry(k).or_insert(n))
    };
    let before: Vec<Token> = old.iter().map(|k| token(*k)).collect();
    let after: Vec<Token> = new.iter().map(|(_, k)| token(*k)).collect();
    let count = u32::try_from(ids.len()).unwrap_or(u32::MAX);
    let mut diff = Diff::default();
    diff.compute_with(Algorithm::Histogram, &before, &after, count);
    let mut changes = Vec::new();
    let mut adds = Vec::new();
    let mut touched = 0;
    for h in diff.hunks() {
        let o: Vec<usize> = (h.before.start as usize..h.before.end as usize).collect();
        let n: Vec<usize> = (h.after.start as usize..h.after.end as usize).collect();
        touched += o.len();
        // A flagged entry's line is not the model's to edit: a line in its
        // place is new, and the entry goes.
        let edit_of = |e: usize, l: usize| !entries[e].blocked && same_entry(old[e], new[l].1);
        for pair in align(&o, &n, edit_of) {
            match pair {
                (Some(e), Some(l)) => changes.push(Change::Replace {
                    entry: e,
                    text: new[l].1.to_owned(),
                    line: new[l].0,
                }),
                (Some(e), None) => changes.push(Change::Remove { entry: e }),
                (None, Some(l)) => adds.push(l),
                (None, None) => {}
            }
        }
    }
    // A line moved (removed here, the same text added there) is kept where
    // it is: an entry's place is not the model's to change.
    let mut kept_moved = 0;
    adds.retain(|l| {
        let key = new[*l].1;
        let moved = changes
            .iter()
            .position(|c| matches!(c, Change::Remove { entry } if old[*entry] == key));
        match moved {
            Some(i) => {
                changes.remove(i);
                kept_moved += 1;
                false
            }
            None => true,
        }
    });
    for l in adds {
        changes.push(Change::Add {
            text: new[l].1.to_owned(),
            line: new[l].0,
        });
    }
    for c in &changes {
        if let Change::Replace { text, line, .. } | Change::Add { text, line } = c
            && is_placeholder(text)
        {
            return Err(format!(
                "No change was made: line {line} of the new text of {path} is a placeholder memdir shows in place of text, not an entry. \
                 Leave a placeholder line as it was to keep its entry, or delete the line to remove the entry."
            ));
        }
    }
    let plan = Plan {
        changes,
        kept: entries.len() - touched + kept_moved,
        headings,
    };
    let dropped = plan.replaced() + plan.removed();
    if entries.len() >= 3 && dropped * 2 > entries.len() {
        return Err(format!(
            "No change was made: this would replace or remove {dropped} of the {} entries of {path}, more than half. \
             Change fewer entries at a time: str_replace one entry's line, insert new lines, or delete a line to remove its entry.",
            entries.len()
        ));
    }
    Ok(plan)
}
