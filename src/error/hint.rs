//! What the caller can change to get past an error, as data ([`Hint`]);
//! each surface words it (`api::errors`).

use super::{Error, Unconfirmed};

/// What the caller can change to get past an error, as data: which
/// argument, with which value. Each surface words it in its own terms (the
/// command line's `--in user`, MCP's `target: "user"`, HTTP's
/// `"scope": "user"`; `api::errors::Surface`), so no message names an
/// argument of one surface to a caller of another.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// Name the store that holds the entry (`user` or `memory`).
    Store(&'static str),
    /// Ask to replace the different result stored under the same ids.
    Overwrite,
    /// Ask to replace the skill of the same name.
    ReplaceSkill,
    /// List the owner's skills.
    ListSkills,
    /// Name the agent whose memory a person acts on.
    Agent,
    /// Ask to overwrite the files an export would write.
    Force,
    /// Ask to store an empty result.
    AllowEmpty,
    /// Give the result's content type.
    ContentType,
    /// Undo what is unchanged of a review (`partial`).
    Partial,
    /// Plan the review again with a dry run, and apply that one.
    DryRunAgain,
    /// A person's word where no terminal can ask for it: a person's key
    /// file named explicitly, or the separated deployment (the server run
    /// as another operating-system user, agents given agents' keys).
    KeyFile,
}

impl Error {
    /// What the caller can change to get past this error, if one argument
    /// does it (see [`Hint`]).
    pub fn hint(&self) -> Option<Hint> {
        Some(match self {
            Error::NotFound {
                elsewhere: Some(f), ..
            } => Hint::Store(if *f == "USER.md" { "user" } else { "memory" }),
            Error::ResultExists { .. } => Hint::Overwrite,
            Error::AgentRequired { .. } => Hint::Agent,
            Error::ExportExists { .. } => Hint::Force,
            Error::SkillNotFound { .. } => Hint::ListSkills,
            Error::SkillExists { .. } => Hint::ReplaceSkill,
            Error::ResultEmpty { .. } => Hint::AllowEmpty,
            Error::ResultNotText { .. } => Hint::ContentType,
            Error::ReviewChanged { .. } => Hint::Partial,
            Error::ReviewPlanChanged { .. } => Hint::DryRunAgain,
            Error::PersonUnconfirmed {
                why: Unconfirmed::NoTerminal | Unconfirmed::KeyRefused,
                ..
            } => Hint::KeyFile,
            Error::Batch { source, .. } => return source.hint(),
            _ => return None,
        })
    }
}
