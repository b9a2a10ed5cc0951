//! Photographs every page of the dashboard into `docs/dashboard/*.png`.
//!
//! ```text
//! cargo run --example dashboard-screenshots            # needs chromium and chromedriver
//! ```
//!
//! It copies the example root `fixtures/dashboard/` (three agents, a conflict
//! pair, a blocked entry, pending learnings, an archived and an expired fact,
//! a day log) to a temporary folder, gives one agent a finished run and a
//! review there, builds `memdir` (`$CARGO build --bin memdir`, the profile
//! this example runs in) and starts `memdir serve` on a loopback port, makes a
//! person's key, logs in through the login form in headless Chromium (driven
//! over WebDriver by chromedriver) and takes a PNG of each page, the whole
//! page 1280 pixels wide, and of the agents page 360 wide (a phone). The
//! browser and driver are found on `PATH` (`chromium`, `chromedriver`) or
//! named by `MEMDIR_CHROMIUM` and `MEMDIR_CHROMEDRIVER`; `MEMDIR_BIN` names a
//! built `memdir` instead of building one. Nothing outside the temporary
//! folder is written but the PNGs (`MEMDIR_SCREENSHOTS=DIR` writes them
//! elsewhere).

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

/// The longest one browser step may take.
const WAIT: Duration = Duration::from_secs(20);
/// The tallest page photographed, in pixels.
const MAX_HEIGHT: u64 = 6_000;
/// The agent whose pages are photographed.
const AGENT: &str = "agt_support";
/// The person logged in.
const PERSON: &str = "ana";

type Fail = Box<dyn std::error::Error>;

/// A child process killed (with its process group) when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        // The process group too: chromedriver's browser goes with it.
        if let Some(pid) = rustix::process::Pid::from_raw(self.0.id() as i32) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The workspace's top folder.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_owned)
}

/// Builds `memdir` in this example's profile; its path (`MEMDIR_BIN`
/// names a built one instead).
fn memdir() -> Result<PathBuf, Fail> {
    if let Some(bin) = std::env::var_os("MEMDIR_BIN") {
        return Ok(PathBuf::from(bin));
    }
    let exe = std::env::current_exe()?;
    // target/<profile>/examples/<this>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("the example's own folder")?
        .to_owned();
    let release = profile_dir.file_name().is_some_and(|n| n == "release");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut build = Command::new(cargo);
    build
        .current_dir(workspace())
        .args(["build", "--bin", "memdir"]);
    if release {
        build.arg("--release");
    }
    let status = build.status()?;
    if !status.success() {
        return Err(format!("cargo build --bin memdir: {status}").into());
    }
    Ok(profile_dir.join("memdir"))
}

/// Copies the folder `from` into `to` (files and folders only).
fn copy_tree(from: &Path, to: &Path) -> Result<(), Fail> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let name = e.file_name();
        // Derived files left by an earlier run beside the fixture.
        if name == ".memdir" {
            continue;
        }
        let kind = e.file_type()?;
        if kind.is_dir() {
            copy_tree(&e.path(), &to.join(&name))?;
        } else if kind.is_file() {
            std::fs::copy(e.path(), to.join(&name))?;
        }
    }
    Ok(())
}

