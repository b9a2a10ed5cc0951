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

    /// The path git keeps hooks in (`.git/hooks` unless configured).
    pub fn hooks_dir(&self) -> Result<PathBuf> {
        let out = self.run(&["rev-parse", "--git-path", "hooks"], &[])?;
        let p = PathBuf::from(out.trim_end_matches(['\n', '\r']));
        Ok(if p.is_absolute() { p } else { self.top.join(p) })
    }
}

/// Runs `git -C DIR args…` with `env`, retrying while another process holds
/// the index lock; the output of a command that ran, whatever its status.
/// Commits the files `names` of the folder `dir` as they are, as `who`,
/// with `message`; `false` when nothing changed, [`Error::NotInGit`] when
/// `dir` is in no work tree. Two git processes (`add`, `commit`), no more:
/// this runs after every write with `git.autocommit` on. Works on a machine
/// with no git identity configured: the identity is given to git for this
/// commit. The repository's hooks run.
pub fn commit(dir: &Path, names: &[&str], message: &str, who: &Identity) -> Result<bool> {
    let mut add: Vec<&str> = vec!["add", "--all", "--"];
    add.extend(names);
    let out = output_in(dir, &add, &[])?;
    if !out.status.success() {
        if String::from_utf8_lossy(&out.stderr).contains("not a git repository") {
            return Err(Error::NotInGit {
                path: dir.to_owned(),
            });
        }
        return Err(failed(&add, &out));
    }
    let env = [
        ("GIT_AUTHOR_NAME", who.name.as_str()),
        ("GIT_AUTHOR_EMAIL", who.email.as_str()),
        ("GIT_COMMITTER_NAME", who.name.as_str()),
        ("GIT_COMMITTER_EMAIL", who.email.as_str()),
    ];
    let mut commit: Vec<&str> = vec!["commit", "--quiet", "-m", message, "--"];
    commit.extend(names);
    let out = output_in(dir, &commit, &env)?;
    if out.status.success() {
        return Ok(true);
    }
    if String::from_utf8_lossy(&out.stdout).contains("nothing to commit") {
        return Ok(false);
    }
    Err(failed(&commit, &out))
}

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
