//! The tools' arguments: what a client sends, one flat object per tool
//! (`MemoryArgs`, `LearnArgs`, `GetResultArgs`, `PutResultArgs`, whose
//! schemas are what `tools/list` shows, see `listing`), then checked per
//! action and turned into the typed per-action call (`MemoryCall`,
//! `LearnCall`). Both steps word their refusals as the seed does
//! ("content is required for remember", "action must be one of: …").

use memdir::api::args::from_value;
use memdir::api::types::{FactKind, Keep, Scope, Status};
use rmcp::schemars;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The arguments every tool takes to name an owner (the namespace rule).
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
pub struct Identity {
    /// The agent whose memory to use (`list` without it: every agent's).
    #[serde(rename = "agentId", alias = "agent_id")]
    #[schemars(extend("x-for" = "person"))]
    pub agent_id: Option<String>,
    /// Honoured only when it names this server's own identity; anything
    /// else is ignored with a warning.
    #[schemars(extend("x-for" = "none"))]
    pub memory_owner: Option<String>,
    /// Same as `memory_owner`.
    #[schemars(extend("x-for" = "none"))]
    pub owner: Option<String>,
    /// The user's words that led to the call (optional, not stored).
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

/// The `memory` tool's actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// your memory as a run starting now sees it
    Recall,
    /// add (default), replace, remove or read an entry of `target`
    Remember,
    /// search past runs' journal lines for `query`
    SearchRuns,
    /// one past run by `run_id`
    GetRun,
    /// a MEMORY.md fact with `expires`, `supersedes`
    Save,
    /// `content` as a line of today's day log
    Day,
    /// memories newest first (`kind`, `status`, `limit`)
    List,
    /// archive `id` with a `reason`
    Archive,
    /// bring archived `id` back
    Unarchive,
    /// settle what a merge left of `id` (`keep`)
    Resolve,
    /// veto `id` (`reason`)
    #[schemars(extend("x-for" = "person"))]
    Veto,
    /// the facts a recall would pick for `query`, with scores
    RecallFacts,
    /// `text` as a learning for every agent, once a person approves it
    Propose,
    /// the approved learnings and your proposals
    Learnings,
    /// your writes that wait for a person's review (`id`: one of them)
    Pending,
    /// approve the waiting write `id` (`text`: in place of its text)
    #[schemars(extend("x-for" = "person"))]
    ApprovePending,
    /// reject the waiting write `id` with a `reason`
    #[schemars(extend("x-for" = "person"))]
    RejectPending,
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

/// The `memory` tool's arguments as a client sends them: one flat object,
/// `action` naming what to do; each action's own arguments are checked by
/// [`MemoryArgs::call`].
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct MemoryArgs {
    /// What to do:
    pub action: Action,
    /// remember's store: `memory` (MEMORY.md, your notes; the default) or
    /// `user` (USER.md, facts about the user). A replace or remove
    /// without it looks in both.
    pub target: Option<Scope>,
    /// remember: add (default), replace, remove or read.
    pub operation: Option<Operation>,
    /// remember, save, day: the fact, at most 500 characters; a fact, not
    /// an instruction.
    pub content: Option<String>,
    /// remember's replace and remove: the entry's `mem_` id, or part of
    /// exactly one entry's text, copied verbatim.
    pub old_text: Option<String>,
    /// search_runs, recall_facts: what to look for.
    pub query: Option<String>,
    /// search_runs, list: at most this many.
    #[schemars(range(min = 1, max = 500))]
    pub limit: Option<u32>,
    /// get_run: the run id.
    pub run_id: Option<String>,
    /// save: YYYY-MM-DD or RFC 3339 (default: in 90 days).
    pub expires: Option<String>,
    /// save: the `mem_` id of a live fact this one replaces.
    pub supersedes: Option<String>,
    /// list: `fact` or `day`.
    pub kind: Option<FactKind>,
    /// list: `active` or `archived`.
    pub status: Option<Status>,
    /// The memory's `mem_` id (archive, unarchive, resolve); pending: a
    /// waiting write's `pnd_` id.
    pub id: Option<String>,
    /// archive, reject_pending: why.
    pub reason: Option<String>,
    /// resolve: both (a conflict pair), live (a fact also archived) or one
    /// (a duplicate).
    pub keep: Option<Keep>,
    /// propose: the learning, a fact every agent needs; approve_pending:
    /// the text to write in place of the waiting write's.
    pub text: Option<String>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub who: Identity,
}

/// `remember`'s arguments, checked.
#[derive(Debug, Clone)]
pub struct Remember {
    /// The store named, if any.
    pub target: Option<Scope>,
    /// The operation.
    pub operation: Operation,
    /// The text to store (add, replace).
    pub content: Option<String>,
    /// The entry a replace or remove names.
    pub old_text: Option<String>,
}

/// One call of the `memory` tool, its action's arguments checked.
#[derive(Debug, Clone)]
pub enum MemoryCall {
    /// The snapshot a run starting now would get.
    Recall,
    /// Edit or read a store.
    Remember(Remember),
    /// Search the run journal.
    SearchRuns {
        /// What to look for.
        query: String,
        /// At most this many lines.
        limit: Option<usize>,
    },
    /// One past run.
    GetRun {
        /// The run id.
        run_id: String,
    },
    /// Save one fact in MEMORY.md.
    Save {
        /// The fact.
        content: String,
        /// Its expiry.
        expires: Option<String>,
        /// The fact it replaces.
        supersedes: Option<String>,
    },
    /// A day-log line.
    Day {
        /// The line.
        content: String,
    },
    /// List memories.
    List {
        /// Facts or day logs.
        kind: Option<FactKind>,
        /// Live or archived.
        status: Option<Status>,
        /// At most this many rows.
        limit: Option<usize>,
    },
    /// Archive a memory.
    Archive {
        /// Its id.
        id: String,
        /// Why.
        reason: String,
    },
    /// Bring an archived memory back.
    Unarchive {
        /// Its id.
        id: String,
    },
    /// Settle what a merge left of a fact.
    Resolve {
        /// Its id.
        id: String,
        /// What to keep.
        keep: Keep,
    },
    /// A person's veto.
    Veto {
        /// The memory's id.
        id: String,
        /// Why.
        reason: Option<String>,
    },
    /// What a recall would pick.
    RecallFacts {
        /// What to look for.
        query: Option<String>,
    },
    /// Propose a learning.
    Propose {
        /// Its text.
        text: String,
    },
    /// The learnings.
    Learnings,
    /// The writes that wait for a person's review, or one of them.
    Pending {
        /// One write's id.
        id: Option<String>,
    },
    /// A person approves a waiting write.
    ApprovePending {
        /// Its id.
        id: String,
        /// The text in place of its text.
        text: Option<String>,
    },
    /// A person rejects a waiting write.
    RejectPending {
        /// Its id.
        id: String,
        /// Why.
        reason: String,
    },
}

/// `value`, or the seed's sentence naming `what` as required for `action`.
fn need<T>(value: Option<T>, what: &str, action: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("{what} is required for {action}"))
}

