//! The shared harness of the integration tests: runs the real `memdir`
//! binary (in a temp folder, or on a root a test holds itself), checks its
//! answers, and reads what it wrote.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// The binary under test, built by cargo for the integration tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_memdir");

/// The machine-local configuration folder the tests' processes use (one
/// temp folder for the test binary), so that no test writes to the home
/// folder of the machine it runs on.
pub fn config_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("temp config folder"))
        .path()
}

/// The binary with no `MEMDIR_*` variables but the tests' configuration
/// folder.
pub fn command() -> Command {
    let mut c = Command::new(BIN);
    c.env_remove("MEMDIR_ROOT")
        .env_remove("MEMDIR_OWNER")
        .env("MEMDIR_CONFIG_DIR", config_dir());
    c
}

/// Runs `memdir --root ROOT ARGS` (no `MEMDIR_*` variables) for a test that
/// holds its own folder.
pub fn run_at(root: &Path, args: &[&str]) -> Run {
    let mut c = command();
    c.arg("--root").arg(root).args(args);
    run_cmd(c)
}

/// What one run of the binary did.
pub struct Run {
    /// The exit status (-1 when killed by a signal).
    pub code: i32,
    /// Standard output as it came (`result get` answers may be binary); see
    /// [`Run::text`].
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("code", &self.code)
            .field("stdout", &self.text())
            .field("stderr", &self.stderr)
            .finish()
    }
}

impl Run {
    /// Standard output as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Whether the run exited 0.
    pub fn success(&self) -> bool {
        self.code == 0
    }

    /// Asserts a successful run and returns it.
    #[track_caller]
    pub fn ok(self) -> Run {
        assert_eq!(
            self.code,
            0,
            "expected success\nstdout: {}\nstderr: {}",
            self.text(),
            self.stderr
        );
        self
    }

    /// Parses standard output as one JSON value.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {:?}", self.text()))
    }

    /// Asserts a `--json` error answer with `code`: exit 1, the error object
    /// on stdout with a message and an HTTP status, nothing on stderr.
    /// Returns the error object.
    #[track_caller]
    pub fn json_error(&self, code: &str) -> Value {
        assert_eq!(self.code, 1, "exit status of {self:?}");
        assert_eq!(self.stderr, "", "stderr of a --json error");
        let v = self.json();
        let e = v["error"].clone();
        assert_eq!(e["code"], code, "{v}");
        assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
        assert!(e["status"].as_u64().is_some(), "{v}");
        e
    }

    /// Asserts a `--json` error answer with `code` and exit status `exit`
    /// (3 for `not_ready`), checking nothing else. Returns the error object.
    #[track_caller]
    pub fn json_error_exit(&self, code: &str, exit: i32) -> Value {
        assert_eq!(self.code, exit, "exit status of {self:?}");
        let v = self.json();
        assert_eq!(v["error"]["code"], code, "{v}");
        v["error"].clone()
    }

    /// Asserts a text error answer with `code`: exit 1, `error[code]: …` on
    /// stderr, nothing on stdout. Returns stderr.
    #[track_caller]
    pub fn text_error(&self, code: &str) -> String {
        self.text_error_exit(code, 1)
    }

    /// Asserts a text error answer with `code` and exit status `exit` (3 for
    /// `not_ready`): `error[code]: …` on stderr, nothing on stdout. Returns
    /// stderr.
    #[track_caller]
    pub fn text_error_exit(&self, code: &str, exit: i32) -> String {
        assert_eq!(self.code, exit, "exit status of {self:?}");
        assert!(
            self.stdout.is_empty(),
            "stdout of an error: {:?}",
            self.text()
        );
        assert!(
            self.stderr.starts_with(&format!("error[{code}]: ")),
            "stderr: {:?}",
            self.stderr
        );
        self.stderr.clone()
    }

    /// Asserts a usage error: exit 2, nothing on stdout, a message on stderr.
    #[track_caller]
    pub fn usage_error(&self) -> String {
        assert_eq!(self.code, 2, "exit status of {self:?}");
        assert!(
            self.stdout.is_empty(),
            "stdout of a usage error: {:?}",
            self.text()
        );
        assert!(self.stderr.contains("error"), "stderr: {:?}", self.stderr);
        self.stderr.clone()
    }
}

impl Run {
    /// Asserts a usage error under `--json`: exit 2, nothing on stderr, the
    /// error object (code `usage`, status 400) on stdout. Returns its
    /// message.
    #[track_caller]
    pub fn json_usage_error(&self) -> String {
        assert_eq!(self.code, 2, "exit status of {self:?}");
        assert_eq!(self.stderr, "", "stderr of a --json usage error");
        let v = self.json();
        assert_eq!(v["error"]["code"], "usage", "{v}");
        assert_eq!(v["error"]["status"], 400, "{v}");
        v["error"]["message"]
            .as_str()
            .expect("a message")
            .to_owned()
    }
}

