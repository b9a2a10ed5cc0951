//! Relevance scoring for recall: which stored facts matter for a query.
//!
//! The built-in [`Bm25Scorer`] is lexical, local and deterministic. Each fact
//! gets BM25 evidence from the query terms it contains, measured in units of
//! "one perfect distinctive match", then mapped to [0, 1] so that a fact
//! sharing a term that is rare among the facts scores at least
//! [`KEEP_THRESHOLD`], while a fact sharing only words common to many facts
//! stays below it — unless it is one of the query's few best matches (about
//! 350 tokens of them) with real evidence, a fifth of the best fact's or
//! more: those score at least 0.5 too, so a recall keeps the best few facts
//! a question shares words with (measured on LoCoMo: docs/RECALL.md).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use unicode_normalization::UnicodeNormalization;

/// The relevance threshold recall keeps: 0.5.
pub const KEEP_THRESHOLD: f64 = 0.5;

/// Weight of a term occurrence that is only a part of a compound identifier
/// (`pin` in `PIN-812`); whole words and whole identifiers weigh 1.
const PART_WEIGHT: f64 = 0.5;
/// Highest relative idf of a common word (about that of a word in half of ten facts).
const COMMON_CAP: f64 = 0.35;
/// Relative idf at which a single matched term (tf 1) scores exactly 0.5.
const HALF_AT: f64 = 0.6;
/// Ordinary (not name-like) query words weigh λ = SHORT_QUERY / (distinct
/// query terms), clamped to [LONG_QUERY_FLOOR, 1]: full weight in short queries.
const SHORT_QUERY: f64 = 20.0;
const LONG_QUERY_FLOOR: f64 = 0.15;
/// How many facts are tokenised between two deadline checks.
pub(super) const CHECK_EVERY: usize = 64;
/// The query's best matches whose texts fit in about this many tokens (four
/// characters a token, plus one a fact) may score 0.5 though no single
/// match is distinctive (see [`half_point`]).
const BEST_MATCH_TOKENS: f64 = 350.0;
/// Least evidence a best match needs to be lifted: more than one common
/// word found once gives (a common word's relative idf is capped at 0.35:
/// 0.35³ ≈ 0.043).
const MIN_EVIDENCE: f64 = 0.05;
/// Least evidence a best match needs, relative to the best fact's.
const RELATIVE_EVIDENCE: f64 = 0.2;

/// Lowercase stop words, checked before and after suffix stripping.
const STOP_WORDS: &str = "\
    a about above after again against all also am an and any are aren as at be because been \
    before being below between both but by can could couldn did didn do does doesn doing don \
    done down during e.g each else etc few for from further get got had has hasn have haven \
    having he hello her here hers hi him his how i i.e if in into is isn it its itself just \
    let like ll me might more most much must my myself need no nor not now of off ok okay on \
    once only onto or other our ours out over own please re really same shall she should \
    shouldn so some such than thank thanks that the their theirs them then there these they \
    thing this those through to too under until up us use used using ve very via want was \
    wasn we were weren what when where which while who whom whose why will with within \
    without would wouldn yes you your yours";

/// General-purpose English words (generic verbs, time words, quantities,
/// vague adjectives and adverbs; no topical nouns). They stay terms, but
/// their relative idf is capped at [`COMMON_CAP`].
const COMMON_WORDS: &str = "\
    able actually add afternoon ago agree almost already always another answer anyone \
    anything appear around ask away back bad begin believe best better big bit bring call \
    carry case certain change check clear close come common consider continue couple course \
    cut day deal decide describe different drop early easy eight end enough even evening ever \
    every everyone everything example expect explain fact fall far fast feel fill final find \
    fine first five follow form four full give good great grow half hand happen hard hear \
    help high hold hope hour hundred idea important include instead keep kind know large last \
    late later learn least leave less level little live long look lot low main major make \
    many matter maybe mean meet mention million minute miss moment month morning move near \
    nearly never new next nice night nine nothing number often old one open order part pass \
    past people perhaps person place plan point possible pretty probably problem put question \
    quick quickly quite rather read ready real reason recent remember rest result right run \
    say second see seem send set seven several short show side simple since single six slow \
    small someone something soon sort special stand start stay step still stop sure take talk \
    tell ten term think third thousand three time today together tomorrow true try turn twice \
    two type understand usual usually wait way week well whole word work write wrong year \
    yesterday yet";

