//! The `git` command, run as a program (memdir does not reimplement git):
//! finding the work tree a folder is in, setting the merge driver in its
//! configuration, committing, pulling, pushing, and reading history.
//!
//! The only code that runs a program. Every call names the work tree with
//! `-C`, gives git no terminal prompt (`GIT_TERMINAL_PROMPT=0`), and retries
//! while another process holds the index lock.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::error::{Error, Result};

/// How often a command is tried while `index.lock` is held by another git.
const INDEX_LOCK_TRIES: usize = 50;
/// The pause between two tries.
const INDEX_LOCK_PAUSE: Duration = Duration::from_millis(20);

/// The command git runs as memdir's merge driver (`%O %A %B %P`: base,
/// ours, theirs, path), registered as `merge.memdir.driver`.
pub const MERGE_DRIVER: &str = "memdir merge-file %O %A %B %P";

/// An identity for the commits memdir makes: the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The author's name (`agt_x`, or a person's id).
    pub name: String,
    /// The author's e-mail (`agt_x@memdir.invalid` unless configured).
    pub email: String,
}

/// A git work tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repo {
    top: PathBuf,
}

impl Repo {
    /// The work tree `dir` is in; `None` when it is in none (or git is not
    /// installed).
    pub fn find(dir: &Path) -> Option<Repo> {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["rev-parse", "--show-toplevel"])
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        let top = String::from_utf8(out.stdout).ok()?;
        Some(Repo {
            top: PathBuf::from(top.trim_end_matches(['\n', '\r'])),
        })
    }

    /// The work tree's top folder.
    pub fn top(&self) -> &Path {
        &self.top
    }

    /// Runs `git -C TOP args…` with `env`, retrying while another process
    /// holds the index lock; the output of a command that ran, whatever its
    /// status.
    pub fn output(&self, args: &[&str], env: &[(&str, &str)]) -> Result<Output> {
        output_in(&self.top, args, env)
    }

    /// [`Repo::output`] for a command that talks to a remote (fetch,
    /// push): git runs in its own process group, and the group is killed
    /// once `limit` has passed ([`Error::Git`], saying so). What it prints is
    /// kept up to 64 KiB a stream.
    pub fn output_within(
        &self,
        args: &[&str],
        env: &[(&str, &str)],
        limit: Duration,
    ) -> Result<Output> {
        bounded(&self.top, args, env, limit)
    }

    /// Runs git and gives its standard output; a failure is [`Error::Git`]
    /// with what git said.
    pub fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Result<String> {
        let out = self.output(args, env)?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(failed(args, &out))
        }
    }

    /// A configuration value of the repository, if set.
    pub fn config_get(&self, key: &str) -> Result<Option<String>> {
        let out = self.output(&["config", "--local", "--get", key], &[])?;
        Ok(out.status.success().then(|| {
            String::from_utf8_lossy(&out.stdout)
                .trim_end_matches(['\n', '\r'])
                .to_owned()
        }))
    }

    /// Sets a configuration value of the repository; whether it changed.
    pub fn config_set(&self, key: &str, value: &str) -> Result<bool> {
        if self.config_get(key)?.as_deref() == Some(value) {
            return Ok(false);
        }
        self.run(&["config", "--local", key, value], &[])?;
        Ok(true)
    }

    /// Commits the files `names` of the folder `dir` (in this work tree);
    /// see [`commit`].
    pub fn commit(
        &self,
        dir: &Path,
        names: &[&str],
        message: &str,
        who: &Identity,
    ) -> Result<bool> {
        commit(dir, names, message, who)
    }

    /// The branch checked out (`main`), also when it has no commit yet;
    /// `None` when HEAD is detached.
    pub fn branch(&self) -> Result<Option<String>> {
        let out = self.output(&["symbolic-ref", "--quiet", "--short", "HEAD"], &[])?;
        Ok(out.status.success().then(|| {
            String::from_utf8_lossy(&out.stdout)
                .trim_end_matches(['\n', '\r'])
                .to_owned()
        }))
    }

    /// The commit `rev` names (`HEAD`, `origin/main`); `None` when it names
    /// none (a branch with no commit yet, a remote branch not fetched).
    pub fn commit_of(&self, rev: &str) -> Result<Option<String>> {
        let spec = format!("{rev}^{{commit}}");
        let out = self.output(&["rev-parse", "--verify", "--quiet", &spec], &[])?;
        Ok(out.status.success().then(|| {
            String::from_utf8_lossy(&out.stdout)
                .trim_end_matches(['\n', '\r'])
                .to_owned()
        }))
    }

    /// The names of the repository's remotes.
    pub fn remotes(&self) -> Result<Vec<String>> {
        Ok(self
            .run(&["remote"], &[])?
            .lines()
            .map(str::to_owned)
            .filter(|l| !l.is_empty())
            .collect())
    }

    /// The files under `dir` (a path from the top, `mem/`, or empty for the
    /// whole tree) that differ between the commits `from` and `to`, as
    /// paths from the top; every file of `to` under `dir` when `from` is
    /// `None` (a branch with no commit yet).
    pub fn changed(&self, from: Option<&str>, to: &str, dir: &str) -> Result<Vec<String>> {
        let spec = if dir.is_empty() { "." } else { dir };
        let out = match from {
            Some(from) => self.run(
                &[
                    "diff",
                    "--no-renames",
                    "--name-only",
                    "-z",
                    from,
                    to,
                    "--",
                    spec,
                ],
                &[],
            )?,
            None => self.run(&["ls-tree", "-r", "-z", "--name-only", to, "--", spec], &[])?,
        };
        Ok(out
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect())
    }

    /// The bytes of `path` (from the top) in the commit `rev`; `None` when
    /// it holds no such file.
    pub fn file_at(&self, rev: &str, path: &str) -> Result<Option<Vec<u8>>> {
        let out = self.output(&["cat-file", "blob", &format!("{rev}:{path}")], &[])?;
        Ok(out.status.success().then_some(out.stdout))
    }

    /// The state of a merge or rebase in progress in this work tree.
    pub fn in_progress(&self) -> Result<InProgress> {
        for (name, what) in [
            ("MERGE_HEAD", InProgress::Merge),
            ("REBASE_HEAD", InProgress::Rebase),
            ("CHERRY_PICK_HEAD", InProgress::CherryPick),
        ] {
            if self.commit_of(name)?.is_some() {
                return Ok(what);
            }
        }
        Ok(InProgress::Nothing)
    }

    /// Whether git merges `path` (from the top) with memdir's driver: the
    /// attributes name `merge=memdir` for it and the configuration (any
    /// scope) defines `merge.memdir.driver`.
    pub fn driver_in_use(&self, path: &str) -> Result<bool> {
        let attr = self.run(&["check-attr", "-z", "merge", "--", path], &[])?;
        // `PATH\0merge\0VALUE\0`
        if attr.split('\0').nth(2) != Some("memdir") {
            return Ok(false);
        }
        let out = self.output(&["config", "--get", "merge.memdir.driver"], &[])?;
        Ok(out.status.success() && !out.stdout.trim_ascii().is_empty())
    }

    /// The path git keeps hooks in (`.git/hooks` unless configured).
    pub fn hooks_dir(&self) -> Result<PathBuf> {
        let out = self.run(&["rev-parse", "--git-path", "hooks"], &[])?;
        let p = PathBuf::from(out.trim_end_matches(['\n', '\r']));
        Ok(if p.is_absolute() { p } else { self.top.join(p) })
    }
}

