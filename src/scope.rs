//! The curated stores an owner keeps.

use serde::{Deserialize, Serialize};

/// One of an owner's curated stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// `MEMORY.md`: the agent's curated notes.
    Memory,
    /// `USER.md`: what the agent knows about the user.
    User,
}

impl Scope {
    /// Both stores, in snapshot order.
    pub const ALL: [Scope; 2] = [Scope::User, Scope::Memory];

    /// The scope's name, as used in entry ids and JSON (`memory`, `user`).
    pub fn name(self) -> &'static str {
        match self {
            Scope::Memory => "memory",
            Scope::User => "user",
        }
    }

    /// The store's file name.
    pub fn file_name(self) -> &'static str {
        match self {
            Scope::Memory => "MEMORY.md",
            Scope::User => "USER.md",
        }
    }

    /// The default budget in characters.
    pub fn default_budget(self) -> usize {
        match self {
            Scope::Memory => 2_200,
            Scope::User => 1_375,
        }
    }

    /// Parses `memory` or `user`.
    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "memory" => Some(Scope::Memory),
            "user" => Some(Scope::User),
            _ => None,
        }
    }
}
