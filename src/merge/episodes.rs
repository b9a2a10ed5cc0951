//! episodes.md: date sections merged by date, each date's lines merged as
//! two ordered sequences.
//!
//! * The text before the first date section (a person's notes) merges as
//!   text; so does the non-date content between two date sections (it goes
//!   with the date before it).
//! * Dates come out ascending. A date only one side has is kept, unless the
//!   base had it too and the side that still has it left it as it was: the
//!   other side deleted it (a person may delete a day).
//! * Within a date both sides' *units* (a list line with its continuation
//!   lines, or any other non-blank line) are aligned; those both sides hold
//!   are kept once, where ours has them. Between two of those, ours' and
//!   theirs' other units interleave by time: a unit `HH:MM …` is placed by
//!   its time (ties: ours first), a unit without a time stays right after
//!   the unit it followed. Each side keeps its own order; hand-written lines
//!   are never re-sorted. A unit that the base had and one side removed
//!   while the other kept it goes (a person deleted it); one that both
//!   sides added is kept once.
//!
//! Ours' bytes are the frame: theirs' units are spliced in after the unit
//! of ours they follow. The result is parsed again and must give each date
//! the lines planned, else the files merge as plain text.

use std::collections::HashMap;
use std::ops::Range;

use chrono::NaiveDate;

use super::text::{self, Tokens, hunks};
use super::{Merged, text_merge};
use crate::journal::{self, Journal};
use crate::markdown::{line_end_with_eol, line_start, parse_without_ids};

/// Whether the texts look like episodes.md: at least one `## YYYY-MM-DD`
/// section, and every top-level list line inside one.
pub(super) fn looks_like(texts: &[&str]) -> bool {
    let mut any = false;
    for s in texts {
        let j = journal::parse(s);
        any |= !j.sections.is_empty();
        let inside = |at: usize| {
            j.sections
                .iter()
                .any(|sec| sec.heading.end <= at && at < sec.end)
        };
        if !parse_without_ids(s)
            .entries
            .iter()
            .all(|e| inside(e.item.start))
        {
            return false;
        }
    }
    any
}

/// One unit of a date's log: a list line (with its continuation lines) or
/// another non-blank line.
#[derive(Debug, Clone)]
struct Unit {
    /// Its lines in the source, line endings included.
    cut: Range<usize>,
    /// What identifies it: `i:` and the line's folded content, or `t:` and
    /// the line as written.
    key: String,
    /// `HH:MM` of a memdir line.
    time: Option<String>,
    /// Whether it is a list line.
    item: bool,
}

/// One date section of a side.
#[derive(Debug, Clone)]
struct Section {
    date: NaiveDate,
    /// The heading line(s), line ending included.
    head: Range<usize>,
    /// From after the heading to the section's end.
    body: Range<usize>,
    /// Non-date content up to the next date section (or the end).
    tail: Range<usize>,
    units: Vec<Unit>,
}

/// A side: its preamble (before the first date section) and its sections.
struct Side<'a> {
    src: &'a str,
    eol: &'static str,
    preamble: Range<usize>,
    sections: Vec<Section>,
}

impl<'a> Side<'a> {
    /// `None` when a date has two sections (a hand-made file this merge
    /// does not untangle).
    fn new(src: &'a str) -> Option<Side<'a>> {
        let j: Journal = journal::parse(src);
        let mut sections: Vec<Section> = Vec::with_capacity(j.sections.len());
        for (n, sec) in j.sections.iter().enumerate() {
            if j.sections[..n].iter().any(|s| s.date == sec.date) {
                return None;
            }
            let head_end = if src[..sec.heading.end].ends_with(['\n', '\r']) {
                sec.heading.end
            } else {
                line_end_with_eol(src, sec.heading.end)
            };
            let body = head_end.min(sec.end)..sec.end;
            let next = j
                .sections
                .get(n + 1)
                .map_or(src.len(), |s| line_start(src, s.heading.start));
            let tail = sec.end..next.max(sec.end);
            sections.push(Section {
                date: sec.date,
                head: line_start(src, sec.heading.start)..head_end,
                units: units(src, body.clone(), &sec.lines),
                body,
                tail,
            });
        }
        let preamble = 0..j
            .sections
            .first()
            .map_or(src.len(), |s| line_start(src, s.heading.start));
        Some(Side {
            src,
            eol: j.eol,
            preamble,
            sections,
        })
    }

    fn section(&self, date: NaiveDate) -> Option<&Section> {
        self.sections.iter().find(|s| s.date == date)
    }

    fn text(&self, r: &Range<usize>) -> &'a str {
        &self.src[r.clone()]
    }

