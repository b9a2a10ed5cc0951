//! Merging a file of entries: MEMORY.md and USER.md (three-way, by id, with
//! edits paired by similarity), and archive.md (the union of its records).
//!
//! Each side is cut in two: its entries (the lines of each top-level list
//! item) and the rest, its *skeleton*, where each entry leaves an anchor
//! (the line boundary it was cut at). The skeletons merge as text; the
//! entries merge by the rules below into a plan, and each entry of the plan
//! goes back at the place its anchor maps to in the merged skeleton: ours'
//! entries where they stood, theirs' after the entry before them in the
//! plan. The result is parsed again and must hold exactly the plan's
//! entries with their bytes; where it does not (a layout a splice cannot
//! keep), theirs' entries go in through the store's own checked append,
//! and as a last resort the files merge as plain text.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::pairing;
use super::text::{self, lines};
use super::{Conflict, Merged, text_conflicts, text_merge};
use crate::markdown::{
    Document, Entry, META_PREFIX, Marker, parse_over, parse_without_ids, read_marker, splice,
};
use crate::model::Meta;

/// Which rules a file of entries merges by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rules {
    /// A file of entries whose ids are over this scope name (a curated
    /// store's scope, or the learnings'): three-way by id, edits paired.
    Store(&'static str),
    /// archive.md: the union of the records (by archived id).
    Archive,
}

/// Whether one of `texts` has an entry with memdir's metadata comment.
pub(super) fn looks_like(texts: &[&str]) -> bool {
    texts.iter().any(|s| {
        s.contains(META_PREFIX) && {
            let d = parse_without_ids(s);
            d.entries.iter().any(|e| e.meta.is_some())
        }
    })
}

/// One side as the merge sees it.
struct Side<'a> {
    src: &'a str,
    doc: Document,
    /// Each entry's identity: its id (a store) or its archived id.
    ids: Vec<String>,
    /// The text without the entries' lines.
    skeleton: String,
    /// Each entry's anchor: the line boundary of the skeleton it was cut at.
    anchors: Vec<usize>,
}

impl<'a> Side<'a> {
    /// Parses `src`; `None` when its entries cannot be cut out by lines (or
    /// it holds conflict markers already).
    fn new(rules: Rules, src: &'a str) -> Option<Side<'a>> {
        let doc = match rules {
            Rules::Store(scope) => parse_over(scope, src),
            Rules::Archive => parse_without_ids(src),
        };
        if !doc.conflicts.is_empty() {
            return None;
        }
        let ids = doc
            .entries
            .iter()
            .map(|e| match rules {
                Rules::Store(_) => e.id.clone(),
                Rules::Archive => e.metadata(src).archived_id(&e.text),
            })
            .collect();
        let mut skeleton = String::with_capacity(src.len());
        let mut anchors = Vec::with_capacity(doc.entries.len());
        let mut at = 0;
        let mut skeleton_lines = 0;
        for e in &doc.entries {
            let start = e.item.start;
            let at_line_start = start == 0 || src[..start].ends_with(['\n', '\r']);
            if start < at || !at_line_start {
                return None;
            }
            let end = crate::markdown::line_end_with_eol(src, e.item.end);
            let gap = &src[at..start];
            // A lone CR before the cut and an LF after it would join into
            // one line ending: such a file merges as text.
            if skeleton.ends_with('\r') && gap.starts_with('\n') {
                return None;
            }
            skeleton.push_str(gap);
            skeleton_lines += lines(gap).len();
            anchors.push(skeleton_lines);
            at = end;
        }
        if skeleton.ends_with('\r') && src[at..].starts_with('\n') {
            return None;
        }
        skeleton.push_str(&src[at..]);
        Some(Side {
            src,
            doc,
            ids,
            skeleton,
            anchors,
        })
    }

    fn entry(&self, i: usize) -> &Entry {
        &self.doc.entries[i]
    }

    /// An entry's content: its text and metadata comment, as written.
    fn content(&self, i: usize) -> &'a str {
        let e = self.entry(i);
        &self.src[e.body.start..e.item.end]
    }

