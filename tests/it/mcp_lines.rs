//! `memdir mcp` answers every line: one that is not JSON gets JSON-RPC's
//! parse error (so does JSON nested past serde_json's recursion limit,
//! which rmcp's parser refuses), one over the line limit an error naming
//! the limit with the request's id, and the server goes on serving. Driven over the raw
//! standard streams of a real `memdir mcp` (an SDK client never sends such
//! lines).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::util::{BIN, Sandbox, config_dir};

const O: &str = "agt_lines";
/// docs/API.md, MCP: the line limit.
const LIMIT: usize = 100 * 1024 * 1024;

struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
}

impl Drop for Mcp {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Mcp {
    /// `memdir --root ROOT --owner O mcp`, initialized.
    fn start(s: &Sandbox) -> Mcp {
        let mut child = Command::new(BIN)
            .env_remove("MEMDIR_ROOT")
            .env_remove("MEMDIR_OWNER")
            .env("MEMDIR_CONFIG_DIR", config_dir())
            .arg("--root")
            .arg(&s.root)
            .args(["--owner", O, "mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn memdir mcp");
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                let v = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("an answer that is not JSON ({e}): {line}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let mut m = Mcp {
            stdin: child.stdin.take(),
            child,
            lines,
        };
        m.send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "mcp_lines", "version": "0"}}}),
        );
        assert_eq!(m.answer()["id"], 1);
        m.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        m
    }

    fn raw(&mut self, bytes: &[u8]) {
        let w = self.stdin.as_mut().expect("stdin");
        w.write_all(bytes).expect("write");
        w.flush().expect("flush");
    }

    fn send(&mut self, v: &Value) {
        self.raw(format!("{v}\n").as_bytes());
    }

    /// The next answer line (at most two minutes: a server that drops the
    /// line never answers).
    #[track_caller]
    fn answer(&self) -> Value {
        self.lines
            .recv_timeout(Duration::from_secs(120))
            .expect("an answer from memdir mcp")
    }
}

#[test]
fn a_line_that_is_not_json_or_over_the_limit_is_answered_and_serving_goes_on() {
    let s = Sandbox::new();
    s.run(&["--owner", O, "add", "A fact"]).ok();
    let mut m = Mcp::start(&s);
    m.raw(b"this is not json\n");
    let a = m.answer();
    assert_eq!(a["jsonrpc"], "2.0", "{a}");
    assert_eq!(a["id"], Value::Null, "{a}");
    assert_eq!(a["error"]["code"], -32700, "{a}");

    // A put_result one byte over the limit, its id first, as clients write.
    let head = br#"{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"put_result","arguments":{"workflow_id":"wf","task_id":"t","content":""#;
    let tail = br#""}}}"#;
    m.raw(head);
    let chunk = vec![b'x'; 1 << 20];
    let mut left = LIMIT + 1 - head.len() - tail.len();
    while left > 0 {
        let n = left.min(chunk.len());
        m.raw(&chunk[..n]);
        left -= n;
    }
    m.raw(tail);
    m.raw(b"\n");
    let a = m.answer();
    assert_eq!(a["id"], 41, "{a}");
    assert_eq!(a["error"]["code"], -32600, "{a}");
    assert_eq!(a["error"]["data"]["limit"], LIMIT, "{a}");
    let message = a["error"]["message"].as_str().expect("a message");
    assert!(
        message.contains(&format!("line limit of {LIMIT} bytes")),
        "{a}"
    );
    assert!(!s.owner_dir(O).join("results/wf/t.result").exists());

    // The next request is served.
    m.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let a = m.answer();
    assert_eq!(a["id"], 2, "{a}");
    assert!(
        a["result"]["tools"]
            .as_array()
            .is_some_and(|t| t.len() == 4),
        "{a}"
    );
}

#[test]
fn a_put_result_past_rmcps_16_mib_line_is_stored() {
    let s = Sandbox::new();
    s.write(O, "memdir.yaml", "max_result_bytes: 33554432\n");
    let mut m = Mcp::start(&s);
    // 17 MiB of text, a newline every 64 bytes: escaped, the line is longer.
    let content: String = "y"
        .repeat(63)
        .chars()
        .chain(['\n'])
        .collect::<String>()
        .repeat(17 << 14);
    m.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "put_result",
        "arguments": {"workflow_id": "wf", "task_id": "big", "content": content}}}),
    );
    let a = m.answer();
    assert_eq!(a["id"], 3, "{a}");
    assert_eq!(a["result"]["isError"], false, "{a}");
    let file = std::fs::read(s.owner_dir(O).join("results/wf/big.result")).expect("stored");
    let meta: Value = serde_json::from_slice(file.split(|b| *b == b'\n').next().expect("a line"))
        .expect("the metadata line");
    assert_eq!(meta["bytes"], 17 << 20, "{meta}");
}

/// A line nested deeper than serde_json's recursion limit (128), which
/// rmcp's parser refuses and drops without a word, is answered with
/// JSON-RPC's parse error, id null, as every line that is not JSON as the
/// parser reads it (a lone surrogate, a number out of range); a request
/// nested just within the limit is rmcp's to answer; the server goes on
/// serving after each.
#[test]
fn a_line_nested_past_the_parsers_depth_limit_is_answered_and_serving_goes_on() {
    let s = Sandbox::new();
    s.run(&["--owner", O, "add", "A fact"]).ok();
    let mut m = Mcp::start(&s);
    let arrays = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    // A request's object and its params are two levels: 125 arrays inside
    // make 127, within the limit; 126 make 128, past it.
    let ping = |n: usize, id: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"x":{}}}}}"#,
            arrays(n)
        )
    };
    let objects = format!("{}1{}", r#"{"a":"#.repeat(200), "}".repeat(200));
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"memory","arguments":{{"action":"recall","x":{}}}}}}}"#,
        arrays(300)
    );
    let deep = [
        arrays(129),
        arrays(100_000),
        objects,
        call,
        ping(126, 8),
        r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"\ud800"}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":6,"method":"ping","params":{"x":1e400}}"#.to_owned(),
    ];
    for (i, line) in deep.iter().enumerate() {
        m.raw(format!("{line}\n").as_bytes());
        let a = m.answer();
        assert_eq!(a["jsonrpc"], "2.0", "line {i}: {a}");
        assert_eq!(a["id"], Value::Null, "line {i}: {a}");
        assert_eq!(a["error"]["code"], -32700, "line {i}: {a}");
        // The server goes on serving.
        let id = 100 + i;
        m.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        let a = m.answer();
        assert_eq!(a["id"], id, "after line {i}: {a}");
        assert_eq!(a["result"], json!({}), "after line {i}: {a}");
    }
    // Just within the limit: rmcp reads it and answers it, with its id.
    m.raw(format!("{}\n", ping(125, 5)).as_bytes());
    let a = m.answer();
    assert_eq!(a["id"], 5, "{a}");
    assert_eq!(a["result"], json!({}), "{a}");
}
