//! `memdir serve` through a real HTTP client (ureq, no TLS) against the
//! spawned binary on an ephemeral loopback port: every route family of both
//! seeds, every error class (the seed's table, keys, the framework's
//! 404/405/413, bodies), start-up refusals, a clean stop on SIGTERM, and
//! concurrent clients.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Stdio};

use serde_json::{Value, json};

use crate::util::Sandbox;

/// What a call answered, with its `Retry-After`.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) retry_after: Option<String>,
    pub(crate) body: String,
}

impl Reply {
    /// The body as JSON (`null` when it is not).
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// A client of its own (a thread's connection) that takes answers as they
/// are, waiting `secs` at most.
pub(crate) fn client(secs: u64) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(std::time::Duration::from_secs(secs)))
        .build()
        .into()
}

/// The [`Reply`] of a call.
pub(crate) fn reply(r: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Reply {
    let mut r = r.expect("an answer");
    Reply {
        status: r.status().as_u16(),
        retry_after: r
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        body: r.body_mut().read_to_string().unwrap_or_default(),
    }
}

/// A running `memdir serve`.
pub(crate) struct Server {
    child: Child,
    pub(crate) base: String,
    agent: ureq::Agent,
    /// The server's standard-error lines after the one that says it listens.
    log: std::sync::Mutex<std::sync::mpsc::Receiver<String>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a call answered.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) ctype: String,
    pub(crate) body: String,
}

impl Answer {
    #[track_caller]
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {self:?}"))
    }

    /// The error object of an answer that must be `code` with `status`;
    /// a mismatch fails at once, or is recorded under a
    /// [`crate::util::Collect`] guard.
    #[track_caller]
    pub(crate) fn error(&self, code: &str, status: u16) -> Value {
        let v: Value = serde_json::from_str(&self.body).unwrap_or(Value::Null);
        let shaped = self.status == status
            && self.ctype.starts_with("application/json")
            && v["error"]["code"] == code
            && v["error"]["status"] == status
            && v["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty());
        if !shaped {
            crate::util::wrong(format!("expected {status} {code}, got {self:?}"));
        }
        v["error"].clone()
    }
}

pub(crate) fn keys_file(s: &Sandbox) -> PathBuf {
    s.dir.path().join("conf/keys.yaml")
}

/// `memdir key create` for `who` (`--owner X` or `--person Y`): the key.
pub(crate) fn make_key(s: &Sandbox, who: &[&str]) -> String {
    let keys = keys_file(s);
    let mut args = who.to_vec();
    args.extend(["--json", "key", "create", "--keys", keys.to_str().unwrap()]);
    let v = s.run(&args).ok().json();
    v["key"].as_str().unwrap().to_owned()
}

/// Starts `memdir serve` on an ephemeral loopback port.
pub(crate) fn serve(s: &Sandbox, extra: &[&str]) -> Server {
    let mut cmd = s.cmd(&["serve", "--listen", "127.0.0.1:0", "--keys"]);
    cmd.arg(keys_file(s)).args(extra);
    cmd.stderr(Stdio::piped()).stdout(Stdio::null());
    let mut child = cmd.spawn().expect("spawn memdir serve");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let base = loop {
        let line = lines
            .next()
            .unwrap_or_else(|| panic!("memdir serve ended: {:?}", child.wait()))
            .unwrap();
        if let Some(rest) = line.split("listening on ").nth(1) {
            break rest.split_whitespace().next().unwrap().to_owned();
        }
    };
    // Keep draining standard error so the server never blocks on it; the
    // lines go to the test that waits for one.
    let (tx, log) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(std::time::Duration::from_secs(30)))
        .build()
        .into();
    Server {
        child,
        base,
        agent,
        log: std::sync::Mutex::new(log),
    }
}

impl Server {
    /// Waits (at most 30 s) for a line of the server's standard error that
    /// holds `needle`, and gives it.
    pub(crate) fn wait_line(&self, needle: &str) -> String {
        let log = self.log.lock().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            match log.recv_timeout(left) {
                Ok(line) if line.contains(needle) => return line,
                Ok(_) => {}
                Err(e) => panic!("no line with {needle:?} from memdir serve: {e}"),
            }
        }
        panic!("no line with {needle:?} from memdir serve in 30 s")
    }

    /// The lines of the server's standard error from here on, up to and
    /// including the first that holds `needle` (waiting at most 30 s for
    /// it).
    pub(crate) fn lines_until(&self, needle: &str) -> Vec<String> {
        let log = self.log.lock().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let mut seen = Vec::new();
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            match log.recv_timeout(left) {
                Ok(line) => {
                    let done = line.contains(needle);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(e) => panic!("no line with {needle:?} from memdir serve: {e}; {seen:#?}"),
            }
        }
        panic!("no line with {needle:?} from memdir serve in 30 s: {seen:#?}")
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn finish(r: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
        let mut r = r.expect("an answer");
        let ctype = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        Answer {
            status: r.status().as_u16(),
            ctype,
            body: r.body_mut().read_to_string().unwrap_or_default(),
        }
    }

    pub(crate) fn get(&self, key: Option<&str>, path: &str) -> Answer {
        let mut req = self.agent.get(self.url(path));
        if let Some(k) = key {
            req = req.header("Authorization", format!("Bearer {k}"));
        }
        Self::finish(req.call())
    }

    pub(crate) fn post(&self, key: Option<&str>, path: &str, body: Value) -> Answer {
        let mut req = self.agent.post(self.url(path));
        if let Some(k) = key {
            req = req.header("Authorization", format!("Bearer {k}"));
        }
        Self::finish(req.send_json(body))
    }

    pub(crate) fn patch(&self, key: &str, path: &str, body: Value) -> Answer {
        let req = self
            .agent
            .patch(self.url(path))
            .header("Authorization", format!("Bearer {key}"));
        Self::finish(req.send_json(body))
    }

    pub(crate) fn put(&self, key: &str, path: &str, ctype: &str, body: &[u8]) -> Answer {
        let req = self
            .agent
            .put(self.url(path))
            .header("Authorization", format!("Bearer {key}"))
            .header("Content-Type", ctype);
        Self::finish(req.send(body))
    }

    /// `method` on `path` with an empty JSON body where it takes one.
    /// POSTs `body` as it is (JSON or not) with `key`.
    pub(crate) fn post_raw(&self, key: &str, path: &str, body: &str) -> Answer {
        let r = self
            .agent
            .post(self.url(path))
            .header("Authorization", format!("Bearer {key}"))
            .content_type("application/json")
            .send(body);
        Self::finish(r)
    }

    pub(crate) fn any(&self, key: &str, method: &str, path: &str) -> Answer {
        let url = self.url(path);
        let auth = format!("Bearer {key}");
        let r = match method {
            "GET" => self.agent.get(url).header("Authorization", auth).call(),
            "DELETE" => self.agent.delete(url).header("Authorization", auth).call(),
            "POST" => self
                .agent
                .post(url)
                .header("Authorization", auth)
                .send_json(json!({})),
            "PUT" => self
                .agent
                .put(url)
                .header("Authorization", auth)
                .send(&b"x"[..]),
            "PATCH" => self
                .agent
                .patch(url)
                .header("Authorization", auth)
                .send_json(json!({})),
            m => panic!("no method {m}"),
        };
        Self::finish(r)
    }

    fn raw_post(&self, key: &str, path: &str, body: &[u8]) -> Answer {
        let req = self
            .agent
            .post(self.url(path))
            .header("Authorization", format!("Bearer {key}"))
            .header("Content-Type", "application/json");
        Self::finish(req.send(body))
    }
}

