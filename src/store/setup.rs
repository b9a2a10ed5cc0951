//! `memdir init` and `memdir git setup`: a memory root ready for git.
//!
//! Both are idempotent and say what they changed: the root exists; its
//! `.gitignore` lists `.memdir/` (derived files) and `results/` (task
//! results are run data, unless `git.commit_results` is set); its
//! `memdir.yaml` records the folder's format; and, inside a git work tree,
//! `.gitattributes` routes the memory files to the `memdir` merge driver,
//! the repository's configuration registers it, and with `--hook` a
//! pre-commit hook runs `memdir check`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::limits::{CONFIG_BYTES, GITIGNORE_BYTES};
use super::root::{CONFIG_FILE, Store};
use crate::disk::{Base, Change, Dir, Disk, decode};
use crate::error::{Error, Result};
use crate::git::{MERGE_DRIVER, Repo};
use crate::model::FORMAT;

/// The files the merge driver merges.
pub use super::files::MEMORY_FILES as MERGED_FILES;

/// The `.gitattributes` pattern of the parts of an owner's `archive/`
/// (relative to the root, which holds `.gitattributes`).
pub const ARCHIVE_PARTS: &str = "*/archive/*.md";

/// The `.gitattributes` patterns of the root's learnings: the approved
/// (`LEARNINGS.md`) and the proposals (`learnings/proposals.md`, relative
/// to the root), which merge entry by entry as the stores do.
pub const LEARNINGS_PATTERNS: [&str; 2] = ["LEARNINGS.md", "learnings/proposals.md"];

/// The pre-commit hook's file name in git's hooks folder.
const HOOK_FILE: &str = "pre-commit";
/// A line of the hook that says memdir wrote it.
const HOOK_MARK: &str = "# memdir: lint the memory folder before each commit";

/// What `init` or `git setup` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Setup {
    /// The memory root.
    pub root: PathBuf,
    /// The git work tree the root is in, if any.
    pub work_tree: Option<PathBuf>,
    /// What changed, one sentence each (empty: everything was in place).
    pub changes: Vec<String>,
    /// Whether `.gitignore` got a line now.
    pub gitignore: bool,
}

/// Sets the root up (see the module doc); `hook` also installs the
/// pre-commit hook.
pub(crate) fn setup(store: &Store, hook: bool) -> Result<Setup> {
    let disk = store.disk();
    let root_path = store.root();
    let root = disk.ensure_root(root_path)?;
    let mut changes = Vec::new();
    let mut ignored = vec![(
        ".memdir/",
        "# memdir: derived files (locks, stats, stored snapshots); safe to delete",
    )];
    if !store.settings().git.commit_results.unwrap_or(false) {
        ignored.push((
            "results/",
            "# memdir: SharedMemory task results are run data (git.commit_results: true to commit them)",
        ));
    }
    let mut gitignore = false;
    for (line, comment) in ignored {
        if add_line(disk, &root, ".gitignore", GITIGNORE_BYTES, line, comment)? {
            gitignore = true;
            changes.push(format!(".gitignore lists {line}"));
        }
    }
    if record_format(disk, &root)? {
        changes.push(format!("{CONFIG_FILE} records format: {FORMAT}"));
    }
    let repo = Repo::find(root_path);
    if let Some(repo) = &repo {
        // The memory files by name, the parts archive.md rotates into
        // (`<owner>/archive/YYYY.md`), which merge as archive.md does, and
        // the root's learnings.
        for file in MERGED_FILES
            .into_iter()
            .chain([ARCHIVE_PARTS])
            .chain(LEARNINGS_PATTERNS)
        {
            let line = format!("{file} merge=memdir");
            if add_line(
                disk,
                &root,
                ".gitattributes",
                GITIGNORE_BYTES,
                &line,
                "# memdir: merge memory files entry by entry (memdir merge-file)",
            )? {
                changes.push(format!(".gitattributes: {line}"));
            }
        }
        if repo.config_set("merge.memdir.name", "memdir entry-wise merge")? {
            changes.push("git config merge.memdir.name set".into());
        }
        if repo.config_set("merge.memdir.driver", MERGE_DRIVER)? {
            changes.push(format!("git config merge.memdir.driver = {MERGE_DRIVER}"));
        }
        if hook && install_hook(disk, repo, root_path)? {
            changes.push("pre-commit hook runs memdir check".into());
        }
    } else if hook {
        return Err(Error::NotInGit {
            path: root_path.to_owned(),
        });
    }
    Ok(Setup {
        root: root_path.to_owned(),
        work_tree: repo.map(|r| r.top().to_owned()),
        changes,
        gitignore,
    })
}