/// Runs `cmd` with an empty standard input.
pub fn run_cmd(cmd: Command) -> Run {
    run_cmd_stdin(cmd, b"")
}

/// Runs `cmd` with `stdin` on its standard input, then closed. A person's
/// command (`--person` without `--key-file`) runs at a terminal whose
/// person answers yes ([`person_at_terminal`]): a person's word is given
/// on the controlling terminal (docs/SECURITY.md, Persons), and the tests
/// of what a person may do keep their words; `tests/it/persons.rs` drives
/// the terminal itself, through [`run_cmd_as_is`].
pub fn run_cmd_stdin(cmd: Command, stdin: &[u8]) -> Run {
    run_cmd_as_is(person_at_terminal(cmd), stdin)
}

/// The person at a terminal the tests run a person's command with
/// (`python3 person_tty.py [--answer A] [--transcript FILE] COMMAND…`): it
/// runs the command in a new session whose controlling terminal is a
/// pseudo-terminal it holds, the command's standard streams left as they
/// are (the test's pipes); answers every `[y/N]` question the terminal
/// shows; writes what the terminal showed to the transcript; and exits
/// with the command's status (128 + N for a signal). Killed, it closes the
/// terminal, which hangs the command up. The Python package's tests use
/// it too.
pub const PERSON_TTY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../python/tests/person_tty.py");

/// `cmd` run by a person at a terminal who answers `answer` to every
/// question it shows ([`PERSON_TTY`]), what the terminal showed written to
/// `transcript`: its program, words, variables and folder, with a
/// controlling terminal of its own. Standard streams are set on the
/// command returned.
pub fn at_terminal(cmd: &Command, answer: &str, transcript: &Path) -> Command {
    let mut c = Command::new("python3");
    c.arg(PERSON_TTY)
        .arg("--answer")
        .arg(answer)
        .arg("--transcript")
        .arg(transcript)
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        c.current_dir(dir);
    }
    c
}

/// `cmd` at a terminal whose person answers yes ([`at_terminal`]) when it
/// is a person's command (`--person`) naming no key file; else `cmd`.
pub fn person_at_terminal(cmd: Command) -> Command {
    let words: Vec<String> = cmd
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let named = |flag: &str| {
        words
            .iter()
            .any(|w| w == flag || w.starts_with(&format!("{flag}=")))
    };
    if named("--person") && !named("--key-file") {
        at_terminal(&cmd, "y", Path::new("/dev/null"))
    } else {
        cmd
    }
}

