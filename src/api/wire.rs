//! The JSON answers as types: an answer `api::render` builds from more
//! than one of the library's types (a write, a snapshot, a list with its
//! count, a review, …), and the answers the servers shape themselves (the
//! One API's `remember` and `forget`, a fact's row with its usage, a
//! review in the background), each one of these, serialized. The schemas
//! under `docs/schema/` are derived from them and from the library's types
//! they carry (`api::schema`), so an answer and its schema cannot drift.
//!
//! Each borrows what it shows: building one copies nothing the answer
//! does not (serde_json keeps an object's keys in the order they are put
//! in, so a type's field order is the answer's key order).

use std::borrow::Cow;
use std::path::Path;

use chrono::{DateTime, Utc};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::{Map, Value};

use super::errors::ErrorBody;
use super::servers::EntryOut;
use crate::edit::{Change, OpOutcome, Usage};
use crate::merge::Conflict;
use crate::model::Scope;
use crate::review::{Change as PlanChange, Skipped, Unsettled};
use crate::snapshot::{BlockedSkill, Overflow, Snapshot};
use crate::store::{
    CheckReport, FactRow, FlaggedSpan, LogCommit, PendingStatus, PutStatus, ResultMeta,
    ReviewerRun, RunHit, RunRecord, SkillRow, StoreView,
};

/// One of these answers as a JSON value; one that cannot be says so
/// (`{"error": …}`), never `null`.
pub fn value<T: Serialize>(answer: &T) -> Value {
    serde_json::to_value(answer).unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }))
}

/// An entry's id: `mem_` and 12 hex digits.
pub const MEM_ID: &str = r"^mem_[0-9a-f]{12}$";
/// A store's usage in words: `NN% — used/limit chars`.
pub const USAGE_TEXT: &str = r"^\d+% — \d+/\d+ chars$";
/// A SHA-256, lowercase hex.
pub const SHA256: &str = r"^[0-9a-f]{64}$";
/// A pending write's id: `pnd_` and 12 hex digits.
pub const PENDING_ID: &str = r"^pnd_[0-9a-f]{12}$";

/// `add`: the fact saved (or found already stored), its store's usage.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Added<'a> {
    /// The fact's id.
    #[schemars(pattern(MEM_ID))]
    pub id: &'a str,
    /// The store written.
    pub scope: Scope,
    /// The fact's text.
    pub text: &'a str,
    /// The store's usage after the write.
    pub usage: &'a Usage,
    /// `added`, `already stored` (nothing written) or `pending` (waits
    /// for a person's review).
    #[schemars(extend("enum" = ["added", "already stored", "pending"]))]
    pub message: Change,
    /// Facts archived on the way: superseded, or picked by curation.
    pub archived: &'a [String],
    /// Notes such as a clamped budget.
    pub warnings: &'a [String],
    /// `pending` when the write waits for a person's review (`writes:
    /// review`); absent when it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<PendingStatus>,
    /// The waiting write's id in the owner's PENDING.md (with `status:
    /// pending`): what `pending show` looks up.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(PENDING_ID))]
    pub pending_id: Option<&'a str>,
}

/// `replace`: the entry's new id and text, the id it had.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Replaced<'a> {
    /// The entry's id now.
    #[schemars(pattern(MEM_ID))]
    pub id: &'a str,
    /// Its id before.
    #[schemars(pattern(MEM_ID))]
    pub old_id: &'a str,
    /// The store written.
    pub scope: Scope,
    /// Its text now.
    pub text: &'a str,
    /// The store's usage after the write.
    pub usage: &'a Usage,
    /// `replaced`, `unchanged` (the same text), `merged` (the new text
    /// is another entry's: the two are one now) or `pending` (waits for a
    /// person's review).
    #[schemars(extend("enum" = ["replaced", "unchanged", "merged", "pending"]))]
    pub message: Change,
    /// Notes such as a clamped budget.
    pub warnings: &'a [String],
    /// `pending` when the write waits for a person's review (`writes:
    /// review`); absent when it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<PendingStatus>,
    /// The waiting write's id in the owner's PENDING.md (with `status:
    /// pending`): what `pending show` looks up.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(PENDING_ID))]
    pub pending_id: Option<&'a str>,
}

