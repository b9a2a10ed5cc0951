//! The texts the regexes run on ("views"), built once per scan: normalisation, letter-spacing,
//! confusable folding, quoted titles, decoded payloads and split keys. Everything here is linear
//! in the input, and every decoding is bounded (see `decode`).

use std::sync::LazyLock;

use regex_automata::{Input, meta};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

use super::Re;
use super::decode;
use super::keywords::Keywords;

/// A view of the text, with the lower-cased copy that its prefilters look at.
pub(super) struct View {
    pub text: String,
    pub folded: String,
    /// Which keywords `folded` holds, or its byte pairs to answer that.
    keywords: Keywords,
}

impl View {
    /// A threat view. ASCII text is lower-cased as ASCII (what the `(?-u)(?i)` regexes need);
    /// other text is lower-cased as Unicode, which the Unicode-mode regexes for other languages
    /// need (and which only adds letters for the ASCII regexes: a prefilter may admit more, never
    /// less). The old Cyrillic letter forms U+1C80–U+1C88, which `(?i)` matches with в, д, о,
    /// с, т, ъ, ѣ and ꙋ, are folded to them.
    pub fn threat(text: String) -> Self {
        let folded = if text.is_ascii() {
            text.to_ascii_lowercase()
        } else {
            text.to_lowercase()
                .chars()
                .map(|c| match c {
                    '\u{1C80}' => 'в',
                    '\u{1C81}' => 'д',
                    '\u{1C82}' => 'о',
                    '\u{1C83}' => 'с',
                    '\u{1C84}' | '\u{1C85}' => 'т',
                    '\u{1C86}' => 'ъ',
                    '\u{1C87}' => 'ѣ',
                    '\u{1C88}' => 'ꙋ',
                    c => c,
                })
                .collect()
        };
        View::new(text, folded)
    }

    fn new(text: String, folded: String) -> Self {
        let keywords = Keywords::of(&folded);
        View {
            text,
            folded,
            keywords,
        }
    }

    /// Whether `keyword` (lower case) is in the view's lower-cased text.
    pub fn has(&self, keyword: &str) -> bool {
        self.keywords.has(&self.folded, keyword)
    }

    /// A secret view: ASCII lower-casing plus `ſ` → `s` and Kelvin `K` → `k`, the only
    /// non-ASCII characters that a Unicode `(?i)` regex matches with an ASCII letter.
    pub fn secret(text: String) -> Self {
        let mut folded = String::with_capacity(text.len());
        folded.extend(text.chars().map(|c| match c {
            '\u{017F}' => 's',
            '\u{212A}' => 'k',
            c => c.to_ascii_lowercase(),
        }));
        View::new(text, folded)
    }

    /// Whether `re` can match this view: every keyword group has a keyword present (always true
    /// when prefilters are off).
    pub fn admits(&self, re: &Re, filter: bool) -> bool {
        !filter
            || re
                .keys
                .iter()
                .all(|group| group.iter().any(|k| self.has(k)))
    }
}

/// Everything the regexes run on.
pub(super) struct Views {
    /// Collapsed; despaced when that changed anything; and both again with confusable letters
    /// of other scripts folded to the ASCII letters they imitate, when that changed anything.
    pub threat: Vec<View>,
    pub squashed: Squashed,
    /// `squashed.text` as a view, for its prefilters.
    pub squashed_view: View,
    /// The rot13 of the text when it shows a word of [`decode::ROT13_WORDS`], and the payloads
    /// decoded from base64 blobs (see `decode`).
    pub decoded: Vec<View>,
    /// The raw text, its NFKC form when that differs, and that form with split keys joined when
    /// that differs.
    pub secret: Vec<View>,
}