/// A text argument that must be there and not blank.
fn need_text(value: Option<String>, what: &str, action: &str) -> Result<String, String> {
    need(value.filter(|v| !v.trim().is_empty()), what, action)
}

impl MemoryArgs {
    /// The call these arguments make, each action's required arguments
    /// checked (a missing one: `FIELD is required for ACTION`).
    pub fn call(self) -> Result<MemoryCall, String> {
        let limit = self.limit.map(|l| l as usize);
        Ok(match self.action {
            Action::Recall => MemoryCall::Recall,
            Action::Remember => {
                let operation = self.operation.unwrap_or(Operation::Add);
                match operation {
                    Operation::Add | Operation::Replace if self.content.is_none() => {
                        return Err("content is required for remember".into());
                    }
                    Operation::Replace | Operation::Remove if self.old_text.is_none() => {
                        return Err("old_text is required for replace and remove".into());
                    }
                    _ => {}
                }
                MemoryCall::Remember(Remember {
                    target: self.target,
                    operation,
                    content: self.content,
                    old_text: self.old_text,
                })
            }
            Action::SearchRuns => MemoryCall::SearchRuns {
                query: need_text(self.query, "query", "search_runs")?,
                limit,
            },
            Action::GetRun => MemoryCall::GetRun {
                run_id: need_text(self.run_id, "run_id", "get_run")?,
            },
            Action::Save => MemoryCall::Save {
                content: need(self.content, "content", "save")?,
                expires: self.expires,
                supersedes: self.supersedes,
            },
            Action::Day => MemoryCall::Day {
                content: need(self.content, "content", "day")?,
            },
            Action::List => MemoryCall::List {
                kind: self.kind,
                status: self.status,
                limit,
            },
            Action::Archive => MemoryCall::Archive {
                id: need(self.id, "id", "archive")?,
                reason: need(self.reason, "reason", "archive")?,
            },
            Action::Unarchive => MemoryCall::Unarchive {
                id: need(self.id, "id", "unarchive")?,
            },
            Action::Resolve => MemoryCall::Resolve {
                id: need(self.id, "id", "resolve")?,
                keep: need(self.keep, "keep", "resolve")?,
            },
            Action::Veto => MemoryCall::Veto {
                id: need(self.id, "id", "veto")?,
                reason: self.reason,
            },
            Action::RecallFacts => MemoryCall::RecallFacts { query: self.query },
            Action::Propose => MemoryCall::Propose {
                text: need(self.text, "text", "propose")?,
            },
            Action::Learnings => MemoryCall::Learnings,
            Action::Pending => MemoryCall::Pending { id: self.id },
            Action::ApprovePending => MemoryCall::ApprovePending {
                id: need_text(self.id, "id", "approve_pending")?,
                text: self.text,
            },
            // An agent is refused for what it is (`person_only`, by the
            // library, which checks the caller before the reason).
            Action::RejectPending => MemoryCall::RejectPending {
                id: need_text(self.id, "id", "reject_pending")?,
                reason: self.reason.unwrap_or_default(),
            },
        })
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
    /// The agent whose results to read.
    #[serde(rename = "agentId", alias = "agent_id")]
    #[schemars(extend("x-for" = "person"))]
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
    /// The agent whose results to write.
    #[serde(rename = "agentId", alias = "agent_id")]
    #[schemars(extend("x-for" = "person"))]
    pub agent_id: Option<String>,
}

/// The `learn` tool's actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LearnAction {
    /// save `content` as the skill `name` (the default)
    #[default]
    Learn,
    /// your skills: - name — description
    List,
    /// one skill's SKILL.md
    Show,
    /// delete the skill `name`
    Forget,
}

