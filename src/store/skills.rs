//! Learned skills (the seed's `plungeai_learn`): learn, list, show, forget.
//! A skill is private to its owner, saved as `<owner>/skills/NAME/SKILL.md`;
//! it is scanned like a fact before it is saved, and runs declare the
//! skills they inject (`run begin --skill NAME`, see `runs`).

use serde::Serialize;

use super::files::skills::{self, SKILL_FILE, SKILLS_DIR};
use super::owner::{Owner, no_case_twin};
use crate::error::{Error, Result};
use crate::model::validate_id;

/// A learned skill, as `skill show` gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Skill {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// The body after the front matter.
    pub body: String,
    /// The whole SKILL.md.
    pub text: String,
    /// The file, relative to the owner's folder.
    pub path: String,
}

/// One row of `skill list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SkillRow {
    /// Its name.
    pub name: String,
    /// Its description (a note when its file cannot be read).
    pub description: String,
}

/// What learning or forgetting a skill did to its file (serialised as the
/// words the answers have always carried: `saved`, `already stored`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
pub enum SkillChange {
    /// A new skill's file written.
    #[serde(rename = "saved")]
    Saved,
    /// A skill of that name replaced (`replace`).
    #[serde(rename = "replaced")]
    Replaced,
    /// The same skill was there already; nothing written.
    #[serde(rename = "already stored")]
    AlreadyStored,
    /// The skill's file removed.
    #[serde(rename = "forgot")]
    Forgot,
}

impl SkillChange {
    /// Its wire word.
    pub const fn as_str(self) -> &'static str {
        match self {
            SkillChange::Saved => "saved",
            SkillChange::Replaced => "replaced",
            SkillChange::AlreadyStored => "already stored",
            SkillChange::Forgot => "forgot",
        }
    }

    /// Whether the call wrote the skill's file (a server's 201).
    pub const fn written(self) -> bool {
        matches!(self, SkillChange::Saved | SkillChange::Replaced)
    }
}

impl std::fmt::Display for SkillChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What learning or forgetting a skill did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SkillOutcome {
    /// The skill's name.
    pub name: String,
    /// `saved`, `replaced`, `already stored` or `forgot`.
    pub message: SkillChange,
    /// The file, relative to the owner's folder.
    pub path: String,
    /// Its description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The file's size in bytes after a save.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<usize>,
    /// Notes, such as a commit that failed or files left in the folder.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Saves the skill `name` from `source` (see `files::skills::check`);
/// an existing skill of that name is replaced only with `replace`.
pub(crate) fn learn(
    owner: &Owner,
    name: &str,
    source: &str,
    description: Option<&str>,
    replace: bool,
) -> Result<SkillOutcome> {
    let checked = skills::check(name, source, description)?;
    let text = skills::render(name, &checked.description, &checked.body);
    let locked = owner.lock()?;
    let disk = owner.disk();
    let (dir, _) = disk.ensure_dir(locked.dir(), SKILLS_DIR)?;
    let folder = match disk.open_dir(&dir, name)? {
        Some(f) => f,
        None => {
            no_case_twin(disk, &dir, "skill", name, "")?;
            disk.ensure_dir(&dir, name)?.0
        }
    };
    let before = skills::read_in(locked.at(), &dir, name)?;
    let message = match &before {
        Some(old) if old.text == text => SkillChange::AlreadyStored,
        Some(_) if !replace => {
            return Err(Error::SkillExists {
                name: name.to_owned(),
            });
        }
        Some(_) => SkillChange::Replaced,
        None => SkillChange::Saved,
    };
    let path = skills::rel_path(name);
    let mut warnings = Vec::new();
    if message.written() {
        disk.write_atomic(&folder, SKILL_FILE, text.as_bytes())?;
        warnings.extend(locked.written(&[&path], &format!("learn skill {name}")));
    }
    Ok(SkillOutcome {
        name: name.to_owned(),
        message,
        path,
        description: Some(checked.description),
        bytes: Some(text.len()),
        warnings,
    })
}

/// The owner's skills, by name.
pub(crate) fn list(owner: &Owner) -> Result<Vec<SkillRow>> {
    let view = owner.view()?;
    let at = view.at();
    let Some(dir) = skills::dir(at)? else {
        return Ok(Vec::new());
    };
    let mut rows = Vec::new();
    for name in skills::names(at, &dir)? {
        match skills::read_in(at, &dir, &name) {
            Ok(Some(f)) => rows.push(SkillRow {
                name,
                description: f.description,
            }),
            Ok(None) => {}
            Err(e) => rows.push(SkillRow {
                description: format!("(SKILL.md cannot be read: {})", e.code()),
                name,
            }),
        }
    }
    Ok(rows)
}

/// One skill of the owner.
pub(crate) fn show(owner: &Owner, name: &str) -> Result<Skill> {
    let view = owner.view()?;
    let f = skills::read(view.at(), name)?;
    Ok(Skill {
        path: skills::rel_path(&f.name),
        name: f.name,
        description: f.description,
        body: f.body,
        text: f.text,
    })
}

/// Forgets the skill `name`: removes its SKILL.md, then its folder when
/// nothing else is in it (other files there are a person's, and stay).
pub(crate) fn forget(owner: &Owner, name: &str) -> Result<SkillOutcome> {
    validate_id("skill", name)?;
    let not_found = || Error::SkillNotFound {
        name: name.to_owned(),
    };
    let locked = owner.lock()?;
    let disk = owner.disk();
    let dir = disk
        .open_dir(locked.dir(), SKILLS_DIR)?
        .ok_or_else(not_found)?;
    let folder = disk.open_dir(&dir, name)?.ok_or_else(not_found)?;
    if !disk.remove_file_durably(&folder, SKILL_FILE)? {
        return Err(not_found());
    }
    let mut warnings = Vec::new();
    if !disk.remove_empty_dir(&dir, name)? {
        warnings.push(format!(
            "{SKILLS_DIR}/{name}/ holds other files; they were left as they are"
        ));
    }
    let path = skills::rel_path(name);
    warnings.extend(locked.written(&[&path], &format!("forget skill {name}")));
    Ok(SkillOutcome {
        name: name.to_owned(),
        message: SkillChange::Forgot,
        path,
        description: None,
        bytes: None,
        warnings,
    })
}