pub(super) fn views(text: &str) -> Views {
    let nfkc = to_nfkc(text);
    let stripped = threat_base(&nfkc);
    let base = blank_titles(&stripped).unwrap_or(stripped);
    let base = blank_tag_mentions(&base).unwrap_or(base);
    let base = blank_installers(&base).unwrap_or(base);
    let mut threat = vec![View::threat(collapse(&base))];
    let despaced = despace(&base);
    if let Some(d) = &despaced {
        threat.push(View::threat(collapse(d)));
    }
    // Folding maps a letter to a letter, so folding the despaced text is despacing the folded.
    let folded = fold_confusables(&base);
    if let Some(f) = &folded {
        threat.push(View::threat(collapse(f)));
        if let Some(d) = despaced.as_deref().and_then(fold_confusables) {
            threat.push(View::threat(collapse(&d)));
        }
    }
    let squashed = squash(folded.as_deref().unwrap_or(&base));
    let squashed_view = View::threat(squashed.text.clone());
    // The rot13 view is kept only where it shows a word of `ROT13_WORDS`; in ASCII text (where
    // rot13, lower-casing and collapsing commute) that needs a rotated word in the text.
    let rot13_wanted = !base.is_ascii()
        || decode::ROT13_ROTATED
            .iter()
            .any(|w| threat.first().is_some_and(|v| v.has(w)));
    let (rot13, blobs) = decode::decodings(&base, rot13_wanted);
    let rot13 = rot13
        .map(|r| View::threat(collapse(&r)))
        .filter(|v| decode::ROT13_WORDS.iter().any(|w| v.has(w)));
    let decoded = rot13
        .into_iter()
        .chain(
            blobs
                .iter()
                .map(|d| View::threat(collapse(&threat_base(&to_nfkc(d))))),
        )
        .collect();
    let mut secret = vec![View::secret(text.to_owned())];
    let joined = join_split(&nfkc);
    if nfkc != text {
        secret.push(View::secret(nfkc));
    }
    if let Some(j) = joined {
        secret.push(View::secret(j));
    }
    Views {
        threat,
        squashed,
        squashed_view,
        decoded,
        secret,
    }
}

/// The NFKC form; text the quick check finds normalised already (all ASCII text, most other
/// text) is its own NFKC form.
pub(super) fn to_nfkc(text: &str) -> String {
    if is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        text.to_owned()
    } else {
        text.nfkc().collect()
    }
}

/// The NFKC text without invisible/format characters and with typographic apostrophes folded to
/// `'`: what the threat views are built from.
pub(super) fn threat_base(nfkc: &str) -> String {
    if nfkc.is_ascii() {
        // Nothing to strip or map below U+0080.
        return nfkc.to_owned();
    }
    nfkc.chars()
        .filter(|&c| !is_stripped(c))
        .map(|c| {
            if matches!(c, '\u{2018}' | '\u{2019}' | '\u{02BC}') {
                '\''
            } else {
                c
            }
        })
        .collect()
}

/// Invisible and format characters removed before threat matching.
pub(super) fn is_stripped(c: char) -> bool {
    matches!(c, '\u{00AD}' | '\u{034F}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}' | '\u{180B}'..='\u{180F}'
        | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}'
        | '\u{FEFF}' | '\u{FFA0}' | '\u{E0000}'..='\u{E007F}' | '\u{E0100}'..='\u{E01EF}')
}

/// Whitespace runs become one space, or one newline if the run held a newline.
pub(super) fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending: Option<char> = None;
    for c in s.chars() {
        if c.is_whitespace() {
            if c == '\n' || pending.is_none() {
                pending = Some(if c == '\n' { '\n' } else { ' ' });
            }
        } else {
            if let Some(p) = pending.take() {
                out.push(p);
            }
            out.push(c);
        }
    }
    if let Some(p) = pending {
        out.push(p);
    }
    out
}

/// Lower-case letters and digits only, remembering which byte offsets start a word of the input.
pub(super) struct Squashed {
    pub text: String,
    word_start: Vec<bool>,
}

pub(super) fn squash(s: &str) -> Squashed {
    let (mut text, mut word_start, mut prev_alnum) = (
        String::with_capacity(s.len()),
        Vec::with_capacity(s.len()),
        false,
    );
    for c in s.chars() {
        let alnum = c.is_alphanumeric();
        if alnum {
            word_start.resize(text.len() + 1, false);
            word_start[text.len()] = !prev_alnum;
            if c.is_ascii() {
                text.push(c.to_ascii_lowercase());
            } else {
                text.extend(c.to_lowercase());
            }
        }
        prev_alnum = alnum;
    }
    Squashed { text, word_start }
}

impl Squashed {
    /// A match of `re` that starts where a word of the input started ("signore..." does not count
    /// as "ignore..."). Each retry starts after the previous match start, so this stays linear in
    /// practice: the squashed regexes are short literal phrases.
    pub fn matches(&self, re: &meta::Regex) -> bool {
        let hay = self.text.as_bytes();
        let mut at = 0;
        while at <= hay.len()
            && let Some(m) = re.find(Input::new(hay).range(at..))
        {
            if self.word_start.get(m.start()) == Some(&true) {
                return true;
            }
            at = m.start() + 1;
        }
        false
    }
}