/// What a work tree is in the middle of, as far as its files go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InProgress {
    /// No merge, rebase or cherry-pick.
    Nothing,
    /// A merge (`git merge`, a `git pull` that merges) stopped on conflicts.
    Merge,
    /// A rebase (`git pull --rebase`) stopped on conflicts.
    Rebase,
    /// A cherry-pick stopped on conflicts.
    CherryPick,
}

/// Pathspecs (git's `:(exclude,glob)` magic, relative to the memory root)
/// that keep memdir's derived files out of what a commit takes, whatever
/// `.gitignore` says: every `.memdir` (each owner's derived files) and,
/// unless `results` is true (`git.commit_results`), each owner's
/// `results/` (SharedMemory run data). Appended to `.` they stage the root
/// but those; a derived file git tracks already keeps its committed bytes.
pub fn derived_excludes(results: bool) -> Vec<&'static str> {
    let mut out = vec![":(exclude,glob)**/.memdir", ":(exclude,glob)**/.memdir/**"];
    if !results {
        out.push(":(exclude,glob)*/results/**");
    }
    out
}

/// The files git tracks in its index under the pathspecs `specs` (relative
/// to `dir`), as paths relative to `dir`; `None` when `dir` is in no work
/// tree (or git is not installed).
pub fn tracked(dir: &Path, specs: &[&str]) -> Result<Option<Vec<String>>> {
    let mut args = vec!["ls-files", "-z", "--"];
    args.extend(specs);
    let Ok(out) = output_in(dir, &args, &[]) else {
        return Ok(None);
    };
    if !out.status.success() {
        if String::from_utf8_lossy(&out.stderr).contains("not a git repository") {
            return Ok(None);
        }
        return Err(failed(&args, &out));
    }
    Ok(Some(
        String::from_utf8_lossy(&out.stdout)
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect(),
    ))
}

