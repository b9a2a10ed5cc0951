//! The pattern table. Order matters: it is the order of findings (threats first, then secrets).
//!
//! Threat regexes run (case-insensitively) on normalised views of the text (see `scan.rs`); the
//! `squashed` regexes run on the text reduced to lower-case letters and digits only, and hold just a
//! few core phrases, so that "i g n o r e p r e v i o u s ..." is still caught. Secret regexes run
//! on the raw text and on its NFKC form; a named group `v` (or the whole match) is the candidate
//! value that must pass the placeholder filter and the pattern's own check.
//!
//! Every filler between two words is bounded (`{0,N}`), never an unbounded `.*`. Regexes for
//! instructions in other languages live in `lang/`, one file an intent (each pattern's
//! `lang`). The entries live in `instructions.rs`, `actions.rs` and `secrets.rs`; the fragments
//! and keyword groups they share here.

use super::{Family, Re};

/// How a pattern is evaluated.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    /// Regexes over the normalised threat views.
    Threat,
    /// Like `Threat`, and also a match of any other threat pattern on a decoded view (a base64
    /// blob or the rot13 of the text) that the plain views did not show.
    Encoded,
    /// Invisible characters, checked in code on the raw text.
    Invisible,
    /// Direction-override characters, checked in code on the raw text.
    Bidi,
    /// Regexes over the raw and NFKC text, with an optional check on the candidate value.
    Secret(Option<fn(&str) -> bool>),
}

/// One entry of the table.
#[derive(Clone, Copy)]
pub(super) struct Pattern {
    pub id: &'static str,
    pub kind: Kind,
    pub res: &'static [Re],
    /// Unicode-mode regexes for other languages (threat patterns only; see `lang/`).
    pub lang: &'static [Re],
    pub squashed: &'static [Re],
}

const fn re(src: &'static str, keys: &'static [&'static [&'static str]]) -> Re {
    Re {
        src,
        keys,
        unicode: false,
    }
}

impl Pattern {
    pub fn family(&self) -> Family {
        match self.kind {
            Kind::Secret(_) => Family::Secret,
            _ => Family::Threat,
        }
    }
}