/// `remove`: the entry removed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Removed<'a> {
    /// Always 1: one entry.
    #[schemars(extend("const" = 1))]
    pub removed: u8,
    /// The removed entry's id.
    #[schemars(pattern(MEM_ID))]
    pub id: &'a str,
    /// The store written.
    pub scope: Scope,
    /// The store's usage after the write.
    pub usage: &'a Usage,
    /// `removed`.
    #[schemars(extend("const" = "removed"))]
    pub message: Change,
    /// Notes such as a clamped budget.
    pub warnings: &'a [String],
}

/// `batch`: each operation's outcome, the usage of each store written.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Batched<'a> {
    /// Each operation's outcome, in order.
    pub results: &'a [OpOutcome],
    /// The usage of each store the batch wrote, after it (as it is, when
    /// the batch waits for a person's review).
    pub usage: ScopedUsage<'a>,
    /// Notes such as a clamped budget.
    pub warnings: &'a [String],
    /// `pending` when the write waits for a person's review (`writes:
    /// review`); absent when it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<PendingStatus>,
    /// The waiting write's id in the owner's PENDING.md (with `status:
    /// pending`): what `pending show` looks up.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(PENDING_ID))]
    pub pending_id: Option<&'a str>,
}

/// The usage of some stores, keyed by the store's name, in the order given.
#[derive(Debug, Clone, Copy)]
pub struct ScopedUsage<'a>(pub &'a [(Scope, Usage)]);

/// `status` and `pending_id` of a write's answer: both set when it waits
/// for a person's review.
pub fn waiting(pending_id: Option<&str>) -> (Option<PendingStatus>, Option<&str>) {
    (pending_id.map(|_| PendingStatus::Pending), pending_id)
}

impl Serialize for ScopedUsage<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (scope, usage) in self.0 {
            map.serialize_entry(scope.name(), usage)?;
        }
        map.end()
    }
}

impl JsonSchema for ScopedUsage<'_> {
    fn schema_name() -> Cow<'static, str> {
        "ScopedUsage".into()
    }

    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let usage = g.subschema_for::<Usage>();
        json_schema!({
            "description": "Each store's usage, by the store's name (only the stores written).",
            "type": "object",
            "properties": {"memory": usage, "user": usage},
            "additionalProperties": false,
        })
    }
}

/// `show`: the owner's stores with their entries.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Shown<'a> {
    /// The owner.
    pub owner: &'a str,
    /// Each store asked for.
    pub stores: &'a [StoreView],
}

/// `snapshot`: the frozen prompt prefix, its identity and size, and what
/// it leaves out.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SnapshotAnswer<'a> {
    /// The prompt prefix.
    pub text: &'a str,
    /// Lowercase hex SHA-256 of `text`: its identity.
    #[schemars(pattern(SHA256))]
    pub sha256: &'a str,
    /// Length of `text` in bytes.
    pub bytes: usize,
    /// The entries replaced by a `[BLOCKED: …]` placeholder (ids).
    pub blocked: Vec<&'a str>,
    /// Stores over their budget, rendered only up to it.
    pub over_budget: &'a [Overflow],
    /// Declared skills replaced by a `[BLOCKED: …]` placeholder.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub blocked_skills: &'a [BlockedSkill],
}

impl<'a> SnapshotAnswer<'a> {
    /// The answer of `s`.
    pub fn of(s: &'a Snapshot) -> SnapshotAnswer<'a> {
        SnapshotAnswer {
            text: &s.text,
            sha256: &s.sha256,
            bytes: s.bytes,
            blocked: s.blocked.iter().map(|b| b.id.as_str()).collect(),
            over_budget: &s.over_budget,
            blocked_skills: &s.blocked_skills,
        }
    }
}

/// `run begin`: the run's snapshot, then the run.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunBegun<'a> {
    /// The snapshot the run began with.
    #[serde(flatten)]
    pub snapshot: SnapshotAnswer<'a>,
    /// The run's id.
    pub run_id: &'a str,
    /// Whether this is a run of the same session begun earlier and still
    /// open, answered again (no new run begun).
    pub resumed: bool,
    /// The client's session it was begun for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<&'a str>,
    /// The workflow whose results it produces.
    pub workflow_id: &'a str,
    /// When it began (RFC 3339 UTC with microseconds).
    pub started_at: String,
    /// The learned skills it declared.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub skills: &'a [String],
}

