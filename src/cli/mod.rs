//! Subcommand groups of the `memdir` binary, each on the public library API.

pub mod results;
