//! The scanner's semantic layer at write time: where it judges (the
//! machine-local `scan: { semantic: true }` and a recall model the
//! committed classifier fits, docs/SECURITY.md), a text a write would save
//! is judged by it as well as by the rules, as a snapshot judges the text
//! later: every entry is scanned twice, by the same judge.

use crate::edit::Op;
use crate::error::Error;
use crate::store::owner::At;

/// Refuses the first text of `ops` (an add's, a replace's new text) that
/// the rules pass and the semantic layer flags: `memory_threat_blocked`
/// naming `semantic_injection`, with the index of its operation. A text the
/// rules flag is left to them (their refusal names their patterns); where
/// the layer does not judge, or the texts cannot be embedded, the rules
/// alone judge, as a snapshot does then.
pub(super) fn refuse(at: At<'_>, ops: &[Op]) -> Result<(), (usize, Error)> {
    #[cfg(feature = "embed")]
    {
        use crate::scan;
        let texts: Vec<(usize, &str)> = ops
            .iter()
            .enumerate()
            .filter_map(|(i, op)| match op {
                Op::Add { text, .. } => Some((i, text.as_str())),
                Op::Replace { new, .. } => Some((i, new.as_str())),
                Op::Remove { .. } => None,
            })
            .filter(|(_, t)| scan::scan(t).is_empty())
            .collect();
        if texts.is_empty() {
            return Ok(());
        }
        let Some(model) = crate::store::files::scan_cache::semantic_model(at) else {
            return Ok(());
        };
        let only: Vec<&str> = texts.iter().map(|(_, t)| *t).collect();
        let Ok(vectors) = model.embed(&only, 2, None) else {
            return Ok(());
        };
        if let Some((i, _)) = texts
            .iter()
            .zip(&vectors)
            .find(|(_, v)| scan::semantic::flags(v))
        {
            return Err((
                i.0,
                Error::ThreatBlocked {
                    patterns: scan::pattern_list(&[scan::semantic::finding()]),
                },
            ));
        }
    }
    #[cfg(not(feature = "embed"))]
    let _ = (at, ops);
    Ok(())
}