/// The One API's remember and recall (and the snapshot), as the first seed
/// shows them.
#[test]
fn remember_and_recall_answer_as_the_seed_says() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "agt_http"]);
    let srv = serve(&s, &[]);
    let k = Some(key.as_str());

    assert_eq!(srv.get(None, "/healthz").json(), json!({"status": "ok"}));
    let empty = srv.get(k, "/v1/memory/recall");
    assert_eq!(
        (empty.status, empty.json()),
        (200, json!({"entries": [], "count": 0}))
    );

    let r = srv.post(
        k,
        "/v1/memory/remember",
        json!({"text": "Prefers weekly summaries, no emojis", "scope": "user"}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let v = r.json();
    assert_eq!(v["message"], "added");
    assert_eq!(v["scope"], "user");
    assert_eq!(v["text"], "Prefers weekly summaries, no emojis");
    assert!(v["usage"].as_str().unwrap().ends_with("/1375 chars"), "{v}");
    let id = v["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("mem_") && id.len() == 16);
    assert!(
        s.read_plain("agt_http", "USER.md")
            .contains("- Prefers weekly summaries, no emojis")
    );
    let again = srv.post(
        k,
        "/v1/memory/remember",
        json!({"text": "Prefers weekly summaries, no emojis", "scope": "user"}),
    );
    assert_eq!(
        (again.status, again.json()["message"].clone()),
        (200, json!("already stored"))
    );
    srv.post(
        k,
        "/v1/memory/remember",
        json!({"text": "Staging needs the VPN"}),
    );
    srv.post(
        k,
        "/v1/memory/remember",
        json!({"text": "Weekly deploys on Friday"}),
    );

    // recall: q ranks and filters; limit; formats.
    let all = srv.get(k, "/v1/memory/recall").json();
    assert_eq!(all["count"], 3);
    let hit = srv.get(k, "/v1/memory/recall?q=summaries&limit=20").json();
    assert_eq!(hit["count"], 1, "{hit}");
    assert_eq!(hit["entries"][0]["id"], id.as_str());
    assert_eq!(hit["entries"][0]["scope"], "user");
    assert_eq!(srv.get(k, "/v1/memory/recall?limit=1").json()["count"], 1);
    let yaml = srv.get(k, "/v1/memory/recall?format=yaml");
    assert!(yaml.ctype.starts_with("application/yaml"), "{yaml:?}");
    assert!(yaml.body.contains("count: 3"), "{yaml:?}");
    let text = srv.post(
        k,
        "/v1/memory/remember",
        json!({"text": "Staging needs the VPN", "format": "text"}),
    );
    assert!(text.body.contains("message: already stored"), "{text:?}");
    srv.get(k, "/v1/memory/recall?format=xml")
        .error("invalid_request", 400);

    // The snapshot: text and SHA-256, as `memdir snapshot --json`.
    let snap = srv.get(k, "/v1/snapshot").json();
    let cli = s.json_ok(&["--owner", "agt_http", "snapshot"]);
    assert_eq!(
        (snap["text"].clone(), snap["sha256"].clone()),
        (cli["text"].clone(), cli["sha256"].clone())
    );
}

/// The One API's forget: by id, by a text matching one entry, else the
/// CLI's errors.
#[test]
fn forget_answers_by_id_by_text_and_with_the_cli_s_errors() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "agt_http"]);
    let srv = serve(&s, &[]);
    let k = Some(key.as_str());
    let id = s.json_ok(&[
        "--owner",
        "agt_http",
        "add",
        "--to",
        "user",
        "Prefers weekly summaries, no emojis",
    ])["id"]
        .as_str()
        .unwrap()
        .to_owned();
    s.run_as("agt_http", &["add", "Staging needs the VPN"]).ok();
    s.run_as("agt_http", &["add", "Weekly deploys on Friday"])
        .ok();
    srv.post(k, "/v1/memory/forget", json!({"text": "eek"}))
        .error("memory_ambiguous_match", 409);
    let e = srv
        .post(k, "/v1/memory/forget", json!({"text": "nothing like it"}))
        .error("memory_not_found", 404);
    assert!(
        e["entries"].as_array().is_some_and(|a| !a.is_empty()),
        "{e}"
    );
    let gone = srv.post(k, "/v1/memory/forget", json!({"id": id}));
    assert_eq!(
        (gone.status, gone.json()["removed"].clone()),
        (200, json!(1))
    );
    assert!(
        !s.read_plain("agt_http", "USER.md")
            .contains("weekly summaries")
    );
    let gone = srv.post(k, "/v1/memory/forget", json!({"text": "VPN"}));
    assert_eq!(gone.json()["removed"], 1, "{gone:?}");
    srv.post(k, "/v1/memory/forget", json!({}))
        .error("invalid_request", 400);
}

