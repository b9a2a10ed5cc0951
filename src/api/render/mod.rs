//! Answers as people and programs read them: text, or one line of JSON.
//!
//! Each [`Response`] renders to the bytes for standard output and the
//! warnings for standard error ([`Rendered`]); each error to the text of
//! standard error or the JSON object of standard output. One renderer per
//! form: [`json()`] builds an answer's JSON form (the value HTTP serves, the
//! line `--json` prints), `text` the text people read; the warnings and
//! the exit status are the answer's, whatever the form.

use serde_json::json;

mod errors;
mod git;
mod hermes;
mod json;
mod pending;
mod results;
mod review;
mod runs;
mod text;

pub use errors::{error_head, error_json, error_text};
pub(crate) use git::watch_event;
pub use json::{json, person_json};
pub use results::base64;

/// A store view as markdown (an MCP resource, `remember`'s read), from a
/// guarded answer; empty for another answer.
pub fn store_markdown(answer: &Guarded<Response>) -> AgentText {
    AgentText::from_guarded(answer, |r| match r {
        Response::StoreView(v) => text::store_markdown(v),
        _ => String::new(),
    })
}

/// A result as MCP's `get_result` answers it, from a guarded
/// [`Response::Result`]: a head naming it and its flagged spans, then the
/// content.
pub fn result_tool_text(answer: &Guarded<Response>) -> AgentText {
    AgentText::from_guarded(answer, |r| match r {
        Response::Result(r) => results::tool_text(r),
        _ => String::new(),
    })
}

/// The current entries a failed write lists, of the store `only` names or
/// both, from a guarded [`Response::CurrentEntries`].
pub fn current_entries(answer: &Guarded<Response>, only: Option<crate::model::Scope>) -> AgentText {
    AgentText::from_guarded_with(answer, only, |r, only| match r {
        Response::CurrentEntries(list) => text::current_entries(list, only),
        _ => String::new(),
    })
}

use super::Response;
use super::errors::Surface;
use super::guard::{AgentText, Guarded, PersonAnswer, PersonText};

/// What to print for an agent (or a person who did not ask for the raw
/// text): every part [`AgentText`], made from a [`Guarded`] answer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rendered {
    /// Standard output.
    pub stdout: AgentText,
    /// Warnings for standard error: one `warning: …` line each.
    pub warnings: AgentText,
    /// The exit status of an answer that reports failure without being an
    /// error (`check` with findings that fail it); 0 otherwise.
    pub exit: u8,
}

/// What to print for a person's raw read ([`super::raw`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PersonRendered {
    /// Standard output.
    pub stdout: PersonText,
    /// Warnings for standard error: one `warning: …` line each.
    pub warnings: PersonText,
    /// As [`Rendered::exit`].
    pub exit: u8,
}

