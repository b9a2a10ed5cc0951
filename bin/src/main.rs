//! The `memdir` command line: parses the command (`cli`), executes it
//! through the interface layer (`memdir::api`), prints the answer and
//! returns the exit code.

use std::io::Write;
use std::process::ExitCode;

mod cli;
#[cfg(feature = "servers")]
mod http;
#[cfg(feature = "servers")]
mod mcp;

use clap::CommandFactory;
use memdir::api::errors::Surface;
use memdir::api::{self, render};
use memdir::{Error, Store};

/// How a command failed.
enum Failure {
    /// The command line itself is wrong: exit 2.
    Usage(String),
    /// memdir refused or failed: exit 1 (3 for "not ready").
    Memdir(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Memdir(e)
    }
}

fn main() -> ExitCode {
    // Under `--json` every failure is one JSON object on standard output,
    // the command line's own errors too. (Before a `--`, `--json` is the
    // flag; after it, text.)
    let json = std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json");
    let parsed = cli::parse(std::env::args_os().collect());
    let mut cli = match parsed {
        Ok(c) => c,
        Err(e) => return clap_failure(e, json),
    };
    cli.global.fill_from_env();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(Failure::Usage(msg)) => {
            if json {
                print_out(render::error_json(&Error::Usage { message: msg }).as_bytes());
            } else {
                eprintln!("error: {msg}");
            }
            ExitCode::from(2)
        }
        Err(Failure::Memdir(e)) => {
            if json {
                print_out(render::error_json(&e).as_bytes());
            } else {
                let _ =
                    std::io::stderr().write_all(render::error_text(&e, Surface::Cli).as_bytes());
            }
            // "Not ready" is an answer, not a refusal: scripts poll on 3.
            ExitCode::from(e.code().exit())
        }
    }
}

/// A command line clap refused (or `--help`, `--version`): help and the
/// version print as clap prints them; under `--json` an error is the JSON
/// error object (code `usage`), with clap's exit status (2).
fn clap_failure(e: clap::Error, json: bool) -> ExitCode {
    use clap::error::ErrorKind;
    let shown = matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion);
    if !json || shown {
        e.exit()
    }
    let rendered = e.render().to_string();
    let message = rendered
        .trim()
        .strip_prefix("error: ")
        .unwrap_or(rendered.trim())
        .to_owned();
    print_out(render::error_json(&Error::Usage { message }).as_bytes());
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
}

/// `memdir watch`: until ctrl-c (or SIGTERM), prints what each change by
/// someone other than memdir leaves in the file; exits 0 when stopped.
fn watch(store: &Store, json: bool) -> Result<u8, Failure> {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .map_err(|e| Failure::Usage(format!("cannot catch ctrl-c: {e}")))?;
    eprintln!("watching {} (ctrl-c stops)", store.root().display());
    api::watch(store, &stop, json, &mut |bytes| print_out(bytes))?;
    eprintln!("stopped");
    Ok(0)
}

/// Runs the command; the exit status of an answer (0, or 1 for a failed
/// `check`).
fn run(cli: cli::Cli) -> Result<u8, Failure> {
    let g = cli.global;
    // Git runs its merge driver on temporary files, whatever the root.
    if let cli::Command::MergeFile {
        base,
        ours,
        theirs,
        path,
    } = &cli.command
    {
        let response = api::merge_file(base, ours, theirs, path.as_deref())?;
        let out = render::render(&response, g.json);
        print_out(&out.stdout);
        return Ok(out.exit);
    }
    // Completions and the manual page need no root either.
    match &cli.command {
        cli::Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(*shell, &mut cli::Cli::command(), "memdir", &mut out);
            print_out(&out);
            return Ok(0);
        }
        cli::Command::Man => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cli::Cli::command())
                .render(&mut out)
                .map_err(|e| Failure::Usage(format!("cannot render the manual page: {e}")))?;
            print_out(&out);
            return Ok(0);
        }
        _ => {}
    }
    let opener = api::servers::Opener {
        root: g.root().to_owned(),
        config_dir: g.config_dir.clone(),
        lock_timeout: g.lock_timeout_ms.map(std::time::Duration::from_millis),
    };
    let store = opener.open()?;
    if let Some(code) = servers(&store, &g, opener, &cli.command)? {
        return Ok(code);
    }
    let who = cli::who(&g).map_err(Failure::Usage)?;
    let response = match cli::action(&store, &g, who, cli.command)? {
        Some(cli::Action::Init) => api::init(&store)?,
        Some(cli::Action::Check(owners, strict)) => api::check(&store, &owners, strict)?,
        Some(cli::Action::GitSetup(hook)) => api::git_setup(&store, hook)?,
        Some(cli::Action::Sync(caller, remote)) => {
            api::sync(&store, caller.as_ref(), remote.as_deref())?
        }
        Some(cli::Action::Watch) => return watch(&store, g.json),
        Some(cli::Action::Request(who, request)) => {
            api::preflight(&store, &who, &request)?;
            api::execute(&store, &who, request)?
        }
        None => {
            return Err(Failure::Usage(
                "no owner: pass --owner ID or set MEMDIR_OWNER".into(),
            ));
        }
    };
    let out = render::render(&response, g.json);
    let mut err = std::io::stderr().lock();
    for w in &out.warnings {
        let _ = writeln!(err, "warning: {w}");
    }
    print_out(&out.stdout);
    Ok(out.exit)
}

