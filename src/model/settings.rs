//! Settings: `memdir.yaml`, at the root and in an owner's folder.
//!
//! Pure: callers read the files and pass their text. (A store's own budget,
//! from its front matter, is `markdown::FileSettings`; the rule that picks a
//! budget is `edit::resolve_budget`.)

use std::path::Path;

use serde::Deserialize;

use super::scope::Scope;
use crate::error::{Error, Result};

/// Settings a `memdir.yaml` may hold. Every key is optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Budgets per store, in characters (clamped to 500–20,000).
    #[serde(default)]
    pub budgets: Budgets,
    /// How long a writer waits for the owner's lock, in milliseconds.
    pub lock_timeout_ms: Option<u64>,
    /// Days until a saved fact expires, per store (MEMORY.md: 90; USER.md: never).
    #[serde(default)]
    pub expiry_days: ExpiryDays,
    /// `auto`: an add past the budget archives the least recently recalled,
    /// oldest facts until it fits; `off` (default): it is refused.
    pub curation: Option<Curation>,
    /// Largest SharedMemory result, in bytes (default 16 MiB).
    pub max_result_bytes: Option<u64>,
    /// After [`Settings::overlay`]: the budgets the more specific file set,
    /// so a resolved budget can say where it came from.
    #[serde(skip)]
    pub(crate) overlaid_budgets: Budgets,
}

/// Days until a saved fact expires, per store; `0` means never.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpiryDays {
    /// MEMORY.md (default 90).
    pub memory: Option<u32>,
    /// USER.md (default: never).
    pub user: Option<u32>,
}

impl ExpiryDays {
    /// The expiry in days for a store; `None`: never.
    pub fn days(&self, scope: Scope) -> Option<u32> {
        let d = match scope {
            Scope::Memory => self.memory.unwrap_or(90),
            Scope::User => self.user.unwrap_or(0),
        };
        (d > 0).then_some(d)
    }
}

/// Whether over-budget adds curate automatically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Curation {
    /// Refuse writes past the budget (the default).
    Off,
    /// Archive the least recently recalled, oldest facts until the write fits.
    Auto,
}

/// Budgets per store.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budgets {
    /// MEMORY.md's budget.
    pub memory: Option<i64>,
    /// USER.md's budget.
    pub user: Option<i64>,
}

impl Budgets {
    /// The budget set for a store, if any.
    pub fn get(&self, scope: Scope) -> Option<i64> {
        match scope {
            Scope::Memory => self.memory,
            Scope::User => self.user,
        }
    }
}

/// Deepest nesting of YAML memdir parses (block indentation, compact
/// sequences and flow brackets, counted together).
pub const MAX_YAML_DEPTH: usize = 32;
/// Largest front matter memdir parses.
pub const MAX_FRONT_MATTER_BYTES: usize = 16 * 1024;
/// Largest `memdir.yaml` memdir parses.
pub const MAX_CONFIG_BYTES: usize = 64 * 1024;

/// How deeply `text` nests, counted conservatively and in one pass: on each
/// line, its indentation (two spaces a level), its compact sequence markers
/// (`- - x`), and the flow brackets open so far.
fn yaml_depth(text: &str) -> usize {
    let mut deepest = 0;
    let mut flow: usize = 0;
    for line in text.lines() {
        let body = line.trim_start_matches(' ');
        let indent = line.len() - body.len();
        let mut rest = body;
        let mut compact = 0;
        while let Some(r) = rest
            .strip_prefix("- ")
            .or_else(|| rest.strip_prefix("? "))
            .or_else(|| rest.strip_prefix("-\t"))
        {
            compact += 1;
            rest = r.trim_start();
        }
        let mut line_flow = flow;
        for c in rest.chars() {
            match c {
                '[' | '{' => {
                    flow += 1;
                    line_flow = line_flow.max(flow);
                }
                ']' | '}' => flow = flow.saturating_sub(1),
                _ => {}
            }
        }
        deepest = deepest.max(indent / 2 + compact + line_flow);
    }
    deepest
}

/// Refuses YAML over `limit` bytes or nested deeper than
/// [`MAX_YAML_DEPTH`], before any parser sees it (a parser's time on deeply
/// nested input grows much faster than its size).
pub fn check_yaml_bounds(text: &str, limit: usize, path: &Path, what: &str) -> Result<()> {
    let invalid = |message: String| {
        Err(Error::InvalidConfig {
            path: path.to_owned(),
            message,
        })
    };
    if text.len() > limit {
        return invalid(format!(
            "{what}: {} bytes, over the {limit}-byte limit",
            text.len()
        ));
    }
    if yaml_depth(text) > MAX_YAML_DEPTH {
        return invalid(format!(
            "{what}: nested more than {MAX_YAML_DEPTH} levels deep"
        ));
    }
    Ok(())
}

impl Settings {
    /// Parses a `memdir.yaml`; `path` is named in errors.
    pub fn from_yaml(text: &str, path: &Path) -> Result<Settings> {
        if text.trim().is_empty() {
            return Ok(Settings::default());
        }
        check_yaml_bounds(text, MAX_CONFIG_BYTES, path, "memdir.yaml")?;
        serde_yaml::from_str(text).map_err(|e| Error::InvalidConfig {
            path: path.to_owned(),
            message: e.to_string(),
        })
    }

    /// Overlays `other` (more specific) on `self`.
    pub fn overlay(mut self, other: &Settings) -> Settings {
        self.overlaid_budgets = other.budgets.clone();
        self.budgets.memory = other.budgets.memory.or(self.budgets.memory);
        self.budgets.user = other.budgets.user.or(self.budgets.user);
        self.lock_timeout_ms = other.lock_timeout_ms.or(self.lock_timeout_ms);
        self.expiry_days.memory = other.expiry_days.memory.or(self.expiry_days.memory);
        self.expiry_days.user = other.expiry_days.user.or(self.expiry_days.user);
        self.curation = other.curation.or(self.curation);
        self.max_result_bytes = other.max_result_bytes.or(self.max_result_bytes);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_too_big_or_too_deep_is_refused_before_parsing() {
        let p = Path::new("memdir.yaml");
        let deep_flow = format!("budgets: {}{}", "[".repeat(40), "]".repeat(40));
        let deep_block = (0..40)
            .map(|i| format!("{}k{i}:", "  ".repeat(i)))
            .collect::<Vec<_>>()
            .join("\n");
        let compact = format!("budgets:\n  {}x", "- ".repeat(40));
        for text in [deep_flow, deep_block, compact] {
            let t = std::time::Instant::now();
            let e = Settings::from_yaml(&text, p).unwrap_err();
            assert!(e.to_string().contains("nested more than 32"), "{e}");
            assert!(t.elapsed() < std::time::Duration::from_millis(100));
        }
        let big = format!("# {}\nbudgets:\n  memory: 3000\n", "x".repeat(70_000));
        assert!(
            Settings::from_yaml(&big, p)
                .unwrap_err()
                .to_string()
                .contains("over the")
        );
        // The settings memdir.yaml holds are nowhere near the bounds.
        let ok = "budgets:\n  memory: 3000\nexpiry_days:\n  memory: 30\ncuration: auto\n";
        assert!(Settings::from_yaml(ok, p).is_ok());
        assert_eq!(yaml_depth(ok), 1);
    }

    #[test]
    fn unknown_keys_in_memdir_yaml_are_errors() {
        let err = Settings::from_yaml("budgetz: 1\n", Path::new("x/memdir.yaml")).unwrap_err();
        assert_eq!(err.code(), "invalid_config");
        assert!(err.to_string().contains("x/memdir.yaml"));
    }
}
