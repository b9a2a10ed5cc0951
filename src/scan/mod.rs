//! Threat and secret scanner for text that agents store in memory and that is later injected into
//! an LLM prompt.
//!
//! # How text is examined
//!
//! * **Length**: text longer than [`MAX_SCAN_CHARS`] Unicode scalar values is never scanned
//!   partially; it yields the single finding `text_too_long`.
//! * **Invisible and direction-override characters** are checked on the raw text, before NFKC
//!   (which may drop or alter some of them). ZWJ/ZWNJ are ordinary between two emoji, between two
//!   letters of which at least one is non-ASCII (Persian, Arabic, ...), and right after a
//!   Brahmic-script letter or virama (Hindi, Bengali, Malayalam chillu, Sinhala, ...); anywhere else
//!   (between two ASCII letters, next to spaces or punctuation, at a text edge) they are findings.
//!   U+FEFF is allowed only as the first character. Tag characters are allowed only inside a
//!   well-formed emoji subdivision flag (U+1F3F4, 1–7 tag letters/digits, U+E007F).
//! * **Threats** are matched on views of the NFKC form with invisible/format characters removed,
//!   typographic apostrophes folded to `'`, and quoted titles blanked when the text names a title
//!   (a talk "Ignore All Previous Instructions" is not an instruction; see `views::blank_titles`):
//!   1. *collapsed*: every run of whitespace becomes one space (or one newline if it held a newline);
//!   2. *despaced*: like 1, but first every run of two or more single letters/digits separated by
//!      exactly one space, dot, dash, underscore or tab is joined ("i g n o r e" → "ignore"), so a
//!      double space still separates words ("i g n o r e  a l l" → "ignore all");
//!   3. *folded*: 1 and 2 with letters of other scripts that imitate ASCII letters (Cyrillic `а`,
//!      Greek `ο`, ...) replaced by them, through the Unicode TR39 confusable skeleton;
//!   4. *squashed*: only lower-case letters and digits, used for a few core phrases only
//!      ("ignorepreviousinstructions"), for text spaced out letter by letter with no word gaps; a
//!      match counts only if it starts where a word of the input started;
//!   5. *decoded*: base64 blobs and the rot13 of the text, decoded within bounds (see `decode`),
//!      on which every threat pattern runs for the finding `encoded_payload`.
//!
//!   Threat regexes are ASCII, case-insensitive byte regexes (`(?-u)`): NFKC has already folded
//!   full-width forms, and ASCII word boundaries keep the lazy DFA fast on non-Latin text. The
//!   regexes for instructions in other languages (`lang`) are Unicode-mode regexes without `\b`.
//! * **Secrets** are matched on the raw text, on its NFKC form, and on that form with split keys
//!   joined (`ghp_R8kd 93Lm …`, `'ghp_R8kd' + '93Lm'`). Candidate values containing a
//!   documented placeholder marker (`example`, `xxxx`, `dummy`, `placeholder`, `fake`, `your_`, `your-`,
//!   `changeme`, `redacted`, `<`, `>`) are ignored. Generic `password|secret|token|api_key... = value`
//!   assignments need a value of at least 12 characters with Shannon entropy ≥ 3.0 bits/char, that
//!   mixes letters with digits (or uses at least three of lower/upper/digit/symbol), and that does
//!   not look like a reference (`$VAR`, `${{ }}`, `process.env.X`, a URL, a path or an e-mail);
//!   passwords, `*_KEY` values and URL credentials have their own checks (see `values`).
//!
//! All regexes use bounded fillers; the `regex` crate guarantees linear time in the input.
//!
//! # Start-up cost
//!
//! Compiling the whole table takes tens of milliseconds, more than a one-shot `memdir add` may
//! spend. So each regex is compiled on first use only, and used only when a keyword prefilter on
//! the view passes: every regex lists groups of literals (see `patterns::Re`), and it runs only
//! if, for every group, the view contains one of them after lower-casing (see `Re`). A keyword is
//! a literal that every match of the regex contains, so a prefilter never hides a match; ordinary
//! notes pass no prefilter and compile no regex, and a set of byte pairs per view rejects most
//! keywords without a substring search.
//! `examples/scan_startup.rs` measures the first call and the 64 KiB worst cases.