/// `log`: the commits that changed the owner's entries.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Logged<'a> {
    /// The commits, newest first.
    pub commits: &'a [LogCommit],
    /// How many.
    pub count: usize,
}

/// `runs search`: the journal's lines that match, best first.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunHits<'a> {
    /// The lines.
    pub hits: &'a [RunHit],
    /// How many.
    pub count: usize,
}

/// `runs list`: the runs begun through memdir.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunsListed<'a> {
    /// Their records.
    pub runs: &'a [RunRecord],
    /// How many.
    pub count: usize,
}

/// `skill list`: the owner's skills.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SkillsListed<'a> {
    /// Each skill's name and description.
    pub skills: &'a [SkillRow],
    /// How many.
    pub count: usize,
}

/// The One API's recall (`GET /v1/memory/recall`): the entries of both
/// stores, ranked by the query when there is one.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Entries<'a> {
    /// The entries.
    pub entries: &'a [EntryOut],
    /// How many.
    pub count: usize,
}

/// `list`: memories, newest first, and whether the limit cut them.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Listed<'a> {
    /// The rows, at most the limit.
    pub rows: &'a [FactRow],
    /// How many rows there are.
    pub count: usize,
    /// How many matched before the limit cut them.
    pub total: usize,
    /// Whether the limit cut them.
    pub truncated: bool,
    /// The limit.
    pub limit: usize,
}

/// `review` (and `review apply`): the plan, what is left and listed, the
/// diffs.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Reviewed<'a> {
    /// The review's id (`review-…`), also in every entry it touched.
    pub review_id: &'a str,
    /// Whether anything was written (false for a dry run, and for a review
    /// that found nothing to change).
    pub applied: bool,
    /// The changes, in order.
    pub changes: &'a [PlanChange],
    /// Live facts not recalled in 30 days: candidates to re-read.
    pub unrecalled: &'a [String],
    /// Conflict pairs left as they are.
    pub unsettled: &'a [Unsettled],
    /// What was left out, and why.
    pub skipped: &'a [Skipped],
    /// Per file changed: a unified diff of it.
    pub diffs: Diffs<'a>,
    /// Notes, such as a commit that failed.
    pub warnings: &'a [String],
    /// The reviewer's part, when one is configured.
    pub reviewer: Option<&'a ReviewerRun>,
}

/// A unified diff per file, keyed by the file, in the order given.
#[derive(Debug, Clone, Copy)]
pub struct Diffs<'a>(pub &'a [(String, String)]);

impl Serialize for Diffs<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (file, diff) in self.0 {
            map.serialize_entry(file, diff)?;
        }
        map.end()
    }
}

impl JsonSchema for Diffs<'_> {
    fn schema_name() -> Cow<'static, str> {
        "Diffs".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Per file changed (its path in the owner's folder): a unified diff of it.",
            "type": "object",
            "additionalProperties": {"type": "string"},
        })
    }
}

/// `check`: the findings per owner, and what they count.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Checked<'a> {
    /// One report per owner checked.
    pub reports: &'a [CheckReport],
    /// The errors found.
    pub errors: usize,
    /// The warnings found.
    pub warnings: usize,
    /// Whether warnings fail the check too.
    pub strict: bool,
}