/// Why scoring could not produce scores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScoreError {
    /// The time budget passed before scoring finished.
    TimedOut,
    /// The scorer failed for another reason.
    Failed(String),
}

/// Scores documents against a query. Implementations must return one score in [0, 1] per document, in order.
pub trait Scorer {
    /// Score each of `docs` against `query`; `deadline` is when to give up with `ScoreError::TimedOut`.
    fn score(&self, query: &str, docs: &[&str], deadline: Instant) -> Result<Vec<f64>, ScoreError>;

    /// The scores, and which documents were scored by a fallback (a fused
    /// scorer's facts without a vector, scored lexically). By default the
    /// scores of [`Scorer::score`], none by a fallback.
    fn scored(&self, query: &str, docs: &[&str], deadline: Instant) -> Result<Scored, ScoreError> {
        Ok(Scored {
            scores: self.score(query, docs, deadline)?,
            lexical: Vec::new(),
        })
    }
}

/// What [`Scorer::scored`] gives.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// One score in [0, 1] per document, in order.
    pub scores: Vec<f64>,
    /// The documents (by index) scored lexically only.
    pub lexical: Vec<usize>,
}

/// The built-in local, deterministic lexical scorer (BM25 with light normalisation, mapped to \[0,1\]).
///
/// `score(d) = x / (x + h)` with
/// `x = Σ_{t ∈ Q ∩ d} q(t) · r(t)³ · tf(t,d)·(1 + L) / (tf(t,d) + L)`:
/// `r(t) = idf(n(t)) / idf(1)` with `idf(n) = ln(1 + (N − n + 0.5) / (n + 0.5))` over the `N`
/// facts (`r` capped at 0.35 for common words), `L = k1·(1 − b + b·|d| / avgdl)`, and `q(t)`
/// the query weight: ½ for a part of an identifier, and `λ = clamp(20 / |Q|, 0.15, 1)` for
/// a word that is not name- or identifier-like, so one ordinary word is not enough in a long query.
///
/// `h`, the evidence that scores exactly 0.5, is `0.6³` (one distinctive
/// match) unless the query's best matches reach 0.5 with less: the facts
/// with `x ≥ max(0.05, 0.2 · x_best)`, best first, whose texts fit in
/// about 350 tokens, set `h` to the evidence of the last of them (never
/// below 0.05). So a recall keeps the best few facts that share real
/// evidence with the query even when none of them matches a rare word, and
/// a fact with less than a fifth of the best fact's evidence, or next to
/// none, stays below 0.5. The order of the facts is the order of `x` either way.
#[derive(Debug, Clone)]
pub struct Bm25Scorer {
    /// Term-frequency saturation (BM25 `k1`); must be finite and ≥ 0.
    pub k1: f64,
    /// Length normalisation strength (BM25 `b`); must be in [0, 1].
    pub b: f64,
}

impl Default for Bm25Scorer {
    fn default() -> Self {
        Bm25Scorer { k1: 1.2, b: 0.75 }
    }
}

/// A hasher for the scorer's probe tables (FNV-1a): short keys, probed only
/// (never iterated, so no order can leak into results), and several times
/// cheaper than the default SipHash for words of a few bytes.
#[derive(Clone, Copy)]
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

type FnvBuild = BuildHasherDefault<Fnv>;

/// Frequencies of the query's terms in `text` (parts weigh [`PART_WEIGHT`]),
/// as (index of the term in `query`, frequency) sorted by index, and the
/// text's length.
fn bag(
    text: &str,
    query: &HashMap<&str, usize, FnvBuild>,
    scratch: &mut Scratch,
) -> (Vec<(usize, f64)>, f64) {
    let (mut tf, mut len): (Vec<(usize, f64)>, f64) = (Vec::new(), 0.0);
    scratch.each(text, |term, part, _| {
        let w = if part { PART_WEIGHT } else { 1.0 };
        len += w;
        if let Some(&i) = query.get(term) {
            match tf.iter_mut().find(|(j, _)| *j == i) {
                Some((_, f)) => *f += w,
                None => tf.push((i, w)),
            }
        }
    });
    tf.sort_unstable_by_key(|&(i, _)| i);
    (tf, len)
}