use std::sync::{LazyLock, OnceLock};

use regex::Regex;
use regex_automata::{MatchKind, meta, util::syntax};

pub use lines::{blocked_lines, blocked_text};

/// Whether `c` is invisible or a format character the scanner strips
/// before matching: zero-width characters, bidirectional controls, tag
/// characters, variation selectors, fillers. A page that shows text for a
/// person to review marks these visibly.
pub fn is_invisible(c: char) -> bool {
    views::is_stripped(c)
}

/// The ASCII letter or digit `c` imitates (Cyrillic `а`, Greek `ο`, ...),
/// from the TR39 confusable skeleton; `None` for ASCII and for a letter
/// that imitates none.
pub fn ascii_lookalike(c: char) -> Option<char> {
    if c.is_ascii() {
        None
    } else {
        views::ascii_lookalike(c)
    }
}

mod decode;
mod keywords;
mod lang;
mod lines;
mod memo;
mod patterns;
pub mod semantic;
#[cfg(test)]
mod tests;
mod values;
mod views;

use patterns::{Kind, PATTERNS, Pattern};
use views::{View, Views, views};

/// A regex with its prefilter.
///
/// `keys` is a conjunction of groups of lower-case keywords: the regex cannot match unless, for
/// every group, the text it runs on contains at least one keyword of that group after
/// lower-casing. Threat views are lower-cased as ASCII when they are ASCII and as Unicode
/// otherwise (see `views::View::threat`); secret views as ASCII, plus `ſ` → `s` and `K` (Kelvin)
/// → `k`, the only non-ASCII characters that Unicode `(?i)` matches with an ASCII letter. Each
/// keyword must be a literal that every match contains, whatever branch it takes; a regex is
/// compiled and run only when its groups pass. Keywords are ASCII except those of Unicode
/// regexes.
///
/// A threat regex is compiled with Unicode off (`(?-u)`, ASCII case folding and word boundaries)
/// unless `unicode` is set (the regexes for other languages in `lang/`).
#[derive(Clone, Copy)]
struct Re {
    src: &'static str,
    keys: &'static [&'static [&'static str]],
    unicode: bool,
}

/// Which family a finding belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Prompt injection, exfiltration, persistence, hidden characters and similar.
    Threat,
    /// A credential or key that should not be stored in memory.
    Secret,
}

/// One match: a stable pattern id (snake_case, e.g. "ignore_instructions", "aws_access_key") and its family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Stable snake_case id of the pattern that matched.
    pub pattern: &'static str,
    /// The family of that pattern.
    pub family: Family,
}

/// Longest text scanned; longer text is one finding by itself (pattern "text_too_long", family Threat), never scanned partially.
pub const MAX_SCAN_CHARS: usize = 65_536;

/// Threat regexes are byte regexes, with Unicode off (`(?-u)`) except those for other languages:
/// the views are NFKC-folded, every English keyword is ASCII, and ASCII word boundaries keep the
/// lazy DFA fast on non-Latin text (a Unicode `\b` makes it give up on non-ASCII input). Secret
/// regexes are ordinary `&str` regexes.
///
/// Each regex is compiled on first use only, and used only when its keyword prefilter (see
/// `patterns::Re`) passes: compiling the whole table costs tens of milliseconds, more than a
/// one-shot `memdir add` process may spend, while ordinary text needs few or none of the regexes.
/// A regex that fails to compile is `None` and skipped (a unit test asserts that none fails).
type Lazy<R> = OnceLock<Option<R>>;

/// Compile slots for one pattern, parallel to its `res` then `lang` (threat), `squashed` and
/// `res` (secret).
struct Slots {
    threat: Vec<Lazy<meta::Regex>>,
    squashed: Vec<Lazy<meta::Regex>>,
    secret: Vec<Lazy<Regex>>,
}

