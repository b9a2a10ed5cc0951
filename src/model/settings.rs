//! Settings: `memdir.yaml`, at the root and in an owner's folder.
//!
//! Pure: callers read the files and pass their text. (A store's own budget,
//! from its front matter, is `markdown::FileSettings`; the rule that picks a
//! budget is `edit::resolve_budget`.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::replicas::{self, Replica};
use super::scope::Scope;
use crate::error::{Error, Result};

/// The newest folder format this memdir reads and writes (`format:` in the
/// root's `memdir.yaml`; a folder without one is format 1).
pub const FORMAT: u64 = 1;

/// Keys that grant access or run programs: read only from the machine-local
/// configuration, and an error in a `memdir.yaml`, which a `git pull` can
/// change (docs/SECURITY.md, Trust model).
const MACHINE_ONLY_KEYS: [&str; 4] = ["persons", "keys", "api_keys", "reviewer"];

/// Keys a `memdir.yaml` holds that this version does not know, kept and
/// ignored (a newer memdir may have written them).
type Unknown = BTreeMap<String, serde_yaml::Value>;

/// Settings a `memdir.yaml` may hold. Every key is optional; keys this
/// version does not know are warnings ([`Settings::warnings`]), not errors,
/// so clones running different versions of memdir keep working.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Settings {
    /// The folder's format version (the root's `memdir.yaml`); a memdir that
    /// finds a newer one than [`FORMAT`] refuses to write.
    pub format: Option<u64>,
    /// Budgets per store, in characters (clamped to 500–20,000).
    #[serde(default)]
    pub budgets: Budgets,
    /// How long a writer waits for the owner's lock, in milliseconds
    /// (clamped to 0–60,000: `LOCK_TIMEOUT_MS_RANGE`).
    pub lock_timeout_ms: Option<u64>,
    /// Days until a saved fact expires, per store (MEMORY.md: 90; USER.md: never).
    #[serde(default)]
    pub expiry_days: ExpiryDays,
    /// `auto`: an add past the budget archives the least recently recalled,
    /// oldest facts until it fits; `off` (default): it is refused.
    pub curation: Option<Curation>,
    /// Largest SharedMemory result, in bytes (default 16 MiB; clamped to
    /// 1 byte–64 MiB: `MAX_RESULT_BYTES_RANGE`).
    pub max_result_bytes: Option<u64>,
    /// The most bytes of SharedMemory results an owner may hold (the sum of
    /// its results' contents); absent: no quota. Clamped to 1 byte–1 TiB
    /// (`RESULTS_QUOTA_BYTES_RANGE`).
    pub results_quota_bytes: Option<u64>,
    /// How memdir works with the git repository the folder is in.
    #[serde(default)]
    pub git: GitSettings,
    /// The daily review's routine ("Memory dreaming"): when it is due, and
    /// whether it is paused. Absent: no routine (`review --due` never runs).
    pub review: Option<ReviewSettings>,
    /// Whether an agent's writes that add or change text go in at once
    /// (`direct`, the default) or wait for a person (`review`). An owner's
    /// `memdir.yaml` may tighten the root's (and the machine-local
    /// configuration's) policy, never loosen it ([`Settings::overlay`]).
    pub writes: Option<WritePolicy>,
    /// The replicas of the root and the owners homed on each (the root's
    /// `memdir.yaml` only; docs/SCALING.md).
    pub replicas: Option<Vec<Replica>>,
    /// After [`Settings::overlay`]: the budgets the more specific file set,
    /// so a resolved budget can say where it came from.
    #[serde(skip)]
    pub(crate) overlaid_budgets: Budgets,
    /// Keys this version does not know.
    #[serde(flatten)]
    unknown: Unknown,
    /// The keys this version does not know, with their file (of both
    /// files, after [`Settings::overlay`]).
    #[serde(skip)]
    unknown_keys: Vec<(PathBuf, String)>,
    /// The numeric settings clamped into their range, with their file (of
    /// both files, after [`Settings::overlay`]).
    #[serde(skip)]
    clamped: Vec<Clamped>,
}