/// One text's terms: each term's frequency (a part of a compound weighs
/// [`PART_WEIGHT`]) and the text's length in the same units.
#[derive(Debug)]
pub(super) struct DocBag {
    tf: HashMap<Box<str>, f64, FnvBuild>,
    len: f64,
}

impl DocBag {
    /// The terms of `text`, added up in the order they occur (as the
    /// scorer adds them).
    pub(super) fn of(text: &str, scratch: &mut Scratch) -> DocBag {
        let mut tf: HashMap<Box<str>, f64, FnvBuild> = HashMap::default();
        let mut len = 0.0;
        scratch.each(text, |term, part, _| {
            let w = if part { PART_WEIGHT } else { 1.0 };
            len += w;
            match tf.get_mut(term) {
                Some(f) => *f += w,
                None => {
                    tf.insert(Box::from(term), w);
                }
            }
        });
        DocBag { tf, len }
    }

    /// The frequencies of the query's `terms` in this text, as (index in
    /// `terms`, frequency) by index, and the text's length.
    pub(super) fn probe(&self, terms: &[&str]) -> (Vec<(usize, f64)>, f64) {
        let tf = terms
            .iter()
            .enumerate()
            .filter_map(|(i, t)| self.tf.get(*t).map(|&f| (i, f)))
            .collect();
        (tf, self.len)
    }
}

/// Where a scoring takes the facts' terms from when they are kept between
/// scorings (`kept::TermCache`).
pub(super) trait Bags {
    /// The terms of each of `docs`, in order (tokenised with `scratch`
    /// where not kept); [`ScoreError::TimedOut`] past `deadline`.
    fn bags(
        &self,
        docs: &[&str],
        deadline: Instant,
        scratch: &mut Scratch,
    ) -> Result<Vec<Arc<DocBag>>, ScoreError>;
}

/// Sharpens a relative idf so that common terms add little (plain products:
/// `powi` is not guaranteed to give the same bits on every platform).
fn cube(r: f64) -> f64 {
    r * r * r
}

fn lucene_idf(n_docs: f64, df: f64) -> f64 {
    (1.0 + (n_docs - df + 0.5) / (df + 0.5)).ln()
}

impl Scorer for Bm25Scorer {
    fn score(&self, query: &str, docs: &[&str], deadline: Instant) -> Result<Vec<f64>, ScoreError> {
        self.score_kept(query, docs, deadline, None)
    }
}

