//! The settings a store's front matter may hold.

use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::model::settings::{MAX_FRONT_MATTER_BYTES, check_yaml_bounds};

/// The per-file settings a front matter may hold; other keys are the
/// person's own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct FileSettings {
    /// This file's budget, in characters (clamped to 500–20,000).
    pub budget: Option<i64>,
}

impl FileSettings {
    /// Parses a front matter's YAML; `path` is named in errors.
    pub fn from_yaml(text: &str, path: &Path) -> Result<FileSettings> {
        if text.trim().is_empty() {
            return Ok(FileSettings::default());
        }
        check_yaml_bounds(text, MAX_FRONT_MATTER_BYTES, path, "front matter")?;
        serde_yaml::from_str(text).map_err(|e| Error::InvalidConfig {
            path: path.to_owned(),
            message: format!("front matter: {e}"),
        })
    }
}
