//! Three-way merge of text, line by line, as git's `merge-file` does it:
//! changes on one side are taken, the same change on both sides is taken
//! once, and different changes to the same or adjacent lines of the base
//! leave standard conflict markers.
//!
//! The two diffs (base to ours, base to theirs) come from imara-diff's
//! histogram algorithm, whose fallback to Myers carries git's and GNU
//! diff's heuristics: its time stays near linear on hostile input (two
//! large files with nothing in common), where a plain Myers diff is
//! quadratic. The merge also says where each line boundary of ours and of
//! theirs ended up in the result, so that the entries of a store, cut out
//! of its text before the merge, can be put back where they stood.

use std::collections::HashMap;
use std::ops::Range;

use imara_diff::{Algorithm, Diff, Hunk};

/// The result of a text merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextMerge {
    /// The merged text.
    pub(crate) text: String,
    /// The regions of `text` between conflict markers (markers included).
    pub(crate) conflicts: Vec<Range<usize>>,
    /// For each line boundary of ours (`0..=lines`), where it is in `text`.
    pub(crate) ours_at: Vec<usize>,
    /// For each line boundary of theirs (`0..=lines`), where it is in `text`.
    pub(crate) theirs_at: Vec<usize>,
    /// For each line boundary of ours, whether its place is certain: the
    /// lines on either side of it are in `text`, with nothing between them
    /// (where the other side inserted lines at it, it could be before or
    /// after them).
    pub(crate) ours_exact: Vec<bool>,
    /// The same for theirs.
    pub(crate) theirs_exact: Vec<bool>,
}

/// The lines of `s`, each with its line ending (`\n`, `\r\n` or a lone
/// `\r`, as CommonMark counts them); the last may have none.
pub(crate) fn lines(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                out.push(&s[start..=i]);
                start = i + 1;
            }
            b'\r' if b.get(i + 1) != Some(&b'\n') => {
                out.push(&s[start..=i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// Interns sequences of keys as token numbers shared by all of them.
#[derive(Default)]
pub(crate) struct Tokens<'a> {
    ids: HashMap<&'a str, u32>,
}

impl<'a> Tokens<'a> {
    /// The tokens of `keys`.
    pub(crate) fn of(&mut self, keys: &[&'a str]) -> Vec<imara_diff::Token> {
        keys.iter()
            .map(|k| {
                let n = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
                imara_diff::Token(*self.ids.entry(k).or_insert(n))
            })
            .collect()
    }

    /// How many distinct keys were seen.
    pub(crate) fn count(&self) -> u32 {
        u32::try_from(self.ids.len()).unwrap_or(u32::MAX)
    }
}

/// The hunks that turn `before` into `after`.
pub(crate) fn hunks(
    before: &[imara_diff::Token],
    after: &[imara_diff::Token],
    count: u32,
) -> Vec<Hunk> {
    let mut diff = Diff::default();
    diff.compute_with(Algorithm::Histogram, before, after, count);
    diff.hunks().collect()
}

/// Merges `ours` and `theirs`, both changed from `base`.
pub(crate) fn merge(base: &str, ours: &str, theirs: &str) -> TextMerge {
    let (b, o, t) = (lines(base), lines(ours), lines(theirs));
    let mut tokens = Tokens::default();
    let (bt, ot, tt) = (tokens.of(&b), tokens.of(&o), tokens.of(&t));
    let ho = hunks(&bt, &ot, tokens.count());
    let ht = hunks(&bt, &tt, tokens.count());
    let eol = if ours.contains("\r\n") { "\r\n" } else { "\n" };
    let mut m = Merger {
        o: &o,
        t: &t,
        eol,
        out: TextMerge {
            text: String::with_capacity(ours.len().max(theirs.len())),
            conflicts: Vec::new(),
            ours_at: vec![0; o.len() + 1],
            theirs_at: vec![0; t.len() + 1],
            ours_exact: Vec::new(),
            theirs_exact: Vec::new(),
        },
        ours_lines: vec![None; o.len()],
        theirs_lines: vec![None; t.len()],
    };
    // `i`: the base line reached; `po`, `pt`: the lines of ours and theirs
    // reached (all three equal up to here).
    let (mut i, mut po, mut pt) = (0usize, 0usize, 0usize);
    let (mut a, mut c) = (0usize, 0usize);
    loop {
        let next_o = ho.get(a).map(|h| h.before.start as usize);
        let next_t = ht.get(c).map(|h| h.before.start as usize);
        let start = match (next_o, next_t) {
            (None, None) => break,
            (Some(x), None) | (None, Some(x)) => x,
            (Some(x), Some(y)) => x.min(y),
        };
        // The lines before the change are the same on all three sides.
        let same = start - i;
        m.equal(po..po + same, pt..pt + same);
        (po, pt) = (po + same, pt + same);
        // The group: every hunk of either side that overlaps or touches it.
        let (first_a, first_c) = (a, c);
        let mut end = start;
        loop {
            let mut grew = false;
            while let Some(h) = ho.get(a).filter(|h| h.before.start as usize <= end) {
                end = end.max(h.before.end as usize);
                a += 1;
                grew = true;
            }
            while let Some(h) = ht.get(c).filter(|h| h.before.start as usize <= end) {
                end = end.max(h.before.end as usize);
                c += 1;
                grew = true;
            }
            if !grew {
                break;
            }
        }
        let side = |hs: &[Hunk], p: usize| match (hs.first(), hs.last()) {
            (Some(f), Some(l)) => {
                (f.after.start as usize).saturating_sub(f.before.start as usize - start)
                    ..l.after.end as usize + end.saturating_sub(l.before.end as usize)
            }
            _ => p..p + (end - start),
        };
        let ro = side(&ho[first_a..a], po);
        let rt = side(&ht[first_c..c], pt);
        match (a > first_a, c > first_c) {
            (true, false) => m.one_side(ro.clone(), rt.clone(), true),
            (false, true) => m.one_side(ro.clone(), rt.clone(), false),
            _ => m.both(ro.clone(), rt.clone()),
        }
        i = end;
        (po, pt) = (ro.end, rt.end);
    }
    let rest = b.len() - i;
    m.equal(po..po + rest, pt..pt + rest);
    m.out.ours_at[o.len()] = m.out.text.len();
    m.out.theirs_at[t.len()] = m.out.text.len();
    let len = m.out.text.len();
    m.out.ours_exact = exact(&m.ours_lines, len);
    m.out.theirs_exact = exact(&m.theirs_lines, len);
    m.out
}

/// Which boundaries of a side are certain, from where its lines landed
/// (`None`: not written as a line of its own) in a text of `len` bytes.
fn exact(lines: &[Option<Range<usize>>], len: usize) -> Vec<bool> {
    (0..=lines.len())
        .map(|k| {
            let left = if k == 0 {
                Some(0)
            } else {
                lines[k - 1].as_ref().map(|r| r.end)
            };
            let right = if k == lines.len() {
                Some(len)
            } else {
                lines[k].as_ref().map(|r| r.start)
            };
            left.is_some() && left == right
        })
        .collect()
}

/// The merge in progress.
struct Merger<'a> {
    o: &'a [&'a str],
    t: &'a [&'a str],
    eol: &'static str,
    out: TextMerge,
    /// Where each line of ours landed in the text, if it did on its own.
    ours_lines: Vec<Option<Range<usize>>>,
    /// The same for theirs.
    theirs_lines: Vec<Option<Range<usize>>>,
}

