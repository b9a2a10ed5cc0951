//! Claude's memory tool (`memory_20250818`) on an owner's memory, pure:
//! the command a tool call carries ([`Command`], read from its JSON input
//! and bounded), the fixed set of paths the tool shows ([`Target`]: matched
//! exactly against the names listed, never decoded, never joined into a
//! path), a store rendered as the file the model reads and edits (`view`:
//! one line per entry, metadata left out, flagged entries as their
//! placeholders, the SDK's line numbers) and the model's new text turned
//! back into entry operations (`diff`).
//!
//! No I/O: the store reads the files and writes the operations through its
//! one write path; `api` answers the call.

mod diff;
mod view;

#[cfg(test)]
mod tests;

pub use diff::{Change, Plan, plan};
#[cfg(any(test, feature = "internals"))]
pub use diff::{MAX_STORE_LINES, entry_key};
pub use view::{
    Listed, ViewEntry, entry_line, guard_lines, insert, listing, numbered, snippet, str_replace,
};
#[cfg(any(test, feature = "internals"))]
pub use view::{MAX_VIEW_CHARS, MAX_VIEW_LINES, file_size};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, ErrorCode, Result};
use crate::model::{Scope, validate_id};

/// The largest tool input taken, in bytes of its JSON.
pub const MAX_INPUT_BYTES: usize = 64 * 1024;

/// The folder every path of the tool is under.
pub const ROOT: &str = "/memories";
/// MEMORY.md, as the tool names it.
pub const MEMORY_PATH: &str = "/memories/MEMORY.md";
/// USER.md, as the tool names it.
pub const USER_PATH: &str = "/memories/USER.md";
/// episodes.md (read-only), as the tool names it.
pub const EPISODES_PATH: &str = "/memories/episodes.md";
/// The root's LEARNINGS.md (read-only), as the tool names it.
pub const LEARNINGS_PATH: &str = "/memories/LEARNINGS.md";
/// Where the tool shows the owner's skills: `/memories/skills/NAME/SKILL.md`.
pub const SKILLS_PREFIX: &str = "/memories/skills/";
/// The end of a skill's path.
pub const SKILL_SUFFIX: &str = "/SKILL.md";

/// The answer of a memory tool call: the tool result's text and whether
/// it is an error (`is_error`), as the model receives it. A refusal is an
/// answer, not a failure of memdir.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Answer {
    /// The tool result's text.
    #[schemars(length(min = 1))]
    pub text: String,
    /// Whether the command was refused.
    pub is_error: bool,
    /// When the edit waits for a person's review (`writes: review`): its
    /// id in the owner's PENDING.md (the file is unchanged until a person
    /// approves it).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(r"^pnd_[0-9a-f]{12}$"))]
    pub pending_id: Option<String>,
}

impl Answer {
    /// A command done.
    pub fn ok(text: impl Into<String>) -> Answer {
        Answer {
            text: text.into(),
            is_error: false,
            pending_id: None,
        }
    }

    /// A command refused.
    pub fn refused(text: impl Into<String>) -> Answer {
        Answer {
            text: text.into(),
            is_error: true,
            pending_id: None,
        }
    }

    /// An edit kept for a person's review: the pending write `id`.
    pub fn pending(text: impl Into<String>, id: impl Into<String>) -> Answer {
        Answer {
            text: text.into(),
            is_error: false,
            pending_id: Some(id.into()),
        }
    }
}

/// One command of the memory tool, as its input names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Show a folder's listing or a file with line numbers.
    View {
        /// The path.
        path: String,
        /// The lines to show, from 1 (`-1` as the end: to the last line).
        view_range: Option<(i64, i64)>,
    },
    /// Write a whole file.
    Create {
        /// The path.
        path: String,
        /// Its text.
        file_text: String,
    },
    /// Replace the one occurrence of `old_str` in a file.
    StrReplace {
        /// The path.
        path: String,
        /// The text to find (exactly once).
        old_str: String,
        /// Its replacement.
        new_str: String,
    },
    /// Insert text after line `insert_line` (0: at the top).
    Insert {
        /// The path.
        path: String,
        /// The line after which to insert.
        insert_line: i64,
        /// The text.
        insert_text: String,
    },
    /// Delete a file.
    Delete {
        /// The path.
        path: String,
    },
    /// Rename a file.
    Rename {
        /// The current path.
        old_path: String,
        /// The new path.
        new_path: String,
    },
}

/// The commands, as the tool names them.
pub const COMMANDS: [&str; 6] = [
    "view",
    "create",
    "str_replace",
    "insert",
    "delete",
    "rename",
];