    /// A whole section: heading, body and tail.
    fn whole(&self, s: &Section) -> &'a str {
        &self.src[s.head.start..s.tail.end]
    }
}

/// The units of a section's body.
fn units(src: &str, body: Range<usize>, items: &[(Range<usize>, journal::DayLine)]) -> Vec<Unit> {
    let mut out = Vec::new();
    let mut at = body.start;
    let push_lines = |from: usize, to: usize, out: &mut Vec<Unit>| {
        let mut p = from;
        while p < to {
            let end = line_end_with_eol(src, p).min(to);
            let line = src[p..end].trim_end_matches(['\n', '\r']);
            if !line.trim().is_empty() {
                out.push(Unit {
                    cut: p..end,
                    key: format!("t:{}", line.trim_end()),
                    time: None,
                    item: false,
                });
            }
            p = end.max(p + 1);
        }
    };
    for (r, line) in items {
        let start = line_start(src, r.start).max(at);
        let end = line_end_with_eol(src, r.end).min(body.end);
        if start >= end {
            continue;
        }
        push_lines(at, start, &mut out);
        out.push(Unit {
            cut: start..end,
            key: format!("i:{}", line.raw),
            time: line.time.clone(),
            item: true,
        });
        at = end;
    }
    push_lines(at, body.end, &mut out);
    out
}

/// Merges three versions of episodes.md (byte-order marks removed).
pub(super) fn merge(base: &str, ours: &str, theirs: &str) -> Merged {
    let (Some(b), Some(o), Some(t)) = (Side::new(base), Side::new(ours), Side::new(theirs)) else {
        return text_merge(base, ours, theirs);
    };
    let eol = o.eol;
    let pre = text::merge(
        b.text(&b.preamble),
        o.text(&o.preamble),
        t.text(&t.preamble),
    );
    let mut regions = pre.conflicts.clone();
    let mut out = pre.text;
    let mut dates: Vec<NaiveDate> = o
        .sections
        .iter()
        .chain(&t.sections)
        .map(|s| s.date)
        .collect();
    dates.sort_unstable();
    dates.dedup();
    // The lines each date should have: their keys, in order.
    let mut expected: Vec<(NaiveDate, Vec<String>)> = Vec::new();
    for date in dates {
        let (bs, os, ts) = (b.section(date), o.section(date), t.section(date));
        let (piece, keys, last_of_side) = match (os, ts) {
            (Some(os), Some(ts)) => {
                let (body, keys) = merge_section(bs, &o, os, &t, ts);
                let tail = text::merge(
                    bs.map_or("", |s| b.text(&s.tail)),
                    o.text(&os.tail),
                    t.text(&ts.tail),
                );
                let mut piece = format!("{}{body}", o.text(&os.head));
                let shift = out.len() + piece.len();
                regions.extend(
                    tail.conflicts
                        .iter()
                        .map(|r| r.start + shift..r.end + shift),
                );
                piece.push_str(&tail.text);
                (piece, keys, is_last(&o, os))
            }
            (Some(one), None) | (None, Some(one)) => {
                let side = if os.is_some() { &o } else { &t };
                // Deleted on the other side, and left as it was on this one.
                if bs.is_some_and(|bs| b.whole(bs) == side.whole(one)) {
                    continue;
                }
                let keys = one
                    .units
                    .iter()
                    .filter(|u| u.item)
                    .map(|u| u.key.clone())
                    .collect();
                (side.whole(one).to_owned(), keys, is_last(side, one))
            }
            (None, None) => continue,
        };
        separate(&mut out, eol);
        out.push_str(&piece);
        if last_of_side && !out.ends_with(&format!("{eol}{eol}")) {
            // This section ended its file; a blank line before the next.
            out.push_str(if out.ends_with(['\n', '\r']) { eol } else { "" });
            out.push_str(eol);
        }
        expected.push((date, keys));
    }
    // The file ends as ours did (as theirs did, when ours is empty).
    let frame = if ours.is_empty() { theirs } else { ours };
    let ending = &frame[frame.trim_end_matches(['\n', '\r']).len()..];
    let trimmed = out.trim_end_matches(['\n', '\r']).len();
    out.truncate(trimmed);
    out.push_str(ending);
    if !checks(&out, &expected) {
        return text_merge(base, ours, theirs);
    }
    Merged {
        conflicts: super::text_conflicts(&out, &regions),
        text: out,
    }
}