impl Bm25Scorer {
    /// [`Scorer::score`], taking the facts' terms from `kept` where it has
    /// them (and keeping there those it lacked): the same scores, bit for
    /// bit, either way.
    pub(super) fn score_kept(
        &self,
        query: &str,
        docs: &[&str],
        deadline: Instant,
        kept: Option<&dyn Bags>,
    ) -> Result<Vec<f64>, ScoreError> {
        let (k1, b) = (self.k1, self.b);
        if !(k1.is_finite() && k1 >= 0.0 && b.is_finite() && (0.0..=1.0).contains(&b)) {
            return Err(ScoreError::Failed(format!("invalid BM25 k1={k1}, b={b}")));
        }
        // Query side: a set, not a bag. A term weighs its best occurrence:
        // 1, times PART_WEIGHT for a part, times λ for an ordinary word.
        let mut scratch = Scratch::default();
        let query_tokens = scratch.tokens(query);
        let distinct: BTreeSet<&str> = query_tokens.iter().map(|t| t.0.as_str()).collect();
        let lambda = (SHORT_QUERY / distinct.len().max(1) as f64).clamp(LONG_QUERY_FLOOR, 1.0);
        let mut q: BTreeMap<&str, f64> = BTreeMap::new();
        for Token(term, part, strong) in &query_tokens {
            let w = if *part { PART_WEIGHT } else { 1.0 } * if *strong { 1.0 } else { lambda };
            let e = q.entry(term.as_str()).or_insert(0.0);
            *e = e.max(w);
        }
        // The query's terms by index, in term order, so that summing a fact's
        // terms by index adds them in the same order as before, bit for bit.
        let terms: Vec<(&str, f64)> = q.into_iter().collect();
        let probe: HashMap<&str, usize, FnvBuild> = terms
            .iter()
            .enumerate()
            .map(|(i, &(t, _))| (t, i))
            .collect();
        let mut bags = Vec::with_capacity(docs.len());
        match kept {
            None => {
                for (i, doc) in docs.iter().enumerate() {
                    if i % CHECK_EVERY == 0 && Instant::now() > deadline {
                        return Err(ScoreError::TimedOut);
                    }
                    bags.push(bag(doc, &probe, &mut scratch));
                }
            }
            Some(cache) => {
                let words: Vec<&str> = terms.iter().map(|&(t, _)| t).collect();
                for doc in cache.bags(docs, deadline, &mut scratch)? {
                    bags.push(doc.probe(&words));
                }
            }
        }
        let n_docs = docs.len() as f64;
        let avgdl = bags.iter().map(|(_, len)| len).sum::<f64>() / n_docs;
        let mut df = vec![0.0; terms.len()];
        for &(i, _) in bags.iter().flat_map(|(tf, _)| tf) {
            df[i] += 1.0;
        }
        // Per matched term: q(t) · r(t)³, common words capped at COMMON_CAP.
        let idf_one = lucene_idf(n_docs, 1.0);
        let weight: Vec<f64> = terms
            .iter()
            .zip(&df)
            .map(|(&(term, q), &n)| {
                if n == 0.0 {
                    return 0.0;
                }
                let cap = if is_common(term) { COMMON_CAP } else { 1.0 };
                let rel = (lucene_idf(n_docs, n) / idf_one).clamp(0.0, cap);
                q * cube(rel)
            })
            .collect();
        let mut evidence = Vec::with_capacity(docs.len());
        for (i, (tfs, len)) in bags.iter().enumerate() {
            // BM25 tf saturation, relative to a single occurrence in this fact.
            let norm = k1 * (1.0 - b + b * len / avgdl);
            let x: f64 = tfs
                .iter()
                .map(|&(t, tf)| weight[t] * tf * (1.0 + norm) / (tf + norm))
                .sum();
            if !x.is_finite() {
                return Err(ScoreError::Failed(format!("non-finite score for fact {i}")));
            }
            evidence.push(x);
        }
        let h = half_point(&evidence, docs);
        Ok(evidence
            .into_iter()
            .map(|x| (x / (x + h)).clamp(0.0, 1.0))
            .collect())
    }
}

/// The evidence that scores exactly 0.5 for this query (see [`Bm25Scorer`]):
/// `0.6³`, or less when the best matches with `x ≥ max(MIN_EVIDENCE,
/// RELATIVE_EVIDENCE · x_best)` that fit in [`BEST_MATCH_TOKENS`] reach
/// down to less: then the evidence of the last that fits.
fn half_point(evidence: &[f64], docs: &[&str]) -> f64 {
    let distinctive = cube(HALF_AT);
    let best = evidence.iter().copied().fold(0.0, f64::max);
    let floor = MIN_EVIDENCE.max(RELATIVE_EVIDENCE * best);
    let mut matches: Vec<usize> = (0..evidence.len())
        .filter(|&i| evidence[i] >= floor)
        .collect();
    matches.sort_by(|&a, &b| evidence[b].total_cmp(&evidence[a]).then(a.cmp(&b)));
    let (mut used, mut last) = (0.0, distinctive);
    for i in matches {
        let chars = docs.get(i).map_or(0, |d| d.chars().count());
        let t = chars.div_ceil(4) as f64 + 1.0;
        if used + t > BEST_MATCH_TOKENS {
            break;
        }
        used += t;
        last = evidence[i];
    }
    last.clamp(MIN_EVIDENCE, distinctive)
}

