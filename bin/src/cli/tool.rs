//! `memdir tool …`: the tools a model calls, run on the owner's memory,
//! the tool-use input read from standard input (at most 64 KiB).

use std::io::Read;

use clap::Subcommand;
use memdir::api::Request;
use memdir::api::types::Error;
use memdir::api::types::MAX_INPUT_BYTES;

/// `memdir tool memory`: a model's tool, one call.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ToolCommand {
    /// Claude's memory tool (memory_20250818): standard input is one call's
    /// tool-use input, a JSON object such as {"command":"view","path":"/memories"};
    /// the tool result is printed (--json: {"text", "is_error"}; a refusal
    /// is a result, exit 0).
    Memory {
        /// Let the tool write the owner's skills
        /// (/memories/skills/NAME/SKILL.md: create, str_replace, insert,
        /// delete, rename); default: read-only.
        #[arg(long)]
        skills_writable: bool,
    },
}

/// The request `command` makes, its input read from standard input.
pub(super) fn request(command: ToolCommand) -> Result<Request, Error> {
    let ToolCommand::Memory { skills_writable } = command;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Io {
            path: "<stdin>".into(),
            op: "read",
            source,
        })?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(Error::InvalidToolInput {
            field: None,
            message: format!("the input is over the {MAX_INPUT_BYTES}-byte limit"),
        });
    }
    let input = serde_json::from_slice(&bytes).map_err(|e| Error::InvalidToolInput {
        field: None,
        message: format!("standard input is not JSON: {e}"),
    })?;
    Ok(Request::MemoryTool {
        input,
        skills_writable,
    })
}
