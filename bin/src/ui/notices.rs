//! One-time notices: what a form's `POST` has to say — what it did (the
//! command line's words, and the entry an Undo brings back) or why nothing
//! was done (an error with its code and hint) — kept in memory for the
//! page its `303 See Other` leads to. Every form of the dashboard answers
//! with a redirect (POST-redirect-GET), so reloading the page it leads to
//! never posts the form again.
//!
//! A notice belongs to whoever posted: a session (its id), or, before a
//! login, the login form's token (its cookie, set afresh on the redirect).
//! The redirect names it in the query (`?notice=ID`, 16 hex digits of its
//! own); the page shows it to the same holder only, and once. Nothing of
//! the query is ever shown: an id names one of the holder's notices or
//! nothing, so a link cannot make a page say forged text.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::http::{HeaderValue, header};
use axum::response::Response;

use super::session::token;
use super::{Shown, Ui, field, fields, see_other};

/// How long a notice waits for its page.
pub const LIVE: Duration = Duration::from_secs(10 * 60);
/// The most notices kept for one holder (past it, the oldest goes).
pub const PER_HOLDER: usize = 8;
/// The most holders whose notices are kept (past it, the one whose newest
/// notice is oldest goes).
pub const MAX_HOLDERS: usize = 10_000;
/// The hex digits of a notice's id.
const ID_HEX: usize = 16;

/// What a form had to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    /// It was done: the command line's words, and the entry an Undo
    /// brings back (after an archive or a veto).
    Done {
        /// What was done.
        text: String,
        /// The entry an Undo brings back.
        undo: Option<String>,
    },
    /// Nothing was done: why.
    Refused(Shown),
}

impl Said {
    /// What was done, in words.
    pub fn done(text: impl Into<String>) -> Said {
        Said::Done {
            text: text.into(),
            undo: None,
        }
    }

    /// What a page shows of it: the words of what was done (with the
    /// entry to undo), or the error.
    pub fn parts(said: Option<Said>) -> (Option<(String, Option<String>)>, Option<Shown>) {
        match said {
            Some(Said::Done { text, undo }) => (Some((text, undo)), None),
            Some(Said::Refused(e)) => (None, Some(e)),
            None => (None, None),
        }
    }

    /// The words of what was done, or the error (an Undo dropped: only
    /// the agent's page offers one).
    pub fn words(said: Option<Said>) -> (Option<String>, Option<Shown>) {
        let (done, error) = Said::parts(said);
        (done.map(|(text, _)| text), error)
    }
}

#[derive(Debug)]
struct Kept {
    id: String,
    said: Said,
    at: Instant,
}

/// The notices waiting for their pages, by holder.
#[derive(Debug, Default)]
pub struct Notices {
    map: Mutex<HashMap<String, VecDeque<Kept>>>,
}

impl Notices {
    /// Keeps `said` for `holder`: the id that names it (`None` when no
    /// random bytes came from the OS: the page then says nothing).
    pub fn put(&self, holder: &str, said: Said) -> Option<String> {
        let id: String = token()?.chars().take(ID_HEX).collect();
        let now = Instant::now();
        let mut map = self.map.lock().ok()?;
        if !map.contains_key(holder) && map.len() >= MAX_HOLDERS {
            map.retain(|_, q| q.back().is_some_and(|k| now.duration_since(k.at) < LIVE));
            if map.len() >= MAX_HOLDERS
                && let Some(oldest) = map
                    .iter()
                    .min_by_key(|(_, q)| q.back().map(|k| k.at))
                    .map(|(h, _)| h.clone())
            {
                map.remove(&oldest);
            }
        }
        let q = map.entry(holder.to_owned()).or_default();
        q.retain(|k| now.duration_since(k.at) < LIVE);
        while q.len() >= PER_HOLDER {
            q.pop_front();
        }
        q.push_back(Kept {
            id: id.clone(),
            said,
            at: now,
        });
        Some(id)
    }