/// `merge-file`: what git's merge driver merged, and the conflicts left.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MergedFile<'a> {
    /// The file OURS, now holding the result.
    pub file: String,
    /// How it was merged: as a store, LEARNINGS.md (`learnings`), the
    /// writes that wait for review (`PENDING.md`), an archive, a journal or
    /// lines of text.
    #[schemars(extend("enum" = ["MEMORY.md", "USER.md", "learnings", "PENDING.md", "archive.md", "episodes.md", "text"]))]
    pub merged_as: &'static str,
    /// Whether nothing is left in conflict.
    pub clean: bool,
    /// What is left for a person.
    pub conflicts: Vec<MergeConflict<'a>>,
}

/// Something a merge left for a person.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum MergeConflict<'a> {
    /// An entry edited differently on both sides: both versions are in the
    /// result, each with `conflict=<base>` in its metadata comment.
    Entry {
        /// The entry's id before the edits.
        base: &'a str,
        /// Its id in ours' version.
        ours: &'a str,
        /// Its id in theirs' version.
        theirs: &'a str,
    },
    /// Lines between standard conflict markers (1-based, markers included).
    Text {
        /// The `<<<<<<<` line.
        first_line: usize,
        /// The `>>>>>>>` line.
        last_line: usize,
    },
}

impl<'a> MergeConflict<'a> {
    /// The answer's form of `c`.
    pub fn of(c: &'a Conflict) -> MergeConflict<'a> {
        match c {
            Conflict::Entry { base, ours, theirs } => MergeConflict::Entry { base, ours, theirs },
            Conflict::Text {
                first_line,
                last_line,
            } => MergeConflict::Text {
                first_line: *first_line,
                last_line: *last_line,
            },
        }
    }
}

/// `result put`: the result's metadata, and what the put did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Put<'a> {
    /// The result now stored (for `already stored`: the earlier one, with
    /// its original `created_at`).
    #[serde(flatten)]
    pub result: &'a ResultMeta,
    /// What the put did, in words: `stored`, `already stored` or
    /// `overwritten`.
    #[schemars(extend("enum" = ["stored", "already stored", "overwritten"]))]
    pub message: &'static str,
    /// What the put did.
    pub status: PutStatus,
    /// Notes such as a workflow index rebuilt from the result files.
    pub warnings: &'a [String],
}

/// `result get WF TASK`: a task's result, its content as text when it is
/// UTF-8 (else base64).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ResultAnswer<'a> {
    /// The result's metadata.
    #[serde(flatten)]
    pub meta: ResultMeta,
    /// The content when it is UTF-8 (`null` otherwise: see
    /// `content_base64`).
    pub content: Option<&'a str>,
    /// The content in base64 (standard alphabet, padded), when it is not
    /// UTF-8.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_base64: Option<String>,
    /// Whether content is the stored text with each flagged span replaced
    /// by its `[BLOCKED: …]` placeholder (text results, to an agent);
    /// `sha256` and `bytes` describe the stored bytes either way.
    pub redacted: bool,
    /// The spans of the stored bytes the scanner flags, in order: a JSON
    /// or binary result is returned byte-exact with them beside it.
    pub flagged: &'a [FlaggedSpan],
}

/// A key of `memdir serve` as `key list` shows it (never the key itself).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct KeyShown<'a> {
    /// The key's id (`key_` + 8 hex).
    #[schemars(pattern(r"^key_"))]
    pub id: &'a str,
    /// A name given when it was made.
    pub name: Option<&'a str>,
    /// The key's first characters, to recognise it (`mdk_` + 4).
    pub prefix: &'a str,
    /// Whose it is: an agent's or a person's.
    pub kind: crate::store::keys::KeyKind,
    /// The agent's or the person's id.
    pub subject: &'a str,
    /// When it was made.
    pub created: DateTime<Utc>,
    /// When it was last accepted (to the minute).
    pub last_used: Option<DateTime<Utc>>,
    /// When it was revoked.
    pub revoked: Option<DateTime<Utc>>,
}

/// `key create`: the key, shown this once, and where it is kept.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct KeyCreated<'a> {
    /// The key's record.
    #[serde(flatten)]
    pub record: KeyShown<'a>,
    /// The key itself (`Authorization: Bearer KEY`): never shown again.
    #[schemars(pattern(r"^mdk_"))]
    pub key: &'a str,
    /// The keys file that keeps its SHA-256.
    pub file: &'a Path,
}