/// SharedMemory over the One API: one store behind both paths, unknown and
/// not-ready workflows, empty content, immutability, binary content, ids and
/// the size limit.
#[test]
fn shared_memory_answers_as_the_seed_says() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "agt_http"]);
    let srv = serve(&s, &[]);
    let k = Some(key.as_str());

    let p = "/v1/workflows/results/exec-1/web";
    // A workflow nothing knows is not "poll": 404 result_not_found; once a
    // run names it, 404 not_ready.
    let e = srv.get(k, p).error("result_not_found", 404);
    assert_eq!(e["workflow_id"], "exec-1");
    srv.get(k, "/v1/agents/results/exec-1/web")
        .error("result_not_found", 404);
    s.run_as("agt_http", &["run", "begin", "--workflow", "exec-1"])
        .ok();
    srv.get(k, p).error("not_ready", 404);
    srv.get(k, "/v1/agents/results/exec-1/web")
        .error("not_ready", 404);
    // Empty content is refused unless the request allows it.
    srv.put(
        &key,
        "/v1/workflows/results/exec-1/empty",
        "text/plain",
        b"",
    )
    .error("invalid_request", 400);
    let empty = srv.put(
        &key,
        "/v1/workflows/results/exec-1/empty?allow_empty=true",
        "text/plain",
        b"",
    );
    assert_eq!(
        (empty.status, empty.json()["bytes"].clone()),
        (201, json!(0)),
        "{empty:?}"
    );
    let put = srv.put(&key, p, "text/markdown", b"three competitors");
    assert_eq!(put.status, 201, "{put:?}");
    assert_eq!(
        srv.put(&key, p, "text/markdown", b"three competitors")
            .status,
        200
    );
    srv.put(&key, p, "text/markdown", b"four")
        .error("result_exists", 409);
    assert_eq!(
        srv.put(
            &key,
            &format!("{p}?overwrite=true"),
            "text/markdown",
            b"four"
        )
        .status,
        201
    );
    let got = srv.get(k, "/v1/agents/results/exec-1/web").json();
    assert_eq!(got["content"], "four");
    assert_eq!(got["content_type"], "text/markdown");
    assert_eq!(
        (got["workflow_id"].clone(), got["task_id"].clone()),
        (json!("exec-1"), json!("web"))
    );
    srv.put(
        &key,
        "/v1/agents/results/exec-1/bin",
        "application/octet-stream",
        &[0xff, 0xfe, 0],
    );
    let bin = srv.get(k, "/v1/workflows/results/exec-1/bin").json();
    assert_eq!(
        (bin["content"].clone(), bin["content_base64"].clone()),
        (Value::Null, json!("//4A"))
    );
    assert!(
        s.owner_dir("agt_http")
            .join("results/exec-1/web.result")
            .is_file()
    );
    srv.get(k, "/v1/workflows/results/bad%24id/web")
        .error("invalid_id", 400);
    // Results up to max_result_bytes; past it, 413 result_too_large.
    s.write("agt_http", "memdir.yaml", "max_result_bytes: 100000\n");
    let big = vec![b'x'; 100_001];
    let e = srv
        .put(&key, "/v1/workflows/results/exec-2/big", "text/plain", &big)
        .error("result_too_large", 413);
    assert_eq!(e["limit"], 100_000);
    assert_eq!(
        srv.put(
            &key,
            "/v1/workflows/results/exec-2/ok",
            "text/plain",
            &big[..100_000]
        )
        .status,
        201
    );
}

