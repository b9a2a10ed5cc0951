//! Character budgets: what a store injects, how it is counted, and clamping.
//!
//! Pure: no I/O. The rule lives in [`render_entries`] and [`used_chars`]; the
//! snapshot renders with the same function, so the budget counts exactly what
//! a snapshot injects.

use serde::Serialize;

use crate::markdown::FileSettings;
use crate::model::{Scope, Settings};

/// Smallest budget a setting may give.
pub const MIN_BUDGET: usize = 500;
/// Largest budget a setting may give.
pub const MAX_BUDGET: usize = 20_000;

/// Renders entry texts as the snapshot injects them: each entry as `- ` and
/// its text, continuation lines indented by two spaces, entries joined by LF,
/// no trailing line ending.
pub fn render_entries<'a>(texts: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for (i, text) in texts.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str("- ");
        for (j, line) in text.split('\n').enumerate() {
            if j > 0 {
                out.push('\n');
                if !line.is_empty() {
                    out.push_str("  ");
                }
            }
            out.push_str(line);
        }
    }
    out
}

/// The budget rule: characters (Unicode scalar values) of [`render_entries`].
pub fn used_chars<'a>(texts: impl IntoIterator<Item = &'a str>) -> usize {
    // Counted as rendered, without rendering: `- ` per entry, a line feed
    // between entries and lines, two spaces per non-empty continuation line.
    let mut used = 0;
    for (i, text) in texts.into_iter().enumerate() {
        used += usize::from(i > 0) + 2;
        for (j, line) in text.split('\n').enumerate() {
            if j > 0 {
                used += 1 + if line.is_empty() { 0 } else { 2 };
            }
            used += line.chars().count();
        }
    }
    used
}

/// Where a budget came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BudgetSource {
    /// The built-in default.
    Default,
    /// `memdir.yaml` at the root.
    RootConfig,
    /// `memdir.yaml` in the owner's folder.
    OwnerConfig,
    /// The file's own front matter.
    FrontMatter,
}

/// A resolved budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Budget {
    /// The limit in force, in characters.
    pub limit: usize,
    /// Where it came from.
    pub source: BudgetSource,
    /// The value asked for, when it was clamped into 500–20,000.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clamped_from: Option<i64>,
}

impl Budget {
    /// Clamps `requested` into 500–20,000 and remembers whether it had to.
    pub fn clamp(requested: i64, source: BudgetSource) -> Budget {
        let limit = requested.clamp(MIN_BUDGET as i64, MAX_BUDGET as i64) as usize;
        Budget {
            limit,
            source,
            clamped_from: (limit as i64 != requested).then_some(requested),
        }
    }

    /// A warning for a clamped budget, naming its source.
    pub fn warning(&self, file: &str) -> Option<String> {
        self.clamped_from.map(|asked| {
            format!(
                "{file}: budget {asked} from {} clamped to {} (allowed {MIN_BUDGET}-{MAX_BUDGET})",
                match self.source {
                    BudgetSource::Default => "the default",
                    BudgetSource::RootConfig => "memdir.yaml",
                    BudgetSource::OwnerConfig => "the owner's memdir.yaml",
                    BudgetSource::FrontMatter => "front matter",
                },
                self.limit
            )
        })
    }
}

/// A store's usage against its budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Usage {
    /// Characters used.
    pub used: usize,
    /// The budget.
    pub limit: usize,
    /// `NN% — used/limit chars`.
    #[schemars(pattern(r"^\d+% — \d+/\d+ chars$"))]
    pub text: String,
}

impl Usage {
    /// Usage of `used` characters against `limit`.
    pub fn new(used: usize, limit: usize) -> Usage {
        Usage {
            used,
            limit,
            text: usage_line(used, limit),
        }
    }
}

/// `NN% — used/limit chars`, with the percentage rounded down.
pub fn usage_line(used: usize, limit: usize) -> String {
    let pct = (used as u128 * 100).checked_div(limit as u128).unwrap_or(0);
    format!("{pct}% — {used}/{limit} chars")
}

/// Resolves a store's budget: front matter, else the owner's `memdir.yaml`,
/// else the root's, else the default; clamped to 500–20,000.
pub fn resolve_budget(
    scope: Scope,
    root: &Settings,
    owner: &Settings,
    file: &FileSettings,
) -> Budget {
    if let Some(b) = file.budget {
        Budget::clamp(b, BudgetSource::FrontMatter)
    } else if let Some(b) = owner.overlaid_budgets.get(scope) {
        Budget::clamp(b, BudgetSource::OwnerConfig)
    } else if let Some(b) = root.budgets.get(scope) {
        Budget::clamp(b, BudgetSource::RootConfig)
    } else {
        Budget::clamp(scope.default_budget() as i64, BudgetSource::Default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn precedence_and_clamp() {
        let p = Path::new("memdir.yaml");
        let root = Settings::from_yaml("budgets:\n  memory: 3000\n  user: 100000\n", p).unwrap();
        // The owner's settings as the store passes them: overlaid on the root's.
        let owner = root
            .clone()
            .overlay(&Settings::from_yaml("budgets:\n  memory: 4000\n", p).unwrap());
        let none = FileSettings::default();
        let fm = FileSettings::from_yaml("budget: 5000\ntitle: mine\n", p).unwrap();
        let empty = Settings::default();
        assert_eq!(
            resolve_budget(Scope::Memory, &empty, &empty, &none).limit,
            2200
        );
        assert_eq!(
            resolve_budget(Scope::User, &empty, &empty, &none).limit,
            1375
        );
        assert_eq!(
            resolve_budget(Scope::Memory, &root, &empty, &none).limit,
            3000
        );
        assert_eq!(
            resolve_budget(Scope::Memory, &root, &owner, &none).limit,
            4000
        );
        assert_eq!(
            resolve_budget(Scope::Memory, &root, &owner, &fm).limit,
            5000
        );
        let user = resolve_budget(Scope::User, &root, &owner, &none);
        assert_eq!((user.limit, user.clamped_from), (20_000, Some(100_000)));
        // Each budget names the file it came from.
        assert_eq!(user.source, BudgetSource::RootConfig);
        let mem = resolve_budget(Scope::Memory, &root, &owner, &none);
        assert_eq!(mem.source, BudgetSource::OwnerConfig);
    }

    #[test]
    fn render_and_count() {
        assert_eq!(
            render_entries(["a", "b\nc", "d\n\ne"]),
            "- a\n- b\n  c\n- d\n\n  e"
        );
        assert_eq!(used_chars(["a", "b\nc"]), 11);
        assert_eq!(used_chars(["héllo 🌍"]), 9);
        assert_eq!(used_chars([]), 0);
    }

    #[test]
    fn clamp_reports() {
        let b = Budget::clamp(50_000, BudgetSource::FrontMatter);
        assert_eq!(b.limit, 20_000);
        assert_eq!(b.clamped_from, Some(50_000));
        assert!(b.warning("MEMORY.md").unwrap().contains("clamped to 20000"));
        let b = Budget::clamp(10, BudgetSource::RootConfig);
        assert_eq!(b.limit, 500);
        let b = Budget::clamp(3000, BudgetSource::OwnerConfig);
        assert_eq!(
            (b.limit, b.clamped_from, b.warning("x")),
            (3000, None, None)
        );
    }

    #[test]
    fn usage_text() {
        assert_eq!(usage_line(1980, 2200), "90% — 1980/2200 chars");
        assert_eq!(usage_line(0, 1375), "0% — 0/1375 chars");
    }
}
