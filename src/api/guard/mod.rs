//! The one door between the files and an agent: every answer the interface
//! gives an agent passes the scanner here, and leaves only as a type this
//! module alone constructs.
//!
//! * [`Guarded<T>`]: an answer whose every file-derived text was guarded
//!   (a flagged text replaced by its `[BLOCKED: …]` placeholder naming
//!   where it is and what it matched; ids, dates and counts kept, so the
//!   caller can still remove what was blocked). [`super::execute`] answers
//!   with `Guarded<Response>`, made by `response::guard`, an exhaustive
//!   `match` over every [`Response`] variant (no wildcard arm: a new
//!   variant does not compile until it is guarded).
//! * [`AgentText`] and [`AgentJson`]: what an adapter may write to an agent
//!   (an MCP tool result or resource, an HTTP body, the command line's
//!   standard output). They are made only from a `Guarded` answer (by a
//!   plain `fn` pointer, which cannot capture unguarded text), from the
//!   program's own words (`&'static str`), or by passing the scanner
//!   ([`AgentText::checked`]).
//! * Errors reach an agent only through `guard::error`: their messages and
//!   details pass the scanner when rendered.
//! * [`PersonAnswer`] and [`PersonText`]: the one exit for raw text, a
//!   person's explicit `--raw` / `?raw=true` ([`super::raw`]); nothing on an
//!   agent's path produces them.
//!
//! Pure: no I/O.

pub(crate) mod error;
mod response;
mod store;

use std::borrow::Cow;
use std::ops::Deref;

use serde_json::Value;

use super::Response;
use crate::scan;

pub(crate) use response::guard;

/// `check`'s findings for a stream (`memdir watch`), guarded.
pub(crate) fn guard_findings(report: &mut crate::store::CheckReport) {
    store::check(report);
}

/// An answer every file-derived text of which passed the guard; only this
/// module makes one. Read through `Deref`.
#[derive(Debug, Clone, PartialEq)]
pub struct Guarded<T>(T);

impl<T> Deref for Guarded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> Guarded<T> {
    /// A part of a guarded answer, still guarded (a plain `fn` pointer
    /// picks it, so nothing unguarded comes in).
    pub fn part<U: Clone>(&self, f: fn(&T) -> &U) -> Guarded<U> {
        Guarded(f(&self.0).clone())
    }
}

impl<T> Guarded<T> {
    /// The guarded value, owned: for a surface that shows it to a person
    /// (the dashboard's pages, whose templates escape it). Its text is
    /// still the guarded text; a sink to an agent takes only
    /// [`AgentText`] or [`AgentJson`].
    pub fn into_inner(self) -> T {
        self.0
    }
}

/// Marks `t` guarded: for this module's own guards only.
fn guarded<T>(t: T) -> Guarded<T> {
    Guarded(t)
}

/// Values that carry no file-derived text: what an adapter may pass beside
/// a guarded answer to [`AgentText::from_guarded_with`].
pub trait Plain: Copy + private::Sealed {}

mod private {
    /// Seals [`super::Plain`].
    pub trait Sealed {}
}

macro_rules! plain {
    ($($t:ty),*) => {$(
        impl private::Sealed for $t {}
        impl Plain for $t {}
    )*};
}
plain!(
    bool,
    u8,
    u16,
    u32,
    u64,
    usize,
    crate::model::Scope,
    Option<crate::model::Scope>,
    &'static str
);

/// Text an agent may read: made from a guarded answer, from the program's
/// own words, or by the scanner. Bytes, since a JSON or binary result is
/// given byte-exact (its flagged spans named beside it).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AgentText(Vec<u8>);

impl AgentText {
    /// Text an adapter shapes from a guarded answer.
    pub fn from_guarded<T>(g: &Guarded<T>, f: fn(&T) -> String) -> AgentText {
        AgentText(f(&g.0).into_bytes())
    }

    /// [`AgentText::from_guarded`] with a plain value beside (a flag, a
    /// surface, a store).
    pub fn from_guarded_with<T, A: Plain>(
        g: &Guarded<T>,
        a: A,
        f: fn(&T, A) -> String,
    ) -> AgentText {
        AgentText(f(&g.0, a).into_bytes())
    }

    /// The program's own words.
    pub fn program(text: &'static str) -> AgentText {
        AgentText(text.as_bytes().to_vec())
    }

    /// Any text, through the scanner: each flagged line (or the whole,
    /// flagged only whole) replaced by its placeholder naming `what`.
    pub fn checked(text: &str, what: &str) -> AgentText {
        AgentText(
            scan::blocked_lines(text, what)
                .unwrap_or_else(|| text.to_owned())
                .into_bytes(),
        )
    }