/// Runs `memdir --root ROOT ARGS`: its standard output, or the failure.
fn run(bin: &Path, root: &Path, args: &[&str]) -> Result<String, Fail> {
    // A person's command is confirmed at a terminal (docs/SECURITY.md,
    // Persons): it runs at one whose person answers yes.
    let mut c = if args.contains(&"--person") {
        let mut c = Command::new("python3");
        c.arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../python/tests/person_tty.py"
        ))
        .arg(bin);
        c
    } else {
        Command::new(bin)
    };
    let out = c
        .arg("--root")
        .arg(root)
        .args(args)
        .env_remove("MEMDIR_OWNER")
        .output()?;
    if !out.status.success() {
        return Err(format!(
            "memdir {}: {}{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(String::from_utf8(out.stdout)?)
}

/// `name` on `PATH`, or the file `var` names.
fn find(var: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(var) {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// Waits for the line of `child`'s `stream` that contains `marker`: the
/// rest of that line.
fn line_after(
    lines: impl Iterator<Item = std::io::Result<String>> + Send + 'static,
    marker: &'static str,
) -> Result<String, Fail> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + WAIT;
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        let line = rx.recv_timeout(left)?;
        if let Some(rest) = line.split(marker).nth(1) {
            return Ok(rest.trim().to_owned());
        }
    }
    Err(format!("no line with {marker:?} in {WAIT:?}").into())
}

/// Starts `memdir serve` on a loopback port: the process and its base URL.
fn serve(bin: &Path, root: &Path, keys: &Path) -> Result<(Running, String), Fail> {
    let mut child = Command::new(bin)
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
        .process_group(0)
        .spawn()?;
    let err = child.stderr.take().ok_or("serve's standard error")?;
    let running = Running(child);
    let rest = line_after(BufReader::new(err).lines(), "listening on ")?;
    let base = rest
        .split_whitespace()
        .next()
        .ok_or("an address")?
        .to_owned();
    Ok((running, base))
}

/// Starts chromedriver on a port the OS picks: the process and its URL.
fn chromedriver(driver: &Path) -> Result<(Running, String), Fail> {
    let mut child = Command::new(driver)
        .arg("--port=0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()?;
    let out = child
        .stdout
        .take()
        .ok_or("chromedriver's standard output")?;
    let running = Running(child);
    let rest = line_after(BufReader::new(out).lines(), "started successfully on port ")?;
    let port = rest.trim_end_matches('.').trim().to_owned();
    Ok((running, format!("http://127.0.0.1:{port}")))
}

/// `step` within [`WAIT`].
async fn bounded<T, E: std::fmt::Display>(
    what: &str,
    step: impl std::future::Future<Output = Result<T, E>>,
) -> Result<T, Fail> {
    match tokio::time::timeout(WAIT, step).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(format!("{what}: {e}").into()),
        Err(_) => Err(format!("{what}: no answer in {WAIT:?}").into()),
    }
}

/// The browser, at the server `base`.
struct Browser {
    client: Client,
    base: String,
}

impl Browser {
    async fn goto(&self, path: &str) -> Result<(), Fail> {
        let url = format!("{}{path}", self.base);
        bounded(&format!("load {url}"), self.client.goto(&url)).await
    }

    async fn find(&self, css: &str) -> Result<fantoccini::elements::Element, Fail> {
        let wait = self.client.wait().at_most(WAIT);
        bounded(&format!("find {css}"), wait.for_element(Locator::Css(css))).await
    }

    /// Logs in with the person's key, through the form.
    async fn log_in(&self, key: &str) -> Result<(), Fail> {
        self.goto("/ui/login").await?;
        let field = self.find("#login input[name=key]").await?;
        bounded("type the key", field.send_keys(key)).await?;
        let submit = self.find("#login button[type=submit]").await?;
        bounded("log in", submit.click()).await?;
        self.find("table.agents").await?;
        Ok(())
    }

    /// The whole page `path` (waiting for `css`), `width` pixels wide, as
    /// a PNG in `out`.
    async fn shoot(&self, path: &str, css: &str, width: u32, out: &Path) -> Result<(), Fail> {
        // An emulated phone keeps its own width; a window is sized.
        let window = width.max(500);
        bounded("size the window", self.client.set_window_size(window, 900)).await?;
        self.goto(path).await?;
        self.find(css).await?;
        let h: Value = bounded(
            "measure the page",
            self.client.execute(
                "return Math.ceil(document.documentElement.scrollHeight)",
                Vec::new(),
            ),
        )
        .await?;
        let height = h.as_u64().unwrap_or(900).clamp(300, MAX_HEIGHT);
        // The window's frame around the page, as the browser reports it.
        let inner: Value = bounded(
            "measure the window",
            self.client.execute(
                "return [window.outerWidth - window.innerWidth, window.outerHeight - window.innerHeight]",
                Vec::new(),
            ),
        )
        .await?;
        let extra = |i: usize| inner[i].as_u64().unwrap_or(0) as u32;
        bounded(
            "size the window to the page",
            self.client
                .set_window_size(window + extra(0), height as u32 + extra(1)),
        )
        .await?;
        let png = bounded("take the screenshot", self.client.screenshot()).await?;
        std::fs::write(out, &png)?;
        println!("{} ({width} wide, {} bytes)", out.display(), png.len());
        Ok(())
    }
}

/// Gives the agent a finished run, a day line today and a review.
fn history(bin: &Path, root: &Path) -> Result<(), Fail> {
    let me = ["--owner", AGENT];
    let begun = run(
        bin,
        root,
        &[&me[..], &["--json", "run", "begin", "--task", "triage"]].concat(),
    )?;
    let v: Value = serde_json::from_str(&begun)?;
    let id = v["run_id"].as_str().ok_or("a run id")?.to_owned();
    run(
        bin,
        root,
        &[
            &me[..],
            &[
                "day",
                "Triaged the morning queue: 9 tickets, none urgent",
                "--run",
                &id,
            ],
        ]
        .concat(),
    )?;
    run(
        bin,
        root,
        &[&me[..], &["run", "finish", &id, "Morning triage done"]].concat(),
    )?;
    run(bin, root, &[&me[..], &["review"]].concat())?;
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Fail> {
    let chromium = find("MEMDIR_CHROMIUM", &["chromium", "chromium-browser"])
        .ok_or("no chromium (install chromium, or name it with MEMDIR_CHROMIUM)")?;
    let driver = find("MEMDIR_CHROMEDRIVER", &["chromedriver"])
        .ok_or("no chromedriver (install chromium-driver, or name it with MEMDIR_CHROMEDRIVER)")?;
    let out_dir = std::env::var_os("MEMDIR_SCREENSHOTS")
        .map_or_else(|| workspace().join("docs/dashboard"), PathBuf::from);
    std::fs::create_dir_all(&out_dir)?;
    let bin = memdir()?;
    let tmp = tempfile::tempdir()?;
    let root = tmp.path().join("root");
    copy_tree(&workspace().join("fixtures/dashboard"), &root)?;
    history(&bin, &root)?;
    let conf = tmp.path().join("conf");
    std::fs::create_dir_all(&conf)?;
    let keys = conf.join("keys.yaml");
    let made = run(
        &bin,
        &root,
        &[
            "--person",
            PERSON,
            "--json",
            "key",
            "create",
            "--keys",
            &keys.to_string_lossy(),
        ],
    )?;
    let made: Value = serde_json::from_str(&made)?;
    let key = made["key"].as_str().ok_or("a key")?.to_owned();
    let (_server, base) = serve(&bin, &root, &keys)?;
    let (_driver, driver_url) = chromedriver(&driver)?;
    let client = open(&chromium, &tmp.path().join("profile"), &driver_url, None).await?;
    let b = Browser { client, base };
    let shot = |name: &str| out_dir.join(format!("{name}.png"));

    // Before logging in: the login form and a one-time link's page.
    b.shoot("/ui/login", "#login", 1280, &shot("login")).await?;
    let link = run(
        &bin,
        &root,
        &[
            "--person",
            PERSON,
            "ui",
            "--url",
            &b.base,
            "--keys",
            &keys.to_string_lossy(),
        ],
    )?;
    let link = link.lines().next().unwrap_or_default();
    let link_path = link.strip_prefix(&b.base).ok_or("a link to the server")?;
    b.shoot(link_path, "#login-link", 1280, &shot("login-link"))
        .await?;

    b.log_in(&key).await?;

    let agent = format!("/ui/agents/{AGENT}");
    let pages: [(&str, String, &str); 7] = [
        ("agents", "/ui/".to_owned(), "table.agents"),
        ("agent", agent.clone(), "table.facts"),
        ("snapshot", format!("{agent}/snapshot"), "pre"),
        ("day", format!("{agent}/day"), "main"),
        ("dreaming", format!("{agent}/dreaming"), "main"),
        ("learnings", "/ui/learnings".to_owned(), "main"),
        ("decisions", "/ui/decisions".to_owned(), "main"),
    ];
    for (name, path, css) in &pages {
        b.shoot(path, css, 1280, &shot(name)).await?;
    }
    bounded("close the browser", b.client.close()).await?;

    // A phone: Chrome's windows are at least 500 wide, so the page is
    // laid out 360 wide by the driver's device emulation.
    let phone = open(&chromium, &tmp.path().join("phone"), &driver_url, Some(360)).await?;
    let b = Browser {
        client: phone,
        base: b.base,
    };
    b.log_in(&key).await?;
    b.shoot("/ui/", "table.agents", 360, &shot("agents-360"))
        .await?;
    bounded("close the browser", b.client.close()).await?;
    Ok(())
}

/// A browser session on `driver_url`, its profile in `profile`; `phone`:
/// a device `phone` pixels wide emulated.
async fn open(
    chromium: &Path,
    profile: &Path,
    driver_url: &str,
    phone: Option<u32>,
) -> Result<Client, Fail> {
    let mut options = json!({
        "binary": chromium,
        "args": [
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--window-size=1280,900",
            format!("--user-data-dir={}", profile.display()),
        ],
    });
    if let Some(w) = phone {
        options["mobileEmulation"] =
            json!({"deviceMetrics": {"width": w, "height": 760, "pixelRatio": 1.0}});
    }
    let mut caps = serde_json::Map::new();
    caps.insert("goog:chromeOptions".into(), options);
    bounded(
        "start chromium",
        ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(driver_url),
    )
    .await
}
