//! Claude's memory tool (`memory_20250818`) on an owner's memory: one
//! command of the tool's input answered with the tool result the model
//! reads (`memtool::Answer`: its text and `is_error`).
//!
//! The paths are a fixed set (`/memories`, its two stores, episodes.md and
//! LEARNINGS.md read-only, the owner's skills), matched exactly; a store's
//! edit is the model's new text turned into entry operations written
//! through the one write path (`Owner::tool_edit`); a skill's edit goes
//! through the skills feature, only when the caller made skills writable.
//! A refusal is an answer with `is_error` (memdir's reason, and the current
//! entries); only a bad input or a failure of memdir is an error.

use std::cell::Cell;

use serde_json::Value;

use crate::error::Result;
use crate::memtool::{
    self, Answer, Command, EPISODES_PATH, LEARNINGS_PATH, Listed, MEMORY_PATH, Present, ROOT,
    Target, USER_PATH, numbered, quoted,
};
use crate::model::Scope;
use crate::store::{MEMORY_TOOL_REASON, Owner, ToolEdit, ToolFiles};

/// The tool's call on `owner`'s memory: `input` is the tool-use input (a
/// JSON object: `command` and its fields); skill files are written only
/// when `skills_writable`.
pub(crate) fn answer(owner: &Owner, input: &Value, skills_writable: bool) -> Result<Answer> {
    let command = Command::parse(input)?;
    let files = owner.tool_files()?;
    let present = Present {
        episodes: files.episodes.is_some(),
        learnings: !files.learnings.is_empty(),
        skills: files.skills.iter().map(|(n, _)| n.clone()).collect(),
    };
    let tool = Tool {
        owner,
        files,
        present,
        writable: skills_writable,
    };
    tool.run(command)
}

/// One call's view of the owner.
struct Tool<'a> {
    owner: &'a Owner,
    files: ToolFiles,
    present: Present,
    writable: bool,
}

/// A store's tool path.
fn store_path(scope: Scope) -> &'static str {
    match scope {
        Scope::Memory => MEMORY_PATH,
        Scope::User => USER_PATH,
    }
}

/// The lines of a store's view.
fn lines_of(view: &[memtool::ViewEntry]) -> Vec<String> {
    view.iter().map(|e| e.line.clone()).collect()
}