/// Whether `s` is the last section of its side.
fn is_last(side: &Side<'_>, s: &Section) -> bool {
    side.sections.last().is_some_and(|l| l.date == s.date)
}

/// A line ending before the next piece when the text so far lacks one.
fn separate(out: &mut String, eol: &str) {
    if !out.is_empty() && !out.ends_with(['\n', '\r']) {
        out.push_str(eol);
    }
}

/// Whether `out` gives each date the lines `expected` (by key).
fn checks(out: &str, expected: &[(NaiveDate, Vec<String>)]) -> bool {
    let j = journal::parse(out);
    j.sections.len() == expected.len()
        && j.sections.iter().zip(expected).all(|(s, (date, keys))| {
            s.date == *date
                && s.lines.len() == keys.len()
                && s.lines
                    .iter()
                    .zip(keys)
                    .all(|((_, l), k)| k.strip_prefix("i:") == Some(l.raw.as_str()))
        })
}

/// Where a unit of the merged log comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum From {
    Ours(usize),
    Theirs(usize),
}

/// A date's body merged: ours' body with ours' removed units cut out and
/// theirs' new units spliced in; and the keys of its list lines in order.
fn merge_section(
    bs: Option<&Section>,
    o: &Side<'_>,
    os: &Section,
    t: &Side<'_>,
    ts: &Section,
) -> (String, Vec<String>) {
    let empty = Vec::new();
    let bu = bs.map_or(&empty, |s| &s.units);
    let (ou, tu) = (&os.units, &ts.units);
    // How many of each unit the result holds: the side that changed the
    // count from the base wins; both changed: the larger.
    fn count(units: &[Unit]) -> HashMap<&str, usize> {
        let mut m: HashMap<&str, usize> = HashMap::new();
        for u in units {
            *m.entry(u.key.as_str()).or_default() += 1;
        }
        m
    }
    let (nb, no, nt) = (count(bu), count(ou), count(tu));
    let want = |k: &str| {
        let (b, o, t) = (
            nb.get(k).copied().unwrap_or(0),
            no.get(k).copied().unwrap_or(0),
            nt.get(k).copied().unwrap_or(0),
        );
        if o == b {
            t
        } else if t == b {
            o
        } else {
            o.max(t)
        }
    };
    let mut remove: HashMap<&str, usize> = HashMap::new();
    let mut insert: HashMap<&str, usize> = HashMap::new();
    for (k, &n) in &no {
        let w = want(k);
        if w < n {
            remove.insert(k, n - w);
        }
    }
    for (k, &n) in &nt {
        let (w, have) = (want(k), no.get(k).copied().unwrap_or(0));
        if w > have {
            insert.insert(k, (w - have).min(n));
        }
    }
    // Align ours' and theirs' units; between aligned ones, interleave.
    let okeys: Vec<&str> = ou.iter().map(|u| u.key.as_str()).collect();
    let tkeys: Vec<&str> = tu.iter().map(|u| u.key.as_str()).collect();
    let mut tokens = Tokens::default();
    let (ot, tt) = (tokens.of(&okeys), tokens.of(&tkeys));
    let hs = hunks(&ot, &tt, tokens.count());
    let mut order: Vec<From> = Vec::with_capacity(ou.len() + tu.len());
    let mut dropped = vec![false; ou.len()];
    let mut i = 0usize;
    let mut gap = |oi: Range<usize>, tj: Range<usize>, order: &mut Vec<From>| {
        let mine: Vec<usize> = oi
            .filter(|&k| match remove.get_mut(ou[k].key.as_str()) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    dropped[k] = true;
                    false
                }
                _ => true,
            })
            .collect();
        let theirs: Vec<usize> = tj
            .filter(|&k| match insert.get_mut(tu[k].key.as_str()) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    true
                }
                _ => false,
            })
            .collect();
        interleave(ou, &mine, tu, &theirs, order);
    };
    for h in &hs {
        let (bs_, be) = (h.before.start as usize, h.before.end as usize);
        let (as_, ae) = (h.after.start as usize, h.after.end as usize);
        while i < bs_ {
            order.push(From::Ours(i));
            i += 1;
        }
        gap(bs_..be, as_..ae, &mut order);
        i = be;
    }
    while i < ou.len() {
        order.push(From::Ours(i));
        i += 1;
    }
    let keys = order
        .iter()
        .filter_map(|f| {
            let u = match *f {
                From::Ours(k) => &ou[k],
                From::Theirs(k) => &tu[k],
            };
            u.item.then(|| u.key.clone())
        })
        .collect();
    (splice_body(o, os, t, tu, &order, &dropped), keys)
}

