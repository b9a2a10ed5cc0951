//! The global options (`--root`, `--owner`, `--json`, …), who they name, and
//! the parse that scopes them to the one command a command line names.

use std::path::{Path, PathBuf};

use clap::Args;
use memdir::api::Who;
use memdir::api::types::Caller;

use super::Cli;
use super::confirm::Asked;

/// The heading of the options every command takes.
const GLOBAL: &str = "Global options";

/// Parses the command line `args` (the program's name first).
///
/// The global options are global to one command only: the one this
/// command line names. clap copies a global option into every command of
/// the tree when it builds the tree (seven options into some fifty
/// commands: most of what a short-lived `memdir` process allocated, and a
/// fifth of its page faults), and a command line uses one command (or none:
/// `--version`, `--help`). Where the command cannot be told from the words
/// before it (`help`, an unknown word, an option clap must reject), the
/// whole tree takes them, as clap makes it.
pub fn parse(args: Vec<std::ffi::OsString>) -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let mut command = Cli::command();
    let globals: Vec<clap::Arg> = command
        .get_arguments()
        .filter(|a| a.is_global_set())
        .cloned()
        .collect();
    let name = match named_command(&command, &globals, &args) {
        Named::Command(name) => Some(name),
        Named::None => None,
        Named::Unknown => return parse_whole(command, args),
    };
    for a in &globals {
        command = command.mut_arg(a.get_id().clone(), |a| a.global(false));
    }
    if let Some(name) = &name {
        command = command.mut_subcommand(name, |sub| sub.args(globals));
    }
    let matches = command.try_get_matches_from_mut(args)?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    if let Some((_, sub)) = matches.subcommand() {
        // The values given after the command (clap has gathered those of
        // its own subcommands into it) win over those before it.
        let after = Global::from_arg_matches(sub)?;
        let g = &mut cli.global;
        g.root = after.root.or(g.root.take());
        g.owner = after.owner.or(g.owner.take());
        g.json |= after.json;
        g.lock_timeout_ms = after.lock_timeout_ms.or(g.lock_timeout_ms);
        g.person = after.person.or(g.person.take());
        g.agent = after.agent.or(g.agent.take());
        g.key_file = after.key_file.or(g.key_file.take());
        g.url = after.url.or(g.url.take());
        g.config_dir = after.config_dir.or(g.config_dir.take());
        g.recall_model = after.recall_model.or(g.recall_model.take());
    }
    Ok(cli)
}

/// [`parse`] with the global options in the whole tree, as clap makes it.
fn parse_whole(
    mut command: clap::Command,
    args: Vec<std::ffi::OsString>,
) -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let matches = command.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches(&matches)
}

/// What the words before the first one that is not a global option say.
enum Named {
    /// A command (an alias resolved to its name).
    Command(String),
    /// No command: the words are global options, help or the version.
    None,
    /// Something [`parse`] leaves to the whole tree.
    Unknown,
}

/// The command `args` names, where the words before it are the `globals`
/// (long options, `--name VALUE` or `--name=VALUE` for one that takes a
/// value), help or the version only.
fn named_command(
    command: &clap::Command,
    globals: &[clap::Arg],
    args: &[std::ffi::OsString],
) -> Named {
    let mut words = args.iter().skip(1);
    while let Some(w) = words.next() {
        let Some(w) = w.to_str() else {
            return Named::Unknown;
        };
        if matches!(w, "--help" | "-h" | "--version" | "-V") {
            continue;
        }
        if let Some(option) = w.strip_prefix("--") {
            let (name, inline) = match option.split_once('=') {
                Some((name, _)) => (name, true),
                None => (option, false),
            };
            let Some(arg) = globals.iter().find(|a| a.get_long() == Some(name)) else {
                return Named::Unknown;
            };
            if arg.get_action().takes_values() && !inline && words.next().is_none() {
                return Named::Unknown;
            }
            continue;
        }
        if w.starts_with('-') {
            return Named::Unknown;
        }
        return match command.find_subcommand(w) {
            Some(c) => Named::Command(c.get_name().to_owned()),
            None => Named::Unknown,
        };
    }
    Named::None
}

