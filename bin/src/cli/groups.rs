//! The command groups' subcommands (`memdir run …`, `runs …`, `result …`,
//! `skill …`, `review …`, `learnings …`, `key …`, `import …`, `git …`)
//! and the parsers of their values.

use std::path::PathBuf;

use chrono::NaiveDate;
use clap::Subcommand;

use super::values::*;

/// `memdir learnings list|approve|reject|retire`: the root's learnings, decided by persons.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum LearningsCommand {
    /// The approved learnings and the proposals (an agent sees its own only).
    List,
    /// Approve a proposal into LEARNINGS.md (a person).
    Approve {
        /// The proposal's id.
        id: String,
        /// The learning's text, in place of the proposal's.
        #[arg(long, value_name = "TEXT")]
        text: Option<String>,
        /// The proposal's text as you read it: refused (learning_changed)
        /// when it changed since.
        #[arg(long, value_name = "TEXT")]
        seen_text: Option<String>,
    },
    /// Reject a proposal with a reason (a person); its text is never
    /// proposed again.
    Reject {
        /// The proposal's id.
        id: String,
        /// Why (required, at most 500 characters).
        #[arg(long)]
        reason: String,
    },
    /// Retire an approved learning (a person): it leaves every snapshot.
    Retire {
        /// The learning's id.
        id: String,
        /// Why.
        #[arg(long)]
        reason: Option<String>,
    },
}

/// `memdir pending list|show|approve|reject`: the owner's writes that wait
/// for a person's review (`writes: review`), decided by persons.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum PendingCommand {
    /// The writes that wait (an agent sees its own).
    List {
        /// The rejected writes too.
        #[arg(long)]
        all: bool,
    },
    /// One waiting (or rejected) write.
    Show {
        /// Its id (`pnd_…`).
        id: String,
    },
    /// Approve a waiting write (a person): written as the agent's direct
    /// write would be, its budget, vetoes and scan checked again now.
    Approve {
        /// Its id (`pnd_…`).
        id: String,
        /// The text to write in place of the write's one text.
        #[arg(long, value_name = "TEXT")]
        text: Option<String>,
    },
    /// Reject a waiting write with a reason (a person): nothing is written,
    /// and its text is refused to the agent from then on.
    Reject {
        /// Its id (`pnd_…`).
        id: String,
        /// Why (required, at most 500 characters).
        #[arg(long)]
        reason: String,
    },
}

/// `memdir key create|list|revoke`: the keys of `memdir serve`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum KeyCommand {
    /// Make a key for --owner AGENT or --person ID and print it (only now).
    Create {
        /// A name to recognise it by.
        #[arg(long)]
        name: Option<String>,
    },
    /// List the keys: ids, names, prefixes, identities, created, last used (never the key).
    List,
    /// Revoke a key by its id or name.
    Revoke {
        /// The key's id (`key_…`) or name.
        key: String,
    },
}

/// `memdir review apply|undo|pause|resume|status|history`: apply a dry run's plan, undo a review; pause, resume or show the daily routine; list every review.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ReviewCommand {
    /// Apply exactly the plan `review --dry-run` showed as ID, if nothing it was planned on changed since.
    Apply {
        /// The dry run's review id (`review-…`).
        id: String,
    },
    /// Bring back what review ID archived and take out what it lifted, from the files alone.
    Undo {
        /// The review id (`review-…`).
        id: String,
        /// When entries changed since, undo the rest (default: change nothing).
        #[arg(long)]
        partial: bool,
    },
    /// Pause the routine (`paused: true` in the owner's memdir.yaml).
    Pause,
    /// Resume the routine (adds it when there is none).
    Resume,
    /// The routine: last run, next due, last report.
    Status,
    /// Every review the journal records, newest first, with what the files still record of its changes and a diff of each.
    History {
        /// At most this many reviews (default 20, at most 100).
        #[arg(long)]
        limit: Option<usize>,
    },
}

/// `memdir import hermes`: move in from another tool's memory files.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ImportCommand {
    /// A Hermes-style memories folder: MEMORY.md and USER.md whose entries are
    /// separated by a line holding only `§`. Each entry is checked and scanned
    /// as `add` does; each file goes in whole or not at all (see --partial);
    /// entries already stored are skipped, so importing twice changes nothing.
    Hermes {
        /// The folder holding MEMORY.md and/or USER.md.
        dir: PathBuf,
        /// Import what fits and list the rest (default: a file with any
        /// refused entry, or past the budget, is not imported at all).
        #[arg(long)]
        partial: bool,
        /// Say what would be imported and refused; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

/// The formats `memdir export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// MEMORY.md and USER.md, entries separated by a line holding only `§`.
    Hermes,
}

/// `memdir skill learn|list|show|forget`: learned skills, private to the owner.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum SkillCommand {
    /// Save a skill as skills/NAME/SKILL.md (from --from FILE, or `-` for
    /// standard input); scanned like memory, at most 64 KiB of body.
    #[command(group(clap::ArgGroup::new("source").required(true).args(["from", "stdin"])))]
    Learn {
        /// The skill's name (an id: [A-Za-z0-9._-], starting with a letter or digit).
        name: String,
        /// `-`: read the skill from standard input.
        #[arg(value_name = "-", value_parser = parse_dash)]
        stdin: Option<String>,
        /// Read the skill from this file.
        #[arg(long, value_name = "FILE")]
        from: Option<PathBuf>,
        /// One line on what the skill is for (default: the source's front
        /// matter's, else its first line).
        #[arg(long, value_name = "TEXT")]
        description: Option<String>,
        /// Replace a skill of the same name.
        #[arg(long)]
        replace: bool,
    },
    /// List the owner's skills: `- NAME — description`.
    List,
    /// Print a skill's SKILL.md.
    Show {
        /// The skill's name.
        name: String,
    },
    /// Forget (delete) a skill.
    Forget {
        /// The skill's name.
        name: String,
    },
}