/// The `learn` tool's arguments as a client sends them: one flat object.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct LearnArgs {
    /// What to do:
    pub action: Option<LearnAction>,
    /// The skill's name, an id such as `cnl-debugging`.
    pub name: Option<String>,
    /// learn: the skill's markdown, distilled reusable steps and facts
    /// (also accepted as `source`).
    #[serde(alias = "source")]
    pub content: Option<String>,
    /// learn: one line on what the skill is for.
    pub description: Option<String>,
    /// learn: true to replace a different skill of the same name.
    pub replace: Option<bool>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub who: Identity,
}

/// One call of the `learn` tool, its action's arguments checked.
#[derive(Debug, Clone)]
pub enum LearnCall {
    /// Save a skill.
    Learn {
        /// Its name.
        name: String,
        /// Its markdown.
        content: String,
        /// What it is for.
        description: Option<String>,
        /// Replace a different skill of that name.
        replace: bool,
    },
    /// List the skills.
    List,
    /// One skill.
    Show {
        /// Its name.
        name: String,
    },
    /// Delete a skill.
    Forget {
        /// Its name.
        name: String,
    },
}

impl LearnArgs {
    /// The call these arguments make, each action's required arguments
    /// checked in the seed's words.
    pub fn call(self) -> Result<LearnCall, String> {
        Ok(match self.action.unwrap_or_default() {
            LearnAction::Learn => LearnCall::Learn {
                name: need_text(self.name, "name", "learn")?,
                content: need_text(self.content, "content", "learn")?,
                description: self.description,
                replace: self.replace.unwrap_or(false),
            },
            LearnAction::List => LearnCall::List,
            LearnAction::Show => LearnCall::Show {
                name: need_text(self.name, "name", "show")?,
            },
            LearnAction::Forget => LearnCall::Forget {
                name: need_text(self.name, "name", "forget")
                    .map_err(|_| "forget needs name (the skill id from action: list).")?,
            },
        })
    }
}

