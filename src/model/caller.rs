//! Who is calling: the owner itself (an agent) or a person of the workspace.

use serde::Serialize;

/// The caller of an operation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", content = "id", rename_all = "lowercase")]
pub enum Caller {
    /// An agent, by id: it acts only on its own memory (the owner of that id).
    Agent(String),
    /// A person of the workspace, by id: may act on any owner, naming it.
    Person(String),
}

impl Caller {
    /// Whether the caller is a person.
    pub fn is_person(&self) -> bool {
        matches!(self, Caller::Person(_))
    }

    /// The caller's id.
    pub fn id(&self) -> &str {
        match self {
            Caller::Agent(id) | Caller::Person(id) => id,
        }
    }
}

/// The run writing through a handle: what a fact saved during it records.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RunContext {
    /// The run id.
    pub id: String,
    /// The task key the run works on, such as `PIN-812`.
    pub task: Option<String>,
}
