//! MCP's standard streams, line by line and bounded: every line a client
//! sends gets an answer.
//!
//! rmcp's stdio transport drops a line that is not JSON (to avoid an error
//! storm with a peer that echoes) and one over its line limit (16 MiB), both
//! without a word, so a client whose `put_result` is near 16 MiB waits
//! forever. This front reads standard input itself, at most
//! [`MAX_LINE_BYTES`] a line, and hands rmcp only lines that are JSON; it
//! answers the others itself:
//!
//! * a line that is not JSON as rmcp's parser reads it — including JSON
//!   nested deeper than serde_json's recursion limit (128), a lone
//!   surrogate or a number out of range, which rmcp's parser refuses as a
//!   syntax error and drops —: JSON-RPC's parse error, `-32700`, id `null`
//!   (JSON-RPC 2.0, section 5.1: the id cannot be read);
//! * a line over the limit: `-32600` (invalid request) naming the limit
//!   (`data: {"limit": N}`), with the request's id when it can be read from
//!   the line's first [`ID_PREFIX_BYTES`] bytes, else `null`. The line is
//!   never held whole: past the limit it is skipped up to its newline.
//!
//! rmcp's answers and these go out through one writer, a whole line at a
//! time, so they never interleave.

use rmcp::RoleServer;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The longest line `memdir mcp` reads: 100 MiB. It admits a `put_result`
/// of any result under the default 16 MiB `max_result_bytes`, whatever its
/// bytes (JSON's widest escape, `\u00XX`, is six bytes a byte: 96 MiB), and
/// one at the 64 MiB ceiling whose escaping adds at most half again.
pub const MAX_LINE_BYTES: usize = 100 * 1024 * 1024;

/// How much of an over-limit line is kept to read its id from.
pub const ID_PREFIX_BYTES: usize = 4096;

/// Pipe buffers between this front and rmcp.
const PIPE_BYTES: usize = 1024 * 1024;

/// JSON-RPC's parse error.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's invalid request.
const INVALID_REQUEST: i64 = -32600;

/// What one bounded line read gave.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A whole line, newline included (the last one of the stream may lack it).
    Whole(Vec<u8>),
    /// A line over the limit: its first bytes, and its length.
    Over { prefix: Vec<u8>, bytes: u64 },
    /// The stream ended.
    End,
}

/// Reads one line of at most `limit` bytes (newline included).
async fn read_line<R: AsyncBufRead + Unpin>(r: &mut R, limit: usize) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut over: Option<u64> = None;
    loop {
        let available = r.fill_buf().await?;
        if available.is_empty() {
            return Ok(match over {
                Some(bytes) => Line::Over {
                    prefix: line,
                    bytes,
                },
                None if line.is_empty() => Line::End,
                None => Line::Whole(line),
            });
        }
        let newline = available.iter().position(|b| *b == b'\n');
        let take = newline.map_or(available.len(), |i| i + 1);
        match over.as_mut() {
            Some(bytes) => *bytes += take as u64,
            None if line.len() + take > limit => {
                over = Some((line.len() + take) as u64);
            }
            None => line.extend_from_slice(&available[..take]),
        }
        if over.is_some() {
            // Past the limit only the first bytes are kept, for the id.
            let keep = ID_PREFIX_BYTES.saturating_sub(line.len()).min(take);
            line.truncate(ID_PREFIX_BYTES);
            line.extend_from_slice(&available[..keep]);
        }
        r.consume(take);
        if newline.is_some() {
            return Ok(match over {
                Some(bytes) => Line::Over {
                    prefix: line,
                    bytes,
                },
                None => Line::Whole(line),
            });
        }
    }
}

/// Whether `line` is one JSON value that rmcp's parser reads (a
/// byte-order mark and blank space around it allowed, as rmcp allows
/// them): read as rmcp reads it, with serde_json's checks and limits —
/// nesting deeper than its recursion limit (128), a lone surrogate, a
/// number out of range are refused here as there — but nothing kept.
/// (`IgnoredAny` would skip a value without those checks, and rmcp would
/// then drop the line without a word.)
fn is_json(line: &[u8]) -> bool {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    serde_json::from_slice::<Checked>(line).is_ok()
}