    /// The length of an entry's metadata comment (0 without one).
    fn meta_len(&self, i: usize) -> Option<usize> {
        self.entry(i).meta.as_ref().map(Range::len)
    }

    /// An entry's prefix: its indentation, marker and the space after it.
    fn prefix(&self, i: usize) -> &'a str {
        let e = self.entry(i);
        &self.src[e.item.start..e.body.start]
    }

    /// The first index of each identity.
    fn index(&self) -> HashMap<&str, usize> {
        let mut m = HashMap::with_capacity(self.ids.len());
        for (i, id) in self.ids.iter().enumerate() {
            m.entry(id.as_str()).or_insert(i);
        }
        m
    }
}

/// What became of a base entry on one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Still there (same id), at this index.
    Kept(usize),
    /// Edited: the new entry at this index is its new version.
    Edited(usize),
    /// Gone.
    Removed,
}

/// How one side changed the base's entries.
struct Changes {
    /// Per base entry.
    fate: Vec<Fate>,
    /// Per entry of the side: the base entry it is an edit of, if any.
    edit_of: Vec<Option<usize>>,
}

fn changes(rules: Rules, base: &Side<'_>, side: &Side<'_>) -> Changes {
    let side_index = side.index();
    let base_index = base.index();
    let mut fate: Vec<Fate> = base
        .ids
        .iter()
        .map(|id| {
            side_index
                .get(id.as_str())
                .map_or(Fate::Removed, |&i| Fate::Kept(i))
        })
        .collect();
    let mut edit_of = vec![None; side.ids.len()];
    if let Rules::Store(_) = rules {
        let removed: Vec<usize> = (0..base.ids.len())
            .filter(|&b| {
                fate[b] == Fate::Removed && base_index.get(base.ids[b].as_str()) == Some(&b)
            })
            .collect();
        let added: Vec<usize> = (0..side.ids.len())
            .filter(|&i| {
                !base_index.contains_key(side.ids[i].as_str())
                    && side_index.get(side.ids[i].as_str()) == Some(&i)
            })
            .collect();
        let rt: Vec<&str> = removed
            .iter()
            .map(|&b| base.entry(b).text.as_str())
            .collect();
        let at: Vec<&str> = added.iter().map(|&i| side.entry(i).text.as_str()).collect();
        for (x, y) in pairing::pair(&rt, &at) {
            fate[removed[x]] = Fate::Edited(added[y]);
            edit_of[added[y]] = Some(removed[x]);
        }
    }
    Changes { fate, edit_of }
}

/// Where an entry of the plan goes.
#[derive(Debug, Clone, Copy)]
enum Anchor {
    /// At this anchor of ours' skeleton.
    Ours(usize),
    /// At this anchor of theirs' skeleton (when nothing of ours comes before).
    Theirs(usize),
    /// Right after the entry before it in the plan.
    After,
}

/// One entry of the result.
#[derive(Debug, Clone)]
struct Planned {
    /// Its identity.
    id: String,
    /// Its text (for the checked append of the fallback).
    text: String,
    /// Its prefix when it takes one of its own (`None`: the previous
    /// entry's marker, continued).
    prefix: Option<String>,
    /// Its content: text and metadata comment.
    content: String,
    /// Where in `content` its metadata comment starts, if it has one.
    meta_at: Option<usize>,
    /// What follows the content to the end of its last line: trailing
    /// whitespace and a line ending (its own for an entry of ours, ours'
    /// for theirs; ours' when it had none).
    trail: String,
    /// Its own prefix on its side, for when a prefix of another width
    /// would misalign its continuation lines.
    own_prefix: String,
    /// Its content column on its side.
    indent: usize,
    anchor: Anchor,
    /// For an entry of ours that theirs also has: theirs' anchor of it.
    alt: Option<usize>,
}