/// Appends `line` (after `comment`) to the text file `name` of `dir` unless a
/// line of it already reads so; whether it was added.
fn add_line(
    disk: &Disk,
    dir: &Dir,
    name: &'static str,
    limit: u64,
    line: &str,
    comment: &str,
) -> Result<bool> {
    let held = disk.read(dir, name, limit)?;
    let current = match &held {
        Some(h) => decode(&dir.join(name), h.bytes.clone())?,
        None => String::new(),
    };
    let bare = line.trim_end_matches('/');
    if current
        .lines()
        .any(|l| l.trim() == line || l.trim() == bare)
    {
        return Ok(false);
    }
    let mut next = current;
    if !next.is_empty() && !next.ends_with('\n') {
        next.push('\n');
    }
    if !next.contains(comment) {
        next.push_str(comment);
        next.push('\n');
    }
    next.push_str(line);
    next.push('\n');
    replace_text(disk, dir, name, held, next)?;
    Ok(true)
}

/// Records the folder's format in the root's `memdir.yaml` (a `format:` line
/// at the top) unless it says one; whether it was added.
fn record_format(disk: &Disk, root: &Dir) -> Result<bool> {
    let held = disk.read(root, CONFIG_FILE, CONFIG_BYTES)?;
    let current = match &held {
        Some(h) => decode(&root.join(CONFIG_FILE), h.bytes.clone())?,
        None => String::new(),
    };
    if current.lines().any(|l| l.starts_with("format:")) {
        return Ok(false);
    }
    let next = format!(
        "# The memory folder's format; a memdir that does not know it refuses to write.\n\
         format: {FORMAT}\n{current}"
    );
    replace_text(disk, root, CONFIG_FILE, held, next)?;
    Ok(true)
}

/// Replaces the text file `name` (read as `held`) with `next`, never over a
/// save made since the read.
fn replace_text(
    disk: &Disk,
    dir: &Dir,
    name: &'static str,
    held: Option<crate::disk::Held>,
    next: String,
) -> Result<()> {
    disk.replace(Change {
        dir,
        name,
        base: held.map(Base::from),
        planned: None,
        redo: Box::new(move |_| Ok(Some(next.clone().into_bytes()))),
    })?;
    Ok(())
}

/// Installs the pre-commit hook that runs `memdir check` on `root` unless
/// one exists; whether it was installed. A hook memdir did not write is
/// left alone (an error says how to chain it).
fn install_hook(disk: &Disk, repo: &Repo, root: &Path) -> Result<bool> {
    let hooks_path = repo.hooks_dir()?;
    let hooks = disk.ensure_root(&hooks_path)?;
    if let Some(text) = disk.read_text(&hooks, HOOK_FILE, GITIGNORE_BYTES)? {
        if text.contains(HOOK_MARK) {
            return Ok(false);
        }
        return Err(Error::InvalidConfig {
            path: hooks_path.join(HOOK_FILE),
            message: "a pre-commit hook memdir did not write is there; add `memdir check` to \
                      it, or use the pre-commit framework (.pre-commit-hooks.yaml)"
                .into(),
        });
    }
    // Hooks run at the top of the work tree: name the root from there.
    let prefix = crate::git::prefix(root)?;
    let root_arg = match prefix.trim_end_matches('/') {
        "" => ".".to_owned(),
        p => p.to_owned(),
    };
    let script = format!(
        "#!/bin/sh\n{HOOK_MARK} (memdir git setup --hook)\n\
         exec memdir --root {} check\n",
        shell_quote(&root_arg)
    );
    disk.create_new(&hooks, HOOK_FILE, script.as_bytes(), 0o755)
}

/// `s` quoted for a POSIX shell.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_quotes() {
        assert_eq!(shell_quote("memory"), "'memory'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