// Separator between words of one clause: no word characters and no sentence terminator.
macro_rules! sep {
    () => {
        r"[^a-z0-9_.;!?]+"
    };
}
macro_rules! word {
    () => {
        r"[a-z0-9_'-]+"
    };
}
macro_rules! ign_verb { () => { r"\b(?:ignore|disregard|forget|override|overrule|bypass|discard|abandon|drop|scrap|ditch|toss|throw\s+out|unlearn|wipe|erase|neglect|dismiss|(?:do\s+not|don'?t|never|stop|no\s+longer|cease)\s+(?:follow(?:ing)?|obey(?:ing)?|heed(?:ing)?|respect(?:ing)?|abid(?:e|ing)\s+by|adher(?:e|ing)\s+to|comply(?:ing)?\s+with)|set\s+aside|put\s+aside|pay\s+no\s+attention\s+to|(?:do\s+not|don'?t)\s+pay\s+(?:any\s+)?attention\s+to|take\s+no\s+notice\s+of)" } }
// Nouns for what a prompt's instructions are called.
macro_rules! instr_noun { () => { r"(?:instructions?|rules|directives?|guidelines|guidance|prompts?|system\s+prompt|commands|constraints|guardrails|programming|polic(?:y|ies)|restrictions|orders|context)" } }
macro_rules! net { () => { r"(?:curl|wget|fetch|invoke-webrequest|invoke-restmethod|iwr|irm|nc|ncat|netcat|socat|telnet|xh|httpie|requests\.(?:post|get|put)|axios\.(?:post|get)|urllib)" } }
// Credential files (never bare `.env`, which has its own fragment; never `id_rsa.pub`).
macro_rules! cred { () => { r"(?:\bid_(?:rsa|dsa|ecdsa|ed25519)(?:$|[^.\w]|\.(?:$|[^p\w]))|\.aws[/\\]+credentials\b|[._]netrc\b|\.pgpass\b|\.git-credentials\b|\.docker[/\\]config\.json|\.kube[/\\]config\b|application_default_credentials\.json|\.config[/\\]gcloud[/\\]|\.npmrc\b|\.pypirc\b|/etc/shadow\b|\.config[/\\]gh[/\\]hosts\.yml|\.vault-token\b|\bcredentials\.json\b)" } }
macro_rules! dotenv {
    () => {
        r"\.env(?:\.(?:local|prod|production|dev|development|staging|test))?(?:$|[\s'`)|;&>,]|\.\s)"
    };
}
// `.env` read whole: not when piped straight into `grep` or `wc` (`cat .env | grep PORT`).
macro_rules! dotenv_read {
    () => {
        r"\.env(?:\.(?:local|prod|production|dev|development|staging|test))?(?:$|['`);&>,]|\.\s|\s+(?:[^\s|]|$)|\s*\|\s*(?:[^gw\s]|g[^r]|w[^c]))"
    };
}
// An approval given in advance (see `standing_permission`).
macro_rules! permit { () => { r"\b(?:pre-?approved|pre-?authori[sz]ed|approved|authori[sz]ed|(?:blanket|standing|permanent|unconditional|full|prior)\s+(?:approval|permission|consent|authori[sz]ation)|permission\s+(?:is\s+)?granted|grants?\s+(?:you\s+)?(?:permanent\s+|blanket\s+|full\s+)?(?:consent|permission)|consent(?:ed)?\s+to|allowed\s+to|entitled\s+to|auto-?approve)\b" } }
// Every command, every tool call, sudo.
macro_rules! any_command { () => { r"\b(?:(?:every|all|any)\s+(?:(?:of\s+(?:the|your|my)\s+)?[a-z-]+\s+){0,2}?(?:commands?|tool\s+calls?|tools|actions|operations|scripts?|changes)\b|everything\b|anything\b|sudo\b|root\b|rm\s+-rf\b)" } }
// Without asking first.
macro_rules! unasked { () => { r"\b(?:without\s+(?:first\s+)?(?:asking|confirm\w*|checking|prompting|approval|permission|review(?:ing)?|a\s+(?:prompt|confirmation))|(?:no|never|don'?t|do\s+not|doesn'?t|does\s+not)\s+(?:need\s+to\s+|have\s+to\s+)?(?:ask|confirm|check|wait)\b|skip\s+(?:the\s+)?(?:confirm\w*|approval|prompt)|(?:do\s+not|don'?t|never)\s+prompt\s+for\s+confirm\w*|no\s+(?:need|confirmation|approval)\b)" } }
macro_rules! user { () => { r"(?:the\s+|your\s+|any\s+|this\s+|my\s+)?(?:end[\s-]?)?(?:user|human|operator|owner|requester)s?\b" } }
macro_rules! obj { () => { r"(?:this|that|it|these|those|them|anything|everything|any\s+of\s+(?:this|these|it)|about\s+(?:this|that|it|these|them)|what\s+you(?:'re|\s+are|\s+did|\s+do|\s+have\s+done)?|the\s+(?:above|following|truth)|(?:this|these|that)\s+(?:instructions?|messages?|notes?|memor(?:y|ies)|steps?|actions?|changes?|commands?|requests?))" } }
macro_rules! neg { () => { r"\b(?:do\s+not|don'?t|never|must\s+not|mustn'?t|should\s+not|shouldn'?t|avoid)\s+(?:ever\s+)?" } }
macro_rules! agent_file { () => { r"(?:\b(?:agents|claude|gemini|copilot-instructions)\.md\b|\.cursorrules\b|\.clinerules\b|\.windsurfrules\b|\.cursor[/\\]rules\b)" } }
macro_rules! rc_file { () => { r"\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|kshrc|cshrc|tcshrc)\b" } }
macro_rules! secret_ref { () => { concat!(
    r"(?:\$\{?[a-z_][a-z0-9_]*(?:key|token|secret|pass|pwd|password|credential|creds|auth|cookie|session)[a-z0-9_]*\}?",
    r"|\$\(\s*(?:env|printenv|set)\b|\$\(\s*cat\s+[^)\n]{0,40}?", cred!(), r"|`\s*(?:env|printenv)\b",
    r"|\$env:[a-z_]*(?:key|token|secret|pass)|%[a-z_]*(?:key|token|secret|pass)[a-z_]*%|\b(?:gci|get-childitem|dir|ls)\s+env:",
    r"|process\.env\b|os\.environ\b|os\.getenv\b|\bprintenv\b|\benv\s*\||@\S{0,30}?", dotenv!(), "|", cred!(), ")")
} }