/// Merges three versions of a file of entries (byte-order marks removed).
pub(super) fn merge(rules: Rules, base: &str, ours: &str, theirs: &str) -> Merged {
    let (Some(b), Some(o), Some(t)) = (
        Side::new(rules, base),
        Side::new(rules, ours),
        Side::new(rules, theirs),
    ) else {
        return last_resort(rules, base, ours, theirs);
    };
    let (plan, mut conflicts) = plan(rules, &b, &o, &t);
    let skel = text::merge(&b.skeleton, &o.skeleton, &t.skeleton);
    let eol = o.doc.eol;
    let regions = skel.conflicts.len();
    conflicts.extend(text_conflicts(&skel.text, &skel.conflicts));
    let done = |text: String| Merged {
        text,
        conflicts: conflicts.clone(),
    };
    // Every entry in place.
    let (mut out, ends_with_entry) = assemble(&plan, &skel, eol);
    if checks(rules, &out, &plan, regions) {
        // A file that ended without a line ending still does.
        if ends_with_entry && !ours.is_empty() && !ours.ends_with(['\n', '\r']) {
            // The line ending the assembly put last, whichever it is: a
            // side may mix them, so it need not be ours' `eol`.
            let cut = ["\r\n", "\n", "\r"]
                .iter()
                .find(|e| out.ends_with(**e))
                .map_or(0, |e| e.len());
            out.truncate(out.len() - cut);
        }
        return done(out);
    }
    // Ours' entries in place, then theirs' through the store's checked
    // append (which renders their marker and text afresh).
    let (mine, rest): (Vec<Planned>, Vec<Planned>) = plan
        .iter()
        .cloned()
        .partition(|p| matches!(p.anchor, Anchor::Ours(_)));
    let (mut cur, _) = assemble(&mine, &skel, eol);
    if checks(rules, &cur, &mine, regions) {
        for p in &rest {
            let doc = match rules {
                Rules::Store(scope) => parse_over(scope, &cur),
                Rules::Archive => parse_without_ids(&cur),
            };
            let id = match rules {
                Rules::Store(_) => p.id.as_str(),
                Rules::Archive => "",
            };
            let meta = p.meta_at.and_then(|m| p.content.get(m..));
            match splice::append(&cur, &doc, (&p.text, id), meta) {
                Ok((next, _)) => cur = next,
                Err(_) => return last_resort(rules, base, ours, theirs),
            }
        }
        if checks_ids(rules, &cur, &plan) {
            return done(cur);
        }
    }
    last_resort(rules, base, ours, theirs)
}

/// The last resort: the files merged as plain text. A text merge knows no
/// entries, so a clean one can still read back as other entries (a line
/// joined to the list item before it, a list hidden or revealed by what the
/// other side changed): then nothing is merged by guess and the whole file
/// is left in conflict, both sides between markers, for a person.
pub(super) fn last_resort(rules: Rules, base: &str, ours: &str, theirs: &str) -> Merged {
    let m = text_merge(base, ours, theirs);
    if !m.is_clean() || reads_back(rules, base, ours, theirs, &m.text) {
        return m;
    }
    let eol = if ours.contains("\r\n") { "\r\n" } else { "\n" };
    let side = |s: &str| {
        if s.is_empty() || s.ends_with('\n') {
            s.to_owned()
        } else {
            format!("{s}{eol}")
        }
    };
    let text = format!(
        "<<<<<<< ours{eol}{}======={eol}{}>>>>>>> theirs{eol}",
        side(ours),
        side(theirs)
    );
    let whole = 0..text.len();
    let conflicts = text_conflicts(&text, std::slice::from_ref(&whole));
    Merged { text, conflicts }
}

/// Whether `out`, a merge of the three versions, holds entries as a merge
/// of entries may: each one ours or theirs has, no more often than the side
/// that has it most, and every entry both sides kept from the base.
fn reads_back(rules: Rules, base: &str, ours: &str, theirs: &str, out: &str) -> bool {
    let count = |s: &str| {
        let mut n: HashMap<String, usize> = HashMap::new();
        for id in entries(rules, s).1 {
            *n.entry(id).or_default() += 1;
        }
        n
    };
    let (b, o, t, r) = (count(base), count(ours), count(theirs), count(out));
    let most = |id: &String| o.get(id).copied().max(t.get(id).copied()).unwrap_or(0);
    r.iter().all(|(id, n)| *n <= most(id))
        && b.keys()
            .filter(|id| o.contains_key(*id) && t.contains_key(*id))
            .all(|id| r.contains_key(id))
}

