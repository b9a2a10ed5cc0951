//! Replicas of one memory root on this machine, for the replicas test and
//! its benchmark (`benches/replicas.rs` includes this file): a bare hub
//! served by `git daemon` on a loopback port, one clone per replica, and
//! one `memdir serve --sync origin --sync-every S --replica NAME` on each,
//! the root's `memdir.yaml` naming the replicas and the owners homed on
//! each, one keys file for all. Self-contained (the standard library,
//! ureq, serde_json, tempfile), so the bench can include it as it is.

#![allow(dead_code, reason = "the test and the bench each use a part")]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_memdir");

/// `git daemon`'s own program (run as it is: `git daemon` would run it
/// as a child, which outlives a kill of `git`), if this machine has it.
pub fn daemon_program() -> Option<PathBuf> {
    Command::new("git")
        .arg("--exec-path")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()).join("git-daemon"))
        .filter(|p| p.exists())
}

/// Whether `git daemon` can be run here.
pub fn have_daemon() -> bool {
    daemon_program().is_some()
}

/// A free loopback port (bound, read, let go: a server binds it next).
fn free_ports(n: usize) -> Vec<u16> {
    let held: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a loopback port"))
        .collect();
    held.iter()
        .map(|l| l.local_addr().expect("its address").port())
        .collect()
}

