//! Checks on candidate secret values: placeholders, entropy, references.

/// Documented placeholder markers: a candidate value containing one is not a secret.
pub(super) fn is_placeholder(value: &str) -> bool {
    let v = value.to_lowercase();
    [
        "example",
        "xxxx",
        "dummy",
        "placeholder",
        "your_",
        "your-",
        "changeme",
        "redacted",
        "fake",
        "<",
        ">",
    ]
    .iter()
    .any(|m| v.contains(m))
}

pub(super) fn has_digit_and_letter(v: &str) -> bool {
    v.chars().any(|c| c.is_ascii_digit()) && v.chars().any(|c| c.is_ascii_alphabetic())
}

pub(super) fn mixed_case_digits(v: &str) -> bool {
    v.chars().any(|c| c.is_ascii_digit())
        && v.chars().any(|c| c.is_ascii_uppercase())
        && v.chars().any(|c| c.is_ascii_lowercase())
}

pub(super) fn openai_ok(v: &str) -> bool {
    !v.starts_with("sk-ant-") && mixed_case_digits(v)
}

/// Shannon entropy of `v` in bits per character.
pub(super) fn entropy(v: &str) -> f64 {
    let mut counts: Vec<(char, usize)> = Vec::new();
    for c in v.chars() {
        match counts.iter_mut().find(|(k, _)| *k == c) {
            Some((_, n)) => *n += 1,
            None => counts.push((c, 1)),
        }
    }
    let total = v.chars().count() as f64;
    counts
        .iter()
        .map(|&(_, n)| n as f64 / total)
        .map(|p| -p * p.log2())
        .sum()
}

/// A reference to a secret rather than a secret: `$VAR`, `%VAR%`, `{{ … }}`, a path, a URL, an
/// e-mail address, a dotted identifier (`process.env.JWT_SECRET`) or an UPPER_SNAKE env var name.
fn is_reference(v: &str) -> bool {
    let ident = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let dotted_ref = v.contains('.') && v.trim_end_matches("()").split('.').all(ident);
    let env_name = v.contains('_')
        && v.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    let email = v
        .split_once('@')
        .is_some_and(|(a, b)| !a.is_empty() && b.contains('.') && !b.contains('@'));
    dotted_ref
        || env_name
        || email
        || v.contains("://")
        || v.starts_with(['$', '%', '/', '~', '.', '{', '\\'])
}

/// Generic assignment values: long, high-entropy, mixed classes, and not a reference.
pub(super) fn generic_ok(v: &str) -> bool {
    if v.chars().count() < 12 || is_reference(v) {
        return false;
    }
    let (lower, upper, digit) = (
        v.chars().any(|c| c.is_lowercase()),
        v.chars().any(|c| c.is_uppercase()),
        v.chars().any(|c| c.is_numeric()),
    );
    let other = v.chars().any(|c| !c.is_alphanumeric());
    let classes = [lower, upper, digit, other].iter().filter(|&&b| b).count();
    entropy(v) >= 3.0 && ((digit && (lower || upper)) || classes >= 3)
}

/// Values of `*_KEY` / `*_SECRET` style assignments: like [`generic_ok`], but at least 16
/// characters, and not a lower-case identifier (`tenant_id_2024_q3`, `v3:orders`).
pub(super) fn key_ok(v: &str) -> bool {
    let identifier = !v.chars().any(|c| c.is_ascii_uppercase())
        && v.contains(['_', ':', '.'])
        && v.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_:.-".contains(c));
    v.chars().count() >= 16 && !identifier && generic_ok(v)
}

/// Passwords: at least 6 characters with a letter and a digit or symbol, not a reference, not
/// lower-case words joined by `-`, `_` or `.` (`bcrypt-hashed`), and not a password manager's
/// name.
pub(super) fn password_ok(v: &str) -> bool {
    let letter = v.chars().any(char::is_alphabetic);
    let digit_or_symbol = v.chars().any(|c| !c.is_alphabetic());
    let words = v
        .chars()
        .all(|c| c.is_lowercase() || matches!(c, '-' | '_' | '.'));
    let manager = ["1password", "bitwarden", "keepass", "lastpass"]
        .iter()
        .any(|m| v.to_lowercase().starts_with(m));
    v.chars().count() >= 6 && letter && digit_or_symbol && !words && !manager && !is_reference(v)
}

/// Words used as the password of documentation URLs (`https://user:password@host`).
const URL_DUMMY_PASSWORDS: &[&str] = &[
    "password", "passwd", "pass", "pwd", "pw", "secret", "postgres", "root", "admin", "user",
    "username", "guest", "test", "mysql", "redis", "token", "pat",
];

/// `user:password` of a URL with credentials: the password is a literal (not a reference like
/// `${DB_PASS}` or `%40`-free placeholder), not a documentation dummy (`password`, `postgres`,
/// the user name repeated), and at least 6 characters or 4 with a letter and a digit.
pub(super) fn url_credentials_ok(userinfo: &str) -> bool {
    let Some((user, pass)) = userinfo.split_once(':') else {
        return false;
    };
    let long_enough = pass.chars().count() >= 6 || (pass.len() >= 4 && has_digit_and_letter(pass));
    long_enough
        && !pass.eq_ignore_ascii_case(user)
        && !URL_DUMMY_PASSWORDS
            .iter()
            .any(|d| pass.eq_ignore_ascii_case(d))
        && !pass.starts_with(['$', '%', '{', '<', '*'])
        && !pass.contains("${")
        && !is_placeholder(pass)
}
