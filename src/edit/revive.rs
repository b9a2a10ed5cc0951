//! The rule for a write whose entry archive.md holds already: a person's
//! word is final, and a superseded memory does not come back by itself.
//!
//! Ids come from scope and text only, so saving a vetoed or superseded text
//! again writes the very id archive.md records. The write path asks
//! [`revival`] for each text an operation writes.

use crate::error::{Error, Result};
use crate::model::{ArchiveKind, Caller, Meta};

/// What an archive record says of a write of its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Revival {
    /// The record does not stand in the way (a plain archive, a review's):
    /// the write goes on and the record stays.
    Stays,
    /// The write brings the memory back and takes the record out of the
    /// archive, as an unarchive does: a person's save of a vetoed memory, or
    /// a save that supersedes a live fact for a superseded one.
    Lifts,
}

/// Whether `caller` may write the entry `id` that archive.md holds as
/// `record`; `supersedes` tells whether the write supersedes a live fact.
/// A vetoed memory comes back only by a person's save
/// (`memory_veto_human_only` for an agent, naming the veto's date); a
/// superseded one only by a save that supersedes the fact now true
/// (`memory_superseded`, naming the newer id, otherwise).
pub(crate) fn revival(
    id: &str,
    record: &Meta,
    caller: &Caller,
    supersedes: bool,
) -> Result<Revival> {
    match record.kind {
        Some(ArchiveKind::Vetoed) if caller.is_person() => Ok(Revival::Lifts),
        Some(ArchiveKind::Vetoed) => Err(Error::VetoHumanOnly {
            id: id.to_owned(),
            vetoed_on: record.archived.map(|t| t.date_naive().to_string()),
        }),
        Some(ArchiveKind::Superseded) if supersedes => Ok(Revival::Lifts),
        Some(ArchiveKind::Superseded) => Err(Error::Superseded {
            id: id.to_owned(),
            by: record.superseded_by.clone().unwrap_or_default(),
        }),
        _ => Ok(Revival::Stays),
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;
    use crate::error::ErrorCode;

    fn record(kind: ArchiveKind) -> Meta {
        Meta {
            kind: Some(kind),
            archived: Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).single(),
            superseded_by: (kind == ArchiveKind::Superseded).then(|| "mem_8444245fa863".to_owned()),
            ..Meta::default()
        }
    }

    fn agent() -> Caller {
        Caller::Agent("agt_a".into())
    }

    fn person() -> Caller {
        Caller::Person("alice".into())
    }

    #[test]
    fn an_agent_cannot_save_a_vetoed_text_again() {
        let Err(e) = revival("mem_1", &record(ArchiveKind::Vetoed), &agent(), false) else {
            panic!("an agent's save of a vetoed text went through");
        };
        assert_eq!(e.code(), ErrorCode::MemoryVetoHumanOnly);
        assert!(e.to_string().contains("2026-11-30"), "{e}");
        // Superseding something does not help.
        let again = revival("mem_1", &record(ArchiveKind::Vetoed), &agent(), true);
        assert!(again.is_err());
    }

    #[test]
    fn a_person_lifts_a_veto() {
        let r = revival("mem_1", &record(ArchiveKind::Vetoed), &person(), false);
        assert_eq!(r.ok(), Some(Revival::Lifts));
    }

    #[test]
    fn a_superseded_text_comes_back_only_superseding() {
        for caller in [agent(), person()] {
            let Err(e) = revival("mem_1", &record(ArchiveKind::Superseded), &caller, false) else {
                panic!("a superseded text came back");
            };
            assert_eq!(e.code(), ErrorCode::MemorySuperseded);
            assert!(e.to_string().contains("mem_8444245fa863"), "{e}");
            let r = revival("mem_1", &record(ArchiveKind::Superseded), &caller, true);
            assert_eq!(r.ok(), Some(Revival::Lifts));
        }
    }

    #[test]
    fn other_records_stay() {
        for kind in [
            ArchiveKind::Plain,
            ArchiveKind::Expired,
            ArchiveKind::Merged,
        ] {
            let r = revival("mem_1", &record(kind), &agent(), false);
            assert_eq!(r.ok(), Some(Revival::Stays));
        }
    }
}
