//! The dashboard in a real browser: headless Chromium driven over WebDriver
//! (chromedriver on an OS-chosen loopback port, fantoccini as the client)
//! against the real `memdir serve` on loopback.
//!
//! A test is `run(&server.base, |page| async move { ... })`: the harness
//! starts chromedriver and a browser with a profile of its own, hands the
//! test a [`Page`], and when the test fails (a panic, a WebDriver error, or
//! more than [`TEST_LIMIT`]) saves a screenshot and the page's HTML in the
//! test's temp folder, keeps that folder, prints both paths, and fails the
//! test with the original panic. Every wait of the harness is bounded
//! ([`WAIT`]), so a hung browser fails a test instead of hanging it.
//!
//! Without `chromium` and `chromedriver` (found on `PATH`, or named by
//! `MEMDIR_CHROMIUM` / `MEMDIR_CHROMEDRIVER`) the tests print a line and
//! pass, unless `MEMDIR_REQUIRE_BROWSER=1` (as `.ci/run` sets) makes a
//! missing browser a failure. The browser tests run one at a time: a
//! Chromium per test on a small machine is enough.

mod actions;
mod agents;
mod decisions;
mod dreaming;
mod forged;
mod forms;
mod harness;
mod hostile;
mod listener;
mod login;
mod pending;
mod runs;
mod site;

use std::any::Any;
use std::future::Future;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use fantoccini::elements::Element;
use fantoccini::error::CmdError;
use fantoccini::wd::TimeoutConfiguration;
use fantoccini::{Client, ClientBuilder, Locator};
use futures_util::FutureExt;
use serde_json::{Value, json};

/// The longest any one step (a page load, a click, finding an element)
/// may take.
pub(crate) const WAIT: Duration = Duration::from_secs(10);

/// The longest a browser may take to start.
const START: Duration = Duration::from_secs(30);

/// The longest a whole test body may take.
pub(crate) const TEST_LIMIT: Duration = Duration::from_secs(120);

/// One browser at a time across the test binary's threads.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The browser and its driver, as found on this machine.
pub(crate) struct Tools {
    chromium: PathBuf,
    chromedriver: PathBuf,
}

/// `name` on `PATH` (or the file `var` names), if it is there.
fn find(var: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(var) {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// The browser and driver, or `None` after printing why the test skips;
/// a missing browser fails the test under `MEMDIR_REQUIRE_BROWSER=1`.
pub(crate) fn tools() -> Option<Tools> {
    let chromium = find("MEMDIR_CHROMIUM", &["chromium", "chromium-browser"]);
    let chromedriver = find("MEMDIR_CHROMEDRIVER", &["chromedriver"]);
    match (chromium, chromedriver) {
        (Some(chromium), Some(chromedriver)) => Some(Tools {
            chromium,
            chromedriver,
        }),
        (chromium, chromedriver) => {
            let missing = format!(
                "chromium {}, chromedriver {}",
                if chromium.is_some() {
                    "found"
                } else {
                    "missing"
                },
                if chromedriver.is_some() {
                    "found"
                } else {
                    "missing"
                },
            );
            if std::env::var_os("MEMDIR_REQUIRE_BROWSER").is_some_and(|v| v == "1") {
                panic!("MEMDIR_REQUIRE_BROWSER=1 but {missing}");
            }
            crate::util::not_run(&format!(
                "no browser ({missing}); install chromium and chromium-driver"
            ));
            None
        }
    }
}

/// A running chromedriver, in a process group of its own: dropping it
/// ends the driver and any browser it started.
struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Some(pid) = rustix::process::Pid::from_raw(self.child.id() as i32) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    /// Starts chromedriver on a port the OS picks and waits (at most
    /// [`WAIT`]) for the line that says it listens.
    fn start(tools: &Tools) -> Driver {
        let mut child = Command::new(&tools.chromedriver)
            .arg("--port=0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("spawn chromedriver");
        let out = child.stdout.take().expect("chromedriver's standard output");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut driver = Driver {
            child,
            url: String::new(),
        };
        let deadline = std::time::Instant::now() + WAIT;
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            let line = rx
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("chromedriver said nothing of its port: {e}"));
            if let Some(rest) = line.split("started successfully on port ").nth(1) {
                let port = rest.trim_end_matches('.').trim();
                driver.url = format!("http://127.0.0.1:{port}");
                return driver;
            }
        }
        panic!("chromedriver did not start in {WAIT:?}")
    }
}