/// Estimates how many tokens a text takes in a prompt, so a real tokenizer can be plugged in.
pub trait TokenEstimator {
    /// Estimated tokens of `text`.
    fn tokens(&self, text: &str) -> usize;
}

/// The default estimate: one token per four characters (Unicode scalar values), rounded up, plus one per line.
///
/// Characters include line breaks; lines are counted as [`str::lines`] does,
/// so `""` is 0 tokens and a trailing newline adds no line.
#[derive(Debug, Clone, Copy, Default)]
pub struct CharEstimator;

impl TokenEstimator for CharEstimator {
    fn tokens(&self, text: &str) -> usize {
        text.chars().count().div_ceil(4) + text.lines().count()
    }
}

/// Tokens of `text` after light normalisation (exposed for docs/tests): NFKC, lowercase, split on non-alphanumerics, drop a short English stop-word list, light suffix stripping (plural s/es, ing, ed — keep it simple and documented), drop tokens of 1 char except digits.
///
/// Alphanumeric runs joined by `-`, `_`, `.`, `/`, `:` or `@` (as in
/// `PIN-812`, `api.v2`, `snake_case_name`) are kept whole (lowercased, not
/// stemmed), followed by their parts. Suffix rules, for purely alphabetic
/// words, first match wins: `-ies`/`-ied` → `-y` (stem ≥ 2 chars); `-s` is
/// dropped unless after `s`, `u` or `i` (stem ≥ 3); `-ing` and `-ed` are
/// dropped when the stem has ≥ 3 chars and a vowel (`-ed` not after `e`),
/// undoubling a final consonant other than l, s, z (`running` → `run`) when
/// the stem has ≥ 4 chars; finally a trailing `e` is dropped from words of
/// ≥ 4 chars, so `release`, `releases`, `released`, `releasing` → `releas`.
pub fn terms(text: &str) -> Vec<String> {
    Scratch::default()
        .tokens(text)
        .into_iter()
        .map(|t| t.0)
        .collect()
}

/// Length of the longest stop word ([`STOP_WORDS`]; checked by a unit test).
const STOP_MAX_LEN: usize = 7;

fn is_stop(word: &str) -> bool {
    if word.len() > STOP_MAX_LEN {
        return false;
    }
    static SET: OnceLock<HashSet<&str, FnvBuild>> = OnceLock::new();
    SET.get_or_init(|| STOP_WORDS.split_whitespace().collect())
        .contains(word)
}

/// Whether `term` is a common word (stemmed) or a number of at most two digits.
fn is_common(term: &str) -> bool {
    static STEMS: OnceLock<HashSet<String, FnvBuild>> = OnceLock::new();
    let stems = STEMS.get_or_init(|| {
        COMMON_WORDS
            .split_whitespace()
            .map(|w| {
                let mut s = String::new();
                stem_into(w, &mut s);
                s
            })
            .collect()
    });
    (term.len() <= 2 && term.chars().all(|c| c.is_ascii_digit())) || stems.contains(term)
}

/// One term occurrence: the term; whether it is a part of a compound
/// identifier (`pin` in `PIN-812`); whether it is "strong", i.e. looks like a
/// name or identifier where it was written: a whole compound, a word with a
/// digit or an inner capital (`S3`, `LDAP`, `PagerDuty`), a capitalised word
/// not starting a sentence or line, or a lone word in a `code` span.
struct Token(String, bool, bool);

/// Buffers reused from one text to the next while tokenising, and the term
/// of each lower-cased word seen so far (`None`: no term), since the facts
/// and the query repeat their words.
#[derive(Default)]
pub(super) struct Scratch {
    chars: Vec<char>,
    parts: Vec<(usize, usize)>,
    lower: String,
    term: String,
    memo: HashMap<Box<str>, Option<Box<str>>, FnvBuild>,
}

impl Scratch {
    /// The tokens of `text`, owned.
    fn tokens(&mut self, text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        self.each(text, |term, part, strong| {
            out.push(Token(term.to_owned(), part, strong));
        });
        out
    }

