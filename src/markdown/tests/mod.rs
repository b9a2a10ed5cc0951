//! Spec-driven tests of parsing and splicing: the CommonMark spec examples,
//! hand-written store files with the bytes each edit must give, and
//! properties over generated markdown. Each file checks against an
//! independent oracle of top-level list items (`oracle`).

mod commonmark_corpus;
mod fixture_files;
mod oracle;
mod properties;

/// The parser and splicer as the tests call them: by scope name, each edit
/// giving the new source only (the parse it also gives is checked by
/// `splice`'s own tests).
mod shim {
    pub(super) use crate::markdown::Document;
    pub(super) use crate::markdown::splice::normalize_text;
    pub(super) use crate::model::entry_id;

    use crate::markdown::splice::{self, Unplaceable};
    use crate::model::Scope;

    fn scope(name: &str) -> Scope {
        Scope::parse(name).unwrap_or(Scope::Memory)
    }

    pub(super) fn parse(name: &str, src: &str) -> Document {
        crate::markdown::parse(scope(name), src)
    }

    pub(super) fn append(
        name: &str,
        src: &str,
        doc: &Document,
        text: &str,
        meta: Option<&str>,
    ) -> Result<String, Unplaceable> {
        let id = entry_id(name, text);
        splice::append(src, doc, (text, &id), meta).map(|(out, _)| out)
    }

    pub(super) fn replace(
        name: &str,
        src: &str,
        doc: &Document,
        index: usize,
        text: &str,
    ) -> Result<String, Unplaceable> {
        splice::replace(scope(name), src, doc, index, text).map(|(out, _)| out)
    }

    pub(super) fn remove(src: &str, doc: &Document, index: usize) -> Result<String, Unplaceable> {
        splice::remove(src, doc, index).map(|(out, _)| out)
    }

    pub(super) fn set_meta(
        src: &str,
        doc: &Document,
        index: usize,
        meta: &str,
    ) -> Result<String, Unplaceable> {
        splice::set_meta(src, doc, index, meta).map(|(out, _)| out)
    }
}
