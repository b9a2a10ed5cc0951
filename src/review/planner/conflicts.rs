//! Step 2: two live facts a merge left in conflict (`conflict=` in their
//! metadata) settled by their runs' results, when exactly one is
//! supported.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::ArchiveKind;
use crate::recall::term_set;
use crate::review::{Change, Fact, Plan, Unsettled};

/// Settles each conflict pair among the `live` facts by the runs' results
/// (`evidence`): the loser archived (kind `conflict`), or the pair left
/// unsettled with why.
pub(super) fn settle(
    live: &[&Fact],
    evidence: &BTreeMap<String, Vec<String>>,
    gone: &mut BTreeSet<String>,
    out: &mut Plan,
) {
    let mut groups: BTreeMap<&str, Vec<&Fact>> = BTreeMap::new();
    for f in live {
        if let Some(c) = &f.meta.conflict {
            groups.entry(c.as_str()).or_default().push(f);
        }
    }
    // Each run's results as a term set, once per run (not once per fact).
    let mut found: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for f in groups.values().flatten() {
        if let Some(run) = f.meta.run.as_deref()
            && !found.contains_key(run)
            && let Some(results) = evidence.get(run)
        {
            found.insert(run, results.iter().flat_map(|r| term_set(r)).collect());
        }
    }
    for group in groups.values() {
        let [a, b] = group.as_slice() else {
            if group.len() > 2 {
                out.unsettled.push(Unsettled {
                    ids: [group[0].id.clone(), group[1].id.clone()],
                    why: format!("{} versions in conflict; settle by hand", group.len()),
                });
            }
            continue;
        };
        match supported(a, b, &found) {
            Ok((keep, lose, evidence)) => {
                gone.insert(lose.id.clone());
                out.changes.push(Change::Archive {
                    id: lose.id.clone(),
                    scope: lose.scope,
                    text: lose.text.clone(),
                    kind: ArchiveKind::Conflict,
                    reason: format!("in conflict with {}; {evidence}", keep.id),
                    into: Some(keep.id.clone()),
                });
            }
            Err(why) => out.unsettled.push(Unsettled {
                ids: [a.id.clone(), b.id.clone()],
                why,
            }),
        }
    }
}

/// Which of two facts in conflict the runs' results support: `(kept,
/// archived, the evidence as a sentence)`, or why neither is settled. A
/// fact is supported when its run's results hold every term it has and the
/// other has not (and it has such a term).
fn supported<'f>(
    a: &'f Fact,
    b: &'f Fact,
    evidence: &BTreeMap<&str, BTreeSet<String>>,
) -> Result<(&'f Fact, &'f Fact, String), String> {
    let (ta, tb) = (term_set(&a.text), term_set(&b.text));
    let supported = |f: &Fact, own: &[String], other: &[String]| -> Option<bool> {
        let run = f.meta.run.as_deref()?;
        let found = evidence.get(run)?;
        let distinct: Vec<&String> = own.iter().filter(|t| !other.contains(t)).collect();
        Some(!distinct.is_empty() && distinct.iter().all(|t| found.contains(*t)))
    };
    match (supported(a, &ta, &tb), supported(b, &tb, &ta)) {
        (Some(true), Some(false) | None) => Ok((a, b, evidence_note(a))),
        (Some(false) | None, Some(true)) => Ok((b, a, evidence_note(b))),
        (Some(true), Some(true)) => Err("both are supported by their runs' results".into()),
        (None, None) => Err("the runs' results are not on this machine".into()),
        _ => Err("neither is supported by its run's results".into()),
    }
}

fn evidence_note(f: &Fact) -> String {
    format!(
        "the results of run {} support {}",
        f.meta.run.as_deref().unwrap_or(""),
        f.id
    )
}
