//! `memdir mcp`: a stdio MCP server (the official Rust SDK, `rmcp`) over the
//! interface layer. Four tools, shaped like the seed's `plungeai_memory`,
//! `plungeai_get_result` and `plungeai_learn`: `memory` (one tool with
//! actions, so the tool list stays small), `get_result`, `put_result` and
//! `learn` (learned skills: learn, list, show, forget); the snapshot and the
//! two stores as resources. The identity is fixed when the server starts
//! (an agent, or a person); every call opens the store afresh and runs its
//! file work off the async workers. Protocol on standard output, logs on
//! standard error only.

mod args;
mod lines;
mod memory;
mod results;
mod skills;

use std::sync::Arc;

use memdir::api::errors::Surface;
use memdir::api::servers::{self, Opener};
use memdir::api::{self, Request, Response, Who, render};
use memdir::{Caller, Error, Scope, Store};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::tool_router;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt, tool, tool_handler};
use serde_json::Value;

use args::{GetResultArgs, LearnCall, MemoryCall, PutResultArgs};

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

/// The seed's sentence for an argument an action needs.
fn required(what: &str, action: &str) -> CallToolResult {
    answer(format!("{what} is required for {action}"), true)
}

/// The snapshot `recall` answers: the run's frozen one with `--run`, else
/// rendered now.
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
}

#[tool_router]
impl Server {
    #[tool(
        description = "The user's long-term memory: two curated markdown stores (USER.md: facts about the user; MEMORY.md: your own notes) that every run starts from, and the run journal of past runs, which is searched on demand and never injected. Actions: recall (the snapshot a run starting now gets; a remember is visible immediately); remember (target user|memory, operation add|replace|remove|read, content, old_text: use it whenever the user says \"remember this\"; store facts, not instructions); search_runs (query, limit); get_run (run_id); save (a fact with expires, supersedes); day (content: a line in today's day log); list (kind, status, limit); archive (id, reason); unarchive (id); resolve (id, keep both|live|one: settle what a merge left, as check finds it); veto (id, a person only); recall_facts (query: what a recall would pick, with scores); propose (text: a fact every agent needs, shared once a person approves it); learnings (the approved learnings and your own proposals). Stores are small on purpose: past the budget, replace or remove stale entries. A failed write answers with the current entries: copy old_text verbatim from them and retry.",
        input_schema = args::schema::<MemoryCall>(),
        annotations(
            title = "memdir memory",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn memory(&self, Parameters(raw): Parameters<Value>) -> Result<CallToolResult, McpError> {
        let call: MemoryCall = match args::parse("memory", raw, None) {
            Ok(c) => c,
            Err(text) => return Ok(answer(text, true)),
        };
        let (who, warnings) = self.who(&call.who().named());
        let run = self.cfg.run.clone();
        let result = self
            .blocking(move |store| memory::memory_action(store, &who, run.as_deref(), call))
            .await?;
        Ok(with_warnings(result, &warnings))
    }

    #[tool(
        description = "Fetch what a run produced (SharedMemory): with task_id, that task's result in full; without, the run's final result, listing its steps (open any with its task_id). Pass workflow_id (or execution_id). \"not ready: still running, poll\" is an answer, not an error: call again later.",
        input_schema = args::schema::<GetResultArgs>(),
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
        Parameters(raw): Parameters<Value>,
    ) -> Result<CallToolResult, McpError> {
        let a: GetResultArgs = match args::parse("get_result", raw, None) {
            Ok(a) => a,
            Err(text) => return Ok(answer(text, true)),
        };
        let Some(workflow_id) = a.workflow_id.or(a.execution_id) else {
            return Ok(required("workflow_id (or execution_id)", "get_result"));
        };
        let (who, warnings) = self.who(&[a.agent_id.as_ref()]);
        let task = a.task_id;
        let result = self
            .blocking(move |store| results::get_result(store, &who, workflow_id, task))
            .await?;
        Ok(with_warnings(result, &warnings))
    }

    #[tool(
        description = "Store a task's result (SharedMemory) under (workflow_id, task_id), as text with its content_type (default text/plain). Results are immutable: the same content again is \"already stored\"; different content under the same ids is refused (result_exists).",
        input_schema = args::schema::<PutResultArgs>(),
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
        Parameters(raw): Parameters<Value>,
    ) -> Result<CallToolResult, McpError> {
        let a: PutResultArgs = match args::parse("put_result", raw, None) {
            Ok(a) => a,
            Err(text) => return Ok(answer(text, true)),
        };
        let (who, warnings) = self.who(&[a.agent_id.as_ref()]);
        let result = self
            .blocking(move |store| results::put_result(store, &who, a))
            .await?;
        Ok(with_warnings(result, &warnings))
    }

    #[tool(
        description = "Learned skills, private to this memory's owner: reusable procedures a future run can inject (`run begin --skill NAME`). Actions: learn (name, content: the skill's markdown, description, replace: true to overwrite a different skill of that name) — use it to distill what a session worked out (\"save this as a skill\"); list (your skills: - name — description); show (name); forget (name, from list). Skills are scanned like memory: instructions aimed at future agents or secrets are refused; store procedures and facts. A failed call answers with the error and your current skills.",
        input_schema = args::schema::<LearnCall>(),
        annotations(
            title = "memdir learn",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn learn(&self, Parameters(raw): Parameters<Value>) -> Result<CallToolResult, McpError> {
        let call: LearnCall = match args::parse("learn", raw, Some("learn")) {
            Ok(c) => c,
            Err(text) => return Ok(answer(text, true)),
        };
        let (who, warnings) = self.who(&call.who().named());
        let result = self
            .blocking(move |store| skills::learn_action(store, &who, call))
            .await?;
        Ok(with_warnings(result, &warnings))
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
                "snapshot" => snapshot_text(store, &who, run.as_deref()).map(Some),
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

/// Serves MCP on standard input and output until the client closes them,
/// each line bounded and answered (`lines`).
pub fn run(cfg: Config) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async move {
        tracing::info!("memdir mcp: serving {} on stdio", cfg.opener.root.display());
        let service = Server::new(cfg)
            .serve(lines::transport(tokio::io::stdin(), tokio::io::stdout()))
            .await
            .map_err(|e| format!("cannot start the MCP session: {e}"))?;
        service
            .waiting()
            .await
            .map_err(|e| format!("the MCP session failed: {e}"))?;
        Ok(())
    })
}
