//! `memdir mcp`: a stdio MCP server (the official Rust SDK, `rmcp`) over the
//! interface layer. Four tools, shaped like the seed's `plungeai_memory`,
//! `plungeai_get_result` and `plungeai_learn`: `memory` (one tool with
//! actions, so the tool list stays small), `get_result`, `put_result` and
//! `learn` (learned skills: learn, list, show, forget); the snapshot and the
//! two stores as resources. The identity is fixed when the server starts
//! (an agent, or a person), and the tools listed are those of its role
//! (`listing`); every call opens the store afresh and runs its file work
//! off the async workers. Protocol on standard output; on standard error,
//! nothing but failures unless a log level is asked for.

mod args;
mod lines;
pub mod listing;
mod memory;
pub mod proxy;
mod results;
mod skills;

use std::sync::Arc;

use memdir::api::errors::Surface;
use memdir::api::servers::{self, Opener};
use memdir::api::types::{Caller, Error, Scope, Store};
use memdir::api::{self, Request, Response, RunRef, Who, render};
use rmcp::handler::server::router::tool::ToolRouter;
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

use args::{GetResultArgs, LearnArgs, MemoryArgs, PutResultArgs};
use listing::Role;

/// What the server was started with.
#[derive(Debug, Clone)]
pub struct Config {
    /// How to open the store for each call.
    pub opener: Opener,
    /// Who the server acts as, for every call.
    pub who: Who,
    /// The run an agent's calls are made in (`--run`, `--session`): its
    /// frozen snapshot is `recall` and the snapshot resource, and the facts
    /// saved record it.
    pub run: Option<RunRef>,
}

/// The server: its fixed identity, and the tools its role lists (the
/// calls routed by `#[tool_router]`, the definitions from `listing`).
#[derive(Clone)]
pub struct Server {
    cfg: Arc<Config>,
    tool_router: ToolRouter<Server>,
}

/// A tool's answer: text an agent may read ([`api::guard::AgentText`], made from
/// a guarded answer or by the scanner), marked as an error or not. The one
/// sink of the tools.
fn answer(text: api::guard::AgentText, error: bool) -> CallToolResult {
    let content = vec![ContentBlock::text(text.text().into_owned())];
    if error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    }
}

/// The rendering of a guarded response as text, with its warnings.
fn rendered(r: &api::guard::Guarded<Response>) -> api::guard::AgentText {
    let out = render::render_on(r, false, Surface::Mcp);
    let mut text = out.stdout;
    text.push(&out.warnings);
    text
}

/// A refusal or note of the server's own, worded from the caller's
/// arguments: through the scanner.
fn said(text: String) -> api::guard::AgentText {
    api::guard::AgentText::checked(&text, "the server's answer")
}

/// `result` with `warning: …` lines in front (an owner named in the call
/// and ignored).
fn with_warnings(mut result: CallToolResult, warnings: &[String]) -> CallToolResult {
    if warnings.is_empty() {
        return result;
    }
    let head: String = warnings.iter().map(|w| format!("warning: {w}\n")).collect();
    let mut text = said(head);
    // The rest is the answer already given (made from agent text).
    for c in &result.content {
        if let Some(t) = c.as_text() {
            text.push(&said(t.text.clone()));
        }
    }
    result.content = vec![ContentBlock::text(text.text().into_owned())];
    result
}

/// The seed's sentence for an argument an action needs.
fn required(what: &str, action: &str) -> CallToolResult {
    answer(said(format!("{what} is required for {action}")), true)
}

/// `request` made inside the server's run, for an agent's server that has
/// one (a person acts in no run).
fn in_run(who: &Who, run: Option<&RunRef>, request: Request) -> Request {
    match (run, &who.caller) {
        (Some(run), Caller::Agent(_)) => Request::InRun {
            run: run.clone(),
            within: Box::new(request),
        },
        _ => request,
    }
}

/// The snapshot `recall` answers: the run's frozen one inside a run, else
/// rendered now.
fn snapshot_text(
    store: &Store,
    who: &Who,
    run: Option<&RunRef>,
) -> Result<api::guard::AgentText, Error> {
    let text = match (run, &who.caller) {
        // A person's server started with `--run` reads the run's snapshot.
        (Some(RunRef::Id(run_id)), Caller::Person(_)) => api::guard::AgentText::from_guarded(
            &api::execute(
                store,
                who,
                Request::GetRun {
                    run_id: run_id.clone(),
                },
            )?,
            |r| match r {
                Response::Run(v) => v.snapshot.clone().unwrap_or_default(),
                _ => String::new(),
            },
        ),
        _ => api::guard::AgentText::from_guarded(
            &api::execute(store, who, in_run(who, run, Request::Snapshot))?,
            |r| match r {
                Response::Snapshot(s) => s.text.clone(),
                _ => String::new(),
            },
        ),
    };
    Ok(text)
}