/// The environment of a commit memdir makes as `who`: `who` is its author;
/// its committer is the clone's own identity (the `GIT_COMMITTER_*`
/// environment, `committer.*` or `user.*` of git's configuration) where it
/// has one, and `who` only where it has none.
pub fn commit_env(dir: &Path, who: &Identity) -> Vec<(&'static str, String)> {
    with_committer(who, Probe::start(dir).has_identity())
}

/// The commit environment for `who`, with `who` as the committer too
/// unless the clone `has_identity`.
fn with_committer(who: &Identity, has_identity: bool) -> Vec<(&'static str, String)> {
    let mut env = vec![
        ("GIT_AUTHOR_NAME", who.name.clone()),
        ("GIT_AUTHOR_EMAIL", who.email.clone()),
    ];
    if !has_identity {
        env.push(("GIT_COMMITTER_NAME", who.name.clone()));
        env.push(("GIT_COMMITTER_EMAIL", who.email.clone()));
    }
    env
}

/// Whether git knows a committer identity it was given (in its environment
/// or configuration), not one it would guess from the machine's user and
/// host names: `git -c user.useConfigOnly=true var GIT_COMMITTER_IDENT`,
/// run beside other work.
enum Probe {
    /// Known without asking git: the environment names both.
    Known(bool),
    /// Asked.
    Running(std::process::Child),
}

impl Probe {
    fn start(dir: &Path) -> Probe {
        let given = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
        if given("GIT_COMMITTER_NAME") && given("GIT_COMMITTER_EMAIL") {
            return Probe::Known(true);
        }
        let child = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args([
                "-c",
                "user.useConfigOnly=true",
                "var",
                "GIT_COMMITTER_IDENT",
            ])
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        match child {
            Ok(c) => Probe::Running(c),
            Err(_) => Probe::Known(false),
        }
    }

    fn has_identity(self) -> bool {
        match self {
            Probe::Known(k) => k,
            Probe::Running(mut c) => c.wait().is_ok_and(|s| s.success()),
        }
    }
}

/// Commits the files `names` of the folder `dir` as they are, authored by
/// `who`, with `message`; `false` when nothing changed,
/// [`Error::NotInGit`] when `dir` is in no work tree. The committer is the
/// clone's own git identity where it has one, else `who` too (so it works
/// on a machine with no git identity configured; see [`commit_env`]). Two
/// git processes in a row (`add`, `commit`), the identity asked beside the
/// first: this runs after every write with `git.autocommit` on. The
/// repository's hooks run.
pub fn commit(dir: &Path, names: &[&str], message: &str, who: &Identity) -> Result<bool> {
    let probe = Probe::start(dir);
    let mut add: Vec<&str> = vec!["add", "--all", "--"];
    add.extend(names);
    let out = output_in(dir, &add, &[]);
    let env = with_committer(who, probe.has_identity());
    let out = out?;
    if !out.status.success() {
        if String::from_utf8_lossy(&out.stderr).contains("not a git repository") {
            return Err(Error::NotInGit {
                path: dir.to_owned(),
            });
        }
        return Err(failed(&add, &out));
    }
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut commit: Vec<&str> = vec!["commit", "--quiet", "-m", message, "--"];
    commit.extend(names);
    let out = output_in(dir, &commit, &env)?;
    if out.status.success() {
        return Ok(true);
    }
    // Nothing staged under `names`: nothing changed, or only files an
    // exclusion keeps out (`no changes added`, `nothing added`).
    let said = String::from_utf8_lossy(&out.stdout);
    if [
        "nothing to commit",
        "nothing added to commit",
        "no changes added to commit",
    ]
    .iter()
    .any(|s| said.contains(s))
    {
        return Ok(false);
    }
    Err(failed(&commit, &out))
}

