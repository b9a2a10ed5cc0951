//! A memory's kind (a fact or a day log) and its state (active or
//! archived), as lists filter and answers carry them.

use serde::{Deserialize, Serialize};

/// A memory's kind: a fact, or a date's day log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum FactKind {
    /// A fact of MEMORY.md or USER.md.
    Fact,
    /// A date's day log in episodes.md.
    Day,
}

impl FactKind {
    /// `fact` or `day`.
    pub fn name(self) -> &'static str {
        match self {
            FactKind::Fact => "fact",
            FactKind::Day => "day",
        }
    }

    /// Parses `fact` or `day`.
    pub fn parse(s: &str) -> Option<FactKind> {
        match s {
            "fact" => Some(FactKind::Fact),
            "day" => Some(FactKind::Day),
            _ => None,
        }
    }
}

impl std::fmt::Display for FactKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A memory's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Live (it may still be expired: see `FactRow::expired`).
    #[cfg_attr(feature = "cli", value(help = "Live (it may still be expired)"))]
    Active,
    /// Archived with a reason.
    Archived,
}

impl Status {
    /// `active` or `archived`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Archived => "archived",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