#[test]
#[allow(
    clippy::too_many_lines,
    reason = "a table: one request a row of the seeds' error table"
)]
fn the_facts_routes_answer_every_error_of_the_seeds_table() {
    // Every refusal of the table is checked; the test fails once, naming
    // each one that answered otherwise.
    let _collect = crate::util::Collect::start();
    let s = Sandbox::new();
    let a = make_key(&s, &["--owner", "agt_a"]);
    let b = make_key(&s, &["--owner", "agt_b"]);
    let ann = make_key(&s, &["--person", "ann"]);
    let srv = serve(&s, &[]);
    let (a, b, ann) = (Some(a.as_str()), Some(b.as_str()), Some(ann.as_str()));
    let m = "/api/v1/memories";

    let r = srv.post(
        a,
        m,
        json!({"text": "Staging needs the VPN", "expiresAt": "2099-12-31"}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let fact = r.json();
    let id = fact["id"].as_str().unwrap().to_owned();
    assert_eq!(fact["object"], "memory");
    assert_eq!(fact["status"], "active");
    assert!(
        fact["expires_at"]
            .as_str()
            .unwrap()
            .starts_with("2099-12-31"),
        "{fact}"
    );
    assert!(
        s.read_plain("agt_a", "MEMORY.md")
            .contains("- Staging needs the VPN")
    );

    // 400s.
    srv.post(a, m, json!({"text": "x".repeat(501)}))
        .error("memory_text_too_long", 400);
    srv.post(
        a,
        m,
        json!({"text": "The deploy key is AKIAQ7X3LM9PZ2RT4VWY for the bucket"}),
    )
    .error("secret_in_memory", 400);
    srv.post(ann, m, json!({"text": "Needs an agent"}))
        .error("memory_agent_required", 400);
    let day = srv.post(a, &format!("{m}/day"), json!({"line": "PIN-1: started"}));
    assert_eq!(day.status, 201, "{day:?}");
    let day_id = day.json()["id"].as_str().unwrap().to_owned();
    srv.post(
        a,
        m,
        json!({"text": "Replaces a day", "supersedes": day_id}),
    )
    .error("memory_day_append_only", 400);
    let theirs = srv.post(b, m, json!({"text": "B's own fact"})).json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    srv.post(
        ann,
        m,
        json!({"text": "Cross", "supersedes": theirs, "agentId": "agt_a"}),
    )
    .error("memory_agent_mismatch", 400);

    // 403s.
    srv.post(a, m, json!({"text": "Into B", "agentId": "agt_b"}))
        .error("memory_not_own", 403);
    srv.post(
        ann,
        &format!("{m}/day"),
        json!({"line": "x", "agentId": "agt_a"}),
    )
    .error("memory_day_agent_only", 403);
    let vetoed = srv.post(
        ann,
        &format!("{m}/{theirs}/veto"),
        json!({"agentId": "agt_b", "reason": "wrong"}),
    );
    assert_eq!(vetoed.status, 200, "{vetoed:?}");
    srv.post(b, &format!("{m}/{theirs}/unarchive"), json!({}))
        .error("memory_veto_human_only", 403);
    srv.post(a, &format!("{m}/{id}/veto"), json!({}))
        .error("memory_veto_human_only", 403);
    srv.patch(a.unwrap(), &format!("{m}/{id}"), json!({"text": "Edited"}))
        .error("person_only", 403);

    // 404.
    srv.post(
        a,
        &format!("{m}/mem_000000000000/archive"),
        json!({"reason": "x"}),
    )
    .error("memory_not_found", 404);

    // 409s.
    let old = srv.post(a, m, json!({"text": "Deploys on Friday"})).json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let archived = srv.post(a, &format!("{m}/{old}/archive"), json!({"reason": "stale"}));
    assert_eq!(
        (archived.status, archived.json()["status"].clone()),
        (200, json!("archived"))
    );
    srv.post(
        a,
        m,
        json!({"text": "Deploys on Monday", "supersedes": old}),
    )
    .error("memory_supersede_archived", 409);
    assert_eq!(
        srv.post(a, &format!("{m}/{old}/unarchive"), json!({}))
            .status,
        200
    );
    let newer = srv.post(
        a,
        m,
        json!({"text": "Deploys on Monday", "supersedes": old}),
    );
    assert_eq!(newer.status, 201, "{newer:?}");
    srv.post(a, &format!("{m}/{old}/unarchive"), json!({}))
        .error("memory_superseded", 409);
    let line = "x".repeat(290);
    let mut full = None;
    for _ in 0..30 {
        let r = srv.post(a, &format!("{m}/day"), json!({"line": line}));
        if r.status != 201 {
            full = Some(r);
            break;
        }
    }
    full.expect("the day log fills")
        .error("memory_day_full", 409);
    srv.post(
        a,
        &format!("{m}/{day_id}/archive"),
        json!({"reason": "restart"}),
    );
    assert_eq!(
        srv.post(a, &format!("{m}/day"), json!({"line": "again"}))
            .status,
        201
    );
    srv.post(a, &format!("{m}/{day_id}/unarchive"), json!({}))
        .error("memory_day_exists", 409);
    srv.post(a, &format!("{m}/{id}/archive"), json!({}))
        .error("invalid_request", 400);

    // list, recall, a person's edit.
    let mine = srv
        .get(a, &format!("{m}?kind=fact&status=active&limit=10"))
        .json();
    assert!(mine["count"].as_u64().unwrap() >= 2, "{mine}");
    assert!(
        mine["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["kind"] == "fact")
    );
    let everyone = srv.get(ann, &format!("{m}?status=archived")).json();
    assert!(
        everyone["rows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == theirs.as_str()),
        "{everyone}"
    );
    let rec = srv.post(a, &format!("{m}/recall"), json!({"query": "staging VPN"}));
    assert_eq!(rec.status, 200);
    assert!(
        rec.json()["facts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["id"] == id.as_str()),
        "{rec:?}"
    );
    let edited = srv.patch(
        ann.unwrap(),
        &format!("{m}/{id}"),
        json!({"text": "Staging needs the VPN and 2FA", "agentId": "agt_a"}),
    );
    assert_eq!(edited.status, 200, "{edited:?}");
    assert_eq!(edited.json()["old_id"], id.as_str());
    assert!(
        s.read_plain("agt_a", "MEMORY.md")
            .contains("- Staging needs the VPN and 2FA")
    );
}

#[test]
fn keys_and_transport_failures_answer_json() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "agt_k"]);
    let other = make_key(&s, &["--owner", "agt_z"]);
    let srv = serve(&s, &[]);
    let k = Some(key.as_str());

    // Keys: missing, unknown, malformed, revoked: the same 401.
    let missing = srv
        .get(None, "/v1/memory/recall")
        .error("unauthorized", 401);
    let wrong = srv
        .get(Some("mdk_00"), "/v1/memory/recall")
        .error("unauthorized", 401);
    assert_eq!(missing, wrong);
    srv.get(Some("not-a-key"), "/v1/snapshot")
        .error("unauthorized", 401);
    assert_eq!(srv.get(Some(&other), "/v1/memory/recall").status, 200);
    let keys = keys_file(&s);
    let listed = s
        .run(&["--json", "key", "list", "--keys", keys.to_str().unwrap()])
        .ok()
        .json();
    assert_eq!(listed["count"], 2);
    assert!(!listed.to_string().contains(&key), "a key is never listed");
    let zid = listed["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["subject"] == "agt_z")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    s.run(&["key", "revoke", &zid, "--keys", keys.to_str().unwrap()])
        .ok();
    assert_eq!(
        srv.get(Some(&other), "/v1/memory/recall")
            .error("unauthorized", 401),
        missing
    );

    // The framework's failures, as JSON.
    srv.get(k, "/v2/nothing").error("route_not_found", 404);
    let e = srv
        .post(k, "/v1/memory/recall", json!({}))
        .error("method_not_allowed", 405);
    assert_eq!(e["method"], "POST");
    srv.raw_post(&key, "/v1/memory/remember", &vec![b' '; 70 * 1024])
        .error("request_too_large", 413);
    srv.raw_post(&key, "/v1/memory/remember", b"{not json")
        .error("invalid_request", 400);
    srv.get(k, "/api/v1/memories?limit=many")
        .error("invalid_request", 400);
    drop(srv);

    // Start-up refusals: a keys file others can read; no key off loopback;
    // a keys file inside the root.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&keys, std::fs::Permissions::from_mode(0o644)).unwrap();
    let r = s.run(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--keys",
        keys.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("chmod 600"), "{r:?}");
    let empty = s.dir.path().join("none.yaml");
    let r = s.run(&[
        "serve",
        "--listen",
        "0.0.0.0:0",
        "--keys",
        empty.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("without any key"), "{r:?}");
    std::fs::create_dir_all(&s.root).unwrap();
    let inside = s.root.join("keys.yaml");
    let r = s.run(&[
        "--owner",
        "agt_k",
        "key",
        "create",
        "--keys",
        inside.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(!inside.exists());
}

/// `/openapi.json` documents every route the router serves and only those:
/// each documented method answers (never 404 `route_not_found` nor 405),
/// another method on a documented path is 405, and the router is built from
/// the same table.
#[test]
fn the_openapi_document_matches_the_router() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "agt_o"]);
    let srv = serve(&s, &[]);
    let doc = srv.get(None, "/openapi.json").json();
    assert_eq!(doc["openapi"], "3.1.0");
    let paths = doc["paths"].as_object().unwrap();
    let mut ops = 0;
    for (path, methods) in paths {
        let concrete = path
            .replace("{workflowId}", "wf-1")
            .replace("{taskId}", "t-1")
            .replace("{id}", "mem_000000000000")
            .replace("{name}", "some-skill")
            .replace("{job}", "job-0")
            .replace("{agent}", "agt_o")
            .replace("{token}", &"0".repeat(64))
            .replace("{runId}", "run-1");
        let methods = methods.as_object().unwrap();
        for m in methods.keys() {
            ops += 1;
            let a = srv.any(&key, &m.to_uppercase(), &concrete);
            let code = serde_json::from_str::<Value>(&a.body)
                .ok()
                .and_then(|v| v["error"]["code"].as_str().map(str::to_owned))
                .unwrap_or_default();
            assert!(
                !matches!(code.as_str(), "route_not_found" | "method_not_allowed"),
                "{m} {path}: {a:?}"
            );
        }
        if !methods.contains_key("delete") {
            srv.any(&key, "DELETE", &concrete)
                .error("method_not_allowed", 405);
        }
    }
    // Every route of docs/API.md: the API's 42 and the dashboard's 28 pages.
    assert_eq!(ops, 70, "{doc}");
    let pages = paths
        .values()
        .flat_map(|m| m.as_object().unwrap().values())
        .filter(|op| op["x-dashboard"] == true)
        .count();
    assert_eq!(pages, 28, "{doc}");
    for p in [
        "/v1/memory/recall",
        "/v1/skills",
        "/v1/skills/{name}",
        "/api/v1/memories/{id}/veto",
        "/v1/agents/results/{workflowId}/{taskId}",
    ] {
        assert!(paths.contains_key(p), "{p}");
    }
    // docs/API.md documents every operation the router serves (the
    // results' PUT in the row "`PUT` on the same paths" after their GET).
    let md = std::fs::read_to_string(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/.."),
        "/docs/API.md"
    ))
    .unwrap();
    for (path, methods) in paths {
        for m in methods.as_object().unwrap().keys() {
            let m = m.to_uppercase();
            let named =
                md.contains(&format!("`{m} {path}")) || md.contains(&format!(", {m} {path}"));
            let put_row = m == "PUT"
                && md.contains("| `PUT` on the same paths |")
                && md.contains(&format!("GET {path}"));
            assert!(named || put_row, "docs/API.md does not document {m} {path}");
        }
    }
}

/// The seed's `/v1/skills`: list, learn (201, 200 already stored, 409
/// skill_exists, 400 for a secret or a missing field), show and forget
/// (404 skill_not_found), the file on disk; a person's key names the agent
/// with `agentId`, an agent's key cannot name another agent.
#[test]
fn the_skills_routes_answer_every_status() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "agt_s"]);
    let ann = make_key(&s, &["--person", "ann"]);
    let srv = serve(&s, &[]);
    let k = Some(key.as_str());

    assert_eq!(
        srv.get(k, "/v1/skills").json(),
        json!({"skills": [], "count": 0})
    );
    let body = json!({"name": "deploy", "content": "# Deploy\nRun the pipeline, then check the canary.\n",
                      "description": "Deploying safely"});
    let r = srv.post(k, "/v1/skills", body.clone());
    assert_eq!(r.status, 201, "{r:?}");
    let v = r.json();
    assert_eq!(
        (&v["name"], &v["message"], &v["path"]),
        (
            &json!("deploy"),
            &json!("saved"),
            &json!("skills/deploy/SKILL.md")
        )
    );
    let file = s.read_text("agt_s", "skills/deploy/SKILL.md");
    assert!(
        file.contains("Run the pipeline, then check the canary."),
        "{file}"
    );
    let again = srv.post(k, "/v1/skills", body);
    assert_eq!(
        (again.status, again.json()["message"].clone()),
        (200, json!("already stored"))
    );
    let e = srv
        .post(
            k,
            "/v1/skills",
            json!({"name": "deploy", "content": "Other steps"}),
        )
        .error("skill_exists", 409);
    assert_eq!(e["name"], "deploy");
    let r = srv.post(
        k,
        "/v1/skills",
        json!({"name": "deploy", "source": "Other steps", "replace": true}),
    );
    assert_eq!(
        (r.status, r.json()["message"].clone()),
        (201, json!("replaced"))
    );
    srv.post(
        k,
        "/v1/skills",
        json!({"name": "aws", "content": "Use the key AKIAQ7X3LM9PZ2RT4VWY"}),
    )
    .error("secret_in_memory", 400);
    assert!(!s.path("agt_s", "skills/aws").exists());
    srv.post(k, "/v1/skills", json!({"content": "No name"}))
        .error("invalid_request", 400);
    srv.post(k, "/v1/skills", json!({"name": "Bad/Name", "content": "x"}))
        .error("invalid_id", 400);

    let list = srv.get(k, "/v1/skills").json();
    assert_eq!(list["count"], 1);
    assert_eq!(list["skills"][0]["name"], "deploy");
    let shown = srv.get(k, "/v1/skills/deploy");
    assert_eq!(shown.status, 200);
    let shown = shown.json();
    assert_eq!(shown["path"], "skills/deploy/SKILL.md");
    assert_eq!(
        shown["text"].as_str().unwrap(),
        s.read_text("agt_s", "skills/deploy/SKILL.md")
    );
    let text = srv.get(k, "/v1/skills?format=text");
    assert!(text.ctype.starts_with("text/plain"), "{text:?}");
    assert!(text.body.contains("deploy"), "{text:?}");
    srv.get(k, "/v1/skills/nothing")
        .error("skill_not_found", 404);

    // Keys: none, a person without and with agentId, an agent naming another.
    srv.get(None, "/v1/skills").error("unauthorized", 401);
    srv.get(Some(&ann), "/v1/skills")
        .error("memory_agent_required", 400);
    let theirs = srv.get(Some(&ann), "/v1/skills?agentId=agt_s").json();
    assert_eq!(theirs["count"], 1, "{theirs}");
    srv.get(k, "/v1/skills?agentId=agt_other")
        .error("memory_not_own", 403);

    let gone = srv.any(&key, "DELETE", "/v1/skills/deploy");
    assert_eq!(gone.status, 200, "{gone:?}");
    assert_eq!(gone.json()["message"], "forgot");
    assert!(!s.path("agt_s", "skills/deploy/SKILL.md").exists());
    let e = srv
        .any(&key, "DELETE", "/v1/skills/deploy")
        .error("skill_not_found", 404);
    assert_eq!(e["name"], "deploy");
    srv.any(&key, "PATCH", "/v1/skills/deploy")
        .error("method_not_allowed", 405);
}

