//! `--url URL --key-file FILE`: a command run on a `memdir serve` rather
//! than on files this process opens (docs/SECURITY.md, the separated
//! deployment). The agent's process reaches no root and no configuration:
//! it reads its key file, sends the command's request (`POST /v1/command`)
//! or relays MCP's tools (`memdir mcp --url`: `GET /v1/mcp/tools`, `POST
//! /v1/mcp/call`) with the key, and prints what the server answers. The
//! server decides who the key is and what it may do. Plain HTTP: a server
//! on this machine (loopback), or one a TLS proxy fronts on the way.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use memdir::api::{self, Request};
use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolResult, Tool};
use serde_json::{Value, json};

use crate::Failure;
use crate::cli::{self, Command};

/// The longest a call to the server may take (the server's own bound is
/// its `--timeout`, 30 seconds by default).
const TIMEOUT: Duration = Duration::from_secs(120);
/// The largest answer read from the server.
const ANSWER_BYTES: u64 = 16 << 20;

/// A server and the key every call is made with.
pub struct Remote {
    agent: ureq::Agent,
    base: String,
    key: String,
}

/// A usage failure.
fn usage(message: impl Into<String>) -> Failure {
    Failure::Usage(message.into())
}

impl Remote {
    /// The server at `url` with the key `key_file` holds (a plain file of
    /// this user's no one else can read: `invalid_config` otherwise).
    pub fn new(url: &str, key_file: &Path) -> Result<Remote, Failure> {
        let base = url.trim_end_matches('/');
        let Some(host) = base.strip_prefix("http://") else {
            return Err(usage(format!(
                "--url {url}: give the server's http:// address (for example http://127.0.0.1:7077); TLS is a proxy's in front of memdir serve"
            )));
        };
        if host.is_empty() || host.contains(['/', '?', '#', '@']) {
            return Err(usage(format!(
                "--url {url}: give the server's address alone, http://HOST:PORT"
            )));
        }
        let key = api::keys::key_file_text(key_file)?;
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(TIMEOUT))
            .http_status_as_error(false)
            .max_redirects(0)
            .build();
        Ok(Remote {
            agent: config.into(),
            base: base.to_owned(),
            key,
        })
    }

    /// `GET` or `POST` (with `body`) of `path`: the status and the JSON
    /// answer, at most [`ANSWER_BYTES`].
    fn send(&self, path: &str, body: Option<&Value>) -> Result<(u16, Value), String> {
        let url = format!("{}{path}", self.base);
        let auth = format!("Bearer {}", self.key);
        let sent = match body {
            Some(b) => self
                .agent
                .post(&url)
                .header("Authorization", &auth)
                .send_json(b),
            None => self.agent.get(&url).header("Authorization", &auth).call(),
        };
        let mut resp = sent.map_err(|e| format!("cannot reach {}: {e}", self.base))?;
        let status = resp.status().as_u16();
        let bytes = resp
            .body_mut()
            .with_config()
            .limit(ANSWER_BYTES)
            .read_to_vec()
            .map_err(|e| format!("the answer of {url} was not read: {e}"))?;
        let v = serde_json::from_slice(&bytes)
            .map_err(|e| format!("the answer of {url} (status {status}) is not JSON: {e}"))?;
        Ok((status, v))
    }

    /// Runs `request` on the server for the key's caller (with `agent`, the
    /// agent a person's key acts on) and prints its answer as the command
    /// line prints one: its exit status.
    pub fn command(
        &self,
        request: &Request,
        agent: Option<&str>,
        json: bool,
    ) -> Result<u8, Failure> {
        let body = json!({ "request": request, "agentId": agent, "json": json });
        let (status, v) = self.send("/v1/command", Some(&body)).map_err(usage)?;
        if status == 200
            && let Ok(p) = serde_json::from_value::<api::wire::Printed>(v.clone())
        {
            let _ = std::io::stderr().lock().write_all(p.stderr.as_bytes());
            crate::print_out(p.stdout.as_bytes());
            return Ok(p.exit);
        }
        // The server refused the call itself (the key, the body): its
        // error, as the command line shows one.
        if json {
            crate::print_out(format!("{v}\n").as_bytes());
        } else {
            let code = v["error"]["code"].as_str().unwrap_or("error");
            let message = v["error"]["message"].as_str().unwrap_or("no message");
            eprintln!("error[{code}]: {message} (memdir serve answered {status})");
        }
        Ok(1)
    }
}

impl crate::mcp::proxy::Relay for Remote {
    fn tools(&self) -> Result<Vec<Tool>, String> {
        let (status, v) = self.send("/v1/mcp/tools", None)?;
        if status != 200 {
            return Err(refused(status, &v));
        }
        serde_json::from_value(v["tools"].clone()).map_err(|e| format!("the tools listed: {e}"))
    }

    fn call(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<Result<CallToolResult, McpError>, String> {
        let body = json!({ "name": name, "arguments": arguments });
        let (status, v) = self.send("/v1/mcp/call", Some(&body))?;
        if status != 200 {
            return Err(refused(status, &v));
        }
        if v.get("error").is_some_and(|e| !e.is_null()) {
            let e: McpError = serde_json::from_value(v["error"].clone())
                .map_err(|e| format!("the error answered: {e}"))?;
            return Ok(Err(e));
        }
        serde_json::from_value(v["result"].clone())
            .map(Ok)
            .map_err(|e| format!("the tool's answer: {e}"))
    }
}

/// The server's refusal of a call, as the proxy reports it.
fn refused(status: u16, v: &Value) -> String {
    format!(
        "refused ({status} {}): {}",
        v["error"]["code"].as_str().unwrap_or("error"),
        v["error"]["message"].as_str().unwrap_or("no message")
    )
}

/// `memdir --url URL --key-file FILE COMMAND`: the command on the server.
/// Only what an agent's process may ask of a server is sent: an owner's
/// memory's commands, `mcp` (the proxy) and `ui` (a login link, which
/// the server makes for a person's key only); the rest act on the server's
/// own files and are refused here.
pub fn run(url: &str, g: &cli::Global, command: Command) -> Result<u8, Failure> {
    let Some(key_file) = &g.key_file else {
        return Err(usage(
            "--url needs --key-file FILE: the key the server checks (an agent's or a person's)",
        ));
    };
    if g.person.is_some() {
        return Err(usage(
            "with --url the key decides who asks: drop --person (a person's key acts as its person)",
        ));
    }
    if g.raw {
        return Err(usage(
            "--raw is not sent with --url: a person reads the files as they are on the dashboard or as the server's user",
        ));
    }
    let agent = g.agent.as_deref().or(g.owner.as_deref());
    let request = match command {
        Command::Ask(ask) => cli::remote_request(ask)?,
        Command::Ui { keys: None } => Request::LoginLink { keys: None },
        Command::Mcp {
            run: None,
            session: None,
            log: _,
        } => {
            let remote = Remote::new(url, key_file)?;
            crate::mcp::proxy::run(Arc::new(remote)).map_err(Failure::Usage)?;
            return Ok(0);
        }
        Command::Mcp { .. } => {
            return Err(usage(
                "mcp --url takes no --run or --session: begin runs through the server's /v1/runs",
            ));
        }
        _ => {
            return Err(usage(
                "this command is not run with --url: it acts on the server's own files (keys, the root, its settings), which only the server's user may",
            ));
        }
    };
    Remote::new(url, key_file)?.command(&request, agent, g.json)
}
