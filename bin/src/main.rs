//! The `memdir` command line: parses the command (`cli`), executes it
//! through the interface layer (`memdir::api`), prints the answer and
//! returns the exit code.

// A function past 150 lines (clippy.toml) holds more than one concern.
#![warn(clippy::too_many_lines)]

use std::io::Write;
use std::process::ExitCode;

mod cli;
#[cfg(feature = "servers")]
mod http;
#[cfg(feature = "servers")]
mod mcp;
#[cfg(feature = "servers")]
mod remote;
#[cfg(feature = "servers")]
mod ui;

use clap::CommandFactory;
use memdir::api::errors::Surface;
use memdir::api::types::{Error, Store};
use memdir::api::{self, render};

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
    let filled = cli.global.fill_from_env().map_err(Failure::Usage);
    match filled.and_then(|()| run(cli)) {
        Ok(code) => ExitCode::from(code),
        Err(Failure::Usage(msg)) => {
            if json {
                print_agent(&render::error_json(&Error::Usage { message: msg }));
            } else {
                eprintln!("error: {msg}");
            }
            ExitCode::from(2)
        }
        Err(Failure::Memdir(e)) => {
            if json {
                print_agent(&render::error_json(&e));
            } else {
                let _ =
                    std::io::stderr().write_all(render::error_text(&e, Surface::Cli).as_bytes());
            }
            // "Not ready" is an answer, not a refusal: scripts poll on 3.
            ExitCode::from(e.code().exit())
        }
    }
}

/// `memdir serve`: the HTTP API until ctrl-c or SIGTERM (`cmd` is the
/// command's `Serve`).
#[cfg(feature = "servers")]
fn serve_http(mut opener: api::servers::Opener, cmd: cli::Command) -> Result<u8, Failure> {
    let cli::Command::Serve {
        listen,
        keys,
        timeout,
        review_every,
        max_connections,
        header_timeout,
        idle_timeout,
        max_upload_bytes_in_flight,
        public_host,
        behind_tls,
        ui_idle,
        sync,
        sync_every,
        replica,
    } = cmd
    else {
        return Ok(0);
    };
    let root = server_root(&opener)?;
    eprintln!("memdir serve: root {}", root.display());
    let keys = memdir::api::keys::keys_path(&opener.open()?, keys.as_deref())?;
    opener.replica = replica;
    if let Some(remote) = &sync {
        api::servers::replica::check_start(&opener, remote)?;
    }
    start_log(
        std::env::var("MEMDIR_LOG")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(tracing_subscriber::filter::LevelFilter::INFO),
    );
    let secs = std::time::Duration::from_secs;
    http::run(http::Config {
        opener,
        listen,
        keys,
        timeout: secs(timeout),
        review_every: (review_every > 0).then(|| secs(review_every)),
        bounds: http::Bounds {
            max_connections: max_connections as usize,
            header_timeout: secs(header_timeout),
            idle_timeout: secs(idle_timeout),
        },
        uploads: http::Uploads::new(max_upload_bytes_in_flight),
        public_host,
        behind_tls,
        ui_idle: secs(ui_idle),
        sync: sync.map(|remote| http::SyncConfig {
            remote,
            every: secs(sync_every),
        }),
    })
    .map_err(Failure::Usage)?;
    Ok(0)
}

/// The root a server is started on, made absolute: it must exist
/// (`root_not_found`, naming the path and `memdir init`), since a server
/// started by a client with no shell must not create a root where nobody
/// meant one.
#[cfg(feature = "servers")]
fn server_root(opener: &api::servers::Opener) -> Result<std::path::PathBuf, Failure> {
    let root = std::path::absolute(&opener.root).unwrap_or_else(|_| opener.root.clone());
    Store::open(&root)?.require_root()?;
    Ok(root)
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
    print_agent(&render::error_json(&Error::Usage { message }));
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
    api::watch(store, &stop, json, &mut |text| print_agent(text))?;
    eprintln!("stopped");
    Ok(0)
}

