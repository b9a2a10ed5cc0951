//! `memdir mcp`: a stdio MCP server (the official Rust SDK, `rmcp`) over the
//! interface layer. Four tools, shaped like the seed's `plungeai_memory`,
//! `plungeai_get_result` and `plungeai_learn`: `memory` (one tool with
//! actions, so the tool list stays small), `get_result`, `put_result` and
//! `learn` (learned skills: learn, list, show, forget); the snapshot and the
//! two stores as resources. The identity is fixed when the server starts
//! (an agent, or a person); every call opens the store afresh and runs its
//! file work off the async workers. Protocol on standard output, logs on
//! standard error only.

use std::sync::Arc;

use memdir::Status;
use memdir::api::errors::Surface;
use memdir::api::servers::{self, Opener};
use memdir::api::{self, Request, Response, Who, render};
use memdir::{Caller, Error, Op, OpKind, Scope, Store};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt, tool, tool_handler};
use rmcp::{schemars, tool_router};
use serde::Deserialize;

/// What the server was started with.
#[derive(Debug, Clone)]
pub struct Config {
    /// How to open the store for each call.
    pub opener: Opener,
    /// Who the server acts as, for every call.
    pub who: Who,
    /// Serve this begun run's frozen snapshot as `recall` and the snapshot
    /// resource.
    pub run: Option<String>,
}

/// The server: its fixed identity (the tool router is built by
/// `#[tool_router]`).
#[derive(Clone)]
pub struct Server {
    cfg: Arc<Config>,
}

/// The `memory` tool's actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// The snapshot a run starting now would get (MEMORY.md + USER.md).
    Recall,
    /// Edit or read USER.md (`target: user`) or MEMORY.md (`target: memory`).
    Remember,
    /// Search the run journal (episodes.md): needs `query`.
    SearchRuns,
    /// One past run: needs `run_id`.
    GetRun,
    /// Save one fact in MEMORY.md, with `expires` and `supersedes`.
    Save,
    /// Append `content` to today's day log (agents only).
    Day,
    /// List memories, newest first.
    List,
    /// Archive the memory `id` with a `reason`.
    Archive,
    /// Bring the archived memory `id` back.
    Unarchive,
    /// A person's veto of the memory `id`.
    Veto,
    /// What a recall would pick for `query`, with scores.
    RecallFacts,
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

/// The `memory` tool's arguments.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct MemoryArgs {
    /// What to do.
    pub action: Action,
    /// `remember`: `user` (USER.md, what you know about the user) or
    /// `memory` (MEMORY.md, your own notes). Default `memory`.
    pub target: Option<String>,
    /// `remember`: add (default), replace, remove or read.
    pub operation: Option<Operation>,
    /// The text to store (`remember` add/replace, `save`, `day`).
    pub content: Option<String>,
    /// `remember` replace/remove: an entry's `mem_` id, or a part of
    /// exactly one entry's text, copied verbatim from the current entries.
    pub old_text: Option<String>,
    /// `search_runs`, `recall_facts`: what to look for.
    pub query: Option<String>,
    /// `get_run`: the run id.
    pub run_id: Option<String>,
    /// `archive`, `unarchive`, `veto`: the memory's `mem_` id.
    pub id: Option<String>,
    /// `archive` (required), `veto`: why.
    pub reason: Option<String>,
    /// `save`: expiry, a date YYYY-MM-DD or an RFC 3339 time (default 90 days).
    pub expires: Option<String>,
    /// `save`: the `mem_` id of a live fact the new one replaces.
    pub supersedes: Option<String>,
    /// `list`: `fact` or `day`.
    pub kind: Option<String>,
    /// `list`: `active` or `archived`.
    pub status: Option<String>,
    /// `list`: at most this many rows (default 100, at most 500);
    /// `search_runs`: at most this many lines (default 20).
    pub limit: Option<usize>,
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

/// The `learn` tool's actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LearnAction {
    /// Save `content` as the skill `name` (the default action).
    Learn,
    /// List the learned skills: `- name — description`.
    List,
    /// One skill's SKILL.md: needs `name`.
    Show,
    /// Delete the skill `name`.
    Forget,
}