/// `step` within [`WAIT`], or a panic naming `what`.
pub(crate) async fn bounded<T>(what: &str, step: impl Future<Output = Result<T, CmdError>>) -> T {
    match tokio::time::timeout(WAIT, step).await {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => panic!("{what}: {e}"),
        Err(_) => panic!("{what}: no answer from the browser in {WAIT:?}"),
    }
}

/// The browser's current page, with the server's base URL.
#[derive(Clone)]
pub(crate) struct Page {
    client: Client,
    base: String,
}

impl Page {
    /// `path` (on the server) or a full URL.
    fn absolute(&self, path: &str) -> String {
        if path.starts_with('/') {
            format!("{}{path}", self.base)
        } else {
            path.to_owned()
        }
    }

    /// Loads `path` (on the server) or a full URL.
    pub(crate) async fn goto(&self, path: &str) {
        let url = self.absolute(path);
        bounded(&format!("load {url}"), self.client.goto(&url)).await;
    }

    /// The element `css` selects, waiting for it at most [`WAIT`].
    pub(crate) async fn find(&self, css: &str) -> Element {
        let wait = self.client.wait().at_most(WAIT);
        bounded(&format!("find {css}"), wait.for_element(Locator::Css(css))).await
    }

    /// Every element `css` selects now (maybe none).
    pub(crate) async fn all(&self, css: &str) -> Vec<Element> {
        bounded(
            &format!("find all {css}"),
            self.client.find_all(Locator::Css(css)),
        )
        .await
    }

    /// Whether `css` selects an element now.
    pub(crate) async fn has(&self, css: &str) -> bool {
        !self.all(css).await.is_empty()
    }

    /// Waits (at most [`WAIT`]) until `css` selects no element: the page a
    /// form loads has replaced the one that showed it.
    pub(crate) async fn gone(&self, css: &str) {
        let deadline = tokio::time::Instant::now() + WAIT;
        while self.has(css).await {
            assert!(
                tokio::time::Instant::now() < deadline,
                "{css} still on the page after {WAIT:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Types `text` into the field `css` selects, after clearing it.
    pub(crate) async fn fill(&self, css: &str, text: &str) {
        let field = self.find(css).await;
        bounded(&format!("clear {css}"), field.clear()).await;
        bounded(&format!("type into {css}"), field.send_keys(text)).await;
    }

    /// Clicks the element `css` selects (a submit button waits for the
    /// page it loads).
    pub(crate) async fn click(&self, css: &str) {
        let el = self.find(css).await;
        bounded(&format!("click {css}"), el.click()).await;
    }

    /// The text the element `css` selects shows.
    pub(crate) async fn text(&self, css: &str) -> String {
        let el = self.find(css).await;
        bounded(&format!("text of {css}"), el.text()).await
    }

    /// An attribute of the element `css` selects.
    pub(crate) async fn attr(&self, css: &str, name: &str) -> Option<String> {
        let el = self.find(css).await;
        bounded(&format!("{name} of {css}"), el.attr(name)).await
    }

    /// The page's HTML as the browser holds it now.
    pub(crate) async fn html(&self) -> String {
        bounded("the page's HTML", self.client.source()).await
    }

    /// The path of the page's URL now (`/ui/`, without the query).
    pub(crate) async fn path(&self) -> String {
        bounded("the page's URL", self.client.current_url())
            .await
            .path()
            .to_owned()
    }

    /// What `script` (a function body: `return ...`) gives in the page.
    pub(crate) async fn eval(&self, script: &str) -> Value {
        bounded(
            &format!("run {script:?}"),
            self.client.execute(script, Vec::new()),
        )
        .await
    }

    /// Whether a JavaScript dialog (alert, confirm, prompt) is open.
    pub(crate) async fn dialog_open(&self) -> bool {
        match tokio::time::timeout(WAIT, self.client.get_alert_text()).await {
            Ok(Ok(_)) => true,
            Ok(Err(CmdError::Standard(e)))
                if e.error == fantoccini::error::ErrorStatus::NoSuchAlert =>
            {
                false
            }
            Ok(Err(e)) => panic!("ask for a dialog: {e}"),
            Err(_) => panic!("ask for a dialog: no answer in {WAIT:?}"),
        }
    }

    /// The WebDriver client, for what the helpers do not cover.
    pub(crate) fn client(&self) -> &Client {
        &self.client
    }
}

/// The screenshot and HTML a failed test left, and why it failed.
pub(crate) struct Failure {
    pub(crate) png: PathBuf,
    pub(crate) html: PathBuf,
    pub(crate) panic: Box<dyn Any + Send>,
}

/// The test's temp folder: named after the test (its thread's name).
fn test_dir() -> tempfile::TempDir {
    let name: String = std::thread::current()
        .name()
        .unwrap_or("browser")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    tempfile::Builder::new()
        .prefix(&format!("memdir-{name}-"))
        .tempdir()
        .expect("a temp folder for the browser")
}

/// Opens a browser session on `driver`, a profile in `profile`.
async fn connect(tools: &Tools, driver: &Driver, profile: &Path) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": tools.chromium,
            "args": [
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--window-size=1280,900",
                format!("--user-data-dir={}", profile.display()),
            ],
        }),
    );
    let builder = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .clone();
    let client = match tokio::time::timeout(START, builder.connect(&driver.url)).await {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => panic!("start chromium through chromedriver: {e}"),
        Err(_) => panic!("chromium did not start in {START:?}"),
    };
    let limits = TimeoutConfiguration::new(Some(WAIT), Some(WAIT), Some(Duration::ZERO));
    bounded("set the browser's timeouts", client.update_timeouts(limits)).await;
    client
}