/// SIGTERM stops the server cleanly: a request in flight (a result whose
/// body is still arriving when the signal comes) is finished and answered,
/// then the process exits 0.
#[test]
fn sigterm_finishes_the_requests_in_flight() {
    /// A body that sends half, says so, then sends the rest when told.
    struct Slow {
        parts: Vec<Vec<u8>>,
        half_sent: std::sync::mpsc::Sender<()>,
        go: std::sync::mpsc::Receiver<()>,
    }
    impl std::io::Read for Slow {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.parts.is_empty() {
                return Ok(0);
            }
            if self.parts.len() == 1 {
                let _ = self.half_sent.send(());
                let _ = self.go.recv_timeout(std::time::Duration::from_secs(30));
            }
            let part = self.parts.remove(0);
            buf[..part.len()].copy_from_slice(&part);
            Ok(part.len())
        }
    }
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "agt_t"]);
    let mut srv = serve(&s, &[]);
    assert_eq!(
        srv.post(
            Some(&key),
            "/v1/memory/remember",
            json!({"text": "Before the stop"})
        )
        .status,
        201
    );
    let url = srv.url("/v1/workflows/results/exec-9/slow");
    let agent = srv.agent.clone();
    let auth = format!("Bearer {key}");
    let (half_sent, half) = std::sync::mpsc::channel();
    let (go, wait) = std::sync::mpsc::channel();
    let put = std::thread::spawn(move || {
        let body = Slow {
            parts: vec![b"first half, ".to_vec(), b"second half".to_vec()],
            half_sent,
            go: wait,
        };
        Server::finish(
            agent
                .put(url)
                .header("Authorization", auth)
                .header("Content-Type", "text/plain")
                // The body goes once the server has begun the request
                // (it reads the body: `100 Continue`), so the stop meets
                // the request in flight, never its headers still unread.
                .header("Expect", "100-continue")
                .send(ureq::SendBody::from_owned_reader(body)),
        )
    });
    // The request is in flight (its body half sent) when the signal comes,
    // and the rest is sent once the server says it is stopping.
    half.recv_timeout(std::time::Duration::from_secs(30))
        .expect("the body's first half");
    let pid = rustix::process::Pid::from_raw(srv.child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    srv.wait_line("stopping; finishing the requests in flight");
    go.send(()).unwrap();
    let answer = put.join().unwrap();
    assert_eq!(answer.status, 201, "{answer:?}");
    let status = srv.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert!(
        s.read_plain("agt_t", "MEMORY.md")
            .contains("Before the stop")
    );
    let stored = s.read("agt_t", "results/exec-9/slow.result");
    assert!(
        stored.windows(23).any(|w| w == b"first half, second half"),
        "the whole body was stored"
    );
}