/// Runs `git -C DIR args…` with `env`, retrying while another process holds
/// the index lock; the output of a command that ran, whatever its status.
fn output_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<Output> {
    let op = args.first().copied().unwrap_or("").to_owned();
    let mut last = None;
    for _ in 0..INDEX_LOCK_TRIES {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .envs(env.iter().copied())
            .env("GIT_TERMINAL_PROMPT", "0")
            // Its messages in English: memdir reads a few of them.
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| Error::Git {
                op: op.clone(),
                message: format!("cannot run git: {e}"),
            })?;
        let locked =
            !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("index.lock");
        if !locked {
            return Ok(out);
        }
        last = Some(out);
        std::thread::sleep(INDEX_LOCK_PAUSE);
    }
    Err(Error::Git {
        op,
        message: last.map_or_else(
            || "the index stayed locked".to_owned(),
            |o| String::from_utf8_lossy(&o.stderr).trim().to_owned(),
        ),
    })
}

/// How much of each stream a bounded command keeps.
const BOUNDED_OUTPUT: u64 = 64 * 1024;

/// Runs `git -C DIR args…` in its own process group, killing the group past
/// `limit`.
fn bounded(dir: &Path, args: &[&str], env: &[(&str, &str)], limit: Duration) -> Result<Output> {
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    let op = args.first().copied().unwrap_or("").to_owned();
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .envs(env.iter().copied())
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| Error::Git {
            op: op.clone(),
            message: format!("cannot run git: {e}"),
        })?;
    let group = rustix::process::Pid::from_child(&child);
    let keep = |stream: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut s) = stream {
                let _ = (&mut s).take(BOUNDED_OUTPUT).read_to_end(&mut buf);
                let _ = std::io::copy(&mut s, &mut std::io::sink());
            }
            buf
        })
    };
    let stdout = keep(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let stderr = keep(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let deadline = std::time::Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) if std::time::Instant::now() >= deadline => {
                break Err(format!(
                    "no answer within {} s: stopped",
                    limit.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => break Err(format!("cannot wait for git: {e}")),
        }
    };
    if status.is_err() {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        let _ = child.wait();
    }
    let (stdout, stderr) = (stdout.join(), stderr.join());
    match status {
        Ok(status) => Ok(Output {
            status,
            stdout: stdout.unwrap_or_default(),
            stderr: stderr.unwrap_or_default(),
        }),
        Err(message) => Err(Error::Git { op, message }),
    }
}

/// The path of `dir` relative to the top of its work tree (`mem/` or
/// empty), as git reports it.
pub fn prefix(dir: &Path) -> Result<String> {
    let args = ["rev-parse", "--show-prefix"];
    let out = output_in(dir, &args, &[])?;
    if !out.status.success() {
        return Err(failed(&args, &out));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .trim_end_matches(['\n', '\r'])
        .to_owned())
}

/// The error for a git command that ran and failed.
pub fn failed(args: &[&str], out: &Output) -> Error {
    let said = String::from_utf8_lossy(&out.stderr);
    let said = if said.trim().is_empty() {
        String::from_utf8_lossy(&out.stdout).into_owned()
    } else {
        said.into_owned()
    };
    Error::Git {
        op: args.first().copied().unwrap_or("").to_owned(),
        message: said.trim().to_owned(),
    }
}