/// A JSON value read whole and checked as `serde_json::Value` reads it
/// (through `deserialize_any`, each array and object counted against the
/// recursion limit), keeping nothing.
struct Checked;

impl<'de> serde::Deserialize<'de> for Checked {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Checked, D::Error> {
        d.deserialize_any(Checked)
    }
}

impl<'de> serde::de::Visitor<'de> for Checked {
    type Value = Checked;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_str<E>(self, _: &str) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_unit<E>(self) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        while map.next_entry::<Checked, Checked>()?.is_some() {}
        Ok(Checked)
    }
}

/// The top-level `"id"` of a JSON object's beginning, when its value (a
/// number or a string) is there whole; nested objects' ids are skipped.
fn id_of(prefix: &[u8]) -> Option<Value> {
    let text = String::from_utf8_lossy(prefix);
    let mut chars = text.char_indices().peekable();
    let mut depth = 0usize;
    // The last string closed at depth 1, and whether a `:` follows it.
    let mut key: Option<String> = None;
    while let Some((i, c)) = chars.next() {
        match c {
            '{' | '[' => {
                depth += 1;
                key = None;
            }
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                key = None;
            }
            '"' => {
                let start = i;
                let mut end = None;
                while let Some((j, c)) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => {
                            end = Some(j);
                            break;
                        }
                        _ => {}
                    }
                }
                let end = end?;
                if depth == 1 {
                    key = serde_json::from_str::<String>(&text[start..=end]).ok();
                }
            }
            ':' if depth == 1 && key.as_deref() == Some("id") => {
                let rest = text[i + 1..].trim_start();
                let mut de = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
                return match de.next()? {
                    Ok(v @ (Value::Number(_) | Value::String(_))) => {
                        // A number cut by the prefix's end is no id.
                        let after = rest[de.byte_offset()..].trim_start();
                        (!after.is_empty()).then_some(v)
                    }
                    _ => None,
                };
            }
            ':' | ',' => key = if c == ':' { key } else { None },
            _ => {}
        }
    }
    None
}

/// The answer to a line that is not JSON.
fn parse_error() -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": PARSE_ERROR, "message": "Parse error: the line is not JSON"},
    })
}

/// The answer to a line over [`MAX_LINE_BYTES`].
fn over_limit(prefix: &[u8], bytes: u64) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id_of(prefix),
        "error": {
            "code": INVALID_REQUEST,
            "message": format!(
                "the request is {bytes} bytes, over memdir mcp's line limit of \
                 {MAX_LINE_BYTES} bytes: nothing was done"
            ),
            "data": {"limit": MAX_LINE_BYTES, "bytes": bytes},
        },
    })
}

/// Copies `input`'s lines to `to_rmcp`, answering on `answers` those that
/// are not JSON or over the limit. Ends at the end of `input` (which closes
/// rmcp's side, and so the session) or when rmcp stops reading.
async fn front<R, W>(input: R, mut to_rmcp: W, answers: mpsc::Sender<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = BufReader::new(input);
    loop {
        let answer = match read_line(&mut input, MAX_LINE_BYTES).await {
            Ok(Line::End) | Err(_) => break,
            Ok(Line::Whole(line)) => {
                if line.trim_ascii().is_empty() || is_json(&line) {
                    let sent = to_rmcp.write_all(&line).await;
                    let ended = if line.ends_with(b"\n") {
                        Ok(())
                    } else {
                        to_rmcp.write_all(b"\n").await
                    };
                    if sent.and(ended).is_err() {
                        break;
                    }
                    continue;
                }
                tracing::warn!("memdir mcp: a line that is not JSON: answered -32700");
                parse_error()
            }
            Ok(Line::Over { prefix, bytes }) => {
                tracing::warn!("memdir mcp: a line of {bytes} bytes, over the line limit");
                over_limit(&prefix, bytes)
            }
        };
        let mut line = answer.to_string().into_bytes();
        line.push(b'\n');
        if answers.send(line).await.is_err() {
            break;
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// Copies rmcp's output lines to `answers`.
async fn from_rmcp<R: AsyncRead + Unpin>(out: R, answers: mpsc::Sender<Vec<u8>>) {
    let mut out = BufReader::new(out);
    loop {
        let mut line = Vec::new();
        match out.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if answers.send(line).await.is_err() {
                    break;
                }
            }
        }
    }
}

/// Writes each line of `answers` to `output` whole, flushed.
async fn writer<W: AsyncWrite + Unpin>(mut output: W, mut answers: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = answers.recv().await {
        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
            break;
        }
    }
}

