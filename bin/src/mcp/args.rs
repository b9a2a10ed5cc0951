//! The tools' arguments, typed per action, and the one place their errors
//! are worded. A tool takes its arguments as raw JSON and parses them here,
//! so a bad argument answers in the seed's words ("content is required for
//! remember", "action must be one of: …") as a tool error; the schema a
//! client sees is the typed one.

use std::sync::Arc;

use memdir::Scope;
use memdir::api::args::from_value;
use memdir::{FactKind, Status};
use rmcp::model::JsonObject;
use rmcp::schemars;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The arguments every tool takes to name an owner (the namespace rule).
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
pub struct Identity {
    /// A person's server: the agent whose memory to use (`list` without it
    /// lists every agent's).
    #[serde(rename = "agentId", alias = "agent_id")]
    pub agent_id: Option<String>,
    /// Honoured only when it names this server's own identity; anything
    /// else is ignored with a warning.
    pub memory_owner: Option<String>,
    /// Same as `memory_owner`.
    pub owner: Option<String>,
    /// The user's words, for the record (accepted as the seed's examples
    /// send it; not used).
    #[allow(dead_code)]
    pub user_request: Option<String>,
}

impl Identity {
    /// The owners it names, in the order the namespace rule reads them.
    pub fn named(&self) -> [Option<&String>; 3] {
        [
            self.memory_owner.as_ref(),
            self.owner.as_ref(),
            self.agent_id.as_ref(),
        ]
    }
}

/// `remember`'s store: `user` (USER.md) or `memory` (MEMORY.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// USER.md: what you know about the user.
    User,
    /// MEMORY.md: your own notes.
    Memory,
}

impl From<Target> for Scope {
    fn from(t: Target) -> Scope {
        match t {
            Target::User => Scope::User,
            Target::Memory => Scope::Memory,
        }
    }
}

/// `list`'s kind (the library's `FactKind`, with a schema).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Facts.
    Fact,
    /// Day logs.
    Day,
}

impl From<Kind> for FactKind {
    fn from(k: Kind) -> FactKind {
        match k {
            Kind::Fact => FactKind::Fact,
            Kind::Day => FactKind::Day,
        }
    }
}

/// `list`'s status (the library's `Status`, with a schema).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Live memories.
    Active,
    /// Archived ones.
    Archived,
}

impl From<State> for Status {
    fn from(s: State) -> Status {
        match s {
            State::Active => Status::Active,
            State::Archived => Status::Archived,
        }
    }
}

/// `resolve`'s `keep` (the library's `Keep`, with a schema).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Keep {
    /// Both versions of a `conflict=` pair (their marks dropped).
    Both,
    /// The live fact of one live and archived (its archive records removed).
    Live,
    /// The first copy of an exact duplicate.
    One,
}

impl From<Keep> for memdir::Keep {
    fn from(k: Keep) -> memdir::Keep {
        match k {
            Keep::Both => memdir::Keep::Both,
            Keep::Live => memdir::Keep::Live,
            Keep::One => memdir::Keep::One,
        }
    }
}

/// `remember`'s operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// Append `content`.
    Add,
    /// Replace the entry `old_text` names with `content`.
    Replace,
    /// Remove the entry `old_text` names.
    Remove,
    /// List the store's entries.
    Read,
}

/// `remember`'s arguments.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct Remember {
    /// `user` (USER.md, what you know about the user) or `memory`
    /// (MEMORY.md, your own notes). Default `memory`; a replace or remove
    /// without it looks in both stores.
    pub target: Option<Target>,
    /// add (default), replace, remove or read.
    pub operation: Option<Operation>,
    /// The text to store (add, replace).
    pub content: Option<String>,
    /// replace, remove: an entry's `mem_` id, or a part of exactly one
    /// entry's text, copied verbatim from the current entries.
    pub old_text: Option<String>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub who: Identity,
}