/// `key list`: every key.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct KeysListed<'a> {
    /// The keys.
    pub keys: Vec<KeyShown<'a>>,
    /// How many.
    pub count: usize,
}

/// `key revoke`: the keys revoked.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct KeysRevoked<'a> {
    /// The keys.
    pub revoked: Vec<KeyShown<'a>>,
    /// How many.
    pub count: usize,
}

/// `ui`: a one-time login link to the dashboard.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LoginUrl<'a> {
    /// The link: the server's `/ui/login/link/TOKEN`.
    #[schemars(pattern(r"/ui/login/link/[0-9a-f]{64}$"))]
    pub url: &'a str,
    /// The person it logs in.
    pub person: &'a str,
    /// When it stops being good.
    pub expires: DateTime<Utc>,
}

/// Every failure: `{"error": …}`, one object (on standard output under
/// `--json`; a server's answer with `status` its HTTP status).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Failure<'a> {
    /// The failure: its stable `code`, the HTTP `status`, the `message`,
    /// the `hint` and the details of the code (docs/CLI.md, Failures).
    pub error: &'a ErrorBody,
}

/// A store's usage as numbers (`budget` beside the One API's `usage`
/// string).
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub struct UsageNumbers {
    /// Characters used.
    pub used: usize,
    /// The budget.
    pub limit: usize,
}

impl UsageNumbers {
    /// The numbers of `u`.
    pub fn of(u: &Usage) -> UsageNumbers {
        UsageNumbers {
            used: u.used,
            limit: u.limit,
        }
    }
}

/// `POST /v1/memory/remember`: the fact saved (201), found already stored
/// (200) or kept for a person's review (202, `status: pending`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Remembered<'a> {
    /// The fact's id.
    #[schemars(pattern(MEM_ID))]
    pub id: &'a str,
    /// The store written.
    pub scope: Scope,
    /// The fact's text.
    pub text: &'a str,
    /// The store's usage, the seed's string.
    #[schemars(pattern(USAGE_TEXT))]
    pub usage: &'a str,
    /// The usage string's numbers.
    pub budget: UsageNumbers,
    /// `added`, `already stored`, or `pending` (202: waits for a person's
    /// review).
    #[schemars(extend("enum" = ["added", "already stored", "pending"]))]
    pub message: Change,
    /// `pending` when the write waits for a person's review (`writes:
    /// review`); absent when it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<PendingStatus>,
    /// The waiting write's id in the owner's PENDING.md (with `status:
    /// pending`): what `pending show` looks up.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(PENDING_ID))]
    pub pending_id: Option<&'a str>,
}

/// `POST /v1/memory/forget`: the entry removed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Forgotten<'a> {
    /// Always 1: one entry.
    #[schemars(extend("const" = 1))]
    pub removed: u8,
    /// The removed entry's id.
    #[schemars(pattern(MEM_ID))]
    pub id: &'a str,
    /// The store written.
    pub scope: Scope,
    /// The store's usage, the seed's string.
    #[schemars(pattern(USAGE_TEXT))]
    pub usage: &'a str,
    /// The usage string's numbers.
    pub budget: UsageNumbers,
    /// `removed`.
    #[schemars(extend("const" = "removed"))]
    pub message: Change,
}

/// `GET /v1/snapshot`: the snapshot a run starting now gets.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SnapshotText<'a> {
    /// The prompt prefix.
    pub text: &'a str,
    /// Lowercase hex SHA-256 of `text`: its identity.
    #[schemars(pattern(SHA256))]
    pub sha256: &'a str,
    /// Length of `text` in bytes.
    pub bytes: usize,
}