/// The entries of the result, in order, and the entries left in conflict.
fn plan(rules: Rules, b: &Side<'_>, o: &Side<'_>, t: &Side<'_>) -> (Vec<Planned>, Vec<Conflict>) {
    let co = changes(rules, b, o);
    let ct = changes(rules, b, t);
    let base_index = b.index();
    let ours_ids: HashSet<&str> = o.ids.iter().map(String::as_str).collect();
    let mut placed: HashSet<String> = HashSet::new();
    let mut taken = vec![false; t.ids.len()];
    let mut out = Vec::new();
    let mut conflicts = Vec::new();
    let eol = o.doc.eol;

    for k in 0..o.ids.len() {
        let id = o.ids[k].as_str();
        let here = Anchor::Ours(o.anchors[k]);
        // The base entry ours kept as it was, or edited.
        let base_of = match base_index.get(id) {
            Some(&bi) => Some((bi, false)),
            None => co.edit_of[k].map(|bi| (bi, true)),
        };
        let Some((bi, edited)) = base_of else {
            // New in ours.
            placed.insert(id.to_owned());
            out.push(planned(o, k, here, eol));
            continue;
        };
        let base_content = b.content(bi);
        let ours_changed = edited || o.content(k) != base_content;
        match ct.fate[bi] {
            Fate::Kept(j) => {
                taken[j] = true;
                let theirs_changed = t.content(j) != base_content;
                placed.insert(id.to_owned());
                let mut p = if !ours_changed && theirs_changed {
                    // Theirs changed its metadata: theirs' bytes, ours' place.
                    in_place_of(planned(o, k, here, eol), t, j, eol)
                } else {
                    planned(o, k, here, eol)
                };
                p.alt = Some(t.anchors[j]);
                out.push(p);
            }
            Fate::Edited(j) => {
                taken[j] = true;
                let tid = t.ids[j].as_str();
                if !edited {
                    // Edited on theirs only (ours at most changed its
                    // metadata): the edit, where ours had it (unless ours
                    // has that text already).
                    if !ours_ids.contains(tid) && !placed.contains(tid) {
                        placed.insert(tid.to_owned());
                        let mut p = in_place_of(planned(o, k, here, eol), t, j, eol);
                        p.alt = Some(t.anchors[j]);
                        out.push(p);
                    }
                } else if tid == id || ours_ids.contains(tid) || placed.contains(tid) {
                    placed.insert(id.to_owned());
                    let mut p = planned(o, k, here, eol);
                    p.alt = Some(t.anchors[j]);
                    out.push(p);
                } else {
                    // Edited differently on both sides: both, marked.
                    let base_id = b.ids[bi].clone();
                    placed.insert(id.to_owned());
                    placed.insert(tid.to_owned());
                    let mut p = mark(planned(o, k, here, eol), &base_id);
                    p.alt = Some(t.anchors[j]);
                    out.push(p);
                    out.push(mark(planned(t, j, Anchor::After, eol), &base_id));
                    conflicts.push(Conflict::Entry {
                        base: base_id,
                        ours: id.to_owned(),
                        theirs: tid.to_owned(),
                    });
                }
            }
            Fate::Removed => {
                // Removed on theirs: gone unless ours changed it (and for
                // archive.md, never: a union keeps every record).
                if ours_changed || rules == Rules::Archive {
                    placed.insert(id.to_owned());
                    out.push(planned(o, k, here, eol));
                }
            }
        }
    }
    // Theirs' new entries, and theirs' edits of entries ours removed, in
    // theirs' order.
    for (j, &was_taken) in taken.iter().enumerate().take(t.ids.len()) {
        if was_taken || placed.contains(&t.ids[j]) {
            continue;
        }
        let keep = match base_index.get(t.ids[j].as_str()) {
            // In the base and not seen among ours': ours removed it. It
            // stays if theirs changed it (its metadata), as an edit does.
            Some(&bi) => rules == Rules::Archive || t.content(j) != b.content(bi),
            None => match ct.edit_of[j] {
                // An edit: it stays when ours removed the entry.
                Some(bi) => co.fate[bi] == Fate::Removed,
                None => true,
            },
        };
        if keep {
            placed.insert(t.ids[j].clone());
            let anchor = if out.is_empty() {
                Anchor::Theirs(t.anchors[j])
            } else {
                Anchor::After
            };
            out.push(planned(t, j, anchor, eol));
        }
    }
    (out, conflicts)
}