/// Parses a tool's raw arguments as `T`; a failure is the sentence the
/// tool answers (see [`memdir::api::args::worded`]).
pub fn parse<T: DeserializeOwned>(tool: &str, raw: Value) -> Result<T, String> {
    let raw = match raw {
        Value::Null => Value::Object(Default::default()),
        v => v,
    };
    from_value(tool, &raw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn memory(raw: Value) -> Result<MemoryCall, String> {
        parse::<MemoryArgs>("memory", raw).and_then(MemoryArgs::call)
    }

    fn learn(raw: Value) -> Result<LearnCall, String> {
        parse::<LearnArgs>("learn", raw).and_then(LearnArgs::call)
    }

    #[test]
    fn each_error_is_worded_as_the_seed_words_it() {
        let cases: &[(&str, Value, &str)] = &[
            (
                "memory",
                json!({"action": "remember", "content": 1}),
                "invalid content for remember",
            ),
            (
                "memory",
                json!({"action": "remember"}),
                "content is required for remember",
            ),
            (
                "memory",
                json!({"action": "remember", "operation": "remove"}),
                "old_text is required for replace and remove",
            ),
            (
                "memory",
                json!({"action": "search_runs"}),
                "query is required for search_runs",
            ),
            (
                "memory",
                json!({"action": "get_run"}),
                "run_id is required for get_run",
            ),
            (
                "memory",
                json!({"action": "save"}),
                "content is required for save",
            ),
            (
                "memory",
                json!({"action": "archive", "id": "mem_1"}),
                "reason is required for archive",
            ),
            ("memory", json!({}), "action is required for memory"),
            (
                "memory",
                json!({"action": "update"}),
                "action must be one of: recall, remember, search_runs, get_run, save, day, list, archive, unarchive, resolve, veto, recall_facts, propose, learnings, pending, approve_pending, reject_pending",
            ),
            (
                "memory",
                json!({"action": "propose"}),
                "text is required for propose",
            ),
            (
                "memory",
                json!({"action": "list", "kind": "note"}),
                "kind must be one of: fact, day",
            ),
            (
                "memory",
                json!({"action": "remember", "target": "team"}),
                "target must be one of: memory, user",
            ),
            (
                "memory",
                json!({"action": "resolve", "id": "mem_1"}),
                "keep is required for resolve",
            ),
            (
                "learn",
                json!({"action": "forget"}),
                "forget needs name (the skill id from action: list).",
            ),
            (
                "learn",
                json!({"name": "x"}),
                "content is required for learn",
            ),
            (
                "learn",
                json!({"action": "delete"}),
                "action must be one of: learn, list, show, forget",
            ),
        ];
        for (tool, raw, want) in cases {
            let got = match *tool {
                "memory" => memory(raw.clone()).map(|_| ()),
                _ => learn(raw.clone()).map(|_| ()),
            };
            let got = got.expect_err("an error");
            assert!(got.starts_with(want), "{raw}: {got:?}, not {want:?}");
        }
    }

    #[test]
    fn the_wire_names_parse() {
        let c = memory(
            json!({"action": "remember", "target": "user", "agent_id": "agt_x", "content": "c"}),
        )
        .unwrap();
        let MemoryCall::Remember(r) = c else { panic!() };
        assert_eq!(r.target, Some(Scope::User));
        assert_eq!(r.operation, Operation::Add);
        let c = learn(json!({"name": "n", "source": "s"})).unwrap();
        assert!(matches!(c, LearnCall::Learn { content, .. } if content == "s"));
        let a: MemoryArgs = parse(
            "memory",
            json!({"action": "list", "agentId": "agt_y", "limit": 3}),
        )
        .unwrap();
        assert_eq!(a.who.agent_id.as_deref(), Some("agt_y"));
        assert!(matches!(
            a.call(),
            Ok(MemoryCall::List { limit: Some(3), .. })
        ));
    }
}
