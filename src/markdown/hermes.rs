//! The memory files of Hermes-style agents, pure: a `MEMORY.md` or
//! `USER.md` whose entries are separated by a line holding only `§`
//! ([`split`]), and the reverse ([`join`]). No I/O.

/// The line between two entries.
pub const SEPARATOR: &str = "§";

/// The entries of a Hermes-style memory file, in file order: the text
/// between lines holding only `§` (spaces and a carriage return around it
/// allowed), each trimmed of blank lines and trailing spaces at its ends;
/// empty entries are dropped. A leading byte-order mark is ignored.
pub fn split(text: &str) -> Vec<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    let mut flush = |cur: &mut Vec<&str>| {
        let entry = cur
            .iter()
            .map(|l| l.trim_end())
            .collect::<Vec<_>>()
            .join("\n");
        let entry = entry.trim_matches('\n').trim();
        if !entry.is_empty() {
            out.push(entry.to_owned());
        }
        cur.clear();
    };
    for line in text.split('\n') {
        if line.trim() == SEPARATOR {
            flush(&mut cur);
        } else {
            cur.push(line);
        }
    }
    flush(&mut cur);
    out
}

/// A Hermes-style memory file of `entries`: their texts joined by
/// `\n§\n`, with a final line feed when there is any entry.
pub fn join<'a>(entries: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = entries
        .into_iter()
        .collect::<Vec<_>>()
        .join(&format!("\n{SEPARATOR}\n"));
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_cuts_at_lines_holding_only_the_section_sign() {
        let text = "\u{feff}First fact\n§\nA note\nover two lines  \n\n § \r\n\n§\nLast § inline\n";
        assert_eq!(
            split(text),
            ["First fact", "A note\nover two lines", "Last § inline"]
        );
        assert!(split("").is_empty());
        assert!(split("§\n§\n").is_empty());
        assert_eq!(split("only one"), ["only one"]);
    }

    #[test]
    fn join_is_the_reverse_of_split() {
        let entries = ["One", "Two\nlines", "Three"];
        let text = join(entries);
        assert_eq!(text, "One\n§\nTwo\nlines\n§\nThree\n");
        assert_eq!(split(&text), entries);
        assert_eq!(join(Vec::<&str>::new()), "");
    }
}