/// Joins runs of ≥ 3 single letters/digits separated by exactly one spacer; `None` if none found.
pub(super) fn despace(s: &str) -> Option<String> {
    let cs: Vec<char> = s.chars().collect();
    let alnum: Vec<bool> = cs.iter().map(|c| c.is_alphanumeric()).collect();
    let single = |i: usize| {
        alnum.get(i) == Some(&true) && (i == 0 || !alnum[i - 1]) && alnum.get(i + 1) != Some(&true)
    };
    let spacer = |i: usize| matches!(cs.get(i), Some(' ' | '.' | '-' | '_' | '\t'));
    let (mut out, mut i, mut changed) = (String::with_capacity(s.len()), 0, false);
    while i < cs.len() {
        let mut end = i;
        while single(end) && spacer(end + 1) && single(end + 2) {
            end += 2;
        }
        if single(i) && end >= i + 2 {
            out.extend((i..=end).step_by(2).map(|k| cs[k]));
            changed = true;
            i = end + 1;
        } else {
            out.push(cs[i]);
            i += 1;
        }
    }
    changed.then_some(out)
}

// `LOOKALIKE_CHARS` and `LOOKALIKE_ASCII`, generated by `build/lookalikes.rs` from the TR39
// confusable skeleton: plain integers, so the table needs no relocation at start-up.
include!(concat!(env!("OUT_DIR"), "/lookalikes.rs"));

/// The ASCII letter or digit that `c` (not ASCII) imitates, if any: the one whose TR39
/// skeleton equals the skeleton of `c`, of the same case where several share it (`І` → `I`,
/// `ӏ` → `l`, `і` → `i`, `α` → `a`, `ο` → `o`).
pub(super) fn ascii_lookalike(c: char) -> Option<char> {
    LOOKALIKE_CHARS
        .binary_search(&(c as u32))
        .ok()
        .and_then(|i| LOOKALIKE_ASCII.get(i))
        .map(|&a| char::from(a))
}

/// `s` with every letter of another script that imitates an ASCII letter or digit (Cyrillic
/// `а`, Greek `ο`, Armenian `օ`, Cherokee, Latin small capitals, ...) replaced by that letter;
/// `None` if there is none. NFKC does not fold these; the TR39 confusable skeleton does.
pub(super) fn fold_confusables(s: &str) -> Option<String> {
    if s.is_ascii() {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut changed = false;
    for c in s.chars() {
        let m = if c.is_ascii() {
            None
        } else {
            ascii_lookalike(c)
        };
        match m {
            Some(a) => {
                out.push(a);
                changed = true;
            }
            None => out.push(c),
        }
    }
    changed.then_some(out)
}

/// Words that say a quoted phrase is a title or a quotation (see [`blank_titles`]).
const TITLE_CONTEXT: &[&str] = &[
    "talk",
    "book",
    "novel",
    "title",
    "keynote",
    "blog",
    "article",
    "paper",
    "essay",
    "episode",
    "podcast",
    "chapter",
    "slide",
    "deck",
    "film",
    "movie",
    "song",
    "album",
    "series",
    "quote",
    "reading",
    "cite",
    "author",
    "conference",
    "lecture",
    "video",
    "course",
    "poem",
    "wiki page",
    "tv show",
    "line from",
];

/// At most this many quote marks are tried as the start of a title, so the work stays linear.
const MAX_TITLE_OPENERS: usize = 32;
/// A title is at most this many characters long.
const MAX_TITLE_CHARS: usize = 150;

/// `s` with quoted titles replaced by `"title"`, when the text names a title or quotation (a
/// talk, a book, a song, a quote, ...): a book called "Ignore All Previous Instructions" is
/// not an instruction. A quoted span (`"…"`, `“…”`, `'…'`, `*…*`, `_…_`, `«…»`, on one line, at
/// most 150 characters) counts as a title when its main part (up to a `:`, `?`, `!` or dash)
/// has two or more words, each word of four or more letters capitalised, and the span is not
/// all capitals. `None` when nothing was replaced.
pub(super) fn blank_titles(s: &str) -> Option<String> {
    const OPENERS: &[char] = &['"', '\'', '*', '_', '\u{201C}', '\u{AB}', '\u{201E}'];
    if !s.contains(OPENERS) {
        return None;
    }
    let lower = s.to_lowercase();
    if !TITLE_CONTEXT.iter().any(|w| lower.contains(w)) {
        return None;
    }
    let cs: Vec<(usize, char)> = s.char_indices().collect();
    let (mut out, mut last, mut tried, mut i) = (String::new(), 0, 0, 0);
    while i < cs.len() && tried < MAX_TITLE_OPENERS {
        let (at, c) = cs[i];
        let close = match c {
            '\u{201C}' | '\u{201E}' => '\u{201D}',
            '\u{AB}' => '\u{BB}',
            c if OPENERS.contains(&c) => c,
            _ => {
                i += 1;
                continue;
            }
        };
        if i > 0 && cs[i - 1].1.is_alphanumeric() {
            i += 1;
            continue;
        }
        tried += 1;
        let closer = (i + 2..cs.len().min(i + 2 + MAX_TITLE_CHARS))
            .take_while(|&j| cs[j].1 != '\n')
            .find(|&j| {
                (cs[j].1 == close || (close == '\u{201D}' && cs[j].1 == '\u{201C}'))
                    && !cs[j - 1].1.is_whitespace()
                    && !cs.get(j + 1).is_some_and(|&(_, n)| n.is_alphanumeric())
            });
        match closer {
            Some(j) => {
                let inner = &s[cs[i + 1].0..cs[j].0];
                if is_title(inner) {
                    out.push_str(&s[last..at]);
                    out.push_str("\"title\"");
                    last = cs[j].0 + cs[j].1.len_utf8();
                }
                i = j + 1;
            }
            None => i += 1,
        }
    }
    if last == 0 {
        return None;
    }
    out.push_str(&s[last..]);
    Some(out)
}

/// See [`blank_titles`].
fn is_title(t: &str) -> bool {
    let main = t
        .split([':', '?', '!', '\u{2014}', '\u{2013}'])
        .next()
        .unwrap_or(t)
        .split(" - ")
        .next()
        .unwrap_or(t);
    let words: Vec<&str> = main
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    words.len() >= 2
        && words
            .iter()
            .all(|w| w.chars().count() < 4 || w.chars().next().is_some_and(|c| !c.is_lowercase()))
        && t.chars().any(char::is_lowercase)
}

/// Prefixes of keys whose split form (`ghp_R8kd 93Lm …`) is joined for the secret regexes.
const KEY_HEADS: &[&str] = &[
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "sk-",
    "sk_",
    "rk_",
    "pk_",
    "xox",
    "AKIA",
    "ASIA",
    "AIza",
    "ozk_",
    "rzp_",
    "glpat-",
];
/// Heads of keys that never contain a dash, so dashes inside them are split marks too.
const DASHLESS_HEADS: &[&str] = &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "AKIA", "ASIA"];