/// 64 clients × 50 operations, to one owner and over eight (budgets of
/// 20,000): each adds its own facts and removes every other one; every
/// acknowledged add that was not removed is there exactly once, every
/// removed one is gone.
#[test]
fn concurrent_clients_lose_nothing() {
    let _x = crate::util::exclusive();
    let s = Sandbox::new();
    for spread in [1usize, 8] {
        let owners: Vec<String> = (0..spread).map(|i| format!("agt_c{spread}_{i}")).collect();
        let keys: Vec<String> = owners
            .iter()
            .map(|o| {
                s.write(o, "memdir.yaml", "budgets:\n  memory: 20000\n");
                make_key(&s, &["--owner", o])
            })
            .collect();
        let srv = std::sync::Arc::new(serve(&s, &[]));
        let clients: Vec<_> = (0..64)
            .map(|c| {
                let srv = srv.clone();
                let key = keys[c % spread].clone();
                std::thread::spawn(move || {
                    // 50 operations: adds, each odd-numbered add removed
                    // right after it was acknowledged.
                    let mut kept = Vec::new();
                    let (mut ops, mut n) = (0, 0);
                    while ops < 50 {
                        let text = format!("c{c} f{n}");
                        let r = srv.post(Some(&key), "/v1/memory/remember", json!({"text": text}));
                        assert_eq!(r.status, 201, "{r:?}");
                        ops += 1;
                        let id = r.json()["id"].as_str().unwrap().to_owned();
                        if n % 2 == 1 && ops < 50 {
                            let f = srv.post(Some(&key), "/v1/memory/forget", json!({"id": id}));
                            assert_eq!(f.status, 200, "{f:?}");
                            ops += 1;
                        } else {
                            kept.push(text);
                        }
                        n += 1;
                    }
                    (c, kept)
                })
            })
            .collect();
        let mut expected: Vec<Vec<String>> = vec![Vec::new(); spread];
        for h in clients {
            let (c, kept) = h.join().expect("client");
            expected[c % spread].extend(kept);
        }
        for (o, want) in owners.iter().zip(&expected) {
            let text = s.read_plain(o, "MEMORY.md");
            let lines: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("- ")).collect();
            for w in want {
                assert_eq!(
                    lines.iter().filter(|l| **l == w.as_str()).count(),
                    1,
                    "{o}: {w}"
                );
            }
            assert_eq!(lines.len(), want.len(), "{o}: removed facts are gone");
        }
    }
}