/// rmcp's transport over `input` and `output` behind the bounded front
/// (see the module doc). Spawns the front's tasks on the current runtime.
pub fn transport<R, W>(
    input: R,
    output: W,
) -> AsyncRwTransport<RoleServer, tokio::io::DuplexStream, tokio::io::DuplexStream>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (rmcp_in, front_out) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_out, back_in) = tokio::io::duplex(PIPE_BYTES);
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(front(input, front_out, tx.clone()));
    tokio::spawn(from_rmcp(back_in, tx));
    tokio::spawn(writer(output, rx));
    // Every line that reaches rmcp is within the front's limit.
    AsyncRwTransport::new_server(rmcp_in, rmcp_out).with_max_line_length(MAX_LINE_BYTES + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_read_from_the_top_level_only() {
        let id = |s: &str| id_of(s.as_bytes());
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#),
            Some(json!(7))
        );
        assert_eq!(id(r#"{ "id" : "a\"b", "params":"#), Some(json!("a\"b")));
        // A nested id is not the request's; a value cut short is no id.
        assert_eq!(id(r#"{"params":{"id":3},"method":"#), None);
        assert_eq!(
            id(r#"{"method":"tools/call","params":{"arguments":{"id":1"#),
            None
        );
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":12"#), None);
        assert_eq!(id(r#"{"id":{"x":1},"#), None);
        assert_eq!(id("not json"), None);
        // A key whose value holds "id" as text is not the key.
        assert_eq!(id(r#"{"method":"id","id":5,"#), Some(json!(5)));
    }

    #[tokio::test]
    async fn lines_are_read_within_the_limit_and_skipped_past_it() {
        let data = b"{\"a\":1}\nxxxxxxxxxxxxxxxxxxxx\nlast".to_vec();
        let mut r = BufReader::with_capacity(4, &data[..]);
        assert_eq!(
            read_line(&mut r, 10).await.unwrap(),
            Line::Whole(b"{\"a\":1}\n".to_vec())
        );
        assert_eq!(
            read_line(&mut r, 10).await.unwrap(),
            Line::Over {
                prefix: b"xxxxxxxxxxxxxxxxxxxx\n".to_vec(),
                bytes: 21
            }
        );
        assert_eq!(
            read_line(&mut r, 10).await.unwrap(),
            Line::Whole(b"last".to_vec())
        );
        assert_eq!(read_line(&mut r, 10).await.unwrap(), Line::End);
        assert!(is_json(b"\xEF\xBB\xBF{\"a\": 1}\r\n"));
        assert!(!is_json(b"{\"a\": \n"));
    }

    #[test]
    fn json_is_what_rmcp_s_parser_reads() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        // serde_json's recursion limit: 127 levels read, 128 refused, as
        // rmcp reads them (into `Value`).
        for n in [1, 127, 128, 5000] {
            let line = nested(n);
            let value = serde_json::from_str::<Value>(&line).is_ok();
            assert_eq!(is_json(line.as_bytes()), value, "{n} levels");
            assert_eq!(value, n < 128, "{n} levels");
        }
        let objects = format!("{}1{}", r#"{"a":"#.repeat(200), "}".repeat(200));
        assert!(!is_json(objects.as_bytes()));
        for refused in [r#""\ud800""#, "[1e400]", "{\"a\":1,}"] {
            assert!(!is_json(refused.as_bytes()), "{refused}");
        }
        for taken in [r#"{"id":1,"k":[{"x":null},true,-1.5e3,"\u00e9"]}"#, "42"] {
            assert!(is_json(taken.as_bytes()), "{taken}");
        }
    }
}
