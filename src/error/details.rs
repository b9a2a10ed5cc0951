//! The types an error's variants carry beside plain values: an entry as
//! an error shows it, what `owner_not_found` says of the other owners, and
//! why a person's command on the command line was not confirmed.

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

/// Why a person's command on the command line was not confirmed
/// ([`Error::PersonUnconfirmed`](super::Error::PersonUnconfirmed)): a
/// person's word is given on the controlling terminal, or by a person's key
/// file (`--key-file`) that the account's keys file knows.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unconfirmed {
    /// No controlling terminal to ask on (`/dev/tty` does not open: a
    /// process started without one, or under `setsid`) and no `--key-file`.
    NoTerminal,
    /// Asked on the terminal, the person did not answer yes.
    Declined,
    /// The key file holds no live person's key of the account's keys file
    /// (`keys.yaml` of the configuration folder found from the user
    /// database, never from the environment), or the key is another
    /// person's.
    KeyRefused,
    /// The key file holds an agent's key: a key names its role, and an
    /// agent's acts only on a server (`--url`), as its agent.
    AgentKey,
}

impl Unconfirmed {
    /// Its word in an answer's details: `no_terminal`, `declined`,
    /// `key_refused`, `agent_key`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Unconfirmed::NoTerminal => "no_terminal",
            Unconfirmed::Declined => "declined",
            Unconfirmed::KeyRefused => "key_refused",
            Unconfirmed::AgentKey => "agent_key",
        }
    }
}

impl std::fmt::Display for Unconfirmed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