#[test]
fn a_past_expiry_is_refused_naming_today() {
    let s = Sandbox::new();
    let a = make_key(&s, &["--owner", "agt_a"]);
    let srv = serve(&s, &[]);
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    for past in ["2020-01-01", "2020-01-01T00:00:00Z"] {
        let r = srv.post(
            Some(&a),
            "/api/v1/memories",
            json!({"text": "Staging needs the VPN", "expiresAt": past}),
        );
        let e = r.error("invalid_expiry", 400);
        assert_eq!(
            (e["value"].as_str(), e["today"].as_str()),
            (Some(past), Some(today.as_str()))
        );
        assert!(
            e["message"]
                .as_str()
                .unwrap_or_default()
                .contains(&format!("today is {today}, UTC")),
            "{e}"
        );
    }
    assert!(!s.path("agt_a", "MEMORY.md").exists(), "nothing saved");
    let r = srv.post(
        Some(&a),
        "/api/v1/memories",
        json!({"text": "Staging needs the VPN", "expiresAt": "2099-12-31"}),
    );
    assert_eq!(r.status, 201, "{r:?}");
}

/// The write answers that carry the seed's `usage` string carry the same
/// numbers as numbers (`budget: {used, limit}`), and they are the numbers
/// the command line's `--json` gives for the same store.
#[test]
fn write_answers_carry_the_budget_as_numbers_as_the_cli_does() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "agt_b"]);
    let srv = serve(&s, &[]);
    let k = Some(key.as_str());
    let cli_usage = |scope: &str| {
        let v = s.json_ok(&["--owner", "agt_b", "show", "--in", scope]);
        v["stores"][0]["usage"].clone()
    };
    let same = |answer: &Value, scope: &str| {
        let cli = cli_usage(scope);
        assert_eq!(answer["budget"]["used"], cli["used"], "{answer} vs {cli}");
        assert_eq!(answer["budget"]["limit"], cli["limit"], "{answer} vs {cli}");
        assert_eq!(answer["usage"], cli["text"], "{answer} vs {cli}");
    };
    let r = srv.post(
        k,
        "/v1/memory/remember",
        json!({"text": "Prefers weekly summaries", "scope": "user"}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    same(&r.json(), "user");
    let r = srv.post(
        k,
        "/api/v1/memories",
        json!({"text": "Staging needs the VPN"}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    same(&r.json(), "memory");
    let r = srv.post(k, "/v1/memory/forget", json!({"text": "VPN"}));
    assert_eq!(r.status, 200, "{r:?}");
    let v = r.json();
    assert_eq!(v["budget"]["used"], 0, "{v}");
    same(&v, "memory");
}

/// A hint names HTTP's own fields and parameters, with the argument as
/// data beside the message; never a command-line flag.
#[test]
fn hints_name_the_apis_own_fields_and_parameters() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "agt_h"]);
    let srv = serve(&s, &[]);
    let k = Some(key.as_str());
    let learn = |content: &str| {
        srv.post(
            k,
            "/v1/skills",
            json!({"name": "deploy", "content": content}),
        )
    };
    assert_eq!(learn("# Deploy\nRun the checks first.").status, 201);
    let e = learn("# Deploy\nSomething else entirely.").error("skill_exists", 409);
    let msg = e["message"].as_str().unwrap();
    assert!(
        msg.contains("\"replace\": true") && !msg.contains("--"),
        "{e}"
    );
    assert_eq!(e["hint"]["argument"], "replace", "{e}");
    let path = "/v1/workflows/results/wf/t1";
    assert_eq!(srv.put(&key, path, "text/plain", b"one").status, 201);
    let e = srv
        .put(&key, path, "text/plain", b"two")
        .error("result_exists", 409);
    let msg = e["message"].as_str().unwrap();
    assert!(
        msg.contains("?overwrite=true") && !msg.contains("--"),
        "{e}"
    );
    assert_eq!(e["hint"]["argument"], "overwrite", "{e}");
    let e = srv.get(k, "/v1/skills/nope").error("skill_not_found", 404);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .ends_with("GET /v1/skills lists yours."),
        "{e}"
    );
}

/// `format=text` is plain lines, `id  text` an entry, with no markdown
/// markup; `format=markdown` keeps the list.
#[test]
fn format_text_is_plain_lines_and_markdown_a_list() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "agt_f"]);
    let srv = serve(&s, &[]);
    let k = Some(key.as_str());
    let mut ids = Vec::new();
    for (text, scope) in [
        ("Prefers weekly summaries", "user"),
        ("Staging needs the VPN", "memory"),
    ] {
        let r = srv.post(
            k,
            "/v1/memory/remember",
            json!({"text": text, "scope": scope}),
        );
        ids.push((r.json()["id"].as_str().unwrap().to_owned(), text));
    }
    let plain = srv.get(k, "/v1/memory/recall?format=text");
    assert!(plain.ctype.starts_with("text/plain"), "{plain:?}");
    let lines: Vec<&str> = plain.body.lines().collect();
    assert_eq!(lines.len(), 2, "{plain:?}");
    for (id, text) in &ids {
        assert!(
            lines.contains(&format!("{id}  {text}").as_str()),
            "{plain:?}"
        );
    }
    assert!(!plain.body.contains("- "), "{plain:?}");
    let md = srv.get(k, "/v1/memory/recall?format=markdown");
    assert!(md.ctype.starts_with("text/markdown"), "{md:?}");
    assert!(md.body.lines().all(|l| l.starts_with("- ")), "{md:?}");
    assert_ne!(md.body, plain.body);
}