/// The `learn` tool's arguments.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct LearnArgs {
    /// What to do (default `learn`).
    pub action: Option<LearnAction>,
    /// The skill's name, an id such as `cnl-debugging` (`learn`, `show`,
    /// `forget`; `forget` takes the name `list` shows).
    pub name: Option<String>,
    /// `learn`: the skill's markdown: distilled, reusable steps and facts
    /// (pasted text, or what was just worked out in this chat). Also
    /// accepted as `source`.
    #[serde(alias = "source")]
    pub content: Option<String>,
    /// `learn`: one line on what the skill is for (default: the content's
    /// front matter, else its first line).
    pub description: Option<String>,
    /// `learn`: replace a different skill of the same name.
    pub replace: Option<bool>,
    /// A person's server: the agent whose skills to use.
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

/// A tool's answer: text, marked as an error or not.
fn answer(text: String, error: bool) -> CallToolResult {
    let content = vec![ContentBlock::text(text)];
    if error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    }
}

/// The rendering of a response as text, with its warnings.
fn rendered(r: &Response) -> String {
    let out = render::render_on(r, false, Surface::Mcp);
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    for w in out.warnings {
        text.push_str(&format!("warning: {w}\n"));
    }
    text
}

/// `result` with `warning: …` lines in front (an owner named in the call
/// and ignored).
fn with_warnings(mut result: CallToolResult, warnings: &[String]) -> CallToolResult {
    if warnings.is_empty() {
        return result;
    }
    let mut text: String = warnings.iter().map(|w| format!("warning: {w}\n")).collect();
    for c in &result.content {
        if let Some(t) = c.as_text() {
            text.push_str(&t.text);
        }
    }
    result.content = vec![ContentBlock::text(text)];
    result
}

/// Lines listing the current entries (for a failed write).
fn entries_text(list: &[(Scope, memdir::EntryBrief)], only: Option<Scope>) -> String {
    let mut out = String::new();
    for scope in Scope::ALL {
        if only.is_some_and(|o| o != scope) {
            continue;
        }
        out.push_str(&format!("Current entries of {}:\n", scope.file_name()));
        let mut any = false;
        for (_, e) in list.iter().filter(|(s, _)| *s == scope) {
            any = true;
            out.push_str(&format!("- {}  {}\n", e.id, e.text.replace('\n', " ")));
        }
        if !any {
            out.push_str("(no entries)\n");
        }
    }
    out
}

fn required(what: &str, action: &str) -> CallToolResult {
    answer(format!("{what} is required for {action}"), true)
}

impl Server {
    /// A server for `cfg`.
    pub fn new(cfg: Config) -> Server {
        Server { cfg: Arc::new(cfg) }
    }

    /// Runs `f` on a fresh store off the async workers.
    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Store) -> T + Send + 'static,
    ) -> Result<T, McpError> {
        let opener = self.cfg.opener.clone();
        tokio::task::spawn_blocking(move || opener.open().map(|s| f(&s)))
            .await
            .map_err(|e| McpError::internal_error(format!("worker failed: {e}"), None))?
            .map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    /// Who a call acts as: the server's identity, with the namespace rule
    /// applied to the owner it names; and the warning, if one was ignored.
    fn who(&self, named: &[Option<&String>]) -> (Who, Vec<String>) {
        let mut who = self.cfg.who.clone();
        let mut warnings = Vec::new();
        for n in named.iter().flatten() {
            let (w, warn) = servers::resolve_named(&who, Some(n.as_str()));
            who = w;
            warnings.extend(warn);
        }
        (who, warnings)
    }

    /// The snapshot `recall` answers: the run's frozen one with `--run`,
    /// else rendered now.
    fn snapshot_text(store: &Store, who: &Who, run: Option<&str>) -> Result<String, Error> {
        let text = match run {
            Some(run_id) => match api::execute(
                store,
                who,
                Request::GetRun {
                    run_id: run_id.to_owned(),
                },
            )? {
                Response::Run(v) => v.snapshot.unwrap_or_default(),
                _ => String::new(),
            },
            None => match api::execute(store, who, Request::Snapshot)? {
                Response::Snapshot(s) => s.text,
                _ => String::new(),
            },
        };
        Ok(text)
    }
}

/// Whether the snapshot holds no entry at all.
fn empty_snapshot(store: &Store, who: &Who) -> Result<bool, Error> {
    Ok(servers::current_entries(store, who)?.is_empty())
}

