//! Who is calling: the owner itself (an agent) or a person of the workspace.

use serde::Serialize;

/// The caller of an operation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", content = "id", rename_all = "lowercase")]
pub enum Caller {
    /// The owner itself: an agent acting on its own memory.
    Agent,
    /// A person of the workspace, by id.
    Person(String),
}

impl Caller {
    /// Whether the caller is a person.
    pub fn is_person(&self) -> bool {
        matches!(self, Caller::Person(_))
    }
}