/// Entry `i` of `side` as the plan takes it, its line endings `eol`. An
/// entry at an anchor keeps its own prefix; one placed after another
/// continues that one's marker.
fn planned(side: &Side<'_>, i: usize, anchor: Anchor, eol: &str) -> Planned {
    let e = side.entry(i);
    // Only a side whose line ending is not ours' has its lines converted.
    let same = side.doc.eol == eol;
    let with_eol = |s: &str, eol: &str| {
        if same { s.to_owned() } else { with_eol(s, eol) }
    };
    let content = with_eol(side.content(i), eol);
    let meta_at = side.meta_len(i).map(|n| {
        let comment = &side.src[e.item.end - n..e.item.end];
        content.len() - with_eol(comment, eol).len()
    });
    Planned {
        id: side.ids[i].clone(),
        text: e.text.clone(),
        prefix: match anchor {
            Anchor::After => None,
            _ => Some(side.prefix(i).to_owned()),
        },
        content,
        meta_at,
        own_prefix: with_eol(side.prefix(i), eol),
        trail: {
            let end = crate::markdown::line_end_with_eol(side.src, e.item.end);
            let rest = &side.src[e.item.end..end];
            let ws = rest.trim_end_matches(['\n', '\r']);
            let own = &rest[ws.len()..];
            if own.is_empty() || !same {
                format!("{ws}{eol}")
            } else {
                rest.to_owned()
            }
        },
        indent: e.indent,
        anchor,
        alt: None,
    }
}

/// `p` (an entry of ours at its place) with theirs' entry `j` in it: ours'
/// prefix and theirs' content, or theirs' whole item when its
/// continuation lines were written for another column.
fn in_place_of(p: Planned, t: &Side<'_>, j: usize, eol: &str) -> Planned {
    let mut q = planned(t, j, p.anchor, eol);
    if q.indent == p.indent {
        q.prefix = p.prefix;
    }
    q
}

/// `s` with its line endings turned into `eol`.
fn with_eol(s: &str, eol: &str) -> String {
    if !s.contains(['\n', '\r']) {
        return s.to_owned();
    }
    lines(s)
        .iter()
        .map(|l| {
            let body = l.trim_end_matches(['\n', '\r']);
            if body.len() == l.len() {
                body.to_owned()
            } else {
                format!("{body}{eol}")
            }
        })
        .collect()
}

/// `p` with `conflict=<base>` in its metadata comment: spliced in before
/// the comment's `-->`, or a new comment after the text.
fn mark(mut p: Planned, base: &str) -> Planned {
    match p.meta_at {
        Some(at) => {
            let comment = &p.content[at..];
            if Meta::parse(comment).conflict.as_deref() == Some(base) {
                return p;
            }
            let head = comment
                .strip_suffix("-->")
                .unwrap_or(comment)
                .trim_end()
                .to_owned();
            p.content = format!("{}{head} conflict={base} -->", &p.content[..at]);
        }
        None => {
            p.meta_at = Some(p.content.len() + 1);
            p.content = format!("{} {META_PREFIX} conflict={base} -->", p.content);
        }
    }
    p
}