/// Runs the command; the exit status of an answer (0, or 1 for a failed
/// `check`). One match over every command: the ones that need no root,
/// the long-running servers, the root's housekeeping, and the requests of
/// an owner's memory.
fn run(cli: cli::Cli) -> Result<u8, Failure> {
    use cli::Command;
    let g = cli.global;
    let opener = api::servers::Opener {
        root: g.root().to_owned(),
        config_dir: g.config_dir.clone(),
        lock_timeout: g.lock_timeout_ms.map(std::time::Duration::from_millis),
        recall_model: g
            .recall_model
            .as_ref()
            .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone())),
        replica: None,
    };
    // `--url` with a key file: the command runs on the server (`ui`
    // without a key file takes it as the dashboard's address).
    if let Some(url) = g.url.clone()
        && !(matches!(cli.command, Command::Ui { .. }) && g.key_file.is_none())
    {
        return over_url(&url, &g, cli.command);
    }
    let response = match cli.command {
        // Git runs its merge driver on temporary files, whatever the root.
        Command::MergeFile {
            base,
            ours,
            theirs,
            path,
        } => cli::Answer::Guarded(api::merge_file(&base, &ours, &theirs, path.as_deref())?),
        // Completions and the manual page need no root either.
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut cli::Cli::command(), "memdir", &mut out);
            print_out(&out);
            return Ok(0);
        }
        Command::Man => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cli::Cli::command())
                .render(&mut out)
                .map_err(|e| Failure::Usage(format!("cannot render the manual page: {e}")))?;
            print_out(&out);
            return Ok(0);
        }
        Command::Key { command, keys } => return key(&opener.open()?, &g, command, keys),
        Command::Ui { keys } => {
            let url = g.url.as_deref().unwrap_or(DASHBOARD);
            return login_link(&opener.open()?, &g, url, keys);
        }
        #[cfg(feature = "servers")]
        Command::Mcp { run, session, log } => return serve_mcp(opener, &g, run, session, log),
        #[cfg(feature = "servers")]
        cmd @ Command::Serve { .. } => return serve_http(opener, cmd),
        Command::Watch => return watch(&opener.open()?, g.json),
        Command::Init => cli::Answer::Guarded(api::init(&opener.open()?)?),
        Command::Check { owners, strict } => {
            // No owner named: the one the options name, else every owner.
            let owners = match (owners.is_empty(), &g.owner) {
                (true, Some(me)) => vec![me.clone()],
                _ => owners,
            };
            // A check needs no owner; an agent's typo names no other owner.
            let store = opener.open()?;
            let request = api::Request::Check { owners, strict };
            let who = cli::who(&g)
                .map_err(Failure::Usage)?
                .resolve(&store, Some(&request))?
                .unwrap_or_else(api::Who::anonymous);
            cli::Answer::Guarded(api::execute(&store, &who, request)?)
        }
        Command::Git(cli::GitCommand::Setup { hook }) => {
            cli::Answer::Guarded(api::git_setup(&opener.open()?, hook)?)
        }
        Command::Sync { remote } => {
            let store = opener.open()?;
            let request = api::Request::Sync { remote };
            let who = cli::who(&g)
                .map_err(Failure::Usage)?
                .resolve(&store, Some(&request))?;
            // The caller, when known, names the commits.
            let who = who.map_or_else(api::Who::anonymous, |w| api::Who { raw: false, ..w });
            cli::Answer::Guarded(api::execute(&store, &who, request)?)
        }
        Command::Ask(ask) => {
            let store = opener.open()?;
            let identity = cli::who(&g).map_err(Failure::Usage)?;
            if matches!(identity, cli::Identity::Nobody) {
                return Err(Failure::Usage(
                    "no owner: pass --owner ID or set MEMDIR_OWNER".into(),
                ));
            }
            cli::answer(&store, identity, ask)?
        }
    };
    let exit = print_answer(response, g.json);
    // A recall answered: its missing vectors, computed meanwhile, written.
    Store::settle();
    Ok(exit)
}

/// The dashboard's address a login link names when `--url` does not.
const DASHBOARD: &str = "http://127.0.0.1:7077";

/// `--url URL --key-file FILE`: the command on a `memdir serve`.
#[cfg(feature = "servers")]
fn over_url(url: &str, g: &cli::Global, command: cli::Command) -> Result<u8, Failure> {
    remote::run(url, g, command)
}

/// `--url` without the servers (a build without the `servers` feature).
#[cfg(not(feature = "servers"))]
fn over_url(_: &str, _: &cli::Global, _: cli::Command) -> Result<u8, Failure> {
    Err(Failure::Usage(
        "--url needs memdir built with the `servers` feature".into(),
    ))
}

/// Prints an answer (its warnings on standard error): its exit status.
fn print_answer(response: cli::Answer, json: bool) -> u8 {
    match response {
        cli::Answer::Guarded(r) => {
            let out = render::render(&r, json);
            let _ = std::io::stderr().lock().write_all(out.warnings.as_bytes());
            print_agent(&out.stdout);
            out.exit
        }
        // A person's `--raw`: the one exit for raw text.
        cli::Answer::Person(r) => {
            let out = render::person(&r, json, Surface::Cli);
            let _ = std::io::stderr().lock().write_all(out.warnings.as_bytes());
            print_person(&out.stdout);
            out.exit
        }
    }
}

