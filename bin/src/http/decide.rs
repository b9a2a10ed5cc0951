//! A person's decision over HTTP (a learning's approval, rejection or
//! retirement; a waiting write's approval or rejection), one way for every
//! such route: the body parsed, the key checked, and only then the request
//! made, so that what the caller may not do is refused before what its
//! body lacks.

use axum::body::Bytes;
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::types::{Caller, Error};
use memdir::api::{self, Request, render};
use serde::de::DeserializeOwned;

use super::answer::{ok, parse};
use super::{App, Fail};

/// Runs a decision: `body` parsed as `B` (`action` names it in a refusal),
/// the agent it acts on taken from it by `agent`, and the request made by
/// `make` once the caller is known; answered `200` with the library's
/// answer.
pub(super) async fn decide<B: DeserializeOwned + Send + 'static>(
    app: App,
    headers: HeaderMap,
    action: &'static str,
    body: &Bytes,
    agent: impl FnOnce(&B) -> Option<String>,
    make: impl FnOnce(B, &Caller) -> Result<Request, Error> + Send + 'static,
) -> Result<Response, Fail> {
    let b: B = parse(action, body)?;
    let agent = agent(&b);
    let v = app
        .call(headers, agent, move |store, who| {
            let request = make(b, &who.caller)?;
            Ok(render::json(&api::execute(store, who, request)?))
        })
        .await?;
    ok(200, v)
}

/// A rejection's reason, which a person must give: an agent's key is
/// passed on with none, to be refused for what it is (`person_only`, by
/// the library, which checks the caller before the reason), not for the
/// reason it left out.
pub(super) fn rejection_reason(reason: Option<String>, caller: &Caller) -> Result<String, Error> {
    match reason {
        Some(reason) => Ok(reason),
        None if !caller.is_person() => Ok(String::new()),
        None => Err(Error::Required {
            what: "reason",
            action: "reject",
        }),
    }
}
