//! `POST /ui/agents/{agent}/actions`: one endpoint for every action of the
//! agent's page, named by the form's `action` (`save`, `replace`,
//! `archive`, `veto`, `unarchive`, `undo`, `renew`, `expiry`). Each is the
//! `Request` the command line and HTTP send, through `api::execute` with
//! the logged-in person as the caller. The form names the entry (`id`),
//! its store file (`store`: `memory`, `user`, `archive`) and that file's
//! SHA-256 as rendered (`hash`): when the file changed since, nothing is
//! done (`409 store_changed`) and the page shows the entry as it is now.
//! An error of the api is shown in the page, with its hint. Every answer
//! is a `303` to the agent's page, which says what was done or why not
//! (`ui::notices`): a reload never posts the form again.

use std::sync::Arc;

use axum::extract::{Path, Request as HttpRequest, State};
use axum::response::Response;
use memdir::api::types::{Decision, ErrorCode, Op, Scope, Status, Store, StoreFile};
use memdir::api::{Request, Response as Answer, Who};

use super::posted_form;
use crate::ui::notices::Said;
use crate::ui::{Shown, Ui, blocking, encode, field};

/// What an action did: the words the command line prints, and the entry
/// an Undo brings back.
type Done = (String, Option<String>);

/// The value of a form field, or `None` when empty.
fn given<'f>(f: &'f [(String, String)], name: &str) -> Option<&'f str> {
    field(f, name).map(str::trim).filter(|v| !v.is_empty())
}

fn missing(name: &str) -> Shown {
    Shown::transport(
        ErrorCode::InvalidRequest,
        format!("the form lacks its field {name:?}"),
    )
}

/// The decision an action's form makes, and whether an Undo follows it.
fn decision(f: &[(String, String)]) -> Result<(Decision, bool), Shown> {
    let action = given(f, "action").ok_or_else(|| missing("action"))?;
    let id = || {
        given(f, "id")
            .map(str::to_owned)
            .ok_or_else(|| missing("id"))
    };
    let scope = |s: Option<&str>| match s {
        Some("user") => Scope::User,
        _ => Scope::Memory,
    };
    Ok(match action {
        "save" => (
            Decision::Write {
                op: Op::Add {
                    text: field(f, "text").unwrap_or("").to_owned(),
                    scope: scope(given(f, "scope")),
                    expires: given(f, "expires").map(str::to_owned),
                    supersedes: None,
                },
            },
            false,
        ),
        "replace" => (
            Decision::Write {
                op: Op::Replace {
                    old: id()?,
                    new: field(f, "text").unwrap_or("").to_owned(),
                    scope: Some(scope(given(f, "store"))),
                },
            },
            false,
        ),
        "archive" => (
            Decision::Archive {
                id: id()?,
                reason: field(f, "reason").unwrap_or("").to_owned(),
            },
            true,
        ),
        "veto" => (
            Decision::Veto {
                id: id()?,
                reason: given(f, "reason").map(str::to_owned),
            },
            true,
        ),
        "unarchive" | "undo" => (Decision::Unarchive { id: id()? }, false),
        "renew" => (
            Decision::Renew {
                id: id()?,
                expires: None,
            },
            false,
        ),
        "expiry" => (
            Decision::Renew {
                id: id()?,
                expires: Some(
                    given(f, "expires")
                        .ok_or_else(|| missing("expires"))?
                        .to_owned(),
                ),
            },
            false,
        ),
        other => {
            return Err(Shown::transport(
                ErrorCode::InvalidRequest,
                format!("no such action: {other:?}"),
            ));
        }
    })
}

/// The store file a form was rendered from and the hash it carries.
fn rendered(f: &[(String, String)]) -> Result<(StoreFile, String), Shown> {
    if given(f, "action") == Some("save") {
        let (file, hash) = match given(f, "scope") {
            Some("user") => (StoreFile::User, "hash_user"),
            _ => (StoreFile::Memory, "hash_memory"),
        };
        return Ok((
            file,
            given(f, hash).ok_or_else(|| missing(hash))?.to_owned(),
        ));
    }
    let file = given(f, "store")
        .and_then(StoreFile::parse)
        .ok_or_else(|| missing("store"))?;
    Ok((
        file,
        given(f, "hash").ok_or_else(|| missing("hash"))?.to_owned(),
    ))
}

