//! A person's veto compared by meaning-preserving folds, not by bytes: a
//! text whose [`fold`] equals a vetoed fact's is that fact saved again
//! (a trailing period, another case, a full-width letter, a Cyrillic `а`
//! for a Latin `a`).
//!
//! Pure: the store reads archive.md and its parts and hands the vetoed
//! records to [`Vetoes`], which folds each once; every write, the review's
//! lifts and merges and `review undo` ask it of the texts they would make
//! live.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;

use crate::error::Error;
use crate::model::{ArchiveKind, Meta};
use crate::scan;

/// `text` folded as the veto compares it: Unicode NFKC (full-width forms,
/// ligatures), the characters the scanner strips (zero-width, direction
/// marks, …) dropped, every letter of another script that imitates an
/// ASCII letter or digit mapped to it (the scanner's look-alike table:
/// Cyrillic `а`, Greek `ο`, …), lower case, whitespace runs collapsed to one
/// space and trimmed, and trailing punctuation (any Unicode punctuation,
/// with the spaces between) removed — unless that would leave nothing.
///
/// Only such variants fold together: "Deploy on Fridays" and "Deploy on
/// Mondays" stay two texts.
pub fn fold(text: &str) -> String {
    let mut lowered = String::with_capacity(text.len());
    for c in text.nfkc() {
        if scan::is_invisible(c) {
            continue;
        }
        if let Some(a) = scan::ascii_lookalike(c) {
            lowered.push(a.to_ascii_lowercase());
            continue;
        }
        for l in c.to_lowercase() {
            lowered.push(scan::ascii_lookalike(l).map_or(l, |a| a.to_ascii_lowercase()));
        }
    }
    let mut out = String::with_capacity(lowered.len());
    for word in lowered.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    let kept = out
        .trim_end_matches(|c: char| is_punctuation(c) || c.is_whitespace())
        .len();
    if kept > 0 {
        out.truncate(kept);
    }
    out
}

/// Whether `c` is punctuation (Unicode general category `P*`).
fn is_punctuation(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::ClosePunctuation
            | GeneralCategory::ConnectorPunctuation
            | GeneralCategory::DashPunctuation
            | GeneralCategory::FinalPunctuation
            | GeneralCategory::InitialPunctuation
            | GeneralCategory::OpenPunctuation
            | GeneralCategory::OtherPunctuation
    )
}

/// A vetoed fact, as a check that meets it names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Veto {
    /// The vetoed fact's id (its archive record's).
    pub id: String,
    /// When the person vetoed it (the record's `archived`), when known.
    pub at: Option<DateTime<Utc>>,
}

impl Veto {
    /// The veto's UTC date, `YYYY-MM-DD`.
    pub fn date(&self) -> Option<String> {
        self.at.map(|t| t.date_naive().to_string())
    }

    /// What an agent's save of the fact gets: `memory_veto_human_only`,
    /// naming the vetoed id and the veto's date.
    pub fn refusal(&self) -> Error {
        Error::VetoHumanOnly {
            id: self.id.clone(),
            vetoed_on: self.date(),
        }
    }

    /// Why a text that is this fact stays out: `vetoed on DATE`.
    pub fn why(&self) -> String {
        match self.date() {
            Some(d) => format!("vetoed on {d}"),
            None => "vetoed".to_owned(),
        }
    }
}

/// The vetoed facts of an owner, each text folded once ([`fold`]) and
/// looked up by its fold, so a check of many texts against many vetoes
/// folds each text once and compares no pair.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vetoes {
    by_fold: BTreeMap<String, Vec<Veto>>,
}

impl Vetoes {
    /// Adds the archive record of `id` (its `text` and `meta`) when it is a
    /// veto (`kind=vetoed`); any other record is ignored. A record met
    /// twice (in archive.md and a part) is kept once.
    pub fn insert(&mut self, id: &str, text: &str, meta: &Meta) {
        if meta.kind != Some(ArchiveKind::Vetoed) {
            return;
        }
        let at = self.by_fold.entry(fold(text)).or_default();
        if !at.iter().any(|v| v.id == id) {
            at.push(Veto {
                id: id.to_owned(),
                at: meta.archived,
            });
        }
    }

    /// Whether there is no veto.
    pub fn is_empty(&self) -> bool {
        self.by_fold.is_empty()
    }

    /// The vetoes of the facts `text` is (whose fold equals its fold); none
    /// for a text that is no vetoed fact.
    pub fn matching(&self, text: &str) -> &[Veto] {
        if self.by_fold.is_empty() {
            return &[];
        }
        self.by_fold.get(&fold(text)).map_or(&[], Vec::as_slice)
    }