    /// Calls `f(term, part, strong)` for each token of `text`, in order (see [`Token`]).
    fn each(&mut self, text: &str, mut f: impl FnMut(&str, bool, bool)) {
        let Scratch {
            chars,
            parts,
            lower,
            term,
            memo,
        } = self;
        chars.clear();
        if text.is_ascii() {
            chars.extend(text.bytes().map(char::from)); // NFKC leaves ASCII unchanged
        } else {
            chars.extend(text.nfkc());
        }
        let chars = &chars[..];
        let alnum = |i: usize| chars.get(i).is_some_and(|c| c.is_alphanumeric());
        let span = |a: usize, b: usize| chars.get(a..b).unwrap_or(&[]);
        let lower_into = |a: usize, b: usize, out: &mut String| {
            out.clear();
            for &c in span(a, b) {
                if c.is_ascii() {
                    out.push(c.to_ascii_lowercase());
                } else {
                    out.extend(c.to_lowercase());
                }
            }
        };
        let (mut i, mut in_code, mut sentence_start) = (0, false, true);
        while let Some(&c) = chars.get(i) {
            if !c.is_alphanumeric() {
                in_code ^= c == '`';
                sentence_start |= matches!(c, '.' | '!' | '?' | ':' | '\n');
                i += 1;
                continue;
            }
            let start = i;
            parts.clear();
            loop {
                let part_start = i;
                while alnum(i) {
                    i += 1;
                }
                parts.push((part_start, i));
                if chars.get(i).is_some_and(|c| "-_./:@".contains(*c)) && alnum(i + 1) {
                    i += 1;
                } else {
                    break;
                }
            }
            let compound = parts.len() > 1;
            if compound {
                lower_into(start, i, lower);
                if !is_stop(lower) {
                    f(lower, false, true);
                }
            }
            for (k, &(a, b)) in parts.iter().enumerate() {
                let cs = span(a, b);
                let capital =
                    cs.first().is_some_and(|c| c.is_uppercase()) && !(k == 0 && sentence_start);
                let strong = capital
                    || cs.iter().skip(1).any(|c| c.is_uppercase())
                    || cs.iter().any(|c| c.is_numeric())
                    || (in_code && !compound);
                lower_into(a, b, lower);
                let known = match memo.get(lower.as_str()) {
                    Some(known) => known,
                    None => {
                        let t = normalise_word(lower, term).then(|| Box::from(term.as_str()));
                        memo.entry(Box::from(lower.as_str())).or_insert(t)
                    }
                };
                if let Some(t) = known {
                    f(t, compound, strong);
                }
            }
            sentence_start = false;
        }
    }
}

/// Puts the term of `word` (lower case) in `term`: stemmed if alphabetic.
/// False if it is no term (a stop word, or one letter).
fn normalise_word(word: &str, term: &mut String) -> bool {
    if word.chars().all(char::is_alphabetic) {
        stem_into(word, term);
    } else {
        term.clear();
        term.push_str(word);
    }
    let mut cs = term.chars();
    let short = match (cs.next(), cs.next()) {
        (None, _) => true,
        (Some(c), None) => !c.is_numeric(),
        _ => false,
    };
    !short && !is_stop(word) && (term.len() == word.len() || !is_stop(term))
}

/// Suffix rules, first match wins: (suffix, replacement, minimum stem length,
/// letters the stem must not end with, stem needs a vowel and may be undoubled).
const SUFFIXES: [(&str, &str, usize, &[char], bool); 5] = [
    ("ies", "y", 2, &[], false),
    ("ied", "y", 2, &[], false),
    ("s", "", 3, &['s', 'u', 'i'], false),
    ("ing", "", 3, &[], true),
    ("ed", "", 3, &['e'], true),
];