/// Options every command takes.
#[derive(Debug, Args)]
pub struct Global {
    /// The memory root (one folder per owner) [default: $MEMDIR_ROOT, else
    /// ./memory].
    #[arg(long, global = true, value_name = "DIR", help_heading = GLOBAL)]
    pub root: Option<PathBuf>,
    /// The owner whose memory to use [default: $MEMDIR_OWNER].
    #[arg(long, global = true, value_name = "ID", help_heading = GLOBAL)]
    pub owner: Option<String>,
    /// Print JSON instead of text (failures too: {"error":{…}} on standard
    /// output).
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub json: bool,
    /// How long to wait for the owner's lock, in milliseconds [default:
    /// `lock_timeout_ms` in memdir.yaml, else 10000].
    #[arg(long, global = true, value_name = "MS", help_heading = GLOBAL)]
    pub lock_timeout_ms: Option<u64>,
    /// Act as this person of the workspace (default: the owner itself, an agent).
    #[arg(long, global = true, value_name = "ID", help_heading = GLOBAL)]
    pub person: Option<String>,
    /// The agent whose memory a person acts on (an agent may only name itself).
    #[arg(long, global = true, value_name = "ID", help_heading = GLOBAL)]
    pub agent: Option<String>,
    /// A person's answers with flagged text as the files hold it (default:
    /// each flagged entry or line is its [BLOCKED: …] placeholder; an agent
    /// cannot ask).
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub raw: bool,
    /// Act as the person whose key this file holds, without asking at the
    /// terminal (automation): a file only this user can read, holding a
    /// person's key of the account's own keys file (docs/SECURITY.md).
    /// With --url: the key (an agent's or a person's) the server checks.
    #[arg(long, global = true, value_name = "FILE", help_heading = GLOBAL)]
    pub key_file: Option<PathBuf>,
    /// The address of a `memdir serve` to run the command on, with the
    /// key --key-file holds (an agent's or a person's: the server decides
    /// who it is); for `ui`, the dashboard's address [default:
    /// http://127.0.0.1:7077].
    #[arg(long, global = true, value_name = "URL", help_heading = GLOBAL)]
    pub url: Option<String>,
    /// The machine-local configuration folder (default: $MEMDIR_CONFIG_DIR,
    /// else $XDG_CONFIG_HOME/memdir, else ~/.config/memdir).
    #[arg(long, global = true, value_name = "DIR", help_heading = GLOBAL)]
    pub config_dir: Option<PathBuf>,
    /// The sentence-transformers model folder semantic recall fuses with
    /// the lexical score (default: `recall: { model: … }` in the
    /// machine-local config.yaml; without either, recall is lexical).
    #[arg(long, global = true, value_name = "DIR", help_heading = GLOBAL)]
    pub recall_model: Option<PathBuf>,
}

impl Global {
    /// Fills what the options leave out from `MEMDIR_ROOT` and
    /// `MEMDIR_OWNER` (an empty owner is refused as an invalid id later).
    /// Read here, not by the parser, so that a usage line never shows them
    /// as given. A root starting with `~/` (or `~` alone) is taken from
    /// `$HOME`, as a shell would, since an MCP client starts memdir with no
    /// shell; `~user` is refused (a usage error).
    pub fn fill_from_env(&mut self) -> Result<(), String> {
        let var = |name: &str| std::env::var_os(name);
        if self.root.is_none() {
            self.root =
                Some(var("MEMDIR_ROOT").map_or_else(|| PathBuf::from("./memory"), PathBuf::from));
        }
        if let Some(root) = &self.root {
            self.root = Some(expand_home(root, var("HOME").map(PathBuf::from))?);
        }
        if self.owner.is_none() {
            self.owner = var("MEMDIR_OWNER").and_then(|v| v.into_string().ok());
        }
        Ok(())
    }

    /// The memory root.
    pub fn root(&self) -> &Path {
        self.root.as_deref().unwrap_or(Path::new("./memory"))
    }
}

/// `root` with a leading `~` (alone or before `/`) replaced by `home`
/// (`$HOME`, which must be set and absolute); `~user` is refused rather
/// than taken as a folder named `~user`.
fn expand_home(root: &Path, home: Option<PathBuf>) -> Result<PathBuf, String> {
    let mut parts = root.components();
    let first = parts.next().map(|c| c.as_os_str().as_encoded_bytes());
    match first {
        Some(b"~") => match home.filter(|h| h.is_absolute()) {
            Some(h) => Ok(h.join(parts.as_path())),
            None => Err(format!(
                "--root {}: $HOME is not set to an absolute path, so `~` cannot be expanded; give the root's full path",
                root.display()
            )),
        },
        Some(f) if f.starts_with(b"~") => Err(format!(
            "--root {}: `~user` is not expanded; give the root's full path",
            root.display()
        )),
        _ => Ok(root.to_owned()),
    }
}

/// Who the global options name, a person before the person's word.
#[derive(Debug)]
pub enum Identity {
    /// No one: an agent's command that names no owner.
    Nobody,
    /// An agent.
    Agent(Who),
    /// A person (`--person`, or a person's key file `--key-file`): the
    /// command acts as the person only once the person's word is given
    /// ([`Asked::confirm`]).
    Person(Asked),
}

impl Identity {
    /// The command's caller: an agent as named, a person once confirmed
    /// for `request` ([`Asked::confirm`]; `request` is `None` for the
    /// commands that are no request, `key create` and `mcp`); `None` when
    /// the options name no one.
    pub fn resolve(
        self,
        store: &memdir::api::types::Store,
        request: Option<&memdir::api::Request>,
    ) -> Result<Option<Who>, memdir::api::types::Error> {
        match self {
            Identity::Nobody => Ok(None),
            Identity::Agent(who) => Ok(Some(who)),
            Identity::Person(asked) => asked.confirm(store, request).map(Some),
        }
    }
}