/// The `memory` tool's arguments: one shape per action (`action` names it).
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum MemoryCall {
    /// The snapshot a run starting now would get (MEMORY.md + USER.md).
    Recall {
        #[serde(flatten)]
        who: Identity,
    },
    /// Edit or read USER.md (`target: user`) or MEMORY.md (`target: memory`).
    Remember(Remember),
    /// Search the run journal (episodes.md).
    SearchRuns {
        /// What to look for.
        query: String,
        /// At most this many lines (default 20).
        limit: Option<usize>,
        #[serde(flatten)]
        who: Identity,
    },
    /// One past run.
    GetRun {
        /// The run id.
        run_id: String,
        #[serde(flatten)]
        who: Identity,
    },
    /// Save one fact in MEMORY.md, with `expires` and `supersedes`.
    Save {
        /// The fact.
        content: String,
        /// Expiry, a date YYYY-MM-DD or an RFC 3339 time (default 90 days).
        expires: Option<String>,
        /// The `mem_` id of a live fact the new one replaces.
        supersedes: Option<String>,
        #[serde(flatten)]
        who: Identity,
    },
    /// Append `content` to today's day log (agents only).
    Day {
        /// The line.
        content: String,
        #[serde(flatten)]
        who: Identity,
    },
    /// List memories, newest first.
    List {
        /// `fact` or `day`.
        kind: Option<Kind>,
        /// `active` or `archived`.
        status: Option<State>,
        /// At most this many rows (default 100, at most 500).
        limit: Option<usize>,
        #[serde(flatten)]
        who: Identity,
    },
    /// Archive the memory `id` with a `reason`.
    Archive {
        /// The memory's `mem_` id.
        id: String,
        /// Why.
        reason: String,
        #[serde(flatten)]
        who: Identity,
    },
    /// Bring the archived memory `id` back.
    Unarchive {
        /// The memory's `mem_` id.
        id: String,
        #[serde(flatten)]
        who: Identity,
    },
    /// Settle what a merge left of the fact `id` (what `check` finds):
    /// `keep` both versions of a `conflict=` pair, the live side of a fact
    /// live and archived, or one copy of a duplicate.
    Resolve {
        /// The fact's `mem_` id.
        id: String,
        /// `both`, `live` or `one`.
        keep: Keep,
        #[serde(flatten)]
        who: Identity,
    },
    /// A person's veto of the memory `id`.
    Veto {
        /// The memory's `mem_` id.
        id: String,
        /// Why.
        reason: Option<String>,
        #[serde(flatten)]
        who: Identity,
    },
    /// What a recall would pick for `query`, with scores.
    RecallFacts {
        /// What to look for (optional).
        query: Option<String>,
        #[serde(flatten)]
        who: Identity,
    },
    /// Propose a learning: a fact every agent needs. It waits for a
    /// person's approval and changes no prompt until then.
    Propose {
        /// The learning's text (a fact, not an instruction).
        text: String,
        #[serde(flatten)]
        who: Identity,
    },
    /// The approved learnings (every agent's snapshot shows them) and your
    /// own proposals with their status.
    Learnings {
        #[serde(flatten)]
        who: Identity,
    },
}

impl MemoryCall {
    /// The owner arguments of the call.
    pub fn who(&self) -> &Identity {
        match self {
            MemoryCall::Remember(r) => &r.who,
            MemoryCall::Recall { who } | MemoryCall::Learnings { who } => who,
            MemoryCall::SearchRuns { who, .. }
            | MemoryCall::GetRun { who, .. }
            | MemoryCall::Save { who, .. }
            | MemoryCall::Day { who, .. }
            | MemoryCall::List { who, .. }
            | MemoryCall::Archive { who, .. }
            | MemoryCall::Unarchive { who, .. }
            | MemoryCall::Resolve { who, .. }
            | MemoryCall::Veto { who, .. }
            | MemoryCall::RecallFacts { who, .. }
            | MemoryCall::Propose { who, .. } => who,
        }
    }
}

/// `get_result`'s arguments.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct GetResultArgs {
    /// The workflow (run) id.
    pub workflow_id: Option<String>,
    /// Same as `workflow_id` (the id an execution acknowledgement returns).
    pub execution_id: Option<String>,
    /// One step of the run; without it, the run's final result: its steps.
    pub task_id: Option<String>,
    /// A person's server: the agent whose results to read.
    #[serde(rename = "agentId", alias = "agent_id")]
    pub agent_id: Option<String>,
}

/// `put_result`'s arguments.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct PutResultArgs {
    /// The workflow (run) id.
    pub workflow_id: String,
    /// The task id.
    pub task_id: String,
    /// The content (text).
    pub content: String,
    /// Its MIME type (default `text/plain`).
    pub content_type: Option<String>,
    /// Store an empty content (else refused).
    pub allow_empty: Option<bool>,
    /// A person's server: the agent whose results to write.
    #[serde(rename = "agentId", alias = "agent_id")]
    pub agent_id: Option<String>,
}

/// The `learn` tool's arguments: one shape per action (`action`, default
/// `learn`).
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum LearnCall {
    /// Save `content` as the skill `name` (the default action).
    Learn {
        /// The skill's name, an id such as `cnl-debugging`.
        name: String,
        /// The skill's markdown: distilled, reusable steps and facts
        /// (pasted text, or what was just worked out in this chat). Also
        /// accepted as `source`.
        #[serde(alias = "source")]
        content: String,
        /// One line on what the skill is for (default: the content's front
        /// matter, else its first line).
        description: Option<String>,
        /// Replace a different skill of the same name.
        replace: Option<bool>,
        #[serde(flatten)]
        who: Identity,
    },
    /// List the learned skills: `- name — description`.
    List {
        #[serde(flatten)]
        who: Identity,
    },
    /// One skill's SKILL.md.
    Show {
        /// The skill's name.
        name: String,
        #[serde(flatten)]
        who: Identity,
    },
    /// Delete the skill `name` (the name `list` shows).
    Forget {
        /// The skill's name.
        name: String,
        #[serde(flatten)]
        who: Identity,
    },
}

