//! Step 4: facts marked in yesterday's day log (`fact: …`) lifted into
//! MEMORY.md, unless refused as a save's text is, vetoed in any form,
//! already stored, or archived for good (vetoed, superseded).

use std::collections::BTreeSet;

use crate::edit::check_text;
use crate::journal::parse_line;
use crate::model::{ArchiveKind, Meta, Scope, entry_id};
use crate::review::duplicates::folded;
use crate::review::{Change, DayLine, FACT_PREFIX, Fact, Input, Plan, Skipped};

/// What follows the mark of a day line's text (its text without the time,
/// the task and the run) that marks a fact to lift (`fact: …`, any case);
/// `None` without the mark.
fn marked(text: &str) -> Option<&str> {
    let t = text.trim_start();
    t.get(..FACT_PREFIX.len())
        .filter(|p| p.eq_ignore_ascii_case(FACT_PREFIX))
        .map(|_| &t[FACT_PREFIX.len()..])
}

/// Whether a line of the day log as episodes.md holds it (`HH:MM [TASK]
/// text (run RUN)`, its list marker removed) marks a fact for the review
/// to lift: its text starts with `fact:`, in any case. The review
/// lifts the marked lines of yesterday whose text passes a save's checks.
pub fn marks_fact(line: &str) -> bool {
    marked(&parse_line(line.trim()).text).is_some()
}

/// The text a day line marks to be lifted (`fact: …`), checked as a save's
/// text is: `None` for a line without the mark, the line's text and the
/// refusal's code when the text is refused.
fn lift_text(line: &str) -> Option<std::result::Result<String, (String, String)>> {
    let rest = marked(line)?;
    Some(check_text(rest).map_err(|e| (rest.trim().to_owned(), e.code().as_str().to_owned())))
}

/// The ids the day lines of `lines` would lift (whether or not the plan
/// lifts them): the archive records a plan needs for them are theirs.
pub fn lift_ids(lines: &[DayLine]) -> BTreeSet<String> {
    lines
        .iter()
        .filter_map(|l| lift_text(&l.text)?.ok())
        .map(|t| entry_id(Scope::Memory.name(), &t))
        .collect()
}

/// Why an archive record keeps its fact from coming back: a veto (a
/// person's word is final) or a supersession; `None` for any other.
fn refused_return(meta: &Meta) -> Option<String> {
    match meta.kind? {
        ArchiveKind::Vetoed => Some(match meta.archived {
            Some(t) => format!("vetoed on {}", t.date_naive()),
            None => "vetoed".to_owned(),
        }),
        ArchiveKind::Superseded => Some(match &meta.superseded_by {
            Some(by) => format!("superseded by {by}"),
            None => "superseded".to_owned(),
        }),
        _ => None,
    }
}

/// Lifts each marked line of yesterday's day log, or says why not
/// (`skipped`); the `live` facts not `gone` are those already stored.
pub(super) fn lift(live: &[&Fact], input: &Input<'_>, gone: &BTreeSet<String>, out: &mut Plan) {
    let mut present: BTreeSet<String> = live
        .iter()
        .filter(|f| !gone.contains(&f.id))
        .map(|f| folded(&f.text))
        .collect();
    for line in input.yesterday {
        let Some(checked) = lift_text(&line.text) else {
            continue;
        };
        let text = match checked {
            Ok(t) => t,
            Err((rest, why)) => {
                out.skipped.push(Skipped { what: rest, why });
                continue;
            }
        };
        // A person's veto is final, in whatever form the line gives the
        // fact.
        if let Some(v) = input.vetoes.first(&text) {
            out.skipped.push(Skipped {
                what: text,
                why: v.why(),
            });
            continue;
        }
        if !present.insert(folded(&text)) {
            out.skipped.push(Skipped {
                what: text,
                why: "already stored".into(),
            });
            continue;
        }
        // A person's veto is final, and a superseded fact cannot come back:
        // a day line does not bring either back.
        let id = entry_id(Scope::Memory.name(), &text);
        if let Some(why) = input
            .archived
            .iter()
            .find(|r| r.id == id)
            .and_then(|r| refused_return(&r.meta))
        {
            out.skipped.push(Skipped { what: text, why });
            continue;
        }
        out.changes.push(Change::Lift {
            id,
            text,
            date: line.date,
            run: line.run.clone(),
            task: line.task.clone(),
        });
    }
}