/// Each request is a line of the server's log: method, path, status and
/// time, never the query string (which may carry a key) nor a header.
#[test]
fn each_request_is_a_line_of_the_log_without_its_key() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "agt_log"]);
    let srv = serve(&s, &["--review-every", "0"]);
    assert_eq!(srv.get(None, "/healthz").status, 200);
    let line = srv.wait_line("GET /healthz");
    assert!(line.starts_with("GET /healthz 200 "), "{line}");
    assert!(line.ends_with(" ms"), "{line}");
    let asked = srv.get(
        Some(&key),
        &format!("/v1/snapshot?key={key}&agentId=agt_log"),
    );
    let line = srv.wait_line("GET /v1/snapshot");
    assert!(
        line.starts_with(&format!("GET /v1/snapshot {} ", asked.status)),
        "{line}"
    );
    assert!(!line.contains(&key) && !line.contains('?'), "{line}");
    assert_eq!(srv.get(Some(&key), "/v1/nope").status, 404);
    let line = srv.wait_line("GET /v1/nope");
    assert!(line.starts_with("GET /v1/nope 404 "), "{line}");
}

/// A refused query value is worded as MCP words it, naming the allowed
/// values: the route's query is typed with the library's enums.
#[test]
fn a_bad_query_or_body_names_the_argument_and_its_values() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "agt_q"]);
    let srv = serve(&s, &["--review-every", "0"]);
    // (method, path, body, the message): every refusal is 400
    // `invalid_request`, worded as MCP's tools word it.
    let cases = [
        (
            "GET",
            "/api/v1/memories?kind=fact&status=nope",
            "",
            "status must be one of: active, archived",
        ),
        (
            "GET",
            "/api/v1/memories?kind=update",
            "",
            "kind must be one of: fact, day",
        ),
        (
            "GET",
            "/v1/memory/recall?limit=abc",
            "",
            "invalid limit for recall: invalid digit found in string",
        ),
        (
            "GET",
            "/v1/snapshot?format=xml",
            "",
            "format must be one of: json, yaml, markdown, text",
        ),
        (
            "POST",
            "/v1/memory/remember",
            r#"{"text": "a", "scope": "both"}"#,
            "scope must be one of: memory, user",
        ),
        (
            "POST",
            "/v1/memory/remember",
            r#"{"text": 5}"#,
            "invalid text for remember: invalid type: integer `5`, expected a string",
        ),
        (
            "POST",
            "/v1/memory/remember",
            r#"{"text": "a", "format": "pdf"}"#,
            "format must be one of: json, yaml, markdown, text",
        ),
        (
            "POST",
            "/api/v1/memories",
            "[1]",
            "the body of save must be a JSON object",
        ),
        (
            "POST",
            "/api/v1/memories/day",
            r#"{"line": 7}"#,
            "invalid line for day: invalid type: integer `7`, expected a string",
        ),
        (
            "POST",
            "/v1/memory/forget",
            "{\"id\":",
            "the body of forget is not JSON: EOF while parsing a value at line 1 column 6",
        ),
    ];
    let mut wrong = Vec::new();
    for (method, path, body, want) in cases {
        let a = match method {
            "GET" => srv.get(Some(&key), path),
            _ => srv.post_raw(&key, path, body),
        };
        let v = a.json();
        let message = v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if a.status != 400 || v["error"]["code"] != "invalid_request" || message != want {
            wrong.push(format!("{method} {path} {body}: {} {v}", a.status));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert_eq!(
        srv.get(Some(&key), "/api/v1/memories?kind=day&status=active")
            .status,
        200
    );
    assert_eq!(
        srv.get(Some(&key), "/v1/memory/recall?limit=2&q=tea&format=text")
            .status,
        200
    );
}

/// A run begun over HTTP (`POST /v1/runs`; again for its session: the same
/// run), a fact saved with its `runId` records it (`run=`, `task=`) on both
/// families of routes, as the command line's `add --run` does, and the run
/// is finished over HTTP.
#[test]
fn a_write_naming_its_run_records_it() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "agt_prov"]);
    s.run_as("agt_prov", &["add", "Prefers tea"]).ok();
    let srv = serve(&s, &[]);
    let k = Some(key.as_str());
    let begun = srv.post(
        k,
        "/v1/runs",
        json!({"task": "PIN-9", "session": "hermes-1"}),
    );
    assert_eq!(begun.status, 201, "{begun:?}");
    let begun = begun.json();
    assert_eq!(begun["resumed"], false);
    assert!(
        begun["text"].as_str().unwrap().contains("Prefers tea"),
        "{begun}"
    );
    let run_id = begun["run_id"].as_str().unwrap().to_owned();
    let again = srv.post(k, "/v1/runs", json!({"session": "hermes-1"}));
    assert_eq!(
        (again.status, &again.json()["run_id"]),
        (200, &begun["run_id"])
    );
    let r = srv.post(
        k,
        "/v1/memory/remember",
        json!({"text": "Prefers short answers", "scope": "user", "runId": run_id}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let r = srv.post(
        k,
        "/api/v1/memories",
        json!({"text": "The staging deploy needs the VPN", "runId": run_id}),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let r = srv.post(k, "/api/v1/memories", json!({"text": "No run here"}));
    assert_eq!(r.status, 201, "{r:?}");
    let user = s.read_text("agt_prov", "USER.md");
    let memory = s.read_text("agt_prov", "MEMORY.md");
    let meta = |store: &str, text: &str| {
        store
            .lines()
            .find(|l| l.contains(text))
            .unwrap_or_default()
            .to_owned()
    };
    for line in [
        meta(&user, "Prefers short answers"),
        meta(&memory, "The staging deploy"),
    ] {
        assert!(
            line.contains(&format!("run={run_id}")) && line.contains("task=PIN-9"),
            "{line}"
        );
    }
    assert!(!meta(&memory, "No run here").contains("run="));
    // A run that is not the agent's open run is refused, not ignored.
    let r = srv.post(
        k,
        "/api/v1/memories",
        json!({"text": "Another fact", "runId": "run-nope"}),
    );
    r.error("run_not_found", 404);
    let done = srv.post(
        k,
        &format!("/v1/runs/{run_id}/finish"),
        json!({"text": "shipped"}),
    );
    assert_eq!(done.status, 201, "{done:?}");
    assert!(s.read_text("agt_prov", "episodes.md").contains("shipped"));
    srv.post(k, &format!("/v1/runs/{run_id}/finish"), json!({}))
        .error("run_finished", 409);
    srv.post(
        k,
        "/api/v1/memories",
        json!({"text": "After the end", "runId": run_id}),
    )
    .error("run_finished", 409);
}