impl LearnCall {
    /// The owner arguments of the call.
    pub fn who(&self) -> &Identity {
        match self {
            LearnCall::Learn { who, .. }
            | LearnCall::List { who }
            | LearnCall::Show { who, .. }
            | LearnCall::Forget { who, .. } => who,
        }
    }
}

/// The input schema of a tool taking `T`: the typed schema, an object at
/// its root (a tagged enum's `oneOf` gets `"type": "object"` beside it, as
/// MCP asks of every tool's input).
pub fn schema<T: schemars::JsonSchema + 'static>() -> Arc<JsonObject> {
    let mut s = (*rmcp::handler::server::common::schema_for_type::<T>()).clone();
    s.insert("type".into(), Value::String("object".into()));
    s.remove("title");
    s.remove("description");
    Arc::new(s)
}

/// Parses a tool's raw arguments as `T`; a failure is the sentence the
/// tool answers (see [`memdir::api::args::worded`]). `default_action` fills a missing
/// `action` (the `learn` tool's default).
pub fn parse<T: DeserializeOwned>(
    tool: &str,
    raw: Value,
    default_action: Option<&str>,
) -> Result<T, String> {
    let mut raw = match raw {
        Value::Null => Value::Object(Default::default()),
        v => v,
    };
    if let (Some(d), Value::Object(m)) = (default_action, &mut raw) {
        m.entry("action").or_insert_with(|| Value::String(d.into()));
    }
    from_value(tool, &raw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_error_is_worded_as_the_seed_words_it() {
        let cases: &[(&str, Value, Option<&str>, &str)] = &[
            (
                "memory",
                json!({"action": "remember", "content": 1}),
                None,
                "invalid arguments for remember",
            ),
            (
                "memory",
                json!({"action": "search_runs"}),
                None,
                "query is required for search_runs",
            ),
            (
                "memory",
                json!({"action": "get_run"}),
                None,
                "run_id is required for get_run",
            ),
            (
                "memory",
                json!({"action": "save"}),
                None,
                "content is required for save",
            ),
            (
                "memory",
                json!({"action": "archive", "id": "mem_1"}),
                None,
                "reason is required for archive",
            ),
            ("memory", json!({}), None, "action is required for memory"),
            (
                "memory",
                json!({"action": "update"}),
                None,
                "action must be one of: recall, remember, search_runs, get_run, save, day, list, archive, unarchive, resolve, veto, recall_facts, propose, learnings",
            ),
            (
                "memory",
                json!({"action": "propose"}),
                None,
                "text is required for propose",
            ),
            (
                "memory",
                json!({"action": "list", "kind": "note"}),
                None,
                "kind must be one of: fact, day",
            ),
            (
                "memory",
                json!({"action": "remember", "target": "team"}),
                None,
                "target must be one of: user, memory",
            ),
            (
                "learn",
                json!({"action": "forget"}),
                Some("learn"),
                "forget needs name (the skill id from action: list).",
            ),
            (
                "learn",
                json!({"name": "x"}),
                Some("learn"),
                "content is required for learn",
            ),
            (
                "learn",
                json!({"action": "delete"}),
                Some("learn"),
                "action must be one of: learn, list, show, forget",
            ),
        ];
        for (tool, raw, default, want) in cases {
            let got = match *tool {
                "memory" => parse::<MemoryCall>(tool, raw.clone(), *default).map(|_| ()),
                _ => parse::<LearnCall>(tool, raw.clone(), *default).map(|_| ()),
            };
            let got = got.expect_err("an error");
            assert!(got.starts_with(want), "{raw}: {got:?}, not {want:?}");
        }
    }

    #[test]
    fn the_wire_names_parse() {
        let c: MemoryCall = parse(
            "memory",
            json!({"action": "remember", "target": "user", "agent_id": "agt_x", "content": "c"}),
            None,
        )
        .unwrap();
        let MemoryCall::Remember(r) = c else { panic!() };
        assert_eq!(r.target, Some(Target::User));
        assert_eq!(r.who.agent_id.as_deref(), Some("agt_x"));
        let c: LearnCall =
            parse("learn", json!({"name": "n", "source": "s"}), Some("learn")).unwrap();
        assert!(matches!(c, LearnCall::Learn { content, .. } if content == "s"));
    }
}