/// Runs `cmd` as it is (no terminal added, see [`run_cmd_stdin`]) with
/// `stdin` on its standard input, then closed.
pub fn run_cmd_as_is(mut cmd: Command, stdin: &[u8]) -> Run {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn memdir");
    let input = stdin.to_vec();
    let mut pipe = child.stdin.take().expect("stdin");
    // Write from a thread so a child that does not read cannot block us; it
    // may refuse before reading it all: a broken pipe is fine.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for memdir");
    writer.join().expect("stdin writer");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A temp folder holding a memory root (`<tmp>/root`, an empty folder: the
/// command line's writes create an owner only under an existing root); the
/// binary runs in the temp folder, so stray writes land beside the root.
/// [`Sandbox::rootless`] leaves the root to be made.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let s = Sandbox::rootless();
        std::fs::create_dir(&s.root).expect("create the root");
        s
    }

    /// A sandbox whose root does not exist yet.
    pub fn rootless() -> Sandbox {
        let dir = tempfile::tempdir().expect("temp folder");
        let root = dir.path().join("root");
        Sandbox { dir, root }
    }

    /// The binary with no `MEMDIR_*` variables, run in the temp folder.
    pub fn bare(&self) -> Command {
        let mut c = command();
        c.current_dir(self.dir.path());
        c
    }

    /// The binary with `--root <root>` in front of `args`.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = self.bare();
        c.arg("--root").arg(&self.root).args(args);
        c
    }

    /// The binary with `--root <root> --owner <owner>` in front of `args`.
    pub fn owner_cmd(&self, owner: &str, args: &[&str]) -> Command {
        let mut c = self.cmd(&["--owner", owner]);
        c.args(args);
        c
    }

    /// Runs `memdir --root <root> ARGS`.
    pub fn run(&self, args: &[&str]) -> Run {
        run_cmd(self.cmd(args))
    }

    /// Runs `memdir --root <root> ARGS` with `stdin`.
    pub fn run_stdin(&self, args: &[&str], stdin: impl AsRef<[u8]>) -> Run {
        run_cmd_stdin(self.cmd(args), stdin.as_ref())
    }

    /// Runs `memdir --root <root> --owner <owner> ARGS`.
    pub fn run_as(&self, owner: &str, args: &[&str]) -> Run {
        run_cmd(self.owner_cmd(owner, args))
    }

    /// Runs `memdir --root <root> --owner <owner> ARGS` with `stdin`.
    pub fn run_as_stdin(&self, owner: &str, args: &[&str], stdin: impl AsRef<[u8]>) -> Run {
        run_cmd_stdin(self.owner_cmd(owner, args), stdin.as_ref())
    }

    /// `--json ARGS`, which must succeed; its JSON answer.
    #[track_caller]
    pub fn json_ok(&self, args: &[&str]) -> Value {
        self.run(&[&["--json"][..], args].concat()).ok().json()
    }

    /// `--json ARGS`, which must fail with `code` and HTTP `status` (see
    /// [`Run::json_error`]). Returns the error object.
    #[track_caller]
    pub fn json_fail(&self, args: &[&str], code: &str, status: u64) -> Value {
        let e = self.run(&[&["--json"][..], args].concat()).json_error(code);
        assert_eq!(e["status"], status, "{args:?}: {e}");
        e
    }

    /// `<root>/<owner>`.
    pub fn owner_dir(&self, owner: &str) -> PathBuf {
        self.root.join(owner)
    }

    /// `<root>/<owner>/<name>`.
    pub fn path(&self, owner: &str, name: &str) -> PathBuf {
        self.owner_dir(owner).join(name)
    }

    /// Writes `<root>/<owner>/<name>`, creating the folders.
    pub fn write(&self, owner: &str, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(owner, name);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("create folders");
        std::fs::write(&p, bytes).expect("write file");
        p
    }

    /// Reads `<root>/<owner>/<name>`.
    #[track_caller]
    pub fn read(&self, owner: &str, name: &str) -> Vec<u8> {
        let p = self.path(owner, name);
        std::fs::read(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
    }

    /// Reads `<root>/<owner>/<name>` as text.
    #[track_caller]
    pub fn read_text(&self, owner: &str, name: &str) -> String {
        String::from_utf8(self.read(owner, name)).expect("UTF-8")
    }

    /// Reads `<root>/<owner>/<name>` as text, "" when it cannot be read
    /// (missing, or not UTF-8).
    pub fn read_or_empty(&self, owner: &str, name: &str) -> String {
        std::fs::read_to_string(self.path(owner, name)).unwrap_or_default()
    }

    /// Reads `<root>/<owner>/<name>` as text without memdir's metadata
    /// comments (see [`strip_meta`]).
    #[track_caller]
    pub fn read_plain(&self, owner: &str, name: &str) -> String {
        strip_meta(&self.read_text(owner, name))
    }
}

/// `src` without the `<!-- memdir … -->` metadata comments memdir closes
/// entries with (and the blanks before them): what is left is the person's
/// text, which the tests compare byte for byte.
pub fn strip_meta(src: &str) -> String {
    static META: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?s)[ \t]*<!-- memdir\b.*?-->").expect("regex")
    });
    META.replace_all(src, "").into_owned()
}

/// The `(id, text)` entries of `scope` in a `show --json` answer.
#[track_caller]
pub fn store_entries(show: &Value, scope: &str) -> Vec<(String, String)> {
    let store = show["stores"]
        .as_array()
        .expect("stores")
        .iter()
        .find(|s| s["scope"] == scope)
        .unwrap_or_else(|| panic!("no {scope} store in {show}"));
    store["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["id"].as_str().expect("id").to_owned(),
                e["text"].as_str().expect("text").to_owned(),
            )
        })
        .collect()
}

/// Every path under `dir` (folders too, with a trailing `/`), relative and
/// sorted, symlinks not followed.
pub fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            let rel = p
                .strip_prefix(base)
                .expect("under base")
                .to_string_lossy()
                .into_owned();
            let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
            out.push(if is_dir { format!("{rel}/") } else { rel });
            if is_dir {
                walk(base, &p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Names in `dir` that end like a temp file (memdir's or anyone's).
pub fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".memdir-tmp") || n.ends_with("-tmp"))
                .collect()
        })
        .unwrap_or_default()
}

/// The inode of a file (to tell "rewritten" from "left alone").
#[cfg(unix)]
pub fn inode(p: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).expect("stat").ino()
}