impl Server {
    /// A server for `cfg`, listing the tools of its role.
    pub fn new(cfg: Config) -> Server {
        let role = match cfg.who.caller {
            Caller::Agent(_) => Role::Agent,
            Caller::Person(_) => Role::Person,
        };
        let mut tool_router = Self::tool_router();
        for tool in listing::tools(role) {
            if let Some(route) = tool_router.map.get_mut(tool.name.as_ref()) {
                route.attr = tool;
            }
        }
        Server {
            cfg: Arc::new(cfg),
            tool_router,
        }
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
            // A store that does not open (a root's settings refused): its
            // error through the guard, as every error an agent reads.
            .map_err(|e| {
                let head = render::error_head(&e, Surface::Mcp);
                McpError::internal_error(head.text().trim_end().to_owned(), None)
            })
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
    /// The `memory` tool (its definition: `listing::tools`).
    #[tool(name = "memory", input_schema = listing::schema::<MemoryArgs>())]
    async fn memory(&self, Parameters(raw): Parameters<Value>) -> Result<CallToolResult, McpError> {
        let parsed = args::parse::<MemoryArgs>("memory", raw);
        let (who, warnings) = match &parsed {
            Ok(a) => self.who(&a.who.named()),
            Err(_) => (self.cfg.who.clone(), Vec::new()),
        };
        let call = match parsed.and_then(MemoryArgs::call) {
            Ok(c) => c,
            Err(text) => return Ok(answer(said(text), true)),
        };
        let run = self.cfg.run.clone();
        let result = self
            .blocking(move |store| memory::memory_action(store, &who, run.as_ref(), call))
            .await?;
        Ok(with_warnings(result, &warnings))
    }

    /// The `get_result` tool.
    #[tool(name = "get_result", input_schema = listing::schema::<GetResultArgs>())]
    async fn get_result(
        &self,
        Parameters(raw): Parameters<Value>,
    ) -> Result<CallToolResult, McpError> {
        let a: GetResultArgs = match args::parse("get_result", raw) {
            Ok(a) => a,
            Err(text) => return Ok(answer(said(text), true)),
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

    /// The `put_result` tool.
    #[tool(name = "put_result", input_schema = listing::schema::<PutResultArgs>())]
    async fn put_result(
        &self,
        Parameters(raw): Parameters<Value>,
    ) -> Result<CallToolResult, McpError> {
        let a: PutResultArgs = match args::parse("put_result", raw) {
            Ok(a) => a,
            Err(text) => return Ok(answer(said(text), true)),
        };
        let (who, warnings) = self.who(&[a.agent_id.as_ref()]);
        let result = self
            .blocking(move |store| results::put_result(store, &who, a))
            .await?;
        Ok(with_warnings(result, &warnings))
    }

    /// The `learn` tool.
    #[tool(name = "learn", input_schema = listing::schema::<LearnArgs>())]
    async fn learn(&self, Parameters(raw): Parameters<Value>) -> Result<CallToolResult, McpError> {
        let parsed = args::parse::<LearnArgs>("learn", raw);
        let (who, warnings) = match &parsed {
            Ok(a) => self.who(&a.who.named()),
            Err(_) => (self.cfg.who.clone(), Vec::new()),
        };
        let call = match parsed.and_then(LearnArgs::call) {
            Ok(c) => c,
            Err(text) => return Ok(answer(said(text), true)),
        };
        let result = self
            .blocking(move |store| skills::learn_action(store, &who, call))
            .await?;
        Ok(with_warnings(result, &warnings))
    }
}

#[tool_handler(router = self.tool_router)]
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
                "snapshot" => snapshot_text(store, &who, run.as_ref()).map(Some),
                name => match Scope::ALL.into_iter().find(|s| s.file_name() == name) {
                    Some(scope) => api::execute(store, &who, Request::StoreView { scope })
                        .map(|r| Some(render::store_markdown(&r))),
                    None => Ok(None),
                },
            })
            .await?
            .map_err(|e| {
                McpError::internal_error(
                    render::error_head(&e, Surface::Mcp)
                        .text()
                        .trim_end()
                        .to_owned(),
                    None,
                )
            })?
            .ok_or_else(not_found)?;
        let mut contents = ResourceContents::text(text.text().into_owned(), request.uri.clone());
        if let ResourceContents::TextResourceContents { mime_type, .. } = &mut contents {
            *mime_type = Some("text/markdown".into());
        }
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

impl Server {
    /// One call of the tool `name` with the client's `arguments`, as the
    /// router would make it: what `memdir serve` answers a proxy (`memdir
    /// mcp --url`) with, for the identity its key gives.
    pub async fn call_by_name(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, McpError> {
        match name {
            "memory" => self.memory(Parameters(arguments)).await,
            "get_result" => self.get_result(Parameters(arguments)).await,
            "put_result" => self.put_result(Parameters(arguments)).await,
            "learn" => self.learn(Parameters(arguments)).await,
            _ => Err(McpError::invalid_params(
                "no such tool: the tools are memory, get_result, put_result and learn",
                None,
            )),
        }
    }

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