/// A refused input: `field` (as the tool names it) and what is wrong.
fn invalid(field: Option<&'static str>, message: String) -> Error {
    Error::InvalidToolInput { field, message }
}

/// The string field `name` of a command's input.
fn string(obj: &Map<String, Value>, name: &'static str, command: &str) -> Result<String> {
    match obj.get(name) {
        Some(Value::String(s)) => Ok(s.clone()),
        None | Some(Value::Null) => Err(invalid(
            Some(name),
            format!("`{name}` is required for the {command} command"),
        )),
        Some(other) => Err(invalid(
            Some(name),
            format!("`{name}` must be a string, not {}", kind(other)),
        )),
    }
}

/// An integer field's value.
fn integer(v: &Value, name: &'static str) -> Result<i64> {
    v.as_i64().ok_or_else(|| {
        invalid(
            Some(name),
            format!("`{name}` must be an integer, not {}", kind(v)),
        )
    })
}

/// What a JSON value is, for a message.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer out of range",
        Value::Number(_) => "a number with a fraction",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Command {
    /// Reads a command from the tool call's input (a JSON object: `command`
    /// and its fields, as the SDK's command types name them; other fields
    /// are ignored). Refused (`invalid_request`, naming the field): not an
    /// object, an unknown `command`, a field missing or of the wrong type,
    /// an input over [`MAX_INPUT_BYTES`].
    pub fn parse(input: &Value) -> Result<Command> {
        let bytes = serde_json::to_vec(input)
            .map_err(|source| Error::Encode {
                what: "the tool input",
                source,
            })?
            .len();
        if bytes > MAX_INPUT_BYTES {
            return Err(invalid(
                None,
                format!("the input is {bytes} bytes, over the {MAX_INPUT_BYTES}-byte limit"),
            ));
        }
        let Value::Object(obj) = input else {
            return Err(invalid(
                None,
                format!(
                    "the input must be a JSON object with `command` and its fields, not {}",
                    kind(input)
                ),
            ));
        };
        let command = match obj.get("command") {
            Some(Value::String(c)) => c.as_str(),
            None | Some(Value::Null) => {
                return Err(invalid(
                    Some("command"),
                    format!("`command` is required: one of {}", COMMANDS.join(", ")),
                ));
            }
            Some(other) => {
                return Err(invalid(
                    Some("command"),
                    format!("`command` must be a string, not {}", kind(other)),
                ));
            }
        };
        let s = |name| string(obj, name, command);
        Ok(match command {
            "view" => Command::View {
                path: s("path")?,
                view_range: match obj.get("view_range") {
                    None | Some(Value::Null) => None,
                    Some(Value::Array(a)) if a.len() == 2 => {
                        Some((integer(&a[0], "view_range")?, integer(&a[1], "view_range")?))
                    }
                    Some(other) => {
                        return Err(invalid(
                            Some("view_range"),
                            format!(
                                "`view_range` must be two integers [first, last] (last -1: to the end), not {}",
                                match other {
                                    Value::Array(a) => format!("an array of {}", a.len()),
                                    v => kind(v).to_owned(),
                                }
                            ),
                        ));
                    }
                },
            },
            "create" => Command::Create {
                path: s("path")?,
                file_text: s("file_text")?,
            },
            "str_replace" => Command::StrReplace {
                path: s("path")?,
                old_str: s("old_str")?,
                new_str: s("new_str")?,
            },
            "insert" => Command::Insert {
                path: s("path")?,
                insert_line: match obj.get("insert_line") {
                    None | Some(Value::Null) => {
                        return Err(invalid(
                            Some("insert_line"),
                            "`insert_line` is required for the insert command".into(),
                        ));
                    }
                    Some(v) => integer(v, "insert_line")?,
                },
                insert_text: s("insert_text")?,
            },
            "delete" => Command::Delete { path: s("path")? },
            "rename" => Command::Rename {
                old_path: s("old_path")?,
                new_path: s("new_path")?,
            },
            other => {
                return Err(invalid(
                    Some("command"),
                    format!(
                        "unknown command `{}`: one of {}",
                        quoted(other),
                        COMMANDS.join(", ")
                    ),
                ));
            }
        })
    }

    /// The command's name, as the tool names it.
    #[cfg(any(test, feature = "internals"))]
    pub fn name(&self) -> &'static str {
        match self {
            Command::View { .. } => "view",
            Command::Create { .. } => "create",
            Command::StrReplace { .. } => "str_replace",
            Command::Insert { .. } => "insert",
            Command::Delete { .. } => "delete",
            Command::Rename { .. } => "rename",
        }
    }
}

