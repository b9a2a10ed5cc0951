//! The pattern table. Order matters: it is the order of findings (threats first, then secrets).
//!
//! Threat regexes run (case-insensitively) on normalised views of the text (see `scan.rs`); the
//! `squashed` regexes run on the text reduced to lower-case letters and digits only, and hold just a
//! few core phrases, so that "i g n o r e p r e v i o u s ..." is still caught. Secret regexes run
//! on the raw text and on its NFKC form; a named group `v` (or the whole match) is the candidate
//! value that must pass the placeholder filter and the pattern's own check.
//!
//! Every filler between two words is bounded (`{0,N}`), never an unbounded `.*`.

use super::Family;

/// How a pattern is evaluated.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    /// Regexes over the normalised threat views.
    Threat,
    /// Invisible characters, checked in code on the raw text.
    Invisible,
    /// Direction-override characters, checked in code on the raw text.
    Bidi,
    /// Regexes over the raw and NFKC text, with an optional check on the candidate value.
    Secret(Option<fn(&str) -> bool>),
}

/// One entry of the table.
pub(super) struct Pattern {
    pub id: &'static str,
    pub kind: Kind,
    pub res: &'static [Re],
    pub squashed: &'static [Re],
}

/// A regex with its prefilter.
///
/// `keys` is a conjunction of groups of lower-case ASCII keywords: the regex cannot match unless,
/// for every group, the text it runs on contains at least one keyword of that group after ASCII
/// lower-casing (threat views, the squashed view) or after ASCII lower-casing plus folding `ſ` to
/// `s` and `K` (Kelvin) to `k` (secret views; these two are the only non-ASCII characters that
/// Unicode `(?i)` matches with an ASCII letter). Each keyword must be a literal that every match
/// contains, whatever branch it takes; a regex is compiled and run only when its groups pass.
pub(super) struct Re {
    pub src: &'static str,
    pub keys: &'static [&'static [&'static str]],
}

const fn re(src: &'static str, keys: &'static [&'static [&'static str]]) -> Re {
    Re { src, keys }
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
macro_rules! ign_verb { () => { r"\b(?:ignore|disregard|forget|override|overrule|bypass|discard|abandon|(?:do\s+not|don'?t|never|stop|no\s+longer)\s+(?:follow|obey|heed)(?:ing)?|set\s+aside|put\s+aside)" } }
macro_rules! net { () => { r"(?:curl|wget|fetch|invoke-webrequest|invoke-restmethod|iwr|irm|nc|ncat|netcat|socat|telnet|xh|httpie|requests\.(?:post|get|put)|axios\.(?:post|get)|urllib)" } }
// Credential files (never bare `.env`, which has its own fragment; never `id_rsa.pub`).
macro_rules! cred { () => { r"(?:\bid_(?:rsa|dsa|ecdsa|ed25519)(?:$|[^.\w]|\.(?:$|[^p\w]))|\.aws[/\\]+credentials\b|[._]netrc\b|\.pgpass\b|\.git-credentials\b|\.docker[/\\]config\.json|\.kube[/\\]config\b|application_default_credentials\.json|\.config[/\\]gcloud[/\\]|\.npmrc\b|\.pypirc\b|/etc/shadow\b|\.config[/\\]gh[/\\]hosts\.yml|\.vault-token\b|\bcredentials\.json\b)" } }
macro_rules! dotenv {
    () => {
        r"\.env(?:\.(?:local|prod|production|dev|development|staging|test))?(?:$|[\s'`)|;&>,]|\.\s)"
    };
}
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
    "follow",
    "obey",
    "heed",
    "aside",
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

/// The table, in output order.
pub(super) static PATTERNS: &[Pattern] = &[
    Pattern {
        id: "ignore_instructions",
        kind: Kind::Threat,
        res: &[
            re(
                concat!(
                    "(?i)",
                    ign_verb!(),
                    sep!(),
                    "(?:",
                    word!(),
                    sep!(),
                    "){0,3}?",
                    r"(?:previous(?:ly)?|prior|earlier|above|preceding|foregoing|former|original|initial|system|safety)",
                    sep!(),
                    "(?:",
                    word!(),
                    sep!(),
                    "){0,2}?",
                    r"(?:instructions?|rules|directives?|guidelines|guidance|prompts?|commands|constraints|guardrails|programming|polic(?:y|ies)|restrictions|orders|context)\b"
                ),
                &[
                    IGN_VERB,
                    &[
                        "previous",
                        "prior",
                        "earlier",
                        "above",
                        "preceding",
                        "foregoing",
                        "former",
                        "original",
                        "initial",
                        "system",
                        "safety",
                    ],
                    &[
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
                    ],
                ],
            ),
            re(
                concat!(
                    "(?i)",
                    ign_verb!(),
                    sep!(),
                    "(?:(?:all|any|of|the|these|those|every)",
                    sep!(),
                    "){0,2}(?:your|my|its|all)",
                    sep!(),
                    r"(?:(?:own|current|existing|core|original|internal|hidden|system|safety)",
                    sep!(),
                    ")?",
                    r"(?:instructions?|directives?|guidelines|guardrails|programming|rules|system\s+prompt|prompts?|training|constraints)\b"
                ),
                &[
                    IGN_VERB,
                    &[
                        "instruction",
                        "directive",
                        "guidelines",
                        "guardrails",
                        "programming",
                        "rules",
                        "prompt",
                        "training",
                        "constraints",
                    ],
                ],
            ),
            re(
                r"(?i)\b(?:ignore|disregard|forget)\s+(?:all\s+(?:of\s+)?)?(?:the\s+)?(?:above|everything\s+(?:above|before|prior|you\s+(?:were|have\s+been)\s+told|you\s+know))\s*(?:[.,;:!]|$|and\b)",
                &[&["ignore", "disregard", "forget"], &["above", "everything"]],
            ),
        ],
        squashed: &[
            re(
                r"(?:ignore|disregard|forget|override|bypass)(?:all|any|of|the|your|my|these){0,3}(?:previous|prior|earlier|above|preceding|original|initial|system)(?:instructions?|rules|prompts?|directives?|guidelines)",
                &[
                    &["ignore", "disregard", "forget", "override", "bypass"],
                    &[
                        "previous",
                        "prior",
                        "earlier",
                        "above",
                        "preceding",
                        "original",
                        "initial",
                        "system",
                    ],
                    &["instruction", "rules", "prompt", "directive", "guidelines"],
                ],
            ),
            re(
                r"(?:ignore|disregard|forget|override)(?:all|any)?(?:of)?your(?:instructions|rules|guidelines|programming|systemprompt)",
                &[
                    &["ignore", "disregard", "forget", "override"],
                    &["your"],
                    &[
                        "instructions",
                        "rules",
                        "guidelines",
                        "programming",
                        "systemprompt",
                    ],
                ],
            ),
            re(
                r"forgeteverythingyou(?:were|have|know)",
                &[&["forgeteverythingyou"]],
            ),
        ],
    },
    Pattern {
        id: "new_instructions",
        kind: Kind::Threat,
        res: &[
            re(
                r"(?i)\bfrom\s+now\s+on\b[\s,:;-]*(?:you|u)\s*(?:are|will|must|shall|'re|'ll|no\s+longer|have\s+no|should\s+(?:ignore|always|never|only))\b",
                &[&["from"], &["now"]],
            ),
            re(
                r"(?i)\b(?:new|updated|revised|real|actual|true|overriding)\s+(?:system\s+)?(?:instructions?|directives?|system\s+prompt)\s*:",
                &[
                    &[
                        "new",
                        "updated",
                        "revised",
                        "real",
                        "actual",
                        "true",
                        "overriding",
                    ],
                    &["instruction", "directive", "prompt"],
                    COLON,
                ],
            ),
            re(
                r"(?i)\byour\s+(?:new|real|true|actual|only)\s+(?:instructions|role|purpose|directive|objective|identity|system\s+prompt)\s+(?:is|are)\b",
                &[
                    &["your"],
                    &[
                        "instructions",
                        "role",
                        "purpose",
                        "directive",
                        "objective",
                        "identity",
                        "prompt",
                    ],
                ],
            ),
            re(
                r"(?i)\byou\s+(?:must|will)\s+now\s+(?:ignore|obey|follow\s+(?:only\s+)?(?:these|my|the\s+following))\b",
                &[&["now"], &["must", "will"], &["ignore", "obey", "follow"]],
            ),
        ],
        squashed: &[re(
            r"fromnowonyou(?:are|will|must|shall|re|ll)",
            &[&["fromnowonyou"]],
        )],
    },
    Pattern {
        id: "role_token",
        kind: Kind::Threat,
        res: &[
            re(
                r"(?i)<\|\s*[a-z_]{2,30}\s*\|>|\[/?inst\]|<</?sys>>|</?system(?:[_-]prompt)?\s*>|</(?:system[_-])?instructions\s*>",
                &[&[
                    "<|",
                    "inst]",
                    "sys>>",
                    "<system",
                    "</system",
                    "instructions",
                ]],
            ),
            re(
                r"(?im)^[ \t]*#{1,6}[ \t]*(?:system|assistant|developer)(?:[ \t]+(?:prompt|message|instructions?|override|note))?[ \t]*:",
                &[&["#"], &["system", "assistant", "developer"], COLON],
            ),
            re(
                r"(?im)^[ \t]*(?:system|developer)(?:[ \t]+(?:prompt|message|override|instructions?|note))?[ \t]*:[ \t]*(?:you\s+(?:are|must|will|shall|have\s+been)\b|you're\b|ignore\b|disregard\b|forget\b|override\b|from\s+now\b|new\s+instructions\b|the\s+(?:assistant|ai|model)\s+(?:must|will|should)\b)",
                &[&["system", "developer"], COLON],
            ),
            re(
                r"(?i)\bsystem\s+(?:override|instructions?)\s*:",
                &[&["system"], &["override", "instruction"], COLON],
            ),
        ],
        squashed: &[],
    },
    Pattern {
        id: "jailbreak_persona",
        kind: Kind::Threat,
        res: &[
            re(
                r"(?i)\byou(?:\s+are|'re)\s+(?:now\s+)?(?:(?-i:DAN)\b|in\s+(?:developer|dan|jailbreak|unrestricted|unfiltered|god)\s+mode\b|(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|unaligned|amoral)\s+(?:ai|model|assistant|chatbot|llm|version)\b)",
                &[
                    &["you"],
                    &[
                        "dan",
                        "mode",
                        "unrestricted",
                        "unfiltered",
                        "uncensored",
                        "jailbroken",
                        "unaligned",
                        "amoral",
                    ],
                ],
            ),
            re(
                r"(?i)\b(?:dan|jailbreak)\s+mode\b|\bdo\s+anything\s+now\b",
                &[&["mode", "anything"]],
            ),
            re(
                r"(?i)\bdeveloper\s+mode\b[^\n]{0,60}?(?:\bno\s+(?:restrictions|filters|limits|rules|censorship|guidelines)\b|\bwithout\s+(?:any\s+)?(?:restrictions|filters|limits|rules|censorship)\b|\bunrestricted\b|\buncensored\b|\bunfiltered\b)",
                &[
                    &["developer"],
                    &["mode"],
                    &[
                        "restrict",
                        "filter",
                        "limits",
                        "rules",
                        "censor",
                        "guidelines",
                    ],
                ],
            ),
            re(
                r"(?i)\b(?:unrestricted|uncensored|unfiltered)\b[^\n]{0,40}?\bdeveloper\s+mode\b",
                &[
                    &["unrestricted", "uncensored", "unfiltered"],
                    &["developer"],
                    &["mode"],
                ],
            ),
            re(
                r"(?i)\b(?:act|pretend|roleplay|behave)\s+(?:as|like|to\s+be|you\s+are)\s+(?:(?-i:DAN)\b|an?\s+(?:unrestricted|unfiltered|uncensored|jailbroken|evil)\s+(?:ai|model|assistant|chatbot|llm)\b)",
                &[
                    &["act", "pretend", "roleplay", "behave"],
                    &[
                        "dan",
                        "unrestricted",
                        "unfiltered",
                        "uncensored",
                        "jailbroken",
                        "evil",
                    ],
                ],
            ),
        ],
        squashed: &[re(
            r"doanythingnow|youarenowindevelopermode",
            &[&["doanythingnow", "youarenowindevelopermode"]],
        )],
    },
    Pattern {
        id: "hide_from_user",
        kind: Kind::Threat,
        res: &[
            re(
                concat!(
                    "(?i)",
                    neg!(),
                    r"(?:tell|mention|reveal|disclos|say|admit|expos|leak|explain|report|show)(?:ing|e|s)?\s+",
                    obj!(),
                    r"\s+(?:to|with)\s+",
                    user!()
                ),
                &[
                    NEG,
                    &[
                        "tell", "mention", "reveal", "disclos", "say", "admit", "expos", "leak",
                        "explain", "report", "show",
                    ],
                    USER,
                ],
            ),
            re(
                concat!(
                    "(?i)",
                    neg!(),
                    r"(?:tell|inform)\s+",
                    user!(),
                    r"\s*(?:about\s+)?(?:",
                    obj!(),
                    r"\b|what\b|that\s+you\b|you\b|[.!]|$)"
                ),
                &[NEG, &["tell", "inform"], USER],
            ),
            re(
                concat!(
                    "(?i)",
                    neg!(),
                    r"(?:notify|alert|warn|let)\s+",
                    user!(),
                    r"\s*(?:about\s+)?(?:",
                    obj!(),
                    r"\b|know\b|find\s+out\b|what\b|that\s+you\b)"
                ),
                &[NEG, &["notify", "alert", "warn", "let"], USER],
            ),
            re(
                concat!(
                    r"(?i)\bwithout\s+",
                    user!(),
                    r"(?:'s|s')?\s+(?:ever\s+)?(?:knowing|knowledge|noticing|realizing|realising|finding\s+out|being\s+(?:told|aware|informed)|awareness|suspecting)\b"
                ),
                &[
                    &["without"],
                    USER,
                    &[
                        "know",
                        "noticing",
                        "realizing",
                        "realising",
                        "finding",
                        "being",
                        "awareness",
                        "suspecting",
                    ],
                ],
            ),
            re(
                concat!(
                    r"(?i)\b(?:keep|hide|conceal|withhold|mask)\s+",
                    obj!(),
                    r"\s+(?:(?:a\s+)?secret\s+|hidden\s+|private\s+)?from\s+",
                    user!()
                ),
                &[
                    &["keep", "hide", "conceal", "withhold", "mask"],
                    &["from"],
                    USER,
                ],
            ),
            re(
                concat!(r"(?i)\bsecret\s+from\s+", user!()),
                &[&["secret"], &["from"], USER],
            ),
            re(
                concat!(
                    r"(?i)\b(?:make\s+sure|ensure)\s+(?:that\s+)?",
                    user!(),
                    r"\s+(?:does\s*n[o']?t|do\s+not|never|won'?t|will\s+not|can(?:no|')t)\s+(?:ever\s+)?(?:find\s+out|know|notice|learn|discover|suspect|realize|realise)\b"
                ),
                &[
                    &["sure"],
                    USER,
                    &[
                        "find", "know", "notice", "learn", "discover", "suspect", "realize",
                        "realise",
                    ],
                ],
            ),
            re(
                concat!(
                    r"(?i)\b",
                    user!(),
                    r"\s+(?:must|should|shall|will|can|may|is)\s*(?:never|not|n't)\s+(?:ever\s+)?(?:to\s+)?(?:know|find\s+out|learn|notice|be\s+told|be\s+informed|discover|suspect|realize|realise)\b(?:\s+(?:about|that|what)\b|\s+",
                    obj!(),
                    r"\b|\s*[.,;!]|\s*$)"
                ),
                &[
                    USER,
                    &["never", "not", "n't"],
                    &[
                        "know", "find", "learn", "notice", "told", "informed", "discover",
                        "suspect", "realize", "realise",
                    ],
                ],
            ),
        ],
        squashed: &[
            re(
                r"(?:donot|dont|never)(?:tell|mention|reveal|disclose)(?:this|that|it|anything)(?:to)?theuser",
                &[&["theuser"], &["tell", "mention", "reveal", "disclose"]],
            ),
            re(
                r"withouttheusers?(?:knowing|noticing)",
                &[&["withouttheuser"]],
            ),
            re(
                r"(?:keep|hide)(?:this|it)(?:a)?(?:secret|hidden)?fromtheuser",
                &[&["fromtheuser"]],
            ),
        ],
    },
    Pattern {
        id: "exfiltration",
        kind: Kind::Threat,
        res: &[
            re(
                concat!(r"(?i)\b", net!(), r"\b[^\n]{0,150}?", secret_ref!()),
                &[NET, SECRET_REF],
            ),
            re(
                concat!(
                    r"(?i)(?:\b(?:env|printenv|set)\s*|\b(?:cat|base64|xxd|tar|gzip|zip|type|get-content)\s+[^\n|;&]{0,60}?(?:",
                    cred!(),
                    "|",
                    dotenv!(),
                    r")[^\n|;&]{0,20}?|\$\{?[a-z_]*(?:key|token|secret|pass)[a-z0-9_]*\}?[^\n|]{0,10}?)\|\s*(?:base64(?:\s+-w\s*0)?\s*\|\s*)?(?:sudo\s+)?",
                    net!(),
                    r"\b"
                ),
                &[&["|"], NET],
            ),
            re(
                r"(?i)\b(?:send|post|upload|exfiltrate|forward|transmit|leak|email|e-mail|paste|submit|share|copy|sync|beacon)\s+(?:(?:the|your|all|any|my|our|their|these|those|every|user's)\s+){0,2}(?:[a-z_-]+\s+){0,2}?(?:api[\s_-]?keys?|apikeys?|credentials?|creds|tokens?|secrets?|passwords?|private[\s_-]?keys?|ssh[\s_-]?keys?|env(?:ironment)?[\s_-]?(?:vars?|variables)|\.env|session[\s_-]?cookies?|cookies|access[\s_-]?keys?)\b[^\n]{0,60}?\b(?:to|at|into|via|on)\s+(?:\S+\s+){0,3}?(?:[^\s@]+@)?(?:https?://|ftp://|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|xyz|ru|cn|tk|top|site|app|dev|me|co|sh|info|biz|cc|pw|link)\b|\d{1,3}(?:\.\d{1,3}){3}|webhook|pastebin|discord|telegram|ngrok|requestbin|the\s+attacker|this\s+(?:url|endpoint|server|address|host|email))",
                &[
                    &[
                        "send",
                        "post",
                        "upload",
                        "exfiltrate",
                        "forward",
                        "transmit",
                        "leak",
                        "email",
                        "e-mail",
                        "paste",
                        "submit",
                        "share",
                        "copy",
                        "sync",
                        "beacon",
                    ],
                    &[
                        "api", "cred", "token", "secret", "password", "private", "ssh", "env",
                        "session", "cookie", "access",
                    ],
                ],
            ),
            re(
                r"(?i)\b(?:nc|ncat|netcat)\s+(?:-\S+\s+){0,3}-[a-z]*[ec]\s*/bin/(?:ba|z)?sh\b|/dev/tcp/[0-9a-z.-]+/\d+",
                &[&["/bin/", "/dev/tcp/"]],
            ),
        ],
        squashed: &[],
    },
    Pattern {
        id: "credential_read",
        kind: Kind::Threat,
        res: &[
            re(
                concat!(
                    r"(?i)\b(?:cat|tac|bat|strings|xxd|hexdump|base64|grep|egrep|rg|awk|get-content|findstr)\s+[^\n`;&|]{0,60}?(?:",
                    cred!(),
                    "|",
                    dotenv!(),
                    ")"
                ),
                &[
                    &[
                        "cat",
                        "tac",
                        "bat",
                        "strings",
                        "xxd",
                        "hexdump",
                        "base64",
                        "grep",
                        "rg",
                        "awk",
                        "get-content",
                        "findstr",
                    ],
                    CRED_OR_DOTENV,
                ],
            ),
            re(
                concat!(
                    r"(?i)\b(?:more|less|head|tail|type|od|nl|gc|cp|scp|rsync)\s+(?:-[a-z0-9-]+(?:\s+[+-]?\d+)?\s+){0,4}\S{0,40}?(?:",
                    cred!(),
                    "|",
                    dotenv!(),
                    ")"
                ),
                &[CRED_OR_DOTENV],
            ),
            re(
                concat!(
                    r"(?i)(?:^|[.;:!?`$(|&]\s*|\b(?:and|then|now|please|first|also|just)\s+)(?:open|read|print|dump|display|show|output|echo|load|get|fetch|copy|paste|exfiltrate|upload|send|include|attach|reveal|extract|collect|grab|steal|encode)\s+[^\n`;&|]{0,40}?",
                    cred!()
                ),
                &[
                    &[
                        "open",
                        "read",
                        "print",
                        "dump",
                        "display",
                        "show",
                        "output",
                        "echo",
                        "load",
                        "get",
                        "fetch",
                        "copy",
                        "paste",
                        "exfiltrate",
                        "upload",
                        "send",
                        "include",
                        "attach",
                        "reveal",
                        "extract",
                        "collect",
                        "grab",
                        "steal",
                        "encode",
                    ],
                    CRED,
                ],
            ),
            re(
                concat!(r"(?i)\bopen\(\s*[^\n)]{0,60}?", cred!()),
                &[&["open("], CRED],
            ),
            re(
                concat!(
                    r"(?i)(?:^|[\s;&(`])(?:source|\.)\s+[^\s;&|]{0,30}?\.env\b[^\n]{0,80}?\b",
                    net!(),
                    r"\b"
                ),
                &[&[".env"], NET],
            ),
        ],
        squashed: &[],
    },
    Pattern {
        id: "ssh_key_persistence",
        kind: Kind::Threat,
        res: &[
            re(
                r"(?i)>>?\s*\S{0,60}?authorized_keys\b|\btee\s+(?:-a\s+)?\S{0,60}?authorized_keys\b",
                &[&["authorized_keys"], REDIRECT],
            ),
            re(
                r"(?i)\b(?:add|append|write|insert|put|copy|echo|place|inject|install)\b[^\n]{0,80}?\b(?:to|into)\s+(?:the\s+|your\s+)?\S{0,40}?authorized_keys\b",
                &[&["authorized_keys"]],
            ),
        ],
        squashed: &[],
    },
    Pattern {
        id: "agent_config_edit",
        kind: Kind::Threat,
        res: &[
            re(
                concat!(
                    r"(?i)>>?\s*\S{0,60}?",
                    agent_file!(),
                    r"|\btee\b[^\n|;&]{0,20}?",
                    agent_file!()
                ),
                &[AGENT_FILE, REDIRECT],
            ),
            re(
                concat!(
                    r"(?i)\b(?:append|add|insert|inject|prepend|write|put|place)\b[^\n]{0,80}?\b(?:to|into|in|inside|at)\s+(?:the\s+|your\s+)?(?:(?:top|end|bottom|start|beginning)\s+of\s+(?:the\s+)?)?\S{0,40}?",
                    agent_file!()
                ),
                &[AGENT_FILE],
            ),
            re(
                concat!(
                    r"(?i)\b(?:edit|modify|update|change|overwrite|rewrite|patch)\s+(?:the\s+|your\s+)?\S{0,40}?",
                    agent_file!(),
                    r"[^\n]{0,40}?\b(?:to|so\s+that|so\s+it|and\s+(?:add|append|insert))\b"
                ),
                &[AGENT_FILE],
            ),
        ],
        squashed: &[],
    },
    Pattern {
        id: "cron_persistence",
        kind: Kind::Threat,
        res: &[
            re(
                r#"(?i)\bcrontab\s+-(?:\s|$|["')|;&])|\|\s*(?:sudo\s+)?crontab\b|\bcrontab\s+(?:-u\s+\S+\s+)?[~/.$][^\s|;&]*"#,
                &[&["crontab"]],
            ),
            re(
                r"(?i)(?:>>?|\btee\s+(?:-a\s+)?)\s*(?:/etc/cron(?:tab|\.d|\.hourly|\.daily|\.weekly|\.monthly)\b|/var/spool/cron\b)",
                &[&["/etc/cron", "/var/spool/cron"], REDIRECT],
            ),
        ],
        squashed: &[],
    },
    Pattern {
        id: "shell_rc_edit",
        kind: Kind::Threat,
        res: &[
            re(
                concat!(
                    r#"(?i)(?:>>?|\btee\s+(?:-a\s+)?)\s*["']?(?:~|\$home|\$\{home\}|/root|/home/[^\s/]+)?/?"#,
                    rc_file!()
                ),
                &[RC_FILE, REDIRECT],
            ),
            re(
                r#"(?i)(?:>>?|\btee\s+(?:-a\s+)?)\s*["']?\S{0,40}?config\.fish\b|(?:>>?\s*|\badd-content\s+(?:-path\s+)?)\$profile\b"#,
                &[&["config.fish", "$profile"]],
            ),
        ],
        squashed: &[],
    },
    Pattern {
        id: "invisible_char",
        kind: Kind::Invisible,
        res: &[],
        squashed: &[],
    },
    Pattern {
        id: "bidi_control",
        kind: Kind::Bidi,
        res: &[],
        squashed: &[],
    },
    Pattern {
        id: "aws_access_key",
        kind: Kind::Secret(None),
        res: &[re(
            r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[A-Z0-9]{16}\b",
            &[&[
                "akia", "asia", "abia", "acca", "agpa", "aida", "aipa", "anpa", "anva", "apka",
                "aroa", "asca",
            ]],
        )],
        squashed: &[],
    },
    Pattern {
        id: "aws_secret_key",
        kind: Kind::Secret(Some(super::mixed_case_digits)),
        res: &[re(
            r#"(?i)\baws[_-]?(?:secret[_-]?(?:access[_-]?)?key|secret)["']?\s*(?::=|=>|=|:)\s*["']?(?P<v>[a-z0-9/+]{40})(?:[^a-z0-9/+=]|$)"#,
            &[&["aws"], &["secret"], ASSIGN],
        )],
        squashed: &[],
    },
    Pattern {
        id: "github_token",
        kind: Kind::Secret(Some(super::has_digit_and_letter)),
        res: &[re(
            r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b|\bgithub_pat_[A-Za-z0-9_]{40,255}\b",
            &[&["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]],
        )],
        squashed: &[],
    },
    Pattern {
        id: "anthropic_key",
        kind: Kind::Secret(Some(super::has_digit_and_letter)),
        res: &[re(r"\bsk-ant-[A-Za-z0-9_-]{20,}", &[&["sk-ant-"]])],
        squashed: &[],
    },
    Pattern {
        id: "openai_key",
        kind: Kind::Secret(Some(super::openai_ok)),
        res: &[re(
            r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
            &[&["sk-"]],
        )],
        squashed: &[],
    },
    Pattern {
        id: "slack_token",
        kind: Kind::Secret(Some(super::has_digit_and_letter)),
        res: &[re(r"\bxox[abposre]-[A-Za-z0-9-]{10,}", &[&["xox"]])],
        squashed: &[],
    },
    Pattern {
        id: "slack_webhook",
        kind: Kind::Secret(None),
        res: &[re(
            r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}",
            &[&["https://hooks.slack.com/"]],
        )],
        squashed: &[],
    },
    Pattern {
        id: "google_api_key",
        kind: Kind::Secret(None),
        res: &[re(r"\bAIza[0-9A-Za-z_-]{35}", &[&["aiza"]])],
        squashed: &[],
    },
    Pattern {
        id: "stripe_key",
        kind: Kind::Secret(None),
        res: &[re(r"\b(?:sk|rk)_live_[0-9A-Za-z]{20,}", &[&["k_live_"]])],
        squashed: &[],
    },
    Pattern {
        id: "private_key",
        kind: Kind::Secret(None),
        res: &[re(
            r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----",
            &[&["-----begin"], &["private key"]],
        )],
        squashed: &[],
    },
    Pattern {
        id: "jwt",
        kind: Kind::Secret(None),
        res: &[re(
            r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
            &[&["eyj"]],
        )],
        squashed: &[],
    },
    Pattern {
        id: "ozk_key",
        kind: Kind::Secret(None),
        res: &[re(r"\bozk_[A-Za-z0-9]{16,}", &[&["ozk_"]])],
        squashed: &[],
    },
    Pattern {
        id: "generic_secret",
        kind: Kind::Secret(Some(super::generic_ok)),
        res: &[re(
            r#"(?i)(?:^|[^a-z0-9])(?:[a-z0-9_.-]{0,30}?[_.-])?(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|client[_-]?secret|auth[_-]?token|secret[_-]?key|private[_-]?key)(?:[_-][a-z0-9_-]{0,20})?["']?\s*(?::=|=>|=|:)\s*["']?(?P<v>[^\s"'`,;]{12,200})"#,
            &[
                &[
                    "password", "passwd", "pwd", "secret", "token", "api", "access", "private",
                ],
                ASSIGN,
            ],
        )],
        squashed: &[],
    },
];