/// `s` with split keys joined, for the secret regexes; `None` if nothing was joined:
/// * quoted pieces concatenated with `+` (`'ghp_R8kd' + '93Lm'`) are joined;
/// * a token that starts with a key prefix (`ghp_`, `sk-`, `AKIA`, `xoxb-`, ...) is joined with
///   the chunks that follow it, each separated by one space: 2–12 letters and digits, with a
///   digit or a capital or as long as the chunk before (so prose after a prefix is not joined);
/// * dashes inside a GitHub token or an AWS key id (which have none) are dropped.
pub(super) fn join_split(s: &str) -> Option<String> {
    let concat = join_concatenations(s);
    let t = concat.as_deref().unwrap_or(s);
    if !KEY_HEADS.iter().any(|h| t.contains(h)) {
        return concat;
    }
    let tokens: Vec<&str> = t.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    let mut changed = concat.is_some();
    let mut i = 0;
    while i < tokens.len() {
        let tok = tokens[i];
        let body = tok.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
        let head = KEY_HEADS.iter().find(|h| body.starts_with(**h));
        let Some(head) = head.filter(|_| {
            body.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        }) else {
            out.push(tok.to_owned());
            i += 1;
            continue;
        };
        let mut joined = tok.to_owned();
        if DASHLESS_HEADS.contains(head) && body.contains('-') {
            joined = joined.replace('-', "");
            changed = true;
        }
        let mut prev_len = 0;
        while let Some(next) = tokens.get(i + 1) {
            let chunk = next.trim_end_matches(['.', ',', ';', ')', '\'', '"', '`']);
            let len = chunk.len();
            let ok = (2..=12).contains(&len)
                && chunk.bytes().all(|b| b.is_ascii_alphanumeric())
                && (chunk
                    .bytes()
                    .any(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
                    || len == prev_len);
            if !ok {
                break;
            }
            joined.push_str(next);
            prev_len = len;
            changed = true;
            i += 1;
        }
        out.push(joined);
        i += 1;
    }
    changed.then(|| out.join(" "))
}

/// `'abc' + 'def'` → `'abcdef'` (also with `"`); `None` if there is none.
fn join_concatenations(s: &str) -> Option<String> {
    if !s.contains('+') {
        return None;
    }
    let b = s.as_bytes();
    let (mut out, mut last, mut i) = (String::new(), 0, 0);
    while i < b.len() {
        if matches!(b[i], b'\'' | b'"') {
            let q = b[i];
            let mut j = i + 1;
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            if b.get(j) == Some(&b'+') {
                j += 1;
                while j < b.len() && b[j] == b' ' {
                    j += 1;
                }
                if b.get(j) == Some(&q) {
                    out.push_str(&s[last..i]);
                    last = j + 1;
                    i = j + 1;
                    continue;
                }
            }
        }
        i += 1;
    }
    if last == 0 {
        return None;
    }
    out.push_str(&s[last..]);
    Some(out)
}

/// A `<system>` tag (or `</system>`, `<|system|>`) named as a thing, not used as one: quoted,
/// followed by a word that names it (`<system> tags`, `a <system> block`) or after a word that
/// points at it (`the <system>`, `strip <system> and </system>`).
///
/// Its word boundaries are ASCII ones (`(?-u:\b)`): every word they bound is ASCII, and a
/// Unicode `\b` makes the lazy DFA give up at the first non-ASCII byte, leaving the whole
/// text to the far slower PikeVM. The two differ only next to a non-ASCII letter
/// (`éthe <system>`), where this blanks a tag that `the <system>` would blank anyway.
pub(super) const TAG_MENTION_SRC: &str = concat!(
    r"(?i)((?-u:\b)(?:the|a|an|each|every|one|as|in|with|inside|into|between|strip|remove|and|or)\s+|[`'\x22])",
    r"(<\|?\s*/?\s*system\s*\|?>)",
    r"|(<\|?\s*/?\s*system\s*\|?>)(?:[`'\x22]|\s+(?:tags?|blocks?|sections?|markers?|tokens?|elements?|roles?|turns?)(?-u:\b))"
);

static TAG_MENTION: LazyLock<Option<regex::Regex>> =
    LazyLock::new(|| regex::Regex::new(TAG_MENTION_SRC).ok());

/// `s` with the role tags it names as things (see [`TAG_MENTION`]) replaced by
/// `system-tag`; `None` when there is none.
pub(super) fn blank_tag_mentions(s: &str) -> Option<String> {
    if !s.contains('<') || !s.to_ascii_lowercase().contains("system") {
        return None;
    }
    let re = TAG_MENTION.as_ref()?;
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for caps in re.captures_iter(s) {
        let Some(tag) = caps.get(2).or_else(|| caps.get(3)) else {
            continue;
        };
        out.push_str(&s[last..tag.start()]);
        out.push_str("system-tag");
        last = tag.end();
    }
    if last == 0 {
        return None;
    }
    out.push_str(&s[last..]);
    Some(out)
}

/// The hosts of official installers that their projects document as `curl … | sh`
/// (`curl -fsSL https://sh.rustup.rs | sh`): a note that records one is not a planted download.
const INSTALLERS: &[&str] = &[
    "https://sh.rustup.rs",
    "https://get.docker.com",
    "https://raw.githubusercontent.com/homebrew/install/",
    "https://install.python-poetry.org",
    "https://astral.sh/uv/",
    "https://bun.sh/install",
    "https://deno.land/install.sh",
    "https://get.pnpm.io/",
    "https://raw.githubusercontent.com/nvm-sh/nvm/",
    "https://get.sdkman.io",
];

/// `s` with each official installer URL's scheme and host (see [`INSTALLERS`]) replaced by
/// `installer`, which names no host; `None` when there is none.
pub(super) fn blank_installers(s: &str) -> Option<String> {
    let lower = s.to_ascii_lowercase();
    if !lower.contains("https://") || lower.len() != s.len() {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    let mut at = 0;
    while let Some(i) = lower[at..].find("https://") {
        let start = at + i;
        match INSTALLERS.iter().find(|u| lower[start..].starts_with(*u)) {
            Some(u) => {
                out.push_str(&s[last..start]);
                out.push_str("installer");
                last = start + u.len();
                at = last;
            }
            None => at = start + "https://".len(),
        }
    }
    if last == 0 {
        return None;
    }
    out.push_str(&s[last..]);
    Some(out)
}
