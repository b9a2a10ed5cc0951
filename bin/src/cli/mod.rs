//! The `memdir` command tree: global options, every command and its
//! arguments, and how a command becomes an interface [`Request`]. Reading
//! standard input (a batch, a result's content) happens here too: it is the
//! command line's transport; so does a person's word, asked on the
//! controlling terminal (`confirm`).

mod confirm;
mod globals;
mod groups;
mod input;
mod request;
mod tool;
mod tree;
mod values;

use clap::Parser;

pub use globals::{Global, Identity, parse, who};
pub use request::{Answer, answer, remote_request};
pub use tree::{Command, GitCommand, KeyCommand};

/// What `memdir --help` ends with.
const CONCEPTS: &str = "\
Concepts:
  root     the folder holding every owner's memory (--root, $MEMDIR_ROOT)
  owner    whose memory a command uses: an agent's id (--owner, $MEMDIR_OWNER)
  agent    an AI agent; it reads and writes only its own memory
  person   a human of the workspace (--person), acting on an agent's memory (--agent)
  store    memory (MEMORY.md: facts, expire after 90 days by default) or
           user (USER.md: about the person, never expire)
  entry    one fact, a `- ` item with a `mem_` id
  run      one piece of an agent's work: begins with a frozen snapshot
  workflow the id a run's results are stored under (default: the run id)
  task     one result of a workflow (`result put WORKFLOW TASK`)

Output: text for people, or with --json one JSON object (docs/CLI.md, docs/schema/).
Colours: only in clap's help and errors, only on a terminal, never with NO_COLOR.";

/// memdir: markdown memory for AI agents, kept per owner in plain files.
#[derive(Debug, Parser)]
#[command(name = "memdir", version, about, propagate_version = true, after_help = CONCEPTS)]
pub struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub global: Global,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}