/// Whether a write's error is the model's to fix, answered as a refused
/// tool result with memdir's reason (the budget, the scanner, the text's
/// checks, a veto, an edit made meanwhile, a skill's bounds), rather than a
/// failure of memdir (I/O, the lock, the owner).
pub fn is_refusal(e: &Error) -> bool {
    if let Error::Batch { source, .. } = e {
        return is_refusal(source);
    }
    matches!(
        e.code(),
        ErrorCode::MemoryTextEmpty
            | ErrorCode::MemoryTextTooLong
            | ErrorCode::MemoryTextInvalid
            | ErrorCode::MemoryNotFound
            | ErrorCode::MemoryAmbiguousMatch
            | ErrorCode::MemoryOverBudget
            | ErrorCode::MemoryUnplaceable
            | ErrorCode::MemoryConflicted
            | ErrorCode::MemoryThreatBlocked
            | ErrorCode::SecretInMemory
            | ErrorCode::MemoryVetoHumanOnly
            | ErrorCode::MemorySuperseded
            | ErrorCode::MemoryWrongState
            | ErrorCode::FileTooLarge
            | ErrorCode::SkillTooLarge
            | ErrorCode::SkillExists
            | ErrorCode::SkillNotFound
            | ErrorCode::InvalidConfig
            | ErrorCode::InvalidId
            | ErrorCode::InvalidRequest
    )
}

/// A file the tool shows, as its path names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `/memories`: the listing.
    Root,
    /// `/memories/MEMORY.md` or `/memories/USER.md`.
    Store(Scope),
    /// `/memories/episodes.md`, read-only.
    Episodes,
    /// `/memories/LEARNINGS.md`, read-only.
    Learnings,
    /// `/memories/skills/NAME/SKILL.md`: the skill's name as the owner's
    /// folder lists it.
    Skill(String),
}

/// What an owner has that the tool shows (besides the two stores, always
/// there).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Present {
    /// Whether episodes.md exists.
    pub episodes: bool,
    /// Whether the root holds approved learnings.
    pub learnings: bool,
    /// The owner's skills, by name.
    pub skills: Vec<String>,
}

impl Present {
    /// The tool's paths of what is present, in the listing's order.
    pub fn paths(&self) -> Vec<String> {
        let mut out = vec![MEMORY_PATH.to_owned(), USER_PATH.to_owned()];
        if self.episodes {
            out.push(EPISODES_PATH.to_owned());
        }
        if self.learnings {
            out.push(LEARNINGS_PATH.to_owned());
        }
        out.extend(self.skills.iter().map(|n| skill_path(n)));
        out
    }

    /// The target `path` names: equal, byte for byte, to a listed path
    /// (no decoding, no `..`, no case or slash variant); `None` otherwise.
    pub fn target(&self, path: &str) -> Option<Target> {
        Some(match path {
            ROOT => Target::Root,
            MEMORY_PATH => Target::Store(Scope::Memory),
            USER_PATH => Target::Store(Scope::User),
            EPISODES_PATH if self.episodes => Target::Episodes,
            LEARNINGS_PATH if self.learnings => Target::Learnings,
            _ => {
                let name = self.skills.iter().find(|n| skill_path(n) == path)?;
                Target::Skill(name.clone())
            }
        })
    }
}

/// The tool's path of the skill `name`.
pub fn skill_path(name: &str) -> String {
    format!("{SKILLS_PREFIX}{name}{SKILL_SUFFIX}")
}

/// The name of a new skill `path` would make (`/memories/skills/NAME/SKILL.md`
/// with NAME a valid id: letters, digits, `.`, `_`, `-`), for a create or a
/// rename when skills are writable; `None` for any other path.
pub fn new_skill_name(path: &str) -> Option<&str> {
    let name = path
        .strip_prefix(SKILLS_PREFIX)?
        .strip_suffix(SKILL_SUFFIX)?;
    (validate_id("skill", name).is_ok()).then_some(name)
}

/// Whether `path` is a new file under `/memories` (`/memories/notes.md`,
/// `/memories/project/plan.md`): the model's habit of topic files, which
/// the tool steers to MEMORY.md's entries.
pub fn is_new_file(path: &str) -> bool {
    path.strip_prefix(ROOT)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|rest| !rest.is_empty())
}

/// A text of the model's (a path, an `old_str`) as an answer quotes it: on
/// one line, control characters escaped, at most 200 characters, and the
/// scanner's placeholder in its place when it flags it.
pub fn quoted(text: &str) -> String {
    if let Some(p) = crate::scan::blocked_text(text, "the text quoted") {
        return p;
    }
    let one = crate::edit::escape_controls(text).replace('\n', "\\n");
    if one.chars().count() <= 200 {
        return one;
    }
    let kept: String = one.chars().take(199).collect();
    format!("{kept}…")
}