    /// Text made here, from guarded parts.
    pub(in crate::api) fn made(bytes: Vec<u8>) -> AgentText {
        AgentText(bytes)
    }

    /// Appends another agent text.
    pub fn push(&mut self, more: &AgentText) {
        self.0.extend_from_slice(&more.0);
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The text (invalid UTF-8 replaced).
    pub fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.0)
    }

    /// Whether there is nothing.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A JSON answer an agent may read: made from a guarded answer.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentJson(Value);

impl AgentJson {
    /// JSON an adapter shapes from a guarded answer.
    pub fn from_guarded<T>(g: &Guarded<T>, f: fn(&T) -> Value) -> AgentJson {
        AgentJson(f(&g.0))
    }

    /// The program's own JSON: every string in it passes the scanner
    /// (`what` naming the answer in a placeholder).
    pub fn checked(mut v: Value, what: &str) -> AgentJson {
        error::guard_value(&mut v, what);
        AgentJson(v)
    }

    /// The value.
    pub fn value(&self) -> &Value {
        &self.0
    }

    /// The value, to send.
    pub fn into_value(self) -> Value {
        self.0
    }
}

/// An answer as the files hold it, for a person who asked for the raw text
/// on purpose ([`super::raw`]); never made on an agent's path.
#[derive(Debug, Clone, PartialEq)]
pub struct PersonAnswer(Response);

impl PersonAnswer {
    /// Made by [`super::raw`] only.
    pub(in crate::api) fn new(r: Response) -> PersonAnswer {
        PersonAnswer(r)
    }
}

impl PersonAnswer {
    /// The raw answer, owned, for the person's page that shows it.
    pub fn into_inner(self) -> Response {
        self.0
    }
}

impl Deref for PersonAnswer {
    type Target = Response;
    fn deref(&self) -> &Response {
        &self.0
    }
}

/// Raw text for a person who asked for it (`--raw`, `?raw=true`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PersonText(Vec<u8>);

impl PersonText {
    /// Made by the renderers of a [`PersonAnswer`].
    pub(in crate::api) fn made(bytes: Vec<u8>) -> PersonText {
        PersonText(bytes)
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Raw JSON for a person who asked for it.
#[derive(Debug, Clone, PartialEq)]
pub struct PersonJson(Value);

impl PersonJson {
    /// Made by the renderers of a [`PersonAnswer`].
    pub(in crate::api) fn made(v: Value) -> PersonJson {
        PersonJson(v)
    }

    /// The value, to send.
    pub fn into_value(self) -> Value {
        self.0
    }
}

/// A JSON answer on its way to a caller: guarded for everyone, raw only for
/// a person who asked ([`super::json_answer`]).
#[derive(Debug, Clone, PartialEq)]
pub enum JsonAnswer {
    /// Guarded.
    Agent(AgentJson),
    /// A person's raw read.
    Person(PersonJson),
}

impl From<AgentJson> for JsonAnswer {
    fn from(j: AgentJson) -> JsonAnswer {
        JsonAnswer::Agent(j)
    }
}

impl From<PersonJson> for JsonAnswer {
    fn from(j: PersonJson) -> JsonAnswer {
        JsonAnswer::Person(j)
    }
}

impl JsonAnswer {
    /// The value, to read.
    pub fn value(&self) -> &Value {
        match self {
            JsonAnswer::Agent(j) => &j.0,
            JsonAnswer::Person(j) => &j.0,
        }
    }

    /// The value, to send.
    pub fn into_value(self) -> Value {
        match self {
            JsonAnswer::Agent(j) => j.into_value(),
            JsonAnswer::Person(j) => j.into_value(),
        }
    }
}

/// Replaces `text` by its placeholder when the scanner flags it.
fn text(text: &mut String, what: &str) {
    if let Some(p) = scan::blocked_text(text, what) {
        *text = p;
    }
}

/// An optional value: [`text`].
fn opt(value: &mut Option<String>, what: &str) {
    if let Some(v) = value {
        text(v, what);
    }
}

/// A text of several lines: each flagged line replaced.
fn lines(t: &mut String, what: &str) {
    if let Some(p) = scan::blocked_lines(t, what) {
        *t = p;
    }
}

/// Every string of a list: [`text`], `what` numbered.
fn all(list: &mut [String], what: &str) {
    for (i, s) in list.iter_mut().enumerate() {
        text(s, &format!("{what} {}", i + 1));
    }
}

#[cfg(test)]
mod tests;
