//! What an error carries beside its message: the entries it lists, and
//! what it says of the other owners a root holds.

use serde::Serialize;

/// An entry as an error answer shows it: its id and text (or a placeholder
/// when the text is flagged by the scanner and must not be echoed raw).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct EntryBrief {
    /// The entry's `mem_` id.
    pub id: String,
    /// The entry's text, or a short preview where the error lists candidates.
    pub text: String,
    /// The file that holds it (`MEMORY.md` or `USER.md`).
    #[schemars(extend("enum" = ["MEMORY.md", "USER.md"]))]
    pub file: &'static str,
    /// Whether the fact has expired: it counts for nothing against the
    /// budget, so removing it frees nothing (set where an over-budget
    /// refusal lists the entries; false elsewhere).
    pub expired: bool,
}

/// What an `owner_not_found` answer says of the other owners the root
/// holds. A person may act on every owner, so the answer names them (a
/// typo is seen at once); an agent acts only on its own memory, and the
/// names of the others are not its to learn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OtherOwners {
    /// The owners the root holds, at most 20 of them, and how many more:
    /// the answer to a person (or to the machine's user, naming no one).
    Named {
        /// The owners the root holds (at most 20).
        owners: Vec<String>,
        /// How many more it holds.
        more: usize,
    },
    /// Nothing of them: the answer to an agent.
    Withheld,
}
