//! The curated stores an owner keeps, and where a memory lives.

use serde::{Deserialize, Serialize};

/// One of an owner's curated stores.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
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

/// Where a memory lives (or, archived, came from): one of the curated
/// stores, or the day log.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// `MEMORY.md`.
    Memory,
    /// `USER.md`.
    User,
    /// A date's day log in `episodes.md`.
    Day,
}

impl Origin {
    /// The name as written in metadata and JSON (`memory`, `user`, `day`).
    pub fn name(self) -> &'static str {
        match self {
            Origin::Memory => "memory",
            Origin::User => "user",
            Origin::Day => "day",
        }
    }

    /// Parses `memory`, `user` or `day`.
    pub fn parse(s: &str) -> Option<Origin> {
        match s {
            "memory" => Some(Origin::Memory),
            "user" => Some(Origin::User),
            "day" => Some(Origin::Day),
            _ => None,
        }
    }

    /// The curated store, unless this is the day log.
    pub fn store(self) -> Option<Scope> {
        match self {
            Origin::Memory => Some(Scope::Memory),
            Origin::User => Some(Scope::User),
            Origin::Day => None,
        }
    }
}

impl From<Scope> for Origin {
    fn from(s: Scope) -> Origin {
        match s {
            Scope::Memory => Origin::Memory,
            Scope::User => Origin::User,
        }
    }
}