/// The long-running commands (`mcp`, `serve`) and the keys they take;
/// `None` for every other command.
fn servers(
    store: &Store,
    g: &cli::Global,
    opener: api::servers::Opener,
    command: &cli::Command,
) -> Result<Option<u8>, Failure> {
    let _ = &opener;
    match command {
        cli::Command::Key { command, keys } => {
            let keys = keys.as_deref();
            let out = match command {
                cli::KeyCommand::Create { name } => {
                    let Some(who) = cli::who(g).map_err(Failure::Usage)? else {
                        return Err(Failure::Usage(
                            "key create needs --owner AGENT or --person ID".into(),
                        ));
                    };
                    api::keys::create(store, keys, &who.caller, name.as_deref(), g.json)?
                }
                cli::KeyCommand::List => api::keys::list(store, keys, g.json)?,
                cli::KeyCommand::Revoke { key } => api::keys::revoke(store, keys, key, g.json)?,
            };
            print_out(out.as_bytes());
            Ok(Some(0))
        }
        #[cfg(feature = "servers")]
        cli::Command::Mcp { run } => {
            let Some(who) = cli::who(g).map_err(Failure::Usage)? else {
                return Err(Failure::Usage(
                    "mcp needs an identity: --owner AGENT, or --person ID".into(),
                ));
            };
            start_log();
            mcp::run(mcp::Config {
                opener,
                who,
                run: run.clone(),
            })
            .map_err(Failure::Usage)?;
            Ok(Some(0))
        }
        #[cfg(feature = "servers")]
        cli::Command::Serve {
            listen,
            keys,
            timeout,
            review_every,
        } => {
            let keys = memdir::api::keys::keys_path(store, keys.as_deref())?;
            start_log();
            http::run(http::Config {
                opener,
                listen: *listen,
                keys,
                timeout: std::time::Duration::from_secs(*timeout),
                review_every: (*review_every > 0)
                    .then(|| std::time::Duration::from_secs(*review_every)),
            })
            .map_err(Failure::Usage)?;
            Ok(Some(0))
        }
        _ => Ok(None),
    }
}

/// Writes to standard output; a closed pipe (`memdir show | head`) is not an
/// error.
fn print_out(bytes: &[u8]) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(bytes).and_then(|()| out.flush());
}

/// The servers' log on standard error, one line an event (the server's
/// start and stop, each request, the review passes), at the level
/// `MEMDIR_LOG` names (`off`, `error`, `warn`, `info`, the default, `debug`,
/// `trace`). Only `mcp` and `serve` start it: the one-shot commands pay
/// nothing for it.
#[cfg(feature = "servers")]
fn start_log() {
    use tracing_subscriber::filter::LevelFilter;
    let level = std::env::var("MEMDIR_LOG")
        .ok()
        .and_then(|v| v.parse::<LevelFilter>().ok())
        .unwrap_or(LevelFilter::INFO);
    // A second start (none today) keeps the first.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .without_time()
        .with_target(false)
        .with_level(false)
        .try_init();
}