impl Merger<'_> {
    /// Lines the same on both sides: ours' are written, and every boundary
    /// of both maps to where its line lands.
    fn equal(&mut self, ro: Range<usize>, rt: Range<usize>) {
        for (k, j) in ro.zip(rt) {
            let at = self.out.text.len();
            self.out.ours_at[k] = at;
            self.out.theirs_at[j] = at;
            self.out.text.push_str(self.o[k]);
            let end = self.out.text.len();
            self.ours_lines[k] = Some(at..end);
            self.theirs_lines[j] = Some(at..end);
        }
    }

    /// Lines of one side written as they are; the other side's boundaries
    /// in the region map to its start (the first) or its end (the rest).
    fn write_side(&mut self, ours: bool, range: Range<usize>) {
        let lines = if ours { self.o } else { self.t };
        for k in range {
            let at = self.out.text.len();
            self.out.text.push_str(lines[k]);
            let end = self.out.text.len();
            if ours {
                self.out.ours_at[k] = at;
                self.ours_lines[k] = Some(at..end);
            } else {
                self.out.theirs_at[k] = at;
                self.theirs_lines[k] = Some(at..end);
            }
        }
    }

    /// A region changed on one side only (`ours` says which): that side's
    /// lines are taken.
    fn one_side(&mut self, ro: Range<usize>, rt: Range<usize>, ours: bool) {
        let start = self.out.text.len();
        if ours {
            self.write_side(true, ro);
            self.squash(false, rt, start);
        } else {
            self.write_side(false, rt);
            self.squash(true, ro, start);
        }
    }

    /// Maps the boundaries `range` of a side whose lines were not written:
    /// the first to `start`, the others to the end of what was written.
    fn squash(&mut self, ours: bool, range: Range<usize>, start: usize) {
        let end = self.out.text.len();
        let map = if ours {
            &mut self.out.ours_at
        } else {
            &mut self.out.theirs_at
        };
        for (n, k) in range.enumerate() {
            map[k] = if n == 0 { start } else { end };
        }
    }

    /// A region changed on both sides: the same change once, else the
    /// common lines at its start and end once and the rest between
    /// conflict markers.
    fn both(&mut self, ro: Range<usize>, rt: Range<usize>) {
        let (o, t) = (&self.o[ro.clone()], &self.t[rt.clone()]);
        let head = o.iter().zip(t).take_while(|(x, y)| x == y).count();
        if head == o.len() && head == t.len() {
            self.equal(ro, rt);
            return;
        }
        let tail = o[head..]
            .iter()
            .rev()
            .zip(t[head..].iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        self.equal(ro.start..ro.start + head, rt.start..rt.start + head);
        let mo = ro.start + head..ro.end - tail;
        let mt = rt.start + head..rt.end - tail;
        let start = self.out.text.len();
        self.marker("<<<<<<< ours");
        // Entries cut out of the text never go between the markers: a
        // boundary inside maps before the conflict (the first) or after it.
        let (o_lines, t_lines) = (mo.clone(), mt.clone());
        for k in o_lines {
            self.out.text.push_str(self.o[k]);
        }
        self.marker("=======");
        for k in t_lines {
            self.out.text.push_str(self.t[k]);
        }
        self.marker(">>>>>>> theirs");
        let end = self.out.text.len();
        for (n, k) in mo.enumerate() {
            self.out.ours_at[k] = if n == 0 { start } else { end };
        }
        for (n, k) in mt.enumerate() {
            self.out.theirs_at[k] = if n == 0 { start } else { end };
        }
        self.out.conflicts.push(start..end);
        self.equal(ro.end - tail..ro.end, rt.end - tail..rt.end);
    }

    /// A marker line, on a line of its own.
    fn marker(&mut self, m: &str) {
        if !self.out.text.is_empty() && !self.out.text.ends_with(['\n', '\r']) {
            self.out.text.push_str(self.eol);
        }
        self.out.text.push_str(m);
        self.out.text.push_str(self.eol);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_endings() {
        assert_eq!(lines("a\nb\r\nc\rd"), ["a\n", "b\r\n", "c\r", "d"]);
        assert!(lines("").is_empty());
    }

    #[test]
    fn changes_on_either_side_merge() {
        let base = "a\nb\nc\nd\ne\n";
        let m = merge(base, "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n");
        assert_eq!(m.text, "A\nb\nc\nd\nE\n");
        assert!(m.conflicts.is_empty());
        // The same change on both sides is taken once.
        let m = merge(base, "a\nb\nX\nd\ne\n", "a\nb\nX\nd\ne\n");
        assert_eq!(m.text, "a\nb\nX\nd\ne\n");
        assert!(m.conflicts.is_empty());
    }

    #[test]
    fn different_changes_to_one_line_conflict() {
        let m = merge("a\nb\nc\n", "a\nB1\nc\n", "a\nB2\nc\n");
        assert_eq!(
            m.text,
            "a\n<<<<<<< ours\nB1\n=======\nB2\n>>>>>>> theirs\nc\n"
        );
        assert_eq!(m.conflicts, vec![2..m.text.len() - 2]);
        // Both appending different lines at the end conflict, as in git.
        let m = merge("a\n", "a\nx\n", "a\ny\n");
        assert_eq!(m.conflicts.len(), 1);
        // Without a final line ending, markers still start their lines.
        let m = merge("a", "b", "c");
        assert_eq!(m.text, "<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n");
    }

    #[test]
    fn boundaries_map_into_the_result() {
        let base = "h\n\nend\n";
        let ours = "h\n\nend\n";
        let theirs = "h\nintro\n\nend\n";
        let m = merge(base, ours, theirs);
        assert_eq!(m.text, "h\nintro\n\nend\n");
        // Ours' boundary after `h` (line 1) could be before or after
        // theirs' `intro`: it is not certain. Theirs' are.
        assert_eq!(m.ours_at, vec![0, 8, 9, 13]);
        assert_eq!(m.ours_exact, vec![true, false, true, true]);
        assert_eq!(m.theirs_at, vec![0, 2, 8, 9, 13]);
        assert_eq!(m.theirs_exact, vec![true; 5]);
    }

    #[test]
    fn hostile_sizes_stay_fast() {
        let make = |p: &str| -> String { (0..40_000).map(|i| format!("{p} {i}\n")).collect() };
        let (b, o, t) = (make("base"), make("ours"), make("theirs"));
        let start = std::time::Instant::now();
        let m = merge(&b, &o, &t);
        assert_eq!(m.conflicts.len(), 1);
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    }
}