    /// The notice `id` of `holder`, taken (a page shows it once); none
    /// when it is another holder's, gone, or never was.
    pub fn take(&self, holder: &str, id: &str) -> Option<Said> {
        let mut map = self.map.lock().ok()?;
        let q = map.get_mut(holder)?;
        let at = q.iter().position(|k| super::session::same(&k.id, id))?;
        let kept = q.remove(at)?;
        if q.is_empty() {
            map.remove(holder);
        }
        (kept.at.elapsed() < LIVE).then_some(kept.said)
    }
}

/// The notice id a query string names (`notice=`, 16 hex digits), if it
/// is of that form.
pub fn named(query: Option<&str>) -> Option<String> {
    let q = fields(query.unwrap_or_default().as_bytes());
    field(&q, "notice")
        .filter(|id| id.len() == ID_HEX && id.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_owned)
}

/// `to` (a path of ours) naming the notice `id`.
fn with_notice(to: &str, id: Option<String>) -> String {
    match id {
        Some(id) if to.contains('?') => format!("{to}&notice={id}"),
        Some(id) => format!("{to}?notice={id}"),
        None => to.to_owned(),
    }
}

/// The answer to a form of a session: `303` to the page `to` (a path of
/// ours), `said` kept for the session `holder` and named in the query.
pub fn redirect(ui: &Ui, holder: &str, to: &str, said: Said) -> Response {
    see_other(&with_notice(to, ui.notices.put(holder, said)))
}

/// The answer to a form posted without a session (a login page's, or a
/// session's form after it ended): `303` to the page `to` (a path of ours),
/// `said` kept for a fresh login token set in the login form's cookie.
pub fn redirect_anonymous(ui: &Ui, to: &str, said: Said) -> Response {
    let Some(t) = token() else {
        return see_other(to);
    };
    let mut r = see_other(&with_notice(to, ui.notices.put(&t, said)));
    if let Ok(v) = HeaderValue::from_str(&ui.login_cookie(&t)) {
        r.headers_mut().append(header::SET_COOKIE, v);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_is_its_holder_s_and_taken_once() {
        let n = Notices::default();
        let id = n.put("s1", Said::done("archived mem_1")).unwrap();
        assert_eq!(id.len(), ID_HEX);
        assert_eq!(n.take("s2", &id), None, "another holder's");
        assert_eq!(n.take("s1", "0000000000000000"), None);
        assert_eq!(n.take("s1", &id), Some(Said::done("archived mem_1")));
        assert_eq!(n.take("s1", &id), None, "once");
    }

    #[test]
    fn a_holder_keeps_its_newest_notices_and_holders_are_bounded() {
        let n = Notices::default();
        let ids: Vec<String> = (0..PER_HOLDER + 2)
            .map(|i| n.put("s", Said::done(format!("n{i}"))).unwrap())
            .collect();
        assert_eq!(n.take("s", &ids[0]), None);
        assert_eq!(n.take("s", &ids[1]), None);
        assert_eq!(n.take("s", &ids[2]), Some(Said::done("n2")));
        let first = n.put("h0", Said::done("first")).unwrap();
        for i in 1..=MAX_HOLDERS {
            n.put(&format!("h{i}"), Said::done("x")).unwrap();
        }
        assert!(n.map.lock().unwrap().len() <= MAX_HOLDERS);
        assert_eq!(n.take("h0", &first), None, "the oldest holder went");
    }

    #[test]
    fn only_an_id_of_its_form_is_read_from_the_query() {
        assert_eq!(
            named(Some("a=1&notice=0123456789abcdef")).as_deref(),
            Some("0123456789abcdef")
        );
        assert_eq!(named(Some("notice=%3Cb%3E")), None);
        assert_eq!(named(Some("notice=archived+mem_1")), None);
        assert_eq!(named(None), None);
        assert_eq!(
            with_notice("/ui/agents/a", Some("ab".into())),
            "/ui/agents/a?notice=ab"
        );
        assert_eq!(
            with_notice("/ui/?x=1", Some("ab".into())),
            "/ui/?x=1&notice=ab"
        );
    }
}