/// Saves the page's screenshot and HTML in `dir`, as far as the browser
/// still answers.
async fn save(client: &Client, dir: &Path) -> (PathBuf, PathBuf) {
    let png = dir.join("failure.png");
    let html = dir.join("failure.html");
    let shot = tokio::time::timeout(WAIT, client.screenshot()).await;
    match shot {
        Ok(Ok(bytes)) => {
            let _ = std::fs::write(&png, bytes);
        }
        other => eprintln!("no screenshot: {:?}", other.map(|r| r.err())),
    }
    match tokio::time::timeout(WAIT, client.source()).await {
        Ok(Ok(source)) => {
            let _ = std::fs::write(&html, source);
        }
        other => eprintln!("no page HTML: {:?}", other.map(|r| r.err())),
    }
    (png, html)
}

/// Runs `test` in a fresh browser on the server at `base`; `Ok` when it
/// passed (or the browser is missing and not required), else the
/// [`Failure`] with the artifacts it saved, the folder kept.
pub(crate) fn try_run<F, Fut>(base: &str, test: F) -> Result<(), Failure>
where
    F: FnOnce(Page) -> Fut,
    Fut: Future<Output = ()>,
{
    let Some(tools) = tools() else {
        return Ok(());
    };
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = test_dir();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime for the browser");
    runtime.block_on(async {
        let driver = Driver::start(&tools);
        let client = connect(&tools, &driver, &dir.path().join("profile")).await;
        let page = Page {
            client: client.clone(),
            base: base.to_owned(),
        };
        let body = AssertUnwindSafe(test(page)).catch_unwind();
        let failed = match tokio::time::timeout(TEST_LIMIT, body).await {
            Ok(Ok(())) => None,
            Ok(Err(panic)) => Some(panic),
            Err(_) => Some(
                Box::new(format!("the test did not finish in {TEST_LIMIT:?}"))
                    as Box<dyn Any + Send>,
            ),
        };
        let outcome = match failed {
            None => Ok(()),
            Some(panic) => {
                let (png, html) = save(&client, dir.path()).await;
                Err(Failure { png, html, panic })
            }
        };
        let _ = tokio::time::timeout(WAIT, client.close()).await;
        drop(driver);
        if outcome.is_err() {
            // The artifacts outlive the test.
            let _ = dir.keep();
        }
        outcome
    })
}

/// Runs `test` in a fresh browser on the server at `base`; when it fails,
/// prints where its screenshot and HTML are and fails with its panic.
pub(crate) fn run<F, Fut>(base: &str, test: F)
where
    F: FnOnce(Page) -> Fut,
    Fut: Future<Output = ()>,
{
    if let Err(f) = try_run(base, test) {
        eprintln!(
            "browser test failed; screenshot {} and page {}",
            f.png.display(),
            f.html.display()
        );
        std::panic::resume_unwind(f.panic);
    }
}