/// One replica: its clone, its server's port, the server while it runs,
/// and every line the server logged.
pub struct Node {
    pub name: String,
    pub clone: PathBuf,
    pub port: u16,
    child: Mutex<Option<Child>>,
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Node {
    /// The root in the clone.
    pub fn root(&self) -> PathBuf {
        self.clone.join("mem")
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// The replicas, the hub and its daemon; everything stops when dropped.
pub struct Cluster {
    pub dir: tempfile::TempDir,
    daemon: Mutex<Option<Child>>,
    daemon_port: u16,
    pub every: Duration,
    pub nodes: Vec<Node>,
    keys: PathBuf,
    /// Each owner, the index of its home, and its key.
    pub owners: Vec<(String, usize, String)>,
    http: ureq::Agent,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for i in 0..self.nodes.len() {
            self.kill(i);
        }
        self.stop_daemon();
    }
}

/// The environment every process of the cluster runs in: the binary's
/// folder first on PATH (git runs the merge driver, `memdir merge-file`),
/// no git identity or system configuration, the cluster's configuration
/// folder.
fn env_of(cmd: &mut Command, dir: &Path) {
    let bin_dir = Path::new(BIN).parent().expect("the binary's folder");
    let mut paths = vec![bin_dir.to_owned()];
    if let Some(p) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&p));
    }
    cmd.env("PATH", std::env::join_paths(paths).expect("PATH"))
        .env("HOME", dir.join("home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("MEMDIR_CONFIG_DIR", dir.join("conf"))
        .env_remove("MEMDIR_ROOT")
        .env_remove("MEMDIR_OWNER")
        .env_remove("GIT_AUTHOR_NAME")
        .env_remove("GIT_AUTHOR_EMAIL")
        .env_remove("GIT_COMMITTER_NAME")
        .env_remove("GIT_COMMITTER_EMAIL");
}

/// Runs `program args` in `cwd`; its standard output, or what it said.
fn run(program: &str, cwd: &Path, dir: &Path, args: &[&str]) -> Result<String, String> {
    let mut cmd = Command::new(program);
    cmd.current_dir(cwd).args(args).stdin(Stdio::null());
    env_of(&mut cmd, dir);
    let out = cmd
        .output()
        .map_err(|e| format!("{program} {args:?}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{program} {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// git in `cwd` as a person with an identity of their own.
pub fn git(cwd: &Path, dir: &Path, args: &[&str]) -> String {
    let mut full = vec!["-c", "user.name=Tess", "-c", "user.email=tess@example.com"];
    full.extend(args);
    run("git", cwd, dir, &full).unwrap_or_else(|e| panic!("{e}"))
}

/// A made-up word for `n` (consonant-vowel syllables): texts built of
/// distinct numbers share no term.
pub fn word(mut n: usize) -> String {
    const C: &[u8] = b"bdfgklmnprtvz";
    const V: &[u8] = b"aeiou";
    let mut w = String::new();
    loop {
        w.push(C[n % C.len()] as char);
        n /= C.len();
        w.push(V[n % V.len()] as char);
        n /= V.len();
        if n == 0 {
            return w;
        }
    }
}

impl Cluster {
    /// `replicas` replicas with `per` owners homed on each, syncing every
    /// `every`; `seed` is run in the first clone's root before the first
    /// push (memdir's arguments after `--root ROOT`). The servers are not
    /// started yet.
    pub fn new(replicas: usize, per: usize, every: Duration, seed: &[&[&str]]) -> Cluster {
        let dir = tempfile::tempdir().expect("a temp folder");
        let d = dir.path().to_owned();
        std::fs::create_dir_all(d.join("home")).expect("home");
        std::fs::create_dir_all(d.join("conf")).expect("conf");
        git(
            &d,
            &d,
            &[
                "init",
                "--quiet",
                "--bare",
                "--initial-branch=main",
                "hub.git",
            ],
        );
        let ports = free_ports(replicas + 1);
        let mut c = Cluster {
            dir,
            daemon: Mutex::default(),
            daemon_port: ports[replicas],
            every,
            nodes: Vec::new(),
            keys: d.join("keys/keys.yaml"),
            owners: Vec::new(),
            http: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(Duration::from_secs(20)))
                .build()
                .into(),
        };
        c.start_daemon();
        let hub = c.hub_url();
        let mut yaml = String::from("\nreplicas:\n");
        for (i, port) in ports.iter().take(replicas).enumerate() {
            let name = format!("r{i}");
            let owners: Vec<String> = (0..per).map(|k| format!("agt_{name}_{k}")).collect();
            yaml.push_str(&format!(
                "  - name: {name}\n    url: http://127.0.0.1:{port}\n    owners: [{}]\n",
                owners.join(", ")
            ));
            c.owners
                .extend(owners.into_iter().map(|o| (o, i, String::new())));
            c.nodes.push(Node {
                name,
                clone: d.join(format!("m{i}")),
                port: *port,
                child: Mutex::default(),
                log: Arc::default(),
            });
        }
        // The first clone: the root, its replicas, the seed; pushed.
        let first = c.nodes[0].clone.clone();
        git(
            &d,
            &d,
            &["clone", "--quiet", &hub, first.to_str().expect("utf-8")],
        );
        c.memdir(0, &["init"]).expect("init");
        let config = first.join("mem/memdir.yaml");
        let mut text = std::fs::read_to_string(&config).unwrap_or_default();
        text.push_str(&yaml);
        std::fs::write(&config, text).expect("memdir.yaml");
        for args in seed {
            c.memdir(0, args).expect("seed");
        }
        git(&first, &d, &["add", "-A"]);
        git(&first, &d, &["commit", "--quiet", "-m", "memory folder"]);
        git(&first, &d, &["push", "--quiet", "-u", "origin", "main"]);
        for n in &c.nodes[1..] {
            git(
                &d,
                &d,
                &["clone", "--quiet", &hub, n.clone.to_str().expect("utf-8")],
            );
        }
        // One keys file for every replica.
        let keys = c.keys.to_str().expect("utf-8").to_owned();
        for i in 0..c.owners.len() {
            let owner = c.owners[i].0.clone();
            let out = c
                .memdir(
                    0,
                    &[
                        "--owner", &owner, "--json", "key", "create", "--keys", &keys,
                    ],
                )
                .expect("a key");
            let v: Value = serde_json::from_str(&out).expect("JSON");
            c.owners[i].2 = v["key"].as_str().expect("key").to_owned();
        }
        c
    }

    /// A clone of the hub at `name` in the cluster's folder (a person's,
    /// beside the replicas).
    pub fn clone_hub(&self, name: &str) -> PathBuf {
        let d = self.dir.path();
        let to = d.join(name);
        git(
            d,
            d,
            &[
                "clone",
                "--quiet",
                &self.hub_url(),
                to.to_str().expect("utf-8"),
            ],
        );
        to
    }

    /// git in `cwd` as a person of the cluster (with an identity).
    pub fn git(&self, cwd: &Path, args: &[&str]) -> String {
        git(cwd, self.dir.path(), args)
    }

    /// git in `cwd`: whether it went through, and what it said.
    pub fn git_try(&self, cwd: &Path, args: &[&str]) -> Result<String, String> {
        let mut full = vec!["-c", "user.name=Tess", "-c", "user.email=tess@example.com"];
        full.extend(args);
        run("git", cwd, self.dir.path(), &full)
    }

    /// `git://127.0.0.1:PORT/hub.git`.
    pub fn hub_url(&self) -> String {
        format!("git://127.0.0.1:{}/hub.git", self.daemon_port)
    }

    /// Runs `memdir --root ROOT args…` in replica `i`'s clone.
    pub fn memdir(&self, i: usize, args: &[&str]) -> Result<String, String> {
        let root = self.nodes[i].root();
        let mut full = vec!["--root", root.to_str().expect("utf-8")];
        full.extend(args);
        run(BIN, &self.nodes[i].clone, self.dir.path(), &full)
    }

    /// Starts the hub's `git daemon` and waits until it takes connections.
    pub fn start_daemon(&self) {
        let d = self.dir.path();
        let mut cmd = Command::new(daemon_program().expect("git daemon"));
        cmd.args([
            "--reuseaddr",
            "--export-all",
            "--enable=receive-pack",
            "--listen=127.0.0.1",
        ])
        .arg(format!("--port={}", self.daemon_port))
        .arg(format!("--base-path={}", d.display()))
        .arg(d)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        env_of(&mut cmd, d);
        *self.daemon.lock().expect("daemon") = Some(cmd.spawn().expect("git daemon"));
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", self.daemon_port)).is_err() {
            assert!(Instant::now() < deadline, "git daemon did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the daemon: the remote is unreachable until it starts again.
    pub fn stop_daemon(&self) {
        if let Some(mut c) = self.daemon.lock().expect("daemon").take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts replica `i`'s server and waits until it listens.
    pub fn start(&self, i: usize) {
        let every = self.every.as_secs().max(1).to_string();
        let node = &self.nodes[i];
        let root = node.root();
        let mut cmd = Command::new(BIN);
        cmd.current_dir(&node.clone)
            .arg("--root")
            .arg(&root)
            .args(["serve", "--listen"])
            .arg(format!("127.0.0.1:{}", node.port))
            .arg("--keys")
            .arg(&self.keys)
            .args(["--sync", "origin", "--sync-every", &every, "--replica"])
            .arg(&node.name)
            .args(["--review-every", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        env_of(&mut cmd, self.dir.path());
        let mut child = cmd.spawn().expect("memdir serve");
        let err = child.stderr.take().expect("stderr");
        let log = Arc::clone(&node.log);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                if line.contains("listening on") {
                    let _ = tx.send(());
                }
                log.lock().expect("log").push(line);
            }
        });
        let listening = rx.recv_timeout(Duration::from_secs(30));
        *self.nodes[i].child.lock().expect("child") = Some(child);
        assert!(
            listening.is_ok(),
            "replica {i} did not listen: {:#?}",
            self.nodes[i].log.lock().expect("log")
        );
    }

    /// Kills replica `i`'s server with SIGKILL.
    pub fn kill(&self, i: usize) {
        if let Some(mut c) = self.nodes[i].child.lock().expect("child").take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// The key and home of `owner`.
    pub fn owner(&self, owner: &str) -> (usize, &str) {
        let (_, home, key) = self
            .owners
            .iter()
            .find(|(o, _, _)| o == owner)
            .expect("an owner of the cluster");
        (*home, key)
    }

    /// A request to replica `i` with `key`: its status and JSON body, or
    /// why no answer came (the server down).
    pub fn call(
        &self,
        i: usize,
        key: &str,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> Result<(u16, Value), String> {
        let url = format!("{}{path}", self.nodes[i].url());
        let auth = format!("Bearer {key}");
        let r = match (method, body) {
            ("GET", _) => self.http.get(&url).header("Authorization", &auth).call(),
            (_, b) => self
                .http
                .post(&url)
                .header("Authorization", &auth)
                .send_json(b.unwrap_or_else(|| json!({}))),
        };
        let mut r = r.map_err(|e| e.to_string())?;
        let status = r.status().as_u16();
        let text = r.body_mut().read_to_string().map_err(|e| e.to_string())?;
        Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
    }

    /// `owner` remembers `text` on its home, the call repeated while the
    /// home is down, until `deadline`: the status of the answer.
    pub fn remember(&self, owner: &str, text: &str, deadline: Instant) -> u16 {
        let (home, key) = self.owner(owner);
        loop {
            let body = json!({"text": text, "scope": "memory"});
            match self.call(home, key, "POST", "/v1/memory/remember", Some(body)) {
                Ok((status, _)) => return status,
                Err(e) => {
                    assert!(Instant::now() < deadline, "{owner} never answered: {e}");
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
    }

    /// The texts `owner` recalls on its home (every entry), the call
    /// repeated while the home is down, until `deadline`.
    pub fn recall(&self, owner: &str, deadline: Instant) -> Vec<String> {
        let (home, key) = self.owner(owner);
        loop {
            match self.call(home, key, "GET", "/v1/memory/recall?limit=500", None) {
                Ok((200, v)) => {
                    return v["entries"]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|e| e["text"].as_str().map(str::to_owned))
                                .collect()
                        })
                        .unwrap_or_default();
                }
                other => {
                    assert!(Instant::now() < deadline, "{owner}'s recall: {other:?}");
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
    }

    /// Replica `i`'s `GET /v1/sync`, asked with the key of an owner homed
    /// there (`None` while it is down).
    pub fn status(&self, i: usize) -> Option<Value> {
        let key = &self.owners.iter().find(|(_, h, _)| *h == i)?.2;
        match self.call(i, key, "GET", "/v1/sync", None) {
            Ok((200, v)) => Some(v),
            _ => None,
        }
    }

    /// Every file of replica `i`'s root with its bytes, by its path under
    /// the root, but the derived and per-machine ones (`.memdir/`,
    /// `results/`).
    pub fn files(&self, i: usize) -> BTreeMap<String, Vec<u8>> {
        fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
            let Ok(rd) = std::fs::read_dir(dir) else {
                return;
            };
            for e in rd.flatten() {
                let p = e.path();
                let name = e.file_name().to_string_lossy().into_owned();
                if name == ".memdir" || name == "results" {
                    continue;
                }
                if p.is_dir() {
                    walk(base, &p, out);
                } else if let Ok(bytes) = std::fs::read(&p) {
                    let rel = p.strip_prefix(base).expect("under the root");
                    out.insert(rel.to_string_lossy().into_owned(), bytes);
                }
            }
        }
        let mut out = BTreeMap::new();
        let root = self.nodes[i].root();
        walk(&root, &root, &mut out);
        out
    }

    /// Whether every replica's root holds the same files, byte for byte.
    pub fn converged(&self) -> bool {
        let first = self.files(0);
        (1..self.nodes.len()).all(|i| self.files(i) == first)
    }

    /// Waits until the replicas converge, polling, at most until
    /// `deadline`: how long it took from `since`, or `None`.
    pub fn wait_converged(&self, since: Instant, deadline: Instant) -> Option<Duration> {
        loop {
            if self.converged() {
                return Some(since.elapsed());
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Waits until `ok` holds of every replica's status, at most until
    /// `deadline`; whether it did.
    pub fn wait_status(&self, deadline: Instant, ok: impl Fn(usize, &Value) -> bool) -> bool {
        loop {
            let all = (0..self.nodes.len()).all(|i| self.status(i).is_some_and(|v| ok(i, &v)));
            if all {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The longest wait any replica has before its next sync, while it
    /// backs off after failures (zero when none does).
    pub fn backoff_left(&self) -> Duration {
        (0..self.nodes.len())
            .filter_map(|i| self.status(i))
            .filter(|v| v["failures_in_a_row"].as_u64().unwrap_or(0) > 0)
            .filter_map(|v| v["next_in_ms"].as_u64())
            .max()
            .map_or(Duration::ZERO, Duration::from_millis)
    }

    /// Pushes retried by every replica since it started (the killed one's
    /// count starts again).
    pub fn pushes_retried(&self) -> u64 {
        (0..self.nodes.len())
            .filter_map(|i| self.status(i))
            .filter_map(|v| v["pushes_retried"].as_u64())
            .sum()
    }
}