/// Empty compile slots, parallel to `PATTERNS` (allocating them costs microseconds).
static SLOTS: LazyLock<Vec<Slots>> = LazyLock::new(|| {
    fn slots<R>(n: usize) -> Vec<Lazy<R>> {
        (0..n).map(|_| OnceLock::new()).collect()
    }
    PATTERNS
        .iter()
        .map(|p| match p.kind {
            Kind::Secret(_) => Slots {
                threat: Vec::new(),
                squashed: Vec::new(),
                secret: slots(p.res.len()),
            },
            _ => Slots {
                threat: slots(p.res.len() + p.lang.len()),
                squashed: slots(p.squashed.len()),
                secret: Vec::new(),
            },
        })
        .collect()
});

fn threat_regex<'a>(slot: &'a Lazy<meta::Regex>, re: &Re) -> Option<&'a meta::Regex> {
    slot.get_or_init(|| {
        if re.unicode {
            compile_threat(re.src)
        } else {
            compile_threat(&format!("(?-u){}", re.src))
        }
    })
    .as_ref()
}

/// `src` compiled as `regex::bytes::Regex::new` compiles it (the same size
/// limits, match kind and syntax), except that the regex crate's own literal
/// search is off when one of the pattern's prefix literals is a lone blank
/// ([`blank_prefix`]).
fn compile_threat(src: &str) -> Option<meta::Regex> {
    let config = meta::Config::new()
        .nfa_size_limit(Some(10 * (1 << 20)))
        .hybrid_cache_capacity(2 * (1 << 20))
        .match_kind(MatchKind::LeftmostFirst)
        .utf8_empty(false)
        .auto_prefilter(!blank_prefix(src));
    meta::Builder::new()
        .configure(config)
        .syntax(syntax::Config::new().utf8(false))
        .build(src)
        .ok()
}

/// Whether a match of `src` may begin with a lone blank as far as its literals
/// tell (`^[ \t]*#{1,6}…`, whose prefix literals are a blank, a tab or `#`).
/// A literal search for such a pattern stops at every word of the text, then
/// starts the automaton there: ten times slower than the automaton alone
/// over the whole text.
fn blank_prefix(src: &str) -> bool {
    use regex_syntax::hir::literal::Extractor;
    let Ok(hir) = regex_syntax::ParserBuilder::new()
        .utf8(false)
        .build()
        .parse(src)
    else {
        return false;
    };
    Extractor::new().extract(&hir).literals().is_some_and(|ls| {
        ls.iter()
            .any(|l| matches!(l.as_bytes(), [b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c]))
    })
}

fn secret_regex<'a>(slot: &'a Lazy<Regex>, re: &Re) -> Option<&'a Regex> {
    slot.get_or_init(|| Regex::new(re.src).ok()).as_ref()
}

/// A threat pattern's regexes (`res`, then `lang`) with their compile slots.
fn threat_res<'a>(
    p: &'a Pattern,
    slots: &'a Slots,
) -> impl Iterator<Item = (&'a Re, &'a Lazy<meta::Regex>)> {
    p.res.iter().chain(p.lang).zip(&slots.threat)
}

/// Whether a regex of the threat pattern `p` matches one of `views`.
fn threat_match(p: &Pattern, slots: &Slots, views: &[View], filter: bool) -> bool {
    threat_res(p, slots).any(|(re, slot)| {
        views.iter().any(|view| {
            view.admits(re, filter)
                && threat_regex(slot, re).is_some_and(|r| r.is_match(view.text.as_bytes()))
        })
    })
}

/// Every finding in `text`, each pattern id at most once, in a deterministic order (threats first, then secrets, in table order).
///
/// The verdicts of recent short texts are kept in memory by their whole
/// text (`memo`): a process that guards the same facts again scans them once.
pub fn scan(text: &str) -> Vec<Finding> {
    if text.len() <= memo::MAX_TEXT_BYTES
        && let Some(kept) = memo::get(text)
    {
        return kept;
    }
    let found = scan_with(text, true);
    memo::put(text, &found);
    found
}