/// Who the global options name. An agent is `--owner` (or `--agent` alone:
/// the agent itself); it may name only itself (`--owner A --agent B` is
/// `memory_not_own`). A person (`--person`, or a person's key file alone,
/// `--key-file`) names the owner with `--agent` or `--owner`; naming two
/// different ones is a usage error.
pub fn who(g: &Global) -> Result<Identity, String> {
    if g.person.is_some() || g.key_file.is_some() {
        if let (Some(o), Some(a)) = (&g.owner, &g.agent)
            && o != a
        {
            return Err(format!(
                "--owner {o} and --agent {a} name two owners; a person names one (--agent)"
            ));
        }
        return Ok(Identity::Person(Asked::new(
            g.person.clone(),
            g.agent.clone().or_else(|| g.owner.clone()),
            g.raw,
            g.key_file.clone(),
        )));
    }
    Ok(match (&g.owner, &g.agent) {
        (Some(me), named) => Identity::Agent(Who {
            caller: Caller::Agent(me.clone()),
            named: named.clone(),
            raw: g.raw,
        }),
        (None, Some(me)) => Identity::Agent(Who {
            caller: Caller::Agent(me.clone()),
            named: None,
            raw: g.raw,
        }),
        (None, None) => Identity::Nobody,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_leading_tilde_is_home() {
        let home = Some(PathBuf::from("/h"));
        let e = |r: &str| expand_home(Path::new(r), home.clone());
        assert_eq!(e("~/x").unwrap(), PathBuf::from("/h/x"));
        assert_eq!(e("~").unwrap(), PathBuf::from("/h"));
        assert_eq!(e("a/~/x").unwrap(), PathBuf::from("a/~/x"));
        assert!(e("~bob/x").unwrap_err().contains("~user"));
        assert!(expand_home(Path::new("~/x"), None).is_err());
    }

    use super::*;
    use clap::CommandFactory;

    fn args(line: &str) -> Vec<std::ffi::OsString> {
        std::iter::once("memdir")
            .chain(line.split(' ').filter(|w| !w.is_empty()))
            .map(Into::into)
            .collect()
    }

    /// What a parse gives, as text: the command line's meaning, or clap's
    /// error (kind and message).
    fn meaning(parsed: Result<Cli, clap::Error>) -> String {
        match parsed {
            Ok(cli) => format!("{cli:?}"),
            Err(e) => format!("{:?}: {}", e.kind(), e.render()),
        }
    }

    /// The global options scoped to the named command mean what clap's
    /// whole-tree propagation makes of the same command line: values, which
    /// of two wins, errors and help.
    #[test]
    fn narrowed_globals_parse_as_the_whole_tree() {
        let lines = [
            "add x",
            "--json add x",
            "add x --json",
            "--root /r --owner a add x --owner b",
            "--owner a add --owner=b x",
            "--owner=a --json save x --to user --expires 30d",
            "remember -x --lock-timeout-ms 5",
            "--lock-timeout-ms 7 add x --lock-timeout-ms 9",
            "--person ann --agent agt_x archive mem_0123456789ab --reason old",
            "result put wf t --json --config-dir /c",
            "--json result put wf t --owner o",
            "result --json put wf t",
            "git setup --json",
            "--json git --root /r setup",
            "run begin --owner a",
            "runs search deploy --json",
            "review status --json",
            "skill list --json",
            "key list --json",
            "add",
            "add x --nope",
            "--json add",
            "nope",
            "--owner",
            "--owner a",
            "",
            "--json",
            "add --help",
            "result put --help",
            "--help",
            "-h",
            "--version",
            "-V",
            "add -V",
            "help add",
            "help",
            "show --json --owner a --owner b",
            "--json=x add y",
            "--owner= add x",
            "--root",
            "--lock-timeout-ms nope add x",
            "--config-dir=/c --agent a show",
            "--person p --agent a show --raw",
            "--raw list --person p",
            "--key-file /k learnings approve mem_0123456789ab",
            "learnings --key-file=/k approve mem_0123456789ab --person p",
        ];
        for line in lines {
            let fast = meaning(parse(args(line)));
            let whole = meaning(parse_whole(Cli::command(), args(line)));
            assert_eq!(fast, whole, "memdir {line}");
        }
    }

    /// Where the command is named, only it takes the global options.
    #[test]
    fn only_the_named_command_takes_the_global_options() {
        let command = Cli::command();
        let globals: Vec<clap::Arg> = command
            .get_arguments()
            .filter(|a| a.is_global_set())
            .cloned()
            .collect();
        assert_eq!(globals.len(), 11);
        assert!(matches!(
            named_command(&command, &globals, &args("--owner a --json save x")),
            Named::Command(n) if n == "add"
        ));
        assert!(matches!(
            named_command(&command, &globals, &args("--json --version")),
            Named::None
        ));
        assert!(matches!(
            named_command(&command, &globals, &args("help add")),
            Named::Unknown
        ));
        assert!(matches!(
            named_command(&command, &globals, &args("--nope add x")),
            Named::Unknown
        ));
    }
}
