//! The dashboard's server time, in one run, as ratios to the library
//! reading and parsing the same files: a real `memdir serve` (the built
//! binary) on a loopback port over a generated root of 2,000 agents, one of
//! them with 500 facts, a person logged in through the login form, and one
//! keep-alive client.
//!
//! * agents_page_warm: `GET /ui/` (the first 50 agents), its rows from the
//!   cache of unchanged files; agents_page_cold: the first load after a
//!   start (a fresh server each sample, timed from its first request);
//!   agents_floor: `Store::open` and both stores of the same 50 agents
//!   shown through the library (reading and parsing those files).
//! * sorted by a column (`?sort=live`, `?sort=findings`): the first load
//!   after a start (a fresh server each sample) and warm; their floor,
//!   sorted_floor: `Store::open` and both stores of all 2,001 agents shown
//!   through the library (a sort needs every agent's value).
//! * agent_page: `GET /ui/agents/agt_big` (500 facts);
//!   agent_floor: `Store::open` and `list --all` of the same agent through
//!   `api::execute`.
//!
//! Then the figures block: each page's median against its floor.
//! `cargo bench --bench ui` (docs/PERFORMANCE.md).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::Criterion;
use memdir::api::types::{Caller, FactKind, Scope, Store};
use memdir::api::{self, Request, Who};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_memdir");
const AGENTS: usize = 2_000;
const BIG: &str = "agt_big";
const BIG_FACTS: usize = 500;

/// A running `memdir serve` and a logged-in client, killed when dropped.
struct Server {
    child: Child,
    base: String,
    http: ureq::Agent,
    cookie: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

/// The root: 2,000 agents of three facts each, and `agt_big` with 500.
fn root(dir: &Path) -> PathBuf {
    let root = dir.join("root");
    for i in 0..AGENTS {
        let d = root.join(format!("agt_{i:04}"));
        std::fs::create_dir_all(&d).expect("agent folder");
        std::fs::write(
            d.join("MEMORY.md"),
            format!("- Deploys on Tuesday {i}\n- Uses Go {i}\n- Reviews at noon {i}\n"),
        )
        .expect("MEMORY.md");
        std::fs::write(d.join("USER.md"), format!("- Lives in Oslo {i}\n")).expect("USER.md");
    }
    let big = root.join(BIG);
    std::fs::create_dir_all(&big).expect("big folder");
    let facts: String = (0..BIG_FACTS)
        .map(|i| format!("- Fact number {i} about the deploy window\n"))
        .collect();
    std::fs::write(big.join("MEMORY.md"), facts).expect("big MEMORY.md");
    root
}

/// A person's key, made at a terminal whose person answers yes (a
/// person's command is confirmed there: docs/SECURITY.md, Persons).
fn key(root: &Path, keys: &Path) -> String {
    let person_tty = concat!(env!("CARGO_MANIFEST_DIR"), "/../python/tests/person_tty.py");
    let out = Command::new("python3")
        .arg(person_tty)
        .arg(BIN)
        .arg("--root")
        .arg(root)
        .args(["--person", "ann", "--json", "key", "create", "--keys"])
        .arg(keys)
        .output()
        .expect("key create");
    assert!(out.status.success(), "key create: {out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("key json");
    v["key"].as_str().expect("a key").to_owned()
}

/// The value of the first `name="csrf"` input.
fn csrf(html: &str) -> String {
    let needle = "name=\"csrf\" value=\"";
    let at = html.find(needle).expect("a csrf input") + needle.len();
    html[at..at + 64].to_owned()
}

fn cookie_of(r: &ureq::http::Response<ureq::Body>, name: &str) -> String {
    r.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with(&format!("{name}=")))
        .and_then(|c| c.split(';').next())
        .expect("the cookie")
        .to_owned()
}

/// Starts `memdir serve` and logs in.
fn start(root: &Path, keys: &Path, key: &str) -> Server {
    let mut child = Command::new(BIN)
        .arg("--root")
        .arg(root)
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--review-every",
            "0",
            "--keys",
        ])
        .arg(keys)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn memdir serve");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let base = loop {
        let line = lines.next().expect("memdir serve ended").expect("a line");
        if let Some(rest) = line.split("listening on ").nth(1) {
            break rest
                .split_whitespace()
                .next()
                .expect("an address")
                .to_owned();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    let http = agent();
    let mut form = http
        .get(format!("{base}/ui/login"))
        .call()
        .expect("login form");
    let login = cookie_of(&form, "memdir_login");
    let token = csrf(&form.body_mut().read_to_string().expect("the form"));
    let body: String = form_urlencoded::Serializer::new(String::new())
        .extend_pairs([("csrf", token.as_str()), ("key", key)])
        .finish();
    let r = http
        .post(format!("{base}/ui/login"))
        .header("Cookie", &login)
        .header("Origin", &base)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .send(body)
        .expect("login");
    assert_eq!(r.status().as_u16(), 303, "login");
    let cookie = cookie_of(&r, "memdir_session");
    Server {
        child,
        base,
        http,
        cookie,
    }
}

impl Server {
    fn page(&self, path: &str) -> usize {
        let mut r = self
            .http
            .get(format!("{}{path}", self.base))
            .header("Cookie", &self.cookie)
            .call()
            .expect("a page");
        assert_eq!(r.status().as_u16(), 200, "{path}");
        r.body_mut().read_to_string().expect("the page").len()
    }
}