/// A time as printed for people: UTC, to the second, saying so.
fn utc(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// An RFC 3339 time (as the JSON carries it) printed for people: UTC, to
/// the second; unchanged if it does not parse.
fn utc_text(t: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(t)
        .map_or_else(|_| t.to_owned(), |t| utc(&t.with_timezone(&chrono::Utc)))
}

/// One line of JSON.
fn line(v: &impl serde::Serialize) -> String {
    match serde_json::to_string(v) {
        Ok(s) => format!("{s}\n"),
        Err(e) => format!("{}\n", json!({"error": e.to_string()})),
    }
}

/// Renders an answer as the command line prints it: text, or one line of
/// JSON with `json`.
pub fn render(response: &Guarded<Response>, json: bool) -> Rendered {
    render_on(response, json, Surface::Cli)
}

/// Renders an answer for a caller on `surface` (its text names that
/// surface's arguments, such as the limit of a list that was cut).
pub fn render_on(response: &Guarded<Response>, json: bool, surface: Surface) -> Rendered {
    let (stdout, warnings, exit) = rendered(response, json, surface);
    Rendered {
        stdout: AgentText::made(stdout),
        warnings: AgentText::made(warnings.into_bytes()),
        exit,
    }
}

/// Renders a person's raw read, as [`render_on`] renders a guarded answer.
pub fn person(answer: &PersonAnswer, json: bool, surface: Surface) -> PersonRendered {
    let (stdout, warnings, exit) = rendered(answer, json, surface);
    PersonRendered {
        stdout: PersonText::made(stdout),
        warnings: PersonText::made(warnings.into_bytes()),
        exit,
    }
}

/// Standard output, the warnings' lines and the exit status of an answer.
fn rendered(response: &Response, json: bool, surface: Surface) -> (Vec<u8>, String, u8) {
    let stdout = if json {
        json::json_line(response).into_bytes()
    } else {
        text::text(response, surface)
    };
    let list = match response {
        Response::Result(r) => results::result_warnings(r),
        _ => warnings(response).to_vec(),
    };
    let warnings = list.iter().map(|w| format!("warning: {w}\n")).collect();
    (stdout, warnings, exit(response))
}

/// The warnings an answer carries for standard error.
fn warnings(response: &Response) -> &[String] {
    match response {
        Response::Written(w) => &w.warnings,
        Response::Batch(b) => &b.warnings,
        Response::Day(d) => &d.warnings,
        Response::Put(p) => &p.warnings,
        Response::Steps(w) => &w.warnings,
        Response::Transition(t) => &t.warnings,
        Response::Renewed(r) => &r.warnings,
        Response::ResultsRemoved(r) => &r.warnings,
        Response::ResultsGc(g) => &g.warnings,
        Response::Review(r) => &r.warnings,
        Response::ReviewDue(d) => d.ran.as_ref().map_or(&[], |r| &r.warnings),
        Response::Undone(u) => &u.warnings,
        Response::Skill(o) => &o.warnings,
        Response::Imported(i) => &i.warnings,
        Response::PendingDecided(d) => &d.warnings,
        _ => &[],
    }
}

/// The exit status of an answer that reports a failure without being an
/// error: `check`'s findings that fail it, conflict markers `merge-file`
/// left, an import that refused something.
fn exit(response: &Response) -> u8 {
    match response {
        Response::Check { reports, strict } => {
            let (errors, warnings) = git::check_counts(reports);
            u8::from(errors > 0 || (*strict && warnings > 0))
        }
        Response::Merged(m) => u8::from(!m.merged.is_clean()),
        Response::Imported(i) => u8::from(i.files.iter().any(|f| !f.refused.is_empty())),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::{base64, json, render};
    use crate::api::Response;
    use crate::api::guard::guard;
    use crate::store::Transition;

    /// The value HTTP serves and the line `--json` prints are one answer:
    /// the line is the value printed, keys in the order the value holds
    /// them (a typed answer in its field order, a built one as written).
    #[test]
    fn json_value_and_json_line_agree() {
        let samples = [
            Response::Skills(Vec::new()),
            Response::Runs(Vec::new()),
            Response::Log(Vec::new()),
            Response::RunHits(Vec::new()),
            Response::Check {
                reports: Vec::new(),
                strict: true,
            },
            Response::Rows {
                rows: Vec::new(),
                total: 3,
                limit: 10,
            },
            Response::Transition(Transition {
                id: "mem_1".into(),
                status: crate::store::Status::Archived,
                kind: None,
                message: crate::store::TransitionChange::Archived,
                warnings: vec!["a warning".into()],
            }),
        ];
        let samples: Vec<_> = samples.into_iter().map(guard).collect();
        for r in &samples {
            let out = RenderedBytes {
                stdout: render(r, true).stdout.as_bytes().to_vec(),
            };
            let parsed: serde_json::Value =
                serde_json::from_slice(&out.stdout).expect("one line of JSON");
            assert_eq!(&parsed, json(r).value(), "{r:?}");
            assert_eq!(
                out.stdout,
                format!("{}\n", json(r).value()).into_bytes(),
                "{r:?}"
            );
            assert!(
                out.stdout.ends_with(b"\n") && !out.stdout[..out.stdout.len() - 1].contains(&b'\n')
            );
        }
        let t = render(&samples[6], true);
        assert_eq!(
            t.stdout.text(),
            "{\"id\":\"mem_1\",\"status\":\"archived\",\"message\":\"archived\",\"warnings\":[\"a warning\"]}\n"
        );
        assert_eq!(t.warnings.text(), "warning: a warning\n");
        assert_eq!(
            render(&samples[5], true).stdout.text(),
            "{\"rows\":[],\"count\":0,\"total\":3,\"truncated\":true,\"limit\":10}\n"
        );
        assert_eq!(json(&samples[5]).value()["truncated"], true);
    }

    /// The bytes a rendering printed.
    struct RenderedBytes {
        stdout: Vec<u8>,
    }

    /// The engine is the one the docs promise: standard alphabet, padded
    /// (not URL-safe, not unpadded).
    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (plain, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), enc);
        }
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
        assert_eq!(base64(&[0xfb, 0xff]), "+/8=");
    }
}