/// The lines of a text, as the SDK splits a file (no empty last line for a
/// text ending with a line feed).
fn split(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    if lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

impl Tool<'_> {
    fn run(&self, command: Command) -> Result<Answer> {
        let target = |path: &str| self.present.target(path);
        match command {
            Command::View { path, view_range } => match target(&path) {
                Some(t) => self.view(&path, &t, view_range),
                None => Ok(self.missing(&path)),
            },
            Command::Create { path, file_text } => match target(&path) {
                Some(Target::Store(s)) => self.edit_store(s, Edit::Create(&file_text)),
                Some(Target::Skill(name)) => {
                    self.write_skill(&path, &name, Edit::Create(&file_text))
                }
                Some(t) => Ok(self.read_only(&path, &t)),
                None => self.create_new(&path, &file_text),
            },
            Command::StrReplace {
                path,
                old_str,
                new_str,
            } => {
                let edit = Edit::Replace(&old_str, &new_str);
                match target(&path) {
                    Some(Target::Store(s)) => self.edit_store(s, edit),
                    Some(Target::Skill(name)) => self.write_skill(&path, &name, edit),
                    Some(t) => Ok(self.read_only(&path, &t)),
                    None => Ok(self.missing(&path)),
                }
            }
            Command::Insert {
                path,
                insert_line,
                insert_text,
            } => {
                let edit = Edit::Insert(insert_line, &insert_text);
                match target(&path) {
                    Some(Target::Store(s)) => self.edit_store(s, edit),
                    Some(Target::Skill(name)) => self.write_skill(&path, &name, edit),
                    Some(t) => Ok(self.read_only(&path, &t)),
                    None => Ok(self.missing(&path)),
                }
            }
            Command::Delete { path } => match target(&path) {
                Some(Target::Root) => Ok(Answer::refused(
                    "Cannot delete the /memories directory itself",
                )),
                Some(Target::Store(_)) => Ok(Answer::refused(format!(
                    "{path} cannot be deleted: it is one of memdir's two stores, whose names are fixed. \
                     To remove entries, delete their lines (str_replace a line with an empty new_str), \
                     or create the file again without them (the entries it drops are archived)."
                ))),
                Some(Target::Skill(name)) if self.writable => self
                    .owner
                    .skills()
                    .forget(&name)
                    .map_or_else(refused_or, |_| {
                        Ok(Answer::ok(format!("Successfully deleted {path}")))
                    }),
                Some(t) => Ok(self.read_only(&path, &t)),
                None => Ok(self.missing(&path)),
            },
            Command::Rename { old_path, new_path } => self.rename(&old_path, &new_path),
        }
    }

    /// `view` of a file the tool shows.
    fn view(&self, path: &str, t: &Target, range: Option<(i64, i64)>) -> Result<Answer> {
        let shown = |lines: &[String], guard: Option<&str>| {
            Ok(match numbered(path, lines, range, guard) {
                Ok(text) => Answer::ok(text),
                Err(refusal) => Answer::refused(refusal),
            })
        };
        match t {
            Target::Root => Ok(Answer::ok(memtool::listing(&self.listed()))),
            Target::Store(s) => {
                let lines = self
                    .files
                    .stores
                    .iter()
                    .find(|(x, _)| x == s)
                    .map(|(_, v)| lines_of(v))
                    .unwrap_or_default();
                if lines.is_empty() && range.is_none() {
                    return Ok(Answer::ok(format!(
                        "Here's the content of {path} with line numbers:\n(no entries yet: add one a line)"
                    )));
                }
                shown(&lines, None)
            }
            Target::Episodes => shown(&self.owner.tool_episodes()?, Some("episodes.md")),
            Target::Learnings => shown(&self.files.learnings, None),
            Target::Skill(name) => {
                let skill = self.owner.skills().get(name)?;
                shown(
                    &split(&skill.text),
                    Some(&format!("skills/{name}/SKILL.md")),
                )
            }
        }
    }

    /// The files of the listing, with the size of what `view` shows of each.
    fn listed(&self) -> Vec<Listed> {
        let mut out = Vec::new();
        for (s, view) in &self.files.stores {
            out.push(Listed {
                path: store_path(*s).to_owned(),
                bytes: lines_of(view).join("\n").len() as u64,
                read_only: false,
            });
        }
        if let Some(bytes) = self.files.episodes {
            out.push(Listed {
                path: EPISODES_PATH.to_owned(),
                bytes,
                read_only: true,
            });
        }
        if !self.files.learnings.is_empty() {
            out.push(Listed {
                path: LEARNINGS_PATH.to_owned(),
                bytes: self.files.learnings.join("\n").len() as u64,
                read_only: true,
            });
        }
        for (name, bytes) in &self.files.skills {
            out.push(Listed {
                path: memtool::skill_path(name),
                bytes: *bytes,
                read_only: !self.writable,
            });
        }
        out
    }

    /// The answer to a path the tool does not show: the SDK's sentence, and
    /// the paths there are.
    fn missing(&self, path: &str) -> Answer {
        let q = quoted(path);
        let head = if path == ROOT || path.starts_with("/memories/") {
            format!("The path {q} does not exist. Please provide a valid path.")
        } else {
            format!("Path must start with /memories, got: {q}")
        };
        Answer::refused(format!(
            "{head} The paths that exist: {}, {}.",
            ROOT,
            self.present.paths().join(", ")
        ))
    }

    /// A write to a file the tool only reads.
    fn read_only(&self, path: &str, t: &Target) -> Answer {
        let why = match t {
            Target::Root => "it is the folder of memdir's files, not a file".to_owned(),
            Target::Episodes => {
                "it is memdir's run journal, whose day lines are written as runs finish".to_owned()
            }
            Target::Learnings => {
                "it holds the workspace's approved learnings, which a person decides on".to_owned()
            }
            Target::Skill(_) => "skills change only where the application allows it \
                 (a skill is injected into every later run that names it)"
                .to_owned(),
            Target::Store(_) => "it is a store".to_owned(),
        };
        Answer::refused(format!(
            "{path} is read-only: {why}. Save what you want to remember as an entry (one line) of {MEMORY_PATH}."
        ))
    }

    /// `create` of a path the tool does not show: a new skill where skills
    /// are writable, else refused with a sentence steering the model to the
    /// stores' entries.
    fn create_new(&self, path: &str, file_text: &str) -> Result<Answer> {
        if let Some(name) = memtool::new_skill_name(path) {
            if !self.writable {
                return Ok(self.read_only(path, &Target::Skill(name.to_owned())));
            }
            return match self.owner.skills().learn(name, file_text, None, false) {
                Ok(_) => Ok(Answer::ok(format!("File created successfully at: {path}"))),
                Err(e) => refused_or(e),
            };
        }
        if !memtool::is_new_file(path) {
            return Ok(self.missing(path));
        }
        Ok(Answer::refused(format!(
            "{} was not created: memdir keeps no topic files. Add what you want to remember as entries, \
             one a line, of {MEMORY_PATH} (str_replace, insert, or create of the whole file), \
             or of {USER_PATH} for what you know of the user.",
            quoted(path)
        )))
    }

    /// `rename`: a skill's (when writable) is learned under the new name and
    /// forgotten under the old; every other is refused.
    fn rename(&self, old: &str, new: &str) -> Result<Answer> {
        let name = match self.present.target(old) {
            None => return Ok(self.missing(old)),
            Some(Target::Root) => {
                return Ok(Answer::refused(
                    "Cannot rename the /memories directory itself",
                ));
            }
            Some(Target::Store(_)) => {
                return Ok(Answer::refused(format!(
                    "{old} cannot be renamed: memdir's stores have fixed names ({MEMORY_PATH}, {USER_PATH}). \
                     Edit its entries instead."
                )));
            }
            Some(Target::Skill(name)) if self.writable => name,
            Some(t) => return Ok(self.read_only(old, &t)),
        };
        if self.present.target(new).is_some() {
            return Ok(Answer::refused(format!(
                "The destination {} already exists",
                quoted(new)
            )));
        }
        let Some(to) = memtool::new_skill_name(new) else {
            return Ok(Answer::refused(format!(
                "The destination {} is not a skill's path: a skill is renamed to /memories/skills/NAME/SKILL.md \
                 (NAME of letters, digits, '.', '_' and '-').",
                quoted(new)
            )));
        };
        let skills = self.owner.skills();
        let skill = skills.get(&name)?;
        if let Err(e) = skills.learn(to, &skill.text, None, false) {
            return refused_or(e);
        }
        if let Err(e) = skills.forget(&name) {
            return refused_or(e);
        }
        Ok(Answer::ok(format!("Successfully renamed {old} to {new}")))
    }

    /// `create`, `str_replace` or `insert` of a skill: refused unless skills
    /// are writable; the new text learned through the skills feature (its
    /// scan and bounds), replacing the skill.
    fn write_skill(&self, path: &str, name: &str, edit: Edit<'_>) -> Result<Answer> {
        if !self.writable {
            return Ok(self.read_only(path, &Target::Skill(name.to_owned())));
        }
        let what = format!("skills/{name}/SKILL.md");
        let text = self.owner.skills().get(name)?.text;
        let (new, done) = match edit {
            Edit::Create(t) => (t.to_owned(), None),
            Edit::Replace(old, new) => match memtool::str_replace(path, &text, old, new) {
                Ok((t, line)) => (t, Some(line)),
                Err(refusal) => return Ok(Answer::refused(refusal)),
            },
            Edit::Insert(at, t) => match memtool::insert(&split(&text), at, t) {
                Ok(t) => (t, None),
                Err(refusal) => return Ok(Answer::refused(refusal)),
            },
        };
        if let Err(e) = self.owner.skills().learn(name, &new, None, true) {
            return refused_or(e);
        }
        Ok(Answer::ok(match (edit, done) {
            (Edit::Create(_), _) => format!("File created successfully at: {path}"),
            (Edit::Replace(..), Some(line)) => {
                let mut lines = split(&self.owner.skills().get(name)?.text);
                memtool::guard_lines(&what, 1, &mut lines);
                format!(
                    "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n{}",
                    memtool::snippet(&lines, line)
                )
            }
            _ => format!("The file {path} has been edited."),
        }))
    }

    /// `create`, `str_replace` or `insert` of a store: the new text made
    /// from the store's view as it is now, written as entry operations.
    fn edit_store(&self, scope: Scope, edit: Edit<'_>) -> Result<Answer> {
        let path = store_path(scope);
        let line = Cell::new(0usize);
        let appended = Cell::new(false);
        let change = |view: &[memtool::ViewEntry]| -> std::result::Result<String, String> {
            let lines = lines_of(view);
            match edit {
                Edit::Create(t) => Ok(t.to_owned()),
                Edit::Replace(old, new) => {
                    // The file the model reads ends its last line, as a
                    // file does: a whole line with its `\n` is there too.
                    let mut text = lines.join("\n");
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    let (t, at) = memtool::str_replace(path, &text, old, new)?;
                    line.set(at);
                    Ok(t)
                }
                Edit::Insert(at, t) => {
                    appended.set(usize::try_from(at).is_ok_and(|a| a < lines.len()));
                    memtool::insert(&lines, at, t)
                }
            }
        };
        let done =
            match self
                .owner
                .tool_edit(scope, path, matches!(edit, Edit::Create(_)), &change)?
            {
                Ok(done) => done,
                Err(refusal) => {
                    let now = lines_of(&self.owner.tool_view(scope)?);
                    let current = if now.is_empty() {
                        format!("{path} holds no entries.")
                    } else {
                        numbered(path, &now, None, None).unwrap_or_default()
                    };
                    return Ok(Answer::refused(format!("{refusal}\n\n{current}")));
                }
            };
        if let Some(id) = &done.pending {
            return Ok(Answer::pending(
                format!(
                    "memdir: this edit of {path} waits for a person's review (pending {id}); \
                     {path} stays as it is until a person approves it."
                ),
                id.clone(),
            ));
        }
        let head = match edit {
            Edit::Create(_) => format!("File created successfully at: {path}"),
            Edit::Replace(..) => format!(
                "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n{}",
                memtool::snippet(&lines_of(&done.view), line.get())
            ),
            Edit::Insert(..) => format!("The file {path} has been edited."),
        };
        Ok(Answer::ok(format!(
            "{head}\n\n{}",
            summary(scope, &done, appended.get())
        )))
    }
}