fn person(agent: &str) -> Who {
    Who {
        caller: Caller::Person("ann".into()),
        named: Some(agent.to_owned()),
        raw: false,
    }
}

/// The library reading and parsing the first 50 agents' stores.
fn agents_floor(root: &Path) -> usize {
    let store = Store::open(root).expect("store");
    let mut owners = store.owners().expect("owners");
    owners.sort();
    let mut n = 0;
    for o in owners.iter().take(50) {
        let owner = store
            .owner_as(&Caller::Person("ann".into()), Some(o))
            .expect("owner");
        for scope in Scope::ALL {
            n += owner.show(scope).expect("show").entries.len();
        }
    }
    n
}

/// The library reading and parsing every agent's stores.
fn sorted_floor(root: &Path) -> usize {
    let store = Store::open(root).expect("store");
    let owners = store.owners().expect("owners");
    let mut n = 0;
    for o in &owners {
        let owner = store
            .owner_as(&Caller::Person("ann".into()), Some(o))
            .expect("owner");
        for scope in Scope::ALL {
            n += owner.show(scope).expect("show").entries.len();
        }
    }
    n
}

/// The library reading and parsing the big agent's stores and archive.
fn agent_floor(root: &Path) -> usize {
    let store = Store::open(root).expect("store");
    let r = api::execute(
        &store,
        &person(BIG),
        Request::List {
            kind: Some(FactKind::Fact),
            status: None,
            all: true,
            limit: Some(memdir::api::types::MAX_LIST_LIMIT),
        },
    )
    .expect("list");
    match &*r {
        api::Response::Rows { rows, .. } => rows.len(),
        _ => 0,
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time(n: usize, mut f: impl FnMut()) -> Duration {
    median(
        (0..n)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let tmp = tempfile::tempdir().expect("temp folder");
    let root = root(tmp.path());
    let keys = tmp.path().join("conf/keys.yaml");
    let key = key(&root, &keys);
    let mut crit = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();

    // The first load after a start, timed apart (a fresh server each time).
    let cold: Vec<Duration> = (0..3)
        .map(|_| {
            let srv = start(&root, &keys, &key);
            let t = Instant::now();
            srv.page("/ui/");
            t.elapsed()
        })
        .collect();
    // Sorted by a column: the first load after a start, a fresh server
    // each time (the root's derived files are there from the loads above).
    let sorts = ["live", "findings"];
    let sorted_cold: Vec<Vec<Duration>> = sorts
        .iter()
        .map(|sort| {
            (0..3)
                .map(|_| {
                    let srv = start(&root, &keys, &key);
                    let t = Instant::now();
                    srv.page(&format!("/ui/?sort={sort}"));
                    t.elapsed()
                })
                .collect()
        })
        .collect();
    let srv = start(&root, &keys, &key);
    srv.page("/ui/");
    srv.page(&format!("/ui/agents/{BIG}"));
    for sort in sorts {
        srv.page(&format!("/ui/?sort={sort}"));
    }

    crit.bench_function("agents_page_warm", |b| b.iter(|| srv.page("/ui/")));
    crit.bench_function("agents_floor", |b| b.iter(|| agents_floor(&root)));
    crit.bench_function("agent_page", |b| {
        b.iter(|| srv.page(&format!("/ui/agents/{BIG}")))
    });
    crit.bench_function("agent_floor", |b| b.iter(|| agent_floor(&root)));
    crit.final_summary();

    // The figures: medians of the same run, page against its floor.
    let warm = time(20, || {
        srv.page("/ui/");
    });
    let floor = time(20, || {
        agents_floor(&root);
    });
    let page = time(20, || {
        srv.page(&format!("/ui/agents/{BIG}"));
    });
    let afloor = time(20, || {
        agent_floor(&root);
    });
    let sorted_warm: Vec<Duration> = sorts
        .iter()
        .map(|sort| {
            time(10, || {
                srv.page(&format!("/ui/?sort={sort}"));
            })
        })
        .collect();
    let sfloor = time(5, || {
        sorted_floor(&root);
    });
    let cold = median(cold);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("ui figures ({AGENTS} agents; {BIG} with {BIG_FACTS} facts):");
    println!(
        "  agents page warm {:.1} ms, cold (first load after start) {:.1} ms; floor (library, 50 agents' stores) {:.1} ms; warm/floor {:.2}, cold/warm {:.1}",
        ms(warm),
        ms(cold),
        ms(floor),
        ms(warm) / ms(floor),
        ms(cold) / ms(warm)
    );
    for (i, sort) in sorts.iter().enumerate() {
        let samples: Vec<String> = sorted_cold[i]
            .iter()
            .map(|d| format!("{:.0}", ms(*d)))
            .collect();
        let cold = median(sorted_cold[i].clone());
        println!(
            "  agents page ?sort={sort}: cold (first load after start) {:.1} ms (samples in order: {} ms), warm {:.1} ms; floor (library, all {} agents' stores) {:.1} ms; cold/floor {:.2}, warm/floor {:.2}",
            ms(cold),
            samples.join(", "),
            ms(sorted_warm[i]),
            AGENTS + 1,
            ms(sfloor),
            ms(cold) / ms(sfloor),
            ms(sorted_warm[i]) / ms(sfloor)
        );
    }
    println!(
        "  agent page (500 facts) {:.1} ms; floor (library list --all) {:.1} ms; page/floor {:.2}",
        ms(page),
        ms(afloor),
        ms(page) / ms(afloor)
    );
}