/// `memdir results gc`: remove old run data.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ResultsCommand {
    /// Remove every workflow whose newest result is more than DAYS days old
    /// (each under its workflow's lock; the owner's results only).
    Gc {
        /// The age in days.
        #[arg(long, value_name = "DAYS")]
        older_than: u32,
    },
}

/// `memdir run begin|finish`: a run's frozen snapshot, then its day-log line.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum RunCommand {
    /// Begin a run: print its id and its frozen snapshot.
    Begin {
        /// The task key the run works on, such as PIN-812.
        #[arg(long)]
        task: Option<String>,
        /// Learned skills to add to the run's snapshot, after the memory
        /// (repeat the option, or list several names after it).
        #[arg(long = "skill", value_name = "NAME", num_args = 1..)]
        skills: Vec<String>,
        /// The workflow whose results the run produces (`result put WORKFLOW …`;
        /// default: the run id). Kept in the run record and its journal line.
        #[arg(long, value_name = "ID")]
        workflow: Option<String>,
        /// The client's session the run is for (such as Claude Code's
        /// session id): while a run of it is open, that run and its frozen
        /// snapshot are printed again and no new run begins.
        #[arg(long, value_name = "KEY")]
        session: Option<String>,
    },
    /// Finish a run: append its summary line to today's day log (once).
    /// `run finish RUN [TEXT]`, or `run finish --session KEY [TEXT]`.
    Finish {
        /// The run id `run begin` printed, or a unique prefix of it (with
        /// `--session`: the TEXT).
        #[arg(required_unless_present = "session", allow_hyphen_values = true)]
        run: Option<String>,
        /// One line on what the run did (default: `finished`; a line the
        /// scanner flags is refused and the run stays open).
        #[arg(allow_hyphen_values = true)]
        text: Option<String>,
        /// Finish the open run of this client session instead.
        #[arg(long, value_name = "KEY")]
        session: Option<String>,
    },
}

/// `memdir runs search|show|list`: the run journal, queried on demand.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum RunsCommand {
    /// Rank the journal's lines against QUERY.
    Search {
        /// What to look for.
        #[arg(allow_hyphen_values = true)]
        query: String,
        /// Only lines on or after this date (YYYY-MM-DD).
        #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
        since: Option<NaiveDate>,
        /// Only lines on or before this date (YYYY-MM-DD).
        #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
        until: Option<NaiveDate>,
        /// At most this many lines (default 20).
        #[arg(long)]
        limit: Option<usize>,
    },
    /// One run: its journal lines, the snapshot it began with, its steps.
    Show {
        /// The run id, or a unique prefix of a begun run's id.
        run: String,
    },
    /// The runs begun through memdir, newest first.
    List {
        /// Only runs not finished yet.
        #[arg(long)]
        open: bool,
    },
}

/// `memdir result put|get|rm|wait`: SharedMemory task results.
///
/// `get` with a task and `wait` print the content raw (byte for byte) on
/// standard output; with `--json` they print one object whose `content` is
/// the content as a string when it is UTF-8, else `null` with the bytes in
/// `content_base64` (standard alphabet, padded). Warnings (such as a rebuilt
/// index) go to standard error. `put` reads at most the owner's
/// `max_result_bytes` + 1 bytes into memory: past the limit it answers
/// `result_too_large` with the content's full size.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ResultCommand {
    /// Store a task's result (from --file, else standard input), up to
    /// `max_result_bytes` from memdir.yaml (default 16 MiB).
    Put {
        /// The workflow (run) id.
        workflow: String,
        /// The task id.
        task: String,
        /// The content's MIME type (default text/plain, for content that is
        /// text: other content needs its type).
        #[arg(long = "type", value_name = "MIME")]
        content_type: Option<String>,
        /// Read the content from this file instead of standard input.
        #[arg(long, value_name = "F")]
        file: Option<PathBuf>,
        /// Replace a different result stored under the same ids.
        #[arg(long)]
        overwrite: bool,
        /// Store empty content (else refused: an empty input is more often a
        /// producer that failed).
        #[arg(long)]
        allow_empty: bool,
    },
    /// Print a task's result, or without TASK the workflow's steps.
    Get {
        /// The workflow (run) id.
        workflow: String,
        /// The task id (omit to list the workflow's steps).
        task: Option<String>,
    },
    /// Remove a task's result, or without TASK every result of the workflow
    /// (under the workflow's lock; the owner's results only).
    Rm {
        /// The workflow (run) id.
        workflow: String,
        /// The task id (omit to remove the whole workflow).
        task: Option<String>,
    },
    /// Wait until a task's result is stored, then print it (exit 3 on timeout).
    Wait {
        /// The workflow (run) id.
        workflow: String,
        /// The task id.
        task: String,
        /// How long to wait, in seconds.
        #[arg(long, value_name = "S", default_value_t = 30.0, value_parser = parse_seconds)]
        timeout: f64,
    },
}

/// `memdir git …`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum GitCommand {
    /// Write .gitattributes and .gitignore, register the merge driver, record the format (idempotent).
    Setup {
        /// Also install a pre-commit hook that runs `memdir check`.
        #[arg(long)]
        hook: bool,
    },
}
