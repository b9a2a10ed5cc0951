//! A SharedMemory result's put against its floor, and the scanner's speed
//! on text (issue 43), in one run:
//!
//! * **floor**: what any durable store of the bytes must do: read them from
//!   a file, hash them with SHA-256, write them to a temporary file in the
//!   owner's folder, fsync it and rename it.
//! * **put, binary**: `Results::put_from` of 4 MiB of random bytes
//!   read from the same file, declared `application/octet-stream` (the
//!   HTTP `PUT` streams its body the same way): checked, spooled, hashed,
//!   written durably beside its index. Binary content is never read as
//!   text, so no scan. Target: at most 1.5× the floor.
//! * **put, text**: the same of 4 MiB of text (this repository's `docs/`,
//!   repeated), `text/plain`, which is scanned.
//! * **scan**: the scanner alone over that text, as a put runs it
//!   (`scan_content`: pieces of whole lines), in MB/s. Target: 50 MB/s or
//!   more.
//!
//! * **scan, conversations**: with `MEMDIR_LOCOMO` set to the LoCoMo folder
//!   (`../shared/locomo`, read there, never copied), the same scan over its
//!   five conversations' JSON, repeated to 4 MiB: a tool's JSON output of
//!   ordinary chat, where the docs above are dense with the very words the
//!   scanner looks for.
//!
//! Each round times each case once, back to back; the medians of
//! [`ROUNDS`] rounds are printed, with the ratios. Run with
//! `cargo bench --bench result_content` (release profile).

use std::fs::File;
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use memdir::Store;
use memdir::api::types::PutOptions;
use memdir::internals::results::scan_content;
use sha2::{Digest, Sha256};

/// The content's size.
const BYTES: usize = 4 * 1024 * 1024;
/// Rounds; the medians are printed.
const ROUNDS: usize = 9;

/// `n` pseudo-random bytes (xorshift64*: the same bytes every run).
fn random_bytes(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        out.extend_from_slice(&x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    out.truncate(n);
    out
}

/// `n` bytes of text: this repository's docs, repeated, cut at a line end.
fn text_bytes(n: usize) -> Vec<u8> {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&docs)
        .expect("docs/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    names.sort();
    let mut all = Vec::new();
    for p in &names {
        all.extend(std::fs::read(p).expect("a doc"));
    }
    repeated(&all, n)
}

/// `n` bytes of the LoCoMo conversations' JSON under `dir`, repeated, cut at
/// a line end.
fn conversation_bytes(dir: &Path, n: usize) -> Vec<u8> {
    let mut all = Vec::new();
    for id in ["26", "30", "41", "42", "43"] {
        all.extend(std::fs::read(dir.join(format!("{id}.json"))).expect("a conversation"));
    }
    repeated(&all, n)
}

/// `all` repeated to `n` bytes, cut at the last line end.
fn repeated(all: &[u8], n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        out.extend_from_slice(&all[..all.len().min(n - out.len())]);
    }
    let end = out
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(out.len(), |i| i + 1);
    out.truncate(end);
    out
}

/// The floor: read `src`, hash it, write it to a temp file in `dir`, fsync,
/// rename.
fn floor(src: &Path, dir: &Path) -> Duration {
    let t = Instant::now();
    let bytes = std::fs::read(src).expect("read");
    black_box(Sha256::digest(&bytes));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).expect("temp");
    tmp.write_all(&bytes).expect("write");
    tmp.as_file().sync_all().expect("fsync");
    tmp.persist(dir.join("floor.bin")).expect("rename");
    t.elapsed()
}

/// A put of `src`'s bytes as `content_type` under a new task id.
fn put(store: &Store, src: &Path, content_type: &str, task: &str) -> Duration {
    let owner = store.owner("agt_bench").expect("owner");
    let options = PutOptions {
        content_type: Some(content_type.to_owned()),
        ..PutOptions::default()
    };
    let t = Instant::now();
    let mut f = File::open(src).expect("open");
    let out = owner
        .results()
        .put_from("wf_bench", task, &mut f, "the bench's file", &options)
        .expect("put");
    let took = t.elapsed();
    black_box(out);
    took
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let work = tempfile::tempdir().expect("tempdir");
    let root = work.path().join("root");
    std::fs::create_dir_all(root.join("agt_bench")).expect("owner folder");
    let store = Store::open(&root)
        .expect("store")
        .with_config_dir(work.path().join("conf"));
    let random = work.path().join("random.bin");
    let text = work.path().join("text.txt");
    std::fs::write(&random, random_bytes(BYTES)).expect("random");
    let text_content = text_bytes(BYTES);
    std::fs::write(&text, &text_content).expect("text");
    let dir = root.join("agt_bench");
    let chat = std::env::var_os("MEMDIR_LOCOMO").map(|d| conversation_bytes(Path::new(&d), BYTES));

    // One of each first, outside the timing (the owner's folders made, the
    // scanner's regexes compiled, the files in the page cache).
    put(&store, &random, "application/octet-stream", "warm_binary");
    put(&store, &text, "text/plain", "warm_text");
    floor(&random, &dir);

    let (mut fl, mut pb, mut pt, mut sc, mut cc) = (vec![], vec![], vec![], vec![], vec![]);
    for r in 0..ROUNDS {
        fl.push(floor(&random, &dir));
        pb.push(put(
            &store,
            &random,
            "application/octet-stream",
            &format!("bin_{r}"),
        ));
        pt.push(put(&store, &text, "text/plain", &format!("text_{r}")));
        let t = Instant::now();
        black_box(scan_content(black_box(&text_content)));
        sc.push(t.elapsed());
        if let Some(chat) = &chat {
            let t = Instant::now();
            black_box(scan_content(black_box(chat)));
            cc.push(t.elapsed());
        }
    }
    let (fl, pb, pt, sc) = (median(fl), median(pb), median(pt), median(sc));
    let mb = text_content.len() as f64 / 1e6;
    println!(
        "result content, {} MiB, median of {ROUNDS} rounds",
        BYTES / 1024 / 1024
    );
    println!(
        "floor (read, SHA-256, temp file, fsync, rename): {:8.2} ms",
        ms(fl)
    );
    println!(
        "put, random bytes (application/octet-stream):   {:8.2} ms = {:.2}x the floor (target 1.5x)",
        ms(pb),
        pb.as_secs_f64() / fl.as_secs_f64()
    );
    println!(
        "put, text (text/plain, scanned):                 {:8.2} ms = {:.2}x the floor",
        ms(pt),
        pt.as_secs_f64() / fl.as_secs_f64()
    );
    println!(
        "scan of the text alone:                          {:8.2} ms = {:.1} MB/s (target 50 MB/s)",
        ms(sc),
        mb / sc.as_secs_f64()
    );
    if let Some(chat) = &chat {
        let cc = median(cc);
        println!(
            "scan of the conversations' JSON alone:           {:8.2} ms = {:.1} MB/s (target 50 MB/s)",
            ms(cc),
            chat.len() as f64 / 1e6 / cc.as_secs_f64()
        );
    }
}
