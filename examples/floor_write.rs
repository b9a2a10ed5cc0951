//! The floor for one `memdir add` process: the least a process can do to
//! append an entry durably under the owner's lock, with nothing else.
//!
//! ```text
//! floor_write OWNER_DIR LINE
//! ```
//!
//! Takes an fs2 exclusive lock on `OWNER_DIR/.memdir/lock` (the file memdir
//! locks), reads `OWNER_DIR/MEMORY.md`, appends `LINE` and a line feed (the
//! bench passes the whole entry line as memdir writes it, `- text <!-- memdir
//! … -->`, so both processes write the same number of bytes), writes
//! the result to a temp file in the same folder, `sync_all`s it, renames it
//! over `MEMORY.md`, fsyncs the folder and exits. No parsing, no budget, no
//! checks beyond what the write needs. Used by `benches/write.rs`; build it
//! with `cargo build --release --example floor_write`.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, line] = args.as_slice() else {
        eprintln!("usage: floor_write OWNER_DIR LINE");
        return ExitCode::from(2);
    };
    match append(Path::new(dir), line) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("floor_write: {e}");
            ExitCode::FAILURE
        }
    }
}

fn append(dir: &Path, line: &str) -> std::io::Result<()> {
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".memdir/lock"))?;
    fs2::FileExt::lock_exclusive(&lock)?;

    let target = dir.join("MEMORY.md");
    let mut bytes = fs::read(&target)?;
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');

    let tmp = dir.join(format!(".MEMORY.md.{}.floor-tmp", std::process::id()));
    let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    file.write_all(&bytes)?;
    file.sync_all()?;
    drop(file);
    fs::rename(&tmp, &target)?;
    File::open(dir)?.sync_all()?;

    fs2::FileExt::unlock(&lock)
}
