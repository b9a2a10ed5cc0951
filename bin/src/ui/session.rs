//! The dashboard's sessions: a person logs in with a person's key (an
//! agent's key is refused), or with a one-time login link
//! (`memdir --person ID ui`), and gets a cookie naming a session kept in
//! this server's memory only (a restart logs everyone out). A session ends
//! 30 minutes after its last request, 12 hours after its login, at logout,
//! and, logged in with a key, as soon as its key is no longer in the keys
//! file (checked on every request). Its id and its CSRF token are 256
//! random bits from the OS. Login attempts (keys and links) are limited
//! per client address.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a session lives without a request, unless `memdir serve
/// --ui-idle` says otherwise.
pub const IDLE: Duration = Duration::from_secs(30 * 60);
/// How long a session lives at most.
pub const ABSOLUTE: Duration = Duration::from_secs(12 * 60 * 60);
/// The most sessions kept at once (past it, the oldest goes).
pub const MAX_SESSIONS: usize = 10_000;
/// Login attempts a client address may make per [`ATTEMPT_WINDOW`].
pub const MAX_ATTEMPTS: usize = 10;
/// The window login attempts are counted in.
pub const ATTEMPT_WINDOW: Duration = Duration::from_secs(60);
/// The most client addresses whose attempts are remembered.
const MAX_CLIENTS: usize = 100_000;

/// 256 random bits from the OS, as 64 hex digits; `None` if the OS gives
/// none (then no session is made).
pub fn token() -> Option<String> {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).ok()?;
    Some(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Whether two tokens are equal, in time that does not depend on where
/// they differ.
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// One logged-in person.
#[derive(Debug, Clone)]
pub struct Session {
    /// The person's id (the key's subject).
    pub person: String,
    /// The key they logged in with, checked against the keys file on every
    /// request: a revoked key ends the session. `None`: logged in with a
    /// one-time login link (used up at the login).
    pub key: Option<String>,
    /// The token every form of this session carries.
    pub csrf: String,
    created: Instant,
    last: Instant,
}

impl Session {
    fn live(&self, now: Instant, idle: Duration) -> bool {
        now.duration_since(self.created) < ABSOLUTE && now.duration_since(self.last) < idle
    }
}

/// The sessions, by id.
#[derive(Debug)]
pub struct Sessions {
    map: Mutex<HashMap<String, Session>>,
    /// How long a session lives without a request.
    idle: Duration,
}

impl Default for Sessions {
    fn default() -> Sessions {
        Sessions::new(IDLE)
    }
}

impl Sessions {
    /// No session yet; each lives `idle` without a request (and
    /// [`ABSOLUTE`] at most).
    pub fn new(idle: Duration) -> Sessions {
        Sessions {
            map: Mutex::default(),
            idle,
        }
    }

    /// A new session for `person` logged in with `key` (`None`: with a
    /// login link): its id (the cookie's value) and the session.
    pub fn create(&self, person: &str, key: Option<&str>) -> Option<(String, Session)> {
        let (id, csrf) = (token()?, token()?);
        let now = Instant::now();
        let s = Session {
            person: person.to_owned(),
            key: key.map(str::to_owned),
            csrf,
            created: now,
            last: now,
        };
        let mut map = self.map.lock().ok()?;
        let idle = self.idle;
        map.retain(|_, s| s.live(now, idle));
        if map.len() >= MAX_SESSIONS
            && let Some(oldest) = map
                .iter()
                .min_by_key(|(_, s)| s.created)
                .map(|(k, _)| k.clone())
        {
            map.remove(&oldest);
        }
        map.insert(id.clone(), s.clone());
        Some((id, s))
    }

    /// The live session `id` names, its idle time restarted; an expired
    /// one is ended.
    pub fn touch(&self, id: &str) -> Option<Session> {
        let now = Instant::now();
        let mut map = self.map.lock().ok()?;
        let s = map.get_mut(id)?;
        if !s.live(now, self.idle) {
            map.remove(id);
            return None;
        }
        s.last = now;
        Some(s.clone())
    }

    /// Ends the session `id`.
    pub fn end(&self, id: &str) {
        if let Ok(mut map) = self.map.lock() {
            map.remove(id);
        }
    }

    /// Ends every session logged in with `key` (it was revoked).
    pub fn end_key(&self, key: &str) {
        if let Ok(mut map) = self.map.lock() {
            map.retain(|_, s| !s.key.as_deref().is_some_and(|k| same(k, key)));
        }
    }

    /// How many sessions are live.
    pub fn len(&self) -> usize {
        let now = Instant::now();
        self.map
            .lock()
            .map_or(0, |m| m.values().filter(|s| s.live(now, self.idle)).count())
    }

    /// Whether no session is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Login attempts per client address, in a sliding window.
#[derive(Debug, Default)]
pub struct Attempts {
    map: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
}

impl Attempts {
    /// Counts an attempt of `ip`: `false` when it is past
    /// [`MAX_ATTEMPTS`] in the last [`ATTEMPT_WINDOW`] (refused: 429).
    pub fn allow(&self, ip: IpAddr) -> bool {
        let now = Instant::now();
        let Ok(mut map) = self.map.lock() else {
            return false;
        };
        if map.len() >= MAX_CLIENTS {
            map.retain(|_, q| {
                q.back()
                    .is_some_and(|t| now.duration_since(*t) < ATTEMPT_WINDOW)
            });
        }
        let q = map.entry(ip).or_default();
        while q
            .front()
            .is_some_and(|t| now.duration_since(*t) >= ATTEMPT_WINDOW)
        {
            q.pop_front();
        }
        if q.len() >= MAX_ATTEMPTS {
            return false;
        }
        q.push_back(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_hex_and_compared_whole() {
        let (a, b) = (token().unwrap(), token().unwrap());
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert!(same(&a, &a.clone()));
        assert!(!same(&a, &b));
        assert!(!same(&a, &a[..63]));
    }

    #[test]
    fn a_session_is_found_until_it_ends() {
        let s = Sessions::default();
        let (id, sess) = s.create("ann", Some("mdk_1")).unwrap();
        assert_eq!(s.touch(&id).unwrap().csrf, sess.csrf);
        assert!(s.touch("nope").is_none());
        s.end(&id);
        assert!(s.touch(&id).is_none());
        let (id2, _) = s.create("ann", Some("mdk_2")).unwrap();
        let (id3, _) = s.create("ann", None).unwrap();
        s.end_key("mdk_2");
        assert!(s.touch(&id2).is_none());
        assert!(
            s.touch(&id3).is_some(),
            "a link's session has no key to revoke"
        );
        s.end(&id3);
        assert!(s.is_empty());
    }

    #[test]
    fn a_session_idle_past_its_timeout_ends() {
        let s = Sessions::new(Duration::from_millis(50));
        let (id, _) = s.create("ann", Some("mdk_1")).unwrap();
        assert!(s.touch(&id).is_some());
        std::thread::sleep(Duration::from_millis(80));
        assert!(s.touch(&id).is_none());
        assert!(s.is_empty());
    }

    #[test]
    fn the_eleventh_attempt_in_a_minute_is_refused() {
        let a = Attempts::default();
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        for _ in 0..MAX_ATTEMPTS {
            assert!(a.allow(ip));
        }
        assert!(!a.allow(ip));
        assert!(a.allow("127.0.0.2".parse().unwrap()));
    }
}