/// `POST /api/v1/memories`: the fact's row (as `list` shows it), with the
/// store's usage and what the write did; 201 added, 200 already stored,
/// 202 pending (kept for a person's review).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MemorySaved<'a> {
    /// The fact's row (its keys, as `list`'s rows have them).
    #[serde(flatten)]
    #[schemars(with = "FactRow")]
    pub row: Map<String, Value>,
    /// Always `memory`.
    #[schemars(extend("const" = "memory"))]
    pub object: &'static str,
    /// The store's usage, the seed's string.
    #[schemars(pattern(USAGE_TEXT))]
    pub usage: &'a str,
    /// The usage string's numbers.
    pub budget: UsageNumbers,
    /// `added`, `already stored`, or `pending` (202: waits for a person's
    /// review; the row is then the id and `"status": "pending"` alone).
    #[schemars(extend("enum" = ["added", "already stored", "pending"]))]
    pub message: Change,
    /// Facts archived on the way: superseded, or picked by curation.
    pub archived: &'a [String],
    /// The waiting write's id in the owner's PENDING.md (with `status:
    /// pending`): what `pending show` looks up.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(PENDING_ID))]
    pub pending_id: Option<&'a str>,
}

/// `PATCH /api/v1/memories/{id}`: a person's edit, the new row (as `list`
/// shows it) with the id it replaced.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MemoryEdited<'a> {
    /// The fact's row (its keys, as `list`'s rows have them).
    #[serde(flatten)]
    #[schemars(with = "FactRow")]
    pub row: Map<String, Value>,
    /// Always `memory`.
    #[schemars(extend("const" = "memory"))]
    pub object: &'static str,
    /// The id the fact had before the edit.
    #[schemars(pattern(MEM_ID))]
    pub old_id: &'a str,
    /// The store's usage, the seed's string.
    #[schemars(pattern(USAGE_TEXT))]
    pub usage: &'a str,
    /// The usage string's numbers.
    pub budget: UsageNumbers,
    /// `replaced`, `unchanged` or `merged`.
    #[schemars(extend("enum" = ["replaced", "unchanged", "merged"]))]
    pub message: Change,
}

/// `POST /api/v1/reviews` (202) and `GET /api/v1/reviews/jobs/{job}`: a
/// review run in the background.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReviewJob<'a> {
    /// The job's id.
    #[schemars(pattern(r"^job-[0-9a-f]{16}$"))]
    pub job: &'a str,
    /// Where it stands.
    #[serde(flatten)]
    pub state: JobState<'a>,
}

/// Where a review in the background stands.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum JobState<'a> {
    /// Running.
    Running,
    /// Done: the review's answer (`memdir review --json`'s object).
    Done {
        /// The review.
        #[schemars(with = "Reviewed<'static>")]
        review: &'a Value,
    },
    /// Failed: the error (an error answer's `error`).
    Failed {
        /// The failure.
        #[schemars(with = "ErrorBody")]
        error: &'a Value,
    },
}

/// `GET /healthz`: the server is up.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Health {
    /// Always `ok`.
    #[schemars(extend("const" = "ok"))]
    pub status: &'static str,
}

/// `POST /v1/command` (`memdir --url`): what the command line prints for
/// a command run on the server for the key's caller, its refusal
/// included (a refused command answers `200` too: the command was
/// answered, and `exit` says how).
#[derive(Debug, Clone, Serialize, serde::Deserialize, JsonSchema)]
pub struct Printed {
    /// Standard output: the answer (text, or the `--json` line; under
    /// `--json`, a refusal's `{"error": …}`).
    pub stdout: String,
    /// Standard error: the warnings, or a refusal's text.
    pub stderr: String,
    /// The exit status the command line exits with.
    pub exit: u8,
}

/// `GET /v1/mcp/tools` (`memdir mcp --url`): the tools MCP lists for the
/// key's role, as `tools/list` gives them.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct McpTools {
    /// Each tool: its name, description, input schema and annotations.
    pub tools: Vec<Value>,
}

/// `POST /v1/mcp/call` (`memdir mcp --url`): one tool call's answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct McpCalled {
    /// MCP's `CallToolResult` (a tool's refusal is one, `isError: true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// MCP's protocol error (an unknown tool).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
}
