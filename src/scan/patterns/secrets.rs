//! The secret patterns: provider keys and tokens, private keys, JWTs, credentials in URLs, and
//! generic secret, password and key assignments, each with the check its candidate value must
//! pass (`values.rs`).

use super::*;

/// Their entries, in output order.
pub(super) const SECRETS: &[Pattern] = &[
    Pattern {
        id: "aws_access_key",
        lang: &[],
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
        lang: &[],
        kind: Kind::Secret(Some(crate::scan::values::mixed_case_digits)),
        res: &[re(
            r#"(?i)\baws[_-]?(?:secret[_-]?(?:access[_-]?)?key|secret)["']?\s*(?::=|=>|=|:)\s*["']?(?P<v>[a-z0-9/+]{40})(?:[^a-z0-9/+=]|$)"#,
            &[&["aws"], &["secret"], ASSIGN],
        )],
        squashed: &[],
    },
    Pattern {
        id: "github_token",
        lang: &[],
        kind: Kind::Secret(Some(crate::scan::values::has_digit_and_letter)),
        res: &[re(
            r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b|\bgithub_pat_[A-Za-z0-9_]{40,255}\b",
            &[&["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]],
        )],
        squashed: &[],
    },
    Pattern {
        id: "anthropic_key",
        lang: &[],
        kind: Kind::Secret(Some(crate::scan::values::has_digit_and_letter)),
        res: &[re(r"\bsk-ant-[A-Za-z0-9_-]{20,}", &[&["sk-ant-"]])],
        squashed: &[],
    },
    Pattern {
        id: "openai_key",
        lang: &[],
        kind: Kind::Secret(Some(crate::scan::values::openai_ok)),
        res: &[re(
            r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
            &[&["sk-"]],
        )],
        squashed: &[],
    },
    Pattern {
        id: "slack_token",
        lang: &[],
        kind: Kind::Secret(Some(crate::scan::values::has_digit_and_letter)),
        res: &[re(r"\bxox[abposre]-[A-Za-z0-9-]{10,}", &[&["xox"]])],
        squashed: &[],
    },
    Pattern {
        id: "slack_webhook",
        lang: &[],
        kind: Kind::Secret(None),
        res: &[re(
            r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}",
            &[&["https://hooks.slack.com/"]],
        )],
        squashed: &[],
    },
    Pattern {
        id: "google_api_key",
        lang: &[],
        kind: Kind::Secret(None),
        res: &[re(r"\bAIza[0-9A-Za-z_-]{35}", &[&["aiza"]])],
        squashed: &[],
    },
    Pattern {
        id: "stripe_key",
        lang: &[],
        kind: Kind::Secret(Some(crate::scan::values::has_digit_and_letter)),
        res: &[re(
            r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{20,}",
            &[&["k_live_", "k_test_"]],
        )],
        squashed: &[],
    },
    Pattern {
        id: "private_key",
        lang: &[],
        kind: Kind::Secret(None),
        res: &[re(
            r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----",
            &[&["-----begin"], &["private key"]],
        )],
        squashed: &[],
    },
    Pattern {
        id: "jwt",
        lang: &[],
        kind: Kind::Secret(None),
        res: &[re(
            r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
            &[&["eyj"]],
        )],
        squashed: &[],
    },
    Pattern {
        id: "ozk_key",
        lang: &[],
        kind: Kind::Secret(None),
        res: &[re(r"\bozk_[A-Za-z0-9]{16,}", &[&["ozk_"]])],
        squashed: &[],
    },
    Pattern {
        id: "generic_secret",
        lang: &[],
        kind: Kind::Secret(Some(crate::scan::values::generic_ok)),
        res: &[re(
            r#"(?i)(?:^|[^a-z0-9])(?:[a-z0-9_.-]{0,30}?[_.-])?(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|client[_-]?secret|auth[_-]?token|secret[_-]?key|private[_-]?key)(?:[_-][a-z0-9_-]{0,20})?["']?\s*(?::=|=>|=|:)\s*["']?(?P<v>[^\s"'`,;]{12,200})"#,
            &[
                &[
                    "password",
                    "passwd",
                    "pwd",
                    "secret",
                    "token",
                    "apikey",
                    "api_key",
                    "api-key",
                    "accesskey",
                    "access_key",
                    "access-key",
                    "privatekey",
                    "private_key",
                    "private-key",
                ],
                ASSIGN,
            ],
        )],
        squashed: &[],
    },
    Pattern {
        id: "razorpay_key",
        lang: &[],
        kind: Kind::Secret(Some(crate::scan::values::has_digit_and_letter)),
        res: &[re(r"\brzp_(?:live|test)_[A-Za-z0-9]{14,}", &[&["rzp_"]])],
        squashed: &[],
    },
    Pattern {
        id: "url_credentials",
        lang: &[],
        kind: Kind::Secret(Some(crate::scan::values::url_credentials_ok)),
        res: &[re(
            r#"(?i)\b[a-z][a-z0-9+.-]{1,20}://(?P<v>[^\s:/@?#\[\]"'<>]{0,64}:[^\s/@?#"'<>]{1,128})@[a-z0-9\[]"#,
            &[&["://"], &["@"]],
        )],
        squashed: &[],
    },
    Pattern {
        id: "password_assignment",
        lang: &[],
        kind: Kind::Secret(Some(crate::scan::values::password_ok)),
        res: &[
            // `PGPASSWORD=…`, `MYSQL_PWD=…`, `DB_PASS: …`, `admin password: …`.
            re(
                r#"(?i)(?:^|[^a-z0-9])(?:[a-z0-9_.-]{0,30}?(?:password|passwd|passphrase)|(?:[a-z0-9]{1,30}[_.-])?(?:pwd|pass|pw))["']?\s*(?::=|=>|=|:)\s*["'`]?(?P<v>[^\s"'`,;]{6,128})"#,
                &[&["pass", "pwd", "pw"], ASSIGN],
            ),
            // `mysql -pSECRET`, `sshpass -p SECRET`, `--password=SECRET`.
            re(
                r#"(?i)(?:\bmysql(?:dump|admin|import|sh)?\b[^\n]{0,80}?\s-p|\bsshpass\s+-p\s*|--password[=\s]+)["']?(?P<v>[^\s"'`;|&]{6,64})"#,
                &[&["mysql", "sshpass", "--password"]],
            ),
            // "the wifi password is …", "sudo password on build-3 is …".
            re(
                r#"(?i)\b(?:password|passwd|passphrase|pw|pwd)\s+(?:(?:for|on|of|to)\s+[^\n:=]{1,40}?\s+)?(?:is|was|=|:)\s+["'`]?(?P<v>[^\s"'`,;]{6,64})"#,
                &[&["passw", "passphrase", "pw"], &["is", "was", "=", ":"]],
            ),
        ],
        squashed: &[],
    },
    Pattern {
        id: "key_assignment",
        lang: &[],
        kind: Kind::Secret(Some(crate::scan::values::key_ok)),
        res: &[re(
            r#"(?i)(?:^|[^a-z0-9])[a-z0-9]{1,30}(?:[_.-][a-z0-9]{1,30}){0,3}[_.-]key["']?\s*(?::=|=>|=|:)\s*["']?(?P<v>[^\s"'`,;]{16,200})"#,
            &[&["_key", ".key", "-key"], ASSIGN],
        )],
        squashed: &[],
    },
];