// Keyword groups shared by several prefilters (see `Re`). Each lists, for one fragment above, a
// literal that every match of the fragment contains.

/// `ign_verb!`.
const IGN_VERB: &[&str] = &[
    "ignore",
    "disregard",
    "forget",
    "override",
    "overrule",
    "bypass",
    "discard",
    "abandon",
    "drop",
    "scrap",
    "ditch",
    "toss",
    "throw",
    "unlearn",
    "wipe",
    "erase",
    "neglect",
    "dismiss",
    "follow",
    "obey",
    "heed",
    "respect",
    "abid",
    "adher",
    "comply",
    "aside",
    "attention",
    "notice",
];
/// `instr_noun!`.
const INSTR_NOUN: &[&str] = &[
    "instruction",
    "rules",
    "directive",
    "guidelines",
    "guidance",
    "prompt",
    "commands",
    "constraints",
    "guardrails",
    "programming",
    "polic",
    "restrictions",
    "orders",
    "context",
];
/// `net!`.
const NET: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "invoke-",
    "iwr",
    "irm",
    "nc",
    "netcat",
    "socat",
    "telnet",
    "xh",
    "httpie",
    "requests.",
    "axios.",
    "urllib",
];
/// `cred!`.
const CRED: &[&str] = &[
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "credentials",
    "netrc",
    "pgpass",
    "config.json",
    "kube",
    "gcloud",
    "npmrc",
    "pypirc",
    "/etc/shadow",
    "hosts.yml",
    "vault-token",
];
/// `cred!` or `dotenv!`.
const CRED_OR_DOTENV: &[&str] = &[
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "credentials",
    "netrc",
    "pgpass",
    "config.json",
    "kube",
    "gcloud",
    "npmrc",
    "pypirc",
    "/etc/shadow",
    "hosts.yml",
    "vault-token",
    ".env",
];
/// `secret_ref!`: `$…`, `%…%`, `env`/`printenv`/`.env`/`process.env`/`os.environ`, or `cred!`.
const SECRET_REF: &[&str] = &[
    "$",
    "%",
    "env",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "credentials",
    "netrc",
    "pgpass",
    "config.json",
    "kube",
    "gcloud",
    "npmrc",
    "pypirc",
    "/etc/shadow",
    "hosts.yml",
    "vault-token",
];
/// `neg!`.
const NEG: &[&str] = &["not", "don", "never", "mustn", "shouldn", "avoid"];
/// `user!`.
const USER: &[&str] = &["user", "human", "operator", "owner", "requester"];
/// `agent_file!`.
const AGENT_FILE: &[&str] = &[
    "agents.md",
    "claude.md",
    "gemini.md",
    "copilot-instructions.md",
    "cursorrules",
    "clinerules",
    "windsurfrules",
    "cursor/rules",
    "cursor\\rules",
];
/// `rc_file!`.
const RC_FILE: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".kshrc",
    ".cshrc",
    ".tcshrc",
];
/// `>`/`>>` or `tee`, the redirections of the persistence patterns.
const REDIRECT: &[&str] = &[">", "tee"];
/// An assignment or a colon.
const ASSIGN: &[&str] = &[":", "="];
/// A colon.
const COLON: &[&str] = &[":"];

mod actions;
mod instructions;
mod secrets;

/// The table, in output order: the instructions, the actions, then the secrets.
pub(super) static PATTERNS: &[Pattern] = &TABLE;

/// The three parts of the table, joined.
static TABLE: [Pattern;
    instructions::INSTRUCTIONS.len() + actions::ACTIONS.len() + secrets::SECRETS.len()] = joined([
    instructions::INSTRUCTIONS,
    actions::ACTIONS,
    secrets::SECRETS,
]);

/// `parts`, one after the other (`N` is the sum of their lengths).
const fn joined<const N: usize>(parts: [&[Pattern]; 3]) -> [Pattern; N] {
    let mut out = [parts[0][0]; N];
    let mut at = 0;
    let mut part = 0;
    while part < parts.len() {
        let mut i = 0;
        while i < parts[part].len() {
            out[at] = parts[part][i];
            at += 1;
            i += 1;
        }
        part += 1;
    }
    out
}
