//! The largest file memdir reads of each kind, checked against the file's
//! size (from `fstat`, before any byte is read) so that a hostile file (a
//! sparse 4 GB MEMORY.md, say) costs nothing to refuse; and the rule that
//! memdir never writes a file it would refuse to read. docs/FORMAT.md lists
//! them.

/// MEMORY.md, USER.md: read to show, snapshot, recall or list them, and the
/// largest memdir writes.
pub const STORE_BYTES: u64 = 1024 * 1024;
/// MEMORY.md, USER.md read by a write that may shrink them: a store grown
/// past [`STORE_BYTES`] by hand can still be curated back with `remove` and
/// `archive` (a write to it must leave it smaller).
pub const STORE_EDIT_BYTES: u64 = 16 * 1024 * 1024;
/// archive.md, and each part of `archive/` (`archive/YYYY.md`).
pub const ARCHIVE_BYTES: u64 = 16 * 1024 * 1024;
/// archive.md past this size is rotated by the write that archives: its
/// oldest records move to `archive/YYYY.md` (docs/FORMAT.md, "Rotation").
pub const ARCHIVE_ROTATE_BYTES: u64 = 256 * 1024;
/// What a rotation leaves in archive.md, at most (so that it does not
/// rotate again at the next write).
pub const ARCHIVE_KEEP_BYTES: u64 = 128 * 1024;
/// A part of `archive/` takes rotated records while it holds less than
/// this; then the next part of its year (`YYYY-2.md`, …). Well under
/// [`ARCHIVE_BYTES`], so every part stays readable.
pub const ARCHIVE_PART_BYTES: u64 = 4 * 1024 * 1024;
/// PENDING.md, an owner's writes that wait for a person (at most 50 an
/// agent, each a few operations of at most 500 characters).
pub const PENDING_BYTES: u64 = 4 * 1024 * 1024;
/// episodes.md (it grows by day; it is never injected).
pub const EPISODES_BYTES: u64 = 64 * 1024 * 1024;
/// `memdir.yaml`, at the root or in an owner's folder.
pub const CONFIG_BYTES: u64 = 64 * 1024;
/// `.memdir/stats.json`.
pub const STATS_BYTES: u64 = 16 * 1024 * 1024;
/// `.memdir/scan-cache.json`.
pub const SCAN_CACHE_BYTES: u64 = 16 * 1024 * 1024;
/// `.memdir/embeddings.json`, an owner's cached fact vectors (300 facts
/// of all-MiniLM-L6-v2 take about 620 KB).
pub const EMBEDDINGS_BYTES: u64 = 32 * 1024 * 1024;
/// The recall model's `config.json`, `tokenizer.json` and
/// `1_Pooling/config.json`, each.
pub const MODEL_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// The recall model's `model.safetensors` (all-MiniLM-L6-v2's is 91 MB).
pub const MODEL_WEIGHTS_BYTES: u64 = 1024 * 1024 * 1024;
/// A run record, `.memdir/runs/<run>.json`.
pub const RUN_RECORD_BYTES: u64 = 64 * 1024;
/// A stored snapshot, `.memdir/snapshots/<sha256>.md`.
pub const SNAPSHOT_BYTES: u64 = 1024 * 1024;
/// A workflow's `results/<workflow>/index.json`.
pub const RESULT_INDEX_BYTES: u64 = 64 * 1024 * 1024;
/// What a result file may hold beyond its content: the metadata line.
pub const RESULT_HEADER_BYTES: u64 = 64 * 1024;
/// The root's `.gitignore`.
pub const GITIGNORE_BYTES: u64 = 1024 * 1024;
/// Each of the three files `memdir merge-file` reads (git's merge driver).
pub const MERGE_BYTES: u64 = 16 * 1024 * 1024;
/// A skill's body (`skills/<NAME>/SKILL.md` after its front matter): at most
/// what the scanner reads whole (64 KiB holds at most 65,536 characters).
pub const SKILL_BODY_BYTES: u64 = 64 * 1024;
/// A skill's whole file: its body and front matter (which holds up to 16
/// KiB).
pub const SKILL_FILE_BYTES: u64 = SKILL_BODY_BYTES + 16 * 1024;