/// The range of `lock_timeout_ms`, in milliseconds: a pulled
/// `memdir.yaml` never makes a writer wait more than a minute.
pub const LOCK_TIMEOUT_MS_RANGE: (u64, u64) = (0, 60_000);
/// The range of `max_result_bytes`: 1 byte to 64 MiB.
pub const MAX_RESULT_BYTES_RANGE: (u64, u64) = (1, 64 * 1024 * 1024);
/// The range of `results_quota_bytes`: 1 byte to 1 TiB.
pub const RESULTS_QUOTA_BYTES_RANGE: (u64, u64) = (1, 1 << 40);
/// The range of `expiry_days.memory` and `expiry_days.user`: 0 (never) to
/// 36,500 days (a hundred years).
pub const EXPIRY_DAYS_RANGE: (u32, u32) = (0, 36_500);

/// A numeric setting of a `memdir.yaml` outside its range, and the value
/// used instead (the nearest end of the range).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clamped {
    /// The file that set it.
    pub path: PathBuf,
    /// The key, dotted (`expiry_days.memory`).
    pub key: &'static str,
    /// The value the file holds.
    pub asked: u64,
    /// The value used.
    pub used: u64,
    /// The allowed range, inclusive.
    pub range: (u64, u64),
}

impl Clamped {
    /// The warning: the file, the key, the value asked, the value used and
    /// the range (worded as a clamped budget's).
    pub fn warning(&self) -> String {
        format!(
            "{}: `{}` {} clamped to {} (allowed {}-{})",
            self.path.display(),
            self.key,
            self.asked,
            self.used,
            self.range.0,
            self.range.1
        )
    }
}

/// Clamps `value` into `range`, noting it in `out` when it was outside.
fn clamp_into<T>(
    value: &mut Option<T>,
    key: &'static str,
    range: (T, T),
    path: &Path,
    out: &mut Vec<Clamped>,
) where
    T: Copy + Ord + Into<u64>,
{
    if let Some(v) = *value {
        let used = v.clamp(range.0, range.1);
        if used != v {
            *value = Some(used);
            out.push(Clamped {
                path: path.to_owned(),
                key,
                asked: v.into(),
                used: used.into(),
                range: (range.0.into(), range.1.into()),
            });
        }
    }
}

/// The `git:` settings.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct GitSettings {
    /// Commit the files each successful write changed (default: off).
    pub autocommit: Option<bool>,
    /// Commit SharedMemory task results (`results/`) too: `memdir init` and
    /// `memdir git setup` leave them out of `.gitignore` (default: off;
    /// results are run data, large and per machine).
    pub commit_results: Option<bool>,
    /// The e-mail domain of an agent's commits: `agt_x <agt_x@DOMAIN>`
    /// (default `memdir.invalid`).
    pub email_domain: Option<String>,
    #[serde(flatten)]
    unknown: Unknown,
}

/// The `review:` setting: the daily review's routine.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ReviewSettings {
    /// The time of day (UTC, `HH:MM`) a review is due (default `04:00`).
    pub at: Option<String>,
    /// A paused routine is never due.
    pub paused: Option<bool>,
    #[serde(flatten)]
    unknown: Unknown,
}

impl ReviewSettings {
    /// The time of day a review is due, `HH:MM` UTC.
    pub fn at(&self) -> &str {
        self.at.as_deref().unwrap_or(REVIEW_AT)
    }

    /// Whether the routine is paused.
    pub fn paused(&self) -> bool {
        self.paused.unwrap_or(false)
    }
}

/// The time of day a new routine's review is due (UTC).
pub const REVIEW_AT: &str = "04:00";

/// Days until a saved fact expires, per store; `0` means never.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ExpiryDays {
    /// MEMORY.md (default 90).
    pub memory: Option<u32>,
    /// USER.md (default: never).
    pub user: Option<u32>,
    #[serde(flatten)]
    unknown: Unknown,
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

/// How an agent's writes that add or change text reach its stores
/// (`writes:` in a `memdir.yaml` or the machine-local configuration).
/// Ordered from the loosest to the tightest: where two files set it, the
/// tighter wins ([`WritePolicy::tightest`]).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum WritePolicy {
    /// Written at once (the default; the seeds' behaviour).
    #[default]
    Direct,
    /// Kept in the owner's `PENDING.md` until a person approves it; a
    /// person's own writes, removals, archives, renewals and day lines go
    /// through as ever.
    Review,
}

