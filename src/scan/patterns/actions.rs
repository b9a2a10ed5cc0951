//! The threat patterns of what a planted instruction makes the agent do or hide: send data away
//! (`exfiltration`, `markdown_exfiltration`), read credentials (`credential_read`), persist
//! (`ssh_key_persistence`, `agent_config_edit`, `cron_persistence`, `shell_rc_edit`), forge tool
//! calls (`tool_call_injection`); and what hides text: an HTML comment (`hidden_comment`), an
//! encoded payload (`encoded_payload`), invisible and direction-override characters
//! (`invisible_char`, `bidi_control`).

use super::*;

/// Their entries, in output order.
pub(super) const ACTIONS: &[Pattern] = &[
    Pattern {
        id: "exfiltration",
        lang: crate::scan::lang::EXFIL,
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
                r"(?i)\b(?:send|post|upload|exfiltrate|forward|transmit|leak|email|e-mail|paste|submit|share|copy|sync|beacon)\s+(?:(?:the|your|all|any|my|our|their|these|those|every|user's)\s+){0,2}(?:[a-z_-]+\s+){0,2}?(?:api[\s_-]?keys?|apikeys?|credentials?|creds|tokens?|secrets?|passwords?|private[\s_-]?keys?|ssh[\s_-]?keys?|env(?:ironment)?[\s_-]?(?:vars?|variables)|\.env|session[\s_-]?cookies?|cookies|access[\s_-]?keys?)(?:\s+(?:files?|values?|contents?|strings?|vars?|variables|here|now|immediately|directly|straight|secretly|silently|quietly|too|also))?\s*[,;:]?(?:\s+(?:and|or|plus|with|from|in|of|inside|stored\s+in|found\s+in|along\s+with)\s+[^\n]{0,40}?)?\s+(?:to|at|into|via|on|over|through|using)\s+(?:\S+\s+){0,3}?(?:[^\s@]+@)?(?:https?://|ftp://|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|xyz|ru|cn|tk|top|site|app|dev|me|co|sh|info|biz|cc|pw|link)\b|\d{1,3}(?:\.\d{1,3}){3}|webhook|pastebin|discord|telegram|ngrok|requestbin|the\s+attacker|this\s+(?:url|endpoint|server|address|host|email))",
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
            // The environment sent to a destination: "post the output of `env` to https://…",
            // "run printenv and send the result to …", "dump os.environ … POST it to …".
            re(
                r"(?i)(?:\b(?:post|send|upload|paste|forward|email|e-mail|share|submit|transmit|pipe|dump)\b[^\n]{0,60}?(?:`\s*(?:env|printenv|set)\s*`|\b(?:printenv|os\.environ|process\.env)\b|\boutput\s+of\s+(?:env|printenv|set)\b|\b(?:full|whole|entire)\s+environment\b|\benvironment\s+variables\b)|(?:`\s*(?:env|printenv|set)\s*`|\b(?:printenv|os\.environ|process\.env)\b|\b(?:full|whole|entire)\s+environment\b)[^\n]{0,60}?\b(?:post|send|upload|paste|forward|email|e-mail|share|submit|transmit)\b)[^\n]{0,60}?\b(?:to|into|at|on|via)\s+(?:\S+\s+){0,4}?(?:https?://|ftp://|[^\s@]+@[a-z0-9-]+\.|\d{1,3}(?:\.\d{1,3}){3}|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|xyz|ru|cn|tk|top|site|app|dev|me|co|sh|info|biz|cc|pw|link)\b|webhook|pastebin|gist)",
                &[
                    &[
                        "post", "send", "upload", "paste", "forward", "email", "e-mail", "share",
                        "submit", "transmit", "pipe", "dump",
                    ],
                    &["env", "environment"],
                ],
            ),
            re(
                concat!(
                    r"(?i)(?:\b(?:gci|get-childitem|dir|ls)\s+env:|\bos\.environ\b|\bprocess\.env\b)[^\n]{0,100}?\|\s*(?:[^\n|]{0,60}\|\s*)?",
                    net!(),
                    r"\b"
                ),
                &[&["env"], &["|"], NET],
            ),
        ],
        squashed: &[],
    },
    Pattern {
        id: "pipe_to_shell",
        lang: &[],
        kind: Kind::Threat,
        res: &[
            // `curl -s https://…/x.sh | bash`, `wget -qO- … | sudo sh`, `iwr … | iex`,
            // `curl … | python3 -`: a download piped into an interpreter.
            re(
                r"(?i)\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch)\b[^\n|]{0,200}?(?:(?:https?|ftp)://|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b[a-z0-9-]+\.[a-z]{2,}/)[^\n|]{0,200}\|\s*(?:sudo\s+(?:-\S+\s+){0,3})?(?:(?:ba|z|da|k|c|tc|fi)?sh\b|iex\b|invoke-expression\b|pwsh\b|powershell\b|(?:python[0-9.]*|perl|ruby|node)(?:\s+-)?\s*(?:$|[;&)`'\x22]))",
                &[
                    &["curl", "wget", "iwr", "irm", "invoke-", "fetch"],
                    &["|"],
                    &["://", ".", "/"],
                    &[
                        "sh",
                        "iex",
                        "invoke-expression",
                        "pwsh",
                        "powershell",
                        "python",
                        "perl",
                        "ruby",
                        "node",
                    ],
                ],
            ),
            // `bash <(curl -fsSL …)`, `source <(wget -qO- …)`, `sh -c "$(curl …)"`,
            // `eval "$(wget -O- …)"`, `iex (iwr …)`.
            re(
                r"(?i)(?:\b(?:ba|z|k|da)?sh|\bsource|(?:^|[\s;&])\.)\s+<\(\s*(?:curl|wget)\b|\b(?:(?:ba|z|k|da)?sh\s+-c|eval)\s+[\x22']?\$\(\s*(?:curl|wget)\b|\b(?:iex|invoke-expression)\s*\(\s*(?:iwr|irm|invoke-|new-object)",
                &[&["curl", "wget", "iwr", "irm", "invoke-", "new-object"]],
            ),
        ],
        squashed: &[],
    },
    Pattern {
        id: "credential_read",
        lang: &[],
        kind: Kind::Threat,
        res: &[
            re(
                concat!(
                    r"(?i)\b(?:cat|tac|bat|strings|xxd|hexdump|base64|grep|egrep|rg|awk|get-content|findstr)\s+[^\n`;&|]{0,60}?(?:",
                    cred!(),
                    "|",
                    dotenv_read!(),
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
                    r"(?i)(?:^|[.;:!?`$(|&]\s*|\b(?:and|then|now|please|first|also|just)\s+)(?:open|read|print|dump|display|show|output|echo|load|get|fetch|copy|paste|exfiltrate|upload|send|include|attach|reveal|extract|collect|grab|steal|encode|post|share|publish|transfer)\s+[^\n`;&|]{0,40}?",
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
                        "post",
                        "share",
                        "publish",
                        "transfer",
                    ],
                    CRED,
                ],
            ),
            re(
                concat!(
                    r"(?i)\bgh\s+gist\s+create\b[^\n;&|]{0,60}?(?:",
                    cred!(),
                    "|",
                    dotenv!(),
                    ")"
                ),
                &[&["gist"], CRED_OR_DOTENV],
            ),
            re(
                concat!(r"(?i)\bopen\(\s*[^\n)]{0,60}?", cred!()),
                &[&["open("], CRED],
            ),
            re(
                concat!(
                    r"(?i)(?:^|[\s;&(`])(?:source|\.)\s+[^\s;&|]{0,30}?\.env\b[^\n]{0,80}?\b",
                    net!(),
                    // To a named host: `curl localhost:3000/health` after `source .env` is a
                    // local check.
                    r"\b[^\n|;&]{0,80}?(?:https?://)?(?:[a-z0-9-]+\.)+[a-z]{2,}\b"
                ),
                &[&[".env"], NET],
            ),
        ],
        squashed: &[],
    },
    Pattern {
        id: "ssh_key_persistence",
        lang: &[],
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
        lang: &[],
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
                    r"(?i)\b(?:append|add|insert|inject|prepend|write|put|place)\s+(?:[\x22'`]|(?:the|this|these|a|an)\s+(?:following|below|above|block|line|lines|rule|rules|instruction|instructions|text|sentence|snippet|paragraph|section)\b|(?:this|these|always|never)\b)[^\n]{0,80}?\b(?:to|into|in|inside|at)\s+(?:the\s+|your\s+)?(?:(?:top|end|bottom|start|beginning)\s+of\s+(?:the\s+)?)?\S{0,40}?",
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
        lang: &[],
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
        lang: &[],
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
        id: "tool_call_injection",
        lang: &[],
        kind: Kind::Threat,
        res: &[
            // Tags of tool-call formats: `<tool_call>`, `<function_calls>`, `<invoke name=…>`,
            // `<tool_use>`, OpenHands' `<execute_bash>`.
            re(
                r"(?i)<\s*/?\s*(?:tool_calls?|tool_use|tool_code|function_calls?|functioncall|execute_(?:bash|command|ipython)|run_command|invoke\s+name\s*=)",
                &[
                    &[
                        "tool_call",
                        "tool_use",
                        "tool_code",
                        "function_call",
                        "functioncall",
                        "execute_",
                        "run_command",
                        "invoke",
                    ],
                    &["<"],
                ],
            ),
            // Mistral's `[TOOL_CALLS]`, a ```tool_code block, `functions.bash(`.
            re(
                r"(?i)\[tool_calls\]|```\s*tool_code|\bfunctions\.[a-z_]{2,30}\s*\(",
                &[&["tool_calls", "tool_code", "functions."]],
            ),
            // A JSON argument that deletes, wipes, reads credentials or pipes a download into a
            // shell: `{"cmd": "rm -rf /"}`, `"command": "cat ~/.ssh/id_rsa"`.
            re(
                concat!(
                    r#"(?i)"(?:cmd|command|commands|code|script|input|action_input|query|args|arguments|text|content|shell|exec|run)"\s*:\s*[\[{"][^\n]{0,200}?"#,
                    r"(?:\brm\s+(?:-[a-z]+\s+)*-[a-z]*(?:r[a-z]*f|f[a-z]*r)[a-z]*\s+(?:--no-preserve-root\s+)?(?:/|~|\$home|\$\{home\}|\*|\.{1,2}(?:\s|$|[\x22;&|]))",
                    r"|\bmkfs\b|\bdd\s+if=|:\(\)\s*\{|\bchmod\s+-r\s+777\s+/|\bgit\s+push\s+(?:-f|--force)\b|\bdrop\s+(?:table|database|schema)\b",
                    r"|\b(?:curl|wget)\b[^\n\x22]{0,80}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|\bprintenv\b|\bos\.environ\b|\bprocess\.env\b|~/\.ssh\b|\.ssh/|\bshutdown\b|\breboot\b",
                    // A JSON string inside JSON: `\"cat .env\"`.
                    r"|\.env\\\x22",
                    r"|",
                    cred!(),
                    "|",
                    dotenv!(),
                    ")"
                ),
                &[
                    &["\""],
                    COLON,
                    &[
                        "rm",
                        "mkfs",
                        "dd",
                        "()",
                        "chmod",
                        "git",
                        "drop",
                        "curl",
                        "wget",
                        "printenv",
                        "environ",
                        "process.env",
                        ".ssh",
                        "shutdown",
                        "reboot",
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
                    ],
                ],
            ),
            // A tool call whose tool deletes or destroys: `{"name": "delete_repository", …}`.
            re(
                r#"(?i)"(?:name|tool|function|tool_name|action)"\s*:\s*"[a-z0-9_.-]{0,30}(?:delete|destroy|drop|wipe|purge|truncate|erase)[a-z0-9_.-]{0,30}""#,
                &[
                    &["name", "tool", "function", "action"],
                    &[
                        "delete", "destroy", "drop", "wipe", "purge", "truncate", "erase",
                    ],
                ],
            ),
        ],
        squashed: &[],
    },
    Pattern {
        id: "markdown_exfiltration",
        lang: &[],
        kind: Kind::Threat,
        res: &[
            // A markdown image (or an HTML image) whose URL carries a template placeholder, a
            // shell variable or an UPPER_SNAKE stand-in for data: rendering it sends the data.
            re(
                concat!(
                    r"(?i)(?:!\[[^\]\n]{0,200}\]\(\s*<?|<img\b[^>\n]{0,100}?\bsrc\s*=\s*[\x22']?)(?:https?:)?//[^\s)\x22'>]{0,300}?",
                    r"(?:\{\{|\{[a-z_]|\$\{|\$\(|\$[a-z_]|%[a-z_]{2,40}%|<[a-z]|\[[a-z_]{2,40}\]|[?&][a-z0-9_]{1,30}=(?-i:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+))"
                ),
                &[&["](", "<img"], &["//"]],
            ),
            // A markdown link whose query string carries a placeholder.
            re(
                r"(?i)\]\(\s*<?(?:https?:)?//[^\s)]{0,300}?[?&#][^\s)]{0,200}?(?:\{\{|\{[a-z_]|\$\{|\$\(|\$[a-z_]|%[a-z_]{2,40}%|=<[a-z]|=\[[a-z_])",
                &[&["]("], &["//"]],
            ),
            // Instructions to put the conversation (or the user's data) into a URL.
            re(
                r"(?i)\b(?:append|add|include|put|insert|encode|attach|embed|substitute|fill\s+in|place|paste)\s+[^\n]{0,60}?\b(?:conversation|chat(?:\s+history)?|history|(?:previous|last|latest|user'?s?)\s+(?:message|messages|question|input|answer|reply)|messages|memory|memories|system\s+prompt|user'?s\s+[a-z]+|everything\s+(?:above|so\s+far))\b[^\n]{0,60}?\b(?:to|in|into|as|onto|inside)\s+(?:the\s+|this\s+|that\s+|an?\s+)?(?:url|query(?:\s+string)?|link|image(?:\s+url)?|src|parameter|request|(?:https?:)?//)",
                &[
                    &[
                        "append",
                        "add",
                        "include",
                        "put",
                        "insert",
                        "encode",
                        "attach",
                        "embed",
                        "substitute",
                        "fill",
                        "place",
                        "paste",
                    ],
                    &[
                        "conversation",
                        "chat",
                        "history",
                        "message",
                        "question",
                        "input",
                        "answer",
                        "reply",
                        "memor",
                        "prompt",
                        "user",
                        "everything",
                    ],
                ],
            ),
            // The same with a secret, when the text also renders an image.
            re(
                concat!(
                    r"(?i)\b(?:append|add|include|put|insert|encode|attach|embed|substitute|place|paste)\s+[^\n]{0,60}?(?:\.env|api[\s_-]?keys?|secrets?|tokens?|passwords?|credentials)\b[^\n]{0,60}?\b(?:to|in|into|as|onto|inside)\s+(?:the\s+|this\s+|that\s+|an?\s+)?(?:url|query(?:\s+string)?|link|image(?:\s+url)?|src|parameter|(?:https?:)?//)",
                    r"[^\n]{0,160}?(?:!\[|<img|\brender|\bdisplay|\bshow|\bimage|\bmarkdown)"
                ),
                &[
                    &[
                        "append",
                        "add",
                        "include",
                        "put",
                        "insert",
                        "encode",
                        "attach",
                        "embed",
                        "substitute",
                        "place",
                        "paste",
                    ],
                    &[".env", "api", "secret", "token", "password", "credential"],
                ],
            ),
            // A URL with an empty query value that the conversation or a secret is to follow:
            // "https://x.y/log?msg= plus the previous message".
            re(
                r"(?i)(?:https?:)?//[^\s)]{0,200}?[?&][a-z0-9_]{1,30}=(?:[\s)]|$)[^\n]{0,40}?(?:\bplus|\bfollowed\s+by|\bwith|\band\s+(?:then\s+)?append|\bthen\s+append|\+)\s+[^\n]{0,40}?\b(?:conversation|chat|history|messages?|memory|secrets?|keys?|tokens?|passwords?|credentials|user'?s)\b",
                &[
                    &["//"],
                    &["="],
                    &[
                        "conversation",
                        "chat",
                        "history",
                        "message",
                        "memory",
                        "secret",
                        "key",
                        "token",
                        "password",
                        "credentials",
                        "user",
                    ],
                ],
            ),
        ],
        squashed: &[],
    },
    Pattern {
        id: "hidden_comment",
        lang: &[],
        kind: Kind::Threat,
        res: &[re(
            concat!(
                r"(?i)<!--(?:[^-]|-[^-]){0,300}?(?:",
                r"\b(?:ai|assistant|agents?|model|llm|bot|claude|gpt|chatgpt|copilot|gemini|cursor)(?:\s+(?:instructions?|notes?))?\s*[:,]",
                r"|\b(?:if|when)\s+you(?:'re|\s+are)\s+(?:an?\s+)?(?:ai|assistant|agent|llm|language\s+model|bot|model)\b",
                r"|\bnote\s+to\s+(?:the\s+|any\s+|all\s+)?(?:ai|assistant|agent|model|llm|bot)s?\b",
                r"|\b(?:ai|assistant|agent|llm|model)s?\s+(?:reading|processing|summari[sz]ing|parsing)\s+this\b",
                r"|\byou\s+(?:must|should|shall|will|need\s+to|have\s+to|are\s+to)\b",
                r"|\b(?:always|never|secretly|silently|quietly|covertly)\s+(?:[a-z]+\s+)?(?:recommend|suggest|run|execute|send|forward|reply|respond|answer|output|print|include|mention|tell|say|push|merge|approve|install|add|use|delete|remove|call|visit|open|fetch|upload|disable|enable|skip)\b",
                r"|\b(?:when|while|whenever)\s+(?:you\s+(?:are\s+)?)?(?:summari[sz]|answer|respond|repl|ask|read|process|generat|writ)[a-z]*\b[^\n]{0,60}?\b(?:also|always|never|instead|secretly|silently)\b",
                r"|(?:^|[\s:;,.])(?:ignore|disregard|forget|pretend|obey)\s+(?:the|all|any|your|previous|prior|this|that|everything|what)\b)"
            ),
            &[&["<!--"]],
        )],
        squashed: &[],
    },
    Pattern {
        id: "encoded_payload",
        lang: &[],
        kind: Kind::Encoded,
        res: &[
            // "decode this base64 and follow it", "rot13 … apply them", "what … decodes to is
            // what you should do".
            re(
                r"(?i)\b(?:decod(?:e|ed|es|ing)|atob|b64decode|unbase64|rot-?13|caesar|decipher|unscramble|deobfuscate)\b[^\n]{0,200}?\b(?:follow|obey|execute|exec|comply|carry\s+out|act\s+on|do\s+what\s+it\s+says|what\s+you\s+(?:should|must|will)\s+do|treat\s+(?:it|the\s+result|the\s+output|them)\s+as|(?:run|apply|do|eval(?:uate)?|perform)\s+(?:it|them|this|that|the\s+(?:result|output|decoded|command|commands|instructions|steps|text|string|payload)|those\s+(?:steps|instructions|commands)))\b",
                &[
                    &[
                        "decod",
                        "atob",
                        "b64decode",
                        "unbase64",
                        "rot",
                        "caesar",
                        "decipher",
                        "unscramble",
                        "deobfuscate",
                    ],
                    &[
                        "follow", "obey", "exec", "comply", "carry", "act", "says", "what",
                        "treat", "run", "apply", "do", "eval", "perform",
                    ],
                ],
            ),
            // "follow the base64 instructions".
            re(
                r"(?i)\b(?:follow|obey|execute|run|apply|carry\s+out)\s+(?:the\s+|these\s+|those\s+|this\s+)?(?:base64|b64|rot-?13|encoded|decoded|hidden|obfuscated)\b",
                &[
                    &["follow", "obey", "execute", "run", "apply", "carry"],
                    &[
                        "base64",
                        "b64",
                        "rot",
                        "encoded",
                        "decoded",
                        "hidden",
                        "obfuscated",
                    ],
                ],
            ),
            // A decoded blob piped into a shell: `echo … | base64 -d | sh`.
            re(
                r"(?i)\b(?:base64|b64)\s+(?:-d|--decode|-D)\b[^\n|]{0,20}\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b",
                &[&["base64", "b64"], &["|"]],
            ),
        ],
        squashed: &[],
    },
    Pattern {
        id: "invisible_char",
        lang: &[],
        kind: Kind::Invisible,
        res: &[],
        squashed: &[],
    },
    Pattern {
        id: "bidi_control",
        lang: &[],
        kind: Kind::Bidi,
        res: &[],
        squashed: &[],
    },
];