/// Appends ours' units `mine` and theirs' units `theirs` to `order`: first
/// the units of each without a time before their first timed unit (they
/// follow what came before the gap), then runs of a timed unit and the
/// untimed units after it, merged by time (ties: ours first).
fn interleave(ou: &[Unit], mine: &[usize], tu: &[Unit], theirs: &[usize], order: &mut Vec<From>) {
    let runs = |units: &[Unit], idx: &[usize]| -> (Vec<usize>, Vec<(String, Vec<usize>)>) {
        let mut lead = Vec::new();
        let mut runs: Vec<(String, Vec<usize>)> = Vec::new();
        for &k in idx {
            match (&units[k].time, runs.last_mut()) {
                (Some(time), _) => runs.push((time.clone(), vec![k])),
                (None, Some(run)) => run.1.push(k),
                (None, None) => lead.push(k),
            }
        }
        (lead, runs)
    };
    let (ol, or) = runs(ou, mine);
    let (tl, tr) = runs(tu, theirs);
    order.extend(ol.into_iter().map(From::Ours));
    order.extend(tl.into_iter().map(From::Theirs));
    let (mut a, mut c) = (0, 0);
    while a < or.len() || c < tr.len() {
        let take_ours = match (or.get(a), tr.get(c)) {
            (Some(x), Some(y)) => x.0 <= y.0,
            (Some(_), None) => true,
            _ => false,
        };
        if take_ours {
            order.extend(or[a].1.iter().map(|&k| From::Ours(k)));
            a += 1;
        } else {
            order.extend(tr[c].1.iter().map(|&k| From::Theirs(k)));
            c += 1;
        }
    }
}

/// Ours' body with the dropped units cut out and theirs' units (in
/// `order`) spliced in after the unit of ours before them.
fn splice_body(
    o: &Side<'_>,
    os: &Section,
    t: &Side<'_>,
    tu: &[Unit],
    order: &[From],
    dropped: &[bool],
) -> String {
    let eol = o.eol;
    let body = o.text(&os.body);
    // Theirs' units to insert, by the unit of ours they follow (`None`:
    // before ours' first unit).
    let mut after: Vec<(Option<usize>, usize)> = Vec::new();
    let mut last_ours = None;
    for f in order {
        match *f {
            From::Ours(k) => last_ours = Some(k),
            From::Theirs(k) => after.push((last_ours, k)),
        }
    }
    // A unit of theirs as inserted: its lines in ours' line endings.
    let bytes = |k: usize| -> String {
        let s = t.src[tu[k].cut.clone()].trim_end_matches(['\n', '\r']);
        let mut out: String = text::lines(s)
            .iter()
            .map(|l| {
                let b = l.trim_end_matches(['\n', '\r']);
                if b.len() == l.len() {
                    b.to_owned()
                } else {
                    format!("{b}{eol}")
                }
            })
            .collect();
        out.push_str(eol);
        out
    };
    let mut out = String::with_capacity(body.len() + after.len() * 80);
    if after.is_empty() && !dropped.contains(&true) {
        return body.to_owned();
    }
    let Some(first) = os.units.first() else {
        // No unit of ours: a blank line after the heading, theirs' units,
        // then the blank lines the body had.
        let rest = body.strip_prefix(eol).unwrap_or(body);
        out.push_str(eol);
        for (_, k) in &after {
            out.push_str(&bytes(*k));
        }
        out.push_str(rest);
        return out;
    };
    out.push_str(&o.src[os.body.start..first.cut.start]);
    for (_, k) in after.iter().filter(|(p, _)| p.is_none()) {
        out.push_str(&bytes(*k));
    }
    let mut at = first.cut.start;
    for (n, u) in os.units.iter().enumerate() {
        out.push_str(&o.src[at..u.cut.start]);
        if !dropped[n] {
            out.push_str(&o.src[u.cut.clone()]);
        }
        at = u.cut.end;
        let mut prev_is_item = u.item && !dropped[n];
        for (_, k) in after.iter().filter(|(p, _)| *p == Some(n)) {
            if !out.is_empty() && !out.ends_with(['\n', '\r']) {
                out.push_str(eol);
            }
            // A line that is no list line would continue a list line
            // right above it: a blank line between.
            if !tu[*k].item && prev_is_item {
                out.push_str(eol);
            }
            out.push_str(&bytes(*k));
            prev_is_item = tu[*k].item;
        }
    }
    out.push_str(&o.src[at..os.body.end]);
    out
}
