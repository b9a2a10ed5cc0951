//! A person's word on the command line (docs/SECURITY.md, Persons): a
//! command run as a person (`--person`) acts only once the person confirms
//! it on the controlling terminal — `/dev/tty`, opened here, never standard
//! input or output, which an agent's tool shell holds — or names a
//! person's key file (`--key-file`) that the account's own keys file
//! knows. Without a controlling terminal (a process started without one,
//! or under `setsid`) and without a key file, nothing is done
//! (`person_unconfirmed`). No answer is kept: every command asks again.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use memdir::api::types::{Caller, Error, Store, Unconfirmed};
use memdir::api::{Request, Who, person};

/// The controlling terminal of the process, whatever its standard streams
/// are.
const TERMINAL: &str = "/dev/tty";
/// The most bytes of an answer read from the terminal.
const ANSWER_BYTES: usize = 256;

/// A person's command before the person's word: the person named (none
/// when only a key file names one), the owner named, `--raw`, and the key
/// file if one is named.
#[derive(Debug)]
pub struct Asked {
    person: Option<String>,
    named: Option<String>,
    raw: bool,
    key_file: Option<PathBuf>,
}

/// How a person's command was confirmed, or why it was not: decided here
/// on this type, never on a message.
#[derive(Debug)]
enum Confirm {
    /// The person answered yes on the controlling terminal.
    Terminal,
    /// The key file holds a live key of this person (the person's id).
    KeyFile(String),
    /// Neither: nothing is done.
    Refused(Unconfirmed),
}

impl Asked {
    /// A person's command as the options name it.
    pub(super) fn new(
        person: Option<String>,
        named: Option<String>,
        raw: bool,
        key_file: Option<PathBuf>,
    ) -> Asked {
        Asked {
            person,
            named,
            raw,
            key_file,
        }
    }

    /// The person's [`Who`] once the person's word is given for `request`
    /// (`None` for a command that is no request): the key file's person
    /// where one is named, else the person's yes on the controlling
    /// terminal, asked with the action and what it names
    /// ([`person::question`]). Otherwise `person_unconfirmed`.
    pub fn confirm(self, store: &Store, request: Option<&Request>) -> Result<Who, Error> {
        let confirmed = match &self.key_file {
            Some(file) => self.by_key_file(store, file)?,
            None => self.on_terminal(store, request)?,
        };
        let person = match confirmed {
            Confirm::Terminal => self.person.unwrap_or_default(),
            Confirm::KeyFile(person) => person,
            Confirm::Refused(why) => {
                return Err(Error::PersonUnconfirmed {
                    person: self.person.unwrap_or_default(),
                    why,
                });
            }
        };
        Ok(Who {
            caller: Caller::Person(person),
            named: self.named,
            raw: self.raw,
        })
    }

    /// The person of the key file `file`, checked against the account's
    /// keys file by the library.
    fn by_key_file(&self, store: &Store, file: &Path) -> Result<Confirm, Error> {
        person::key_file(store, file, self.person.as_deref()).map(Confirm::KeyFile)
    }

    /// Asks on the controlling terminal: refused when there is none (or it
    /// cannot be written), confirmed only by a yes.
    fn on_terminal(&self, store: &Store, request: Option<&Request>) -> Result<Confirm, Error> {
        let Some(name) = &self.person else {
            return Ok(Confirm::Refused(Unconfirmed::NoTerminal));
        };
        let opened = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(TERMINAL);
        let Ok(mut tty) = opened else {
            return Ok(Confirm::Refused(Unconfirmed::NoTerminal));
        };
        // What the question shows is read as the person would read it;
        // the person acts only on a yes below.
        let asking = Who {
            caller: Caller::Person(name.clone()),
            named: self.named.clone(),
            raw: false,
        };
        let question = person::question(store, &asking, request, &command_line())?;
        if tty
            .write_all(question.text().as_bytes())
            .and_then(|()| tty.flush())
            .is_err()
        {
            return Ok(Confirm::Refused(Unconfirmed::NoTerminal));
        }
        Ok(if person::is_yes(&read_answer(&mut tty)) {
            Confirm::Terminal
        } else {
            Confirm::Refused(Unconfirmed::Declined)
        })
    }
}

/// One line read from the terminal: up to its line feed, the end of input
/// or [`ANSWER_BYTES`], whichever comes first (what is past it is left).
fn read_answer(tty: &mut impl Read) -> String {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.len() < ANSWER_BYTES {
        match tty.read(&mut byte) {
            Ok(1) if byte[0] != b'\n' => line.push(byte[0]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&line).into_owned()
}

/// The command line as the question shows it: `memdir` and its words, a
/// word with a blank (or none at all) in single quotes.
fn command_line() -> String {
    let words = std::env::args_os().skip(1).map(|w| {
        let w = w.to_string_lossy().into_owned();
        if w.is_empty() || w.chars().any(char::is_whitespace) || w.contains('\'') {
            format!("'{}'", w.replace('\'', r"'\''"))
        } else {
            w
        }
    });
    std::iter::once("memdir".to_owned())
        .chain(words)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_one_bounded_line() {
        let mut input: &[u8] = b"yes\nmore";
        assert_eq!(read_answer(&mut input), "yes");
        let mut empty: &[u8] = b"";
        assert_eq!(read_answer(&mut empty), "");
        let long = vec![b'y'; ANSWER_BYTES * 2];
        let mut long: &[u8] = &long;
        assert_eq!(read_answer(&mut long).len(), ANSWER_BYTES);
    }
}