impl WritePolicy {
    /// Its word in a `memdir.yaml`.
    pub const fn as_str(self) -> &'static str {
        match self {
            WritePolicy::Direct => "direct",
            WritePolicy::Review => "review",
        }
    }

    /// The tighter of the policies set (`None`: not set), `direct` when
    /// none is: no file loosens what another sets.
    pub fn tightest(set: impl IntoIterator<Item = Option<WritePolicy>>) -> WritePolicy {
        set.into_iter().flatten().max().unwrap_or_default()
    }
}

impl std::fmt::Display for WritePolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Budgets per store.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Budgets {
    /// MEMORY.md's budget.
    pub memory: Option<i64>,
    /// USER.md's budget.
    pub user: Option<i64>,
    /// LEARNINGS.md's budget (the root's `memdir.yaml` only: the learnings
    /// are the root's, not an owner's).
    pub learnings: Option<i64>,
    #[serde(flatten)]
    unknown: Unknown,
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
        let mut s: Settings = serde_yaml::from_str(text).map_err(|e| Error::InvalidConfig {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        if let Some(key) = MACHINE_ONLY_KEYS
            .iter()
            .find(|k| s.unknown.contains_key(**k))
        {
            return Err(Error::InvalidConfig {
                path: path.to_owned(),
                message: format!(
                    "`{key}` grants access or runs a program: it belongs in the machine-local \
                     config.yaml, never in a memory folder"
                ),
            });
        }
        let empty = Unknown::new();
        let nested = [
            ("", &s.unknown),
            ("budgets.", &s.budgets.unknown),
            ("expiry_days.", &s.expiry_days.unknown),
            ("git.", &s.git.unknown),
            ("review.", s.review.as_ref().map_or(&empty, |r| &r.unknown)),
        ];
        s.unknown_keys = nested
            .iter()
            .flat_map(|(prefix, m)| {
                m.keys()
                    .map(move |k| (path.to_owned(), format!("{prefix}{k}")))
            })
            .collect();
        if let Some(list) = &s.replicas {
            replicas::check(list).map_err(|message| Error::InvalidConfig {
                path: path.to_owned(),
                message,
            })?;
            s.unknown_keys.extend(list.iter().flat_map(|r| {
                r.unknown
                    .keys()
                    .map(|k| (path.to_owned(), format!("replicas.{}.{k}", r.name)))
            }));
        }
        s.clamp_numbers(path);
        Ok(s)
    }

    /// Clamps every numeric setting into its range (budgets are clamped
    /// where they are resolved, `edit::resolve_budget`, since a front
    /// matter can set one too).
    fn clamp_numbers(&mut self, path: &Path) {
        let out = &mut self.clamped;
        clamp_into(
            &mut self.lock_timeout_ms,
            "lock_timeout_ms",
            LOCK_TIMEOUT_MS_RANGE,
            path,
            out,
        );
        clamp_into(
            &mut self.max_result_bytes,
            "max_result_bytes",
            MAX_RESULT_BYTES_RANGE,
            path,
            out,
        );
        clamp_into(
            &mut self.results_quota_bytes,
            "results_quota_bytes",
            RESULTS_QUOTA_BYTES_RANGE,
            path,
            out,
        );
        clamp_into(
            &mut self.expiry_days.memory,
            "expiry_days.memory",
            EXPIRY_DAYS_RANGE,
            path,
            out,
        );
        clamp_into(
            &mut self.expiry_days.user,
            "expiry_days.user",
            EXPIRY_DAYS_RANGE,
            path,
            out,
        );
    }

    /// The numeric settings clamped into their range, each with its file.
    pub fn clamped(&self) -> &[Clamped] {
        &self.clamped
    }

    /// The keys this version does not know (dotted: `git.sign`), each with
    /// its file (of both files, after [`Settings::overlay`]).
    pub fn unknown_keys(&self) -> &[(PathBuf, String)] {
        &self.unknown_keys
    }

    /// What parsing found to warn about: a line per unknown key, then one
    /// per clamped setting, naming the file.
    pub fn warnings(&self) -> Vec<String> {
        self.unknown_keys
            .iter()
            .map(|(path, k)| {
                format!(
                    "{}: unknown setting `{k}` (ignored; a newer memdir may know it)",
                    path.display()
                )
            })
            .chain(self.clamped.iter().map(Clamped::warning))
            .collect()
    }

    /// The folder's format version: [`Settings::format`], else 1.
    pub fn format_version(&self) -> u64 {
        self.format.unwrap_or(1)
    }

    /// Whether each write commits the files it changed.
    pub fn autocommit(&self) -> bool {
        self.git.autocommit.unwrap_or(false)
    }

    /// Overlays `other` (more specific) on `self`.
    pub fn overlay(mut self, other: &Settings) -> Settings {
        self.unknown_keys.extend(other.unknown_keys.iter().cloned());
        self.clamped.extend(other.clamped.iter().cloned());
        self.format = other.format.max(self.format);
        self.git.autocommit = other.git.autocommit.or(self.git.autocommit);
        self.git.commit_results = other.git.commit_results.or(self.git.commit_results);
        self.git.email_domain = other
            .git
            .email_domain
            .clone()
            .or(self.git.email_domain.take());
        self.overlaid_budgets = other.budgets.clone();
        self.budgets.memory = other.budgets.memory.or(self.budgets.memory);
        self.budgets.user = other.budgets.user.or(self.budgets.user);
        self.lock_timeout_ms = other.lock_timeout_ms.or(self.lock_timeout_ms);
        self.expiry_days.memory = other.expiry_days.memory.or(self.expiry_days.memory);
        self.expiry_days.user = other.expiry_days.user.or(self.expiry_days.user);
        self.curation = other.curation.or(self.curation);
        self.max_result_bytes = other.max_result_bytes.or(self.max_result_bytes);
        self.results_quota_bytes = other.results_quota_bytes.or(self.results_quota_bytes);
        self.review = other.review.clone().or(self.review.take());
        // An owner tightens the root's policy, never loosens it.
        // (`None` < `direct` < `review`: the larger is the tighter.)
        self.writes = self.writes.max(other.writes);
        self
    }

    /// The write policy these settings set: [`WritePolicy::Direct`] unless
    /// one of the files overlaid says `review`.
    pub fn writes(&self) -> WritePolicy {
        WritePolicy::tightest([self.writes])
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
    fn unknown_keys_are_warnings_and_machine_only_keys_errors() {
        let p = Path::new("x/memdir.yaml");
        let s = Settings::from_yaml(
            "budgetz: 1\nbudgets:\n  memory: 3000\n  archive: 9\ngit:\n  autocommit: true\n  sign: yes\n",
            p,
        )
        .unwrap();
        assert_eq!(s.budgets.memory, Some(3000));
        assert!(s.autocommit());
        let w = s.warnings().join("\n");
        for key in ["`budgetz`", "`budgets.archive`", "`git.sign`"] {
            assert!(w.contains(key), "{w}");
        }
        assert!(w.contains("x/memdir.yaml"), "{w}");
        assert_eq!(s.warnings().len(), 3);
        let owner =
            Settings::from_yaml("expiry_days:\n  day: 3\n", Path::new("o/memdir.yaml")).unwrap();
        assert_eq!(s.clone().overlay(&owner).warnings().len(), 4);
        // A value of the wrong type is still an error.
        let err = Settings::from_yaml("budgets:\n  memory: lots\n", p).unwrap_err();
        assert_eq!(err.code().as_str(), "invalid_config");
        for key in MACHINE_ONLY_KEYS {
            let err = Settings::from_yaml(&format!("{key}:\n  ann: [1000]\n"), p).unwrap_err();
            assert_eq!(err.code().as_str(), "invalid_config", "{key}");
            assert!(err.to_string().contains("machine-local"), "{err}");
        }
    }

    #[test]
    fn numeric_settings_are_clamped_with_a_warning() {
        let p = Path::new("r/memdir.yaml");
        let s = Settings::from_yaml(
            "lock_timeout_ms: 18446744073709551615\nmax_result_bytes: 0\n\
             results_quota_bytes: 18446744073709551615\n\
             expiry_days:\n  memory: 4294967295\n  user: 40000\n",
            p,
        )
        .unwrap();
        assert_eq!(s.lock_timeout_ms, Some(60_000));
        assert_eq!(s.max_result_bytes, Some(1));
        assert_eq!(s.results_quota_bytes, Some(1 << 40));
        assert_eq!(
            (s.expiry_days.memory, s.expiry_days.user),
            (Some(36_500), Some(36_500))
        );
        let w = s.warnings();
        assert_eq!(w.len(), 5, "{w:?}");
        assert_eq!(
            w[0],
            "r/memdir.yaml: `lock_timeout_ms` 18446744073709551615 clamped to 60000 \
             (allowed 0-60000)"
        );
        assert!(w[1].contains("`max_result_bytes` 0 clamped to 1 (allowed 1-67108864)"));
        assert!(w[3].contains("`expiry_days.memory` 4294967295 clamped to 36500"));
        // The largest result: 64 MiB, kept; one byte more is clamped.
        let s = Settings::from_yaml("max_result_bytes: 67108864\nlock_timeout_ms: 0\n", p).unwrap();
        assert!(s.clamped().is_empty(), "{:?}", s.clamped());
        let s = Settings::from_yaml("max_result_bytes: 67108865\n", p).unwrap();
        assert_eq!(s.max_result_bytes, Some(64 << 20));
        // Overlaid, the owner's value wins and both files' warnings stay.
        let owner = Settings::from_yaml(
            "lock_timeout_ms: 90000\nresults_quota_bytes: 10\n",
            Path::new("o/memdir.yaml"),
        )
        .unwrap();
        let both = s.overlay(&owner);
        assert_eq!(
            (both.lock_timeout_ms, both.results_quota_bytes),
            (Some(60_000), Some(10))
        );
        assert_eq!(both.clamped().len(), 2);
        assert!(both.warnings()[1].starts_with("o/memdir.yaml: `lock_timeout_ms` 90000"));
    }

    #[test]
    fn the_write_policy_is_parsed_and_an_owner_only_tightens_it() {
        let p = Path::new("memdir.yaml");
        let parse = |t: &str| Settings::from_yaml(t, p).unwrap();
        assert_eq!(Settings::default().writes(), WritePolicy::Direct);
        assert_eq!(parse("writes: review\n").writes, Some(WritePolicy::Review));
        assert_eq!(parse("writes: direct\n").writes, Some(WritePolicy::Direct));
        assert!(parse("writes: review\n").warnings().is_empty());
        let e = Settings::from_yaml("writes: later\n", p).unwrap_err();
        assert_eq!(e.code().as_str(), "invalid_config");
        let (root_direct, root_review) = (parse("writes: direct\n"), parse("writes: review\n"));
        let (owner_direct, owner_review) = (parse("writes: direct\n"), parse("writes: review\n"));
        // An owner tightens a root's `direct` (or its silence) to `review`…
        assert_eq!(
            root_direct.clone().overlay(&owner_review).writes(),
            WritePolicy::Review
        );
        assert_eq!(
            Settings::default().overlay(&owner_review).writes(),
            WritePolicy::Review
        );
        // …and never loosens a root's `review`.
        assert_eq!(
            root_review.clone().overlay(&owner_direct).writes(),
            WritePolicy::Review
        );
        assert_eq!(
            root_review.overlay(&Settings::default()).writes(),
            WritePolicy::Review
        );
        assert_eq!(
            root_direct.overlay(&owner_direct).writes(),
            WritePolicy::Direct
        );
        assert_eq!(
            WritePolicy::tightest([None, Some(WritePolicy::Review), Some(WritePolicy::Direct)]),
            WritePolicy::Review
        );
        assert_eq!(WritePolicy::tightest([None, None]), WritePolicy::Direct);
    }

    #[test]
    fn the_format_version_defaults_to_one_and_the_newest_wins() {
        let p = Path::new("memdir.yaml");
        assert_eq!(Settings::default().format_version(), 1);
        let root = Settings::from_yaml("format: 2\n", p).unwrap();
        let owner = Settings::from_yaml("format: 1\n", p).unwrap();
        assert_eq!(root.overlay(&owner).format_version(), 2);
    }
}