    /// The first veto of the facts `text` is, if any.
    pub fn first(&self, text: &str) -> Option<&Veto> {
        self.matching(text).first()
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::error::ErrorCode;

    const FACT: &str = "The user wants daily status emails";

    #[test]
    fn near_copies_fold_to_the_vetoed_text() {
        let base = fold(FACT);
        assert_eq!(base, "the user wants daily status emails");
        for variant in [
            // A trailing period, and more punctuation with spaces.
            "The user wants daily status emails.",
            "The user wants daily status emails !!",
            "The user wants daily status emails。",
            // Case.
            "the user wants daily status emails",
            "THE USER WANTS DAILY STATUS EMAILS",
            // Full-width letters (NFKC).
            "Ｔhe user wants daily status emails",
            "ＴＨＥ ＵＳＥＲ wants daily status emails",
            // Look-alike letters: Cyrillic а, е, о, Greek ο.
            "The user w\u{0430}nts daily status emails",
            "Th\u{0435} us\u{0435}r wants daily status \u{0435}mails",
            "The user wants daily status em\u{0430}ils",
            "The user wants d\u{0430}ily st\u{0430}tus emails",
            "The user wants da\u{0456}ly status emails",
            // Whitespace runs, leading and trailing spaces, a tab.
            "  The  user wants\tdaily   status emails  ",
            // A zero-width space inside a word.
            "The user wa\u{200B}nts daily status emails",
        ] {
            assert_eq!(fold(variant), base, "{variant:?}");
        }
        // A Cyrillic capital: upper-case look-alikes fold too.
        assert_eq!(fold("\u{0422}he user"), fold("The user"));
        // Greek omicron for o.
        assert_eq!(fold("D\u{03BF}cs"), fold("Docs"));
    }

    #[test]
    fn other_texts_stay_distinct() {
        let pairs = [
            ("Deploy on Fridays", "Deploy on Mondays"),
            ("Deploy on Fridays", "Do not deploy on Fridays"),
            ("The build uses 4 workers", "The build uses 8 workers"),
            ("Use port 8080", "Use port 8081"),
            ("Prefers tea", "Prefers tea and coffee"),
            // Punctuation inside the text is kept: only a trailing run goes.
            ("v1.2 is current", "v12 is current"),
            ("Deploy. On Fridays", "Deploy on Fridays"),
            // A leading mark is not trailing.
            ("- Deploy on Fridays", "Deploy on Fridays"),
        ];
        for (a, b) in pairs {
            assert_ne!(fold(a), fold(b), "{a:?} / {b:?}");
        }
        // Punctuation alone is not folded away to nothing.
        assert_eq!(fold("..."), "...");
        assert_ne!(fold("..."), fold("!!"));
    }

    fn vetoed(kind: ArchiveKind) -> Meta {
        Meta {
            kind: Some(kind),
            archived: Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).single(),
            ..Meta::default()
        }
    }

    #[test]
    fn vetoes_are_found_by_their_fold_and_only_vetoes_count() {
        let mut v = Vetoes::default();
        assert!(v.is_empty() && v.first(FACT).is_none());
        v.insert("mem_1", FACT, &vetoed(ArchiveKind::Vetoed));
        v.insert("mem_1", FACT, &vetoed(ArchiveKind::Vetoed));
        v.insert("mem_2", "Deploy on Fridays", &vetoed(ArchiveKind::Plain));
        v.insert(
            "mem_3",
            "Deploy on Mondays",
            &vetoed(ArchiveKind::Superseded),
        );
        assert_eq!(v.matching("the user wants daily status emails.").len(), 1);
        let hit = v.first("THE USER WANTS DAILY STATUS EMAILS").cloned();
        assert_eq!(hit.as_ref().map(|h| h.id.as_str()), Some("mem_1"));
        assert!(v.first("Deploy on Fridays").is_none());
        assert!(v.first("Deploy on Mondays").is_none());
        assert!(v.first("The user wants weekly status emails").is_none());
        let Some(hit) = hit else {
            panic!("no veto found");
        };
        assert_eq!(hit.why(), "vetoed on 2026-11-30");
        let e = hit.refusal();
        assert_eq!(e.code(), ErrorCode::MemoryVetoHumanOnly);
        assert!(e.to_string().contains("2026-11-30"), "{e}");
        // Two vetoes of one fact in two forms: both are met.
        v.insert(
            "mem_4",
            "the user wants daily status emails!",
            &vetoed(ArchiveKind::Vetoed),
        );
        assert_eq!(v.matching(FACT).len(), 2);
    }
}
