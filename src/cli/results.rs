//! `memdir result put|get|wait`: SharedMemory task results.

use clap::Subcommand;
use memdir::{Error, Owner};

/// SharedMemory commands.
#[derive(Debug, Subcommand)]
pub enum ResultCommand {}

/// Runs one result command; returns what to print.
pub fn run(_owner: &Owner<'_>, command: ResultCommand, _json: bool) -> Result<String, Error> {
    match command {}
}
