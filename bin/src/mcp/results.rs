//! The `get_result` and `put_result` tools: a task's result (SharedMemory),
//! through `api::execute` as the command line's `result` commands.

use memdir::api::errors::Surface;
use memdir::api::types::{ErrorCode, Store};
use memdir::api::{self, Request, Response, Who, render};
use rmcp::model::CallToolResult;

use super::args::PutResultArgs;
use super::{answer, rendered};

/// `get_result`: one task's result with `task_id`, else the run's steps;
/// a result not stored yet is the answer `not ready: still running, poll`.
pub fn get_result(
    store: &Store,
    who: &Who,
    workflow_id: String,
    task: Option<String>,
) -> CallToolResult {
    let request = match task {
        Some(task_id) => Request::GetResult {
            workflow_id,
            task_id,
        },
        None => Request::WorkflowResults { workflow_id },
    };
    match api::execute(store, who, request) {
        Ok(r) if matches!(&*r, Response::Result(_)) => answer(render::result_tool_text(&r), false),
        Ok(other) => answer(rendered(&other), false),
        Err(e) if e.code() == ErrorCode::NotReady => answer(
            api::guard::AgentText::program("not ready: still running, poll"),
            false,
        ),
        Err(e) => answer(render::error_text(&e, Surface::Mcp), true),
    }
}

/// `put_result`: stores a task's result (immutable: the same content again
/// is `already stored`).
pub fn put_result(store: &Store, who: &Who, args: PutResultArgs) -> CallToolResult {
    let request = Request::PutResult {
        workflow_id: args.workflow_id,
        task_id: args.task_id,
        content: args.content.into_bytes(),
        content_type: args.content_type,
        overwrite: false,
        allow_empty: args.allow_empty.unwrap_or(false),
        limit: None,
    };
    match api::execute(store, who, request) {
        Ok(r) => answer(rendered(&r), false),
        Err(e) => answer(render::error_text(&e, Surface::Mcp), true),
    }
}
