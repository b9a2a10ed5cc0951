//! `memdir mcp --url URL --key-file FILE`: MCP on standard input and
//! output for an agent kept apart from the memory (docs/SECURITY.md, the
//! separated deployment). The tools listed and every call are relayed to
//! `memdir serve` with the key the file holds; the server decides who the
//! key is, which tools its role lists and what each call may do. This
//! process holds no privilege: it opens no root and no configuration, and
//! nothing a client sends names the caller. The transport (HTTP) is the
//! caller's ([`Relay`]), so this module stays on the standard streams.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use super::lines;

/// How a proxy reaches the server: blocking calls, each bounded in time
/// and in the size of its answer by the implementation.
pub trait Relay: Send + Sync + 'static {
    /// The tools the server lists for the key's role.
    fn tools(&self) -> Result<Vec<Tool>, String>;
    /// One tool call made on the server: its answer, or the server's
    /// protocol error.
    fn call(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<Result<CallToolResult, McpError>, String>;
}

/// The proxy: its relay, and nothing else.
#[derive(Clone)]
pub struct Proxy {
    relay: Arc<dyn Relay>,
}

/// A relay's failure (the server unreachable, an answer refused) as the
/// client sees it.
fn relay_failed(e: String) -> McpError {
    McpError::internal_error(format!("memdir serve: {e}"), None)
}

impl Proxy {
    /// Runs `f` on the relay off the async workers.
    async fn relayed<T: Send + 'static>(
        &self,
        f: impl FnOnce(&dyn Relay) -> Result<T, String> + Send + 'static,
    ) -> Result<T, McpError> {
        let relay = Arc::clone(&self.relay);
        tokio::task::spawn_blocking(move || f(relay.as_ref()))
            .await
            .map_err(|e| McpError::internal_error(format!("worker failed: {e}"), None))?
            .map_err(relay_failed)
    }
}

impl ServerHandler for Proxy {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("memdir", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "memdir: long-term markdown memory, kept by a server that acts as the agent its key names. Call memory {action: \"recall\"} to read what you know; memory {action: \"remember\", ...} when the user says to remember something; get_result / put_result for task results; learn to save a reusable procedure as a skill.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = self.relayed(|r| r.tools()).await?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.into_owned();
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let answer = self.relayed(move |r| r.call(&name, arguments)).await?;
        answer.map(Into::into)
    }
}

/// Serves MCP on standard input and output through `relay` until the
/// client closes them, each line bounded and answered (`lines`).
pub fn run(relay: Arc<dyn Relay>) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async move {
        let service = Proxy { relay }
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