/// The permission bits of a file.
#[cfg(unix)]
pub fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).expect("stat").permissions().mode() & 0o7777
}

/// Taken by the tests that load the machine (hundreds of processes) and by
/// the tests that assert on wall-clock bounds, so that neither runs beside
/// the other in this one test binary.
pub fn exclusive() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A made-up word for `n` after `prefix`: consonant-vowel syllables, so
/// that texts built of distinct numbers share no term (recall's stemming
/// leaves them whole; the merge pairs edits by shared terms).
pub fn word(prefix: &str, mut n: usize) -> String {
    const C: &[u8] = b"bdfgklmnprtvz";
    const V: &[u8] = b"aeiou";
    let mut w = String::from(prefix);
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

impl Sandbox {
    /// Appends to `<root>/<owner>/<file>` (`MEMORY.md` or `USER.md`) a fact
    /// that expired at the end of 2000-01-01 (UTC), with the metadata memdir
    /// writes: how a test gets an expired fact, since a save refuses an
    /// expiry in the past. Returns its id.
    pub fn add_expired(&self, owner: &str, file: &str, text: &str) -> String {
        let p = self.path(owner, file);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("create folders");
        let mut src = std::fs::read_to_string(&p).unwrap_or_default();
        src.push_str(&format!(
            "- {text} <!-- memdir created=1999-12-01T00:00:00Z expires=2000-01-01T23:59:59Z agent={owner} -->\n"
        ));
        std::fs::write(&p, src).expect("write file");
        let scope = if file == "USER.md" { "user" } else { "memory" };
        memdir::api::types::entry_id(scope, text)
    }

    /// Appends to `<root>/<owner>/<file>` a live fact saved `ago` seconds
    /// before now, with the metadata memdir writes: how a test orders facts
    /// by time without waiting for the clock (timestamps are whole
    /// seconds). Returns its id.
    pub fn add_created(&self, owner: &str, file: &str, text: &str, ago: i64) -> String {
        let p = self.path(owner, file);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("create folders");
        let mut src = std::fs::read_to_string(&p).unwrap_or_default();
        let at = (chrono::Utc::now() - chrono::Duration::seconds(ago)).format("%Y-%m-%dT%H:%M:%SZ");
        src.push_str(&format!(
            "- {text} <!-- memdir created={at} agent={owner} -->\n"
        ));
        std::fs::write(&p, src).expect("write file");
        let scope = if file == "USER.md" { "user" } else { "memory" };
        memdir::api::types::entry_id(scope, text)
    }
}

thread_local! {
    /// What a test found wrong in this thread, while a [`Collect`] guard
    /// lives.
    static WRONG: std::cell::RefCell<Option<Vec<String>>> = const { std::cell::RefCell::new(None) };
}

/// Collects every wrong answer of a test; dropped at the test's end, it
/// fails once naming them all (so one drifted answer does not hide the
/// rest).
pub struct Collect;

impl Collect {
    pub fn start() -> Collect {
        WRONG.with(|w| *w.borrow_mut() = Some(Vec::new()));
        Collect
    }
}

impl Drop for Collect {
    fn drop(&mut self) {
        let wrong = WRONG.with(|w| w.borrow_mut().take()).unwrap_or_default();
        if !wrong.is_empty() && !std::thread::panicking() {
            panic!("{} answer(s) wrong:\n{}", wrong.len(), wrong.join("\n"));
        }
    }
}

/// Records `what` (at the caller's line) for the [`Collect`] guard; without
/// one, fails at once.
#[track_caller]
pub fn wrong(what: String) {
    let line = std::panic::Location::caller().line();
    let what = format!("line {line}: {what}");
    WRONG.with(|w| match w.borrow_mut().as_mut() {
        Some(list) => list.push(what),
        None => panic!("{what}"),
    });
}

/// Says, by the running test's name (libtest names each test's thread after
/// it), that the test — or the part `why` names — did not run on this
/// machine, and why. Written to the process's standard error itself, not
/// through `eprintln!`, which libtest captures and drops for a test that
/// passes: a test that returns early for want of a tool would otherwise
/// report `ok` and say nothing.
pub fn not_run(why: &str) {
    use std::io::Write;
    let name = std::thread::current()
        .name()
        .unwrap_or("(unnamed test)")
        .to_owned();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "NOT RUN {name}: {why}");
}

/// Whether git can be run; where it cannot, says so by the test's name
/// ([`not_run`]).
pub fn have_git() -> bool {
    let ok = Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        not_run("no `git` binary on this machine");
    }
    ok
}