/// Puts the stem of `word` in `s` (see [`terms`] for the rules).
fn stem_into(word: &str, s: &mut String) {
    s.clear();
    s.push_str(word);
    // Every rule below needs one of these last letters.
    if !word.ends_with(['s', 'd', 'g', 'e']) {
        return;
    }
    for (suffix, with, min, not_after, verb) in SUFFIXES {
        let Some(base) = word.strip_suffix(suffix) else {
            continue;
        };
        let vowel = base.contains(['a', 'e', 'i', 'o', 'u', 'y']);
        if base.chars().count() < min || base.ends_with(not_after) || (verb && !vowel) {
            continue;
        }
        s.clear();
        s.push_str(base);
        s.push_str(with);
        // Undouble a final consonant other than l, s, z: `running` → `run`.
        let mut rev = base.chars().rev();
        if let (Some(x), Some(y)) = (rev.next(), rev.next())
            && verb
            && x == y
            && x.is_ascii_alphabetic()
            && !"aeioulsz".contains(x)
            && base.chars().count() >= 4
        {
            s.pop();
        }
        break;
    }
    if s.ends_with('e') && s.chars().count() >= 4 {
        s.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const KEEP: f64 = KEEP_THRESHOLD;
    const FACTS: &[&str] = &[
        "The user prefers tabs over spaces.",
        "The user prefers short answers.",
        "The user prefers squash merges.",
        "PIN-812 is blocked until the payments schema migration lands.",
        "Kafka brokers run 3.6; the upgrade to 3.7 waits for the release freeze.",
    ];

    fn run(query: &str, docs: &[&str]) -> Vec<f64> {
        let far = Instant::now() + Duration::from_secs(3600);
        Bm25Scorer::default()
            .score(query, docs, far)
            .unwrap_or_default()
    }

    #[test]
    fn bounded_deterministic_distinctive_vs_common_and_zero_without_overlap() {
        let query = "What does the user prefer for PIN-812 and the Kafka upgrade?";
        let first = run(query, FACTS);
        assert!(first.len() == FACTS.len() && first.iter().all(|s| (0.0..=1.0).contains(s)));
        let bits = |v: Vec<f64>| v.iter().map(|s| s.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(run(query, FACTS)), bits(first.clone()));
        assert!(first[3] >= KEEP && first[4] >= KEEP, "{first:?}");
        assert!(first[..3].iter().all(|&s| s < KEEP), "{first:?}");
        assert_eq!(run("grafana dashboards", FACTS), vec![0.0; FACTS.len()]);
    }

    #[test]
    fn adding_a_matching_distinctive_term_does_not_lower_the_score() {
        let query = "move the payments schema migration for PIN-812 to the ledger cluster";
        let mut last = run(query, FACTS)[3];
        for extra in [" ledger", " ledger cluster", " ledger cluster moves"] {
            let fact = format!("{}{extra}", FACTS[3]);
            let mut docs = FACTS.to_vec();
            docs[3] = &fact;
            let now = run(query, &docs)[3];
            assert!(now >= last, "{extra}: {now} < {last}");
            last = now;
        }
    }

    #[test]
    fn single_fact_empty_query_and_empty_docs() {
        let one = ["billing-api deploys need the VPN"];
        assert!(run("Deploying billing-api", &one)[0] >= KEEP);
        assert_eq!(run("kafka", &one), vec![0.0]);
        assert!(run("what time is it?", &["Deploys can happen at any time."])[0] < KEEP);
        assert_eq!(run("", FACTS), vec![0.0; FACTS.len()]);
        assert_eq!(run("what is it, and when?", FACTS), vec![0.0; FACTS.len()]);
        assert!(run("kafka", &[]).is_empty());
        assert_eq!(run("kafka", &["", " "]), vec![0.0, 0.0]);
    }

    #[test]
    fn past_deadline_times_out_and_bad_parameters_fail() {
        let now = Instant::now();
        let past = now.checked_sub(Duration::from_secs(1)).unwrap_or(now);
        let scorer = Bm25Scorer::default();
        assert_eq!(
            scorer.score("kafka", FACTS, past),
            Err(ScoreError::TimedOut)
        );
        let bad = Bm25Scorer {
            k1: f64::NAN,
            ..scorer
        };
        let far = now + Duration::from_secs(60);
        assert!(matches!(
            bad.score("kafka", FACTS, far),
            Err(ScoreError::Failed(_))
        ));
    }

    #[test]
    fn one_ordinary_word_is_not_enough_in_a_long_query() {
        let docs = [
            "Marco prefers Slack over email.",
            "Priya owns Kafka.",
            FACTS[0],
            FACTS[1],
        ];
        let short = run("Also email Priya about it.", &docs);
        assert!(short[0] >= KEEP && short[1] >= KEEP, "{short:?}");
        let long: String = (0..150).map(|i| format!("step{i} ")).collect();
        let long = run(&(long + "Also email Priya about it."), &docs);
        assert!(long[0] < KEEP && long[1] >= KEEP, "{long:?}");
    }

    #[test]
    fn the_half_point_is_the_last_best_match_that_fits() {
        let distinctive = cube(HALF_AT);
        let short = ["a short fact"; 3];
        // No evidence, or only a common word's (0.35³): 0.6³ as before.
        assert_eq!(half_point(&[0.0, 0.0, 0.0], &short), distinctive);
        assert_eq!(
            half_point(&[cube(COMMON_CAP), 0.0, 0.0], &short),
            distinctive
        );
        // The best matches down to a fifth of the best's evidence.
        assert_eq!(half_point(&[0.1, 0.06, 0.01], &short), 0.06);
        assert_eq!(half_point(&[0.3, 0.1, 0.05], &short), 0.1);
        // A distinctive match alone: 0.6³, never more.
        assert_eq!(half_point(&[0.5, 0.09, 0.0], &short), distinctive);
        // About 350 tokens of best matches: facts of 200 characters (51
        // tokens), six fit; ties with the last are lifted with it.
        let long = "x".repeat(200);
        let docs = vec![long.as_str(); 20];
        let xs: Vec<f64> = (0..20).map(|i| 0.2 - 0.005 * f64::from(i)).collect();
        assert_eq!(half_point(&xs, &docs), xs[5]);
        let lifted = xs.iter().filter(|&&x| x / (x + xs[5]) >= KEEP).count();
        assert_eq!(lifted, 6);
        assert_eq!(half_point(&[0.1; 20], &docs), 0.1);
    }

    #[test]
    fn the_best_matches_of_a_common_word_reach_half_a_name_alone_does_not() {
        // "camping" is in half the facts: not distinctive (0.6³ of evidence
        // is not reached), yet the question's best matches are kept; a
        // fact matching only the name (in every fact) is not.
        let docs = [
            "Mel went camping with her family at the lake.",
            "Mel went camping in the mountains last year.",
            "Mel plans camping again in the summer.",
            "Mel painted a sunrise over the lake.",
            "Mel runs a charity race for mental health.",
            "Mel camping trip was cancelled by rain.",
            "Mel signed up for a pottery class.",
            "Mel reads books about birds.",
        ];
        let s = run("Where did Mel go camping?", &docs);
        for i in [0, 1, 2, 5] {
            assert!(s[i] >= KEEP, "{i}: {s:?}");
        }
        for i in [3, 4, 6, 7] {
            assert!(s[i] < KEEP, "{i}: {s:?}");
        }
    }

    #[test]
    fn stop_max_len_is_the_longest_stop_word() {
        let longest = STOP_WORDS.split_whitespace().map(str::len).max();
        assert_eq!(longest, Some(STOP_MAX_LEN));
    }

    #[test]
    fn char_estimator_figures() {
        let cases = [
            ("", 0),
            ("abcd", 2),
            ("abcde", 3),
            ("ab\ncd", 4),
            ("a\n", 2),
            ("héllo wörld", 4),
        ];
        for (text, want) in cases {
            assert_eq!(CharEstimator.tokens(text), want, "{text:?}");
        }
    }

    #[test]
    fn terms_on_literals() {
        let cases = [
            (
                "Deploying the PIN-812 fixes to api.v2 in snake_case_name!",
                "deploy pin-812 pin 812 fix api.v2 api v2 snake_case_name snak cas nam",
            ),
            (
                "Running tests; released builds, policies, a 5 x, ＡＢＣ",
                "run test releas build policy 5 abc",
            ),
            (
                "release releases released staging stage Stopped",
                "releas releas releas stag stag stop",
            ),
            (
                "string things status class needs retries tried",
                "string status class retry try",
            ),
            ("the and of it is", ""),
        ];
        for (text, want) in cases {
            assert_eq!(terms(text).join(" "), want, "{text:?}");
        }
    }
}