/// The result: the merged skeleton with the plan's entries at their
/// places; and whether it ends with an entry.
fn assemble(plan: &[Planned], skel: &text::TextMerge, eol: &str) -> (String, bool) {
    // Where each entry goes, and the bytes it takes there.
    let mut inserts: Vec<(usize, String)> = Vec::with_capacity(plan.len());
    let mut last_at = None;
    let mut last_marker: Option<(usize, Marker)> = None;
    // Where each anchor of ours goes: where it maps, unless that is not
    // certain (theirs inserted lines at it) and theirs' anchor of one of
    // its entries is.
    let mut ours_place: HashMap<usize, usize> = HashMap::new();
    for p in plan {
        if let Anchor::Ours(a) = p.anchor {
            let exact = |v: &[bool], x: usize| v.get(x).copied().unwrap_or(false);
            if exact(&skel.ours_exact, a) {
                continue;
            }
            if let Some(ta) = p.alt.filter(|&ta| exact(&skel.theirs_exact, ta))
                && let Some(&at) = skel.theirs_at.get(ta)
            {
                ours_place.entry(a).or_insert(at);
            }
        }
    }
    for p in plan {
        let at = match p.anchor {
            Anchor::Ours(a) => ours_place.get(&a).or(skel.ours_at.get(a)).copied(),
            Anchor::Theirs(a) => skel.theirs_at.get(a).copied(),
            Anchor::After => last_at,
        }
        .unwrap_or(skel.text.len());
        let item = match (&p.prefix, last_marker) {
            (Some(prefix), _) => format!("{prefix}{}", p.content),
            (None, Some((lead, m))) => {
                let prefix = format!("{}{} ", " ".repeat(lead), m.next().render());
                if !p.content.contains(['\n', '\r']) || prefix.len() == p.indent {
                    format!("{prefix}{}", p.content)
                } else {
                    whole(p)
                }
            }
            (None, None) => whole(p),
        };
        last_marker = marker_of(&item).or(last_marker);
        inserts.push((at, format!("{item}{}", p.trail)));
        last_at = Some(at);
    }
    let size = skel.text.len() + inserts.iter().map(|i| i.1.len() + eol.len()).sum::<usize>();
    let mut out = String::with_capacity(size);
    let mut from = 0;
    for (at, item) in &inserts {
        let at = (*at).clamp(from, skel.text.len());
        out.push_str(&skel.text[from..at]);
        if !out.is_empty() && !out.ends_with(['\n', '\r']) {
            out.push_str(eol);
        }
        out.push_str(item);
        from = at;
    }
    let ends_with_entry = !inserts.is_empty() && from == skel.text.len();
    out.push_str(&skel.text[from..]);
    (out, ends_with_entry)
}

/// An entry's whole item as its side wrote it (with the content `p` holds).
fn whole(p: &Planned) -> String {
    format!("{}{}", p.own_prefix, p.content)
}

/// The indentation (in spaces) and marker an item's bytes start with.
fn marker_of(item: &str) -> Option<(usize, Marker)> {
    let lead = item.len() - item.trim_start_matches(' ').len();
    let (m, _) = read_marker(&item[lead..])?;
    Some((lead, m))
}

/// The entries of `out`, parsed by `rules`, with their identities.
fn entries(rules: Rules, out: &str) -> (Document, Vec<String>) {
    let doc = match rules {
        Rules::Store(scope) => parse_over(scope, out),
        Rules::Archive => parse_without_ids(out),
    };
    let ids = doc
        .entries
        .iter()
        .map(|e| match rules {
            Rules::Store(_) => e.id.clone(),
            Rules::Archive => e.metadata(out).archived_id(&e.text),
        })
        .collect();
    (doc, ids)
}

/// Whether `out` parses to exactly the plan's entries, each with its
/// content as planned, and to `regions` conflict regions (those of the
/// merged text outside the entries).
fn checks(rules: Rules, out: &str, plan: &[Planned], regions: usize) -> bool {
    let (doc, ids) = entries(rules, out);
    doc.conflicts.len() == regions
        && ids.len() == plan.len()
        && doc.entries.iter().zip(&ids).zip(plan).all(|((e, id), p)| {
            *id == p.id && out.get(e.body.start..e.item.end) == Some(p.content.as_str())
        })
}

/// Whether `out` holds the plan's entries by identity (in any order: the
/// checked append puts theirs at the end).
fn checks_ids(rules: Rules, out: &str, plan: &[Planned]) -> bool {
    let (_, mut ids) = entries(rules, out);
    let mut want: Vec<String> = plan.iter().map(|p| p.id.clone()).collect();
    ids.sort_unstable();
    want.sort_unstable();
    ids == want
}
