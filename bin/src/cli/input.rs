//! Reading standard input (or a file): the command line's transport of a
//! batch, a skill and a result's content.

use std::io::Read;
use std::path::{Path, PathBuf};

use memdir::api::types::{Error, PutOptions, Store};
use memdir::api::{self, Response, Who};

/// Reads all of standard input as text (a batch).
pub(super) fn read_stdin() -> Result<String, Error> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|source| Error::Io {
            path: PathBuf::from("<stdin>"),
            op: "read",
            source,
        })?;
    Ok(input)
}

/// A result's content: `file` opened, else standard input; with its name
/// for messages.
fn open_content(file: Option<&Path>) -> Result<(Box<dyn Read>, PathBuf), Error> {
    Ok(match file {
        Some(p) => (
            Box::new(std::fs::File::open(p).map_err(|source| Error::Io {
                path: p.to_owned(),
                op: "open",
                source,
            })?),
            p.to_owned(),
        ),
        None => (Box::new(std::io::stdin().lock()), PathBuf::from("<stdin>")),
    })
}

/// Stores a result read from `file`, else standard input, as it arrives
/// (see [`api::put_result_from`]). Past the limit, the rest is read and
/// counted, so the refusal gives the content's exact size.
pub(super) fn put_streamed(
    store: &Store,
    who: &Who,
    ids: (&str, &str),
    options: &PutOptions,
    file: Option<&Path>,
) -> Result<memdir::api::guard::Guarded<Response>, Error> {
    let (mut reader, name) = open_content(file)?;
    let source = name.display().to_string();
    match api::put_result_from(store, who, ids, options, &mut reader, &source) {
        Err(Error::ResultTooLarge { bytes, limit }) => {
            let rest =
                std::io::copy(&mut reader, &mut std::io::sink()).map_err(|source| Error::Io {
                    path: name.clone(),
                    op: "read",
                    source,
                })?;
            Err(Error::ResultTooLarge {
                bytes: bytes + rest,
                limit,
            })
        }
        other => other,
    }
}

/// Reads a result's content, refusing (with its exact size) more than
/// `limit` bytes without holding more than `limit` + 1 in memory.
pub(super) fn read_content(file: Option<&Path>, limit: u64) -> Result<Vec<u8>, Error> {
    let (mut reader, name) = open_content(file)?;
    let io_err = |source| Error::Io {
        path: name.clone(),
        op: "read",
        source,
    };
    let mut content = Vec::new();
    (&mut reader)
        .take(limit.saturating_add(1))
        .read_to_end(&mut content)
        .map_err(io_err)?;
    if content.len() as u64 > limit {
        let rest = std::io::copy(&mut reader, &mut std::io::sink()).map_err(io_err)?;
        return Err(Error::ResultTooLarge {
            bytes: content.len() as u64 + rest,
            limit,
        });
    }
    Ok(content)
}