#[tool_router]
impl Server {
    #[tool(
        description = "The user's long-term memory: two curated markdown stores (USER.md: facts about the user; MEMORY.md: your own notes) that every run starts from, and the run journal of past runs, which is searched on demand and never injected. Actions: recall (the snapshot a run starting now gets; a remember is visible immediately); remember (target user|memory, operation add|replace|remove|read, content, old_text: use it whenever the user says \"remember this\"; store facts, not instructions); search_runs (query, limit); get_run (run_id); save (a fact with expires, supersedes); day (content: a line in today's day log); list (kind, status, limit); archive (id, reason); unarchive (id); veto (id, a person only); recall_facts (query: what a recall would pick, with scores). Stores are small on purpose: past the budget, replace or remove stale entries. A failed write answers with the current entries: copy old_text verbatim from them and retry.",
        annotations(
            title = "memdir memory",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn memory(
        &self,
        Parameters(args): Parameters<MemoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let (who, warnings) = self.who(&[
            args.memory_owner.as_ref(),
            args.owner.as_ref(),
            args.agent_id.as_ref(),
        ]);
        let run = self.cfg.run.clone();
        let result = self
            .blocking(move |store| memory_action(store, &who, run.as_deref(), args))
            .await?;
        Ok(with_warnings(result, &warnings))
    }

    #[tool(
        description = "Fetch what a run produced (SharedMemory): with task_id, that task's result in full; without, the run's final result, listing its steps (open any with its task_id). Pass workflow_id (or execution_id). \"not ready: still running, poll\" is an answer, not an error: call again later.",
        annotations(
            title = "memdir get_result",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_result(
        &self,
        Parameters(args): Parameters<GetResultArgs>,
    ) -> Result<CallToolResult, McpError> {
        let Some(workflow_id) = args.workflow_id.or(args.execution_id) else {
            return Ok(required("workflow_id (or execution_id)", "get_result"));
        };
        let (who, warnings) = self.who(&[args.agent_id.as_ref()]);
        let task = args.task_id;
        let result = self
            .blocking(move |store| {
                let request = match task {
                    Some(task_id) => Request::GetResult {
                        workflow_id,
                        task_id,
                    },
                    None => Request::WorkflowResults { workflow_id },
                };
                match api::execute(store, &who, request) {
                    Ok(Response::Result(r)) => {
                        let body = match String::from_utf8(r.content.clone()) {
                            Ok(s) => s,
                            Err(_) => {
                                format!("(binary content, base64)\n{}", render::base64(&r.content))
                            }
                        };
                        answer(
                            format!(
                                "{}/{} ({}, {} bytes, stored {})\n\n{body}",
                                r.workflow_id,
                                r.task_id,
                                r.content_type,
                                r.content.len(),
                                r.created_at
                            ),
                            false,
                        )
                    }
                    Ok(other) => answer(rendered(&other), false),
                    Err(e) if e.code() == memdir::ErrorCode::NotReady => {
                        answer("not ready: still running, poll".into(), false)
                    }
                    Err(e) => answer(render::error_text(&e, Surface::Mcp), true),
                }
            })
            .await?;
        Ok(with_warnings(result, &warnings))
    }

    #[tool(
        description = "Store a task's result (SharedMemory) under (workflow_id, task_id), as text with its content_type (default text/plain). Results are immutable: the same content again is \"already stored\"; different content under the same ids is refused (result_exists).",
        annotations(
            title = "memdir put_result",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn put_result(
        &self,
        Parameters(args): Parameters<PutResultArgs>,
    ) -> Result<CallToolResult, McpError> {
        let (who, warnings) = self.who(&[args.agent_id.as_ref()]);
        let result = self
            .blocking(move |store| {
                let request = Request::PutResult {
                    workflow_id: args.workflow_id,
                    task_id: args.task_id,
                    content: args.content.into_bytes(),
                    content_type: args.content_type,
                    overwrite: false,
                    allow_empty: args.allow_empty.unwrap_or(false),
                    limit: None,
                };
                match api::execute(store, &who, request) {
                    Ok(r) => answer(rendered(&r), false),
                    Err(e) => answer(render::error_text(&e, Surface::Mcp), true),
                }
            })
            .await?;
        Ok(with_warnings(result, &warnings))
    }

    #[tool(
        description = "Learned skills, private to this memory's owner: reusable procedures a future run can inject (`run begin --skill NAME`). Actions: learn (name, content: the skill's markdown, description, replace: true to overwrite a different skill of that name) — use it to distill what a session worked out (\"save this as a skill\"); list (your skills: - name — description); show (name); forget (name, from list). Skills are scanned like memory: instructions aimed at future agents or secrets are refused; store procedures and facts. A failed call answers with the error and your current skills.",
        annotations(
            title = "memdir learn",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn learn(
        &self,
        Parameters(args): Parameters<LearnArgs>,
    ) -> Result<CallToolResult, McpError> {
        let (who, warnings) = self.who(&[
            args.memory_owner.as_ref(),
            args.owner.as_ref(),
            args.agent_id.as_ref(),
        ]);
        let result = self
            .blocking(move |store| learn_action(store, &who, args))
            .await?;
        Ok(with_warnings(result, &warnings))
    }
}

/// One call of the `learn` tool, on a store opened for it: through
/// `api::execute` as the command line's `skill` commands; a failure
/// answers with the error (worded for this tool) and the current skills.
fn learn_action(store: &Store, who: &Who, a: LearnArgs) -> CallToolResult {
    let action = a.action.unwrap_or(LearnAction::Learn);
    let name = a.name.filter(|n| !n.trim().is_empty());
    let request = match (action, name) {
        (LearnAction::List, _) => Request::SkillList,
        (LearnAction::Forget, None) => {
            return answer(
                "forget needs name (the skill id from action: list).".into(),
                true,
            );
        }
        (LearnAction::Show | LearnAction::Learn, None) => {
            return required("name", "learn and show");
        }
        (LearnAction::Show, Some(name)) => Request::SkillShow { name },
        (LearnAction::Forget, Some(name)) => Request::SkillForget { name },
        (LearnAction::Learn, Some(name)) => match a.content {
            Some(source) if !source.trim().is_empty() => Request::SkillLearn {
                name,
                source,
                description: a.description,
                replace: a.replace.unwrap_or(false),
            },
            _ => return required("content (the skill's markdown)", "learn"),
        },
    };
    match api::execute(store, who, request) {
        Ok(Response::Skill(o)) if o.message != "forgot" => {
            let mut text = match o.message {
                "already stored" => format!("Skill {} is already stored ({}).\n", o.name, o.path),
                m => format!(
                    "{} skill {} ({}, {} bytes); a run injects it with `run begin --skill {}`.\n",
                    if m == "replaced" { "Replaced" } else { "Saved" },
                    o.name,
                    o.path,
                    o.bytes.unwrap_or(0),
                    o.name
                ),
            };
            for w in &o.warnings {
                text.push_str(&format!("warning: {w}\n"));
            }
            answer(text, false)
        }
        Ok(r) => answer(rendered(&r), false),
        Err(e) => {
            let mut text = render::error_text(&e, Surface::Mcp);
            if let Ok(r) = api::execute(store, who, Request::SkillList) {
                text.push_str("Your skills:\n");
                text.push_str(&rendered(&r));
            }
            answer(text, true)
        }
    }
}

/// One call of the `memory` tool, on a store opened for it.
fn memory_action(store: &Store, who: &Who, run: Option<&str>, a: MemoryArgs) -> CallToolResult {
    let request = match a.action {
        Action::Recall => {
            return match Server::snapshot_text(store, who, run) {
                Ok(t) if run.is_none() && empty_snapshot(store, who).unwrap_or(false) => {
                    let _ = t;
                    answer("No memory recorded yet.".into(), false)
                }
                Ok(t) if t.trim().is_empty() => answer("No memory recorded yet.".into(), false),
                Ok(t) => answer(t, false),
                Err(e) => answer(render::error_text(&e, Surface::Mcp), true),
            };
        }
        Action::Remember => return remember(store, who, run.is_some(), &a),
        Action::SearchRuns => match a.query {
            Some(query) if !query.trim().is_empty() => Request::SearchRuns {
                query,
                since: None,
                until: None,
                limit: a.limit,
            },
            _ => return required("query", "search_runs"),
        },
        Action::GetRun => match a.run_id {
            Some(run_id) => Request::GetRun { run_id },
            None => return required("run_id", "get_run"),
        },
        Action::Save => match a.content {
            Some(text) => Request::Write {
                op: Op::Add {
                    text,
                    scope: Scope::Memory,
                    expires: a.expires,
                    supersedes: a.supersedes,
                },
            },
            None => return required("content", "save"),
        },
        Action::Day => match a.content {
            Some(line) => Request::Day {
                line,
                task: None,
                run: run.map(str::to_owned),
            },
            None => return required("content", "day"),
        },
        Action::List => {
            let kind = match a.kind.as_deref() {
                None => None,
                Some("fact") => Some(memdir::FactKind::Fact),
                Some("day") => Some(memdir::FactKind::Day),
                Some(k) => return answer(format!("kind must be fact or day, not {k:?}"), true),
            };
            let status = match a.status.as_deref() {
                None => None,
                Some("active") => Some(Status::Active),
                Some("archived") => Some(Status::Archived),
                Some(s) => {
                    return answer(
                        format!("status must be active or archived, not {s:?}"),
                        true,
                    );
                }
            };
            Request::List {
                kind,
                all: status == Some(Status::Archived),
                status,
                limit: a.limit,
            }
        }
        Action::Archive => match (a.id, a.reason) {
            (Some(id), Some(reason)) => Request::Archive { id, reason },
            (None, _) => return required("id", "archive"),
            (_, None) => return required("reason", "archive"),
        },
        Action::Unarchive => match a.id {
            Some(id) => Request::Unarchive { id },
            None => return required("id", "unarchive"),
        },
        Action::Veto => match a.id {
            Some(id) => Request::Veto {
                id,
                reason: a.reason,
            },
            None => return required("id", "veto"),
        },
        Action::RecallFacts => Request::Recall {
            query: a.query,
            session: None,
            on_demand: true,
            preview: false,
        },
    };
    match api::execute(store, who, request) {
        Ok(r) => answer(rendered(&r), false),
        Err(e) => answer(render::error_text(&e, Surface::Mcp), true),
    }
}

/// The `remember` action: the seed's add / replace / remove / read on one
/// store; a failed write answers with the error and the current entries
/// (once, as docs/API.md shows them). Under a run (`mcp --run`) the run's
/// snapshot stays frozen, so a write is for the next run.
fn remember(store: &Store, who: &Who, in_run: bool, a: &MemoryArgs) -> CallToolResult {
    let seen = if in_run {
        "the next run will see it (this run's snapshot stays as it began)"
    } else {
        "recall will see it immediately"
    };
    // A replace or remove that names no target looks in both stores.
    let target = match a.target.as_deref() {
        None => None,
        Some(t) => match Scope::parse(t) {
            Some(s) => Some(s),
            None => return answer(format!("target must be user or memory, not {t:?}"), true),
        },
    };
    let scope = target.unwrap_or(Scope::Memory);
    let op_kind = a.operation.unwrap_or(Operation::Add);
    let op = match (op_kind, &a.content, &a.old_text) {
        (Operation::Read, _, _) => {
            return match servers::store_markdown(store, who, scope) {
                Ok(t) => answer(t, false),
                Err(e) => answer(render::error_text(&e, Surface::Mcp), true),
            };
        }
        (Operation::Add, Some(c), _) => Op::add(scope, c.clone()),
        (Operation::Add, None, _) => return required("content", "remember"),
        (Operation::Replace, Some(c), Some(old)) => Op::Replace {
            old: old.clone(),
            new: c.clone(),
            scope: target,
        },
        (Operation::Replace, None, _) => return required("content", "remember"),
        (Operation::Replace | Operation::Remove, _, None) => {
            return required("old_text", "replace and remove");
        }
        (Operation::Remove, _, Some(old)) => Op::Remove {
            old: old.clone(),
            scope: target,
        },
    };
    match api::execute(store, who, Request::Write { op }) {
        Ok(Response::Written(w)) => {
            let place = match w.outcome.scope {
                Scope::User => "your user profile (USER.md)",
                Scope::Memory => "your memory (MEMORY.md)",
            };
            let o = &w.outcome;
            let mut text = match o.op {
                OpKind::Add if o.message.created() => {
                    format!("Saved to {place} as {} ({}); {seen}.\n", o.id, w.usage.text)
                }
                OpKind::Add => format!(
                    "Already stored in {place} as {} ({}).\n",
                    o.id, w.usage.text
                ),
                OpKind::Replace => format!(
                    "Replaced {} with {} in {place} ({}); {seen}.\n",
                    o.old_id.as_deref().unwrap_or_default(),
                    o.id,
                    w.usage.text
                ),
                _ => format!("Removed {} from {place} ({}).\n", o.id, w.usage.text),
            };
            for id in &w.archived {
                text.push_str(&format!("archived {id}\n"));
            }
            for warn in &w.warnings {
                text.push_str(&format!("warning: {warn}\n"));
            }
            answer(text, false)
        }
        Ok(other) => answer(rendered(&other), false),
        Err(e) => {
            let mut text = render::error_head(&e, Surface::Mcp);
            if let Error::AmbiguousMatch { .. } = e {
                text.push_str("Name one entry: copy its id or a longer part of its text.\n");
            }
            if let Ok(list) = servers::current_entries(store, who) {
                let only = match op_kind {
                    Operation::Add => Some(scope),
                    _ => target,
                };
                text.push_str(&entries_text(&list, only));
            }
            answer(text, true)
        }
    }
}

#[tool_handler]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let me = match &self.cfg.who.caller {
            Caller::Agent(a) => format!("agent {a}"),
            Caller::Person(p) => format!("person {p}"),
        };
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("memdir", env!("CARGO_PKG_VERSION")))
        .with_instructions(format!(
            "memdir: long-term markdown memory, acting as {me}. Call memory {{action: \"recall\"}} to read what you know; memory {{action: \"remember\", ...}} when the user says to remember something; get_result / put_result for task results; learn to save a reusable procedure as a skill."
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let Some(owner) = self.owner_id() else {
            return Ok(ListResourcesResult::default());
        };
        let mut resources = vec![
            Resource::new(format!("memdir://{owner}/snapshot"), "snapshot")
                .with_description(if self.cfg.run.is_some() {
                    "The frozen snapshot this run began with"
                } else {
                    "The snapshot of USER.md and MEMORY.md a run starting now gets"
                })
                .with_mime_type("text/markdown"),
        ];
        for scope in Scope::ALL {
            resources.push(
                Resource::new(
                    format!("memdir://{owner}/{}", scope.file_name()),
                    scope.file_name(),
                )
                .with_description(match scope {
                    Scope::User => "What the agent knows about the user (entries)",
                    Scope::Memory => "The agent's own notes (entries)",
                })
                .with_mime_type("text/markdown"),
            );
        }
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri.clone();
        let owner = self.owner_id().unwrap_or_default();
        let what = uri
            .strip_prefix(&format!("memdir://{owner}/"))
            .map(str::to_owned);
        let not_found = || {
            McpError::resource_not_found(
                "resource_not_found",
                Some(serde_json::json!({ "uri": uri })),
            )
        };
        let Some(what) = what.filter(|_| !owner.is_empty()) else {
            return Err(not_found());
        };
        let who = self.cfg.who.clone();
        let run = self.cfg.run.clone();
        let text = self
            .blocking(move |store| match what.as_str() {
                "snapshot" => Server::snapshot_text(store, &who, run.as_deref()).map(Some),
                name => match Scope::ALL.into_iter().find(|s| s.file_name() == name) {
                    Some(scope) => servers::store_markdown(store, &who, scope).map(Some),
                    None => Ok(None),
                },
            })
            .await?
            .map_err(|e| McpError::internal_error(e.to_string(), None))?
            .ok_or_else(not_found)?;
        let mut contents = ResourceContents::text(text, request.uri.clone());
        if let ResourceContents::TextResourceContents { mime_type, .. } = &mut contents {
            *mime_type = Some("text/markdown".into());
        }
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

impl Server {
    /// The owner whose resources the server lists: the agent, or the agent
    /// a person's server names with `--agent`.
    fn owner_id(&self) -> Option<String> {
        match &self.cfg.who.caller {
            Caller::Agent(a) => Some(a.clone()),
            Caller::Person(_) => self.cfg.who.named.clone(),
        }
    }
}

/// Serves MCP on standard input and output until the client closes them.
pub fn run(cfg: Config) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async move {
        eprintln!("memdir mcp: serving {} on stdio", cfg.opener.root.display());
        let service = Server::new(cfg)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("cannot start the MCP session: {e}"))?;
        service
            .waiting()
            .await
            .map_err(|e| format!("the MCP session failed: {e}"))?;
        Ok(())
    })
}