/// [`scan`], with the keyword prefilters on or off (off only in tests and the fuzz targets,
/// which check that both agree).
pub(crate) fn scan_with(text: &str, filter: bool) -> Vec<Finding> {
    if text.len() > MAX_SCAN_CHARS && text.chars().nth(MAX_SCAN_CHARS).is_some() {
        return vec![Finding {
            pattern: "text_too_long",
            family: Family::Threat,
        }];
    }
    let v: Views = views(text);
    let mut out: Vec<Finding> = Vec::new();
    for (p, slots) in PATTERNS.iter().zip(SLOTS.iter()) {
        let hit = match p.kind {
            Kind::Invisible => has_invisible(text),
            Kind::Bidi => text
                .chars()
                .any(|c| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')),
            Kind::Threat => {
                threat_match(p, slots, &v.threat, filter)
                    || p.squashed.iter().zip(&slots.squashed).any(|(re, slot)| {
                        v.squashed_view.admits(re, filter)
                            && threat_regex(slot, re).is_some_and(|r| v.squashed.matches(r))
                    })
            }
            Kind::Encoded => {
                threat_match(p, slots, &v.threat, filter)
                    || (!v.decoded.is_empty()
                        && PATTERNS.iter().zip(SLOTS.iter()).any(|(q, qs)| {
                            matches!(q.kind, Kind::Threat)
                                && !out.iter().any(|f| f.pattern == q.id)
                                && threat_match(q, qs, &v.decoded, filter)
                        }))
            }
            Kind::Secret(check) => p.res.iter().zip(&slots.secret).any(|(re, slot)| {
                v.secret.iter().any(|view| {
                    view.admits(re, filter)
                        && secret_regex(slot, re).is_some_and(|r| {
                            r.captures_iter(&view.text).any(|caps| {
                                let value = caps
                                    .name("v")
                                    .or_else(|| caps.get(0))
                                    .map_or("", |m| m.as_str());
                                !values::is_placeholder(value) && check.is_none_or(|f| f(value))
                            })
                        })
                })
            }),
        };
        if hit {
            out.push(Finding {
                pattern: p.id,
                family: p.family(),
            });
        }
    }
    out
}

/// Bump when scanning code changes in a way the pattern table does not show
/// (normalisation, invisible-character rules, value checks), so that cached
/// verdicts ([`fingerprint`]) are not reused across the change.
const SCANNER_REVISION: u32 = 3;

static FINGERPRINT: LazyLock<String> = LazyLock::new(|| {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(format!("rev {SCANNER_REVISION} max {MAX_SCAN_CHARS}\n"));
    for p in PATTERNS {
        h.update(p.id);
        h.update(match p.kind {
            Kind::Threat => "threat",
            Kind::Encoded => "encoded",
            Kind::Invisible => "invisible",
            Kind::Bidi => "bidi",
            Kind::Secret(_) => "secret",
        });
        for r in p.res.iter().chain(p.lang).chain(p.squashed) {
            h.update(if r.unicode { b"\0u" } else { b"\0a" });
            h.update(r.src);
            for group in r.keys {
                h.update(b"\x01");
                h.update(group.join("\x02"));
            }
        }
        h.update(b"\n");
    }
    hex::encode(h.finalize())
});

/// A fingerprint of the scanner (its revision and its whole pattern table):
/// a verdict cached under one fingerprint is valid only for that fingerprint.
pub fn fingerprint() -> &'static str {
    &FINGERPRINT
}

/// The finding a pattern id names (`text_too_long` and the semantic layer's
/// `semantic_injection` included), if any.
pub fn finding(pattern: &str) -> Option<Finding> {
    if pattern == "text_too_long" {
        return Some(Finding {
            pattern: "text_too_long",
            family: Family::Threat,
        });
    }
    if pattern == semantic::PATTERN {
        return Some(semantic::finding());
    }
    PATTERNS.iter().find(|p| p.id == pattern).map(|p| Finding {
        pattern: p.id,
        family: p.family(),
    })
}

/// Convenience: the distinct pattern ids of `findings`, joined with ", ".
pub fn pattern_list(findings: &[Finding]) -> String {
    distinct(findings.iter().map(|f| f.pattern)).join(", ")
}

/// `ids` without repeats, in their first order.
fn distinct<'a>(ids: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for id in ids {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

/// The placeholder that stands for a flagged entry wherever its text would
/// otherwise reach a prompt or an answer: `[BLOCKED: <file> entry <id>
/// matched <pattern ids>; remove or edit it]`.
pub fn blocked_placeholder(scope: crate::model::Scope, id: &str, findings: &[Finding]) -> String {
    blocked(&format!("{} entry {id}", scope.file_name()), findings)
}