/// What a store's edit did, in one line for the model.
fn summary(scope: Scope, done: &ToolEdit, appended: bool) -> String {
    let p = &done.plan;
    let mut parts = vec![format!("{} kept", p.kept)];
    for (n, what) in [
        (p.replaced(), "replaced"),
        (p.added(), "added"),
        (p.removed() - done.archived.min(p.removed()), "removed"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    if done.archived > 0 {
        parts.push(format!(
            "{} archived (reason: {MEMORY_TOOL_REASON})",
            done.archived
        ));
    }
    let mut out = format!("memdir: {} of {}", parts.join(", "), scope.file_name());
    match &done.usage {
        Some(u) => out.push_str(&format!(" ({})", u.text)),
        None if p.changes.is_empty() => out.push_str("; nothing changed"),
        None => {}
    }
    out.push('.');
    if p.headings > 0 {
        out.push_str(" Headings are not stored: each line is one entry.");
    }
    if appended && p.added() > 0 {
        out.push_str(" New entries are added at the end of the file.");
    }
    out
}

/// An edit of a text, as the commands give it.
#[derive(Debug, Clone, Copy)]
enum Edit<'a> {
    /// The whole text.
    Create(&'a str),
    /// `old_str` and `new_str`.
    Replace(&'a str, &'a str),
    /// `insert_line` and `insert_text`.
    Insert(i64, &'a str),
}

/// A skill write's error: a refusal for the model when it is the model's
/// to fix (the skill's bounds, the scanner), else memdir's failure.
fn refused_or(e: crate::error::Error) -> Result<Answer> {
    if memtool::is_refusal(&e) {
        Ok(Answer::refused(e.to_string()))
    } else {
        Err(e)
    }
}
