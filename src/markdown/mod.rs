//! Markdown, pure: parsing a store into entries with byte ranges
//! ([`parse`]), splicing edits into its bytes (`splice`), and the front
//! matter's settings ([`FileSettings`]); the `§`-separated memory files
//! of Hermes-style agents ([`hermes`]). No I/O.
//!
//! Structure comes from pulldown-cmark's offset iterator; text is cut from
//! the source bytes and edits splice byte ranges, so nothing a person wrote
//! is ever re-rendered.

mod conflict;
mod front_matter;
pub mod hermes;
mod parse;
pub(crate) mod reparse;
pub(crate) mod splice;
#[cfg(test)]
mod tests;

pub use conflict::{Conflict, conflicts};
pub use front_matter::FileSettings;
#[cfg(any(test, feature = "internals"))]
pub use parse::FrontMatter;
pub use parse::{BOM, Document, Entry, META_PREFIX, Marker, parse, parse_over, parse_without_ids};
pub(crate) use parse::{line_end_with_eol, line_start, read_marker};