/// The placeholder that stands for any flagged text: `[BLOCKED: <what>
/// matched <pattern ids>; remove or edit it]`, `what` naming where the
/// text is (`episodes.md line of 2026-12-01 09:30`).
pub fn blocked(what: &str, findings: &[Finding]) -> String {
    let ids: Vec<&str> = findings.iter().map(|f| f.pattern).collect();
    blocked_ids(what, &ids)
}

/// [`blocked`] for findings kept as their pattern ids (a stored verdict).
pub fn blocked_ids(what: &str, ids: &[&str]) -> String {
    format!(
        "[BLOCKED: {what} matched {}; remove or edit it]",
        distinct(ids.iter().copied()).join(", ")
    )
}

/// `text` folded for comparing what it reads as: NFKC, invisible characters
/// removed, letters of other scripts that imitate ASCII letters folded to
/// them, lower-cased, and whitespace runs collapsed to one space (outer
/// whitespace trimmed). `＃＃ ＵＳＥＲ.md` and `## user.md` fold alike.
pub fn fold(text: &str) -> String {
    let base = views::threat_base(&views::to_nfkc(text));
    let folded = views::fold_confusables(&base).unwrap_or(base);
    crate::model::fold_whitespace(&folded.to_lowercase())
}

/// Invisible characters on the raw text (see the module docs for the ZWJ/ZWNJ/tag rules).
fn has_invisible(text: &str) -> bool {
    let cs: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c == '\u{1F3F4}' {
            let mut j = i + 1;
            while j < cs.len()
                && j - i <= 7
                && matches!(cs[j], '\u{E0030}'..='\u{E0039}' | '\u{E0061}'..='\u{E007A}')
            {
                j += 1;
            }
            if j > i + 1 && cs.get(j) == Some(&'\u{E007F}') {
                i = j + 1;
                continue;
            }
        }
        let bad = match c {
            '\u{200B}'
            | '\u{2060}'..='\u{2064}'
            | '\u{206A}'..='\u{206F}'
            | '\u{180E}'
            | '\u{E0000}'..='\u{E007F}' => true,
            '\u{FEFF}' => i > 0,
            '\u{200C}' | '\u{200D}' => {
                !joiner_ok(i.checked_sub(1).and_then(|k| cs.get(k)), cs.get(i + 1))
            }
            _ => false,
        };
        if bad {
            return true;
        }
        i += 1;
    }
    false
}

fn joiner_ok(prev: Option<&char>, next: Option<&char>) -> bool {
    let (Some(&a), Some(&b)) = (prev, next) else {
        return false;
    };
    let brahmic = matches!(a, '\u{0900}'..='\u{0DFF}' | '\u{1000}'..='\u{109F}' | '\u{1780}'..='\u{17FF}' | '\u{1B00}'..='\u{1BFF}' | '\u{A8E0}'..='\u{A8FF}');
    brahmic
        || (is_emoji_part(a) && is_emoji_part(b))
        || (is_letterish(a) && is_letterish(b) && !(a.is_ascii() && b.is_ascii()))
}

fn is_emoji_part(c: char) -> bool {
    matches!(c, '\u{1F000}'..='\u{1FAFF}' | '\u{2300}'..='\u{23FF}' | '\u{2600}'..='\u{27BF}' | '\u{2B00}'..='\u{2BFF}' | '\u{FE0F}' | '\u{20E3}')
}

/// Letters plus the combining marks and viramas of scripts that use ZWJ/ZWNJ.
fn is_letterish(c: char) -> bool {
    c.is_alphabetic()
        || matches!(c, '\u{0300}'..='\u{036F}' | '\u{0483}'..='\u{0489}' | '\u{0591}'..='\u{08FF}' | '\u{0900}'..='\u{0DFF}'
            | '\u{0E00}'..='\u{109F}' | '\u{1780}'..='\u{17FF}' | '\u{1A00}'..='\u{1CFF}' | '\u{A8E0}'..='\u{A8FF}')
}