/// The one request a form makes: its decision, done only when its store
/// file is as rendered (checked by the library under the owner's lock).
fn request(f: &[(String, String)]) -> Result<(Request, bool), Shown> {
    let (decision, undo) = decision(f)?;
    let (file, sha256) = rendered(f)?;
    Ok((
        Request::Decide {
            file,
            sha256,
            decision,
        },
        undo,
    ))
}

/// Runs the form's action; nothing is done when its store file changed
/// since the page was rendered (`store_changed`).
fn act(store: &Store, who: &Who, f: &[(String, String)]) -> Result<Done, Shown> {
    let (request, undo) = request(f)?;
    let id = given(f, "id").map(str::to_owned);
    let (answer, words) = crate::ui::ask_said(store, who, request).map_err(|e| Shown::of(&e))?;
    let words = words.trim().to_owned();
    let undo = match &answer {
        Answer::Transition(t) if undo && t.status == Status::Archived => Some(t.id.clone()),
        _ if undo => id,
        _ => None,
    };
    Ok((words, undo))
}

/// `POST /ui/agents/{agent}/actions`: `303` to the agent's page, which
/// shows what the action did (and its Undo) or why nothing was done.
pub async fn post(
    State(ui): State<Arc<Ui>>,
    Path(agent): Path<String>,
    req: HttpRequest,
) -> Response {
    let back = format!("/ui/agents/{}", encode(&agent));
    let (l, f) = match posted_form(&ui, req, &back).await {
        Ok(posted) => posted,
        Err(r) => return r,
    };
    let u = ui.clone();
    let who = l.who(&agent);
    let done = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        act(&store, &who, &f)
    })
    .await;
    let said = match done {
        Ok((text, undo)) => Said::Done { text, undo },
        Err(e) => Said::Refused(e),
    };
    l.redirect(&ui, &back, said)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn each_action_is_the_decision_the_other_surfaces_send() {
        let (r, undo) = decision(&form(&[
            ("action", "veto"),
            ("id", "mem_1"),
            ("reason", ""),
        ]))
        .unwrap();
        assert_eq!(
            r,
            Decision::Veto {
                id: "mem_1".into(),
                reason: None
            }
        );
        assert!(undo);
        let (r, _) = decision(&form(&[("action", "undo"), ("id", "mem_1")])).unwrap();
        assert_eq!(r, Decision::Unarchive { id: "mem_1".into() });
        let (r, _) = decision(&form(&[
            ("action", "save"),
            ("text", "Tea"),
            ("scope", "user"),
        ]))
        .unwrap();
        assert_eq!(
            r,
            Decision::Write {
                op: Op::Add {
                    text: "Tea".into(),
                    scope: Scope::User,
                    expires: None,
                    supersedes: None
                }
            }
        );
        assert!(decision(&form(&[("action", "drop")])).is_err());
        assert!(decision(&form(&[("action", "archive")])).is_err());
        let (r, _) = request(&form(&[
            ("action", "veto"),
            ("id", "mem_1"),
            ("store", "memory"),
            ("hash", "ab"),
        ]))
        .unwrap();
        assert!(matches!(
            r,
            Request::Decide { file: StoreFile::Memory, ref sha256, .. } if sha256 == "ab"
        ));
    }

    #[test]
    fn a_form_names_the_file_it_was_rendered_from() {
        let f = form(&[
            ("action", "save"),
            ("scope", "user"),
            ("hash_user", "ab"),
            ("hash_memory", "cd"),
        ]);
        assert_eq!(rendered(&f).unwrap(), (StoreFile::User, "ab".to_owned()));
        let f = form(&[("action", "veto"), ("store", "archive"), ("hash", "ef")]);
        assert_eq!(rendered(&f).unwrap(), (StoreFile::Archive, "ef".to_owned()));
        assert!(
            rendered(&form(&[
                ("action", "veto"),
                ("store", "../x"),
                ("hash", "ef")
            ]))
            .is_err()
        );
    }
}
