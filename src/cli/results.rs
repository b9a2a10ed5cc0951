//! `memdir result put|get|wait`: SharedMemory task results.
//!
//! `get` with a task and `wait` print the content raw (byte for byte) on
//! standard output; with `--json` they print one object whose `content` is
//! the content as a string when it is UTF-8, else `null` with the bytes in
//! `content_base64` (standard alphabet, padded). Warnings (such as a rebuilt
//! index) go to standard error. `put` reads at most the owner's
//! `max_result_bytes` + 1 bytes into memory: past the limit it answers
//! `result_too_large` with the content's full size.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Duration;

use base64::Engine as _;
use clap::Subcommand;
use memdir::{Error, Owner, PutOutcome, TaskResult, WorkflowResults};
use serde_json::{Value, json};

/// SharedMemory commands.
#[derive(Debug, Subcommand)]
pub enum ResultCommand {
    /// Store a task's result (from --file, else standard input), up to
    /// `max_result_bytes` from memdir.yaml (default 16 MiB).
    Put {
        /// The workflow (run) id.
        workflow: String,
        /// The task id.
        task: String,
        /// The content's MIME type.
        #[arg(long = "type", value_name = "MIME", default_value = "text/plain")]
        content_type: String,
        /// Read the content from this file instead of standard input.
        #[arg(long, value_name = "F")]
        file: Option<PathBuf>,
        /// Replace a different result stored under the same ids.
        #[arg(long)]
        overwrite: bool,
    },
    /// Print a task's result, or without TASK the workflow's steps.
    Get {
        /// The workflow (run) id.
        workflow: String,
        /// The task id (omit to list the workflow's steps).
        task: Option<String>,
    },
    /// Wait until a task's result is stored, then print it (exit 3 on timeout).
    Wait {
        /// The workflow (run) id.
        workflow: String,
        /// The task id.
        task: String,
        /// How long to wait, in seconds.
        #[arg(long, value_name = "S", default_value_t = 30.0, value_parser = parse_seconds)]
        timeout: f64,
    },
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=86_400.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "expected a number of seconds from 0 to 86400, got {s:?}"
        )),
    }
}

/// Runs one result command; returns what to print.
pub fn run(owner: &Owner<'_>, command: ResultCommand, json: bool) -> Result<String, Error> {
    match command {
        ResultCommand::Put {
            workflow,
            task,
            content_type,
            file,
            overwrite,
        } => {
            // Refuse bad ids before reading (possibly waiting on) the content.
            memdir::validate_id("workflow", &workflow)?;
            memdir::validate_id("task", &task)?;
            // `max_result_bytes` from memdir.yaml, else 16 MiB: read once, so
            // the read and the put refuse at the same size.
            let limit = owner.max_result_bytes()?;
            let content = read_content(file.as_deref(), limit)?;
            let out = owner.put_result_with_limit(
                &workflow,
                &task,
                &content,
                &content_type,
                overwrite,
                limit,
            )?;
            warn(&out.warnings);
            Ok(put_answer(&out, json))
        }
        ResultCommand::Get {
            workflow,
            task: Some(task),
        } => print_result(&owner.get_result(&workflow, &task)?, json),
        ResultCommand::Get {
            workflow,
            task: None,
        } => {
            let w = owner.workflow_results(&workflow)?;
            warn(&w.warnings);
            Ok(steps_answer(&w, json))
        }
        ResultCommand::Wait {
            workflow,
            task,
            timeout,
        } => print_result(
            &owner.wait_result(&workflow, &task, Duration::from_secs_f64(timeout))?,
            json,
        ),
    }
}

/// Reads the content, refusing (with its exact size) more than `limit`
/// bytes without holding more than `limit` + 1 in memory.
fn read_content(file: Option<&std::path::Path>, limit: u64) -> Result<Vec<u8>, Error> {
    let (mut reader, name): (Box<dyn Read>, PathBuf) = match file {
        Some(p) => (
            Box::new(std::fs::File::open(p).map_err(|source| Error::Io {
                path: p.to_owned(),
                op: "open",
                source,
            })?),
            p.to_owned(),
        ),
        None => (Box::new(std::io::stdin().lock()), PathBuf::from("<stdin>")),
    };
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

fn warn(warnings: &[String]) {
    let mut err = std::io::stderr().lock();
    for w in warnings {
        let _ = writeln!(err, "warning: {w}");
    }
}

fn to_json(v: &Value) -> String {
    format!("{v}\n")
}

fn put_answer(out: &PutOutcome, json: bool) -> String {
    let r = &out.result;
    if json {
        to_json(&json!({
            "message": out.status.message(),
            "status": out.status,
            "workflow_id": r.workflow_id,
            "task_id": r.task_id,
            "content_type": r.content_type,
            "created_at": r.created_at,
            "sha256": r.sha256,
            "bytes": r.bytes,
            "warnings": out.warnings,
        }))
    } else {
        format!(
            "{} {}/{} ({} bytes, {}, sha256 {})\n",
            out.status.message(),
            r.workflow_id,
            r.task_id,
            r.bytes,
            r.content_type,
            r.sha256
        )
    }
}

fn steps_answer(w: &WorkflowResults, json: bool) -> String {
    if json {
        return to_json(&json!({
            "workflow_id": w.workflow_id,
            "steps": w.steps,
            "warnings": w.warnings,
        }));
    }
    let total: u64 = w.steps.iter().map(|s| s.bytes).sum();
    let mut out = format!(
        "{}: {} result(s), {total} bytes\n",
        w.workflow_id,
        w.steps.len()
    );
    for s in &w.steps {
        out.push_str(&format!(
            "  {}  {}  {} bytes  {}  sha256 {}\n",
            s.task_id, s.content_type, s.bytes, s.created_at, s.sha256
        ));
    }
    out
}

/// Prints a result: raw bytes (written here, so binary content survives), or
/// the JSON object.
fn print_result(r: &TaskResult, json: bool) -> Result<String, Error> {
    if json {
        let (content, b64) = match std::str::from_utf8(&r.content) {
            Ok(s) => (json!(s), None),
            Err(_) => (Value::Null, Some(base64(&r.content))),
        };
        let mut v = json!({
            "workflow_id": r.workflow_id,
            "task_id": r.task_id,
            "content_type": r.content_type,
            "created_at": r.created_at,
            "sha256": r.sha256,
            "bytes": r.bytes,
            "content": content,
        });
        if let (Some(o), Some(b)) = (v.as_object_mut(), b64) {
            o.insert("content_base64".into(), json!(b));
        }
        return Ok(to_json(&v));
    }
    let mut out = std::io::stdout().lock();
    // A closed pipe (`memdir result get … | head`) is not an error.
    let _ = out.write_all(&r.content).and_then(|()| out.flush());
    Ok(String::new())
}

/// Standard base64: RFC 4648 alphabet (`+`, `/`), padded with `=`.
fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::base64;

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
