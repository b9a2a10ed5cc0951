//! What an agent kept apart from the memory calls (docs/SECURITY.md, the
//! separated deployment): `POST /v1/command`, one command of the command
//! line (`memdir --url`) run here and answered as the command line would
//! print it; `GET /v1/mcp/tools` and `POST /v1/mcp/call`, the MCP tools a
//! proxy (`memdir mcp --url`) lists and calls. The caller is the key's, as
//! on every route; nothing in a body names it. A request that names a file
//! or a remote of the server's machine is refused: a caller names memory,
//! not the server's paths.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::errors::Surface;
use memdir::api::types::{Caller, Error};
use memdir::api::{self, Request, render};
use serde::Deserialize;
use serde_json::Value;

use super::answer::parse;
use super::{App, Fail, json_response};
use crate::mcp;

/// One command of the command line, as `memdir --url` sends it.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct CommandBody {
    /// The interface request the command makes (docs/API.md, `Request`).
    #[schemars(with = "Value")]
    request: Request,
    /// The agent a person's key acts on (an agent's key names itself).
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
    /// The answer as `--json` prints it (else text).
    #[serde(default)]
    json: bool,
}

/// `request` if a caller of the server may send it: a request naming a
/// folder, a keys file or a git remote of the server's machine is refused
/// (`usage`); a login link is made from the server's own keys file.
fn served(request: Request, keys: &std::path::Path) -> Result<Request, Error> {
    let refused = |what: &str| Error::Usage {
        message: format!(
            "{what} is not served to a caller of memdir serve: it names the server's files; run it as the server's user"
        ),
    };
    match api::reach::reach(&request) {
        api::reach::Reach::Served => Ok(request),
        api::reach::Reach::ServerKeys => Ok(with_server_keys(request, keys)),
        api::reach::Reach::NamesServerFiles(what) => Err(refused(what)),
        _ => Err(refused("this request")),
    }
}

/// A login link's request made from the server's own keys file, inside a
/// run's wrapper too.
fn with_server_keys(request: Request, keys: &std::path::Path) -> Request {
    match request {
        Request::InRun { run, within } => Request::InRun {
            run,
            within: Box::new(with_server_keys(*within, keys)),
        },
        Request::LoginLink { .. } => Request::LoginLink {
            keys: Some(keys.to_owned()),
        },
        other => other,
    }
}

/// What the command line prints for an answer: standard output, standard
/// error and the exit status (all from guarded text).
fn printed(stdout: &api::guard::AgentText, stderr: &api::guard::AgentText, exit: u8) -> Value {
    api::wire::value(&api::wire::Printed {
        stdout: stdout.text().into_owned(),
        stderr: stderr.text().into_owned(),
        exit,
    })
}

/// `POST /v1/command`: the command run for the key's caller (checked as
/// the command line checks it, then through `api::execute`), answered as
/// the command line prints it (`200`, a refusal too: `exit` says how it
/// went). A wrong key is the `401` of every route.
pub(super) async fn command(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: CommandBody = parse("command", &body)?;
    let keys = app.cfg.keys.clone();
    let json = b.json;
    let request = b.request;
    let v = app
        .call(headers, b.agent_id, move |store, who| {
            let answered = served(request, &keys).and_then(|request| {
                api::preflight(store, who, &request)?;
                api::execute(store, who, request)
            });
            Ok(match answered {
                Ok(r) => {
                    let out = render::render(&r, json);
                    printed(&out.stdout, &out.warnings, out.exit)
                }
                Err(e) => {
                    let none = api::guard::AgentText::program("");
                    let (stdout, stderr) = if json {
                        (render::error_json(&e), none)
                    } else {
                        (none, render::error_text(&e, Surface::Cli))
                    };
                    printed(&stdout, &stderr, e.code().exit())
                }
            })
        })
        .await?;
    Ok(json_response(200, &v))
}

/// `GET /v1/mcp/tools`: the tools MCP lists for the key's role.
pub(super) async fn mcp_tools(
    State(app): State<App>,
    headers: HeaderMap,
) -> Result<Response, Fail> {
    let (_, who) = app.caller(headers, None, None).await?;
    let role = match who.caller {
        Caller::Agent(_) => mcp::listing::Role::Agent,
        Caller::Person(_) => mcp::listing::Role::Person,
    };
    let tools = mcp::listing::tools(role)
        .iter()
        .map(api::wire::value)
        .collect();
    Ok(json_response(
        200,
        &api::wire::value(&api::wire::McpTools { tools }),
    ))
}

/// One tool call, as a proxy relays it.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct CallBody {
    /// The tool's name.
    name: String,
    /// Its arguments, as the client sent them.
    #[serde(default)]
    arguments: Option<Value>,
}

/// `POST /v1/mcp/call`: one tool call for the key's caller, answered
/// `{result}` (the tool's answer, an error of the tool's included) or
/// `{error}` (MCP's protocol error).
pub(super) async fn mcp_call(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: CallBody = parse("call", &body)?;
    let (_, who) = app.caller(headers, None, None).await?;
    // The owner's share of the pool, as every other route's call takes it
    // (`busy` past it), held until the tool has answered.
    let _share = app
        .limits
        .enter(super::limits::owner_of(&who.caller, who.named.as_deref()))?
        .turn()
        .await;
    let server = mcp::Server::new(mcp::Config {
        opener: app.cfg.opener.clone(),
        who,
        run: None,
    });
    let arguments = b
        .arguments
        .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
    let called = match server.call_by_name(&b.name, arguments).await {
        Ok(result) => api::wire::McpCalled {
            result: Some(api::wire::value(&result)),
            error: None,
        },
        Err(error) => api::wire::McpCalled {
            result: None,
            error: Some(api::wire::value(&error)),
        },
    };
    Ok(json_response(200, &api::wire::value(&called)))
}