/// `memdir mcp`: the MCP server on standard input and output, for the
/// identity the options name, until the client closes it.
#[cfg(feature = "servers")]
fn serve_mcp(
    opener: api::servers::Opener,
    g: &cli::Global,
    run: Option<String>,
    session: Option<String>,
    log: Option<tracing_subscriber::filter::LevelFilter>,
) -> Result<u8, Failure> {
    let identity = cli::who(g).map_err(Failure::Usage)?;
    let nobody = || Failure::Usage("mcp needs an identity: --owner AGENT, or --person ID".into());
    if matches!(identity, cli::Identity::Nobody) {
        return Err(nobody());
    }
    let root = server_root(&opener)?;
    // A person's server asks once, as it starts: every call made through
    // it acts as the person.
    let who = identity
        .resolve(&opener.open()?, None)?
        .ok_or_else(nobody)?;
    // A client shows every line of a server's standard error as an
    // error: nothing but failures unless a level is asked for.
    start_log(log.unwrap_or(tracing_subscriber::filter::LevelFilter::ERROR));
    tracing::info!("memdir mcp: root {}", root.display());
    let run = match (run, session) {
        (Some(id), _) => Some(api::RunRef::Id(id)),
        (None, Some(key)) => Some(api::RunRef::Session(key)),
        (None, None) => None,
    };
    mcp::run(mcp::Config { opener, who, run }).map_err(Failure::Usage)?;
    Ok(0)
}

/// `memdir key create|list|revoke`: the keys of `memdir serve`, in `keys`
/// (default: the configuration folder's keys.yaml).
fn key(
    store: &Store,
    g: &cli::Global,
    command: cli::KeyCommand,
    keys: Option<std::path::PathBuf>,
) -> Result<u8, Failure> {
    let keys = keys.as_deref();
    let out = match command {
        cli::KeyCommand::Create { name } => {
            let Some(who) = cli::who(g).map_err(Failure::Usage)?.resolve(store, None)? else {
                return Err(Failure::Usage(
                    "key create needs --owner AGENT or --person ID".into(),
                ));
            };
            api::keys::create(store, keys, &who.caller, name.as_deref(), g.json)?
        }
        cli::KeyCommand::List => api::keys::list(store, keys, g.json)?,
        cli::KeyCommand::Revoke { key } => api::keys::revoke(store, keys, &key, g.json)?,
    };
    print_out(out.as_bytes());
    Ok(0)
}

/// `memdir --person ID ui`: a one-time login link to the dashboard at
/// `url`, made through `api::execute` (only a person's, under the
/// `persons` binding).
fn login_link(
    store: &Store,
    g: &cli::Global,
    url: &str,
    keys: Option<std::path::PathBuf>,
) -> Result<u8, Failure> {
    let request = api::Request::LoginLink { keys };
    let Some(who) = cli::who(g)
        .map_err(Failure::Usage)?
        .resolve(store, Some(&request))?
    else {
        return Err(Failure::Usage("ui needs a person: pass --person ID".into()));
    };
    let answer = api::execute(store, &who, request)?;
    let api::Response::LoginLink(link) = &*answer else {
        return Err(Failure::Usage("no login link was made".into()));
    };
    let at = format!("{}/ui/login/link/{}", url.trim_end_matches('/'), link.token);
    let out = if g.json {
        let answer = api::wire::LoginUrl {
            url: &at,
            person: &link.person,
            expires: link.expires,
        };
        format!("{}\n", api::wire::value(&answer))
    } else {
        format!(
            "{at}\n(a one-time login link for person {}: open it in a browser and press the button; good once, until {})\n",
            link.person,
            link.expires.format("%H:%M:%S UTC")
        )
    };
    print_out(out.as_bytes());
    Ok(0)
}

/// Writes an answer to standard output, where an agent may read it: only
/// [`api::guard::AgentText`], made from a guarded answer.
fn print_agent(text: &api::guard::AgentText) {
    print_out(text.as_bytes());
}

/// Writes a person's raw read (`--raw`) to standard output.
fn print_person(text: &api::guard::PersonText) {
    print_out(text.as_bytes());
}

/// Writes to standard output; a closed pipe (`memdir show | head`) is not an
/// error. Only the program's own output (completions, the manual page,
/// key commands' and login links' answers for persons) and the two typed
/// writers above use it.
fn print_out(bytes: &[u8]) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(bytes).and_then(|()| out.flush());
}

/// The servers' log on standard error, one line an event (the server's
/// start and stop, each request, the review passes), at `level` (`mcp
/// --log`; `serve` takes `MEMDIR_LOG`: `off`, `error`, `warn`, `info`, the
/// default, `debug`, `trace`). Only `mcp` and `serve` start it: the
/// one-shot commands pay nothing for it.
#[cfg(feature = "servers")]
fn start_log(level: tracing_subscriber::filter::LevelFilter) {
    // A second start (none today) keeps the first.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .without_time()
        .with_target(false)
        .with_level(false)
        .try_init();
}
